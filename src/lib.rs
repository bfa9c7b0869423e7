//! ragdiff: catch retrieval regressions before they ship.
//!
//! It evaluates a baseline and a candidate run of a retriever against one frozen,
//! human-labelled gold set, refuses to compare runs that are not comparable, and
//! reports per-query deltas and the queries that newly fail.
//!
//! Data flows one way, `model` and `text` at the bottom (README, "Development"):
//!
//! ```text
//! cli -> settings -> app -> load -> validate -> metrics/eval -> compare -> gate -> report
//! ```
//!
//! The contract users rely on is docs/contract.md.
//!
//! | exit code | meaning |
//! | --- | --- |
//! | 0 | done; the gate passed |
//! | 1 | the gate failed: a regression as the gate policy defines it |
//! | 2 | invalid input or usage (every problem listed, with file:line) |
//! | 3 | refused: the runs are not comparable |

pub mod app;
pub mod cli;
pub mod compare;
pub mod eval;
pub mod exit;
#[doc(hidden)]
pub mod fuzz;
pub mod gate;
pub mod interrupt;
pub mod load;
pub mod metrics;
pub mod model;
pub mod output;
pub mod progress;
#[cfg(feature = "python")]
pub mod python;
pub mod record;
pub mod report;
pub mod settings;
pub mod stats;
pub mod swar;
pub mod text;
pub mod validate;
