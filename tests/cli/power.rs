//! Power (docs/contract.md §7.3): every tested metric's minimum detectable effect,
//! overall and per segment, its "detects >=" column, and a PASS that says which
//! drops its comparison cannot see. The MDEs are checked against the values
//! tests/fixtures/stats/power.py stored in power.json (ir_measures for the per-query
//! scores of `segments/basic`, scipy for the normal quantiles).
//!
//! `segments/basic` (k = 3, 43 compared queries) passes with `--allow-failed R12`.

use crate::common::{
    CompareJson, OutcomeJson, assert_code, assert_line, compare_json, fixture, ragdiff, run,
    stderr, stdout, with,
};

const PASSING: [&str; 8] = [
    "compare",
    "--no-config",
    "--gold",
    "gold.toml",
    "base.toml",
    "cand.toml",
    "--allow-failed",
    "R12",
];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    with(&PASSING, extra)
}

/// The stored references of one fixture comparison.
fn stored(folder: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(fixture("stats/power.json")).expect("power.json");
    let all: serde_json::Value = serde_json::from_str(&text).expect("power.json parses");
    all["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| c["fixture"] == folder)
        .unwrap_or_else(|| panic!("no stored comparison of {folder}"))
        .clone()
}

fn close(got: Option<f64>, want: &serde_json::Value, what: &str) {
    match (got, want.as_f64()) {
        (Some(g), Some(w)) => assert!((g - w).abs() <= 1e-12 * (1.0 + w), "{what}: {g} != {w}"),
        (None, None) => {}
        _ => panic!("{what}: {got:?} != {want}"),
    }
}

/// The means table's header line in a terminal report of `segments/basic`.
fn means_header(text: &str) -> &str {
    text.lines()
        .find(|l| l.contains("metric (43 queries)"))
        .expect("the means header")
}

/// The MRR@3 MDE of `segments/basic` as the table prints it (stored 0.258214…).
const RR_MDE: &str = "0.2582";

#[test]
fn every_tested_metric_has_the_stored_mde_overall_and_per_segment() {
    let want = stored("segments/basic");
    let r = compare_json(fixture("segments/basic"), &args(&["--format", "json"]), 0);
    assert_eq!(
        r.per_query.len(),
        want["queries"].as_u64().unwrap() as usize
    );
    let overall = [
        ("rr", &r.means.rr),
        ("recall", &r.means.recall),
        ("hit", &r.means.hit),
        ("ndcg", &r.means.ndcg),
    ];
    for (key, m) in overall {
        let w = &want["overall"][key];
        close(m.mde, &w["mde"], &format!("overall {key} mde"));
        close(
            Some(m.mde_alpha),
            &w["mde_alpha"],
            &format!("overall {key}"),
        );
    }
    let segments = want["segments"].as_object().expect("segments");
    assert_eq!(segments.len(), 3, "the three segments of at least 10");
    for (tag, w) in segments {
        let s = &r.segment(tag).means;
        for (key, m) in [
            ("rr", &s.rr),
            ("recall", &s.recall),
            ("hit", &s.hit),
            ("ndcg", &s.ndcg),
        ] {
            let what = format!("{tag} {key}");
            // Present, and null exactly where the reference is (equal deltas).
            let mde = m.mde.unwrap_or_else(|| panic!("{what}: no mde key"));
            close(mde, &w[key]["mde"], &what);
            close(m.mde_alpha, &w[key]["mde_alpha"], &what);
        }
    }
    // A segment too few to test has no MDE, and P@k and AP never do.
    let de = &r.segment("lang:de").means;
    assert_eq!((de.rr.mde, de.rr.mde_alpha), (None, None));
    assert_eq!((de.ap.mde, de.ap.mde_alpha), (None, None));
}

#[test]
fn the_means_table_has_a_detects_column_in_every_format() {
    let dir = fixture("segments/basic");
    let text = stdout(&run(&dir, &args(&[])));
    let header = means_header(&text);
    assert!(
        header.trim_end_matches(['│', ' ']).ends_with("detects >="),
        "{header}"
    );
    let mrr = text
        .lines()
        .find(|l| l.contains("│ MRR@3 "))
        .expect("MRR row");
    assert!(mrr.contains(&format!("{RR_MDE} │")), "{mrr}");
    let p = text.lines().find(|l| l.contains("│ P@3 ")).expect("P row");
    assert!(!p.contains("n/a"), "untested: an empty cell: {p}");
    let md = stdout(&run(&dir, &args(&["--format", "markdown"])));
    assert!(
        md.contains("| 95% CI of delta | p | p (Holm) | d_z | detects >= |"),
        "{md}"
    );
    assert!(md.contains(&format!(" | +0.16 | {RR_MDE} |")), "{md}");
    let html = stdout(&run(&dir, &args(&["--format", "html"])));
    assert!(html.contains("<th>detects &gt;=</th>"), "{html}");
    assert!(
        html.contains(&format!("<td class=\"n\">{RR_MDE}</td>")),
        "{html}"
    );
    // Nothing moved on Hit@2 in the small fixture: "n/a", not a detectable 0.
    let small = fixture("compare");
    let out = run(&small, &PASSING[..6]);
    let hit = stdout(&out);
    let hit = hit
        .lines()
        .find(|l| l.contains("│ Hit@2 "))
        .expect("Hit row");
    assert!(hit.trim_end_matches(['│', ' ']).ends_with("n/a"), "{hit}");
}

#[test]
fn the_detects_column_is_the_third_left_out_of_a_narrow_table() {
    let dir = fixture("segments/basic");
    let wide = stdout(&run(&dir, &args(&[])));
    let full = means_header(&wide).chars().count();
    // Narrower and narrower: d_z and p leave first, "detects >=" next, while
    // p (Holm) stays.
    let third = (full - 60..full).rev().find_map(|width| {
        let out = ragdiff(&dir)
            .args(args(&[]))
            .env("COLUMNS", width.to_string())
            .output()
            .expect("ragdiff runs");
        let text = stdout(&out);
        text.contains(&format!(
            "(left out to fit {width} columns: d_z, p, detects >=;"
        ))
        .then_some(text)
    });
    let text = third.expect("a width that leaves out d_z, p and detects >=");
    let header = means_header(&text);
    assert!(
        header.contains("p (Holm)") && !header.contains("detects"),
        "{text}"
    );
}

#[test]
fn a_pass_that_cannot_see_a_drop_says_so_in_every_format() {
    let dir = fixture("segments/basic");
    let unseen =
        format!("this comparison cannot see a drop of MRR@3 smaller than {RR_MDE} (43 queries)");
    let out = run(&dir, &args(&[]));
    assert_code(&out, 0);
    assert_line(
        &stdout(&out),
        &format!("PASS  1 newly failed query accepted by the allow-list: R12; {unseen}"),
    );
    let md = stdout(&run(&dir, &args(&["--format", "markdown"])));
    assert!(md.starts_with(&format!("## ragdiff: ✅ PASS — 1 newly failed query accepted by the allow-list: `R12`; {unseen}\n")), "{md}");
    let html = stdout(&run(&dir, &args(&["--format", "html"])));
    assert!(html.contains(&unseen), "{html}");
    let r = compare_json(&dir, &args(&["--format", "json"]), 0);
    let want = stored("segments/basic");
    assert_eq!(r.gate.unseen_drops.len(), 1, "{:?}", r.gate.unseen_drops);
    let u = &r.gate.unseen_drops[0];
    assert_eq!((u.metric.as_str(), u.drop, u.queries), ("rr", 0.05, 43));
    close(Some(u.mde), &want["overall"]["rr"]["mde"], "unseen rr");
    assert_eq!(u.mde_alpha, 0.0125);
    let out = ragdiff(&dir)
        .args(args(&[]))
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("ragdiff runs");
    assert_line(
        &stderr(&out),
        &format!("::notice title=ragdiff%3A cannot see a drop::PASS — {unseen}"),
    );
}

fn unseen(r: &CompareJson) -> Vec<(&str, f64)> {
    r.gate
        .unseen_drops
        .iter()
        .map(|u| (u.metric.as_str(), u.drop))
        .collect()
}

#[test]
fn the_metrics_a_pass_speaks_for() {
    let dir = fixture("segments/basic");
    let json = |extra: &[&str]| {
        let a = [&args(extra)[..], &["--format", "json"]].concat();
        compare_json(&dir, &a, 0)
    };
    // The primary metric; RR when the primary (AP) is not tested.
    assert_eq!(unseen(&json(&["--primary", "ndcg"])), [("ndcg", 0.05)]);
    assert_eq!(unseen(&json(&["--primary", "ap"])), [("rr", 0.05)]);
    // Every tested metric under --fail-on-significant-drop (lang:ru's drop is
    // significant: no segment is tested here).
    let all = json(&["--fail-on-significant-drop", "--min-segment-queries", "100"]);
    let want = [
        ("rr", 0.05),
        ("recall", 0.05),
        ("hit", 0.05),
        ("ndcg", 0.05),
    ];
    assert_eq!(unseen(&all), want);
    // A margin is the drop that matters, and a PASS has shown every margin: MRR's
    // MDE 0.2582 is above 0.1, yet its interval's lower end is above -0.1, so the
    // comparison saw that no such drop is there (it was listed before).
    let r = json(&["--non-inferior", "mrr=0.1"]);
    assert!(unseen(&r).is_empty(), "{:?}", r.gate.unseen_drops);
    assert_eq!(
        r.gate.non_inferiority[0].verdict,
        crate::common::NiVerdictJson::NonInferior
    );
    assert!(r.means.rr.mde.is_some_and(|mde| mde > 0.1));
    let out = run(&dir, &args(&["--non-inferior", "mrr=0.1"]));
    assert_eq!(
        stdout(&out).lines().next(),
        Some("PASS  1 newly failed query accepted by the allow-list: R12")
    );
    assert!(unseen(&json(&["--non-inferior", "mrr=0.3"])).is_empty());
    // A failing verdict says nothing of power: it already found a problem.
    let failing = [&PASSING[..6], &["--format", "json"]].concat();
    let r = compare_json(&dir, &failing, 1);
    assert_eq!(r.gate.verdict, OutcomeJson::Fail);
    assert!(r.gate.unseen_drops.is_empty());
    assert!(
        !r.gate.reasons.iter().any(|x| x.contains("cannot see")),
        "{:?}",
        r.gate.reasons
    );
}

/// Stemming on Vaswani at k 10 under the guide's policy (block = "tag:must-pass",
/// non_inferior = { ndcg = 0.02 }) passes. MRR@10's MDE (0.1142) and nDCG@10's
/// (0.0556) are above the drops that matter (0.05, the margin 0.02), yet their
/// intervals ([-0.0280, +0.1072], [+0.0417, +0.1073]) have seen that no such drop is
/// there: the PASS names no drop it cannot see (it named both, beside an nDCG
/// interval that rules out every drop; found by attack4).
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn a_pass_whose_intervals_rule_out_the_drops_names_none_it_cannot_see() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let real = fixture("verdict/real");
    let gold = format!(
        "version = \"1.0.0\"\ncorpus = \"vaswani\"\ndata = {:?}\ntags = {:?}\n",
        crate::common::reference_dir()
            .join("vaswani/qrels")
            .display()
            .to_string(),
        fixture("real_changes/tags.csv").display().to_string()
    );
    std::fs::write(dir.path().join("gold.toml"), gold).expect("written");
    let policy = "[gate]\nblock = \"tag:must-pass\"\nnon_inferior = { ndcg = 0.02 }\n";
    std::fs::write(dir.path().join("ragdiff.toml"), policy).expect("written");
    let (base, cand) = (real.join("bm25.toml"), real.join("bm25-stem.toml"));
    let args = [
        "compare",
        "--gold",
        "gold.toml",
        "--k",
        "10",
        base.to_str().expect("utf-8"),
        cand.to_str().expect("utf-8"),
    ];
    let out = run(dir.path(), &args);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out).lines().next(),
        Some(
            "PASS  3 queries newly failed, none that must pass (block = \"tag:must-pass\"): 11, 58, 78"
        )
    );
    let r = compare_json(dir.path(), &with(&args, &["--format", "json"]), 0);
    assert!(unseen(&r).is_empty(), "{:?}", r.gate.unseen_drops);
    let seen = |m: &crate::common::TestedMeanJson, drop: f64| {
        (m.mde.is_some_and(|mde| mde > drop), m.ci_low > -drop)
    };
    assert_eq!(seen(&r.means.rr, 0.05), (true, true));
    assert_eq!(seen(&r.means.ndcg, 0.02), (true, true));
}
