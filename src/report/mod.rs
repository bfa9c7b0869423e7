//! Reports: one model per command, computed once; each format only decides how it
//! looks. Ids only: never question text or document content.

pub mod csv;
pub mod json;
pub mod markdown;
pub mod table;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::{Bump, Comparison, MeansReport, QueryRow, Status, ZeroRr};
use crate::eval::{EvalRow, Means};
use crate::gate::{Accepted, Verdict};
use crate::metrics::Metric;
use crate::model::{EvaluatedRun, GoldSet, RunMeta};
use crate::text::{escape_data, escape_property, name_ids_with, safe_id};

/// The report formats. `eval` writes table or JSON; `compare` any of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Markdown,
    Json,
    Csv,
}

pub const SCHEMA_VERSION: &str = "1.0.0";

/// The gold set as every report shows it (SPEC section 7).
#[derive(Debug, Clone, Serialize)]
pub struct GoldContext {
    pub name: String,
    pub version: Option<String>,
    pub frozen_at: Option<String>,
    pub sha256: Option<String>,
    pub frozen: bool,
    pub corpus: Option<String>,
    pub queries: usize,
    pub relevant_per_query: BTreeMap<u32, usize>,
}

impl GoldContext {
    pub fn of(gold: &GoldSet) -> Self {
        let m = &gold.meta;
        Self {
            name: m.name.clone(),
            version: m.version.as_ref().map(ToString::to_string),
            frozen_at: m.frozen_at.clone(),
            sha256: m.sha256.clone(),
            frozen: m.frozen(),
            corpus: m.corpus.clone(),
            queries: gold.queries.len(),
            relevant_per_query: gold.relevant_per_query(),
        }
    }

    pub fn no_answer(&self) -> usize {
        self.relevant_per_query.get(&0).copied().unwrap_or(0)
    }

    /// One line: name, version, date, sha256 prefix or "not frozen".
    pub fn summary(&self) -> String {
        let mut s = self.name.clone();
        if let Some(v) = &self.version {
            s.push_str(&format!(" {v}"));
        }
        if let Some(d) = &self.frozen_at {
            s.push_str(&format!(", frozen_at {d}"));
        }
        match &self.sha256 {
            Some(sha) => s.push_str(&format!(", sha256 {}", &sha[..12.min(sha.len())])),
            None => s.push_str(", not frozen"),
        }
        s
    }

    /// Relevant docs per query as `count:queries` pairs, e.g. `1:5 2:2`.
    pub fn distribution(&self) -> String {
        let dist: Vec<String> = self
            .relevant_per_query
            .iter()
            .filter(|(n, _)| **n > 0)
            .map(|(n, q)| format!("{n}:{q}"))
            .collect();
        dist.join(" ")
    }

    /// Query counts: total, no-answer and relevant docs per query.
    pub fn counts(&self) -> String {
        format!(
            "{} queries, {} no-answer; relevant docs per query (count:queries) {}",
            self.queries,
            self.no_answer(),
            self.distribution()
        )
    }
}

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
}

impl EvalReport {
    pub fn new(gold: &GoldSet, run: &EvaluatedRun, k: u32, warnings: Vec<String>) -> Self {
        let (per_query, no_answer) = crate::eval::score_run(gold, run, k);
        Self {
            schema_version: SCHEMA_VERSION,
            gold: GoldContext::of(gold),
            run: RunContext::of(&run.meta),
            k,
            means: Means::mean_of(per_query.iter().map(|r| &r.scores)),
            per_query,
            no_answer,
            warnings,
        }
    }
}

/// What the gate decided about a comparison, as the report shows it.
pub struct Decided {
    pub verdict: Verdict,
    pub accepted: Vec<Accepted>,
    pub warnings: Vec<String>,
}

/// The comparison report; JSON keys are part of the contract (docs/contract.md, "JSON").
#[derive(Debug, Clone, Serialize)]
pub struct CompareReport {
    pub schema_version: &'static str,
    pub gold: GoldContext,
    pub baseline: RunContext,
    pub candidate: RunContext,
    pub k: u32,
    pub bump: Bump,
    pub reproducibility_check: bool,
    pub nondeterministic: Vec<String>,
    pub means: MeansReport,
    pub zero_rr: ZeroRr,
    /// Rank-biased overlap of every query in both runs (docs/contract.md §17).
    pub drift: crate::compare::drift::Drift,
    pub per_query: Vec<QueryRow>,
    pub newly_failed: Vec<String>,
    pub fixed: Vec<String>,
    pub still_failing: Vec<String>,
    /// Ids flaky on either side (§17).
    pub flaky: Vec<String>,
    pub accepted: Vec<Accepted>,
    pub no_answer: Vec<String>,
    pub warnings: Vec<String>,
    pub gate: Verdict,
    /// Resampling settings, so a reader can reproduce the statistics.
    pub resamples: u32,
    pub seed: u64,
}

impl CompareReport {
    /// The report of a comparison and the gate's decision about it.
    pub fn new(
        gold: &GoldSet,
        runs: [&RunMeta; 2],
        cmp: Comparison,
        decided: Decided,
        resampling: (u32, u64),
    ) -> Self {
        let ids = |status| crate::compare::ids_with(&cmp.rows, status);
        Self {
            schema_version: SCHEMA_VERSION,
            gold: GoldContext::of(gold),
            baseline: RunContext::of(runs[0]),
            candidate: RunContext::of(runs[1]),
            k: cmp.k,
            bump: cmp.bump,
            reproducibility_check: cmp.bump == Bump::Same,
            newly_failed: ids(Status::NewlyFailed),
            fixed: ids(Status::Fixed),
            still_failing: ids(Status::StillFailing),
            nondeterministic: cmp.nondeterministic,
            flaky: cmp.flaky,
            means: cmp.means,
            zero_rr: cmp.zero_rr,
            drift: cmp.drift,
            per_query: cmp.rows,
            accepted: decided.accepted,
            no_answer: cmp.no_answer,
            warnings: decided.warnings,
            gate: decided.verdict,
            resamples: resampling.0,
            seed: resampling.1,
        }
    }

    pub fn count(&self, status: Status) -> usize {
        self.per_query.iter().filter(|r| r.status == status).count()
    }

    pub fn index_versions(&self) -> String {
        self.index_versions_with("->")
    }

    /// `2.3.0 -> 2.4.0 (minor)`, with the arrow given.
    pub fn index_versions_with(&self, arrow: &str) -> String {
        let v = |r: &RunContext| r.index_version.clone().unwrap_or_else(|| "-".into());
        format!(
            "{} {arrow} {} ({})",
            v(&self.baseline),
            v(&self.candidate),
            self.bump.name()
        )
    }

    /// The verdict's reasons in one line, ids written by `id`; when it passed, why.
    pub fn reasons_line(&self, id: &dyn Fn(&str) -> String) -> String {
        if !self.gate.causes.is_empty() {
            let causes: Vec<String> = self.gate.causes.iter().map(|c| c.render(id)).collect();
            return causes.join("; ");
        }
        let ids: Vec<&str> = self.accepted.iter().map(|a| a.id.as_str()).collect();
        match ids.len() {
            0 => "no query newly failed".to_string(),
            n => format!(
                "{n} newly failed quer{} accepted by the allow-list: {}",
                if n == 1 { "y" } else { "ies" },
                name_ids_with(&ids, id)
            ),
        }
    }

    pub fn is_accepted(&self, id: &str) -> bool {
        self.accepted.iter().any(|a| a.id == id)
    }
}

/// The rows the formats list, selected and ordered once: newly failed in id order
/// (byte order), and every changed row in the report's order.
pub struct Rows<'a> {
    pub newly_failed: Vec<&'a QueryRow>,
    pub changed: Vec<&'a QueryRow>,
}

impl<'a> Rows<'a> {
    pub fn of(r: &'a CompareReport) -> Self {
        let mut newly_failed: Vec<&QueryRow> = r
            .per_query
            .iter()
            .filter(|q| q.status == Status::NewlyFailed)
            .collect();
        newly_failed.sort_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
        let changed = r
            .per_query
            .iter()
            .filter(|q| q.status != Status::Unchanged)
            .collect();
        Self {
            newly_failed,
            changed,
        }
    }

    /// Rows compared but not listed as changed.
    pub fn unchanged(&self, r: &CompareReport) -> usize {
        r.per_query.len() - self.changed.len()
    }
}

/// The verdict as every format names it; each decides how it looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerdictWord {
    Pass,
    Fail,
    /// Failed under `--no-gate`: shown, never enforced.
    FailNotEnforced,
}

impl VerdictWord {
    pub fn of(gate: &Verdict) -> Self {
        match (gate.passed, gate.enforced) {
            (true, _) => Self::Pass,
            (false, true) => Self::Fail,
            (false, false) => Self::FailNotEnforced,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Fail => "FAIL",
            Self::FailNotEnforced => "FAIL (not enforced: --no-gate)",
        }
    }
}

/// The header of the means table (the terminal's and Markdown's).
pub fn means_header(r: &CompareReport) -> [String; 6] {
    [
        format!("metric ({} queries)", r.per_query.len()),
        "baseline".into(),
        "candidate".into(),
        "delta".into(),
        "95% CI of delta".into(),
        "p".into(),
    ]
}

/// The cells of the means table, one row per metric and a last one for zero-RR
/// queries, computed once for every format.
pub fn means_cells(r: &CompareReport) -> Vec<[String; 6]> {
    let mut rows: Vec<[String; 6]> = Metric::ALL
        .iter()
        .map(|&m| {
            let md = r.means.get(m);
            let ci = match (md.ci_low, md.ci_high) {
                (Some(lo), Some(hi)) => format!("[{}, {}]", delta(lo), delta(hi)),
                _ => String::new(),
            };
            [
                m.label(r.k),
                num(md.baseline),
                num(md.candidate),
                delta(md.delta),
                ci,
                md.p_value.map(num).unwrap_or_default(),
            ]
        })
        .collect();
    rows.push([
        format!("zero RR@{}", r.k),
        r.zero_rr.baseline.to_string(),
        r.zero_rr.candidate.to_string(),
        format!("{:+}", r.zero_rr.delta),
        String::new(),
        String::new(),
    ]);
    rows
}

/// A run as every report shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RunContext {
    pub index_version: Option<String>,
    pub corpus: Option<String>,
    pub depth: u32,
    pub filters: BTreeMap<String, String>,
    pub results: String,
    /// How many results files (repeats) the run has (§17); `results` is the first.
    pub repeats: usize,
}

impl RunContext {
    pub fn of(meta: &RunMeta) -> Self {
        Self {
            index_version: meta.index_version.as_ref().map(ToString::to_string),
            corpus: meta.corpus.clone(),
            depth: meta.depth,
            filters: meta.filters.clone(),
            results: meta.results_display.clone(),
            repeats: meta.repeat_count(),
        }
    }
}

/// Filters as `key=value` pairs, or "none".
pub fn filters_text(filters: &BTreeMap<String, String>) -> String {
    if filters.is_empty() {
        "none".to_string()
    } else {
        filters
            .iter()
            .map(|(k, v)| format!("{}={}", safe_id(k), safe_id(v)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A number as reports print it: 4 decimals, like trec_eval.
pub fn num(x: f64) -> String {
    format!("{x:.4}")
}

/// A signed delta with 4 decimals.
pub fn delta(x: f64) -> String {
    if x == 0.0 {
        "0.0000".to_string()
    } else {
        format!("{x:+.4}")
    }
}

/// `b -> c`, or `b` alone when both are the same.
pub fn arrow(b: String, c: String, sign: &str) -> String {
    if b == c { b } else { format!("{b} {sign} {c}") }
}

/// The header of the per-query change table (the terminal's and Markdown's).
pub const CHANGE_HEADER: [&str; 12] = [
    "id",
    "status",
    "first rel",
    "RR",
    "ΔRR",
    "Recall",
    "ΔRecall",
    "Hit",
    "nDCG",
    "ΔnDCG",
    "lost",
    "gained",
];

/// The cells of one per-query change row, computed once for every format; ids are
/// written by `id` and id lists joined by `join`, changes shown with `sign`.
pub fn change_cells(
    q: &crate::compare::QueryRow,
    sign: &str,
    id: &dyn Fn(&str) -> String,
    join: &str,
) -> [String; 12] {
    let (b, c) = (&q.baseline, &q.candidate);
    let list = |ids: &[String]| ids.iter().map(|x| id(x)).collect::<Vec<_>>().join(join);
    [
        id(&q.id),
        q.status.name().to_string(),
        arrow(
            rank(b.first_relevant_rank),
            rank(c.first_relevant_rank),
            sign,
        ),
        arrow(num(b.rr), num(c.rr), sign),
        delta(q.delta.rr),
        arrow(num(b.recall), num(c.recall), sign),
        delta(q.delta.recall),
        arrow(num(b.hit), num(c.hit), sign),
        arrow(num(b.ndcg), num(c.ndcg), sign),
        delta(q.delta.ndcg),
        list(&q.lost),
        list(&q.gained),
    ]
}

/// A rank or "-" when none was returned.
pub fn rank(r: Option<u32>) -> String {
    r.map_or_else(|| "-".to_string(), |r| r.to_string())
}

/// Write the comparison in one format; the same bytes wherever it is written
/// (colour, on the table alone, only when `terminal` and stdout is a terminal
/// without NO_COLOR). JSON is streamed, never held whole in memory.
pub fn write_compare(
    r: &CompareReport,
    format: Format,
    terminal: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Table => {
            out.write_all(table::render_compare(r, terminal && table::colour_stdout()).as_bytes())
        }
        Format::Markdown => out.write_all(markdown::render(r).as_bytes()),
        Format::Json => json::write(r, out),
        Format::Csv => out.write_all(csv::render(r).as_bytes()),
    }
}

/// At most this many workflow commands, then one summary line.
const MAX_ANNOTATIONS: usize = 10;

/// The workflow commands for a GitHub Actions log: one per newly failed query.
pub fn ci_annotations(r: &CompareReport) -> Vec<String> {
    // In the report's order (worst RR change first), so the first ten are the worst.
    let newly: Vec<_> = r
        .per_query
        .iter()
        .filter(|q| q.status == Status::NewlyFailed)
        .collect();
    let mut out: Vec<String> = newly
        .iter()
        .take(MAX_ANNOTATIONS)
        .map(|q| {
            let accepted = r.is_accepted(&q.id);
            let mut msg = format!(
                "query {} newly failed ({}): first relevant rank {} -> {}",
                q.id,
                q.failure_kind.map(|f| f.name()).unwrap_or(""),
                rank(q.baseline.first_relevant_rank),
                rank(q.candidate.first_relevant_rank)
            );
            if !q.lost.is_empty() {
                msg.push_str(&format!("; lost from top {}: {}", r.k, q.lost.join(" ")));
            }
            if accepted {
                msg.push_str(" (accepted by the allow-list)");
            }
            format!(
                "::{} title={}::{}",
                if accepted { "warning" } else { "error" },
                escape_property(&format!("ragdiff: {} newly failed", q.id)),
                escape_data(&msg)
            )
        })
        .collect();
    if newly.len() > MAX_ANNOTATIONS {
        out.push(format!(
            "::error title=ragdiff::{}",
            escape_data(&format!(
                "… and {} more newly failed queries; see the job summary or the JSON report",
                newly.len() - MAX_ANNOTATIONS
            ))
        ));
    }
    out
}

/// Print the workflow commands to stderr when running under GitHub Actions.
pub fn emit_ci_annotations(r: &CompareReport) {
    if crate::text::under_github_actions() {
        for line in ci_annotations(r) {
            crate::output::stderr_line(&line);
        }
    }
}

/// Whether either side has more than one repeat (docs/contract.md §17).
pub fn has_repeats(r: &CompareReport) -> bool {
    r.baseline.repeats > 1 || r.candidate.repeats > 1
}

/// Why a query is flaky: `0 in 2 of 5 candidate repeats`, each flaky side.
pub fn flaky_note(q: &QueryRow) -> String {
    let side = |flaky: bool, zero: u32, of: u32, name: &str| {
        flaky.then(|| format!("0 in {zero} of {of} {name} repeats"))
    };
    [
        side(
            q.baseline_flaky,
            q.baseline_zero_rr_repeats,
            q.repeats[0],
            "baseline",
        ),
        side(
            q.candidate_flaky,
            q.candidate_zero_rr_repeats,
            q.repeats[1],
            "candidate",
        ),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ")
}

/// The flaky rows in id order (byte order).
pub fn flaky_rows(r: &CompareReport) -> Vec<&QueryRow> {
    let mut rows: Vec<&QueryRow> = r
        .per_query
        .iter()
        .filter(|q| q.status == Status::Flaky)
        .collect();
    rows.sort_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
    rows
}

/// An RBO or "-" for none.
pub fn rbo_text(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), num)
}

/// The drift summary in one line: mean RBO over all, gold and unlabelled queries, and
/// the share below 0.5 (the terminal's and Markdown's).
pub fn drift_line(r: &CompareReport) -> String {
    let d = &r.drift;
    let share = d
        .low_rbo_share
        .map_or_else(|| "-".to_string(), |s| format!("{:.1}%", s * 100.0));
    let part = |name: &str, mean: Option<f64>, n: usize| match mean {
        Some(m) => format!("{name} {} over {n}", num(m)),
        None => format!("no {name} query"),
    };
    format!(
        "mean RBO {} over {} (p = {}): {}, {}; {share} below {}",
        rbo_text(d.mean_rbo),
        crate::text::plural(d.queries(), "query", "queries"),
        d.rbo_p,
        part("gold", d.labelled_mean_rbo, d.labelled_queries),
        part("unlabelled", d.unlabelled_mean_rbo, d.unlabelled_queries),
        crate::compare::drift::LOW_RBO,
    )
}
