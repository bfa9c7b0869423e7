//! Reports: one model per command, computed once; each format only decides how it
//! looks. Ids only: never question text or document content.

pub mod csv;
pub mod json;
pub mod markdown;
pub mod table;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cli::Format;
use crate::compare::{CompareReport, Status};
use crate::model::{GoldSet, RunMeta};

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
        let mut s = safe_id(&self.name);
        if let Some(v) = &self.version {
            s.push_str(&format!(" {v}"));
        }
        if let Some(d) = &self.frozen_at {
            s.push_str(&format!(", frozen_at {}", safe_id(d)));
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

/// A run as every report shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RunContext {
    pub index_version: Option<String>,
    pub corpus: Option<String>,
    pub depth: u32,
    pub filters: BTreeMap<String, String>,
    pub results: String,
}

impl RunContext {
    pub fn of(meta: &RunMeta) -> Self {
        Self {
            index_version: meta.index_version.as_ref().map(ToString::to_string),
            corpus: meta.corpus.clone(),
            depth: meta.depth,
            filters: meta.filters.clone(),
            results: meta.results_display.clone(),
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

/// An id made safe for a message or a terminal: control and format characters
/// shown escaped ([`crate::text::shown`]).
pub fn safe_id(id: &str) -> String {
    crate::text::shown_string(id)
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

/// The comparison in one format, as text (tests and small reports).
pub fn render_compare(r: &CompareReport, format: Format) -> String {
    let mut buf = Vec::new();
    write_compare(r, format, false, &mut buf).expect("writing to memory cannot fail");
    String::from_utf8(buf).expect("reports are UTF-8")
}

/// At most this many workflow commands, then one summary line.
const MAX_ANNOTATIONS: usize = 10;

/// Escape a workflow command's message (GitHub's rules).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow command's property, such as its title.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The workflow commands for a GitHub Actions log: one per newly failed query.
pub fn ci_annotations(r: &CompareReport) -> Vec<String> {
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
                safe_id(&q.id),
                q.failure_kind.map(|f| f.name()).unwrap_or(""),
                rank(q.baseline.first_relevant_rank),
                rank(q.candidate.first_relevant_rank)
            );
            if !q.lost.is_empty() {
                let lost: Vec<String> = q.lost.iter().map(|d| safe_id(d)).collect();
                msg.push_str(&format!("; lost from top {}: {}", r.k, lost.join(" ")));
            }
            if accepted {
                msg.push_str(" (accepted by the allow-list)");
            }
            format!(
                "::{} title={}::{}",
                if accepted { "warning" } else { "error" },
                escape_property(&format!("ragdiff: {} newly failed", safe_id(&q.id))),
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
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        for line in ci_annotations(r) {
            crate::text::eprint_workflow_command(&line);
        }
    }
}
