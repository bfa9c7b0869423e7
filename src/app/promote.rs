//! `promote`: make the candidate the next baseline, the one command that writes over
//! inputs (and only the baseline's). The gate runs first, its report on stdout; then
//! the candidate's manifest and the results it names are copied beside the baseline
//! manifest, under names derived from the baseline's, as one atomic set.

use std::path::{Path, PathBuf};

use crate::exit;
use crate::load::{self, manifest};
use crate::model::RunMeta;
use crate::output::{self, same_path};
use crate::settings;
use crate::validate::{Diagnostics, InvalidInput};

pub fn run(s: settings::Promote) -> anyhow::Result<u8> {
    let [baseline, candidate] = s.compare.runs.clone();
    let mut diag = Diagnostics::default();
    let bm = load::run_meta(&baseline, &mut diag);
    let cm = load::run_meta(&candidate, &mut diag);
    let doc = manifest::read(&candidate, &mut diag);
    diag.check()?;
    let (bm, cm, doc) = (diag.require(bm)?, diag.require(cm)?, diag.require(doc)?);
    if same_path(&bm.results, &cm.results) {
        return Err(InvalidInput::usage(format!(
            "{} and {} already read the same results file {}: nothing to promote (export a new candidate first)",
            baseline.display(),
            candidate.display(),
            cm.results.display()
        ))
        .into());
    }
    let copies = copy_paths(&baseline, &cm)?;

    let code = super::compare::run(s.compare)?;
    if code != exit::SUCCESS {
        if !s.force {
            crate::text::eprintln(&format!(
                "promote: the gate did not pass (exit {code}); nothing promoted (--force promotes anyway)"
            ));
            return Ok(code);
        }
        crate::text::eprintln(&format!(
            "promote: the gate did not pass (exit {code}); promoting anyway (--force)"
        ));
    }

    let text = rewrite_results(doc.doc.into_mut(), &copies);
    let sources = sources(&cm);
    let mut targets: Vec<&Path> = copies.iter().map(PathBuf::as_path).collect();
    targets.push(baseline.as_path());
    // The baseline's files keep their own modes when they are replaced.
    let modes: Vec<Option<std::fs::Permissions>> = targets
        .iter()
        .map(|p| std::fs::metadata(p).ok().map(|m| m.permissions()))
        .collect();
    output::write_files(&targets, |i, out| match sources.get(i) {
        Some(source) => {
            let mut file = std::fs::File::open(source)?;
            std::io::copy(&mut file, out).map(|_| ())
        }
        None => out.write_all(text.as_bytes()),
    })?;
    for (path, mode) in targets.iter().zip(modes) {
        if let Some(mode) = mode {
            std::fs::set_permissions(path, mode)?;
        }
    }
    output::stdout(&promoted(&baseline, &candidate, &bm, &copies, &sources))?;
    Ok(exit::SUCCESS)
}

/// Every results file of a run, first repeat first (docs/contract.md §17.1).
fn sources(meta: &RunMeta) -> Vec<PathBuf> {
    std::iter::once(meta.results.clone())
        .chain(meta.more_results.iter().map(|(_, p)| p.clone()))
        .collect()
}

/// The copies' paths, one per candidate repeat: the first as the baseline manifest's
/// stem, repeat i (from 2 on) as `STEM-i`, each with its source's extension.
fn copy_paths(baseline: &Path, cm: &RunMeta) -> Result<Vec<PathBuf>, InvalidInput> {
    sources(cm)
        .iter()
        .enumerate()
        .map(|(i, source)| results_path(baseline, source, i))
        .collect()
}

/// The candidate's manifest (comments and layout kept by toml_edit) with `results`
/// naming the copies beside it: a string for one, an array for repeats; the key's
/// own decoration stays.
fn rewrite_results(mut doc: toml_edit::DocumentMut, copies: &[PathBuf]) -> String {
    let names: Vec<String> = copies
        .iter()
        .map(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    if let Some(value) = doc.get_mut("results").and_then(|i| i.as_value_mut()) {
        let decor = value.decor().clone();
        *value = match names.as_slice() {
            [one] => one.as_str().into(),
            _ => toml_edit::Value::Array(names.iter().map(String::as_str).collect()),
        };
        *value.decor_mut() = decor;
    }
    doc.to_string()
}

/// What promote did, what it left in place and what to commit.
fn promoted(
    baseline: &Path,
    candidate: &Path,
    bm: &RunMeta,
    copies: &[PathBuf],
    sources: &[PathBuf],
) -> String {
    let list = |paths: &[PathBuf]| -> String {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        shown.join(", ")
    };
    let mut out = format!(
        "\npromoted {} to {}: it now reads {} ({} of {})\n",
        candidate.display(),
        baseline.display(),
        list(copies),
        if copies.len() == 1 {
            "a copy"
        } else {
            "copies"
        },
        list(sources)
    );
    for old in self::sources(bm) {
        let reused = copies.iter().chain(sources).any(|p| same_path(&old, p));
        if !reused {
            out.push_str(&format!(
                "note: {} is no longer named by {}; left in place\n",
                old.display(),
                baseline.display()
            ));
        }
    }
    out.push_str(&format!(
        "next: commit {} and {}; export the next candidate over {}\n",
        baseline.display(),
        list(copies),
        candidate.display()
    ));
    out
}

/// The copy's path: beside the baseline manifest, the manifest's stem (with `-N` for
/// the repeat of index N - 1 after the first) and the candidate results' extension
/// (which decides the format when none is declared).
fn results_path(
    baseline: &Path,
    candidate_results: &Path,
    repeat: usize,
) -> Result<PathBuf, InvalidInput> {
    let mut stem = baseline
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "baseline".to_string());
    if repeat > 0 {
        stem = format!("{stem}-{}", repeat + 1);
    }
    let name = match candidate_results.extension() {
        Some(ext) => format!("{stem}.{}", ext.to_string_lossy()),
        None => format!("{stem}.results"),
    };
    let path = match baseline.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(name),
        _ => PathBuf::from(name),
    };
    if same_path(&path, baseline) {
        return Err(InvalidInput::usage(format!(
            "the copy of {} would be named {}, the baseline manifest itself; rename the candidate's results",
            candidate_results.display(),
            path.display()
        )));
    }
    Ok(path)
}
