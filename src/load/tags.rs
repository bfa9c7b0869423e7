//! Query tags (docs/contract.md §6.6): a CSV gold's `tags` column, or the side file a
//! TREC gold's manifest names (`tags = "tags.csv"`, CSV `id,tags`), checked against
//! the `tags_sha256` that `freeze` records.

use rustc_hash::FxHashMap;

use crate::load::csvio::{self, Header};
use crate::model::{GoldSet, Id, Tags};
use crate::text::safe_id;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// At most this many tags on one query.
pub const MAX_TAGS: usize = 32;

/// The labels of one `tags` cell (`;`-joined, each trimmed; an empty cell has none),
/// or why the cell is invalid.
pub fn parse_cell(cell: &str) -> Result<Vec<&str>, String> {
    if cell.trim().is_empty() {
        return Ok(Vec::new());
    }
    let labels: Vec<&str> = cell.split(';').map(str::trim).collect();
    check_labels(&labels)?;
    Ok(labels)
}

/// The label rules every source of tags shares (a CSV cell, a side file, a JSONL
/// gold's `tags` array): at most [`MAX_TAGS`], none empty, none with a control
/// character, none twice.
pub fn check_labels(labels: &[&str]) -> Result<(), String> {
    if labels.len() > MAX_TAGS {
        return Err(format!(
            "{} tags, more than {MAX_TAGS} per query",
            labels.len()
        ));
    }
    for (i, label) in labels.iter().enumerate() {
        if label.is_empty() {
            return Err(format!(
                "tag {} is empty (a `;` with nothing beside it, or a trailing `;`); remove it",
                i + 1
            ));
        }
        if label.chars().any(char::is_control) {
            return Err(format!(
                "tag {} contains a control character (a newline, tab or similar)",
                safe_id(label)
            ));
        }
        if labels[..i].contains(label) {
            return Err(format!("lists tag {} twice", safe_id(label)));
        }
    }
    Ok(())
}

/// One query's checked labels as a JSONL gold line gives them.
pub type TagRow = (Id, Vec<Id>);

/// Set the tags of a gold parsed without a problem from its lines' `tags` arrays
/// (already checked, [`check_labels`]); queries without a row have none.
pub fn from_rows(gold: &mut GoldSet, rows: &[TagRow]) {
    let mut b = Builder::new(gold.queries.len());
    for (id, labels) in rows {
        if let Some(qi) = gold.lookup(id) {
            let labels: Vec<&str> = labels.iter().map(|l| l.as_str()).collect();
            b.set(qi as usize, &labels);
        }
    }
    gold.tags = b.finish();
}

/// Labels interned as they are met, and each gold query's label indices.
struct Builder {
    labels: Vec<Id>,
    index: FxHashMap<Id, u32>,
    per_query: Vec<Vec<u32>>,
}

impl Builder {
    fn new(queries: usize) -> Self {
        Self {
            labels: Vec::new(),
            index: FxHashMap::default(),
            per_query: vec![Vec::new(); queries],
        }
    }

    fn set(&mut self, query: usize, labels: &[&str]) {
        let mut ids = Vec::with_capacity(labels.len());
        for label in labels {
            let next = self.labels.len() as u32;
            let i = *self.index.entry(Id::from(*label)).or_insert(next);
            if i == next {
                self.labels.push(Id::from(*label));
            }
            ids.push(i);
        }
        self.per_query[query] = ids;
    }

    fn finish(self) -> Tags {
        Tags::new(self.labels, self.per_query)
    }
}

/// Read the `tags` column of a CSV gold that parsed without a problem (nothing to do
/// when it has no such column). False when a cell is invalid (each reported).
pub fn from_csv_column(
    gold: &mut GoldSet,
    bytes: &[u8],
    display: &str,
    diag: &mut Diagnostics,
) -> bool {
    let mut reader = csvio::reader(bytes);
    let mut record = csv::ByteRecord::new();
    if !matches!(reader.read_byte_record(&mut record), Ok(true)) {
        return true;
    }
    let name = |i: usize, c: &[u8]| {
        let c = if i == 0 {
            c.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(c)
        } else {
            c
        };
        c.trim_ascii().to_vec()
    };
    let names: Vec<Vec<u8>> = record.iter().enumerate().map(|(i, c)| name(i, c)).collect();
    let (Some(id_col), Some(tags_col)) = (
        names.iter().position(|n| n == b"id"),
        names.iter().position(|n| n == b"tags"),
    ) else {
        return true;
    };
    let before = diag.problems.len();
    let mut b = Builder::new(gold.queries.len());
    while let Ok(true) = reader.read_byte_record(&mut record) {
        if record.len() != names.len() {
            continue; // a blank line (the gold parsed cleanly, so nothing else)
        }
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        let (Some(id), Some(cell)) = (
            csvio::cell_str(&record, id_col),
            csvio::cell_str(&record, tags_col),
        ) else {
            continue;
        };
        let Some(qi) = gold.lookup(id.trim()) else {
            continue;
        };
        match parse_cell(cell) {
            Ok(labels) => b.set(qi as usize, &labels),
            Err(reason) => diag.problem(
                Location::line(display, line),
                ProblemKind::BadTag {
                    query: safe_id(id.trim()),
                    reason,
                },
            ),
        }
    }
    gold.tags = b.finish();
    diag.problems.len() == before
}

/// Read the tags side file a gold manifest names, after checking it against the
/// recorded `tags_sha256`. False when anything is wrong (each problem reported).
pub fn from_side_file(gold: &mut GoldSet, diag: &mut Diagnostics) -> bool {
    let manifest = gold
        .meta
        .manifest
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| gold.meta.data_display.clone());
    let Some(file) = gold.meta.tags_file.clone() else {
        if gold.meta.tags_sha256.is_some() && gold.meta.frozen() {
            diag.problem(Location::file(manifest), ProblemKind::TagsShaWithoutFile);
            return false;
        }
        return true;
    };
    let display = file.path.display().to_string();
    let Some(bytes) = crate::load::fs::read_file(&file.path, "tags file", &display, diag) else {
        return false;
    };
    match &gold.meta.tags_sha256 {
        Some(recorded) => {
            let actual = crate::load::gold::sha256_hex(&bytes);
            if &actual != recorded {
                diag.problem(
                    Location::file(manifest),
                    ProblemKind::TagsChanged {
                        recorded: recorded.clone(),
                        actual,
                    },
                );
                return false;
            }
        }
        None if gold.meta.frozen() => {
            diag.problem(
                Location::file(manifest),
                ProblemKind::TagsNotFrozen { path: display },
            );
            return false;
        }
        None => {}
    }
    parse_side_file(gold, &bytes, &display, diag)
}

/// Parse a side file `id,tags`: every id a gold query, each once, none missing.
fn parse_side_file(
    gold: &mut GoldSet,
    bytes: &[u8],
    display: &str,
    diag: &mut Diagnostics,
) -> bool {
    let before = diag.problems.len();
    let Some(mut reader) = csvio::open(bytes, display, diag) else {
        return false;
    };
    let Some(header) = Header::read(&mut reader, display, &["id", "tags"], &["id", "tags"], diag)
    else {
        return false;
    };
    let required = "`id` and `tags`";
    let (Some(id_col), Some(tags_col)) = (
        header.require("id", required, display, diag),
        header.require("tags", required, display, diag),
    ) else {
        return false;
    };
    let mut b = Builder::new(gold.queries.len());
    let mut first_line: Vec<u64> = vec![0; gold.queries.len()];
    csvio::for_each_row(
        &mut reader,
        display,
        header.width,
        &[id_col, tags_col],
        diag,
        |record, line, diag| {
            let Some(id) = csvio::cell_id(record, id_col, "query", "", line, display, diag) else {
                return;
            };
            let at = Location::line(display, line);
            let Some(qi) = gold.lookup(&id).map(|i| i as usize) else {
                diag.problem(at, ProblemKind::TagsQueryNotInGold { query: id });
                return;
            };
            if first_line[qi] != 0 {
                let first = first_line[qi];
                diag.problem(at, ProblemKind::DuplicateQuery { query: id, first });
                return;
            }
            first_line[qi] = line;
            match parse_cell(csvio::cell_str(record, tags_col).unwrap_or_default()) {
                Ok(labels) => b.set(qi, &labels),
                Err(reason) => diag.problem(at, ProblemKind::BadTag { query: id, reason }),
            }
        },
    );
    for (qi, &line) in first_line.iter().enumerate() {
        if line == 0 {
            diag.problem(
                Location::file(display),
                ProblemKind::TagsQueryMissing {
                    query: gold.queries[qi].id.to_string(),
                },
            );
        }
    }
    gold.tags = b.finish();
    diag.problems.len() == before
}
