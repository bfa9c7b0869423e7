//! Paired statistics of per-query deltas: the two-sided p-value of a paired
//! sign-flip randomization test and the 95% interval of the mean delta obtained by
//! inverting that test (docs/contract.md §7). Seeded and reproducible: the same seed,
//! resamples and deltas give the same numbers on any machine and any number of threads.
//!
//! Only queries whose delta is not zero can move a flipped sum (a zero flips to
//! itself), so the signs are drawn for those `m` queries alone, which keeps the
//! default draws of a 100,000-query comparison well under a second. The interval also
//! needs how many of the other queries a pattern flips (the test of a shift d moves
//! their zeros to −d): a Binomial(n − m, 1/2) count, drawn on a stream of its own
//! (src/stats/interval.rs).

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};

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
    /// How the interval was computed (docs/contract.md §7).
    pub ci_method: CiMethod,
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

/// How an interval was computed: by inverting the sign-flip test, exactly or from
/// the p's random sign patterns (docs/contract.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CiMethod {
    SignFlipExact,
    SignFlipMonteCarlo,
}

/// The largest number of moved queries whose test is enumerated exactly: its p over
/// 2^(m-1) patterns (a pattern and its negation give the same |mean|) and its
/// interval, whose ends take about 80 passes over the same patterns (bisection to
/// 1e-12). Measured for one metric, p and interval (release build, the shared 2-core
/// development machine): m = 16 takes 25-30 ms, 17 takes 50-68 ms, 18 takes 87-104 ms;
/// the p alone took 39 ms at m = 24 (docs/contract.md §7).
pub const EXACT_MAX: usize = 16;

/// The most sign flips drawn for one p, with the extra draws near a threshold.
pub const MAX_RESAMPLES: u32 = 200_000;

/// The significance level the gate's tests use (docs/contract.md §7.1, §8).
pub const GATE_ALPHA: f64 = 0.05;

/// `--seed` and `--resamples`: the draws of the sign-flip tests and their intervals
/// (docs/contract.md §7).
#[derive(Debug, Clone, Copy)]
pub struct Resampling {
    pub resamples: u32,
    pub seed: u64,
}

pub mod interval;
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

/// The smallest p the two-sided sign-flip test of these per-query deltas can give,
/// whatever their signs (docs/contract.md §7.1): the p of the same test when every
/// moved query moved the same way by the same amount. With m moved queries (the
/// deltas not 0) at most [`EXACT_MAX`] the test is exact and this is [`exact_p`] of
/// their absolute values: 2^(1−m), as only the two all-one-sign patterns reach
/// Σ|d| (more when a delta is within the rounding tolerance of nothing), 1 for m = 0.
/// Above, the p is Monte Carlo, (1 + hits) / (1 + R), whose floor is 1 / (1 + R)
/// with R the first count ([`default_resamples`] of m, or `resamples` when fixed;
/// extra draws only lower it). Nothing here is a t-test: no p without a floor.
pub fn min_attainable_p(deltas: impl IntoIterator<Item = f64>, resamples: u32) -> f64 {
    let moved: Vec<f64> = deltas
        .into_iter()
        .filter(|&d| d != 0.0)
        .map(f64::abs)
        .collect();
    if moved.len() <= EXACT_MAX {
        return exact_p(&moved);
    }
    let r = match resamples {
        0 => default_resamples(moved.len()),
        r => r,
    };
    1.0 / (1.0 + f64::from(r))
}

/// Whether a test whose smallest attainable p is `min_p` can ever fail the gate: its
/// adjusted p, never below its raw p under Holm or Benjamini-Hochberg, must be below
/// [`GATE_ALPHA`]. One that cannot counts in no family (Tarone 1990, §7.1).
pub fn can_reach_alpha(min_p: f64) -> bool {
    min_p < GATE_ALPHA
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

/// Statistics for each metric's mean delta. `deltas[i]` holds query i's deltas of
/// the [`METRICS`] metrics; `n` is the number of queries compared. A metric whose
/// non-zero deltas number at most [`EXACT_MAX`] gets the exact p and interval; the
/// others a Monte Carlo p from `draws` and the interval from the same sign patterns
/// (docs/contract.md §7).
pub fn paired(deltas: &[[f64; METRICS]], draws: Draws) -> [DeltaStats; METRICS] {
    paired_with(deltas, draws, EXACT_MAX)
}

/// [`paired`] with the exact bound as a parameter (the tests compare both ways).
fn paired_with(deltas: &[[f64; METRICS]], draws: Draws, exact_max: usize) -> [DeltaStats; METRICS] {
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
    let exact: [Option<(f64, (f64, f64))>; METRICS] = std::array::from_fn(|j| {
        (moved[j].len() <= exact_max).then(|| {
            let p = exact_p(&moved[j]);
            (p, interval::exact(&moved[j], n, p >= GATE_ALPHA))
        })
    });
    let monte_carlo = if exact.iter().all(Option::is_some) {
        std::array::from_fn(|_| None)
    } else {
        let exact_p = exact.map(|e| e.map(|(p, _)| p));
        monte_carlo_p(&nonzero, n, resamples, draws, exact_p)
    };
    // Every pattern is extreme at the observed mean, so the interval holds it; the
    // guard keeps that true to the last bit (the mean as compare computes it).
    let mean: [f64; METRICS] =
        std::array::from_fn(|j| deltas.iter().fold(0.0, |s, d| s + d[j]) / n.max(1) as f64);
    let stats: [DeltaStats; METRICS] = std::array::from_fn(|j| match (exact[j], &monte_carlo[j]) {
        (Some((p, (ci_low, ci_high))), _) => DeltaStats {
            ci_low,
            ci_high,
            ci_method: CiMethod::SignFlipExact,
            p_value: p,
            p_method: PMethod::Exact,
            p_mc_se: None,
            resamples: None,
            extended: false,
        },
        (None, Some(mc)) => DeltaStats {
            ci_low: mc.ci.0,
            ci_high: mc.ci.1,
            ci_method: CiMethod::SignFlipMonteCarlo,
            p_value: mc.p,
            p_method: PMethod::MonteCarlo,
            p_mc_se: Some((mc.p * (1.0 - mc.p) / f64::from(mc.resamples)).sqrt()),
            resamples: Some(mc.resamples),
            extended: mc.extended,
        },
        (None, None) => unreachable!("a metric without an exact p has a Monte Carlo one"),
    });
    let mut stats = stats;
    for (s, mean) in stats.iter_mut().zip(mean) {
        if n > 0 {
            s.ci_low = s.ci_low.min(mean);
            s.ci_high = s.ci_high.max(mean);
        }
    }
    stats
}

/// One metric's Monte Carlo test: p, the draws behind it, whether it needed more than
/// the first count, and the interval from the same patterns.
#[derive(Debug, Clone, Copy)]
struct MonteCarlo {
    p: f64,
    resamples: u32,
    extended: bool,
    ci: (f64, f64),
}

/// Each metric's Monte Carlo test (`None` for the metrics whose p is exact). The extra
/// draws (when a p's 99% interval holds one of the family's thresholds) continue the
/// same stream, so the first `first` are unchanged; the interval uses every draw its
/// p used.
fn monte_carlo_p(
    nonzero: &[[f64; METRICS]],
    n: usize,
    first: u32,
    draws: Draws,
    exact: [Option<f64>; METRICS],
) -> [Option<MonteCarlo>; METRICS] {
    let observed: [f64; METRICS] =
        std::array::from_fn(|j| nonzero.iter().map(|d| d[j]).fold(0.0, |a, b| a + b));
    // A flipped sum counts as extreme when it is at least as far from 0 as the
    // observed one, with a tolerance for rounding in the sums.
    let threshold: [f64; METRICS] = std::array::from_fn(|j| {
        let scale: f64 = nonzero.iter().map(|d| d[j].abs()).sum();
        observed[j].abs() - 1e-9 * scale
    });
    let flips = Flips {
        nonzero,
        n,
        zeros: interval::HalfBinomial::new(n - nonzero.len()),
        seed: draws.seed,
        observed,
        threshold,
    };
    let thresholds = draws.thresholds();
    let mut tally = flips.draw(0..first);
    let mut done = first;
    let mut open: [bool; METRICS] = std::array::from_fn(|j| exact[j].is_none());
    let p_of = |h: u64, r: u32| (1 + h) as f64 / (1.0 + f64::from(r));
    let mut result: [Option<MonteCarlo>; METRICS] = [None; METRICS];
    let fixed = draws.resamples != 0;
    let mut plan = if fixed { Vec::new() } else { schedule(first) };
    plan.reverse();
    loop {
        for j in 0..METRICS {
            if !open[j] {
                continue;
            }
            let p = p_of(tally.hits[j], done);
            let half = 2.576 * (p * (1.0 - p) / f64::from(done)).sqrt();
            let near = thresholds
                .iter()
                .any(|&t| (p - half..=p + half).contains(&t));
            if !near || plan.is_empty() {
                let (lows, highs) = &mut tally.ends[j];
                result[j] = Some(MonteCarlo {
                    p,
                    resamples: done,
                    extended: done > first,
                    ci: interval::monte_carlo(lows, highs),
                });
                open[j] = false;
            }
        }
        let Some(next) = plan.pop() else { break };
        if !open.iter().any(|&o| o) {
            break;
        }
        tally.append(flips.draw(done..next));
        done = next;
    }
    result
}

/// What the sign-flip draws are made over.
struct Flips<'a> {
    nonzero: &'a [[f64; METRICS]],
    /// All compared queries; `n − nonzero.len()` have every delta 0.
    n: usize,
    /// How many of those zeros a pattern flips (for the interval only).
    zeros: interval::HalfBinomial,
    seed: u64,
    observed: [f64; METRICS],
    threshold: [f64; METRICS],
}

/// The draws so far: each metric's hits, and each pattern's interval of shifts at
/// which it is extreme (lower ends, upper ends), in draw order.
struct Tally {
    hits: [u64; METRICS],
    ends: [(Vec<f64>, Vec<f64>); METRICS],
}

impl Tally {
    fn append(&mut self, more: Tally) {
        for (j, (lows, highs)) in more.ends.into_iter().enumerate() {
            self.hits[j] += more.hits[j];
            self.ends[j].0.extend(lows);
            self.ends[j].1.extend(highs);
        }
    }
}

impl Flips<'_> {
    /// The sign-flip draws `range` (numbered from 0; whole units of [`UNIT`] except
    /// perhaps the last): which reach each metric's threshold, and where each is
    /// extreme. The flipped zeros come from a stream of their own, so the signs (and
    /// the p) do not depend on them.
    fn draw(&self, range: std::ops::Range<u32>) -> Tally {
        let end = range.end;
        let units = range.start / UNIT..end.div_ceil(UNIT);
        let per = per_unit(units, self.seed, 2, |unit, rng| {
            let mut zeros_rng = unit_rng(self.seed, 3, unit);
            let len = UNIT.min(end - unit * UNIT);
            (0..len)
                .map(|_| self.one(rng, &mut zeros_rng))
                .collect::<Vec<_>>()
        });
        let mut tally = Tally {
            hits: [0; METRICS],
            ends: std::array::from_fn(|_| {
                (Vec::with_capacity(per.len()), Vec::with_capacity(per.len()))
            }),
        };
        for (hit, ends) in per {
            for j in 0..METRICS {
                tally.hits[j] += u64::from(hit[j]);
                tally.ends[j].0.push(ends[j].0);
                tally.ends[j].1.push(ends[j].1);
            }
        }
        tally
    }

    /// One random sign pattern: per metric, whether it is extreme at shift 0 (a hit
    /// of the p) and its interval of shifts.
    #[allow(clippy::type_complexity)]
    fn one(
        &self,
        rng: &mut Xoshiro256PlusPlus,
        zeros_rng: &mut Xoshiro256PlusPlus,
    ) -> ([bool; METRICS], [(f64, f64); METRICS]) {
        let mut sums = [0.0; METRICS];
        let mut bits = 0u64;
        let mut flipped = 0usize;
        for (i, d) in self.nonzero.iter().enumerate() {
            if i % 64 == 0 {
                bits = rng.next_u64();
            }
            // `-1.0 * x` is `x` with its sign bit flipped: the same bits
            // without a branch on a random bit, which mispredicts half the time.
            let flip = !bits & 1;
            bits >>= 1;
            flipped += flip as usize;
            for j in 0..METRICS {
                sums[j] += f64::from_bits(d[j].to_bits() ^ (flip << 63));
            }
        }
        let f = flipped + self.zeros.sample(zeros_rng.next_u64());
        let hit: [bool; METRICS] = std::array::from_fn(|j| sums[j].abs() >= self.threshold[j]);
        let ends = std::array::from_fn(|j| {
            interval::pattern_ends(self.observed[j], sums[j], f, self.n, hit[j])
        });
        (hit, ends)
    }
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

    /// The smallest attainable p of each test (docs/contract.md §7.1): exact,
    /// 2^(1−m) whatever the magnitudes (1 for m = 0 or 1); the exact test's
    /// rounding tolerance counts a delta next to nothing as a tie; Monte Carlo,
    /// 1 / (1 + R) with R the default for m or the fixed `--resamples`.
    #[test]
    fn the_smallest_attainable_p_of_each_test() {
        let p =
            |deltas: &[f64], resamples: u32| min_attainable_p(deltas.iter().copied(), resamples);
        assert_eq!(p(&[], 0), 1.0);
        assert_eq!(p(&[0.0, 0.0], 0), 1.0);
        assert_eq!(p(&[-0.5, 0.0], 0), 1.0);
        assert_eq!(p(&[0.5, -0.25, 1.0, -1.0, 0.1], 0), 0.0625);
        assert_eq!(p(&[0.5, -0.25, 1.0, -1.0, 0.1, 0.0, 0.3], 0), 0.03125);
        assert!(!can_reach_alpha(p(&[1.0; 5], 0)));
        assert!(can_reach_alpha(p(&[1.0; 6], 0)));
        // 1e-12 is within the 1e-9 tolerance of the sum: flipping it ties, so
        // six moved queries give 4/64, not 2/64
        assert_eq!(p(&[1.0, 1.0, 1.0, 1.0, 1.0, 1e-12], 0), 0.0625);
        assert_eq!(p(&[1.0; 16], 0), 2.0 / 65_536.0);
        assert_eq!(p(&[1.0; 17], 0), 1.0 / 10_001.0);
        assert_eq!(p(&[1.0; 17], 19), 0.05);
        assert!(!can_reach_alpha(p(&[1.0; 17], 19)));
        assert!(can_reach_alpha(p(&[1.0; 17], 20)));
        let many = vec![0.5; 20_000];
        assert_eq!(
            p(&many, 0),
            1.0 / (1.0 + f64::from(default_resamples(20_000)))
        );
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

    /// Extra draws continue the stream: the first draws' hits and ends are unchanged.
    #[test]
    fn extra_draws_continue_the_same_stream() {
        let rows: Vec<[f64; METRICS]> = (0..300)
            .map(|i| std::array::from_fn(|j| ((i * 31 + j * 7) % 11) as f64 / 11.0 - 0.45))
            .collect();
        let flips = Flips {
            nonzero: &rows,
            n: 420,
            zeros: interval::HalfBinomial::new(120),
            seed: 9,
            observed: [1.5; METRICS],
            threshold: [1.0; METRICS],
        };
        let whole = flips.draw(0..5_000);
        let mut parts = flips.draw(0..1_000);
        parts.append(flips.draw(1_000..5_000));
        assert_eq!(whole.hits, parts.hits);
        assert_eq!(whole.ends, parts.ends);
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
                .map(|i| [if i % 3 == 0 { -0.5 } else { 0.3 }; METRICS])
                .collect()
        };
        let at = paired(&moved(EXACT_MAX), draws)[0];
        assert_eq!(
            (at.p_method, at.p_mc_se, at.resamples),
            (PMethod::Exact, None, None)
        );
        assert_eq!(at.ci_method, CiMethod::SignFlipExact);
        let above = paired(&moved(EXACT_MAX + 1), draws)[0];
        assert_eq!(above.p_method, PMethod::MonteCarlo);
        assert_eq!(above.ci_method, CiMethod::SignFlipMonteCarlo);
        assert!(above.p_mc_se.is_some_and(|se| se > 0.0));
        assert!(above.resamples.is_some_and(|r| r >= 10_000));
    }

    /// The Monte Carlo interval is the exact one up to its draws: on cases the exact
    /// enumeration handles, 200,000 random patterns put each end within a few hundredths
    /// of the interval's width, and both hold 0 exactly when their p is at least 0.05.
    #[test]
    fn the_monte_carlo_interval_approaches_the_exact_one() {
        let draws = Draws {
            resamples: 200_000,
            seed: 3,
            family: 4,
            correction: Correction::Holm,
        };
        let cases: [&[f64]; 3] = [
            &[
                0.5, -0.25, 1.0, 0.5, 0.2, -0.1, 0.75, 0.5, 0.0, 0.0, 0.0, 0.0,
            ],
            &[1.0, 0.5, 1.0 / 3.0, 0.25, 1.0, 0.5, 0.5, 0.2, 0.0, 0.0],
            &[
                -0.5, 0.25, 0.3, -0.7, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            ],
        ];
        for x in cases {
            let rows: Vec<[f64; METRICS]> = x.iter().map(|&v| [v; METRICS]).collect();
            let exact = paired_with(&rows, draws, EXACT_MAX)[0];
            let mc = paired_with(&rows, draws, 0)[0];
            assert_eq!(
                (exact.ci_method, mc.ci_method),
                (CiMethod::SignFlipExact, CiMethod::SignFlipMonteCarlo)
            );
            let width = exact.ci_high - exact.ci_low;
            for (e, m) in [(exact.ci_low, mc.ci_low), (exact.ci_high, mc.ci_high)] {
                assert!((e - m).abs() < 0.03 * width, "{x:?}: {exact:?} vs {mc:?}");
            }
            for s in [exact, mc] {
                assert_eq!(s.ci_low <= 0.0 && 0.0 <= s.ci_high, s.p_value >= 0.05);
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
