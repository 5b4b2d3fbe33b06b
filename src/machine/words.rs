//! Words at hand: reading a slot (compressing evaluated thunks away), the value of
//! code when it needs no evaluation (`imm`, with its superinstructions), and the word
//! an argument becomes (`mkarg`: its value, or a thunk of its code).

use super::Machine;
use super::code::{Args, Code, CodeId, Fast, FunId, LayoutId};
use super::eval::{FloatResult, IMM_DEPTH, IntResult, float_op, int_op, is_arith, is_compare};
use super::frame::{Frame, Stacks};
use super::heap::ThunkState;
use super::value::{NIL, Ref, Val};

/// How deep [`Machine::mkarg`] builds nested constructors before leaving the rest a
/// thunk: deep enough that ordinary literals are built whole, shallow enough for any
/// native stack.
const CON_DEPTH: u32 = 256;

impl<'p> Machine<'p> {
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
    pub(crate) fn var_word(&mut self, c: CodeId, env: Ref) -> Option<Val> {
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
        self.imm_in(c, env, depth, false)
    }

    /// [`Machine::imm`], in a lazy place when `lazy` (a call there is computed only
    /// when its callee is cheap: the value may never be needed; see [`super::cheap`]).
    #[inline]
    pub(crate) fn imm_in(&mut self, c: CodeId, env: Ref, depth: u32, lazy: bool) -> Option<Val> {
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
            Fast::No | Fast::CheapCall | Fast::HandCall | Fast::FoldRange => {}
        }
        self.imm_general(c, env, depth, lazy)
    }

    /// [`Machine::imm`] for what its superinstructions do not cover.
    fn imm_general(&mut self, c: CodeId, env: Ref, depth: u32, lazy: bool) -> Option<Val> {
        let v = match self.code.nodes[c as usize] {
            Code::Local(s) => self.slot_word(env, s),
            Code::Outer { hops, slot } => {
                let r = self.heap.up(env, hops);
                self.slot_word(r, slot)
            }
            Code::Int(n) => return Some(Val::Int(n)),
            Code::Float(x) => return Some(Val::Float(x)),
            Code::Char(x) => return Some(Val::Char(x)),
            Code::Atom(c) => return Some(Val::Atom(c)),
            Code::Bin { prim, a, b, .. } if depth > 0 && is_arith(prim) => {
                let x = self.imm_in(a, env, depth - 1, lazy)?;
                let y = match self.imm_in(b, env, depth - 1, lazy) {
                    Some(y) => y,
                    None => {
                        self.heap.release(x);
                        return None;
                    }
                };
                return self.arith(prim, x, y);
            }
            Code::Apply { fun, args } if depth > 0 => {
                return self.cheap_apply(fun, args, env, depth - 1, lazy);
            }
            // `if a < b then x else y` on two numbers at hand: the comparison cannot
            // fail, and the arm taken is computed the same way (its code runs in the
            // same record: the arms bind nothing).
            Code::Match(m) if depth > 0 => return self.imm_if(m, env, depth - 1, lazy),
            Code::CallDef { def, args, strict }
                if depth > 0
                    && match self.code.fast[c as usize] {
                        Fast::CheapCall => true,
                        Fast::HandCall => !lazy,
                        _ => false,
                    } =>
            {
                return self.cheap_call(def, args, strict, env, depth - 1, lazy);
            }
            _ => return None,
        };
        if matches!(v, Val::Thunk(_)) {
            return None;
        }
        self.heap.retain(v);
        Some(v)
    }

    /// [`Machine::imm_in`] of an `if` on a comparison: the arm taken, when both
    /// operands are numbers at hand (kept out of the hot path).
    #[inline(never)]
    fn imm_if(&mut self, m: u32, env: Ref, depth: u32, lazy: bool) -> Option<Val> {
        let mc = &self.code.matches[m as usize];
        let (yes, no) = mc.bool_arms?;
        let Code::Bin { prim, a, b, .. } = self.code.nodes[mc.scrut as usize] else {
            return None;
        };
        if !is_compare(prim) {
            return None;
        }
        let x = self.imm_in(a, env, depth, lazy)?;
        let Some(y) = self.imm_in(b, env, depth, lazy) else {
            self.heap.release(x);
            return None;
        };
        let r = match (x, y) {
            (Val::Int(x), Val::Int(y)) => match int_op(prim, x, y) {
                Some(IntResult::Bool(r)) => Some(r),
                _ => None,
            },
            (Val::Float(x), Val::Float(y)) => match float_op(prim, x, y) {
                Some(FloatResult::Bool(r)) => Some(r),
                _ => None,
            },
            _ => None,
        };
        self.heap.release(x);
        self.heap.release(y);
        self.imm_in(if r? { yes } else { no }, env, depth, lazy)
    }

    #[inline(always)]
    pub(crate) fn int_result(&self, r: IntResult) -> Val {
        match r {
            IntResult::Int(n) => Val::Int(n),
            IntResult::Bool(b) => self.bool_val(b),
        }
    }

    #[inline(always)]
    pub(crate) fn float_result(&self, r: FloatResult) -> Val {
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

    /// Makes the right operand of the `BinL` frame at `i` of a parked fiber's stacks
    /// a word (a thunk unless at hand), so that another fiber can evaluate it: the
    /// frame becomes `BinLv`. Returns the word (a new reference for the caller).
    pub(crate) fn delay_operand(&mut self, stacks: &mut Stacks, i: usize) -> Val {
        let Frame::BinL { prim, b, env, span } = stacks.frames[i] else {
            unreachable!("delay_operand on a frame that is not BinL")
        };
        let t = self.mkarg(b, env);
        self.heap.release_rec(env);
        stacks.frames[i] = Frame::BinLv { prim, b: t, span };
        self.heap.retain(t);
        t
    }

    /// The word an argument's code becomes: its value when at hand, otherwise a thunk
    /// of the code in `env` (borrowed). A new reference.
    #[inline]
    pub(crate) fn mkarg(&mut self, c: CodeId, env: Ref) -> Val {
        self.mkarg_within(c, env, CON_DEPTH)
    }

    /// [`Machine::mkarg`] building constructors at most `depth` deep at once: a deeper
    /// one (the tail of a long list literal) is left a thunk that builds the next
    /// stretch when forced, so native recursion stays bounded however long the literal.
    fn mkarg_within(&mut self, c: CodeId, env: Ref, depth: u32) -> Val {
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
            Code::Char(x) => Val::Char(x),
            Code::Atom(c) => Val::Atom(c),
            Code::Erased => Val::Erased,
            Code::Universe(n) => Val::Universe(n),
            Code::PrimType(p) => Val::PrimType(p),
            Code::Global(d) => self.def_value(d),
            Code::Lam(f) => self.closure(f, env),
            // Arithmetic and cheap calls ([`Machine::cheap_call`]) with their operands
            // at hand are computed now.
            Code::Apply { .. } => match self.imm_in(c, env, IMM_DEPTH, true) {
                Some(v) => v,
                None => self.suspend(c, env),
            },
            // Other expressions the cheap evaluator may compute (a projection, a
            // `match`, a `let`, an operator on such): tried there
            // ([`Machine::lazy_expr`]).
            Code::Bin { .. } => match self.imm_in(c, env, IMM_DEPTH, true) {
                Some(v) => v,
                None => self.lazy_expr(c, env),
            },
            Code::Match(_) | Code::Let { .. } | Code::Prim { .. } => self.lazy_expr(c, env),
            // Made as the untrimmed term is; trimmed later if it lives long
            // ([`Machine::trim_thunks`]).
            Code::Trim { orig, .. } => self.mkarg_within(orig, env, depth),
            Code::CallDef { .. } if self.code.fast[c as usize] == Fast::CheapCall => {
                match self.imm_in(c, env, IMM_DEPTH, true) {
                    Some(v) => v,
                    None => self.suspend(c, env),
                }
            }
            Code::Con { .. } if depth == 0 => self.suspend(c, env),
            Code::Con { con, args } => {
                let n = args.len as usize;
                let mut fields = [Val::Erased; 4];
                if n <= 4 {
                    for (i, field) in fields.iter_mut().enumerate().take(n) {
                        let a = self.code.args[(args.start as usize) + i];
                        *field = self.mkarg_within(a, env, depth - 1);
                    }
                    self.heap.con(con, &fields[..n])
                } else {
                    let codes: Vec<CodeId> = self.code.args(args).to_vec();
                    let fields: Vec<Val> = codes
                        .iter()
                        .map(|&a| self.mkarg_within(a, env, depth - 1))
                        .collect();
                    self.heap.con(con, &fields)
                }
            }
            _ => self.suspend(c, env),
        }
    }

    pub(crate) fn release_all(&mut self, vals: &[Val]) {
        for &v in vals {
            self.heap.release(v);
        }
    }

    /// A thunk of code in `env` (borrowed; none is kept when the code is closed).
    #[inline(always)]
    pub(crate) fn suspend(&mut self, c: CodeId, env: Ref) -> Val {
        let env = if self.code.closed[c as usize] {
            NIL
        } else {
            self.heap.retain_rec(env);
            env
        };
        Val::Thunk(self.heap.thunk(c, env))
    }

    /// The record of a [`Code::Trim`]: the captured variables' words, read in `env`
    /// (borrowed), in a record without a parent. A new reference.
    pub(crate) fn captures_record(&mut self, layout: LayoutId, caps: Args, env: Ref) -> Ref {
        let rec = self.heap.record(NIL, layout, caps.len);
        for i in 0..caps.len {
            let a = self.code.args[(caps.start + i) as usize];
            let w = self.var_word(a, env).unwrap_or(Val::Erased);
            self.heap.retain(w);
            self.heap.set_slot(rec, i, w);
        }
        rec
    }

    /// Trims every suspended thunk of a term compiled both ways ([`Code::Trim`]): its
    /// code becomes the trimmed body, its record one of the captures alone, so it no
    /// longer keeps alive the records around it. Run where the cycle collector may
    /// run (the heap has grown by a factor since the last time), so the cost is
    /// amortized over the allocation and only thunks that live that long pay it.
    pub(crate) fn trim_thunks(&mut self) {
        if self.code.trim_twins.is_empty() {
            return;
        }
        let handles: Vec<Ref> = self.heap.thunks.live_handles().collect();
        for t in handles {
            // Releasing a trimmed thunk's record may have freed thunks listed here;
            // a freed slot keeps its stale state and must not be trimmed (that would
            // release a record it no longer holds).
            if !self.heap.thunks.is_live(t) {
                continue;
            }
            let ThunkState::Suspended { code, env } = self.heap.thunks.get(t).state else {
                continue;
            };
            if env == NIL {
                continue;
            }
            let Some(&trim) = self.code.trim_twins.get(&code) else {
                continue;
            };
            let Code::Trim {
                layout, caps, body, ..
            } = self.code.nodes[trim as usize]
            else {
                continue;
            };
            let rec = self.captures_record(layout, caps, env);
            self.heap.thunks.get_mut(t).state = ThunkState::Suspended {
                code: body,
                env: rec,
            };
            self.heap.release_rec(env);
        }
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
}
