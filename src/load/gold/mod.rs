//! Gold data: CSV (`id,question,expected_doc_ids`), TREC qrels (`qid iter docid
//! grade`), JSON or JSONL, one file per format beside this one. The question column
//! is never read beyond its header.

use sha2::{Digest, Sha256};

use crate::model::{DataFormat, GoldMeta, GoldQuery, GoldSet, Id, Judgement};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// The sha256 of a gold data file, as `freeze` records it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Read and parse the gold data named by `meta`, checking it against the recorded
/// sha256. `extra_ok` lists columns that are expected beside the gold's own (the
/// one-file layout's run columns).
pub fn load(meta: GoldMeta, extra_ok: &[&str], diag: &mut Diagnostics) -> Option<GoldSet> {
    let display = meta.data.display().to_string();
    let bytes = crate::load::fs::read_file(&meta.data, "gold data", &display, diag)?;
    if let Some(recorded) = &meta.sha256 {
        let actual = sha256_hex(&bytes);
        if &actual != recorded {
            let manifest = meta
                .manifest
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| display.clone());
            diag.problem(
                Location::file(manifest),
                ProblemKind::GoldChanged {
                    recorded: recorded.clone(),
                    actual,
                },
            );
            return None;
        }
    }
    parse(meta, &bytes, extra_ok, diag)
}

/// Parse gold data already in memory (the fuzz targets and tests use this).
pub fn parse(
    meta: GoldMeta,
    bytes: &[u8],
    extra_ok: &[&str],
    diag: &mut Diagnostics,
) -> Option<GoldSet> {
    let display = meta.data.display().to_string();
    let before = diag.problems.len();
    if let Some(kind) = crate::load::json::mismatch(&bytes[..bytes.len().min(1 << 16)], meta.format)
    {
        diag.problem(Location::file(&display), kind);
        return None;
    }
    let mut tag_rows = Vec::new();
    // docs/contract.md §2.16: a CSV or TSV file whose header names a long table.
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let names = meta.long.clone().unwrap_or_default();
    let long = match (meta.format, &meta.long) {
        (_, Some(names)) => Some(crate::load::long::named_or_problem(
            first, names, &display, diag,
        )?),
        (DataFormat::Csv, None) => crate::load::long::detect(first),
        (DataFormat::Trec, None) => {
            crate::load::long::detect(first).filter(|c| c.delimiter == b'\t')
        }
        _ => None,
    };
    let raw = match meta.format {
        _ if long.is_some() => {
            long::parse_long(bytes, long.expect("checked"), &names, &display, diag)
        }
        DataFormat::Csv => csv::parse_csv(bytes, &display, extra_ok, diag),
        DataFormat::Trec => qrels::parse_qrels(bytes, &display, diag),
        DataFormat::Json => json::parse_json(bytes, &display, diag),
        DataFormat::Jsonl => {
            let (raw, tags) = jsonl::parse_jsonl(bytes, &display, diag);
            tag_rows = tags;
            raw
        }
    };
    if !tag_rows.is_empty() && meta.tags_file.is_some() {
        // docs/contract.md §2.13: one source of tags.
        diag.problem(Location::file(&display), ProblemKind::TagsTwice);
    }
    if diag.problems.len() > before {
        return None;
    }
    let queries = raw
        .into_iter()
        .map(|(id, judged)| GoldQuery::new(id, judged, meta.min_grade))
        .collect();
    let mut gold = GoldSet::new(meta, queries);
    // docs/contract.md §2.13: a JSONL gold's `tags` arrays.
    if !tag_rows.is_empty() {
        crate::load::tags::from_rows(&mut gold, &tag_rows);
    }
    // docs/contract.md §6.6: a CSV gold's `tags` column.
    if gold.meta.format == DataFormat::Csv
        && !crate::load::tags::from_csv_column(&mut gold, bytes, &display, diag)
    {
        return None;
    }
    Some(gold)
}

mod csv;
mod json;
mod jsonl;
mod long;
mod qrels;

pub use csv::NON_RELEVANT;

type RawQuery = (Id, Vec<Judgement>);
/// A query's judgements with the line of each, to report duplicates.
type LinedQuery = (Id, Vec<(Judgement, u64)>);
