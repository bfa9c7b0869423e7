//! Segments (docs/contract.md §6.6): the comparison repeated for the queries that
//! carry each tag, from the per-query rows already computed (no second read), and
//! the Holm adjustment of every p-value of the run.

use serde::Serialize;

use crate::compare::{Comparison, MeanDelta, MeansReport, QueryRow, Status, ids_with, means_of};
use crate::model::GoldSet;
use crate::stats;

/// Default of `--min-segment-queries`: smaller segments are shown, not tested.
pub const MIN_QUERIES: usize = 10;

/// One tag's comparison (JSON `segments[]`).
#[derive(Debug, Clone, Serialize)]
pub struct Segment {
    pub tag: String,
    /// Queries with a relevant doc that carry the tag.
    pub queries: usize,
    /// Fewer than `--min-segment-queries`: no CI, p or effect size, out of the Holm
    /// family, never failing a statistical gate.
    pub too_few: bool,
    pub means: MeansReport,
    pub newly_failed: Vec<String>,
}

/// Compute every segment of the comparison, then Holm-adjust every p-value of the
/// run (overall and segments that are not too few).
pub fn attach(cmp: &mut Comparison, gold: &GoldSet, min_queries: usize, resampling: (u32, u64)) {
    cmp.segments = segments_of(gold, &cmp.rows, min_queries, resampling);
    adjust(cmp);
}

/// The segments, worst RR delta first, then tag in natural order.
fn segments_of(
    gold: &GoldSet,
    rows: &[QueryRow],
    min_queries: usize,
    (resamples, seed): (u32, u64),
) -> Vec<Segment> {
    if gold.tags.is_empty() {
        return Vec::new();
    }
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); gold.tags.labels.len()];
    for (ri, r) in rows.iter().enumerate() {
        if let Some(qi) = gold.lookup(&r.id) {
            for &t in gold.tags.of(qi as usize) {
                buckets[t as usize].push(ri);
            }
        }
    }
    let mut out: Vec<Segment> = buckets
        .into_iter()
        .enumerate()
        .filter(|(_, b)| !b.is_empty())
        .map(|(t, mut b)| {
            // Means go over rows in id order, as the overall ones do.
            b.sort_unstable_by(|&x, &y| rows[x].id.as_bytes().cmp(rows[y].id.as_bytes()));
            let seg: Vec<&QueryRow> = b.iter().map(|&i| &rows[i]).collect();
            let too_few = seg.len() < min_queries;
            let mut means = means_of(&seg, if too_few { 0 } else { resamples }, seed);
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

fn untested(m: &mut MeanDelta) {
    m.ci_low = None;
    m.ci_high = None;
    m.p_value = None;
    m.effect_size = None;
}

/// The four tested means (RR, Recall, Hit, nDCG), mutable.
fn tested_mut(m: &mut MeansReport) -> [&mut MeanDelta; stats::METRICS] {
    [&mut m.rr, &mut m.recall, &mut m.hit, &mut m.ndcg]
}

/// Holm over the family: the tested metrics overall and in every segment that is
/// not too few.
fn adjust(cmp: &mut Comparison) {
    let mut slots: Vec<&mut MeanDelta> = tested_mut(&mut cmp.means).into_iter().collect();
    for s in cmp.segments.iter_mut().filter(|s| !s.too_few) {
        slots.extend(tested_mut(&mut s.means));
    }
    let p: Vec<f64> = slots.iter().map(|m| m.p_value.unwrap_or(1.0)).collect();
    for (m, adjusted) in slots.into_iter().zip(stats::holm(&p)) {
        m.p_adjusted = Some(adjusted);
    }
}

/// How many tests the Holm family holds.
pub fn family_size(cmp: &Comparison) -> usize {
    stats::METRICS * (1 + cmp.segments.iter().filter(|s| !s.too_few).count())
}

/// Natural order (docs/contract.md §6.6, §5.2): maximal runs of ASCII
/// digits compare by value, then the shorter run first; other runs by bytes.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let digits = a[i].is_ascii_digit();
        fn run(s: &[u8], from: usize, digits: bool) -> &[u8] {
            let len = s[from..]
                .iter()
                .take_while(|c| c.is_ascii_digit() == digits)
                .count();
            &s[from..from + len]
        }
        if digits != b[j].is_ascii_digit() {
            return a[i].cmp(&b[j]);
        }
        let (x, y) = (run(a, i, digits), run(b, j, digits));
        let order = if digits {
            let trim = |s: &[u8]| -> usize { s.iter().take_while(|&&c| c == b'0').count() };
            let (xs, ys) = (&x[trim(x)..], &y[trim(y)..]);
            xs.len()
                .cmp(&ys.len())
                .then_with(|| xs.cmp(ys))
                .then_with(|| x.len().cmp(&y.len()))
        } else {
            x.cmp(y)
        };
        if order != Ordering::Equal {
            return order;
        }
        i += x.len();
        j += y.len();
    }
    (a.len() - i).cmp(&(b.len() - j))
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;

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
