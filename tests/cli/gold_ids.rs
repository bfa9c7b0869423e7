//! Ids that never meet the gold (docs/contract.md §2.15): a run none of whose doc ids
//! the gold judges is refused (exit 2), one whose queries rarely return a judged doc
//! warns, and an id cell holding a list is an input error at its line. Fixtures in
//! tests/fixtures/gold_ids (its README says what each breaks).

use crate::common::{
    assert_code, assert_invalid, fixture, ragdiff_snapshot, reference_dir, run, stderr, stdout,
};

fn compare(candidate: &str) -> std::process::Output {
    run(
        fixture("gold_ids"),
        &["compare", "--gold", "gold.toml", "baseline.toml", candidate],
    )
}

const PREFIXED: &str = "prefixed.csv: none of the run's doc ids is judged anywhere in the gold, which judges docs for 12 queries of it: run ids look like `doc-3001`, `doc-9001`, `doc-3002`, gold ids like `1701`, `3001`, `1702`; write the run's ids as the gold does (a prefix? another scheme?) or map them with `doc_map`";

#[test]
fn a_run_whose_ids_carry_a_prefix_the_gold_lacks_is_refused() {
    let out = compare("prefixed.toml");
    assert_invalid(
        &out,
        &[
            "prefixed.csv: none of the run's doc ids is judged anywhere in the gold, which judges docs for 12 queries of it: run ids look like `doc-3001`, `doc-9001`, `doc-3002`, gold ids like `1701`, `3001`, `1702`; write the run's ids as the gold does (a prefix? another scheme?) or map them with `doc_map`",
        ],
    );
    assert_eq!(stdout(&out), "");
    // validate and eval say the same: the run is not valid
    for args in [
        ["validate", "--gold", "gold.toml", "prefixed.toml"],
        ["eval", "--gold", "gold.toml", "prefixed.toml"],
    ] {
        let out = run(fixture("gold_ids"), &args);
        assert_code(&out, 2);
        assert!(stderr(&out).contains(PREFIXED), "{}", stderr(&out));
    }
}

#[test]
fn a_run_whose_queries_rarely_return_a_judged_doc_warns() {
    let out = compare("sparse.toml");
    ragdiff_snapshot!(&out);
    // the baseline, every query meeting the gold, does not
    assert!(
        !stderr(&out).contains("baseline.csv: only"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_id_cell_holding_a_list_is_an_input_error_at_its_line() {
    for (manifest, expected) in [
        (
            "comma-cell.toml",
            "comma-cell.csv:3: query q2: the doc id `3002,1702,9002` holds a list (split on `,` it names docs the gold judges); `retrieved_doc_ids` separates ids with `;`",
        ),
        (
            "pandas-list.toml",
            "pandas-list.csv:4: query q3: the doc id `['3003', '1703']` holds a list (written as a list, `[...]`); `retrieved_doc_ids` separates ids with `;`",
        ),
        (
            "comma-cell-jsonl.toml",
            "comma-cell.jsonl:2: query q2: the doc id `3002,1702` holds a list (split on `,` it names docs the gold judges); `retrieved_doc_ids` is a JSON array with one string per id",
        ),
    ] {
        let out = compare(manifest);
        assert_code(&out, 2);
        assert!(
            stderr(&out).contains(expected),
            "{manifest}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_quoted_id_holding_a_comma_stays_legal() {
    let out = compare("quoted-comma.toml");
    assert_code(&out, 0);
    assert!(!stderr(&out).contains("holds a list"), "{}", stderr(&out));
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn real_bm25_run_with_prefixed_ids_is_refused() {
    // bm25.trec (Vaswani) with `doc-` before every doc id: every query would score 0.
    let qrels = reference_dir().join("vaswani/qrels");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let trec = std::fs::read_to_string(fixture("real_changes/bm25.trec")).expect("bm25.trec");
    let prefixed: String = trec
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split_whitespace().collect();
            let doc = format!("doc-{}", f[2]);
            f[2] = &doc;
            format!("{}\n", f.join(" "))
        })
        .collect();
    std::fs::write(dir.path().join("prefixed.trec"), prefixed).expect("written");
    std::fs::write(
        dir.path().join("prefixed.toml"),
        "index_version = \"1.1.0\"\ncorpus = \"vaswani\"\ndepth = 100\nresults = \"prefixed.trec\"\n",
    )
    .expect("written");
    let baseline = fixture("verdict/real/bm25.toml");
    let out = run(
        dir.path(),
        &[
            "compare",
            "--gold",
            qrels.to_str().expect("utf-8"),
            "--k",
            "10",
            baseline.to_str().expect("utf-8"),
            "prefixed.toml",
        ],
    );
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(
        err.contains("prefixed.trec: none of the run's doc ids is judged anywhere in the gold, which judges docs for 93 queries of it: run ids look like `doc-"),
        "{err}"
    );
}
