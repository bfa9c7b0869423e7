//! The allow-list of accepted new failures: `--allow-failed` ids and the
//! `--allow-failed-file` CSV (`id,reason`), each id checked against the gold.

use std::path::Path;

use crate::load::csvio::{self, Header};
use crate::model::GoldSet;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Read `--allow-failed-file` (CSV `id,reason`), checking each id is in the gold.
pub fn read_allow_file(
    path: &Path,
    gold: &GoldSet,
    diag: &mut Diagnostics,
) -> Vec<(String, String)> {
    let display = path.display().to_string();
    let mut out = Vec::new();
    let Some(bytes) = crate::load::fs::read_file(path, "allow-list", &display, diag) else {
        return out;
    };
    let Some(mut reader) = csvio::open(&bytes, &display, diag) else {
        return out;
    };
    let Some(header) = Header::read(
        &mut reader,
        &display,
        &["id", "reason"],
        &["id", "reason"],
        diag,
    ) else {
        return out;
    };
    let required = "`id` and `reason`";
    let (Some(id_col), Some(reason_col)) = (
        header.require("id", required, &display, diag),
        header.require("reason", required, &display, diag),
    ) else {
        return out;
    };
    csvio::for_each_row(
        &mut reader,
        &display,
        header.width,
        &[id_col, reason_col],
        diag,
        |record, line, diag| {
            let Some(id) = csvio::cell_id(record, id_col, "query", "", line, &display, diag) else {
                return;
            };
            let reason = csvio::cell_str(record, reason_col)
                .unwrap_or_default()
                .trim()
                .to_string();
            if !gold.contains(&id) {
                diag.problem(
                    Location::line(&display, line),
                    ProblemKind::AllowedNotInGold { query: id },
                );
                return;
            }
            out.push((id, reason));
        },
    );
    out
}

/// Check `--allow-failed` ids against the gold.
pub fn check_allowed_ids(
    ids: &[String],
    gold: &GoldSet,
    diag: &mut Diagnostics,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for id in ids {
        if gold.contains(id) {
            out.push((id.clone(), "--allow-failed".to_string()));
        } else {
            diag.problem(
                Location::file("--allow-failed"),
                ProblemKind::AllowedNotInGold { query: id.clone() },
            );
        }
    }
    out
}
