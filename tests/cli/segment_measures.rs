//! Per-segment gate rules on measures by name (docs/contract.md §5.4, §6.6, §7.1,
//! §7.3, §8.4): the measure is computed in every segment, tested where the segment
//! is not too few, joins the segment family, is gated on and shown beside the
//! segment's other figures; a PASS says which of its drops it cannot see.

use serde_json::Value;

use crate::common::{
    Case, assert_close, assert_code, compare_json, crate_dir, fixture, json_value,
    ragdiff_snapshot, run,
};

/// The demo with segments of three queries tested (its largest has seven).
const DEMO: [&str; 5] = [
    "compare",
    "runs/baseline.toml",
    "runs/candidate.toml",
    "--min-segment-queries",
    "3",
];

fn demo(args: &[&str]) -> std::process::Output {
    run(crate_dir(), &[&DEMO[..], args].concat())
}

/// On the demo, nDCG@5 drops by 0.0608 in `intent:billing` while it rises overall:
/// a per-segment rule on it fails there, and the segment table shows its delta.
#[test]
fn a_per_segment_named_rule_fails_on_the_demo() {
    let rule = [
        "--max-drop-per-segment",
        "nDCG@5=0.05",
        "--allow-failed",
        "Q-21",
    ];
    ragdiff_snapshot!(demo(&rule));
    let report = json_value(&demo(&[&rule[..], &["--format", "json"]].concat()));
    assert_eq!(
        report["gate"]["codes"],
        serde_json::json!(["max_drop_per_segment"])
    );
    let billing = report["segments"]
        .as_array()
        .expect("segments")
        .iter()
        .find(|s| s["tag"] == "intent:billing")
        .expect("intent:billing");
    // its rule applies, but on 3 queries its p cannot reach 0.05 (at most 3
    // moved: smallest p 0.25), so it counts in no family (docs/contract.md §7.1)
    let named = &billing["means"]["measures"]["nDCG@5"];
    assert!(named.get("family").is_none(), "{named}");
    assert_eq!(named["p_value"], 1.0, "{named}");
    assert_close(
        named["delta"].as_f64().expect("delta"),
        -0.060_823_544_897_355,
        "delta",
    );
    // Markdown's segment table has its column too
    ragdiff_snapshot!(demo(&[&rule[..], &["--format", "markdown"]].concat()));
}

/// The same rule from the policy file, with room for the drop: PASS, and the note
/// names the drops of nDCG@5 it cannot see, overall (a `--max-drop` rule names it)
/// and in each tested segment, under `--fail-on-significant-drop`: there, of any
/// size, as in none did enough queries move for its p to reach 0.05.
#[test]
fn a_per_segment_named_rule_that_holds_passes_and_says_what_it_cannot_see() {
    let case = Case::demo().file(
        "policy.toml",
        "[gate]\nmax_drop = { \"nDCG@5\" = 0.1 }\nmax_drop_per_segment = { \"nDCG@5\" = 0.1 }\nfail_on_significant_drop = true\n",
    );
    let args = [
        &DEMO[..],
        &["--config", "policy.toml", "--allow-failed", "Q-21"],
    ]
    .concat();
    let out = case.ragdiff(&args);
    assert_code(&out, 0);
    ragdiff_snapshot!(&out);
    let json = [&args[..], &["--format", "json"]].concat();
    let report = json_value(&case.ragdiff(&json));
    let unseen = report["gate"]["unseen_drops"].as_array().expect("unseen");
    // a builtin's entry has no `segment` key (JSON as before)
    assert!(unseen[0].get("segment").is_none(), "{}", unseen[0]);
    // every key as the typed structs know them (docs/contract.md §10)
    let typed = compare_json(case.path(), &json, 0);
    let named: Vec<(Option<&str>, usize)> = typed
        .gate
        .unseen_drops
        .iter()
        .filter(|u| u.metric == "nDCG@5")
        .map(|u| (u.segment.as_deref(), u.queries))
        .collect();
    assert_eq!(
        named,
        [
            (None, 8),
            (Some("intent:billing"), 3),
            (Some("lang:en"), 7),
            (Some("intent:account"), 3),
        ]
    );
    let billing = typed
        .segments
        .iter()
        .find(|s| s.tag == "intent:billing")
        .expect("intent:billing");
    let measures = billing.means.measures.as_ref().expect("named means");
    // too few of its queries moved for its p to reach 0.05: in no family, and so
    // a drop of any size is unseen there (docs/contract.md §7.1, §7.3)
    assert!(measures["nDCG@5"].get("family").is_none());
    let unseen = |tag: &str| {
        typed
            .gate
            .unseen_drops
            .iter()
            .find(|u| u.metric == "nDCG@5" && u.segment.as_deref() == Some(tag))
            .map(|u| (u.mde, u.mde_alpha))
    };
    assert_eq!(unseen("lang:en"), Some((1.0, 0.05)));
}

/// Each segment's means of the named measures equal ir_measures' over the segment's
/// queries, and the segment family (the four tested metrics and the two named
/// measures in each of the three tested segments; a third, R@2, moved on too few
/// queries to count in any) equals statsmodels' Holm adjustment (values stored by
/// tests/fixtures/gate_measures/holm.py).
#[test]
fn named_segment_means_equal_ir_measures_and_join_the_segment_family() {
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("gate_measures/segments.json")).expect("stored"),
    )
    .expect("JSON");
    let args: Vec<&str> = stored["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("text"))
        .collect();
    let out = run(
        fixture("segments/basic"),
        &[&["compare"][..], &args].concat(),
    );
    assert_code(&out, 0);
    let report = json_value(&out);
    let size = stored["family_size"].as_u64().expect("size");
    assert_eq!(size, 18);
    let segments = report["segments"].as_array().expect("segments");
    for s in segments {
        let tag = s["tag"].as_str().expect("tag");
        let means = &stored["means"][tag];
        assert_eq!(s["queries"], means["queries"], "{tag}");
        for name in ["nDCG@5", "RR@2", "R@2"] {
            let got = &s["means"]["measures"][name];
            for key in ["baseline", "candidate", "delta"] {
                let want = means[name][key].as_f64().expect("stored");
                assert_close(
                    got[key].as_f64().expect(key),
                    want,
                    &format!("{tag} {name} {key}"),
                );
            }
            if s["too_few"] == true {
                assert!(got.get("p_value").is_none(), "{tag}: {got}");
                assert!(got.get("family").is_none(), "{tag}: {got}");
            }
        }
        if s["too_few"] == true {
            continue;
        }
        for (name, want) in stored["adjusted"][tag].as_object().expect("tests") {
            let got = match &s["means"][name] {
                Value::Null => &s["means"]["measures"][name],
                m => m,
            };
            assert_eq!(got["p_value"], want["raw"], "{tag} {name}: raw p");
            let adjusted = got["p_adjusted"].as_f64().expect("adjusted");
            assert!(
                (adjusted - want["holm"].as_f64().expect("holm")).abs() < 1e-12,
                "{tag} {name}: {adjusted} vs {}",
                want["holm"]
            );
            assert_eq!(got["family"], "segments", "{tag} {name}");
            assert_eq!(got["mde_alpha"], 0.05 / size as f64, "{tag} {name}");
        }
        // R@2 moved on one query of lang:ru (smallest p 1) and on none elsewhere: in
        // no segment does it count (docs/contract.md §7.1)
        let got = &s["means"]["measures"]["R@2"];
        if let Some(raw) = stored["left_out"][tag].get("R@2") {
            assert_eq!(&got["p_value"], raw, "{tag} R@2: raw p");
        }
        for key in ["p_adjusted", "family", "correction", "mde", "mde_alpha"] {
            assert!(got.get(key).is_none(), "{tag} R@2 {key}: {got}");
        }
    }
    assert_eq!(stored["left_out"]["lang:ru"]["R@2"], 1.0);
    // the non-inferiority rule on RR@2 is tested in each of the three
    let tests = report["gate"]["non_inferiority"].as_array().expect("tests");
    assert_eq!(tests.len(), 3);
    assert!(
        tests
            .iter()
            .all(|t| t["metric"] == "RR@2" && t["family"] == "segments")
    );
}

/// Under `--fail-on-significant-drop` a named member of the segment family fails
/// the gate as the tested metrics do, counted in the family's size.
#[test]
fn a_named_measure_drops_significantly_in_a_segment() {
    let out = run(
        fixture("segments/basic"),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "base.toml",
            "cand.toml",
            "--max-drop-per-segment",
            "nDCG@5=1",
            "--fail-on-significant-drop",
            "--allow-failed",
            "R12",
            "--format",
            "json",
        ],
    );
    assert_code(&out, 1);
    let reasons = json_value(&out)["gate"]["reasons"].clone();
    assert!(
        reasons.as_array().expect("reasons").contains(&Value::from(
            "segment lang:ru: mean nDCG@5 dropped significantly: -0.3858, adjusted p = 0.0059 < 0.05 (Holm over 15 segment tests)"
        )),
        "{reasons}"
    );
}
