//! The gold manifest's queries file (`queries = "…"`, docs/contract.md §4.8): the
//! questions `record` asks, checked against `queries_sha256` as the data is
//! against `sha256`. Its layouts are read by `record::questions`.

use std::path::{Path, PathBuf};

use crate::validate::{Diagnostics, ProblemKind};

/// The queries file a gold manifest names, read and checked.
pub struct QueriesFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// The queries file `manifest` names, if it names one; a missing or changed file is
/// a problem (None then too).
pub fn named(manifest: &Path, diag: &mut Diagnostics) -> Option<QueriesFile> {
    named_checked(manifest, true, diag)
}

/// [`named`]; `check` false skips the `queries_sha256` check (`freeze` re-records it).
pub fn named_checked(manifest: &Path, check: bool, diag: &mut Diagnostics) -> Option<QueriesFile> {
    let m = crate::load::manifest::read(manifest, diag)?;
    let table = m.doc.as_table();
    let value = table.get("queries")?;
    let loc = m.key_location(table, "queries");
    let Some(rel) = value.as_str() else {
        diag.problem(
            loc,
            ProblemKind::WrongType {
                key: "queries".to_string(),
                expected: "a string",
            },
        );
        return None;
    };
    let path = manifest.parent().unwrap_or(Path::new("")).join(rel);
    let display = path.display().to_string();
    let bytes = crate::load::fs::read_file(&path, "queries file", &display, diag)?;
    if let Some(recorded) = table.get("queries_sha256").and_then(|v| v.as_str())
        && check
    {
        let actual = crate::load::gold::sha256_hex(&bytes);
        if !actual.eq_ignore_ascii_case(recorded) {
            diag.problem(
                m.key_location(table, "queries_sha256"),
                ProblemKind::QueriesChanged {
                    recorded: recorded.to_string(),
                    actual,
                },
            );
            return None;
        }
    }
    Some(QueriesFile { path, bytes })
}
