//! The `spindle` command: argument parsing with clap and dispatch to one module per
//! subcommand under `cli/`. Nothing else lives here.
//!
//! One word is dispatched before clap: `spindle __trace ...`, the file-access tracer
//! that `spindle run` starts around each process call
//! ([`spindle::external::fstrace`]). It is not a user command, and its arguments end
//! with the tool's own, which clap must not read.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv
        .get(1)
        .is_some_and(|w| w == spindle::external::fstrace::SUBCOMMAND)
    {
        let code = spindle::external::fstrace::tracer_main(&argv[2..]);
        return ExitCode::from(code.clamp(0, 255) as u8);
    }
    let args = cli::Cli::parse_from(cli::normalize_run(argv));
    cli::dispatch(args)
}
