//! `spindle run FILE`: load, evaluate `main` on the machine, print its value.
//!
//! A program with type errors does not run. The value is printed per LANGUAGE.md section 9; runtime errors go to
//! standard error as diagnostics (`error: FILE:LINE:COLUMN: message`) with exit
//! status 1. `--stats` prints the machine's counters after the result.

use clap::Args;
use spindle::diagnostic;
use spindle::driver;
use spindle::machine::Machine;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

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
    let start = Instant::now();
    let loaded = driver::load(&args.file);
    if loaded.has_errors() {
        // Errors only: warnings are `spindle check`'s to show, so that a script's
        // standard error carries what went wrong and nothing else.
        eprint!("{}", loaded.render_errors());
        return ExitCode::from(1);
    }
    let Some(program) = &loaded.program else {
        return ExitCode::from(1);
    };
    let Some(main) = program.main else {
        eprintln!("error: {}: no `main` definition", args.file.display());
        return ExitCode::from(1);
    };
    // A bug in the machine must still end as an error, never as a Rust panic.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!("error: internal error in the evaluator: {msg}");
    }));
    let mut machine = Machine::new(program);
    if !args.sequential {
        machine.enable_parallel(args.jobs as usize);
    }
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        driver::evaluate_def(&mut machine, main, false)
    }));
    let Ok(result) = outcome else {
        return ExitCode::from(1);
    };
    let code = match result {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{text}");
            let _ = out.flush();
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint!(
                "{}",
                diagnostic::render(&loaded.sources, &[e.to_diagnostic()])
            );
            ExitCode::from(1)
        }
    };
    if args.stats {
        let mut stats = machine.stats();
        stats.wall_ms = start.elapsed().as_millis() as u64;
        eprint!("{}", stats.render());
    }
    code
}
