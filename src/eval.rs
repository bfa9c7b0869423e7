//! One run against the gold set: per-query scores and means (the `eval` command's
//! model; `compare` builds on the same scoring).

use serde::Serialize;

use crate::metrics::{self, Scores};
use crate::model::{EvaluatedRun, GoldSet};
use crate::report::{GoldContext, RunContext, SCHEMA_VERSION};

#[derive(Debug, Clone, Serialize)]
pub struct EvalRow {
    pub id: String,
    #[serde(flatten)]
    pub scores: Scores,
}

/// Means over the queries with at least one relevant doc.
pub type Means = metrics::Values;

/// The `eval` report (JSON keys are part of the contract).
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub schema_version: &'static str,
    pub gold: GoldContext,
    pub run: RunContext,
    pub k: u32,
    pub per_query: Vec<EvalRow>,
    pub means: Means,
    pub no_answer: Vec<String>,
    pub warnings: Vec<String>,
    /// Findings that are not warnings (tied scores ordered other than trec_eval's
    /// tie-break): shown in the table, never a `::warning`.
    pub notes: Vec<String>,
}

/// Score every gold query with a relevant doc; no-answer queries are listed apart.
/// Rows are in byte order of id.
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
        });
    }
    rows.sort_unstable_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
    no_answer.sort_unstable();
    (rows, no_answer)
}

pub fn build(gold: &GoldSet, run: &EvaluatedRun, k: u32, warnings: Vec<String>) -> EvalReport {
    let (per_query, no_answer) = score_run(gold, run, k);
    let means = Means::mean_of(per_query.iter().map(|r| &r.scores));
    EvalReport {
        schema_version: SCHEMA_VERSION,
        gold: GoldContext::of(gold),
        run: RunContext::of(&run.meta),
        k,
        per_query,
        means,
        no_answer,
        warnings,
        notes: Vec::new(),
    }
}
