//! Named measures (`--measure`, docs/contract.md §5.4) of one run: each query's value
//! (the mean over the run's repeats) and the means, keyed in JSON by the measure's
//! name in the order given.

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::metrics::named::Measure;
use crate::model::{GoldQuery, ObservedRun};

/// Values by measure, in the order the measures were given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Named(pub Vec<(Measure, f64)>);

impl Named {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The means over `rows` (0 for none), measure by measure.
    pub fn mean_of<'a>(
        rows: impl Iterator<Item = &'a Named> + Clone,
        measures: &[Measure],
    ) -> Self {
        Named(
            measures
                .iter()
                .enumerate()
                .map(|(i, &m)| (m, crate::metrics::mean(rows.clone().map(|r| r.0[i].1))))
                .collect(),
        )
    }
}

impl Serialize for Named {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (m, v) in &self.0 {
            map.serialize_entry(&m.name(), v)?;
        }
        map.end()
    }
}

/// Gold query `qi`'s value of each measure in `run`: the mean over its repeats
/// (docs/contract.md §6.5).
pub fn of_query(
    q: &GoldQuery,
    run: &ObservedRun,
    qi: usize,
    measures: &[Measure],
    min_grade: i64,
) -> Named {
    Named(
        measures
            .iter()
            .map(|m| {
                let v = crate::metrics::mean(
                    run.observed_in_repeats(qi)
                        .map(|o| m.value(q, o, min_grade)),
                );
                (*m, v)
            })
            .collect(),
    )
}

/// One measure's values over a side's repeats of one query: their mean, lowest and
/// highest (a named primary metric's, docs/contract.md §6.2 and §6.4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

/// Gold query `qi`'s values of `measure` over the repeats of `run`.
pub fn spread(
    q: &GoldQuery,
    run: &ObservedRun,
    qi: usize,
    measure: Measure,
    min_grade: i64,
) -> Spread {
    let values: Vec<f64> = run
        .observed_in_repeats(qi)
        .map(|o| measure.value(q, o, min_grade))
        .collect();
    Spread {
        mean: crate::metrics::mean(values.iter().copied()),
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

/// A warning for each of `measures` whose `rel=N` is above every grade the gold
/// gives: by construction it is 0 on every query, so it shows nothing and a rule on
/// it gates nothing (docs/contract.md §5.4). None when the gold judges no doc.
pub fn above_highest_grade(gold: &crate::model::GoldSet, measures: &[Measure]) -> Vec<String> {
    if !measures.iter().any(|m| m.rel.is_some()) {
        return Vec::new();
    }
    let Some(highest) = gold
        .queries
        .iter()
        .flat_map(|q| q.judged.iter().map(|j| j.grade))
        .max()
    else {
        return Vec::new();
    };
    measures
        .iter()
        .filter_map(|m| {
            let rel = m.rel.filter(|&rel| rel > highest)?;
            Some(format!(
                "measure {}: rel={rel} is above the gold's highest grade ({highest}), so it is 0 on every query",
                m.name()
            ))
        })
        .collect()
}
