//! `init` (docs/contract.md §4.5): the starting layout in a fresh repository, linted
//! by actionlint (which .ci/run installs), never overwriting what exists.

use std::path::Path;
use std::process::Command as Process;

use crate::common::{
    assert_code, demo_copy, empty_repository, missing_component, render, run, stderr, stdout,
};

/// The action the workflow `init` writes calls: the repository `--repository` names
/// at this version's tag.
fn action_ref() -> String {
    format!("example/ragdiff@v{}", env!("CARGO_PKG_VERSION"))
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ---------------------------------------------------------------------------------
// init

#[test]
fn init_writes_the_layout_in_an_empty_repository_and_actionlint_passes() {
    let dir = empty_repository();
    let out = run(dir.path(), &["init", "--repository", "example/ragdiff"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    for created in [
        "gold/",
        "runs/",
        "runs/accepted-failures.csv",
        "ragdiff.toml",
        ".github/workflows/rag-retrieval.yml",
        ".github/workflows/rag-retrieval-comment.yml",
    ] {
        assert!(
            text.lines().any(|l| l == format!("created  {created}")),
            "{created} not listed as created:\n{text}"
        );
    }
    assert!(!text.contains("skipped"), "{text}");
    assert!(dir.path().join("gold").is_dir());
    assert_eq!(
        read(dir.path(), "runs/accepted-failures.csv"),
        "id,reason,index_version,accepted_at\n"
    );
    let workflow = read(dir.path(), ".github/workflows/rag-retrieval.yml");
    assert!(
        workflow.contains(&format!("uses: {}\n", action_ref())),
        "{workflow}"
    );
    assert!(workflow.contains("allow-failed-file: runs/accepted-failures.csv"));
    assert!(workflow.contains("persist-credentials: false"));
    // The next steps: the gold, freeze, a baseline, promote.
    for step in [
        "gold/",
        "ragdiff freeze",
        "runs/baseline.toml",
        "ragdiff promote",
    ] {
        assert!(text.contains(step), "next steps lack {step}:\n{text}");
    }
    assert!(!text.contains("no .git here"), "{text}");

    match Process::new("actionlint")
        .arg("-oneline")
        .current_dir(dir.path())
        .output()
    {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            missing_component("actionlint");
        }
        Err(e) => panic!("actionlint: {e}"),
        Ok(lint) => assert!(
            lint.status.success(),
            "actionlint on what init wrote:\n{}{}",
            String::from_utf8_lossy(&lint.stdout),
            String::from_utf8_lossy(&lint.stderr)
        ),
    }
}

#[test]
fn init_never_overwrites_and_lists_what_it_skipped() {
    let dir = empty_repository();
    std::fs::create_dir(dir.path().join("runs")).unwrap();
    std::fs::write(
        dir.path().join("runs/accepted-failures.csv"),
        "id,reason\nQ-1,known\n",
    )
    .unwrap();
    let out = run(dir.path(), &["init", "--repository", "example/ragdiff"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("skipped  runs/accepted-failures.csv (it exists; left as it is)"),
        "{text}"
    );
    assert!(text.contains("skipped  runs/ "), "{text}");
    assert!(text.contains("created  .github/workflows/rag-retrieval.yml"));
    assert_eq!(
        read(dir.path(), "runs/accepted-failures.csv"),
        "id,reason\nQ-1,known\n"
    );

    // A second run writes nothing: the user's edits to the workflow stay.
    let path = dir.path().join(".github/workflows/rag-retrieval.yml");
    std::fs::write(&path, "# edited\n").unwrap();
    let again = run(dir.path(), &["init", "--repository", "example/ragdiff"]);
    assert_code(&again, 0);
    assert!(!stdout(&again).contains("created"), "{}", render(&again));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "# edited\n");
}

#[test]
fn init_refuses_a_file_where_a_folder_belongs_and_writes_nothing() {
    let dir = empty_repository();
    std::fs::write(dir.path().join("runs"), "not a folder").unwrap();
    let out = run(dir.path(), &["init", "--repository", "example/ragdiff"]);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("runs exists and is not a folder"));
    assert!(!dir.path().join("gold").exists());
    assert!(!dir.path().join(".github").exists());
}

#[test]
fn init_outside_a_repository_root_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["init", "--repository", "example/ragdiff"]);
    assert_code(&out, 0);
    assert!(stdout(&out).contains("no .git here"), "{}", render(&out));
}

/// The header-only allow-list is a valid allow-list from the first gate run on (exit
/// 1 for the demo's regression, never 2 for a missing or malformed file).
#[test]
fn the_allow_list_init_writes_is_read_by_the_gate() {
    let dir = demo_copy();
    std::fs::remove_file(dir.path().join("runs/accepted-failures.csv")).unwrap();
    assert_code(
        &run(dir.path(), &["init", "--repository", "example/ragdiff"]),
        0,
    );
    let out = run(
        dir.path(),
        &[
            "compare",
            "--allow-failed-file",
            "runs/accepted-failures.csv",
        ],
    );
    assert_code(&out, 1);
    assert!(stdout(&out).contains("FAIL  1 query newly failed"));
}

// ---------------------------------------------------------------------------------
// promote

/// Every line of `text` that is a commented-out `key = value` (`# key = value`), uncommented.
fn uncommented(text: &str) -> String {
    text.lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest)
                if rest.split_once(" = ").is_some_and(|(key, _)| {
                    key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                }) =>
            {
                rest.to_string()
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ragdiff.toml `init` writes is a policy ragdiff reads: as written (every key
/// commented out) it changes nothing, and with every key uncommented it is still valid.
/// An existing ragdiff.toml is never overwritten.
#[test]
fn init_writes_a_commented_policy_that_parses_with_every_key_set() {
    let dir = empty_repository();
    let out = run(dir.path(), &["init", "--repository", "example/ragdiff"]);
    assert_code(&out, 0);
    let policy = read(dir.path(), "ragdiff.toml");
    let demo = demo_copy();
    let keys = ragdiff::load::policy::GATE_KEYS
        .split(", ")
        .chain(ragdiff::load::policy::COMPARE_KEYS.split(", "))
        .chain(ragdiff::load::policy::RECORD_KEYS.split(", "));
    for key in keys {
        assert!(
            policy.contains(&format!("# {key} = ")),
            "ragdiff.toml lacks {key}:\n{policy}"
        );
    }
    let all_set = uncommented(&policy).replace("gold/NAME.toml", "gold/demo.toml");
    // `command` and `http` are the two ways to the retriever: one at a time.
    let without = |key: &str| {
        all_set
            .lines()
            .filter(|l| !l.starts_with(&format!("{key} = ")))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (name, text) in [
        ("as-written.toml", policy.clone()),
        ("all-set.toml", without("http")),
        ("all-set-http.toml", without("command")),
    ] {
        std::fs::write(demo.path().join(name), text).expect("written");
        let out = run(demo.path(), &["compare", "--config", name]);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{name} is not a valid policy:\n{}",
            render(&out)
        );
    }
    // A second init keeps the user's policy.
    std::fs::write(
        dir.path().join("ragdiff.toml"),
        "[gate]\nblock = \"none\"\n",
    )
    .expect("written");
    let again = run(dir.path(), &["init", "--repository", "example/ragdiff"]);
    assert_code(&again, 0);
    assert!(stdout(&again).contains("skipped  ragdiff.toml (it exists; left as it is)"));
    assert_eq!(
        read(dir.path(), "ragdiff.toml"),
        "[gate]\nblock = \"none\"\n"
    );
}
