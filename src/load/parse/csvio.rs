//! The one CSV reader setup (RFC 4180, BOM, CRLF, unequal rows), header checks and
//! cell access with the path and line in every problem.

use std::io::Read;

use crate::load::lines::{Guard, GuardError};
use crate::validate::{Diagnostics, Location, ProblemKind, id_problem};

/// A CSV reader over `input` with ragdiff's settings.
pub fn reader<R: Read>(input: R) -> csv::Reader<R> {
    reader_with(input, b',')
}

/// [`reader`] with another delimiter (a tab for TSV).
pub fn reader_with<R: Read>(input: R, delimiter: u8) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(input)
}

/// A reader over in-memory bytes (through a CSV [`Guard`]: an unterminated quote
/// is one problem); an empty file is a problem.
pub fn open<'a>(
    bytes: &'a [u8],
    display: &str,
    diag: &mut Diagnostics,
) -> Option<csv::Reader<Guard<&'a [u8]>>> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        diag.problem(
            Location::file(display),
            ProblemKind::EmptyFile {
                expected: "a CSV header and rows",
            },
        );
        return None;
    }
    Some(reader(Guard::csv(bytes)))
}

/// The header row: column names, trimmed, with a leading BOM removed.
pub struct Header {
    pub names: Vec<String>,
    pub width: usize,
}

impl Header {
    /// Read the header; columns not in `known` are ignored with a warning (when the
    /// `required` ones are there).
    pub fn read<R: Read>(
        reader: &mut csv::Reader<R>,
        display: &str,
        known: &[&str],
        required: &[&str],
        diag: &mut Diagnostics,
    ) -> Option<Header> {
        let mut record = csv::ByteRecord::new();
        match reader.read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => {
                diag.problem(
                    Location::file(display),
                    ProblemKind::EmptyFile {
                        expected: "a CSV header and rows",
                    },
                );
                return None;
            }
            Err(e) => {
                read_problem(&e, display, diag);
                return None;
            }
        }
        let mut names = Vec::with_capacity(record.len());
        for (i, cell) in record.iter().enumerate() {
            let cell = if i == 0 {
                cell.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(cell)
            } else {
                cell
            };
            match std::str::from_utf8(cell) {
                Ok(s) => names.push(s.trim().to_string()),
                Err(_) => {
                    diag.problem(Location::line(display, 1), ProblemKind::NotUtf8);
                    return None;
                }
            }
        }
        if names.iter().all(|n| n.is_empty()) {
            diag.problem(
                Location::file(display),
                ProblemKind::EmptyFile {
                    expected: "a CSV header and rows",
                },
            );
            return None;
        }
        if duplicate_columns(&names, known, display, diag) {
            return None;
        }
        let extra: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| !known.contains(n))
            .collect();
        // Without the required columns the first row is likely data, not a header:
        // its cells are not repeated in a warning (they may be question text).
        let has_required = required.iter().all(|r| names.iter().any(|n| n == r));
        if !extra.is_empty() && has_required {
            // A header of thousands of names makes a warning of ten and a count.
            use crate::text::NAMED;
            diag.warn(format!(
                "{display}:1: ignoring extra column{} {}{}",
                if extra.len() == 1 { "" } else { "s" },
                extra
                    .iter()
                    .take(NAMED)
                    .map(|n| format!("`{}`", crate::text::safe_id(n)))
                    .collect::<Vec<_>>()
                    .join(", "),
                crate::text::and_more(extra.len(), NAMED)
            ));
        }
        Some(Header {
            width: names.len(),
            names,
        })
    }

    /// The index of a required column, or a problem.
    pub fn require(
        &self,
        column: &'static str,
        required: &'static str,
        display: &str,
        diag: &mut Diagnostics,
    ) -> Option<usize> {
        let found = self.position(column);
        if found.is_none() {
            diag.problem(
                Location::line(display, 1),
                ProblemKind::MissingColumn { column, required },
            );
        }
        found
    }

    pub fn position(&self, column: &str) -> Option<usize> {
        self.names.iter().position(|n| n == column)
    }
}

/// A column ragdiff reads, named twice: the reader would take the first silently
/// while a reviewer may look at the second (docs/contract.md §12). Each is a problem;
/// true when there is one.
fn duplicate_columns(
    names: &[String],
    known: &[&str],
    display: &str,
    diag: &mut Diagnostics,
) -> bool {
    let mut duplicate = false;
    for (i, name) in names.iter().enumerate() {
        if known.contains(&name.as_str()) && names[..i].contains(name) {
            diag.problem(
                Location::line(display, 1),
                ProblemKind::DuplicateColumn {
                    column: crate::text::safe_id(name).to_string(),
                },
            );
            duplicate = true;
        }
    }
    duplicate
}

/// Record a read error: the guard's problem at its line, or malformed CSV.
fn read_problem(e: &csv::Error, display: &str, diag: &mut Diagnostics) {
    if let csv::ErrorKind::Io(io) = e.kind()
        && let Some(g) = GuardError::of(io)
    {
        let (line, kind) = g.problem();
        diag.problem(Location::at(display, line), kind);
        return;
    }
    let line = e.position().map(|p| p.line()).unwrap_or(1);
    diag.problem(
        Location::line(display, line),
        ProblemKind::MalformedCsv {
            reason: csv_reason(e),
        },
    );
}

fn csv_reason(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Io(io) => io.to_string(),
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".to_string(),
        _ => "cannot parse the row (check its quoting)".to_string(),
    }
}

/// Call `f` for each data row with its line number. Rows with another number of
/// cells than the header are reported and skipped. The columns in `needed` must be
/// UTF-8 (a problem); bad bytes in another column, which ragdiff ignores, are
/// counted in one warning. Stops once the file has as many problems as are kept.
/// Returns whether every row was read (false after a read error or such a stop).
pub fn for_each_row<R: Read>(
    reader: &mut csv::Reader<R>,
    display: &str,
    width: usize,
    needed: &[usize],
    diag: &mut Diagnostics,
    mut f: impl FnMut(&csv::ByteRecord, u64, &mut Diagnostics),
) -> bool {
    let mut record = csv::ByteRecord::new();
    let mut lossy = 0u64;
    let complete = loop {
        match reader.read_byte_record(&mut record) {
            Ok(false) => break true,
            Ok(true) => {}
            Err(e) => {
                read_problem(&e, display, diag);
                if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                    break false;
                }
                continue;
            }
        }
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        if diag.stop_if_full(display, line) {
            break false;
        }
        if record.len() == 1 && record.get(0) == Some(b"") {
            continue; // a blank line
        }
        if record.len() != width {
            diag.problem(
                Location::line(display, line),
                ProblemKind::MalformedCsv {
                    reason: format!("the row has {} cells, the header has {width}", record.len()),
                },
            );
            continue;
        }
        // The row is handed on even when a needed cell is not UTF-8, so it is not
        // also reported missing.
        let bad = |i: usize| std::str::from_utf8(record.get(i).unwrap_or_default()).is_err();
        if needed.iter().any(|&i| bad(i)) {
            diag.problem(Location::line(display, line), ProblemKind::NotUtf8);
        } else if (0..record.len()).any(bad) {
            lossy += 1;
        }
        f(&record, line, diag);
    };
    if lossy > 0 {
        diag.warn(format!(
            "{display}: {lossy} row{} bytes that are not UTF-8 in columns ragdiff ignores; the rows are read, but save the file as UTF-8",
            if lossy == 1 { " has" } else { "s have" }
        ));
    }
    complete
}

/// A cell as UTF-8 text; `None` when it is not (already reported by
/// [`for_each_row`]).
pub fn cell_str(record: &csv::ByteRecord, col: usize) -> Option<&str> {
    std::str::from_utf8(record.get(col).unwrap_or_default()).ok()
}

/// A cell holding one id: trimmed and checked.
pub fn cell_id(
    record: &csv::ByteRecord,
    col: usize,
    what: &'static str,
    context: &str,
    line: u64,
    display: &str,
    diag: &mut Diagnostics,
) -> Option<String> {
    let id = cell_str(record, col)?.trim();
    match id_problem(id) {
        Some(reason) => {
            diag.problem(
                Location::line(display, line),
                ProblemKind::InvalidId {
                    what,
                    context: context.to_string(),
                    reason,
                },
            );
            None
        }
        None => Some(id.to_string()),
    }
}

/// A cell holding a `;`-separated id list (empty: no ids), each id trimmed and
/// checked; `None` when any is invalid (each reported).
pub fn id_list<'r>(
    record: &'r csv::ByteRecord,
    col: usize,
    query: &str,
    line: u64,
    display: &str,
    diag: &mut Diagnostics,
) -> Option<Vec<&'r str>> {
    let cell = cell_str(record, col)?;
    let mut ids = Vec::new();
    let mut ok = true;
    if !cell.trim().is_empty() {
        for id in cell.split(';').map(str::trim) {
            if let Some(reason) = id_problem(id) {
                diag.problem(
                    Location::line(display, line),
                    ProblemKind::InvalidId {
                        what: "doc",
                        context: format!(" in query {query}"),
                        reason,
                    },
                );
                ok = false;
            }
            ids.push(id);
        }
    }
    ok.then_some(ids)
}
