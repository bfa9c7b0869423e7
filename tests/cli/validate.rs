//! `ragdiff validate`: one fixture per rule of docs/contract.md §3 under
//! tests/fixtures/invalid/<rule>/ (see its README), each expecting exit 2 and the
//! rule's message with file:line, query id and doc id; plus the demo, the seeds'
//! deliberately broken fixture, and several problems listed in one run.

use rstest::rstest;

use crate::common::{
    Case, assert_code, assert_invalid, assert_line, crate_dir, fixture, ragdiff_snapshot, render,
    run, stderr, stdout,
};

const VALIDATE: &[&str] = &["validate", "--gold", "gold.toml", "run.toml"];
const EVAL: &[&str] = &["eval", "--gold", "gold.toml", "run.toml"];

/// Run `args` in tests/fixtures/invalid/<rule>, expect exit 2, nothing on stdout and
/// every one of `lines` on stderr; returns stderr.
#[track_caller]
fn expect_invalid(rule: &str, args: &[&str], lines: &[&str]) -> String {
    let out = run(fixture(&format!("invalid/{rule}")), args);
    assert_code(&out, 2);
    assert!(stdout(&out).is_empty(), "stdout:\n{}", render(&out));
    let err = stderr(&out);
    for line in lines {
        assert_line(&err, line);
    }
    err
}

#[rstest]
#[case::duplicate_query_gold("duplicate-query-gold", &[
    "gold.csv:4: query Q-1 appears more than once (first at line 2); each query id must be unique",
])]
#[case::duplicate_query_run_csv("duplicate-query-run-csv", &[
    "run.csv:4: query Q-1 appears more than once (first at line 2); each query id must be unique",
])]
#[case::duplicate_doc_ranking_csv("duplicate-doc-ranking-csv", &[
    "run.csv:3: query Q-2 lists doc D-3 twice: a duplicate takes the place of another result",
])]
// a TREC ranking's problems point at the offending line (the duplicate's)
#[case::duplicate_doc_ranking_trec("duplicate-doc-ranking-trec", &[
    "run.trec:5: query Q-2 lists doc D-3 twice: a duplicate takes the place of another result",
])]
#[case::duplicate_doc_gold_csv("duplicate-doc-gold-csv", &[
    "gold.csv:3: query Q-2 lists expected doc D-2 twice",
])]
#[case::duplicate_doc_qrels("duplicate-doc-qrels", &[
    "qrels.txt:4: query Q-2 lists expected doc D-2 twice",
])]
#[case::ranking_longer_than_depth("ranking-longer-than-depth", &[
    "run.csv:2: query Q-1 returned 4 docs, more than the run's depth 3; a list may be shorter than depth, never longer: fix the export or the manifest's depth",
])]
#[case::csv_run_gold_query_missing("csv-run-gold-query-missing", &[
    "run.csv: gold query Q-2 is missing from the run; add a row for it (an empty cell when nothing was retrieved)",
])]
#[case::k_above_depth("k-above-depth", &[
    "run.toml: k = 5 is larger than the run's depth 3; k must lie in 1..=depth",
])]
#[case::k_zero("k-zero", &["gold.toml:6: k must be at least 1"])]
#[case::min_grade_negative("min-grade-negative", &[
    "gold.toml:6: min_grade = -1 is below 0; min_grade is the lowest grade that counts as relevant, a whole number >= 0 (min_grade = 0 counts every doc judged 0 or above)",
])]
#[case::depth_zero("depth-zero", &["run.toml:3: depth must be at least 1"])]
#[case::invalid_semver("invalid-semver", &[
    "gold.toml:3: version = \"1.0\" is not a semantic version (like \"1.2.0\")",
    "run.toml:1: index_version contains a control character (a newline, tab or similar)",
])]
#[case::missing_key("missing-key", &[
    "gold.toml: missing key `corpus`",
    "run.toml: missing key `depth`",
])]
#[case::unknown_key("unknown-key", &[
    "gold.toml:6: unknown key `cutoff`; known keys: name, version, frozen_at, corpus, data, format, k, min_grade, sha256, frozen_version, tags, tags_sha256, frozen_k, frozen_min_grade, frozen_tags, queries, queries_sha256, columns",
    "run.toml:5: unknown key `top_k`; known keys: index_version, corpus, depth, results, format, doc_map, approximate, filters, errored, latency, record, meta, columns",
])]
#[case::mistyped_key("mistyped-key", &["run.toml:3: `depth` must be a whole number"])]
#[case::data_path_missing("data-path-missing", &["gold.toml:5: gold data labels.csv does not exist"])]
#[case::data_path_directory("data-path-directory", &[
    "run.toml:4: run results run.csv is a directory, not a file",
])]
#[case::malformed_csv("malformed-csv", &[
    "run.csv:3: malformed CSV: the row has 3 cells, the header has 2",
])]
#[case::malformed_trec("malformed-trec", &[
    "run.trec:3: malformed TREC run line: expected 6 fields `qid Q0 docid rank score tag`, found 4 fields",
])]
#[case::bad_score("bad-score", &[
    "run.trec:1: query Q-1, doc D-1: score is not a number; scores must be finite numbers",
    "run.trec:2: query Q-1, doc D-9: score is NaN; scores must be finite numbers",
    "run.trec:3: query Q-2, doc D-3: score is infinite; scores must be finite numbers",
])]
#[case::non_integer_grade("non-integer-grade", &[
    "qrels.txt:2: query Q-2, doc D-2: the grade is not a whole number",
])]
#[case::invalid_id("invalid-id", &[
    "gold.csv:2: invalid query id: it is empty or only white space",
    // the quoted cell "Q-\n2" starts on line 3
    "gold.csv:3: invalid query id: it contains a control character (a newline, tab or similar)",
])]
#[case::gold_changed("gold-changed", &[
    // 12-character prefixes only (the data may be any file)
    "gold.toml: gold changed since it was frozen: sha256 is dea9a3c85eaf…, the manifest records 000000000000…; restore the data or raise `version` and run `ragdiff freeze`",
])]
fn rule(#[case] folder: &str, #[case] lines: &[&str]) {
    expect_invalid(folder, VALIDATE, lines);
    // eval checks the same inputs and refuses them with the same messages
    expect_invalid(folder, EVAL, lines);
}

/// Non-UTF-8 bytes in a CSV run (a doc id) and a TREC run; the fixture files hold the
/// raw bytes.
#[test]
fn non_utf8() {
    let dir = fixture("invalid/non-utf8");
    for file in ["run.csv", "run.trec"] {
        let bytes = std::fs::read(dir.join(file)).expect("fixture");
        assert!(
            std::str::from_utf8(&bytes).is_err(),
            "{file} must hold non-UTF-8 bytes"
        );
    }
    expect_invalid(
        "non-utf8",
        &[
            "validate",
            "--gold",
            "gold.toml",
            "run.toml",
            "run-trec.toml",
        ],
        &[
            "run.csv:3: the line is not valid UTF-8; save the file as UTF-8",
            "run.trec:2: the line is not valid UTF-8; save the file as UTF-8",
        ],
    );
}

/// docs/contract.md §12.14: non-UTF-8 bytes in a column ragdiff ignores (the question) are a
/// warning, not fatal (this was an input problem before); ids must still be UTF-8
/// (`non_utf8` above).
#[test]
fn non_utf8_in_the_question_column() {
    let bytes = std::fs::read(fixture("invalid/non-utf8-question/gold.csv")).expect("fixture");
    assert!(std::str::from_utf8(&bytes).is_err());
    let out = run(fixture("invalid/non-utf8-question"), VALIDATE);
    assert_code(&out, 0);
    assert_line(
        &stderr(&out),
        "warning: gold.csv: 1 row has bytes that are not UTF-8 in columns ragdiff ignores; the rows are read, but save the file as UTF-8",
    );
}

/// A row that is present but broken is reported once, not also as "missing from the
/// run; add a row for it", which would send the user to add a row that exists.
/// (Found by this test.)
#[test]
fn a_broken_row_is_not_also_reported_missing() {
    let out = run(
        fixture("invalid/non-utf8"),
        &[
            "validate",
            "--gold",
            "gold.toml",
            "run.toml",
            "run-trec.toml",
        ],
    );
    // Q-2 has a row (line 3) in run.csv: no "gold query Q-2 is missing from the run".
    ragdiff_snapshot!(out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    warning: gold gold.toml is not frozen: run `ragdiff freeze gold.toml` so its labels cannot change unseen
    error: invalid input: 2 problems
      run.csv:3: the line is not valid UTF-8; save the file as UTF-8
      run.trec:2: the line is not valid UTF-8; save the file as UTF-8
    ");
}

/// A doc listed three times is one problem, not the same message twice.
/// (Found by this test.)
#[test]
fn a_doc_listed_three_times_is_one_problem() {
    let case = Case::fixture("invalid/duplicate-doc-ranking-csv").file(
        "run.csv",
        "id,retrieved_doc_ids\nQ-1,D-1;D-9\nQ-2,D-3;D-3;D-3\n",
    );
    ragdiff_snapshot!(case.ragdiff(VALIDATE), @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    warning: gold gold.toml is not frozen: run `ragdiff freeze gold.toml` so its labels cannot change unseen
    error: invalid input: 1 problem
      run.csv:3: query Q-2 lists doc D-3 twice: a duplicate takes the place of another result
    ");
}

/// A CSV run may hold queries the gold does not have (docs/contract.md §6.5): counted
/// in a warning, as in a TREC run; before, an input error.
#[test]
fn csv_run_query_not_in_gold_is_only_a_warning() {
    for args in [VALIDATE, EVAL] {
        let out = run(fixture("invalid/csv-run-query-not-in-gold"), args);
        assert_code(&out, 0);
        assert_line(
            &stderr(&out),
            "warning: run.csv: 1 run query is not in the gold set: left out of the metrics, as trec_eval does; compare counts them in drift: Q-99",
        );
    }
}

/// In a TREC run, queries the gold does not have are ignored and counted in a
/// warning, as trec_eval does: not an error.
#[test]
fn trec_run_query_not_in_gold_is_only_a_warning() {
    let out = run(fixture("invalid/trec-run-query-not-in-gold"), VALIDATE);
    assert_code(&out, 0);
    assert_line(
        &stderr(&out),
        "warning: run.trec: 2 run queries are not in the gold set: left out of the metrics, as trec_eval does; compare counts them in drift: Q-98, Q-99",
    );
    assert_eq!(stdout(&out), "ok: gold.toml and 1 run are valid\n");

    let out = run(fixture("invalid/trec-run-query-not-in-gold"), EVAL);
    assert_code(&out, 0);
    assert_line(
        &stderr(&out),
        "warning: run.trec: 2 run queries are not in the gold set: left out of the metrics, as trec_eval does; compare counts them in drift: Q-98, Q-99",
    );
}

/// A gold without sha256 is accepted with a warning, and refused under
/// `--require-frozen` (as CI uses it).
#[test]
fn unfrozen_gold() {
    let dir = fixture("invalid/unfrozen");
    let out = run(&dir, VALIDATE);
    assert_code(&out, 0);
    assert_line(
        &stderr(&out),
        "warning: gold gold.toml is not frozen: run `ragdiff freeze gold.toml` so its labels cannot change unseen",
    );
    ragdiff_snapshot!(run(&dir, EVAL));

    for args in [VALIDATE, EVAL] {
        let mut args = args.to_vec();
        args.push("--require-frozen");
        expect_invalid(
            "unfrozen",
            &args,
            &[
                "gold.toml: the gold set is not frozen and --require-frozen is set; run `ragdiff freeze gold.toml` and commit the manifest",
            ],
        );
    }
}

/// The demo passes, with defaults found from the working directory.
#[test]
fn demo_is_valid() {
    let out = run(crate_dir(), &["validate"]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), "ok: gold/demo.toml and 2 runs are valid\n");
    // every repeat is read; the only warnings are its unlabelled queries (drift only)
    let expected: String = [
        ("baseline", "1 other repeat"),
        ("candidate", "2 other repeats"),
    ]
    .iter()
    .map(|(f, others)| {
        format!(
            "warning: runs/{f}.csv: 3 run queries are not in the gold set: left out of the \
                 metrics, as trec_eval does; compare counts them in drift: U-1, U-2, U-3 (the \
                 same in {others})\n"
        )
    })
    .collect();
    assert_eq!(stderr(&out), expected, "{}", render(&out));

    let out = run(crate_dir(), &["validate", "--require-frozen"]);
    assert_code(&out, 0);
}

/// The seeds' advice: break one element of the fixture on purpose and make sure the
/// check catches it (tests/fixtures/broken: Q-21 returns D-9 twice).
#[test]
fn deliberately_broken_fixture_is_caught() {
    let out = run(fixture("broken"), &["validate"]);
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "runs/baseline.csv:4: query Q-21 lists doc D-9 twice: a duplicate takes the place of another result",
    );
    insta::assert_snapshot!(render(&out));

    // eval refuses it too
    assert_invalid(
        run(fixture("broken"), &["eval", "runs/baseline.toml"]),
        &[
            "runs/baseline.csv:4: query Q-21 lists doc D-9 twice: a duplicate takes the place of another result",
        ],
    );
    // the unbroken candidate of the same copy is fine
    let out = run(fixture("broken"), &["validate", "runs/candidate.toml"]);
    assert_code(&out, 0);
}

/// Every problem in every file is listed in one run, not only the first.
#[test]
fn several_problems_in_several_files_are_all_listed() {
    let out = run(
        fixture("invalid/many-problems"),
        &[
            "validate",
            "--gold",
            "gold.toml",
            "run-a.toml",
            "run-b.toml",
            "run-c.toml",
        ],
    );
    insta::assert_snapshot!(render(&out));
}

/// Problems in the runs are listed even when the gold data has problems of its own.
/// (Found by this test: today the runs are not read once the gold data is invalid.)
#[test]
fn run_problems_are_listed_when_the_gold_data_is_broken_too() {
    expect_invalid(
        "broken-gold-and-run",
        VALIDATE,
        &[
            "gold.csv:4: query Q-1 appears more than once (first at line 2); each query id must be unique",
            "run.csv:3: query Q-2 lists doc D-3 twice: a duplicate takes the place of another result",
        ],
    );
}

/// A run of another corpus answered other questions: validate warns, eval refuses
/// (exit 3), as compare would.
#[test]
fn run_of_another_corpus() {
    let case = Case::fixture("invalid/unfrozen").key("run.toml", "corpus", "\"other\"");
    ragdiff_snapshot!(case.ragdiff(VALIDATE), @"
    success: true
    exit_code: 0
    ----- stdout -----
    ok: gold.toml and 1 run are valid

    ----- stderr -----
    warning: gold gold.toml is not frozen: run `ragdiff freeze gold.toml` so its labels cannot change unseen
    warning: run.toml: corpus other differs from the gold's tiny; compare would refuse it
    ");
    ragdiff_snapshot!(case.ragdiff(EVAL), @"
    success: false
    exit_code: 3
    ----- stdout -----

    ----- stderr -----
    error: refusing to evaluate: the run does not answer the gold's questions
      corpus:  gold tiny, run other (the run answered other questions)
    ");
}
