//! Index versions as teams write them and the run manifest's `[meta]`
//! (docs/contract.md §2.2, §6.1): semver gets the bump, anything else equality only;
//! `[meta]` is carried into JSON and Markdown and never gated on. Fixtures:
//! tests/fixtures/compare/v-*.toml (see its README).

use crate::common::{
    Bump, assert_code, assert_invalid, assert_line, compare_json, fixture, ragdiff_snapshot,
    render, run, stderr, stdout,
};

fn compare<'a>(baseline: &'a str, candidate: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["compare", "--gold", "gold.toml", baseline, candidate];
    args.extend_from_slice(extra);
    args
}

/// A commit and a date are accepted, compared for equality only: the bump is "not
/// semver", the table and Markdown say so, and the comparison is no reproducibility
/// check.
#[test]
fn versions_that_are_not_semver_compare_for_equality_only() {
    let dir = fixture("compare");
    let args = compare(
        "v-commit-base.toml",
        "v-date-cand.toml",
        &["--format", "json"],
    );
    let r = compare_json(&dir, &args, 0);
    assert_eq!(r.bump, Bump::NotSemver);
    assert!(!r.reproducibility_check);
    assert_eq!(r.baseline.index_version.as_deref(), Some("3f2a9c1"));
    assert_eq!(r.candidate.index_version.as_deref(), Some("2026-11-30.2"));
    let out = run(
        &dir,
        &compare("v-commit-base.toml", "v-date-cand.toml", &[]),
    );
    ragdiff_snapshot!(&out);
    // A semver baseline against a commit: no order either, and no "lower" warning.
    let out = run(&dir, &compare("cand.toml", "v-commit-base.toml", &[]));
    ragdiff_snapshot!(&out);
    assert!(!stderr(&out).contains("lower than"), "{}", render(&out));
    // The same commit on both sides is the same index: a reproducibility check.
    let args = compare(
        "v-commit-base.toml",
        "v-commit-same.toml",
        &["--format", "json"],
    );
    let r = compare_json(&dir, &args, 0);
    assert_eq!(r.bump, Bump::Same);
    assert!(r.reproducibility_check);
    // Semver keeps its bump.
    let r = compare_json(
        &dir,
        &compare("base.toml", "cand.toml", &["--format", "json"]),
        0,
    );
    assert_eq!(r.bump, Bump::Minor);
}

/// Each rule of a free index version at the manifest's line, exit 2.
#[test]
fn index_version_rules() {
    let dir = fixture("compare");
    let out = run(&dir, &compare("base.toml", "v-long.toml", &[]));
    assert_invalid(
        &out,
        &["v-long.toml:2: index_version has 129 characters, more than 128"],
    );
    let out = run(&dir, &compare("base.toml", "v-control.toml", &[]));
    assert_invalid(
        &out,
        &[
            "v-control.toml:2: index_version contains a control character (a newline, tab or similar)",
        ],
    );
}

/// `[meta]` reaches JSON unchanged and in the manifest's order, and Markdown's
/// details; it changes no verdict.
#[test]
fn meta_is_carried_into_json_and_markdown() {
    let dir = fixture("compare");
    let args = compare(
        "v-commit-base.toml",
        "v-date-cand.toml",
        &["--format", "json"],
    );
    let out = run(&dir, &args);
    assert_code(&out, 0);
    let text = stdout(&out);
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let meta = &json["baseline"]["meta"];
    assert_eq!(meta["commit"], "3f2a9c1");
    assert_eq!(meta["embedding"], "bge-small-en-v1.5");
    assert_eq!(meta["chunk_size"], 512);
    assert_eq!(meta["temperature"], 0.25);
    assert_eq!(meta["reranked"], false);
    let order: Vec<usize> = [
        "\"commit\"",
        "\"embedding\"",
        "\"chunk_size\"",
        "\"reranked\"",
    ]
    .iter()
    .map(|k| text.find(k).expect("the key"))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert_eq!(json["candidate"]["meta"]["commit"], "9d81e07");
    // A run without [meta] has no `meta` key.
    let r = compare_json(
        &dir,
        &compare("base.toml", "cand.toml", &["--format", "json"]),
        0,
    );
    assert!(r.baseline.meta.is_none());
    let out = run(
        &dir,
        &compare(
            "v-commit-base.toml",
            "v-date-cand.toml",
            &["--format", "markdown"],
        ),
    );
    ragdiff_snapshot!(&out);
    let out = run(
        &dir,
        &compare("base.toml", "cand.toml", &["--format", "markdown"]),
    );
    assert!(!stdout(&out).contains("Run metadata"));
}

/// `[meta]` rules: at most 64 keys; strings, numbers and booleans only.
#[test]
fn meta_rules() {
    let dir = fixture("compare");
    let out = run(&dir, &compare("base.toml", "v-meta-many.toml", &[]));
    assert_invalid(
        &out,
        &[
            "v-meta-many.toml:10: [meta] has 65 keys, more than 64; keep the team's own metadata to 64 keys",
        ],
    );
    let out = run(&dir, &compare("base.toml", "v-meta-types.toml", &[]));
    assert_code(&out, 2);
    let err = stderr(&out);
    for key in ["models", "when", "nested"] {
        assert_line(
            &err,
            &format!(
                "v-meta-types.toml:6: `meta.{key}` must be a string, a finite number or a boolean"
            ),
        );
    }
}
