//! `ragdiff compare`: the demo, the comparability guard (docs/contract.md §6.1), exit-code
//! precedence (§11), every gate option (§8), and two seeded
//! synthetic Vaswani runs checked against metrics computed here, independently.
//!
//! Fixtures live in tests/fixtures/compare/ (see its README.md); the demo is the
//! repository's own `gold/` and `runs/`, used read-only.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rstest::rstest;

use crate::common::{
    Bump, COMPARE_CASE_JSON, CompareJson, DEMO_ALLOWED_JSON, FailureKind, Status, assert_close,
    assert_code, assert_invalid, assert_line, compare_json, crate_dir, fixture, ragdiff_snapshot,
    reference_dir, render, run, slug, stderr, stdout, with,
};

const REFUSED: &str = "error: refusing to compare: the runs are not comparable";
const FEW_QUERIES: &str = "only 8 queries with a relevant doc are compared";

/// The small fixture's folder: `ragdiff` runs from here, so messages show short names.
fn small() -> PathBuf {
    fixture("compare")
}

/// `compare --gold gold.toml BASELINE CANDIDATE EXTRA…` in the small fixture.
fn small_args<'a>(baseline: &'a str, candidate: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["compare", "--gold", "gold.toml", baseline, candidate];
    args.extend_from_slice(extra);
    args
}

/// The difference lines of a refusal: the indented lines after the error line.
fn difference_lines(err: &str) -> Vec<String> {
    err.lines()
        .skip_while(|l| *l != REFUSED)
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect()
}

// ---------------------------------------------------------------------------------
// The demo

/// `ragdiff compare` alone at the repository root: exit 1 (Q-21 newly fails), the
/// table on stdout and the few-queries warning on stderr, pinned together.
#[test]
fn demo() {
    let out = run(crate_dir(), &["compare"]);
    assert_code(&out, 1);
    insta::assert_snapshot!(render(&out));
}

/// `RAGDIFF_TIMINGS` (for benchmarks, README "Performance") adds one line per phase
/// on stderr, names and seconds only; stdout and the exit code do not change, and
/// without it stderr has no such line.
#[test]
fn timings_name_each_phase_on_stderr_only_when_asked() {
    let plain = run(crate_dir(), &["compare", "--format", "json"]);
    let timed = crate::common::ragdiff(crate_dir())
        .args(["compare", "--format", "json"])
        .env("RAGDIFF_TIMINGS", "1")
        .output()
        .expect("ragdiff runs");
    assert_code(&timed, 1);
    assert_eq!(timed.stdout, plain.stdout);
    let stderr = String::from_utf8_lossy(&timed.stderr);
    let phases: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("timing: "))
        .map(|l| l.split(" done at ").next().unwrap_or(""))
        .collect();
    assert_eq!(
        phases,
        [
            "inputs",
            "read",
            "compare",
            "segments, drift, cutoffs",
            "suspects",
            "report",
            "outputs"
        ]
    );
    assert!(!String::from_utf8_lossy(&plain.stderr).contains("timing: "));
}

/// The demo's JSON, read back as typed values: every status of the demo data.
/// Values on the candidate side are means over its three repeats (contract §2.12);
/// Q-18 is the only query whose repeats disagree.
#[test]
fn demo_json_has_every_status() {
    let r = compare_json(crate_dir(), &["compare", "--format", "json"], 1);
    assert_eq!(r.schema_version, "2.3.0");
    assert_eq!(r.k, 3);
    assert_eq!(r.bump, Bump::Minor, "2.3.0 -> 2.4.0");
    assert_eq!((r.resamples, r.seed), (None, 0), "the default statistics");
    assert!(!r.reproducibility_check);
    assert!(r.nondeterministic.is_empty());
    assert!(
        !r.notes.iter().any(|n| n.contains("tie-break")),
        "the demo's CSV runs have no tie order to note: {:?}",
        r.notes
    );
    assert_eq!(r.gold.name, "demo");
    assert!(r.gold.frozen);
    assert_eq!(r.gold.version.as_deref(), Some("1.1.0"));
    assert_eq!(r.gold.queries, 9);
    assert_eq!(r.baseline.index_version.as_deref(), Some("2.3.0"));
    assert_eq!(r.candidate.index_version.as_deref(), Some("2.4.0"));
    assert_eq!(r.baseline.depth, 5);
    assert_eq!(
        r.baseline.filters.get("access").map(String::as_str),
        Some("public")
    );

    // D-9 moves from rank 2 to rank 4, below k = 3 but still returned.
    let q21 = r.row("Q-21");
    assert_eq!(q21.status, Status::NewlyFailed);
    assert_eq!(q21.failure_kind, Some(FailureKind::Ranking));
    assert_eq!(q21.lost, ["D-9"]);
    assert!(q21.gained.is_empty());
    assert_eq!(q21.baseline.first_relevant_rank, Some(2));
    assert_eq!(q21.candidate.first_relevant_rank, Some(4));
    assert_close(q21.delta.rr, -0.5, "Q-21 delta RR");
    // D-2 from rank 1 to rank 2, still within k.
    let q22 = r.row("Q-22");
    assert_eq!(q22.status, Status::Regressed);
    assert_close(q22.candidate.rr, 0.5, "Q-22 candidate RR");
    // its relevant doc D-16 is returned by neither run.
    let q27 = r.row("Q-27");
    assert_eq!(q27.status, Status::StillFailing);
    assert_eq!(q27.candidate.first_relevant_rank, None);
    // D-7 first in two candidate repeats, fourth in the other: flaky, not
    // newly failed, with the mean of the three repeats as its candidate value.
    let q18 = r.row("Q-18");
    assert_eq!(q18.status, Status::Flaky);
    assert!(q18.candidate_flaky && !q18.baseline_flaky);
    assert_eq!(
        (q18.baseline_zero_rr_repeats, q18.candidate_zero_rr_repeats),
        (0, 1)
    );
    assert_close(
        q18.candidate.rr,
        2.0 / 3.0,
        "Q-18 candidate RR over 3 repeats",
    );
    assert_eq!(q18.candidate.first_relevant_rank, Some(1), "first repeat");
    // D-1 enters the top 3.
    let q17 = r.row("Q-17");
    assert_eq!(q17.status, Status::Improved);
    assert_eq!(q17.gained, ["D-1"]);
    assert!(q17.lost.is_empty());
    assert_close(q17.delta.recall, 0.5, "Q-17 delta recall");
    assert_eq!(r.row("Q-23").status, Status::Fixed);
    // D-11 enters at rank 1 ahead of the two docs judged not relevant.
    let q24 = r.row("Q-24");
    assert_eq!(q24.status, Status::Fixed);
    assert_eq!(q24.gained, ["D-11"]);
    // only the baseline's second repeat orders it otherwise (drift, not a
    // change of any metric at k).
    assert_eq!(r.row("Q-25").status, Status::Unchanged);
    for row in &r.per_query {
        if row.status != Status::NewlyFailed {
            assert_eq!(row.failure_kind, None, "{}: failure_kind", row.id);
        }
    }

    // Q-26 has no relevant doc: listed apart, not a row.
    assert_eq!(r.no_answer, ["Q-26"]);
    assert!(r.per_query.iter().all(|q| q.id != "Q-26"));
    assert!(
        r.per_query.iter().all(|q| !q.id.starts_with("U-")),
        "unlabelled queries enter drift only"
    );
    assert_eq!(r.per_query.len(), 8, "JSON lists unchanged queries too");
    // §6.2 and §2.12's order: newly_failed, regressed, still_failing, flaky, improved,
    // fixed, unchanged; fixed tie on ΔRR and ΔRecall, then by id.
    let order: Vec<&str> = r.per_query.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(
        order,
        [
            "Q-21", "Q-22", "Q-27", "Q-18", "Q-17", "Q-23", "Q-24", "Q-25"
        ]
    );

    assert_eq!(r.newly_failed, ["Q-21"]);
    assert_eq!(r.fixed, ["Q-23", "Q-24"]);
    assert_eq!(r.still_failing, ["Q-27"]);
    assert_eq!(r.flaky, ["Q-18"]);
    assert!(r.accepted.is_empty());
    assert_eq!(
        (r.zero_rr.baseline, r.zero_rr.candidate, r.zero_rr.delta),
        (3, 2, -1),
        "Q-23, Q-24 and Q-27 -> Q-21 and Q-27 (flaky Q-18 averages 2/3)"
    );

    // Means over the 8 answerable queries: the mean improves while Q-21 fails.
    assert_close(r.means.rr.baseline, 4.5 / 8.0, "baseline MRR@3");
    assert_close(r.means.rr.candidate, (31.0 / 6.0) / 8.0, "candidate MRR@3");
    assert_close(r.means.rr.delta, 1.0 / 12.0, "delta MRR@3");
    assert_close(r.means.recall.delta, 7.0 / 48.0, "delta Recall@3");
    for (name, m) in [
        ("rr", &r.means.rr),
        ("recall", &r.means.recall),
        ("hit", &r.means.hit),
        ("ndcg", &r.means.ndcg),
    ] {
        let (lo, hi, p) = (m.ci_low, m.ci_high, m.p_value);
        assert!(
            lo <= m.delta && m.delta <= hi,
            "{name}: CI [{lo}, {hi}] vs {}",
            m.delta
        );
        assert!(p > 0.0 && p <= 1.0, "{name}: p = {p}");
        assert_close(m.delta, m.candidate - m.baseline, name);
    }
    // P and AP have no statistics: their type (MeanJson) has no such keys and
    // refuses unknown ones.

    assert!(!r.gate.passed);
    assert!(r.gate.enforced);
    assert_eq!(r.gate.reasons.len(), 1, "{:?}", r.gate.reasons);
    assert!(r.gate.reasons[0].contains("Q-21"), "{:?}", r.gate.reasons);
    assert!(
        r.warnings.iter().any(|w| w.contains(FEW_QUERIES)),
        "{:?}",
        r.warnings
    );
}

/// The demo tells four stories at once (contract §6.3, §6.5, §6.6): Q-21's failure is
/// suspect (an unjudged doc entered its top 3, and its gold judges D-4 not
/// relevant); the billing segment loses while the mean gains; Q-18 fails in one of
/// three candidate repeats only; three unlabelled queries drift, U-3 most.
#[test]
fn demo_shows_suspect_segment_flaky_and_drift() {
    let r = compare_json(crate_dir(), &["compare", "--format", "json"], 1);

    // Label holes: D-1 was in the baseline's top 3 already, D-3 entered.
    assert_eq!(r.suspect, ["Q-21"]);
    let q21 = r.row("Q-21");
    assert!(q21.suspect);
    assert_eq!(q21.unjudged_entered, 1);
    assert_eq!(
        (q21.baseline_unjudged_at_k, q21.candidate_unjudged_at_k),
        (1, 2)
    );
    assert!(
        r.per_query
            .iter()
            .filter(|q| q.id != "Q-21")
            .all(|q| !q.suspect)
    );
    assert_eq!(
        r.gate.reasons,
        ["1 query newly failed (1 suspect: label first; RR@3 fell to 0): Q-21"]
    );
    assert!(
        !r.notes.iter().any(|n| n.contains("relevant docs only")),
        "the demo gold judges docs not relevant: {:?}",
        r.notes
    );
    assert!(r.means.judged.delta > 0.0, "{:?}", r.means.judged);

    // Segments: the worst first; intent:billing drops, the overall mean rises.
    let billing = &r.segments[0];
    assert_eq!(billing.tag, "intent:billing");
    assert_eq!((billing.queries, billing.too_few), (3, true));
    assert_close(billing.means.rr.baseline, 2.5 / 3.0, "billing MRR@3 before");
    assert_close(billing.means.rr.candidate, 1.5 / 3.0, "billing MRR@3 after");
    assert_eq!(billing.newly_failed, ["Q-21"]);
    assert!(r.means.rr.delta > 0.0);
    assert!(
        r.segments[1..].iter().all(|s| s.means.rr.delta >= 0.0),
        "one segment regresses: {:?}",
        r.segments.iter().map(|s| &s.tag).collect::<Vec<_>>()
    );
    assert_eq!(r.segments.len(), 6);

    // Repeats: 2 and 3 files; Q-18 is flaky and neither newly failed nor gating.
    assert_eq!((r.baseline.repeats, r.candidate.repeats), (2, 3));
    assert_eq!(r.baseline.results, "baseline.csv", "the first repeat");
    assert_eq!(r.flaky, ["Q-18"]);
    assert!(!r.newly_failed.contains(&"Q-18".to_string()));

    // Drift: 9 gold queries (no-answer Q-26 included) and 3 unlabelled ones.
    assert_eq!(r.drift.unlabelled_queries, 3);
    let moved: Vec<(&str, f64)> = r
        .drift
        .most_changed_unlabelled
        .iter()
        .map(|m| (m.id.as_str(), m.rbo))
        .collect();
    assert_eq!(moved.len(), 3);
    for ((id, rbo), (want_id, want)) in moved.iter().zip([("U-3", 0.0), ("U-2", 0.9), ("U-1", 1.0)])
    {
        assert_eq!(*id, want_id);
        assert_close(*rbo, want, id);
    }
    assert_close(
        r.drift.unlabelled_mean_rbo.expect("unlabelled queries"),
        1.9 / 3.0,
        "unlabelled mean RBO",
    );
    // Every repeat holds the three unlabelled queries: said once per run, for its
    // first file, with how many other repeats gave the same warning.
    for (file, others) in [
        ("baseline", "1 other repeat"),
        ("candidate", "2 other repeats"),
    ] {
        let want = format!("runs/{file}.csv: 3 run queries are not in the gold set");
        let tail = format!("U-1, U-2, U-3 (the same in {others})");
        assert!(
            r.warnings
                .iter()
                .any(|w| w.starts_with(&want) && w.ends_with(&tail)),
            "{want}: {:?}",
            r.warnings
        );
    }
    assert!(
        !r.warnings
            .iter()
            .any(|w| w.contains("-2.csv") || w.contains("-3.csv")),
        "{:?}",
        r.warnings
    );
}

/// The exact JSON keys (docs/contract.md §10.3), checked on the untyped value: no key missing and
/// none extra where the issue lists them all.
#[test]
fn demo_json_keys() {
    let out = run(crate_dir(), &["compare", "--format", "json"]);
    assert_code(&out, 1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let keys = |v: &serde_json::Value| -> BTreeSet<String> {
        v.as_object()
            .unwrap_or_else(|| panic!("not an object: {v}"))
            .keys()
            .cloned()
            .collect()
    };
    let set =
        |names: &[&str]| -> BTreeSet<String> { names.iter().map(|s| s.to_string()).collect() };

    let top = keys(&v);
    for key in [
        "schema_version",
        "gold",
        "baseline",
        "candidate",
        "k",
        "bump",
        "reproducibility_check",
        "nondeterministic",
        "means",
        "zero_rr",
        "per_query",
        "newly_failed",
        "fixed",
        "still_failing",
        "flaky",
        "no_label_can_rescue",
        "drift",
        "accepted",
        "no_answer",
        "warnings",
        "gate",
    ] {
        assert!(top.contains(key), "top-level key {key} missing: {top:?}");
    }
    assert_eq!(
        keys(&v["gold"]),
        set(&[
            "name",
            "version",
            "frozen_at",
            "sha256",
            "frozen",
            "corpus",
            "queries",
            "relevant_per_query"
        ])
    );
    for side in ["baseline", "candidate"] {
        assert_eq!(
            keys(&v[side]),
            set(&[
                "index_version",
                "corpus",
                "depth",
                "filters",
                "results",
                "repeats"
            ]),
            "{side}"
        );
    }
    let stats = set(&[
        "baseline",
        "candidate",
        "delta",
        "ci_low",
        "ci_high",
        "ci_method",
        "p_value",
        "p_method",
        // Null for the demo's exact tests, but always there (schema 2.0.0).
        "p_mc_se",
        "resamples",
        "p_adjusted",
        "family",
        "correction",
        "effect_size",
        "mde",
        "mde_alpha",
    ]);
    let plain = set(&["baseline", "candidate", "delta"]);
    assert_eq!(
        keys(&v["means"]),
        set(&[
            "rr",
            "recall",
            "hit",
            "ndcg",
            "precision",
            "ap",
            "judged",
            "upper",
            "unjudged_as_relevant"
        ])
    );
    let sides = set(&["baseline", "candidate"]);
    for m in ["rr", "recall", "hit", "precision"] {
        assert_eq!(keys(&v["means"]["upper"][m]), sides, "means.upper.{m}");
    }
    for m in ["ndcg", "ap"] {
        let got = keys(&v["means"]["unjudged_as_relevant"][m]);
        assert_eq!(got, sides, "means.unjudged_as_relevant.{m}");
    }
    for m in ["rr", "recall", "hit", "ndcg"] {
        assert_eq!(keys(&v["means"][m]), stats, "means.{m}");
    }
    for m in ["precision", "ap", "judged"] {
        assert_eq!(keys(&v["means"][m]), plain, "means.{m}");
    }
    assert_eq!(keys(&v["zero_rr"]), plain);
    let scores = set(&[
        "first_relevant_rank",
        "rr",
        "recall",
        "hit",
        "precision",
        "ndcg",
        "ap",
    ]);
    let deltas = set(&["rr", "recall", "hit", "precision", "ndcg", "ap"]);
    let rows = v["per_query"].as_array().expect("per_query is an array");
    assert_eq!(rows.len(), 8);
    for row in rows {
        assert_eq!(
            keys(row),
            set(&[
                "id",
                "status",
                "baseline",
                "candidate",
                "delta",
                "failure_kind",
                "lost",
                "gained",
                "baseline_unjudged_at_k",
                "candidate_unjudged_at_k",
                "unjudged_entered",
                "suspect",
                "baseline_flaky",
                "candidate_flaky",
                "baseline_zero_rr_repeats",
                "candidate_zero_rr_repeats",
                "rbo",
                "upper",
                "unjudged_as_relevant",
                "no_label_can_rescue"
            ])
        );
        assert_eq!(keys(&row["baseline"]), scores);
        assert_eq!(keys(&row["candidate"]), scores);
        assert_eq!(keys(&row["delta"]), deltas);
        assert!(row["lost"].is_array() && row["gained"].is_array());
    }
    let q27 = rows.iter().find(|r| r["id"] == "Q-27").expect("Q-27");
    assert!(q27["failure_kind"].is_null(), "null unless newly failed");
    assert!(q27["baseline"]["first_relevant_rank"].is_null());
    for list in [
        "newly_failed",
        "fixed",
        "still_failing",
        "no_answer",
        "warnings",
        "nondeterministic",
    ] {
        let items = v[list]
            .as_array()
            .unwrap_or_else(|| panic!("{list} is an array"));
        assert!(items.iter().all(|i| i.is_string()), "{list} holds strings");
    }
    assert!(
        v["accepted"]
            .as_array()
            .expect("accepted is an array")
            .is_empty()
    );
    let gate = keys(&v["gate"]);
    assert!(
        gate.contains("passed") && gate.contains("reasons"),
        "{gate:?}"
    );
    assert_eq!(v["bump"], "minor");
    assert_eq!(v["reproducibility_check"], false);
}

// ---------------------------------------------------------------------------------
// Refusals (exit 3), every difference listed

#[rstest]
#[case::corpus_differs(
    "base.toml",
    "other-corpus.toml",
    &[
        "corpus:  baseline small-questions, candidate other-questions",
        "corpus:  gold small-questions, candidate other-questions (the run answered other questions)",
    ]
)]
#[case::gold_corpus_differs(
    "other-corpus-base.toml",
    "other-corpus.toml",
    &[
        "corpus:  gold small-questions, baseline other-questions (the run answered other questions)",
        "corpus:  gold small-questions, candidate other-questions (the run answered other questions)",
    ]
)]
#[case::filter_only_in_candidate("base.toml", "filters-extra.toml", &["filters: lang=ru only in candidate"])]
#[case::filter_only_in_baseline("filters-extra.toml", "base.toml", &["filters: lang=ru only in baseline"])]
#[case::no_filters_in_candidate("base.toml", "no-filters.toml", &["filters: access=public only in baseline"])]
#[case::filter_value_differs(
    "base.toml",
    "filters-value.toml",
    &["filters: access: baseline public, candidate internal"]
)]
#[case::depth_differs("base.toml", "depth.toml", &["depth:   baseline 4, candidate 10 (--depth N compares both at a common depth N <= 4)"])]
#[case::several_differences(
    "base.toml",
    "several.toml",
    &[
        "corpus:  baseline small-questions, candidate other-questions",
        "corpus:  gold small-questions, candidate other-questions (the run answered other questions)",
        "depth:   baseline 4, candidate 10 (--depth N compares both at a common depth N <= 4)",
        "filters: access: baseline public, candidate internal",
        "filters: lang=ru only in candidate",
    ]
)]
fn refuses_incomparable_runs(
    #[case] baseline: &str,
    #[case] candidate: &str,
    #[case] expected: &[&str],
) {
    for no_gate in [false, true] {
        let extra: &[&str] = if no_gate { &["--no-gate"] } else { &[] };
        let out = run(small(), &small_args(baseline, candidate, extra));
        assert_code(&out, 3);
        let err = stderr(&out);
        assert_line(&err, REFUSED);
        assert_eq!(
            difference_lines(&err),
            expected,
            "every difference, in one message:\n{err}"
        );
        assert!(
            stdout(&out).is_empty(),
            "no report on a refusal:\n{}",
            render(&out)
        );
    }
}

/// Several differences at once are all listed in one message, pinned whole.
#[test]
fn several_differences_in_one_message() {
    let out = run(small(), &small_args("base.toml", "several.toml", &[]));
    assert_code(&out, 3);
    insta::assert_snapshot!(render(&out));
}

// ---------------------------------------------------------------------------------
// Same index version: a reproducibility check

/// `compare base.toml CANDIDATE` at the same index version, as JSON: a
/// reproducibility check that finds nothing non-deterministic and passes.
#[track_caller]
fn reproduced(candidate: &str) -> CompareJson {
    let r = compare_json(
        small(),
        &small_args("base.toml", candidate, &["--format", "json"]),
        0,
    );
    assert!(r.reproducibility_check);
    assert_eq!(r.bump, Bump::Same);
    assert!(r.nondeterministic.is_empty());
    assert!(r.gate.passed, "{:?}", r.gate.reasons);
    r
}

#[test]
fn same_version_identical_lists_pass_the_reproducibility_check() {
    let r = reproduced("same.toml");
    assert!(r.per_query.iter().all(|q| q.status == Status::Unchanged));
}

/// B's list comes back in another order on the same index version: RR, Recall and
/// nDCG do not move, so this is drift, not non-deterministic retrieval, and the gate
/// passes (docs/contract.md §6.5; before, any other list failed it).
#[test]
fn same_version_reordered_list_is_drift_not_a_failure() {
    let r = reproduced("same-reordered.toml");
    assert_eq!(
        r.row("B").status,
        Status::Unchanged,
        "order only: same metrics"
    );
    assert!(r.row("B").rbo.is_some_and(|x| x < 1.0), "B drifted");
}

#[test]
fn lower_candidate_version_warns_that_the_arguments_may_be_swapped() {
    let out = run(
        small(),
        &small_args("cand.toml", "older.toml", &["--format", "json"]),
    );
    let r: CompareJson = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r.bump, Bump::Older);
    assert!(!r.reproducibility_check);
    let warning = "the candidate's index version 0.9.0 is lower than the baseline's 1.1.0: are baseline and candidate swapped?";
    assert!(r.warnings.iter().any(|w| w == warning), "{:?}", r.warnings);
    ragdiff_snapshot!(&out);
}

// ---------------------------------------------------------------------------------
// Exit-code precedence (docs/contract.md §11): 2 over 3 over 1; --no-gate hides neither

/// Invalid input together with incomparable runs (depth 4 vs 10) is exit 2, whichever
/// input is invalid, and `--no-gate` changes nothing.
#[rstest]
#[case::malformed_max_drop("gold.toml", "depth.toml", &["--max-drop", "mrr"])]
#[case::unfrozen_gold_required("gold-unfrozen.toml", "depth.toml", &["--require-frozen"])]
#[case::k_with_a_gold_that_pins_k("gold.toml", "depth.toml", &["--k", "2"])]
#[case::allow_listed_id_not_in_gold("gold.toml", "depth.toml", &["--allow-failed", "Z"])]
#[case::duplicate_doc_in_a_ranking("gold.toml", "duplicate-doc-depth.toml", &[])]
fn invalid_input_wins_over_incomparable_runs(
    #[case] gold: &str,
    #[case] candidate: &str,
    #[case] extra: &[&str],
) {
    for no_gate in [false, true] {
        let mut args = vec!["compare", "--gold", gold, "base.toml", candidate];
        args.extend_from_slice(extra);
        if no_gate {
            args.push("--no-gate");
        }
        let out = run(small(), &args);
        assert_code(&out, 2);
        assert!(
            stderr(&out).contains("error: invalid input"),
            "{}",
            render(&out)
        );
    }
}

/// A refusal wins over a gate failure: `--max-drop mrr=0` fails the gate on the
/// candidate's results (MRR@2 drops by 0.125), but the depth differs.
#[test]
fn refusal_wins_over_gate_failure() {
    let out = run(
        small(),
        &small_args("base.toml", "cand.toml", &["--max-drop", "mrr=0"]),
    );
    assert_code(&out, 1);
    let out = run(
        small(),
        &small_args("base.toml", "depth.toml", &["--max-drop", "mrr=0"]),
    );
    assert_code(&out, 3);
}

/// `--no-gate` reports the failing demo but exits 0; the report still says FAIL and
/// that it was not enforced.
#[test]
fn no_gate_turns_a_gate_failure_into_exit_0() {
    let out = run(crate_dir(), &["compare", "--no-gate"]);
    assert_code(&out, 0);
    let first = stdout(&out).lines().next().unwrap_or_default().to_string();
    assert!(
        first.starts_with("FAIL") && first.contains("not enforced"),
        "{first}"
    );
    let r = compare_json(
        crate_dir(),
        &["compare", "--no-gate", "--format", "json"],
        0,
    );
    assert!(!r.gate.passed);
    assert!(!r.gate.enforced);
    assert_eq!(r.newly_failed, ["Q-21"]);
}

// ---------------------------------------------------------------------------------
// Gate options

/// The small fixture's candidate: MRR@2, Recall@2 and P@2 each drop by exactly 0.125,
/// nDCG@2 by 0.189, MAP by 0.1667, Hit@2 not at all; nothing newly fails. A drop
/// exactly at the threshold passes.
#[rstest]
#[case::none(&[], 0, &[])]
#[case::mrr_fails(&["mrr=0.1"], 1, &["mean MRR@2 dropped by 0.1250, more than the allowed 0.1"])]
#[case::rr_alias_fails(&["rr=0.1"], 1, &["mean MRR@2 dropped by 0.1250, more than the allowed 0.1"])]
#[case::mrr_exactly_at_threshold(&["mrr=0.125"], 0, &[])]
#[case::mrr_passes(&["mrr=0.2"], 0, &[])]
#[case::recall_fails(&["recall=0.12"], 1, &["mean Recall@2 dropped by 0.1250, more than the allowed 0.12"])]
#[case::recall_exactly_at_threshold(&["recall=0.125"], 0, &[])]
#[case::hit_zero_passes(&["hit=0"], 0, &[])]
#[case::precision_fails(&["precision=0.1"], 1, &["mean P@2 dropped by 0.1250, more than the allowed 0.1"])]
#[case::precision_exactly_at_threshold(&["precision=0.125"], 0, &[])]
#[case::ndcg_fails(&["ndcg=0.1"], 1, &["mean nDCG@2 dropped by 0.1890, more than the allowed 0.1"])]
#[case::ndcg_passes(&["ndcg=0.19"], 0, &[])]
#[case::ap_fails(&["ap=0.1"], 1, &["mean MAP dropped by 0.1667, more than the allowed 0.1"])]
#[case::ap_passes(&["ap=0.2"], 0, &[])]
#[case::several_all_named(
    &["mrr=0.1", "hit=0", "ndcg=0.1", "recall=0.5"],
    1,
    &[
        "mean MRR@2 dropped by 0.1250, more than the allowed 0.1",
        "mean nDCG@2 dropped by 0.1890, more than the allowed 0.1",
    ]
)]
fn max_drop(#[case] drops: &[&str], #[case] expected: i32, #[case] reasons: &[&str]) {
    let mut extra = vec!["--format", "json"];
    for d in drops {
        extra.extend(["--max-drop", d]);
    }
    let r = compare_json(
        small(),
        &small_args("base.toml", "cand.toml", &extra),
        expected,
    );
    assert!(r.newly_failed.is_empty());
    assert_eq!(r.gate.passed, expected == 0);
    assert_eq!(r.gate.reasons, reasons);
}

/// On the demo no overall mean drops (MRR@3 and Hit@3 gain 1/12), so `--max-drop
/// mrr=0 --max-drop hit=0` passes with Q-21 accepted; the billing segment's drop
/// (MRR@3 0.8333 -> 0.5000 over 3 queries) is caught only per segment, once
/// segments of 3 are tested.
#[test]
fn max_drop_zero_on_the_demo_passes_while_a_segment_drops() {
    let mean_gate = [
        "compare",
        "--format",
        "json",
        "--max-drop",
        "mrr=0",
        "--max-drop",
        "hit=0",
        "--allow-failed",
        "Q-21",
    ];
    let r = compare_json(crate_dir(), &mean_gate, 0);
    assert_close(r.means.rr.delta, 1.0 / 12.0, "delta MRR@3");
    assert_close(r.means.hit.delta, 1.0 / 12.0, "delta Hit@3");
    assert!(r.gate.passed, "{:?}", r.gate.reasons);

    let mut per_segment = mean_gate.to_vec();
    per_segment.extend([
        "--min-segment-queries",
        "3",
        "--max-drop-per-segment",
        "mrr=0.3",
    ]);
    let r = compare_json(crate_dir(), &per_segment, 1);
    assert_eq!(
        r.gate.reasons,
        ["segment intent:billing: mean MRR@3 dropped by 0.3333, more than the allowed 0.3"]
    );
}

#[rstest]
#[case::no_value("mrr")]
#[case::empty_value("mrr=")]
#[case::unknown_metric("foo=0.1")]
#[case::no_metric("=0.1")]
#[case::negative("mrr=-0.1")]
#[case::not_a_number("mrr=abc")]
#[case::nan("recall=NaN")]
#[case::infinite("ndcg=inf")]
fn max_drop_malformed_is_exit_2(#[case] value: &str) {
    let out = run(
        small(),
        &small_args("base.toml", "cand.toml", &["--max-drop", value]),
    );
    ragdiff_snapshot!(
        format!("max_drop_malformed_is_exit_2-{}", slug(value)),
        &out
    );
    assert!(stdout(&out).is_empty());
}

/// Every problem of the command line at once: two malformed values, both listed.
#[test]
fn max_drop_every_malformed_value_is_listed() {
    let out = run(
        small(),
        &small_args(
            "base.toml",
            "cand.toml",
            &["--max-drop", "foo=1", "--max-drop", "mrr=-1"],
        ),
    );
    assert_invalid(
        &out,
        &[
            "--max-drop: unknown measure `foo`; a gate rule takes rr (mrr), recall, hit, precision (p), ndcg or ap (map) at the gold's k, or a measure by name: RR@k, R@k, P@k, nDCG@k, AP, AP@k, Rprec (or RPrec), Bpref, Judged@k, Success@k; RR, R, nDCG and AP also without @k (the whole list); (rel=N) after RR, R, P, AP, Rprec, Bpref or Success; (judged_only=True) after RR, R, P, nDCG, AP, Rprec or Success",
            "--max-drop mrr=-1: the value must be a number >= 0 (an absolute drop of the mean)",
        ],
    );
}

#[test]
fn allow_failed_accepts_the_newly_failed_query() {
    let r = compare_json(
        crate_dir(),
        &["compare", "--format", "json", "--allow-failed", "Q-21"],
        0,
    );
    assert!(r.gate.passed, "{:?}", r.gate.reasons);
    assert!(r.gate.reasons.is_empty());
    assert_eq!(r.newly_failed, ["Q-21"], "still listed as newly failed");
    assert_eq!(
        r.accepted,
        [crate::common::AcceptedJson {
            id: "Q-21".into(),
            reason: "--allow-failed".into(),
            index_version: None,
            accepted_at: None,
        }]
    );
    let out = run(crate_dir(), &["compare", "--allow-failed", "Q-21"]);
    assert_code(&out, 0);
    let first = stdout(&out).lines().next().unwrap_or_default().to_string();
    assert!(
        first.starts_with("PASS") && first.contains("Q-21"),
        "{first}"
    );
}

#[test]
fn allow_failed_file_accepts_with_its_reason() {
    let r = compare_json(crate_dir(), &DEMO_ALLOWED_JSON, 0);
    assert!(r.gate.passed, "{:?}", r.gate.reasons);
    assert_eq!(r.accepted.len(), 1);
    assert_eq!(r.accepted[0].id, "Q-21");
    assert!(
        r.accepted[0]
            .reason
            .starts_with("demo: the candidate ranks D-9 fourth"),
        "{:?}",
        r.accepted[0]
    );
    // without the allow-list, the same comparison fails
    assert_code(&run(crate_dir(), &["compare"]), 1);
}

#[test]
fn allow_failed_id_not_in_the_gold_is_exit_2() {
    let out = run(
        crate_dir(),
        &[
            "compare",
            "--allow-failed",
            "Q-21",
            "--allow-failed",
            "Q-99",
        ],
    );
    assert_invalid(
        &out,
        &[
            "--allow-failed: allow-listed query Q-99 is not in the gold set; check the id or remove it from the allow-list",
        ],
    );
}

#[test]
fn allow_failed_file_id_not_in_the_gold_is_exit_2_with_file_and_line() {
    let out = run(
        crate_dir(),
        &[
            "compare",
            "--allow-failed-file",
            "tests/fixtures/compare/allow-unknown.csv",
        ],
    );
    assert_invalid(
        &out,
        &[
            "tests/fixtures/compare/allow-unknown.csv:3: allow-listed query Q-99 is not in the gold set; check the id or remove it from the allow-list",
        ],
    );
}

/// Q-22 regressed but did not newly fail: allow-listing it warns and accepts nothing.
#[test]
fn allow_listed_id_that_did_not_newly_fail_warns() {
    let out = run(
        crate_dir(),
        &[
            "compare",
            "--format",
            "json",
            "--allow-failed",
            "Q-21",
            "--allow-failed",
            "Q-22",
        ],
    );
    assert_code(&out, 0);
    let r: CompareJson = serde_json::from_slice(&out.stdout).expect("JSON");
    let warning = "allow-listed query Q-22 did not newly fail; remove it from the allow-list";
    assert!(r.warnings.iter().any(|w| w == warning), "{:?}", r.warnings);
    assert_line(&stderr(&out), &format!("warning: {warning}"));
    assert_eq!(r.accepted.len(), 1);
    assert_eq!(r.accepted[0].id, "Q-21");
}

/// 32 queries all drop from RR 1 to 0.5 (none newly fails): significant for MRR and
/// nDCG (p = 1/1001), not for Recall and Hit, which do not move.
#[test]
fn fail_on_significant_drop_fails_when_every_query_drops() {
    let args = COMPARE_CASE_JSON;
    let dir = fixture("compare/drop30");
    let plain = compare_json(&dir, &args, 0);
    assert!(plain.gate.passed);
    assert!(plain.newly_failed.is_empty());
    assert_eq!(plain.per_query.len(), 32);

    let mut with_flag = args.to_vec();
    with_flag.push("--fail-on-significant-drop");
    let r = compare_json(&dir, &with_flag, 1);
    assert!(r.newly_failed.is_empty());
    assert_close(r.means.rr.delta, -0.5, "delta MRR@3");
    let p = r.means.rr.p_value;
    // docs/contract.md §7: 30 moved queries, so a Monte Carlo p of 10,000 draws.
    assert_eq!(r.means.rr.resamples, Some(10_000));
    assert_close(p, 1.0 / 10_001.0, "p of RR with 10,000 resamples");
    // docs/contract.md §7.1: Holm over the four tested metrics (two at p = 1).
    assert_close(
        r.means.rr.p_adjusted,
        4.0 / 10_001.0,
        "Holm-adjusted p of RR",
    );
    assert_eq!(
        r.gate.reasons,
        [
            "mean MRR@3 dropped significantly: -0.5000, adjusted p = 0.0004 < 0.05 (Holm)",
            "mean nDCG@3 dropped significantly: -0.3691, adjusted p = 0.0004 < 0.05 (Holm)",
        ]
    );
}

/// On the demo nothing drops significantly: with Q-21 accepted, the flag passes.
#[test]
fn fail_on_significant_drop_passes_on_the_demo() {
    let r = compare_json(
        crate_dir(),
        &[
            "compare",
            "--format",
            "json",
            "--fail-on-significant-drop",
            "--allow-failed",
            "Q-21",
        ],
        0,
    );
    assert!(r.gate.passed, "{:?}", r.gate.reasons);
    let r = compare_json(
        crate_dir(),
        &["compare", "--format", "json", "--fail-on-significant-drop"],
        1,
    );
    assert_eq!(r.gate.reasons.len(), 1, "only Q-21: {:?}", r.gate.reasons);
}

#[test]
fn require_frozen_refuses_an_unfrozen_gold() {
    let out = run(
        small(),
        &[
            "compare",
            "--require-frozen",
            "--gold",
            "gold-unfrozen.toml",
            "base.toml",
            "cand.toml",
        ],
    );
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    error: invalid input: 1 problem
      gold-unfrozen.toml: the gold set is not frozen and --require-frozen is set; run `ragdiff freeze gold-unfrozen.toml` and commit the manifest
    ");
    // the frozen gold with the same data passes
    let out = run(
        small(),
        &small_args("base.toml", "cand.toml", &["--require-frozen"]),
    );
    assert_code(&out, 0);
    // without the flag, an unfrozen gold is only a warning
    let out = run(
        small(),
        &[
            "compare",
            "--gold",
            "gold-unfrozen.toml",
            "base.toml",
            "cand.toml",
        ],
    );
    ragdiff_snapshot!(&out);
}

#[test]
fn k_is_refused_when_the_gold_pins_k() {
    let out = run(crate_dir(), &["compare", "--k", "3"]);
    assert_invalid(
        &out,
        &[
            "--k is not allowed: the gold manifest pins k = 3 so nobody picks k after seeing results",
        ],
    );
}

/// Where the gold does not pin k, `--k` sets it: at k = 1 every drop30 query (first
/// relevant rank 1 -> 2) newly fails.
#[test]
fn k_is_used_when_the_gold_does_not_pin_it() {
    let r = compare_json(
        fixture("compare/drop30"),
        &with(&COMPARE_CASE_JSON, &["--k", "1"]),
        1,
    );
    assert_eq!(r.k, 1);
    assert_eq!(r.newly_failed.len(), 32);
    assert!(
        r.per_query
            .iter()
            .all(|q| q.failure_kind == Some(FailureKind::Ranking))
    );
    // every newly failed id is accepted: exit 0
    let ids: Vec<String> = r.newly_failed.clone();
    let mut args = with(&COMPARE_CASE_JSON, &["--k", "1"]);
    for id in &ids {
        args.extend(["--allow-failed", id.as_str()]);
    }
    let r = compare_json(fixture("compare/drop30"), &args, 0);
    assert_eq!(r.accepted.len(), 32);
    assert!(r.gate.passed);
}

// ---------------------------------------------------------------------------------
// Two seeded synthetic Vaswani runs, checked against an independent computation

/// qid -> doc -> grade.
fn read_qrels(path: &Path) -> BTreeMap<String, BTreeMap<String, i64>> {
    let text = std::fs::read_to_string(path).expect("qrels");
    let mut out: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 4, "qrels line {line:?}");
        out.entry(f[0].to_string())
            .or_default()
            .insert(f[2].to_string(), f[3].parse().expect("integer grade"));
    }
    out
}

/// qid -> docs in trec_eval's order: score descending, then doc id descending in byte
/// order (the rank column ignored).
fn read_trec_run(path: &Path) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(path).expect("run");
    let mut lines: BTreeMap<String, Vec<(f64, String)>> = BTreeMap::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        lines
            .entry(f[0].to_string())
            .or_default()
            .push((f[4].parse().expect("score"), f[2].to_string()));
    }
    lines
        .into_iter()
        .map(|(q, mut docs)| {
            docs.sort_by(|a, b| {
                b.0.partial_cmp(&a.0)
                    .expect("finite scores")
                    .then_with(|| b.1.as_bytes().cmp(a.1.as_bytes()))
            });
            (q, docs.into_iter().map(|(_, d)| d).collect())
        })
        .collect()
}

#[derive(Debug, Clone)]
struct Expected {
    first: Option<u32>,
    rr: f64,
    recall: f64,
    hit: f64,
    ndcg: f64,
    top: BTreeSet<String>,
}

fn score(judged: &BTreeMap<String, i64>, list: &[String], k: usize) -> Expected {
    let relevant = |d: &String| judged.get(d).is_some_and(|g| *g >= 1);
    let num_rel = judged.values().filter(|g| **g >= 1).count();
    let first = list.iter().position(relevant).map(|i| i as u32 + 1);
    let top: BTreeSet<String> = list
        .iter()
        .take(k)
        .filter(|d| relevant(d))
        .cloned()
        .collect();
    let gain = |d: &String| judged.get(d).copied().unwrap_or(0).max(0) as f64;
    let dcg: f64 = list
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| gain(d) / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<f64> = judged.values().map(|g| (*g).max(0) as f64).collect();
    ideal.sort_by(|a, b| b.partial_cmp(a).unwrap());
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, g)| g / ((i + 2) as f64).log2())
        .sum();
    Expected {
        first,
        rr: match first {
            Some(r) if r as usize <= k => 1.0 / f64::from(r),
            _ => 0.0,
        },
        recall: top.len() as f64 / num_rel as f64,
        hit: if top.is_empty() { 0.0 } else { 1.0 },
        ndcg: if idcg > 0.0 { dcg / idcg } else { 0.0 },
        top,
    }
}

/// docs/contract.md §1 and §6.2: newly failed / fixed by RR@k, else by RR, then Recall,
/// then nDCG (equal within rounding noise).
fn status(b: &Expected, c: &Expected) -> Status {
    match (b.rr > 0.0, c.rr > 0.0) {
        (true, false) => Status::NewlyFailed,
        (false, true) => Status::Fixed,
        (false, false) => Status::StillFailing,
        (true, true) => {
            for (x, y) in [(b.rr, c.rr), (b.recall, c.recall), (b.ndcg, c.ndcg)] {
                if (y - x).abs() > 1e-12 {
                    return if y < x {
                        Status::Regressed
                    } else {
                        Status::Improved
                    };
                }
            }
            Status::Unchanged
        }
    }
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn vaswani_synthetic_runs_match_an_independent_computation() {
    let reference = reference_dir();
    let qrels_path = reference.join("vaswani/qrels");
    assert!(qrels_path.is_file(), "{} is missing", qrels_path.display());
    let runs = fixture("vaswani");
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let lit = |p: &Path| format!("'{}'", p.display());
    std::fs::write(
        tmp.path().join("gold.toml"),
        format!(
            "name = \"vaswani\"\nversion = \"1.0.0\"\ncorpus = \"vaswani\"\ndata = {}\n",
            lit(&qrels_path)
        ),
    )
    .unwrap();
    for (name, version, file) in [
        ("a.toml", "1.0.0", "run.a.trec"),
        ("b.toml", "1.1.0", "run.b.trec"),
    ] {
        std::fs::write(
            tmp.path().join(name),
            format!(
                "index_version = \"{version}\"\ncorpus = \"vaswani\"\ndepth = 100\nresults = {}\n",
                lit(&runs.join(file))
            ),
        )
        .unwrap();
    }

    const K: usize = 10;
    let qrels = read_qrels(&qrels_path);
    let run_a = read_trec_run(&runs.join("run.a.trec"));
    let run_b = read_trec_run(&runs.join("run.b.trec"));
    let empty = Vec::new();
    let mut expected = BTreeMap::new();
    let mut no_answer = Vec::new();
    for (qid, judged) in &qrels {
        if !judged.values().any(|g| *g >= 1) {
            no_answer.push(qid.clone());
            continue;
        }
        let b = score(judged, run_a.get(qid).unwrap_or(&empty), K);
        let c = score(judged, run_b.get(qid).unwrap_or(&empty), K);
        expected.insert(qid.clone(), (b, c));
    }
    let any_newly = expected
        .values()
        .any(|(b, c)| status(b, c) == Status::NewlyFailed);

    let out = run(
        tmp.path(),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "a.toml",
            "b.toml",
            "--k",
            "10",
            "--format",
            "json",
        ],
    );
    assert_code(&out, if any_newly { 1 } else { 0 });
    let r: CompareJson = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("JSON: {e}\n{}", render(&out)));
    assert_eq!(r.k, 10);
    assert_eq!(r.bump, Bump::Minor);
    assert_eq!(r.no_answer, no_answer);
    assert_eq!(
        r.per_query.len(),
        expected.len(),
        "every answerable qrels query"
    );

    let mut ids_by_status: BTreeMap<Status, Vec<String>> = BTreeMap::new();
    for row in &r.per_query {
        let (b, c) = expected
            .get(&row.id)
            .unwrap_or_else(|| panic!("query {} is not an answerable qrels query", row.id));
        let what = |m: &str| format!("query {} {m}", row.id);
        for (side, e, got) in [
            ("baseline", b, &row.baseline),
            ("candidate", c, &row.candidate),
        ] {
            assert_eq!(got.first_relevant_rank, e.first, "{}", what(side));
            assert_close(got.rr, e.rr, &what(&format!("{side} RR@10")));
            assert_close(got.recall, e.recall, &what(&format!("{side} Recall@10")));
            assert_close(got.hit, e.hit, &what(&format!("{side} Hit@10")));
            assert_close(got.ndcg, e.ndcg, &what(&format!("{side} nDCG@10")));
        }
        assert_close(row.delta.rr, c.rr - b.rr, &what("delta RR"));
        assert_close(row.delta.recall, c.recall - b.recall, &what("delta Recall"));
        assert_close(row.delta.ndcg, c.ndcg - b.ndcg, &what("delta nDCG"));
        let st = status(b, c);
        assert_eq!(row.status, st, "{}", what("status"));
        let lost: Vec<String> = b.top.difference(&c.top).cloned().collect();
        let gained: Vec<String> = c.top.difference(&b.top).cloned().collect();
        assert_eq!(row.lost, lost, "{}", what("lost"));
        assert_eq!(row.gained, gained, "{}", what("gained"));
        let kind = (st == Status::NewlyFailed).then(|| {
            if c.first.is_some() {
                FailureKind::Ranking
            } else {
                FailureKind::Retrieval
            }
        });
        assert_eq!(row.failure_kind, kind, "{}", what("failure kind"));
        ids_by_status.entry(st).or_default().push(row.id.clone());
    }
    for (list, st) in [
        (&r.newly_failed, Status::NewlyFailed),
        (&r.fixed, Status::Fixed),
        (&r.still_failing, Status::StillFailing),
    ] {
        let mut ids = ids_by_status.get(&st).cloned().unwrap_or_default();
        ids.sort_by_key(|a| natural(a));
        assert_eq!(*list, ids, "{st:?} ids in natural order");
    }
    // The contract's row order (docs/contract.md §6.2), ids in natural order last
    let rank = |s: &Status| {
        [
            Status::NewlyFailed,
            Status::Regressed,
            Status::StillFailing,
            Status::Improved,
            Status::Fixed,
            Status::Unchanged,
        ]
        .iter()
        .position(|x| x == s)
        .expect("a known status")
    };
    for pair in r.per_query.windows(2) {
        let (x, y) = (&pair[0], &pair[1]);
        let key = |q: &crate::common::CompareRow| (rank(&q.status), q.delta.rr, q.delta.recall);
        let (kx, ky) = (key(x), key(y));
        assert!(
            kx.0 < ky.0
                || (kx.0 == ky.0
                    && (kx.1 < ky.1
                        || (kx.1 == ky.1
                            && (kx.2 < ky.2
                                || (kx.2 == ky.2 && natural(&x.id) < natural(&y.id)))))),
            "rows {} and {} are out of order",
            x.id,
            y.id
        );
    }

    // means over the answerable queries
    let n = expected.len() as f64;
    type Getter = fn(&Expected) -> f64;
    let mean = |f: Getter, side: usize| {
        expected
            .values()
            .map(|(b, c)| f(if side == 0 { b } else { c }))
            .sum::<f64>()
            / n
    };
    let metrics: [(&str, Getter, &crate::common::TestedMeanJson); 4] = [
        ("MRR@10", |e| e.rr, &r.means.rr),
        ("Recall@10", |e| e.recall, &r.means.recall),
        ("Hit@10", |e| e.hit, &r.means.hit),
        ("nDCG@10", |e| e.ndcg, &r.means.ndcg),
    ];
    for (name, f, m) in metrics {
        assert_close(m.baseline, mean(f, 0), &format!("baseline mean {name}"));
        assert_close(m.candidate, mean(f, 1), &format!("candidate mean {name}"));
        assert_close(m.delta, mean(f, 1) - mean(f, 0), &format!("delta {name}"));
        let (lo, hi, p) = (m.ci_low, m.ci_high, m.p_value);
        assert!(
            lo <= m.delta && m.delta <= hi,
            "{name}: CI [{lo}, {hi}], delta {}",
            m.delta
        );
        assert!(p > 0.0 && p <= 1.0, "{name}: p = {p}");
    }
    let zero = |side: usize| {
        expected
            .values()
            .filter(|(b, c)| (if side == 0 { b } else { c }).rr == 0.0)
            .count()
    };
    assert_eq!(
        (r.zero_rr.baseline, r.zero_rr.candidate),
        (zero(0), zero(1))
    );
    assert_eq!(r.gate.passed, !any_newly);
}

// ---------------------------------------------------------------------------------
// Id lists in the terminal table

/// Id lists in natural order (docs/contract.md §5.2). `b` newly fails with delta RR -1
/// and `a` with -0.5, so report order puts `b` first; the table's newly failed list must still
/// read `a`, `b`, as the JSON's `newly_failed` and the Markdown do.
#[test]
fn table_lists_newly_failed_ids_in_byte_order() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    crate::common::write_generated(
        tmp.path(),
        &[
            ("a".into(), crate::common::Change::Unchanged),
            ("b".into(), crate::common::Change::NewlyFailed),
        ],
    );
    // make `a` newly fail from rank 2 (delta RR -0.5)
    std::fs::write(
        tmp.path().join("base.csv"),
        "id,retrieved_doc_ids\na,x1;r\nb,r;x1;x2\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("cand.csv"),
        "id,retrieved_doc_ids\na,x1;x2;x3;r\nb,x1;x2;x3;r\n",
    )
    .unwrap();
    let mut args = crate::common::GENERATED.to_vec();
    args.extend(["--format", "json"]);
    let r = compare_json(tmp.path(), &args, 1);
    assert_eq!(
        r.with_status(Status::NewlyFailed),
        ["b", "a"],
        "report order"
    );
    assert_eq!(r.newly_failed, ["a", "b"], "byte order");
    let out = run(tmp.path(), &crate::common::GENERATED);
    assert_code(&out, 1);
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("newly failed"))
        .unwrap_or_else(|| panic!("no newly failed line:\n{text}"));
    let ids: Vec<&str> = line["newly failed".len()..]
        .split(", ")
        .map(|s| s.trim().split(' ').next().unwrap_or_default())
        .collect();
    assert_eq!(ids, ["a", "b"], "{line}");
}

/// A sort key for natural id order (docs/contract.md §2.8), written apart from the
/// code under test: runs of digits compare by value (as a digit count, then the
/// digits without leading zeros), then the shorter run first; other runs by bytes.
fn natural(id: &str) -> Vec<(u8, usize, Vec<u8>, usize)> {
    let bytes = id.as_bytes();
    let mut key = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let digit = bytes[i].is_ascii_digit();
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() == digit {
            i += 1;
        }
        let run = &bytes[start..i];
        if digit {
            let trimmed: Vec<u8> = run.iter().copied().skip_while(|&b| b == b'0').collect();
            key.push((0, trimmed.len(), trimmed, run.len()));
        } else {
            key.push((1, 0, run.to_vec(), 0));
        }
    }
    key
}
