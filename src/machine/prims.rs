//! Primitives on evaluated arguments: binary operators, the `Strict` protocol that
//! evaluates the arguments of primitives and externals (to normal form where asked),
//! `++`, structural `==`, and normal-form walks.

use super::Machine;
use super::code::Site;
use super::code::{Args, CodeId};
use super::error::{ErrorKind, Result, RuntimeError};
use super::eval::{FloatResult, IntResult, float_op, int_op};
use super::frame::{Control, Frame, StrictOp};
use super::heap::{PapHead, ThunkState};
use super::host::CallRequest;
use super::value::{Ref, Val};
use crate::core::term::ExternId;
use crate::prim::{self, Prim};
use crate::syntax::span::Span;
use std::rc::Rc;

/// How two heads compare.
enum Cmp {
    Same,
    Diff,
    /// Same constructor: the fields (of two constructor values, or the arguments of
    /// two applied type constructors) decide.
    Fields(Val, Val),
}

impl<'p> Machine<'p> {
    // ----- binary operators -------------------------------------------------------

    /// A binary strict primitive on two codes in `env` (owned).
    #[inline]
    pub(crate) fn bin(
        &mut self,
        prim: Prim,
        a: CodeId,
        b: CodeId,
        span: Span,
        env: Ref,
    ) -> Result<Control> {
        if let Some(x) = self.imm(a, env, 6) {
            if let Some(y) = self.imm(b, env, 6) {
                self.heap.release_rec(env);
                return self.bin_run(prim, x, y, span);
            }
            self.push(Frame::BinR { prim, a: x, span });
            return Ok(Control::Eval(b, env));
        }
        self.heap.retain_rec(env);
        self.push(Frame::BinL { prim, b, env, span });
        Ok(Control::Eval(a, env))
    }

    /// Runs a binary primitive on two values (owned).
    #[inline]
    pub(crate) fn bin_run(&mut self, p: Prim, x: Val, y: Val, span: Span) -> Result<Control> {
        match (x, y) {
            (Val::Int(a), Val::Int(b)) => match int_op(p, a, b) {
                Some(IntResult::Int(n)) => Ok(Control::Ret(Val::Int(n))),
                Some(IntResult::Bool(t)) => Ok(Control::Ret(self.bool_val(t))),
                None => match prim::arith::int(p, a, b) {
                    Ok(n) => Ok(Control::Ret(Val::Int(n))),
                    Err(e) => Err(RuntimeError::at(
                        match e {
                            prim::arith::ArithError::DivisionByZero => ErrorKind::DivisionByZero,
                            prim::arith::ArithError::Overflow => ErrorKind::Overflow,
                            prim::arith::ArithError::NotArithmetic => ErrorKind::Internal,
                        },
                        e.message(),
                        span,
                    )),
                },
            },
            (Val::Float(a), Val::Float(b)) => match float_op(p, a, b) {
                Some(FloatResult::Float(r)) => Ok(Control::Ret(Val::Float(r))),
                Some(FloatResult::Bool(t)) => Ok(Control::Ret(self.bool_val(t))),
                None => Err(self.mismatch(p, span, &[x, y])),
            },
            (Val::Str(a), Val::Str(b)) if prim::compare::is_ordering(p) => {
                let o = self.heap.text(a).as_ref().cmp(self.heap.text(b).as_ref());
                self.heap.release(x);
                self.heap.release(y);
                Ok(Control::Ret(
                    self.bool_val(prim::compare::holds(p, Some(o))),
                ))
            }
            (Val::Char(a), Val::Char(b)) if prim::compare::is_ordering(p) => Ok(Control::Ret(
                self.bool_val(prim::compare::holds(p, Some(a.cmp(&b)))),
            )),
            _ if matches!(p, Prim::Eq | Prim::Ne) => self.eq_start(x, y, p == Prim::Ne, span),
            _ => {
                let e = self.mismatch(p, span, &[x, y]);
                self.heap.release(x);
                self.heap.release(y);
                Err(e)
            }
        }
    }

    /// The error for a primitive applied to values of the wrong kinds.
    fn mismatch(&self, p: Prim, span: Span, vals: &[Val]) -> RuntimeError {
        mismatch_error(p, span, vals)
    }

    // ----- strict arguments -------------------------------------------------------

    /// A primitive or external with argument codes in `env` (owned): the arguments
    /// become words, then are evaluated.
    pub(crate) fn strict_code(
        &mut self,
        op: StrictOp,
        args: Args,
        env: Ref,
        nf: bool,
    ) -> Result<Control> {
        if let StrictOp::Prim(Prim::Concat, span) = op
            && !matches!(self.stacks.frames.last(), Some(Frame::Stream))
        {
            let codes = self.code.args(args);
            let (a, b) = (codes[0], codes[1]);
            let bv = self.mkarg(b, env);
            self.push(Frame::ConcatL { b: bv, span });
            return Ok(Control::Eval(a, env));
        }
        let mut vals = Vec::with_capacity(args.len as usize);
        for i in 0..args.len {
            let a = self.code.args[(args.start + i) as usize];
            vals.push(self.mkarg(a, env));
        }
        self.heap.release_rec(env);
        self.strict_vals(op, &vals, nf)
    }

    /// An operation with its argument words (owned): evaluates them in order (to
    /// normal form when `nf`), then runs it.
    pub(crate) fn strict_vals(&mut self, op: StrictOp, args: &[Val], nf: bool) -> Result<Control> {
        if let StrictOp::Prim(p @ (Prim::Join | Prim::Concat), span) = op
            && matches!(self.stacks.frames.last(), Some(Frame::Stream))
        {
            // The printer streams this string: hand its pieces back.
            return Ok(Control::Ret(self.heap.pap(PapHead::Prim(p, span), 2, args)));
        }
        if let StrictOp::Prim(Prim::Concat, span) = op {
            self.push(Frame::ConcatL { b: args[1], span });
            return Ok(self.need(args[0]));
        }
        match op {
            // `prim_catch x`: a `try` frame below the walk of `x` to normal form.
            StrictOp::Prim(Prim::Catch, _) => {
                self.push(Frame::Try);
                return self.strict_vals_on(op, &args[..1], true);
            }
            // `prim_after a b` and `prim_trace msg x`: the second argument waits in an
            // `After` frame while the first is evaluated.
            // `prim_reading files x`: the list in normal form, then `x` under a
            // `Declare` frame.
            StrictOp::Prim(Prim::Reading | Prim::Writing, _) => {
                self.push(Frame::After(args[1]));
                return self.strict_vals_on(op, &args[..1], true);
            }
            StrictOp::Prim(p @ (Prim::After | Prim::Trace), _) => {
                self.push(Frame::After(args[1]));
                return self.strict_vals_on(op, &args[..1], p == Prim::After);
            }
            _ => {}
        }
        self.strict_vals_on(op, args, nf)
    }

    /// Evaluates the argument words (owned) of an operation, then runs it.
    fn strict_vals_on(&mut self, op: StrictOp, args: &[Val], nf: bool) -> Result<Control> {
        let n = args.len() as u8;
        for &a in args.iter().rev() {
            self.stacks.pending.push(a);
        }
        self.push(Frame::Strict {
            op,
            n,
            done: 0,
            nf: nf || matches!(op, StrictOp::Extern(..)),
        });
        self.strict_next()
    }

    /// The next argument of the `Strict` frame on top, or the operation itself.
    fn strict_next(&mut self) -> Result<Control> {
        loop {
            let Some(&Frame::Strict { op, n, done, nf }) = self.stacks.frames.last() else {
                unreachable!("strict_next() without a Strict frame")
            };
            if done == n {
                self.stacks.frames.pop();
                let start = self.stacks.vals.len() - n as usize;
                let args: Vec<Val> = self.stacks.vals.drain(start..).collect();
                return self.run_op(op, args);
            }
            let a = self.stacks.pending.pop().expect("pending argument");
            let a = self.settle(a);
            // `join`'s separator and the numbers externals take need no walk; other
            // arguments of a normal-form operation must be whole.
            let whole = !nf || self.is_whole(a);
            match a {
                Val::Thunk(t) => return Ok(Control::Force(t)),
                v if whole => {
                    self.stacks.vals.push(v);
                    if let Some(Frame::Strict { done, .. }) = self.stacks.frames.last_mut() {
                        *done += 1;
                    }
                }
                v => return self.deep_start(v),
            }
        }
    }

    /// An argument of the `Strict` frame on top has been evaluated.
    pub(crate) fn strict_value(&mut self, v: Val) -> Result<Control> {
        let Some(&Frame::Strict { nf, .. }) = self.stacks.frames.last() else {
            unreachable!()
        };
        if nf && !self.is_whole(v) {
            return self.deep_start(v);
        }
        self.stacks.vals.push(v);
        if let Some(Frame::Strict { done, .. }) = self.stacks.frames.last_mut() {
            *done += 1;
        }
        self.strict_next()
    }

    /// An evaluated thunk becomes its value (the reference moves).
    #[inline]
    pub(crate) fn settle(&mut self, v: Val) -> Val {
        if let Val::Thunk(t) = v
            && let ThunkState::Done(x) = self.heap.thunks.get(t).state
        {
            self.heap.retain(x);
            self.heap.release(v);
            return x;
        }
        v
    }

    /// Whether a value is in normal form with every part evaluated (a walk that
    /// stops at the first thunk not evaluated).
    pub(crate) fn is_whole(&self, v: Val) -> bool {
        let mut work = vec![v];
        while let Some(w) = work.pop() {
            match self.heap.forced(w) {
                Val::Thunk(_) => return false,
                Val::Con(r) => work.extend_from_slice(self.heap.fields(r)),
                _ => {}
            }
        }
        true
    }

    /// The numbers of a list of `Int`s in normal form, or `None` when it is not one.
    fn ints_of(&self, list: Val) -> Option<Vec<i64>> {
        let cons = self.prog.builtins.cons;
        let mut xs = Vec::new();
        let mut cur = list;
        loop {
            match self.heap.forced(cur) {
                Val::Con(r) if self.heap.cons.get(r).con == cons => {
                    let f = self.heap.fields(r);
                    let Val::Int(n) = self.heap.forced(f[0]) else {
                        return None;
                    };
                    xs.push(n);
                    cur = f[1];
                }
                Val::Atom(k) if k == self.prog.builtins.nil => return Some(xs),
                _ => return None,
            }
        }
    }

    /// A new list of `Int`s.
    fn int_list(&mut self, xs: &[i64]) -> Val {
        let bi = self.prog.builtins;
        let mut acc = Val::Atom(bi.nil);
        for &n in xs.iter().rev() {
            acc = self.heap.con(bi.cons, &[Val::Int(n), acc]);
        }
        acc
    }

    /// Runs an operation on its evaluated arguments (owned).
    fn run_op(&mut self, op: StrictOp, args: Vec<Val>) -> Result<Control> {
        match op {
            StrictOp::Prim(Prim::SortInts, span) => {
                // The input list is let go before the sorted one is built, so that
                // the two are never whole at once (peak memory: one list, not two).
                let Some(mut xs) = self.ints_of(args[0]) else {
                    let e = self.mismatch(Prim::SortInts, span, &args);
                    self.release_all(&args);
                    return Err(e);
                };
                self.release_all(&args);
                xs.sort_unstable();
                Ok(Control::Ret(self.int_list(&xs)))
            }
            // Evaluated whole: the native sort cannot meet a part not evaluated.
            StrictOp::Prim(Prim::SortPrims, _) => Ok(self.sort_prims_owned(args[0], args[1])),
            StrictOp::Prim(p, span) => {
                let r = self.prim_run(p, span, &args);
                for a in args {
                    self.heap.release(a);
                }
                r
            }
            StrictOp::Extern(e, site) => self.extern_run(e, site, args),
        }
    }

    /// A primitive other than the binary operators, on evaluated arguments
    /// (borrowed).
    pub(crate) fn prim_run(&mut self, p: Prim, span: Span, args: &[Val]) -> Result<Control> {
        let text = |m: &Self, i: usize| -> Option<Rc<str>> {
            match args.get(i) {
                Some(Val::Str(r)) => Some(m.heap.text(*r).clone()),
                _ => None,
            }
        };
        let int = |i: usize| -> Option<i64> {
            match args.get(i) {
                Some(Val::Int(n)) => Some(*n),
                _ => None,
            }
        };
        let float = |i: usize| -> Option<f64> {
            match args.get(i) {
                Some(Val::Float(x)) => Some(*x),
                _ => None,
            }
        };
        let bad = |m: &Self| m.mismatch(p, span, args);
        let v = match p {
            Prim::Add
            | Prim::Sub
            | Prim::Mul
            | Prim::Div
            | Prim::Rem
            | Prim::Lt
            | Prim::Le
            | Prim::Gt
            | Prim::Ge
            | Prim::Eq
            | Prim::Ne => {
                let (x, y) = (args[0], args[1]);
                self.heap.retain(x);
                self.heap.retain(y);
                return self.bin_run(p, x, y, span);
            }
            Prim::Error => {
                let m = text(self, 0).ok_or_else(|| bad(self))?;
                return Err(RuntimeError::at(ErrorKind::User, m.to_string(), span));
            }
            Prim::IntToFloat => Val::Float(int(0).ok_or_else(|| bad(self))? as f64),
            Prim::Sqrt => Val::Float(float(0).ok_or_else(|| bad(self))?.sqrt()),
            Prim::Floor | Prim::Ceil | Prim::Round => {
                let x = float(0).ok_or_else(|| bad(self))?;
                let f: fn(f64) -> f64 = match p {
                    Prim::Floor => f64::floor,
                    Prim::Ceil => f64::ceil,
                    _ => f64::round,
                };
                Val::Int(prim::float::to_int(x, f).ok_or_else(|| {
                    RuntimeError::at(ErrorKind::Overflow, "float out of range for Int", span)
                })?)
            }
            Prim::ShowInt => {
                let n = int(0).ok_or_else(|| bad(self))?;
                self.heap.string(n.to_string().into())
            }
            Prim::ShowFloat => {
                let x = float(0).ok_or_else(|| bad(self))?;
                self.heap.string(prim::float::show(x).into())
            }
            Prim::ParseInt => {
                let s = text(self, 0).ok_or_else(|| bad(self))?;
                let r = prim::string::parse_int(&s).map(Val::Int);
                self.data().maybe(r)
            }
            Prim::ParseFloat => {
                let s = text(self, 0).ok_or_else(|| bad(self))?;
                let r = prim::float::parse(&s).map(Val::Float);
                self.data().maybe(r)
            }
            Prim::StrLength => Val::Int(prim::string::length(
                &text(self, 0).ok_or_else(|| bad(self))?,
            )),
            Prim::Substring => {
                let (a, b, s) = (int(0), int(1), text(self, 2));
                let (Some(a), Some(b), Some(s)) = (a, b, s) else {
                    return Err(bad(self));
                };
                self.heap.string(prim::string::substring(a, b, &s).into())
            }
            Prim::StartsWith | Prim::EndsWith | Prim::Contains => {
                let (Some(a), Some(s)) = (text(self, 0), text(self, 1)) else {
                    return Err(bad(self));
                };
                self.bool_val(match p {
                    Prim::StartsWith => s.starts_with(&*a),
                    Prim::EndsWith => s.ends_with(&*a),
                    _ => s.contains(&*a),
                })
            }
            Prim::Split => {
                let (Some(sep), Some(s)) = (text(self, 0), text(self, 1)) else {
                    return Err(bad(self));
                };
                self.str_list(prim::string::split(&sep, &s))
            }
            Prim::Trim => {
                let s = text(self, 0).ok_or_else(|| bad(self))?;
                self.heap.string(Rc::from(s.trim()))
            }
            Prim::Words => {
                let s = text(self, 0).ok_or_else(|| bad(self))?;
                self.str_list(prim::string::words(&s))
            }
            Prim::Lines => {
                let s = text(self, 0).ok_or_else(|| bad(self))?;
                self.str_list(prim::string::lines(&s))
            }
            Prim::Join => {
                let sep = text(self, 0).ok_or_else(|| bad(self))?;
                let items = self.data().strings_of(args[1]).ok_or_else(|| bad(self))?;
                let size = items.iter().map(|s| s.len() + sep.len()).sum::<usize>();
                self.check_memory(size)?;
                self.heap.string(items.join(&*sep).into())
            }
            Prim::SortInts => unreachable!("run_op sorts, releasing the input first"),
            Prim::ParseJson => {
                let s = text(self, 0).ok_or_else(|| bad(self))?;
                self.str_list(prim::json::tokens(&s))
            }
            Prim::JsonString => {
                let s = text(self, 0).ok_or_else(|| bad(self))?;
                self.heap.string(prim::json::quote(&s).into())
            }
            Prim::ShowString => {
                let s = text(self, 0).ok_or_else(|| bad(self))?;
                let mut out = String::with_capacity(s.len() + 2);
                out.push('"');
                crate::core::pretty::escape_into(&mut out, &s);
                out.push('"');
                self.heap.string(out.into())
            }
            Prim::Pow => match (args.first(), args.get(1)) {
                (Some(Val::Int(a)), Some(Val::Int(b))) => match prim::arith::pow(*a, *b) {
                    Ok(n) => Val::Int(n),
                    Err(m) => {
                        let kind = if m.contains("overflow") {
                            ErrorKind::Overflow
                        } else {
                            ErrorKind::BadValue
                        };
                        return Err(RuntimeError::at(kind, m, span));
                    }
                },
                // As C's `pow` (and Python's `**`) computes it.
                (Some(Val::Float(a)), Some(Val::Int(b))) => Val::Float(a.powf(*b as f64)),
                _ => return Err(bad(self)),
            },
            Prim::DivFloor | Prim::ModFloor => {
                let (Some(a), Some(b)) = (int(0), int(1)) else {
                    return Err(bad(self));
                };
                match prim::arith::div_mod_floor(a, b) {
                    Ok((q, r)) => Val::Int(if p == Prim::DivFloor { q } else { r }),
                    Err(e) => {
                        let kind = match e {
                            prim::arith::ArithError::DivisionByZero => ErrorKind::DivisionByZero,
                            _ => ErrorKind::Overflow,
                        };
                        return Err(RuntimeError::at(kind, e.message(), span));
                    }
                }
            }
            Prim::ShowFixed => {
                let (Some(d), Some(x)) = (int(0), float(1)) else {
                    return Err(bad(self));
                };
                let d = d.clamp(0, 100) as usize;
                self.heap.string(format!("{x:.d$}").into())
            }
            Prim::Compare => {
                let o = match (args.first(), args.get(1)) {
                    (Some(Val::Int(a)), Some(Val::Int(b))) => a.cmp(b),
                    (Some(Val::Char(a)), Some(Val::Char(b))) => a.cmp(b),
                    // `compare` on `Float` as the prelude defines it: `GT` unless `<`
                    // or `==` holds (so with a `NaN`).
                    (Some(Val::Float(a)), Some(Val::Float(b))) => {
                        if a < b {
                            std::cmp::Ordering::Less
                        } else if a == b {
                            std::cmp::Ordering::Equal
                        } else {
                            std::cmp::Ordering::Greater
                        }
                    }
                    (Some(Val::Str(a)), Some(Val::Str(b))) => self
                        .heap
                        .text(*a)
                        .as_bytes()
                        .cmp(self.heap.text(*b).as_bytes()),
                    _ => return Err(bad(self)),
                };
                match self.prog.collections().and_then(|c| c.ordering) {
                    Some(cons) => Val::Atom(cons[(o as i8 + 1) as usize]),
                    None => return Err(bad(self)),
                }
            }
            Prim::Abs => match args.first() {
                Some(Val::Int(n)) => match n.checked_abs() {
                    Some(m) => Val::Int(m),
                    None => {
                        return Err(RuntimeError::at(
                            ErrorKind::Overflow,
                            "integer overflow",
                            span,
                        ));
                    }
                },
                Some(Val::Float(x)) => Val::Float(x.abs()),
                _ => return Err(bad(self)),
            },
            Prim::MapLookup => self.data().map_lookup_native(args[0], args[1]),
            Prim::MapInsert => self.data().map_insert_native(args[0], args[1], args[2]),
            Prim::MapDelete => self.data().map_delete_native(args[0], args[1]),
            Prim::SortOrdered => self.data().sort_native(args[0], false),
            Prim::SortOnFirst => self.data().sort_native(args[0], true),
            Prim::SortPrims => unreachable!("run_op sorts, releasing the input first"),
            Prim::IsPrim => self.bool_val(matches!(
                args.first(),
                Some(Val::Int(_) | Val::Float(_) | Val::Str(_) | Val::Char(_))
            )),
            Prim::IsPair => {
                let pair = self.prog.builtins.mk_pair;
                let is =
                    matches!(args.first(), Some(Val::Con(r)) if self.heap.cons.get(*r).con == pair);
                self.bool_val(is)
            }
            Prim::ShowArg => {
                let s = text(self, 0).ok_or_else(|| bad(self))?;
                if prim::string::needs_parens(&s) {
                    self.heap.string(format!("({s})").into())
                } else {
                    self.heap.string(s)
                }
            }
            Prim::JsonNumber => {
                let x = float(0).ok_or_else(|| bad(self))?;
                self.heap.string(prim::json::render_number(x).into())
            }
            // Its argument is whole: `Nothing` (the `Try` frame below passes it on).
            Prim::Catch => self.data().maybe(None),
            // The first argument is whole (or, for `trace`, the message is known): the
            // `After` frame below goes on with the second.
            Prim::After => Val::Erased,
            Prim::Reading | Prim::Writing => {
                // The `After` frame below holds `x`: it becomes `x` under a `Declare`.
                let Some(Frame::After(x)) = self.stacks.frames.pop() else {
                    return Err(RuntimeError::at(
                        ErrorKind::Internal,
                        "internal error: a declaration lost its value",
                        span,
                    ));
                };
                let files = args[0];
                self.heap.retain(files);
                self.push(Frame::Declare {
                    writing: p == Prim::Writing,
                    files,
                });
                return Ok(self.need(x));
            }
            Prim::Trace => {
                let m = text(self, 0).ok_or_else(|| bad(self))?;
                if let Some(o) = &mut self.printer.out {
                    o.flush();
                }
                eprintln!("{m}");
                Val::Erased
            }
            Prim::Concat | Prim::Seq => unreachable!("handled by their own frames"),
            Prim::Chars
            | Prim::FromChars
            | Prim::Ord
            | Prim::Chr
            | Prim::CharIsAlpha
            | Prim::CharIsAlphaNum
            | Prim::CharIsSpace
            | Prim::CharIsUpper
            | Prim::CharIsLower
            | Prim::CharToUpper
            | Prim::CharToLower
            | Prim::CharToString
            | Prim::ShowChar => {
                if let (Prim::Chars, Some(Val::Str(r))) = (p, args.first()) {
                    let cells = self.heap.text(*r).len();
                    self.check_memory(cells.saturating_mul(super::chars::CELL_BYTES))?;
                }
                return self.data().char_prim(p, span, args);
            }
        };
        Ok(Control::Ret(v))
    }

    // ----- external calls -------------------------------------------------------

    /// An external with its arguments in normal form (owned): the host makes the
    /// call.
    pub(crate) fn extern_run(
        &mut self,
        e: ExternId,
        site: Site,
        args: Vec<Val>,
    ) -> Result<Control> {
        let decl = self.prog.external(e);
        let span = if site == Site::UNKNOWN {
            decl.span
        } else {
            self.code_span(site.0)
        };
        let refused = if !self.options.externals_allowed {
            Some(format!(
                "the external `{}` is not called during type checking",
                decl.name
            ))
        } else if self.host.is_none() {
            Some(format!(
                "the external `{}` cannot be called: this evaluation has no call layer",
                decl.name
            ))
        } else {
            None
        };
        if let Some(msg) = refused {
            for a in args {
                self.heap.release(a);
            }
            return Err(RuntimeError::at(ErrorKind::External, msg, span));
        }
        let (reading, writing) = self.declared_files();
        let req = CallRequest {
            external: e,
            site,
            span,
            args,
            reading,
            writing,
        };
        self.with_host(|h, m| h.call(m, req))
    }

    /// The files declared with `reading` and `writing` around the running
    /// computation (its `Declare` frames, innermost last).
    fn declared_files(&mut self) -> (Vec<String>, Vec<String>) {
        let (mut reading, mut writing) = (Vec::new(), Vec::new());
        let declared: Vec<(bool, Val)> = (self.stacks.frames.iter())
            .filter_map(|f| match *f {
                super::frame::Frame::Declare { writing, files } => Some((writing, files)),
                _ => None,
            })
            .collect();
        for (w, files) in declared {
            if let Some(names) = self.data().strings_of(files) {
                if w {
                    writing.extend(names);
                } else {
                    reading.extend(names);
                }
            }
        }
        (reading, writing)
    }

    /// A list of strings as a value.
    pub(crate) fn str_list(&mut self, items: Vec<String>) -> Val {
        let bi = self.prog.builtins;
        let mut acc = Val::Atom(bi.nil);
        for s in items.into_iter().rev() {
            let h = self.heap.string(s.into());
            acc = self.heap.con(bi.cons, &[h, acc]);
        }
        acc
    }

    /// `prim_sortPrims xs fallback` (owned, `xs` evaluated whole): the list sorted,
    /// the input let go before the output is built (the two are never whole at once),
    /// or, where it cannot be sorted natively, `fallback xs`.
    pub(crate) fn sort_prims_owned(&mut self, list: Val, fallback: Val) -> Control {
        match self.data().sorted_elements(list, false) {
            Ok(xs) => {
                self.heap.release(list);
                self.heap.release(fallback);
                Control::Ret(self.data().list_of(&xs))
            }
            Err(_) => {
                self.push(Frame::Arg(list, false));
                Control::Ret(fallback)
            }
        }
    }

    // ----- `++` -------------------------------------------------------------------

    /// `a ++ b`: `a` is evaluated. Strings need `b` too; lists are the prelude's
    /// `append a b` (lazy in `b`).
    pub(crate) fn concat_left(&mut self, a: Val, b: Val, span: Span) -> Result<Control> {
        match a {
            Val::Str(_) => {
                self.push(Frame::ConcatR { a });
                Ok(self.need(b))
            }
            Val::Con(_) | Val::Atom(_) => {
                let Some(append) = self.prog.defs.iter().rposition(|d| &*d.name == "append") else {
                    self.heap.release(a);
                    self.heap.release(b);
                    return Err(RuntimeError::at(
                        ErrorKind::BadValue,
                        "`++` on lists needs the prelude's `append`",
                        span,
                    ));
                };
                let f = self.def_value(crate::core::term::DefId(append as u32));
                self.push(Frame::Arg(b, false));
                self.push(Frame::Arg(a, false));
                // `append`'s type parameter is implicit and erased: the function
                // value takes it as an implicit argument, which it drops.
                self.push(Frame::Arg(Val::Erased, true));
                Ok(Control::Ret(f))
            }
            other => {
                let e = self.mismatch(Prim::Concat, span, &[other]);
                self.heap.release(other);
                self.heap.release(b);
                Err(e)
            }
        }
    }

    /// `a ++ b` on strings: both are evaluated.
    pub(crate) fn concat_right(&mut self, a: Val, b: Val) -> Result<Control> {
        let (Val::Str(x), Val::Str(y)) = (a, b) else {
            let e = RuntimeError::new(
                ErrorKind::BadValue,
                format!("`++` cannot join {} and {}", a.kind(), b.kind()),
            );
            self.heap.release(a);
            self.heap.release(b);
            return Err(e);
        };
        let (sx, sy) = (self.heap.text(x), self.heap.text(y));
        if let Err(e) = self.check_memory(sx.len() + sy.len()) {
            self.heap.release(a);
            self.heap.release(b);
            return Err(e);
        }
        let (sx, sy) = (self.heap.text(x), self.heap.text(y));
        let mut s = String::with_capacity(sx.len() + sy.len());
        s.push_str(sx);
        s.push_str(sy);
        self.heap.release(a);
        self.heap.release(b);
        Ok(Control::Ret(self.heap.string(s.into())))
    }

    // ----- normal forms -----------------------------------------------------------

    /// Evaluates a word (owned) to normal form: every part of it evaluated. A new
    /// reference.
    pub fn normal_form(&mut self, v: Val) -> Result<Val> {
        let v = self.whnf(v)?;
        if self.is_whole(v) {
            return Ok(v);
        }
        let base = self.stacks.frames.len();
        let ctl = self.deep_start(v)?;
        self.run_at(ctl, base)
    }

    /// Starts a normal-form walk of `v` (owned), which returns `v` when every part is
    /// evaluated.
    pub(crate) fn deep_start(&mut self, v: Val) -> Result<Control> {
        let base = self.stacks.deep.len() as u32;
        self.push(Frame::Deep {
            root: v,
            base,
            spine: false,
        });
        self.deep_push_parts(v);
        self.deep_next()
    }

    /// Pushes the parts of `v` still to walk: every field.
    fn deep_push_parts(&mut self, v: Val) {
        if let Val::Con(r) = v {
            let fields = self.heap.cons.get(r).fields;
            for i in (0..fields.len()).rev() {
                let w = fields.at(&self.heap.words, i);
                self.heap.retain(w);
                self.stacks.deep.push(w);
            }
        }
    }

    /// In a spine walk, pushes the tail of a list cell `v` (borrowed): the host is told
    /// that its spine is certainly needed while the walk holds it.
    fn spine_push_tail(&mut self, v: Val) {
        if let Val::Con(r) = v {
            let cell = self.heap.cons.get(r);
            let fields = cell.fields;
            if cell.con == self.prog.builtins.cons && fields.len() == 2 {
                let w = fields.at(&self.heap.words, 1);
                // A tail another walk holds is walked by that one from here on:
                // this walk ends (several walks forked along one list would each
                // walk the rest, the square of its length).
                if let Val::Thunk(t) = w
                    && self.host.as_ref().is_some_and(|h| h.spine_needed(t))
                {
                    return;
                }
                self.heap.retain(w);
                self.stacks.deep.push(w);
                if let Val::Thunk(t) = w
                    && let Some(h) = self.host.as_mut()
                {
                    h.note_spine(t, true);
                }
            }
        }
    }

    /// The next tail of a spine walk (the frame on top), or its end. A thunk stays on
    /// the deep stack while it is forced (the host's note of it stays true while the
    /// walk holds it), and goes when its value comes back ([`Machine::spine_value`]).
    fn spine_next(&mut self) -> Result<Control> {
        loop {
            let Some(&Frame::Deep { root, base, .. }) = self.stacks.frames.last() else {
                unreachable!("spine_next() without a Deep frame")
            };
            if self.stacks.deep.len() as u32 == base {
                self.stacks.frames.pop();
                return Ok(Control::Ret(root));
            }
            let w = *self.stacks.deep.last().expect("part");
            if let Val::Thunk(t) = w
                && !matches!(self.heap.thunks.get(t).state, ThunkState::Done(_))
            {
                // The deep stack keeps its reference; the force takes one of its own.
                self.heap.retain(w);
                return Ok(Control::Force(t));
            }
            self.stacks.deep.pop();
            let v = self.settle(w);
            self.spine_drop(w);
            self.spine_push_tail(v);
            self.heap.release(v);
        }
    }

    /// The host's note of a thunk a spine walk no longer holds goes.
    fn spine_drop(&mut self, w: Val) {
        if let Val::Thunk(t) = w
            && let Some(h) = self.host.as_mut()
        {
            h.note_spine(t, false);
        }
    }

    /// The tail on top of a spine walk has been evaluated to `v` (owned); or the walk
    /// starts (`v` is then nothing), or is handed a value to walk (a future's).
    fn spine_value(&mut self, v: Val) -> Result<Control> {
        let base = match self.stacks.frames.last() {
            Some(Frame::Deep { base, .. }) => *base as usize,
            _ => 0,
        };
        let forced = !matches!(v, Val::Erased)
            && self.stacks.deep.len() > base
            && match self.stacks.deep.last() {
                Some(&Val::Thunk(t)) => {
                    matches!(self.heap.thunks.get(t).state, ThunkState::Done(_))
                }
                _ => false,
            };
        if forced && let Some(w) = self.stacks.deep.pop() {
            self.spine_drop(w);
            self.heap.release(w);
        }
        // A value handed to the walk itself (a future's, when the walk is its
        // context) is walked on from its tail too.
        self.spine_push_tail(v);
        self.heap.release(v);
        self.spine_next()
    }

    /// Needs the next part of the walk on top, or ends it.
    fn deep_next(&mut self) -> Result<Control> {
        if matches!(
            self.stacks.frames.last(),
            Some(Frame::Deep { spine: true, .. })
        ) {
            return self.spine_next();
        }
        loop {
            let Some(&Frame::Deep { root, base, .. }) = self.stacks.frames.last() else {
                unreachable!("deep_next() without a Deep frame")
            };
            if self.stacks.deep.len() as u32 == base {
                self.stacks.frames.pop();
                return Ok(Control::Ret(root));
            }
            let w = self.stacks.deep.pop().expect("part");
            // Only a helper's own walk (a root of `Erased`: its value goes nowhere) may
            // leave parts out; a walk whose value is used (an external's arguments, a
            // `join`) must reach every part, in a helper too.
            if let Val::Thunk(t) = w
                && matches!(root, Val::Erased)
                && self
                    .host
                    .as_ref()
                    .is_some_and(|h| h.walked_elsewhere(self, t))
            {
                self.heap.release(w);
                continue;
            }
            let w = self.settle(w);
            match w {
                Val::Thunk(t) => return Ok(Control::Force(t)),
                v => {
                    self.deep_push_parts(v);
                    self.heap.release(v);
                }
            }
        }
    }

    /// A part of the walk on top has been evaluated.
    pub(crate) fn deep_value(&mut self, v: Val) -> Result<Control> {
        if matches!(
            self.stacks.frames.last(),
            Some(Frame::Deep { spine: true, .. })
        ) {
            return self.spine_value(v);
        }
        self.deep_push_parts(v);
        self.heap.release(v);
        self.deep_next()
    }

    // ----- structural equality ----------------------------------------------------

    fn cmp_heads(&self, a: Val, b: Val, span: Span) -> Result<Cmp> {
        let same = |x: bool| if x { Cmp::Same } else { Cmp::Diff };
        Ok(match (a, b) {
            (Val::Int(x), Val::Int(y)) => same(x == y),
            (Val::Float(x), Val::Float(y)) => same(x == y),
            (Val::Char(x), Val::Char(y)) => same(x == y),
            (Val::Str(x), Val::Str(y)) => same(self.heap.text(x) == self.heap.text(y)),
            (Val::Atom(x), Val::Atom(y)) => same(x == y),
            (Val::Con(x), Val::Con(y)) => {
                let (cx, cy) = (self.heap.cons.get(x), self.heap.cons.get(y));
                if cx.con != cy.con {
                    Cmp::Diff
                } else {
                    Cmp::Fields(a, b)
                }
            }
            (Val::Pap(x), Val::Pap(y))
                if matches!(self.heap.paps.get(x).head, PapHead::Data(_))
                    && matches!(self.heap.paps.get(y).head, PapHead::Data(_)) =>
            {
                let (px, py) = (self.heap.paps.get(x), self.heap.paps.get(y));
                if px.head != py.head || px.args.len != py.args.len {
                    Cmp::Diff
                } else {
                    Cmp::Fields(a, b)
                }
            }
            (Val::Universe(x), Val::Universe(y)) => same(x == y),
            (Val::PrimType(x), Val::PrimType(y)) => same(x == y),
            // At the type level, a value not known yet (an open variable, an unknown,
            // a stuck match) compares to nothing: the comparison is stuck too.
            _ if self.options.neutral_matches && (self.is_neutral(a) || self.is_neutral(b)) => {
                return Err(RuntimeError::at(
                    ErrorKind::Stuck,
                    "a comparison with a value not known yet",
                    span,
                ));
            }
            (Val::Fun(_) | Val::Pap(_), _) | (_, Val::Fun(_) | Val::Pap(_)) => {
                return Err(RuntimeError::at(
                    ErrorKind::BadValue,
                    "cannot compare functions",
                    span,
                ));
            }
            _ => Cmp::Diff,
        })
    }

    /// Whether a value is neutral at the type level: an open variable or an unknown
    /// (perhaps applied), or a match stuck on one. A `match` on one is stuck
    /// ([`Machine::case`]), and so is a comparison with one.
    pub(super) fn is_neutral(&self, v: Val) -> bool {
        match v {
            Val::Pap(p) => matches!(
                self.heap.paps.get(p).head,
                PapHead::Open(_) | PapHead::Hole(_)
            ),
            Val::Stuck(_) | Val::Erased => true,
            _ => false,
        }
    }

    /// Starts a structural comparison of two weak head normal forms (owned).
    fn eq_start(&mut self, a: Val, b: Val, negate: bool, span: Span) -> Result<Control> {
        let base = self.stacks.eq_work.len() as u32;
        self.push(Frame::Eq { base, negate, span });
        self.eq_heads(a, b)
    }

    /// Compares two evaluated sides (owned) of the comparison on top.
    fn eq_heads(&mut self, a: Val, b: Val) -> Result<Control> {
        let Some(&Frame::Eq { span, .. }) = self.stacks.frames.last() else {
            unreachable!("eq_heads() without an Eq frame")
        };
        let cmp = self.cmp_heads(a, b, span);
        let r = match cmp {
            Ok(Cmp::Diff) => Ok(false),
            Ok(Cmp::Same) => Ok(true),
            Ok(Cmp::Fields(x, y)) if self.data().is_map_node(x) => {
                // Two maps are equal when their entries are, whatever their shapes.
                match (self.data().map_entries(x), self.data().map_entries(y)) {
                    (Some(xs), Some(ys)) if xs.len() != ys.len() => Ok(false),
                    (Some(xs), Some(ys)) => {
                        for i in (0..xs.len()).rev() {
                            for (a, b) in [(xs[i].1, ys[i].1), (xs[i].0, ys[i].0)] {
                                self.heap.retain(a);
                                self.heap.retain(b);
                                self.stacks.eq_work.push((a, b));
                            }
                        }
                        Ok(true)
                    }
                    _ => Err(RuntimeError::at(
                        ErrorKind::Internal,
                        "a map whose tree is not evaluated".to_string(),
                        span,
                    )),
                }
            }
            Ok(Cmp::Fields(x, y)) => {
                let parts = |m: &Self, v: Val| -> Vec<Val> {
                    match v {
                        Val::Con(r) => m.heap.fields(r).to_vec(),
                        Val::Pap(r) => m.heap.words.get(m.heap.paps.get(r).args).to_vec(),
                        _ => Vec::new(),
                    }
                };
                let (xs, ys) = (parts(self, x), parts(self, y));
                for i in (0..xs.len()).rev() {
                    let (fx, fy) = (xs[i], ys[i]);
                    self.heap.retain(fx);
                    self.heap.retain(fy);
                    self.stacks.eq_work.push((fx, fy));
                }
                Ok(true)
            }
            Err(e) => Err(e),
        };
        self.heap.release(a);
        self.heap.release(b);
        match r? {
            false => self.eq_finish(false),
            true => self.eq_next(),
        }
    }

    /// Both sides of a pair are evaluated.
    pub(crate) fn eq_step(&mut self, left: Val, right: Val) -> Result<Control> {
        self.eq_heads(left, right)
    }

    fn eq_next(&mut self) -> Result<Control> {
        let Some(&Frame::Eq { base, .. }) = self.stacks.frames.last() else {
            unreachable!("eq_next() without an Eq frame")
        };
        if self.stacks.eq_work.len() as u32 > base {
            let (x, y) = self.stacks.eq_work.pop().expect("pair");
            self.push(Frame::EqLeft(y));
            Ok(self.need(x))
        } else {
            self.eq_finish(true)
        }
    }

    fn eq_finish(&mut self, equal: bool) -> Result<Control> {
        let Some(Frame::Eq { base, negate, .. }) = self.stacks.frames.pop() else {
            unreachable!("eq_finish() without an Eq frame")
        };
        while self.stacks.eq_work.len() as u32 > base {
            let (x, y) = self.stacks.eq_work.pop().expect("pair");
            self.heap.release(x);
            self.heap.release(y);
        }
        Ok(Control::Ret(self.bool_val(equal != negate)))
    }
}

/// The error for a primitive applied to values of the wrong kinds.
pub(crate) fn mismatch_error(p: Prim, span: Span, vals: &[Val]) -> RuntimeError {
    let kinds: Vec<&str> = vals.iter().map(|v| v.kind()).collect();
    RuntimeError::at(
        ErrorKind::Stuck,
        format!(
            "`{}` cannot be applied to {}",
            p.name(),
            kinds.join(" and ")
        ),
        span,
    )
}
