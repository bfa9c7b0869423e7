//! An allow-list entry (docs/contract.md §8.5): read by `load::allow`, applied by
//! the gate.

/// One accepted new failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowEntry {
    pub id: String,
    pub reason: String,
    /// The index build it was accepted for; `None`: any version (a list without
    /// the column, an empty cell, or `--allow-failed`).
    pub index_version: Option<String>,
    /// `YYYY-MM-DD` (UTC), when the file says.
    pub accepted_at: Option<String>,
    /// Where it came from: the file, or `--allow-failed`.
    pub source: AllowSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllowSource {
    Flag,
    File { line: u64 },
}
