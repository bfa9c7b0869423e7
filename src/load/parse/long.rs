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
}

impl Columns {
    /// The long-table columns of a header line, when it is one: a query column and a
    /// doc column, and none of the wide formats' list columns.
    pub fn of_header(line: &[u8], delimiter: u8) -> Option<Self> {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let text = std::str::from_utf8(line).ok()?;
        let names: Vec<&str> = text
            .trim_end_matches(['\r', '\n'])
            .split(delimiter as char)
            .map(|n| n.trim().trim_matches('"'))
            .collect();
        let at = |n: &str| names.iter().position(|c| *c == n);
        if at("retrieved_doc_ids").is_some() || at("expected_doc_ids").is_some() {
            return None;
        }
        let id = QUERY.iter().find_map(|n| at(n));
        let (query, text) = match id {
            Some(q) => (q, at(QUERY_TEXT)),
            None => (at(QUERY_TEXT)?, None),
        };
        let doc = DOC.iter().find_map(|n| at(n))?;
        Some(Self {
            delimiter,
            query,
            doc,
            rank: at("rank"),
            score: at("score"),
            text,
        })
    }

    /// The names a reader of this table knows (no "ignoring column" warning).
    pub fn known() -> Vec<&'static str> {
        let mut k: Vec<&str> = QUERY.to_vec();
        k.extend(DOC);
        k.extend(GRADE);
        k.extend([QUERY_TEXT, "rank", "iter", "Q0", "run", "tag"]);
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
    let delimiter = if first_line.contains(&b'\t') {
        b'\t'
    } else {
        b','
    };
    Columns::of_header(first_line, delimiter)
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
