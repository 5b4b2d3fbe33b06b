//! `spindle` and `spindle repl [FILE]`: the interactive prompt (the REPL itself is
//! [`spindle::repl`]).

use spindle::repl::frontend;
use spindle::repl::session::Session;
use std::path::Path;
use std::process::ExitCode;

/// Starts the REPL, with `file` loaded first if given.
pub fn main(file: Option<&Path>) -> ExitCode {
    let mut session = Session::new();
    let interrupt = session.interrupt_flag();
    match frontend::run(&mut session, interrupt, file) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: the terminal failed: {e}");
            ExitCode::from(1)
        }
    }
}
