use std::process::ExitCode;

use clap::Parser;
use ragdiff::cli::Cli;
use ragdiff::{app, exit};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap's messages quote arguments as given: written through the guard that
        // neutralises workflow commands, like every other line ragdiff writes.
        Err(e) => {
            use std::io::IsTerminal;
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
                ragdiff::text::eprint(&text);
            } else {
                let _ = ragdiff::output::stdout(&text);
            }
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
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
