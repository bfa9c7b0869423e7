//! The per-query CSV (docs/contract.md §10.4): one row per query in report order, numbers
//! unrounded, id cells guarded against formula injection.

use crate::report::CompareReport;

/// The header (docs/contract.md §19.7): then per metric baseline, candidate, delta.
pub const HEADER: [&str; 27] = [
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
];

/// An id cell a spreadsheet will not run as a formula: a leading `'` when it
/// starts with `=`, `+`, `-`, `@`, tab or carriage return.
pub fn guard(id: &str) -> String {
    if id.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{id}")
    } else {
        id.to_string()
    }
}

pub fn render(r: &CompareReport) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let write = |w: &mut csv::Writer<Vec<u8>>, rec: &[String]| {
        w.write_record(rec).expect("writing to memory cannot fail");
    };
    write(&mut w, &HEADER.map(String::from));
    for (i, q) in r.per_query.iter().enumerate() {
        write(&mut w, &row(r, i, q));
    }
    String::from_utf8(w.into_inner().expect("writing to memory cannot fail"))
        .expect("CSV of UTF-8 strings is UTF-8")
}

/// One query's cells, in [`HEADER`]'s order; numbers unrounded, empty cells where a
/// value does not apply.
fn row(r: &CompareReport, i: usize, q: &crate::compare::QueryRow) -> Vec<String> {
    use crate::metrics::Metric;
    let rank = |x: Option<u32>| x.map(|v| v.to_string()).unwrap_or_default();
    let ids = |list: &[String]| {
        list.iter()
            .map(|d| guard(&crate::text::shown(d)))
            .collect::<Vec<_>>()
            .join(";")
    };
    let mut cells = vec![
        guard(&crate::text::shown(&q.id)),
        q.status.name().to_string(),
        q.failure_kind.map(|f| f.name()).unwrap_or("").to_string(),
        // docs/contract.md §16: the unjudged docs that entered, for a suspect.
        if q.holes.suspect {
            q.holes.unjudged_entered.to_string()
        } else {
            String::new()
        },
        // docs/contract.md §18: `;`-joined, empty without tags.
        guard(r.row_tags.get(i).map_or("", String::as_str)),
        rank(q.baseline.first_relevant_rank),
        rank(q.candidate.first_relevant_rank),
    ];
    for m in Metric::ALL {
        let (b, c) = (m.of(&q.baseline), m.of(&q.candidate));
        cells.extend([b.to_string(), c.to_string(), q.delta.get(m).to_string()]);
    }
    cells.push(ids(&q.lost));
    cells.push(ids(&q.gained));
    cells
}
