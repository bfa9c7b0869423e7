//! JSON and JSONL gold data (`docs/contract.md §2.8`): qrels as a dict of dicts
//! `{"q1": {"d1": 1}}` (graded as TREC qrels), or one object a line
//! `{"id": "Q-1", "expected_doc_ids": ["D-1"]}` (or `"grades": {"D-1": 2}`).

use rustc_hash::FxHashMap;

use super::qrels::finish_qrels;
use super::{LinedQuery, RawQuery};
use crate::load::json::{self, DictSink, Num};
use crate::model::{Id, Judgement};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Queries in file order, with the first line of each.
pub(super) struct Qrels<'d> {
    pub(super) display: &'d str,
    pub(super) order: Vec<LinedQuery>,
    pub(super) first: FxHashMap<Id, u64>,
    /// The current query's index in `order`, `None` when it was a duplicate.
    pub(super) current: Option<usize>,
}

impl<'d> Qrels<'d> {
    pub(super) fn new(display: &'d str) -> Self {
        Self {
            display,
            order: Vec::new(),
            first: FxHashMap::default(),
            current: None,
        }
    }

    /// Start query `qid` at `line`; false (and a problem) when it was listed before.
    pub(super) fn begin(&mut self, qid: &str, line: u64, diag: &mut Diagnostics) -> bool {
        if let Some(&first) = self.first.get(qid) {
            diag.problem(
                Location::line(self.display, line),
                ProblemKind::DuplicateQuery {
                    query: qid.to_string(),
                    first,
                },
            );
            self.current = None;
            return false;
        }
        self.first.insert(qid.into(), line);
        self.order.push((qid.into(), Vec::new()));
        self.current = Some(self.order.len() - 1);
        true
    }

    pub(super) fn judge(&mut self, doc: &str, grade: i64, line: u64) {
        if let Some(i) = self.current {
            let doc = doc.into();
            self.order[i].1.push((Judgement { doc, grade }, line));
        }
    }

    /// Judge `doc` with `value`, or a problem at `at` (its line and pointer) when the
    /// value is not a whole number.
    pub(super) fn grade(
        &mut self,
        qid: &str,
        doc: &str,
        value: Num,
        at: Location,
        diag: &mut Diagnostics,
    ) {
        match value.grade() {
            Some(g) => self.judge(doc, g, at.line.unwrap_or(0)),
            None => diag.problem(
                at,
                ProblemKind::BadGrade {
                    query: qid.to_string(),
                    doc: doc.to_string(),
                },
            ),
        }
    }
}

impl DictSink for Qrels<'_> {
    fn start(&mut self, qid: &str, line: u64, diag: &mut Diagnostics) {
        self.begin(qid, line, diag);
    }

    fn entry(&mut self, qid: &str, doc: &str, value: Num, line: u64, diag: &mut Diagnostics) {
        let at = Location::line(self.display, line).pointer(json::dict_pointer(qid, doc));
        self.grade(qid, doc, value, at, diag);
    }

    fn end(&mut self, _: &mut Diagnostics) {}
}

/// Qrels as a JSON dict of dicts.
pub(super) fn parse_json(bytes: &[u8], display: &str, diag: &mut Diagnostics) -> Vec<RawQuery> {
    let mut q = Qrels::new(display);
    let any = json::walk_dict(bytes, display, "gold data", &mut q, diag, &|_| {});
    if !any && !diag.has_problems() {
        diag.problem(
            Location::file(display),
            ProblemKind::EmptyFile {
                expected: "a JSON object {\"query id\": {\"doc id\": grade}}",
            },
        );
    }
    finish_qrels(q.order, display, diag)
}
