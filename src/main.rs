use std::process::ExitCode;

fn main() -> ExitCode {
    ragdiff::exit::code(ragdiff::app::main(std::env::args_os().collect()))
}
