//! The history across index versions (docs/contract.md §9.11): the line `promote`
//! appends to `history.jsonl`, `ragdiff history`'s table, Markdown (a Mermaid chart)
//! and HTML (an SVG chart), and the last promotions `compare` shows beside its means.
//! A change of gold breaks the line: each run of lines under one gold is drawn alone.

use std::fmt::Write as _;

use crate::compare::Status;
use crate::gate::Outcome;
use crate::metrics::Metric;
use crate::model::history::{HistoryGold, HistoryLine, HistoryMean, HistoryStatuses, SCHEMA};
use crate::report::{CompareReport, GoldContext, fit, html, markdown, num};
use crate::text::safe_id;

/// `compare` shows at most this many earlier promotions.
pub const RECENT: usize = 5;

/// The metrics drawn in the Markdown charts and the sparklines (the gate's family).
const DRAWN: [Metric; 4] = [Metric::Rr, Metric::Recall, Metric::Hit, Metric::Ndcg];

/// The gold as a history line records it.
pub fn gold_of(g: &GoldContext) -> HistoryGold {
    HistoryGold {
        name: g.name.clone(),
        version: g.version.clone(),
        sha256: g.sha256.as_ref().map(|s| s.chars().take(12).collect()),
    }
}

/// The line `promote` appends for this comparison, dated `date`.
pub fn line_of(r: &CompareReport, date: String) -> HistoryLine {
    let means = Metric::ALL
        .iter()
        .map(|&m| {
            let md = r.means.get(m);
            HistoryMean {
                metric: m.key().to_string(),
                baseline: md.baseline,
                candidate: md.candidate,
                delta: md.delta,
                ci_low: md.ci_low,
                ci_high: md.ci_high,
            }
        })
        .collect();
    HistoryLine {
        schema: SCHEMA,
        date,
        gold: gold_of(&r.gold),
        baseline_index_version: r.baseline.index_version.clone(),
        candidate_index_version: r.candidate.index_version.clone(),
        k: r.k,
        means,
        statuses: HistoryStatuses {
            newly_failed: r.count(Status::NewlyFailed),
            regressed: r.count(Status::Regressed),
            improved: r.count(Status::Improved),
            fixed: r.count(Status::Fixed),
            still_failing: r.count(Status::StillFailing),
            unchanged: r.count(Status::Unchanged),
        },
        verdict: match r.gate.verdict {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Inconclusive => "inconclusive",
        }
        .to_string(),
    }
}

/// The last [`RECENT`] promotions judged against this very gold (same name, version
/// and sha256): values under another gold are not comparable.
pub fn recent(lines: Vec<HistoryLine>, gold: &GoldContext) -> Vec<HistoryLine> {
    let gold = gold_of(gold);
    let mut same: Vec<HistoryLine> = lines
        .into_iter()
        .filter(|l| l.gold.same_as(&gold))
        .collect();
    let skip = same.len().saturating_sub(RECENT);
    same.drain(..skip);
    same
}

/// The lines cut where the gold changes: each slice is one comparable trend.
fn runs(lines: &[HistoryLine]) -> Vec<&[HistoryLine]> {
    lines
        .chunk_by(|a, b| a.gold.same_as(&b.gold) && a.k == b.k)
        .collect()
}

/// One point of a trend: an index version and its means.
struct Point<'a> {
    date: &'a str,
    version: String,
    verdict: &'a str,
    value: Box<dyn Fn(Metric) -> Option<f64> + 'a>,
}

/// A trend's points: the first promotion's baseline, then each promoted candidate.
fn points(run: &[HistoryLine]) -> Vec<Point<'_>> {
    let version = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let mut out = Vec::with_capacity(run.len() + 1);
    if let Some(first) = run.first() {
        out.push(Point {
            date: "",
            version: version(&first.baseline_index_version),
            verdict: "baseline",
            value: Box::new(move |m| first.mean(m).map(|x| x.baseline)),
        });
    }
    for line in run {
        out.push(Point {
            date: &line.date,
            version: version(&line.candidate_index_version),
            verdict: &line.verdict,
            value: Box::new(move |m| line.mean(m).map(|x| x.candidate)),
        });
    }
    out
}

fn value_text(v: Option<f64>) -> String {
    v.map(num).unwrap_or_else(|| "-".into())
}

/// The heading of one trend: the gold and how many promotions it holds.
fn heading(run: &[HistoryLine]) -> String {
    let g = &run[0].gold;
    let sha = g
        .sha256
        .as_deref()
        .map(|s| format!(" (sha256 {s})"))
        .unwrap_or_default();
    format!(
        "gold {}{sha}, k {}: {} promotion{}",
        safe_id(&g.label()),
        run[0].k,
        run.len(),
        if run.len() == 1 { "" } else { "s" }
    )
}

const BREAK: &str = "gold changed: the values below are not comparable with those above";

/// `ragdiff history`'s table: one per gold, fitted to `width` (columns P and MAP
/// left out first, then Hit and the date).
pub fn render_table(lines: &[HistoryLine], file: &str, width: Option<usize>) -> String {
    let mut out = format!("history  {}\n", safe_id(file));
    if lines.is_empty() {
        out.push_str("no promotion recorded yet (ragdiff promote appends one line each)\n");
        return out;
    }
    for (i, run) in runs(lines).into_iter().enumerate() {
        if i > 0 {
            let _ = writeln!(out, "\n{BREAK}");
        }
        let k = run[0].k;
        let _ = writeln!(out, "\n{}", heading(run));
        let mut header: Vec<String> = ["date", "index", "verdict"].map(String::from).to_vec();
        header.extend(Metric::ALL.iter().map(|m| m.label(k)));
        let rows = points(run)
            .iter()
            .map(|p| {
                let mut row = vec![
                    p.date.to_string(),
                    safe_id(&p.version),
                    p.verdict.to_uppercase(),
                ];
                row.extend(Metric::ALL.iter().map(|&m| value_text((p.value)(m))));
                row
            })
            .collect();
        let drop = [
            Metric::Precision.label(k),
            Metric::Ap.label(k),
            Metric::Hit.label(k),
            "date".to_string(),
        ];
        let drop: Vec<&str> = drop.iter().map(String::as_str).collect();
        let columns = fit::Columns {
            header,
            rows,
            right: &|i| i >= 3,
            drop: &drop,
            holds: "`--format json`",
        };
        out.push_str(&fit::fit(&columns, width));
    }
    out
}

/// A label safe inside a Mermaid string: letters, digits and `._:+-/` kept, anything
/// else `_`, cut to 40 characters.
fn mermaid_label(text: &str) -> String {
    text.chars()
        .take(40)
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._:+-/@".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `ragdiff history --format markdown`: per gold, a table and one Mermaid line chart
/// per metric of the gate's family.
pub fn render_markdown(lines: &[HistoryLine]) -> String {
    let mut out = String::from("## ragdiff: history across index versions\n\n");
    if lines.is_empty() {
        out.push_str("No promotion recorded yet.\n");
        return out;
    }
    for (i, run) in runs(lines).into_iter().enumerate() {
        if i > 0 {
            let _ = writeln!(out, "> {BREAK}.\n");
        }
        let k = run[0].k;
        let _ = writeln!(out, "### {}\n", markdown::escape(&heading(run)));
        let labels: Vec<String> = Metric::ALL.iter().map(|m| m.label(k)).collect();
        let _ = writeln!(out, "| date | index | verdict | {} |", labels.join(" | "));
        let _ = writeln!(out, "|---|---|---|{}", "---:|".repeat(labels.len()));
        let pts = points(run);
        for p in &pts {
            let values: Vec<String> = Metric::ALL
                .iter()
                .map(|&m| value_text((p.value)(m)))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                p.date,
                markdown::code(&p.version),
                p.verdict.to_uppercase(),
                values.join(" | ")
            );
        }
        let axis: Vec<String> = pts
            .iter()
            .map(|p| format!("\"{}\"", mermaid_label(&p.version)))
            .collect();
        for m in DRAWN {
            let values: Vec<String> = pts
                .iter()
                .map(|p| (p.value)(m).map_or("0".into(), |v| format!("{v:.4}")))
                .collect();
            let _ = write!(
                out,
                "\n```mermaid\nxychart-beta\n  title \"{}\"\n  x-axis [{}]\n  y-axis \"mean\" 0 --> 1\n  line [{}]\n```\n",
                mermaid_label(&m.label(k)),
                axis.join(", "),
                values.join(", ")
            );
        }
        out.push('\n');
    }
    out
}

/// An SVG line of `values` (each in [0, 1]) `w` by `h` pixels, classes only.
pub fn sparkline(values: &[f64], w: f64, h: f64, class: &str) -> String {
    let n = values.len().max(2) - 1;
    let pts: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = 2.0 + (w - 4.0) * i as f64 / n as f64;
            let y = 2.0 + (h - 4.0) * (1.0 - v.clamp(0.0, 1.0));
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let dots: String = pts
        .iter()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
            format!("<circle class=\"point\" cx=\"{x}\" cy=\"{y}\" r=\"2\"/>")
        })
        .collect();
    format!(
        "<svg class=\"spark\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\"><polyline class=\"{class}\" points=\"{}\"/>{dots}</svg>",
        pts.join(" ")
    )
}

/// `ragdiff history --format html`: one page, no script, per gold a table whose
/// rows are the index versions, and a chart per metric of the gate's family.
pub fn render_html(lines: &[HistoryLine]) -> String {
    let mut body =
        String::from("<header><h1>ragdiff: history across index versions</h1></header>\n");
    if lines.is_empty() {
        body.push_str("<p>No promotion recorded yet.</p>\n");
    }
    for (i, run) in runs(lines).into_iter().enumerate() {
        if i > 0 {
            let _ = writeln!(body, "<p class=\"warning\">{BREAK}.</p>");
        }
        let k = run[0].k;
        let pts = points(run);
        let _ = writeln!(body, "<section>\n<h2>{}</h2>", html::escape(&heading(run)));
        for m in DRAWN {
            let values: Vec<f64> = pts.iter().filter_map(|p| (p.value)(m)).collect();
            let _ = writeln!(
                body,
                "<p>{} {}</p>",
                html::escape(&m.label(k)),
                sparkline(&values, 240.0, 60.0, m.key())
            );
        }
        body.push_str("<table>\n<thead><tr><th>date</th><th>index</th><th>verdict</th>");
        for m in Metric::ALL {
            let _ = write!(body, "<th>{}</th>", html::escape(&m.label(k)));
        }
        body.push_str("</tr></thead>\n<tbody>\n");
        for p in &pts {
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td><td>{}</td>",
                html::escape(p.date),
                html::escape(&p.version),
                html::escape(&p.verdict.to_uppercase())
            );
            for m in Metric::ALL {
                let _ = write!(body, "<td class=\"n\">{}</td>", value_text((p.value)(m)));
            }
            body.push_str("</tr>\n");
        }
        body.push_str("</tbody>\n</table>\n</section>\n");
    }
    html::page("ragdiff: history", &body, None)
}

/// The earlier promotions beside `compare`'s means (terminal): one row per version,
/// then `now`.
pub fn compare_table(r: &CompareReport, width: Option<usize>) -> String {
    let Some(rows) = compare_rows(r) else {
        return String::new();
    };
    let mut header = vec!["index".to_string()];
    header.extend(DRAWN.iter().map(|m| m.label(r.k)));
    let drop = [Metric::Hit.label(r.k), Metric::Recall.label(r.k)];
    let drop: Vec<&str> = drop.iter().map(String::as_str).collect();
    let columns = fit::Columns {
        header,
        rows,
        right: &|i| i >= 1,
        drop: &drop,
        holds: "the JSON report",
    };
    format!("\n{}\n{}", compare_heading(r), fit::fit(&columns, width))
}

fn compare_heading(r: &CompareReport) -> String {
    format!(
        "history: the last {} promotion{} under this gold, then now",
        r.history.len(),
        if r.history.len() == 1 { "" } else { "s" }
    )
}

/// The rows `compare` shows: each earlier promoted version's candidate means, then
/// this comparison's candidate; `None` without history.
fn compare_rows(r: &CompareReport) -> Option<Vec<Vec<String>>> {
    if r.history.is_empty() {
        return None;
    }
    let mut rows: Vec<Vec<String>> = r
        .history
        .iter()
        .map(|l| {
            let mut row = vec![safe_id(l.candidate_index_version.as_deref().unwrap_or("-"))];
            row.extend(
                DRAWN
                    .iter()
                    .map(|&m| value_text(l.mean(m).map(|x| x.candidate))),
            );
            row
        })
        .collect();
    let mut now = vec![format!(
        "now: {}",
        safe_id(r.candidate.index_version.as_deref().unwrap_or("-"))
    )];
    now.extend(DRAWN.iter().map(|&m| num(r.means.get(m).candidate)));
    rows.push(now);
    Some(rows)
}

/// The same in Markdown: a collapsed table.
pub fn compare_markdown(r: &CompareReport) -> String {
    let Some(rows) = compare_rows(r) else {
        return String::new();
    };
    let labels: Vec<String> = DRAWN.iter().map(|m| m.label(r.k)).collect();
    let mut out = format!(
        "<details><summary>{}</summary>\n\n| index | {} |\n|---|{}\n",
        markdown::escape(&compare_heading(r)),
        labels.join(" | "),
        "---:|".repeat(labels.len())
    );
    for row in rows {
        let _ = writeln!(
            out,
            "| {} | {} |",
            markdown::escape(&row[0]),
            row[1..].join(" | ")
        );
    }
    out.push_str("\n</details>\n\n");
    out
}

/// The same in HTML: a sparkline per metric, the earlier versions then now.
pub fn compare_html(r: &CompareReport) -> String {
    if r.history.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<section id=\"history\">\n<h2>{}</h2>\n",
        html::escape(&compare_heading(r))
    );
    for m in DRAWN {
        let mut values: Vec<f64> = r
            .history
            .iter()
            .filter_map(|l| l.mean(m).map(|x| x.candidate))
            .collect();
        values.push(r.means.get(m).candidate);
        let _ = writeln!(
            out,
            "<p>{} {} {}</p>",
            html::escape(&m.label(r.k)),
            sparkline(&values, 160.0, 36.0, m.key()),
            num(r.means.get(m).candidate)
        );
    }
    out.push_str("</section>\n");
    out
}
