//! Ids that never meet the gold (docs/contract.md §2.15): a run whose doc ids are
//! written otherwise than the gold's (`doc-1234` against `1234`) scores 0 on every
//! query; an id cell that holds a list (`3098,1712,845`, `['3098', '1712']`) scores 0
//! on its query. Both are seen as the run is read, after any `doc_map`.

use rustc_hash::FxHashSet;

use crate::model::{DataFormat, GoldQuery, GoldSet, Hit};
use crate::text::safe_id;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// How many of a run's doc hashes are kept while none of its docs is judged: enough
/// to tell "judged for other queries" from "judged nowhere", bounded (512 KiB).
const KEPT: usize = 1 << 16;

/// How many ids each side's examples show.
const EXAMPLES: usize = 3;

/// Below this share of queries returning a judged doc, a warning.
const LOW_SHARE: f64 = 0.10;

/// What one run file's rankings of judged gold queries showed.
#[derive(Debug)]
pub(super) struct Meet {
    /// Gold queries with judged docs that the file ranks.
    queries: u64,
    /// Of those, how many return a doc the gold judges for them.
    with_judged: u64,
    /// The first distinct doc ids returned, for the messages.
    examples: Vec<String>,
    /// While no returned doc is judged: the hashes of those returned (at most
    /// [`KEPT`]); `None` once one is.
    unmet: Option<FxHashSet<u64>>,
    /// What the id column expects, for the list-cell check (CSV and JSONL only).
    pub list_hint: Option<&'static str>,
}

impl Default for Meet {
    fn default() -> Self {
        Self {
            queries: 0,
            with_judged: 0,
            examples: Vec::new(),
            unmet: Some(FxHashSet::default()),
            list_hint: None,
        }
    }
}

/// What a format's id column expects, said when a cell holds a list.
pub(super) fn list_hint(format: DataFormat) -> Option<&'static str> {
    match format {
        DataFormat::Csv => Some("`retrieved_doc_ids` separates ids with `;`"),
        DataFormat::Jsonl => Some("`retrieved_doc_ids` is a JSON array with one string per id"),
        _ => None,
    }
}

/// One ranking of a gold query that judges docs: `docs` after any chunk map,
/// `hashes` theirs, `hits` the judged ones, `line_of(i)` the line of the i-th doc.
pub(super) struct Ranking<'r> {
    pub q: &'r GoldQuery,
    pub qid: &'r str,
    pub docs: &'r [&'r str],
    pub hashes: &'r [u64],
    pub hits: &'r [Hit],
    pub line_of: &'r dyn Fn(usize) -> u64,
}

impl Meet {
    /// Count one ranking; a list cell in it is an input error at its line.
    pub(super) fn saw(&mut self, r: Ranking, display: &str, diag: &mut Diagnostics) {
        let Ranking {
            q,
            qid,
            docs,
            hashes,
            hits,
            line_of,
        } = r;
        self.queries += 1;
        if hits.is_empty() {
            if let Some(unmet) = &mut self.unmet {
                let room = KEPT.saturating_sub(unmet.len());
                unmet.extend(hashes.iter().take(room));
            }
        } else {
            self.with_judged += 1;
            self.unmet = None;
        }
        for doc in docs {
            if self.examples.len() >= EXAMPLES {
                break;
            }
            if !self.examples.iter().any(|e| e == doc) {
                self.examples.push(doc.to_string());
            }
        }
        let Some(expected) = self.list_hint else {
            return;
        };
        let mut judged = hits.iter().map(|h| h.rank).peekable();
        for (i, doc) in docs.iter().enumerate() {
            if judged.next_if_eq(&(i as u32 + 1)).is_some() {
                continue;
            }
            if let Some(why) = list_cell(q, doc) {
                diag.problem(
                    Location::line(display, line_of(i)),
                    ProblemKind::ListCell {
                        query: qid.to_string(),
                        cell: doc.to_string(),
                        why,
                        expected,
                    },
                );
                return; // one per ranking
            }
        }
    }

    /// At the end of the file: none of its ids judged anywhere in the gold is an
    /// input error, fewer than 10% of its queries returning a judged doc a warning.
    pub(super) fn check(&self, gold: &GoldSet, display: &str, diag: &mut Diagnostics) {
        // Nothing the gold judges was asked, or nothing returned; or lines were left
        // out for their own problems, so the rankings may lack their judged docs.
        if self.queries == 0 || self.examples.is_empty() || !diag.problems.is_empty() {
            return;
        }
        let run = shown(&self.examples);
        let gold_ids = shown(&gold_examples(gold));
        if self.with_judged == 0
            && !self
                .unmet
                .as_ref()
                .is_some_and(|u| judged_anywhere(gold, u))
        {
            diag.problem(
                Location::file(display),
                ProblemKind::IdsNeverMeetGold {
                    queries: crate::text::plural(self.queries as usize, "query", "queries"),
                    run,
                    gold: gold_ids,
                },
            );
            return;
        }
        let share = self.with_judged as f64 / self.queries as f64;
        if share < LOW_SHARE {
            diag.warn(format!(
                "{display}: only {} of {} return a doc the gold judges for them ({:.1}%): run ids look like {run}, gold ids like {gold_ids}; check that the run writes ids as the gold does",
                self.with_judged,
                crate::text::plural(self.queries as usize, "query", "queries"),
                share * 100.0
            ));
        }
    }
}

/// Why a returned id that is not judged for its query looks like a list of ids:
/// written as `[...]`, or split on `,` it names a doc the gold judges for the query.
/// A quoted id holding a comma stays legal otherwise.
fn list_cell(q: &GoldQuery, doc: &str) -> Option<&'static str> {
    let t = doc.trim();
    if t.len() >= 2 && t.starts_with('[') && t.ends_with(']') {
        return Some("written as a list, `[...]`");
    }
    if !t.contains(',') {
        return None;
    }
    let strip = |p: &str| {
        p.trim()
            .trim_matches(|c| matches!(c, '[' | ']' | '\'' | '"'))
            .trim()
            .to_string()
    };
    t.split(',')
        .map(strip)
        .any(|p| !p.is_empty() && q.find(p.as_bytes()).is_some())
        .then_some("split on `,` it names docs the gold judges")
}

/// Whether any of `hashes` is a doc the gold judges for some query.
fn judged_anywhere(gold: &GoldSet, hashes: &FxHashSet<u64>) -> bool {
    !hashes.is_empty()
        && gold
            .queries
            .iter()
            .any(|q| q.hashes().iter().any(|h| hashes.contains(h)))
}

/// The first judged doc ids of the gold, in its query order (a doc once).
fn gold_examples(gold: &GoldSet) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for j in gold.queries.iter().flat_map(|q| &q.judged) {
        if out.len() >= EXAMPLES {
            break;
        }
        if !out.iter().any(|o| *o == *j.doc) {
            out.push(j.doc.to_string());
        }
    }
    out
}

/// Ids as code spans, escaped: `` `doc-1`, `doc-2` ``.
fn shown(ids: &[String]) -> String {
    ids.iter()
        .map(|d| format!("`{}`", safe_id(d)))
        .collect::<Vec<_>>()
        .join(", ")
}
