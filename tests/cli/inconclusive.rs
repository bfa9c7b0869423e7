//! The INCONCLUSIVE verdict (docs/contract.md §8.3): a non-inferiority test whose
//! interval holds -margin, with nothing else failing. FAIL > INCONCLUSIVE > PASS;
//! exit 1 unless `--inconclusive pass` (`[gate] inconclusive`); every format says how
//! many queries would settle it. The small fixture (tests/fixtures/compare: 4
//! compared queries, RR deltas -0.5, 0, 0, 0) has the interval [-1, 1] for MRR@2: the
//! sign-flip test of 4 queries cannot reach a p below 2/16 = 0.125, so it rejects no
//! shift and the interval that inverts it is every possible mean delta (the percentile
//! bootstrap said [-0.375, 0], a certainty 4 queries do not give).

use crate::common::{
    NiVerdictJson, OutcomeJson, ReasonCode, assert_code, assert_invalid, assert_stderr,
    compare_json, fixture, ragdiff_snapshot, run, stdout, usage_error, with,
};

const ARGS: [&str; 7] = [
    "compare",
    "--no-config",
    "--gold",
    "gold.toml",
    "base.toml",
    "cand.toml",
    "--non-inferior=mrr=0.01",
];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    with(&ARGS, extra)
}

/// statsmodels' `TTestPower().solve_power(effect_size=0.01/0.25, alpha=0.0125,
/// power=0.8)` = 6972.56, rounded up (the last case of
/// tests/fixtures/stats/power.json).
const NEEDED: &str = "about 6973 queries would settle it (4 compared)";

#[test]
fn an_interval_that_holds_minus_the_margin_is_inconclusive() {
    let dir = fixture("compare");
    let out = run(&dir, &args(&[]));
    ragdiff_snapshot!(&out);
    let r = compare_json(&dir, &args(&["--format", "json"]), 1);
    assert_eq!(r.gate.verdict, OutcomeJson::Inconclusive);
    assert!(!r.gate.passed);
    assert_eq!(r.gate.codes, [ReasonCode::NonInferiority]);
    let t = &r.gate.non_inferiority[0];
    assert_eq!(
        (t.verdict, t.queries_needed),
        (NiVerdictJson::Inconclusive, Some(6973))
    );
    let md = stdout(&run(&dir, &args(&["--format", "markdown"])));
    assert!(
        md.starts_with(&format!("## ragdiff: ⚠️ INCONCLUSIVE — MRR@2 not shown non-inferior (margin 0.01): 95% CI of delta [-1.0000, +1.0000], inconclusive; {NEEDED}")),
        "{md}"
    );
    assert!(md.contains(&format!("| inconclusive — {NEEDED} |")), "{md}");
    let html = stdout(&run(&dir, &args(&["--format", "html"])));
    assert!(
        html.contains("<span class=\"verdict warn\">INCONCLUSIVE</span>"),
        "{html}"
    );
    assert!(html.contains(NEEDED), "{html}");
}

#[test]
fn inconclusive_pass_exits_0_and_says_inconclusive() {
    let dir = fixture("compare");
    let out = run(&dir, &args(&["--inconclusive", "pass"]));
    assert_code(&out, 0);
    assert!(
        stdout(&out).starts_with(
            "INCONCLUSIVE (passes: inconclusive = pass)  MRR@2 not shown non-inferior"
        ),
        "{}",
        stdout(&out)
    );
    let r = compare_json(
        &dir,
        &args(&["--inconclusive", "pass", "--format", "json"]),
        0,
    );
    assert_eq!(
        (r.gate.verdict, r.gate.passed),
        (OutcomeJson::Inconclusive, true)
    );
    // The flag's last value wins over the file's, as every flag does.
    assert_code(&run(&dir, &args(&["--inconclusive", "fail"])), 1);
    let out = run(&dir, &args(&["--no-gate"]));
    assert_code(&out, 0);
    assert!(
        stdout(&out).starts_with("INCONCLUSIVE (not enforced: --no-gate)  "),
        "{}",
        stdout(&out)
    );
}

#[test]
fn fail_wins_over_inconclusive() {
    let dir = fixture("compare");
    let r = compare_json(
        &dir,
        &args(&["--max-drop", "mrr=0.05", "--format", "json"]),
        1,
    );
    assert_eq!(r.gate.verdict, OutcomeJson::Fail);
    assert_eq!(
        r.gate.codes,
        [ReasonCode::MaxDrop, ReasonCode::NonInferiority]
    );
    // `--inconclusive pass` does not pass a failing gate.
    let out = run(
        &dir,
        &args(&["--max-drop", "mrr=0.05", "--inconclusive", "pass"]),
    );
    assert_code(&out, 1);
    assert!(stdout(&out).starts_with("FAIL  "), "{}", stdout(&out));
    // A margin the interval clears passes: the demo's 8 queries give MRR@3 the exact
    // interval [-0.4167, +0.6667], above -0.5.
    let demo = [
        "compare",
        "--allow-failed-file",
        "runs/accepted-failures.csv",
        "--non-inferior",
        "mrr=0.5",
        "--format",
        "json",
    ];
    let r = compare_json(crate::common::crate_dir(), &demo, 0);
    assert_eq!((r.gate.verdict, r.gate.passed), (OutcomeJson::Pass, true));
    assert_eq!(
        r.gate.non_inferiority[0].verdict,
        NiVerdictJson::NonInferior
    );
}

#[test]
fn the_policy_key_matches_the_flag_and_a_bad_value_is_refused() {
    let dir = tempfile::tempdir().expect("a folder");
    let compare = fixture("compare");
    for f in [
        "gold.toml",
        "gold.csv",
        "base.toml",
        "base.csv",
        "cand.toml",
        "cand.csv",
    ] {
        std::fs::copy(compare.join(f), dir.path().join(f)).expect("copied");
    }
    let policy = dir.path().join("ragdiff.toml");
    std::fs::write(
        &policy,
        "[gate]\nnon_inferior = { rr = 0.01 }\ninconclusive = \"pass\"\n",
    )
    .expect("written");
    let base = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];
    assert_code(&run(dir.path(), &base), 0);
    assert_code(
        &run(
            dir.path(),
            &[&base[..], &["--inconclusive", "fail"]].concat(),
        ),
        1,
    );
    let bad = fixture("policy/bad-inconclusive.toml");
    let out = run(
        dir.path(),
        &[&base[..], &["--config", bad.to_str().expect("utf-8")]].concat(),
    );
    let problem = "`inconclusive`: maybe is not \"fail\" or \"pass\"";
    assert_invalid(&out, &[format!("{}:2: {problem}", bad.display())]);
    let out = run(
        dir.path(),
        &[&base[..], &["--inconclusive", "maybe"]].concat(),
    );
    let refusal = "invalid value 'maybe' for '--inconclusive <INCONCLUSIVE>'\n  \
                   [possible values: fail, pass]";
    assert_stderr(&out, 2, &usage_error(refusal));
}

#[test]
fn github_annotations_say_how_many_queries_would_settle_it() {
    let dir = fixture("compare");
    let out = crate::common::ragdiff(&dir)
        .args(args(&[]))
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("ragdiff runs");
    ragdiff_snapshot!(&out);
    let out = crate::common::ragdiff(&dir)
        .args(args(&["--inconclusive", "pass"]))
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("ragdiff runs");
    ragdiff_snapshot!(&out);
}

/// A run compared with itself has the interval [0, 0]: the verdict prints it as the
/// table does, `[0.0000, 0.0000]`, not `[-0.0000, +0.0000]` (a bound that rounds to
/// 0 is unsigned in every reason, as every delta is).
#[test]
fn an_interval_of_zeros_reads_alike_in_the_verdict_and_the_table() {
    let dir = crate::common::demo_copy();
    let args = [
        "compare",
        "runs/baseline.toml",
        "runs/baseline.toml",
        "--non-inferior",
        "recall=0",
    ];
    let text = stdout(&run(dir.path(), &args));
    let interval = "95% CI of delta [0.0000, 0.0000]";
    let verdict = text.lines().next().unwrap_or_default();
    assert_eq!(
        verdict,
        format!(
            "INCONCLUSIVE  Recall@3 not shown non-inferior (margin 0): {interval}, inconclusive"
        ),
    );
    assert!(
        text.contains(&format!(
            "Recall@3 overall: inconclusive (margin 0, {interval})"
        )),
        "{text}"
    );
}
