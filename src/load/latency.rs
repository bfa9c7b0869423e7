//! A run's latency side file (`latency = "candidate-latency.csv"` in its manifest,
//! docs/contract.md §4.8, §6.9): `id,latency_ms`, an empty cell for a query without
//! one. A `latency_ms` field or column in the results themselves is read with them.

use std::path::Path;

use crate::load::csvio::{self, Header};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Every latency the side file at `path` holds, in file order; problems at their line.
pub fn side_file(path: &Path, display: &str, diag: &mut Diagnostics) -> Vec<f64> {
    let mut out = Vec::new();
    let Some(bytes) = crate::load::fs::read_file(path, "latency file", display, diag) else {
        return out;
    };
    let mut reader = csvio::reader(bytes.as_slice());
    let known = ["id", "latency_ms"];
    let Some(header) = Header::read(&mut reader, display, &known, &known, diag) else {
        return out;
    };
    let required = "`id` and `latency_ms`";
    let (Some(id_col), Some(ms_col)) = (
        header.require("id", required, display, diag),
        header.require("latency_ms", required, display, diag),
    ) else {
        return out;
    };
    csvio::for_each_row(
        &mut reader,
        display,
        header.width,
        &[id_col],
        diag,
        |record, line, diag| {
            let text = csvio::cell_str(record, ms_col).unwrap_or_default().trim();
            if text.is_empty() {
                return;
            }
            match text.parse::<f64>() {
                Ok(ms) if ms.is_finite() && ms >= 0.0 => out.push(ms),
                _ => diag.problem(
                    Location::line(display, line),
                    ProblemKind::BadLatency {
                        query: crate::text::shown(
                            csvio::cell_str(record, id_col).unwrap_or_default(),
                        )
                        .into_owned(),
                        value: crate::text::shown(text).into_owned(),
                    },
                ),
            }
        },
    );
    out
}
