//! A common depth (docs/contract.md §6.1): `compare --depth N` and `[compare] depth`
//! cut both runs' lists to N before anything is computed; without it, different
//! depths are refused and the refusal names the flag. Fixtures:
//! tests/fixtures/compare/d10-cand.toml, d4-cand.toml, depth-policy*.toml (README).

use crate::common::{
    CompareJson, assert_code, assert_invalid, compare_json, fixture, ragdiff_snapshot, render, run,
    stderr, stdout,
};

fn args<'a>(candidate: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["compare", "--gold", "gold.toml", "base.toml", candidate];
    v.extend_from_slice(extra);
    v
}

/// Everything but the runs' own depth fields.
fn same_numbers(a: &CompareJson, b: &CompareJson) {
    assert_eq!(a.per_query, b.per_query);
    assert_eq!(a.means, b.means);
    assert_eq!(a.drift, b.drift);
    assert_eq!(a.gate.codes, b.gate.codes);
}

/// A depth-10 candidate compared at depth 4 gives exactly the numbers of its lists
/// cut by hand to 4 (AP and drift included, which read whole lists); the report
/// says so.
#[test]
fn depth_cuts_both_sides_before_anything_is_computed() {
    let dir = fixture("compare");
    let cut = compare_json(
        &dir,
        &args("d10-cand.toml", &["--depth", "4", "--format", "json"]),
        0,
    );
    let by_hand = compare_json(&dir, &args("d4-cand.toml", &["--format", "json"]), 0);
    same_numbers(&cut, &by_hand);
    assert_eq!(cut.candidate.depth, 4);
    assert_eq!(cut.candidate.declared_depth, Some(10));
    assert_eq!(by_hand.candidate.declared_depth, None);
    let note = "compared at depth 4 (baseline 4, candidate 10)";
    assert!(cut.notes.iter().any(|n| n == note), "{:?}", cut.notes);
    let out = run(&dir, &args("d10-cand.toml", &["--depth", "4"]));
    assert_code(&out, 0);
    assert!(
        stderr(&out).contains(note) || stdout(&out).contains(note),
        "{}",
        render(&out)
    );
    // Whole lists (both sides at depth 10) differ: B's b2 at rank 6 counts in AP. The
    // lists are cut, not only checked.
    let whole = compare_json(
        &dir,
        &[
            "compare",
            "--gold",
            "gold.toml",
            "d10-base.toml",
            "d10-cand.toml",
            "--format",
            "json",
        ],
        0,
    );
    assert_ne!(whole.means.ap, cut.means.ap);
}

/// `[compare] depth` in the policy file does what the flag does; the flag wins.
#[test]
fn the_policy_file_sets_the_depth() {
    let dir = fixture("compare");
    let file = compare_json(
        &dir,
        &args(
            "d10-cand.toml",
            &["--config", "depth-policy.toml", "--format", "json"],
        ),
        0,
    );
    let flag = compare_json(
        &dir,
        &args("d10-cand.toml", &["--depth", "4", "--format", "json"]),
        0,
    );
    same_numbers(&file, &flag);
    let out = run(
        &dir,
        &args("d10-cand.toml", &["--config", "depth-policy-zero.toml"]),
    );
    assert_invalid(
        &out,
        &["depth-policy-zero.toml:2: `depth`: 0 is not a whole number >= 1"],
    );
}

/// Different depths without `--depth` are refused (exit 3), naming the flag; a depth
/// above either side's declared one is a usage error (exit 2).
#[test]
fn depth_rules() {
    let dir = fixture("compare");
    let out = run(&dir, &args("d10-cand.toml", &[]));
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 3
    ----- stdout -----

    ----- stderr -----
    error: refusing to compare: the runs are not comparable
      depth:   baseline 4, candidate 10 (--depth N compares both at a common depth N <= 4)
    ");
    let out = run(&dir, &args("d10-cand.toml", &["--depth", "5"]));
    assert_invalid(
        &out,
        &[
            "--depth 5 is larger than the baseline's depth 4; a common depth is at most the smaller declared depth (4)",
        ],
    );
    let out = run(&dir, &args("d10-cand.toml", &["--depth", "0"]));
    assert_code(&out, 2);
}
