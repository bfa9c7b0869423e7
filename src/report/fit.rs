//! Terminal tables that fit a width (docs/contract.md §9.9): whole columns left out
//! by the priority each table names, then a stacked layout (one row per block) when
//! even the narrowest table does not fit. A cell is never broken inside a word; an id
//! wider than the width is cut with "…". Rendering goes through comfy-table
//! ([`super::table::new_table`]); this file only decides which columns and which layout.

use comfy_table::{Cell, CellAlignment, Table};

use crate::text::{cut_to, display_width, wrap_words};

/// One table before it is fitted.
pub struct Columns<'a> {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Whether column `i` holds numbers (right-aligned).
    pub right: &'a dyn Fn(usize) -> bool,
    /// Header names of the columns that may be left out, first left out first;
    /// a column not named here always stays.
    pub drop: &'a [&'a str],
    /// What holds the columns left out, for the note: "the CSV and JSON reports".
    pub holds: &'a str,
}

/// The table at `width` (never narrowed when `None`), ending with a line break; a
/// note follows when columns were left out.
pub fn fit(c: &Columns, width: Option<usize>) -> String {
    let mut kept: Vec<usize> = (0..c.header.len()).collect();
    let table = render(c, &kept);
    let Some(width) = width else {
        return format!("{table}\n");
    };
    if widest(&table) <= width {
        return format!("{table}\n");
    }
    let mut dropped: Vec<&str> = Vec::new();
    for name in c.drop {
        let Some(col) = c.header.iter().position(|h| h == name) else {
            continue;
        };
        kept.retain(|&k| k != col);
        dropped.push(name);
        let table = render(c, &kept);
        if widest(&table) <= width {
            let note = format!(
                "(left out to fit {width} columns: {}; {} hold them)",
                dropped.join(", "),
                c.holds
            );
            return format!("{table}\n{}\n", wrap_words(&note, width, 1));
        }
    }
    stacked(c, width)
}

/// One block per row: the first cell on its own line (cut to the width), then one
/// line per non-empty cell, `  header  value`, the value wrapped at word boundaries.
pub fn stacked(c: &Columns, width: usize) -> String {
    let label = c
        .header
        .iter()
        .skip(1)
        .map(|h| display_width(h))
        .max()
        .unwrap_or(0)
        .min(width / 3);
    let indent = 2 + label + 2;
    let mut out = String::new();
    for row in &c.rows {
        let Some((first, rest)) = row.split_first() else {
            continue;
        };
        out.push_str(&cut_to(first, width));
        out.push('\n');
        for (h, cell) in c.header.iter().skip(1).zip(rest) {
            if cell.is_empty() {
                continue;
            }
            let h = cut_to(h, label);
            // At a width under 3 the label has no room and `cut_to` leaves `…`.
            let pad = label.saturating_sub(display_width(&h));
            let line = format!("  {h}{}  {cell}", " ".repeat(pad));
            out.push_str(&wrap_words(&line, width, indent));
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

/// The table with the columns `kept` (indices into the header).
fn render(c: &Columns, kept: &[usize]) -> Table {
    let mut t = super::table::new_table(kept.iter().map(|&i| c.header[i].clone()).collect());
    for row in &c.rows {
        t.add_row(
            kept.iter()
                .map(|&i| {
                    let cell = Cell::new(row.get(i).cloned().unwrap_or_default());
                    if (c.right)(i) {
                        cell.set_alignment(CellAlignment::Right)
                    } else {
                        cell
                    }
                })
                .collect::<Vec<_>>(),
        );
    }
    t
}

/// The display width of the table's widest line.
fn widest(t: &Table) -> usize {
    t.lines().map(|l| display_width(&l)).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns<'a>(rows: Vec<Vec<String>>, drop: &'a [&'a str]) -> Columns<'a> {
        Columns {
            header: vec!["id".into(), "status".into(), "RR".into(), "lost".into()],
            rows,
            right: &|i| i == 2,
            drop,
            holds: "the JSON report",
        }
    }

    fn row(id: &str, lost: &str) -> Vec<String> {
        vec![
            id.into(),
            "newly_failed".into(),
            "0.5000 -> 0.0000".into(),
            lost.into(),
        ]
    }

    fn max_width(s: &str) -> usize {
        s.lines().map(display_width).max().unwrap_or(0)
    }

    #[test]
    fn columns_are_left_out_in_the_order_named_then_noted() {
        let c = columns(vec![row("Q-1", "D-1 D-2 D-3 D-4 D-5 D-6")], &["lost", "RR"]);
        let full = fit(&c, None);
        assert!(full.contains("lost"), "{full}");
        let w = max_width(&full) - 1;
        let out = fit(&c, Some(w));
        assert!(max_width(&out) <= w, "{out}");
        assert!(!out.contains("D-1"), "{out}");
        assert!(out.contains("0.5000 -> 0.0000"), "{out}");
        assert!(out.contains("(left out to fit"), "{out}");
        assert!(out.contains(": lost; the JSON report hold"), "{out}");
    }

    #[test]
    fn too_narrow_for_any_table_stacks_one_block_per_row_and_cuts_long_ids() {
        let long = "Q-".repeat(30);
        let c = columns(vec![row(&long, "D-1 D-2 D-3"), row("Q-2", "")], &["lost"]);
        let out = fit(&c, Some(40));
        assert!(max_width(&out) <= 40, "{out}");
        assert!(out.starts_with(&format!("{}…\n", &long[..39])), "{out}");
        assert!(out.contains("\nQ-2\n  status  newly_failed\n"), "{out}");
        assert!(out.contains("  lost    D-1 D-2 D-3\n"), "{out}");
        // An empty cell is left out of its block, and no word is broken.
        assert!(!out.contains("Q-2\n  status  newly_failed\n  RR      0.5000 -> 0.0000\n  lost"));
        for word in ["newly_failed", "0.5000", "D-1"] {
            assert!(out.contains(word), "{word} whole:\n{out}");
        }
    }
}
