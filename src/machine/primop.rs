//! The machine's side of primitives: running a primitive on its evaluated arguments
//! (the arithmetic, comparison, float and string families live in [`crate::prim`]),
//! building the data values some of them return, the lazy list case of `++`, and
//! structural equality as frames (a comparison of deep data never recurses natively).

use super::Machine;
use super::arena::NIL;
use super::error::{Result, RuntimeError};
use super::frame::{Arg, Frame};
use super::heap::Cell;
use super::need::Ctl;
use super::value::{BlockId, PartialHead, Value};
use crate::core::term::Plicity;
use crate::prim::{self, Prim};
use crate::syntax::span::Span;
use std::rc::Rc;

/// The outcome of comparing two weak head normal forms.
enum Cmp {
    /// Different.
    Diff,
    /// Equal.
    Same,
    /// Equal heads: the fields must be compared.
    Fields(BlockId, BlockId),
}

impl<'p> Machine<'p> {
    /// `True` or `False`.
    #[inline]
    pub(crate) fn bool_value(&self, b: bool) -> Value<'p> {
        let bi = &self.prog.builtins;
        Value::Con(if b { bi.true_ } else { bi.false_ }, NIL)
    }

    /// A `List String` built from Rust strings.
    fn str_list(&mut self, items: Vec<String>) -> Value<'p> {
        let bi = self.prog.builtins;
        let mut list = Value::Con(bi.nil, NIL);
        for item in items.into_iter().rev() {
            let tail = self.heap.new_ctxt(Cell::Value(list), NIL, None);
            let head = self
                .heap
                .new_ctxt(Cell::Value(Value::Str(item.into())), NIL, None);
            let b = self.heap.new_block(&[head, tail]);
            list = Value::Con(bi.cons, b);
        }
        list
    }

    /// `Just v` or `Nothing`.
    fn maybe(&mut self, v: Option<Value<'p>>) -> Value<'p> {
        let bi = self.prog.builtins;
        match v {
            None => Value::Con(bi.nothing, NIL),
            Some(v) => {
                let c = self.heap.new_ctxt(Cell::Value(v), NIL, None);
                let b = self.heap.new_block(&[c]);
                Value::Con(bi.just, b)
            }
        }
    }

    fn mismatch(&mut self, p: Prim, span: Span, vals: &[Value<'p>]) -> RuntimeError {
        let kinds: Vec<&str> = vals.iter().map(Value::kind).collect();
        RuntimeError::at(
            format!(
                "`{}` cannot be applied to {}",
                p.name(),
                kinds.join(" and ")
            ),
            span,
        )
    }

    /// Runs a primitive whose strict arguments are on the value stack.
    pub(crate) fn prim_run(
        &mut self,
        p: Prim,
        span: Span,
        strict: usize,
        arity: usize,
    ) -> Result<Ctl<'p>> {
        use Value::{Float, Int, Str};
        let at = |m: &str| RuntimeError::at(m, span);
        if p == Prim::Concat && strict == 1 {
            let a = self.pvals.pop().expect("argument");
            return match a {
                Str(_) => {
                    // Strings: the second argument is needed too.
                    self.pvals.push(a);
                    self.frames.push(Frame::Prim {
                        prim: p,
                        span,
                        strict: 2,
                        got: 1,
                        arity: 2,
                    });
                    self.prim_next()
                }
                Value::Con(..) => {
                    // Lists: `xs ++ ys` is the prelude's `append xs ys` (lazy in xs).
                    let ys = self.pargs.pop().expect("argument");
                    let Some(append) = self.append else {
                        return Err(at("`++` on lists needs the prelude's `append`"));
                    };
                    self.frames.push(Frame::Arg(ys, Plicity::Explicit));
                    self.frames.push(Frame::Arg(Arg::Val(a), Plicity::Explicit));
                    Ok(self.enter_def(append))
                }
                other => {
                    let e = self.mismatch(p, span, std::slice::from_ref(&other));
                    self.heap.release_value(other);
                    Err(e)
                }
            };
        }
        if p == Prim::Seq {
            // The first argument is evaluated: continue with the second.
            let a = self.pvals.pop().expect("argument");
            self.heap.release_value(a);
            return Ok(self.pargs.pop().expect("argument").into_ctl());
        }
        debug_assert_eq!(strict, arity);
        let n = self.pvals.len() - arity;
        let mut vals: [Value<'p>; 3] = [Value::Unknown, Value::Unknown, Value::Unknown];
        for (i, v) in self.pvals.drain(n..).enumerate() {
            vals[i] = v;
        }
        let v = match (p, &vals[0], &vals[1], &vals[2]) {
            (Prim::Add | Prim::Sub | Prim::Mul | Prim::Div | Prim::Rem, Int(a), Int(b), _) => {
                Int(prim::arith::int(p, *a, *b).map_err(at)?)
            }
            (Prim::Add | Prim::Sub | Prim::Mul | Prim::Div | Prim::Rem, Float(a), Float(b), _) => {
                Float(prim::arith::float(p, *a, *b).expect("arithmetic"))
            }
            (Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge, Int(a), Int(b), _) => {
                self.bool_value(prim::compare::holds(p, a.partial_cmp(b)))
            }
            (Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge, Float(a), Float(b), _) => {
                self.bool_value(prim::compare::holds(p, a.partial_cmp(b)))
            }
            (Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge, Str(a), Str(b), _) => {
                self.bool_value(prim::compare::holds(p, a.partial_cmp(b)))
            }
            (Prim::Eq | Prim::Ne, _, _, _) => {
                let [a, b, _] = vals;
                return self.eq_start(a, b, p == Prim::Ne, span);
            }
            (Prim::Concat, Str(a), Str(b), _) => {
                let mut s = String::with_capacity(a.len() + b.len());
                s.push_str(a);
                s.push_str(b);
                Str(s.into())
            }
            (Prim::Error, Str(m), _, _) => return Err(at(m)),
            (Prim::IntToFloat, Int(a), _, _) => Float(*a as f64),
            (Prim::Sqrt, Float(a), _, _) => Float(a.sqrt()),
            (Prim::Floor | Prim::Ceil | Prim::Round, Float(a), _, _) => {
                let f: fn(f64) -> f64 = match p {
                    Prim::Floor => f64::floor,
                    Prim::Ceil => f64::ceil,
                    _ => f64::round,
                };
                Int(prim::float::to_int(*a, f).ok_or_else(|| at("float out of range for Int"))?)
            }
            (Prim::ShowInt, Int(a), _, _) => Str(a.to_string().into()),
            (Prim::ShowFloat, Float(a), _, _) => Str(prim::float::show(*a).into()),
            (Prim::ParseInt, Str(s), _, _) => {
                let r = prim::string::parse_int(s).map(Int);
                self.maybe(r)
            }
            (Prim::ParseFloat, Str(s), _, _) => {
                let r = prim::float::parse(s).map(Float);
                self.maybe(r)
            }
            (Prim::StrLength, Str(s), _, _) => Int(prim::string::length(s)),
            (Prim::Substring, Int(a), Int(b), Str(s)) => {
                Str(prim::string::substring(*a, *b, s).into())
            }
            (Prim::StartsWith, Str(a), Str(s), _) => self.bool_value(s.starts_with(&**a)),
            (Prim::EndsWith, Str(a), Str(s), _) => self.bool_value(s.ends_with(&**a)),
            (Prim::Contains, Str(a), Str(s), _) => self.bool_value(s.contains(&**a)),
            (Prim::Split, Str(sep), Str(s), _) => {
                let items = prim::string::split(sep, s);
                self.str_list(items)
            }
            (Prim::Trim, Str(s), _, _) => Str(Rc::from(s.trim())),
            (Prim::Words, Str(s), _, _) => {
                let items = prim::string::words(s);
                self.str_list(items)
            }
            (Prim::Lines, Str(s), _, _) => {
                let items = prim::string::lines(s);
                self.str_list(items)
            }
            (Prim::Join, Str(sep), Value::Con(..), _) => {
                let sep = sep.clone();
                let [_, list, _] = vals;
                return self.join_list(sep, String::new(), true, list);
            }
            // TODO(lead): wire the JSON primitives; until then they are a runtime error.
            // The arms, with the machine-independent side in crate::prim::json:
            //   (Prim::ParseJson, Str(s), _, _) => {
            //       let items = prim::json::tokens(s);
            //       self.str_list(items)
            //   }
            //   (Prim::JsonString, Str(s), _, _) => Str(prim::json::quote(s).into()),
            //   (Prim::JsonNumber, Float(x), _, _) => Str(prim::json::render_number(*x).into()),
            (Prim::ParseJson | Prim::JsonString | Prim::JsonNumber, _, _, _) => {
                for v in vals {
                    self.heap.release_value(v);
                }
                return Err(at(&format!(
                    "`{}` is not yet wired into the machine",
                    p.name()
                )));
            }
            _ => {
                let e = self.mismatch(p, span, &vals[..arity]);
                for v in vals {
                    self.heap.release_value(v);
                }
                return Err(e);
            }
        };
        for v in vals {
            self.heap.release_value(v);
        }
        Ok(Ctl::Ret(v))
    }

    /// Compares two heads; fields, when the heads agree, are left to the caller.
    fn cmp_heads(&self, a: &Value<'p>, b: &Value<'p>, span: Span) -> Result<Cmp> {
        use Value::*;
        let same = |x: bool| if x { Cmp::Same } else { Cmp::Diff };
        Ok(match (a, b) {
            (Int(x), Int(y)) => same(x == y),
            (Float(x), Float(y)) => same(x == y),
            (Str(x), Str(y)) => same(x == y),
            (Con(c, bx), Con(d, by)) => {
                if c != d {
                    Cmp::Diff
                } else if *bx == NIL {
                    Cmp::Same
                } else {
                    Cmp::Fields(*bx, *by)
                }
            }
            (Partial(PartialHead::Data(c), bx), Partial(PartialHead::Data(d), by)) => {
                if c != d || self.heap.block(*bx).len() != self.heap.block(*by).len() {
                    Cmp::Diff
                } else if *bx == NIL {
                    Cmp::Same
                } else {
                    Cmp::Fields(*bx, *by)
                }
            }
            (Universe(x), Universe(y)) => same(x == y),
            (PrimType(x), PrimType(y)) => same(x == y),
            (Fun(..) | Partial(..), _) | (_, Fun(..) | Partial(..)) => {
                return Err(RuntimeError::at("cannot compare functions", span));
            }
            _ => Cmp::Diff,
        })
    }

    /// Starts a structural comparison of two weak head normal forms.
    fn eq_start(
        &mut self,
        a: Value<'p>,
        b: Value<'p>,
        negate: bool,
        span: Span,
    ) -> Result<Ctl<'p>> {
        let cmp = self.cmp_heads(&a, &b, span);
        let base = self.eq_work.len() as u32;
        self.frames.push(Frame::Eq { base, negate, span });
        let r = self.eq_push(cmp, &a, &b);
        self.heap.release_value(a);
        self.heap.release_value(b);
        match r? {
            false => self.eq_finish(false),
            true => self.eq_next(),
        }
    }

    /// Pushes the field pairs of a comparison; `false` when the heads differ.
    fn eq_push(&mut self, cmp: Result<Cmp>, _a: &Value<'p>, _b: &Value<'p>) -> Result<bool> {
        match cmp? {
            Cmp::Diff => Ok(false),
            Cmp::Same => Ok(true),
            Cmp::Fields(x, y) => {
                let n = self.heap.block(x).len();
                for i in (0..n).rev() {
                    let (fx, fy) = (self.heap.block(x)[i], self.heap.block(y)[i]);
                    self.heap.retain(fx);
                    self.heap.retain(fy);
                    self.eq_work.push((fx, fy));
                }
                Ok(true)
            }
        }
    }

    /// Both sides of a pair are evaluated.
    pub(crate) fn eq_step(&mut self, left: Value<'p>, right: Value<'p>) -> Result<Ctl<'p>> {
        let Some(&Frame::Eq { span, .. }) = self.frames.last() else {
            unreachable!("eq_step() without an Eq frame")
        };
        let cmp = self.cmp_heads(&left, &right, span);
        let r = self.eq_push(cmp, &left, &right);
        self.heap.release_value(left);
        self.heap.release_value(right);
        match r? {
            false => self.eq_finish(false),
            true => self.eq_next(),
        }
    }

    /// Compares the next pair, or finishes with "equal".
    fn eq_next(&mut self) -> Result<Ctl<'p>> {
        let Some(&Frame::Eq { base, .. }) = self.frames.last() else {
            unreachable!("eq_next() without an Eq frame")
        };
        if self.eq_work.len() as u32 > base {
            let (x, y) = self.eq_work.pop().expect("pair");
            self.frames.push(Frame::EqLeft(y));
            Ok(Ctl::Enter(x))
        } else {
            self.eq_finish(true)
        }
    }

    /// Ends the comparison on top.
    fn eq_finish(&mut self, equal: bool) -> Result<Ctl<'p>> {
        let Some(Frame::Eq { base, negate, .. }) = self.frames.pop() else {
            unreachable!("eq_finish() without an Eq frame")
        };
        while self.eq_work.len() as u32 > base {
            let (x, y) = self.eq_work.pop().expect("pair");
            self.heap.release(x);
            self.heap.release(y);
        }
        Ok(Ctl::Ret(self.bool_value(equal != negate)))
    }

    /// `join`: the next cell of the list has been evaluated.
    pub(crate) fn join_list(
        &mut self,
        sep: Rc<str>,
        mut acc: String,
        first: bool,
        list: Value<'p>,
    ) -> Result<Ctl<'p>> {
        let bi = self.prog.builtins;
        match list {
            Value::Con(k, b) if k == bi.cons => {
                let (h, t) = (self.heap.block(b)[0], self.heap.block(b)[1]);
                self.heap.retain(h);
                self.heap.retain(t);
                self.heap.release_block(b);
                if !first {
                    acc.push_str(&sep);
                }
                self.frames.push(Frame::JoinList {
                    sep,
                    acc,
                    first: false,
                });
                self.frames.push(Frame::JoinElem(t));
                Ok(Ctl::Enter(h))
            }
            other => {
                self.heap.release_value(other);
                Ok(Ctl::Ret(Value::Str(acc.into())))
            }
        }
    }

    /// `join`: an element has been evaluated; on to the rest of the list.
    pub(crate) fn join_elem(&mut self, rest: u32, elem: Value<'p>) -> Result<Ctl<'p>> {
        if let (Value::Str(s), Some(Frame::JoinList { acc, .. })) = (&elem, self.frames.last_mut())
        {
            acc.push_str(s);
        }
        self.heap.release_value(elem);
        Ok(Ctl::Enter(rest))
    }
}
