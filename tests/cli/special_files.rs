//! Bytes and headers that hide or shadow rows: a bare CR inside a CSV line (a record
//! separator to CSV readers that git and GitHub do not show) and a header that names a
//! column twice. Every CSV ragdiff reads refuses both (exit 2 at file:line).

use std::path::Path;

use crate::common::{assert_code, assert_line, demo_copy, fixture, run, stderr, temp_copy};

const BARE_CR: &str = "a CR not followed by LF inside the line: CSV readers take it as a row break that git and GitHub do not show; remove it";

fn write(dir: &Path, rel: &str, bytes: &[u8]) {
    std::fs::write(dir.join(rel), bytes).expect("the fixture file");
}

#[test]
fn a_bare_cr_in_the_allow_list_hides_a_row_and_is_an_input_error() {
    let dir = demo_copy();
    write(
        dir.path(),
        "runs/accepted-failures.csv",
        b"id,reason\nQ-24,fixed typo\rQ-21,ok\n",
    );
    let out = run(
        dir.path(),
        &[
            "compare",
            "--allow-failed-file",
            "runs/accepted-failures.csv",
        ],
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        &format!("runs/accepted-failures.csv:2: {BARE_CR}"),
    );
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
    assert_code(&out, 2);
    assert_line(&stderr(&out), &format!("runs/candidate.csv:3: {BARE_CR}"));
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
    assert_code(&out, 2);
    assert_line(&stderr(&out), &format!("gold/demo.csv:2: {BARE_CR}"));
}

#[test]
fn a_bare_cr_in_a_tags_file_is_an_input_error() {
    let dir = temp_copy(&fixture("segments/trec"));
    write(dir.path(), "tags.csv", b"id,tags\nQ1,topic:a\rQ2,topic:b\n");
    let out = run(
        dir.path(),
        &["compare", "--gold", "gold.toml", "base.toml", "cand.toml"],
    );
    assert_code(&out, 2);
    assert_line(&stderr(&out), &format!("tags.csv:2: {BARE_CR}"));
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
    assert_code(&out, 2);
    assert_line(&stderr(&out), &format!("chunks-v2.csv:2: {BARE_CR}"));
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
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "runs/candidate.csv:1: column `retrieved_doc_ids` appears more than once in the header (ragdiff would read only the first); keep one",
    );
}

#[test]
fn a_duplicate_header_column_in_the_allow_list_is_an_input_error() {
    let dir = demo_copy();
    write(
        dir.path(),
        "runs/accepted-failures.csv",
        b"id,id,reason\nQ-24,Q-21,fixed typo\n",
    );
    let out = run(
        dir.path(),
        &[
            "compare",
            "--allow-failed-file",
            "runs/accepted-failures.csv",
        ],
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "runs/accepted-failures.csv:1: column `id` appears more than once in the header (ragdiff would read only the first); keep one",
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
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "runs/candidate.toml:5: run results runs/candidate.csv is a kernel file (on /proc or /sys), whose reads can block or never end; copy what you need into a regular file",
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
    let out = run(
        dir.path(),
        &[
            "compare",
            "--allow-failed-file",
            "runs/accepted-failures.csv",
        ],
    );
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("is a kernel file (on /proc or /sys)"), "{err}");
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
    assert_code(&out, 1);
    let err = stderr(&out);
    assert!(
        err.contains("runs/candidate-2.csv resolves outside the working directory (to "),
        "{err}"
    );
}
