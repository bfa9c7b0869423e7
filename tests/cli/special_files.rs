//! Bytes and headers that hide or shadow rows: a bare CR inside a CSV line (a record
//! separator to CSV readers that git and GitHub do not show) and a header that names a
//! column twice. Every CSV ragdiff reads refuses both (exit 2 at file:line).

use std::path::Path;
use std::process::Output;

use crate::common::{
    DEMO_QUERIES, assert_code, assert_invalid, demo_copy, fixture, missing_from_repeat,
    ragdiff_snapshot, run, temp_copy,
};

fn write(dir: &Path, rel: &str, bytes: &[u8]) {
    std::fs::write(dir.join(rel), bytes).expect("the fixture file");
}

/// `ragdiff compare --allow-failed-file runs/accepted-failures.csv` in the demo `dir`.
fn compare_with_allow_list(dir: &Path) -> Output {
    run(
        dir,
        &[
            "compare",
            "--allow-failed-file",
            "runs/accepted-failures.csv",
        ],
    )
}

/// The problem of `what` (`run results FILE`, `allow-list FILE`) at `at` being a
/// kernel file.
fn kernel_file(at: &str, what: &str) -> String {
    format!(
        "{at}: {what} is a kernel file (on /proc or /sys), whose reads can block or never \
         end; copy what you need into a regular file"
    )
}

/// The problem of a CSV line at `at` (`file:line`) with a bare CR inside it.
fn bare_cr(at: &str) -> String {
    format!(
        "{at}: a CR not followed by LF inside the line: CSV readers take it as a row break \
         that git and GitHub do not show; remove it"
    )
}

/// The problem of a header at `at` (`file:line`) that names `column` twice.
fn twice_in_header(at: &str, column: &str) -> String {
    format!(
        "{at}: column `{column}` appears more than once in the header (ragdiff would read \
         only the first); keep one"
    )
}

#[test]
fn a_bare_cr_in_the_allow_list_hides_a_row_and_is_an_input_error() {
    let dir = demo_copy();
    write(
        dir.path(),
        "runs/accepted-failures.csv",
        b"id,reason\nQ-24,fixed typo\rQ-21,ok\n",
    );
    let out = compare_with_allow_list(dir.path());
    assert_invalid(&out, &[bare_cr("runs/accepted-failures.csv:2")]);
}

#[test]
fn a_bare_cr_in_a_crlf_run_is_an_input_error() {
    let dir = demo_copy();
    write(
        dir.path(),
        "runs/candidate.csv",
        b"id,retrieved_doc_ids\r\nQ-17,D-2;D-1;D-5\r\nQ-18,D-7;D-8\rQ-21,D-9\r\n",
    );
    let out = run(dir.path(), &["compare"]);
    let mut problems = missing_from_repeat("runs/candidate.csv", &DEMO_QUERIES[1..]);
    problems.push(bare_cr("runs/candidate.csv:3"));
    assert_invalid(&out, &problems);
}

#[test]
fn a_bare_cr_in_the_gold_data_is_an_input_error() {
    let dir = demo_copy();
    let gold = std::fs::read_to_string(dir.path().join("gold/demo.csv")).expect("gold");
    let gold = gold.replacen("\nQ-18,", "\rQ-18,", 1);
    write(dir.path(), "gold/demo.csv", gold.as_bytes());
    // Unfrozen, so that the changed sha256 is not the first problem.
    let manifest = std::fs::read_to_string(dir.path().join("gold/demo.toml")).expect("gold");
    let manifest: String = manifest
        .lines()
        .filter(|l| !l.starts_with("sha256") && !l.starts_with("frozen"))
        .map(|l| format!("{l}\n"))
        .collect();
    write(dir.path(), "gold/demo.toml", manifest.as_bytes());
    let out = run(dir.path(), &["compare"]);
    assert_invalid(&out, &[bare_cr("gold/demo.csv:2")]);
}

#[test]
fn a_bare_cr_in_a_tags_file_is_an_input_error() {
    let dir = temp_copy(&fixture("segments/trec"));
    write(dir.path(), "tags.csv", b"id,tags\nQ1,topic:a\rQ2,topic:b\n");
    let out = run(
        dir.path(),
        &["compare", "--gold", "gold.toml", "base.toml", "cand.toml"],
    );
    let mut problems: Vec<String> = (1..=12)
        .map(|i| {
            format!(
                "tags.csv: gold query Q{i} has no row in the tags file; add a row for it \
                 (an empty `tags` cell when it has none)"
            )
        })
        .collect();
    problems.push(bare_cr("tags.csv:2"));
    assert_invalid(&out, &problems);
}

#[test]
fn a_bare_cr_in_a_doc_map_is_an_input_error() {
    let dir = temp_copy(&fixture("doc_maps/chunks"));
    let map = std::fs::read_to_string(dir.path().join("chunks-v2.csv")).expect("map");
    let map = map.replacen("\nD-1#s2,", "\rD-1#s2,", 1);
    write(dir.path(), "chunks-v2.csv", map.as_bytes());
    let out = run(
        dir.path(),
        &["compare", "--gold", "gold.toml", "base.toml", "cand.toml"],
    );
    assert_invalid(&out, &[bare_cr("chunks-v2.csv:2")]);
}

/// CRLF line ends stay legal: the demo with every CSV in CRLF gives the demo's verdict.
#[test]
fn crlf_files_stay_legal() {
    let dir = demo_copy();
    for rel in ["runs/candidate.csv", "runs/accepted-failures.csv"] {
        let text = std::fs::read_to_string(dir.path().join(rel)).expect("a demo file");
        write(dir.path(), rel, text.replace('\n', "\r\n").as_bytes());
    }
    let out = run(dir.path(), &["compare"]);
    assert_code(&out, 1);
}

#[test]
fn a_duplicate_header_column_in_a_run_is_an_input_error() {
    let dir = demo_copy();
    write(
        dir.path(),
        "runs/candidate.csv",
        b"id,retrieved_doc_ids,retrieved_doc_ids\nQ-17,D-2;D-1;D-5,D-9\n",
    );
    let out = run(dir.path(), &["compare"]);
    let mut problems = missing_from_repeat("runs/candidate.csv", &DEMO_QUERIES);
    problems.push(twice_in_header("runs/candidate.csv:1", "retrieved_doc_ids"));
    assert_invalid(&out, &problems);
}

#[test]
fn a_duplicate_header_column_in_the_allow_list_is_an_input_error() {
    let dir = demo_copy();
    write(
        dir.path(),
        "runs/accepted-failures.csv",
        b"id,id,reason\nQ-24,Q-21,fixed typo\n",
    );
    let out = compare_with_allow_list(dir.path());
    assert_invalid(
        &out,
        &[twice_in_header("runs/accepted-failures.csv:1", "id")],
    );
}

/// A results file that is a symlink to a kernel file (`/proc/kmsg` blocks in `read`
/// where it is readable; `/proc/self/status` stands in for it here).
#[test]
fn a_symlink_into_proc_is_refused() {
    let dir = demo_copy();
    let results = dir.path().join("runs/candidate.csv");
    std::fs::remove_file(&results).expect("removed");
    std::os::unix::fs::symlink("/proc/self/status", &results).expect("a link");
    let out = run(dir.path(), &["compare"]);
    assert_invalid(
        &out,
        &[kernel_file(
            "runs/candidate.toml:5",
            "run results runs/candidate.csv",
        )],
    );
}

#[test]
fn a_symlink_into_sys_is_refused_as_the_allow_list() {
    let dir = demo_copy();
    let list = dir.path().join("runs/accepted-failures.csv");
    std::fs::remove_file(&list).expect("removed");
    std::os::unix::fs::symlink("/sys/kernel/mm/transparent_hugepage/enabled", &list)
        .expect("a link");
    if !Path::new("/sys/kernel/mm/transparent_hugepage/enabled").is_file() {
        crate::common::say_skipped("skipped: no /sys/kernel/mm/transparent_hugepage/enabled");
        return;
    }
    let out = compare_with_allow_list(dir.path());
    assert_invalid(
        &out,
        &[kernel_file(
            "runs/accepted-failures.csv",
            "allow-list runs/accepted-failures.csv",
        )],
    );
}

/// A repeat that links out of the folder the gate runs in (no git here: the working
/// directory) is read, with a warning naming it.
#[test]
fn an_input_linked_outside_the_working_directory_is_warned_about() {
    let dir = demo_copy();
    let elsewhere = tempfile::tempdir().expect("another folder");
    let repeat = dir.path().join("runs/candidate-2.csv");
    std::fs::copy(&repeat, elsewhere.path().join("c2.csv")).expect("copied");
    std::fs::remove_file(&repeat).expect("removed");
    std::os::unix::fs::symlink(elsewhere.path().join("c2.csv"), &repeat).expect("a link");
    let out = run(dir.path(), &["compare"]);
    ragdiff_snapshot!(&out);
}

/// A FIFO swapped in for a results file after its path was checked (the test hook
/// pauses between the check and the open, docs/contract.md §12.22): the open does not
/// block (O_NONBLOCK), the fstat refuses it, exit 2 naming the file. Without the flag
/// the open would wait for a writer forever; the watchdog below then fails the test.
#[test]
#[cfg_attr(
    not(feature = "test-hooks"),
    ignore = "needs --features test-hooks: run by .ci/run"
)]
fn a_fifo_swapped_in_after_the_check_cannot_block_the_open() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = demo_copy();
    let results = dir.path().join("runs/candidate.csv");
    let resume = dir.path().join("resume");
    let point = "input-checked runs/candidate.csv";
    let mut child = Command::new(env!("CARGO_BIN_EXE_ragdiff"))
        .current_dir(dir.path())
        .args(["compare"])
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .env("RAGDIFF_TEST_PAUSE_AT", point)
        .env("RAGDIFF_TEST_RESUME_FILE", &resume)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ragdiff starts");
    let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
    let mut seen = Vec::new();
    loop {
        match lines.next() {
            Some(Ok(line)) if line == format!("ragdiff: paused at {point}") => break,
            Some(Ok(line)) => seen.push(line),
            _ => panic!("compare never paused; stderr:\n{seen:#?}"),
        }
    }
    std::fs::remove_file(&results).expect("removed");
    let made = Command::new("mkfifo")
        .arg(&results)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo failed");
    std::fs::write(&resume, "").expect("resume");
    let reader = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>());
    // A watchdog, not a timing: a blocked open never ends, so kill it after 60 s.
    let mut status = None;
    for _ in 0..6_000 {
        if let Some(s) = child.try_wait().expect("waited") {
            status = Some(s);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("compare blocked opening the FIFO");
    }
    seen.extend(reader.join().expect("stderr read"));
    let err = seen.join("\n");
    assert_eq!(status.and_then(|s| s.code()), Some(2), "stderr:\n{err}");
    assert!(
        err.contains("run results runs/candidate.csv is not a regular file"),
        "stderr:\n{err}"
    );
}
