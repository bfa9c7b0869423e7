//! `record` (docs/contract.md §4.8): flags checked, the gold and its questions
//! read, the retriever asked, the run written as one atomic set.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::app::print_warnings;
use crate::cli::{RecordArgs, TopicField};
use crate::exit::{self, RetrieverFailed};
use crate::load;
use crate::model::GoldSet;
use crate::record::http;
use crate::record::questions::{self, QueriesFormat, Question};
use crate::record::write::{self, Paths, RunInfo};
use crate::record::{self as rec, Outcome, Reach, Tally};
use crate::text::eprintln;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// The flags, checked: what cannot be used is a usage problem (exit 2).
struct Flags {
    via: Via,
    filters: BTreeMap<String, String>,
    timeout: Duration,
    field: questions::TopicField,
}

/// How the retriever is reached.
enum Via {
    Command(Vec<String>),
    Http(Box<http::Target>),
}

fn flags(args: &RecordArgs, diag: &mut Diagnostics) -> Flags {
    let via = match (&args.command, &args.http) {
        (Some(command), _) => Via::Command(match shlex::split(command) {
            Some(argv) if !argv.is_empty() => argv,
            _ => {
                diag.usage("--command: give the retriever as \"CMD ARGS…\" (quotes balanced; split as a POSIX shell would, run without a shell)");
                Vec::new()
            }
        }),
        (None, _) => Via::Http(Box::new(http_target(args, diag))),
    };
    if let Some(v) = &args.index_version
        && semver::Version::parse(v).is_err()
    {
        diag.usage(format!(
            "--index-version {}: not a semantic version such as 1.4.0",
            crate::text::shown(v)
        ));
    }
    let mut filters = BTreeMap::new();
    for f in &args.filter {
        match f.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                filters.insert(k.trim().to_string(), v.trim().to_string());
            }
            _ => diag.usage(format!(
                "--filter {}: expected KEY=VALUE",
                crate::text::shown(f)
            )),
        }
    }
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= 86_400.0) {
        diag.usage("--timeout: seconds above 0, at most 86400");
    }
    let field = match args.topic_field {
        TopicField::Title => questions::TopicField::Title,
        TopicField::Desc => questions::TopicField::Desc,
    };
    Flags {
        via,
        filters,
        timeout: Duration::from_secs_f64(args.timeout.clamp(0.001, 86_400.0)),
        field,
    }
}

/// The gold's questions, the name a missing question's message gives, and the
/// queries file they came from (an input no output may overwrite).
struct Source {
    questions: Vec<Question>,
    name: String,
    file: Option<std::path::PathBuf>,
}

/// The gold's questions: the queries file its manifest names, else a CSV gold's
/// `question` column.
fn gold_questions(gold: &GoldSet, field: questions::TopicField, diag: &mut Diagnostics) -> Source {
    if let Some(m) = &gold.meta.manifest
        && let Some(file) = load::queries::named(m, diag)
    {
        let display = file.path.display().to_string();
        let format = QueriesFormat::of(&file.path, &file.bytes);
        let qs = questions::parse(format, &file.bytes, &display, field, diag);
        return Source {
            questions: qs,
            name: display,
            file: Some(file.path),
        };
    }
    let data = &gold.meta.data;
    let column = (gold.meta.format == crate::model::DataFormat::Csv)
        .then(|| questions::from_csv_gold(data, diag))
        .flatten();
    let (questions, name) = match column {
        Some(qs) => (qs, format!("{}'s question column", data.display())),
        None => {
            diag.problem(
                Location::file(
                    gold.meta
                        .manifest
                        .as_deref()
                        .unwrap_or(data)
                        .display()
                        .to_string(),
                ),
                ProblemKind::NoQuestions,
            );
            (Vec::new(), String::new())
        }
    };
    Source {
        questions,
        name,
        file: None,
    }
}

pub fn run(args: RecordArgs) -> anyhow::Result<u8> {
    let mut diag = Diagnostics::default();
    let mut f = flags(&args, &mut diag);
    let append = args.append_repeat.as_ref().and_then(|m| {
        write::Append::read(
            m,
            args.index_version.as_deref(),
            &args.filter,
            &f.filters,
            &mut diag,
        )
    });
    let paths = match &append {
        Some(a) => a.paths(),
        None => Paths::beside(&args.out, args.results_format, args.repeats),
    };
    let depth = append.as_ref().map_or(args.depth, |a| a.depth);
    if let Some(a) = &append {
        f.filters = a.filters.clone();
    }
    let gold_path = load::gold_or_default(args.gold.gold.clone(), &mut diag);
    diag.check()?;
    let gold = gold_path.and_then(|p| load::load_gold(&p, false, &[], &mut diag));
    let gold = diag.require(gold)?;
    let source = gold_questions(&gold, f.field, &mut diag);
    check_outputs(&paths, &gold, source.file.as_deref(), &args)?;
    let unlabelled = match &args.include_unlabelled {
        Some(p) => questions::read_file(p, f.field, &mut diag),
        None => Vec::new(),
    };
    diag.check()?;
    let questions =
        rec::questions_for(&gold, source.questions, &source.name, unlabelled, &mut diag);
    diag.check()?;
    print_warnings(&diag.warnings);
    let mut reach = Reach {
        concurrency: args.concurrency as usize,
        timeout: f.timeout,
        depth,
        filters: f.filters.clone(),
        log: args.retriever_log.clone(),
        append_log: false,
    };
    let repeats = ask_every_repeat(&f.via, &mut reach, &questions, &args)?;
    let outcomes = &repeats[0];
    let errored = errored_in_any(&questions, &repeats);
    let info = RunInfo {
        index_version: append.as_ref().map_or_else(
            || args.index_version.clone().unwrap_or_default(),
            |a| a.index_version.clone(),
        ),
        corpus: gold.meta.corpus.clone(),
        depth,
        filters: f.filters,
        format: append.as_ref().map_or(args.results_format, |a| a.format),
        concurrency: reach.concurrency,
        host: host_name(),
        recorded_at: crate::text::utc_timestamp(crate::text::now_secs()),
    };
    match &append {
        Some(a) => a.write(&paths, &info, &questions, outcomes)?,
        None => write::write_run(&paths, &info, &questions, &repeats)?,
    }
    eprintln(&summary(&paths, &questions, outcomes, &errored));
    Ok(exit::SUCCESS)
}

/// Every repeat (`--repeats`), one after the other; a signal meanwhile waits for the
/// requests in flight (docs/contract.md §4.8).
fn ask_every_repeat(
    via: &Via,
    reach: &mut Reach,
    questions: &[Question],
    args: &RecordArgs,
) -> anyhow::Result<Vec<Vec<Outcome>>> {
    let mut repeats = Vec::with_capacity(args.repeats as usize);
    crate::interrupt::asking(true);
    for _ in 0..args.repeats {
        let asked = ask(via, reach, questions, args);
        if asked.is_err() {
            crate::interrupt::asking(false);
        }
        repeats.push(asked?);
        // Every repeat's stderr goes to the one log.
        reach.append_log = true;
    }
    crate::interrupt::asking(false);
    Ok(repeats)
}

/// The ids errored in any repeat, in question order.
fn errored_in_any<'q>(questions: &'q [Question], repeats: &[Vec<Outcome>]) -> Vec<&'q str> {
    questions
        .iter()
        .enumerate()
        .filter(|(i, _)| repeats.iter().any(|r| matches!(r[*i], Outcome::Errored(_))))
        .map(|(_, q)| q.id.as_str())
        .collect()
}

/// One repeat: every question asked once. More errored queries than
/// `--allow-errors` fail the recording (exit 4, nothing written).
fn ask(
    via: &Via,
    reach: &Reach,
    questions: &[Question],
    args: &RecordArgs,
) -> anyhow::Result<Vec<Outcome>> {
    let tally = Tally::new(questions.len(), args.quiet);
    let outcomes = match via {
        Via::Command(argv) => rec::command::run(argv, reach, questions, &tally),
        Via::Http(target) => Ok(http::run(target, reach, questions, &tally)),
    };
    tally.finish();
    if outcomes.is_err() && crate::interrupt::stopping() {
        // A failure during a signal's drain: the signal's exit code, not exit 4.
        rec::command::wait_for_the_end();
    }
    let outcomes = outcomes?;
    let errored = errored_ids(questions, &outcomes);
    if errored.len() > args.allow_errors as usize {
        return Err(RetrieverFailed {
            message: format!(
                "{} errored: {}; nothing was written (--allow-errors N records a run with up to N errored queries, listed in its manifest)",
                crate::text::plural(errored.len(), "query", "queries"),
                reasons(questions, &outcomes)
            ),
            log_tail: Vec::new(),
        }
        .into());
    }
    Ok(outcomes)
}

/// No output (the run's files, the retriever log) may overwrite an input (the
/// gold's files, its queries file, the unlabelled questions).
fn check_outputs(
    paths: &Paths,
    gold: &GoldSet,
    queries: Option<&Path>,
    args: &RecordArgs,
) -> anyhow::Result<()> {
    let mut inputs: Vec<&Path> = vec![&gold.meta.data];
    inputs.extend(gold.meta.manifest.as_deref());
    inputs.extend(gold.meta.tags_file.iter().map(|t| t.path.as_path()));
    inputs.extend(queries);
    if let Some(u) = &args.include_unlabelled {
        inputs.push(u);
    }
    if let Some(b) = &args.http_body {
        inputs.push(b);
    }
    let mut outputs: Vec<(&str, &Path)> = vec![("--out", &paths.manifest)];
    outputs.extend(paths.results.iter().map(|r| ("results", r.as_path())));
    if let Some(l) = &paths.latency {
        outputs.push(("latency", l));
    }
    // The log is an output too: never an input, a FIFO or a device (§4.8).
    if let Some(log) = &args.retriever_log {
        outputs.push(("--retriever-log", log));
    }
    crate::output::check_exports(&outputs, &inputs)?;
    Ok(())
}

fn errored_ids<'q>(questions: &'q [Question], outcomes: &[Outcome]) -> Vec<&'q str> {
    questions
        .iter()
        .zip(outcomes)
        .filter(|(_, o)| matches!(o, Outcome::Errored(_)))
        .map(|(q, _)| q.id.as_str())
        .collect()
}

/// `Q-3 (HTTP 500 (4 tries)), …`: the errored ids with why, at most 10.
fn reasons(questions: &[Question], outcomes: &[Outcome]) -> String {
    let all: Vec<String> = questions
        .iter()
        .zip(outcomes)
        .filter_map(|(q, o)| match o {
            Outcome::Errored(why) => Some(format!("{} ({why})", crate::text::shown(&q.id))),
            Outcome::Answered(_) => None,
        })
        .collect();
    let shown = all
        .iter()
        .take(crate::text::NAMED)
        .cloned()
        .collect::<Vec<_>>();
    format!(
        "{}{}",
        shown.join(", "),
        crate::text::and_more(all.len(), shown.len())
    )
}

/// The `--http` flags, checked (usage problems name flags and variables, never a
/// header's value).
fn http_target(args: &RecordArgs, diag: &mut Diagnostics) -> http::Target {
    let mut pointer = |flag: &str, text: Option<&String>| {
        text.and_then(|t| {
            http::Pointer::parse(t)
                .map_err(|e| diag.usage(format!("{flag} {e}")))
                .ok()
        })
    };
    let ids = pointer("--ids", args.ids.as_ref());
    let scores = pointer("--scores", args.scores.as_ref());
    let mut headers = Vec::new();
    for h in &args.header {
        match h.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() => {
                headers.push((name.trim().to_string(), value.trim().to_string()));
            }
            _ => diag.usage("--header: expected \"Name: value\""),
        }
    }
    for h in &args.header_env {
        match h.split_once('=') {
            Some((name, var)) if !name.trim().is_empty() => match std::env::var(var.trim()) {
                Ok(value) => headers.push((name.trim().to_string(), value)),
                Err(_) => diag.usage(format!(
                    "--header-env {}: the environment variable {} is not set",
                    crate::text::shown(name.trim()),
                    crate::text::shown(var.trim())
                )),
            },
            _ => diag.usage("--header-env: expected NAME=VAR, e.g. Authorization=SEARCH_TOKEN"),
        }
    }
    if args.max_rps.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
        diag.usage("--max-rps: a number of requests a second above 0");
    }
    let url = args.http.clone().unwrap_or_default();
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        diag.usage("--http: a URL template starting with http:// or https://");
    }
    let body = args.http_body.as_ref().and_then(|p| body_template(p, diag));
    http::Target {
        url,
        body,
        ids: ids.unwrap_or_else(|| http::Pointer::parse("/").expect("a pointer")),
        scores,
        headers,
        retries: args.retries,
        max_rps: args.max_rps,
    }
}

/// The POST body template; it must be JSON once filled in.
fn body_template(path: &Path, diag: &mut Diagnostics) -> Option<String> {
    let display = path.display().to_string();
    let bytes = load::fs::read_file(path, "--http-body template", &display, diag)?;
    let text = String::from_utf8(bytes).ok()?;
    let filled = text
        .replace("{question}", "q")
        .replace("{id}", "i")
        .replace("{depth}", "10")
        .replace("{filters}", "{}");
    if serde_json::from_str::<serde_json::Value>(&filled).is_err() {
        diag.usage(format!(
            "--http-body {}: not JSON once its placeholders are filled in; put {{question}} and {{id}} inside strings",
            crate::text::shown(&display)
        ));
        return None;
    }
    Some(text)
}

/// This machine's name, as the manifest's `[record]` records it.
fn host_name() -> String {
    nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .unwrap_or_else(|| "unknown".to_string())
}

/// `recorded 93 queries (0 errored) to runs/candidate.toml …`: counts and paths only.
fn summary(
    paths: &Paths,
    questions: &[Question],
    outcomes: &[Outcome],
    errored: &[&str],
) -> String {
    let latencies: Vec<f64> = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Answered(a) => Some(a.latency_ms),
            Outcome::Errored(_) => None,
        })
        .collect();
    // The percentiles `compare` shows (docs/contract.md §6.9).
    let stats = crate::compare::latency::Summary::of(&latencies);
    let (p50, p95) = stats.map_or((0.0, 0.0), |s| (s.p50, s.p95));
    let mut s = format!(
        "recorded {} to {} (results {})",
        crate::text::plural(questions.len(), "query", "queries"),
        paths.manifest.display(),
        paths
            .results
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !errored.is_empty() {
        s.push_str(&format!(
            "; {} errored: {}",
            errored.len(),
            crate::text::name_ids(errored)
        ));
    }
    s.push_str(&format!("; latency p50 {p50:.3} ms, p95 {p95:.3} ms"));
    s
}
