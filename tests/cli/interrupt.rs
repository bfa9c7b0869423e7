//! Nothing lost on an interruption (docs/contract.md §12.7): `compare` with exports, stopped by SIGINT
//! or SIGTERM while it reads a run, exits 130 or 143 (src/interrupt.rs) and leaves no export
//! and no temporary `.ragdiff-*.tmp` file behind; its inputs are unchanged.
//!
//! The baseline's results are a TREC run that starts with two million lines of a query
//! the gold does not have (ignored, as trec_eval does), so ragdiff is in the middle of
//! reading when the signal arrives. (It was a FIFO held half written; docs/contract.md §12 makes
//! every input a regular file, so a FIFO is refused before it is read.)

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rstest::rstest;

use crate::common::{COMPARE_CASE_JSON, Change, with, write_generated};

/// `compare` with every export into `out/`, as both the interrupted and the
/// uninterrupted run use it.
fn compare_with_exports() -> Vec<&'static str> {
    let exports = [
        "--export-json",
        "out/x.json",
        "--export-csv",
        "out/x.csv",
        "--export-markdown",
        "out/x.md",
    ];
    with(&COMPARE_CASE_JSON, &exports)
}

/// Whether process `pid` has `path` open (Linux: /proc/PID/fd).
fn has_open(pid: u32, path: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    entries
        .flatten()
        .any(|e| std::fs::read_link(e.path()).is_ok_and(|target| target == path))
}

/// Every file in `dir` (not recursive), by name.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("a folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[rstest]
#[case::sigint("-INT", 130)]
#[case::sigterm("-TERM", 143)]
fn an_interrupted_compare_leaves_no_export_and_no_temporary_file(
    #[case] signal: &str,
    #[case] expected: i32,
) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path().canonicalize().expect("a real path");
    let queries: Vec<(String, Change)> = (0..50)
        .map(|i| {
            let c = [Change::Unchanged, Change::NewlyFailed, Change::Improved][i % 3];
            (format!("Q-{i}"), c)
        })
        .collect();
    write_generated(&root, &queries);
    // The baseline's results become a long TREC run: filler first, then its rows.
    let rows = std::fs::read_to_string(root.join("base.csv")).expect("generated");
    let mut trec = String::with_capacity(70 << 20);
    for i in 0..2_000_000 {
        let _ = writeln!(trec, "filler Q0 d{i} {} 1.0 t", i + 1);
    }
    for row in rows.lines().skip(1) {
        let (id, docs) = row.split_once(',').expect("id,docs");
        for (rank, doc) in docs.split(';').enumerate() {
            let _ = writeln!(trec, "{id} Q0 {doc} {} {} t", rank + 1, 10 - rank);
        }
    }
    let long_run: PathBuf = root.join("base.trec");
    std::fs::write(&long_run, trec).expect("the long run");
    std::fs::write(
        root.join("base.toml"),
        "index_version = \"1.0.0\"\ncorpus = \"gen\"\ndepth = 5\nresults = \"base.trec\"\n",
    )
    .expect("base.toml");
    let out = root.join("out");
    std::fs::create_dir(&out).expect("out/");
    let inputs_before: Vec<(String, Vec<u8>)> = ["gold.csv", "gold.toml", "cand.csv"]
        .iter()
        .map(|n| (n.to_string(), std::fs::read(root.join(n)).expect("input")))
        .collect();

    let mut child = Command::new(env!("CARGO_BIN_EXE_ragdiff"))
        .current_dir(&root)
        .args(compare_with_exports())
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ragdiff starts");
    let pid = child.id();

    // Wait until ragdiff reads the long run (it has installed its handler by then).
    let start = Instant::now();
    while !has_open(pid, &long_run) {
        if let Some(status) = child.try_wait().expect("waitable") {
            let output = child.wait_with_output().expect("output");
            panic!(
                "ragdiff ended before reading the long run: {status}\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "ragdiff never opened the long run"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().expect("waitable").is_none(),
        "ragdiff must still be reading"
    );
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill failed");

    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("ragdiff did not stop after {signal}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let output = child.wait_with_output().expect("output");
    assert_eq!(
        status.code(),
        Some(expected),
        "exit status after {signal}: {status}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stdout.is_empty(), "no report on stdout");
    assert!(names(&out).is_empty(), "left in out/: {:?}", names(&out));
    let stray: Vec<String> = names(&root)
        .into_iter()
        .filter(|n| n.starts_with(".ragdiff-"))
        .collect();
    assert!(stray.is_empty(), "temporary files left: {stray:?}");
    for (name, bytes) in inputs_before {
        assert_eq!(
            std::fs::read(root.join(&name)).expect("input"),
            bytes,
            "{name} changed"
        );
    }
}

/// The same compare, given the whole run, writes every export and leaves no
/// temporary file: the interrupted case above is not passing only because nothing is
/// ever written.
#[test]
fn the_same_compare_uninterrupted_writes_every_export() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path();
    let queries: Vec<(String, Change)> = (0..50)
        .map(|i| {
            let c = [Change::Unchanged, Change::NewlyFailed, Change::Improved][i % 3];
            (format!("Q-{i}"), c)
        })
        .collect();
    write_generated(root, &queries);
    std::fs::create_dir(root.join("out")).expect("out/");
    let out = crate::common::run(root, &compare_with_exports());
    crate::common::assert_code(&out, 1);
    assert_eq!(names(&root.join("out")), ["x.csv", "x.json", "x.md"]);
    assert!(
        !names(root).iter().any(|n| n.starts_with(".ragdiff-")),
        "{:?}",
        names(root)
    );
}
