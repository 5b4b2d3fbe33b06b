//! Matches on a value already matched: a core-to-core rewrite (run with
//! [`super::inline`]) that takes, inside an arm of `match x with | C a b -> ...`, any
//! `match x with | C a' b' -> e` (the same variable, an arm for the same constructor)
//! to `e` with `a`, `b` for `a'`, `b'`.
//!
//! The second match would find the constructor the first one found, so the two mean
//! the same. What changes is what a suspended computation holds: a record's field read
//! as `s.count` inside a record update (`{ s | count = s.count + 1 }`, which matches
//! `s` once for the fields it copies) becomes the field's own variable, so a thunk of
//! it keeps that field, not the whole old record. A program that threads a record
//! through a loop (a state with a big structure in one field and a lazy counter in
//! another) otherwise keeps every old state alive through the counters' thunks.

use crate::core::subst::instantiate;
use crate::core::term::{CaseArm, CasePat, ConId, Ix, Match, RcTerm, Term};

/// What an enclosing arm tells: the variable at de Bruijn *level* `var` is the
/// constructor `con`, whose fields are bound at levels `fields..fields + n`.
#[derive(Clone, Copy)]
struct Known {
    var: u32,
    con: ConId,
    fields: u32,
    n: u32,
}

/// `t` with the matches on values already matched resolved, if any was.
pub fn rewrite(t: &RcTerm) -> Option<RcTerm> {
    let mut known = Vec::new();
    walk(t, 0, &mut known)
}

fn level_of(depth: u32, ix: u32) -> Option<u32> {
    depth.checked_sub(ix + 1)
}

/// The rewrite of `t` under `depth` binders (`None`: unchanged).
fn walk(t: &RcTerm, depth: u32, known: &mut Vec<Known>) -> Option<RcTerm> {
    stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || walk_inner(t, depth, known))
}

fn walk_inner(t: &RcTerm, depth: u32, known: &mut Vec<Known>) -> Option<RcTerm> {
    match &**t {
        Term::Match(m) => {
            // A match on a variable whose constructor an enclosing arm found.
            if let Term::Var(Ix(ix)) = &**crate::machine::compile::analysis::unann(&m.scrut)
                && let Some(level) = level_of(depth, *ix)
                && let Some(k) = known.iter().rev().find(|k| k.var == level).copied()
                && let Some(arm) = m.arms.iter().find(
                    |a| matches!(&a.pat, CasePat::Con(c, fs) if *c == k.con && fs.len() as u32 == k.n),
                )
            {
                // The fields, as variables outside the arm's binders.
                let args: Vec<RcTerm> = (0..k.n)
                    .map(|i| Term::Var(Ix(depth - 1 - (k.fields + i))).rc())
                    .collect();
                let body = instantiate(&arm.body, &args);
                return Some(walk(&body, depth, known).unwrap_or(body));
            }
            let scrut = walk(&m.scrut, depth, known);
            let scrut_level = match &**crate::machine::compile::analysis::unann(&m.scrut) {
                Term::Var(Ix(ix)) => level_of(depth, *ix),
                _ => None,
            };
            let mut changed = scrut.is_some();
            let mut arms = Vec::with_capacity(m.arms.len());
            for arm in &m.arms {
                let n = arm.pat.arity() as u32;
                let pushed = match (&arm.pat, scrut_level) {
                    (CasePat::Con(c, _), Some(var)) => {
                        known.push(Known {
                            var,
                            con: *c,
                            fields: depth,
                            n,
                        });
                        true
                    }
                    _ => false,
                };
                let body = walk(&arm.body, depth + n, known);
                if pushed {
                    known.pop();
                }
                changed |= body.is_some();
                arms.push((arm, body));
            }
            let default = m
                .default
                .as_ref()
                .map(|(b, body)| (b, walk(body, depth + 1, known)));
            changed |= default.as_ref().is_some_and(|(_, d)| d.is_some());
            if !changed {
                return None;
            }
            Some(
                Term::Match(Box::new(Match {
                    scrut: scrut.unwrap_or_else(|| m.scrut.clone()),
                    arms: arms
                        .into_iter()
                        .map(|(arm, body)| CaseArm {
                            pat: clone_pat(&arm.pat),
                            body: body.unwrap_or_else(|| arm.body.clone()),
                        })
                        .collect(),
                    default: default.map(|(b, body)| {
                        (
                            b.clone(),
                            body.unwrap_or_else(|| m.default.as_ref().unwrap().1.clone()),
                        )
                    }),
                    span: m.span,
                }))
                .rc(),
            )
        }
        Term::Lam(b, body) => {
            let body = walk(body, depth + 1, known)?;
            Some(Term::Lam(b.clone(), body).rc())
        }
        Term::Let(b, rhs, body) => {
            let r = walk(rhs, depth + 1, known);
            let bd = walk(body, depth + 1, known);
            if r.is_none() && bd.is_none() {
                return None;
            }
            Some(
                Term::Let(
                    b.clone(),
                    r.unwrap_or_else(|| rhs.clone()),
                    bd.unwrap_or_else(|| body.clone()),
                )
                .rc(),
            )
        }
        Term::App(f, pl, a) => {
            let f2 = walk(f, depth, known);
            let a2 = walk(a, depth, known);
            if f2.is_none() && a2.is_none() {
                return None;
            }
            Some(
                Term::App(
                    f2.unwrap_or_else(|| f.clone()),
                    *pl,
                    a2.unwrap_or_else(|| a.clone()),
                )
                .rc(),
            )
        }
        Term::Ann(e, ty) => {
            let e = walk(e, depth, known)?;
            Some(Term::Ann(e, ty.clone()).rc())
        }
        // Types (`Pi`) are not run; leaves have nothing to rewrite.
        _ => None,
    }
}

fn clone_pat(p: &CasePat) -> CasePat {
    match p {
        CasePat::Con(c, fs) => CasePat::Con(*c, fs.clone()),
        CasePat::Lit(l) => CasePat::Lit(l.clone()),
    }
}

#[cfg(test)]
mod tests {
    use crate::core::pretty::term_to_string;

    fn def_after(src: &str, name: &str) -> String {
        let loaded = crate::driver::load_text("known.sp", src);
        assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
        let p = loaded.program.expect("a program");
        let i = p.defs.iter().position(|d| &*d.name == name).unwrap();
        let body = super::rewrite(&p.defs[i].body).unwrap_or_else(|| p.defs[i].body.clone());
        term_to_string(&p, &[], &body)
    }

    #[test]
    fn fields_read_in_a_record_update_are_the_fields_matched() {
        let src = "record S = { a : Int, b : List Int }\n\
                   def step (s : S) : S = { s | a = s.a + 1 }\n\
                   def main = (step { a = 1, b = [] }).a\n";
        let out = def_after(src, "step");
        // One match on `s` is left: the update's own.
        assert_eq!(out.matches("match s").count(), 1, "{out}");
    }

    #[test]
    fn a_match_on_another_variable_stays() {
        let src = "def f (x : Maybe Int) (y : Maybe Int) : Int = match x with\n  | Just a -> (match y with\n    | Just b -> a + b\n    | Nothing -> a)\n  | Nothing -> 0\n\
                   def main = f (Just 1) (Just 2)\n";
        let out = def_after(src, "f");
        assert!(out.contains("match y"), "{out}");
    }

    #[test]
    fn a_nested_match_on_the_same_variable_takes_the_known_arm() {
        let src = "def f (x : Maybe Int) : Int = match x with\n  | Just a -> (match x with\n    | Just b -> b * 2\n    | Nothing -> 0)\n  | Nothing -> 1\n\
                   def main = f (Just 4)\n";
        let out = def_after(src, "f");
        assert_eq!(out.matches("match x").count(), 1, "{out}");
        assert!(out.contains("a * 2"), "{out}");
    }
}
