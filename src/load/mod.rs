//! Loading inputs: manifests or bare data files, the gold set, and runs (streamed).
//! Paths resolve here; nothing outside `load` touches the file system for input.

pub mod csvio;
pub mod gold;
pub mod lines;
pub mod manifest;
pub mod run;

use std::path::{Path, PathBuf};

use crate::model::{DataFormat, GoldMeta, RunMeta};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Default locations, relative to the working directory (SPEC section 3).
pub const GOLD_DIR: &str = "gold";
pub const DEFAULT_BASELINE: &str = "runs/baseline.toml";
pub const DEFAULT_CANDIDATE: &str = "runs/candidate.toml";

/// Columns of the seeds' one-file layout beside the gold's and the run's own.
pub const ONE_FILE_GOLD_EXTRA: &[&str] = &["retrieved_doc_ids", "index_version"];
pub const ONE_FILE_RUN_EXTRA: &[&str] = &["question", "expected_doc_ids", "index_version"];

/// The gold manifest to use: the one given, or the only `*.toml` in `gold/`.
pub fn default_gold(diag: &mut Diagnostics) -> Option<PathBuf> {
    let entries = match std::fs::read_dir(GOLD_DIR) {
        Ok(e) => e,
        Err(_) => {
            diag.problem(
                Location::file(GOLD_DIR),
                ProblemKind::Usage {
                    message:
                        "no gold/ folder here; pass --gold GOLD (a manifest or a qrels/CSV file)"
                            .into(),
                },
            );
            return None;
        }
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| manifest::is_manifest(p))
        .collect();
    found.sort();
    match found.len() {
        1 => found.pop(),
        n => {
            diag.problem(
                Location::file(GOLD_DIR),
                ProblemKind::Usage {
                    message: format!(
                        "gold/ holds {n} *.toml manifests; pass --gold to say which one"
                    ),
                },
            );
            None
        }
    }
}

/// The gold metadata from a manifest, or from a bare data file (then unfrozen, with
/// no version and no corpus).
pub fn gold_meta(path: &Path, diag: &mut Diagnostics) -> Option<GoldMeta> {
    if manifest::is_manifest(path) {
        let doc = manifest::read(path, diag)?;
        return manifest::gold(&doc, diag);
    }
    let display = path.display().to_string();
    if let Err(kind) = manifest::check_path(path, "gold data", &display) {
        diag.problem(Location::file(&display), kind);
        return None;
    }
    Some(GoldMeta {
        name: path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        version: None,
        frozen_at: None,
        sha256: None,
        frozen_version: None,
        corpus: None,
        data_display: display,
        data: path.to_path_buf(),
        format: DataFormat::from_extension(path),
        k: None,
        min_grade: 1,
        manifest: None,
    })
}

/// The run metadata from a manifest, or from a bare results file (then the depth is
/// the longest list, measured while reading).
pub fn run_meta(path: &Path, diag: &mut Diagnostics) -> Option<RunMeta> {
    if manifest::is_manifest(path) {
        let doc = manifest::read(path, diag)?;
        return manifest::run(&doc, diag);
    }
    let display = path.display().to_string();
    if let Err(kind) = manifest::check_path(path, "run results", &display) {
        diag.problem(Location::file(&display), kind);
        return None;
    }
    Some(RunMeta {
        index_version: None,
        corpus: None,
        depth: 0,
        depth_declared: false,
        filters: Default::default(),
        results_display: display,
        results: path.to_path_buf(),
        format: DataFormat::from_extension(path),
        manifest: None,
    })
}

/// Whether `path` is a CSV in the seeds' one-file layout (both id-list columns).
pub fn is_one_file(path: &Path) -> bool {
    if manifest::is_manifest(path) || DataFormat::from_extension(path) != DataFormat::Csv {
        return false;
    }
    // Only a regular file is opened: opening a FIFO would block.
    let Ok(file) = manifest::open_regular(path, "run results", "") else {
        return false;
    };
    let mut reader = csvio::reader(lines::Guard::csv(file));
    let mut record = csv::ByteRecord::new();
    if !matches!(reader.read_byte_record(&mut record), Ok(true)) {
        return false;
    }
    let names: Vec<&[u8]> = record.iter().map(|c| c.trim_ascii()).collect();
    let has = |name: &[u8]| {
        names
            .iter()
            .any(|n| *n == name || (n.starts_with(b"\xEF\xBB\xBF") && &n[3..] == name))
    };
    has(b"expected_doc_ids") && has(b"retrieved_doc_ids")
}
