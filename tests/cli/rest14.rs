//! Chunk maps, promote, cutoffs, reading at a glance (docs/contract.md §2.11, §6.7, §9.8): chunk maps and the
//! `coverage` failure kind, promote copying every file a manifest names,
//! `compare --cutoffs`, and the report read at a glance. Fixtures:
//! tests/fixtures/rest14.

use std::path::{Path, PathBuf};

use crate::common::{
    FailureKind, Status, assert_code, compare_json, fixture, render, run, stderr, temp_copy,
};

fn chunks() -> PathBuf {
    fixture("rest14/chunks")
}

fn compare<'a>(candidate: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["compare", "--gold", "gold.toml", "base.toml", candidate];
    a.extend_from_slice(extra);
    a
}

// ---------------------------------------------------------------------------------
// Chunk maps (§2.11)

/// Two indexes chunked differently (paragraphs, then sentences) over one
/// document-level gold: each run's chunk ids become documents through its own map,
/// a document at the rank of its first chunk.
#[test]
fn two_differently_chunked_runs_are_compared_by_document() {
    let j = compare_json(chunks(), &compare("cand.toml", &["--format", "json"]), 1);
    // D-1's two paragraphs are one document at rank 1; in the candidate D-7
    // comes first and D-1's second sentence stands at rank 2 (its first at rank 3 is
    // dropped): regressed to RR 0.5, not a duplicate.
    let q1 = j.row("Q-1");
    assert_eq!(q1.status, Status::Regressed);
    assert_eq!(q1.baseline.first_relevant_rank, Some(1));
    assert_eq!(
        (q1.candidate.first_relevant_rank, q1.candidate.rr),
        (Some(2), 0.5)
    );
    // D-8's three paragraphs are one document, so D-2 (the fourth chunk)
    // stands at document rank 2, inside k = 3.
    let q2 = j.row("Q-2");
    assert_eq!(
        (q2.baseline.first_relevant_rank, q2.baseline.rr),
        (Some(2), 0.5)
    );
    assert_eq!(q2.status, Status::Improved);
    // two chunks of D-4 count once: precision 1/3, recall 1.
    assert_eq!(j.row("Q-4").status, Status::Unchanged);
    assert!((j.row("Q-4").candidate.precision - 1.0 / 3.0).abs() < 1e-12);
    // D-3 is in the new index but not retrieved; Q-5: D-6 is not in the new
    // index at all.
    assert_eq!(j.newly_failed, ["Q-3", "Q-5"]);
    assert_eq!(j.row("Q-3").failure_kind, Some(FailureKind::Retrieval));
    assert_eq!(j.row("Q-5").failure_kind, Some(FailureKind::Coverage));
    assert_eq!(j.row("Q-5").lost, ["D-6"]);
    // Lists in documents: Q-4 is [D-4] on both sides.
    assert_eq!(j.row("Q-4").rbo, Some(1.0));
}

#[test]
fn the_coverage_kind_shows_in_the_table_and_the_markdown() {
    let out = run(chunks(), &compare("cand.toml", &[]));
    assert_code(&out, 1);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("Q-5 (coverage; lost D-6)"), "{text}");
    let out = run(chunks(), &compare("cand.toml", &["--format", "markdown"]));
    let md = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(md.contains("coverage"), "{md}");
}

/// The same documents in the same order from a re-chunked index of the same version:
/// drift and the reproducibility check see documents, so nothing moved.
#[test]
fn drift_compares_mapped_document_lists() {
    let j = compare_json(
        chunks(),
        &compare("cand-same.toml", &["--format", "json", "--min-rbo", "0.99"]),
        0,
    );
    assert!(j.nondeterministic.is_empty());
    assert_eq!(j.drift.mean_rbo, Some(1.0));
    assert!(j.per_query.iter().all(|r| r.rbo == Some(1.0)));
    assert!(j.gate.passed, "{:?}", j.gate.reasons);
}

#[test]
fn an_unmapped_chunk_is_an_input_error_at_its_line() {
    let out = run(chunks(), &compare("unmapped.toml", &[]));
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("2 problems"), "{}", render(&out));
    assert!(err.contains(
        "unmapped.csv:3: query Q-2: chunk D-2#p9 is not in the doc map chunks-v2.csv; every retrieved id must be a `chunk_id` of the map"
    ), "{err}");
    assert!(
        err.contains("unmapped.csv:6: query Q-5: chunk D-5#s1 is not in the doc map"),
        "{err}"
    );
}

#[test]
fn a_chunk_mapped_twice_is_an_input_error_at_its_line() {
    let out = run(chunks(), &compare("map-twice.toml", &[]));
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(err.contains(
        "chunks-twice.csv:4: chunk D-1#s1 is mapped twice (first at line 2); a chunk belongs to one document"
    ), "{}", render(&out));
}

/// Six chunks of three documents under depth 5: depth applies to the chunk list.
#[test]
fn depth_applies_to_the_chunk_list() {
    let out = run(chunks(), &compare("too-deep.toml", &[]));
    assert_code(&out, 2);
    assert!(
        stderr(&out)
            .contains("too-deep.csv:2: query Q-1 returned 6 docs, more than the run's depth 5"),
        "{}",
        render(&out)
    );
}

#[test]
fn a_missing_doc_map_is_named_with_its_key_line() {
    let dir = temp_copy(&chunks());
    std::fs::remove_file(dir.path().join("chunks-v2.csv")).unwrap();
    let out = run(dir.path(), &compare("cand.toml", &[]));
    assert_code(&out, 2);
    assert!(stderr(&out).contains("cand.toml:5:"), "{}", render(&out));
    assert!(stderr(&out).contains("chunks-v2.csv"), "{}", render(&out));
}

/// `eval` and `validate` read the map too.
#[test]
fn eval_and_validate_map_chunks() {
    let out = run(
        chunks(),
        &[
            "eval",
            "--gold",
            "gold.toml",
            "cand.toml",
            "--format",
            "json",
        ],
    );
    assert_code(&out, 0);
    let out = run(
        chunks(),
        &["validate", "--gold", "gold.toml", "unmapped.toml"],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("is not in the doc map"),
        "{}",
        render(&out)
    );
}

// ---------------------------------------------------------------------------------
// promote copies every file the candidate's manifest names (docs/contract.md §4.5, §2.11)

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn promote_copies_the_results_and_the_doc_map() {
    let dir = temp_copy(&chunks());
    let out = run(
        dir.path(),
        &[
            "promote",
            "--force",
            "--gold",
            "gold.toml",
            "base.toml",
            "cand.toml",
        ],
    );
    assert_code(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("it now reads base.csv (a copy of cand.csv), the doc map base-doc-map.csv (a copy of chunks-v2.csv)"),
        "{text}"
    );
    assert!(
        text.contains("note: chunks-v1.csv is no longer named by base.toml; left in place"),
        "{text}"
    );
    assert_eq!(read(dir.path(), "base.csv"), read(dir.path(), "cand.csv"));
    assert_eq!(
        read(dir.path(), "base-doc-map.csv"),
        read(dir.path(), "chunks-v2.csv")
    );
    let manifest = read(dir.path(), "base.toml");
    assert_eq!(
        manifest,
        read(dir.path(), "cand.toml")
            .replace("results = \"cand.csv\"", "results = \"base.csv\"")
            .replace(
                "doc_map = \"chunks-v2.csv\"",
                "doc_map = \"base-doc-map.csv\""
            )
    );
    let j = compare_json(dir.path(), &compare("cand.toml", &["--format", "json"]), 0);
    assert!(
        j.per_query
            .iter()
            .all(|r| r.delta.rr == 0.0 && r.rbo == Some(1.0))
    );
}

#[test]
fn promote_copies_every_repeat() {
    let dir = temp_copy(&fixture("drift"));
    let out = run(
        dir.path(),
        &[
            "promote",
            "--force",
            "--gold",
            "gold.toml",
            "base.toml",
            "cand.toml",
        ],
    );
    assert_code(&out, 0);
    // The first copy keeps the baseline's plain name; repeats follow as -2, -3.
    for i in 1..=3 {
        let copy = if i == 1 {
            "base.csv".to_string()
        } else {
            format!("base-{i}.csv")
        };
        assert_eq!(
            read(dir.path(), &copy),
            read(dir.path(), &format!("cand-{i}.csv")),
            "repeat {i}"
        );
    }
    let manifest = read(dir.path(), "base.toml");
    assert!(
        manifest.contains("results = [\"base.csv\", \"base-2.csv\", \"base-3.csv\"]"),
        "{manifest}"
    );
    let j = compare_json(
        dir.path(),
        &[
            "compare",
            "--gold",
            "gold.toml",
            "base.toml",
            "cand.toml",
            "--format",
            "json",
            // Pooled under one version, the candidate's own repeats disagree on Q-2.
            "--nondeterminism",
            "warn",
        ],
        0,
    );
    assert_eq!((j.baseline.repeats, j.candidate.repeats), (3, 3));
}

/// The copies and the manifest are one set: when one cannot be written, nothing is.
#[test]
fn promote_writes_nothing_when_a_copy_cannot_be_placed() {
    let dir = temp_copy(&chunks());
    std::fs::create_dir(dir.path().join("base-doc-map.csv")).unwrap();
    let before = read(dir.path(), "base.toml");
    let base = read(dir.path(), "base.csv");
    let out = run(
        dir.path(),
        &[
            "promote",
            "--force",
            "--gold",
            "gold.toml",
            "base.toml",
            "cand.toml",
        ],
    );
    assert_ne!(out.status.code(), Some(0), "{}", render(&out));
    assert_eq!(read(dir.path(), "base.toml"), before);
    assert_eq!(read(dir.path(), "base.csv"), base);
}

// ---------------------------------------------------------------------------------
// compare --cutoffs (§6.7)

#[test]
fn compare_cutoffs_report_each_side_at_each_cutoff_and_the_means() {
    let j = compare_json(
        chunks(),
        &compare("cand.toml", &["--format", "json", "--cutoffs", "5,1,5"]),
        1,
    );
    // D-2 at document rank 2 in the baseline, rank 1 in the candidate.
    let q2 = j.row("Q-2");
    let at = |side: &crate::common::SideJson, c: &str| side.at.as_ref().expect("at")[c];
    let keys: Vec<&String> = q2.baseline.at.as_ref().unwrap().keys().collect();
    assert_eq!(keys, ["1", "5"], "each cutoff once");
    assert_eq!(
        (at(&q2.baseline, "1").rr, at(&q2.baseline, "5").rr),
        (0.0, 0.5)
    );
    assert_eq!(at(&q2.candidate, "1").rr, 1.0);
    assert_eq!(at(&q2.baseline, "5").precision, 0.2);
    // The candidate's values agree with `eval --cutoffs` on the candidate alone.
    let e = crate::common::eval_json(
        chunks(),
        &[
            "eval",
            "--gold",
            "gold.toml",
            "cand.toml",
            "--format",
            "json",
            "--cutoffs",
            "1,5",
        ],
    );
    for row in &e.per_query {
        let mine = j.row(&row.id).candidate.at.as_ref().unwrap();
        assert_eq!(row.at.as_ref().unwrap(), mine, "{}", row.id);
    }
    // means_at: each side the mean of the rows, the delta the mean of the deltas.
    let means = j.means_at.as_ref().expect("means_at");
    let n = j.per_query.len() as f64;
    for c in ["1", "5"] {
        let b: f64 = j
            .per_query
            .iter()
            .map(|r| at(&r.baseline, c).ndcg)
            .sum::<f64>()
            / n;
        let k: f64 = j
            .per_query
            .iter()
            .map(|r| at(&r.candidate, c).ndcg)
            .sum::<f64>()
            / n;
        crate::common::assert_close(means[c].ndcg.baseline, b, "baseline nDCG");
        crate::common::assert_close(means[c].ndcg.candidate, k, "candidate nDCG");
        crate::common::assert_close(means[c].ndcg.delta, k - b, "delta nDCG");
    }
    assert_eq!(means["1"].rr.baseline, 0.8);
}

/// k, statuses, means and the gate stay at the pinned k.
#[test]
fn compare_cutoffs_never_change_the_verdict() {
    let plain = compare_json(chunks(), &compare("cand.toml", &["--format", "json"]), 1);
    let with = compare_json(
        chunks(),
        &compare("cand.toml", &["--format", "json", "--cutoffs", "1"]),
        1,
    );
    assert!(plain.means_at.is_none() && plain.per_query.iter().all(|r| r.baseline.at.is_none()));
    assert_eq!(with.k, plain.k);
    assert_eq!(with.means, plain.means);
    assert_eq!(with.gate, plain.gate);
    for (a, b) in plain.per_query.iter().zip(&with.per_query) {
        assert_eq!(
            (&a.id, a.status, a.failure_kind),
            (&b.id, b.status, b.failure_kind)
        );
    }
}

#[test]
fn compare_cutoffs_show_as_rows_of_the_means_table() {
    let out = run(chunks(), &compare("cand.toml", &["--cutoffs", "1"]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.contains("MRR@1"))
        .expect("an MRR@1 row");
    assert!(
        line.contains("0.8000") && line.contains("0.4000") && line.contains("-0.4000"),
        "{line}"
    );
}

#[test]
fn a_compare_cutoff_outside_the_depth_is_refused() {
    let out = run(chunks(), &compare("cand.toml", &["--cutoffs", "3,6"]));
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "--cutoffs: 6 is outside 1..=5 (the run's depth); each cutoff must lie in 1..=depth"
        ),
        "{}",
        render(&out)
    );
    let out = run(chunks(), &compare("cand.toml", &["--cutoffs", "0"]));
    assert_code(&out, 2);
}

// ---------------------------------------------------------------------------------
// Readable at a glance (§9.8)

use crate::common::{Change, GENERATED, crate_dir, stdout, write_generated};

/// Every table of `md` as a GitHub-flavoured renderer (pulldown-cmark with tables)
/// parses it: its column count and the number of cells of each row.
fn gfm_tables(md: &str) -> Vec<(usize, Vec<String>, Vec<usize>)> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut out: Vec<(usize, Vec<String>, Vec<usize>)> = Vec::new();
    let (mut in_head, mut cells, mut text) = (false, 0usize, String::new());
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Table(align)) => out.push((align.len(), Vec::new(), Vec::new())),
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => {
                in_head = false;
                out.last_mut().unwrap().2.push(cells);
                cells = 0;
            }
            Event::Start(Tag::TableCell) => text.clear(),
            Event::Text(t) | Event::Code(t) => text.push_str(&t),
            Event::End(TagEnd::TableCell) => {
                cells += 1;
                if in_head {
                    out.last_mut().unwrap().1.push(text.clone());
                }
            }
            Event::End(TagEnd::TableRow) => {
                out.last_mut().unwrap().2.push(cells);
                cells = 0;
            }
            _ => {}
        }
    }
    out
}

/// Each table of `md` parses with the intended column count (every row as many
/// cells as the header), and the per-query table has at most 8 columns.
#[track_caller]
fn assert_tables_parse(md: &str) -> usize {
    let tables = gfm_tables(md);
    assert!(!tables.is_empty(), "{md}");
    let mut per_query_rows = 0;
    for (cols, header, rows) in &tables {
        assert_eq!(*cols, header.len(), "{header:?}");
        assert!(rows.iter().all(|n| n == cols), "{header:?}: {rows:?}");
        if header.first().map(String::as_str) == Some("id") && header[1] == "status" {
            assert_eq!(
                header,
                &[
                    "id",
                    "status",
                    "first relevant rank",
                    "RR",
                    "Recall",
                    "nDCG",
                    "lost",
                    "gained"
                ]
            );
            per_query_rows = rows.len() - 1;
        }
    }
    per_query_rows
}

#[test]
fn markdown_tables_parse_as_gfm_with_at_most_8_per_query_columns() {
    let out = run(crate_dir(), &["compare", "--format", "markdown"]);
    // The demo's changed queries, Q-18 (flaky), Q-17, Q-23, Q-24.
    assert_eq!(assert_tables_parse(&stdout(&out)), 6, "{}", stdout(&out));
    let out = run(
        chunks(),
        &compare("cand.toml", &["--format", "markdown", "--cutoffs", "1,5"]),
    );
    let md = stdout(&out);
    assert_eq!(assert_tables_parse(&md), 4);
    assert!(
        md.contains(
            "| `Q-1` | regressed | 1 → 2 | 1.00 → 0.50 (−0.50) | 1.00 | 1.00 → 0.63 (−0.37) |  |  |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| `Q-2` | improved | 2 → 1 | 0.50 → 1.00 (+0.50) |"),
        "{md}"
    );
    // Ids that are Markdown themselves stay one cell.
    let tmp = tempfile::tempdir().unwrap();
    let queries: Vec<(String, Change)> = [
        ("a|b", Change::NewlyFailed),
        ("`tick`", Change::Regressed),
        ("<b>x</b>", Change::Improved),
        ("[l](u)", Change::Fixed),
    ]
    .iter()
    .map(|(id, c)| (id.to_string(), *c))
    .collect();
    write_generated(tmp.path(), &queries);
    let mut args = GENERATED.to_vec();
    args.extend(["--format", "markdown"]);
    let out = run(tmp.path(), &args);
    assert_eq!(assert_tables_parse(&stdout(&out)), 4, "{}", stdout(&out));
}

/// 30 queries that all regress: the sign-flip test's p is at its floor.
fn all_regressed() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let queries: Vec<(String, Change)> = (1..=30)
        .map(|i| (format!("Q-{i}"), Change::Regressed))
        .collect();
    write_generated(tmp.path(), &queries);
    tmp
}

#[test]
fn a_p_value_at_its_floor_reads_below_0_001() {
    let tmp = all_regressed();
    let out = run(tmp.path(), &GENERATED);
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.contains("MRR@3"))
        .expect("the MRR row");
    assert!(line.contains("< 0.001"), "{line}");
    let mut args = GENERATED.to_vec();
    args.extend(["--format", "markdown"]);
    let md = stdout(&run(tmp.path(), &args));
    assert!(
        md.lines()
            .any(|l| l.starts_with("| MRR@3 |") && l.contains("| < 0.001 |")),
        "{md}"
    );
    // JSON keeps the number.
    let mut args = GENERATED.to_vec();
    args.extend(["--format", "json"]);
    let j = compare_json(tmp.path(), &args, 0);
    assert_eq!((j.resamples, j.means.rr.p_value), (1000, 1.0 / 1001.0));
}

#[test]
fn a_p_value_at_its_floor_with_few_resamples_reads_as_at_most_the_floor() {
    let tmp = all_regressed();
    let mut args = GENERATED.to_vec();
    args.extend(["--resamples", "99"]);
    let text = stdout(&run(tmp.path(), &args));
    let line = text
        .lines()
        .find(|l| l.contains("MRR@3"))
        .expect("the MRR row");
    assert!(line.contains("<= 0.0100"), "{line}");
}

#[test]
fn the_verdict_block_counts_each_status() {
    let out = run(crate_dir(), &["compare"]);
    let text = stdout(&out);
    let second = text.lines().nth(1).unwrap_or_default();
    assert_eq!(
        second.trim(),
        "1 newly failed, 1 regressed, 1 improved, 2 fixed, 1 still failing"
    );
    let out = run(crate_dir(), &["compare", "--format", "markdown"]);
    let md = stdout(&out);
    let block: Vec<&str> = md.lines().take(3).collect();
    assert_eq!(
        block[2],
        "**1 newly failed, 1 regressed, 1 improved, 2 fixed, 1 still failing**"
    );
}

#[test]
fn the_context_line_shows_min_median_max_and_json_keeps_the_histogram() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("gold.csv"),
        "id,expected_doc_ids\nA,d1\nB,d1;d2\nC,d1;d2;d3;d4\nD,d1;d2;d3;d4;d5;d6;d7\nE,\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("run.csv"),
        "id,retrieved_doc_ids\nA,d1\nB,d2\nC,x\nD,d7\nE,d1\n",
    )
    .unwrap();
    let out = run(tmp.path(), &["eval", "gold.csv", "run.csv"]);
    assert!(
        stdout(&out)
            .contains("5 queries, 1 no-answer; relevant docs per query min 1, median 3, max 7\n"),
        "{}",
        render(&out)
    );
    let e = crate::common::eval_json(
        tmp.path(),
        &["eval", "gold.csv", "run.csv", "--format", "json"],
    );
    let hist: Vec<(u32, usize)> = e
        .gold
        .relevant_per_query
        .iter()
        .map(|(k, v)| (*k, *v))
        .collect();
    assert_eq!(hist, [(0, 1), (1, 1), (2, 1), (4, 1), (7, 1)]);
}

/// A still-failing query moved nothing: not "changed", not in the per-query table.
#[test]
fn changed_counts_only_queries_whose_metrics_moved() {
    let tmp = tempfile::tempdir().unwrap();
    let queries: Vec<(String, Change)> = [
        ("A", Change::StillFailing),
        ("B", Change::StillFailing),
        ("C", Change::Regressed),
        ("D", Change::Unchanged),
    ]
    .iter()
    .map(|(id, c)| (id.to_string(), *c))
    .collect();
    write_generated(tmp.path(), &queries);
    let mut args = GENERATED.to_vec();
    args.extend(["--format", "markdown"]);
    let md = stdout(&run(tmp.path(), &args));
    assert!(
        md.contains("Per-query changes: 1 changed, 3 unchanged (not listed)"),
        "{md}"
    );
    assert!(md.contains("**Still failing (2):** `A`, `B`"), "{md}");
    let text = stdout(&run(tmp.path(), &GENERATED));
    assert!(!text.contains("still_failing"), "{text}");
    assert!(text.contains("unchanged: 3 queries"), "{text}");
}

fn table_width(text: &str) -> usize {
    text.lines()
        .filter(|l| l.starts_with(['┌', '│', '└', '╞']))
        .skip_while(|l| !l.contains(" id "))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
}

/// The per-query table fits COLUMNS, dropping gained, lost, ΔnDCG, nDCG, Hit, Recall,
/// RR, first rel in that order, then stacking one query per block; ids never wrap;
/// without COLUMNS and a terminal it is not narrowed.
#[test]
fn the_terminal_table_fits_columns() {
    let wide = stdout(&run(crate_dir(), &["compare"]));
    let full = wide
        .lines()
        .find(|l| l.contains(" id ") && l.contains("gained"))
        .expect("full header")
        .to_string();
    assert!(
        table_width(&wide) > 150,
        "not narrowed without COLUMNS:\n{wide}"
    );
    let at = |cols: &str| {
        let out = crate::common::ragdiff(crate_dir())
            .env("COLUMNS", cols)
            .arg("compare")
            .output()
            .unwrap();
        stdout(&out)
    };
    let t120 = at("120");
    assert!(table_width(&t120) <= 120, "{t120}");
    let header = t120
        .lines()
        .find(|l| l.contains(" id ") && l.contains("status"))
        .unwrap();
    for kept in ["RR", "ΔRR", "Recall", "ΔRecall", "Hit"] {
        assert!(
            header.split_whitespace().any(|w| w == kept),
            "{kept} kept: {header}"
        );
    }
    for gone in ["gained", "lost", "ΔnDCG", "nDCG"] {
        assert!(
            !header.split_whitespace().any(|w| w == gone),
            "{gone} left out: {header}"
        );
    }
    assert!(t120.contains("(left out to fit 120 columns: gained, lost, ΔnDCG, nDCG; the CSV and JSON reports hold them)"), "{t120}");
    assert!(full.contains("gained"));
    // Narrower: the columns of the narrowest table stay, each id whole.
    let t50 = at("50");
    assert!(table_width(&t50) <= 50, "{t50}");
    for id in ["Q-21", "Q-22", "Q-17", "Q-23"] {
        assert!(t50.contains(&format!("│ {id} ")), "{id} whole:\n{t50}");
    }
    let note: Vec<&str> = t50
        .split("(left out to fit 50 columns: ")
        .nth(1)
        .expect("the note")
        .split_whitespace()
        .take(8)
        .collect();
    assert_eq!(
        note.join(" "),
        "gained, lost, ΔnDCG, nDCG, Hit, Recall, RR, first",
        "{t50}"
    );
    // Narrower than the narrowest table: one query per block, no line too wide.
    let t30 = at("30");
    let blocks = t30
        .split("\nQ-21\n  status     newly_failed\n")
        .nth(1)
        .expect("Q-21's block");
    let blocks = blocks.split("unchanged:").next().unwrap_or_default();
    // (Prose piped is never wrapped; the blocks fit.)
    assert!(blocks.lines().all(|l| l.chars().count() <= 30), "{t30}");
    assert!(t30.contains("  ΔRR        -0.5000\n"), "{t30}");
}

/// The CSV export's header, exactly as the contract gives it, and the lost and
/// gained ids `;`-joined.
#[test]
fn the_csv_export_holds_every_metric_failure_kind_lost_and_gained() {
    let out = run(chunks(), &compare("cand.toml", &["--format", "csv"]));
    let text = stdout(&out);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let mut expected: Vec<String> =
        "id,status,failure_kind,suspect,tags,baseline_rank,candidate_rank"
            .split(',')
            .map(String::from)
            .collect();
    for m in ["rr", "recall", "hit", "precision", "ndcg", "ap"] {
        for side in ["baseline", "candidate", "delta"] {
            expected.push(format!("{side}_{m}"));
        }
    }
    expected.extend(["lost".to_string(), "gained".to_string()]);
    assert_eq!(header, expected);
    let j = compare_json(chunks(), &compare("cand.toml", &["--format", "json"]), 1);
    for (rec, row) in reader.records().map(Result::unwrap).zip(&j.per_query) {
        assert_eq!(&rec[0], row.id);
        let kind = match row.failure_kind {
            Some(FailureKind::Coverage) => "coverage",
            Some(FailureKind::Retrieval) => "retrieval",
            Some(FailureKind::Ranking) => "ranking",
            None => "",
        };
        assert_eq!(&rec[2], kind);
        assert_eq!(rec[19].parse::<f64>().unwrap(), row.baseline.ndcg);
        assert_eq!(rec[24].parse::<f64>().unwrap(), row.delta.ap);
        assert_eq!(&rec[25], row.lost.join(";"));
        assert_eq!(&rec[26], row.gained.join(";"));
    }
}
