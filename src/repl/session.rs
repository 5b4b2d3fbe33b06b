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
//!
//! `it`, the last value evaluated, is a declaration input of the session's own
//! (`def it : T = VALUE`, the value's printed text, so that using it calls no external
//! again), replaced after each evaluation (`Session::remember`); a declaration that
//! mentions `it` is kept with the value written out in place of it, so that it keeps
//! the value it was given when `it` changes. `x = e` is parsed as `def x = e`
//! ([`parser::parse_repl_input`]). `:doc` reads a declaration's doc comment from its
//! source ([`crate::syntax::doc`]).

use super::{ReplBackend, Reply};
use crate::core::pretty;
use crate::core::program::Program;
use crate::core::term::{DefId, Plicity, RcTerm, Term};
use crate::diagnostic;
use crate::driver::{self, FileSnapshot, Loaded, SESSION_EXPR};
use crate::machine::Machine;
use crate::machine::stats::Stats;
use crate::syntax::parser::{self, ReplInput};
use crate::syntax::span::{FileId, SourceMap, Span};
use bumpalo::Bump;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One declaration input kept in the session.
#[derive(Debug, Clone)]
struct Kept {
    /// The input as typed (with `it` replaced by its value, see [`Session::freeze_it`]).
    text: String,
    /// The names it declares.
    names: Vec<String>,
    /// For the definition of `it` the session makes after an evaluation
    /// ([`Session::remember`]): the expression `it` stands for, closed (no `it` in
    /// it). `None` for the user's own inputs.
    it_body: Option<String>,
}

impl Kept {
    /// A declaration input of the user's.
    fn typed(text: String, names: Vec<String>) -> Kept {
        Kept {
            text,
            names,
            it_body: None,
        }
    }
}

/// The name of the last value evaluated.
pub const IT: &str = "it";

/// A value printed longer than this (in bytes) is not kept as its text for `it` (the
/// session checks its inputs again at every input): `it` is then the expression again.
pub const IT_VALUE_LIMIT: usize = 64 * 1024;

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
    /// The last input, when it was declarations: what an indented line continues.
    last_decl: Option<LastDecl>,
    /// Whether an evaluated expression's value is also kept as data (its text, type
    /// and JSON form) for [`Session::take_result`]: the Jupyter kernel shows it as
    /// rich output; the terminal REPL leaves it off and prints the reply only.
    keep_results: bool,
    /// The last expression's value as data, when `keep_results` is on.
    last_result: Option<Evaluated>,
}

/// An expression's value as data, for a frontend that shows more than the REPL's
/// `value : Type` line (the Jupyter kernel, see [`Session::keep_results`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluated {
    /// The value as the REPL prints it (a `String` quoted).
    pub text: String,
    /// Its type, as the REPL prints it.
    pub ty: String,
    /// The value as `spindle run --format json` prints it (one compact document).
    pub json: String,
}

impl Evaluated {
    /// Whether the value is of the prelude's `Json` type (the kernel also shows it as
    /// JSON display data).
    pub fn is_json(&self) -> bool {
        self.ty.trim() == "Json"
    }
}

/// How [`Session::evaluate`] shows a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Show {
    /// As `value : Type` (a `String` quoted), and the value becomes `it`.
    Value,
    /// `:print`: as `spindle run` prints it (a `String` raw), without its type.
    Print,
}

/// The last declaration input (see [`ReplBackend::extend`]).
#[derive(Debug, Clone)]
struct LastDecl {
    /// The input as typed.
    text: String,
    /// Whether it was kept (it checked), as the last entry of [`Session::kept`].
    kept: bool,
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
            last_decl: None,
            keep_results: false,
            last_result: None,
        }
    }

    /// Keeps every evaluated expression's value as data (text, type and JSON form)
    /// until [`Session::take_result`] takes it. Costs an evaluation to full normal
    /// form, so only a frontend that shows the JSON form turns it on.
    pub fn keep_results(&mut self, on: bool) {
        self.keep_results = on;
    }

    /// The value of the last expression evaluated since the last call, when
    /// [`Session::keep_results`] is on; `None` after a declaration, a command or an
    /// error.
    pub fn take_result(&mut self) -> Option<Evaluated> {
        self.last_result.take()
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

    /// Evaluates the expression definition `id` and prints `value : Type`. On success,
    /// also the value's text and the definition's type as source (for `it`).
    fn evaluate(
        &mut self,
        loaded: &Loaded,
        id: DefId,
        source: &str,
        how: Show,
    ) -> (Reply, Option<(String, String)>) {
        let Some(program) = &loaded.program else {
            return (Reply::err(loaded.render_errors()), None);
        };
        let ty = type_text(program, id, source);
        let start = Instant::now();
        let mut machine = Machine::new(program);
        self.interrupt.store(false, Ordering::SeqCst);
        machine.run.interrupt = Some(self.interrupt.clone());
        let sources = &loaded.sources;
        machine.options.user_file = Some(Box::new(move |f| driver::is_user_file(sources, f)));
        // The REPL evaluates with the same parallel scheduler as `spindle run`.
        crate::sched::Scheduler::install(&mut machine, crate::external::exec::Limits::default());
        let mut json = None;
        let result = match how {
            Show::Print => driver::evaluate_def(&mut machine, id, false),
            Show::Value if self.keep_results => {
                driver::evaluate_def_both(&mut machine, program, id).map(|(text, tree)| {
                    json = Some(crate::output::render_json(&tree));
                    text
                })
            }
            Show::Value => driver::evaluate_def(&mut machine, id, true),
        };
        machine.shutdown();
        let mut stats = machine.sight().stats();
        stats.wall_ms = start.elapsed().as_millis() as u64;
        self.last_stats = Some(stats);
        match result {
            Ok(text) if how == Show::Print => (Reply::out(format!("{text}\n")), None),
            Ok(text) => {
                let reply = Reply::out(format!("{text} : {ty}\n"));
                if let Some(json) = json {
                    self.last_result = Some(Evaluated {
                        text: text.clone(),
                        ty: ty.clone(),
                        json,
                    });
                }
                let source_ty =
                    pretty::term_to_string(program, &[], &expression_type(program, id, source));
                (reply, Some((text, source_ty)))
            }
            Err(e) => (
                Reply::err(diagnostic::render(&loaded.sources, &[e.to_diagnostic()])),
                None,
            ),
        }
    }

    /// Loads the session with `extra` after the kept inputs. When that has errors and
    /// the session has a definition of `it` of its own, tries again without it (the
    /// value of `it` may name a type that was redefined since): `true` then when that
    /// checks, and the caller forgets `it`.
    fn load_or_forget_it(
        &mut self,
        file: Option<&Path>,
        kept: &[Kept],
        extra: Option<&str>,
    ) -> (Loaded, bool) {
        let loaded = load_with(&mut self.snapshot, file, kept, extra);
        if !loaded.has_errors() || !kept.iter().any(|k| k.it_body.is_some()) {
            return (loaded, false);
        }
        let without: Vec<Kept> = kept
            .iter()
            .filter(|k| k.it_body.is_none())
            .cloned()
            .collect();
        let again = load_with(&mut self.snapshot, file, &without, extra);
        let ok = !again.has_errors();
        (again, ok)
    }

    /// Forgets the session's own definition of `it`; the note that says so.
    fn forget_it(&mut self) -> String {
        self.kept.retain(|k| k.it_body.is_none());
        format!("`{IT}` is forgotten: its value no longer checks\n")
    }

    /// The expression the `it` in scope stands for, when it is the session's own (the
    /// last value); `None` when there is none or the user defined `it`.
    fn it_body(&self) -> Option<&str> {
        self.kept
            .iter()
            .rev()
            .find(|k| k.names.iter().any(|n| n == IT))
            .and_then(|k| k.it_body.as_deref())
    }

    /// A declaration input with `it` (the last value) written out in place, so that
    /// what it declares keeps the value it was given (`y = it * 10` stays `30` when
    /// `it` changes), as a session's values do; `None` when it does not mention `it` or
    /// `it` is not the session's own.
    fn freeze_it(&self, text: &str) -> Option<String> {
        replace_it(text, self.it_body()?)
    }

    /// Makes `it` the value just evaluated: a definition of the session's own, its
    /// value's text with its type when that checks (the value is not computed again:
    /// no external is called again), otherwise the expression itself (with the earlier
    /// `it` written out in it), with its type or without. The earlier `it` is replaced.
    /// Nothing changes when none checks.
    fn remember(&mut self, expr: &str, value: &str, source_ty: &str) {
        let mut candidates: Vec<(String, String)> = Vec::new();
        if value.len() <= IT_VALUE_LIMIT {
            candidates.push((
                format!("def {IT} : {source_ty} = {value}"),
                format!("{value} : {source_ty}"),
            ));
        }
        let closed = if mentions_it(expr) {
            self.it_body().and_then(|body| replace_it(expr, body))
        } else {
            Some(expr.to_string())
        };
        if let Some(closed) = closed {
            candidates.push((
                format!("def {IT} : {source_ty} =\n{closed}\n"),
                format!("{closed}\n : {source_ty}"),
            ));
            candidates.push((format!("def {IT} =\n{closed}\n"), closed));
        }
        let earlier: Vec<Kept> = self
            .kept
            .iter()
            .filter(|k| k.it_body.is_none())
            .cloned()
            .collect();
        for (text, body) in candidates {
            let mut kept = earlier.clone();
            kept.push(Kept {
                text,
                names: vec![IT.to_string()],
                it_body: Some(body),
            });
            let loaded = load_with(&mut self.snapshot, self.file.as_deref(), &kept, None);
            if !loaded.has_errors() {
                self.kept = kept;
                self.current = loaded;
                return;
            }
        }
    }

    /// Checks a declaration input and keeps it.
    fn declare(&mut self, text: &str, names: Vec<String>) -> Reply {
        let kept = self.kept.clone();
        let file = self.file.clone();
        // A declaration that uses the last value keeps that value.
        let frozen = self.freeze_it(text).and_then(|frozen| {
            let loaded = load_with(&mut self.snapshot, file.as_deref(), &kept, Some(&frozen));
            (!loaded.has_errors()).then_some((frozen, loaded))
        });
        let (text, loaded, forgot_it) = match frozen {
            Some((frozen, loaded)) => (frozen, loaded, false),
            None => {
                let (loaded, forgot) = self.load_or_forget_it(file.as_deref(), &kept, Some(text));
                (text.to_string(), loaded, forgot)
            }
        };
        if loaded.has_errors() {
            return Reply::err(loaded.render_errors());
        }
        let text = text.as_str();
        let mut redefined = Vec::new();
        let mut shadowing = String::new();
        for name in &names {
            if self
                .kept
                .iter()
                .any(|k| k.it_body.is_none() && k.names.contains(name))
            {
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
        if forgot_it {
            notes.push_str(&self.forget_it());
        }
        notes.push_str(&declared_types(&loaded));
        self.kept.push(Kept::typed(text.to_string(), names));
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
        let (loaded, forgot_it) = self.load_or_forget_it(Some(&file), &kept, None);
        if loaded.has_errors() {
            let mut err = loaded.render_errors();
            if reload {
                err.push_str("the session keeps the file as it was read before\n");
            }
            self.snapshot = old_snapshot;
            return Reply::err(err);
        }
        self.last_decl = None;
        let forgotten = self.kept.iter().filter(|k| k.it_body.is_none()).count()
            - kept.iter().filter(|k| k.it_body.is_none()).count();
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
        if forgot_it {
            out.push_str(&self.forget_it());
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
        .map(|(_, name, ty)| format!("{name} : {}\n", pretty::type_to_string(program, &[], &ty)))
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

/// The type of the expression definition `id`, as shown to the user
/// ([`pretty::type_to_string`]). When the expression is a global name alone, that
/// global's declared type (the checker instantiates its implicit arguments, and those
/// nothing constrains would show as `Unit`).
fn type_text(program: &Program, id: DefId, source: &str) -> String {
    pretty::type_to_string(program, &[], &expression_type(program, id, source))
}

/// The type [`type_text`] shows.
fn expression_type(program: &Program, id: DefId, source: &str) -> RcTerm {
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
            Term::Extern(e, _) => program.external(*e).ty.clone(),
            _ => ty,
        };
    }
    ty
}

impl ReplBackend for Session {
    fn input(&mut self, text: &str) -> Reply {
        if text.trim().is_empty() {
            return Reply::default();
        }
        self.last_decl = None;
        match declarations(text) {
            Some((0, _)) => Reply::default(),
            Some((_, names)) => {
                let kept_before = self.kept.len();
                let reply = self.declare(text, names);
                self.last_decl = Some(LastDecl {
                    text: text.to_string(),
                    kept: self.kept.len() > kept_before,
                });
                reply
            }
            None => {
                // An input that does not parse may be the start of a declaration that
                // the next, indented lines complete.
                if starts_a_declaration(text) {
                    self.last_decl = Some(LastDecl {
                        text: text.to_string(),
                        kept: false,
                    });
                }
                match self.check_expr(text) {
                    Ok((loaded, id)) => {
                        let (reply, value) = self.evaluate(&loaded, id, text, Show::Value);
                        if let Some((value, source_ty)) = value {
                            self.remember(text, &value, &source_ty);
                        }
                        reply
                    }
                    Err(reply) => reply,
                }
            }
        }
    }

    fn last_declaration(&self) -> Option<&str> {
        self.last_decl.as_ref().map(|d| d.text.as_str())
    }

    fn extend(&mut self, more: &str) -> Option<Reply> {
        let last = self.last_decl.take()?;
        let whole = format!("{}\n{more}", last.text);
        // The earlier part is replaced by the whole, not redefined by it.
        let earlier = if last.kept { self.kept.pop() } else { None };
        let reply = self.input(&whole);
        let extended = self.last_decl.as_ref().is_some_and(|d| d.kept);
        if !extended && let Some(earlier) = earlier {
            // The whole does not check: the session keeps the earlier part.
            self.kept.push(earlier);
        }
        Some(reply)
    }

    fn browse(&self) -> Reply {
        let Some(program) = &self.current.program else {
            return Reply::err("error: the session does not check\n");
        };
        // Grouped by where the names are declared: this session, files, the prelude.
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for entry in scope_entries(program, &self.current.sources) {
            if entry.origin == THE_PRELUDE && is_prelude_internal(&entry.name) {
                continue;
            }
            let line = format!("{} : {}", entry.name, entry.ty);
            match groups.iter_mut().find(|(o, _)| *o == entry.origin) {
                Some((_, lines)) => lines.push(line),
                None => groups.push((entry.origin, vec![line])),
            }
        }
        groups.sort_by_key(|(o, _)| origin_rank(o));
        let mut out = String::new();
        for (origin, lines) in groups {
            out.push_str(&format!("-- {origin}\n"));
            for l in lines {
                out.push_str(&l);
                out.push('\n');
            }
        }
        Reply::out(out)
    }

    fn info(&self, name: &str) -> Reply {
        let Some(program) = &self.current.program else {
            return Reply::err("error: the session does not check\n");
        };
        if let Some(text) = info_text(program, &self.current.sources, name) {
            return Reply::out(text);
        }
        match builtin_info(name) {
            Some(text) => Reply::out(text),
            None => self.not_in_scope(name),
        }
    }

    fn split(&mut self, hole: &str, var: &str) -> Reply {
        let hole = hole.strip_prefix('?').unwrap_or(hole);
        let kept = self.kept.clone();
        let file = self.file.clone();
        let text = self.last_decl.as_ref().map(|d| d.text.clone());
        crate::check::split::request(hole, var);
        let _ = load_with(&mut self.snapshot, file.as_deref(), &kept, text.as_deref());
        crate::check::split::clear();
        match crate::check::split::take_answer() {
            Some(Ok(arms)) => Reply::out(arms.iter().map(|a| format!("{a}\n")).collect::<String>()),
            Some(Err(why)) => Reply::err(format!(
                "error: cannot split on `{var}` at `?{hole}`: {why}\n"
            )),
            None => Reply::err(format!(
                "error: no hole `?{hole}` in the last declaration or the loaded file\n"
            )),
        }
    }

    fn doc(&self, name: &str) -> Reply {
        let Some(program) = &self.current.program else {
            return Reply::err("error: the session does not check\n");
        };
        let sources = &self.current.sources;
        let entries = scope_entries(program, sources);
        let Some(e) = entries.iter().find(|e| e.name == name) else {
            // A primitive's description is its documentation.
            return match builtin_info(name) {
                Some(text) => Reply::out(text),
                None => self.not_in_scope(name),
            };
        };
        let mut out = format!("{name} : {}\n", e.ty);
        // A constructor is documented with its data type.
        let con_of = program
            .datas
            .iter()
            .find(|d| d.ctors.iter().any(|c| &*c.name == name && c.span == e.span));
        let doc = match con_of {
            Some(d) => {
                out.push_str(&format!("  -- a constructor of `{}`\n", d.name));
                crate::syntax::doc::doc_at(sources, d.span)
            }
            None if name == IT && e.origin == THIS_SESSION && self.it_body().is_some() => {
                Some("The last value evaluated.".to_string())
            }
            None => crate::syntax::doc::doc_at(sources, e.span),
        };
        match doc {
            Some(text) => {
                for line in text.lines() {
                    if line.is_empty() {
                        out.push('\n');
                    } else {
                        out.push_str(&format!("  {line}\n"));
                    }
                }
            }
            None => out.push_str(&format!(
                "  (`{name}` has no documentation: `--` lines directly above a definition \
                 document it)\n"
            )),
        }
        Reply::out(out)
    }

    fn print(&mut self, expr: &str) -> Reply {
        match self.check_expr(expr) {
            Ok((loaded, id)) => self.evaluate(&loaded, id, expr, Show::Print).0,
            Err(reply) => reply,
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
                // How far the evaluation goes (externals are not called here), then the
                // state halfway there.
                let mut probe = Machine::new(program);
                probe.options.externals_allowed = false;
                probe.run.step_limit = 20_000;
                let _ = probe.whnf_def(id);
                let total = probe.run.steps.max(1);
                let mut machine = Machine::new(program);
                machine.options.externals_allowed = false;
                machine.set_pause_after((total / 2).max(1));
                let _ = machine.whnf_def(id);
                Reply::out(machine.sight().draw_state())
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

/// `text` with every name `it` in it replaced by `(body)` (on a line of its own end,
/// so that a comment in `body` ends there); `None` when `text` has no name `it`.
fn replace_it(text: &str, body: &str) -> Option<String> {
    if text.len() > crate::syntax::span::MAX_SOURCE_BYTES {
        return None;
    }
    let arena = Bump::new();
    let mut lexer = crate::syntax::lexer::Lexer::new(&arena, FileId(0), text);
    let close = if body.contains("--") || body.contains('\n') {
        "\n)"
    } else {
        ")"
    };
    let mut out = String::new();
    let mut last = 0;
    loop {
        let tok = lexer.next_token();
        match tok.kind {
            crate::syntax::lexer::TokenKind::Eof => break,
            crate::syntax::lexer::TokenKind::Ident(IT) => {
                out.push_str(&text[last..tok.span.start as usize]);
                out.push('(');
                out.push_str(body);
                out.push_str(close);
                last = tok.span.end as usize;
            }
            _ => {}
        }
    }
    if last == 0 {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

impl Session {
    /// The error for a name that is not in scope, with a close name if there is one.
    fn not_in_scope(&self, name: &str) -> Reply {
        let mut message = format!("error: `{name}` is not in scope");
        let names = self.names();
        let candidates = names
            .iter()
            .map(String::as_str)
            .filter(|n| !KEYWORDS.contains(n));
        if let Some(best) = crate::check::scope::suggest(name, candidates) {
            message.push_str(&format!(" (did you mean `{best}`?)"));
        }
        message.push('\n');
        Reply::err(message)
    }
}

/// What `:info` (and `:doc`) say of a built-in name that no declaration has: the
/// primitive types, `Type`, `error` and the primitive operations.
fn builtin_info(name: &str) -> Option<String> {
    match name {
        "Int" | "Float" | "String" | "Char" => {
            Some(format!("{name} : Type\n  -- a primitive type\n"))
        }
        "Type" => Some("Type : Type 1\n  -- the type of types\n".to_string()),
        "error" => Some(
            "error : {a : Type} -> String -> a\n  -- a primitive: stops the program with \
             the message\n"
                .to_string(),
        ),
        _ => crate::prim::Prim::from_name(name)
            .map(|_| format!("{name}\n  -- a primitive operation\n")),
    }
}

/// Whether `text` has the name `it` in it.
fn mentions_it(text: &str) -> bool {
    replace_it(text, "").is_some()
}

/// Whether an input starts with a declaration keyword (`def`, `data`, `extern`).
fn starts_a_declaration(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    matches!(first, "def" | "data" | "extern")
}

/// Where a declaration comes from, for `:browse` and `:info`: "this session", the
/// file's name, or "the prelude".
fn origin(sources: &SourceMap, span: Span) -> String {
    let name = &sources.get(span.file).name;
    if name == driver::REPL_SOURCE {
        THIS_SESSION.to_string()
    } else if name.starts_with(driver::PRELUDE_PREFIX) {
        THE_PRELUDE.to_string()
    } else {
        name.clone()
    }
}

/// The prelude's internal helpers, which `:browse` leaves out (with every name
/// starting with `prim_`): the loops the machine runs pipelines as, the halves of
/// `sortBy`, `parseJson`, `renderJson` and `streamLines`. They stay in scope (`:info`
/// and `:doc` find them).
pub const PRELUDE_INTERNALS: &[&str] = &[
    "foldlRange",
    "filterRange",
    "mapFilterRange",
    "mergeBy",
    "mergeSorted",
    "parseJsonValue",
    "parseJsonItems",
    "parseJsonEntries",
    "renderJsonEntry",
    "streamLinesFrom",
    "streamLinesPieces",
];

/// Whether a prelude name is one of its internals ([`PRELUDE_INTERNALS`]), or a name
/// with a `'`: an instance or the helper of `deriving` (`instance'Show'Int`,
/// `derived'Show'Bool`, `derive'show`, which only the parser makes), or a part of a
/// prelude type's implementation (`map'balance`, `Map'Bin`, `sort'general`).
pub fn is_prelude_internal(name: &str) -> bool {
    name.starts_with("prim_") || PRELUDE_INTERNALS.contains(&name) || name.contains('\'')
}

/// The origin of the session's own declarations.
const THIS_SESSION: &str = "this session";

/// The origin of the prelude's declarations.
const THE_PRELUDE: &str = "the prelude";

/// Which origin's name is in scope when several declare it: the session's over the
/// files' over the prelude's (lowest first).
fn origin_rank(origin: &str) -> u8 {
    match origin {
        THIS_SESSION => 0,
        THE_PRELUDE => 2,
        _ => 1,
    }
}

/// A name in scope, for `:browse` and `:info`.
struct ScopeEntry {
    /// [`origin`] of its declaration.
    origin: String,
    /// The name.
    name: String,
    /// Its type, as Spindle source.
    ty: String,
    /// Where it is declared.
    span: Span,
}

/// Every name in scope, in declaration order (data types with their constructors,
/// externals, definitions). A name declared in several places is in scope once, as
/// [`origin_rank`] says; the session's expression definition is left out.
fn scope_entries(program: &Program, sources: &SourceMap) -> Vec<ScopeEntry> {
    let show = |ty: &RcTerm| pretty::type_to_string(program, &[], ty);
    let entry = |name: &str, ty: String, span: Span| ScopeEntry {
        origin: origin(sources, span),
        name: name.to_string(),
        ty,
        span,
    };
    let mut all = Vec::new();
    for (i, d) in program.datas.iter().enumerate() {
        let id = crate::core::term::DataId(i as u32);
        all.push(entry(&d.name, show(&program.data_type(id)), d.span));
        for (j, c) in d.ctors.iter().enumerate() {
            let con = crate::core::term::ConId {
                data: id,
                index: j as u32,
            };
            all.push(entry(&c.name, show(&program.con_type(con)), c.span));
        }
    }
    for e in &program.externs {
        all.push(entry(&e.name, show(&e.ty), e.span));
    }
    for d in program.defs.iter().filter(|d| &*d.name != SESSION_EXPR) {
        all.push(entry(&d.name, show(&d.ty), d.span));
    }
    // For each name, the declaration in scope (the later of two of one rank).
    let mut best: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, e) in all.iter().enumerate() {
        match best.get(e.name.as_str()) {
            Some(&j) if origin_rank(&all[j].origin) < origin_rank(&e.origin) => {}
            _ => {
                best.insert(e.name.as_str(), i);
            }
        }
    }
    let keep: std::collections::HashSet<usize> = best.into_values().collect();
    all.into_iter()
        .enumerate()
        .filter(|(i, _)| keep.contains(i))
        .map(|(_, e)| e)
        .collect()
}

/// What `:info NAME` prints for a declared name, or `None` when no declaration in
/// scope has that name.
fn info_text(program: &Program, sources: &SourceMap, name: &str) -> Option<String> {
    let entries = scope_entries(program, sources);
    let e = entries.iter().find(|e| e.name == name)?;
    let place = if e.origin == THIS_SESSION {
        "defined in this session".to_string()
    } else {
        format!("defined at {}", sources.location(e.span))
    };
    let ty = &e.ty;
    let data = program
        .datas
        .iter()
        .position(|d| &*d.name == name && d.span == e.span);
    let con_of = program
        .datas
        .iter()
        .find(|d| d.ctors.iter().any(|c| &*c.name == name && c.span == e.span));
    let is_extern = program
        .externs
        .iter()
        .any(|x| &*x.name == name && x.span == e.span);
    let mut out = String::new();
    // A constructor named like a type (issue 30): the type is shown first.
    let shared = con_of.and_then(|_| {
        program
            .datas
            .iter()
            .rposition(|d| &*d.name == name && !d.record)
    });
    if let Some(i) = shared {
        let dty = pretty::type_to_string(
            program,
            &[],
            &program.data_type(crate::core::term::DataId(i as u32)),
        );
        out.push_str(&format!("data {name} : {dty}\n"));
        for (j, c) in program.datas[i].ctors.iter().enumerate() {
            let con = crate::core::term::ConId {
                data: crate::core::term::DataId(i as u32),
                index: j as u32,
            };
            let cty = pretty::type_to_string(program, &[], &program.con_type(con));
            out.push_str(&format!("  {} : {cty}\n", c.name));
        }
    }
    if let Some(i) = data {
        out.push_str(&format!("data {name} : {ty}\n  -- {place}\n"));
        for (j, c) in program.datas[i].ctors.iter().enumerate() {
            let con = crate::core::term::ConId {
                data: crate::core::term::DataId(i as u32),
                index: j as u32,
            };
            let cty = pretty::type_to_string(program, &[], &program.con_type(con));
            out.push_str(&format!("  {} : {cty}\n", c.name));
        }
    } else if let Some(d) = con_of {
        out.push_str(&format!(
            "{name} : {ty}\n  -- a constructor of `{}`, {place}\n",
            d.name
        ));
    } else if is_extern {
        out.push_str(&format!("{name} : {ty}\n  -- an external, {place}\n"));
    } else {
        out.push_str(&format!("{name} : {ty}\n  -- {place}\n"));
    }
    Some(out)
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

    /// `:split h VAR` answers from the last declaration typed, even one refused for
    /// its hole (issue 31), and says why when it cannot.
    #[test]
    fn split_gives_the_arms_at_a_hole_of_the_last_declaration() {
        let mut s = Session::new();
        assert_eq!(
            line(&mut s, "data Tree = Leaf | Node Tree Int Tree").err,
            ""
        );
        let hole = line(&mut s, "def size (t : Tree) : Int = ?h");
        assert!(hole.err.contains("hole `?h` has type `Int`"), "{hole:?}");
        assert_eq!(
            line(&mut s, ":split h t"),
            Reply::out("| Leaf -> ?h\n| Node t1 n t2 -> ?h\n")
        );
        let bad = line(&mut s, ":split h size");
        assert!(bad.err.contains("cannot split on `size`"), "{bad:?}");
        let none = line(&mut s, ":split g t");
        assert!(none.err.contains("no hole `?g`"), "{none:?}");
        // The request is gone: the next input is checked as usual.
        assert_eq!(line(&mut s, "1 + 1"), Reply::out("2 : Int\n"));
    }

    #[test]
    fn print_writes_the_value_as_spindle_run_does() {
        let mut s = Session::new();
        assert_eq!(
            line(&mut s, ":print \"hello, world\""),
            Reply::out("hello, world\n")
        );
        assert_eq!(line(&mut s, ":p [1, 2]"), Reply::out("[1, 2]\n"));
        // It does not become `it`, and errors are errors.
        assert!(line(&mut s, "it").err.contains("it"));
        assert!(line(&mut s, ":print 1 + \"a\"").err.contains("error"));
        assert!(line(&mut s, ":print").err.contains("needs EXPR"));
    }

    #[test]
    fn kept_results_carry_type_and_json_form() {
        let mut s = Session::new();
        assert_eq!(line(&mut s, "1 + 2"), Reply::out("3 : Int\n"));
        assert_eq!(s.take_result(), None, "off by default");
        s.keep_results(true);
        assert_eq!(
            line(&mut s, "(1, \"a\")"),
            Reply::out("(1, \"a\") : (Int, String)\n")
        );
        let r = s.take_result().expect("a result");
        assert_eq!(r.json, "[1,\"a\"]");
        assert_eq!(r.ty, "(Int, String)");
        assert!(!r.is_json());
        assert_eq!(s.take_result(), None, "taken once");
        line(&mut s, "JObj [(\"a\", JArr [JNum 1.5, JBool True])]");
        let r = s.take_result().expect("a Json result");
        assert!(r.is_json(), "{r:?}");
        assert_eq!(r.json, "{\"a\":[1.5,true]}");
        line(&mut s, "def x = 1");
        assert_eq!(s.take_result(), None);
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
            Reply::out("(1, Just (-2)) : (Int, Maybe Int)\n")
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
    fn stack_shows_the_control_frames_and_records_with_types() {
        let mut s = Session::new();
        let r = line(&mut s, ":stack sum (map (\\x -> x * 2) [1, 2, 3])");
        assert!(r.err.is_empty(), "{}", r.err);
        let text = r.out;
        assert!(text.starts_with("control:\n"), "{text}");
        assert!(text.contains("frames (top first):\n"), "{text}");
        assert!(text.contains("update thunk"), "{text}");
        assert!(text.contains("records (contexts"), "{text}");
        // Context entries show their binder's name and type annotation, and where the
        // record's context continues (its end pointer).
        assert!(text.contains(" xs : List "), "{text}");
        assert!(text.contains("(continues in "), "{text}");
        // A parameter's type names the parameters before it (the type variables of
        // a polymorphic function), not de Bruijn indices.
        let xs = text.lines().find(|l| l.contains(" xs : List ")).unwrap();
        assert!(!xs.contains("free#"), "{xs}");
    }

    #[test]
    fn stack_names_the_type_variables_of_match_fields_and_lets() {
        let mut s = Session::new();
        line(
            &mut s,
            "def walk {a : Type} (acc : List a) (xs : List a) : List a = \
             match xs with | [] -> acc | y :: ys -> \
             let both : List a = y :: acc in \
             let n : Int = length both in if n > 100000 then both else walk both ys",
        );
        let r = line(&mut s, ":stack walk [] (range 0 50)");
        assert!(r.err.is_empty(), "{}", r.err);
        let slot = |name: &str| {
            let l = (r.out.lines())
                .find(|l| l.trim_start().split(' ').nth(1) == Some(name))
                .unwrap_or_else(|| panic!("no slot {name} in\n{}", r.out));
            l.split(" = ").next().unwrap().trim().to_string()
        };
        // A match arm's fields and a `let`'s binding are typed in the scope they are
        // bound in: the function's type parameter by its name.
        assert_eq!(slot("y"), "#0 y : a");
        assert_eq!(slot("ys"), "#1 ys : List a");
        assert_eq!(slot("both"), "#0 both : List a");
        assert!(!r.out.contains("free#"), "{}", r.out);
    }

    #[test]
    fn browse_lists_the_names_in_scope_by_origin() {
        let path = scratch(
            "browse.sp",
            "def answer : Int = 41\ndef sum (xs : List Int) : Int = 0\n",
        );
        let mut s = Session::new();
        line(&mut s, &format!(":load {}", path.display()));
        line(&mut s, "data Color = Red | Green");
        line(&mut s, "def answer : Int = 42");
        let r = line(&mut s, ":browse");
        assert!(r.err.is_empty(), "{}", r.err);
        let text = r.out;
        let session =
            text.find("-- this session\nColor : Type\nRed : Color\nGreen : Color\nanswer : Int\n");
        let file = text.find(&format!("-- {}\nsum : List Int -> Int\n", path.display()));
        let prelude = text.find("-- the prelude\n");
        assert!(
            session.is_some() && file.is_some() && prelude.is_some(),
            "{text}"
        );
        assert!(session < file && file < prelude, "{text}");
        assert!(
            text.contains("\nmap : {a : Type} -> {b : Type} -> (a -> b) -> List a -> List b\n")
        );
        // Each name once: the one in scope (the file's `sum`, the session's `answer`).
        assert_eq!(text.matches("\nsum : ").count(), 1, "{text}");
        assert_eq!(text.matches("\nanswer : ").count(), 1, "{text}");
        assert!(!text.contains(SESSION_EXPR));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn info_gives_type_place_and_constructors() {
        let mut s = Session::new();
        line(&mut s, "data Shape = Circle Float | Rect Int Int");
        assert_eq!(
            line(&mut s, ":info Shape"),
            Reply::out(
                "data Shape : Type\n  -- defined in this session\n  Circle : Float -> Shape\n  Rect : Int -> Int -> Shape\n"
            )
        );
        assert_eq!(
            line(&mut s, ":info Rect"),
            Reply::out(
                "Rect : Int -> Int -> Shape\n  -- a constructor of `Shape`, defined in this session\n"
            )
        );
        assert_eq!(
            line(&mut s, ":i Maybe"),
            Reply::out(
                "data Maybe : Type -> Type\n  -- defined at <prelude>/types.sp:11:6\n  Nothing : {a : Type} -> Maybe a\n  Just : {a : Type} -> a -> Maybe a\n"
            )
        );
        let r = line(&mut s, ":info foldr");
        assert!(r.out.starts_with("foldr : {a : Type} -> {b : Type} -> (a -> b -> b) -> b -> List a -> b\n  -- defined at <prelude>/list.sp:"), "{}", r.out);
        assert!(
            line(&mut s, ":info readFile")
                .out
                .contains("-- an external, defined at <prelude>/external.sp:")
        );
        assert!(line(&mut s, ":info Int").out.starts_with("Int : Type\n"));
        assert_eq!(
            line(&mut s, ":info fodlr"),
            Reply::err("error: `fodlr` is not in scope (did you mean `foldr`?)\n")
        );
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

    #[test]
    fn it_is_the_last_value() {
        let mut s = Session::new();
        // Before any value, `it` is an unbound name as any other.
        assert!(line(&mut s, "it").err.contains("unbound name `it`"));
        assert_eq!(line(&mut s, "1 + 2"), Reply::out("3 : Int\n"));
        assert_eq!(line(&mut s, "it * 10"), Reply::out("30 : Int\n"));
        assert_eq!(line(&mut s, ":type it"), Reply::out("it : Int\n"));
        assert_eq!(line(&mut s, "\"a\""), Reply::out("\"a\" : String\n"));
        assert_eq!(line(&mut s, "it ++ \"b\""), Reply::out("\"ab\" : String\n"));
        // An input that fails leaves `it` as it was.
        assert!(line(&mut s, "1 / 0").err.contains("division by zero"));
        assert!(line(&mut s, "it * 2").err.starts_with("error"));
        assert_eq!(line(&mut s, "it"), Reply::out("\"ab\" : String\n"));
        // Its type is the value's, tuples included.
        line(&mut s, "(1, \"a\", True)");
        assert_eq!(
            line(&mut s, ":type it"),
            Reply::out("it : (Int, String, Bool)\n")
        );
        // After a polymorphic name alone, `it` has the name's type.
        line(&mut s, "map");
        assert_eq!(
            line(&mut s, "it (\\x -> x + 1) [1]"),
            Reply::out("[2] : List Int\n")
        );
        assert_eq!(
            line(&mut s, "(it, it)"),
            Reply::out("([2], [2]) : (List Int, List Int)\n")
        );
        // It is not in the way of the user's own `it`, and comes back with the next value.
        let r = line(&mut s, "def it = 5");
        assert_eq!(r, Reply::out("it : Int\n"));
        assert_eq!(line(&mut s, "it + 1"), Reply::out("6 : Int\n"));
        assert_eq!(line(&mut s, "it + 1"), Reply::out("7 : Int\n"));
        assert!(s.names().contains(&"it".to_string()));
    }

    #[test]
    fn a_definition_that_uses_it_keeps_its_value() {
        let mut s = Session::new();
        line(&mut s, "1 + 2");
        assert_eq!(line(&mut s, "y = it * 10"), Reply::out("y : Int\n"));
        line(&mut s, "\"now a string\"");
        assert_eq!(
            line(&mut s, "it"),
            Reply::out("\"now a string\" : String\n")
        );
        assert_eq!(line(&mut s, "y"), Reply::out("30 : Int\n"));
    }

    #[test]
    fn it_is_not_computed_again() {
        // Each evaluation of the call appends a line to a file and answers how many
        // lines there are: `it` must keep the first answer.
        let dir = scratch("counter.txt", "").parent().unwrap().to_path_buf();
        let counter = dir.join("counter.txt");
        let mut s = Session::new();
        let call = format!(
            "trim (shell \"echo x >> '{}'; wc -l < '{}'\")",
            counter.display(),
            counter.display()
        );
        assert_eq!(line(&mut s, &call), Reply::out("\"1\" : String\n"));
        assert_eq!(line(&mut s, "it"), Reply::out("\"1\" : String\n"));
        assert_eq!(line(&mut s, "it ++ it"), Reply::out("\"11\" : String\n"));
        assert_eq!(std::fs::read_to_string(&counter).unwrap(), "x\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn it_is_forgotten_when_its_type_is_redefined() {
        let mut s = Session::new();
        line(&mut s, "data Color = Red | Green");
        assert_eq!(line(&mut s, "Red"), Reply::out("Red : Color\n"));
        let r = line(&mut s, "data Color = Blue");
        assert!(r.err.is_empty(), "{}", r.err);
        assert!(r.out.contains("`it` is forgotten"), "{}", r.out);
        assert!(r.out.contains("Blue : Color"), "{}", r.out);
        assert!(line(&mut s, "it").err.contains("unbound name `it`"));
        assert_eq!(line(&mut s, "Blue"), Reply::out("Blue : Color\n"));
        assert_eq!(line(&mut s, "it"), Reply::out("Blue : Color\n"));
    }

    #[test]
    fn definitions_without_def() {
        let mut s = Session::new();
        assert_eq!(line(&mut s, "x = 40"), Reply::out("x : Int\n"));
        assert_eq!(line(&mut s, "x + 2"), Reply::out("42 : Int\n"));
        assert_eq!(line(&mut s, "x == 40"), Reply::out("True : Bool\n"));
        assert_eq!(
            line(&mut s, "f (a : Int) (b : Int) = a * b"),
            Reply::out("f : Int -> Int -> Int\n")
        );
        assert_eq!(line(&mut s, "f 6 7"), Reply::out("42 : Int\n"));
        assert_eq!(
            line(&mut s, "g : Int -> Int = \\n -> n + x"),
            Reply::out("g : Int -> Int\n")
        );
        assert_eq!(line(&mut s, "g 2"), Reply::out("42 : Int\n"));
        let r = line(&mut s, "x = 1");
        assert!(r.out.contains("`x` redefined"), "{r:?}");
        assert_eq!(line(&mut s, "g 2"), Reply::out("3 : Int\n"));
        // An ill-typed one is refused like a `def`.
        assert!(line(&mut s, "x = 1 + \"a\"").err.contains("type mismatch"));
        assert_eq!(line(&mut s, "x"), Reply::out("1 : Int\n"));
        assert!(
            line(&mut s, ":type x = 2")
                .err
                .contains("expected an expression")
        );
    }

    #[test]
    fn doc_shows_type_and_documentation() {
        let mut s = Session::new();
        let r = line(&mut s, ":doc try");
        assert!(
            r.out.starts_with(
                "try : {a : Type} -> a -> Either String a\n  `try x` evaluates `x` to normal form;"
            ),
            "{r:?}"
        );
        assert_eq!(
            line(&mut s, ":doc range"),
            Reply::out(
                "range : Int -> Int -> List Int\n  `range a b` is [a, a + 1, ..., b - 1].\n"
            )
        );
        // Comment lines directly above a definition typed at the prompt.
        assert_eq!(
            line(&mut s, "-- Adds one.\n-- To an Int.\ninc (n : Int) = n + 1"),
            Reply::out("inc : Int -> Int\n")
        );
        assert_eq!(
            line(&mut s, ":doc inc"),
            Reply::out("inc : Int -> Int\n  Adds one.\n  To an Int.\n")
        );
        line(
            &mut s,
            "-- Pairs.\ndef both (n : Int) : Pair Int Int = (n, n)",
        );
        assert_eq!(
            line(&mut s, ":d both"),
            Reply::out("both : Int -> (Int, Int)\n  Pairs.\n")
        );
        // Without documentation, and unknown.
        line(&mut s, "plain = 1");
        assert_eq!(
            line(&mut s, ":doc plain"),
            Reply::out(
                "plain : Int\n  (`plain` has no documentation: `--` lines directly above a \
                 definition document it)\n"
            )
        );
        assert_eq!(
            line(&mut s, ":doc fodlr"),
            Reply::err("error: `fodlr` is not in scope (did you mean `foldr`?)\n")
        );
        assert!(
            line(&mut s, ":doc Just")
                .out
                .starts_with("Just : {a : Type} -> a -> Maybe a\n  -- a constructor of `Maybe`\n")
        );
        assert!(line(&mut s, ":doc Int").out.contains("a primitive type"));
        line(&mut s, "1 + 1");
        assert_eq!(
            line(&mut s, ":doc it"),
            Reply::out("it : Int\n  The last value evaluated.\n")
        );
    }

    #[test]
    fn doc_of_a_loaded_file() {
        let path = scratch(
            "doc.sp",
            "-- Not documentation: a blank line follows.\n\n\
             -- The answer, checked by hand.\ndef answer : Int = 42\n\n\
             -- Colours.\ndata Color = Red | Green\n",
        );
        let mut s = Session::new();
        line(&mut s, &format!(":load {}", path.display()));
        assert_eq!(
            line(&mut s, ":doc answer"),
            Reply::out("answer : Int\n  The answer, checked by hand.\n")
        );
        assert_eq!(
            line(&mut s, ":doc Color"),
            Reply::out("Color : Type\n  Colours.\n")
        );
        assert_eq!(
            line(&mut s, ":doc Green"),
            Reply::out("Green : Color\n  -- a constructor of `Color`\n  Colours.\n")
        );
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn browse_leaves_out_the_prelude_internals() {
        let mut s = Session::new();
        line(&mut s, "def mergeBy (x : Int) : Int = x");
        line(&mut s, "mine = 1");
        let text = line(&mut s, ":browse").out;
        assert!(
            text.starts_with("-- this session\nmergeBy : Int -> Int\nmine : Int\n"),
            "{text}"
        );
        assert!(!text.contains("prim_"), "{text}");
        for internal in PRELUDE_INTERNALS {
            if *internal != "mergeBy" {
                assert!(
                    !text.contains(&format!("\n{internal} : ")),
                    "{internal}: {text}"
                );
            }
        }
        assert!(text.contains("\nsortBy : "), "{text}");
        assert!(text.contains("\nstreamLines : "), "{text}");
        assert!(
            text.contains(
                "\nunzip : {a : Type} -> {b : Type} -> List (a, b) -> (List a, List b)\n"
            ),
            "{text}"
        );
        // They stay in scope.
        assert!(
            line(&mut s, ":info foldlRange")
                .out
                .starts_with("foldlRange : ")
        );
    }

    #[test]
    fn every_listed_internal_is_in_the_prelude() {
        let s = Session::new();
        let program = s.current.program.as_ref().expect("the prelude checks");
        for name in PRELUDE_INTERNALS {
            assert!(
                program.defs.iter().any(|d| &*d.name == *name),
                "`{name}` is not a prelude definition"
            );
        }
    }

    #[test]
    fn tuple_types_are_shown_as_written() {
        let mut s = Session::new();
        assert_eq!(
            line(&mut s, ":type [(1, (2, \"x\"))]"),
            Reply::out("[(1, (2, \"x\"))] : List (Int, Int, String)\n")
        );
        assert_eq!(
            line(&mut s, ":type Just ((1, 2), 3)"),
            Reply::out("Just ((1, 2), 3) : Maybe ((Int, Int), Int)\n")
        );
        assert_eq!(
            line(&mut s, ":type fst"),
            Reply::out("fst : {a : Type} -> {b : Type} -> (a, b) -> a\n")
        );
        assert_eq!(
            line(&mut s, ":type zip"),
            Reply::out("zip : {a : Type} -> {b : Type} -> List a -> List b -> List (a, b)\n")
        );
        let r = line(&mut s, "def p : Int = (1, \"a\")");
        assert!(
            r.err.contains("expected `Int`, found `(Int, String)`"),
            "{}",
            r.err
        );
    }
}
