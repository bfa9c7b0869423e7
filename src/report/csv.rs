//! The per-query CSV (docs/contract.md §10.4): one row per query in report order, numbers
//! unrounded, id cells guarded against formula injection.

use crate::report::CompareReport;

pub const HEADER: [&str; 12] = [
    "id",
    "status",
    "tags",
    "baseline_rank",
    "candidate_rank",
    "baseline_rr",
    "candidate_rr",
    "delta_rr",
    "baseline_recall",
    "candidate_recall",
    "delta_recall",
    "suspect",
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
    let rank = |x: Option<u32>| x.map(|v| v.to_string()).unwrap_or_default();
    let write = |w: &mut csv::Writer<Vec<u8>>, rec: &[String]| {
        w.write_record(rec).expect("writing to memory cannot fail");
    };
    write(&mut w, &HEADER.map(String::from));
    for (i, q) in r.per_query.iter().enumerate() {
        write(
            &mut w,
            &[
                guard(&crate::text::shown(&q.id)),
                q.status.name().to_string(),
                // docs/contract.md §18: `;`-joined, empty without tags.
                guard(r.row_tags.get(i).map_or("", String::as_str)),
                rank(q.baseline.first_relevant_rank),
                rank(q.candidate.first_relevant_rank),
                q.baseline.rr.to_string(),
                q.candidate.rr.to_string(),
                q.delta.rr.to_string(),
                q.baseline.recall.to_string(),
                q.candidate.recall.to_string(),
                q.delta.recall.to_string(),
                // docs/contract.md §16: the unjudged docs that entered, for a suspect.
                if q.holes.suspect {
                    q.holes.unjudged_entered.to_string()
                } else {
                    String::new()
                },
            ],
        );
    }
    String::from_utf8(w.into_inner().expect("writing to memory cannot fail"))
        .expect("CSV of UTF-8 strings is UTF-8")
}
