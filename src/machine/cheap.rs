//! Cheap eagerness: computing a call at hand instead of making its records and
//! frames, in two places.
//!
//! - **In a lazy place** (an argument, a field, a `let`), a call whose callee is
//!   cheap ([`super::code::Fun::cheap`]: a small body of arithmetic, matches,
//!   constructors, total primitives and calls of other cheap functions, none
//!   recursive) and whose arguments are at hand is computed at once instead of
//!   suspended. This is speculation: the lazy run might never need the value. So it
//!   is bounded (`LAZY_FUEL` nodes) and invisible.
//! - **Where the value is needed now** (a condition, a strict argument or `let`, an
//!   operand), the callee may also be recursive ([`super::code::Fun::hand`]: `safe`
//!   in n-queens, a search down a list). The machine would do this work next anyway;
//!   doing it here saves its records and frames. Tail calls loop, other nesting is
//!   bounded (`MAX_NEST`), and so is the work (`STRICT_FUEL` nodes). A function
//!   whose computations keep failing here is no longer tried (`Windows`).
//!
//! Either way the computation makes no record and no frame: the records the calls,
//! arms and `let`s it goes through would make are *windows* on one stack of slots,
//! each with a parent (another window, or a real record for the context of a
//! closure). It forces no thunk, runs no external, reports no error. When anything
//! would need more (a value not yet evaluated, an operation that fails, a node of
//! another kind, fuel spent) it gives `None`, everything it made is released, and
//! the machine goes on as it would have without this. So a program never does,
//! fails or prints anything its lazy run would not: it only does some of that run's
//! work earlier, and a bounded amount of work that run would not do.
//!
//! - **An expression in a lazy place** that is not a call (a field projection, a
//!   `match`, a `let`, arithmetic on a projected field: `{ s | count = s.count + 1 }`)
//!   is computed the same way, in the record it would be suspended in
//!   ([`Machine::lazy_expr`]), with the same bound; an expression that keeps failing
//!   here (its inputs are not evaluated when it is built) is no longer tried.
//!
//! What the lazy place is for: a lazy accumulator. `foldl (\acc x -> acc + x)` or a
//! step that builds a pair of counts from the previous pair stays a value at every
//! step, instead of a chain of thunks as long as the list (each keeping its part of
//! the list alive) that is forced only at the end.

use super::Machine;
use super::code::{Args, ArmTest, Code, CodeId, FunId};
use super::eval::{FloatResult, IntResult, float_op, int_op, is_arith, is_compare};
use super::frame::Control;
use super::value::{NIL, Ref, Val};
use crate::core::term::DefId;
use crate::prim::Prim;

/// How many nodes a computation in a lazy place visits at most: a bound on the work
/// done that the lazy run might not do.
const LAZY_FUEL: u32 = 200;

/// How many nodes a computation whose value is needed visits at most: a bound on the
/// work done twice when it fails (the machine then does it).
const STRICT_FUEL: u32 = 20_000;

/// How deeply computations nest (operands, conditions, fields, calls not in tail
/// position): a bound on native recursion.
const MAX_NEST: u32 = 48;

/// After how many failures a recursive function is no longer computed at hand (when
/// it has failed more often than not).
const GIVE_UP: u32 = 16;

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
    /// How deeply the evaluator is nested now.
    nest: u32,
    /// Per function (by [`FunId`]) computed where its value is needed: how often that
    /// succeeded and how often it failed (the machine then did the work again).
    tried: Vec<(u32, u32)>,
    /// Per code node (by [`CodeId`]) computed in a lazy place by
    /// [`Machine::lazy_expr`]: how often that succeeded and failed (saturating).
    exprs: Vec<(u16, u16)>,
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

/// A comparison of two words that hold no references: constructors without fields
/// (equal when they are the same constructor: `compare x y != GT`) and characters.
fn atom_compare(prim: Prim, x: Val, y: Val) -> Option<bool> {
    let ord = match (x, y) {
        (Val::Atom(a), Val::Atom(b)) => {
            let same = a == b;
            return match prim {
                Prim::Eq => Some(same),
                Prim::Ne => Some(!same),
                _ => None,
            };
        }
        (Val::Char(a), Val::Char(b)) => a.cmp(&b),
        _ => return None,
    };
    Some(match prim {
        Prim::Lt => ord.is_lt(),
        Prim::Le => ord.is_le(),
        Prim::Gt => ord.is_gt(),
        Prim::Ge => ord.is_ge(),
        Prim::Eq => ord.is_eq(),
        Prim::Ne => ord.is_ne(),
        _ => return None,
    })
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
            | Prim::Abs
            | Prim::Compare
            | Prim::DivFloor
            | Prim::ModFloor
    )
}

impl<'p> Machine<'p> {
    /// A known call of a definition, its arguments code in `env` (borrowed): its value
    /// when the callee may be computed here (cheap; or, when the value is needed now,
    /// `hand` too), its arguments are at hand and the body can be computed, else
    /// `None` (nothing changed). `strict`: which arguments the callee needs.
    pub(crate) fn cheap_call(
        &mut self,
        def: DefId,
        args: Args,
        strict: u64,
        env: Ref,
        depth: u32,
        lazy: bool,
    ) -> Option<Val> {
        let f = self.fun_of(def);
        if !self.may_try(f, lazy) {
            return None;
        }
        let fun = &self.code.funs[f as usize];
        if fun.slots as usize > CHEAP_ARGS || args.len > fun.slots {
            return None;
        }
        let (body, n) = (fun.body, fun.slots as usize);
        // Argument `i` goes to slot `i` (a known call passes exactly the slots).
        let mut slots = [Val::Erased; CHEAP_ARGS];
        for i in 0..args.len as usize {
            let a = self.code.args[args.start as usize + i];
            let arg_lazy = lazy || strict & (1 << i) == 0;
            slots[i] = self.imm_or_release(a, env, depth, arg_lazy, &slots[..i])?;
        }
        let v = self.cheap_run(body, &slots[..n], NIL, lazy);
        self.tally(f, lazy, v.is_some());
        v
    }

    /// [`Machine::cheap_call`] for an application of a function value.
    pub(crate) fn cheap_apply(
        &mut self,
        fun: CodeId,
        args: Args,
        env: Ref,
        depth: u32,
        lazy: bool,
    ) -> Option<Val> {
        let Some(Val::Fun(fr)) = self.var_word(fun, env) else {
            return None;
        };
        // The function value is borrowed from a slot of `env`, which outlives this.
        let (f, closure_env) = {
            let o = self.heap.funs.get(fr);
            (o.fun, o.env)
        };
        if !self.may_try(f, lazy) {
            return None;
        }
        let code = &self.code.funs[f as usize];
        if code.params.len() != args.len as usize || code.slots as usize > CHEAP_ARGS {
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
                let arg_lazy = lazy || !p.strict;
                slots[s as usize] =
                    self.imm_or_release(a.code, env, depth, arg_lazy, &slots[..n])?;
            }
        }
        let v = self.cheap_run(body, &slots[..n], closure_env, lazy);
        self.tally(f, lazy, v.is_some());
        v
    }

    /// Whether a call of `f` may be computed here: a cheap function anywhere; a
    /// `hand` one where its value is needed, unless it has failed here more often
    /// than not. Functions in the numeric tier are left to it.
    fn may_try(&self, f: FunId, lazy: bool) -> bool {
        if !self.tiers.on.at_hand {
            return false;
        }
        let fun = &self.code.funs[f as usize];
        if fun.cheap {
            return true;
        }
        if lazy || !fun.hand || fun.numeric {
            return false;
        }
        match self.tiers.cheap.tried.get(f as usize) {
            Some(&(done, failed)) => failed < GIVE_UP || failed <= done,
            None => true,
        }
    }

    /// Counts a computation of a recursive function where its value was needed.
    fn tally(&mut self, f: FunId, lazy: bool, done: bool) {
        if lazy || self.code.funs[f as usize].cheap {
            return;
        }
        if self.tiers.cheap.tried.len() <= f as usize {
            self.tiers.cheap.tried.resize(f as usize + 1, (0, 0));
        }
        let e = &mut self.tiers.cheap.tried[f as usize];
        if done {
            e.0 = e.0.saturating_add(1);
        } else {
            e.1 = e.1.saturating_add(1);
        }
    }

    /// A function value (borrowed) whose body is cheap and which takes two explicit
    /// arguments, ready for [`Machine::cheap_step_call`]: a fold's step.
    pub(crate) fn cheap_step(&self, f: Val) -> Option<CheapStep> {
        let Val::Fun(fr) = f else {
            return None;
        };
        if !self.tiers.on.at_hand {
            return None;
        }
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
        self.cheap_run(step.body, slots, step.env, true)
    }

    /// The value of a body for its record's slots (owned, released here) in the
    /// context `env` (borrowed), or `None`.
    fn cheap_run(&mut self, body: CodeId, slots: &[Val], env: Ref, lazy: bool) -> Option<Val> {
        if self.tiers.cheap.active == 0 {
            self.tiers.cheap.fuel = if lazy { LAZY_FUEL } else { STRICT_FUEL };
        }
        self.tiers.cheap.active += 1;
        let w = self.push_window(slots, Up::Rec(env));
        let v = self.cheap_value(body, w, lazy);
        self.pop_windows_to(w as usize);
        self.tiers.cheap.active -= 1;
        v
    }

    /// The word code `c` becomes in a lazy place in record `env` (borrowed): its value
    /// when it can be computed at hand now (bounded and invisible, like a cheap call
    /// in a lazy place), else a thunk of it. A new reference.
    pub(crate) fn lazy_expr(&mut self, c: CodeId, env: Ref) -> Val {
        if let Some(v) = self.try_lazy_expr(c, env) {
            return v;
        }
        self.suspend(c, env)
    }

    pub(crate) fn try_lazy_expr(&mut self, c: CodeId, env: Ref) -> Option<Val> {
        if !self.lazy_allowed(c) {
            return None;
        }
        // A window with the record's own slots (new references) under its parent: the
        // code reads them exactly as it would from the record.
        let base = self.tiers.cheap.slots.len();
        let parent = if env == NIL {
            NIL
        } else {
            let o = self.heap.recs.get(env);
            self.tiers
                .cheap
                .slots
                .extend_from_slice(o.slots.get(&self.heap.words));
            o.parent
        };
        for k in base..self.tiers.cheap.slots.len() {
            self.heap.retain(self.tiers.cheap.slots[k]);
        }
        self.lazy_in_window(c, base, parent)
    }

    /// Whether code `c` may be tried in a lazy place now: the tier is on, no other
    /// computation at hand is under way, and `c` has not kept failing.
    #[inline(always)]
    fn lazy_allowed(&self, c: CodeId) -> bool {
        if !self.tiers.on.at_hand || self.tiers.cheap.active > 0 {
            return false;
        }
        match self.tiers.cheap.exprs.get(c as usize) {
            Some(&(done, failed)) => failed < GIVE_UP as u16 || failed <= done,
            None => true,
        }
    }

    /// Runs code `c` speculatively in a window of the slots from `base` on (owned)
    /// under record `parent` (borrowed), and counts how it went.
    fn lazy_in_window(&mut self, c: CodeId, base: usize, parent: Ref) -> Option<Val> {
        self.tiers.cheap.fuel = LAZY_FUEL;
        self.tiers.cheap.active = 1;
        self.tiers.cheap.wins.push(Window {
            base: base as u32,
            parent: Up::Rec(parent),
        });
        let w = (self.tiers.cheap.wins.len() - 1) as u32;
        let v = self.cheap_value(c, w, true);
        self.pop_windows_to(w as usize);
        self.tiers.cheap.active = 0;
        let i = c as usize;
        if self.tiers.cheap.exprs.len() <= i {
            self.tiers
                .cheap
                .exprs
                .resize(self.code.nodes.len().max(i + 1), (0, 0));
        }
        let e = &mut self.tiers.cheap.exprs[i];
        if v.is_some() {
            e.0 = e.0.saturating_add(1);
        } else {
            e.1 = e.1.saturating_add(1);
        }
        v
    }

    /// A window of the captures `caps` (variable reads in window `w`) without a
    /// parent: the record a [`Code::Trim`] or a trimmed `let` would make.
    fn captures_window(&mut self, caps: Args, w: u32) -> u32 {
        let base = self.tiers.cheap.slots.len() as u32;
        for i in 0..caps.len {
            let a = self.code.args[(caps.start + i) as usize];
            let v = match self.code.nodes[a as usize] {
                Code::Local(s) => self.window_word(w, 0, s),
                Code::Outer { hops, slot } => self.window_word(w, hops, slot),
                _ => Val::Erased,
            };
            self.heap.retain(v);
            self.tiers.cheap.slots.push(v);
        }
        self.tiers.cheap.wins.push(Window {
            base,
            parent: Up::Rec(NIL),
        });
        (self.tiers.cheap.wins.len() - 1) as u32
    }

    /// Opens a window holding `vals` (owned) under `parent`.
    fn push_window(&mut self, vals: &[Val], parent: Up) -> u32 {
        let base = self.tiers.cheap.slots.len() as u32;
        self.tiers.cheap.slots.extend_from_slice(vals);
        self.tiers.cheap.wins.push(Window { base, parent });
        (self.tiers.cheap.wins.len() - 1) as u32
    }

    /// Closes the windows from the `n`th on, releasing their slots.
    #[inline(never)]
    fn pop_windows_to(&mut self, n: usize) {
        let Some(win) = self.tiers.cheap.wins.get(n).copied() else {
            return;
        };
        self.tiers.cheap.wins.truncate(n);
        while self.tiers.cheap.slots.len() > win.base as usize {
            if let Some(v) = self.tiers.cheap.slots.pop() {
                self.heap.release(v);
            }
        }
    }

    /// The word in slot `slot` of the record `hops` parents up from window `w`
    /// (borrowed; an evaluated thunk is read as its value). Inlined: a word returned
    /// through memory costs a store-forwarding stall where it is copied on.
    #[inline(always)]
    fn window_word(&mut self, w: u32, hops: u32, slot: u32) -> Val {
        let (mut cur, mut h) = (w, hops);
        loop {
            let win = self.tiers.cheap.wins[cur as usize];
            if h == 0 {
                return self
                    .heap
                    .forced(self.tiers.cheap.slots[(win.base + slot) as usize]);
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
    #[inline(always)]
    fn evaluated(&mut self, v: Val) -> Option<Val> {
        if matches!(v, Val::Thunk(_) | Val::Erased) {
            return None;
        }
        self.heap.retain(v);
        Some(v)
    }

    /// The word code in window `w` becomes in a lazy place (a field, a lazy
    /// argument or `let`): a thunk it reads stays one; anything else is computed,
    /// speculatively.
    #[inline(always)]
    fn cheap_word(&mut self, c: CodeId, w: u32) -> Option<Val> {
        let v = match self.code.nodes[c as usize] {
            Code::Local(s) => self.window_word(w, 0, s),
            Code::Outer { hops, slot } => self.window_word(w, hops, slot),
            Code::Int(n) => return Some(Val::Int(n)),
            Code::Global(d) => return Some(self.def_value(d)),
            Code::Lam(f) if self.code.funs[f as usize].closed => {
                return Some(self.closure(f, NIL));
            }
            _ => return self.cheap_value(c, w, true),
        };
        self.heap.retain(v);
        Some(v)
    }

    /// A number a slot or a literal holds (`None` for anything else).
    #[inline(always)]
    fn number(&mut self, c: CodeId, w: u32) -> Option<Val> {
        let v = match self.code.nodes[c as usize] {
            Code::Int(n) => return Some(Val::Int(n)),
            Code::Local(s) => self.window_word(w, 0, s),
            Code::Outer { hops, slot } => self.window_word(w, hops, slot),
            _ => return None,
        };
        matches!(v, Val::Int(_) | Val::Float(_)).then_some(v)
    }

    /// [`Machine::cheap_value`] for an operand of arithmetic: a number in a slot of
    /// the window or a literal is read without the general path.
    #[inline(always)]
    fn cheap_operand(&mut self, c: CodeId, w: u32, lazy: bool) -> Option<Val> {
        match self.number(c, w) {
            Some(v) => Some(v),
            None => self.cheap_nested(c, w, lazy),
        }
    }

    /// The value of a node that needs no computation (a slot, a number, a
    /// constructor without fields): `Some` of what [`Machine::cheap_value`] gives for
    /// it, or `None` for any other node.
    #[inline(always)]
    fn window_leaf(&mut self, c: CodeId, w: u32) -> Option<Option<Val>> {
        let v = match self.code.nodes[c as usize] {
            Code::Local(s) => self.window_word(w, 0, s),
            Code::Outer { hops, slot } => self.window_word(w, hops, slot),
            Code::Int(n) => return Some(Some(Val::Int(n))),
            Code::Float(x) => return Some(Some(Val::Float(x))),
            Code::Char(x) => return Some(Some(Val::Char(x))),
            Code::Atom(k) => return Some(Some(Val::Atom(k))),
            _ => return None,
        };
        Some(self.evaluated(v))
    }

    /// The value of code in window `w` (a new reference), or `None`. `lazy`: the
    /// value is speculative (only cheap callees).
    fn cheap_value(&mut self, c: CodeId, w: u32, lazy: bool) -> Option<Val> {
        // Leaves, and arithmetic on leaves, first: they open no window and nest
        // nothing.
        if let Some(v) = self.window_leaf(c, w) {
            return v;
        }
        match self.code.nodes[c as usize] {
            Code::Bin { prim, a, b, .. } if is_arith(prim) => self.cheap_bin(prim, a, b, w, lazy),
            _ => self.cheap_nested(c, w, lazy),
        }
    }

    /// An arithmetic operator or comparison on two operands in window `w`, the left
    /// one first.
    #[inline(always)]
    fn cheap_bin(&mut self, prim: Prim, a: CodeId, b: CodeId, w: u32, lazy: bool) -> Option<Val> {
        let (x, y) = self.cheap_operands(a, b, w, lazy)?;
        self.arith(prim, x, y)
    }

    /// Both operands of a binary node in window `w`, the left one first (`None`, with
    /// nothing held, when either cannot be computed here).
    #[inline(always)]
    fn cheap_operands(&mut self, a: CodeId, b: CodeId, w: u32, lazy: bool) -> Option<(Val, Val)> {
        let x = self.cheap_operand(a, w, lazy)?;
        let Some(y) = self.cheap_operand(b, w, lazy) else {
            self.heap.release(x);
            return None;
        };
        Some((x, y))
    }

    /// A comparison of two operands in window `w` (the left one first), as a
    /// condition: `None` when they are not two numbers of one kind.
    #[inline(always)]
    fn cheap_compare(
        &mut self,
        prim: Prim,
        a: CodeId,
        b: CodeId,
        w: u32,
        lazy: bool,
    ) -> Option<bool> {
        let (x, y) = self.cheap_operands(a, b, w, lazy)?;
        let r = match (x, y) {
            (Val::Int(x), Val::Int(y)) => int_op(prim, x, y),
            (Val::Float(x), Val::Float(y)) => {
                return match float_op(prim, x, y)? {
                    FloatResult::Bool(r) => Some(r),
                    FloatResult::Float(_) => None,
                };
            }
            _ => {
                if let Some(r) = atom_compare(prim, x, y) {
                    return Some(r);
                }
                self.heap.release(x);
                self.heap.release(y);
                return None;
            }
        };
        match r? {
            IntResult::Bool(r) => Some(r),
            IntResult::Int(_) => None,
        }
    }

    /// [`Machine::cheap_value`] of a node that computes (anything but a leaf): one
    /// nesting level deeper, the windows it opens closed again.
    fn cheap_nested(&mut self, c: CodeId, w: u32, lazy: bool) -> Option<Val> {
        if self.tiers.cheap.nest >= MAX_NEST {
            return None;
        }
        self.tiers.cheap.nest += 1;
        let mark = self.tiers.cheap.wins.len();
        let v = self.cheap_tail(c, w, lazy, mark);
        if self.tiers.cheap.wins.len() > mark {
            self.pop_windows_to(mark);
        }
        self.tiers.cheap.nest -= 1;
        v
    }

    /// The loop of [`Machine::cheap_value`]: a node in tail position (an arm, the
    /// body of a `let` or of a call) is taken in the same iteration; a call in tail
    /// position first closes the windows opened since `mark`, which nothing needs
    /// any more, so a tail-recursive loop runs in constant space.
    fn cheap_tail(&mut self, mut c: CodeId, mut w: u32, lazy: bool, mark: usize) -> Option<Val> {
        loop {
            if self.tiers.cheap.fuel == 0 {
                return None;
            }
            self.tiers.cheap.fuel -= 1;
            match self.code.nodes[c as usize] {
                Code::Bin { prim, a, b, .. } if is_arith(prim) => {
                    return self.cheap_bin(prim, a, b, w, lazy);
                }
                Code::Match(m) => {
                    let mc = &self.code.matches[m as usize];
                    if let Some((yes, no)) = mc.bool_arms
                        && let Code::Bin { prim, a, b, .. } = self.code.nodes[mc.scrut as usize]
                        && is_compare(prim)
                    {
                        c = if self.cheap_compare(prim, a, b, w, lazy)? {
                            yes
                        } else {
                            no
                        };
                        continue;
                    }
                    (c, w) = self.cheap_arm(m, w, lazy)?;
                }
                Code::Let {
                    rhs,
                    body,
                    recursive: false,
                    strict,
                    caps,
                    ..
                } => {
                    let v = if strict {
                        self.cheap_value(rhs, w, lazy)?
                    } else {
                        self.cheap_word(rhs, w)?
                    };
                    let parent = match self.code.let_caps.get(caps as usize).copied() {
                        Some((_, caps)) => Up::Win(self.captures_window(caps, w)),
                        None => Up::Win(w),
                    };
                    w = self.push_window(&[v], parent);
                    c = body;
                }
                Code::Trim { orig, .. } => c = orig,
                Code::Seq { a, b } => {
                    let x = self.cheap_value(a, w, lazy)?;
                    self.heap.release(x);
                    c = b;
                }
                Code::CallDef { def, args, strict } => {
                    let (body, base) = self.cheap_call_args(def, args, strict, w, lazy)?;
                    w = self.tail_window(mark, base, Up::Rec(NIL));
                    c = body;
                }
                Code::Apply { fun, args } => {
                    let fv = self.cheap_value(fun, w, lazy)?;
                    let Some((body, base, env)) = self.cheap_apply_args(fv, args, w, lazy) else {
                        self.heap.release(fv);
                        return None;
                    };
                    // The function value keeps its context alive while the body runs.
                    self.tiers.cheap.slots.push(fv);
                    w = self.tail_window(mark, base, Up::Rec(env));
                    c = body;
                }
                _ => {
                    if let Some(v) = self.window_leaf(c, w) {
                        return v;
                    }
                    return self.cheap_leaf(c, w, lazy);
                }
            }
        }
    }

    /// The nodes of [`Machine::cheap_tail`] that are not in tail position and not
    /// on its hot path: strings, definitions' values, constructors, primitives.
    #[inline(never)]
    fn cheap_leaf(&mut self, c: CodeId, w: u32, lazy: bool) -> Option<Val> {
        match self.code.nodes[c as usize] {
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
            Code::Prim { prim, args, span } if cheap_prim(prim) && args.len <= 3 => {
                let mut vals = [Val::Erased; 3];
                let n = args.len as usize;
                for i in 0..n {
                    let a = self.code.args[args.start as usize + i];
                    match self.cheap_value(a, w, lazy) {
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
            _ => None,
        }
    }

    /// The callee's body of a known call, its record's slots pushed on the slot
    /// stack from the index returned: its arguments computed in window `w` (strict
    /// ones as values, the others as words). `None` leaves nothing pushed.
    fn cheap_call_args(
        &mut self,
        def: DefId,
        args: Args,
        strict: u64,
        w: u32,
        lazy: bool,
    ) -> Option<(CodeId, usize)> {
        let f = self.fun_of(def);
        let fun = &self.code.funs[f as usize];
        let allowed = if lazy { fun.cheap } else { fun.hand };
        if !allowed || args.len > fun.slots {
            return None;
        }
        let (body, n) = (fun.body, fun.slots);
        let base = self.tiers.cheap.slots.len();
        for i in 0..args.len {
            let a = self.code.args[(args.start + i) as usize];
            // What computing it opened is closed again: the slots above `base` are
            // the arguments so far.
            if !self.put_arg(a, i < 64 && strict & (1 << i) != 0, w, lazy, None) {
                self.drop_slots_from(base);
                return None;
            }
        }
        self.tiers
            .cheap
            .slots
            .resize(base + n as usize, Val::Erased);
        Some((body, base))
    }

    /// Puts argument code `a` in window `w` on the slot stack, pushed (`to` is `None`)
    /// or into slot `to`: its value when `strict`, else its word
    /// ([`Machine::cheap_word`]); `false` (nothing put) when it cannot be computed
    /// here. A slot or a literal is stored where it is read: a word merged from
    /// several paths goes through memory, and copying it on at once stalls the
    /// processor (a store-forwarding stall).
    #[inline(always)]
    fn put_arg(&mut self, a: CodeId, strict: bool, w: u32, lazy: bool, to: Option<usize>) -> bool {
        // `Int` arithmetic on numbers at hand (`d + 1`): the result is stored from a
        // register.
        if let Code::Bin {
            prim, a: x, b: y, ..
        } = self.code.nodes[a as usize]
            && self.int_sum(prim, x, y, w, to)
        {
            return true;
        }
        let v = match self.code.nodes[a as usize] {
            Code::Int(n) => Val::Int(n),
            Code::Local(s) => self.window_word(w, 0, s),
            Code::Outer { hops, slot } => self.window_word(w, hops, slot),
            _ => {
                let v = if strict {
                    self.cheap_nested(a, w, lazy)
                } else {
                    self.cheap_word(a, w)
                };
                let Some(v) = v else {
                    return false;
                };
                self.put_slot(to, v);
                return true;
            }
        };
        if strict && matches!(v, Val::Thunk(_) | Val::Erased) {
            return false;
        }
        self.heap.retain(v);
        self.put_slot(to, v);
        true
    }

    /// Stores `x prim y` in window `w` like [`Machine::put_arg`] when both are `Int`s
    /// at hand and `prim` makes an `Int` without failing: `true` when it did.
    #[inline(always)]
    fn int_sum(&mut self, prim: Prim, x: CodeId, y: CodeId, w: u32, to: Option<usize>) -> bool {
        if !matches!(prim, Prim::Add | Prim::Sub | Prim::Mul) {
            return false;
        }
        let (Some(Val::Int(x)), Some(Val::Int(y))) = (self.number(x, w), self.number(y, w)) else {
            return false;
        };
        let Some(IntResult::Int(n)) = int_op(prim, x, y) else {
            return false;
        };
        self.put_slot(to, Val::Int(n));
        true
    }

    /// Stores an argument's word (owned) for [`Machine::put_arg`]: pushed, or into
    /// slot `to`.
    #[inline(always)]
    fn put_slot(&mut self, to: Option<usize>, v: Val) {
        match to {
            Some(i) => self.tiers.cheap.slots[i] = v,
            None => self.tiers.cheap.slots.push(v),
        }
    }

    /// The body and the context of a function value (borrowed) applied to arguments
    /// code in window `w`, when it may be computed here and they are exactly its
    /// parameters: its record's slots pushed on the slot stack from the index
    /// returned. `None` leaves nothing pushed.
    fn cheap_apply_args(
        &mut self,
        fv: Val,
        args: Args,
        w: u32,
        lazy: bool,
    ) -> Option<(CodeId, usize, Ref)> {
        let Val::Fun(fr) = fv else {
            return None;
        };
        let (f, env) = {
            let o = self.heap.funs.get(fr);
            (o.fun, o.env)
        };
        let code = &self.code.funs[f as usize];
        let allowed = if lazy { code.cheap } else { code.hand };
        if !allowed || code.params.len() != args.len as usize {
            return None;
        }
        let (n, body) = (code.slots as usize, code.body);
        let base = self.tiers.cheap.slots.len();
        self.tiers.cheap.slots.resize(base + n, Val::Erased);
        for i in 0..args.len as usize {
            let a = self.code.apply_args[args.start as usize + i];
            let p = self.code.funs[f as usize].params[i];
            let put = match p.slot {
                _ if a.implicit != p.implicit => false,
                None => continue,
                Some(s) => self.put_arg(a.code, p.strict, w, lazy, Some(base + s as usize)),
            };
            if !put {
                self.drop_slots_from(base);
                return None;
            }
        }
        Some((body, base, env))
    }

    /// Releases and removes the slots from index `base` on (no window starts there).
    fn drop_slots_from(&mut self, base: usize) {
        while self.tiers.cheap.slots.len() > base {
            if let Some(v) = self.tiers.cheap.slots.pop() {
                self.heap.release(v);
            }
        }
    }

    /// Makes the slots from `base` on (a call's record, just computed) the window of
    /// a call in tail position: the windows opened since `mark` are closed first
    /// (nothing needs them any more), and the call's slots move down into their place.
    fn tail_window(&mut self, mark: usize, base: usize, parent: Up) -> u32 {
        let to = match self.tiers.cheap.wins.get(mark) {
            Some(win) => win.base as usize,
            None => base,
        };
        if to < base {
            for i in to..base {
                let v = self.tiers.cheap.slots[i];
                self.heap.release(v);
            }
            self.tiers.cheap.slots.copy_within(base.., to);
            let len = self.tiers.cheap.slots.len() - (base - to);
            self.tiers.cheap.slots.truncate(len);
        }
        self.tiers.cheap.wins.truncate(mark);
        self.tiers.cheap.wins.push(Window {
            base: to as u32,
            parent,
        });
        (self.tiers.cheap.wins.len() - 1) as u32
    }

    /// A `match` in window `w`: its scrutinee computed, the body of the arm it picks
    /// and the window that body runs in (one of its own when the arm binds fields or
    /// is the catch-all), or `None` when none does here (a value the machine would
    /// treat specially, or no arm: the machine reports that).
    fn cheap_arm(&mut self, m: u32, w: u32, lazy: bool) -> Option<(CodeId, u32)> {
        let scrut = self.code.matches[m as usize].scrut;
        let v = self.cheap_value(scrut, w, lazy)?;
        let mc = &self.code.matches[m as usize];
        let arm = match v {
            Val::Atom(k) => mc.arms.iter().find(|a| a.test == ArmTest::Con(k)),
            Val::Con(r) => {
                let k = self.heap.cons.get(r).con;
                mc.arms.iter().find(|a| a.test == ArmTest::Con(k))
            }
            Val::Int(n) => mc.arms.iter().find(|a| a.test == ArmTest::Int(n)),
            Val::Char(c) => mc.arms.iter().find(|a| a.test == ArmTest::Char(c)),
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
                return Some((body, w));
            };
            let inner = self.push_window(&[], Up::Win(w));
            let fields = self.heap.cons.get(r).fields;
            for i in 0..fields.len() {
                let x = self.heap.forced(fields.at(&self.heap.words, i));
                self.heap.retain(x);
                self.tiers.cheap.slots.push(x);
            }
            self.heap.release(v);
            return Some((body, inner));
        }
        let Some((_, body)) = self.code.matches[m as usize].default else {
            self.heap.release(v);
            return None;
        };
        Some((body, self.push_window(&[v], Up::Win(w))))
    }

    /// An arithmetic operator or comparison on two values (owned): its result, or
    /// `None` (releasing both) when they are not two numbers of one kind or the
    /// operation fails.
    #[inline(always)]
    pub(crate) fn arith(&mut self, prim: Prim, x: Val, y: Val) -> Option<Val> {
        match (x, y) {
            (Val::Int(x), Val::Int(y)) => int_op(prim, x, y).map(|r| self.int_result(r)),
            (Val::Float(x), Val::Float(y)) => float_op(prim, x, y).map(|r| self.float_result(r)),
            _ => match atom_compare(prim, x, y) {
                Some(r) => Some(self.bool_val(r)),
                None => {
                    self.heap.release(x);
                    self.heap.release(y);
                    None
                }
            },
        }
    }

    /// The value of `c` at hand, or `None` after releasing `done` (the arguments
    /// computed so far).
    fn imm_or_release(
        &mut self,
        c: CodeId,
        env: Ref,
        depth: u32,
        lazy: bool,
        done: &[Val],
    ) -> Option<Val> {
        let v = self.imm_in(c, env, depth, lazy);
        if v.is_none() {
            self.release_all(done);
        }
        v
    }
}
