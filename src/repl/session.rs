//! The REPL backend: a session of declarations over the prelude and a loaded file.
//!
//! The session model is the simplest that stays consistent: a session is the loaded
//! file (if any) and the list of declaration inputs typed so far. Every input is
//! checked by re-loading the whole session with the new input appended
//! ([`driver::load_session`]); only if that has no errors is a declaration input kept.
//! A later declaration of a name replaces the earlier one everywhere in the session
//! (definitions that used the old one now use the new one, and must still check). An
//! expression is checked as a definition of its own, then evaluated on a fresh machine
//! and printed by [`driver::evaluate_def`], the code `spindle run` evaluates and prints
//! `main` with; only a `String` result is printed quoted here, so that `"1" : String`
//! and `1 : Int` look different.
//!
//! Files are read once into a snapshot and re-read only by `:reload`, so editing the
//! loaded file changes nothing until then.

use super::{ReplBackend, Reply, stack_view};
use crate::core::pretty;
use crate::core::program::Program;
use crate::core::term::{DefId, Plicity, RcTerm, Term};
use crate::diagnostic;
use crate::driver::{self, FileSnapshot, Loaded, SESSION_EXPR};
use crate::machine::Machine;
use crate::machine::arena::NIL;
use crate::machine::stats::Stats;
use crate::syntax::parser::{self, ReplInput};
use crate::syntax::span::FileId;
use bumpalo::Bump;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One declaration input kept in the session.
#[derive(Debug, Clone)]
struct Kept {
    /// The input as typed.
    text: String,
    /// The names it declares.
    names: Vec<String>,
}

/// The REPL's backend (see the module documentation).
pub struct Session {
    /// The file loaded with `:load` or on the command line.
    file: Option<PathBuf>,
    /// The declaration inputs, in order.
    kept: Vec<Kept>,
    /// The text of the files read, until `:reload`.
    snapshot: FileSnapshot,
    /// The session as last checked without errors (prelude only at first).
    current: Loaded,
    /// Statistics of the last evaluation.
    last_stats: Option<Stats>,
    /// Set to stop the running evaluation (Ctrl-C).
    interrupt: Arc<AtomicBool>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// An empty session: the prelude only.
    pub fn new() -> Session {
        let mut snapshot = FileSnapshot::new();
        let current = driver::load_session(None, &[], &mut snapshot);
        Session {
            file: None,
            kept: Vec::new(),
            snapshot,
            current,
            last_stats: None,
            interrupt: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The flag that interrupts a running evaluation when set (a Ctrl-C handler sets
    /// it); the session clears it when an evaluation starts.
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// The file loaded, if any.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Checks `expr` as the session's expression definition. Returns the loaded
    /// session and the definition, or the errors to print.
    fn check_expr(&mut self, expr: &str) -> Result<(Loaded, DefId), Reply> {
        if expr.trim().is_empty() {
            return Err(Reply::err("error: an expression is needed\n"));
        }
        // Only an expression may be given here, not declarations.
        let arena = Bump::new();
        if let Ok(ReplInput::Decls(_)) = parser::parse_repl_input(&arena, FileId(0), expr) {
            return Err(Reply::err(
                "error: expected an expression, not a declaration\n",
            ));
        }
        let loaded = load_with(
            &mut self.snapshot,
            self.file.as_deref(),
            &self.kept,
            Some(expr),
        );
        if loaded.has_errors() {
            return Err(Reply::err(loaded.render_errors()));
        }
        let id = loaded.program.as_ref().and_then(expression_def);
        match id {
            Some(id) => Ok((loaded, id)),
            None => Err(Reply::err("error: expected an expression\n")),
        }
    }

    /// Evaluates the expression definition `id` and prints `value : Type`.
    fn evaluate(&mut self, loaded: &Loaded, id: DefId, source: &str) -> Reply {
        let Some(program) = &loaded.program else {
            return Reply::err(loaded.render_errors());
        };
        let ty = type_text(program, id, source);
        let start = Instant::now();
        let mut machine = Machine::new(program);
        self.interrupt.store(false, Ordering::SeqCst);
        machine.interrupt = Some(self.interrupt.clone());
        let result = driver::evaluate_def(&mut machine, id, true);
        let mut stats = machine.stats();
        stats.wall_ms = start.elapsed().as_millis() as u64;
        self.last_stats = Some(stats);
        match result {
            Ok(text) => Reply::out(format!("{text} : {ty}\n")),
            Err(e) => Reply::err(diagnostic::render(&loaded.sources, &[e.to_diagnostic()])),
        }
    }

    /// Checks a declaration input and keeps it.
    fn declare(&mut self, text: &str, names: Vec<String>) -> Reply {
        let loaded = load_with(
            &mut self.snapshot,
            self.file.as_deref(),
            &self.kept,
            Some(text),
        );
        if loaded.has_errors() {
            return Reply::err(loaded.render_errors());
        }
        let mut redefined = Vec::new();
        let mut shadowing = String::new();
        for name in &names {
            if self.kept.iter().any(|k| k.names.contains(name)) {
                redefined.push(format!("`{name}`"));
            } else if let Some(place) = self.defined_outside(name) {
                shadowing.push_str(&format!("`{name}` now shadows the one in {place}\n"));
            }
        }
        let mut notes = match redefined.len() {
            0 => String::new(),
            1 => format!(
                "{} redefined: this replaces the earlier one\n",
                redefined[0]
            ),
            _ => format!(
                "{} redefined: these replace the earlier ones\n",
                redefined.join(", ")
            ),
        };
        notes.push_str(&shadowing);
        notes.push_str(&declared_types(&loaded));
        self.kept.push(Kept {
            text: text.to_string(),
            names,
        });
        self.current = loaded;
        Reply::out(notes)
    }

    /// Where `name` is declared outside the session's own inputs (the loaded file, one
    /// it imports, or the prelude), if it is.
    fn defined_outside(&self, name: &str) -> Option<String> {
        let program = self.current.program.as_ref()?;
        let span = program
            .defs
            .iter()
            .filter(|d| &*d.name == name)
            .map(|d| d.span)
            .chain(
                program
                    .datas
                    .iter()
                    .flat_map(|d| {
                        std::iter::once((&d.name, d.span))
                            .chain(d.ctors.iter().map(|c| (&c.name, c.span)))
                    })
                    .filter(|(n, _)| &***n == name)
                    .map(|(_, s)| s),
            )
            .chain(
                program
                    .externs
                    .iter()
                    .filter(|e| &*e.name == name)
                    .map(|e| e.span),
            )
            .find(|s| self.current.sources.get(s.file).name != driver::REPL_SOURCE)?;
        let file = &self.current.sources.get(span.file).name;
        Some(if file.starts_with("<prelude>") {
            "the prelude".to_string()
        } else {
            file.clone()
        })
    }

    /// Loads `file` (or the current file again, when `reload`), keeping the session's
    /// declarations when reloading.
    fn load_file(&mut self, file: PathBuf, reload: bool) -> Reply {
        let old_snapshot = std::mem::take(&mut self.snapshot);
        let kept = if reload {
            self.kept.clone()
        } else {
            Vec::new()
        };
        let loaded = load_with(&mut self.snapshot, Some(&file), &kept, None);
        if loaded.has_errors() {
            let mut err = loaded.render_errors();
            if reload {
                err.push_str("the session keeps the file as it was read before\n");
            }
            self.snapshot = old_snapshot;
            return Reply::err(err);
        }
        let forgotten = self.kept.len() - kept.len();
        self.kept = kept;
        self.file = Some(file.clone());
        self.current = loaded;
        let mut out = format!(
            "{} {}\n",
            if reload { "reloaded" } else { "loaded" },
            file.display()
        );
        if forgotten > 0 {
            out.push_str("(the session's earlier declarations are forgotten)\n");
        }
        Reply::out(out)
    }
}

/// Loads a session: `file`, the `kept` inputs, and `extra` after them.
fn load_with(
    snapshot: &mut FileSnapshot,
    file: Option<&Path>,
    kept: &[Kept],
    extra: Option<&str>,
) -> Loaded {
    let mut inputs: Vec<&str> = kept.iter().map(|k| k.text.as_str()).collect();
    inputs.extend(extra);
    driver::load_session(file, &inputs, snapshot)
}

/// `name : Type` for each name the last REPL input of a session declares, in the
/// order written.
fn declared_types(loaded: &Loaded) -> String {
    let Some(program) = &loaded.program else {
        return String::new();
    };
    let Some(input) = loaded
        .sources
        .files()
        .filter(|(_, f)| f.name == driver::REPL_SOURCE)
        .map(|(id, _)| id)
        .last()
    else {
        return String::new();
    };
    let mut found: Vec<(u32, &str, RcTerm)> = Vec::new();
    for d in &program.defs {
        if d.span.file == input {
            found.push((d.span.start, &d.name, d.ty.clone()));
        }
    }
    for (i, d) in program.datas.iter().enumerate() {
        let id = crate::core::term::DataId(i as u32);
        if d.span.file == input {
            found.push((d.span.start, &d.name, program.data_type(id)));
            for (j, c) in d.ctors.iter().enumerate() {
                let con = crate::core::term::ConId {
                    data: id,
                    index: j as u32,
                };
                found.push((c.span.start, &c.name, program.con_type(con)));
            }
        }
    }
    for e in &program.externs {
        if e.span.file == input {
            found.push((e.span.start, &e.name, e.ty.clone()));
        }
    }
    found.sort_by_key(|(start, _, _)| *start);
    found
        .into_iter()
        .map(|(_, name, ty)| format!("{name} : {}\n", pretty::term_to_string(program, &[], &ty)))
        .collect()
}

/// The definition a session's expression is checked as, if the session has one.
fn expression_def(program: &Program) -> Option<DefId> {
    program
        .defs
        .iter()
        .rposition(|d| &*d.name == SESSION_EXPR)
        .map(|i| DefId(i as u32))
}

/// If `text` is a declaration input that parses: how many declarations it has and
/// the names they declare.
fn declarations(text: &str) -> Option<(usize, Vec<String>)> {
    let arena = Bump::new();
    match parser::parse_repl_input(&arena, FileId(0), text) {
        Ok(ReplInput::Decls(module)) => Some((
            module.decls.len(),
            module
                .decls
                .iter()
                .flat_map(|d| driver::declared_names(d))
                .map(str::to_string)
                .collect(),
        )),
        _ => None,
    }
}

/// Whether `text` is one name, alone.
fn is_bare_name(text: &str) -> bool {
    let t = text.trim();
    let mut chars = t.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '\'')
}

/// The type of the expression definition `id`, as Spindle source. When the expression
/// is a global name alone, that global's declared type (the checker instantiates its
/// implicit arguments, and those nothing constrains would show as `Unit`).
fn type_text(program: &Program, id: DefId, source: &str) -> String {
    let def = program.def(id);
    let mut ty: RcTerm = def.ty.clone();
    if is_bare_name(source) {
        let mut head = &def.body;
        while let Term::App(f, Plicity::Implicit, _) = &**head {
            head = f;
        }
        ty = match &**head {
            Term::Def(d) => program.def(*d).ty.clone(),
            Term::Con(c) => program.con_type(*c),
            Term::Data(d) => program.data_type(*d),
            Term::Extern(e) => program.external(*e).ty.clone(),
            _ => ty,
        };
    }
    pretty::term_to_string(program, &[], &ty)
}

impl ReplBackend for Session {
    fn input(&mut self, text: &str) -> Reply {
        if text.trim().is_empty() {
            return Reply::default();
        }
        match declarations(text) {
            Some((0, _)) => Reply::default(),
            Some((_, names)) => self.declare(text, names),
            None => match self.check_expr(text) {
                Ok((loaded, id)) => self.evaluate(&loaded, id, text),
                Err(reply) => reply,
            },
        }
    }

    fn type_of(&mut self, expr: &str) -> Reply {
        match self.check_expr(expr) {
            Ok((loaded, id)) => {
                let program = loaded.program.as_ref().expect("checked program");
                Reply::out(format!(
                    "{} : {}\n",
                    expr.trim(),
                    type_text(program, id, expr)
                ))
            }
            Err(reply) => reply,
        }
    }

    fn load(&mut self, path: &Path) -> Reply {
        if let Err(e) = std::fs::metadata(path) {
            return Reply::err(format!("error: cannot read {}: {e}\n", path.display()));
        }
        let file = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        self.load_file(file, false)
    }

    fn reload(&mut self) -> Reply {
        match self.file.clone() {
            Some(file) => self.load_file(file, true),
            None => Reply::err("error: no file is loaded (`:load FILE` loads one)\n"),
        }
    }

    fn stack(&mut self, expr: &str) -> Reply {
        match self.check_expr(expr) {
            Ok((loaded, id)) => {
                let program = loaded.program.as_ref().expect("checked program");
                let mut machine = Machine::new(program);
                let body = &program.def(id).body;
                let s = crate::machine::wind::wind(&mut machine.heap, body, NIL);
                let text = stack_view::draw(&mut machine.heap, program, s);
                machine.heap.release_stack(s);
                Reply::out(text)
            }
            Err(reply) => reply,
        }
    }

    fn stats(&self) -> Reply {
        match &self.last_stats {
            Some(stats) => Reply::out(stats.render()),
            None => Reply::err("error: nothing has been evaluated yet\n"),
        }
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        if let Some(p) = &self.current.program {
            names.extend(p.defs.iter().map(|d| d.name.to_string()));
            for d in &p.datas {
                names.push(d.name.to_string());
                names.extend(d.ctors.iter().map(|c| c.name.to_string()));
            }
            names.extend(p.externs.iter().map(|e| e.name.to_string()));
        }
        names.extend(
            crate::check::scope::builtin_names()
                .chain(KEYWORDS.iter().copied())
                .map(str::to_string),
        );
        names.retain(|n| n != SESSION_EXPR && !n.starts_with("prim_"));
        names.sort();
        names.dedup();
        names
    }
}

/// The keywords, completed like names.
const KEYWORDS: &[&str] = &[
    "let", "in", "def", "data", "match", "with", "if", "then", "else", "extern", "import", "Type",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repl::{Action, handle, is_unfinished};

    /// Runs one line through the REPL's dispatch, as the frontend does.
    fn line(s: &mut Session, text: &str) -> Reply {
        match handle(s, text) {
            Action::Reply(r) => r,
            Action::Quit => panic!("quit"),
        }
    }

    /// A scratch file under the system's temporary directory.
    fn scratch(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spindle-repl-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn expressions_print_value_and_type() {
        let mut s = Session::new();
        assert_eq!(line(&mut s, "1 + 2"), Reply::out("3 : Int\n"));
        assert_eq!(
            line(&mut s, "\"a\\nb\""),
            Reply::out("\"a\\nb\" : String\n")
        );
        assert_eq!(
            line(&mut s, "take 3 (iterate (\\x -> x * 2) 1)"),
            Reply::out("[1, 2, 4] : List Int\n")
        );
        assert_eq!(
            line(&mut s, "(1, Just (-2))"),
            Reply::out("(1, Just (-2)) : Pair Int (Maybe Int)\n")
        );
        assert_eq!(line(&mut s, "-- a comment"), Reply::default());
        assert_eq!(line(&mut s, ""), Reply::default());
    }

    #[test]
    fn multi_line_definition_is_continued_then_kept() {
        let mut s = Session::new();
        let first = "def square (x : Int) : Int =";
        assert!(is_unfinished(first));
        let whole = format!("{first}\n  x * x");
        assert!(!is_unfinished(&whole));
        assert_eq!(line(&mut s, &whole), Reply::out("square : Int -> Int\n"));
        assert_eq!(line(&mut s, "square 7"), Reply::out("49 : Int\n"));
        assert!(s.names().contains(&"square".to_string()));
    }

    #[test]
    fn redefinition_replaces_and_says_so() {
        let mut s = Session::new();
        line(&mut s, "def k = 1");
        line(&mut s, "def twiceK = k + k");
        let r = line(&mut s, "def k = 10");
        assert!(r.err.is_empty(), "{}", r.err);
        assert!(r.out.contains("`k` redefined"), "{}", r.out);
        // Definitions that use `k` now use the new one.
        assert_eq!(line(&mut s, "twiceK"), Reply::out("20 : Int\n"));
        // Shadowing a prelude name is allowed, and said.
        let r = line(&mut s, "def sum (xs : List Int) : Int = 0");
        assert!(
            r.out.contains("`sum` now shadows the one in the prelude"),
            "{}",
            r.out
        );
        assert_eq!(line(&mut s, "sum [1, 2]"), Reply::out("0 : Int\n"));
    }

    #[test]
    fn a_redefinition_that_breaks_the_session_is_refused() {
        let mut s = Session::new();
        line(&mut s, "def k = 1");
        line(&mut s, "def next = k + 1");
        let r = line(&mut s, "def k = \"one\"");
        assert!(r.err.contains("error"), "{r:?}");
        assert_eq!(line(&mut s, "next"), Reply::out("2 : Int\n"));
    }

    #[test]
    fn type_of_expressions_and_names() {
        let mut s = Session::new();
        assert_eq!(line(&mut s, ":type 1 + 2"), Reply::out("1 + 2 : Int\n"));
        assert_eq!(
            line(&mut s, ":type map"),
            Reply::out("map : {a : Type} -> {b : Type} -> (a -> b) -> List a -> List b\n")
        );
        assert_eq!(
            line(&mut s, ":t Just"),
            Reply::out("Just : {a : Type} -> a -> Maybe a\n")
        );
        assert_eq!(
            line(&mut s, ":type Maybe"),
            Reply::out("Maybe : Type -> Type\n")
        );
        // :type does not evaluate.
        assert_eq!(
            line(&mut s, ":type length (iterate (\\x -> x + 1) 0)"),
            Reply::out("length (iterate (\\x -> x + 1) 0) : Int\n")
        );
        // Errors point into the line as typed.
        let r = line(&mut s, ":type 1 + \"a\"");
        assert!(r.err.contains("<repl>:1:11"), "{}", r.err);
    }

    #[test]
    fn errors_never_end_the_session() {
        let mut s = Session::new();
        line(&mut s, "def one = 1");
        for bad in [
            "1 )",
            "undefinedName",
            "1 + \"a\"",
            "1 / 0",
            "error \"boom\"",
            "def = 3",
        ] {
            let r = line(&mut s, bad);
            assert!(r.err.starts_with("error"), "{bad}: {r:?}");
            assert!(r.out.is_empty(), "{bad}: {r:?}");
        }
        let r = line(&mut s, "undefinedName");
        assert!(r.err.contains("<repl>:1:1"), "{}", r.err);
        let r = line(&mut s, "error \"boom\"");
        assert!(r.err.contains("boom"), "{}", r.err);
        assert_eq!(line(&mut s, "one + 1"), Reply::out("2 : Int\n"));
    }

    #[test]
    fn load_and_reload_a_file_that_changed() {
        let path = scratch("lib.sp", "def answer : Int = 41\ndef main = answer\n");
        let mut s = Session::new();
        line(&mut s, "def mine = 5");
        let r = line(&mut s, &format!(":load {}", path.display()));
        assert!(r.err.is_empty(), "{}", r.err);
        assert!(r.out.starts_with("loaded "), "{}", r.out);
        assert_eq!(line(&mut s, "answer + 1"), Reply::out("42 : Int\n"));
        // :load forgets the session's own declarations.
        assert!(line(&mut s, "mine").err.contains("unbound name"));
        line(&mut s, "def extra = 100");
        // Editing the file changes nothing until :reload.
        std::fs::write(&path, "def answer : Int = 1000\n").unwrap();
        assert_eq!(line(&mut s, "answer"), Reply::out("41 : Int\n"));
        let r = line(&mut s, ":reload");
        assert!(r.out.starts_with("reloaded "), "{r:?}");
        assert_eq!(line(&mut s, "answer + extra"), Reply::out("1100 : Int\n"));
        // A reload that fails keeps the file as it was.
        std::fs::write(&path, "def answer : Int = \"no\"\n").unwrap();
        let r = line(&mut s, ":r");
        assert!(r.err.contains("type mismatch"), "{}", r.err);
        assert_eq!(line(&mut s, "answer"), Reply::out("1000 : Int\n"));
        // Loading a file that does not exist is an error too.
        assert!(
            line(&mut s, ":load /nonexistent/x.sp")
                .err
                .starts_with("error")
        );
        assert_eq!(line(&mut s, "answer"), Reply::out("1000 : Int\n"));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn stack_shows_head_context_pending_and_end() {
        let mut s = Session::new();
        let r = line(&mut s, ":stack let y = 3 in (\\(x : Int) -> x + y) 2");
        assert!(r.err.is_empty(), "{}", r.err);
        let text = r.out;
        assert!(text.starts_with("S0 = "), "{text}");
        assert!(text.contains("head: primitive prim_add (+)"), "{text}");
        assert!(
            text.contains("#1 y : Int = 3   recursive let, suspended"),
            "{text}"
        );
        assert!(
            text.contains("#2 x : Int = S1   argument, its context ends at #1"),
            "{text}"
        );
        assert!(
            text.contains("pending applications (innermost first):\n    S2   ends at #2"),
            "{text}"
        );
        assert!(text.contains("end: top"), "{text}");
        assert!(text.contains("head: variable x (#2)"), "{text}");
        assert!(text.contains("end: #2"), "{text}");
        // A destructor head names its scrutinee.
        let r = line(&mut s, ":stack match [1] with | [] -> 0 | Cons x _ -> x");
        assert!(r.out.contains("head: match on S1"), "{}", r.out);
    }

    #[test]
    fn stats_of_the_last_evaluation() {
        let mut s = Session::new();
        assert!(line(&mut s, ":stats").err.starts_with("error"));
        line(&mut s, "sum (range 0 1000)");
        let r = line(&mut s, ":stats");
        for key in [
            "steps",
            "contexts_allocated",
            "contexts_peak",
            "stacks_peak",
            "externals_dispatched",
            "externals_peak_in_flight",
            "wall_ms",
        ] {
            assert!(r.out.contains(&format!("{key}: ")), "{key}: {}", r.out);
        }
    }

    #[test]
    fn interrupt_stops_an_endless_evaluation() {
        let mut s = Session::new();
        let flag = s.interrupt_flag();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            flag.store(true, Ordering::SeqCst);
        });
        let r = line(&mut s, "length (iterate (\\x -> x + 1) 0)");
        setter.join().unwrap();
        assert!(r.err.contains("interrupted"), "{r:?}");
        assert_eq!(line(&mut s, "1 + 1"), Reply::out("2 : Int\n"));
    }
}
