//! The report read at a glance (docs/contract.md §9.8): Markdown tables that parse as
//! GFM, p-values at their floor, the verdict block's counts, the context line, what
//! counts as changed, terminal width and the CSV export's header.

use crate::common::{FailureKind, compare_json, ragdiff_snapshot, run};

use crate::common::{Change, GENERATED, crate_dir, stdout, with, write_generated};
use crate::doc_maps::{chunks, compare};

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
    ragdiff_snapshot!(&out);
    // Ids that are Markdown themselves stay one cell.
    let tmp = generated(&[
        ("a|b", Change::NewlyFailed),
        ("`tick`", Change::Regressed),
        ("<b>x</b>", Change::Improved),
        ("[l](u)", Change::Fixed),
    ]);
    let args = with(&GENERATED, &["--format", "markdown"]);
    let out = run(tmp.path(), &args);
    assert_eq!(assert_tables_parse(&stdout(&out)), 4, "{}", stdout(&out));
}

/// A generated case (`write_generated`) of `queries`.
fn generated(queries: &[(&str, Change)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let queries: Vec<(String, Change)> =
        queries.iter().map(|(id, c)| (id.to_string(), *c)).collect();
    write_generated(tmp.path(), &queries);
    tmp
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
    assert_eq!((j.resamples, j.means.rr.p_value), (None, 1.0 / 10_001.0));
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
    ragdiff_snapshot!(&out, @"
    success: true
    exit_code: 0
    ----- stdout -----
    gold    gold, not frozen
            5 queries, 1 no-answer; relevant docs per query min 1, median 3, max 7
    corpus  -   filters none   depth 1   k 1
    index   -

    id        first rel   MRR@1  Recall@1   Hit@1     P@1  nDCG@1     MAP  Judged@1
    ───────────────────────────────────────────────────────────────────────────────
    A                 1  1.0000    1.0000  1.0000  1.0000  1.0000  1.0000    1.0000
    B                 1  1.0000    0.5000  1.0000  1.0000  1.0000  0.5000    1.0000
    C                 -  0.0000    0.0000  0.0000  0.0000  0.0000  0.0000    0.0000
    D                 1  1.0000    0.1429  1.0000  1.0000  1.0000  0.1429    1.0000
    mean (4)             0.7500    0.4107  0.7500  0.7500  0.7500  0.4107    0.7500

    no-answer queries (no relevant doc; left out of every mean): E

    note: the gold lists relevant docs only: every other doc counts as not relevant

    ----- stderr -----
    warning: gold gold.csv is a bare data file, so it is not frozen: give it a manifest and run `ragdiff freeze` on it
    ");
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
    let tmp = generated(&[
        ("A", Change::StillFailing),
        ("B", Change::StillFailing),
        ("C", Change::Regressed),
        ("D", Change::Unchanged),
    ]);
    let args = with(&GENERATED, &["--format", "markdown"]);
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
    expected.extend(["lost", "gained", "no_label_can_rescue", "errored"].map(String::from));
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
