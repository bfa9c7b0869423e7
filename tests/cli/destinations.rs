//! No input is ever written: every input is refused as an export or a promote
//! destination (except the baseline files promote replaces), and an export is never
//! where promote writes (docs/contract.md §12.19).

use std::path::Path;

use crate::common::{assert_code, assert_line, demo_copy, fixture, run, stderr, temp_copy};

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn an_export_over_the_gold_tags_file_is_refused() {
    let dir = temp_copy(&fixture("segments/trec"));
    let before = bytes(&dir.path().join("tags.csv"));
    let out = run(
        dir.path(),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "base.toml",
            "cand.toml",
            "--export-json",
            "tags.csv",
        ],
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "--export-json tags.csv would overwrite the input tags.csv; write the report elsewhere",
    );
    assert_eq!(bytes(&dir.path().join("tags.csv")), before);
}

/// (Held before: an export is never a symlink.)
#[test]
fn an_export_through_a_symlink_to_the_tags_file_is_refused() {
    let dir = temp_copy(&fixture("segments/trec"));
    std::os::unix::fs::symlink("tags.csv", dir.path().join("report.json")).expect("a link");
    let out = run(
        dir.path(),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "base.toml",
            "cand.toml",
            "--export-json",
            "report.json",
        ],
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "report.json: cannot write report.json: it is a symbolic link, not a regular file; an export replaces only a regular file (`-` writes to stdout)",
    );
}

#[test]
fn promote_never_writes_a_repeat_copy_over_the_candidate_manifest() {
    let dir = demo_copy();
    let runs = dir.path().join("runs");
    std::fs::copy(runs.join("candidate-2.csv"), runs.join("rep2.toml")).expect("a repeat");
    let manifest = "index_version = \"2.4.0\"\ncorpus = \"demo-questions\"\ndepth = 5\nformat = \"csv\"\nresults = [\"candidate.csv\", \"rep2.toml\"]\n";
    std::fs::write(runs.join("baseline-2.toml"), manifest).expect("the candidate");
    let out = run(
        dir.path(),
        &[
            "promote",
            "--force",
            "runs/baseline.toml",
            "runs/baseline-2.toml",
        ],
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "promote would write runs/baseline-2.toml over the candidate manifest runs/baseline-2.toml; inputs are never written (rename the baseline manifest or the candidate's files)",
    );
    assert_eq!(bytes(&runs.join("baseline-2.toml")), manifest.as_bytes());
}

#[test]
fn an_export_named_like_a_promote_destination_is_refused() {
    let dir = demo_copy();
    let out = run(
        dir.path(),
        &["promote", "--force", "--export-json", "runs/baseline-3.csv"],
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "--export-json runs/baseline-3.csv is also where promote writes; write the report elsewhere",
    );
    assert!(!dir.path().join("runs/baseline-3.csv").exists());
}
