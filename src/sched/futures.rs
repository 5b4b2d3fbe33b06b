//! Futures: a certain fiber blocked inside a strict evaluation goes on past it.
//!
//! Strictness is an optimisation of by-need evaluation: a strict argument of a known
//! call ([`Frame::CallArgs`]), a strict `let` ([`Frame::LetStrict`]) and the first
//! operand of `prim_seq` ([`Frame::SeqB`], the accumulator of `foldlStrict`, `sum`,
//! `length`) are evaluated early only because the sequential run is sure to need them.
//! When a certain fiber parks (on a call, or on a thunk another fiber evaluates) with
//! such a frame on its stack, the frames above it (the blocked evaluation) move to a
//! new certain fiber that ends by writing a new thunk, the **future**; the old fiber
//! goes on at once as if the frame had received that thunk, lazily. Whatever needs
//! the value later waits for the future like any thunk another fiber evaluates.
//! This is how OPAL and Epic get their parallelism, at the point where a strict
//! evaluation would have lost it: `loop (i - 1) (acc + svc i)`, `sum (map job xs)`.
//!
//! The sequential order stays observable where it matters:
//! - **Errors.** A fiber's futures come before what it does after making them. A
//!   fiber that raises an error first waits for its earlier futures; if one failed,
//!   that error is raised instead, past every `try` (cuts are made only where no
//!   `try` is on the fiber's stack, so any `try` it has now came later). A fiber also
//!   writes the thunk at the bottom of its stack only once its futures ended.
//! - **Output.** While fiber 0 (the printer's) has futures that have not ended, what
//!   it prints is held back; if the run ends with a future's error, the text printed
//!   after that future was made is dropped, as the sequential run never printed it.
//! - **Effects.** Only certain fibers cut, and the blocked evaluation they hand over
//!   is certainly needed (unless an earlier failure ends the run, LANGUAGE.md 7.1).

use super::{CallWait, Scheduler, State};
use crate::machine::Machine;
use crate::machine::error::RuntimeError;
use crate::machine::frame::{Control, Frame};
use crate::machine::heap::ThunkState;
use crate::machine::host::ErrorStep;
use crate::machine::value::{NIL, Ref, Val};

/// How many frames from the top a cut point is looked for in.
const CUT_SEARCH: usize = 256;

/// Deepest stack whose frames are searched for a `try` before a cut (deeper stacks
/// are not cut).
const TRY_SEARCH: usize = 1 << 16;

/// A future a fiber made.
#[derive(Debug)]
pub(super) struct Future {
    /// Its thunk (counted).
    pub thunk: Ref,
    /// How much fiber 0 had printed when it made it (for fiber 0's futures).
    pub mark: Option<usize>,
}

/// Frames whose value the sequential run computes early only because it is sure to
/// need it: the evaluation above them may become a future.
fn is_cut_point(f: &Frame) -> bool {
    matches!(
        f,
        Frame::CallArgs { .. } | Frame::LetStrict { .. } | Frame::SeqB { .. }
    )
}

impl<'p> Scheduler<'p> {
    /// Fiber `id` (parked, its stacks saved) hands the evaluation above its topmost
    /// cut point to a new fiber, and goes on with a future for it.
    pub(super) fn cut(&mut self, m: &mut Machine<'p>, id: u32) {
        if m.options.lazy_calls || !self.futures_on {
            return;
        }
        let f = &self.fibers[id as usize];
        if !f.certain
            || f.error.is_some()
            || !matches!(f.state, State::WaitCall | State::WaitThunk(_))
        {
            return;
        }
        // Waiting for a stream's next items: what comes after is more of the same
        // stream, in order, so there is nothing to go on with; a future here only
        // held the stream's cells alive while the fiber waited on it.
        if let Some(CallWait::Ticket(t)) = &f.call_wait
            && self.tickets.get(t).is_some_and(|c| c.ext.is_stream())
        {
            return;
        }
        let n = f.stacks.frames.len();
        let Some(c) = (n.saturating_sub(CUT_SEARCH)..n)
            .rev()
            .find(|&i| is_cut_point(&f.stacks.frames[i]))
        else {
            return;
        };
        if c > TRY_SEARCH || f.stacks.frames[..c].iter().any(|x| matches!(x, Frame::Try)) {
            return;
        }
        let Some(split) = f.stacks.split_above(c) else {
            return;
        };
        if c + 1 == n
            && let State::WaitThunk(u) = f.state
        {
            // Nothing above the cut but a wait for a thunk another fiber evaluates:
            // that thunk is the future.
            self.prune_futures(m, id);
            if let Some(w) = self.waiters.get_mut(&u) {
                w.retain(|&x| x != id);
            }
            m.heap.retain(Val::Thunk(u));
            let mark = Self::hold_output_mark(m, id);
            let x = &mut self.fibers[id as usize];
            // The control needs `u` again (`Force(u)`, owned): it returns it instead.
            x.ctl = Some(Control::Ret(Val::Thunk(u)));
            x.mark_scanned(c + 1);
            x.futures.push_back(Future { thunk: u, mark });
            self.make_runnable(id);
            return;
        }
        let code = match f.stacks.frames[c] {
            Frame::CallArgs { code, .. } => code,
            Frame::LetStrict { body, .. } => body,
            Frame::SeqB { b, .. } => b,
            _ => return,
        };
        self.prune_futures(m, id);

        // The future: being evaluated by the new fiber; one reference for its
        // `Update` frame, one for the old fiber's control, one for its list.
        let y = self.slot();
        let t = m.heap.thunk(code, NIL);
        m.heap.thunks.get_mut(t).state = ThunkState::Blackholed { fiber: y, code };
        m.heap.retain(Val::Thunk(t));
        m.heap.retain(Val::Thunk(t));

        let before =
            self.fibers[id as usize].stacks.bytes() + self.fibers[y as usize].stacks.bytes();
        let x = &mut self.fibers[id as usize];
        let mut top = x.stacks.split_off(split);
        let ctl = x.ctl.replace(Control::Ret(Val::Thunk(t)));
        let state = std::mem::replace(&mut x.state, State::Runnable);
        let call_wait = x.call_wait.take();
        x.mark_scanned(c + 1);
        let mark = Self::hold_output_mark(m, id);
        x.futures.push_back(Future { thunk: t, mark });

        // Whatever knew the old fiber as the one waiting now knows the new one.
        for fr in &top.frames {
            if let Frame::Update(u) = *fr
                && let ThunkState::Blackholed { fiber, .. } = &mut m.heap.thunks.get_mut(u).state
                && *fiber == id
            {
                *fiber = y;
            }
        }
        match state {
            State::WaitCall => match &call_wait {
                Some(CallWait::Ticket(t)) => {
                    if let Some(c) = self.tickets.get_mut(t) {
                        c.fiber = y;
                    }
                }
                Some(CallWait::Shared(k)) => {
                    for w in self.running.get_mut(k).into_iter().flatten() {
                        if *w == id {
                            *w = y;
                        }
                    }
                }
                None => {}
            },
            State::WaitThunk(u) => {
                for w in self.waiters.get_mut(&u).into_iter().flatten() {
                    if *w == id {
                        *w = y;
                    }
                }
            }
            _ => {}
        }

        // Where the cut point's value is needed to its whole spine, the future walks
        // its value's spine once it has it (the context stays with the work).
        let walk = m.spine_needed_below(&self.fibers[id as usize].stacks.frames);
        let fy = &mut self.fibers[y as usize];
        let walk_spine = Frame::Deep {
            root: Val::Erased,
            base: 0,
            spine: true,
        };
        let bottom = [walk_spine, Frame::Update(t)];
        top.push_under(&bottom[usize::from(!walk)..]);
        fy.stacks = top;
        fy.ctl = ctl;
        fy.error = None;
        fy.state = state;
        fy.call_wait = call_wait;
        fy.certain = true;
        fy.mark_scanned(fy.stacks.frames.len());
        let after =
            self.fibers[id as usize].stacks.bytes() + self.fibers[y as usize].stacks.bytes();
        self.saved_bytes = (self.saved_bytes + after).saturating_sub(before);
        self.make_runnable(id);
    }

    /// For a future fiber `id` makes: how much fiber 0 has printed (its text is held
    /// back from now on), or `None` for other fibers.
    fn hold_output_mark(m: &mut Machine<'p>, id: u32) -> Option<usize> {
        match id {
            0 => m.printer.out.as_mut().map(|o| {
                o.set_held(true);
                o.mark()
            }),
            _ => None,
        }
    }

    /// Drops the futures at the front of fiber `id`'s list that ended well; fiber 0's
    /// printed text goes out once none is left.
    pub(super) fn prune_futures(&mut self, m: &mut Machine<'p>, id: u32) {
        let list = &mut self.fibers[id as usize].futures;
        let mut k = 0;
        while k < list.len()
            && matches!(m.heap.thunks.get(list[k].thunk).state, ThunkState::Done(_))
        {
            k += 1;
        }
        for fu in list.drain(..k) {
            m.heap.release(Val::Thunk(fu.thunk));
        }
        if id == 0
            && list.is_empty()
            && let Some(o) = &mut m.printer.out
        {
            o.set_held(false);
        }
    }

    /// Releases every future fiber `id` holds (it ended, or the run is dropped).
    pub(super) fn drop_futures(&mut self, m: &mut Machine<'p>, id: u32) {
        for fu in std::mem::take(&mut self.fibers[id as usize].futures) {
            m.heap.release(Val::Thunk(fu.thunk));
        }
    }

    /// The oldest of fiber `id`'s futures that has not ended well, after pruning.
    fn first_unfinished(&mut self, m: &mut Machine<'p>, id: u32) -> Option<&Future> {
        self.prune_futures(m, id);
        self.fibers[id as usize].futures.front()
    }

    /// The running fiber waits for future `t` (being evaluated), with `then` to go on
    /// with (an error to raise again, or a control).
    fn wait_future(&mut self, m: &mut Machine<'p>, t: Ref, then: Result<Control, RuntimeError>) {
        let id = m.fiber;
        self.wait_on(m, id, t);
        let f = &mut self.fibers[id as usize];
        match then {
            Ok(c) => f.ctl = Some(c),
            Err(e) => f.error = Some(e),
        }
    }

    /// [`crate::machine::host::Host::before_error`].
    pub(super) fn error_order(&mut self, m: &mut Machine<'p>, e: RuntimeError) -> ErrorStep {
        let id = m.fiber;
        // The run stops here (its frontier met, or interrupted): the futures would wait
        // for the same calls that will not come, so they are not waited for.
        if matches!(
            e.kind,
            crate::machine::error::ErrorKind::Planned
                | crate::machine::error::ErrorKind::Interrupted
        ) {
            return ErrorStep::Fatal(e);
        }
        let Some(&Future { thunk, mark }) = self.first_unfinished(m, id) else {
            return ErrorStep::Raise(e);
        };
        match m.heap.thunks.get(thunk).state {
            ThunkState::Failed(i) => {
                let first = m.heap.failures[i as usize].clone();
                if let (Some(mark), Some(o)) = (mark, &mut m.printer.out) {
                    o.truncate_to(mark);
                }
                self.drop_futures(m, id);
                ErrorStep::Fatal(first)
            }
            ThunkState::Blackholed { .. } => {
                self.wait_future(m, thunk, Err(e));
                ErrorStep::Wait
            }
            _ => ErrorStep::Raise(e),
        }
    }

    /// [`crate::machine::host::Host::hold_last_update`].
    pub(super) fn hold_update(
        &mut self,
        m: &mut Machine<'p>,
        v: Val,
    ) -> Option<Result<Control, RuntimeError>> {
        let thunk = self.first_unfinished(m, m.fiber)?.thunk;
        match m.heap.thunks.get(thunk).state {
            ThunkState::Blackholed { .. } => {
                self.wait_future(m, thunk, Ok(Control::Ret(v)));
                Some(Ok(Control::Park))
            }
            // It failed: the fiber fails with its error ([`Scheduler::error_order`]).
            ThunkState::Failed(i) => Some(Err(m.heap.failures[i as usize].clone())),
            _ => None,
        }
    }

    /// [`crate::machine::host::Host::unfinished_future`].
    pub(super) fn unfinished(&mut self, m: &mut Machine<'p>) -> Option<Val> {
        let t = self.first_unfinished(m, m.fiber)?.thunk;
        m.heap.retain(Val::Thunk(t));
        Some(Val::Thunk(t))
    }
}
