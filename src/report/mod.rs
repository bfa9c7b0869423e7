//! Reports: one model per command, computed once; each format only decides how it
//! looks. Ids only: never question text or document content.

pub mod csv;
pub mod fit;
pub mod history;
pub mod html;
pub mod json;
pub mod label_queue;
pub mod markdown;
pub mod risk;
pub mod table;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::MeanDelta;
use crate::compare::holes::LabelItem;
use crate::compare::segments::Segment;
use crate::compare::{Bump, Comparison, MeansReport, QueryRow, Status, ZeroRr};
use crate::eval::{EvalMeans, EvalRow};
use crate::gate::{Accepted, Verdict};
use crate::metrics::Metric;
use crate::model::{GoldSet, Id, ObservedRun, RunMeta, Side};
use crate::text::{escape_data, escape_property, name_ids_with, safe_id};

/// The report formats. `eval` writes table or JSON; `compare` any of them. Also
/// `compare --format`'s values (clap's derive; the label queue is not one of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Markdown,
    Json,
    Csv,
    /// One self-contained HTML file (docs/contract.md §9.10).
    Html,
    // The label queue (docs/contract.md §9.6): an export, never `--format`.
    #[value(skip)]
    LabelQueue,
}

pub const SCHEMA_VERSION: &str = "2.3.0";

/// The gold set as every report shows it (docs/contract.md §9.2).
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

    /// Query counts: total, no-answer and relevant docs per query (min, median, max;
    /// the full histogram stays in JSON, docs/contract.md §9.8).
    pub fn counts(&self) -> String {
        format!(
            "{} queries, {} no-answer; relevant docs per query {}",
            self.queries,
            self.no_answer(),
            self.relevant_range()
        )
    }

    /// `min 1, median 2, max 7` over the queries with a relevant doc (a median
    /// between two counts ends in `.5`).
    pub fn relevant_range(&self) -> String {
        let hist: Vec<(u32, usize)> = self
            .relevant_per_query
            .iter()
            .filter(|(n, q)| **n > 0 && **q > 0)
            .map(|(n, q)| (*n, *q))
            .collect();
        let total: usize = hist.iter().map(|(_, q)| q).sum();
        let (Some(min), Some(max)) = (hist.first(), hist.last()) else {
            return "min 0, median 0, max 0".into();
        };
        // The i-th smallest count (0-based), walking the histogram.
        let nth = |i: usize| {
            let mut seen = 0;
            for (n, q) in &hist {
                seen += q;
                if i < seen {
                    return *n;
                }
            }
            max.0
        };
        let median = if total % 2 == 1 {
            nth(total / 2).to_string()
        } else {
            let sum = nth(total / 2 - 1) + nth(total / 2);
            if sum % 2 == 0 {
                (sum / 2).to_string()
            } else {
                format!("{}.5", sum / 2)
            }
        };
        format!("min {}, median {median}, max {}", min.0, max.0)
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
    pub means: EvalMeans,
    /// Means at each extra cutoff (`--cutoffs`, `docs/contract.md §2.8`).
    #[serde(skip_serializing_if = "crate::eval::cutoffs::ByCutoff::is_empty")]
    pub means_at: crate::eval::cutoffs::ByCutoff,
    pub no_answer: Vec<String>,
    pub warnings: Vec<String>,
    /// Findings that are not warnings, never a `::warning`: tied scores ordered
    /// other than trec_eval's tie-break, a gold that lists relevant docs only
    /// (docs/contract.md §6.3).
    pub notes: Vec<String>,
}

impl EvalReport {
    /// Add each named measure's values and means (`--measure`, `docs/contract.md §5.4`).
    pub fn with_measures(
        mut self,
        gold: &GoldSet,
        run: &ObservedRun,
        measures: &[crate::metrics::named::Measure],
    ) -> Self {
        use crate::eval::measures::{Named, of_query};
        if measures.is_empty() {
            return self;
        }
        for row in &mut self.per_query {
            let Some(qi) = gold.lookup(&row.id).map(|i| i as usize) else {
                continue;
            };
            row.measures = of_query(&gold.queries[qi], run, qi, measures, gold.meta.min_grade);
        }
        self.means.measures = Named::mean_of(self.per_query.iter().map(|r| &r.measures), measures);
        self
    }

    /// Add the values at each extra cutoff and order the rows (`docs/contract.md §2.8`).
    pub fn with_cutoffs(
        mut self,
        gold: &GoldSet,
        run: &ObservedRun,
        cutoffs: &[u32],
        sort: crate::eval::cutoffs::SortBy,
    ) -> Self {
        use crate::eval::cutoffs;
        if !cutoffs.is_empty() {
            let mut at = cutoffs::run_at_cutoffs(gold, run, cutoffs);
            for row in &mut self.per_query {
                row.at = at.remove(&row.id).unwrap_or_default();
            }
            self.means_at = cutoffs::means_at(self.per_query.iter().map(|r| &r.at), cutoffs);
        }
        cutoffs::sort_eval_rows(&mut self.per_query, sort);
        self
    }

    /// Add every metric on the judged docs only, per query and as means
    /// (`eval --judged-only`, docs/contract.md §5.3).
    pub fn with_judged_only(mut self, gold: &GoldSet, run: &ObservedRun) -> Self {
        let min_grade = gold.meta.min_grade;
        for row in &mut self.per_query {
            if let Some(qi) = gold.lookup(&row.id) {
                let (qi, q) = (qi as usize, &gold.queries[qi as usize]);
                let s = crate::eval::judged_only_over_repeats(q, run, qi, self.k, min_grade);
                row.judged_only = Some(s);
            }
        }
        let rows = self.per_query.iter().filter_map(|r| r.judged_only.as_ref());
        self.means.judged_only = Some(crate::eval::Means::mean_of(rows));
        self
    }

    pub fn new(
        gold: &GoldSet,
        run: &ObservedRun,
        k: u32,
        warnings: Vec<String>,
        notes: Vec<String>,
    ) -> Self {
        let (per_query, no_answer) = crate::eval::score_run(gold, run, k);
        Self {
            schema_version: SCHEMA_VERSION,
            gold: GoldContext::of(gold),
            run: RunContext::of_run(run),
            k,
            means: EvalMeans::of(&per_query),
            means_at: Default::default(),
            per_query,
            no_answer,
            warnings,
            notes: [crate::compare::holes::gold_notes(gold), notes].concat(),
        }
    }
}

/// What the gate decided about a comparison, as the report shows it.
pub struct Decided {
    pub verdict: Verdict,
    pub accepted: Vec<Accepted>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
}

/// The comparison report; JSON keys are part of the contract (docs/contract.md §10).
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
    /// URisk and TRisk over every compared query, per metric and alpha
    /// (docs/contract.md §7.4).
    pub risk: Vec<crate::compare::risk::Risk>,
    /// Per-tag results, worst RR delta first (docs/contract.md §6.6).
    pub segments: Vec<Segment>,
    /// Rank-biased overlap of every query in both runs (docs/contract.md §6.5).
    pub drift: crate::compare::drift::Drift,
    /// Means at each extra cutoff (`--cutoffs`, docs/contract.md §6.7).
    #[serde(skip_serializing_if = "crate::compare::cutoffs::MeansAt::is_empty")]
    pub means_at: crate::compare::cutoffs::MeansAt,
    /// Each side object gains `at` under `--cutoffs`.
    #[serde(serialize_with = "crate::compare::cutoffs::serialize_rows")]
    pub per_query: Vec<QueryRow>,
    pub newly_failed: Vec<String>,
    pub fixed: Vec<String>,
    pub still_failing: Vec<String>,
    /// Suspect new failures (docs/contract.md §6.3), in natural order.
    pub suspect: Vec<String>,
    /// Newly failed ids whose candidate top k holds no unjudged doc: no label can
    /// rescue them (docs/contract.md §5.3), in natural order.
    pub no_label_can_rescue: Vec<String>,
    /// Ids flaky on either side (§6.5).
    pub flaky: Vec<String>,
    /// Newly failed ids one run of an approximate index cannot confirm (§6.5).
    pub unconfirmed: Vec<String>,
    /// Both sides' latency statistics (docs/contract.md §6.9); absent unless both
    /// have latency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<crate::compare::latency::Latency>,
    /// The fields of the candidate's manifest that changed a status (§6.5).
    #[serde(skip)]
    pub decided_by_candidate: Vec<String>,
    pub accepted: Vec<Accepted>,
    pub no_answer: Vec<String>,
    pub warnings: Vec<String>,
    /// Findings that are not warnings, never a `::warning`: tied scores ordered
    /// other than trec_eval's tie-break, a gold that lists relevant docs only
    /// (docs/contract.md §6.3).
    pub notes: Vec<String>,
    pub gate: Verdict,
    /// Resampling settings, so a reader can reproduce the statistics: `--resamples`
    /// when given, null when each test's count follows its moved queries (§7).
    pub resamples: Option<u32>,
    pub seed: u64,
    /// The label queue, filled only when it is exported.
    #[serde(skip)]
    pub label_queue: Vec<LabelItem>,
    /// `--min-segment-queries`: smaller segments are "too few to test".
    pub min_segment_queries: usize,
    /// Each per-query row's tags, `;`-joined, in `per_query`'s order (the CSV's
    /// `tags` column); empty when the gold has none.
    #[serde(skip)]
    pub row_tags: Vec<String>,
    /// `--changed-since REV`: the gate's inputs that differ from REV
    /// (docs/contract.md §12.1); absent without the flag or when git could not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_inputs: Option<crate::model::ChangedInputs>,
    /// When newly failed queries fail the gate: the allow-list lines that would
    /// accept them and the command that writes them (docs/contract.md §8.5).
    #[serde(skip)]
    pub accept_hint: Option<AcceptHint>,
    /// The ranked lists of the changed queries and the doc titles, read only for
    /// the HTML report (docs/contract.md §9.10).
    #[serde(skip)]
    pub html: Option<html::Extra>,
    /// The `ragdiff.toml` that applied; null: none, the flags' defaults
    /// (docs/contract.md §8.6).
    pub policy: Option<PolicyRef>,
    /// The flags given that set the policy over that file or the defaults
    /// (`--max-drop`, `--seed`; docs/contract.md §9.2); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub policy_flags: Vec<&'static str>,
    /// The last promotions under this very gold, from `history.jsonl` beside the
    /// baseline manifest (docs/contract.md §9.11); absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<crate::model::history::HistoryLine>,
}

/// Where the first relevant doc sits, per side: rank 1, ranks 2..k, ranks
/// k+1..depth, not returned (the Markdown chart and the HTML histogram).
pub struct RankBuckets {
    pub labels: Vec<String>,
    /// Queries per bucket, each side.
    pub counts: crate::model::Side<Vec<usize>>,
}

impl RankBuckets {
    pub fn of(r: &CompareReport) -> Self {
        let (k, depth) = (r.k, r.baseline.depth);
        let mut labels: Vec<String> = vec!["rank 1".into()];
        if k >= 2 {
            labels.push(if k == 2 {
                "rank 2".into()
            } else {
                format!("ranks 2-{k}")
            });
        }
        if depth > k {
            labels.push(if depth == k + 1 {
                format!("rank {depth}")
            } else {
                format!("ranks {}-{depth}", k + 1)
            });
        }
        labels.push("not returned".into());
        let bucket = |rank: Option<u32>| -> usize {
            match rank {
                Some(1) => 0,
                Some(x) if x <= k => 1,
                Some(_) => labels.len() - 2,
                None => labels.len() - 1,
            }
        };
        let mut counts = crate::model::Side::both(vec![0usize; labels.len()]);
        for q in &r.per_query {
            counts.baseline[bucket(q.scores.baseline.first_relevant_rank)] += 1;
            counts.candidate[bucket(q.scores.candidate.first_relevant_rank)] += 1;
        }
        Self { labels, counts }
    }
}

/// The policy file that applied: its path as found and its sha256 (JSON `policy`).
#[derive(Debug, Clone, Serialize)]
pub struct PolicyRef {
    pub path: String,
    pub sha256: String,
}

/// The allow-list lines that would accept the failing new failures, and the command.
#[derive(Debug, Clone)]
pub struct AcceptHint {
    pub list: String,
    /// Empty when every failing new failure is suspect or errored.
    pub lines: Vec<String>,
    pub command: String,
    /// Suspect new failures: to label, never to accept (docs/contract.md §8.5).
    pub suspect: Vec<String>,
    /// New failures the candidate's retriever errored on: to record again, never to
    /// accept (docs/contract.md §6.8).
    pub errored: Vec<String>,
}

impl AcceptHint {
    /// The line that says the suspect ones are to be labelled, ids written by `id`.
    pub fn label_first(&self, k: u32, id: &dyn Fn(&str) -> String) -> Option<String> {
        (!self.suspect.is_empty()).then(|| {
            format!(
                "label first, do not accept: {} (suspect: unjudged docs entered the top {k}; --export-label-queue FILE lists the docs to judge)",
                name_ids_with(&self.suspect, id)
            )
        })
    }

    /// The line that says the errored ones are to be recorded again, ids by `id`.
    pub fn record_again(&self, id: &dyn Fn(&str) -> String) -> Option<String> {
        (!self.errored.is_empty()).then(|| {
            format!(
                "record again, do not accept: {} (errored: the candidate's retriever failed on them, so their empty rankings say nothing of the index; fix the retriever or its backend and run `ragdiff record` again)",
                name_ids_with(&self.errored, id)
            )
        })
    }
}

impl CompareReport {
    /// The report of a comparison and the gate's decision about it.
    pub fn new(
        gold: &GoldSet,
        runs: Side<&RunMeta>,
        cmp: Comparison,
        decided: Decided,
        resampling: crate::stats::Resampling,
    ) -> Self {
        let ids = |status| crate::compare::ids_with(&cmp.rows, status);
        let mut decided_by_candidate = decided_by_candidate(&cmp);
        // The candidate's `index_version`, the baseline's, pooled both sides (§6.4).
        let lost = lost_when_pooled(cmp.bump == Bump::Same, &cmp.rows);
        if !lost.is_empty() {
            decided_by_candidate.insert(
                0,
                format!(
                    "index_version (the baseline's: the repeats were pooled as one index, so {} lost on the candidate {} flaky, not newly failed)",
                    crate::text::plural(lost.len(), "query", "queries"),
                    if lost.len() == 1 { "is" } else { "are" },
                ),
            );
        }
        Self {
            decided_by_candidate,
            schema_version: SCHEMA_VERSION,
            gold: GoldContext::of(gold),
            baseline: RunContext {
                errored: cmp.errored.baseline.clone(),
                ..RunContext::of(runs.baseline)
            },
            candidate: RunContext {
                errored: cmp.errored.candidate.clone(),
                ..RunContext::of(runs.candidate)
            },
            k: cmp.k,
            bump: cmp.bump,
            reproducibility_check: cmp.bump == Bump::Same,
            newly_failed: ids(Status::NewlyFailed),
            fixed: ids(Status::Fixed),
            still_failing: ids(Status::StillFailing),
            suspect: suspect_ids(&cmp.rows),
            no_label_can_rescue: crate::compare::holes::no_label_can_rescue(&cmp.rows),
            nondeterministic: cmp.nondeterministic,
            flaky: cmp.flaky,
            unconfirmed: cmp.unconfirmed,
            latency: cmp.latency.both.clone(),
            means: cmp.means,
            zero_rr: cmp.zero_rr,
            risk: cmp.risk,
            segments: cmp.segments,
            drift: cmp.drift,
            means_at: cmp.means_at,
            per_query: cmp.rows,
            accepted: decided.accepted,
            no_answer: cmp.no_answer,
            warnings: decided.warnings,
            notes: [crate::compare::holes::gold_notes(gold), decided.notes].concat(),
            gate: decided.verdict,
            resamples: (resampling.resamples != 0).then_some(resampling.resamples),
            seed: resampling.seed,
            label_queue: Vec::new(),
            min_segment_queries: crate::compare::segments::MIN_QUERIES,
            row_tags: Vec::new(),
            changed_inputs: None,
            accept_hint: None,
            html: None,
            policy: None,
            policy_flags: Vec::new(),
            history: Vec::new(),
        }
    }

    /// The policy line's text, the path written by `path`: `ragdiff.toml (sha256
    /// 0123456789ab)`, or `no ragdiff.toml: defaults`, then `, with flags
    /// --max-drop, --seed` when flags set some of it (docs/contract.md §9.2).
    pub fn policy_text(&self, path: &dyn Fn(&str) -> String) -> String {
        let applied = match &self.policy {
            Some(p) => format!(
                "{} (sha256 {})",
                path(&p.path),
                &p.sha256[..12.min(p.sha256.len())]
            ),
            None => "no ragdiff.toml: defaults".to_string(),
        };
        if self.policy_flags.is_empty() {
            applied
        } else {
            format!("{applied}, with flags {}", self.policy_flags.join(", "))
        }
    }

    /// Each side's chunk map (docs/contract.md §2.11), `baseline X, candidate Y`,
    /// when either side has one.
    pub fn doc_maps_text(&self, path: &dyn Fn(&str) -> String) -> Option<String> {
        (self.baseline.doc_map.is_some() || self.candidate.doc_map.is_some()).then(|| {
            format!(
                "baseline {}, candidate {}",
                self.baseline.doc_map_text(path),
                self.candidate.doc_map_text(path)
            )
        })
    }

    /// The verdict block's line about `--changed-since` (docs/contract.md §12.1),
    /// paths through `path` and what changed in the policy through `text` (escaped
    /// and capped by each format).
    pub fn changed_line(
        &self,
        path: &dyn Fn(&str) -> String,
        text: &dyn Fn(&str) -> String,
    ) -> Option<String> {
        let c = self.changed_inputs.as_ref()?;
        let rev = safe_id(&c.since);
        if c.changed.is_empty() {
            return Some(format!(
                "no gate input changed since {rev} ({} files checked)",
                c.checked
            ));
        }
        let items: Vec<String> = c
            .changed
            .iter()
            .map(|i| {
                let details: Vec<String> = i.details.iter().map(|d| text(d)).collect();
                let sep = if details.is_empty() { "" } else { ": " };
                format!(
                    "{} {} ({}{sep}{})",
                    i.input,
                    path(&i.path),
                    i.change,
                    details.join("; ")
                )
            })
            .collect();
        Some(format!(
            "this pull request changes the gate's inputs since {rev}: {}",
            items.join(", ")
        ))
    }

    /// Record the segment threshold and every row's tags (docs/contract.md §6.6).
    pub fn attach_tags(&mut self, gold: &GoldSet, min_segment_queries: usize) {
        self.min_segment_queries = min_segment_queries;
        if gold.tags.is_empty() {
            return;
        }
        self.row_tags = self
            .per_query
            .iter()
            .map(|q| {
                let tags = gold
                    .lookup(&q.id)
                    .map_or(&[][..], |i| gold.tags.of(i as usize));
                let labels: Vec<&str> = tags
                    .iter()
                    .map(|&t| gold.tags.labels[t as usize].as_str())
                    .collect();
                labels.join(";")
            })
            .collect();
    }

    pub fn count(&self, status: Status) -> usize {
        self.per_query.iter().filter(|r| r.status == status).count()
    }

    pub fn index_versions(&self) -> String {
        self.index_versions_with("->")
    }

    /// `2.3.0 -> 2.4.0 (minor)`, with the arrow given.
    pub fn index_versions_with(&self, arrow: &str) -> String {
        self.index_versions_with_each(&|v| v.to_string(), arrow)
    }

    /// [`Self::index_versions_with`], each version written by `each` (Markdown caps
    /// them).
    pub fn index_versions_with_each(&self, each: &dyn Fn(&str) -> String, arrow: &str) -> String {
        let v = |r: &RunContext| each(r.index_version.as_deref().unwrap_or("-"));
        // docs/contract.md §6.1: versions that are not both semantic have no order.
        let bump = match self.bump {
            Bump::NotSemver => "version bump: not semver",
            b => b.name(),
        };
        format!(
            "{} {arrow} {} ({bump})",
            v(&self.baseline),
            v(&self.candidate),
        )
    }

    /// The verdict's reasons in one line, ids written by `id` (the first
    /// [`REASONS_SHOWN`], then how many more, docs/contract.md §8); when it passed,
    /// why, and the drops the comparison cannot see (docs/contract.md §7.3).
    pub fn reasons_line(&self, id: &dyn Fn(&str) -> String) -> String {
        let reasons = self.reasons_only(id);
        match self.gate.unseen_text(self.k, self.per_query.len(), id) {
            Some(unseen) => format!("{reasons}; {unseen}"),
            None => reasons,
        }
    }

    fn reasons_only(&self, id: &dyn Fn(&str) -> String) -> String {
        let all = &self.gate.causes;
        if !all.is_empty() {
            let mut line = all
                .iter()
                .take(REASONS_SHOWN)
                .map(|c| c.render(id))
                .collect::<Vec<_>>()
                .join("; ");
            if all.len() > REASONS_SHOWN {
                // 540 failing rules made a 30 KB line; JSON `gate.reasons` keeps all
                let more = all.len() - REASONS_SHOWN;
                line.push_str(&format!("; … and {more} more reasons; the JSON has all"));
            }
            return line;
        }
        let warned = &self.gate.suspects_warned;
        if !warned.is_empty() {
            return format!(
                "{} newly failed ({} suspect: label first; --suspects warn): {}",
                crate::text::plural(warned.len(), "query", "queries"),
                warned.len(),
                name_ids_with(warned, id)
            );
        }
        if let (false, Some(block)) = (self.gate.not_blocking.is_empty(), &self.gate.block) {
            let ids = &self.gate.not_blocking;
            return format!(
                "{} newly failed, none that must pass (block = {block}): {}",
                crate::text::plural(ids.len(), "query", "queries"),
                name_ids_with(ids, id)
            );
        }
        let ids: Vec<&str> = self.accepted.iter().map(|a| a.id.as_str()).collect();
        // Pooled under the baseline's version, a query the candidate lost is flaky
        // (§6.4): a verdict line read alone says so.
        let lost = lost_when_pooled(self.reproducibility_check, &self.per_query);
        // Across versions, a query lost in some candidate repeats but not most is
        // flaky by the majority rule (§6.5): a verdict line read alone says so too.
        let lost_in_some = lost_in_some_repeats(self.reproducibility_check, &self.per_query);
        match ids.len() {
            0 if !lost.is_empty() => format!(
                "no query newly failed, but {} lost in most candidate repeats {} flaky under the baseline's index version (pooled): {}",
                crate::text::plural(lost.len(), "query", "queries"),
                if lost.len() == 1 { "is" } else { "are" },
                name_ids_with(&lost, id)
            ),
            0 if !lost_in_some.is_empty() => format!(
                "no query newly failed, but {} lost in some candidate repeats, not most, {} flaky: {}",
                crate::text::plural(lost_in_some.len(), "query", "queries"),
                if lost_in_some.len() == 1 { "is" } else { "are" },
                name_ids_with(&lost_in_some, id)
            ),
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

    /// A newly failed query `[gate] block` leaves to the other rules (§8.7).
    pub fn is_not_blocking(&self, id: &str) -> bool {
        self.gate.not_blocking.iter().any(|b| b == id)
    }
}

/// Ids of the suspect rows, in natural order.
fn suspect_ids(rows: &[QueryRow]) -> Vec<String> {
    let mut ids: Vec<String> = rows
        .iter()
        .filter(|r| r.holes.suspect)
        .map(|r| r.id.to_string())
        .collect();
    crate::text::sort_natural(&mut ids);
    ids
}

/// The rows the formats list, selected and ordered once: newly failed in natural id
/// order, and every changed row in the report's order.
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
        newly_failed.sort_by(|a, b| crate::text::natural_cmp(&a.id, &b.id));
        // Changed: RR@k, Recall@k or nDCG@k moved (docs/contract.md §9.8).
        let changed = r
            .per_query
            .iter()
            .filter(|q| crate::compare::moved(q))
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
    /// A non-inferiority test could not tell, nothing failed (docs/contract.md §8.3).
    Inconclusive,
    /// Inconclusive under `--no-gate`.
    InconclusiveNotEnforced,
    /// Inconclusive under `--inconclusive pass`: exit 0.
    InconclusivePasses,
}

impl VerdictWord {
    pub fn of(gate: &Verdict) -> Self {
        use crate::gate::Outcome;
        match (gate.verdict, gate.enforced) {
            (Outcome::Pass, _) => Self::Pass,
            (Outcome::Fail, true) => Self::Fail,
            (Outcome::Fail, false) => Self::FailNotEnforced,
            (Outcome::Inconclusive, false) => Self::InconclusiveNotEnforced,
            (Outcome::Inconclusive, true) if gate.passed => Self::InconclusivePasses,
            (Outcome::Inconclusive, true) => Self::Inconclusive,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Fail => "FAIL",
            Self::FailNotEnforced => "FAIL (not enforced: --no-gate)",
            Self::Inconclusive => "INCONCLUSIVE",
            Self::InconclusiveNotEnforced => "INCONCLUSIVE (not enforced: --no-gate)",
            Self::InconclusivePasses => "INCONCLUSIVE (passes: inconclusive = pass)",
        }
    }

    /// How the verdict is marked: `pass`, `fail` or `warn` (colour, emoji, class).
    pub fn tone(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            _ => "warn",
        }
    }
}

/// The header of the means table (the terminal's and Markdown's).
pub fn means_header(r: &CompareReport) -> [String; 9] {
    [
        format!("metric ({} queries)", r.per_query.len()),
        "baseline".into(),
        "candidate".into(),
        "delta".into(),
        "95% CI of delta".into(),
        "p".into(),
        "p (Holm)".into(),
        "d_z".into(),
        "detects >=".into(),
    ]
}

/// The cells of the means table, one row per metric and a last one for zero-RR
/// queries, computed once for every format.
pub fn means_cells(r: &CompareReport) -> Vec<[String; 9]> {
    let mut rows: Vec<[String; 9]> = Metric::ALL
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
                md.p_value.map(|p| p_text(p, md)).unwrap_or_default(),
                md.p_adjusted.map(|p| p_text(p, md)).unwrap_or_default(),
                effect_cell(md.effect_size),
                mde_cell(md.mde),
            ]
        })
        .collect();
    rows.extend(cutoff_mean_rows(r));
    rows.extend(named_mean_rows(r));
    let j = &r.means.judged;
    rows.push([
        format!("Judged@{}", r.k),
        num(j.baseline),
        num(j.candidate),
        delta(j.delta),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ]);
    rows.push([
        format!("zero RR@{}", r.k),
        r.zero_rr.baseline.to_string(),
        r.zero_rr.candidate.to_string(),
        format!("{:+}", r.zero_rr.delta),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ]);
    rows
}

/// The named measures with a row of their own in the means table (table, Markdown,
/// HTML; docs/contract.md §5.4), in the order given: all but one of the tested
/// metrics at the gold's k (`RR@k`, `R@k`, `Success@k`, `nDCG@k`), whose means and
/// test are that metric's row's, shown once there. JSON keeps every one.
pub fn named_rows(
    r: &CompareReport,
) -> impl Iterator<Item = &(crate::metrics::named::Measure, MeanDelta)> {
    r.means
        .measures
        .0
        .iter()
        .filter(|(m, _)| crate::compare::measures::tested_at_k(*m, r.k).is_none())
}

/// The means table's rows of the named measures ([`named_rows`]): interval and p;
/// the adjusted p and MDE only of those a gate rule names (they join the overall
/// family, §7.1).
pub fn named_mean_rows(r: &CompareReport) -> Vec<[String; 9]> {
    named_rows(r)
        .map(|(m, md)| {
            let mut row: [String; 9] = Default::default();
            row[0] = m.name();
            row[1] = num(md.baseline);
            row[2] = num(md.candidate);
            row[3] = delta(md.delta);
            if let (Some(lo), Some(hi)) = (md.ci_low, md.ci_high) {
                row[4] = format!("[{}, {}]", delta(lo), delta(hi));
            }
            row[5] = md.p_value.map(|p| p_text(p, md)).unwrap_or_default();
            row[6] = md.p_adjusted.map(|p| p_text(p, md)).unwrap_or_default();
            row[7] = effect_cell(md.effect_size);
            row[8] = mde_cell(md.mde);
            row
        })
        .collect()
}

/// The means table's rows at each extra cutoff (`--cutoffs`, docs/contract.md
/// §6.7): five metrics a cutoff, without statistics (they never gate).
pub fn cutoff_mean_rows(r: &CompareReport) -> Vec<[String; 9]> {
    let mut rows = Vec::new();
    for (c, means) in &r.means_at.0 {
        for m in crate::eval::cutoffs::AT_METRICS {
            let Some(md) = means.get(m) else {
                continue;
            };
            let mut row: [String; 9] = Default::default();
            row[0] = m.label(*c);
            row[1] = num(md.baseline);
            row[2] = num(md.candidate);
            row[3] = delta(md.delta);
            rows.push(row);
        }
    }
    rows
}

/// A run as every report shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RunContext {
    pub index_version: Option<String>,
    pub corpus: Option<String>,
    /// The depth compared: `--depth N` when given, else the declared depth (§6.1).
    pub depth: u32,
    /// The manifest's depth, present only under `--depth` (§6.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_depth: Option<u32>,
    pub filters: BTreeMap<String, String>,
    pub results: String,
    /// How many results files (repeats) the run has (§6.5); `results` is the first.
    pub repeats: usize,
    /// The chunk map the run's ids went through (§2.11), absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_map: Option<crate::model::DocMapInfo>,
    /// The manifest's `[meta]` keys, unchanged and never gated on (§2.2); absent
    /// without them.
    #[serde(
        rename = "meta",
        skip_serializing_if = "crate::model::TeamMeta::is_empty"
    )]
    pub team_meta: crate::model::TeamMeta,
    /// The gold queries its manifest lists as errored, each an empty ranking
    /// (§6.8); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errored: Vec<String>,
}

impl RunContext {
    pub fn of(meta: &RunMeta) -> Self {
        Self {
            index_version: meta.index_version.as_ref().map(ToString::to_string),
            corpus: meta.corpus.clone(),
            depth: meta.compared_depth(),
            declared_depth: meta.cut.map(|_| meta.depth),
            filters: meta.filters.clone(),
            results: meta.results_display.clone(),
            repeats: meta.repeat_count(),
            doc_map: None,
            team_meta: meta.team_meta.clone(),
            errored: Vec::new(),
        }
    }

    /// [`RunContext::of`] a run read, with the chunk map it went through.
    pub fn of_run(run: &ObservedRun) -> Self {
        Self {
            doc_map: run.doc_map.clone(),
            ..Self::of(&run.meta)
        }
    }

    /// The doc map as reports name it: path (through `path`) and sha256 prefix, or
    /// "none".
    pub fn doc_map_text(&self, path: &dyn Fn(&str) -> String) -> String {
        self.doc_map.as_ref().map_or_else(
            || "none".to_string(),
            |m| {
                format!(
                    "{} (sha256 {})",
                    path(&m.path),
                    &m.sha256[..12.min(m.sha256.len())]
                )
            },
        )
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

/// A test's p-value as the tables show it: "exact" after an exact p, below 0.001 as
/// "< 0.001"; a Monte Carlo p at its floor `1/(1+resamples)` (the smallest it can
/// be) as "<= FLOOR" (docs/contract.md §7).
pub fn p_text(p: f64, m: &MeanDelta) -> String {
    let exact = m.p_method == Some(crate::stats::PMethod::Exact);
    let floor = m
        .resamples
        .flatten()
        .map_or(0.0, |r| 1.0 / (1.0 + f64::from(r)));
    let text = if p > floor * (1.0 + 1e-9) && p >= 0.0005 {
        num(p)
    } else if floor <= 0.001 {
        "< 0.001".into()
    } else {
        format!("<= {}", num(floor))
    };
    if exact { format!("{text} exact") } else { text }
}

/// The verdict block's counts (docs/contract.md §9.8): `1 newly failed, 2
/// regressed, 3 improved, 0 fixed, 4 still failing`.
pub fn status_counts(r: &CompareReport) -> String {
    [
        (Status::NewlyFailed, "newly failed"),
        (Status::Regressed, "regressed"),
        (Status::Improved, "improved"),
        (Status::Fixed, "fixed"),
        (Status::StillFailing, "still failing"),
    ]
    .iter()
    .map(|(st, name)| format!("{} {name}", r.count(*st)))
    .collect::<Vec<_>>()
    .join(", ")
}

/// A number as reports print it: 4 decimals, like trec_eval.
pub fn num(x: f64) -> String {
    format!("{x:.4}")
}

pub use crate::text::delta;

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
    let Side {
        baseline: b,
        candidate: c,
    } = &q.scores;
    let list = |ids: &[Id]| ids.iter().map(|x| id(x)).collect::<Vec<_>>().join(join);
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

/// Under one index version (`pooled`), the flaky queries the rule across versions
/// would call newly failed: RR@k > 0 in every baseline repeat and 0 in more than half
/// of the candidate's (docs/contract.md §6.4, §2.12), in natural order. A candidate
/// that claims the baseline's `index_version` makes them flaky, not newly failed.
fn lost_when_pooled(pooled: bool, rows: &[QueryRow]) -> Vec<String> {
    lost_flaky(pooled, rows, |zero, n| 2 * zero > n)
}

/// Across versions (not `pooled`), the flaky queries with RR@k > 0 in every baseline
/// repeat and 0 in some candidate repeats but not most (docs/contract.md §6.5), in
/// natural order: the majority rule kept them from newly failing.
fn lost_in_some_repeats(pooled: bool, rows: &[QueryRow]) -> Vec<String> {
    lost_flaky(!pooled, rows, |zero, _| zero > 0)
}

/// When `applies`, the flaky queries with RR@k > 0 in every baseline repeat whose
/// candidate's zero-RR repeats and repeats pass `lost`, in natural order.
fn lost_flaky(applies: bool, rows: &[QueryRow], lost: impl Fn(u32, u32) -> bool) -> Vec<String> {
    if !applies {
        return Vec::new();
    }
    let mut ids: Vec<String> = rows
        .iter()
        .filter(|r| {
            let (zero, n) = (r.zero_rr_repeats, r.repeats);
            r.status == Status::Flaky && zero.baseline == 0 && lost(zero.candidate, n.candidate)
        })
        .map(|r| r.id.to_string())
        .collect();
    crate::text::sort_natural(&mut ids);
    ids
}

/// The fields of the candidate's manifest that changed a status (docs/contract.md
/// §6.5): `approximate` when it made a new failure unconfirmed.
fn decided_by_candidate(cmp: &Comparison) -> Vec<String> {
    let mut fields = Vec::new();
    if cmp.candidate_approximate && !cmp.unconfirmed.is_empty() {
        fields.push(format!(
            "approximate ({} unconfirmed)",
            crate::text::plural(
                cmp.unconfirmed.len(),
                "newly failed query",
                "newly failed queries"
            )
        ));
    }
    // An errored query is an empty ranking on the candidate's side (§6.8).
    if !cmp.errored.candidate.is_empty() {
        fields.push(format!(
            "errored ({})",
            crate::text::plural(cmp.errored.candidate.len(), "query", "queries")
        ));
    }
    fields
}

impl CompareReport {
    /// Name the candidate's chunk map among the fields of its manifest that changed a
    /// status (docs/contract.md §6.4, §2.11): when it is the candidate's alone (the
    /// baseline's ids are compared as they are), and when it made newly failed queries
    /// of kind `coverage`. Called once the report knows both sides' maps.
    pub fn name_candidate_doc_map(&mut self) {
        if self.candidate.doc_map.is_none() {
            return;
        }
        let coverage = self
            .per_query
            .iter()
            .filter(|q| q.failure_kind == Some(crate::compare::FailureKind::Coverage))
            .count();
        let mut why = Vec::new();
        if self.baseline.doc_map.is_none() {
            why.push("only the candidate maps chunks to documents".to_string());
        }
        if coverage > 0 {
            why.push(format!(
                "{} of kind coverage",
                crate::text::plural(coverage, "newly failed query", "newly failed queries")
            ));
        }
        if !why.is_empty() {
            self.decided_by_candidate
                .push(format!("doc_map ({})", why.join("; ")));
        }
    }
}

pub use crate::compare::UNCONFIRMED;

/// The marker of a suspect query ("suspect: 3 unjudged docs entered the top 10"),
/// `None` for any other.
pub fn suspect_marker(q: &QueryRow, k: u32) -> Option<String> {
    q.holes
        .suspect
        .then(|| crate::compare::holes::suspect_marker(q.holes.suspect_entered, k))
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
        Format::Csv => csv::write(r, out),
        Format::Html => out.write_all(html::render(r).as_bytes()),
        Format::LabelQueue => label_queue::write(&r.label_queue, out),
    }
}

/// Whether [`write_compare`] writes `format` alike wherever it goes: every format
/// but the table, whose colour depends on it.
pub fn same_bytes_anywhere(format: Format) -> bool {
    format != Format::Table
}

/// At most this many gate reasons in a verdict line, then `… and N more reasons`
/// (JSON `gate.reasons` has every one).
pub const REASONS_SHOWN: usize = 10;

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
            let not_blocking = r.is_not_blocking(&q.id);
            let mut msg = format!(
                "query {} newly failed ({}): first relevant rank {} -> {}",
                safe_id(&q.id),
                q.failure_kind.map(|f| f.name()).unwrap_or(""),
                rank(q.scores.baseline.first_relevant_rank),
                rank(q.scores.candidate.first_relevant_rank)
            );
            if !q.lost.is_empty() {
                let lost: Vec<String> = q.lost.iter().map(|d| safe_id(d)).collect();
                msg.push_str(&format!("; lost from top {}: {}", r.k, lost.join(" ")));
            }
            if let Some(marker) = suspect_marker(q, r.k) {
                msg.push_str(&format!("; {marker}"));
            }
            if let Some(e) = q.errored {
                msg.push_str(&format!("; {}", e.marker()));
            }
            if accepted {
                msg.push_str(" (accepted by the allow-list)");
            }
            if not_blocking {
                msg.push_str(" (does not block the gate)");
            }
            format!(
                "::{} title={}::{}",
                if accepted || not_blocking {
                    "warning"
                } else {
                    "error"
                },
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
    out.extend(inconclusive_annotations(r));
    out.extend(risk::annotations(r));
    // §7.3: a PASS that cannot see a drop that matters says so, as a notice.
    out.extend(
        r.gate
            .unseen_text(r.k, r.per_query.len(), &safe_id)
            .map(|t| {
                format!(
                    "::notice title={}::{}",
                    escape_property("ragdiff: cannot see a drop"),
                    escape_data(&format!("PASS — {t}"))
                )
            }),
    );
    out.extend(errored_annotation(r));
    out
}

/// One workflow command for the queries the candidate's retriever failed on
/// (docs/contract.md §6.8): an error when they fail the gate, else a warning.
fn errored_annotation(r: &CompareReport) -> Option<String> {
    let ids = &r.candidate.errored;
    if ids.is_empty() {
        return None;
    }
    let fails = r.gate.codes.contains(&"errored");
    let cause = crate::gate::Reason::Errored { ids: ids.clone() };
    Some(format!(
        "::{} title={}::{}",
        if fails { "error" } else { "warning" },
        escape_property("ragdiff: errored queries"),
        escape_data(&cause.render(&safe_id))
    ))
}

/// One workflow command per inconclusive non-inferiority test (at most
/// [`MAX_ANNOTATIONS`], then a summary line), saying how many queries would settle
/// it: an error when it fails the run, else a warning (docs/contract.md §8.3).
fn inconclusive_annotations(r: &CompareReport) -> Vec<String> {
    let level = if r.gate.enforced && !r.gate.passed {
        "error"
    } else {
        "warning"
    };
    let tests: Vec<_> = r
        .gate
        .non_inferiority
        .iter()
        .filter(|t| t.verdict == crate::gate::NiVerdict::Inconclusive)
        .collect();
    let mut out: Vec<String> = tests
        .iter()
        .take(MAX_ANNOTATIONS)
        .map(|t| {
            let place = match &t.segment {
                Some(s) => format!("segment {}", safe_id(s)),
                None => "overall".to_string(),
            };
            let settle = t.settle_text().map(|s| format!("; {s}")).unwrap_or_default();
            let msg = format!(
                "{} {place}: non-inferiority inconclusive (margin {}, 95% CI of delta [{}, {}]){settle}",
                t.of.label(r.k),
                t.margin,
                delta(t.ci_low),
                delta(t.ci_high)
            );
            format!(
                "::{level} title={}::{}",
                escape_property("ragdiff: inconclusive"),
                escape_data(&msg)
            )
        })
        .collect();
    if tests.len() > MAX_ANNOTATIONS {
        out.push(format!(
            "::{level} title=ragdiff::{}",
            escape_data(&format!(
                "… and {} more inconclusive tests; see the job summary or the JSON report",
                tests.len() - MAX_ANNOTATIONS
            ))
        ));
    }
    out
}

/// Print the workflow commands to stderr when running under GitHub Actions.
pub fn emit_ci_annotations(r: &CompareReport) {
    if crate::text::under_github_actions() {
        for line in ci_annotations(r) {
            crate::text::eprint_workflow_command(&line);
        }
    }
}

/// An effect size cell: d_z with 2 decimals, "n/a" when undefined, empty when the
/// metric is not tested (docs/contract.md §6.6).
pub fn effect_cell(e: Option<Option<f64>>) -> String {
    match e {
        Some(Some(d)) => match format!("{d:+.2}") {
            z if z == "+0.00" || z == "-0.00" => "0.00".to_string(),
            text => text,
        },
        Some(None) => "n/a".to_string(),
        None => String::new(),
    }
}

/// A "detects >=" cell: the minimum detectable effect (docs/contract.md §7.3),
/// "n/a" when undefined (nothing moved), empty when the metric is not tested.
pub fn mde_cell(mde: Option<Option<f64>>) -> String {
    match mde {
        Some(Some(x)) => num(x),
        Some(None) => "n/a".to_string(),
        None => String::new(),
    }
}

/// The header of the "By segment" table (the terminal's and Markdown's); the
/// adjusted p is named by the segment family's correction (docs/contract.md §7.1);
/// a `ΔNAME` column per named measure a per-segment rule names before `newly
/// failed` (§6.6).
pub fn segment_header(r: &CompareReport) -> Vec<String> {
    let k = r.k;
    [
        "segment".into(),
        "queries".into(),
        format!("MRR@{k}"),
        "ΔMRR".into(),
        "95% CI of ΔMRR".into(),
        segment_p_header(r),
        "d_z".into(),
        format!("ΔRecall@{k}"),
        format!("ΔnDCG@{k}"),
    ]
    .into_iter()
    .chain(
        segment_named(r)
            .into_iter()
            .map(|m| format!("Δ{}", m.name())),
    )
    .chain(["newly failed".into()])
    .collect()
}

/// The segment table's adjusted-p column, named by the segment family's correction:
/// `p (Holm)` or `p (BH)` (docs/contract.md §7.1).
pub fn segment_p_header(r: &CompareReport) -> String {
    let correction = r
        .segments
        .iter()
        .find_map(|s| s.means.rr.correction)
        .unwrap_or_default();
    format!("p ({})", correction.label())
}

/// The named measures the segments carry (those per-segment rules name; every
/// segment has the same, docs/contract.md §6.6).
pub fn segment_named(r: &CompareReport) -> Vec<crate::metrics::named::Measure> {
    r.segments
        .first()
        .map(|s| s.means.measures.0.iter().map(|(m, _)| *m).collect())
        .unwrap_or_default()
}

/// At most this many newly failed ids are named in a segment row.
pub const SEGMENT_IDS: usize = 5;

/// The cells of one segment row, computed once for every format; the tag and ids are
/// written by `id`, the MRR change with `sign`.
pub fn segment_cells(
    s: &crate::compare::segments::Segment,
    sign: &str,
    id: &dyn Fn(&str) -> String,
) -> Vec<String> {
    let rr = &s.means.rr;
    let (ci, p) = match (s.too_few, rr.ci_low, rr.ci_high) {
        (false, Some(lo), Some(hi)) => (
            format!("[{}, {}]", delta(lo), delta(hi)),
            rr.p_adjusted.map(|p| p_text(p, rr)).unwrap_or_default(),
        ),
        _ => ("too few to test".to_string(), String::new()),
    };
    let named: Vec<String> = s
        .newly_failed
        .iter()
        .take(SEGMENT_IDS)
        .map(|x| id(x))
        .collect();
    let newly = match s.newly_failed.len() {
        0 => "0".to_string(),
        n => format!(
            "{n}: {}{}",
            named.join(" "),
            crate::text::and_more(n, SEGMENT_IDS)
        ),
    };
    [
        id(&s.tag),
        s.queries.to_string(),
        arrow(num(rr.baseline), num(rr.candidate), sign),
        delta(rr.delta),
        ci,
        p,
        effect_cell(rr.effect_size),
        delta(s.means.recall.delta),
        delta(s.means.ndcg.delta),
    ]
    .into_iter()
    .chain(s.means.measures.0.iter().map(|(_, md)| delta(md.delta)))
    .chain([newly])
    .collect()
}

/// One line per non-inferiority test: the test, margin, CI and verdict, tags
/// written by `id`.
pub fn non_inferiority_cells(r: &CompareReport, id: &dyn Fn(&str) -> String) -> Vec<[String; 4]> {
    r.gate
        .non_inferiority
        .iter()
        .map(|t| {
            let place = match &t.segment {
                Some(s) => format!("segment {}", id(s)),
                None => "overall".to_string(),
            };
            let verdict = match t.settle_text() {
                Some(settle) => format!("{} — {settle}", t.verdict.words()),
                None => t.verdict.words().to_string(),
            };
            [
                format!("{} {place}", t.of.label(r.k)),
                format!("{}", t.margin),
                format!("[{}, {}]", delta(t.ci_low), delta(t.ci_high)),
                verdict,
            ]
        })
        .collect()
}

/// Whether either side has more than one repeat (docs/contract.md §6.5).
pub fn has_repeats(r: &CompareReport) -> bool {
    r.baseline.repeats > 1 || r.candidate.repeats > 1
}

/// Why a query is flaky: `0 in 2 of 5 candidate repeats`, each flaky side; empty
/// when one index version's repeats are pooled and the query only scored otherwise
/// (no side has an RR of 0 in some repeats and not others: §6.5).
pub fn flaky_note(q: &QueryRow) -> String {
    let side = |flaky: bool, zero: u32, of: u32, name: &str| {
        flaky.then(|| format!("0 in {zero} of {of} {name} repeats"))
    };
    [
        side(
            q.flaky.baseline,
            q.zero_rr_repeats.baseline,
            q.repeats.baseline,
            "baseline",
        ),
        side(
            q.flaky.candidate,
            q.zero_rr_repeats.candidate,
            q.repeats.candidate,
            "candidate",
        ),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ")
}

/// The flaky rows in natural id order.
pub fn flaky_rows(r: &CompareReport) -> Vec<&QueryRow> {
    let mut rows: Vec<&QueryRow> = r
        .per_query
        .iter()
        .filter(|q| q.status == Status::Flaky)
        .collect();
    rows.sort_by(|a, b| crate::text::natural_cmp(&a.id, &b.id));
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

impl CompareReport {
    /// The latency table's rows (docs/contract.md §6.9), cells shared by the
    /// terminal and Markdown: a header, then baseline, candidate and change, each
    /// `p50 p95 p99 max` in milliseconds; `None` unless both sides have latency.
    pub fn latency_rows(&self) -> Option<[[String; 5]; 4]> {
        use crate::model::latency::LatencyStat;
        let l = self.latency.as_ref()?;
        let cells = |label: String, f: &dyn Fn(LatencyStat) -> String| {
            let [a, b, c, d] = LatencyStat::ALL.map(f);
            [label, a, b, c, d]
        };
        Some([
            cells("latency (ms)".into(), &|s| s.name().to_string()),
            cells(format!("baseline ({} queries)", l.baseline.queries), &|s| {
                format!("{:.3}", l.baseline.get(s))
            }),
            cells(
                format!("candidate ({} queries)", l.candidate.queries),
                &|s| format!("{:.3}", l.candidate.get(s)),
            ),
            cells(
                if l.comparable {
                    "change".to_string()
                } else {
                    "change (not gated)".to_string()
                },
                &|s| crate::gate::latency_change(l.baseline.get(s), l.candidate.get(s)),
            ),
        ])
    }
}
