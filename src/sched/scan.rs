//! Certain forks: when a certain fiber parks, the frames it pushed since its last park
//! are looked at, and what the sequential run is sure to need next (operands,
//! arguments, normal-form parts, what every arm of a pending `match` needs) gets a
//! certain fiber of its own, if it may reach an external at all.

use super::{ArmNeeds, DATA_LOOK, FRONTIER_LOOKAHEAD, Scheduler};
use crate::machine::Machine;
use crate::machine::code::Code;
use crate::machine::frame::{Control, Frame, Stacks};
use crate::machine::heap::ThunkState;
use crate::machine::host::Host;
use crate::machine::value::{NIL, Ref, Val};

/// How many records [`Scheduler::env_may_call`] looks at: a record and its parents.
const ENV_LOOK_UP: usize = 4;

impl<'p> Scheduler<'p> {
    /// Whether code may reach an external when evaluated (walks its core term, with
    /// unknown functions assumed to).
    pub(super) fn code_may_call(&mut self, m: &Machine<'p>, c: u32) -> bool {
        if let Some(&b) = self.may_call.get(&c) {
            return b;
        }
        let b = match m.code.nodes[c as usize] {
            Code::Int(_)
            | Code::Float(_)
            | Code::Char(_)
            | Code::Str(_)
            | Code::Atom(_)
            | Code::Erased => false,
            _ => crate::machine::analysis::may_call(m.facts(), m.code.meta[c as usize].core),
        };
        self.may_call.insert(c, b);
        b
    }

    /// Whether evaluating code in a record may reach an external: a variable by what
    /// it holds (a thunk whose code may call), other code by its own.
    pub(super) fn operand_may_call(&mut self, m: &mut Machine<'p>, c: u32, env: Ref) -> bool {
        match m.var_word(c, env) {
            Some(w) => self.worth_forking(m, w),
            None => self.code_may_call(m, c) || self.env_may_call(m, env),
        }
    }

    /// Whether a word is a thunk not evaluated yet whose code may reach an external.
    pub(super) fn worth_forking(&mut self, m: &Machine<'p>, v: Val) -> bool {
        match v {
            Val::Thunk(t) => match m.heap.thunks.get(t).state {
                ThunkState::Suspended { code, env } => self.suspended_may_call(m, code, env, 3),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether code in a record may reach an external when evaluated. A known call of
    /// a function that reaches none but through the functions it is given (`map g
    /// rest`, `foldr f z xs`) may only if one of its arguments may: a function whose
    /// body may, or a thunk that may (looked at `depth` levels deep). So printing or
    /// walking `map (\l -> l ++ "\n") lines` forks no fiber that would only read
    /// ahead and hold what it read.
    pub(super) fn suspended_may_call(
        &mut self,
        m: &Machine<'p>,
        code: u32,
        env: Ref,
        depth: u32,
    ) -> bool {
        if !(self.code_may_call(m, code) || self.env_may_call(m, env)) {
            return false;
        }
        let Code::CallDef { def, args, .. } = m.code.nodes[code as usize] else {
            return true;
        };
        if depth == 0 || crate::machine::analysis::calls_itself(m.facts(), def) {
            return true;
        }
        m.code.args(args).iter().any(|&a| {
            let word = match m.code.nodes[a as usize] {
                Code::Local(s) if env != NIL => Some(m.heap.slot(env, s)),
                Code::Outer { hops, slot } if env != NIL => {
                    Some(m.heap.slot(m.heap.up(env, hops), slot))
                }
                _ => None,
            };
            match word {
                Some(w) => self.word_may_call(m, w, depth - 1),
                None => self.code_may_call(m, a) || self.env_may_call(m, env),
            }
        })
    }

    /// Whether using a word may reach an external: a thunk whose code may (or one being
    /// evaluated), a function whose body may; data by its fields one level deep.
    pub(super) fn word_may_call(&mut self, m: &Machine<'p>, w: Val, depth: u32) -> bool {
        match m.heap.forced(w) {
            Val::Thunk(t) => match m.heap.thunks.get(t).state {
                ThunkState::Suspended { code, env } => self.suspended_may_call(m, code, env, depth),
                ThunkState::Blackholed { .. } => true,
                _ => false,
            },
            Val::Fun(f) => {
                let o = m.heap.funs.get(f);
                let body = m.code.funs[o.fun as usize].body;
                self.code_may_call(m, body) || self.env_may_call(m, o.env)
            }
            Val::Con(c) => {
                // Data: its fields, along its last field (a list's tail) for at most
                // `DATA_LOOK` objects.
                let mut cur = c;
                for _ in 0..DATA_LOOK {
                    let Some((&last, rest)) = m.heap.fields(cur).split_last() else {
                        return false;
                    };
                    for x in rest {
                        let may = match m.heap.forced(*x) {
                            // An element already evaluated to data (a record whose
                            // fields are calls not made yet): its own fields, one
                            // level, none of them looked into further.
                            Val::Con(inner) => m.heap.fields(inner).iter().any(|f| {
                                !matches!(m.heap.forced(*f), Val::Con(_))
                                    && self.word_may_call(m, *f, depth.saturating_sub(2))
                            }),
                            _ => self.word_may_call(m, *x, depth.saturating_sub(1)),
                        };
                        if may {
                            return true;
                        }
                    }
                    match m.heap.forced(last) {
                        Val::Con(next) => cur = next,
                        other => return self.word_may_call(m, other, depth.saturating_sub(1)),
                    }
                }
                // Data evaluated this far holds nothing to start now; what lies beyond
                // is looked at again as the consumer moves along.
                false
            }
            Val::Pap(p) => {
                use crate::machine::heap::PapHead;
                let o = m.heap.paps.get(p);
                let (head, run) = (o.head, o.args);
                let head_may = match head {
                    PapHead::Con(_) | PapHead::Data(_) | PapHead::Prim(..) => false,
                    PapHead::Def(d) => m
                        .facts()
                        .is_none_or(|f| f.may_call.get(d.0 as usize).copied().unwrap_or(true)),
                    PapHead::Fun(f) => self.word_may_call(m, Val::Fun(f), depth),
                    PapHead::Extern(..) | PapHead::Open(_) | PapHead::Hole(_) => true,
                };
                head_may || {
                    m.heap.words.get(run).iter().any(|&x| {
                        if depth == 0 {
                            // Not looked into: a thunk may hold anything.
                            matches!(m.heap.forced(x), Val::Thunk(_))
                        } else {
                            self.word_may_call(m, x, depth - 1)
                        }
                    })
                }
            }
            _ => false,
        }
    }

    /// Whether the variables in scope of code running in a record hold work that may
    /// reach an external: a thunk whose code may, or one being evaluated (by a
    /// speculative fiber, perhaps at a call). Code that calls nothing can still need
    /// such a variable (`map toLine rest`, where `rest` holds the calls): it is worth a
    /// fiber too. The record's own slots and those of its parents, up to
    /// [`ENV_LOOK_UP`] records (a match arm's fields are a record of their own under
    /// the function's), and no deeper than the slots themselves, so the look costs a
    /// few records' slots.
    pub(super) fn env_may_call(&mut self, m: &Machine<'p>, env: Ref) -> bool {
        let mut r = env;
        for _ in 0..ENV_LOOK_UP {
            if r == NIL {
                return false;
            }
            for &w in m.heap.rec_slots(r) {
                let may = match w {
                    Val::Thunk(t) => match m.heap.thunks.get(t).state {
                        ThunkState::Suspended { code, .. } => self.code_may_call(m, code),
                        ThunkState::Blackholed { .. } => true,
                        _ => false,
                    },
                    _ => false,
                };
                if may {
                    return true;
                }
            }
            r = m.heap.recs.get(r).parent;
        }
        false
    }

    /// Looks at what fiber `id` (parked, its stacks saved) will certainly need and at
    /// what it holds, from the frames pushed since it last parked.
    pub(super) fn scan(&mut self, m: &mut Machine<'p>, id: u32) {
        let certain = self.fibers[id as usize].certain;
        let from = self.fibers[id as usize].scan_from();
        let top = self.fibers[id as usize].stacks.frames.len();
        let mut seen = Vec::new();
        for i in from..top {
            let fr = self.fibers[id as usize].stacks.frames[i];
            match fr {
                Frame::BinL { b, env, .. } if self.operand_may_call(m, b, env) => {
                    // The other operand is needed if this fiber's work is: a thunk,
                    // and a fiber (certain), or a place on the frontier (speculative).
                    let t = m.delay_operand(&mut self.fibers[id as usize].stacks, i);
                    if certain {
                        self.fork(m, t, false);
                    } else {
                        self.push_frontier(m, t);
                        m.heap.release(t);
                    }
                }
                Frame::Case { m: mi, env } if certain && self.arms_on => {
                    self.fork_arm_needs(m, id, i, mi, env);
                    self.push_record(m, env, &mut seen);
                }
                Frame::CallArgs {
                    code,
                    env,
                    next,
                    rec,
                } if certain && self.spines_on => {
                    self.fork_later_args(m, id, i, (code, env, next, rec));
                    self.push_record(m, env, &mut seen);
                }
                Frame::BinL { env, .. }
                | Frame::Case { env, .. }
                | Frame::LetStrict { env, .. }
                | Frame::SeqB { env, .. }
                | Frame::CallArgs { env, .. } => self.push_record(m, env, &mut seen),
                // The other operand of a strict primitive, and the other side of a
                // comparison, are needed too: a fiber made certain since it turned
                // the operand into a thunk (put on the frontier while it was
                // speculative) forks it now.
                Frame::BinLv { b: v, .. } | Frame::EqLeft(v) if certain => self.need(m, v, false),
                // Both operands of `++` are needed (LANGUAGE.md 7.1).
                Frame::ConcatL { b: v, .. } if certain => {
                    m.heap.retain(v);
                    self.fork(m, v, false);
                }
                Frame::Arg(v, _) | Frame::ConcatL { b: v, .. } | Frame::EqLeft(v) => {
                    self.push_frontier(m, v)
                }
                _ => {}
            }
        }
        self.fibers[id as usize].mark_scanned(top);
        if certain {
            // Arguments of primitives and externals, and parts of normal-form walks,
            // are certainly needed.
            let held: Vec<Val> = self.fibers[id as usize].stacks.to_be_needed().collect();
            for v in held {
                if self.worth_forking(m, v) {
                    m.heap.retain(v);
                    self.fork(m, v, true);
                }
            }
            // A part of a normal-form walk that is built already is needed whole: the
            // thunks inside get fibers, and the speculative fibers evaluating some of
            // them become certain (their calls start).
            let deep = self.fibers[id as usize].stacks.deep.clone();
            for v in deep {
                if matches!(v, Val::Thunk(_)) && self.worth_forking(m, v) {
                    continue; // forked above
                }
                let (found, owners) = crate::machine::unwind::Frontier::search_with_owners(
                    &m.heap,
                    &[v],
                    FRONTIER_LOOKAHEAD,
                    FRONTIER_LOOKAHEAD,
                );
                for t in found {
                    if self.worth_forking(m, t) {
                        m.heap.retain(t);
                        self.fork(m, t, true);
                    }
                }
                for o in owners {
                    if (o as usize) < self.fibers.len() && !self.fibers[o as usize].certain {
                        self.promote(m, o);
                    }
                }
            }
        }
    }

    /// For the `match` `mi` at frame `i` of certain fiber `id`, waiting for its
    /// scrutinee in record `env`: the values every arm needs are certainly needed
    /// whatever the test gives, so they get certain fibers (walks of their spines
    /// where the arms need those), and the calls they reach start while the test
    /// waits. `filter`'s test on a call's result, and a `foldr` whose step tests one,
    /// then run every test at once.
    pub(super) fn fork_arm_needs(
        &mut self,
        m: &mut Machine<'p>,
        id: u32,
        i: usize,
        mi: u32,
        env: Ref,
    ) {
        use crate::machine::compile::spine::{NF, SPINE};
        let demand = m.demand_below(&self.fibers[id as usize].stacks.frames[..i]);
        let needs = match self.case_needs.get(&(mi, demand)) {
            Some(n) => n.clone(),
            None => {
                let n: ArmNeeds = m.case_needs(mi, demand).into();
                self.case_needs.insert((mi, demand), n.clone());
                n
            }
        };
        for &(hops, slot, d) in needs.iter() {
            let v = m.heap.slot(m.heap.up(env, hops), slot);
            if d == SPINE && self.spines_on && self.worth_forking(m, v) {
                m.heap.retain(v);
                Host::fork_spine(self, m, v);
            } else {
                self.need(m, v, d == NF);
            }
        }
    }

    /// For the known call at frame `i` of certain fiber `id`, waiting for one of its
    /// arguments: the later arguments its definition certainly needs get certain
    /// fibers now (walks of their spines where it walks them), if they may reach a
    /// call ([`Machine::needed_later_args`]).
    fn fork_later_args(
        &mut self,
        m: &mut Machine<'p>,
        id: u32,
        i: usize,
        (code, env, next, rec): (u32, Ref, u32, Ref),
    ) {
        use crate::machine::compile::spine::SPINE;
        let spine = m.demand_below(&self.fibers[id as usize].stacks.frames[..i]) >= SPINE;
        for (v, walk) in m.needed_later_args(code, env, next, rec, spine) {
            if walk && self.worth_forking(m, v) {
                m.heap.retain(v);
                Host::fork_spine(self, m, v);
            } else {
                self.need(m, v, false);
            }
        }
    }

    /// `v` (borrowed) is certainly needed to weak head normal form, or (`deep`) to
    /// normal form: a certain fiber for it if it may reach a call; and a speculative
    /// fiber started on this very thunk is made certain (its calls start). One that
    /// reached the thunk inside other work is left alone: what it goes on with after
    /// the thunk is not known to be needed.
    pub(super) fn need(&mut self, m: &mut Machine<'p>, v: Val, deep: bool) {
        if let Val::Thunk(t) = v
            && let ThunkState::Blackholed { fiber, .. } = m.heap.thunks.get(t).state
        {
            let root = self
                .fibers
                .get(fiber as usize)
                .filter(|f| !f.certain)
                .and_then(|f| f.stacks.frames.first().copied());
            if root == Some(Frame::Update(t)) {
                self.promote(m, fiber);
            }
        } else if self.worth_forking(m, v) {
            m.heap.retain(v);
            self.fork(m, v, deep);
        }
    }

    /// A certain fiber for a word (owned), to weak head normal form or (`deep`) to
    /// normal form.
    pub(super) fn fork(&mut self, m: &mut Machine<'p>, v: Val, deep: bool) {
        let Val::Thunk(t) = v else {
            m.heap.release(v);
            return;
        };
        if !matches!(m.heap.thunks.get(t).state, ThunkState::Suspended { .. }) {
            m.heap.release(v);
            return;
        }
        // A fiber already forked for it and not started yet covers this one.
        if let Some(&other) = self.queued_forks.get(&t)
            && let Some((t2, deep2)) = self.fibers[other as usize].forked_for
            && t2 == t
            && (deep2 || !deep)
        {
            m.heap.release(v);
            return;
        }
        let id = if deep {
            let id = self.spawn_walk(v, false);
            let f = &mut self.fibers[id as usize];
            f.walks = Some(t);
            self.helper_walks.insert(t, id);
            id
        } else {
            self.spawn(Control::Force(t), true)
        };
        self.fibers[id as usize].forked_for = Some((t, deep));
        self.queued_forks.insert(t, id);
        // The new fiber gets a turn soon: it may be about to start a call.
        self.slice_end = self.slice_end.min(m.run.steps + 1);
    }

    /// A certain fiber that walks `v` (owned) to normal form, or only its spine.
    pub(super) fn spawn_walk(&mut self, v: Val, spine: bool) -> u32 {
        let id = self.spawn(Control::Ret(Val::Erased), true);
        self.fibers[id as usize].stacks = Stacks::walking(v, spine);
        id
    }
}
