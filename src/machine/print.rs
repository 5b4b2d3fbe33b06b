//! Printing values (LANGUAGE.md section 9): `main` is needed to full normal form as it
//! is printed, field by field, with an explicit worklist (a million-element list
//! prints without native recursion).
//!
//! `Int` in decimal; `Float` in shortest round-trip form with a `.` or an exponent;
//! `String` quoted with escapes (raw when it is the whole result); `()`; tuples flat
//! (`(1, (2, 3))` prints `(1, 2, 3)`); lists in brackets; other constructors in prefix
//! form with applications and negative numbers in parentheses.

use super::Machine;
use super::arena::NIL;
use super::error::Result;
use super::value::{CtxtId, PartialHead, Value};
use crate::core::term::{ConId, PrimType};
use crate::prim;
use std::fmt::Write;

/// What is left to print.
pub(crate) enum Task<'p> {
    /// Literal text.
    Text(&'static str),
    /// A value; `atom` asks for parentheses around applications and negative numbers.
    Val(Value<'p>, bool),
    /// An entry to need, then print (counted).
    Entry(CtxtId, bool),
    /// The rest of a tuple after its first component (counted entry).
    PairRest(CtxtId),
    /// The rest of a list after an element (counted entry).
    ListRest(CtxtId),
    /// Releases a value's references once its fields are printed.
    Release(Value<'p>),
}

/// Quotes a string with the escapes of section 9 (the same rules as source literals).
pub fn quote(s: &str, out: &mut String) {
    crate::core::pretty::quote_into(out, s);
}

/// The references the printer holds while it needs an entry: what is left to print and
/// the entry itself (kept in the machine so that the audit sees them).
#[derive(Default)]
pub(crate) struct Held<'p> {
    pub(crate) tasks: Vec<Task<'p>>,
    pub(crate) current: Option<CtxtId>,
}

impl<'p> Held<'p> {
    /// Calls `entry` and `value` on each reference held.
    pub(crate) fn each<'a>(
        &'a self,
        mut entry: impl FnMut(CtxtId),
        mut value: impl FnMut(&'a Value<'p>),
    ) {
        if let Some(c) = self.current {
            entry(c);
        }
        for t in &self.tasks {
            match t {
                Task::Val(v, _) | Task::Release(v) => value(v),
                Task::Entry(c, _) | Task::PairRest(c) | Task::ListRest(c) => entry(*c),
                Task::Text(_) => {}
            }
        }
    }
}

impl<'p> Machine<'p> {
    /// Needs entry `c` (the printer's counted reference) to weak head normal form.
    fn print_need(&mut self, c: CtxtId, tasks: &mut Vec<Task<'p>>) -> Result<Value<'p>> {
        self.printing.tasks = std::mem::take(tasks);
        self.printing.current = Some(c);
        let r = self.whnf_entry(c);
        *tasks = std::mem::take(&mut self.printing.tasks);
        self.printing.current = None;
        r
    }

    fn con_name(&self, c: ConId) -> &'p str {
        &self.prog.con(c).name
    }

    /// Needs `v` to normal form and prints it; a `String` result prints raw.
    pub fn print_value(&mut self, v: Value<'p>) -> Result<String> {
        if let Value::Str(s) = &v {
            return Ok(s.to_string());
        }
        let mut out = String::new();
        let mut tasks = vec![Task::Val(v, false)];
        let bi = self.prog.builtins;
        while let Some(task) = tasks.pop() {
            let (v, atom) = match task {
                Task::Text(t) => {
                    out.push_str(t);
                    continue;
                }
                Task::Release(v) => {
                    self.heap.release_value(v);
                    continue;
                }
                Task::Val(v, atom) => (v, atom),
                Task::Entry(c, atom) => {
                    let v = self.print_need(c, &mut tasks)?;
                    self.heap.release(c);
                    (v, atom)
                }
                Task::PairRest(c) => {
                    let v = self.print_need(c, &mut tasks)?;
                    self.heap.release(c);
                    match &v {
                        Value::Con(k, b) if *k == bi.mk_pair => {
                            let f = self.heap.block(*b).to_vec();
                            for &x in &f {
                                self.heap.retain(x);
                            }
                            tasks.push(Task::Release(v));
                            tasks.push(Task::PairRest(f[1]));
                            tasks.push(Task::Entry(f[0], false));
                            tasks.push(Task::Text(", "));
                        }
                        _ => {
                            tasks.push(Task::Val(v, false));
                            tasks.push(Task::Text(", "));
                        }
                    }
                    continue;
                }
                Task::ListRest(c) => {
                    let v = self.print_need(c, &mut tasks)?;
                    self.heap.release(c);
                    if let Value::Con(k, b) = &v
                        && *k == bi.cons
                    {
                        let f = self.heap.block(*b).to_vec();
                        for &x in &f {
                            self.heap.retain(x);
                        }
                        tasks.push(Task::Release(v));
                        tasks.push(Task::ListRest(f[1]));
                        tasks.push(Task::Entry(f[0], false));
                        tasks.push(Task::Text(", "));
                        continue;
                    }
                    self.heap.release_value(v);
                    continue;
                }
            };
            match &v {
                Value::Int(n) => {
                    if atom && *n < 0 {
                        let _ = write!(out, "({n})");
                    } else {
                        let _ = write!(out, "{n}");
                    }
                }
                Value::Float(x) => {
                    let s = prim::float::show(*x);
                    if atom && s.starts_with('-') {
                        let _ = write!(out, "({s})");
                    } else {
                        out.push_str(&s);
                    }
                }
                Value::Str(s) => quote(s, &mut out),
                Value::Con(k, b) => {
                    let fields = self.heap.block(*b).to_vec();
                    for &x in &fields {
                        self.heap.retain(x);
                    }
                    let k = *k;
                    tasks.push(Task::Release(v.clone()));
                    if k == bi.unit_con {
                        out.push_str("()");
                    } else if k == bi.mk_pair && fields.len() == 2 {
                        out.push('(');
                        tasks.push(Task::Text(")"));
                        tasks.push(Task::PairRest(fields[1]));
                        tasks.push(Task::Entry(fields[0], false));
                    } else if k == bi.cons && fields.len() == 2 {
                        out.push('[');
                        tasks.push(Task::Text("]"));
                        tasks.push(Task::ListRest(fields[1]));
                        tasks.push(Task::Entry(fields[0], false));
                    } else if k == bi.nil {
                        out.push_str("[]");
                    } else if fields.is_empty() {
                        out.push_str(self.con_name(k));
                    } else {
                        if atom {
                            out.push('(');
                            tasks.push(Task::Text(")"));
                        }
                        out.push_str(self.con_name(k));
                        for &x in fields.iter().rev() {
                            tasks.push(Task::Entry(x, true));
                            tasks.push(Task::Text(" "));
                        }
                    }
                    continue;
                }
                Value::Fun(..) => {
                    let f = self.show_function(&v);
                    if atom {
                        let _ = write!(out, "({f})");
                    } else {
                        out.push_str(&f);
                    }
                }
                Value::Partial(h, b) => {
                    let name = match h {
                        PartialHead::Prim(p, _) => p.name().to_string(),
                        PartialHead::Con(c) => self.con_name(*c).to_string(),
                        PartialHead::Data(d) => self.prog.data(*d).name.to_string(),
                        PartialHead::Open(_) => "?".to_string(),
                        PartialHead::Extern(e, _) => self.prog.external(*e).name.to_string(),
                    };
                    let args = self.heap.block(*b).to_vec();
                    if args.is_empty() {
                        out.push_str(&name);
                    } else {
                        for &x in &args {
                            self.heap.retain(x);
                        }
                        tasks.push(Task::Release(v.clone()));
                        if atom {
                            out.push('(');
                            tasks.push(Task::Text(")"));
                        }
                        out.push_str(&name);
                        for &x in args.iter().rev() {
                            tasks.push(Task::Entry(x, true));
                            tasks.push(Task::Text(" "));
                        }
                        continue;
                    }
                }
                Value::Universe(0) => out.push_str("Type"),
                Value::Universe(n) => {
                    let _ = write!(out, "Type {n}");
                }
                Value::PrimType(p) => out.push_str(match p {
                    PrimType::Int => "Int",
                    PrimType::Float => "Float",
                    PrimType::String => "String",
                }),
                Value::Pi(..) => out.push_str(&self.show_function(&v)),
                Value::Unknown | Value::Stuck(..) => out.push('_'),
            }
            self.heap.release_value(v);
        }
        let _ = NIL;
        Ok(out)
    }

    /// A function value as Spindle source (its lambda, read back in its context).
    fn show_function(&mut self, v: &Value<'p>) -> String {
        match v {
            Value::Fun(t, env) | Value::Pi(t, env) => self.show_closure(t, *env),
            _ => String::new(),
        }
    }
}

/// A printed part of a normal form, before it is placed in its context.
#[derive(Debug)]
pub enum Doc {
    /// Text that never needs parentheses.
    Atom(String),
    /// Text that needs parentheses as an argument (an application, a negative number).
    Compound(String),
    /// A tuple's components, in order.
    Tuple(Vec<String>),
    /// A list's elements, last first (so that consing is a push).
    List(Vec<String>),
    /// A constructor with the fields seen so far.
    Con(ConId, Vec<Doc>),
}

/// Printing as a fold over a normal form stack (see [`nf`](super::nf)): the head gives
/// the constructor or atom, each pending application a field.
pub struct PrintFold<'p> {
    prog: &'p crate::core::program::Program,
}

impl<'p> PrintFold<'p> {
    /// A printer for normal forms of `prog`'s values.
    pub fn new(prog: &'p crate::core::program::Program) -> PrintFold<'p> {
        PrintFold { prog }
    }

    /// Completes a part: constructors take their final shape.
    fn finish(&self, d: Doc) -> Doc {
        let bi = &self.prog.builtins;
        match d {
            Doc::Con(c, mut args) => {
                if c == bi.unit_con {
                    Doc::Atom("()".into())
                } else if c == bi.nil {
                    Doc::List(Vec::new())
                } else if c == bi.mk_pair && args.len() == 2 {
                    let rest = args.pop().expect("second");
                    let first = self.text(args.pop().expect("first"), false);
                    match self.finish(rest) {
                        Doc::Tuple(mut items) => {
                            items.insert(0, first);
                            Doc::Tuple(items)
                        }
                        other => Doc::Tuple(vec![first, self.text(other, false)]),
                    }
                } else if c == bi.cons && args.len() == 2 {
                    let rest = args.pop().expect("tail");
                    let head = self.text(args.pop().expect("head"), false);
                    match self.finish(rest) {
                        Doc::List(mut items) => {
                            items.push(head);
                            Doc::List(items)
                        }
                        other => Doc::Compound(format!("Cons {head} {}", self.text(other, true))),
                    }
                } else if args.is_empty() {
                    Doc::Atom(self.prog.con(c).name.to_string())
                } else {
                    let mut s = self.prog.con(c).name.to_string();
                    for a in args {
                        s.push(' ');
                        s.push_str(&self.text(a, true));
                    }
                    Doc::Compound(s)
                }
            }
            other => other,
        }
    }

    /// The text of a part; `atom` asks for parentheses around compound text.
    pub fn text(&self, d: Doc, atom: bool) -> String {
        match self.finish(d) {
            Doc::Atom(s) => s,
            Doc::Compound(s) => {
                if atom {
                    format!("({s})")
                } else {
                    s
                }
            }
            Doc::Tuple(items) => format!("({})", items.join(", ")),
            Doc::List(mut items) => {
                items.reverse();
                format!("[{}]", items.join(", "))
            }
            Doc::Con(..) => unreachable!("finished"),
        }
    }
}

impl<'p> super::unwind::Fold<'p> for PrintFold<'p> {
    type Out = Doc;

    fn val(&mut self, heap: &mut super::heap::Heap<'p>, s: u32, _scrut: Option<Doc>) -> Doc {
        use super::stack::Head;
        match &heap.stacks.get(s).head {
            Head::Con(c) => Doc::Con(*c, Vec::new()),
            Head::Value(Value::Int(n)) if *n < 0 => Doc::Compound(n.to_string()),
            Head::Value(Value::Int(n)) => Doc::Atom(n.to_string()),
            Head::Value(Value::Float(x)) => {
                let s = prim::float::show(*x);
                if s.starts_with('-') {
                    Doc::Compound(s)
                } else {
                    Doc::Atom(s)
                }
            }
            Head::Value(Value::Str(s)) => {
                let mut out = String::new();
                quote(s, &mut out);
                Doc::Atom(out)
            }
            Head::Value(Value::Con(c, _)) => Doc::Con(*c, Vec::new()),
            _ => Doc::Atom("_".into()),
        }
    }

    fn let_l(
        &mut self,
        _h: &mut super::heap::Heap<'p>,
        _c: u32,
        _e: super::unwind::Entry<Doc>,
        body: Doc,
    ) -> Doc {
        body
    }

    fn let_a(
        &mut self,
        _h: &mut super::heap::Heap<'p>,
        _c: u32,
        fun: Doc,
        _arg: Option<Doc>,
    ) -> Doc {
        fun
    }

    fn apply(
        &mut self,
        _h: &mut super::heap::Heap<'p>,
        fun: Doc,
        arg: Doc,
        _pl: crate::core::term::Plicity,
    ) -> Doc {
        match fun {
            Doc::Con(c, mut args) => {
                // Each field is finished as it is consumed, so finishing never goes
                // deeper than one level (a long list prints without recursion).
                args.push(self.finish(arg));
                Doc::Con(c, args)
            }
            other => other,
        }
    }
}

/// Prints a normal form stack (a `String` at the top prints raw, as `main` does).
pub fn print_nf<'p>(
    heap: &mut super::heap::Heap<'p>,
    prog: &'p crate::core::program::Program,
    s: u32,
) -> String {
    if let super::stack::Head::Value(Value::Str(text)) = &heap.stacks.get(s).head {
        return text.to_string();
    }
    let mut f = PrintFold::new(prog);
    let d = super::unwind::unwind(heap, &mut f, s);
    f.text(d, false)
}
