//! The terminal table (comfy-table). Colour only on a terminal, never with NO_COLOR.

use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets};

use crate::eval::EvalReport;
use crate::metrics::Metric;
use crate::report::{GoldContext, RunContext, filters_text, num, rank, safe_id};

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

pub fn render_eval(r: &EvalReport) -> String {
    let index = r.run.index_version.clone().unwrap_or_else(|| "-".into());
    let mut out = context(&r.gold, &r.run, r.k, &index);
    out.push('\n');
    let mut header = vec!["id".to_string(), "first rel".to_string()];
    header.extend(Metric::ALL.iter().map(|m| m.label(r.k)));
    let mut t = new_table(header);
    for row in &r.per_query {
        let mut cells = vec![
            Cell::new(safe_id(&row.id)),
            right(rank(row.scores.first_relevant_rank)),
        ];
        cells.extend(Metric::ALL.iter().map(|m| right(num(m.of(&row.scores)))));
        t.add_row(cells);
    }
    let mut cells = vec![
        Cell::new(format!("mean ({})", r.per_query.len())),
        Cell::new(""),
    ];
    cells.extend(Metric::ALL.iter().map(|m| right(num(r.means.get(*m)))));
    t.add_row(cells);
    out.push_str(&t.to_string());
    out.push('\n');
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
    out
}
