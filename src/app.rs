//! One function per subcommand, wiring load -> validate -> metrics -> compare ->
//! gate -> report. No logic of its own beyond choosing inputs and defaults.

use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command, EvalArgs, EvalFormat, FreezeArgs, ValidateArgs};
use crate::load::{self, gold, manifest, run};
use crate::model::{EvaluatedRun, GoldMeta, GoldSet, RunMeta};
use crate::progress;
use crate::validate::{Diagnostics, InvalidInput, Location, ProblemKind};
use crate::{eval, exit, output, report};

/// The runs are not comparable (exit 3); every difference is listed.
#[derive(Debug)]
pub struct Refused {
    /// What is refused: "compare: the runs are" or "evaluate: the run is".
    pub what: &'static str,
    pub differences: Vec<String>,
}

impl Refused {
    pub const COMPARE: &str = "to compare: the runs are not comparable";
    pub const EVAL: &str = "to evaluate: the run does not answer the gold's questions";

    /// Refuse (exit 3), unless the runs hold input problems of their own (exit 2
    /// wins): they are read for their structure only, since against another corpus
    /// "query not in the gold" would bury the real reason.
    pub fn after_reading(self, metas: Vec<RunMeta>, diag: &mut Diagnostics) -> anyhow::Error {
        let stand_in = GoldSet::stand_in(GoldMeta::placeholder());
        read_runs(metas, &stand_in, &[], diag);
        if diag.has_problems() {
            eprintln!("note: {self}");
            if let Err(invalid) = diag.check() {
                return invalid.into();
            }
        }
        self.into()
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "refusing {}", self.what)?;
        for d in &self.differences {
            write!(f, "\n  {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Refused {}

/// The exit code an error stands for.
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<Refused>().is_some() {
        exit::REFUSED
    } else {
        exit::INVALID_INPUT
    }
}

/// A closed stdout (`ragdiff … | head`) is not an error.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

pub fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Compare(args) => crate::compare::app::run(args),
        Command::Eval(args) => eval_cmd(args),
        Command::Validate(args) => validate_cmd(args),
        Command::Freeze(args) => freeze_cmd(args),
    }
}

/// Print warnings to stderr, ids only; under GitHub Actions as workflow commands,
/// so they show on the run's summary page.
pub fn print_warnings(warnings: &[String]) {
    let actions = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    for w in warnings {
        if actions {
            eprintln!("::warning title=ragdiff::{}", report::escape_data(w));
        } else {
            eprintln!("warning: {w}");
        }
    }
}

/// The gold path given, or the default one.
pub fn gold_path(arg: Option<PathBuf>, diag: &mut Diagnostics) -> Option<PathBuf> {
    arg.or_else(|| load::default_gold(diag))
}

/// Load the gold set (manifest or bare file), checking its sha256 and, under
/// `require_frozen`, that it is frozen.
pub fn load_gold(
    path: &Path,
    require_frozen: bool,
    extra_ok: &[&str],
    diag: &mut Diagnostics,
) -> Option<GoldSet> {
    let meta = load::gold_meta(path, diag)?;
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
    let gold = gold::load(meta, extra_ok, diag)?;
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

/// Resolve k: the gold's pinned k, else `--k`, else the depth; check 1 <= k <= depth
/// when the depth was declared.
pub fn resolve_k(
    gold: &GoldSet,
    cli_k: Option<u32>,
    run: &RunMeta,
    location: &str,
    diag: &mut Diagnostics,
) -> Option<u32> {
    let k = match (gold.meta.k, cli_k) {
        (Some(pinned), Some(_)) => {
            diag.problem(Location::file("usage"), ProblemKind::KPinned { k: pinned });
            return None;
        }
        (Some(k), None) | (None, Some(k)) => k,
        (None, None) => run.depth.max(1),
    };
    if run.depth_declared && k > run.depth {
        diag.problem(
            Location::file(location),
            ProblemKind::KAboveDepth {
                k,
                depth: run.depth,
            },
        );
        return None;
    }
    Some(k)
}

/// Read runs in parallel, one thread each, with one progress bar for all.
pub fn read_runs(
    metas: Vec<RunMeta>,
    gold: &GoldSet,
    extra_ok: &[&str],
    diag: &mut Diagnostics,
) -> Vec<Option<EvaluatedRun>> {
    let paths: Vec<&Path> = metas.iter().map(|m| m.results.as_path()).collect();
    let bar = progress::Bytes::new(&paths);
    let inc = |n: u64| bar.inc(n);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = metas
            .into_iter()
            .map(|meta| s.spawn(|| run::read(meta, gold, extra_ok, &inc)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a run reader thread panicked"))
            .collect()
    });
    bar.finish();
    results
        .into_iter()
        .map(|(run, d, version)| {
            diag.problems.extend(d.problems);
            diag.warnings.extend(d.warnings);
            diag.dropped.extend(d.dropped);
            diag.stopped.extend(d.stopped);
            run.map(|mut r| {
                if r.meta.index_version.is_none() {
                    r.meta.index_version = version.and_then(|v| semver::Version::parse(&v).ok());
                }
                r
            })
        })
        .collect()
}

fn eval_cmd(args: EvalArgs) -> anyhow::Result<u8> {
    let mut diag = Diagnostics::default();
    let (gold_arg, run_path, one_file) = match (args.gold.gold, args.inputs.as_slice()) {
        (Some(g), [run]) => (Some(g), run.clone(), false),
        (Some(_), _) => return Err(InvalidInput::usage("with --gold, eval takes one RUN").into()),
        (None, [gold, run]) => (Some(gold.clone()), run.clone(), false),
        (None, [single]) if load::is_one_file(single) => {
            (Some(single.clone()), single.clone(), true)
        }
        (None, [run]) => (None, run.clone(), false),
        _ => unreachable!("clap takes 1 or 2 inputs"),
    };
    let (gold_extra, run_extra) = if one_file {
        (load::ONE_FILE_GOLD_EXTRA, load::ONE_FILE_RUN_EXTRA)
    } else {
        (&[][..], &[][..])
    };
    let gold_path = gold_path(gold_arg, &mut diag);
    let run_meta = load::run_meta(&run_path, &mut diag);
    let gold = gold_path.and_then(|p| load_gold(&p, args.require_frozen, gold_extra, &mut diag));
    let (Some(gold), Some(run_meta)) = (gold, run_meta) else {
        diag.check()?;
        unreachable!("a missing input always records a problem");
    };
    if let (Some(gc), Some(rc)) = (&gold.meta.corpus, &run_meta.corpus)
        && gc != rc
    {
        diag.check()?;
        let refused = Refused {
            what: Refused::EVAL,
            differences: vec![format!(
                "corpus:  gold {gc}, run {rc} (the run answered other questions)"
            )],
        };
        return Err(refused.after_reading(vec![run_meta], &mut diag));
    }
    let run_display = run_path.display().to_string();
    let mut runs = read_runs(vec![run_meta], &gold, run_extra, &mut diag);
    // After reading: a bare results file's depth is its longest list.
    let k = runs
        .first()
        .and_then(Option::as_ref)
        .and_then(|run| resolve_k(&gold, args.k, &run.meta, &run_display, &mut diag));
    diag.check()?;
    let run = runs
        .pop()
        .flatten()
        .expect("no problems means the run was read");
    let k = k.expect("no problems means k was resolved");
    print_warnings(&diag.warnings);
    let report = eval::build(&gold, &run, k, diag.warnings);
    match args.format {
        EvalFormat::Json => output::write_files(&[Path::new("-")], |_, out| {
            report::json::write(&report, out)
        })?,
        EvalFormat::Table => output::stdout(&report::table::render_eval(&report))?,
    };
    Ok(exit::SUCCESS)
}

fn validate_cmd(args: ValidateArgs) -> anyhow::Result<u8> {
    let mut diag = Diagnostics::default();
    let runs: Vec<PathBuf> = if args.runs.is_empty() {
        [load::DEFAULT_BASELINE, load::DEFAULT_CANDIDATE]
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.exists())
            .collect()
    } else {
        args.runs.clone()
    };
    let one_file = args.gold.gold.is_none() && runs.len() == 1 && load::is_one_file(&runs[0]);
    let (gold_arg, gold_extra, run_extra) = if one_file {
        (
            Some(runs[0].clone()),
            load::ONE_FILE_GOLD_EXTRA,
            load::ONE_FILE_RUN_EXTRA,
        )
    } else {
        (args.gold.gold.clone(), &[][..], &[][..])
    };
    let gold_path = gold_path(gold_arg, &mut diag);
    let metas: Vec<Option<RunMeta>> = runs.iter().map(|p| load::run_meta(p, &mut diag)).collect();
    let gold = gold_path
        .as_ref()
        .and_then(|p| load_gold(p, args.require_frozen, gold_extra, &mut diag));
    // A gold that failed to load is stood in for, so the runs' own problems are
    // listed too.
    let gold_ok = gold.is_some();
    let gold = gold.unwrap_or_else(|| GoldSet::stand_in(GoldMeta::placeholder()));
    let mut ok_metas = Vec::new();
    let mut ok_paths = Vec::new();
    for (path, meta) in runs.iter().zip(metas) {
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
    let read = read_runs(ok_metas, &gold, run_extra, &mut diag);
    if gold_ok {
        for (run, path) in read.iter().zip(&ok_paths) {
            if let Some(run) = run {
                resolve_k(&gold, args.k, &run.meta, path, &mut diag);
            }
        }
    }
    print_warnings(&diag.warnings);
    diag.check()?;
    let gold_name = gold_path
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    output::stdout(&format!(
        "ok: {gold_name} and {checked} run{} are valid\n",
        if checked == 1 { "" } else { "s" }
    ))?;
    Ok(exit::SUCCESS)
}

fn freeze_cmd(args: FreezeArgs) -> anyhow::Result<u8> {
    let mut diag = Diagnostics::default();
    let Some(path) = gold_path(args.gold, &mut diag) else {
        diag.check()?;
        unreachable!();
    };
    if !manifest::is_manifest(&path) {
        return Err(InvalidInput::usage(format!(
            "freeze needs a gold manifest (.toml), not {}",
            path.display()
        ))
        .into());
    }
    let Some(doc) = manifest::read(&path, &mut diag) else {
        diag.check()?;
        unreachable!();
    };
    let meta = manifest::gold(&doc, &mut diag);
    diag.check()?;
    let meta = meta.expect("no problems means the manifest was read");
    let display = path.display().to_string();
    let bytes = manifest::read_file(
        &meta.data,
        "gold data",
        &meta.data.display().to_string(),
        &mut diag,
    );
    let mut unchecked = meta.clone();
    unchecked.sha256 = None;
    gold::load(unchecked, &[], &mut diag);
    diag.check()?;
    let actual = gold::sha256_hex(&bytes.expect("no problems means the data was read"));
    let Some(version) = meta.version.clone() else {
        unreachable!("version is required in a manifest");
    };
    if let Some(recorded) = &meta.sha256 {
        if *recorded == actual && meta.frozen_version.as_ref() == Some(&version) {
            output::stdout(&format!(
                "{display}: already frozen at version {version} (sha256 {})\n",
                &actual[..12]
            ))?;
            return Ok(exit::SUCCESS);
        }
        let raised = meta.frozen_version.as_ref().is_some_and(|f| version > *f);
        if *recorded != actual && !raised {
            return Err(InvalidInput::one(
                Location::file(&display),
                ProblemKind::VersionNotRaised {
                    version: version.to_string(),
                    frozen: meta
                        .frozen_version
                        .map_or_else(|| "(none recorded)".to_string(), |v| v.to_string()),
                },
            )
            .into());
        }
    }
    let mut doc = doc.doc.into_mut();
    doc["sha256"] = toml_edit::value(actual.clone());
    doc["frozen_version"] = toml_edit::value(version.to_string());
    if doc.get("frozen_at").is_none() {
        doc["frozen_at"] = toml_edit::value(today());
    }
    output::write(&path, &doc.to_string())?;
    output::stdout(&format!(
        "{display}: frozen at version {version} (sha256 {})\n",
        &actual[..12]
    ))?;
    Ok(exit::SUCCESS)
}

/// Today's date (UTC) as YYYY-MM-DD, from the days since 1970-01-01.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    civil_date((secs / 86_400) as i64)
}

/// Howard Hinnant's days-to-civil algorithm.
pub fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
