//! `ragdiff record` (docs/contract.md §4.8): ask the retriever under review every
//! gold question and write its answers as a run (results and manifest, one atomic
//! set). Question text goes to the retriever and nowhere else: every message here
//! names query ids only.
//!
//! `questions.rs` reads the questions, `command.rs` speaks the JSON Lines protocol
//! with a retriever process, `write.rs` writes the run.

pub mod command;
pub mod http;
pub mod questions;
pub mod write;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::model::{GoldSet, Id};
use crate::validate::{Diagnostics, Location, ProblemKind};
use questions::Question;

/// How the retriever is reached, whatever the transport.
#[derive(Debug, Clone)]
pub struct Reach {
    /// Requests in flight at most.
    pub concurrency: usize,
    /// How long one request may take.
    pub timeout: Duration,
    /// Results asked for; longer lists are cut.
    pub depth: u32,
    /// Sent with every request and written to the manifest.
    pub filters: BTreeMap<String, String>,
    /// Where the retriever's stderr goes (else it is kept only for a failure).
    pub log: Option<PathBuf>,
    /// Add to the log rather than start it anew (a later repeat).
    pub append_log: bool,
}

/// One query's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub doc_ids: Vec<String>,
    pub scores: Option<Vec<f64>>,
    /// From request written to answer read, in milliseconds.
    pub latency_ms: f64,
}

impl Answer {
    /// Check an answer and cut it to `depth`; the error says what is wrong with it
    /// (doc ids named, never the question).
    pub fn new(
        mut doc_ids: Vec<String>,
        mut scores: Option<Vec<f64>>,
        latency_ms: f64,
        depth: u32,
    ) -> Result<Self, String> {
        if let Some(s) = &scores {
            if s.len() != doc_ids.len() {
                return Err(format!(
                    "{} scores for {} doc ids; `scores` must be as long as `doc_ids`",
                    s.len(),
                    doc_ids.len()
                ));
            }
            if s.iter().any(|v| !v.is_finite()) {
                return Err("a score that is not a finite number".to_string());
            }
        }
        let mut seen = rustc_hash::FxHashSet::default();
        for doc in &mut doc_ids {
            let trimmed = doc.trim();
            if trimmed.is_empty() || trimmed.chars().any(char::is_control) || trimmed.contains(';')
            {
                return Err(
                    "a doc id that is empty or holds a control character or `;`".to_string()
                );
            }
            if trimmed.len() != doc.len() {
                *doc = trimmed.to_string();
            }
            if !seen.insert(doc.clone()) {
                return Err(format!("doc {} twice", crate::text::shown(doc)));
            }
        }
        let depth = depth as usize;
        doc_ids.truncate(depth);
        if let Some(s) = &mut scores {
            s.truncate(depth);
        }
        Ok(Self {
            doc_ids,
            scores,
            latency_ms,
        })
    }
}

/// What became of one question.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Answered(Answer),
    /// The retriever could not answer (after its retries): why, by status code
    /// or kind, never with the question.
    Errored(String),
}

/// Progress of a recording: a bar on a terminal, nothing otherwise.
pub struct Tally {
    bar: crate::progress::Queries,
}

impl Tally {
    pub fn new(total: usize, quiet: bool) -> Self {
        Self {
            bar: crate::progress::Queries::new(total as u64, quiet),
        }
    }

    /// One more query answered.
    pub fn done(&self) {
        self.bar.inc();
    }

    pub fn finish(&self) {
        self.bar.finish();
    }
}

/// Every gold question's text, found at once in a line (aho-corasick, leftmost
/// longest: a question that contains another is redacted whole) and replaced by
/// `[question]`: what the retriever's log and a failure show of it (§4.8). Exact
/// text only: a retriever that rewrites a question (case, spacing) is not caught.
pub struct Redactor {
    finder: Option<aho_corasick::AhoCorasick>,
    /// [`REDACTED`] once per question (what `replace_all` takes).
    with: Vec<&'static str>,
}

/// What a question's text becomes.
pub const REDACTED: &str = "[question]";

impl Redactor {
    pub fn new(questions: &[Question]) -> Self {
        let texts: Vec<&str> = questions
            .iter()
            .map(|q| q.text.as_str())
            .filter(|t| !t.is_empty())
            .collect();
        let finder = (!texts.is_empty())
            .then(|| {
                aho_corasick::AhoCorasick::builder()
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .build(&texts)
                    .ok()
            })
            .flatten();
        let with = vec![REDACTED; finder.as_ref().map_or(0, |f| f.patterns_len())];
        Self { finder, with }
    }

    /// `line` with every question's text replaced.
    pub fn line(&self, line: &str) -> String {
        match &self.finder {
            Some(f) => f.replace_all(line, &self.with),
            None => line.to_string(),
        }
    }

    /// [`Redactor::line`] over bytes (a retriever's stderr need not be UTF-8).
    pub fn bytes(&self, line: &[u8]) -> Vec<u8> {
        match &self.finder {
            Some(f) => f.replace_all_bytes(line, &self.with),
            None => line.to_vec(),
        }
    }
}

/// `line` with every question's text replaced by `[question]`.
pub fn redact(line: &str, questions: &[Question]) -> String {
    Redactor::new(questions).line(line)
}

/// The questions to ask: every gold query in the gold's order, each with its text
/// from `source` (a gold query without one is a problem naming it), then the
/// unlabelled ones.
pub fn questions_for(
    gold: &GoldSet,
    source: Vec<Question>,
    source_name: &str,
    unlabelled: Vec<Question>,
    diag: &mut Diagnostics,
) -> Vec<Question> {
    let mut by_id: rustc_hash::FxHashMap<Id, String> =
        source.into_iter().map(|q| (q.id, q.text)).collect();
    let mut out = Vec::with_capacity(gold.queries.len() + unlabelled.len());
    for q in &gold.queries {
        match by_id.remove(&q.id) {
            Some(text) if !text.is_empty() => out.push(Question {
                id: q.id.clone(),
                text,
            }),
            _ => diag.problem(
                Location::file(source_name),
                ProblemKind::NoQuestion {
                    query: q.id.to_string(),
                    from: source_name.to_string(),
                },
            ),
        }
    }
    for q in unlabelled {
        if gold.contains(&q.id) {
            diag.problem(
                Location::usage(),
                ProblemKind::UnlabelledInGold {
                    query: q.id.to_string(),
                },
            );
        } else if q.text.is_empty() {
            diag.problem(
                Location::usage(),
                ProblemKind::NoQuestion {
                    query: q.id.to_string(),
                    from: "--include-unlabelled".to_string(),
                },
            );
        } else {
            out.push(q);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_cut_to_depth_and_checked() {
        let a = Answer::new(vec!["a".into(), " b ".into(), "c".into()], None, 1.0, 2).unwrap();
        assert_eq!(a.doc_ids, ["a", "b"]);
        let twice = Answer::new(vec!["a".into(), "a".into()], None, 1.0, 5);
        assert_eq!(twice.unwrap_err(), "doc a twice");
        let short = Answer::new(vec!["a".into()], Some(vec![]), 1.0, 5);
        assert!(short.unwrap_err().contains("0 scores for 1 doc ids"));
    }

    #[test]
    fn redaction_takes_the_longest_question_first() {
        let q = |id: &str, text: &str| Question {
            id: id.into(),
            text: text.into(),
        };
        let qs = [q("1", "oil"), q("2", "oil spills at sea")];
        assert_eq!(
            redact("query: oil spills at sea; oil", &qs),
            "query: [question]; [question]"
        );
    }
}
