//! The 95% interval of a mean delta obtained by inverting the paired sign-flip test
//! (docs/contract.md §7): the shifts d for which the test of "mean delta = d" is not
//! rejected at 0.05. It holds 0 exactly when the test's p is at least 0.05.
//!
//! Testing d shifts every delta, the unmoved queries' zeros too: the test runs over all
//! n queries. For one sign pattern, call F the flipped queries and U the others: the
//! pattern's flipped |sum| is at least the observed one exactly when d lies between the
//! mean delta of F and that of U (both sums of `x - d` have the same square there),
//! an interval that always holds the observed mean. So p(d) falls as d moves away from
//! the observed mean on either side, and the accepted shifts form one closed interval:
//! - **exact** (the p is exact): the m moved queries' 2^m patterns, each with the
//!   Binomial(n − m, 1/2) number of zeros flipped, weighed exactly; p(d) is computed for
//!   a shift d in one pass and each end found by bisection to 1e-12;
//! - **Monte Carlo** (the p is Monte Carlo): the same random patterns as the p, each
//!   with its count of flipped zeros drawn from that binomial on a stream of its own (so
//!   the p's draws are unchanged); an end is an order statistic of the patterns' ends.
//!
//! Only IEEE-rounded `+ − × ÷`, `sqrt`, `floor` and `ceil` are used (no `ln` or `exp`,
//! whose last bits differ between C libraries), so the numbers are the same on every
//! machine.

/// The smallest 2^(1−n) the test can reach is above 0.05 up to 5 queries: no shift is
/// rejected and the interval is every possible mean delta of metrics in [0, 1].
pub const WHOLE: (f64, f64) = (-1.0, 1.0);

/// The cumulative distribution of Binomial(z, 1/2), the number of the z zero deltas a
/// random sign pattern flips, over the counts whose probability a double can hold
/// (40 standard deviations each side of z / 2; beyond, every weight is below 1e-340).
#[derive(Debug, Clone)]
pub struct HalfBinomial {
    z: usize,
    /// The first count of the table.
    lo: usize,
    /// `cdf[t]` = P(count <= lo + t); the last entry is 1.
    cdf: Vec<f64>,
}

impl HalfBinomial {
    pub fn new(z: usize) -> Self {
        let half_width = (20.0 * (z as f64).sqrt()).ceil() as usize + 2;
        let centre = z / 2;
        let lo = centre.saturating_sub(half_width);
        let hi = (centre + half_width).min(z);
        // Weights relative to the centre's, by the ratio of neighbouring binomial
        // coefficients: C(z, j + 1) / C(z, j) = (z − j) / (j + 1).
        let mut w = vec![0.0f64; hi - lo + 1];
        w[centre - lo] = 1.0;
        for j in centre..hi {
            w[j + 1 - lo] = w[j - lo] * (z - j) as f64 / (j + 1) as f64;
        }
        for j in (lo..centre).rev() {
            w[j - lo] = w[j + 1 - lo] * (j + 1) as f64 / (z - j) as f64;
        }
        let total: f64 = w.iter().sum();
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = w
            .iter()
            .map(|v| {
                acc += v;
                acc / total
            })
            .collect();
        if let Some(last) = cdf.last_mut() {
            *last = 1.0;
        }
        Self { z, lo, cdf }
    }

    /// P(count <= k).
    pub fn cdf(&self, k: i64) -> f64 {
        if k < self.lo as i64 {
            return 0.0;
        }
        let t = (k - self.lo as i64) as usize;
        self.cdf.get(t).copied().unwrap_or(1.0)
    }

    /// A count drawn by inversion from 53 random bits.
    pub fn sample(&self, bits: u64) -> usize {
        if self.z == 0 {
            return 0;
        }
        let u = (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        self.lo + self.cdf.partition_point(|&c| c <= u)
    }

    /// P(a <= count <= b); 0 when the range is empty.
    fn between(&self, a: i64, b: i64) -> f64 {
        if a > b {
            return 0.0;
        }
        (self.cdf(b) - self.cdf(a - 1)).max(0.0)
    }
}

/// The sums and sizes of the flipped sets of half the moved queries' sign patterns
/// (the last query never flipped: a pattern and its negation are extreme at the same
/// shifts), split into a low and a high table so that a pattern is one addition.
struct Patterns {
    low_sum: Vec<f64>,
    low_count: Vec<u32>,
    high_sum: Vec<f64>,
    high_count: Vec<u32>,
}

impl Patterns {
    fn new(x: &[f64]) -> Self {
        let free = &x[..x.len().saturating_sub(1)];
        let split = free.len().min(10);
        let table = |v: &[f64]| {
            let size = 1usize << v.len();
            let mut sum = vec![0.0f64; size];
            let mut count = vec![0u32; size];
            for i in 1..size {
                let bit = i.trailing_zeros() as usize;
                sum[i] = sum[i & (i - 1)] + v[bit];
                count[i] = count[i & (i - 1)] + 1;
            }
            (sum, count)
        };
        let (low_sum, low_count) = table(&free[..split]);
        let (high_sum, high_count) = table(&free[split..]);
        Self {
            low_sum,
            low_count,
            high_sum,
            high_count,
        }
    }

    fn len(&self) -> usize {
        self.low_sum.len() * self.high_sum.len()
    }
}

/// The observed deltas as the patterns see them: their sum, how many moved (m) and how
/// many were compared (n).
#[derive(Debug, Clone, Copy)]
struct Sample {
    sum: f64,
    m: usize,
    n: usize,
}

/// The test's p at shift `d` (not 0) for the lower end: the share of patterns whose
/// lower end min(mean of F, mean of U) is at most `d`. Valid for `d` below the observed
/// mean, where at most one of the two means is below `d`.
fn p_below(pat: &Patterns, zeros: &HalfBinomial, sample: Sample, d: f64) -> f64 {
    let Sample { sum, m, n } = sample;
    let z = n - m;
    let zf = z as f64;
    let inv = 1.0 / d;
    let clamp = |v: f64| v.clamp(-2.0, zf + 2.0);
    let mut total = 0.0;
    for (&hs, &hc) in pat.high_sum.iter().zip(&pat.high_count) {
        for (&ls, &lc) in pat.low_sum.iter().zip(&pat.low_count) {
            let s_f = hs + ls;
            let f = f64::from(hc + lc);
            // F holds f moved and j zeros, U the rest: mean(F) <= d is d·j >= a,
            // mean(U) <= d is d·j <= b.
            let a = s_f - d * f;
            let b = d * ((m as f64 - f) + zf) - (sum - s_f);
            let (ra, rb) = (clamp(a * inv), clamp(b * inv));
            // The counts j that make neither mean reach d lie strictly between.
            let gap = if d > 0.0 {
                zeros.between(rb.floor() as i64 + 1, ra.ceil() as i64 - 1)
            } else {
                zeros.between(ra.floor() as i64 + 1, rb.ceil() as i64 - 1)
            };
            total += 1.0 - gap;
        }
    }
    total / pat.len() as f64
}

/// The lower end of the exact interval: the least shift whose p is at least 0.05.
/// `accept0` says whether the test of 0 (the reported p) accepts.
fn lower_exact(x: &[f64], n: usize, accept0: bool) -> f64 {
    let m = x.len();
    let sum: f64 = x.iter().sum();
    let mean = sum / n as f64;
    let zeros = HalfBinomial::new(n - m);
    let pat = Patterns::new(x);
    let sample = Sample { sum, m, n };
    let accepts = |d: f64| p_below(&pat, &zeros, sample, d) >= super::GATE_ALPHA;
    // Below every delta (all >= −1) only the two one-sided patterns are extreme.
    let mut lo = WHOLE.0 - 1e-6;
    if accepts(lo) {
        return WHOLE.0;
    }
    let mut hi = mean;
    if lo < 0.0 && 0.0 < hi {
        if accept0 {
            hi = 0.0;
        } else {
            lo = 0.0;
        }
    }
    while hi - lo > 1e-12 {
        let mid = lo + (hi - lo) / 2.0;
        let ok = if mid == 0.0 { accept0 } else { accepts(mid) };
        if ok {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    snap(&pat, sample, lo, hi).max(WHOLE.0)
}

/// The end itself once bisection has cornered it in `(lo, hi]`: p(d) changes only at
/// a pattern's mean of F or of U, so when one such mean alone lies there, it is the
/// end (as a mean is written: −0.4166666666666667, not −0.41666666666641); with several
/// (many patterns, ends closer than 1e-12), `hi`.
fn snap(pat: &Patterns, sample: Sample, lo: f64, hi: f64) -> f64 {
    let Sample { sum, m, n } = sample;
    let z = (n - m) as i64;
    let mut found: Option<f64> = None;
    let mut several = false;
    let mut offer = |v: f64| {
        if lo < v && v <= hi {
            match found {
                Some(f) if f != v => several = true,
                _ => found = Some(v),
            }
        }
    };
    for (&hs, &hc) in pat.high_sum.iter().zip(&pat.high_count) {
        for (&ls, &lc) in pat.low_sum.iter().zip(&pat.low_count) {
            let (s_f, f) = (hs + ls, i64::from(hc + lc));
            let (s_u, u) = (sum - s_f, m as i64 - f);
            // mean(F) = s_f / (f + j) and mean(U) = s_u / (u + z − j) near hi.
            for (s, base, sign) in [(s_f, f, 1i64), (s_u, u + z, -1)] {
                let j = ((s / hi - base as f64) * sign as f64).round();
                if !j.is_finite() {
                    continue;
                }
                for j in [j as i64 - 1, j as i64, j as i64 + 1] {
                    let count = base + sign * j;
                    if (0..=z).contains(&j) && count > 0 {
                        offer(s / count as f64);
                    }
                }
            }
        }
    }
    match found {
        Some(v) if !several => v,
        _ => hi,
    }
}

/// The exact interval of the mean delta of n queries whose non-zero deltas are `x`
/// (at most [`super::EXACT_MAX`] of them); `accept0`: the exact p is at least 0.05.
pub fn exact(x: &[f64], n: usize, accept0: bool) -> (f64, f64) {
    if n == 0 {
        return WHOLE;
    }
    let negated: Vec<f64> = x.iter().map(|v| -v).collect();
    let low = lower_exact(x, n, accept0);
    let high = -lower_exact(&negated, n, accept0);
    (low, high.min(WHOLE.1))
}

/// One random pattern's interval of shifts at which it is extreme: between the mean of
/// its flipped queries and the mean of the others. `sum` is the observed sum, `flipped`
/// the pattern's signed sum, `f` how many of the n queries it flips; `hit` whether the
/// reported p counted it (at shift 0), which settles a tie at 0 the way the p did.
pub fn pattern_ends(sum: f64, flipped: f64, f: usize, n: usize, hit: bool) -> (f64, f64) {
    if f == 0 || f == n {
        return (f64::NEG_INFINITY, f64::INFINITY);
    }
    let s_f = (sum - flipped) / 2.0;
    let mean_f = s_f / f as f64;
    let mean_u = (sum - s_f) / (n - f) as f64;
    let (mut lo, mut hi) = (mean_f.min(mean_u), mean_f.max(mean_u));
    let holds0 = lo <= 0.0 && 0.0 <= hi;
    if hit && !holds0 {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    } else if !hit && holds0 {
        // Rounding put 0 at an end the p's tolerance kept outside.
        if lo.abs() <= hi.abs() {
            lo = f64::MIN_POSITIVE;
        } else {
            hi = -f64::MIN_POSITIVE;
        }
    }
    (lo, hi)
}

/// How many of the R patterns must be extreme at a shift for its Monte Carlo p,
/// (1 + hits) / (1 + R), to be at least 0.05: hits >= (1 + R) / 20 − 1.
pub fn needed_hits(resamples: u32) -> usize {
    (resamples as usize + 1).div_ceil(20).saturating_sub(1)
}

/// The Monte Carlo interval from the patterns' ends: the `needed_hits`-th smallest
/// lower end and largest upper end (each pattern's interval holds the observed mean,
/// so below it p(d) counts the lower ends at most d).
pub fn monte_carlo(lows: &mut [f64], highs: &mut [f64]) -> (f64, f64) {
    let k = needed_hits(lows.len() as u32);
    if k == 0 || lows.is_empty() {
        return WHOLE;
    }
    let (_, low, _) = lows.select_nth_unstable_by(k - 1, f64::total_cmp);
    let low = *low;
    let (_, high, _) = highs.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
    (low.max(WHOLE.0), high.min(WHOLE.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sign pattern enumerated in Python with exact fractions, the zeros as
    /// ordinary values or grouped by how many flip (tests/fixtures/stats/interval.py).
    #[test]
    fn exact_ends_match_the_enumeration() {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/stats/interval.json"))
                .expect("the fixture parses");
        let all = v["interval"].as_array().expect("cases");
        assert!(all.len() >= 15);
        let f = |c: &serde_json::Value, k: &str| c[k].as_f64().expect("a number");
        for c in all {
            let x: Vec<f64> = c["x"]
                .as_array()
                .expect("x")
                .iter()
                .map(|v| v.as_f64().expect("a number"))
                .collect();
            let moved: Vec<f64> = x.iter().copied().filter(|&v| v != 0.0).collect();
            let p = super::super::exact_p(&moved);
            assert!((p - f(c, "p")).abs() < 1e-12, "{x:?}: p {p}");
            let (lo, hi) = exact(&moved, x.len(), p >= 0.05);
            assert!(
                (lo - f(c, "low")).abs() < 1e-9 && (hi - f(c, "high")).abs() < 1e-9,
                "{x:?}: [{lo}, {hi}] != [{}, {}]",
                f(c, "low"),
                f(c, "high")
            );
            assert_eq!(lo <= 0.0 && 0.0 <= hi, p >= 0.05, "{x:?}");
        }
    }

    #[test]
    fn the_binomial_table_sums_to_one_and_is_symmetric() {
        for z in [0usize, 1, 2, 7, 100, 5_000, 250_000] {
            let b = HalfBinomial::new(z);
            assert_eq!(b.cdf(z as i64), 1.0);
            assert_eq!(b.cdf(-1), 0.0);
            for k in [0i64, 1, z as i64 / 3, z as i64 / 2] {
                // P(count <= k) = P(count >= z − k).
                let upper = 1.0 - b.cdf(z as i64 - k - 1);
                assert!((b.cdf(k) - upper).abs() < 1e-12, "z {z}, k {k}");
            }
        }
        let b = HalfBinomial::new(4);
        let want = [1.0, 5.0, 11.0, 15.0, 16.0];
        for (k, w) in want.iter().enumerate() {
            assert!((b.cdf(k as i64) - w / 16.0).abs() < 1e-15);
        }
    }

    #[test]
    fn needed_hits_is_the_least_count_whose_p_reaches_005() {
        for r in [1u32, 18, 19, 20, 99, 1_000, 9_999, 10_000, 200_000] {
            let k = needed_hits(r);
            let p = |h: usize| (1 + h) as f64 / (1.0 + f64::from(r));
            assert!(p(k) >= 0.05, "{r}");
            assert!(k == 0 || p(k - 1) < 0.05, "{r}");
        }
    }
}
