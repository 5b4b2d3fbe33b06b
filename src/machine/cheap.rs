//! Cheap eagerness: a call in a lazy place is computed at once, instead of
//! suspended, when its callee is cheap ([`super::code::Fun::cheap`]: a body of
//! arithmetic, matches, constructors, total primitives and calls of other cheap
//! functions, none recursive) and its arguments are at hand.
//!
//! The computation is speculative and invisible. It makes no record and no frame: the
//! records the calls, arms and `let`s it goes through would make are *windows* on one
//! stack of slots, each with a parent (another window, or a real record for the
//! context of a closure). It forces no thunk, runs no external, reports no error, and
//! visits at most [`FUEL`] nodes. When anything would need more (a value not yet
//! evaluated, an operation that fails, a node of another kind, fuel spent) it gives
//! `None`, everything it made is released, and the machine suspends the call as it
//! would have without this. So a program never does, fails or prints anything its
//! lazy run would not: it only does some of that run's work earlier, and at most
//! [`FUEL`] nodes of work that run would not do.
//!
//! What it is for: a lazy accumulator. `foldl (\acc x -> acc + x)` or a step that
//! builds a pair of counts from the previous pair stays a value at every step,
//! instead of a chain of thunks as long as the list (each keeping its part of the
//! list alive) that is forced only at the end.

use super::Machine;
use super::code::{Args, ArmTest, Code, CodeId, FunId};
use super::eval::{float_op, int_op, is_arith};
use super::frame::Control;
use super::value::{NIL, Ref, Val};
use crate::core::term::DefId;
use crate::prim::Prim;

/// How many nodes one cheap computation visits at most: a bound on the work done
/// that the lazy run might not do, and on native recursion.
const FUEL: u32 = 200;

/// The most slots a call computed at hand has (its window is filled from a buffer
/// of this size).
pub(crate) const CHEAP_ARGS: usize = 6;

/// How many tier steps a fold's step may take ([`Machine::cheap_step_call`]).
const STEP_TIER_BUDGET: u64 = 64;

/// Where a window's parent record is.
#[derive(Clone, Copy, Debug)]
enum Up {
    /// Another window.
    Win(u32),
    /// A real record (borrowed; `NIL` for a top-level function).
    Rec(Ref),
}

/// One record a cheap computation stands for: its slots start at `base` and end
/// where the next window's start (windows are pushed and popped in order).
#[derive(Clone, Copy, Debug)]
struct Window {
    base: u32,
    parent: Up,
}

/// The windows of the cheap computation under way (empty between computations, so
/// the heap's audits and readback never see them).
#[derive(Default, Debug)]
pub(crate) struct Windows {
    /// Every window's slots (counted references).
    slots: Vec<Val>,
    wins: Vec<Window>,
    /// Nodes the computation may still visit.
    fuel: u32,
    /// Computations under way (one may start while the arguments of another are
    /// computed): the outermost one sets the fuel, which they share.
    active: u32,
}

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

/// Primitives a cheap computation may run: total on values of their types, with a
/// result at most as large as their arguments (no list is built or walked).
pub(crate) fn cheap_prim(p: Prim) -> bool {
    matches!(
        p,
        Prim::IntToFloat
            | Prim::Sqrt
            | Prim::Floor
            | Prim::Ceil
            | Prim::Round
            | Prim::ShowInt
            | Prim::ShowFloat
            | Prim::ParseInt
            | Prim::ParseFloat
            | Prim::StrLength
            | Prim::Substring
            | Prim::StartsWith
            | Prim::EndsWith
            | Prim::Contains
            | Prim::Trim
    )
}

impl<'p> Machine<'p> {
    /// A known call of a cheap definition in a lazy place, its arguments code in
    /// `env` (borrowed): its value when every argument is at hand and the body can be
    /// computed without evaluation, else `None` (nothing changed).
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
        let (body, n) = (fun.body, fun.slots as usize);
        // Argument `i` goes to slot `i` (a known call passes exactly the slots).
        let mut slots = [Val::Erased; CHEAP_ARGS];
        for i in 0..args.len as usize {
            let a = self.code.args[args.start as usize + i];
            slots[i] = self.imm_or_release(a, env, depth, &slots[..i])?;
        }
        self.cheap_run(body, &slots[..n], NIL)
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
        // The function value is borrowed from a slot of `env`, which outlives this.
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
        self.cheap_run(body, &slots[..n], closure_env)
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
        // counts one per element), else here.
        if step.tier
            && !acc.is_counted()
            && let Some(v) = self.tier_value(step.fun, slots, STEP_TIER_BUDGET)
        {
            return Some(v);
        }
        self.cheap_run(step.body, slots, step.env)
    }

    /// The value of a cheap body for its record's slots (owned, released here) in
    /// the context `env` (borrowed), or `None`.
    fn cheap_run(&mut self, body: CodeId, slots: &[Val], env: Ref) -> Option<Val> {
        if self.cheap.active == 0 {
            self.cheap.fuel = FUEL;
        }
        self.cheap.active += 1;
        let w = self.push_window(slots, Up::Rec(env));
        let v = self.cheap_value(body, w);
        self.pop_window();
        self.cheap.active -= 1;
        v
    }

    /// Opens a window holding `vals` (owned) under `parent`.
    fn push_window(&mut self, vals: &[Val], parent: Up) -> u32 {
        let base = self.cheap.slots.len() as u32;
        self.cheap.slots.extend_from_slice(vals);
        self.cheap.wins.push(Window { base, parent });
        (self.cheap.wins.len() - 1) as u32
    }

    /// Closes the last window, releasing its slots.
    fn pop_window(&mut self) {
        let Some(win) = self.cheap.wins.pop() else {
            return;
        };
        while self.cheap.slots.len() > win.base as usize {
            if let Some(v) = self.cheap.slots.pop() {
                self.heap.release(v);
            }
        }
    }

    /// The word in slot `slot` of the record `hops` parents up from window `w`
    /// (borrowed; an evaluated thunk is read as its value).
    fn window_word(&mut self, w: u32, hops: u32, slot: u32) -> Val {
        let (mut cur, mut h) = (w, hops);
        loop {
            let win = self.cheap.wins[cur as usize];
            if h == 0 {
                return self
                    .heap
                    .forced(self.cheap.slots[(win.base + slot) as usize]);
            }
            match win.parent {
                Up::Win(p) => {
                    cur = p;
                    h -= 1;
                }
                Up::Rec(r) => {
                    let rec = self.heap.up(r, h - 1);
                    return self.slot_word(rec, slot);
                }
            }
        }
    }

    /// A borrowed word as a value (a new reference), or `None` when it is not
    /// evaluated.
    fn evaluated(&mut self, v: Val) -> Option<Val> {
        if matches!(v, Val::Thunk(_) | Val::Erased) {
            return None;
        }
        self.heap.retain(v);
        Some(v)
    }

    /// The word code in window `w` becomes in a lazy place (a field, a lazy
    /// argument or `let`): a thunk it reads stays one; anything else is computed.
    fn cheap_word(&mut self, c: CodeId, w: u32) -> Option<Val> {
        let v = match self.code.nodes[c as usize] {
            Code::Local(s) => self.window_word(w, 0, s),
            Code::Outer { hops, slot } => self.window_word(w, hops, slot),
            Code::Global(d) => return Some(self.def_value(d)),
            Code::Lam(f) if self.code.funs[f as usize].closed => {
                return Some(self.closure(f, NIL));
            }
            _ => return self.cheap_value(c, w),
        };
        self.heap.retain(v);
        Some(v)
    }

    /// [`Machine::cheap_value`] for an operand of arithmetic: a number in a slot of
    /// the window or a literal is read without the general path.
    #[inline(always)]
    fn cheap_operand(&mut self, c: CodeId, w: u32) -> Option<Val> {
        match self.code.nodes[c as usize] {
            Code::Int(n) => return Some(Val::Int(n)),
            Code::Local(s) => {
                let base = self.cheap.wins[w as usize].base;
                let v = self.cheap.slots[(base + s) as usize];
                if matches!(v, Val::Int(_) | Val::Float(_)) {
                    return Some(v);
                }
            }
            _ => {}
        }
        self.cheap_value(c, w)
    }

    /// The value of code in window `w` (a new reference), or `None`.
    fn cheap_value(&mut self, c: CodeId, w: u32) -> Option<Val> {
        if self.cheap.fuel == 0 {
            return None;
        }
        self.cheap.fuel -= 1;
        match self.code.nodes[c as usize] {
            Code::Local(s) => {
                let v = self.window_word(w, 0, s);
                self.evaluated(v)
            }
            Code::Outer { hops, slot } => {
                let v = self.window_word(w, hops, slot);
                self.evaluated(v)
            }
            Code::Int(n) => Some(Val::Int(n)),
            Code::Float(x) => Some(Val::Float(x)),
            Code::Atom(k) => Some(Val::Atom(k)),
            Code::Str(ref s) => {
                let s = s.clone();
                Some(self.heap.string(s))
            }
            Code::Global(d) => {
                let v = self.def_value(d);
                let x = self.heap.forced(v);
                let r = self.evaluated(x);
                self.heap.release(v);
                r
            }
            Code::Con { con, args } => {
                let mut fields = Vec::with_capacity(args.len as usize);
                for i in 0..args.len {
                    let a = self.code.args[(args.start + i) as usize];
                    match self.cheap_word(a, w) {
                        Some(v) => fields.push(v),
                        None => {
                            self.release_all(&fields);
                            return None;
                        }
                    }
                }
                Some(self.heap.con(con, &fields))
            }
            Code::Bin { prim, a, b, .. } if is_arith(prim) => {
                let x = self.cheap_operand(a, w)?;
                let Some(y) = self.cheap_operand(b, w) else {
                    self.heap.release(x);
                    return None;
                };
                self.arith(prim, x, y)
            }
            Code::Prim { prim, args, span } if cheap_prim(prim) && args.len <= 3 => {
                let mut vals = [Val::Erased; 3];
                let n = args.len as usize;
                for i in 0..n {
                    let a = self.code.args[args.start as usize + i];
                    match self.cheap_value(a, w) {
                        Some(v) => vals[i] = v,
                        None => {
                            self.release_all(&vals[..i]);
                            return None;
                        }
                    }
                }
                let r = self.prim_run(prim, span, &vals[..n]);
                self.release_all(&vals[..n]);
                match r {
                    Ok(Control::Ret(v)) => Some(v),
                    _ => None,
                }
            }
            Code::Match(m) => self.cheap_match(m, w),
            Code::Let {
                rhs,
                body,
                recursive: false,
                strict,
                ..
            } => {
                let v = if strict {
                    self.cheap_value(rhs, w)?
                } else {
                    self.cheap_word(rhs, w)?
                };
                let inner = self.push_window(&[v], Up::Win(w));
                let r = self.cheap_value(body, inner);
                self.pop_window();
                r
            }
            Code::Seq { a, b } => {
                let x = self.cheap_value(a, w)?;
                self.heap.release(x);
                self.cheap_value(b, w)
            }
            Code::CallDef { def, args, strict } => {
                let f = self.fun_of(def);
                let fun = &self.code.funs[f as usize];
                if !fun.cheap || fun.slots as usize > CHEAP_ARGS || args.len > fun.slots {
                    return None;
                }
                let (body, n) = (fun.body, fun.slots as usize);
                let mut slots = [Val::Erased; CHEAP_ARGS];
                for i in 0..args.len as usize {
                    let a = self.code.args[args.start as usize + i];
                    let v = if strict & (1 << i) != 0 {
                        self.cheap_value(a, w)
                    } else {
                        self.cheap_word(a, w)
                    };
                    match v {
                        Some(v) => slots[i] = v,
                        None => {
                            self.release_all(&slots[..i]);
                            return None;
                        }
                    }
                }
                let inner = self.push_window(&slots[..n], Up::Rec(NIL));
                let r = self.cheap_value(body, inner);
                self.pop_window();
                r
            }
            Code::Apply { fun, args } => {
                let fv = self.cheap_value(fun, w)?;
                let r = self.cheap_apply_value(fv, args, w);
                self.heap.release(fv);
                r
            }
            _ => None,
        }
    }

    /// A function value (borrowed) applied to arguments code in window `w`, when it
    /// is cheap and they are exactly its parameters.
    fn cheap_apply_value(&mut self, fv: Val, args: Args, w: u32) -> Option<Val> {
        let Val::Fun(fr) = fv else {
            return None;
        };
        let (f, env) = {
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
            let v = match p.slot {
                _ if a.implicit != p.implicit => None,
                None => continue,
                Some(_) if p.strict => self.cheap_value(a.code, w),
                Some(_) => self.cheap_word(a.code, w),
            };
            match (v, p.slot) {
                (Some(v), Some(s)) => slots[s as usize] = v,
                _ => {
                    self.release_all(&slots[..n]);
                    return None;
                }
            }
        }
        let inner = self.push_window(&slots[..n], Up::Rec(env));
        let r = self.cheap_value(body, inner);
        self.pop_window();
        r
    }

    /// A `match` in window `w`: its scrutinee computed, the arm it picks (binding
    /// fields in a window of their own), or `None` when none does here (a value the
    /// machine would treat specially, or no arm: the machine reports that).
    fn cheap_match(&mut self, m: u32, w: u32) -> Option<Val> {
        let scrut = self.code.matches[m as usize].scrut;
        let v = self.cheap_value(scrut, w)?;
        let mc = &self.code.matches[m as usize];
        let arm = match v {
            Val::Atom(k) => mc.arms.iter().find(|a| a.test == ArmTest::Con(k)),
            Val::Con(r) => {
                let k = self.heap.cons.get(r).con;
                mc.arms.iter().find(|a| a.test == ArmTest::Con(k))
            }
            Val::Int(n) => mc.arms.iter().find(|a| a.test == ArmTest::Int(n)),
            Val::Str(r) => {
                let text = self.heap.text(r);
                mc.arms
                    .iter()
                    .find(|a| matches!(&a.test, ArmTest::Str(s) if **s == **text))
            }
            _ => {
                self.heap.release(v);
                return None;
            }
        };
        if let Some(arm) = arm {
            let body = arm.body;
            let (Val::Con(r), Some(_)) = (v, arm.layout) else {
                self.heap.release(v);
                return self.cheap_value(body, w);
            };
            let inner = self.push_window(&[], Up::Win(w));
            let fields = self.heap.cons.get(r).fields;
            for i in 0..fields.len() {
                let x = self.heap.forced(fields.at(&self.heap.words, i));
                self.heap.retain(x);
                self.cheap.slots.push(x);
            }
            self.heap.release(v);
            let r = self.cheap_value(body, inner);
            self.pop_window();
            return r;
        }
        let Some((_, body)) = self.code.matches[m as usize].default else {
            self.heap.release(v);
            return None;
        };
        let inner = self.push_window(&[v], Up::Win(w));
        let r = self.cheap_value(body, inner);
        self.pop_window();
        r
    }

    /// An arithmetic operator or comparison on two values (owned): its result, or
    /// `None` (releasing both) when they are not two numbers of one kind or the
    /// operation fails.
    pub(crate) fn arith(&mut self, prim: Prim, x: Val, y: Val) -> Option<Val> {
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
}
