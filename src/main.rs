use std::process::ExitCode;

use clap::Parser;
use ragdiff::cli::Cli;
use ragdiff::{app, exit};

fn main() -> ExitCode {
    let cli = Cli::parse();
    ragdiff::interrupt::install();
    match app::run(cli) {
        Ok(code) => exit::code(code),
        Err(err) => {
            if exit::is_broken_pipe(&err) {
                return exit::code(exit::SUCCESS);
            }
            eprintln!("error: {err:#}");
            exit::code(exit::of_error(&err))
        }
    }
}
