//! `Side<T>`: one value for the baseline and one for the candidate, the two runs every
//! comparison holds (docs/contract.md §6.2), instead of pairs, two-element arrays and
//! `baseline_x`/`candidate_x` fields.

use std::fmt;
use std::ops::{Index, IndexMut};

use serde::Serialize;

/// Which of the two compared runs: the one a change is measured from, or the one it
/// is measured on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Baseline,
    Candidate,
}

impl Role {
    /// The name users and reports see: `baseline` or `candidate`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Baseline => "baseline",
            Role::Candidate => "candidate",
        }
    }

    /// The other run.
    pub fn other(self) -> Role {
        match self {
            Role::Baseline => Role::Candidate,
            Role::Candidate => Role::Baseline,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One `T` for each run. Serialized as `{"baseline": …, "candidate": …}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Side<T> {
    pub baseline: T,
    pub candidate: T,
}

impl<T> Side<T> {
    pub const fn new(baseline: T, candidate: T) -> Self {
        Self {
            baseline,
            candidate,
        }
    }

    /// The same value on both sides.
    pub fn both(value: T) -> Self
    where
        T: Clone,
    {
        Self::new(value.clone(), value)
    }

    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> Side<U> {
        let baseline = f(self.baseline);
        Side::new(baseline, f(self.candidate))
    }

    pub fn as_ref(&self) -> Side<&T> {
        Side::new(&self.baseline, &self.candidate)
    }

    pub fn as_mut(&mut self) -> Side<&mut T> {
        Side::new(&mut self.baseline, &mut self.candidate)
    }

    /// Baseline first, then candidate.
    pub fn iter(&self) -> std::array::IntoIter<&T, 2> {
        [&self.baseline, &self.candidate].into_iter()
    }

    /// `(role, value)`, baseline first.
    pub fn with_roles(&self) -> std::array::IntoIter<(Role, &T), 2> {
        [
            (Role::Baseline, &self.baseline),
            (Role::Candidate, &self.candidate),
        ]
        .into_iter()
    }

    pub fn into_array(self) -> [T; 2] {
        [self.baseline, self.candidate]
    }
}

impl<T, E> Side<Result<T, E>> {
    /// `Ok` with both values, or the first error (baseline first).
    pub fn transpose(self) -> Result<Side<T>, E> {
        Ok(Side::new(self.baseline?, self.candidate?))
    }
}

impl<T> Index<Role> for Side<T> {
    type Output = T;
    fn index(&self, role: Role) -> &T {
        match role {
            Role::Baseline => &self.baseline,
            Role::Candidate => &self.candidate,
        }
    }
}

impl<T> IndexMut<Role> for Side<T> {
    fn index_mut(&mut self, role: Role) -> &mut T {
        match role {
            Role::Baseline => &mut self.baseline,
            Role::Candidate => &mut self.candidate,
        }
    }
}

impl<T> From<[T; 2]> for Side<T> {
    fn from([baseline, candidate]: [T; 2]) -> Self {
        Self::new(baseline, candidate)
    }
}

impl<T> IntoIterator for Side<T> {
    type Item = T;
    type IntoIter = std::array::IntoIter<T, 2>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_array().into_iter()
    }
}

impl<'a, T> IntoIterator for &'a Side<T> {
    type Item = &'a T;
    type IntoIter = std::array::IntoIter<&'a T, 2>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_named_as_reports_name_them() {
        assert_eq!(Role::Baseline.to_string(), "baseline");
        assert_eq!(Role::Candidate.to_string(), "candidate");
        assert_eq!(Role::Baseline.other(), Role::Candidate);
        assert_eq!(Role::Candidate.other(), Role::Baseline);
    }

    #[test]
    fn map_and_index_keep_each_value_on_its_side() {
        let mut repeats = Side::new(3u32, 5u32);
        assert_eq!(repeats.map(|n| n * 10), Side::new(30, 50));
        assert_eq!(repeats[Role::Baseline], 3);
        assert_eq!(repeats[Role::Candidate], 5);
        repeats[Role::Candidate] += 1;
        assert_eq!(repeats.candidate, 6);
    }

    #[test]
    fn iteration_is_baseline_first() {
        let s = Side::from([1, 2]);
        assert_eq!(s.iter().copied().collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(
            s.with_roles().map(|(r, v)| (r, *v)).collect::<Vec<_>>(),
            vec![(Role::Baseline, 1), (Role::Candidate, 2)]
        );
        assert_eq!(s.into_iter().sum::<i32>(), 3);
        assert_eq!(Side::new(7, 8).into_array(), [7, 8]);
    }

    #[test]
    fn transpose_returns_the_baseline_error_first() {
        let both: Side<Result<u8, &str>> = Side::new(Err("b"), Err("c"));
        assert_eq!(both.transpose(), Err("b"));
        let cand: Side<Result<u8, &str>> = Side::new(Ok(1), Err("c"));
        assert_eq!(cand.transpose(), Err("c"));
        let ok: Side<Result<u8, &str>> = Side::new(Ok(1), Ok(2));
        assert_eq!(ok.transpose(), Ok(Side::new(1, 2)));
    }

    #[test]
    fn serializes_with_the_role_names() {
        let json = serde_json::to_string(&Side::new(1, 2)).unwrap();
        assert_eq!(json, r#"{"baseline":1,"candidate":2}"#);
        assert_eq!(
            serde_json::to_string(&Role::Candidate).unwrap(),
            "\"candidate\""
        );
    }
}
