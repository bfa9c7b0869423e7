//! Inputs where users keep them (docs/contract.md §2.8): JSON and JSONL gold and
//! runs, every validation rule at its line, a file whose content does not fit its
//! format, parity of one run in all four formats, and ids in natural order.

use crate::common::{
    Case, EvalJson, assert_invalid, assert_stderr, eval_json, fixture, ragdiff_snapshot,
    reference_dir, run, stderr, usage_error,
};

fn formats() -> std::path::PathBuf {
    fixture("inputs/formats")
}

fn bad() -> std::path::PathBuf {
    fixture("inputs/bad")
}

/// One run (with a score tie and scores out of file order) gives the same numbers
/// in CSV, TREC, JSON and JSONL, against the same gold in TREC qrels, JSON and JSONL.
#[test]
fn one_run_same_numbers_in_every_format() {
    let mut seen: Vec<(String, EvalJson)> = Vec::new();
    for gold in [
        "gold.qrels",
        "gold.json",
        "gold.jsonl",
        "gold.long.csv",
        "gold.beir.tsv",
    ] {
        for run in [
            "run-csv.toml",
            "run-trec.toml",
            "run-json.toml",
            "run-jsonl.toml",
            "run-long.toml",
            "run-pyterrier.toml",
            "run-rank.toml",
        ] {
            let json = eval_json(formats(), &["eval", gold, run, "--format", "json"]);
            seen.push((format!("{gold} {run}"), json));
        }
    }
    let (first_name, first) = &seen[0];
    assert_eq!(first.per_query.len(), 3);
    // Q-1: D-1 (3.5) first, then the tie D-7/D-2 by doc id descending: RR 1.
    assert_eq!(first.row("Q-1").first_relevant_rank, Some(1));
    assert_eq!(first.row("Q-10").first_relevant_rank, Some(3));
    for (name, json) in &seen[1..] {
        assert_eq!(json.per_query, first.per_query, "{name} vs {first_name}");
        assert_eq!(json.means, first.means, "{name} vs {first_name}");
    }
}

/// The Vaswani runs (tests/fixtures/vaswani) converted by
/// tests/fixtures/inputs/convert.py score exactly as the TREC originals.
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn vaswani_runs_same_numbers_in_every_format() {
    let reference = reference_dir();
    let qrels = reference.join("vaswani/qrels").display().to_string();
    for r in ["a", "b"] {
        let trec = fixture(&format!("vaswani/run.{r}.trec"))
            .display()
            .to_string();
        let base = eval_json(
            fixture("inputs/vaswani"),
            &["eval", &qrels, &trec, "--k", "10", "--format", "json"],
        );
        assert_eq!(base.per_query.len(), 93);
        for ext in [
            "csv",
            "json",
            "jsonl",
            "scores.jsonl",
            "long.csv",
            "long.tsv",
            "rank.csv",
        ] {
            let file = format!("run.{r}.{ext}");
            let json = eval_json(
                fixture("inputs/vaswani"),
                &["eval", &qrels, &file, "--k", "10", "--format", "json"],
            );
            assert_eq!(json.per_query, base.per_query, "{file}");
            assert_eq!(json.means, base.means, "{file}");
        }
    }
}

/// `format = "json"` and `"jsonl"` are accepted in a manifest; a ranx run read as
/// TREC, or as JSONL, is named as JSON instead of failing on its fields.
#[test]
fn content_that_does_not_fit_its_format_is_named() {
    // `file` looks like `format` but was read as `read_as`.
    let looks_like = |file: &str, format: &str, read_as: &str| {
        let name = format.to_uppercase();
        [format!(
            "{file}: looks like {name}: set format = \"{format}\" in the manifest (or name \
             the file .{format}); it was read as {read_as}"
        )]
    };
    // Named as JSON, not failed on its fields.
    let out = run(formats(), &["eval", "gold.json", "run-json-as-trec.toml"]);
    assert_invalid(out, &looks_like("run.json", "json", "trec"));
    let out = run(formats(), &["eval", "gold.json", "run-json-as-jsonl.toml"]);
    assert_invalid(out, &looks_like("run.json", "json", "jsonl"));
    // A bare `.trec` file holding a ranx run.
    let out = run(bad(), &["eval", "gold.jsonl", "ranx.trec"]);
    assert_invalid(out, &looks_like("ranx.trec", "json", "trec"));
    // JSONL lines read as JSON.
    let out = run(bad(), &["eval", "gold.jsonl", "--k", "1", "lines.json"]);
    assert_invalid(out, &looks_like("lines.json", "jsonl", "json"));
}

/// Every run rule of docs/contract.md §6.1 in JSON and JSONL, all reported together:
/// file:line, and the JSON pointer of the value for a problem about one value.
#[test]
fn json_and_jsonl_runs_report_every_problem_at_its_line() {
    let out = run(
        bad(),
        &[
            "validate",
            "--gold",
            "gold.jsonl",
            "run-json.toml",
            "run-jsonl.toml",
        ],
    );
    // A JSON run may leave a gold query out, as TREC does; queries not in the gold
    // are ignored and counted in a warning (they enter drift only).
    ragdiff_snapshot!(out);
    assert_invalid(
        run(bad(), &["eval", "gold.jsonl", "trunc.json"]),
        &["trunc.json:3: malformed JSON: EOF while parsing a value"],
    );
    // A broken row still answers its query: it is not also "missing" (§3).
    assert_invalid(
        run(bad(), &["eval", "gold.jsonl", "scores.jsonl"]),
        &[
            "scores.jsonl:1: at /scores: query Q-1: 1 scores for 2 retrieved docs; `scores` must be as long as `retrieved_doc_ids`",
            "scores.jsonl:2: at /scores/0: query Q-2, doc D-5: score is not a number; scores must be finite numbers",
        ],
    );
}

/// Gold rules in JSON and JSONL: duplicate query, duplicate doc, non-integer grade,
/// neither or both of `expected_doc_ids` and `grades`, malformed lines.
#[test]
fn json_and_jsonl_gold_report_every_problem_at_its_line() {
    ragdiff_snapshot!(run(bad(), &["validate", "--gold", "gold.bad.jsonl"]));
    ragdiff_snapshot!(run(bad(), &["validate", "--gold", "gold.bad.json"]));
}

/// Messages quote ids, never other input text (a score given as a string).
#[test]
fn json_messages_show_no_cell_contents() {
    let out = run(
        bad(),
        &["validate", "--gold", "gold.jsonl", "run-json.toml"],
    );
    assert!(!stderr(&out).contains("high"), "{}", stderr(&out));
}

/// Ids are listed in natural order: Q-2 before Q-10 in rows and in warnings.
#[test]
fn ids_in_natural_order() {
    let json = eval_json(
        formats(),
        &["eval", "gold.qrels", "run-trec.toml", "--format", "json"],
    );
    let ids: Vec<&str> = json.per_query.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["Q-1", "Q-2", "Q-10"]);
    let out = run(formats(), &["eval", "gold.qrels", "run-trec.toml"]);
    let text = crate::common::stdout(&out);
    let at = |id: &str| {
        text.find(&format!("\n{id} "))
            .unwrap_or_else(|| panic!("{id}\n{text}"))
    };
    assert!(at("Q-2") < at("Q-10"), "{text}");
}

/// `eval --cutoffs 1,2`: per-query `at` and `means_at` keyed by the cutoff as a
/// string, equal to `--k` at that cutoff; the pinned k and the rows do not move.
#[test]
fn eval_cutoffs_report_each_cutoff() {
    let args = ["eval", "gold.qrels", "run-trec.toml", "--format", "json"];
    let json = eval_json(formats(), &[&args[..], &["--cutoffs", "2,1"]].concat());
    assert_eq!(json.k, 3);
    let means_at = json.means_at.as_ref().expect("means_at");
    assert_eq!(means_at.keys().collect::<Vec<_>>(), ["1", "2"]);
    for c in ["1", "2"] {
        let at_k = eval_json(formats(), &[&args[..], &["--k", c]].concat());
        let m = &means_at[c];
        assert_eq!(
            (m.rr, m.recall, m.hit, m.precision, m.ndcg),
            (
                at_k.means.rr,
                at_k.means.recall,
                at_k.means.hit,
                at_k.means.precision,
                at_k.means.ndcg
            ),
            "cutoff {c}"
        );
        for row in &json.per_query {
            let a = row.at.as_ref().expect("at")[c];
            let r = at_k.row(&row.id);
            assert_eq!(
                (a.rr, a.recall, a.ndcg),
                (r.rr, r.recall, r.ndcg),
                "{} @{c}",
                row.id
            );
        }
    }
    let plain = eval_json(formats(), &args);
    assert!(plain.means_at.is_none() && plain.per_query[0].at.is_none());
    // Each cutoff must lie in 1..=depth.
    let out = run(
        formats(),
        &["eval", "gold.qrels", "run-trec.toml", "--cutoffs", "1,4"],
    );
    assert_invalid(
        out,
        &["--cutoffs: 4 is outside 1..=3 (the run's depth); each cutoff must lie in 1..=depth"],
    );
    let out = run(
        formats(),
        &["eval", "gold.qrels", "run-trec.toml", "--cutoffs", "0"],
    );
    let refusal = "invalid value '0' for '--cutoffs <C,C,...>': 0 is not in 1..=4294967295";
    assert_stderr(out, 2, &usage_error(refusal));
    // The table gains the columns.
    let out = run(
        formats(),
        &["eval", "gold.qrels", "run-trec.toml", "--cutoffs", "1"],
    );
    let text = crate::common::stdout(&out);
    for col in ["MRR@1", "Recall@1", "Hit@1", "P@1", "nDCG@1"] {
        assert!(text.contains(col), "{col}\n{text}");
    }
}

/// `eval --sort worst`: RR ascending, then Recall, then id; `--sort id` (default)
/// natural order.
#[test]
fn eval_sort_worst_first() {
    let args = ["eval", "gold.qrels", "run-trec.toml", "--format", "json"];
    let ids = |extra: &[&str]| -> Vec<String> {
        eval_json(formats(), &[&args[..], extra].concat())
            .per_query
            .into_iter()
            .map(|r| r.id)
            .collect()
    };
    assert_eq!(ids(&["--sort", "worst"]), ["Q-10", "Q-2", "Q-1"]);
    assert_eq!(ids(&["--sort", "id"]), ["Q-1", "Q-2", "Q-10"]);
    assert_eq!(ids(&[]), ["Q-1", "Q-2", "Q-10"]);
}

/// Drift reads JSON runs' lists like any other format's: every query both runs list
/// has an RBO (a JSON run's collector once kept no lists, so RBO was missing).
#[test]
fn json_runs_enter_drift() {
    let case = Case::new()
        .gold("gold.csv", "id,expected_doc_ids\nQ-1,D-1\nQ-2,D-2\n")
        .run(
            "b.toml",
            "1.0.0",
            "b.json",
            r#"{"Q-1": {"D-1": 2.0, "D-9": 1.0}, "Q-2": {"D-2": 1.0}, "U-1": {"D-5": 1.0}}"#,
        )
        .run(
            "c.toml",
            "1.1.0",
            "c.json",
            r#"{"Q-1": {"D-9": 2.0, "D-1": 1.0}, "Q-2": {"D-2": 1.0}, "U-1": {"D-6": 1.0}}"#,
        )
        .key("b.toml", "depth", "2")
        .key("c.toml", "depth", "2");
    let r = crate::common::compare_json(
        case.path(),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "b.toml",
            "c.toml",
            "--format",
            "json",
            "--no-gate",
        ],
        0,
    );
    for q in &r.per_query {
        assert!(q.rbo.is_some(), "query {} has no RBO", q.id);
    }
    assert_eq!(r.drift.unlabelled_queries, 1, "U-1 is in both runs");
    assert_eq!(r.drift.most_changed_unlabelled.len(), 1);
}
