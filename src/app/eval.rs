//! `eval`: one run against the gold set, as a table or JSON.

use std::path::Path;

use crate::app::{print_warnings, refuse};
use crate::exit::{self, Refused};
use crate::load;
use crate::output;
use crate::report::{self, EvalReport, Format};
use crate::settings;
use crate::validate::{Diagnostics, resolve_k};

/// Each extra cutoff must lie in 1..=depth (`docs/contract.md §5.2`).
pub fn check_cutoffs(cutoffs: &[u32], depth: u32, diag: &mut Diagnostics) {
    for &c in cutoffs {
        if c == 0 || c > depth {
            diag.usage(format!(
                "--cutoffs: {c} is outside 1..={depth} (the run's depth); each cutoff must lie in 1..=depth"
            ));
        }
    }
}

pub fn run(s: settings::Eval) -> anyhow::Result<u8> {
    let format = s.format;
    let report = report(s)?;
    print_warnings(&report.warnings);
    match format {
        Format::Json => output::write_files(&[Path::new("-")], |_, out| {
            report::json::write(&report, out)
        })?,
        _ => output::stdout(&report::table::render_eval(&report))?,
    };
    Ok(exit::SUCCESS)
}

/// The evaluation, nothing printed (the Python module's `evaluate` takes it too).
pub fn report(s: settings::Eval) -> anyhow::Result<EvalReport> {
    let mut diag = Diagnostics::default();
    let gold_path = load::gold_or_default(s.gold, &mut diag);
    let run_meta = load::run_meta(&s.run, &mut diag);
    let gold =
        gold_path.and_then(|p| load::load_gold(&p, s.require_frozen, s.extra.gold, &mut diag));
    let gold = diag.require(gold)?;
    let mut run_meta = diag.require(run_meta)?;
    load::with_columns(&mut run_meta, s.columns.as_ref());
    if let (Some(gc), Some(rc)) = (&gold.meta.corpus, &run_meta.corpus)
        && gc != rc
    {
        let refused = Refused {
            what: Refused::EVAL,
            differences: vec![format!(
                "corpus:  gold {gc}, run {rc} (the run answered other questions)"
            )],
        };
        return Err(refuse(refused, vec![run_meta], &mut diag));
    }
    let run_display = s.run.display().to_string();
    let mut runs = load::read_runs(vec![run_meta], &gold, s.extra.run, &mut diag);
    // After reading: a bare results file's depth is its longest list.
    let k = runs
        .first()
        .and_then(Option::as_ref)
        .and_then(|run| resolve_k(&gold, s.k, &run.meta, &run_display, &mut diag));
    let run = diag.require(runs.pop().flatten())?;
    let k = diag.require(k)?;
    check_cutoffs(&s.cutoffs, run.meta.depth, &mut diag);
    diag.check()?;
    let above = crate::eval::measures::above_highest_grade(&gold, &s.measures);
    diag.warnings.extend(above);
    let report = EvalReport::new(&gold, &run, k, diag.warnings, diag.notes);
    let report = if s.judged_only {
        report.with_judged_only(&gold, &run)
    } else {
        report
    };
    Ok(report
        .with_measures(&gold, &run, &s.measures)
        .with_cutoffs(&gold, &run, &s.cutoffs, s.sort))
}
