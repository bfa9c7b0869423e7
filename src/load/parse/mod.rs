//! The tokenizers every reader shares: lines (TREC, qrels, JSONL; the line cap and
//! the field splitter), CSV (headers, rows, id cells), JSON (a dict of dicts,
//! streamed) and JSONL lines. Readers by entity and format sit in `load::gold` and
//! `load::run`.

pub mod csvio;
pub mod json;
pub mod jsonl;
pub mod lines;
pub mod long;
