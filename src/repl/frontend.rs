//! The terminal side of the REPL, on `rustyline`: line editing, multi-line input,
//! completion, history, and Ctrl-C.
//!
//! - A [`Validator`] asks the parser ([`is_unfinished`]) whether the input so far is
//!   merely unfinished; if so, Enter starts a new line of the same input. Input read
//!   without a terminal is continued the same way, line by line.
//! - A [`Completer`] completes commands after `:`, file names after `:load`, and
//!   otherwise the names in scope and the keywords.
//! - History is kept in `$XDG_DATA_HOME/spindle/history` (or
//!   `~/.local/share/spindle/history`), appended after every input.
//! - Ctrl-C while an expression is evaluated sets the backend's interrupt flag (a
//!   signal handler installed once); the machine stops with the error `interrupted` and
//!   the prompt comes back. Ctrl-C at the prompt drops the line being edited; Ctrl-D on
//!   an empty line, or `:quit`, leaves.

use super::{Action, COMMANDS, ReplBackend, handle, is_unfinished};
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Editor, Helper};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The prompt.
pub const PROMPT: &str = "spindle> ";

/// The prompt of a continuation line (when input is read without a terminal; with one,
/// the input goes on in the same editor).
pub const CONTINUATION: &str = "... ";

/// The `rustyline` helper: validation, completion, no hints or highlighting.
pub struct ReplHelper {
    /// The names to complete (refreshed after every input).
    pub names: Vec<String>,
    files: FilenameCompleter,
}

impl ReplHelper {
    /// A helper completing `names`.
    pub fn new(names: Vec<String>) -> ReplHelper {
        ReplHelper {
            names,
            files: FilenameCompleter::new(),
        }
    }
}

/// What completes the text before the cursor, `before`, in a REPL line: where the
/// completed word starts, and the candidates. File names after `:load` are left to
/// the caller (`None`).
pub fn complete_word(names: &[String], before: &str) -> Option<(usize, Vec<String>)> {
    let trimmed = before.trim_start();
    if let Some(rest) = trimmed.strip_prefix(':') {
        let start = before.len() - trimmed.len();
        match rest.find(char::is_whitespace) {
            None => {
                let candidates = COMMANDS
                    .iter()
                    .filter(|(name, _, _)| name.starts_with(trimmed))
                    .map(|(name, _, _)| name.to_string())
                    .collect();
                return Some((start, candidates));
            }
            Some(i) if !rest[..i].is_empty() && "load".starts_with(&rest[..i]) => return None,
            Some(_) => {}
        }
    }
    let start = before
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '\''))
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let word = &before[start..];
    if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
        return Some((start, Vec::new()));
    }
    let candidates = names
        .iter()
        .filter(|n| n.starts_with(word))
        .cloned()
        .collect();
    Some((start, candidates))
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        match complete_word(&self.names, &line[..pos]) {
            Some((start, words)) => Ok((
                start,
                words
                    .into_iter()
                    .map(|w| Pair {
                        display: w.clone(),
                        replacement: w,
                    })
                    .collect(),
            )),
            None => self.files.complete(line, pos, ctx),
        }
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if is_unfinished(ctx.input()) {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Helper for ReplHelper {}

/// Where the history is kept: `$XDG_DATA_HOME/spindle/history`, or
/// `$HOME/.local/share/spindle/history`; `None` when neither variable is set.
pub fn history_path() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("share"))
        })?;
    Some(data.join("spindle").join("history"))
}

/// Prints a reply: results to standard output, errors to standard error.
fn show(reply: &super::Reply) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(reply.out.as_bytes());
    let _ = out.flush();
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(reply.err.as_bytes());
    let _ = err.flush();
}

/// Runs the REPL on the terminal until `:quit` or Ctrl-D, with `file` loaded first if
/// given (an error loading it is printed and the REPL starts without it). `interrupt`
/// is the flag that stops the backend's evaluation; Ctrl-C sets it.
pub fn run(
    backend: &mut dyn ReplBackend,
    interrupt: Arc<AtomicBool>,
    file: Option<&Path>,
) -> rustyline::Result<()> {
    let flag = interrupt.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    let mut editor: Editor<ReplHelper, FileHistory> = Editor::new()?;
    editor.set_helper(Some(ReplHelper::new(backend.names())));
    let history = history_path();
    if let Some(path) = &history {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.load_history(path);
    }
    println!(
        "Spindle {}: `:help` for help, Ctrl-D to quit",
        env!("CARGO_PKG_VERSION")
    );
    if let Some(file) = file {
        show(&backend.load(file));
    }
    loop {
        let mut input = match editor.readline(PROMPT) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e),
        };
        // Without a terminal there is no validator: continue unfinished input here.
        let mut eof = false;
        while is_unfinished(&input) {
            match editor.readline(CONTINUATION) {
                Ok(more) => {
                    input.push('\n');
                    input.push_str(&more);
                }
                Err(ReadlineError::Interrupted) => {
                    input.clear();
                    break;
                }
                Err(ReadlineError::Eof) => {
                    eof = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if input.trim().is_empty() {
            if eof {
                break;
            }
            continue;
        }
        let _ = editor.add_history_entry(input.as_str());
        if let Some(path) = &history {
            let _ = editor.append_history(path);
        }
        interrupt.store(false, Ordering::SeqCst);
        let action = handle(backend, &input);
        if interrupt.load(Ordering::SeqCst) {
            // The terminal echoed `^C` with no newline after it.
            println!();
        }
        match action {
            Action::Quit => break,
            Action::Reply(reply) => show(&reply),
        }
        if let Some(helper) = editor.helper_mut() {
            helper.names = backend.names();
        }
        if eof {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_of_commands_names_and_files() {
        let names: Vec<String> = ["map", "maximum", "Maybe", "length"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            complete_word(&names, "ma"),
            Some((0, vec!["map".to_string(), "maximum".to_string()]))
        );
        assert_eq!(
            complete_word(&names, "sum (le"),
            Some((5, vec!["length".to_string()]))
        );
        assert_eq!(
            complete_word(&names, ":st"),
            Some((0, vec![":stack".to_string(), ":stats".to_string()]))
        );
        assert_eq!(
            complete_word(&names, ":type Ma"),
            Some((6, vec!["Maybe".to_string()]))
        );
        assert_eq!(complete_word(&names, ":load src/"), None);
        assert_eq!(complete_word(&names, "12"), Some((0, Vec::new())));
    }
}
