//! `spindle` and `spindle repl [FILE]`: the interactive prompt (the REPL itself is
//! [`spindle::repl`]).

use spindle::repl::session::Session;
use spindle::repl::{ReplBackend, frontend};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Starts the REPL, with `file` loaded first if given (an error loading it is printed
/// and the REPL starts without it).
pub fn main(file: Option<&Path>) -> ExitCode {
    let mut session = Session::new();
    if let Some(file) = file {
        let reply = session.load(file);
        print!("{}", reply.out);
        eprint!("{}", reply.err);
        let _ = std::io::stdout().flush();
    }
    let interrupt = session.interrupt_flag();
    match frontend::run(&mut session, interrupt) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: the terminal failed: {e}");
            ExitCode::from(1)
        }
    }
}
