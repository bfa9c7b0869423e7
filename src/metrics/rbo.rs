//! Extrapolated rank-biased overlap (Webber, Moffat and Zobel 2010, equation 32,
//! RBO_ext for lists of uneven length) between two returned lists, each given as the
//! hashes of its doc ids in rank order (docs/contract.md §6.5). Equal to the `rbo`
//! package's `RankingSimilarity(a, b).rbo_ext(p)`.

use rustc_hash::FxHashSet;

thread_local! {
    static SCRATCH: std::cell::RefCell<Rbo> = std::cell::RefCell::default();
}

/// [`Rbo::ext`] with this thread's scratch space (no allocation per pair).
pub fn rbo_ext(a: &[u64], b: &[u64], p: f64) -> f64 {
    SCRATCH.with(|r| r.borrow_mut().ext(a, b, p))
}

/// Reusable scratch space for [`Rbo::ext`]: two sets, cleared per pair.
#[derive(Default)]
pub struct Rbo {
    short_seen: FxHashSet<u64>,
    long_seen: FxHashSet<u64>,
}

impl Rbo {
    /// RBO_ext of `a` and `b` with persistence `p` (0 < p < 1): 1 for two empty lists,
    /// 0 for one empty list against a non-empty one; clamped to [0, 1] against
    /// rounding. Lists hold no duplicate (a run with one is an input error).
    pub fn ext(&mut self, a: &[u64], b: &[u64], p: f64) -> f64 {
        if a.is_empty() && b.is_empty() {
            return 1.0;
        }
        if a.is_empty() || b.is_empty() {
            return 0.0;
        }
        let (short, long) = if a.len() > b.len() { (b, a) } else { (a, b) };
        let (s, l) = (short.len(), long.len());
        self.short_seen.clear();
        self.long_seen.clear();
        // Overlap X_d at depth d; `sum` is (1-p) Σ p^(d-1) A_d, `disjoint` the second
        // term of equation 32 and `ext` its last term, as at the deepest d so far.
        let mut overlap = 0usize;
        let mut x_s = 0usize;
        let (mut sum, mut disjoint, mut ext) = (0.0, 0.0, 0.0);
        let mut weight = 1.0 - p; // (1-p) p^(d-1)
        let mut p_d = p; // p^d
        for d in 1..=l {
            let item = long[d - 1];
            let agreement = if d <= s {
                let other = short[d - 1];
                self.short_seen.insert(other);
                self.long_seen.insert(item);
                if other == item {
                    overlap += 1;
                } else {
                    overlap += usize::from(self.long_seen.contains(&other));
                    overlap += usize::from(self.short_seen.contains(&item));
                }
                if d == s {
                    x_s = overlap;
                }
                overlap as f64 / d as f64
            } else {
                overlap += usize::from(self.short_seen.contains(&item));
                disjoint += weight * (x_s as f64 * (d - s) as f64 / d as f64 / s as f64);
                overlap as f64 / d as f64
            };
            sum += weight * agreement;
            ext = if d <= s {
                agreement * p_d
            } else {
                ((overlap - x_s) as f64 / d as f64 + x_s as f64 / s as f64) * p_d
            };
            weight *= p;
            p_d *= p;
        }
        (sum + disjoint + ext).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Rbo;
    use crate::model::doc_hash;

    fn hashes(field: &str) -> Vec<u64> {
        if field.is_empty() {
            return Vec::new();
        }
        field.split(';').map(|d| doc_hash(d.as_bytes())).collect()
    }

    /// Every stored pair (tests/fixtures/drift/rbo_pairs.tsv, from the `rbo` package)
    /// agrees to 1e-9, either way round.
    #[test]
    fn equals_the_rbo_package_on_the_stored_pairs() {
        let text = include_str!("../../tests/fixtures/drift/rbo_pairs.tsv");
        let mut rbo = Rbo::default();
        let mut checked = 0;
        for line in text.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "{line}");
            let p: f64 = f[1].parse().unwrap();
            let (a, b) = (hashes(f[2]), hashes(f[3]));
            let expected: f64 = f[4].parse().unwrap();
            for got in [rbo.ext(&a, &b, p), rbo.ext(&b, &a, p)] {
                assert!(
                    (got - expected).abs() <= 1e-9,
                    "{}: p {p}: {got} != {expected}",
                    f[0]
                );
            }
            checked += 1;
        }
        assert!(checked >= 100, "only {checked} pairs");
    }

    #[test]
    fn empty_lists() {
        let mut rbo = Rbo::default();
        assert_eq!(rbo.ext(&[], &[], 0.9), 1.0);
        assert_eq!(rbo.ext(&[], &[1], 0.9), 0.0);
        assert_eq!(rbo.ext(&[1, 2], &[], 0.9), 0.0);
    }
}
