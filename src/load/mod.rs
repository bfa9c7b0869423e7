//! Loading inputs: manifests or bare data files, the gold set, and runs (streamed).
//! Paths resolve here; nothing outside `load` touches the file system for input.

pub mod allow;
mod both;
pub mod changed;
pub mod docmap;
pub mod fs;
pub mod gold;
pub mod history;
pub mod latency;
pub mod manifest;
pub mod own_files;
pub mod parse;
pub mod policy;
pub mod policy_diff;
pub mod policy_record;
pub mod queries;
pub mod repeats;
pub mod run;
pub mod tags;
pub mod titles;

// The tokenizers by their older paths, so `crate::load::lines` and the like still name them.
pub use both::{BothRuns, read_both, read_lists, read_wanted, returned_by};
pub use parse::{csvio, json, jsonl, lines, long};

use std::path::{Path, PathBuf};

use crate::model::{DataFormat, GoldMeta, GoldSet, ObservedRun, RunMeta};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Default locations, relative to the working directory (docs/contract.md §2.7).
pub const GOLD_DIR: &str = "gold";
pub const DEFAULT_BASELINE: &str = "runs/baseline.toml";
pub const DEFAULT_CANDIDATE: &str = "runs/candidate.toml";

/// Columns of the seeds' one-file layout beside the gold's and the run's own.
pub const ONE_FILE_GOLD_EXTRA: &[&str] = &["retrieved_doc_ids", "index_version"];
pub const ONE_FILE_RUN_EXTRA: &[&str] = &[
    "question",
    "expected_doc_ids",
    gold::NON_RELEVANT,
    "index_version",
    "tags",
];

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
    if let Err(kind) = fs::check_path(path, "gold data", &display) {
        diag.problem(Location::file(&display), kind);
        return None;
    }
    Some(GoldMeta::bare(path, DataFormat::from_extension(path)))
}

/// The run metadata from a manifest, or from a bare results file (then the depth is
/// the longest list, measured while reading).
/// `--columns` (docs/contract.md §2.16) for a CSV or TSV run whose manifest names
/// no columns of its own: it is then read as a long table with those names.
pub fn with_columns(meta: &mut RunMeta, columns: Option<&crate::model::LongNames>) {
    let csv_or_tsv = matches!(meta.format, DataFormat::Csv | DataFormat::Trec);
    if meta.long.is_none() && csv_or_tsv {
        meta.long = columns.cloned();
    }
}

pub fn run_meta(path: &Path, diag: &mut Diagnostics) -> Option<RunMeta> {
    if manifest::is_manifest(path) {
        let doc = manifest::read(path, diag)?;
        return manifest::run(&doc, diag);
    }
    let display = path.display().to_string();
    if let Err(kind) = fs::check_path(path, "run results", &display) {
        diag.problem(Location::file(&display), kind);
        return None;
    }
    Some(RunMeta::bare(path, DataFormat::from_extension(path)))
}

/// Whether `path` is a CSV in the seeds' one-file layout (both id-list columns).
pub fn is_one_file(path: &Path) -> bool {
    if manifest::is_manifest(path) || DataFormat::from_extension(path) != DataFormat::Csv {
        return false;
    }
    // Only a regular file is opened: opening a FIFO would block.
    let Ok(file) = fs::open_regular(path, "run results", "") else {
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

/// The gold path given, or the default one.
pub fn gold_or_default(arg: Option<PathBuf>, diag: &mut Diagnostics) -> Option<PathBuf> {
    arg.or_else(|| default_gold(diag))
}

/// Load the gold set (manifest or bare file), checking its sha256 and, under
/// `require_frozen`, that it is frozen.
pub fn load_gold(
    path: &Path,
    require_frozen: bool,
    extra_ok: &[&str],
    diag: &mut Diagnostics,
) -> Option<GoldSet> {
    let meta = gold_meta(path, diag)?;
    if !meta.frozen() {
        if require_frozen {
            diag.problem(
                Location::file(path.display().to_string()),
                ProblemKind::NotFrozen {
                    path: path.display().to_string(),
                },
            );
            return None;
        }
        diag.warn(if meta.manifest.is_some() {
            format!(
                "gold {} is not frozen: run `ragdiff freeze {}` so its labels cannot change unseen",
                path.display(),
                path.display()
            )
        } else {
            format!(
                "gold {} is a bare data file, so it is not frozen: give it a manifest and run `ragdiff freeze` on it",
                path.display()
            )
        });
    }
    let display = meta.data.display().to_string();
    let mut gold = gold::load(meta, extra_ok, diag)?;
    if !tags::from_side_file(&mut gold, diag) {
        return None;
    }
    // docs/contract.md §4.8: a queries file is checked like the data.
    let before = diag.problems.len();
    if let Some(m) = &gold.meta.manifest {
        queries::named(m, diag);
    }
    if diag.problems.len() > before {
        return None;
    }
    if gold.queries.iter().all(|q| q.is_no_answer()) {
        diag.problem(
            Location::file(display),
            ProblemKind::NothingToEvaluate {
                min_grade: gold.meta.min_grade,
            },
        );
        return None;
    }
    Some(gold)
}

/// Read runs in parallel (every repeat of each, docs/contract.md §6.5), with one
/// progress bar for all.
pub fn read_runs(
    metas: Vec<RunMeta>,
    gold: &GoldSet,
    extra_ok: &[&str],
    diag: &mut Diagnostics,
) -> Vec<Option<ObservedRun>> {
    read_runs_keeping(metas, gold, extra_ok, run::Keep::NONE, diag)
}

/// [`read_runs`], each run's first repeat keeping what `keep` names: unjudged docs
/// by id (docs/contract.md §6.3) and its lists as doc hashes (§6.5).
pub fn read_runs_keeping(
    metas: Vec<RunMeta>,
    gold: &GoldSet,
    extra_ok: &[&str],
    keep: run::Keep,
    diag: &mut Diagnostics,
) -> Vec<Option<ObservedRun>> {
    repeats::read_runs_with(metas, gold, extra_ok, keep, diag)
}

/// Whether two results files hold the same results: one file (same canonical path, or
/// the same inode) or files with identical bytes. Files of different sizes are never
/// read; files of equal size are read side by side only until the first difference,
/// so different runs cost a few kilobytes and identical ones one more read.
pub fn same_results(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    if let (Ok(x), Ok(y)) = (a.canonicalize(), b.canonicalize())
        && x == y
    {
        return true;
    }
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    if (ma.dev(), ma.ino()) == (mb.dev(), mb.ino()) {
        return true;
    }
    if ma.len() != mb.len() {
        return false;
    }
    let (Ok(mut fa), Ok(mut fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = match read_full(&mut fa, &mut ba) {
            Ok(n) => n,
            Err(_) => return false,
        };
        match read_full(&mut fb, &mut bb[..n.max(1)]) {
            Ok(m) if m == n && ba[..n] == bb[..n] => {}
            _ => return false,
        }
        if n == 0 {
            return true;
        }
    }

    /// Read until `buf` is full or the file ends.
    fn read_full(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut filled = 0;
        while filled < buf.len() {
            match f.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(filled)
    }
}

#[cfg(test)]
mod fast_path_tests;
