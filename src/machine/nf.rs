//! Normal forms as stacks: a value needed all the way down becomes a wound stack whose
//! head is a constructor (or an atom, or a function) and whose pending applications are
//! its fields, themselves normal forms. This is Rogers' representation of data (a
//! constructor head with its arguments pending); the invariant checker, readback and
//! the census apply to it like to any stack. Built from an explicit worklist.

use super::Machine;
use super::arena::NIL;
use super::error::Result;
use super::need::Ctl;
use super::stack::{Head, Stack};
use super::value::{StackId, Value};
use crate::core::term::Plicity;

impl<'p> Machine<'p> {
    /// Evaluates a wound stack (owned) to weak head normal form.
    pub fn whnf_stack(&mut self, s: StackId) -> Result<Value<'p>> {
        self.run(Ctl::Stack(s))
    }

    /// Needs `v` to full normal form and returns it as a stack (owned by the caller).
    pub fn normal_form(&mut self, v: Value<'p>) -> Result<StackId> {
        let root = self.nf_record(Plicity::Explicit);
        let mut work: Vec<(StackId, Value<'p>)> = vec![(root, v)];
        while let Some((s, v)) = work.pop() {
            let head = match v {
                Value::Con(c, b) => {
                    let fields = self.heap.block(b).to_vec();
                    let mut apps = NIL;
                    let mut children = Vec::with_capacity(fields.len());
                    for _ in &fields {
                        children.push(self.nf_record(Plicity::Explicit));
                    }
                    // Innermost (first field) first in the list.
                    for &child in children.iter().rev() {
                        self.heap.stacks.get_mut(child).sib = apps;
                        apps = child;
                    }
                    self.heap.stacks.get_mut(s).apps = apps;
                    for (&f, &child) in fields.iter().zip(&children).rev() {
                        let fv = self.whnf_entry(f)?;
                        work.push((child, fv));
                    }
                    self.heap.release_block(b);
                    Head::Con(c)
                }
                other => Head::Value(other),
            };
            self.heap.stacks.get_mut(s).head = head;
        }
        Ok(root)
    }

    fn nf_record(&mut self, plicity: Plicity) -> StackId {
        self.heap.stacks.alloc(Stack {
            head: Head::Free,
            ctx: NIL,
            end: NIL,
            apps: NIL,
            sib: NIL,
            plicity,
        })
    }
}
