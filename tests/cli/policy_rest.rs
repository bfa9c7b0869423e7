//! The policy's smaller rules (docs/contract.md §8.5, §8.6, §9.5): the `unconfirmed`
//! key, the policy file as an input no export may overwrite, and the FAIL hint that
//! sends suspect new failures to labelling instead of the allow-list.

use crate::common::{assert_code, demo_copy, fixture, run, stderr, stdout};

#[test]
fn an_export_may_not_overwrite_the_policy_in_use() {
    let dir = demo_copy();
    let policy = "[gate]\nsuspects = \"fail\"\n";
    std::fs::write(dir.path().join("ragdiff.toml"), policy).expect("written");
    let out = run(dir.path(), &["compare", "--export-json", "ragdiff.toml"]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("ragdiff.toml") && stderr(&out).contains("--export-json"),
        "{}",
        stderr(&out)
    );
    let kept = std::fs::read_to_string(dir.path().join("ragdiff.toml")).expect("readable");
    assert_eq!(kept, policy);
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn the_unconfirmed_key_matches_the_flag() {
    // One HNSW build under a raised version: its newly failed queries are unconfirmed.
    let real = fixture("verdict/real");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let write =
        |text: &str| std::fs::write(dir.path().join("ragdiff.toml"), text).expect("written");
    write("[gate]\nunconfirmed = \"warn\"\n");
    let gold = crate::common::reference_dir().join("vaswani/qrels");
    let args = |extra: &[&str]| -> std::process::Output {
        let mut all = vec![
            "compare".to_string(),
            "--gold".into(),
            gold.display().to_string(),
            "--k".into(),
            "10".into(),
            real.join("hnsw-1.toml").display().to_string(),
            real.join("hnsw-2.toml").display().to_string(),
        ];
        all.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        run(dir.path(), &refs)
    };
    assert_code(&args(&[]), 0);
    assert_code(&args(&["--unconfirmed", "fail"]), 1);
    write("[gate]\nunconfirmed = \"maybe\"\n");
    let out = args(&[]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("ragdiff.toml:2: `unconfirmed`: maybe is not \"fail\" or \"warn\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_fail_hint_sends_suspect_queries_to_labelling() {
    // The demo's Q-21 newly fails and is suspect (an unjudged doc entered its top 3).
    let out = run(crate::common::crate_dir(), &["compare"]);
    assert_code(&out, 1);
    let text = stdout(&out);
    assert!(!text.contains("to accept them"), "{text}");
    assert!(!text.contains("ragdiff accept"), "{text}");
    assert!(
        text.contains("label first, do not accept: Q-21 (suspect: unjudged docs entered the top 3; --export-label-queue FILE lists the docs to judge)"),
        "{text}"
    );
    let md = run(
        crate::common::crate_dir(),
        &["compare", "--format", "markdown"],
    );
    assert!(
        stdout(&md).contains("label first, do not accept: `Q-21`"),
        "{}",
        stdout(&md)
    );
    // With the swapped runs, Q-23 and Q-24 newly fail and are not suspect: accepted.
    let swapped = run(
        crate::common::crate_dir(),
        &["compare", "runs/candidate.toml", "runs/baseline.toml"],
    );
    assert!(
        stdout(&swapped).contains("to accept them, add to runs/accepted-failures.csv:"),
        "{}",
        stdout(&swapped)
    );
    assert!(
        !stdout(&swapped).contains("label first"),
        "{}",
        stdout(&swapped)
    );
}
