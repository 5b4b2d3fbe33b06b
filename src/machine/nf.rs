//! `need` as a fold: a stack needed all the way down (LANGUAGE.md section 6: `main`
//! is evaluated to full normal form). The fold's `val` evaluates a stack's head to weak
//! head normal form with the evaluation loop ([`need`](super::need), Rogers' Fig. 1)
//! and rewrites the stack into its normal-form shape: a constructor head whose fields
//! are its pending applications (each a sub-stack naming the field's entry), or an
//! evaluated atom. The generic [`unwind`] then walks those pending applications and
//! the fold needs each in turn, so normalization is iterative however deep the data.
//! Right-hand sides and scrutinees are not normalized (they are needed only as far as
//! evaluation needs them).

use super::Machine;
use super::arena::NIL;
use super::error::{Result, RuntimeError};
use super::heap::{Cell, Heap};
use super::need::Ctl;
use super::stack::{Head, Stack};
use super::unwind::{Entry, Fold, unwind};
use super::value::{CtxtId, StackId, Value};
use crate::core::term::Plicity;

/// The `need` fold: evaluates every stack it passes to normal form.
pub struct NeedFold<'m, 'p> {
    machine: &'m mut Machine<'p>,
    error: Option<RuntimeError>,
}

impl<'p> Fold<'p> for NeedFold<'_, 'p> {
    type Out = ();
    const RHS: bool = false;
    const SCRUT: bool = false;

    fn val(&mut self, heap: &mut Heap<'p>, s: StackId, _scrut: Option<()>) {
        // Move the stack's content to a record the evaluation loop consumes.
        let st = heap.stacks.get_mut(s);
        let head = std::mem::replace(&mut st.head, Head::Free);
        let (ctx, apps, end) = (st.ctx, st.apps, st.end);
        st.ctx = NIL;
        st.apps = NIL;
        let inner = heap.stacks.alloc(Stack {
            head,
            ctx,
            end,
            apps,
            sib: NIL,
            plicity: Plicity::Explicit,
        });
        let v = if self.error.is_some() {
            heap.release_stack(inner);
            Value::Unknown
        } else {
            // The loop runs on the machine's heap: lend it this one.
            std::mem::swap(heap, &mut self.machine.heap);
            let r = self.machine.run(Ctl::Stack(inner));
            std::mem::swap(heap, &mut self.machine.heap);
            r.unwrap_or_else(|e| {
                self.error = Some(e);
                Value::Unknown
            })
        };
        // The normal-form shape: no context of its own.
        heap.retain(end);
        let head = match v {
            Value::Con(c, b) => {
                let fields: Vec<CtxtId> = heap.block(b).to_vec();
                let mut apps = NIL;
                for &f in fields.iter().rev() {
                    heap.retain(f);
                    heap.retain(end);
                    let x = heap.new_ctxt(Cell::Ind(f), end, None);
                    heap.retain(x);
                    let child = heap.stacks.alloc(Stack {
                        head: Head::Var(x),
                        ctx: x,
                        end,
                        apps: NIL,
                        sib: apps,
                        plicity: Plicity::Explicit,
                    });
                    apps = child;
                }
                heap.release_block(b);
                heap.stacks.get_mut(s).apps = apps;
                Head::Con(c)
            }
            other => Head::Value(other),
        };
        let st = heap.stacks.get_mut(s);
        st.head = head;
        st.ctx = end;
    }

    fn let_l(&mut self, _heap: &mut Heap<'p>, _c: CtxtId, _entry: Entry<()>, _body: ()) {}

    fn let_a(&mut self, _heap: &mut Heap<'p>, _c: CtxtId, _fun: (), _arg: Option<()>) {}

    fn apply(&mut self, _heap: &mut Heap<'p>, _fun: (), _arg: (), _plicity: Plicity) {}
}

impl<'p> Machine<'p> {
    /// Evaluates a wound stack (owned) to weak head normal form.
    pub fn whnf_stack(&mut self, s: StackId) -> Result<Value<'p>> {
        self.run(Ctl::Stack(s))
    }

    /// Needs a wound stack (owned by the caller, rewritten in place) to full normal
    /// form, with the `need` fold.
    pub fn need_stack(&mut self, s: StackId) -> Result<()> {
        let mut heap = std::mem::take(&mut self.heap);
        let mut fold = NeedFold {
            machine: self,
            error: None,
        };
        unwind(&mut heap, &mut fold, s);
        let error = fold.error.take();
        self.heap = heap;
        match error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Needs `v` to full normal form and returns it as a stack (owned by the caller).
    pub fn normal_form(&mut self, v: Value<'p>) -> Result<StackId> {
        let root = self.heap.stacks.alloc(Stack {
            head: Head::Value(v),
            ctx: NIL,
            end: NIL,
            apps: NIL,
            sib: NIL,
            plicity: Plicity::Explicit,
        });
        self.need_stack(root)?;
        Ok(root)
    }
}
