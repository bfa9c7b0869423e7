//! GitHub-flavoured Markdown for a pull-request comment or job summary: verdict
//! first, context, means, newly failed queries, a picture of where the first
//! relevant doc sits, then per-query changes inside `<details>`. Always under
//! [`MAX_BYTES`]: per-query rows are cut first (newly failed last to go), then the
//! newly failed list itself, saying how many were left out.

use std::fmt::Write;

use crate::compare::QueryRow;
use crate::gate::NiVerdict;
use crate::report::{
    CompareReport, Rows, VerdictWord, drift_line, filters_text, flaky_note, flaky_rows,
    has_repeats, means_cells, means_header, non_inferiority_cells, num, rank, segment_cells,
    segment_header, status_counts, suspect_marker,
};
use crate::text::and_more;

/// GitHub truncates comments and summaries near 64 KiB; stay clearly below.
pub const MAX_BYTES: usize = 60_000;

/// At most this many warnings are listed.
const MAX_WARNINGS: usize = 20;

/// Each warning or note is cut to this many characters (the JSON report holds it
/// whole), so one long warning cannot push the rows out of the report.
pub const MAX_WARNING_CHARS: usize = 300;

/// `text` cut to [`MAX_WARNING_CHARS`] characters, saying how many were left out.
fn capped(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_WARNING_CHARS) {
        None => text.into(),
        Some((end, _)) => format!(
            "{}… and {} more characters (the JSON report holds them)",
            &text[..end],
            text[end..].chars().count()
        )
        .into(),
    }
}

/// Every input string Markdown shows (manifest values, reasons, ids in code spans)
/// is cut to this many characters and an ellipsis (docs/contract.md §9.3); JSON
/// holds the whole value.
pub const MAX_INPUT_CHARS: usize = 200;

/// Rows of the means table at extra cutoffs shown before the rest are folded into
/// one line (800 `--cutoffs` would fill the report with them).
const MAX_CUTOFF_ROWS: usize = 15;

/// An input string cut to [`MAX_INPUT_CHARS`] characters, `…` marking the cut.
fn cut_input(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_INPUT_CHARS) {
        None => text.into(),
        Some((end, _)) => format!("{}…", &text[..end]).into(),
    }
}

/// An input string, cut ([`cut_input`]) and escaped ([`escape`]).
pub fn escape_input(text: &str) -> String {
    escape(&cut_input(text))
}

/// At most this many problems or differences are listed when ragdiff stops.
const MAX_FAILURE_LINES: usize = 50;

/// The Markdown written to `--export-markdown` when ragdiff stops with exit 2 or 3
/// (docs/contract.md §12.1): no comparison exists, so it holds the refusal or the
/// input problems, each escaped and cut to [`MAX_WARNING_CHARS`] characters, at most
/// [`MAX_FAILURE_LINES`] of them (stderr has them all).
pub fn render_failure(title: &str, lines: &[String]) -> String {
    let mut s = format!("## ragdiff: ⛔ {}\n\n", escape(title));
    s.push_str(
        "No comparison was made, so the verdict is not PASS: fix what follows and run again.\n\n",
    );
    for line in lines.iter().take(MAX_FAILURE_LINES) {
        let line = match line.char_indices().nth(MAX_WARNING_CHARS) {
            None => escape(line),
            Some((end, _)) => format!(
                "{}… and {} more characters (stderr holds them)",
                escape(&line[..end]),
                line[end..].chars().count()
            ),
        };
        let _ = writeln!(s, "- {line}");
    }
    if lines.len() > MAX_FAILURE_LINES {
        let _ = writeln!(
            s,
            "-{}; stderr has all",
            and_more(lines.len(), MAX_FAILURE_LINES)
        );
    }
    s.push_str(&format!(
        "\n<sub>ragdiff {}</sub>\n",
        env!("CARGO_PKG_VERSION")
    ));
    cap(s)
}

/// Escape free text so it cannot break a line or a table cell, start emphasis or
/// code, inject HTML, or become a link or a mention (control and format characters
/// shown escaped by [`crate::text::shown`], then a word joiner, U+2060, after `@`,
/// into `://` and `www.`).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in crate::text::shown(text).chars() {
        match ch {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '`' | '*' | '_' | '[' | ']' | '\\' | '#' | '~' | '!' | '$' => {
                out.push('\\');
                out.push(ch);
            }
            '@' => out.push_str("@\u{2060}"),
            c => out.push(c),
        }
    }
    out.replace("://", ":\u{2060}//")
        .replace("www.", "www\u{2060}.")
}

/// An id as a code span: nothing inside is Markdown, HTML, a link or a mention.
/// The fence is one backtick longer than any run inside; `|` is escaped for tables.
pub fn code(id: &str) -> String {
    let clean = crate::text::shown(&cut_input(id)).replace('|', "\\|");
    let longest = clean.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if clean.starts_with(['`', ' ']) || clean.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{clean}{pad}{fence}")
}

fn ids(list: &[impl AsRef<str>]) -> String {
    list.iter()
        .map(|s| code(s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn arrow(b: String, c: String) -> String {
    crate::report::arrow(b, c, "→")
}

/// Render within [`MAX_BYTES`].
pub fn render(r: &CompareReport) -> String {
    cap(fit(r))
}

/// The largest rendering that fits: per-query rows cut first, then segments
/// (docs/contract.md §6.6), then the newly failed list.
fn fit(r: &CompareReport) -> String {
    let rows = Rows::of(r);
    let (newly, changed, segs) = (
        rows.newly_failed.len(),
        rows.changed.len(),
        r.segments.len(),
    );
    // More rows than could fit are never rendered: the search starts from these.
    let most = [
        MAX_BYTES / min_row_bytes(5),
        MAX_BYTES / min_row_bytes(PER_QUERY_HEADER.len()),
        MAX_BYTES / min_row_bytes(10),
    ];
    let fixed = Fixed::of(r);
    let fits = |nf: usize, n: usize, sg: usize| {
        nf <= most[0]
            && n <= most[1]
            && sg <= most[2]
            && render_with(r, &rows, &fixed, [nf, n, sg]).len() <= MAX_BYTES
    };
    let (nf, n, sg) = if fits(newly, changed, segs) {
        (newly, changed, segs)
    } else if fits(newly, 0, segs) {
        let n = largest(changed.min(most[1]), |n| fits(newly, n, segs));
        (newly, n, segs)
    } else if fits(newly, 0, 0) {
        (
            newly,
            0,
            largest(segs.min(most[2]), |sg| fits(newly, 0, sg)),
        )
    } else {
        (largest(newly.min(most[0]), |nf| fits(nf, 0, 0)), 0, 0)
    };
    render_with(r, &rows, &fixed, [nf, n, sg])
}

/// The fewest bytes a table row of `cells` cells can take: `| `, ` | ` between
/// cells, ` |` and the newline, and the id's code span, two backticks at least
/// (the newly failed, per-query and segment tables each start with one). `x` rows
/// of one table take at least `x` times this, so more than
/// `MAX_BYTES / min_row_bytes(cells)` of them never fit.
const fn min_row_bytes(cells: usize) -> usize {
    2 + 3 * (cells - 1) + 2 + 1 + 2
}

/// The largest `x` in `0..=hi` for which `fits(x)` holds (`fits` is monotone; 0 when
/// none does).
fn largest(hi: usize, fits: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, hi);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    lo
}

/// The last resort when even the shortest rendering is too large (ids of many
/// kilobytes, say): cut at a line, close what was left open, and say so.
fn cap(text: String) -> String {
    if text.len() <= MAX_BYTES {
        return text;
    }
    const NOTE: &str = "\n… the report was cut here to stay under 60,000 bytes; the JSON and CSV reports hold everything.\n";
    let mut end = MAX_BYTES - NOTE.len() - 64;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map_or(end, |p| p + 1);
    let mut out = text[..end].to_string();
    if out.matches("```").count() % 2 == 1 {
        out.push_str("```\n");
    }
    if out.matches("<details>").count() > out.matches("</details>").count() {
        out.push_str("\n</details>\n");
    }
    out.push_str(NOTE);
    out
}

/// The sections whatever the number of rows shown, rendered once for all of
/// [`fit`]'s tries (each goes over every query): what comes before the segments,
/// between the newly failed and the per-query changes, and after those.
struct Fixed {
    head: String,
    middle: String,
    tail: String,
}

impl Fixed {
    fn of(r: &CompareReport) -> Self {
        let mut head = String::new();
        heading(&mut head, r);
        means(&mut head, r);
        latency(&mut head, r);
        non_inferiority(&mut head, r);
        risk(&mut head, r);
        let mut middle = String::new();
        id_lists(&mut middle, r);
        noise(&mut middle, r);
        chart(&mut middle, r);
        middle.push_str(&super::history::compare_markdown(r));
        let mut tail = String::new();
        team_meta(&mut tail, r);
        warnings(&mut tail, r);
        let _ = writeln!(
            tail,
            "<sub>ragdiff {} · sign-flip p exact up to {} moved queries, else {}; seed {}</sub>",
            env!("CARGO_PKG_VERSION"),
            crate::stats::EXACT_MAX,
            r.resamples.map_or_else(
                || "Monte Carlo draws by the moved queries".to_string(),
                |n| format!("{n} resamples")
            ),
            r.seed
        );
        Self { head, middle, tail }
    }
}

/// Render with at most `nf_rows` newly failed rows, `n_rows` per-query rows and
/// `seg_rows` segments.
fn render_with(
    r: &CompareReport,
    rows: &Rows,
    fixed: &Fixed,
    [nf_rows, n_rows, seg_rows]: [usize; 3],
) -> String {
    let mut s = fixed.head.clone();
    by_segment(&mut s, r, seg_rows);
    newly_failed(&mut s, r, &rows.newly_failed, nf_rows);
    accept_hint(&mut s, r);
    s.push_str(&fixed.middle);
    per_query(&mut s, rows, rows.unchanged(r), n_rows);
    s.push_str(&fixed.tail);
    s
}

/// The allow-list lines that would accept the failing new failures (§8.5).
fn accept_hint(s: &mut String, r: &CompareReport) {
    if let Some(h) = &r.accept_hint {
        if !h.lines.is_empty() {
            let _ = writeln!(s, "To accept them, add to {}:\n", code(&h.list));
            for line in &h.lines {
                let _ = writeln!(s, "- {}", code(line));
            }
            let _ = writeln!(s, "\nor run {}\n", code(&h.command));
        }
        if let Some(line) = h.label_first(r.k, &|id| code(id)) {
            let _ = writeln!(s, "{line}\n");
        }
        if let Some(line) = h.record_again(&|id| code(id)) {
            let _ = writeln!(s, "{line}\n");
        }
    }
}

/// The verdict with its reasons, then one line of context.
fn heading(s: &mut String, r: &CompareReport) {
    let word = VerdictWord::of(&r.gate);
    let verdict = match word {
        VerdictWord::Pass => "✅ PASS".to_string(),
        VerdictWord::Fail => "❌ FAIL".to_string(),
        _ => format!("⚠️ {}", word.text()),
    };
    let reasons = r.reasons_line(&|id| code(id));
    let _ = writeln!(s, "## ragdiff: {verdict} — {reasons}\n");
    if let Some(line) = r.changed_line(&|p| code(p), &escape_input) {
        let _ = writeln!(s, "**{line}**\n");
    }
    let _ = writeln!(s, "**{}**\n", status_counts(r));
    if !r.decided_by_candidate.is_empty() {
        let _ = writeln!(
            s,
            "Decided by the candidate's manifest: {}\n",
            escape(&r.decided_by_candidate.join(", "))
        );
    }
    let g = &r.gold;
    let frozen = match &g.sha256 {
        Some(sha) => format!("sha256 `{}`", &sha[..12.min(sha.len())]),
        None => "**not frozen**".to_string(),
    };
    let _ = writeln!(
        s,
        "**gold** {} {}{} · {frozen} · {} queries, {} no-answer, relevant docs per query {} · **corpus** {} · **filters** {} · **depth** {} · **k** {} · **index** {}{}{}\n",
        escape_input(&g.name),
        g.version.as_deref().map(escape_input).unwrap_or_default(),
        g.frozen_at
            .as_deref()
            .map(|d| format!(" ({})", escape_input(d)))
            .unwrap_or_default(),
        g.queries,
        g.no_answer(),
        g.relevant_range(),
        escape_input(r.baseline.corpus.as_deref().unwrap_or("-")),
        escape_input(&filters_text(&r.baseline.filters)),
        r.baseline.depth,
        r.k,
        escape(&r.index_versions_with_each(&|v| cut_input(v).into_owned(), "→")),
        if r.reproducibility_check {
            " — reproducibility check"
        } else {
            ""
        },
        repeats_note(r),
    );
    let _ = writeln!(s, "**policy** {}\n", r.policy_text(&|p| code(p)));
}

/// The latency table (docs/contract.md §6.9), when both sides have latency.
fn latency(s: &mut String, r: &CompareReport) {
    let Some([header, body @ ..]) = r.latency_rows() else {
        return;
    };
    let _ = writeln!(s, "| {} |", header.join(" | "));
    let _ = writeln!(s, "|---|---:|---:|---:|---:|");
    for row in body {
        let _ = writeln!(s, "| {} |", row.join(" | "));
    }
    s.push('\n');
}

/// The means table (cells shared with the terminal's).
fn means(s: &mut String, r: &CompareReport) {
    let _ = writeln!(s, "| {} |", means_header(r).join(" | "));
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut rows = means_cells(r);
    let zero = rows.pop().unwrap_or_default();
    let at_cutoffs = crate::report::cutoff_mean_rows(r).len();
    let shown = rows.len() - at_cutoffs + at_cutoffs.min(MAX_CUTOFF_ROWS);
    for row in rows.iter().take(shown) {
        let _ = writeln!(s, "| {} |", row.join(" | "));
    }
    if rows.len() > shown {
        let _ = writeln!(
            s,
            "| … and {} more rows at other cutoffs; the JSON has all | | | | | | | | |",
            rows.len() - shown
        );
    }
    let _ = writeln!(
        s,
        "| {} queries | {} | {} | {} | | | | | |\n",
        zero[0], zero[1], zero[2], zero[3]
    );
}

/// The newly failed queries, at most `shown` of them, with how many were left out.
fn newly_failed(s: &mut String, r: &CompareReport, newly: &[&QueryRow], shown: usize) {
    if newly.is_empty() {
        return;
    }
    let k = r.k;
    let _ = writeln!(s, "### Newly failed ({})\n", newly.len());
    let _ = writeln!(
        s,
        "| id | failure | first relevant rank | lost from top {k} | accepted |"
    );
    let _ = writeln!(s, "|---|---|---:|---|---|");
    for q in newly.iter().take(shown) {
        let accepted = r
            .accepted
            .iter()
            .find(|a| a.id == q.id)
            .map(|a| format!("yes: {}", escape_input(&a.reason)))
            .unwrap_or_default();
        let mut failure = q.failure_kind.map(|f| f.name()).unwrap_or("").to_string();
        if r.unconfirmed.contains(&q.id.to_string()) {
            failure.push_str(&format!(" · {}", super::UNCONFIRMED));
        }
        if let Some(e) = q.errored {
            failure.push_str(&format!(" · **{}**", e.marker()));
        }
        if let Some(marker) = suspect_marker(q, k) {
            failure.push_str(&format!(" · **{marker}**"));
        }
        if r.is_not_blocking(&q.id) {
            failure.push_str(" · does not block");
        }
        let _ = writeln!(
            s,
            "| {} | {failure} | {} | {} | {accepted} |",
            code(&q.id),
            arrow(
                rank(q.scores.baseline.first_relevant_rank),
                rank(q.scores.candidate.first_relevant_rank)
            ),
            ids(&q.lost)
        );
    }
    if shown < newly.len() {
        let _ = writeln!(
            s,
            "\n… and {} more newly failed queries left out to keep this under {MAX_BYTES} bytes; the JSON and CSV reports hold them all.",
            newly.len() - shown
        );
    }
    s.push('\n');
}

/// Fixed, still failing, non-deterministic, no-answer and errored ids, 50 each at most.
fn id_lists(s: &mut String, r: &CompareReport) {
    for (label, list) in [
        ("Fixed", &r.fixed),
        ("Still failing", &r.still_failing),
        ("Non-deterministic", &r.nondeterministic),
        ("No-answer (left out of means)", &r.no_answer),
        (
            "Errored on the baseline (empty rankings)",
            &r.baseline.errored,
        ),
        (
            "Errored on the candidate (empty rankings)",
            &r.candidate.errored,
        ),
    ] {
        if !list.is_empty() {
            let shown: Vec<String> = list.iter().take(50).cloned().collect();
            let _ = writeln!(
                s,
                "**{label} ({}):** {}{}\n",
                list.len(),
                ids(&shown),
                and_more(list.len(), shown.len())
            );
        }
    }
    let list = &r.no_label_can_rescue;
    if !list.is_empty() {
        let shown: Vec<&String> = list.iter().take(50).collect();
        let text = crate::compare::holes::no_label_text(list.len(), r.newly_failed.len(), r.k);
        let _ = writeln!(
            s,
            "**{}:** {}{}\n",
            escape(&text),
            ids(&shown),
            and_more(list.len(), shown.len())
        );
    }
}

/// Per-query changes inside `<details>`, at most `shown` rows.
fn per_query(s: &mut String, rows: &Rows, unchanged: usize, shown: usize) {
    let changed = &rows.changed;
    let _ = writeln!(
        s,
        "<details><summary>Per-query changes: {} changed, {unchanged} unchanged (not listed)</summary>\n",
        changed.len()
    );
    if !changed.is_empty() {
        let _ = writeln!(s, "| {} |", PER_QUERY_HEADER.join(" | "));
        let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---|---|");
        for q in changed.iter().take(shown) {
            let _ = writeln!(s, "| {} |", per_query_cells(q).join(" | "));
        }
        if shown < changed.len() {
            let _ = writeln!(s, "\n… and {} more", changed.len() - shown);
        }
    }
    let _ = writeln!(s, "\n</details>\n");
}

/// The per-query table's columns: at most 8, so it fits GitHub's width
/// (docs/contract.md §9.8).
pub const PER_QUERY_HEADER: [&str; 8] = [
    "id",
    "status",
    "first relevant rank",
    "RR",
    "Recall",
    "nDCG",
    "lost",
    "gained",
];

/// One per-query row: each metric one cell, `0.50 → 0.00 (−0.50)`.
fn per_query_cells(q: &QueryRow) -> [String; 8] {
    let crate::model::Side {
        baseline: b,
        candidate: c,
    } = &q.scores;
    [
        code(&q.id),
        q.status.name().to_string(),
        arrow(rank(b.first_relevant_rank), rank(c.first_relevant_rank)),
        moved(b.rr, c.rr),
        moved(b.recall, c.recall),
        moved(b.ndcg, c.ndcg),
        ids(&q.lost),
        ids(&q.gained),
    ]
}

/// `b → c (±d)` with 2 decimals (4 when 2 would hide the change; a minus sign,
/// U+2212, for a fall), or the value alone when it did not move.
fn moved(b: f64, c: f64) -> String {
    let digits = if format!("{b:.2}") == format!("{c:.2}") && b != c {
        4
    } else {
        2
    };
    let n = |x: f64| format!("{x:.digits$}");
    if b == c {
        return n(b);
    }
    let d = c - b;
    let sign = if d < 0.0 { "−" } else { "+" };
    format!("{} → {} ({sign}{})", n(b), n(c), n(d.abs()))
}

/// The warnings, at most [`MAX_WARNINGS`] of them, then the notes; each cut to
/// [`capped`]'s length first, so one long warning cannot crowd out the rows.
fn warnings(s: &mut String, r: &CompareReport) {
    if !r.warnings.is_empty() {
        let _ = writeln!(s, "**Warnings**\n");
        for w in r.warnings.iter().take(MAX_WARNINGS) {
            let _ = writeln!(s, "- {}", escape(&capped(w)));
        }
        if r.warnings.len() > MAX_WARNINGS {
            let _ = writeln!(
                s,
                "- … and {} more; the JSON has all",
                r.warnings.len() - MAX_WARNINGS
            );
        }
        s.push('\n');
    }
    if !r.notes.is_empty() {
        let _ = writeln!(s, "**Notes**\n");
        for n in r.notes.iter().take(MAX_WARNINGS) {
            let _ = writeln!(s, "- {}", escape(&capped(n)));
        }
        s.push('\n');
    }
}

/// Where the first relevant doc sits, in buckets: a table, and the same as a
/// Mermaid chart (GitHub draws it; the table reads fine without it).
fn chart(s: &mut String, r: &CompareReport) {
    let super::RankBuckets { labels, counts } = super::RankBuckets::of(r);
    let _ = writeln!(
        s,
        "**Where the first relevant doc sits** (queries per bucket)\n"
    );
    let _ = writeln!(s, "| | {} |", labels.join(" | "));
    let _ = writeln!(s, "|---|{}", "---:|".repeat(labels.len()));
    for (role, c) in counts.with_roles() {
        let name = role.name();
        let cells: Vec<String> = c.iter().map(ToString::to_string).collect();
        let _ = writeln!(s, "| {name} | {} |", cells.join(" | "));
    }
    let max = counts.iter().flatten().copied().max().unwrap_or(0).max(1);
    let quoted: Vec<String> = labels.iter().map(|l| format!("\"{l}\"")).collect();
    let series = |c: &[usize]| {
        c.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        s,
        "\n```mermaid\nxychart-beta\n    title \"First relevant rank: bars baseline, line candidate\"\n    x-axis [{}]\n    y-axis \"queries\" 0 --> {max}\n    bar [{}]\n    line [{}]\n```\n",
        quoted.join(", "),
        series(&counts.baseline),
        series(&counts.candidate)
    );
}

/// The Markdown "By segment" table holds this many segments; the rest go inside
/// `<details>` (docs/contract.md §6.6).
pub const SEGMENTS_SHOWN: usize = 20;

/// At most this many non-inferiority tests are listed (JSON holds them all).
const MAX_NI: usize = 20;

/// "By segment": the 20 worst segments, the rest inside `<details>`, at most
/// `shown` in all.
fn by_segment(s: &mut String, r: &CompareReport, shown: usize) {
    let segs = &r.segments;
    if segs.is_empty() {
        return;
    }
    let few = segs.iter().filter(|x| x.too_few).count();
    let _ = writeln!(
        s,
        "### By segment ({} tags, worst MRR change first; {few} with fewer than {} queries: too few to test)\n",
        segs.len(),
        r.min_segment_queries
    );
    let header = segment_header(r);
    // the tag left, the figures right, the newly failed left
    let align = format!("|---|{}---|", "---:|".repeat(header.len() - 2));
    let table = |s: &mut String, part: &[crate::compare::segments::Segment]| {
        let _ = writeln!(s, "| {} |", header.join(" | "));
        let _ = writeln!(s, "{align}");
        for x in part {
            let _ = writeln!(s, "| {} |", segment_cells(x, "→", &code).join(" | "));
        }
    };
    let shown = shown.min(segs.len());
    table(s, &segs[..shown.min(SEGMENTS_SHOWN)]);
    if segs.len() > SEGMENTS_SHOWN {
        let _ = writeln!(
            s,
            "\n<details><summary>{} more segments</summary>\n",
            segs.len() - SEGMENTS_SHOWN
        );
        if shown > SEGMENTS_SHOWN {
            table(s, &segs[SEGMENTS_SHOWN..shown]);
        }
    }
    if shown < segs.len() {
        let _ = writeln!(
            s,
            "\n… and {} more segments left out to keep this under {MAX_BYTES} bytes; the JSON report holds them all.",
            segs.len() - shown
        );
    }
    if segs.len() > SEGMENTS_SHOWN {
        let _ = writeln!(s, "\n</details>");
    }
    s.push('\n');
}

/// The non-inferiority tests: overall ones and segment tests that did not pass
/// first, at most [`MAX_NI`].
fn non_inferiority(s: &mut String, r: &CompareReport) {
    let cells = non_inferiority_cells(r, &code);
    if cells.is_empty() {
        return;
    }
    let tests = &r.gate.non_inferiority;
    let mut order: Vec<usize> = (0..tests.len()).collect();
    order.sort_by_key(|&i| {
        (
            tests[i].segment.is_some(),
            tests[i].verdict == NiVerdict::NonInferior,
        )
    });
    let _ = writeln!(
        s,
        "**Non-inferiority** (passes when the 95% CI of the delta lies above −margin)\n"
    );
    let _ = writeln!(s, "| test | margin | 95% CI of delta | verdict |");
    let _ = writeln!(s, "|---|---:|---:|---|");
    for &i in order.iter().take(MAX_NI) {
        let _ = writeln!(s, "| {} |", cells[i].join(" | "));
    }
    if cells.len() > MAX_NI {
        let passed = order[MAX_NI..]
            .iter()
            .filter(|&&i| tests[i].verdict == NiVerdict::NonInferior)
            .count();
        let _ = writeln!(
            s,
            "\n… and {} more tests ({passed} non-inferior); the JSON report lists them all.",
            cells.len() - MAX_NI
        );
    }
    s.push('\n');
}

/// The most bytes the "Run metadata" rows take: `[meta]` is the runs' own text, never
/// gated on (64 keys of 200 escaped characters a side reach 100 KB), so it must not
/// push the newly failed rows out of the report (docs/contract.md §9.3).
const MAX_META_BYTES: usize = 8_000;

/// The runs' own `[meta]` keys (docs/contract.md §2.2) inside `<details>`: one row per
/// key of either side, in the baseline's order, then the candidate's new keys, up to
/// [`MAX_META_BYTES`] of rows.
fn team_meta(s: &mut String, r: &CompareReport) {
    let (b, c) = (&r.baseline.team_meta.0, &r.candidate.team_meta.0);
    if b.is_empty() && c.is_empty() {
        return;
    }
    let mut keys: Vec<&str> = b.iter().map(|(k, _)| k.as_str()).collect();
    keys.extend(
        c.iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| !b.iter().any(|(bk, _)| bk == k)),
    );
    let value = |side: &[(String, crate::model::MetaValue)], key: &str| {
        side.iter()
            .find(|(k, _)| k == key)
            .map_or_else(|| "-".to_string(), |(_, v)| escape_input(&v.to_string()))
    };
    let _ = writeln!(
        s,
        "<details><summary>Run metadata ({} keys, not gated on)</summary>\n",
        keys.len()
    );
    let _ = writeln!(s, "| key | baseline | candidate |\n|---|---|---|");
    let mut used = 0;
    for (i, key) in keys.iter().enumerate() {
        let row = format!(
            "| {} | {} | {} |\n",
            code(key),
            value(b, key),
            value(c, key)
        );
        used += row.len();
        if used > MAX_META_BYTES {
            let _ = writeln!(
                s,
                "| … and {} more keys; the JSON report holds them | | |",
                keys.len() - i
            );
            break;
        }
        s.push_str(&row);
    }
    let _ = writeln!(s, "\n</details>\n");
}

/// ` · **repeats** baseline 3, candidate 5` when a side has more than one
/// (docs/contract.md §6.5).
fn repeats_note(r: &CompareReport) -> String {
    let mut s = String::new();
    if has_repeats(r) {
        s = format!(
            " · **repeats** baseline {}, candidate {}",
            r.baseline.repeats, r.candidate.repeats
        );
    }
    if let Some(maps) = r.doc_maps_text(&|p| code(p)) {
        s.push_str(&format!(" · **doc map** {maps}"));
    }
    s
}

/// Flaky queries (50 at most) with how many repeats failed, then the drift line and
/// the unlabelled queries that moved most (§6.5).
fn noise(s: &mut String, r: &CompareReport) {
    let flaky = flaky_rows(r);
    if !flaky.is_empty() {
        let shown: Vec<String> = flaky
            .iter()
            .take(50)
            .map(|q| match flaky_note(q) {
                note if note.is_empty() => format!("{} flaky", code(&q.id)),
                note => format!("{} flaky: {note}", code(&q.id)),
            })
            .collect();
        let _ = writeln!(
            s,
            "**Flaky ({}):** {}{}\n",
            flaky.len(),
            shown.join("; "),
            and_more(flaky.len(), shown.len())
        );
    }
    let _ = writeln!(s, "**Drift:** {}\n", escape(&drift_line(r)));
    let moved = &r.drift.most_changed_unlabelled;
    if !moved.is_empty() {
        let list: Vec<String> = moved
            .iter()
            .map(|m| format!("{} {}", code(&m.id), num(m.rbo)))
            .collect();
        let _ = writeln!(s, "**Moved most (unlabelled):** {}\n", list.join(", "));
    }
}

/// The risk section (docs/contract.md §7.4): the overall figures as a table, then the
/// segment figures with a significant downside risk (at most
/// [`super::risk::SEGMENTS_NAMED`]).
fn risk(s: &mut String, r: &CompareReport) {
    use super::risk::{HEADER, INTRO, SEGMENTS_NAMED};
    if !super::risk::shown(r) {
        return;
    }
    let _ = writeln!(s, "**Risk**: {}\n", escape(INTRO));
    let _ = writeln!(s, "| {} |", HEADER.join(" | "));
    let _ = writeln!(s, "|---|---:|---:|---:|---|");
    for x in &r.risk {
        let mut cells = super::risk::cells(x, r.k);
        if x.significant_downside_risk {
            cells[4] = format!("**{}**", cells[4]);
        }
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    let flagged = super::risk::flagged_segments(r);
    if !flagged.is_empty() || super::risk::segments_summary(r).is_some() {
        s.push('\n');
    }
    for (tag, x) in flagged.into_iter().take(SEGMENTS_NAMED) {
        let _ = writeln!(s, "- {}", super::risk::segment_text(tag, x, r.k, &code));
    }
    if let Some(summary) = super::risk::segments_summary(r) {
        let _ = writeln!(s, "- {summary}");
    }
    s.push('\n');
}
