//! The allow-list of accepted new failures: `--allow-failed` ids and the
//! `--allow-failed-file` CSV (`id,reason,index_version,accepted_at`; docs/contract.md
//! §8.5), each entry checked here; which entry applies to a comparison is the gate's
//! decision (`gate::decide`).

use std::path::Path;

use rustc_hash::FxHashMap;

use crate::load::csvio::{self, Header};
use crate::model::{AllowEntry, AllowSource, GoldSet};
use crate::validate::{Diagnostics, Location, ProblemKind, has_control};

/// The allow-list's columns, in the order `ragdiff accept` writes them.
pub const COLUMNS: [&str; 4] = ["id", "reason", "index_version", "accepted_at"];

/// The header `ragdiff init` and `ragdiff accept` write.
pub const HEADER: &str = "id,reason,index_version,accepted_at";

/// Read `--allow-failed-file`: every entry checked (its id in the gold, a reason,
/// no control character, a semantic `index_version`, a date `accepted_at`, each
/// (id, index_version) once).
pub fn read_allow_file(path: &Path, gold: &GoldSet, diag: &mut Diagnostics) -> Vec<AllowEntry> {
    let display = path.display().to_string();
    let Some(bytes) = crate::load::fs::read_file(path, "allow-list", &display, diag) else {
        return Vec::new();
    };
    parse(&bytes, &display, Some(gold), diag)
}

/// Parse allow-list bytes; `gold`, when given, checks each id is in it.
pub fn parse(
    bytes: &[u8],
    display: &str,
    gold: Option<&GoldSet>,
    diag: &mut Diagnostics,
) -> Vec<AllowEntry> {
    let mut out = Vec::new();
    let Some(mut reader) = csvio::open(bytes, display, diag) else {
        return out;
    };
    let Some(header) = Header::read(&mut reader, display, &COLUMNS, &["id", "reason"], diag) else {
        return out;
    };
    let required = "`id` and `reason`";
    let (Some(id_col), Some(reason_col)) = (
        header.require("id", required, display, diag),
        header.require("reason", required, display, diag),
    ) else {
        return out;
    };
    let cols = Columns {
        names: &header.names,
        id: id_col,
        reason: reason_col,
        version: header.position("index_version"),
        date: header.position("accepted_at"),
    };
    // (id, version) -> the line that first named it.
    let mut seen: Seen = FxHashMap::default();
    csvio::for_each_row(
        &mut reader,
        display,
        header.width,
        &[id_col, reason_col],
        diag,
        |record, line, diag| {
            if let Some(e) = entry(record, line, &cols, display, gold, &mut seen, diag) {
                out.push(e);
            }
        },
    );
    out
}

type Seen = FxHashMap<(String, Option<String>), u64>;

/// Where the allow-list's columns are.
struct Columns<'h> {
    names: &'h [String],
    id: usize,
    reason: usize,
    version: Option<usize>,
    date: Option<usize>,
}

/// One row checked: every problem recorded, the entry when it has none.
fn entry(
    record: &csv::ByteRecord,
    line: u64,
    cols: &Columns,
    display: &str,
    gold: Option<&GoldSet>,
    seen: &mut Seen,
    diag: &mut Diagnostics,
) -> Option<AllowEntry> {
    let at = Location::line(display, line);
    // Every cell: a control character would reach the reports.
    let mut clean = true;
    for (col, name) in cols.names.iter().enumerate() {
        if csvio::cell_str(record, col).is_some_and(has_control) {
            let column = name.clone();
            diag.problem(at.clone(), ProblemKind::AllowControl { column });
            clean = false;
        }
    }
    if !clean {
        return None;
    }
    let id = csvio::cell_id(record, cols.id, "query", "", line, display, diag)?;
    let cell = |col: Option<usize>| {
        col.and_then(|c| csvio::cell_str(record, c))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let (reason, index_version, accepted_at) =
        (cell(Some(cols.reason)), cell(cols.version), cell(cols.date));
    let mut problems = Vec::new();
    if reason.is_none() {
        problems.push(ProblemKind::AllowNoReason { query: id.clone() });
    }
    if let Some(v) = &index_version
        && let Err(reason) = crate::model::IndexVersion::parse(v)
    {
        problems.push(ProblemKind::BadIndexVersion { reason });
    }
    if let Some(d) = &accepted_at
        && !crate::load::manifest::is_date(d)
    {
        problems.push(ProblemKind::AllowBadDate { value: d.clone() });
    }
    if gold.is_some_and(|g| !g.contains(&id)) {
        problems.push(ProblemKind::AllowedNotInGold { query: id.clone() });
    }
    match seen.entry((id.clone(), index_version.clone())) {
        std::collections::hash_map::Entry::Occupied(first) => {
            problems.push(ProblemKind::AllowDuplicate {
                query: id.clone(),
                version: index_version
                    .clone()
                    .unwrap_or_else(|| "(any version)".to_string()),
                first: *first.get(),
            });
        }
        std::collections::hash_map::Entry::Vacant(v) => {
            v.insert(line);
        }
    }
    let ok = problems.is_empty();
    for kind in problems {
        diag.problem(at.clone(), kind);
    }
    ok.then(|| AllowEntry {
        id,
        reason: reason.unwrap_or_default(),
        index_version,
        accepted_at,
        source: AllowSource::File { line },
    })
}

/// Check `--allow-failed` ids against the gold: each applies to any version.
pub fn check_allowed_ids(
    ids: &[String],
    gold: &GoldSet,
    diag: &mut Diagnostics,
) -> Vec<AllowEntry> {
    let mut out = Vec::new();
    for id in ids {
        if gold.contains(id) {
            out.push(AllowEntry {
                id: id.clone(),
                reason: "--allow-failed".to_string(),
                index_version: None,
                accepted_at: None,
                source: AllowSource::Flag,
            });
        } else {
            diag.problem(
                Location::file("--allow-failed"),
                ProblemKind::AllowedNotInGold { query: id.clone() },
            );
        }
    }
    out
}

/// One allow-list line (RFC 4180: a cell holding a comma, a quote or white space at
/// either end is quoted, quotes doubled), without its line end.
pub fn line(cells: &[&str]) -> String {
    cells.iter().map(|c| quote(c)).collect::<Vec<_>>().join(",")
}

fn quote(cell: &str) -> String {
    let needs = cell.contains([',', '"', '\n', '\r'])
        || cell.starts_with(char::is_whitespace)
        || cell.ends_with(char::is_whitespace);
    if needs {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Vec<AllowEntry>, Vec<String>) {
        let mut diag = Diagnostics::default();
        let out = parse(text.as_bytes(), "a.csv", None, &mut diag);
        let problems = diag.problems.iter().map(ToString::to_string).collect();
        (out, problems)
    }

    #[test]
    fn a_v1_list_applies_to_any_version() {
        let (out, problems) = read("id,reason\nQ-1,known\n");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(out[0].index_version, None);
        assert_eq!(out[0].reason, "known");
    }

    #[test]
    fn the_same_id_under_two_versions_is_two_entries() {
        let (out, problems) =
            read("id,reason,index_version,accepted_at\nQ-1,a,2.4.0,2026-12-01\nQ-1,b,2.5.0,\n");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].accepted_at.as_deref(), Some("2026-12-01"));
        assert_eq!(out[1].accepted_at, None);
    }

    #[test]
    fn every_rule_is_checked() {
        let long = "v".repeat(130);
        let (out, problems) = read(&format!(
            "id,reason,index_version,accepted_at\nQ-1,a,2.4.0,\nQ-1,b,2.4.0,\nQ-2, ,2.4.0,\nQ-3,c,{long},\nQ-4,d,2.4.0,01/12/2026\nQ-5,\"x\ny\",2.4.0,\n",
        ));
        assert_eq!(out.len(), 1);
        assert_eq!(
            problems,
            [
                "a.csv:3: query Q-1 is accepted twice for index_version 2.4.0 (first on line 2); keep one line",
                "a.csv:4: allow-listed query Q-2 has no reason; say why its failure is accepted",
                "a.csv:5: index_version has 130 characters, more than 128",
                "a.csv:6: accepted_at = \"01/12/2026\" is not a date like \"2026-09-19\"",
                "a.csv:7: the `reason` cell holds a control character (a newline, tab or similar); write it on one line",
            ]
        );
    }

    #[test]
    fn lines_quote_per_rfc_4180() {
        assert_eq!(
            line(&["Q-1", "a, \"b\"", "2.4.0", "2026-12-01"]),
            "Q-1,\"a, \"\"b\"\"\",2.4.0,2026-12-01"
        );
        assert_eq!(line(&["Q-1", "plain", "", ""]), "Q-1,plain,,");
        // What `line` writes, `parse` reads back.
        let text = format!(
            "{HEADER}\n{}\n",
            line(&["Q-1", " a, \"b\" ", "2.4.0", "2026-12-01"])
        );
        let (out, problems) = read(&text);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(out[0].reason, "a, \"b\"");
    }
}
