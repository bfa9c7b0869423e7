//! History across index versions (docs/contract.md §9.11): the line `promote`
//! appends to `history.jsonl`, `ragdiff history` in every format, and the last
//! promotions `compare` shows beside its means.

use std::path::Path;

use crate::common::{
    assert_code, assert_invalid, assert_line, compare_json, demo_copy, ragdiff_snapshot, read, run,
    stderr, stdout,
};

const HISTORY: &str = "runs/history.jsonl";

/// The demo promoted with `--force` (its gate fails on Q-21), then `index_version`
/// of the candidate bumped, `times` times.
fn promoted(times: usize) -> tempfile::TempDir {
    let dir = demo_copy();
    for i in 0..times {
        assert_code(&run(dir.path(), &["promote", "--force"]), 0);
        let manifest = dir.path().join("runs/candidate.toml");
        let text = std::fs::read_to_string(&manifest).expect("the candidate");
        let text = text.replace(
            &format!("index_version = \"2.{}.0\"", 4 + i),
            &format!("index_version = \"2.{}.0\"", 5 + i),
        );
        std::fs::write(&manifest, text).expect("written");
    }
    dir
}

fn lines(dir: &Path) -> Vec<serde_json::Value> {
    read(dir, HISTORY)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn promote_appends_one_line_with_the_comparisons_own_numbers() {
    let dir = demo_copy();
    // What the gate saw, before promoting.
    let before = compare_json(dir.path(), &["compare", "--no-gate", "--format", "json"], 0);
    assert_code(&run(dir.path(), &["promote", "--force"]), 0);
    let got = lines(dir.path());
    assert_eq!(got.len(), 1);
    let line = &got[0];
    assert_eq!(line["schema"], 1);
    assert_eq!(line["date"], "2026-12-01");
    assert_eq!(line["gold"]["name"], "demo");
    assert_eq!(line["gold"]["version"], "1.1.0");
    assert_eq!(line["gold"]["sha256"], "2ddf6cf705ab");
    assert_eq!(line["baseline_index_version"], "2.3.0");
    assert_eq!(line["candidate_index_version"], "2.4.0");
    assert_eq!(line["k"], 3);
    assert_eq!(line["verdict"], "fail");
    let rr = &line["means"][0];
    assert_eq!(rr["metric"], "rr");
    assert_eq!(rr["baseline"].as_f64(), Some(before.means.rr.baseline));
    assert_eq!(rr["candidate"].as_f64(), Some(before.means.rr.candidate));
    assert_eq!(rr["ci_low"].as_f64(), Some(before.means.rr.ci_low));
    assert_eq!(
        line["means"].as_array().map(|m| m
            .iter()
            .map(|x| x["metric"].as_str().unwrap_or(""))
            .collect::<Vec<_>>()),
        Some(vec!["rr", "recall", "hit", "precision", "ndcg", "ap"])
    );
    assert_eq!(line["statuses"]["newly_failed"], before.newly_failed.len());
    assert_eq!(line["statuses"]["fixed"], before.fixed.len());
    // Ids and numbers only: no question text, no doc id.
    let raw = read(dir.path(), HISTORY);
    assert!(!raw.contains("Q-21") && !raw.contains("D-9"), "{raw}");
    // The next steps name it, to be committed with the baseline.
    assert!(stdout(&run(dir.path(), &["history"])).contains("2.4.0"));
}

#[test]
fn a_second_promotion_keeps_every_earlier_byte() {
    let dir = promoted(1);
    // A line a later ragdiff does not read stays as it is.
    let path = dir.path().join(HISTORY);
    let mut text = read(dir.path(), HISTORY);
    text.push_str("{\"schema\": 9}");
    std::fs::write(&path, &text).expect("written");
    assert_code(&run(dir.path(), &["promote", "--force"]), 0);
    let after = read(dir.path(), HISTORY);
    assert!(after.starts_with(&format!("{text}\n")), "{after}");
    assert_eq!(after.lines().count(), 3);
}

#[test]
fn a_failing_gate_without_force_writes_no_history() {
    let dir = demo_copy();
    assert_code(&run(dir.path(), &["promote"]), 1);
    assert!(!dir.path().join(HISTORY).exists());
}

#[test]
fn promote_refuses_a_history_that_is_not_a_regular_file_before_the_gate() {
    let dir = demo_copy();
    std::fs::create_dir(dir.path().join(HISTORY)).expect("a folder");
    let out = run(dir.path(), &["promote", "--force"]);
    assert_invalid(
        &out,
        &["runs/history.jsonl: history runs/history.jsonl is a directory, not a file"],
    );
    assert!(stdout(&out).is_empty(), "the gate ran: {}", stdout(&out));
    assert_eq!(
        read(dir.path(), "runs/baseline.toml"),
        std::fs::read_to_string(crate::common::crate_dir().join("runs/baseline.toml"))
            .expect("demo")
    );
}

#[test]
fn history_prints_the_trend_and_breaks_it_where_the_gold_changes() {
    let dir = promoted(2);
    // A third line judged under another gold version.
    let mut text = read(dir.path(), HISTORY);
    let last = text
        .lines()
        .last()
        .expect("a line")
        .replace("\"1.1.0\"", "\"1.2.0\"");
    text.push_str(&last);
    text.push('\n');
    std::fs::write(dir.path().join(HISTORY), text).expect("written");
    let out = run(dir.path(), &["history"]);
    let text = stdout(&out);
    ragdiff_snapshot!(&out);
    // The first promotion's baseline starts the line; each promoted version follows.
    let order: Vec<usize> = ["2.3.0", "2.4.0", "2.5.0", "BASELINE"]
        .iter()
        .map(|v| text.find(v).unwrap_or_else(|| panic!("no {v}:\n{text}")))
        .collect();
    assert!(order[0] < order[1] && order[1] < order[2], "{text}");
}

#[test]
fn a_line_that_does_not_parse_is_a_warning_naming_it() {
    let dir = promoted(1);
    let good = read(dir.path(), HISTORY);
    let bad_field = good.trim_end().replacen("{", "{\"extra\":1,", 1);
    let bad_schema = good.trim_end().replacen("\"schema\":1", "\"schema\":2", 1);
    let bad_mean = good
        .trim_end()
        .replacen("\"baseline\":0.5625", "\"baseline\":7", 1);
    let text = format!("{good}not json\n{bad_field}\n{bad_schema}\n{bad_mean}\n");
    std::fs::write(dir.path().join(HISTORY), text).expect("written");
    let out = run(dir.path(), &["history", "--format", "json"]);
    assert_code(&out, 0);
    let err = stderr(&out);
    for line in [
        "warning: runs/history.jsonl:2: not a history line (not one JSON object); skipped",
        "warning: runs/history.jsonl:3: not a history line (a field missing, unknown or of the wrong type); skipped",
        "warning: runs/history.jsonl:4: not a usable history line (schema 2 (this ragdiff reads 1)); skipped",
        "warning: runs/history.jsonl:5: not a usable history line (rr: a mean outside [0, 1]); skipped",
    ] {
        assert_line(&err, line);
    }
    let json: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(json.len(), 1);
    // compare warns the same way and still compares.
    let out = run(dir.path(), &["compare", "--no-gate"]);
    ragdiff_snapshot!(&out);
}

#[test]
fn history_without_a_file_is_exit_2_naming_it() {
    let dir = demo_copy();
    let out = run(dir.path(), &["history"]);
    assert_invalid(
        &out,
        &["runs/history.jsonl: history runs/history.jsonl does not exist"],
    );
    // A file named on the command line.
    let out = run(dir.path(), &["history", "elsewhere.jsonl"]);
    assert_invalid(
        &out,
        &["elsewhere.jsonl: history elsewhere.jsonl does not exist"],
    );
}

#[test]
fn history_markdown_draws_mermaid_charts_with_safe_labels() {
    let dir = promoted(1);
    let hostile = read(dir.path(), HISTORY).replace("\"2.4.0\"", "\"2.4\\\"] x-axis [<b>|`\"");
    std::fs::write(dir.path().join(HISTORY), hostile).expect("written");
    let out = run(dir.path(), &["history", "--format", "markdown"]);
    let md = stdout(&out);
    assert_eq!(md.matches("```mermaid\nxychart-beta\n").count(), 4, "{md}");
    ragdiff_snapshot!(&out);
    // In the table the version is a code span: Markdown shows it as text.
}

#[test]
fn history_html_escapes_every_input_and_runs_no_script() {
    let dir = promoted(1);
    let hostile =
        read(dir.path(), HISTORY).replace("\"2.4.0\"", "\"</script><script>alert(1)</script>\"");
    std::fs::write(dir.path().join(HISTORY), hostile).expect("written");
    let out = run(dir.path(), &["history", "--format", "html"]);
    let page = stdout(&out);
    assert!(!page.contains("<script"), "{page}");
    ragdiff_snapshot!(&out);
    assert!(!page.contains("style=\""), "{page}");
}

#[test]
fn compare_shows_the_last_promotions_under_its_own_gold_only() {
    let dir = promoted(2);
    // A line under another gold: never shown beside these means.
    let mut text = read(dir.path(), HISTORY);
    let other = text
        .lines()
        .next()
        .expect("a line")
        .replace("\"1.1.0\"", "\"0.9.0\"");
    text = format!("{other}\n{text}");
    std::fs::write(dir.path().join(HISTORY), text).expect("written");
    let out = run(dir.path(), &["compare", "--no-gate"]);
    ragdiff_snapshot!(&out);
    let json = compare_json(dir.path(), &["compare", "--no-gate", "--format", "json"], 0);
    assert_eq!(json.history.len(), 2);
    assert!(json.history.iter().all(|l| l["gold"]["version"] == "1.1.0"));
    let md = stdout(&run(
        dir.path(),
        &["compare", "--no-gate", "--format", "markdown"],
    ));
    assert!(
        md.contains(
            "<details><summary>history: the last 2 promotions under this gold, then now</summary>"
        ),
        "{md}"
    );
    let html = stdout(&run(
        dir.path(),
        &["compare", "--no-gate", "--format", "html"],
    ));
    assert!(html.contains("<section id=\"history\">"), "{html}");
    // Without a history file, none of it.
    let plain = demo_copy();
    let out = run(plain.path(), &["compare", "--no-gate"]);
    assert!(!stdout(&out).contains("history:"), "{}", stdout(&out));
}

#[test]
fn the_history_table_fits_80_columns() {
    let dir = promoted(2);
    let out = crate::common::ragdiff(dir.path())
        .env("COLUMNS", "80")
        .arg("history")
        .output()
        .expect("runs");
    let text = stdout(&out);
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    ragdiff_snapshot!(&out, @"
    success: true
    exit_code: 0
    ----- stdout -----
    history  runs/history.jsonl

    gold demo 1.1.0 (sha256 2ddf6cf705ab), k 3: 2 promotions
    ┌──────────────────────────────────────────────────────────────────────────────┐
    │ date         index   verdict    MRR@3    Recall@3   Hit@3    nDCG@3   MAP    │
    ╞══════════════════════════════════════════════════════════════════════════════╡
    │              2.3.0   BASELINE   0.5625     0.5000   0.6250   0.4822   0.4688 │
    │ 2026-12-01   2.4.0   FAIL       0.6458     0.6458   0.7083   0.6138   0.6562 │
    │ 2026-12-01   2.5.0   FAIL       0.6458     0.6458   0.7083   0.6138   0.6562 │
    └──────────────────────────────────────────────────────────────────────────────┘
    (left out to fit 80 columns: P@3; `--format json` hold them)

    ----- stderr -----
    ");
}
