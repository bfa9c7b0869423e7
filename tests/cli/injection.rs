//! What is printed (docs/contract.md §12.5): input values cannot start a GitHub workflow command or
//! a new line (item 1), one long warning cannot empty the Markdown (item 8), and tied
//! scores in another order than trec_eval's tie-break are a note, not a warning
//! (item 12). Fixtures: tests/fixtures/injection/.

use std::path::Path;
use std::process::Output;

use crate::common::{
    COMPARE_CASE, Change, assert_code, assert_line, demo_copy, fixture, ragdiff, stderr, stdout,
    with, write_generated,
};

/// `ragdiff ARGS` from `dir` as GitHub Actions runs it.
fn gha(dir: impl AsRef<Path>, args: &[&str]) -> Output {
    ragdiff(dir)
        .env("GITHUB_ACTIONS", "true")
        .args(args)
        .output()
        .expect("ragdiff runs")
}

/// Lines as GitHub's runner reads them: split at `\n` and at a bare `\r`.
fn runner_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split(['\n', '\r'])
}

/// Whether the runner would read `line` as a `::` command: `::` after white space.
fn starts_command(line: &str) -> bool {
    line.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '\u{200b}' | '\u{feff}'))
        .starts_with("::")
}

/// A workflow command ragdiff writes itself: `::error title=ragdiff…::…` or
/// `::warning title=ragdiff…::…` at the line's start, its title escaped (no raw `:`
/// or `,`), so the command ends where ragdiff meant it to.
fn own_command(line: &str) -> bool {
    ["::error title=", "::warning title=", "::notice title="]
        .iter()
        .any(|kind| {
            line.strip_prefix(kind)
                .and_then(|rest| rest.split_once("::"))
                .is_some_and(|(title, _)| {
                    title.starts_with("ragdiff") && !title.contains([':', ','])
                })
        })
}

/// Assert that no line of stdout or stderr starts a workflow command (or holds the
/// old `##[command]` form) except ragdiff's own commands on stderr; returns those.
#[track_caller]
fn assert_no_injection(out: &Output) -> Vec<String> {
    let (so, se) = (stdout(out), stderr(out));
    for line in runner_lines(&so) {
        assert!(
            !starts_command(line) && !line.contains("##["),
            "stdout line reads as a workflow command: {line:?}\n{so}"
        );
    }
    let mut own = Vec::new();
    for line in runner_lines(&se) {
        assert!(!line.contains("##["), "stderr line holds `##[`: {line:?}");
        if starts_command(line) {
            assert!(
                own_command(line),
                "stderr line reads as a workflow command ragdiff did not mean: {line:?}\n{se}"
            );
            own.push(line.to_string());
        }
    }
    own
}

/// Replace the line of `path` that starts with `prefix` by `line`.
fn set_line(path: &Path, prefix: &str, line: &str) {
    let text = std::fs::read_to_string(path).expect("readable");
    assert!(
        text.lines().any(|l| l.starts_with(prefix)),
        "{prefix} in {text}"
    );
    let new: Vec<&str> = text
        .lines()
        .map(|l| if l.starts_with(prefix) { line } else { l })
        .collect();
    std::fs::write(path, new.join("\n") + "\n").expect("written");
}

// ---------------------------------------------------------------------------------
// Item 1: workflow-command injection.

#[test]
fn a_corpus_with_a_newline_starts_no_workflow_command() {
    // The issue's attack: sed 's/^corpus = .*/corpus = "demo-questions\\n::error …"/'.
    let dir = demo_copy();
    set_line(
        &dir.path().join("runs/candidate.toml"),
        "corpus = ",
        r#"corpus = "demo-questions\n::error title=Security::INJECTED""#,
    );
    let out = gha(dir.path(), &["compare"]);
    assert_code(&out, 3);
    assert_eq!(assert_no_injection(&out), Vec::<String>::new());
    assert!(
        stderr(&out).contains(r"candidate demo-questions\n::error title=Security::INJECTED"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn filter_keys_and_values_start_no_workflow_command() {
    let dir = demo_copy();
    let manifest = dir.path().join("runs/candidate.toml");
    let mut text = std::fs::read_to_string(&manifest).expect("readable");
    assert!(text.trim_end().ends_with(r#"access = "public""#), "{text}");
    text.push_str("\"::add-mask::KEY\" = \"x\\n::add-mask::VALUE\"\n");
    text.push_str("carriage = \"v\\r  ::error::CR\"\n");
    text.push_str("legacy = \"see ##[error]LEGACY\"\n");
    std::fs::write(&manifest, text).expect("written");
    for gh in [true, false] {
        let mut cmd = ragdiff(dir.path());
        if gh {
            cmd.env("GITHUB_ACTIONS", "true");
        }
        let out = cmd.arg("compare").output().expect("ragdiff runs");
        assert_code(&out, 3);
        assert_no_injection(&out);
        let err = stderr(&out);
        assert_line(
            &err,
            r"filters: ::add-mask::KEY=x\n::add-mask::VALUE only in candidate",
        );
        assert_line(
            &err,
            r"filters: carriage=v\r  ::error::CR only in candidate",
        );
        assert_line(
            &err,
            r"filters: legacy=see #\u0023[error]LEGACY only in candidate",
        );
    }
}

#[test]
fn a_results_path_starts_no_workflow_command() {
    let dir = demo_copy();
    set_line(
        &dir.path().join("runs/candidate.toml"),
        "results = ",
        r#"results = "nope\n::error::x""#,
    );
    let out = gha(dir.path(), &["compare"]);
    assert_code(&out, 2);
    assert_no_injection(&out);
    assert!(
        stderr(&out).contains(r"run results runs/nope\n::error::x does not exist"),
        "{}",
        stderr(&out)
    );
    // A path given on the command line that starts a line of the problem list: the
    // line's `::` is neutralised where it is written.
    let out = gha(dir.path(), &["validate", "::error::x.toml"]);
    assert_code(&out, 2);
    assert_no_injection(&out);
    assert!(
        stderr(&out).contains(r"  :\u{3a}error::x.toml: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_argument_clap_refuses_starts_no_workflow_command() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = gha(dir.path(), &["eval", "--k", "1\n::error::ARG", "a", "b"]);
    assert_code(&out, 2);
    assert_eq!(assert_no_injection(&out), Vec::<String>::new());
    assert!(
        stderr(&out).contains(r":\u{3a}error::ARG"),
        "{}",
        stderr(&out)
    );
    let out = gha(dir.path(), &["--help"]);
    assert_code(&out, 0);
    assert!(stdout(&out).contains("Usage: ragdiff <COMMAND>"));
}

/// The hostile fixture's corpus as it is (JSON keeps data) and as messages show it.
const CORPUS: &str = "c\n::error::CORPUS\r::error::CR ##[error]LEGACY \u{202e}evil";
const CORPUS_SHOWN: &str = r"c\n::error::CORPUS\r::error::CR #\u0023[error]LEGACY \u{202e}evil";
const OWN_ERROR: &str = "::error title=ragdiff%3A %3A%3Aerror%3A%3AID newly failed::query ::error::ID newly failed (ranking): first relevant rank 1 -> 4; lost from top 3: ::warning::DOC";

#[test]
fn hostile_values_in_every_format_start_no_workflow_command() {
    let dir = fixture("injection/hostile");
    let compare = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];
    for format in ["table", "markdown", "json", "csv"] {
        let out = gha(&dir, &[&compare[..], &["--format", format]].concat());
        assert_code(&out, 1);
        let own = assert_no_injection(&out);
        // The one real error: the newly failed query, its id escaped in the title.
        let errors: Vec<&String> = own.iter().filter(|l| l.starts_with("::error")).collect();
        assert_eq!(errors, [OWN_ERROR], "{format}");
        // The header name with a newline, in a warning.
        assert!(
            own.contains(
                &r"::warning title=ragdiff::gold.csv:1: ignoring extra column `note\n::error::HEADER`"
                    .to_string()
            ),
            "{own:?}"
        );
        let so = stdout(&out);
        // JSON is data (serde escapes control characters); the rest shows escapes.
        assert!(
            format == "json" || !so.contains('\u{202e}'),
            "a raw bidi override in {format}"
        );
        match format {
            "table" => {
                assert!(so.contains(CORPUS_SHOWN), "{so}");
                assert!(
                    so.contains(r"hostile\n::error title=Security::NAME"),
                    "{so}"
                );
                assert!(
                    so.contains(r"::add-mask::KEY=v\n::add-mask::FILTER"),
                    "{so}"
                );
            }
            "markdown" => {
                assert!(so.contains(r"**corpus** c\\n::error::CORPUS\\r::error::CR \#\#\[error\]LEGACY \\u{202e}evil"), "{so}");
            }
            "json" => {
                let v: serde_json::Value = serde_json::from_str(&so).expect("JSON parses");
                assert_eq!(v["gold"]["corpus"], CORPUS);
                assert_eq!(v["baseline"]["filters"]["legacy"], "##[add-mask]LEGACY");
                assert_eq!(v["per_query"][0]["id"], "::error::ID");
            }
            "csv" => {
                // One record per line; the id that starts a line is neutralised.
                assert_eq!(so.lines().count(), 3, "{so}");
                assert_line(
                    &so,
                    r":\u{3a}error::ID,newly_failed,ranking,,,1,4,1,0,-1,1,0,-1,1,0,-1,0.3333333333333333,0,-0.3333333333333333,1,0,-1,1,0.25,-0.75,::warning::DOC,,,",
                );
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn hostile_values_in_exports_eval_and_validate() {
    let dir = fixture("injection/hostile");
    let out_dir = tempfile::tempdir().expect("a temporary folder");
    let file = |name: &str| out_dir.path().join(name).display().to_string();
    let (md, js, csv) = (file("r.md"), file("r.json"), file("r.csv"));
    let out = gha(
        &dir,
        &with(
            &COMPARE_CASE,
            &[
                "--allow-failed-file",
                "allow.csv",
                "--export-markdown",
                &md,
                "--export-json",
                &js,
                "--export-csv",
                &csv,
            ],
        ),
    );
    assert_code(&out, 0);
    let own = assert_no_injection(&out);
    assert!(
        own.iter()
            .all(|l| l.starts_with("::warning") || l.starts_with("::notice")),
        "an accepted failure is a warning (and the blind PASS a notice): {own:?}"
    );
    // The allow-list reason holds a bidi override: shown escaped (a newline in it
    // is an input error, docs/contract.md §8.5).
    assert!(
        stdout(&out).contains(r"::error::ID: known ::error::REASON \u{202e}evil"),
        "{}",
        stdout(&out)
    );
    let md = std::fs::read_to_string(&md).expect("the Markdown");
    assert!(
        !md.chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "{md}"
    );
    assert!(
        md.contains(r"yes: known ::error::REASON \\u{202e}evil"),
        "{md}"
    );
    for line in md.lines() {
        assert!(!starts_command(line), "{line}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&js).expect("the JSON")).expect("parses");
    assert_eq!(
        json["accepted"][0]["reason"],
        "known ::error::REASON \u{202e}evil"
    );
    assert_eq!(json["gold"]["corpus"], CORPUS);
    let csv = std::fs::read_to_string(&csv).expect("the CSV");
    assert_eq!(csv.lines().count(), 3, "one record per line: {csv}");

    for format in ["table", "json"] {
        let out = gha(
            &dir,
            &[
                "eval",
                "--gold",
                "gold.toml",
                "base.toml",
                "--format",
                format,
            ],
        );
        assert_code(&out, 0);
        assert_no_injection(&out);
        if format == "table" {
            // The per-query rows start with the id: neutralised where written.
            assert!(
                stdout(&out).contains(r":\u{3a}error::ID "),
                "{}",
                stdout(&out)
            );
            assert!(stdout(&out).contains(CORPUS_SHOWN), "{}", stdout(&out));
        } else {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("parses");
            assert_eq!(v["run"]["corpus"], CORPUS);
        }
    }
    let out = gha(
        &dir,
        &["validate", "--gold", "gold.toml", "base.toml", "cand.toml"],
    );
    assert_code(&out, 0);
    assert_no_injection(&out);
    assert_line(&stdout(&out), "ok: gold.toml and 2 runs are valid");
}

#[test]
fn ids_with_bidi_controls_are_shown_escaped() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let id = "Q-\u{202e}1";
    write_generated(
        dir.path(),
        &[
            (id.to_string(), Change::NewlyFailed),
            ("Q-2".to_string(), Change::Unchanged),
        ],
    );
    let args = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];
    for format in ["table", "markdown", "csv", "json"] {
        let out = gha(dir.path(), &[&args[..], &["--format", format]].concat());
        assert_code(&out, 1);
        let own = assert_no_injection(&out);
        assert!(
            own.iter()
                .any(|l| l.starts_with(r"::error title=ragdiff%3A Q-\u{202e}1 newly failed::")),
            "{own:?}"
        );
        assert!(!stderr(&out).contains('\u{202e}'));
        let so = stdout(&out);
        if format == "json" {
            let v: serde_json::Value = serde_json::from_str(&so).expect("parses");
            assert_eq!(v["newly_failed"][0], id, "JSON keeps the id as it is");
        } else {
            assert!(!so.contains('\u{202e}'), "{format}: {so}");
            assert!(so.contains(r"Q-\u{202e}1"), "{format}: {so}");
        }
    }
}

// ---------------------------------------------------------------------------------
// Item 8: one warning cannot empty the Markdown.

/// Give the demo candidate's CSV extra columns named by `names` (empty cells).
fn extra_columns(dir: &Path, names: &[String]) {
    let path = dir.join("runs/candidate.csv");
    let text = std::fs::read_to_string(&path).expect("readable");
    let mut lines = text.lines();
    let mut out = format!("{},{}\n", lines.next().expect("a header"), names.join(","));
    let blanks = ",".repeat(names.len());
    for line in lines {
        out.push_str(&format!("{line}{blanks}\n"));
    }
    std::fs::write(&path, out).expect("written");
}

/// The demo's Markdown still holds its verdict, its newly failed row and its
/// per-query rows, within the size limit.
#[track_caller]
fn assert_rows_kept(md: &str) {
    assert!(md.len() <= 60_000, "{} bytes", md.len());
    assert!(md.starts_with("## ragdiff: ❌ FAIL"), "{md}");
    assert!(
        md.contains("| `Q-21` | ranking · **suspect: 1 unjudged doc entered the top 3** | 2 → 4 |"),
        "no newly failed row:\n{md}"
    );
    assert!(
        md.contains("| `Q-22` | regressed |"),
        "no per-query row:\n{md}"
    );
    assert!(!md.contains("left out to keep this under"), "{md}");
}

#[test]
fn thousands_of_extra_column_names_leave_the_markdown_rows_in_place() {
    let dir = demo_copy();
    let names: Vec<String> = (1..=8000).map(|i| format!("extra_column_{i}")).collect();
    extra_columns(dir.path(), &names);
    let out = crate::common::run(dir.path(), &["compare", "--format", "markdown"]);
    assert_code(&out, 1);
    let md = stdout(&out);
    assert_rows_kept(&md);
    assert!(
        md.contains(r"\`extra\_column\_10\` … and 7990 more"),
        "the warning names ten columns and counts the rest:\n{md}"
    );
}

#[test]
fn one_long_warning_is_cut_to_300_characters_not_the_rows() {
    let dir = demo_copy();
    // Ten names of 8,000 characters: one warning of 80 KB, longer than the limit.
    let names: Vec<String> = (0..10)
        .map(|i| format!("{i}{}", "x".repeat(8000)))
        .collect();
    extra_columns(dir.path(), &names);
    let out = crate::common::run(dir.path(), &["compare", "--format", "markdown"]);
    assert_code(&out, 1);
    let md = stdout(&out);
    assert_rows_kept(&md);
    let warning = md
        .lines()
        .find(|l| l.starts_with("- runs/candidate.csv:1: ignoring extra columns"))
        .unwrap_or_else(|| panic!("no warning line:\n{md}"));
    assert!(warning.chars().count() < 420, "{warning}");
    assert!(
        warning.contains("… and ")
            && warning.ends_with(" more characters (the JSON report holds them)"),
        "{warning}"
    );
    // The JSON keeps the warning whole.
    let out = crate::common::run(dir.path(), &["compare", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("parses");
    let whole = v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w.as_str())
        .find(|w| w.contains("ignoring extra columns"))
        .expect("the warning");
    assert!(whole.len() > 80_000, "{}", whole.len());
}

// ---------------------------------------------------------------------------------
// Item 12: tied scores ordered otherwise than trec_eval's tie-break are a note.

const TIE_NOTE: &str = "run.ties-only.trec: 1 query has tied scores ordered differently from trec_eval's doc-id tie-break (numbers follow trec_eval): N1";
const INVERSION: &str = "run.inversion.trec: 1 query has scores whose order disagrees with the rank column; ragdiff, like trec_eval, ranks by score: N1";

fn strings(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("an array: {v}"))
        .iter()
        .map(|s| s.as_str().expect("a string"))
        .collect()
}

#[test]
fn tied_scores_in_another_order_are_a_note_not_a_warning() {
    let dir = fixture("injection/ties");
    let out = gha(
        &dir,
        &["eval", "qrels", "run.ties-only.trec", "--format", "json"],
    );
    assert_code(&out, 0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("parses");
    assert_eq!(strings(&v["notes"]), [TIE_NOTE]);
    let warnings = strings(&v["warnings"]).join("\n");
    assert!(
        !warnings.contains("N1") && !warnings.contains("rank column"),
        "{warnings}"
    );
    // trec_eval's order D2, D1, D5, D3: the first relevant doc D1 at rank 2.
    let n1 = v["per_query"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["id"] == "N1")
        .expect("N1");
    assert_eq!(n1["first_relevant_rank"], 2);
    // Never a `::warning`, nor on stderr at all.
    assert!(!stderr(&out).contains("tied"), "{}", stderr(&out));

    let out = gha(&dir, &["eval", "qrels", "run.ties-only.trec"]);
    assert_code(&out, 0);
    assert_line(&stdout(&out), &format!("note: {TIE_NOTE}"));
    assert!(!stderr(&out).contains("tied"), "{}", stderr(&out));
}

#[test]
fn a_lower_score_ranked_above_a_higher_one_stays_a_warning() {
    let dir = fixture("injection/ties");
    let out = gha(
        &dir,
        &["eval", "qrels", "run.inversion.trec", "--format", "json"],
    );
    assert_code(&out, 0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("parses");
    assert!(strings(&v["warnings"]).contains(&INVERSION), "{v}");
    assert_eq!(strings(&v["notes"]), Vec::<&str>::new());
    assert_line(
        &stderr(&out),
        &format!("::warning title=ragdiff::{INVERSION}"),
    );
}

#[test]
fn compare_shows_the_note_in_json_table_and_markdown() {
    let dir = fixture("injection/ties");
    let args = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];
    let out = gha(&dir, &[&args[..], &["--format", "json"]].concat());
    assert_code(&out, 0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("parses");
    assert_eq!(strings(&v["notes"]), [TIE_NOTE]);
    assert!(strings(&v["warnings"]).contains(&INVERSION), "{v}");
    let err = stderr(&out);
    assert!(!err.contains("tied"), "{err}");
    assert_line(&err, &format!("::warning title=ragdiff::{INVERSION}"));

    let out = gha(&dir, &args);
    assert_code(&out, 0);
    assert_line(&stdout(&out), &format!("note: {TIE_NOTE}"));

    let out = gha(&dir, &[&args[..], &["--format", "markdown"]].concat());
    assert_code(&out, 0);
    let md = stdout(&out);
    let notes = md
        .split("**Notes**")
        .nth(1)
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        notes.contains(
            r"- run.ties-only.trec: 1 query has tied scores ordered differently from trec\_eval's doc-id tie-break (numbers follow trec\_eval): N1"
        ),
        "{md}"
    );
    let warnings = md.split("**Warnings**").nth(1).expect("warnings");
    let warnings = warnings
        .split("**Notes**")
        .next()
        .expect("before the notes");
    assert!(!warnings.contains("tied"), "{warnings}");
}

/// stdout in the format of an export is that file's bytes read back, still
/// through the guard: the same bytes as the format alone on stdout, while the file
/// keeps the data as it is.
#[test]
fn stdout_copied_from_an_export_is_guarded_alike() {
    let dir = fixture("injection/hostile");
    let out_dir = tempfile::tempdir().expect("a temporary folder");
    let compare = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];
    for (format, flag) in [
        ("json", "--export-json"),
        ("markdown", "--export-markdown"),
        ("csv", "--export-csv"),
    ] {
        let file = out_dir.path().join(format).display().to_string();
        let alone = gha(&dir, &[&compare[..], &["--format", format]].concat());
        let both = gha(
            &dir,
            &[&compare[..], &["--format", format, flag, &file]].concat(),
        );
        assert_code(&both, 1);
        assert_no_injection(&both);
        assert_eq!(stdout(&both), stdout(&alone), "{format}");
        let exported = std::fs::read_to_string(&file).expect("the export");
        if format == "csv" {
            assert!(
                exported.contains("\n::error::ID,newly_failed,"),
                "{exported}"
            );
            assert!(!stdout(&both).contains("\n::error::ID,"));
        }
    }
}
