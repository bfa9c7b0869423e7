//! `record` (docs/contract.md §4.8): flags checked, the gold and its questions
//! read, the retriever asked, the run written as one atomic set.

use std::path::{Path, PathBuf};

use crate::app::print_warnings;
use crate::exit::{self, RetrieverFailed};
use crate::load;
use crate::model::GoldSet;
use crate::record::http;
use crate::record::questions::{self, QueriesFormat, Question};
use crate::record::write::{self, Paths, RunInfo};
use crate::record::{self as rec, Outcome, Reach, Tally};
use crate::settings::record::{Record, Via};
use crate::text::eprintln;
use crate::validate::{Diagnostics, Location, ProblemKind};

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

pub fn run(s: Record) -> anyhow::Result<u8> {
    let mut diag = Diagnostics::default();
    let append = s.append_repeat.as_ref().and_then(|m| {
        write::Append::read(
            m,
            s.index_version.as_deref(),
            s.depth_flag,
            s.filters_from.as_deref(),
            &s.filters,
            &mut diag,
        )
    });
    let paths = match &append {
        Some(a) => a.paths(),
        None => Paths::beside(&s.out, s.results_format, s.repeats),
    };
    let depth = append.as_ref().map_or(s.depth, |a| a.depth);
    let filters = append
        .as_ref()
        .map_or_else(|| s.filters.clone(), |a| a.filters.clone());
    let gold_path = load::gold_or_default(s.gold.clone(), &mut diag);
    diag.check()?;
    let gold = gold_path.and_then(|p| load::load_gold(&p, false, &[], &mut diag));
    let gold = diag.require(gold)?;
    let source = gold_questions(&gold, s.field, &mut diag);
    check_outputs(&paths, &gold, source.file.as_deref(), &s)?;
    let unlabelled = match &s.include_unlabelled {
        Some(p) => questions::read_file(p, s.field, &mut diag),
        None => Vec::new(),
    };
    diag.check()?;
    let questions =
        rec::questions_for(&gold, source.questions, &source.name, unlabelled, &mut diag);
    diag.check()?;
    print_warnings(&diag.warnings);
    let mut reach = Reach {
        concurrency: s.concurrency as usize,
        timeout: s.timeout,
        depth,
        filters: filters.clone(),
        log: s.retriever_log.clone(),
        append_log: false,
    };
    let repeats = ask_every_repeat(&s.via, &mut reach, &questions, &s)?;
    let outcomes = &repeats[0];
    let errored = errored_in_any(&questions, &repeats);
    let info = RunInfo {
        index_version: append.as_ref().map_or_else(
            || s.index_version.clone().unwrap_or_default(),
            |a| a.index_version.clone(),
        ),
        corpus: gold.meta.corpus.clone(),
        depth,
        filters,
        format: append.as_ref().map_or(s.results_format, |a| a.format),
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
    s: &Record,
) -> anyhow::Result<Vec<Vec<Outcome>>> {
    let mut repeats = Vec::with_capacity(s.repeats as usize);
    crate::interrupt::asking(true);
    for _ in 0..s.repeats {
        let asked = ask(via, reach, questions, s);
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
    s: &Record,
) -> anyhow::Result<Vec<Outcome>> {
    let tally = Tally::new(questions.len(), s.quiet);
    let outcomes = match via {
        Via::Command(program) => rec::command::run(program, reach, questions, &tally),
        Via::Http(target) => Ok(http::run(target, reach, questions, &tally)),
    };
    tally.finish();
    if outcomes.is_err() && crate::interrupt::stopping() {
        // A failure during a signal's drain: the signal's exit code, not exit 4.
        rec::command::wait_for_the_end();
    }
    let outcomes = outcomes?;
    let errored = errored_ids(questions, &outcomes);
    if errored.len() > s.allow_errors as usize {
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

/// No output (the run's files, the retriever log) may overwrite an input: the policy
/// file, the gold's files, its queries file, the unlabelled questions, the POST
/// template, or the files of a run `compare` reads other than the one written here
/// (docs/contract.md §4.8).
fn check_outputs(
    paths: &Paths,
    gold: &GoldSet,
    queries: Option<&Path>,
    s: &Record,
) -> anyhow::Result<()> {
    let compared = compared_files(&s.compared, &paths.manifest);
    let mut inputs: Vec<&Path> = vec![&gold.meta.data];
    inputs.extend(gold.meta.manifest.as_deref());
    inputs.extend(gold.meta.tags_file.iter().map(|t| t.path.as_path()));
    inputs.extend(queries);
    inputs.extend(s.policy_file.as_deref());
    inputs.extend(compared.iter().map(PathBuf::as_path));
    if let Some(u) = &s.include_unlabelled {
        inputs.push(u);
    }
    if let Some(b) = &s.http_body {
        inputs.push(b);
    }
    let manifest = match s.append_repeat {
        Some(_) => "--append-repeat",
        None => "--out",
    };
    let mut outputs: Vec<(&str, &Path)> = vec![(manifest, &paths.manifest)];
    outputs.extend(paths.results.iter().map(|r| ("results", r.as_path())));
    if let Some(l) = &paths.latency {
        outputs.push(("latency", l));
    }
    // The log is an output too: never an input, a FIFO or a device (§4.8).
    if let Some(log) = &s.retriever_log {
        outputs.push(("--retriever-log", log));
    }
    crate::output::check_exports(&outputs, &inputs)?;
    Ok(())
}

/// Every file of the compared runs (manifest, results, latency, chunk map) but those
/// of the run at `writing`, which this recording replaces or adds to. A manifest that
/// cannot be read yet protects itself only.
fn compared_files(compared: &[PathBuf], writing: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for manifest in compared {
        if crate::output::same_path(manifest, writing) {
            continue;
        }
        files.push(manifest.clone());
        let mut diag = Diagnostics::default();
        let Some(meta) = load::manifest::read(manifest, &mut diag)
            .and_then(|doc| load::manifest::run(&doc, &mut diag))
        else {
            continue;
        };
        files.push(meta.results);
        files.extend(meta.more_results.into_iter().map(|(_, p)| p));
        files.extend(meta.recording.latency.map(|(_, p)| p));
        files.extend(meta.doc_map.map(|(_, p)| p));
    }
    files
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
