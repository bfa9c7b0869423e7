//! Chunk maps (docs/contract.md §2.11): a run manifest's `doc_map = "chunks.csv"`
//! (CSV `chunk_id,doc_id`) says which document each retrieved chunk belongs to. The
//! run's ids are mapped to documents as each ranking is read, before any metric or
//! list hash sees them; the gold always names documents.

use rustc_hash::FxHashMap;

use crate::load::csvio::{self, Header};
use crate::model::{GoldSet, Id};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Chunk ids to documents, and the documents the map holds.
#[derive(Debug, Default)]
pub struct DocMap {
    /// The map's file, as the manifest's path resolves.
    pub display: String,
    /// The sha256 of the bytes read (reports name the map by it).
    pub sha256: String,
    /// Each chunk's document (an index into `docs`) and the line that mapped it.
    chunks: FxHashMap<Id, (u32, u64)>,
    docs: Vec<Id>,
    doc_index: FxHashMap<Id, u32>,
}

impl DocMap {
    /// The document chunk `chunk` belongs to, if the map has the chunk.
    pub fn doc_of(&self, chunk: &str) -> Option<&str> {
        self.chunks
            .get(chunk)
            .map(|&(d, _)| self.docs[d as usize].as_str())
    }

    /// Whether some chunk of the map belongs to `doc`.
    pub fn has_doc(&self, doc: &str) -> bool {
        self.doc_index.contains_key(doc)
    }

    /// Build a map from (chunk, doc) pairs; the first pair of a chunk wins (for
    /// tests: a file's second pair of a chunk is a problem).
    pub fn from_pairs<'a>(
        display: &str,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Self {
        let mut map = DocMap {
            display: display.to_string(),
            ..Default::default()
        };
        for (chunk, doc) in pairs {
            if !map.chunks.contains_key(chunk) {
                let d = map.intern(doc);
                map.chunks.insert(Id::from(chunk), (d, 0));
            }
        }
        map
    }

    fn intern(&mut self, doc: &str) -> u32 {
        if let Some(&d) = self.doc_index.get(doc) {
            return d;
        }
        let d = self.docs.len() as u32;
        self.docs.push(Id::from(doc));
        self.doc_index.insert(Id::from(doc), d);
        d
    }

    /// One ranking of chunk ids (rank order) as documents: each document at the
    /// rank of its first chunk, later chunks of it dropped. Each item is the doc and
    /// the index of its chunk in `chunks`. `None` when a chunk is not in the map or
    /// is listed twice (each reported at its line).
    pub fn to_docs<'m>(
        &'m self,
        query: &str,
        chunks: &[&str],
        run: &str,
        line_of: &dyn Fn(usize) -> u64,
        diag: &mut Diagnostics,
    ) -> Option<(Vec<&'m str>, Vec<usize>)> {
        let mut docs = Vec::with_capacity(chunks.len());
        let mut at = Vec::with_capacity(chunks.len());
        let mut seen_docs = rustc_hash::FxHashSet::default();
        let mut seen_chunks = rustc_hash::FxHashSet::default();
        let mut ok = true;
        for (i, chunk) in chunks.iter().enumerate() {
            if !seen_chunks.insert(*chunk) {
                diag.problem(
                    Location::line(run, line_of(i)),
                    ProblemKind::DuplicateDocInRanking {
                        query: query.to_string(),
                        doc: chunk.to_string(),
                    },
                );
                ok = false;
                continue;
            }
            let Some(doc) = self.doc_of(chunk) else {
                diag.problem(
                    Location::line(run, line_of(i)),
                    ProblemKind::UnmappedChunk {
                        query: query.to_string(),
                        chunk: chunk.to_string(),
                        map: self.display.clone(),
                    },
                );
                ok = false;
                continue;
            };
            if seen_docs.insert(doc) {
                docs.push(doc);
                at.push(i);
            }
        }
        ok.then_some((docs, at))
    }

    /// A doc the gold judges (for any query, either way) keeps its id: a map that
    /// sends it to another doc would rewrite a judged result (docs/contract.md
    /// §2.11). Each such chunk is a problem at its line; false when there is one.
    pub fn check_judged(&self, gold: &GoldSet, diag: &mut Diagnostics) -> bool {
        let judged: rustc_hash::FxHashSet<&str> = gold
            .queries
            .iter()
            .flat_map(|q| q.judged.iter().map(|j| j.doc.as_str()))
            .collect();
        let mut ok = true;
        for (chunk, &(d, line)) in &self.chunks {
            let doc = &self.docs[d as usize];
            if doc != chunk && judged.contains(chunk.as_str()) {
                diag.problem(
                    Location::line(&self.display, line),
                    ProblemKind::JudgedDocRemapped {
                        chunk: chunk.to_string(),
                        doc: doc.to_string(),
                    },
                );
                ok = false;
            }
        }
        ok
    }

    /// Per gold query, whether the map holds one of its relevant docs.
    pub fn covered(&self, gold: &GoldSet) -> Vec<bool> {
        let min = gold.meta.min_grade;
        gold.queries
            .iter()
            .map(|q| {
                q.judged
                    .iter()
                    .any(|j| j.grade >= min && self.has_doc(&j.doc))
            })
            .collect()
    }
}

/// Read a chunk map: header `chunk_id,doc_id` (other columns ignored with a
/// warning), one row per chunk; an invalid id or a chunk listed twice is a problem at
/// its line. `None` when anything is wrong.
pub fn read(path: &std::path::Path, display: &str, diag: &mut Diagnostics) -> Option<DocMap> {
    let before = diag.problems.len();
    let bytes = crate::load::fs::read_file(path, "doc map", display, diag)?;
    let sha256 = crate::load::gold::sha256_hex(&bytes);
    let mut reader = csvio::open(&bytes, display, diag)?;
    let names = ["chunk_id", "doc_id"];
    let header = Header::read(&mut reader, display, &names, &names, diag)?;
    let required = "`chunk_id` and `doc_id`";
    let (Some(chunk_col), Some(doc_col)) = (
        header.require("chunk_id", required, display, diag),
        header.require("doc_id", required, display, diag),
    ) else {
        return None;
    };
    let mut map = DocMap {
        display: display.to_string(),
        sha256,
        ..Default::default()
    };
    csvio::for_each_row(
        &mut reader,
        display,
        header.width,
        &[chunk_col, doc_col],
        diag,
        |record, line, diag| {
            let chunk = csvio::cell_id(record, chunk_col, "chunk", "", line, display, diag);
            let doc = csvio::cell_id(record, doc_col, "doc", "", line, display, diag);
            let (Some(chunk), Some(doc)) = (chunk, doc) else {
                return;
            };
            if let Some(&(_, first)) = map.chunks.get(chunk.as_str()) {
                diag.problem(
                    Location::line(display, line),
                    ProblemKind::ChunkMappedTwice { chunk, first },
                );
                return;
            }
            let d = map.intern(&doc);
            map.chunks.insert(Id::from(chunk), (d, line));
        },
    );
    (diag.problems.len() == before).then_some(map)
}
