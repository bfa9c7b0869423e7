//! Every outcome pinned whole: each folder of tests/fixtures/invalid/ (one
//! per validation rule) and tests/fixtures/catalogue/ (the input catalogue) goes
//! through one `insta` snapshot holding, for every command run on it, the command
//! line, the exit code, stdout and stderr (uv's pattern, `common::render`). The
//! line-level assertions in validate.rs and catalogue.rs stay: they say what each case
//! is about; these snapshots catch every other change of wording or layout.
//!
//! Also here: the typed JSON of `eval` and `compare` (common.rs) is strict — an unknown
//! key, a missing nullable key or an unknown enum value fails the parse — and every
//! JSON these fixtures produce parses into it.

use std::path::{Path, PathBuf};

use rstest::rstest;

use crate::catalogue::{Setup, prepare};
use crate::common::{CompareJson, EvalJson, code, crate_dir, fixture, render, run};

/// The gold manifest and the run manifests of a fixture folder, as paths relative to
/// it: `gold.toml` and every other `*.toml`, sorted, in the folder itself or, when it
/// has none, in its subfolders (`outside-relative` keeps them in `manifests/`).
fn manifests(dir: &Path) -> (String, Vec<String>) {
    let tomls = |sub: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join(sub))
            .expect("a fixture folder")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .map(|n| sub.join(n).display().to_string())
            .collect();
        names.sort();
        names
    };
    let mut found = tomls(Path::new(""));
    if found.is_empty() {
        let mut subs: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("a fixture folder")
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| PathBuf::from(e.file_name()))
            .collect();
        subs.sort();
        for sub in subs {
            found.extend(tomls(&sub));
        }
    }
    let gold = found
        .iter()
        .position(|n| n.ends_with("gold.toml"))
        .map(|i| found.remove(i))
        .unwrap_or_else(|| panic!("no gold.toml in {}", dir.display()));
    (gold, found)
}

/// Commands a folder gets beyond the common ones.
fn extra_commands(folder: &str, gold: &str, runs: &[String]) -> Vec<Vec<String>> {
    let strings = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match folder {
        // the rule is "a warning, and exit 2 under --require-frozen"
        "invalid/unfrozen" => {
            let mut validate = strings(&["validate", "--require-frozen", "--gold", gold]);
            validate.extend(runs.iter().cloned());
            let eval = strings(&["eval", "--require-frozen", "--gold", gold, &runs[0]]);
            vec![validate, eval]
        }
        _ => Vec::new(),
    }
}

/// Run every command on the folder (already prepared in `dir`) and return one text
/// with each command's outcome: `validate` over every run, `eval` of each run (and its
/// JSON when it succeeds), `compare` of the first run with itself; JSON output is
/// parsed into the strict types too.
fn outcomes(folder: &str, dir: &Path) -> String {
    let (gold, runs) = manifests(dir);
    let s = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let mut text = String::new();
    let record = |args: &[String], text: &mut String| -> std::process::Output {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(dir, &refs);
        text.push_str(&format!("$ ragdiff {}\n{}\n", args.join(" "), render(&out)));
        out
    };
    let mut validate = s(&["validate", "--gold", &gold]);
    validate.extend(runs.iter().cloned());
    record(&validate, &mut text);
    let mut evaluated = Vec::new();
    for r in &runs {
        let eval = s(&["eval", "--gold", &gold, r]);
        if code(&record(&eval, &mut text)) == 0 {
            evaluated.push(eval);
        }
    }
    for mut json in evaluated {
        json.extend(s(&["--format", "json"]));
        let out = record(&json, &mut text);
        let _: EvalJson = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("eval JSON does not parse: {e}\n{}", render(&out)));
    }
    if let Some(first) = runs.first() {
        let compare = s(&["compare", "--gold", &gold, first, first]);
        let out = record(&compare, &mut text);
        if matches!(code(&out), 0 | 1) {
            let mut json = compare;
            json.extend(s(&["--format", "json"]));
            let refs: Vec<&str> = json.iter().map(String::as_str).collect();
            let out = run(dir, &refs);
            let _: CompareJson = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("compare JSON does not parse: {e}\n{}", render(&out)));
        }
    }
    for args in extra_commands(folder, &gold, &runs) {
        record(&args, &mut text);
    }
    text
}

/// The snapshot's name for a fixture folder: `invalid__bad-score`.
fn snapshot_name(folder: &str) -> String {
    folder.replace('/', "__")
}

/// `tests/fixtures/<kind>/<name>` as `<kind>/<name>`.
fn folder_of(path: &Path) -> String {
    let rel = path
        .strip_prefix(crate_dir().join("tests/fixtures"))
        .unwrap_or_else(|_| panic!("{} is not a fixture", path.display()));
    rel.display().to_string()
}

/// How the catalogue prepares a folder (catalogue.rs writes the 10 MB line, the
/// symlink loop and the manifests naming data by absolute path).
fn setup_of(folder: &str) -> Setup {
    match folder {
        "catalogue/ten-mb-line" => Setup::TenMbLine,
        "catalogue/symlink-loop" => Setup::SymlinkLoop,
        "catalogue/outside-absolute" => Setup::AbsolutePaths,
        _ => Setup::InPlace,
    }
}

fn snapshot_folder(path: PathBuf) {
    let folder = folder_of(&path);
    let (dir, _keep, fixture_dir) = prepare(&folder, setup_of(&folder));
    // Only the absolute-path case prints where the fixtures live on this machine.
    let text = outcomes(&folder, &dir).replace(&fixture_dir, "[FIXTURE]");
    insta::assert_snapshot!(snapshot_name(&folder), text);
}

/// One snapshot per validation-rule fixture.
#[rstest]
fn invalid(
    #[files("tests/fixtures/invalid/*")]
    #[dirs]
    #[exclude("README.md")]
    path: PathBuf,
) {
    snapshot_folder(path);
}

/// One snapshot per catalogue case.
#[rstest]
fn catalogue(
    #[files("tests/fixtures/catalogue/*")]
    #[dirs]
    #[exclude("README.md")]
    path: PathBuf,
) {
    snapshot_folder(path);
}

/// The two tests above find their folders when the test binary is built; this one
/// looks at run time, so a folder added without a rebuild, or a snapshot left behind
/// by a removed folder, fails here.
#[test]
fn every_fixture_folder_has_exactly_one_snapshot() {
    let snapshots = crate_dir().join("tests/cli/snapshots");
    let prefix = "cli__snapshots_all__";
    let mut expected = Vec::new();
    for kind in ["invalid", "catalogue"] {
        for entry in std::fs::read_dir(fixture(kind))
            .expect("a fixture folder")
            .flatten()
        {
            if entry.path().is_dir() {
                let folder = format!("{kind}/{}", entry.file_name().to_string_lossy());
                expected.push(format!("{prefix}{}.snap", snapshot_name(&folder)));
            }
        }
    }
    expected.sort();
    let mut found: Vec<String> = std::fs::read_dir(&snapshots)
        .expect("the snapshot folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.starts_with(prefix)
                && n.ends_with(".snap")
                && (n.contains("__invalid__") || n.contains("__catalogue__"))
        })
        .collect();
    found.sort();
    assert_eq!(found, expected, "one snapshot per fixture folder");
}

// ---------------------------------------------------------------------------------
// The typed JSON is strict.

/// `serde_json::Value` of a command's JSON on stdout.
fn json_value(args: &[&str], expected: i32) -> serde_json::Value {
    let out = run(crate_dir(), args);
    assert_eq!(code(&out), expected, "{}", render(&out));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Parse `v` as `T`, returning the error text (or `None` when it parses).
fn refusal<T: serde::de::DeserializeOwned>(v: &serde_json::Value) -> Option<String> {
    serde_json::from_value::<T>(v.clone())
        .err()
        .map(|e| e.to_string())
}

/// The demo's compare JSON parses, and each kind of drift from today's keys is
/// refused: an unknown key anywhere, a missing nullable key, statistics on a metric
/// without them, an unknown status, bump or failure kind.
#[test]
fn compare_json_types_refuse_what_the_code_does_not_emit() {
    let v = json_value(&["compare", "--format", "json", "--no-gate"], 0);
    assert_eq!(refusal::<CompareJson>(&v), None, "today's JSON parses");

    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit, &str); 9] = [
        (
            "a new top-level key",
            |v| v["extra"] = 1.into(),
            "unknown field `extra`",
        ),
        (
            "a new key in gold",
            |v| v["gold"]["extra"] = 1.into(),
            "unknown field `extra`",
        ),
        (
            "a new key in a row",
            |v| v["per_query"][0]["extra"] = 1.into(),
            "unknown field `extra`",
        ),
        (
            "a p-value on P",
            |v| v["means"]["precision"]["p_value"] = 0.5.into(),
            "unknown field `p_value`",
        ),
        (
            "no p-value on RR",
            |v| {
                v["means"]["rr"]
                    .as_object_mut()
                    .expect("object")
                    .remove("p_value");
            },
            "missing field `p_value`",
        ),
        (
            "no failure_kind key",
            |v| {
                v["per_query"][0]
                    .as_object_mut()
                    .expect("object")
                    .remove("failure_kind");
            },
            "missing field `failure_kind`",
        ),
        (
            "an unknown status",
            |v| v["per_query"][0]["status"] = "wobbly".into(),
            "unknown variant `wobbly`",
        ),
        (
            "an unknown bump",
            |v| v["bump"] = "sideways".into(),
            "unknown variant `sideways`",
        ),
        (
            "an unknown failure kind",
            |v| {
                let row = v["per_query"]
                    .as_array_mut()
                    .expect("array")
                    .iter_mut()
                    .find(|r| r["status"] == "newly_failed")
                    .expect("the demo has a newly failed query");
                row["failure_kind"] = "truncation".into();
            },
            "unknown variant `truncation`",
        ),
    ];
    for (what, edit, message) in edits {
        let mut changed = v.clone();
        edit(&mut changed);
        let err = refusal::<CompareJson>(&changed).unwrap_or_else(|| panic!("{what}: accepted"));
        assert!(err.contains(message), "{what}: {err}");
    }
}

/// The same for `eval`'s JSON.
#[test]
fn eval_json_types_refuse_what_the_code_does_not_emit() {
    let v = json_value(&["eval", "runs/baseline.toml", "--format", "json"], 0);
    assert_eq!(refusal::<EvalJson>(&v), None, "today's JSON parses");

    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit, &str); 5] = [
        (
            "a new top-level key",
            |v| v["extra"] = 1.into(),
            "unknown field `extra`",
        ),
        (
            "a new key in run",
            |v| v["run"]["extra"] = 1.into(),
            "unknown field `extra`",
        ),
        (
            "a new key in a row",
            |v| v["per_query"][0]["extra"] = 1.into(),
            "unknown field `extra`",
        ),
        (
            "a new key in means",
            |v| v["means"]["unjudged"] = 1.0.into(),
            "unknown field `unjudged`",
        ),
        (
            "no first_relevant_rank key",
            |v| {
                v["per_query"][0]
                    .as_object_mut()
                    .expect("object")
                    .remove("first_relevant_rank");
            },
            "missing field `first_relevant_rank`",
        ),
    ];
    for (what, edit, message) in edits {
        let mut changed = v.clone();
        edit(&mut changed);
        let err = refusal::<EvalJson>(&changed).unwrap_or_else(|| panic!("{what}: accepted"));
        assert!(err.contains(message), "{what}: {err}");
    }
}

/// The demo's outcomes not pinned elsewhere: `eval --format json` of both runs and
/// `compare --format json`, whole.
#[test]
fn demo_json() {
    let mut text = String::new();
    for args in [
        &["eval", "runs/baseline.toml", "--format", "json"][..],
        &["eval", "runs/candidate.toml", "--format", "json"][..],
        &["compare", "--format", "json"][..],
    ] {
        let out = run(crate_dir(), args);
        text.push_str(&format!("$ ragdiff {}\n{}\n", args.join(" "), render(&out)));
    }
    insta::assert_snapshot!(text);
}
