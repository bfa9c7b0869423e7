//! The label queue (docs/contract.md §9.6): CSV of the unjudged docs annotators
//! should label first. Ids and ranks only; id cells guarded against formula
//! injection as in the per-query CSV.

use crate::compare::holes::LabelItem;
use crate::report::csv::guard;

pub const HEADER: [&str; 5] = [
    "query_id",
    "doc_id",
    "candidate_rank",
    "baseline_rank",
    "status",
];

/// Write the queue, in its order, with a header (also when it is empty).
pub fn write(items: &[LabelItem], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    w.write_record(HEADER)?;
    for item in items {
        w.write_record([
            guard(&item.query),
            guard(&item.doc),
            item.candidate_rank.to_string(),
            item.baseline_rank
                .map(|r| r.to_string())
                .unwrap_or_default(),
            item.status.name().to_string(),
        ])?;
    }
    w.flush()
}
