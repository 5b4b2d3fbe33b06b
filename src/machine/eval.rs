//! The evaluation loop and its transitions (the module docs of [`super`] list them).

use super::Machine;
use super::code::{ArmTest, Code, CodeId, Fast, FunId, HeadCode, Site};
use super::error::{Result, RuntimeError};
use super::frame::{Ctl, Frame, StrictOp};
use super::heap::{PapHead, ThunkState};
use super::value::{NIL, Ref, Val};
use crate::prim::Prim;
use crate::syntax::span::Span;
use std::sync::atomic::Ordering;

/// How deep [`Machine::imm`] looks into nested operators for a value at hand.
const IMM_DEPTH: u32 = 6;

impl<'p> Machine<'p> {
    /// Runs the loop from `ctl` until a value returns to the frame height it started
    /// at, and returns that value (a new reference). A runtime error unwinds to the
    /// nearest `try` above that height, or out.
    pub fn run(&mut self, ctl: Ctl) -> Result<Val> {
        let base = self.frames.len();
        self.run_at(ctl, base)
    }

    /// Like [`Machine::run`], until a value returns to frame height `base` (the
    /// control may come from frames pushed above it).
    pub(crate) fn run_at(&mut self, ctl: Ctl, base: usize) -> Result<Val> {
        let root = self.fiber;
        let mut ctl = ctl;
        let mut check_at = self.steps + super::CHECK_EVERY;
        if self.pause_after != 0 {
            check_at = check_at.min(self.pause_after + 1);
        }
        loop {
            self.steps += 1;
            if self.steps >= check_at {
                if self.pause_after != 0 && self.steps > self.pause_after {
                    // Stop before this step; the state stays for `read_back_state`.
                    self.steps -= 1;
                    self.paused = Some(ctl);
                    return Err(RuntimeError::new(format!(
                        "evaluation paused after {} steps",
                        self.steps
                    )));
                }
                check_at = self.steps
                    + if self.audit_every != 0 {
                        self.audit_every
                    } else {
                        super::CHECK_EVERY
                    };
                if self.pause_after != 0 {
                    check_at = check_at.min(self.pause_after + 1);
                }
                if self.frames.len() > self.frames_peak {
                    self.frames_peak = self.frames.len();
                }
                self.maybe_collect_cycles(&ctl);
                if self.audit_every != 0
                    && let Err(e) = self.audit(Some(&ctl), true)
                {
                    self.drop_ctl(ctl);
                    return Err(RuntimeError::new(format!("internal error: {e}")));
                }
                let checked = match self.check_limits() {
                    Ok(()) if self.host.is_some() => self.with_host(|h, m| h.tick(m, ctl)),
                    Ok(()) => Ok(ctl),
                    Err(e) => {
                        self.drop_ctl(ctl);
                        Err(e)
                    }
                };
                ctl = match checked {
                    Ok(c) => c,
                    Err(e) => self.fail(e, root, base)?,
                };
                if let Some(o) = &mut self.out {
                    o.flush_if_due();
                }
            }
            let next = match ctl {
                Ctl::Eval(c, env) => self.eval(c, env),
                Ctl::Force(t) => self.force(t),
                Ctl::Ret(v) => {
                    let my_base = if self.fiber == root { base } else { 0 };
                    if self.frames.len() == my_base {
                        if self.fiber == root {
                            return Ok(v);
                        }
                        self.with_host(|h, m| h.fiber_done(m, Ok(v)))
                    } else {
                        self.ret(v)
                    }
                }
                Ctl::Park => match self.host.is_some() {
                    true => self.with_host(|h, m| h.switch(m)),
                    false => Err(RuntimeError::new(
                        "internal error: a fiber parked without a scheduler",
                    )),
                },
            };
            ctl = match next {
                Ok(c) => c,
                Err(e) => self.fail(e, root, base)?,
            };
        }
    }

    /// A runtime error in the current fiber: the fiber the run belongs to unwinds to
    /// its nearest `try` or out of [`Machine::run`]; another fiber unwinds to its own
    /// `try`, or ends failed and the scheduler goes on with the next.
    fn fail(&mut self, e: RuntimeError, root: u32, base: usize) -> Result<Ctl> {
        if self.fiber == root {
            return self.raise(e, base);
        }
        match self.raise(e, 0) {
            Ok(c) => Ok(c),
            Err(e) => match self.with_host(|h, m| h.fiber_done(m, Err(e))) {
                Ok(c) => Ok(c),
                Err(e) => self.fail(e, root, base),
            },
        }
    }

    /// A runtime error: unwinds to the nearest `try` frame above `base` (which turns
    /// it into `Left message`), or out of [`Machine::run`].
    #[cold]
    fn raise(&mut self, e: RuntimeError, base: usize) -> Result<Ctl> {
        let e = self.place_error(e);
        let try_at = self.frames[base..]
            .iter()
            .rposition(|f| matches!(f, Frame::Try))
            .map(|i| base + i);
        match try_at {
            Some(i) => {
                self.unwind_to(i + 1, &e);
                self.frames.pop();
                let msg = self.heap.string(e.message.as_str().into());
                Ok(Ctl::Ret(self.maybe(Some(msg))))
            }
            None => {
                self.unwind_to(base, &e);
                Err(self.final_error(e))
            }
        }
    }

    /// Limits checked every [`super::CHECK_EVERY`] steps.
    #[cold]
    fn check_limits(&self) -> Result<()> {
        if self.step_limit != 0 && self.steps > self.step_limit {
            return Err(RuntimeError::new(format!(
                "evaluation exceeded its limit of {} steps",
                self.step_limit
            )));
        }
        if let Some(flag) = &self.interrupt
            && flag.load(Ordering::Relaxed)
        {
            return Err(RuntimeError::new("interrupted"));
        }
        self.check_memory(0)
    }

    /// `--max-memory`: the heap, the strings and the stacks, plus `more` bytes about
    /// to be taken, must fit (LANGUAGE.md 6). The error's place is the computation
    /// in progress.
    #[inline]
    pub(crate) fn check_memory(&self, more: usize) -> Result<()> {
        if self.max_memory == 0 {
            return Ok(());
        }
        let stacks = self.frames.capacity() * std::mem::size_of::<Frame>()
            + (self.vals.capacity() + self.pending.capacity() + self.deep.capacity()) * 16;
        if self.heap.bytes_in_use() + stacks + more > self.max_memory {
            return Err(RuntimeError::new("out of memory"));
        }
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, f: Frame) {
        self.frames.push(f);
    }

    // ----- words at hand ----------------------------------------------------------

    /// Slot `i` of record `rec`, not counted; an evaluated thunk there is replaced by
    /// its value (so that the slot stops keeping the thunk alive).
    #[inline(always)]
    pub(crate) fn slot_word(&mut self, rec: Ref, i: u32) -> Val {
        let w = self.heap.slot(rec, i);
        if let Val::Thunk(t) = w
            && let ThunkState::Done(x) = self.heap.thunks.get(t).state
        {
            self.heap.retain(x);
            self.heap.set_slot(rec, i, x);
            self.heap.release(w);
            return x;
        }
        w
    }

    /// The word a variable node reads, not counted.
    #[inline(always)]
    fn var_word(&mut self, c: CodeId, env: Ref) -> Option<Val> {
        match self.code.nodes[c as usize] {
            Code::Local(s) => Some(self.slot_word(env, s)),
            Code::Outer { hops, slot } => {
                let r = self.heap.up(env, hops);
                Some(self.slot_word(r, slot))
            }
            _ => None,
        }
    }

    /// The value of code when it is at hand without evaluation (a literal, an
    /// evaluated variable, an operator on such): a new reference.
    #[inline]
    pub(crate) fn imm(&mut self, c: CodeId, env: Ref, depth: u32) -> Option<Val> {
        match self.code.fast[c as usize] {
            Fast::Int(n) => return Some(Val::Int(n)),
            Fast::Slot(s) => {
                let w = self.heap.slot(env, s);
                if !w.is_counted() {
                    return Some(w);
                }
            }
            Fast::SlotInt(p, s, k) => {
                if let Val::Int(x) = self.heap.slot(env, s)
                    && let Some(r) = int_op(p, x, k)
                {
                    return Some(self.int_result(r));
                }
            }
            Fast::SlotSlot(p, a, b) => {
                if let (Val::Int(x), Val::Int(y)) = (self.heap.slot(env, a), self.heap.slot(env, b))
                    && let Some(r) = int_op(p, x, y)
                {
                    return Some(self.int_result(r));
                }
            }
            Fast::No => {}
        }
        self.imm_general(c, env, depth)
    }

    /// [`Machine::imm`] for what its superinstructions do not cover.
    fn imm_general(&mut self, c: CodeId, env: Ref, depth: u32) -> Option<Val> {
        let v = match self.code.nodes[c as usize] {
            Code::Local(s) => self.slot_word(env, s),
            Code::Outer { hops, slot } => {
                let r = self.heap.up(env, hops);
                self.slot_word(r, slot)
            }
            Code::Int(n) => return Some(Val::Int(n)),
            Code::Float(x) => return Some(Val::Float(x)),
            Code::Atom(c) => return Some(Val::Atom(c)),
            Code::Bin { prim, a, b, .. } if depth > 0 && is_arith(prim) => {
                let x = self.imm(a, env, depth - 1)?;
                let y = match self.imm(b, env, depth - 1) {
                    Some(y) => y,
                    None => {
                        self.heap.release(x);
                        return None;
                    }
                };
                return match (x, y) {
                    (Val::Int(x), Val::Int(y)) => int_op(prim, x, y).map(|r| self.int_result(r)),
                    (Val::Float(x), Val::Float(y)) => {
                        float_op(prim, x, y).map(|r| self.float_result(r))
                    }
                    _ => {
                        self.heap.release(x);
                        self.heap.release(y);
                        None
                    }
                };
            }
            _ => return None,
        };
        if matches!(v, Val::Thunk(_)) {
            return None;
        }
        self.heap.retain(v);
        Some(v)
    }

    #[inline(always)]
    fn int_result(&self, r: IntResult) -> Val {
        match r {
            IntResult::Int(n) => Val::Int(n),
            IntResult::Bool(b) => self.bool_val(b),
        }
    }

    #[inline(always)]
    fn float_result(&self, r: FloatResult) -> Val {
        match r {
            FloatResult::Float(x) => Val::Float(x),
            FloatResult::Bool(b) => self.bool_val(b),
        }
    }

    /// `True` or `False`.
    #[inline(always)]
    pub(crate) fn bool_val(&self, b: bool) -> Val {
        let bi = &self.prog.builtins;
        Val::Atom(if b { bi.true_ } else { bi.false_ })
    }

    /// The word an argument's code becomes: its value when at hand, otherwise a thunk
    /// of the code in `env` (borrowed). A new reference.
    #[inline]
    pub(crate) fn mkarg(&mut self, c: CodeId, env: Ref) -> Val {
        match self.code.nodes[c as usize] {
            Code::Local(s) => {
                let w = self.slot_word(env, s);
                self.heap.retain(w);
                w
            }
            Code::Outer { hops, slot } => {
                let r = self.heap.up(env, hops);
                let w = self.slot_word(r, slot);
                self.heap.retain(w);
                w
            }
            Code::Int(n) => Val::Int(n),
            Code::Float(x) => Val::Float(x),
            Code::Atom(c) => Val::Atom(c),
            Code::Erased => Val::Erased,
            Code::Universe(n) => Val::Universe(n),
            Code::PrimType(p) => Val::PrimType(p),
            Code::Global(d) => self.def_value(d),
            Code::Lam(f) => self.closure(f, env),
            Code::Bin { .. } => match self.imm(c, env, IMM_DEPTH) {
                Some(v) => v,
                None => self.suspend(c, env),
            },
            Code::Con { con, args } => {
                let n = args.len as usize;
                let mut fields = [Val::Erased; 4];
                if n <= 4 {
                    for (i, field) in fields.iter_mut().enumerate().take(n) {
                        let a = self.code.args[(args.start as usize) + i];
                        *field = self.mkarg(a, env);
                    }
                    self.heap.con(con, &fields[..n])
                } else {
                    let codes: Vec<CodeId> = self.code.args(args).to_vec();
                    let fields: Vec<Val> = codes.iter().map(|&a| self.mkarg(a, env)).collect();
                    self.heap.con(con, &fields)
                }
            }
            _ => self.suspend(c, env),
        }
    }

    /// A thunk of code in `env` (borrowed; none is kept when the code is closed).
    #[inline(always)]
    fn suspend(&mut self, c: CodeId, env: Ref) -> Val {
        let env = if self.code.closed[c as usize] {
            NIL
        } else {
            self.heap.retain_rec(env);
            env
        };
        Val::Thunk(self.heap.thunk(c, env))
    }

    /// A function value of `f` closed over `env` (borrowed).
    #[inline(always)]
    pub(crate) fn closure(&mut self, f: FunId, env: Ref) -> Val {
        let env = if self.code.funs[f as usize].closed {
            NIL
        } else {
            self.heap.retain_rec(env);
            env
        };
        self.heap.fun(f, env)
    }

    // ----- transitions ------------------------------------------------------------

    /// Runs code in a record (owned).
    pub(crate) fn eval(&mut self, c: CodeId, env: Ref) -> Result<Ctl> {
        Ok(match self.code.nodes[c as usize] {
            Code::Local(_) | Code::Outer { .. } => {
                let w = self.var_word(c, env).expect("variable");
                self.heap.retain(w);
                self.heap.release_rec(env);
                match w {
                    Val::Thunk(t) => Ctl::Force(t),
                    v => Ctl::Ret(v),
                }
            }
            Code::Global(d) => {
                self.heap.release_rec(env);
                match self.def_value(d) {
                    Val::Thunk(t) => Ctl::Force(t),
                    v => Ctl::Ret(v),
                }
            }
            Code::Int(n) => {
                self.heap.release_rec(env);
                Ctl::Ret(Val::Int(n))
            }
            Code::Float(x) => {
                self.heap.release_rec(env);
                Ctl::Ret(Val::Float(x))
            }
            Code::Atom(k) => {
                self.heap.release_rec(env);
                Ctl::Ret(Val::Atom(k))
            }
            Code::Erased => {
                self.heap.release_rec(env);
                Ctl::Ret(Val::Erased)
            }
            Code::Universe(n) => {
                self.heap.release_rec(env);
                Ctl::Ret(Val::Universe(n))
            }
            Code::PrimType(p) => {
                self.heap.release_rec(env);
                Ctl::Ret(Val::PrimType(p))
            }
            Code::Str(_) => {
                let Code::Str(s) = &self.code.nodes[c as usize] else {
                    unreachable!()
                };
                let s = s.clone();
                self.heap.release_rec(env);
                Ctl::Ret(self.heap.string(s))
            }
            Code::Data(d) => {
                self.heap.release_rec(env);
                Ctl::Ret(self.heap.pap(PapHead::Data(d), 0, &[]))
            }
            Code::Hole => {
                self.heap.release_rec(env);
                Ctl::Ret(self.heap.pap(PapHead::Hole(c), 0, &[]))
            }
            Code::Head(h) => {
                self.heap.release_rec(env);
                let head = match h {
                    HeadCode::Con(k) => PapHead::Con(k),
                    HeadCode::Prim(p, s) => PapHead::Prim(p, s),
                    HeadCode::Extern(e) => PapHead::Extern(e, Site(c)),
                };
                Ctl::Ret(self.heap.pap(head, 0, &[]))
            }
            Code::Con { .. } => {
                let v = self.mkarg(c, env);
                self.heap.release_rec(env);
                Ctl::Ret(v)
            }
            Code::Lam(f) => {
                let v = self.closure(f, env);
                self.heap.release_rec(env);
                Ctl::Ret(v)
            }
            Code::Pi => Ctl::Ret(Val::Pi(self.heap.pis.alloc(super::heap::PiObj {
                rc: 1,
                code: c,
                env,
            }))),
            Code::CallDef { .. } => return self.call_def(c, env),
            Code::Apply { fun, args } => return self.apply_code(fun, args, env),
            Code::Bin { prim, a, b, span } => return self.bin(prim, a, b, span, env),
            Code::Prim { prim, args, span } => {
                let op = StrictOp::Prim(prim, span);
                return self.strict_code(
                    op,
                    args,
                    env,
                    matches!(prim, Prim::Join | Prim::SortInts),
                );
            }
            Code::Extern { ext, args } => {
                return self.strict_code(StrictOp::Extern(ext, Site(c)), args, env, true);
            }
            Code::Seq { a, b } => {
                self.heap.retain_rec(env);
                self.push(Frame::SeqB { b, env });
                Ctl::Eval(a, env)
            }
            Code::Let {
                layout,
                rhs,
                body,
                recursive,
                strict,
            } => {
                if strict {
                    if let Some(v) = self.imm(rhs, env, IMM_DEPTH) {
                        let rec = self.heap.record(env, layout, 1);
                        self.heap.set_slot(rec, 0, v);
                        return Ok(Ctl::Eval(body, rec));
                    }
                    self.heap.retain_rec(env);
                    self.push(Frame::LetStrict { layout, body, env });
                    return Ok(Ctl::Eval(rhs, env));
                }
                // The outer record's reference moves into the new record.
                let rec = self.heap.record(env, layout, 1);
                let v = if recursive {
                    // The only way the heap makes a cycle: the cycle collector has
                    // work only after one of these.
                    self.heap.cyclic += 1;
                    self.heap.retain_rec(rec);
                    Val::Thunk(self.heap.thunk(rhs, rec))
                } else {
                    self.mkarg(rhs, env)
                };
                self.heap.set_slot(rec, 0, v);
                Ctl::Eval(body, rec)
            }
            Code::Match(m) => {
                let scrut = self.code.matches[m as usize].scrut;
                if let Code::Bin { prim, a, b, .. } = self.code.nodes[scrut as usize]
                    && is_compare(prim)
                    && let Some(v) = self.imm(scrut, env, IMM_DEPTH)
                {
                    // A condition computed in place: choose the arm directly.
                    let _ = (prim, a, b);
                    return self.case(v, m, env);
                }
                if let Some(w) = self.var_word(scrut, env)
                    && !matches!(w, Val::Thunk(_))
                {
                    self.heap.retain(w);
                    return self.case(w, m, env);
                }
                self.heap.retain_rec(env);
                self.push(Frame::Case { m, env });
                Ctl::Eval(scrut, env)
            }
        })
    }

    /// Needs a thunk (owned reference).
    #[inline]
    pub(crate) fn force(&mut self, t: Ref) -> Result<Ctl> {
        let fiber = self.fiber;
        let obj = self.heap.thunks.get_mut(t);
        match obj.state {
            ThunkState::Done(v) => {
                self.heap.retain(v);
                self.heap.release(Val::Thunk(t));
                Ok(Ctl::Ret(v))
            }
            ThunkState::Suspended { code, env } => {
                obj.state = ThunkState::Blackholed { fiber, code };
                self.push(Frame::Update(t));
                Ok(Ctl::Eval(code, env))
            }
            ThunkState::Blackholed { fiber: owner, code } => {
                if owner != fiber
                    && let Some(ctl) = self.wait_for_thunk(t, owner)
                {
                    return Ok(ctl);
                }
                self.heap.release(Val::Thunk(t));
                Err(RuntimeError::at("infinite loop", self.code_span(code)))
            }
            ThunkState::Failed(i) => {
                let e = self.failures[i as usize].clone();
                self.heap.release(Val::Thunk(t));
                Err(e)
            }
        }
    }

    /// A fiber needs a thunk (owned reference) another fiber is evaluating: the
    /// scheduler parks it, or `None` when there is no scheduler or waiting would
    /// never end.
    fn wait_for_thunk(&mut self, t: Ref, owner: u32) -> Option<Ctl> {
        self.host.as_ref()?;
        self.with_host(|h, m| h.wait_thunk(m, t, owner))
    }

    /// A value reaches the frame on top.
    pub(crate) fn ret(&mut self, v: Val) -> Result<Ctl> {
        let f = self.frames.pop().expect("ret() with frames");
        match f {
            Frame::Update(t) => {
                self.heap.retain(v);
                let o = self.heap.thunks.get_mut(t);
                o.state = ThunkState::Done(v);
                if o.waiters {
                    o.waiters = false;
                    self.with_host(|h, m| h.wake(m, t));
                }
                self.heap.release(Val::Thunk(t));
                Ok(Ctl::Ret(v))
            }
            Frame::Arg(..) => {
                self.frames.push(f);
                self.apply(v)
            }
            Frame::Case { m, env } => self.case(v, m, env),
            Frame::BinL { prim, b, env, span } => {
                if let Some(y) = self.imm(b, env, IMM_DEPTH) {
                    self.heap.release_rec(env);
                    return self.bin_run(prim, v, y, span);
                }
                self.push(Frame::BinR { prim, a: v, span });
                Ok(Ctl::Eval(b, env))
            }
            Frame::BinLv { prim, b, span } => {
                self.push(Frame::BinR { prim, a: v, span });
                Ok(self.need(b))
            }
            Frame::BinR { prim, a, span } => self.bin_run(prim, a, v, span),
            Frame::CallArgs {
                code,
                env,
                next,
                rec,
            } => {
                self.heap.set_slot(rec, next, v);
                self.call_args(code, env, next + 1, rec)
            }
            Frame::Strict { .. } => {
                self.frames.push(f);
                self.strict_value(v)
            }
            Frame::LetStrict { layout, body, env } => {
                let rec = self.heap.record(env, layout, 1);
                self.heap.set_slot(rec, 0, v);
                Ok(Ctl::Eval(body, rec))
            }
            Frame::SeqB { b, env } => {
                self.heap.release(v);
                Ok(Ctl::Eval(b, env))
            }
            Frame::ConcatL { b, span } => self.concat_left(v, b, span),
            Frame::ConcatR { a } => self.concat_right(a, v),
            Frame::Deep { root, base } => {
                self.frames.push(Frame::Deep { root, base });
                self.deep_value(v)
            }
            Frame::Eq { .. } => unreachable!("an Eq frame is never returned to directly"),
            Frame::Stream => unreachable!("the Stream frame is below the base of its run"),
            Frame::EqLeft(right) => {
                self.push(Frame::EqRight(v));
                Ok(self.need(right))
            }
            Frame::EqRight(left) => self.eq_step(left, v),
            Frame::Try => Ok(Ctl::Ret(v)),
            Frame::Declare { files, .. } => {
                self.heap.release(files);
                Ok(Ctl::Ret(v))
            }
            Frame::After(b) => {
                self.heap.release(v);
                Ok(self.need(b))
            }
        }
    }

    /// The control that needs a word (owned).
    #[inline(always)]
    pub(crate) fn need(&self, v: Val) -> Ctl {
        match v {
            Val::Thunk(t) => Ctl::Force(t),
            v => Ctl::Ret(v),
        }
    }

    // ----- calls ------------------------------------------------------------------

    /// A known call: one record for the parameters, strict arguments evaluated into
    /// it first, then the body.
    #[inline]
    fn call_def(&mut self, c: CodeId, env: Ref) -> Result<Ctl> {
        let Code::CallDef { def, .. } = self.code.nodes[c as usize] else {
            unreachable!("call_def on a node that is not a call")
        };
        let f = self.fun_of(def);
        let fun = &self.code.funs[f as usize];
        let rec = self.heap.record(NIL, fun.layout, fun.slots);
        self.call_args(c, env, 0, rec)
    }

    /// Fills the record `rec` (owned) of a known call from argument `next` on; a
    /// strict argument whose value is not at hand is evaluated under a `CallArgs`
    /// frame. When all are in, the body runs.
    fn call_args(&mut self, c: CodeId, env: Ref, next: u32, rec: Ref) -> Result<Ctl> {
        let Code::CallDef { def, args, strict } = self.code.nodes[c as usize] else {
            unreachable!("call_args on a node that is not a call")
        };
        for i in next..args.len {
            let a = self.code.args[(args.start + i) as usize];
            let v = if i < 64 && strict & (1 << i) != 0 {
                match self.imm(a, env, IMM_DEPTH) {
                    Some(v) => v,
                    None => {
                        self.heap.retain_rec(env);
                        self.push(Frame::CallArgs {
                            code: c,
                            env,
                            next: i,
                            rec,
                        });
                        return Ok(Ctl::Eval(a, env));
                    }
                }
            } else {
                self.mkarg(a, env)
            };
            self.heap.set_slot(rec, i, v);
        }
        let f = self.fun_of(def);
        let body = self.code.funs[f as usize].body;
        self.heap.release_rec(env);
        Ok(Ctl::Eval(body, rec))
    }

    /// An application of a head that is not a known definition.
    fn apply_code(&mut self, fun: CodeId, args: super::code::Args, env: Ref) -> Result<Ctl> {
        // A function already evaluated, with enough arguments: no frames.
        if let Some(Val::Fun(fr)) =
            self.var_word(fun, env)
                .or_else(|| match self.code.nodes[fun as usize] {
                    Code::Global(d) => {
                        let v = self.def_value(d);
                        self.heap.release(v);
                        Some(v)
                    }
                    _ => None,
                })
        {
            let f = self.heap.funs.get(fr).fun;
            let params = self.code.funs[f as usize].params.len() as u32;
            let direct = args.len >= params
                && self.code.apply_args(args)[..params as usize]
                    .iter()
                    .zip(&self.code.funs[f as usize].params)
                    .all(|(a, p)| a.implicit == p.implicit);
            if direct {
                for i in (params..args.len).rev() {
                    let a = self.code.apply_args[(args.start + i) as usize];
                    let v = self.mkarg(a.code, env);
                    self.push(Frame::Arg(v, a.implicit));
                }
                self.heap.retain(Val::Fun(fr));
                let rec = self.new_call_record(fr);
                for i in 0..params {
                    let p = self.code.funs[f as usize].params[i as usize];
                    if let Some(slot) = p.slot {
                        let a = self.code.apply_args[(args.start + i) as usize];
                        let v = self.mkarg(a.code, env);
                        self.heap.set_slot(rec, slot, v);
                    }
                }
                self.heap.release_rec(env);
                let body = self.code.funs[f as usize].body;
                self.heap.release(Val::Fun(fr));
                return Ok(Ctl::Eval(body, rec));
            }
        }
        for i in (0..args.len).rev() {
            let a = self.code.apply_args[(args.start + i) as usize];
            let v = self.mkarg(a.code, env);
            self.push(Frame::Arg(v, a.implicit));
        }
        Ok(Ctl::Eval(fun, env))
    }

    /// A new record for a call of function value `fr` (borrowed): its parent is the
    /// function's context, and its own slot (a recursive local function) holds it.
    #[inline]
    fn new_call_record(&mut self, fr: Ref) -> Ref {
        let fo = self.heap.funs.get(fr);
        let (f, env) = (fo.fun, fo.env);
        let fun = &self.code.funs[f as usize];
        let (layout, slots, self_slot) = (fun.layout, fun.slots, fun.self_slot);
        self.heap.retain_rec(env);
        let rec = self.heap.record(env, layout, slots);
        if let Some(s) = self_slot {
            self.heap.retain(Val::Fun(fr));
            self.heap.set_slot(rec, s, Val::Fun(fr));
        }
        rec
    }

    /// A weak head normal form meets pending applications (`Arg` frames on top).
    fn apply(&mut self, v: Val) -> Result<Ctl> {
        match v {
            Val::Fun(fr) => {
                let f = self.heap.funs.get(fr).fun;
                let rec = self.new_call_record(fr);
                self.bind_args(v, f, rec, 0)
            }
            Val::Pap(p) => {
                let o = self.heap.paps.get(p);
                let (head, taken, run) = (o.head, o.taken, o.args);
                match head {
                    PapHead::Fun(fr) => {
                        let f = self.heap.funs.get(fr).fun;
                        let rec = self.new_call_record(fr);
                        let first = self.code.funs[f as usize].self_slot.map_or(0, |_| 1);
                        for i in 0..run.len {
                            let w = self.heap.words.at(run, i);
                            self.heap.retain(w);
                            self.heap.set_slot(rec, first + i, w);
                        }
                        self.heap.retain(Val::Fun(fr));
                        self.heap.release(v);
                        self.bind_args(Val::Fun(fr), f, rec, taken)
                    }
                    _ => {
                        let mut args: Vec<Val> = self.heap.words.get(run).to_vec();
                        for &a in &args {
                            self.heap.retain(a);
                        }
                        self.heap.release(v);
                        self.apply_head(head, args.as_mut())
                    }
                }
            }
            Val::Erased | Val::Stuck(_) => {
                // An unknown (type-level evaluation): it absorbs its arguments.
                while let Some(Frame::Arg(a, _)) = self.frames.last().copied() {
                    self.frames.pop();
                    self.heap.release(a);
                }
                Ok(Ctl::Ret(v))
            }
            other => {
                let Some(Frame::Arg(a, implicit)) = self.frames.pop() else {
                    unreachable!("apply() without an argument frame")
                };
                self.heap.release(a);
                if implicit {
                    // A constructor's type parameters given after it was built.
                    return Ok(Ctl::Ret(other));
                }
                let kind = other.kind();
                self.heap.release(other);
                Err(RuntimeError::new(format!(
                    "cannot apply {kind} to an argument"
                )))
            }
        }
    }

    /// Binds the pending arguments to function `f`'s parameters from `from` on, in
    /// record `rec` (owned); `fv` is the function value (owned). Runs the body when
    /// all are bound, or returns a partial application.
    fn bind_args(&mut self, fv: Val, f: FunId, rec: Ref, from: u32) -> Result<Ctl> {
        let n = self.code.funs[f as usize].params.len() as u32;
        let mut i = from;
        while i < n {
            let Some(Frame::Arg(a, implicit)) = self.frames.last().copied() else {
                break;
            };
            let p = self.code.funs[f as usize].params[i as usize];
            if p.implicit == implicit {
                self.frames.pop();
                match p.slot {
                    Some(s) => self.heap.set_slot(rec, s, a),
                    None => self.heap.release(a),
                }
                i += 1;
            } else if implicit {
                // An implicit argument meeting an explicit parameter: erased.
                self.frames.pop();
                self.heap.release(a);
            } else {
                // An explicit argument meeting an implicit parameter: the implicit one
                // was left out (a well-typed program only does so where it is erased).
                i += 1;
            }
        }
        if i == n {
            self.heap.release(fv);
            let body = self.code.funs[f as usize].body;
            return Ok(Ctl::Eval(body, rec));
        }
        // Not enough arguments: a partial application of the slots bound so far.
        let fun = &self.code.funs[f as usize];
        let first = fun.self_slot.map_or(0, |_| 1);
        let bound = fun.params[..i as usize]
            .iter()
            .filter(|p| p.slot.is_some())
            .count() as u32;
        let Val::Fun(fr) = fv else { unreachable!() };
        let mut args = Vec::with_capacity(bound as usize);
        for k in 0..bound {
            let w = self.heap.slot(rec, first + k);
            self.heap.retain(w);
            args.push(w);
        }
        self.heap.release_rec(rec);
        Ok(Ctl::Ret(self.heap.pap(PapHead::Fun(fr), i, &args)))
    }

    /// A head that takes explicit arguments only (constructor, primitive, external,
    /// neutral), with `args` (owned) received so far, meets pending applications.
    fn apply_head(&mut self, head: PapHead, args: &mut Vec<Val>) -> Result<Ctl> {
        let arity = match head {
            PapHead::Con(c) => self.prog.con(c).fields.len(),
            PapHead::Prim(p, _) => p.arity(),
            PapHead::Extern(e, _) => super::compile::extern_arity(self.prog, e),
            PapHead::Data(_) | PapHead::Open(_) | PapHead::Hole(_) => usize::MAX,
            PapHead::Fun(_) | PapHead::Def(_) => unreachable!(),
        };
        let neutral = matches!(head, PapHead::Data(_) | PapHead::Open(_) | PapHead::Hole(_));
        while args.len() < arity {
            let Some(Frame::Arg(a, implicit)) = self.frames.last().copied() else {
                break;
            };
            self.frames.pop();
            if implicit && !neutral {
                self.heap.release(a);
            } else {
                args.push(a);
            }
        }
        if args.len() < arity {
            let n = args.len() as u32;
            return Ok(Ctl::Ret(self.heap.pap(head, n, args)));
        }
        match head {
            PapHead::Con(c) => Ok(Ctl::Ret(if args.is_empty() {
                Val::Atom(c)
            } else {
                self.heap.con(c, args)
            })),
            PapHead::Prim(p, span) => self.strict_vals(
                StrictOp::Prim(p, span),
                args,
                matches!(p, Prim::Join | Prim::SortInts),
            ),
            PapHead::Extern(e, site) => self.strict_vals(StrictOp::Extern(e, site), args, true),
            _ => unreachable!(),
        }
    }

    // ----- matches ----------------------------------------------------------------

    /// A `match` receives its scrutinee (owned) in its record (owned).
    pub(crate) fn case(&mut self, v: Val, m: u32, env: Ref) -> Result<Ctl> {
        let mc = &self.code.matches[m as usize];
        match v {
            Val::Atom(k) => {
                for arm in &mc.arms {
                    if arm.test == ArmTest::Con(k) {
                        return Ok(Ctl::Eval(arm.body, env));
                    }
                }
            }
            Val::Con(r) => {
                let k = self.heap.cons.get(r).con;
                for arm in &mc.arms {
                    if arm.test == ArmTest::Con(k) {
                        let body = arm.body;
                        let Some(layout) = arm.layout else {
                            self.heap.release(v);
                            return Ok(Ctl::Eval(body, env));
                        };
                        let fields = self.heap.cons.get(r).fields;
                        let rec = self.heap.record(env, layout, fields.len());
                        for i in 0..fields.len() {
                            let w = self.heap.forced(fields.at(&self.heap.words, i));
                            self.heap.retain(w);
                            self.heap.set_slot(rec, i, w);
                        }
                        self.heap.release(v);
                        return Ok(Ctl::Eval(body, rec));
                    }
                }
            }
            Val::Int(n) => {
                for arm in &mc.arms {
                    if arm.test == ArmTest::Int(n) {
                        return Ok(Ctl::Eval(arm.body, env));
                    }
                }
            }
            Val::Str(r) => {
                let text = self.heap.text(r).clone();
                for arm in &mc.arms {
                    if let ArmTest::Str(s) = &arm.test
                        && **s == *text
                    {
                        let body = arm.body;
                        self.heap.release(v);
                        return Ok(Ctl::Eval(body, env));
                    }
                }
            }
            Val::Pap(p)
                if self.neutral_matches
                    && matches!(
                        self.heap.paps.get(p).head,
                        PapHead::Open(_) | PapHead::Hole(_)
                    ) =>
            {
                return Ok(self.stuck(v, m, env));
            }
            Val::Erased | Val::Stuck(_) if self.neutral_matches => return Ok(self.stuck(v, m, env)),
            _ => {}
        }
        let mc = &self.code.matches[m as usize];
        match mc.default {
            Some((layout, body)) => {
                let rec = self.heap.record(env, layout, 1);
                self.heap.set_slot(rec, 0, v);
                Ok(Ctl::Eval(body, rec))
            }
            None => {
                let span = mc.span;
                self.heap.release(v);
                self.heap.release_rec(env);
                Err(RuntimeError::at("no match arm covers this value", span))
            }
        }
    }

    /// A match whose scrutinee is neutral: a stuck value (type-level evaluation).
    fn stuck(&mut self, scrut: Val, m: u32, env: Ref) -> Ctl {
        let code = self.match_node(m);
        Ctl::Ret(Val::Stuck(self.heap.stucks.alloc(super::heap::StuckObj {
            rc: 1,
            code,
            env,
            scrut,
        })))
    }

    /// The code node of a match (for stuck matches and readback).
    fn match_node(&self, m: u32) -> CodeId {
        self.code.matches[m as usize].node
    }

    // ----- places -----------------------------------------------------------------

    /// The best source place of a code node.
    pub(crate) fn code_span(&self, c: CodeId) -> Span {
        self.code.meta[c as usize].span
    }

    /// Gives an error without a place the place of the innermost frame that has one.
    /// An error inside the prelude (or without a place) is reported at the innermost
    /// place in the user's program that led to it (LANGUAGE.md 7.4: never a line of
    /// the prelude), when the machine knows which files are the user's.
    fn place_error(&self, mut e: RuntimeError) -> RuntimeError {
        let user = |s: &Span| self.user_file.as_ref().is_none_or(|f| f(s.file));
        if e.span.is_none_or(|s| !user(&s)) {
            let found = self
                .frames
                .iter()
                .rev()
                .filter_map(|f| self.frame_span(f))
                .find(|s| user(s));
            if let Some(s) = found {
                e.span = Some(s);
            } else if e.span.is_none() {
                e.span = self.frames.iter().rev().find_map(|f| self.frame_span(f));
            }
        }
        e
    }

    /// Where a frame's computation is written, if it says.
    fn frame_span(&self, f: &Frame) -> Option<Span> {
        match f {
            Frame::BinL { span, .. }
            | Frame::BinLv { span, .. }
            | Frame::BinR { span, .. }
            | Frame::ConcatL { span, .. } => Some(*span),
            Frame::Case { m, .. } => Some(self.code.matches[*m as usize].span),
            Frame::CallArgs { code, .. } => Some(self.code_span(*code)),
            Frame::Strict {
                op: StrictOp::Prim(_, span),
                ..
            } => Some(*span),
            Frame::Strict {
                op: StrictOp::Extern(_, site),
                ..
            } if *site != Site::UNKNOWN => Some(self.code_span(site.0)),
            Frame::Update(t) => match self.heap.thunks.get(*t).state {
                ThunkState::Blackholed { code, .. } => Some(self.code_span(code)),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Whether a binary primitive is arithmetic or an ordering (computable in place on
/// numbers).
#[inline(always)]
pub(crate) fn is_arith(p: Prim) -> bool {
    matches!(
        p,
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
            | Prim::Ne
    )
}

/// Whether a binary primitive yields a `Bool`.
#[inline(always)]
pub(crate) fn is_compare(p: Prim) -> bool {
    matches!(
        p,
        Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge | Prim::Eq | Prim::Ne
    )
}

/// What an operator on two `Int`s gives.
pub(crate) enum IntResult {
    Int(i64),
    Bool(bool),
}

/// What an operator on two `Float`s gives.
pub(crate) enum FloatResult {
    Float(f64),
    Bool(bool),
}

/// An operator on two `Int`s; `None` when it fails (overflow, division by zero: the
/// general path reports those).
#[inline(always)]
pub(crate) fn int_op(p: Prim, x: i64, y: i64) -> Option<IntResult> {
    Some(match p {
        Prim::Add => IntResult::Int(x.checked_add(y)?),
        Prim::Sub => IntResult::Int(x.checked_sub(y)?),
        Prim::Mul => IntResult::Int(x.checked_mul(y)?),
        Prim::Div => IntResult::Int(x.checked_div(y)?),
        Prim::Rem => IntResult::Int(x.checked_rem(y)?),
        Prim::Lt => IntResult::Bool(x < y),
        Prim::Le => IntResult::Bool(x <= y),
        Prim::Gt => IntResult::Bool(x > y),
        Prim::Ge => IntResult::Bool(x >= y),
        Prim::Eq => IntResult::Bool(x == y),
        Prim::Ne => IntResult::Bool(x != y),
        _ => return None,
    })
}

/// An operator on two `Float`s (IEEE: never fails).
#[inline(always)]
pub(crate) fn float_op(p: Prim, x: f64, y: f64) -> Option<FloatResult> {
    Some(match p {
        Prim::Add => FloatResult::Float(x + y),
        Prim::Sub => FloatResult::Float(x - y),
        Prim::Mul => FloatResult::Float(x * y),
        Prim::Div => FloatResult::Float(x / y),
        Prim::Rem => FloatResult::Float(x % y),
        Prim::Lt => FloatResult::Bool(x < y),
        Prim::Le => FloatResult::Bool(x <= y),
        Prim::Gt => FloatResult::Bool(x > y),
        Prim::Ge => FloatResult::Bool(x >= y),
        Prim::Eq => FloatResult::Bool(x == y),
        Prim::Ne => FloatResult::Bool(x != y),
        _ => return None,
    })
}
