//! The `spindle` command: argument parsing with clap and dispatch to one module per
//! subcommand under `cli/`. Nothing else lives here.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse_from(cli::normalize_run(std::env::args_os().collect()));
    cli::dispatch(args)
}
