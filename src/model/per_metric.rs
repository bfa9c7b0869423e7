//! `Metric`, the measures a mean, a delta or a gate can name, and `PerMetric<T>`: one
//! `T` for each, indexed by the metric, iterated in the contract's order (RR, Recall,
//! Hit, P, nDCG, AP: docs/contract.md §5), serialized as a JSON object keyed by
//! `Metric::key` in that order.

use std::ops::{Index, IndexMut};

use serde::ser::{Serialize, SerializeMap, Serializer};

/// The metrics a mean, a delta or a gate can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    Rr,
    Recall,
    Hit,
    Precision,
    Ndcg,
    Ap,
}

impl Metric {
    /// Every metric, in the contract's order.
    pub const ALL: [Metric; 6] = [
        Metric::Rr,
        Metric::Recall,
        Metric::Hit,
        Metric::Precision,
        Metric::Ndcg,
        Metric::Ap,
    ];

    /// The position in `ALL`.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            Metric::Rr => "rr",
            Metric::Recall => "recall",
            Metric::Hit => "hit",
            Metric::Precision => "precision",
            Metric::Ndcg => "ndcg",
            Metric::Ap => "ap",
        }
    }

    /// The metric a JSON key names.
    pub fn from_key(key: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.key() == key)
    }

    /// The label at cutoff k, as a reader expects it.
    pub fn label(self, k: u32) -> String {
        match self {
            Metric::Rr => format!("MRR@{k}"),
            Metric::Recall => format!("Recall@{k}"),
            Metric::Hit => format!("Hit@{k}"),
            Metric::Precision => format!("P@{k}"),
            Metric::Ndcg => format!("nDCG@{k}"),
            Metric::Ap => "MAP".to_string(),
        }
    }
}

/// One `T` per metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PerMetric<T>([T; 6]);

impl<T> PerMetric<T> {
    pub fn from_fn(mut f: impl FnMut(Metric) -> T) -> Self {
        Self(Metric::ALL.map(&mut f))
    }

    /// The same value for every metric.
    pub fn splat(value: T) -> Self
    where
        T: Clone,
    {
        Self::from_fn(|_| value.clone())
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> PerMetric<U> {
        PerMetric(self.0.map(f))
    }

    /// `map` with the metric of each value at hand.
    pub fn map_with_metric<U>(self, mut f: impl FnMut(Metric, T) -> U) -> PerMetric<U> {
        let mut metrics = Metric::ALL.into_iter();
        PerMetric(self.0.map(|v| f(metrics.next().expect("six metrics"), v)))
    }

    pub fn as_ref(&self) -> PerMetric<&T> {
        PerMetric(self.0.each_ref())
    }

    pub fn as_mut(&mut self) -> PerMetric<&mut T> {
        PerMetric(self.0.each_mut())
    }

    pub fn zip<U>(self, other: PerMetric<U>) -> PerMetric<(T, U)> {
        let mut other = other.0.into_iter();
        PerMetric(self.0.map(|v| (v, other.next().expect("six metrics"))))
    }

    /// `(metric, value)` in the contract's order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Metric, &T)> + Clone {
        Metric::ALL.into_iter().zip(self.0.iter())
    }

    /// `(metric, value)` in the contract's order, mutably.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (Metric, &mut T)> {
        Metric::ALL.into_iter().zip(self.0.iter_mut())
    }

    /// The values alone, in the contract's order.
    pub fn values(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }
}

impl<T> Index<Metric> for PerMetric<T> {
    type Output = T;
    fn index(&self, metric: Metric) -> &T {
        &self.0[metric.index()]
    }
}

impl<T> IndexMut<Metric> for PerMetric<T> {
    fn index_mut(&mut self, metric: Metric) -> &mut T {
        &mut self.0[metric.index()]
    }
}

impl<T> IntoIterator for PerMetric<T> {
    type Item = (Metric, T);
    type IntoIter = std::iter::Zip<std::array::IntoIter<Metric, 6>, std::array::IntoIter<T, 6>>;
    fn into_iter(self) -> Self::IntoIter {
        Metric::ALL.into_iter().zip(self.0)
    }
}

/// `{"rr": …, "recall": …, "hit": …, "precision": …, "ndcg": …, "ap": …}`.
impl<T: Serialize> Serialize for PerMetric<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(6))?;
        for (metric, value) in self.iter() {
            map.serialize_entry(metric.key(), value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_is_in_index_order() {
        for (i, m) in Metric::ALL.into_iter().enumerate() {
            assert_eq!(m.index(), i);
            assert_eq!(Metric::from_key(m.key()), Some(m));
        }
        assert_eq!(Metric::from_key("map"), None);
    }

    #[test]
    fn indexing_reads_and_writes_the_named_metric() {
        let mut v = PerMetric::from_fn(|m| m.key().len());
        assert_eq!(v[Metric::Rr], 2);
        assert_eq!(v[Metric::Precision], 9);
        v[Metric::Ap] = 100;
        assert_eq!(v[Metric::Ap], 100);
        assert_eq!(v[Metric::Ndcg], 4);
        for (_, x) in v.iter_mut() {
            *x += 1;
        }
        assert_eq!(v[Metric::Rr], 3);
    }

    #[test]
    fn iteration_follows_the_contract_order() {
        let v = PerMetric::from_fn(Metric::key);
        let keys: Vec<_> = v.iter().map(|(m, k)| (m, *k)).collect();
        assert_eq!(
            keys,
            Metric::ALL
                .into_iter()
                .map(|m| (m, m.key()))
                .collect::<Vec<_>>()
        );
        let owned: Vec<_> = v.into_iter().map(|(_, k)| k).collect();
        assert_eq!(owned, ["rr", "recall", "hit", "precision", "ndcg", "ap"]);
    }

    #[test]
    fn map_and_zip_keep_each_value_with_its_metric() {
        let a = PerMetric::from_fn(|m| m.index() as f64);
        let b = a.map(|x| x * 2.0);
        assert_eq!(b[Metric::Ap], 10.0);
        let z = a.zip(b);
        assert_eq!(z[Metric::Hit], (2.0, 4.0));
        let labelled = a.map_with_metric(|m, x| format!("{}={x}", m.key()));
        assert_eq!(labelled[Metric::Recall], "recall=1");
        assert_eq!(PerMetric::splat(7)[Metric::Ndcg], 7);
        assert_eq!(*a.as_ref()[Metric::Precision], 3.0);
    }

    #[test]
    fn serializes_as_an_object_in_contract_order() {
        let v = PerMetric::from_fn(|m| m.index());
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"rr":0,"recall":1,"hit":2,"precision":3,"ndcg":4,"ap":5}"#
        );
    }
}
