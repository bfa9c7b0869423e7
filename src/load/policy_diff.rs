//! What a pull request changed in the policy file (docs/contract.md §12.1): the two
//! revisions' `ragdiff.toml` parsed into [`PolicyFile`]s and compared setting by
//! setting, so the report says `block: all -> none`, not only that bytes changed.
//! Every key is compared typed: `mrr` and `rr` are one metric, `0.050` is `0.05`, a
//! comment or a reordering is no change.

use std::collections::BTreeMap;
use std::path::Path;

use crate::load::policy::{self, Block, CompareKeys, GateKeys, Located, PolicyFile, RecordKeys};
use crate::model::threshold::Target;
use crate::validate::Diagnostics;

/// How an unset key reads: the flag's default applies.
const UNSET: &str = "unset";

/// The settings that differ between the policy at the revision (`then`, `None` when
/// the revision has no such file) and now (`now`, `None` when it is gone), one line
/// each in the file's key order: `max_drop.rr: 0.02 -> 0.05`. A policy that cannot
/// be read is said so; bytes that differ with no setting changed say that instead.
pub fn details(path: &Path, then: Option<&[u8]>, now: Option<&[u8]>) -> Vec<String> {
    let parsed = |bytes: Option<&[u8]>| -> Result<PolicyFile, ()> {
        let Some(bytes) = bytes else {
            return Ok(PolicyFile::default());
        };
        let text = String::from_utf8(bytes.to_vec()).map_err(|_| ())?;
        policy::parse(path, text, &mut Diagnostics::default()).ok_or(())
    };
    match (parsed(then), parsed(now)) {
        (Ok(a), Ok(b)) => {
            let lines = diff(&a, &b);
            if lines.is_empty() {
                vec!["no setting changed (comments or layout only)".to_string()]
            } else {
                lines
            }
        }
        (Err(()), _) => vec![
            "the revision's policy file is not valid, so what changed in it is not listed"
                .to_string(),
        ],
        (_, Err(())) => vec!["the policy file is not valid".to_string()],
    }
}

/// One line per setting whose value differs, `KEY: BEFORE -> AFTER` (`unset` for a
/// key one side lacks).
pub fn diff(before: &PolicyFile, after: &PolicyFile) -> Vec<String> {
    let mut lines = gate_diff(before, after);
    if unlined(&before.record) != unlined(&after.record) {
        lines.push(RECORD_CHANGED.to_string());
    }
    lines
}

/// A changed `[record]`, in one line: how the candidate is recorded, which runs in
/// the pull request's own job, is no gate setting (docs/contract.md §12.1).
pub const RECORD_CHANGED: &str =
    "[record] changed (how `ragdiff record` asks the retriever; the gate does not read it)";

/// `[record]`'s values without their lines, destructured whole so that no key is
/// left out of the comparison unseen.
fn unlined(r: &RecordKeys) -> RecordKeys {
    fn v<T: Clone>(x: &Option<Located<T>>) -> Option<Located<T>> {
        x.as_ref().map(|l| Located {
            value: l.value.clone(),
            line: None,
        })
    }
    let RecordKeys {
        command,
        http,
        http_body,
        ids,
        scores,
        header,
        header_env,
        retries,
        max_rps,
        out,
        depth,
        filter,
        results_format,
        concurrency,
        timeout,
        retriever_log,
        include_unlabelled,
        topic_field,
        allow_errors,
        repeats,
    } = r;
    RecordKeys {
        command: v(command),
        http: v(http),
        http_body: v(http_body),
        ids: v(ids),
        scores: v(scores),
        header: v(header),
        header_env: v(header_env),
        retries: v(retries),
        max_rps: v(max_rps),
        out: v(out),
        depth: v(depth),
        filter: v(filter),
        results_format: v(results_format),
        concurrency: v(concurrency),
        timeout: v(timeout),
        retriever_log: v(retriever_log),
        include_unlabelled: v(include_unlabelled),
        topic_field: v(topic_field),
        allow_errors: v(allow_errors),
        repeats: v(repeats),
    }
}

/// The gate's and compare's settings that differ, one line each.
fn gate_diff(before: &PolicyFile, after: &PolicyFile) -> Vec<String> {
    let (a, b) = (settings(before), settings(after));
    let mut keys: Vec<&(usize, String)> = a.keys().chain(b.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .filter_map(|at| {
            let (x, y) = (a.get(at), b.get(at));
            if x.map(|(_, v)| v) == y.map(|(_, v)| v) {
                return None;
            }
            let name = x.or(y).map(|(n, _)| n.as_str()).unwrap_or_default();
            let shown =
                |v: Option<&(String, String)>| v.map_or(UNSET.to_string(), |(_, v)| v.clone());
            Some(format!("{name}: {} -> {}", shown(x), shown(y)))
        })
        .collect()
}

/// Every setting a policy sets, keyed by (its key's place, the metric's place) so
/// both sides list keys in one order; values as the file would spell them.
fn settings(p: &PolicyFile) -> BTreeMap<(usize, String), (String, String)> {
    let mut out = Settings::default();
    let PolicyFile {
        path: _,
        sha256: _,
        gold,
        baseline,
        candidate,
        gate,
        compare,
        // Compared on its own (`diff`): no gate setting.
        record: _,
    } = p;
    out.path("gold", gold);
    out.path("baseline", baseline);
    out.path("candidate", candidate);
    gate_settings(&mut out, gate);
    compare_settings(&mut out, compare);
    out.found
}

/// `[gate]`, destructured whole: a new key cannot be left out of the diff unseen.
fn gate_settings(out: &mut Settings, g: &GateKeys) {
    let GateKeys {
        max_drop,
        max_drop_per_segment,
        non_inferior,
        non_inferior_per_segment,
        fail_on_significant_drop,
        suspects_warn,
        strict_flaky,
        min_rbo,
        allow_failed_file,
        require_frozen,
        min_segment_queries,
        block,
        nondeterminism_warn,
        primary,
        unconfirmed_warn,
        inconclusive_pass,
        fail_on_risk,
        errored_warn,
        max_latency_increase,
    } = g;
    out.metrics("max_drop", max_drop);
    out.metrics("max_drop_per_segment", max_drop_per_segment);
    out.metrics("non_inferior", non_inferior);
    out.metrics("non_inferior_per_segment", non_inferior_per_segment);
    out.value("fail_on_significant_drop", fail_on_significant_drop);
    let warn_or_fail = |l: &Located<bool>| if l.value { "warn" } else { "fail" }.to_string();
    out.add("suspects", suspects_warn.as_ref().map(warn_or_fail));
    out.value("strict_flaky", strict_flaky);
    out.value("min_rbo", min_rbo);
    out.path("allow_failed_file", allow_failed_file);
    out.value("require_frozen", require_frozen);
    out.value("min_segment_queries", min_segment_queries);
    out.add("block", block.as_ref().map(|l| block_text(&l.value)));
    out.add(
        "nondeterminism",
        nondeterminism_warn.as_ref().map(warn_or_fail),
    );
    out.add("primary", primary.as_ref().map(|l| l.value.clone()));
    out.add("unconfirmed", unconfirmed_warn.as_ref().map(warn_or_fail));
    out.add("errored", errored_warn.as_ref().map(warn_or_fail));
    out.add(
        "max_latency_increase",
        max_latency_increase.as_ref().map(|l| {
            let each: Vec<String> = l.value.iter().map(|x| x.shown()).collect();
            each.join(", ")
        }),
    );
    out.add(
        "inconclusive",
        inconclusive_pass
            .as_ref()
            .map(|l| if l.value { "pass" } else { "fail" }.to_string()),
    );
    out.value("fail_on_risk", fail_on_risk);
}

/// `[compare]`, destructured whole like `[gate]`.
fn compare_settings(out: &mut Settings, c: &CompareKeys) {
    let CompareKeys {
        resamples,
        seed,
        cutoffs,
        rbo_p,
        depth,
        segment_correction,
        risk_alpha,
        measures,
    } = c;
    out.value("resamples", resamples);
    out.value("seed", seed);
    out.add(
        "cutoffs",
        cutoffs.as_ref().map(|l| {
            let each: Vec<String> = l.value.iter().map(u32::to_string).collect();
            format!("[{}]", each.join(", "))
        }),
    );
    out.value("rbo_p", rbo_p);
    out.value("depth", depth);
    out.add(
        "segment_correction",
        segment_correction.as_ref().map(|l| l.value.clone()),
    );
    out.add(
        "risk_alpha",
        risk_alpha.as_ref().map(|l| {
            let each: Vec<String> = l.value.iter().map(f64::to_string).collect();
            format!("[{}]", each.join(", "))
        }),
    );
    out.add(
        "measures",
        measures
            .as_ref()
            .map(|l| format!("[{}]", l.value.join(", "))),
    );
}

fn block_text(b: &Block) -> String {
    match b {
        Block::All => "all".to_string(),
        Block::None => "none".to_string(),
        Block::Tags(tags) => tags
            .iter()
            .map(|t| format!("tag:{t}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The settings found so far, each key given its place as it is added.
#[derive(Default)]
struct Settings {
    found: BTreeMap<(usize, String), (String, String)>,
    /// The place of the key added last.
    place: usize,
}

impl Settings {
    fn add(&mut self, key: &str, value: Option<String>) {
        self.place += 1;
        if let Some(v) = value {
            self.found
                .insert((self.place, String::new()), (key.to_string(), v));
        }
    }

    fn value<T: std::fmt::Display>(&mut self, key: &str, value: &Option<Located<T>>) {
        self.add(key, value.as_ref().map(|l| l.value.to_string()));
    }

    fn path(&mut self, key: &str, value: &Option<Located<std::path::PathBuf>>) {
        self.add(key, value.as_ref().map(|l| l.value.display().to_string()));
    }

    /// `KEY.METRIC` per metric, in the metrics' order, then `KEY.NAME` per measure
    /// by name, in the names' order (a name is compared as the parser prints it:
    /// `P(rel = 2)@10` is `P(rel=2)@10`).
    fn metrics(&mut self, key: &str, value: &policy::Rules) {
        self.place += 1;
        for rule in value.iter().flat_map(|l| &l.value).map(|e| &e.threshold) {
            let (at, shown) = match rule.target {
                Target::Metric(m) => (format!("0{}", m.index()), m.key().to_string()),
                Target::Named(n) => (format!("1{n}"), n.name()),
            };
            self.found.insert(
                (self.place, at),
                (
                    format!("{key}.{}", crate::text::shown(&shown)),
                    rule.value.to_string(),
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(text: &str) -> PolicyFile {
        let mut diag = Diagnostics::default();
        policy::parse(Path::new("ragdiff.toml"), text.to_string(), &mut diag)
            .unwrap_or_else(|| panic!("invalid: {:?}", diag.problems))
    }

    #[test]
    fn each_changed_setting_is_one_typed_line() {
        let before = policy(
            "[gate]\nblock = \"all\"\nmax_drop = { rr = 0.02, ndcg = 0.01 }\nsuspects = \"fail\"\n",
        );
        let after = policy(
            "# looser\n[gate]\nmax_drop = { ndcg = 0.010, mrr = 0.05 }\nsuspects = \"warn\"\nblock = \"none\"\n[compare]\ncutoffs = [1, 5]\n",
        );
        assert_eq!(
            diff(&before, &after),
            [
                "max_drop.rr: 0.02 -> 0.05",
                "suspects: fail -> warn",
                "block: all -> none",
                "cutoffs: unset -> [1, 5]",
            ]
        );
    }

    #[test]
    fn a_removed_key_and_a_comment_only_change_read_so() {
        let before =
            policy("[gate]\nstrict_flaky = true\nblock = [\"tag:must-pass\", \"tag:legal\"]\n");
        let after = policy("[gate]\nblock = [\"tag:must-pass\"]\n");
        assert_eq!(
            diff(&before, &after),
            [
                "strict_flaky: true -> unset",
                "block: tag:must-pass, tag:legal -> tag:must-pass"
            ]
        );
        let path = Path::new("ragdiff.toml");
        assert_eq!(
            details(
                path,
                Some(b"[gate]\nmin_rbo = 0.5\n"),
                Some(b"[gate]\n# why\nmin_rbo = 0.50\n")
            ),
            ["no setting changed (comments or layout only)"]
        );
        assert_eq!(
            details(
                path,
                Some(b"[gate]\nmin_rbo = oops\n"),
                Some(b"[gate]\nmin_rbo = 0.5\n")
            ),
            ["the revision's policy file is not valid, so what changed in it is not listed"]
        );
        assert_eq!(
            details(path, None, Some(b"[gate]\nmin_rbo = 0.5\n")),
            ["min_rbo: unset -> 0.5"]
        );
    }
}
