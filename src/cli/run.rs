//! `spindle run FILE`: check, evaluate `main`, print its value.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `spindle run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program.
    pub file: PathBuf,
    /// One external at a time, only when its value is needed.
    #[arg(long)]
    pub sequential: bool,
    /// How many externals may run at once.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: u32,
    /// Print evaluation statistics to standard error after the result.
    #[arg(long)]
    pub stats: bool,
}

/// Runs `spindle run`.
pub fn main(args: RunArgs) -> ExitCode {
    let _ = (&args.file, args.sequential, args.jobs, args.stats);
    super::not_implemented("`spindle run` (the evaluator)")
}
