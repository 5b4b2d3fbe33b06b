//! The `Char` primitives (`prim_chars`, `prim_fromChars`, `prim_ord`, `prim_chr`, the
//! classifications and case mappings) on evaluated arguments. Ordering and structural
//! `==` on `Char`s are with the other operators ([`super::prims`]).

use super::data::Data;
use super::error::{ErrorKind, Result, RuntimeError};
use super::frame::Control;
use super::value::Val;
use crate::prim::Prim;
use crate::syntax::span::Span;

/// Bytes a cons cell of a list of characters takes at most (for the memory limit,
/// checked before `prim_chars` builds its list at once).
pub(crate) const CELL_BYTES: usize = 64;

/// The one character a case mapping gives, or `c` itself when Unicode maps it to
/// several (`ß` to `SS`) or to none.
fn single(mut mapped: impl Iterator<Item = char>, c: char) -> char {
    match (mapped.next(), mapped.next()) {
        (Some(m), None) => m,
        _ => c,
    }
}

impl Data<'_, '_> {
    /// A `Char` primitive on its evaluated arguments (borrowed). `prim_chars`'s
    /// memory is the caller's to check first ([`CELL_BYTES`] a character).
    pub(crate) fn char_prim(&mut self, p: Prim, span: Span, args: &[Val]) -> Result<Control> {
        let bad = || super::prims::mismatch_error(p, span, args);
        let ch = || match args.first() {
            Some(Val::Char(c)) => Ok(*c),
            _ => Err(bad()),
        };
        let v = match p {
            Prim::Chars => {
                let Some(Val::Str(r)) = args.first() else {
                    return Err(bad());
                };
                let text = self.heap.text(*r).clone();
                let bi = self.prog.builtins;
                let mut acc = Val::Atom(bi.nil);
                for c in text.chars().rev() {
                    acc = self.heap.con(bi.cons, &[Val::Char(c), acc]);
                }
                acc
            }
            Prim::FromChars => {
                let s = self.chars_of(args[0]).ok_or_else(bad)?;
                self.heap.string(s.into())
            }
            Prim::Ord => Val::Int(i64::from(u32::from(ch()?))),
            Prim::Chr => {
                let Some(Val::Int(n)) = args.first() else {
                    return Err(bad());
                };
                let c = u32::try_from(*n).ok().and_then(char::from_u32);
                Val::Char(c.ok_or_else(|| {
                    RuntimeError::at(
                        ErrorKind::BadValue,
                        format!(
                            "chr: {n} is not a Unicode scalar value (0 to 1114111, \
                             without 55296 to 57343)"
                        ),
                        span,
                    )
                })?)
            }
            Prim::CharIsAlpha => self.bool_val(ch()?.is_alphabetic()),
            Prim::CharIsAlphaNum => self.bool_val(ch()?.is_alphanumeric()),
            Prim::CharIsSpace => self.bool_val(ch()?.is_whitespace()),
            Prim::CharIsUpper => self.bool_val(ch()?.is_uppercase()),
            Prim::CharIsLower => self.bool_val(ch()?.is_lowercase()),
            Prim::CharToUpper => {
                let c = ch()?;
                Val::Char(single(c.to_uppercase(), c))
            }
            Prim::CharToLower => {
                let c = ch()?;
                Val::Char(single(c.to_lowercase(), c))
            }
            Prim::CharToString => {
                let c = ch()?;
                self.heap.string(c.to_string().into())
            }
            Prim::ShowChar => {
                let c = ch()?;
                self.heap
                    .string(crate::core::pretty::char_literal(c).into())
            }
            _ => return Err(bad()),
        };
        Ok(Control::Ret(v))
    }

    /// The characters of a list of `Char`s in normal form (borrowed), as a string, or
    /// `None` when it is not one.
    fn chars_of(&self, v: Val) -> Option<String> {
        self.spine_of(v)?
            .into_iter()
            .map(|x| match self.heap.forced(x) {
                Val::Char(c) => Some(c),
                _ => None,
            })
            .collect()
    }
}
