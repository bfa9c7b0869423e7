//! Long tables (docs/contract.md §2.16): runs and golds one row per (query, doc), in
//! CSV or TSV, told from their header; every rule at file:line; JSONL runs with keys
//! close to the known shape get one problem. Parity with the other formats is in
//! inputs.rs. Fixtures: tests/fixtures/inputs/long-bad (README).

use crate::common::{
    assert_code, assert_invalid, assert_line, fixture, ragdiff_snapshot, run, stderr, stdout,
};

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
    assert_invalid(
        &out,
        &[
            "norank.csv:1: missing required column `score` (the header must contain a query column, a doc column and `score` or `rank`)",
        ],
    );
}

#[test]
fn long_gold_rules_at_their_lines() {
    let out = run(bad(), &["validate", "--gold", "gold.bad.csv"]);
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    warning: gold gold.bad.csv is a bare data file, so it is not frozen: give it a manifest and run `ragdiff freeze` on it
    error: invalid input: 2 problems
      gold.bad.csv:3: query Q-1 lists expected doc D-1 twice
      gold.bad.csv:4: query Q-2, doc D-5: the grade is not a whole number
    ");
    let out = run(bad(), &["validate", "--gold", "gold.nograde.csv"]);
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    warning: gold gold.nograde.csv is a bare data file, so it is not frozen: give it a manifest and run `ragdiff freeze` on it
    error: invalid input: 1 problem
      gold.nograde.csv:1: missing required column `relevance` (the header must contain a query column, a doc column and `relevance`, `grade` or `score`)
    ");
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

// ---------------------------------------------------------------------------------
// Long tables by the manifest's word: `format = "csv-long"`, `[columns]`, `--columns`

fn columns_dir() -> std::path::PathBuf {
    fixture("inputs/columns")
}

/// `eval --format json`'s means of `args`, run in `inputs/columns`.
fn means_of(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["eval"];
    all.extend(args);
    all.extend(["--format", "json"]);
    let out = run(columns_dir(), &all);
    assert_code(&out, 0);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    json["means"].clone()
}

#[test]
fn renamed_columns_give_the_numbers_of_the_named_long_table() {
    let expected = {
        let out = run(
            fixture("inputs/formats"),
            &["eval", "gold.qrels", "run-long.toml", "--format", "json"],
        );
        assert_code(&out, 0);
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        json["means"].clone()
    };
    assert!(expected["rr"].as_f64().is_some(), "{expected}");
    // `[columns]` in the manifest; `format = "csv-long"` of a .txt file; `--columns`
    // for a bare file; and a long gold with its columns named.
    assert_eq!(means_of(&["gold.qrels", "run-columns.toml"]), expected);
    assert_eq!(means_of(&["gold.qrels", "run-csv-long.toml"]), expected);
    assert_eq!(
        means_of(&[
            "gold.qrels",
            "run.renamed.csv",
            "--columns",
            "query=q,doc=passage,rank=pos,score=sim",
        ]),
        expected
    );
    assert_eq!(means_of(&["gold-columns.toml", "run-columns.toml"]), {
        let out = run(
            fixture("inputs/formats"),
            &["eval", "gold.long.csv", "run-long.toml", "--format", "json"],
        );
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        json["means"].clone()
    });
    // Without the word, the renamed file is a wide CSV missing its columns.
    let out = run(columns_dir(), &["eval", "gold.qrels", "run.renamed.csv"]);
    assert_code(&out, 2);
}

#[test]
fn a_named_column_the_header_lacks_is_a_problem_at_line_1() {
    let out = run(
        columns_dir(),
        &["eval", "gold.qrels", "run-missing-column.toml"],
    );
    assert_invalid(
        &out,
        &[
            "run.renamed.csv:1: the manifest names column `document` for `doc` (`columns.doc`), and the header has no such column",
        ],
    );
}

#[test]
fn csv_long_of_a_wide_table_is_a_problem_at_line_1() {
    let out = run(columns_dir(), &["eval", "gold.qrels", "run-not-long.toml"]);
    assert_invalid(
        &out,
        &[
            "run.wide.csv:1: the manifest says this is a long table (format = \"csv-long\" or `columns`), and its header has no query column and doc column: name them with `columns.query` and `columns.doc`",
        ],
    );
}

#[test]
fn columns_keys_and_values_are_checked() {
    let out = run(
        columns_dir(),
        &["eval", "gold.qrels", "run-bad-columns.toml"],
    );
    assert_invalid(
        &out,
        &[
            "run-bad-columns.toml:7: `columns.query` must be a column name (a non-empty string)",
            "run-bad-columns.toml:8: unknown key `columns.passage`; known keys: query, doc, rank, score, grade",
        ],
    );
}

#[test]
fn a_malformed_columns_flag_is_a_usage_error() {
    for bad in [
        "query",
        "query=",
        "grade=label",
        "query=a,query=b",
        "text=q",
    ] {
        let out = run(
            columns_dir(),
            &["eval", "gold.qrels", "run.renamed.csv", "--columns", bad],
        );
        assert_code(&out, 2);
        assert_line(
            &stderr(&out),
            &format!(
                "--columns {bad}: expected KEY=NAME pairs separated by commas, KEY one of query, doc, rank, score (each once), NAME a column of the header"
            ),
        );
    }
}

/// Found by trying it as an attacker: a 70 KB column name in `[columns]` was echoed
/// whole into the error (70,151 bytes of stderr), and a header ending in a bare CR
/// read as one long line, so the named column seemed missing.
#[test]
fn a_long_column_name_is_cut_and_a_bare_cr_is_named() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for f in ["gold.qrels", "run.renamed.csv"] {
        std::fs::copy(columns_dir().join(f), dir.path().join(f)).expect("copied");
    }
    let name = "x".repeat(70_000);
    std::fs::write(
        dir.path().join("run.toml"),
        format!("index_version = \"1\"\ncorpus = \"c\"\ndepth = 3\nresults = \"run.renamed.csv\"\n\n[columns]\nquery = \"q\"\ndoc = \"{name}\"\n"),
    )
    .expect("written");
    let out = run(dir.path(), &["eval", "gold.qrels", "run.toml"]);
    let err = stderr(&out);
    assert!(err.len() < 1_000, "{} bytes of stderr", err.len());
    assert_invalid(
        &out,
        &[
            "run.renamed.csv:1: the manifest names column `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…` for `doc` (`columns.doc`), and the header has no such column",
        ],
    );
    std::fs::write(
        dir.path().join("cr.csv"),
        "q,passage,pos,sim\rQ-1,D-1,1,1\r",
    )
    .expect("written");
    let out = run(
        dir.path(),
        &[
            "eval",
            "gold.qrels",
            "cr.csv",
            "--columns",
            "query=q,doc=passage,rank=pos,score=sim",
        ],
    );
    assert_invalid(
        &out,
        &["cr.csv:1: lines end in CR only; save the file with LF or CRLF line ends"],
    );
}
