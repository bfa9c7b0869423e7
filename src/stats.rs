//! Paired statistics of per-query deltas: a percentile-bootstrap confidence interval
//! of the mean delta and the two-sided p-value of a paired sign-flip randomization
//! test (docs/contract.md §7). Seeded and reproducible: the same seed, resamples and
//! deltas give the same numbers on any machine and any number of threads.
//!
//! Only queries whose delta is not zero can move a resampled mean, so both are
//! computed over those `m` queries alone, which keeps 1000 resamples of a
//! 100,000-query comparison well under a second:
//! - bootstrap: drawing `n` queries with replacement and counting those among the
//!   `m` is Binomial(n, m/n); given that count `c`, the `c` draws are uniform over
//!   the `m`. So each resample draws `c`, then `c` indices in `0..m`.
//! - sign flip: a zero delta flips to itself, so only the `m` signs are drawn.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};
use rand_distr::{Binomial, Distribution};

/// How many metrics are resampled together (RR, Recall, Hit, nDCG).
pub const METRICS: usize = 4;

/// Resamples per work unit; each unit has its own generator, derived from the seed
/// and the unit's number, so threads do not change the result.
const UNIT: u32 = 50;

/// The statistics of one metric's mean delta.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeltaStats {
    pub ci_low: f64,
    pub ci_high: f64,
    pub p_value: f64,
}

fn unit_rng(seed: u64, stream: u64, unit: u32) -> Xoshiro256PlusPlus {
    // SplitMix-style mixing so neighbouring units get unrelated states.
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (u64::from(unit) << 32);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Xoshiro256PlusPlus::seed_from_u64(z ^ (z >> 31))
}

/// Run `f(unit, rng)` for every unit of resamples on up to two threads, returning
/// the per-resample results in order.
fn per_unit<T: Send>(
    resamples: u32,
    seed: u64,
    stream: u64,
    f: impl Fn(u32, &mut Xoshiro256PlusPlus) -> Vec<T> + Sync,
) -> Vec<T> {
    let units = resamples.div_ceil(UNIT);
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 2) as u32;
    let run = |range: std::ops::Range<u32>| -> Vec<T> {
        let mut out = Vec::new();
        for unit in range {
            let mut rng = unit_rng(seed, stream, unit);
            out.extend(f(unit, &mut rng));
        }
        out
    };
    if threads == 1 || units < 2 {
        return run(0..units);
    }
    let mid = units / 2;
    std::thread::scope(|s| {
        let second = s.spawn(|| run(mid..units));
        let mut first = run(0..mid);
        first.extend(second.join().expect("a resampling thread panicked"));
        first
    })
}

/// `rng.random_range(0..m)` as rand 0.10 computes it for a `usize` below 2^32
/// (Canon's method on 32 bits: one more draw only when the first is biased), written
/// out so the bootstrap's inner loop inlines it: the same numbers from the same
/// generator (checked in the tests), a third of the instructions.
fn below(rng: &mut Xoshiro256PlusPlus, m: usize) -> usize {
    let Ok(range) = u32::try_from(m) else {
        return rng.random_range(0..m);
    };
    let wmul = |x: u32| {
        let t = u64::from(x) * u64::from(range);
        ((t >> 32) as u32, t as u32)
    };
    let (mut result, lo) = wmul(rng.next_u32());
    if lo > range.wrapping_neg() {
        let (hi, _) = wmul(rng.next_u32());
        result += u32::from(lo.checked_add(hi).is_none());
    }
    result as usize
}

/// How many resamples unit `unit` holds.
fn unit_len(resamples: u32, unit: u32) -> u32 {
    UNIT.min(resamples - unit * UNIT)
}

/// The q-quantile of sorted values, linear between order statistics (numpy's
/// default).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// Statistics for each metric's mean delta. `deltas[i]` holds query i's deltas of
/// the [`METRICS`] metrics; `n` is the number of queries compared.
pub fn paired(deltas: &[[f64; METRICS]], resamples: u32, seed: u64) -> [DeltaStats; METRICS] {
    let n = deltas.len();
    let nonzero: Vec<[f64; METRICS]> = deltas
        .iter()
        .filter(|d| d.iter().any(|&x| x != 0.0))
        .copied()
        .collect();
    let m = nonzero.len();
    let observed: [f64; METRICS] = std::array::from_fn(|j| {
        if n == 0 {
            0.0
        } else {
            nonzero.iter().map(|d| d[j]).fold(0.0, |a, b| a + b) / n as f64
        }
    });
    if m == 0 || resamples == 0 {
        return [DeltaStats {
            ci_low: 0.0,
            ci_high: 0.0,
            p_value: 1.0,
        }; METRICS];
    }
    let nf = n as f64;
    let binomial = Binomial::new(n as u64, m as f64 / nf).expect("m <= n, so p lies in [0, 1]");
    let boot = per_unit(resamples, seed, 1, |unit, rng| {
        (0..unit_len(resamples, unit))
            .map(|_| {
                let count = binomial.sample(rng);
                let mut sums = [0.0; METRICS];
                for _ in 0..count {
                    let d = &nonzero[below(rng, m)];
                    for j in 0..METRICS {
                        sums[j] += d[j];
                    }
                }
                sums.map(|s| s / nf)
            })
            .collect()
    });
    let flips = per_unit(resamples, seed, 2, |unit, rng| {
        (0..unit_len(resamples, unit))
            .map(|_| {
                let mut sums = [0.0; METRICS];
                let mut bits = 0u64;
                for (i, d) in nonzero.iter().enumerate() {
                    if i % 64 == 0 {
                        bits = rng.next_u64();
                    }
                    // `-1.0 * x` is `x` with its sign bit flipped: the same bits
                    // without a branch on a random bit, which mispredicts half the time.
                    let flip = (!bits & 1) << 63;
                    bits >>= 1;
                    for j in 0..METRICS {
                        sums[j] += f64::from_bits(d[j].to_bits() ^ flip);
                    }
                }
                sums.map(|s| s / nf)
            })
            .collect::<Vec<[f64; METRICS]>>()
    });
    std::array::from_fn(|j| {
        let mut means: Vec<f64> = boot.iter().map(|b| b[j]).collect();
        means.sort_unstable_by(f64::total_cmp);
        // A flipped mean counts as extreme when it is at least as far from 0 as the
        // observed one, with a tolerance for rounding in the sums.
        let threshold = observed[j].abs() - 1e-12 * (1.0 + observed[j].abs());
        let hits = flips.iter().filter(|f| f[j].abs() >= threshold).count();
        DeltaStats {
            ci_low: quantile(&means, 0.025),
            ci_high: quantile(&means, 0.975),
            p_value: (1 + hits) as f64 / (1 + resamples) as f64,
        }
    })
}

/// Holm's step-down adjustment (Holm 1979) of a family of p-values, in their
/// order: sorted ascending, the i-th smallest (from 0) is multiplied by `m - i`, a
/// running maximum keeps the order, and values are capped at 1. Equal to
/// statsmodels' `multipletests(method="holm")` (docs/contract.md §7.1).
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let mut out = vec![0.0; m];
    let mut running = 0.0f64;
    for (i, &at) in order.iter().enumerate() {
        running = running.max(((m - i) as f64 * p[at]).min(1.0));
        out[at] = running;
    }
    out
}

/// Benjamini and Hochberg's step-up adjustment (1995) of a family of p-values, in
/// their order: sorted ascending, the i-th smallest (from 1) becomes
/// `min(1, m / i · p)`, then a running minimum from the largest keeps the order.
/// Equal to statsmodels' `multipletests(method="fdr_bh")` (docs/contract.md §7.1).
pub fn bh(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let mut out = vec![0.0; m];
    let mut running = 1.0f64;
    for (i, &at) in order.iter().enumerate().rev() {
        running = running.min(m as f64 / (i + 1) as f64 * p[at]);
        out[at] = running;
    }
    out
}

/// How a family of p-values is adjusted (docs/contract.md §7.1); also the values of
/// `--segment-correction`, by clap's derive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Correction {
    /// Holm's step-down: controls the chance of any false alarm in the family.
    #[default]
    Holm,
    /// Benjamini-Hochberg: controls the expected share of false alarms among the
    /// tests that fire; for screening many segments.
    Bh,
}

impl Correction {
    /// The adjusted p-values of a family, in its order.
    pub fn adjust(self, p: &[f64]) -> Vec<f64> {
        match self {
            Correction::Holm => holm(p),
            Correction::Bh => bh(p),
        }
    }

    /// As reports name it: `Holm` or `BH`.
    pub fn label(self) -> &'static str {
        match self {
            Correction::Holm => "Holm",
            Correction::Bh => "BH",
        }
    }
}

/// Cohen's d_z of paired deltas (Lakens 2013): their mean divided by their sample
/// standard deviation (n - 1). `None` when undefined: fewer than 2 deltas, or all
/// equal and not 0; `Some(0.0)` when every delta is 0 (docs/contract.md §7.2).
pub fn effect_size(deltas: impl Iterator<Item = f64> + Clone) -> Option<f64> {
    let n = deltas.clone().count();
    if n < 2 {
        return None;
    }
    let first = deltas.clone().next().unwrap_or(0.0);
    if deltas.clone().all(|d| d == first) {
        return (first == 0.0).then_some(0.0);
    }
    let mean = deltas.clone().sum::<f64>() / n as f64;
    let ss: f64 = deltas.map(|d| (d - mean) * (d - mean)).sum();
    let sd = (ss / (n - 1) as f64).sqrt();
    (sd > 0.0).then(|| mean / sd)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values from statsmodels and numpy (tests/fixtures/segments/
    /// make_expected.py): each case's inputs and expected outputs.
    const EXPECTED: &str = include_str!("../tests/fixtures/segments/expected.json");

    fn cases(key: &str) -> Vec<serde_json::Value> {
        let v: serde_json::Value = serde_json::from_str(EXPECTED).expect("the fixture parses");
        v[key].as_array().expect("an array of cases").clone()
    }

    #[test]
    fn below_draws_what_random_range_draws() {
        // Sizes around the bias boundary, a power of two, and the 2^32 fallback.
        for m in [
            1usize,
            2,
            3,
            7,
            1000,
            86_421,
            1 << 20,
            (1 << 31) + 1,
            u32::MAX as usize,
            1 << 33,
        ] {
            let mut a = unit_rng(7, 1, m as u32);
            let mut b = a.clone();
            for _ in 0..10_000 {
                assert_eq!(below(&mut a, m), b.random_range(0..m), "m = {m}");
            }
        }
    }

    #[test]
    fn flipping_the_sign_bit_is_multiplying_by_minus_one() {
        // The signs the test multiplied by before, as values (not folded away).
        let (plus, minus) = std::hint::black_box((1.0f64, -1.0f64));
        for x in [
            0.0,
            -0.0,
            1.0,
            -0.25,
            1.0 / 3.0,
            f64::MIN_POSITIVE,
            -1e-300,
            7e300,
        ] {
            let flipped = f64::from_bits(x.to_bits() ^ (1 << 63));
            assert_eq!(flipped.to_bits(), (minus * x).to_bits(), "{x}");
            assert_eq!(x.to_bits(), (plus * x).to_bits(), "{x}");
        }
    }

    fn floats(v: &serde_json::Value) -> Vec<f64> {
        v.as_array()
            .expect("an array")
            .iter()
            .map(|x| x.as_f64().expect("a number"))
            .collect()
    }

    #[test]
    fn holm_matches_statsmodels() {
        let all = cases("holm");
        assert!(all.len() >= 8);
        for case in all {
            let got = holm(&floats(&case["p"]));
            let want = floats(&case["adjusted"]);
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() < 1e-12,
                    "holm {:?}: {got:?} != {want:?}",
                    case["p"]
                );
            }
        }
    }

    /// statsmodels' `multipletests` (tests/fixtures/stats/compute.py).
    #[test]
    fn bh_and_holm_match_statsmodels() {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../tests/fixtures/stats/expected.json"))
                .expect("the fixture parses");
        for (key, correction) in [("bh", Correction::Bh), ("holm", Correction::Holm)] {
            let all = v[key].as_array().expect("cases");
            assert!(all.len() >= 10);
            for case in all {
                let got = correction.adjust(&floats(&case["p"]));
                let want = floats(&case["adjusted"]);
                assert_eq!(got.len(), want.len());
                for (g, w) in got.iter().zip(&want) {
                    assert!(
                        (g - w).abs() < 1e-12,
                        "{key} {:?}: {got:?} != {want:?}",
                        case["p"]
                    );
                }
            }
        }
    }

    #[test]
    fn effect_size_matches_numpy() {
        let all = cases("effect_size");
        assert!(all.len() >= 8);
        for case in all {
            let deltas = floats(&case["deltas"]);
            let got = effect_size(deltas.iter().copied());
            match case["d_z"].as_f64() {
                None => assert_eq!(got, None, "{deltas:?}"),
                Some(w) => {
                    let g = got.unwrap_or_else(|| panic!("{deltas:?}: None, expected {w}"));
                    assert!(
                        (g - w).abs() < 1e-9 * (1.0 + w.abs()),
                        "{deltas:?}: {g} != {w}"
                    );
                }
            }
        }
    }

    #[test]
    fn holm_never_lowers_a_p_value_and_keeps_the_order() {
        let p = [0.04, 0.001, 0.2, 0.04, 0.5];
        let adj = holm(&p);
        for (a, q) in adj.iter().zip(&p) {
            assert!(a >= q && *a <= 1.0);
        }
        assert_eq!(adj[0], adj[3]);
        assert!(adj[1] <= adj[0] && adj[0] <= adj[2] && adj[2] <= adj[4]);
    }
}
