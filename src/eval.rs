//! One run against the gold set: per-query scores (the `eval` command's scoring;
//! `compare` builds on the same metrics). The report around it is `report`'s.

use serde::Serialize;

use crate::metrics::judged::{judged_at_k, unjudged_at_k};
use crate::metrics::{self, Scores};
use crate::model::{EvaluatedRun, GoldSet};

pub mod cutoffs;

#[derive(Debug, Clone, Serialize)]
pub struct EvalRow {
    pub id: String,
    #[serde(flatten)]
    pub scores: Scores,
    /// Docs in the top k the gold has no judgement for (docs/contract.md §16).
    pub unjudged_at_k: u32,
    /// Judged@k, averaged into `means.judged`.
    #[serde(skip)]
    pub judged: f64,
    /// Values at each extra cutoff (`--cutoffs`, `docs/contract.md §19`).
    #[serde(skip_serializing_if = "cutoffs::ByCutoff::is_empty")]
    pub at: cutoffs::ByCutoff,
}

/// Means over the queries with at least one relevant doc.
pub type Means = metrics::Values;

/// `eval`'s means: every metric's, and Judged@k's (docs/contract.md §16).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EvalMeans {
    #[serde(flatten)]
    pub values: Means,
    pub judged: f64,
}

impl EvalMeans {
    pub fn of(rows: &[EvalRow]) -> Self {
        Self {
            values: Means::mean_of(rows.iter().map(|r| &r.scores)),
            judged: metrics::mean(rows.iter().map(|r| r.judged)),
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
/// Rows are in natural order of id (`docs/contract.md §19`).
pub fn score_run(gold: &GoldSet, run: &EvaluatedRun, k: u32) -> (Vec<EvalRow>, Vec<String>) {
    let mut rows = Vec::new();
    let mut no_answer = Vec::new();
    for (q, obs) in gold.queries.iter().zip(&run.observed) {
        if q.is_no_answer() {
            no_answer.push(q.id.to_string());
            continue;
        }
        rows.push(EvalRow {
            id: q.id.to_string(),
            scores: metrics::evaluate(q, obs.as_ref(), k, gold.meta.min_grade),
            unjudged_at_k: unjudged_at_k(obs.as_ref(), k),
            judged: judged_at_k(obs.as_ref(), k),
            at: Default::default(),
        });
    }
    rows.sort_unstable_by(|a, b| crate::text::natural_cmp(&a.id, &b.id));
    crate::text::sort_natural(&mut no_answer);
    (rows, no_answer)
}
