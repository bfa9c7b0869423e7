//! The review loop (docs/contract.md §8.5): allow-list entries keyed by (id,
//! index_version), and `ragdiff accept`.

use crate::common::{
    DEMO_ALLOWED_JSON, assert_code, assert_invalid, assert_line, compare_json, crate_dir,
    ragdiff_snapshot, run, stderr, stdout,
};

/// `accept Q-21` from the report `compare --export-json report.json` wrote.
const FROM_REPORT: [&str; 6] = [
    "accept",
    "--from-report",
    "report.json",
    "Q-21",
    "--reason",
    "seen in CI",
];

fn with_list(list: &str) -> std::process::Output {
    let path = format!("tests/fixtures/accept/{list}");
    run(crate_dir(), &["compare", "--allow-failed-file", &path])
}

#[test]
fn an_entry_for_the_candidates_version_accepts() {
    let r = compare_json(crate_dir(), &DEMO_ALLOWED_JSON, 0);
    assert_eq!(r.accepted.len(), 1);
    assert_eq!(r.accepted[0].index_version.as_deref(), Some("2.4.0"));
    assert_eq!(r.accepted[0].accepted_at.as_deref(), Some("2026-12-01"));
    assert!(
        r.notes.iter().all(|n| !n.contains("any index version")),
        "{:?}",
        r.notes
    );
}

#[test]
fn an_entry_for_another_version_warns_and_fails_again() {
    let out = with_list("other-version.csv");
    ragdiff_snapshot!(&out);
    assert!(stdout(&out).starts_with("FAIL"), "{}", stdout(&out));
}

#[test]
fn an_entry_for_the_baselines_version_is_a_note_and_fails_again() {
    let out = with_list("baseline-version.csv");
    assert!(!stderr(&out).contains("warning: Q-21"), "{}", stderr(&out));
    ragdiff_snapshot!(&out);
}

#[test]
fn an_entry_without_a_version_applies_with_a_note() {
    let out = with_list("any-version.csv");
    ragdiff_snapshot!(&out);
}

#[test]
fn each_broken_allow_list_is_exit_2_with_file_and_line() {
    for (list, message) in [
        (
            "duplicate.csv",
            "3: query Q-21 is accepted twice for index_version 2.4.0 (first on line 2); keep one line",
        ),
        (
            "no-reason.csv",
            "2: allow-listed query Q-21 has no reason; say why its failure is accepted",
        ),
        (
            "control.csv",
            "2: the `reason` cell holds a control character (a newline, tab or similar); write it on one line",
        ),
        (
            "bad-version.csv",
            "2: index_version has 130 characters, more than 128",
        ),
        (
            "bad-date.csv",
            "2: accepted_at = \"20/11/2026\" is not a date like \"2026-09-19\"",
        ),
    ] {
        let out = with_list(list);
        assert_code(&out, 2);
        assert_line(
            &stderr(&out),
            &format!("tests/fixtures/accept/{list}:{message}"),
        );
    }
}

/// The demo copied, with an allow-list of `list` (None: no allow-list at all).
fn demo_with_list(list: Option<&[u8]>) -> tempfile::TempDir {
    let dir = crate::common::demo_copy();
    let path = dir.path().join("runs/accepted-failures.csv");
    match list {
        Some(bytes) => std::fs::write(&path, bytes).expect("written"),
        None => std::fs::remove_file(&path).expect("removed"),
    }
    dir
}

fn read(dir: &tempfile::TempDir) -> Vec<u8> {
    std::fs::read(dir.path().join("runs/accepted-failures.csv")).expect("the list")
}

/// The date the tests' `SOURCE_DATE_EPOCH` names (tests/cli/common.rs).
fn today() -> String {
    "2026-12-01".to_string()
}

#[test]
fn accept_appends_the_line_and_the_gate_passes() {
    // Columns in another order, CRLF, no final line end, mode 0640.
    let old = "reason,id,accepted_at,index_version\r\n\"old, kept\",Q-22,2026-11-01,2.3.0";
    let dir = demo_with_list(Some(old.as_bytes()));
    use std::os::unix::fs::PermissionsExt;
    let path = dir.path().join("runs/accepted-failures.csv");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    assert_code(&run(dir.path(), &["compare"]), 1);
    let out = run(
        dir.path(),
        &["accept", "Q-21", "--reason", "D-9, \"fourth\" on purpose"],
    );
    assert!(stdout(&out).starts_with("PASS"), "{}", stdout(&out));
    ragdiff_snapshot!(&out);
    // The old bytes kept, a CRLF added where the last line had none, the new cells
    // in the header's order and quoted per RFC 4180.
    let text = String::from_utf8(read(&dir)).expect("UTF-8");
    assert_eq!(
        text,
        format!(
            "{old}\r\n\"D-9, \"\"fourth\"\" on purpose\",Q-21,{},2.4.0\r\n",
            today()
        )
    );
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    // The gate now passes with the list.
    let args = [
        "compare",
        "--allow-failed-file",
        "runs/accepted-failures.csv",
    ];
    assert_code(&run(dir.path(), &args), 0);
}

#[test]
fn accept_creates_a_missing_list_with_its_header() {
    let dir = demo_with_list(None);
    let out = run(dir.path(), &["accept", "Q-21", "--reason", "known"]);
    assert_code(&out, 0);
    assert_eq!(
        String::from_utf8(read(&dir)).expect("UTF-8"),
        format!(
            "id,reason,index_version,accepted_at\nQ-21,known,2.4.0,{}\n",
            today()
        )
    );
}

#[test]
fn accept_refuses_and_leaves_the_file_unchanged() {
    let v2 = format!(
        "id,reason,index_version,accepted_at\nQ-21,known,2.4.0,{}\n",
        today()
    );
    for (list, args, message) in [
        (
            "id,reason,index_version,accepted_at\n".to_string(),
            vec!["accept", "Q-22", "Q-1", "--reason", "x"],
            "Q-22 did not newly fail in this comparison; only newly failed queries are accepted",
        ),
        (
            v2.clone(),
            vec!["accept", "Q-21", "--reason", "again"],
            "Q-21 is already accepted for 2.4.0 (runs/accepted-failures.csv:2)",
        ),
        (
            "id,reason\n".to_string(),
            vec!["accept", "Q-21", "--reason", "x"],
            "runs/accepted-failures.csv: the header has no column index_version, accepted_at; make its first line `id,reason,index_version,accepted_at` and end each line below it with `,,` (empty: any version), then accept again",
        ),
        (
            "id,reason,index_version,accepted_at\n".to_string(),
            vec!["accept", "Q-21", "--reason", " "],
            "--reason is empty; say why these failures are accepted",
        ),
        (
            "id,reason,index_version,accepted_at\n".to_string(),
            vec!["accept", "Q-21", "--reason", "two\nlines"],
            "--reason holds a control character (a newline, tab or similar); write it on one line",
        ),
    ] {
        let dir = demo_with_list(Some(list.as_bytes()));
        let out = run(dir.path(), &args);
        assert_code(&out, 2);
        assert_line(&stderr(&out), message);
        assert_eq!(read(&dir), list.as_bytes(), "{args:?}: the file changed");
    }
}

#[test]
fn accepted_for_one_version_fails_again_for_the_next() {
    let dir = demo_with_list(None);
    assert_code(
        &run(dir.path(), &["accept", "Q-21", "--reason", "known"]),
        0,
    );
    let cand = dir.path().join("runs/candidate.toml");
    let text = std::fs::read_to_string(&cand).expect("the manifest");
    std::fs::write(&cand, text.replace("\"2.4.0\"", "\"2.5.0\"")).expect("written");
    let args = [
        "compare",
        "--allow-failed-file",
        "runs/accepted-failures.csv",
    ];
    let out = run(dir.path(), &args);
    ragdiff_snapshot!(&out);
}

#[test]
fn accept_from_a_report_checks_the_gold_and_appends() {
    let dir = demo_with_list(None);
    let report = dir.path().join("report.json");
    let args = ["compare", "--export-json", "report.json"];
    assert_code(&run(dir.path(), &args), 1);
    let from = FROM_REPORT;
    let out = run(dir.path(), &from);
    assert_code(&out, 0);
    assert!(
        String::from_utf8(read(&dir))
            .expect("UTF-8")
            .contains("Q-21,seen in CI,2.4.0,"),
        "{}",
        stderr(&out)
    );
    // Another gold than the report's: refused, nothing written.
    let json = std::fs::read_to_string(&report).expect("the report");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let sha = v["gold"]["sha256"]
        .as_str()
        .expect("frozen demo gold")
        .to_string();
    std::fs::write(&report, json.replace(&sha, &"0".repeat(64))).expect("written");
    let before = read(&dir);
    let out = run(
        dir.path(),
        &[
            "accept",
            "--from-report",
            "report.json",
            "Q-21",
            "--reason",
            "x",
        ],
    );
    assert_invalid(
        &out,
        &[
            "report.json: the report's gold (sha256 000000000000) is not the local gold (sha256 2ddf6cf705ab); accept against the gold the report was made with, frozen",
        ],
    );
    assert_eq!(read(&dir), before);
}

#[test]
fn promote_leaves_the_allow_list_alone() {
    let dir = demo_with_list(None);
    assert_code(
        &run(dir.path(), &["accept", "Q-21", "--reason", "known"]),
        0,
    );
    let before = read(&dir);
    let args = [
        "promote",
        "--allow-failed-file",
        "runs/accepted-failures.csv",
    ];
    assert_code(&run(dir.path(), &args), 0);
    assert_eq!(read(&dir), before);
}

#[test]
fn a_failing_gate_prints_the_lines_that_would_accept() {
    // Swapped, the demo newly fails, neither suspect (the demo's own
    // Q-21 is suspect: to label, not to accept; tests/cli/policy_rest.rs).
    let swapped = ["compare", "runs/candidate.toml", "runs/baseline.toml"];
    let out = run(crate_dir(), &swapped);
    ragdiff_snapshot!(&out);
    let md = run(
        crate_dir(),
        &[&swapped[..], &["--format", "markdown"]].concat(),
    );
    assert_line(&stdout(&md), "- `Q-23,REASON,2.3.0,2026-12-01`");
    // Accepted: no lines to suggest.
    let ok = run(
        crate_dir(),
        &[
            "compare",
            "--allow-failed-file",
            "runs/accepted-failures.csv",
        ],
    );
    assert_code(&ok, 0);
    assert!(!stdout(&ok).contains("to accept them"), "{}", stdout(&ok));
}

/// `accept --from-report` takes the candidate's version from the report's JSON: a
/// version the allow-list would refuse (a line break, more than 128 characters) must
/// be refused before anything is written. It was written into the list (quoted), and
/// every later `compare` then stopped at exit 2 on the list's own line (found by
/// attack4).
#[test]
fn accept_from_a_report_refuses_a_version_the_allow_list_would_refuse() {
    let dir = demo_with_list(Some(b"id,reason,index_version,accepted_at\n"));
    assert_code(
        &run(dir.path(), &["compare", "--export-json", "report.json"]),
        1,
    );
    let report = dir.path().join("report.json");
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("the report")).expect("JSON");
    for (version, why) in [
        (
            "2.9.0\n::error::x".to_string(),
            "contains a control character (a newline, tab or similar)",
        ),
        (
            format!("2.9.{}", "9".repeat(200)),
            "has 204 characters, more than 128",
        ),
    ] {
        v["candidate"]["index_version"] = serde_json::Value::String(version.clone());
        std::fs::write(&report, v.to_string()).expect("written");
        let before = read(&dir);
        let out = run(dir.path(), &FROM_REPORT);
        assert_invalid(
            &out,
            &[&format!(
                "report.json: the report's candidate.index_version {why}; accept from a report `compare --format json` wrote"
            )],
        );
        assert_eq!(
            read(&dir),
            before,
            "the list was written with version {version:?}"
        );
    }
    // The list as it is stays one the gate reads.
    let out = run(
        dir.path(),
        &[
            "compare",
            "--allow-failed-file",
            "runs/accepted-failures.csv",
        ],
    );
    assert_code(&out, 1);
}

/// `accept --from-report` reads regular files only, as every input (docs/contract.md
/// §12): a link to /dev/zero read until memory ran out (1.7 GB in 3 s) and a FIFO
/// blocked forever (found by attack4).
#[test]
#[cfg(unix)]
fn accept_from_a_report_that_is_not_a_regular_file_is_refused() {
    let dir = demo_with_list(None);
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.json")).expect("a link");
    let args = [
        "accept",
        "--from-report",
        "zero.json",
        "Q-21",
        "--reason",
        "seen in CI",
    ];
    assert_invalid(
        run(dir.path(), &args),
        &[
            "zero.json: report zero.json is not a regular file (a device, FIFO or socket); ragdiff reads regular files only (a symbolic link to one is fine)",
        ],
    );
    assert!(!dir.path().join("runs/accepted-failures.csv").exists());
}
