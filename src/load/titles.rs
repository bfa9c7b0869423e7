//! `--titles FILE`: doc titles (CSV `doc_id,title`) for the HTML report only
//! (docs/contract.md §9.10). Read through the shared CSV setup; a title with a
//! control character, or a doc named twice, is a problem at its line.

use std::collections::BTreeMap;
use std::path::Path;

use crate::load::csvio::{self, Header};
use crate::validate::{Diagnostics, Location, ProblemKind, has_control};

/// The titles file's columns.
pub const COLUMNS: [&str; 2] = ["doc_id", "title"];

/// Read the titles: doc id -> title.
pub fn read(path: &Path, diag: &mut Diagnostics) -> BTreeMap<String, String> {
    let display = path.display().to_string();
    let mut out = BTreeMap::new();
    let Some(bytes) = crate::load::fs::read_file(path, "titles", &display, diag) else {
        return out;
    };
    let Some(mut reader) = csvio::open(&bytes, &display, diag) else {
        return out;
    };
    let Some(header) = Header::read(&mut reader, &display, &COLUMNS, &COLUMNS, diag) else {
        return out;
    };
    let required = "`doc_id` and `title`";
    let (Some(doc), Some(title)) = (
        header.require("doc_id", required, &display, diag),
        header.require("title", required, &display, diag),
    ) else {
        return out;
    };
    let mut first: BTreeMap<String, u64> = BTreeMap::new();
    csvio::for_each_row(
        &mut reader,
        &display,
        header.width,
        &[doc],
        diag,
        |record, line, diag| {
            let at = Location::line(&display, line);
            let Some(id) = csvio::cell_id(record, doc, "doc", "", line, &display, diag) else {
                return;
            };
            let text = csvio::cell_str(record, title).unwrap_or_default();
            if has_control(text) {
                let column = "title".to_string();
                diag.problem(at, ProblemKind::AllowControl { column });
                return;
            }
            if let Some(earlier) = first.insert(id.to_string(), line) {
                diag.problem(
                    at,
                    ProblemKind::TitleTwice {
                        doc: id.to_string(),
                        first: earlier,
                    },
                );
                return;
            }
            out.insert(id.to_string(), text.to_string());
        },
    );
    out
}
