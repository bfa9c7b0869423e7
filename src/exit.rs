//! Exit codes: the contract CI scripts rely on (docs/contract.md §11), and
//! the one place that maps an error to its code.
//!
//! [`CODES`] is the one table of codes and meanings: `--help` prints it (each
//! command the rows it can return), and a test checks README's and the contract's
//! tables against it row for row.
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
/// `record`: the retriever failed (docs/contract.md §4.8).
pub const RETRIEVER_FAILED: u8 = 4;
/// Interrupted by SIGHUP (128 + 1, as shells report it).
pub const HANGUP: u8 = 129;
/// Interrupted by SIGINT (128 + 2).
pub const INTERRUPTED: u8 = 130;
/// Interrupted by SIGTERM (128 + 15).
pub const TERMINATED: u8 = 143;

/// Every exit code and its meaning, in the words README and the contract use.
pub const CODES: &[(u8, &str)] = &[
    (
        SUCCESS,
        "done; the gate passed (or `--no-gate`, or a command without a gate)",
    ),
    (
        GATE_FAILED,
        "the gate failed: a regression as the gate policy defines it (`compare`, `promote`)",
    ),
    (
        INVALID_INPUT,
        "invalid input or usage, every problem listed with file:line; also an export that cannot be written",
    ),
    (
        REFUSED,
        "refused: the runs are not comparable (`compare`, `promote`), or the run answers another corpus (`eval`)",
    ),
    (
        RETRIEVER_FAILED,
        "the retriever failed: a query it could not answer, or a process or server that broke the protocol (`record`)",
    ),
    (HANGUP, "interrupted by SIGHUP"),
    (INTERRUPTED, "interrupted by SIGINT (Ctrl-C)"),
    (TERMINATED, "interrupted by SIGTERM"),
];

/// What each command's `--help` says after its options: the rows of [`CODES`] the
/// command can return, and which code wins.
pub mod help {
    use super::{CODES, GATE_FAILED, REFUSED, RETRIEVER_FAILED};

    /// The help text of a set of commands, converted into clap's text on use.
    #[derive(Clone, Copy, Debug)]
    pub struct ExitHelp {
        gate: bool,
        refusal: bool,
        retriever: bool,
    }

    /// `ragdiff --help`: every code.
    pub const ALL_EXIT_CODES: ExitHelp = ExitHelp {
        gate: true,
        refusal: true,
        retriever: true,
    };
    /// `compare` and `promote`: every code but `record`'s.
    pub const EXIT_CODES: ExitHelp = ExitHelp {
        gate: true,
        refusal: true,
        retriever: false,
    };
    /// `eval` has no gate: it never exits 1.
    pub const EVAL_EXIT_CODES: ExitHelp = ExitHelp {
        gate: false,
        refusal: true,
        retriever: false,
    };
    /// `validate` and `freeze` have neither a gate nor a comparison to refuse.
    pub const CHECK_EXIT_CODES: ExitHelp = ExitHelp {
        gate: false,
        refusal: false,
        retriever: false,
    };
    /// `record`: no gate, no refusal, but a retriever that can fail.
    pub const RECORD_EXIT_CODES: ExitHelp = ExitHelp {
        gate: false,
        refusal: false,
        retriever: true,
    };

    impl ExitHelp {
        /// The text: one line per code, then which code wins.
        pub fn text(self) -> String {
            let mut out = String::from("Exit codes:\n");
            for &(code, meaning) in CODES {
                if (code == GATE_FAILED && !self.gate)
                    || (code == REFUSED && !self.refusal)
                    || (code == RETRIEVER_FAILED && !self.retriever)
                {
                    continue;
                }
                out.push_str(&format!("  {code:<4} {}\n", meaning.replace('`', "")));
            }
            out.push_str(match (self.gate, self.refusal) {
                (true, _) => "When several apply, 2 wins over 3, and 3 over 1; --no-gate never hides 2 or 3.\n",
                (false, true) => "When both apply, 2 wins over 3.\n",
                (false, false) if self.retriever => "When both apply, 2 wins over 4.\n",
            (false, false) => "",
            });
            out.push_str("Another fatal signal exits 128 + its number. An interrupted run leaves its exports\nall old or all new, and no temporary file.");
            out
        }
    }

    impl From<ExitHelp> for clap::builder::StyledStr {
        fn from(help: ExitHelp) -> Self {
            help.text().into()
        }
    }
}

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

/// `record`: the retriever failed (exit 4). The message names query ids and what
/// went wrong, never a question's text (docs/contract.md §4.8).
#[derive(Debug)]
pub struct RetrieverFailed {
    pub message: String,
    /// The retriever's last lines of stderr, every question's text redacted.
    pub log_tail: Vec<String>,
}

impl std::fmt::Display for RetrieverFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the retriever failed: {}",
            crate::text::shown(&self.message)
        )?;
        if !self.log_tail.is_empty() {
            write!(
                f,
                "\n  its last {} lines of stderr (questions redacted):",
                self.log_tail.len()
            )?;
            for line in &self.log_tail {
                write!(f, "\n  | {}", crate::text::shown(line))?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for RetrieverFailed {}

/// The exit code an error stands for: [`REFUSED`] for a refusal, else
/// [`INVALID_INPUT`] (input problems, usage, files that cannot be written).
pub fn of_error(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<Refused>().is_some() {
        REFUSED
    } else if err.downcast_ref::<RetrieverFailed>().is_some() {
        RETRIEVER_FAILED
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupt_codes_are_128_plus_the_signal() {
        use nix::sys::signal::Signal;
        assert_eq!(i32::from(HANGUP), signalled(Signal::SIGHUP as i32));
        assert_eq!(i32::from(INTERRUPTED), signalled(Signal::SIGINT as i32));
        assert_eq!(i32::from(TERMINATED), signalled(Signal::SIGTERM as i32));
    }

    #[test]
    fn eval_help_has_no_gate_and_checks_have_no_refusal() {
        let eval = help::EVAL_EXIT_CODES.text();
        assert!(!eval.contains("\n  1 "), "{eval}");
        assert!(eval.contains("\n  3 "), "{eval}");
        let check = help::CHECK_EXIT_CODES.text();
        assert!(!check.contains("\n  3 "), "{check}");
        let record = help::RECORD_EXIT_CODES.text();
        assert!(
            record.contains("\n  4 ") && !record.contains("\n  1 "),
            "{record}"
        );
        assert!(!help::EXIT_CODES.text().contains("\n  4 "));
        let all = help::ALL_EXIT_CODES.text();
        assert_eq!(
            all.lines().filter(|l| l.starts_with("  ")).count(),
            CODES.len()
        );
    }
}
