//! The REPL backend: a session of declarations over the prelude and a loaded file.
//!
//! The session model is the simplest that stays consistent: a session is the loaded
//! file (if any) and the list of declaration inputs typed so far. Every input is
//! checked by re-loading the whole session with the new input appended
//! ([`driver::load_session`]); only if that has no errors is a declaration input kept.
//! A later declaration of a name replaces the earlier one everywhere in the session
//! (definitions that used the old one now use the new one, and must still check). An
//! expression is checked as a definition of its own, then evaluated on a fresh machine
//! by [`Machine::whnf_def`] and printed by [`Machine::print_value`], exactly as
//! `spindle run` evaluates and prints `main`; only a `String` result is printed quoted
//! here, so that `"1" : String` and `1 : Int` look different.
//!
//! Files are read once into a snapshot and re-read only by `:reload`, so editing the
//! loaded file changes nothing until then.

use super::{Reply, ReplBackend, stack_view};
use crate::core::pretty;
use crate::core::program::Program;
use crate::core::term::{DefId, Plicity, RcTerm, Term};
use crate::diagnostic;
use crate::driver::{self, FileSnapshot, Loaded, SESSION_EXPR};
use crate::machine::Machine;
use crate::machine::arena::NIL;
use crate::machine::print;
use crate::machine::stats::Stats;
use crate::machine::value::Value;
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

    /// Loads the session with `extra` appended to the kept inputs.
    fn load_with(&mut self, file: Option<&Path>, kept: &[Kept], extra: Option<&str>) -> Loaded {
        let mut inputs: Vec<&str> = kept.iter().map(|k| k.text.as_str()).collect();
        inputs.extend(extra);
        driver::load_session(file, &inputs, &mut self.snapshot)
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
            return Err(Reply::err("error: expected an expression, not a declaration\n"));
        }
        let file = self.file.clone();
        let kept = std::mem::take(&mut self.kept);
        let loaded = self.load_with(file.as_deref(), &kept, Some(expr));
        self.kept = kept;
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
        let result = machine
            .whnf_def(id)
            .and_then(|v| print_result(&mut machine, v));
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
        let file = self.file.clone();
        let kept = std::mem::take(&mut self.kept);
        let loaded = self.load_with(file.as_deref(), &kept, Some(text));
        self.kept = kept;
        if loaded.has_errors() {
            return Reply::err(loaded.render_errors());
        }
        let mut notes = String::new();
        for name in &names {
            if self.kept.iter().any(|k| k.names.contains(name)) {
                notes.push_str(&format!("`{name}` redefined: this replaces the earlier one\n"));
            } else if let Some(place) = self.defined_outside(name) {
                notes.push_str(&format!("`{name}` now shadows the one in {place}\n"));
            }
        }
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
                    .flat_map(|d| std::iter::once((&d.name, d.span)).chain(
                        d.ctors.iter().map(|c| (&c.name, c.span)),
                    ))
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
        let loaded = self.load_with(Some(&file), &kept, None);
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

/// Prints an evaluated result as `spindle run` does, but a `String` quoted.
fn print_result<'p>(
    machine: &mut Machine<'p>,
    v: Value<'p>,
) -> crate::machine::error::Result<String> {
    if let Value::Str(s) = &v {
        let mut out = String::new();
        print::quote(s, &mut out);
        return Ok(out);
    }
    machine.print_value(v)
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
    "let", "in", "def", "data", "match", "with", "if", "then", "else", "extern", "import",
    "Type",
];
