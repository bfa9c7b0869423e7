//! Latency's shared types (docs/contract.md §6.9): the statistics reports show and
//! `--max-latency-increase` limits, and one side's summary of its per-query wall
//! times.

/// A statistic of a side's per-query latencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LatencyStat {
    P50,
    P95,
    P99,
    Max,
}

impl LatencyStat {
    pub const ALL: [LatencyStat; 4] = [Self::P50, Self::P95, Self::P99, Self::Max];

    /// `p50`, `p95`, `p99`, `max`: the JSON key, the flag's and the policy's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::P50 => "p50",
            Self::P95 => "p95",
            Self::P99 => "p99",
            Self::Max => "max",
        }
    }

    /// The quantile it is (max is 1).
    pub fn quantile(self) -> f64 {
        match self {
            Self::P50 => 0.50,
            Self::P95 => 0.95,
            Self::P99 => 0.99,
            Self::Max => 1.0,
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(text.trim()))
    }
}

/// How much a statistic may grow from baseline to candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Increase {
    /// Relative to the baseline's value: `20%`.
    Percent(f64),
    /// Absolute: `50ms`.
    Ms(f64),
}

impl Increase {
    /// The candidate's largest allowed value for a baseline of `baseline` ms.
    pub fn ceiling(self, baseline: f64) -> f64 {
        match self {
            Self::Percent(p) => baseline * (1.0 + p / 100.0),
            Self::Ms(ms) => baseline + ms,
        }
    }

    /// `20%` or `50ms`, as it is written.
    pub fn shown(self) -> String {
        match self {
            Self::Percent(p) => format!("{p}%"),
            Self::Ms(ms) => format!("{ms}ms"),
        }
    }
}

/// A `--max-latency-increase` value as clap parses it: the limit, or the message
/// saying what is wrong (the flag and the value named), kept so that settings lists
/// every malformed value with the command line's other problems at once
/// (docs/contract.md §3).
#[derive(Debug, Clone, PartialEq)]
pub struct GivenLatencyLimit(pub Result<LatencyLimit, String>);

impl GivenLatencyLimit {
    pub fn of(text: &str) -> Self {
        Self(LatencyLimit::parse(text).map_err(|e| {
            format!(
                "--max-latency-increase {}: {e}",
                crate::text::cut_to(&crate::text::shown(text), 80)
            )
        }))
    }
}

/// `--max-latency-increase STAT=LIMIT` (`[gate] max_latency_increase`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyLimit {
    pub stat: LatencyStat,
    pub increase: Increase,
}

impl LatencyLimit {
    /// `p95=20%` or `p95=50ms`; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let expected = "expected STAT=LIMIT with STAT p50, p95, p99 or max and LIMIT a percentage (20%) or milliseconds (50ms), like p95=20%";
        let Some((stat, limit)) = text.split_once('=') else {
            return Err(expected.to_string());
        };
        let Some(stat) = LatencyStat::parse(stat) else {
            return Err(expected.to_string());
        };
        let limit = limit.trim();
        let (number, percent) = if let Some(n) = limit.strip_suffix('%') {
            (n, true)
        } else if let Some(n) = limit.strip_suffix("ms") {
            (n, false)
        } else {
            return Err(expected.to_string());
        };
        match number.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(Self {
                stat,
                increase: if percent {
                    Increase::Percent(v)
                } else {
                    Increase::Ms(v)
                },
            }),
            _ => Err(expected.to_string()),
        }
    }

    /// `p95=20%`.
    pub fn shown(&self) -> String {
        format!("{}={}", self.stat.name(), self.increase.shown())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_as_percent_or_milliseconds() {
        let l = LatencyLimit::parse("p95=20%").unwrap();
        assert_eq!(l.stat, LatencyStat::P95);
        assert_eq!(l.increase, Increase::Percent(20.0));
        assert_eq!(l.increase.ceiling(100.0), 120.0);
        let l = LatencyLimit::parse("MAX = 50ms").unwrap();
        assert_eq!(l.stat, LatencyStat::Max);
        assert_eq!(l.increase.ceiling(100.0), 150.0);
        for bad in [
            "p95",
            "p90=20%",
            "p95=20",
            "p95=-1%",
            "p95=x ms",
            "p95=infms",
        ] {
            assert!(LatencyLimit::parse(bad).is_err(), "{bad}");
        }
    }
}
