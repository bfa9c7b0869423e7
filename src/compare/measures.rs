//! `compare --measure` (docs/contract.md §5.4): each named measure's means on
//! both sides, the mean delta, and its interval and sign-flip p as the
//! tested metrics get them (§7), seeded the same way. A named measure joins no
//! family unless a gate rule names it: an overall rule's joins the overall one, a
//! per-segment rule's is computed in every segment and joins the segment family
//! (§6.6, §7.1).

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::compare::{Comparison, MeanDelta};
use crate::eval::measures::{Named, of_query};
use crate::metrics::named::Measure;
use crate::model::{GoldSet, ObservedRun, Side};
use crate::stats;

/// Means by measure, in the order the measures were given; JSON keys are their names.
#[derive(Debug, Clone, Default)]
pub struct NamedMeans(pub Vec<(Measure, MeanDelta)>);

impl NamedMeans {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The mean of measure `m`, if it was computed.
    pub fn get(&self, m: Measure) -> Option<&MeanDelta> {
        self.0.iter().find(|(n, _)| *n == m).map(|(_, md)| md)
    }

    /// How many of them joined the overall family (docs/contract.md §7.1).
    pub fn in_family(&self) -> usize {
        self.0.iter().filter(|(_, md)| md.family.is_some()).count()
    }
}

impl Serialize for NamedMeans {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (m, md) in &self.0 {
            map.serialize_entry(&m.name(), md)?;
        }
        map.end()
    }
}

/// Fill each row's `measures`, the values of `computed` on each side (each the mean
/// over its repeats, docs/contract.md §5.4); nothing without any.
pub fn fill(
    rows: &mut [crate::compare::QueryRow],
    gold: &GoldSet,
    runs: Side<&ObservedRun>,
    computed: &[Measure],
) {
    if computed.is_empty() {
        return;
    }
    let min_grade = gold.meta.min_grade;
    for row in rows {
        let qi = gold.lookup(&row.id).expect("every row is a gold query's") as usize;
        let q = &gold.queries[qi];
        row.measures = Side::new(
            of_query(q, runs.baseline, qi, computed, min_grade),
            of_query(q, runs.candidate, qi, computed, min_grade),
        );
    }
}

/// Whether a named measure with these per-query deltas counts in a family: only when
/// its sign-flip test, under `resamples` (`--resamples`, 0 the default), can give a
/// p below the gate's alpha. One that cannot (no query moved it, or too few did for
/// any pattern of signs to reach 0.05: at most 5 for the exact test, whose smallest
/// p is 2^(1−m)) can never fail the gate and counts in no family, overall or in a
/// segment (Tarone 1990; docs/contract.md §7.1). The one place the rule is applied.
pub(crate) fn counts(deltas: impl IntoIterator<Item = f64>, resamples: u32) -> bool {
    stats::can_reach_alpha(stats::min_attainable_p(deltas, resamples))
}

/// [`counts`] for the `i`-th computed measure over `rows`.
pub(crate) fn counts_on<'a>(
    rows: impl IntoIterator<Item = &'a crate::compare::QueryRow>,
    i: usize,
    resamples: u32,
) -> bool {
    counts(
        rows.into_iter().map(|r| {
            let s = &r.measures;
            s.candidate.0[i].1 - s.baseline.0[i].1
        }),
        resamples,
    )
}

/// Those of `members` (named measures, each among `computed`, the rows' `measures`
/// order) that count in their family over `rows` ([`counts`], §7.1).
pub(crate) fn counted(
    rows: &[crate::compare::QueryRow],
    computed: &[Measure],
    members: &[Measure],
    resamples: u32,
) -> Vec<Measure> {
    members
        .iter()
        .copied()
        .filter(|m| {
            computed
                .iter()
                .position(|c| c == m)
                .is_some_and(|i| counts_on(rows, i, resamples))
        })
        .collect()
}

/// `cmp.means.measures` over the compared rows (whose `measures` [`fill`] set from
/// `opts.computed()`), drawn with `opts`' resamples and seed. The gated ones and a
/// named primary (§6.2) join the overall family where they [`counts`], the
/// segment-gated ones are computed in every segment and join the segment family
/// where they count there (docs/contract.md §7.1). Nothing without any.
pub fn attach(cmp: &mut Comparison, gold: &GoldSet, opts: &crate::compare::Options) {
    let measures = opts.computed();
    if measures.is_empty() {
        return;
    }
    let joined = counted(&cmp.rows, &measures, &opts.joined(), opts.resamples);
    let family = stats::METRICS + joined.len();
    // in byte order of id, as every other mean's resampling walks the rows (§7)
    let mut rows: Vec<&crate::compare::QueryRow> = cmp.rows.iter().collect();
    rows.sort_unstable_by_key(|&r| r.id.as_str());
    let draws = |gated: bool| stats::Draws {
        resamples: opts.resamples,
        seed: opts.seed,
        // a gated measure's extra draws look at its family's thresholds (§7)
        family: if gated { family } else { 1 },
        correction: stats::Correction::Holm,
    };
    let out = measures
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let pairs: Vec<(f64, f64)> = rows
                .iter()
                .map(|r| (r.measures.baseline.0[i].1, r.measures.candidate.0[i].1))
                .collect();
            let test = match tested_at_k(m, opts.k) {
                Some(metric) => Test::Same(cmp.means.get(metric)),
                None => Test::Draw(draws(joined.contains(&m))),
            };
            (m, mean_delta(&pairs, test))
        })
        .collect();
    cmp.means.measures = NamedMeans(out);
    // overall, only a would-be member of the family is left out of it (§7.1)
    let members = opts.joined();
    for (m, md) in &mut cmp.means.measures.0 {
        md.out_of_reach = members.contains(m) && !joined.contains(m);
    }
    if !joined.is_empty() {
        join_overall(cmp, &joined);
    }
    if !opts.segment_gated.is_empty() {
        let resampling = stats::Resampling {
            resamples: opts.resamples,
            seed: opts.seed,
        };
        let columns = crate::compare::segments::Columns {
            computed: &measures,
            gated: opts.segment_gated,
        };
        crate::compare::segments::attach_named(
            cmp,
            gold,
            columns,
            resampling,
            opts.min_segment_queries,
        );
    }
}

/// The overall family grown by the named measures gate rules name and a named
/// primary that count ([`counts`]: `gated`, docs/contract.md §7.1): today's four
/// tested metrics and these, Holm-adjusted together; every member's MDE at the
/// family's first-step alpha (§7.3).
fn join_overall(cmp: &mut Comparison, gated: &[Measure]) {
    let alpha = stats::first_step_alpha(stats::METRICS + gated.len());
    let queries = cmp.rows.len();
    let means = &mut cmp.means;
    let mut slots: Vec<&mut MeanDelta> = vec![
        &mut means.rr,
        &mut means.recall,
        &mut means.hit,
        &mut means.ndcg,
    ];
    slots.extend(
        means
            .measures
            .0
            .iter_mut()
            .filter(|(m, _)| gated.contains(m))
            .map(|(_, md)| md),
    );
    for md in &mut slots {
        md.mde = Some(stats::power::mde(md.sd, queries, alpha));
        md.mde_alpha = Some(alpha);
    }
    crate::compare::segments::set_adjusted(
        slots,
        crate::compare::Family::Overall,
        stats::Correction::Holm,
    );
}

/// Candidate minus baseline, measure by measure.
pub fn deltas(row: &crate::compare::QueryRow) -> Named {
    let s = &row.measures;
    Named(
        s.baseline
            .0
            .iter()
            .zip(&s.candidate.0)
            .map(|(&(m, b), &(_, c))| (m, c - b))
            .collect(),
    )
}

/// How a named measure's mean delta gets its interval and p.
pub(crate) enum Test<'a> {
    /// Drawn by itself, over the queries it moved on (docs/contract.md §7).
    Draw(stats::Draws),
    /// The tested metric it is (at the gold's k): that metric's test.
    Same(&'a MeanDelta),
    /// None: a segment too few to test (docs/contract.md §6.6).
    Untested,
}

/// The tested metric a measure is at the gold's k, if it is one (`RR@k`, `R@k`,
/// `Success@k`, `nDCG@k`): its values per query are that metric's, so its test is
/// that metric's test, the draws and extra draws included (docs/contract.md §5.4).
pub fn tested_at_k(m: Measure, k: u32) -> Option<crate::model::Metric> {
    match m.builtin() {
        Some((metric, Some(c))) if c == k && crate::compare::TESTED.contains(&metric) => {
            Some(metric)
        }
        _ => None,
    }
}

/// A tested mean's statistics, as [`stats::paired`] gave them.
fn stats_of(md: &MeanDelta) -> Option<stats::DeltaStats> {
    Some(stats::DeltaStats {
        ci_low: md.ci_low?,
        ci_high: md.ci_high?,
        ci_method: md.ci_method?,
        p_value: md.p_value?,
        p_method: md.p_method?,
        p_mc_se: md.p_mc_se?,
        resamples: md.resamples?,
        extended: md.extended,
    })
}

/// Both sides' means, the mean delta and its statistics (none when `Untested`), from
/// (baseline, candidate) per query in id order.
pub(crate) fn mean_delta(pairs: &[(f64, f64)], test: Test) -> MeanDelta {
    let deltas: Vec<f64> = pairs.iter().map(|(b, c)| c - b).collect();
    let means = MeanDelta {
        baseline: crate::metrics::mean(pairs.iter().map(|p| p.0)),
        candidate: crate::metrics::mean(pairs.iter().map(|p| p.1)),
        delta: crate::metrics::mean(deltas.iter().copied()),
        ..MeanDelta::UNTESTED
    };
    let st = match test {
        Test::Untested => return means,
        Test::Same(tested) => stats_of(tested).expect("a tested metric has statistics"),
        Test::Draw(draws) => {
            // `paired` takes the tested metrics' deltas side by side; one column of
            // deltas with zeros beside it is tested as it would be alone
            let columns: Vec<[f64; stats::METRICS]> = deltas
                .iter()
                .map(|&d| std::array::from_fn(|j| if j == 0 { d } else { 0.0 }))
                .collect();
            stats::paired(&columns, draws)[0]
        }
    };
    // a drawn one whose p can never reach 0.05 counts in no family (§7.1)
    let out_of_reach = match test {
        Test::Draw(draws) => !counts(deltas.iter().copied(), draws.resamples),
        _ => false,
    };
    MeanDelta {
        ci_low: Some(st.ci_low),
        ci_high: Some(st.ci_high),
        ci_method: Some(st.ci_method),
        p_value: Some(st.p_value),
        p_method: Some(st.p_method),
        p_mc_se: Some(st.p_mc_se),
        resamples: Some(st.resamples),
        extended: st.extended,
        p_adjusted: None,
        family: None,
        correction: None,
        effect_size: Some(stats::effect_size(deltas.iter().copied())),
        sd: stats::power::sd(deltas.iter().copied()),
        // no family, so no first-step alpha to detect at
        mde: None,
        mde_alpha: None,
        out_of_reach,
        ..means
    }
}
