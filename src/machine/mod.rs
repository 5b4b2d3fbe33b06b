//! The by-need machine (DESIGN.md section 2; Rogers, "Towards a direct, by-need
//! evaluator for dependently typed languages", sections 2-4), in the form that runs.
//!
//! # State
//!
//! - **Code** ([`code`]): each definition compiled once, on first use, from its core
//!   term ([`compile`]), after the analyses of relevance and strictness
//!   ([`analysis`]).
//! - **Heap** ([`heap`]): records (flat context segments that link outward: Rogers'
//!   contexts with end pointers, each slot annotated by its binder through the
//!   record's layout), thunks (`Suspended`, `Blackholed`, `Done`, `Failed`), and values,
//!   all reference-counted, with a backup cycle collector ([`cycles`]).
//! - **Stacks** ([`frame::Stacks`]): the typed continuation stack, plus side stacks
//!   for arguments being evaluated (`vals`, `pending`), normal-form walks (`deep`) and
//!   structural comparisons (`eq_work`): one value, which a scheduler swaps whole
//!   when it switches fibers. Each frame describes once what it holds
//!   ([`frame::Frame::held`]) and what it owns on the side stacks
//!   ([`frame::Frame::side_entries`]); dropping, the audits and splitting a fiber's
//!   stacks derive from that.
//! - **The rest of the state** is in parts with one owner each ([`Machine`]'s twelve
//!   fields): the definition table, the run state (steps, limits, pause), the
//!   options, the cycle collector's state, the printer's, the tiers', the host.
//! - **Control** ([`frame::Control`]): run code in a record, need a thunk, or return a
//!   weak head normal form to the top frame.
//!
//! # Transitions ([`eval`])
//!
//! - `Eval(Local s, r)`: the slot's word; a thunk is needed (`Force`), anything else
//!   returns. `Outer` follows parent links first.
//! - `Force(t)`: `Done v` returns `v`; `Suspended (c, r)` becomes `Blackholed` and
//!   pushes `Update t`, then runs `c` in `r`; `Blackholed` by the same fiber is the
//!   error `infinite loop`, by another fiber the current one parks; `Failed e`
//!   raises `e` again.
//! - `Ret v` to `Update t`: `t` becomes `Done v` (shared from now on).
//! - `Eval(Apply f args, r)`: each argument becomes a word (a thunk of its code in
//!   `r`, or its value when that is at hand) in an `Arg` frame; then `f` runs.
//!   `Ret (Fun ...)` meeting `Arg` frames takes as many as the function has
//!   parameters into a new record and runs the body there; fewer make a partial
//!   application.
//! - `Eval(CallDef d args, r)`: strict arguments are evaluated first (`CallArgs`),
//!   lazy ones become thunks; then the body of `d` runs in one new record.
//! - `Eval(Match, r)` pushes `Case`; `Ret v` to `Case` picks the arm, binds its
//!   fields in one new record and runs the arm.
//! - `Eval(Let, r)`: a record of one slot holding the right-hand side's thunk (or
//!   its value, for a strict `let`), then the body.
//! - Primitives and externals evaluate their strict arguments (`Strict`), externals
//!   to normal form (`Deep`), then run.
//!
//! The loop never recurses natively: a million-deep `foldr` is a million frames.
//!
//! # Faster paths to the same states
//!
//! - **Fusion** ([`fuse`]): before compilation, strict folds over `range`/`map`/
//!   `filter` pipelines whose functions reach no external are rewritten into one
//!   `foldlRange` loop, and `map`/`filter` over a `range` into a producer without the
//!   range's list (`filterRange`, `mapFilterRange`): equations of the prelude's
//!   definitions.
//! - **Loops in place** ([`loops`]): `foldlRange` with a cheap step runs one step per
//!   element, and hands back to its definition from where it got to. A search along
//!   a range (`if lo >= hi then … else if test then … else f … (lo + 1) …`,
//!   [`code::SkipLoop`]) advances `lo` in its call's own record while its test is
//!   computed at hand to `False`, and goes on where the machine would be.
//! - **The numeric tier** ([`numeric`]): calls of functions of strict numbers run on
//!   a value stack in batches; a batch ends by writing its state as records and
//!   frames, so every state between batches is one of the machine's.
//! - **Computing at hand** ([`cheap`]): a call of a small function whose arguments
//!   are values is computed within one step, without records or frames: in a lazy
//!   place when the function is not recursive (cheap eagerness: a lazy accumulator
//!   stays a value), where the value is needed now even when it is (a search down a
//!   list). It does nothing the machine would not, and when it cannot finish it
//!   leaves no trace: the machine then takes the step as it would have. A condition
//!   that compares two numbers picks its arm directly (`MatchCode::bool_arms`).
//!
//! All four stop where evaluation is to pause, so a paused state is always a machine
//! state that reads back.
//!
//! # Readback and folds
//!
//! The traversals of machine states are instances of one generic depth-first walk
//! with an explicit stack ([`unwind::depth_first`]): folds over heap objects (the
//! reference-count and reachability audits and the census for statistics, from every
//! root by [`unwind`]; the destruction of what is no longer referenced; the scheduler's
//! search for work in built data) and readback to core terms ([`readback`], and
//! [`state`] for a paused state), whose nodes are words under binders and which builds
//! each term from its parts' terms in a post-order step, and the printer
//! ([`mod@print`]), whose nodes are the parts still to print. The cycle collector
//! ([`cycles`]) follows the same edges between objects ([`unwind::children`]); the
//! scheduler looks only at what changed (the frames a fiber pushed since it last
//! parked, what speculation computed), never at the whole heap.
//!
//! # Memory
//!
//! Reference counts free an object as soon as its last reference goes. Records point
//! outward, so the only cycles go through a recursive data `let`; a backup cycle
//! collector ([`cycles`]) takes them, and top-level values no live code can reach are
//! unpinned. `--max-memory` bounds the heap, strings and stacks, those of parked
//! fibers included ([`host::Host::held_bytes`]); external results count as they are
//! read ([`crate::external::budget`]).
//!
//! # Rooms
//!
//! `impl Machine` (the VM's own namespace) is in this file (its state, construction,
//! the driver's entry points), [`eval`] (the transition loop), [`apply`], [`case`],
//! [`prims`] (primitives, external calls, normal-form walks, structural equality) and
//! [`words`] (arguments made words), and in the tiers, for now ([`cheap`],
//! [`numeric`], [`loops`]: their one evaluator is still to come). Everything else
//! sees the machine through a narrower part:
//!
//! - [`walk::Sight`], the machine read only: readback, a paused state's readback,
//!   the audits and the census ([`unwind`]), `:stack`'s view, statistics, the code
//!   the cycle collector must keep (`Sight::live_code`), a value as plain data;
//! - [`data::Data`], the heap and the program's constructors: the primitives on
//!   evaluated data ([`chars`], [`collections`]) and plain data made a value
//!   ([`external`]);
//! - [`cycles::Collector`], the heap alone;
//! - the printer ([`mod@print`]) is a client: it needs values through the machine's
//!   operations, as a driver does.
//!
//! The other rooms: [`frame`], [`heap`], [`value`], [`code`], [`arena`], [`error`];
//! the tiers' switches ([`tiers`]); [`compile`] (the analyses, fusion and code
//! generation, as passes); [`walk`] (the one walk and its folds); [`host`] (what a
//! scheduler provides).
//!
//! # Glossary
//!
//! The project's words for things the field names otherwise:
//!
//! | here | in the field |
//! | --- | --- |
//! | computing at hand ([`cheap`]) | cheap eagerness; speculative evaluation of cheap expressions (Faxén) |
//! | a window (of the slot stack) | an unboxed activation record on a side stack |
//! | the numeric tier ([`numeric`]) | a worker/wrapper split with unboxed arguments, run on a value stack |
//! | a loop in place ([`loops`]) | a superinstruction; a specialised inner interpreter loop |
//! | compare and branch ([`code::MatchCode::bool_arms`]) | a fused compare-and-branch superinstruction |
//! | fusion ([`fuse`]) | short-cut (foldr/build) fusion, done as equations on known definitions |
//! | a record | an environment frame, a flat closure segment (Rogers: a context with an end pointer) |
//! | a fiber | a green thread, a task of a work-stealing-free cooperative scheduler |
//! | certain / speculative | needed in the sequential run / speculative parallelism (OPAL, Epic) |
//! | a helper walk | a parallel normal-form traversal whose result is discarded (a spark that forces to normal form) |

pub mod apply;
pub mod arena;
pub mod case;
pub mod chars;
pub mod cheap;
pub mod code;
pub mod collections;
pub mod compile;
pub mod walk;

pub use compile::{analysis, fuse, inline};
pub use walk::{print, readback, state, stats, typeval, unwind, view};
pub mod cycles;
pub mod data;
pub mod error;
pub mod eval;
pub mod external;
pub mod frame;
pub mod heap;
pub mod host;
pub mod loops;
pub mod numeric;
pub mod prims;
pub mod tiers;
pub mod value;
pub mod words;

use crate::core::program::Program;
use crate::core::term::DefId;
use analysis::Facts;
use code::{CodeStore, FunId};
use compile::DefCode;
use error::{ErrorKind, Result, RuntimeError};
use frame::{Control, Frame, Stacks};
use heap::{Heap, ThunkState};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use value::{NIL, Val};

/// The machine: a program's code, a heap, and the stacks of the running fiber.
///
/// Its state is in twelve parts, each owned by one field, so that a room of the
/// machine borrows only the parts it uses.
pub struct Machine<'p> {
    /// The program being run.
    pub prog: &'p Program,
    /// Objects, and the errors failed thunks hold.
    pub heap: Heap,
    /// Compiled code.
    pub code: CodeStore<'p>,
    /// Each definition's code and pinned value, and the facts they compile with.
    defs: DefTable,
    /// The running fiber's stacks: the one thing a scheduler saves and restores.
    pub(crate) stacks: Stacks,
    /// Steps, limits and pauses of the evaluation.
    pub run: RunState,
    /// What kind of evaluation this is (a run, or type-level evaluation).
    pub options: Options<'p>,
    /// When the cycle collector and the thunk trimmer run next, and what they freed.
    pub(crate) gc: cycles::Collector,
    /// The printer's output, and what it holds while it needs a value.
    pub(crate) printer: print::PrintState,
    /// The scheduler, when fibers run in parallel ([`host`]).
    pub(crate) host: Option<Box<dyn host::Host<'p> + 'p>>,
    /// The running fiber (0 without a scheduler).
    pub(crate) fiber: u32,
    /// The faster paths: which are on, and their side stacks ([`tiers`]).
    pub tiers: tiers::TierState,
}

/// Each definition's compiled code and pinned value, and the facts the code is
/// compiled with: the program as this machine has compiled it so far.
struct DefTable {
    /// Relevance and strictness facts, or `None` for type-level evaluation (no
    /// erasure: types need everything).
    facts: Option<Facts>,
    /// Whether some call may hand a list to a spine walk (its analysis found one
    /// in a program that can reach an external): checked before each known call.
    spine_walks: bool,
    /// Each definition's code (`Pending` until first used).
    code: Vec<DefCode>,
    /// Each definition's pinned value: a function, or a thunk for a CAF (`Erased`
    /// until first used).
    vals: Vec<Val>,
    /// The top-level values each definition may need (for unpinning, [`cycles`]).
    caf_memo: std::collections::HashMap<u32, std::rc::Rc<[u32]>>,
    /// Whether definitions compile from their fused bodies (fusion was on when the
    /// machine was made).
    fused: bool,
}

/// The counters, limits and pause point of an evaluation.
#[derive(Default)]
pub struct RunState {
    /// Machine steps so far.
    pub steps: u64,
    /// Most frames on the stack at once.
    pub(crate) frames_peak: usize,
    /// When not zero, evaluation stops with an error after this many steps
    /// (type-level evaluation must not loop forever).
    pub step_limit: u64,
    /// When set, evaluation stops with `interrupted` soon after it becomes true.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// When not zero, evaluation stops before this step ([`state`]).
    pub(crate) pause_after: u64,
    /// The control of an evaluation stopped by `pause_after`.
    pub(crate) paused: Option<Control>,
    /// `--max-memory` in bytes (0: no limit): past it, evaluation stops with `out of
    /// memory`.
    pub max_memory: usize,
    /// When not zero, the reference counts are audited every this many steps (tests).
    pub audit_every: u64,
}

/// What kind of evaluation the machine does: set by its maker, read by its rooms.
pub struct Options<'p> {
    /// Whether externals may be called (never during type checking).
    pub externals_allowed: bool,
    /// Whether a `match` on a neutral value is stuck (a value) rather than an error:
    /// type-level evaluation of open terms.
    pub neutral_matches: bool,
    /// Known calls pass every argument as a thunk, strict ones too (`--plan`: a call
    /// that is not made blocks only what needs its value; the function's body, and
    /// what it orders after that value, still run). The result is the same, slower.
    pub lazy_calls: bool,
    /// Which source files are the user's (not the prelude's); set by the driver, so
    /// that errors inside prelude functions point at the user's call.
    pub user_file: Option<Box<dyn Fn(crate::syntax::span::FileId) -> bool + 'p>>,
}

/// How many steps apart the loop looks at limits and interrupts.
pub const CHECK_EVERY: u64 = 4096;

impl<'p> Machine<'p> {
    /// A machine for a program (erasure and strictness on); nothing is evaluated yet.
    /// Its tiers are on, but for those `SPINDLE_TIERS_OFF` names.
    pub fn new(prog: &'p Program) -> Machine<'p> {
        Machine::with_tiers(prog, tiers::Tiers::from_env())
    }

    /// [`Machine::new`] with these tiers.
    pub fn with_tiers(prog: &'p Program, tiers: tiers::Tiers) -> Machine<'p> {
        if tiers.inline {
            prog.inlined_bodies.get_or_init(|| inline::program(prog));
        }
        let facts = analysis::analyse(prog, tiers.inline);
        let mut m = Machine::build(prog, Some(facts), tiers.fusion);
        m.tiers.on = tiers;
        m
    }

    /// A machine for type-level evaluation: no externals, a step limit, nothing
    /// erased, matches on open terms stuck.
    pub fn for_type_level(prog: &'p Program, step_limit: u64) -> Machine<'p> {
        let mut m = Machine::build(prog, None, false);
        m.run.step_limit = step_limit;
        m.options.externals_allowed = false;
        m.options.neutral_matches = true;
        m
    }

    fn build(prog: &'p Program, facts: Option<Facts>, fused: bool) -> Machine<'p> {
        if let Some(f) = &facts
            && fused
        {
            prog.run_bodies[f.inline as usize].get_or_init(|| fuse::program(prog, f));
        }
        Machine {
            prog,
            heap: Heap::default(),
            code: CodeStore::default(),
            defs: DefTable {
                spine_walks: facts
                    .as_ref()
                    .is_some_and(|f| f.spine.iter().any(|&(w, s)| w | s != 0)),
                facts,
                code: Vec::new(),
                vals: Vec::new(),
                caf_memo: std::collections::HashMap::new(),
                fused,
            },
            stacks: Stacks::default(),
            run: RunState::default(),
            options: Options {
                externals_allowed: true,
                neutral_matches: false,
                lazy_calls: false,
                user_file: None,
            },
            gc: cycles::Collector::default(),
            printer: print::PrintState::default(),
            host: None,
            fiber: 0,
            tiers: tiers::TierState::default(),
        }
    }

    /// The facts the machine compiles with (none at type level).
    pub fn facts(&self) -> Option<&Facts> {
        self.defs.facts.as_ref()
    }

    /// Whether this machine runs the bodies inlining made ([`inline`]).
    pub(crate) fn inlines(&self) -> bool {
        self.defs.facts.as_ref().is_some_and(|f| f.inline)
    }

    /// What definition `d` compiles to (compiling it on first use).
    #[inline]
    pub(crate) fn def_code(&mut self, d: DefId) -> DefCode {
        if d.0 as usize >= self.defs.code.len() {
            self.defs
                .code
                .resize(self.prog.defs.len(), DefCode::Pending);
            self.defs.vals.resize(self.prog.defs.len(), Val::Erased);
        }
        match self.defs.code[d.0 as usize] {
            DefCode::Pending => {
                let c = compile::compile_def(
                    self.prog,
                    &mut self.code,
                    self.defs.facts.as_ref(),
                    d,
                    self.defs.fused,
                    self.tiers.on.trim,
                );
                self.defs.code[d.0 as usize] = c;
                c
            }
            c => c,
        }
    }

    /// The code of a CAF definition, or `None` for a function.
    pub(crate) fn def_caf_code(&mut self, d: DefId) -> Option<code::CodeId> {
        match self.def_code(d) {
            DefCode::Caf(c) => Some(c),
            _ => None,
        }
    }

    /// The function of a function definition (compiled on first use).
    #[inline(always)]
    pub(crate) fn fun_of(&mut self, d: DefId) -> FunId {
        if let Some(DefCode::Fun(f)) = self.defs.code.get(d.0 as usize) {
            return *f;
        }
        self.def_fun(d)
    }

    /// The function of a function definition.
    #[inline]
    pub(crate) fn def_fun(&mut self, d: DefId) -> FunId {
        match self.def_code(d) {
            DefCode::Fun(f) => f,
            _ => unreachable!("def_fun on a definition that is not a function"),
        }
    }

    /// Definition `d`'s value: a function, or the thunk of a CAF (a new reference).
    #[inline]
    pub(crate) fn def_value(&mut self, d: DefId) -> Val {
        let v = self
            .defs
            .vals
            .get(d.0 as usize)
            .copied()
            .unwrap_or(Val::Erased);
        if v != Val::Erased {
            self.heap.retain(v);
            return v;
        }
        let v = match self.def_code(d) {
            DefCode::Fun(f) => self.heap.fun(f, NIL),
            DefCode::Caf(c) => Val::Thunk(self.heap.thunk(c, NIL)),
            DefCode::Pending => unreachable!(),
        };
        // The table's reference pins it for the run.
        self.defs.vals[d.0 as usize] = v;
        self.heap.retain(v);
        v
    }

    /// A definition's pinned value (not counted: the table keeps it), made if needed.
    pub fn def_value_pinned(&mut self, d: DefId) -> Val {
        let v = self.def_value(d);
        self.heap.release(v);
        v
    }

    /// Evaluates a top-level definition to weak head normal form (a new reference).
    pub fn whnf_def(&mut self, d: DefId) -> Result<Val> {
        let v = self.def_value(d);
        self.whnf(v)
    }

    /// Evaluates a word to weak head normal form; the reference moves in and the
    /// result is a new reference.
    pub fn whnf(&mut self, v: Val) -> Result<Val> {
        match v {
            Val::Thunk(t) => self.run(Control::Force(t)),
            v => Ok(v),
        }
    }

    /// Drops whatever an interrupted evaluation left on the stacks (after a runtime
    /// error), so that the machine can be used again. Thunks whose evaluation was cut
    /// short keep the error they failed with.
    pub fn reset(&mut self) {
        if let Some(c) = self.run.paused.take() {
            self.drop_ctl(c);
        }
        let err = RuntimeError::new(ErrorKind::Abandoned, "evaluation was abandoned");
        self.unwind_to(0, &err);
    }

    /// Pops frames down to height `base`, releasing what they hold; a thunk whose
    /// evaluation is abandoned fails with `err` from now on.
    pub(crate) fn unwind_to(&mut self, base: usize, err: &RuntimeError) {
        let mut failed = None;
        while self.stacks.frames.len() > base {
            let f = self.stacks.frames.pop().expect("frame");
            self.drop_frame(f, &mut failed, err);
        }
    }

    fn drop_frame(&mut self, f: Frame, failed: &mut Option<u32>, err: &RuntimeError) {
        if let Frame::Update(t) = f {
            let id = *failed.get_or_insert_with(|| {
                self.heap.failures.push(err.clone());
                (self.heap.failures.len() - 1) as u32
            });
            let o = self.heap.thunks.get_mut(t);
            o.state = ThunkState::Failed(id);
            if o.waiters && self.host.is_some() {
                o.waiters = false;
                self.with_host(|h, m| h.wake(m, t));
            }
        }
        // What it owns on the side stacks (on top of each), then what it holds.
        let e = f.side_entries();
        for _ in 0..e.vals {
            let v = self.stacks.vals.pop().expect("value");
            self.heap.release(v);
        }
        for _ in 0..e.pending {
            let v = self.stacks.pending.pop().expect("pending");
            self.heap.release(v);
        }
        if let Some(base) = e.deep_base {
            let spine = matches!(f, Frame::Deep { spine: true, .. });
            while self.stacks.deep.len() > base as usize {
                let v = self.stacks.deep.pop().expect("deep");
                if spine
                    && let Val::Thunk(t) = v
                    && let Some(h) = self.host.as_mut()
                {
                    // The walk no longer holds it (see `Host::note_spine`).
                    h.note_spine(t, false);
                }
                self.heap.release(v);
            }
        }
        if let Some(base) = e.eq_base {
            while self.stacks.eq_work.len() > base as usize {
                let (a, b) = self.stacks.eq_work.pop().expect("pair");
                self.heap.release(a);
                self.heap.release(b);
            }
        }
        let heap = &mut self.heap;
        f.held(&mut |h| heap.release_held(h));
    }

    /// Releases what a control holds.
    pub(crate) fn drop_ctl(&mut self, ctl: Control) {
        let heap = &mut self.heap;
        frame::control_refs(&ctl, &mut |h| heap.release_held(h));
    }

    /// Calls `f` with the host taken out of the machine (so that it can use the
    /// machine).
    pub(crate) fn with_host<R>(
        &mut self,
        f: impl FnOnce(&mut dyn host::Host<'p>, &mut Machine<'p>) -> R,
    ) -> R {
        let mut h = self.host.take().expect("a host");
        let r = f(&mut *h, self);
        self.host = Some(h);
        r
    }

    /// The error a run ends with, as the host sees it ([`host::Host::final_error`]: a
    /// call that did not start because another failed first reports that failure).
    pub fn final_error(&mut self, e: RuntimeError) -> RuntimeError {
        match self.host.as_mut() {
            Some(h) => h.final_error(e),
            None => e,
        }
    }

    /// Sends what the printer holds to its output (before a wait for a call).
    pub fn flush_output(&mut self) {
        if let Some(o) = &mut self.printer.out {
            o.flush();
        }
    }

    /// The definition a call site is in, and its core term (`None` when the site is
    /// not known or outside a definition): what a result store keys the call's place
    /// by.
    pub fn site_origin(&self, site: code::Site) -> Option<(DefId, &'p crate::core::term::RcTerm)> {
        if site == code::Site::UNKNOWN {
            return None;
        }
        let meta = self.code.meta.get(site.0 as usize)?;
        (meta.def != u32::MAX).then_some((DefId(meta.def), meta.core))
    }

    /// Installs a host: a scheduler, or a sequential call maker.
    pub fn set_host(&mut self, h: Box<dyn host::Host<'p> + 'p>) {
        self.host = Some(h);
    }

    /// Takes the host out of the machine (to drop it before the machine, or to keep
    /// it past the machine's end).
    pub fn take_host(&mut self) -> Option<Box<dyn host::Host<'p> + 'p>> {
        self.host.take()
    }

    /// Ends a run: the host stops what still runs and drops every other fiber.
    pub fn shutdown(&mut self) {
        if self.host.is_some() {
            self.with_host(|h, m| h.shutdown(m));
        }
    }

    /// The running fiber.
    pub fn fiber(&self) -> u32 {
        self.fiber
    }

    /// Most frames on the stack at once.
    pub fn frames_peak(&self) -> usize {
        self.run.frames_peak
    }

    /// Releases a reference the caller holds.
    pub fn release(&mut self, v: Val) {
        self.heap.release(v);
    }

    /// Trims long-lived thunks and runs the cycle collector when the heap has grown
    /// past their thresholds ([`cycles`]); `ctl` is the loop's control.
    #[inline]
    pub(crate) fn maybe_collect_cycles(&mut self, ctl: &Control) {
        let allocated = self.heap.allocated_objects();
        if self.tiers.on.trim && self.gc.trim_due(allocated) {
            self.trim_thunks();
            self.gc.trimmed(allocated, &self.heap);
        }
        if !self.gc.collect_due(allocated, &self.heap) {
            return;
        }
        if self.defs.vals.iter().any(|v| matches!(v, Val::Thunk(_))) {
            let codes = self.sight().live_code(Some(ctl));
            cycles::unpin_dead_cafs(
                self.prog,
                &self.code,
                &mut self.heap,
                &mut self.defs.vals,
                &mut self.defs.caf_memo,
                codes,
            );
        }
        self.gc.collect_if_cyclic(allocated, &mut self.heap);
    }

    /// Frees every object held only by cycles; returns how many were freed.
    pub fn collect_cycles(&mut self) -> usize {
        self.gc.collect(&mut self.heap)
    }

    /// Pauses evaluation after `n` steps in all (0: never): the loop stops before
    /// step `n + 1` and keeps its state for [`walk::Sight::read_back_state`].
    pub fn set_pause_after(&mut self, n: u64) {
        self.run.pause_after = n;
    }

    /// Whether the last evaluation stopped at its pause rather than ending.
    pub fn is_paused(&self) -> bool {
        self.run.paused.is_some()
    }

    /// The heap and the program's constructors, for primitives on evaluated data
    /// ([`data::Data`]).
    #[inline(always)]
    pub(crate) fn data(&mut self) -> data::Data<'_, 'p> {
        data::Data {
            prog: self.prog,
            heap: &mut self.heap,
            native: self.tiers.on.native,
        }
    }

    /// Evaluates definition `d` and prints its value to `out` ([`print`](mod@print)): a
    /// `String` raw unless `quote_string`. Text is written as it is known.
    pub fn print_def(
        &mut self,
        d: DefId,
        quote_string: bool,
        out: print::Output,
    ) -> (Result<()>, print::Output) {
        print::Printer::new(self).print_def(d, quote_string, out)
    }

    /// Prints a value (owned) to a string (no streaming): the REPL and tests.
    pub fn print_value(&mut self, v: Val, quote_string: bool) -> Result<String> {
        print::Printer::new(self).print_value(v, quote_string)
    }

    /// The machine seen read only, by the walks ([`walk::Sight`]).
    pub fn sight(&self) -> walk::Sight<'_, 'p> {
        walk::Sight {
            prog: self.prog,
            heap: &self.heap,
            code: &self.code,
            stacks: &self.stacks,
            run: &self.run,
            printer: &self.printer,
            def_code: &self.defs.code,
            def_vals: &self.defs.vals,
            host: self.host.as_deref(),
        }
    }
}
