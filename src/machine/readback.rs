//! Readback: words and code in records back to core terms (Rogers' point: every
//! intermediate state of evaluation is a term).
//!
//! Code in a record reads back as the core term it was compiled from, with each free
//! variable replaced by what the record chain holds for it ([`super::code::Meta`]
//! says where each variable lives). A value reads back as a literal, a constructor or
//! head applied to its arguments, or a closure's lambda; a thunk not evaluated as its
//! code. The variables of the type checker's context ([`PapHead::Open`]) read back as
//! variables, so type-level evaluation hands the checker terms in its own scope.
//!
//! Readback shares: each object reads back once per binding depth, so a value built
//! with sharing (`(v, v)` nested twenty times) reads back to a term of linear size
//! (as a DAG of shared `Rc`s). A budget bounds what is read (a cyclic value such as
//! `let xs = Cons 1 xs` is infinite); past it, a hole stands for the rest.

use super::Machine;
use super::code::{CodeId, Loc, ScopeId};
use super::heap::{PapHead, ThunkState};
use super::value::{NIL, Ref, Val};
use crate::core::subst::{map_match, rewrite};
use crate::core::term::{Binder, HoleKind, Ix, Lit, Plicity, RcTerm, Term};
use crate::syntax::span::{FileId, Span};
use std::collections::HashMap;

/// How many objects one readback reads at most.
pub const READBACK_BUDGET: u32 = 1_000_000;

/// A hole: what stands for a part that has no term (erased, or past the budget).
pub fn hole() -> RcTerm {
    Term::Hole(HoleKind::Infer, Span::new(FileId(0), 0, 0)).rc()
}

/// Reads words and code back into core terms.
pub struct Reader<'m, 'p> {
    m: &'m Machine<'p>,
    /// How many variables the checker's context has (open variables read back as
    /// variables of it).
    pub ctx_len: u32,
    budget: u32,
    memo: HashMap<(u8, Ref, u32), RcTerm>,
    /// Objects that are bindings of their own (reading a paused state): a reference
    /// to one reads back as a placeholder `Def(PLACE + id)`, resolved into a
    /// variable once the bindings are ordered ([`super::state`]).
    pub places: HashMap<(u8, Ref), u32>,
    /// The binding being read (its own content is read, not its placeholder).
    pub top: Option<(u8, Ref)>,
}

/// Where placeholders for bindings start among definition ids.
pub const PLACE: u32 = 1 << 30;

impl<'m, 'p> Reader<'m, 'p> {
    /// A reader of machine `m`'s state.
    pub fn new(m: &'m Machine<'p>) -> Reader<'m, 'p> {
        Reader {
            m,
            ctx_len: 0,
            budget: READBACK_BUDGET,
            memo: HashMap::new(),
            places: HashMap::new(),
            top: None,
        }
    }

    /// A reader with a budget of objects.
    pub fn with_budget(m: &'m Machine<'p>, budget: u32) -> Reader<'m, 'p> {
        let mut r = Reader::new(m);
        r.budget = budget;
        r
    }

    /// A word, as a term under `under` binders of the result.
    pub fn word(&mut self, v: Val, under: u32) -> RcTerm {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.word_inner(v, under))
    }

    /// The identity of a heap object a word points at (`None` for atoms).
    pub fn object_key(v: Val) -> Option<(u8, Ref)> {
        Self::memo_key(v, 0).map(|(k, r, _)| (k, r))
    }

    fn memo_key(v: Val, under: u32) -> Option<(u8, Ref, u32)> {
        match v {
            Val::Con(r) => Some((0, r, under)),
            Val::Thunk(r) => Some((1, r, under)),
            Val::Fun(r) => Some((2, r, under)),
            Val::Pap(r) => Some((3, r, under)),
            Val::Pi(r) => Some((4, r, under)),
            Val::Stuck(r) => Some((5, r, under)),
            _ => None,
        }
    }

    fn word_inner(&mut self, v: Val, under: u32) -> RcTerm {
        let state_mode = !self.places.is_empty();
        if let Some(k) = Self::object_key(v)
            && let Some(&id) = self.places.get(&k)
        {
            if self.top == Some(k) {
                // The binding's own content: references inside it (even to itself)
                // are placeholders.
                self.top = None;
            } else {
                return Term::Def(crate::core::term::DefId(PLACE + id)).rc();
            }
        }
        let key = Self::memo_key(v, under).filter(|_| !state_mode);
        if let Some(k) = key {
            if let Some(t) = self.memo.get(&k) {
                return t.clone();
            }
            if self.budget == 0 {
                return hole();
            }
            self.budget -= 1;
        }
        let heap = &self.m.heap;
        let t = match v {
            Val::Int(n) => Term::Lit(Lit::Int(n)).rc(),
            Val::Float(x) => Term::Lit(Lit::Float(x)).rc(),
            Val::Str(r) => Term::Lit(Lit::Str(heap.text(r).clone())).rc(),
            Val::Atom(c) => Term::Con(c).rc(),
            Val::Universe(n) => Term::Universe(n).rc(),
            Val::PrimType(p) => Term::PrimType(p).rc(),
            Val::Erased => hole(),
            Val::Con(r) => {
                let o = heap.cons.get(r);
                let (c, fields) = (o.con, o.fields.get(&heap.words).to_vec());
                self.applied(Term::Con(c).rc(), &fields, under)
            }
            Val::Thunk(t) => match heap.thunks.get(t).state {
                ThunkState::Done(x) => self.word(x, under),
                ThunkState::Suspended { code, env } => self.code(code, env, under),
                ThunkState::Blackholed { .. } | ThunkState::Failed(_) => hole(),
            },
            Val::Fun(r) => self.closure(r, under),
            Val::Pap(r) => {
                let o = heap.paps.get(r);
                let (head, taken, args) = (o.head, o.taken, heap.words.get(o.args).to_vec());
                match head {
                    PapHead::Fun(f) => self.fun_applied(f, taken, &args, under),
                    PapHead::Def(d) => self.applied(Term::Def(d).rc(), &args, under),
                    PapHead::Con(c) => self.applied(Term::Con(c).rc(), &args, under),
                    PapHead::Prim(p, s) => self.applied(Term::Prim(p, s).rc(), &args, under),
                    PapHead::Extern(e, _) => self.applied(Term::Extern(e).rc(), &args, under),
                    PapHead::Data(d) => self.applied(Term::Data(d).rc(), &args, under),
                    PapHead::Open(level) => {
                        let var = self.open_var(level, under);
                        self.applied(var, &args, under)
                    }
                    PapHead::Hole(c) => {
                        let h = self.m.code.meta[c as usize].core.clone();
                        self.applied(h, &args, under)
                    }
                }
            }
            Val::Pi(r) => {
                let o = heap.pis.get(r);
                self.code(o.code, o.env, under)
            }
            Val::Stuck(r) => {
                let o = heap.stucks.get(r);
                let (code, env, scrut) = (o.code, o.env, o.scrut);
                let super::code::Code::Match(mi) = self.m.code.nodes[code as usize] else {
                    return hole();
                };
                let core = self.m.code.matches[mi as usize].core;
                let meta = &self.m.code.meta[code as usize];
                let (scope, depth) = (meta.scope, meta.depth);
                let s = self.word(scrut, under);
                map_match(core, s, &mut |t, k| {
                    self.term_in(t, scope, depth, env, k, under)
                })
            }
        };
        if let Some(k) = key {
            self.memo.insert(k, t.clone());
        }
        t
    }

    /// The checker's context variable at `level`, under `under` binders.
    fn open_var(&self, level: u32, under: u32) -> RcTerm {
        match (under + self.ctx_len).checked_sub(level + 1) {
            Some(ix) => Term::Var(Ix(ix)).rc(),
            None => hole(),
        }
    }

    /// `head` applied (explicitly) to words.
    fn applied(&mut self, head: RcTerm, args: &[Val], under: u32) -> RcTerm {
        args.iter().fold(head, |f, &a| {
            let a = self.word(a, under);
            Term::App(f, Plicity::Explicit, a).rc()
        })
    }

    /// Code in a record, as a term.
    pub fn code(&mut self, c: CodeId, env: Ref, under: u32) -> RcTerm {
        let meta = &self.m.code.meta[c as usize];
        let (core, scope, depth) = (meta.core, meta.scope, meta.depth);
        self.term_in(core, scope, depth, env, 0, under)
    }

    /// A core term compiled in `scope` (record depth `depth`, run in record `env`),
    /// under `skip` binders of its own: its free variables replaced by what the
    /// record chain holds.
    pub fn term_in(
        &mut self,
        t: &RcTerm,
        scope: ScopeId,
        depth: u32,
        env: Ref,
        skip: u32,
        under: u32,
    ) -> RcTerm {
        rewrite(t, &mut |node, d| match &**node {
            Term::Var(Ix(i)) if *i >= d + skip => {
                let word = self.lookup(scope, depth, env, i - d - skip);
                Some(match word {
                    Some(w) => self.word(w, under + d + skip),
                    None => hole(),
                })
            }
            _ => None,
        })
    }

    /// The word a variable of a scope names in a record chain.
    fn lookup(&self, scope: ScopeId, depth: u32, env: Ref, ix: u32) -> Option<Val> {
        match self.m.code.lookup(scope, ix)? {
            Loc::Slot { depth: dv, slot } => {
                if env == NIL || dv > depth {
                    return None;
                }
                let r = self.m.heap.up(env, depth - dv);
                if r == NIL {
                    return None;
                }
                Some(self.m.heap.slot(r, slot))
            }
            Loc::Erased => None,
        }
    }

    /// A function value: its lambdas in its record (a recursive local function as
    /// `let go = \... in go`).
    fn closure(&mut self, r: Ref, under: u32) -> RcTerm {
        let o = self.m.heap.funs.get(r);
        let (f, env) = (o.fun, o.env);
        let fun = &self.m.code.funs[f as usize];
        let (core, scope, depth, self_slot) = (fun.core, fun.scope, fun.depth, fun.self_slot);
        match self_slot {
            None => self.term_in(core, scope, depth, env, 0, under),
            Some(_) => {
                let binder = self.m.code.slot_binder(fun.layout, 0);
                let lam = self.term_in(core, scope, depth, env, 1, under + 1);
                let b = match binder {
                    Some(b) => Binder {
                        name: b.name.clone(),
                        plicity: b.plicity,
                        ty: hole(),
                    },
                    None => Binder {
                        name: "go".into(),
                        plicity: Plicity::Explicit,
                        ty: hole(),
                    },
                };
                Term::Let(b, lam, Term::Var(Ix(0)).rc()).rc()
            }
        }
    }

    /// A partial application of a function value to the slots of its first `taken`
    /// parameters: the remaining lambdas, with the bound parameters replaced by the
    /// arguments (a normal form).
    fn fun_applied(&mut self, fr: Ref, taken: u32, args: &[Val], under: u32) -> RcTerm {
        let o = self.m.heap.funs.get(fr);
        let (f, env) = (o.fun, o.env);
        let fun = &self.m.code.funs[f as usize];
        let (core, scope, depth, has_self) =
            (fun.core, fun.scope, fun.depth, fun.self_slot.is_some());
        let params = fun.params.clone();
        let mut rest = core;
        for _ in 0..taken {
            match &**rest {
                Term::Lam(_, b) => rest = super::analysis::unann(b),
                _ => break,
            }
        }
        // The word of each bound parameter, by position.
        let mut it = args.iter();
        let bound: Vec<Option<Val>> = params
            .iter()
            .take(taken as usize)
            .map(|p| p.slot.and_then(|_| it.next().copied()))
            .collect();
        let own = if has_self { 1 } else { 0 };
        rewrite(rest, &mut |node, d| match &**node {
            Term::Var(Ix(i)) if *i >= d => {
                let j = i - d;
                if j < taken {
                    let w = bound[(taken - 1 - j) as usize];
                    return Some(match w {
                        Some(w) => self.word(w, under + d),
                        None => hole(),
                    });
                }
                let k = j - taken;
                if has_self && k == 0 {
                    return Some(self.closure(fr, under + d));
                }
                Some(match self.lookup(scope, depth, env, k - own) {
                    Some(w) => self.word(w, under + d),
                    None => hole(),
                })
            }
            _ => None,
        })
    }
}

impl<'p> Machine<'p> {
    /// A function value as Spindle source (its lambda, read back in its record).
    pub fn show_function(&self, v: Val) -> String {
        let mut r = Reader::with_budget(self, 10_000);
        let t = r.word(v, 0);
        crate::core::pretty::term_to_string(self.prog, &[], &t)
    }

    /// A word read back as a core term.
    pub fn read_back(&self, v: Val) -> RcTerm {
        Reader::new(self).word(v, 0)
    }
}
