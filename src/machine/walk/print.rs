//! Printing values (LANGUAGE.md section 9), streamed: `main` is needed to full normal
//! form as it is printed, field by field, and each part is written as soon as it is
//! known. The printer is a walk of the generic depth-first walk
//! ([`super::unwind::depth_first`]) whose nodes are the parts still to print: going
//! into one needs it (running the machine if it is not evaluated yet), writes it and
//! pushes its fields, so a million-element list prints without native recursion. A `String` result prints raw; when it is built by `join`
//! (`unlines`, `concatStrings`) or `++`, its pieces print as they are computed.
//!
//! `Int` in decimal; `Float` in shortest round-trip form; `String` quoted; `()`;
//! tuples flat (`(1, (2, 3))` prints `(1, 2, 3)`); lists in brackets; other
//! constructors in prefix form with applications and negative numbers in
//! parentheses; functions as lambda terms.

use crate::core::term::PrimType;
use crate::machine::Machine;
use crate::machine::error::Result;
use crate::machine::frame::{Control, Frame};
use crate::machine::heap::PapHead;
use crate::machine::value::{NIL, Ref, Val};
use crate::prim::{self, Prim};
use std::io::Write;
use std::time::{Duration, Instant};

/// How long printed text may wait in the buffer while evaluation goes on.
const FLUSH_AFTER: Duration = Duration::from_millis(20);

/// Where printed text goes.
pub struct Output {
    buf: String,
    sink: Option<Box<dyn Write>>,
    last_flush: Instant,
    /// Whether writing failed (a closed pipe): printing stops quietly.
    pub broken: bool,
    /// Bytes written out or taken before `buf`.
    written: usize,
    /// Whether text is held back: the run's futures may still fail, and the
    /// sequential run would have failed before printing it ([`Output::truncate_to`]).
    held: bool,
}

impl Output {
    /// Text collected in memory (the REPL, tests).
    pub fn collect() -> Output {
        Output {
            buf: String::new(),
            sink: None,
            last_flush: Instant::now(),
            broken: false,
            written: 0,
            held: false,
        }
    }

    /// Text streamed to a writer (standard output).
    pub fn stream(w: Box<dyn Write>) -> Output {
        Output {
            buf: String::new(),
            sink: Some(w),
            last_flush: Instant::now(),
            broken: false,
            written: 0,
            held: false,
        }
    }

    fn push(&mut self, s: &str) {
        self.buf.push_str(s);
        if self.sink.is_some() && self.buf.len() > 1 << 16 {
            self.flush();
        }
    }

    /// How much has been printed so far (a position for [`Output::truncate_to`]).
    pub fn mark(&self) -> usize {
        self.written + self.buf.len()
    }

    /// Holds text back (nothing is written out) or lets it go (what waits is written).
    pub fn set_held(&mut self, held: bool) {
        self.held = held;
        if !held {
            self.flush();
        }
    }

    /// Drops what was printed after `mark`, if it is still held back: the run ends
    /// with an error the sequential run met at that point.
    pub fn truncate_to(&mut self, mark: usize) {
        if mark >= self.written {
            let keep = mark - self.written;
            if keep < self.buf.len() && self.buf.is_char_boundary(keep) {
                self.buf.truncate(keep);
            }
        }
    }

    /// Writes out what is buffered (streaming only), unless text is held back.
    pub fn flush(&mut self) {
        if self.held {
            return;
        }
        self.written += self.buf.len();
        if let Some(w) = &mut self.sink {
            if !self.buf.is_empty()
                && !self.broken
                && w.write_all(self.buf.as_bytes())
                    .and_then(|_| w.flush())
                    .is_err()
            {
                self.broken = true;
            }
            self.buf.clear();
            self.last_flush = Instant::now();
        }
    }

    /// Ends the printed value with a newline and writes everything out.
    pub fn push_line_end(&mut self) {
        self.push("\n");
        self.flush();
    }

    /// Flushes if text has waited long enough (called while evaluation goes on).
    pub fn flush_if_due(&mut self) {
        if !self.buf.is_empty() && self.last_flush.elapsed() >= FLUSH_AFTER {
            self.flush();
        }
    }

    /// The collected text.
    pub fn take(&mut self) -> String {
        self.written += self.buf.len();
        std::mem::take(&mut self.buf)
    }
}

/// The printer's part of a machine: where it writes, and what it holds while it
/// needs a value (roots for the audits).
#[derive(Default)]
pub(crate) struct PrintState {
    /// Where the printer writes.
    pub(crate) out: Option<Output>,
    /// What the printer holds while it needs a value.
    pub(crate) printing: Vec<Task>,
}

/// What is left to print (each word counted).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Task {
    /// Literal text.
    Text(&'static str),
    /// The label before field `i` of a record built by constructor `k`: `{ name = ` for
    /// the first, `, name = ` for the others.
    Label(crate::core::term::ConId, u32),
    /// A word to need and print; `atom` asks for parentheses around applications and
    /// negative numbers.
    Val(Val, bool),
    /// The rest of a tuple after a component.
    PairRest(Val),
    /// The rest of a list after an element.
    ListRest(Val),
    /// A string to print, streamed where it is built by `join` or `++`: raw, or with
    /// its characters escaped (`true`: a string inside a printed value, between the
    /// quotes its tasks print).
    Raw(Val, bool),
    /// The rest of a streamed `join`: the separator, the list still to go, whether no
    /// element was printed yet, and whether escaped.
    JoinRest(Val, Val, bool, bool),
}

/// How many built constructor objects the printer searches for calls to start before
/// it waits for one.
const PRINT_LOOKAHEAD: usize = 256;

impl Task {
    /// The references a printer task holds (for the audits).
    pub(crate) fn refs(&self, f: &mut dyn FnMut(crate::machine::host::HeldRef)) {
        use crate::machine::host::HeldRef::Val as V;
        match *self {
            Task::Val(v, _) | Task::PairRest(v) | Task::ListRest(v) | Task::Raw(v, _) => f(V(v)),
            Task::JoinRest(a, b, _, _) => {
                f(V(a));
                f(V(b));
            }
            Task::Text(_) | Task::Label(..) => {}
        }
    }
}

/// The printer: a client of the machine that needs a value part by part and writes
/// each part as soon as it is known. It is a walk: going into a part prints it
/// (needing it first, so a walk step may run the machine) and pushes its fields. An
/// error stops the walk: the parts left are released and the error is kept for
/// [`Printer::print_tasks`]. What it holds between steps is in the machine's
/// [`PrintState`] (the audits count it).
pub(crate) struct Printer<'m, 'p> {
    m: &'m mut Machine<'p>,
    error: Option<crate::machine::error::RuntimeError>,
}

impl<'m, 'p> Printer<'m, 'p> {
    /// A printer of machine `m`'s values.
    pub(crate) fn new(m: &'m mut Machine<'p>) -> Printer<'m, 'p> {
        Printer { m, error: None }
    }

    /// Needs a word (owned) to weak head normal form for the printer.
    fn print_need(&mut self, v: Val, tasks: &mut Vec<Task>) -> Result<Val> {
        if let Val::Thunk(_) = self.m.heap.forced(v) {
            if let Some(o) = &mut self.m.printer.out {
                o.flush_if_due();
            }
            self.fork_printed(v, tasks);
            self.m.printer.printing = std::mem::take(tasks);
            let r = self.m.whnf(v);
            *tasks = std::mem::take(&mut self.m.printer.printing);
            if r.is_err() {
                for t in tasks.drain(..) {
                    self.release_task(t);
                }
            }
            return r;
        }
        let w = self.m.heap.forced(v);
        self.m.heap.retain(w);
        self.m.heap.release(v);
        Ok(w)
    }

    /// Every part still to print is certainly needed (LANGUAGE.md 7.1): with a
    /// scheduler, each part not evaluated yet that may reach an external gets a
    /// certain fiber of its own, evaluating it to normal form, before the printer
    /// waits for `next` (a call in the second field of a pair starts while the first
    /// is computed). When `next` may itself wait for a call, the parts already built
    /// are searched too (the elements of a list literal), up to [`PRINT_LOOKAHEAD`]
    /// objects, so that the search costs little beside the call.
    fn fork_printed(&mut self, next: Val, tasks: &mut Vec<Task>) {
        if !self.m.host.as_ref().is_some_and(|h| h.fibers()) {
            return;
        }
        self.split_streamed(tasks);
        // The parts to be printed first first (the task stack's top is printed next).
        let mut parts = Vec::new();
        for t in tasks.iter().rev() {
            match *t {
                // A string the printer will stream: its pieces are printed (and
                // forked) as they come, so what comes before an error in a later
                // piece is printed, as it is sequentially.
                Task::Raw(v, _) if self.streamed_later(v) => {}
                Task::Val(v, _) | Task::PairRest(v) | Task::ListRest(v) | Task::Raw(v, _) => {
                    parts.push(v)
                }
                Task::JoinRest(_, l, _, _) => parts.push(l),
                Task::Text(_) | Task::Label(..) => {}
            }
        }
        let look_inside = self.m.with_host(|h, m| h.may_call(m, next));
        let budget = if look_inside { PRINT_LOOKAHEAD } else { 0 };
        for v in super::unwind::Frontier::search(&self.m.heap, &parts, budget, usize::MAX) {
            self.m.heap.retain(v);
            self.m.with_host(|h, m| h.fork(m, v, true));
        }
    }

    /// Unfolds the strings the printer will stream (see [`Printer::ends_in_join`])
    /// into what streaming makes of them when it reaches them: a `++` into its two
    /// pieces, a `join` into its separator and list, a known call into its body with
    /// its arguments; a string inside a printed value is printed between quotes,
    /// streamed too. The pieces and lists are then forked now, each on its own (calls
    /// in a later piece start while an earlier one prints), and an error in a later
    /// piece stops the printing after the earlier ones are printed, as it does
    /// sequentially.
    fn split_streamed(&mut self, tasks: &mut Vec<Task>) {
        use crate::machine::code::Code;
        let mut budget = PRINT_LOOKAHEAD;
        let mut i = tasks.len();
        while i > 0 && budget > 0 {
            i -= 1;
            let (v, quoted) = match tasks[i] {
                Task::Raw(v, q) => (v, q),
                Task::Val(v, _) => {
                    if !self.streamed_later(v) {
                        continue;
                    }
                    // A string: its quotes around it, its pieces escaped (the top of
                    // the task stack is printed first).
                    tasks[i] = Task::Text("\"");
                    tasks.insert(i + 1, Task::Raw(v, true));
                    tasks.insert(i + 2, Task::Text("\""));
                    i += 2;
                    budget -= 1;
                    continue;
                }
                _ => continue,
            };
            let Some((code, env)) = self.sole_code(v) else {
                continue;
            };
            let node = self.m.code.nodes[code as usize].clone();
            match node {
                Code::Prim {
                    prim: Prim::Concat,
                    args,
                    ..
                } => {
                    let codes = self.m.code.args(args);
                    let (a, b) = (codes[0], codes[1]);
                    let ta = self.m.mkarg(a, env);
                    let tb = self.m.mkarg(b, env);
                    self.m.heap.release(v);
                    tasks[i] = Task::Raw(tb, quoted);
                    tasks.insert(i + 1, Task::Raw(ta, quoted));
                    i += 2;
                }
                Code::Prim {
                    prim: Prim::Join,
                    args,
                    ..
                } => {
                    let codes = self.m.code.args(args);
                    let (a, b) = (codes[0], codes[1]);
                    let sep = self.m.mkarg(a, env);
                    let list = self.m.mkarg(b, env);
                    self.m.heap.release(v);
                    tasks[i] = Task::JoinRest(sep, list, true, quoted);
                }
                Code::CallDef { def, args, .. } if self.ends_in_join(code) => {
                    // The call made now, its arguments passed lazily (as with
                    // `lazy_calls`): the same values its body would see.
                    let codes: Vec<_> = self.m.code.args(args).to_vec();
                    let words: Vec<Val> = codes.into_iter().map(|a| self.m.mkarg(a, env)).collect();
                    let t = self.m.body_thunk(def, &words);
                    self.m.heap.release(v);
                    tasks[i] = Task::Raw(t, quoted);
                    // Look at the body's code next.
                    i += 1;
                }
                _ => continue,
            }
            budget -= 1;
        }
    }

    /// Whether a raw string the printer holds will be streamed when it is reached
    /// (see [`Printer::print_need_raw`]): a thunk only the printer holds whose code
    /// ends in a `++` or a `join` ([`Printer::ends_in_join`]).
    fn streamed_later(&mut self, v: Val) -> bool {
        match self.sole_code(v) {
            Some((code, _)) => self.ends_in_join(code),
            None => false,
        }
    }

    /// Whether code returns a `++` or a `join` in tail position, directly, in the body
    /// of a `let`, or in the body of a known function it calls in tail position
    /// (`concatStrings xs`, `unlines xs`, a user's function built on them): under a
    /// `Stream` frame such code comes back in pieces, so the printer streams it.
    fn ends_in_join(&mut self, mut code: crate::machine::code::CodeId) -> bool {
        use crate::machine::code::Code;
        // Known calls followed; a recursive chain of them ends the look.
        for _ in 0..8 {
            match self.m.code.nodes[code as usize] {
                Code::Prim {
                    prim: Prim::Concat | Prim::Join,
                    ..
                } => return true,
                Code::Let { body, .. } => code = body,
                Code::CallDef { def, .. } => {
                    let f = self.m.fun_of(def);
                    code = self.m.code.funs[f as usize].body;
                }
                _ => return false,
            }
        }
        false
    }

    /// The code and record of a thunk not evaluated yet that only the printer holds
    /// (its code may run without an update, streamed).
    fn sole_code(&self, v: Val) -> Option<(crate::machine::code::CodeId, Ref)> {
        let Val::Thunk(t) = v else { return None };
        let o = self.m.heap.thunks.get(t);
        match o.state {
            crate::machine::heap::ThunkState::Suspended { code, env } if o.rc == 1 => {
                Some((code, env))
            }
            _ => None,
        }
    }

    fn release_task(&mut self, t: Task) {
        match t {
            Task::Val(v, _) | Task::PairRest(v) | Task::ListRest(v) | Task::Raw(v, _) => {
                self.m.heap.release(v)
            }
            Task::JoinRest(a, b, _, _) => {
                self.m.heap.release(a);
                self.m.heap.release(b);
            }
            Task::Text(_) | Task::Label(..) => {}
        }
    }

    /// Evaluates definition `d` and prints its value to `out`: a `String` raw unless
    /// `quote_string`. Text is written as it is known.
    pub(crate) fn print_def(
        &mut self,
        d: crate::core::term::DefId,
        quote_string: bool,
        out: Output,
    ) -> (Result<()>, Output) {
        self.m.printer.out = Some(out);
        let r = self
            .print_def_inner(d, quote_string)
            .and_then(|()| self.join_futures());
        let mut out = self.m.printer.out.take().expect("output");
        out.set_held(false);
        (r, out)
    }

    fn print_def_inner(&mut self, d: crate::core::term::DefId, quote_string: bool) -> Result<()> {
        let v = match self.m.def_caf_code(d) {
            // A CAF's code runs under a `Stream` frame, so that a `String` built by
            // `join` or `++` comes back in pieces.
            Some(c) if !quote_string => self.run_streamed(Control::Eval(c, NIL))?,
            _ => self.m.whnf_def(d)?,
        };
        let task = match v {
            Val::Str(_) if !quote_string => Task::Raw(v, false),
            Val::Pap(p) if self.is_stream_piece(p) => Task::Raw(v, false),
            _ => Task::Val(v, false),
        };
        self.print_tasks(vec![task])
    }

    /// Whether a partial application is a piece of a streamed string (`join` or `++`
    /// with all its arguments, handed back by a `Stream` frame).
    fn is_stream_piece(&self, p: crate::machine::value::Ref) -> bool {
        let o = self.m.heap.paps.get(p);
        matches!(o.head, PapHead::Prim(Prim::Join | Prim::Concat, _)) && o.args.len == 2
    }

    /// Prints a value (owned) to a string (no streaming): the REPL and tests.
    pub(crate) fn print_value(&mut self, v: Val, quote_string: bool) -> Result<String> {
        self.m.printer.out = Some(Output::collect());
        let task = match v {
            Val::Str(_) if !quote_string => Task::Raw(v, false),
            _ => Task::Val(v, false),
        };
        let r = self
            .print_tasks(vec![task])
            .and_then(|()| self.join_futures());
        let mut out = self.m.printer.out.take().expect("output");
        out.set_held(false);
        r.map(|_| out.take())
    }

    /// Needs every future the current fiber made that has not ended, so that the run
    /// ends with the error the sequential run meets first, if any. (A sound strictness
    /// analysis makes this a no-op: the work that made a future needs its value.)
    fn join_futures(&mut self) -> Result<()> {
        while self.m.host.is_some() {
            let Some(v) = self.m.with_host(|h, m| h.unfinished_future(m)) else {
                break;
            };
            let r = self.m.whnf(v)?;
            self.m.heap.release(r);
        }
        Ok(())
    }

    /// Writes a piece of a streamed string: raw, or escaped as inside quotes.
    fn emit_piece(&mut self, s: &str, quoted: bool) {
        if quoted {
            let mut e = String::with_capacity(s.len());
            crate::core::pretty::escape_into(&mut e, s);
            self.emit(&e);
        } else {
            self.emit(s);
        }
    }

    fn emit(&mut self, s: &str) {
        if let Some(o) = &mut self.m.printer.out {
            o.push(s);
        }
    }

    /// Prints the parts on `tasks` (owned), the top one first: the printer is a walk
    /// ([`super::unwind::depth_first`]) whose nodes are the parts still to print.
    fn print_tasks(&mut self, mut tasks: Vec<Task>) -> Result<()> {
        super::unwind::depth_first(self, &mut tasks, &mut Vec::new());
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Prints one part: writes what it knows, needing the word first, and pushes its
    /// fields on `tasks` (the walk's stack). On an error, every task is released.
    fn print_task(&mut self, task: Task, tasks: &mut Vec<Task>) -> Result<()> {
        let bi = self.m.prog.builtins;
        if self.m.printer.out.as_ref().is_some_and(|o| o.broken) {
            self.release_task(task);
            return Ok(());
        }
        let (v, atom) = match task {
            Task::Label(k, i) => {
                let name = self.m.prog.con(k).field_names[i as usize].clone();
                let sep = if i == 0 { "{ " } else { ", " };
                self.emit(&format!("{sep}{name} = "));
                return Ok(());
            }
            Task::Text(t) => {
                self.emit(t);
                return Ok(());
            }
            Task::Raw(v, quoted) => {
                let v = self.print_need_raw(v, tasks)?;
                match v {
                    Val::Str(r) => {
                        let t = self.m.heap.text(r).clone();
                        self.emit_piece(&t, quoted);
                        self.m.heap.release(v);
                    }
                    Val::Pap(p) if self.is_stream_piece(p) => {
                        let o = self.m.heap.paps.get(p);
                        let (head, run) = (o.head, o.args);
                        let (a, b) = (self.m.heap.words.at(run, 0), self.m.heap.words.at(run, 1));
                        self.m.heap.retain(a);
                        self.m.heap.retain(b);
                        self.m.heap.release(v);
                        if let PapHead::Prim(Prim::Join, _) = head {
                            tasks.push(Task::JoinRest(a, b, true, quoted));
                        } else {
                            tasks.push(Task::Raw(b, quoted));
                            tasks.push(Task::Raw(a, quoted));
                        }
                    }
                    other => {
                        tasks.push(Task::Val(other, false));
                    }
                }
                return Ok(());
            }
            Task::JoinRest(sep, list, first, quoted) => {
                let sep = self.print_need(sep, tasks)?;
                let l = self.print_need(list, tasks)?;
                match l {
                    Val::Con(r) if self.m.heap.cons.get(r).con == bi.cons => {
                        let f = self.m.heap.fields(r);
                        let (h, t) = (f[0], f[1]);
                        self.m.heap.retain(h);
                        self.m.heap.retain(t);
                        self.m.heap.release(l);
                        if !first && let Val::Str(sr) = sep {
                            let text = self.m.heap.text(sr).clone();
                            self.emit_piece(&text, quoted);
                        }
                        tasks.push(Task::JoinRest(sep, t, false, quoted));
                        tasks.push(Task::Raw(h, quoted));
                    }
                    other => {
                        self.m.heap.release(other);
                        self.m.heap.release(sep);
                    }
                }
                return Ok(());
            }
            Task::Val(v, _) if self.streamed_later(v) => {
                // A string built by `join` or `++`: streamed between its quotes.
                self.emit("\"");
                tasks.push(Task::Text("\""));
                tasks.push(Task::Raw(v, true));
                return Ok(());
            }
            Task::Val(v, atom) => (self.print_need(v, tasks)?, atom),
            Task::PairRest(c) => {
                let v = self.print_need(c, tasks)?;
                match v {
                    Val::Con(r) if self.m.heap.cons.get(r).con == bi.mk_pair => {
                        let f = self.m.heap.fields(r);
                        let (x, y) = (f[0], f[1]);
                        self.m.heap.retain(x);
                        self.m.heap.retain(y);
                        self.m.heap.release(v);
                        tasks.push(Task::PairRest(y));
                        tasks.push(Task::Val(x, false));
                        tasks.push(Task::Text(", "));
                    }
                    _ => {
                        tasks.push(Task::Val(v, false));
                        tasks.push(Task::Text(", "));
                    }
                }
                return Ok(());
            }
            Task::ListRest(c) => {
                let v = self.print_need(c, tasks)?;
                if let Val::Con(r) = v
                    && self.m.heap.cons.get(r).con == bi.cons
                {
                    let f = self.m.heap.fields(r);
                    let (x, y) = (f[0], f[1]);
                    self.m.heap.retain(x);
                    self.m.heap.retain(y);
                    self.m.heap.release(v);
                    tasks.push(Task::ListRest(y));
                    tasks.push(Task::Val(x, false));
                    tasks.push(Task::Text(", "));
                    return Ok(());
                }
                self.m.heap.release(v);
                return Ok(());
            }
        };
        self.print_whnf(v, atom, tasks);
        Ok(())
    }

    /// Needs a word of a raw string: a piece of a streamed string comes back as a
    /// `join` or `++` with its arguments, when the word is code under a `Stream`
    /// frame.
    fn print_need_raw(&mut self, v: Val, tasks: &mut Vec<Task>) -> Result<Val> {
        if let Some((code, env)) = self.sole_code(v) {
            self.fork_printed(v, tasks);
            // Nobody else holds this thunk: its code may run without an update.
            self.m.heap.retain_rec(env);
            self.m.heap.release(v);
            if let Some(o) = &mut self.m.printer.out {
                o.flush_if_due();
            }
            self.m.printer.printing = std::mem::take(tasks);
            let r = self.run_streamed(Control::Eval(code, env));
            *tasks = std::mem::take(&mut self.m.printer.printing);
            if r.is_err() {
                for t in tasks.drain(..) {
                    self.release_task(t);
                }
            }
            return r;
        }
        self.print_need(v, tasks)
    }

    /// Runs `ctl` under a `Stream` frame: a `join` or `++` whose value would return
    /// straight to it comes back as a partial application with its two arguments.
    fn run_streamed(&mut self, ctl: Control) -> Result<Val> {
        self.m.stacks.frames.push(Frame::Stream);
        let r = self.m.run(ctl);
        let top = self.m.stacks.frames.pop();
        debug_assert_eq!(top, Some(Frame::Stream));
        r
    }

    /// Prints a map, set or array (owned) as the call that builds it from its entries
    /// (`mapFromList [(1, "a")]`, `setFromList [1]`, `arrayFromList [1]`), the
    /// entries on the task list; `false` (nothing done) for any other value, or for a
    /// collection whose tree is not evaluated (printed as constructors then).
    fn print_collection(&mut self, v: Val, atom: bool, tasks: &mut Vec<Task>) -> bool {
        let Some(cols) = self.m.prog.collections() else {
            return false;
        };
        let k = match v {
            Val::Atom(k) => k,
            Val::Con(r) => self.m.heap.cons.get(r).con,
            _ => return false,
        };
        let (name, tree, pairs) = if k == cols.tip || k == cols.bin {
            ("mapFromList [", v, true)
        } else if k == cols.set_of || k == cols.array_of {
            let Val::Con(r) = v else { return false };
            let inner = self.m.heap.fields(r)[0];
            let name = if k == cols.set_of {
                "setFromList ["
            } else {
                "arrayFromList ["
            };
            (name, inner, false)
        } else {
            return false;
        };
        let Some(entries) = self.m.data().map_entries(tree) else {
            return false;
        };
        for &(key, x) in &entries {
            self.m.heap.retain(if k == cols.set_of { key } else { x });
            if pairs {
                self.m.heap.retain(key);
            }
        }
        self.m.heap.release(v);
        if atom {
            self.emit("(");
            tasks.push(Task::Text(")"));
        }
        self.emit(name);
        tasks.push(Task::Text("]"));
        for (i, &(key, x)) in entries.iter().enumerate().rev() {
            if pairs {
                tasks.push(Task::Text(")"));
                tasks.push(Task::PairRest(x));
                tasks.push(Task::Val(key, false));
                tasks.push(Task::Text("("));
            } else {
                tasks.push(Task::Val(if k == cols.set_of { key } else { x }, false));
            }
            if i > 0 {
                tasks.push(Task::Text(", "));
            }
        }
        true
    }

    /// Prints one weak head normal form (owned); its fields go on the task list.
    fn print_whnf(&mut self, v: Val, atom: bool, tasks: &mut Vec<Task>) {
        let bi = self.m.prog.builtins;
        if matches!(v, Val::Atom(_) | Val::Con(_)) && self.print_collection(v, atom, tasks) {
            return;
        }
        match v {
            Val::Int(n) => {
                let s = if atom && n < 0 {
                    format!("({n})")
                } else {
                    n.to_string()
                };
                self.emit(&s);
            }
            Val::Float(x) => {
                let s = prim::float::show(x);
                let s = if atom && s.starts_with('-') {
                    format!("({s})")
                } else {
                    s
                };
                self.emit(&s);
            }
            Val::Str(r) => {
                let mut s = String::new();
                crate::core::pretty::quote_into(&mut s, self.m.heap.text(r));
                self.emit(&s);
            }
            Val::Char(c) => self.emit(&crate::core::pretty::char_literal(c)),
            Val::Atom(k) => {
                if k == bi.unit_con {
                    self.emit("()");
                } else if self.m.prog.data(k.data).record {
                    self.emit("{}");
                } else if k == bi.nil {
                    self.emit("[]");
                } else {
                    let name = self.m.prog.con(k).name.clone();
                    self.emit(&name);
                }
            }
            Val::Con(r) => {
                let k = self.m.heap.cons.get(r).con;
                let fields: Vec<Val> = self.m.heap.fields(r).to_vec();
                for &x in &fields {
                    self.m.heap.retain(x);
                }
                self.m.heap.release(v);
                if k == bi.mk_pair && fields.len() == 2 {
                    self.emit("(");
                    tasks.push(Task::Text(")"));
                    tasks.push(Task::PairRest(fields[1]));
                    tasks.push(Task::Val(fields[0], false));
                } else if k == bi.cons && fields.len() == 2 {
                    self.emit("[");
                    tasks.push(Task::Text("]"));
                    tasks.push(Task::ListRest(fields[1]));
                    tasks.push(Task::Val(fields[0], false));
                } else if self.m.prog.data(k.data).record {
                    // A record needs no parentheses, even as an argument.
                    tasks.push(Task::Text(" }"));
                    for (i, &x) in fields.iter().enumerate().rev() {
                        tasks.push(Task::Val(x, false));
                        tasks.push(Task::Label(k, i as u32));
                    }
                } else {
                    if atom {
                        self.emit("(");
                        tasks.push(Task::Text(")"));
                    }
                    let name = self.m.prog.con(k).name.clone();
                    self.emit(&name);
                    for &x in fields.iter().rev() {
                        tasks.push(Task::Val(x, true));
                        tasks.push(Task::Text(" "));
                    }
                }
                return;
            }
            Val::Pap(p) => {
                let o = self.m.heap.paps.get(p);
                let (head, run) = (o.head, o.args);
                let name = match head {
                    PapHead::Prim(p, _) => Some(p.name().to_string()),
                    PapHead::Con(c) => Some(self.m.prog.con(c).name.to_string()),
                    PapHead::Data(d) => Some(self.m.prog.data(d).name.to_string()),
                    PapHead::Extern(e, _) => Some(self.m.prog.external(e).name.to_string()),
                    PapHead::Open(_) | PapHead::Hole(_) => Some("_".to_string()),
                    PapHead::Fun(_) | PapHead::Def(_) => None,
                };
                match name {
                    Some(name) => {
                        let args: Vec<Val> = self.m.heap.words.get(run).to_vec();
                        if args.is_empty() {
                            self.emit(&name);
                        } else {
                            for &x in &args {
                                self.m.heap.retain(x);
                            }
                            self.m.heap.release(v);
                            if atom {
                                self.emit("(");
                                tasks.push(Task::Text(")"));
                            }
                            self.emit(&name);
                            for &x in args.iter().rev() {
                                tasks.push(Task::Val(x, true));
                                tasks.push(Task::Text(" "));
                            }
                            return;
                        }
                    }
                    None => {
                        let s = self.m.sight().show_function(v);
                        let s = if atom { format!("({s})") } else { s };
                        self.emit(&s);
                    }
                }
            }
            Val::Fun(_) | Val::Pi(_) => {
                let s = self.m.sight().show_function(v);
                let s = if atom && matches!(v, Val::Fun(_)) {
                    format!("({s})")
                } else {
                    s
                };
                self.emit(&s);
            }
            Val::Universe(0) => self.emit("Type"),
            Val::Universe(n) => self.emit(&format!("Type {n}")),
            Val::PrimType(p) => self.emit(match p {
                PrimType::Int => "Int",
                PrimType::Float => "Float",
                PrimType::String => "String",
                PrimType::Char => "Char",
            }),
            Val::Erased | Val::Stuck(_) | Val::Thunk(_) => self.emit("_"),
        }
        self.m.heap.release(v);
    }
}

impl super::unwind::Walk for Printer<'_, '_> {
    type Node = Task;
    type Exit = std::convert::Infallible;

    fn enter(&mut self, task: Task, work: &mut Vec<Task>) -> Option<Self::Exit> {
        if let Err(e) = self.print_task(task, work) {
            for t in work.drain(..) {
                self.release_task(t);
            }
            self.error = Some(e);
        }
        None
    }

    fn exit(&mut self, x: Self::Exit) {
        match x {}
    }
}
