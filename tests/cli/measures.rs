//! Measures by name (`--measure`, docs/contract.md §5.4): ir_measures' names, each
//! equal per query to trec_eval 10.0 and to ir_measures on the reference data (values
//! stored by tests/fixtures/measures/compute.py), the built-in metrics where a name
//! says the same, and an unknown name refused with the known ones listed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::{assert_code, crate_dir, fixture, reference_dir, render, run, stdout};

/// trec_eval prints 4 decimals: a value within half a unit of the last one matches.
const TREC_TOLERANCE: f64 = 0.5e-4 + 1e-9;
/// ir_measures' values are unrounded.
const IR_TOLERANCE: f64 = 1e-9;

/// `args` with `--measure M` for each of `measures`.
fn with_measures<'a>(args: &[&'a str], measures: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    for m in measures {
        all.extend(["--measure", m]);
    }
    all
}

fn eval_measures(dir: &std::path::Path, args: &[&str], measures: &[&str]) -> Value {
    let mut all = with_measures(args, measures);
    all.extend(["--format", "json"]);
    let out = run(dir, &all);
    assert_code(&out, 0);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", render(&out)))
}

/// query -> measure -> value of ragdiff's per-query rows.
fn per_query(json: &Value) -> BTreeMap<String, BTreeMap<String, f64>> {
    json["per_query"]
        .as_array()
        .expect("per_query")
        .iter()
        .map(|row| {
            let values = row["measures"]
                .as_object()
                .expect("measures")
                .iter()
                .map(|(k, v)| (k.clone(), v.as_f64().expect("a number")))
                .collect();
            (row["id"].as_str().expect("id").to_string(), values)
        })
        .collect()
}

#[test]
fn named_measures_equal_the_built_in_metrics_they_name() {
    let asked = [
        "RR@3",
        "R@3",
        "Success@3",
        "P@3",
        "nDCG@3",
        "AP",
        "Judged@3",
        "RPrec",
        "Rprec",
    ];
    let json = eval_measures(crate_dir(), &["eval", "runs/candidate.toml"], &asked);
    assert_eq!(json["k"], 3);
    let names: Vec<&String> = json["means"]["measures"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    // RPrec and Rprec are one measure, printed as ir_measures prints it
    let printed: Vec<&str> = asked.into_iter().filter(|n| *n != "RPrec").collect();
    assert_eq!(names, printed);
    for row in json["per_query"].as_array().unwrap() {
        let m = &row["measures"];
        for (named, builtin) in [
            ("RR@3", "rr"),
            ("R@3", "recall"),
            ("Success@3", "hit"),
            ("P@3", "precision"),
            ("nDCG@3", "ndcg"),
            ("AP", "ap"),
        ] {
            assert_eq!(m[named], row[builtin], "{} {named}", row["id"]);
        }
        let rprec = m["Rprec"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rprec), "{}", row["id"]);
    }
    assert_eq!(json["means"]["measures"]["RR@3"], json["means"]["rr"]);
}

#[test]
fn without_measure_nothing_changes() {
    let out = run(
        crate_dir(),
        &["eval", "runs/candidate.toml", "--format", "json"],
    );
    assert_code(&out, 0);
    assert!(!stdout(&out).contains("\"measures\""));
}

#[test]
fn the_table_gains_a_column_per_named_measure() {
    let args = with_measures(&["eval", "runs/candidate.toml"], &["Bpref", "P(rel=2)@3"]);
    let out = run(crate_dir(), &args);
    assert_code(&out, 0);
    let text = stdout(&out);
    let header = text
        .lines()
        .find(|l| l.contains("first rel"))
        .expect("a header");
    assert!(
        header.contains("Bpref") && header.contains("P(rel=2)@3"),
        "{text}"
    );
}

/// A named measure whose printed name is a column already (`Judged@3`, `nDCG@3` at
/// the gold's k, `P@5` at an extra cutoff) shows once; `RR@3` beside `MRR@3` shows
/// (another label); JSON keeps every measure (docs/contract.md §5.4).
#[test]
fn a_named_measure_that_is_a_column_already_shows_once() {
    let given = ["Judged@3", "RR@3", "nDCG@3", "P@5"];
    let args = with_measures(&["eval", "runs/candidate.toml", "--cutoffs", "5"], &given);
    let out = run(crate_dir(), &args);
    assert_code(&out, 0);
    let text = stdout(&out);
    let lines: Vec<Vec<&str>> = text
        .lines()
        .skip_while(|l| !l.starts_with("id "))
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with('─'))
        .map(|l| l.split_whitespace().collect())
        .collect();
    let header: Vec<&str> = lines[0].iter().skip(3).copied().collect();
    assert_eq!(
        header,
        [
            "MRR@3", "Recall@3", "Hit@3", "P@3", "nDCG@3", "MAP", "Judged@3", "MRR@5", "Recall@5",
            "Hit@5", "P@5", "nDCG@5", "RR@3"
        ],
        "{text}"
    );
    // every row has a cell per column (the mean's label takes two words)
    assert!(lines[1..].iter().all(|l| l.len() == 15), "{text}");
    let json = eval_measures(crate_dir(), &["eval", "runs/candidate.toml"], &given);
    assert_eq!(
        json["means"]["measures"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        given
    );
}

#[test]
fn an_unknown_measure_is_exit_2_listing_the_known_ones() {
    let given = ["MRR@10", "P", "RR@10"];
    let out = run(
        crate_dir(),
        &with_measures(&["eval", "runs/candidate.toml"], &given),
    );
    assert_code(&out, 2);
    let text = render(&out);
    assert!(text.contains("invalid input: 2 problems"), "{text}");
    assert!(
        text.contains("--measure: unknown measure `MRR@10`; known measures: RR@k, R@k, P@k, nDCG@k, AP, AP@k, Rprec (or RPrec), Bpref, Judged@k, Success@k"),
        "{text}"
    );
    assert!(
        text.contains("--measure: `P` needs a cutoff: P@k"),
        "{text}"
    );
}

/// Every measure of the stored file, on every pair, equal to trec_eval's and
/// ir_measures' value for every query.
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn named_measures_equal_trec_eval_and_ir_measures() {
    let reference = reference_dir();
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("measures/expected.json")).expect("expected.json"),
    )
    .expect("expected.json parses");
    let pairs = stored["pairs"].as_object().expect("pairs");
    assert_eq!(pairs.len(), 9);
    let mut compared = 0usize;
    for (pair, entry) in pairs {
        let (qrels, run_path) = pair_paths(pair, &reference);
        let measures: Vec<&str> = entry["measures"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(measures.len(), 18, "{pair}");
        let json = eval_measures(
            &reference,
            &[
                "eval",
                &qrels.display().to_string(),
                &run_path.display().to_string(),
            ],
            &measures,
        );
        let ours = per_query(&json);
        let no_answer: Vec<&str> = json["no_answer"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for (measure, by_tool) in entry["measures"].as_object().unwrap() {
            for (tool, tolerance) in [("trec_eval", TREC_TOLERANCE), ("ir_measures", IR_TOLERANCE)]
            {
                let Some(values) = by_tool.get(tool).and_then(Value::as_object) else {
                    continue;
                };
                if tool == "ir_measures"
                    && ["RR@10", "Judged@10"].contains(&measure.as_str())
                    && pair.starts_with("vaswani.run.")
                {
                    // ir_measures cuts these two at 10 itself, before trec_eval's
                    // tie-break, and these runs' ties straddle rank 10 by design
                    // (tests/fixtures/vaswani/README.md): §2.4's order is trec_eval's
                    continue;
                }
                for (query, expected) in values {
                    let expected = expected.as_f64().unwrap();
                    match ours.get(query) {
                        Some(row) => {
                            let actual = row[measure];
                            assert!(
                                (actual - expected).abs() <= tolerance,
                                "{pair} {measure} query {query}: ragdiff {actual}, {tool} {expected}"
                            );
                        }
                        None => {
                            assert!(
                                no_answer.contains(&query.as_str()),
                                "{pair}: query {query} not scored"
                            );
                            // Judged@k reads no grade: a no-answer query has one too
                            assert!(
                                measure.starts_with("Judged@") || expected == 0.0,
                                "{pair} {measure}: {tool} scores no-answer {query} {expected}"
                            );
                        }
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 10_000, "{compared} values compared");
}

fn pair_paths(pair: &str, reference: &std::path::Path) -> (PathBuf, PathBuf) {
    let te = reference.join("trec_eval");
    let vaswani = reference.join("vaswani/qrels");
    match pair {
        "qrels.test.results.test" => (te.join("qrels.test"), te.join("results.test")),
        "qrels.rel_level.results.test" => (te.join("qrels.rel_level"), te.join("results.test")),
        "qrels.comment.test.results.comment.test" => (
            te.join("qrels.comment.test"),
            te.join("results.comment.test"),
        ),
        "qrels.test.results.trunc" => (te.join("qrels.test"), te.join("results.trunc")),
        "vaswani.run.a" => (vaswani, fixture("vaswani/run.a.trec")),
        "vaswani.run.b" => (vaswani, fixture("vaswani/run.b.trec")),
        other => {
            let name = other.strip_prefix("vaswani.").expect("a vaswani pair");
            (vaswani, fixture(&format!("real_changes/{name}.trec")))
        }
    }
}

/// The keys of a named mean that equal the tested metric's it is (docs/contract.md §5.4).
const SAME_TEST: [&str; 12] = [
    "baseline",
    "candidate",
    "delta",
    "ci_low",
    "ci_high",
    "ci_method",
    "p_value",
    "p_method",
    "p_mc_se",
    "resamples",
    "extended",
    "effect_size",
];

/// `compare --measure`: both sides' means, the delta, an interval and a p, no
/// adjusted p; `RR@k` gets exactly the built-in RR's figures (the same resampling).
#[test]
fn compare_reports_named_measures_with_an_interval_and_a_p() {
    let args = with_measures(
        &["compare", "--no-gate", "--format", "json"],
        &["RR@3", "Bpref", "P(rel=2)@3"],
    );
    let out = crate::common::ragdiff(crate_dir())
        .env("SOURCE_DATE_EPOCH", "1796083200")
        .args(&args)
        .output()
        .expect("ragdiff runs");
    assert_code(&out, 0);
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let named = json["means"]["measures"]
        .as_object()
        .expect("means.measures");
    assert_eq!(
        named.keys().collect::<Vec<_>>(),
        ["RR@3", "Bpref", "P(rel=2)@3"]
    );
    let rr = &json["means"]["rr"];
    for key in SAME_TEST {
        assert_eq!(named["RR@3"][key], rr[key], "RR@3 {key}");
    }
    for (name, m) in named {
        assert!(
            m["ci_low"].is_number() && m["p_value"].is_number(),
            "{name}"
        );
        assert!(m.get("p_adjusted").is_none(), "{name} joins no family");
    }
    // the demo's gold has no grade 2: nothing moves
    assert_eq!(named["P(rel=2)@3"]["delta"], 0.0);
    assert_eq!(named["P(rel=2)@3"]["p_value"], 1.0);
}

/// A named measure that is a tested metric at the gold's k is that metric's test,
/// Monte Carlo included: 200 generated queries where RR and nDCG move on 145, Recall
/// and Hit on 45 (each tested alone it would draw over its own 45 moved queries, not
/// the 145 the four share, and get another p; docs/contract.md §5.4, §7).
#[test]
fn named_tested_metrics_get_the_built_in_monte_carlo_test() {
    use crate::common::{Change, GENERATED, write_generated};
    let mix = [
        (Change::Regressed, 60),
        (Change::Improved, 40),
        (Change::NewlyFailed, 25),
        (Change::Fixed, 20),
        (Change::Unchanged, 40),
        (Change::StillFailing, 15),
    ];
    let queries: Vec<(String, Change)> = mix
        .iter()
        .flat_map(|&(change, n)| std::iter::repeat_n(change, n))
        .enumerate()
        .map(|(i, change)| (format!("q{i:03}"), change))
        .collect();
    let tmp = tempfile::tempdir().expect("a temporary folder");
    write_generated(tmp.path(), &queries);
    let mut args = with_measures(&GENERATED, &["RR@3", "R@3", "nDCG@3", "Success@3"]);
    args.extend(["--no-gate", "--format", "json"]);
    let out = run(tmp.path(), &args);
    assert_code(&out, 0);
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let means = &json["means"];
    for (name, metric) in [
        ("RR@3", "rr"),
        ("R@3", "recall"),
        ("nDCG@3", "ndcg"),
        ("Success@3", "hit"),
    ] {
        let (named, tested) = (&means["measures"][name], &means[metric]);
        assert_eq!(tested["p_method"], "monte_carlo", "{metric}");
        for key in SAME_TEST {
            assert_eq!(named[key], tested[key], "{name} {key}");
        }
    }
}

#[test]
fn the_means_table_gains_a_row_per_named_measure() {
    let args = with_measures(&["compare", "--no-gate"], &["Bpref"]);
    let out = run(crate_dir(), &args);
    assert_code(&out, 0);
    let text = stdout(&out);
    let row = text
        .lines()
        .find(|l| l.contains("│ Bpref"))
        .unwrap_or_else(|| panic!("no Bpref row\n{text}"));
    assert!(row.contains("exact") && row.contains('['), "{row}");
}

/// A named measure that is one of the tested metrics at the gold's k (`nDCG@3`,
/// `RR@3` on the demo, k = 3) has that metric's means and test: the means table
/// shows it once, in the builtin row (table, Markdown, HTML); JSON keeps it in
/// `means.measures` (docs/contract.md §5.4).
#[test]
fn a_named_tested_metric_at_k_shows_once_in_the_means_table() {
    let given = ["nDCG@3", "RR@3", "nDCG@5"];
    let args =
        |format: &'static str| with_measures(&["compare", "--no-gate", "--format", format], &given);
    let table = stdout(&run(crate_dir(), &args("table")));
    let means: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.contains("metric (8 queries)"))
        .take_while(|l| !l.starts_with('└'))
        .collect();
    assert_eq!(
        means.join("\n"),
        "\
│ metric (8 queries)   baseline   candidate   delta     95% CI of delta      p              p (Holm)       d_z     detects >= │
╞═════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════╡
│ MRR@3                  0.5625      0.6458   +0.0833   [-0.4167, +0.6667]   0.7500 exact   1.0000 exact   +0.14       0.7134 │
│ Recall@3               0.5000      0.6458   +0.1458   [-0.4444, +0.7500]   0.6250 exact   1.0000 exact   +0.22       0.7971 │
│ Hit@3                  0.6250      0.7083   +0.0833   [-0.5000, +0.6667]   1.0000 exact   1.0000 exact   +0.13       0.7800 │
│ P@3                    0.2083      0.2778   +0.0694                                                                         │
│ nDCG@3                 0.4822      0.6138   +0.1317   [-0.3512, +0.6934]   0.5312 exact   1.0000 exact   +0.21       0.7273 │
│ MAP                    0.4688      0.6562   +0.1875                                                                         │
│ nDCG@5                 0.5152      0.7186   +0.2035   [-0.1950, +0.6934]   0.3750 exact                  +0.38              │
│ Judged@3               0.5000      0.5278   +0.0278                                                                         │
│ zero RR@3                   3           2        -1                                                                         │",
        "{table}"
    );
    let markdown = stdout(&run(crate_dir(), &args("markdown")));
    let rows: Vec<&str> = markdown
        .lines()
        .skip_while(|l| !l.starts_with("| metric (8 queries)"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(
        rows.join("\n"),
        "\
| metric (8 queries) | baseline | candidate | delta | 95% CI of delta | p | p (Holm) | d_z | detects >= |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
| MRR@3 | 0.5625 | 0.6458 | +0.0833 | [-0.4167, +0.6667] | 0.7500 exact | 1.0000 exact | +0.14 | 0.7134 |
| Recall@3 | 0.5000 | 0.6458 | +0.1458 | [-0.4444, +0.7500] | 0.6250 exact | 1.0000 exact | +0.22 | 0.7971 |
| Hit@3 | 0.6250 | 0.7083 | +0.0833 | [-0.5000, +0.6667] | 1.0000 exact | 1.0000 exact | +0.13 | 0.7800 |
| P@3 | 0.2083 | 0.2778 | +0.0694 |  |  |  |  |  |
| nDCG@3 | 0.4822 | 0.6138 | +0.1317 | [-0.3512, +0.6934] | 0.5312 exact | 1.0000 exact | +0.21 | 0.7273 |
| MAP | 0.4688 | 0.6562 | +0.1875 |  |  |  |  |  |
| nDCG@5 | 0.5152 | 0.7186 | +0.2035 | [-0.1950, +0.6934] | 0.3750 exact |  | +0.38 |  |
| Judged@3 | 0.5000 | 0.5278 | +0.0278 |  |  |  |  |  |
| zero RR@3 queries | 3 | 2 | -1 | | | | | |",
        "{markdown}"
    );
    let html = stdout(&run(crate_dir(), &args("html")));
    let section = html
        .split("<table class=\"means\">")
        .nth(1)
        .and_then(|s| s.split("</table>").next())
        .expect("the means table");
    let labels: Vec<&str> = section
        .split("<tr><td>")
        .skip(1)
        .filter_map(|row| row.split("</td>").next())
        .collect();
    assert_eq!(
        labels,
        [
            "MRR@3", "Recall@3", "Hit@3", "P@3", "nDCG@3", "MAP", "nDCG@5"
        ],
        "{section}"
    );
    let json: Value =
        serde_json::from_str(&stdout(&run(crate_dir(), &args("json")))).expect("JSON");
    let named = json["means"]["measures"]
        .as_object()
        .expect("means.measures");
    assert_eq!(named.keys().collect::<Vec<_>>(), given);
    assert_eq!(named["nDCG@3"]["p_value"], json["means"]["ndcg"]["p_value"]);
}

#[test]
fn an_unknown_measure_in_the_policy_file_names_its_line() {
    let out = run(
        crate_dir(),
        &[
            "compare",
            "--config",
            "tests/fixtures/measures/unknown.toml",
            "--no-gate",
        ],
    );
    assert_code(&out, 2);
    let text = render(&out);
    assert!(
        text.contains("tests/fixtures/measures/unknown.toml:3: [compare] measures: unknown measure `MRR@10`; known measures: RR@k"),
        "{text}"
    );
}

/// Gate rules take ir_measures names of today's metrics at the gold's k, split at the
/// last `=`: `--max-drop nDCG@3=0.2` is `--max-drop ndcg=0.2` (the demo's k is 3).
#[test]
fn gate_rules_take_ir_measures_names_at_the_golds_k() {
    let gate_of = |args: &[&str]| -> Value {
        let mut all = vec!["compare", "--format", "json"];
        all.extend(args);
        let out = crate::common::ragdiff(crate_dir())
            .env("SOURCE_DATE_EPOCH", "1796083200")
            .args(&all)
            .output()
            .expect("ragdiff runs");
        let json: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", render(&out)));
        json["gate"].clone()
    };
    for (short, named) in [
        ("ndcg=0.0001", "nDCG@3=0.0001"),
        ("recall=0.5", "R@3=0.5"),
        ("mrr=0.0001", "RR@3=0.0001"),
        ("hit=0.5", "Success@3=0.5"),
        ("precision=0.5", "P@3=0.5"),
        ("ap=0.5", "AP=0.5"),
    ] {
        assert_eq!(
            gate_of(&["--max-drop", short]),
            gate_of(&["--max-drop", named]),
            "{named}"
        );
    }
    assert_eq!(
        gate_of(&["--non-inferior", "recall=0.02"]),
        gate_of(&["--non-inferior", "R@3=0.02"])
    );
}

/// Another cutoff, or another measure, is a named rule now (tests/cli/gate_measures.rs):
/// `--max-drop P@10=0.02` at k = 3 is no longer refused. On the demo P@10 moves on 3
/// queries (4 more differ by rounding, 1e-17, within the test's tolerance), so its
/// exact p can be no smaller than 0.25 and it counts in no family (docs/contract.md
/// §7.1); nDCG@5, which moves on more, joins the overall one.
#[test]
fn a_gate_rule_at_another_cutoff_is_a_named_rule() {
    let out = run(
        crate_dir(),
        &[
            "compare",
            "--max-drop",
            "P@10=0.02",
            "--max-drop",
            "nDCG@5=0.5",
            "--format",
            "json",
        ],
    );
    assert_code(&out, 1);
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let p10 = &json["means"]["measures"]["P@10"];
    assert_eq!(p10["p_value"], 0.25, "{p10}");
    assert!(p10.get("family").is_none(), "{p10}");
    assert_eq!(json["means"]["measures"]["nDCG@5"]["family"], "overall");
}

/// `compare --format json` with `--measure M` for each of `measures`, typed (so an
/// unlisted key fails the parse), from `dir` with `args` before them.
fn compare_with(
    dir: &std::path::Path,
    args: &[&str],
    measures: &[&str],
    code: i32,
) -> crate::common::CompareJson {
    let mut all = with_measures(args, measures);
    all.extend(["--format", "json"]);
    crate::common::compare_json(dir, &all, code)
}

/// A side's (or the delta's) named measures: value by name, in JSON's order.
fn named(map: &Option<crate::common::Named>) -> Vec<(&str, f64)> {
    map.as_ref()
        .expect("measures")
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_f64().expect("a number")))
        .collect()
}

/// Equal but for the last bits: serde_json's float parsing (without its
/// `float_roundtrip` feature) may read the last digit of a shortest form one unit off.
#[track_caller]
fn assert_near(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= 1e-12,
        "{what}: {actual}, expected {expected}"
    );
}

/// Each column's mean over the rows is `means.measures`' `baseline`, `candidate`
/// and `delta` (docs/contract.md §5.4).
fn assert_row_means(json: &crate::common::CompareJson) {
    let means = json.means.measures.as_ref().expect("means.measures");
    let n = json.per_query.len() as f64;
    for (i, (name, mean)) in means.iter().enumerate() {
        let column = |f: &dyn Fn(&crate::common::CompareRow) -> f64| {
            json.per_query.iter().map(f).sum::<f64>() / n
        };
        for (key, value) in [
            ("baseline", column(&|r| named(&r.baseline.measures)[i].1)),
            ("candidate", column(&|r| named(&r.candidate.measures)[i].1)),
            ("delta", column(&|r| named(&r.delta.measures)[i].1)),
        ] {
            crate::common::assert_close(
                value,
                mean[key].as_f64().unwrap(),
                &format!("{name} {key}"),
            );
        }
    }
}

/// Per query (docs/contract.md §5.4, §10.3): `measures` in `baseline`, `candidate`
/// and `delta`, in the order given; the delta is candidate minus baseline, `RR@3`
/// is the row's RR@3, and each column's mean is the reported mean.
#[test]
fn compare_rows_carry_each_named_measure_and_their_means_are_the_reported_ones() {
    let given = ["RR@3", "Bpref", "P(rel=1)@2", "nDCG@2"];
    let json = compare_with(crate_dir(), &["compare", "--no-gate"], &given, 0);
    assert_eq!(json.schema_version, "2.3.0");
    let mut moved = 0;
    for row in &json.per_query {
        let (b, c, d) = (
            named(&row.baseline.measures),
            named(&row.candidate.measures),
            named(&row.delta.measures),
        );
        let names: Vec<&str> = b.iter().map(|x| x.0).collect();
        assert_eq!(names, given, "{}", row.id);
        for i in 0..given.len() {
            assert_eq!(d[i].0, given[i]);
            assert_near(d[i].1, c[i].1 - b[i].1, &format!("{} {}", row.id, given[i]));
            moved += usize::from(d[i].1 != 0.0 && i > 0);
        }
        assert_eq!(b[0].1, row.baseline.rr, "{} RR@3", row.id);
        assert_eq!(c[0].1, row.candidate.rr, "{} RR@3", row.id);
    }
    assert!(moved >= 10, "only {moved} named deltas moved");
    assert_row_means(&json);
    // without --measure no row has the key
    let plain = crate::common::compare_json(
        crate_dir(),
        &["compare", "--no-gate", "--format", "json"],
        0,
    );
    assert!(plain.per_query.iter().all(|r| r.baseline.measures.is_none()
        && r.candidate.measures.is_none()
        && r.delta.measures.is_none()));
}

/// The CSV export (docs/contract.md §9.8): `baseline_NAME,candidate_NAME,delta_NAME`
/// per measure after `errored`, the JSON's values unrounded; `P(rel=1)@2` is one
/// cell, and no header cell starts as a formula would.
#[test]
fn the_csv_gains_three_columns_per_named_measure() {
    let given = ["Bpref", "P(rel=1)@2"];
    let json = compare_with(crate_dir(), &["compare", "--no-gate"], &given, 0);
    let out = run(
        crate_dir(),
        &with_measures(&["compare", "--no-gate", "--format", "csv"], &given),
    );
    assert_code(&out, 0);
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header.len(), 29 + 6);
    assert_eq!(
        header[28..],
        [
            "errored",
            "baseline_Bpref",
            "candidate_Bpref",
            "delta_Bpref",
            "baseline_P(rel=1)@2",
            "candidate_P(rel=1)@2",
            "delta_P(rel=1)@2"
        ]
    );
    assert!(
        header
            .iter()
            .all(|h| h.starts_with(|c: char| c.is_ascii_lowercase()))
    );
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), json.per_query.len());
    for (record, row) in records.iter().zip(&json.per_query) {
        assert_eq!(&record[0], row.id);
        for (i, side) in [
            &row.baseline.measures,
            &row.candidate.measures,
            &row.delta.measures,
        ]
        .into_iter()
        .enumerate()
        {
            for (j, (name, value)) in named(side).into_iter().enumerate() {
                let cell: f64 = record[29 + 3 * j + i].parse().unwrap();
                assert_near(
                    cell,
                    value,
                    &format!("{} {name} column {}", row.id, 29 + 3 * j + i),
                );
            }
        }
    }
}

/// compare's per-query values of every stored measure, on the Vaswani qrels with
/// the real bm25 (baseline) and bm25-stem (candidate) runs at k = 10: each side equal
/// per query to trec_eval's and ir_measures' stored value, the CSV's cells equal to
/// the JSON's, and each column's mean the reported mean.
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn compare_rows_equal_trec_eval_and_ir_measures_on_real_changes() {
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("measures/expected.json")).expect("expected.json"),
    )
    .expect("expected.json parses");
    let pairs = &stored["pairs"];
    let measures: Vec<&str> = pairs["vaswani.bm25"]["measures"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let qrels = reference_dir().join("vaswani/qrels").display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("rows.csv").display().to_string();
    let args = [
        "compare",
        "--no-gate",
        "--gold",
        &qrels,
        "--k",
        "10",
        "bm25.toml",
        "bm25-stem.toml",
        "--export-csv",
        &csv_path,
    ];
    let json = compare_with(&fixture("verdict/real"), &args, &measures, 0);
    assert_row_means(&json);
    let mut compared = 0usize;
    for row in &json.per_query {
        for (side, pair) in [
            (&row.baseline.measures, "vaswani.bm25"),
            (&row.candidate.measures, "vaswani.bm25-stem"),
        ] {
            for (name, actual) in named(side) {
                for (tool, tolerance) in
                    [("trec_eval", TREC_TOLERANCE), ("ir_measures", IR_TOLERANCE)]
                {
                    let Some(expected) =
                        pairs[pair]["measures"][name][tool][row.id.as_str()].as_f64()
                    else {
                        // trec_eval has no Judged@k; ir_measures' Judged@k is stored
                        // for lists of at least k docs only
                        assert!(
                            name.starts_with("Judged@"),
                            "{pair} {name} {tool} {}",
                            row.id
                        );
                        continue;
                    };
                    assert!(
                        (actual - expected).abs() <= tolerance,
                        "{pair} {name} query {}: ragdiff {actual}, {tool} {expected}",
                        row.id
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 3_000, "{compared} values compared");
    let mut reader = csv::Reader::from_path(&csv_path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    for (record, row) in reader.records().map(Result::unwrap).zip(&json.per_query) {
        for (j, (name, value)) in named(&row.candidate.measures).into_iter().enumerate() {
            let col = 29 + 3 * j + 1;
            assert_eq!(header[col], format!("candidate_{name}"));
            assert_near(
                record[col].parse().unwrap(),
                value,
                &format!("{} {name}", row.id),
            );
        }
    }
}

/// `(judged_only=True)` (docs/contract.md §5.4) is `eval --judged-only`'s value
/// (§5.3) per query: RR, Recall, Hit, P, nDCG at k and AP on the condensed list;
/// on the demo's holes some differ from the whole list's.
#[test]
fn judged_only_measures_equal_eval_judged_only() {
    let given = [
        "RR(judged_only=True)@3",
        "R(judged_only=True)@3",
        "Success(judged_only=True)@3",
        "P(judged_only=True)@3",
        "nDCG(judged_only=True)@3",
        "AP(judged_only=True)",
    ];
    let mut args = with_measures(&["eval", "runs/candidate.toml", "--judged-only"], &given);
    args.extend(["--format", "json"]);
    let json = crate::common::eval_json(crate_dir(), &args);
    let mut differ = 0;
    for row in &json.per_query {
        let j = row.judged_only.as_ref().expect("judged_only");
        let m = named(&row.measures);
        let names: Vec<&str> = m.iter().map(|x| x.0).collect();
        assert_eq!(names, given, "{}", row.id);
        let want = [j.rr, j.recall, j.hit, j.precision, j.ndcg, j.ap];
        for (i, (name, value)) in m.iter().enumerate() {
            assert_eq!(*value, want[i], "{} {name}", row.id);
        }
        differ += usize::from(j.rr != row.rr || j.ndcg != row.ndcg);
    }
    assert!(differ >= 1, "no query has a hole in its top k");
}

/// ir_measures' judged-only forms where it has them; `Bpref` and `Judged@k` have
/// none (exit 2, the known names listed).
#[test]
fn judged_only_where_ir_measures_has_none_is_exit_2() {
    let given = ["Bpref(judged_only=True)", "RR(judged_only=yes)@3"];
    let out = run(
        crate_dir(),
        &with_measures(&["eval", "runs/candidate.toml"], &given),
    );
    assert_code(&out, 2);
    let text = render(&out);
    assert!(
        text.contains("--measure: `Bpref(judged_only=True)` takes no (judged_only=True) (ir_measures has none); known measures: RR@k"),
        "{text}"
    );
    assert!(
        text.contains("--measure: `RR(judged_only=yes)@3`: the parameters are rel=N (a whole number) and judged_only=True or False"),
        "{text}"
    );
    assert!(
        text.contains("(judged_only=True) after RR, R, P, nDCG, AP, Rprec or Success"),
        "{text}"
    );
}

/// Judged@k over repeats is the mean of each query's repeats' values, as every other
/// value and as `--measure Judged@k` (docs/contract.md §2.12, §5.1, §5.4): on the
/// demo (2 baseline repeats, 3 candidate repeats) the builtin Judged@3 and the named
/// one are one number, 0.5 -> 19/36 = 0.5278 (the first candidate repeat alone gave
/// 0.5417), in `compare` and `eval`, JSON and table, and a rule on it reads the
/// delta the table shows.
#[test]
fn judged_at_k_is_the_mean_over_repeats_as_its_named_measure() {
    let out = run(
        crate_dir(),
        &["compare", "--measure", "Judged@3", "--format", "json"],
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let (builtin, named) = (
        &report["means"]["judged"],
        &report["means"]["measures"]["Judged@3"],
    );
    for side in ["baseline", "candidate", "delta"] {
        assert_eq!(builtin[side], named[side], "{side}");
    }
    let close = |v: &Value, x: f64| (v.as_f64().expect("number") - x).abs() < 1e-12;
    assert!(close(&builtin["baseline"], 0.5), "{builtin}");
    assert!(close(&builtin["candidate"], 19.0 / 36.0), "{builtin}");
    assert!(close(&builtin["delta"], 1.0 / 36.0), "{builtin}");

    // swapped: the rule's reason and the table's row say the same drop
    let out = run(
        crate_dir(),
        &[
            "compare",
            "runs/candidate.toml",
            "runs/baseline.toml",
            "--max-drop",
            "Judged@3=0.01",
        ],
    );
    assert_code(&out, 1);
    let text = stdout(&out);
    assert!(
        text.contains("mean Judged@3 dropped by 0.0278, more than the allowed 0.01"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.contains("│ Judged@3 "))
        .unwrap_or_else(|| panic!("a Judged@3 row\n{text}"));
    assert!(row.contains("0.5278") && row.contains("-0.0278"), "{row}");

    // eval: the column's mean and JSON means.judged are the named measure's
    let json = eval_measures(crate_dir(), &["eval", "runs/candidate.toml"], &["Judged@3"]);
    assert_eq!(
        json["means"]["judged"],
        json["means"]["measures"]["Judged@3"]
    );
    assert!(close(&json["means"]["judged"], 19.0 / 36.0), "{json}");
    let out = run(
        crate_dir(),
        &["eval", "runs/candidate.toml", "--measure", "Judged@3"],
    );
    assert_code(&out, 0);
    let mean = stdout(&out)
        .lines()
        .find(|l| l.starts_with("mean"))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("a mean row\n{}", render(&out)));
    assert!(mean.trim_end().ends_with("0.5278"), "{mean}");
}

/// `rel=0` is trec_eval's `-l 0`: every judged doc of grade 0 or more counts as
/// relevant, so on the demo (no negative grade) `P(rel=0)@3` is `Judged@3` on every
/// query, and not `P@3` (the demo judges some docs non-relevant).
#[test]
fn rel_0_counts_every_judged_doc() {
    let json = eval_measures(
        crate_dir(),
        &["eval", "runs/candidate.toml"],
        &["P(rel=0)@3", "Judged@3", "P@3"],
    );
    let rows = per_query(&json);
    let mut differ = 0;
    for (id, m) in &rows {
        assert_near(m["P(rel=0)@3"], m["Judged@3"], id);
        differ += usize::from((m["P(rel=0)@3"] - m["P@3"]).abs() > 1e-12);
    }
    assert!(
        differ >= 1,
        "no query has a judged non-relevant doc in its top 3"
    );
}

/// A negative `rel` is refused (exit 2) wherever a measure is named: trec_eval
/// grades a doc outside the qrels -1, so `-l -1` would count it relevant.
#[test]
fn a_negative_rel_is_a_usage_error_everywhere() {
    const WHY: &str = "rel=-1 is below 0; rel is the lowest grade that counts as relevant, a whole number >= 0 (rel=0 counts every doc judged 0 or above)";
    for command in [&["eval", "runs/candidate.toml"][..], &["compare"]] {
        let out = run(
            crate_dir(),
            &with_measures(command, &["P(rel=-1)@3", "RR(rel=0)@3"]),
        );
        crate::common::assert_invalid(
            out,
            &[format!(
                "--measure: `P(rel=-1)@3`: {WHY}; known measures: {}",
                ragdiff::metrics::named::KNOWN
            )],
        );
    }
    let dir = tempfile::tempdir().expect("a folder");
    let policy = dir.path().join("ragdiff.toml");
    let shown = policy.display().to_string();
    for (text, line) in [
        (
            "[compare]\nmeasures = [\"nDCG@3\", \"P(rel=-1)@3\"]\n",
            format!("{shown}:2: [compare] measures: `P(rel=-1)@3`: {WHY}; known measures: RR@k"),
        ),
        (
            "[gate]\nmax_drop = { \"P(rel=-1)@3\" = 0.1 }\n",
            format!("{shown}:2: `max_drop`: `P(rel=-1)@3`: {WHY}; a gate rule takes"),
        ),
    ] {
        std::fs::write(&policy, text).expect("written");
        let out = run(
            crate_dir(),
            &["compare", "--config", policy.to_str().expect("utf-8")],
        );
        assert_code(&out, 2);
        let text = render(&out);
        assert!(text.contains(&line), "{line}\n{text}");
    }
}
