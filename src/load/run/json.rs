//! JSON runs (`docs/contract.md §2.8`), fed to the same [`Collector`] as CSV and TREC
//! runs: a JSON run's docs (and a JSONL run's when it gives scores) are ordered
//! exactly as a TREC run's (score descending, ties by doc id descending). The check
//! that a file's first bytes fit its declared format is here too, for every format.

use std::io::Read;

use super::Collector;
use super::trec::TrecQuery;
use crate::load::json::{self, DictSink, Num};
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

/// Read a JSON run into `c`.
pub(super) fn read(
    input: Box<dyn Read + '_>,
    c: &mut Collector,
    diag: &mut Diagnostics,
    progress: super::Progress,
) {
    let display = c.display.clone();
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
                Location::line(&self.c.display, line).pointer(json::dict_pointer(qid, doc)),
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
