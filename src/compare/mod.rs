//! Comparing two runs: per-query pairs, statuses, means, deltas (filled in next).
pub mod app;
