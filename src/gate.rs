//! The gate: a policy applied to a comparison gives a verdict with every reason
//! (SPEC section 8).

use std::path::Path;

use crate::compare::{Accepted, Comparison, GateReport, Status, TESTED};
use crate::load::csvio::{self, Header};
use crate::metrics::Metric;
use crate::model::GoldSet;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Significance level of `--fail-on-significant-drop`.
pub const ALPHA: f64 = 0.05;

/// At most this many ids are named in one reason.
const NAMED: usize = 10;

#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub max_drop: Vec<(Metric, f64)>,
    /// Accepted new failures: id and reason.
    pub allowed: Vec<(String, String)>,
    pub fail_on_significant_drop: bool,
    pub enforced: bool,
}

/// Parse `METRIC=VALUE` of `--max-drop`.
pub fn parse_max_drop(text: &str) -> Result<(Metric, f64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("--max-drop {text}: expected METRIC=VALUE, like mrr=0.02"))?;
    let metric = match name.trim().to_ascii_lowercase().as_str() {
        "mrr" | "rr" => Metric::Rr,
        "recall" => Metric::Recall,
        "hit" => Metric::Hit,
        "precision" | "p" => Metric::Precision,
        "ndcg" => Metric::Ndcg,
        "ap" | "map" => Metric::Ap,
        other => {
            return Err(format!(
                "--max-drop: unknown metric `{other}`; use mrr, rr, recall, hit, precision, ndcg or ap"
            ));
        }
    };
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok((metric, v)),
        _ => Err(format!(
            "--max-drop {text}: the value must be a number >= 0 (an absolute drop of the mean)"
        )),
    }
}

/// Read `--allow-failed-file` (CSV `id,reason`), checking each id is in the gold.
pub fn read_allow_file(
    path: &Path,
    gold: &GoldSet,
    diag: &mut Diagnostics,
) -> Vec<(String, String)> {
    let display = path.display().to_string();
    let mut out = Vec::new();
    let Some(bytes) = crate::load::manifest::read_file(path, "allow-list", &display, diag) else {
        return out;
    };
    let Some(mut reader) = csvio::open(&bytes, &display, diag) else {
        return out;
    };
    let Some(header) = Header::read(
        &mut reader,
        &display,
        &["id", "reason"],
        &["id", "reason"],
        diag,
    ) else {
        return out;
    };
    let required = "`id` and `reason`";
    let (Some(id_col), Some(reason_col)) = (
        header.require("id", required, &display, diag),
        header.require("reason", required, &display, diag),
    ) else {
        return out;
    };
    csvio::for_each_row(
        &mut reader,
        &display,
        header.width,
        &[id_col, reason_col],
        diag,
        |record, line, diag| {
            let Some(id) = csvio::cell_id(record, id_col, "query", "", line, &display, diag) else {
                return;
            };
            let reason = csvio::cell_str(record, reason_col)
                .unwrap_or_default()
                .trim()
                .to_string();
            if !gold.contains(&id) {
                diag.problem(
                    Location::line(&display, line),
                    ProblemKind::AllowedNotInGold { query: id },
                );
                return;
            }
            out.push((id, reason));
        },
    );
    out
}

/// Check `--allow-failed` ids against the gold.
pub fn check_allowed_ids(
    ids: &[String],
    gold: &GoldSet,
    diag: &mut Diagnostics,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for id in ids {
        if gold.contains(id) {
            out.push((id.clone(), "--allow-failed".to_string()));
        } else {
            diag.problem(
                Location::file("--allow-failed"),
                ProblemKind::AllowedNotInGold { query: id.clone() },
            );
        }
    }
    out
}

/// Name up to [`NAMED`] ids (each written by `id`), then how many more.
pub fn name_ids_with(ids: &[impl AsRef<str>], id: &dyn Fn(&str) -> String) -> String {
    let mut s = ids
        .iter()
        .take(NAMED)
        .map(|x| id(x.as_ref()))
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > NAMED {
        s.push_str(&format!(" … and {} more", ids.len() - NAMED));
    }
    s
}

/// Name up to [`NAMED`] ids, then how many more.
pub fn name_ids(ids: &[impl AsRef<str>]) -> String {
    name_ids_with(ids, &crate::report::safe_id)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
                "non-deterministic retrieval: the index version is the same but {} returned another list: {}",
                plural(ids.len(), "query", "queries"),
                name_ids_with(ids, id)
            ),
            Reason::Drop { label, by, allowed } => {
                format!("mean {label} dropped by {by:.4}, more than the allowed {allowed}")
            }
            Reason::Significant { label, delta, p } => {
                format!("mean {label} dropped significantly: {delta:+.4}, p = {p:.4} < {ALPHA}")
            }
        }
    }
}

pub fn decide(
    policy: &Policy,
    cmp: &Comparison,
    k: u32,
) -> (GateReport, Vec<Accepted>, Vec<String>) {
    let mut warnings = Vec::new();
    let newly: Vec<&str> = cmp
        .rows
        .iter()
        .filter(|r| r.status == Status::NewlyFailed)
        .map(|r| r.id.as_str())
        .collect();
    let mut accepted = Vec::new();
    let mut not_failed: Vec<String> = Vec::new();
    for (id, reason) in &policy.allowed {
        if accepted.iter().any(|a: &Accepted| &a.id == id) || not_failed.contains(id) {
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
    match not_failed.len() {
        0 => {}
        1 => warnings.push(format!(
            "allow-listed query {} did not newly fail; remove it from the allow-list",
            crate::report::safe_id(&not_failed[0])
        )),
        n => warnings.push(format!(
            "{n} allow-listed queries did not newly fail; remove them from the allow-list: {}",
            name_ids(&not_failed)
        )),
    }
    accepted.sort_by(|a, b| a.id.cmp(&b.id));
    let mut failing: Vec<String> = newly
        .iter()
        .filter(|id| !accepted.iter().any(|a| a.id == **id))
        .map(|s| s.to_string())
        .collect();
    failing.sort_unstable();
    let mut causes = Vec::new();
    if !failing.is_empty() {
        causes.push(Reason::NewlyFailed { k, ids: failing });
    }
    if !cmp.nondeterministic.is_empty() {
        causes.push(Reason::Nondeterministic {
            ids: cmp.nondeterministic.clone(),
        });
    }
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
    (
        GateReport {
            passed: causes.is_empty(),
            reasons: causes
                .iter()
                .map(|c| c.render(&crate::report::safe_id))
                .collect(),
            enforced: policy.enforced,
            causes,
        },
        accepted,
        warnings,
    )
}
