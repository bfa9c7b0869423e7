//! Latency beside quality (docs/contract.md §6.9): each side's p50, p95, p99 and max
//! of its per-query wall times, their change, and whether the two were recorded
//! alike (the same concurrency on the same host), which the gate needs before it
//! judges them.

use serde::Serialize;

use crate::model::latency::LatencyStat;
use crate::model::{ObservedRun, Recorded, Role};

/// One side's latency statistics, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// How many queries have a latency.
    pub queries: usize,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Summary {
    /// The statistics of `latencies` (none: `None`), percentiles by linear
    /// interpolation between order statistics ([`percentile`]).
    pub fn of(latencies: &[f64]) -> Option<Self> {
        if latencies.is_empty() {
            return None;
        }
        let mut sorted = latencies.to_vec();
        sorted.sort_by(f64::total_cmp);
        let at = |s: LatencyStat| percentile(&sorted, s.quantile());
        Some(Self {
            queries: sorted.len(),
            p50: at(LatencyStat::P50),
            p95: at(LatencyStat::P95),
            p99: at(LatencyStat::P99),
            max: at(LatencyStat::Max),
        })
    }

    pub fn get(&self, stat: LatencyStat) -> f64 {
        match stat {
            LatencyStat::P50 => self.p50,
            LatencyStat::P95 => self.p95,
            LatencyStat::P99 => self.p99,
            LatencyStat::Max => self.max,
        }
    }
}

/// The `q`-quantile (0 <= q <= 1) of `sorted` (ascending, not empty) by linear
/// interpolation between the closest ranks: position h = (n − 1)·q, the value
/// x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋ + 1] − x[⌊h⌋]). This is Hyndman and Fan's definition 7,
/// numpy's `percentile` default (`method="linear"`) and R's `quantile` type 7.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Both sides' latency, when both have some.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub baseline: Summary,
    pub candidate: Summary,
    /// Candidate minus baseline, per statistic.
    pub delta: Delta,
    /// Both recorded with the same concurrency on the same host (their manifests'
    /// `[record]`): only then may the gate judge latency.
    pub comparable: bool,
    /// Why not, when not comparable.
    #[serde(skip)]
    pub why_not: Option<String>,
}

/// The change of each statistic, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Delta {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// What the comparison says of latency: both sides', or which side alone has it.
#[derive(Debug, Clone, Default)]
pub struct LatencyOutcome {
    pub both: Option<Latency>,
    /// The side that alone has latency.
    pub only: Option<Role>,
}

impl LatencyOutcome {
    pub fn of(b: &ObservedRun, c: &ObservedRun) -> Self {
        match (Summary::of(&b.latency), Summary::of(&c.latency)) {
            (Some(baseline), Some(candidate)) => {
                let d = |s: LatencyStat| candidate.get(s) - baseline.get(s);
                let why_not = why_not(
                    b.meta.recording.recorded.as_ref(),
                    c.meta.recording.recorded.as_ref(),
                );
                Self {
                    both: Some(Latency {
                        baseline,
                        candidate,
                        delta: Delta {
                            p50: d(LatencyStat::P50),
                            p95: d(LatencyStat::P95),
                            p99: d(LatencyStat::P99),
                            max: d(LatencyStat::Max),
                        },
                        comparable: why_not.is_none(),
                        why_not,
                    }),
                    only: None,
                }
            }
            (Some(_), None) => Self {
                both: None,
                only: Some(Role::Baseline),
            },
            (None, Some(_)) => Self {
                both: None,
                only: Some(Role::Candidate),
            },
            (None, None) => Self::default(),
        }
    }
}

/// Why two sides' latencies cannot be judged against each other; `None` when both
/// were recorded with the same concurrency on the same host.
fn why_not(b: Option<&Recorded>, c: Option<&Recorded>) -> Option<String> {
    let (b, c) = match (b, c) {
        (Some(b), Some(c)) => (b, c),
        (None, None) => {
            return Some("neither manifest has a `[record]` table (concurrency, host)".into());
        }
        (None, Some(_)) => {
            return Some(
                "the baseline's manifest has no `[record]` table (concurrency, host)".into(),
            );
        }
        (Some(_), None) => {
            return Some(
                "the candidate's manifest has no `[record]` table (concurrency, host)".into(),
            );
        }
    };
    let mut diffs = Vec::new();
    if b.concurrency != c.concurrency {
        diffs.push(format!(
            "concurrency {} against {}",
            b.concurrency, c.concurrency
        ));
    }
    if b.host != c.host {
        diffs.push(format!(
            "host {} against {}",
            crate::text::shown(&b.host),
            crate::text::shown(&c.host)
        ));
    }
    (!diffs.is_empty()).then(|| {
        format!(
            "the baseline and the candidate were recorded with {}",
            diffs.join(" and ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_between_ranks() {
        let s = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&s, 0.5), 2.5);
        assert_eq!(percentile(&s, 1.0), 4.0);
        assert_eq!(percentile(&s, 0.0), 1.0);
        assert!((percentile(&s, 0.95) - 3.85).abs() < 1e-12);
        assert_eq!(percentile(&[7.0], 0.99), 7.0);
    }
}
