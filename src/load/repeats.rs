//! Runs of several results files: repeats of one index version (docs/contract.md
//! §6.5). Every repeat of every run is read by a pool of at most as many threads as
//! there are cores (two at least, so a baseline and a candidate are always read side
//! by side), then each run's repeats are put back together behind its first one.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::load::docmap::DocMap;
use crate::load::run;
use crate::model::{GoldSet, ObservedRun, Role, RunMeta};
use crate::progress;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// One results file to read: which run, which repeat, and whether to keep its lists.
struct Job<'k> {
    run: usize,
    repeat: usize,
    meta: RunMeta,
    keep: run::Keep<'k>,
}

type Read = run::ReadOutcome;

/// Read every repeat of `metas` against `gold`; the first repeat of each run keeps
/// what `keep` names (the others nothing: everything that needs one list reads the
/// first). One result per run, in order.
pub fn read_runs_with(
    metas: Vec<RunMeta>,
    gold: &GoldSet,
    extra_ok: &[&str],
    keep: run::Keep,
    diag: &mut Diagnostics,
) -> Vec<Option<ObservedRun>> {
    let maps = doc_maps(&metas, gold, diag);
    let mut jobs = Vec::new();
    for (i, meta) in metas.iter().enumerate() {
        if meta.doc_map.is_some() && maps[i].is_none() {
            continue; // the map's problems are reported; its run is not read
        }
        for (r, m) in meta.repeat_metas().into_iter().enumerate() {
            let keep = if r == 0 { keep } else { run::Keep::NONE };
            jobs.push(Job {
                run: i,
                repeat: r,
                meta: m,
                keep: run::Keep {
                    doc_map: maps[i].as_ref(),
                    // The first run is the baseline, the others candidates (a pairing
                    // is given a comparison's two runs only).
                    side: if i == 0 {
                        Role::Baseline
                    } else {
                        Role::Candidate
                    },
                    ..keep
                },
            });
        }
    }
    // First repeats first, so one run never waits for another's last repeat.
    jobs.sort_by_key(|j| j.repeat);
    let order: Vec<usize> = jobs.iter().map(|j| j.run).collect();
    let read = read_all(jobs, gold, extra_ok);
    let mut per_run: Vec<Vec<Read>> = metas.iter().map(|_| Vec::new()).collect();
    for (run, r) in order.into_iter().zip(read) {
        per_run[run].push(r);
    }
    metas
        .into_iter()
        .zip(per_run)
        .zip(&maps)
        .map(|((meta, reads), map)| {
            if reads.is_empty() {
                return None; // its chunk map could not be read
            }
            let mut run = assemble(meta, reads, gold, diag)?;
            run.covered = map.as_ref().map(|m| m.covered(gold));
            run.doc_map = map.as_ref().map(|m| crate::model::DocMapInfo {
                path: m.display.clone(),
                sha256: m.sha256.clone(),
            });
            Some(run)
        })
        .collect()
}

/// Each run's chunk map, read once for all its repeats (docs/contract.md §2.11).
fn doc_maps(metas: &[RunMeta], gold: &GoldSet, diag: &mut Diagnostics) -> Vec<Option<DocMap>> {
    metas
        .iter()
        .map(|m| {
            let (_, path) = m.doc_map.as_ref()?;
            let map = crate::load::docmap::read(path, &path.display().to_string(), diag)?;
            map.check_judged(gold, diag).then_some(map)
        })
        .collect()
}

/// Read the jobs on a pool of threads; results in the jobs' order.
fn read_all(jobs: Vec<Job<'_>>, gold: &GoldSet, extra_ok: &[&str]) -> Vec<Read> {
    let paths: Vec<&Path> = jobs.iter().map(|j| j.meta.results.as_path()).collect();
    let bar = progress::Bytes::new(&paths);
    let inc = |n: u64| bar.inc(n);
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let workers = jobs.len().min(cores.max(2));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Read>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let jobs: Vec<Mutex<Option<Job>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i).and_then(|j| j.lock().ok()?.take()) else {
                        break;
                    };
                    let r = run::RunReader::new(gold)
                        .extra_ok(extra_ok)
                        .keep(job.keep)
                        .progress(&inc)
                        .read(run::Source::file(job.meta));
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(r);
                    }
                }
            });
        }
    });
    bar.finish();
    slots
        .into_iter()
        .map(|s| {
            s.into_inner()
                .ok()
                .flatten()
                .expect("a run reader thread panicked")
        })
        .collect()
}

/// A warning a later repeat gives word for word as the first repeat did (the same
/// unlabelled queries, say) is said once, for the first file, with how many other
/// repeats gave it too: five results files, one line.
#[derive(Default)]
struct Repeated {
    /// The first repeat's warnings: where they stand in the list, their text, and how
    /// many later repeats gave them too.
    first: Vec<(usize, String, usize)>,
}

impl Repeated {
    fn warn(&mut self, displays: &[String], repeat: usize, w: String, diag: &mut Diagnostics) {
        if repeat == 0 {
            self.first.push((diag.warnings.len(), w.clone(), 0));
            diag.warnings.push(w);
            return;
        }
        let same = w
            .strip_prefix(displays[repeat].as_str())
            .map(|rest| format!("{}{rest}", displays[0]))
            .and_then(|as_first| self.first.iter_mut().find(|(_, f, _)| *f == as_first));
        match same {
            Some((_, _, n)) => *n += 1,
            None => diag.warnings.push(w),
        }
    }

    /// Each of the first repeat's warnings says how many other repeats gave it too.
    fn finish(self, diag: &mut Diagnostics) {
        for (at, _, n) in self.first {
            if n > 0 {
                let also = crate::text::plural(n, "other repeat", "other repeats");
                diag.warnings[at].push_str(&format!(" (the same in {also})"));
            }
        }
    }
}

/// One run from its repeats' readings (the first repeat's reading first): problems
/// and warnings merged, the index version from a CSV column if the manifest has none,
/// and a gold query listed by some repeats but not all is a problem of the repeats
/// that lack it.
fn assemble(
    meta: RunMeta,
    reads: Vec<Read>,
    gold: &GoldSet,
    diag: &mut Diagnostics,
) -> Option<ObservedRun> {
    let mut runs = Vec::with_capacity(reads.len());
    let mut version = None;
    let displays: Vec<String> = meta
        .repeat_metas()
        .iter()
        .map(|m| m.results.display().to_string())
        .collect();
    let mut repeated = Repeated::default();
    for (i, r) in reads.into_iter().enumerate() {
        let run::ReadOutcome {
            run,
            diag: d,
            index_version: v,
            ..
        } = r;
        diag.problems.extend(d.problems);
        for w in d.warnings {
            repeated.warn(&displays, i, w, diag);
        }
        diag.notes.extend(d.notes);
        diag.dropped.extend(d.dropped);
        diag.stopped.extend(d.stopped);
        if i == 0 {
            version = v;
        }
        runs.push(run);
    }
    repeated.finish(diag);
    let mut runs: Vec<ObservedRun> = runs.into_iter().collect::<Option<Vec<_>>>()?;
    let mut first = runs.remove(0);
    check_same_queries(gold, &first, &runs, diag);
    if first.meta.index_version.is_none() {
        first.meta.index_version = version.and_then(|v| crate::model::IndexVersion::parse(&v).ok());
    }
    let depth = runs
        .iter()
        .map(|r| r.meta.depth)
        .fold(first.meta.depth, u32::max);
    first.meta = RunMeta {
        depth: if meta.depth_declared {
            meta.depth
        } else {
            depth
        },
        index_version: first.meta.index_version.clone(),
        ..meta
    };
    first.repeats = runs.into_iter().map(|r| r.observed).collect();
    Some(first)
}

/// Every gold query listed by one repeat must be listed by all (a TREC run may leave
/// a query out; its repeats must agree on which).
fn check_same_queries(
    gold: &GoldSet,
    first: &ObservedRun,
    others: &[ObservedRun],
    diag: &mut Diagnostics,
) {
    if others.is_empty() {
        return;
    }
    let all: Vec<&ObservedRun> = std::iter::once(first).chain(others).collect();
    for (qi, _) in first.observed.iter().enumerate() {
        let listed = all.iter().filter(|r| r.observed[qi].is_some()).count();
        if listed == 0 || listed == all.len() {
            continue;
        }
        for r in all.iter().filter(|r| r.observed[qi].is_none()) {
            diag.problem(
                Location::file(r.meta.results.display().to_string()),
                ProblemKind::RepeatMissingQuery {
                    query: gold.queries[qi].id.to_string(),
                },
            );
        }
    }
}
