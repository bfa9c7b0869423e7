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
            if app::is_broken_pipe(&err) {
                return exit::code(exit::SUCCESS);
            }
            ragdiff::text::eprintln(&format!("error: {err:#}"));
            exit::code(app::exit_code_of(&err))
        }
    }
}
