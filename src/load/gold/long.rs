//! Long-table gold (docs/contract.md §2.16): one row per judged doc, a query column,
//! a doc column and a grade column (`relevance`, `grade` or `score`), in CSV or TSV:
//! `query_id,doc_id,relevance`, or BEIR's `qrels/*.tsv` (`query-id corpus-id score`).
//! Grades as TREC qrels'.

use rustc_hash::FxHashMap;

use super::qrels::finish_qrels;
use super::{LinedQuery, RawQuery};
use crate::load::csvio::{self, Header};
use crate::load::lines::{Guard, parse_rank};
use crate::load::long::{Columns, Names};
use crate::model::{Id, Judgement};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Parse a long-table gold whose header `cols` describes.
pub(super) fn parse_long(
    bytes: &[u8],
    cols: Columns,
    names: &Names,
    display: &str,
    diag: &mut Diagnostics,
) -> Vec<RawQuery> {
    let mut order: Vec<LinedQuery> = Vec::new();
    let mut reader = csvio::reader_with(Guard::csv(bytes), cols.delimiter);
    let known = Columns::known(names);
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let Some(header) = Header::read(&mut reader, display, &known, &[], diag) else {
        return Vec::new();
    };
    let Some(grade_col) = cols.grade else {
        diag.problem(
            Location::line(display, 1),
            ProblemKind::MissingColumn {
                column: "relevance",
                required: "a query column, a doc column and `relevance`, `grade` or `score`",
            },
        );
        return Vec::new();
    };
    let mut index: FxHashMap<Id, usize> = FxHashMap::default();
    let needed = [cols.query, cols.doc, grade_col];
    csvio::for_each_row(
        &mut reader,
        display,
        header.width,
        &needed,
        diag,
        |record, line, diag| {
            let Some(qid) = csvio::cell_id(record, cols.query, "query", "", line, display, diag)
            else {
                return;
            };
            let Some(doc) = csvio::cell_id(record, cols.doc, "doc", &qid, line, display, diag)
            else {
                return;
            };
            let cell = csvio::cell_str(record, grade_col)
                .unwrap_or_default()
                .trim();
            let Some(grade) = parse_rank(cell) else {
                diag.problem(
                    Location::line(display, line),
                    ProblemKind::BadGrade { query: qid, doc },
                );
                return;
            };
            let i = *index.entry(Id::from(qid.as_str())).or_insert_with(|| {
                order.push((Id::from(qid.as_str()), Vec::new()));
                order.len() - 1
            });
            let judgement = Judgement {
                doc: doc.as_str().into(),
                grade,
            };
            order[i].1.push((judgement, line));
        },
    );
    if order.is_empty() && !diag.has_problems() {
        diag.problem(Location::file(display), ProblemKind::HeaderOnly);
    }
    finish_qrels(order, display, diag)
}
