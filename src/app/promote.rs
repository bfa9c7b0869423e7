//! `promote`: make the candidate the next baseline, the one command that writes over
//! inputs (and only the baseline's). The gate runs first, its report on stdout; then
//! the candidate's manifest and the results it names are copied beside the baseline
//! manifest, under names derived from the baseline's, as one atomic set.

use std::path::{Path, PathBuf};

use crate::exit;
use crate::load::{self, manifest};
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
    let results = results_path(&baseline, &cm.results)?;

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

    // The manifest is the candidate's (comments and layout kept by toml_edit), with
    // `results` naming the copy beside it; the key's own decoration stays.
    let mut doc = doc.doc.into_mut();
    let name = results
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(value) = doc.get_mut("results").and_then(|i| i.as_value_mut()) {
        let decor = value.decor().clone();
        *value = name.as_str().into();
        *value.decor_mut() = decor;
    }
    let text = doc.to_string();

    // The baseline's files keep their own modes when they are replaced.
    let modes: Vec<Option<std::fs::Permissions>> = [&results, &baseline]
        .iter()
        .map(|p| std::fs::metadata(p).ok().map(|m| m.permissions()))
        .collect();
    let source = cm.results.clone();
    output::write_files(&[results.as_path(), baseline.as_path()], |i, out| {
        if i == 0 {
            let mut file = std::fs::File::open(&source)?;
            std::io::copy(&mut file, out).map(|_| ())
        } else {
            out.write_all(text.as_bytes())
        }
    })?;
    for (path, mode) in [&results, &baseline].iter().zip(modes) {
        if let Some(mode) = mode {
            std::fs::set_permissions(path, mode)?;
        }
    }

    let mut out = format!(
        "\npromoted {} to {}: it now reads {} (a copy of {})\n",
        candidate.display(),
        baseline.display(),
        results.display(),
        cm.results.display()
    );
    if !same_path(&bm.results, &results) && !same_path(&bm.results, &cm.results) {
        out.push_str(&format!(
            "note: {} is no longer named by {}; left in place\n",
            bm.results.display(),
            baseline.display()
        ));
    }
    out.push_str(&format!(
        "next: commit {} and {}; export the next candidate over {}\n",
        baseline.display(),
        results.display(),
        candidate.display()
    ));
    output::stdout(&out)?;
    Ok(exit::SUCCESS)
}

/// The copy's path: beside the baseline manifest, the manifest's stem with the
/// candidate results' extension (which decides the format when none is declared).
fn results_path(baseline: &Path, candidate_results: &Path) -> Result<PathBuf, InvalidInput> {
    let stem = baseline
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "baseline".to_string());
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
