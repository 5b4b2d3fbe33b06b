//! Values in normal form as [`Plain`] data and back: the one form executors see
//! (LANGUAGE.md section 7). A call reached with its arguments in normal form goes to
//! the host as plain data ([`super::prims`] makes the request); the answer comes back
//! as a value.

use super::data::Data;
use super::value::Val;
use super::walk::Sight;
use crate::core::plain::Plain;
use crate::core::term::{ConId, DataId};
use std::borrow::Cow;

impl Sight<'_, '_> {
    /// A value in normal form (borrowed) as plain data.
    pub fn plain_of(&self, v: Val) -> Plain {
        let bi = self.prog.builtins;
        match self.heap.forced(v) {
            Val::Int(n) => Plain::Int(n),
            Val::Float(x) => Plain::Float(x),
            Val::Str(r) => Plain::Str(self.heap.text(r).to_string()),
            Val::Atom(c) if c == bi.nil => Plain::List(Vec::new()),
            Val::Atom(c) => Plain::Con(Cow::Owned(self.prog.con(c).name.to_string()), Vec::new()),
            Val::Con(r) if self.heap.cons.get(r).con == bi.cons => {
                let mut items = Vec::new();
                let mut cur = Val::Con(r);
                loop {
                    match self.heap.forced(cur) {
                        Val::Con(c) if self.heap.cons.get(c).con == bi.cons => {
                            let f = self.heap.fields(c);
                            items.push(self.plain_of(f[0]));
                            cur = f[1];
                        }
                        _ => break,
                    }
                }
                Plain::List(items)
            }
            Val::Con(r) => {
                let o = self.heap.cons.get(r);
                let name = self.prog.con(o.con).name.to_string();
                let fields = o
                    .fields
                    .get(&self.heap.words)
                    .iter()
                    .map(|&f| self.plain_of(f))
                    .collect();
                Plain::Con(Cow::Owned(name), fields)
            }
            other => Plain::Con(Cow::Owned(format!("<{}>", other.kind())), Vec::new()),
        }
    }
}

impl Data<'_, '_> {
    /// Plain data as a value (a new reference); constructors are found by name.
    pub fn value_of(&mut self, p: &Plain) -> Val {
        let bi = self.prog.builtins;
        match p {
            Plain::Int(n) => Val::Int(*n),
            Plain::Float(x) => Val::Float(*x),
            Plain::Str(s) => self.heap.string(s.as_str().into()),
            Plain::List(items) => {
                let mut acc = Val::Atom(bi.nil);
                for x in items.iter().rev() {
                    let h = self.value_of(x);
                    acc = self.heap.con(bi.cons, &[h, acc]);
                }
                acc
            }
            Plain::Con(name, fields) => {
                let Some(c) = self.con_named(name) else {
                    return Val::Erased;
                };
                if fields.is_empty() {
                    return Val::Atom(c);
                }
                let vals: Vec<Val> = fields.iter().map(|f| self.value_of(f)).collect();
                self.heap.con(c, &vals)
            }
        }
    }

    /// The constructor of the prelude (or program) with this name.
    pub(crate) fn con_named(&self, name: &str) -> Option<ConId> {
        for (d, data) in self.prog.datas.iter().enumerate() {
            for (i, c) in data.ctors.iter().enumerate() {
                if &*c.name == name {
                    return Some(ConId {
                        data: DataId(d as u32),
                        index: i as u32,
                    });
                }
            }
        }
        None
    }
}
