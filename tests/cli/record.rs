//! `ragdiff record --command` (docs/contract.md §4.8): questions from the gold, the
//! JSON Lines protocol and its faults, what it writes, and that no question's text
//! reaches any output. The retriever is `tests/fixtures/record/fake.py` (one fault
//! per mode) or, with the reference data, bm25s over the Vaswani documents.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{self, assert_code, stderr};

/// Every question of the fixture: none may appear in any output.
const QUESTIONS: [&str; 6] = [
    "which zebra stripes are secret",
    "how do penguins whisper",
    "where do owls hide marmalade",
    "when do snails race",
    "do llamas dream of hay",
    "why are flamingos pink",
];

/// The fixture folder (with `topics/`) in a new temporary folder, with `runs/`.
pub(crate) fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = common::fixture("record");
    for sub in ["", "topics"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("a folder");
        for entry in std::fs::read_dir(src.join(sub)).expect("the fixture folder") {
            let entry = entry.expect("a folder entry");
            if entry.file_type().expect("a file type").is_file() {
                let to = dir.path().join(sub).join(entry.file_name());
                std::fs::copy(entry.path(), to).expect("copied");
            }
        }
    }
    std::fs::create_dir_all(dir.path().join("runs")).expect("runs/");
    dir
}

/// `python3 fake.py MODE…` as a --command value.
pub(crate) fn fake(mode: &str) -> String {
    format!("python3 fake.py {mode}")
}

fn record(dir: &Path, extra: &[&str]) -> Output {
    record_with(dir, "gold.toml", extra)
}

/// No question's text in any file of `dir` (recursively, inputs aside) or in `out`.
#[track_caller]
pub(crate) fn assert_private(dir: &Path, out: &Output) {
    let mut texts = vec![common::stdout(out), stderr(out)];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a folder").flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if !is_input(&name) {
                texts.push(std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    for text in &texts {
        for q in QUESTIONS {
            assert!(
                !text.contains(q),
                "question text {q:?} in an output:\n{text}"
            );
        }
    }
}

/// The fixture's own files, which hold the questions on purpose.
fn is_input(name: &str) -> bool {
    name.starts_with("gold")
        || name.starts_with("queries")
        || name.starts_with("unlabelled")
        || name == "topics.trec"
        || name == "fake.py"
        || name == "fake.pid"
        || name.ends_with("_server.py")
}

pub(crate) fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub(crate) fn jsonl_rows(dir: &Path, rel: &str) -> Vec<serde_json::Value> {
    read(dir, rel)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

pub(crate) fn ids_of(rows: &[serde_json::Value]) -> Vec<&str> {
    rows.iter()
        .map(|r| r["id"].as_str().expect("an id"))
        .collect()
}

#[test]
fn records_a_csv_gold_as_jsonl_that_eval_reads() {
    let dir = workspace();
    let out = record(dir.path(), &["--command", &fake("good"), "--depth", "2"]);
    assert_code(&out, 0);
    let err = stderr(&out);
    assert!(
        err.lines().any(|l| l.starts_with(
            "recorded 4 queries to runs/candidate.toml (results runs/candidate.jsonl); latency p50 "
        ) && l.ends_with(" ms")),
        "no summary line:\n{err}"
    );
    let manifest = read(dir.path(), "runs/candidate.toml");
    let doc: toml_edit::DocumentMut = manifest.parse().expect("a TOML manifest");
    assert_eq!(doc["index_version"].as_str(), Some("1.0.0"));
    assert_eq!(doc["corpus"].as_str(), Some("animals"));
    assert_eq!(doc["depth"].as_integer(), Some(2));
    assert_eq!(doc["results"].as_str(), Some("candidate.jsonl"));
    assert_eq!(doc["record"]["concurrency"].as_integer(), Some(4));
    assert!(
        doc["record"]["host"]
            .as_str()
            .is_some_and(|h| !h.is_empty())
    );
    assert_eq!(
        doc["record"]["recorded_at"].as_str(),
        Some("2026-12-01T00:00:00Z")
    );
    let rows = jsonl_rows(dir.path(), "runs/candidate.jsonl");
    assert_eq!(ids_of(&rows), ["Q-1", "Q-2", "Q-3", "Q-4"]);
    // Cut to depth 2: the fake answers three.
    assert_eq!(
        rows[0]["retrieved_doc_ids"],
        serde_json::json!(["D-Q-1", "D-0"])
    );
    assert_eq!(rows[0]["scores"], serde_json::json!([3.0, 2.0]));
    assert!(
        rows.iter()
            .all(|r| r["latency_ms"].as_f64().is_some_and(|l| l >= 0.0))
    );
    // The recorded run is a run like any other: Q-3 expects D-7, which nobody returns.
    let eval = common::eval_json(
        dir.path(),
        &[
            "eval",
            "--gold",
            "gold.toml",
            "runs/candidate.toml",
            "--format",
            "json",
        ],
    );
    assert_eq!(eval.row("Q-1").rr, 1.0);
    assert_eq!(eval.row("Q-3").rr, 0.0);
    assert_private(dir.path(), &out);
}

#[test]
fn queries_files_in_every_layout_give_the_same_run() {
    let mut first: Option<String> = None;
    for layout in ["tsv", "jsonl", "trec"] {
        let dir = workspace();
        let gold = format!("topics/gold-{layout}.toml");
        let out = common::run(
            dir.path(),
            &[
                "record",
                "--gold",
                &gold,
                "--index-version",
                "1.0.0",
                "--command",
                &fake("good"),
                "--concurrency",
                "1",
            ],
        );
        assert_code(&out, 0);
        let rows = jsonl_rows(dir.path(), "runs/candidate.jsonl");
        let docs: Vec<String> = rows
            .iter()
            .map(|r| r["retrieved_doc_ids"].to_string())
            .collect();
        let docs = docs.join("\n");
        assert_eq!(ids_of(&rows), ["Q-1", "Q-2", "Q-3", "Q-4"], "{layout}");
        match &first {
            None => first = Some(docs),
            Some(f) => assert_eq!(f, &docs, "{layout}"),
        }
    }
}

#[test]
fn the_topic_field_picks_the_description() {
    let dir = workspace();
    let log = dir.path().join("retriever.log");
    let out = common::run(
        dir.path(),
        &[
            "record",
            "--gold",
            "topics/gold-trec.toml",
            "--index-version",
            "1.0.0",
            "--command",
            &fake("good"),
            "--topic-field",
            "desc",
            "--retriever-log",
            "retriever.log",
        ],
    );
    assert_code(&out, 0);
    let log = std::fs::read_to_string(log).expect("the retriever's log");
    // The log never holds a question (redacted, §4.8): the retriever's digest of
    // what it was asked tells the description from the title.
    let digest = |text: &str| {
        use sha2::Digest as _;
        let hex: String = sha2::Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("sha256 {hex}")
    };
    assert!(
        log.contains(&digest("Zebra question in long form.")),
        "{log}"
    );
    assert!(
        !log.contains(&digest("which zebra stripes are secret")),
        "{log}"
    );
    assert!(log.contains("asked [question]"), "{log}");
    assert!(!log.contains("Zebra question"), "{log}");
}

#[test]
fn a_gold_without_questions_is_an_input_error() {
    let dir = workspace();
    let out = common::run(
        dir.path(),
        &[
            "record",
            "--gold",
            "topics/gold-none.toml",
            "--index-version",
            "1.0.0",
            "--command",
            &fake("good"),
        ],
    );
    assert_code(&out, 2);
    common::assert_line(
        &stderr(&out),
        "topics/gold-none.toml: the gold has no questions: name a queries file in its manifest (`queries = \"queries.tsv\"`) or give a CSV gold a `question` column",
    );
    let out = common::run(
        dir.path(),
        &[
            "record",
            "--gold",
            "gold-blank.toml",
            "--index-version",
            "1.0.0",
            "--command",
            &fake("good"),
        ],
    );
    assert_code(&out, 2);
    common::assert_line(
        &stderr(&out),
        "gold-blank.csv's question column: gold query Q-2 has no question text; give it one in gold-blank.csv's question column: record cannot ask the retriever an empty question",
    );
    assert!(!dir.path().join("runs/candidate.toml").exists());
}

#[test]
fn a_changed_queries_file_is_refused_like_changed_data() {
    let dir = workspace();
    let manifest = dir.path().join("topics/gold-tsv.toml");
    let mut text = std::fs::read_to_string(&manifest).expect("manifest");
    text.push_str(&format!("queries_sha256 = \"{}\"\n", "0".repeat(64)));
    std::fs::write(&manifest, text).expect("written");
    for args in [
        vec![
            "record",
            "--gold",
            "topics/gold-tsv.toml",
            "--index-version",
            "1.0.0",
            "--command",
            "true",
        ],
        vec!["validate", "--gold", "topics/gold-tsv.toml"],
    ] {
        let out = common::run(dir.path(), &args);
        assert_code(&out, 2);
        assert!(
            stderr(&out).contains(
                "topics/gold-tsv.toml:5: queries changed since the gold was frozen: sha256 is "
            ),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn freeze_records_the_queries_sha256() {
    let dir = workspace();
    let out = common::run(dir.path(), &["freeze", "topics/gold-tsv.toml"]);
    assert_code(&out, 0);
    let text = read(dir.path(), "topics/gold-tsv.toml");
    let doc: toml_edit::DocumentMut = text.parse().expect("TOML");
    let recorded = doc["queries_sha256"]
        .as_str()
        .expect("queries_sha256 recorded")
        .to_string();
    assert_eq!(recorded.len(), 64);
    let out = record_with(
        dir.path(),
        "topics/gold-tsv.toml",
        &["--command", &fake("good")],
    );
    assert_code(&out, 0);
    std::fs::write(
        dir.path().join("topics/queries.tsv"),
        "Q-1\tanother question\n",
    )
    .expect("written");
    let out = record_with(
        dir.path(),
        "topics/gold-tsv.toml",
        &["--command", &fake("good")],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("queries changed since the gold was frozen"),
        "{}",
        stderr(&out)
    );
}

fn record_with(dir: &Path, gold: &str, extra: &[&str]) -> Output {
    let mut args = vec!["record", "--gold", gold, "--index-version", "1.0.0"];
    args.extend_from_slice(extra);
    common::run(dir, &args)
}

#[test]
fn unlabelled_questions_are_asked_and_written_after_the_gold() {
    let dir = workspace();
    let out = record(
        dir.path(),
        &[
            "--command",
            &fake("good"),
            "--include-unlabelled",
            "unlabelled.tsv",
            "--results-format",
            "trec",
        ],
    );
    assert_code(&out, 0);
    let trec = read(dir.path(), "runs/candidate.trec");
    assert!(
        trec.lines().any(|l| l == "U-2 Q0 D-U-2 1 3 ragdiff"),
        "{trec}"
    );
    let latency = read(dir.path(), "runs/candidate-latency.csv");
    let ids: Vec<&str> = latency
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap_or(""))
        .collect();
    assert_eq!(ids, ["Q-1", "Q-2", "Q-3", "Q-4", "U-1", "U-2"]);
    assert!(
        read(dir.path(), "runs/candidate.toml").contains("latency = \"candidate-latency.csv\"")
    );
    assert_private(dir.path(), &out);
    let out = record(
        dir.path(),
        &[
            "--command",
            &fake("good"),
            "--include-unlabelled",
            "unlabelled-in-gold.tsv",
        ],
    );
    assert_code(&out, 2);
    common::assert_line(
        &stderr(&out),
        "unlabelled query Q-2 is also a gold query; --include-unlabelled adds questions the gold does not label",
    );
}

#[test]
fn answers_may_come_in_any_order_and_filters_are_sent() {
    let dir = workspace();
    let out = record(
        dir.path(),
        &[
            "--command",
            &fake("reverse"),
            "--concurrency",
            "2",
            "--results-format",
            "csv",
        ],
    );
    assert_code(&out, 0);
    let csv = read(dir.path(), "runs/candidate.csv");
    assert!(
        csv.starts_with("id,retrieved_doc_ids\nQ-1,D-Q-1;D-0;D-9\nQ-2,D-Q-2;D-0;D-9\n"),
        "{csv}"
    );
    let out = record(
        dir.path(),
        &[
            "--command",
            &fake("filters"),
            "--filter",
            "tenant=acme",
            "--filter",
            "lang=en",
            "--out",
            "runs/f.toml",
        ],
    );
    assert_code(&out, 0);
    let rows = jsonl_rows(dir.path(), "runs/f.jsonl");
    assert_eq!(
        rows[0]["retrieved_doc_ids"],
        serde_json::json!(["F-lang=en-tenant=acme"])
    );
    let manifest = read(dir.path(), "runs/f.toml");
    assert!(
        manifest.contains("[filters]\nlang = \"en\"\ntenant = \"acme\"\n"),
        "{manifest}"
    );
}

/// Each protocol fault: exit 4, a message naming what went wrong and the ids in
/// flight, nothing written, no question's text anywhere.
#[test]
fn protocol_faults_fail_the_recording_with_exit_4() {
    let cases: [(&str, &[&str], &str); 7] = [
        (
            "garbage",
            &["--concurrency", "1"],
            "error: the retriever failed: python3: line 1 of its stdout is not a JSON answer (column 1: not JSON); in flight: Q-1",
        ),
        (
            "unknown",
            &["--concurrency", "1"],
            "error: the retriever failed: python3: line 1 of its stdout answered NOPE, which is not a query it was asked; in flight: Q-1",
        ),
        (
            "echo",
            &["--concurrency", "1"],
            "error: the retriever failed: python3: line 1 of its stdout answered [question], which is not a query it was asked; in flight: Q-1",
        ),
        (
            "twice",
            &["--concurrency", "1"],
            "error: the retriever failed: python3: line 2 of its stdout answered query Q-1 twice (or before it was asked); in flight: Q-2",
        ),
        (
            "exit",
            &["--concurrency", "2"],
            "error: the retriever failed: python3: the process ended (exit status: 3) before answering Q-1, Q-2",
        ),
        (
            "slow Q-1",
            &["--concurrency", "1", "--timeout", "1"],
            "error: the retriever failed: python3: no answer within 1 s (--timeout) for Q-1; in flight: Q-1; its process group was killed",
        ),
        (
            "error Q-3",
            &["--concurrency", "1"],
            "error: the retriever failed: 1 query errored: Q-3 (its answer was an error); nothing was written (--allow-errors N records a run with up to N errored queries, listed in its manifest)",
        ),
    ];
    for (mode, extra, message) in cases {
        let dir = workspace();
        let command = fake(mode);
        let mut args = vec!["--command", command.as_str()];
        args.extend_from_slice(extra);
        let out = record(dir.path(), &args);
        assert_code(&out, 4);
        let err = stderr(&out);
        assert!(
            err.lines().any(|l| l == message),
            "{mode}: expected {message:?} in\n{err}"
        );
        assert!(!dir.path().join("runs/candidate.toml").exists(), "{mode}");
        assert!(!dir.path().join("runs/candidate.jsonl").exists(), "{mode}");
        assert_private(dir.path(), &out);
    }
}

#[test]
fn a_failure_shows_the_retrievers_last_lines_redacted() {
    let dir = workspace();
    let out = record(
        dir.path(),
        &["--command", &fake("exit"), "--concurrency", "1"],
    );
    assert_code(&out, 4);
    let err = stderr(&out);
    assert!(
        err.contains("its last 2 lines of stderr (questions redacted):\n  | asked [question]"),
        "{err}"
    );
    assert_private(dir.path(), &out);
}

#[test]
fn allow_errors_records_the_errored_queries_in_the_manifest() {
    let dir = workspace();
    let out = record(
        dir.path(),
        &["--command", &fake("error Q-3"), "--allow-errors", "1"],
    );
    assert_code(&out, 0);
    let manifest = read(dir.path(), "runs/candidate.toml");
    assert!(manifest.contains("errored = [\"Q-3\"]"), "{manifest}");
    let rows = jsonl_rows(dir.path(), "runs/candidate.jsonl");
    assert_eq!(
        rows[2],
        serde_json::json!({"id": "Q-3", "retrieved_doc_ids": [], "errored": true})
    );
    assert!(
        stderr(&out).contains("; 1 errored: Q-3;"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    let dir = workspace();
    for (args, message) in [
        (
            vec!["--command", "python3 'fake.py"],
            "--command: give the retriever as \"CMD ARGS…\" (quotes balanced; split as a POSIX shell would, run without a shell)",
        ),
        (
            vec!["--command", "true", "--filter", "novalue"],
            "--filter novalue: expected KEY=VALUE (without control characters, as the file's `filter`)",
        ),
        (
            vec!["--command", "true", "--filter", "ten\u{1b}[2Jant=acme"],
            "--filter ten\\u{1b}[2Jant=acme: expected KEY=VALUE (without control characters, as the file's `filter`)",
        ),
        (
            vec!["--command", "true", "--timeout", "0"],
            "--timeout: seconds above 0, at most 86400",
        ),
    ] {
        let out = record(dir.path(), &args);
        assert_code(&out, 2);
        assert!(stderr(&out).contains(message), "{}", stderr(&out));
    }
    let out = common::run(
        dir.path(),
        &[
            "record",
            "--gold",
            "gold.toml",
            "--index-version",
            "one",
            "--command",
            "true",
        ],
    );
    assert_code(&out, 2);
    assert!(stderr(&out).contains("--index-version one: not a semantic version such as 1.4.0"));
    let out = record(dir.path(), &["--command", "no-such-retriever-here"]);
    assert_code(&out, 4);
    assert!(
        stderr(&out).contains("the retriever failed: cannot start no-such-retriever-here: "),
        "{}",
        stderr(&out)
    );
    let out = record(
        dir.path(),
        &["--command", &fake("good"), "--out", "gold.toml"],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("--out gold.toml would overwrite the input"),
        "{}",
        stderr(&out)
    );
}

/// The gold's queries file is an input: a manifest named after it, whose results
/// would replace it, is refused before the retriever starts.
#[test]
fn record_never_writes_over_the_queries_file() {
    let dir = workspace();
    let before = read(dir.path(), "topics/queries.jsonl");
    let out = common::run(
        dir.path(),
        &[
            "record",
            "--gold",
            "topics/gold-jsonl.toml",
            "--index-version",
            "1.0.0",
            "--command",
            &fake("good"),
            "--out",
            "topics/queries.toml",
        ],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "results topics/queries.jsonl would overwrite the input topics/queries.jsonl"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(dir.path(), "topics/queries.jsonl"), before);
    assert!(!dir.path().join("topics/queries.toml").exists());
}

/// The retriever log is an output like the run's files: over an input or at a FIFO
/// (whose open would block with nobody reading) it is exit 2 before the retriever
/// starts, the input untouched.
#[test]
fn the_retriever_log_is_never_an_input_or_a_fifo() {
    let dir = workspace();
    let before = read(dir.path(), "gold.csv");
    let out = record(
        dir.path(),
        &["--command", &fake("good"), "--retriever-log", "gold.csv"],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("--retriever-log gold.csv would overwrite the input"),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(dir.path(), "gold.csv"), before);
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("log.fifo"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo");
    let out = record(
        dir.path(),
        &["--command", &fake("good"), "--retriever-log", "log.fifo"],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("cannot write log.fifo: it is a FIFO, not a regular file"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("runs/candidate.toml").exists());
}

/// A gold manifest over the Vaswani qrels, its questions the TREC topics.
fn vaswani_gold(reference: &Path) -> String {
    format!(
        "version = \"1.0.0\"\ncorpus = \"vaswani\"\ndata = \"{}\"\nqueries = \"{}\"\n",
        reference.join("qrels").display(),
        reference.join("query-text.trec").display()
    )
}

/// The manifest of a retriever's own TREC run, `runs/direct.trec`.
const DIRECT_MANIFEST: &str =
    "index_version = \"1.0.0\"\ncorpus = \"vaswani\"\ndepth = 20\nresults = \"direct.trec\"\n";

/// A real retriever: bm25s over the Vaswani documents, questions from its TREC
/// topics. The recorded run gives the same metrics as the same retriever's TREC run
/// written directly.
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn bm25s_over_vaswani_records_what_it_would_write_directly() {
    let reference = common::reference_dir().join("vaswani");
    let Some(python) = python_with("bm25s") else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let d = dir.path();
    std::fs::create_dir_all(d.join("gold")).expect("gold/");
    std::fs::create_dir_all(d.join("runs")).expect("runs/");
    std::fs::write(d.join("gold/vaswani.toml"), vaswani_gold(&reference)).expect("written");
    let script = common::crate_dir().join("examples/retriever.py");
    let docs = reference.join("doc-text.trec");
    let command = format!(
        "{} {} --docs {} --bm25s",
        python.display(),
        script.display(),
        docs.display()
    );
    let out = common::run(
        d,
        &[
            "record",
            "--index-version",
            "1.0.0",
            "--depth",
            "20",
            "--command",
            &command,
            "--quiet",
        ],
    );
    assert_code(&out, 0);
    let direct = std::process::Command::new(&python)
        .arg(&script)
        .args(["--docs"])
        .arg(&docs)
        .args(["--bm25s", "--depth", "20", "--direct"])
        .arg(reference.join("query-text.trec"))
        .arg(d.join("runs/direct.trec"))
        .output()
        .expect("the retriever runs");
    assert!(
        direct.status.success(),
        "{}",
        String::from_utf8_lossy(&direct.stderr)
    );
    std::fs::write(d.join("runs/direct.toml"), DIRECT_MANIFEST).expect("written");
    let recorded = common::eval_json(d, &["eval", "runs/candidate.toml", "--format", "json"]);
    let written = common::eval_json(d, &["eval", "runs/direct.toml", "--format", "json"]);
    assert_eq!(recorded.per_query.len(), 93);
    assert_eq!(recorded.means, written.means);
    for row in &written.per_query {
        assert_eq!(recorded.row(&row.id).rr, row.rr, "query {}", row.id);
    }
}

/// SIGINT and SIGTERM while the retriever works: exit 130 or 143, nothing written,
/// no temporary file, and the retriever's process group ended too.
#[test]
fn an_interrupt_writes_nothing_and_ends_the_retriever() {
    use std::time::{Duration, Instant};
    for (signal, expected) in [("-INT", 130), ("-TERM", 143)] {
        let dir = workspace();
        // The fake writes its pid once it holds Q-3 (two answers recorded by then).
        let (output, fake_pid) = interrupted(dir.path(), "slow Q-3", &[], signal);
        assert_eq!(
            output.status.code(),
            Some(expected),
            "{signal}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let left: Vec<String> = std::fs::read_dir(dir.path().join("runs"))
            .expect("runs/")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != ".gitkeep")
            .collect();
        assert!(left.is_empty(), "{signal}: left in runs/: {left:?}");
        // The retriever is gone (SIGTERM to its group): no process, or a zombie
        // (its new parent may never reap it).
        let start = Instant::now();
        let stat = format!("/proc/{}/stat", fake_pid.trim());
        while std::fs::read_to_string(&stat).is_ok_and(|s| {
            let state = s.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }) {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{signal}: the retriever outlived ragdiff"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A JSONL run's queries that the gold lacks enter drift, as a CSV or TREC run's do.
#[test]
fn unlabelled_queries_of_a_recorded_jsonl_run_enter_drift() {
    let dir = workspace();
    for (out, mode) in [
        ("runs/baseline.toml", "good"),
        ("runs/candidate.toml", "reverse"),
    ] {
        let command = fake(mode);
        let o = record(
            dir.path(),
            &[
                "--command",
                &command,
                "--concurrency",
                "2",
                "--include-unlabelled",
                "unlabelled.tsv",
                "--out",
                out,
            ],
        );
        assert_code(&o, 0);
    }
    let out = common::run(
        dir.path(),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "--format",
            "json",
            "--no-gate",
        ],
    );
    assert_code(&out, 0);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        json["drift"]["unlabelled_queries"],
        serde_json::json!(2),
        "{}",
        json["drift"]
    );
    assert_private(dir.path(), &out);
}

/// A server started by a test, ended when dropped.
pub(crate) struct Server {
    child: std::process::Child,
    pub(crate) port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `python ARGS…` in `dir` and read the `port N` line it prints.
pub(crate) fn server(dir: &Path, python: &Path, args: &[&str]) -> Server {
    use std::io::BufRead;
    let mut child = std::process::Command::new(python)
        .current_dir(dir)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("piped");
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the server says its port");
    let port = line
        .trim()
        .strip_prefix("port ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port line: {line:?}"));
    Server { child, port }
}

/// The fault server in `dir` with MODE and the query it hits.
pub(crate) fn fault_server(dir: &Path, mode: &str, target: &str) -> Server {
    server(
        dir,
        Path::new("python3"),
        &["fault_server.py", mode, "server.log", target],
    )
}

fn get_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/search?id={{id}}&q={{question}}&size={{depth}}")
}

/// Record over HTTP GET from the fault server; `extra` after the pointers.
fn record_http(dir: &Path, port: u16, extra: &[&str]) -> Output {
    let url = get_url(port);
    let mut args = vec!["--http", url.as_str(), "--ids", "/hits/hits/*/_id"];
    args.extend_from_slice(&["--scores", "/hits/hits/*/_score"]);
    args.extend_from_slice(extra);
    record(dir, &args)
}

#[test]
fn http_get_records_what_the_server_answers() {
    let dir = workspace();
    let s = fault_server(dir.path(), "good", "");
    let out = record_http(
        dir.path(),
        s.port,
        &["--depth", "2", "--concurrency", "3", "--max-rps", "1000"],
    );
    assert_code(&out, 0);
    let rows = jsonl_rows(dir.path(), "runs/candidate.jsonl");
    assert_eq!(ids_of(&rows), ["Q-1", "Q-2", "Q-3", "Q-4"]);
    assert_eq!(
        rows[1]["retrieved_doc_ids"],
        serde_json::json!(["D-Q-2", "D-0"])
    );
    assert_eq!(rows[1]["scores"], serde_json::json!([3.0, 2.0]));
    assert_private(dir.path(), &out);
}

#[test]
fn http_post_sends_the_body_and_headers_from_the_environment() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("body.json"),
        r#"{"id": "{id}", "query": {"match": {"text": "{question}"}}, "size": {depth}, "filter": {filters}}"#,
    )
    .expect("written");
    let s = fault_server(dir.path(), "auth", "");
    let url = format!("http://127.0.0.1:{}/_search", s.port);
    let args = [
        "--http",
        url.as_str(),
        "--http-body",
        "body.json",
        "--ids",
        "/hits/hits/*/_id",
        "--header-env",
        "Authorization=RAGDIFF_TEST_TOKEN",
        "--header",
        "X-Team: search",
    ];
    let mut cmd = common::ragdiff(dir.path());
    cmd.args(["record", "--gold", "gold.toml", "--index-version", "1.0.0"])
        .args(args);
    let out = cmd
        .env("RAGDIFF_TEST_TOKEN", "Bearer s3cret")
        .output()
        .expect("runs");
    assert_code(&out, 0);
    let mut cmd = common::ragdiff(dir.path());
    cmd.args(["record", "--gold", "gold.toml", "--index-version", "1.0.0"])
        .args(args);
    let out = cmd
        .env("RAGDIFF_TEST_TOKEN", "Bearer wrong-s3cret")
        .output()
        .expect("runs");
    assert_code(&out, 4);
    assert!(
        stderr(&out).contains("Q-1 (HTTP 401 (error.type security_exception)), Q-2 (HTTP 401"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("s3cret"), "{}", stderr(&out));
    let out = record(dir.path(), &args);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "--header-env Authorization: the environment variable RAGDIFF_TEST_TOKEN is not set"
        ),
        "{}",
        stderr(&out)
    );
}

/// 429 with Retry-After and a closed connection are retried; the run is whole.
#[test]
fn http_retries_429_and_closed_connections() {
    for mode in ["429", "close"] {
        let dir = workspace();
        let s = fault_server(dir.path(), mode, "Q-2");
        let out = record_http(dir.path(), s.port, &["--concurrency", "1"]);
        assert_code(&out, 0);
        let log = read(dir.path(), "server.log");
        let q2: Vec<&str> = log.lines().filter(|l| l.starts_with("Q-2 ")).collect();
        let first = if mode == "429" { "Q-2 429" } else { "Q-2 0" };
        assert_eq!(q2, [first, "Q-2 200"], "{mode}");
        let rows = jsonl_rows(dir.path(), "runs/candidate.jsonl");
        assert_eq!(rows[1]["retrieved_doc_ids"][0], "D-Q-2", "{mode}");
    }
}

/// Each fault that outlasts the retries (or is not worth one) errs its query:
/// exit 4 naming it and why by status or kind, never the answer's body.
#[test]
fn http_faults_err_their_query() {
    let cases: [(&str, &[&str], &str); 5] = [
        (
            "500",
            &["--retries", "1"],
            "Q-2 (HTTP 500 (error.type server_melted) (2 tries))",
        ),
        ("404", &[], "Q-2 (HTTP 404)"),
        ("malformed", &[], "Q-2 (an answer that is not JSON)"),
        (
            "wrongids",
            &[],
            "Q-2 (a value at /hits/hits/*/_id that is not a string or number)",
        ),
        (
            "slow",
            &["--timeout", "1", "--retries", "0"],
            "Q-2 (no answer within --timeout (1 try))",
        ),
    ];
    for (mode, extra, reason) in cases {
        let dir = workspace();
        let s = fault_server(dir.path(), mode, "Q-2");
        let out = record_http(dir.path(), s.port, extra);
        assert_code(&out, 4);
        let expected =
            format!("error: the retriever failed: 1 query errored: {reason}; nothing was written");
        assert!(stderr(&out).contains(&expected), "{mode}: {}", stderr(&out));
        assert!(!dir.path().join("runs/candidate.toml").exists(), "{mode}");
        assert_private(dir.path(), &out);
    }
    let dir = workspace();
    let s = fault_server(dir.path(), "500", "Q-2");
    let out = record_http(
        dir.path(),
        s.port,
        &["--retries", "0", "--allow-errors", "1"],
    );
    assert_code(&out, 0);
    assert!(read(dir.path(), "runs/candidate.toml").contains("errored = [\"Q-2\"]"));
}

#[test]
fn bad_http_flags_are_usage_errors() {
    let dir = workspace();
    std::fs::write(dir.path().join("body.json"), r#"{"q": {question}}"#).expect("written");
    for (args, message) in [
        (
            vec!["--http", "ftp://x/{question}", "--ids", "/a"],
            "--http: a URL template starting with http:// or https://",
        ),
        (
            vec!["--http", "http://127.0.0.1:9/", "--ids", "hits"],
            "--ids hits: a JSON pointer starts with `/`, e.g. /hits/hits/*/_id",
        ),
        (
            vec![
                "--http",
                "http://127.0.0.1:9/",
                "--ids",
                "/a",
                "--header",
                "novalue",
            ],
            "--header: expected \"Name: value\"",
        ),
        (
            vec![
                "--http",
                "http://127.0.0.1:9/",
                "--ids",
                "/a",
                "--http-body",
                "body.json",
            ],
            "--http-body body.json: not JSON once its placeholders are filled in; put {question} and {id} inside strings",
        ),
    ] {
        let out = record(dir.path(), &args);
        assert_code(&out, 2);
        assert!(stderr(&out).contains(message), "{}", stderr(&out));
    }
    // The pace is 1/RPS seconds: 1e-300 once panicked, 1e-18 waited for ever.
    for (rps, shown) in [
        ("0", "0"),
        ("1e-300", "1e-300"),
        ("1e-18", "0.000000000000000001"),
        ("2e6", "2000000"),
    ] {
        let url = "http://127.0.0.1:9/";
        let out = record(
            dir.path(),
            &["--http", url, "--ids", "/a", "--max-rps", rps],
        );
        common::assert_invalid(
            out,
            &[format!(
                "--max-rps {shown}: not a number of requests a second from 0.001 to 1000000"
            )],
        );
    }
}

/// The Python that has `module`: `RAGDIFF_PYTHON` (set by .ci/run), else `python3`.
/// Without it the test fails under CI and says why otherwise.
fn python_with(module: &str) -> Option<PathBuf> {
    let python =
        std::env::var_os("RAGDIFF_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    let ok = std::process::Command::new(&python)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(python);
    }
    let under_ci = std::env::var_os("CI").is_some() || std::env::var_os("RAGDIFF_CI").is_some();
    assert!(
        !under_ci,
        "{} cannot import {module}: .ci/run installs it into its venv and sets RAGDIFF_PYTHON",
        python.display()
    );
    common::say_skipped(&format!(
        "skipped: no Python with {module} (set RAGDIFF_PYTHON)"
    ));
    None
}

/// A real search engine: tantivy over the Vaswani documents behind an
/// Elasticsearch-shaped HTTP API on 127.0.0.1. The recorded run gives the same
/// metrics as the engine's own TREC run.
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn tantivy_behind_http_records_what_it_would_write_directly() {
    let reference = common::reference_dir().join("vaswani");
    let Some(python) = python_with("tantivy") else {
        return;
    };
    let d = tempfile::tempdir().expect("a temporary folder");
    let d = d.path();
    std::fs::create_dir_all(d.join("runs")).expect("runs/");
    std::fs::write(d.join("gold.toml"), vaswani_gold(&reference)).expect("written");
    std::fs::write(
        d.join("body.json"),
        r#"{"query": {"match": {"text": "{question}"}}, "size": {depth}}"#,
    )
    .expect("written");
    let script = common::fixture("record/tantivy_server.py");
    let docs = reference.join("doc-text.trec");
    let script_s = script.display().to_string();
    let docs_s = docs.display().to_string();
    let s = server(d, &python, &[&script_s, &docs_s]);
    let url = format!("http://127.0.0.1:{}/_search", s.port);
    let out = common::run(
        d,
        &[
            "record",
            "--gold",
            "gold.toml",
            "--index-version",
            "1.0.0",
            "--depth",
            "20",
            "--http",
            &url,
            "--http-body",
            "body.json",
            "--ids",
            "/hits/hits/*/_id",
            "--scores",
            "/hits/hits/*/_score",
        ],
    );
    assert_code(&out, 0);
    let topics = reference.join("query-text.trec").display().to_string();
    let direct = std::process::Command::new(&python)
        .args([
            &script_s,
            &docs_s,
            "--direct",
            &topics,
            "runs/direct.trec",
            "20",
        ])
        .current_dir(d)
        .output()
        .expect("the engine runs");
    assert!(
        direct.status.success(),
        "{}",
        String::from_utf8_lossy(&direct.stderr)
    );
    std::fs::write(d.join("runs/direct.toml"), DIRECT_MANIFEST).expect("written");
    let recorded = common::eval_json(
        d,
        &[
            "eval",
            "--gold",
            "gold.toml",
            "runs/candidate.toml",
            "--format",
            "json",
        ],
    );
    let written = common::eval_json(
        d,
        &[
            "eval",
            "--gold",
            "gold.toml",
            "runs/direct.toml",
            "--format",
            "json",
        ],
    );
    assert_eq!(recorded.per_query.len(), 93);
    assert_eq!(recorded.means, written.means);
}

/// docs/contract.md §4.8: question text goes to the retriever and nowhere else. A
/// baseline and a candidate are recorded (the candidate as TREC with its latency side
/// file, one errored query, unlabelled questions, the retriever's log), then compared
/// with every export at once under GitHub Actions (annotations on stderr): no
/// question's text in any file written or any stream.
#[test]
fn a_recording_and_a_comparison_with_every_export_hold_no_question() {
    let dir = workspace();
    let run = |args: &[&str]| common::run(dir.path(), args);
    let base = run(&[
        "record",
        "--gold",
        "gold.toml",
        "--index-version",
        "1.0.0",
        "--out",
        "runs/baseline.toml",
        "--command",
        &fake("good"),
        "--include-unlabelled",
        "unlabelled.tsv",
        "--retriever-log",
        "runs/baseline.log",
    ]);
    assert_code(&base, 0);
    assert_private(dir.path(), &base);
    let cand = run(&[
        "record",
        "--gold",
        "gold.toml",
        "--index-version",
        "1.1.0",
        "--out",
        "runs/candidate.toml",
        "--command",
        &fake("error Q-1"),
        "--allow-errors",
        "1",
        "--results-format",
        "trec",
        "--include-unlabelled",
        "unlabelled.tsv",
        "--retriever-log",
        "runs/candidate.log",
    ]);
    assert_code(&cand, 0);
    assert_private(dir.path(), &cand);
    let log = read(dir.path(), "runs/candidate.log");
    assert!(log.contains("asked [question]"), "{log}");
    assert!(read(dir.path(), "runs/candidate-latency.csv").starts_with("id,latency_ms"));
    // ragdiff creates no folders (§9.5).
    std::fs::create_dir_all(dir.path().join("out")).expect("out/");
    let out = common::ragdiff(dir.path())
        .env("GITHUB_ACTIONS", "true")
        .env("RAGDIFF_TIMINGS", "1")
        .args([
            "compare",
            "--no-config",
            "--gold",
            "gold.toml",
            "runs/baseline.toml",
            "runs/candidate.toml",
            "--format",
            "json",
            "--export-markdown",
            "out/report.md",
            "--export-csv",
            "out/report.csv",
            "--export-html",
            "out/report.html",
            "--export-label-queue",
            "out/queue.csv",
        ])
        .output()
        .expect("ragdiff runs");
    assert_code(&out, 1);
    let json = common::stdout(&out);
    assert!(json.contains("\"errored\": \"candidate\""), "{json}");
    assert!(json.contains("\"latency\""), "{json}");
    let err = stderr(&out);
    assert!(
        err.contains("::error title=ragdiff%3A errored queries::"),
        "{err}"
    );
    for file in ["report.md", "report.csv", "report.html", "queue.csv"] {
        assert!(dir.path().join("out").join(file).is_file(), "{file}");
    }
    assert_private(dir.path(), &out);
}

/// docs/contract.md §4.8: `--repeats N` asks every question N times and writes N
/// results files of one index; compare pools them with a run of the same version.
#[test]
fn repeats_write_one_results_file_each_and_compare_pools_them() {
    let dir = workspace();
    let out = record(
        dir.path(),
        &[
            "--command",
            &fake("good"),
            "--repeats",
            "3",
            "--retriever-log",
            "runs/r.log",
        ],
    );
    assert_code(&out, 0);
    let manifest = read(dir.path(), "runs/candidate.toml");
    assert!(
        manifest.contains(
            r#"results = ["candidate-1.jsonl", "candidate-2.jsonl", "candidate-3.jsonl"]"#
        ),
        "{manifest}"
    );
    for r in 1..=3 {
        let rows = jsonl_rows(dir.path(), &format!("runs/candidate-{r}.jsonl"));
        assert_eq!(ids_of(&rows), ["Q-1", "Q-2", "Q-3", "Q-4"]);
    }
    assert!(!dir.path().join("runs/candidate.jsonl").exists());
    // Every repeat's stderr is in the one log.
    let log = read(dir.path(), "runs/r.log");
    assert_eq!(log.matches("asked [question]").count(), 12, "{log}");
    assert_private(dir.path(), &out);
    let base = record(
        dir.path(),
        &["--command", &fake("good"), "--out", "runs/baseline.toml"],
    );
    assert_code(&base, 0);
    let args = [
        "compare",
        "--no-config",
        "--gold",
        "gold.toml",
        "runs/baseline.toml",
        "runs/candidate.toml",
        "--format",
        "json",
    ];
    let json = common::compare_json(dir.path(), &args, 0);
    assert_eq!(json.candidate.repeats, 3);
    assert!(json.flaky.is_empty());
}

/// docs/contract.md §4.8: a signal stops new requests and waits (up to 5 s) for those
/// in flight before it ends the run, writing nothing. The fake answers each request
/// a second late: the one in flight when SIGINT lands is still answered (its log
/// says so), and no other is asked.
#[test]
fn an_interrupt_waits_for_the_requests_in_flight() {
    let dir = workspace();
    let extra = ["--retriever-log", "retriever.log"];
    let output = interrupted(dir.path(), "delay 1", &extra, "-INT").0;
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Q-1 was in flight when the signal landed: it was answered, and nothing else
    // was asked.
    assert_eq!(read(dir.path(), "fake.answered"), "answered Q-1\n");
    let log = read(dir.path(), "retriever.log");
    assert_eq!(log.matches("asked [question]").count(), 1, "{log}");
    assert!(!dir.path().join("runs/candidate.toml").exists());
    assert!(!dir.path().join("runs/candidate.jsonl").exists());
}

/// `ragdiff record` with the fake in `mode` (concurrency 1, a timeout only the signal
/// can beat), sent `signal` once the fake has written its pid: what it did, and the
/// fake's pid.
fn interrupted(dir: &Path, mode: &str, extra: &[&str], signal: &str) -> (Output, String) {
    use std::time::{Duration, Instant};
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_ragdiff"))
        .current_dir(dir)
        .args(["record", "--gold", "gold.toml", "--index-version", "1.0.0"])
        .args(["--command", &fake(mode), "--concurrency", "1"])
        // Far beyond the wait below, so only the signal can end the run.
        .args(["--timeout", "600"])
        .args(extra)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ragdiff starts");
    let pid_file = dir.join("fake.pid");
    let start = Instant::now();
    while !pid_file.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the fake never wrote its pid"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let fake_pid = std::fs::read_to_string(&pid_file).expect("the fake's pid");
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    (child.wait_with_output().expect("ragdiff ends"), fake_pid)
}

/// docs/contract.md §4.8: on a terminal (a tmux pane) `record` draws a bar of the
/// queries done, their rate and the time left; `--quiet` draws none, nor does a
/// stderr that is not a terminal. The fake answers each query 0.4 s late, so the
/// bar is up long enough to be read off the pane.
#[test]
fn the_progress_bar_shows_on_a_terminal_only() {
    if !crate::width::have_tmux() {
        return;
    }
    let dir = workspace();
    let bar_seen = |quiet: &str| {
        let script = format!(
            "unset CI; '{}' record --gold gold.toml --index-version 1.0.0 --concurrency 1 --command 'python3 fake.py delay 0.4' {quiet}",
            env!("CARGO_BIN_EXE_ragdiff")
        );
        let pane = crate::width::Pane::run(100, dir.path(), &script);
        let mut seen = Vec::new();
        for _ in 0..600 {
            let out = pane
                .tmux()
                .args(["capture-pane", "-p", "-J"])
                .output()
                .expect("capture-pane");
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            seen.extend(
                text.lines()
                    .filter(|l| l.contains("recording"))
                    .map(str::to_string),
            );
            if text.lines().any(|l| l.starts_with("__exit ")) {
                assert!(text.contains("__exit 0"), "{text}");
                return seen;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("record did not finish in the pane");
    };
    let lines = bar_seen("");
    let bar = lines
        .iter()
        .find(|l| l.contains("/4 queries") && l.contains("/s") && l.contains("ETA"))
        .unwrap_or_else(|| panic!("no bar with queries done, rate and ETA: {lines:?}"));
    assert!(!bar.contains("whisper"), "{bar}");
    assert_eq!(bar_seen("--quiet"), Vec::<String>::new());
    // Off a terminal (stderr a pipe): no bar either.
    let out = record(dir.path(), &["--command", &fake("good")]);
    assert_code(&out, 0);
    assert!(!stderr(&out).contains("recording "), "{}", stderr(&out));
}

/// docs/contract.md §4.8: `--append-repeat MANIFEST` records one more repeat (from
/// another build of the same index) in the run's own format, depth and filters, and
/// rewrites the manifest's `results` with it, as one set; a failure changes nothing.
#[test]
fn append_repeat_adds_one_results_file_to_an_existing_run() {
    let dir = workspace();
    let first = record(
        dir.path(),
        &[
            "--command",
            &fake("good"),
            "--results-format",
            "trec",
            "--depth",
            "2",
            "--filter",
            "tenant=acme",
        ],
    );
    assert_code(&first, 0);
    let append = |extra: &[&str]| {
        let mut args = vec![
            "record",
            "--gold",
            "gold.toml",
            "--append-repeat",
            "runs/candidate.toml",
        ];
        args.extend_from_slice(extra);
        common::run(dir.path(), &args)
    };
    let out = append(&["--command", &fake("good")]);
    assert_code(&out, 0);
    let manifest = read(dir.path(), "runs/candidate.toml");
    assert!(
        manifest.contains(r#"results = ["candidate.trec", "candidate-2.trec"]"#),
        "{manifest}"
    );
    assert!(
        manifest.contains("[record]") && manifest.contains("tenant = \"acme\""),
        "{manifest}"
    );
    assert!(manifest.contains("index_version = \"1.0.0\""), "{manifest}");
    // The run's depth (2), not the flag's default.
    let second = read(dir.path(), "runs/candidate-2.trec");
    assert_eq!(
        second.lines().filter(|l| l.starts_with("Q-1 ")).count(),
        2,
        "{second}"
    );
    assert_private(dir.path(), &out);
    let args = [
        "compare",
        "--no-config",
        "--gold",
        "gold.toml",
        "runs/candidate.toml",
        "runs/candidate.toml",
        "--format",
        "json",
    ];
    let json = common::compare_json(dir.path(), &args, 0);
    assert_eq!(json.candidate.repeats, 2);
    // A failing repeat (exit 4) leaves the run as it was.
    let before = read(dir.path(), "runs/candidate.toml");
    assert_code(&append(&["--command", &fake("exit")]), 4);
    assert_eq!(read(dir.path(), "runs/candidate.toml"), before);
    assert!(!dir.path().join("runs/candidate-3.trec").exists());
    // Another index version is a usage error.
    let other = append(&["--command", &fake("good"), "--index-version", "2.0.0"]);
    assert_code(&other, 2);
    assert!(
        stderr(&other).contains("--index-version 2.0.0: runs/candidate.toml records index_version 1.0.0; --append-repeat adds a repeat of the same index version"),
        "{}",
        stderr(&other)
    );
    // Another depth is a usage error too (it was ignored); the run's own is fine.
    let other = append(&["--command", &fake("good"), "--depth", "5"]);
    common::assert_invalid(
        &other,
        &[
            "--depth 5: runs/candidate.toml records depth 2; --append-repeat adds a repeat at the run's own depth (leave --depth out)",
        ],
    );
    assert_eq!(read(dir.path(), "runs/candidate.toml"), before);
    let same = append(&["--command", &fake("good"), "--depth", "2"]);
    assert_code(&same, 0);
}
