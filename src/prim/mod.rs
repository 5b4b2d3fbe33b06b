//! Primitive operations: the operations the machine performs itself.
//!
//! Operators map to primitives (`+` is [`Prim::Add`], on `Int` or `Float` according to
//! its operands); the prelude reaches the others through reserved names that start
//! with `prim_` (`prim_strLength`), which user programs can use too but should not need.
//! `error` is a primitive under its own name.
//!
//! The operations themselves live in one module per family: [`arith`] (checked `Int`
//! and IEEE `Float` arithmetic), [`compare`] (orderings), [`float`] (conversions and
//! the shortest round-trip text), [`string`] (Unicode-aware string functions), [`json`]
//! (JSON parsing and rendering, with `serde_json`). The
//! machine (`machine::primop`) applies them to evaluated arguments; structural `==`,
//! list `++`, `join` and `prim_seq` need the machine's frames and are done there.
//!
//! A primitive takes only value arguments: no type arguments, even where its type has
//! implicit binders (`error : {a : Type} -> String -> a`). The type checker gives each
//! primitive its type specially; the machine applies it to exactly [`Prim::arity`]
//! arguments.

pub mod arith;
pub mod compare;
pub mod float;
pub mod json;
pub mod string;

/// A primitive operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Prim {
    /// `+` on `Int` (checked) or `Float`.
    Add,
    /// `-` on `Int` (checked) or `Float`.
    Sub,
    /// `*` on `Int` (checked) or `Float`.
    Mul,
    /// `/`: `Int` truncates toward zero; division by zero is an error.
    Div,
    /// `%` on `Int` (remainder) or `Float`.
    Rem,
    /// Structural `==` on values of one type.
    Eq,
    /// Structural `!=`.
    Ne,
    /// `<` on `Int`, `Float`, `String`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `++` on two `String`s or two `List`s.
    Concat,
    /// `error msg`: stops the program.
    Error,
    /// `Int -> Float`.
    IntToFloat,
    /// `Float -> Float`.
    Sqrt,
    /// `Float -> Int`, toward negative infinity.
    Floor,
    /// `Float -> Int`, toward positive infinity.
    Ceil,
    /// `Float -> Int`, halves away from zero.
    Round,
    /// `Int -> String`.
    ShowInt,
    /// `Float -> String`, shortest round-trip form.
    ShowFloat,
    /// `String -> Maybe Int`.
    ParseInt,
    /// `String -> Maybe Float`.
    ParseFloat,
    /// `String -> Int`, in Unicode scalar values.
    StrLength,
    /// `substring start len s`, positions in Unicode scalar values.
    Substring,
    /// `startsWith prefix s`.
    StartsWith,
    /// `endsWith suffix s`.
    EndsWith,
    /// `contains needle s`.
    Contains,
    /// `split sep s : List String`.
    Split,
    /// `join sep xs : String`.
    Join,
    /// `trim s`: without leading and trailing white space.
    Trim,
    /// `words s : List String`: the runs of non-white-space characters.
    Words,
    /// `lines s : List String`: the lines (a final newline does not start another).
    Lines,
    /// `prim_seq a b`: needs `a` (to weak head normal form), then is `b`.
    Seq,
    /// `String -> List String`: JSON text as the flat tokens of [`json::tokens`], which
    /// the prelude's `parseJson` folds into a `Json`.
    ParseJson,
    /// `String -> String`: a string as a JSON string literal ([`json::quote`]).
    JsonString,
    /// `Float -> String`: a number as JSON ([`json::render_number`]).
    JsonNumber,
    /// `prim_catch x`: needs `x` to normal form; `Nothing` when that worked, `Just
    /// message` when it raised a runtime error (the prelude's `try`).
    Catch,
    /// `prim_after a b`: needs `a` to normal form, then is `b` (the prelude's `after`).
    After,
    /// `prim_trace msg x`: writes `msg` and a newline to standard error, then is `x`
    /// (the prelude's `trace`).
    Trace,
    /// `prim_reading files x`: `x`, whose calls read the files listed (the prelude's
    /// `reading`, LANGUAGE.md 11).
    Reading,
    /// `prim_writing files x`: `x`, whose calls write the files listed.
    Writing,
    /// `prim_sortInts xs`: the `Int`s of a list in ascending order (the prelude's
    /// `sort`).
    SortInts,
    /// `String -> String`: a string as `spindle run` prints it inside a value, quoted
    /// and escaped (`show` on `String`).
    ShowString,
    /// `String -> String`: the text of a value as an argument of a constructor, in
    /// parentheses if it is an application or a negative number (LANGUAGE.md 9; the
    /// derived `Show` instances).
    ShowArg,
    /// `{a : Type} -> a -> Bool`: whether a value (evaluated to its constructor) is a
    /// pair, so that `show` prints `(1, (2, 3))` flat as `(1, 2, 3)`, as `spindle run`
    /// does.
    IsPair,
    /// `prim_mapLookup key m`: a search of a map done by the machine
    /// (`crate::machine::collections`): `Just (Just v)`, `Just Nothing`, or `Nothing`
    /// where it cannot search natively.
    MapLookup,
    /// `prim_mapInsert key x m`: `Just` the map with `key` mapped to `x`, or `Nothing`.
    MapInsert,
    /// `prim_mapDelete key m`: `Just` the map without `key`, or `Nothing`.
    MapDelete,
    /// `prim_sortOrdered xs`: `Just` the list sorted (stable), or `Nothing` where its
    /// elements cannot be ordered natively.
    SortOrdered,
    /// `prim_sortOnFirst ps`: `Just` the pairs sorted by their first components
    /// (stable), or `Nothing`.
    SortOnFirst,
    /// `^`: `Int ^ Int` (checked; a negative exponent is an error) or `Float ^ Int`.
    Pow,
    /// `div a b` on `Int`: the quotient rounded down.
    DivFloor,
    /// `mod a b` on `Int`: the remainder with the sign of `b` (`a - b * div a b`).
    ModFloor,
    /// `showFixed digits x`: `x` with `digits` decimals, correctly rounded.
    ShowFixed,
    /// `prim_compare x y` on two `Int`s, `Float`s, `String`s or `Char`s: the prelude's
    /// `Ordering` (`compare` of the built-in `Ord` instances).
    Compare,
    /// `prim_sortPrims xs fallback`: a list of numbers or strings, evaluated whole (for
    /// such elements that is evaluating each), sorted; `fallback xs` where it cannot
    /// (a `NaN`, or elements of another kind).
    SortPrims,
    /// `prim_isPrim x`: whether `x` is a number, a string or a character (its type then
    /// has no parts to leave unevaluated).
    IsPrim,
    /// `String -> List Char`: the Unicode scalar values of a string, in order.
    Chars,
    /// `List Char -> String`: the string of a list of characters (in normal form).
    FromChars,
    /// `Char -> Int`: a character's code point.
    Ord,
    /// `Int -> Char`: the character of a code point; an error outside the Unicode
    /// scalar values (0 to 0x10FFFF without the surrogates 0xD800 to 0xDFFF).
    Chr,
    /// `Char -> Bool`: Unicode `Alphabetic`.
    CharIsAlpha,
    /// `Char -> Bool`: alphabetic or numeric (Unicode).
    CharIsAlphaNum,
    /// `Char -> Bool`: Unicode `White_Space`.
    CharIsSpace,
    /// `Char -> Bool`: Unicode `Uppercase`.
    CharIsUpper,
    /// `Char -> Bool`: Unicode `Lowercase`.
    CharIsLower,
    /// `Char -> Char`: the upper case of a character when Unicode maps it to one
    /// character, else the character itself.
    CharToUpper,
    /// `Char -> Char`: the lower case, likewise.
    CharToLower,
    /// `Char -> String`: the one-character string.
    CharToString,
    /// `Char -> String`: a character as `spindle run` prints it (`'a'`, `'\n'`).
    ShowChar,
    /// `prim_abs x`: the absolute value of an `Int` (checked: the least `Int` has
    /// none) or a `Float` (the prelude's `abs`).
    Abs,
}

/// Every primitive with the name the source uses for it and its arity.
const TABLE: &[(Prim, &str, usize)] = &[
    (Prim::Add, "prim_add", 2),
    (Prim::Sub, "prim_sub", 2),
    (Prim::Mul, "prim_mul", 2),
    (Prim::Div, "prim_div", 2),
    (Prim::Rem, "prim_rem", 2),
    (Prim::Eq, "prim_eq", 2),
    (Prim::Ne, "prim_ne", 2),
    (Prim::Lt, "prim_lt", 2),
    (Prim::Le, "prim_le", 2),
    (Prim::Gt, "prim_gt", 2),
    (Prim::Ge, "prim_ge", 2),
    (Prim::Concat, "prim_concat", 2),
    (Prim::Error, "error", 1),
    (Prim::IntToFloat, "prim_intToFloat", 1),
    (Prim::Sqrt, "prim_sqrt", 1),
    (Prim::Floor, "prim_floor", 1),
    (Prim::Ceil, "prim_ceil", 1),
    (Prim::Round, "prim_round", 1),
    (Prim::ShowInt, "prim_showInt", 1),
    (Prim::ShowFloat, "prim_showFloat", 1),
    (Prim::ParseInt, "prim_parseInt", 1),
    (Prim::ParseFloat, "prim_parseFloat", 1),
    (Prim::StrLength, "prim_strLength", 1),
    (Prim::Substring, "prim_substring", 3),
    (Prim::StartsWith, "prim_startsWith", 2),
    (Prim::EndsWith, "prim_endsWith", 2),
    (Prim::Contains, "prim_contains", 2),
    (Prim::Split, "prim_split", 2),
    (Prim::Join, "prim_join", 2),
    (Prim::Trim, "prim_trim", 1),
    (Prim::Words, "prim_words", 1),
    (Prim::Lines, "prim_lines", 1),
    (Prim::Seq, "prim_seq", 2),
    (Prim::ParseJson, "prim_parseJson", 1),
    (Prim::JsonString, "prim_jsonString", 1),
    (Prim::JsonNumber, "prim_jsonNumber", 1),
    (Prim::Catch, "prim_catch", 1),
    (Prim::After, "prim_after", 2),
    (Prim::Trace, "prim_trace", 2),
    (Prim::Reading, "prim_reading", 2),
    (Prim::Writing, "prim_writing", 2),
    (Prim::SortInts, "prim_sortInts", 1),
    (Prim::ShowString, "prim_showString", 1),
    (Prim::ShowArg, "prim_showArg", 1),
    (Prim::IsPair, "prim_isPair", 1),
    (Prim::MapLookup, "prim_mapLookup", 2),
    (Prim::MapInsert, "prim_mapInsert", 3),
    (Prim::MapDelete, "prim_mapDelete", 2),
    (Prim::SortOrdered, "prim_sortOrdered", 1),
    (Prim::SortOnFirst, "prim_sortOnFirst", 1),
    (Prim::Pow, "prim_pow", 2),
    (Prim::DivFloor, "prim_divFloor", 2),
    (Prim::ModFloor, "prim_modFloor", 2),
    (Prim::ShowFixed, "prim_showFixed", 2),
    (Prim::Compare, "prim_compare", 2),
    (Prim::SortPrims, "prim_sortPrims", 2),
    (Prim::IsPrim, "prim_isPrim", 1),
    (Prim::Abs, "prim_abs", 1),
    (Prim::Chars, "prim_chars", 1),
    (Prim::FromChars, "prim_fromChars", 1),
    (Prim::Ord, "prim_ord", 1),
    (Prim::Chr, "prim_chr", 1),
    (Prim::CharIsAlpha, "prim_charIsAlpha", 1),
    (Prim::CharIsAlphaNum, "prim_charIsAlphaNum", 1),
    (Prim::CharIsSpace, "prim_charIsSpace", 1),
    (Prim::CharIsUpper, "prim_charIsUpper", 1),
    (Prim::CharIsLower, "prim_charIsLower", 1),
    (Prim::CharToUpper, "prim_charToUpper", 1),
    (Prim::CharToLower, "prim_charToLower", 1),
    (Prim::CharToString, "prim_charToString", 1),
    (Prim::ShowChar, "prim_showChar", 1),
];

impl Prim {
    /// Whether the primitive needs its arguments in normal form (a list walked to its
    /// end with every element evaluated: `prim_join`'s strings, a sort's numbers):
    /// the machine evaluates them so before it runs, and the spine analysis counts
    /// them as walked.
    pub fn takes_whole_args(self) -> bool {
        matches!(
            self,
            Prim::Join | Prim::SortInts | Prim::SortPrims | Prim::FromChars
        )
    }

    /// The primitive a source name refers to, if any.
    pub fn from_name(name: &str) -> Option<Prim> {
        TABLE
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(p, _, _)| *p)
    }

    /// The name the source uses for this primitive.
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|(p, _, _)| *p == self)
            .map(|(_, n, _)| *n)
            .unwrap_or("prim_?")
    }

    /// How many value arguments it consumes.
    pub fn arity(self) -> usize {
        TABLE
            .iter()
            .find(|(p, _, _)| *p == self)
            .map(|(_, _, a)| *a)
            .unwrap_or(0)
    }

    /// Every primitive name (for "did you mean" suggestions and completion).
    pub fn names() -> impl Iterator<Item = &'static str> {
        TABLE.iter().map(|(_, n, _)| *n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (p, n, a) in TABLE {
            assert_eq!(Prim::from_name(n), Some(*p));
            assert_eq!(p.name(), *n);
            assert_eq!(p.arity(), *a);
        }
        assert_eq!(Prim::from_name("prim_nope"), None);
    }
}
