//! From checked core terms to machine code ([`crate::machine::code`]), one definition at a
//! time, on first use.
//!
//! The compiler walks a term with its *scope*: for each binder in scope, where its
//! value lives at run time ([`Loc`]): a slot of a record at some depth of the record
//! chain, or nowhere (erased). Records are made by function calls (one per group of
//! lambdas), match arms with fields, and `let`s; a variable becomes a slot read with
//! the number of parent hops from the current record. The scope of every node is kept
//! ([`Meta`]) so that code in a record reads back to the core term it came from.
//!
//! A `let` whose right-hand side does not mention itself is compiled in the outer
//! record (its thunk points outward, so records never form cycles); a recursive local
//! function (`let go n = ... go ... in`) refers to itself through a slot of its own
//! call's record ([`crate::machine::code::Fun::self_slot`]), so it makes no cycle either; only a
//! recursive `let` of data (`let xs = Cons 1 xs`) points back at its own record.

use super::analysis::{Facts, addr, lambdas, unann};
use crate::core::program::Program;
use crate::core::term::{Binder, CasePat, DefId, ExternId, Lit, Plicity, RcTerm, Term};
use crate::machine::code::*;
use crate::machine::eval::is_arith;
use crate::prim::Prim;
use crate::syntax::span::Span;

/// What a definition compiled to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DefCode {
    /// Not compiled yet.
    Pending,
    /// A function.
    Fun(FunId),
    /// A value computed once (a CAF): its code, closed.
    Caf(CodeId),
}

/// The compiler's state for one compilation.
pub struct Compiler<'s, 'p> {
    prog: &'p Program,
    store: &'s mut CodeStore<'p>,
    /// The analyses' facts, or `None` to compile without erasure or strictness
    /// (type-level evaluation).
    facts: Option<&'s Facts>,
    scope: ScopeId,
    depth: u32,
    min_ref: u32,
    /// The place of the definition being compiled (for nodes without their own).
    def_span: Span,
    /// The definition being compiled (`u32::MAX`: none).
    def: u32,
    /// Whether terms in lazy places are compiled to capture only what they use
    /// ([`Code::Trim`]).
    trim: bool,
    /// The record depths of the `let`s in scope (their variables are lazy bindings).
    let_depths: Vec<u32>,
}

/// Compiles definition `d`.
pub fn compile_def<'p>(
    prog: &'p Program,
    store: &mut CodeStore<'p>,
    facts: Option<&Facts>,
    d: DefId,
    fused: bool,
    trim: bool,
) -> DefCode {
    let mut c = Compiler {
        prog,
        store,
        facts,
        scope: NO_SCOPE,
        depth: 0,
        min_ref: u32::MAX,
        def_span: prog.def(d).span,
        def: d.0,
        trim: trim && facts.is_some(),
        let_depths: Vec::new(),
    };
    let body = match facts {
        // At run time, the body after inlining and fusion ([`super::inline`],
        // [`super::fuse`]), as far as they are on: the analyses saw the same.
        Some(f) if fused => run_body(prog, d, f.inline),
        Some(f) => source_body(prog, d, f.inline),
        None => &prog.def(d).body,
    };
    let (lams, inner) = lambdas(body);
    if lams.is_empty() {
        DefCode::Caf(c.term(body))
    } else {
        let params = facts.map(|f| f.defs[d.0 as usize].as_slice());
        DefCode::Fun(c.fun(&lams, inner, params, None, Some(d)))
    }
}

/// The body the machine runs for a definition: the fused one ([`super::fuse`]) when
/// fusion changed it, else [`source_body`].
pub fn run_body(prog: &Program, d: DefId, inline: bool) -> &RcTerm {
    prog.run_bodies[inline as usize]
        .get()
        .and_then(|bodies| bodies.get(d.0 as usize))
        .and_then(Option::as_ref)
        .unwrap_or_else(|| source_body(prog, d, inline))
}

/// The body the analyses and fusion start from: the one inlining made
/// ([`super::inline`]) when `inline` and it changed the body, else the one written.
pub fn source_body(prog: &Program, d: DefId, inline: bool) -> &RcTerm {
    let inlined = inline
        .then(|| prog.inlined_bodies.get())
        .flatten()
        .and_then(|bodies| bodies.get(d.0 as usize))
        .and_then(Option::as_ref);
    inlined.unwrap_or(&prog.def(d).body)
}

/// Compiles a term in a context of one record whose slots are the binders given
/// (type-level evaluation: the checker's context), of which the first `visible` are
/// in the term's scope: its variable `ix` is slot `visible - 1 - ix`.
pub fn compile_in_context<'p>(
    prog: &'p Program,
    store: &mut CodeStore<'p>,
    binders: &[&'p Binder],
    visible: usize,
    t: &'p RcTerm,
) -> (LayoutId, CodeId) {
    let layout = store.layouts.len() as LayoutId;
    store.layouts.push(Layout {
        binders: binders.iter().map(|b| Some(*b)).collect(),
        kind: LayoutKind::Context,
        scope: NO_SCOPE,
        depth: 1,
    });
    let mut c = Compiler {
        prog,
        store,
        facts: None,
        scope: NO_SCOPE,
        depth: if binders.is_empty() { 0 } else { 1 },
        min_ref: u32::MAX,
        def_span: Span::new(crate::syntax::span::FileId(0), 0, 0),
        def: u32::MAX,
        trim: false,
        let_depths: Vec::new(),
    };
    for (i, b) in binders.iter().enumerate().take(visible) {
        c.push(
            Loc::Slot {
                depth: 1,
                slot: i as u32,
            },
            &b.name,
        );
    }
    c.place_layout(layout);
    let code = c.term(t);
    (layout, code)
}

/// The number of explicit parameters of an external's declared type.
pub fn extern_arity(prog: &Program, e: ExternId) -> usize {
    let mut t = &prog.external(e).ty;
    let mut n = 0;
    while let Term::Pi(b, cod) = &**unann(t) {
        if b.plicity == Plicity::Explicit {
            n += 1;
        }
        t = cod;
    }
    n
}

impl<'s, 'p> Compiler<'s, 'p> {
    /// Enters the scope of a binder named `name`, living at `loc`.
    fn push(&mut self, loc: Loc, name: &'p str) {
        self.store.scopes.push(Scope {
            loc,
            next: self.scope,
        });
        self.store.scope_names.push(name);
        self.scope = (self.store.scopes.len() - 1) as ScopeId;
    }

    fn pop(&mut self, n: usize) {
        for _ in 0..n {
            self.scope = self.store.scopes[self.scope as usize].next;
        }
    }

    fn emit(&mut self, node: Code, core: &'p RcTerm) -> CodeId {
        self.store.nodes.push(node);
        let span = own_span(core).unwrap_or(self.def_span);
        self.store.meta.push(Meta {
            core,
            scope: self.scope,
            depth: self.depth,
            span,
            def: self.def,
        });
        self.store.closed.push(false);
        let fast = self.fast_of(self.store.nodes.len() - 1);
        self.store.fast.push(fast);
        (self.store.nodes.len() - 1) as CodeId
    }

    /// The superinstruction of node `i` (its operands are compiled already).
    fn fast_of(&self, i: usize) -> Fast {
        let operand = |c: CodeId| match self.store.nodes[c as usize] {
            Code::Local(s) => Some(Ok(s)),
            Code::Int(n) => Some(Err(n)),
            _ => None,
        };
        match self.store.nodes[i] {
            Code::Local(s) => Fast::Slot(s),
            Code::Int(n) => Fast::Int(n),
            Code::Bin { prim, a, b, .. } if crate::machine::eval::is_arith(prim) => {
                match (operand(a), operand(b)) {
                    (Some(Ok(x)), Some(Err(k))) => Fast::SlotInt(prim, x, k),
                    (Some(Ok(x)), Some(Ok(y))) => Fast::SlotSlot(prim, x, y),
                    _ => Fast::No,
                }
            }
            _ => Fast::No,
        }
    }

    /// A new layout, its scope the current one (right for a layout made once its
    /// binders are in scope; others are placed by [`Compiler::place_layout`]).
    fn layout(&mut self, binders: Vec<Option<&'p Binder>>, kind: LayoutKind) -> LayoutId {
        self.store.layouts.push(Layout {
            binders,
            kind,
            scope: self.scope,
            depth: self.depth,
        });
        (self.store.layouts.len() - 1) as LayoutId
    }

    /// Enters a new record of `layout`, one deeper, whose one slot is bound to
    /// `name`.
    fn enter_one(&mut self, layout: LayoutId, name: &'p str) {
        self.depth += 1;
        self.push(
            Loc::Slot {
                depth: self.depth,
                slot: 0,
            },
            name,
        );
        self.place_layout(layout);
    }

    /// Notes that the binders of `layout` are now in scope (its slots' types are
    /// shown in this scope).
    fn place_layout(&mut self, layout: LayoutId) {
        let l = &mut self.store.layouts[layout as usize];
        (l.scope, l.depth) = (self.scope, self.depth);
    }

    fn args_run(&mut self, codes: &[CodeId]) -> Args {
        let start = self.store.args.len() as u32;
        self.store.args.extend_from_slice(codes);
        Args {
            start,
            len: codes.len() as u32,
        }
    }

    /// Compiles a term; records whether it refers to no record outside itself.
    fn term(&mut self, t: &'p RcTerm) -> CodeId {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
            let saved = std::mem::replace(&mut self.min_ref, u32::MAX);
            let c = self.term_inner(t);
            self.store.closed[c as usize] = self.min_ref > self.depth;
            self.min_ref = self.min_ref.min(saved);
            c
        })
    }

    fn var(&mut self, ix: u32, t: &'p RcTerm) -> CodeId {
        match self.store.lookup(self.scope, ix) {
            Some(Loc::Slot { depth, slot }) => {
                self.min_ref = self.min_ref.min(depth);
                let hops = self.depth - depth;
                let node = if hops == 0 {
                    Code::Local(slot)
                } else {
                    Code::Outer { hops, slot }
                };
                self.emit(node, t)
            }
            // An erased variable, or one outside what this compilation sees: it has
            // no run-time value (a well-typed program never inspects it).
            Some(Loc::Erased) | None => self.emit(Code::Erased, t),
        }
    }

    fn term_inner(&mut self, t: &'p RcTerm) -> CodeId {
        match &**t {
            Term::Var(ix) => self.var(ix.0, t),
            Term::Def(d) => self.emit(Code::Global(*d), t),
            Term::Data(d) => self.emit(Code::Data(*d), t),
            Term::Con(c) => {
                if self.prog.con(*c).fields.is_empty() {
                    self.emit(Code::Atom(*c), t)
                } else {
                    self.emit(Code::Head(HeadCode::Con(*c)), t)
                }
            }
            Term::Extern(e, _) => self.emit(Code::Head(HeadCode::Extern(*e)), t),
            Term::Prim(p, span) => self.emit(Code::Head(HeadCode::Prim(*p, *span)), t),
            Term::PrimType(p) => self.emit(Code::PrimType(*p), t),
            Term::Lit(Lit::Int(n)) => self.emit(Code::Int(*n), t),
            Term::Lit(Lit::Float(x)) => self.emit(Code::Float(*x), t),
            Term::Lit(Lit::Str(s)) => self.emit(Code::Str(s.clone()), t),
            Term::Lit(Lit::Char(c)) => self.emit(Code::Char(*c), t),
            Term::Universe(n) => self.emit(Code::Universe(*n), t),
            Term::Hole(..) => self.emit(Code::Hole, t),
            Term::Ann(e, _) => self.term(e),
            Term::Pi(..) => {
                // Readback of the type uses the node's core term and scope; the
                // variables it mentions must keep their records alive.
                self.mark_free_vars(t);
                self.emit(Code::Pi, t)
            }
            Term::Lam(..) => {
                let (lams, body) = lambdas(t);
                let f = self.fun(&lams, body, None, None, None);
                self.emit(Code::Lam(f), t)
            }
            Term::Let(b, rhs, body) => self.let_(t, b, rhs, body),
            Term::Match(m) => self.match_(t, m),
            Term::App(..) => self.app(t),
        }
    }

    /// A term in a lazy place (a constructor's field, a lazy argument of a known call,
    /// a lazy `let`'s right-hand side), which may become a thunk: compiled as a
    /// [`Code::Trim`] when that thunk would otherwise keep records alive that hold
    /// more than the term uses (safe for space: a thunk holds its free variables, not
    /// its whole context), else as usual.
    fn lazy_term(&mut self, t: &'p RcTerm) -> CodeId {
        match self.trimmed(t) {
            Some(c) => c,
            None => self.term(t),
        }
    }

    fn trimmed(&mut self, t: &'p RcTerm) -> Option<CodeId> {
        if !self.trim || !matches!(&**unann(t), Term::App(..) | Term::Match(..) | Term::Let(..)) {
            return None;
        }
        let mut vars = Vec::new();
        let mut budget = TRIM_NODES;
        if !free_vars_within(t, 0, &mut vars, &mut budget) {
            return None;
        }
        let mut caps: Vec<u32> = vars
            .into_iter()
            .filter(|&ix| matches!(self.store.lookup(self.scope, ix), Some(Loc::Slot { .. })))
            .collect();
        if caps.is_empty() || caps.len() > TRIM_CAPS {
            return None;
        }
        caps.sort_unstable();
        let max_ix = *caps.last()?;
        if max_ix >= TRIM_SCOPE {
            return None;
        }
        // Worth it only where the records in reach hold more than the captures.
        let mut slots = 0;
        let mut s = self.scope;
        for _ in 0..TRIM_SCOPE {
            if s == NO_SCOPE {
                break;
            }
            if matches!(self.store.scopes[s as usize].loc, Loc::Slot { .. }) {
                slots += 1;
            }
            s = self.store.scopes[s as usize].next;
        }
        if slots <= caps.len() && s == NO_SCOPE {
            return None;
        }
        // The term as usual (computed at hand, or evaluated where it is needed).
        let orig = self.term(t);
        // The captured variables, read here.
        let reads: Vec<CodeId> = caps.iter().map(|&ix| self.var(ix, t)).collect();
        // The term, in a record of its own: the captures are its slots, every other
        // variable in scope is out of reach (the term does not use it).
        let (scope, depth) = (self.scope, self.depth);
        let saved_min = self.min_ref;
        self.enter_captures(&caps);
        let body = self.term(t);
        (self.scope, self.depth, self.min_ref) = (scope, depth, saved_min);
        let layout = self.layout(vec![None; caps.len()], LayoutKind::Captures);
        let caps = self.args_run(&reads);
        let trim = self.emit(
            Code::Trim {
                layout,
                caps,
                body,
                orig,
            },
            t,
        );
        self.store.trim_twins.insert(orig, trim);
        Some(trim)
    }

    /// Records the variables a term mentions as references (a `Pi` kept for
    /// readback).
    fn mark_free_vars(&mut self, t: &'p RcTerm) {
        let mut vars = Vec::new();
        free_vars(t, 0, &mut vars);
        for ix in vars {
            if let Some(Loc::Slot { depth, .. }) = self.store.lookup(self.scope, ix) {
                self.min_ref = self.min_ref.min(depth);
            }
        }
    }

    /// A group of lambdas as one function. `params` are a definition's facts;
    /// `self_binder` names the slot a recursive local function finds itself in.
    fn fun(
        &mut self,
        lams: &[&'p RcTerm],
        body: &'p RcTerm,
        params: Option<&[super::analysis::ParamFacts]>,
        self_binder: Option<&'p Binder>,
        def: Option<DefId>,
    ) -> FunId {
        let saved_scope = self.scope;
        let saved_min = std::mem::replace(&mut self.min_ref, u32::MAX);
        self.depth += 1;
        let depth = self.depth;
        let mut binders: Vec<Option<&'p Binder>> = Vec::new();
        let mut ps = Vec::with_capacity(lams.len());
        let self_slot = self_binder.map(|b| {
            binders.push(Some(b));
            self.push(Loc::Slot { depth, slot: 0 }, &b.name);
            0
        });
        for (k, lam) in lams.iter().enumerate() {
            let Term::Lam(b, _) = &***lam else {
                unreachable!("lambdas() returns lambdas")
            };
            let (relevant, strict) = match (params, self.facts) {
                (Some(p), _) => (p[k].relevant, p[k].strict),
                (None, Some(f)) => (!f.irrelevant_lams.contains(&addr(lam)), false),
                (None, None) => (true, false),
            };
            let slot = relevant.then(|| {
                binders.push(Some(b));
                (binders.len() - 1) as u32
            });
            self.push(
                match slot {
                    Some(slot) => Loc::Slot { depth, slot },
                    None => Loc::Erased,
                },
                &b.name,
            );
            ps.push(Param {
                implicit: b.plicity == Plicity::Implicit,
                slot,
                strict,
            });
        }
        let slots = binders.len() as u32;
        let fid = self.store.funs.len() as FunId;
        let layout = self.layout(binders, LayoutKind::Params(fid));
        // Reserve the function's place (recursive compilation may add others).
        self.store.funs.push(Fun {
            params: ps,
            layout,
            slots,
            self_slot,
            body: 0,
            cheap: false,
            hand: false,
            numeric: false,
            tier_body: false,
            closed: false,
            strict_mask: 0,
            may_fail: super::analysis::names_error(body),
            core: lams[0],
            scope: saved_scope,
            depth: depth - 1,
            def,
            skip: None,
        });
        let code = self.term(body);
        self.depth -= 1;
        self.scope = saved_scope;
        let closed = self.min_ref > self.depth;
        self.min_ref = self.min_ref.min(saved_min);
        let inline = self.facts.is_some_and(|f| f.inline);
        let cheap = cheap_term(self.prog, &mut self.store.cheap_defs, false, inline, body);
        let hand = cheap || cheap_term(self.prog, &mut self.store.hand_defs, true, inline, body);
        let tier_body = self.facts.is_some() && numeric_code(self.store, code);
        let numeric = tier_body
            && self_slot.is_none()
            && self.store.funs[fid as usize]
                .params
                .iter()
                .all(|p| !p.implicit && p.strict && p.slot.is_some());
        let f = &mut self.store.funs[fid as usize];
        f.body = code;
        f.closed = closed;
        f.cheap = cheap;
        f.hand = hand;
        f.numeric = numeric;
        f.tier_body = tier_body;
        f.strict_mask = match (params, self.facts) {
            (Some(p), _) => p
                .iter()
                .take(64)
                .enumerate()
                .filter(|(_, p)| p.strict)
                .fold(0u64, |m, (k, _)| m | 1 << k),
            (None, Some(facts)) => facts.lam_strict.get(&addr(lams[0])).copied().unwrap_or(0),
            (None, None) => 0,
        };
        if self_slot.is_none()
            && let Some(d) = def
        {
            let skip = skip_loop_shape(self.store, d, slots, code);
            self.store.funs[fid as usize].skip = skip;
        }
        fid
    }

    fn let_(&mut self, t: &'p RcTerm, b: &'p Binder, rhs: &'p RcTerm, body: &'p RcTerm) -> CodeId {
        let recursive = crate::core::subst::has_free_var(rhs, 0);
        let strict = !recursive && self.facts.is_some_and(|f| f.strict_lets.contains(&addr(t)));
        let layout = self.layout(vec![Some(b)], LayoutKind::Let);
        let rhs_code = if recursive && matches!(&**unann(rhs), Term::Lam(..)) {
            // A recursive local function: its own slot stands for the binding.
            let (lams, inner) = lambdas(rhs);
            let f = self.fun(&lams, inner, None, Some(b), None);
            // The node's scope has the binding itself at index 0 (it reads back as a
            // hole: a closure value reads back through its function instead).
            self.push(Loc::Erased, &b.name);
            let node = self.emit(Code::Lam(f), rhs);
            self.pop(1);
            node
        } else if recursive {
            // Recursive data: the right-hand side lives in the new record.
            self.depth += 1;
            self.push(
                Loc::Slot {
                    depth: self.depth,
                    slot: 0,
                },
                &b.name,
            );
            let c = self.term(rhs);
            self.pop(1);
            self.depth -= 1;
            c
        } else {
            // The binding is not in the right-hand side's scope at run time.
            self.push(Loc::Erased, &b.name);
            let c = if strict {
                self.term(rhs)
            } else {
                self.lazy_term(rhs)
            };
            self.pop(1);
            c
        };
        let recursive_data = recursive && !matches!(self.store.node(rhs_code), Code::Lam(_));
        let trimmed = if strict {
            self.continuation_caps(rhs, body)
        } else {
            None
        };
        let (scope, depth) = (self.scope, self.depth);
        let mut caps = NO_CAPS;
        if let Some(vars) = &trimmed {
            // The body in a record of the captures (then the binding's record).
            let reads: Vec<CodeId> = vars.iter().map(|&ix| self.var(ix, t)).collect();
            let caps_layout = self.layout(vec![None; vars.len()], LayoutKind::Captures);
            let caps_args = self.args_run(&reads);
            self.store.let_caps.push((caps_layout, caps_args));
            caps = (self.store.let_caps.len() - 1) as u32;
            self.enter_captures(vars);
        }
        // What the reads of the captures (if any) refer to, not the body.
        let saved_min = self.min_ref;
        self.enter_one(layout, &b.name);
        self.let_depths.push(self.depth);
        let body_code = self.term(body);
        self.let_depths.pop();
        (self.scope, self.depth) = (scope, depth);
        if trimmed.is_some() {
            // The body refers only to its own records.
            self.min_ref = saved_min;
        }
        self.emit(
            Code::Let {
                layout,
                rhs: rhs_code,
                body: body_code,
                recursive: recursive_data,
                strict,
                caps,
            },
            t,
        )
    }

    /// Enters the scope of a record of captures (its slots are the variables with
    /// indices `caps`, sorted, in that order; every other variable is out of reach),
    /// one record deeper, with no record outside it. The caller restores the scope,
    /// the depth and `min_ref`.
    fn enter_captures(&mut self, caps: &[u32]) {
        let mut names = Vec::new();
        let mut at = self.scope;
        while at != NO_SCOPE && names.len() <= caps.last().copied().unwrap_or(0) as usize {
            names.push(self.store.scope_names[at as usize]);
            at = self.store.scopes[at as usize].next;
        }
        self.scope = NO_SCOPE;
        self.depth += 1;
        let max_ix = caps.last().copied().unwrap_or(0);
        for ix in (0..=max_ix).rev() {
            let loc = match caps.iter().position(|&c| c == ix) {
                Some(k) => Loc::Slot {
                    depth: self.depth,
                    slot: k as u32,
                },
                None => Loc::Erased,
            };
            self.push(loc, names.get(ix as usize).copied().unwrap_or("_"));
        }
    }

    /// The variables a strict `let`'s body uses (indices outside the binder), when
    /// its right-hand side uses a lazy binding (another `let`'s) that the body does
    /// not: then the frame waiting for the right-hand side should not keep that
    /// binding's record ([`Code::Let`]'s `caps`).
    fn continuation_caps(&self, rhs: &RcTerm, body: &RcTerm) -> Option<Vec<u32>> {
        if !self.trim || self.let_depths.is_empty() {
            return None;
        }
        let (mut in_body, mut in_rhs) = (Vec::new(), Vec::new());
        let (mut b1, mut b2) = (TRIM_NODES * 8, TRIM_NODES * 8);
        if !free_vars_within(body, 1, &mut in_body, &mut b1)
            || !free_vars_within(rhs, 1, &mut in_rhs, &mut b2)
        {
            return None;
        }
        let let_bound = |ix: u32| {
            matches!(self.store.lookup(self.scope, ix),
                Some(Loc::Slot { depth, .. }) if self.let_depths.contains(&depth))
        };
        if !in_rhs
            .iter()
            .any(|&ix| !in_body.contains(&ix) && let_bound(ix))
        {
            return None;
        }
        let mut caps: Vec<u32> = in_body
            .into_iter()
            .filter(|&ix| matches!(self.store.lookup(self.scope, ix), Some(Loc::Slot { .. })))
            .collect();
        caps.sort_unstable();
        if caps.len() > 4 * TRIM_CAPS || caps.last().is_some_and(|&m| m >= TRIM_SCOPE) {
            return None;
        }
        Some(caps)
    }

    fn match_(&mut self, t: &'p RcTerm, m: &'p crate::core::term::Match) -> CodeId {
        let scrut = self.term(&m.scrut);
        let mut arms = Vec::with_capacity(m.arms.len());
        for arm in &m.arms {
            let (test, fields): (ArmTest, &'p [Binder]) = match &arm.pat {
                CasePat::Con(c, bs) => (ArmTest::Con(*c), bs.as_slice()),
                CasePat::Lit(Lit::Int(n)) => (ArmTest::Int(*n), &[]),
                CasePat::Lit(Lit::Str(s)) => (ArmTest::Str(s.clone()), &[]),
                CasePat::Lit(Lit::Char(c)) => (ArmTest::Char(*c), &[]),
                // Float patterns do not exist in the language; such an arm never
                // matches.
                CasePat::Lit(Lit::Float(_)) => (ArmTest::Int(i64::MIN), &[]),
            };
            let (layout, body) = if fields.is_empty() {
                (None, self.term(&arm.body))
            } else {
                let layout = self.layout(fields.iter().map(Some).collect(), LayoutKind::Fields);
                self.depth += 1;
                for (i, f) in fields.iter().enumerate() {
                    self.push(
                        Loc::Slot {
                            depth: self.depth,
                            slot: i as u32,
                        },
                        &f.name,
                    );
                }
                self.place_layout(layout);
                let body = self.term(&arm.body);
                self.pop(fields.len());
                self.depth -= 1;
                (Some(layout), body)
            };
            arms.push(ArmCode { test, layout, body });
        }
        let default = m.default.as_ref().map(|(b, body)| {
            let layout = self.layout(vec![Some(b)], LayoutKind::Default);
            self.enter_one(layout, &b.name);
            let body = self.term(body);
            self.pop(1);
            self.depth -= 1;
            (layout, body)
        });
        let bi = &self.prog.builtins;
        let body_of = |k| {
            arms.iter()
                .find(|a| a.test == ArmTest::Con(k) && a.layout.is_none())
                .map(|a| a.body)
        };
        let bool_arms = match (arms.len(), body_of(bi.true_), body_of(bi.false_)) {
            (2, Some(t), Some(f)) => Some((t, f)),
            _ => None,
        };
        let id = self.store.matches.len() as u32;
        self.store.matches.push(MatchCode {
            scrut,
            arms,
            default,
            core: m,
            span: m.span,
            node: 0,
            bool_arms,
        });
        let node = self.emit(Code::Match(id), t);
        self.store.matches[id as usize].node = node;
        node
    }

    /// An application spine: known heads get their own nodes.
    fn app(&mut self, t: &'p RcTerm) -> CodeId {
        let (head, args) = crate::core::term::spine(t);
        let explicit: Vec<&'p RcTerm> = args
            .iter()
            .filter(|(pl, _)| *pl == Plicity::Explicit)
            .map(|(_, a)| *a)
            .collect();
        match &**unann(head) {
            Term::Con(c) if explicit.len() == self.prog.con(*c).fields.len() => {
                let codes: Vec<CodeId> = explicit.iter().map(|a| self.lazy_term(a)).collect();
                if codes.is_empty() {
                    return self.emit(Code::Atom(*c), t);
                }
                let args = self.args_run(&codes);
                self.emit(Code::Con { con: *c, args }, t)
            }
            Term::Prim(p, span) if explicit.len() == p.arity() && args.len() == explicit.len() => {
                let codes: Vec<CodeId> = explicit.iter().map(|a| self.term(a)).collect();
                match p {
                    Prim::Seq => self.emit(
                        Code::Seq {
                            a: codes[0],
                            b: codes[1],
                        },
                        t,
                    ),
                    p if crate::machine::eval::is_arith(*p) => self.emit(
                        Code::Bin {
                            prim: *p,
                            a: codes[0],
                            b: codes[1],
                            span: *span,
                        },
                        t,
                    ),
                    _ => {
                        let args = self.args_run(&codes);
                        self.emit(
                            Code::Prim {
                                prim: *p,
                                args,
                                span: *span,
                            },
                            t,
                        )
                    }
                }
            }
            Term::Extern(e, _) if explicit.len() == extern_arity(self.prog, *e) => {
                let codes: Vec<CodeId> = explicit.iter().map(|a| self.term(a)).collect();
                let args = self.args_run(&codes);
                self.emit(Code::Extern { ext: *e, args }, t)
            }
            // A definition that only passes its two arguments on to `prim_seq` (the
            // prelude's `seq`): the primitive itself, so that its second argument stays
            // in tail position (a loop through `seq` runs in constant stack).
            Term::Def(d)
                if explicit.len() == 2
                    && args.len() == lambdas(&self.prog.def(*d).body).0.len()
                    && seq_alias(self.prog, *d) =>
            {
                let a = self.term(explicit[0]);
                let b = self.term(explicit[1]);
                self.emit(Code::Seq { a, b }, t)
            }
            Term::Def(d) if self.known_call(*d, &args) => {
                let arity = self.signature_len(*d);
                let params: Vec<Option<u32>> = self.param_slots(*d);
                let stricts: Vec<bool> = match self.facts {
                    Some(f) => f.defs[d.0 as usize].iter().map(|p| p.strict).collect(),
                    None => vec![false; arity],
                };
                let mut codes = Vec::new();
                let mut strict = 0u64;
                // Parameter index to argument index (parameters without a slot take
                // no argument).
                let mut arg_of = vec![None; arity];
                for (k, (_, a)) in args[..arity].iter().enumerate() {
                    if params[k].is_some() {
                        if stricts[k] && codes.len() < 64 {
                            strict |= 1 << codes.len();
                        }
                        arg_of[k] = Some(codes.len() as u32);
                        codes.push(self.term(a));
                    }
                }
                let conds: Vec<CondArg> = match self.facts {
                    Some(f) => f.defs[d.0 as usize]
                        .iter()
                        .enumerate()
                        .take(arity)
                        .filter_map(|(k, p)| {
                            let c = p.cond?;
                            Some(CondArg {
                                arg: arg_of[k]?,
                                fun: (*arg_of.get(c.fun as usize)?)?,
                                pos: c.pos,
                                nargs: c.nargs,
                            })
                        })
                        .filter(|c| c.arg < 64)
                        .collect(),
                    None => Vec::new(),
                };
                let run = self.args_run(&codes);
                // The node's core is the application of its own `arity` arguments: the
                // rest are applied by the `Apply` node around it (readback of a paused
                // call must not see them twice).
                let mut own: &'p RcTerm = t;
                for _ in arity..args.len() {
                    if let Term::App(g, _, _) = &**own {
                        own = g;
                    }
                }
                let call = self.emit(
                    Code::CallDef {
                        def: *d,
                        args: run,
                        strict,
                    },
                    own,
                );
                if !conds.is_empty() {
                    // The same for every call of `d` (its parameters' slots are).
                    let i = d.0 as usize;
                    if self.store.cond_args.len() <= i {
                        self.store.cond_args.resize(i + 1, Box::default());
                    }
                    self.store.cond_args[i] = conds.into_boxed_slice();
                }
                // Read from the callee's core: it may not be compiled yet.
                let inline = self.facts.is_some_and(|f| f.inline);
                if cheap_def(self.prog, &mut self.store.cheap_defs, false, inline, *d) {
                    self.store.fast[call as usize] = Fast::CheapCall;
                } else if codes.len() == 4 && self.facts.and_then(|f| f.fold_range) == Some(*d) {
                    self.store.fast[call as usize] = Fast::FoldRange;
                } else if cheap_def(self.prog, &mut self.store.hand_defs, true, inline, *d) {
                    self.store.fast[call as usize] = Fast::HandCall;
                }
                if args.len() == arity {
                    call
                } else {
                    self.apply(call, &args[arity..], t)
                }
            }
            _ => {
                let f = self.term(head);
                self.apply(f, &args, t)
            }
        }
    }

    fn apply(&mut self, f: CodeId, args: &[(Plicity, &'p RcTerm)], t: &'p RcTerm) -> CodeId {
        let codes: Vec<ApplyArg> = args
            .iter()
            .map(|(pl, a)| ApplyArg {
                code: self.term(a),
                implicit: *pl == Plicity::Implicit,
            })
            .collect();
        let start = self.store.apply_args.len() as u32;
        self.store.apply_args.extend_from_slice(&codes);
        self.emit(
            Code::Apply {
                fun: f,
                args: Args {
                    start,
                    len: codes.len() as u32,
                },
            },
            t,
        )
    }

    /// How many parameters definition `d` has as a function (0 for a CAF).
    fn signature_len(&self, d: DefId) -> usize {
        match self.facts {
            Some(f) => f.defs[d.0 as usize].len(),
            None => lambdas(&self.prog.def(d).body).0.len(),
        }
    }

    /// The slot of each of `d`'s parameters (`None` when erased).
    fn param_slots(&self, d: DefId) -> Vec<Option<u32>> {
        let mut next = 0;
        let relevant: Vec<bool> = match self.facts {
            Some(f) => f.defs[d.0 as usize].iter().map(|p| p.relevant).collect(),
            None => vec![true; self.signature_len(d)],
        };
        relevant
            .into_iter()
            .map(|r| {
                r.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    }

    /// Whether a spine of `args` saturates function definition `d` with matching
    /// plicities.
    fn known_call(&self, d: DefId, args: &[(Plicity, &'p RcTerm)]) -> bool {
        let (lams, _) = lambdas(&self.prog.def(d).body);
        if lams.is_empty() || args.len() < lams.len() {
            return false;
        }
        lams.iter()
            .zip(args)
            .all(|(l, (pl, _))| matches!(&***l, Term::Lam(b, _) if b.plicity == *pl))
    }
}

/// The place a term carries itself: an operator's, a `match`'s, a hole's, or that of
/// the primitive at the head of an application.
fn own_span(t: &RcTerm) -> Option<Span> {
    let mut t = t;
    loop {
        match &**t {
            Term::Prim(_, s) | Term::Hole(_, s) | Term::Extern(_, s) => return Some(*s),
            Term::Match(m) => return Some(m.span),
            Term::App(f, _, _) => t = f,
            Term::Ann(e, _) => t = e,
            _ => return None,
        }
    }
}

/// The free variables of a term (de Bruijn indices as seen from outside `under`
/// binders), each once.
fn free_vars(t: &RcTerm, under: u32, out: &mut Vec<u32>) {
    stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
        if let Term::Var(ix) = &**t {
            if ix.0 >= under && !out.contains(&(ix.0 - under)) {
                out.push(ix.0 - under);
            }
            return;
        }
        t.for_each_child(|c, k| free_vars(c, under + k, out));
    })
}

/// The most variables a [`Code::Trim`] captures.
const TRIM_CAPS: usize = 6;

/// The most core nodes looked at to find a lazy term's free variables.
const TRIM_NODES: u32 = 256;

/// The most binders in scope a [`Code::Trim`] reaches past (its captures' indices).
const TRIM_SCOPE: u32 = 256;

/// [`free_vars`] of a term of at most `budget` nodes (`false`: more).
fn free_vars_within(t: &RcTerm, under: u32, out: &mut Vec<u32>, budget: &mut u32) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    if let Term::Var(ix) = &**t {
        if ix.0 >= under && !out.contains(&(ix.0 - under)) {
            out.push(ix.0 - under);
        }
        return true;
    }
    let mut ok = true;
    t.for_each_child(|c, k| {
        ok = ok && free_vars_within(c, under + k, out, budget);
    });
    ok
}

/// How many core nodes a cheap function's body has at most (the bodies of the
/// definitions it calls count apart).
const CHEAP_NODES: u32 = 48;

/// Whether definition `d`'s body (under its lambdas) is cheap ([`cheap_body`]),
/// remembered in `memo`; with `recursive`, calls of itself are allowed ([`Fun::hand`]
/// rather than [`Fun::cheap`](crate::machine::code::Fun::cheap)).
///
/// A body that calls a definition not decided yet is decided after it: the
/// definitions waiting for others are an explicit stack, so a chain of calls through
/// a hundred thousand definitions costs no native stack (issue 30). A body is looked at
/// again once each callee it waited for is decided (it has at most [`CHEAP_NODES`]
/// nodes), with the same outcome as deciding the callee in the middle of it.
fn cheap_def(
    prog: &Program,
    memo: &mut rustc_hash::FxHashMap<DefId, bool>,
    recursive: bool,
    inline: bool,
    d: DefId,
) -> bool {
    if let Some(&known) = memo.get(&d) {
        return known;
    }
    // While being decided: a definition that reaches itself is cheap only when
    // `recursive` (and then the machine still checks every callee's flag).
    memo.insert(d, recursive);
    let mut deciding = vec![d];
    while let Some(&top) = deciding.last() {
        match cheap_body(memo, lambdas(source_body(prog, top, inline)).1) {
            Ok(cheap) => {
                memo.insert(top, cheap);
                deciding.pop();
            }
            Err(callee) => {
                memo.insert(callee, recursive);
                deciding.push(callee);
            }
        }
    }
    memo.get(&d).copied().unwrap_or(false)
}

/// [`cheap_body`] of a function's body, deciding first the definitions it calls.
fn cheap_term(
    prog: &Program,
    memo: &mut rustc_hash::FxHashMap<DefId, bool>,
    recursive: bool,
    inline: bool,
    body: &RcTerm,
) -> bool {
    loop {
        match cheap_body(memo, body) {
            Ok(cheap) => return cheap,
            Err(d) => {
                cheap_def(prog, memo, recursive, inline, d);
            }
        }
    }
}

/// Whether a function's body (under its lambdas) is what
/// [`Fun::cheap`](crate::machine::code::Fun::cheap) asks: at most [`CHEAP_NODES`] nodes of
/// [`cheap_core`], and not a bare variable (nothing to compute). It compiles to the
/// nodes [`crate::machine::cheap`] computes; that evaluator decides, at run time, all the
/// rest (a node it does not take, a function value that is not cheap). `Err(d)`: the
/// answer needs definition `d` decided first.
fn cheap_body(memo: &rustc_hash::FxHashMap<DefId, bool>, body: &RcTerm) -> Result<bool, DefId> {
    let mut budget = CHEAP_NODES;
    Ok(!matches!(&**unann(body), Term::Var(_)) && cheap_core(memo, body, &mut budget)?)
}

/// Variables, literals, definitions' values, arithmetic, total primitives,
/// constructors, matches, non-recursive `let`s, and applications of variables and of
/// cheap definitions; implicit arguments (types) are not looked at. `Err(d)`: a
/// definition applied here is not decided yet ([`cheap_def`] decides it first).
fn cheap_core(
    memo: &rustc_hash::FxHashMap<DefId, bool>,
    t: &RcTerm,
    budget: &mut u32,
) -> Result<bool, DefId> {
    if *budget == 0 {
        return Ok(false);
    }
    *budget -= 1;
    let t = unann(t);
    Ok(match &**t {
        Term::Var(_) | Term::Lit(_) | Term::Def(_) | Term::Con(_) => true,
        Term::Match(m) => {
            if !cheap_core(memo, &m.scrut, budget)? {
                return Ok(false);
            }
            for arm in &m.arms {
                if !cheap_core(memo, &arm.body, budget)? {
                    return Ok(false);
                }
            }
            match &m.default {
                Some((_, body)) => cheap_core(memo, body, budget)?,
                None => true,
            }
        }
        Term::Let(_, rhs, body) => {
            !crate::core::subst::has_free_var(rhs, 0)
                && cheap_core(memo, rhs, budget)?
                && cheap_core(memo, body, budget)?
        }
        Term::App(..) => {
            let (head, args) = crate::core::term::spine(t);
            let head_ok = match &**unann(head) {
                Term::Prim(p, _) => {
                    (is_arith(*p) || *p == Prim::Seq)
                        && args
                            .iter()
                            .filter(|(pl, _)| *pl == Plicity::Explicit)
                            .count()
                            == 2
                        || crate::machine::cheap::cheap_prim(*p)
                }
                Term::Con(_) | Term::Var(_) => true,
                Term::Def(d) => match memo.get(d) {
                    Some(&known) => known,
                    None => return Err(*d),
                },
                _ => false,
            };
            if !head_ok {
                return Ok(false);
            }
            for (pl, a) in &args {
                if *pl == Plicity::Explicit && !cheap_core(memo, a, budget)? {
                    return Ok(false);
                }
            }
            true
        }
        _ => false,
    })
}

/// How many nodes [`numeric_code`] looks at.
const NUMERIC_NODES: usize = 256;

/// Whether compiled code is in the numeric tier's subset ([`crate::machine::numeric`]): slots
/// of the current record, number literals, constructors without fields, arithmetic, `if`s (matches on
/// constructors without fields, no catch-all) and known calls with every argument
/// strict.
fn numeric_code(store: &CodeStore<'_>, root: CodeId) -> bool {
    let mut work = vec![root];
    let mut seen = 0;
    while let Some(c) = work.pop() {
        seen += 1;
        if seen > NUMERIC_NODES {
            return false;
        }
        match store.nodes[c as usize] {
            Code::Local(_) | Code::Int(_) | Code::Float(_) | Code::Char(_) | Code::Atom(_) => {}
            Code::Bin { prim, a, b, .. } if is_arith(prim) => work.extend([a, b]),
            Code::Match(m) => {
                let mc = &store.matches[m as usize];
                if mc.default.is_some()
                    || !mc
                        .arms
                        .iter()
                        .all(|arm| arm.layout.is_none() && matches!(arm.test, ArmTest::Con(_)))
                {
                    return false;
                }
                work.push(mc.scrut);
                work.extend(mc.arms.iter().map(|arm| arm.body));
            }
            Code::CallDef { args, strict, .. }
                if args.len < 64 && strict == (1u64 << args.len) - 1 =>
            {
                work.extend_from_slice(store.args(args));
            }
            _ => return false,
        }
    }
    true
}

/// The [`SkipLoop`] shape of a top-level function `d`'s compiled body (`slots` slots),
/// if it has it. The test must be one the machine computes at hand when it can (an
/// application, or a call marked cheap or `hand`), so that the loop tries exactly
/// what the machine would.
fn skip_loop_shape(store: &CodeStore, d: DefId, slots: u32, body: CodeId) -> Option<SkipLoop> {
    let node = |c: CodeId| &store.nodes[c as usize];
    let Code::Match(m1) = *node(body) else {
        return None;
    };
    let bounds = &store.matches[m1 as usize];
    let (_, rest) = bounds.bool_arms?;
    let Code::Bin {
        prim: Prim::Ge,
        a,
        b,
        ..
    } = *node(bounds.scrut)
    else {
        return None;
    };
    let (Code::Local(lo), Code::Local(hi)) = (node(a), node(b)) else {
        return None;
    };
    let Code::Match(m2) = *node(rest) else {
        return None;
    };
    let test = &store.matches[m2 as usize];
    let (take, skip) = test.bool_arms?;
    let Code::CallDef { def, args, .. } = *node(skip) else {
        return None;
    };
    if !store.call_at_hand(test.scrut) || def != d || args.len != slots || lo == hi {
        return None;
    }
    let passes_on = (0..args.len).all(|i| {
        let a = store.args[(args.start + i) as usize];
        match node(a) {
            Code::Local(s) => *s == i && i != *lo,
            Code::Bin {
                prim: Prim::Add,
                a,
                b,
                ..
            } => {
                i == *lo
                    && matches!(node(*a), Code::Local(s) if s == lo)
                    && matches!(node(*b), Code::Int(1))
            }
            _ => false,
        }
    });
    passes_on.then_some(SkipLoop {
        lo: *lo,
        hi: *hi,
        test: m2,
        take,
    })
}

/// Whether definition `d` is `\{..} x y -> prim_seq x y`: its last two parameters
/// explicit, the others implicit, and its body `prim_seq` of those two in order.
fn seq_alias(prog: &Program, d: DefId) -> bool {
    let (lams, body) = lambdas(&prog.def(d).body);
    let n = lams.len();
    if n < 2 {
        return false;
    }
    let plicity = |l: &RcTerm| match &**l {
        Term::Lam(b, _) => b.plicity,
        _ => Plicity::Implicit,
    };
    if lams[..n - 2]
        .iter()
        .any(|l| plicity(l) != Plicity::Implicit)
        || lams[n - 2..]
            .iter()
            .any(|l| plicity(l) != Plicity::Explicit)
    {
        return false;
    }
    let (head, args) = crate::core::term::spine(body);
    let explicit: Vec<&RcTerm> = args
        .iter()
        .filter(|(pl, _)| *pl == Plicity::Explicit)
        .map(|(_, a)| *a)
        .collect();
    matches!(&**unann(head), Term::Prim(Prim::Seq, _))
        && explicit.len() == 2
        && matches!(&**unann(explicit[0]), Term::Var(ix) if ix.0 == 1)
        && matches!(&**unann(explicit[1]), Term::Var(ix) if ix.0 == 0)
}
