//! Calibration of the gate's sign-flip test and of its interval under a true null
//! (docs/guide.md, "Segments and honest statistics"). `scripts/calibration.sh` makes the
//! inputs and runs it:
//!
//! ```text
//! cargo run --release --example calibration -- [--sims S] NAME=REPORT.json ...
//! ```
//!
//! Each REPORT is a `ragdiff compare --format json` report; its per-query deltas of RR,
//! Recall, Hit and nDCG are one pool of real per-query pairs. Each simulated comparison
//! draws n queries from a pool (with replacement) and swaps baseline and candidate of
//! each with probability 1/2, which negates its deltas: a true null (the change does
//! nothing), under which the true mean delta is 0. It runs the gate's test
//! (`ragdiff::stats::paired`, the default draws; simulation i uses seed i, so the Monte
//! Carlo draws are random across simulations as their validity assumes) and counts,
//! per metric:
//! - type I: p < 0.05 (the two-sided test at alpha 0.05, before any adjustment);
//! - coverage: the 95% interval holds 0, the true mean delta;
//! - coverage of a shift: every delta plus 0.05 (a population whose true mean delta is
//!   0.05) and the interval holds 0.05: this exercises the interval away from 0, where
//!   the unmoved queries count (docs/contract.md §7); an end within 1e-9 of 0.05
//!   counts as holding it (the exact ends are found to 1e-12, and this shift puts
//!   many exactly on the truth).
//!
//! Each with its simulation error sqrt(r (1 - r) / S), and E[m], the expected number of
//! non-zero deltas among the n. Output: one Markdown table.

use ragdiff::stats::{self, METRICS};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};

const NS: [usize; 4] = [10, 25, 50, 100];
const SHIFT: f64 = 0.05;
const NAMES: [&str; METRICS] = ["RR", "Recall", "Hit", "nDCG"];

fn usage(why: &str) -> ! {
    eprintln!("calibration: {why}\nusage: calibration [--sims S] NAME=REPORT.json ...");
    std::process::exit(2)
}

/// The per-query deltas of a compare report.
fn pool(path: &str) -> Vec<[f64; METRICS]> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| usage(&format!("{path}: {e}")));
    let v: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| usage(&format!("{path}: {e}")));
    let rows = v["per_query"]
        .as_array()
        .unwrap_or_else(|| usage(&format!("{path}: no per_query")));
    rows.iter()
        .map(|r| {
            std::array::from_fn(|j| {
                let key = ["rr", "recall", "hit", "ndcg"][j];
                r["delta"][key]
                    .as_f64()
                    .unwrap_or_else(|| usage(&format!("{path}: a delta is not a number")))
            })
        })
        .collect()
}

#[derive(Default, Clone, Copy)]
struct Counts {
    rejected: [u64; METRICS],
    covered: [u64; METRICS],
    covered_shift: [u64; METRICS],
}

fn simulate(pool: &[[f64; METRICS]], n: usize, sims: u64) -> Counts {
    let mut counts = Counts::default();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(n as u64);
    for sim in 0..sims {
        let sample: Vec<[f64; METRICS]> = (0..n)
            .map(|_| {
                let d = pool[rng.random_range(0..pool.len())];
                if rng.next_u32() & 1 == 1 {
                    d.map(|x| -x)
                } else {
                    d
                }
            })
            .collect();
        let draws = stats::Draws {
            resamples: 0,
            seed: sim,
            family: METRICS,
            correction: stats::Correction::Holm,
        };
        let st = stats::paired(&sample, draws);
        let shifted: Vec<[f64; METRICS]> = sample.iter().map(|d| d.map(|x| x + SHIFT)).collect();
        let sh = stats::paired(&shifted, draws);
        for j in 0..METRICS {
            counts.rejected[j] += u64::from(st[j].p_value < stats::GATE_ALPHA);
            counts.covered[j] += u64::from(st[j].ci_low <= 0.0 && 0.0 <= st[j].ci_high);
            // The shift makes every unmoved query's delta exactly 0.05, so an end often
            // falls on the truth itself, where the bisection's 1e-12 decides.
            let (lo, hi) = (sh[j].ci_low - 1e-9, sh[j].ci_high + 1e-9);
            counts.covered_shift[j] += u64::from(lo <= SHIFT && SHIFT <= hi);
        }
    }
    counts
}

fn rate(hits: u64, sims: u64) -> String {
    let r = hits as f64 / sims as f64;
    format!("{r:.3} ± {:.3}", (r * (1.0 - r) / sims as f64).sqrt())
}

fn main() {
    let mut sims = 4_000u64;
    let mut sources: Vec<(String, Vec<[f64; METRICS]>)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--sims" {
            sims = args
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| usage("--sims S"));
            continue;
        }
        let (name, path) = a.split_once('=').unwrap_or_else(|| usage(&a));
        sources.push((name.to_string(), pool(path)));
    }
    if sources.is_empty() {
        usage("no report given");
    }
    println!("{sims} simulated comparisons per row; ± is the simulation error\n");
    println!(
        "| pairs | metric | n | E[non-zero deltas] | type I (p < 0.05) | coverage of 0 | coverage of +{SHIFT} |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (name, pool) in &sources {
        for &n in &NS {
            let c = simulate(pool, n, sims);
            for j in 0..METRICS {
                let moved = pool.iter().filter(|d| d[j] != 0.0).count() as f64 / pool.len() as f64;
                println!(
                    "| {name} ({} queries) | {} | {n} | {:.1} | {} | {} | {} |",
                    pool.len(),
                    NAMES[j],
                    moved * n as f64,
                    rate(c.rejected[j], sims),
                    rate(c.covered[j], sims),
                    rate(c.covered_shift[j], sims),
                );
            }
        }
    }
}
