//! JSON and JSONL runs (`docs/contract.md §2.8`), fed to the same [`Collector`] as
//! CSV and TREC runs: a JSON run's docs, and a JSONL run's when it gives scores, are
//! ordered exactly as a TREC run's (score descending, ties by doc id descending).

use std::io::Read;

use super::{Collector, TrecQuery};
use crate::load::json::{self, DictSink, Num};
use crate::load::jsonl::{self, RunLine};
use crate::load::lines;
use crate::model::DataFormat;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// How many leading bytes are looked at to tell a file's format.
const PREFIX: usize = 1 << 16;

/// `input` again, whole, after checking that its first bytes fit `format`; `None`
/// (and a problem saying which format it looks like) when they do not.
pub(super) fn check_content<'s>(
    mut input: Box<dyn Read + 's>,
    format: DataFormat,
    display: &str,
    diag: &mut Diagnostics,
) -> Option<Box<dyn Read + 's>> {
    let mut prefix = vec![0u8; PREFIX];
    let mut filled = 0;
    while filled < PREFIX {
        match input.read(&mut prefix[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // Left for the reader to report.
            Err(_) => break,
        }
    }
    prefix.truncate(filled);
    if let Some(kind) = json::mismatch(&prefix, format) {
        diag.problem(Location::file(display), kind);
        return None;
    }
    Some(Box::new(std::io::Cursor::new(prefix).chain(input)))
}

/// Read a JSON or JSONL run into `c`.
pub(super) fn read(
    input: Box<dyn Read + '_>,
    format: DataFormat,
    c: &mut Collector,
    diag: &mut Diagnostics,
    progress: super::Progress,
) {
    let display = c.display.clone();
    match format {
        DataFormat::Json => {
            let mut sink = JsonRun {
                c,
                current: TrecQuery::default(),
            };
            let any = json::walk_dict(input, &display, "run results", &mut sink, diag, progress);
            if !any && diag.problems.is_empty() {
                diag.problem(
                    Location::file(&display),
                    ProblemKind::EmptyFile {
                        expected: "a JSON object {\"query id\": {\"doc id\": score}}",
                    },
                );
            }
            c.finish_trec(diag);
            missing_warning(c, diag);
        }
        _ => {
            c.header_ok = true;
            read_jsonl(input, &display, c, diag, progress);
            c.finish_csv(diag);
            c.finish_trec(diag);
        }
    }
}

/// A JSON run may leave out gold queries: each counts as an empty ranking, as in a
/// TREC run (`trec_eval -c`); say how many.
fn missing_warning(c: &Collector, diag: &mut Diagnostics) {
    if c.structure_only {
        return;
    }
    let missing: Vec<String> = c
        .gold
        .queries
        .iter()
        .zip(&c.first_line)
        .filter(|(_, line)| **line == 0)
        .map(|(q, _)| q.id.to_string())
        .collect();
    if !missing.is_empty() {
        let mut missing = missing;
        missing.sort_unstable_by(|a, b| crate::text::natural_cmp(a, b));
        diag.warn(format!(
            "{}: {} not in the run; each counts as an empty ranking, as in a TREC run: {}",
            c.display,
            crate::text::plural(missing.len(), "gold query is", "gold queries are"),
            crate::text::name_ids(&missing)
        ));
    }
}

/// Feeds a dict of dicts to the collector, one query at a time.
struct JsonRun<'c, 'g> {
    c: &'c mut Collector<'g>,
    current: TrecQuery,
}

impl DictSink for JsonRun<'_, '_> {
    fn start(&mut self, qid: &str, line: u64, _diag: &mut Diagnostics) {
        let gold = self.c.query(qid);
        self.current.reset(qid, line, gold);
    }

    fn entry(&mut self, qid: &str, doc: &str, value: Num, line: u64, diag: &mut Diagnostics) {
        match value.score() {
            Some(score) if score.is_finite() => {
                // `+ 0.0` makes -0.0 the same score as 0.0, as in a TREC run.
                let cap = self.current.cap(self.c);
                self.current.push(doc, score + 0.0, 0, line, cap);
            }
            _ => diag.problem(
                Location::line(&self.c.display, line),
                ProblemKind::BadScore {
                    query: qid.to_string(),
                    doc: doc.to_string(),
                    reason: "not a number",
                },
            ),
        }
    }

    fn end(&mut self, diag: &mut Diagnostics) {
        self.current.finish(self.c, diag);
    }
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
    let Some(id) = jsonl::check_id(&row.id, "query", "", line, &display, diag) else {
        return;
    };
    let qi = c.query(id);
    if qi.is_none() && !c.structure_only {
        return;
    }
    let Some(docs) = jsonl::check_ids(&row.retrieved_doc_ids, id, line, &display, diag) else {
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
            Location::line(&display, line),
            ProblemKind::ScoresLength {
                query: id.to_string(),
                scores: scores.len(),
                docs: docs.len(),
            },
        );
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
                    Location::line(&display, line),
                    ProblemKind::BadScore {
                        query: id.to_string(),
                        doc: doc.to_string(),
                        reason: "not a number",
                    },
                );
                return;
            }
        }
    }
    if qi.is_none() && !c.claim_other(id, line, diag) {
        return;
    }
    current.finish(c, diag);
}
