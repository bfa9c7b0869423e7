//! The gate: a policy applied to a comparison gives a verdict with every reason
//! (docs/contract.md, "Gate"). It owns the verdict, its reasons and the accepted
//! failures; reading the allow-list is `load::allow`'s work.

use serde::Serialize;

use crate::compare::{Comparison, Status, TESTED};
use crate::metrics::Metric;
use crate::text::{name_ids, name_ids_with, plural, safe_id};

/// Significance level of `--fail-on-significant-drop`.
pub const ALPHA: f64 = 0.05;

#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub max_drop: Vec<(Metric, f64)>,
    /// Accepted new failures: id and reason.
    pub allowed: Vec<(String, String)>,
    pub fail_on_significant_drop: bool,
    pub enforced: bool,
    /// `--strict-flaky`: every flaky query fails the gate (docs/contract.md §17).
    pub strict_flaky: bool,
    /// `--min-rbo`: fail when the mean RBO of the drift queries is below it.
    pub min_rbo: Option<f64>,
}

/// A newly failed query the allow-list accepts, with the list's reason.
#[derive(Debug, Clone, Serialize)]
pub struct Accepted {
    pub id: String,
    pub reason: String,
}

/// The gate's verdict (JSON `gate`).
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub passed: bool,
    pub reasons: Vec<String>,
    /// One code per reason, in the same order: `newly_failed`, `nondeterministic`,
    /// `max_drop`, `significant_drop`, `same_results`, `flaky`, `min_rbo`.
    pub codes: Vec<&'static str>,
    /// False under `--no-gate`: the verdict is shown but never fails the run.
    pub enforced: bool,
    /// The reasons, structured, for formats that write ids their own way.
    #[serde(skip)]
    pub causes: Vec<Reason>,
}

/// Why the gate failed, kept structured so each format can write the ids its way.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    NewlyFailed {
        k: u32,
        ids: Vec<String>,
    },
    Nondeterministic {
        ids: Vec<String>,
    },
    Drop {
        label: String,
        by: f64,
        allowed: f64,
    },
    Significant {
        label: String,
        delta: f64,
        p: f64,
    },
    /// Both runs read the same results, under different index versions: the
    /// candidate's results cannot come from its index.
    SameResults,
    /// `--strict-flaky` and these queries are flaky.
    Flaky {
        ids: Vec<String>,
    },
    /// `--min-rbo`: the mean RBO is below the minimum.
    MinRbo {
        mean: f64,
        min: f64,
        p: f64,
    },
}

impl Reason {
    /// The reason in one sentence, ids written by `id`.
    pub fn render(&self, id: &dyn Fn(&str) -> String) -> String {
        match self {
            Reason::NewlyFailed { k, ids } => format!(
                "{} newly failed (RR@{k} fell to 0): {}",
                plural(ids.len(), "query", "queries"),
                name_ids_with(ids, id)
            ),
            Reason::Nondeterministic { ids } => format!(
                "non-deterministic retrieval: the index version is the same but {} scored otherwise (RR, Recall or nDCG): {}",
                plural(ids.len(), "query", "queries"),
                name_ids_with(ids, id)
            ),
            Reason::Drop { label, by, allowed } => {
                format!("mean {label} dropped by {by:.4}, more than the allowed {allowed}")
            }
            Reason::Significant { label, delta, p } => {
                format!("mean {label} dropped significantly: {delta:+.4}, p = {p:.4} < {ALPHA}")
            }
            Reason::SameResults => "baseline and candidate read the same results, yet their index versions differ: the candidate's results cannot come from its index".to_string(),
            Reason::Flaky { ids } => format!(
                "{} flaky (RR@k is 0 in some repeats only) and --strict-flaky is set: {}",
                plural(ids.len(), "query is", "queries are"),
                name_ids_with(ids, id)
            ),
            Reason::MinRbo { mean, min, p } => {
                format!("mean RBO (p = {p}) is {mean:.4}, below the minimum {min}")
            }
        }
    }

    /// The reason's code in JSON `gate.codes`.
    pub fn code(&self) -> &'static str {
        match self {
            Reason::NewlyFailed { .. } => "newly_failed",
            Reason::Nondeterministic { .. } => "nondeterministic",
            Reason::Drop { .. } => "max_drop",
            Reason::Significant { .. } => "significant_drop",
            Reason::SameResults => "same_results",
            Reason::Flaky { .. } => "flaky",
            Reason::MinRbo { .. } => "min_rbo",
        }
    }
}

/// Apply the policy: the verdict, the accepted new failures (sorted by id) and the
/// gate's own warnings (allow-listed queries that did not newly fail).
pub fn decide(policy: &Policy, cmp: &Comparison, k: u32) -> (Verdict, Vec<Accepted>, Vec<String>) {
    let newly: Vec<&str> = cmp
        .rows
        .iter()
        .filter(|r| r.status == Status::NewlyFailed)
        .map(|r| r.id.as_str())
        .collect();
    let (accepted, warnings) = accept(&policy.allowed, &newly);
    let mut failing: Vec<String> = newly
        .iter()
        .filter(|id| !accepted.iter().any(|a| a.id == **id))
        .map(|s| s.to_string())
        .collect();
    failing.sort_unstable();
    let mut causes = Vec::new();
    if cmp.same_results && cmp.bump != crate::compare::Bump::Same {
        causes.push(Reason::SameResults);
    }
    if !failing.is_empty() {
        causes.push(Reason::NewlyFailed { k, ids: failing });
    }
    if !cmp.nondeterministic.is_empty() {
        causes.push(Reason::Nondeterministic {
            ids: cmp.nondeterministic.clone(),
        });
    }
    causes.extend(mean_causes(policy, cmp, k));
    causes.extend(noise_causes(policy, cmp));
    let verdict = Verdict {
        passed: causes.is_empty(),
        reasons: causes.iter().map(|c| c.render(&safe_id)).collect(),
        codes: causes.iter().map(Reason::code).collect(),
        enforced: policy.enforced,
        causes,
    };
    (verdict, accepted, warnings)
}

/// Split the allow-list into accepted new failures and a warning naming the entries
/// that did not newly fail (each id once).
fn accept(allowed: &[(String, String)], newly: &[&str]) -> (Vec<Accepted>, Vec<String>) {
    let mut accepted: Vec<Accepted> = Vec::new();
    let mut not_failed: Vec<String> = Vec::new();
    for (id, reason) in allowed {
        if accepted.iter().any(|a| &a.id == id) || not_failed.contains(id) {
            continue;
        }
        if newly.contains(&id.as_str()) {
            accepted.push(Accepted {
                id: id.clone(),
                reason: reason.clone(),
            });
        } else {
            not_failed.push(id.clone());
        }
    }
    not_failed.sort_unstable();
    accepted.sort_by(|a, b| a.id.cmp(&b.id));
    let warnings = match not_failed.len() {
        0 => Vec::new(),
        1 => vec![format!(
            "allow-listed query {} did not newly fail; remove it from the allow-list",
            safe_id(&not_failed[0])
        )],
        n => vec![format!(
            "{n} allow-listed queries did not newly fail; remove them from the allow-list: {}",
            name_ids(&not_failed)
        )],
    };
    (accepted, warnings)
}

/// The reasons that come from means: `--max-drop` and `--fail-on-significant-drop`.
fn mean_causes(policy: &Policy, cmp: &Comparison, k: u32) -> Vec<Reason> {
    let mut causes = Vec::new();
    for (metric, allowed) in &policy.max_drop {
        let m = cmp.means.get(*metric);
        if -m.delta > allowed + 1e-12 {
            causes.push(Reason::Drop {
                label: metric.label(k),
                by: -m.delta,
                allowed: *allowed,
            });
        }
    }
    if policy.fail_on_significant_drop {
        for metric in TESTED {
            let m = cmp.means.get(metric);
            if let Some(p) = m.p_value
                && m.delta < 0.0
                && p < ALPHA
            {
                causes.push(Reason::Significant {
                    label: metric.label(k),
                    delta: m.delta,
                    p,
                });
            }
        }
    }
    causes
}

/// The reasons from noise and drift: `--strict-flaky` and `--min-rbo`
/// (docs/contract.md §17).
fn noise_causes(policy: &Policy, cmp: &Comparison) -> Vec<Reason> {
    let mut causes = Vec::new();
    if policy.strict_flaky && !cmp.flaky.is_empty() {
        causes.push(Reason::Flaky {
            ids: cmp.flaky.clone(),
        });
    }
    if let (Some(min), Some(mean)) = (policy.min_rbo, cmp.drift.mean_rbo)
        && mean < min
    {
        causes.push(Reason::MinRbo {
            mean,
            min,
            p: cmp.drift.rbo_p,
        });
    }
    causes
}
