//! `compare --cutoffs` (docs/contract.md §6.7): RR, Recall, Hit, P and nDCG of both
//! sides at each extra cutoff, per query and as means. Reported only: statuses, k and
//! every gate stay at the pinned k.

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::compare::Comparison;
use crate::eval::cutoffs::{AT_METRICS, At, ByCutoff};
use crate::metrics::Metric;
use crate::model::{GoldSet, ObservedRun, Side};

/// A mean at one cutoff: both sides and the mean of the per-query deltas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MeanAt {
    pub baseline: f64,
    pub candidate: f64,
    pub delta: f64,
}

/// The five metrics' means at one cutoff, shaped as `means` (without statistics).
/// AP has no cutoff variant (it is reported at k only): `get(Metric::Ap)` is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MeansAtCutoff {
    pub rr: MeanAt,
    pub recall: MeanAt,
    pub hit: MeanAt,
    pub precision: MeanAt,
    pub ndcg: MeanAt,
}

impl MeansAtCutoff {
    pub fn get(&self, m: Metric) -> Option<MeanAt> {
        match m {
            Metric::Rr => Some(self.rr),
            Metric::Recall => Some(self.recall),
            Metric::Hit => Some(self.hit),
            Metric::Precision => Some(self.precision),
            Metric::Ndcg => Some(self.ndcg),
            Metric::Ap => None,
        }
    }

    fn get_mut(&mut self, m: Metric) -> Option<&mut MeanAt> {
        match m {
            Metric::Rr => Some(&mut self.rr),
            Metric::Recall => Some(&mut self.recall),
            Metric::Hit => Some(&mut self.hit),
            Metric::Precision => Some(&mut self.precision),
            Metric::Ndcg => Some(&mut self.ndcg),
            Metric::Ap => None,
        }
    }
}

/// Means by cutoff, in cutoff order; JSON keys are the cutoffs as strings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeansAt(pub Vec<(u32, MeansAtCutoff)>);

impl MeansAt {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for MeansAt {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (c, m) in &self.0 {
            map.serialize_entry(&c.to_string(), m)?;
        }
        map.end()
    }
}

/// Fill every row's `at` (each side's mean over its repeats at each cutoff) and the
/// means at each cutoff over the compared rows. Nothing when `cutoffs` is empty.
pub fn attach(cmp: &mut Comparison, gold: &GoldSet, runs: Side<&ObservedRun>, cutoffs: &[u32]) {
    if cutoffs.is_empty() {
        return;
    }
    let min_grade = gold.meta.min_grade;
    for row in &mut cmp.rows {
        let Some(qi) = gold.lookup(&row.id).map(|i| i as usize) else {
            continue;
        };
        let q = &gold.queries[qi];
        let side = |run: &ObservedRun| {
            ByCutoff(
                cutoffs
                    .iter()
                    .map(|&k| {
                        let r = crate::eval::over_repeats(q, run, qi, k, min_grade);
                        (k, At::of(&r.scores))
                    })
                    .collect(),
            )
        };
        row.at = runs.map(side);
    }
    cmp.means_at = means_at(cmp, cutoffs);
}

/// The mean of each side, and of the per-query deltas, at each cutoff.
fn means_at(cmp: &Comparison, cutoffs: &[u32]) -> MeansAt {
    let n = cmp.rows.len().max(1) as f64;
    MeansAt(
        cutoffs
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let mut m = MeansAtCutoff::default();
                for metric in AT_METRICS {
                    let Some(slot) = m.get_mut(metric) else {
                        continue;
                    };
                    for row in &cmp.rows {
                        let at = |side: &ByCutoff| side.0[i].1.get(metric);
                        let Side {
                            baseline: b,
                            candidate: c,
                        } = row.at.as_ref().map(at);
                        slot.baseline += b;
                        slot.candidate += c;
                        slot.delta += c - b;
                    }
                    slot.baseline /= n;
                    slot.candidate /= n;
                    slot.delta /= n;
                }
                (k, m)
            })
            .collect(),
    )
}

/// Serialize per-query rows with each side's `at` inside `baseline` and
/// `candidate`, and the named measures (§5.4) as `measures` inside `baseline`,
/// `candidate` and `delta` (JSON only; rows without either are written as they are).
pub fn serialize_rows<S: serde::Serializer>(
    rows: &[super::QueryRow],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(rows.len()))?;
    for row in rows {
        let named = &row.measures;
        if row.at.baseline.is_empty() && named.baseline.is_empty() {
            seq.serialize_element(row)?;
            continue;
        }
        let mut value: serde_json::Value = to_json(row)?;
        let mut insert = |key: &str, inner: &str, v: serde_json::Value| {
            if let Some(side) = value.get_mut(key).and_then(|v| v.as_object_mut()) {
                side.insert(inner.into(), v);
            }
        };
        for (role, at) in row.at.with_roles() {
            if !at.is_empty() {
                insert(role.name(), "at", to_json(at)?);
            }
        }
        if !named.baseline.is_empty() {
            insert("baseline", "measures", to_json(&named.baseline)?);
            insert("candidate", "measures", to_json(&named.candidate)?);
            insert("delta", "measures", to_json(&super::measures::deltas(row))?);
        }
        seq.serialize_element(&value)?;
    }
    seq.end()
}

fn to_json<E: serde::ser::Error>(v: &impl Serialize) -> Result<serde_json::Value, E> {
    serde_json::to_value(v).map_err(E::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_metric_reads_its_own_mean_and_ap_has_none() {
        let at = |v: f64| MeanAt {
            baseline: v,
            candidate: v,
            delta: 0.0,
        };
        let m = MeansAtCutoff {
            rr: at(1.0),
            recall: at(2.0),
            hit: at(3.0),
            precision: at(4.0),
            ndcg: at(5.0),
        };
        let got: Vec<Option<f64>> = [
            Metric::Rr,
            Metric::Recall,
            Metric::Hit,
            Metric::Precision,
            Metric::Ndcg,
            Metric::Ap,
        ]
        .into_iter()
        .map(|x| m.get(x).map(|v| v.baseline))
        .collect();
        assert_eq!(
            got,
            [Some(1.0), Some(2.0), Some(3.0), Some(4.0), Some(5.0), None]
        );
    }
}
