//! The `compare` command: inputs -> comparability -> runs (in parallel) -> comparison
//! -> gate -> every requested output.

use std::path::PathBuf;

use crate::app::{Refused, gold_path, load_gold, print_warnings, read_runs, resolve_k};
use crate::cli::{CompareArgs, Format};
use crate::compare::{self, Bump, CompareReport, Status};
use crate::gate::{self, Policy};
use crate::load;
use crate::report::{self, GoldContext, RunContext, SCHEMA_VERSION};
use crate::validate::{Diagnostics, InvalidInput, Location, ProblemKind};
use crate::{exit, output};

/// Fewer compared queries than this get a warning: the statistics mean little.
pub const FEW_QUERIES: usize = 10;

/// Where each output goes: stdout's format and the exports.
pub struct Outputs {
    pub stdout: Format,
    pub files: Vec<(Format, PathBuf)>,
}

impl Outputs {
    /// An export to `-` takes stdout's place; two outputs on stdout are a usage error.
    pub fn from_args(args: &CompareArgs) -> Result<Self, InvalidInput> {
        let exports = [
            (Format::Markdown, &args.export_markdown),
            (Format::Json, &args.export_json),
            (Format::Csv, &args.export_csv),
        ];
        let mut files = Vec::new();
        let mut on_stdout: Vec<Format> = args.format.into_iter().collect();
        for (format, path) in exports {
            match path {
                Some(p) if p.as_os_str() == "-" => on_stdout.push(format),
                Some(p) => files.push((format, p.clone())),
                None => {}
            }
        }
        if on_stdout.len() > 1 {
            return Err(InvalidInput::usage(
                "two outputs go to stdout (-); send all but one to a file",
            ));
        }
        Ok(Self {
            stdout: on_stdout.pop().unwrap_or(Format::Table),
            files,
        })
    }
}

pub fn run(args: CompareArgs) -> anyhow::Result<u8> {
    let outputs = Outputs::from_args(&args)?;
    let exports: Vec<(&str, &std::path::Path)> = [
        ("--export-markdown", &args.export_markdown),
        ("--export-json", &args.export_json),
        ("--export-csv", &args.export_csv),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.as_deref().map(|p| (flag, p)))
    .collect();
    let mut diag = Diagnostics::default();
    let mut max_drop = Vec::new();
    for text in &args.max_drop {
        match gate::parse_max_drop(text) {
            Ok(v) => max_drop.push(v),
            Err(message) => diag.problem(Location::file("usage"), ProblemKind::Usage { message }),
        }
    }
    let run_paths: Vec<PathBuf> = if args.runs.is_empty() {
        vec![
            load::DEFAULT_BASELINE.into(),
            load::DEFAULT_CANDIDATE.into(),
        ]
    } else {
        args.runs.clone()
    };
    for p in &run_paths {
        if !load::manifest::is_manifest(p) {
            diag.problem(
                Location::file("usage"),
                ProblemKind::Usage {
                    message: format!(
                        "{}: compare takes run manifests (.toml): their corpus, filters and depth say whether two runs are comparable",
                        p.display()
                    ),
                },
            );
        }
    }
    diag.check()?;
    let gold_path = gold_path(args.gold.gold.clone(), &mut diag);
    let gold = gold_path
        .as_ref()
        .and_then(|p| load_gold(p, args.require_frozen, &[], &mut diag));
    let metas: Vec<_> = run_paths
        .iter()
        .map(|p| load::run_meta(p, &mut diag))
        .collect();
    diag.check()?;
    let gold = gold.expect("no problems means the gold was loaded");
    let (bm, cm) = (
        metas[0].clone().expect("no problems"),
        metas[1].clone().expect("no problems"),
    );
    let mut inputs: Vec<&std::path::Path> = vec![gold.meta.data.as_path()];
    inputs.extend(gold.meta.manifest.as_deref());
    for m in [&bm, &cm] {
        inputs.push(m.results.as_path());
        inputs.extend(m.manifest.as_deref());
    }
    inputs.extend(args.allow_failed_file.as_deref());
    output::check_exports(&exports, &inputs)?;
    let differences = compare::differences(&gold, &bm, &cm);
    let k = resolve_k(
        &gold,
        args.k,
        &bm,
        &run_paths[0].display().to_string(),
        &mut diag,
    );
    let mut allowed = gate::check_allowed_ids(&args.allow_failed, &gold, &mut diag);
    if let Some(file) = &args.allow_failed_file {
        allowed.extend(gate::read_allow_file(file, &gold, &mut diag));
    }
    diag.check()?;
    if !differences.is_empty() {
        let refused = Refused {
            what: Refused::COMPARE,
            differences,
        };
        return Err(refused.after_reading(vec![bm, cm], &mut diag));
    }
    let k = k.expect("no problems means k was resolved");
    let runs = read_runs(vec![bm, cm], &gold, &[], &mut diag);
    diag.check()?;
    let [Some(baseline), Some(candidate)] = <[_; 2]>::try_from(runs).expect("two runs") else {
        unreachable!("no problems means both runs were read");
    };
    let cmp = compare::compare(&gold, &baseline, &candidate, k, args.resamples, args.seed);
    let policy = Policy {
        max_drop,
        allowed,
        fail_on_significant_drop: args.fail_on_significant_drop,
        enforced: !args.no_gate,
    };
    let (gate, accepted, gate_warnings) = gate::decide(&policy, &cmp, k);
    let mut warnings = diag.warnings;
    if cmp.bump == Bump::Older {
        warnings.push(format!(
            "the candidate's index version {} is lower than the baseline's {}: are baseline and candidate swapped?",
            candidate.meta.index_version.as_ref().map(ToString::to_string).unwrap_or_default(),
            baseline.meta.index_version.as_ref().map(ToString::to_string).unwrap_or_default(),
        ));
    }
    if cmp.rows.len() < FEW_QUERIES {
        warnings.push(format!(
            "only {} with a relevant doc {} compared; means, intervals and p-values say little on so few",
            match cmp.rows.len() {
                1 => "1 query".to_string(),
                n => format!("{n} queries"),
            },
            if cmp.rows.len() == 1 { "is" } else { "are" }
        ));
    }
    warnings.extend(gate_warnings);
    let report = CompareReport {
        schema_version: SCHEMA_VERSION,
        gold: GoldContext::of(&gold),
        baseline: RunContext::of(&baseline.meta),
        candidate: RunContext::of(&candidate.meta),
        k,
        bump: cmp.bump,
        reproducibility_check: cmp.bump == Bump::Same,
        newly_failed: compare::ids_with(&cmp.rows, Status::NewlyFailed),
        fixed: compare::ids_with(&cmp.rows, Status::Fixed),
        still_failing: compare::ids_with(&cmp.rows, Status::StillFailing),
        nondeterministic: cmp.nondeterministic,
        means: cmp.means,
        zero_rr: cmp.zero_rr,
        per_query: cmp.rows,
        accepted,
        no_answer: cmp.no_answer,
        warnings,
        notes: diag.notes,
        gate,
        resamples: args.resamples,
        seed: args.seed,
    };
    print_warnings(&report.warnings);
    report::emit_ci_annotations(&report);
    let mut paths: Vec<&std::path::Path> = outputs.files.iter().map(|(_, p)| p.as_path()).collect();
    let mut formats: Vec<Format> = outputs.files.iter().map(|(f, _)| *f).collect();
    paths.push(std::path::Path::new("-"));
    formats.push(outputs.stdout);
    let stdout_index = paths.len() - 1;
    output::write_files(&paths, |i, out| {
        report::write_compare(&report, formats[i], i == stdout_index, out)
    })?;
    Ok(if report.gate.passed || !report.gate.enforced {
        exit::SUCCESS
    } else {
        exit::GATE_FAILED
    })
}
