//! The input readers (docs/contract.md §12): only regular files, a 1 MiB line cap, reading stops at
//! the problem cap (item 2); linear parsing of hostile manifests and gold rows (item
//! 5); memory bounded by depth for one endless TREC query (item 6); signed zero
//! (item 9); unterminated quotes, CR-only line ends, an invalid index_version in the
//! one-file layout, bad UTF-8 in ignored fields and sha256 prefixes (item 13).
//!
//! The big inputs are generated into temporary folders; the fixtures live in
//! tests/fixtures/input_limits/. Timeouts only catch hangs and quadratic code (which
//! would run for minutes on these inputs); nothing is a timed assertion.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use rstest::rstest;

use crate::common::{
    EvalJson, assert_close, assert_code, assert_invalid, assert_line, assert_stderr, demo_copy,
    fixture, invalid_input, ragdiff, ragdiff_snapshot, render, slug, stderr, temp_copy,
};

/// Generous: a hang or quadratic code is caught, a slow CI machine is not.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Run `ragdiff ARGS` from `dir`, killed after [`TIMEOUT`].
fn run_limited(dir: &Path, args: &[&str]) -> Output {
    ragdiff(dir)
        .args(args)
        .timeout(TIMEOUT)
        .output()
        .expect("ragdiff runs")
}

/// A copy of the base fixture (gold.toml over gold.csv, run.toml over run.trec,
/// depth 5) to change.
fn base() -> tempfile::TempDir {
    temp_copy(&fixture("input_limits/base"))
}

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) {
    std::fs::write(dir.join(name), text).expect("an input is written");
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Which special file stands in for an input.
#[derive(Debug, Clone, Copy)]
enum Special {
    DevZero,
    Fifo,
    Directory,
}

impl Special {
    /// Make it as `name` in `dir` (a symbolic link for /dev/zero); the path to name.
    fn make(self, dir: &Path, name: &str) {
        let path = dir.join(name);
        match self {
            Special::DevZero => {
                std::os::unix::fs::symlink("/dev/zero", &path).expect("a symlink to /dev/zero")
            }
            Special::Fifo => mkfifo(&path),
            Special::Directory => std::fs::create_dir(&path).expect("a folder"),
        }
    }

    fn message(self, what: &str, path: &str) -> String {
        match self {
            Special::Directory => format!("{what} {path} is a directory, not a file"),
            _ => format!(
                "{what} {path} is not a regular file (a device, FIFO or socket); ragdiff reads regular files only (a symbolic link to one is fine)"
            ),
        }
    }
}

/// Item 2: run results, gold data, a manifest, a bare run file and an allow-list that
/// are /dev/zero (through a link), a FIFO or a folder: exit 2 naming the file, never
/// a hang (the FIFO has no writer) or an 8 GiB allocation.
#[rstest]
#[case::dev_zero(Special::DevZero)]
#[case::fifo(Special::Fifo)]
#[case::directory(Special::Directory)]
fn special_files_are_refused(#[case] special: Special) {
    // run results, then gold data, named by a manifest
    for (file, manifest, text, what) in [
        (
            "special.trec",
            "run.toml",
            "index_version = \"1.0.0\"\ncorpus = \"c\"\ndepth = 5\nresults = \"special.trec\"\n",
            "run-results",
        ),
        (
            "special.csv",
            "gold.toml",
            "name = \"hostile\"\nversion = \"1.0.0\"\ncorpus = \"c\"\ndata = \"special.csv\"\n",
            "gold-data",
        ),
    ] {
        let dir = base();
        special.make(dir.path(), file);
        write(dir.path(), manifest, text);
        let out = run_limited(dir.path(), &["validate", "--gold", "gold.toml", "run.toml"]);
        ragdiff_snapshot!(
            format!("special_files_are_refused-{special:?}-{what}"),
            &out
        );
    }

    // bare files: a run, a gold, a one-file candidate, a manifest
    let dir = base();
    special.make(dir.path(), "special.csv");
    special.make(dir.path(), "special.toml");
    for (args, what, path) in [
        (
            &["eval", "gold.csv", "special.csv"][..],
            "run results",
            "special.csv",
        ),
        (
            &["eval", "special.csv", "run.trec"][..],
            "gold data",
            "special.csv",
        ),
        (&["eval", "special.csv"][..], "run results", "special.csv"),
        (
            &["eval", "--gold", "special.toml", "run.toml"][..],
            "manifest",
            "special.toml",
        ),
    ] {
        let out = run_limited(dir.path(), args);
        assert_code(&out, 2);
        assert_line(
            &stderr(&out),
            &format!("{path}: {}", special.message(what, path)),
        );
    }

    // the allow-list of compare
    let dir = base();
    special.make(dir.path(), "allow.csv");
    let out = run_limited(
        dir.path(),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "run.toml",
            "run.toml",
            "--allow-failed-file",
            "allow.csv",
        ],
    );
    ragdiff_snapshot!(
        format!("special_files_are_refused-{special:?}-allow-list"),
        &out
    );
}

/// Item 2: a symbolic link to a regular file is read like the file.
#[test]
fn a_symlink_to_a_regular_file_is_read() {
    let dir = base();
    std::fs::rename(dir.path().join("run.trec"), dir.path().join("real.trec")).expect("moved");
    std::os::unix::fs::symlink("real.trec", dir.path().join("run.trec")).expect("a symlink");
    let out = run_limited(dir.path(), &["validate", "--gold", "gold.toml", "run.toml"]);
    assert_code(&out, 0);
}

const LINE_TOO_LONG: &str = "line longer than 1 MiB (the limit for a line or a CSV row); reading stopped here: is this the right file?";

/// Item 2: a 2 GB sparse file (no line end, no disk used) as TREC results, as gold
/// CSV and as qrels: exit 2 at the line cap, read no further than about 1 MiB.
#[test]
fn a_sparse_file_stops_at_the_line_cap() {
    let dir = base();
    let sparse = std::fs::File::create(dir.path().join("sparse")).expect("created");
    sparse.set_len(2_000_000_000).expect("a sparse file");
    for name in ["sparse.trec", "sparse.csv", "sparse.txt"] {
        std::os::unix::fs::symlink("sparse", dir.path().join(name)).expect("a symlink");
    }
    for (args, file) in [
        (
            &["validate", "--gold", "gold.csv", "sparse.trec"][..],
            "sparse.trec",
        ),
        (
            &["validate", "--gold", "gold.csv", "sparse.csv"][..],
            "sparse.csv",
        ),
        (
            &["validate", "--gold", "sparse.csv", "run.trec"][..],
            "sparse.csv",
        ),
        (
            &["validate", "--gold", "sparse.txt", "run.trec"][..],
            "sparse.txt",
        ),
    ] {
        let out = run_limited(dir.path(), args);
        assert_code(&out, 2);
        assert_line(&stderr(&out), &format!("{file}:1: {LINE_TOO_LONG}"));
    }
}

/// Item 2: a line just over the cap after good lines is named with its line number;
/// one just under it is read.
#[test]
fn the_line_cap_names_the_line() {
    let dir = base();
    let long = "D".repeat((1 << 20) - 20);
    let ok = format!("Q-1 Q0 D-1 1 2.0 t\nQ-2 Q0 {long} 1 3.0 t\n");
    assert!(ok.lines().all(|l| l.len() <= 1 << 20));
    write(dir.path(), "run.trec", &ok);
    assert_code(
        &run_limited(dir.path(), &["validate", "--gold", "gold.toml", "run.toml"]),
        0,
    );

    let over = format!("Q-1 Q0 D-1 1 2.0 t\nQ-2 Q0 {long}{long} 1 3.0 t\n");
    write(dir.path(), "run.trec", &over);
    let out = run_limited(dir.path(), &["validate", "--gold", "gold.toml", "run.toml"]);
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    warning: gold gold.toml is not frozen: run `ragdiff freeze gold.toml` so its labels cannot change unseen
    error: invalid input: 1 problem
      run.trec:2: line longer than 1 MiB (the limit for a line or a CSV row); reading stopped here: is this the right file?
    ");
}

/// Item 2: a file of broken lines is read up to the problem cap (200 kept), then
/// reading stops and says where, for TREC runs, qrels and CSV.
#[test]
fn reading_stops_at_the_problem_cap() {
    let dir = base();
    write(dir.path(), "run.trec", "broken\n".repeat(100_000));
    write(dir.path(), "qrels.txt", "broken\n".repeat(100_000));
    let mut csv = String::from("id,retrieved_doc_ids\n");
    csv.push_str(&"a,b,c\n".repeat(100_000));
    write(dir.path(), "run.csv", &csv);
    for (args, file, line) in [
        (
            &["validate", "--gold", "gold.toml", "run.toml"][..],
            "run.trec",
            201,
        ),
        (
            &["validate", "--gold", "qrels.txt", "run.trec"][..],
            "qrels.txt",
            201,
        ),
        (
            &["validate", "--gold", "gold.csv", "run.csv"][..],
            "run.csv",
            202,
        ),
    ] {
        let out = run_limited(dir.path(), args);
        assert_code(&out, 2);
        let err = stderr(&out);
        assert_line(
            &err,
            &format!("{file}: reading stopped at line {line} after 200 problems"),
        );
        assert!(!err.contains("more problems not shown"), "{}", render(&out));
    }
}

/// Item 5: a run manifest with 100,000 unknown keys is linear (41 s in release and
/// minutes in a debug build when each problem counted lines from the start).
#[test]
fn many_unknown_manifest_keys_are_linear() {
    let dir = base();
    let mut manifest = String::from(
        "index_version = \"1.0.0\"\ncorpus = \"c\"\ndepth = 5\nresults = \"run.trec\"\n",
    );
    for i in 0..100_000 {
        let _ = writeln!(manifest, "unknown_{i} = 1");
    }
    write(dir.path(), "run.toml", &manifest);
    let out = run_limited(dir.path(), &["validate", "--gold", "gold.toml", "run.toml"]);
    assert_code(&out, 2);
    let err = stderr(&out);
    assert_line(
        &err,
        "run.toml:5: unknown key `unknown_0`; known keys: index_version, corpus, depth, results, format, doc_map, approximate, filters, errored, latency, record, meta, columns",
    );
    // the 200th kept problem has the right line: the line index is exact
    assert_line(
        &err,
        "run.toml:204: unknown key `unknown_199`; known keys: index_version, corpus, depth, results, format, doc_map, approximate, filters, errored, latency, record, meta, columns",
    );
    assert_line(&err, "run.toml: … and 99800 more problems not shown");
}

/// Item 5: one gold CSV row of 100,000 expected ids (and a run row of 50,000 ids
/// listed twice each) is linear: duplicates are found with a set, not a scan.
#[test]
fn one_huge_gold_row_is_linear() {
    let dir = base();
    let ids: Vec<String> = (0..100_000).map(|i| format!("d{i}")).collect();
    write(
        dir.path(),
        "gold.csv",
        format!("id,expected_doc_ids\nQ-1,{}\nQ-2,D-2\n", ids.join(";")),
    );
    write(
        dir.path(),
        "run.csv",
        "id,retrieved_doc_ids\nQ-1,d7;d3\nQ-2,D-2\n",
    );
    let out = run_limited(
        dir.path(),
        &["eval", "gold.csv", "run.csv", "--format", "json"],
    );
    assert_code(&out, 0);
    let json: EvalJson = serde_json::from_slice(&out.stdout).expect("eval JSON");
    assert_close(json.row("Q-1").recall, 2.0 / 100_000.0, "recall of Q-1");

    // duplicates still found, each once: 70,000 ids twice (a row under 1 MiB)
    let ids = ids[..70_000].join(";");
    let row = format!("Q-1,{ids};{ids}");
    assert!(row.len() < 1 << 20);
    write(
        dir.path(),
        "gold.csv",
        format!("id,expected_doc_ids\n{row}\nQ-2,D-2\n"),
    );
    let out = run_limited(dir.path(), &["validate", "--gold", "gold.csv", "run.csv"]);
    assert_code(&out, 2);
    let err = stderr(&out);
    assert_line(&err, "gold.csv:2: query Q-1 lists expected doc d0 twice");
    assert_line(&err, "gold.csv: … and 69800 more problems not shown");

    let half: Vec<String> = (0..50_000).map(|i| format!("d{i};d{i}")).collect();
    write(
        dir.path(),
        "run.csv",
        format!("id,retrieved_doc_ids\nQ-1,{}\nQ-2,D-2\n", half.join(";")),
    );
    write(
        dir.path(),
        "gold.csv",
        "id,expected_doc_ids\nQ-1,d1\nQ-2,D-2\n",
    );
    let out = run_limited(dir.path(), &["validate", "--gold", "gold.csv", "run.csv"]);
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "run.csv:2: query Q-1 lists doc d0 twice: a duplicate takes the place of another result",
    );
}

/// A TREC run of `lines` lines for query `qid`, scores falling.
fn trec_lines(out: &mut String, qid: &str, lines: usize) {
    for i in 0..lines {
        let _ = writeln!(out, "{qid} Q0 doc-{i} {} {} t", i + 1, 1e6 - i as f64);
    }
}

fn run_meta(depth: u32) -> ragdiff::model::RunMeta {
    ragdiff::model::RunMeta {
        index_version: None,
        team_meta: Default::default(),
        corpus: None,
        depth,
        depth_declared: true,
        filters: Default::default(),
        results_display: "run.trec".into(),
        results: "run.trec".into(),
        format: ragdiff::model::DataFormat::Trec,
        long: None,
        manifest: None,
        more_results: Vec::new(),
        doc_map: None,
        approximate: false,
        cut: None,
        recording: Default::default(),
    }
}

/// Item 6: one TREC query of 300,000 lines with depth 5 is reported (with its true
/// length and the first line past depth) while no query ever holds more than depth
/// lines: grouped, interleaved (read again with every query kept) and for a query
/// the gold does not have.
#[test]
fn a_query_never_holds_more_than_depth_lines() {
    use ragdiff::load::run::{ReadOutcome, RunReader, Source};
    let gold = ragdiff::fuzz::small_gold(); // queries 1, 2, 3, Q-1
    let mut grouped = String::new();
    trec_lines(&mut grouped, "1", 300_000);
    trec_lines(&mut grouped, "2", 3);
    trec_lines(&mut grouped, "not-in-gold", 300_000);
    let mut interleaved = String::new();
    trec_lines(&mut interleaved, "2", 3);
    trec_lines(&mut interleaved, "1", 300_000);
    trec_lines(&mut interleaved, "2", 1);
    for (what, text) in [("grouped", &grouped), ("interleaved", &interleaved)] {
        let ReadOutcome { diag, stats, .. } =
            RunReader::new(&gold).read(Source::bytes(run_meta(5), text.as_bytes()));
        assert!(
            (1..=5).contains(&stats.max_held),
            "{what}: a query held {} lines",
            stats.max_held
        );
        let messages: Vec<String> = diag.problems.iter().map(ToString::to_string).collect();
        let first_past_depth = if what == "grouped" { 6 } else { 9 };
        assert!(
            messages.contains(&format!(
                "run.trec:{first_past_depth}: query 1 returned 300000 docs, more than the run's depth 5; a list may be shorter than depth, never longer: fix the export or the manifest's depth"
            )),
            "{what}: {messages:#?}"
        );
    }
    // the count means something: within depth, every line is held
    let mut within = String::new();
    trec_lines(&mut within, "1", 5);
    // query 2 returns its judged doc: ids that never meet the gold are refused
    within.push_str("2 Q0 c 1 1 t\n");
    let ReadOutcome { diag, stats, .. } =
        RunReader::new(&gold).read(Source::bytes(run_meta(5), within.as_bytes()));
    assert!(diag.problems.is_empty(), "{:?}", diag.problems);
    assert_eq!(stats.max_held, 5);
}

/// Item 9: 0.0 and -0.0 are one score, tie broken by doc id descending as trec_eval
/// does: b before a whatever the signs (Q-1: a 0.0, b -0.0; Q-2 the other way round;
/// c 1.0, a 0.0, b -0.0), so the relevant b is first in, second in
///
#[test]
fn signed_zeros_rank_as_equal_scores() {
    let dir = fixture("input_limits/signed-zero");
    let out = run_limited(
        &dir,
        &[
            "eval",
            "qrels.txt",
            "run.trec",
            "--k",
            "3",
            "--format",
            "json",
        ],
    );
    let json: EvalJson = serde_json::from_slice(&out.stdout).expect("eval JSON");
    assert_close(json.row("Q-1").rr, 1.0, "RR of Q-1");
    assert_close(json.row("Q-2").rr, 1.0, "RR of Q-2");
    assert_close(json.row("Q-3").rr, 0.5, "RR of Q-3");
    // hold only zeros: all equal, and said so
    ragdiff_snapshot!(&out);
}

/// Item 13: an index_version cell that is not a version in the one-file layout is an
/// input error (it was dropped silently).
#[test]
fn one_file_layout_refuses_a_bad_index_version() {
    let out = run_limited(
        &fixture("input_limits/onefile-bad-version"),
        &["eval", "cases.csv"],
    );
    assert_invalid(
        &out,
        &["cases.csv:3: index_version has 130 characters, more than 128"],
    );
}

/// Item 5, docs/contract.md §2.2: a manifest string that reports show (a corpus, a
/// filter's key or value, a `[meta]` key, an unknown key, the gold's name and
/// version) of 70,000 characters is an input error at its line that does not repeat
/// it (the table, the HTML report and the refusal printed it whole), exit 2.
#[test]
fn a_huge_shown_manifest_string_is_refused() {
    let huge = "A".repeat(70_000);
    let cases = [
        (
            "runs/candidate.toml",
            "corpus = \"demo-questions\"",
            format!("corpus = \"{huge}\""),
            "runs/candidate.toml:3: corpus has 70000 characters, more than 128",
        ),
        (
            "runs/candidate.toml",
            "\"public\"",
            format!("\"{huge}\""),
            "runs/candidate.toml:8: filters.access has 70000 characters, more than 128",
        ),
        (
            "runs/candidate.toml",
            "access =",
            format!("{huge} ="),
            "runs/candidate.toml:8: a [filters] key has 70000 characters, more than 128",
        ),
        (
            "runs/candidate.toml",
            "depth = 5",
            format!("depth = 5\n{huge} = 1"),
            "runs/candidate.toml:5: an unknown key has 70000 characters, more than 128",
        ),
        (
            "runs/candidate.toml",
            "[filters]",
            format!("[meta]\n{huge} = [1]\n[filters]"),
            "runs/candidate.toml:8: a [meta] key has 70000 characters, more than 128",
        ),
        (
            "gold/demo.toml",
            "name = \"demo\"",
            format!("name = \"{huge}\""),
            "gold/demo.toml:4: name has 70000 characters, more than 128",
        ),
        (
            "gold/demo.toml",
            "version = \"1.1.0\"\nfrozen_at",
            format!("version = \"1.1.0-{huge}\"\nfrozen_at"),
            "gold/demo.toml:5: version has 70006 characters, more than 128",
        ),
    ];
    for (file, from, to, problem) in cases {
        let dir = demo_copy();
        let path = dir.path().join(file);
        let text = std::fs::read_to_string(&path).expect("the demo manifest");
        assert!(text.contains(from), "{file} holds {from}");
        write(dir.path(), file, text.replacen(from, &to, 1));
        let out = run_limited(dir.path(), &["compare", "--format", "html"]);
        assert_invalid(&out, &[problem]);
    }
}

/// Item 13: a quote that never closes is one problem at its line, not a control
/// character in every id it swallowed (nor "missing" queries it swallowed).
#[test]
fn an_unterminated_quote_is_one_problem() {
    // What validate says of a bare gold CSV and an unterminated quote at `at`.
    let unterminated = |at: &str| {
        let problem = format!(
            "{at}: unterminated quote: the quoted cell that starts on this line never \
             closes, so it would take in the rest of the file; close the quote"
        );
        format!(
            "warning: gold gold.csv is a bare data file, so it is not frozen: give it a \
             manifest and run `ragdiff freeze` on it\n{}",
            invalid_input(&[problem])
        )
    };
    let out = run_limited(
        &fixture("input_limits/unterminated-quote"),
        &["validate", "--gold", "gold.csv", "run.csv"],
    );
    assert_stderr(&out, 2, &unterminated("run.csv:3"));
    // a gold with one too
    let dir = tempfile::tempdir().expect("a temporary folder");
    write(
        dir.path(),
        "gold.csv",
        "id,expected_doc_ids\nQ-1,D-1\nQ-2,\"D-2\nQ-3,D-3\n",
    );
    write(dir.path(), "run.csv", "id,retrieved_doc_ids\nQ-1,D-1\n");
    let out = run_limited(dir.path(), &["validate", "--gold", "gold.csv", "run.csv"]);
    assert_stderr(&out, 2, &unterminated("gold.csv:3"));
}

/// Item 13: CR-only line ends (old Mac files) are an input error for a TREC run,
/// qrels and a CSV gold, not one long line.
#[rstest]
#[case::trec_run(&["validate", "--gold", "../base/gold.csv", "run.trec"][..])]
#[case::qrels(&["validate", "--gold", "qrels.txt", "../base/run.trec"][..])]
#[case::csv_gold(&["validate", "--gold", "gold.csv", "../base/run.trec"][..])]
fn cr_only_line_ends_are_an_input_error(#[case] args: &[&str]) {
    let out = run_limited(&fixture("input_limits/cr-only"), args);
    let name = format!(
        "cr_only_line_ends_are_an_input_error-{}",
        slug(&args.join(" "))
    );
    ragdiff_snapshot!(name, &out);
}

/// Item 13: bad UTF-8 only in fields ragdiff ignores (a TREC tag, the Q0 column, an
/// extra column, a `#` comment, an extra CSV column) is a warning; the numbers are
/// the run's.
#[test]
fn bad_utf8_in_ignored_fields_is_a_warning() {
    let dir = fixture("input_limits/ignored-bad-utf8");
    let out = run_limited(&dir, &["eval", "qrels.txt", "run.trec", "--format", "json"]);
    ragdiff_snapshot!(&out);
    let json: EvalJson = serde_json::from_slice(&out.stdout).expect("eval JSON");
    assert_close(json.row("Q-1").rr, 1.0, "RR of Q-1");
    assert_close(json.row("Q-2").rr, 1.0, "RR of Q-2");

    let out = run_limited(&dir, &["validate", "--gold", "gold.csv", "run.csv"]);
    ragdiff_snapshot!(&out, @"
    success: true
    exit_code: 0
    ----- stdout -----
    ok: gold.csv and 1 run are valid

    ----- stderr -----
    warning: gold gold.csv is a bare data file, so it is not frozen: give it a manifest and run `ragdiff freeze` on it
    warning: run.csv:1: ignoring extra column `notes`
    warning: run.csv: 1 row has bytes that are not UTF-8 in columns ragdiff ignores; the rows are read, but save the file as UTF-8
    ");

    // a doc id with a bad byte is still an input error
    let dir = tempfile::tempdir().expect("a temporary folder");
    write(dir.path(), "qrels.txt", "Q-1 0 D-1 1\n");
    write(dir.path(), "run.trec", b"Q-1 Q0 D-\xff 1 2.0 t\n");
    let out = run_limited(dir.path(), &["validate", "--gold", "qrels.txt", "run.trec"]);
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    warning: gold qrels.txt is a bare data file, so it is not frozen: give it a manifest and run `ragdiff freeze` on it
    error: invalid input: 1 problem
      run.trec:1: the line is not valid UTF-8; save the file as UTF-8
    ");
}

/// Item 13: a gold manifest naming another file (`/etc/passwd`) with a wrong sha256
/// shows only 12-character prefixes, never the whole hash of that file.
#[test]
fn a_changed_gold_shows_sha256_prefixes_only() {
    let passwd = Path::new("/etc/passwd");
    let bytes = std::fs::read(passwd).expect("/etc/passwd is readable");
    let actual = ragdiff::load::gold::sha256_hex(&bytes);
    let dir = base();
    write(
        dir.path(),
        "gold.toml",
        format!(
            "name = \"hostile\"\nversion = \"1.0.0\"\ncorpus = \"c\"\ndata = \"/etc/passwd\"\nsha256 = \"{}\"\nfrozen_version = \"1.0.0\"\n",
            "0".repeat(64)
        ),
    );
    let out = run_limited(dir.path(), &["validate", "--gold", "gold.toml", "run.toml"]);
    let all = render(&out);
    assert!(!all.contains(&actual), "the whole sha256 is shown:\n{all}");
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    warning: gold.toml: data points outside the manifest's folder: /etc/passwd
    warning: gold gold.toml was frozen before ragdiff recorded k, min_grade and tags (frozen_k, frozen_min_grade, frozen_tags), so they can change unseen: run `ragdiff freeze gold.toml` to record them (no version raise needed)
    error: invalid input: 1 problem
      gold.toml: gold changed since it was frozen: sha256 is 98e7cf3d23ff…, the manifest records 000000000000…; restore the data or raise `version` and run `ragdiff freeze`
    ");
}

/// Every problem, warning (on stderr) and clap error line is at most 2,000 columns, ending in `…`
/// when cut (docs/contract.md §11), whatever value it quotes: a hostile policy or
/// command line of 100 KB values gave ~100 KB of stderr per value.
#[test]
fn a_message_quoting_a_huge_value_is_bounded() {
    let dir = demo_copy();
    let long = "x".repeat(100_000);
    let policy = format!(
        "[gate]\ninconclusive = \"{long}\"\nsuspects = \"{long}\"\nblock = \"{long}\"\n[compare]\nsegment_correction = \"{long}\"\n"
    );
    std::fs::write(dir.path().join("big.toml"), policy).expect("written");
    let runs: [&[&str]; 4] = [
        &["compare", "--config", "big.toml"],
        &["compare", "--no-config", "--allow-failed", &long],
        &["compare", "--no-config", "--changed-since", &long],
        &["compare", "--no-config", "--format", &long],
    ];
    for args in runs {
        let out = run_limited(dir.path(), args);
        let err = stderr(&out);
        assert!(
            err.len() < 12_000,
            "{:?}: {} bytes of stderr",
            &args[..2],
            err.len()
        );
        let cut: Vec<&str> = err.lines().filter(|l| l.contains("xxxx")).collect();
        assert!(!cut.is_empty(), "{:?}: {} bytes", &args[..2], err.len());
        for line in cut {
            // the message after its indent or `warning: ` / `error: ` prefix
            let line = line.trim_start();
            let message = ["warning: ", "error: "]
                .iter()
                .find_map(|p| line.strip_prefix(p))
                .unwrap_or(line);
            assert!(
                message.chars().count() <= 2_000 && message.ends_with('…'),
                "{:?}: a message of {} characters",
                &args[..2],
                message.chars().count()
            );
        }
    }
}
