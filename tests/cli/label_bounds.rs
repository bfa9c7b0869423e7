//! Label-hole bounds and judged-only values (docs/contract.md §5.3), against
//! trec_eval's outputs stored once by the scripts in tests/fixtures/label_bounds/
//! (these tests never run trec_eval):
//! - `eval --judged-only` equals `trec_eval -J` per query to 4 decimals, on
//!   trec_eval's test inputs, the Vaswani fixture runs and the real changes over the
//!   Vaswani qrels (make_expected.sh);
//! - compare's `upper` and `unjudged_as_relevant` equal trec_eval on qrels to which
//!   each side's unjudged top-k docs were added as relevant (make_upper.py).
//!
//! trec_eval cuts at `-M` before it removes the unjudged docs, so the stored
//! `recip_rank` is over the whole condensed list and RR@k is it with the cut at k
//! applied here: kept when the condensed rank 1/rr is at most k, else 0.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::common::{
    CompareJson, CompareRow, EvalJson, SideJson, compare_json, fixture, reference_dir,
};
use crate::parity::{Expected, TOLERANCE, eval_at, read_expected};

const KS: [u32; 5] = [1, 3, 5, 10, 100];

/// One qrels + run and trec_eval -J's output for it.
struct Pair {
    name: &'static str,
    dir: PathBuf,
    qrels: String,
    run: String,
    /// Judged queries with no relevant doc (scored 0 by trec_eval, listed apart here).
    no_answer: &'static [&'static str],
}

/// RR@k from trec_eval's `recip_rank` on the whole condensed list.
fn rr_at(rr: f64, k: u32) -> f64 {
    if rr > 0.0 && (1.0 / rr).round() <= f64::from(k) {
        rr
    } else {
        0.0
    }
}

/// The trec_eval value of ragdiff's `get` at `k`, by query (`all` left out).
fn expected_at(expected: &Expected, measure: &str, k: u32) -> BTreeMap<String, f64> {
    let (name, cut) = match measure {
        "rr" => ("recip_rank".to_string(), true),
        "ap" => ("map".to_string(), false),
        m => (format!("{m}_{k}"), false),
    };
    let values = expected
        .get(&name)
        .unwrap_or_else(|| panic!("no {name} in trec_eval's output"));
    values
        .iter()
        .filter(|(q, _)| *q != "all")
        .map(|(q, &v)| (q.clone(), if cut { rr_at(v, k) } else { v }))
        .collect()
}

type Getter = fn(&SideJson) -> f64;

const MEASURES: [(&str, Getter); 6] = [
    ("rr", |s| s.rr),
    ("recall", |s| s.recall),
    ("success", |s| s.hit),
    ("P", |s| s.precision),
    ("ndcg_cut", |s| s.ndcg),
    ("ap", |s| s.ap),
];

/// Every measure at one k: per query, and the sum over the queries (trec_eval's
/// mean over every qrels query, no-answer ones scored 0). Returns how many
/// judged-only values differ from the whole list's, so the check cannot pass on
/// lists without holes.
fn check_at(pair: &Pair, expected: &Expected, json: &EvalJson, k: u32) -> usize {
    let means = json.means.judged_only.as_ref().expect("means.judged_only");
    let mean_of = |m: &str| match m {
        "rr" => means.rr,
        "recall" => means.recall,
        "success" => means.hit,
        "P" => means.precision,
        "ndcg_cut" => means.ndcg,
        _ => means.ap,
    };
    let mut differ = 0;
    for (measure, get) in MEASURES {
        let what = format!("{} {measure} at k = {k}", pair.name);
        let want = expected_at(expected, measure, k);
        assert_eq!(
            want.len(),
            json.per_query.len() + json.no_answer.len(),
            "{what}: trec_eval and ragdiff see different queries"
        );
        let mut sum = 0.0;
        for (query, &value) in &want {
            sum += value;
            let Some(row) = json.per_query.iter().find(|r| &r.id == query) else {
                assert!(json.no_answer.contains(query), "{what}: query {query}");
                assert_eq!(value, 0.0, "{what}: no-answer query {query}");
                continue;
            };
            let judged = row.judged_only.as_ref().expect("judged_only");
            let actual = get(judged);
            assert!(
                (actual - value).abs() <= TOLERANCE,
                "{what}, query {query}: ragdiff {actual}, trec_eval -J {value}"
            );
            let whole = match measure {
                "rr" => row.rr,
                "recall" => row.recall,
                "success" => row.hit,
                "P" => row.precision,
                "ndcg_cut" => row.ndcg,
                _ => row.ap,
            };
            differ += usize::from((actual - whole).abs() > TOLERANCE);
        }
        let ragdiff_sum = mean_of(measure) * json.per_query.len() as f64;
        assert!(
            (sum - ragdiff_sum).abs() <= TOLERANCE * want.len() as f64,
            "{what}: trec_eval -J sum {sum}, ragdiff mean {} over {}",
            mean_of(measure),
            json.per_query.len()
        );
    }
    differ
}

/// Every k of one pair; returns how many values differ from the whole list's.
fn check(pair: &Pair) -> usize {
    let expected = read_expected(&fixture(&format!("label_bounds/judged.{}.tsv", pair.name)));
    let mut differ = 0;
    for k in KS {
        let inputs = [pair.qrels.as_str(), pair.run.as_str()];
        let json = eval_at(&pair.dir, inputs, k, &["--judged-only"]);
        assert_eq!(json.no_answer, pair.no_answer, "{}: no_answer", pair.name);
        differ += check_at(pair, &expected, &json, k);
    }
    differ
}

fn trec_eval_pair(name: &'static str, qrels: &str, run: &str) -> Pair {
    Pair {
        name,
        dir: reference_dir().join("trec_eval"),
        qrels: qrels.into(),
        run: run.into(),
        no_answer: if qrels == "qrels.comment.test" {
            &["2024-36302"]
        } else {
            &[]
        },
    }
}

/// trec_eval's own test inputs (qrels.rel_level's grade -1 lines: see the script).
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn judged_only_equals_trec_eval_j_on_trec_eval_inputs() {
    let pairs = [
        trec_eval_pair("qrels.test.results.test", "qrels.test", "results.test"),
        trec_eval_pair(
            "qrels.rel_level.results.test",
            "qrels.rel_level",
            "results.test",
        ),
        trec_eval_pair(
            "qrels.comment.test.results.comment.test",
            "qrels.comment.test",
            "results.comment.test",
        ),
        trec_eval_pair("qrels.test.results.trunc", "qrels.test", "results.trunc"),
    ];
    let differ: usize = pairs.iter().map(check).sum();
    assert!(
        differ > 100,
        "only {differ} judged-only values differ from the whole list's"
    );
}

/// The Vaswani fixture runs and the real changes, over the Vaswani qrels.
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn judged_only_equals_trec_eval_j_on_vaswani_runs() {
    let qrels = reference_dir().join("vaswani/qrels").display().to_string();
    let mut differ = 0;
    for (name, dir, run) in [
        ("vaswani.run.a", "vaswani", "run.a.trec"),
        ("vaswani.run.b", "vaswani", "run.b.trec"),
        ("real_changes.bm25", "real_changes", "bm25.trec"),
        ("real_changes.bm25-stem", "real_changes", "bm25-stem.trec"),
        ("real_changes.exact", "real_changes", "exact.trec"),
        ("real_changes.hnsw-seed1", "real_changes", "hnsw-seed1.trec"),
        ("real_changes.hnsw-seed2", "real_changes", "hnsw-seed2.trec"),
        ("real_changes.hnsw-seed3", "real_changes", "hnsw-seed3.trec"),
        ("real_changes.hnsw-seed4", "real_changes", "hnsw-seed4.trec"),
    ] {
        differ += check(&Pair {
            name,
            dir: fixture(dir),
            qrels: qrels.clone(),
            run: run.into(),
            no_answer: &[],
        });
    }
    assert!(
        differ > 1000,
        "only {differ} judged-only values differ from the whole list's"
    );
}

/// One side of a compare row with the top k's unjudged docs counted as relevant:
/// `upper` and `unjudged_as_relevant`, or the side's own values when the row has
/// neither (no unjudged doc in either top k).
fn upper_side(row: &CompareRow, candidate: bool) -> [f64; 6] {
    let own = if candidate {
        &row.candidate
    } else {
        &row.baseline
    };
    match (&row.upper, &row.unjudged_as_relevant) {
        (Some(u), Some(a)) => {
            let (u, a) = if candidate {
                (u.candidate, a.candidate)
            } else {
                (u.baseline, a.baseline)
            };
            [u.rr, u.recall, u.hit, u.precision, a.ndcg, a.ap]
        }
        (None, None) => [own.rr, own.recall, own.hit, own.precision, own.ndcg, own.ap],
        _ => panic!("query {}: upper and unjudged_as_relevant disagree", row.id),
    }
}

/// trec_eval's measure names for [`upper_side`]'s values at k.
fn upper_measures(k: u32) -> [String; 6] {
    [
        "recip_rank".into(),
        format!("recall_{k}"),
        format!("success_{k}"),
        format!("P_{k}"),
        format!("ndcg_cut_{k}"),
        "map".into(),
    ]
}

/// Every per-query value and mean of one side against trec_eval on the qrels with
/// that side's unjudged top-k docs added as relevant; returns how many bounds lie
/// strictly above the side's own value.
fn check_upper(json: &CompareJson, name: &str, candidate: bool) -> usize {
    let k = json.k;
    let expected = read_expected(&fixture(&format!("label_bounds/upper.{name}.k{k}.tsv")));
    let mut above = 0;
    for (i, measure) in upper_measures(k).iter().enumerate() {
        let want = &expected[measure];
        let mut sum = 0.0;
        for row in &json.per_query {
            let actual = upper_side(row, candidate)[i];
            let value = want[&row.id];
            assert!(
                (actual - value).abs() <= TOLERANCE,
                "{name} {measure} at k = {k}, query {}: ragdiff {actual}, trec_eval {value}",
                row.id
            );
            sum += actual;
            let own = if candidate {
                &row.candidate
            } else {
                &row.baseline
            };
            let own = [own.rr, own.recall, own.hit, own.precision][..]
                .get(i)
                .copied();
            if let Some(own) = own {
                assert!(
                    actual >= own - 1e-12,
                    "{name} {measure}, query {}: a bound below the value",
                    row.id
                );
                above += usize::from(actual > own + 1e-12);
            }
        }
        let n = json.per_query.len() as f64;
        assert!(
            ((sum / n) - mean_upper(json, i, candidate)).abs() <= 1e-9,
            "{name} {measure}: mean"
        );
    }
    above
}

/// The top-level mean of value `i` of [`upper_side`].
fn mean_upper(json: &CompareJson, i: usize, candidate: bool) -> f64 {
    let u = json.means.upper.as_ref().expect("means.upper");
    let a = json
        .means
        .unjudged_as_relevant
        .as_ref()
        .expect("means.unjudged_as_relevant");
    let side = [u.rr, u.recall, u.hit, u.precision, a.ndcg, a.ap][i];
    if candidate {
        side.candidate
    } else {
        side.baseline
    }
}

/// Compare two runs at k over the Vaswani qrels and check both sides' bounds.
/// `no_rescue`: the newly failed ids no label can rescue.
fn upper_pair(dir: &str, runs: [&str; 2], names: [&str; 2], k: u32, no_rescue: &[&str]) {
    let qrels = reference_dir().join("vaswani/qrels").display().to_string();
    let k_text = k.to_string();
    let args = [
        "compare", "--gold", &qrels, "--k", &k_text, runs[0], runs[1], "--format", "json",
    ];
    let json = compare_json(fixture(dir), &args, 1);
    assert_eq!(json.k, k);
    let above = check_upper(&json, names[0], false) + check_upper(&json, names[1], true);
    assert!(above > 100, "only {above} bounds lie above their value");
    // A relevant-only gold: a newly failed query has unjudged docs in its top k
    // unless its candidate list is empty.
    assert!(!json.newly_failed.is_empty());
    assert_eq!(json.no_label_can_rescue, no_rescue);
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn upper_equals_trec_eval_with_the_holes_judged_relevant_on_real_changes() {
    for k in [3, 10] {
        let runs = ["bm25.toml", "bm25-stem.toml"];
        let names = ["real_changes.bm25", "real_changes.bm25-stem"];
        upper_pair("verdict/real", runs, names, k, &[]);
    }
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn upper_equals_trec_eval_with_the_holes_judged_relevant_on_vaswani_runs() {
    let runs = ["run.a.toml", "run.b.toml"];
    // run b leaves out query 12, which run a answers in its top 5: an empty ranking
    upper_pair(
        "label_bounds",
        runs,
        ["vaswani.run.a", "vaswani.run.b"],
        5,
        &["12"],
    );
}

/// The rescue fixture's compare (k = 3): R-1's candidate top 3 is judged not relevant
/// and R-4's candidate returns one judged doc only, so no label can rescue them; R-2's
/// holds U-1, which the baseline returned for R-3: suspect, and a label could rescue
/// it (upper RR@3 0.5).
fn rescue(format: &str) -> std::process::Output {
    let args = [&RESCUE[..], &["--format", format]].concat();
    crate::common::run(fixture("label_bounds/rescue"), &args)
}

const RESCUE: [&str; 5] = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];

const RESCUE_TEXT: &str = "no label can rescue 2 of 3 newly failed (no unjudged doc in the candidate's top 3: RR@3 stays 0 whatever is labelled)";

#[test]
fn no_label_can_rescue_in_json_and_the_bound_never_changes_suspect() {
    let args = [&RESCUE[..], &["--format", "json"]].concat();
    let json = compare_json(fixture("label_bounds/rescue"), &args, 1);
    assert_eq!(json.newly_failed, ["R-1", "R-2", "R-4"]);
    assert_eq!(json.no_label_can_rescue, ["R-1", "R-4"]);
    assert_eq!(json.suspect, ["R-2"]);
    let row = |id: &str| json.per_query.iter().find(|r| r.id == id).expect("a row");
    for (id, rescue, suspect) in [
        ("R-1", true, false),
        ("R-2", false, true),
        ("R-4", true, false),
    ] {
        assert_eq!(row(id).no_label_can_rescue, rescue, "{id}");
        assert_eq!(row(id).suspect, suspect, "{id}");
    }
    // no unjudged doc in either top 3, so no bound at all
    assert!(row("R-1").upper.is_none() && row("R-4").unjudged_as_relevant.is_none());
    let r2 = row("R-2").upper.expect("R-2's candidate has U-1 at rank 2");
    assert_eq!((r2.candidate.rr, r2.candidate.hit), (0.5, 1.0));
    assert!(
        (r2.candidate.recall - 0.5).abs() < 1e-12,
        "(0 + 1) / (1 + 1)"
    );
    assert!((r2.candidate.precision - 1.0 / 3.0).abs() < 1e-12);
    // the baseline side has no hole: its own values
    assert_eq!((r2.baseline.rr, r2.baseline.recall), (1.0, 1.0));
}

#[test]
fn no_label_can_rescue_in_every_text_format() {
    let table = rescue("table");
    crate::common::assert_code(&table, 1);
    let line = format!("{RESCUE_TEXT}: R-1, R-4");
    crate::common::assert_line(&crate::common::stdout(&table), &line);
    let md = crate::common::stdout(&rescue("markdown"));
    // Markdown escapes `@` with a word joiner, so a mention cannot form
    let md_text = RESCUE_TEXT.replace("RR@3", "RR@\u{2060}3");
    let md_line = format!("**{md_text}:** `R-1`, `R-4`");
    assert!(md.lines().any(|l| l == md_line), "{md}");
    let csv = crate::common::stdout(&rescue("csv"));
    let rows: Vec<&str> = csv.lines().collect();
    assert!(
        rows[0].ends_with(",lost,gained,no_label_can_rescue,errored"),
        "{}",
        rows[0]
    );
    for (id, cell) in [
        ("R-1", "true"),
        ("R-2", ""),
        ("R-3", ""),
        ("R-4", "true"),
        ("R-5", ""),
    ] {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("{id},")))
            .expect("a row");
        // The last cell is `errored` (docs/contract.md §6.8), empty here.
        assert_eq!(row.rsplit(',').nth(1), Some(cell), "{row}");
    }
    let html = crate::common::stdout(&rescue("html"));
    let html_line = line.replace('\'', "&#39;");
    assert!(
        html.contains(&format!("<p class=\"rescue\">{html_line}</p>")),
        "{html}"
    );
}
