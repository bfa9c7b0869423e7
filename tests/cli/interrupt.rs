//! Nothing lost on an interruption (issue 6): `compare` with exports, stopped by SIGINT
//! or SIGTERM while it reads a run, exits 130 or 143 (src/interrupt.rs) and leaves no export
//! and no temporary `.ragdiff-*.tmp` file behind; its inputs are unchanged.
//!
//! The baseline's results are a FIFO that this test holds open and half written, so
//! ragdiff is in the middle of reading when the signal arrives.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rstest::rstest;

use crate::common::{Change, write_generated};

/// `compare` with every export into `out/`, as both the interrupted and the
/// uninterrupted run use it.
const COMPARE_WITH_EXPORTS: [&str; 13] = [
    "compare",
    "--gold",
    "gold.toml",
    "base.toml",
    "cand.toml",
    "--format",
    "json",
    "--export-json",
    "out/x.json",
    "--export-csv",
    "out/x.csv",
    "--export-markdown",
    "out/x.md",
];

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
    // The baseline's results become a FIFO; its rows are written below, in part.
    let rows = std::fs::read_to_string(root.join("base.csv")).expect("generated");
    let fifo: PathBuf = root.join("base.csv");
    std::fs::remove_file(&fifo).expect("removed");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo failed");
    let out = root.join("out");
    std::fs::create_dir(&out).expect("out/");
    let inputs_before: Vec<(String, Vec<u8>)> = ["gold.csv", "gold.toml", "cand.csv"]
        .iter()
        .map(|n| (n.to_string(), std::fs::read(root.join(n)).expect("input")))
        .collect();

    // Opened read-write, the FIFO neither blocks this test nor reaches end of file
    // while the test holds it (Linux).
    let mut writer = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .expect("the FIFO opens");
    let half = rows.len() / 2;
    writer
        .write_all(&rows.as_bytes()[..half])
        .expect("half the rows");

    let mut child = Command::new(env!("CARGO_BIN_EXE_ragdiff"))
        .current_dir(&root)
        .args(COMPARE_WITH_EXPORTS)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ragdiff starts");
    let pid = child.id();

    // Wait until ragdiff reads the FIFO (it has installed its handler by then).
    let start = Instant::now();
    while !has_open(pid, &fifo) {
        if let Some(status) = child.try_wait().expect("waitable") {
            let output = child.wait_with_output().expect("output");
            panic!(
                "ragdiff ended before reading the FIFO: {status}\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "ragdiff never opened the FIFO"
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
    drop(writer);
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
    let out = crate::common::run(root, &COMPARE_WITH_EXPORTS);
    crate::common::assert_code(&out, 1);
    assert_eq!(names(&root.join("out")), ["x.csv", "x.json", "x.md"]);
    assert!(
        !names(root).iter().any(|n| n.starts_with(".ragdiff-")),
        "{:?}",
        names(root)
    );
}
