//! Calls and applications: a known call fills the callee's record (strict arguments
//! first), a function value meets its pending arguments, partial applications, and
//! heads that take explicit arguments only (constructors, primitives, externals).

use super::Machine;
use super::code::{Code, CodeId, CondArg, FunId};
use super::error::{ErrorKind, Result, RuntimeError};
use super::eval::IMM_DEPTH;
use super::frame::{Control, Frame, StrictOp};
use super::heap::PapHead;
use super::value::{NIL, Ref, Val};
use crate::prim::Prim;

/// How many frames [`Machine::demand_below`] looks at.
const DEMAND_LOOK: usize = 256;

impl<'p> Machine<'p> {
    /// A known call: one record for the parameters, strict arguments evaluated into
    /// it first, then the body.
    #[inline]
    pub(crate) fn call_def(&mut self, c: CodeId, env: Ref) -> Result<Control> {
        if self.tiers.on.loops
            && self.is_fold_range(c)
            && let Some(ctl) = self.fold_range(c, env)
        {
            return ctl;
        }
        let Code::CallDef { def, .. } = self.code.nodes[c as usize] else {
            unreachable!("call_def on a node that is not a call")
        };
        let f = self.fun_of(def);
        if self.tiers.on.numeric
            && self.code.funs[f as usize].numeric
            && let Some(ctl) = self.numeric_call(c, f, env)
        {
            return ctl;
        }
        let fun = &self.code.funs[f as usize];
        let rec = self.heap.record(NIL, fun.layout, fun.slots);
        self.call_args(c, env, 0, rec)
    }

    /// Fills the record `rec` (owned) of a known call from argument `next` on; a
    /// strict argument whose value is not at hand is evaluated under a `CallArgs`
    /// frame. When all are in, the body runs.
    pub(crate) fn call_args(
        &mut self,
        c: CodeId,
        env: Ref,
        next: u32,
        rec: Ref,
    ) -> Result<Control> {
        let Code::CallDef { def, args, strict } = self.code.nodes[c as usize] else {
            unreachable!("call_args on a node that is not a call")
        };
        let strict = if self
            .code
            .cond_args
            .get(def.0 as usize)
            .is_some_and(|c| !c.is_empty())
        {
            strict | self.cond_strict(c, def, env, next, rec)
        } else {
            strict
        };
        for i in next..args.len {
            let a = self.code.args[(args.start + i) as usize];
            let v = if i < 64 && strict & (1 << i) != 0 && !self.options.lazy_calls {
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
                        return Ok(Control::Eval(a, env));
                    }
                }
            } else if next > 0 && !matches!(self.heap.slot(rec, i), Val::Erased) {
                // Made already while an earlier argument was evaluated
                // ([`Self::needed_later_args`]): the scheduler may be evaluating it. (A
                // call's first pass, `next` 0, has a fresh record: no look.)
                continue;
            } else {
                self.mkarg(a, env)
            };
            self.heap.set_slot(rec, i, v);
        }
        let spines = if self.defs.spine_walks {
            self.spine_fork_mask(c, def, rec, args.len)
        } else {
            0
        };
        if spines != 0 {
            for i in 0..args.len.min(64) {
                if spines & (1 << i) != 0
                    && let Some(v) = self.spine_target(self.heap.slot(rec, i))
                {
                    // Found worth a walk by `spine_fork_mask` already.
                    self.heap.retain(v);
                    self.with_host(|h, m| h.fork_spine(m, v));
                }
            }
        }
        let f = self.fun_of(def);
        let (body, skip) = {
            let fun = &self.code.funs[f as usize];
            (fun.body, fun.skip)
        };
        self.heap.release_rec(env);
        match skip {
            Some(sk) if self.tiers.on.loops => self.skip_loop(sk, body, rec),
            _ => Ok(Control::Eval(body, rec)),
        }
    }

    /// For known call `c` (record `rec`, codes in `env`) whose argument `next` is being
    /// evaluated (a [`Frame::CallArgs`]): the later lazy arguments the definition
    /// certainly needs once called (by its spine signature: to WHNF whenever the
    /// call's value is needed, and to its spine also when `spine` says the call's own
    /// spine is), made now as the call will make them and put in their slots, so
    /// that certain work can start on them while argument `next` waits (`xs ++ ys`
    /// starts `ys` while `xs` waits on its first line). Pairs of the word (borrowed:
    /// the record holds it) and whether its spine is needed. Arguments that are
    /// strict, or may become so by a condition, are left to the call.
    pub fn needed_later_args(
        &mut self,
        c: CodeId,
        env: Ref,
        next: u32,
        rec: Ref,
        spine: bool,
    ) -> Vec<(Val, bool)> {
        let Code::CallDef { def, args, strict } = self.code.nodes[c as usize] else {
            return Vec::new();
        };
        let (on_whnf, on_spine) = self.spine_masks_of(def, rec, next);
        let wanted = on_whnf | if spine { on_spine } else { 0 };
        if wanted == 0 || self.options.lazy_calls {
            return Vec::new();
        }
        let conditional: u64 = self.code.cond_args.get(def.0 as usize).map_or(0, |conds| {
            conds
                .iter()
                .filter(|c| c.arg < 64)
                .fold(0, |m, c| m | 1 << c.arg)
        });
        let mut out = Vec::new();
        for i in next + 1..args.len.min(64) {
            let bit = 1u64 << i;
            if wanted & bit == 0 || (strict | conditional) & bit != 0 {
                continue;
            }
            if !matches!(self.heap.slot(rec, i), Val::Erased) {
                continue;
            }
            let a = self.code.args[(args.start + i) as usize];
            let v = self.mkarg(a, env);
            self.heap.set_slot(rec, i, v);
            out.push((v, spine && on_spine & bit != 0));
        }
        out
    }

    /// The arguments of known call `c` from `next` on that are strict because the
    /// function another argument passes satisfies their condition ([`CondArg`]): bits,
    /// as [`Code::CallDef`] holds them. An argument already in `rec` (owned by the
    /// caller) is read there, one not yet there from its code when that is at hand (a
    /// variable, a lambda, a definition); anything else satisfies nothing.
    fn cond_strict(
        &mut self,
        c: CodeId,
        def: crate::core::term::DefId,
        env: Ref,
        next: u32,
        rec: Ref,
    ) -> u64 {
        // One lookup; the conditions copied out (a call has few).
        let mut buf = [CondArg {
            arg: u32::MAX,
            fun: 0,
            pos: 0,
            nargs: 0,
        }; 4];
        let n = match self.code.cond_args.get(def.0 as usize) {
            Some(conds) => {
                let n = conds.len().min(buf.len());
                buf[..n].copy_from_slice(&conds[..n]);
                n
            }
            None => return 0,
        };
        let Code::CallDef { args, .. } = self.code.nodes[c as usize] else {
            return 0;
        };
        let mut mask = 0u64;
        for &CondArg {
            arg,
            fun,
            pos,
            nargs,
        } in &buf[..n]
        {
            if arg < next || arg >= 64 {
                continue;
            }
            let fid = if fun < next {
                self.fun_id_of(self.heap.slot(rec, fun))
            } else {
                let code = self.code.args[(args.start + fun) as usize];
                match self.code.nodes[code as usize] {
                    Code::Lam(f) => Some(f),
                    Code::Global(d) if super::compile::analysis::is_function(self.prog, d) => {
                        Some(self.fun_of(d))
                    }
                    _ => match self.var_word(code, env) {
                        Some(w) => self.fun_id_of(w),
                        None => None,
                    },
                }
            };
            if fid.is_some_and(|fid| self.fun_needs(fid, pos, nargs)) {
                mask |= 1 << arg;
            }
        }
        mask
    }

    /// Whether function `fid`, applied to at least `pos + 1` and at most `nargs`
    /// arguments, certainly evaluates its argument `pos`.
    fn fun_needs(&self, fid: FunId, pos: u32, nargs: u32) -> bool {
        let f = &self.code.funs[fid as usize];
        let n = f.params.len() as u32;
        pos < n && n <= nargs && pos < 64 && f.strict_mask & (1 << pos) != 0
    }

    /// [`crate::machine::compile::analysis::Facts::spine`] for a known call of `def`
    /// whose first `filled` arguments are in its record `rec`: and, when the function
    /// one of those passes meets the definition's condition, its conditional masks.
    fn spine_masks_of(&self, def: crate::core::term::DefId, rec: Ref, filled: u32) -> (u64, u64) {
        let Some(facts) = self.defs.facts.as_ref() else {
            return (0, 0);
        };
        let (mut on_whnf, mut on_spine) =
            facts.spine.get(def.0 as usize).copied().unwrap_or((0, 0));
        if let Some(Some(c)) = facts.spine_cond.get(def.0 as usize)
            && c.fun_arg < filled
            && let Some(fid) = self.fun_id_of(self.heap.slot(rec, c.fun_arg))
            && self.fun_needs(fid, c.pos, c.nargs)
            && !self.code.funs[fid as usize].may_fail
        {
            on_whnf |= c.on_whnf;
            on_spine |= c.on_spine;
        }
        (on_whnf, on_spine)
    }

    /// The code of a function value (an evaluated thunk's value too); `None` for
    /// anything else (a partial application, a thunk not yet evaluated).
    fn fun_id_of(&self, w: Val) -> Option<FunId> {
        let w = match w {
            Val::Thunk(t) => match self.heap.thunks.get(t).state {
                super::heap::ThunkState::Done(v) => v,
                _ => return None,
            },
            w => w,
        };
        match w {
            Val::Fun(r) => Some(self.heap.funs.get(r).fun),
            _ => None,
        }
    }

    /// The arguments of a known call (bits, as [`Code::CallDef`] holds them) that a
    /// spine walk should cover, each a list that may reach an external: the call's value is needed and it walks them to their
    /// end ([`crate::machine::compile::spine`]), or its own spine is walked (a spine
    /// walk forcing a tail whose code is this call) and it walks them then. Only in a
    /// certain fiber with a host that runs walks; never for a call of a definition from
    /// its own body (a loop's next step: its list is the tail of one handed already).
    fn spine_fork_mask(
        &mut self,
        c: CodeId,
        def: crate::core::term::DefId,
        rec: Ref,
        n: u32,
    ) -> u64 {
        let (on_whnf, on_spine) = self.spine_masks_of(def, rec, n);
        let candidates = on_whnf | on_spine;
        if candidates == 0 || self.host.is_none() {
            return 0;
        }
        if self
            .code
            .meta
            .get(c as usize)
            .is_some_and(|m| m.def == def.0)
        {
            return 0;
        }
        // Only lists that may reach an external are worth a walk: most calls stop here
        // (a program, or a part of one, that calls nothing never looks further).
        let live = self.with_host(|h, m| {
            let mut live = 0u64;
            for i in 0..n.min(64) {
                if candidates & (1 << i) != 0
                    && m.spine_target(m.heap.slot(rec, i))
                        .is_some_and(|v| h.may_call(m, v))
                {
                    live |= 1 << i;
                }
            }
            live
        });
        if live == 0 {
            return 0;
        }
        // In a tail of a walked spine the value is certainly needed, whichever fiber
        // computes it (a speculative one may have reached the thunk first).
        let (walked, certain_ctx) = match self.spine_context() {
            SpineContext::None | SpineContext::Whole { .. } => (false, false),
            SpineContext::Walked => (true, true),
            SpineContext::Argument => (true, false),
        };
        let mask = live & if walked { on_whnf | on_spine } else { on_whnf };
        if mask != 0 && (certain_ctx || self.host.as_ref().is_some_and(|h| h.certain(self))) {
            mask
        } else {
            0
        }
    }

    /// What a spine walk of an argument starts on: the list itself, or the tail of
    /// its first cell when that is evaluated already (a strict argument); `None` for
    /// anything else.
    fn spine_target(&self, v: Val) -> Option<Val> {
        match v {
            Val::Con(r) => {
                let cell = self.heap.cons.get(r);
                (cell.con == self.prog.builtins.cons && cell.fields.len() == 2)
                    .then(|| cell.fields.at(&self.heap.words, 1))
            }
            Val::Thunk(_) => Some(v),
            _ => None,
        }
    }

    /// Whether the value being computed (the frames on top, through updates) is
    /// needed to its whole spine: a tail a spine walk holds or forces, or the argument
    /// of a known call that walks it (evaluated before the call, in this fiber), or
    /// that walks it when its own value's spine is needed (then the frames below the
    /// call say).
    fn spine_context(&self) -> SpineContext {
        self.spine_context_of(&self.stacks.frames, usize::MAX)
    }

    /// Whether the value the frames above `frames` compute is needed to its whole
    /// spine by certain work: a future the scheduler cuts there walks its value's
    /// spine ([`crate::sched`]'s futures).
    pub fn spine_needed_below(&self, frames: &[Frame]) -> bool {
        matches!(
            self.spine_context_of(frames, usize::MAX),
            SpineContext::Walked | SpineContext::Argument
        )
    }

    /// How much of the value the frames above `frames` compute certain work needs:
    /// [`spine::NF`] under a walk to normal form (the printer's), [`spine::SPINE`]
    /// where [`Self::spine_needed_below`] says so (or a walk to normal form reached
    /// through a call that walks its argument's spine), else [`spine::WHNF`].
    ///
    /// [`spine::NF`]: crate::machine::compile::spine::NF
    /// [`spine::SPINE`]: crate::machine::compile::spine::SPINE
    /// [`spine::WHNF`]: crate::machine::compile::spine::WHNF
    pub fn demand_below(&self, frames: &[Frame]) -> u8 {
        use crate::machine::compile::spine::{NF, SPINE, WHNF};
        // A bounded look (a long chain of thunks forcing each other is looked at for
        // each `match` a fiber parks under): past it, only the head is known needed.
        match self.spine_context_of(frames, DEMAND_LOOK) {
            SpineContext::None => WHNF,
            SpineContext::Walked | SpineContext::Argument => SPINE,
            SpineContext::Whole { through_call } => {
                if through_call {
                    SPINE
                } else {
                    NF
                }
            }
        }
    }

    /// Whether the `next`-th argument of the known call `code` (its record `rec`
    /// holding the arguments before it) is walked to its end
    /// when the call's value is needed (`Some(true)`), only when the call's own spine
    /// is (`Some(false)`), or neither (`None`).
    fn arg_spine_demand(&self, code: CodeId, next: u32, rec: Ref) -> Option<bool> {
        let Code::CallDef { def, .. } = self.code.nodes[code as usize] else {
            return None;
        };
        let (on_whnf, on_spine) = self.spine_masks_of(def, rec, next);
        let bit = if next < 64 { 1u64 << next } else { 0 };
        if on_whnf & bit != 0 {
            Some(true)
        } else if on_spine & bit != 0 {
            Some(false)
        } else {
            None
        }
    }

    /// What the `match` `mi` certainly needs whichever arm it takes, when its value is
    /// needed to `d` ([`Self::demand_below`]): (parent hops, slot, demand) of the
    /// variables of its record chain
    /// ([`crate::machine::compile::spine::arm_needs`]).
    pub fn case_needs(&self, mi: u32, d: u8) -> Vec<(u32, u32, u8)> {
        use crate::machine::compile::spine;
        let Some(facts) = self.defs.facts.as_ref() else {
            return Vec::new();
        };
        if facts.spine_sigs.is_empty() {
            return Vec::new();
        }
        let mc = &self.code.matches[mi as usize];
        let meta = &self.code.meta[mc.node as usize];
        spine::arm_needs(self.prog, &facts.spine_sigs, mc.core, d)
            .into_iter()
            .filter_map(|(ix, d)| match self.code.lookup(meta.scope, ix) {
                Some(super::code::Loc::Slot { depth, slot }) if depth <= meta.depth => {
                    Some((meta.depth - depth, slot, d))
                }
                _ => None,
            })
            .collect()
    }

    /// What the frames above `frames` (at most `limit` of them looked at) say of the
    /// value computed there.
    fn spine_context_of(&self, frames: &[Frame], limit: usize) -> SpineContext {
        let host = self.host.as_ref();
        let mut through_call = false;
        for f in frames.iter().rev().take(limit) {
            match f {
                Frame::Update(t) => {
                    if host.is_some_and(|h| h.spine_needed(*t)) {
                        return SpineContext::Walked;
                    }
                }
                Frame::Deep { spine: true, .. } => return SpineContext::Walked,
                Frame::Deep { spine: false, .. } | Frame::Stream => {
                    return SpineContext::Whole { through_call };
                }
                Frame::CallArgs {
                    code, next, rec, ..
                } => match self.arg_spine_demand(*code, *next, *rec) {
                    Some(true) => return SpineContext::Argument,
                    // Walked if the call's own value is: the frames below say.
                    Some(false) => through_call = true,
                    None => return SpineContext::None,
                },
                _ => return SpineContext::None,
            }
        }
        SpineContext::None
    }

    /// An application of a head that is not a known definition.
    pub(crate) fn apply_code(
        &mut self,
        fun: CodeId,
        args: super::code::Args,
        env: Ref,
    ) -> Result<Control> {
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
                return Ok(Control::Eval(body, rec));
            }
        }
        for i in (0..args.len).rev() {
            let a = self.code.apply_args[(args.start + i) as usize];
            let v = self.mkarg(a.code, env);
            self.push(Frame::Arg(v, a.implicit));
        }
        Ok(Control::Eval(fun, env))
    }

    /// A new record for a call of function value `fr` (borrowed): its parent is the
    /// function's context, and its own slot (a recursive local function) holds it.
    #[inline]
    pub(crate) fn new_call_record(&mut self, fr: Ref) -> Ref {
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
    pub(crate) fn apply(&mut self, v: Val) -> Result<Control> {
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
                while let Some(Frame::Arg(a, _)) = self.stacks.frames.last().copied() {
                    self.stacks.frames.pop();
                    self.heap.release(a);
                }
                Ok(Control::Ret(v))
            }
            other => {
                let Some(Frame::Arg(a, implicit)) = self.stacks.frames.pop() else {
                    unreachable!("apply() without an argument frame")
                };
                self.heap.release(a);
                if implicit {
                    // A constructor's type parameters given after it was built.
                    return Ok(Control::Ret(other));
                }
                let kind = other.kind();
                self.heap.release(other);
                Err(RuntimeError::new(
                    ErrorKind::Stuck,
                    format!("cannot apply {kind} to an argument"),
                ))
            }
        }
    }

    /// Binds the pending arguments to function `f`'s parameters from `from` on, in
    /// record `rec` (owned); `fv` is the function value (owned). Runs the body when
    /// all are bound, or returns a partial application.
    pub(crate) fn bind_args(&mut self, fv: Val, f: FunId, rec: Ref, from: u32) -> Result<Control> {
        let n = self.code.funs[f as usize].params.len() as u32;
        let mut i = from;
        while i < n {
            let Some(Frame::Arg(a, implicit)) = self.stacks.frames.last().copied() else {
                break;
            };
            let p = self.code.funs[f as usize].params[i as usize];
            if p.implicit == implicit {
                self.stacks.frames.pop();
                match p.slot {
                    Some(s) => self.heap.set_slot(rec, s, a),
                    None => self.heap.release(a),
                }
                i += 1;
            } else if implicit {
                // An implicit argument meeting an explicit parameter: erased.
                self.stacks.frames.pop();
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
            return Ok(Control::Eval(body, rec));
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
        Ok(Control::Ret(self.heap.pap(PapHead::Fun(fr), i, &args)))
    }

    /// A head that takes explicit arguments only (constructor, primitive, external,
    /// neutral), with `args` (owned) received so far, meets pending applications.
    pub(crate) fn apply_head(&mut self, head: PapHead, args: &mut Vec<Val>) -> Result<Control> {
        let arity = match head {
            PapHead::Con(c) => self.prog.con(c).fields.len(),
            PapHead::Prim(p, _) => p.arity(),
            PapHead::Extern(e, _) => super::compile::extern_arity(self.prog, e),
            PapHead::Data(_) | PapHead::Open(_) | PapHead::Hole(_) => usize::MAX,
            PapHead::Fun(_) | PapHead::Def(_) => unreachable!(),
        };
        let neutral = matches!(head, PapHead::Data(_) | PapHead::Open(_) | PapHead::Hole(_));
        while args.len() < arity {
            let Some(Frame::Arg(a, implicit)) = self.stacks.frames.last().copied() else {
                break;
            };
            self.stacks.frames.pop();
            if implicit && !neutral {
                self.heap.release(a);
            } else {
                args.push(a);
            }
        }
        if args.len() < arity {
            let n = args.len() as u32;
            return Ok(Control::Ret(self.heap.pap(head, n, args)));
        }
        match head {
            PapHead::Con(c) => Ok(Control::Ret(if args.is_empty() {
                Val::Atom(c)
            } else {
                self.heap.con(c, args)
            })),
            PapHead::Prim(p, span) => self.strict_vals(
                StrictOp::Prim(p, span),
                args,
                matches!(
                    p,
                    Prim::Join | Prim::SortInts | Prim::SortPrims | Prim::FromChars
                ),
            ),
            PapHead::Extern(e, site) => self.strict_vals(StrictOp::Extern(e, site), args, true),
            _ => unreachable!(),
        }
    }

    /// A thunk of the body of `def` in a new record whose first slots hold `args`
    /// (owned, moved in; those past the record's slots are released): a known call
    /// made now and evaluated later.
    pub(crate) fn body_thunk(&mut self, def: crate::core::term::DefId, args: &[Val]) -> Val {
        let f = self.fun_of(def);
        let (layout, slots, body) = {
            let fun = &self.code.funs[f as usize];
            (fun.layout, fun.slots, fun.body)
        };
        let rec = self.heap.record(super::value::NIL, layout, slots);
        for (k, &a) in args.iter().enumerate() {
            if (k as u32) < slots {
                self.heap.set_slot(rec, k as u32, a);
            } else {
                self.heap.release(a);
            }
        }
        Val::Thunk(self.heap.thunk(body, rec))
    }

    /// The unevaluated rest of stream `id`: a thunk of the body of `def`
    /// (`prim_streamRest`, one `Int` parameter) with `id` for its parameter (a new
    /// reference).
    pub fn stream_rest(&mut self, def: crate::core::term::DefId, id: i64) -> Val {
        self.body_thunk(def, &[Val::Int(id)])
    }
}

/// Where the value being computed stands, for spine walks ([`Machine::spine_context`]).
enum SpineContext {
    /// Nothing says its spine is needed.
    None,
    /// A spine walk needs it (a certain fiber's walk, whoever computes it).
    Walked,
    /// It is an argument a known call walks: needed if this fiber's work is.
    Argument,
    /// A walk to normal form (the printer's) needs it whole, or (`through_call`)
    /// needs the value of a call that walks it as far as its own spine: no spine
    /// walk is started for it, but what every arm of a waiting `match` needs is
    /// forked to that depth ([`Machine::demand_below`]).
    Whole {
        /// Whether a known call's argument lies between.
        through_call: bool,
    },
}
