//! `harness`: see `harness --help` and harness/README.md.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = harness::cli::Cli::parse();
    harness::init_tracing(cli.verbose);
    match harness::cli::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            error.exit()
        }
    }
}
