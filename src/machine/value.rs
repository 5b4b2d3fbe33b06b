//! Machine words: what a record slot, a constructor field, a pending argument or the
//! loop's control holds.
//!
//! A [`Val`] is sixteen bytes and `Copy`: an unboxed number, a constant that needs no
//! heap object (a constructor without fields, a universe, a primitive type), or a
//! counted reference into one of the heap's arenas ([`super::heap`]). Copying a `Val`
//! does not count a reference: whoever stores one calls
//! [`Heap::retain`](super::heap::Heap::retain), whoever drops one calls
//! [`Heap::release`](super::heap::Heap::release). A reference to a thunk
//! ([`Val::Thunk`]) stands for a value that may not be computed yet; every other
//! variant is a weak head normal form.

use crate::core::term::{ConId, PrimType};

/// Handle of a heap object in its arena (see [`super::arena::Arena`]).
pub type Ref = u32;

/// The handle that means "none" (no record: closed code, the end of a chain).
pub const NIL: Ref = u32::MAX;

/// A machine word.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// An `Int`.
    Int(i64),
    /// A `Float`.
    Float(f64),
    /// A `Char`.
    Char(char),
    /// A constructor without explicit fields (`True`, `Nil`, `()`): no heap object.
    Atom(ConId),
    /// What an irrelevant argument (a type, a proof nothing inspects) becomes at run
    /// time; also a record slot not written yet. Never inspected.
    Erased,
    /// `Type n`.
    Universe(u32),
    /// `Int`, `Float`, `String`, `Char` as types.
    PrimType(PrimType),
    /// A `String` (a [`super::heap::StrObj`]).
    Str(Ref),
    /// A constructor with its fields (a [`super::heap::ConObj`]).
    Con(Ref),
    /// A function: code closed over a record (a [`super::heap::FunObj`]).
    Fun(Ref),
    /// A head waiting for more arguments, or a neutral head that never reduces (a
    /// [`super::heap::PapObj`]).
    Pap(Ref),
    /// A value that may not be computed yet (a [`super::heap::ThunkObj`]).
    Thunk(Ref),
    /// A dependent function type closed over a record (type-level evaluation).
    Pi(Ref),
    /// A `match` stuck on a neutral scrutinee (type-level evaluation).
    Stuck(Ref),
}

impl Val {
    /// A short description of the value's kind, for runtime error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Val::Int(_) => "an Int",
            Val::Float(_) => "a Float",
            Val::Char(_) => "a Char",
            Val::Str(_) => "a String",
            Val::Atom(_) | Val::Con(_) => "a data value",
            Val::Fun(_) => "a function",
            Val::Pap(_) => "a partial application",
            Val::Universe(_) | Val::PrimType(_) | Val::Pi(_) => "a type",
            Val::Erased => "an erased value",
            Val::Thunk(_) => "an unevaluated value",
            Val::Stuck(_) => "a stuck match",
        }
    }

    /// Whether the word holds a counted heap reference.
    #[inline(always)]
    pub fn is_counted(&self) -> bool {
        matches!(
            self,
            Val::Str(_)
                | Val::Con(_)
                | Val::Fun(_)
                | Val::Pap(_)
                | Val::Thunk(_)
                | Val::Pi(_)
                | Val::Stuck(_)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Val>(), 16);
    }
}
