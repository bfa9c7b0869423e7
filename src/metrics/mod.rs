//! Per-query metrics at cutoff k, one pure function each, equal to trec_eval's on
//! TREC inputs (docs/contract.md §5). A query with no relevant doc is never scored here:
//! callers list it as a no-answer query.

use serde::Serialize;

pub mod bounds;
pub mod judged;
pub mod rbo;

use crate::model::{GoldQuery, Observed};

/// Every metric of one query at one k.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scores {
    /// Rank (from 1) of the first relevant doc in the whole returned list.
    pub first_relevant_rank: Option<u32>,
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
    pub ndcg: f64,
    pub ap: f64,
}

pub use crate::model::Metric;

impl Metric {
    pub fn of(self, s: &Scores) -> f64 {
        match self {
            Metric::Rr => s.rr,
            Metric::Recall => s.recall,
            Metric::Hit => s.hit,
            Metric::Precision => s.precision,
            Metric::Ndcg => s.ndcg,
            Metric::Ap => s.ap,
        }
    }
}

/// One value per metric: the means of a run, or one query's deltas.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Values {
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
    pub ndcg: f64,
    pub ap: f64,
}

impl Values {
    pub fn from_fn(f: impl Fn(Metric) -> f64) -> Self {
        Self {
            rr: f(Metric::Rr),
            recall: f(Metric::Recall),
            hit: f(Metric::Hit),
            precision: f(Metric::Precision),
            ndcg: f(Metric::Ndcg),
            ap: f(Metric::Ap),
        }
    }

    pub fn get(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Rr => self.rr,
            Metric::Recall => self.recall,
            Metric::Hit => self.hit,
            Metric::Precision => self.precision,
            Metric::Ndcg => self.ndcg,
            Metric::Ap => self.ap,
        }
    }

    /// The mean of each metric over `scores` (0 for none), summed in their order.
    pub fn mean_of<'a>(scores: impl Iterator<Item = &'a Scores> + Clone) -> Self {
        Self::from_fn(|m| mean(scores.clone().map(|s| m.of(s))))
    }

    /// Candidate minus baseline, metric by metric.
    pub fn delta(b: &Scores, c: &Scores) -> Self {
        Self::from_fn(|m| m.of(c) - m.of(b))
    }
}

/// RR@k: 1 / first relevant rank when it is <= k, else 0 (also when none was
/// returned). trec_eval: `recip_rank` with the run cut at k (`-M k`).
pub fn reciprocal_rank(first_relevant_rank: Option<u32>, k: u32) -> f64 {
    match first_relevant_rank {
        Some(rank) if rank <= k => 1.0 / f64::from(rank),
        _ => 0.0,
    }
}

/// Recall@k: relevant docs in the top k / relevant docs of the query; 0 when the
/// query has none (such a query is a no-answer query and never averaged).
pub fn recall(relevant_in_k: u32, num_rel: u32) -> f64 {
    if num_rel == 0 {
        0.0
    } else {
        f64::from(relevant_in_k) / f64::from(num_rel)
    }
}

/// Hit@k (trec_eval's `success.k`): 1 when any relevant doc is in the top k.
pub fn hit(relevant_in_k: u32) -> f64 {
    if relevant_in_k > 0 { 1.0 } else { 0.0 }
}

/// P@k: relevant docs in the top k / k, even when fewer than k were returned (as
/// trec_eval's `P.k`).
pub fn precision(relevant_in_k: u32, k: u32) -> f64 {
    f64::from(relevant_in_k) / f64::from(k)
}

/// trec_eval 10's discount: the gain at rank r is divided by log2(r + 1), so rank 1
/// counts fully. (trec_eval 9 left ranks 1 and 2 undiscounted; 10.0 changed it.)
pub fn discount(rank: u32) -> f64 {
    (f64::from(rank) + 1.0).log2()
}

/// nDCG@k as trec_eval's `ndcg_cut.k`: `found` holds (rank, gain) of returned docs
/// with a positive gain; `ideal` every positive gain of the query, in any order.
/// 0 when the query has no positive gain.
pub fn ndcg(found: impl IntoIterator<Item = (u32, f64)>, ideal: &mut [f64], k: u32) -> f64 {
    let dcg: f64 = found
        .into_iter()
        .filter(|&(rank, gain)| rank <= k && gain > 0.0)
        .map(|(rank, gain)| gain / discount(rank))
        .fold(0.0, |a, b| a + b);
    ideal.sort_unstable_by(|a, b| b.total_cmp(a));
    let idcg: f64 = ideal
        .iter()
        .filter(|&&g| g > 0.0)
        .take(k as usize)
        .enumerate()
        .map(|(i, g)| g / discount(i as u32 + 1))
        .fold(0.0, |a, b| a + b);
    if idcg > 0.0 { dcg / idcg } else { 0.0 }
}

/// AP over the whole returned list (trec_eval's `map`): the mean, over the query's
/// relevant docs, of precision at each one's rank (0 for those not returned).
/// `relevant_ranks` must be ascending.
pub fn average_precision(relevant_ranks: &[u32], num_rel: u32) -> f64 {
    if num_rel == 0 {
        return 0.0;
    }
    let sum: f64 = relevant_ranks
        .iter()
        .enumerate()
        .map(|(i, &rank)| (i as f64 + 1.0) / f64::from(rank))
        .fold(0.0, |a, b| a + b);
    sum / f64::from(num_rel)
}

/// Every metric of `q` at `k` from what was observed (`None`: the run did not list
/// the query, which counts as an empty ranking, like `trec_eval -c`).
pub fn evaluate(q: &GoldQuery, observed: Option<&Observed>, k: u32, min_grade: i64) -> Scores {
    let empty = Observed::default();
    let obs = observed.unwrap_or(&empty);
    let relevant = |j: u32| q.judged[j as usize].grade >= min_grade;
    let mut first = None;
    let mut in_k = 0u32;
    let mut ranks = Vec::new();
    for h in &obs.hits {
        if relevant(h.judged) {
            first.get_or_insert(h.rank);
            if h.rank <= k {
                in_k += 1;
            }
            ranks.push(h.rank);
        }
    }
    let mut ideal: Vec<f64> = q.judged.iter().map(|j| j.grade as f64).collect();
    let found = obs
        .hits
        .iter()
        .map(|h| (h.rank, q.judged[h.judged as usize].grade as f64));
    Scores {
        first_relevant_rank: first,
        rr: reciprocal_rank(first, k),
        recall: recall(in_k, q.num_rel),
        hit: hit(in_k),
        precision: precision(in_k, k),
        ndcg: ndcg(found, &mut ideal, k),
        ap: average_precision(&ranks, q.num_rel),
    }
}

/// The relevant doc ids of `q` in the top k of what was observed, in natural order (docs/contract.md §2.8).
pub fn relevant_in_top_k<'q>(
    q: &'q GoldQuery,
    observed: Option<&Observed>,
    k: u32,
    min_grade: i64,
) -> Vec<&'q str> {
    let mut ids: Vec<&str> = observed
        .map(|o| &o.hits[..])
        .unwrap_or_default()
        .iter()
        .filter(|h| h.rank <= k && q.judged[h.judged as usize].grade >= min_grade)
        .map(|h| &*q.judged[h.judged as usize].doc)
        .collect();
    ids.sort_unstable_by(|a, b| crate::text::natural_cmp(a, b));
    ids
}

/// The mean of `values`, 0 for none.
pub fn mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = values
        .into_iter()
        .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

#[cfg(test)]
mod tests;
