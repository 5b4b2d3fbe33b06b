//! `spindle run --format json` (LANGUAGE.md section 9): a value in normal form, as
//! one JSON document.
//!
//! The value comes as an [`NfTree`], a machine-independent normal form: whatever
//! evaluates `main` builds one (today [`nf_tree`] builds it from the core term that
//! the machine's readback gives for the normal form; the machine may build it directly
//! from its own normal forms instead), and [`render_json`] writes it. The mapping:
//!
//! - `Int` as a JSON integer; `Float` as [`json::render_number`] writes it (`2.5`,
//!   `3`, `1e300`, and the strings `"inf"`, `"-inf"`, `"NaN"`); `String` as a JSON
//!   string; `Char` as a JSON string of that one character; `True`, `False` as `true`, `false`; `()` as `null`;
//! - a list as an array; a pair or tuple as an array of its components, flattened as
//!   the text printer flattens them (`(1, (2, 3))` is `[1, 2, 3]`);
//! - a value of the prelude's `Json` type as the JSON it holds;
//! - a record as an object of its fields, by name (issue 29);
//! - any other constructor as `{"constructor": "Just", "fields": [...]}`;
//! - a value with no data form (a function, a type) as a JSON string of its Spindle
//!   text (`"\\x -> x"`).
//!
//! Values may be deep (a million-element list, a long chain of `S`): building,
//! writing and dropping an [`NfTree`] never recurse natively.

use crate::core::pretty;
use crate::core::program::Program;
use crate::core::term::{ConId, DataId, Lit, Plicity, RcTerm, Term};
use crate::prim::json;

/// A value in normal form, independent of the machine (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub enum NfTree {
    /// An `Int`.
    Int(i64),
    /// A `Float`.
    Float(f64),
    /// A `String`.
    Str(String),
    /// `True` or `False` (also a `JBool`).
    Bool(bool),
    /// `()` (also a `JNull`).
    Null,
    /// A pair or tuple, flattened: `(1, (2, 3))` has three components.
    Tuple(Vec<NfTree>),
    /// A list (also a `JArr`).
    List(Vec<NfTree>),
    /// A `JObj`: its entries in order.
    Obj(Vec<(String, NfTree)>),
    /// Any other constructor, with its explicit fields.
    Con {
        /// The constructor's name.
        name: String,
        /// Its fields, in order.
        fields: Vec<NfTree>,
    },
    /// A value with no data form (a function, a type), as Spindle text.
    Other(String),
}

impl NfTree {
    /// Moves the children out (for the iterative drop).
    fn take_children(&mut self, out: &mut Vec<NfTree>) {
        match self {
            NfTree::Tuple(items) | NfTree::List(items) | NfTree::Con { fields: items, .. } => {
                out.append(items)
            }
            NfTree::Obj(entries) => out.extend(std::mem::take(entries).into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

impl Drop for NfTree {
    /// Frees deep trees without recursion.
    fn drop(&mut self) {
        let mut stack = Vec::new();
        self.take_children(&mut stack);
        while let Some(mut t) = stack.pop() {
            t.take_children(&mut stack);
        }
    }
}

/// Writes a value as one compact JSON document (no trailing newline).
pub fn render_json(tree: &NfTree) -> String {
    /// What is left to write: a value, or literal text between values.
    enum Work<'a> {
        Value(&'a NfTree),
        Text(&'static str),
        Key(&'a str),
    }
    let mut out = String::new();
    let mut work = vec![Work::Value(tree)];
    // Pushes `open items... close`, comma-separated, so that they pop in order.
    fn seq<'a>(work: &mut Vec<Work<'a>>, items: &'a [NfTree], close: &'static str) {
        work.push(Work::Text(close));
        for (i, item) in items.iter().enumerate().rev() {
            work.push(Work::Value(item));
            if i > 0 {
                work.push(Work::Text(","));
            }
        }
    }
    while let Some(next) = work.pop() {
        match next {
            Work::Text(t) => out.push_str(t),
            Work::Key(k) => {
                json::quote_into(k, &mut out);
                out.push(':');
            }
            Work::Value(v) => match v {
                NfTree::Int(n) => out.push_str(&n.to_string()),
                NfTree::Float(x) => out.push_str(&json::render_number(*x)),
                NfTree::Str(s) | NfTree::Other(s) => json::quote_into(s, &mut out),
                NfTree::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                NfTree::Null => out.push_str("null"),
                NfTree::Tuple(items) | NfTree::List(items) => {
                    out.push('[');
                    seq(&mut work, items, "]");
                }
                NfTree::Obj(entries) => {
                    out.push('{');
                    work.push(Work::Text("}"));
                    for (i, (k, v)) in entries.iter().enumerate().rev() {
                        work.push(Work::Value(v));
                        work.push(Work::Key(k));
                        if i > 0 {
                            work.push(Work::Text(","));
                        }
                    }
                }
                NfTree::Con { name, fields } => {
                    out.push_str("{\"constructor\":");
                    json::quote_into(name, &mut out);
                    out.push_str(",\"fields\":[");
                    work.push(Work::Text("}"));
                    seq(&mut work, fields, "]");
                }
            },
        }
    }
    out
}

/// The prelude's `Json` type and its constructors, when the program has it: the first
/// data type named `Json` (the prelude's come first) with the six constructors of
/// LANGUAGE.md section 8, in order.
fn json_type(program: &Program) -> Option<DataId> {
    const CTORS: [&str; 6] = ["JNull", "JBool", "JNum", "JStr", "JArr", "JObj"];
    let i = program.datas.iter().position(|d| &*d.name == "Json")?;
    let d = &program.datas[i];
    let same =
        d.ctors.len() == CTORS.len() && d.ctors.iter().zip(CTORS).all(|(c, n)| &*c.name == n);
    same.then_some(DataId(i as u32))
}

/// The head of an application spine and its explicit arguments, in order.
fn spine(t: &RcTerm) -> (&RcTerm, Vec<&RcTerm>) {
    let (head, args) = crate::core::term::spine(t);
    let explicit = args
        .into_iter()
        .filter(|(p, _)| *p == Plicity::Explicit)
        .map(|(_, a)| a)
        .collect();
    (head, explicit)
}

/// A saturated constructor application: the constructor and its fields.
fn con_app<'t>(program: &Program, t: &'t RcTerm) -> Option<(ConId, Vec<&'t RcTerm>)> {
    let (head, args) = spine(t);
    match &**head {
        Term::Con(c) if program.con(*c).fields.len() == args.len() => Some((*c, args)),
        _ => None,
    }
}

/// The entries of a map's tree term (`Map'Tip`, `Map'Bin size key value left right`)
/// in ascending order of keys, or `None` where it is not such a tree.
fn tree_entries<'t>(
    program: &Program,
    cols: &crate::core::collections::Collections,
    t: &'t RcTerm,
) -> Option<Vec<(&'t RcTerm, &'t RcTerm)>> {
    let mut out = Vec::new();
    let mut stack: Vec<Vec<&'t RcTerm>> = Vec::new();
    let mut cur = t;
    loop {
        loop {
            let (c, fields) = con_app(program, cur)?;
            if c == cols.tip {
                break;
            }
            if c != cols.bin || fields.len() != 5 {
                return None;
            }
            cur = fields[3];
            stack.push(fields);
        }
        let Some(node) = stack.pop() else {
            return Some(out);
        };
        out.push((node[1], node[2]));
        cur = node[4];
    }
}

/// A `JObj` entry, `(key, value)` as a two-component tuple, as a key and a value.
fn entry(pair: &mut NfTree) -> (String, NfTree) {
    let mut kv = Vec::new();
    pair.take_children(&mut kv);
    let value = kv.pop().unwrap_or(NfTree::Null);
    let key = match kv.pop() {
        Some(NfTree::Str(ref k)) => k.clone(),
        _ => String::new(),
    };
    (key, value)
}

/// Builds the [`NfTree`] of a closed core term in normal form (constructors applied to
/// their fields, literals; anything else becomes [`NfTree::Other`] with its text).
pub fn nf_tree(program: &Program, term: &RcTerm) -> NfTree {
    /// How to finish a node once its children are built.
    enum Make {
        Tuple(usize),
        List(usize),
        Con(String, usize),
        /// A `JObj`: its one child is the list of its entries.
        Obj,
        /// A record: an object of its fields, by name.
        Record(Vec<String>),
        /// A map of `n` entries (key, value, key, value, ...): an object where every
        /// key is a string, else an array of `[key, value]` pairs.
        Map(usize),
    }
    enum Task<'t> {
        Visit(&'t RcTerm),
        Make(Make),
    }
    let b = program.builtins;
    let json = json_type(program);
    let mut values: Vec<NfTree> = Vec::new();
    let mut tasks = vec![Task::Visit(term)];
    // Pushes the visits of `children` so that their values come out in order.
    fn visit_all<'t>(tasks: &mut Vec<Task<'t>>, children: &[&'t RcTerm]) {
        for c in children.iter().rev() {
            tasks.push(Task::Visit(c));
        }
    }
    while let Some(task) = tasks.pop() {
        let t = match task {
            Task::Visit(t) => t,
            Task::Make(make) => {
                let take = |values: &mut Vec<NfTree>, n: usize| values.split_off(values.len() - n);
                let v = match make {
                    Make::Tuple(n) => NfTree::Tuple(take(&mut values, n)),
                    Make::List(n) => NfTree::List(take(&mut values, n)),
                    Make::Con(name, n) => NfTree::Con {
                        name,
                        fields: take(&mut values, n),
                    },
                    Make::Record(names) => {
                        let fields = take(&mut values, names.len());
                        NfTree::Obj(names.into_iter().zip(fields).collect())
                    }
                    Make::Map(n) => {
                        let flat = take(&mut values, 2 * n);
                        let mut pairs = Vec::with_capacity(n);
                        let mut it = flat.into_iter();
                        while let (Some(k), Some(v)) = (it.next(), it.next()) {
                            pairs.push((k, v));
                        }
                        if pairs.iter().all(|(k, _)| matches!(k, NfTree::Str(_))) {
                            NfTree::Obj(
                                pairs
                                    .into_iter()
                                    .map(|(k, v)| match &k {
                                        NfTree::Str(k) => (k.clone(), v),
                                        _ => unreachable!(),
                                    })
                                    .collect(),
                            )
                        } else {
                            NfTree::List(
                                pairs
                                    .into_iter()
                                    .map(|(k, v)| NfTree::Tuple(vec![k, v]))
                                    .collect(),
                            )
                        }
                    }
                    Make::Obj => {
                        let mut entries = match values.pop() {
                            Some(mut list @ NfTree::List(_)) => {
                                let mut items = Vec::new();
                                list.take_children(&mut items);
                                items
                            }
                            _ => Vec::new(),
                        };
                        NfTree::Obj(entries.iter_mut().map(entry).collect())
                    }
                };
                values.push(v);
                continue;
            }
        };
        if let Term::Lit(lit) = &**t {
            values.push(match lit {
                Lit::Int(n) => NfTree::Int(*n),
                Lit::Float(x) => NfTree::Float(*x),
                Lit::Str(s) => NfTree::Str(s.to_string()),
                Lit::Char(c) => NfTree::Str(c.to_string()),
            });
            continue;
        }
        let Some((c, fields)) = con_app(program, t) else {
            values.push(NfTree::Other(pretty::term_to_string(program, &[], t)));
            continue;
        };
        if let Some(cols) = program.collections()
            && (c == cols.tip || c == cols.bin || c == cols.set_of || c == cols.array_of)
            && let Some(entries) = tree_entries(
                program,
                cols,
                if c == cols.set_of || c == cols.array_of {
                    fields[0]
                } else {
                    t
                },
            )
        {
            // A map as an object (string keys) or an array of pairs; a set or an
            // array as an array.
            if c == cols.set_of || c == cols.array_of {
                let items: Vec<&RcTerm> = entries
                    .iter()
                    .map(|(k, v)| if c == cols.set_of { *k } else { *v })
                    .collect();
                tasks.push(Task::Make(Make::List(items.len())));
                visit_all(&mut tasks, &items);
            } else {
                tasks.push(Task::Make(Make::Map(entries.len())));
                let flat: Vec<&RcTerm> = entries.iter().flat_map(|(k, v)| [*k, *v]).collect();
                visit_all(&mut tasks, &flat);
            }
        } else if c == b.true_ || c == b.false_ {
            values.push(NfTree::Bool(c == b.true_));
        } else if c == b.unit_con {
            values.push(NfTree::Null);
        } else if c == b.mk_pair {
            // Flatten the right spine of pairs.
            let mut items = vec![fields[0]];
            let mut last = fields[1];
            while let Some((c2, f2)) = con_app(program, last).filter(|(c2, _)| *c2 == b.mk_pair) {
                debug_assert_eq!(c2, b.mk_pair);
                items.push(f2[0]);
                last = f2[1];
            }
            items.push(last);
            tasks.push(Task::Make(Make::Tuple(items.len())));
            visit_all(&mut tasks, &items);
        } else if c == b.cons || c == b.nil {
            let mut items = Vec::new();
            let mut rest = t;
            while let Some((c2, f2)) = con_app(program, rest).filter(|(c2, _)| *c2 == b.cons) {
                debug_assert_eq!(c2, b.cons);
                items.push(f2[0]);
                rest = f2[1];
            }
            tasks.push(Task::Make(Make::List(items.len())));
            visit_all(&mut tasks, &items);
        } else if Some(c.data) == json {
            // JNull | JBool b | JNum x | JStr s | JArr xs | JObj entries: the field's
            // own value is the JSON (a Bool, Float, String or List), except for JObj.
            match c.index {
                0 => values.push(NfTree::Null),
                5 => {
                    tasks.push(Task::Make(Make::Obj));
                    tasks.push(Task::Visit(fields[0]));
                }
                _ => tasks.push(Task::Visit(fields[0])),
            }
        } else if program.data(c.data).record {
            let names = program
                .con(c)
                .field_names
                .iter()
                .map(|n| n.to_string())
                .collect();
            tasks.push(Task::Make(Make::Record(names)));
            visit_all(&mut tasks, &fields);
        } else {
            let name = program.con(c).name.to_string();
            tasks.push(Task::Make(Make::Con(name, fields.len())));
            visit_all(&mut tasks, &fields);
        }
    }
    values.pop().unwrap_or(NfTree::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_value() {
        let t = NfTree::Tuple(vec![
            NfTree::Int(-3),
            NfTree::Float(2.5),
            NfTree::Float(f64::NAN),
            NfTree::Str("a\"b".into()),
            NfTree::Bool(true),
            NfTree::Null,
            NfTree::List(vec![]),
            NfTree::Con {
                name: "Just".into(),
                fields: vec![NfTree::Int(1)],
            },
            NfTree::Con {
                name: "Nothing".into(),
                fields: vec![],
            },
            NfTree::Obj(vec![
                ("k".into(), NfTree::List(vec![NfTree::Null])),
                ("".into(), NfTree::Obj(vec![])),
            ]),
            NfTree::Other("\\x -> x".into()),
        ]);
        assert_eq!(
            render_json(&t),
            r#"[-3,2.5,"NaN","a\"b",true,null,[],{"constructor":"Just","fields":[1]},{"constructor":"Nothing","fields":[]},{"k":[null],"":{}},"\\x -> x"]"#
        );
    }

    #[test]
    fn deep_values_neither_overflow_when_written_nor_when_dropped() {
        let mut t = NfTree::Int(0);
        for _ in 0..1_000_000 {
            t = NfTree::Con {
                name: "S".into(),
                fields: vec![t],
            };
        }
        let text = render_json(&t);
        assert!(text.starts_with("{\"constructor\":\"S\",\"fields\":[{\"constructor\""));
        assert!(text.contains("{\"constructor\":\"S\",\"fields\":[0]}]}"));
        assert!(text.ends_with("]}]}"));
        assert_eq!(text.matches("constructor").count(), 1_000_000);
        drop(t);
    }
}
