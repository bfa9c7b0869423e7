//! Both runs of a comparison, read side by side, drift pairing their lists as they
//! are read (docs/contract.md §6.5); an interleaved TREC run's re-read for drift is
//! here, behind [`read_both`].

use crate::load::{self, run};
use rustc_hash::FxHashSet;

use crate::model::{GoldSet, ListSink, ObservedRun, Role, RunMeta, Side, Wanted};
use crate::validate::{Diagnostics, InvalidInput, Location, ProblemKind};

/// Both runs, read, and drift's pairing of their lists.
pub struct BothRuns<P> {
    pub runs: Side<ObservedRun>,
    pub pairing: P,
}

/// Read both runs side by side, each keeping its top `k` unjudged docs (of every
/// query when `every_query`: the label queue is exported), offering its lists to a
/// pairing `new_pairing` makes. Any problem is an error, every problem in `diag`.
pub fn read_both<P: ListSink>(
    gold: &GoldSet,
    metas: Side<RunMeta>,
    k: u32,
    every_query: bool,
    new_pairing: &dyn Fn() -> P,
    diag: &mut Diagnostics,
) -> Result<BothRuns<P>, InvalidInput> {
    let pairing = new_pairing();
    let files: Vec<_> = metas
        .iter()
        .flat_map(|m| m.results_paths().map(std::path::Path::to_path_buf))
        .collect();
    let before: Vec<_> = files.iter().map(|p| load::fs::fingerprint(p)).collect();
    let keep = run::Keep {
        top: k,
        wanted: None,
        pairing: Some(&pairing),
        side: Role::Baseline,
        every_query,
        doc_map: None,
        defer_trec: false,
    };
    let runs = load::read_runs_keeping(metas.into_iter().collect(), gold, &[], keep, diag);
    let mut runs = two(runs).map(|run| diag.require(run)).transpose()?;
    // The manifest's latency side file, in place of any in the results (§6.9).
    for run in [&mut runs.baseline, &mut runs.candidate] {
        if let Some((_, path)) = &run.meta.recording.latency {
            run.latency = load::latency::side_file(path, &path.display().to_string(), diag);
        }
    }
    diag.check()?;
    if !pairing.is_poisoned() {
        return Ok(BothRuns { runs, pairing });
    }
    let pairing = pair_again(gold, runs.as_ref().map(|r| &r.meta), new_pairing())?;
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
    Ok(BothRuns { runs, pairing })
}

/// A TREC run turned out interleaved after offering lists that may have been partial
/// (docs/contract.md §6.5): read both runs again, each offering its lists to
/// `pairing` only once its reading ends whole. Costs a second read of both runs, for
/// interleaved runs only.
fn pair_again<P: ListSink>(
    gold: &GoldSet,
    metas: Side<&RunMeta>,
    pairing: P,
) -> Result<P, InvalidInput> {
    let keep = run::Keep {
        pairing: Some(&pairing),
        defer_trec: true,
        ..run::Keep::NONE
    };
    let mut diag = Diagnostics::default();
    // Drift pairs the first repeats only: the other repeats are not read again.
    let metas = metas
        .map(|m| m.repeat_metas().swap_remove(0))
        .into_iter()
        .collect();
    let again = load::read_runs_keeping(metas, gold, &[], keep, &mut diag);
    // The files were valid a moment ago; should one have changed, say so (exit 2).
    diag.check()?;
    for run in again {
        diag.require(run)?;
    }
    Ok(pairing)
}

/// The baseline read again for the label queue, keeping by id the unjudged docs
/// `wanted` at any rank beside every query's top `k` (docs/contract.md §6.3).
pub fn read_wanted(
    meta: &RunMeta,
    gold: &GoldSet,
    k: u32,
    wanted: &Wanted,
) -> Result<ObservedRun, InvalidInput> {
    let keep = keep_ids(k, Some(wanted));
    let mut diag = Diagnostics::default();
    let again = load::read_runs_keeping(vec![meta.clone()], gold, &[], keep, &mut diag);
    // The file was valid a moment ago; should it have changed, say so (exit 2).
    diag.check()?;
    diag.require(again.into_iter().next().flatten())
}

/// Both runs read again for the HTML report, keeping every query's top `top` docs
/// by id (docs/contract.md §9.10: its ranked lists): a second read of both runs,
/// only when the HTML report is asked for.
pub fn read_lists(
    metas: Side<&RunMeta>,
    gold: &GoldSet,
    top: u32,
) -> Result<Side<ObservedRun>, InvalidInput> {
    let keep = keep_ids(top, None);
    let mut diag = Diagnostics::default();
    let metas: Vec<RunMeta> = metas.into_iter().cloned().collect();
    let again = load::read_runs_keeping(metas, gold, &[], keep, &mut diag);
    // The files were valid a moment ago; should one have changed, say so (exit 2).
    diag.check()?;
    two(again).map(|run| diag.require(run)).transpose()
}

/// The baseline and the candidate of the two runs read (none when not two were).
fn two(runs: Vec<Option<ObservedRun>>) -> Side<Option<ObservedRun>> {
    <[Option<ObservedRun>; 2]>::try_from(runs).map_or_else(|_| Side::default(), Side::from)
}

/// Keep every query's top `top` docs by id (and `wanted` at any rank), no pairing.
fn keep_ids(top: u32, wanted: Option<&Wanted>) -> run::Keep<'_> {
    run::Keep {
        top,
        wanted,
        pairing: None,
        side: Role::Baseline,
        every_query: true,
        doc_map: None,
        defer_trec: false,
    }
}

/// Which of the doc hashes `wanted` some repeat of the baseline `meta` returned, for
/// any query, at any rank (docs/contract.md §6.3: an unjudged doc counts toward
/// suspect only if the baseline returned it). Every repeat is read once more; memory
/// is `wanted` and the hashes found, never a run's lists.
pub fn returned_by(
    meta: &RunMeta,
    gold: &GoldSet,
    wanted: &FxHashSet<u64>,
) -> Result<FxHashSet<u64>, InvalidInput> {
    let sink = Returned {
        wanted,
        found: std::sync::Mutex::default(),
    };
    let keep = run::Keep {
        pairing: Some(&sink),
        ..run::Keep::NONE
    };
    let mut diag = Diagnostics::default();
    // Each repeat as a run of its own: the reader offers a run's first repeat only.
    let again = load::read_runs_keeping(meta.repeat_metas(), gold, &[], keep, &mut diag);
    // The files were valid a moment ago; should one have changed, say so (exit 2).
    diag.check()?;
    for run in again {
        diag.require(run)?;
    }
    Ok(sink.found.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// Keeps the hashes of `wanted` that a list holds. A partial list (an interleaved
/// TREC run) still names docs the run returned, so poisoning changes nothing.
struct Returned<'w> {
    wanted: &'w FxHashSet<u64>,
    found: std::sync::Mutex<FxHashSet<u64>>,
}

impl ListSink for Returned<'_> {
    fn offer(&self, _side: Role, _qi: Option<usize>, _qid: &str, list: &[u64]) {
        let mut hits = list.iter().filter(|h| self.wanted.contains(h)).peekable();
        if hits.peek().is_some() {
            let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
            found.extend(hits);
        }
    }

    fn poison(&self) {}

    fn is_poisoned(&self) -> bool {
        false
    }
}
