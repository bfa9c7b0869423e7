//! `ragdiff freeze` on temporary copies of a gold set, and the promise that `eval` and
//! `validate` only read their inputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tempfile::TempDir;

use crate::common::{
    assert_code, assert_invalid, assert_line, crate_dir, fixture, run, stderr, stdout,
};

/// A gold manifest with comments, aligned keys and a blank line: freeze must keep them.
const MANIFEST: &str = "\
# Labels agreed with the support team; see gold/README.
name    = \"support\"
version = \"1.0.0\"   # raise when a label changes

corpus  = \"demo-questions\"
data    = \"demo.csv\"
k = 3                 # pinned
";

/// The demo's sha256 as gold/demo.toml records it.
const DEMO_SHA: &str = "2ddf6cf705ab937f52a4913cb3847741241cf1aff1b86019605563a9d5ced1ee";

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A temporary folder with `gold.toml` (`manifest`), the demo's data as `demo.csv` and
/// the demo baseline as a bare `run.csv`.
fn gold_dir(manifest: &str) -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("gold.toml"), manifest).expect("written");
    std::fs::copy(
        crate_dir().join("gold/demo.csv"),
        dir.path().join("demo.csv"),
    )
    .expect("copied");
    std::fs::copy(
        crate_dir().join("runs/baseline.csv"),
        dir.path().join("run.csv"),
    )
    .expect("copied");
    dir
}

fn read(dir: &TempDir, name: &str) -> String {
    std::fs::read_to_string(dir.path().join(name)).expect("readable")
}

/// The value of a top-level `key = "value"` line, if there is one (and only one).
fn value_of(manifest: &str, key: &str) -> Option<String> {
    let values: Vec<String> = manifest
        .lines()
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| k.trim() == key)
        .map(|(_, v)| {
            let v = v.split('#').next().unwrap_or_default().trim();
            v.trim_matches('"').to_string()
        })
        .collect();
    assert!(values.len() <= 1, "{key} appears {} times", values.len());
    values.into_iter().next()
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

#[test]
fn freeze_records_sha256_version_and_date_and_keeps_the_layout() {
    let dir = gold_dir(MANIFEST);
    let out = run(dir.path(), &["freeze", "gold.toml"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        "gold.toml: frozen at version 1.0.0 (sha256 2ddf6cf705ab)\n"
    );

    let after = read(&dir, "gold.toml");
    // comments, alignment and the blank line are kept: the keys are added after them
    assert!(
        after.starts_with(MANIFEST),
        "the manifest was rewritten:\n{after}"
    );
    let sha = sha256_hex(&std::fs::read(dir.path().join("demo.csv")).expect("data"));
    assert_eq!(sha, DEMO_SHA);
    assert_eq!(value_of(&after, "sha256").as_deref(), Some(DEMO_SHA));
    assert_eq!(value_of(&after, "frozen_version").as_deref(), Some("1.0.0"));
    let frozen_at = value_of(&after, "frozen_at").expect("frozen_at written when absent");
    assert!(is_date(&frozen_at), "frozen_at = {frozen_at}");
    let added: Vec<&str> = after[MANIFEST.len()..].lines().collect();
    // sha256, frozen_version, frozen_k, frozen_min_grade, frozen_tags, frozen_at
    assert_eq!(added.len(), 6, "{added:?}");

    // the data is untouched, and eval now sees a frozen gold
    assert_eq!(
        std::fs::read(dir.path().join("demo.csv")).expect("data"),
        std::fs::read(crate_dir().join("gold/demo.csv")).expect("data")
    );
    let out = run(dir.path(), &["eval", "--gold", "gold.toml", "run.csv"]);
    assert_code(&out, 0);
    // no "not frozen" warning: the one left is about the demo's unlabelled queries
    assert_eq!(
        stderr(&out),
        "warning: run.csv: 3 run queries are not in the gold set: left out of the metrics, \
         as trec_eval does; compare counts them in drift: U-1, U-2, U-3\n"
    );
    assert!(stdout(&out).contains("sha256 2ddf6cf705ab"));
}

#[test]
fn freeze_keeps_an_existing_frozen_at() {
    let manifest = format!("{MANIFEST}frozen_at = \"2026-09-19\"   # agreed that day\n");
    let dir = gold_dir(&manifest);
    let out = run(dir.path(), &["freeze", "gold.toml"]);
    assert_code(&out, 0);
    let after = read(&dir, "gold.toml");
    assert!(after.starts_with(&manifest), "{after}");
    assert_eq!(value_of(&after, "frozen_at").as_deref(), Some("2026-09-19"));
}

#[test]
fn a_second_freeze_is_a_no_op() {
    let dir = gold_dir(MANIFEST);
    assert_code(&run(dir.path(), &["freeze", "gold.toml"]), 0);
    let frozen = std::fs::read(dir.path().join("gold.toml")).expect("manifest");

    let out = run(dir.path(), &["freeze", "gold.toml"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        "gold.toml: already frozen at version 1.0.0 (sha256 2ddf6cf705ab)\n"
    );
    assert_eq!(
        std::fs::read(dir.path().join("gold.toml")).expect("manifest"),
        frozen
    );
}

/// A gold set changes only with a new version: once frozen, changed data is refused by
/// eval, validate and freeze until `version` is raised above `frozen_version`.
#[test]
fn changed_data_is_refused_until_the_version_is_raised() {
    let dir = gold_dir(MANIFEST);
    assert_code(&run(dir.path(), &["freeze", "gold.toml"]), 0);
    let frozen = read(&dir, "gold.toml");

    // a new label: Q-23's D-6 becomes relevant too
    let data = read(&dir, "demo.csv").replace(
        "Q-23,Can I export my data to CSV?,D-8",
        "Q-23,Can I export my data to CSV?,D-8;D-6",
    );
    assert_ne!(data, read(&dir, "demo.csv"));
    std::fs::write(dir.path().join("demo.csv"), &data).expect("written");
    let new_sha = sha256_hex(data.as_bytes());

    for args in [
        &["eval", "--gold", "gold.toml", "run.csv"][..],
        &["validate", "--gold", "gold.toml", "run.csv"][..],
    ] {
        let out = run(dir.path(), args);
        assert_code(&out, 2);
        assert_line(
            &stderr(&out),
            &format!(
                "gold.toml: gold changed since it was frozen: sha256 is {}…, the manifest records {}…; restore the data or raise `version` and run `ragdiff freeze`",
                &new_sha[..12],
                &DEMO_SHA[..12]
            ),
        );
    }

    let out = run(dir.path(), &["freeze", "gold.toml"]);
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "gold.toml: the gold changed but `version` 1.0.0 is not higher than frozen_version 1.0.0; raise `version` to freeze the new labels",
    );
    assert_eq!(
        read(&dir, "gold.toml"),
        frozen,
        "a refused freeze writes nothing"
    );

    // raising the version lets the new labels be frozen
    let raised = frozen.replace("version = \"1.0.0\"   #", "version = \"1.1.0\"   #");
    assert_ne!(raised, frozen);
    std::fs::write(dir.path().join("gold.toml"), &raised).expect("written");
    let out = run(dir.path(), &["freeze", "gold.toml"]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        format!(
            "gold.toml: frozen at version 1.1.0 (sha256 {})\n",
            &new_sha[..12]
        )
    );
    let after = read(&dir, "gold.toml");
    assert_eq!(value_of(&after, "sha256"), Some(new_sha));
    assert_eq!(value_of(&after, "frozen_version").as_deref(), Some("1.1.0"));
    // A new version records its own date (tests/cli/outputs.rs checks it is not
    // the old one's).
    let date = value_of(&after, "frozen_at").expect("frozen_at");
    assert!(is_date(&date), "frozen_at = {date}");
    assert!(after.starts_with(MANIFEST.replace("1.0.0", "1.1.0").as_str()));

    // and the gold is usable again, with the new label counted
    let out = run(dir.path(), &["eval", "--gold", "gold.toml", "run.csv"]);
    assert_code(&out, 0);
    assert!(stdout(&out).contains("Q-23"));
}

/// freeze needs a manifest: a bare data file has nowhere to record the sha256.
#[test]
fn freeze_refuses_a_bare_data_file() {
    let dir = gold_dir(MANIFEST);
    let out = run(dir.path(), &["freeze", "demo.csv"]);
    assert_invalid(
        &out,
        &["freeze needs a gold manifest (.toml), not demo.csv"],
    );
}

/// Every file under `dir` (recursively) with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("readable");
                out.insert(path, bytes);
            }
        }
    }
    out
}

/// Copy `src` (recursively) into `dst`.
fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).expect("a folder");
    for entry in std::fs::read_dir(src).expect("a folder") {
        let entry = entry.expect("an entry");
        let to = dst.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).expect("copied");
        }
    }
}

/// eval and validate never write: not on success, not on invalid input, not on an
/// unfrozen gold (no sha256 is recorded behind the user's back), and they leave no
/// temporary files.
#[test]
fn inputs_are_never_modified_by_eval_or_validate() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let demo = tmp.path().join("demo");
    copy_tree(&crate_dir().join("gold"), &demo.join("gold"));
    copy_tree(&crate_dir().join("runs"), &demo.join("runs"));
    let unfrozen = tmp.path().join("unfrozen");
    copy_tree(&fixture("invalid/unfrozen"), &unfrozen);
    let changed = tmp.path().join("gold-changed");
    copy_tree(&fixture("invalid/gold-changed"), &changed);
    let broken = tmp.path().join("broken");
    copy_tree(&fixture("broken"), &broken);

    let before = files(tmp.path());
    let cases: &[(&Path, &[&str], i32)] = &[
        (&demo, &["validate"], 0),
        (&demo, &["validate", "--require-frozen"], 0),
        (&demo, &["eval", "runs/baseline.toml"], 0),
        (
            &demo,
            &["eval", "runs/candidate.toml", "--format", "json"],
            0,
        ),
        (&demo, &["eval", "gold/demo.csv", "runs/baseline.csv"], 0),
        (&demo, &["eval", "runs/baseline.toml", "--k", "2"], 2),
        (
            &unfrozen,
            &["validate", "--gold", "gold.toml", "run.toml"],
            0,
        ),
        (&unfrozen, &["eval", "--gold", "gold.toml", "run.toml"], 0),
        (
            &unfrozen,
            &[
                "eval",
                "--gold",
                "gold.toml",
                "run.toml",
                "--require-frozen",
            ],
            2,
        ),
        (
            &changed,
            &["validate", "--gold", "gold.toml", "run.toml"],
            2,
        ),
        (&changed, &["eval", "--gold", "gold.toml", "run.toml"], 2),
        (&broken, &["validate"], 2),
        (&broken, &["eval", "runs/baseline.toml"], 2),
    ];
    for (dir, args, expected) in cases {
        let out = run(dir, args);
        assert_eq!(
            out.status.code(),
            Some(*expected),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let after = files(tmp.path());
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "files were added or removed"
    );
    for (path, bytes) in &before {
        assert!(after[path] == *bytes, "{} was modified", path.display());
    }
}

/// `frozen_at` honours `SOURCE_DATE_EPOCH` (the reproducible-builds convention), as
/// every date ragdiff writes does: the same inputs freeze to the same bytes.
#[test]
fn frozen_at_is_the_day_of_source_date_epoch() {
    for (epoch, day) in [("1796083200", "2026-12-01"), ("951782400", "2000-02-29")] {
        let dir = gold_dir(MANIFEST);
        let out = crate::common::ragdiff(dir.path())
            .args(["freeze", "gold.toml"])
            .env("SOURCE_DATE_EPOCH", epoch)
            .output()
            .expect("runs");
        assert_code(&out, 0);
        let after = read(&dir, "gold.toml");
        assert_eq!(
            value_of(&after, "frozen_at").as_deref(),
            Some(day),
            "{epoch}"
        );
    }
}
