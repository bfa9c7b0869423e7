//! `validate`: every problem in the gold set and the runs, listed together.

use crate::app::print_warnings;
use crate::exit;
use crate::load;
use crate::model::{GoldMeta, GoldSet};
use crate::output;
use crate::settings;
use crate::text::plural;
use crate::validate::{Diagnostics, resolve_k};

pub fn run(s: settings::Validate) -> anyhow::Result<u8> {
    let mut diag = Diagnostics::default();
    let gold_path = load::gold_or_default(s.gold, &mut diag);
    let metas: Vec<_> = s
        .runs
        .iter()
        .map(|p| load::run_meta(p, &mut diag))
        .collect();
    let gold = gold_path
        .as_ref()
        .and_then(|p| load::load_gold(p, s.require_frozen, s.extra.gold, &mut diag));
    // A gold that failed to load is stood in for, so the runs' own problems are
    // listed too.
    let gold_ok = gold.is_some();
    let gold = gold.unwrap_or_else(|| GoldSet::stand_in(GoldMeta::placeholder()));
    let mut ok_metas = Vec::new();
    let mut ok_paths = Vec::new();
    for (path, meta) in s.runs.iter().zip(metas) {
        let Some(meta) = meta else { continue };
        if let (Some(gc), Some(rc)) = (&gold.meta.corpus, &meta.corpus)
            && gc != rc
        {
            diag.warn(format!(
                "{}: corpus {rc} differs from the gold's {gc}; compare would refuse it",
                path.display()
            ));
        }
        ok_metas.push(meta);
        ok_paths.push(path.display().to_string());
    }
    let checked = ok_metas.len();
    let read = load::read_runs(ok_metas, &gold, s.extra.run, &mut diag);
    if gold_ok {
        for (run, path) in read.iter().zip(&ok_paths) {
            if let Some(run) = run {
                resolve_k(&gold, s.k, &run.meta, path, &mut diag);
            }
        }
    }
    print_warnings(&diag.warnings);
    diag.check()?;
    let gold_name = gold_path
        .map(|p| crate::text::shown_string(&p.display().to_string()))
        .unwrap_or_default();
    output::stdout(&format!(
        "ok: {gold_name} and {} are valid\n",
        plural(checked, "run", "runs")
    ))?;
    Ok(exit::SUCCESS)
}
