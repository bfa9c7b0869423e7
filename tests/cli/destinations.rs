//! No input is ever written: every input is refused as an export or a promote
//! destination (except the baseline files promote replaces), and an export is never
//! where promote writes (docs/contract.md §12.19).

use std::path::Path;

use crate::common::{
    COMPARE_CASE, assert_code, assert_invalid, assert_line, demo_copy, fixture, run, stderr,
    temp_copy, with,
};

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn an_export_over_the_gold_tags_file_is_refused() {
    let dir = temp_copy(&fixture("segments/trec"));
    let before = bytes(&dir.path().join("tags.csv"));
    let out = run(
        dir.path(),
        &with(&COMPARE_CASE, &["--export-json", "tags.csv"]),
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "--export-json tags.csv would overwrite the input tags.csv; write the report elsewhere",
    );
    assert_eq!(bytes(&dir.path().join("tags.csv")), before);
}

/// The latency side file a run manifest names (docs/contract.md §6.9) is an input
/// too: it was overwritten by an export.
#[test]
fn an_export_over_a_latency_side_file_is_refused() {
    let dir = demo_copy();
    let runs = dir.path().join("runs");
    let manifest = std::fs::read_to_string(runs.join("candidate.toml")).expect("the candidate");
    let manifest = manifest.replacen("[filters]", "latency = \"latency.csv\"\n[filters]", 1);
    std::fs::write(runs.join("candidate.toml"), manifest).expect("the candidate");
    std::fs::write(runs.join("latency.csv"), "id,latency_ms\nQ-17,3\n").expect("latency");
    let before = bytes(&runs.join("latency.csv"));
    let out = run(dir.path(), &["compare", "--export-csv", "runs/latency.csv"]);
    assert_invalid(
        &out,
        &[
            "--export-csv runs/latency.csv would overwrite the input runs/latency.csv; write the report elsewhere",
        ],
    );
    assert_eq!(bytes(&runs.join("latency.csv")), before);
}

/// (Held before: an export is never a symlink.)
#[test]
fn an_export_through_a_symlink_to_the_tags_file_is_refused() {
    let dir = temp_copy(&fixture("segments/trec"));
    std::os::unix::fs::symlink("tags.csv", dir.path().join("report.json")).expect("a link");
    let out = run(
        dir.path(),
        &with(&COMPARE_CASE, &["--export-json", "report.json"]),
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "report.json: cannot write report.json: it is a symbolic link, not a regular file; an export replaces only a regular file (`-` writes to stdout)",
    );
}

#[test]
fn promote_never_writes_a_repeat_copy_over_the_candidate_manifest() {
    let dir = demo_copy();
    let runs = dir.path().join("runs");
    std::fs::copy(runs.join("candidate-2.csv"), runs.join("rep2.toml")).expect("a repeat");
    let manifest = "index_version = \"2.4.0\"\ncorpus = \"demo-questions\"\ndepth = 5\nformat = \"csv\"\nresults = [\"candidate.csv\", \"rep2.toml\"]\n";
    std::fs::write(runs.join("baseline-2.toml"), manifest).expect("the candidate");
    let out = run(
        dir.path(),
        &[
            "promote",
            "--force",
            "runs/baseline.toml",
            "runs/baseline-2.toml",
        ],
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "promote would write runs/baseline-2.toml over the candidate manifest runs/baseline-2.toml; inputs are never written (rename the baseline manifest or the candidate's files)",
    );
    assert_eq!(bytes(&runs.join("baseline-2.toml")), manifest.as_bytes());
}

#[test]
fn an_export_named_like_a_promote_destination_is_refused() {
    let dir = demo_copy();
    let out = run(
        dir.path(),
        &["promote", "--force", "--export-json", "runs/baseline-3.csv"],
    );
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "--export-json runs/baseline-3.csv is also where promote writes; write the report elsewhere",
    );
    assert!(!dir.path().join("runs/baseline-3.csv").exists());
}

/// The candidate changed between the gate and the copy (the test hook pauses promote
/// there): nothing is promoted, the baseline stays as it was.
#[test]
#[cfg_attr(
    not(feature = "test-hooks"),
    ignore = "needs --features test-hooks: run by .ci/run"
)]
fn promote_never_copies_a_candidate_changed_after_the_gate() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = demo_copy();
    let runs = dir.path().join("runs");
    let before: Vec<Vec<u8>> = ["baseline.toml", "baseline.csv", "baseline-2.csv"]
        .iter()
        .map(|n| bytes(&runs.join(n)))
        .collect();
    let resume = dir.path().join("resume");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ragdiff"))
        .current_dir(dir.path())
        .args(["promote", "--force"])
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .env("RAGDIFF_TEST_PAUSE_AT", "promote-copy")
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
            Some(Ok(line)) if line == "ragdiff: paused at promote-copy" => break,
            Some(Ok(line)) => seen.push(line),
            _ => panic!("promote never paused; stderr:\n{seen:#?}"),
        }
    }
    // The pull request's code rewrites its results after the gate passed them.
    std::fs::write(
        runs.join("candidate.csv"),
        "id,retrieved_doc_ids\nQ-21,D-9\n",
    )
    .expect("rewritten");
    std::fs::write(&resume, "").expect("resume");
    seen.extend(lines.map_while(Result::ok));
    let status = child.wait().expect("waited");
    let err = seen.join("\n");
    assert_eq!(status.code(), Some(2), "stderr:\n{err}");
    assert!(
        err.contains("runs/candidate.csv changed while promote ran (after the gate read it); nothing promoted: run promote again"),
        "stderr:\n{err}"
    );
    let after: Vec<Vec<u8>> = ["baseline.toml", "baseline.csv", "baseline-2.csv"]
        .iter()
        .map(|n| bytes(&runs.join(n)))
        .collect();
    assert_eq!(after, before, "the baseline is unchanged");
    assert!(!runs.join("baseline-3.csv").exists());
}
