//! `spindle` and `spindle repl [FILE]`: the interactive prompt.

use std::path::Path;
use std::process::ExitCode;

/// Starts the REPL.
pub fn main(file: Option<&Path>) -> ExitCode {
    let _ = file;
    super::not_implemented("the REPL")
}
