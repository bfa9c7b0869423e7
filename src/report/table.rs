//! The terminal table (comfy-table). Colour only on a terminal, never with NO_COLOR.

use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets};

use super::fit;

use crate::compare::QueryRow;
use crate::metrics::Metric;
use crate::report::{
    CHANGE_HEADER, CompareReport, EvalReport, GoldContext, Rows, RunContext, VerdictWord,
    change_cells, drift_line, filters_text, flaky_note, flaky_rows, has_repeats, means_cells,
    means_header, non_inferiority_cells, num, rank, segment_cells, segment_header, status_counts,
    suspect_marker,
};
use crate::text::{and_more, plural, safe_id};

/// The terminal lists at most this many changed queries (CSV and JSON list all).
pub const MAX_ROWS: usize = 100;

/// The terminal names at most this many ids on one line.
pub const MAX_IDS: usize = 50;

/// A table with ragdiff's look; styling is decided once here.
pub fn new_table(header: Vec<String>) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_BORDERS_ONLY)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    t
}

/// Right-aligned cells for numbers.
pub fn right(text: String) -> Cell {
    Cell::new(text).set_alignment(CellAlignment::Right)
}

/// The context lines every terminal report starts with.
pub fn context(gold: &GoldContext, run: &RunContext, k: u32, index: &str) -> String {
    format!(
        "gold    {}\n        {}\ncorpus  {}   filters {}   depth {}   k {}\nindex   {}\n",
        gold.summary(),
        gold.counts(),
        run.corpus
            .as_deref()
            .map(safe_id)
            .unwrap_or_else(|| "-".into()),
        filters_text(&run.filters),
        run.depth,
        k,
        index
    )
}

/// Aligned plain columns (the first left-aligned, the rest right-aligned), with a
/// rule under the header. `eval` lists every query, trec_eval style, so its table
/// is written directly rather than through comfy-table, which would hold a styled
/// copy of every cell (hundreds of MB for 100,000 queries).
/// Fitted to `fit` columns (docs/contract.md §9.9): columns are left out from the
/// right (the extra cutoffs first, then Judged, MAP, …), the id and first rank stay.
fn plain_table(out: &mut String, header: &[String], rows: &[Vec<String>], fit: Option<usize>) {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut cols = header.len();
    let total = |n: usize| width[..n].iter().sum::<usize>() + 2 * n.saturating_sub(1);
    if let Some(fit) = fit {
        while cols > 2 && total(cols) > fit {
            cols -= 1;
        }
    }
    let width = &width[..cols];
    let left_out = &header[cols..];
    let line = |out: &mut String, cells: &[String]| {
        for (c, cell) in cells.iter().enumerate() {
            let pad = width[c] - cell.chars().count();
            if c == 0 {
                out.push_str(cell);
                out.push_str(&" ".repeat(pad));
            } else {
                out.push_str("  ");
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            }
        }
        out.push('\n');
    };
    line(out, &header[..cols]);
    out.push_str(&"─".repeat(total(cols)));
    out.push('\n');
    for row in rows {
        line(out, &row[..cols.min(row.len())]);
    }
    if let (Some(fit), false) = (fit, left_out.is_empty()) {
        let note = format!(
            "(left out to fit {fit} columns: {}; `--format json` holds them)",
            left_out.join(", ")
        );
        out.push_str(&crate::text::wrap_words(&note, fit, 1));
        out.push('\n');
    }
}

pub fn render_eval(r: &EvalReport) -> String {
    let index = r.run.index_version.clone().unwrap_or_else(|| "-".into());
    let mut out = context(&r.gold, &r.run, r.k, &index);
    if r.run.doc_map.is_some() {
        out.push_str(&format!("doc map {}\n", r.run.doc_map_text(&safe_id)));
    }
    out.push('\n');
    let mut header = vec!["id".to_string(), "first rel".to_string()];
    header.extend(Metric::ALL.iter().map(|m| m.label(r.k)));
    header.push(format!("Judged@{}", r.k));
    header.extend(cutoff_header(&r.means_at));
    // a named measure whose printed name is a column already (`nDCG@k`, `P@k`,
    // `Judged@k`, or at an extra cutoff) has its values: shown once (§5.4)
    let shown: Vec<usize> = (r.means.measures.0.iter().enumerate())
        .filter(|(_, (m, _))| !header.contains(&m.name()))
        .map(|(i, _)| i)
        .collect();
    let named = |n: &crate::eval::measures::Named| -> Vec<String> {
        shown.iter().map(|&i| num(n.0[i].1)).collect()
    };
    header.extend(shown.iter().map(|&i| r.means.measures.0[i].0.name()));
    let width = target_width();
    // An id wider than the room beside the first rank is cut (docs/contract.md §9.9).
    let id_room = width.map_or(usize::MAX, |w| w.saturating_sub(2 + "first rel".len()));
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(r.per_query.len() + 1);
    for row in &r.per_query {
        let id = crate::text::cut_to(&safe_id(&row.id), id_room);
        let mut cells = vec![id, rank(row.scores.first_relevant_rank)];
        cells.extend(Metric::ALL.iter().map(|m| num(m.of(&row.scores))));
        cells.push(num(row.judged));
        cells.extend(cutoff_cells(&row.at));
        cells.extend(named(&row.measures));
        rows.push(cells);
    }
    let mut cells = vec![format!("mean ({})", r.per_query.len()), String::new()];
    cells.extend(Metric::ALL.iter().map(|m| num(r.means.get(*m))));
    cells.push(num(r.means.judged));
    cells.extend(cutoff_cells(&r.means_at));
    cells.extend(named(&r.means.measures));
    rows.push(cells);
    plain_table(&mut out, &header, &rows, width);
    judged_only_table(&mut out, r, id_room, width);
    if !r.no_answer.is_empty() {
        out.push_str(&format!(
            "\nno-answer queries (no relevant doc; left out of every mean): {}\n",
            r.no_answer
                .iter()
                .map(|s| safe_id(s))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    notes(&mut out, &r.notes);
    prose(out)
}

/// `eval --judged-only`: the same metrics on each query's judged docs only, a table
/// of its own after the first (docs/contract.md §5.3).
fn judged_only_table(out: &mut String, r: &EvalReport, id_room: usize, width: Option<usize>) {
    let Some(means) = &r.means.judged_only else {
        return;
    };
    out.push_str(&format!(
        "\njudged only: unjudged docs removed before the cut at {} (condensed lists, as trec_eval -J); first rel is the rank among judged docs\n",
        r.k
    ));
    let mut header = vec!["id".to_string(), "first rel".to_string()];
    header.extend(Metric::ALL.iter().map(|m| m.label(r.k)));
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(r.per_query.len() + 1);
    for row in &r.per_query {
        let Some(s) = &row.judged_only else { continue };
        let mut cells = vec![
            crate::text::cut_to(&safe_id(&row.id), id_room),
            rank(s.first_relevant_rank),
        ];
        cells.extend(Metric::ALL.iter().map(|m| num(m.of(s))));
        rows.push(cells);
    }
    let mut cells = vec![format!("mean ({})", r.per_query.len()), String::new()];
    cells.extend(Metric::ALL.iter().map(|m| num(means.get(*m))));
    rows.push(cells);
    plain_table(out, &header, &rows, width);
}

/// The report's prose lines wrapped at word boundaries, on a terminal only
/// (docs/contract.md §9.9); the tables already fit.
fn prose(out: String) -> String {
    match crate::text::stdout_prose_width() {
        Some(w) => crate::text::wrap_prose(&out, w),
        None => out,
    }
}

/// The allow-list lines that would accept the failing new failures (§8.5).
fn accept_hint(out: &mut String, r: &CompareReport) {
    if let Some(h) = &r.accept_hint {
        if !h.lines.is_empty() {
            out.push_str(&format!("to accept them, add to {}:\n", safe_id(&h.list)));
            for line in &h.lines {
                out.push_str(&format!("  {}\n", safe_id(line)));
            }
            out.push_str(&format!("or run: {}\n", safe_id(&h.command)));
        }
        if let Some(line) = h.label_first(r.k, &safe_id) {
            out.push_str(&format!("{line}\n"));
        }
        if let Some(line) = h.record_again(&safe_id) {
            out.push_str(&format!("{line}\n"));
        }
    }
}

/// Notes at the end of a terminal report, after a blank line.
fn notes(out: &mut String, notes: &[String]) {
    if !notes.is_empty() {
        out.push('\n');
        for n in notes {
            out.push_str(&format!("note: {}\n", safe_id(n)));
        }
    }
}

/// Column names for the extra cutoffs (`docs/contract.md §2.8`).
fn cutoff_header(at: &crate::eval::cutoffs::ByCutoff) -> Vec<String> {
    at.0.iter()
        .flat_map(|(c, _)| crate::eval::cutoffs::AT_METRICS.iter().map(|m| m.label(*c)))
        .collect()
}

/// One row's cells at the extra cutoffs.
fn cutoff_cells(at: &crate::eval::cutoffs::ByCutoff) -> Vec<String> {
    at.0.iter()
        .flat_map(|(_, a)| {
            crate::eval::cutoffs::AT_METRICS
                .iter()
                .map(|m| num(a.get(*m)))
        })
        .collect()
}

/// Whether stdout gets colour: a terminal, and NO_COLOR unset.
pub fn colour_stdout() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn verdict_line(r: &CompareReport, colour: bool) -> String {
    let verdict = VerdictWord::of(&r.gate);
    let code = match verdict.tone() {
        "pass" => "32",
        "fail" => "31",
        _ => "33",
    };
    let word = if colour {
        format!("\x1b[1;{code}m{}\x1b[0m", verdict.text())
    } else {
        verdict.text().to_string()
    };
    format!("{word}  {}\n", r.reasons_line(&safe_id))
}

/// The comparison for a terminal: verdict, context, means, id lists, then the
/// changed queries (at most [`MAX_ROWS`]).
pub fn render_compare(r: &CompareReport, colour: bool) -> String {
    let rows = Rows::of(r);
    let mut out = verdict_line(r, colour);
    out.push_str(&format!("      {}\n", status_counts(r)));
    if !r.decided_by_candidate.is_empty() {
        out.push_str(&format!(
            "      decided by the candidate's manifest: {}\n",
            r.decided_by_candidate.join(", ")
        ));
    }
    if let Some(line) = r.changed_line(&safe_id, &safe_id) {
        out.push_str(&format!("      {line}\n"));
    }
    out.push_str(&context(&r.gold, &r.baseline, r.k, &r.index_versions()));
    if r.reproducibility_check {
        out.push_str("        same index version: a reproducibility check\n");
    }
    if has_repeats(r) {
        out.push_str(&format!(
            "repeats baseline {}, candidate {}\n",
            r.baseline.repeats, r.candidate.repeats
        ));
    }
    if let Some(maps) = r.doc_maps_text(&safe_id) {
        out.push_str(&format!("doc map {maps}\n"));
    }
    out.push_str(&format!("policy  {}\n", r.policy_text(&safe_id)));
    out.push('\n');
    let width = target_width();
    let means = fit::Columns {
        header: means_header(r).to_vec(),
        rows: means_cells(r).into_iter().map(|row| row.to_vec()).collect(),
        right: &|i| i > 0,
        drop: &MEANS_DROP,
        holds: "the Markdown and JSON reports",
    };
    out.push_str(&fit::fit(&means, width));
    out.push_str(&super::history::compare_table(r, width));
    out.push('\n');
    if let Some(rows) = r.latency_rows() {
        let [header, body @ ..] = rows;
        let latency = fit::Columns {
            header: header.to_vec(),
            rows: body.iter().map(|row| row.to_vec()).collect(),
            right: &|i| i > 0,
            drop: &[],
            holds: "the Markdown and JSON reports",
        };
        out.push_str(&fit::fit(&latency, width));
        out.push('\n');
    }
    non_inferiority(&mut out, r);
    by_segment(&mut out, r);
    risk(&mut out, r, width);
    id_lists(&mut out, r, &rows.newly_failed);
    accept_hint(&mut out, r);
    noise_lines(&mut out, r);
    if !rows.changed.is_empty() {
        out.push('\n');
        out.push_str(&fitted_change_table(&rows.changed, width));
    }
    out.push_str(&format!(
        "unchanged: {}\n",
        plural(rows.unchanged(r), "query", "queries")
    ));
    notes(&mut out, &r.notes);
    prose(out)
}

/// One line per id list: newly failed (with kind, lost ids, accepted), fixed,
/// still failing, non-deterministic, no-answer; then the accepted ones.
fn id_lists(out: &mut String, r: &CompareReport, newly_rows: &[&QueryRow]) {
    let newly: Vec<String> = newly_rows
        .iter()
        .map(|q| {
            let mut s = format!(
                "{} ({}",
                safe_id(&q.id),
                q.failure_kind.map(|k| k.name()).unwrap_or("")
            );
            if r.unconfirmed.contains(&q.id.to_string()) {
                s.push_str(&format!("; {}", super::UNCONFIRMED));
            }
            if let Some(e) = q.errored {
                s.push_str(&format!("; {}", e.marker()));
            }
            if !q.lost.is_empty() {
                s.push_str(&format!("; lost {}", ids(&q.lost)));
            }
            if let Some(marker) = suspect_marker(q, r.k) {
                s.push_str(&format!("; {marker}"));
            }
            if r.is_accepted(&q.id) {
                s.push_str("; accepted");
            }
            if r.is_not_blocking(&q.id) {
                s.push_str("; does not block");
            }
            s.push(')');
            s
        })
        .collect();
    let safe = |list: &[String]| list.iter().map(|s| safe_id(s)).collect::<Vec<_>>();
    let lists = [
        ("newly failed", newly),
        ("fixed", safe(&r.fixed)),
        ("still failing", safe(&r.still_failing)),
        ("non-deterministic", safe(&r.nondeterministic)),
        ("no-answer", safe(&r.no_answer)),
        ("errored baseline", safe(&r.baseline.errored)),
        ("errored candidate", safe(&r.candidate.errored)),
    ];
    for (label, list) in lists {
        if !list.is_empty() {
            let line = list
                .iter()
                .take(MAX_IDS)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            let more = and_more(list.len(), MAX_IDS);
            out.push_str(&format!("{label:<18}{line}{more}\n"));
        }
    }
    let rescue = safe(&r.no_label_can_rescue);
    if !rescue.is_empty() {
        let text = crate::compare::holes::no_label_text(rescue.len(), r.newly_failed.len(), r.k);
        let line = rescue[..rescue.len().min(MAX_IDS)].join(", ");
        let more = and_more(rescue.len(), MAX_IDS);
        out.push_str(&format!("{text}: {line}{more}\n"));
    }
    for a in &r.accepted {
        out.push_str(&format!(
            "{:<18}{}: {}\n",
            "accepted",
            safe_id(&a.id),
            safe_id(&a.reason)
        ));
    }
}

/// Columns left out of the means table, in this order, until it fits
/// (docs/contract.md §9.9); metric, delta and the interval always stay.
pub const MEANS_DROP: [&str; 6] = [
    "d_z",
    "p",
    "detects >=",
    "p (Holm)",
    "baseline",
    "candidate",
];

/// Change-table columns left out, in this order, until the table fits the width
/// (docs/contract.md §9.9); id, status, ΔRR and ΔRecall always stay.
pub const CHANGE_DROP: [&str; 8] = [
    "gained",
    "lost",
    "ΔnDCG",
    "nDCG",
    "Hit",
    "Recall",
    "RR",
    "first rel",
];

/// The width the terminal tables must fit: `COLUMNS` when set to a positive number,
/// else the terminal's width when stdout is one; `None` (never narrowed) otherwise.
pub fn target_width() -> Option<usize> {
    use std::io::IsTerminal;
    crate::text::fit_width(std::io::stdout().is_terminal())
}

/// The change table fitted to `width` ([`fit::fit`]): whole columns left out in
/// [`CHANGE_DROP`]'s order, then one query per block.
pub fn fitted_change_table(changed: &[&QueryRow], width: Option<usize>) -> String {
    let rows: Vec<Vec<String>> = changed
        .iter()
        .take(MAX_ROWS)
        .map(|q| change_cells(q, "->", &safe_id, " ").to_vec())
        .collect();
    let columns = fit::Columns {
        header: CHANGE_HEADER.iter().map(|h| h.to_string()).collect(),
        rows,
        right: &|i| (2..10).contains(&i),
        drop: &CHANGE_DROP,
        holds: "the CSV and JSON reports",
    };
    fit::fit(&columns, width)
}

fn ids(list: &[crate::model::Id]) -> String {
    list.iter()
        .map(|s| safe_id(s))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The terminal lists at most this many segments (JSON lists all).
pub const MAX_SEGMENTS: usize = 50;

/// "By segment" (docs/contract.md §6.6): worst MRR change first, at most
/// [`MAX_SEGMENTS`].
fn by_segment(out: &mut String, r: &CompareReport) {
    if r.segments.is_empty() {
        return;
    }
    let few = r.segments.iter().filter(|s| s.too_few).count();
    out.push_str(&format!(
        "by segment: {}, worst MRR change first; {few} with fewer than {} queries: too few to test\n",
        plural(r.segments.len(), "tag", "tags"),
        r.min_segment_queries
    ));
    let header = segment_header(r);
    let last = header.len() - 1;
    let drop = segment_drop(r);
    let drop: Vec<&str> = drop.iter().map(String::as_str).collect();
    let segments = fit::Columns {
        rows: r
            .segments
            .iter()
            .take(MAX_SEGMENTS)
            .map(|s| segment_cells(s, "->", &safe_id))
            .collect(),
        header,
        right: &|i| (1..last).contains(&i),
        drop: &drop,
        holds: "the Markdown and JSON reports",
    };
    out.push_str(&fit::fit(&segments, target_width()));
    if r.segments.len() > MAX_SEGMENTS {
        out.push_str(&format!(
            "… and {} more segments (the JSON report lists them all)\n",
            r.segments.len() - MAX_SEGMENTS
        ));
    }
    out.push('\n');
}

/// Columns left out of the segment table, in this order, until it fits
/// (docs/contract.md §9.9), the named measures' last; segment, ΔMRR, its interval
/// and the newly failed stay.
fn segment_drop(r: &CompareReport) -> Vec<String> {
    let k = r.k;
    [
        "d_z".into(),
        format!("ΔnDCG@{k}"),
        format!("ΔRecall@{k}"),
        super::segment_p_header(r),
        format!("MRR@{k}"),
        "queries".into(),
    ]
    .into_iter()
    .chain(
        super::segment_named(r)
            .into_iter()
            .map(|m| format!("Δ{}", m.name())),
    )
    .collect()
}

/// One line per non-inferiority test.
fn non_inferiority(out: &mut String, r: &CompareReport) {
    let cells = non_inferiority_cells(r, &safe_id);
    for ([test, margin, ci, _], t) in cells.into_iter().zip(&r.gate.non_inferiority) {
        let settle = t
            .settle_text()
            .map(|s| format!("; {s}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:<18}{test}: {} (margin {margin}, 95% CI of delta {ci}){settle}\n",
            "non-inferiority",
            t.verdict.words()
        ));
    }
    if !r.gate.non_inferiority.is_empty() {
        out.push('\n');
    }
}

/// Flaky queries with how many repeats failed, then drift: the mean RBO line and the
/// unlabelled queries that moved most (docs/contract.md §6.5).
fn noise_lines(out: &mut String, r: &CompareReport) {
    let flaky = flaky_rows(r);
    if !flaky.is_empty() {
        let shown: Vec<String> = flaky
            .iter()
            .take(MAX_IDS)
            .map(|q| match flaky_note(q) {
                // One index version's repeats pooled: the verdict line says how.
                note if note.is_empty() => safe_id(&q.id).to_string(),
                note => format!("{} ({note})", safe_id(&q.id)),
            })
            .collect();
        let more = and_more(flaky.len(), MAX_IDS);
        out.push_str(&format!("{:<18}{}{more}\n", "flaky", shown.join(", ")));
    }
    out.push_str(&format!("{:<18}{}\n", "drift", drift_line(r)));
    let moved = &r.drift.most_changed_unlabelled;
    if !moved.is_empty() {
        let list: Vec<String> = moved
            .iter()
            .map(|m| format!("{} {}", safe_id(&m.id), num(m.rbo)))
            .collect();
        out.push_str(&format!("{:<18}{}\n", "moved most", list.join(", ")));
    }
}

/// The risk section (docs/contract.md §7.4): the overall figures as a table, then
/// the segment figures with a significant downside risk, one line each.
fn risk(out: &mut String, r: &CompareReport, width: Option<usize>) {
    use super::risk::{HEADER, INTRO, SEGMENTS_NAMED};
    if !super::risk::shown(r) {
        return;
    }
    out.push_str(&format!("risk: {INTRO}\n"));
    let columns = fit::Columns {
        header: HEADER.iter().map(|h| h.to_string()).collect(),
        rows: r
            .risk
            .iter()
            .map(|x| super::risk::cells(x, r.k).to_vec())
            .collect(),
        right: &|i| (1..4).contains(&i),
        drop: &[],
        holds: "the JSON report",
    };
    out.push_str(&fit::fit(&columns, width));
    for (tag, x) in super::risk::flagged_segments(r)
        .into_iter()
        .take(SEGMENTS_NAMED)
    {
        let line = super::risk::segment_text(tag, x, r.k, &safe_id);
        out.push_str(&format!("{:<18}{line}\n", "risk"));
    }
    if let Some(summary) = super::risk::segments_summary(r) {
        out.push_str(&format!("{:<18}{summary}\n", "risk"));
    }
    out.push('\n');
}
