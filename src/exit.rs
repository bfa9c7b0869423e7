//! Exit codes: the contract CI scripts rely on (SPEC section 3).
//!
//! When several apply, [`INVALID_INPUT`] wins over [`REFUSED`], which wins over
//! [`GATE_FAILED`]; `--no-gate` never hides 2 or 3.

use std::process::ExitCode;

/// Done; the gate passed (or there was no gate to pass).
pub const SUCCESS: u8 = 0;
/// The gate failed: a regression as the gate policy defines it.
pub const GATE_FAILED: u8 = 1;
/// Invalid input or usage; every problem is listed with file:line.
pub const INVALID_INPUT: u8 = 2;
/// Refused: the runs are not comparable.
pub const REFUSED: u8 = 3;

/// The process exit code for one of the constants above.
pub fn code(value: u8) -> ExitCode {
    ExitCode::from(value)
}
