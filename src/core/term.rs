//! Core terms: the initial encoding every later pass shares.
//!
//! A core term is what scope resolution (later, elaboration) produces, what the machine
//! winds into stack form, what readback returns and what protobuf serializes
//! (DESIGN.md section 1). Its shape:
//!
//! - Local variables are de Bruijn **indices** ([`Ix`]): `Var(Ix(0))` is the nearest
//!   enclosing binder. Top-level names are not variables but references to the
//!   program's tables: [`Term::Def`], [`Term::Data`], [`Term::Con`], [`Term::Extern`].
//! - Every binder carries its type annotation ([`Binder::ty`]); where the source gave
//!   none it is a [`Term::Hole`] for the type checker to fill.
//! - Constructors, matches, primitives and externals are their own variants; operators
//!   are primitives; `if`, `&&`, `||` are matches on `Bool`; tuple, list and unit
//!   syntax are constructor applications.
//! - Implicit arguments are explicit in the tree ([`Plicity`] on [`Term::App`] and on
//!   binders). The resolver cannot insert the implicit arguments the user left out; the
//!   type checker does. Primitives take only their value arguments (the checker types
//!   them specially), so a primitive application looks the same before and after
//!   checking.
//!
//! Terms are immutable trees shared through `Rc`. Deep trees (a long list literal is a
//! deep `Cons` chain) are freed without recursion: see the `Drop` impl.

use crate::prim::Prim;
pub use crate::syntax::ast::Plicity;
use crate::syntax::span::Span;
use std::rc::Rc;

/// A de Bruijn index: how many binders lie between a variable and its binder.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ix(pub u32);

/// A de Bruijn level: how many binders lie between the root and a binder. Used by
/// passes that extend an environment (`level + index + 1 == depth`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lvl(pub u32);

impl Lvl {
    /// The index of this level seen from an environment of `depth` binders.
    pub fn to_ix(self, depth: u32) -> Ix {
        Ix(depth - self.0 - 1)
    }
}

/// A top-level definition of a [`Program`](crate::core::program::Program).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefId(pub u32);

/// A data type declaration of a program.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DataId(pub u32);

/// An `extern` declaration of a program.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExternId(pub u32);

/// A constructor: its data type and its position among that type's alternatives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConId {
    /// The data type.
    pub data: DataId,
    /// 0-based position in the declaration.
    pub index: u32,
}

/// The name of a bound variable, kept for printing only (it never affects meaning).
pub type Name = Rc<str>;

/// A shared term.
pub type RcTerm = Rc<Term>;

/// The head of an application spine and its arguments (implicit ones too), first
/// first: `f {A} x y` is `f` with `[{A}, x, y]`.
pub fn spine(t: &RcTerm) -> (&RcTerm, Vec<(Plicity, &RcTerm)>) {
    let mut args = Vec::new();
    let mut head = t;
    while let Term::App(f, plicity, a) = &**head {
        args.push((*plicity, a));
        head = f;
    }
    args.reverse();
    (head, args)
}

/// The primitive types.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PrimType {
    /// 64-bit signed integers.
    Int,
    /// IEEE 754 doubles.
    Float,
    /// UTF-8 strings.
    String,
    /// Unicode scalar values.
    Char,
}

impl PrimType {
    /// The name the user writes.
    pub fn name(self) -> &'static str {
        match self {
            PrimType::Int => "Int",
            PrimType::Float => "Float",
            PrimType::String => "String",
            PrimType::Char => "Char",
        }
    }
}

/// A literal value.
#[derive(Clone, Debug)]
pub enum Lit {
    /// An `Int`.
    Int(i64),
    /// A `Float`.
    Float(f64),
    /// A `String`.
    Str(Rc<str>),
    /// A `Char`.
    Char(char),
}

impl PartialEq for Lit {
    /// Literal identity: floats compare by bits, so `NaN` equals itself and the
    /// equality is reflexive as alpha-equivalence needs.
    fn eq(&self, other: &Lit) -> bool {
        match (self, other) {
            (Lit::Int(a), Lit::Int(b)) => a == b,
            (Lit::Float(a), Lit::Float(b)) => a.to_bits() == b.to_bits(),
            (Lit::Str(a), Lit::Str(b)) => a == b,
            (Lit::Char(a), Lit::Char(b)) => a == b,
            _ => false,
        }
    }
}

/// What a hole stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum HoleKind {
    /// A missing annotation or a user's `_`: the checker infers it.
    Infer,
    /// A user's `?name` (or `?`): checking stops and reports the goal.
    Goal(Option<Name>),
    /// A metavariable of the type checker (an index into its store), standing for its
    /// solution: a closed term, applied explicitly to what it may depend on. Exists
    /// only during elaboration: a checked program has none.
    Meta(u32),
    /// A metavariable of the type checker applied to a run of consecutive variables,
    /// its arguments left implicit: `MetaCtx(id, count, skip)` means `Meta(id)` applied
    /// to the variables with indices `skip + count - 1`, ..., `skip + 1`, `skip`, in
    /// that order. The checker creates every unknown this way (`skip` 0: applied to
    /// every variable of its context, so that its solution may use any of them), at a
    /// constant cost however deep the context; moving the term under more binders only
    /// raises `skip`, so the arguments are spelt out only when a substitution changes
    /// some of them and not others. Exists only during elaboration.
    MetaCtx(u32, u32, u32),
}

/// A binder: name (for printing), plicity and type annotation. The annotation is in the
/// scope *outside* the binder.
#[derive(Clone, Debug)]
pub struct Binder {
    /// The name written in the source (`_` when none).
    pub name: Name,
    /// Explicit or implicit.
    pub plicity: Plicity,
    /// The type of the bound variable.
    pub ty: RcTerm,
}

/// A core term. See the module documentation for the invariants.
#[derive(Debug)]
pub enum Term {
    /// A bound variable.
    Var(Ix),
    /// A top-level definition.
    Def(DefId),
    /// A type constructor (`List`, `Tree`).
    Data(DataId),
    /// A data constructor (`Cons`, `Leaf`).
    Con(ConId),
    /// A declared external (`run`, `delay`); the span is where it is named, and
    /// locates a failing call.
    Extern(ExternId, Span),
    /// A primitive operation; the span locates runtime errors it raises.
    Prim(Prim, Span),
    /// `Int`, `Float`, `String` or `Char`.
    PrimType(PrimType),
    /// A literal.
    Lit(Lit),
    /// `Type n`.
    Universe(u32),
    /// A term to be inferred, or a typed hole; the span is where it stands.
    Hole(HoleKind, Span),
    /// A dependent function type `(x : A) -> B`; `B` is under the binder.
    Pi(Binder, RcTerm),
    /// A function `\(x : A) -> body`; `body` is under the binder.
    Lam(Binder, RcTerm),
    /// An application, explicit or implicit.
    App(RcTerm, Plicity, RcTerm),
    /// A recursive local definition: both `rhs` and `body` are under the binder.
    Let(Binder, RcTerm, RcTerm),
    /// A one-level case analysis (nested patterns are compiled away before this).
    Match(Box<Match>),
    /// A type annotation `(term : ty)`, removed by the type checker.
    Ann(RcTerm, RcTerm),
}

/// A one-level `match`: arms on constructors or literals, then an optional default.
#[derive(Debug)]
pub struct Match {
    /// The value examined.
    pub scrut: RcTerm,
    /// The arms, tried in order.
    pub arms: Vec<CaseArm>,
    /// The catch-all: binds the scrutinee (named `_` if the source ignored it).
    pub default: Option<(Binder, RcTerm)>,
    /// The `match` (or `if`) keyword's span: where "no arm matched" is reported.
    pub span: Span,
}

/// One arm of a [`Match`].
#[derive(Debug)]
pub struct CaseArm {
    /// What the arm tests.
    pub pat: CasePat,
    /// The result; under the pattern's binders (the last field is index 0).
    pub body: RcTerm,
}

/// The test of one arm.
#[derive(Debug)]
pub enum CasePat {
    /// A constructor, binding its explicit fields in order. Each field binder's type is
    /// in the scope of the enclosing term plus the earlier fields.
    Con(ConId, Vec<Binder>),
    /// A literal (an `Int` or a `String`).
    Lit(Lit),
}

impl CasePat {
    /// How many variables the pattern binds.
    pub fn arity(&self) -> usize {
        match self {
            CasePat::Con(_, fields) => fields.len(),
            CasePat::Lit(_) => 0,
        }
    }
}

thread_local! {
    static PLACEHOLDER: RcTerm = Rc::new(Term::Universe(0));
}

/// A shared, childless term put in place of children taken out while freeing a tree.
fn placeholder() -> RcTerm {
    PLACEHOLDER.with(|p| p.clone())
}

impl Term {
    /// Moves the children that nobody else shares into `out`, leaving placeholders.
    fn take_unique_children(&mut self, out: &mut Vec<RcTerm>) {
        let mut take = |t: &mut RcTerm| {
            if Rc::strong_count(t) == 1 && Rc::weak_count(t) == 0 {
                out.push(std::mem::replace(t, placeholder()));
            }
        };
        match self {
            Term::Pi(b, body) | Term::Lam(b, body) => {
                take(&mut b.ty);
                take(body);
            }
            Term::App(f, _, a) => {
                take(f);
                take(a);
            }
            Term::Let(b, rhs, body) => {
                take(&mut b.ty);
                take(rhs);
                take(body);
            }
            Term::Ann(e, t) => {
                take(e);
                take(t);
            }
            Term::Match(m) => {
                take(&mut m.scrut);
                for arm in &mut m.arms {
                    if let CasePat::Con(_, fields) = &mut arm.pat {
                        for f in fields {
                            take(&mut f.ty);
                        }
                    }
                    take(&mut arm.body);
                }
                if let Some((b, body)) = &mut m.default {
                    take(&mut b.ty);
                    take(body);
                }
            }
            Term::Var(_)
            | Term::Def(_)
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
}

impl Drop for Term {
    /// Frees a tree iteratively: the default recursive drop would overflow the native
    /// stack on a deep term (a list literal of a million elements).
    fn drop(&mut self) {
        let mut pending = Vec::new();
        self.take_unique_children(&mut pending);
        while let Some(child) = pending.pop() {
            if let Ok(mut term) = Rc::try_unwrap(child) {
                term.take_unique_children(&mut pending);
                // `term` now holds only placeholders; dropping it recurses no further.
            }
        }
    }
}

impl Term {
    /// Calls `f(child, binders)` for each direct subterm, where `binders` is how many
    /// binders of this node the child is under (a lambda's body: 1; its annotation: 0;
    /// an arm's body: the pattern's arity). The one place that knows where subterms
    /// are, for the passes that scan terms with a work list.
    #[inline]
    pub fn for_each_child<'t>(&'t self, mut f: impl FnMut(&'t RcTerm, u32)) {
        match self {
            Term::Pi(b, body) | Term::Lam(b, body) => {
                f(&b.ty, 0);
                f(body, 1);
            }
            Term::App(fun, _, arg) => {
                f(fun, 0);
                f(arg, 0);
            }
            Term::Let(b, rhs, body) => {
                f(&b.ty, 0);
                f(rhs, 1);
                f(body, 1);
            }
            Term::Ann(e, ty) => {
                f(e, 0);
                f(ty, 0);
            }
            Term::Match(m) => {
                f(&m.scrut, 0);
                for arm in &m.arms {
                    if let CasePat::Con(_, fields) = &arm.pat {
                        for (k, field) in fields.iter().enumerate() {
                            f(&field.ty, k as u32);
                        }
                    }
                    f(&arm.body, arm.pat.arity() as u32);
                }
                if let Some((b, body)) = &m.default {
                    f(&b.ty, 0);
                    f(body, 1);
                }
            }
            Term::Var(_)
            | Term::Def(_)
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
}

/// Convenience constructors, so passes build terms without `Rc::new` noise.
impl Term {
    /// `Rc::new(self)`.
    pub fn rc(self) -> RcTerm {
        Rc::new(self)
    }

    /// An application of `fun` to explicit arguments.
    pub fn apps(fun: RcTerm, args: impl IntoIterator<Item = RcTerm>) -> RcTerm {
        args.into_iter()
            .fold(fun, |f, a| Term::App(f, Plicity::Explicit, a).rc())
    }

    /// A hole to be inferred at `span`.
    pub fn infer(span: Span) -> RcTerm {
        Term::Hole(HoleKind::Infer, span).rc()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_a_very_deep_term_does_not_overflow() {
        // Deep on the left, then on the right; one at a time, and the leaves shared
        // (the spines are what must not be dropped recursively).
        let leaf = Term::Var(Ix(0)).rc();
        let mut t = Term::Lit(Lit::Int(0)).rc();
        for _ in 0..2_000_000 {
            t = Term::App(t, Plicity::Explicit, leaf.clone()).rc();
        }
        drop(t);
        let mut u = Term::Var(Ix(0)).rc();
        for _ in 0..2_000_000 {
            u = Term::App(leaf.clone(), Plicity::Explicit, u).rc();
        }
        drop(u);
        assert_eq!(Rc::strong_count(&leaf), 1);
    }

    #[test]
    fn shared_children_survive_dropping_a_parent() {
        let shared = Term::Lit(Lit::Int(7)).rc();
        let parent = Term::App(shared.clone(), Plicity::Explicit, shared.clone()).rc();
        drop(parent);
        assert!(matches!(&*shared, Term::Lit(Lit::Int(7))));
        assert_eq!(Rc::strong_count(&shared), 1);
    }
}
