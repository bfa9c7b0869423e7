//! `compare`: inputs -> comparability -> runs (in parallel) -> comparison -> gate ->
//! every requested output.

use std::path::{Path, PathBuf};

use crate::app::{print_warnings, refuse, release_freed_memory};
use crate::compare::{self, Bump, Comparison};
use crate::exit::{self, Refused};
use crate::gate::{self, Policy};
use crate::load::{self, allow};
use crate::model::{EvaluatedRun, GoldSet, Pairing, RunMeta};
use crate::output;
use crate::report::{self, CompareReport, Decided};
use crate::settings;
use crate::text::plural;
use crate::validate::{Diagnostics, Location, ProblemKind, resolve_k};

/// Fewer compared queries than this get a warning: the statistics mean little.
pub const FEW_QUERIES: usize = 10;

/// The inputs once their manifests are read and checked, before any run is read.
struct Inputs {
    gold: GoldSet,
    metas: [RunMeta; 2],
    k: u32,
    allowed: Vec<crate::model::AllowEntry>,
    changed: Option<crate::model::ChangedInputs>,
}

pub fn run(s: settings::Compare) -> anyhow::Result<u8> {
    let result = gate(&s);
    if let Err(err) = &result {
        failure_markdown(&s, err);
    }
    result
}

/// The comparison and its outputs; an error is exit 2 or 3.
fn gate(s: &settings::Compare) -> anyhow::Result<u8> {
    let phases = crate::app::Phases::start();
    let mut diag = Diagnostics::default();
    let inputs = inputs(s, &mut diag)?;
    comparable(&inputs.gold, &inputs.metas, &mut diag)?;
    let [bm, cm] = inputs.metas;
    release_freed_memory();
    phases.mark("inputs");
    let gold = inputs.gold;
    let same_results = load::same_results(&bm.results, &cm.results);
    // Each side keeps its top k's unjudged docs by id: suspects and the label queue
    // need them (docs/contract.md §6.3); memory stays gold x k. Drift pairs the two
    // runs' lists as they are read (§6.5).
    let (mut baseline, mut candidate, pairing) =
        read_both(s, &gold, [bm, cm], inputs.k, &mut diag)?;
    release_freed_memory(); // the reader threads' buffers
    phases.mark("read");
    // Extra cutoffs and the label queue read the runs' observations again; without
    // them each query's are dropped once its row is built (memory at its peak here).
    let mut cmp = if s.cutoffs.is_empty() && !s.outputs.wants_label_queue() {
        let runs = (&mut baseline, &mut candidate);
        let resampling = (s.resamples, s.seed);
        compare::compare_releasing(&gold, runs, inputs.k, resampling, &release_freed_memory)
    } else {
        compare::compare(&gold, &baseline, &candidate, inputs.k, s.resamples, s.seed)
    };
    phases.mark("compare");
    cmp.same_results = same_results;
    let seg = &s.segments;
    compare::segments::attach(&mut cmp, &gold, seg.min_queries, (s.resamples, s.seed));
    compare::drift::apply(&mut cmp, &gold, pairing.results(), s.rbo_p);
    compare::cutoffs::attach(&mut cmp, &gold, [&baseline, &candidate], &s.cutoffs);
    phases.mark("segments, drift, cutoffs");
    let allowed = gate::AllowList {
        entries: inputs.allowed,
        baseline_version: version(&baseline.meta),
        candidate_version: version(&candidate.meta),
    };
    let policy = policy(s, allowed);
    let (verdict, accepted, gate_warnings) = gate::decide(&policy, &cmp, inputs.k);
    let mut warnings = std::mem::take(&mut diag.warnings);
    warnings.extend(comparison_warnings(&cmp, [&baseline.meta, &candidate.meta]));
    warnings.extend(gate_warnings);
    warnings.extend(segment_warnings(&cmp, seg));
    warnings.extend(holm_floor_warning(&cmp, s));
    let mut notes = std::mem::take(&mut diag.notes);
    notes.extend(verdict.notes.iter().cloned());
    let decided = Decided {
        verdict,
        accepted,
        warnings,
        notes,
    };
    let runs = [&baseline.meta, &candidate.meta];
    let queue = s
        .outputs
        .wants_label_queue()
        .then(|| label_queue(&gold, &baseline, &candidate, &cmp))
        .transpose()?;
    let mut report = CompareReport::new(&gold, runs, cmp, decided, (s.resamples, s.seed));
    report.changed_inputs = inputs.changed;
    report.label_queue = queue.unwrap_or_default();
    report.attach_tags(&gold, seg.min_queries);
    // The report holds all the outputs need: free the runs and the gold before
    // rendering (memory at its peak otherwise; docs/contract.md §12).
    drop((gold, baseline, candidate));
    release_freed_memory();
    phases.mark("report");
    print_warnings(&report.warnings);
    report::emit_ci_annotations(&report);
    write_outputs(&report, &s.outputs)?;
    phases.mark("outputs");
    Ok(if report.gate.passed || !report.gate.enforced {
        exit::SUCCESS
    } else {
        exit::GATE_FAILED
    })
}

/// A run's index version as its manifest spells it (semver's text is canonical).
fn version(meta: &RunMeta) -> Option<String> {
    meta.index_version.as_ref().map(ToString::to_string)
}

/// Refuse (exit 3) a comparison whose inputs differ in what makes it meaningful
/// (docs/contract.md §6), after any input problem of the runs (exit 2).
fn comparable(
    gold: &GoldSet,
    [bm, cm]: &[RunMeta; 2],
    diag: &mut Diagnostics,
) -> anyhow::Result<()> {
    let differences: Vec<String> = compare::differences(gold, bm, cm)
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
    Err(refuse(refused, vec![bm.clone(), cm.clone()], diag))
}

/// On exit 2 or 3, `--export-markdown`'s file still gets the refusal or the input
/// problems (docs/contract.md §12.1), so a job summary is never empty; the one
/// output written when the run does not complete. Never over an input: the files the
/// manifests name are looked up again (quietly) and every export checked again.
fn failure_markdown(s: &settings::Compare, err: &anyhow::Error) {
    let Some((_, flag, dest)) = s
        .outputs
        .files
        .iter()
        .find(|(f, _, p)| *f == report::Format::Markdown && p != Path::new("-"))
    else {
        return;
    };
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
        inputs.extend(m.doc_map.iter().map(|(_, p)| p.as_path()));
    }
    inputs.extend(s.allow_failed_file.as_deref());
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

/// Read both runs side by side; drift pairs their lists as they are read (§6.5).
fn read_both(
    s: &settings::Compare,
    gold: &GoldSet,
    [bm, cm]: [RunMeta; 2],
    k: u32,
    diag: &mut Diagnostics,
) -> anyhow::Result<(EvaluatedRun, EvaluatedRun, Pairing)> {
    let pairing = new_pairing(gold, s.rbo_p);
    let files: Vec<_> = [&bm, &cm]
        .iter()
        .flat_map(|m| m.results_paths().map(std::path::Path::to_path_buf))
        .collect();
    let before: Vec<_> = files.iter().map(|p| load::fs::fingerprint(p)).collect();
    let keep = load::run::Keep {
        top: k,
        wanted: None,
        pairing: Some(&pairing),
        side: 0,
        every_query: s.outputs.wants_label_queue(),
        doc_map: None,
        defer_trec: false,
    };
    let runs = load::read_runs_keeping(vec![bm, cm], gold, &[], keep, diag);
    let [baseline, candidate] =
        <[Option<EvaluatedRun>; 2]>::try_from(runs).unwrap_or_else(|_| [None, None]);
    let baseline = diag.require(baseline)?;
    let candidate = diag.require(candidate)?;
    if !pairing.is_poisoned() {
        return Ok((baseline, candidate, pairing));
    }
    let pairing = pair_again(gold, [&baseline.meta, &candidate.meta], s.rbo_p)?;
    // Drift must come from the files the metrics came from.
    for (path, before) in files.iter().zip(before) {
        if load::fs::fingerprint(path) != before {
            diag.problem(
                Location::file(path.display().to_string()),
                ProblemKind::ChangedWhileRead,
            );
        }
    }
    diag.check()?;
    Ok((baseline, candidate, pairing))
}

/// Drift's pairing of the two runs' lists by RBO with persistence `p` (§6.5).
fn new_pairing(gold: &GoldSet, p: f64) -> Pairing {
    Pairing::new(
        gold.queries.len(),
        Box::new(move |a, b| crate::metrics::rbo::rbo_ext(a, b, p)),
    )
}

/// A TREC run turned out interleaved after offering lists that may have been partial
/// (docs/contract.md §6.5): read both runs again, each offering its lists only once its
/// reading ends whole. Costs a second read of both runs, for interleaved runs only.
fn pair_again(gold: &GoldSet, metas: [&RunMeta; 2], p: f64) -> anyhow::Result<Pairing> {
    let pairing = new_pairing(gold, p);
    let keep = load::run::Keep {
        pairing: Some(&pairing),
        defer_trec: true,
        ..load::run::Keep::NONE
    };
    let mut diag = Diagnostics::default();
    // Drift pairs the first repeats only: the other repeats are not read again.
    let metas = metas.map(|m| m.repeat_metas().swap_remove(0)).to_vec();
    let again = load::read_runs_keeping(metas, gold, &[], keep, &mut diag);
    // The files were valid a moment ago; should one have changed, say so (exit 2).
    diag.check()?;
    for run in again {
        diag.require(run)?;
    }
    Ok(pairing)
}

/// The gate's policy from the settings and the allow-list read.
fn policy(s: &settings::Compare, allowed: gate::AllowList) -> Policy {
    let seg = &s.segments;
    Policy {
        max_drop: s.max_drop.clone(),
        allowed,
        fail_on_significant_drop: s.fail_on_significant_drop,
        enforced: s.enforced,
        suspects: s.suspects,
        non_inferior: seg.non_inferior.clone(),
        non_inferior_per_segment: seg.non_inferior_per_segment.clone(),
        max_drop_per_segment: seg.max_drop_per_segment.clone(),
        strict_flaky: s.strict_flaky,
        min_rbo: s.min_rbo,
    }
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
    inputs.extend(gold.meta.tags_file.iter().map(|t| t.path.as_path()));
    for m in [&bm, &cm] {
        inputs.extend(m.results_paths());
        inputs.extend(m.doc_map.iter().map(|(_, p)| p.as_path()));
        inputs.extend(m.manifest.as_deref());
    }
    inputs.extend(s.allow_failed_file.as_deref());
    output::check_exports(&s.outputs.exports(), &inputs)?;
    load::own_files::check(&[&bm, &cm], &own_files(&gold, [&bm, &cm], s), diag);
    let k = resolve_k(&gold, s.k, &bm, &s.runs[0].display().to_string(), diag);
    crate::app::eval::check_cutoffs(&s.cutoffs, bm.depth, diag);
    let mut allowed = allow::check_allowed_ids(&s.allow_failed, &gold, diag);
    if let Some(file) = &s.allow_failed_file {
        allowed.extend(allow::read_allow_file(file, &gold, diag));
    }
    let changed = s
        .changed_since
        .as_deref()
        .and_then(|rev| load::changed::since(rev, &gate_inputs(&gold, &bm, s), diag));
    let k = diag.require(k)?;
    Ok(Inputs {
        gold,
        metas: [bm, cm],
        k,
        allowed,
        changed,
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
        s.allow_failed_file
            .iter()
            .map(|p| ("allow-list", p.as_path())),
    );
    list
}

/// The gold's own files, which no run's results may be (docs/contract.md §12.1).
fn own_files<'a>(
    gold: &'a GoldSet,
    runs: [&'a RunMeta; 2],
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
        s.allow_failed_file
            .iter()
            .map(|p| ("allow-list", p.as_path())),
    );
    own
}

/// The label queue (docs/contract.md §9.6). Baseline ranks below k are not kept
/// while reading, so the baseline is read once more to find just the queued docs.
fn label_queue(
    gold: &GoldSet,
    baseline: &EvaluatedRun,
    candidate: &EvaluatedRun,
    cmp: &Comparison,
) -> anyhow::Result<Vec<compare::holes::LabelItem>> {
    let items = compare::holes::label_queue(gold, baseline, candidate, &cmp.rows, cmp.k);
    let wanted = compare::holes::wanted(gold, &items);
    if wanted.is_empty() {
        return Ok(items);
    }
    let keep = load::run::Keep {
        top: cmp.k,
        wanted: Some(&wanted),
        pairing: None,
        side: 0,
        every_query: true,
        doc_map: None,
        defer_trec: false,
    };
    let mut diag = Diagnostics::default();
    let again = load::read_runs_keeping(vec![baseline.meta.clone()], gold, &[], keep, &mut diag);
    // The file was valid a moment ago; should it have changed, say so (exit 2).
    diag.check()?;
    let again = diag.require(again.into_iter().next().flatten())?;
    Ok(compare::holes::label_queue(
        gold, &again, candidate, &cmp.rows, cmp.k,
    ))
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
    if cmp.bump == Bump::Same && cmp.nondeterministic.is_empty() && !cmp.same_results {
        warnings.push(
            "baseline and candidate hold the same results (same index version, every list identical): nothing changed; after `ragdiff promote`, export the next candidate"
                .to_string(),
        );
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
    // stdout in the format of a file also written gets that file's bytes, unless
    // its bytes depend on where it goes (the table's colour).
    let file_like = |i: usize| {
        let format = formats[i];
        if !report::same_bytes_anywhere(format) {
            return None;
        }
        (0..paths.len()).find(|&j| formats[j] == format && paths[j] != Path::new("-"))
    };
    output::write_files_sharing(
        &paths,
        |i, out| report::write_compare(report, formats[i], i == stdout_index, out),
        file_like,
    )?;
    Ok(())
}

/// Per-segment gates that test nothing: the gold has no tags, or every segment is
/// too few (docs/contract.md §6.6).
fn segment_warnings(cmp: &Comparison, seg: &settings::SegmentSettings) -> Vec<String> {
    let asked = !seg.non_inferior_per_segment.is_empty() || !seg.max_drop_per_segment.is_empty();
    if !asked || cmp.segments.iter().any(|s| !s.too_few) {
        return Vec::new();
    }
    vec![if cmp.segments.is_empty() {
        "--non-inferior-per-segment and --max-drop-per-segment test nothing: the gold has no tags"
            .to_string()
    } else {
        format!(
            "--non-inferior-per-segment and --max-drop-per-segment test nothing: every segment has fewer than {} queries (--min-segment-queries)",
            seg.min_queries
        )
    }]
}

/// Under `--fail-on-significant-drop`: a family so large that even the smallest p
/// (1 / (1 + resamples)) cannot get below 0.05 after Holm (docs/contract.md §7.1).
fn holm_floor_warning(cmp: &Comparison, s: &settings::Compare) -> Option<String> {
    let tests = compare::segments::family_size(cmp);
    let floor = (tests as f64 / (1.0 + f64::from(s.resamples))).min(1.0);
    (s.fail_on_significant_drop && floor >= gate::ALPHA).then(|| {
        format!(
            "with {tests} tests and {} resamples the smallest Holm-adjusted p is {floor:.4}, so --fail-on-significant-drop cannot fire; use --resamples {} or more",
            s.resamples,
            tests * 20
        )
    })
}
