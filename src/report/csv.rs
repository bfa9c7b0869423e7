//! The per-query CSV (docs/contract.md §9.4): one row per query in report order, numbers
//! unrounded, id cells guarded against formula injection; a named measure's columns
//! (§5.4) after the others.

use crate::report::CompareReport;

/// The header (docs/contract.md §9.8): then per metric baseline, candidate, delta.
pub const HEADER: [&str; 29] = [
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
    "errored",
];

/// An id cell a spreadsheet will not run as a formula: a leading `'` when it
/// starts with `=`, `+`, `-`, `@`, tab or carriage return.
pub fn guard(id: &str) -> String {
    let mut out = String::with_capacity(id.len() + 1);
    push_guarded(&mut out, id);
    out
}

/// Stream the CSV into `out`, record by record, each cell formatted into one reused
/// buffer: memory stays that of one row, however many queries there are.
pub fn write(r: &CompareReport, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    // docs/contract.md §9.8: then per named measure (§5.4) baseline, candidate, delta;
    // a name holds only the characters of ir_measures' names, and each cell starts
    // with its side, so none reads as a formula; the writer quotes what needs it.
    let named: Vec<String> = r
        .means
        .measures
        .0
        .iter()
        .flat_map(|(m, _)| ["baseline", "candidate", "delta"].map(|side| format!("{side}_{m}")))
        .collect();
    w.write_record(
        HEADER
            .iter()
            .copied()
            .chain(named.iter().map(String::as_str)),
    )?;
    let mut record = Record {
        w: &mut w,
        cell: String::new(),
    };
    for (i, q) in r.per_query.iter().enumerate() {
        row(&mut record, r, i, q)?;
    }
    w.flush()
}

/// One query's cells, in [`HEADER`]'s order; numbers unrounded, empty cells where a
/// value does not apply.
fn row(
    out: &mut Record<'_, '_>,
    r: &CompareReport,
    i: usize,
    q: &crate::compare::QueryRow,
) -> csv::Result<()> {
    use crate::metrics::Metric;
    out.id(&crate::text::shown(&q.id))?;
    out.w.write_field(q.status.name())?;
    out.w.write_field(q.failure_kind.map_or("", |f| f.name()))?;
    // docs/contract.md §6.3: the unjudged docs that entered, for a suspect.
    out.number(q.holes.suspect.then_some(q.holes.suspect_entered))?;
    // docs/contract.md §6.6: `;`-joined, empty without tags.
    out.id(r.row_tags.get(i).map_or("", String::as_str))?;
    out.number(q.scores.baseline.first_relevant_rank)?;
    out.number(q.scores.candidate.first_relevant_rank)?;
    for m in Metric::ALL {
        out.float(m.of(&q.scores.baseline))?;
        out.float(m.of(&q.scores.candidate))?;
        out.float(q.delta.get(m))?;
    }
    out.ids(&q.lost)?;
    out.ids(&q.gained)?;
    // docs/contract.md §5.3: `true` for a new failure no label can rescue.
    out.w.write_field(if q.holes.no_label_can_rescue {
        "true"
    } else {
        ""
    })?;
    // docs/contract.md §6.8: baseline, candidate or both; empty otherwise.
    out.w.write_field(q.errored.map_or("", |e| e.name()))?;
    let named = &q.measures;
    for (&(_, b), &(_, c)) in named.baseline.0.iter().zip(&named.candidate.0) {
        out.float(b)?;
        out.float(c)?;
        out.float(c - b)?;
    }
    out.w.write_record(None::<&[u8]>)
}

/// The record being written, and the buffer each cell is formatted into.
struct Record<'a, 'w> {
    w: &'a mut csv::Writer<&'w mut dyn std::io::Write>,
    cell: String,
}

impl Record<'_, '_> {
    /// An id or tags cell, [`guard`]ed.
    fn id(&mut self, id: &str) -> csv::Result<()> {
        self.cell.clear();
        push_guarded(&mut self.cell, id);
        self.w.write_field(&self.cell)
    }

    /// Ids shown, each [`guard`]ed, `;`-joined.
    fn ids(&mut self, list: &[crate::model::Id]) -> csv::Result<()> {
        self.cell.clear();
        for (n, id) in list.iter().enumerate() {
            if n > 0 {
                self.cell.push(';');
            }
            push_guarded(&mut self.cell, &crate::text::shown(id));
        }
        self.w.write_field(&self.cell)
    }

    /// A count or a rank; empty when there is none.
    fn number(&mut self, n: Option<u32>) -> csv::Result<()> {
        use std::fmt::Write;
        self.cell.clear();
        if let Some(n) = n {
            let _ = write!(self.cell, "{n}");
        }
        self.w.write_field(&self.cell)
    }

    /// A value as Rust's `Display` writes it (the shortest text that reads back
    /// as the same number); a whole number, the most common, without the float
    /// formatting.
    fn float(&mut self, x: f64) -> csv::Result<()> {
        use std::fmt::Write;
        self.cell.clear();
        // Below 2^53 every whole number is exact, and `Display` writes its digits.
        if x.fract() == 0.0 && x.abs() < 1e15 {
            if x.is_sign_negative() {
                self.cell.push('-');
            }
            let _ = write!(self.cell, "{}", x.abs() as u64);
        } else {
            let _ = write!(self.cell, "{x}");
        }
        self.w.write_field(&self.cell)
    }
}

/// [`guard`]: `id` pushed onto `out`.
fn push_guarded(out: &mut String, id: &str) {
    if id.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        out.push('\'');
    }
    out.push_str(id);
}

#[cfg(test)]
mod tests {
    use super::Record;

    #[test]
    fn floats_are_written_as_display_writes_them() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.25,
            0.1 + 0.2,
            1e-7,
            123_456_789.0,
            999_999_999_999_999.0,
            1e15,
            -1e16,
            2f64.powi(60),
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut bytes: Vec<u8> = Vec::new();
        let out: &mut dyn std::io::Write = &mut bytes;
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(out);
        let mut record = Record {
            w: &mut w,
            cell: String::new(),
        };
        for x in values {
            record.float(x).unwrap();
        }
        record.w.write_record(None::<&[u8]>).unwrap();
        w.flush().unwrap();
        drop(w);
        let want: Vec<String> = values.iter().map(ToString::to_string).collect();
        assert_eq!(String::from_utf8(bytes).unwrap(), want.join(",") + "\n");
    }
}
