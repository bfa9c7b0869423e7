//! Property tests of label holes (docs/contract.md §6.3), through the public library:
//! a gold that judges every returned doc leaves no hole — no suspect query, and
//! Judged@k = min(returned, k) / k for every query and side — while unjudging a doc
//! that entered a newly failed query's top k makes it suspect.

use std::fmt::Write as _;
use std::path::PathBuf;

use proptest::prelude::*;
use ragdiff::compare::{Status, compare};
use ragdiff::load::{gold, run};
use ragdiff::metrics::judged::{judged_at_k, unjudged_at_k};
use ragdiff::model::{DataFormat, GoldMeta, GoldSet, ObservedRun, RunMeta};
use ragdiff::validate::Diagnostics;

/// One query: relevant docs, two rankings (doc indexes, distinct, rank order).
#[derive(Debug, Clone)]
struct GenQuery {
    relevant: Vec<usize>,
    baseline: Vec<usize>,
    candidate: Vec<usize>,
}

fn ranking(depth: usize) -> impl Strategy<Value = Vec<usize>> {
    proptest::sample::subsequence((0..12).collect::<Vec<_>>(), 0..=depth).prop_shuffle()
}

fn case() -> impl Strategy<Value = (Vec<GenQuery>, u32, u32)> {
    (1usize..=6).prop_flat_map(|depth| {
        let query = (
            proptest::sample::subsequence((0..12).collect::<Vec<_>>(), 1..=3),
            ranking(depth),
            ranking(depth),
        )
            .prop_map(|(relevant, baseline, candidate)| GenQuery {
                relevant,
                baseline,
                candidate,
            });
        (
            proptest::collection::vec(query, 1..8),
            any::<usize>(),
            1..=depth as u32,
            Just(depth as u32),
        )
            .prop_map(|(mut queries, pos, k, depth)| {
                meet_the_gold(&mut queries, pos);
                (queries, k, depth)
            })
    })
}

/// The first query whose candidate returns docs counts the one at `pos` relevant, so
/// the candidate returns a doc the gold judges even when every doc that entered its
/// top k is left unjudged: a run whose ids never meet the gold is an input error
/// (docs/contract.md §2.15), not a case to compare. The baseline's top k is always
/// judged. Every other query is as generated.
fn meet_the_gold(queries: &mut [GenQuery], pos: usize) {
    if let Some(q) = queries.iter_mut().find(|q| !q.candidate.is_empty()) {
        let doc = q.candidate[pos % q.candidate.len()];
        if !q.relevant.contains(&doc) {
            q.relevant.push(doc);
        }
    }
}

fn doc(i: usize) -> String {
    format!("D-{i}")
}

fn ids(docs: &[usize]) -> String {
    docs.iter().map(|&d| doc(d)).collect::<Vec<_>>().join(";")
}

/// A CSV gold: each query's relevant docs, and as not relevant every other doc
/// either run returns for it, except those `unjudge` leaves out.
fn gold_csv(queries: &[GenQuery], unjudge: &dyn Fn(usize, usize) -> bool) -> GoldSet {
    let mut text = String::from("id,expected_doc_ids,non_relevant_doc_ids\n");
    for (qi, q) in queries.iter().enumerate() {
        let mut others: Vec<usize> = q
            .baseline
            .iter()
            .chain(&q.candidate)
            .copied()
            .filter(|d| !q.relevant.contains(d) && !unjudge(qi, *d))
            .collect();
        others.sort_unstable();
        others.dedup();
        let _ = writeln!(text, "Q-{qi},{},{}", ids(&q.relevant), ids(&others));
    }
    let meta = GoldMeta::bare(std::path::Path::new("gold.csv"), DataFormat::Csv);
    let mut diag = Diagnostics::default();
    let g = gold::parse(meta, text.as_bytes(), &[], &mut diag);
    assert!(diag.problems.is_empty(), "{:?}\n{text}", diag.problems);
    g.expect("a gold set")
}

fn read(
    queries: &[GenQuery],
    side: fn(&GenQuery) -> &Vec<usize>,
    gold: &GoldSet,
    depth: u32,
    k: u32,
    version: &str,
) -> ObservedRun {
    let mut text = String::from("id,retrieved_doc_ids\n");
    for (qi, q) in queries.iter().enumerate() {
        let _ = writeln!(text, "Q-{qi},{}", ids(side(q)));
    }
    let meta = RunMeta {
        index_version: Some(ragdiff::model::IndexVersion::parse(version).expect("a version")),
        team_meta: Default::default(),
        corpus: None,
        depth,
        depth_declared: true,
        filters: Default::default(),
        results_display: "run.csv".into(),
        results: PathBuf::from("run.csv"),
        format: DataFormat::Csv,
        long: None,
        manifest: None,
        more_results: Vec::new(),
        doc_map: None,
        approximate: false,
        cut: None,
        recording: Default::default(),
    };
    let keep = run::Keep {
        top: k,
        ..run::Keep::NONE
    };
    let run::ReadOutcome { run: r, diag, .. } = run::RunReader::new(gold)
        .keep(keep)
        .read(run::Source::bytes(meta, text.as_bytes()));
    assert!(diag.problems.is_empty(), "{:?}\n{text}", diag.problems);
    r.expect("a run")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn a_gold_judging_every_returned_doc_leaves_no_hole((queries, k, depth) in case()) {
        let gold = gold_csv(&queries, &|_, _| false);
        let b = read(&queries, |q| &q.baseline, &gold, depth, k, "1.0.0");
        let c = read(&queries, |q| &q.candidate, &gold, depth, k, "1.1.0");
        for (qi, q) in queries.iter().enumerate() {
            for (run, list) in [(&b, &q.baseline), (&c, &q.candidate)] {
                let o = run.observed[qi].as_ref();
                prop_assert_eq!(unjudged_at_k(o, k), 0);
                let expected = list.len().min(k as usize) as f64 / f64::from(k);
                prop_assert_eq!(judged_at_k(o, k), expected);
            }
        }
        let cmp = compare(&gold, &b, &c, k, 10, 0);
        for r in &cmp.rows {
            prop_assert!(!r.holes.suspect, "query {}", &r.id);
            prop_assert_eq!(r.holes.unjudged_entered, 0);
        }
        prop_assert!(cmp.means.judged.baseline <= 1.0 && cmp.means.judged.candidate >= 0.0);
    }

    /// Leave unjudged exactly the candidate's top-k docs that were not in the
    /// baseline's top k: a newly failed query is then suspect exactly when there is
    /// one, with that many entered.
    #[test]
    fn unjudged_docs_entering_make_a_new_failure_suspect((queries, k, depth) in case()) {
        let ku = k as usize;
        let entered = |q: &GenQuery| -> Vec<usize> {
            q.candidate.iter().take(ku).copied()
                .filter(|d| !q.baseline.iter().take(ku).any(|b| b == d) && !q.relevant.contains(d))
                .collect()
        };
        let gold = gold_csv(&queries, &|qi, d| entered(&queries[qi]).contains(&d));
        let b = read(&queries, |q| &q.baseline, &gold, depth, k, "1.0.0");
        let c = read(&queries, |q| &q.candidate, &gold, depth, k, "1.1.0");
        let cmp = compare(&gold, &b, &c, k, 10, 0);
        for r in &cmp.rows {
            let qi: usize = r.id[2..].parse().expect("an index");
            let q = &queries[qi];
            let n = entered(q).len() as u32;
            let judges_no = gold.queries[qi].non_relevant > 0;
            // Counted where a query can be suspect (no label queue is exported here).
            let counted = if judges_no { n } else { 0 };
            prop_assert_eq!(r.holes.unjudged_entered, counted, "query {}", &r.id);
            prop_assert_eq!(r.holes.suspect, r.status == Status::NewlyFailed && n > 0 && judges_no);
        }
    }
}
