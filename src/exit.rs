//! Exit codes: the contract CI scripts rely on (docs/contract.md §12), and
//! the one place that maps an error to its code.
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

/// The runs are not comparable (exit 3); every difference is listed.
#[derive(Debug)]
pub struct Refused {
    /// What is refused, e.g. [`Refused::COMPARE`].
    pub what: &'static str,
    pub differences: Vec<String>,
}

impl Refused {
    pub const COMPARE: &str = "to compare: the runs are not comparable";
    pub const EVAL: &str = "to evaluate: the run does not answer the gold's questions";
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "refusing {}", self.what)?;
        for d in &self.differences {
            write!(f, "\n  {}", crate::text::shown(d))?;
        }
        Ok(())
    }
}

impl std::error::Error for Refused {}

/// The exit code an error stands for: [`REFUSED`] for a refusal, else
/// [`INVALID_INPUT`] (input problems, usage, files that cannot be written).
pub fn of_error(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<Refused>().is_some() {
        REFUSED
    } else {
        INVALID_INPUT
    }
}

/// A closed stdout (`ragdiff … | head`) is not an error.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The exit code after a fatal signal: 128 + the signal's number, as shells report a
/// process the signal ended. ragdiff takes every signal in
/// [`crate::interrupt::FATAL`], removes its temporary files and exits with:
///
/// | signal | code |
/// | --- | --- |
/// | SIGHUP | 129 |
/// | SIGINT | 130 |
/// | SIGQUIT | 131 |
/// | SIGUSR1 | 138 |
/// | SIGUSR2 | 140 |
/// | SIGPIPE (sent with `kill`) | 141 |
/// | SIGALRM | 142 |
/// | SIGTERM | 143 |
/// | SIGXCPU | 152 |
/// | SIGXFSZ | 153 |
/// | SIGVTALRM | 154 |
/// | SIGPROF | 155 |
///
/// (Numbers as on Linux; another system's numbers give its own codes.)
pub const fn signalled(signal: i32) -> i32 {
    128 + signal
}
