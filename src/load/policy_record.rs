//! `[record]` of `ragdiff.toml` (docs/contract.md §4.8, §8.6): the team's settings of
//! `ragdiff record`, one key per flag that is a setting, read and checked here with
//! their lines. Which wins over which (flag, file, default) is `settings`' work.
//! Every message names keys, lines and header names; never a header's value.

use std::path::PathBuf;

use toml_edit::Table;

use crate::load::policy::{Keys, Located, narrow};
use crate::validate::ProblemKind;

/// `[record]`'s keys (the Python module exports them as the other tables' are).
pub const RECORD_KEYS: &str = "command, http, http_body, ids, scores, header, header_env, retries, max_rps, out, depth, filter, results_format, concurrency, timeout, retriever_log, include_unlabelled, topic_field, allow_errors, repeats";

/// `max_rps` and `--max-rps` (docs/contract.md §4.8): at least one request in 1000 s,
/// at most a million a second (the pace between requests is 1/RPS seconds).
pub const MAX_RPS: std::ops::RangeInclusive<f64> = 0.001..=1_000_000.0;
pub const MAX_RPS_RANGE: &str = "a number of requests a second from 0.001 to 1000000";

/// `record`'s flags that are no team setting, with why (docs/contract.md §4.8).
const PER_RUN: [(&str, &str); 4] = [
    (
        "index_version",
        "it names the index build under review, which changes with every build; a committed value would label the next build's run with the last one's version (give --index-version)",
    ),
    (
        "append_repeat",
        "it names a run to add to, once (give --append-repeat)",
    ),
    (
        "quiet",
        "the progress bar shows on a terminal only, so whether to hide it is the person's at that terminal (give --quiet)",
    ),
    (
        "gold",
        "the policy's top-level `gold` applies to record as to every command",
    ),
];

/// `[record]`, typed; absent keys are `None` (the flag's default applies).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordKeys {
    pub command: Option<Located<String>>,
    pub http: Option<Located<String>>,
    /// Relative to the policy file's folder, as every path of the file.
    pub http_body: Option<Located<PathBuf>>,
    pub ids: Option<Located<String>>,
    pub scores: Option<Located<String>>,
    /// `{ NAME = "VALUE" }`: headers that are no credential (docs/contract.md §4.8).
    pub header: Option<Located<Vec<Pair>>>,
    /// `{ NAME = "VAR" }`: the value from the environment variable VAR.
    pub header_env: Option<Located<Vec<Pair>>>,
    pub retries: Option<Located<u32>>,
    pub max_rps: Option<Located<f64>>,
    pub out: Option<Located<PathBuf>>,
    pub depth: Option<Located<u32>>,
    /// `{ KEY = "VALUE" }`, as `--filter KEY=VALUE`.
    pub filter: Option<Located<Vec<Pair>>>,
    /// `jsonl`, `trec` or `csv`.
    pub results_format: Option<Located<String>>,
    pub concurrency: Option<Located<u32>>,
    pub timeout: Option<Located<f64>>,
    /// `-` stays `-` (ragdiff's stderr); another path is relative to the file's folder.
    pub retriever_log: Option<Located<PathBuf>>,
    pub include_unlabelled: Option<Located<PathBuf>>,
    /// `title` or `desc`.
    pub topic_field: Option<Located<String>>,
    pub allow_errors: Option<Located<u32>>,
    pub repeats: Option<Located<u32>>,
}

/// One entry of an inline table: its key and its string value.
#[derive(Clone, PartialEq)]
pub struct Pair {
    pub key: String,
    pub value: String,
}

// A header's value may be one: Debug never shows values.
impl std::fmt::Debug for Pair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = …", self.key)
    }
}

pub(crate) fn record(keys: &mut Keys, t: &Table) -> RecordKeys {
    unknown_or_per_run(keys, t);
    let mut r = retriever(keys, t);
    r.out = keys.path(t, "out");
    r.depth = keys
        .whole(t, "depth", "a whole number >= 1", 1, u32::MAX.into())
        .map(narrow);
    r.filter = pairs(keys, t, "filter", Entry::Filter);
    r.results_format = keys.choice(t, "results_format", &["jsonl", "trec", "csv"]);
    r.concurrency = keys
        .whole(t, "concurrency", "a whole number from 1 to 1024", 1, 1024)
        .map(narrow);
    r.timeout = keys.number(t, "timeout", "seconds above 0, at most 86400", |v| {
        v > 0.0 && v <= 86_400.0
    });
    r.retriever_log = log_path(keys, t);
    r.include_unlabelled = keys.path(t, "include_unlabelled");
    r.topic_field = keys.choice(t, "topic_field", &["title", "desc"]);
    r.allow_errors = keys
        .whole(t, "allow_errors", "a whole number >= 0", 0, u32::MAX.into())
        .map(narrow);
    r.repeats = keys
        .whole(t, "repeats", "a whole number from 1 to 100", 1, 100)
        .map(narrow);
    for key in ["out", "http_body", "retriever_log", "include_unlabelled"] {
        no_control(keys, t, key);
    }
    r
}

/// How the retriever is reached: `command` or `http` (not both) and the HTTP keys.
fn retriever(keys: &mut Keys, t: &Table) -> RecordKeys {
    let command = keys.string(t, "command");
    let command = command.filter(|c| {
        let argv = (!c.value.chars().any(char::is_control))
            .then(|| shlex::split(&c.value))
            .flatten();
        let ok = argv.is_some_and(|a| !a.is_empty() && a.iter().all(|w| !w.is_empty()));
        if !ok {
            keys.wrong(t, "command", "a command line \"CMD ARGS…\" (not empty, quotes balanced, no control character; split as a POSIX shell would, run without a shell)");
        }
        ok
    });
    let http = keys.string(t, "http").filter(|h| {
        let ok = (h.value.starts_with("http://") || h.value.starts_with("https://"))
            && !h.value.chars().any(char::is_control);
        if !ok {
            keys.wrong(
                t,
                "http",
                "a URL template starting with http:// or https:// (no control character)",
            );
        }
        ok
    });
    if let (Some(c), Some(_)) = (&command, &http) {
        let message = format!(
            "`http` and `command` (line {}) both name the retriever; keep one (a flag on the command line, --command or --http, replaces the file's)",
            c.line.unwrap_or(0)
        );
        let loc = keys.loc(t, "http");
        keys.diag.problem(loc, ProblemKind::Usage { message });
    }
    let mut pointer = |key: &str| {
        keys.string(t, key).filter(|p| {
            let ok = p.value.starts_with('/') && !p.value.chars().any(char::is_control);
            if !ok {
                keys.wrong(
                    t,
                    key,
                    "a JSON pointer starting with `/`, e.g. \"/hits/hits/*/_id\"",
                );
            }
            ok
        })
    };
    let (ids, scores) = (pointer("ids"), pointer("scores"));
    let http_body = keys.path(t, "http_body");
    RecordKeys {
        command,
        http,
        http_body,
        ids,
        scores,
        header: pairs(keys, t, "header", Entry::Header),
        header_env: pairs(keys, t, "header_env", Entry::HeaderEnv),
        retries: keys
            .whole(t, "retries", "a whole number >= 0", 0, u32::MAX.into())
            .map(narrow),
        max_rps: keys.number(t, "max_rps", MAX_RPS_RANGE, |v| MAX_RPS.contains(&v)),
        ..RecordKeys::default()
    }
}

/// An unknown key lists the known ones; a flag that is no team setting says why.
fn unknown_or_per_run(keys: &mut Keys, t: &Table) {
    let known: Vec<&str> = RECORD_KEYS.split(", ").collect();
    for (key, _) in t.iter() {
        if known.contains(&key) {
            continue;
        }
        let loc = keys.loc(t, key);
        let kind = match PER_RUN.iter().find(|(k, _)| *k == key) {
            Some((k, why)) => ProblemKind::Usage {
                message: format!("`{k}` is not a [record] key: {why}"),
            },
            None => ProblemKind::UnknownKey {
                key: key.to_string(),
                known: RECORD_KEYS,
            },
        };
        keys.diag.problem(loc, kind);
    }
}

/// `retriever_log`: `-` is ragdiff's stderr, anything else a path.
fn log_path(keys: &mut Keys, t: &Table) -> Option<Located<PathBuf>> {
    if t.get("retriever_log").and_then(|i| i.as_str()) == Some("-") {
        return Some(keys.located(t, "retriever_log", PathBuf::from("-")));
    }
    keys.path(t, "retriever_log")
}

/// A path key holding a control character (a NUL, a newline) is refused.
fn no_control(keys: &mut Keys, t: &Table, key: &str) {
    if t.get(key)
        .and_then(|i| i.as_str())
        .is_some_and(|s| s.chars().any(char::is_control))
    {
        keys.wrong(t, key, "a path without control characters");
    }
}

/// What the entries of an inline table are.
#[derive(Clone, Copy, PartialEq)]
enum Entry {
    Filter,
    Header,
    HeaderEnv,
}

impl Entry {
    fn expected(self) -> &'static str {
        match self {
            Entry::Filter => {
                "a table of KEY = \"VALUE\", like { tenant = \"acme\" } (keys without `=`, surrounding spaces or control characters; values without control characters)"
            }
            Entry::Header => {
                "a table of NAME = \"VALUE\", like { \"X-Team\" = \"search\" } (names of letters, digits and !#$%&'*+-.^_`|~; values without control characters)"
            }
            Entry::HeaderEnv => {
                "a table of NAME = \"VAR\", like { Authorization = \"SEARCH_TOKEN\" } (VAR of letters, digits and _, not starting with a digit)"
            }
        }
    }

    fn key_ok(self, key: &str) -> bool {
        match self {
            Entry::Filter => {
                !key.is_empty()
                    && key.trim() == key
                    && !key.contains('=')
                    && !key.chars().any(char::is_control)
            }
            Entry::Header | Entry::HeaderEnv => {
                !key.is_empty()
                    && key
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
            }
        }
    }

    fn value_ok(self, value: &str) -> bool {
        match self {
            Entry::Filter | Entry::Header => !value.chars().any(char::is_control),
            Entry::HeaderEnv => {
                value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    && value.bytes().next().is_some_and(|b| !b.is_ascii_digit())
            }
        }
    }
}

/// `{ KEY = "VALUE", … }`: every entry checked, a header that holds a credential
/// refused (never shown).
fn pairs(keys: &mut Keys, t: &Table, key: &str, entry: Entry) -> Option<Located<Vec<Pair>>> {
    let item = t.get(key)?;
    let Some(table) = item.as_table_like() else {
        keys.wrong(t, key, entry.expected());
        return None;
    };
    let mut out = Vec::new();
    for (name, value) in table.iter() {
        let value = value.as_str();
        let ok = entry.key_ok(name) && value.is_some_and(|v| entry.value_ok(v));
        if !ok {
            keys.wrong(t, key, entry.expected());
            return None;
        }
        let value = value.unwrap_or_default().to_string();
        if entry == Entry::Header && is_credential(name, &value) {
            let loc = keys.loc(t, key);
            let message = format!(
                "`header` `{name}` in [record] looks like a credential, which a committed file would publish (its value is not shown; every command that reads the file refuses it, compare too); take it from the environment: header_env = {{ \"{name}\" = \"VAR\" }}"
            );
            keys.diag.problem(loc, ProblemKind::Usage { message });
            return None;
        }
        out.push(Pair {
            key: name.to_string(),
            value,
        });
    }
    Some(keys.located(t, key, out))
}

/// A header that carries a secret: by its name (Authorization, Cookie, an API key, a
/// token…) or by its value's scheme (`Bearer …`, `Basic …`). Such a header comes from
/// the environment (`header_env`), never from the committed file (§4.8).
pub fn is_credential(name: &str, value: &str) -> bool {
    let name = name.to_ascii_lowercase();
    const NAMES: [&str; 10] = [
        "auth",
        "cookie",
        "token",
        "key",
        "secret",
        "password",
        "passwd",
        "session",
        "credential",
        "signature",
    ];
    let value = value.trim_start().to_ascii_lowercase();
    const SCHEMES: [&str; 6] = [
        "bearer ",
        "basic ",
        "token ",
        "apikey ",
        "digest ",
        "negotiate ",
    ];
    NAMES.iter().any(|n| name.contains(n)) || SCHEMES.iter().any(|s| value.starts_with(s))
}

/// Where a `[record]` key is, as messages name it: `` `ids` in [record] (ragdiff.toml:7)``.
pub fn origin(file: &std::path::Path, key: &str, line: Option<u64>) -> String {
    let file = file.display();
    match line {
        Some(l) => format!("`{key}` in [record] ({file}:{l})"),
        None => format!("`{key}` in [record] ({file})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_told_by_name_or_scheme() {
        for (name, value) in [
            ("Authorization", "anything"),
            ("X-Api-Key", "abc"),
            ("Cookie", "a=b"),
            ("X-Auth-Token", "t"),
            ("X-Team", "Bearer abc"),
            ("X-Team", "  basic dXNlcg=="),
        ] {
            assert!(is_credential(name, value), "{name}");
        }
        for (name, value) in [("X-Team", "search"), ("Content-Type", "application/json")] {
            assert!(!is_credential(name, value), "{name}");
        }
    }

    #[test]
    fn a_header_value_is_never_in_debug_output() {
        let p = Pair {
            key: "X-Team".into(),
            value: "s3cret".into(),
        };
        assert_eq!(format!("{p:?}"), "X-Team = …");
    }
}
