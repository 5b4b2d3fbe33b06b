//! Words at hand: reading a slot (compressing evaluated thunks away), the value of
//! code when it needs no evaluation (`imm`, with its superinstructions), and the word
//! an argument becomes (`mkarg`: its value, or a thunk of its code).

use super::Machine;
use super::code::{Args, ArmTest, Code, CodeId, Fast, FunId};
use super::eval::{FloatResult, IMM_DEPTH, IntResult, float_op, int_op, is_arith};
use super::heap::ThunkState;
use super::value::{NIL, Ref, Val};
use crate::core::term::DefId;

/// How deep [`Machine::mkarg`] builds nested constructors before leaving the rest a
/// thunk: deep enough that ordinary literals are built whole, shallow enough for any
/// native stack.
const CON_DEPTH: u32 = 256;

/// How many tier steps a fold's step may take ([`Machine::cheap_step_call`]).
const STEP_TIER_BUDGET: u64 = 64;

/// The most arguments a call made eagerly by [`Machine::cheap_call`] takes.
const CHEAP_ARGS: usize = 4;

/// A cheap function of two explicit parameters, as a fold's step
/// ([`Machine::cheap_step`]).
#[derive(Clone, Copy)]
pub(crate) struct CheapStep {
    fun: FunId,
    body: CodeId,
    /// The function's context (borrowed from the function value).
    env: Ref,
    /// The slots of its two parameters.
    slots: [Option<u32>; 2],
    /// How many slots its record has.
    len: u32,
    /// Whether its body is in the numeric tier's subset.
    tier: bool,
}

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
            Fast::No | Fast::CheapCall | Fast::FoldRange => {}
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
                return self.arith(prim, x, y);
            }
            Code::Apply { fun, args } if depth > 0 => {
                return self.cheap_apply(fun, args, env, depth - 1);
            }
            Code::CallDef { def, args, .. }
                if depth > 0 && self.code.fast[c as usize] == Fast::CheapCall =>
            {
                return self.cheap_call(def, args, env, depth - 1);
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
            Code::Atom(c) => Val::Atom(c),
            Code::Erased => Val::Erased,
            Code::Universe(n) => Val::Universe(n),
            Code::PrimType(p) => Val::PrimType(p),
            Code::Global(d) => self.def_value(d),
            Code::Lam(f) => self.closure(f, env),
            // Arithmetic and cheap calls ([`Machine::cheap_call`]) with their operands
            // at hand are computed now.
            Code::Bin { .. } | Code::Apply { .. } => match self.imm(c, env, IMM_DEPTH) {
                Some(v) => v,
                None => self.suspend(c, env),
            },
            Code::CallDef { .. } if self.code.fast[c as usize] == Fast::CheapCall => {
                match self.imm(c, env, IMM_DEPTH) {
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

    /// Cheap eagerness for a known call in a lazy place: when the callee's body is
    /// arithmetic ([`super::code::Fun::cheap`]) and every argument is at hand, the
    /// body is computed now instead of suspended. Nothing else runs, so nothing the
    /// lazy program would not do happens; a failure (overflow, division by zero, an
    /// operand not evaluated) gives `None` and the call is suspended as before. This
    /// keeps a lazy accumulator (`foldl (\acc x -> acc + x)`, `iterate lcg`) a number
    /// instead of a chain of thunks.
    pub(crate) fn cheap_call(
        &mut self,
        def: DefId,
        args: Args,
        env: Ref,
        depth: u32,
    ) -> Option<Val> {
        let f = self.fun_of(def);
        let fun = &self.code.funs[f as usize];
        if !fun.cheap || fun.slots as usize > CHEAP_ARGS || args.len > fun.slots {
            return None;
        }
        let body = fun.body;
        // Argument `i` goes to slot `i` (a known call passes exactly the slots).
        let mut slots = [Val::Erased; CHEAP_ARGS];
        for i in 0..args.len as usize {
            let a = self.code.args[args.start as usize + i];
            slots[i] = self.imm_or_release(a, env, depth, &slots[..i])?;
        }
        self.cheap_body(body, &slots[..args.len as usize], NIL, depth)
    }

    /// [`Machine::cheap_call`] for an application of a function value.
    pub(crate) fn cheap_apply(
        &mut self,
        fun: CodeId,
        args: Args,
        env: Ref,
        depth: u32,
    ) -> Option<Val> {
        let Some(Val::Fun(fr)) = self.var_word(fun, env) else {
            return None;
        };
        let (f, closure_env) = {
            let o = self.heap.funs.get(fr);
            (o.fun, o.env)
        };
        let code = &self.code.funs[f as usize];
        if !code.cheap || code.params.len() != args.len as usize || code.slots as usize > CHEAP_ARGS
        {
            return None;
        }
        let (n, body) = (code.slots as usize, code.body);
        let mut slots = [Val::Erased; CHEAP_ARGS];
        for i in 0..args.len as usize {
            let a = self.code.apply_args[args.start as usize + i];
            let p = self.code.funs[f as usize].params[i];
            if a.implicit != p.implicit {
                self.release_all(&slots[..n]);
                return None;
            }
            if let Some(s) = p.slot {
                slots[s as usize] = self.imm_or_release(a.code, env, depth, &slots[..n])?;
            }
        }
        // A recursive local function's own slot stays `Erased`: arithmetic does not
        // call it.
        self.cheap_body(body, &slots[..n], closure_env, depth)
    }

    /// A function value (borrowed) whose body is cheap and which takes two explicit
    /// arguments, ready for [`Machine::cheap_step_call`]: a fold's step.
    pub(crate) fn cheap_step(&self, f: Val) -> Option<CheapStep> {
        let Val::Fun(fr) = f else {
            return None;
        };
        let o = self.heap.funs.get(fr);
        let code = &self.code.funs[o.fun as usize];
        if !code.cheap || code.params.len() != 2 || code.slots as usize > CHEAP_ARGS {
            return None;
        }
        let (p, q) = (code.params[0], code.params[1]);
        if p.implicit || q.implicit {
            return None;
        }
        Some(CheapStep {
            fun: o.fun,
            body: code.body,
            env: o.env,
            slots: [p.slot, q.slot],
            len: code.slots,
            tier: code.tier_body,
        })
    }

    /// A cheap step applied to an accumulator (owned) and an `Int`: its value, or
    /// `None` (the accumulator released) when it cannot be computed at hand.
    pub(crate) fn cheap_step_call(&mut self, step: CheapStep, acc: Val, x: i64) -> Option<Val> {
        let mut slots = [Val::Erased; CHEAP_ARGS];
        for (slot, v) in step.slots.into_iter().zip([acc, Val::Int(x)]) {
            match slot {
                Some(s) => slots[s as usize] = v,
                None => self.heap.release(v),
            }
        }
        let slots = &slots[..step.len as usize];
        // A body of numbers runs in the numeric tier (its steps not counted: the loop
        // counts one per element), else by `cheap_body`.
        if step.tier
            && !acc.is_counted()
            && let Some(v) = self.tier_value(step.fun, slots, STEP_TIER_BUDGET)
        {
            return Some(v);
        }
        self.cheap_body(step.body, slots, step.env, IMM_DEPTH)
    }

    /// The value of a cheap function's body for the call's slots (owned, released
    /// here) in the function's context `env`, without making the call's record:
    /// like [`Machine::imm`], for the nodes an arithmetic body has.
    fn cheap_body(&mut self, body: CodeId, slots: &[Val], env: Ref, depth: u32) -> Option<Val> {
        let v = self.cheap_operand(body, slots, env, depth);
        self.release_all(slots);
        v
    }

    fn cheap_operand(&mut self, c: CodeId, slots: &[Val], env: Ref, depth: u32) -> Option<Val> {
        let w = match self.code.nodes[c as usize] {
            Code::Local(s) => slots[s as usize],
            Code::Outer { hops, slot } => {
                // Hop 1 is the function's context: the call's own record is not made.
                let r = self.heap.up(env, hops - 1);
                self.heap.forced(self.heap.slot(r, slot))
            }
            Code::Int(n) => return Some(Val::Int(n)),
            Code::Float(x) => return Some(Val::Float(x)),
            Code::Match(m) if depth > 0 => {
                // An `if` on a comparison ([`super::compile`] checked its shape).
                let scrut = self.code.matches[m as usize].scrut;
                let Val::Atom(k) = self.cheap_operand(scrut, slots, env, depth - 1)? else {
                    return None;
                };
                let arm = self.code.matches[m as usize]
                    .arms
                    .iter()
                    .find(|arm| arm.test == ArmTest::Con(k))?
                    .body;
                return self.cheap_operand(arm, slots, env, depth - 1);
            }
            Code::Bin { prim, a, b, .. } if depth > 0 && is_arith(prim) => {
                let x = self.cheap_operand(a, slots, env, depth - 1)?;
                let Some(y) = self.cheap_operand(b, slots, env, depth - 1) else {
                    self.heap.release(x);
                    return None;
                };
                return self.arith(prim, x, y);
            }
            _ => return None,
        };
        if matches!(w, Val::Thunk(_) | Val::Erased) {
            return None;
        }
        self.heap.retain(w);
        Some(w)
    }

    /// An arithmetic operator or comparison on two values (owned): its result, or
    /// `None` (releasing both) when they are not two numbers of one kind or the
    /// operation fails.
    fn arith(&mut self, prim: crate::prim::Prim, x: Val, y: Val) -> Option<Val> {
        match (x, y) {
            (Val::Int(x), Val::Int(y)) => int_op(prim, x, y).map(|r| self.int_result(r)),
            (Val::Float(x), Val::Float(y)) => float_op(prim, x, y).map(|r| self.float_result(r)),
            _ => {
                self.heap.release(x);
                self.heap.release(y);
                None
            }
        }
    }

    /// The value of `c` at hand, or `None` after releasing `done` (the arguments
    /// computed so far).
    fn imm_or_release(&mut self, c: CodeId, env: Ref, depth: u32, done: &[Val]) -> Option<Val> {
        let v = self.imm(c, env, depth);
        if v.is_none() {
            self.release_all(done);
        }
        v
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
