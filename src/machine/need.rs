//! By-need evaluation (`need`): the Fig. 1 case analysis on the head of the spine,
//! as an explicit loop over heap data.
//!
//! The loop's control is one of: wind some code in a context ([`Ctl::Eval`]: walk its
//! left spine, pushing pending applications, pairing lambdas with them into context
//! entries, pushing `let` entries, until a head is reached), need a context entry
//! ([`Ctl::Enter`]), enter a wound stack ([`Ctl::Stack`]), or return a weak head normal
//! form to the frame on top of the machine stack ([`Ctl::Ret`]). Nothing recurses
//! natively: a binding needed while another is being evaluated pushes an
//! [`Frame::Update`], a destructor a [`Frame::Case`], a primitive a [`Frame::Prim`].
//!
//! Heads (Fig. 1): a variable bound to a suspended right-hand side is black-holed,
//! evaluated once, and its value written back (sharing); a black-holed variable needed
//! again is the error `infinite loop`; an evaluated variable's value is copied into the
//! head position (a counted copy: the heap data itself is shared); an open variable, a
//! constructor, a type or a primitive without enough arguments is a weak head normal
//! form; a primitive with its arguments evaluates its strict ones and consumes them.

use super::Machine;
use super::arena::NIL;
use super::error::{Result, RuntimeError};
use super::external::CallSite;
use super::frame::{Arg, Frame};
use super::heap::Cell;
use super::stack::Head;
use super::value::{CtxtId, PartialHead, StackId, Value};
use crate::core::term::{CasePat, ConId, DefId, Lit, Match, Plicity, RcTerm, Term};
use crate::prim::Prim;
use crate::syntax::span::Span;
use std::sync::atomic::Ordering;

/// How many arguments of one application spine are paired directly with a known
/// function's lambdas.
const SPINE: usize = 4;

/// What the loop does next.
#[derive(Debug)]
pub enum Ctl<'p> {
    /// Wind code in a context (the context reference is owned by the control).
    Eval(&'p RcTerm, CtxtId),
    /// Need a context entry (owned reference).
    Enter(CtxtId),
    /// Enter a wound stack (owned).
    Stack(StackId),
    /// Return a weak head normal form (owned references).
    Ret(Value<'p>),
    /// The current fiber waits (for a call, or for an entry another fiber is
    /// evaluating): run another ([`crate::machine::oldsched`]).
    Park,
}

/// Why [`Machine::run_fiber`] stopped.
enum Exit<'p> {
    /// The fiber's evaluation returned this value to where it started.
    Value(Value<'p>),
    /// The fiber waits.
    Park,
    /// The fiber's slice is over; it goes on from this control later.
    Slice(Ctl<'p>),
}

/// How many steps apart [`Machine::run`] looks at [`Machine::interrupt`].
pub const INTERRUPT_EVERY: u64 = 4096;

/// The value of a literal.
#[inline]
pub fn lit_value<'p>(l: &Lit) -> Value<'p> {
    match l {
        Lit::Int(n) => Value::Int(*n),
        Lit::Float(x) => Value::Float(*x),
        Lit::Str(s) => Value::Str(s.clone()),
    }
}

impl<'p> Machine<'p> {
    /// Runs the loop from `ctl` until a value returns to the frame height it started
    /// at, and returns that value.
    pub fn run(&mut self, ctl: Ctl<'p>) -> Result<Value<'p>> {
        let root_base = self.frames.len();
        let mut ctl = ctl;
        loop {
            // Other fibers start from an empty frame stack.
            let base = if self.fiber == 0 { root_base } else { 0 };
            let next = match self.run_fiber(ctl, base) {
                Ok(Exit::Value(v)) if self.fiber == 0 => return Ok(v),
                Ok(Exit::Value(v)) => {
                    // A speculative fiber is done: its value is written.
                    self.heap.release_value(v);
                    self.fiber_finished()
                }
                Ok(Exit::Park) => self.switch(),
                Ok(Exit::Slice(c)) => self.preempt(c),
                Err(e) => Err(e),
            };
            ctl = match next {
                Ok(c) => c,
                Err(e) => self.fiber_failed(e)?,
            };
        }
    }

    /// Runs the current fiber until its evaluation returns to where it started, it
    /// waits, or its slice ends (fibers: [`crate::machine::oldsched`]).
    fn run_fiber(&mut self, mut ctl: Ctl<'p>, base: usize) -> Result<Exit<'p>> {
        // The step limit, the audit and fiber slices share one comparison per step.
        let mut check_at = self.next_check();
        loop {
            self.steps += 1;
            if self.steps >= check_at {
                if self.pause_after != 0 && self.steps > self.pause_after {
                    // Stop before this step: the state stays as it is, for
                    // `read_back_state`.
                    self.steps -= 1;
                    self.paused = Some(ctl);
                    return Err(RuntimeError::new(format!(
                        "evaluation paused after {} steps",
                        self.steps
                    )));
                }
                if self.steps >= self.preempt_at {
                    return Ok(Exit::Slice(ctl));
                }
                self.check_step(&ctl)?;
                check_at = self.next_check();
            }
            ctl = match ctl {
                Ctl::Eval(t, env) => self.eval(t, env)?,
                Ctl::Enter(c) => self.enter(c)?,
                Ctl::Ret(v) => {
                    if self.frames.len() == base {
                        return Ok(Exit::Value(v));
                    }
                    self.ret(v)?
                }
                Ctl::Stack(s) => self.enter_stack(s)?,
                Ctl::Park => return Ok(Exit::Park),
            };
        }
    }

    /// The next step at which [`Machine::check_step`] has something to do.
    fn next_check(&self) -> u64 {
        let limit = if self.step_limit != 0 {
            self.step_limit + 1
        } else {
            u64::MAX
        };
        let audit = match self.steps.checked_div(self.audit_every) {
            Some(k) => (k + 1) * self.audit_every,
            None => u64::MAX,
        };
        let interrupt = match self.interrupt {
            Some(_) => (self.steps / INTERRUPT_EVERY + 1) * INTERRUPT_EVERY,
            None => u64::MAX,
        };
        let pause = if self.pause_after != 0 {
            self.pause_after + 1
        } else {
            u64::MAX
        };
        limit
            .min(audit)
            .min(interrupt)
            .min(pause)
            .min(self.preempt_at)
    }

    /// The step limit, an interrupt (Ctrl-C in the REPL) and the audit of reference
    /// counts.
    #[cold]
    fn check_step(&self, ctl: &Ctl<'p>) -> Result<()> {
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
        if self.audit_every != 0 && self.steps.is_multiple_of(self.audit_every) {
            self.audit(Some(ctl))
                .map_err(|e| RuntimeError::new(format!("internal error: {e}")))?;
        }
        Ok(())
    }

    #[inline]
    fn push(&mut self, f: Frame<'p>) {
        self.frames.push(f);
        if self.frames.len() > self.frames_peak {
            self.frames_peak = self.frames.len();
        }
    }

    /// The entry a variable refers to (following aliases), not counted.
    #[inline]
    fn lookup(&self, env: CtxtId, ix: u32) -> CtxtId {
        self.heap.resolve(self.heap.walk(env, ix))
    }

    /// Like [`Machine::lookup`], and an alias whose target has been evaluated since
    /// is replaced by a copy of the value, so that it stops keeping the target (and
    /// the context behind it) alive.
    #[inline]
    fn lookup_mut(&mut self, env: CtxtId, ix: u32) -> CtxtId {
        let c = self.heap.walk(env, ix);
        if let Cell::Ind(t) = self.heap.ctxt(c).cell {
            let t = self.heap.resolve(t);
            if let Cell::Value(v) = &self.heap.ctxt(t).cell {
                let v = v.clone();
                self.heap.retain_value(&v);
                let Cell::Ind(old) =
                    std::mem::replace(&mut self.heap.ctxt_mut(c).cell, Cell::Value(v))
                else {
                    unreachable!()
                };
                self.heap.release(old);
                return c;
            }
            return t;
        }
        c
    }

    /// The explicit field count of a constructor.
    #[inline]
    pub(crate) fn con_arity(&self, c: ConId) -> usize {
        self.con_arity[c.data.0 as usize][c.index as usize] as usize
    }

    /// A pending application for argument code `a` in context `env` (borrowed).
    #[inline]
    fn mkarg(&mut self, a: &'p RcTerm, env: CtxtId) -> Arg<'p> {
        match &**a {
            Term::Var(ix) => {
                let c = self.lookup_mut(env, ix.0);
                self.share(c)
            }
            Term::Def(d) => {
                let c = self.defs[d.0 as usize];
                self.heap.retain(c);
                Arg::Cell(c)
            }
            Term::Lit(l) => Arg::Val(lit_value(l)),
            Term::Con(c) if self.con_arity(*c) == 0 => Arg::Val(Value::Con(*c, NIL)),
            // Types passed as implicit arguments: values already.
            Term::PrimType(p) => Arg::Val(Value::PrimType(*p)),
            Term::Universe(n) => Arg::Val(Value::Universe(*n)),
            Term::Data(d) => Arg::Val(Value::Partial(PartialHead::Data(*d), NIL)),
            // Cheap eagerness: an operator on two numbers at hand is computed now
            // rather than suspended (it cannot fail or loop: failures stay lazy).
            Term::App(f, _, b) if let Some(v) = self.binop_fast(f, b, env) => Arg::Val(v),
            Term::Lam(..) => {
                let env = self.context_for(a, env);
                Arg::Val(Value::Fun(a, env))
            }
            _ => {
                let env = self.context_for(a, env);
                Arg::Code(a, env)
            }
        }
    }

    /// The context code `t` is built with (a counted reference): none when it is
    /// closed, so that it does not keep the context it was written in alive.
    #[inline]
    fn context_for(&mut self, t: &RcTerm, env: CtxtId) -> CtxtId {
        if env != NIL && self.closed.contains(&(&**t as *const Term as usize)) {
            NIL
        } else {
            self.heap.retain(env);
            env
        }
    }

    /// A reference to entry `c` (not counted yet) for use as an argument or a binding:
    /// an evaluated entry's value is copied (a counted copy, which shares its heap
    /// data), so that the new reference does not keep the entry, and the context chain
    /// behind it, alive.
    #[inline]
    fn share(&mut self, c: CtxtId) -> Arg<'p> {
        if let Cell::Value(v) = &self.heap.ctxt(c).cell {
            let v = v.clone();
            self.heap.retain_value(&v);
            Arg::Val(v)
        } else {
            self.heap.retain(c);
            Arg::Cell(c)
        }
    }

    /// Drops a pending application nobody will use.
    pub(crate) fn drop_arg(&mut self, a: Arg<'p>) {
        match a {
            Arg::Code(_, env) => self.heap.release(env),
            Arg::Cell(c) => self.heap.release(c),
            Arg::Val(v) => self.heap.release_value(v),
            Arg::Stack(s) => self.heap.release_stack(s),
        }
    }

    /// The right-hand side cell a binder paired with this argument gets.
    #[inline]
    fn arg_cell(a: Arg<'p>) -> Cell<'p> {
        match a {
            Arg::Code(t, env) => Cell::Suspended(t, env),
            Arg::Cell(c) => Cell::Ind(c),
            Arg::Val(v) => Cell::Value(v),
            Arg::Stack(s) => Cell::Wound(s),
        }
    }

    /// The argument as a context entry of its own (a field, a partial argument).
    #[inline]
    pub(crate) fn arg_entry(&mut self, a: Arg<'p>) -> CtxtId {
        match a {
            Arg::Cell(c) => c,
            other => {
                let cell = Self::arg_cell(other);
                self.heap.new_ctxt(cell, NIL, None)
            }
        }
    }

    /// Winds code: one step down its left spine (Rogers' Fig. 2).
    fn eval(&mut self, t: &'p RcTerm, env: CtxtId) -> Result<Ctl<'p>> {
        Ok(match &**t {
            Term::Var(ix) => {
                let c = self.lookup_mut(env, ix.0);
                self.heap.retain(c);
                self.heap.release(env);
                Ctl::Enter(c)
            }
            Term::App(f, _, a) => {
                if let Some(v) = self.binop_fast(f, a, env) {
                    self.heap.release(env);
                    return Ok(Ctl::Ret(v));
                }
                self.wind_apps(t, env)?
            }
            Term::Lam(b, body) => match self.frames.last() {
                Some(Frame::Arg(_, pl)) if *pl == b.plicity => {
                    let Some(Frame::Arg(arg, _)) = self.frames.pop() else {
                        unreachable!()
                    };
                    let x = self.heap.new_ctxt(Self::arg_cell(arg), env, Some(b));
                    Ctl::Eval(body, x)
                }
                Some(Frame::Arg(_, Plicity::Implicit)) => {
                    // An implicit argument meeting an explicit lambda: erased.
                    let Some(Frame::Arg(arg, _)) = self.frames.pop() else {
                        unreachable!()
                    };
                    self.drop_arg(arg);
                    Ctl::Eval(t, env)
                }
                _ if b.plicity == Plicity::Implicit => {
                    let x = self
                        .heap
                        .new_ctxt(Cell::Value(Value::Unknown), env, Some(b));
                    Ctl::Eval(body, x)
                }
                _ => {
                    let e = self.context_for(t, env);
                    self.heap.release(env);
                    Ctl::Ret(Value::Fun(t, e))
                }
            },
            Term::Let(b, rhs, body) => {
                let x = self.heap.new_ctxt(Cell::Open, env, Some(b));
                let cell = match &**rhs {
                    Term::Lit(l) => Cell::Value(lit_value(l)),
                    Term::Lam(..) => Cell::Value(Value::Fun(rhs, x)),
                    _ => Cell::Suspended(rhs, x),
                };
                let e = self.heap.ctxt_mut(x);
                e.cell = cell;
                e.self_ref = true;
                Ctl::Eval(body, x)
            }
            Term::Match(m) => {
                if let Term::App(f, _, a) = &*m.scrut
                    && let Some(v) = self.binop_fast(f, a, env)
                {
                    // A condition computed in place: choose the arm directly.
                    return self.case(v, m, env);
                }
                self.heap.retain(env);
                self.push(Frame::Case(m, env));
                Ctl::Eval(&m.scrut, env)
            }
            Term::Def(d) => {
                self.heap.release(env);
                self.enter_def(*d)
            }
            Term::Lit(l) => {
                self.heap.release(env);
                Ctl::Ret(lit_value(l))
            }
            Term::Ann(e, _) => Ctl::Eval(e, env),
            Term::Pi(..) => Ctl::Ret(Value::Pi(t, env)),
            _ => {
                self.heap.release(env);
                self.head(t)?
            }
        })
    }

    /// Winds a spine of applications: up to [`SPINE`] arguments are collected; when
    /// the head is a variable or definition already evaluated to a function, its
    /// lambdas are paired with the arguments directly (no frames are pushed for them);
    /// otherwise the arguments become pending-application frames.
    #[inline]
    fn wind_apps(&mut self, t: &'p RcTerm, env: CtxtId) -> Result<Ctl<'p>> {
        let mut args: [Option<(&'p RcTerm, Plicity)>; SPINE] = [None; SPINE];
        let mut n = 0;
        let mut head = t;
        while n < SPINE {
            match &**head {
                Term::App(f, pl, a) => {
                    args[n] = Some((a, *pl));
                    n += 1;
                    head = f;
                }
                _ => break,
            }
        }
        // `args[0]` is the outermost argument, `args[n - 1]` the innermost.
        if let Term::Con(c) = &**head {
            let explicit = args[..n]
                .iter()
                .filter(|a| matches!(a, Some((_, Plicity::Explicit))))
                .count();
            if explicit == self.con_arity(*c) {
                // A saturated constructor: its fields straight from the arguments;
                // its implicit arguments (the type's parameters) are not even built.
                let mut cells = [NIL; SPINE];
                let mut k = 0;
                for slot in args[..n].iter().rev() {
                    if let Some((a, Plicity::Explicit)) = *slot {
                        let arg = self.mkarg(a, env);
                        cells[k] = self.arg_entry(arg);
                        k += 1;
                    }
                }
                self.heap.release(env);
                let b = self.heap.new_block(&cells[..k]);
                return Ok(Ctl::Ret(Value::Con(*c, b)));
            }
        }
        if n == 2
            && let Term::Prim(p, span) = &**head
            && p.arity() == 2
            && !matches!(p, Prim::Concat | Prim::Seq)
            && let (Some((a, Plicity::Explicit)), Some((b, Plicity::Explicit))) = (args[1], args[0])
        {
            // A saturated binary primitive: straight to its arguments, no frames.
            let a = self.mkarg(a, env);
            let b = self.mkarg(b, env);
            self.heap.release(env);
            return self.bin_start(*p, *span, a, b);
        }
        let target = match &**head {
            Term::Def(d) => Some(self.defs[d.0 as usize]),
            Term::Var(ix) => Some(self.lookup(env, ix.0)),
            _ => None,
        };
        let mut i = n;
        if let Some(c) = target
            && let Cell::Value(Value::Fun(lam, fenv)) = self.heap.ctxt(c).cell
        {
            self.heap.retain(fenv);
            let mut e = fenv;
            let mut body: &'p RcTerm = lam;
            while i > 0 {
                let (a, pl) = args[i - 1].expect("argument");
                match &**body {
                    Term::Lam(b, bd) if b.plicity == pl => {
                        let arg = self.mkarg(a, env);
                        e = self.heap.new_ctxt(Self::arg_cell(arg), e, Some(b));
                        body = bd;
                        i -= 1;
                    }
                    _ => break,
                }
            }
            for slot in args.iter().take(i) {
                let (a, pl) = slot.expect("argument");
                let arg = self.mkarg(a, env);
                self.push(Frame::Arg(arg, pl));
            }
            self.heap.release(env);
            return Ok(Ctl::Eval(body, e));
        }
        for slot in args.iter().take(n) {
            let (a, pl) = slot.expect("argument");
            let arg = self.mkarg(a, env);
            self.push(Frame::Arg(arg, pl));
        }
        Ok(Ctl::Eval(head, env))
    }

    /// The value of an operand when it is at hand without evaluation (a literal, or a
    /// variable already evaluated to a number).
    #[inline]
    fn operand(&self, t: &RcTerm, env: CtxtId) -> Option<Value<'p>> {
        match &**t {
            Term::Lit(Lit::Int(n)) => Some(Value::Int(*n)),
            Term::Lit(Lit::Float(x)) => Some(Value::Float(*x)),
            Term::Var(ix) => match &self.heap.ctxt(self.lookup(env, ix.0)).cell {
                Cell::Value(Value::Int(n)) => Some(Value::Int(*n)),
                Cell::Value(Value::Float(x)) => Some(Value::Float(*x)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Fast path for a binary arithmetic or comparison primitive applied to two
    /// numbers at hand: computed in place, with no frames. Errors (overflow, division
    /// by zero) take the general path, which reports them.
    #[inline]
    fn binop_fast(&self, f: &RcTerm, b: &RcTerm, env: CtxtId) -> Option<Value<'p>> {
        let Term::App(g, Plicity::Explicit, a) = &**f else {
            return None;
        };
        let Term::Prim(p, _) = &**g else {
            return None;
        };
        let p = *p;
        if !matches!(
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
        ) {
            return None;
        }
        let x = self.operand(a, env)?;
        let y = self.operand(b, env)?;
        use std::cmp::Ordering;
        let ord: Option<Ordering> = match (&x, &y) {
            (Value::Int(x), Value::Int(y)) => {
                if let Ok(r) = crate::prim::arith::int(p, *x, *y) {
                    return Some(Value::Int(r));
                }
                Some(x.cmp(y))
            }
            (Value::Float(x), Value::Float(y)) => {
                if let Some(r) = crate::prim::arith::float(p, *x, *y) {
                    return Some(Value::Float(r));
                }
                x.partial_cmp(y)
            }
            _ => return None,
        };
        let r = match p {
            Prim::Eq => ord == Some(Ordering::Equal),
            Prim::Ne => ord != Some(Ordering::Equal),
            Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge => crate::prim::compare::holds(p, ord),
            _ => return None,
        };
        Some(self.bool_value(r))
    }

    /// The heads that need no context: constructors, primitives, types, holes.
    fn head(&mut self, t: &'p RcTerm) -> Result<Ctl<'p>> {
        Ok(match &**t {
            Term::Con(c) => self.con(*c),
            Term::Prim(p, span) => self.prim_start(*p, *span)?,
            Term::Data(d) => {
                let b = self.take_all_args();
                Ctl::Ret(Value::Partial(PartialHead::Data(*d), b))
            }
            Term::Universe(n) => Ctl::Ret(Value::Universe(*n)),
            Term::PrimType(p) => Ctl::Ret(Value::PrimType(*p)),
            Term::Hole(..) => Ctl::Ret(Value::Unknown),
            Term::Extern(e) => self.extern_start(*e, CallSite::of(t))?,
            _ => unreachable!("head() is only called on context-free heads"),
        })
    }

    /// Every pending application on top of the stack, as a block (for neutral heads).
    fn take_all_args(&mut self) -> u32 {
        let mut cells = std::mem::take(&mut self.scratch);
        cells.clear();
        while let Some(Frame::Arg(..)) = self.frames.last() {
            let Some(Frame::Arg(a, _)) = self.frames.pop() else {
                unreachable!()
            };
            let c = self.arg_entry(a);
            cells.push(c);
        }
        let b = self.heap.new_block(&cells);
        self.scratch = cells;
        b
    }

    /// Pops the next explicit pending application, discarding the implicit ones before
    /// it (type arguments, which constructors, primitives and externals do not take).
    /// `None` when no application is pending.
    #[inline]
    pub(crate) fn next_explicit_arg(&mut self) -> Option<Arg<'p>> {
        loop {
            match self.frames.last() {
                Some(Frame::Arg(_, plicity)) => {
                    let plicity = *plicity;
                    let Some(Frame::Arg(a, _)) = self.frames.pop() else {
                        unreachable!()
                    };
                    if plicity == Plicity::Explicit {
                        return Some(a);
                    }
                    self.drop_arg(a);
                }
                _ => return None,
            }
        }
    }

    /// A constructor takes its explicit fields from the pending applications; implicit
    /// ones (its data type's parameters) are discarded.
    fn con(&mut self, c: ConId) -> Ctl<'p> {
        let n = self.con_arity(c);
        if n == 0 {
            return Ctl::Ret(Value::Con(c, NIL));
        }
        let mut cells = std::mem::take(&mut self.scratch);
        cells.clear();
        while cells.len() < n {
            let Some(a) = self.next_explicit_arg() else {
                break;
            };
            let e = self.arg_entry(a);
            cells.push(e);
        }
        let b = self.heap.new_block(&cells);
        let full = cells.len() == n;
        self.scratch = cells;
        if full {
            Ctl::Ret(Value::Con(c, b))
        } else {
            Ctl::Ret(Value::Partial(PartialHead::Con(c), b))
        }
    }

    /// Needs a definition's pinned entry.
    #[inline]
    pub(crate) fn enter_def(&mut self, d: DefId) -> Ctl<'p> {
        let c = self.defs[d.0 as usize];
        self.heap.retain(c);
        Ctl::Enter(c)
    }

    /// Needs a context entry (owned reference).
    #[inline]
    fn enter(&mut self, c: CtxtId) -> Result<Ctl<'p>> {
        let e = self.heap.ctxt_mut(c);
        match &e.cell {
            Cell::Value(v) => {
                let v = v.clone();
                self.heap.retain_value(&v);
                self.heap.release(c);
                Ok(Ctl::Ret(v))
            }
            Cell::Suspended(t, env) => {
                let (t, env) = (*t, *env);
                e.cell = Cell::Blackholed(self.fiber);
                if e.self_ref && env == c {
                    // The cell's uncounted pointer to itself becomes the counted
                    // context of the evaluation.
                    e.self_ref = false;
                    e.rc += 1;
                }
                self.push(Frame::Update(c));
                Ok(Ctl::Eval(t, env))
            }
            Cell::Wound(s) => {
                let s = *s;
                e.cell = Cell::Blackholed(self.fiber);
                self.push(Frame::Update(c));
                Ok(Ctl::Stack(s))
            }
            Cell::Blackholed(owner) => {
                let owner = *owner;
                if owner != self.fiber && self.sched.is_some() {
                    // Another fiber is evaluating it: wait for the value.
                    return self.park_on(c, owner);
                }
                self.heap.release(c);
                Err(RuntimeError::new("infinite loop"))
            }
            Cell::Open => Ok(Ctl::Ret(Value::Partial(PartialHead::Open(c), NIL))),
            Cell::Ind(t) => {
                let t = *t;
                if let Cell::Value(v) = &self.heap.ctxt(t).cell {
                    // The target is evaluated: keep a copy of its value here and let
                    // go of the target (and the context behind it).
                    let v = v.clone();
                    self.heap.retain_value(&v);
                    self.heap.retain_value(&v);
                    self.heap.ctxt_mut(c).cell = Cell::Value(v.clone());
                    self.heap.release(t);
                    self.heap.release(c);
                    return Ok(Ctl::Ret(v));
                }
                self.heap.retain(t);
                self.heap.release(c);
                Ok(Ctl::Enter(t))
            }
            Cell::Free => Err(RuntimeError::new(
                "internal error: a freed entry was needed",
            )),
        }
    }

    /// Enters a wound stack (owned): its pending applications become frames, then its
    /// head is dispatched in its context.
    fn enter_stack(&mut self, s: StackId) -> Result<Ctl<'p>> {
        let st = self.heap.stacks.get_mut(s);
        let head = std::mem::replace(&mut st.head, Head::Free);
        let (ctx, apps) = (st.ctx, st.apps);
        self.heap.stacks.release(s);
        let mut list = std::mem::take(&mut self.scratch);
        list.clear();
        let mut a = apps;
        while a != NIL {
            list.push(a);
            a = self.heap.stacks.get(a).sib;
        }
        for &a in list.iter().rev() {
            let st = self.heap.stacks.get_mut(a);
            st.sib = NIL;
            let pl = st.plicity;
            self.push(Frame::Arg(Arg::Stack(a), pl));
        }
        self.scratch = list;
        Ok(match head {
            Head::Var(c) => {
                self.heap.release(ctx);
                Ctl::Enter(c)
            }
            Head::Code(t) => Ctl::Eval(t, ctx),
            Head::Match(m, scrut) => {
                self.push(Frame::Case(m, ctx));
                Ctl::Stack(scrut)
            }
            Head::Value(v) => {
                self.heap.release(ctx);
                Ctl::Ret(v)
            }
            Head::Def(d) => {
                self.heap.release(ctx);
                self.enter_def(d)
            }
            Head::Lit(l) => {
                self.heap.release(ctx);
                Ctl::Ret(lit_value(&l))
            }
            Head::Con(c) => {
                self.heap.release(ctx);
                self.con(c)
            }
            Head::Prim(p, span) => {
                self.heap.release(ctx);
                self.prim_start(p, span)?
            }
            Head::Data(d) => {
                self.heap.release(ctx);
                let b = self.take_all_args();
                Ctl::Ret(Value::Partial(PartialHead::Data(d), b))
            }
            Head::PrimType(p) => {
                self.heap.release(ctx);
                Ctl::Ret(Value::PrimType(p))
            }
            Head::Universe(n) => {
                self.heap.release(ctx);
                Ctl::Ret(Value::Universe(n))
            }
            Head::Hole(_) => {
                self.heap.release(ctx);
                Ctl::Ret(Value::Unknown)
            }
            Head::Extern(e) => {
                self.heap.release(ctx);
                self.extern_start(e, CallSite::UNKNOWN)?
            }
            Head::Free => return Err(RuntimeError::new("internal error: a freed stack")),
        })
    }

    /// A value reaches the frame on top of the stack.
    fn ret(&mut self, v: Value<'p>) -> Result<Ctl<'p>> {
        if let Some(Frame::Prim { got, .. }) = self.frames.last_mut() {
            *got += 1;
            self.pvals.push(v);
            return self.prim_next();
        }
        if let Some(Frame::Ext { got, .. }) = self.frames.last_mut() {
            *got += 1;
            self.pvals.push(v);
            return self.ext_next();
        }
        match self.frames.pop().expect("ret() with frames") {
            Frame::ExtRunArgs {
                prog, span, site, ..
            } => self.ext_run(prog, span, site, v),
            Frame::Ext { .. } => unreachable!(),
            Frame::BinL { prim, span, b } => self.bin_right(prim, span, v, b),
            Frame::BinR { prim, span, a } => self.bin_run(prim, span, a, v),
            Frame::Update(c) => {
                let stored = self.heap.copy_value(&v);
                let self_closure =
                    matches!(stored, Value::Fun(_, env) | Value::Pi(_, env) if env == c);
                let e = self.heap.ctxt_mut(c);
                e.cell = Cell::Value(stored);
                if self_closure {
                    e.rc -= 1;
                    e.self_ref = true;
                }
                self.wake(c);
                self.heap.release(c);
                Ok(Ctl::Ret(v))
            }
            Frame::Arg(arg, pl) => self.apply(v, arg, pl),
            Frame::Case(m, env) => self.case(v, m, env),
            Frame::EqLeft(right) => {
                self.push(Frame::EqRight(v));
                Ok(Ctl::Enter(right))
            }
            Frame::EqRight(left) => self.eq_step(left, v),
            Frame::JoinList { sep, acc, first } => self.join_list(sep, acc, first, v),
            Frame::JoinElem(rest) => self.join_elem(rest, v),
            Frame::Prim { .. } => unreachable!(),
            Frame::Eq { .. } => unreachable!("an Eq frame is never returned to directly"),
        }
    }

    /// A weak head normal form applied to a pending argument.
    fn apply(&mut self, v: Value<'p>, arg: Arg<'p>, pl: Plicity) -> Result<Ctl<'p>> {
        match v {
            Value::Fun(lam, env) => {
                self.push(Frame::Arg(arg, pl));
                Ok(Ctl::Eval(lam, env))
            }
            Value::Partial(h, b) => {
                self.push(Frame::Arg(arg, pl));
                // Unpack the arguments already given, then dispatch the head again.
                let cells: Vec<CtxtId> = self.heap.block(b).to_vec();
                for &c in cells.iter().rev() {
                    self.heap.retain(c);
                    self.push(Frame::Arg(Arg::Cell(c), Plicity::Explicit));
                }
                self.heap.release_block(b);
                match h {
                    PartialHead::Prim(p, span) => self.prim_start(p, span),
                    PartialHead::Con(c) => Ok(self.con(c)),
                    PartialHead::Data(d) => {
                        let b = self.take_all_args();
                        Ok(Ctl::Ret(Value::Partial(PartialHead::Data(d), b)))
                    }
                    PartialHead::Open(o) => {
                        let b = self.take_all_args();
                        Ok(Ctl::Ret(Value::Partial(PartialHead::Open(o), b)))
                    }
                    PartialHead::Extern(e, site) => self.extern_start(e, site),
                }
            }
            Value::Unknown => {
                self.drop_arg(arg);
                Ok(Ctl::Ret(Value::Unknown))
            }
            other if pl == Plicity::Implicit => {
                // Implicit arguments of a value that takes none (a constructor's type
                // parameters given after it was built) are erased.
                self.drop_arg(arg);
                Ok(Ctl::Ret(other))
            }
            other => {
                let kind = other.kind();
                self.heap.release_value(other);
                self.drop_arg(arg);
                Err(RuntimeError::new(format!(
                    "cannot apply {kind} to an argument"
                )))
            }
        }
    }

    /// A destructor receives its scrutinee.
    fn case(&mut self, v: Value<'p>, m: &'p Match, env: CtxtId) -> Result<Ctl<'p>> {
        match &v {
            Value::Con(c, b) => {
                for arm in &m.arms {
                    if let CasePat::Con(ac, binders) = &arm.pat
                        && ac == c
                    {
                        let b = *b;
                        let n = self.heap.block(b).len();
                        if n != binders.len() {
                            self.heap.release_value(v);
                            self.heap.release(env);
                            return Err(RuntimeError::at(
                                "pattern has the wrong number of fields",
                                m.span,
                            ));
                        }
                        let mut env = env;
                        for (i, binder) in binders.iter().enumerate() {
                            let f = self.heap.block(b)[i];
                            let cell = Self::arg_cell(self.share(f));
                            env = self.heap.new_ctxt(cell, env, Some(binder));
                        }
                        self.heap.release_block(b);
                        return Ok(Ctl::Eval(&arm.body, env));
                    }
                }
            }
            Value::Int(n) => {
                for arm in &m.arms {
                    if let CasePat::Lit(Lit::Int(k)) = &arm.pat
                        && k == n
                    {
                        return Ok(Ctl::Eval(&arm.body, env));
                    }
                }
            }
            Value::Str(s) => {
                for arm in &m.arms {
                    if let CasePat::Lit(Lit::Str(k)) = &arm.pat
                        && **k == **s
                    {
                        self.heap.release_value(v);
                        return Ok(Ctl::Eval(&arm.body, env));
                    }
                }
            }
            Value::Partial(PartialHead::Open(_), _) | Value::Unknown | Value::Stuck(..)
                if self.neutral_matches =>
            {
                // No arm can be chosen for a neutral scrutinee: the match is stuck.
                let x = self.heap.new_ctxt(Cell::Value(v), env, None);
                return Ok(Ctl::Ret(Value::Stuck(m, x)));
            }
            _ => {}
        }
        match &m.default {
            Some((b, body)) => {
                let x = self.heap.new_ctxt(Cell::Value(v), env, Some(b));
                Ok(Ctl::Eval(body, x))
            }
            None => {
                self.heap.release_value(v);
                self.heap.release(env);
                Err(RuntimeError::at("no match arm covers this value", m.span))
            }
        }
    }

    /// A primitive head: takes its arguments from the pending applications (a partial
    /// application when there are not enough) and starts on its strict ones.
    pub(crate) fn prim_start(&mut self, p: Prim, span: Span) -> Result<Ctl<'p>> {
        let arity = p.arity();
        let mut taken: [Option<Arg<'p>>; 3] = [None, None, None];
        let mut got = 0;
        while got < arity {
            let Some(a) = self.next_explicit_arg() else {
                break;
            };
            taken[got] = Some(a);
            got += 1;
        }
        if got < arity {
            let mut cells = Vec::with_capacity(got);
            for a in taken.iter_mut().take(got) {
                let a = a.take().expect("taken argument");
                cells.push(self.arg_entry(a));
            }
            let b = self.heap.new_block(&cells);
            return Ok(Ctl::Ret(Value::Partial(PartialHead::Prim(p, span), b)));
        }
        let strict = match p {
            Prim::Concat | Prim::Seq => 1,
            _ => arity,
        };
        if strict == 2 && arity == 2 {
            // Binary strict primitives (arithmetic, comparisons): two small frames
            // instead of the general argument machinery.
            let a = taken[0].take().expect("taken argument");
            let b = taken[1].take().expect("taken argument");
            return self.bin_start(p, span, a, b);
        }
        for a in taken.iter_mut().take(arity).rev() {
            self.pargs.push(a.take().expect("taken argument"));
        }
        self.push(Frame::Prim {
            prim: p,
            span,
            strict: strict as u8,
            got: 0,
            arity: arity as u8,
        });
        self.prim_next()
    }

    /// The value of an argument if it is at hand, or the control that evaluates it.
    #[inline]
    fn ready(&mut self, a: Arg<'p>) -> std::result::Result<Value<'p>, Ctl<'p>> {
        match a {
            Arg::Val(v) => Ok(v),
            Arg::Cell(c) => match &self.heap.ctxt(c).cell {
                Cell::Value(v) => {
                    let v = v.clone();
                    self.heap.retain_value(&v);
                    self.heap.release(c);
                    Ok(v)
                }
                _ => Err(Ctl::Enter(c)),
            },
            Arg::Code(t, env) => Err(Ctl::Eval(t, env)),
            Arg::Stack(s) => Err(Ctl::Stack(s)),
        }
    }

    /// Starts a binary strict primitive on its two arguments.
    #[inline]
    fn bin_start(&mut self, p: Prim, span: Span, a: Arg<'p>, b: Arg<'p>) -> Result<Ctl<'p>> {
        match self.ready(a) {
            Ok(va) => self.bin_right(p, span, va, b),
            Err(ctl) => {
                self.push(Frame::BinL { prim: p, span, b });
                Ok(ctl)
            }
        }
    }

    /// A binary primitive's left argument is evaluated; now the right one.
    #[inline]
    pub(crate) fn bin_right(
        &mut self,
        p: Prim,
        span: Span,
        va: Value<'p>,
        b: Arg<'p>,
    ) -> Result<Ctl<'p>> {
        match self.ready(b) {
            Ok(vb) => self.bin_run(p, span, va, vb),
            Err(ctl) => {
                self.push(Frame::BinR {
                    prim: p,
                    span,
                    a: va,
                });
                Ok(ctl)
            }
        }
    }

    /// Runs a binary primitive on two evaluated arguments.
    #[inline]
    pub(crate) fn bin_run(
        &mut self,
        p: Prim,
        span: Span,
        va: Value<'p>,
        vb: Value<'p>,
    ) -> Result<Ctl<'p>> {
        if let (Value::Int(x), Value::Int(y)) = (&va, &vb) {
            match p {
                Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge => {
                    return Ok(Ctl::Ret(
                        self.bool_value(crate::prim::compare::holds(p, Some(x.cmp(y)))),
                    ));
                }
                Prim::Eq => return Ok(Ctl::Ret(self.bool_value(x == y))),
                Prim::Ne => return Ok(Ctl::Ret(self.bool_value(x != y))),
                _ => {
                    if let Ok(r) = crate::prim::arith::int(p, *x, *y) {
                        return Ok(Ctl::Ret(Value::Int(r)));
                    }
                }
            }
        }
        self.pvals.push(va);
        self.pvals.push(vb);
        self.prim_run(p, span, 2, 2)
    }

    /// Evaluates the next strict argument of the primitive on top, or runs it.
    pub(crate) fn prim_next(&mut self) -> Result<Ctl<'p>> {
        loop {
            let Some(&Frame::Prim {
                prim,
                span,
                strict,
                got,
                arity,
            }) = self.frames.last()
            else {
                unreachable!("prim_next() without a Prim frame")
            };
            if got == strict {
                self.frames.pop();
                return self.prim_run(prim, span, strict as usize, arity as usize);
            }
            // Fast paths: arguments whose value is at hand need no frame.
            let a = self.pargs.pop().expect("primitive argument");
            let v = match a {
                Arg::Val(v) => v,
                Arg::Cell(c) => match &self.heap.ctxt(c).cell {
                    Cell::Value(v) => {
                        let v = v.clone();
                        self.heap.retain_value(&v);
                        self.heap.release(c);
                        v
                    }
                    _ => return Ok(Ctl::Enter(c)),
                },
                Arg::Code(t, env) => return Ok(Ctl::Eval(t, env)),
                Arg::Stack(s) => return Ok(Ctl::Stack(s)),
            };
            if let Some(Frame::Prim { got, .. }) = self.frames.last_mut() {
                *got += 1;
            }
            self.pvals.push(v);
        }
    }
}
