//! Performing an external call on the host: a process, a file, a wait.
//!
//! A [`Call`] holds only plain data (its arguments already evaluated), so it can be
//! performed on the interpreter's thread (`--sequential`) or on a worker thread
//! ([`super::pool`]).

use crate::machine::error::RuntimeError;
use crate::syntax::span::Span;

/// One external call with its evaluated arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Call {
    /// `run prog args`: a program with arguments, no shell.
    Run(String, Vec<String>),
    /// `shell cmd`: a command line for `sh -c`.
    Shell(String),
    /// `readFile path`.
    ReadFile(String),
    /// `writeFile path contents`.
    WriteFile(String, String),
    /// `delay ms`: waits (its value argument is the machine's to evaluate after).
    Delay(u64),
}

/// The last `n` characters of a text (the end of a process's standard error).
fn tail(s: &str, n: usize) -> &str {
    let count = s.chars().count();
    if count <= n {
        s
    } else {
        let skip = s.char_indices().nth(count - n).map(|(i, _)| i).unwrap_or(0);
        &s[skip..]
    }
}

fn process_output(
    what: &str,
    out: std::io::Result<std::process::Output>,
    span: Span,
) -> Result<Option<String>, RuntimeError> {
    match out {
        Err(e) => Err(RuntimeError::at(format!("{what}: cannot start: {e}"), span)),
        Ok(o) if !o.status.success() => {
            let err = String::from_utf8_lossy(&o.stderr);
            Err(RuntimeError::at(
                format!(
                    "{what}: exited with {}: {}",
                    o.status,
                    tail(err.trim_end(), 400)
                ),
                span,
            ))
        }
        Ok(o) => Ok(Some(String::from_utf8_lossy(&o.stdout).into_owned())),
    }
}

/// Performs a call: the text it returns (`None` for `delay`, whose value is its second
/// argument), or the runtime error at `span` (where the external is declared).
pub fn perform(call: &Call, span: Span) -> Result<Option<String>, RuntimeError> {
    match call {
        Call::Run(prog, args) => process_output(
            &format!("run {prog}"),
            std::process::Command::new(prog).args(args).output(),
            span,
        ),
        Call::Shell(cmd) => process_output(
            "shell",
            std::process::Command::new("sh").arg("-c").arg(cmd).output(),
            span,
        ),
        Call::ReadFile(path) => match std::fs::read_to_string(path) {
            Ok(s) => Ok(Some(s)),
            Err(e) => Err(RuntimeError::at(format!("readFile {path}: {e}"), span)),
        },
        Call::WriteFile(path, contents) => match std::fs::write(path, contents) {
            Ok(()) => Ok(Some(path.clone())),
            Err(e) => Err(RuntimeError::at(format!("writeFile {path}: {e}"), span)),
        },
        Call::Delay(ms) => {
            std::thread::sleep(std::time::Duration::from_millis(*ms));
            Ok(None)
        }
    }
}
