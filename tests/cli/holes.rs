//! Judgements and label holes (docs/contract.md §6.3): judged docs of every grade, the
//! `non_relevant_doc_ids` column, unjudged_at_k and Judged@k, suspect new failures,
//! `--suspects`, the label queue and the relevant-only note.
//!
//! The fixture tests/fixtures/holes/suspect (k = 3, depth 5) holds one query of each
//! kind: S-1 newly failed and suspect (two unjudged docs entered; U-2, at baseline
//! rank 5, counts toward suspect, U-1, which the baseline never returned, does not), S-2 newly failed but its gold lists relevant docs only, S-3 newly failed
//! with its unjudged doc already in the baseline's top k, S-4 regressed, S-5 still
//! failing (one doc id starts with `@`), S-6 unchanged.

use crate::common::{
    CompareJson, assert_close, assert_code, assert_invalid, assert_line, compare_json, eval_json,
    fixture, ragdiff_snapshot, render, run, stderr, stdout, temp_copy,
};

const RELEVANT_ONLY: &str =
    "the gold lists relevant docs only: every other doc counts as not relevant";

const SUSPECT: [&str; 6] = [
    "compare",
    "--gold",
    "gold.toml",
    "base.toml",
    "cand.toml",
    "--no-gate",
];

/// The suspect fixture's compare, gated, with `extra` arguments.
fn suspect_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args: Vec<&str> = SUSPECT[..5].to_vec();
    args.extend_from_slice(extra);
    args
}

#[test]
fn suspect_case_table() {
    let out = run(fixture("holes/suspect"), &suspect_args(&[]));
    assert_code(&out, 1);
    insta::assert_snapshot!(render(&out));
}

#[test]
fn suspect_case_markdown() {
    let out = run(
        fixture("holes/suspect"),
        &suspect_args(&["--format", "markdown"]),
    );
    assert_code(&out, 1);
    insta::assert_snapshot!(render(&out));
}

#[test]
fn suspect_case_json() {
    let r: CompareJson = compare_json(
        fixture("holes/suspect"),
        &suspect_args(&["--format", "json"]),
        1,
    );
    assert_eq!(r.suspect, ["S-1"]);
    assert!(r.notes.is_empty(), "the gold judges docs not relevant");
    let s1 = r.row("S-1");
    assert!(s1.suspect);
    assert_eq!(
        (
            s1.baseline_unjudged_at_k,
            s1.candidate_unjudged_at_k,
            s1.unjudged_entered
        ),
        (1, 2, 2)
    );
    // Newly failed but relevant-only (S-2): never suspect, so its unjudged docs are
    // not kept by id (memory) and none is counted as entered, unless the label
    // queue is exported; or no unjudged doc entered (S-3).
    assert!(!r.row("S-2").suspect && r.row("S-2").unjudged_entered == 0);
    let queue = tempfile::tempdir().expect("a temporary folder");
    let queue_path = queue.path().join("queue.csv").display().to_string();
    let with_queue = crate::common::compare_json(
        fixture("holes/suspect"),
        &suspect_args(&["--format", "json", "--export-label-queue", &queue_path]),
        1,
    );
    assert!(!with_queue.row("S-2").suspect && with_queue.row("S-2").unjudged_entered == 3);
    assert_eq!(with_queue.suspect, ["S-1"], "the queue changes no verdict");
    assert!(!r.row("S-3").suspect && r.row("S-3").unjudged_entered == 0);
    // Other statuses are never suspect, whatever entered.
    assert!(!r.row("S-4").suspect && r.row("S-4").unjudged_entered == 1);
    assert_eq!(r.row("S-6").candidate_unjudged_at_k, 0);
    // Judged@3: baseline (2+1+2+2+0+2)/3/6, candidate (1+0+2+1+1+2)/3/6.
    assert_close(r.means.judged.baseline, 9.0 / 18.0, "baseline Judged@3");
    assert_close(r.means.judged.candidate, 7.0 / 18.0, "candidate Judged@3");
    assert_close(r.means.judged.delta, -2.0 / 18.0, "delta Judged@3");
    assert_eq!(
        r.gate.reasons,
        ["3 queries newly failed (1 suspect: label first; RR@3 fell to 0): S-1, S-2, S-3"]
    );
}

#[test]
fn suspect_case_csv_counts_entered_docs() {
    let out = run(
        fixture("holes/suspect"),
        &suspect_args(&["--format", "csv"]),
    );
    assert_code(&out, 1);
    let text = stdout(&out);
    let header = text.lines().next().unwrap_or_default();
    // docs/contract.md §9.8: suspect is the fourth column.
    assert!(
        header.starts_with("id,status,failure_kind,suspect,"),
        "{header}"
    );
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[3], if cells[0] == "S-1" { "1" } else { "" }, "{line}");
    }
}

#[test]
fn suspects_warn_keeps_other_failures_failing() {
    let out = run(
        fixture("holes/suspect"),
        &suspect_args(&["--suspects", "warn"]),
    );
    assert!(
        stdout(&out).starts_with("FAIL  2 queries newly failed (RR@3 fell to 0): S-2, S-3\n"),
        "{}",
        render(&out)
    );
    ragdiff_snapshot!(&out);
}

#[test]
fn suspects_warn_passes_when_only_suspects_fail() {
    let args = suspect_args(&[
        "--suspects",
        "warn",
        "--allow-failed",
        "S-2",
        "--allow-failed",
        "S-3",
        "--format",
        "json",
    ]);
    let r = compare_json(fixture("holes/suspect"), &args, 0);
    assert!(r.gate.passed && r.gate.reasons.is_empty());
    assert_eq!(r.suspect, ["S-1"], "still listed");
    assert_eq!(r.newly_failed, ["S-1", "S-2", "S-3"]);
    assert!(r.warnings.iter().any(|w| w.contains("S-1 (1)")));
    let out = run(fixture("holes/suspect"), &args[..args.len() - 2]);
    assert_code(&out, 0);
    assert!(
        stdout(&out).starts_with(
            "PASS  1 query newly failed (1 suspect: label first; --suspects warn): S-1; this comparison cannot see a drop of MRR@3 smaller than 0.6702 (6 queries)\n"
        ),
        "{}",
        render(&out)
    );
}

#[test]
fn suspects_fail_is_the_default() {
    let out = run(
        fixture("holes/suspect"),
        &suspect_args(&[
            "--suspects",
            "fail",
            "--allow-failed",
            "S-2",
            "--allow-failed",
            "S-3",
        ]),
    );
    assert_code(&out, 1);
    let out = run(
        fixture("holes/suspect"),
        &suspect_args(&["--suspects", "maybe"]),
    );
    assert_code(&out, 2);
}

const QUEUE: &str = "\
query_id,doc_id,candidate_rank,baseline_rank,status
S-1,U-1,1,,newly_failed
S-1,U-2,2,5,newly_failed
S-2,U-6,1,,newly_failed
S-2,U-7,2,,newly_failed
S-2,U-8,3,,newly_failed
S-3,U-3,1,2,newly_failed
S-4,U-9,1,,regressed
S-5,U-11,1,2,still_failing
S-5,'@U-15,2,,still_failing
";

#[test]
fn label_queue_to_stdout() {
    let out = run(
        fixture("holes/suspect"),
        &suspect_args(&["--export-label-queue", "-"]),
    );
    assert_code(&out, 1);
    assert_eq!(stdout(&out), QUEUE);
}

#[test]
fn label_queue_to_a_file_beside_the_other_exports() {
    let dir = temp_copy(&fixture("holes/suspect"));
    let out = run(
        dir.path(),
        &suspect_args(&[
            "--export-label-queue",
            "queue.csv",
            "--export-json",
            "report.json",
        ]),
    );
    assert_code(&out, 1);
    let queue = std::fs::read_to_string(dir.path().join("queue.csv")).expect("queue written");
    assert_eq!(queue, QUEUE);
    assert!(dir.path().join("report.json").exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("a folder")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".ragdiff-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn label_queue_of_a_run_compared_with_itself_holds_still_failing_queries_only() {
    let out = run(
        fixture("holes/suspect"),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "base.toml",
            "base.toml",
            "--export-label-queue",
            "-",
        ],
    );
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        "query_id,doc_id,candidate_rank,baseline_rank,status\n\
         S-5,U-10,1,1,still_failing\n\
         S-5,U-11,2,2,still_failing\n\
         S-5,U-12,3,3,still_failing\n"
    );
}

#[test]
fn label_queue_never_overwrites_an_input() {
    let dir = temp_copy(&fixture("holes/suspect"));
    let before = std::fs::read(dir.path().join("cand.csv")).expect("the run");
    let out = run(
        dir.path(),
        &suspect_args(&["--export-label-queue", "cand.csv"]),
    );
    assert_invalid(
        &out,
        &[
            "--export-label-queue cand.csv would overwrite the input cand.csv; write the report elsewhere",
        ],
    );
    assert_eq!(
        std::fs::read(dir.path().join("cand.csv")).expect("the run"),
        before
    );
    let out = run(
        dir.path(),
        &suspect_args(&["--export-label-queue", "-", "--format", "json"]),
    );
    assert_code(&out, 2);
}

#[test]
fn relevant_only_gold_says_so_once_in_every_format() {
    // The demo gold forgets its judged non-relevant docs: relevant docs only.
    let copy = crate::common::demo_copy_without("non_relevant_doc_ids");
    let dir = copy.path();
    let out = run(dir, &["compare", "--no-gate"]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out).matches(RELEVANT_ONLY).count(), 1);
    assert_line(&stdout(&out), &format!("note: {RELEVANT_ONLY}"));
    let out = run(dir, &["compare", "--no-gate", "--format", "markdown"]);
    assert_eq!(stdout(&out).matches(RELEVANT_ONLY).count(), 1);
    assert_line(&stdout(&out), &format!("- {RELEVANT_ONLY}"));
    let r = compare_json(dir, &["compare", "--no-gate", "--format", "json"], 0);
    assert_eq!(r.notes, [RELEVANT_ONLY]);
    // Q-21 newly fails as in the demo, where D-3 entering its top 3 makes it
    // suspect; without judged non-relevant docs it is not.
    assert_eq!(r.newly_failed, ["Q-21"]);
    assert!(
        r.suspect.is_empty(),
        "a relevant-only gold is never suspect"
    );
    let demo = compare_json(
        crate::common::crate_dir(),
        &["compare", "--format", "json"],
        1,
    );
    assert_eq!(demo.suspect, ["Q-21"]);
    assert!(demo.notes.is_empty(), "{:?}", demo.notes);
    let e = eval_json(dir, &["eval", "runs/baseline.toml", "--format", "json"]);
    assert_eq!(e.notes, [RELEVANT_ONLY]);
    let out = run(dir, &["eval", "runs/baseline.toml"]);
    assert_line(&stdout(&out), &format!("note: {RELEVANT_ONLY}"));
    // The suspect fixture judges docs not relevant: no note.
    let out = run(
        fixture("holes/suspect"),
        &suspect_args(&["--format", "markdown"]),
    );
    assert!(!stdout(&out).contains(RELEVANT_ONLY));
}

#[test]
fn qrels_lines_of_every_grade_are_judged() {
    // Q-1 returns X-1 (unjudged), N-1 (grade 0), N-2 (grade -1), D-1: one unjudged
    // doc in the top 3. Q-2 returns D-2 alone: none unjudged, Judged@3 = 1/3.
    let e = eval_json(
        fixture("holes/qrels"),
        &[
            "eval",
            "--k",
            "3",
            "qrels.txt",
            "run.txt",
            "--format",
            "json",
        ],
    );
    assert_eq!(e.row("Q-1").unjudged_at_k, 1);
    assert_eq!(e.row("Q-2").unjudged_at_k, 0);
    assert_close(e.means.judged, (2.0 / 3.0 + 1.0 / 3.0) / 2.0, "Judged@3");
    assert!(
        e.notes.is_empty(),
        "grade 0 and -1 lines are judged not relevant"
    );
    let out = run(
        fixture("holes/qrels"),
        &["eval", "--k", "3", "qrels.txt", "run.txt"],
    );
    ragdiff_snapshot!(&out, @"
    success: true
    exit_code: 0
    ----- stdout -----
    gold    qrels, not frozen
            2 queries, 0 no-answer; relevant docs per query min 1, median 1, max 1
    corpus  -   filters none   depth 4   k 3
    index   -

    id        first rel   MRR@3  Recall@3   Hit@3     P@3  nDCG@3     MAP  Judged@3
    ───────────────────────────────────────────────────────────────────────────────
    Q-1               4  0.0000    0.0000  0.0000  0.0000  0.0000  0.2500    0.6667
    Q-2               1  1.0000    1.0000  1.0000  0.3333  1.0000  1.0000    0.3333
    mean (2)             0.5000    0.5000  0.5000  0.1667  0.5000  0.6250    0.5000

    ----- stderr -----
    warning: gold qrels.txt is a bare data file, so it is not frozen: give it a manifest and run `ragdiff freeze` on it
    ");
}

#[test]
fn non_relevant_column_is_read() {
    // S-1's run in the suspect fixture: D-1, N-1, X-9 (unjudged).
    let e = eval_json(
        fixture("holes/suspect"),
        &[
            "eval", "--k", "3", "gold.csv", "base.csv", "--format", "json",
        ],
    );
    assert_eq!(e.row("S-1").unjudged_at_k, 1);
    assert_eq!(e.row("S-5").unjudged_at_k, 3);
    assert_close(e.means.judged, 0.5, "Judged@3");
}

#[rstest::rstest]
#[case::both_columns(
    "both-columns",
    "gold.csv:2: query Q-1 lists doc D-1 both in expected_doc_ids and in non_relevant_doc_ids; a doc is judged one way: keep it in one column"
)]
#[case::listed_twice(
    "listed-twice",
    "gold.csv:3: query Q-2 lists non-relevant doc N-2 twice"
)]
#[case::malformed(
    "malformed",
    "gold.csv:2: invalid doc id in query Q-1: it is empty or only white space"
)]
fn bad_non_relevant_cells_are_input_errors(#[case] dir: &str, #[case] message: &str) {
    for args in [
        &["eval", "gold.csv", "run.csv"][..],
        &["validate", "--gold", "gold.csv", "run.csv"][..],
    ] {
        let out = run(fixture(&format!("holes/{dir}")), args);
        assert_code(&out, 2);
        assert_line(&stderr(&out), message);
        assert!(stdout(&out).is_empty(), "{}", render(&out));
    }
}

// ---------------------------------------------------------------------------------
// Parity: Judged@k against ir_measures (tests/fixtures/holes/make_expected.py).

/// One line of `parity/judged.*.tsv`: k, query, docs returned, judged docs in the
/// top k (counted by the script), ir_measures' Judged@k.
struct Judged {
    k: u32,
    query: String,
    returned: u32,
    judged: u32,
    ir_measures: f64,
}

fn read_judged(name: &str) -> Vec<Judged> {
    let path = fixture(&format!("holes/parity/judged.{name}.tsv"));
    let text = std::fs::read_to_string(&path).expect("the expected values");
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let [k, query, returned, judged, value] = f[..] else {
                panic!("{}: not 5 fields: {line}", path.display());
            };
            Judged {
                k: k.parse().expect("k"),
                query: query.to_string(),
                returned: returned.parse().expect("returned"),
                judged: judged.parse().expect("judged"),
                ir_measures: value.parse().expect("a value"),
            }
        })
        .collect()
}

/// ragdiff's unjudged_at_k and means.judged against ir_measures on `qrels` + `run`
/// (paths from `dir`): equal wherever a list holds at least k docs; on shorter lists
/// ir_measures divides by the list's length and ragdiff by k. Returns how many
/// per-query values were compared.
fn judged_parity(name: &str, dir: &std::path::Path, qrels: &str, run: &str) -> usize {
    let expected = read_judged(name);
    let mut compared = 0;
    for k in [1u32, 3, 5, 10, 100] {
        let k_text = k.to_string();
        let e = eval_json(
            dir,
            &["eval", qrels, run, "--format", "json", "--k", &k_text],
        );
        let lines: Vec<&Judged> = expected.iter().filter(|j| j.k == k).collect();
        let mut ours = Vec::new();
        for row in &e.per_query {
            let j = lines
                .iter()
                .find(|j| j.query == row.id)
                .unwrap_or_else(|| panic!("{name} k={k}: no ir_measures value for {}", row.id));
            let what = format!("{name} k={k} query {}", row.id);
            let in_top = j.returned.min(k);
            assert_eq!(in_top - row.unjudged_at_k, j.judged, "{what}: judged docs");
            let ir_measures_way = if j.returned == 0 {
                0.0
            } else {
                f64::from(in_top - row.unjudged_at_k) / f64::from(in_top)
            };
            assert_close(ir_measures_way, j.ir_measures, &what);
            if j.returned >= k {
                let judged_at_k = f64::from(k - row.unjudged_at_k) / f64::from(k);
                assert_close(judged_at_k, j.ir_measures, &format!("{what} (Judged@k)"));
            }
            ours.push(f64::from(in_top - row.unjudged_at_k) / f64::from(k));
            compared += 1;
        }
        let mean = ours.iter().sum::<f64>() / ours.len() as f64;
        assert_close(e.means.judged, mean, &format!("{name} k={k}: means.judged"));
    }
    compared
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn judged_at_k_matches_ir_measures_on_trec_eval_data() {
    let reference = crate::common::reference_dir();
    let dir = reference.join("trec_eval");
    let mut compared = 0;
    for (qrels, run) in [
        ("qrels.test", "results.test"),
        ("qrels.rel_level", "results.test"),
        ("qrels.test", "results.trunc"),
        ("qrels.comment.test", "results.comment.test"),
    ] {
        compared += judged_parity(&format!("{qrels}.{run}"), &dir, qrels, run);
    }
    assert!(compared > 150, "only {compared} values compared");
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn judged_at_k_matches_ir_measures_on_vaswani() {
    let reference = crate::common::reference_dir();
    let qrels = reference.join("vaswani/qrels");
    let qrels = qrels.to_str().expect("a UTF-8 path");
    let mut compared = 0;
    for run in ["a", "b"] {
        let name = format!("vaswani.run.{run}");
        compared += judged_parity(
            &name,
            &fixture("vaswani"),
            qrels,
            &format!("run.{run}.trec"),
        );
    }
    assert_eq!(compared, 2 * 5 * 93);
}

#[test]
fn github_actions_annotation_marks_the_suspect() {
    let out = crate::common::ragdiff(fixture("holes/suspect"))
        .args(suspect_args(&[]))
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("ragdiff runs");
    ragdiff_snapshot!(&out);
}

#[test]
fn one_file_layout_reads_the_non_relevant_column() {
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::write(
        dir.path().join("one.csv"),
        "id,expected_doc_ids,non_relevant_doc_ids,retrieved_doc_ids\nQ-1,D-1,N-1,N-1;X-1;D-1\n",
    )
    .expect("written");
    let out = run(
        dir.path(),
        &["eval", "--k", "3", "one.csv", "--format", "json"],
    );
    assert_code(&out, 0);
    assert!(
        !stderr(&out).contains("ignoring extra column"),
        "{}",
        render(&out)
    );
    let e: crate::common::EvalJson = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(e.row("Q-1").unjudged_at_k, 1);
    assert!(e.notes.is_empty());
}

/// Invented unjudged ids cannot make a failure suspect (docs/contract.md §6.3): a
/// doc counts only if some baseline repeat returned it for some query.
#[test]
fn invented_unjudged_ids_do_not_make_a_failure_suspect() {
    let dir = fixture("holes/invented");
    let args = suspect_args(&["--suspects", "warn"]);
    let out = run(&dir, &args);
    assert!(
        stdout(&out).starts_with("FAIL  1 query newly failed (RR@3 fell to 0): S-1\n"),
        "{}",
        render(&out)
    );
    ragdiff_snapshot!(&out);
    let mut json = suspect_args(&["--format", "json"]);
    json.push("--no-gate");
    let r = compare_json(&dir, &json, 0);
    assert_eq!(r.suspect, ["S-2", "S-4"]);
    assert_eq!(r.newly_failed, ["S-1", "S-2", "S-4"]);
    // unjudged_entered still counts every entered doc, invented or not.
    assert_eq!(r.row("S-1").unjudged_entered, 2);
    assert!(!r.row("S-1").suspect);
}
