//! Findings of the second review (real BM25 runs over Vaswani and hostile inputs),
//! each pinned by a test that failed before its fix.

use crate::common::*;

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
    assert_code(&out, 0);
    assert_line(
        &stdout(&out),
        "note: run.trec: 12 queries have tied scores ordered differently from trec_eval's doc-id tie-break (numbers follow trec_eval): 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 … and 2 more",
    );
    let err = stderr(&out);
    assert_line(
        &err,
        "warning: run.trec: 12 queries have scores whose order disagrees with the rank column; ragdiff, like trec_eval, ranks by score: 13, 14, 15, 16, 17, 18, 19, 20, 21, 22 … and 2 more",
    );
    assert_line(
        &err,
        "warning: run.trec: 12 run queries are not in the gold set: left out of the metrics, as trec_eval does; compare counts them in drift: x1, x2, x3, x4, x5, x6, x7, x8, x9, x10 … and 2 more",
    );
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
    assert!(
        err.contains("--export-json no-such-folder/report.json: the folder no-such-folder does not exist; ragdiff creates no folders"),
        "{err}"
    );
    assert!(!err.contains(".ragdiff-"), "{err}");
    assert!(
        !crate::common::stdout(&out).contains("FAIL"),
        "nothing was compared"
    );
}
