//! Several cutoffs (`docs/contract.md §2.8`): RR, Recall, Hit, P and nDCG at each
//! listed cutoff beside the pinned k, reported and never gating; and the order of
//! `eval`'s per-query rows (`--sort worst|id`).

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::metrics::{self, Metric, Scores};
use crate::model::{GoldSet, ObservedRun};

/// The metrics reported at each extra cutoff (AP reads the whole list).
pub const AT_METRICS: [Metric; 5] = [
    Metric::Rr,
    Metric::Recall,
    Metric::Hit,
    Metric::Precision,
    Metric::Ndcg,
];

/// Five metrics at one cutoff.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct At {
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
    pub ndcg: f64,
}

impl At {
    pub fn of(s: &Scores) -> Self {
        Self {
            rr: s.rr,
            recall: s.recall,
            hit: s.hit,
            precision: s.precision,
            ndcg: s.ndcg,
        }
    }

    pub fn get(&self, m: Metric) -> f64 {
        match m {
            Metric::Rr => self.rr,
            Metric::Recall => self.recall,
            Metric::Hit => self.hit,
            Metric::Precision => self.precision,
            Metric::Ndcg => self.ndcg,
            Metric::Ap => f64::NAN,
        }
    }
}

/// Values by cutoff, in cutoff order; JSON keys are the cutoffs as strings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ByCutoff(pub Vec<(u32, At)>);

impl ByCutoff {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for ByCutoff {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (c, at) in &self.0 {
            map.serialize_entry(&c.to_string(), at)?;
        }
        map.end()
    }
}

/// One query's values at each cutoff (`None` observed: an empty ranking).
pub fn at_cutoffs(
    gold: &GoldSet,
    qi: usize,
    observed: Option<&crate::model::Observed>,
    cutoffs: &[u32],
) -> ByCutoff {
    let q = &gold.queries[qi];
    ByCutoff(
        cutoffs
            .iter()
            .map(|&c| {
                (
                    c,
                    At::of(&metrics::evaluate(q, observed, c, gold.meta.min_grade)),
                )
            })
            .collect(),
    )
}

/// `at_cutoffs` for every gold query with a relevant doc, by id.
pub fn run_at_cutoffs(
    gold: &GoldSet,
    run: &ObservedRun,
    cutoffs: &[u32],
) -> rustc_hash::FxHashMap<String, ByCutoff> {
    gold.queries
        .iter()
        .enumerate()
        .filter(|(_, q)| !q.is_no_answer())
        .map(|(qi, q)| {
            let obs = run.observed[qi].as_ref();
            (q.id.to_string(), at_cutoffs(gold, qi, obs, cutoffs))
        })
        .collect()
}

/// The mean of each metric at each cutoff over `rows`.
pub fn means_at<'a>(rows: impl Iterator<Item = &'a ByCutoff> + Clone, cutoffs: &[u32]) -> ByCutoff {
    let n = rows.clone().count().max(1) as f64;
    ByCutoff(
        cutoffs
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let mut sum = At::default();
                for r in rows.clone() {
                    let a = &r.0[i].1;
                    sum.rr += a.rr;
                    sum.recall += a.recall;
                    sum.hit += a.hit;
                    sum.precision += a.precision;
                    sum.ndcg += a.ndcg;
                }
                let mean = At {
                    rr: sum.rr / n,
                    recall: sum.recall / n,
                    hit: sum.hit / n,
                    precision: sum.precision / n,
                    ndcg: sum.ndcg / n,
                };
                (c, mean)
            })
            .collect(),
    )
}

/// How `eval` orders its per-query rows: `eval --sort`'s values (clap's derive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SortBy {
    // Natural order of id. (Plain comments: a doc comment would become `--help` text.)
    #[default]
    Id,
    // Worst first: RR ascending, then Recall ascending, then id.
    Worst,
}

/// Order rows: by id (natural order), or worst first.
pub fn sort_eval_rows(rows: &mut [super::EvalRow], by: SortBy) {
    let id = |a: &super::EvalRow, b: &super::EvalRow| crate::text::natural_cmp(&a.id, &b.id);
    match by {
        SortBy::Id => rows.sort_unstable_by(id),
        SortBy::Worst => rows.sort_unstable_by(|a, b| {
            a.scores
                .rr
                .total_cmp(&b.scores.rr)
                .then(a.scores.recall.total_cmp(&b.scores.recall))
                .then_with(|| id(a, b))
        }),
    }
}
