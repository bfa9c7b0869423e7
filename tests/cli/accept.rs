//! The review loop (docs/contract.md §8.5): allow-list entries keyed by (id,
//! index_version), and `ragdiff accept`.

use crate::common::{assert_code, assert_line, compare_json, crate_dir, run, stderr, stdout};

fn with_list(list: &str) -> std::process::Output {
    let path = format!("tests/fixtures/accept/{list}");
    run(crate_dir(), &["compare", "--allow-failed-file", &path])
}

#[test]
fn an_entry_for_the_candidates_version_accepts() {
    let r = compare_json(
        crate_dir(),
        &[
            "compare",
            "--format",
            "json",
            "--allow-failed-file",
            "runs/accepted-failures.csv",
        ],
        0,
    );
    assert_eq!(r.accepted.len(), 1);
    assert_eq!(r.accepted[0].index_version.as_deref(), Some("2.4.0"));
    assert_eq!(r.accepted[0].accepted_at.as_deref(), Some("2026-12-01"));
    assert!(
        r.notes.iter().all(|n| !n.contains("any index version")),
        "{:?}",
        r.notes
    );
}

#[test]
fn an_entry_for_another_version_warns_and_fails_again() {
    let out = with_list("other-version.csv");
    assert_code(&out, 1);
    assert_line(
        &stderr(&out),
        "warning: Q-21 was accepted for 2.3.5; the candidate is 2.4.0: look again",
    );
    assert!(stdout(&out).starts_with("FAIL"), "{}", stdout(&out));
}

#[test]
fn an_entry_for_the_baselines_version_is_a_note_and_fails_again() {
    let out = with_list("baseline-version.csv");
    assert_code(&out, 1);
    assert!(!stderr(&out).contains("warning: Q-21"), "{}", stderr(&out));
    assert_line(
        &stdout(&out),
        "note: Q-21 was accepted for 2.3.0, the baseline's version (used up by its promotion); the candidate is 2.4.0, so it fails the gate again",
    );
}

#[test]
fn an_entry_without_a_version_applies_with_a_note() {
    let out = with_list("any-version.csv");
    assert_code(&out, 0);
    assert_line(
        &stdout(&out),
        "note: the allow-list accepts 1 query for any index version (no index_version): Q-21; name the index build each acceptance is for",
    );
}

#[test]
fn each_broken_allow_list_is_exit_2_with_file_and_line() {
    for (list, message) in [
        (
            "duplicate.csv",
            "3: query Q-21 is accepted twice for index_version 2.4.0 (first on line 2); keep one line",
        ),
        (
            "no-reason.csv",
            "2: allow-listed query Q-21 has no reason; say why its failure is accepted",
        ),
        (
            "control.csv",
            "2: the `reason` cell holds a control character (a newline, tab or similar); write it on one line",
        ),
        (
            "bad-version.csv",
            "2: index_version = \"v2.4\" is not a semantic version (like \"1.2.0\")",
        ),
        (
            "bad-date.csv",
            "2: accepted_at = \"20/11/2026\" is not a date like \"2026-09-19\"",
        ),
    ] {
        let out = with_list(list);
        assert_code(&out, 2);
        assert_line(
            &stderr(&out),
            &format!("tests/fixtures/accept/{list}:{message}"),
        );
    }
}
