//! One run against the gold set: per-query scores (the `eval` command's scoring;
//! `compare` builds on the same metrics). The report around it is `report`'s.

use serde::Serialize;

use crate::metrics::judged::{judged_at_k, unjudged_at_k};
use crate::metrics::{self, Scores};
use crate::model::{GoldQuery, GoldSet, ObservedRun};

pub mod cutoffs;
pub mod measures;

#[derive(Debug, Clone, Serialize)]
pub struct EvalRow {
    pub id: String,
    #[serde(flatten)]
    pub scores: Scores,
    /// Docs in the top k the gold has no judgement for (docs/contract.md §6.3).
    pub unjudged_at_k: u32,
    /// Judged@k (the mean over the repeats), averaged into `means.judged`.
    #[serde(skip)]
    pub judged: f64,
    /// Values at each extra cutoff (`--cutoffs`, `docs/contract.md §2.8`).
    #[serde(skip_serializing_if = "cutoffs::ByCutoff::is_empty")]
    pub at: cutoffs::ByCutoff,
    /// Every metric on the judged docs only (`--judged-only`, docs/contract.md §5.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged_only: Option<Scores>,
    /// Named measures' values (`--measure`, `docs/contract.md §5.4`).
    #[serde(skip_serializing_if = "measures::Named::is_empty")]
    pub measures: measures::Named,
}

/// Means over the queries with at least one relevant doc.
pub type Means = metrics::Values;

/// `eval`'s means: every metric's, and Judged@k's (docs/contract.md §6.3).
#[derive(Debug, Clone, Serialize)]
pub struct EvalMeans {
    #[serde(flatten)]
    pub values: Means,
    pub judged: f64,
    /// The means on the judged docs only (`--judged-only`, docs/contract.md §5.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged_only: Option<Means>,
    /// Named measures' means (`--measure`, `docs/contract.md §5.4`).
    #[serde(skip_serializing_if = "measures::Named::is_empty")]
    pub measures: measures::Named,
}

impl EvalMeans {
    pub fn of(rows: &[EvalRow]) -> Self {
        Self {
            values: Means::mean_of(rows.iter().map(|r| &r.scores)),
            judged: metrics::mean(rows.iter().map(|r| r.judged)),
            judged_only: None,
            measures: Default::default(),
        }
    }
}

impl std::ops::Deref for EvalMeans {
    type Target = Means;
    fn deref(&self) -> &Means {
        &self.values
    }
}

/// Score every gold query with a relevant doc; no-answer queries are listed apart.
/// Rows are in natural order of id (`docs/contract.md §2.8`).
pub fn score_run(gold: &GoldSet, run: &ObservedRun, k: u32) -> (Vec<EvalRow>, Vec<String>) {
    let mut rows = Vec::new();
    let mut no_answer = Vec::new();
    for (qi, q) in gold.queries.iter().enumerate() {
        if q.is_no_answer() {
            no_answer.push(q.id.to_string());
            continue;
        }
        rows.push(EvalRow {
            id: q.id.to_string(),
            scores: over_repeats(q, run, qi, k, gold.meta.min_grade).scores,
            unjudged_at_k: unjudged_at_k(run.observed[qi].as_ref(), k),
            judged: judged_over_repeats(run, qi, k),
            at: Default::default(),
            judged_only: None,
            measures: Default::default(),
        });
    }
    rows.sort_unstable_by(|a, b| crate::text::natural_cmp(&a.id, &b.id));
    crate::text::sort_natural(&mut no_answer);
    (rows, no_answer)
}

/// Gold query `qi`'s metrics on the judged docs only (docs/contract.md §5.3), each a
/// mean over the run's repeats; the first relevant rank is the first repeat's
/// condensed rank.
pub fn judged_only_over_repeats(
    q: &GoldQuery,
    run: &ObservedRun,
    qi: usize,
    k: u32,
    min_grade: i64,
) -> Scores {
    let all: Vec<Scores> = run
        .observed_in_repeats(qi)
        .map(|o| metrics::bounds::judged_only(q, o, k, min_grade))
        .collect();
    if all.len() == 1 {
        return all[0];
    }
    let mean = Means::mean_of(all.iter());
    Scores {
        first_relevant_rank: all[0].first_relevant_rank,
        rr: mean.rr,
        recall: mean.recall,
        hit: mean.hit,
        precision: mean.precision,
        ndcg: mean.ndcg,
        ap: mean.ap,
    }
}

/// One query's scores over a run's repeats (docs/contract.md §6.5).
#[derive(Debug, Clone, Copy)]
pub struct Repeated {
    /// Each metric's mean over the repeats; the first relevant rank is the first
    /// repeat's.
    pub scores: Scores,
    /// Repeats in which RR@k is 0.
    pub zero_rr: u32,
    pub repeats: u32,
    /// The first repeat's scores.
    pub first: Scores,
    /// RR@k, Recall@k or nDCG@k differs between two of the repeats (docs/contract.md
    /// §6.5: under one index version, a non-deterministic query).
    pub varies: bool,
}

impl Repeated {
    /// RR@k is 0 in some repeat and > 0 in another.
    pub fn flaky(&self) -> bool {
        self.zero_rr > 0 && self.zero_rr < self.repeats
    }
}

/// Judged@k of gold query `qi` in `run`: the mean over its repeats, as every other
/// value of a query (docs/contract.md §2.12, §5.1), and as `--measure Judged@k` gives
/// it (§5.4).
pub fn judged_over_repeats(run: &ObservedRun, qi: usize, k: u32) -> f64 {
    metrics::mean(run.observed_in_repeats(qi).map(|o| judged_at_k(o, k)))
}

/// Score gold query `qi` in every repeat of `run` and take the means.
pub fn over_repeats(
    q: &GoldQuery,
    run: &ObservedRun,
    qi: usize,
    k: u32,
    min_grade: i64,
) -> Repeated {
    let mut all = run
        .observed_in_repeats(qi)
        .map(|o| metrics::evaluate(q, o, k, min_grade));
    let first = all.next().expect("a run has a first repeat");
    let (mut sum, mut zero_rr, mut repeats) = (first, u32::from(first.rr == 0.0), 1u32);
    let mut varies = false;
    for s in all {
        varies |= scored_otherwise(&first, &s);
        sum.rr += s.rr;
        sum.recall += s.recall;
        sum.hit += s.hit;
        sum.precision += s.precision;
        sum.ndcg += s.ndcg;
        sum.ap += s.ap;
        zero_rr += u32::from(s.rr == 0.0);
        repeats += 1;
    }
    let scores = if repeats == 1 {
        first
    } else {
        let n = f64::from(repeats);
        Scores {
            first_relevant_rank: first.first_relevant_rank,
            rr: sum.rr / n,
            recall: sum.recall / n,
            hit: sum.hit / n,
            precision: sum.precision / n,
            ndcg: sum.ndcg / n,
            ap: sum.ap / n,
        }
    };
    Repeated {
        scores,
        zero_rr,
        repeats,
        first,
        varies,
    }
}

/// Whether RR@k, Recall@k or nDCG@k differs between two scorings of one query
/// (beyond rounding): what makes a query non-deterministic under one index
/// (docs/contract.md §6.5).
pub fn scored_otherwise(a: &Scores, b: &Scores) -> bool {
    [(a.rr, b.rr), (a.recall, b.recall), (a.ndcg, b.ndcg)]
        .iter()
        .any(|(x, y)| (x - y).abs() > 1e-12)
}
