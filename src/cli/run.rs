//! `spindle run FILE [ARGS...]`: load, evaluate `main` on the machine, print its value.
//!
//! FILE is Spindle source or an encoded program, told apart by content
//! ([`driver::file_kind`]). A program with type errors does not run. The words after
//! FILE that are not options of `run`, and everything after `--`, become the prelude's
//! `args` ([`driver::set_args`]). The value is printed per LANGUAGE.md section 9, as
//! text or (`--format json`) as one JSON document; runtime errors go to standard error
//! as diagnostics (`error: FILE:LINE:COLUMN: message`) with exit status 1; text output
//! is streamed, so what was printed before an error stays printed. Without
//! `--sequential` a scheduler runs independent external calls at once. However the run
//! ends (success, error, a signal), no process it started is left running. `--stats`
//! prints the machine's counters after the result.

use super::batch;
use clap::Args;
use spindle::diagnostic;
use spindle::driver;
use spindle::external::batch::price::Prices;
use spindle::external::batch::{EXIT_BATCH_PENDING, FrontierCall};
use spindle::external::calls::Calls;
use spindle::external::exec::Limits;
use spindle::external::lifetime;
use spindle::external::store::StoreError;
use spindle::machine::Machine;
use spindle::machine::error::ErrorKind;
use spindle::machine::print::Output;
use spindle::sched::CallPolicy;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Options of `spindle run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program: Spindle source, or an encoded program (`spindle encode`).
    pub file: PathBuf,
    /// The program's arguments (the prelude's `args`): every word after FILE that is
    /// not an option of `run`, and everything after `--`.
    #[arg(value_name = "ARGS")]
    pub args: Vec<String>,
    /// How to print the value of `main`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
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
    /// The most steps of type-level evaluation one definition's type, or its body,
    /// may take while it is checked (0: no limit).
    #[arg(long = "type-steps", value_name = "N", default_value_t = spindle::check::eval::TYPE_LEVEL_STEP_LIMIT)]
    pub type_steps: u64,
    /// When a call fails for good, stop the calls still running too.
    #[arg(long)]
    pub fail_fast: bool,
    /// The most memory the run may hold, external results included (e.g. 512M, 8G;
    /// default: three quarters of the smallest of the machine's memory, `ulimit -v`
    /// and the cgroup's memory limit); past it the run stops with `out of memory`.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<usize>,
    /// The result store, progress, the trace, retries, timeouts, the executor.
    #[command(flatten)]
    pub calls: spindle::external::options::CallOptions,
    /// Batch mode (`--llm-batch`, `--wait`, `--batch-fallback`) and prices.
    #[command(flatten)]
    pub batch: batch::BatchOptions,
    /// Words after FILE that look like options of `run` but are not (set by
    /// [`normalize`]): an error if they are near one ([`check_typos`]), else program
    /// arguments.
    #[arg(
        long = "possible-typo",
        hide = true,
        value_name = "WORD",
        allow_hyphen_values = true
    )]
    pub possible_typo: Vec<String>,
}

/// How `spindle run` prints the value of `main` (LANGUAGE.md section 9).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Spindle's own notation.
    Text,
    /// One JSON document.
    Json,
}

/// Rewrites the command line of `spindle run` so that clap reads it as LANGUAGE.md
/// section 10 says: after FILE, the options of `run` (with their values) stay options,
/// and every other word, and everything after `--`, is one of the program's arguments
/// (`spindle run wf.sp in.txt --stats -v` runs with `--stats` and the arguments
/// `in.txt` and `-v`). The program's arguments are moved after a `--` of their own.
/// A command line that is not `run`, or has no FILE, is returned as it was.
pub fn normalize(argv: Vec<OsString>) -> Vec<OsString> {
    // `run` is the first word after the program name that is not an option.
    let Some(run_at) = argv
        .iter()
        .skip(1)
        .position(|w| !w.to_string_lossy().starts_with('-'))
        .map(|i| i + 1)
        .filter(|&i| argv[i] == "run")
    else {
        return argv;
    };
    let options = run_options();
    // How many words an option takes (itself included), if `word` is one.
    let option_len = |word: &str| -> Option<usize> {
        if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            let (_, _, takes) = options
                .iter()
                .find(|(l, _, _)| l.as_deref() == Some(name))?;
            return Some(if *takes && !inline { 2 } else { 1 });
        }
        let mut chars = word.strip_prefix('-')?.chars();
        let c = chars.next()?;
        let (_, _, takes) = options.iter().find(|(_, s, _)| *s == Some(c))?;
        Some(if *takes && chars.as_str().is_empty() {
            2
        } else {
            1
        })
    };
    let mut out: Vec<OsString> = argv[..=run_at].to_vec();
    let mut program_args: Vec<OsString> = Vec::new();
    let mut file_seen = false;
    let mut i = run_at + 1;
    while i < argv.len() {
        let word = argv[i].to_string_lossy().into_owned();
        if word == "--" {
            program_args.extend(argv[i + 1..].iter().cloned());
            break;
        }
        if let Some(n) = option_len(&word) {
            let end = (i + n).min(argv.len());
            out.extend(argv[i..end].iter().cloned());
            i = end;
            continue;
        }
        if file_seen {
            if word.starts_with("--") && word.len() > 2 {
                // Not an option of `run`: a program argument, unless it is a typo of
                // one (decided once the program is loaded: `check_typos`).
                let mut flag = OsString::from("--possible-typo=");
                flag.push(&argv[i]);
                out.push(flag);
            }
            program_args.push(argv[i].clone());
        } else {
            // FILE, or an unknown option before it (clap reports that).
            file_seen = word == "-" || !word.starts_with('-');
            out.push(argv[i].clone());
        }
        i += 1;
    }
    if !program_args.is_empty() {
        out.push(OsString::from("--"));
        out.extend(program_args);
    }
    out
}

/// The options of `run`: (long name, short name, whether it takes a value).
fn run_options() -> Vec<(Option<String>, Option<char>, bool)> {
    let command = RunArgs::augment_args(clap::Command::new("run"));
    command
        .get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set())
        .map(|a| {
            (
                a.get_long().map(str::to_string),
                a.get_short(),
                a.get_action().takes_values(),
            )
        })
        .chain([(Some("help".to_string()), Some('h'), false)])
        .collect()
}

/// A word after FILE that starts with `--` and is not an option of `run` is a typo,
/// not a program argument (issue 24), when the program never reads `args` and the
/// word is within edit distance 2 of an option, or when it does read `args` and the
/// word is within distance 1 of an option of 6 or more letters. The message for the
/// first such word, if any.
pub fn check_typos(words: &[String], program_reads_args: bool) -> Option<String> {
    let options: Vec<String> = run_options().into_iter().filter_map(|o| o.0).collect();
    for w in words {
        let name = w.trim_start_matches("--");
        let name = name.split_once('=').map_or(name, |(n, _)| n);
        let best = options
            .iter()
            .map(|o| (strsim::levenshtein(name, o), o))
            .min_by_key(|(d, _)| *d);
        let Some((d, option)) = best else {
            continue;
        };
        let typo = if program_reads_args {
            d <= 1 && option.len() >= 6
        } else {
            d <= 2
        };
        if typo {
            return Some(format!(
                "`{w}` is not an option of `spindle run`: did you mean `--{option}`? put program \
                 arguments after `--`"
            ));
        }
    }
    None
}

/// The executors and store opened while the program is checked. Dropping it waits for
/// the opening to end (and closes the store again), so that no path out of `main`
/// leaves the store half opened.
struct EarlyCalls(Option<std::thread::JoinHandle<Result<Calls, StoreError>>>);

impl Drop for EarlyCalls {
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            let _ = t.join();
        }
    }
}

/// Runs `spindle run`.
pub fn main(args: RunArgs) -> ExitCode {
    let start = Instant::now();
    if let Err(e) = lifetime::install_signal_handlers() {
        eprintln!("error: cannot install signal handlers: {e}");
        return ExitCode::from(1);
    }
    let limits = Limits {
        jobs: args.jobs as usize,
        io_jobs: args.io_jobs as usize,
        ..Limits::default()
    };
    let mut config = args.calls.config(&args.file, limits);
    spindle::external::net::settings::configure(args.calls.llm_settings());
    spindle::external::stream::set_buffer_items(args.calls.stream_buffer as usize);
    // An existing store is opened while the program is checked (opening reads the
    // whole log: about 1 ms per 10,000 records off the time to the first call); a new
    // one is made only once the program checks. Not with `--trace`: a program that does
    // not check must leave no trace file.
    let early = config
        .store
        .as_ref()
        .filter(|d| config.trace.is_none() && d.join(spindle::external::store::LOG_FILE).is_file())
        .map(|_| {
            let c = config.clone();
            std::thread::spawn(move || Calls::new(c))
        });
    let mut early = EarlyCalls(early);
    spindle::check::eval::set_type_step_limit(args.type_steps);
    let mut loaded = driver::load_program_file(&args.file, driver::PreludeCheck::Reachable).loaded;
    if loaded.has_errors() {
        // Errors only: warnings are `spindle check`'s to show (but for a missing case,
        // below), so that a script's standard error carries what went wrong.
        eprint!("{}", loaded.render_errors());
        return ExitCode::from(1);
    }
    // A `match` that misses a case is warned about once, before anything runs (the
    // other warnings are `spindle check`'s to show).
    eprint!("{}", loaded.render_missing_cases());
    let Some(program) = loaded.program.as_mut() else {
        return ExitCode::from(1);
    };
    if let Some(msg) = check_typos(
        &args.possible_typo,
        driver::uses_args(program, &loaded.sources),
    ) {
        eprintln!("error: {msg}");
        return ExitCode::from(2);
    }
    driver::set_args(program, &loaded.sources, &args.args);
    let program = &*program;
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
        // Where in Spindle's source it happened, for the bug report.
        let at = info
            .location()
            .map(|l| format!(" ({}:{})", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("error: internal error in the evaluator{at}: {msg}");
    }));
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| args.file.display().to_string());
    let identity = batch::Program {
        name,
        hash: spindle::proto::hash::program(program).to_hex(),
        args: &args.args,
    };
    let mut session = match config.store.as_deref() {
        Some(dir) if !args.calls.plan => {
            match batch::Session::start(&args.batch, dir, &identity, args.calls.resume) {
                Ok(s) => s,
                Err((msg, code)) => {
                    eprintln!("error: {msg}");
                    return ExitCode::from(code);
                }
            }
        }
        _ => None,
    };
    // A round costs the batch's latency (minutes to hours): model calls met by
    // speculation join the frontier, so that a round holds every call that does not
    // wait on an answer (the summary says how many were speculative), unless
    // `--batch-certain-only`.
    if session.is_some() && !args.batch.batch_certain_only {
        let mut s = spindle::external::net::settings::current();
        s.speculate_paid = true;
        spindle::external::net::settings::configure(s);
    }
    let prices = Prices::of(&args.batch.llm_price);
    let mut opened = Some(match early.0.take().map(|t| t.join()) {
        Some(Ok(opened)) => opened,
        _ => Calls::new(config.clone()),
    });
    let mut polls = 0u32;
    loop {
        let calls = match opened.take().unwrap_or_else(|| Calls::new(config.clone())) {
            Ok(c) => c,
            // Recording is a convenience unless this run reuses records: a store another
            // run holds (or that cannot be opened) leaves this one without.
            Err(e) if !args.calls.resume && !args.calls.plan && session.is_none() => {
                eprintln!("warning: {e}; this run records nothing");
                match Calls::new(spindle::external::calls::Config {
                    store: None,
                    ..config.clone()
                }) {
                    Ok(c) => c,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(1);
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        let mut calls = calls;
        if let Some(s) = session.as_mut() {
            // A batch that is out is waited for (`--wait`) or left to a later run.
            loop {
                match s.collect(calls.store()) {
                    Ok(batch::Ready::Evaluate) => break,
                    Ok(batch::Ready::Waiting(msg)) if args.batch.wait => {
                        let d = batch::poll_delay(polls);
                        polls += 1;
                        eprintln!("batch: {msg}; looking again in {} s", d.as_secs_f64());
                        std::thread::sleep(d);
                    }
                    Ok(batch::Ready::Waiting(msg)) => {
                        eprintln!(
                            "batch: {msg}\nbatch: `spindle run --resume {}` goes on once it is done",
                            args.file.display()
                        );
                        return ExitCode::from(EXIT_BATCH_PENDING);
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        let _ = calls.finish();
                        return ExitCode::from(1);
                    }
                }
            }
            calls.set_batch(s.config());
        }
        match round(
            &args,
            program,
            main,
            &loaded.sources,
            calls,
            limits,
            start,
            session.as_ref(),
            &prices,
        ) {
            Round::Over(code) => {
                if let Some(s) = &session {
                    s.finish();
                }
                // The checked program goes back to the OS with the process.
                std::mem::forget(loaded);
                return code;
            }
            Round::Frontier(frontier, live_tokens) => {
                let Some(s) = session.as_mut() else {
                    eprintln!(
                        "error: internal error: model calls were batched outside a batch run"
                    );
                    return ExitCode::from(1);
                };
                s.add_live_tokens(&live_tokens);
                match s.submit(&frontier, &args.file.display().to_string()) {
                    Ok(said) => eprint!("{said}"),
                    Err(e) => {
                        eprintln!("error: the batch cannot be submitted: {e}");
                        return ExitCode::from(1);
                    }
                }
                if !args.batch.wait {
                    return ExitCode::from(EXIT_BATCH_PENDING);
                }
                // The next rounds reuse what this run recorded, the batch's replies
                // included, as `--resume` would.
                config.resume = true;
                let d = batch::poll_delay(0);
                polls = 1;
                std::thread::sleep(d);
            }
        }
    }
}

/// How a round of evaluation ended.
enum Round {
    /// The run is over with this status.
    Over(ExitCode),
    /// A batch run met its frontier: these model calls are to be submitted (and the
    /// round's live model calls used these tokens, by model).
    Frontier(
        Vec<FrontierCall>,
        std::collections::BTreeMap<String, (u64, u64)>,
    ),
}

/// Evaluates `main` once with the call layer `calls`: prints its value (held back in a
/// batch run until the round that finishes), its errors, the plan, the statistics.
#[allow(clippy::too_many_arguments)]
fn round(
    args: &RunArgs,
    program: &spindle::core::program::Program,
    main: spindle::core::term::DefId,
    sources: &spindle::syntax::span::SourceMap,
    calls: Calls,
    limits: Limits,
    start: Instant,
    session: Option<&batch::Session>,
    prices: &Prices,
) -> Round {
    let mut policy = CallPolicy::new(calls);
    policy.set_fail_fast(args.fail_fast);
    let files = sources.files().count();
    policy.set_place_shown(Box::new(move |span| {
        if (span.file.0 as usize) < files {
            sources.location(span).to_string()
        } else {
            "<unknown>".to_string()
        }
    }));
    let policy = policy.shared();
    let mut machine = Machine::new(program);
    machine.options.lazy_calls = args.calls.plan;
    machine.run.max_memory = args
        .max_memory
        .unwrap_or_else(spindle::external::budget::default_limit);
    // External results count against the same limit as they are read.
    spindle::external::budget::set_limit(machine.run.max_memory);
    machine.options.user_file = Some(Box::new(move |f| driver::is_user_file(sources, f)));
    if args.sequential {
        spindle::sched::Sequential::install(&mut machine, policy.clone());
    } else {
        spindle::sched::Scheduler::install_with(&mut machine, limits, policy.clone());
    }
    // Output printed only once the round is over (see the arms below).
    let mut held = String::new();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match args.format {
        // Held back: `--plan` prints the value only if it needs no call to run, so
        // that standard output never shows part of a value; a batch run prints in the
        // round that finishes (what a live run prints, up to an error if one ends it).
        Format::Text if args.calls.plan || session.is_some() => {
            let (r, mut out) = machine.print_def(main, false, Output::collect());
            if r.is_ok() {
                out.push_line_end();
            }
            if r.is_ok() || !args.calls.plan {
                held = out.take();
            }
            r
        }
        Format::Text => {
            let out = Output::stream(Box::new(std::io::stdout()));
            let (r, mut out) = machine.print_def(main, false, out);
            if r.is_ok() {
                out.push_line_end();
            }
            r
        }
        Format::Json => driver::evaluate_def_tree(&mut machine, program, main).map(|tree| {
            held = format!("{}\n", spindle::output::render_json(&tree));
        }),
    }));
    // A failed call ended the run: the calls still running finish and are recorded
    // (unless `--fail-fast` stopped them already).
    let planned_error = matches!(&outcome, Ok(Err(e)) if e.kind == ErrorKind::Planned);
    if matches!(outcome, Ok(Err(_))) && !planned_error {
        policy.borrow_mut().finish_running_effects();
    }
    machine.shutdown();
    let mut pol = policy.borrow_mut();
    let calls = pol.layer();
    if let Err(e) = calls.finish() {
        eprintln!("warning: {e}");
    }
    let planned = !calls.plan().is_empty();
    let call_stats = calls.stats();
    let frontier = calls.frontier().to_vec();
    let live_tokens = calls.tokens_by_model().clone();
    if args.calls.plan {
        eprint!("{}", calls.render_plan());
        if args.batch.llm_batch.is_some() {
            eprint!(
                "{}",
                batch::plan_rounds(calls.plan(), calls.plan_blocked_count())
            );
        }
    }
    drop(pol);
    lifetime::shutdown_all();
    if planned_error && !frontier.is_empty() && session.is_some() {
        // The round met its frontier: nothing it printed is shown.
        return Round::Frontier(frontier, live_tokens);
    }
    {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(held.as_bytes());
        let _ = stdout.flush();
    }
    let code = match outcome {
        Err(_) => ExitCode::from(1),
        Ok(Ok(())) => ExitCode::SUCCESS,
        // `--plan` stops where calls would have to run: that is its answer, and its
        // exit status says something would run.
        Ok(Err(e)) if planned && e.kind == ErrorKind::Planned => ExitCode::from(PLAN_WOULD_RUN),
        Ok(Err(e)) => {
            let e = machine.final_error(e);
            eprint!("{}", diagnostic::render(sources, &[e.to_diagnostic()]));
            ExitCode::from(1)
        }
    };
    if let Some(s) = session.filter(|s| s.round() > 0) {
        eprint!("{}", s.summary(prices, &live_tokens));
    } else if !prices.is_empty()
        && let Some(c) = prices.cost(&live_tokens, 1.0)
        && !live_tokens.is_empty()
    {
        eprintln!("cost: {}", spindle::external::batch::price::dollars(c));
    }
    if args.stats {
        let mut stats = machine.sight().stats();
        stats.wall_ms = start.elapsed().as_millis() as u64;
        stats.tokens_in = call_stats.tokens_in;
        stats.tokens_out = call_stats.tokens_out;
        stats.tokens_reused = call_stats.tokens_reused;
        eprint!("{}", stats.render());
        if !prices.is_empty() {
            let batch_cost = session.map_or(Some(0.0), |s| prices.cost(s.batch_tokens(), 0.5));
            if let (Some(b), Some(l)) = (batch_cost, prices.cost(&live_tokens, 1.0)) {
                eprintln!("cost_usd {:.6}", b + l);
            }
        }
        if let Some(s) = session {
            let (i, o) = s.batch_tokens_total();
            eprintln!("batch_rounds {}", s.round());
            eprintln!("batch_tokens_in {i}");
            eprintln!("batch_tokens_out {o}");
        }
    }
    // The process ends here: the machine's heap and the checked program go back to
    // the OS with it, without being freed object by object. (The host and the call
    // policy are dropped, which closes the store.)
    drop(machine.take_host());
    drop(policy);
    std::mem::forget(machine);
    Round::Over(code)
}

/// The exit status of `--plan` when some call would run (issue 24; 0: nothing would).
pub const PLAN_WOULD_RUN: u8 = 3;

/// A size with an optional unit: `1024`, `64K`, `512M`, `8G` (powers of 1024).
fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => t.split_at(i),
        None => (t, ""),
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size (e.g. 512M, 8G)"))?;
    let mult: usize = match unit.to_ascii_uppercase().trim_end_matches('B') {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(format!("`{s}`: the unit must be K, M, G or T")),
    };
    n.checked_mul(mult)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("`{s}` is not a usable size"))
}
