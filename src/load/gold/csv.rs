//! CSV gold (`id,question,expected_doc_ids`, and `non_relevant_doc_ids`).

use rustc_hash::{FxHashMap, FxHashSet};

use super::RawQuery;
use crate::load::csvio::{self, Header};
use crate::model::{Id, Judgement};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// The relevant docs of one CSV row (grade 1), each once: a doc listed twice is a
/// problem at `at`. A set, not a scan of the list so far: one row of 100,000 ids is
/// linear.
fn relevant(docs: &[&str], id: &str, at: Location, diag: &mut Diagnostics) -> Vec<Judgement> {
    let mut judged: Vec<Judgement> = Vec::with_capacity(docs.len());
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    seen.reserve(docs.len());
    for &doc in docs {
        if !seen.insert(doc) {
            diag.problem(
                at.clone(),
                ProblemKind::DuplicateDocInGold {
                    query: id.to_string(),
                    doc: doc.to_string(),
                },
            );
            continue;
        }
        judged.push(Judgement {
            doc: doc.into(),
            grade: 1,
        });
    }
    judged
}

pub(super) fn parse_csv(
    bytes: &[u8],
    display: &str,
    extra_ok: &[&str],
    diag: &mut Diagnostics,
) -> Vec<RawQuery> {
    let mut out = Vec::new();
    let Some(mut reader) = csvio::open(bytes, display, diag) else {
        return out;
    };
    let required = "`id` and `expected_doc_ids`";
    let mut known = vec!["id", "question", "expected_doc_ids", NON_RELEVANT, "tags"];
    known.extend_from_slice(extra_ok);
    let Some(header) = Header::read(
        &mut reader,
        display,
        &known,
        &["id", "expected_doc_ids"],
        diag,
    ) else {
        return out;
    };
    let (Some(id_col), Some(exp_col)) = (
        header.require("id", required, display, diag),
        header.require("expected_doc_ids", required, display, diag),
    ) else {
        return out;
    };
    let non_rel_col = header.position(NON_RELEVANT);
    let mut first_line: FxHashMap<Id, u64> = FxHashMap::default();
    let mut rows = 0u64;
    csvio::for_each_row(
        &mut reader,
        display,
        header.width,
        &[id_col, exp_col],
        diag,
        |record, line, diag| {
            rows += 1;
            let Some(id) = csvio::cell_id(record, id_col, "query", "", line, display, diag) else {
                return;
            };
            if let Some(&first) = first_line.get(id.as_str()) {
                diag.problem(
                    Location::line(display, line),
                    ProblemKind::DuplicateQuery { query: id, first },
                );
                return;
            }
            first_line.insert(Id::from(id.as_str()), line);
            let Some(docs) = csvio::id_list(record, exp_col, &id, line, display, diag) else {
                return;
            };
            let mut judged = relevant(&docs, &id, Location::line(display, line), diag);
            if let Some(col) = non_rel_col {
                let at = Location::line(display, line);
                non_relevant(record, col, &id, at, &mut judged, diag);
            }
            out.push((Id::from(id), judged));
        },
    );
    if rows == 0 && !diag.has_problems() {
        diag.problem(Location::file(display), ProblemKind::HeaderOnly);
    }
    out
}

/// The optional CSV column of docs a person judged not relevant (docs/contract.md §6.3).
pub const NON_RELEVANT: &str = "non_relevant_doc_ids";

/// Add a row's `non_relevant_doc_ids` to `judged` with grade 0; a doc listed twice
/// there, or also among the expected docs, is a problem at `at`.
fn non_relevant(
    record: &csv::ByteRecord,
    col: usize,
    query: &str,
    at: Location,
    judged: &mut Vec<Judgement>,
    diag: &mut Diagnostics,
) {
    let line = at.line.unwrap_or(0);
    let Some(docs) = csvio::id_list(record, col, query, line, &at.file, diag) else {
        return;
    };
    let expected = judged.len();
    for doc in docs {
        let kind = match judged.iter().position(|j| &*j.doc == doc) {
            None => {
                judged.push(Judgement {
                    doc: doc.into(),
                    grade: 0,
                });
                continue;
            }
            Some(i) if i < expected => ProblemKind::JudgedBothWays {
                query: query.to_string(),
                doc: doc.to_string(),
            },
            Some(_) => ProblemKind::DuplicateNonRelevant {
                query: query.to_string(),
                doc: doc.to_string(),
            },
        };
        diag.problem(at.clone(), kind);
    }
}
