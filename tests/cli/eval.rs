//! `ragdiff eval`: the demo, bare files trec_eval-style, the seeds' one-file layout,
//! pinned k, TREC ties and interleaved queries.

use rstest::rstest;

use crate::common::{
    EvalJson, Row, assert_close, assert_code, assert_invalid, assert_line, crate_dir, eval_json,
    fixture, render, run, stdout,
};

/// The demo as a user runs it from the repository root: gold/demo.toml by default.
#[test]
fn demo_table() {
    let out = run(crate_dir(), &["eval", "runs/baseline.toml"]);
    assert_code(&out, 0);
    insta::assert_snapshot!(render(&out));
}

#[test]
fn demo_candidate_table() {
    let out = run(crate_dir(), &["eval", "runs/candidate.toml"]);
    assert_code(&out, 0);
    insta::assert_snapshot!(render(&out));
}

/// The seeds' numbers (Recall@3 guide: Q-17 1/2, Q-18 1; MRR guide: Q-21 1/2, Q-22 1,
/// Q-23 0) read back from the JSON as typed values.
#[test]
fn demo_json_has_the_seeds_numbers() {
    let r = eval_json(
        crate_dir(),
        &["eval", "runs/baseline.toml", "--format", "json"],
    );
    assert_eq!(r.schema_version, "2.3.0");
    assert_eq!(r.k, 3, "the demo gold pins k = 3");

    assert_close(r.row("Q-17").recall, 0.5, "Q-17 recall@3");
    assert_close(r.row("Q-18").recall, 1.0, "Q-18 recall@3");
    assert_close(r.row("Q-21").rr, 0.5, "Q-21 RR@3");
    assert_eq!(r.row("Q-21").first_relevant_rank, Some(2));
    assert_close(r.row("Q-22").rr, 1.0, "Q-22 RR@3");
    assert_eq!(r.row("Q-22").first_relevant_rank, Some(1));
    assert_close(r.row("Q-23").rr, 0.0, "Q-23 RR@3");
    assert_eq!(r.row("Q-23").first_relevant_rank, None);
    // the MRR guide's demo mean over its three cases
    let seed_mrr = ["Q-21", "Q-22", "Q-23"]
        .iter()
        .map(|id| r.row(id).rr)
        .sum::<f64>()
        / 3.0;
    assert_close(seed_mrr, 0.5, "MRR of Q-21, Q-22, Q-23");

    // Q-26 has no relevant doc: listed apart, never scored, left out of every mean
    assert_eq!(r.no_answer, ["Q-26"]);
    assert!(r.per_query.iter().all(|row| row.id != "Q-26"));
    assert_eq!(r.per_query.len(), 8);
    let mean_rr = r.per_query.iter().map(|row| row.rr).sum::<f64>() / 8.0;
    assert_close(r.means.rr, mean_rr, "mean RR over the 8 answerable queries");
    assert_close(r.means.rr, 4.5 / 8.0, "mean RR");
    // unlabelled queries (U-1, U-2, U-3) are in no row and no mean
    assert!(r.per_query.iter().all(|row| row.id.starts_with("Q-")));

    // rows come in byte order of id (natural order agrees on these ids)
    let ids: Vec<&str> = r.per_query.iter().map(|row| row.id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted);

    assert_eq!(r.gold.name, "demo");
    assert_eq!(r.gold.version.as_deref(), Some("1.1.0"));
    assert_eq!(r.gold.frozen_at.as_deref(), Some("2026-12-01"));
    assert!(r.gold.frozen);
    assert_eq!(r.gold.sha256.as_deref().map(str::len), Some(64));
    assert_eq!(r.gold.corpus.as_deref(), Some("demo-questions"));
    assert_eq!(r.gold.queries, 9);
    assert_eq!(r.gold.relevant_per_query.get(&0), Some(&1));
    assert_eq!(r.gold.relevant_per_query.get(&1), Some(&6));
    assert_eq!(r.gold.relevant_per_query.get(&2), Some(&2));
    assert_eq!(r.run.index_version.as_deref(), Some("2.3.0"));
    assert_eq!(r.run.corpus.as_deref(), Some("demo-questions"));
    assert_eq!(r.run.depth, 5);
    assert_eq!(
        r.run.filters.get("access").map(String::as_str),
        Some("public")
    );
    assert!(r.run.results.ends_with("baseline.csv"));
    assert_eq!(r.run.repeats, 2, "eval averages over both baseline repeats");
    // the only warning: each repeat holds the three unlabelled queries, said once
    assert_eq!(
        r.warnings,
        [
            "runs/baseline.csv: 3 run queries are not in the gold set: left out of the metrics, \
          as trec_eval does; compare counts them in drift: U-1, U-2, U-3 (the same in 1 other \
          repeat)"
        ]
    );
}

/// Nothing but ids is printed: no question text from the gold.
#[test]
fn demo_output_holds_no_question_text() {
    for format in ["table", "json"] {
        let out = run(
            crate_dir(),
            &["eval", "runs/baseline.toml", "--format", format],
        );
        assert_code(&out, 0);
        let all = render(&out);
        for question in ["Когда пришлют акт", "reset a password", "home address"] {
            assert!(!all.contains(question), "{format} shows {question:?}");
        }
    }
}

/// `--k` is refused when the gold pins k: nobody picks k after seeing results.
#[test]
fn k_is_refused_when_the_gold_pins_it() {
    let out = run(crate_dir(), &["eval", "runs/baseline.toml", "--k", "5"]);
    assert!(stdout(&out).is_empty());
    assert_invalid(
        &out,
        &[
            "--k is not allowed: the gold manifest pins k = 3 so nobody picks k after seeing results",
        ],
    );
}

/// Bare CSV files, trec_eval-style: the gold is unfrozen and the depth is the longest
/// returned list (4 in the demo baseline).
#[test]
fn bare_csv_files() {
    let r = eval_json(
        crate_dir(),
        &[
            "eval",
            "gold/demo.csv",
            "runs/baseline.csv",
            "--k",
            "4",
            "--format",
            "json",
        ],
    );
    assert_eq!(r.k, 4);
    assert_eq!(r.run.depth, 4);
    assert!(!r.gold.frozen);
    assert_eq!(r.gold.sha256, None);
    assert!(
        r.warnings.iter().any(|w| w.contains("is not frozen")),
        "{:?}",
        r.warnings
    );
    // at k = 4 the demo's Q-25 finds both relevant docs
    assert_close(r.row("Q-25").recall, 1.0, "Q-25 recall@4");
    assert_close(r.row("Q-17").recall, 0.5, "Q-17 recall@4");
    assert_eq!(r.no_answer, ["Q-26"]);
}

/// docs/contract.md §2.6: with bare files (and the one-file layout) "depth is the longest returned
/// list, and k is `--k` or the depth". (Found by this test: without `--k`, k is 1.)
#[rstest]
#[case::bare_csv(crate_dir().to_path_buf(), &["gold/demo.csv", "runs/baseline.csv"][..], 4)]
#[case::bare_trec(fixture("ties"), &["qrels", "run.trec"][..], 4)]
#[case::one_file(fixture("onefile"), &["seeds.csv"][..], 3)]
fn bare_inputs_default_k_is_the_depth(
    #[case] dir: std::path::PathBuf,
    #[case] inputs: &[&str],
    #[case] depth: u32,
) {
    let mut args = vec!["eval", "--format", "json"];
    args.extend_from_slice(inputs);
    let r = eval_json(&dir, &args);
    assert_eq!(r.run.depth, depth);
    assert_eq!(r.k, depth, "k defaults to the depth");
}

/// `ragdiff eval qrels run --k 10`, as a trec_eval user types it.
#[test]
fn bare_trec_files_with_k() {
    let r = eval_json(
        fixture("ties"),
        &["eval", "qrels", "run.trec", "--k", "10", "--format", "json"],
    );
    assert_eq!(r.k, 10);
    assert_eq!(r.run.depth, 4, "depth is the longest list");
    assert_eq!(r.run.results, "run.trec");
    assert_eq!(r.gold.name, "qrels");
    assert_eq!(r.gold.version, None);
    assert_eq!(r.gold.corpus, None);
    assert_eq!(r.run.corpus, None);
    assert_eq!(r.run.index_version, None);
    assert!(r.run.filters.is_empty());
}

/// `--k` above the measured depth of a bare run is allowed (P@k divides by k).
#[test]
fn bare_trec_files_with_k_above_the_longest_list() {
    let r = eval_json(
        fixture("ties"),
        &[
            "eval", "qrels", "run.trec", "--k", "100", "--format", "json",
        ],
    );
    assert_eq!(r.k, 100);
    assert_close(r.row("T1").precision, 0.01, "T1 P@100");
}

/// The seeds' one-file layout: id,question,expected_doc_ids,retrieved_doc_ids,index_version.
#[test]
fn one_file_layout() {
    let dir = fixture("onefile");
    let r = eval_json(&dir, &["eval", "seeds.csv", "--k", "3", "--format", "json"]);
    assert_eq!(r.k, 3);
    assert_eq!(r.run.depth, 3, "the depth is the longest list");
    assert_eq!(r.run.index_version.as_deref(), Some("2.3.0"));
    assert_close(r.row("Q-17").recall, 0.5, "Q-17 recall@3");
    assert_close(r.row("Q-18").recall, 1.0, "Q-18 recall@3");
    assert_close(r.row("Q-21").rr, 0.5, "Q-21 RR@3");
    assert_close(r.row("Q-22").rr, 1.0, "Q-22 RR@3");
    assert_close(r.row("Q-23").rr, 0.0, "Q-23 RR@3");
    assert_eq!(r.row("Q-23").first_relevant_rank, None);
    assert!(r.no_answer.is_empty());
    assert_close(r.means.rr, (1.0 + 1.0 + 0.5 + 1.0 + 0.0) / 5.0, "MRR");
    assert_close(
        r.means.recall,
        (0.5 + 1.0 + 1.0 + 1.0 + 0.0) / 5.0,
        "recall",
    );
    // the layout's extra columns are expected: no "ignoring extra column" warning
    assert!(
        !r.warnings.iter().any(|w| w.contains("extra column")),
        "{:?}",
        r.warnings
    );

    let out = run(&dir, &["eval", "seeds.csv", "--k", "3"]);
    assert_code(&out, 0);
    assert!(!render(&out).contains("Когда пришлют акт"));
    insta::assert_snapshot!(render(&out));
}

/// trec_eval's order: score descending, ties by doc id descending in byte order, the
/// rank column ignored (see tests/fixtures/ties/README.md).
#[test]
fn trec_ties_and_rank_column() {
    let r = eval_json(
        fixture("ties"),
        &["eval", "qrels", "run.trec", "--k", "3", "--format", "json"],
    );
    // "D9" > "D10" in byte order: D9 first, D10 second
    assert_eq!(r.row("T1").first_relevant_rank, Some(2));
    assert_close(r.row("T1").rr, 0.5, "T1 RR@3");
    // constant scores: D3, D2, D10, D1
    assert_eq!(r.row("T2").first_relevant_rank, Some(2));
    // scores 1.0, 3.0, 2.0 with ranks 1, 2, 3: by score, A is third
    assert_eq!(r.row("T3").first_relevant_rank, Some(3));
    assert_close(r.row("T3").rr, 1.0 / 3.0, "T3 RR@3");
    // 0.5 > 1e-3 > -2
    assert_eq!(r.row("T4").first_relevant_rank, Some(3));
    // judged, missing from the run: an empty ranking, scored 0, not a no-answer query
    let t6 = r.row("T6");
    assert_eq!(t6.first_relevant_rank, None);
    assert_eq!((t6.rr, t6.recall, t6.ap), (0.0, 0.0, 0.0));
    assert_eq!(r.no_answer, ["T7"]);
    assert_eq!(r.per_query.len(), 5);

    let warnings = r.warnings.join("\n");
    assert_line(
        &warnings,
        "run.trec: 1 query has all-equal scores, so they are ranked by doc id (descending), as trec_eval does: T2",
    );
    assert_line(
        &warnings,
        "run.trec: 1 query has scores whose order disagrees with the rank column; ragdiff, like trec_eval, ranks by score: T3",
    );
    assert_line(
        &warnings,
        "run.trec: 1 run query is not in the gold set: left out of the metrics, as trec_eval does; compare counts them in drift: T9",
    );
    // T1's tie agrees with its rank column and T4's scores with theirs: not warned
    assert!(
        !warnings.contains("T1") && !warnings.contains("T4"),
        "{warnings}"
    );

    let out = run(fixture("ties"), &["eval", "qrels", "run.trec", "--k", "3"]);
    assert_code(&out, 0);
    insta::assert_snapshot!(render(&out));
}

/// Interleaved queries are read as well as grouped ones, with the same numbers.
#[test]
fn trec_interleaved_equals_grouped() {
    for k in ["1", "3", "10"] {
        let grouped = eval_json(
            fixture("ties"),
            &["eval", "qrels", "run.trec", "--k", k, "--format", "json"],
        );
        let interleaved = eval_json(
            fixture("ties"),
            &[
                "eval",
                "qrels",
                "run.interleaved.trec",
                "--k",
                k,
                "--format",
                "json",
            ],
        );
        assert_eq!(interleaved.run.depth, grouped.run.depth);
        assert_eq!(interleaved.per_query, grouped.per_query, "k = {k}");
        assert_eq!(interleaved.means, grouped.means, "k = {k}");
        assert_eq!(interleaved.no_answer, grouped.no_answer);
        let renamed: Vec<String> = interleaved
            .warnings
            .iter()
            .map(|w| w.replace("run.interleaved.trec", "run.trec"))
            .collect();
        assert_eq!(renamed, grouped.warnings);
    }
}

/// The seeds' one-file layout gives the demo's numbers for the queries both hold.
/// Only the unjudged counts differ: the demo gold also judges docs not relevant (Q-18
/// D-8, Q-21 D-4, Q-22 D-3), so it leaves fewer docs unjudged, never more.
#[test]
fn onefile_equals_the_demo_on_shared_queries() {
    let onefile: EvalJson = eval_json(
        fixture("onefile"),
        &["eval", "seeds.csv", "--k", "3", "--format", "json"],
    );
    let demo = eval_json(
        crate_dir(),
        &["eval", "runs/baseline.toml", "--format", "json"],
    );
    let mut fewer = Vec::new();
    for row in &onefile.per_query {
        let d = demo.row(&row.id);
        let same_judgements = Row {
            unjudged_at_k: row.unjudged_at_k,
            ..d.clone()
        };
        assert_eq!(row, &same_judgements, "query {}", row.id);
        assert!(d.unjudged_at_k <= row.unjudged_at_k, "query {}", row.id);
        if d.unjudged_at_k < row.unjudged_at_k {
            fewer.push(row.id.as_str());
        }
    }
    assert_eq!(fewer, ["Q-18", "Q-21", "Q-22"]);
}

/// `min_grade` in the gold manifest (trec_eval's -l): grades below it are not
/// relevant, but every positive grade is still a gain for nDCG.
#[test]
fn min_grade_from_the_gold_manifest() {
    let r = eval_json(
        fixture("graded"),
        &[
            "eval",
            "--gold",
            "gold.toml",
            "run.toml",
            "--k",
            "3",
            "--format",
            "json",
        ],
    );
    // G1 ranks D (-1), A (1), B (3), C (2); with min_grade 2 only B and C are relevant
    let g1 = r.row("G1");
    assert_eq!(g1.first_relevant_rank, Some(3));
    assert_close(g1.rr, 1.0 / 3.0, "G1 RR@3");
    assert_close(g1.recall, 0.5, "G1 recall@3");
    assert_close(g1.precision, 1.0 / 3.0, "G1 P@3");
    let l3 = 3f64.log2();
    assert_close(
        g1.ndcg,
        (1.0 / l3 + 3.0 / 2.0) / (3.0 + 2.0 / l3 + 1.0 / 2.0),
        "G1 nDCG@3 (A's grade 1 is a gain)",
    );
    assert_close(g1.ap, (1.0 / 3.0 + 2.0 / 4.0) / 2.0, "G1 AP");
    // G2 has grades 1 and 0 only: no relevant doc, so a no-answer query
    assert_eq!(r.no_answer, ["G2"]);
    assert_eq!(r.gold.relevant_per_query.get(&2), Some(&1));
}

/// CSV as docs/contract.md §2.5 allows it: BOM, CRLF, columns in any order, an extra column (warned),
/// RFC 4180 quoting, ids trimmed, an empty id list (see tests/fixtures/csv-dialects).
#[test]
fn csv_dialects() {
    let r = eval_json(
        fixture("csv-dialects"),
        &[
            "eval",
            "--gold",
            "gold.toml",
            "run.toml",
            "--format",
            "json",
        ],
    );
    assert_eq!(r.k, 2);
    let q1 = r.row("Q-1");
    assert_eq!(q1.first_relevant_rank, Some(2), "\"D-1;D-2\" is two ids");
    assert_close(q1.recall, 0.5, "Q-1 recall@2");
    let q2 = r.row("Q-2");
    assert_eq!(q2.first_relevant_rank, Some(1), "\" D-3 \" is D-3");
    assert_eq!(r.no_answer, ["Q-3"]);
    assert!(
        r.warnings
            .iter()
            .any(|w| w == "gold.csv:1: ignoring extra column `notes`"),
        "{:?}",
        r.warnings
    );
    // the note's text is never shown
    let out = run(
        fixture("csv-dialects"),
        &["eval", "--gold", "gold.toml", "run.toml"],
    );
    assert_code(&out, 0);
    assert!(!render(&out).contains("a note"));
}
