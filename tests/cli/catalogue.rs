//! The catalogue of inputs: one fixture each under tests/fixtures/catalogue/<case>/
//! (see its README), or the tests/fixtures/invalid/<rule>/ folder that already covers
//! the case, with the outcome docs/contract.md §2 and §3 give it. Rejected inputs exit 2 with
//! file:line and what to do; accepted ones exit 0 with the warning the contract gives, and the
//! numbers `eval --format json` prints prove the input was read as intended.
//!
//! Three cases are made in a temporary folder rather than committed: the 10 MB line,
//! the symlink loop and the absolute data paths.

use std::path::{Path, PathBuf};

use rstest::rstest;

use crate::common::{
    EvalJson, assert_close, assert_code, assert_line, fixture, render, run, stderr, stdout,
    temp_copy,
};

/// How a case's folder is prepared before the command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Setup {
    /// Run in the committed fixture folder itself.
    InPlace,
    /// Copy the folder and write `run.csv` with one ranking of about 10 MB.
    TenMbLine,
    /// Copy the folder and make `loop.csv` a symbolic link to itself.
    SymlinkLoop,
    /// Write `gold.toml` and `run.toml` into a temporary folder, naming the fixture's
    /// data files by absolute path.
    AbsolutePaths,
}

/// Expected per-query numbers of an accepted case: id, first relevant rank, RR@k,
/// Recall@k, nDCG@k.
type Row = (&'static str, Option<u32>, f64, f64, f64);

/// Docs in the 10 MB ranking (11 bytes each with its `;`).
const HUGE_RANKING: usize = 1_000_000;

const VALIDATE: &[&str] = &["validate", "--gold", "gold.toml", "run.toml"];
const EVAL_JSON: &[&str] = &[
    "eval",
    "--gold",
    "gold.toml",
    "run.toml",
    "--format",
    "json",
];
const EVAL_TREC_JSON: &[&str] = &[
    "eval",
    "--gold",
    "gold.toml",
    "run-trec.toml",
    "--format",
    "json",
];

/// The line every unfrozen fixture's gold gets; not part of a case's expectations.
fn is_unfrozen_warning(line: &str) -> bool {
    line.starts_with("warning: gold ") && line.contains(" is not frozen: run `ragdiff freeze")
}

/// Prepare the case's folder; returns it (and the temporary folder that holds it, to
/// keep it alive) and the text `{fixture}` stands for in expected lines.
pub(crate) fn prepare(folder: &str, setup: Setup) -> (PathBuf, Option<tempfile::TempDir>, String) {
    let src = fixture(folder);
    let abs = src.display().to_string();
    match setup {
        Setup::InPlace => (src, None, abs),
        Setup::TenMbLine => {
            let dir = temp_copy(&src);
            let mut text = String::with_capacity(HUGE_RANKING * 11 + 64);
            text.push_str("id,retrieved_doc_ids\nQ-1,");
            for i in 0..HUGE_RANKING {
                if i > 0 {
                    text.push(';');
                }
                text.push_str(&format!("DOC-{i:06}"));
            }
            text.push_str("\nQ-2,D-8;D-3\n");
            assert!(text.len() > 10_000_000, "the line must be over 10 MB");
            std::fs::write(dir.path().join("run.csv"), text).expect("written");
            (dir.path().to_path_buf(), Some(dir), abs)
        }
        Setup::SymlinkLoop => {
            let dir = temp_copy(&src);
            std::os::unix::fs::symlink("loop.csv", dir.path().join("loop.csv"))
                .expect("a symbolic link");
            (dir.path().to_path_buf(), Some(dir), abs)
        }
        Setup::AbsolutePaths => {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let data = |name: &str| src.join(name).display().to_string();
            std::fs::write(
                dir.path().join("gold.toml"),
                format!(
                    "name = \"cat\"\nversion = \"1.0.0\"\ncorpus = \"cat\"\ndata = {:?}\n",
                    data("gold.csv")
                ),
            )
            .expect("written");
            std::fs::write(
                dir.path().join("run.toml"),
                format!(
                    "index_version = \"1.0.0\"\ncorpus = \"cat\"\ndepth = 3\nresults = {:?}\n",
                    data("run.csv")
                ),
            )
            .expect("written");
            (dir.path().to_path_buf(), Some(dir), abs)
        }
    }
}

#[rstest]
// ---- rejected: exit 2, every problem with file:line and what to do ----------------
#[case::empty_file("catalogue/empty-file", Setup::InPlace,
    &["validate", "--gold", "gold.toml", "run.toml", "run-trec.toml"], 2, &[
    "gold.csv: the file is empty; expected a CSV header and rows",
    "run.csv: the file is empty; expected a CSV header and rows",
    "run.trec: the file is empty; expected TREC run lines `qid Q0 docid rank score tag`",
], &[], &[])]
// the same bytes the gold calls empty: a blank CSV run is empty too, not a header
// with one unnamed column (found by this test: "missing required column `id`" and
// "ignoring extra column ``" today)
#[case::whitespace_only_file("catalogue/whitespace-only", Setup::InPlace,
    &["validate", "--gold", "gold.toml", "run.toml", "run-trec.toml"], 2, &[
    "gold.csv: the file is empty; expected a CSV header and rows",
    "run.csv: the file is empty; expected a CSV header and rows",
    "run.trec: the file is empty; expected TREC run lines `qid Q0 docid rank score tag`",
], &[], &[])]
#[case::header_only("catalogue/header-only", Setup::InPlace, VALIDATE, 2, &[
    "gold.csv: the file has a header but no rows; add one row per query",
    "run.csv: the file has a header but no rows; add one row per query",
], &[], &[])]
#[case::missing_required_columns("catalogue/missing-columns", Setup::InPlace, VALIDATE, 2, &[
    "gold.csv:1: missing required column `expected_doc_ids` (the header must contain `id` and `expected_doc_ids`)",
    "run.csv:1: missing required column `id` (the header must contain `id` and `retrieved_doc_ids`)",
], &[], &[])]
// a quoted query id with a newline: the cell "Q-\n2" starts on line 3
#[case::quoted_id_with_newline("invalid/invalid-id", Setup::InPlace, VALIDATE, 2, &[
    "gold.csv:3: invalid query id: it contains a control character (a newline, tab or similar)",
], &[], &[])]
// quoted doc ids with U+0001 and with a newline
#[case::quoted_id_with_control_character("catalogue/control-char-id", Setup::InPlace, VALIDATE, 2, &[
    "run.csv:2: invalid doc id in query Q-1: it contains a control character (a newline, tab or similar)",
    "run.csv:3: invalid doc id in query Q-2: it contains a control character (a newline, tab or similar)",
], &[], &[])]
#[case::invalid_utf8("invalid/non-utf8", Setup::InPlace,
    &["validate", "--gold", "gold.toml", "run.toml", "run-trec.toml"], 2, &[
    "run.csv:3: the line is not valid UTF-8; save the file as UTF-8",
    "run.trec:2: the line is not valid UTF-8; save the file as UTF-8",
], &[], &[])]
// lines are capped at 1 MiB, so the 11 MB row stops reading there
#[case::ten_mb_line("catalogue/ten-mb-line", Setup::TenMbLine, VALIDATE, 2, &[
    "run.csv:2: line longer than 1 MiB (the limit for a line or a CSV row); reading stopped here: is this the right file?",
], &[], &[])]
#[case::nan_inf_and_non_numeric_scores("invalid/bad-score", Setup::InPlace, VALIDATE, 2, &[
    "run.trec:1: query Q-1, doc D-1: score is not a number; scores must be finite numbers",
    "run.trec:2: query Q-1, doc D-9: score is NaN; scores must be finite numbers",
    "run.trec:3: query Q-2, doc D-3: score is infinite; scores must be finite numbers",
], &[], &[])]
#[case::non_integer_grade("invalid/non-integer-grade", Setup::InPlace, VALIDATE, 2, &[
    "qrels.txt:2: query Q-2, doc D-2: the grade is not a whole number",
], &[], &[])]
#[case::whitespace_only_query_id("invalid/invalid-id", Setup::InPlace, VALIDATE, 2, &[
    "gold.csv:2: invalid query id: it is empty or only white space",
], &[], &[])]
#[case::whitespace_only_doc_ids("catalogue/whitespace-doc-id", Setup::InPlace, VALIDATE, 2, &[
    "gold.csv:3: invalid doc id in query Q-2: it is empty or only white space",
    "run.csv:2: invalid doc id in query Q-1: it is empty or only white space",
], &[], &[])]
#[case::manifest_unknown_keys("invalid/unknown-key", Setup::InPlace, VALIDATE, 2, &[
    "gold.toml:6: unknown key `cutoff`; known keys: name, version, frozen_at, corpus, data, format, k, min_grade, sha256, frozen_version, tags, tags_sha256, frozen_k, frozen_min_grade, frozen_tags, queries, queries_sha256, columns",
    "run.toml:5: unknown key `top_k`; known keys: index_version, corpus, depth, results, format, doc_map, approximate, filters, errored, latency, record, meta, columns",
], &[], &[])]
#[case::manifest_wrong_types("catalogue/wrong-types", Setup::InPlace, VALIDATE, 2, &[
    "gold.toml:3: `version` must be a string",
    "gold.toml:4: `corpus` must be a string",
    "gold.toml:6: `k` must be a whole number",
    "gold.toml:7: `min_grade` must be a whole number",
    "run.toml:3: `depth` must be a whole number",
    "run.toml:4: `results` must be a string",
    "run.toml:5: `filters` must be a table of key = \"value\" strings",
], &[], &[])]
#[case::manifest_depth_zero("invalid/depth-zero", Setup::InPlace, VALIDATE, 2, &[
    "run.toml:3: depth must be at least 1",
], &[], &[])]
#[case::manifest_k_zero("invalid/k-zero", Setup::InPlace, VALIDATE, 2, &[
    "gold.toml:6: k must be at least 1",
], &[], &[])]
#[case::data_path_missing("invalid/data-path-missing", Setup::InPlace, VALIDATE, 2, &[
    "gold.toml:5: gold data labels.csv does not exist",
], &[], &[])]
#[case::data_path_directory("invalid/data-path-directory", Setup::InPlace, VALIDATE, 2, &[
    "run.toml:4: run results run.csv is a directory, not a file",
], &[], &[])]
#[case::data_path_symlink_loop("catalogue/symlink-loop", Setup::SymlinkLoop, VALIDATE, 2, &[
    "run.toml:4: run results loop.csv cannot be read: Too many levels of symbolic links (os error 40); check the path, its links and its permissions",
], &[], &[])]
// ---- accepted: exit 0, the warning the contract gives, the numbers as intended -------------
// without the BOM stripped, the first column would not be `id`
#[case::utf8_bom("catalogue/bom", Setup::InPlace, EVAL_JSON, 0, &[], &[
    ("Q-1", Some(1), 1.0, 1.0, 1.0),
    ("Q-2", Some(2), 0.5, 0.5, 0.386_852_807_234_541_6),
], &[])]
#[case::utf8_bom_trec_run("catalogue/bom", Setup::InPlace, EVAL_TREC_JSON, 0, &[], &[
    ("Q-1", Some(1), 1.0, 1.0, 1.0),
    ("Q-2", Some(2), 0.5, 0.5, 0.386_852_807_234_541_6),
], &[])]
// a CR left on the last id of a line would make D-1 and D-3 unfound
#[case::crlf("catalogue/crlf", Setup::InPlace, EVAL_JSON, 0, &[], &[
    ("Q-1", Some(1), 1.0, 1.0, 1.0),
    ("Q-2", Some(2), 0.5, 0.5, 0.386_852_807_234_541_6),
], &[])]
#[case::crlf_trec_run("catalogue/crlf", Setup::InPlace, EVAL_TREC_JSON, 0, &[], &[
    ("Q-1", Some(1), 1.0, 1.0, 1.0),
    ("Q-2", Some(2), 0.5, 0.5, 0.386_852_807_234_541_6),
], &[])]
// "D,1;D-2" is two ids, the first with a comma; the question's `;` and `,` stay in it
#[case::rfc4180_quoting("catalogue/rfc4180-quoting", Setup::InPlace, EVAL_JSON, 0, &[], &[
    ("Q-1", Some(2), 0.5, 1.0, 0.693_426_403_617_270_8),
    ("Q-2", Some(1), 1.0, 1.0, 1.0),
], &[])]
#[case::extra_csv_columns("catalogue/extra-csv-columns", Setup::InPlace, EVAL_JSON, 0, &[
    "warning: gold.csv:1: ignoring extra column `notes`",
    "warning: run.csv:1: ignoring extra column `score`",
], &[
    ("Q-1", Some(1), 1.0, 1.0, 1.0),
    ("Q-2", Some(2), 0.5, 0.5, 0.386_852_807_234_541_6),
], &[])]
#[case::trailing_trec_columns("catalogue/trec-extra-columns", Setup::InPlace, EVAL_JSON, 0, &[
    "warning: run.trec: 2 lines have more than 6 fields; the extra ones are ignored, as trec_eval does",
], &[
    ("Q-1", Some(1), 1.0, 1.0, 1.0),
    ("Q-2", Some(2), 0.5, 0.5, 0.386_852_807_234_541_6),
], &[])]
// a negative grade is not relevant and has no gain: nDCG = (2 / log2 3) / 2
#[case::negative_grades("catalogue/negative-grades", Setup::InPlace, EVAL_JSON, 0, &[], &[
    ("Q-1", Some(2), 0.5, 1.0, 0.630_929_753_571_457_5),
    ("Q-2", Some(2), 0.5, 1.0, 0.630_929_753_571_457_5),
], &["Q-3"])]
#[case::ids_with_surrounding_spaces("catalogue/padded-ids", Setup::InPlace, EVAL_JSON, 0, &[], &[
    ("Q-1", Some(1), 1.0, 0.5, 0.613_147_192_765_458_4),
    ("Q-2", Some(1), 1.0, 1.0, 1.0),
], &[])]
#[case::ids_differing_only_by_case("catalogue/case-distinct-ids", Setup::InPlace, EVAL_JSON, 0, &[], &[
    ("Q-1", Some(2), 0.5, 1.0, 0.630_929_753_571_457_5),
    ("q-1", Some(1), 1.0, 1.0, 1.0),
], &[])]
#[case::data_path_outside_via_parent("catalogue/outside-relative", Setup::InPlace,
    &["eval", "--gold", "manifests/gold.toml", "manifests/run.toml", "--format", "json"], 0, &[
    "warning: manifests/gold.toml: data points outside the manifest's folder: manifests/../data/gold.csv",
    "warning: manifests/run.toml: results points outside the manifest's folder: manifests/../data/run.csv",
], &[
    ("Q-1", Some(1), 1.0, 1.0, 1.0),
    ("Q-2", Some(2), 0.5, 0.5, 0.386_852_807_234_541_6),
], &[])]
#[case::data_path_outside_absolute("catalogue/outside-absolute", Setup::AbsolutePaths, EVAL_JSON, 0, &[
    "warning: gold.toml: data points outside the manifest's folder: {fixture}/gold.csv",
    "warning: run.toml: results points outside the manifest's folder: {fixture}/run.csv",
], &[
    ("Q-1", Some(1), 1.0, 1.0, 1.0),
    ("Q-2", Some(2), 0.5, 0.5, 0.386_852_807_234_541_6),
], &[])]
fn catalogue(
    #[case] folder: &str,
    #[case] setup: Setup,
    #[case] args: &[&str],
    #[case] expected_code: i32,
    #[case] lines: &[&str],
    #[case] rows: &[Row],
    #[case] no_answer: &[&str],
) {
    let (dir, _keep, fixture_dir) = prepare(folder, setup);
    let out = run(&dir, args);
    assert_code(&out, expected_code);
    let err = stderr(&out);
    let lines: Vec<String> = lines
        .iter()
        .map(|l| l.replace("{fixture}", &fixture_dir))
        .collect();
    if expected_code != 0 {
        assert!(stdout(&out).is_empty(), "stdout:\n{}", render(&out));
        assert!(err.contains("error: invalid input:"), "{}", render(&out));
        for line in &lines {
            assert_line(&err, line);
        }
        return;
    }
    // Exactly the warnings the contract gives (beside the unfrozen gold's), no others.
    let mut warnings: Vec<&str> = err.lines().filter(|l| !is_unfrozen_warning(l)).collect();
    warnings.sort_unstable();
    let mut expected: Vec<&str> = lines.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(warnings, expected, "{}", render(&out));

    let json: EvalJson = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("eval JSON does not parse: {e}\n{}", render(&out)));
    let ids: Vec<&str> = json.per_query.iter().map(|r| r.id.as_str()).collect();
    let expected_ids: Vec<&str> = rows.iter().map(|r| r.0).collect();
    assert_eq!(ids, expected_ids, "per-query ids");
    assert_eq!(json.no_answer, no_answer, "no-answer queries");
    assert!(
        json.notes
            .iter()
            .all(|n| n.starts_with("the gold lists relevant docs only")),
        "no tie-order note: {:?}",
        json.notes
    );
    assert_eq!(
        json.gold.queries,
        rows.len() + no_answer.len(),
        "gold queries"
    );
    for &(id, rank, rr, recall, ndcg) in rows {
        let row = json.row(id);
        assert_eq!(row.first_relevant_rank, rank, "{id}: first relevant rank");
        assert_close(row.rr, rr, &format!("{id}: RR"));
        assert_close(row.recall, recall, &format!("{id}: Recall"));
        assert_close(row.ndcg, ndcg, &format!("{id}: nDCG"));
    }
}

/// The accepted cases are accepted by `validate` too, with the same warnings.
#[rstest]
#[case("catalogue/bom", &["run.toml", "run-trec.toml"])]
#[case("catalogue/crlf", &["run.toml", "run-trec.toml"])]
#[case("catalogue/rfc4180-quoting", &["run.toml"])]
#[case("catalogue/extra-csv-columns", &["run.toml"])]
#[case("catalogue/trec-extra-columns", &["run.toml"])]
#[case("catalogue/negative-grades", &["run.toml"])]
#[case("catalogue/padded-ids", &["run.toml"])]
#[case("catalogue/case-distinct-ids", &["run.toml"])]
fn accepted_cases_validate(#[case] folder: &str, #[case] runs: &[&str]) {
    let mut args = vec!["validate", "--gold", "gold.toml"];
    args.extend_from_slice(runs);
    let out = run(fixture(folder), &args);
    assert_code(&out, 0);
    assert!(stdout(&out).starts_with("ok: "), "{}", render(&out));
}

/// The rejected cases are refused by `eval` too (it checks the same inputs), and
/// `compare` refuses a rejected run as well.
#[rstest]
#[case("catalogue/empty-file")]
#[case("catalogue/header-only")]
#[case("catalogue/missing-columns")]
#[case("catalogue/control-char-id")]
#[case("catalogue/whitespace-doc-id")]
#[case("catalogue/wrong-types")]
fn rejected_cases_are_refused_by_eval_and_compare(#[case] folder: &str) {
    let dir = fixture(folder);
    let out = run(&dir, &["eval", "--gold", "gold.toml", "run.toml"]);
    assert_code(&out, 2);
    assert!(stdout(&out).is_empty(), "{}", render(&out));
    let out = run(
        &dir,
        &["compare", "--gold", "gold.toml", "run.toml", "run.toml"],
    );
    assert_code(&out, 2);
    assert!(stdout(&out).is_empty(), "{}", render(&out));
}

/// Inputs are only read: every catalogue fixture is byte-for-byte the same after
/// every command ran on it.
#[test]
fn inputs_are_never_written() {
    let root = fixture("catalogue");
    let before = snapshot(&root);
    let cases: std::collections::BTreeSet<&Path> =
        before.keys().filter_map(|p| p.parent()).collect();
    for case in cases {
        for args in [
            &["validate", "--gold", "gold.toml", "run.toml"][..],
            &["eval", "--gold", "gold.toml", "run.toml"][..],
            &["compare", "--gold", "gold.toml", "run.toml", "run.toml"][..],
        ] {
            if case.join("gold.toml").is_file() {
                let _ = run(case, args);
            }
        }
    }
    assert_eq!(snapshot(&root), before, "a fixture changed");
}

fn snapshot(root: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).expect("readable"));
            }
        }
    }
    out
}
