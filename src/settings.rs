//! Raw flags (`cli`) turned into validated settings (ripgrep's LowArgs -> HiArgs):
//! defaults resolved, input shapes decided, outputs and gate options parsed. Nothing
//! after this module sees a raw flag.

pub mod record;

use std::path::{Path, PathBuf};

use crate::cli::{
    CompareArgs, ConfigArgs, EvalArgs, EvalFormat, FreezeArgs, HistoryArgs, HistoryFormat,
    PromoteArgs, ValidateArgs,
};
use crate::compare::Primary;
use crate::gate::{Policy, Rule, Severity, Suspects};
use crate::load;
use crate::load::policy::{GateKeys, Located, PolicyFile, Rules};
use crate::model::Side;
use crate::model::measure::Measure;
use crate::model::threshold::{self, GivenThreshold, Origin, RuleFlag, short_metric};
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
    /// `--columns`: long-table column names for a run without its own (§2.16).
    pub columns: Option<crate::model::LongNames>,
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
    /// `--judged-only`: also every metric on the judged docs only (docs/contract.md §5.3).
    pub judged_only: bool,
    /// Named measures, each once in the order given (`docs/contract.md §5.4`).
    pub measures: Vec<crate::metrics::named::Measure>,
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
        let columns = args.columns.as_deref().map(parse_columns).transpose()?;
        Ok(Self {
            columns,
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
            judged_only: args.judged_only,
            measures: {
                let mut diag = Diagnostics::default();
                let measures = named_measures(&args.measures, &mut diag);
                diag.check()?;
                measures
            },
        })
    }
}

/// `--measure` names parsed, each once in the order given; every unknown or malformed
/// one a usage problem listing the known names (docs/contract.md §5.4).
pub fn named_measures(
    names: &[String],
    diag: &mut Diagnostics,
) -> Vec<crate::metrics::named::Measure> {
    let (measures, problems) = crate::metrics::named::parse_all(names.iter().map(String::as_str));
    for p in problems {
        diag.usage(format!("--measure: {p}"));
    }
    measures
}

/// `--primary`, else `[gate] primary` of the policy file, else RR: one of today's
/// short names (any case, as a gate rule takes them) or a measure by name, resolved
/// at the gold's k later ([`crate::compare::Primary::at_k`], docs/contract.md §6.2).
/// A bad name is a usage problem listing the known ones, at the file's line.
fn primary(flag: Option<&str>, file: &PolicyFile, diag: &mut Diagnostics) -> Primary {
    let (text, at) = match (flag, &file.gate.primary) {
        (Some(text), _) => (text.to_string(), "--primary".to_string()),
        (None, Some(l)) => (
            l.value.clone(),
            format!("{}: `primary`", at_line(&file.path, l.line)),
        ),
        (None, None) => return Primary::default(),
    };
    if let Some(metric) = short_metric(&text) {
        return Primary::Metric(metric);
    }
    match Measure::parse(&text) {
        Ok(m) => Primary::Named(m),
        Err(e) => {
            diag.usage(format!(
                "{at}: {e}; the primary takes rr (mrr), recall, hit, precision (p), ndcg or ap (map) at the gold's k, or a measure by name: {}",
                crate::metrics::named::KNOWN
            ));
            Primary::default()
        }
    }
}

/// A place in the policy file, `path:line` (the path alone without a line).
fn at_line(path: &Path, line: Option<u64>) -> String {
    match line {
        Some(line) => format!("{}:{line}", path.display()),
        None => path.display().to_string(),
    }
}

/// `compare`'s named measures: the flags', else the policy file's.
fn compare_measures(
    flags: &[String],
    file: &PolicyFile,
    diag: &mut Diagnostics,
) -> Vec<crate::metrics::named::Measure> {
    if !flags.is_empty() {
        return named_measures(flags, diag);
    }
    let c = &file.compare;
    let names = value(&c.measures).unwrap_or_default();
    let line = c.measures.as_ref().and_then(|l| l.line);
    policy_measures(&names, &file.path, line, diag)
}

/// `[compare] measures` parsed as `--measure` is, each problem at the policy's line.
fn policy_measures(
    names: &[String],
    path: &std::path::Path,
    line: Option<u64>,
    diag: &mut Diagnostics,
) -> Vec<crate::metrics::named::Measure> {
    let (measures, problems) = crate::metrics::named::parse_all(names.iter().map(String::as_str));
    let at = at_line(path, line);
    for p in problems {
        diag.usage(format!("{at}: [compare] measures: {p}"));
    }
    measures
}

/// `--columns query=…,doc=…,rank=…,score=…` (docs/contract.md §2.16): every pair
/// `KEY=NAME`, KEY one of query, doc, rank, score, each once; a usage error (exit 2)
/// otherwise.
pub fn parse_columns(text: &str) -> Result<crate::model::LongNames, InvalidInput> {
    let mut names = crate::model::LongNames::default();
    let mut seen: Vec<&str> = Vec::new();
    for pair in text.split(',') {
        let bad = || {
            InvalidInput::usage(format!(
                "--columns {}: expected KEY=NAME pairs separated by commas, KEY one of query, doc, rank, score (each once), NAME a column of the header",
                crate::text::shown(text)
            ))
        };
        let (key, name) = pair.split_once('=').ok_or_else(bad)?;
        let (key, name) = (key.trim(), name.trim());
        if name.is_empty()
            || key == "grade"
            || seen.contains(&key)
            || !names.set(key, name.to_string())
        {
            return Err(bad());
        }
        seen.push(key);
    }
    Ok(names)
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

/// `history`: the file (given, or beside the baseline manifest the policy file
/// names, else beside `runs/baseline.toml`) and the format.
pub struct History {
    pub file: PathBuf,
    pub format: HistoryFormat,
}

impl History {
    pub fn new(args: HistoryArgs) -> Result<Self, InvalidInput> {
        let file = match args.file {
            Some(file) => file,
            None => {
                let mut diag = Diagnostics::default();
                let policy = find_policy(&args.config, &mut diag);
                diag.check()?;
                let baseline = policy
                    .and_then(|p| value(&p.baseline))
                    .unwrap_or_else(|| PathBuf::from(load::DEFAULT_BASELINE));
                load::history::beside(&baseline)
            }
        };
        Ok(Self {
            file,
            format: args.format,
        })
    }
}

/// Where an output goes: stdout or a file (`-` is stdout, docs/contract.md §9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
}

/// One output: a report format and where it goes.
#[derive(Debug, Clone)]
pub struct Export {
    pub format: Format,
    pub dest: Destination,
}

impl Export {
    /// The flag that asks for this format, for messages.
    pub fn flag(&self) -> &'static str {
        match self.format {
            Format::Table => "--format",
            Format::Markdown => "--export-markdown",
            Format::Json => "--export-json",
            Format::Csv => "--export-csv",
            Format::Html => "--export-html",
            Format::LabelQueue => "--export-label-queue",
        }
    }

    /// The file it is written to; `None` on stdout.
    pub fn file(&self) -> Option<&Path> {
        match &self.dest {
            Destination::Stdout => None,
            Destination::File(path) => Some(path),
        }
    }

    /// The path as output.rs takes it: the file, or `-` for stdout.
    pub fn path(&self) -> &Path {
        self.file().unwrap_or(Path::new("-"))
    }
}

/// Every output of a comparison: the exports to files in the flags' order, then
/// exactly one to stdout, last.
#[derive(Debug)]
pub struct Outputs {
    pub exports: Vec<Export>,
}

impl Outputs {
    /// An export to `-` takes stdout's place; two outputs on stdout are a usage error.
    fn new(args: &CompareArgs) -> Result<Self, InvalidInput> {
        let asked = [
            (Format::Markdown, &args.export_markdown),
            (Format::Json, &args.export_json),
            (Format::Csv, &args.export_csv),
            (Format::Html, &args.export_html),
            (Format::LabelQueue, &args.export_label_queue),
        ];
        let mut exports = Vec::new();
        let mut on_stdout: Vec<Format> = args.format.into_iter().collect();
        for (format, path) in asked {
            match path {
                Some(p) if p.as_os_str() == "-" => on_stdout.push(format),
                Some(p) => exports.push(Export {
                    format,
                    dest: Destination::File(p.clone()),
                }),
                None => {}
            }
        }
        if on_stdout.len() > 1 {
            return Err(InvalidInput::usage(
                "two outputs go to stdout (-); send all but one to a file",
            ));
        }
        exports.push(Export {
            format: on_stdout.pop().unwrap_or(Format::Table),
            dest: Destination::Stdout,
        });
        if args.titles.is_some() && !exports.iter().any(|e| e.format == Format::Html) {
            return Err(InvalidInput::usage(
                "--titles is for the HTML report only: add --export-html FILE or --format html",
            ));
        }
        Ok(Self { exports })
    }

    /// The exports to files.
    pub fn files(&self) -> impl Iterator<Item = &Export> {
        self.exports.iter().filter(|e| e.file().is_some())
    }

    /// The exports to files as (flag, path), for the check that none overwrites an
    /// input.
    pub fn exports(&self) -> Vec<(&'static str, &Path)> {
        self.files().map(|e| (e.flag(), e.path())).collect()
    }

    /// Whether the HTML report is written somewhere (a file or stdout).
    pub fn wants_html(&self) -> bool {
        self.exports.iter().any(|e| e.format == Format::Html)
    }

    /// Whether the label queue is written somewhere (a file or stdout).
    pub fn wants_label_queue(&self) -> bool {
        self.exports.iter().any(|e| e.format == Format::LabelQueue)
    }
}

pub use crate::stats::Resampling;

/// `--allow-failed` ids and `--allow-failed-file`, checked against the gold once it is
/// read (docs/contract.md §8).
#[derive(Debug, Default)]
pub struct AllowFailed {
    pub ids: Vec<String>,
    pub file: Option<PathBuf>,
}

/// `compare`'s settings.
#[derive(Debug)]
pub struct Compare {
    /// `--columns`: long-table column names for runs without their own (§2.16).
    pub columns: Option<crate::model::LongNames>,
    pub gold: Option<PathBuf>,
    /// Baseline and candidate manifests.
    pub runs: Side<PathBuf>,
    pub k: Option<u32>,
    pub outputs: Outputs,
    pub resampling: Resampling,
    /// The gate, every flag of it parsed; `allowed` stays empty until the allow-list
    /// below is read against the gold.
    pub gate: Policy,
    pub allow_failed: AllowFailed,
    /// `--changed-since REV` (docs/contract.md §12.1).
    pub changed_since: Option<String>,
    pub require_frozen: bool,
    /// The `ragdiff.toml` that applied, if any (docs/contract.md §8.6).
    pub policy: Option<PolicyFile>,
    /// The flags given that set the verdict's policy over the file or the defaults
    /// ([`policy_flags`]): the report's policy line names them.
    pub policy_flags: Vec<&'static str>,
    /// Without one: the places a `ragdiff.toml` would be looked for that hold none
    /// now, so `--changed-since` lists one a pull request removed (§12.1).
    pub policy_places: Vec<PathBuf>,
    /// `--primary` (docs/contract.md §6.2), not yet resolved at k.
    pub primary: Primary,
    /// `--min-segment-queries` (docs/contract.md §6.6).
    pub min_segment_queries: usize,
    /// `--segment-correction` (docs/contract.md §7.1).
    pub segment_correction: crate::stats::Correction,
    /// `--rbo-p`, the drift's persistence (docs/contract.md §6.5).
    pub rbo_p: f64,
    /// `--risk-alpha`, each once, in the order given (docs/contract.md §7.4).
    pub risk_alphas: Vec<f64>,
    /// `--depth N`: both runs cut to N (docs/contract.md §6.1).
    pub depth: Option<u32>,
    /// Extra cutoffs, ascending, each once (docs/contract.md §6.7).
    pub cutoffs: Vec<u32>,
    /// Named measures, each once in the order given (docs/contract.md §5.4).
    pub measures: Vec<crate::metrics::named::Measure>,
    /// The memory-releasing comparison: each query's observations are dropped once
    /// its row is built. Only when nothing reads them again: no extra cutoffs and
    /// no label queue (docs/contract.md §12).
    pub release_memory: bool,
    /// `--titles FILE`: doc titles for the HTML report only (docs/contract.md §9.10).
    pub titles: Option<PathBuf>,
}

/// One kind of rule: the file's entries (each with its file, line and name as
/// written), then the flags' in the order given, a malformed flag's message kept
/// for the list of every problem.
fn rules_of(
    given: &[GivenThreshold],
    from_file: &Rules,
    rule: &RuleFlag,
    path: &Path,
    diag: &mut Diagnostics,
) -> Vec<Rule> {
    let mut rules: Vec<Rule> = Vec::new();
    if let Some(l) = from_file {
        // each entry at its own line (a `[gate.max_drop]` section's entries have
        // lines of their own)
        rules.extend(l.value.iter().map(|e| Rule {
            target: e.threshold.target,
            value: e.threshold.value,
            origin: Origin::File {
                at: format!("{}: `{}`", at_line(path, e.line.or(l.line)), rule.key()),
                name: e.name.clone(),
            },
        }));
    }
    for g in given {
        match &g.0 {
            Ok(t) => rules.push(Rule::flag(t.target, t.value)),
            Err(message) => diag.usage(message.clone()),
        }
    }
    rules
}

/// The gate's policy from its flags over the policy file's `[gate]` (the allow-list
/// comes later: it needs the gold; the rules are resolved at the gold's k). The
/// file's rules come first and the flags' after: of two rules on one measure the
/// later applies (docs/contract.md §8.6).
fn gate_policy(args: &CompareArgs, policy: &PolicyFile, diag: &mut Diagnostics) -> Policy {
    let file = &policy.gate;
    // The file's rules, then the flags': parsed where they were read, a malformed
    // flag's message kept for this list of every problem.
    let mut thresholds = |given: &[GivenThreshold], from_file: &Rules, rule: &RuleFlag| {
        rules_of(given, from_file, rule, &policy.path, diag)
    };
    Policy {
        max_drop: thresholds(&args.max_drop, &file.max_drop, &threshold::MAX_DROP),
        allowed: crate::gate::AllowList::default(),
        fail_on_significant_drop: switch(
            args.fail_on_significant_drop,
            args.no_fail_on_significant_drop,
            &file.fail_on_significant_drop,
        ),
        enforced: !args.no_gate,
        non_inferior: thresholds(
            &args.non_inferior,
            &file.non_inferior,
            &threshold::NON_INFERIOR,
        ),
        non_inferior_per_segment: thresholds(
            &args.non_inferior_per_segment,
            &file.non_inferior_per_segment,
            &threshold::NON_INFERIOR_PER_SEGMENT,
        ),
        max_drop_per_segment: thresholds(
            &args.max_drop_per_segment,
            &file.max_drop_per_segment,
            &threshold::MAX_DROP_PER_SEGMENT,
        ),
        suspects: args.suspects.unwrap_or(match value(&file.suspects_warn) {
            Some(true) => Suspects::Warn,
            _ => Suspects::Fail,
        }),
        strict_flaky: switch(args.strict_flaky, args.no_strict_flaky, &file.strict_flaky),
        nondeterminism: args
            .nondeterminism
            .unwrap_or(match value(&file.nondeterminism_warn) {
                Some(true) => Severity::Warn,
                _ => Severity::Fail,
            }),
        unconfirmed: args
            .unconfirmed
            .unwrap_or(match value(&file.unconfirmed_warn) {
                Some(true) => Severity::Warn,
                _ => Severity::Fail,
            }),
        max_latency_increase: latency_limits(args, file, diag),
        errored: args.errored.unwrap_or(match value(&file.errored_warn) {
            Some(true) => Severity::Warn,
            _ => Severity::Fail,
        }),
        min_rbo: args.min_rbo.or(value(&file.min_rbo)),
        // `block` names tags: resolved against the gold once it is read.
        block: crate::gate::Blocking::All,
        inconclusive: args
            .inconclusive
            .unwrap_or(match value(&file.inconclusive_pass) {
                Some(true) => crate::gate::Inconclusive::Pass,
                _ => crate::gate::Inconclusive::Fail,
            }),
        fail_on_risk: switch(args.fail_on_risk, args.no_fail_on_risk, &file.fail_on_risk),
    }
}

/// The flags given that set what `ragdiff.toml`'s `[gate]` keys, and the `[compare]`
/// keys that move a p or a verdict, would set, plus `--no-gate`, each once as
/// written, in the order of those keys (docs/contract.md §8.6, §9.2). A reviewer who
/// reads `no ragdiff.toml: defaults` must not meet a gate the command line changed.
fn policy_flags(a: &CompareArgs) -> Vec<&'static str> {
    [
        ("--max-drop", !a.max_drop.is_empty()),
        ("--max-drop-per-segment", !a.max_drop_per_segment.is_empty()),
        ("--non-inferior", !a.non_inferior.is_empty()),
        (
            "--non-inferior-per-segment",
            !a.non_inferior_per_segment.is_empty(),
        ),
        ("--fail-on-significant-drop", a.fail_on_significant_drop),
        (
            "--no-fail-on-significant-drop",
            a.no_fail_on_significant_drop,
        ),
        ("--suspects", a.suspects.is_some()),
        ("--strict-flaky", a.strict_flaky),
        ("--no-strict-flaky", a.no_strict_flaky),
        ("--min-rbo", a.min_rbo.is_some()),
        ("--allow-failed", !a.allow_failed.is_empty()),
        ("--allow-failed-file", a.allow_failed_file.is_some()),
        ("--require-frozen", a.require_frozen),
        ("--no-require-frozen", a.no_require_frozen),
        ("--min-segment-queries", a.min_segment_queries.is_some()),
        ("--nondeterminism", a.nondeterminism.is_some()),
        ("--unconfirmed", a.unconfirmed.is_some()),
        ("--primary", a.primary.is_some()),
        ("--inconclusive", a.inconclusive.is_some()),
        ("--errored", a.errored.is_some()),
        ("--max-latency-increase", !a.max_latency_increase.is_empty()),
        ("--fail-on-risk", a.fail_on_risk),
        ("--no-fail-on-risk", a.no_fail_on_risk),
        ("--resamples", a.resamples.is_some()),
        ("--seed", a.seed.is_some()),
        ("--rbo-p", a.rbo_p.is_some()),
        ("--segment-correction", a.segment_correction.is_some()),
        ("--risk-alpha", !a.risk_alpha.is_empty()),
        ("--no-gate", a.no_gate),
    ]
    .into_iter()
    .filter_map(|(flag, given)| given.then_some(flag))
    .collect()
}

/// A policy value, its line dropped.
fn value<T: Clone>(l: &Option<Located<T>>) -> Option<T> {
    l.as_ref().map(|l| l.value.clone())
}

/// A boolean: `--KEY` or `--no-KEY` (the last given wins, by clap), else the file's
/// value, else false.
fn switch(on: bool, off: bool, file: &Option<Located<bool>>) -> bool {
    if on || off {
        on
    } else {
        value(file).unwrap_or(false)
    }
}

/// `--max-latency-increase` over the policy file's `max_latency_increase`: a flag
/// replaces the file's limit of its statistic (docs/contract.md §6.9); every malformed
/// flag is a usage problem.
fn latency_limits(
    args: &CompareArgs,
    file: &GateKeys,
    diag: &mut Diagnostics,
) -> Vec<crate::model::latency::LatencyLimit> {
    let flags: Vec<_> = args
        .max_latency_increase
        .iter()
        .filter_map(|given| {
            given
                .0
                .as_ref()
                .map_err(|message| diag.usage(message.clone()))
                .ok()
                .copied()
        })
        .collect();
    let mut out: Vec<_> = value(&file.max_latency_increase)
        .unwrap_or_default()
        .into_iter()
        .filter(|l| !flags.iter().any(|f| f.stat == l.stat))
        .collect();
    out.extend(flags);
    out
}

/// The policy that applies: `--config FILE`, none with `--no-config`, else the nearest
/// `ragdiff.toml` from the working directory up to the git root (outside a git
/// repository: the working directory only). Its problems are input errors (exit 2).
pub fn find_policy(config: &ConfigArgs, diag: &mut Diagnostics) -> Option<PolicyFile> {
    if config.no_config {
        return None;
    }
    let path = match &config.config {
        Some(p) => p.clone(),
        None => discover_policy()?,
    };
    load::policy::read(&path, diag)
}

/// The nearest `ragdiff.toml`, as a path relative to the working directory.
fn discover_policy() -> Option<PathBuf> {
    // Anything by the name, not only a regular file: a directory, a FIFO or a link
    // to /dev/null in its place is refused when read (exit 2), never skipped for the
    // defaults (docs/contract.md §8.6).
    policy_places()
        .into_iter()
        .find(|p| p.symlink_metadata().is_ok())
}

/// Where a `ragdiff.toml` is looked for, nearest first, relative to the working
/// directory: `ragdiff.toml`, `../ragdiff.toml`, … up to the git root (the first
/// folder holding `.git`); outside a git repository the working directory's only.
pub fn policy_places() -> Vec<PathBuf> {
    let Ok(cwd) = std::env::current_dir() else {
        return vec![PathBuf::from(load::policy::FILE_NAME)];
    };
    let in_git = cwd.ancestors().any(|d| d.join(".git").exists());
    let mut places = Vec::new();
    let mut rel = PathBuf::new();
    for dir in cwd.ancestors() {
        places.push(rel.join(load::policy::FILE_NAME));
        if !in_git || dir.join(".git").exists() {
            break;
        }
        rel.push("..");
    }
    places
}

/// The runs to compare: the positional ones, else the policy file's (a side it does
/// not name takes the default path), else none (the defaults, below).
fn runs_given(runs: Vec<PathBuf>, file: &PolicyFile) -> Vec<PathBuf> {
    if !runs.is_empty() {
        return runs;
    }
    if let (Some(b), Some(c)) = (&file.baseline, &file.candidate) {
        return vec![b.value.clone(), c.value.clone()];
    }
    if file.baseline.is_some() || file.candidate.is_some() {
        let or =
            |p: &Option<Located<PathBuf>>, d: &str| value(p).unwrap_or_else(|| PathBuf::from(d));
        return vec![
            or(&file.baseline, load::DEFAULT_BASELINE),
            or(&file.candidate, load::DEFAULT_CANDIDATE),
        ];
    }
    runs
}

/// The two run manifests: those given, else the defaults; each must be a manifest.
fn run_manifests(runs: Vec<PathBuf>, diag: &mut Diagnostics) -> Side<PathBuf> {
    let runs = match <[PathBuf; 2]>::try_from(runs) {
        Ok(runs) => Side::from(runs),
        // clap takes exactly two or none.
        Err(_) => Side::new(
            load::DEFAULT_BASELINE.into(),
            load::DEFAULT_CANDIDATE.into(),
        ),
    };
    for p in &runs {
        if !load::manifest::is_manifest(p) {
            diag.usage(format!(
                "{}: compare takes run manifests (.toml): their corpus, filters and depth say whether two runs are comparable",
                p.display()
            ));
        }
    }
    runs
}

impl Compare {
    /// Every usage problem at once (exit 2): outputs, `METRIC=VALUE` flags, run paths
    /// that are not manifests, drift flags.
    pub fn new(args: CompareArgs) -> Result<Self, InvalidInput> {
        let outputs = Outputs::new(&args)?;
        let policy_flags = policy_flags(&args);
        let mut diag = Diagnostics::default();
        let policy = find_policy(&args.config, &mut diag);
        diag.check()?;
        let policy_places = match (&policy, &args.config.config) {
            (None, None) => policy_places()
                .into_iter()
                .filter(|p| p.symlink_metadata().is_err())
                .collect(),
            _ => Vec::new(),
        };
        let empty = PolicyFile::default();
        let file = policy.as_ref().unwrap_or(&empty);
        let (g, c) = (&file.gate, &file.compare);
        let cutoffs = if args.cutoffs.is_empty() {
            sorted_cutoffs(&value(&c.cutoffs).unwrap_or_default())
        } else {
            sorted_cutoffs(&args.cutoffs)
        };
        let measures = compare_measures(&args.measures, file, &mut diag);
        let release_memory =
            cutoffs.is_empty() && measures.is_empty() && !outputs.wants_label_queue();
        let gate = gate_policy(&args, file, &mut diag);
        let runs = run_manifests(runs_given(args.runs, file), &mut diag);
        let rbo_p = args.rbo_p.or(value(&c.rbo_p)).unwrap_or(0.9);
        check_drift_flags(rbo_p, gate.min_rbo, &mut diag);
        let risk_alphas = risk_alphas(&args.risk_alpha, &c.risk_alpha, &mut diag);
        let primary = primary(args.primary.as_deref(), file, &mut diag);
        diag.check()?;
        Ok(Self {
            columns: args.columns.as_deref().map(parse_columns).transpose()?,
            gold: args.gold.gold.or(value(&file.gold)),
            runs,
            k: args.k,
            outputs,
            resampling: Resampling {
                // 0: each test's count follows its moved queries (docs/contract.md §7).
                resamples: args.resamples.or(value(&c.resamples)).unwrap_or(0),
                seed: args.seed.or(value(&c.seed)).unwrap_or(0),
            },
            gate,
            allow_failed: AllowFailed {
                ids: args.allow_failed,
                file: args.allow_failed_file.or(value(&g.allow_failed_file)),
            },
            changed_since: args.changed_since,
            require_frozen: switch(
                args.require_frozen,
                args.no_require_frozen,
                &g.require_frozen,
            ),
            primary,
            min_segment_queries: args
                .min_segment_queries
                .or(value(&g.min_segment_queries))
                .unwrap_or(10) as usize,
            segment_correction: args.segment_correction.unwrap_or(
                match value(&c.segment_correction).as_deref() {
                    Some("bh") => crate::stats::Correction::Bh,
                    _ => crate::stats::Correction::Holm,
                },
            ),
            rbo_p,
            risk_alphas,
            depth: args.depth.or(value(&c.depth)),
            cutoffs,
            measures,
            release_memory,
            policy,
            policy_flags,
            policy_places,
            titles: args.titles,
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

/// The risk alphas (docs/contract.md §7.4): the flags', else the file's, else 1, 2
/// and 5; each from 0 to 1000 (a flag's other value is a usage problem), each once.
fn risk_alphas(
    flags: &[f64],
    file: &Option<Located<Vec<f64>>>,
    diag: &mut Diagnostics,
) -> Vec<f64> {
    use crate::compare::risk::DEFAULT_ALPHAS;
    let max = load::policy::MAX_RISK_ALPHA;
    for a in flags.iter().filter(|a| !(0.0..=max).contains(*a)) {
        diag.usage(format!(
            "--risk-alpha {a}: alpha must be a number from 0 to 1000 (a loss weighs 1 + alpha times a gain), like 1, 2 or 5"
        ));
    }
    let given = match (flags, value(file)) {
        ([], Some(file)) => file,
        ([], None) => DEFAULT_ALPHAS.to_vec(),
        (flags, _) => flags.to_vec(),
    };
    let mut out: Vec<f64> = Vec::with_capacity(given.len());
    for a in given {
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// `accept`'s settings: the ids, the reason, the allow-list, and the comparison they
/// newly failed in (read as `compare` reads it, defaults included) or the report
/// that says so (docs/contract.md §8.5).
#[derive(Debug)]
pub struct Accept {
    pub ids: Vec<String>,
    pub reason: String,
    pub list: PathBuf,
    pub from_report: Option<PathBuf>,
    pub compare: Compare,
}

/// The allow-list used when none is named.
pub const DEFAULT_ALLOW_LIST: &str = "runs/accepted-failures.csv";

impl Accept {
    pub fn new(args: crate::cli::AcceptArgs) -> Result<Self, InvalidInput> {
        if args.reason.trim().is_empty() {
            return Err(InvalidInput::usage(
                "--reason is empty; say why these failures are accepted",
            ));
        }
        if crate::validate::has_control(&args.reason) {
            return Err(InvalidInput::usage(
                "--reason holds a control character (a newline, tab or similar); write it on one line",
            ));
        }
        // The allow-list: the flag's, else the policy's, else the default.
        let mut diag = Diagnostics::default();
        let policy = find_policy(&args.config, &mut diag);
        diag.check()?;
        let list = args
            .allow_failed_file
            .or_else(|| {
                policy
                    .as_ref()
                    .and_then(|p| value(&p.gate.allow_failed_file))
            })
            .unwrap_or_else(|| PathBuf::from(DEFAULT_ALLOW_LIST));
        // The comparison exactly as `compare` would run it: its own flags' defaults
        // and the same policy file.
        let mut argv: Vec<std::ffi::OsString> = vec!["compare".into()];
        if let Some(p) = &policy {
            argv.extend(["--config".into(), p.path.clone().into_os_string()]);
        } else {
            argv.push("--no-config".into());
        }
        if let Some(g) = args.gold.gold {
            argv.extend(["--gold".into(), g.into_os_string()]);
        }
        if let Some(k) = args.k {
            argv.extend(["--k".into(), k.to_string().into()]);
        }
        if list.exists() {
            argv.extend(["--allow-failed-file".into(), list.clone().into_os_string()]);
        }
        if args.baseline.is_some() || args.candidate.is_some() {
            let or = |p: Option<PathBuf>, d: &str| p.unwrap_or_else(|| PathBuf::from(d));
            argv.push(or(args.baseline, load::DEFAULT_BASELINE).into_os_string());
            argv.push(or(args.candidate, load::DEFAULT_CANDIDATE).into_os_string());
        }
        use clap::{Args as _, FromArgMatches as _};
        let matches = CompareArgs::augment_args(clap::Command::new("compare"))
            .try_get_matches_from(argv)
            .map_err(|e| InvalidInput::usage(e.to_string()))?;
        let compare = CompareArgs::from_arg_matches(&matches)
            .map_err(|e| InvalidInput::usage(e.to_string()))?;
        Ok(Self {
            ids: args.ids,
            reason: args.reason.trim().to_string(),
            list,
            from_report: args.from_report,
            compare: Compare::new(compare)?,
        })
    }
}
