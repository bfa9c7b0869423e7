//! `compare`: inputs -> comparability -> runs (in parallel) -> comparison -> gate ->
//! every requested output.

use std::path::{Path, PathBuf};

use crate::app::{print_warnings, refuse, release_freed_memory};
use crate::compare::drift::Pairing;
use crate::compare::{self, Comparison};
use crate::eval::measures::above_highest_grade;
use crate::exit::{self, Refused};
use crate::gate;
use crate::load::{self, allow};
use crate::model::{GoldSet, ObservedRun, RunMeta, Side};
use crate::output;
use crate::report::{self, CompareReport, Decided};
use crate::settings;
use crate::text::plural;
use crate::validate::{Diagnostics, ProblemKind, resolve_k};

/// The inputs once their manifests are read and checked, before any run is read.
struct Inputs {
    gold: GoldSet,
    metas: Side<RunMeta>,
    k: u32,
    allowed: Vec<crate::model::AllowEntry>,
    block: gate::Blocking,
    changed: Option<crate::model::ChangedInputs>,
    /// The gate's rules at the gold's k (docs/contract.md §5.4).
    policy: gate::Policy,
}

pub fn run(s: settings::Compare) -> anyhow::Result<u8> {
    run_with_report(s).map(|(code, _)| code)
}

/// `run`, keeping the report for `promote` (its history line, §9.11).
pub(super) fn run_with_report(s: settings::Compare) -> anyhow::Result<(u8, CompareReport)> {
    let result = gate(&s);
    if let Err(err) = &result {
        failure_markdown(&s, err);
    }
    result
}

/// The comparison and its outputs; an error is exit 2 or 3.
fn gate(s: &settings::Compare) -> anyhow::Result<(u8, CompareReport)> {
    let phases = crate::app::Phases::start();
    let report = report(s, &phases)?;
    print_warnings(&report.warnings);
    report::emit_ci_annotations(&report);
    write_outputs(&report, &s.outputs)?;
    phases.mark("outputs");
    let code = if report.gate.passed || !report.gate.enforced {
        exit::SUCCESS
    } else {
        exit::GATE_FAILED
    };
    Ok((code, report))
}

/// The comparison and the gate's verdict, as one report (nothing written yet; `accept`
/// builds it too).
pub(super) fn report(
    s: &settings::Compare,
    phases: &crate::app::Phases,
) -> anyhow::Result<CompareReport> {
    let mut diag = Diagnostics::default();
    let inputs = inputs(s, &mut diag)?;
    comparable(&inputs.gold, &inputs.metas, &mut diag)?;
    release_freed_memory();
    phases.mark("inputs");
    let (gold, metas) = (inputs.gold, inputs.metas);
    let same_results = load::same_results(&metas.baseline.results, &metas.candidate.results);
    // Each side keeps its top k's unjudged docs by id: suspects and the label queue
    // need them (docs/contract.md §6.3); memory stays gold x k. Drift pairs the two
    // runs' lists as they are read (§6.5).
    let load::BothRuns { mut runs, pairing } = load::read_both(
        &gold,
        metas,
        inputs.k,
        s.outputs.wants_label_queue(),
        &|| new_pairing(&gold, s.rbo_p),
        &mut diag,
    )?;
    release_freed_memory(); // the reader threads' buffers
    phases.mark("read");
    let phase_done = |phase: &str| phases.mark(phase);
    let gated = inputs.policy.named_measures();
    let segment_gated = inputs.policy.segment_measures();
    let mut opts = options(s, inputs.k, same_results, &phase_done);
    opts.gated = &gated;
    opts.segment_gated = &segment_gated;
    let mut cmp = Comparison::build(&gold, runs.as_mut(), pairing.results(), &opts);
    diag.warnings
        .extend(above_highest_grade(&gold, &opts.computed()));
    confirm_suspects(&gold, &runs.baseline.meta, &mut cmp, phases)?;
    let allowed = gate::AllowList {
        entries: inputs.allowed,
        versions: runs.as_ref().map(|r| version(&r.meta)),
    };
    let policy = inputs.policy.with_gold(allowed, inputs.block);
    let (verdict, accepted, gate_warnings) = gate::decide(&policy, &cmp, inputs.k);
    let mut warnings = std::mem::take(&mut diag.warnings);
    let metas = runs.as_ref().map(|r| &r.meta);
    warnings.extend(cmp.warnings(metas));
    diag.notes.extend(cmp.notes(metas));
    warnings.extend(gate_warnings);
    warnings.extend(cmp.gate_warnings(gates_asked(s), &opts));
    let mut notes = std::mem::take(&mut diag.notes);
    notes.extend(verdict.notes.iter().cloned());
    let decided = Decided {
        verdict,
        accepted,
        warnings,
        notes,
    };
    let queue = s
        .outputs
        .wants_label_queue()
        .then(|| label_queue(&gold, &runs, &cmp))
        .transpose()?;
    let mut report = CompareReport::new(&gold, metas, cmp, decided, s.resampling);
    report.changed_inputs = inputs.changed;
    report.baseline.doc_map = runs.baseline.doc_map.clone();
    report.candidate.doc_map = runs.candidate.doc_map.clone();
    report.name_candidate_doc_map();
    report.accept_hint = accept_hint(&report, s);
    name_policy(&mut report, s);
    report.label_queue = queue.unwrap_or_default();
    report.history = recent_history(&s.runs.baseline, &report.gold, &mut report.warnings);
    report.attach_tags(&gold, s.min_segment_queries);
    report.html = html_extra(s, &gold, &runs, &report)?;
    // The report holds all the outputs need: free the runs and the gold before
    // rendering (memory at its peak otherwise; docs/contract.md §12).
    drop((gold, runs));
    release_freed_memory();
    phases.mark("report");
    Ok(report)
}

/// The last promotions under this gold from `history.jsonl` beside the baseline
/// manifest (docs/contract.md §9.11). No file: none. A file that cannot be read, or a
/// line that does not parse, is a warning, never fatal.
fn recent_history(
    baseline: &Path,
    gold: &report::GoldContext,
    warnings: &mut Vec<String>,
) -> Vec<crate::model::history::HistoryLine> {
    let path = load::history::beside(baseline);
    if path.symlink_metadata().is_err() {
        return Vec::new();
    }
    let mut diag = Diagnostics::default();
    let lines = load::history::read(&path, &mut diag);
    warnings.extend(
        diag.problems
            .iter()
            .map(|p| format!("history not shown: {p}")),
    );
    warnings.extend(diag.warnings);
    report::history::recent(lines, gold)
}

/// What the comparison needs from the settings besides the gold and the runs.
fn options<'a>(
    s: &'a settings::Compare,
    k: u32,
    same_results: bool,
    phase_done: &'a dyn Fn(&str),
) -> compare::Options<'a> {
    compare::Options {
        k,
        resamples: s.resampling.resamples,
        seed: s.resampling.seed,
        min_segment_queries: s.min_segment_queries,
        segment_correction: s.segment_correction,
        rbo_p: s.rbo_p,
        cutoffs: &s.cutoffs,
        measures: &s.measures,
        gated: &[],
        segment_gated: &[],
        same_results,
        primary: s.primary.at_k(k),
        risk_alphas: &s.risk_alphas,
        release: s
            .release_memory
            .then_some(&release_freed_memory as &dyn Fn()),
        phase_done,
    }
}

/// Settle the provisional suspects (docs/contract.md §6.3): an unjudged doc that
/// entered the top k counts only if some baseline repeat returned it for some query,
/// which one more read of the baseline, for those docs' hashes only, tells.
fn confirm_suspects(
    gold: &GoldSet,
    baseline: &RunMeta,
    cmp: &mut Comparison,
    phases: &crate::app::Phases,
) -> anyhow::Result<()> {
    let wanted = cmp.suspects.wanted();
    if !wanted.is_empty() {
        let returned = load::returned_by(baseline, gold, &wanted)?;
        cmp.confirm_suspects(&|h| returned.contains(&h));
    }
    phases.mark("suspects");
    Ok(())
}

/// The policy that applied and the flags that set it over the file or the defaults
/// (docs/contract.md §9.2).
fn name_policy(report: &mut CompareReport, s: &settings::Compare) {
    report.policy = s.policy.as_ref().map(|p| report::PolicyRef {
        path: p.path.display().to_string(),
        sha256: p.sha256.clone(),
    });
    report.policy_flags = s.policy_flags.clone();
}

/// The allow-list lines that would accept the new failures that fail the gate, with
/// a `REASON` placeholder, and the `ragdiff accept` command that writes them (§8.5).
fn accept_hint(report: &CompareReport, s: &settings::Compare) -> Option<report::AcceptHint> {
    let failing = report.gate.causes.iter().find_map(|c| match c {
        gate::Reason::NewlyFailed { ids, .. } => Some(ids),
        _ => None,
    })?;
    // Errored ones are to be recorded again, suspect ones labelled: neither is
    // accepted (docs/contract.md §6.8, §8.5).
    let (errored, rest): (Vec<String>, Vec<String>) = failing
        .iter()
        .cloned()
        .partition(|id| report.candidate.errored.contains(id));
    let (suspect, ids): (Vec<String>, Vec<String>) =
        rest.into_iter().partition(|id| report.suspect.contains(id));
    let ids = &ids;
    let version = report.candidate.index_version.as_deref().unwrap_or("");
    let today = super::accept::today_utc();
    // At most this many lines and ids; the rest are counted (a report stays short).
    const SHOWN: usize = 10;
    let more = ids.len().saturating_sub(SHOWN);
    let mut lines: Vec<String> = ids
        .iter()
        .take(SHOWN)
        .map(|id| allow::line(&[id, "REASON", version, &today]))
        .collect();
    if more > 0 {
        lines.push(format!("… and {more} more"));
    }
    let list = s
        .allow_failed
        .file
        .clone()
        .unwrap_or_else(|| settings::DEFAULT_ALLOW_LIST.into());
    let shell = |t: &str| {
        if !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.:/@+".contains(&b))
        {
            t.to_string()
        } else {
            format!("'{}'", t.replace('\'', "'\\''"))
        }
    };
    let mut command = String::from("ragdiff accept");
    for id in ids.iter().take(SHOWN) {
        command.push(' ');
        command.push_str(&shell(id));
    }
    if more > 0 {
        command.push_str(&format!(" … ({more} more ids)"));
    }
    command.push_str(" --reason 'REASON'");
    if let Some(file) = &s.allow_failed.file {
        command.push_str(&format!(
            " --allow-failed-file {}",
            shell(&file.display().to_string())
        ));
    }
    Some(report::AcceptHint {
        list: list.display().to_string(),
        lines,
        command,
        suspect,
        errored,
    })
}

/// A run's index version as its manifest spells it (semver's text is canonical).
fn version(meta: &RunMeta) -> Option<String> {
    meta.index_version.as_ref().map(ToString::to_string)
}

/// Refuse (exit 3) a comparison whose inputs differ in what makes it meaningful
/// (docs/contract.md §6), after any input problem of the runs (exit 2).
fn comparable(gold: &GoldSet, metas: &Side<RunMeta>, diag: &mut Diagnostics) -> anyhow::Result<()> {
    let differences: Vec<String> = compare::differences(gold, &metas.baseline, &metas.candidate)
        .iter()
        .map(ToString::to_string)
        .collect();
    if differences.is_empty() {
        return Ok(());
    }
    let refused = Refused {
        what: Refused::COMPARE,
        differences,
    };
    Err(refuse(refused, metas.clone().into_iter().collect(), diag))
}

/// On exit 2 or 3, `--export-markdown`'s file still gets the refusal or the input
/// problems (docs/contract.md §12.1), so a job summary is never empty; the one
/// output written when the run does not complete. Never over an input: the files the
/// manifests name are looked up again (quietly) and every export checked again.
fn failure_markdown(s: &settings::Compare, err: &anyhow::Error) {
    let Some(export) = s
        .outputs
        .files()
        .find(|e| e.format == report::Format::Markdown)
    else {
        return;
    };
    let (flag, dest) = (export.flag(), export.path());
    let mut quiet = Diagnostics::default();
    let gold = load::gold_or_default(s.gold.clone(), &mut quiet);
    let gold_meta = gold.as_deref().and_then(|g| load::gold_meta(g, &mut quiet));
    let runs: Vec<RunMeta> = s
        .runs
        .iter()
        .filter_map(|r| load::run_meta(r, &mut quiet))
        .collect();
    let mut inputs: Vec<&Path> = s.runs.iter().map(PathBuf::as_path).collect();
    inputs.extend(gold.as_deref());
    if let Some(g) = &gold_meta {
        inputs.push(g.data.as_path());
        inputs.extend(g.tags_file.iter().map(|t| t.path.as_path()));
    }
    for m in &runs {
        inputs.extend(m.results_paths());
        inputs.extend(m.side_files());
    }
    inputs.extend(s.allow_failed.file.as_deref());
    inputs.extend(s.titles.as_deref());
    inputs.extend(s.policy.as_ref().map(|p| p.path.as_path()));
    // Nothing when the exports themselves are refused (a missing folder, an input as
    // a destination): no report is written beside a refused one.
    if output::check_exports(&s.outputs.exports(), &inputs).is_err() {
        return;
    }
    let Some((title, lines)) = failure_lines(err) else {
        return;
    };
    let text = report::markdown::render_failure(&title, &lines);
    if let Err(e) = output::write(dest, &text) {
        crate::text::eprintln(&format!("warning: {flag} {}: {e:#}", dest.display()));
    }
}

/// The heading and the lines of a refusal (exit 3) or of input problems (exit 2);
/// `None` for a failure to write the outputs themselves (they are left as they were).
fn failure_lines(err: &anyhow::Error) -> Option<(String, Vec<String>)> {
    if let Some(refused) = err.downcast_ref::<Refused>() {
        return Some((
            format!("REFUSED (exit 3): refusing {}", refused.what),
            refused.differences.clone(),
        ));
    }
    let invalid = err.downcast_ref::<crate::validate::InvalidInput>()?;
    if invalid
        .problems
        .iter()
        .any(|p| matches!(p.kind, ProblemKind::Write { .. }))
    {
        return None;
    }
    let mut lines: Vec<String> = invalid
        .problems
        .iter()
        .map(|p| {
            if p.location.usage {
                p.kind.to_string()
            } else {
                p.to_string()
            }
        })
        .collect();
    for (file, n) in &invalid.dropped {
        lines.push(format!("{file}: … and {n} more problems not shown"));
    }
    let n = invalid.problems.len()
        + invalid
            .dropped
            .iter()
            .map(|(_, n)| *n as usize)
            .sum::<usize>();
    Some((
        format!(
            "INVALID INPUT (exit 2): {}",
            plural(n, "problem", "problems")
        ),
        lines,
    ))
}

/// Drift's pairing of the two runs' lists by RBO with persistence `p` (§6.5).
fn new_pairing(gold: &GoldSet, p: f64) -> Pairing {
    Pairing::new(
        gold.queries.len(),
        Box::new(move |a, b| crate::metrics::rbo::rbo_ext(a, b, p)),
    )
}

/// The gates asked for that the comparison may leave without a test.
fn gates_asked(s: &settings::Compare) -> compare::GatesAsked {
    let gate = &s.gate;
    compare::GatesAsked {
        per_segment: !gate.non_inferior_per_segment.is_empty()
            || !gate.max_drop_per_segment.is_empty(),
        significant_drop: gate.fail_on_significant_drop.then_some(gate::ALPHA),
    }
}

/// `--depth N` (docs/contract.md §6.1): both sides cut to N, which must not exceed
/// either declared depth.
fn cut_at(metas: &mut Side<RunMeta>, n: u32, diag: &mut Diagnostics) {
    for (side, m) in [
        ("baseline", &metas.baseline),
        ("candidate", &metas.candidate),
    ] {
        if n > m.depth {
            diag.usage(format!(
                "--depth {n} is larger than the {side}'s depth {}; a common depth is at most the smaller declared depth ({})",
                m.depth,
                metas.baseline.depth.min(metas.candidate.depth)
            ));
        }
    }
    metas.baseline.cut = Some(n);
    metas.candidate.cut = Some(n);
    diag.note(format!(
        "compared at depth {n} (baseline {}, candidate {})",
        metas.baseline.depth, metas.candidate.depth
    ));
}

/// Read the gold, both manifests and the allow-list; resolve k; check that no
/// export would overwrite an input. Every problem at once (exit 2).
fn inputs(s: &settings::Compare, diag: &mut Diagnostics) -> anyhow::Result<Inputs> {
    let gold_path = load::gold_or_default(s.gold.clone(), diag);
    let gold = gold_path
        .as_ref()
        .and_then(|p| load::load_gold(p, s.require_frozen, &[], diag));
    let metas = s.runs.as_ref().map(|r| load::run_meta(r, diag));
    let gold = diag.require(gold)?;
    let mut metas = metas.map(|m| diag.require(m)).transpose()?;
    for m in [&mut metas.baseline, &mut metas.candidate] {
        load::with_columns(m, s.columns.as_ref());
    }
    if let Some(n) = s.depth {
        cut_at(&mut metas, n, diag);
    }
    let mut inputs: Vec<&Path> = vec![gold.meta.data.as_path()];
    inputs.extend(gold.meta.manifest.as_deref());
    inputs.extend(gold.meta.tags_file.iter().map(|t| t.path.as_path()));
    for m in &metas {
        inputs.extend(m.results_paths());
        inputs.extend(m.side_files());
        inputs.extend(m.manifest.as_deref());
    }
    inputs.extend(s.allow_failed.file.as_deref());
    inputs.extend(s.titles.as_deref());
    // The policy in use is an input too (docs/contract.md §9.5).
    inputs.extend(s.policy.as_ref().map(|p| p.path.as_path()));
    output::check_exports(&s.outputs.exports(), &inputs)?;
    load::fs::warn_outside_root(&inputs, diag);
    let both = metas.as_ref();
    load::own_files::check(&both.into_array(), &own_files(&gold, both, s), diag);
    let bm = &metas.baseline;
    let k = resolve_k(&gold, s.k, bm, &s.runs.baseline.display().to_string(), diag);
    crate::app::eval::check_cutoffs(&s.cutoffs, bm.compared_depth(), diag);
    let from = crate::model::threshold::KFrom::of(gold.meta.k, s.k);
    let policy = match k.map(|k| s.gate.at_k(k, from)) {
        Some(Ok(policy)) => policy,
        Some(Err(problems)) => {
            for p in problems {
                diag.usage(p);
            }
            s.gate.clone()
        }
        None => s.gate.clone(),
    };
    let mut allowed = allow::check_allowed_ids(&s.allow_failed.ids, &gold, diag);
    if let Some(file) = &s.allow_failed.file {
        allowed.extend(allow::read_allow_file(file, &gold, diag));
    }
    let block = blocking(s, &gold, diag);
    let changed = s
        .changed_since
        .as_deref()
        .and_then(|rev| load::changed::since(rev, &gate_inputs(&gold, bm, s), diag));
    let k = diag.require(k)?;
    Ok(Inputs {
        gold,
        metas,
        k,
        allowed,
        block,
        changed,
        policy,
    })
}

/// The policy's `[gate] block` against the gold: a tag no gold query carries is an
/// input error at the policy's line (docs/contract.md §8.7).
fn blocking(s: &settings::Compare, gold: &GoldSet, diag: &mut Diagnostics) -> gate::Blocking {
    let Some((policy, block)) = s
        .policy
        .as_ref()
        .and_then(|p| Some((p, p.gate.block.as_ref()?)))
    else {
        return gate::Blocking::All;
    };
    gate::Blocking::of(&block.value, gold).unwrap_or_else(|unknown| {
        let mut known: Vec<String> = gold.tags.labels.iter().map(|l| l.to_string()).collect();
        crate::text::sort_natural(&mut known);
        diag.problem(
            crate::validate::Location::at(policy.path.display().to_string(), block.line),
            ProblemKind::UnknownBlockTag { unknown, known },
        );
        gate::Blocking::All
    })
}

/// The inputs `--changed-since` compares with the revision (docs/contract.md §12.1):
/// what the pull request should not change unseen.
fn gate_inputs<'a>(
    gold: &'a GoldSet,
    baseline: &'a RunMeta,
    s: &'a settings::Compare,
) -> Vec<(&'static str, &'a Path)> {
    let mut list = Vec::new();
    list.extend(
        gold.meta
            .manifest
            .iter()
            .map(|p| ("gold manifest", p.as_path())),
    );
    list.push(("gold data", gold.meta.data.as_path()));
    list.extend(
        gold.meta
            .tags_file
            .iter()
            .map(|t| ("tags file", t.path.as_path())),
    );
    list.extend(
        baseline
            .manifest
            .iter()
            .map(|p| ("baseline manifest", p.as_path())),
    );
    list.extend(baseline.results_paths().map(|p| ("baseline results", p)));
    list.extend(
        baseline
            .doc_map
            .iter()
            .map(|(_, p)| ("baseline doc map", p.as_path())),
    );
    list.extend(
        baseline
            .recording
            .latency
            .iter()
            .map(|(_, p)| ("baseline latency file", p.as_path())),
    );
    list.extend(
        s.allow_failed
            .file
            .iter()
            .map(|p| ("allow-list", p.as_path())),
    );
    list.extend(
        applied_policy(s)
            .into_iter()
            .map(|p| (load::changed::POLICY_FILE, p)),
    );
    list
}

/// The policy file that applies (docs/contract.md §12.1); when none does, every
/// place one would be looked for that has none now, from the working directory up
/// to the git root (one the revision had there was removed); none under
/// `--no-config` beside a file that is there but does not apply.
fn applied_policy(s: &settings::Compare) -> Vec<&Path> {
    match &s.policy {
        Some(p) => vec![p.path.as_path()],
        None => s.policy_places.iter().map(PathBuf::as_path).collect(),
    }
}

/// The policy file `ragdiff.toml` in the working directory, when there is one
/// (docs/contract.md §12.1): compared by its bytes only.
fn policy_file() -> Option<&'static Path> {
    let path = Path::new(load::policy::FILE_NAME);
    path.is_file().then_some(path)
}

/// The gate's own files (the gold's, the allow-list, the policy), which no run's
/// results may be (docs/contract.md §12.1).
fn own_files<'a>(
    gold: &'a GoldSet,
    runs: Side<&'a RunMeta>,
    s: &'a settings::Compare,
) -> Vec<(&'static str, &'a Path)> {
    let mut own = vec![("gold data", gold.meta.data.as_path())];
    own.extend(
        gold.meta
            .tags_file
            .iter()
            .map(|t| ("tags file", t.path.as_path())),
    );
    for m in runs {
        own.extend(m.doc_map.iter().map(|(_, p)| ("doc map", p.as_path())));
    }
    own.extend(
        s.allow_failed
            .file
            .iter()
            .map(|p| ("allow-list", p.as_path())),
    );
    own.extend(policy_file().map(|p| ("policy file", p)));
    own
}

/// The label queue (docs/contract.md §9.6). Baseline ranks below k are not kept
/// while reading, so the baseline is read once more to find just the queued docs.
fn label_queue(
    gold: &GoldSet,
    runs: &Side<ObservedRun>,
    cmp: &Comparison,
) -> anyhow::Result<Vec<compare::holes::LabelItem>> {
    let Side {
        baseline,
        candidate,
    } = runs;
    let items = compare::holes::label_queue(gold, baseline, candidate, &cmp.rows, cmp.k);
    let wanted = compare::holes::wanted(gold, &items);
    if wanted.is_empty() {
        return Ok(items);
    }
    let again = load::read_wanted(&baseline.meta, gold, cmp.k, &wanted)?;
    Ok(compare::holes::label_queue(
        gold, &again, candidate, &cmp.rows, cmp.k,
    ))
}

/// The HTML report's ranked lists and titles (docs/contract.md §9.10), when it is
/// written: both runs read again keeping each query's top min(depth, 2k) by id.
fn html_extra(
    s: &settings::Compare,
    gold: &GoldSet,
    runs: &Side<ObservedRun>,
    report: &CompareReport,
) -> anyhow::Result<Option<report::html::Extra>> {
    if !s.outputs.wants_html() {
        return Ok(None);
    }
    let titles = match &s.titles {
        Some(path) => {
            let mut diag = Diagnostics::default();
            let titles = load::titles::read(path, &mut diag);
            diag.check()?;
            titles
        }
        None => Default::default(),
    };
    let shown = runs.baseline.meta.depth.min(2 * report.k);
    let lists = load::read_lists(runs.as_ref().map(|r| &r.meta), gold, shown)?;
    let extra = report::html::Extra::of(gold, lists.as_ref(), report, shown, titles);
    Ok(Some(extra))
}

/// Every export, then stdout, written as one set (see `output::write_files`).
fn write_outputs(report: &CompareReport, outputs: &settings::Outputs) -> anyhow::Result<()> {
    let exports = &outputs.exports;
    let paths: Vec<&Path> = exports.iter().map(settings::Export::path).collect();
    let formats: Vec<report::Format> = exports.iter().map(|e| e.format).collect();
    let on_stdout = |i: usize| exports[i].dest == settings::Destination::Stdout;
    // stdout in the format of a file also written gets that file's bytes, unless
    // its bytes depend on where it goes (the table's colour).
    let file_like = |i: usize| {
        let format = formats[i];
        if !report::same_bytes_anywhere(format) {
            return None;
        }
        (0..paths.len()).find(|&j| formats[j] == format && !on_stdout(j))
    };
    output::write_files_sharing(
        &paths,
        |i, out| report::write_compare(report, formats[i], on_stdout(i), out),
        file_like,
    )?;
    Ok(())
}
