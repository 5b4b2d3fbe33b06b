//! The REPL (LANGUAGE.md section 10): typed scripting at a prompt.
//!
//! Split in two so that everything but the terminal is tested without one:
//!
//! - a backend, the [`ReplBackend`] trait, that reads inputs (declarations or an
//!   expression) and answers the commands, with one implementation,
//!   [`session::Session`]: it keeps the session's declarations and re-checks the whole
//!   session (prelude, loaded file, declarations) on every input, through
//!   [`driver::load_session`](crate::driver::load_session), then evaluates an
//!   expression on the machine exactly as `spindle run` evaluates `main`;
//! - a `rustyline` frontend ([`frontend`]): line editing, a validator that asks the
//!   parser whether the input is unfinished, completion of names and commands, history
//!   in the user's data directory, Ctrl-C to interrupt an evaluation; and the same
//!   REPL on piped input, which is taken exactly as typed input ([`continues`]: an
//!   input goes on while it is unfinished or the next line is indented).
//!
//! [`handle`] is the glue: it reads one complete input line, command or not, and says
//! what to print. `:stack` draws the machine state ([`crate::machine::walk::Sight::draw_state`]).

pub mod frontend;
pub mod session;

use crate::syntax::parser;
use crate::syntax::span::FileId;
use bumpalo::Bump;
use std::path::Path;

/// What the REPL prints for one input.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reply {
    /// For standard output: results and notes.
    pub out: String,
    /// For standard error: errors, already rendered.
    pub err: String,
}

impl Reply {
    /// A reply with output only.
    pub fn out(text: impl Into<String>) -> Reply {
        Reply {
            out: text.into(),
            err: String::new(),
        }
    }

    /// A reply with an error only.
    pub fn err(text: impl Into<String>) -> Reply {
        Reply {
            out: String::new(),
            err: text.into(),
        }
    }
}

/// The REPL's backend: everything but the terminal.
///
/// Every method reports errors in its [`Reply`] rather than failing: an error in one
/// input never ends the session, and leaves the session as it was.
pub trait ReplBackend {
    /// One input: declarations are checked and kept (a later declaration of the same
    /// name replaces the earlier one, and the reply says so); an expression is checked,
    /// evaluated and printed as `value : Type`.
    fn input(&mut self, text: &str) -> Reply;

    /// `:print e`: evaluates an expression and prints its value as `spindle run`
    /// prints it (a `String` raw, no type) and a newline; it does not become `it`.
    fn print(&mut self, expr: &str) -> Reply;

    /// `:type e`: the type of an expression, without evaluating it.
    fn type_of(&mut self, expr: &str) -> Reply;

    /// `:load FILE`: loads a program file (with what it imports) in place of the file
    /// loaded before, forgetting the session's own declarations.
    fn load(&mut self, path: &Path) -> Reply;

    /// `:reload`: reads the loaded file (and its imports) from disk again, keeping the
    /// session's declarations.
    fn reload(&mut self) -> Reply;

    /// `:stack e`: the machine state of an expression halfway through its evaluation.
    fn stack(&mut self, expr: &str) -> Reply;

    /// `:stats`: the evaluation statistics of the last evaluated expression.
    fn stats(&self) -> Reply;

    /// `:browse`: the names in scope with their types: the session's own, the loaded
    /// file's, then the prelude's (without its internal helpers).
    fn browse(&self) -> Reply;

    /// `:info NAME`: a name's type and where it is defined; for a data type, also its
    /// constructors.
    fn info(&self, name: &str) -> Reply;

    /// `:doc NAME`: a name's type and its documentation (the `--` comment lines
    /// directly above its declaration; a constructor's are its data type's).
    fn doc(&self, name: &str) -> Reply;

    /// `:split HOLE VAR`: the arms of a `match` on `VAR` at the hole `?HOLE` of the
    /// last declaration typed (or else the loaded file), one per line as
    /// `| PATTERN -> ?HOLE` (issue 31).
    fn split(&mut self, hole: &str, var: &str) -> Reply;

    /// The last input, if it was declarations: an indented line that comes after it
    /// continues it (see [`ReplBackend::extend`]).
    fn last_declaration(&self) -> Option<&str>;

    /// Continues the last declaration input with `more` (lines that were indented, as
    /// in a file: more arms of a `match`, more constructors of a `data`), checking the
    /// whole as that input in place of the earlier part. `None` when the last input was
    /// not declarations (then `more` is an input of its own).
    fn extend(&mut self, more: &str) -> Option<Reply>;

    /// The names in scope, for completion.
    fn names(&self) -> Vec<String>;
}

/// The commands, with their argument and what they do (for `:help` and completion).
pub const COMMANDS: &[(&str, &str, &str)] = &[
    (":type", "EXPR", "the type of EXPR, not evaluated"),
    (
        ":print",
        "EXPR",
        "the value of EXPR as `spindle run` prints it (a String raw)",
    ),
    (
        ":load",
        "FILE",
        "load a program file (forgets this session's definitions)",
    ),
    (
        ":reload",
        "",
        "read the loaded file again (keeps this session's definitions)",
    ),
    (
        ":stack",
        "EXPR",
        "the machine state of EXPR: contexts with types, frames",
    ),
    (":stats", "", "evaluation statistics of the last expression"),
    (
        ":split",
        "HOLE VAR",
        "the arms of a match on VAR at the hole ?HOLE of the last declaration (or the loaded file)",
    ),
    (":browse", "", "the names in scope with their types"),
    (
        ":info",
        "NAME",
        "the type of NAME, where it is defined, a data type's constructors",
    ),
    (
        ":doc",
        "NAME",
        "the type of NAME and its documentation (the -- lines above it)",
    ),
    (":help", "", "this help"),
    (":quit", "", "leave (Ctrl-D does too)"),
];

/// One line of input, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Declarations or an expression.
    Input(String),
    /// `:type EXPR` (the expression padded with spaces where the command was, so
    /// error columns match the line as typed).
    Type(String),
    /// `:print EXPR` (padded like [`Command::Type`]).
    Print(String),
    /// `:load FILE`.
    Load(String),
    /// `:reload`.
    Reload,
    /// `:stack EXPR` (padded like [`Command::Type`]).
    Stack(String),
    /// `:stats`.
    Stats,
    /// `:browse`.
    Browse,
    /// `:info NAME`.
    Info(String),
    /// `:doc NAME`.
    Doc(String),
    /// `:split HOLE VAR`.
    Split(String, String),
    /// `:help`.
    Help,
    /// `:quit`.
    Quit,
    /// A command that does not exist, or a command given an argument it does not take
    /// or missing one (the message says which).
    Bad(String),
}

/// Classifies one input. A command is a line starting with `:`; any unambiguous
/// prefix of a command's name works (`:t`, `:l`, `:r`, `:b`, `:i`, `:d`), and `:s` is
/// `:stack` (the first command of the table that the prefix fits).
pub fn parse_command(line: &str) -> Command {
    // Comment lines typed above a command (they continue into the next line, as doc
    // comments do) are left out.
    let line = after_comment_lines(line);
    let trimmed = line.trim_start();
    let Some(rest) = trimmed.strip_prefix(':') else {
        return Command::Input(line.to_string());
    };
    let word_len = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
    let word = &rest[..word_len];
    let arg = rest[word_len..].trim();
    // The argument keeps its place in the line: everything before it becomes spaces
    // (newlines stay newlines), so error locations point into the line as typed.
    let padded = || {
        let start = line.len() - rest.len() + word_len;
        let prefix: String = line[..start]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        format!("{prefix}{}", &line[start..])
    };
    let Some((name, takes, _)) = COMMANDS
        .iter()
        .find(|(name, _, _)| !word.is_empty() && name[1..].starts_with(word))
    else {
        return Command::Bad(format!(
            "unknown command `:{word}` (`:help` lists the commands)"
        ));
    };
    let name = &name[1..];
    if takes.is_empty() && !arg.is_empty() {
        return Command::Bad(format!("`:{name}` takes no argument"));
    }
    if !takes.is_empty() && arg.is_empty() {
        return Command::Bad(format!("`:{name}` needs {takes}: `:{name} {takes}`"));
    }
    match name {
        "type" => Command::Type(padded()),
        "print" => Command::Print(padded()),
        "load" => Command::Load(arg.to_string()),
        "reload" => Command::Reload,
        "stack" => Command::Stack(padded()),
        "stats" => Command::Stats,
        "browse" => Command::Browse,
        "info" => Command::Info(arg.to_string()),
        "doc" => Command::Doc(arg.to_string()),
        "split" => match arg.split_whitespace().collect::<Vec<_>>().as_slice() {
            [hole, var] => Command::Split(hole.to_string(), var.to_string()),
            _ => Command::Bad("`:split` needs a hole and a variable: `:split h VAR`".into()),
        },
        "help" => Command::Help,
        _ => Command::Quit,
    }
}

/// Whether `line` is merely unfinished (an open parenthesis, a `let` without `in`, a
/// trailing operator, an open string or comment): the REPL reads another line and
/// tries again. Commands whose argument is an expression continue the same way. So
/// does an input of `--` comment lines only, up to a blank line: comment lines
/// directly above a declaration document it ([`crate::syntax::doc`]), at the prompt
/// as in a file.
pub fn is_unfinished(line: &str) -> bool {
    let text = match parse_command(line) {
        Command::Input(text)
        | Command::Type(text)
        | Command::Print(text)
        | Command::Stack(text) => text,
        _ => return false,
    };
    if text.trim().is_empty() {
        return false;
    }
    if is_doc_comment(&text) {
        return true;
    }
    let arena = Bump::new();
    matches!(
        parser::parse_repl_input(&arena, FileId(0), &text),
        Err(failure) if failure.unfinished
    )
}

/// `line` without the `--` comment lines (and blank lines) it starts with, when a
/// command follows them; otherwise `line` itself.
fn after_comment_lines(line: &str) -> &str {
    let mut rest = line;
    loop {
        let t = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        if t.starts_with(':') {
            return t;
        }
        if !t.starts_with("--") {
            return line;
        }
        match t.find('\n') {
            Some(i) => rest = &t[i + 1..],
            None => return line,
        }
    }
}

/// Whether `text` is `--` comment lines only, the last not blank: what may document
/// the declaration on the next line.
fn is_doc_comment(text: &str) -> bool {
    !text.ends_with('\n') && text.lines().all(|l| l.trim_start().starts_with("--"))
}

/// Whether a line is indented: it starts with a space or a tab and is not blank. In a
/// file, such a line continues the declaration above it; the REPL treats it the same.
pub fn is_indented(line: &str) -> bool {
    line.starts_with([' ', '\t']) && !line.trim().is_empty()
}

/// Whether `next`, the line after `pending` (an input read so far), continues it:
/// when `pending` is unfinished, or when `next` is indented and `pending` is not a
/// command (LANGUAGE.md section 10: multi-line declarations continue while the next
/// line is indented or the input is unfinished).
pub fn continues(pending: &str, next: &str) -> bool {
    is_unfinished(pending) || (is_indented(next) && !pending.trim_start().starts_with(':'))
}

/// The text of `:help`.
pub fn help_text() -> String {
    let mut s = String::from(
        "Type a declaration (def, data, extern, import) to add it to the session, or an\n\
         expression to evaluate it; unfinished input continues on the next line.\n\
         An indented line continues the declaration above it, as in a file.\n\
         `x = e` (or `f x y = e`) is `def x = e`; `it` is the last value evaluated.\n\
         `--` lines typed directly above a definition are its documentation (:doc).\n\
         A later def of a name replaces the earlier one. Ctrl-C interrupts an evaluation.\n\
         Commands (any unambiguous prefix works, :s is :stack):\n",
    );
    for (name, arg, what) in COMMANDS {
        let usage = if arg.is_empty() {
            name.to_string()
        } else {
            format!("{name} {arg}")
        };
        s.push_str(&format!("  {usage:<14} {what}\n"));
    }
    s
}

/// What to do after one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Print the reply and read the next input.
    Reply(Reply),
    /// Leave the REPL.
    Quit,
}

/// Handles one complete input line: a command or an input for the backend.
pub fn handle(backend: &mut dyn ReplBackend, line: &str) -> Action {
    Action::Reply(match parse_command(line) {
        Command::Input(text) => backend.input(&text),
        Command::Type(expr) => backend.type_of(&expr),
        Command::Print(expr) => backend.print(&expr),
        Command::Load(path) => backend.load(Path::new(&path)),
        Command::Reload => backend.reload(),
        Command::Stack(expr) => backend.stack(&expr),
        Command::Stats => backend.stats(),
        Command::Browse => backend.browse(),
        Command::Info(name) => backend.info(&name),
        Command::Doc(name) => backend.doc(&name),
        Command::Split(hole, var) => backend.split(&hole, &var),
        Command::Help => Reply::out(help_text()),
        Command::Quit => return Action::Quit,
        Command::Bad(message) => Reply::err(format!("error: {message}\n")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_classified() {
        assert_eq!(parse_command("1 + 2"), Command::Input("1 + 2".into()));
        assert_eq!(parse_command(":type 1"), Command::Type("      1".into()));
        assert_eq!(
            parse_command(":t (1,\n 2)"),
            Command::Type("   (1,\n 2)".into())
        );
        assert_eq!(parse_command(":l a.sp"), Command::Load("a.sp".into()));
        assert_eq!(parse_command(":r"), Command::Reload);
        assert_eq!(parse_command(":reload"), Command::Reload);
        assert_eq!(parse_command(":s x"), Command::Stack("   x".into()));
        assert_eq!(parse_command(":stats"), Command::Stats);
        assert_eq!(parse_command(":browse"), Command::Browse);
        assert_eq!(parse_command(":b"), Command::Browse);
        assert_eq!(parse_command(":info map"), Command::Info("map".into()));
        assert_eq!(parse_command(":i Maybe"), Command::Info("Maybe".into()));
        assert_eq!(parse_command(":doc map"), Command::Doc("map".into()));
        assert_eq!(
            parse_command(":split h xs"),
            Command::Split("h".into(), "xs".into())
        );
        assert_eq!(
            parse_command(":sp ?h xs"),
            Command::Split("?h".into(), "xs".into())
        );
        assert!(matches!(parse_command(":split h"), Command::Bad(_)));
        assert!(matches!(parse_command(":s 1"), Command::Stack(_)));
        assert_eq!(parse_command(":d try"), Command::Doc("try".into()));
        assert!(matches!(parse_command(":doc"), Command::Bad(_)));
        // Comment lines above a command are left out.
        assert_eq!(
            parse_command("-- a note\n  -- more\n:doc map"),
            Command::Doc("map".into())
        );
        assert_eq!(
            parse_command("-- a note\n:t 1"),
            Command::Type("   1".into())
        );
        assert_eq!(
            parse_command("-- a note\n1"),
            Command::Input("-- a note\n1".into())
        );
        assert!(matches!(parse_command(":info"), Command::Bad(_)));
        assert!(matches!(parse_command(":browse x"), Command::Bad(_)));
        assert_eq!(parse_command(":help"), Command::Help);
        assert_eq!(parse_command(":q"), Command::Quit);
        assert!(matches!(parse_command(":frob"), Command::Bad(_)));
        assert!(matches!(parse_command(":type"), Command::Bad(_)));
        assert!(matches!(parse_command(":quit now"), Command::Bad(_)));
        assert!(matches!(parse_command(":"), Command::Bad(_)));
    }

    #[test]
    fn indented_lines_continue_declarations() {
        let def = "def f (x : Int) : Int =\n  match x with\n  | 0 -> 1";
        assert!(continues(def, "  | _ -> 2"));
        assert!(continues(def, "\t| _ -> 2"));
        assert!(!continues(def, "| _ -> 2"));
        assert!(!continues(def, "f 3"));
        assert!(!continues(def, "   "));
        assert!(!continues(def, ""));
        // Unfinished input takes any line, blank ones included.
        assert!(continues("def f (x : Int) : Int =", "x + 1"));
        assert!(continues("(1 +", ""));
        // A complete command is not continued by indentation.
        assert!(!continues(":type 1", "  + 2"));
        assert!(continues(":type (1", "  + 2)"));
    }

    #[test]
    fn unfinished_input_continues() {
        for text in [
            "(1 +",
            "let x = 5",
            "def f (x : Int) : Int =",
            "def f (x : Int) : Int =\n  x +",
            "[1, 2,",
            ":type (1 +",
            ":stack let x = 1",
            "\"abc",
            "-- a doc comment",
            "-- two lines\n  -- of doc comment",
            "x =",
            "f x y =",
        ] {
            assert!(is_unfinished(text), "{text:?}");
        }
        for text in [
            "",
            "1 + 2",
            "def f (x : Int) : Int =\n  x + 1",
            "1 )",
            ":load (",
            ":help",
            ":frob (",
            "-- a comment, then a blank line\n",
            "-- a comment\ndef x = 1",
            "x = 1",
            "x == 1",
        ] {
            assert!(!is_unfinished(text), "{text:?}");
        }
    }
}
