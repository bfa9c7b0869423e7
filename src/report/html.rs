//! The HTML report (docs/contract.md §9.10): one self-contained file, inline CSS,
//! JavaScript and SVG, no request of any kind. The static part reads without
//! JavaScript (verdict, means with their intervals drawn, the segments' forest plot,
//! the sorted per-query deltas, the first-relevant-rank histogram, the first 1,000
//! changed queries); the script (`html/app.js`) makes the table of every changed
//! query sortable and filterable and opens a row's two ranked lists, drawn from one
//! JSON data block. Every input string is HTML-escaped in markup; in the data block
//! `<`, `>`, `&`, U+2028 and U+2029 are `\uXXXX`. A Content-Security-Policy meta tag
//! allows only the file's own script and style, by hash.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use base64::Engine as _;
use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};

use crate::compare::QueryRow;
use crate::metrics::Metric;
use crate::model::{GoldSet, Id, ObservedRun, Side};
use crate::report::{
    CompareReport, RankBuckets, Rows, VerdictWord, delta, num, rank, status_counts,
};
use crate::text::safe_id;

const STYLE: &str = include_str!("html/style.css");
const SCRIPT: &str = include_str!("html/app.js");

/// The static table lists at most this many changed queries; the script, all.
pub const STATIC_ROWS: usize = 1000;

/// What the HTML report needs beyond the other formats: the changed queries'
/// ranked lists and the doc titles (`--titles`; shown in HTML only).
#[derive(Debug, Clone, Default)]
pub struct Extra {
    /// How many ranks each list shows: min(depth, 2k).
    pub shown: u32,
    /// Per changed query: each side's list, in rank order.
    pub lists: FxHashMap<Id, Side<Vec<Listed>>>,
    pub titles: BTreeMap<String, String>,
    /// The gold's `min_grade`: a judged doc at or above it is relevant.
    pub min_grade: i64,
}

/// One doc of a ranked list and its label.
#[derive(Debug, Clone)]
pub struct Listed {
    pub doc: Id,
    /// Its grade when judged; `None` when unjudged.
    pub grade: Option<i64>,
}

impl Extra {
    /// The lists of the report's changed queries from `runs`, read keeping each
    /// query's top `shown` docs by id.
    pub fn of(
        gold: &GoldSet,
        runs: Side<&ObservedRun>,
        r: &CompareReport,
        shown: u32,
        titles: BTreeMap<String, String>,
    ) -> Self {
        let mut lists = FxHashMap::default();
        for q in Rows::of(r).changed {
            let Some(qi) = gold.lookup(&q.id) else {
                continue;
            };
            let qi = qi as usize;
            let side = runs.map(|run| listed(gold, run, qi, shown));
            lists.insert(q.id.clone(), side);
        }
        Self {
            shown,
            lists,
            titles,
            min_grade: gold.meta.min_grade,
        }
    }
}

/// One side's list for gold query `qi`: judged docs (with grade) and the unjudged
/// ones kept by id, merged by rank, to `shown`.
fn listed(gold: &GoldSet, run: &ObservedRun, qi: usize, shown: u32) -> Vec<Listed> {
    let Some(Some(obs)) = run.observed.get(qi) else {
        return Vec::new();
    };
    let judged = &gold.queries[qi].judged;
    let mut by_rank: Vec<(u32, Listed)> = obs
        .hits
        .iter()
        .filter(|h| h.rank <= shown)
        .filter_map(|h| {
            let j = judged.get(h.judged as usize)?;
            let doc = j.doc.clone();
            Some((
                h.rank,
                Listed {
                    doc,
                    grade: Some(j.grade),
                },
            ))
        })
        .collect();
    by_rank.extend(
        obs.unjudged_ids
            .iter()
            .filter(|d| d.rank <= shown)
            .map(|d| {
                let doc = d.doc.clone();
                (d.rank, Listed { doc, grade: None })
            }),
    );
    by_rank.sort_by_key(|(rank, _)| *rank);
    by_rank.into_iter().map(|(_, l)| l).collect()
}

/// Text escaped for HTML markup and attribute values (after [`safe_id`], which
/// shows controls and bidi characters as escapes).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in safe_id(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON made safe inside a `<script>` element: `<`, `>`, `&`, U+2028 and U+2029
/// written as `\uXXXX` (they only occur inside strings, where the escape means the
/// same character).
pub fn escape_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The CSP source of an inline element's text: `'sha256-…'`.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The whole page.
pub fn render(r: &CompareReport) -> String {
    let mut body = String::new();
    verdict(&mut body, r);
    means(&mut body, r);
    body.push_str(&super::history::compare_html(r));
    risk(&mut body, r);
    forest(&mut body, r);
    deltas(&mut body, r);
    histogram(&mut body, r);
    changed_table(&mut body, r);
    notes(&mut body, r);
    let data = escape_json(&data_block(r).to_string());
    body.push_str(&format!(
        "<script type=\"application/json\" id=\"ragdiff-data\">{data}</script>\n"
    ));
    page(
        &format!("ragdiff: {}", VerdictWord::of(&r.gate).text()),
        &body,
        Some(SCRIPT),
    )
}

/// A whole page around `body`: the style, and `script` when given, each allowed by
/// its hash in the Content-Security-Policy and nothing else (no request of any kind).
pub fn page(title: &str, body: &str, script: Option<&str>) -> String {
    let script_src = script.map_or("'none'".to_string(), csp_hash);
    let csp = format!(
        "default-src 'none'; style-src {}; script-src {script_src}; img-src 'none'; base-uri 'none'; form-action 'none'",
        csp_hash(STYLE),
    );
    let script = script
        .map(|s| format!("<script>{s}</script>\n"))
        .unwrap_or_default();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\
         {script}</body>\n</html>\n",
        escape(title)
    )
}

fn verdict(out: &mut String, r: &CompareReport) {
    let word = VerdictWord::of(&r.gate);
    let class = word.tone();
    let _ = write!(
        out,
        "<header>\n<h1><span class=\"verdict {class}\">{}</span> {}</h1>\n<p class=\"counts\">{}</p>\n<p class=\"context\">gold {}<br>{}<br>index {} · k {} · depth {}</p>\n</header>\n",
        word.text(),
        escape(&r.reasons_line(&|s| s.to_string())),
        escape(&status_counts(r)),
        escape(&r.gold.summary()),
        escape(&r.gold.counts()),
        escape(&r.index_versions()),
        r.k,
        r.baseline.depth
    );
    let rescue = &r.no_label_can_rescue;
    if !rescue.is_empty() {
        let text = crate::compare::holes::no_label_text(rescue.len(), r.newly_failed.len(), r.k);
        let _ = writeln!(
            out,
            "<p class=\"rescue\">{}: {}{}</p>",
            escape(&text),
            escape(&rescue[..rescue.len().min(50)].join(", ")),
            crate::text::and_more(rescue.len(), 50)
        );
    }
}

/// A horizontal scale from `-extent` to `+extent` over `width` pixels.
struct Scale {
    extent: f64,
    width: f64,
}

impl Scale {
    fn over(values: impl Iterator<Item = f64>, width: f64) -> Self {
        let extent = values.fold(0.05f64, |m, v| m.max(v.abs())) * 1.1;
        Self { extent, width }
    }

    fn x(&self, v: f64) -> f64 {
        (v / self.extent + 1.0) / 2.0 * self.width
    }
}

/// The margin drawn beside an interval: the overall non-inferiority margin of the
/// metric or named measure (docs/contract.md §9.10), when one was asked.
fn margin_of(r: &CompareReport, of: crate::gate::Target) -> Option<f64> {
    r.gate
        .non_inferiority
        .iter()
        .find(|t| t.of == of && t.segment.is_none())
        .map(|t| t.margin)
}

/// One interval in an SVG row: the zero line, the margin (dashed), the CI and the
/// point estimate.
fn interval_svg(s: &Scale, point: f64, ci: Option<(f64, f64)>, margin: Option<f64>) -> String {
    let mut svg = format!(
        "<svg class=\"interval\" viewBox=\"0 0 {w} 20\" width=\"{w}\" height=\"20\" role=\"img\"><line class=\"zero\" x1=\"{z:.1}\" x2=\"{z:.1}\" y1=\"0\" y2=\"20\"/>",
        w = s.width,
        z = s.x(0.0)
    );
    if let Some(m) = margin {
        let x = s.x(-m);
        let _ = write!(
            svg,
            "<line class=\"margin\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"0\" y2=\"20\"/>"
        );
    }
    if let Some((lo, hi)) = ci {
        let class = if hi < 0.0 {
            "ci down"
        } else if lo > 0.0 {
            "ci up"
        } else {
            "ci"
        };
        let _ = write!(
            svg,
            "<line class=\"{class}\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"10\" y2=\"10\"/>",
            s.x(lo),
            s.x(hi)
        );
    }
    let _ = write!(
        svg,
        "<circle class=\"point\" cx=\"{:.1}\" cy=\"10\" r=\"4\"/></svg>",
        s.x(point)
    );
    svg
}

/// The means table: today's metrics, then the named measures (`--measure`,
/// docs/contract.md §5.4), each with its interval drawn.
fn means(out: &mut String, r: &CompareReport) {
    let rows: Vec<(String, &crate::compare::MeanDelta, Option<f64>)> = Metric::ALL
        .iter()
        .map(|&m| {
            let margin = margin_of(r, crate::gate::Target::Metric(m));
            (m.label(r.k), r.means.get(m), margin)
        })
        .chain(super::named_rows(r).map(|(m, md)| {
            let margin = margin_of(r, crate::gate::Target::Named(*m));
            (m.name(), md, margin)
        }))
        .collect();
    let scale = Scale::over(
        rows.iter().flat_map(|&(_, md, margin)| {
            [
                md.delta,
                md.ci_low.unwrap_or(0.0),
                md.ci_high.unwrap_or(0.0),
            ]
            .into_iter()
            .chain(margin.map(|x| -x))
        }),
        260.0,
    );
    let _ = write!(
        out,
        "<section id=\"means\">\n<h2>Means ({} queries)</h2>\n<table class=\"means\">\n<thead><tr><th>metric</th><th>baseline</th><th>candidate</th><th>delta</th><th>95% CI of delta</th><th>detects &gt;=</th><th>interval (0 and margin; ±{})</th></tr></thead>\n<tbody>\n",
        r.per_query.len(),
        num(scale.extent)
    );
    for (label, md, margin) in rows {
        let ci = md.ci_low.zip(md.ci_high);
        let ci_text = ci
            .map(|(lo, hi)| format!("[{}, {}]", delta(lo), delta(hi)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{ci_text}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            escape(&label),
            num(md.baseline),
            num(md.candidate),
            delta(md.delta),
            super::mde_cell(md.mde),
            interval_svg(&scale, md.delta, ci, margin)
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// The segments as a forest plot, worst MRR change first (the report's order).
fn forest(out: &mut String, r: &CompareReport) {
    if r.segments.is_empty() {
        return;
    }
    let rr = |s: &crate::compare::segments::Segment| s.means.rr;
    let scale = Scale::over(
        r.segments.iter().flat_map(|s| {
            let m = rr(s);
            [m.delta, m.ci_low.unwrap_or(0.0), m.ci_high.unwrap_or(0.0)]
        }),
        260.0,
    );
    let _ = write!(
        out,
        "<section id=\"segments\">\n<h2>Segments: ΔMRR@{} with its 95% CI, worst first (±{})</h2>\n<table class=\"forest\">\n<thead><tr><th>segment</th><th>queries</th><th>ΔMRR</th><th>interval</th></tr></thead>\n<tbody>\n",
        r.k,
        num(scale.extent)
    );
    for s in &r.segments {
        let m = rr(s);
        let ci = if s.too_few {
            None
        } else {
            m.ci_low.zip(m.ci_high)
        };
        let note = if s.too_few { " (too few to test)" } else { "" };
        let _ = writeln!(
            out,
            "<tr><td>{}{note}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            escape(&s.tag),
            s.queries,
            delta(m.delta),
            interval_svg(&scale, m.delta, ci, None)
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// One per-query delta of a row.
type DeltaOf = fn(&QueryRow) -> f64;

/// The per-query deltas of RR, Recall and nDCG, each sorted, as a line over the
/// queries (at most 400 points, quantiles of the sorted deltas).
fn deltas(out: &mut String, r: &CompareReport) {
    let (w, h) = (400.0, 120.0);
    let _ = write!(
        out,
        "<section id=\"deltas\">\n<h2>Per-query deltas, sorted ({} queries)</h2>\n<svg class=\"deltas\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\"><line class=\"zero\" x1=\"0\" x2=\"{w}\" y1=\"{}\" y2=\"{}\"/>",
        r.per_query.len(),
        h / 2.0,
        h / 2.0
    );
    let series: [(&str, DeltaOf); 3] = [
        ("rr", |q| q.delta.rr),
        ("recall", |q| q.delta.recall),
        ("ndcg", |q| q.delta.ndcg),
    ];
    for (class, of) in series {
        let mut d: Vec<f64> = r.per_query.iter().map(of).collect();
        d.sort_by(f64::total_cmp);
        let n = d.len();
        if n == 0 {
            continue;
        }
        let points = n.min(400);
        let mut line = String::new();
        for i in 0..points {
            let at = if points == 1 {
                0
            } else {
                i * (n - 1) / (points - 1)
            };
            let x = if points == 1 {
                w / 2.0
            } else {
                i as f64 * w / (points - 1) as f64
            };
            let y = h / 2.0 - d[at].clamp(-1.0, 1.0) * (h / 2.0 - 2.0);
            let _ = write!(line, "{x:.1},{y:.1} ");
        }
        let _ = write!(
            out,
            "<polyline class=\"{class}\" points=\"{}\"/>",
            line.trim_end()
        );
    }
    out.push_str("</svg>\n<p class=\"legend\"><span class=\"key rr\">ΔRR</span> <span class=\"key recall\">ΔRecall</span> <span class=\"key ndcg\">ΔnDCG</span> (from −1 to +1)</p>\n</section>\n");
}

/// Where the first relevant doc sits, both sides, as bars.
fn histogram(out: &mut String, r: &CompareReport) {
    let RankBuckets { labels, counts } = RankBuckets::of(r);
    let max = counts.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    let (bar, gap, h) = (18.0, 30.0, 100.0);
    let w = labels.len() as f64 * (2.0 * bar + gap);
    let _ = write!(
        out,
        "<section id=\"ranks\">\n<h2>First relevant rank (queries per bucket)</h2>\n<svg class=\"histogram\" viewBox=\"0 0 {w} {}\" width=\"{w}\" height=\"{}\" role=\"img\">",
        h + 30.0,
        h + 30.0
    );
    for (i, label) in labels.iter().enumerate() {
        let x0 = i as f64 * (2.0 * bar + gap);
        for (side, (role, per_bucket)) in counts.with_roles().enumerate() {
            let class = role.name();
            let c = per_bucket[i] as f64;
            let bh = c / max * h;
            let x = x0 + side as f64 * bar;
            let _ = write!(
                out,
                "<rect class=\"{class}\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{bar}\" height=\"{bh:.1}\"><title>{class} {label}: {c}</title></rect>",
                h - bh
            );
        }
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{}\">{}</text>",
            x0 + bar,
            h + 14.0,
            escape(label)
        );
    }
    out.push_str("</svg>\n<table class=\"ranks\"><thead><tr><th></th>");
    for l in &labels {
        let _ = write!(out, "<th>{}</th>", escape(l));
    }
    out.push_str("</tr></thead><tbody>");
    for (role, c) in counts.with_roles() {
        let name = role.name();
        let _ = write!(out, "<tr><td><span class=\"key {name}\">{name}</span></td>");
        for n in c {
            let _ = write!(out, "<td class=\"n\">{n}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n</section>\n");
}

/// The static table: the first [`STATIC_ROWS`] changed queries.
fn changed_table(out: &mut String, r: &CompareReport) {
    let rows = Rows::of(r);
    let tags = tags_by_id(r);
    // docs/contract.md §5.4: a Δ column per named measure after ΔnDCG
    let named: String = r
        .means
        .measures
        .0
        .iter()
        .map(|(m, _)| format!("<th>Δ{}</th>", escape(&m.name())))
        .collect();
    let _ = write!(
        out,
        "<section id=\"changed\">\n<h2>Changed queries ({})</h2>\n<div id=\"controls\" hidden></div>\n<table class=\"changed\" id=\"changed-table\">\n<thead><tr><th>id</th><th>status</th><th>tags</th><th>suspect</th><th>first rel</th><th>ΔRR</th><th>ΔRecall</th><th>ΔnDCG</th>{named}</tr></thead>\n<tbody>\n",
        rows.changed.len()
    );
    for q in rows.changed.iter().take(STATIC_ROWS) {
        let suspect = if q.holes.suspect { "suspect" } else { "" };
        let named: String = crate::compare::measures::deltas(q)
            .0
            .iter()
            .map(|&(_, d)| format!("<td class=\"n\">{}</td>", delta(d)))
            .collect();
        let _ = writeln!(
            out,
            "<tr class=\"{}\"><td>{}</td><td>{}{}</td><td>{}</td><td>{suspect}</td><td class=\"n\">{} → {}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>{named}</tr>",
            q.status.name(),
            escape(&q.id),
            q.status.name(),
            q.errored
                .map_or(String::new(), |e| format!(" · {}", e.marker())),
            escape(tags.get(q.id.as_str()).map_or("", |t| t.as_str())),
            rank(q.scores.baseline.first_relevant_rank),
            rank(q.scores.candidate.first_relevant_rank),
            delta(q.delta.rr),
            delta(q.delta.recall),
            delta(q.delta.ndcg)
        );
    }
    out.push_str("</tbody>\n</table>\n");
    if rows.changed.len() > STATIC_ROWS {
        let _ = writeln!(
            out,
            "<p class=\"more\" id=\"static-more\">… and {} more (with JavaScript the table holds them all; the JSON and CSV reports too)</p>",
            rows.changed.len() - STATIC_ROWS
        );
    }
    let _ = writeln!(
        out,
        "<p class=\"unchanged\">unchanged: {} (not listed)</p>\n</section>",
        rows.unchanged(r)
    );
}

fn notes(out: &mut String, r: &CompareReport) {
    if r.warnings.is_empty() && r.notes.is_empty() {
        return;
    }
    out.push_str("<section id=\"notes\">\n<h2>Warnings and notes</h2>\n<ul>\n");
    for (kind, list) in [("warning", &r.warnings), ("note", &r.notes)] {
        for text in list.iter() {
            let _ = writeln!(out, "<li class=\"{kind}\">{kind}: {}</li>", escape(text));
        }
    }
    out.push_str("</ul>\n</section>\n");
}

/// Each per-query row's tags by id (`;`-joined; the report holds them in
/// `per_query`'s order).
fn tags_by_id(r: &CompareReport) -> FxHashMap<&str, &String> {
    r.per_query
        .iter()
        .zip(&r.row_tags)
        .map(|(q, t)| (q.id.as_str(), t))
        .collect()
}

/// The data block: every changed query with its lists (unchanged ones carry
/// none), the titles of the docs listed, k and how many ranks are shown.
fn data_block(r: &CompareReport) -> serde_json::Value {
    let empty = Extra::default();
    let extra = r.html.as_ref().unwrap_or(&empty);
    let tags = tags_by_id(r);
    let mut titles = serde_json::Map::new();
    let rows: Vec<serde_json::Value> = Rows::of(r)
        .changed
        .iter()
        .map(|q| {
            let lists = extra.lists.get(&q.id).map(|side| {
                serde_json::json!([
                    list_json(&side.baseline, extra, &mut titles),
                    list_json(&side.candidate, extra, &mut titles),
                ])
            });
            // ΔRR, ΔRecall, ΔnDCG, then each named measure's (docs/contract.md §5.4)
            let d: Vec<f64> = [q.delta.rr, q.delta.recall, q.delta.ndcg]
                .into_iter()
                .chain(
                    crate::compare::measures::deltas(q)
                        .0
                        .iter()
                        .map(|&(_, d)| d),
                )
                .collect();
            let mut row = serde_json::json!({
                "id": safe_id(&q.id),
                "status": q.status.name(),
                "tags": tags.get(q.id.as_str()).map_or(String::new(), |t| safe_id(t)),
                "suspect": q.holes.suspect,
                "rank": [q.scores.baseline.first_relevant_rank, q.scores.candidate.first_relevant_rank],
                "d": d,
                "lists": lists,
            });
            // Only on an errored query (docs/contract.md §6.8).
            if let Some(e) = q.errored {
                row["errored"] = e.marker().into();
            }
            row
        })
        .collect();
    let measures: Vec<String> = r.means.measures.0.iter().map(|(m, _)| m.name()).collect();
    serde_json::json!({
        "k": r.k,
        "measures": measures,
        "shown": extra.shown,
        "min_grade": extra.min_grade,
        "titles": titles,
        "rows": rows,
    })
}

/// One list, compact (workload R has 99,000 of each side): `[docs, judged]`, the
/// docs tab-joined in rank order (an id holds no control character, §2.5) and
/// `judged` the `[position, grade]` of each judged doc. The script derives each
/// doc's rank in the other list and the lost and gained marks; the docs' titles go
/// to `titles`.
fn list_json(
    list: &[Listed],
    extra: &Extra,
    titles: &mut serde_json::Map<String, serde_json::Value>,
) -> serde_json::Value {
    let mut docs = String::new();
    let mut judged = Vec::new();
    for (i, l) in list.iter().enumerate() {
        if i > 0 {
            docs.push('\t');
        }
        let id = safe_id(&l.doc);
        if let Some(t) = extra.titles.get(l.doc.as_str()) {
            titles.insert(id.clone(), serde_json::json!(safe_id(t)));
        }
        docs.push_str(&id);
        if let Some(g) = l.grade {
            judged.push(serde_json::json!([i, g]));
        }
    }
    serde_json::json!([docs, judged])
}

/// The risk section (docs/contract.md §7.4): the overall figures, then every tested
/// segment's (at most [`RISK_SEGMENTS`] segments; JSON holds them all).
fn risk(out: &mut String, r: &CompareReport) {
    use super::risk::{HEADER, INTRO, cells};
    if !super::risk::shown(r) {
        return;
    }
    let head: String = HEADER.iter().map(|h| format!("<th>{h}</th>")).collect();
    let row = |out: &mut String, place: &str, x: &crate::compare::risk::Risk| {
        let c = cells(x, r.k);
        let class = if x.significant_downside_risk {
            " class=\"down\""
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<tr{class}><td>{place}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            escape(&c[0]),
            c[1],
            c[2],
            c[3],
            c[4]
        );
    };
    let _ = write!(
        out,
        "<section id=\"risk\">\n<h2>Risk</h2>\n<p>{}</p>\n<table class=\"risk\">\n<thead><tr><th>where</th>{head}</tr></thead>\n<tbody>\n",
        escape(INTRO)
    );
    for x in &r.risk {
        row(out, "overall", x);
    }
    let tested = r.segments.iter().filter(|s| !s.risk.is_empty());
    for s in tested.clone().take(RISK_SEGMENTS) {
        let place = format!("segment {}", escape(&s.tag));
        for x in &s.risk {
            row(out, &place, x);
        }
    }
    out.push_str("</tbody>\n</table>\n");
    let more = tested.count().saturating_sub(RISK_SEGMENTS);
    if more > 0 {
        let _ = writeln!(
            out,
            "<p>… and {more} more segments (the JSON report holds every figure)</p>"
        );
    }
    out.push_str("</section>\n");
}

/// The HTML report lists the risk of at most this many segments.
const RISK_SEGMENTS: usize = 200;
