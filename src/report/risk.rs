//! The risk section (docs/contract.md §7.4): the cells every format shares, and the
//! GitHub annotations of a significant downside risk. The figures are
//! `compare::risk`'s; each format's file decides how its rows look.

use crate::compare::risk::Risk;
use crate::report::{CompareReport, delta};
use crate::text::{escape_data, escape_property, safe_id};

/// The words every format writes beside a TRisk below -2.
pub const FLAG: &str = "significant downside risk";

/// The overall table's header (the terminal's, Markdown's and HTML's).
pub const HEADER: [&str; 5] = ["metric", "alpha", "URisk", "TRisk", "risk"];

/// At most this many flagged segment figures are named (JSON holds every figure).
pub const SEGMENTS_NAMED: usize = 10;

/// What the section shows, in one line.
pub const INTRO: &str = "URisk and TRisk of the candidate against the baseline (Dincer, Macdonald and Ounis, SIGIR 2014): a loss weighs 1 + alpha times a gain; TRisk below -2: significant downside risk";

/// A TRisk with two decimals and its sign; `n/a` when null (no spread).
pub fn trisk_text(t: Option<f64>) -> String {
    match t {
        Some(t) => match format!("{t:+.2}") {
            z if z == "+0.00" || z == "-0.00" => "0.00".to_string(),
            text => text,
        },
        None => "n/a".to_string(),
    }
}

/// One figure's cells, in [`HEADER`]'s order.
pub fn cells(x: &Risk, k: u32) -> [String; 5] {
    [
        x.of.label(k),
        x.alpha.to_string(),
        delta(x.urisk),
        trisk_text(x.trisk),
        if x.significant_downside_risk {
            FLAG.to_string()
        } else {
            String::new()
        },
    ]
}

/// Whether the section has anything to show.
pub fn shown(r: &CompareReport) -> bool {
    !r.risk.is_empty()
}

/// The segments that are not too few (those with figures).
pub fn tested_segments(r: &CompareReport) -> usize {
    r.segments.iter().filter(|s| !s.risk.is_empty()).count()
}

/// Every segment figure with a significant downside risk, in the report's segment
/// order: the tag and the figure.
pub fn flagged_segments(r: &CompareReport) -> Vec<(&str, &Risk)> {
    r.segments
        .iter()
        .flat_map(|s| {
            s.risk
                .iter()
                .filter(|x| x.significant_downside_risk)
                .map(move |x| (s.tag.as_str(), x))
        })
        .collect()
}

/// A flagged segment figure in words, the tag written by `id`.
pub fn segment_text(tag: &str, x: &Risk, k: u32, id: &dyn Fn(&str) -> String) -> String {
    format!(
        "segment {}: {} at alpha {}: TRisk {} (URisk {}), {FLAG}",
        id(tag),
        x.of.label(k),
        x.alpha,
        trisk_text(x.trisk),
        delta(x.urisk)
    )
}

/// The line under the segments' flagged figures: how many more, or that none is.
pub fn segments_summary(r: &CompareReport) -> Option<String> {
    let tested = tested_segments(r);
    if tested == 0 {
        return None;
    }
    let flagged = flagged_segments(r).len();
    Some(match flagged {
        0 => format!(
            "no {FLAG} in the {} (the JSON report holds every figure)",
            crate::text::plural(tested, "tested segment", "tested segments")
        ),
        n if n > SEGMENTS_NAMED => format!(
            "… and {} more segment figures with {FLAG} (the JSON report holds every figure)",
            n - SEGMENTS_NAMED
        ),
        _ => String::new(),
    })
    .filter(|s| !s.is_empty())
}

/// One workflow command per metric with a significant downside risk, overall then
/// per segment (at most 10, then a summary line), naming each flagged alpha: an error
/// when it fails the run (`--fail-on-risk`), else a warning.
pub fn annotations(r: &CompareReport) -> Vec<String> {
    const MAX: usize = 10;
    let failing = r.gate.enforced && !r.gate.passed;
    let fails = |x: &Risk| {
        failing
            && r.gate.causes.iter().any(|c| {
                matches!(c, crate::gate::Reason::Risk { label, alpha, .. }
                    if *label == x.of.label(r.k) && *alpha == x.alpha)
            })
    };
    let mut all: Vec<(bool, String)> = Vec::new();
    let places = std::iter::once((None, &r.risk))
        .chain(r.segments.iter().map(|s| (Some(s.tag.as_str()), &s.risk)));
    for (place, figures) in places {
        for m in crate::compare::risk::METRICS {
            let flagged: Vec<&Risk> = figures
                .iter()
                .filter(|x| x.of == m && x.significant_downside_risk)
                .collect();
            if flagged.is_empty() {
                continue;
            }
            let each: Vec<String> = flagged
                .iter()
                .map(|x| {
                    format!(
                        "alpha {}: TRisk {} (URisk {})",
                        x.alpha,
                        trisk_text(x.trisk),
                        delta(x.urisk)
                    )
                })
                .collect();
            let place = place.map_or_else(
                || "overall".to_string(),
                |t| format!("segment {}", safe_id(t)),
            );
            let text = format!("{} {place}: {FLAG} at {}", m.label(r.k), each.join("; "));
            all.push((flagged.iter().any(|x| fails(x)), text));
        }
    }
    let command = |error: bool, text: &str| {
        format!(
            "::{} title={}::{}",
            if error { "error" } else { "warning" },
            escape_property(&format!("ragdiff: {FLAG}")),
            escape_data(text)
        )
    };
    let mut out: Vec<String> = all
        .iter()
        .take(MAX)
        .map(|(error, text)| command(*error, text))
        .collect();
    if all.len() > MAX {
        let more = format!(
            "… and {} more metrics with {FLAG}; see the job summary or the JSON report",
            all.len() - MAX
        );
        out.push(command(all[MAX..].iter().any(|(e, _)| *e), &more));
    }
    out
}
