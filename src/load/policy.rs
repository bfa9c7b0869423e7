//! `ragdiff.toml`, the policy in the repository: read and checked here into a typed
//! [`PolicyFile`] whose every value keeps its line. Where
//! the file is found and how flags override it is `settings`' work.

use std::path::{Path, PathBuf};

use sha2::Digest as _;
use toml_edit::{Item, Table};

use crate::load::manifest::{self, ManifestDoc};
use crate::model::threshold::{self, BadName, RuleFlag, Threshold};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// The policy's file name.
pub const FILE_NAME: &str = "ragdiff.toml";

const TOP_KEYS: &str = "gold, baseline, candidate, gate, compare, record";
/// The largest `risk_alpha` (docs/contract.md §7.4): a loss weighs at most 1001 times
/// a gain.
pub const MAX_RISK_ALPHA: f64 = 1000.0;

/// `[gate]`'s keys, and `[compare]`'s below (the Python module files its policy
/// keywords by them).
pub const GATE_KEYS: &str = "max_drop, max_drop_per_segment, non_inferior, non_inferior_per_segment, fail_on_significant_drop, suspects, strict_flaky, min_rbo, allow_failed_file, require_frozen, min_segment_queries, block, nondeterminism, unconfirmed, primary, inconclusive, errored, max_latency_increase, fail_on_risk";
pub const COMPARE_KEYS: &str =
    "resamples, seed, cutoffs, rbo_p, depth, segment_correction, risk_alpha, measures";
/// `[record]`'s keys: the team's settings of `ragdiff record` (docs/contract.md §4.8).
pub use crate::load::policy_record::RECORD_KEYS;
pub use crate::load::policy_record::RecordKeys;

/// A value and the line it was on.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub line: Option<u64>,
}

/// `[gate] block`: which newly failed queries fail the gate.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Block {
    /// Every newly failed query (as without a policy).
    #[default]
    All,
    /// None: the other rules judge the change.
    None,
    /// Only those carrying one of these tags.
    Tags(Vec<String>),
}

/// `{ METRIC = VALUE, … }` of a `[gate]` rule, in the file's order, each parsed as
/// its flag's value is (docs/contract.md §5.4).
pub type Rules = Option<Located<Vec<Entry>>>;

/// One entry of a `[gate]` rule table: its METRIC as written (for messages), its
/// threshold and its own line (docs/contract.md §8.6).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub name: String,
    pub threshold: Threshold,
    pub line: Option<u64>,
}

/// `[gate]`: one key per gate flag; absent keys are `None` (the flag's default).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GateKeys {
    pub max_drop: Rules,
    pub max_drop_per_segment: Rules,
    pub non_inferior: Rules,
    pub non_inferior_per_segment: Rules,
    pub fail_on_significant_drop: Option<Located<bool>>,
    /// `true`: warn (`--suspects warn`), `false`: fail.
    pub suspects_warn: Option<Located<bool>>,
    pub strict_flaky: Option<Located<bool>>,
    pub min_rbo: Option<Located<f64>>,
    pub allow_failed_file: Option<Located<PathBuf>>,
    pub require_frozen: Option<Located<bool>>,
    pub min_segment_queries: Option<Located<u32>>,
    pub block: Option<Located<Block>>,
    /// `true`: warn (`--nondeterminism warn`), `false`: fail (docs/contract.md §6.4).
    pub nondeterminism_warn: Option<Located<bool>>,
    /// `--primary`: a short name or a measure by name (docs/contract.md §6.2).
    pub primary: Option<Located<String>>,
    /// `true`: warn (`--unconfirmed warn`), `false`: fail (docs/contract.md §6.5).
    pub unconfirmed_warn: Option<Located<bool>>,
    /// `true`: an INCONCLUSIVE verdict exits 0 (`--inconclusive pass`), `false`: 1
    /// (docs/contract.md §8.3).
    pub inconclusive_pass: Option<Located<bool>>,
    /// `--fail-on-risk` (docs/contract.md §7.4).
    pub fail_on_risk: Option<Located<bool>>,
    /// `true`: warn (`--errored warn`), `false`: fail (docs/contract.md §6.8).
    pub errored_warn: Option<Located<bool>>,
    /// `{ p95 = "20%", max = "50ms" }` (docs/contract.md §6.9).
    pub max_latency_increase: Option<Located<Vec<crate::model::latency::LatencyLimit>>>,
}

/// `[compare]`: the settings that are not gate rules.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompareKeys {
    pub resamples: Option<Located<u32>>,
    pub seed: Option<Located<u64>>,
    pub cutoffs: Option<Located<Vec<u32>>>,
    pub rbo_p: Option<Located<f64>>,
    /// `--depth` (docs/contract.md §6.1).
    pub depth: Option<Located<u32>>,
    /// `--segment-correction`: `holm` or `bh` (docs/contract.md §7.1).
    pub segment_correction: Option<Located<String>>,
    /// `--risk-alpha`, in the order written (docs/contract.md §7.4).
    pub risk_alpha: Option<Located<Vec<f64>>>,
    /// `--measure` names, parsed by settings (docs/contract.md §5.4).
    pub measures: Option<Located<Vec<String>>>,
}

/// A checked `ragdiff.toml`: paths resolved against its folder.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PolicyFile {
    pub path: PathBuf,
    /// The file's sha256 in hex: the reports name the policy by it.
    pub sha256: String,
    pub gold: Option<Located<PathBuf>>,
    pub baseline: Option<Located<PathBuf>>,
    pub candidate: Option<Located<PathBuf>>,
    pub gate: GateKeys,
    pub compare: CompareKeys,
    /// `[record]` (docs/contract.md §4.8): `record`'s settings, checked by every command, applied by `record` only.
    pub record: RecordKeys,
}

/// Read and check a policy file; every problem is recorded with its line.
pub fn read(path: &Path, diag: &mut Diagnostics) -> Option<PolicyFile> {
    let doc = manifest::read_as(path, "policy file", diag)?;
    checked(doc, diag)
}

/// [`read`] of policy text (another revision's file: docs/contract.md §12.1); `path`
/// names it in messages and anchors its relative paths.
pub fn parse(path: &Path, text: String, diag: &mut Diagnostics) -> Option<PolicyFile> {
    let doc = manifest::parse(path, text, diag)?;
    checked(doc, diag)
}

fn checked(doc: ManifestDoc, diag: &mut Diagnostics) -> Option<PolicyFile> {
    let before = diag.problems.len();
    let sha256 = hex(&sha2::Sha256::digest(doc.doc.raw().as_bytes()));
    let mut keys = Keys { m: &doc, diag };
    let root = doc.doc.as_table();
    keys.unknown(root, TOP_KEYS);
    let policy = PolicyFile {
        path: doc.path.clone(),
        sha256,
        gold: keys.path(root, "gold"),
        baseline: keys.path(root, "baseline"),
        candidate: keys.path(root, "candidate"),
        gate: keys
            .table(root, "gate")
            .map(|t| gate(&mut keys, t))
            .unwrap_or_default(),
        compare: keys
            .table(root, "compare")
            .map(|t| compare(&mut keys, t))
            .unwrap_or_default(),
        record: keys
            .table(root, "record")
            .map(|t| crate::load::policy_record::record(&mut keys, t))
            .unwrap_or_default(),
    };
    (diag.problems.len() == before).then_some(policy)
}

/// A whole number already checked to fit.
pub(crate) fn narrow(l: Located<i64>) -> Located<u32> {
    Located {
        value: u32::try_from(l.value).unwrap_or(u32::MAX),
        line: l.line,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn gate(keys: &mut Keys, t: &Table) -> GateKeys {
    keys.unknown(t, GATE_KEYS);
    GateKeys {
        max_drop: keys.rules(t, &threshold::MAX_DROP),
        max_drop_per_segment: keys.rules(t, &threshold::MAX_DROP_PER_SEGMENT),
        non_inferior: keys.rules(t, &threshold::NON_INFERIOR),
        non_inferior_per_segment: keys.rules(t, &threshold::NON_INFERIOR_PER_SEGMENT),
        fail_on_significant_drop: keys.boolean(t, "fail_on_significant_drop"),
        suspects_warn: keys.warn_or_fail(t, "suspects"),
        strict_flaky: keys.boolean(t, "strict_flaky"),
        nondeterminism_warn: keys.warn_or_fail(t, "nondeterminism"),
        unconfirmed_warn: keys.warn_or_fail(t, "unconfirmed"),
        errored_warn: keys.warn_or_fail(t, "errored"),
        max_latency_increase: keys.latency_limits(t),
        inconclusive_pass: keys
            .choice(t, "inconclusive", &["fail", "pass"])
            .map(|l| Located {
                value: l.value == "pass",
                line: l.line,
            }),
        // a name is parsed by the settings, which report it at this line
        primary: keys.string(t, "primary"),
        min_rbo: keys.number(t, "min_rbo", "a number from 0 to 1", |v| {
            (0.0..=1.0).contains(&v)
        }),
        allow_failed_file: keys.path(t, "allow_failed_file"),
        require_frozen: keys.boolean(t, "require_frozen"),
        min_segment_queries: keys
            .whole(
                t,
                "min_segment_queries",
                "a whole number >= 2",
                2,
                u32::MAX.into(),
            )
            .map(narrow),
        block: keys.block(t),
        fail_on_risk: keys.boolean(t, "fail_on_risk"),
    }
}

fn compare(keys: &mut Keys, t: &Table) -> CompareKeys {
    keys.unknown(t, COMPARE_KEYS);
    CompareKeys {
        resamples: keys
            .whole(
                t,
                "resamples",
                "a whole number from 1 to 1000000",
                1,
                1_000_000,
            )
            .map(narrow),
        seed: keys
            .whole(t, "seed", "a whole number >= 0", 0, i64::MAX)
            .map(|l| Located {
                value: l.value.unsigned_abs(),
                line: l.line,
            }),
        cutoffs: keys.cutoffs(t),
        rbo_p: keys.number(t, "rbo_p", "a number strictly between 0 and 1", |v| {
            v > 0.0 && v < 1.0
        }),
        depth: keys
            .whole(t, "depth", "a whole number >= 1", 1, u32::MAX.into())
            .map(narrow),
        segment_correction: keys.choice(t, "segment_correction", &["holm", "bh"]),
        risk_alpha: keys.risk_alpha(t),
        measures: keys.strings(
            t,
            "measures",
            "an array of measure names, like [\"nDCG@20\", \"Bpref\"]",
        ),
    }
}

/// Typed access to the policy's keys that records every problem it meets.
pub(crate) struct Keys<'a> {
    pub(crate) m: &'a ManifestDoc,
    pub(crate) diag: &'a mut Diagnostics,
}

impl Keys<'_> {
    pub(crate) fn loc(&self, t: &Table, key: &str) -> Location {
        self.m.key_location(t, key)
    }

    pub(crate) fn line(&self, t: &Table, key: &str) -> Option<u64> {
        self.loc(t, key).line
    }

    pub(crate) fn wrong(&mut self, t: &Table, key: &str, expected: &'static str) {
        let loc = self.loc(t, key);
        let key = key.to_string();
        self.diag
            .problem(loc, ProblemKind::WrongType { key, expected });
    }

    pub(crate) fn unknown(&mut self, t: &Table, known: &'static str) {
        let names: Vec<&str> = known.split(", ").collect();
        for (key, _) in t.iter() {
            if !names.contains(&key) {
                let loc = self.loc(t, key);
                let key = key.to_string();
                self.diag
                    .problem(loc, ProblemKind::UnknownKey { key, known });
            }
        }
    }

    pub(crate) fn table<'t>(&mut self, t: &'t Table, key: &str) -> Option<&'t Table> {
        let item = t.get(key)?;
        match item.as_table() {
            Some(table) => Some(table),
            None if item.is_inline_table() => {
                // `gate = { … }` is a table to TOML, but its lines and keys are
                // read from a section
                self.wrong(
                    t,
                    key,
                    "a section of its own, its [name] on a line (an inline { … } table is not read)",
                );
                None
            }
            None => {
                self.wrong(t, key, "a table");
                None
            }
        }
    }

    pub(crate) fn located<T>(&self, t: &Table, key: &str, value: T) -> Located<T> {
        Located {
            value,
            line: self.line(t, key),
        }
    }

    pub(crate) fn string(&mut self, t: &Table, key: &str) -> Option<Located<String>> {
        let item = t.get(key)?;
        match item.as_str() {
            Some(s) => Some(self.located(t, key, s.to_string())),
            None => {
                self.wrong(t, key, "a string");
                None
            }
        }
    }

    /// An array of strings.
    fn strings(
        &mut self,
        t: &Table,
        key: &str,
        expected: &'static str,
    ) -> Option<Located<Vec<String>>> {
        let item = t.get(key)?;
        let texts: Option<Vec<String>> = item
            .as_array()
            .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect());
        match texts {
            Some(texts) => Some(self.located(t, key, texts)),
            None => {
                self.wrong(t, key, expected);
                None
            }
        }
    }

    /// A path, relative to the policy file's folder.
    pub(crate) fn path(&mut self, t: &Table, key: &str) -> Option<Located<PathBuf>> {
        let s = self.string(t, key)?;
        if s.value.is_empty() {
            self.wrong(t, key, "a path (not empty)");
            return None;
        }
        let base = self.m.path.parent().unwrap_or(Path::new(""));
        Some(Located {
            value: base.join(&s.value),
            line: s.line,
        })
    }

    pub(crate) fn boolean(&mut self, t: &Table, key: &str) -> Option<Located<bool>> {
        let item = t.get(key)?;
        match item.as_bool() {
            Some(b) => Some(self.located(t, key, b)),
            None => {
                self.wrong(t, key, "true or false");
                None
            }
        }
    }

    pub(crate) fn choice(
        &mut self,
        t: &Table,
        key: &str,
        allowed: &[&str],
    ) -> Option<Located<String>> {
        let s = self.string(t, key)?;
        if allowed.contains(&s.value.as_str()) {
            return Some(s);
        }
        let loc = self.loc(t, key);
        self.diag.problem(
            loc,
            ProblemKind::PolicyValue {
                key: key.to_string(),
                value: s.value,
                expected: allowed
                    .iter()
                    .map(|a| format!("\"{a}\""))
                    .collect::<Vec<_>>()
                    .join(" or "),
            },
        );
        None
    }

    /// `"fail"` or `"warn"`: true for warn.
    fn warn_or_fail(&mut self, t: &Table, key: &str) -> Option<Located<bool>> {
        self.choice(t, key, &["fail", "warn"]).map(|l| Located {
            value: l.value == "warn",
            line: l.line,
        })
    }

    pub(crate) fn bad_value(&mut self, t: &Table, key: &str, value: String, expected: &str) {
        let loc = self.loc(t, key);
        self.bad_value_at(loc, key, value, expected);
    }

    /// Entry `name`'s location in the rule table `table` of `key`: its own line
    /// (a `[gate.max_drop]` section or dotted keys put entries on lines of their
    /// own), else the key's.
    fn entry_loc(
        &self,
        t: &Table,
        key: &str,
        table: &dyn toml_edit::TableLike,
        name: &str,
    ) -> Location {
        match self.m.entry_line(table, name) {
            Some(line) => Location::at(self.m.display.clone(), Some(line)),
            None => self.loc(t, key),
        }
    }

    fn bad_value_at(&mut self, loc: Location, key: &str, value: String, expected: &str) {
        let (key, expected) = (key.to_string(), expected.to_string());
        self.diag.problem(
            loc,
            ProblemKind::PolicyValue {
                key,
                value,
                expected,
            },
        );
    }

    pub(crate) fn number(
        &mut self,
        t: &Table,
        key: &str,
        expected: &'static str,
        ok: impl Fn(f64) -> bool,
    ) -> Option<Located<f64>> {
        let item = t.get(key)?;
        let v = item
            .as_float()
            .or_else(|| item.as_integer().map(|i| i as f64));
        match v {
            Some(v) if v.is_finite() && ok(v) => Some(self.located(t, key, v)),
            Some(v) => {
                self.bad_value(t, key, crate::text::shown_number(v), expected);
                None
            }
            None => {
                self.wrong(t, key, expected);
                None
            }
        }
    }

    pub(crate) fn whole(
        &mut self,
        t: &Table,
        key: &str,
        expected: &'static str,
        min: i64,
        max: i64,
    ) -> Option<Located<i64>> {
        let item = t.get(key)?;
        match item.as_integer() {
            Some(v) if (min..=max).contains(&v) => Some(self.located(t, key, v)),
            Some(v) => {
                self.bad_value(t, key, v.to_string(), expected);
                None
            }
            None => {
                self.wrong(t, key, expected);
                None
            }
        }
    }

    /// `{ METRIC = VALUE, … }` of `rule`'s key, each METRIC parsed as the flag's
    /// (docs/contract.md §5.4): a short name of a metric without an interval where
    /// only tested ones are taken, a value that is no number >= 0 and an unknown
    /// measure are problems at the key's line.
    fn rules(&mut self, t: &Table, rule: &RuleFlag) -> Rules {
        let key = rule.key();
        let key = key.as_str();
        let item = t.get(key)?;
        let Some(table) = item.as_table_like() else {
            self.wrong(t, key, "a table of METRIC = VALUE, like { ndcg = 0.02 }");
            return None;
        };
        let known = if rule.tested_only {
            "rr, mrr, recall, hit, ndcg"
        } else {
            "rr, mrr, recall, hit, precision, p, ndcg, ap, map"
        };
        let mut out = Vec::new();
        let mut ok = true;
        for (name, value) in table.iter() {
            let v = value
                .as_float()
                .or_else(|| value.as_integer().map(|i| i as f64));
            // a name may be megabytes long: a message shows 80 columns of it
            let shown = crate::text::cut_to(&crate::text::shown(name), 80);
            let at = self.entry_loc(t, key, table, name);
            match (rule.target(name), v) {
                (Ok(target), Some(v)) if v.is_finite() && v >= 0.0 => {
                    out.push(Entry {
                        name: name.to_string(),
                        // -0 is 0 (a message would say "allowed -0")
                        threshold: Threshold {
                            target,
                            value: v + 0.0,
                        },
                        line: at.line,
                    });
                    continue;
                }
                (Err(BadName::Untested), _) => {
                    self.bad_value_at(
                        at,
                        key,
                        shown,
                        &format!(
                            "a metric with a confidence interval ({known}) or a measure by name"
                        ),
                    );
                }
                (Err(BadName::Unknown(e)), Some(v)) if v.is_finite() && v >= 0.0 => {
                    self.diag
                        .usage(format!("{at}: `{key}`: {}", rule.unknown(&e)));
                }
                _ => {
                    let value = crate::text::cut_to(&value.to_string(), 40);
                    self.bad_value_at(
                        at,
                        key,
                        format!("{shown} = {}", value.trim()),
                        "a number >= 0 per metric",
                    );
                }
            }
            ok = false;
        }
        ok.then(|| self.located(t, key, out))
    }

    /// `max_latency_increase = { p95 = "20%", max = "50ms" }`.
    fn latency_limits(
        &mut self,
        t: &Table,
    ) -> Option<Located<Vec<crate::model::latency::LatencyLimit>>> {
        let key = "max_latency_increase";
        let item = t.get(key)?;
        let Some(table) = item.as_table_like() else {
            self.wrong(
                t,
                key,
                "a table of STAT = \"LIMIT\", like { p95 = \"20%\" }",
            );
            return None;
        };
        let mut out = Vec::new();
        let mut ok = true;
        for (stat, limit) in table.iter() {
            let text = format!("{stat}={}", limit.as_str().unwrap_or("?"));
            match crate::model::latency::LatencyLimit::parse(&text) {
                Ok(l) => out.push(l),
                Err(_) => {
                    let shown = limit.to_string().trim().to_string();
                    let at = self.entry_loc(t, key, table, stat);
                    self.bad_value_at(
                        at,
                        key,
                        format!("{stat} = {shown}"),
                        "p50, p95, p99 or max = \"20%\" or \"50ms\"",
                    );
                    ok = false;
                }
            }
        }
        ok.then(|| self.located(t, key, out))
    }

    fn cutoffs(&mut self, t: &Table) -> Option<Located<Vec<u32>>> {
        let key = "cutoffs";
        let item = t.get(key)?;
        let expected = "an array of whole numbers >= 1, like [1, 3, 10]";
        let Some(array) = item.as_array() else {
            self.wrong(t, key, expected);
            return None;
        };
        let mut out = Vec::new();
        for v in array.iter() {
            match v
                .as_integer()
                .and_then(|i| u32::try_from(i).ok())
                .filter(|&c| c >= 1)
            {
                Some(c) => out.push(c),
                None => {
                    self.wrong(t, key, expected);
                    return None;
                }
            }
        }
        Some(self.located(t, key, out))
    }

    /// `risk_alpha = [1, 2, 5]`: at least one number, each from 0 to
    /// [`MAX_RISK_ALPHA`].
    fn risk_alpha(&mut self, t: &Table) -> Option<Located<Vec<f64>>> {
        let key = "risk_alpha";
        let item = t.get(key)?;
        let expected = "an array of numbers from 0 to 1000, like [1, 2, 5]";
        let array = item.as_array().filter(|a| !a.is_empty());
        let Some(array) = array else {
            self.wrong(t, key, expected);
            return None;
        };
        let mut out = Vec::new();
        for v in array.iter() {
            let Some(x) = v.as_float().or_else(|| v.as_integer().map(|i| i as f64)) else {
                self.wrong(t, key, expected);
                return None;
            };
            if !(0.0..=MAX_RISK_ALPHA).contains(&x) {
                self.bad_value(t, key, x.to_string(), expected);
                return None;
            }
            out.push(x);
        }
        Some(self.located(t, key, out))
    }

    /// `block = "all" | "none" | "tag:LABEL" | ["tag:A", "tag:B"]`.
    fn block(&mut self, t: &Table) -> Option<Located<Block>> {
        let key = "block";
        let item = t.get(key)?;
        let expected = "\"all\", \"none\", \"tag:LABEL\" or a list of \"tag:LABEL\"";
        let texts: Vec<String> = match item {
            Item::Value(v) if v.is_str() => vec![v.as_str().unwrap_or_default().to_string()],
            Item::Value(v) if v.is_array() => {
                let array = v.as_array().expect("checked");
                let texts: Option<Vec<String>> = array
                    .iter()
                    .map(|e| e.as_str().map(str::to_string))
                    .collect();
                match texts {
                    Some(t) if !t.is_empty() => t,
                    _ => {
                        self.wrong(t, key, expected);
                        return None;
                    }
                }
            }
            _ => {
                self.wrong(t, key, expected);
                return None;
            }
        };
        if let [one] = texts.as_slice() {
            match one.as_str() {
                "all" => return Some(self.located(t, key, Block::All)),
                "none" => return Some(self.located(t, key, Block::None)),
                _ => {}
            }
        }
        let mut tags = Vec::new();
        for text in texts {
            match text.strip_prefix("tag:").map(str::trim) {
                Some(tag) if !tag.is_empty() && crate::validate::id_problem(tag).is_none() => {
                    tags.push(tag.to_string());
                }
                _ => {
                    self.bad_value(t, key, text, expected);
                    return None;
                }
            }
        }
        Some(self.located(t, key, Block::Tags(tags)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Metric;
    use crate::model::threshold::Target;

    /// A `[gate]` table and the flags give one type, by one parser: the named
    /// measure split from its value at the last `=` on the command line is the key.
    #[test]
    fn a_tables_minus_zero_is_zero() {
        let text = "[gate]\nmax_drop = { rr = -0.0 }\n";
        let mut diag = Diagnostics::default();
        let p = parse(Path::new("ragdiff.toml"), text.into(), &mut diag).expect("valid");
        let value = p.gate.max_drop.expect("a rule").value[0].threshold.value;
        assert!(value == 0.0 && value.is_sign_positive(), "{value}");
    }

    #[test]
    fn gate_tables_parse_as_the_flags_do() {
        let text = "[gate]\nmax_drop = { \"P(rel=2)@10\" = 0.02, NDCG = 0.1 }\nnon_inferior = { \"nDCG@20\" = 0 }\n";
        let mut diag = Diagnostics::default();
        let p = parse(Path::new("ragdiff.toml"), text.into(), &mut diag).expect("valid");
        let rules = |r: &Rules| -> Vec<Threshold> {
            r.iter()
                .flat_map(|l| l.value.iter().map(|e| e.threshold))
                .collect()
        };
        let flags = |flag: &RuleFlag, given: &[&str]| -> Vec<Threshold> {
            given.iter().map(|g| flag.parse(g).expect(g)).collect()
        };
        assert_eq!(
            rules(&p.gate.max_drop),
            flags(&threshold::MAX_DROP, &["P(rel=2)@10=0.02", "ndcg=0.1"])
        );
        assert_eq!(
            rules(&p.gate.non_inferior),
            flags(&threshold::NON_INFERIOR, &["nDCG@20=0"])
        );
    }

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/policy")
            .join(name)
    }

    fn problems(name: &str) -> Vec<String> {
        let mut diag = Diagnostics::default();
        assert!(
            read(&fixture(name), &mut diag).is_none(),
            "{name} was accepted"
        );
        let base = format!("{}/", fixture("x").parent().expect("folder").display());
        diag.problems
            .iter()
            .map(|p| p.to_string().replace(&base, ""))
            .collect()
    }

    #[test]
    fn nondeterminism_and_primary_are_gate_keys() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join(FILE_NAME);
        std::fs::write(
            &path,
            "[gate]\nnondeterminism = \"warn\"\nprimary = \"ndcg\"\n",
        )
        .expect("written");
        let mut diag = Diagnostics::default();
        let p = read(&path, &mut diag).expect("valid");
        assert_eq!(
            p.gate.nondeterminism_warn.map(|l| (l.value, l.line)),
            Some((true, Some(2)))
        );
        assert_eq!(p.gate.primary.map(|l| l.value), Some("ndcg".to_string()));
        // not a string: refused at its line (a name is the settings' to parse)
        std::fs::write(&path, "[gate]\nprimary = 3\n").expect("written");
        let mut diag = Diagnostics::default();
        assert!(read(&path, &mut diag).is_none());
        let problems: Vec<String> = diag.problems.iter().map(ToString::to_string).collect();
        assert!(
            problems
                .iter()
                .any(|p| p.contains(":2:") && p.contains("primary")),
            "{problems:?}"
        );
    }

    #[test]
    fn every_key_is_read_typed_and_located() {
        let mut diag = Diagnostics::default();
        let p = read(&fixture("full.toml"), &mut diag).expect("valid");
        assert!(diag.problems.is_empty(), "{:?}", diag.problems);
        assert_eq!(p.sha256.len(), 64);
        let gold = p.gold.expect("gold");
        assert_eq!(gold.value, fixture("gold/demo.toml"));
        assert_eq!(gold.line, Some(2));
        let g = &p.gate;
        assert_eq!(
            g.max_drop
                .as_ref()
                .map(|l| l.value.iter().map(|e| e.threshold).collect::<Vec<_>>()),
            Some(vec![
                Threshold {
                    target: Target::Metric(Metric::Ndcg),
                    value: 0.02
                },
                Threshold {
                    target: Target::Metric(Metric::Rr),
                    value: 0.01
                }
            ])
        );
        assert_eq!(g.max_drop.as_ref().and_then(|l| l.line), Some(7));
        assert_eq!(g.suspects_warn.as_ref().map(|l| l.value), Some(true));
        assert_eq!(g.strict_flaky.as_ref().map(|l| l.value), Some(false));
        assert_eq!(g.min_segment_queries.as_ref().map(|l| l.value), Some(5));
        assert_eq!(
            g.block.as_ref().map(|l| l.value.clone()),
            Some(Block::Tags(vec!["must-pass".into(), "legal".into()]))
        );
        let c = &p.compare;
        assert_eq!(c.resamples.as_ref().map(|l| l.value), Some(2000));
        assert_eq!(c.seed.as_ref().map(|l| l.value), Some(7));
        assert_eq!(
            c.cutoffs.as_ref().map(|l| l.value.clone()),
            Some(vec![1, 3, 10])
        );
        assert_eq!(c.rbo_p.as_ref().map(|l| l.value), Some(0.95));
        assert_eq!(
            c.segment_correction
                .as_ref()
                .map(|l| (l.value.clone(), l.line)),
            Some(("bh".to_string(), Some(25)))
        );
    }

    #[test]
    fn each_broken_rule_names_its_line() {
        let gate_keys = GATE_KEYS;
        for (name, expected) in [
            (
                "unknown-key.toml",
                format!("unknown-key.toml:3: unknown key `max_dorp`; known keys: {gate_keys}"),
            ),
            (
                "unknown-top.toml",
                format!("unknown-top.toml:1: unknown key `colour`; known keys: {TOP_KEYS}"),
            ),
            (
                "wrong-type.toml",
                "wrong-type.toml:2: `strict_flaky` must be true or false".to_string(),
            ),
            (
                "bad-value.toml",
                "bad-value.toml:2: `rbo_p`: 1.5 is not a number strictly between 0 and 1"
                    .to_string(),
            ),
            (
                "untested-metric.toml",
                "untested-metric.toml:2: `non_inferior`: precision is not a metric with a confidence interval (rr, mrr, recall, hit, ndcg) or a measure by name".to_string(),
            ),
            (
                "inline-gate.toml",
                "inline-gate.toml:1: `gate` must be a section of its own, its [name] on a line (an inline { … } table is not read)".to_string(),
            ),
            (
                "bad-block.toml",
                "bad-block.toml:2: `block`: must-pass is not \"all\", \"none\", \"tag:LABEL\" or a list of \"tag:LABEL\"".to_string(),
            ),
        ] {
            assert_eq!(problems(name), [expected], "{name}");
        }
    }
}
