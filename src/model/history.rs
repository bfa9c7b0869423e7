//! One line of `history.jsonl`: what `promote` records of each promotion, ids and
//! numbers only (docs/contract.md §9.11). Written by `promote`, read by `history` and
//! `compare`; a line that does not parse or validate is skipped with a warning.

use serde::{Deserialize, Serialize};

/// The `schema` every line carries.
pub const SCHEMA: u32 = 1;

/// The longest string a line may hold (an index version is at most 128 characters:
/// docs/contract.md §2.2; a gold name the same).
const MAX_TEXT: usize = 128;

/// One promotion: the gold it was judged against, both index versions, every mean
/// with its interval, the status counts and the gate's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryLine {
    pub schema: u32,
    /// The promotion's day, `YYYY-MM-DD` (UTC; `SOURCE_DATE_EPOCH` when set).
    pub date: String,
    pub gold: HistoryGold,
    pub baseline_index_version: Option<String>,
    pub candidate_index_version: Option<String>,
    pub k: u32,
    /// RR, Recall, Hit, P, nDCG, AP, in that order.
    pub means: Vec<HistoryMean>,
    pub statuses: HistoryStatuses,
    /// `pass`, `fail` or `inconclusive` (a forced promotion records its failing verdict).
    pub verdict: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryGold {
    pub name: String,
    pub version: Option<String>,
    /// The first 12 hex digits of the frozen data's sha256; null when not frozen.
    pub sha256: Option<String>,
}

impl HistoryGold {
    /// Values under different golds are not comparable: a change of any of these
    /// breaks the line.
    pub fn same_as(&self, other: &HistoryGold) -> bool {
        self == other
    }

    /// `name version`, as the reports show it.
    pub fn label(&self) -> String {
        match &self.version {
            Some(v) => format!("{} {v}", self.name),
            None => self.name.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryMean {
    /// `rr`, `recall`, `hit`, `precision`, `ndcg` or `ap` (JSON keys of §10).
    pub metric: String,
    pub baseline: f64,
    pub candidate: f64,
    pub delta: f64,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryStatuses {
    pub newly_failed: usize,
    pub regressed: usize,
    pub improved: usize,
    pub fixed: usize,
    pub still_failing: usize,
    pub unchanged: usize,
}

impl HistoryLine {
    /// Why a parsed line cannot be used, if it cannot: another schema, a date that is
    /// not `YYYY-MM-DD`, a string with a control character or over 128 characters, a
    /// metric named twice or unknown, a mean that is not finite or outside [0, 1], or
    /// an unknown verdict.
    pub fn problem(&self) -> Option<String> {
        if self.schema != SCHEMA {
            return Some(format!(
                "schema {} (this ragdiff reads {SCHEMA})",
                self.schema
            ));
        }
        let date = self.date.as_bytes();
        let is_date = date.len() == 10
            && date.iter().enumerate().all(|(i, b)| {
                if i == 4 || i == 7 {
                    *b == b'-'
                } else {
                    b.is_ascii_digit()
                }
            });
        if !is_date {
            return Some("date is not YYYY-MM-DD".into());
        }
        let texts = [
            Some(&self.gold.name),
            self.gold.version.as_ref(),
            self.gold.sha256.as_ref(),
            self.baseline_index_version.as_ref(),
            self.candidate_index_version.as_ref(),
        ];
        for text in texts.into_iter().flatten() {
            if text.chars().count() > MAX_TEXT || text.chars().any(char::is_control) {
                return Some(format!(
                    "a name or version over {MAX_TEXT} characters or with a control character"
                ));
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for m in &self.means {
            if crate::model::Metric::from_key(&m.metric).is_none()
                || seen.contains(&m.metric.as_str())
            {
                return Some("a metric unknown or named twice".into());
            }
            seen.push(&m.metric);
            let unit = |x: f64| x.is_finite() && (0.0..=1.0).contains(&x);
            if !unit(m.baseline) || !unit(m.candidate) || !m.delta.is_finite() {
                return Some(format!("{}: a mean outside [0, 1]", m.metric));
            }
        }
        if !matches!(self.verdict.as_str(), "pass" | "fail" | "inconclusive") {
            return Some("verdict is not pass, fail or inconclusive".into());
        }
        None
    }

    /// The candidate's mean of `metric` (the value promoted), if recorded.
    pub fn mean(&self, metric: crate::model::Metric) -> Option<&HistoryMean> {
        self.means.iter().find(|m| m.metric == metric.key())
    }
}
