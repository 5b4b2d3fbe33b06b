//! The by-need stack machine (DESIGN.md section 2; Rogers, "Towards a direct, by-need
//! evaluator for dependently typed languages", sections 2-4).
//!
//! # The stack form
//!
//! A term is **wound** into a spine: walking down the left branch of applications,
//! each argument becomes a *pending application* (a sub-stack whose context ends where
//! it branched off), each lambda that meets a pending application becomes a *context
//! entry* `x : A = arg`, each `let` an entry `x : A = rhs` whose right-hand side's
//! context ends at the entry itself, until a *head* is reached. Context entries
//! ([`heap::Ctxt`]) link to their enclosing entry, so a variable is a pointer to its
//! entry, never an index; each entry keeps its binder's type annotation. Wound stacks
//! ([`stack::Stack`]) and entries live in index arenas ([`arena::Arena`], `u32`
//! handles, free lists).
//!
//! # Thunk states
//!
//! An entry's right-hand side ([`heap::Cell`]) is `Suspended` (code and the entry
//! where its context ends: a spine not wound yet), `Wound` (a wound stack),
//! `Blackholed` (being evaluated), `Value` (evaluated), `Open` (an open binder), or
//! `Ind` (the same as another entry). Needing a `Suspended` or `Wound` entry
//! black-holes it and pushes an update frame; the value is written back when it
//! returns, so each binding is evaluated at most once and shared; needing a
//! black-holed entry is the runtime error `infinite loop`.
//!
//! # The evaluation loop
//!
//! [`need`]: an explicit loop whose control ([`need::Ctl`]) is "wind this code in
//! this context", "need this entry", "enter this wound stack" or "return this value to
//! the top frame". The frames ([`frame::Frame`]) are typed: pending applications,
//! update frames (a black-holed entry waiting for its value), destructors waiting for
//! a scrutinee, primitives and externals waiting for their strict arguments,
//! structural comparisons and `join` walks in progress. Read from the top down to an
//! update frame, the frames are the current spine's pending applications; below are
//! the spines that needed it. Nothing recurses natively: a million-deep `foldr` is a
//! million frames on the heap.
//!
//! Winding is lazy: a pending application is kept as a suspended spine (code and the
//! entry where its context ends) and wound only when needed, which is what makes the
//! machine fast; [`wind`] winds a whole term eagerly when a full stack is wanted (the
//! `:stack` view, the invariant checker, round-trip tests), and the loop can enter
//! such a stack too. Fast paths that skip frames but not semantics: a spine whose
//! head is a function already evaluated pairs its lambdas with the arguments directly;
//! a saturated binary primitive goes straight to its arguments; an operator on two
//! numbers at hand (and a condition made of one) is computed in place.
//!
//! Evaluation state is all data (frames, arenas, explicit thunk states), so several
//! fibers run over one heap ([`crate::machine::oldsched`]): a black hole records the fiber
//! evaluating it, a fiber that needs another's parks on it, and external calls
//! ([`external`]) go to a worker pool. Without a scheduler (`--sequential`, the REPL,
//! type-level evaluation) there is one fiber and externals run when needed, on this
//! thread. [`state`] reads a stopped evaluation back as one term.
//!
//! # Memory
//!
//! Reference-counted binders, no tracing collector ([`heap`]): an entry counts the
//! pointers to it and is destroyed, with everything only it holds, when the count
//! reaches zero, by an explicit worklist. Two rules keep loops and pipelines in
//! constant memory: closed code (no free local variables, [`closed`]) is built without
//! a context, and a variable whose entry is evaluated is shared by value, so neither
//! keeps an old context chain alive. [`audit`] recounts every reference from the roots
//! (tests run it at every step).
//!
//! # Folds
//!
//! Every traversal of a wound stack is one generic [`unwind::unwind`] over a
//! [`unwind::Fold`] (`val`, `let_l`, `let_a`, `apply`): readback to a core term
//! ([`readback`]), by-need evaluation to normal form ([`nf`]: the `need` fold, whose
//! `val` runs the evaluation loop on the head and rewrites the stack into normal-form
//! shape, a constructor head with its fields as pending applications), destruction
//! ([`dtor`]), printing of normal forms ([`mod@print`]) and statistics ([`census`]).
//! [`invariants`] checks the seven properties of Rogers section 3 on wound stacks. The
//! command line prints with a streaming printer ([`mod@print`]) that needs each field
//! as it goes (tests check that it agrees with the fold).

pub mod arena;
pub mod audit;
pub mod census;
pub mod closed;
pub mod dtor;
pub mod error;
pub mod external;
pub mod frame;
pub mod heap;
pub mod invariants;
pub mod need;
pub mod nf;
pub mod oldsched;
pub mod primop;
pub mod print;
pub mod readback;
pub mod stack;
pub mod state;
pub mod stats;
pub mod typeval;
pub mod unwind;
pub mod value;
pub mod wind;

use crate::core::program::Program;
use crate::core::term::{DefId, RcTerm};
use arena::NIL;
use error::Result;
use frame::{Arg, Frame};
use heap::{Cell, Heap};
use need::Ctl;
use stats::Stats;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use value::{CtxtId, Value};

/// The machine: a program, a heap and a stack of frames.
pub struct Machine<'p> {
    /// The program being run.
    pub prog: &'p Program,
    /// Context entries, blocks and wound stacks.
    pub heap: Heap<'p>,
    pub(crate) frames: Vec<Frame<'p>>,
    /// Arguments of running primitives not evaluated yet (top = next).
    pub(crate) pargs: Vec<Arg<'p>>,
    /// Evaluated arguments of running primitives.
    pub(crate) pvals: Vec<Value<'p>>,
    /// Pairs still to compare by running structural comparisons.
    pub(crate) eq_work: Vec<(CtxtId, CtxtId)>,
    scratch: Vec<u32>,
    /// One pinned entry per top-level definition (a CAF: evaluated at most once).
    defs: Vec<CtxtId>,
    con_arity: Vec<Vec<u32>>,
    /// The prelude's `append`, which list `++` uses.
    append: Option<DefId>,
    /// Code with no free local variables (by address): built without a context.
    closed: closed::ClosedSet,
    pub(crate) steps: u64,
    frames_peak: usize,
    externals_dispatched: u64,
    /// When not zero, the reference counts are audited every this many steps (tests).
    pub audit_every: u64,
    /// When not zero, evaluation stops with an error after this many steps (type-level
    /// evaluation, which must not loop forever).
    pub step_limit: u64,
    /// Whether externals may be called (never during type checking).
    pub externals_allowed: bool,
    /// Whether a `match` on a neutral value is stuck (a value, [`Value::Stuck`]) rather
    /// than an error: type-level evaluation of open terms.
    pub neutral_matches: bool,
    /// When set, evaluation stops with the error `interrupted` soon after the flag
    /// becomes true (the REPL's Ctrl-C); checked every [`need::INTERRUPT_EVERY`] steps.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// When not zero, evaluation stops after this many steps (in all), keeping its
    /// state: the loop's control goes to [`Machine::paused`], the frames stay, and the
    /// state can be read back as a term ([`state`]).
    pub pause_after: u64,
    /// The control of an evaluation stopped by [`Machine::pause_after`].
    paused: Option<Ctl<'p>>,
    /// Fibers and external calls in parallel ([`crate::machine::oldsched`]); none runs everything
    /// in one fiber, externals on this thread (`--sequential`).
    pub(crate) sched: Option<Box<crate::machine::oldsched::Scheduler<'p>>>,
    /// The running fiber (0 without a scheduler).
    pub(crate) fiber: u32,
    /// When the running speculative fiber's slice ends (`u64::MAX` when none).
    pub(crate) preempt_at: u64,
    /// What the printer holds while it needs an entry (for the audit).
    pub(crate) printing: print::Held<'p>,
    /// The external calls made in this run, by place and arguments.
    pub(crate) calls: std::collections::HashMap<
        (external::CallSite, crate::external::host::Call),
        external::CallMemo,
    >,
}

impl<'p> Machine<'p> {
    /// A machine for type-level evaluation: no externals, a step limit, and none of
    /// the whole-program analysis that pays off only on long runs.
    pub fn for_type_level(prog: &'p Program, step_limit: u64) -> Machine<'p> {
        let mut m = Machine::build(prog, closed::ClosedSet::default());
        m.step_limit = step_limit;
        m.externals_allowed = false;
        m.neutral_matches = true;
        m
    }

    /// A machine for a program; nothing is evaluated yet.
    pub fn new(prog: &'p Program) -> Machine<'p> {
        Machine::build(prog, closed::closed_terms(prog))
    }

    fn build(prog: &'p Program, closed: closed::ClosedSet) -> Machine<'p> {
        let mut heap = Heap::default();
        let defs = prog
            .defs
            .iter()
            .map(|d| heap.new_ctxt(Cell::Suspended(&d.body, NIL), NIL, None))
            .collect();
        let con_arity = prog
            .datas
            .iter()
            .map(|d| d.ctors.iter().map(|c| c.fields.len() as u32).collect())
            .collect();
        let append = prog
            .defs
            .iter()
            .position(|d| &*d.name == "append")
            .map(|i| DefId(i as u32));
        Machine {
            prog,
            heap,
            frames: Vec::new(),
            pargs: Vec::new(),
            pvals: Vec::new(),
            eq_work: Vec::new(),
            scratch: Vec::new(),
            defs,
            con_arity,
            append,
            closed,
            steps: 0,
            frames_peak: 0,
            externals_dispatched: 0,
            audit_every: 0,
            step_limit: 0,
            externals_allowed: true,
            neutral_matches: false,
            interrupt: None,
            pause_after: 0,
            paused: None,
            sched: None,
            fiber: 0,
            preempt_at: u64::MAX,
            printing: print::Held::default(),
            calls: std::collections::HashMap::new(),
        }
    }

    /// The pinned entry of a top-level definition.
    pub fn def_entry(&self, d: DefId) -> CtxtId {
        self.defs[d.0 as usize]
    }

    /// Evaluates a top-level definition to weak head normal form.
    pub fn whnf_def(&mut self, d: DefId) -> Result<Value<'p>> {
        let c = self.defs[d.0 as usize];
        if let Some(s) = self.sched.as_mut() {
            s.roots.push(c);
        }
        self.heap.retain(c);
        self.run(Ctl::Enter(c))
    }

    /// Evaluates a closed term to weak head normal form.
    pub fn whnf_term(&mut self, t: &'p RcTerm) -> Result<Value<'p>> {
        self.run(Ctl::Eval(t, NIL))
    }

    /// Evaluates a context entry to weak head normal form (the reference is the
    /// caller's and stays so).
    pub fn whnf_entry(&mut self, c: CtxtId) -> Result<Value<'p>> {
        self.heap.retain(c);
        self.run(Ctl::Enter(c))
    }

    /// Drops whatever an interrupted evaluation left on the frame stack (after a
    /// runtime error), so the machine can be used again.
    pub fn reset(&mut self) {
        match self.paused.take() {
            Some(Ctl::Eval(_, env)) => self.heap.release(env),
            Some(Ctl::Enter(c)) => self.heap.release(c),
            Some(Ctl::Stack(s)) => self.heap.release_stack(s),
            Some(Ctl::Ret(v)) => self.heap.release_value(v),
            Some(Ctl::Park) | None => {}
        }
        while let Some(f) = self.frames.pop() {
            match f {
                Frame::Arg(a, _) => self.drop_arg(a),
                Frame::Update(c) => {
                    // The entry stays black-holed: its evaluation failed.
                    self.heap.release(c)
                }
                Frame::Case(_, env) => self.heap.release(env),
                Frame::EqLeft(c) => self.heap.release(c),
                Frame::EqRight(v) => self.heap.release_value(v),
                Frame::BinL { b, .. } => self.drop_arg(b),
                Frame::BinR { a, .. } => self.heap.release_value(a),
                Frame::JoinElem(c) => self.heap.release(c),
                Frame::Prim { .. }
                | Frame::Eq { .. }
                | Frame::JoinList { .. }
                | Frame::Ext { .. }
                | Frame::ExtRunArgs { .. } => {}
            }
        }
        while let Some(a) = self.pargs.pop() {
            self.drop_arg(a);
        }
        while let Some(v) = self.pvals.pop() {
            self.heap.release_value(v);
        }
        while let Some((x, y)) = self.eq_work.pop() {
            self.heap.release(x);
            self.heap.release(y);
        }
    }

    /// Whether the last evaluation stopped at [`Machine::pause_after`] (rather than
    /// failing).
    pub fn is_paused(&self) -> bool {
        self.paused.is_some()
    }

    /// Statistics so far (`wall_ms` is the caller's to fill in).
    pub fn stats(&self) -> Stats {
        Stats {
            steps: self.steps,
            contexts_allocated: self.heap.ctxts.allocated(),
            contexts_peak: self.heap.ctxts.peak() as u64,
            contexts_live: self.heap.ctxts.live() as u64,
            stacks_peak: (self.frames_peak + self.heap.stacks.peak()) as u64,
            frames_peak: self.frames_peak as u64,
            externals_dispatched: self.externals_dispatched,
            externals_peak_in_flight: match &self.sched {
                Some(s) => s.peak_in_flight as u64,
                None => self.externals_dispatched.min(1),
            },
            wall_ms: 0,
        }
    }
}
