//! JSONL inputs (`docs/contract.md §2.8`): one JSON object a line, parsed line by
//! line from the streamed lines, so every problem names its line. A run line is
//! `{"id": "Q-1", "retrieved_doc_ids": ["D-4", …], "scores": [...]}` (scores
//! optional); a gold line `{"id": "Q-1", "expected_doc_ids": ["D-1"]}` or with
//! `"grades": {"D-1": 2}` instead. Other keys are ignored.

use std::borrow::Cow;

use serde::Deserialize;

use crate::load::json::{Num, Pairs, reason};
use crate::validate::{Diagnostics, Location, ProblemKind, id_problem};

/// One run line.
#[derive(Deserialize)]
pub struct RunLine<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(borrow)]
    pub retrieved_doc_ids: Vec<Cow<'a, str>>,
    #[serde(default)]
    pub scores: Option<Vec<Num>>,
    /// As `record` writes it (docs/contract.md §6.9).
    #[serde(default)]
    pub latency_ms: Option<Num>,
}

/// One gold line.
#[derive(Deserialize)]
pub struct GoldLine<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(borrow, default)]
    pub expected_doc_ids: Option<Vec<Cow<'a, str>>>,
    #[serde(default)]
    pub grades: Option<Pairs>,
    #[serde(borrow, default)]
    pub non_relevant_doc_ids: Option<Vec<Cow<'a, str>>>,
    #[serde(borrow, default)]
    pub tags: Option<Vec<Cow<'a, str>>>,
}

/// Parse one non-blank line as `T`, or record why it is not one.
pub fn parse_line<'a, T: Deserialize<'a>>(
    text: &'a str,
    line: u64,
    display: &str,
    diag: &mut Diagnostics,
) -> Option<T> {
    match serde_json::from_str::<T>(text) {
        Ok(v) => Some(v),
        Err(e) => {
            diag.problem(
                Location::line(display, line),
                ProblemKind::MalformedJson { reason: reason(&e) },
            );
            None
        }
    }
}

/// A checked id (trimmed), or a problem at `at` (a line and the id's JSON pointer).
pub fn check_id<'s>(
    id: &'s str,
    what: &'static str,
    query: &str,
    at: Location,
    diag: &mut Diagnostics,
) -> Option<&'s str> {
    let id = id.trim();
    match id_problem(id) {
        None => Some(id),
        Some(reason) => {
            diag.problem(
                at,
                ProblemKind::InvalidId {
                    what,
                    context: if query.is_empty() {
                        String::new()
                    } else {
                        format!(" in query {}", crate::text::safe_id(query))
                    },
                    reason,
                },
            );
            None
        }
    }
}

/// Every id of the list under `key` checked; `None` (with the problems recorded, each
/// at its pointer `/key/i`) when one is invalid.
pub fn check_ids<'s>(
    ids: &'s [Cow<'_, str>],
    key: &str,
    query: &str,
    at: &Location,
    diag: &mut Diagnostics,
) -> Option<Vec<&'s str>> {
    let mut out = Vec::with_capacity(ids.len());
    let mut ok = true;
    for (i, id) in ids.iter().enumerate() {
        let here = at.clone().pointer(format!("/{key}/{i}"));
        match check_id(id, "doc", query, here, diag) {
            Some(id) => out.push(id),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// A first run line whose keys are close to a known shape but not it (`qid` and
/// `docs`, as other tools write them): the problem naming the expected key.
pub fn near_miss(text: &str) -> Option<ProblemKind> {
    let keys: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).ok()?;
    let has = |k: &str| keys.contains_key(k);
    let query = ["qid", "query_id", "query-id", "topic", "query"];
    let docs = [
        "docs",
        "doc_ids",
        "docids",
        "docnos",
        "results",
        "retrieved",
        "ranking",
    ];
    if !has("id")
        && let Some(found) = query.iter().find(|k| has(k))
    {
        return Some(ProblemKind::NearMiss {
            found: (*found).to_string(),
            expected: "id",
        });
    }
    if !has("retrieved_doc_ids")
        && let Some(found) = docs.iter().find(|k| has(k))
    {
        return Some(ProblemKind::NearMiss {
            found: (*found).to_string(),
            expected: "retrieved_doc_ids",
        });
    }
    None
}

/// Whether a line holds nothing to read.
pub fn blank(text: &str) -> bool {
    text.trim().is_empty()
}
