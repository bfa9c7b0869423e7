use std::process::ExitCode;

use ragdiff::{app, exit};

fn main() -> ExitCode {
    // First, before any thread exists: the threads inherit the blocked signals.
    ragdiff::interrupt::install();
    let cli = match app::parse_args() {
        Ok(cli) => cli,
        Err(code) => return exit::code(code),
    };
    match app::run(cli) {
        Ok(code) => exit::code(code),
        Err(err) => {
            if exit::is_broken_pipe(&err) {
                return exit::code(exit::SUCCESS);
            }
            ragdiff::text::eprintln(&format!("error: {err:#}"));
            exit::code(exit::of_error(&err))
        }
    }
}
