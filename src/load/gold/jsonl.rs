//! JSONL gold, one query a line (`docs/contract.md §2.8`).

use super::RawQuery;
use super::json::Qrels;
use super::qrels::finish_qrels;
use crate::load::json::pointer_token;
use crate::load::jsonl::{self, GoldLine};
use crate::load::lines;
use crate::load::tags::{TagRow, check_labels};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Gold as JSONL, one query a line.
/// Gold as JSONL, one query a line, with each line's `tags` (docs/contract.md §2.13).
pub(super) fn parse_jsonl(
    bytes: &[u8],
    display: &str,
    diag: &mut Diagnostics,
) -> (Vec<RawQuery>, Vec<TagRow>) {
    let mut q = Qrels::new(display);
    let mut any = false;
    let mut tags = Vec::new();
    lines::for_each_line(
        bytes,
        display,
        lines::EVERY_FIELD,
        diag,
        |line, text, diag| {
            if jsonl::blank(text) {
                return;
            }
            any = true;
            if let Some(row) = jsonl::parse_line::<GoldLine>(text, line, display, diag)
                && let Some(id) = gold_row(&mut q, &row, line, diag)
                && let Some(labels) = &row.tags
            {
                let labels: Vec<&str> = labels.iter().map(|l| l.trim()).collect();
                match check_labels(&labels) {
                    Ok(()) => tags.push((id.into(), labels.iter().map(|&l| l.into()).collect())),
                    Err(reason) => diag.problem(
                        Location::line(display, line).pointer("/tags"),
                        ProblemKind::BadTag {
                            query: crate::text::safe_id(id),
                            reason,
                        },
                    ),
                }
            }
        },
    );
    if !any && !diag.has_problems() {
        diag.problem(
            Location::file(display),
            ProblemKind::EmptyFile {
                expected: "one JSON object a line {\"id\": …, \"expected_doc_ids\": […]}",
            },
        );
    }
    (finish_qrels(q.order, display, diag), tags)
}

/// One JSONL gold line: relevant docs (grade 1 each) or grades, and docs judged not
/// relevant (grade 0). The query's id when the line began a query.
fn gold_row<'r>(
    q: &mut Qrels,
    row: &'r GoldLine,
    line: u64,
    diag: &mut Diagnostics,
) -> Option<&'r str> {
    let display = q.display;
    let at = Location::line(display, line);
    let id = jsonl::check_id(&row.id, "query", "", at.clone().pointer("/id"), diag)?;
    let shape = |diag: &mut Diagnostics, expected| {
        diag.problem(
            Location::line(display, line),
            ProblemKind::JsonShape {
                pointer: "/expected_doc_ids".into(),
                expected,
            },
        )
    };
    match (&row.expected_doc_ids, &row.grades) {
        (Some(_), Some(_)) => {
            shape(diag, "either `expected_doc_ids` or `grades`, not both");
            return None;
        }
        (None, None) => {
            shape(
                diag,
                "a list of relevant doc ids (or `grades`, an object of doc ids to grades)",
            );
            return None;
        }
        _ => {}
    }
    if !q.begin(id, line, diag) {
        return None;
    }
    if let Some(docs) = &row.expected_doc_ids
        && let Some(docs) = jsonl::check_ids(docs, "expected_doc_ids", id, &at, diag)
    {
        for doc in docs {
            q.judge(doc, 1, line);
        }
    }
    if let Some(grades) = &row.grades {
        for (doc, value) in &grades.0 {
            let here = at
                .clone()
                .pointer(format!("/grades/{}", pointer_token(doc)));
            if let Some(doc) = jsonl::check_id(doc, "doc", id, here.clone(), diag) {
                q.grade(id, doc, *value, here, diag);
            }
        }
    }
    if let Some(docs) = &row.non_relevant_doc_ids
        && let Some(docs) = jsonl::check_ids(docs, "non_relevant_doc_ids", id, &at, diag)
    {
        for doc in docs {
            q.judge(doc, 0, line);
        }
    }
    Some(id)
}
