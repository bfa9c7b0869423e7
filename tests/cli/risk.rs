//! Risk-sensitive evaluation (docs/contract.md §7.4): URisk and TRisk of the candidate
//! against the baseline, overall and per tested segment, equal to numpy's on the values
//! `tests/fixtures/stats/risk.py` stored in `risk.json`; the flag in every format;
//! `--fail-on-risk` and the policy keys.

use std::path::Path;

use crate::common::*;

fn reference() -> serde_json::Value {
    let text = std::fs::read_to_string(fixture("stats/risk.json")).expect("risk.json");
    serde_json::from_str(&text).expect("risk.json is JSON")
}

/// `got` equals the stored figures `want` (a JSON array of `{metric, alpha, urisk,
/// trisk}`) to 1e-12, in the same order, with the flag where TRisk < -2.
fn assert_figures(got: &[RiskJson], want: &serde_json::Value, what: &str) {
    let want = want.as_array().expect("figures");
    assert_eq!(got.len(), want.len(), "{what}: {got:?}");
    for (g, w) in got.iter().zip(want) {
        let what = format!("{what} {} alpha {}", g.metric, g.alpha);
        assert_eq!(g.metric, w["metric"].as_str().expect("metric"), "{what}");
        assert_eq!(g.alpha, w["alpha"].as_f64().expect("alpha"), "{what}");
        let urisk = w["urisk"].as_f64().expect("urisk");
        assert!(
            (g.urisk - urisk).abs() <= 1e-12,
            "{what}: URisk {} != {urisk}",
            g.urisk
        );
        match (g.trisk, w["trisk"].as_f64()) {
            (Some(t), Some(want)) => {
                assert!((t - want).abs() <= 1e-12, "{what}: TRisk {t} != {want}");
                assert_eq!(g.significant_downside_risk, want < -2.0 - 1e-12, "{what}");
            }
            (None, None) => assert!(!g.significant_downside_risk, "{what}"),
            other => panic!("{what}: TRisk {other:?}"),
        }
    }
}

/// Every tested segment's figures equal the stored ones; too-few segments have none.
fn assert_segments(r: &CompareJson, case: &serde_json::Value, what: &str) {
    let stored = case["segments"].as_object().expect("segments");
    for s in &r.segments {
        match stored.get(&s.tag) {
            Some(want) => {
                assert!(!s.too_few, "{what} {}", s.tag);
                assert_figures(&s.risk, &want["risk"], &format!("{what} {}", s.tag));
            }
            None => assert!(s.too_few && s.risk.is_empty(), "{what} {}: {s:?}", s.tag),
        }
    }
    let tested = r.segments.iter().filter(|s| !s.too_few).count();
    assert_eq!(tested, stored.len(), "{what}: tested segments");
}

/// The demo at k = 3, segments of 3 queries tested: numpy's figures.
#[test]
fn the_demo_equals_numpy() {
    let r = reference();
    let case = &r["cases"]["demo"];
    let demo = compare_json(
        crate_dir(),
        &["compare", "--format", "json", "--min-segment-queries", "3"],
        1,
    );
    assert_figures(&demo.risk, &case["overall"], "demo");
    assert_segments(&demo, case, "demo");
}

/// Two real comparisons over the Vaswani qrels, segments from real_changes/tags.csv:
/// two HNSW builds at k = 20, BM25 against BM25 with stemming at k = 10.
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn real_runs_equal_numpy() {
    let qrels = reference_dir().join("vaswani/qrels");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let gold = dir.path().join("gold.toml");
    std::fs::write(
        &gold,
        format!(
            "version = \"1.0.0\"\ncorpus = \"vaswani\"\ndata = {:?}\ntags = {:?}\n",
            qrels.to_str().expect("utf-8"),
            fixture("real_changes/tags.csv").to_str().expect("utf-8")
        ),
    )
    .expect("the manifest is written");
    let r = reference();
    for (name, k, runs) in [
        ("hnsw-1-vs-2-k20", "20", ["hnsw-1.toml", "hnsw-2.toml"]),
        ("bm25-vs-stem-k10", "10", ["bm25.toml", "bm25-stem.toml"]),
    ] {
        let case = &r["cases"][name];
        let gold = gold.to_str().expect("utf-8");
        let args = [
            "compare",
            "--no-gate",
            "--format",
            "json",
            "--gold",
            gold,
            "--k",
            k,
            runs[0],
            runs[1],
        ];
        let got = compare_json(fixture("verdict/real"), &args, 0);
        assert_eq!(
            got.per_query.len() as u64,
            case["queries"].as_u64().expect("n")
        );
        assert_figures(&got.risk, &case["overall"], name);
        assert_segments(&got, case, name);
    }
}

/// Ten queries gain 0.5 and ten lose 0.5 (RR and nDCG alike): balanced at alpha 0
/// (TRisk 0), a significant downside risk at alpha 5 (losses weigh 6 times).
fn balanced() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let queries: Vec<(String, Change)> = (1..=20)
        .map(|i| {
            let change = if i <= 10 {
                Change::Improved
            } else {
                Change::Regressed
            };
            (format!("q{i}"), change)
        })
        .collect();
    write_generated(dir.path(), &queries);
    dir
}

fn with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    [&GENERATED[..], extra].concat()
}

#[test]
fn fail_on_risk_reads_the_overall_trisk_at_the_first_alpha() {
    let dir = balanced();
    let r = compare_json(
        dir.path(),
        &with(&["--format", "json", "--risk-alpha", "0", "--risk-alpha", "5"]),
        0,
    );
    let alphas: Vec<f64> = r.risk.iter().map(|x| x.alpha).collect();
    assert_eq!(alphas, [0.0, 5.0, 0.0, 5.0]);
    assert_eq!(r.risk[0].trisk, Some(0.0));
    assert!(r.risk[1].significant_downside_risk, "{:?}", r.risk[1]);
    // Alpha 0 first: the gate reads a TRisk of 0 and passes.
    let pass = &["--fail-on-risk", "--risk-alpha", "0", "--risk-alpha", "5"];
    assert_code(&run(dir.path(), &with(pass)), 0);
    // Alpha 5 first: both metrics fail it, one reason each.
    let fail = with(&[
        "--fail-on-risk",
        "--risk-alpha",
        "5",
        "--risk-alpha",
        "0",
        "--format",
        "json",
    ]);
    let r = compare_json(dir.path(), &fail, 1);
    assert_eq!(r.gate.codes, [ReasonCode::Risk, ReasonCode::Risk]);
    // z: ten +0.5 and ten -3: URisk -1.25, sd 1.7954, TRisk -3.11.
    let z: Vec<f64> = [0.5; 10].into_iter().chain([-3.0; 10]).collect();
    let mean = z.iter().sum::<f64>() / 20.0;
    let sd = (z.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 19.0).sqrt();
    let trisk = mean / (sd / 20f64.sqrt());
    assert_eq!(
        r.gate.reasons[0],
        format!(
            "MRR@3 shows significant downside risk: TRisk {trisk:+.2} < -2 at alpha 5 (URisk {mean:+.4})"
        )
    );
    assert!(r.gate.reasons[1].starts_with("nDCG@3 shows significant downside risk"));
    // Without --fail-on-risk the figure is flagged but the gate passes.
    assert_code(&run(dir.path(), &with(&["--risk-alpha", "5"])), 0);
}

/// The flag "significant downside risk" in the table, Markdown, HTML and the GitHub
/// annotations; an error annotation only when it fails the run.
#[test]
fn every_format_flags_a_significant_downside_risk() {
    let dir = balanced();
    for format in ["table", "markdown", "html"] {
        let out = run(
            dir.path(),
            &with(&["--risk-alpha", "5", "--format", format]),
        );
        assert_code(&out, 0);
        let text = stdout(&out);
        assert!(
            text.contains("significant downside risk") && text.contains("-3.11"),
            "{format}:\n{text}"
        );
    }
    let annotations = |extra: &[&str]| {
        let out = crate::common::ragdiff(dir.path())
            .args(with(&[&["--risk-alpha", "5"], extra].concat()))
            .env("GITHUB_ACTIONS", "true")
            .output()
            .expect("ragdiff runs");
        stderr(&out)
            .lines()
            .filter(|l| l.contains("title=ragdiff%3A significant downside risk"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let warned = annotations(&[]);
    assert_eq!(warned.len(), 2, "{warned:?}");
    assert!(
        warned.iter().all(|l| l.starts_with("::warning ")),
        "{warned:?}"
    );
    assert!(
        warned[0].ends_with(
            "::MRR@3 overall: significant downside risk at alpha 5: TRisk -3.11 (URisk -1.2500)"
        ),
        "{warned:?}"
    );
    let failed = annotations(&["--fail-on-risk"]);
    assert!(
        failed.iter().all(|l| l.starts_with("::error ")),
        "{failed:?}"
    );
}

/// `[gate] fail_on_risk` and `[compare] risk_alpha` do what the flags do; the flags
/// override them.
#[test]
fn the_policy_file_sets_fail_on_risk_and_the_alphas() {
    let dir = balanced();
    std::fs::write(
        dir.path().join("ragdiff.toml"),
        "[gate]\nfail_on_risk = true\n\n[compare]\nrisk_alpha = [5, 0]\n",
    )
    .expect("written");
    let r = compare_json(dir.path(), &with(&["--format", "json"]), 1);
    assert_eq!(r.gate.codes, [ReasonCode::Risk, ReasonCode::Risk]);
    assert_code(&run(dir.path(), &with(&["--no-fail-on-risk"])), 0);
    assert_code(&run(dir.path(), &with(&["--risk-alpha", "0"])), 0);
}

/// A TRisk is null when the weighted deltas do not spread (every query lost 0.5):
/// never flagged, never failing the gate.
#[test]
fn trisk_is_null_without_spread() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let queries: Vec<(String, Change)> = (1..=5)
        .map(|i| (format!("q{i}"), Change::Regressed))
        .collect();
    write_generated(dir.path(), &queries);
    let r = compare_json(
        dir.path(),
        &with(&["--format", "json", "--fail-on-risk"]),
        0,
    );
    let rr: Vec<&RiskJson> = r.risk.iter().filter(|x| x.metric == "rr").collect();
    assert_eq!(rr.len(), 3);
    for (x, want) in rr.iter().zip([-1.0, -1.5, -3.0]) {
        assert_eq!(
            (x.urisk, x.trisk, x.significant_downside_risk),
            (want, None, false)
        );
    }
    let table = stdout(&run(dir.path(), &with(&[])));
    assert!(table.contains("n/a"), "{table}");
}

#[test]
fn bad_alphas_are_refused() {
    let dir = balanced();
    for (alpha, shown) in [("-1", "-1"), ("nan", "NaN"), ("1001", "1001")] {
        let out = run(dir.path(), &with(&["--risk-alpha", alpha]));
        assert_code(&out, 2);
        assert!(
            stderr(&out).contains(&format!(
                "--risk-alpha {shown}: alpha must be a number from 0 to 1000 (a loss weighs 1 + alpha times a gain), like 1, 2 or 5"
            )),
            "{}",
            render(&out)
        );
    }
    for (file, message) in [
        (
            "bad-risk-alpha.toml",
            "bad-risk-alpha.toml:2: `risk_alpha`: -2 is not an array of numbers from 0 to 1000, like [1, 2, 5]",
        ),
        (
            "empty-risk-alpha.toml",
            "empty-risk-alpha.toml:2: `risk_alpha` must be an array of numbers from 0 to 1000, like [1, 2, 5]",
        ),
    ] {
        let policy = fixture(&format!("policy/{file}"));
        let config = policy.to_str().expect("utf-8");
        let out = run(dir.path(), &with(&["--config", config]));
        assert_code(&out, 2);
        assert!(stderr(&out).contains(message), "{}", render(&out));
    }
    assert!(Path::new(&fixture("policy/bad-risk-alpha.toml")).is_file());
}
