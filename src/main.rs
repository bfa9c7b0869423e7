use std::process::ExitCode;

use clap::Parser;
use ragdiff::cli::Cli;
use ragdiff::{app, exit};

fn main() -> ExitCode {
    // First, before any thread exists: the threads inherit the blocked signals.
    ragdiff::interrupt::install();
    let cli = Cli::parse();
    match app::run(cli) {
        Ok(code) => exit::code(code),
        Err(err) => {
            if exit::is_broken_pipe(&err) {
                return exit::code(exit::SUCCESS);
            }
            ragdiff::output::stderr_line(&format!("error: {err:#}"));
            exit::code(exit::of_error(&err))
        }
    }
}
