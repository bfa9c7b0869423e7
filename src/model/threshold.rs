//! Gate thresholds, `METRIC=VALUE` (docs/contract.md §5.4): what a rule reads and
//! its value, parsed once where it is given, a flag's by clap and a `[gate]` table's
//! by the policy reader, with one parser of the metric's name.

use crate::model::Metric;
use crate::model::measure::{KNOWN, Measure};

/// What a gate rule reads (docs/contract.md §5.4): one of today's metrics at the
/// gold's k, or a named measure (`nDCG@20`, `P(rel=2)@10`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Metric(Metric),
    Named(Measure),
}

impl Target {
    /// As reasons name it: `MRR@k`, `nDCG@k` for today's metrics, else the
    /// ir_measures name.
    pub fn label(&self, k: u32) -> String {
        match self {
            Target::Metric(m) => m.label(k),
            Target::Named(m) => m.name(),
        }
    }

    /// As JSON names it: `rr`, `ndcg` for today's metrics, else the ir_measures name.
    pub fn key(&self) -> String {
        match self {
            Target::Metric(m) => m.key().to_string(),
            Target::Named(m) => m.name(),
        }
    }

    /// Today's metric it reads, if it is one.
    pub fn metric(&self) -> Option<Metric> {
        match self {
            Target::Metric(m) => Some(*m),
            Target::Named(_) => None,
        }
    }

    /// The named measure it reads, if it is one.
    pub fn named(&self) -> Option<Measure> {
        match self {
            Target::Named(m) => Some(*m),
            Target::Metric(_) => None,
        }
    }

    /// At the gold's k: a name that denotes one of today's metrics there (`RR@10`
    /// when k = 10, `AP`) is that metric's rule.
    pub fn at_k(self, k: u32) -> Target {
        match self.named().and_then(|m| m.builtin()) {
            Some((metric, cutoff)) if cutoff.is_none_or(|c| c == k) => Target::Metric(metric),
            _ => self,
        }
    }
}

/// A gate rule's threshold: what it reads and its value (a drop or a margin, a
/// number >= 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold {
    pub target: Target,
    pub value: f64,
}

/// Where the comparison's k came from (docs/contract.md §5.4): the gold manifest's
/// pinned k, `--k`, or else the depth compared; a refusal at k says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KFrom {
    Gold,
    Flag,
    Depth,
}

impl KFrom {
    /// As [`crate::validate::resolve_k`] picks k: the gold's pinned k, else `--k`,
    /// else the depth.
    pub fn of(pinned: Option<u32>, flag: Option<u32>) -> KFrom {
        match (pinned, flag) {
            (Some(_), _) => KFrom::Gold,
            (None, Some(_)) => KFrom::Flag,
            (None, None) => KFrom::Depth,
        }
    }

    /// `k = 3 (the gold's k)`, `k = 3 (from --k)`, `k = 3 (the runs' depth: no k
    /// given)`.
    pub fn shown(self, k: u32) -> String {
        let from = match self {
            KFrom::Gold => "the gold's k",
            KFrom::Flag => "from --k",
            KFrom::Depth => "the runs' depth: no k given",
        };
        format!("k = {k} ({from})")
    }
}

/// Where a gate rule was given: a flag, or an entry of a policy file's `[gate]`
/// table, whose messages name the file, the table's line and the entry as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    Flag,
    File {
        /// `ragdiff.toml:3: `max_drop``.
        at: String,
        /// The entry's METRIC as written (`NDCG`, `"nDCG@3"`).
        name: String,
    },
}

impl Origin {
    /// What a message about the rule starts with: `--max-drop` or
    /// `ragdiff.toml:3: `max_drop``.
    pub fn prefix(&self, rule: &RuleFlag) -> String {
        match self {
            Origin::Flag => rule.flag.to_string(),
            Origin::File { at, .. } => at.clone(),
        }
    }
}

/// What is wrong with a rule's METRIC.
#[derive(Debug, Clone, PartialEq)]
pub enum BadName {
    /// A short name of a metric without an interval (precision, ap) where only
    /// tested ones are taken.
    Untested,
    /// Neither a short name nor a measure by name: the name parser's message.
    Unknown(String),
}

/// A `METRIC=VALUE` flag's value as clap parses it: the threshold, or the message
/// saying what is wrong, kept so that settings lists every malformed value with the
/// command line's other problems at once (docs/contract.md §3).
#[derive(Debug, Clone, PartialEq)]
pub struct GivenThreshold(pub Result<Threshold, String>);

/// A kind of `METRIC=VALUE` rule: its flag, the metrics it takes and how its
/// messages read.
#[derive(Debug, Clone, Copy)]
pub struct RuleFlag {
    pub flag: &'static str,
    /// Only the metrics with a CI (rr or mrr, recall, hit, ndcg) by short name.
    pub tested_only: bool,
    example: &'static str,
    /// Said after "the value must be a number >= 0".
    value_note: &'static str,
}

pub const MAX_DROP: RuleFlag = RuleFlag {
    flag: "--max-drop",
    tested_only: false,
    example: "mrr=0.02",
    value_note: " (an absolute drop of the mean)",
};
pub const NON_INFERIOR: RuleFlag = RuleFlag {
    flag: "--non-inferior",
    tested_only: true,
    example: "recall=0.02",
    value_note: "",
};
pub const NON_INFERIOR_PER_SEGMENT: RuleFlag = RuleFlag {
    flag: "--non-inferior-per-segment",
    ..NON_INFERIOR
};
pub const MAX_DROP_PER_SEGMENT: RuleFlag = RuleFlag {
    flag: "--max-drop-per-segment",
    tested_only: false,
    example: "recall=0.02",
    value_note: "",
};

impl RuleFlag {
    /// The policy file's `[gate]` key of this rule: `max_drop`.
    pub fn key(&self) -> String {
        self.flag.trim_start_matches("--").replace('-', "_")
    }

    /// Parse one `METRIC=VALUE`, split at the last `=` (`P(rel=2)@10=0.02` names
    /// `P(rel=2)@10`); VALUE is a number >= 0. The message names the flag and the
    /// value.
    pub fn parse(&self, text: &str) -> Result<Threshold, String> {
        let flag = self.flag;
        let (name, value) = text.rsplit_once('=').ok_or_else(|| {
            format!(
                "{flag} {}: expected METRIC=VALUE, like {}",
                bounded(text),
                self.example
            )
        })?;
        let target = self.target(name).map_err(|e| match e {
            BadName::Untested => format!(
                "{flag}: metric `{}` has no confidence interval; use rr, mrr, recall, hit or ndcg",
                bounded(name.trim())
            ),
            BadName::Unknown(e) => format!("{flag}: {}", self.unknown(&e)),
        })?;
        match value.trim().parse::<f64>() {
            // -0 is 0 (a message would say "allowed -0")
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(Threshold {
                target,
                value: v + 0.0,
            }),
            _ => Err(format!(
                "{flag} {}: the value must be a number >= 0{}",
                bounded(text),
                self.value_note
            )),
        }
    }

    /// [`RuleFlag::parse`] as clap's value parser calls it: never an error of its
    /// own, the message kept.
    pub fn given(&self, text: &str) -> GivenThreshold {
        GivenThreshold(self.parse(text))
    }

    /// What a rule's METRIC names: one of today's short names (any case: at the
    /// gold's k), else a measure by name, resolved at k by the gate.
    pub fn target(&self, name: &str) -> Result<Target, BadName> {
        if let Some(metric) = short_metric(name) {
            if self.tested_only && matches!(metric, Metric::Precision | Metric::Ap) {
                return Err(BadName::Untested);
            }
            return Ok(Target::Metric(metric));
        }
        Measure::parse(name)
            .map(Target::Named)
            .map_err(BadName::Unknown)
    }

    /// An unknown name's message after the flag or key: the parser's, then what a
    /// rule takes.
    pub fn unknown(&self, message: &str) -> String {
        let shorts = if self.tested_only {
            "rr (mrr), recall, hit or ndcg at the gold's k"
        } else {
            "rr (mrr), recall, hit, precision (p), ndcg or ap (map) at the gold's k"
        };
        format!("{message}; a gate rule takes {shorts}, or a measure by name: {KNOWN}")
    }
}

/// Today's metric a short name denotes (any letter case), at the gold's k.
pub fn short_metric(name: &str) -> Option<Metric> {
    match name.trim().to_ascii_lowercase().as_str() {
        "mrr" | "rr" => Some(Metric::Rr),
        "recall" => Some(Metric::Recall),
        "hit" => Some(Metric::Hit),
        "ndcg" => Some(Metric::Ndcg),
        "precision" | "p" => Some(Metric::Precision),
        "ap" | "map" => Some(Metric::Ap),
        _ => None,
    }
}

/// A value given on the command line, as a message shows it: escaped, at most 80
/// columns (a name may be megabytes long).
fn bounded(text: &str) -> String {
    crate::text::cut_to(&crate::text::shown(text), 80)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_splits_at_the_last_equals_sign() {
        let t = MAX_DROP.parse("P(rel=2)@10=0.02").expect("a threshold");
        assert_eq!(t.target.key(), "P(rel=2)@10");
        assert_eq!(t.value, 0.02);
        let t = NON_INFERIOR_PER_SEGMENT
            .parse("NDCG=0")
            .expect("a threshold");
        assert_eq!(t.target, Target::Metric(Metric::Ndcg));
    }

    #[test]
    fn minus_zero_is_zero() {
        let t = MAX_DROP.parse("rr=-0").expect("a threshold");
        assert!(t.value == 0.0 && t.value.is_sign_positive(), "{}", t.value);
        assert_eq!(format!("{}", t.value), "0");
    }

    #[test]
    fn messages_name_the_flag_and_the_value() {
        let err = NON_INFERIOR.parse("map=0.1").expect_err("no interval");
        assert_eq!(
            err,
            "--non-inferior: metric `map` has no confidence interval; use rr, mrr, recall, hit or ndcg"
        );
        let err = MAX_DROP_PER_SEGMENT
            .parse("recall=-1")
            .expect_err("negative");
        assert_eq!(
            err,
            "--max-drop-per-segment recall=-1: the value must be a number >= 0"
        );
        assert_eq!(
            NON_INFERIOR.given("recall"),
            GivenThreshold(Err(
                "--non-inferior recall: expected METRIC=VALUE, like recall=0.02".into()
            ))
        );
        assert_eq!(MAX_DROP_PER_SEGMENT.key(), "max_drop_per_segment");
    }
}
