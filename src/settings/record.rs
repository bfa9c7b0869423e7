//! `record`'s settings (docs/contract.md §4.8): its flags merged with ragdiff.toml's
//! `[record]` (a flag on the command line wins over the file, the file over the
//! built-in default) and checked as one. The rules between the flags (`--http` needs
//! `--ids`, `--ids` needs `--http`, one retriever) hold for the merged settings, each
//! message naming where the values came from: the flag, or the key and its line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::{RecordArgs, TopicField};
use crate::load::policy::{Located, PolicyFile};
use crate::load::policy_record::{MAX_RPS, MAX_RPS_RANGE, Pair, RecordKeys, origin};
use crate::record::command::Program;
use crate::record::http;
use crate::record::questions;
use crate::record::write::ResultsFormat;
use crate::validate::{Diagnostics, InvalidInput};

/// The built-in defaults (the flags' help shows them).
const RETRIES: u32 = 3;
const DEPTH: u32 = 10;
const CONCURRENCY: u32 = 4;
const TIMEOUT_SECONDS: f64 = 10.0;

/// How the retriever is reached.
pub enum Via {
    Command(Program),
    Http(Box<http::Target>),
}

/// `record`, ready to run.
pub struct Record {
    pub gold: Option<PathBuf>,
    pub via: Via,
    /// The POST template's file: an input no output may overwrite.
    pub http_body: Option<PathBuf>,
    pub index_version: Option<String>,
    pub append_repeat: Option<PathBuf>,
    pub out: PathBuf,
    pub depth: u32,
    /// `--depth` when given: under `--append-repeat` it must be the run's own.
    pub depth_flag: Option<u32>,
    pub filters: BTreeMap<String, String>,
    /// Where the filters were given (`--filter`, or the file's key), when they were.
    pub filters_from: Option<String>,
    pub results_format: ResultsFormat,
    pub concurrency: u32,
    pub timeout: Duration,
    /// `-`: ragdiff's own stderr (docs/contract.md §4.8).
    pub retriever_log: Option<PathBuf>,
    pub include_unlabelled: Option<PathBuf>,
    pub field: questions::TopicField,
    pub allow_errors: u32,
    /// 1 under `--append-repeat`, which adds one repeat: the file's `repeats` describes
    /// new recordings (docs/contract.md §4.8).
    pub repeats: u32,
    pub quiet: bool,
    /// The policy file that applied: an input no output may overwrite (§4.8).
    pub policy_file: Option<PathBuf>,
    /// The run manifests `compare` reads (the policy's `baseline` and `candidate`, else
    /// the defaults): inputs, but the run this recording writes (§4.8).
    pub compared: Vec<PathBuf>,
}

/// The policy's `[record]` and where it is, for the messages.
struct File<'a> {
    keys: &'a RecordKeys,
    path: &'a Path,
}

impl File<'_> {
    fn from<T>(&self, key: &str, l: &Located<T>) -> String {
        origin(self.path, key, l.line)
    }
}

/// A flag's value, else the file's, else none.
fn either<T: Clone>(flag: Option<T>, file: &Option<Located<T>>) -> Option<T> {
    flag.or_else(|| file.as_ref().map(|l| l.value.clone()))
}

impl Record {
    pub fn new(args: RecordArgs) -> Result<Self, InvalidInput> {
        let mut diag = Diagnostics::default();
        let policy = super::find_policy(&args.config, &mut diag);
        diag.check()?;
        let policy_file = policy.as_ref().map(|p| p.path.clone());
        let empty = PolicyFile::default();
        let policy = policy.as_ref().unwrap_or(&empty);
        let file = File {
            keys: &policy.record,
            path: &policy.path,
        };
        let k = file.keys;
        let via = via(&args, &file, &mut diag);
        let (filters, filters_from) = filters(&args.filter, &file, &mut diag);
        let timeout = either(args.timeout, &k.timeout).unwrap_or(TIMEOUT_SECONDS);
        if !(timeout.is_finite() && timeout > 0.0 && timeout <= 86_400.0) {
            diag.usage("--timeout: seconds above 0, at most 86400");
        }
        if let Some(v) = &args.index_version
            && semver::Version::parse(v).is_err()
        {
            diag.usage(format!(
                "--index-version {}: not a semantic version such as 1.4.0",
                crate::text::shown(v)
            ));
        }
        let field = match args.topic_field {
            Some(TopicField::Desc) => questions::TopicField::Desc,
            Some(TopicField::Title) => questions::TopicField::Title,
            None => match k.topic_field.as_ref().map(|l| l.value.as_str()) {
                Some("desc") => questions::TopicField::Desc,
                _ => questions::TopicField::Title,
            },
        };
        let results_format = args.results_format.unwrap_or_else(|| {
            match k.results_format.as_ref().map(|l| l.value.as_str()) {
                Some("trec") => ResultsFormat::Trec,
                Some("csv") => ResultsFormat::Csv,
                _ => ResultsFormat::Jsonl,
            }
        });
        // One more repeat under --append-repeat, whatever the file's `repeats`.
        let repeats = match args.append_repeat {
            Some(_) => 1,
            None => either(args.repeats, &k.repeats).unwrap_or(1),
        };
        diag.check()?;
        Ok(Self {
            gold: args
                .gold
                .gold
                .or_else(|| policy.gold.as_ref().map(|l| l.value.clone())),
            via,
            http_body: either(args.http_body, &k.http_body),
            index_version: args.index_version,
            append_repeat: args.append_repeat,
            out: either(args.out, &k.out)
                .or_else(|| policy.candidate.as_ref().map(|l| l.value.clone()))
                .unwrap_or_else(|| PathBuf::from(crate::load::DEFAULT_CANDIDATE)),
            depth: either(args.depth, &k.depth).unwrap_or(DEPTH),
            depth_flag: args.depth,
            filters,
            filters_from,
            results_format,
            concurrency: either(args.concurrency, &k.concurrency).unwrap_or(CONCURRENCY),
            timeout: Duration::from_secs_f64(timeout.clamp(0.001, 86_400.0)),
            retriever_log: either(args.retriever_log, &k.retriever_log),
            include_unlabelled: either(args.include_unlabelled, &k.include_unlabelled),
            field,
            allow_errors: either(args.allow_errors, &k.allow_errors).unwrap_or(0),
            repeats,
            quiet: args.quiet,
            policy_file,
            compared: compared(policy),
        })
    }
}

/// The runs `compare` would read: the policy's `baseline` and `candidate`, a side it
/// does not name at its default path (docs/contract.md §8.6).
fn compared(policy: &PolicyFile) -> Vec<PathBuf> {
    let or = |p: &Option<Located<PathBuf>>, d: &str| {
        p.as_ref()
            .map_or_else(|| PathBuf::from(d), |l| l.value.clone())
    };
    vec![
        or(&policy.baseline, crate::load::DEFAULT_BASELINE),
        or(&policy.candidate, crate::load::DEFAULT_CANDIDATE),
    ]
}

/// `--filter KEY=VALUE` (each replacing the file's entry for its key) and the file's
/// `filter`, with where they were given.
fn filters(
    flags: &[String],
    file: &File,
    diag: &mut Diagnostics,
) -> (BTreeMap<String, String>, Option<String>) {
    let mut out = BTreeMap::new();
    for f in flags {
        match f.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() && !f.chars().any(char::is_control) => {
                out.insert(k.trim().to_string(), v.trim().to_string());
            }
            _ => diag.usage(format!(
                "--filter {}: expected KEY=VALUE (without control characters, as the file's `filter`)",
                crate::text::shown(f)
            )),
        }
    }
    let from = match &file.keys.filter {
        Some(l) => {
            for Pair { key, value } in &l.value {
                out.entry(key.clone()).or_insert_with(|| value.clone());
            }
            let file_from = file.from("filter", l);
            Some(if flags.is_empty() {
                file_from
            } else {
                format!("--filter and {file_from}")
            })
        }
        None => (!flags.is_empty()).then(|| "--filter".to_string()),
    };
    (out, from)
}

/// The retriever: the command line's `--command` or `--http`, else the file's.
fn via(args: &RecordArgs, file: &File, diag: &mut Diagnostics) -> Via {
    let k = file.keys;
    let (from, command, http) = match (&args.command, &args.http, &k.command, &k.http) {
        (Some(c), _, _, _) => ("--command".to_string(), Some(c.clone()), None),
        (None, Some(h), _, _) => ("--http".to_string(), None, Some(h.clone())),
        (None, None, Some(c), _) => (file.from("command", c), Some(c.value.clone()), None),
        (None, None, None, Some(h)) => (file.from("http", h), None, Some(h.value.clone())),
        (None, None, None, None) => {
            diag.usage("give the retriever: --command \"CMD ARGS…\" or --http URL (or `command` or `http` in ragdiff.toml's [record])");
            return Via::Command(Program::default());
        }
    };
    match (command, http) {
        (Some(command), _) => {
            // The file's HTTP keys go with its `http`, which --command replaces.
            let file_http_replaced = args.command.is_some() && k.http.is_some();
            http_only(args, file, &from, !file_http_replaced, diag);
            let argv = match shlex::split(&command) {
                Some(argv) if !argv.is_empty() => argv,
                _ => {
                    diag.usage("--command: give the retriever as \"CMD ARGS…\" (quotes balanced; split as a POSIX shell would, run without a shell)");
                    Vec::new()
                }
            };
            // A command from the file runs in the file's folder, where its relative
            // paths point (docs/contract.md §4.8).
            let dir = (args.command.is_none())
                .then(|| file.path.parent().filter(|d| !d.as_os_str().is_empty()))
                .flatten()
                .map(Path::to_path_buf);
            Via::Command(Program { argv, dir })
        }
        (None, http) => {
            // The file's server keys go with its `http`, which --http replaces: its
            // headers (a token meant for the team's server) are never sent to the
            // flag's URL (docs/contract.md §4.8).
            let server_keys_dropped = RecordKeys {
                http_body: None,
                ids: None,
                scores: None,
                header: None,
                header_env: None,
                ..k.clone()
            };
            let flag_file = File {
                keys: &server_keys_dropped,
                path: file.path,
            };
            let file = if args.http.is_some() {
                &flag_file
            } else {
                file
            };
            let url = http.unwrap_or_default();
            Via::Http(Box::new(http_target(args, file, &from, url, diag)))
        }
    }
}

/// The HTTP settings given with a process retriever: a flag always, the file's unless
/// its `http` was replaced by `--command` (`with_file`).
fn http_only(args: &RecordArgs, file: &File, via: &str, with_file: bool, diag: &mut Diagnostics) {
    let flags = [
        ("--http-body", args.http_body.is_some()),
        ("--ids", args.ids.is_some()),
        ("--scores", args.scores.is_some()),
        ("--header", !args.header.is_empty()),
        ("--header-env", !args.header_env.is_empty()),
        ("--retries", args.retries.is_some()),
        ("--max-rps", args.max_rps.is_some()),
    ];
    for (flag, given) in flags {
        if given {
            diag.usage(format!(
                "{flag} applies to --http only; the retriever here is {via}"
            ));
        }
    }
    if !with_file {
        return;
    }
    let k = file.keys;
    let lines = [
        ("http_body", k.http_body.as_ref().map(|l| l.line)),
        ("ids", k.ids.as_ref().map(|l| l.line)),
        ("scores", k.scores.as_ref().map(|l| l.line)),
        ("header", k.header.as_ref().map(|l| l.line)),
        ("header_env", k.header_env.as_ref().map(|l| l.line)),
        ("retries", k.retries.as_ref().map(|l| l.line)),
        ("max_rps", k.max_rps.as_ref().map(|l| l.line)),
    ];
    for (key, line) in lines {
        if let Some(line) = line {
            diag.usage(format!(
                "{} applies to `http` only; the retriever here is {via}",
                origin(file.path, key, line)
            ));
        }
    }
}

/// The `--http` settings, flags over the file's keys, checked (messages name flags,
/// keys and variables, never a header's value).
fn http_target(
    args: &RecordArgs,
    file: &File,
    from: &str,
    url: String,
    diag: &mut Diagnostics,
) -> http::Target {
    let k = file.keys;
    let mut pointer =
        |flag: &str, text: Option<&String>, key: &str, l: &Option<Located<String>>| {
            let (label, text) = match (text, l) {
                (Some(t), _) => (flag.to_string(), t.clone()),
                (None, Some(l)) => (file.from(key, l), l.value.clone()),
                (None, None) => return None,
            };
            http::Pointer::parse(&text)
                .map_err(|e| diag.usage(format!("{label} {e}")))
                .ok()
        };
    let ids = pointer("--ids", args.ids.as_ref(), "ids", &k.ids);
    let scores = pointer("--scores", args.scores.as_ref(), "scores", &k.scores);
    if args.ids.is_none() && k.ids.is_none() {
        // The file's `ids` goes with its `http`: with --http, the flag only.
        let or_file = match args.http {
            Some(_) => "",
            None => " (or `ids` in ragdiff.toml's [record])",
        };
        diag.usage(format!(
            "{from} needs --ids POINTER{or_file}: where the doc ids are in an answer, e.g. /hits/hits/*/_id"
        ));
    }
    let headers = headers(args, file, diag);
    let max_rps = either(args.max_rps, &k.max_rps);
    if let Some(r) = args.max_rps
        && !MAX_RPS.contains(&r)
    {
        diag.usage(format!(
            "--max-rps {}: not {MAX_RPS_RANGE}",
            crate::text::shown_number(r)
        ));
    }
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        diag.usage(format!(
            "{from}: a URL template starting with http:// or https://"
        ));
    }
    let body = match (&args.http_body, &k.http_body) {
        (Some(p), _) => body_template(p, "--http-body", diag),
        (None, Some(l)) => body_template(&l.value, &file.from("http_body", l), diag),
        (None, None) => None,
    };
    http::Target {
        url,
        body,
        ids: ids.unwrap_or_else(|| http::Pointer::parse("/").expect("a pointer")),
        scores,
        headers,
        retries: either(args.retries, &k.retries).unwrap_or(RETRIES),
        max_rps,
    }
}

/// The request headers: `--header` and `--header-env`, then the file's `header` and
/// `header_env` for names no flag gives (names compared without case).
fn headers(args: &RecordArgs, file: &File, diag: &mut Diagnostics) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    for h in &args.header {
        match h.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() => {
                headers.push((name.trim().to_string(), value.trim().to_string()));
            }
            _ => diag.usage("--header: expected \"Name: value\""),
        }
    }
    for h in &args.header_env {
        match h.split_once('=') {
            Some((name, var)) if !name.trim().is_empty() => {
                if let Some(value) = env(name.trim(), var.trim(), "--header-env", diag) {
                    headers.push((name.trim().to_string(), value));
                }
            }
            _ => diag.usage("--header-env: expected NAME=VAR, e.g. Authorization=SEARCH_TOKEN"),
        }
    }
    let given = |headers: &[(String, String)], name: &str| {
        headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    let flagged: Vec<(String, String)> = headers.clone();
    if let Some(l) = &file.keys.header {
        for p in l.value.iter().filter(|p| !given(&flagged, &p.key)) {
            headers.push((p.key.clone(), p.value.clone()));
        }
    }
    if let Some(l) = &file.keys.header_env {
        let from = file.from("header_env", l);
        for p in l.value.iter().filter(|p| !given(&flagged, &p.key)) {
            if let Some(value) = env(&p.key, &p.value, &from, diag) {
                headers.push((p.key.clone(), value));
            }
        }
    }
    headers
}

/// The value of the environment variable `var` for header `name`; unset is a usage
/// problem naming the header and the variable, never a value.
fn env(name: &str, var: &str, from: &str, diag: &mut Diagnostics) -> Option<String> {
    match std::env::var(var) {
        Ok(value) => Some(value),
        Err(_) => {
            diag.usage(format!(
                "{from} {}: the environment variable {} is not set",
                crate::text::shown(name),
                crate::text::shown(var)
            ));
            None
        }
    }
}

/// The POST body template; it must be JSON once filled in.
fn body_template(path: &Path, from: &str, diag: &mut Diagnostics) -> Option<String> {
    let display = path.display().to_string();
    let bytes = crate::load::fs::read_file(path, "--http-body template", &display, diag)?;
    let shown = crate::text::shown(&display);
    let Ok(text) = String::from_utf8(bytes) else {
        diag.usage(format!("{from} {shown}: not UTF-8 text"));
        return None;
    };
    let filled = text
        .replace("{question}", "q")
        .replace("{id}", "i")
        .replace("{depth}", "10")
        .replace("{filters}", "{}");
    if serde_json::from_str::<serde_json::Value>(&filled).is_err() {
        diag.usage(format!(
            "{from} {shown}: not JSON once its placeholders are filled in; put {{question}} and {{id}} inside strings"
        ));
        return None;
    }
    Some(text)
}
