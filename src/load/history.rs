//! `history.jsonl` beside the baseline manifest (docs/contract.md §9.11): read line by
//! line; a line that does not parse or validate is a warning naming its line, never
//! fatal, and is skipped.

use std::path::{Path, PathBuf};

use crate::model::history::HistoryLine;
use crate::validate::Diagnostics;

/// The history file's name, beside the baseline manifest.
pub const FILE_NAME: &str = "history.jsonl";

/// `history.jsonl` in the baseline manifest's folder.
pub fn beside(baseline: &Path) -> PathBuf {
    match baseline.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(FILE_NAME),
        _ => PathBuf::from(FILE_NAME),
    }
}

/// Every line that parses and validates, in file order. A file that cannot be read
/// (not a regular file, too long a line) is a problem in `diag`; the caller decides
/// whether that is fatal (`history`) or a warning (`compare`).
pub fn read(path: &Path, diag: &mut Diagnostics) -> Vec<HistoryLine> {
    let display = path.display().to_string();
    let Some(bytes) = crate::load::fs::read_file(path, "history", &display, diag) else {
        return Vec::new();
    };
    parse(&bytes, &display, &mut diag.warnings)
}

/// The lines of `bytes`; each bad one adds a warning `FILE:LINE: …; skipped`.
pub fn parse(bytes: &[u8], display: &str, warnings: &mut Vec<String>) -> Vec<HistoryLine> {
    let shown = crate::text::shown(display);
    let mut lines = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // serde's message may quote a value: only its category is shown.
        let parsed = serde_json::from_slice::<HistoryLine>(raw).map_err(|e| match e.classify() {
            serde_json::error::Category::Data => {
                "not a history line (a field missing, unknown or of the wrong type)".to_string()
            }
            _ => "not a history line (not one JSON object)".to_string(),
        });
        match parsed.and_then(|line| match line.problem() {
            Some(p) => Err(format!("not a usable history line ({p})")),
            None => Ok(line),
        }) {
            Ok(line) => lines.push(line),
            Err(why) => warnings.push(format!("{shown}:{}: {why}; skipped", i + 1)),
        }
    }
    lines
}
