//! Chunk maps (docs/contract.md §2.11): each run's chunk ids become documents through
//! its own map, the `coverage` failure kind, and the map's validation rules. Fixtures:
//! tests/fixtures/doc_maps.

use std::path::PathBuf;

use crate::common::{
    EVAL_CAND_JSON, FailureKind, Status, assert_code, assert_invalid, compare_json, fixture, run,
    temp_copy,
};

pub(crate) fn chunks() -> PathBuf {
    fixture("doc_maps/chunks")
}

pub(crate) fn compare<'a>(candidate: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["compare", "--gold", "gold.toml", "base.toml", candidate];
    a.extend_from_slice(extra);
    a
}

// ---------------------------------------------------------------------------------
// Chunk maps (§2.11)

/// Two indexes chunked differently (paragraphs, then sentences) over one
/// document-level gold: each run's chunk ids become documents through its own map,
/// a document at the rank of its first chunk.
#[test]
fn two_differently_chunked_runs_are_compared_by_document() {
    let j = compare_json(chunks(), &compare("cand.toml", &["--format", "json"]), 1);
    // Q-1: D-1's two paragraphs are one document at rank 1; in the candidate D-7
    // comes first and D-1's second sentence stands at rank 2 (its first at rank 3 is
    // dropped): regressed to RR 0.5, not a duplicate.
    let q1 = j.row("Q-1");
    assert_eq!(q1.status, Status::Regressed);
    assert_eq!(q1.baseline.first_relevant_rank, Some(1));
    assert_eq!(
        (q1.candidate.first_relevant_rank, q1.candidate.rr),
        (Some(2), 0.5)
    );
    // Q-2: D-8's three paragraphs are one document, so D-2 (the fourth chunk)
    // stands at document rank 2, inside k = 3.
    let q2 = j.row("Q-2");
    assert_eq!(
        (q2.baseline.first_relevant_rank, q2.baseline.rr),
        (Some(2), 0.5)
    );
    assert_eq!(q2.status, Status::Improved);
    // Q-4: two chunks of D-4 count once: precision 1/3, recall 1.
    assert_eq!(j.row("Q-4").status, Status::Unchanged);
    assert!((j.row("Q-4").candidate.precision - 1.0 / 3.0).abs() < 1e-12);
    // Q-3: D-3 is in the new index but not retrieved; Q-5: D-6 is not in the new
    // index at all.
    assert_eq!(j.newly_failed, ["Q-3", "Q-5"]);
    assert_eq!(j.row("Q-3").failure_kind, Some(FailureKind::Retrieval));
    assert_eq!(j.row("Q-5").failure_kind, Some(FailureKind::Coverage));
    assert_eq!(j.row("Q-5").lost, ["D-6"]);
    // Lists in documents: Q-4 is [D-4] on both sides.
    assert_eq!(j.row("Q-4").rbo, Some(1.0));
}

#[test]
fn the_coverage_kind_shows_in_the_table_and_the_markdown() {
    let out = run(chunks(), &compare("cand.toml", &[]));
    assert_code(&out, 1);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("Q-5 (coverage; lost D-6)"), "{text}");
    // The candidate's map decided Q-5's kind: the verdict block names it (§6.4).
    assert!(
        text.contains(
            "decided by the candidate's manifest: doc_map (1 newly failed query of kind coverage)"
        ),
        "{text}"
    );
    let out = run(chunks(), &compare("cand.toml", &["--format", "markdown"]));
    let md = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(md.contains("coverage"), "{md}");
    assert!(
        md.contains(r"doc\_map (1 newly failed query of kind coverage)"),
        "{md}"
    );
}

/// The same documents in the same order from a re-chunked index of the same version:
/// drift and the reproducibility check see documents, so nothing moved.
#[test]
fn drift_compares_mapped_document_lists() {
    let j = compare_json(
        chunks(),
        &compare("cand-same.toml", &["--format", "json", "--min-rbo", "0.99"]),
        0,
    );
    assert!(j.nondeterministic.is_empty());
    assert_eq!(j.drift.mean_rbo, Some(1.0));
    assert!(j.per_query.iter().all(|r| r.rbo == Some(1.0)));
    assert!(j.gate.passed, "{:?}", j.gate.reasons);
}

#[test]
fn an_unmapped_chunk_is_an_input_error_at_its_line() {
    let out = run(chunks(), &compare("unmapped.toml", &[]));
    assert_invalid(
        &out,
        &[
            "unmapped.csv:3: query Q-2: chunk D-2#p9 is not in the doc map chunks-v2.csv; every retrieved id must be a `chunk_id` of the map",
            "unmapped.csv:6: query Q-5: chunk D-5#s1 is not in the doc map chunks-v2.csv; every retrieved id must be a `chunk_id` of the map",
        ],
    );
}

#[test]
fn a_chunk_mapped_twice_is_an_input_error_at_its_line() {
    let out = run(chunks(), &compare("map-twice.toml", &[]));
    assert_invalid(
        &out,
        &[
            "chunks-twice.csv:4: chunk D-1#s1 is mapped twice (first at line 2); a chunk belongs to one document",
        ],
    );
}

/// Six chunks of three documents under depth 5: depth applies to the chunk list.
#[test]
fn depth_applies_to_the_chunk_list() {
    let out = run(chunks(), &compare("too-deep.toml", &[]));
    assert_invalid(
        &out,
        &[
            "too-deep.csv:2: query Q-1 returned 6 docs, more than the run's depth 5; a list may be shorter than depth, never longer: fix the export or the manifest's depth",
        ],
    );
}

#[test]
fn a_missing_doc_map_is_named_with_its_key_line() {
    let dir = temp_copy(&chunks());
    std::fs::remove_file(dir.path().join("chunks-v2.csv")).unwrap();
    let out = run(dir.path(), &compare("cand.toml", &[]));
    assert_invalid(&out, &["cand.toml:5: doc map chunks-v2.csv does not exist"]);
}

/// `eval` and `validate` read the map too.
#[test]
fn eval_and_validate_map_chunks() {
    let out = run(chunks(), &EVAL_CAND_JSON);
    assert_code(&out, 0);
    let out = run(
        chunks(),
        &["validate", "--gold", "gold.toml", "unmapped.toml"],
    );
    assert_invalid(
        &out,
        &[
            "unmapped.csv:3: query Q-2: chunk D-2#p9 is not in the doc map chunks-v2.csv; every retrieved id must be a `chunk_id` of the map",
            "unmapped.csv:6: query Q-5: chunk D-5#s1 is not in the doc map chunks-v2.csv; every retrieved id must be a `chunk_id` of the map",
        ],
    );
}
