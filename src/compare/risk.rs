//! Risk-sensitive evaluation (docs/contract.md §7.4): URisk and TRisk of the candidate
//! against the baseline (Dincer, Macdonald and Ounis, SIGIR 2014), for RR and nDCG at
//! each `--risk-alpha`, over the compared queries and over each segment that is not too
//! few. Rendering is `report`'s; the gate reads the overall figures at the first alpha.

use serde::Serialize;

use crate::compare::QueryRow;
use crate::metrics::Metric;

/// The default `--risk-alpha` values: losses weigh 2, 3 and 6 times as much as gains.
pub const DEFAULT_ALPHAS: [f64; 3] = [1.0, 2.0, 5.0];

/// The metrics risk is computed for, in this order.
pub const METRICS: [Metric; 2] = [Metric::Rr, Metric::Ndcg];

/// TRisk below this is a significant downside risk (about the 5% two-sided level of a
/// t statistic, the paper's reading).
pub const SIGNIFICANT: f64 = -2.0;

/// One metric at one alpha (JSON `risk[]`, `segments[].risk[]`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Risk {
    /// `rr` or `ndcg`.
    pub metric: &'static str,
    pub alpha: f64,
    /// The mean of each query's delta, its losses weighed `1 + alpha` times.
    pub urisk: f64,
    /// URisk over its standard error (sample sd, n - 1); null when that sd is 0 or
    /// fewer than 2 queries are compared.
    pub trisk: Option<f64>,
    /// TRisk below -2: "significant downside risk".
    pub significant_downside_risk: bool,
    #[serde(skip)]
    pub of: Metric,
}

/// URisk and TRisk of these deltas (candidate minus baseline) at `alpha`; `None` for
/// no delta at all.
pub fn urisk_trisk(deltas: &[f64], alpha: f64) -> Option<(f64, Option<f64>)> {
    let n = deltas.len();
    if n == 0 {
        return None;
    }
    let z = |d: f64| if d < 0.0 { (1.0 + alpha) * d } else { d };
    let urisk = deltas.iter().map(|&d| z(d)).sum::<f64>() / n as f64;
    if n < 2 {
        return Some((urisk, None));
    }
    let ss: f64 = deltas.iter().map(|&d| (z(d) - urisk).powi(2)).sum();
    let sd = (ss / (n - 1) as f64).sqrt();
    // A spread of rounding alone (every z equal) counts as none.
    let spread = sd > 1e-12 * urisk.abs().max(f64::MIN_POSITIVE);
    Some((urisk, spread.then(|| urisk / (sd / (n as f64).sqrt()))))
}

/// The risk figures of `rows`: per metric, per alpha; empty when `rows` is.
pub fn of(rows: &[&QueryRow], alphas: &[f64]) -> Vec<Risk> {
    let mut out = Vec::with_capacity(METRICS.len() * alphas.len());
    for m in METRICS {
        let deltas: Vec<f64> = rows
            .iter()
            .map(|r| m.of(&r.scores.candidate) - m.of(&r.scores.baseline))
            .collect();
        for &alpha in alphas {
            if let Some((urisk, trisk)) = urisk_trisk(&deltas, alpha) {
                out.push(Risk {
                    metric: m.key(),
                    alpha,
                    urisk,
                    trisk,
                    significant_downside_risk: significant(trisk),
                    of: m,
                });
            }
        }
    }
    out
}

/// TRisk below -2, beyond rounding (a TRisk of exactly -2 is not below it).
pub fn significant(trisk: Option<f64>) -> bool {
    trisk.is_some_and(|t| t < SIGNIFICANT - 1e-12)
}

/// The figures at the first alpha: the ones the gate reads (`--fail-on-risk`).
pub fn at_first_alpha(risk: &[Risk]) -> impl Iterator<Item = &Risk> {
    let first = risk.first().map(|r| r.alpha);
    risk.iter().filter(move |r| Some(r.alpha) == first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> serde_json::Value {
        serde_json::from_str(include_str!("../../tests/fixtures/stats/risk.json"))
            .expect("risk.json is JSON")
    }

    fn close(got: f64, want: f64, what: &str) {
        assert!((got - want).abs() <= 1e-12, "{what}: {got} != {want}");
    }

    /// Every case numpy computed (tests/fixtures/stats/risk.py): the same per-query
    /// pairs give the same URisk and TRisk, overall and per segment, to 1e-12.
    #[test]
    fn equals_numpy_on_the_stored_pairs() {
        let r = reference();
        let alphas: Vec<f64> = r["alphas"]
            .as_array()
            .expect("alphas")
            .iter()
            .map(|a| a.as_f64().expect("a number"))
            .collect();
        assert_eq!(alphas, DEFAULT_ALPHAS);
        let cases = r["cases"].as_object().expect("cases");
        assert_eq!(cases.len(), 4);
        for (name, case) in cases {
            let pairs = &case["pairs"];
            let deltas = |metric: &str, ids: &[String]| -> Vec<f64> {
                ids.iter()
                    .map(|q| {
                        let p = &pairs[metric][q.as_str()];
                        p[1].as_f64().expect("candidate") - p[0].as_f64().expect("baseline")
                    })
                    .collect()
            };
            let all: Vec<String> = pairs["rr"]
                .as_object()
                .expect("rr")
                .keys()
                .cloned()
                .collect();
            let mut groups = vec![(name.clone(), all, &case["overall"])];
            for (tag, s) in case["segments"].as_object().expect("segments") {
                let ids: Vec<String> = s["members"]
                    .as_array()
                    .expect("members")
                    .iter()
                    .map(|q| q.as_str().expect("an id").to_string())
                    .collect();
                assert_eq!(ids.len() as u64, s["queries"].as_u64().expect("queries"));
                groups.push((format!("{name} {tag}"), ids, &s["risk"]));
            }
            for (what, ids, want) in groups {
                for w in want.as_array().expect("figures") {
                    let metric = w["metric"].as_str().expect("metric");
                    let alpha = w["alpha"].as_f64().expect("alpha");
                    let (urisk, trisk) =
                        urisk_trisk(&deltas(metric, &ids), alpha).expect("queries");
                    let what = format!("{what} {metric} alpha {alpha}");
                    close(urisk, w["urisk"].as_f64().expect("urisk"), &what);
                    match (trisk, w["trisk"].as_f64()) {
                        (Some(got), Some(want)) => close(got, want, &what),
                        (None, None) => {}
                        other => panic!("{what}: TRisk {other:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn edge_cases() {
        assert_eq!(urisk_trisk(&[], 1.0), None);
        assert_eq!(urisk_trisk(&[-0.5], 1.0), Some((-1.0, None)));
        // Every delta 0: URisk 0, no spread.
        assert_eq!(urisk_trisk(&[0.0; 4], 5.0), Some((0.0, None)));
        // Alpha 0: the mean delta and the paired t statistic.
        let (u, t) = urisk_trisk(&[0.1, -0.1, 0.3], 0.0).expect("figures");
        close(u, 0.1, "alpha 0 URisk");
        close(
            t.expect("spread"),
            0.1 / (0.2 / 3f64.sqrt()),
            "alpha 0 TRisk",
        );
        assert!(!significant(Some(-2.0)));
        assert!(!significant(Some(-2.0 - 1e-15)));
        assert!(significant(Some(-2.01)));
        assert!(!significant(None));
    }
}
