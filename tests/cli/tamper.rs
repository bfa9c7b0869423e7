//! A hostile pull request cannot change what decides the verdict unseen
//! (docs/contract.md §12.1, "Tamper-evident"): each test starts from a copy of the demo's
//! `gold/` and `runs/` (or a fixture) and makes the one edit an attacker would.

use std::path::Path;

use crate::common::{
    Case, assert_code, assert_invalid, demo_copy, edit, fixture, ragdiff_snapshot, read, run,
    stderr, stdout, temp_copy,
};

const DEMO: [&str; 3] = ["compare", "runs/baseline.toml", "runs/candidate.toml"];

// ---------------------------------------------------------------------------------
// The frozen gold's meaning: k, min_grade and tags (docs/contract.md §4.4).

#[test]
fn k_edited_in_a_frozen_gold_is_an_input_error() {
    let dir = demo_copy();
    edit(dir.path(), "gold/demo.toml", "\nk = 3 ", "\nk = 2 ");
    let out = run(dir.path(), &DEMO);
    assert_invalid(
        &out,
        &[
            "gold/demo.toml:9: k is 2 but the gold was frozen with k 3 (frozen_k); restore it, or raise `version` and run `ragdiff freeze`",
        ],
    );
    // freeze refuses it without a raised version, and takes it with one.
    let out = run(dir.path(), &["freeze"]);
    assert_invalid(
        &out,
        &[
            "gold/demo.toml: k (3 -> 2) changed since the gold was frozen but `version` 1.1.0 is not higher than frozen_version 1.1.0; raise `version` to freeze the new meaning",
        ],
    );
    edit(
        dir.path(),
        "gold/demo.toml",
        "version = \"1.1.0\"",
        "version = \"1.2.0\"",
    );
    assert_code(&run(dir.path(), &["freeze"]), 0);
    let manifest = read(dir.path(), "gold/demo.toml");
    assert!(manifest.contains("\nfrozen_k = 2\n"), "{manifest}");
    assert!(
        manifest.contains("\nfrozen_version = \"1.2.0\"\n"),
        "{manifest}"
    );
    assert_code(&run(dir.path(), &DEMO), 1);
}

#[test]
fn min_grade_added_to_a_frozen_gold_is_an_input_error() {
    let case = Case::demo().edit("gold/demo.toml", "\nk = 3 ", "\nmin_grade = 2\nk = 3 ");
    let out = case.ragdiff(&DEMO);
    assert_invalid(
        &out,
        &[
            "gold/demo.toml:9: min_grade is 2 but the gold was frozen with min_grade 1 (frozen_min_grade); restore it, or raise `version` and run `ragdiff freeze`",
            "gold/demo.csv: no query has a relevant doc (grade >= min_grade 2), so there is nothing to evaluate; check min_grade and the labels",
        ],
    );
}

#[test]
fn removing_a_frozen_golds_tags_is_an_input_error() {
    let dir = temp_copy(&fixture("segments/trec"));
    assert_code(&run(dir.path(), &["freeze", "gold.toml"]), 0);
    let frozen = read(dir.path(), "gold.toml");
    assert!(
        frozen.contains("\nfrozen_tags = \"tags.csv\"\n"),
        "{frozen}"
    );
    // Both the file and its digest gone: the per-segment gates would test nothing.
    let stripped: String = frozen
        .lines()
        .filter(|l| !l.starts_with("tags = ") && !l.starts_with("tags_sha256 = "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("gold.toml"), stripped).expect("written");
    let out = run(
        dir.path(),
        &["compare", "--gold", "gold.toml", "base.toml", "cand.toml"],
    );
    assert_invalid(
        &out,
        &[
            "gold.toml:10: tags is none but the gold was frozen with tags \"tags.csv\" (frozen_tags); restore it, or raise `version` and run `ragdiff freeze`",
        ],
    );
}

#[test]
fn a_gold_frozen_before_the_meaning_was_recorded_warns_and_freeze_adds_it() {
    let dir = demo_copy();
    let old: String = read(dir.path(), "gold/demo.toml")
        .lines()
        .filter(|l| {
            !l.starts_with("frozen_k")
                && !l.starts_with("frozen_min_grade")
                && !l.starts_with("frozen_tags")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("gold/demo.toml"), &old).expect("written");
    let out = run(dir.path(), &DEMO);
    ragdiff_snapshot!(&out);
    // freeze records them at the same version, keeping frozen_at.
    let out = run(dir.path(), &["freeze"]);
    assert_code(&out, 0);
    let manifest = read(dir.path(), "gold/demo.toml");
    assert_eq!(
        manifest,
        format!("{old}frozen_k = 3\nfrozen_min_grade = 1\nfrozen_tags = \"none\"\n")
    );
    let out = run(dir.path(), &DEMO);
    assert!(
        !stderr(&out).contains("was frozen before"),
        "{}",
        stderr(&out)
    );
    // From now on a change needs a raised version.
    edit(dir.path(), "gold/demo.toml", "\nk = 3 ", "\nk = 1 ");
    assert_code(&run(dir.path(), &["freeze"]), 2);
    assert!(stdout(&run(dir.path(), &["freeze", "--help"])).contains("freeze"));
}

#[test]
fn a_frozen_gold_missing_one_recorded_key_is_an_input_error() {
    let case = Case::demo().edit("gold/demo.toml", "frozen_k = 3\n", "");
    let out = case.ragdiff(&DEMO);
    assert_invalid(
        &out,
        &[
            "gold/demo.toml:9: k is 3 but the gold was frozen with k (not recorded) (frozen_k); restore it, or raise `version` and run `ragdiff freeze`",
        ],
    );
}

// ---------------------------------------------------------------------------------
// A run's results are never the gate's own files (docs/contract.md §12).

/// A frozen JSON gold with a baseline, in a temporary folder.
fn json_gold() -> Case {
    let formats = fixture("inputs/formats");
    let data = |name: &str| read(&formats, name);
    let case = Case::new()
        .gold("gold.json", &data("gold.json"))
        .run("base.toml", "1.0.0", "run.json", &data("run.json"))
        .key("base.toml", "depth", "3");
    let cand = case.read("base.toml").replace("1.0.0", "1.1.0");
    case.file("cand.toml", cand.replace("run.json", "cand.json"))
        .freeze()
}

#[test]
fn results_that_are_a_link_to_the_gold_data_are_refused() {
    let case = json_gold();
    std::os::unix::fs::symlink("gold.json", case.path().join("cand.json")).expect("a link");
    let out = case.compare(&["--require-frozen"]);
    assert_invalid(
        &out,
        &[
            "cand.json: run results are the gold data gold.json (the same file or the same bytes); a run's results are never one of the gate's own files",
        ],
    );
}

#[test]
fn results_that_copy_the_gold_datas_bytes_are_refused() {
    let case = json_gold();
    std::fs::copy(case.path().join("gold.json"), case.path().join("cand.json")).expect("copied");
    let out = case.compare(&["--require-frozen"]);
    assert_invalid(
        &out,
        &[
            "cand.json: run results are the gold data gold.json (the same file or the same bytes); a run's results are never one of the gate's own files",
        ],
    );
}

#[test]
fn a_repeat_that_is_the_allow_list_or_the_gold_is_refused_on_either_side() {
    let dir = demo_copy();
    edit(
        dir.path(),
        "runs/candidate.toml",
        "\"candidate-3.csv\"]",
        "\"candidate-3.csv\", \"accepted-failures.csv\"]",
    );
    edit(
        dir.path(),
        "runs/baseline.toml",
        "\"baseline-2.csv\"]",
        "\"baseline-2.csv\", \"../gold/demo.csv\"]",
    );
    let mut args = DEMO.to_vec();
    args.extend(["--allow-failed-file", "runs/accepted-failures.csv"]);
    let out = run(dir.path(), &args);
    assert_code(&out, 2);
    let err = stderr(&out);
    for line in [
        "runs/../gold/demo.csv: run results are the gold data gold/demo.csv (the same file or the same bytes); a run's results are never one of the gate's own files",
        "runs/accepted-failures.csv: run results are the allow-list runs/accepted-failures.csv (the same file or the same bytes); a run's results are never one of the gate's own files",
    ] {
        assert!(err.contains(line), "no {line}\nin\n{err}");
    }
}

// ---------------------------------------------------------------------------------
// `--changed-since REV`: what the pull request changed in the gate's inputs
// (docs/contract.md §12.1).

/// `git ARGS` in `dir`, which must succeed; its stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The demo in a new git repository, committed; returns the commit.
pub(crate) fn demo_repo() -> (tempfile::TempDir, String) {
    let dir = demo_copy();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    let sha = git(dir.path(), &["rev-parse", "HEAD"]);
    (dir, sha)
}

#[test]
fn changed_since_lists_the_gate_inputs_a_pull_request_changed() {
    let (dir, sha) = demo_repo();
    // The pull request accepts its own failure and edits the gold's name.
    let allow = dir.path().join("runs/accepted-failures.csv");
    let mut text = read(dir.path(), "runs/accepted-failures.csv");
    text.push_str("Q-21,fine,,\n");
    std::fs::write(&allow, text).expect("written");
    edit(
        dir.path(),
        "gold/demo.toml",
        "name = \"demo\"",
        "name = \"demo-x\"",
    );
    let mut args = DEMO.to_vec();
    args.extend([
        "--allow-failed-file",
        "runs/accepted-failures.csv",
        "--changed-since",
        &sha,
    ]);
    let out = run(dir.path(), &args);
    assert_code(&out, 0);
    let line = format!(
        "this pull request changes the gate's inputs since {sha}: gold manifest gold/demo.toml (changed), allow-list runs/accepted-failures.csv (changed)"
    );
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
    let mut md = args.clone();
    md.extend(["--format", "markdown"]);
    let out = run(dir.path(), &md);
    ragdiff_snapshot!(&out);
    let mut json = args.clone();
    json.extend(["--format", "json"]);
    let out = run(dir.path(), &json);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let c = &v["changed_inputs"];
    assert_eq!(c["since"], sha.as_str());
    assert_eq!(c["commit"], sha.as_str());
    // gold manifest and data, baseline manifest and two results files, allow-list
    assert_eq!(c["checked"], 6);
    let changed: Vec<(&str, &str, &str)> = c["changed"]
        .as_array()
        .expect("an array")
        .iter()
        .map(|i| {
            (
                i["input"].as_str().unwrap_or_default(),
                i["path"].as_str().unwrap_or_default(),
                i["change"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        changed,
        [
            ("gold manifest", "gold/demo.toml", "changed"),
            ("allow-list", "runs/accepted-failures.csv", "changed")
        ]
    );
}

#[test]
fn changed_since_says_when_nothing_changed_and_names_added_files() {
    let (dir, sha) = demo_repo();
    let mut args = DEMO.to_vec();
    args.extend(["--changed-since", &sha]);
    let out = run(dir.path(), &args);
    assert_code(&out, 1);
    let line = format!("no gate input changed since {sha} (5 files checked)");
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
    // A baseline repeat the base commit did not have.
    std::fs::copy(
        dir.path().join("runs/baseline.csv"),
        dir.path().join("runs/baseline-3.csv"),
    )
    .expect("copied");
    edit(
        dir.path(),
        "runs/baseline.toml",
        "\"baseline-2.csv\"]",
        "\"baseline-2.csv\", \"baseline-3.csv\"]",
    );
    let out = run(dir.path(), &args);
    let line = format!(
        "this pull request changes the gate's inputs since {sha}: baseline manifest runs/baseline.toml (changed), baseline results runs/baseline-3.csv (added)"
    );
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
}

#[test]
fn changed_since_an_unknown_revision_or_outside_git_warns() {
    let (dir, _) = demo_repo();
    let mut args = DEMO.to_vec();
    args.extend(["--changed-since", "no-such-branch"]);
    let out = run(dir.path(), &args);
    ragdiff_snapshot!(&out);
    let v: serde_json::Value = {
        let mut json = args.clone();
        json.extend(["--format", "json"]);
        serde_json::from_slice(&run(dir.path(), &json).stdout).expect("JSON")
    };
    assert!(v.get("changed_inputs").is_none());
    assert!(v["warnings"].as_array().expect("warnings").iter().any(|w| {
        w.as_str()
            .is_some_and(|w| w.starts_with("--changed-since no-such-branch: no such commit"))
    }));
    let outside = demo_copy();
    let mut args = DEMO.to_vec();
    args.extend(["--changed-since", "HEAD"]);
    let out = run(outside.path(), &args);
    ragdiff_snapshot!(&out);
}

#[test]
fn the_action_fetches_the_base_commit_and_passes_changed_since() {
    let root = crate::common::crate_dir();
    let action = std::fs::read_to_string(root.join("action.yml")).expect("action.yml");
    assert!(
        action.contains("default: ${{ github.event.pull_request.base.sha }}"),
        "the action's changed-since defaults to the pull request's base"
    );
    let script = crate::action::step_script(&action, "gate");
    assert!(script.contains("git fetch --no-tags --depth=1 -- origin \"$RAGDIFF_CHANGED_SINCE\""));
    let dir = tempfile::tempdir().expect("a temporary folder");
    let bin = dir.path().join("root").join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::copy(
        root.join("tests/fixtures/action/fake-ragdiff"),
        bin.join("ragdiff"),
    )
    .expect("fake ragdiff");
    let argv = dir.path().join("argv.txt");
    let out = std::process::Command::new("bash")
        .args(["-e", "-c", &script])
        .current_dir(dir.path())
        .env("RAGDIFF_ROOT", dir.path().join("root"))
        .env("RUNNER_TEMP", dir.path())
        .env("GITHUB_STEP_SUMMARY", dir.path().join("summary.md"))
        .env("GITHUB_OUTPUT", dir.path().join("output.txt"))
        .env("RAGDIFF_BASELINE", "runs/baseline.toml")
        .env("RAGDIFF_CANDIDATE", "runs/candidate.toml")
        .env("RAGDIFF_CHANGED_SINCE", "0123abcd")
        .env("FAKE_ARGV", &argv)
        .output()
        .expect("bash runs");
    // Outside a repository the fetch fails: the step goes on and says so.
    assert!(out.status.success(), "the step failed: {out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("could not fetch 0123abcd"));
    let args = std::fs::read_to_string(&argv).expect("the fake ragdiff ran");
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(
        args[..4],
        ["compare", "--require-frozen", "--changed-since", "0123abcd"]
    );
}

// ---------------------------------------------------------------------------------
// Chunk maps: named in every report, one side only warns, judged docs keep their ids
// (docs/contract.md §2.11).

/// `runs/map.csv` mapping every id the candidate's files retrieve to itself, except
/// those in `to`; the candidate's manifest names it.
fn candidate_map(dir: &Path, to: &[(&str, &str)]) {
    let mut ids = std::collections::BTreeSet::new();
    for name in ["candidate.csv", "candidate-2.csv", "candidate-3.csv"] {
        for line in read(dir, &format!("runs/{name}")).lines().skip(1) {
            if let Some((_, docs)) = line.split_once(',') {
                ids.extend(
                    docs.split(';')
                        .filter(|d| !d.is_empty())
                        .map(str::to_string),
                );
            }
        }
    }
    let mut map = String::from("chunk_id,doc_id\n");
    for id in &ids {
        let doc = to
            .iter()
            .find(|(c, _)| c == id)
            .map_or(id.as_str(), |(_, d)| d);
        map.push_str(&format!("{id},{doc}\n"));
    }
    std::fs::write(dir.join("runs/map.csv"), map).expect("written");
    let manifest = read(dir, "runs/candidate.toml")
        .replace("\n[filters]", "doc_map = \"map.csv\"\n\n[filters]");
    std::fs::write(dir.join("runs/candidate.toml"), manifest).expect("written");
}

#[test]
fn a_map_that_sends_a_judged_doc_elsewhere_is_an_input_error() {
    let dir = demo_copy();
    // D-4 is judged not relevant for Q-21: mapped to D-9, Q-21 would pass.
    candidate_map(dir.path(), &[("D-4", "D-9")]);
    let out = run(dir.path(), &DEMO);
    assert_invalid(
        &out,
        &[
            "runs/map.csv:16: doc D-4 is judged by the gold, but the map sends it to D-9; a doc the gold judges keeps its id: map it to itself",
        ],
    );
}

#[test]
fn a_map_on_one_side_only_is_named_in_every_report_and_warns() {
    let dir = demo_copy();
    candidate_map(dir.path(), &[]);
    let sha = {
        use sha2::Digest;
        let digest =
            sha2::Sha256::digest(std::fs::read(dir.path().join("runs/map.csv")).expect("the map"));
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let warning = "only the candidate maps chunks to documents (doc_map runs/map.csv): the baseline's ids are compared as they are; a map on one side only changes what that side retrieved";
    let out = run(dir.path(), &DEMO);
    ragdiff_snapshot!(&out);
    let line = format!(
        "doc map baseline none, candidate runs/map.csv (sha256 {})",
        &sha[..12]
    );
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
    let mut md = DEMO.to_vec();
    md.extend(["--format", "markdown"]);
    let out = run(dir.path(), &md);
    ragdiff_snapshot!(&out);
    let mut json = DEMO.to_vec();
    json.extend(["--format", "json"]);
    let out = run(dir.path(), &json);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(v["baseline"].get("doc_map").is_none());
    assert_eq!(v["candidate"]["doc_map"]["path"], "runs/map.csv");
    assert_eq!(v["candidate"]["doc_map"]["sha256"], sha.as_str());
    assert!(
        v["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .any(|w| w == warning)
    );
    let typed = crate::common::compare_json(dir.path(), &json, 1);
    assert_eq!(typed.baseline.doc_map, None);
    let map = typed.candidate.doc_map.expect("the candidate's map");
    assert_eq!(
        (map.path.as_str(), map.sha256.as_str()),
        ("runs/map.csv", sha.as_str())
    );
    // eval names it too.
    let out = run(dir.path(), &["eval", "runs/candidate.toml"]);
    let line = format!("doc map runs/map.csv (sha256 {})", &sha[..12]);
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
}

#[test]
fn the_policy_file_is_listed_by_changed_since_and_is_never_results() {
    let dir = demo_copy();
    std::fs::write(dir.path().join("ragdiff.toml"), "[gate]\nblock = \"all\"\n").expect("written");
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    let sha = git(dir.path(), &["rev-parse", "HEAD"]);
    std::fs::write(
        dir.path().join("ragdiff.toml"),
        "[gate]\nblock = \"none\"\n",
    )
    .expect("written");
    let mut args = DEMO.to_vec();
    args.extend(["--changed-since", &sha]);
    let out = run(dir.path(), &args);
    let line = format!(
        "this pull request changes the gate's inputs since {sha}: policy file ragdiff.toml (changed: block: all -> none)"
    );
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
    // The policy as a candidate repeat.
    edit(
        dir.path(),
        "runs/candidate.toml",
        "\"candidate-3.csv\"]",
        "\"candidate-3.csv\", \"../ragdiff.toml\"]\nformat = \"csv\"",
    );
    let out = run(dir.path(), &DEMO);
    assert_invalid(
        &out,
        &[
            "runs/../ragdiff.toml: run results are the policy file ragdiff.toml (the same file or the same bytes); a run's results are never one of the gate's own files",
        ],
    );
}

/// A pull request that replaces a gate input by a symbolic link to another file the
/// repository already had, unchanged, changes what the gate reads: `--changed-since`
/// lists it. Found by a hostile review: the allow-list `runs/reviewed.csv` (the
/// policy's `allow_failed_file`, without Q-21) made a link to
/// `runs/accepted-failures.csv` (which accepts Q-21) turned FAIL into PASS while the
/// report said "no gate input changed since REV (7 files checked)": the blob compared
/// was the link target's, not the input's own path's.
#[test]
#[cfg(unix)]
fn an_input_replaced_by_a_link_to_an_unchanged_file_is_listed() {
    let dir = demo_copy();
    let reviewed = dir.path().join("runs/reviewed.csv");
    std::fs::write(&reviewed, "id,reason,index_version,accepted_at\n").expect("written");
    std::fs::write(
        dir.path().join("ragdiff.toml"),
        "[gate]\nallow_failed_file = \"runs/reviewed.csv\"\n",
    )
    .expect("written");
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    let sha = git(dir.path(), &["rev-parse", "HEAD"]);
    let before = run(dir.path(), &["compare", "--changed-since", &sha]);
    assert_eq!(before.status.code(), Some(1), "{}", stdout(&before));
    std::fs::remove_file(&reviewed).expect("removed");
    std::os::unix::fs::symlink("accepted-failures.csv", &reviewed).expect("a link");
    let listed = format!(
        "this pull request changes the gate's inputs since {sha}: allow-list runs/reviewed.csv (changed)"
    );
    let after = run(dir.path(), &["compare", "--changed-since", &sha]);
    assert_code(&after, 0);
    assert!(stdout(&after).contains(&listed), "{}", stdout(&after));
    // a folder on the way made a link to a copy with another allow-list: the input is
    // still placed by its own path, not the link's target's
    std::fs::remove_file(&reviewed).expect("removed");
    std::fs::rename(dir.path().join("runs"), dir.path().join("other")).expect("moved");
    std::fs::copy(
        dir.path().join("other/accepted-failures.csv"),
        dir.path().join("other/reviewed.csv"),
    )
    .expect("copied");
    std::os::unix::fs::symlink("other", dir.path().join("runs")).expect("a link");
    let after = run(dir.path(), &["compare", "--changed-since", &sha]);
    assert_code(&after, 0);
    let text = stdout(&after);
    assert!(
        text.contains("allow-list runs/reviewed.csv (changed)"),
        "{text}"
    );
    assert!(!text.contains("no gate input changed"), "{text}");
}

/// A gate input that git stores as a symbolic link at REV and still is the same
/// link now, its target unchanged, is no change: `--changed-since` must not list
/// it (found by review3: the baseline results `runs/base-link.csv -> shared.csv`,
/// committed and untouched, was listed `(changed)`, the link's text at REV compared
/// with the target's bytes now). Its target edited is a change of what the gate
/// reads, and is listed.
#[test]
#[cfg(unix)]
fn an_unchanged_committed_link_is_not_listed() {
    let dir = demo_copy();
    let runs = dir.path().join("runs");
    std::fs::copy(runs.join("baseline.csv"), runs.join("shared.csv")).expect("copied");
    std::fs::remove_file(runs.join("baseline.csv")).expect("removed");
    std::os::unix::fs::symlink("shared.csv", runs.join("baseline.csv")).expect("a link");
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    let sha = git(dir.path(), &["rev-parse", "HEAD"]);
    let same = run(dir.path(), &["compare", "--changed-since", &sha]);
    assert_code(&same, 1);
    let text = stdout(&same);
    assert!(
        text.contains(&format!("no gate input changed since {sha}")),
        "{text}"
    );
    let data = std::fs::read_to_string(runs.join("shared.csv")).expect("read");
    std::fs::write(runs.join("shared.csv"), format!("{data}\n")).expect("written");
    let edited = run(dir.path(), &["compare", "--changed-since", &sha]);
    let text = stdout(&edited);
    assert!(
        text.contains("baseline results runs/baseline.csv (changed)"),
        "{text}"
    );
    // the link pointed at another committed file, itself unchanged: listed
    std::fs::write(runs.join("shared.csv"), data).expect("written back");
    std::fs::remove_file(runs.join("baseline.csv")).expect("removed");
    std::os::unix::fs::symlink("candidate.csv", runs.join("baseline.csv")).expect("a link");
    let repointed = run(dir.path(), &["compare", "--changed-since", &sha]);
    let text = stdout(&repointed);
    assert!(
        text.contains("baseline results runs/baseline.csv (changed)"),
        "{text}"
    );
}

/// The baseline's latency side file (`latency = "…csv"`, docs/contract.md §6.9) decides
/// `max_latency_increase` as much as its results do: a pull request that raises the
/// baseline's latencies there turns a latency FAIL into a PASS, so `--changed-since`
/// must list it (found by attack4: it was not among the inputs compared, and the
/// report said "no gate input changed").
#[test]
fn an_edited_baseline_latency_side_file_is_listed_by_changed_since() {
    let dir = temp_copy(&fixture("latency"));
    // The baseline's latencies (from base.jsonl) moved into a side file.
    let side: String = read(dir.path(), "base.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            Some(format!(
                "{},{}\n",
                v["id"].as_str()?,
                v["latency_ms"].as_f64()?
            ))
        })
        .collect();
    std::fs::write(
        dir.path().join("base-latency.csv"),
        format!("id,latency_ms\n{side}"),
    )
    .expect("written");
    edit(
        dir.path(),
        "base.toml",
        "results = \"base.jsonl\"",
        "results = \"base.jsonl\"\nlatency = \"base-latency.csv\"",
    );
    std::fs::write(
        dir.path().join("ragdiff.toml"),
        "[gate]\nmax_latency_increase = { p95 = \"20%\" }\n",
    )
    .expect("written");
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    let sha = git(dir.path(), &["rev-parse", "HEAD"]);
    let args = [
        "compare",
        "--gold",
        "gold.toml",
        "base.toml",
        "cand.toml",
        "--changed-since",
        &sha,
    ];
    let before = run(dir.path(), &args);
    assert_code(&before, 1);
    assert!(
        stdout(&before).contains(&format!("no gate input changed since {sha}")),
        "{}",
        stdout(&before)
    );
    // The pull request doubles the baseline's latencies: the gate now passes.
    let doubled: String = side
        .lines()
        .map(|l| {
            let (id, ms) = l.split_once(',').expect("id,latency_ms");
            format!("{id},{:.3}\n", ms.parse::<f64>().expect("a number") * 2.0)
        })
        .collect();
    std::fs::write(
        dir.path().join("base-latency.csv"),
        format!("id,latency_ms\n{doubled}"),
    )
    .expect("written");
    let after = run(dir.path(), &args);
    assert_code(&after, 0);
    let text = stdout(&after);
    assert!(
        !text.contains("no gate input changed"),
        "the edited baseline latency file is not listed:\n{text}"
    );
    assert!(
        text.contains("baseline latency file base-latency.csv (changed)"),
        "{text}"
    );
}

/// An input outside the gold's repository cannot be compared with the revision: it
/// gets its own warning and is not counted in "N files checked" (found by attack4:
/// the gold data, tags and baseline results outside the repository counted, so the
/// verdict block said "5 files checked" where 2 were).
#[test]
fn an_input_outside_the_repository_is_warned_about_and_not_counted_as_checked() {
    let dir = demo_copy();
    let outside = tempfile::tempdir().expect("a temporary folder");
    let data = outside.path().join("demo.csv");
    std::fs::copy(dir.path().join("gold/demo.csv"), &data).expect("copied");
    edit(
        dir.path(),
        "gold/demo.toml",
        "data = \"demo.csv\"",
        &format!("data = {:?}", data.display().to_string()),
    );
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    let sha = git(dir.path(), &["rev-parse", "HEAD"]);
    let mut args = DEMO.to_vec();
    args.extend(["--changed-since", &sha]);
    let out = run(dir.path(), &args);
    assert_code(&out, 1);
    let line = format!("no gate input changed since {sha} (4 files checked)");
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
    let warning = format!(
        "warning: --changed-since {sha}: the gold data {} is outside the git repository, so whether it changed is not known",
        data.display()
    );
    assert!(
        stderr(&out).lines().any(|l| l == warning),
        "{}",
        stderr(&out)
    );
}
