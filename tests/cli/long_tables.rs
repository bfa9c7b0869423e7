//! Long tables (docs/contract.md §2.16): runs and golds one row per (query, doc), in
//! CSV or TSV, told from their header; every rule at file:line; JSONL runs with keys
//! close to the known shape get one problem. Parity with the other formats is in
//! inputs.rs. Fixtures: tests/fixtures/inputs/long-bad (README).

use crate::common::{assert_code, assert_line, fixture, run, stderr, stdout};

fn bad() -> std::path::PathBuf {
    fixture("inputs/long-bad")
}

#[test]
fn long_run_rules_at_their_lines() {
    let out = run(bad(), &["validate", "--gold", "gold.qrels", "run.toml"]);
    assert_code(&out, 2);
    let err = stderr(&out);
    for line in [
        "run.csv:2: query Q-1, doc D-1: score is not a number; scores must be finite numbers",
        "run.csv:4: query Q-1 lists doc D-2 twice: a duplicate takes the place of another result",
        "run.csv:8: query Q-2 returned 4 docs, more than the run's depth 3; a list may be shorter than depth, never longer: fix the export or the manifest's depth",
        "run.csv:9: invalid query id: it is empty or only white space",
        "run.csv:10: query Q-10, doc D-3: the rank column is not a whole number",
        "run.csv:11: query Q-10, doc D-9: score is NaN; scores must be finite numbers",
    ] {
        assert_line(&err, line);
    }
    let out = run(bad(), &["eval", "gold.qrels", "norank.csv"]);
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "norank.csv:1: missing required column `score` (the header must contain a query column, a doc column and `score` or `rank`)",
    );
}

#[test]
fn long_gold_rules_at_their_lines() {
    let out = run(bad(), &["validate", "--gold", "gold.bad.csv"]);
    assert_code(&out, 2);
    let err = stderr(&out);
    assert_line(
        &err,
        "gold.bad.csv:3: query Q-1 lists expected doc D-1 twice",
    );
    assert_line(
        &err,
        "gold.bad.csv:4: query Q-2, doc D-5: the grade is not a whole number",
    );
    let out = run(bad(), &["validate", "--gold", "gold.nograde.csv"]);
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "gold.nograde.csv:1: missing required column `relevance` (the header must contain a query column, a doc column and `relevance`, `grade` or `score`)",
    );
}

/// PyTerrier's `query` column holds the question text: never read, never printed.
#[test]
fn pyterrier_query_text_is_never_printed() {
    let dir = fixture("inputs/formats");
    for format in ["table", "json"] {
        let out = run(
            &dir,
            &[
                "eval",
                "gold.qrels",
                "run-pyterrier.toml",
                "--format",
                format,
            ],
        );
        assert_code(&out, 0);
        for text in [stdout(&out), stderr(&out)] {
            assert!(!text.contains("secret"), "{text}");
        }
    }
}

/// A JSONL run keyed `qid` or `docs` gets one problem naming the expected key, not
/// one "missing from the run" per gold query.
#[test]
fn near_miss_jsonl_keys_get_one_problem() {
    for (file, found, expected) in [
        ("qid.jsonl", "qid", "id"),
        ("docs.jsonl", "docs", "retrieved_doc_ids"),
    ] {
        let out = run(bad(), &["eval", "gold.qrels", file]);
        assert_code(&out, 2);
        let err = stderr(&out);
        assert!(err.contains("error: invalid input: 1 problem"), "{err}");
        assert!(
            err.contains(&format!(
                "{file}:1: the first line has key `{found}` where a JSONL run has `{expected}`: rename it"
            )),
            "{err}"
        );
        assert!(!err.contains("missing from the run"), "{err}");
    }
}
