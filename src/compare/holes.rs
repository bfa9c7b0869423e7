//! Label holes (docs/contract.md §6.3): unjudged docs in each side's top k, the
//! newly failed queries that may be a gap in the gold rather than a regression
//! (suspect), and the queue of unjudged docs for annotators.

use crate::compare::{MeanDelta, QueryRow, Status};
use crate::metrics::bounds::Upper;
use crate::metrics::judged::unjudged_at_k;
use crate::metrics::{Scores, mean};
use crate::model::{GoldQuery, GoldSet, Id, Observed, ObservedRun, RankedDoc, Role, Side};

/// One query's label holes, per side (JSON keys of the per-query row: its
/// `Serialize` writes them).
#[derive(Debug, Clone, Copy, Default)]
pub struct Holes {
    /// Unjudged docs in each side's top k.
    pub unjudged_at_k: Side<u32>,
    /// Unjudged docs in the candidate's top k that were not in the baseline's.
    pub unjudged_entered: u32,
    /// Newly failed, the gold judges a doc of this query not relevant, and an
    /// unjudged doc some baseline repeat returned entered the top k.
    pub suspect: bool,
    /// The entered docs that count toward suspect (some baseline repeat returned
    /// them): what the marker and the gate name; 0 unless suspect.
    pub suspect_entered: u32,
    /// Judged@k of each side, the mean over its repeats (docs/contract.md §5.1). Set
    /// by [`bounds`].
    pub judged: Side<f64>,
    /// Each side's values with the unjudged docs of its top k counted as relevant,
    /// a mean over its repeats (docs/contract.md §5.3); `None` when no repeat of that
    /// side has an unjudged doc in its top k. Set by [`bounds`].
    pub upper: Side<Option<Upper>>,
    /// Newly failed, and the candidate's upper RR@k is 0: its top k holds no
    /// unjudged doc, so no label can make it pass. Never changes `suspect`.
    pub no_label_can_rescue: bool,
}

/// The hashes of the unjudged docs in the top k of `o`: the reader kept those of
/// the top k (`Keep::top` is the comparison's k), no others.
fn top_unjudged(o: Option<&Observed>) -> &[u64] {
    o.map(|o| &o.unjudged[..]).unwrap_or_default()
}

/// The hashes of the unjudged docs in the candidate's top k that were not in the
/// baseline's.
pub fn entered(observed: Side<Option<&Observed>>) -> impl Iterator<Item = u64> {
    let base = top_unjudged(observed.baseline);
    top_unjudged(observed.candidate)
        .iter()
        .copied()
        .filter(move |h| !base.contains(h))
}

/// The label holes of one query with `status`. `suspect` is provisional here: an
/// entered doc counts only if the baseline returned it for some query, which
/// [`Suspects::confirm`] checks once every row is built (docs/contract.md §6.3).
pub fn holes(q: &GoldQuery, observed: Side<Option<&Observed>>, k: u32, status: Status) -> Holes {
    let entered = entered(observed).count() as u32;
    let suspect = status == Status::NewlyFailed && q.non_relevant > 0 && entered > 0;
    Holes {
        unjudged_at_k: observed.map(|o| unjudged_at_k(o, k)),
        unjudged_entered: entered,
        suspect,
        suspect_entered: if suspect { entered } else { 0 },
        ..Holes::default()
    }
}

/// The values of gold query `qi` in `run` with the unjudged docs of each repeat's top
/// k counted as relevant, a mean over the repeats (a repeat with none counts its own
/// values); `None` when no repeat has an unjudged doc in its top k.
pub fn upper_over_repeats(
    q: &GoldQuery,
    run: &ObservedRun,
    qi: usize,
    k: u32,
    min_grade: i64,
) -> Option<Upper> {
    let mut any = false;
    let all: Vec<Upper> = run
        .observed_in_repeats(qi)
        .map(|o| {
            let u = crate::metrics::bounds::upper(q, o, k, min_grade);
            any |= u.is_some();
            u.unwrap_or_else(|| upper_of(&crate::metrics::evaluate(q, o, k, min_grade)))
        })
        .collect();
    any.then(|| Upper::from_fn(|m| mean(all.iter().map(|u| u.get(m)))))
}

/// The values of a list with no unjudged doc in its top k: its own.
fn upper_of(s: &Scores) -> Upper {
    Upper::from_fn(|m| m.of(s))
}

/// Fill what `h` reads from every repeat of gold query `qi` in the two runs: each
/// side's Judged@k (§5.1), its upper values (docs/contract.md §5.3), and whether a
/// new failure is one no label can rescue.
pub fn bounds(
    h: &mut Holes,
    q: &GoldQuery,
    runs: Side<&ObservedRun>,
    qi: usize,
    k: u32,
    min_grade: i64,
    status: Status,
) {
    h.judged = runs.map(|run| crate::eval::judged_over_repeats(run, qi, k));
    h.upper = runs.map(|run| upper_over_repeats(q, run, qi, k, min_grade));
    h.no_label_can_rescue =
        status == Status::NewlyFailed && h.upper.candidate.is_none_or(|u| u.rr == 0.0);
}

/// A side's upper values as JSON shows them: the four bounds.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct UpperBounds {
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
}

/// A side's nDCG@k and AP with the unjudged docs counted as relevant: values, not
/// bounds (docs/contract.md §5.3).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct AsRelevant {
    pub ndcg: f64,
    pub ap: f64,
}

impl From<Upper> for UpperBounds {
    fn from(u: Upper) -> Self {
        Self {
            rr: u.rr,
            recall: u.recall,
            hit: u.hit,
            precision: u.precision,
        }
    }
}

impl From<Upper> for AsRelevant {
    fn from(u: Upper) -> Self {
        Self {
            ndcg: u.ndcg,
            ap: u.ap,
        }
    }
}

/// A side's upper values, its own where its top k holds no unjudged doc.
pub fn upper_or_own(upper: Option<Upper>, own: &Scores) -> Upper {
    upper.unwrap_or_else(|| upper_of(own))
}

/// The row's JSON `upper` and `unjudged_as_relevant` (docs/contract.md §10.3): both
/// `None` (null) when neither side has an unjudged doc in its top k.
pub fn row_bounds(
    h: &Holes,
    own: Side<&Scores>,
) -> (Option<Side<UpperBounds>>, Option<Side<AsRelevant>>) {
    if h.upper.baseline.is_none() && h.upper.candidate.is_none() {
        return (None, None);
    }
    let b = upper_or_own(h.upper.baseline, own.baseline);
    let c = upper_or_own(h.upper.candidate, own.candidate);
    (
        Some(Side::new(b.into(), c.into())),
        Some(Side::new(b.into(), c.into())),
    )
}

/// The means over `rows` of each side's upper values (docs/contract.md §5.3): JSON
/// `means.upper` and `means.unjudged_as_relevant`.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct MeanBounds {
    pub rr: Side<f64>,
    pub recall: Side<f64>,
    pub hit: Side<f64>,
    pub precision: Side<f64>,
}

/// The means of nDCG@k and AP with the unjudged docs counted as relevant.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct MeanAsRelevant {
    pub ndcg: Side<f64>,
    pub ap: Side<f64>,
}

/// Both means over `rows` (in id order, as every mean).
pub fn mean_bounds(rows: &[&QueryRow]) -> (MeanBounds, MeanAsRelevant) {
    let side = |f: fn(&Upper) -> f64| {
        let of = |i: usize| {
            mean(rows.iter().map(|r| {
                let (u, own) = if i == 0 {
                    (r.holes.upper.baseline, &r.scores.baseline)
                } else {
                    (r.holes.upper.candidate, &r.scores.candidate)
                };
                f(&upper_or_own(u, own))
            }))
        };
        Side::new(of(0), of(1))
    };
    (
        MeanBounds {
            rr: side(|u| u.rr),
            recall: side(|u| u.recall),
            hit: side(|u| u.hit),
            precision: side(|u| u.precision),
        },
        MeanAsRelevant {
            ndcg: side(|u| u.ndcg),
            ap: side(|u| u.ap),
        },
    )
}

/// The newly failed ids no label can rescue (docs/contract.md §5.3), natural order.
pub fn no_label_can_rescue(rows: &[QueryRow]) -> Vec<String> {
    let mut ids: Vec<String> = rows
        .iter()
        .filter(|r| r.holes.no_label_can_rescue)
        .map(|r| r.id.to_string())
        .collect();
    crate::text::sort_natural(&mut ids);
    ids
}

/// What every text format says before the ids of the new failures no label can
/// rescue (docs/contract.md §5.3).
pub fn no_label_text(n: usize, newly_failed: usize, k: u32) -> String {
    format!(
        "no label can rescue {n} of {newly_failed} newly failed (no unjudged doc in the candidate's top {k}: RR@{k} stays 0 whatever is labelled)"
    )
}

/// The rows whose `suspect` is provisional, with the docs that entered their top k
/// (docs/contract.md §6.3): an unjudged doc counts toward suspect only if some
/// baseline repeat returned it, for any query, so it exists in the corpus; a doc id
/// the candidate invented does not. Bounded by the suspect rows times k, not by the
/// runs: the baseline is read once more for these hashes only.
#[derive(Debug, Default)]
pub struct Suspects {
    pub rows: Vec<SuspectRow>,
}

/// A row whose `suspect` is provisional.
#[derive(Debug)]
pub struct SuspectRow {
    pub id: Id,
    /// The hashes of the docs that entered its top k.
    pub entered: Box<[u64]>,
}

impl Suspects {
    /// Every entered doc's hash, once.
    pub fn wanted(&self) -> rustc_hash::FxHashSet<u64> {
        self.rows
            .iter()
            .flat_map(|r| r.entered.iter().copied())
            .collect()
    }

    /// Count on each row only the entered docs `returned` holds; a row with none
    /// is not suspect.
    pub fn confirm(&self, rows: &mut [QueryRow], returned: &dyn Fn(u64) -> bool) {
        let counted: rustc_hash::FxHashMap<&str, u32> = self
            .rows
            .iter()
            .map(|r| {
                let n = r.entered.iter().filter(|&&h| returned(h)).count();
                (r.id.as_str(), n as u32)
            })
            .collect();
        for row in rows.iter_mut() {
            if let Some(&n) = counted.get(row.id.as_str()) {
                row.holes.suspect_entered = n;
                row.holes.suspect = n > 0;
            }
        }
    }
}

/// The mean Judged@k of both sides over `rows` (in id order, as every mean).
pub fn judged_mean(rows: &[&QueryRow]) -> MeanDelta {
    let side = |role: Role| mean(rows.iter().map(|r| r.holes.judged[role]));
    MeanDelta {
        baseline: side(Role::Baseline),
        candidate: side(Role::Candidate),
        delta: mean(
            rows.iter()
                .map(|r| r.holes.judged.candidate - r.holes.judged.baseline),
        ),
        ..MeanDelta::UNTESTED
    }
}

/// The marker every format shows beside a suspect query.
pub fn suspect_marker(entered: u32, k: u32) -> String {
    format!(
        "suspect: {entered} unjudged doc{} entered the top {k}",
        if entered == 1 { "" } else { "s" }
    )
}

/// The message, once per report, of a gold that judges no doc not relevant.
pub const RELEVANT_ONLY: &str =
    "the gold lists relevant docs only: every other doc counts as not relevant";

/// The notes a comparison or an evaluation carries about the gold's judgements.
pub fn gold_notes(gold: &GoldSet) -> Vec<String> {
    if gold.judges_non_relevant() {
        Vec::new()
    } else {
        vec![RELEVANT_ONLY.to_string()]
    }
}

/// One line of the label queue: an unjudged doc in the candidate's top k.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelItem {
    pub query: Id,
    pub doc: Id,
    pub candidate_rank: u32,
    /// Its rank in the baseline's whole list; `None` when the baseline did not
    /// return it (or its rank was not looked up: see [`wanted`]).
    pub baseline_rank: Option<u32>,
    pub status: Status,
}

/// The statuses whose queries enter the label queue, in its order.
pub const QUEUED: [Status; 3] = [Status::NewlyFailed, Status::Regressed, Status::StillFailing];

/// Every unjudged doc in the candidate's top k of every newly failed, regressed and
/// still-failing query: status order, then query id, then candidate rank. Baseline
/// ranks are those `b` kept: the top k, plus any doc it was asked to find.
pub fn label_queue(
    gold: &GoldSet,
    b: &ObservedRun,
    c: &ObservedRun,
    rows: &[QueryRow],
    k: u32,
) -> Vec<LabelItem> {
    let mut queued: Vec<&QueryRow> = rows.iter().filter(|r| QUEUED.contains(&r.status)).collect();
    queued.sort_by(|x, y| {
        x.status
            .cmp(&y.status)
            .then_with(|| crate::text::natural_cmp(&x.id, &y.id))
    });
    let mut out = Vec::new();
    for row in queued {
        let Some(qi) = gold.lookup(&row.id) else {
            continue;
        };
        let (bo, co) = (
            b.observed[qi as usize].as_ref(),
            c.observed[qi as usize].as_ref(),
        );
        let base = kept(bo);
        for d in kept(co).iter().take_while(|d| d.rank <= k) {
            out.push(LabelItem {
                query: row.id.clone(),
                doc: d.doc.clone(),
                candidate_rank: d.rank,
                baseline_rank: base.iter().find(|x| x.doc == d.doc).map(|x| x.rank),
                status: row.status,
            });
        }
    }
    out
}

/// The unjudged docs `o` kept by id (for every query when the label queue is
/// exported: docs/contract.md §6.3).
fn kept(o: Option<&Observed>) -> &[RankedDoc] {
    o.map(|o| &o.unjudged_ids[..]).unwrap_or_default()
}

/// The queued docs whose baseline rank is not known yet (not in the baseline's top
/// k), by gold query index: the baseline is read once more to find them, so memory
/// never holds a whole list.
pub fn wanted(gold: &GoldSet, items: &[LabelItem]) -> crate::model::Wanted {
    let mut wanted = crate::model::Wanted::default();
    for item in items.iter().filter(|i| i.baseline_rank.is_none()) {
        if let Some(qi) = gold.lookup(&item.query) {
            wanted.entry(qi).or_default().push(item.doc.clone());
        }
    }
    wanted
}
