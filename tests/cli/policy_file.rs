//! `ragdiff.toml`: found from the working directory up to the git root, applied under
//! the flags (docs/contract.md §8.6).

use std::path::Path;

use crate::common::{PolicyJson, code, compare_json, demo_copy, run, stderr, stdout};

/// The demo's runs swapped by the policy (so means drop), with an nDCG and an RR
/// threshold.
const SWAPPED: &str = "baseline = \"runs/candidate.toml\"\ncandidate = \"runs/baseline.toml\"\n\n[gate]\nmax_drop = { ndcg = 0.05, rr = 0.05 }\n";

fn write_policy(dir: &Path, text: &str) {
    std::fs::write(dir.join("ragdiff.toml"), text).expect("written");
}

/// Accept the swapped comparison's newly failed queries, so only the thresholds judge.
const ACCEPT: [&str; 5] = [
    "compare",
    "--allow-failed",
    "Q-23",
    "--allow-failed",
    "Q-24",
];

fn verdict(out: &std::process::Output) -> String {
    stdout(out).lines().next().unwrap_or_default().to_string()
}

#[test]
fn the_policys_max_drop_fails_the_demo() {
    let dir = demo_copy();
    write_policy(dir.path(), SWAPPED);
    let out = run(dir.path(), &ACCEPT);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let v = verdict(&out);
    assert!(v.starts_with("FAIL"), "{v}");
    assert!(
        v.contains("nDCG@3 dropped by 0.1317, more than the allowed 0.05"),
        "{v}"
    );
    assert!(v.contains("MRR@3 dropped"), "{v}");
}

#[test]
fn a_flag_replaces_the_files_entry_for_its_metric_and_keeps_the_others() {
    let dir = demo_copy();
    write_policy(dir.path(), SWAPPED);
    let mut args = ACCEPT.to_vec();
    args.extend(["--max-drop", "ndcg=0.5"]);
    let out = run(dir.path(), &args);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let v = verdict(&out);
    assert!(!v.contains("nDCG"), "{v}");
    assert!(v.contains("MRR@3 dropped"), "{v}");
    args.extend(["--max-drop", "rr=0.5"]);
    let out = run(dir.path(), &args);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn no_config_ignores_the_policy() {
    let dir = demo_copy();
    write_policy(
        dir.path(),
        "[gate]\nmax_drop = { ndcg = 0 }\nmin_segment_queries = 2\nmax_drop_per_segment = { ndcg = 0.1 }\n",
    );
    let with = run(dir.path(), &["compare", "--allow-failed", "Q-21"]);
    assert_eq!(code(&with), 1, "{}", stdout(&with));
    assert!(
        verdict(&with).contains("segment intent:billing"),
        "{}",
        verdict(&with)
    );
    let without = run(
        dir.path(),
        &["compare", "--allow-failed", "Q-21", "--no-config"],
    );
    assert_eq!(code(&without), 0, "{}", stdout(&without));
}

#[test]
fn config_names_another_file_and_no_key_undoes_a_boolean() {
    let dir = demo_copy();
    std::fs::write(
        dir.path().join("strict.toml"),
        "[gate]\nmin_segment_queries = 2\nmax_drop_per_segment = { ndcg = 0.1 }\n",
    )
    .expect("written");
    let out = run(
        dir.path(),
        &[
            "compare",
            "--allow-failed",
            "Q-21",
            "--config",
            "strict.toml",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    write_policy(dir.path(), "[gate]\nstrict_flaky = true\n");
    let strict = run(dir.path(), &["compare", "--allow-failed", "Q-21"]);
    let loose = run(
        dir.path(),
        &["compare", "--allow-failed", "Q-21", "--no-strict-flaky"],
    );
    let plain = run(
        dir.path(),
        &["compare", "--allow-failed", "Q-21", "--no-config"],
    );
    // the same report but for the line naming the policy (docs/contract.md §9.2)
    let without_policy = |out: &std::process::Output| -> String {
        let text = stdout(out);
        text.lines()
            .filter(|l| !l.starts_with("policy  "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_policy(&loose), without_policy(&plain));
    assert!(
        stdout(&loose).contains("\npolicy  ragdiff.toml (sha256 "),
        "{}",
        stdout(&loose)
    );
    assert!(
        stdout(&plain).contains("\npolicy  no ragdiff.toml: defaults, with flags --allow-failed\n"),
        "{}",
        stdout(&plain)
    );
    assert_eq!(code(&loose), code(&plain));
    assert_eq!(code(&strict), 1, "{}", stdout(&strict));
    assert!(verdict(&strict).contains("flaky"), "{}", verdict(&strict));
    assert_eq!(code(&plain), 0, "{}", stdout(&plain));
}

#[test]
fn an_unknown_key_is_exit_2_with_file_line_and_the_known_keys() {
    let dir = demo_copy();
    write_policy(
        dir.path(),
        "[gate]\nmax_drop = { ndcg = 0.02 }\nmax_dorp = 1\n",
    );
    let out = run(dir.path(), &["compare"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "ragdiff.toml:3: unknown key `max_dorp`; known keys: max_drop, max_drop_per_segment,"
        ),
        "{err}"
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn the_policy_is_found_from_a_subdirectory_up_to_the_git_root() {
    let dir = demo_copy();
    std::fs::create_dir(dir.path().join(".git")).expect("a git folder");
    let sub = dir.path().join("a/b");
    std::fs::create_dir_all(&sub).expect("a folder");
    // Paths are the file's: the same baseline on both sides passes.
    write_policy(
        dir.path(),
        "gold = \"gold/demo.toml\"\nbaseline = \"runs/baseline.toml\"\ncandidate = \"runs/baseline.toml\"\n",
    );
    let out = run(&sub, &["compare"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(verdict(&out).starts_with("PASS"), "{}", verdict(&out));
    // Above the git root it is not looked for.
    let outer = tempfile::tempdir().expect("a temporary folder");
    write_policy(outer.path(), "[gate]\nmax_dorp = 1\n");
    let inner = outer.path().join("repo");
    std::fs::create_dir_all(inner.join(".git")).expect("a git folder");
    let out = run(&inner, &["compare"]);
    assert!(!stderr(&out).contains("max_dorp"), "{}", stderr(&out));
    // Outside a git repository only the working directory counts.
    let plain = outer.path().join("plain");
    std::fs::create_dir_all(&plain).expect("a folder");
    let out = run(&plain, &["compare"]);
    assert!(!stderr(&out).contains("max_dorp"), "{}", stderr(&out));
}

/// Writes a `ragdiff.toml` with `[gate] suspects = "warn"`; its sha256 in hex.
fn suspects_warn_policy(dir: &std::path::Path) -> String {
    use sha2::Digest as _;
    let text = "[gate]\nsuspects = \"warn\"\n";
    write_policy(dir, text);
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn every_report_names_the_policy_that_applied() {
    let dir = demo_copy();
    let sha = suspects_warn_policy(dir.path());
    let table = run(dir.path(), &["compare"]);
    assert!(
        stdout(&table).contains(&format!("\npolicy  ragdiff.toml (sha256 {})\n", &sha[..12])),
        "{}",
        stdout(&table)
    );
    let md = run(dir.path(), &["compare", "--format", "markdown"]);
    assert!(
        stdout(&md).contains(&format!(
            "\n**policy** `ragdiff.toml` (sha256 {})\n",
            &sha[..12]
        )),
        "{}",
        stdout(&md)
    );
    let report = compare_json(dir.path(), &["compare", "--format", "json"], 0);
    assert_eq!(
        report.policy,
        Some(PolicyJson {
            path: "ragdiff.toml".into(),
            sha256: sha
        })
    );
    let none = compare_json(
        dir.path(),
        &["compare", "--no-config", "--format", "json"],
        1,
    );
    assert_eq!(none.policy, None);
    let md = run(
        dir.path(),
        &["compare", "--no-config", "--format", "markdown"],
    );
    assert!(stdout(&md).contains("\n**policy** no ragdiff.toml: defaults\n"));
}

/// A gate the command line changed is never reported as the file's or the defaults:
/// a workflow's flags are not in the report, so the policy line names them
/// (docs/contract.md §9.2; before, `--max-drop rr=1 --no-config` read `policy  no
/// ragdiff.toml: defaults`).
#[test]
fn the_policy_line_names_the_flags_that_set_the_gate() {
    let dir = demo_copy();
    let sha = suspects_warn_policy(dir.path());
    // Twice --max-drop, named once; in the order of the policy keys, not as given.
    let flags = [
        "compare",
        "--seed",
        "7",
        "--max-drop",
        "rr=1",
        "--fail-on-significant-drop",
        "--max-drop",
        "ndcg=1",
        "--cutoffs",
        "2",
    ];
    let named = "--max-drop, --fail-on-significant-drop, --seed";
    let table = run(dir.path(), &flags);
    let md = run(
        dir.path(),
        &[&flags[..], &["--format", "markdown"]].concat(),
    );
    for (out, line) in [
        (
            &table,
            format!(
                "\npolicy  ragdiff.toml (sha256 {}), with flags {named}\n",
                &sha[..12]
            ),
        ),
        (
            &md,
            format!(
                "\n**policy** `ragdiff.toml` (sha256 {}), with flags {named}\n",
                &sha[..12]
            ),
        ),
    ] {
        assert!(stdout(out).contains(&line), "{}", stdout(out));
    }
    let report = compare_json(
        dir.path(),
        &[&flags[..], &["--format", "json"]].concat(),
        code(&table),
    );
    assert_eq!(
        report.policy_flags,
        ["--max-drop", "--fail-on-significant-drop", "--seed"]
    );
    // No file and no gate: the defaults, and the flag that switched the gate off.
    let off = run(dir.path(), &["compare", "--no-config", "--no-gate"]);
    assert_eq!(code(&off), 0, "{}", stdout(&off));
    assert!(
        stdout(&off).contains("\npolicy  no ragdiff.toml: defaults, with flags --no-gate\n"),
        "{}",
        stdout(&off)
    );
    // Flags that move no verdict (extra cutoffs and measures, outputs) name nothing.
    let plain = compare_json(
        dir.path(),
        &[
            "compare",
            "--no-config",
            "--cutoffs",
            "2",
            "--measure",
            "nDCG@2",
            "--format",
            "json",
        ],
        1,
    );
    assert!(plain.policy_flags.is_empty());
}
