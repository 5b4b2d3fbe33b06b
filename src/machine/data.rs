//! Evaluated data seen by the primitives that build and take apart values without
//! evaluating anything: the `Char` primitives ([`super::chars`]), the native maps and
//! sorts ([`super::collections`]), and the small conversions they share (a list's
//! spine, a new list, `Just`/`Nothing`, `True`/`False`). They are given this view
//! (`Machine::data`): the heap, the program's constructors and whether the
//! native paths are on; no stacks, no code, no scheduler.

use super::value::Val;
use crate::core::program::Program;
use crate::machine::heap::Heap;

/// The heap and the program's constructors, for primitives on evaluated data.
pub(crate) struct Data<'a, 'p> {
    /// The program (its builtin constructors, its collections).
    pub prog: &'p Program,
    /// The heap the data lives in.
    pub heap: &'a mut Heap,
    /// Whether the native maps and sorts are on (the `native` tier).
    pub native: bool,
}

impl Data<'_, '_> {
    /// The elements of an evaluated list spine (not counted), or `None`.
    pub(crate) fn spine_of(&self, list: Val) -> Option<Vec<Val>> {
        let bi = self.prog.builtins;
        let mut xs = Vec::new();
        let mut cur = list;
        loop {
            match self.heap.forced(cur) {
                Val::Con(r) if self.heap.cons.get(r).con == bi.cons => {
                    let f = self.heap.fields(r);
                    xs.push(f[0]);
                    cur = f[1];
                }
                Val::Atom(k) if k == bi.nil => return Some(xs),
                _ => return None,
            }
        }
    }

    /// A new list of these words (their references move in).
    pub(crate) fn list_of(&mut self, xs: &[Val]) -> Val {
        let bi = self.prog.builtins;
        let mut acc = Val::Atom(bi.nil);
        for &x in xs.iter().rev() {
            acc = self.heap.con(bi.cons, &[x, acc]);
        }
        acc
    }

    /// The constructor of an evaluated data value.
    pub(crate) fn con_of(&self, v: Val) -> crate::core::term::ConId {
        match v {
            Val::Atom(k) => k,
            Val::Con(r) => self.heap.cons.get(r).con,
            _ => unreachable!("con_of() on {v:?}"),
        }
    }

    /// `Just v` or `Nothing`.
    pub(crate) fn maybe(&mut self, v: Option<Val>) -> Val {
        let bi = self.prog.builtins;
        match v {
            Some(v) => self.heap.con(bi.just, &[v]),
            None => Val::Atom(bi.nothing),
        }
    }

    /// The strings of a list of strings in normal form (borrowed), or `None`.
    pub(crate) fn strings_of(&self, v: Val) -> Option<Vec<String>> {
        self.spine_of(v)?
            .into_iter()
            .map(|x| match self.heap.forced(x) {
                Val::Str(s) => Some(self.heap.text(s).to_string()),
                _ => None,
            })
            .collect()
    }

    /// `True` or `False`.
    pub(crate) fn bool_val(&self, b: bool) -> Val {
        let bi = &self.prog.builtins;
        Val::Atom(if b { bi.true_ } else { bi.false_ })
    }
}
