//! CSV runs (`id,retrieved_doc_ids`), and the one-file layout's `index_version`.

use std::io::Read;

use rustc_hash::FxHashSet;

use super::{Collector, Progress};
use crate::load::csvio::{self, Header};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Counts bytes for the progress bar.
struct Counting<'a, R> {
    inner: R,
    progress: Progress<'a>,
    pending: u64,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pending += n as u64;
        if self.pending >= 1 << 22 || n == 0 {
            (self.progress)(self.pending);
            self.pending = 0;
        }
        Ok(n)
    }
}

/// Returns the single index version named in an `index_version` column, if any.
pub(super) fn read_csv(
    file: impl Read,
    display: &str,
    extra_ok: &[&str],
    c: &mut Collector,
    diag: &mut Diagnostics,
    progress: Progress,
) -> Option<String> {
    let input = Counting {
        inner: file,
        progress,
        pending: 0,
    };
    let mut reader = csvio::reader(input);
    let (header, id_col, docs_col) = run_header(&mut reader, display, extra_ok, diag)?;
    c.header_ok = true;
    let version_col = extra_ok
        .contains(&"index_version")
        .then(|| header.position("index_version"))
        .flatten();
    let latency_col = header.position("latency_ms");
    let mut versions: Vec<String> = Vec::new();
    let mut seen_versions: FxHashSet<String> = FxHashSet::default();
    let mut rows = 0u64;
    let mut needed = vec![id_col, docs_col];
    needed.extend(version_col);
    // Rows after a read error were never seen: "missing" would be noise.
    c.header_ok = csvio::for_each_row(
        &mut reader,
        display,
        header.width,
        &needed,
        diag,
        |record, line, diag| {
            rows += 1;
            let Some(id) = csvio::cell_id(record, id_col, "query", "", line, display, diag) else {
                return;
            };
            if let Some(col) = version_col
                && let Some(v) = csvio::cell_str(record, col)
            {
                let at = Location::line(display, line);
                note_version(v, at, &mut seen_versions, &mut versions, diag);
            }
            let qi = c.query(&id);
            if let Some(qi) = qi
                && !c.claim(qi, line, diag)
            {
                return;
            }
            if qi.is_none() && !c.claim_other(&id, line, diag) {
                return;
            }
            // docs/contract.md §6.9: an empty cell is a query without one (errored).
            if let Some(col) = latency_col
                && let Some(text) = csvio::cell_str(record, col).filter(|t| !t.trim().is_empty())
            {
                let at = Location::line(display, line);
                c.latency(&id, text.trim().parse().ok(), text, at, diag);
            }
            if let Some(docs) = csvio::id_list(record, docs_col, &id, line, display, diag) {
                c.accept(qi, &id, &docs, &|_| line, diag);
            }
        },
    );
    if rows == 0 && diag.problems.is_empty() {
        diag.problem(Location::file(display), ProblemKind::HeaderOnly);
    }
    if versions.len() > 1 {
        diag.warn(format!(
            "{display}: the index_version column holds {} different versions; none is shown",
            seen_versions.len()
        ));
    }
    (versions.len() == 1).then(|| versions.remove(0))
}

/// A CSV run's header, with the positions of its `id` and `retrieved_doc_ids`.
fn run_header<R: Read>(
    reader: &mut csv::Reader<R>,
    display: &str,
    extra_ok: &[&str],
    diag: &mut Diagnostics,
) -> Option<(Header, usize, usize)> {
    let mut known = vec!["id", "retrieved_doc_ids", "latency_ms"];
    known.extend_from_slice(extra_ok);
    let header = Header::read(reader, display, &known, &["id", "retrieved_doc_ids"], diag)?;
    let required = "`id` and `retrieved_doc_ids`";
    let (Some(id_col), Some(docs_col)) = (
        header.require("id", required, display, diag),
        header.require("retrieved_doc_ids", required, display, diag),
    ) else {
        return None;
    };
    Some((header, id_col, docs_col))
}

/// One `index_version` cell of the one-file layout: each distinct value is checked
/// once, at its first row, and the first two are kept (one means the run's version).
fn note_version(
    v: &str,
    at: Location,
    seen: &mut FxHashSet<String>,
    versions: &mut Vec<String>,
    diag: &mut Diagnostics,
) {
    let v = v.trim();
    if v.is_empty() || !seen.insert(v.to_string()) {
        return;
    }
    if let Err(reason) = crate::model::IndexVersion::parse(v) {
        diag.problem(at, ProblemKind::BadIndexVersion { reason });
    }
    if versions.len() < 2 {
        versions.push(v.to_string());
    }
}
