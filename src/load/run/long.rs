//! Long-table runs (docs/contract.md §2.16): one row per returned doc, a query
//! column, a doc column, and a score and/or rank column, in CSV or TSV. With a score
//! the docs are ordered as a TREC run's (score descending, ties by doc id
//! descending); without one, by the rank column. Rows of one query may be anywhere
//! in the file: they are grouped as read, so memory follows the file's rows.

use std::io::Read;

use rustc_hash::FxHashMap;

use super::trec::{TrecQuery, parse_score};
use super::{Collector, Progress};
use crate::load::csvio::{self, Header};
use crate::load::lines::parse_rank;
use crate::load::long::{Columns, Names};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// One row: doc, score (0 without a score column), rank, line.
struct Row {
    doc: String,
    score: f64,
    rank: i64,
    line: u64,
}

/// Read a long-table run into `c`.
pub(super) fn read(
    input: Box<dyn Read + '_>,
    cols: Columns,
    names: &Names,
    c: &mut Collector,
    diag: &mut Diagnostics,
    progress: Progress,
) {
    let display = c.display.clone();
    let mut reader = csvio::reader_with(input, cols.delimiter);
    let known = Columns::known(names);
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let Some(header) = Header::read(&mut reader, &display, &known, &[], diag) else {
        return;
    };
    if cols.rank.is_none() && cols.score.is_none() {
        diag.problem(
            Location::line(&display, 1),
            ProblemKind::MissingColumn {
                column: "score",
                required: "a query column, a doc column and `score` or `rank`",
            },
        );
        return;
    }
    c.header_ok = true;
    let mut order: Vec<(String, u64)> = Vec::new();
    let mut rows: FxHashMap<String, Vec<Row>> = FxHashMap::default();
    let needed = [cols.query, cols.doc];
    let mut bytes = 0u64;
    c.header_ok = csvio::for_each_row(
        &mut reader,
        &display,
        header.width,
        &needed,
        diag,
        |record, line, diag| {
            bytes += record.as_slice().len() as u64;
            if bytes > 1 << 22 {
                progress(bytes);
                bytes = 0;
            }
            let Some(row) = row(record, line, cols, &display, diag) else {
                return;
            };
            let (qid, row) = row;
            match rows.get_mut(&qid) {
                Some(list) => list.push(row),
                None => {
                    order.push((qid.clone(), line));
                    rows.insert(qid, vec![row]);
                }
            }
        },
    );
    let mut current = TrecQuery::default();
    for (qid, first) in order {
        let list = rows.remove(&qid).unwrap_or_default();
        ranking(
            &qid,
            first,
            list,
            cols.score.is_some(),
            c,
            &mut current,
            diag,
        );
    }
    c.finish_trec(diag);
    super::json::missing_warning(c, diag);
}

/// One row checked: its query id and [`Row`].
fn row(
    record: &csv::ByteRecord,
    line: u64,
    cols: Columns,
    display: &str,
    diag: &mut Diagnostics,
) -> Option<(String, Row)> {
    let qid = csvio::cell_id(record, cols.query, "query", "", line, display, diag)?;
    let doc = csvio::cell_id(record, cols.doc, "doc", &qid, line, display, diag)?;
    let cell = |col: usize| csvio::cell_str(record, col).unwrap_or_default().trim();
    let mut bad = |kind| {
        diag.problem(Location::line(display, line), kind);
    };
    let score = match cols.score.map(|col| parse_score(cell(col))) {
        None => 0.0,
        Some(Ok(s)) => s,
        Some(Err(reason)) => {
            let (query, doc) = (qid.clone(), doc.clone());
            bad(ProblemKind::BadScore { query, doc, reason });
            return None;
        }
    };
    let rank = match cols.rank.map(|col| parse_rank(cell(col))) {
        None => 0,
        Some(Some(r)) => r,
        Some(None) => {
            let (query, doc) = (qid.clone(), doc.clone());
            bad(ProblemKind::BadRank { query, doc });
            return None;
        }
    };
    Some((
        qid,
        Row {
            doc,
            score,
            rank,
            line,
        },
    ))
}

/// One query's rows handed to the collector: through a TREC query (score order,
/// duplicates, depth) with scores, else in rank order (ties in file order).
fn ranking(
    qid: &str,
    first: u64,
    mut list: Vec<Row>,
    scored: bool,
    c: &mut Collector,
    current: &mut TrecQuery,
    diag: &mut Diagnostics,
) {
    let qi = c.query(qid);
    if qi.is_none() && !c.structure_only {
        return; // counted by `query`, as in a JSONL run
    }
    if scored {
        current.reset(qid, first, qi);
        for r in &list {
            let cap = current.cap(c);
            current.push(&r.doc, r.score, r.rank, r.line, cap);
        }
        if qi.is_none() && !c.claim_other(qid, first, diag) {
            return;
        }
        current.finish(c, diag);
        return;
    }
    list.sort_by_key(|r| r.rank);
    let claimed = match qi {
        Some(qi) => c.claim(qi, first, diag),
        None => c.claim_other(qid, first, diag),
    };
    if claimed {
        let docs: Vec<&str> = list.iter().map(|r| r.doc.as_str()).collect();
        c.accept(qi, qid, &docs, &|i| list[i].line, diag);
    }
}
