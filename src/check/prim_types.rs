//! The types of primitives.
//!
//! Primitives take only value arguments (see `crate::prim`), so a polymorphic
//! primitive's type variable is not a binder: each use gets a fresh unknown for it
//! (`prim_eq : ?a -> ?a -> Bool`, `error : String -> ?a`). Raw arithmetic primitives
//! (`prim_add`) are typed on `Int`; the operators (`+`) are resolved by their operands'
//! type in the elaborator and work on `Float` too.

use crate::core::program::Builtins;
use crate::core::subst::shift;
use crate::core::term::{Binder, Plicity, PrimType, RcTerm, Term};
use crate::prim::Prim;
use crate::syntax::ast::BinOp;
use std::rc::Rc;

/// The type of primitive `p`; `fresh` makes an unknown for a type variable.
pub fn prim_type(p: Prim, b: &Builtins, fresh: &mut dyn FnMut() -> RcTerm) -> RcTerm {
    let int = || Term::PrimType(PrimType::Int).rc();
    let float = || Term::PrimType(PrimType::Float).rc();
    let string = || Term::PrimType(PrimType::String).rc();
    let char_ = || Term::PrimType(PrimType::Char).rc();
    let bool_ = || Term::Data(b.bool_).rc();
    let maybe = |t: RcTerm| Term::App(Term::Data(b.maybe).rc(), Plicity::Explicit, t).rc();
    let list = |t: RcTerm| Term::App(Term::Data(b.list).rc(), Plicity::Explicit, t).rc();
    match p {
        Prim::Add | Prim::Sub | Prim::Mul | Prim::Div | Prim::Rem => arrows(&[int(), int()], int()),
        Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge => arrows(&[int(), int()], bool_()),
        Prim::Eq | Prim::Ne => {
            let a = fresh();
            arrows(&[a.clone(), a], bool_())
        }
        Prim::Concat => arrows(&[string(), string()], string()),
        Prim::Error => arrows(&[string()], fresh()),
        Prim::IntToFloat => arrows(&[int()], float()),
        Prim::Sqrt => arrows(&[float()], float()),
        Prim::Floor | Prim::Ceil | Prim::Round => arrows(&[float()], int()),
        Prim::ShowInt => arrows(&[int()], string()),
        Prim::ShowFloat => arrows(&[float()], string()),
        Prim::ParseInt => arrows(&[string()], maybe(int())),
        Prim::ParseFloat => arrows(&[string()], maybe(float())),
        Prim::StrLength => arrows(&[string()], int()),
        Prim::Substring => arrows(&[int(), int(), string()], string()),
        Prim::StartsWith | Prim::EndsWith | Prim::Contains => {
            arrows(&[string(), string()], bool_())
        }
        Prim::Split => arrows(&[string(), string()], list(string())),
        Prim::Join => arrows(&[string(), list(string())], string()),
        Prim::Trim => arrows(&[string()], string()),
        Prim::Words | Prim::Lines | Prim::ParseJson => arrows(&[string()], list(string())),
        Prim::JsonString => arrows(&[string()], string()),
        Prim::JsonNumber => arrows(&[float()], string()),
        Prim::Catch => {
            let a = fresh();
            arrows(&[a], maybe(string()))
        }
        Prim::After => {
            let a = fresh();
            let b = fresh();
            arrows(&[a, b.clone()], b)
        }
        Prim::Trace => {
            let a = fresh();
            arrows(&[string(), a.clone()], a)
        }
        Prim::SortInts => arrows(&[list(int())], list(int())),
        Prim::ShowString | Prim::ShowArg => arrows(&[string()], string()),
        Prim::IsPair => arrows(&[fresh()], bool_()),
        // The prelude's maps give these their real types (`prelude/map.sp`).
        // (`Either (Maybe Unit) r`: the part to evaluate, never inspected, is given
        // the type `Unit`.)
        Prim::MapLookup => arrows(&[fresh(), fresh()], fresh()),
        Prim::MapInsert => arrows(&[fresh(), fresh(), fresh()], fresh()),
        Prim::MapDelete => arrows(&[fresh(), fresh()], fresh()),
        // `^` is typed by the elaborator (`Int` or `Float` base); as a name, any base.
        Prim::Pow => {
            let a = fresh();
            arrows(&[a.clone(), int()], a)
        }
        Prim::DivFloor | Prim::ModFloor => arrows(&[int(), int()], int()),
        Prim::ShowFixed => arrows(&[int(), float()], string()),
        // The prelude's instances give it its type (`a -> a -> Ordering`).
        Prim::Compare => {
            let a = fresh();
            arrows(&[a.clone(), a], fresh())
        }
        Prim::IsPrim => arrows(&[fresh()], bool_()),
        // `Int` or `Float`: the prelude's `abs` asks for `Signed a`.
        Prim::Abs => {
            let a = fresh();
            arrows(std::slice::from_ref(&a), a.clone())
        }
        Prim::SortPrims => {
            let a = list(fresh());
            arrows(&[a.clone(), arrows(std::slice::from_ref(&a), a.clone())], a)
        }
        // (`Either (Maybe (List Unit)) (List a)`, given by the prelude.)
        Prim::SortOrdered | Prim::SortOnFirst => arrows(&[list(fresh())], fresh()),
        Prim::Reading | Prim::Writing => {
            let a = fresh();
            arrows(&[list(string()), a.clone()], a)
        }
        Prim::Seq => {
            let a = fresh();
            let b = fresh();
            arrows(&[a, b.clone()], b)
        }
        Prim::Chars => arrows(&[string()], list(char_())),
        Prim::FromChars => arrows(&[list(char_())], string()),
        Prim::Ord => arrows(&[char_()], int()),
        Prim::Chr => arrows(&[int()], char_()),
        Prim::CharIsAlpha
        | Prim::CharIsAlphaNum
        | Prim::CharIsSpace
        | Prim::CharIsUpper
        | Prim::CharIsLower => arrows(&[char_()], bool_()),
        Prim::CharToUpper | Prim::CharToLower => arrows(&[char_()], char_()),
        Prim::CharToString | Prim::ShowChar => arrows(&[char_()], string()),
    }
}

/// The primitive of an arithmetic or comparison operator.
pub fn arith_prim(op: BinOp) -> Prim {
    match op {
        BinOp::Add => Prim::Add,
        BinOp::Sub => Prim::Sub,
        BinOp::Mul => Prim::Mul,
        BinOp::Div => Prim::Div,
        BinOp::Rem => Prim::Rem,
        BinOp::Pow => Prim::Pow,
        BinOp::Lt => Prim::Lt,
        BinOp::Le => Prim::Le,
        BinOp::Gt => Prim::Gt,
        BinOp::Ge => Prim::Ge,
        BinOp::Eq => Prim::Eq,
        BinOp::Ne => Prim::Ne,
        BinOp::Concat => Prim::Concat,
        // Lazy operators are matches, and `::` a constructor, never primitives.
        BinOp::And | BinOp::Or | BinOp::Cons => Prim::Eq,
    }
}

/// `d1 -> d2 -> ... -> result`, all in one scope (each later type is shifted under the
/// binders before it).
pub fn arrows(doms: &[RcTerm], result: RcTerm) -> RcTerm {
    let n = doms.len() as u32;
    let mut acc = shift(&result, n);
    for (i, d) in doms.iter().enumerate().rev() {
        acc = Term::Pi(
            Binder {
                name: Rc::from("_"),
                plicity: Plicity::Explicit,
                ty: shift(d, i as u32),
            },
            acc,
        )
        .rc();
    }
    acc
}
