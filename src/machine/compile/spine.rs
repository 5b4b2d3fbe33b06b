//! Spine demand: which list arguments a definition certainly walks to their end.
//!
//! The strictness analysis ([`super::analysis`]) says which parameters a call
//! certainly evaluates to weak head normal form. For the scheduler that is not enough
//! where the calls of a program sit in the *spine* of a list: `length (concatMap
//! propose beam)` needs every proposal, but the second one is reached only once the
//! first reply's lines have been walked, so an `effect` or `paid` call (started only
//! once certainly needed) waits for the one before. This analysis finds the demand on
//! a whole spine, so that the scheduler can walk such a spine in a certain fiber of
//! its own (and, inside it, the spines it certainly needs in turn) while the consumer
//! goes on.
//!
//! A three-point demand on a variable: none, its weak head normal form ([`WHNF`]),
//! or its whole spine ([`SPINE`]: every tail to weak head normal form; the elements
//! are not needed). Each term is analysed under the demand on its own value (WHNF or
//! SPINE), and each definition gets, for each of its parameters, the demand a call
//! makes on it under each of the two (its signature):
//!
//! - a variable gets the demand on the term;
//! - `Cons h t` under SPINE puts SPINE on `t`; `++` (`prim_concat`) under SPINE puts
//!   SPINE on both operands, under WHNF, WHNF on the first; `prim_seq a b` WHNF on
//!   `a` and the term's demand on `b`; a primitive that takes its arguments whole
//!   (`prim_join`, the sorts: [`Prim::takes_whole_args`]) SPINE on them; other strict
//!   primitives WHNF on their operands;
//!   an external's arguments are needed in normal form (SPINE);
//! - a `let` passes the demand its body makes on the bound variable to its right-hand
//!   side;
//! - a `match` puts WHNF on its scrutinee and what every arm needs (the meet of the
//!   arms); a scrutinee that is a variable is needed to SPINE when every `Cons` arm
//!   needs its tail to SPINE (a `Nil` arm needs nothing more);
//! - a known call passes its signature's demands to its arguments; an unknown
//!   function's result demands nothing of its arguments;
//! - `error` needs nothing. (The strictness analysis says it needs everything, as it
//!   never returns; but a walk this analysis asks for starts `effect` calls, and a
//!   sequential run that meets the `error` first never starts them.)
//!
//! A function given a function (`foldr f z xs`) walks its list only if the function
//! it is given needs the rest: a *conditional* signature ([`cond_signatures`]) says
//! what the definition needs when the function at one of its parameters needs one of
//! its arguments, and the machine checks that on the function a call passes.
//!
//! Signatures are a greatest fixed point (every parameter is SPINE until a body shows
//! less), as the strictness analysis is: a definition that loops forever needs
//! everything. `length`, `sum`, `foldl`, `reverse` and `sortBy` get SPINE on their list
//! under WHNF; `map`, `filter`, `++`, `concatMap` pass SPINE on to theirs.

use super::analysis::{Facts, lambdas, unann};
use crate::core::program::Program;
use crate::core::term::{CasePat, ConId, Plicity, RcTerm, Term};
use crate::prim::Prim;

/// No demand.
pub const NONE: u8 = 0;
/// Weak head normal form.
pub const WHNF: u8 = 1;
/// The whole spine.
pub const SPINE: u8 = 2;
/// Normal form: the spine and every element, every field of every constructor (only
/// for what a `match` needs whichever arm it takes, [`arm_needs`]: the signatures
/// stop at [`SPINE`], and a call under `NF` makes the demands it makes under `SPINE`).
pub const NF: u8 = 3;

/// Per definition, per parameter of its leading lambdas: the demand of a call on it
/// when the call's value is needed to WHNF (`.0`) and to SPINE (`.1`).
pub type Signatures = Vec<Vec<(u8, u8)>>;

/// Demands on variables (by binder level), or "diverges" (needs everything).
#[derive(Clone, Debug, PartialEq)]
enum Needs {
    Bottom,
    Map(Vec<(usize, u8)>),
}

impl Needs {
    fn none() -> Needs {
        Needs::Map(Vec::new())
    }

    fn one(id: usize, d: u8) -> Needs {
        if d == NONE {
            Needs::none()
        } else {
            Needs::Map(vec![(id, d)])
        }
    }

    fn get(&self, id: usize) -> u8 {
        match self {
            Needs::Bottom => SPINE,
            Needs::Map(m) => m
                .binary_search_by_key(&id, |&(i, _)| i)
                .map_or(NONE, |i| m[i].1),
        }
    }

    /// Both: the larger demand on each variable.
    fn join(self, other: Needs) -> Needs {
        match (self, other) {
            (Needs::Bottom, _) | (_, Needs::Bottom) => Needs::Bottom,
            (Needs::Map(mut a), Needs::Map(b)) => {
                for (x, d) in b {
                    match a.binary_search_by_key(&x, |&(i, _)| i) {
                        Ok(i) => a[i].1 = a[i].1.max(d),
                        Err(i) => a.insert(i, (x, d)),
                    }
                }
                Needs::Map(a)
            }
        }
    }

    /// Either: the smaller demand on each variable.
    fn meet(self, other: Needs) -> Needs {
        match (self, other) {
            (Needs::Bottom, x) | (x, Needs::Bottom) => x,
            (Needs::Map(a), Needs::Map(b)) => Needs::Map(
                a.into_iter()
                    .filter_map(|(x, d)| {
                        b.binary_search_by_key(&x, |&(i, _)| i)
                            .ok()
                            .map(|i| (x, d.min(b[i].1)))
                    })
                    .collect(),
            ),
        }
    }

    /// Without the binders at or above `from`.
    fn below(self, from: usize) -> Needs {
        match self {
            Needs::Bottom => Needs::Bottom,
            Needs::Map(a) => Needs::Map(a.into_iter().filter(|&(x, _)| x < from).collect()),
        }
    }
}

struct Walk<'a> {
    prog: &'a Program,
    sigs: &'a Signatures,
    /// The prelude's `Cons`.
    cons: ConId,
    depth: usize,
    /// While a definition's conditional signature is computed: the condition assumed,
    /// and the signature so far (for its calls of itself that pass its function on).
    assume: Option<Assume<'a>>,
    /// Applications of a variable to arguments (binder level, how many), when
    /// recorded ([`cond_signatures`]'s candidates).
    apps: Option<Vec<(usize, u32)>>,
}

/// A condition assumed while a definition is analysed ([`cond_signatures`]).
struct Assume<'a> {
    /// The definition.
    def: usize,
    /// The binder level of its parameter holding the function.
    fun: usize,
    /// Which argument of the function is needed.
    pos: u32,
    /// At most how many arguments the function is applied to where it needs it
    /// (the parameter's index among the definition's is its level).
    nargs: u32,
    /// The conditional signature so far.
    sig: &'a [(u8, u8)],
}

impl<'a> Walk<'a> {
    /// A walk of a term under `depth` binders, with no condition assumed.
    fn new(prog: &'a Program, sigs: &'a Signatures, depth: usize) -> Walk<'a> {
        Walk {
            prog,
            sigs,
            cons: prog.builtins.cons,
            depth,
            assume: None,
            apps: None,
        }
    }

    fn term(&mut self, t: &RcTerm, d: u8) -> Needs {
        if d == NONE {
            return Needs::none();
        }
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.term_inner(t, d))
    }

    fn var(&self, ix: u32) -> Option<usize> {
        self.depth.checked_sub(1 + ix as usize)
    }

    fn term_inner(&mut self, t: &RcTerm, d: u8) -> Needs {
        match &**t {
            Term::Var(ix) => self
                .var(ix.0)
                .map_or_else(Needs::none, |x| Needs::one(x, d)),
            Term::Ann(e, _) => self.term(e, d),
            Term::Let(_, rhs, body) => {
                let x = self.depth;
                self.depth += 1;
                let b = self.term(body, d);
                let on_x = b.get(x);
                // The right-hand side is in the scope of its own binder (a recursive
                // `let`): analysed at the same depth.
                let r = if on_x > NONE && b != Needs::Bottom {
                    self.term(rhs, on_x)
                } else {
                    Needs::none()
                };
                self.depth -= 1;
                b.join(r).below(x)
            }
            Term::Match(m) => self.matching(m, d),
            Term::App(..) => self.app(t, d),
            _ => Needs::none(),
        }
    }

    fn matching(&mut self, m: &crate::core::term::Match, d: u8) -> Needs {
        let (arms, saw_cons, tails_spine) = self.arms(m, d);
        let scrut = self.term(&m.scrut, WHNF);
        let mut n = scrut.join(arms);
        if saw_cons
            && tails_spine
            && let Term::Var(ix) = &**unann(&m.scrut)
            && let Some(x) = self.var(ix.0)
        {
            n = n.join(Needs::one(x, SPINE));
        }
        n
    }

    /// What every arm of `m` needs of the variables outside it (the meet of the
    /// arms), whether one arm is `Cons`, and whether every `Cons` arm needs its tail
    /// to SPINE.
    fn arms(&mut self, m: &crate::core::term::Match, d: u8) -> (Needs, bool, bool) {
        let mut arms = Needs::Bottom;
        let mut tails_spine = true;
        let mut saw_cons = false;
        for arm in &m.arms {
            let k = arm.pat.arity();
            let base = self.depth;
            self.depth += k;
            let a = self.term(&arm.body, d);
            if let CasePat::Con(c, fields) = &arm.pat
                && *c == self.cons
            {
                saw_cons = true;
                // The tail is the last field bound.
                tails_spine &= !fields.is_empty() && a.get(base + k - 1) >= SPINE;
            }
            self.depth = base;
            arms = arms.meet(a.below(base));
        }
        if let Some((_, body)) = &m.default {
            let base = self.depth;
            self.depth += 1;
            let a = self.term(body, d).below(base);
            self.depth = base;
            arms = arms.meet(a);
            // A default arm that may stand for `Cons` walks nothing we can see.
            tails_spine &= saw_cons;
        }
        (arms, saw_cons, tails_spine)
    }

    fn app(&mut self, t: &RcTerm, d: u8) -> Needs {
        let (head, args) = crate::core::term::spine(t);
        let explicit: Vec<&RcTerm> = args
            .iter()
            .filter(|(pl, _)| *pl == Plicity::Explicit)
            .map(|(_, a)| *a)
            .collect();
        match &**unann(head) {
            Term::Prim(p, _) if explicit.len() >= p.arity() => match p {
                Prim::Error => Needs::none(),
                Prim::Concat => {
                    let a = self.term(explicit[0], d);
                    if d >= SPINE {
                        a.join(self.term(explicit[1], d))
                    } else {
                        a
                    }
                }
                Prim::Seq => {
                    let a = self.term(explicit[0], WHNF);
                    a.join(self.term(explicit[1], d))
                }
                Prim::Catch => Needs::none(),
                Prim::After | Prim::Trace | Prim::Reading | Prim::Writing => {
                    self.term(explicit[0], WHNF)
                }
                // `prim_join sep xs` (what `unlines` and `concatStrings` are) and the
                // sorts walk their list to its end.
                p if p.takes_whole_args() => {
                    let mut n = Needs::none();
                    for a in &explicit[..p.arity()] {
                        n = n.join(self.term(a, SPINE));
                    }
                    n
                }
                _ => {
                    let mut n = Needs::none();
                    for a in &explicit[..p.arity()] {
                        n = n.join(self.term(a, WHNF));
                    }
                    n
                }
            },
            Term::Extern(..) => {
                let mut n = Needs::none();
                for a in &explicit {
                    n = n.join(self.term(a, SPINE));
                }
                n
            }
            Term::Con(c) if d == NF && explicit.len() == self.prog.con(*c).fields.len() => {
                let mut n = Needs::none();
                for a in &explicit {
                    n = n.join(self.term(a, NF));
                }
                n
            }
            Term::Con(c) if *c == self.cons && d == SPINE => match explicit.last() {
                Some(tail) if explicit.len() == 2 => self.term(tail, SPINE),
                _ => Needs::none(),
            },
            Term::Def(def) => {
                let mut sig = &self.sigs[def.0 as usize][..];
                // A call of the definition under analysis that passes its function on
                // unchanged: the condition holds there too.
                if let Some(a) = &self.assume
                    && a.def == def.0 as usize
                    && let Some((_, f)) = args.get(a.fun)
                    && let Term::Var(ix) = &**unann(f)
                    && self.var(ix.0) == Some(a.fun)
                {
                    sig = a.sig;
                }
                if sig.is_empty() || args.len() < sig.len() {
                    return Needs::none();
                }
                let mut n = Needs::none();
                for (&(on_whnf, on_spine), (_, a)) in sig.iter().zip(&args) {
                    let want = if d >= SPINE { on_spine } else { on_whnf };
                    n = n.join(self.term(a, want));
                }
                n
            }
            // The function assumed to need an argument, applied to it.
            Term::Var(ix)
                if self.assume.as_ref().is_some_and(|a| {
                    self.var(ix.0) == Some(a.fun)
                        && (a.pos as usize) < args.len()
                        && args.len() <= a.nargs as usize
                }) =>
            {
                let pos = self.assume.as_ref().map_or(0, |a| a.pos as usize);
                self.term(head, WHNF).join(self.term(args[pos].1, WHNF))
            }
            Term::Var(ix) => {
                if let (Some(apps), Some(x)) = (
                    self.apps.as_mut(),
                    self.depth.checked_sub(1 + ix.0 as usize),
                ) {
                    apps.push((x, args.len() as u32));
                }
                self.term(head, WHNF)
            }
            Term::Let(..) | Term::Match(..) | Term::App(..) => self.term(head, WHNF),
            _ => Needs::none(),
        }
    }
}

/// What a `match` certainly needs of the variables in scope where it stands, whichever
/// arm it takes, when its value is needed to `d` (WHNF, SPINE or NF): pairs of a de Bruijn
/// index (at the `match`) and a demand. The scheduler forks these for a certain fiber
/// whose scrutinee waits on a call (`let more = filter p rest in if p x then Cons x
/// more else more` needs `more` either way), so the calls they reach need not wait
/// for the test.
pub fn arm_needs(
    prog: &Program,
    sigs: &Signatures,
    m: &crate::core::term::Match,
    d: u8,
) -> Vec<(u32, u8)> {
    // Any depth above the indices in scope: a variable's level is `DEPTH - 1 - ix`.
    const DEPTH: usize = 1 << 24;
    match Walk::new(prog, sigs, DEPTH).arms(m, d).0 {
        Needs::Bottom => Vec::new(),
        Needs::Map(v) => v
            .into_iter()
            .filter(|&(x, d)| x < DEPTH && d > NONE)
            .map(|(x, d)| ((DEPTH - 1 - x) as u32, d))
            .collect(),
    }
}

/// A definition's signature under a condition on the function one of its parameters
/// holds: `foldr f z xs` walks `xs` to its end when `f` needs its second argument
/// (`foldr (\x acc -> g x + acc) 0 xs`), which only the function a call passes can
/// say. Checked at run time on that function, as the strictness analysis's
/// conditions are.
#[derive(Clone, Debug, PartialEq)]
pub struct CondSig {
    /// The parameter holding the function (an index among the definition's
    /// parameters).
    pub fun: usize,
    /// Which of the function's arguments (implicit ones counted) it must need.
    pub pos: u32,
    /// At most how many arguments the definition applies it to.
    pub nargs: u32,
    /// The signature when it does.
    pub sig: Vec<(u8, u8)>,
}

/// Per definition, a conditional signature that needs more than its plain one
/// ([`CondSig`]), if one is found: the condition tried are "the function at
/// parameter `g` needs its argument at `pos`" for each parameter the body applies
/// (to at most [`COND_ARGS`] arguments), and the first that makes some list walked to
/// its end is kept. Only calls of the definition itself are assumed to meet the
/// condition again (when they pass the same function on).
pub fn cond_signatures(prog: &Program, facts: &Facts, sigs: &Signatures) -> Vec<Option<CondSig>> {
    let mut out = vec![None; sigs.len()];
    for (d, written) in super::analysis::bodies(prog, facts.inline).enumerate() {
        let n = sigs[d].len();
        if n == 0 {
            continue;
        }
        let (_, body) = lambdas(written);
        // The candidates: parameters the body applies, as the plain analysis sees.
        let mut apps = Vec::new();
        for ctx in [WHNF, SPINE] {
            let mut w = Walk::new(prog, sigs, n);
            w.apps = Some(Vec::new());
            w.term(body, ctx);
            apps.extend(w.apps.unwrap_or_default());
        }
        apps.retain(|&(g, k)| g < n && k as usize <= COND_ARGS && facts.defs[d][g].relevant);
        apps.sort_unstable();
        apps.dedup();
        'found: for &(g, k) in &apps {
            for pos in 0..k {
                if let Some(sig) = cond_fixpoint(prog, facts, sigs, d, body, g, pos, k)
                    && sig.iter().zip(&sigs[d]).any(|(c, p)| {
                        (c.0 == SPINE && p.0 < SPINE) || (c.1 == SPINE && p.1 < SPINE)
                    })
                {
                    out[d] = Some(CondSig {
                        fun: g,
                        pos,
                        nargs: k,
                        sig,
                    });
                    break 'found;
                }
            }
        }
    }
    out
}

/// At most how many arguments a function parameter is applied to for
/// [`cond_signatures`] to try conditions on it.
const COND_ARGS: usize = 4;

/// Definition `d`'s signature assuming the function at parameter `g` needs its
/// argument `pos` when applied to at most `nargs` (a greatest fixed point, as
/// [`signatures`]); `None` if it does not settle.
#[allow(clippy::too_many_arguments)]
fn cond_fixpoint(
    prog: &Program,
    facts: &Facts,
    sigs: &Signatures,
    d: usize,
    body: &RcTerm,
    g: usize,
    pos: u32,
    nargs: u32,
) -> Option<Vec<(u8, u8)>> {
    let n = sigs[d].len();
    let mut sig = initial_sig(&facts.defs[d]);
    for _round in 0..32 {
        let mut next = sig.clone();
        let mut changed = false;
        for ctx in [WHNF, SPINE] {
            let mut w = Walk::new(prog, sigs, n);
            w.assume = Some(Assume {
                def: d,
                fun: g,
                pos,
                nargs,
                sig: &sig,
            });
            changed |= lower(&mut next, ctx, &w.term(body, ctx));
        }
        if !changed {
            return Some(sig);
        }
        sig = next;
    }
    None
}

/// Every relevant parameter needed to SPINE: where a greatest fixed point starts.
fn initial_sig(params: &[super::analysis::ParamFacts]) -> Vec<(u8, u8)> {
    params
        .iter()
        .map(|p| {
            if p.relevant {
                (SPINE, SPINE)
            } else {
                (NONE, NONE)
            }
        })
        .collect()
}

/// Lowers a signature's demands under context `ctx` (WHNF: `.0`, SPINE: `.1`) to
/// what a walk of the body found; whether any changed.
fn lower(sig: &mut [(u8, u8)], ctx: u8, needs: &Needs) -> bool {
    let mut changed = false;
    for (k, s) in sig.iter_mut().enumerate() {
        let now = needs.get(k);
        let slot = if ctx == WHNF { &mut s.0 } else { &mut s.1 };
        if now < *slot {
            *slot = now;
            changed = true;
        }
    }
    changed
}

/// The signatures of every definition of `prog` (see the module documentation), given
/// the strictness analysis's facts (erased parameters demand nothing).
pub fn signatures(prog: &Program, facts: &Facts) -> Signatures {
    let mut sigs: Signatures = facts.defs.iter().map(|ps| initial_sig(ps)).collect();
    // Each round can only lower a demand; a few rounds settle real programs, and the
    // bound keeps a pathological one cheap (stopping early would be unsound, so the
    // demands left are then dropped to what the strictness analysis says).
    for _round in 0..32 {
        let mut changed = false;
        for (d, written) in super::analysis::bodies(prog, facts.inline).enumerate() {
            let n = sigs[d].len();
            if n == 0 {
                continue;
            }
            let (_, body) = lambdas(written);
            for ctx in [WHNF, SPINE] {
                let needs = Walk::new(prog, &sigs, n).term(body, ctx);
                changed |= lower(&mut sigs[d], ctx, &needs);
            }
        }
        if !changed {
            return sigs;
        }
    }
    // Not settled: keep no spine demand at all (sound, only less parallel).
    sigs.iter()
        .map(|ps| ps.iter().map(|_| (NONE, NONE)).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver;

    /// A program checked and analysed: it, its facts and its spine signatures.
    fn analysed(src: &str) -> (Program, Facts, Signatures) {
        let loaded = driver::load_text("t.sp", src);
        let prog = loaded.program.expect("the program checks");
        let facts = super::super::analysis::analyse(&prog, false);
        let sigs = signatures(&prog, &facts);
        (prog, facts, sigs)
    }

    /// The index of the last definition called `name`.
    fn def_at(prog: &Program, name: &str) -> usize {
        prog.defs
            .iter()
            .rposition(|d| &*d.name == name)
            .expect(name)
    }

    fn sig_of(src: &str, name: &str) -> Vec<(u8, u8)> {
        let (prog, _, sigs) = analysed(src);
        sigs[def_at(&prog, name)].clone()
    }

    const MAIN: &str = "def main : Int = 0\n";

    #[test]
    fn consumers_of_a_whole_list_need_its_spine() {
        // length, sum, sortBy: the list (their last parameter) to its end.
        for name in ["length", "sum", "foldl", "foldlStrict", "reverse", "sortBy"] {
            let s = sig_of(MAIN, name);
            assert_eq!(s.last().unwrap().0, SPINE, "{name}: {s:?}");
        }
        // take, head-like functions: not.
        for name in ["take", "head"] {
            let p = *sig_of(MAIN, name).last().unwrap();
            assert!(p.0 < SPINE && p.1 < SPINE, "{name}: {p:?}");
        }
    }

    #[test]
    fn producers_pass_a_spine_demand_on() {
        // Under a demand on their result's spine.
        for name in ["map", "filter", "concatMap", "append"] {
            let s = sig_of(MAIN, name);
            assert_eq!(s.last().unwrap().1, SPINE, "{name}: {s:?}");
        }
        // `append`: its first list too; under WHNF only the first, to WHNF.
        let s = sig_of(MAIN, "append");
        let n = s.len();
        assert_eq!(s[n - 2], (WHNF, SPINE));
        assert_eq!(s[n - 1], (NONE, SPINE));
        // `map` under WHNF: only the list's first cell.
        assert_eq!(sig_of(MAIN, "map").last().unwrap().0, WHNF);
    }

    /// What the `match` that is `name`'s body needs whichever arm it takes, under `d`.
    fn arms_of(src: &str, name: &str, d: u8) -> Vec<(u32, u8)> {
        let (prog, _, sigs) = analysed(src);
        let i = def_at(&prog, name);
        let (_, body) = lambdas(super::super::codegen::source_body(
            &prog,
            crate::core::term::DefId(i as u32),
            false,
        ));
        let Term::Match(m) = &**unann(body) else {
            panic!("{name}'s body is not a match")
        };
        arm_needs(&prog, &sigs, m, d)
    }

    #[test]
    fn what_every_arm_needs() {
        // `ys` is index 1 under `c`; `xs` index 2.
        let src = "def keep (xs : List Int) (ys : List Int) (c : Bool) : List Int = if c then Cons 1 ys else ys\n\
                   def fails (xs : List Int) (ys : List Int) (c : Bool) : List Int = if c then error \"no\" else ys\n\
                   def both (xs : List Int) (ys : List Int) (c : Bool) : Int = if c then length xs else length (xs ++ ys)\n\
                   def main : Int = 0\n";
        // Under WHNF the `Cons` arm needs nothing of `ys`; under SPINE its spine,
        // and under NF all of it.
        assert_eq!(arms_of(src, "keep", WHNF), vec![]);
        assert_eq!(arms_of(src, "keep", SPINE), vec![(1, SPINE)]);
        assert_eq!(arms_of(src, "keep", NF), vec![(1, NF)]);
        // An arm that fails makes nothing certain.
        assert_eq!(arms_of(src, "fails", SPINE), vec![]);
        // Both arms walk `xs`; only one walks `ys`.
        assert_eq!(arms_of(src, "both", WHNF), vec![(2, SPINE)]);
    }

    #[test]
    fn a_fold_walks_its_list_when_its_function_needs_the_rest() {
        let (prog, facts, sigs) = analysed(MAIN);
        let conds = cond_signatures(&prog, &facts, &sigs);
        let f = def_at(&prog, "foldr");
        // Plainly, `foldr` needs its list's first cell only.
        assert!(sigs[f].last().unwrap().0 < SPINE, "{:?}", sigs[f]);
        // If `f` needs its second argument (of two), the whole spine.
        let c = conds[f].as_ref().expect("a condition for foldr");
        assert_eq!((c.pos, c.nargs), (1, 2), "{c:?}");
        assert_eq!(c.sig.last().unwrap().0, SPINE, "{c:?}");
        // `map` has no such condition: its list is walked as far as its own spine.
        assert_eq!(conds[def_at(&prog, "map")], None);
    }

    #[test]
    fn user_definitions() {
        let src = "def count (xs : List Int) : Int = match xs with | [] -> 0 | Cons _ r -> 1 + count r\n\
                   def firstOr (d : Int) (xs : List Int) : Int = match xs with | [] -> d | Cons x _ -> x\n\
                   def both (xs : List Int) (ys : List Int) : Int = count (xs ++ ys)\n\
                   def main : Int = both [1] [2] + firstOr 0 [3]\n";
        assert_eq!(sig_of(src, "count"), vec![(SPINE, SPINE)]);
        assert_eq!(sig_of(src, "firstOr")[1], (WHNF, WHNF));
        assert_eq!(sig_of(src, "both"), vec![(SPINE, SPINE), (SPINE, SPINE)]);
    }
}
