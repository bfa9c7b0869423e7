//! Outputs (docs/contract.md §12): exports only over regular files, a closed stderr, interruptions
//! at fixed steps (src/interrupt.rs's test hook), file modes, the same results read
//! twice, and freeze's date and the commands' exit-code help.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rstest::rstest;

use crate::common::{
    Change, GENERATED, assert_code, assert_invalid, compare_json, crate_dir, render, run,
    say_skipped, stderr, stdout, write_generated,
};

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

/// A temporary copy of the demo (`gold/`, `runs/`), so `ragdiff compare` runs with
/// its defaults from it.
fn demo_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for sub in ["gold", "runs"] {
        std::fs::create_dir(dir.path().join(sub)).expect("a folder");
        for entry in std::fs::read_dir(crate_dir().join(sub))
            .expect("the demo")
            .flatten()
        {
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                std::fs::copy(entry.path(), dir.path().join(sub).join(entry.file_name()))
                    .expect("copied");
            }
        }
    }
    dir
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

// ---------------------------------------------------------------------------------
// Item 3: exports replace regular files only

/// An export onto a FIFO, a link to the process's stdout or a device is refused with
/// exit 2 naming it, before anything is written: the other export is not made and the
/// thing in the way is still what it was.
#[rstest]
#[case::fifo("a FIFO")]
#[case::link_to_stdout("a symbolic link")]
#[case::device_node("a character device")]
fn an_export_over_a_non_regular_file_is_refused(#[case] kind: &str) {
    let dir = demo_copy();
    let target = dir.path().join("report.json");
    match kind {
        "a FIFO" => {
            let status = Command::new("mkfifo")
                .arg(&target)
                .status()
                .expect("mkfifo");
            assert!(status.success());
        }
        "a symbolic link" => {
            std::os::unix::fs::symlink("/proc/self/fd/1", &target).expect("a link");
        }
        _ => {
            // A node of its own (like /dev/full: char 1,7), so the system's is never
            // at stake; needs root, which CI has.
            let made = is_root()
                && Command::new("mknod")
                    .arg(&target)
                    .args(["c", "1", "7"])
                    .status()
                    .is_ok_and(|s| s.success());
            if !made {
                say_skipped("skipped: mknod needs root (a device export case)");
                return;
            }
        }
    }
    let out = run(
        dir.path(),
        &[
            "compare",
            "--export-markdown",
            "report.md",
            "--export-json",
            "report.json",
        ],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(&format!(
            "cannot write report.json: it is {kind}, not a regular file"
        )),
        "{}",
        render(&out)
    );
    assert!(stdout(&out).is_empty(), "{}", render(&out));
    let left: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| !matches!(n.as_str(), "gold" | "runs"))
        .collect();
    assert_eq!(left, ["report.json"], "nothing else written");
    let meta = std::fs::symlink_metadata(&target).expect("still there");
    let still = match kind {
        "a FIFO" => meta.file_type().is_fifo(),
        "a symbolic link" => meta.file_type().is_symlink(),
        _ => meta.file_type().is_char_device(),
    };
    assert!(still, "{kind} was replaced: {:?}", meta.file_type());
}

/// The system's /dev/full (root only, as in CI): refused, and still a device.
#[test]
fn an_export_over_dev_full_is_refused_and_dev_full_stays_a_device() {
    if !is_root() {
        say_skipped("skipped: /dev/full can only be replaced by root");
        return;
    }
    let dir = demo_copy();
    let out = run(dir.path(), &["compare", "--export-json", "/dev/full"]);
    assert_invalid(
        &out,
        &[
            "/dev/full: cannot write /dev/full: it is a character device, not a regular file; an export replaces only a regular file (`-` writes to stdout)",
        ],
    );
    let meta = std::fs::symlink_metadata("/dev/full").expect("/dev/full");
    assert!(meta.file_type().is_char_device(), "/dev/full was replaced");
}

/// `-` stays the way to write an export to stdout, and a regular file is replaced.
#[test]
fn dash_and_a_regular_file_are_still_written() {
    let dir = demo_copy();
    std::fs::write(dir.path().join("old.md"), "old").expect("written");
    let out = run(
        dir.path(),
        &[
            "compare",
            "--export-json",
            "-",
            "--export-markdown",
            "old.md",
        ],
    );
    assert_code(&out, 1);
    serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("JSON on stdout");
    let md = std::fs::read_to_string(dir.path().join("old.md")).expect("written");
    assert!(md.starts_with("## ragdiff"), "{md}");
}

// ---------------------------------------------------------------------------------
// Item 4: a closed stderr

/// Run `ragdiff ARGS` from `dir` with stderr a pipe whose read end was closed before
/// the start, so every write to stderr fails with EPIPE (Rust ignores SIGPIPE).
fn run_with_closed_stderr(dir: &Path, args: &[&str], actions: bool) -> std::process::Output {
    run_with_closed_stderr_env(dir, args, actions, &[])
}

/// [`run_with_closed_stderr`] with extra environment variables.
fn run_with_closed_stderr_env(
    dir: &Path,
    args: &[&str],
    actions: bool,
    env: &[(&str, &str)],
) -> std::process::Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ragdiff"));
    cmd.current_dir(dir)
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("CI")
        .env("NO_COLOR", "1")
        // The same date as `common::run`'s (the FAIL hint's `accepted_at`): a run
        // after midnight UTC must not differ from it by the clock alone.
        .env("SOURCE_DATE_EPOCH", "1796083200")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(writer);
    if actions {
        cmd.env("GITHUB_ACTIONS", "true");
    }
    cmd.envs(env.iter().copied());
    cmd.output().expect("ragdiff runs")
}

/// `RAGDIFF_TIMINGS`' lines to a closed stderr: the gate's exit code, not a panic's
/// (found in review).
#[test]
fn timings_to_a_closed_stderr_keep_the_exit_code() {
    let dir = demo_copy();
    let env = [("RAGDIFF_TIMINGS", "1")];
    let closed = run_with_closed_stderr_env(dir.path(), &["compare"], false, &env);
    assert_eq!(closed.status.code(), Some(1), "{:?}", closed.status);
}

/// Warnings, workflow commands, notes and errors to a closed stderr: the exit code
/// is the one an open stderr gets (the demo fails its gate: 1), never a panic's 101.
#[rstest]
#[case::warnings(&["compare"], false, 1)]
#[case::workflow_commands(&["compare"], true, 1)]
#[case::error(&["compare", "--gold", "missing.toml"], false, 2)]
#[case::refusal_note(&["compare", "runs/baseline.toml", "runs/other.toml"], false, 2)]
fn a_closed_stderr_never_changes_the_exit_code(
    #[case] args: &[&str],
    #[case] actions: bool,
    #[case] expected: i32,
) {
    let dir = demo_copy();
    // A run of another corpus whose results have a problem of their own makes
    // compare print a note (the refusal) before its error.
    std::fs::write(
        dir.path().join("runs/other.toml"),
        "index_version = \"2.4.0\"\ncorpus = \"other\"\ndepth = 5\nresults = \"bad.csv\"\n",
    )
    .expect("written");
    std::fs::write(dir.path().join("runs/bad.csv"), "x\n1\n").expect("written");
    let open = run(dir.path(), args);
    assert_code(&open, expected);
    assert!(!stderr(&open).is_empty(), "the case writes to stderr");
    let closed = run_with_closed_stderr(dir.path(), args, actions);
    assert_eq!(
        closed.status.code(),
        Some(expected),
        "{:?}\nstdout:\n{}",
        closed.status,
        String::from_utf8_lossy(&closed.stdout)
    );
    assert_eq!(closed.stdout, open.stdout, "stdout is unchanged");
}

// ---------------------------------------------------------------------------------
// Item 7: interruptions at fixed steps

const EXPORTS: [&str; 6] = [
    "--export-markdown",
    "out/x.md",
    "--export-json",
    "out/x.json",
    "--export-csv",
    "out/x.csv",
];

/// A generated comparison with an old set of exports in `out/`.
pub(crate) fn interrupt_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let queries: Vec<(String, Change)> = (0..30)
        .map(|i| {
            let c = [Change::Unchanged, Change::NewlyFailed, Change::Improved][i % 3];
            (format!("Q-{i}"), c)
        })
        .collect();
    write_generated(dir.path(), &queries);
    std::fs::create_dir(dir.path().join("out")).expect("out/");
    for name in ["x.md", "x.json", "x.csv"] {
        std::fs::write(dir.path().join("out").join(name), format!("old {name}\n")).expect("old");
    }
    dir
}

/// Start compare with every export, paused at `point`; send `signal` once it says it
/// paused; return its exit code and stderr.
pub(crate) fn interrupt_at(dir: &Path, point: &str, signal: &str) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ragdiff"))
        .current_dir(dir)
        .args(GENERATED)
        .args(["--format", "json"])
        .args(EXPORTS)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .env("RAGDIFF_TEST_PAUSE_AT", point)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ragdiff starts");
    let marker = format!("ragdiff: paused at {point}");
    let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
    let mut seen = Vec::new();
    let paused = loop {
        match lines.next() {
            Some(Ok(line)) if line == marker => break true,
            Some(Ok(line)) => seen.push(line),
            _ => break false,
        }
    };
    if !paused {
        let status = child.wait().expect("waited");
        panic!("ragdiff never paused at {point} ({status}); stderr:\n{seen:#?}");
    }
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill failed");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    seen.extend(rest);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("ragdiff did not stop after {signal} at {point}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.code(), seen.join("\n"))
}

/// The exports in `out/`, as text, and whether none of them is the old one.
fn export_set(dir: &Path) -> Vec<(String, String)> {
    names(&dir.join("out"))
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(dir.join("out").join(&n)).expect("readable");
            (n, text)
        })
        .collect()
}

pub(crate) fn temporaries(dir: &Path) -> Vec<String> {
    [dir.to_path_buf(), dir.join("out")]
        .iter()
        .flat_map(|d| names(d))
        .filter(|n| n.starts_with(".ragdiff-"))
        .collect()
}

/// A signal while a temporary file has just been created (where it used to exist
/// unregistered), or once every export is staged: no temporary file is left and the
/// old set stands, whole and unchanged. 130 after SIGINT, 143 after SIGTERM.
#[rstest]
#[case::created_sigterm("tmp-created", "-TERM", 143)]
#[case::created_sigint("tmp-created", "-INT", 130)]
#[case::staged_sigterm("exports-staged", "-TERM", 143)]
#[case::staged_sigint("exports-staged", "-INT", 130)]
#[cfg_attr(
    not(feature = "test-hooks"),
    ignore = "needs --features test-hooks: run by .ci/run"
)]
fn an_interruption_before_the_renames_keeps_the_old_set(
    #[case] point: &str,
    #[case] signal: &str,
    #[case] expected: i32,
) {
    let dir = interrupt_folder();
    let before = export_set(dir.path());
    let (code, err) = interrupt_at(dir.path(), point, signal);
    assert_eq!(code, Some(expected), "stderr:\n{err}");
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    assert_eq!(export_set(dir.path()), before, "the old set is untouched");
}

/// A signal between two renames takes effect once the whole set is in place: every
/// export is new, none is removed, no temporary file is left.
#[rstest]
#[case::sigterm("-TERM", 143)]
#[case::sigint("-INT", 130)]
#[cfg_attr(
    not(feature = "test-hooks"),
    ignore = "needs --features test-hooks: run by .ci/run"
)]
fn an_interruption_between_the_renames_completes_the_new_set(
    #[case] signal: &str,
    #[case] expected: i32,
) {
    let dir = interrupt_folder();
    let (code, err) = interrupt_at(dir.path(), "between-renames", signal);
    assert_eq!(code, Some(expected), "stderr:\n{err}");
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    let set = export_set(dir.path());
    let names: Vec<&str> = set.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["x.csv", "x.json", "x.md"]);
    for (name, text) in &set {
        assert!(!text.starts_with("old "), "{name} is still the old one");
    }
}

// ---------------------------------------------------------------------------------
// Item 10: file modes

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .expect("exists")
        .permissions()
        .mode()
        & 0o7777
}

/// `ragdiff ARGS` from `dir` under umask 022.
fn run_umask_022(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg("umask 022; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_ragdiff"))
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .expect("sh runs")
}

/// New exports get 0644 under umask 022 (not tempfile's 0600); a replaced export
/// keeps its mode.
#[test]
fn exports_get_the_umask_mode_or_keep_their_own() {
    let dir = demo_copy();
    let kept = dir.path().join("kept.md");
    std::fs::write(&kept, "old").expect("written");
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let out = run_umask_022(
        dir.path(),
        &[
            "compare",
            "--export-json",
            "new.json",
            "--export-csv",
            "new.csv",
            "--export-markdown",
            "kept.md",
        ],
    );
    assert_code(&out, 1);
    assert_eq!(mode(&dir.path().join("new.json")), 0o644);
    assert_eq!(mode(&dir.path().join("new.csv")), 0o644);
    assert_eq!(mode(&kept), 0o640);
    assert_ne!(std::fs::read_to_string(&kept).expect("readable"), "old");
}

/// freeze rewrites its manifest with the manifest's own mode.
#[test]
fn freeze_keeps_the_manifests_mode() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_generated(dir.path(), &[("Q-1".to_string(), Change::Unchanged)]);
    let manifest = dir.path().join("gold.toml");
    std::fs::set_permissions(&manifest, std::fs::Permissions::from_mode(0o664)).expect("chmod");
    let out = run_umask_022(dir.path(), &["freeze", "gold.toml"]);
    assert_code(&out, 0);
    assert!(
        std::fs::read_to_string(&manifest)
            .expect("readable")
            .contains("sha256 = ")
    );
    assert_eq!(mode(&manifest), 0o664);
}

/// freeze through a link to the manifest rewrites the manifest and keeps the link.
#[test]
fn freeze_through_a_link_rewrites_the_manifest_it_names() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_generated(dir.path(), &[("Q-1".to_string(), Change::Unchanged)]);
    std::os::unix::fs::symlink("gold.toml", dir.path().join("link.toml")).expect("a link");
    let out = run(dir.path(), &["freeze", "link.toml"]);
    assert_code(&out, 0);
    let link = std::fs::symlink_metadata(dir.path().join("link.toml")).expect("there");
    assert!(link.file_type().is_symlink(), "the link was replaced");
    let text = std::fs::read_to_string(dir.path().join("gold.toml")).expect("readable");
    assert!(text.contains("sha256 = "), "{text}");
}

// ---------------------------------------------------------------------------------
// Item 11: the same results read twice

const SAME: &str = "baseline and candidate read the same results";

/// The demo with the candidate's manifest set to `results` (and `version`).
fn demo_with_candidate(results: &str, version: &str) -> tempfile::TempDir {
    let dir = demo_copy();
    std::fs::write(
        dir.path().join("runs/candidate.toml"),
        format!(
            "index_version = \"{version}\"\ncorpus = \"demo-questions\"\ndepth = 5\nresults = \"{results}\"\n\n[filters]\naccess = \"public\"\n"
        ),
    )
    .expect("written");
    dir
}

/// One file read by both runs under different index versions: the gate fails with
/// `same_results`, and every format warns.
#[test]
fn one_results_file_under_two_versions_fails_the_gate_in_every_format() {
    let dir = demo_with_candidate("baseline.csv", "2.4.0");
    let json = compare_json(dir.path(), &["compare", "--format", "json"], 1);
    assert!(!json.gate.passed);
    let raw = run(dir.path(), &["compare", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_slice(&raw.stdout).expect("JSON");
    assert_eq!(value["gate"]["codes"], serde_json::json!(["same_results"]));
    assert!(
        json.gate.reasons[0].starts_with(SAME),
        "{:?}",
        json.gate.reasons
    );
    assert!(
        json.warnings.iter().any(|w| w.starts_with(SAME)),
        "{:?}",
        json.warnings
    );

    let table = run(dir.path(), &["compare"]);
    assert_code(&table, 1);
    assert!(
        stderr(&table).contains(&format!("warning: {SAME}")),
        "{}",
        render(&table)
    );
    assert!(stdout(&table).starts_with(&format!("FAIL  {SAME}")));

    let md = run(dir.path(), &["compare", "--format", "markdown"]);
    assert_code(&md, 1);
    assert!(stdout(&md).matches(SAME).count() >= 2, "{}", render(&md));

    let mut cmd = crate::common::ragdiff(dir.path());
    let actions = cmd
        .args(["compare"])
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("runs");
    assert!(
        stderr(&actions).contains(&format!("::warning title=ragdiff::{SAME}")),
        "{}",
        render(&actions)
    );
}

/// Two files with identical bytes under one index version: the warning stays, the
/// gate passes.
#[test]
fn identical_bytes_under_one_version_warn_and_pass() {
    let dir = demo_with_candidate("copy.csv", "2.3.0");
    std::fs::copy(
        dir.path().join("runs/baseline.csv"),
        dir.path().join("runs/copy.csv"),
    )
    .expect("copied");
    let json = compare_json(dir.path(), &["compare", "--format", "json"], 0);
    assert!(json.gate.passed, "{:?}", json.gate.reasons);
    assert!(
        json.warnings.iter().any(|w| w.starts_with(SAME)),
        "{:?}",
        json.warnings
    );
}

/// Identical bytes under different versions fail too; so does a file whose only change
/// is in a query the gold lacks (the same ranking for every gold query: docs/contract.md
/// §12.1); a file of the same size that differs in one byte of a gold query's list is
/// another run.
#[test]
fn identical_bytes_count_and_one_changed_byte_does_not() {
    let dir = demo_with_candidate("copy.csv", "2.4.0");
    let base = std::fs::read(dir.path().join("runs/baseline.csv")).expect("readable");
    std::fs::write(dir.path().join("runs/copy.csv"), &base).expect("written");
    let json = compare_json(dir.path(), &["compare", "--format", "json"], 1);
    assert!(json.gate.reasons.iter().any(|r| r.starts_with(SAME)));

    // One digit changed in unlabelled U-3's list: the same rankings of the gold's queries.
    let text = String::from_utf8(base).expect("UTF-8");
    std::fs::write(dir.path().join("runs/copy.csv"), swap_last_digit(&text)).expect("written");
    let json = compare_json(dir.path(), &["compare", "--format", "json"], 1);
    assert!(json.gate.reasons.iter().any(|r| r.starts_with(SAME)));

    // One digit changed in Q-17's list: the same size, another ranking.
    let changed = text.replacen("Q-17,D-2;D-5;D-6", "Q-17,D-2;D-5;D-7", 1);
    assert_eq!(changed.len(), text.len());
    assert_ne!(changed, text);
    std::fs::write(dir.path().join("runs/copy.csv"), changed).expect("written");
    let out = run(dir.path(), &["compare", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(
        !value["warnings"].to_string().contains(SAME),
        "{}",
        render(&out)
    );
    let codes = value["gate"]["codes"].as_array().expect("codes").clone();
    assert!(!codes.contains(&serde_json::json!("same_results")));
}

/// `text` with its last digit changed to another digit.
fn swap_last_digit(text: &str) -> String {
    let pos = text.rfind(|c: char| c.is_ascii_digit()).expect("a digit");
    let d = text.as_bytes()[pos];
    let new = if d == b'9' { '8' } else { (d + 1) as char };
    format!("{}{new}{}", &text[..pos], &text[pos + 1..])
}

/// Different runs never warn (the demo).
#[test]
fn different_results_do_not_warn() {
    let json = compare_json(crate_dir(), &["compare", "--format", "json"], 1);
    assert!(!json.warnings.iter().any(|w| w.contains(SAME)));
}

// ---------------------------------------------------------------------------------
// Item 13: freeze's date and the exit codes in --help

/// Re-freezing a raised version records today's date, not the old version's.
#[test]
fn a_raised_version_records_a_new_frozen_at() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_generated(dir.path(), &[("Q-1".to_string(), Change::Unchanged)]);
    assert_code(&run(dir.path(), &["freeze", "gold.toml"]), 0);
    let frozen = std::fs::read_to_string(dir.path().join("gold.toml")).expect("readable");
    let line = frozen
        .lines()
        .find(|l| l.starts_with("frozen_at"))
        .expect("frozen_at");
    let raised = frozen
        .replace(line, "frozen_at = \"2020-01-02\"")
        .replace("version = \"1.0.0\"\ncorpus", "version = \"1.1.0\"\ncorpus");
    assert!(raised.contains("version = \"1.1.0\""), "{raised}");
    std::fs::write(dir.path().join("gold.toml"), &raised).expect("written");
    assert_code(&run(dir.path(), &["freeze", "gold.toml"]), 0);
    let after = std::fs::read_to_string(dir.path().join("gold.toml")).expect("readable");
    assert!(after.contains("frozen_version = \"1.1.0\""), "{after}");
    let date = after
        .lines()
        .find_map(|l| l.strip_prefix("frozen_at = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("frozen_at");
    assert_ne!(date, "2020-01-02", "the old version's date was kept");
    let shape: Vec<usize> = date.split('-').map(str::len).collect();
    assert_eq!(shape, [4, 2, 2], "frozen_at = {date}");
}

/// Each command's help lists the exit codes it can return: eval has no gate (no 1).
#[rstest]
#[case::compare("compare", &["0", "1", "2", "3", "129", "130", "143"])]
#[case::eval("eval", &["0", "2", "3", "129", "130", "143"])]
#[case::validate("validate", &["0", "2", "129", "130", "143"])]
#[case::freeze("freeze", &["0", "2", "129", "130", "143"])]
fn help_lists_the_exit_codes_the_command_returns(#[case] command: &str, #[case] codes: &[&str]) {
    let out = run(crate_dir(), &[command, "--help"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    let section = text
        .split_once("Exit codes:\n")
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no exit codes in\n{text}"));
    let listed: Vec<&str> = section
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(listed, codes, "{text}");
}
