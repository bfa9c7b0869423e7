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
    /// How p was computed (docs/contract.md §7).
    pub p_method: PMethod,
    /// The Monte Carlo standard error of p, `sqrt(p (1 - p) / resamples)`; `None`
    /// when p is exact.
    pub p_mc_se: Option<f64>,
    /// The sign flips drawn for p (`None` when exact); more than first planned when
    /// p's 99% interval held a threshold of the gate.
    pub resamples: Option<u32>,
    /// p needed more draws than first planned (its first 99% interval held a
    /// threshold of the gate).
    pub extended: bool,
}

/// How a sign-flip p was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PMethod {
    /// All 2^m sign patterns of the m queries whose delta is not 0.
    Exact,
    /// Random sign patterns; `p_mc_se` says how far p may be from the exact one.
    MonteCarlo,
}

/// The largest number of moved queries whose sign-flip p is enumerated exactly:
/// 2^(m-1) patterns (a pattern and its negation give the same |mean|), one
/// addition each in Gray-code order. Measured (release build, one core of the shared 2-core
/// development machine): m = 22 takes 16 ms, 24 takes 39 ms, 25 takes 122 ms (docs/contract.md §7).
pub const EXACT_MAX: usize = 24;

/// The most sign flips drawn for one p, with the extra draws near a threshold.
pub const MAX_RESAMPLES: u32 = 200_000;

/// The significance level the gate's tests use (docs/contract.md §7.1, §8).
pub const GATE_ALPHA: f64 = 0.05;

pub mod power;

/// The alpha of a family of `tests` tests after Holm's first step, `0.05 / tests`:
/// the level its smallest p must beat (also Benjamini-Hochberg's strictest), at
/// which the power figures are computed (docs/contract.md §7.3).
pub fn first_step_alpha(tests: usize) -> f64 {
    GATE_ALPHA / tests.max(1) as f64
}

/// The default number of sign flips for m moved queries (docs/contract.md §7):
/// 10,000 while m <= 10,000; above, 10^8 / m (the same work) rounded down to a
/// whole block of 50, never fewer than 1,000.
pub fn default_resamples(m: usize) -> u32 {
    if m <= 10_000 {
        return 10_000;
    }
    let r = (100_000_000 / m as u64) as u32;
    (r / UNIT * UNIT).max(1_000)
}

/// The extra-draws schedule after `first` draws: 2, 5, 10, 20, 50, … times the
/// first count, capped at [`MAX_RESAMPLES`] (docs/contract.md §7).
pub fn schedule(first: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut scale = 1u64;
    while u64::from(first) * scale < u64::from(MAX_RESAMPLES) {
        for step in [2u64, 5, 10] {
            let r = (u64::from(first) * scale * step).min(u64::from(MAX_RESAMPLES)) as u32;
            if out.last().is_none_or(|&l| r > l) && r > first {
                out.push(r);
            }
        }
        scale *= 10;
    }
    out
}

/// How the draws of one family's tests are made.
#[derive(Debug, Clone, Copy)]
pub struct Draws {
    /// `--resamples`: a fixed count (no extra draws); 0: [`default_resamples`].
    pub resamples: u32,
    pub seed: u64,
    /// How many tests the family holds and how it is adjusted: the raw-p thresholds
    /// whose crossing could change the gate (0.05 / c for Holm, 0.05 c / N for BH).
    pub family: usize,
    pub correction: Correction,
}

impl Draws {
    /// The raw-p thresholds that, crossed, change an adjusted p's side of 0.05.
    fn thresholds(&self) -> Vec<f64> {
        let n = self.family.max(1);
        (1..=n)
            .map(|c| match self.correction {
                Correction::Holm => GATE_ALPHA / c as f64,
                Correction::Bh => GATE_ALPHA * c as f64 / n as f64,
            })
            .collect()
    }
}

/// The exact two-sided sign-flip p of the sums of `x` (every value not 0): the
/// share of the 2^m sign patterns whose |sum| is at least the observed |sum|.
/// The last value keeps its sign (a pattern and its negation tie), the others are
/// walked in Gray-code order, one addition a step; the sum is recomputed from the
/// signs every 256 steps so rounding cannot build up.
pub fn exact_p(x: &[f64]) -> f64 {
    let m = x.len();
    if m == 0 {
        return 1.0;
    }
    let total: f64 = x.iter().sum();
    let scale: f64 = x.iter().map(|v| v.abs()).sum();
    let threshold = total.abs() - 1e-9 * scale;
    let free = &x[..m - 1];
    let patterns = 1u64 << free.len();
    // `sign[i]` is +2 or -2 times x[i]: the change of the sum when x[i] flips.
    let mut step: Vec<f64> = free.iter().map(|v| -2.0 * v).collect();
    let mut sum = total;
    let mut hits = u64::from(sum.abs() >= threshold);
    for g in 1..patterns {
        let bit = g.trailing_zeros() as usize;
        sum += step[bit];
        step[bit] = -step[bit];
        if g % 256 == 0 {
            let gray = g ^ (g >> 1);
            sum = x[m - 1]
                + free
                    .iter()
                    .enumerate()
                    .map(|(i, v)| if gray >> i & 1 == 1 { -v } else { *v })
                    .sum::<f64>();
        }
        hits += u64::from(sum.abs() >= threshold);
    }
    hits as f64 / patterns as f64
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
    units: std::ops::Range<u32>,
    seed: u64,
    stream: u64,
    f: impl Fn(u32, &mut Xoshiro256PlusPlus) -> Vec<T> + Sync,
) -> Vec<T> {
    let (first, units) = (units.start, units.end);
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
    if threads == 1 || units - first < 2 {
        return run(first..units);
    }
    let mid = first + (units - first) / 2;
    std::thread::scope(|s| {
        let second = s.spawn(|| run(mid..units));
        let mut first = run(first..mid);
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
/// the [`METRICS`] metrics; `n` is the number of queries compared. A metric whose
/// non-zero deltas number at most [`EXACT_MAX`] gets the exact p; the others a
/// Monte Carlo p from `draws` (docs/contract.md §7).
pub fn paired(deltas: &[[f64; METRICS]], draws: Draws) -> [DeltaStats; METRICS] {
    let n = deltas.len();
    let nonzero: Vec<[f64; METRICS]> = deltas
        .iter()
        .filter(|d| d.iter().any(|&x| x != 0.0))
        .copied()
        .collect();
    let m = nonzero.len();
    let resamples = match draws.resamples {
        0 => default_resamples(m),
        r => r,
    };
    let moved: [Vec<f64>; METRICS] =
        std::array::from_fn(|j| nonzero.iter().map(|d| d[j]).filter(|&x| x != 0.0).collect());
    if m == 0 {
        return std::array::from_fn(|_| DeltaStats {
            ci_low: 0.0,
            ci_high: 0.0,
            p_value: 1.0,
            p_method: PMethod::Exact,
            p_mc_se: None,
            resamples: None,
            extended: false,
        });
    }
    let (ci_low, ci_high) = bootstrap(&nonzero, n, resamples, draws.seed);
    let exact: [Option<f64>; METRICS] =
        std::array::from_fn(|j| (moved[j].len() <= EXACT_MAX).then(|| exact_p(&moved[j])));
    let monte_carlo = if exact.iter().all(Option::is_some) {
        [None; METRICS]
    } else {
        monte_carlo_p(&nonzero, resamples, draws, exact)
    };
    std::array::from_fn(|j| {
        let mut st = DeltaStats {
            ci_low: ci_low[j],
            ci_high: ci_high[j],
            p_value: 1.0,
            p_method: PMethod::Exact,
            p_mc_se: None,
            resamples: None,
            extended: false,
        };
        match (exact[j], monte_carlo[j]) {
            (Some(p), _) => st.p_value = p,
            (None, Some((p, r, extended))) => {
                st.p_value = p;
                st.p_method = PMethod::MonteCarlo;
                st.p_mc_se = Some((p * (1.0 - p) / f64::from(r)).sqrt());
                st.resamples = Some(r);
                st.extended = extended;
            }
            (None, None) => unreachable!("a metric without an exact p has a Monte Carlo one"),
        }
        st
    })
}

/// The percentile-bootstrap 95% interval of each metric's mean delta.
fn bootstrap(
    nonzero: &[[f64; METRICS]],
    n: usize,
    resamples: u32,
    seed: u64,
) -> ([f64; METRICS], [f64; METRICS]) {
    let m = nonzero.len();
    let nf = n as f64;
    let binomial = Binomial::new(n as u64, m as f64 / nf).expect("m <= n, so p lies in [0, 1]");
    let boot = per_unit(0..resamples.div_ceil(UNIT), seed, 1, |unit, rng| {
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
    let mut low = [0.0; METRICS];
    let mut high = [0.0; METRICS];
    for j in 0..METRICS {
        let mut means: Vec<f64> = boot.iter().map(|b: &[f64; METRICS]| b[j]).collect();
        means.sort_unstable_by(f64::total_cmp);
        low[j] = quantile(&means, 0.025);
        high[j] = quantile(&means, 0.975);
    }
    (low, high)
}

/// Each metric's Monte Carlo p, the draws behind it and whether it needed more
/// than `first` (its 99% interval held one of the family's thresholds): the
/// extra draws continue the same stream, so the first `first` are unchanged.
fn monte_carlo_p(
    nonzero: &[[f64; METRICS]],
    first: u32,
    draws: Draws,
    exact: [Option<f64>; METRICS],
) -> [Option<(f64, u32, bool)>; METRICS] {
    let observed: [f64; METRICS] =
        std::array::from_fn(|j| nonzero.iter().map(|d| d[j]).fold(0.0, |a, b| a + b));
    // A flipped sum counts as extreme when it is at least as far from 0 as the
    // observed one, with a tolerance for rounding in the sums.
    let threshold: [f64; METRICS] = std::array::from_fn(|j| {
        let scale: f64 = nonzero.iter().map(|d| d[j].abs()).sum();
        observed[j].abs() - 1e-9 * scale
    });
    let thresholds = draws.thresholds();
    let mut hits = flip_hits(nonzero, 0..first, draws.seed, &threshold);
    let mut done = first;
    let mut open: [bool; METRICS] = std::array::from_fn(|j| exact[j].is_none());
    let p_of = |h: u64, r: u32| (1 + h) as f64 / (1.0 + f64::from(r));
    let mut result: [Option<(f64, u32, bool)>; METRICS] = [None; METRICS];
    let fixed = draws.resamples != 0;
    let mut plan = if fixed { Vec::new() } else { schedule(first) };
    plan.reverse();
    loop {
        for j in 0..METRICS {
            if !open[j] {
                continue;
            }
            let p = p_of(hits[j], done);
            let half = 2.576 * (p * (1.0 - p) / f64::from(done)).sqrt();
            let near = thresholds
                .iter()
                .any(|&t| (p - half..=p + half).contains(&t));
            if !near || plan.is_empty() {
                result[j] = Some((p, done, done > first));
                open[j] = false;
            }
        }
        let Some(next) = plan.pop() else { break };
        if !open.iter().any(|&o| o) {
            break;
        }
        let more = flip_hits(nonzero, done..next, draws.seed, &threshold);
        for j in 0..METRICS {
            hits[j] += more[j];
        }
        done = next;
    }
    result
}

/// How many of the sign-flip draws `range` (numbered from 0; whole units of
/// [`UNIT`] except perhaps the last) reach each metric's threshold.
fn flip_hits(
    nonzero: &[[f64; METRICS]],
    range: std::ops::Range<u32>,
    seed: u64,
    threshold: &[f64; METRICS],
) -> [u64; METRICS] {
    let end = range.end;
    let units = range.start / UNIT..end.div_ceil(UNIT);
    let per = per_unit(units, seed, 2, |unit, rng| {
        let len = UNIT.min(end - unit * UNIT);
        let mut hits = [0u64; METRICS];
        for _ in 0..len {
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
            for j in 0..METRICS {
                hits[j] += u64::from(sums[j].abs() >= threshold[j]);
            }
        }
        vec![hits]
    });
    let mut total = [0u64; METRICS];
    for h in per {
        for j in 0..METRICS {
            total[j] += h[j];
        }
    }
    total
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

    /// Every sign pattern enumerated in Python with exact fractions
    /// (tests/fixtures/stats/compute.py).
    #[test]
    fn exact_p_matches_the_enumeration() {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../tests/fixtures/stats/expected.json"))
                .expect("the fixture parses");
        let all = v["exact_p"].as_array().expect("cases");
        assert!(all.len() >= 10);
        for case in all {
            let x = floats(&case["x"]);
            let want = case["p"].as_f64().expect("p");
            assert!(
                (exact_p(&x) - want).abs() < 1e-12,
                "{x:?}: {} != {want}",
                exact_p(&x)
            );
        }
    }

    /// Extra draws continue the stream: the first draws' hits are unchanged.
    #[test]
    fn extra_draws_continue_the_same_stream() {
        let rows: Vec<[f64; METRICS]> = (0..300)
            .map(|i| std::array::from_fn(|j| ((i * 31 + j * 7) % 11) as f64 / 11.0 - 0.45))
            .collect();
        let threshold = [1.0; METRICS];
        let whole = flip_hits(&rows, 0..5_000, 9, &threshold);
        let first = flip_hits(&rows, 0..1_000, 9, &threshold);
        let rest = flip_hits(&rows, 1_000..5_000, 9, &threshold);
        assert_eq!(whole, std::array::from_fn(|j| first[j] + rest[j]));
    }

    #[test]
    fn default_resamples_and_schedule_follow_their_rule() {
        assert_eq!(default_resamples(25), 10_000);
        assert_eq!(default_resamples(10_000), 10_000);
        assert_eq!(default_resamples(79_000), 1_250);
        assert_eq!(default_resamples(10_000_000), 1_000);
        assert_eq!(schedule(10_000), [20_000, 50_000, 100_000, 200_000]);
        assert_eq!(
            schedule(1_250),
            [2_500, 6_250, 12_500, 25_000, 62_500, 125_000, 200_000]
        );
    }

    /// At most EXACT_MAX moved queries: exact, no standard error; above: Monte
    /// Carlo with one.
    #[test]
    fn p_is_exact_up_to_the_bound() {
        let draws = Draws {
            resamples: 0,
            seed: 0,
            family: 4,
            correction: Correction::Holm,
        };
        let moved = |m: usize| -> Vec<[f64; METRICS]> {
            (0..m)
                .map(|i| [if i % 3 == 0 { -0.5 } else { 0.25 }; METRICS])
                .collect()
        };
        let at = paired(&moved(EXACT_MAX), draws)[0];
        assert_eq!(
            (at.p_method, at.p_mc_se, at.resamples),
            (PMethod::Exact, None, None)
        );
        let above = paired(&moved(EXACT_MAX + 1), draws)[0];
        assert_eq!(above.p_method, PMethod::MonteCarlo);
        assert!(above.p_mc_se.is_some_and(|se| se > 0.0));
        assert!(above.resamples.is_some_and(|r| r >= 10_000));
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
