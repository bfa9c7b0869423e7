//! Errored queries in `compare` (docs/contract.md §6.8): a query a run manifest lists
//! in `errored` (as `record --allow-errors` writes it) is an empty ranking on its
//! side, is flagged in every format, and fails the gate on the candidate's side
//! unless `--errored warn` or `[gate] errored = "warn"`.

use crate::common::{assert_code, fixture, run, stderr, stdout};

fn compare(baseline: &str, candidate: &str, extra: &[&str]) -> std::process::Output {
    crate::common::compare_fixture("compare", baseline, candidate, extra)
}

use crate::common::json_value as json;

#[test]
fn an_errored_candidate_query_is_an_empty_ranking_that_fails_the_gate() {
    // Without `errored`, cand.csv keeps A's relevant doc at rank 2: nothing newly fails.
    let plain = compare("base.toml", "cand.toml", &["--format", "json"]);
    assert_code(&plain, 0);
    let out = compare("base.toml", "errored-cand.toml", &["--format", "json"]);
    assert_code(&out, 1);
    let r = json(&out);
    assert_eq!(r["newly_failed"], serde_json::json!(["A"]));
    assert_eq!(r["candidate"]["errored"], serde_json::json!(["A"]));
    assert!(r["baseline"].get("errored").is_none());
    let a = r["per_query"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == "A")
        .unwrap();
    assert_eq!(a["errored"], "candidate");
    assert_eq!(a["candidate"]["rr"], 0.0);
    assert_eq!(a["failure_kind"], "retrieval");
    // Every other row carries no `errored` key.
    let others = r["per_query"].as_array().unwrap().iter();
    assert!(
        others
            .filter(|q| q["id"] != "A")
            .all(|q| q.get("errored").is_none())
    );
    // It enters every mean: MRR@2 is (0 + 1 + 1 + 1) / 4 against 0.875 without it.
    assert_eq!(r["means"]["rr"]["candidate"], 0.75);
    assert_eq!(plain_mean(&plain), 0.875);
    let codes = r["gate"]["codes"].as_array().unwrap();
    assert!(codes.contains(&"errored".into()), "{codes:?}");
    assert!(codes.contains(&"newly_failed".into()), "{codes:?}");
    let reasons = r["gate"]["reasons"].to_string();
    assert!(
        reasons.contains("the candidate's retriever failed on 1 query (its manifest's `errored`; each counts as an empty ranking): A"),
        "{reasons}"
    );
}

fn plain_mean(out: &std::process::Output) -> f64 {
    json(out)["means"]["rr"]["candidate"].as_f64().unwrap()
}

#[test]
fn an_errored_query_is_flagged_in_every_format() {
    let table = compare("base.toml", "errored-cand.toml", &[]);
    assert_code(&table, 1);
    let text = stdout(&table);
    assert!(
        text.contains("A (retrieval; errored on the candidate"),
        "{text}"
    );
    assert!(text.contains("errored candidate A"), "{text}");
    assert!(
        text.contains("decided by the candidate's manifest: errored (1 query)"),
        "{text}"
    );
    let md = stdout(&compare(
        "base.toml",
        "errored-cand.toml",
        &["--format", "markdown"],
    ));
    assert!(
        md.contains("retrieval · **errored on the candidate**"),
        "{md}"
    );
    assert!(
        md.contains("**Errored on the candidate (empty rankings) (1):** `A`"),
        "{md}"
    );
    assert!(
        md.contains("Decided by the candidate's manifest: errored (1 query)"),
        "{md}"
    );
    let csv = stdout(&compare(
        "base.toml",
        "errored-cand.toml",
        &["--format", "csv"],
    ));
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .ends_with(",lost,gained,no_label_can_rescue,errored")
    );
    let a = csv.lines().find(|l| l.starts_with("A,")).unwrap();
    assert!(a.ends_with(",candidate"), "{a}");
    let b = csv.lines().find(|l| l.starts_with("B,")).unwrap();
    assert!(b.ends_with(','), "{b}");
    let html = stdout(&compare(
        "base.toml",
        "errored-cand.toml",
        &["--format", "html"],
    ));
    assert!(
        html.contains("newly_failed · errored on the candidate"),
        "html"
    );
    assert!(
        html.contains("\"errored\":\"errored on the candidate\""),
        "html"
    );
    let mut cmd = crate::common::ragdiff(fixture("compare"));
    let annotated = cmd
        .env("GITHUB_ACTIONS", "true")
        .args([
            "compare",
            "--gold",
            "gold.toml",
            "--no-config",
            "base.toml",
            "errored-cand.toml",
        ])
        .output()
        .unwrap();
    let err = stderr(&annotated);
    assert!(
        err.contains(
            "::error title=ragdiff%3A errored queries::the candidate's retriever failed on 1 query"
        ),
        "{err}"
    );
    assert!(err.contains("newly failed (retrieval): first relevant rank 1 -> -; lost from top 2: a1; errored on the candidate"), "{err}");
}

#[test]
fn errored_warn_by_flag_or_policy_leaves_only_a_warning() {
    // A still newly fails (the newly failed rule judges it), so allow it to see the
    // errored rule alone.
    let out = compare(
        "base.toml",
        "errored-cand.toml",
        &[
            "--errored",
            "warn",
            "--allow-failed",
            "A",
            "--format",
            "json",
        ],
    );
    assert_code(&out, 0);
    let r = json(&out);
    assert!(
        !r["gate"]["codes"]
            .as_array()
            .unwrap()
            .contains(&"errored".into())
    );
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("the candidate's retriever failed on 1 query (its manifest's `errored`; each counts as an empty ranking): A (--errored warn)"),
        "{warnings}"
    );
    let failing = compare("base.toml", "errored-cand.toml", &["--allow-failed", "A"]);
    assert_code(&failing, 1);
    let dir = crate::common::temp_copy(&fixture("compare"));
    std::fs::write(
        dir.path().join("ragdiff.toml"),
        "[gate]\nerrored = \"warn\"\n",
    )
    .unwrap();
    let args = [
        "compare",
        "--gold",
        "gold.toml",
        "base.toml",
        "errored-cand.toml",
        "--allow-failed",
        "A",
    ];
    assert_code(&run(dir.path(), &args), 0);
    assert_code(
        &run(dir.path(), &[&args[..], &["--errored", "fail"]].concat()),
        1,
    );
    std::fs::write(
        dir.path().join("ragdiff.toml"),
        "[gate]\nerrored = \"maybe\"\n",
    )
    .unwrap();
    let bad = run(dir.path(), &args);
    assert_code(&bad, 2);
    assert!(
        stderr(&bad).contains("ragdiff.toml:2: `errored`: maybe is not \"fail\" or \"warn\""),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn an_errored_baseline_query_warns_and_does_not_fail_the_gate() {
    let out = compare("errored-base.toml", "cand.toml", &["--format", "json"]);
    assert_code(&out, 0);
    let r = json(&out);
    assert_eq!(r["fixed"], serde_json::json!(["C"]));
    assert_eq!(r["baseline"]["errored"], serde_json::json!(["C"]));
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("the baseline's retriever failed on 1 query (its manifest's `errored`): each counts as an empty ranking there, so the candidate cannot newly fail on it and may seem to fix it: C"),
        "{warnings}"
    );
    let row = r["per_query"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == "C")
        .unwrap();
    assert_eq!(row["errored"], "baseline");
    // Errored on both sides; the typed report (every key known) reads it.
    let typed = crate::common::compare_json(
        fixture("compare"),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "--no-config",
            "errored-base.toml",
            "errored-cand.toml",
            "--no-gate",
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(typed.row("A").errored.as_deref(), Some("candidate"));
    assert_eq!(typed.row("C").errored.as_deref(), Some("baseline"));
    assert_eq!(typed.row("B").errored, None);
    assert_eq!(typed.candidate.errored, Some(vec!["A".to_string()]));
    let both = json(&compare(
        "errored-base.toml",
        "errored-cand.toml",
        &["--format", "json", "--no-gate"],
    ));
    assert_eq!(both["baseline"]["errored"], serde_json::json!(["C"]));
    assert_eq!(both["candidate"]["errored"], serde_json::json!(["A"]));
}

#[test]
fn errored_must_be_an_array_of_ids() {
    let out = compare("base.toml", "errored-bad.toml", &[]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("errored-bad.toml:6: `errored` must be an array of query ids"),
        "{}",
        stderr(&out)
    );
}

/// An errored new failure is never offered for the allow-list: its empty ranking says
/// nothing of the index, so the report says to record it again (docs/contract.md §6.8).
#[test]
fn an_errored_new_failure_is_to_record_again_never_to_accept() {
    let table = compare("base.toml", "errored-cand.toml", &[]);
    assert_code(&table, 1);
    let text = stdout(&table);
    assert!(
        text.lines().any(|l| l.starts_with(
            "record again, do not accept: A (errored: the candidate's retriever failed on them"
        )),
        "{text}"
    );
    assert!(!text.contains("to accept them"), "{text}");
    assert!(!text.contains("ragdiff accept"), "{text}");
    let md = compare("base.toml", "errored-cand.toml", &["--format", "markdown"]);
    let text = stdout(&md);
    assert!(
        text.contains("record again, do not accept: `A` (errored:"),
        "{text}"
    );
    assert!(!text.contains("To accept them"), "{text}");
}
