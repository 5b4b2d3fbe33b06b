//! JSON (LANGUAGE.md sections 8 and 9): parsing and rendering JSON text, for the
//! prelude's `parseJson` and `renderJson` and for `spindle run --format json`.
//!
//! Everything here works on [`JsonTree`], a machine-independent JSON value whose
//! objects keep their keys in the order written (duplicates included), as the
//! prelude's `JObj (List (Pair String Json))` does. Parsing is `serde_json`'s
//! (through a [`Deserialize`] impl of our own, so no map type reorders or merges keys);
//! its nesting limit (128 levels) keeps deep input from exhausting the native stack.
//!
//! Numbers are `f64`, like the prelude's `JNum Float`. They are rendered so that a user
//! reads back what they would have written ([`render_number`]): an integral value of
//! magnitude below 2^53 without a fraction (`3`, not `3.0`), any other finite value as
//! the shortest text that reads back to the same float (`0.1`, `1e300`), and the
//! non-finite ones, which JSON cannot hold, as the strings `"inf"`, `"-inf"` and
//! `"NaN"` (as `--format json` prints a `Float`).
//!
//! The machine reaches this module through three primitives that take and return only
//! strings and lists of strings, so that the machine needs to know nothing of the
//! `Json` type: `prim_parseJson` answers with the flat prefix [`tokens`] of the parsed
//! value (the prelude folds them into a `Json`), `prim_jsonString` quotes a string and
//! `prim_jsonNumber` renders a number; the prelude's `renderJson` is written in
//! Spindle with the last two.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A JSON value, independent of the machine: what `parseJson` reads and what
/// `renderJson` and `--format json` write.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonTree {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number (every JSON number is read as a double, like `JNum Float`).
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<JsonTree>),
    /// An object: its entries in the order written, duplicates kept.
    Obj(Vec<(String, JsonTree)>),
}

impl<'de> Deserialize<'de> for JsonTree {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<JsonTree, D::Error> {
        d.deserialize_any(TreeVisitor)
    }
}

/// Builds a [`JsonTree`] from what `serde_json` reads.
struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = JsonTree;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<JsonTree, E> {
        Ok(JsonTree::Null)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<JsonTree, E> {
        Ok(JsonTree::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<JsonTree, E> {
        Ok(JsonTree::Num(n as f64))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<JsonTree, E> {
        Ok(JsonTree::Num(n as f64))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<JsonTree, E> {
        Ok(JsonTree::Num(x))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<JsonTree, E> {
        Ok(JsonTree::Str(s.to_string()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<JsonTree, E> {
        Ok(JsonTree::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonTree, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<JsonTree>()? {
            items.push(item);
        }
        Ok(JsonTree::Arr(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonTree, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, JsonTree>()? {
            entries.push((k, v));
        }
        Ok(JsonTree::Obj(entries))
    }
}

/// Parses JSON text (one value, white space around it allowed). The error names the
/// line and column of the first problem: `line 1, column 5: expected value`.
pub fn parse(text: &str) -> Result<JsonTree, String> {
    serde_json::from_str::<JsonTree>(text).map_err(|e| {
        let full = e.to_string();
        // serde_json ends its message with " at line L column C": say it first.
        let what = match full.rfind(" at line ") {
            Some(i) => &full[..i],
            None => full.as_str(),
        };
        // serde_json says column 0 when the character it choked on was a line break
        // (it has counted the new line already): that break ends the line before.
        // Columns count from 1.
        let (line, column) = match (e.line(), e.column()) {
            (l, 0) if l > 1 => {
                let before = text.split('\n').nth(l - 2).unwrap_or("");
                (l - 1, before.chars().count() + 1)
            }
            (l, c) => (l, c.max(1)),
        };
        format!("line {line}, column {column}: {what}")
    })
}

/// Renders a value as compact JSON: no white space, keys in the order given.
pub fn render(tree: &JsonTree) -> String {
    let mut out = String::new();
    render_into(tree, &mut out);
    out
}

/// Appends the compact JSON of `tree` to `out`.
pub fn render_into(tree: &JsonTree, out: &mut String) {
    match tree {
        JsonTree::Null => out.push_str("null"),
        JsonTree::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        JsonTree::Num(x) => out.push_str(&render_number(*x)),
        JsonTree::Str(s) => quote_into(s, out),
        JsonTree::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render_into(item, out);
            }
            out.push(']');
        }
        JsonTree::Obj(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                quote_into(k, out);
                out.push(':');
                render_into(v, out);
            }
            out.push('}');
        }
    }
}

/// The largest magnitude below which every integer is exactly a double (2^53): such
/// integral values are written without a fraction.
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// A number as JSON (see the module documentation): `3`, `-0.5`, `1e300`, and the
/// strings `"inf"`, `"-inf"`, `"NaN"` for the values JSON has no number for.
pub fn render_number(x: f64) -> String {
    if x.is_nan() {
        "\"NaN\"".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "\"inf\"" } else { "\"-inf\"" }.to_string()
    } else if x.fract() == 0.0 && x.abs() < EXACT_INTEGERS {
        // `-0.0` becomes `0`: JSON readers see no difference worth a `-0`.
        format!("{}", x as i64)
    } else {
        // Rust's `Debug` is the shortest round-trip text (`0.1`, `1e-7`, `1.5e300`),
        // and always a valid JSON number for a finite value.
        format!("{x:?}")
    }
}

/// A string as a JSON string literal, quoted and escaped.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote_into(s, &mut out);
    out
}

/// Appends `s` as a JSON string literal: `"` and `\` escaped, control characters as
/// `\n`, `\t`, ... or `\u00XX`; everything else (all of Unicode) as itself.
pub fn quote_into(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The tag tokens of [`tokens`].
pub mod tag {
    /// `null`.
    pub const NULL: &str = "n";
    /// `true`.
    pub const TRUE: &str = "t";
    /// `false`.
    pub const FALSE: &str = "f";
    /// A number: the next token is its text (which `parseFloat` reads).
    pub const NUM: &str = "#";
    /// A string: the next token is the string itself.
    pub const STR: &str = "s";
    /// An array starts: values follow until [`ARR_END`].
    pub const ARR: &str = "[";
    /// An array ends.
    pub const ARR_END: &str = "]";
    /// An object starts: entries follow until [`OBJ_END`], each [`KEY`], the key, and
    /// the value.
    pub const OBJ: &str = "{";
    /// An object entry: the next token is the key, then comes the value.
    pub const KEY: &str = ":";
    /// An object ends.
    pub const OBJ_END: &str = "}";
    /// The text did not parse: the next token is the message (and nothing follows).
    pub const ERROR: &str = "!";
}

/// What `prim_parseJson` answers: the value of `text` as a flat list of tokens in
/// prefix order (see [`tag`]), which the prelude folds into a `Json`, or the two
/// tokens `["!", message]` when it does not parse. A string or key is always the
/// token after its tag, so any text can be a key or a string without ambiguity.
pub fn tokens(text: &str) -> Vec<String> {
    match parse(text) {
        Ok(tree) => {
            let mut out = Vec::new();
            // Iteratively, though the parser's nesting limit keeps trees shallow.
            let mut work: Vec<Token<'_>> = vec![Token::Tree(&tree)];
            while let Some(next) = work.pop() {
                match next {
                    Token::Text(t) => out.push(t.to_string()),
                    Token::Tree(JsonTree::Null) => out.push(tag::NULL.into()),
                    Token::Tree(JsonTree::Bool(b)) => {
                        out.push(if *b { tag::TRUE } else { tag::FALSE }.into())
                    }
                    Token::Tree(JsonTree::Num(x)) => {
                        out.push(tag::NUM.into());
                        out.push(format!("{x:?}"));
                    }
                    Token::Tree(JsonTree::Str(s)) => {
                        out.push(tag::STR.into());
                        out.push(s.clone());
                    }
                    Token::Tree(JsonTree::Arr(items)) => {
                        out.push(tag::ARR.into());
                        work.push(Token::Text(tag::ARR_END));
                        work.extend(items.iter().rev().map(Token::Tree));
                    }
                    Token::Tree(JsonTree::Obj(entries)) => {
                        out.push(tag::OBJ.into());
                        work.push(Token::Text(tag::OBJ_END));
                        for (k, v) in entries.iter().rev() {
                            work.push(Token::Tree(v));
                            work.push(Token::Text(k));
                            work.push(Token::Text(tag::KEY));
                        }
                    }
                }
            }
            out
        }
        Err(message) => vec![tag::ERROR.to_string(), message],
    }
}

/// Work for [`tokens`]: a value still to flatten, or a token to emit as it is.
enum Token<'a> {
    Tree(&'a JsonTree),
    Text(&'a str),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(entries: &[(&str, JsonTree)]) -> JsonTree {
        JsonTree::Obj(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn parses_every_kind_of_value() {
        let t =
            parse(r#" {"b": [1, 2.5, -3e2], "a": null, "t": true, "s": "x\ny\u00e9"} "#).unwrap();
        assert_eq!(
            t,
            obj(&[
                (
                    "b",
                    JsonTree::Arr(vec![
                        JsonTree::Num(1.0),
                        JsonTree::Num(2.5),
                        JsonTree::Num(-300.0)
                    ])
                ),
                ("a", JsonTree::Null),
                ("t", JsonTree::Bool(true)),
                ("s", JsonTree::Str("x\nyé".into())),
            ])
        );
        assert_eq!(parse("[]").unwrap(), JsonTree::Arr(vec![]));
        assert_eq!(parse("{}").unwrap(), JsonTree::Obj(vec![]));
        assert_eq!(parse("\"\"").unwrap(), JsonTree::Str(String::new()));
        assert_eq!(
            parse("18446744073709551615").unwrap(),
            JsonTree::Num(18446744073709551615.0)
        );
    }

    #[test]
    fn keys_keep_their_order_and_duplicates() {
        let t = parse(r#"{"z": 1, "a": 2, "z": 3}"#).unwrap();
        assert_eq!(
            t,
            obj(&[
                ("z", JsonTree::Num(1.0)),
                ("a", JsonTree::Num(2.0)),
                ("z", JsonTree::Num(3.0))
            ])
        );
        assert_eq!(render(&t), r#"{"z":1,"a":2,"z":3}"#);
    }

    #[test]
    fn errors_name_line_and_column() {
        assert_eq!(
            parse("{\"a\": 1,\n  \"b\" 2}").unwrap_err(),
            "line 2, column 7: expected `:`"
        );
        assert_eq!(
            parse("[1, 2").unwrap_err(),
            "line 1, column 5: EOF while parsing a list"
        );
        assert_eq!(
            parse("nul").unwrap_err(),
            "line 1, column 3: EOF while parsing a value"
        );
        assert_eq!(
            parse("1 2").unwrap_err(),
            "line 1, column 3: trailing characters"
        );
        assert!(parse("").unwrap_err().starts_with("line 1, column 1: "));
        // An error at a line break is placed at the end of its line, not on the next.
        assert_eq!(
            parse("{\n  \"b\": tru\n}").unwrap_err(),
            "line 2, column 11: expected ident"
        );
        assert!(parse("[1e999]").unwrap_err().contains("out of range"));
        // Deep nesting is an error, never a native stack overflow.
        let deep = "[".repeat(100_000);
        assert!(
            parse(&deep).unwrap_err().contains("recursion limit"),
            "deep input"
        );
    }

    #[test]
    fn renders_compactly() {
        let t = parse(r#"{ "name" : "a \"b\" \\ c", "xs" : [ 1 , true , null , { } , [ ] ] }"#)
            .unwrap();
        assert_eq!(
            render(&t),
            r#"{"name":"a \"b\" \\ c","xs":[1,true,null,{},[]]}"#
        );
        assert_eq!(
            quote("tab\there\u{1}\u{7f}é"),
            "\"tab\\there\\u0001\u{7f}é\""
        );
        // What renders parses back to the same tree.
        assert_eq!(parse(&render(&t)).unwrap(), t);
    }

    #[test]
    fn numbers_render_as_a_user_writes_them() {
        assert_eq!(render_number(3.0), "3");
        assert_eq!(render_number(-42.0), "-42");
        assert_eq!(render_number(-0.0), "0");
        assert_eq!(render_number(0.5), "0.5");
        assert_eq!(render_number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(render_number(1e15), "1000000000000000");
        assert_eq!(render_number(9007199254740992.0), "9007199254740992.0");
        assert_eq!(render_number(1e300), "1e300");
        assert_eq!(render_number(1.5e-7), "1.5e-7");
        assert_eq!(render_number(f64::INFINITY), "\"inf\"");
        assert_eq!(render_number(f64::NEG_INFINITY), "\"-inf\"");
        assert_eq!(render_number(f64::NAN), "\"NaN\"");
        // Every finite rendering is a JSON number that reads back exactly.
        for x in [
            3.0,
            0.1,
            1e300,
            1.5e-7,
            9007199254740992.0,
            123456.789,
            -2.5e-300,
        ] {
            assert_eq!(parse(&render_number(x)).unwrap(), JsonTree::Num(x), "{x}");
        }
    }

    #[test]
    fn tokens_are_prefix_order() {
        assert_eq!(
            tokens(r#"{"k": [1, "s", null], "}": {"": false}}"#),
            [
                "{", ":", "k", "[", "#", "1.0", "s", "s", "n", "]", ":", "}", "{", ":", "", "f",
                "}", "}"
            ]
        );
        assert_eq!(tokens("true"), ["t"]);
        assert_eq!(tokens("2.5e-3"), ["#", "0.0025"]);
        assert_eq!(
            tokens("[1,"),
            ["!", "line 1, column 3: EOF while parsing a value"]
        );
        // Number tokens read back exactly with Spindle's `parseFloat`.
        let toks = tokens("[0.1, 1e300, -7]");
        for t in [&toks[2], &toks[4], &toks[6]] {
            assert!(crate::prim::float::parse(t).is_some(), "{t}");
        }
    }
}
