//! Analyses of a checked program that machine code needs (DESIGN.md section 1):
//!
//! - **Relevance.** A binder is *relevant* when its variable is used at run time:
//!   anywhere but in a type annotation, a `Pi`, an implicit argument of a
//!   constructor or external, or an argument at an irrelevant parameter of a known
//!   definition. Irrelevant parameters (types, proofs nothing inspects) are erased
//!   from machine code; relevant implicit ones (`def f {n : Int} (x : Int) = n + x`)
//!   are ordinary arguments. Definitions may be mutually recursive, so the facts are
//!   a least fixed point: nothing is relevant until a real use says so.
//! - **Strictness.** A parameter is *strict* when evaluating the definition's body to
//!   weak head normal form certainly evaluates it (or the body diverges), by abstract
//!   interpretation over the core: a variable needs itself; a strict primitive or an
//!   external needs its operands; a `match` needs its scrutinee and what every arm
//!   needs; a known call needs its arguments at strict parameters; `error` needs
//!   everything (it never returns). Higher-order arguments are treated conservatively
//!   (applying an unknown function needs only the function). A greatest fixed point:
//!   every parameter is strict until the body shows it need not be. The machine
//!   evaluates strict arguments before a call, and the scheduler forks them (they are
//!   certainly needed).
//! - **Strictness under a condition.** Applying a function parameter `f` needs what
//!   its arguments need *if* `f` needs them: a parameter may be strict provided the
//!   function passed at another parameter needs its argument at some position
//!   ([`CondStrict`]: `foldl`'s accumulator, given a step that needs it; the same for
//!   a user's own fold). Conditions do not nest (one per parameter, on a parameter of
//!   the same definition), and they weaken like strictness does: strict, then strict
//!   under one condition, then lazy. Every lambda's own strictness is recorded too
//!   ([`Facts::lam_strict`]), so that the machine can check a condition on the
//!   function value a call passes (`super::super::apply`, `cond_strict`). See
//!   docs/strictness.md.
//!
//! Both passes walk the core with [`stacker`] for deep terms.

use super::codegen::source_body;
use crate::core::program::Program;
use crate::core::term::{CasePat, DefId, Plicity, RcTerm, Term};
use crate::prim::Prim;
use std::collections::HashSet;

/// What the analyses found for one parameter of a definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamFacts {
    /// Whether it is implicit.
    pub implicit: bool,
    /// Whether it is used at run time.
    pub relevant: bool,
    /// Whether the body certainly evaluates it.
    pub strict: bool,
    /// When not `strict`: the body certainly evaluates it provided the function
    /// passed at another parameter is strict in one of its arguments
    /// ([`CondStrict`]; `foldl`'s accumulator, when its step needs the accumulator).
    pub cond: Option<CondStrict>,
}

/// A condition under which a parameter is strict: the function given at parameter
/// `fun` (an index among the definition's parameters), applied to at least `pos + 1`
/// and at most `nargs` arguments, certainly evaluates its argument at `pos` (counting
/// implicit arguments). Checked at run time on the function value a call passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CondStrict {
    /// The function's parameter.
    pub fun: u32,
    /// Which of its arguments.
    pub pos: u32,
    /// How many arguments it is applied to where it needs that one.
    pub nargs: u32,
}
#[derive(Debug, Default)]
pub struct Facts {
    /// Per definition: the parameters of its leading lambdas (empty for a definition
    /// whose body is not a function).
    pub defs: Vec<Vec<ParamFacts>>,
    /// Lambdas (by address of the `Term::Lam` node) whose binder is irrelevant.
    pub irrelevant_lams: HashSet<usize>,
    /// `let`s (by address of the `Term::Let` node) whose body certainly needs the
    /// binding (and whose right-hand side does not refer to itself).
    pub strict_lets: HashSet<usize>,
    /// Per lambda group that is not a definition's parameters (by address of its
    /// outermost `Term::Lam`): bit `k` when its body certainly evaluates its `k`-th
    /// parameter (for the first 64); read where a conditionally strict parameter
    /// ([`CondStrict`]) is passed a lambda.
    pub lam_strict: std::collections::HashMap<usize, u64>,
    /// Per definition: whether evaluating it may reach an external (directly, through
    /// another definition, or through a function not known at compile time).
    pub may_call: Vec<bool>,
    /// Per definition: whether it may reach an external other than through the
    /// functions it is given (`map` calls only what its function does).
    pub calls_itself: Vec<bool>,
    /// Whether the facts are of the bodies inlining made ([`super::inline`]; the
    /// code compiled must be of the same bodies: facts are keyed by node).
    pub inline: bool,
    /// The external that reads a stream's rest (`prim_streamNext`): not a call for
    /// these facts (waiting on a producer that is already running; a fiber forked to
    /// read a stream ahead would only hold it in memory).
    pub quiet_extern: Option<crate::core::term::ExternId>,
    /// The prelude's `foldlRange`, if the program has it ([`super::fuse`]).
    pub fold_range: Option<DefId>,
    /// Per definition: the arguments of a known call (bit `i`: the call's `i`-th
    /// argument, as [`crate::machine::code::Code::CallDef`] holds them) whose whole
    /// spine the call certainly walks when its value is needed (`.0`), and when its own
    /// spine is (`.1`) ([`super::spine`]).
    pub spine: Vec<(u64, u64)>,
    /// The spine signatures themselves ([`super::spine::signatures`]), for what a
    /// `match` needs whichever arm it takes ([`super::spine::arm_needs`]); empty when
    /// `main` reaches no external (nothing is ever forked then).
    pub spine_sigs: super::spine::Signatures,
    /// Per definition: the arguments of a known call whose whole spine it walks when
    /// the function it is passed meets a condition ([`super::spine::cond_signatures`];
    /// empty when `main` reaches no external).
    pub spine_cond: Vec<Option<SpineCond>>,
}

/// [`Facts::spine`] under a condition on the function a call passes: the function
/// at argument `fun_arg`, applied to at least `pos + 1` and at most `nargs`
/// arguments, needs its argument `pos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpineCond {
    /// The argument holding the function (an index into the call's arguments).
    pub fun_arg: u32,
    /// Which of its arguments it must need.
    pub pos: u32,
    /// At most how many arguments the callee applies it to.
    pub nargs: u32,
    /// As [`Facts::spine`]`.0`, when the condition holds.
    pub on_whnf: u64,
    /// As [`Facts::spine`]`.1`, when the condition holds.
    pub on_spine: u64,
}

/// Every definition's body as the analyses see it ([`source_body`]), in order.
pub fn bodies(prog: &Program, inline: bool) -> impl Iterator<Item = &RcTerm> {
    (0..prog.defs.len()).map(move |d| source_body(prog, DefId(d as u32), inline))
}

/// The address of a term node, its identity for the side tables.
pub fn addr(t: &RcTerm) -> usize {
    &**t as *const Term as usize
}

/// Strips type annotations.
pub fn unann(mut t: &RcTerm) -> &RcTerm {
    while let Term::Ann(e, _) = &**t {
        t = e;
    }
    t
}

/// The leading lambdas of a definition's body: (plicity, lambda node) outermost first,
/// and the body under them.
pub fn lambdas(body: &RcTerm) -> (Vec<&RcTerm>, &RcTerm) {
    let mut lams = Vec::new();
    let mut t = unann(body);
    while let Term::Lam(_, b) = &**t {
        lams.push(t);
        t = unann(b);
    }
    (lams, t)
}

/// Runs both analyses.
pub fn analyse(prog: &Program, inline: bool) -> Facts {
    let mut facts = Facts {
        inline,
        defs: (0..prog.defs.len())
            .map(|d| {
                lambdas(source_body(prog, DefId(d as u32), inline))
                    .0
                    .iter()
                    .map(|l| {
                        let Term::Lam(b, _) = &***l else {
                            unreachable!()
                        };
                        ParamFacts {
                            implicit: b.plicity == Plicity::Implicit,
                            relevant: false,
                            strict: true,
                            cond: None,
                        }
                    })
                    .collect()
            })
            .collect(),
        ..Facts::default()
    };
    relevance(prog, &mut facts);
    strictness(prog, &mut facts);
    externals(prog, &mut facts);
    facts.fold_range = super::fuse::fold_range_def(prog);
    let (masks, sigs) = spine_masks(prog, &facts);
    facts.spine = masks;
    facts.spine_sigs = sigs;
    facts.spine_cond = spine_conds(prog, &facts);
    facts
}

/// [`Facts::spine`] from the spine signatures: a known call's arguments are its
/// relevant parameters, in order.
fn spine_masks(prog: &Program, facts: &Facts) -> (Vec<(u64, u64)>, super::spine::Signatures) {
    // A program whose `main` can reach no external has no call to start early: its
    // lists are never walked ahead of their consumer.
    if let Some(main) = prog.main
        && !reaches_extern(prog, main, facts.inline)
    {
        return (vec![(0, 0); facts.defs.len()], Vec::new());
    }
    let sigs = super::spine::signatures(prog, facts);
    let masks = facts
        .defs
        .iter()
        .zip(&sigs)
        .map(|(ps, sig)| sig_masks(ps, sig))
        .collect();
    (masks, sigs)
}

/// A signature as bits of a known call's arguments (its relevant parameters, in
/// order): walked to their end when the call's value is needed, and when its spine is.
fn sig_masks(ps: &[ParamFacts], sig: &[(u8, u8)]) -> (u64, u64) {
    let (mut on_whnf, mut on_spine) = (0u64, 0u64);
    let mut i = 0;
    for (p, &(w, s)) in ps.iter().zip(sig) {
        if !p.relevant {
            continue;
        }
        if i < 64 {
            if w == super::spine::SPINE {
                on_whnf |= 1 << i;
            }
            if s == super::spine::SPINE {
                on_spine |= 1 << i;
            }
        }
        i += 1;
    }
    (on_whnf, on_spine)
}

/// [`Facts::spine_cond`] from the conditional spine signatures: the condition's
/// function as an argument index of a known call.
fn spine_conds(prog: &Program, facts: &Facts) -> Vec<Option<SpineCond>> {
    if facts.spine_sigs.is_empty() {
        return Vec::new();
    }
    super::spine::cond_signatures(prog, facts, &facts.spine_sigs)
        .into_iter()
        .zip(&facts.defs)
        .map(|(c, ps)| {
            let c = c?;
            if !ps.get(c.fun)?.relevant {
                return None;
            }
            let fun_arg = ps[..c.fun].iter().filter(|p| p.relevant).count() as u32;
            let (on_whnf, on_spine) = sig_masks(ps, &c.sig);
            Some(SpineCond {
                fun_arg,
                pos: c.pos,
                nargs: c.nargs,
                on_whnf,
                on_spine,
            })
        })
        .collect()
}

/// Whether an external is mentioned in `root` or in a definition it refers to,
/// however indirectly (every function value a run can apply comes from those).
fn reaches_extern(prog: &Program, root: DefId, inline: bool) -> bool {
    let mut seen = vec![false; prog.defs.len()];
    let mut defs = vec![root];
    seen[root.0 as usize] = true;
    while let Some(d) = defs.pop() {
        let mut work = vec![source_body(prog, d, inline)];
        while let Some(t) = work.pop() {
            match &**t {
                Term::Extern(..) => return true,
                Term::Def(e) => {
                    if let Some(s) = seen.get_mut(e.0 as usize)
                        && !*s
                    {
                        *s = true;
                        defs.push(*e);
                    }
                }
                _ => push_children(t, &mut work),
            }
        }
    }
    false
}

/// How many nodes [`may_call`] looks at before it assumes the worst.
const MAY_CALL_NODES: usize = 2_000;

/// Whether evaluating a term may reach an external: it mentions one (but `quiet`),
/// applies a function not known at compile time (when `unknown` says such a function
/// may call), or refers to a definition that may. `defs` is the per-definition answer
/// so far (`None`: every definition may).
fn term_may_call(
    t: &RcTerm,
    defs: Option<&[bool]>,
    quiet: Option<crate::core::term::ExternId>,
    unknown: bool,
) -> bool {
    let mut work = vec![t];
    let mut seen = 0;
    while let Some(t) = work.pop() {
        seen += 1;
        if seen > MAY_CALL_NODES {
            return true;
        }
        match &**t {
            Term::Extern(e, _) if Some(*e) == quiet => {}
            Term::Extern(..) => return true,
            Term::Def(d) if defs.is_none_or(|ds| ds.get(d.0 as usize).copied().unwrap_or(true)) => {
                return true;
            }
            Term::App(..) => {
                let mut head = t;
                while let Term::App(f, _, a) = &**head {
                    work.push(a);
                    head = f;
                }
                match &**unann(head) {
                    Term::Def(_)
                    | Term::Con(_)
                    | Term::Prim(..)
                    | Term::Extern(..)
                    | Term::Data(_) => work.push(head),
                    _ if unknown => return true,
                    _ => work.push(head),
                }
            }
            _ => push_children(t, &mut work),
        }
    }
    false
}

/// Whether evaluating `t` may reach the primitive `error` written in it (a lambda's
/// body included; types are not looked at).
pub fn names_error(t: &RcTerm) -> bool {
    let mut work = vec![t];
    while let Some(t) = work.pop() {
        match &**t {
            Term::Prim(Prim::Error, _) => return true,
            _ => push_children(t, &mut work),
        }
    }
    false
}

/// Pushes the parts of a term that run when it is evaluated (an application's head
/// and argument, an annotated term, a lambda's body, a `let`'s two sides, a match's
/// scrutinee and arms; a type, `Pi`, runs nothing), for the walks above.
fn push_children<'a>(t: &'a RcTerm, work: &mut Vec<&'a RcTerm>) {
    match &**t {
        Term::App(f, _, a) => {
            work.push(f);
            work.push(a);
        }
        Term::Ann(e, _) | Term::Lam(_, e) => work.push(e),
        Term::Let(_, r, b) => {
            work.push(r);
            work.push(b);
        }
        Term::Match(m) => {
            work.push(&m.scrut);
            for arm in &m.arms {
                work.push(&arm.body);
            }
            if let Some((_, b)) = &m.default {
                work.push(b);
            }
        }
        _ => {}
    }
}

fn externals(prog: &Program, facts: &mut Facts) {
    let quiet = prog
        .externs
        .iter()
        .position(|e| &*e.name == crate::core::program::STREAM_NEXT)
        .map(|i| crate::core::term::ExternId(i as u32));
    facts.quiet_extern = quiet;
    let inline = facts.inline;
    let fixpoint = |unknown: bool| {
        let mut may = vec![false; prog.defs.len()];
        loop {
            let mut changed = false;
            for (i, body) in bodies(prog, inline).enumerate() {
                if !may[i] && term_may_call(body, Some(&may), quiet, unknown) {
                    may[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        may
    };
    facts.may_call = fixpoint(true);
    facts.calls_itself = fixpoint(false);
}

/// Whether evaluating a term of `prog` may reach an external (for the scheduler: a
/// fiber for pure computation gains nothing).
pub fn may_call(facts: Option<&Facts>, t: &RcTerm) -> bool {
    term_may_call(
        t,
        facts.map(|f| f.may_call.as_slice()),
        facts.and_then(|f| f.quiet_extern),
        true,
    )
}

/// Whether definition `d` may reach an external other than through the functions it
/// is given ([`Facts::calls_itself`]; without facts, it may).
pub fn calls_itself(facts: Option<&Facts>, d: DefId) -> bool {
    facts
        .and_then(|f| f.calls_itself.get(d.0 as usize).copied())
        .unwrap_or(true)
}

// ----- relevance ------------------------------------------------------------------

/// Marks relevant uses: `stack` maps de Bruijn indices to binder ids; `used[id]` is
/// set by a run-time use.
struct Uses<'a> {
    prog: &'a Program,
    defs: &'a [Vec<ParamFacts>],
    stack: Vec<usize>,
    used: Vec<bool>,
    /// Lambda binder ids by lambda address (for the inner lambdas' facts).
    lam_ids: Vec<(usize, usize)>,
}

impl Uses<'_> {
    fn bind(&mut self) -> usize {
        self.used.push(false);
        let id = self.used.len() - 1;
        self.stack.push(id);
        id
    }

    fn term(&mut self, t: &RcTerm) {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.term_inner(t))
    }

    fn term_inner(&mut self, t: &RcTerm) {
        match &**t {
            Term::Var(ix) => {
                let n = self.stack.len();
                if let Some(&id) = self.stack.get(n.wrapping_sub(1 + ix.0 as usize)) {
                    self.used[id] = true;
                }
            }
            Term::Lam(_, body) => {
                let id = self.bind();
                self.lam_ids.push((addr(t), id));
                self.term(body);
                self.stack.pop();
            }
            Term::Let(_, rhs, body) => {
                self.bind();
                self.term(rhs);
                self.term(body);
                self.stack.pop();
            }
            Term::Match(m) => {
                self.term(&m.scrut);
                for arm in &m.arms {
                    let k = arm.pat.arity();
                    for _ in 0..k {
                        self.bind();
                    }
                    self.term(&arm.body);
                    self.stack.truncate(self.stack.len() - k);
                }
                if let Some((_, body)) = &m.default {
                    self.bind();
                    self.term(body);
                    self.stack.pop();
                }
            }
            Term::Ann(e, _) => self.term(e),
            Term::App(..) => self.app(t),
            // A type in a run-time position (a type passed as a relevant argument):
            // the variables it mentions are used.
            Term::Pi(b, body) => {
                self.term(&b.ty);
                self.bind();
                self.term(body);
                self.stack.pop();
            }
            Term::Def(_)
            | Term::Data(_)
            | Term::Con(_)
            | Term::Extern(..)
            | Term::Prim(..)
            | Term::PrimType(_)
            | Term::Lit(_)
            | Term::Universe(_)
            | Term::Hole(..) => {}
        }
    }

    /// An application spine: arguments at irrelevant positions of a known head are
    /// not uses.
    fn app(&mut self, t: &RcTerm) {
        let (head, args) = crate::core::term::spine(t);
        let head_t = unann(head);
        let skip = |i: usize, pl: Plicity| -> bool {
            match &**head_t {
                Term::Con(_) | Term::Extern(..) | Term::Prim(..) | Term::Data(_) => {
                    pl == Plicity::Implicit
                }
                Term::Def(d) => self
                    .defs
                    .get(d.0 as usize)
                    .and_then(|ps| ps.get(i))
                    .is_some_and(|p| !p.relevant && (p.implicit == (pl == Plicity::Implicit))),
                _ => false,
            }
        };
        let skips: Vec<bool> = args
            .iter()
            .enumerate()
            .map(|(i, (pl, _))| skip(i, *pl))
            .collect();
        let _ = self.prog;
        self.term(head);
        for ((_, a), s) in args.iter().zip(skips) {
            if !s {
                self.term(a);
            }
        }
    }
}

fn relevance(prog: &Program, facts: &mut Facts) {
    loop {
        let mut uses = Uses {
            prog,
            defs: &facts.defs,
            stack: Vec::new(),
            used: Vec::new(),
            lam_ids: Vec::new(),
        };
        // The binder ids of each definition's leading lambdas.
        let mut def_ids: Vec<Vec<usize>> = Vec::with_capacity(prog.defs.len());
        for body in bodies(prog, facts.inline) {
            let start = uses.used.len();
            uses.term(body);
            let n = facts.defs[def_ids.len()].len();
            // The leading lambdas are the first binders bound in the body's walk.
            def_ids.push((start..start + n).collect());
        }
        let Uses { used, lam_ids, .. } = uses;
        let mut changed = false;
        for (d, ids) in def_ids.iter().enumerate() {
            for (k, &id) in ids.iter().enumerate() {
                if used[id] && !facts.defs[d][k].relevant {
                    facts.defs[d][k].relevant = true;
                    changed = true;
                }
            }
        }
        if !changed {
            facts.irrelevant_lams = lam_ids
                .iter()
                .filter(|(_, id)| !used[*id])
                .map(|(a, _)| *a)
                .collect();
            return;
        }
    }
}

// ----- strictness -----------------------------------------------------------------

/// A need under a condition: binder `id` is evaluated provided the function bound at
/// binder `fun`, applied to `nargs` arguments, evaluates its argument at `pos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Cond {
    id: usize,
    fun: usize,
    pos: u32,
    nargs: u32,
}

/// A set of binder ids certainly evaluated (and some evaluated under a [`Cond`]), or
/// "the term diverges" (needs everything).
#[derive(Clone, Debug, PartialEq)]
enum Needs {
    Bottom,
    Set(Vec<usize>, Vec<Cond>),
}

impl Needs {
    fn none() -> Needs {
        Needs::Set(Vec::new(), Vec::new())
    }

    fn one(id: usize) -> Needs {
        Needs::Set(vec![id], Vec::new())
    }

    fn union(self, other: Needs) -> Needs {
        match (self, other) {
            (Needs::Bottom, _) | (_, Needs::Bottom) => Needs::Bottom,
            (Needs::Set(mut a, mut ca), Needs::Set(b, cb)) => {
                for x in b {
                    if let Err(i) = a.binary_search(&x) {
                        a.insert(i, x);
                    }
                }
                for c in cb {
                    if let Err(i) = ca.binary_search(&c) {
                        ca.insert(i, c);
                    }
                }
                Needs::Set(a, ca)
            }
        }
    }

    fn intersect(self, other: Needs) -> Needs {
        match (self, other) {
            (Needs::Bottom, x) | (x, Needs::Bottom) => x,
            (Needs::Set(a, ca), Needs::Set(b, cb)) => {
                // A condition survives where the other side needs the binder outright
                // or under the same condition.
                let mut conds: Vec<Cond> = ca
                    .iter()
                    .filter(|c| b.binary_search(&c.id).is_ok() || cb.binary_search(c).is_ok())
                    .chain(cb.iter().filter(|c| a.binary_search(&c.id).is_ok()))
                    .copied()
                    .collect();
                conds.sort();
                conds.dedup();
                Needs::Set(
                    a.into_iter()
                        .filter(|x| b.binary_search(x).is_ok())
                        .collect(),
                    conds,
                )
            }
        }
    }

    fn contains(&self, id: usize) -> bool {
        match self {
            Needs::Bottom => true,
            Needs::Set(a, _) => a.binary_search(&id).is_ok(),
        }
    }

    /// The conditions under which `id` is needed.
    fn conds_of(&self, id: usize) -> Vec<Cond> {
        match self {
            Needs::Bottom => Vec::new(),
            Needs::Set(_, c) => c.iter().filter(|c| c.id == id).copied().collect(),
        }
    }

    /// What is needed outright, needed only if the function at binder `fun`, applied
    /// to `nargs` arguments, evaluates its argument at `pos` (conditions do not nest:
    /// those already there are dropped but for the same condition, and so is
    /// divergence).
    fn under(self, fun: usize, pos: u32, nargs: u32) -> Needs {
        match self {
            Needs::Bottom => Needs::none(),
            Needs::Set(a, c) => {
                let mut conds: Vec<Cond> = a
                    .into_iter()
                    .map(|id| Cond {
                        id,
                        fun,
                        pos,
                        nargs,
                    })
                    .chain(
                        c.into_iter()
                            .filter(|c| c.fun == fun && c.pos == pos && c.nargs == nargs),
                    )
                    .collect();
                conds.sort();
                conds.dedup();
                Needs::Set(Vec::new(), conds)
            }
        }
    }

    /// Without the binders at or above `from` (they go out of scope).
    fn below(self, from: usize) -> Needs {
        match self {
            Needs::Bottom => Needs::Bottom,
            Needs::Set(a, c) => Needs::Set(
                a.into_iter().filter(|&x| x < from).collect(),
                c.into_iter()
                    .filter(|c| c.id < from && c.fun < from)
                    .collect(),
            ),
        }
    }
}

struct Strict<'a> {
    defs: &'a [Vec<ParamFacts>],
    /// de Bruijn stack of binder ids; ids are the stack positions (levels).
    depth: usize,
    strict_lets: Option<&'a mut HashSet<usize>>,
}

impl Strict<'_> {
    fn term(&mut self, t: &RcTerm) -> Needs {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.term_inner(t))
    }

    fn var(&self, ix: u32) -> Option<usize> {
        self.depth.checked_sub(1 + ix as usize)
    }

    fn term_inner(&mut self, t: &RcTerm) -> Needs {
        match &**t {
            Term::Var(ix) => self.var(ix.0).map_or_else(Needs::none, Needs::one),
            Term::Ann(e, _) => self.term(e),
            Term::Let(_, rhs, body) => {
                let x = self.depth;
                self.depth += 1;
                let b = self.term(body);
                let out = if b.contains(x) {
                    let recursive = crate::core::subst::has_free_var(rhs, 0);
                    if !recursive && let Some(s) = self.strict_lets.as_deref_mut() {
                        s.insert(addr(t));
                    }
                    let r = self.term(rhs);
                    b.union(r)
                } else {
                    b
                };
                self.depth -= 1;
                out.below(x)
            }
            Term::Match(m) => {
                let s = self.term(&m.scrut);
                let mut arms = Needs::Bottom;
                for arm in &m.arms {
                    let k = arm.pat.arity();
                    let base = self.depth;
                    self.depth += k;
                    let a = self.term(&arm.body).below(base);
                    self.depth = base;
                    arms = arms.intersect(a);
                }
                if let Some((_, body)) = &m.default {
                    let base = self.depth;
                    self.depth += 1;
                    let a = self.term(body).below(base);
                    self.depth = base;
                    arms = arms.intersect(a);
                }
                s.union(arms)
            }
            Term::App(..) => self.app(t),
            Term::Prim(Prim::Error, _) => Needs::none(),
            _ => Needs::none(),
        }
    }

    fn app(&mut self, t: &RcTerm) -> Needs {
        let (head, args) = crate::core::term::spine(t);
        let explicit: Vec<&RcTerm> = args
            .iter()
            .filter(|(pl, _)| *pl == Plicity::Explicit)
            .map(|(_, a)| *a)
            .collect();
        match &**unann(head) {
            Term::Prim(p, _) if explicit.len() >= p.arity() => match p {
                Prim::Error => Needs::Bottom,
                Prim::Concat => self.term(explicit[0]),
                // Errors inside `prim_catch` are caught: evaluating its argument early,
                // outside the catch, would let them escape.
                Prim::Catch => Needs::none(),
                // The second argument comes after the first, in that order (effects
                // ordered by `after`, messages by `trace`); `reading` and `writing`
                // evaluate theirs inside the declaration, so it is not needed early.
                Prim::After | Prim::Trace | Prim::Reading | Prim::Writing => self.term(explicit[0]),
                _ => {
                    let mut n = Needs::none();
                    for a in &explicit[..p.arity()] {
                        n = n.union(self.term(a));
                    }
                    n
                }
            },
            Term::Extern(..) => {
                // A call needs its arguments (to normal form) when its value is needed.
                let mut n = Needs::none();
                for a in &explicit {
                    n = n.union(self.term(a));
                }
                n
            }
            Term::Def(d) => {
                let params = &self.defs[d.0 as usize];
                if params.is_empty() || args.len() < params.len() {
                    return Needs::none();
                }
                let mut n = Needs::none();
                for (p, (pl, a)) in params.iter().zip(&args) {
                    if p.implicit != (*pl == Plicity::Implicit) {
                        continue;
                    }
                    if p.strict {
                        n = n.union(self.term(a));
                    } else if let Some(c) = p.cond
                        && let Some((_, f)) = args.get(c.fun as usize)
                    {
                        // Strict when the function passed satisfies the condition: a
                        // variable passes the condition on to the caller, a known
                        // definition is looked up now.
                        match &**unann(f) {
                            Term::Var(ix) => {
                                if let Some(g) = self.var(ix.0) {
                                    let needs = self.term(a);
                                    n = n.union(needs.under(g, c.pos, c.nargs));
                                }
                            }
                            Term::Def(e) => {
                                let ps = &self.defs[e.0 as usize];
                                if (c.pos as usize) < ps.len()
                                    && ps.len() <= c.nargs as usize
                                    && ps[c.pos as usize].strict
                                {
                                    n = n.union(self.term(a));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                n
            }
            Term::Var(ix) => {
                // An unknown function needs itself; what it needs of its arguments
                // depends on the function: conditions on it.
                let mut n = self.term(head);
                if let Some(g) = self.var(ix.0) {
                    let k = args.len() as u32;
                    for (i, (_, a)) in args.iter().enumerate() {
                        let needs = self.term(a);
                        n = n.union(needs.under(g, i as u32, k));
                    }
                }
                n
            }
            Term::Let(..) | Term::Match(..) | Term::App(..) => self.term(head),
            _ => Needs::none(),
        }
    }
}

fn strictness(prog: &Program, facts: &mut Facts) {
    loop {
        let mut changed = false;
        for (d, written) in bodies(prog, facts.inline).enumerate() {
            let n = facts.defs[d].len();
            if n == 0 {
                continue;
            }
            let (_, body) = lambdas(written);
            let mut s = Strict {
                defs: &facts.defs,
                depth: n,
                strict_lets: None,
            };
            let needs = s.term(body);
            for k in 0..n {
                let p = facts.defs[d][k];
                if needs.contains(k) || !(p.strict || p.cond.is_some()) {
                    continue;
                }
                // Weaker only: strict, then strict under one condition, then lazy.
                let conds: Vec<CondStrict> = needs
                    .conds_of(k)
                    .into_iter()
                    .filter(|c| c.fun < n && c.fun != k && facts.defs[d][c.fun].relevant)
                    .map(|c| CondStrict {
                        fun: c.fun as u32,
                        pos: c.pos,
                        nargs: c.nargs,
                    })
                    .collect();
                let next = match p.cond {
                    None if p.strict => conds.first().copied(),
                    Some(c) if conds.contains(&c) => Some(c),
                    _ => None,
                };
                if p.strict || p.cond != next {
                    facts.defs[d][k].strict = false;
                    facts.defs[d][k].cond = next;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // A parameter that is erased is never evaluated.
    for ps in &mut facts.defs {
        for p in ps.iter_mut() {
            p.strict &= p.relevant;
            if !p.relevant {
                p.cond = None;
            }
        }
    }
    // The strict `let`s, under the final facts.
    let mut lets = HashSet::new();
    for written in bodies(prog, facts.inline) {
        let (lams, body) = lambdas(written);
        let mut s = Strict {
            defs: &facts.defs,
            depth: lams.len(),
            strict_lets: Some(&mut lets),
        };
        s.term(body);
    }
    facts.strict_lets = lets;
    let mut lams = std::collections::HashMap::new();
    for written in bodies(prog, facts.inline) {
        let (outer, body) = lambdas(written);
        lambda_strictness(&facts.defs, body, outer.len(), &mut lams);
    }
    facts.lam_strict = lams;
}

/// [`Facts::lam_strict`] for every lambda group in `t` (under `depth` binders).
fn lambda_strictness(
    defs: &[Vec<ParamFacts>],
    t: &RcTerm,
    depth: usize,
    out: &mut std::collections::HashMap<usize, u64>,
) {
    let mut work: Vec<(&RcTerm, usize)> = vec![(t, depth)];
    while let Some((t, depth)) = work.pop() {
        match &**t {
            Term::Lam(..) => {
                let (lams, body) = lambdas(t);
                let n = lams.len();
                let mut s = Strict {
                    defs,
                    depth: depth + n,
                    strict_lets: None,
                };
                let needs = s.term(body);
                let mut mask = 0u64;
                for k in 0..n.min(64) {
                    if needs.contains(depth + k) {
                        mask |= 1 << k;
                    }
                }
                out.insert(addr(t), mask);
                work.push((body, depth + n));
            }
            Term::Ann(e, _) => work.push((e, depth)),
            Term::App(f, _, a) => {
                work.push((f, depth));
                work.push((a, depth));
            }
            Term::Let(_, r, b) => {
                work.push((r, depth + 1));
                work.push((b, depth + 1));
            }
            Term::Match(m) => {
                work.push((&m.scrut, depth));
                for arm in &m.arms {
                    work.push((&arm.body, depth + arm.pat.arity()));
                }
                if let Some((_, b)) = &m.default {
                    work.push((b, depth + 1));
                }
            }
            _ => {}
        }
    }
}

/// The facts of one definition, by name, for tests and `--explain`-style output:
/// `(relevant, strict)` per parameter.
pub fn def_facts<'f>(prog: &Program, facts: &'f Facts, name: &str) -> Option<&'f [ParamFacts]> {
    let i = prog.defs.iter().rposition(|d| &*d.name == name)?;
    Some(&facts.defs[i])
}

/// Whether a definition is a function (its body is a lambda).
pub fn is_function(prog: &Program, d: DefId) -> bool {
    matches!(&**unann(&prog.def(d).body), Term::Lam(..))
}

/// Whether a pattern binds anything (a helper for the compiler).
pub fn binds(p: &CasePat) -> bool {
    p.arity() > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts_of(src: &str) -> (crate::core::program::Program, Facts) {
        let loaded = crate::driver::load_text("facts.sp", src);
        assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
        let p = loaded.program.expect("a program");
        let f = analyse(&p, false);
        (p, f)
    }

    /// `(relevant, strict)` of each parameter, as a string of `R`/`-` and `S`/`-`.
    fn shape(p: &crate::core::program::Program, f: &Facts, name: &str) -> String {
        def_facts(p, f, name)
            .unwrap_or_else(|| panic!("no definition {name}"))
            .iter()
            .map(|x| {
                format!(
                    "{}{}",
                    if x.relevant { 'R' } else { '-' },
                    if x.strict {
                        'S'
                    } else if x.cond.is_some() {
                        'C'
                    } else {
                        '-'
                    }
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn prelude_strictness() {
        let (p, f) = facts_of("def main = 1\n");
        // Implicit type parameters are erased (irrelevant, never evaluated).
        let cases = [
            ("id", "-- RS"),
            ("const", "-- -- RS --"),
            ("not", "RS"),
            ("fst", "-- -- RS"),
            ("fromMaybe", "-- R- RS"),
            ("map", "-- -- R- RS"),
            ("filter", "-- R- RS"),
            ("foldl", "-- -- R- RC RS"),
            ("foldr", "-- -- R- RC RS"),
            ("foldlStrict", "-- -- R- RC RS"),
            ("sum", "RS"),
            ("product", "RS"),
            ("length", "-- RS"),
            ("range", "RS RS"),
            ("take", "-- RS R-"),
            ("append", "-- RS R-"),
            ("div", "RS RS"),
            ("strLength", "RS"),
        ];
        let mut wrong = Vec::new();
        for (name, want) in cases {
            let got = shape(&p, &f, name);
            if got != want {
                wrong.push(format!("{name}: {got} (expected {want})"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn implicit_arguments_the_body_uses_are_relevant() {
        let (p, f) = facts_of(
            "def f {n : Int} (x : Int) : Int = n + x\n\
             def g {a : Type} {k : Int} (x : a) : a = x\n\
             def h {k : Int} (y : Int) : Int = f {k} y\n\
             def main = f {10} 5\n",
        );
        assert_eq!(shape(&p, &f, "f"), "RS RS");
        // `k` is never used: erased; `a` is a type: erased.
        assert_eq!(shape(&p, &f, "g"), "-- -- RS");
        // Passed on to a parameter that is used: used.
        assert_eq!(shape(&p, &f, "h"), "RS RS");
    }

    #[test]
    fn errors_and_matches_are_strict_where_every_arm_is() {
        let (p, f) = facts_of(
            "def pick (b : Bool) (x : Int) (y : Int) : Int = if b then x else y\n\
             def both (b : Bool) (x : Int) : Int = if b then x else x + 1\n\
             def orFail (m : Maybe Int) (d : Int) : Int = match m with | Just v -> v + d | Nothing -> error \"none\"\n\
             def main = 1\n",
        );
        assert_eq!(shape(&p, &f, "pick"), "RS R- R-");
        assert_eq!(shape(&p, &f, "both"), "RS RS");
        // `error` never returns: the `Nothing` arm needs everything.
        assert_eq!(shape(&p, &f, "orFail"), "RS RS");
    }
}
