//! Noise and drift (docs/contract.md §6.5): repeated runs, flaky queries, the
//! reproducibility check by metrics, rank-biased overlap of every query in both runs,
//! and the inputs repeats make bad. Fixtures: tests/fixtures/drift.

use crate::common::{
    COMPARE_CASE_JSON, Case, EVAL_CAND_JSON, ReasonCode, Status, assert_code, assert_invalid,
    assert_line, compare_json, fixture, run, stderr, stdout, with,
};

const GOLD: [&str; 3] = ["compare", "--gold", "gold.toml"];

fn dir() -> std::path::PathBuf {
    fixture("drift")
}

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = GOLD.to_vec();
    a.extend_from_slice(extra);
    a
}

/// Baseline 2 repeats, candidate 3; Q-2's RR@3 is 1, 0, 0.5 over the candidate's
/// repeats: flaky, with the mean over repeats as its value, and the gate passes.
#[test]
fn repeats_are_averaged_and_a_flaky_query_does_not_fail_the_gate() {
    let j = compare_json(
        dir(),
        &args(&["base.toml", "cand.toml", "--format", "json"]),
        0,
    );
    assert_eq!((j.baseline.repeats, j.candidate.repeats), (2, 3));
    assert_eq!(j.baseline.results, "base-1.csv");
    assert_eq!(j.flaky, ["Q-2"]);
    let q2 = j.row("Q-2");
    assert_eq!(q2.status, Status::Flaky);
    assert!(!q2.baseline_flaky && q2.candidate_flaky);
    assert_eq!(
        (q2.baseline_zero_rr_repeats, q2.candidate_zero_rr_repeats),
        (0, 1)
    );
    assert_eq!(q2.candidate.rr, 0.5);
    assert!((q2.candidate.recall - 2.0 / 3.0).abs() < 1e-12);
    // Ranks come from the first repeat (rank 1), not from the later ones.
    assert_eq!(q2.candidate.first_relevant_rank, Some(1));
    assert!(j.newly_failed.is_empty() && j.fixed.is_empty());
    assert_eq!(j.row("Q-5").status, Status::Regressed);
    assert!(j.gate.passed && j.gate.codes.is_empty());
    // Status order: flaky after still failing, before unchanged.
    let order: Vec<Status> = j.per_query.iter().map(|r| r.status).collect();
    assert_eq!(
        order,
        [
            Status::Regressed,
            Status::Flaky,
            Status::Unchanged,
            Status::Unchanged
        ]
    );
}

#[test]
fn strict_flaky_fails_the_gate() {
    let args = args(&[
        "base.toml",
        "cand.toml",
        "--format",
        "json",
        "--strict-flaky",
    ]);
    let j = compare_json(dir(), &args, 1);
    assert_eq!(j.gate.codes, [ReasonCode::Flaky]);
    assert!(j.gate.reasons[0].contains("Q-2"), "{:?}", j.gate.reasons);
}

/// A single-file run has no flaky query: the same candidate file alone is not flaky.
#[test]
fn a_single_file_run_has_no_flaky_query() {
    let j = compare_json(
        dir(),
        &args(&["base.toml", "cand-single.toml", "--format", "json"]),
        0,
    );
    assert!(j.flaky.is_empty());
    assert!(
        j.per_query
            .iter()
            .all(|r| !r.baseline_flaky && !r.candidate_flaky)
    );
    assert_eq!(j.candidate.repeats, 1);
}

#[test]
fn reports_list_flaky_ids_with_their_failed_repeats() {
    let out = run(dir(), &args(&["base.toml", "cand.toml"]));
    assert_code(&out, 0);
    let text = stdout(&out);
    assert_line(&text, "repeats baseline 2, candidate 3");
    assert_line(
        &text,
        "flaky             Q-2 (0 in 1 of 3 candidate repeats)",
    );
    let md = run(
        dir(),
        &args(&["base.toml", "cand.toml", "--format", "markdown"]),
    );
    let md = stdout(&md);
    assert!(
        md.contains(" · **repeats** baseline 2, candidate 3"),
        "{md}"
    );
    assert!(
        md.contains("**Flaky (1):** `Q-2` flaky: 0 in 1 of 3 candidate repeats"),
        "{md}"
    );
    assert!(
        md.contains("**Drift:** mean RBO 0.7506 over 9 queries (p = 0.9)"),
        "{md}"
    );
    assert!(
        md.contains(
            "**Moved most (unlabelled):** `U-10` 0.0000, `U-99` 0.0000, `U-2` 0.8550, `U-1` 1.0000"
        ),
        "{md}"
    );
}

/// Same index version: only a query whose RR, Recall or nDCG moved between two pooled
/// repeats is non-deterministic; Q-1's list differs in order below its relevant doc
/// (drift); against a candidate whose repeats disagree on is flaky and
/// non-deterministic too (docs/contract.md §6.5).
#[test]
fn same_version_fails_only_on_metric_changes() {
    let j = compare_json(
        dir(),
        &args(&["base.toml", "same.toml", "--format", "json"]),
        1,
    );
    assert!(j.reproducibility_check);
    assert_eq!(j.nondeterministic, ["Q-5"]);
    assert_eq!(j.gate.codes, [ReasonCode::Nondeterministic]);
    assert!(j.row("Q-1").rbo.is_some_and(|r| r < 1.0));
    let j = compare_json(
        dir(),
        &args(&["base.toml", "cand-same-version.toml", "--format", "json"]),
        1,
    );
    assert_eq!(j.nondeterministic, ["Q-2", "Q-5"]);
    assert_eq!(j.flaky, ["Q-2", "Q-5"]);
}

/// A candidate that claims the baseline's index version pools its repeats with the
/// baseline's, so a query it lost (Q-3: found in both baseline repeats, no relevant
/// doc in the candidate's) is flaky, not newly failed; under `--nondeterminism warn`
/// that once read `PASS  no query newly failed` with nothing naming the candidate's
/// `index_version`, while the same run under its own version fails (docs/contract.md
/// §6.4). The verdict line and the verdict block now say so.
#[test]
fn claiming_the_baseline_version_names_the_queries_pooling_kept_from_newly_failing() {
    let own = run(
        dir(),
        &args(&["base.toml", "cand-lost.toml", "--nondeterminism", "warn"]),
    );
    assert_code(&own, 1);
    assert!(stdout(&own).starts_with("FAIL  1 query newly failed (RR@3 fell to 0): Q-3\n"));
    let claimed = [
        "base.toml",
        "cand-lost-same-version.toml",
        "--nondeterminism",
        "warn",
    ];
    let out = run(dir(), &args(&claimed));
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "PASS  no query newly failed, but 1 query lost in most candidate repeats is flaky under the baseline's index version (pooled): Q-3"
        ),
        "{text}"
    );
    assert_line(
        &text,
        "decided by the candidate's manifest: index_version (the baseline's: the repeats were pooled as one index, so 1 query lost on the candidate is flaky, not newly failed)",
    );
    let mut md = claimed.to_vec();
    md.extend(["--format", "markdown"]);
    let md = stdout(&run(dir(), &args(&md)));
    assert!(
        md.contains("Decided by the candidate's manifest: index\\_version (the baseline's"),
        "{md}"
    );
}

/// A query lost in some candidate repeats but not most is flaky by the majority rule
/// and does not fail the gate, so a passing verdict line read alone names it
/// (docs/contract.md §8): one more repeat in which it finds its doc is all it takes.
/// Before, three repeats with Q-3 lost in the first read `PASS  no query newly
/// failed`; the first repeat alone fails on Q-3.
#[test]
fn a_pass_names_the_queries_the_majority_rule_kept_from_newly_failing() {
    let once = run(dir(), &args(&["base.toml", "cand-lost-once.toml"]));
    assert_code(&once, 0);
    assert!(
        stdout(&once).starts_with(
            "PASS  no query newly failed, but 2 queries lost in some candidate repeats, not most, are flaky: Q-2, Q-3;"
        ),
        "{}",
        stdout(&once)
    );
    let alone = run(dir(), &args(&["base.toml", "cand-lost.toml"]));
    assert!(stdout(&alone).starts_with("FAIL  1 query newly failed (RR@3 fell to 0): Q-3\n"));
    let strict = run(
        dir(),
        &args(&["base.toml", "cand-lost-once.toml", "--strict-flaky"]),
    );
    assert_code(&strict, 1);
}

/// Drift covers gold queries (no-answer Q-4 too) and the unlabelled queries the
/// baseline lists: U-99, which the candidate leaves out, as an empty candidate list
/// (RBO 0); U-7, in the candidate only, is in no mean; the means agree with the
/// per-query values.
#[test]
fn drift_covers_labelled_and_unlabelled_queries() {
    let j = compare_json(
        dir(),
        &args(&["base.toml", "cand.toml", "--format", "json"]),
        0,
    );
    let d = &j.drift;
    assert_eq!(d.rbo_p, 0.9);
    assert_eq!(d.unlabelled_queries, 4);
    let moved: Vec<(&str, f64)> = d
        .most_changed_unlabelled
        .iter()
        .map(|m| (m.id.as_str(), m.rbo))
        .collect();
    assert_eq!(
        moved.iter().map(|m| m.0).collect::<Vec<_>>(),
        ["U-10", "U-99", "U-2", "U-1"]
    );
    assert_eq!((moved[0].1, moved[1].1, moved[3].1), (0.0, 0.0, 1.0));
    let unlabelled: f64 = moved.iter().map(|m| m.1).sum();
    assert!((d.unlabelled_mean_rbo.unwrap() - unlabelled / 4.0).abs() < 1e-12);
    // Gold: Q-1..Q-5 (Q-4 is no-answer, identical lists: 1).
    let rows: f64 = j.per_query.iter().map(|r| r.rbo.unwrap()).sum();
    let labelled = d.labelled_mean_rbo.unwrap();
    assert!((labelled - (rows + 1.0) / 5.0).abs() < 1e-12, "{labelled}");
    assert!((d.mean_rbo.unwrap() - (rows + 1.0 + unlabelled) / 9.0).abs() < 1e-12);
    assert_eq!(d.low_rbo_share, Some(2.0 / 9.0));
    assert_eq!(j.row("Q-1").rbo, Some(1.0));
    let j = compare_json(
        dir(),
        &args(&[
            "base.toml",
            "cand.toml",
            "--format",
            "json",
            "--rbo-p",
            "0.5",
        ]),
        0,
    );
    assert_eq!(j.drift.rbo_p, 0.5);
    assert_ne!(j.drift.most_changed_unlabelled[2].rbo, moved[2].1);
}

#[test]
fn min_rbo_gate() {
    let pass = args(&[
        "base.toml",
        "cand.toml",
        "--format",
        "json",
        "--min-rbo",
        "0.7",
    ]);
    compare_json(dir(), &pass, 0);
    let fail = args(&[
        "base.toml",
        "cand.toml",
        "--format",
        "json",
        "--min-rbo",
        "0.8",
    ]);
    let j = compare_json(dir(), &fail, 1);
    assert_eq!(j.gate.codes, [ReasonCode::MinRbo]);
    assert_eq!(
        j.gate.reasons,
        ["mean RBO (p = 0.9) is 0.7506, below the minimum 0.8"]
    );
}

/// A candidate that leaves out a query its baseline lists cannot lift the mean RBO
/// past `--min-rbo`: the query is in drift as the candidate's empty list, RBO 0
/// against the baseline's, and a warning names it (docs/contract.md §6.5). Deleting
/// U-10, the query it moved most, from cand-1.csv (cand-left-out.csv) once turned the
/// FAIL of `--min-rbo 0.9` (mean 0.8444) into a PASS (mean 0.9650 over 7 queries).
#[test]
fn leaving_out_a_query_the_baseline_lists_does_not_lift_the_mean_rbo() {
    let gate = |cand: &'static str| {
        compare_json(
            dir(),
            &args(&["base.toml", cand, "--format", "json", "--min-rbo", "0.8"]),
            1,
        )
    };
    let (full, left) = (gate("cand-single.toml"), gate("cand-left-out.toml"));
    for j in [&full, &left] {
        assert_eq!(j.gate.codes, [ReasonCode::MinRbo]);
        assert_eq!(
            j.gate.reasons,
            ["mean RBO (p = 0.9) is 0.7506, below the minimum 0.8"]
        );
        assert_eq!(j.drift.unlabelled_queries, 4);
    }
    let moved: Vec<(&str, f64)> = left
        .drift
        .most_changed_unlabelled
        .iter()
        .map(|m| (m.id.as_str(), m.rbo))
        .collect();
    assert_eq!(&moved[..2], [("U-10", 0.0), ("U-99", 0.0)]);
    assert!(
        left.warnings.iter().any(|w| w
            == "the candidate leaves out 2 queries its baseline lists: drift counts each as an empty list (RBO 0 against the baseline's): U-10, U-99"),
        "{:?}",
        left.warnings
    );
}

#[test]
fn drift_flags_out_of_range_are_usage_errors() {
    for (flag, value) in [
        ("--rbo-p", "0"),
        ("--rbo-p", "1"),
        ("--rbo-p", "-0.5"),
        ("--rbo-p", "nan"),
        ("--min-rbo", "1.5"),
    ] {
        let out = run(dir(), &args(&["base.toml", "cand.toml", flag, value]));
        assert_code(&out, 2);
        assert!(
            stderr(&out).contains(flag),
            "{flag} {value}: {}",
            stderr(&out)
        );
    }
}

/// A CSV run may hold queries the gold does not have: a warning counts them (before,
/// an input error); a duplicate of one is still an error.
#[test]
fn csv_runs_may_hold_unlabelled_queries() {
    let out = run(dir(), &["eval", "--gold", "gold.toml", "base-1.csv"]);
    assert_code(&out, 0);
    assert!(stderr(&out).contains(
        "warning: base-1.csv: 4 run queries are not in the gold set: left out of the metrics, as trec_eval does; compare counts them in drift: U-1, U-2, U-10, U-99"
    ), "{}", stderr(&out));
    let out = run(
        dir(),
        &["validate", "--gold", "gold.toml", "dup-unlabelled.csv"],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out)
            .contains("dup-unlabelled.csv:8: query U-1 appears more than once (first at line 7)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_repeats_are_input_errors_naming_the_file() {
    let cases = [
        (
            "bad-empty.toml",
            "bad-empty.toml:4: `results` is an empty array; give at least one results file",
        ),
        (
            "bad-twice.toml",
            "bad-twice.toml:4: `results` lists ./cand-1.csv twice; each repeat is a results file of its own",
        ),
        (
            "bad-formats.toml",
            "bad-formats.toml:4: repeat trec-1.trec is trec but the first repeat cand-1.csv is csv; the repeats of a run share one format",
        ),
        (
            "bad-missing.toml",
            "trec-2.trec: gold query Q-3 is missing from this repeat although another repeat of the run lists it; every repeat answers the same queries",
        ),
    ];
    for (manifest, message) in cases {
        let out = run(dir(), &args(&["base.toml", manifest]));
        assert_code(&out, 2);
        assert_line(&stderr(&out), message);
        let out = run(dir(), &["validate", "--gold", "gold.toml", manifest]);
        assert_code(&out, 2);
        assert_line(&stderr(&out), message);
    }
}

/// Every stored pair of tests/fixtures/drift/rbo_pairs.tsv (the `rbo` package's
/// values) as one gold query each, compared at each stored p: per-query `rbo` agrees
/// to 1e-9.
#[test]
fn per_query_rbo_equals_the_rbo_package() {
    let text = std::fs::read_to_string(fixture("drift/rbo_pairs.tsv")).expect("the pairs");
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    let mut ps: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    ps.dedup();
    assert_eq!(ps.len(), 3);
    for p in ps {
        let pairs: Vec<&Vec<&str>> = rows.iter().filter(|r| r[1] == p).collect();
        let tmp = tempfile::tempdir().expect("a temporary folder");
        let (mut gold, mut base, mut cand) = (
            String::from("id,expected_doc_ids\n"),
            String::from("id,retrieved_doc_ids\n"),
            String::from("id,retrieved_doc_ids\n"),
        );
        for (i, r) in pairs.iter().enumerate() {
            gold.push_str(&format!("P-{i},relevant\n"));
            base.push_str(&format!("P-{i},{}\n", r[2]));
            cand.push_str(&format!("P-{i},{}\n", r[3]));
        }
        // One query whose runs return its judged doc: runs whose ids never meet the
        // gold are refused (docs/contract.md §2.15).
        gold.push_str("anchor,relevant\n");
        base.push_str("anchor,relevant\n");
        cand.push_str("anchor,relevant\n");
        let manifest = |v: &str, f: &str| {
            format!("index_version = \"{v}\"\ncorpus = \"c\"\ndepth = 25\nresults = \"{f}\"\n")
        };
        for (name, body) in [
            ("gold.csv", gold),
            ("base.csv", base),
            ("cand.csv", cand),
            (
                "gold.toml",
                "name = \"g\"\nversion = \"1.0.0\"\ncorpus = \"c\"\ndata = \"gold.csv\"\nk = 3\n"
                    .into(),
            ),
            ("base.toml", manifest("1.0.0", "base.csv")),
            ("cand.toml", manifest("1.1.0", "cand.csv")),
        ] {
            std::fs::write(tmp.path().join(name), body).expect("written");
        }
        let args = with(&COMPARE_CASE_JSON, &["--rbo-p", p]);
        let j = compare_json(tmp.path(), &args, 0);
        for (i, r) in pairs.iter().enumerate() {
            let expected: f64 = r[4].parse().expect("a number");
            let got = j.row(&format!("P-{i}")).rbo.expect("in drift");
            assert!(
                (got - expected).abs() <= 1e-9,
                "{} p {p}: {got} != {expected}",
                r[0]
            );
        }
    }
}

/// `eval` of a run with repeats reports each query's mean over the repeats.
#[test]
fn eval_averages_over_repeats() {
    let out = run(dir(), &EVAL_CAND_JSON);
    assert_code(&out, 0);
    let j: crate::common::EvalJson = serde_json::from_slice(&out.stdout).expect("eval JSON");
    assert_eq!(j.run.repeats, 3);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let q2 = v["per_query"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["id"] == "Q-2")
        .expect("Q-2");
    assert_eq!(q2["rr"], 0.5);
    assert_eq!(q2["first_relevant_rank"], 1);
}

/// An interleaved TREC run is read again with every query kept; a query the gold
/// lacks is still checked in that pass as in the first (found in review): its list
/// past depth is reported at the first line past depth, and its duplicate doc beside
/// another query's problem — every problem listed, each at its line.
#[test]
fn an_interleaved_run_still_checks_the_queries_the_gold_lacks() {
    // U1 (not in the gold) returns 6 docs at lines 3-8; Q1 comes back at line 9.
    let mut long = String::from("Q1 Q0 D1 1 3 t\nQ2 Q0 D4 1 3 t\n");
    for (i, doc) in ["A", "B", "C", "D", "E", "G"].iter().enumerate() {
        long.push_str(&format!("U1 Q0 {doc} {} {} t\n", i + 1, 9 - i));
    }
    long.push_str("Q1 Q0 D2 2 2 t\n");
    let case = Case::new()
        .gold("gold.qrels", "Q1 0 D1 1\nQ2 0 D4 1\n")
        .run("b.toml", "1.0.0", "b.trec", "Q1 Q0 D1 1 3 t\nQ2 Q0 D4 1 3 t\n")
        .run("long.toml", "1.1.0", "long.trec", &long)
        // U1 lists D twice (line 4) and Q2 lists D4 twice (line 6): both are reported.
        .run(
            "dup.toml",
            "1.1.0",
            "dup.trec",
            "Q1 Q0 D1 1 3 t\nQ2 Q0 D4 1 3 t\nU1 Q0 D 1 3 t\nU1 Q0 D 2 2 t\nQ1 Q0 D2 2 2 t\nQ2 Q0 D4 2 2 t\n",
        );
    let out = case.ragdiff(&["compare", "--gold", "gold.toml", "b.toml", "long.toml"]);
    assert_invalid(
        out,
        &[
            "long.trec:8: query U1 returned 6 docs, more than the run's depth 5; a list may be shorter than depth, never longer: fix the export or the manifest's depth",
        ],
    );
    let out = case.ragdiff(&["compare", "--gold", "gold.toml", "b.toml", "dup.toml"]);
    assert_invalid(
        out,
        &[
            "dup.trec:4: query U1 lists doc D twice: a duplicate takes the place of another result",
            "dup.trec:6: query Q2 lists doc D4 twice: a duplicate takes the place of another result",
        ],
    );
}
