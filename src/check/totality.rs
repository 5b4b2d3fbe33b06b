//! Totality (issue 31): whether a definition, and everything it uses, is sure to give
//! a value: every recursive call is structural, every `match` covers every case, and
//! nothing calls `error`, an external or a hole.
//!
//! A well-typed program never goes wrong at run time, but it may loop or stop at a
//! case no arm covers; as a logic, its types are consistent only for total
//! definitions (`def absurd : Void = absurd` has a type it does not deserve). `total
//! def` asks for this check, and `spindle check --total` makes it for every
//! definition of the program.
//!
//! # Structural recursion
//!
//! The check works on core terms after elaboration. Each definition's leading
//! lambdas are its parameters. A variable bound by a constructor pattern in a `match`
//! on a parameter (or on a variable already known smaller than one) is *smaller* than
//! that parameter; a `match`'s catch-all binds the scrutinee itself, the same size.
//! A group of mutually recursive definitions terminates if one parameter can be
//! chosen per definition such that every call within the group passes, at the
//! callee's chosen parameter, something smaller than the caller's chosen parameter.
//! A definition that calls only itself may also decrease lexicographically on two
//! parameters (the first smaller, or the same and the second smaller: Ackermann's
//! function). Recursion through a local `let`, a call under a lambda, or a recursive
//! function passed partially applied is not seen through: such a definition is not
//! total.

use crate::core::program::Program;
use crate::core::term::{CasePat, DefId, Ix, Match, RcTerm, Term};
use crate::prim::Prim;
use crate::syntax::span::Span;
use std::collections::HashMap;

/// Why a definition is not total, with the place that shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum NotTotal {
    /// A recursive call (to the definition itself, or within its group) that is not
    /// on a structurally smaller argument.
    Recursion { callee: DefId },
    /// A `match` (at its keyword) that does not cover every case.
    MissingCase(Span),
    /// A call of `error`.
    CallsError(Span),
    /// A call of an external: its answer is not known to come.
    CallsExternal(Span),
    /// A typed hole.
    Hole(Span),
    /// A recursive local `let`, whose termination is not checked (somewhere in it, if
    /// it has a place).
    LocalRecursion(Option<Span>),
    /// It uses a definition that is not total.
    Uses(DefId, Box<NotTotal>),
}

/// How a variable stands to a definition's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Size {
    /// Parameter `i` itself.
    Param(usize),
    /// Strictly smaller than parameter `i`.
    Below(usize),
    /// Nothing known.
    Unknown,
}

/// How an argument of a call stands to the caller's parameter `i`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rel {
    Smaller,
    Same,
    Unrelated,
}

/// One call within a recursive group: callee, and for each of the callee's parameter
/// positions, the argument's size relative to the caller's parameters.
struct Call {
    callee: DefId,
    args: Vec<Size>,
}

/// What one definition's body shows, on its own.
#[derive(Default)]
struct Local {
    /// Parameters (leading lambdas).
    params: usize,
    /// Definitions referred to.
    uses: Vec<DefId>,
    /// Calls of definitions, with their arguments' sizes (filled for every callee;
    /// only those within the group matter).
    calls: Vec<Call>,
    /// References to definitions not in a call's head with all their parameters
    /// (passed on, partially applied): recursive ones defeat the check.
    bare: Vec<DefId>,
    /// The first problem met inside the body itself.
    problem: Option<NotTotal>,
}

/// The totality checker over one program, remembering its answers.
pub struct Totality<'p> {
    prog: &'p Program,
    answers: HashMap<DefId, Result<(), NotTotal>>,
    locals: HashMap<DefId, Local>,
}

impl<'p> Totality<'p> {
    /// A checker for `prog` (elaborated and substituted: no unknowns left).
    pub fn new(prog: &'p Program) -> Totality<'p> {
        Totality {
            prog,
            answers: HashMap::new(),
            locals: HashMap::new(),
        }
    }

    /// Whether definition `d` is total, and if not, why.
    pub fn check(&mut self, d: DefId) -> Result<(), NotTotal> {
        if let Some(a) = self.answers.get(&d) {
            return a.clone();
        }
        // The definitions `d` reaches, and the strongly connected components among
        // them (Tarjan's algorithm, without recursion), callees first.
        let sccs = self.components(d);
        for scc in sccs {
            let verdict = self.component(&scc);
            for m in scc {
                self.answers.insert(
                    m,
                    verdict.clone().map_err(|(who, why)| {
                        if who == m {
                            why
                        } else {
                            NotTotal::Uses(who, Box::new(why))
                        }
                    }),
                );
            }
        }
        self.answers.get(&d).cloned().unwrap_or(Ok(()))
    }

    /// The verdict on one component (callees answered already): the member at fault
    /// and why, if any.
    fn component(&mut self, scc: &[DefId]) -> Result<(), (DefId, NotTotal)> {
        for &m in scc {
            let local = self.local(m);
            if let Some(p) = &local.problem {
                return Err((m, p.clone()));
            }
        }
        for &m in scc {
            let uses = self.local(m).uses.clone();
            for u in uses {
                if scc.contains(&u) {
                    continue;
                }
                if let Some(Err(why)) = self.answers.get(&u) {
                    return Err((m, NotTotal::Uses(u, Box::new(why.clone()))));
                }
            }
        }
        self.terminates(scc)
    }

    /// Whether the calls within a component are structural.
    fn terminates(&mut self, scc: &[DefId]) -> Result<(), (DefId, NotTotal)> {
        // A definition of the group passed on without all its arguments, or a call
        // with too few, is not followed.
        for &m in scc {
            let local = self.local(m);
            if let Some(&b) = local.bare.iter().find(|b| scc.contains(b)) {
                return Err((m, NotTotal::Recursion { callee: b }));
            }
        }
        let calls: Vec<(DefId, &Call)> = scc
            .iter()
            .flat_map(|&m| {
                self.locals[&m]
                    .calls
                    .iter()
                    .filter(|c| scc.contains(&c.callee))
                    .map(move |c| (m, c))
            })
            .collect();
        if calls.is_empty() {
            return Ok(());
        }
        let params: Vec<usize> = scc.iter().map(|m| self.locals[m].params).collect();
        let index = |d: DefId| scc.iter().position(|m| *m == d).unwrap_or(0);
        let rel = |call: &Call, at: usize, caller_param: usize| -> Rel {
            match call.args.get(at) {
                Some(Size::Below(i)) if *i == caller_param => Rel::Smaller,
                Some(Size::Param(i)) if *i == caller_param => Rel::Same,
                _ => Rel::Unrelated,
            }
        };
        // One parameter per member, every call smaller there.
        let mut choice = vec![0usize; scc.len()];
        if search(&params, &mut choice, 0, &|choice: &[usize]| {
            calls.iter().all(|(caller, call)| {
                let (f, g) = (index(*caller), index(call.callee));
                rel(call, choice[g], choice[f]) == Rel::Smaller
            })
        }) {
            return Ok(());
        }
        // A definition calling only itself: two parameters, lexicographically.
        if let [only] = scc {
            let n = self.locals[only].params;
            for i in 0..n {
                for j in 0..n {
                    let ok = calls.iter().all(|(_, call)| match rel(call, i, i) {
                        Rel::Smaller => true,
                        Rel::Same => rel(call, j, j) == Rel::Smaller,
                        Rel::Unrelated => false,
                    });
                    if i != j && ok {
                        return Ok(());
                    }
                }
            }
        }
        let (caller, call) = calls[0];
        Err((
            caller,
            NotTotal::Recursion {
                callee: call.callee,
            },
        ))
    }

    /// The components among the definitions `d` reaches, callees before callers.
    fn components(&mut self, d: DefId) -> Vec<Vec<DefId>> {
        struct Tarjan {
            index: HashMap<DefId, (usize, usize)>,
            stack: Vec<DefId>,
            on_stack: std::collections::HashSet<DefId>,
            next: usize,
            out: Vec<Vec<DefId>>,
        }
        let mut t = Tarjan {
            index: HashMap::new(),
            stack: Vec::new(),
            on_stack: Default::default(),
            next: 0,
            out: Vec::new(),
        };
        // Explicit work stack: (definition, next use to look at).
        let mut work: Vec<(DefId, usize)> = Vec::new();
        let visit = |t: &mut Tarjan, work: &mut Vec<(DefId, usize)>, v: DefId| {
            t.index.insert(v, (t.next, t.next));
            t.next += 1;
            t.stack.push(v);
            t.on_stack.insert(v);
            work.push((v, 0));
        };
        if self.answers.contains_key(&d) {
            return Vec::new();
        }
        visit(&mut t, &mut work, d);
        while let Some(&(v, k)) = work.last() {
            if let Some(w) = self.local(v).uses.get(k).copied() {
                if let Some(top) = work.last_mut() {
                    top.1 += 1;
                }
                if self.answers.contains_key(&w) {
                    continue;
                }
                match t.index.get(&w) {
                    None => visit(&mut t, &mut work, w),
                    Some(&(wi, _)) if t.on_stack.contains(&w) => {
                        let e = t.index.get_mut(&v).expect("visited");
                        e.1 = e.1.min(wi);
                    }
                    Some(_) => {}
                }
                continue;
            }
            work.pop();
            let (vi, vl) = t.index[&v];
            if let Some(&(parent, _)) = work.last() {
                let e = t.index.get_mut(&parent).expect("visited");
                e.1 = e.1.min(vl);
            }
            if vi == vl {
                let mut scc = Vec::new();
                while let Some(w) = t.stack.pop() {
                    t.on_stack.remove(&w);
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                t.out.push(scc);
            }
        }
        t.out
    }

    /// What definition `d`'s body shows on its own (computed once).
    fn local(&mut self, d: DefId) -> &Local {
        if !self.locals.contains_key(&d) {
            let local = Walk::body(self.prog, &self.prog.def(d).body);
            self.locals.insert(d, local);
        }
        &self.locals[&d]
    }
}

/// Tries every choice of one parameter per member (`params[k]` of them), from member
/// `k` on, until `ok` holds.
fn search(params: &[usize], choice: &mut [usize], k: usize, ok: &dyn Fn(&[usize]) -> bool) -> bool {
    if k == params.len() {
        return ok(choice);
    }
    for i in 0..params[k] {
        choice[k] = i;
        if search(params, choice, k + 1, ok) {
            return true;
        }
    }
    false
}

/// A walk over one definition's body.
struct Walk<'p> {
    prog: &'p Program,
    /// The size of each variable in scope, outermost first.
    sizes: Vec<Size>,
    local: Local,
}

impl<'p> Walk<'p> {
    fn body(prog: &'p Program, body: &RcTerm) -> Local {
        let mut w = Walk {
            prog,
            sizes: Vec::new(),
            local: Local::default(),
        };
        let mut t = body;
        while let Term::Lam(_, inner) = &**t {
            w.sizes.push(Size::Param(w.local.params));
            w.local.params += 1;
            t = inner;
        }
        let mut work = vec![(t.clone(), w.sizes.clone())];
        while let Some((t, sizes)) = work.pop() {
            w.sizes = sizes;
            w.term(&t, &mut work);
        }
        w.local
    }

    fn problem(&mut self, p: NotTotal) {
        if self.local.problem.is_none() {
            self.local.problem = Some(p);
        }
    }

    fn size_of(&self, t: &Term) -> Size {
        match t {
            Term::Var(Ix(i)) => {
                let n = self.sizes.len();
                match (*i as usize) < n {
                    true => self.sizes[n - 1 - *i as usize],
                    false => Size::Unknown,
                }
            }
            Term::Ann(inner, _) => self.size_of(inner),
            _ => Size::Unknown,
        }
    }

    /// Looks at `t` with the sizes in force; what lies under new binders is queued on
    /// `work` with the sizes it sees.
    fn term(&mut self, t: &RcTerm, work: &mut Vec<(RcTerm, Vec<Size>)>) {
        match &**t {
            Term::Var(_)
            | Term::Data(_)
            | Term::Con(_)
            | Term::PrimType(_)
            | Term::Lit(_)
            | Term::Universe(_)
            | Term::Pi(..) => {}
            Term::Prim(Prim::Error, span) => self.problem(NotTotal::CallsError(*span)),
            Term::Prim(..) => {}
            Term::Extern(_, span) => self.problem(NotTotal::CallsExternal(*span)),
            Term::Hole(_, span) => self.problem(NotTotal::Hole(*span)),
            Term::Def(d) => {
                self.local.uses.push(*d);
                if lambdas(&self.prog.def(*d).body) == 0 {
                    // A definition without parameters is called by naming it.
                    self.local.calls.push(Call {
                        callee: *d,
                        args: Vec::new(),
                    });
                } else {
                    self.local.bare.push(*d);
                }
            }
            Term::Ann(inner, _) => work.push((inner.clone(), self.sizes.clone())),
            Term::Lam(_, body) => work.push((body.clone(), under(&self.sizes, &[Size::Unknown]))),
            Term::App(..) => {
                let (head, args) = crate::core::term::spine(t);
                if let Term::Def(d) = &**head {
                    let wanted = lambdas(&self.prog.def(*d).body);
                    self.local.uses.push(*d);
                    if args.len() >= wanted {
                        let sizes = args
                            .iter()
                            .take(wanted)
                            .map(|(_, a)| self.size_of(a))
                            .collect();
                        self.local.calls.push(Call {
                            callee: *d,
                            args: sizes,
                        });
                    } else {
                        self.local.bare.push(*d);
                    }
                } else {
                    work.push((head.clone(), self.sizes.clone()));
                }
                for (_, a) in args {
                    work.push((a.clone(), self.sizes.clone()));
                }
            }
            Term::Let(_, rhs, body) => {
                if mentions_var0(rhs) {
                    self.problem(NotTotal::LocalRecursion(span_of(rhs)));
                }
                let size = match &**rhs {
                    // An alias keeps what it names (seen from under the binder).
                    Term::Var(Ix(i)) if *i > 0 => {
                        let n = self.sizes.len();
                        let j = (*i - 1) as usize;
                        if j < n {
                            self.sizes[n - 1 - j]
                        } else {
                            Size::Unknown
                        }
                    }
                    _ => Size::Unknown,
                };
                let inner = under(&self.sizes, &[size]);
                work.push((rhs.clone(), inner.clone()));
                work.push((body.clone(), inner));
            }
            Term::Match(m) => self.matching(m, work),
        }
    }

    fn matching(&mut self, m: &Match, work: &mut Vec<(RcTerm, Vec<Size>)>) {
        if !self.covers(m) {
            self.problem(NotTotal::MissingCase(m.span));
        }
        work.push((m.scrut.clone(), self.sizes.clone()));
        let scrut = self.size_of(&m.scrut);
        let field = match scrut {
            Size::Param(i) | Size::Below(i) => Size::Below(i),
            Size::Unknown => Size::Unknown,
        };
        for arm in &m.arms {
            let n = arm.pat.arity();
            work.push((arm.body.clone(), under(&self.sizes, &vec![field; n])));
        }
        if let Some((_, body)) = &m.default {
            work.push((body.clone(), under(&self.sizes, &[scrut])));
        }
    }

    /// Whether a `match` covers every case: a catch-all, or an arm for every
    /// constructor of the scrutinee's data type.
    fn covers(&self, m: &Match) -> bool {
        if m.default.is_some() {
            return true;
        }
        let mut seen: Vec<u32> = Vec::new();
        let mut data = None;
        for arm in &m.arms {
            match &arm.pat {
                CasePat::Con(c, _) => {
                    data = Some(c.data);
                    if !seen.contains(&c.index) {
                        seen.push(c.index);
                    }
                }
                CasePat::Lit(_) => return false,
            }
        }
        match data {
            Some(d) => seen.len() == self.prog.data(d).ctors.len(),
            None => false,
        }
    }
}

/// The sizes in scope under `extra` new binders (outermost first).
fn under(sizes: &[Size], extra: &[Size]) -> Vec<Size> {
    let mut s = sizes.to_vec();
    s.extend_from_slice(extra);
    s
}

/// How many leading lambdas a definition's value has (its parameters).
fn lambdas(body: &RcTerm) -> usize {
    let mut n = 0;
    let mut t = body;
    while let Term::Lam(_, inner) = &**t {
        n += 1;
        t = inner;
    }
    n
}

/// Whether `t` mentions the variable of index 0 (free in `t`).
fn mentions_var0(t: &RcTerm) -> bool {
    let mut found = false;
    crate::core::subst::rewrite(t, &mut |node, d| {
        if let Term::Var(Ix(i)) = &**node
            && *i == d
        {
            found = true;
        }
        None
    });
    found
}

/// Some place inside `t`, for a message (a primitive's or a `match`'s), if any.
fn span_of(t: &RcTerm) -> Option<Span> {
    let mut at = None;
    crate::core::subst::rewrite(t, &mut |node, _| {
        if at.is_none() {
            match &**node {
                Term::Prim(_, s) | Term::Extern(_, s) | Term::Hole(_, s) => at = Some(*s),
                Term::Match(m) => at = Some(m.span),
                _ => {}
            }
        }
        None
    });
    at
}

/// Whether `spindle check --total` asked for every definition to be checked.
static CHECK_ALL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes every definition of the program (not the prelude) checked for totality, as
/// `spindle check --total` does.
pub fn set_check_all(all: bool) {
    CHECK_ALL.store(all, std::sync::atomic::Ordering::Relaxed);
}

/// The errors for the definitions of `prog` outside the prelude's files that must be
/// total and are not: those marked `total def`, or all of them after
/// [`set_check_all`].
pub fn report(
    prog: &Program,
    prelude_files: &std::collections::HashSet<crate::syntax::span::FileId>,
) -> Vec<crate::diagnostic::Diagnostic> {
    let all = CHECK_ALL.load(std::sync::atomic::Ordering::Relaxed);
    let mut checker = Totality::new(prog);
    let mut out = Vec::new();
    for (i, def) in prog.defs.iter().enumerate() {
        let marked = def.role == crate::syntax::ast::DefRole::Total;
        if prelude_files.contains(&def.span.file) || !(marked || all) {
            continue;
        }
        let d = DefId(i as u32);
        if let Err(why) = checker.check(d) {
            out.push(diagnostic(prog, d, &why, marked));
        }
    }
    out
}

/// The error for definition `d`, not total because of `why`.
fn diagnostic(
    prog: &Program,
    d: DefId,
    why: &NotTotal,
    marked: bool,
) -> crate::diagnostic::Diagnostic {
    let def = prog.def(d);
    let head = if marked {
        format!("`{}` is marked total, but", def.name)
    } else {
        format!("`{}` is not total:", def.name)
    };
    let (text, at) = explain(prog, d, why);
    let mut diag = crate::diagnostic::Diagnostic::error(format!("{head} {text}"))
        .at(def.span, "this definition");
    if let Some((span, label)) = at {
        diag = diag.also(span, label);
    }
    diag.note("a total definition recurses only on a part of a parameter it matched on, covers every case of each `match`, calls no `error`, external or hole, and uses only total definitions")
}

/// Why `d` is not total, in words, and the place that shows it (if known).
fn explain(prog: &Program, d: DefId, why: &NotTotal) -> (String, Option<(Span, String)>) {
    match why {
        NotTotal::Recursion { callee } if *callee == d => (
            "its recursive call is not on a structurally smaller argument".to_string(),
            None,
        ),
        NotTotal::Recursion { callee } => (
            format!(
                "its call of `{}` (they call each other) is not on a structurally smaller argument",
                prog.def(*callee).name
            ),
            None,
        ),
        NotTotal::MissingCase(s) => (
            "a `match` in it does not cover every case".to_string(),
            Some((*s, "this match".to_string())),
        ),
        NotTotal::CallsError(s) => (
            "it calls `error`".to_string(),
            Some((*s, "here".to_string())),
        ),
        NotTotal::CallsExternal(s) => (
            "it calls an external, whose answer may never come".to_string(),
            Some((*s, "here".to_string())),
        ),
        NotTotal::Hole(s) => ("it has a hole".to_string(), Some((*s, "here".to_string()))),
        NotTotal::LocalRecursion(s) => (
            "it defines a recursive local function, whose termination is not checked".to_string(),
            s.map(|s| (s, "in here".to_string())),
        ),
        NotTotal::Uses(g, inner) => {
            let (text, at) = explain(prog, *g, inner);
            (
                format!(
                    "it uses `{}`, which is not total: {text}",
                    prog.def(*g).name
                ),
                at.or(Some((
                    prog.def(*g).span,
                    format!("`{}` is defined here", prog.def(*g).name),
                ))),
            )
        }
    }
}
