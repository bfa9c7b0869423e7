//! `promote` (docs/contract.md §4.5, §2.11): the candidate made the next baseline,
//! atomically and only when the gate passes, with every file its manifest names.

use std::path::Path;

use crate::common::{
    Bump, COMPARE_CASE_JSON, CompareJson, Status, assert_code, assert_invalid, assert_line,
    compare_json, demo_copy, ragdiff_snapshot, read, render, run, stdout, with,
};

use crate::common::{fixture, temp_copy};
use crate::doc_maps::{chunks, compare};

const ALLOW: [&str; 3] = [
    "promote",
    "--allow-failed-file",
    "runs/accepted-failures.csv",
];

/// `promote --force` of a case folder's `cand.toml` over its `base.toml`.
const FORCE_CASE: [&str; 6] = [
    "promote",
    "--force",
    "--gold",
    "gold.toml",
    "base.toml",
    "cand.toml",
];

/// Every file of `runs/`, name and bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Identical lists: no metric moved and no doc was lost or gained (a query failing
/// on both sides stays `still_failing`; one flaky in the repeats is flaky on both).
#[track_caller]
fn assert_nothing_moved(r: &CompareJson) {
    for q in &r.per_query {
        if q.status == Status::Flaky {
            assert!(q.baseline_flaky && q.candidate_flaky, "{}", q.id);
        }
        assert!(
            [Status::Unchanged, Status::StillFailing, Status::Flaky].contains(&q.status),
            "{}: {:?}",
            q.id,
            q.status
        );
        assert!(q.lost.is_empty() && q.gained.is_empty(), "{}", q.id);
        assert_eq!(q.delta.rr, 0.0, "{}", q.id);
        assert_eq!(q.delta.ndcg, 0.0, "{}", q.id);
    }
}

#[test]
fn promote_refuses_with_the_gates_code_and_changes_nothing() {
    let dir = demo_copy();
    let before = snapshot(dir.path());
    let out = run(dir.path(), &["promote"]);
    ragdiff_snapshot!(&out);
    assert_eq!(snapshot(dir.path()), before);
}

/// The demo's candidate has three repeats: each is copied beside the baseline
/// manifest (`baseline.csv`, `baseline-2.csv`, `baseline-3.csv`) and `results` names
/// all three, so the promoted baseline keeps its repeats (docs/contract.md §2.12).
#[test]
fn promote_makes_compare_see_identical_runs() {
    let dir = demo_copy();
    let out = run(dir.path(), &ALLOW);
    ragdiff_snapshot!(&out);
    assert!(
        !stdout(&out).contains("no longer named"),
        "{}",
        render(&out)
    );
    for (copy, source) in [
        ("baseline.csv", "candidate.csv"),
        ("baseline-2.csv", "candidate-2.csv"),
        ("baseline-3.csv", "candidate-3.csv"),
    ] {
        assert_eq!(
            read(dir.path(), &format!("runs/{copy}")),
            read(dir.path(), &format!("runs/{source}")),
            "{copy}"
        );
    }
    // The candidate's manifest, comments kept, its results renamed to the baseline's.
    let manifest = read(dir.path(), "runs/baseline.toml");
    let expected = read(dir.path(), "runs/candidate.toml").replace(
        "results = [\"candidate.csv\", \"candidate-2.csv\", \"candidate-3.csv\"]",
        "results = [\"baseline.csv\", \"baseline-2.csv\", \"baseline-3.csv\"]",
    );
    assert_ne!(expected, read(dir.path(), "runs/candidate.toml"));
    assert_eq!(manifest, expected);
    assert!(manifest.starts_with("# Candidate:"), "{manifest}");

    // One index version on both sides now: the six repeats are pooled, and Q-18's
    // RR differs between the candidate's own repeats (0 in 1 of 3), so it is
    // non-deterministic (docs/contract.md §6.5); it only warns here.
    let r = compare_json(dir.path(), &["compare", "--format", "json"], 1);
    assert_eq!(r.nondeterministic, ["Q-18"]);
    let args = ["compare", "--format", "json", "--nondeterminism", "warn"];
    let r = compare_json(dir.path(), &args, 0);
    assert_eq!(r.bump, Bump::Same);
    assert_eq!((r.baseline.repeats, r.candidate.repeats), (3, 3));
    assert_eq!(r.nondeterministic, ["Q-18"]);
    assert_nothing_moved(&r);
    assert!(r.gate.passed);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.starts_with("baseline and candidate read the same results")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn promote_with_force_promotes_a_failing_candidate() {
    let dir = demo_copy();
    let out = run(dir.path(), &["promote", "--force"]);
    ragdiff_snapshot!(&out);
    assert!(read(dir.path(), "runs/baseline.toml").contains("index_version = \"2.4.0\""));
}

/// `--force` overrides a failed gate only: runs that are not comparable stay refused.
#[test]
fn promote_refuses_runs_that_are_not_comparable_even_with_force() {
    let dir = demo_copy();
    let path = dir.path().join("runs/candidate.toml");
    let text =
        read(dir.path(), "runs/candidate.toml").replace("access = \"public\"", "access = \"all\"");
    std::fs::write(&path, text).unwrap();
    let before = snapshot(dir.path());
    let out = run(dir.path(), &["promote", "--force"]);
    assert_code(&out, 3);
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn promote_refuses_when_both_manifests_read_the_same_results() {
    let dir = demo_copy();
    let candidate = read(dir.path(), "runs/candidate.toml");
    let text = candidate.replace(
        "results = [\"candidate.csv\", \"candidate-2.csv\", \"candidate-3.csv\"]",
        "results = \"baseline.csv\"",
    );
    assert_ne!(text, candidate);
    std::fs::write(dir.path().join("runs/same.toml"), text).unwrap();
    let before = snapshot(dir.path());
    let out = run(
        dir.path(),
        &["promote", "--force", "runs/baseline.toml", "runs/same.toml"],
    );
    assert_invalid(
        &out,
        &[
            "runs/baseline.toml and runs/same.toml already read the same results file runs/baseline.csv: nothing to promote (export a new candidate first)",
        ],
    );
    assert!(stdout(&out).is_empty(), "no gate ran:\n{}", render(&out));
    assert_eq!(snapshot(dir.path()), before);
}

/// The copy takes the baseline manifest's name; the old results file is left alone.
#[test]
fn promote_names_the_copy_after_the_baseline_manifest() {
    let dir = demo_copy();
    std::fs::rename(
        dir.path().join("runs/baseline.toml"),
        dir.path().join("runs/current.toml"),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &[
            "promote",
            "--allow-failed-file",
            "runs/accepted-failures.csv",
            "runs/current.toml",
            "runs/candidate.toml",
        ],
    );
    assert_code(&out, 0);
    assert!(
        read(dir.path(), "runs/current.toml")
            .contains("results = [\"current.csv\", \"current-2.csv\", \"current-3.csv\"]")
    );
    assert_eq!(
        read(dir.path(), "runs/current.csv"),
        read(dir.path(), "runs/candidate.csv")
    );
    assert_eq!(
        read(dir.path(), "runs/current-3.csv"),
        read(dir.path(), "runs/candidate-3.csv")
    );
    // both of the old baseline's repeats are left in place, each with a note
    for old in ["baseline.csv", "baseline-2.csv"] {
        assert_line(
            &stdout(&out),
            &format!("note: runs/{old} is no longer named by runs/current.toml; left in place"),
        );
        assert!(dir.path().join("runs").join(old).exists());
    }
    let r = compare_json(
        dir.path(),
        &[
            "compare",
            "--format",
            "json",
            "--nondeterminism",
            "warn",
            "runs/current.toml",
            "runs/candidate.toml",
        ],
        0,
    );
    assert_nothing_moved(&r);
}

#[cfg(unix)]
#[test]
fn promote_keeps_the_baseline_file_modes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = demo_copy();
    let mode = |rel: &str| {
        std::fs::metadata(dir.path().join(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    let set = |rel: &str, m: u32| {
        std::fs::set_permissions(dir.path().join(rel), std::fs::Permissions::from_mode(m)).unwrap()
    };
    set("runs/baseline.toml", 0o640);
    set("runs/baseline.csv", 0o604);
    set("runs/candidate.csv", 0o600);
    assert_code(&run(dir.path(), &ALLOW), 0);
    assert_eq!(mode("runs/baseline.toml"), 0o640);
    assert_eq!(mode("runs/baseline.csv"), 0o604);
}

/// A candidate of one results file gives a baseline of one: `results` stays a string,
/// and the baseline's second repeat, no longer named, is left in place with a note.
#[test]
fn promote_of_a_single_results_file_writes_a_string() {
    let dir = demo_copy();
    let path = dir.path().join("runs/candidate.toml");
    let candidate = read(dir.path(), "runs/candidate.toml");
    let single = candidate.replace(
        "results = [\"candidate.csv\", \"candidate-2.csv\", \"candidate-3.csv\"]",
        "results = \"candidate.csv\"",
    );
    assert_ne!(single, candidate);
    std::fs::write(&path, &single).unwrap();
    let out = run(dir.path(), &ALLOW);
    ragdiff_snapshot!(&out);
    assert_eq!(
        read(dir.path(), "runs/baseline.toml"),
        single.replace("results = \"candidate.csv\"", "results = \"baseline.csv\"")
    );
    let r = compare_json(dir.path(), &["compare", "--format", "json"], 0);
    assert_eq!((r.baseline.repeats, r.candidate.repeats), (1, 1));
    assert_nothing_moved(&r);
}

#[test]
fn promote_copies_the_results_and_the_doc_map() {
    let dir = temp_copy(&chunks());
    let out = run(dir.path(), &FORCE_CASE);
    assert_code(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("it now reads base.csv (a copy of cand.csv), the doc map base-doc-map.csv (a copy of chunks-v2.csv)"),
        "{text}"
    );
    assert!(
        text.contains("note: chunks-v1.csv is no longer named by base.toml; left in place"),
        "{text}"
    );
    assert_eq!(read(dir.path(), "base.csv"), read(dir.path(), "cand.csv"));
    assert_eq!(
        read(dir.path(), "base-doc-map.csv"),
        read(dir.path(), "chunks-v2.csv")
    );
    let manifest = read(dir.path(), "base.toml");
    assert_eq!(
        manifest,
        read(dir.path(), "cand.toml")
            .replace("results = \"cand.csv\"", "results = \"base.csv\"")
            .replace(
                "doc_map = \"chunks-v2.csv\"",
                "doc_map = \"base-doc-map.csv\""
            )
    );
    let j = compare_json(dir.path(), &compare("cand.toml", &["--format", "json"]), 0);
    assert!(
        j.per_query
            .iter()
            .all(|r| r.delta.rr == 0.0 && r.rbo == Some(1.0))
    );
}

#[test]
fn promote_copies_every_repeat() {
    let dir = temp_copy(&fixture("drift"));
    let out = run(dir.path(), &FORCE_CASE);
    assert_code(&out, 0);
    // The first copy keeps the baseline's plain name; repeats follow as -2, -3.
    for i in 1..=3 {
        let copy = if i == 1 {
            "base.csv".to_string()
        } else {
            format!("base-{i}.csv")
        };
        assert_eq!(
            read(dir.path(), &copy),
            read(dir.path(), &format!("cand-{i}.csv")),
            "repeat {i}"
        );
    }
    let manifest = read(dir.path(), "base.toml");
    assert!(
        manifest.contains("results = [\"base.csv\", \"base-2.csv\", \"base-3.csv\"]"),
        "{manifest}"
    );
    let j = compare_json(
        dir.path(),
        // Pooled under one version, the candidate's own repeats disagree on Q-2.
        &with(&COMPARE_CASE_JSON, &["--nondeterminism", "warn"]),
        0,
    );
    assert_eq!((j.baseline.repeats, j.candidate.repeats), (3, 3));
}

/// The copies and the manifest are one set: when one cannot be written, nothing is.
#[test]
fn promote_writes_nothing_when_a_copy_cannot_be_placed() {
    let dir = temp_copy(&chunks());
    std::fs::create_dir(dir.path().join("base-doc-map.csv")).unwrap();
    let before = read(dir.path(), "base.toml");
    let base = read(dir.path(), "base.csv");
    let out = run(dir.path(), &FORCE_CASE);
    assert_ne!(out.status.code(), Some(0), "{}", render(&out));
    assert_eq!(read(dir.path(), "base.toml"), before);
    assert_eq!(read(dir.path(), "base.csv"), base);
}

/// The candidate's latency side file (`latency = "…csv"`, docs/contract.md §6.9) is
/// one of the files its manifest names: promote copied the results and left the new
/// baseline manifest's `latency` naming the candidate's own file, so the next export
/// over the candidate overwrote the baseline's latencies and `compare` measured the
/// next candidate against itself (+0.0% whatever its latency; found by attack4).
#[test]
fn promote_copies_the_latency_side_file_so_the_next_candidate_cannot_overwrite_it() {
    let dir = temp_copy(&fixture("latency"));
    let promote = [
        "promote",
        "--gold",
        "gold.toml",
        "base.toml",
        "cand-trec.toml",
    ];
    assert_code(&run(dir.path(), &promote), 0);
    let manifest = read(dir.path(), "base.toml");
    assert!(
        !manifest.contains("latency = \"cand-latency.csv\""),
        "the promoted baseline reads the candidate's latency file:\n{manifest}"
    );
    let args = [
        "compare",
        "--gold",
        "gold.toml",
        "base.toml",
        "cand-trec.toml",
        "--format",
        "json",
        "--no-gate",
    ];
    let latency = |dir: &Path| {
        let out = run(dir, &args);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v["latency"]["baseline"].clone()
    };
    let promoted = latency(dir.path());
    // The next export writes the candidate's latency file anew, three times slower.
    let slower: String = read(dir.path(), "cand-latency.csv")
        .lines()
        .enumerate()
        .map(|(i, l)| match l.split_once(',') {
            Some((id, ms)) if i > 0 => {
                format!("{id},{:.3}\n", ms.parse::<f64>().expect("a number") * 3.0)
            }
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(dir.path().join("cand-latency.csv"), slower).expect("written");
    assert_eq!(
        latency(dir.path()),
        promoted,
        "the baseline's latency changed with the candidate's file"
    );
}
