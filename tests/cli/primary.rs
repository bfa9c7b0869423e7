//! The primary metric by name (docs/contract.md §6.2): `--primary` and `[gate]
//! primary` take today's short names at the gold's k or a measure by name, which then
//! decides each query's improved and regressed and joins the overall family (§7.1).

use serde_json::Value;

use crate::common::{Case, assert_code, assert_invalid, render};

const DEMO: [&str; 5] = [
    "compare",
    "runs/baseline.toml",
    "runs/candidate.toml",
    "--format",
    "json",
];

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", render(out)))
}

fn row<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["per_query"]
        .as_array()
        .expect("per_query")
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no row {id}"))
}

fn statuses(report: &Value) -> Vec<(String, String)> {
    report["per_query"]
        .as_array()
        .expect("per_query")
        .iter()
        .map(|r| (r["id"].to_string(), r["status"].to_string()))
        .collect()
}

#[test]
fn a_named_primary_decides_improved_where_rr_ties() {
    let case = Case::demo();
    // Q-25 (relevant D-20 and D-21, D-22 judged not relevant): D-20 first in every
    // list, so RR, Recall@3 and nDCG@3 tie and the default calls it unchanged.
    let rr = json(&case.ragdiff(&DEMO));
    assert_eq!(row(&rr, "Q-25")["status"], "unchanged");
    // Judged@2: the baseline's repeats hold D-20;D-22 (1) and D-20;D-23 (D-23
    // unjudged: 0.5), mean 0.75; every candidate repeat D-20;D-22, 1: improved.
    let out = case.ragdiff(&[&DEMO[..], &["--primary", "Judged@2"]].concat());
    assert_code(&out, 1);
    let named = json(&out);
    let q25 = row(&named, "Q-25");
    assert_eq!(q25["status"], "improved", "{q25}");
    assert_eq!(q25["baseline"]["measures"]["Judged@2"], 0.75);
    assert_eq!(q25["candidate"]["measures"]["Judged@2"], 1.0);
    // new failures stay RR@k's; every other row keeps its status
    let changed: Vec<_> = statuses(&rr)
        .into_iter()
        .filter(|s| !statuses(&named).contains(s))
        .collect();
    assert_eq!(changed, [("\"Q-25\"".into(), "\"unchanged\"".into())]);
    // computed though not given with --measure, and in the overall family (§7.1)
    let means = &named["means"]["measures"]["Judged@2"];
    assert_eq!(means["family"], "overall", "{means}");
    assert!(named["means"]["rr"]["p_adjusted"].as_f64().is_some());
    // the policy file's primary is the flag's
    let case = case.file("ragdiff.toml", "[gate]\nprimary = \"Judged@2\"\n");
    let from_file = json(&case.ragdiff(&[&DEMO[..], &["--config", "ragdiff.toml"]].concat()));
    assert_eq!(statuses(&from_file), statuses(&named));
}

#[test]
fn a_short_name_and_its_name_at_k_are_one_primary() {
    // the demo's k is 3: nDCG and nDCG@3 are the short name ndcg, AP is ap
    let case = Case::demo();
    for group in [
        &["ndcg", "nDCG", "nDCG@3", "NDCG"][..],
        &["ap", "AP", "map"],
        &["rr", "mrr", "RR@3"],
    ] {
        let outs: Vec<_> = group
            .iter()
            .map(|p| case.ragdiff(&[&DEMO[..], &["--primary", p]].concat()))
            .collect();
        for (p, out) in group.iter().zip(&outs) {
            assert_code(out, 1);
            assert_eq!(out.stdout, outs[0].stdout, "--primary {p} vs {}", group[0]);
        }
    }
    // at another cutoff it is a named measure: in the means, and its own statuses
    let at5 = json(&case.ragdiff(&[&DEMO[..], &["--primary", "nDCG@5"]].concat()));
    assert_eq!(at5["means"]["measures"]["nDCG@5"]["family"], "overall");
}

#[test]
fn under_one_index_a_named_primary_that_moves_between_repeats_is_flaky() {
    // the same index version on both sides: the repeats are pooled (§6.4); Q-25's
    // Judged@2 is 1 in one repeat and 0.5 in another, its RR, Recall and nDCG never move
    let case = Case::demo().edit(
        "runs/candidate.toml",
        "index_version = \"2.4.0\"",
        "index_version = \"2.3.0\"",
    );
    let rr = json(&case.ragdiff(&DEMO));
    assert_eq!(row(&rr, "Q-25")["status"], "unchanged");
    let named = json(&case.ragdiff(&[&DEMO[..], &["--primary", "Judged@2"]].concat()));
    assert_eq!(row(&named, "Q-25")["status"], "flaky");
    let nondeterministic = named["nondeterministic"].as_array().expect("ids");
    assert!(
        nondeterministic.contains(&"Q-25".into()),
        "{nondeterministic:?}"
    );
}

#[test]
fn an_unknown_primary_lists_the_known_names() {
    let known = format!(
        "the primary takes rr (mrr), recall, hit, precision (p), ndcg or ap (map) at the gold's k, or a measure by name: {KNOWN}"
    );
    let case = Case::demo();
    assert_invalid(
        case.ragdiff(&["compare", "--primary", "MRR@10"]),
        &[format!("--primary: unknown measure `MRR@10`; {known}")],
    );
    let case = case.file("ragdiff.toml", "[gate]\n\nprimary = \"nDCG@0\"\n");
    assert_invalid(
        case.ragdiff(&["compare", "--config", "ragdiff.toml"]),
        &[format!(
            "ragdiff.toml:3: `primary`: `nDCG@0`: the cutoff must be a whole number from 1 to 4294967295; {known}"
        )],
    );
}

/// The known measures, as every bad name's message lists them (docs/contract.md §5.4).
const KNOWN: &str = "RR@k, R@k, P@k, nDCG@k, AP, AP@k, Rprec (or RPrec), Bpref, Judged@k, Success@k; RR, R, nDCG and AP also without @k (the whole list); (rel=N) after RR, R, P, AP, Rprec, Bpref or Success; (judged_only=True) after RR, R, P, nDCG, AP, Rprec or Success";
