//! `record`'s settings from ragdiff.toml's `[record]` (docs/contract.md §4.8, §8.6): the
//! file over the defaults, a flag over the file, paths and the command relative to the
//! file, the rules between flags held for the merged settings, every broken rule with
//! its message and exit code, and no header value or question text in any of them.

use std::path::Path;
use std::process::Output;

use crate::common::{self, assert_code, stderr};
use crate::record::{assert_private, fake, fault_server, jsonl_rows, read, workspace};

/// `record --gold gold.toml --index-version 1.0.0 EXTRA…` from `dir`.
fn record(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["record", "--gold", "gold.toml", "--index-version", "1.0.0"];
    args.extend_from_slice(extra);
    common::run(dir, &args)
}

fn policy(dir: &Path, text: &str) {
    std::fs::write(dir.join("ragdiff.toml"), text).expect("written");
}

/// Exit `code`, and `text` on stderr.
#[track_caller]
fn fails_with(out: &Output, code: i32, text: &str) {
    assert_code(out, code);
    assert!(stderr(out).contains(text), "{}", stderr(out));
}

/// A `[record]` whose `command` is the fake retriever in MODE, then `rest`.
fn fake_policy(dir: &Path, mode: &str, rest: &str) {
    policy(
        dir,
        &format!("[record]\ncommand = \"{}\"\n{rest}", fake(mode)),
    );
}

/// A workspace whose `[record]` runs the fake retriever in `mode` with `rest`, after a
/// `ragdiff record` with no flags that succeeded.
#[track_caller]
fn recorded(mode: &str, rest: &str) -> tempfile::TempDir {
    let dir = workspace();
    fake_policy(dir.path(), mode, rest);
    assert_code(&record(dir.path(), &[]), 0);
    dir
}

fn manifest(dir: &Path, rel: &str) -> toml_edit::DocumentMut {
    read(dir, rel).parse().expect("a TOML manifest")
}

#[test]
fn the_file_sets_what_no_flag_gives_and_a_flag_wins() {
    let dir = recorded(
        "filters",
        "depth = 2\nfilter = { tenant = \"acme\", lang = \"en\" }\nresults_format = \"csv\"\nconcurrency = 2\nout = \"runs/team.toml\"\nretriever_log = \"runs/retriever.log\"\n",
    );
    let doc = manifest(dir.path(), "runs/team.toml");
    assert_eq!(doc["depth"].as_integer(), Some(2));
    assert_eq!(doc["results"].as_str(), Some("team.csv"));
    assert_eq!(doc["record"]["concurrency"].as_integer(), Some(2));
    assert_eq!(doc["filters"]["tenant"].as_str(), Some("acme"));
    // The retriever was sent the file's filters.
    assert!(read(dir.path(), "runs/team.csv").contains("F-lang=en-tenant=acme"));
    assert!(read(dir.path(), "runs/retriever.log").contains("asked [question]"));
    // Flags win: --depth over depth, --filter over the file's entry for its key only.
    let out = record(
        dir.path(),
        &[
            "--depth",
            "3",
            "--filter",
            "tenant=beta",
            "--out",
            "runs/mine.toml",
        ],
    );
    assert_code(&out, 0);
    let doc = manifest(dir.path(), "runs/mine.toml");
    assert_eq!(doc["depth"].as_integer(), Some(3));
    assert_eq!(doc["filters"]["tenant"].as_str(), Some("beta"));
    assert_eq!(doc["filters"]["lang"].as_str(), Some("en"));
    assert_private(dir.path(), &out);
    // --no-config: the built-in defaults, so a retriever must be given.
    let out = record(dir.path(), &["--no-config"]);
    fails_with(
        &out,
        2,
        "give the retriever: --command \"CMD ARGS…\" or --http URL (or `command` or `http` in ragdiff.toml's [record])",
    );
}

/// Paths in the file are relative to its folder, and its command runs there; the
/// top-level `gold` and `candidate` are record's defaults too.
#[test]
fn paths_and_the_command_are_relative_to_the_file() {
    let dir = workspace();
    std::fs::create_dir_all(dir.path().join("sub")).expect("a folder");
    policy(
        dir.path(),
        &format!(
            "gold = \"gold.toml\"\ncandidate = \"runs/next.toml\"\n\n[record]\ncommand = \"{}\"\nretriever_log = \"runs/r.log\"\n",
            fake("good")
        ),
    );
    // `ragdiff record --config ../ragdiff.toml --index-version 1.0.0 EXTRA…` from sub/.
    let record_in_sub = |extra: &[&str]| {
        let base = [
            "record",
            "--config",
            "../ragdiff.toml",
            "--index-version",
            "1.0.0",
        ];
        common::run(dir.path().join("sub"), &common::with(&base, extra))
    };
    let out = record_in_sub(&[]);
    assert_code(&out, 0);
    assert!(dir.path().join("runs/next.toml").is_file());
    assert!(dir.path().join("runs/r.log").is_file());
    assert!(!dir.path().join("sub/runs").exists());
    // A --command on the command line runs in the working directory, as always.
    let out = record_in_sub(&["--command", &fake("good")]);
    assert_code(&out, 4);
    assert!(stderr(&out).contains("No such file"), "{}", stderr(&out));
}

/// Every broken rule of `[record]` is exit 2 at its line; a header's value and the
/// file's strings are never shown.
#[test]
fn each_broken_record_key_names_its_line() {
    let known = ragdiff::load::policy::RECORD_KEYS;
    let cases: Vec<(&str, String)> = vec![
        (
            "deph = 3",
            format!("ragdiff.toml:2: unknown key `deph`; known keys: {known}"),
        ),
        (
            "index_version = \"1.0.0\"",
            "ragdiff.toml:2: `index_version` is not a [record] key: it names the index build under review, which changes with every build".into(),
        ),
        (
            "quiet = true",
            "ragdiff.toml:2: `quiet` is not a [record] key: the progress bar shows on a terminal only".into(),
        ),
        ("depth = \"10\"", "ragdiff.toml:2: `depth` must be a whole number >= 1".into()),
        (
            "depth = 99999999999",
            "ragdiff.toml:2: `depth`: 99999999999 is not a whole number >= 1".into(),
        ),
        (
            "concurrency = 2000",
            "ragdiff.toml:2: `concurrency`: 2000 is not a whole number from 1 to 1024".into(),
        ),
        (
            "repeats = 0",
            "ragdiff.toml:2: `repeats`: 0 is not a whole number from 1 to 100".into(),
        ),
        (
            "retries = -1",
            "ragdiff.toml:2: `retries`: -1 is not a whole number >= 0".into(),
        ),
        (
            "timeout = 1e9",
            "ragdiff.toml:2: `timeout`: 1000000000 is not seconds above 0, at most 86400".into(),
        ),
        (
            "max_rps = 0",
            "ragdiff.toml:2: `max_rps`: 0 is not a number of requests a second from 0.001 to 1000000".into(),
        ),
        // 1/RPS seconds between requests: a panic's Duration, or a wait of ages.
        (
            "max_rps = 1e-300",
            "ragdiff.toml:2: `max_rps`: 1e-300 is not a number of requests a second from 0.001 to 1000000".into(),
        ),
        (
            "max_rps = 0.0009",
            "ragdiff.toml:2: `max_rps`: 0.0009 is not a number of requests a second from 0.001 to 1000000".into(),
        ),
        (
            "max_rps = 1e7",
            "ragdiff.toml:2: `max_rps`: 10000000 is not a number of requests a second from 0.001 to 1000000".into(),
        ),
        (
            "results_format = \"parquet\"",
            "ragdiff.toml:2: `results_format`: parquet is not \"jsonl\" or \"trec\" or \"csv\"".into(),
        ),
        (
            "command = \"\"",
            "ragdiff.toml:2: `command` must be a command line \"CMD ARGS…\" (not empty".into(),
        ),
        (
            "command = \"python3 fake.py\\u0000good\"",
            "ragdiff.toml:2: `command` must be a command line".into(),
        ),
        (
            "command = \"python3 'fake.py\"",
            "ragdiff.toml:2: `command` must be a command line".into(),
        ),
        (
            "http = \"ftp://x/{question}\"",
            "ragdiff.toml:2: `http` must be a URL template starting with http:// or https://".into(),
        ),
        (
            "command = \"true\"\nhttp = \"http://127.0.0.1:9/\"",
            "ragdiff.toml:3: `http` and `command` (line 2) both name the retriever; keep one".into(),
        ),
        (
            "ids = \"hits\"",
            "ragdiff.toml:2: `ids` must be a JSON pointer starting with `/`".into(),
        ),
        (
            "filter = { \"a=b\" = \"c\" }",
            "ragdiff.toml:2: `filter` must be a table of KEY = \"VALUE\"".into(),
        ),
        (
            "filter = { tenant = \"acme\\nevil = 1\" }",
            "ragdiff.toml:2: `filter` must be a table of KEY = \"VALUE\"".into(),
        ),
        (
            "filter = { tenant = 3 }",
            "ragdiff.toml:2: `filter` must be a table of KEY = \"VALUE\"".into(),
        ),
        (
            "filter = \"tenant=acme\"",
            "ragdiff.toml:2: `filter` must be a table of KEY = \"VALUE\"".into(),
        ),
        (
            "header = { \"X Team\" = \"search\" }",
            "ragdiff.toml:2: `header` must be a table of NAME = \"VALUE\"".into(),
        ),
        (
            "header_env = { Authorization = \"1TOKEN\" }",
            "ragdiff.toml:2: `header_env` must be a table of NAME = \"VAR\"".into(),
        ),
        (
            "out = \"runs/a\\u0000.toml\"",
            "ragdiff.toml:2: `out` must be a path without control characters".into(),
        ),
        (
            "out = \"\"",
            "ragdiff.toml:2: `out` must be a path (not empty)".into(),
        ),
        (
            "topic_field = \"body\"",
            "ragdiff.toml:2: `topic_field`: body is not \"title\" or \"desc\"".into(),
        ),
    ];
    let dir = workspace();
    for (body, expected) in cases {
        policy(dir.path(), &format!("[record]\n{body}\n"));
        let out = record(dir.path(), &["--command", &fake("good")]);
        assert_code(&out, 2);
        assert!(
            stderr(&out).contains(&expected),
            "{body}: expected {expected}\n{}",
            stderr(&out)
        );
        // compare reads the same file: the same problem, the same exit code.
        let out = common::run(dir.path(), &["compare"]);
        assert_code(&out, 2);
        assert!(stderr(&out).contains(&expected), "{body} (compare)");
        assert!(!dir.path().join("runs/candidate.toml").exists(), "{body}");
    }
}

/// A credential written into the committed file is refused, by the header's name or
/// its value's scheme; the value never appears in the message.
#[test]
fn a_credential_in_the_file_is_refused_without_showing_it() {
    let dir = workspace();
    for (header, name) in [
        ("Authorization = \"ApiKey s3cret-value\"", "Authorization"),
        ("\"X-Api-Key\" = \"s3cret-value\"", "X-Api-Key"),
        ("\"X-Team\" = \"Bearer s3cret-value\"", "X-Team"),
    ] {
        policy(
            dir.path(),
            &format!(
                "[record]\nhttp = \"http://127.0.0.1:9/\"\nids = \"/hits\"\nheader = {{ {header} }}\n"
            ),
        );
        let out = record(dir.path(), &[]);
        assert_code(&out, 2);
        let expected = format!(
            "ragdiff.toml:4: `header` `{name}` in [record] looks like a credential, which a committed file would publish (its value is not shown; every command that reads the file refuses it, compare too); take it from the environment: header_env = {{ \"{name}\" = \"VAR\" }}"
        );
        assert!(stderr(&out).contains(&expected), "{}", stderr(&out));
        assert!(!stderr(&out).contains("s3cret"), "{}", stderr(&out));
        // The gate applies nothing of [record] but refuses a credential in it: a
        // committed secret is a leak whichever command reads the file (§8.6).
        common::assert_invalid(common::run(dir.path(), &["compare"]), &[&expected]);
    }
}

/// The rules clap keeps between the flags hold for flags and file merged, each
/// message naming the flag or the key and line a value came from.
#[test]
fn the_rules_between_flags_hold_across_the_file() {
    let dir = workspace();
    let cases: [(&str, &[&str], &str); 5] = [
        (
            "http = \"http://127.0.0.1:9/\"",
            &[],
            "`http` in [record] (ragdiff.toml:2) needs --ids POINTER (or `ids` in ragdiff.toml's [record])",
        ),
        (
            "command = \"true\"\nids = \"/hits\"",
            &[],
            "`ids` in [record] (ragdiff.toml:3) applies to `http` only; the retriever here is `command` in [record] (ragdiff.toml:2)",
        ),
        (
            "command = \"true\"",
            &["--ids", "/hits"],
            "--ids applies to --http only; the retriever here is `command` in [record] (ragdiff.toml:2)",
        ),
        (
            "retries = 5",
            &["--command", "true"],
            "`retries` in [record] (ragdiff.toml:2) applies to `http` only; the retriever here is --command",
        ),
        (
            "http = \"http://127.0.0.1:9/\"\nids = \"/hits\"\nheader_env = { Authorization = \"RAGDIFF_UNSET_TOKEN\" }",
            &[],
            "`header_env` in [record] (ragdiff.toml:4) Authorization: the environment variable RAGDIFF_UNSET_TOKEN is not set",
        ),
    ];
    for (body, flags, expected) in cases {
        policy(dir.path(), &format!("[record]\n{body}\n"));
        let out = record(dir.path(), flags);
        assert_code(&out, 2);
        assert!(
            stderr(&out).contains(expected),
            "{body}: expected {expected}\n{}",
            stderr(&out)
        );
    }
    // --command replaces the file's `http`, and the HTTP keys that go with it.
    policy(
        dir.path(),
        "[record]\nhttp = \"http://127.0.0.1:9/\"\nids = \"/hits\"\nretries = 5\n",
    );
    let out = record(dir.path(), &["--command", &fake("good")]);
    assert_code(&out, 0);
    // --config and --no-config stay one or the other.
    let out = record(
        dir.path(),
        &[
            "--config",
            "ragdiff.toml",
            "--no-config",
            "--command",
            "true",
        ],
    );
    fails_with(&out, 2, "cannot be used with");
}

/// A search server from the file: URL, pointers, a plain header and the token from
/// the environment named by `header_env`; a flag's URL wins over the file's.
#[test]
fn an_http_retriever_comes_from_the_file() {
    let dir = workspace();
    let s = fault_server(dir.path(), "auth", "");
    policy(
        dir.path(),
        &format!(
            "[record]\nhttp = \"http://127.0.0.1:{}/search?id={{id}}&q={{question}}&size={{depth}}\"\nids = \"/hits/hits/*/_id\"\nscores = \"/hits/hits/*/_score\"\nheader = {{ \"X-Team\" = \"search\" }}\nheader_env = {{ Authorization = \"RAGDIFF_TEST_TOKEN\" }}\nretries = 0\n",
            s.port
        ),
    );
    let out = common::ragdiff(dir.path())
        .args(["record", "--gold", "gold.toml", "--index-version", "1.0.0"])
        .env("RAGDIFF_TEST_TOKEN", "Bearer s3cret")
        .output()
        .expect("runs");
    assert_code(&out, 0);
    let rows = jsonl_rows(dir.path(), "runs/candidate.jsonl");
    assert_eq!(rows[0]["retrieved_doc_ids"][0], "D-Q-1");
    assert!(!stderr(&out).contains("s3cret"));
    assert_private(dir.path(), &out);
    // --http-env on the command line wins over the file's for the same name.
    let out = common::ragdiff(dir.path())
        .args(["record", "--gold", "gold.toml", "--index-version", "1.0.0"])
        .args(["--header-env", "authorization=OTHER_TOKEN"])
        .env("RAGDIFF_TEST_TOKEN", "Bearer s3cret")
        .env("OTHER_TOKEN", "Bearer wrong")
        .output()
        .expect("runs");
    assert_code(&out, 4);
    assert!(stderr(&out).contains("HTTP 401"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("wrong"), "{}", stderr(&out));
}

/// `--retriever-log -` (or `retriever_log = "-"`) is ragdiff's own stderr, redacted
/// like the file; no file named `-` is made.
#[test]
fn a_retriever_log_of_dash_is_ragdiffs_stderr() {
    let dir = workspace();
    let out = record(
        dir.path(),
        &[
            "--no-config",
            "--command",
            &fake("good"),
            "--retriever-log",
            "-",
        ],
    );
    assert_code(&out, 0);
    assert!(
        stderr(&out)
            .lines()
            .any(|l| l == "retriever: asked [question]"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("-").exists());
    assert_private(dir.path(), &out);
    fake_policy(dir.path(), "good", "retriever_log = \"-\"\n");
    let out = record(dir.path(), &[]);
    assert_code(&out, 0);
    assert!(stderr(&out).contains("retriever: asked [question]"));
    assert!(!dir.path().join("-").exists());
    assert_private(dir.path(), &out);
}

/// Under --append-repeat the file's out, repeats and results format describe new
/// recordings and are not used; its filters must be the run's.
#[test]
fn append_repeat_takes_the_runs_own_settings() {
    let dir = recorded("good", "repeats = 2\nresults_format = \"csv\"\n");
    assert!(dir.path().join("runs/candidate-2.csv").is_file());
    let append = [
        "record",
        "--gold",
        "gold.toml",
        "--append-repeat",
        "runs/candidate.toml",
    ];
    let out = common::run(dir.path(), &append);
    assert_code(&out, 0);
    assert!(dir.path().join("runs/candidate-3.csv").is_file());
    fake_policy(dir.path(), "good", "filter = { tenant = \"acme\" }\n");
    let out = common::run(dir.path(), &append);
    fails_with(
        &out,
        2,
        "`filter` in [record] (ragdiff.toml:3): runs/candidate.toml records other filters; --append-repeat asks with the run's own (record with the file's filters, or give --no-config)",
    );
}

/// No output lands on an input: the policy file read, or a file of a run `compare`
/// reads (the policy's `baseline` and `candidate`) other than the run written; exit
/// 2 before the retriever starts, nothing written (docs/contract.md §4.8).
#[test]
fn no_output_overwrites_the_policy_or_a_compared_run() {
    let dir = workspace();
    fake_policy(dir.path(), "good", "");
    // Recording the baseline itself is how it is made: its own files are replaced.
    let out = record(
        dir.path(),
        &["--out", "runs/baseline.toml", "--results-format", "csv"],
    );
    assert_code(&out, 0);
    let baseline = read(dir.path(), "runs/baseline.csv");
    let cases: [(&str, &[&str], &str); 5] = [
        (
            "",
            &["--out", "ragdiff.toml"],
            "--out ragdiff.toml would overwrite the input ragdiff.toml; write the report elsewhere",
        ),
        (
            "retriever_log = \"ragdiff.toml\"\n",
            &[],
            "--retriever-log ragdiff.toml would overwrite the input ragdiff.toml; write the report elsewhere",
        ),
        (
            "",
            &["--retriever-log", "runs/baseline.csv"],
            "--retriever-log runs/baseline.csv would overwrite the input runs/baseline.csv; write the report elsewhere",
        ),
        (
            "",
            &["--retriever-log", "runs/baseline-latency.csv"],
            "--retriever-log runs/baseline-latency.csv would overwrite the input runs/baseline-latency.csv; write the report elsewhere",
        ),
        (
            "",
            &[
                "--out",
                "runs/baseline-latency.toml",
                "--results-format",
                "csv",
            ],
            "results runs/baseline-latency.csv would overwrite the input runs/baseline-latency.csv; write the report elsewhere",
        ),
    ];
    for (rest, flags, problem) in cases {
        fake_policy(dir.path(), "good", rest);
        let policy_text = read(dir.path(), "ragdiff.toml");
        common::assert_invalid(record(dir.path(), flags), &[problem]);
        assert_eq!(read(dir.path(), "ragdiff.toml"), policy_text, "{problem}");
        assert_eq!(read(dir.path(), "runs/baseline.csv"), baseline, "{problem}");
        assert!(
            !dir.path().join("runs/candidate.toml").exists(),
            "{problem}"
        );
    }
    // The policy's own `baseline` and `candidate` are the runs protected.
    fake_policy(dir.path(), "good", "");
    let text = format!(
        "baseline = \"runs/base.toml\"\n{}",
        read(dir.path(), "ragdiff.toml")
    );
    policy(dir.path(), &text);
    let out = record(dir.path(), &["--retriever-log", "runs/baseline.csv"]);
    assert_code(&out, 0);
    common::assert_invalid(
        record(
            dir.path(),
            &[
                "--out",
                "runs/other.toml",
                "--retriever-log",
                "runs/candidate.jsonl",
            ],
        ),
        &[
            "--retriever-log runs/candidate.jsonl would overwrite the input runs/candidate.jsonl; write the report elsewhere",
        ],
    );
    // The log on the manifest written: two outputs, one file.
    common::assert_invalid(
        common::run(
            dir.path(),
            &[
                "record",
                "--gold",
                "gold.toml",
                "--append-repeat",
                "runs/baseline.toml",
                "--retriever-log",
                "runs/baseline.toml",
            ],
        ),
        &[
            "--append-repeat and --retriever-log both write runs/baseline.toml; give each its own file",
        ],
    );
    common::assert_invalid(
        record(dir.path(), &["--retriever-log", "runs/candidate.toml"]),
        &["--out and --retriever-log both write runs/candidate.toml; give each its own file"],
    );
}

/// `record --gold gold.toml --append-repeat runs/candidate.toml EXTRA…`.
fn append(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["record", "--gold", "gold.toml"];
    args.extend_from_slice(&["--append-repeat", "runs/candidate.toml"]);
    args.extend_from_slice(extra);
    common::run(dir, &args)
}

/// --append-repeat adds one repeat: the file's `repeats` asks no more passes, its
/// `depth` gives way to the run's, and a `--depth` other than the run's is exit 2
/// (docs/contract.md §4.8).
#[test]
fn append_repeat_asks_once_at_the_runs_depth() {
    let dir = workspace();
    let asked = |dir: &Path| {
        read(dir, "runs/r.log")
            .lines()
            .filter(|l| l.starts_with("asked "))
            .count()
    };
    fake_policy(
        dir.path(),
        "good",
        "depth = 2\nrepeats = 3\nretriever_log = \"runs/r.log\"\n",
    );
    assert_code(&record(dir.path(), &[]), 0);
    // Four gold questions, three passes.
    assert_eq!(asked(dir.path()), 12);
    fake_policy(
        dir.path(),
        "good",
        "depth = 1\nrepeats = 3\nretriever_log = \"runs/r.log\"\n",
    );
    assert_code(&append(dir.path(), &[]), 0);
    assert_eq!(asked(dir.path()), 4, "one pass, not the file's three");
    let rows = jsonl_rows(dir.path(), "runs/candidate-4.jsonl");
    assert_eq!(
        rows[0]["retrieved_doc_ids"],
        serde_json::json!(["D-Q-1", "D-0"])
    );
    assert!(!dir.path().join("runs/candidate-5.jsonl").exists());
    let doc = manifest(dir.path(), "runs/candidate.toml");
    assert_eq!(doc["depth"].as_integer(), Some(2));
    // The run's own depth on the command line is no conflict; another is.
    assert_code(&append(dir.path(), &["--depth", "2"]), 0);
    let before = read(dir.path(), "runs/candidate.toml");
    common::assert_invalid(
        append(dir.path(), &["--depth", "5"]),
        &[
            "--depth 5: runs/candidate.toml records depth 2; --append-repeat adds a repeat at the run's own depth (leave --depth out)",
        ],
    );
    assert_eq!(read(dir.path(), "runs/candidate.toml"), before);
    assert!(!dir.path().join("runs/candidate-6.jsonl").exists());
}

/// `--http` replaces the file's `http` and the keys that describe that server: its
/// `header` and `header_env` (a token meant for the team's server), `ids`, `scores`
/// and `http_body` are not sent to, or applied for, the flag's URL (docs/contract.md
/// §4.8). The fault server in `auth` mode answers 401 without the token.
#[test]
fn an_http_flag_drops_the_files_headers() {
    let dir = workspace();
    let s = fault_server(dir.path(), "auth", "");
    policy(
        dir.path(),
        "[record]\nhttp = \"http://127.0.0.1:9/team\"\nids = \"/hits/hits/*/_id\"\nheader = { \"X-Team\" = \"search\" }\nheader_env = { Authorization = \"RAGDIFF_TEST_TOKEN\" }\nhttp_body = \"missing.json\"\n",
    );
    let url = format!(
        "http://127.0.0.1:{}/search?id={{id}}&q={{question}}&size={{depth}}",
        s.port
    );
    let flags = ["record", "--gold", "gold.toml", "--index-version", "1.0.0"];
    let run = |extra: &[&str]| {
        common::ragdiff(dir.path())
            .args(flags)
            .args(["--http", url.as_str(), "--retries", "0"])
            .args(extra)
            .env("RAGDIFF_TEST_TOKEN", "Bearer s3cret")
            .output()
            .expect("runs")
    };
    // The file's ids are the team server's: the flag's URL needs its own.
    common::assert_invalid(
        run(&[]),
        &["--http needs --ids POINTER: where the doc ids are in an answer, e.g. /hits/hits/*/_id"],
    );
    // Not sent: the server refuses every query (and `missing.json` is not read).
    let out = run(&["--ids", "/hits/hits/*/_id"]);
    assert_code(&out, 4);
    assert!(
        stderr(&out)
            .contains("4 queries errored: Q-1 (HTTP 401 (error.type security_exception)), Q-2"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("s3cret"), "{}", stderr(&out));
    // A header given on the command line is sent.
    let out = run(&[
        "--ids",
        "/hits/hits/*/_id",
        "--header-env",
        "Authorization=RAGDIFF_TEST_TOKEN",
    ]);
    assert_code(&out, 0);
    assert_private(dir.path(), &out);
}
