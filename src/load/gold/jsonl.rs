//! JSONL gold, one query a line (`docs/contract.md §2.8`).

use super::RawQuery;
use super::json::Qrels;
use super::qrels::finish_qrels;
use crate::load::jsonl::{self, GoldLine};
use crate::load::lines;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Gold as JSONL, one query a line.
pub(super) fn parse_jsonl(bytes: &[u8], display: &str, diag: &mut Diagnostics) -> Vec<RawQuery> {
    let mut q = Qrels::new(display);
    let mut any = false;
    let mut tagged = 0usize;
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
            if let Some(row) = jsonl::parse_line::<GoldLine>(text, line, display, diag) {
                tagged += usize::from(row.tags.as_ref().is_some_and(|t| !t.is_empty()));
                gold_row(&mut q, &row, line, diag);
            }
        },
    );
    if tagged > 0 {
        // docs/contract.md §6.6: not read yet; said rather than silently dropped.
        diag.warn(format!(
            "{display}: {} `tags`, which a JSONL gold does not read yet: no segments come from them; name a tags side file in the manifest (tags = \"tags.csv\", CSV id,tags)",
            crate::text::plural(tagged, "line carries", "lines carry")
        ));
    }
    if !any && !diag.has_problems() {
        diag.problem(
            Location::file(display),
            ProblemKind::EmptyFile {
                expected: "one JSON object a line {\"id\": …, \"expected_doc_ids\": […]}",
            },
        );
    }
    finish_qrels(q.order, display, diag)
}

/// One JSONL gold line: relevant docs (grade 1 each) or grades, and docs judged not
/// relevant (grade 0).
fn gold_row(q: &mut Qrels, row: &GoldLine, line: u64, diag: &mut Diagnostics) {
    let display = q.display;
    let Some(id) = jsonl::check_id(&row.id, "query", "", line, display, diag) else {
        return;
    };
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
            return shape(diag, "either `expected_doc_ids` or `grades`, not both");
        }
        (None, None) => {
            return shape(
                diag,
                "a list of relevant doc ids (or `grades`, an object of doc ids to grades)",
            );
        }
        _ => {}
    }
    if !q.begin(id, line, diag) {
        return;
    }
    if let Some(docs) = &row.expected_doc_ids
        && let Some(docs) = jsonl::check_ids(docs, id, line, display, diag)
    {
        for doc in docs {
            q.judge(doc, 1, line);
        }
    }
    if let Some(grades) = &row.grades {
        for (doc, value) in &grades.0 {
            if let Some(doc) = jsonl::check_id(doc, "doc", id, line, display, diag) {
                q.grade(id, doc, *value, line, diag);
            }
        }
    }
    if let Some(docs) = &row.non_relevant_doc_ids
        && let Some(docs) = jsonl::check_ids(docs, id, line, display, diag)
    {
        for doc in docs {
            q.judge(doc, 0, line);
        }
    }
}
