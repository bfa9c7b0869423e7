//! `compare`: inputs -> comparability -> runs (in parallel) -> comparison -> gate ->
//! every requested output.

use std::path::Path;

use crate::app::{print_warnings, refuse};
use crate::compare::{self, Bump, Comparison};
use crate::exit::{self, Refused};
use crate::gate::{self, Policy};
use crate::load::{self, allow};
use crate::model::{EvaluatedRun, GoldSet, RunMeta};
use crate::output;
use crate::report::{self, CompareReport, Decided};
use crate::settings;
use crate::text::plural;
use crate::validate::{Diagnostics, resolve_k};

/// Fewer compared queries than this get a warning: the statistics mean little.
pub const FEW_QUERIES: usize = 10;

/// The inputs once their manifests are read and checked, before any run is read.
struct Inputs {
    gold: GoldSet,
    metas: [RunMeta; 2],
    k: u32,
    allowed: Vec<(String, String)>,
}

pub fn run(s: settings::Compare) -> anyhow::Result<u8> {
    let mut diag = Diagnostics::default();
    let inputs = inputs(&s, &mut diag)?;
    let [bm, cm] = inputs.metas;
    let differences = compare::differences(&inputs.gold, &bm, &cm);
    if !differences.is_empty() {
        let refused = Refused {
            what: Refused::COMPARE,
            differences,
        };
        return Err(refuse(refused, vec![bm, cm], &mut diag));
    }
    let gold = inputs.gold;
    let same_results = load::same_results(&bm.results, &cm.results);
    let runs = load::repeats::read_runs_with(vec![bm, cm], &gold, &[], true, &mut diag);
    let [baseline, candidate] =
        <[Option<EvaluatedRun>; 2]>::try_from(runs).unwrap_or_else(|_| [None, None]);
    let baseline = diag.require(baseline)?;
    let candidate = diag.require(candidate)?;
    let mut cmp = compare::compare(&gold, &baseline, &candidate, inputs.k, s.resamples, s.seed);
    cmp.same_results = same_results;
    compare::drift::apply(&mut cmp, &gold, &baseline, &candidate, s.rbo_p);
    let policy = Policy {
        max_drop: s.max_drop.clone(),
        allowed: inputs.allowed,
        fail_on_significant_drop: s.fail_on_significant_drop,
        enforced: s.enforced,
        strict_flaky: s.strict_flaky,
        min_rbo: s.min_rbo,
    };
    let (verdict, accepted, gate_warnings) = gate::decide(&policy, &cmp, inputs.k);
    let mut warnings = std::mem::take(&mut diag.warnings);
    warnings.extend(comparison_warnings(&cmp, [&baseline.meta, &candidate.meta]));
    warnings.extend(gate_warnings);
    let decided = Decided {
        verdict,
        accepted,
        warnings,
    };
    let runs = [&baseline.meta, &candidate.meta];
    let report = CompareReport::new(&gold, runs, cmp, decided, (s.resamples, s.seed));
    print_warnings(&report.warnings);
    report::emit_ci_annotations(&report);
    write_outputs(&report, &s.outputs)?;
    Ok(if report.gate.passed || !report.gate.enforced {
        exit::SUCCESS
    } else {
        exit::GATE_FAILED
    })
}

/// Read the gold, both manifests and the allow-list; resolve k; check that no
/// export would overwrite an input. Every problem at once (exit 2).
fn inputs(s: &settings::Compare, diag: &mut Diagnostics) -> anyhow::Result<Inputs> {
    let gold_path = load::gold_or_default(s.gold.clone(), diag);
    let gold = gold_path
        .as_ref()
        .and_then(|p| load::load_gold(p, s.require_frozen, &[], diag));
    let bm = load::run_meta(&s.runs[0], diag);
    let cm = load::run_meta(&s.runs[1], diag);
    let gold = diag.require(gold)?;
    let bm = diag.require(bm)?;
    let cm = diag.require(cm)?;
    let mut inputs: Vec<&Path> = vec![gold.meta.data.as_path()];
    inputs.extend(gold.meta.manifest.as_deref());
    for m in [&bm, &cm] {
        inputs.push(m.results.as_path());
        inputs.extend(m.more_results.iter().map(|(_, p)| p.as_path()));
        inputs.extend(m.manifest.as_deref());
    }
    inputs.extend(s.allow_failed_file.as_deref());
    output::check_exports(&s.outputs.exports(), &inputs)?;
    let k = resolve_k(&gold, s.k, &bm, &s.runs[0].display().to_string(), diag);
    let mut allowed = allow::check_allowed_ids(&s.allow_failed, &gold, diag);
    if let Some(file) = &s.allow_failed_file {
        allowed.extend(allow::read_allow_file(file, &gold, diag));
    }
    let k = diag.require(k)?;
    Ok(Inputs {
        gold,
        metas: [bm, cm],
        k,
        allowed,
    })
}

/// Warnings about the comparison itself: swapped versions, too few queries.
fn comparison_warnings(cmp: &Comparison, runs: [&RunMeta; 2]) -> Vec<String> {
    let mut warnings = Vec::new();
    if cmp.same_results {
        warnings.push(if cmp.bump == Bump::Same {
            "baseline and candidate read the same results: nothing can change between them".to_string()
        } else {
            "baseline and candidate read the same results, under different index versions: was the candidate run on its own index?".to_string()
        });
    }
    if cmp.bump == Bump::Older {
        let version = |m: &RunMeta| {
            m.index_version
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        warnings.push(format!(
            "the candidate's index version {} is lower than the baseline's {}: are baseline and candidate swapped?",
            version(runs[1]),
            version(runs[0]),
        ));
    }
    if cmp.rows.len() < FEW_QUERIES {
        warnings.push(format!(
            "only {} with a relevant doc {} compared; means, intervals and p-values say little on so few",
            plural(cmp.rows.len(), "query", "queries"),
            if cmp.rows.len() == 1 { "is" } else { "are" }
        ));
    }
    warnings
}

/// Every export, then stdout, written as one set (see `output::write_files`).
fn write_outputs(report: &CompareReport, outputs: &settings::Outputs) -> anyhow::Result<()> {
    let mut paths: Vec<&Path> = outputs.files.iter().map(|(_, _, p)| p.as_path()).collect();
    let mut formats: Vec<report::Format> = outputs.files.iter().map(|(f, _, _)| *f).collect();
    paths.push(Path::new("-"));
    formats.push(outputs.stdout);
    let stdout_index = paths.len() - 1;
    output::write_files(&paths, |i, out| {
        report::write_compare(report, formats[i], i == stdout_index, out)
    })?;
    Ok(())
}
