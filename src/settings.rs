//! Raw flags (`cli`) turned into validated settings (ripgrep's LowArgs -> HiArgs):
//! defaults resolved, input shapes decided, outputs and gate options parsed. Nothing
//! after this module sees a raw flag.

use std::path::{Path, PathBuf};

use crate::cli::{CompareArgs, EvalArgs, EvalFormat, FreezeArgs, PromoteArgs, ValidateArgs};
use crate::load;
use crate::metrics::Metric;
use crate::report::Format;
use crate::validate::{Diagnostics, InvalidInput};

/// Extra columns each side of the seeds' one-file layout may carry.
#[derive(Debug, Clone, Copy)]
pub struct Extra {
    pub gold: &'static [&'static str],
    pub run: &'static [&'static str],
}

impl Extra {
    /// No extra columns: separate gold and run files.
    pub const NONE: Extra = Extra {
        gold: &[],
        run: &[],
    };
    /// One CSV holding both the gold's and the run's columns.
    pub const ONE_FILE: Extra = Extra {
        gold: load::ONE_FILE_GOLD_EXTRA,
        run: load::ONE_FILE_RUN_EXTRA,
    };

    fn of(one_file: bool) -> Self {
        if one_file { Self::ONE_FILE } else { Self::NONE }
    }
}

/// `eval`'s settings.
#[derive(Debug)]
pub struct Eval {
    /// The gold given (flag, first of two inputs, or the one file); `None`: default.
    pub gold: Option<PathBuf>,
    pub run: PathBuf,
    pub extra: Extra,
    pub k: Option<u32>,
    pub format: Format,
    pub require_frozen: bool,
    /// Extra cutoffs, ascending, each once (`docs/contract.md §2.8`).
    pub cutoffs: Vec<u32>,
    pub sort: crate::eval::cutoffs::SortBy,
}

impl Eval {
    pub fn new(args: EvalArgs) -> Result<Self, InvalidInput> {
        let (gold, run, one_file) = match (args.gold.gold, args.inputs.as_slice()) {
            (Some(g), [run]) => (Some(g), run.clone(), false),
            (None, [gold, run]) => (Some(gold.clone()), run.clone(), false),
            (None, [single]) if load::is_one_file(single) => {
                (Some(single.clone()), single.clone(), true)
            }
            (None, [run]) => (None, run.clone(), false),
            // clap takes one or two inputs; two beside --gold are one too many.
            _ => return Err(InvalidInput::usage("with --gold, eval takes one RUN")),
        };
        Ok(Self {
            gold,
            run,
            extra: Extra::of(one_file),
            k: args.k,
            format: match args.format {
                EvalFormat::Table => Format::Table,
                EvalFormat::Json => Format::Json,
            },
            require_frozen: args.require_frozen,
            cutoffs: sorted_cutoffs(&args.cutoffs),
            sort: args.sort,
        })
    }
}

/// Cutoffs ascending, each once.
pub fn sorted_cutoffs(cutoffs: &[u32]) -> Vec<u32> {
    let mut c = cutoffs.to_vec();
    c.sort_unstable();
    c.dedup();
    c
}

/// `validate`'s settings.
#[derive(Debug)]
pub struct Validate {
    pub gold: Option<PathBuf>,
    /// The runs to check: those given, else the default baseline and candidate that
    /// exist.
    pub runs: Vec<PathBuf>,
    pub extra: Extra,
    pub k: Option<u32>,
    pub require_frozen: bool,
}

impl Validate {
    pub fn new(args: ValidateArgs) -> Self {
        let runs: Vec<PathBuf> = if args.runs.is_empty() {
            [load::DEFAULT_BASELINE, load::DEFAULT_CANDIDATE]
                .iter()
                .map(PathBuf::from)
                .filter(|p| p.exists())
                .collect()
        } else {
            args.runs
        };
        let one_file = args.gold.gold.is_none() && runs.len() == 1 && load::is_one_file(&runs[0]);
        Self {
            gold: if one_file {
                Some(runs[0].clone())
            } else {
                args.gold.gold
            },
            runs,
            extra: Extra::of(one_file),
            k: args.k,
            require_frozen: args.require_frozen,
        }
    }
}

/// `freeze`'s settings.
#[derive(Debug)]
pub struct Freeze {
    pub gold: Option<PathBuf>,
}

impl Freeze {
    pub fn new(args: FreezeArgs) -> Self {
        Self { gold: args.gold }
    }
}

/// Where each output goes: stdout's format and the exports.
#[derive(Debug)]
pub struct Outputs {
    pub stdout: Format,
    /// Exports to files: format, flag (for messages) and path.
    pub files: Vec<(Format, &'static str, PathBuf)>,
}

impl Outputs {
    /// An export to `-` takes stdout's place; two outputs on stdout are a usage error.
    fn new(args: &CompareArgs) -> Result<Self, InvalidInput> {
        let exports = [
            (Format::Markdown, "--export-markdown", &args.export_markdown),
            (Format::Json, "--export-json", &args.export_json),
            (Format::Csv, "--export-csv", &args.export_csv),
            (
                Format::LabelQueue,
                "--export-label-queue",
                &args.export_label_queue,
            ),
        ];
        let mut files = Vec::new();
        let mut on_stdout: Vec<Format> = args.format.into_iter().collect();
        for (format, flag, path) in exports {
            match path {
                Some(p) if p.as_os_str() == "-" => on_stdout.push(format),
                Some(p) => files.push((format, flag, p.clone())),
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

    /// The exports as (flag, path), for the check that none overwrites an input.
    pub fn exports(&self) -> Vec<(&'static str, &Path)> {
        self.files
            .iter()
            .map(|(_, f, p)| (*f, p.as_path()))
            .collect()
    }

    /// Whether the label queue is written somewhere (a file or stdout).
    pub fn wants_label_queue(&self) -> bool {
        self.stdout == Format::LabelQueue
            || self.files.iter().any(|(f, _, _)| *f == Format::LabelQueue)
    }
}

/// `compare`'s settings.
#[derive(Debug)]
pub struct Compare {
    pub gold: Option<PathBuf>,
    /// Baseline and candidate manifests.
    pub runs: [PathBuf; 2],
    pub k: Option<u32>,
    pub outputs: Outputs,
    pub seed: u64,
    pub resamples: u32,
    pub max_drop: Vec<(Metric, f64)>,
    pub allow_failed: Vec<String>,
    pub allow_failed_file: Option<PathBuf>,
    /// `--changed-since REV` (docs/contract.md §12.1).
    pub changed_since: Option<String>,
    pub fail_on_significant_drop: bool,
    pub require_frozen: bool,
    pub enforced: bool,
    pub suspects: crate::gate::Suspects,
    /// Segments and their gates (docs/contract.md §6.6).
    pub segments: SegmentSettings,
    /// Noise and drift (docs/contract.md §6.5).
    pub strict_flaky: bool,
    pub rbo_p: f64,
    pub min_rbo: Option<f64>,
    /// Extra cutoffs, ascending, each once (docs/contract.md §6.7).
    pub cutoffs: Vec<u32>,
}

/// `--min-segment-queries`, `--non-inferior`, `--non-inferior-per-segment` and
/// `--max-drop-per-segment`, parsed.
#[derive(Debug, Default)]
pub struct SegmentSettings {
    pub min_queries: usize,
    pub non_inferior: Vec<(Metric, f64)>,
    pub non_inferior_per_segment: Vec<(Metric, f64)>,
    pub max_drop_per_segment: Vec<(Metric, f64)>,
}

impl SegmentSettings {
    fn new(args: &CompareArgs, diag: &mut Diagnostics) -> Self {
        let mut parse = |flag: &'static str, values: &[String], tested: bool| {
            let mut out = Vec::new();
            for text in values {
                match parse_metric_value(flag, text, tested) {
                    Ok(v) => out.push(v),
                    Err(message) => diag.usage(message),
                }
            }
            out
        };
        Self {
            min_queries: args.min_segment_queries as usize,
            non_inferior: parse("--non-inferior", &args.non_inferior, true),
            non_inferior_per_segment: parse(
                "--non-inferior-per-segment",
                &args.non_inferior_per_segment,
                true,
            ),
            max_drop_per_segment: parse(
                "--max-drop-per-segment",
                &args.max_drop_per_segment,
                false,
            ),
        }
    }
}

/// Parse `METRIC=VALUE` for `flag`; `tested` allows only the metrics with a CI (rr or
/// mrr, recall, hit, ndcg). VALUE is a number >= 0.
pub fn parse_metric_value(flag: &str, text: &str, tested: bool) -> Result<(Metric, f64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("{flag} {text}: expected METRIC=VALUE, like recall=0.02"))?;
    let metric = match name.trim().to_ascii_lowercase().as_str() {
        "mrr" | "rr" => Metric::Rr,
        "recall" => Metric::Recall,
        "hit" => Metric::Hit,
        "ndcg" => Metric::Ndcg,
        "precision" | "p" if !tested => Metric::Precision,
        "ap" | "map" if !tested => Metric::Ap,
        other if tested => {
            return Err(format!(
                "{flag}: metric `{}` has no confidence interval; use rr, mrr, recall, hit or ndcg",
                crate::text::safe_id(other)
            ));
        }
        other => {
            return Err(format!(
                "{flag}: unknown metric `{}`; use mrr, rr, recall, hit, precision, ndcg or ap",
                crate::text::safe_id(other)
            ));
        }
    };
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok((metric, v)),
        _ => Err(format!("{flag} {text}: the value must be a number >= 0")),
    }
}

impl Compare {
    /// Every usage problem at once (exit 2): outputs, `--max-drop`, run paths that
    /// are not manifests.
    pub fn new(args: CompareArgs) -> Result<Self, InvalidInput> {
        let outputs = Outputs::new(&args)?;
        let mut diag = Diagnostics::default();
        let mut max_drop = Vec::new();
        for text in &args.max_drop {
            match parse_max_drop(text) {
                Ok(v) => max_drop.push(v),
                Err(message) => diag.usage(message),
            }
        }
        let segments = SegmentSettings::new(&args, &mut diag);
        let runs: [PathBuf; 2] = match <[PathBuf; 2]>::try_from(args.runs) {
            Ok(runs) => runs,
            // clap takes exactly two or none.
            Err(_) => [
                load::DEFAULT_BASELINE.into(),
                load::DEFAULT_CANDIDATE.into(),
            ],
        };
        for p in &runs {
            if !load::manifest::is_manifest(p) {
                diag.usage(format!(
                    "{}: compare takes run manifests (.toml): their corpus, filters and depth say whether two runs are comparable",
                    p.display()
                ));
            }
        }
        check_drift_flags(args.rbo_p, args.min_rbo, &mut diag);
        diag.check()?;
        Ok(Self {
            gold: args.gold.gold,
            runs,
            k: args.k,
            outputs,
            seed: args.seed,
            resamples: args.resamples,
            max_drop,
            allow_failed: args.allow_failed,
            allow_failed_file: args.allow_failed_file,
            changed_since: args.changed_since,
            fail_on_significant_drop: args.fail_on_significant_drop,
            require_frozen: args.require_frozen,
            enforced: !args.no_gate,
            strict_flaky: args.strict_flaky,
            rbo_p: args.rbo_p,
            min_rbo: args.min_rbo,
            cutoffs: sorted_cutoffs(&args.cutoffs),
            segments,
            suspects: args.suspects,
        })
    }
}

/// `promote`'s settings: the comparison and gate, as `compare` reads them (its
/// report and exports), and whether a failed gate still promotes.
#[derive(Debug)]
pub struct Promote {
    pub compare: Compare,
    pub force: bool,
}

impl Promote {
    pub fn new(args: PromoteArgs) -> Result<Self, InvalidInput> {
        if args.compare.no_gate {
            return Err(InvalidInput::usage(
                "promote runs the gate first: --no-gate would promote whatever it says; use --force to promote a candidate that fails the gate",
            ));
        }
        Ok(Self {
            compare: Compare::new(args.compare)?,
            force: args.force,
        })
    }
}

/// `--rbo-p` lies strictly between 0 and 1, `--min-rbo` in [0, 1] (docs/contract.md §6.5).
fn check_drift_flags(p: f64, min_rbo: Option<f64>, diag: &mut Diagnostics) {
    if !(p > 0.0 && p < 1.0) {
        diag.usage(format!(
            "--rbo-p {p}: the persistence must lie strictly between 0 and 1, like 0.9"
        ));
    }
    if let Some(m) = min_rbo
        && !(0.0..=1.0).contains(&m)
    {
        diag.usage(format!(
            "--min-rbo {m}: the value must lie between 0 and 1 (a mean rank-biased overlap)"
        ));
    }
}

/// Parse `METRIC=VALUE` of `--max-drop`.
pub fn parse_max_drop(text: &str) -> Result<(Metric, f64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("--max-drop {text}: expected METRIC=VALUE, like mrr=0.02"))?;
    let metric = match name.trim().to_ascii_lowercase().as_str() {
        "mrr" | "rr" => Metric::Rr,
        "recall" => Metric::Recall,
        "hit" => Metric::Hit,
        "precision" | "p" => Metric::Precision,
        "ndcg" => Metric::Ndcg,
        "ap" | "map" => Metric::Ap,
        other => {
            return Err(format!(
                "--max-drop: unknown metric `{other}`; use mrr, rr, recall, hit, precision, ndcg or ap"
            ));
        }
    };
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok((metric, v)),
        _ => Err(format!(
            "--max-drop {text}: the value must be a number >= 0 (an absolute drop of the mean)"
        )),
    }
}
