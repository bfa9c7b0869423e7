//! `compare --changed-since REV` shows what a pull request changed inside the policy
//! file, setting by setting (docs/contract.md §12.1): both revisions' `ragdiff.toml`
//! parsed and compared, not only a note that its bytes differ.

use std::path::Path;

use crate::common::{assert_code, fixture, run, stdout};
use crate::tamper::{demo_repo, git};

const DEMO: [&str; 3] = ["compare", "runs/baseline.toml", "runs/candidate.toml"];

/// The demo in a git repository whose base commit has the `base.toml` policy; the
/// working tree then has `head` as its policy (none when `None`). Returns the base.
fn repo_with_policy(head: Option<&str>) -> (tempfile::TempDir, String) {
    let (dir, _) = demo_repo();
    let policy = dir.path().join("ragdiff.toml");
    std::fs::copy(fixture("policy_changed/base.toml"), &policy).expect("copied");
    git(dir.path(), &["add", "ragdiff.toml"]);
    git(dir.path(), &["commit", "-q", "-m", "policy"]);
    let sha = git(dir.path(), &["rev-parse", "HEAD"]);
    match head {
        Some(name) => std::fs::copy(fixture(&format!("policy_changed/{name}")), &policy)
            .map(drop)
            .expect("copied"),
        None => std::fs::remove_file(&policy).expect("removed"),
    }
    (dir, sha)
}

fn changed_since(dir: &Path, sha: &str, format: &str) -> std::process::Output {
    let mut args = DEMO.to_vec();
    args.extend(["--changed-since", sha, "--format", format]);
    run(dir, &args)
}

#[test]
fn a_changed_policy_lists_each_setting_it_changes() {
    let (dir, sha) = repo_with_policy(Some("head.toml"));
    let out = changed_since(dir.path(), &sha, "table");
    // block = "none": the new failure no longer fails the gate.
    assert_code(&out, 0);
    let line = format!(
        "this pull request changes the gate's inputs since {sha}: policy file ragdiff.toml (changed: max_drop.rr: 0.02 -> 0.05; suspects: unset -> warn; block: all -> none)"
    );
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
    let out = changed_since(dir.path(), &sha, "markdown");
    assert!(
        stdout(&out).contains(&format!(
            "**this pull request changes the gate's inputs since {sha}: policy file `ragdiff.toml` (changed: max\\_drop.rr: 0.02 -&gt; 0.05; suspects: unset -&gt; warn; block: all -&gt; none)**"
        )),
        "{}",
        stdout(&out)
    );
    let out = changed_since(dir.path(), &sha, "json");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let policy = &v["changed_inputs"]["changed"][0];
    assert_eq!(policy["input"], "policy file");
    assert_eq!(policy["change"], "changed");
    assert_eq!(
        policy["details"],
        serde_json::json!([
            "max_drop.rr: 0.02 -> 0.05",
            "suspects: unset -> warn",
            "block: all -> none"
        ])
    );
}

#[test]
fn a_policy_the_pull_request_removes_is_listed_with_what_it_set() {
    let (dir, sha) = repo_with_policy(None);
    let out = changed_since(dir.path(), &sha, "table");
    assert_code(&out, 1);
    let line = format!(
        "this pull request changes the gate's inputs since {sha}: policy file ragdiff.toml (removed: max_drop.rr: 0.02 -> unset; block: all -> unset)"
    );
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_policy_changed_only_in_comments_says_no_setting_changed() {
    let (dir, sha) = repo_with_policy(Some("base.toml"));
    let path = dir.path().join("ragdiff.toml");
    let text = std::fs::read_to_string(&path).expect("readable");
    std::fs::write(&path, format!("# reviewed\n{text}")).expect("written");
    let out = changed_since(dir.path(), &sha, "table");
    assert_code(&out, 1);
    let line = format!(
        "this pull request changes the gate's inputs since {sha}: policy file ragdiff.toml (changed: no setting changed (comments or layout only))"
    );
    assert!(
        stdout(&out).lines().any(|l| l.trim() == line),
        "{}",
        stdout(&out)
    );
}

/// `[record]` says how the pull request's own job records the candidate, which the
/// gate does not read: a change there is listed in one line, never as a gate setting,
/// and moving its keys about is no change at all.
#[test]
fn a_changed_record_table_is_one_line_and_no_gate_setting() {
    let (dir, sha) = repo_with_policy(Some("base.toml"));
    let path = dir.path().join("ragdiff.toml");
    let text = std::fs::read_to_string(&path).expect("readable");
    std::fs::write(
        &path,
        format!("{text}\n[record]\ndepth = 20\nfilter = {{ tenant = \"acme\" }}\n"),
    )
    .expect("written");
    let out = changed_since(dir.path(), &sha, "json");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v["changed_inputs"]["changed"][0]["details"],
        serde_json::json!([ragdiff::load::policy_diff::RECORD_CHANGED])
    );
    // The gate judged as before: the same failure, the same exit code.
    assert_code(&out, 1);
    git(dir.path(), &["commit", "-q", "-am", "record"]);
    let sha = git(dir.path(), &["rev-parse", "HEAD"]);
    std::fs::write(
        &path,
        format!("{text}\n[record]\nfilter = {{ tenant = \"acme\" }}\n\ndepth = 20 # the app's\n"),
    )
    .expect("written");
    let out = changed_since(dir.path(), &sha, "json");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v["changed_inputs"]["changed"][0]["details"],
        serde_json::json!(["no setting changed (comments or layout only)"])
    );
}

/// A rule on a measure by name is a setting like the others: `max_drop.nDCG@20`.
#[test]
fn a_named_rule_the_pull_request_adds_or_changes_is_listed() {
    let (dir, sha) = repo_with_policy(Some("base.toml"));
    std::fs::write(
        dir.path().join("ragdiff.toml"),
        "[gate]\nblock = \"all\"\nmax_drop = { rr = 0.02, \"nDCG@20\" = 0.05, \"P(rel=2)@10\" = 0.1 }\n",
    )
    .expect("written");
    let out = changed_since(dir.path(), &sha, "json");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v["changed_inputs"]["changed"][0]["details"],
        serde_json::json!([
            "max_drop.P(rel=2)@10: unset -> 0.1",
            "max_drop.nDCG@20: unset -> 0.05"
        ])
    );
    // the gate read the named rules: the means carry both measures
    assert!(
        v["means"]["measures"]["nDCG@20"].is_object(),
        "{}",
        v["means"]
    );
}

/// A pull request that replaces `ragdiff.toml` by something that is not a regular
/// file (a directory holding a file, a symbolic link to /dev/null, a dangling link:
/// what git can commit) does not drop the policy unseen for the defaults: the name
/// is found and refused when read (exit 2). Found by a hostile review: the policy
/// was skipped ("policy  no ragdiff.toml: defaults") and the verdict said "no gate
/// input changed".
#[test]
#[cfg(unix)]
fn a_policy_replaced_by_a_directory_or_a_link_is_refused() {
    let not_regular = "ragdiff.toml: policy file ragdiff.toml is not a regular file (a device, FIFO or socket); ragdiff reads regular files only (a symbolic link to one is fine)";
    for (replace, problem) in [
        (
            "directory",
            "ragdiff.toml: policy file ragdiff.toml is a directory, not a file",
        ),
        ("link to /dev/null", not_regular),
        (
            "dangling link",
            "ragdiff.toml: policy file ragdiff.toml does not exist",
        ),
    ] {
        let (dir, sha) = repo_with_policy(None);
        let policy = dir.path().join("ragdiff.toml");
        match replace {
            "directory" => {
                std::fs::create_dir(&policy).expect("a folder");
                std::fs::write(policy.join("README"), "x\n").expect("written");
            }
            "link to /dev/null" => {
                std::os::unix::fs::symlink("/dev/null", &policy).expect("a link")
            }
            _ => std::os::unix::fs::symlink("nowhere.toml", &policy).expect("a link"),
        }
        crate::common::assert_invalid(changed_since(dir.path(), &sha, "table"), &[problem]);
    }
}

/// `RR@3` at k 3 is the `rr` rule (docs/contract.md §5.4), so a table naming both
/// would let its order decide the threshold, and a reorder loosen the gate while
/// `--changed-since` saw "no setting changed (comments or layout only)" (found by a
/// hostile review): both orders are refused at the table's line.
#[test]
fn a_table_whose_order_would_decide_a_threshold_is_refused_in_either_order() {
    let (dir, _) = demo_repo();
    let policy = dir.path().join("ragdiff.toml");
    let swapped = ["compare", "runs/candidate.toml", "runs/baseline.toml"];
    for (table, first, second) in [
        ("\"RR@3\" = 1.0, rr = 0.01", "RR@3", "rr"),
        ("rr = 0.01, \"RR@3\" = 1.0", "rr", "RR@3"),
    ] {
        let text = format!("[gate]\nblock = \"none\"\nmax_drop = {{ {table} }}\n");
        std::fs::write(&policy, text).expect("written");
        crate::common::assert_invalid(
            run(dir.path(), &swapped),
            &[format!(
                "ragdiff.toml:3: `max_drop`: `{first}` and `{second}` are one measure at k = 3 (the gold's k), MRR@3: keep one (a table's entries have no order to settle which applies)"
            )],
        );
    }
}

/// Run from a folder below the git root, the policy applied there is the root's
/// `ragdiff.toml` (docs/contract.md §8.6); one the pull request deleted is listed as
/// removed, not missed because the working directory never had one (found by a
/// hostile review: "no gate input changed", the policy's defaults applied).
#[test]
fn a_policy_removed_at_the_root_is_listed_from_a_folder_below() {
    let (dir, sha) = repo_with_policy(None);
    let below = dir.path().join("sub");
    std::fs::create_dir(&below).expect("a folder");
    let args = [
        "compare",
        "--gold",
        "../gold/demo.toml",
        "../runs/baseline.toml",
        "../runs/candidate.toml",
        "--changed-since",
        &sha,
    ];
    let out = run(&below, &args);
    assert_code(&out, 1);
    let listed = format!(
        "this pull request changes the gate's inputs since {sha}: policy file ../ragdiff.toml (removed: max_drop.rr: 0.02 -> unset; block: all -> unset)"
    );
    assert!(stdout(&out).contains(&listed), "{}", stdout(&out));
}
