//! The terminal side of the REPL, on `rustyline`: line editing, multi-line input,
//! completion, history, and Ctrl-C; and the same REPL on input from a pipe or a file.
//!
//! Input is taken as typed, from a terminal or not (LANGUAGE.md section 10): an input
//! goes on while it is unfinished or the next line is indented, as a declaration goes
//! on in a file.
//!
//! - A [`Validator`] asks the parser ([`is_unfinished`]) whether the input so far is
//!   merely unfinished; if so, Enter starts a new line of the same input. On a
//!   terminal the next line is not known when Enter is pressed, so an indented input
//!   that follows a declaration continues that declaration ([`ReplBackend::extend`]):
//!   the arms of a `match` typed (or pasted) one line at a time all count.
//! - Without a terminal ([`run_piped`]), lines are read as bytes, so a line that is
//!   not valid UTF-8 is an error line and the session goes on (so it is on a
//!   terminal); a complete input waits briefly ([`LOOKAHEAD`]) for an indented line
//!   that continues it.
//! - A long line pasted into a terminal comes between bracketed-paste marks and is
//!   taken whole (80 KB in a fraction of a second). Typed key by key instead, the line
//!   editor redraws the whole line whenever the cursor wraps at the terminal's right
//!   edge: its own time stays small (about 0.3 s of CPU for 40 KB, 0.9 s for 80 KB),
//!   but it writes about n^2/(2 x columns) bytes (11 MB for 40 KB), which the terminal
//!   must take in.
//! - A [`Completer`] completes commands after `:`, file names after `:load`, and
//!   otherwise the names in scope and the keywords.
//! - History is kept in `$XDG_DATA_HOME/spindle/history` (or
//!   `~/.local/share/spindle/history`), appended after every input.
//! - Ctrl-C while an expression is evaluated sets the backend's interrupt flag (a
//!   signal handler installed once); the machine stops with the error `interrupted` and
//!   the prompt comes back, and every call the evaluation started stops (processes
//!   get SIGTERM, then SIGKILL two seconds later). Lines typed while an expression is
//!   evaluated are kept for the prompts that follow. Ctrl-C at the prompt drops the
//!   line being edited; Ctrl-D on an empty continuation line drops the unfinished
//!   input ([`CancelContinuation`]); Ctrl-D on an empty line, or `:quit`, leaves.

use super::{Action, COMMANDS, ReplBackend, Reply, continues, handle, is_indented, is_unfinished};
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{
    Cmd, ConditionalEventHandler, Context, Editor, Event, EventContext, EventHandler, Helper,
    KeyEvent, RepeatCount,
};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The prompt.
pub const PROMPT: &str = "spindle> ";

/// The `rustyline` helper: validation, completion, no hints or highlighting.
pub struct ReplHelper {
    /// The names to complete (refreshed after every input).
    pub names: Vec<String>,
    /// The last input if it was declarations: an indented line continues it, so it
    /// is unfinished or not as the two together are.
    pub last_declaration: Option<String>,
    files: FilenameCompleter,
}

impl ReplHelper {
    /// A helper completing `names`.
    pub fn new(names: Vec<String>) -> ReplHelper {
        ReplHelper {
            names,
            last_declaration: None,
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
        let input = ctx.input();
        let unfinished = match &self.last_declaration {
            Some(decl) if is_indented(input.lines().next().unwrap_or("")) => {
                is_unfinished(&format!("{decl}\n{input}"))
            }
            _ => is_unfinished(input),
        };
        Ok(if unfinished {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Helper for ReplHelper {}

/// Ctrl-D on an empty line of an unfinished input (a continuation line): drops the
/// whole input, as Ctrl-C does, rather than doing nothing (the line editor's default
/// with text in the buffer). Elsewhere Ctrl-D keeps its usual meaning.
pub struct CancelContinuation;

impl ConditionalEventHandler for CancelContinuation {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        on_empty_continuation_line(ctx.line(), ctx.pos()).then_some(Cmd::Interrupt)
    }
}

/// Whether the cursor at byte `pos` of the input `text` is on an empty line that is
/// not the input's first.
pub fn on_empty_continuation_line(text: &str, pos: usize) -> bool {
    let pos = pos.min(text.len());
    let Some(start) = text[..pos].rfind('\n') else {
        return false;
    };
    let end = text[pos..].find('\n').map_or(text.len(), |e| pos + e);
    text[start + 1..end].trim().is_empty()
}

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
fn show(reply: &Reply) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(reply.out.as_bytes());
    let _ = out.flush();
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(reply.err.as_bytes());
    let _ = err.flush();
}

/// Runs the REPL until `:quit` or the end of input, with `file` loaded first if given
/// (an error loading it is printed and the REPL starts without it). `interrupt` is the
/// flag that stops the backend's evaluation; Ctrl-C sets it.
///
/// On a terminal, input is edited with `rustyline`; from a pipe or a file it is read
/// line by line ([`run_piped`]). Either way, input is taken as typed: an input goes on
/// while it is unfinished or the next line is indented ([`continues`]).
pub fn run(
    backend: &mut dyn ReplBackend,
    interrupt: Arc<AtomicBool>,
    file: Option<&Path>,
) -> rustyline::Result<()> {
    let flag = interrupt.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    println!(
        "Spindle {}: `:help` for help, Ctrl-D to quit",
        env!("CARGO_PKG_VERSION")
    );
    if let Some(file) = file {
        show(&backend.load(file));
    }
    if !std::io::stdin().is_terminal() {
        run_piped(backend, &interrupt, std::io::stdin(), LOOKAHEAD, &mut show);
        return Ok(());
    }
    let mut editor: Editor<ReplHelper, FileHistory> = Editor::new()?;
    editor.set_helper(Some(ReplHelper::new(backend.names())));
    editor.bind_sequence(
        KeyEvent::ctrl('D'),
        EventHandler::Conditional(Box::new(CancelContinuation)),
    );
    let history = history_path();
    if let Some(path) = &history {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.load_history(path);
    }
    loop {
        if let Some(helper) = editor.helper_mut() {
            helper.names = backend.names();
            helper.last_declaration = backend.last_declaration().map(str::to_string);
        }
        let input = match editor.readline(PROMPT) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                // What was typed is lost, the session is not.
                show(&Reply::err(format!("error: {INVALID_UTF8}\n")));
                continue;
            }
            Err(e) => return Err(e),
        };
        if input.trim().is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(input.as_str());
        if let Some(path) = &history {
            let _ = editor.append_history(path);
        }
        match submit(backend, &interrupt, &input) {
            Action::Quit => break,
            Action::Reply(reply) => show(&reply),
        }
    }
    Ok(())
}

/// What is said of a line that is not valid UTF-8.
const INVALID_UTF8: &str = "the input is not valid UTF-8 (the line is dropped)";

/// How long input read from a pipe may take to show its next line before a complete
/// input is taken without it: data from a file or a program arrives at once; a person
/// typing into a pipe (`cat data.sp - | spindle`) gets the answer without waiting for
/// the next line.
pub const LOOKAHEAD: Duration = Duration::from_millis(100);

/// Handles one complete input: an indented one continues the last declaration (as
/// the next lines of a declaration do in a file), any other goes to [`handle`].
fn submit(backend: &mut dyn ReplBackend, interrupt: &AtomicBool, input: &str) -> Action {
    interrupt.store(false, Ordering::SeqCst);
    let action = if is_indented(input.lines().next().unwrap_or(""))
        && let Some(reply) = backend.extend(input)
    {
        Action::Reply(reply)
    } else {
        handle(backend, input)
    };
    if interrupt.load(Ordering::SeqCst) {
        // The terminal echoed `^C` with no newline after it.
        println!();
    }
    action
}

/// A line of piped input: its text, or where it is not valid UTF-8.
enum Line {
    /// A line (without its end of line).
    Text(String),
    /// A line that is not valid UTF-8.
    Invalid,
}

/// Runs the REPL on input that is not a terminal, until `:quit` or its end: the lines
/// are read as raw bytes (a line that is not valid UTF-8 is an error and is dropped,
/// with the input it was part of) and joined into inputs as typed lines are: an input
/// goes on while it is unfinished or the next line is indented. A complete input waits
/// at most `lookahead` for its next line. No prompts and no history; every reply goes
/// to `emit`.
pub fn run_piped<R: std::io::Read + Send + 'static>(
    backend: &mut dyn ReplBackend,
    interrupt: &AtomicBool,
    input: R,
    lookahead: Duration,
    emit: &mut dyn FnMut(&Reply),
) {
    let (tx, rx) = std::sync::mpsc::channel::<Line>();
    // A reader thread, so that the next line can be awaited with a time limit.
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(input);
        loop {
            let mut bytes = Vec::new();
            match std::io::BufRead::read_until(&mut reader, b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if bytes.last() == Some(&b'\n') {
                bytes.pop();
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
            }
            let line = match String::from_utf8(bytes) {
                Ok(text) => Line::Text(text),
                Err(_) => Line::Invalid,
            };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut reader = Piped {
        backend,
        interrupt,
        emit,
        pending: None,
        poisoned: false,
    };
    let mut line_number = 0usize;
    loop {
        // A complete input waits a little for an indented line that continues it.
        let complete = reader
            .pending
            .as_deref()
            .is_some_and(|p| reader.poisoned || !is_unfinished(p));
        let next = if complete {
            match rx.recv_timeout(lookahead) {
                Ok(line) => Some(line),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if !reader.finish() {
                        return;
                    }
                    continue;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => None,
            }
        } else {
            rx.recv().ok()
        };
        let Some(line) = next else {
            // The end of the input ends the last input, finished or not.
            reader.finish();
            return;
        };
        line_number += 1;
        let text = match line {
            Line::Text(text) => text,
            Line::Invalid => {
                // An invalid line inside an unfinished input drops the whole input; a
                // complete input before it is taken first.
                let inside = reader
                    .pending
                    .as_deref()
                    .is_some_and(|p| reader.poisoned || is_unfinished(p));
                if !inside && !reader.finish() {
                    return;
                }
                (reader.emit)(&Reply::err(format!(
                    "error: line {line_number} of the input: {INVALID_UTF8}\n"
                )));
                if inside {
                    reader.poisoned = true;
                }
                continue;
            }
        };
        let poisoned = reader.poisoned;
        match &mut reader.pending {
            // The rest of a dropped input.
            Some(p) if poisoned && (is_unfinished(p) || is_indented(&text)) => {
                p.push('\n');
                p.push_str(&text);
            }
            Some(p) if !poisoned && continues(p, &text) => {
                p.push('\n');
                p.push_str(&text);
            }
            _ => {
                if !reader.finish() {
                    return;
                }
                if !text.trim().is_empty() {
                    reader.pending = Some(text);
                }
            }
        }
    }
}

/// The state of [`run_piped`] between lines.
struct Piped<'a, 'b> {
    backend: &'a mut dyn ReplBackend,
    interrupt: &'a AtomicBool,
    emit: &'b mut dyn FnMut(&Reply),
    /// The input read so far.
    pending: Option<String>,
    /// Whether it had a line that is not valid UTF-8 (then it is dropped).
    poisoned: bool,
}

impl Piped<'_, '_> {
    /// Takes the pending input, if any: `false` when it says to quit.
    fn finish(&mut self) -> bool {
        let Some(text) = self.pending.take() else {
            return true;
        };
        if std::mem::take(&mut self.poisoned) {
            return true;
        }
        match submit(self.backend, self.interrupt, &text) {
            Action::Quit => false,
            Action::Reply(reply) => {
                (self.emit)(&reply);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_continuation_line_is_told_from_the_first_and_from_text() {
        // The first line, empty or not, is never a continuation line.
        assert!(!on_empty_continuation_line("", 0));
        assert!(!on_empty_continuation_line("def f =", 7));
        // After a newline, with nothing (or blanks) on the cursor's line.
        assert!(on_empty_continuation_line("def f =\n", 8));
        assert!(on_empty_continuation_line("def f =\n  ", 10));
        // Text on the cursor's line: Ctrl-D deletes as usual.
        assert!(!on_empty_continuation_line("def f =\n  1", 11));
        // The cursor on an empty middle line.
        assert!(on_empty_continuation_line("a =\n\n  b", 4));
        // A cursor past the end is taken as the end.
        assert!(on_empty_continuation_line("a =\n", 99));
    }

    /// The replies of a session fed `input` as a pipe, standard output and standard
    /// error each in one string.
    fn piped(input: &[u8]) -> (String, String) {
        let mut session = crate::repl::session::Session::new();
        let flag = AtomicBool::new(false);
        let (mut out, mut err) = (String::new(), String::new());
        run_piped(
            &mut session,
            &flag,
            std::io::Cursor::new(input.to_vec()),
            Duration::from_secs(5),
            &mut |r: &Reply| {
                out.push_str(&r.out);
                err.push_str(&r.err);
            },
        );
        (out, err)
    }

    #[test]
    fn piped_input_continues_while_lines_are_indented() {
        let (out, err) = piped(
            b"def f (x : Int) : Int =\n  match x with\n  | 0 -> 10\n  | _ -> 20\n\n\
              data Color =\n    Red\n  | Green\n\n\
              def name (c : Color) : String =\n  match c with\n  | Red -> \"red\"\n  | Green -> \"green\"\n\
              (f 0, f 5,\n map name [Red, Green])\n",
        );
        assert_eq!(err, "");
        assert_eq!(
            out,
            "f : Int -> Int\nColor : Type\nRed : Color\nGreen : Color\nname : Color -> String\n\
             (10, 20, [\"red\", \"green\"]) : (Int, Int, List String)\n"
        );
    }

    #[test]
    fn piped_input_that_is_not_utf8_is_an_error_and_the_session_goes_on() {
        let (out, err) = piped(b"1 + 2\n\xff\xfe\n(1 +\n \xc3\n 2)\n3 * 4\r\n:quit\n5\n");
        assert_eq!(out, "3 : Int\n12 : Int\n");
        assert_eq!(
            err,
            "error: line 2 of the input: the input is not valid UTF-8 (the line is dropped)\n\
             error: line 4 of the input: the input is not valid UTF-8 (the line is dropped)\n"
        );
    }

    #[test]
    fn an_indented_input_after_a_declaration_continues_it() {
        let mut s = crate::repl::session::Session::new();
        let flag = AtomicBool::new(false);
        let reply = |a: Action| match a {
            Action::Reply(r) => r,
            Action::Quit => panic!("quit"),
        };
        let r = reply(submit(
            &mut s,
            &flag,
            "def f (x : Int) : Int =\n  match x with\n  | 0 -> 1",
        ));
        assert_eq!(r.out, "f : Int -> Int\n");
        // As a person pasting a file types it: the next arm comes as its own input.
        let r = reply(submit(&mut s, &flag, "  | _ -> 2"));
        assert_eq!(r, Reply::out("f : Int -> Int\n"));
        assert_eq!(reply(submit(&mut s, &flag, "f 7")), Reply::out("2 : Int\n"));
        // An indented line after an expression is an input of its own.
        assert!(
            reply(submit(&mut s, &flag, "  + 1"))
                .err
                .starts_with("error")
        );
    }

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
