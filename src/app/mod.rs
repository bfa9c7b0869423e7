//! One file per subcommand, wiring settings -> load -> validate -> metrics ->
//! compare -> gate -> report. No logic of its own beyond that wiring; shared here:
//! dispatch, printing warnings, and a refusal that still reads the runs.

mod accept;
mod compare;
mod eval;
mod freeze;
mod history;
mod init;
mod promote;
mod record;
mod validate;
pub mod write_run;

use crate::cli::{Cli, Command};
use crate::exit::Refused;
use crate::load;
use crate::model::{GoldMeta, GoldSet, RunMeta};
use crate::output;
use crate::settings;
use crate::text::{eprint_workflow_command, eprintln, escape_data, shown, under_github_actions};
use crate::validate::Diagnostics;

/// Parse the command line. clap's messages quote arguments as given, so they are
/// written through the guard that neutralises workflow commands, like every other
/// line ragdiff writes; the error is clap's exit code.
pub fn parse_args() -> Result<Cli, u8> {
    parse_args_from(std::env::args_os().collect())
}

/// [`parse_args`] over the given arguments (the first is the program's name).
pub fn parse_args_from(args: Vec<std::ffi::OsString>) -> Result<Cli, u8> {
    use clap::Parser;
    use std::io::IsTerminal;
    let e = match Cli::try_parse_from(args) {
        Ok(cli) => return Ok(cli),
        Err(e) => e,
    };
    let styled = e.render();
    let to_stderr = e.use_stderr();
    let terminal = if to_stderr {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    };
    let text = if terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) {
        styled.ansi().to_string()
    } else {
        styled.to_string()
    };
    if to_stderr {
        // clap quotes a value as given, however long: each line is bounded
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                let cut = crate::text::bounded(l);
                // a colour the cut left open ends with the line
                if terminal && cut.len() < l.len() {
                    format!("{cut}\x1b[0m")
                } else {
                    cut
                }
            })
            .collect();
        let mut text = lines.join("\n");
        text.push('\n');
        crate::text::eprint(&text);
    } else {
        let _ = output::stdout(&text);
    }
    Err(e.exit_code().clamp(0, 255) as u8)
}

/// The command line's entry point, the binary's and the Python console script's alike:
/// signals first (src/interrupt.rs), then the command; the exit code.
pub fn main(args: Vec<std::ffi::OsString>) -> u8 {
    // First, before any thread exists: the threads inherit the blocked signals.
    crate::interrupt::install();
    let cli = match parse_args_from(args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    match run(cli) {
        Ok(code) => code,
        Err(err) if crate::exit::is_broken_pipe(&err) => crate::exit::SUCCESS,
        Err(err) => {
            eprintln(&format!("error: {err:#}"));
            crate::exit::of_error(&err)
        }
    }
}

/// `eval` or `compare` given as arguments (`ragdiff compare …`), run with nothing
/// printed, no progress bar and no signal handling: the report as `--format json`
/// prints it. For the Python module (src/python.rs).
pub fn report_json(args: Vec<std::ffi::OsString>) -> anyhow::Result<String> {
    use clap::Parser;
    crate::progress::hide();
    let mut out = Vec::new();
    match Cli::try_parse_from(args)?.command {
        Command::Compare(args) => {
            let s = settings::Compare::new(args)?;
            let report = compare::report(&s, &Phases::start())?;
            crate::report::write_compare(&report, crate::report::Format::Json, false, &mut out)?;
        }
        Command::Eval(args) => {
            let report = eval::report(settings::Eval::new(args)?)?;
            crate::report::json::write(&report, &mut out)?;
        }
        _ => anyhow::bail!("only eval and compare report as JSON"),
    }
    Ok(String::from_utf8(out)?)
}

pub fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Compare(args) => compare::run(settings::Compare::new(args)?),
        Command::Eval(args) => eval::run(settings::Eval::new(args)?),
        Command::Validate(args) => validate::run(settings::Validate::new(args)),
        Command::Freeze(args) => freeze::run(settings::Freeze::new(args)),
        Command::Init(args) => init::run(&args),
        Command::Promote(args) => promote::run(settings::Promote::new(args)?),
        Command::Accept(args) => accept::run(settings::Accept::new(args)?),
        Command::Record(args) => record::run(settings::record::Record::new(args)?),
        Command::History(args) => history::run(settings::History::new(args)?),
    }
}

/// Print warnings to stderr, ids only; under GitHub Actions as workflow commands,
/// so they show on the run's summary page.
pub fn print_warnings(warnings: &[String]) {
    let actions = under_github_actions();
    for w in warnings {
        // whole in JSON; on stderr bounded (docs/contract.md §11)
        let w = crate::text::bounded(&shown(w));
        if actions {
            eprint_workflow_command(&format!("::warning title=ragdiff::{}", escape_data(&w)));
        } else {
            eprintln(&format!("warning: {w}"));
        }
    }
}

/// Refuse (exit 3), unless the runs hold input problems of their own (exit 2 wins):
/// they are read for their structure only, since against another corpus "query not
/// in the gold" would bury the real reason.
pub fn refuse(refused: Refused, metas: Vec<RunMeta>, diag: &mut Diagnostics) -> anyhow::Error {
    let stand_in = GoldSet::stand_in(GoldMeta::placeholder());
    load::read_runs(metas, &stand_in, &[], diag);
    if diag.has_problems() {
        eprintln(&format!("note: {refused}"));
        if let Err(invalid) = diag.check() {
            return invalid.into();
        }
    }
    refused.into()
}

/// Phase timings on stderr when `RAGDIFF_TIMINGS` is set (for benchmarks: README
/// "Performance"); silent otherwise. Names only, never data.
pub struct Phases {
    start: Option<std::time::Instant>,
}

impl Phases {
    pub fn start() -> Self {
        let on = std::env::var_os("RAGDIFF_TIMINGS").is_some();
        Self {
            start: on.then(std::time::Instant::now),
        }
    }

    /// Say how long since the start `phase` ended.
    pub fn mark(&self, phase: &str) {
        if let Some(t) = self.start {
            // Like every stderr line: a closed stderr changes nothing (contract §12.8).
            let at = t.elapsed().as_secs_f64();
            crate::text::eprintln(&format!("timing: {phase} done at {at:.3} s"));
        }
    }
}

/// Give the memory freed so far back to the system. glibc keeps freed memory for
/// reuse, per thread arena; ragdiff frees large transient structures on one thread
/// (the gold file's parse, the runs before the outputs are rendered) and allocates on
/// others (each run is read on its own thread), so without this the peak resident
/// size counts such memory twice. A no-op elsewhere.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only hands free pages back; it has no preconditions.
    unsafe {
        nix::libc::malloc_trim(0);
    }
}
