//! `compare --measure` (docs/contract.md §5.4): each named measure's means on
//! both sides, the mean delta, and its interval and sign-flip p as the
//! tested metrics get them (§7), seeded the same way. A named measure joins no
//! family: no adjusted p, and it never gates.

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::compare::{Comparison, MeanDelta};
use crate::metrics::named::Measure;
use crate::model::{GoldSet, ObservedRun};
use crate::stats;

/// Means by measure, in the order the measures were given; JSON keys are their names.
#[derive(Debug, Clone, Default)]
pub struct NamedMeans(pub Vec<(Measure, MeanDelta)>);

impl NamedMeans {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
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

/// Fill `cmp.means.measures` over the compared rows, drawn with `opts`' resamples and
/// seed. Nothing without `opts.measures`.
pub fn attach(
    cmp: &mut Comparison,
    gold: &GoldSet,
    [b, c]: [&ObservedRun; 2],
    opts: &crate::compare::Options,
) {
    let measures = opts.measures;
    if measures.is_empty() {
        return;
    }
    let min_grade = gold.meta.min_grade;
    // in byte order of id, as every other mean's resampling walks the rows (§7)
    let mut ids: Vec<(&str, usize)> = cmp
        .rows
        .iter()
        .filter_map(|r| Some((&*r.id, gold.lookup(&r.id)? as usize)))
        .collect();
    ids.sort_unstable();
    let draws = stats::Draws {
        resamples: opts.resamples,
        seed: opts.seed,
        family: 1,
        correction: stats::Correction::Holm,
    };
    let out = measures
        .iter()
        .map(|&m| {
            let side = |run: &ObservedRun, qi: usize| {
                let q = &gold.queries[qi];
                crate::metrics::mean(
                    run.observed_in_repeats(qi)
                        .map(|o| m.value(q, o, min_grade)),
                )
            };
            let pairs: Vec<(f64, f64)> = ids
                .iter()
                .map(|&(_, qi)| (side(b, qi), side(c, qi)))
                .collect();
            (m, mean_delta(&pairs, draws))
        })
        .collect();
    cmp.means.measures = NamedMeans(out);
}

/// Both sides' means, the mean delta and its statistics, from (baseline, candidate)
/// per query in id order.
fn mean_delta(pairs: &[(f64, f64)], draws: stats::Draws) -> MeanDelta {
    let deltas: Vec<f64> = pairs.iter().map(|(b, c)| c - b).collect();
    // `paired` takes the tested metrics' deltas side by side; one column of deltas
    // with zeros beside it is tested as it would be alone
    let columns: Vec<[f64; stats::METRICS]> = deltas
        .iter()
        .map(|&d| std::array::from_fn(|j| if j == 0 { d } else { 0.0 }))
        .collect();
    let st = stats::paired(&columns, draws)[0];
    MeanDelta {
        baseline: crate::metrics::mean(pairs.iter().map(|p| p.0)),
        candidate: crate::metrics::mean(pairs.iter().map(|p| p.1)),
        delta: crate::metrics::mean(deltas.iter().copied()),
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
    }
}
