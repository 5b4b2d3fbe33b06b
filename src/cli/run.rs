//! `spindle run FILE`: load, evaluate `main` on the machine, print its value as it is
//! computed (LANGUAGE.md section 9).
//!
//! A program with type errors does not run. Runtime errors go to standard error as
//! diagnostics (`error: FILE:LINE:COLUMN: message`) with exit status 1; what was printed
//! before stays printed. Without `--sequential` a scheduler runs independent external
//! calls at once. Whatever way the run ends (success, error, a signal), no process it
//! started is left running. `--stats` prints the machine's counters after the result.

use clap::Args;
use spindle::diagnostic;
use spindle::driver;
use spindle::external::exec::Limits;
use spindle::external::lifetime;
use spindle::vm::Machine;
use spindle::vm::print::Output;
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
    /// How many processes may run at once.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: u32,
    /// How many waiting calls (services, `delay`) may be in flight at once.
    #[arg(long = "io-jobs", default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub io_jobs: u32,
    /// Print evaluation statistics to standard error after the result.
    #[arg(long)]
    pub stats: bool,
}

/// Runs `spindle run`.
pub fn main(args: RunArgs) -> ExitCode {
    let start = Instant::now();
    if let Err(e) = lifetime::install_signal_handlers() {
        eprintln!("error: cannot install signal handlers: {e}");
        return ExitCode::from(1);
    }
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
        spindle::sched::Scheduler::install(
            &mut machine,
            Limits {
                jobs: args.jobs as usize,
                io_jobs: args.io_jobs as usize,
                ..Limits::default()
            },
        );
    }
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let out = Output::stream(Box::new(std::io::stdout()));
        let (r, mut out) = machine.print_def(main, false, out);
        if r.is_ok() {
            out.push_line_end();
        }
        r
    }));
    machine.shutdown();
    lifetime::shutdown_all();
    let code = match outcome {
        Err(_) => ExitCode::from(1),
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
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
