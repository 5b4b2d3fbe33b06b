//! Readback of a paused evaluation: the whole machine state as one closed core term
//! (Rogers' point: every intermediate state of the machine is a term), so that an
//! evaluation can be stopped, encoded, stored, moved and resumed.
//!
//! # Bindings
//!
//! Every thunk the root reaches, and every other heap object referenced more than
//! once, becomes one binding; everything else reads back inline. A binding's
//! right-hand side is its content: an evaluated thunk's value, a suspended thunk's
//! code with its free variables replaced by what its record chain holds, a failed
//! thunk's `error`, and a black-holed thunk's *segment* of the frame stack (below).
//! References between bindings are placeholders while they are read
//! ([`super::readback::PLACE`]) and become variables once the bindings are ordered.
//!
//! Bindings refer to one another in cycles (a recursive `let`, a black-holed thunk and
//! the arguments that mention it, data that refers to itself). The core `let` is
//! recursive in one binder, so the bindings are ordered by their strongly connected
//! components, dependencies first, into a chain of `let`s: a component of one binding
//! is one `let`; a component of several is one `let` of a balanced tree of pairs of
//! their right-hand sides, each member a projection of it (pair fields are lazy, so the
//! members stay suspended and shared as they were).
//!
//! # Frames
//!
//! Read from the top down, the frame stack is a term context around the loop's
//! control: each frame plugs the term so far, `t`, into a larger one (`t a` for a
//! pending argument, `match t with ...` for a `Case`, the primitive applied to the
//! values it has, `t` and the arguments still to evaluate, a structural comparison
//! joined with `match`es on `Bool`, ...). An update frame ends a segment: the term so
//! far is the right-hand side of the thunk it updates, and the segment below goes on
//! from a reference to that thunk. The segment below the lowest update frame is what
//! the native caller waits for; the callers that can pause evaluate the root, so that
//! value is already part of the term.

use super::Sight;
use super::readback::{PLACE, Reader, hole};
use crate::core::subst::{map_match, rewrite};
use crate::core::term::{Binder, CaseArm, CasePat, DefId, Ix, Lit, Match, Plicity, RcTerm, Term};
use crate::machine::code::{Code, NO_SCOPE};
use crate::machine::frame::{Control, Frame, StrictOp};
use crate::machine::heap::{PapHead, ThunkState};
use crate::machine::value::{NIL, Ref, Val};
use crate::prim::Prim;
use crate::syntax::span::{FileId, Span};
use std::collections::HashMap;
use std::fmt;

/// Why a state cannot be read back.
#[derive(Debug, Clone, PartialEq)]
pub struct StateError(pub String);

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StateError {}

fn nowhere() -> Span {
    Span::new(FileId(0), 0, 0)
}

fn app(f: RcTerm, a: RcTerm) -> RcTerm {
    Term::App(f, Plicity::Explicit, a).rc()
}

impl<'a, 'p> Sight<'a, 'p> {
    /// The whole paused state as one closed term whose value is the value of `root`
    /// (a word the paused evaluation was computing, usually a definition's thunk).
    pub fn read_back_state(&self, root: Val) -> Result<RcTerm, StateError> {
        if self.host.as_ref().is_some_and(|h| h.fibers()) {
            return Err(StateError(
                "a state with several fibers is not read back (pause sequential runs)".into(),
            ));
        }
        let ctl = self.run.paused.unwrap_or(Control::Ret(root));
        let mut r = Reader::new(*self);
        // 1. Every object the state reaches that becomes a binding.
        let order = self.state_objects(root, &ctl);
        for (i, k) in order.iter().enumerate() {
            r.places.insert(*k, i as u32);
        }
        let n = order.len();
        let mut rhs: Vec<Option<RcTerm>> = vec![None; n];
        // 2. The frames: segments for black-holed thunks.
        let mut t = match ctl {
            Control::Eval(c, env) => r.code(c, env, 0),
            Control::Force(th) => r.word(Val::Thunk(th), 0),
            Control::Ret(v) => r.word(v, 0),
            Control::Park => hole(),
        };
        let (mut vals_top, mut pending_top, mut deep_top, mut eq_top) = (
            self.stacks.vals.len(),
            self.stacks.pending.len(),
            self.stacks.deep.len(),
            self.stacks.eq_work.len(),
        );
        for f in self.stacks.frames.iter().rev() {
            t = match *f {
                Frame::Update(th) => {
                    let id = r.places[&(1, th)] as usize;
                    rhs[id] = Some(t);
                    Term::Def(DefId(PLACE + id as u32)).rc()
                }
                Frame::Arg(v, implicit) => {
                    let pl = if implicit {
                        Plicity::Implicit
                    } else {
                        Plicity::Explicit
                    };
                    Term::App(t, pl, r.word(v, 0)).rc()
                }
                Frame::Case { m, env } => {
                    let mc = &self.code.matches[m as usize];
                    let meta = &self.code.meta[mc.node as usize];
                    let (scope, depth) = (meta.scope, meta.depth);
                    map_match(mc.core, t, &mut |code, k| {
                        r.term_in(code, scope, depth, env, k, 0)
                    })
                }
                Frame::BinL { prim, b, env, span } => {
                    app(app(Term::Prim(prim, span).rc(), t), r.code(b, env, 0))
                }
                Frame::BinLv { prim, b, span } => {
                    app(app(Term::Prim(prim, span).rc(), t), r.word(b, 0))
                }
                Frame::BinR { prim, a, span } => {
                    app(app(Term::Prim(prim, span).rc(), r.word(a, 0)), t)
                }
                Frame::CallArgs {
                    code,
                    env,
                    next,
                    rec,
                } => self.call_args_term(&mut r, code, env, next, rec, t),
                Frame::Strict { op, n, done, .. } => {
                    let done = done as usize;
                    let rest = (n as usize).saturating_sub(done + 1);
                    let have = &self.stacks.vals[vals_top - done..vals_top];
                    vals_top -= done;
                    let later = &self.stacks.pending[pending_top - rest..pending_top];
                    pending_top -= rest;
                    let head = match op {
                        StrictOp::Prim(p, span) => Term::Prim(p, span).rc(),
                        StrictOp::Extern(e, site) => {
                            Term::Extern(e, self.code.site_span(site)).rc()
                        }
                    };
                    let mut term = head;
                    for &v in have {
                        term = app(term, r.word(v, 0));
                    }
                    term = app(term, t);
                    // The pending stack holds the next argument on top.
                    for &v in later.iter().rev() {
                        term = app(term, r.word(v, 0));
                    }
                    term
                }
                Frame::LetStrict { layout, body, env } => {
                    let meta = &self.code.meta[body as usize];
                    let outer = if meta.scope == NO_SCOPE {
                        NO_SCOPE
                    } else {
                        self.code.scopes[meta.scope as usize].next
                    };
                    let b = self.code.slot_binder(layout, 0).cloned().unwrap_or(Binder {
                        name: "x".into(),
                        plicity: Plicity::Explicit,
                        ty: hole(),
                    });
                    let body_t = r.term_in(meta.core, outer, meta.depth - 1, env, 1, 0);
                    let binder = Binder {
                        name: b.name.clone(),
                        plicity: b.plicity,
                        ty: hole(),
                    };
                    // The right-hand side is under the (recursive) binder: nothing in
                    // it refers to the binding, and placeholders do not shift.
                    Term::Let(binder, t, body_t).rc()
                }
                Frame::SeqB { b, env } => app(
                    app(Term::Prim(Prim::Seq, nowhere()).rc(), t),
                    r.code(b, env, 0),
                ),
                Frame::ConcatL { b, span } => {
                    app(app(Term::Prim(Prim::Concat, span).rc(), t), r.word(b, 0))
                }
                Frame::ConcatR { a } => app(
                    app(Term::Prim(Prim::Concat, nowhere()).rc(), r.word(a, 0)),
                    t,
                ),
                Frame::Deep { root, base, .. } => {
                    deep_top = deep_top.min(base as usize);
                    let _ = deep_top;
                    r.word(root, 0)
                }
                Frame::EqLeft(right) => self.eq_term(t, r.word(right, 0)),
                Frame::EqRight(left) => self.eq_term(r.word(left, 0), t),
                Frame::Eq { base, negate, .. } => {
                    let pairs = &self.stacks.eq_work[base as usize..eq_top];
                    eq_top = base as usize;
                    let mut all = t;
                    for &(a, b) in pairs.iter().rev() {
                        let e = self.eq_term(r.word(a, 0), r.word(b, 0));
                        all = self.and_term(all, e);
                    }
                    if negate { self.not_term(all) } else { all }
                }
                Frame::Try | Frame::After(_) | Frame::Stream | Frame::Declare { .. } => {
                    return Err(StateError(
                        "a paused `try`, `after` or printer stream is not read back".into(),
                    ));
                }
            };
        }
        // 3. The other bindings' right-hand sides.
        for (i, &(kind, obj)) in order.iter().enumerate() {
            if rhs[i].is_some() {
                continue;
            }
            let v = key_val(kind, obj);
            r.top = Some((kind, obj));
            rhs[i] = Some(match v {
                Val::Thunk(th) => match self.heap.thunks.get(th).state {
                    ThunkState::Done(x) => r.word(x, 0),
                    ThunkState::Suspended { code, env } => r.code(code, env, 0),
                    ThunkState::Failed(e) => {
                        let msg = self.heap.failures[e as usize].message.clone();
                        app(
                            Term::Prim(Prim::Error, nowhere()).rc(),
                            Term::Lit(Lit::Str(msg.into())).rc(),
                        )
                    }
                    ThunkState::Blackholed { .. } => {
                        return Err(StateError(
                            "a thunk is being evaluated by no frame of this fiber".into(),
                        ));
                    }
                },
                other => r.word(other, 0),
            });
            r.top = None;
        }
        let root_t = r.word(root, 0);
        drop(r);
        let rhs: Vec<RcTerm> = rhs.into_iter().map(|t| t.unwrap_or_else(hole)).collect();
        Ok(self.bind_all(rhs, root_t))
    }

    /// The objects of a paused state that become bindings, in discovery order.
    fn state_objects(&self, root: Val, ctl: &Control) -> Vec<(u8, Ref)> {
        let mut seen: HashMap<(u8, Ref), ()> = HashMap::new();
        let mut seen_recs: HashMap<Ref, ()> = HashMap::new();
        let mut order = Vec::new();
        let mut work: Vec<Val> = vec![root];
        let mut recs: Vec<Ref> = Vec::new();
        let push_held =
            |h: crate::machine::host::HeldRef, work: &mut Vec<Val>, recs: &mut Vec<Ref>| match h {
                crate::machine::host::HeldRef::Val(v) => work.push(v),
                crate::machine::host::HeldRef::Rec(r) => recs.push(r),
            };
        self.running_refs(Some(ctl), &mut |h| push_held(h, &mut work, &mut recs));
        loop {
            if let Some(r) = recs.pop() {
                if r == NIL || seen_recs.insert(r, ()).is_some() {
                    continue;
                }
                let o = self.heap.recs.get(r);
                work.extend_from_slice(o.slots.get(&self.heap.words));
                recs.push(o.parent);
                continue;
            }
            let Some(v) = work.pop() else { break };
            let Some(k) = Reader::object_key(v) else {
                continue;
            };
            if seen.insert(k, ()).is_some() {
                continue;
            }
            let shared = match v {
                Val::Thunk(_) => true,
                Val::Con(r) => self.heap.cons.get(r).rc > 1,
                Val::Fun(r) => self.heap.funs.get(r).rc > 1,
                Val::Pap(r) => self.heap.paps.get(r).rc > 1,
                _ => false,
            };
            if shared {
                order.push(k);
            }
            match v {
                Val::Thunk(t) => match self.heap.thunks.get(t).state {
                    ThunkState::Done(x) => work.push(x),
                    ThunkState::Suspended { env, .. } => recs.push(env),
                    _ => {}
                },
                Val::Con(r) => work.extend_from_slice(self.heap.fields(r)),
                Val::Fun(r) => recs.push(self.heap.funs.get(r).env),
                Val::Pap(r) => {
                    let o = self.heap.paps.get(r);
                    work.extend_from_slice(self.heap.words.get(o.args));
                    if let PapHead::Fun(f) = o.head {
                        work.push(Val::Fun(f));
                    }
                }
                Val::Pi(r) => recs.push(self.heap.pis.get(r).env),
                Val::Stuck(r) => {
                    let o = self.heap.stucks.get(r);
                    recs.push(o.env);
                    work.push(o.scrut);
                }
                _ => {}
            }
        }
        order
    }

    /// A known call being made: the arguments before `next` are in the callee's
    /// record `rec`, the one at `next` is `t`, the rest are code in `env`.
    fn call_args_term(
        &self,
        r: &mut Reader<'_, 'p>,
        code: u32,
        env: Ref,
        next: u32,
        rec: Ref,
        t: RcTerm,
    ) -> RcTerm {
        let Code::CallDef { def, args, .. } = self.code.nodes[code as usize] else {
            return t;
        };
        let Some(crate::machine::compile::DefCode::Fun(f)) =
            self.def_code.get(def.0 as usize).copied()
        else {
            return t;
        };
        let meta = &self.code.meta[code as usize];
        let (scope, depth) = (meta.scope, meta.depth);
        // The core arguments of the call, in order.
        let mut core_args = Vec::new();
        let mut head = meta.core;
        while let Term::App(g, pl, a) = &**head {
            core_args.push((*pl, a));
            head = g;
        }
        core_args.reverse();
        let params = &self.code.funs[f as usize].params;
        let mut term = Term::Def(def).rc();
        for (i, p) in params.iter().enumerate() {
            let (pl, a) = core_args[i];
            let arg = match p.slot {
                Some(k) if k < next => r.word(self.heap.slot(rec, k), 0),
                Some(k) if k == next => t.clone(),
                _ => r.term_in(a, scope, depth, env, 0, 0),
            };
            term = Term::App(term, pl, arg).rc();
        }
        let _ = args;
        term
    }

    fn bool_con(&self, b: bool) -> RcTerm {
        let bi = self.prog.builtins;
        Term::Con(if b { bi.true_ } else { bi.false_ }).rc()
    }

    fn eq_term(&self, a: RcTerm, b: RcTerm) -> RcTerm {
        app(app(Term::Prim(Prim::Eq, nowhere()).rc(), a), b)
    }

    /// `a && b` as a match on `Bool`.
    fn and_term(&self, a: RcTerm, b: RcTerm) -> RcTerm {
        let bi = self.prog.builtins;
        Term::Match(Box::new(Match {
            scrut: a,
            arms: vec![
                CaseArm {
                    pat: CasePat::Con(bi.true_, vec![]),
                    body: b,
                },
                CaseArm {
                    pat: CasePat::Con(bi.false_, vec![]),
                    body: self.bool_con(false),
                },
            ],
            default: None,
            span: nowhere(),
        }))
        .rc()
    }

    fn not_term(&self, a: RcTerm) -> RcTerm {
        let bi = self.prog.builtins;
        Term::Match(Box::new(Match {
            scrut: a,
            arms: vec![
                CaseArm {
                    pat: CasePat::Con(bi.true_, vec![]),
                    body: self.bool_con(false),
                },
                CaseArm {
                    pat: CasePat::Con(bi.false_, vec![]),
                    body: self.bool_con(true),
                },
            ],
            default: None,
            span: nowhere(),
        }))
        .rc()
    }

    /// Orders the bindings by strongly connected components, dependencies first, and
    /// builds the chain of `let`s ending in `body`, with every placeholder a variable.
    fn bind_all(&self, rhs: Vec<RcTerm>, body: RcTerm) -> RcTerm {
        let n = rhs.len();
        let deps: Vec<Vec<u32>> = rhs.iter().map(placeholders).collect();
        let edges: Vec<Vec<usize>> = deps
            .iter()
            .map(|d| d.iter().map(|&w| w as usize).collect())
            .collect();
        let comps: Vec<Vec<u32>> = crate::core::graph::components(&edges)
            .into_iter()
            .map(|c| c.into_iter().map(|v| v as u32).collect())
            .collect();
        // Where each binding ends up: its component's position in the chain, and its
        // path in the component's pair tree.
        let mut pos = vec![(0u32, 0u32, 0u32); n]; // (chain position, index in comp, comp size)
        for (ci, comp) in comps.iter().enumerate() {
            for (j, &b) in comp.iter().enumerate() {
                pos[b as usize] = (ci as u32, j as u32, comp.len() as u32);
            }
        }
        let mut chain: Vec<(Binder, RcTerm)> = Vec::with_capacity(comps.len());
        for (ci, comp) in comps.iter().enumerate() {
            let members: Vec<RcTerm> = comp
                .iter()
                .map(|&b| self.resolve(&rhs[b as usize], ci as u32, true, &pos))
                .collect();
            let name = if comp.len() == 1 {
                format!("s{}", comp[0])
            } else {
                format!("g{ci}")
            };
            chain.push((
                Binder {
                    name: name.into(),
                    plicity: Plicity::Explicit,
                    ty: hole(),
                },
                self.pair_tree(&members),
            ));
        }
        let mut t = self.resolve(&body, comps.len() as u32, false, &pos);
        for (b, r) in chain.into_iter().rev() {
            t = Term::Let(b, r, t).rc();
        }
        t
    }

    /// Replaces placeholders in a term that sits in the right-hand side of chain
    /// position `at` (`inside`) or after the whole chain of `at` bindings.
    fn resolve(&self, t: &RcTerm, at: u32, inside: bool, pos: &[(u32, u32, u32)]) -> RcTerm {
        rewrite(t, &mut |node, d| match &**node {
            Term::Def(DefId(x)) if *x >= PLACE => {
                let (ci, j, size) = pos[(*x - PLACE) as usize];
                // Chain position `ci` is bound by the `ci`-th let; seen from position
                // `at`, it is `at - ci` lets out (inside a right-hand side, its own let
                // is already in scope).
                let lets_between = if inside { at - ci } else { at - ci - 1 };
                let var = Term::Var(Ix(d + lets_between)).rc();
                Some(self.project(var, j, size))
            }
            _ => None,
        })
    }

    /// A balanced tree of pairs of `members` (one member: itself).
    fn pair_tree(&self, members: &[RcTerm]) -> RcTerm {
        if members.len() == 1 {
            return members[0].clone();
        }
        let mid = members.len() / 2;
        let bi = self.prog.builtins;
        let l = self.pair_tree(&members[..mid]);
        let rr = self.pair_tree(&members[mid..]);
        app(app(Term::Con(bi.mk_pair).rc(), l), rr)
    }

    /// Member `j` of a pair tree of `size` members held by `var`.
    fn project(&self, var: RcTerm, j: u32, size: u32) -> RcTerm {
        if size <= 1 {
            return var;
        }
        let mid = size / 2;
        let bi = self.prog.builtins;
        let (left, idx, sub) = if j < mid {
            (true, j, mid)
        } else {
            (false, j - mid, size - mid)
        };
        let field = |name: &str| Binder {
            name: name.into(),
            plicity: Plicity::Explicit,
            ty: hole(),
        };
        let proj = Term::Match(Box::new(Match {
            scrut: var,
            arms: vec![CaseArm {
                pat: CasePat::Con(bi.mk_pair, vec![field("l"), field("r")]),
                body: Term::Var(Ix(if left { 1 } else { 0 })).rc(),
            }],
            default: None,
            span: nowhere(),
        }))
        .rc();
        self.project(proj, idx, sub)
    }
}

/// The word of an object key.
fn key_val(kind: u8, r: Ref) -> Val {
    match kind {
        0 => Val::Con(r),
        1 => Val::Thunk(r),
        2 => Val::Fun(r),
        3 => Val::Pap(r),
        4 => Val::Pi(r),
        _ => Val::Stuck(r),
    }
}

/// The bindings a term refers to.
fn placeholders(t: &RcTerm) -> Vec<u32> {
    let mut out = Vec::new();
    let mut work = vec![t];
    while let Some(t) = work.pop() {
        if let Term::Def(DefId(x)) = &**t
            && *x >= PLACE
        {
            out.push(*x - PLACE);
        }
        t.for_each_child(|c, _| work.push(c));
    }
    out
}
