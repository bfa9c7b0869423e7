//! Findings of the review of the first complete version, each pinned: exports never
//! overwrite inputs or each other, a closed pipe keeps the gate's exit code, nothing
//! to evaluate is an error, Markdown stays under its limit with huge ids, freeze
//!
//! Then the findings of the second review (real BM25 runs over Vaswani and hostile inputs),
//! each pinned by a test that failed before its fix.

use std::process::{Command, Stdio};

use crate::common::*;

#[test]
fn an_export_onto_an_input_is_refused_and_the_input_kept() {
    let dir = demo_copy();
    let before = std::fs::read(dir.path().join("runs/baseline.csv")).expect("read");
    let out = run(
        dir.path(),
        &["compare", "--export-csv", "runs/baseline.csv"],
    );
    assert_invalid(
        &out,
        &[
            "--export-csv runs/baseline.csv would overwrite the input runs/baseline.csv; write the report elsewhere",
        ],
    );
    assert_eq!(
        std::fs::read(dir.path().join("runs/baseline.csv")).expect("read"),
        before
    );
    let out = run(
        dir.path(),
        &["compare", "--export-markdown", "gold/../gold/demo.toml"],
    );
    assert_invalid(
        &out,
        &[
            "--export-markdown gold/../gold/demo.toml would overwrite the input gold/demo.toml; write the report elsewhere",
        ],
    );
}

#[test]
fn two_exports_to_one_file_are_refused() {
    let dir = demo_copy();
    let out = run(
        dir.path(),
        &[
            "compare",
            "--export-csv",
            "out.x",
            "--export-json",
            "./out.x",
        ],
    );
    assert_invalid(
        &out,
        &["--export-json and --export-csv both write out.x; give each its own file"],
    );
    assert!(!dir.path().join("out.x").exists());
}

#[test]
fn a_closed_pipe_keeps_the_gates_exit_code() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let queries: Vec<(String, Change)> = (0..20_000)
        .map(|i| (format!("q{i:05}"), Change::NewlyFailed))
        .collect();
    write_generated(dir.path(), &queries);
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("ragdiff"))
        .args(GENERATED)
        .args(["--format", "json"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ragdiff starts");
    // Read one byte, then close the pipe, as `| head -c 1` would.
    let mut stdout = child.stdout.take().expect("a pipe");
    let mut byte = [0u8; 1];
    std::io::Read::read_exact(&mut stdout, &mut byte).expect("some output");
    drop(stdout);
    let status = child.wait().expect("ragdiff ends");
    assert_eq!(
        status.code(),
        Some(1),
        "the gate failed, whatever the pipe did"
    );
}

#[test]
fn a_gold_without_any_relevant_doc_is_an_input_error() {
    let dir = demo_copy();
    let manifest = std::fs::read_to_string(dir.path().join("gold/demo.toml")).expect("read");
    // Every CSV grade is 1: with min_grade 2 nothing is relevant.
    std::fs::write(
        dir.path().join("gold/demo.toml"),
        manifest.replace("k = 3 ", "k = 3\nmin_grade = 2 "),
    )
    .expect("written");
    for cmd in [&["compare"][..], &["eval", "runs/baseline.toml"]] {
        let out = run(dir.path(), cmd);
        assert_code(&out, 2);
        assert_line(
            &stderr(&out),
            "gold/demo.csv: no query has a relevant doc (grade >= min_grade 2), so there is nothing to evaluate; check min_grade and the labels",
        );
    }
}

#[test]
fn markdown_stays_under_the_limit_with_huge_ids() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let queries: Vec<(String, Change)> = (0..300)
        .map(|i| (format!("{i:03}{}", "x".repeat(10_000)), Change::NewlyFailed))
        .collect();
    write_generated(dir.path(), &queries);
    let mut args = GENERATED.to_vec();
    args.extend(["--format", "markdown"]);
    let out = run(dir.path(), &args);
    assert_code(&out, 1);
    let md = stdout(&out);
    assert!(md.len() <= 60_000, "{} bytes", md.len());
    assert!(md.starts_with("## ragdiff: ❌ FAIL"));
    assert!(md.contains("the JSON and CSV reports hold"));
}

#[test]
fn many_allow_listed_ids_that_did_not_fail_make_one_warning() {
    let dir = demo_copy();
    let ids: Vec<String> = ["Q-17", "Q-18", "Q-22", "Q-23", "Q-24", "Q-25"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut args = vec!["compare".to_string()];
    for id in &ids {
        args.push("--allow-failed".into());
        args.push(id.clone());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(dir.path(), &args);
    let err = stderr(&out);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("did not newly fail"))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning: 6 allow-listed queries did not newly fail; remove them from the allow-list: Q-17, Q-18, Q-22, Q-23, Q-24, Q-25"
        ]
    );
}

#[test]
fn markdown_ids_cannot_link_or_mention() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let queries: Vec<(String, Change)> = ["https://evil.example/x", "www.evil.com", "@octocat"]
        .iter()
        .map(|id| (id.to_string(), Change::NewlyFailed))
        .collect();
    write_generated(dir.path(), &queries);
    let mut args = GENERATED.to_vec();
    args.extend(["--format", "markdown"]);
    let md = stdout(&run(dir.path(), &args));
    // In code spans, GitHub neither links nor mentions.
    for id in ["`https://evil.example/x`", "`www.evil.com`", "`@octocat`"] {
        assert!(md.contains(id), "{id} not in a code span:\n{md}");
    }
}

#[test]
fn freeze_records_a_raised_version_when_the_data_did_not_change() {
    let dir = demo_copy();
    let path = dir.path().join("gold/demo.toml");
    let manifest = std::fs::read_to_string(&path).expect("read");
    let raised = manifest.replacen("version = \"1.1.0\"\n", "version = \"1.2.0\"\n", 1);
    assert_ne!(raised, manifest, "the demo gold is at 1.1.0");
    std::fs::write(&path, raised).expect("written");
    let out = run(dir.path(), &["freeze", "gold/demo.toml"]);
    assert_code(&out, 0);
    let after = std::fs::read_to_string(&path).expect("read");
    assert!(after.contains("frozen_version = \"1.2.0\""), "{after}");
}

#[test]
fn a_version_below_frozen_version_is_an_input_error() {
    let dir = demo_copy();
    let path = dir.path().join("gold/demo.toml");
    let manifest = std::fs::read_to_string(&path).expect("read");
    let lowered = manifest.replacen("version = \"1.1.0\"\n", "version = \"1.0.0\"\n", 1);
    assert_ne!(lowered, manifest, "the demo gold is at 1.1.0");
    std::fs::write(&path, lowered).expect("written");
    let out = run(dir.path(), &["compare"]);
    assert_invalid(
        &out,
        &[
            "gold/demo.toml:5: version 1.0.0 is lower than frozen_version 1.1.0; a gold set's version only goes up",
        ],
    );
}

#[test]
fn eval_lets_input_problems_win_over_a_refusal() {
    let dir = demo_copy();
    let manifest = std::fs::read_to_string(dir.path().join("runs/baseline.toml")).expect("read");
    std::fs::write(
        dir.path().join("runs/baseline.toml"),
        manifest.replace("corpus = \"demo-questions\"", "corpus = \"other\""),
    )
    .expect("written");
    std::fs::write(
        dir.path().join("runs/baseline.csv"),
        "id,retrieved_doc_ids\nQ-17,D-2;D-2\n",
    )
    .expect("written");
    let out = run(dir.path(), &["eval", "runs/baseline.toml"]);
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    note: refusing to evaluate: the run does not answer the gold's questions
      corpus:  gold demo-questions, run other (the run answered other questions)
    error: invalid input: 1 problem
      runs/baseline.csv:2: query Q-17 lists doc D-2 twice: a duplicate takes the place of another result
    ");
}

#[test]
fn a_duplicate_query_in_an_incomparable_run_is_still_an_input_error() {
    let dir = demo_copy();
    let manifest = std::fs::read_to_string(dir.path().join("runs/candidate.toml")).expect("read");
    std::fs::write(
        dir.path().join("runs/candidate.toml"),
        manifest.replace("corpus = \"demo-questions\"", "corpus = \"other\""),
    )
    .expect("written");
    std::fs::write(
        dir.path().join("runs/candidate.csv"),
        "id,retrieved_doc_ids\nQ-17,D-2\nQ-17,D-3\n",
    )
    .expect("written");
    let out = run(dir.path(), &["compare"]);
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    note: refusing to compare: the runs are not comparable
      corpus:  baseline demo-questions, candidate other
      corpus:  gold demo-questions, candidate other (the run answered other questions)
    error: invalid input: 1 problem
      runs/candidate.csv:3: query Q-17 appears more than once (first at line 2); each query id must be unique
    ");
}

// ---------------------------------------------------------------------------------
// The second review

/// A gold of queries 1..=24 (doc A relevant) and a TREC run written in reverse query
/// order: 12..=1 with tied scores in rank order B, C (trec_eval puts C first), 24..=13
/// with a lower score above a higher one, then x1..=x12, which the gold lacks.
fn unordered_findings() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let qrels: String = (1..=24).map(|q| format!("{q} 0 A 1\n")).collect();
    let mut trec = String::new();
    for q in (1..=12).rev() {
        trec.push_str(&format!(
            "{q} Q0 A 1 2.0 t\n{q} Q0 B 2 1.0 t\n{q} Q0 C 3 1.0 t\n"
        ));
    }
    for q in (13..=24).rev() {
        trec.push_str(&format!("{q} Q0 A 1 1.0 t\n{q} Q0 B 2 2.0 t\n"));
    }
    for q in 1..=12 {
        trec.push_str(&format!("x{q} Q0 A 1 1.0 t\n"));
    }
    std::fs::write(dir.path().join("qrels"), qrels).expect("written");
    std::fs::write(dir.path().join("run.trec"), trec).expect("written");
    dir
}

/// docs/contract.md §5.2: the ids named in run warnings (and the tie-order note) are
/// listed in natural order, and the ten shown are the first ten in that order. The
/// Vaswani runs showed `10, 13, 19, 2, 22, …` (byte order of the first ten met).
#[test]
fn run_warnings_and_the_tie_note_list_ids_in_natural_order() {
    let dir = unordered_findings();
    let out = run(dir.path(), &["eval", "qrels", "run.trec", "--k", "3"]);
    ragdiff_snapshot!(&out);
}

/// An export into a folder that does not exist is refused before anything is read,
/// naming the flag and the folder (not a temporary file's name at the end of a run).
#[test]
fn an_export_into_a_missing_folder_is_refused_up_front() {
    let out = crate::common::run(
        crate::common::crate_dir(),
        &["compare", "--export-json", "no-such-folder/report.json"],
    );
    crate::common::assert_code(&out, 2);
    let err = crate::common::stderr(&out);
    assert_invalid(
        &out,
        &[
            "--export-json no-such-folder/report.json: the folder no-such-folder does not exist; ragdiff creates no folders",
        ],
    );
    assert!(!err.contains(".ragdiff-"), "{err}");
    assert!(
        !crate::common::stdout(&out).contains("FAIL"),
        "nothing was compared"
    );
}

/// Two runs of one index version (pooled repeats, §6.5): a query that only scored
/// otherwise was listed as `Q-17 ()` in the table and "`Q-17` flaky: " in Markdown,
/// an empty reason (found running the gate on two HNSW runs given one version).
#[test]
fn a_pooled_flaky_query_without_a_zero_rr_repeat_shows_no_empty_reason() {
    let dir = crate::common::demo_copy();
    let manifest = dir.path().join("runs/candidate.toml");
    let text = std::fs::read_to_string(&manifest).expect("the candidate");
    std::fs::write(
        &manifest,
        text.replace("index_version = \"2.4.0\"", "index_version = \"2.3.0\""),
    )
    .expect("written");
    let out = crate::common::run(dir.path(), &["compare"]);
    crate::common::assert_code(&out, 1);
    let table = crate::common::stdout(&out);
    crate::common::assert_line(
        &table,
        "flaky             Q-17, Q-18 (0 in 1 of 3 candidate repeats), Q-21, Q-22, Q-23, Q-24",
    );
    let out = crate::common::run(dir.path(), &["compare", "--format", "markdown"]);
    let md = crate::common::stdout(&out);
    ragdiff_snapshot!(&out);
    assert!(
        !md.contains("flaky: ;") && !table.contains("()"),
        "{md}\n{table}"
    );
}
