//! Inlining through known dictionaries: a core-to-core rewrite of definition bodies,
//! run before the analyses, so that a call of an interface method on a type known
//! where the call is written costs what the instance's code costs (issue 30).
//!
//! The elaborator passes an interface's dictionary (a record of methods) to every
//! constrained function and method (`max {Int} {instance'Ord'Int} a b`). The machine
//! would build or look up the dictionary, project the method from it and call it
//! through an unknown function, so nothing about the method (that `compare` on `Int`
//! is a cheap primitive, strict in both arguments) reaches the analyses or the tiers:
//! a fold with `max` keeps its accumulator lazy, and a loop over `min` is not computed
//! at hand. The rewrite resolves such calls where the dictionary argument is *known*:
//! an instance definition (or a constructor of the interface) applied to all its
//! parameters, whose fields are therefore known terms.
//!
//! - **Methods.** A method is a definition that only projects one field from its
//!   dictionary parameter (`\{a} {d} -> match d with Ord f -> f`). Applied to a known
//!   dictionary whose field is a value (a lambda, a variable, a constant), the call is
//!   that field applied to the remaining arguments.
//! - **Small constrained functions.** A definition of at most [`SMALL`] nodes, not
//!   recursive and naming no external, with an instance parameter given a known
//!   dictionary, is replaced by its body with the arguments substituted: the methods
//!   inside it then become known too (`max` → `derive'le` → `compare` → `prim_compare`).
//!
//! Then matches on a value an enclosing arm has matched already are resolved
//! ([`super::known`]).
//!
//! Nothing else is keyed to a name or a shape: any interface, instance and function
//! written this way is treated alike, the prelude's and the user's.
//!
//! Substituting arguments is beta reduction that duplicates no work: an argument is
//! substituted where the body uses it at most once (and not under a lambda), or where
//! it is duplicable (a variable, a literal, a type, a constructor or dictionary built
//! from such); otherwise it is bound by a `let`, which keeps it shared and lazy. The
//! result means what the call meant, evaluates the same things in the same order, and
//! reaches the same externals (the bodies inlined name none themselves). A paused state
//! inside a rewritten body reads back as the rewritten core term.

use super::analysis::{lambdas, unann};
use super::fuse::{Uses, uses};
use crate::core::program::Program;
use crate::core::subst::{shift, subst_top};
use crate::core::term::{CasePat, ConId, DefId, Ix, Plicity, RcTerm, Term, spine};

/// The most nodes a constrained function's body may have to be inlined.
pub const SMALL: usize = 60;

/// The most nodes a method's field may have to be put in place of a call.
const FIELD: usize = 200;

/// How many passes a body gets at most: each resolves the calls the previous one
/// exposed (a method inside an inlined function).
const PASSES: usize = 8;

/// How large a rewritten body may grow, against the body written: `GROWTH` times it,
/// plus `SLACK` nodes. Past that, no more passes.
const GROWTH: usize = 8;
const SLACK: usize = 400;

/// What the rewrite knows about one definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// None of the below.
    Other,
    /// A method: `lams` implicit lambdas, the dictionary at lambda `dict`, field
    /// `field` (among the constructor's explicit fields) projected.
    Method {
        lams: usize,
        dict: usize,
        field: usize,
    },
    /// An instance: `lams` leading lambdas around a constructor of an interface.
    Instance { lams: usize },
    /// A small function with instance parameters (at the lambdas flagged in `dicts`,
    /// the first 64) that may be inlined.
    Small { dicts: u64 },
}

/// The body the rewrite produced for each definition, where it changed it (`None`
/// elsewhere). Every rewritten body has the leading lambdas of the body written (the
/// same number, with the same plicities), so calls compile alike either way.
pub fn program(prog: &Program) -> Vec<Option<RcTerm>> {
    let roles: Vec<Role> = (0..prog.defs.len())
        .map(|i| role(prog, DefId(i as u32)))
        .collect();
    let dictionaries = roles.iter().any(|r| matches!(r, Role::Instance { .. }));
    let inliner = Inliner { prog, roles };
    prog.defs
        .iter()
        .map(|d| {
            let inlined = if dictionaries {
                inliner.body(&d.body)
            } else {
                None
            };
            // Then matches on values already matched (which inlining exposes too).
            let resolved = super::known::rewrite(inlined.as_ref().unwrap_or(&d.body));
            let out = resolved.or(inlined)?;
            same_lambdas(&d.body, &out).then_some(out)
        })
        .collect()
}

/// The role of definition `d` (see [`Role`]).
fn role(prog: &Program, d: DefId) -> Role {
    let body = &prog.def(d).body;
    let (lams, inner) = lambdas(body);
    let binders: Vec<_> = lams
        .iter()
        .map(|l| match &***l {
            Term::Lam(b, _) => b,
            _ => unreachable!("lambdas are lambdas"),
        })
        .collect();
    // A method: a match of one constructor arm on a parameter, giving one field.
    if let Term::Match(m) = &**inner
        && !binders.is_empty()
        && binders.iter().all(|b| b.plicity == Plicity::Implicit)
        && m.arms.len() == 1
        && m.default.is_none()
        && let Term::Var(Ix(k)) = &**unann(&m.scrut)
        && (*k as usize) < binders.len()
        && let CasePat::Con(c, fields) = &m.arms[0].pat
        && is_interface(prog, *c)
        && let Term::Var(Ix(j)) = &**unann(&m.arms[0].body)
        && (*j as usize) < fields.len()
    {
        return Role::Method {
            lams: binders.len(),
            dict: binders.len() - 1 - *k as usize,
            field: fields.len() - 1 - *j as usize,
        };
    }
    if let Term::Con(c) = &**spine(inner).0
        && is_interface(prog, *c)
    {
        return Role::Instance { lams: lams.len() };
    }
    let mut dicts = 0u64;
    for (i, b) in binders.iter().enumerate().take(64) {
        if b.plicity == Plicity::Implicit
            && let Term::Data(dt) = &**spine(unann(&b.ty)).0
            && prog.data(*dt).interface
        {
            dicts |= 1 << i;
        }
    }
    if dicts != 0 && small_and_plain(body, d) {
        return Role::Small { dicts };
    }
    Role::Other
}

fn is_interface(prog: &Program, c: ConId) -> bool {
    prog.data(c.data).interface
}

/// Whether a body has at most [`SMALL`] nodes, names no external and does not name
/// its own definition.
fn small_and_plain(body: &RcTerm, d: DefId) -> bool {
    let mut n = 0;
    let mut work = vec![body];
    while let Some(t) = work.pop() {
        n += 1;
        if n > SMALL {
            return false;
        }
        match &**t {
            Term::Extern(..) => return false,
            Term::Def(e) if *e == d => return false,
            _ => t.for_each_child(|c, _| work.push(c)),
        }
    }
    true
}

/// How many nodes a term has, counting at most `cap`.
fn size(t: &RcTerm, cap: usize) -> usize {
    let mut n = 0;
    let mut work = vec![t];
    while let Some(t) = work.pop() {
        n += 1;
        if n >= cap {
            return cap;
        }
        t.for_each_child(|c, _| work.push(c));
    }
    n
}

/// The rewrite of one program.
struct Inliner<'a> {
    prog: &'a Program,
    roles: Vec<Role>,
}

impl Inliner<'_> {
    /// The rewritten body, if anything changed.
    fn body(&self, written: &RcTerm) -> Option<RcTerm> {
        let budget = size(written, usize::MAX / GROWTH - SLACK) * GROWTH + SLACK;
        let body = super::fuse::rewrite_passes(
            written,
            PASSES,
            |n| self.rule(n),
            |b| size(b, budget + 1) > budget,
        )?;
        same_lambdas(written, &body).then_some(body)
    }

    /// The rewrite of an application spine, if it is a call through a known
    /// dictionary.
    fn rule(&self, node: &RcTerm) -> Option<RcTerm> {
        let (head, args) = spine(node);
        let Term::Def(d) = &**head else {
            return None;
        };
        match self.roles[d.0 as usize] {
            Role::Method { lams, dict, field } => {
                if args.len() < lams || args[..lams].iter().any(|(p, _)| *p != Plicity::Implicit) {
                    return None;
                }
                let (_, fields) = self.known_dict(args[dict].1, 8)?;
                let f = fields.get(field)?;
                if !is_value(f) || size(f, FIELD + 1) > FIELD {
                    return None;
                }
                let rest: Vec<(Plicity, RcTerm)> = args[lams..]
                    .iter()
                    .map(|(p, a)| (*p, (*a).clone()))
                    .collect();
                Some(beta(f.clone(), &rest))
            }
            Role::Small { dicts } => {
                let (lams, _) = lambdas(&self.prog.def(*d).body);
                let known = args.iter().enumerate().take(64).any(|(i, (p, a))| {
                    dicts & (1 << i) != 0
                        && *p == Plicity::Implicit
                        && self.known_dict(a, 8).is_some()
                });
                // The arguments must meet the lambdas they are for.
                let fits = args
                    .iter()
                    .zip(&lams)
                    .all(|((p, _), l)| matches!(&***l, Term::Lam(b, _) if b.plicity == *p));
                if !known || !fits {
                    return None;
                }
                let all: Vec<(Plicity, RcTerm)> =
                    args.iter().map(|(p, a)| (*p, (*a).clone())).collect();
                Some(beta(self.prog.def(*d).body.clone(), &all))
            }
            Role::Instance { .. } | Role::Other => None,
        }
    }

    /// The constructor and explicit fields of a dictionary known where it is written:
    /// an interface's constructor applied to its fields, or an instance applied to all
    /// its parameters (`fuel` bounds instances built from instances).
    fn known_dict(&self, t: &RcTerm, fuel: u32) -> Option<(ConId, Vec<RcTerm>)> {
        let (head, args) = spine(unann(t));
        match &**head {
            Term::Con(c) if is_interface(self.prog, *c) => {
                let fields: Vec<RcTerm> = args
                    .iter()
                    .filter(|(p, _)| *p == Plicity::Explicit)
                    .map(|(_, a)| (*a).clone())
                    .collect();
                (fields.len() == self.prog.con(*c).fields.len()).then_some((*c, fields))
            }
            Term::Def(d) if fuel > 0 => {
                let Role::Instance { lams } = self.roles[d.0 as usize] else {
                    return None;
                };
                if args.len() != lams {
                    return None;
                }
                let all: Vec<(Plicity, RcTerm)> =
                    args.iter().map(|(p, a)| (*p, (*a).clone())).collect();
                let inner = beta(self.prog.def(*d).body.clone(), &all);
                // Every argument substituted: the body is the constructor application.
                if matches!(&**unann(&inner), Term::Let(..)) {
                    return None;
                }
                self.known_dict(&inner, fuel - 1)
            }
            _ => None,
        }
    }
}

/// Whether `t` is a value whose copies cost no work: a function, a variable, a
/// reference to a definition, a literal, a constructor, a primitive.
fn is_value(t: &RcTerm) -> bool {
    matches!(
        &**unann(t),
        Term::Lam(..)
            | Term::Var(_)
            | Term::Def(_)
            | Term::Lit(_)
            | Term::Con(_)
            | Term::Prim(..)
            | Term::Data(_)
            | Term::PrimType(_)
    )
}

/// Whether copies of `t` cost no work worth sharing: variables, literals, types,
/// references to definitions, and constructors or instances applied to such.
fn duplicable(t: &RcTerm, fuel: u32) -> bool {
    let t = unann(t);
    match &**t {
        Term::Var(_)
        | Term::Def(_)
        | Term::Con(_)
        | Term::Data(_)
        | Term::Lit(_)
        | Term::PrimType(_)
        | Term::Universe(_)
        | Term::Hole(..)
        | Term::Pi(..)
        | Term::Prim(..) => true,
        Term::App(..) if fuel > 0 => {
            let (head, args) = spine(t);
            matches!(&**head, Term::Con(_) | Term::Data(_) | Term::Def(_))
                && (!matches!(&**head, Term::Def(_))
                    || args.iter().all(|(p, _)| *p == Plicity::Implicit))
                && args.iter().all(|(_, a)| duplicable(a, fuel - 1))
        }
        _ => false,
    }
}

/// `fun` applied to `args`, reducing the lambdas they meet (see the module
/// documentation): an argument is substituted where that duplicates no work, else
/// bound by a `let` (recursive in the core: its right-hand side moves under the
/// binder, which it does not use).
fn beta(fun: RcTerm, args: &[(Plicity, RcTerm)]) -> RcTerm {
    let Some(((pl, arg), rest)) = args.split_first() else {
        return fun;
    };
    let Term::Lam(b, body) = &**unann(&fun) else {
        return args
            .iter()
            .fold(fun, |f, (p, a)| Term::App(f, *p, a.clone()).rc());
    };
    if b.plicity != *pl {
        return args
            .iter()
            .fold(fun, |f, (p, a)| Term::App(f, *p, a.clone()).rc());
    }
    let substitute = match uses(body) {
        Uses::None | Uses::Once => true,
        Uses::Many => duplicable(arg, 4),
    };
    if substitute {
        return beta(subst_top(body, arg), rest);
    }
    let rest: Vec<(Plicity, RcTerm)> = rest.iter().map(|(p, a)| (*p, shift(a, 1))).collect();
    Term::Let(b.clone(), shift(arg, 1), beta(body.clone(), &rest)).rc()
}

/// Whether two bodies have the same leading lambdas (number and plicities).
fn same_lambdas(a: &RcTerm, b: &RcTerm) -> bool {
    let (la, _) = lambdas(a);
    let (lb, _) = lambdas(b);
    la.len() == lb.len()
        && la.iter().zip(&lb).all(|(x, y)| match (&***x, &***y) {
            (Term::Lam(p, _), Term::Lam(q, _)) => p.plicity == q.plicity,
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use crate::core::pretty::term_to_string;
    use crate::core::term::DefId;

    /// The body `main` runs after the rewrite, printed.
    fn main_after(src: &str) -> String {
        let loaded = crate::driver::load_text("inline.sp", src);
        assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
        let p = loaded.program.expect("a program");
        let main = p.main.expect("a main");
        let bodies = super::program(&p);
        let body = bodies[main.0 as usize]
            .clone()
            .unwrap_or_else(|| p.def(main).body.clone());
        term_to_string(&p, &[], &body)
    }

    fn def_id(p: &crate::core::program::Program, name: &str) -> DefId {
        DefId(p.defs.iter().position(|d| &*d.name == name).unwrap() as u32)
    }

    #[test]
    fn methods_of_known_instances_are_their_fields() {
        assert_eq!(main_after("def main = compare 3 4\n"), "prim_compare 3 4");
        // Through `max` and `derive'le`.
        assert_eq!(
            main_after("def main = max 3 4\n"),
            "if prim_compare 3 4 != GT then 4 else 3"
        );
    }

    #[test]
    fn arguments_used_twice_are_shared() {
        let out = main_after("def f (x : Int) : Int = max (x * 2) (x + 1)\ndef main = f 3\n");
        assert_eq!(out, "f 3");
        let loaded = crate::driver::load_text(
            "inline.sp",
            "def f (x : Int) : Int = max (x * 2) (x + 1)\ndef main = f 3\n",
        );
        let p = loaded.program.unwrap();
        let f = def_id(&p, "f");
        let body = super::program(&p)[f.0 as usize]
            .clone()
            .expect("f is rewritten");
        let text = term_to_string(&p, &[], &body);
        assert!(text.contains("let "), "{text}");
        assert!(!text.contains("max"), "{text}");
    }

    #[test]
    fn unknown_dictionaries_stay() {
        let src =
            "def big {a : Type} {d : Ord a} (x : a) (y : a) : a = max x y\ndef main = big 1 2\n";
        let loaded = crate::driver::load_text("inline.sp", src);
        let p = loaded.program.unwrap();
        let big = def_id(&p, "big");
        // Inside `big`, the dictionary is a parameter: nothing is known.
        assert!(super::program(&p)[big.0 as usize].is_none());
    }
}
