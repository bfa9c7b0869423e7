//! The comparison's formats and exports (docs/contract.md §9): the demo's
//! Markdown and CSV pinned, the 60,000-byte bound of the Markdown on 20,000 generated
//! queries, escaping of ids in Markdown and CSV, exports that agree with stdout and
//! are written atomically, and GitHub workflow commands.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::{
    Change, CompareJson, GENERATED, Status, assert_code, assert_line, crate_dir, ragdiff,
    ragdiff_snapshot, render, run, stderr, stdout, write_generated,
};

/// The bound docs/contract.md §9.3 sets on the Markdown.
const MAX_MARKDOWN: usize = 60_000;

/// The statuses in report order.
const ORDER: [&str; 6] = [
    "newly_failed",
    "regressed",
    "still_failing",
    "improved",
    "fixed",
    "unchanged",
];

fn status_rank(status: &str) -> usize {
    ORDER
        .iter()
        .position(|s| *s == status)
        .unwrap_or_else(|| panic!("unknown status {status:?}"))
}

/// The cells of a Markdown table row, split on the `|` that are not escaped.
fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '|' => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    // "| a | b |" splits into "", " a ", " b ", ""
    assert!(
        out.len() >= 2 && out[0].trim().is_empty() && out[out.len() - 1].trim().is_empty(),
        "not a table row: {line:?}"
    );
    out[1..out.len() - 1]
        .iter()
        .map(|c| uncode(c.trim()))
        .collect()
}

/// A cell holding one code span (how ragdiff writes an id) as the id itself.
fn uncode(cell: &str) -> String {
    let n = cell.chars().take_while(|&c| c == '`').count();
    if n == 0 || cell.len() < 2 * n || !cell.ends_with(&"`".repeat(n)) {
        return cell.to_string();
    }
    let inner = &cell[n..cell.len() - n];
    // CommonMark: one space is stripped from each side when both sides have one
    let inner = if inner.len() >= 2
        && inner.starts_with(' ')
        && inner.ends_with(' ')
        && !inner.trim().is_empty()
    {
        &inner[1..inner.len() - 1]
    } else {
        inner
    };
    inner.replace("\\|", "|")
}

/// The code span ragdiff writes for an id (fence one longer than any backtick run).
fn code_span(id: &str) -> String {
    let clean = id.replace('|', "\\|");
    let longest = clean.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if clean.starts_with(['`', ' ']) || clean.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{clean}{pad}{fence}")
}

/// The text with every code span removed.
fn outside_code_spans(md: &str) -> String {
    let mut out = String::new();
    let mut rest = md;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let n = rest[start..].chars().take_while(|&c| c == '`').count();
        let fence = "`".repeat(n);
        let after = &rest[start + n..];
        // the closing fence: a run of exactly n backticks
        let mut close = None;
        let mut from = 0;
        while let Some(p) = after[from..].find(&fence) {
            let at = from + p;
            let run = after[at..].chars().take_while(|&c| c == '`').count();
            if run == n {
                close = Some(at);
                break;
            }
            from = at + run;
        }
        match close {
            Some(at) => rest = &after[at + n..],
            None => {
                out.push_str(&rest[start..]);
                return out;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every table of a Markdown text: its header and rows as cells, checking that each
/// row has as many cells as its header.
fn tables(md: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let mut out: Vec<(Vec<String>, Vec<Vec<String>>)> = Vec::new();
    let mut in_table = false;
    for line in md.lines() {
        if !line.starts_with('|') {
            in_table = false;
            continue;
        }
        let row = cells(line);
        if !in_table {
            out.push((row, Vec::new()));
            in_table = true;
            continue;
        }
        let (header, rows) = out.last_mut().expect("a table");
        assert_eq!(
            row.len(),
            header.len(),
            "a row keeps its table's cell count:\n{line}\nheader {header:?}"
        );
        if row
            .iter()
            .all(|c| c.chars().all(|ch| matches!(ch, '-' | ':')))
        {
            continue; // the delimiter row
        }
        rows.push(row);
    }
    out
}

/// The table whose first header cell is `first` and second is `second`.
fn table<'a>(
    all: &'a [(Vec<String>, Vec<Vec<String>>)],
    first: &str,
    second: &str,
) -> Option<&'a Vec<Vec<String>>> {
    all.iter()
        .find(|(h, _)| {
            h.first().map(String::as_str) == Some(first)
                && h.get(1).map(String::as_str) == Some(second)
        })
        .map(|(_, rows)| rows)
}

// ---------------------------------------------------------------------------------
// The demo's Markdown and CSV

#[test]
fn demo_markdown() {
    let out = run(crate_dir(), &["compare", "--format", "markdown"]);
    assert_code(&out, 1);
    insta::assert_snapshot!(render(&out));
}

#[test]
fn demo_csv() {
    let out = run(crate_dir(), &["compare", "--format", "csv"]);
    assert_code(&out, 1);
    insta::assert_snapshot!(render(&out));
}

/// The demo's Markdown: verdict first, the means table, newly failed before the
/// per-query table inside `<details>`, unchanged queries counted and not listed.
#[test]
fn demo_markdown_layout() {
    let out = run(crate_dir(), &["compare", "--format", "markdown"]);
    let md = stdout(&out);
    assert!(md.starts_with("## ragdiff: ❌ FAIL"), "{md}");
    let all = tables(&md);
    let newly = table(&all, "id", "failure").expect("the newly failed table");
    assert_eq!(newly.len(), 1);
    assert_eq!(newly[0][0], "Q-21");
    assert_eq!(
        newly[0][1],
        "ranking · **suspect: 1 unjudged doc entered the top 3**"
    );
    let per_query = table(&all, "id", "status").expect("the per-query table");
    let ids: Vec<&str> = per_query.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        ids,
        ["Q-21", "Q-22", "Q-18", "Q-17", "Q-23", "Q-24"],
        "unchanged and still failing (nothing moved) not listed"
    );
    // the segment table comes right after the means, worst segment first
    let segments = table(&all, "segment", "queries").expect("the segment table");
    assert_eq!(segments[0][0], "intent:billing");
    let means = md.find("| metric").expect("the means table");
    let by_segment = md.find("### By segment").expect("by segment");
    let details = md.find("<details>").expect("<details>");
    assert!(means < by_segment);
    assert!(by_segment < md.find("### Newly failed").expect("newly failed"));
    assert!(md.find("### Newly failed").expect("newly failed") < details);
    ragdiff_snapshot!(&out);
}

// ---------------------------------------------------------------------------------
// 20,000 generated queries: the Markdown stays under 60,000 bytes

/// 20,000 queries named `q00000`…, the first `newly` of them newly failed (every 7th of
/// those by retrieval), then a mix of the other statuses.
fn twenty_thousand(newly: usize) -> Vec<(String, Change)> {
    (0..20_000)
        .map(|i| {
            let change = if i < newly {
                if i % 7 == 0 {
                    Change::NewlyFailedRetrieval
                } else {
                    Change::NewlyFailed
                }
            } else {
                match i % 10 {
                    0..=2 => Change::Regressed,
                    3 | 4 => Change::Improved,
                    5 => Change::Fixed,
                    6 => Change::StillFailing,
                    _ => Change::Unchanged,
                }
            };
            (format!("q{i:05}"), change)
        })
        .collect()
}

/// Check the Markdown of a generated comparison against the JSON of the same run.
fn check_bounded_markdown(queries: &[(String, Change)]) -> String {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    write_generated(tmp.path(), queries);
    let json = tmp.path().join("r.json");
    let mut args = GENERATED.to_vec();
    let json_arg = json.display().to_string();
    args.extend(["--format", "markdown", "--export-json", &json_arg]);
    let out = run(tmp.path(), &args);
    let newly_total = queries
        .iter()
        .filter(|(_, c)| c.status() == Status::NewlyFailed)
        .count();
    assert_code(&out, if newly_total > 0 { 1 } else { 0 });
    let r: CompareJson =
        serde_json::from_slice(&std::fs::read(&json).expect("the JSON export")).expect("JSON");
    assert_eq!(r.per_query.len(), queries.len(), "JSON lists every query");
    assert_eq!(r.newly_failed.len(), newly_total);
    let md = stdout(&out);
    assert!(
        md.len() < MAX_MARKDOWN,
        "the Markdown is {} bytes, over {MAX_MARKDOWN}",
        md.len()
    );
    assert!(md.starts_with("## ragdiff: "), "verdict first");

    let all = tables(&md);
    // Changed: RR, Recall or nDCG moved (docs/contract.md §9.8).
    let changed = r
        .per_query
        .iter()
        .filter(|q| q.delta.rr != 0.0 || q.delta.recall != 0.0 || q.delta.ndcg != 0.0)
        .count();
    let unchanged = r.per_query.len() - changed;
    assert!(
        md.contains(&format!(
            "{changed} changed, {unchanged} unchanged (not listed)"
        )),
        "the per-query summary counts every query"
    );

    // newly failed: the first ones in byte order, and how many were left out
    let newly_rows = table(&all, "id", "failure").map(Vec::len).unwrap_or(0);
    if newly_total > 0 {
        let rows = table(&all, "id", "failure").expect("the newly failed table");
        let listed: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        let first: Vec<&str> = r.newly_failed[..listed.len()]
            .iter()
            .map(String::as_str)
            .collect();
        assert_eq!(
            listed, first,
            "newly failed ids in byte order, the first ones kept"
        );
        assert!(md.contains(&format!("### Newly failed ({newly_total})")));
    }
    let left_out = newly_total - newly_rows;
    let left_out_line = format!(
        "… and {left_out} more newly failed queries left out to keep this under 60000 bytes; the JSON and CSV reports hold them all."
    );
    if left_out > 0 {
        assert_line(&md, &left_out_line);
    } else {
        assert!(!md.contains("more newly failed queries left out"));
    }

    // per-query rows: newly failed first (docs/contract.md §6.2's order), then cut with "… and N more"
    let per_query = table(&all, "id", "status")
        .map(|r| r.as_slice())
        .unwrap_or(&[]);
    let statuses: Vec<usize> = per_query.iter().map(|row| status_rank(&row[1])).collect();
    assert!(
        statuses.windows(2).all(|w| w[0] <= w[1]),
        "per-query rows in status order"
    );
    assert!(per_query.iter().all(|row| row[1] != "unchanged"));
    if !per_query.is_empty() {
        assert_eq!(left_out, 0, "newly failed are the last to go");
        let nf_in_table = per_query
            .iter()
            .filter(|row| row[1] == "newly_failed")
            .count();
        assert_eq!(
            nf_in_table,
            newly_total.min(per_query.len()),
            "newly failed rows come before every other per-query row"
        );
    }
    if per_query.len() < changed {
        assert_line(&md, &format!("… and {} more", changed - per_query.len()));
    }
    md
}

/// A thousand newly failed among 20,000: they all fit, and the per-query table starts
/// with them before it is cut.
#[test]
fn markdown_of_20000_queries_lists_newly_failed_first() {
    let md = check_bounded_markdown(&twenty_thousand(1_000));
    let all = tables(&md);
    assert_eq!(table(&all, "id", "failure").map(Vec::len), Some(1_000));
    let per_query = table(&all, "id", "status").expect("per-query rows fit");
    assert!(!per_query.is_empty());
    assert!(md.contains("… and "), "rows are cut");
}

/// 150 newly failed among 20,000: the per-query table shows all of them, then other
/// rows, then "… and N more".
#[test]
fn markdown_of_20000_queries_few_newly_failed_then_other_rows() {
    let md = check_bounded_markdown(&twenty_thousand(150));
    let all = tables(&md);
    let per_query = table(&all, "id", "status").expect("per-query rows fit");
    assert!(
        per_query.len() > 150,
        "other rows after the newly failed ones"
    );
    assert!(per_query[..150].iter().all(|r| r[1] == "newly_failed"));
    assert!(per_query[150..].iter().all(|r| r[1] != "newly_failed"));
}

/// Thousands of newly failed: they do not all fit; the Markdown says how many were left
/// out.
#[test]
fn markdown_of_20000_queries_with_3000_newly_failed_says_how_many_are_left_out() {
    let md = check_bounded_markdown(&twenty_thousand(3_000));
    assert!(md.contains("more newly failed queries left out"));
}

#[test]
fn markdown_of_20000_queries_with_6000_newly_failed_says_how_many_are_left_out() {
    let md = check_bounded_markdown(&twenty_thousand(6_000));
    assert!(md.contains("more newly failed queries left out"));
}

// ---------------------------------------------------------------------------------
// Escaping

/// Ids that would break a table, start emphasis or code, or inject HTML or links.
const NASTY: [&str; 8] = [
    "pipe|id",
    "<img src=x onerror=alert(1)>",
    "`code`",
    "*star*",
    "_under_",
    "[link](https://evil.example)",
    "back\\slash",
    "amp&lt;",
];

#[test]
fn markdown_escapes_ids() {
    let mut queries: Vec<(String, Change)> = NASTY
        .iter()
        .map(|id| (id.to_string(), Change::NewlyFailed))
        .collect();
    queries.push(("<b>fixed</b>".into(), Change::Fixed));
    queries.push(("|still|".into(), Change::StillFailing));
    queries.push(("[regressed]".into(), Change::Regressed));
    let tmp = tempfile::tempdir().expect("a temporary folder");
    write_generated(tmp.path(), &queries);
    let mut args = GENERATED.to_vec();
    args.extend(["--format", "markdown"]);
    let out = run(tmp.path(), &args);
    assert_code(&out, 1);
    let md = stdout(&out);

    // every row keeps its cell count (checked by `tables`), and each id is one cell
    let all = tables(&md);
    let newly = table(&all, "id", "failure").expect("the newly failed table");
    assert_eq!(newly.len(), NASTY.len());
    let per_query = table(&all, "id", "status").expect("the per-query table");
    // The still-failing query moved no metric: not listed (docs/contract.md §9.8).
    assert_eq!(per_query.len(), queries.len() - 1);

    // every id is a code span: nothing inside is Markdown, HTML, a link or a mention
    for id in NASTY
        .iter()
        .copied()
        .chain(["<b>fixed</b>", "|still|", "[regressed]"])
    {
        assert!(
            md.contains(&code_span(id)),
            "{} not found:\n{md}",
            code_span(id)
        );
    }
    // outside code spans, no raw `<` remains but ragdiff's own tags, and no link
    let mut rest = outside_code_spans(&md);
    for tag in [
        "<details>",
        "</details>",
        "<summary>",
        "</summary>",
        "<sub>",
        "</sub>",
    ] {
        rest = rest.replace(tag, "");
    }
    assert!(!rest.contains('<'), "a raw < remains:\n{rest}");
    assert!(!rest.contains("https://"), "a link remains:\n{rest}");
}

/// CSV: ids starting with `=`, `+`, `-`, `@` get a leading `'`; numbers (negative
/// deltas included) are never altered.
#[test]
fn csv_guards_ids_against_formula_injection() {
    let queries: Vec<(String, Change)> = vec![
        ("=SUM(A1:A2)".into(), Change::NewlyFailed),
        ("+cmd".into(), Change::Regressed),
        ("-2".into(), Change::Improved),
        ("@mention".into(), Change::Fixed),
        ("Q-1".into(), Change::Unchanged),
        ("a,b \"quoted\"".into(), Change::StillFailing),
    ];
    let tmp = tempfile::tempdir().expect("a temporary folder");
    write_generated(tmp.path(), &queries);
    let mut args = GENERATED.to_vec();
    args.extend(["--format", "csv"]);
    let out = run(tmp.path(), &args);
    let mut args = GENERATED.to_vec();
    args.extend(["--format", "json"]);
    let json = run(tmp.path(), &args);
    let r: CompareJson = serde_json::from_slice(&json.stdout).expect("JSON");

    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(String::from)
        .collect();
    assert_eq!(
        header,
        [
            "id",
            "status",
            "failure_kind",
            "suspect",
            "tags",
            "baseline_rank",
            "candidate_rank",
            "baseline_rr",
            "candidate_rr",
            "delta_rr",
            "baseline_recall",
            "candidate_recall",
            "delta_recall",
            "baseline_hit",
            "candidate_hit",
            "delta_hit",
            "baseline_precision",
            "candidate_precision",
            "delta_precision",
            "baseline_ndcg",
            "candidate_ndcg",
            "delta_ndcg",
            "baseline_ap",
            "candidate_ap",
            "delta_ap",
            "lost",
            "gained",
            "no_label_can_rescue",
            "errored"
        ]
    );
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a record")).collect();
    assert_eq!(records.len(), queries.len(), "one row per query");
    let mut seen = BTreeSet::new();
    for (rec, row) in records.iter().zip(&r.per_query) {
        let expected_id = if row.id.starts_with(['=', '+', '-', '@']) {
            format!("'{}", row.id)
        } else {
            row.id.clone()
        };
        assert_eq!(&rec[0], expected_id, "same order as the JSON");
        assert_eq!(&rec[1], row.status.name());
        seen.insert(row.id.clone());
        let rank = |r: Option<u32>| r.map(|v| v.to_string()).unwrap_or_default();
        assert_eq!(&rec[4], "", "no tags in this gold");
        assert_eq!(&rec[5], rank(row.baseline.first_relevant_rank));
        assert_eq!(&rec[6], rank(row.candidate.first_relevant_rank));
        let (b, c, d) = (&row.baseline, &row.candidate, &row.delta);
        let numbers = [
            [b.rr, c.rr, d.rr],
            [b.recall, c.recall, d.recall],
            [b.hit, c.hit, d.hit],
            [b.precision, c.precision, d.precision],
            [b.ndcg, c.ndcg, d.ndcg],
            [b.ap, c.ap, d.ap],
        ]
        .concat();
        for (i, expected) in numbers.iter().enumerate() {
            let cell = &rec[7 + i];
            assert!(!cell.starts_with('\''), "a number is never guarded: {cell}");
            assert_eq!(
                cell.parse::<f64>().expect("a number"),
                *expected,
                "{}",
                row.id
            );
        }
    }
    assert_eq!(seen.len(), queries.len());
    ragdiff_snapshot!(&out, @r#"
    success: false
    exit_code: 1
    ----- stdout -----
    id,status,failure_kind,suspect,tags,baseline_rank,candidate_rank,baseline_rr,candidate_rr,delta_rr,baseline_recall,candidate_recall,delta_recall,baseline_hit,candidate_hit,delta_hit,baseline_precision,candidate_precision,delta_precision,baseline_ndcg,candidate_ndcg,delta_ndcg,baseline_ap,candidate_ap,delta_ap,lost,gained,no_label_can_rescue,errored
    '=SUM(A1:A2),newly_failed,ranking,,,1,4,1,0,-1,1,0,-1,1,0,-1,0.3333333333333333,0,-0.3333333333333333,1,0,-1,1,0.25,-0.75,r,,,
    '+cmd,regressed,,,,1,2,1,0.5,-0.5,1,1,0,1,1,0,0.3333333333333333,0.3333333333333333,0,1,0.6309297535714575,-0.36907024642854247,1,0.5,-0.5,,,,
    "a,b ""quoted""",still_failing,,,,,,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,,,,
    '-2,improved,,,,2,1,0.5,1,0.5,1,1,0,1,1,0,0.3333333333333333,0.3333333333333333,0,0.6309297535714575,1,0.36907024642854247,0.5,1,0.5,,,,
    '@mention,fixed,,,,4,1,0,1,1,0,1,1,0,1,1,0,0.3333333333333333,0.3333333333333333,0,1,1,0.25,1,0.75,,r,,
    Q-1,unchanged,,,,1,1,1,1,0,1,1,0,1,1,0,0.3333333333333333,0.3333333333333333,0,1,1,0,1,1,0,,,,

    ----- stderr -----
    warning: gold gold.toml is not frozen: run `ragdiff freeze gold.toml` so its labels cannot change unseen
    warning: only 6 queries with a relevant doc are compared; means, intervals and p-values say little on so few
    "#);
}

// ---------------------------------------------------------------------------------
// Exports

/// Every export plus the table on stdout in one run: the same verdict everywhere, and
/// each file holds the bytes its format prints on stdout.
#[test]
fn exports_and_stdout_agree() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let p = |n: &str| tmp.path().join(n).display().to_string();
    let (md, js, cs) = (p("r.md"), p("r.json"), p("r.csv"));
    for (allow, code, word) in [(false, 1, "FAIL"), (true, 0, "PASS")] {
        let mut args = vec![
            "compare",
            "--export-json",
            &js,
            "--export-csv",
            &cs,
            "--export-markdown",
            &md,
        ];
        let mut stdout_args = vec!["compare"];
        if allow {
            args.extend(["--allow-failed", "Q-21"]);
            stdout_args.extend(["--allow-failed", "Q-21"]);
        }
        let out = run(crate_dir(), &args);
        assert_code(&out, code);
        let table = stdout(&out);
        assert!(table.starts_with(word), "table: {table}");

        let json_text = std::fs::read(&js).expect("the JSON export");
        let r: CompareJson = serde_json::from_slice(&json_text).expect("JSON");
        assert_eq!(r.gate.passed, allow);
        let markdown = std::fs::read_to_string(&md).expect("the Markdown export");
        let verdict = if allow {
            "## ragdiff: ✅ PASS"
        } else {
            "## ragdiff: ❌ FAIL"
        };
        assert!(markdown.starts_with(verdict), "{markdown}");
        let csv_text = std::fs::read_to_string(&cs).expect("the CSV export");
        assert!(csv_text.contains("\nQ-21,newly_failed,"), "{csv_text}");

        // the same bytes as each format on stdout
        for (format, file) in [("json", &js), ("markdown", &md), ("csv", &cs)] {
            let mut a = stdout_args.clone();
            a.extend(["--format", format]);
            let o = run(crate_dir(), &a);
            assert_code(&o, code);
            assert_eq!(
                o.stdout,
                std::fs::read(file).expect("an export"),
                "--format {format} and its export differ"
            );
        }
    }
    let left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        left.iter().all(|n| !n.starts_with(".ragdiff-")),
        "temporary files left: {left:?}"
    );
}

/// `--export-json -` puts the JSON on stdout instead of the table.
#[test]
fn export_to_dash_is_stdout() {
    let out = run(crate_dir(), &["compare", "--export-json", "-"]);
    assert_code(&out, 1);
    let r: CompareJson = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert!(!r.gate.passed);
    let json = run(crate_dir(), &["compare", "--format", "json"]);
    assert_eq!(out.stdout, json.stdout);
}

#[test]
fn two_outputs_to_stdout_are_a_usage_error() {
    for extra in [
        &["--format", "json", "--export-csv", "-"][..],
        &["--export-json", "-", "--export-markdown", "-"],
        &["--format", "table", "--export-markdown", "-"],
    ] {
        let mut args = vec!["compare"];
        args.extend_from_slice(extra);
        let out = run(crate_dir(), &args);
        assert_code(&out, 2);
        assert!(stdout(&out).is_empty(), "{}", render(&out));
        assert!(
            stderr(&out).contains("two outputs go to stdout"),
            "{}",
            render(&out)
        );
    }
}

/// The names of the entries of `dir`.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("a folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// An export into a folder that does not exist: exit 2, no folder made, and nothing
/// of that run left behind, neither its other exports nor a temporary file.
#[test]
fn unwritable_export_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let p = |n: &str| tmp.path().join(n).display().to_string();
    let missing = p("missing/r.json");
    for (md, js, cs) in [
        (p("ok.md"), missing.clone(), p("ok.csv")),
        (p("missing/r.md"), p("ok.json"), p("ok.csv")),
        (p("ok.md"), p("ok.json"), p("missing/r.csv")),
    ] {
        let out = run(
            crate_dir(),
            &[
                "compare",
                "--export-markdown",
                &md,
                "--export-json",
                &js,
                "--export-csv",
                &cs,
            ],
        );
        assert_code(&out, 2);
        // Refused before anything is written: the folder does not exist.
        assert!(stderr(&out).contains("does not exist"), "{}", render(&out));
        assert!(stdout(&out).is_empty(), "{}", render(&out));
        assert_eq!(entries(tmp.path()), Vec::<String>::new(), "left behind");
    }
}

/// An export whose path is an existing folder cannot be renamed into place: exit 2,
/// and the run's other exports are not left behind either.
#[test]
fn export_onto_a_folder_leaves_no_other_export_behind() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir(tmp.path().join("taken")).unwrap();
    let p = |n: &str| tmp.path().join(n).display().to_string();
    let out = run(
        crate_dir(),
        &[
            "compare",
            "--export-markdown",
            &p("ok.md"),
            "--export-json",
            &p("taken"),
        ],
    );
    ragdiff_snapshot!(&out, @"
    success: false
    exit_code: 2
    ----- stdout -----

    ----- stderr -----
    error: invalid input: 1 problem
      [TEMP]/taken: cannot write [TEMP]/taken: it is a directory, not a regular file; an export replaces only a regular file (`-` writes to stdout)
    ");
    assert_eq!(entries(tmp.path()), ["taken"], "left behind");
    assert_eq!(entries(&tmp.path().join("taken")), Vec::<String>::new());
}

// ---------------------------------------------------------------------------------
// GitHub Actions workflow commands

/// The workflow commands about queries (warnings of the run itself are
/// `::warning title=ragdiff::…` and checked apart).
fn workflow_commands(err: &str) -> Vec<&str> {
    err.lines()
        .filter(|l| l.starts_with("::") && !l.starts_with("::warning title=ragdiff::"))
        .collect()
}

#[test]
fn github_actions_turns_warnings_into_workflow_commands() {
    let out = ragdiff(crate_dir())
        .arg("compare")
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("ragdiff runs");
    assert!(
        stderr(&out).lines().any(|l| l
            == "::warning title=ragdiff::only 8 queries with a relevant doc are compared; means, intervals and p-values say little on so few"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("\nwarning: "));
}

#[test]
fn github_actions_annotates_the_demo() {
    let out = ragdiff(crate_dir())
        .arg("compare")
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("ragdiff runs");
    assert_code(&out, 1);
    assert_eq!(
        workflow_commands(&stderr(&out)),
        [
            "::error title=ragdiff%3A Q-21 newly failed::query Q-21 newly failed (ranking): first relevant rank 2 -> 4; lost from top 3: D-9; suspect: 1 unjudged doc entered the top 3"
        ]
    );
    // an accepted failure is a warning, not an error
    let out = ragdiff(crate_dir())
        .args(["compare", "--allow-failed", "Q-21"])
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("ragdiff runs");
    assert_code(&out, 0);
    assert_eq!(
        workflow_commands(&stderr(&out)),
        [
            "::warning title=ragdiff%3A Q-21 newly failed::query Q-21 newly failed (ranking): first relevant rank 2 -> 4; lost from top 3: D-9; suspect: 1 unjudged doc entered the top 3 (accepted by the allow-list)",
            // The 8 demo queries cannot see a drop of 0.05 (docs/contract.md §7.3).
            "::notice title=ragdiff%3A cannot see a drop::PASS — this comparison cannot see a drop of MRR@3 smaller than 0.7134 (8 queries)"
        ]
    );
    // not under GitHub Actions: no workflow commands
    let out = run(crate_dir(), &["compare"]);
    assert!(workflow_commands(&stderr(&out)).is_empty());
}

/// At most 10 commands, then one summary line; `%` escaped in the message, and `%`,
/// `:` and `,` in the title.
#[test]
fn github_actions_at_most_ten_escaped() {
    let mut queries: Vec<(String, Change)> = vec![
        ("A%1".into(), Change::NewlyFailed),
        ("A:2,3".into(), Change::NewlyFailed),
    ];
    queries.extend((1..=10).map(|i| (format!("Q-{i:02}"), Change::NewlyFailed)));
    queries.push(("Q-99".into(), Change::Regressed));
    let tmp = tempfile::tempdir().expect("a temporary folder");
    write_generated(tmp.path(), &queries);
    let out = ragdiff(tmp.path())
        .args(GENERATED)
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("ragdiff runs");
    assert_code(&out, 1);
    let err = stderr(&out);
    // The risk annotations (docs/contract.md §7.4) come after, capped on their own.
    let lines: Vec<_> = workflow_commands(&err)
        .into_iter()
        .filter(|l| !l.contains("significant downside risk"))
        .collect();
    assert_eq!(lines.len(), 11, "10 commands and a summary:\n{err}");
    assert_eq!(
        lines[0],
        "::error title=ragdiff%3A A%251 newly failed::query A%251 newly failed (ranking): first relevant rank 1 -> 4; lost from top 3: r"
    );
    assert_eq!(
        lines[1],
        "::error title=ragdiff%3A A%3A2%2C3 newly failed::query A:2,3 newly failed (ranking): first relevant rank 1 -> 4; lost from top 3: r"
    );
    for (line, i) in lines[2..10].iter().zip(1..) {
        assert!(
            line.starts_with(&format!("::error title=ragdiff%3A Q-{i:02} newly failed::")),
            "{line}"
        );
    }
    assert_eq!(
        lines[10],
        "::error title=ragdiff::… and 2 more newly failed queries; see the job summary or the JSON report"
    );
}
