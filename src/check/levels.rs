//! The universe a type lives in, so that an unknown's solution has the unknown's type.
//!
//! Universes are cumulative (`Type : Type 1` and also `Type : Type 2`), so checking a
//! term against an unknown type `?a` unifies `?a` with the term's smallest type. When
//! `?a` stands for the implicit argument `{a : Type}` of `id`, that smallest type must
//! itself be in `Type`: `id Type` would solve `a := Type 1`, a type of `Type 2`, and
//! `def x : Type 1 = id Type` would be accepted (LANGUAGE.md section 3: the checker is
//! sound). So an unknown whose type is known to be a universe `Type n`, or a family of
//! types ending in one (`{f : Type -> Type}`), is solved only by a type (family) whose
//! level is at most `n` (see `unify`).
//!
//! The level is computed on the core term without a full type inference: universes,
//! primitive types, arrows (the largest of their parts), data types (the level the
//! checker gave each), and applications of a variable, a definition or any head whose
//! type is known and ends in a universe (instantiated with the arguments, unfolded to
//! weak head normal form where needed). What cannot be told that way (an unknown
//! applied to arguments, a stuck `match`) counts as level 0, so the answer is a lower
//! bound and never a false error. A bare unknown in a type position instead inherits
//! the bound, checked when it is solved in turn.
//!
//! Shared subterms are visited once per binder depth, and final types (closed, without
//! unknowns) are remembered by address across the whole program, so a type shared by
//! many solutions costs its size once.

use super::elab::{Cx, Elab};
use super::meta::flex;
use crate::core::subst::subst_top;
use crate::core::term::DataId;
use crate::core::term::{Lvl, RcTerm, Term};
use crate::diagnostic::Diagnostic;
use crate::syntax::span::Span;
use std::collections::HashMap;
use std::rc::Rc;

/// The state of one computation: results for shared subterms, by address and binder
/// depth, and the bare unknowns met in type positions.
struct Walk {
    memo: HashMap<(*const Term, u32), u32>,
    unknowns: Vec<u32>,
}

impl Elab<'_> {
    /// Checks that the type (family) `t`, in `cx`, lives in `Type n` at most. Returns
    /// the level found when it is larger; otherwise requires every bare unknown in a
    /// type position of `t` to live in `Type n` too.
    pub(in crate::check) fn fits_universe(
        &mut self,
        cx: &mut Cx<'_>,
        t: &RcTerm,
        n: u32,
        span: Span,
    ) -> Result<(), u32> {
        // Evaluation failures on the way are reported where the type is used, not here.
        let errors = self.errors.len();
        let mut walk = Walk {
            memo: HashMap::new(),
            unknowns: Vec::new(),
        };
        let level = self.level_at_least(cx, t, &mut walk, span);
        self.errors.truncate(errors);
        if level > n {
            return Err(level);
        }
        for id in walk.unknowns {
            if self.metas.is_unsolved(id) {
                self.metas.bound_universe(id, n);
            }
        }
        Ok(())
    }

    /// Requires the type `ty` (in `cx`) that sugar (`what`: a list literal, a tuple)
    /// passes as parameter `param` of data type `data` to live in that parameter's
    /// universe: `[Type]` would be a `List (Type 1)`, and `List` takes a type in `Type`.
    pub(in crate::check) fn check_sugar_universe(
        &mut self,
        cx: &mut Cx<'_>,
        data: DataId,
        param: usize,
        ty: &RcTerm,
        span: Span,
        what: &str,
    ) {
        let Some(Term::Universe(n)) = self.program.data(data).params.get(param).map(|b| &*b.ty)
        else {
            return;
        };
        let n = *n;
        if let Err(found) = self.fits_universe(cx, ty, n, span) {
            let shown = self.show(cx, ty);
            self.errors.push(
                Diagnostic::error(format!(
                    "universe mismatch: {what} must be in {}, but `{shown}` is in {}",
                    universe_name(n),
                    universe_name(found)
                ))
                .at(span, format!("this has type `{shown}`"))
                .note(format!("expected: a type in {}", universe_name(n)))
                .note(format!(
                    "   found: `{shown}`, a type in {}",
                    universe_name(found)
                )),
            );
        }
    }

    /// A lower bound of the level of the universe the type (family) `t` lives in.
    fn level_at_least(&mut self, cx: &mut Cx<'_>, t: &RcTerm, walk: &mut Walk, span: Span) -> u32 {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
            self.level_walk(cx, t, walk, span)
        })
    }

    fn level_walk(&mut self, cx: &mut Cx<'_>, t: &RcTerm, walk: &mut Walk, span: Span) -> u32 {
        let t = self.metas.force_head(t);
        let final_ = self.metas.is_final(&t);
        if final_ && let Some(l) = self.final_levels.get(&Rc::as_ptr(&t)) {
            return *l;
        }
        let key = (Rc::as_ptr(&t), cx.depth());
        let shared = Rc::strong_count(&t) > 1;
        if shared && let Some(l) = walk.memo.get(&key) {
            return *l;
        }
        let level = self.level_of_node(cx, &t, walk, span);
        if final_ {
            self.final_levels.insert(Rc::as_ptr(&t), level);
        } else if shared {
            walk.memo.insert(key, level);
        }
        level
    }

    fn level_of_node(&mut self, cx: &mut Cx<'_>, t: &RcTerm, walk: &mut Walk, span: Span) -> u32 {
        match &**t {
            Term::Universe(k) => k.saturating_add(1),
            Term::PrimType(_) => 0,
            // A chain of arrows or of a family's parameters, in a loop: the largest
            // level of their parts (a family's parameters are no part of its values).
            Term::Pi(..) | Term::Lam(..) => {
                let mut level = 0;
                let mut cur = t.clone();
                let mut pushed = 0;
                loop {
                    let next = match &*cur {
                        Term::Pi(b, cod) => {
                            level = level.max(self.level_at_least(cx, &b.ty, walk, span));
                            cx.push_hidden(b.name.clone(), b.ty.clone());
                            cod.clone()
                        }
                        Term::Lam(b, body) => {
                            cx.push_hidden(b.name.clone(), b.ty.clone());
                            body.clone()
                        }
                        _ => break,
                    };
                    pushed += 1;
                    cur = self.metas.force_head(&next);
                }
                level = level.max(self.level_at_least(cx, &cur, walk, span));
                for _ in 0..pushed {
                    cx.pop();
                }
                level
            }
            Term::Ann(e, _) => self.level_at_least(cx, e, walk, span),
            Term::Let(..) | Term::Match(_) => {
                let r = self.whnf(cx, t, span);
                if Rc::ptr_eq(&r, t) || matches!(&*r, Term::Let(..) | Term::Match(_)) {
                    0
                } else {
                    self.level_at_least(cx, &r, walk, span)
                }
            }
            _ => self.application_level(cx, t, walk, span),
        }
    }

    /// The level of an application `h a b ...` (or a bare head). A definition that
    /// unfolds is unfolded first: `up1 Int` with `up1 : Type 1 -> Type 1` is `Int`, in
    /// `Type` (universes are cumulative, so a declared universe is only an upper
    /// bound). What is left, a variable or a definition stuck on one, lives where the
    /// type of its head says.
    fn application_level(
        &mut self,
        cx: &mut Cx<'_>,
        t: &RcTerm,
        walk: &mut Walk,
        span: Span,
    ) -> u32 {
        if let Some(f) = flex(t) {
            if f.args.is_empty() && self.metas.is_unsolved(f.id) {
                walk.unknowns.push(f.id);
            }
            return 0;
        }
        let mut head = t;
        while let Term::App(f, _, _) = &**head {
            head = f;
        }
        if let Term::Data(id) = &**head {
            return self.data_levels[id.0 as usize];
        }
        let r = self.whnf(cx, t, span);
        let reduced = !Rc::ptr_eq(&r, t);
        match &*r {
            // Stuck on a `match` or a `let`: no level can be told.
            Term::Match(_) | Term::Let(..) => 0,
            Term::App(..) | Term::Var(_) | Term::Def(_) | Term::Extern(..) => {
                self.head_level(cx, &r, walk, span)
            }
            _ if reduced => self.level_at_least(cx, &r, walk, span),
            _ => 0,
        }
    }

    /// The level of a neutral application `h a b ...` (a variable, or a definition
    /// that does not unfold), from the type of its head: instantiated with the
    /// arguments, the type that is left ends in a universe.
    fn head_level(&mut self, cx: &mut Cx<'_>, t: &RcTerm, walk: &mut Walk, span: Span) -> u32 {
        if let Some(f) = flex(t) {
            if f.args.is_empty() && self.metas.is_unsolved(f.id) {
                walk.unknowns.push(f.id);
            }
            return 0;
        }
        let (head, args) = crate::core::term::spine(t);
        let args: Vec<RcTerm> = args.into_iter().map(|(_, a)| a.clone()).collect();
        let head_ty = match &**head {
            Term::Var(ix) if ix.0 < cx.depth() => cx.type_of(Lvl(cx.depth() - 1 - ix.0)),
            Term::Def(id) => self.program.def(*id).ty.clone(),
            Term::Data(id) => return self.data_levels[id.0 as usize],
            Term::Extern(id, _) => self.program.external(*id).ty.clone(),
            _ => return 0,
        };
        let mut ty = head_ty;
        for a in &args {
            let w = self.whnf(cx, &ty, span);
            let Term::Pi(_, cod) = &*w else {
                return 0;
            };
            ty = subst_top(cod, a);
        }
        // What is left is a universe, or a family of types ending in one.
        let mut pushed = 0;
        let level = loop {
            let w = self.whnf(cx, &ty, span);
            match &*w {
                Term::Universe(k) => break *k,
                Term::Pi(b, cod) => {
                    cx.push_hidden(b.name.clone(), b.ty.clone());
                    pushed += 1;
                    ty = cod.clone();
                }
                _ => break 0,
            }
        };
        for _ in 0..pushed {
            cx.pop();
        }
        level
    }
}

/// `Type` or `Type n`, quoted, as messages name a universe.
pub(in crate::check) fn universe_name(n: u32) -> String {
    match n {
        0 => "`Type`".to_string(),
        n => format!("`Type {n}`"),
    }
}
