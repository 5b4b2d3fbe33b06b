//! Fusion of strict folds over list producers, and of producers over ranges: a
//! core-to-core rewrite of definition bodies that the machine runs instead of the
//! bodies written (issue 15).
//!
//! A strict left fold (`foldlStrict`, and `sum`, `length` and `product`, which are
//! such folds) over a list that `map`, `filter` or `range` produce builds a cell, a
//! thunk and a few records per element only to take them apart at once. The rewrite
//! moves the producer into the fold's step instead, until the list is a `range`,
//! whose fold is a counting loop (`foldlRange`):
//!
//! - `sum xs`, `product xs`, `length xs` with `xs` a producer: the definition's body
//!   with `xs` for its parameter (a `foldlStrict`);
//! - `foldlStrict g z (map f ys)` is `foldlStrict (\acc y -> g acc (f y)) z ys`;
//! - `foldlStrict g z (filter p ys)` is
//!   `foldlStrict (\acc y -> if p y then g acc y else acc) z ys`;
//! - `foldlStrict g z (range lo hi)` is `foldlRange g z lo hi`.
//!
//! A list that `map` and `filter` make over a `range` without a fold around it is
//! made without the range's own list (`Fuser::producer_rule`): `filterRange p lo hi`
//! and `mapFilterRange f p lo hi` in the prelude.
//!
//! Each is an equation of the prelude's definitions, and the two sides evaluate the
//! same things in the same order: the fold needs each cell of the list in turn, and
//! the producer computes a cell's element (`f y`, lazily) and test (`p y`) exactly
//! where the rewritten step does. One thing differs: with the list built, the
//! scheduler can start later elements' external calls while earlier ones run
//! (`sum (map (\x -> delay 200 x) xs)` takes the time of one call); in the fused loop
//! it cannot. So a rule applies only when its new step can reach no external and
//! applies no function not known here (`Fuser::effect_free`): then there is nothing to run
//! in parallel, and fusion changes only the cost.
//!
//! Applications of the composed functions to the step's variables are reduced where
//! that duplicates no work (`beta`), so `sum (map (\x -> x * 2) (range 0 n))` runs
//! as `foldlRange (\acc x -> acc + x * 2) 0 0 n`, a step the machine computes at once
//! (cheap eagerness). The rewritten body is a core term like any other: a paused
//! state inside it reads back as the fused loop.

use super::analysis::{Facts, lambdas, unann};
use crate::core::program::Program;
use crate::core::subst::{rewrite_spines, shift, subst_top, unshift};
use crate::core::term::{Binder, DefId, Ix, Plicity, PrimType, RcTerm, Term, spine};
use std::rc::Rc;

/// How many times a body is rewritten at most: each pass fuses the folds whose
/// producers the previous pass exposed (a fold nested in a fused step).
const PASSES: usize = 8;

/// How many nodes [`effect_free`] looks at before it gives up (and the rule does not
/// apply).
const EFFECT_FREE_NODES: usize = 2_000;

/// The prelude definitions the rules know, found by name (the first definition of
/// each name: the prelude's, which the user's own definitions never replace here).
/// A definition the program does not use is not checked, and so is not known.
#[derive(Clone)]
struct Known {
    /// `sum`, `product`, `length`: wrappers around `foldlStrict`.
    wrappers: Vec<DefId>,
    /// `None` where the program does not use it: a definition nothing reaches is
    /// not checked (its body is a hole), and the rules that make its calls are off.
    foldl_strict: Option<DefId>,
    foldl_range: DefId,
    map: Option<DefId>,
    filter: Option<DefId>,
    range: Option<DefId>,
    /// `filterRange` and `mapFilterRange`: what list producers over a range become.
    filter_range: Option<DefId>,
    map_filter_range: Option<DefId>,
}

impl Known {
    /// The definitions, found in the file of the prelude's `foldlRange` with the
    /// parameters the rules expect (and checked: a definition the program does not
    /// reach keeps a hole for its body, and is not found).
    fn find(prog: &Program, foldl_range: DefId) -> Known {
        let file = prog.def(foldl_range).span.file;
        let find = |name: &str, params: usize| -> Option<DefId> {
            let i = prog.defs.iter().position(|d| &*d.name == name)?;
            let d = &prog.defs[i];
            (d.span.file == file && lambdas(&d.body).0.len() == params).then_some(DefId(i as u32))
        };
        Known {
            wrappers: [("sum", 1), ("product", 1), ("length", 2)]
                .iter()
                .filter_map(|&(n, k)| find(n, k))
                .collect(),
            foldl_strict: find("foldlStrict", 5),
            foldl_range,
            map: find("map", 4),
            filter: find("filter", 3),
            range: find("range", 2),
            filter_range: find("filterRange", 3),
            map_filter_range: find("mapFilterRange", 5),
        }
    }
}

/// The prelude's `foldlRange`, as it prints: the machine relies on what it means
/// (fusion calls it, [`crate::machine::loops`] runs its loop in place), so a definition of that
/// name means it only when it is this one.
const FOLD_RANGE: &str = "\\{b : Type} (f : b -> Int -> b) (z : b) (lo : Int) (hi : Int) -> \
     if lo >= hi then z else let z2 : b = f z lo in prim_seq z2 (foldlRange {b} f z2 (lo + 1) hi)";

/// The prelude's `foldlRange`, when the program has it (and checked it).
pub fn fold_range_def(prog: &Program) -> Option<DefId> {
    let i = prog.defs.iter().position(|d| &*d.name == "foldlRange")?;
    let d = DefId(i as u32);
    (crate::core::pretty::term_to_string(prog, &[], &prog.def(d).body) == FOLD_RANGE).then_some(d)
}

/// The body the machine runs for each definition, where fusion changed it.
pub fn program(prog: &Program, facts: &Facts) -> Vec<Option<RcTerm>> {
    let Some(known) = facts.fold_range.map(|d| Known::find(prog, d)) else {
        return vec![None; prog.defs.len()];
    };
    let fuser = Fuser { prog, facts, known };
    super::analysis::bodies(prog, facts.inline)
        .map(|written| rewrite_passes(written, PASSES, |n| fuser.rule(n), |_| false))
        .collect()
}

/// Rewrites each application spine of `body` by `rule`, pass after pass (each pass
/// rewrites what the previous one exposed) until a pass changes nothing, `passes`
/// have run, or `too_big` says the body has grown enough: the body, if it changed.
pub(super) fn rewrite_passes(
    body: &RcTerm,
    passes: usize,
    rule: impl Fn(&RcTerm) -> Option<RcTerm>,
    too_big: impl Fn(&RcTerm) -> bool,
) -> Option<RcTerm> {
    let mut body = body.clone();
    let mut changed = false;
    for _ in 0..passes {
        let mut fired = false;
        body = rewrite_spines(&body, &mut |node, _, is_fun| {
            if is_fun {
                return None;
            }
            let r = rule(node);
            fired |= r.is_some();
            r
        });
        if !fired {
            break;
        }
        changed = true;
        if too_big(&body) {
            break;
        }
    }
    changed.then_some(body)
}

struct Fuser<'a> {
    prog: &'a Program,
    facts: &'a Facts,
    known: Known,
}

impl Fuser<'_> {
    /// The rewrite of an application spine, if a rule applies to it.
    fn rule(&self, node: &RcTerm) -> Option<RcTerm> {
        let (head, args) = spine(node);
        let Term::Def(d) = &**unann(head) else {
            return None;
        };
        let k = &self.known;
        let args: Vec<RcTerm> = args.iter().map(|(_, a)| (*a).clone()).collect();
        if k.wrappers.contains(d) {
            let (lams, inner) = lambdas(&self.prog.def(*d).body);
            if args.len() != lams.len() || self.producer(args.last()?).is_none() {
                return None;
            }
            // The wrapper's body (a `foldlStrict`) with the arguments for its
            // parameters, when that fold fuses.
            let fold = crate::core::subst::instantiate(inner, &args);
            return self.rule(&fold);
        }
        if Some(*d) == k.map || Some(*d) == k.filter {
            return self.producer_rule(*d, &args);
        }
        if Some(*d) != k.foldl_strict || args.len() != 5 {
            return None;
        }
        let (b, g, z, xs) = (&args[1], &args[2], &args[3], &args[4]);
        let (producer, pargs) = self.producer(xs)?;
        let step = |elem_ty: &RcTerm, body: RcTerm| -> Option<RcTerm> {
            if !self.effect_free(&body) {
                return None;
            }
            Some(lam("acc", b.clone(), lam("x", shift(elem_ty, 1), body)))
        };
        let acc = || Term::Var(Ix(1)).rc();
        let x = || Term::Var(Ix(0)).rc();
        let fold = |elem_ty: &RcTerm, step: RcTerm, list: &RcTerm| {
            apps(
                Term::Def(*d).rc(),
                [
                    (Plicity::Implicit, elem_ty.clone()),
                    (Plicity::Implicit, b.clone()),
                    (Plicity::Explicit, step),
                    (Plicity::Explicit, z.clone()),
                    (Plicity::Explicit, list.clone()),
                ],
            )
        };
        if Some(producer) == k.map {
            // foldlStrict g z (map f ys) = foldlStrict (\acc x -> g acc (f x)) z ys
            let (c, f, ys) = (&pargs[0], &pargs[2], &pargs[3]);
            let fx = beta(shift(f, 2), vec![x()]);
            let s = step(c, beta(shift(g, 2), vec![acc(), fx]))?;
            Some(fold(c, s, ys))
        } else if Some(producer) == k.filter {
            // foldlStrict g z (filter p ys) =
            //   foldlStrict (\acc x -> if p x then g acc x else acc) z ys
            let (a, p, ys) = (&pargs[0], &pargs[1], &pargs[2]);
            let test = beta(shift(p, 2), vec![x()]);
            let then_ = beta(shift(g, 2), vec![acc(), x()]);
            let s = step(a, self.bool_match(test, then_, acc()))?;
            Some(fold(a, s, ys))
        } else {
            // foldlStrict g z (range lo hi) = foldlRange g z lo hi
            let int = Term::PrimType(PrimType::Int).rc();
            step(&int, beta(shift(g, 2), vec![acc(), x()]))?;
            Some(apps(
                Term::Def(k.foldl_range).rc(),
                [
                    (Plicity::Implicit, b.clone()),
                    (Plicity::Explicit, g.clone()),
                    (Plicity::Explicit, z.clone()),
                    (Plicity::Explicit, pargs[0].clone()),
                    (Plicity::Explicit, pargs[1].clone()),
                ],
            ))
        }
    }

    /// A list producer over a range without the range's list:
    ///
    /// - `map f (filter p (range lo hi))` is `mapFilterRange f p lo hi`;
    /// - `map f (range lo hi)` is `mapFilterRange f (\_ -> True) lo hi`;
    /// - `filter p (range lo hi)` is `filterRange p lo hi`.
    ///
    /// Both sides compute the same things in the same order: a cell when it is
    /// needed, its test (`p lo`) then, its element (`f lo`) lazily. The functions must
    /// be effect-free ([`Fuser::effect_free`]), as for folds.
    fn producer_rule(&self, d: DefId, args: &[RcTerm]) -> Option<RcTerm> {
        let k = &self.known;
        let range_of = |t: &RcTerm| -> Option<(RcTerm, RcTerm)> {
            let (p, pargs) = self.producer(t)?;
            (Some(p) == k.range).then(|| (pargs[0].clone(), pargs[1].clone()))
        };
        let explicit = |f: RcTerm| (Plicity::Explicit, f);
        if Some(d) == k.filter {
            // filter {a} p xs
            let [_, p, xs] = args else { return None };
            let (lo, hi) = range_of(xs)?;
            if !self.applied_effect_free(p) {
                return None;
            }
            return Some(apps(
                Term::Def(k.filter_range?).rc(),
                [explicit(p.clone()), explicit(lo), explicit(hi)],
            ));
        }
        // map {a} {b} f xs
        let [_, b, f, xs] = args else { return None };
        let (p, (lo, hi)) = match range_of(xs) {
            Some(bounds) => {
                let int = Term::PrimType(PrimType::Int).rc();
                let always = lam("_", int, Term::Con(self.prog.builtins.true_).rc());
                (always, bounds)
            }
            None => {
                let (filter, fargs) = self.producer(xs)?;
                if Some(filter) != k.filter {
                    return None;
                }
                (fargs[1].clone(), range_of(&fargs[2])?)
            }
        };
        if !self.applied_effect_free(f) || !self.applied_effect_free(&p) {
            return None;
        }
        Some(apps(
            Term::Def(k.map_filter_range?).rc(),
            [
                (Plicity::Implicit, b.clone()),
                explicit(f.clone()),
                explicit(p),
                explicit(lo),
                explicit(hi),
            ],
        ))
    }

    /// The producer a list term applies with all its arguments (`map`, `filter`,
    /// `range`), and those arguments.
    fn producer(&self, t: &RcTerm) -> Option<(DefId, Vec<RcTerm>)> {
        let (head, args) = spine(t);
        let Term::Def(d) = &**unann(head) else {
            return None;
        };
        let k = &self.known;
        let want = match Some(*d) {
            d if d == k.map => 4,
            d if d == k.filter => 3,
            d if d == k.range => 2,
            _ => return None,
        };
        (args.len() == want).then(|| (*d, args.iter().map(|(_, a)| (*a).clone()).collect()))
    }

    /// `if cond then then_ else else_`, as the elaborator writes it.
    fn bool_match(&self, cond: RcTerm, then_: RcTerm, else_: RcTerm) -> RcTerm {
        let span = self.prog.def(self.known.foldl_range).span;
        self.prog.builtins.if_then_else(cond, then_, else_, span)
    }

    /// Whether a function applied to an element is [`Fuser::effect_free`] (a
    /// variable, a function not known here, never is).
    fn applied_effect_free(&self, f: &RcTerm) -> bool {
        self.effect_free(&beta(shift(f, 1), vec![Term::Var(Ix(0)).rc()]))
    }

    /// Whether evaluating `t` can reach no external and applies only functions known
    /// here: lambdas written in it, constructors, primitives, and definitions that
    /// call no external, given at most as many arguments as they have parameters (one
    /// given more returns a function nobody here knows). A variable is never applied.
    fn effect_free(&self, t: &RcTerm) -> bool {
        let mut work = vec![t];
        let mut seen = 0;
        while let Some(t) = work.pop() {
            seen += 1;
            if seen > EFFECT_FREE_NODES {
                return false;
            }
            match &**t {
                Term::Extern(..) => return false,
                Term::Def(d) if self.facts.may_call[d.0 as usize] => return false,
                Term::App(..) => {
                    let (head, args) = spine(t);
                    work.extend(args.iter().map(|(_, a)| *a));
                    match &**unann(head) {
                        Term::Def(d) if args.len() <= lambdas(&self.prog.def(*d).body).0.len() => {
                            work.push(head)
                        }
                        Term::Con(_) | Term::Prim(..) | Term::Data(_) | Term::Lam(..) => {
                            work.push(head)
                        }
                        _ => return false,
                    }
                }
                Term::Pi(..) => {}
                _ => t.for_each_child(|c, _| work.push(c)),
            }
        }
        true
    }
}

/// `\(name : ty) -> body`.
fn lam(name: &str, ty: RcTerm, body: RcTerm) -> RcTerm {
    Term::Lam(
        Binder {
            name: Rc::from(name),
            plicity: Plicity::Explicit,
            ty,
        },
        body,
    )
    .rc()
}

/// An application spine.
fn apps(head: RcTerm, args: impl IntoIterator<Item = (Plicity, RcTerm)>) -> RcTerm {
    args.into_iter()
        .fold(head, |f, (p, a)| Term::App(f, p, a).rc())
}

/// `fun args`, reducing where `fun` is a lambda and that duplicates no work: an
/// argument that is a variable, or one its parameter uses at most once and not under
/// a lambda (so it is still evaluated at most once, and only if needed).
fn beta(fun: RcTerm, args: Vec<RcTerm>) -> RcTerm {
    let mut fun = fun;
    let mut rest = args.into_iter();
    for arg in rest.by_ref() {
        let Term::Lam(b, body) = &**unann(&fun) else {
            fun = Term::App(fun, Plicity::Explicit, arg).rc();
            continue;
        };
        if b.plicity != Plicity::Explicit {
            fun = Term::App(fun, Plicity::Explicit, arg).rc();
            continue;
        }
        let reduced = match uses(body) {
            Uses::None => Some(unshift(body, 1)),
            Uses::Once => Some(subst_top(body, &arg)),
            Uses::Many if matches!(&*arg, Term::Var(_)) => Some(subst_top(body, &arg)),
            Uses::Many => None,
        };
        fun = match reduced {
            Some(r) => r,
            None => Term::App(fun, Plicity::Explicit, arg).rc(),
        };
    }
    fun
}

/// How a body uses the variable its binder binds (index 0).
pub(super) enum Uses {
    None,
    /// Once, and not under a lambda of the body.
    Once,
    Many,
}

pub(super) fn uses(body: &RcTerm) -> Uses {
    let mut count = 0;
    let mut under_lam = false;
    let mut work = vec![(body, 0u32, false)];
    while let Some((t, depth, in_lam)) = work.pop() {
        match &**t {
            Term::Var(Ix(i)) if *i == depth => {
                count += 1;
                under_lam |= in_lam;
            }
            // Types are not evaluated: a use there costs nothing.
            Term::Pi(..) => {}
            _ => {
                let lam = matches!(&**t, Term::Lam(..));
                t.for_each_child(|c, k| work.push((c, depth + k, in_lam || (lam && k > 0))));
            }
        }
    }
    match (count, under_lam) {
        (0, _) => Uses::None,
        (1, false) => Uses::Once,
        _ => Uses::Many,
    }
}

#[cfg(test)]
mod tests {
    use crate::core::pretty::term_to_string;
    use crate::driver;
    use crate::machine::Machine;
    use crate::machine::compile::run_body;

    /// A definition's body as the machine runs it, and as written, printed.
    fn bodies(src: &str, def: &str) -> (String, String) {
        let loaded = driver::load_text("f.sp", src);
        let program = loaded
            .program
            .as_ref()
            .unwrap_or_else(|| panic!("{src}: {:?}", loaded.diagnostics));
        let _ = Machine::new(program);
        let i = program
            .defs
            .iter()
            .rposition(|d| &*d.name == def)
            .expect("def");
        let d = crate::core::term::DefId(i as u32);
        (
            term_to_string(program, &[], run_body(program, d, true)),
            term_to_string(program, &[], &program.def(d).body),
        )
    }

    /// `def main = {src}` runs as `fused`.
    fn assert_main_runs_as(src: &str, fused: &str) {
        let (run, _) = bodies(
            &format!("def showLen (n : Int) : Int = strLength (showInt n)\ndef main = {src}\n"),
            "main",
        );
        assert_eq!(run, fused, "{src}");
    }

    #[test]
    fn pipelines_over_ranges_become_loops() {
        for (src, fused) in [
            (
                "sum (map (\\x -> x * 2) (filter (\\x -> x % 3 != 0) (range 0 10)))",
                "foldlRange {Int} (\\(acc : Int) (x : Int) -> \
                 if x % 3 != 0 then acc + x * 2 else acc) 0 0 10",
            ),
            (
                "length (filter (\\x -> x > 3) (range 0 10))",
                "foldlRange {Int} (\\(acc : Int) (x : Int) -> \
                 if x > 3 then acc + 1 else acc) 0 0 10",
            ),
            (
                "product (map showLen (range 0 10))",
                "foldlRange {Int} (\\(acc : Int) (x : Int) -> acc * showLen x) 1 0 10",
            ),
            (
                "length (range 0 10)",
                "foldlRange {Int} (\\(n : Int) (_ : Int) -> n + 1) 0 0 10",
            ),
        ] {
            assert_main_runs_as(src, fused);
        }
    }

    #[test]
    fn a_fold_over_another_list_keeps_its_list() {
        let (run, _) = bodies(
            "def f (xs : List Int) : Int = sum (map (\\x -> x + 1) xs)\n",
            "f",
        );
        assert_eq!(
            run,
            "\\(xs : List Int) -> foldlStrict {Int} {Int} \
             (\\(acc : Int) (x : Int) -> acc + (x + 1)) 0 xs"
        );
    }

    /// What could start external calls, or apply a function not known here, is never
    /// fused: the list stays, so the scheduler can run its elements in parallel.
    #[test]
    fn effects_and_unknown_functions_are_not_fused() {
        for (src, def) in [
            (
                "def main = sum (map (\\x -> delay 5 x) (range 0 4))\n",
                "main",
            ),
            (
                "def t (f : Int -> Int) : Int = sum (map f (range 0 4))\n",
                "t",
            ),
            (
                "def pick (b : Bool) : Int -> Int = if b then abs else (\\y -> y + 1)\n\
                 def main = sum (map (\\x -> pick True x) (range 0 3))\n",
                "main",
            ),
            ("def main = sum [1, 2, 3]\n", "main"),
            (
                "def map (f : Int -> Int) (xs : List Int) : List Int = xs\n\
                 def main = sum (map (\\x -> x + 1) [1, 2])\n",
                "main",
            ),
            (
                "def main = filter (\\x -> delay 5 x > 2) (range 0 4)\n",
                "main",
            ),
            (
                "def t (f : Int -> Int) : List Int = map f (range 0 4)\n",
                "t",
            ),
            (
                "def t (p : Int -> Bool) : List Int = filter p (range 0 4)\n",
                "t",
            ),
        ] {
            let (run, written) = bodies(src, def);
            assert_eq!(run, written, "{src}");
        }
        // A fold whose step applies a function it was given keeps its list (the
        // list's own producer, whose functions are known, is fused).
        let (run, _) = bodies(
            "def main = sum (map (\\f -> f 1) (map (\\x y -> x + y) (range 0 3)))\n",
            "main",
        );
        assert_eq!(
            run,
            "sum (map {Int -> Int} {Int} (\\(f : Int -> Int) -> f 1) \
             (mapFilterRange {Int -> Int} (\\(x : Int) (y : Int) -> x + y) \
             (\\(_ : Int) -> True) 0 3))"
        );
    }

    /// List producers over a range lose the range's list.
    #[test]
    fn producers_over_ranges_lose_the_range() {
        for (src, fused) in [
            (
                "map (\\x -> x * 2) (filter (\\x -> x % 3 != 0) (range 0 10))",
                "mapFilterRange {Int} (\\(x : Int) -> x * 2) (\\(x : Int) -> x % 3 != 0) 0 10",
            ),
            (
                "filter (\\x -> x > 3) (range 0 10)",
                "filterRange (\\(x : Int) -> x > 3) 0 10",
            ),
            (
                "map (\\x -> [x]) (range 0 10)",
                "mapFilterRange {List Int} (\\(x : Int) -> [x]) (\\(_ : Int) -> True) 0 10",
            ),
        ] {
            assert_main_runs_as(src, fused);
        }
    }
}
