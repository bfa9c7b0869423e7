//! A hostile pull request cannot change what decides the verdict unseen
//! (docs/contract.md §12, "Tamper-evident"): each test starts from a copy of the demo's
//! `gold/` and `runs/` (or a fixture) and makes the one edit an attacker would.

use std::path::Path;

use crate::common::{assert_code, demo_copy, fixture, run, stderr, stdout, temp_copy};

const DEMO: [&str; 3] = ["compare", "runs/baseline.toml", "runs/candidate.toml"];

fn edit(dir: &Path, rel: &str, from: &str, to: &str) {
    let path = dir.join(rel);
    let text = std::fs::read_to_string(&path).expect("readable");
    assert!(text.contains(from), "{rel} has no {from:?}:\n{text}");
    std::fs::write(&path, text.replacen(from, to, 1)).expect("written");
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).expect("readable")
}

// ---------------------------------------------------------------------------------
// The frozen gold's meaning: k, min_grade and tags (docs/contract.md §4.4).

#[test]
fn k_edited_in_a_frozen_gold_is_an_input_error() {
    let dir = demo_copy();
    edit(dir.path(), "gold/demo.toml", "\nk = 3 ", "\nk = 2 ");
    let out = run(dir.path(), &DEMO);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "gold/demo.toml:9: k is 2 but the gold was frozen with k 3 (frozen_k); restore it, or raise `version` and run `ragdiff freeze`"
        ),
        "{}",
        stderr(&out)
    );
    // freeze refuses it without a raised version, and takes it with one.
    let out = run(dir.path(), &["freeze"]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "gold/demo.toml: k (3 -> 2) changed since the gold was frozen but `version` 1.1.0 is not higher than frozen_version 1.1.0; raise `version` to freeze the new meaning"
        ),
        "{}",
        stderr(&out)
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
    let dir = demo_copy();
    edit(
        dir.path(),
        "gold/demo.toml",
        "\nk = 3 ",
        "\nmin_grade = 2\nk = 3 ",
    );
    let out = run(dir.path(), &DEMO);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "gold/demo.toml:9: min_grade is 2 but the gold was frozen with min_grade 1 (frozen_min_grade); restore it, or raise `version` and run `ragdiff freeze`"
        ),
        "{}",
        stderr(&out)
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
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "gold.toml:10: tags is none but the gold was frozen with tags \"tags.csv\" (frozen_tags); restore it, or raise `version` and run `ragdiff freeze`"
        ),
        "{}",
        stderr(&out)
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
    assert_code(&out, 1);
    assert!(
        stderr(&out).contains(
            "warning: gold gold/demo.toml was frozen before ragdiff recorded k, min_grade and tags (frozen_k, frozen_min_grade, frozen_tags), so they can change unseen: run `ragdiff freeze gold/demo.toml` to record them (no version raise needed)"
        ),
        "{}",
        stderr(&out)
    );
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
    let dir = demo_copy();
    edit(dir.path(), "gold/demo.toml", "frozen_k = 3\n", "");
    let out = run(dir.path(), &DEMO);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "gold/demo.toml:9: k is 3 but the gold was frozen with k (not recorded) (frozen_k); restore it, or raise `version` and run `ragdiff freeze`"
        ),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------------------------
// A run's results are never the gold's own files (docs/contract.md §12).

/// A frozen JSON gold with a baseline, in a temporary folder.
fn json_gold() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let formats = fixture("inputs/formats");
    for name in ["gold.json", "run.json"] {
        std::fs::copy(formats.join(name), dir.path().join(name)).expect("copied");
    }
    let gold = "name = \"g\"\nversion = \"1.0.0\"\ncorpus = \"c\"\ndata = \"gold.json\"\n";
    std::fs::write(dir.path().join("gold.toml"), gold).expect("written");
    let manifest = |v: &str, results: &str| {
        format!("index_version = \"{v}\"\ncorpus = \"c\"\ndepth = 3\nresults = \"{results}\"\n")
    };
    std::fs::write(dir.path().join("base.toml"), manifest("1.0.0", "run.json")).expect("written");
    std::fs::write(dir.path().join("cand.toml"), manifest("1.1.0", "cand.json")).expect("written");
    assert_code(&run(dir.path(), &["freeze", "gold.toml"]), 0);
    dir
}

const JSON_GOLD: [&str; 6] = [
    "compare",
    "--gold",
    "gold.toml",
    "base.toml",
    "cand.toml",
    "--require-frozen",
];

#[test]
fn results_that_are_a_link_to_the_gold_data_are_refused() {
    let dir = json_gold();
    std::os::unix::fs::symlink("gold.json", dir.path().join("cand.json")).expect("a link");
    let out = run(dir.path(), &JSON_GOLD);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "cand.json: run results are the gold data gold.json (the same file or the same bytes); a run's results are never one of the gold's own files"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn results_that_copy_the_gold_datas_bytes_are_refused() {
    let dir = json_gold();
    std::fs::copy(dir.path().join("gold.json"), dir.path().join("cand.json")).expect("copied");
    let out = run(dir.path(), &JSON_GOLD);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("cand.json: run results are the gold data gold.json"),
        "{}",
        stderr(&out)
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
        "runs/../gold/demo.csv: run results are the gold data gold/demo.csv (the same file or the same bytes); a run's results are never one of the gold's own files",
        "runs/accepted-failures.csv: run results are the allow-list runs/accepted-failures.csv (the same file or the same bytes); a run's results are never one of the gold's own files",
    ] {
        assert!(err.contains(line), "no {line}\nin\n{err}");
    }
}
