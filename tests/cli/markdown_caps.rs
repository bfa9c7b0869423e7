//! The job summary cannot be emptied (docs/contract.md §12.1): on exit 2 or 3 the
//! `--export-markdown` file still holds the refusal or the input problems, escaped and
//! capped, and the action appends it; input strings in the Markdown are capped.

use std::path::Path;

use crate::common::{COMPARE_CASE, assert_code, demo_copy, fixture, run, with};

const DEMO: [&str; 5] = [
    "compare",
    "runs/baseline.toml",
    "runs/candidate.toml",
    "--export-markdown",
    "report.md",
];

fn edit(dir: &Path, rel: &str, from: &str, to: &str) {
    let path = dir.join(rel);
    let text = std::fs::read_to_string(&path).expect("readable");
    assert!(text.contains(from), "{rel} has no {from:?}");
    std::fs::write(&path, text.replacen(from, to, 1)).expect("written");
}

fn report(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("report.md")).expect("the Markdown was written")
}

#[test]
fn on_invalid_input_the_markdown_export_holds_the_problems() {
    let dir = demo_copy();
    edit(dir.path(), "gold/demo.toml", "\nk = 3 ", "\nk = 2 ");
    let out = run(dir.path(), &DEMO);
    assert_code(&out, 2);
    let md = report(dir.path());
    assert!(
        md.starts_with("## ragdiff: ⛔ INVALID INPUT (exit 2): 1 problem\n"),
        "{md}"
    );
    assert!(
        md.contains(
            "- gold/demo.toml:9: k is 2 but the gold was frozen with k 3 (frozen\\_k); restore it, or raise \\`version\\` and run \\`ragdiff freeze\\`\n"
        ),
        "{md}"
    );
}

#[test]
fn on_a_refusal_the_markdown_export_holds_every_difference() {
    let dir = demo_copy();
    edit(
        dir.path(),
        "runs/candidate.toml",
        "corpus = \"demo-questions\"",
        "corpus = \"other\"",
    );
    let out = run(dir.path(), &DEMO);
    assert_code(&out, 3);
    let md = report(dir.path());
    assert!(
        md.starts_with(
            "## ragdiff: ⛔ REFUSED (exit 3): refusing to compare: the runs are not comparable\n"
        ),
        "{md}"
    );
    assert!(
        md.contains("- corpus:  baseline demo-questions, candidate other\n"),
        "{md}"
    );
}

#[test]
fn the_failure_markdown_is_escaped_and_capped() {
    let dir = demo_copy();
    let id = format!("<b>@team</b>{}", "x".repeat(2_000));
    let mut args = DEMO.to_vec();
    args.extend(["--allow-failed", &id]);
    let out = run(dir.path(), &args);
    assert_code(&out, 2);
    let md = report(dir.path());
    assert!(!md.contains("<b>"), "{md}");
    assert!(!md.contains("@team"), "{md}");
    let line = md
        .lines()
        .find(|l| l.starts_with("- "))
        .expect("a problem line");
    assert!(
        line.ends_with("more characters (stderr holds them)"),
        "{line}"
    );
    assert!(line.chars().count() < 500, "{}", line.chars().count());
}

#[test]
fn the_failure_markdown_never_replaces_an_input() {
    let dir = demo_copy();
    edit(dir.path(), "gold/demo.toml", "\nk = 3 ", "\nk = 2 ");
    let before = std::fs::read(dir.path().join("gold/demo.csv")).expect("the data");
    let out = run(
        dir.path(),
        &[
            "compare",
            "runs/baseline.toml",
            "runs/candidate.toml",
            "--export-markdown",
            "gold/demo.csv",
        ],
    );
    assert_code(&out, 2);
    assert_eq!(
        std::fs::read(dir.path().join("gold/demo.csv")).expect("the data"),
        before
    );
}

#[test]
fn the_action_appends_the_markdown_to_the_summary_on_exit_2() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = crate::action::gate_step(dir.path(), &fixture("tamper/fake-ragdiff-exit2"))
        .output()
        .expect("bash runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).expect("a summary");
    assert_eq!(summary, "## ragdiff: INVALID INPUT (exit 2): 1 problem\n");
}

/// The demo's Markdown report after `prepare`, with its exit code.
fn markdown(prepare: &dyn Fn(&Path), extra: &[&str]) -> (i32, String) {
    let dir = demo_copy();
    prepare(dir.path());
    let mut args = vec![
        "compare",
        "runs/baseline.toml",
        "runs/candidate.toml",
        "--format",
        "markdown",
    ];
    args.extend_from_slice(extra);
    let out = run(dir.path(), &args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// An index version is at most 128 characters (docs/contract.md §2.2), but a `[meta]`
/// value has no limit: a 70 KB one is cut at 200 characters in Markdown.
#[test]
fn a_70_kb_meta_value_cannot_push_the_verdict_and_warnings_out() {
    let long = "a".repeat(70_000);
    let (code, md) = markdown(
        &|dir| {
            edit(
                dir,
                "runs/candidate.toml",
                "results = [\"candidate.csv\", \"candidate-2.csv\", \"candidate-3.csv\"]",
                &format!("results = \"baseline.csv\"\n[meta]\nnote = \"{long}\""),
            );
        },
        &[],
    );
    assert_eq!(code, 1, "{md}");
    assert!(
        md.starts_with("## ragdiff: ❌ FAIL"),
        "{}",
        &md[..300.min(md.len())]
    );
    assert!(
        md.contains("baseline and candidate read the same results"),
        "no same-results warning"
    );
    assert!(
        md.contains(&format!("{}…", "a".repeat(200))),
        "the value is not cut at 200"
    );
    assert!(!md.contains(&"a".repeat(201)));
    assert!(md.len() < 20_000, "{} bytes", md.len());
}

#[test]
fn a_70_kb_allow_list_reason_is_cut_and_the_newly_failed_table_stays() {
    let reason = "r".repeat(70_000);
    let (code, md) = markdown(
        &|dir| {
            std::fs::write(
                dir.join("runs/allow.csv"),
                format!("id,reason\nQ-21,{reason}\n"),
            )
            .expect("written")
        },
        &["--allow-failed-file", "runs/allow.csv"],
    );
    assert_eq!(code, 0, "{md}");
    assert!(md.contains("### Newly failed (1)"), "{md}");
    assert!(
        md.contains(&format!("yes: {}…", "r".repeat(200))),
        "the reason is not cut"
    );
    assert!(!md.contains(&"r".repeat(201)));
}

#[test]
fn many_cutoffs_fold_in_the_means_table() {
    let (_, md) = markdown(&|_| {}, &["--cutoffs", "1,2,4,5"]);
    assert!(
        md.contains("| … and 5 more rows at other cutoffs; the JSON has all |"),
        "{md}"
    );
    assert!(md.contains("| RR@4 |") || md.contains("RR@4"), "{md}");
}

/// The worst case at once (docs/contract.md §9.3): twenty unlabelled queries with
/// 4 KB ids in both runs, 1,000 newly failed queries with 150-character ids (far
/// more rows than fit) and 800 `--cutoffs`. The Markdown stays under its cap and
/// keeps the verdict and its reasons, the newly failed count and its first 10 ids,
/// and the warnings; ids are cut at 200 characters; the cutoffs' rows are folded.
#[test]
fn the_worst_case_keeps_the_verdict_the_first_ten_failures_and_the_warnings() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let id = |i: usize| format!("Q-{i:04}-{}", "q".repeat(143));
    let unlabelled = |j: usize| format!("U-{j:02}-{}", "u".repeat(4096));
    let (mut gold, mut base, mut cand) = (
        String::from("id,question,expected_doc_ids,non_relevant_doc_ids\n"),
        String::from("id,retrieved_doc_ids\n"),
        String::from("id,retrieved_doc_ids\n"),
    );
    for i in 1..=1_000 {
        gold.push_str(&format!("{},q,D-{i},N-{i}\n", id(i)));
        base.push_str(&format!("{},D-{i};N-{i}\n", id(i)));
        cand.push_str(&format!("{},N-{i};A-1;A-2;D-{i}\n", id(i)));
    }
    for j in 1..=20 {
        base.push_str(&format!("{},A-1;A-2;A-3\n", unlabelled(j)));
        cand.push_str(&format!("{},A-3;A-2;A-1\n", unlabelled(j)));
    }
    let run = |version: &str, results: &str| {
        format!(
            "index_version = \"{version}\"\ncorpus = \"c\"\ndepth = 800\nresults = \"{results}\"\n"
        )
    };
    for (name, text) in [
        ("gold.csv", gold),
        (
            "gold.toml",
            "name = \"g\"\nversion = \"1.0.0\"\ncorpus = \"c\"\ndata = \"gold.csv\"\nk = 3\n"
                .to_string(),
        ),
        ("base.csv", base),
        ("cand.csv", cand),
        ("base.toml", run("1.0.0", "base.csv")),
        ("cand.toml", run("1.1.0", "cand.csv")),
    ] {
        std::fs::write(dir.path().join(name), text).expect("written");
    }
    let cutoffs: Vec<String> = (1..=800).map(|c| c.to_string()).collect();
    let cutoffs = cutoffs.join(",");
    let out = run_in(dir.path(), &cutoffs);
    assert_eq!(out.0, 1, "{}", out.1);
    let md = out.1;
    assert!(md.len() <= 60_000, "{} bytes", md.len());
    let heading = md.lines().next().unwrap_or_default();
    assert!(heading.starts_with("## ragdiff: ❌ FAIL — "), "{heading}");
    assert!(heading.contains("1000 queries newly failed"), "{heading}");
    for i in 1..=10 {
        let code = format!("`{}`", id(i));
        assert!(heading.contains(&code), "the reasons lack {}", id(i));
        assert!(
            md.lines().any(|l| l.starts_with(&format!("| {code} |"))),
            "no newly failed row for {}",
            id(i)
        );
    }
    assert!(
        md.contains("### Newly failed (1000)"),
        "no newly failed count"
    );
    assert!(md.contains("**Warnings**"), "no warnings");
    assert!(
        md.contains("run queries are not in the gold set"),
        "the unlabelled queries' warning is cut"
    );
    assert!(
        !md.contains(&"u".repeat(201)),
        "an unlabelled id is not cut"
    );
    assert!(
        md.contains("more rows at other cutoffs; the JSON has all"),
        "the cutoffs are not folded"
    );
}

/// `compare --format markdown --cutoffs CUTOFFS` in `dir`: exit code and stdout.
fn run_in(dir: &Path, cutoffs: &str) -> (i32, String) {
    let out = run(
        dir,
        &with(
            &COMPARE_CASE,
            &["--format", "markdown", "--cutoffs", cutoffs],
        ),
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The candidate's own `[meta]` (written by the pull request, never gated on) must
/// not push the newly failed rows out of the Markdown: 64 keys whose values are 200
/// `<` after the cut (800 bytes each once escaped) filled the 60,000 bytes, and the
/// cap dropped the newly failed table's only row (`… and 1 more newly failed queries
/// left out`) while it kept the metadata (found by attack4).
#[test]
fn a_large_candidate_meta_block_cannot_push_the_newly_failed_rows_out() {
    let meta: String = (0..64)
        .map(|i| {
            format!(
                "\"k{i:02}{}\" = \"{}\"\n",
                "<".repeat(120),
                "<".repeat(5_000)
            )
        })
        .collect();
    let (code, md) = markdown(
        &|dir| {
            let path = dir.join("runs/candidate.toml");
            let text = std::fs::read_to_string(&path).expect("readable");
            std::fs::write(&path, format!("{text}\n[meta]\n{meta}")).expect("written");
        },
        &[],
    );
    assert_eq!(code, 1, "{}", &md[..300.min(md.len())]);
    assert!(
        md.contains("### Newly failed (1)"),
        "no newly failed section"
    );
    assert!(
        !md.contains("newly failed queries left out"),
        "the newly failed rows were cut while the candidate's metadata stayed"
    );
    assert!(
        md.lines()
            .any(|l| l.starts_with("| `Q-21`") || l.starts_with("| Q-21")),
        "no row for Q-21 in the newly failed table"
    );
    assert!(
        md.contains("more keys; the JSON report holds them | | |"),
        "the metadata rows are not folded"
    );
}
