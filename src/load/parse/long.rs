//! Long tables (docs/contract.md §2.16): one row per (query, doc), as pandas,
//! PyTerrier and BEIR write them, in CSV or TSV. Which columns hold what is told
//! from the header's names; the readers are `load::run::long` and `load::gold::long`.

use std::io::Read;

/// Names of the query id column, in order of preference.
pub const QUERY: [&str; 4] = ["query_id", "qid", "query-id", "topic"];
/// `query` is the query id only when no column of [`QUERY`] exists; beside one it is
/// PyTerrier's query text, never read.
pub const QUERY_TEXT: &str = "query";
/// Names of the doc id column.
pub const DOC: [&str; 5] = ["doc_id", "docno", "docid", "corpus-id", "doc"];
/// Names of a gold's grade column.
pub const GRADE: [&str; 3] = ["relevance", "grade", "score"];

/// The columns of a long table, by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub delimiter: u8,
    pub query: usize,
    pub doc: usize,
    pub rank: Option<usize>,
    pub score: Option<usize>,
    /// PyTerrier's query text, ignored.
    pub text: Option<usize>,
    /// A gold's grade column: the first of [`GRADE`].
    pub grade: Option<usize>,
}

pub use crate::model::LongNames as Names;

impl Columns {
    /// The long-table columns of a header line, when it is one: a query column and a
    /// doc column, and none of the wide formats' list columns.
    pub fn of_header(line: &[u8], delimiter: u8) -> Option<Self> {
        Self::named(line, delimiter, &Names::default())
            .ok()
            .flatten()
    }

    /// The columns of a header line with some names given (`names`): `Err(key)` when
    /// the column `names` gives for `key` is not in the header; `Ok(None)` when the
    /// header is not a long table (no query or no doc column, or a wide format's).
    pub fn named(line: &[u8], delimiter: u8, names: &Names) -> Result<Option<Self>, &'static str> {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let text = std::str::from_utf8(line).unwrap_or("");
        let header: Vec<&str> = text
            // A bare CR ends a line, as the CSV reader takes it (docs/contract.md §3).
            .split(['\r', '\n'])
            .next()
            .unwrap_or("")
            .split(delimiter as char)
            .map(|n| n.trim().trim_matches('"'))
            .collect();
        let at = |n: &str| header.iter().position(|c| *c == n);
        let mut given = [None; 5];
        for (slot, key) in given.iter_mut().zip(Names::KEYS) {
            if let Some(name) = names.get(key) {
                *slot = Some(at(name).ok_or(key)?);
            }
        }
        let [query, doc, rank, score, grade] = given;
        if at("retrieved_doc_ids").is_some() || at("expected_doc_ids").is_some() {
            return Ok(None);
        }
        let (query, text) = match query.or_else(|| QUERY.iter().find_map(|n| at(n))) {
            Some(q) => (q, at(QUERY_TEXT).filter(|t| *t != q)),
            None => match at(QUERY_TEXT) {
                Some(q) => (q, None),
                None => return Ok(None),
            },
        };
        let Some(doc) = doc.or_else(|| DOC.iter().find_map(|n| at(n))) else {
            return Ok(None);
        };
        Ok(Some(Self {
            delimiter,
            query,
            doc,
            rank: rank.or_else(|| at("rank")),
            score: score.or_else(|| at("score")),
            text,
            grade: grade.or_else(|| GRADE.iter().find_map(|n| at(n))),
        }))
    }

    /// The names a reader of this table knows (no "ignoring column" warning), with
    /// those `names` gives.
    pub fn known(names: &Names) -> Vec<String> {
        let mut k: Vec<&str> = QUERY.to_vec();
        k.extend(DOC);
        k.extend(GRADE);
        k.extend([QUERY_TEXT, "rank", "iter", "Q0", "run", "tag"]);
        let mut k: Vec<String> = k.into_iter().map(String::from).collect();
        k.extend(Names::KEYS.iter().filter_map(|key| names.get(key).cloned()));
        k
    }
}

/// The first line of `input` (at most 64 KiB) and `input` again, whole.
pub fn sniff<'s>(mut input: Box<dyn Read + 's>) -> (Vec<u8>, Box<dyn Read + 's>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while head.len() < 1 << 16 && !head.contains(&b'\n') {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let first = head
        .split(|&b| b == b'\n')
        .next()
        .unwrap_or_default()
        .to_vec();
    (first, Box::new(std::io::Cursor::new(head).chain(input)))
}

/// The delimiter a data file's header line uses, when it is a long table: a tab
/// for a line with tabs, else a comma.
pub fn detect(first_line: &[u8]) -> Option<Columns> {
    Columns::of_header(first_line, delimiter_of(first_line))
}

/// The columns of a file the manifest says is a long table (`format = "csv-long"`
/// or `[columns]`): a named column missing from the header, or a header without a
/// query and a doc column, is a problem at `FILE:1`.
pub fn named_or_problem(
    first_line: &[u8],
    names: &Names,
    display: &str,
    diag: &mut crate::validate::Diagnostics,
) -> Option<Columns> {
    use crate::validate::{Location, ProblemKind};
    let problem = match Columns::named(first_line, delimiter_of(first_line), names) {
        Ok(Some(cols)) => return Some(cols),
        Ok(None) => ProblemKind::NotALongTable,
        // A manifest string may be 70 KB: the message shows 64 columns of it.
        Err(key) => ProblemKind::NamedColumnMissing {
            key,
            name: crate::text::cut_to(names.get(key).map_or("", String::as_str), 64),
        },
    };
    diag.problem(Location::line(display, 1), problem);
    None
}

/// A tab for a header line with tabs, else a comma.
pub fn delimiter_of(first_line: &[u8]) -> u8 {
    if first_line.contains(&b'\t') {
        b'\t'
    } else {
        b','
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_users_have() {
        let pandas = detect(b"query_id,doc_id,rank,score").expect("long");
        assert_eq!(
            (pandas.query, pandas.doc, pandas.rank, pandas.score),
            (0, 1, Some(2), Some(3))
        );
        let pyterrier = detect(b"qid,docid,docno,rank,score,query").expect("long");
        assert_eq!((pyterrier.query, pyterrier.text), (0, Some(5)));
        assert_eq!(
            pyterrier.doc, 2,
            "docno before docid? the first known name wins"
        );
        let beir = detect(b"query-id\tcorpus-id\tscore").expect("long");
        assert_eq!((beir.delimiter, beir.query, beir.doc), (b'\t', 0, 1));
        let bare = detect(b"query,doc").expect("long");
        assert_eq!((bare.query, bare.text), (0, None));
        assert_eq!(detect(b"id,retrieved_doc_ids"), None);
        assert_eq!(detect(b"q1 Q0 d1 1 2.0 t"), None);
    }
}
