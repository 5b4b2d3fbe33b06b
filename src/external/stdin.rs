//! The program's standard input, when a frontend other than a terminal gives it.
//!
//! A program reads its standard input through the file externals: `readFile
//! "/dev/stdin"` (the whole input) or `readLines "/dev/stdin"` (its lines); the
//! processes it starts never do (their standard input is what the call gives, else
//! empty). Under `spindle run` and the terminal REPL that is the process's own
//! descriptor 0. A Jupyter kernel has no one typing at its descriptor 0: it installs a
//! [`Source`] that asks the notebook for a line (`input_request`) and answers with
//! what the user typed, or refuses when the notebook does not allow input. Standard
//! input belongs to the process, so the source is one for the process.
//!
//! Reading standard input uses it up, so such a read is started only when its value
//! is certainly needed, never speculatively
//! ([`Request::reads_stdin`](super::request::Request::reads_stdin)): a notebook must
//! not prompt for a value the program would not use.

use std::sync::{Arc, Mutex};

/// Answers a read of standard input with one line (without its line break), or says
/// why there is none.
pub type Source = Arc<dyn Fn() -> Result<String, String> + Send + Sync>;

/// The process's source, if a frontend installed one.
static SOURCE: Mutex<Option<Source>> = Mutex::new(None);

/// Installs `source` for the whole process (`None`: the descriptor is read again).
pub fn set_source(source: Option<Source>) {
    *SOURCE.lock().unwrap_or_else(|e| e.into_inner()) = source;
}

/// Whether `path` names the process's standard input: `/dev/stdin`, `/dev/fd/0` or
/// `/proc/self/fd/0`.
pub fn names_stdin(path: &str) -> bool {
    matches!(path, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

/// One line from the installed source, when there is one and `path` names standard
/// input; `None` otherwise (the file is read as any other).
pub fn read_line(path: &str) -> Option<Result<String, String>> {
    if !names_stdin(path) {
        return None;
    }
    // The lock is not held while the source waits for its answer.
    let source = SOURCE.lock().unwrap_or_else(|e| e.into_inner()).clone()?;
    Some(source())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_of_standard_input() {
        for p in ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"] {
            assert!(names_stdin(p), "{p}");
        }
        for p in ["/dev/stdin2", "stdin", "/dev/fd/1", "-", "/dev/null"] {
            assert!(!names_stdin(p), "{p}");
        }
        // Without a source, nothing is answered for any path but standard input's.
        assert!(read_line("data.txt").is_none());
    }
}
