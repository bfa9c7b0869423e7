//! JSONL runs, one ranking a line (`docs/contract.md §2.8`).

use std::io::Read;

use super::Collector;
use super::trec::TrecQuery;
use crate::load::jsonl::{self, RunLine};
use crate::load::lines;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Read a JSONL run into `c`.
pub(super) fn read(
    input: Box<dyn Read + '_>,
    c: &mut Collector,
    diag: &mut Diagnostics,
    progress: super::Progress,
) {
    let display = c.display.clone();
    c.header_ok = true;
    read_jsonl(input, &display, c, diag, progress);
    if !c.header_ok {
        return;
    }
    c.finish_csv(diag);
    c.finish_trec(diag);
}

/// Stream a JSONL run, one ranking a line.
fn read_jsonl(
    input: Box<dyn Read + '_>,
    display: &str,
    c: &mut Collector,
    diag: &mut Diagnostics,
    progress: super::Progress,
) {
    let mut any = false;
    let mut current = TrecQuery::default();
    // One object a line: lines are capped like a TREC run's (a JSON file, often one
    // long line, is not).
    let input = lines::Guard::lines(input);
    let result = lines::stream_lines(
        input,
        display,
        lines::EVERY_FIELD,
        diag,
        progress,
        |line, text, diag| {
            if jsonl::blank(text) {
                return true;
            }
            if !any && let Some(kind) = jsonl::near_miss(text) {
                // One problem naming the key, not one per query (docs/contract.md §2.16).
                diag.problem(Location::line(display, line), kind);
                c.header_ok = false;
                return false;
            }
            any = true;
            if let Some(row) = jsonl::parse_line::<RunLine>(text, line, display, diag) {
                jsonl_row(&row, line, c, &mut current, diag);
            }
            true
        },
    );
    if let Err(e) = result {
        let (line, kind) = super::read_error(&e, display);
        diag.problem(Location::at(display, line), kind);
    }
    if !any && diag.problems.is_empty() {
        diag.problem(
            Location::file(display),
            ProblemKind::EmptyFile {
                expected: "one JSON object a line {\"id\": …, \"retrieved_doc_ids\": […]}",
            },
        );
    }
}

/// One JSONL ranking: checked, claimed for its gold query, ordered by its scores
/// when it has them, and handed to the collector.
fn jsonl_row(
    row: &RunLine,
    line: u64,
    c: &mut Collector,
    current: &mut TrecQuery,
    diag: &mut Diagnostics,
) {
    let display = c.display.clone();
    let at = Location::line(&display, line);
    let Some(id) = jsonl::check_id(&row.id, "query", "", at.clone().pointer("/id"), diag) else {
        return;
    };
    // A query the gold lacks is read on (it enters drift, as in a CSV or TREC run:
    // docs/contract.md §6.5).
    let qi = c.query(id);
    if let Some(l) = row.latency_ms {
        let text = l
            .score()
            .map_or_else(|| "not a number".to_string(), |v| v.to_string());
        c.latency(
            id,
            l.score(),
            &text,
            at.clone().pointer("/latency_ms"),
            diag,
        );
    }
    let Some(docs) = jsonl::check_ids(&row.retrieved_doc_ids, "retrieved_doc_ids", id, &at, diag)
    else {
        claim_broken(c, qi, id, line, diag);
        return;
    };
    let Some(scores) = &row.scores else {
        let claimed = match qi {
            Some(qi) => c.claim(qi, line, diag),
            None => c.claim_other(id, line, diag),
        };
        if claimed {
            c.accept(qi, id, &docs, &|_| line, diag);
        }
        return;
    };
    if scores.len() != docs.len() {
        diag.problem(
            at.pointer("/scores"),
            ProblemKind::ScoresLength {
                query: id.to_string(),
                scores: scores.len(),
                docs: docs.len(),
            },
        );
        claim_broken(c, qi, id, line, diag);
        return;
    }
    current.reset(id, line, qi);
    for (rank, (doc, score)) in docs.iter().zip(scores).enumerate() {
        match score.score() {
            Some(s) => {
                let cap = current.cap(c);
                current.push(doc, s + 0.0, rank as i64 + 1, line, cap);
            }
            None => {
                diag.problem(
                    Location::line(&display, line).pointer(format!("/scores/{rank}")),
                    ProblemKind::BadScore {
                        query: id.to_string(),
                        doc: doc.to_string(),
                        reason: "not a number",
                    },
                );
                claim_broken(c, qi, id, line, diag);
                return;
            }
        }
    }
    if qi.is_none() && !c.claim_other(id, line, diag) {
        return;
    }
    current.finish(c, diag);
}

/// A row with a problem still answers its query: it is claimed (a second row for the
/// query is still a duplicate), so the query is not also reported missing, as in a
/// CSV run (docs/contract.md §3).
fn claim_broken(c: &mut Collector, qi: Option<usize>, id: &str, line: u64, diag: &mut Diagnostics) {
    match qi {
        Some(qi) => c.claim(qi, line, diag),
        None => c.claim_other(id, line, diag),
    };
}
