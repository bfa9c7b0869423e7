//! Segments (docs/contract.md §6.6): the comparison repeated for the queries that
//! carry each tag, from the per-query rows already computed (no second read), and
//! the adjustment of the segment family's p-values (docs/contract.md §7.1).

use serde::Serialize;

use crate::compare::{
    Comparison, Family, MeanDelta, MeansReport, QueryRow, Status, ids_with, means_of, risk,
};
use crate::metrics::named::Measure;
use crate::model::GoldSet;
use crate::stats;
use crate::text::natural_cmp;

/// Default of `--min-segment-queries`: smaller segments are shown, not tested.
pub const MIN_QUERIES: usize = 10;

/// One tag's comparison (JSON `segments[]`).
#[derive(Debug, Clone, Serialize)]
pub struct Segment {
    pub tag: String,
    /// Queries with a relevant doc that carry the tag.
    pub queries: usize,
    /// Fewer than `--min-segment-queries`: no CI, p or effect size, out of the
    /// segment family, never failing a statistical gate.
    pub too_few: bool,
    pub means: MeansReport,
    pub newly_failed: Vec<String>,
    /// URisk and TRisk over the segment's queries (docs/contract.md §7.4); empty when
    /// it is too few.
    pub risk: Vec<crate::compare::risk::Risk>,
}

/// Compute every segment of the comparison (`opts.min_segment_queries`, resamples and
/// seed), then adjust the segment family's p-values with the comparison's
/// `segment_correction`. The four tested metrics' extra draws look at the thresholds
/// of the whole segment family, the measures `opts.segment_gated` names included
/// where they count in the segment (`measures::counts`, §7.1). The overall tests are a
/// family of their own (adjusted as the comparison is built): a tag never moves them.
pub fn attach(cmp: &mut Comparison, gold: &GoldSet, opts: &crate::compare::Options) {
    let computed = opts.computed();
    let columns = Columns {
        computed: &computed,
        gated: opts.segment_gated,
    };
    let tested = Tested {
        min_queries: opts.min_segment_queries,
        correction: cmp.segment_correction,
        columns,
        risk_alphas: &cmp.risk_alphas,
    };
    let resampling = stats::Resampling {
        resamples: opts.resamples,
        seed: opts.seed,
    };
    cmp.segments = segments_of(gold, &cmp.rows, resampling, tested);
    adjust_segments(&mut cmp.segments, cmp.segment_correction);
}

/// What the segments that are not too few get: their size, their family's
/// correction, the named measures per-segment rules name (each segment's tests: the
/// four and those of them that count there), the risk alphas.
struct Tested<'a> {
    min_queries: usize,
    correction: stats::Correction,
    columns: Columns<'a>,
    risk_alphas: &'a [f64],
}

/// How many tests the segment family holds, known before any is drawn: in each
/// bucket of at least `min_queries` queries, the four tested metrics and the named
/// measures per-segment rules name that count there (whose p, under `resamples`,
/// can reach 0.05 over the bucket's queries: `measures::counts`, §7.1).
fn family_size(
    rows: &[QueryRow],
    buckets: &[Vec<usize>],
    min_queries: usize,
    columns: Columns,
    resamples: u32,
) -> usize {
    buckets
        .iter()
        .filter(|b| !b.is_empty() && b.len() >= min_queries)
        .map(|b| {
            let counted = columns
                .gated
                .iter()
                .filter_map(|m| columns.computed.iter().position(|c| c == m))
                .filter(|&i| {
                    crate::compare::measures::counts_on(b.iter().map(|&r| &rows[r]), i, resamples)
                })
                .count();
            stats::METRICS + counted
        })
        .sum()
}

/// The segments, worst RR delta first, then tag in natural order.
fn segments_of(
    gold: &GoldSet,
    rows: &[QueryRow],
    resampling: stats::Resampling,
    Tested {
        min_queries,
        correction,
        columns,
        risk_alphas,
    }: Tested,
) -> Vec<Segment> {
    if gold.tags.is_empty() {
        return Vec::new();
    }
    let buckets = buckets(gold, rows);
    let draws = stats::Draws {
        resamples: resampling.resamples,
        seed: resampling.seed,
        family: family_size(rows, &buckets, min_queries, columns, resampling.resamples),
        correction,
    };
    let mut out: Vec<Segment> = buckets
        .into_iter()
        .enumerate()
        .filter(|(_, b)| !b.is_empty())
        .map(|(t, b)| {
            let seg: Vec<&QueryRow> = b.iter().map(|&i| &rows[i]).collect();
            let too_few = seg.len() < min_queries;
            let mut means = means_of(&seg, (!too_few).then_some(draws));
            if too_few {
                for m in tested_mut(&mut means) {
                    untested(m);
                }
            }
            Segment {
                tag: gold.tags.labels[t].to_string(),
                queries: seg.len(),
                too_few,
                means,
                newly_failed: ids_with(seg.iter().copied(), Status::NewlyFailed),
                risk: if too_few {
                    Vec::new()
                } else {
                    risk::of(&seg, risk_alphas)
                },
            }
        })
        .collect();
    out.sort_by(|a, b| {
        a.means
            .rr
            .delta
            .total_cmp(&b.means.rr.delta)
            .then_with(|| natural_cmp(&a.tag, &b.tag))
    });
    out
}

/// The indices in `rows` of each tag's queries (by the gold's label index), each in
/// id order: segment means go over rows in id order, as the overall ones do.
fn buckets(gold: &GoldSet, rows: &[QueryRow]) -> Vec<Vec<usize>> {
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); gold.tags.labels.len()];
    for (ri, r) in rows.iter().enumerate() {
        if let Some(qi) = gold.lookup(&r.id) {
            for &t in gold.tags.of(qi as usize) {
                buckets[t as usize].push(ri);
            }
        }
    }
    for b in &mut buckets {
        b.sort_unstable_by(|&x, &y| rows[x].id.as_bytes().cmp(rows[y].id.as_bytes()));
    }
    buckets
}

/// The named measures of each row (`computed`, in the rows' `measures` order) and
/// those of them per-segment rules name (`gated`).
#[derive(Clone, Copy)]
pub struct Columns<'a> {
    pub computed: &'a [Measure],
    pub gated: &'a [Measure],
}

/// Each segment's means of the named measures per-segment rules name
/// (docs/contract.md §6.6), from the rows' named values: tested, with the same
/// resamples and seed, in every segment that is not too few, where they join the
/// segment family beside the tested metrics (§7.1): the family is adjusted again
/// and every member's MDE set at its first-step alpha (§7.3). Their extra draws look
/// at the thresholds of the whole family, as the tested metrics' did ([`attach`]).
pub(crate) fn attach_named(
    cmp: &mut Comparison,
    gold: &GoldSet,
    columns: Columns,
    resampling: stats::Resampling,
    min_queries: usize,
) {
    let buckets = buckets(gold, &cmp.rows);
    let size = family_size(
        &cmp.rows,
        &buckets,
        min_queries,
        columns,
        resampling.resamples,
    );
    let draws = stats::Draws {
        resamples: resampling.resamples,
        seed: resampling.seed,
        family: size,
        correction: cmp.segment_correction,
    };
    let rows = &cmp.rows;
    for s in &mut cmp.segments {
        let Some(t) = gold.tags.labels.iter().position(|l| **l == *s.tag) else {
            continue;
        };
        let named = columns.gated.iter().filter_map(|&m| {
            let i = columns.computed.iter().position(|&c| c == m)?;
            let pairs: Vec<(f64, f64)> = buckets[t]
                .iter()
                .map(|&r| {
                    let sides = &rows[r].measures;
                    (sides.baseline.0[i].1, sides.candidate.0[i].1)
                })
                .collect();
            use crate::compare::measures::{Test, mean_delta};
            let test = if s.too_few {
                Test::Untested
            } else {
                Test::Draw(draws)
            };
            Some((m, mean_delta(&pairs, test)))
        });
        s.means.measures = crate::compare::measures::NamedMeans(named.collect());
    }
    let alpha = stats::first_step_alpha(size);
    for s in cmp.segments.iter_mut().filter(|s| !s.too_few) {
        let queries = s.queries;
        for m in family_mut(&mut s.means) {
            m.mde = Some(stats::power::mde(m.sd, queries, alpha));
            m.mde_alpha = Some(alpha);
        }
    }
    adjust_segments(&mut cmp.segments, cmp.segment_correction);
}

fn untested(m: &mut MeanDelta) {
    m.ci_low = None;
    m.ci_high = None;
    m.ci_method = None;
    m.p_value = None;
    m.effect_size = None;
    m.mde = None;
    m.mde_alpha = None;
}

/// The four tested means (RR, Recall, Hit, nDCG), mutable.
fn tested_mut(m: &mut MeansReport) -> [&mut MeanDelta; stats::METRICS] {
    [&mut m.rr, &mut m.recall, &mut m.hit, &mut m.ndcg]
}

/// Holm over the overall family: the four tested metrics (docs/contract.md §7.1).
pub(crate) fn adjust_overall(means: &mut MeansReport) {
    set_adjusted(
        tested_mut(means).into_iter().collect(),
        Family::Overall,
        stats::Correction::Holm,
    );
}

/// A segment's members of the segment family: the four tested means, then the named
/// measures per-segment rules name that count there (`measures::counts`: their p
/// can reach 0.05 over the segment's queries, docs/contract.md §7.1).
fn family_mut(m: &mut MeansReport) -> Vec<&mut MeanDelta> {
    let MeansReport {
        rr,
        recall,
        hit,
        ndcg,
        measures,
        ..
    } = m;
    let mut out = vec![rr, recall, hit, ndcg];
    out.extend(
        measures
            .0
            .iter_mut()
            .map(|(_, md)| md)
            .filter(|md| !md.out_of_reach),
    );
    out
}

/// The segment family: the tested metrics of every segment that is not too few, and
/// the named measures per-segment rules name there.
fn adjust_segments(segments: &mut [Segment], correction: stats::Correction) {
    let slots = segments
        .iter_mut()
        .filter(|s| !s.too_few)
        .flat_map(|s| family_mut(&mut s.means))
        .collect();
    set_adjusted(slots, Family::Segments, correction);
}

pub(crate) fn set_adjusted(
    slots: Vec<&mut MeanDelta>,
    family: Family,
    correction: stats::Correction,
) {
    let p: Vec<f64> = slots.iter().map(|m| m.p_value.unwrap_or(1.0)).collect();
    for (m, adjusted) in slots.into_iter().zip(correction.adjust(&p)) {
        m.p_adjusted = Some(adjusted);
        m.family = Some(family);
        m.correction = Some(correction);
    }
}

/// How many tests the segment family holds: the tested metrics and the named
/// measures per-segment rules name that count there (`measures::counts`), in every
/// segment that is not too few.
pub fn segment_family_size(cmp: &Comparison) -> usize {
    cmp.segments
        .iter()
        .filter(|s| !s.too_few)
        .map(|s| stats::METRICS + s.means.measures.in_family())
        .sum()
}

#[cfg(test)]
mod tests {
    use crate::text::natural_cmp;

    #[test]
    fn natural_order() {
        let mut v = vec!["Q-10", "Q-9", "Q-01", "Q-1", "b", "a2", "a10", "2", "10"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            ["2", "10", "Q-1", "Q-01", "Q-9", "Q-10", "a2", "a10", "b"]
        );
    }
}
