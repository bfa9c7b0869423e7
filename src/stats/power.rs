//! Power (docs/contract.md §7.3): what size of drop a comparison could have seen
//! (the minimum detectable effect) and how many queries a comparison needs to see a
//! drop of a given size (Sakai's topic-set-size design for the paired t-test), with
//! the distributions they need: the standard normal, Student's t and the noncentral
//! t. Checked against scipy and statsmodels on stored values
//! (`tests/fixtures/stats/power.py`, `power.json`).
//!
//! Both figures assume that later changes move queries as the measured one did: they
//! use the standard deviation of this comparison's per-query deltas.

// The published coefficients are kept digit for digit, so they can be checked
// against the papers; f64 rounds the last digits.
#![allow(clippy::excessive_precision)]

/// The power both figures are computed at: an 80% chance to detect the effect.
pub const POWER: f64 = 0.8;

/// Above this many queries, [`queries_needed`] stops iterating the t-based power and
/// gives the normal approximation (the two differ by well under one query there).
const T_BASED_MAX: f64 = 10_000_000.0;

/// The sample standard deviation (n - 1) of `x`; `None` with fewer than 2 values.
/// Equal values give exactly 0: their mean, summed in floating point, can miss
/// them by an ulp and leave a standard deviation of 1e-16 (an MDE of nothing).
pub fn sd(x: impl Iterator<Item = f64> + Clone) -> Option<f64> {
    let n = x.clone().count();
    if n < 2 {
        return None;
    }
    let first = x.clone().next().unwrap_or(0.0);
    if x.clone().all(|v| v == first) {
        return Some(0.0);
    }
    let mean = x.clone().sum::<f64>() / n as f64;
    let ss: f64 = x.map(|v| (v - mean) * (v - mean)).sum();
    Some((ss / (n - 1) as f64).sqrt())
}

/// The minimum detectable effect of a paired two-sided test at `alpha` with 80%
/// power, by the normal approximation: `(z(1 - alpha/2) + z(0.8)) · sd / sqrt(n)`.
/// `None` when it is undefined: fewer than 2 queries, or a standard deviation of 0
/// (no query moved, so nothing says how a change moves them).
pub fn mde(sd: Option<f64>, n: usize, alpha: f64) -> Option<f64> {
    let sd = sd.filter(|s| *s > 0.0 && s.is_finite())?;
    if n < 2 {
        return None;
    }
    let z = normal_quantile(1.0 - alpha / 2.0) + normal_quantile(POWER);
    Some(z * sd / (n as f64).sqrt())
}

/// The power of a two-sided paired (one-sample) t-test of `n` queries at `alpha`
/// against a standardized effect `effect` (mean / sd): the exact noncentral t, both
/// tails, as statsmodels' `TTestPower().power`.
pub fn t_power(effect: f64, n: u64, alpha: f64) -> f64 {
    let df = (n - 1) as f64;
    let crit = t_quantile(1.0 - alpha / 2.0, df);
    let nc = effect * (n as f64).sqrt();
    (1.0 - nct_cdf(crit, df, nc)) + nct_cdf(-crit, df, nc)
}

/// How many queries a comparison needs to detect a drop of `margin` with 80% power
/// at `alpha` (two-sided), with per-query deltas of standard deviation `sd`: Sakai's
/// topic-set-size design for the paired t-test (Sakai, Information Retrieval
/// Journal, 2016). The start is its normal approximation,
/// `((z(1 - alpha/2) + z(0.8)) / Δ)² + z(1 - alpha/2)² / 2` with `Δ = margin / sd`;
/// then the smallest `n >= 2` whose exact t-based power ([`t_power`]) is at least 0.8
/// is found by stepping from there. `None` when `sd` or `margin` is not above 0.
pub fn queries_needed(sd: Option<f64>, margin: f64, alpha: f64) -> Option<u64> {
    let sd = sd.filter(|s| *s > 0.0 && s.is_finite())?;
    if !(margin > 0.0 && margin.is_finite()) {
        return None;
    }
    let effect = margin / sd;
    let za = normal_quantile(1.0 - alpha / 2.0);
    let zb = normal_quantile(POWER);
    let start = ((za + zb) / effect).powi(2) + za * za / 2.0;
    if start > T_BASED_MAX {
        return Some(start.ceil() as u64);
    }
    let mut n = (start.ceil() as u64).max(2);
    while n > 2 && t_power(effect, n - 1, alpha) >= POWER {
        n -= 1;
    }
    while t_power(effect, n, alpha) < POWER {
        n += 1;
    }
    Some(n)
}

/// The standard normal's CDF, through the regularized incomplete gamma function
/// (`erfc(z) = Q(1/2, z²)`), accurate to about 1e-15.
pub fn normal_cdf(x: f64) -> f64 {
    let z = x / std::f64::consts::SQRT_2;
    let tail = 0.5 * gamma_q(0.5, z * z);
    if x >= 0.0 { 1.0 - tail } else { tail }
}

/// The standard normal's quantile (Wichura's AS 241, PPND16: about 1e-16 relative).
pub fn normal_quantile(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return q * poly(&A, r) / poly(&B, r);
    }
    let r = if q < 0.0 { p } else { 1.0 - p };
    let r = (-r.ln()).sqrt();
    let x = if r <= 5.0 {
        let r = r - 1.6;
        poly(&C, r) / poly(&D, r)
    } else {
        let r = r - 5.0;
        poly(&E, r) / poly(&F, r)
    };
    if q < 0.0 { -x } else { x }
}

/// `c[0] + c[1] r + c[2] r² + …`.
fn poly(c: &[f64], r: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * r + k)
}

// AS 241's coefficients (Wichura 1988, PPND16).
const A: [f64; 8] = [
    3.387_132_872_796_366_608,
    1.331_416_678_917_843_774_5e2,
    1.971_590_950_306_551_442_7e3,
    1.373_169_376_550_946_112_5e4,
    4.592_195_393_154_987_145_7e4,
    6.726_577_092_700_870_085_3e4,
    3.343_057_558_358_812_810_5e4,
    2.509_080_928_730_122_672_7e3,
];
const B: [f64; 8] = [
    1.0,
    4.231_333_070_160_091_125_2e1,
    6.871_870_074_920_579_083e2,
    5.394_196_021_424_751_107_7e3,
    2.121_379_430_158_659_586_7e4,
    3.930_789_580_009_271_061e4,
    2.872_908_573_572_194_267_4e4,
    5.226_495_278_852_854_561e3,
];
const C: [f64; 8] = [
    1.423_437_110_749_683_577_34,
    4.630_337_846_156_545_295_9,
    5.769_497_221_460_691_405_5,
    3.647_848_324_763_204_605_04,
    1.270_458_252_452_368_382_58,
    2.417_807_251_774_506_117_7e-1,
    2.272_384_498_926_918_458_33e-2,
    7.745_450_142_783_414_076_4e-4,
];
const D: [f64; 8] = [
    1.0,
    2.053_191_626_637_758_821_87,
    1.676_384_830_183_803_849_4,
    6.897_673_349_851_000_045_5e-1,
    1.481_039_764_274_800_745_9e-1,
    1.519_866_656_361_645_719_66e-2,
    5.475_938_084_995_344_946e-4,
    1.050_750_071_644_416_843_24e-9,
];
const E: [f64; 8] = [
    6.657_904_643_501_103_777_2,
    5.463_784_911_164_114_369_9,
    1.784_826_539_917_291_335_8,
    2.965_605_718_285_048_912_3e-1,
    2.653_218_952_657_612_309_3e-2,
    1.242_660_947_388_078_438_6e-3,
    2.711_555_568_743_487_578_15e-5,
    2.010_334_399_292_288_132_65e-7,
];
const F: [f64; 8] = [
    1.0,
    5.998_322_065_558_879_376_9e-1,
    1.369_298_809_227_358_053_1e-1,
    1.487_536_129_085_061_485_25e-2,
    7.868_691_311_456_132_591e-4,
    1.846_318_317_510_054_681_8e-5,
    1.421_511_758_316_445_888_7e-7,
    2.044_263_103_389_939_785_64e-15,
];

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: about 1e-15 relative).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b); for `a = 1/2` and a large `b` by
/// the asymptotic series of ln Γ(b + 1/2) − ln Γ(b), which the difference of two
/// large logarithms would lose to rounding.
fn ln_beta(a: f64, b: f64) -> f64 {
    if a == 0.5 && b > 1e4 {
        // ln Γ(b + 1/2) − ln Γ(b) = ½ ln b − 1/(8b) + 1/(192 b³) + …
        let d = 0.5 * b.ln() - 1.0 / (8.0 * b) + 1.0 / (192.0 * b.powi(3));
        return 0.5 * std::f64::consts::PI.ln() - d;
    }
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
}

/// The regularized incomplete beta function I_x(a, b), by its continued fraction
/// (modified Lentz), on the side of x where it converges fast.
fn inc_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (a * x.ln() + b * (1.0 - x).ln() - ln_beta(a, b)).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..100_000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        for aa in [
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ] {
            d = 1.0 + aa * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + aa / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
            if aa != 0.0 && (d * c - 1.0).abs() < 1e-16 {
                return h;
            }
        }
        if (d * c - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// The regularized upper incomplete gamma function Q(a, x): the series of P below
/// `a + 1`, the continued fraction above.
fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let front = (a * x.ln() - x - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut sum, mut term, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        return 1.0 - sum * front;
    }
    const TINY: f64 = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / TINY;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..10_000 {
        let an = -f64::from(i) * (f64::from(i) - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < TINY {
            d = TINY;
        }
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-16 {
            break;
        }
    }
    front * h
}

/// Student's t CDF with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * inc_beta(df / (df + t * t), df / 2.0, 0.5);
    if t >= 0.0 { 1.0 - tail } else { tail }
}

/// Student's t quantile: bisection on [`t_cdf`] to the last bit (p in (0, 1)).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    // Upper tail 1 - p, computed from the tail directly to keep its digits.
    let tail = 1.0 - p;
    let upper = |t: f64| 0.5 * inc_beta(df / (df + t * t), df / 2.0, 0.5);
    let (mut lo, mut hi) = (0.0, normal_quantile(p).max(1.0));
    while upper(hi) > tail {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if upper(mid) > tail {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The noncentral t CDF P(T <= t) with `df` degrees of freedom and noncentrality
/// `delta` (Lenth's AS 243, 1989, errors below 1e-12).
pub fn nct_cdf(t: f64, df: f64, delta: f64) -> f64 {
    let (tt, del, negated) = if t < 0.0 {
        (-t, -delta, true)
    } else {
        (t, delta, false)
    };
    let mut tnc = 0.0;
    let x = tt * tt / (tt * tt + df);
    if x > 0.0 {
        let lambda = del * del;
        let mut p = 0.5 * (-0.5 * lambda).exp();
        let mut q = (2.0 / std::f64::consts::PI).sqrt() * p * del;
        let mut s = 0.5 - p;
        let mut a = 0.5;
        let b = 0.5 * df;
        let rxb = (1.0 - x).powf(b);
        let albeta = ln_beta(a, b);
        let mut xodd = inc_beta(x, a, b);
        let mut godd = 2.0 * rxb * (a * x.ln() - albeta).exp();
        let mut xeven = 1.0 - rxb;
        let mut geven = b * x * rxb;
        tnc = p * xodd + q * xeven;
        let mut en = 1.0;
        loop {
            a += 1.0;
            xodd -= godd;
            xeven -= geven;
            godd *= x * (a + b - 1.0) / a;
            geven *= x * (a + b - 0.5) / (a + 0.5);
            p *= lambda / (2.0 * en);
            q *= lambda / (2.0 * en + 1.0);
            s -= p;
            en += 1.0;
            tnc += p * xodd + q * xeven;
            let bound = 2.0 * s * (xodd - godd);
            if bound <= 1e-13 || en > 10_000.0 {
                break;
            }
        }
    }
    tnc += normal_cdf(-del);
    let tnc = tnc.clamp(0.0, 1.0);
    if negated { 1.0 - tnc } else { tnc }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from scipy and statsmodels (tests/fixtures/stats/power.py).
    const EXPECTED: &str = include_str!("../../tests/fixtures/stats/power.json");

    fn cases(key: &str) -> Vec<serde_json::Value> {
        let v: serde_json::Value = serde_json::from_str(EXPECTED).expect("the fixture parses");
        v[key].as_array().expect("an array of cases").clone()
    }

    fn f(v: &serde_json::Value) -> f64 {
        v.as_f64().expect("a number")
    }

    fn close(got: f64, want: f64, tol: f64, what: &str) {
        assert!(
            (got - want).abs() <= tol * (1.0 + want.abs()),
            "{what}: {got} != {want}"
        );
    }

    #[test]
    fn distributions_match_scipy() {
        for c in cases("norm_ppf") {
            close(normal_quantile(f(&c["p"])), f(&c["x"]), 1e-13, "norm.ppf");
        }
        for c in cases("norm_cdf") {
            close(normal_cdf(f(&c["x"])), f(&c["p"]), 1e-14, "norm.cdf");
        }
        for c in cases("t_ppf") {
            let what = format!("t.ppf({}, {})", c["p"], c["df"]);
            close(
                t_quantile(f(&c["p"]), f(&c["df"])),
                f(&c["x"]),
                1e-10,
                &what,
            );
        }
        let all = cases("nct_cdf");
        assert!(all.len() >= 20);
        for c in all {
            let what = format!("nct.cdf({}, {}, {})", c["t"], c["df"], c["nc"]);
            close(
                nct_cdf(f(&c["t"]), f(&c["df"]), f(&c["nc"])),
                f(&c["p"]),
                1e-10,
                &what,
            );
        }
    }

    #[test]
    fn power_matches_statsmodels() {
        for c in cases("t_power") {
            let n = c["n"].as_u64().expect("n");
            let what = format!("power({}, {n}, {})", c["effect"], c["alpha"]);
            close(
                t_power(f(&c["effect"]), n, f(&c["alpha"])),
                f(&c["power"]),
                1e-9,
                &what,
            );
        }
    }

    /// The deltas' sd, the MDE (scipy's norm.ppf) and the queries needed
    /// (statsmodels' TTestPower.solve_power, rounded up) of stored delta lists.
    #[test]
    fn mde_and_queries_needed_match_the_references() {
        let all = cases("designs");
        assert!(all.len() >= 10);
        for c in all {
            let deltas: Vec<f64> = c["deltas"]
                .as_array()
                .expect("deltas")
                .iter()
                .map(f)
                .collect();
            let alpha = f(&c["alpha"]);
            let s = sd(deltas.iter().copied());
            close(s.expect("sd"), f(&c["sd"]), 1e-12, "sd");
            let got = mde(s, deltas.len(), alpha).expect("mde");
            close(got, f(&c["mde"]), 1e-12, "mde");
            let margin = f(&c["margin"]);
            let want = c["queries_needed"].as_u64().expect("queries_needed");
            assert_eq!(
                queries_needed(s, margin, alpha),
                Some(want),
                "sd {s:?} margin {margin} alpha {alpha}"
            );
        }
    }

    #[test]
    fn undefined_designs_are_none() {
        assert_eq!(mde(Some(0.0), 50, 0.05), None);
        assert_eq!(mde(None, 1, 0.05), None);
        assert_eq!(queries_needed(Some(0.0), 0.02, 0.05), None);
        assert_eq!(queries_needed(Some(0.2), 0.0, 0.05), None);
        assert_eq!(sd([1.0].into_iter()), None);
        // 24 equal nDCG deltas (1 - 1/log2(3)): their float mean is not exactly
        // the value, yet they move no two queries apart.
        let d = 1.0 - 1.0 / 3f64.log2();
        assert_eq!(sd(std::iter::repeat_n(d, 24)), Some(0.0));
        assert_eq!(mde(sd(std::iter::repeat_n(d, 24)), 24, 0.05), None);
    }
}
