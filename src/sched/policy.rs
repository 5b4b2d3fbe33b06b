//! The call policy: what happens between a call the machine reaches and the executor
//! that runs it, and between the executor's answer and the value the machine gets
//! (DESIGN.md 4 and 6). The machine hands over an external with its arguments in
//! normal form ([`CallRequest`]); the policy
//!
//! - finds the external in the registry and turns the arguments into [`Plain`] data
//!   and a [`Request`] (bad arguments fail here, at the call);
//! - shares calls: a call with the same arguments at the same place runs once per run
//!   (LANGUAGE.md 7.3), its value or error kept for every later asker;
//! - gives each call its place for the result store: its definition's hash and its
//!   position inside it ([`crate::proto::defhash`]), and how users see it;
//! - remembers the first failure that decides the run (LANGUAGE.md 11), after which no
//!   new `effect` call starts, and `--fail-fast`;
//! - owns the call layer ([`Calls`]: result store, retries, progress, trace,
//!   executors).
//!
//! Both hosts use it: the scheduler ([`super::Scheduler`]) and the sequential host
//! ([`super::Sequential`]). The run's owner (the command line, the REPL) keeps a handle
//! ([`SharedPolicy`]) to finish the call layer and to ask how the run ended.

use crate::core::plain::Plain;
use crate::core::term::DefId;
use crate::external::calls::{Answer, Call, Calls, Config, Place};
use crate::external::exec::Limits;
use crate::external::exec::Ticket;
use crate::external::progress::ProgressMode;
use crate::external::registry::{self, External, Outcome, Param};
use crate::external::request::{CallError, CallErrorKind, Reply, Request};
use crate::external::stream::{Batch, Stream, StreamRef};
use crate::machine::Machine;
use crate::machine::code::Site;
use crate::machine::error::{ErrorKind, Result, RuntimeError};
use crate::machine::host::{CallRequest, HeldRef};
use crate::machine::value::Ref;
use crate::machine::value::Val;
use crate::syntax::span::Span;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;

/// The identity of a call for sharing: its place, its external and its arguments.
pub type CallKey = (Site, &'static str, Vec<Plain>);

/// A finished call's answer from the executor.
pub type CallAnswer = std::result::Result<Reply, CallError>;

/// The error of a call that `--plan` does not make: the run stops there.
pub const PLANNED: &str = "not run: --plan";

/// The error of an effect call that does not start because an earlier failure
/// decided the run (LANGUAGE.md 11); the run reports that failure instead.
pub use crate::external::calls::NOT_STARTED;

/// The policy, shared by a host and the owner of the run.
pub type SharedPolicy<'p> = Rc<RefCell<CallPolicy<'p>>>;

/// A call ready for an executor, with what its answer needs to become a value.
#[derive(Debug)]
pub struct ReadyCall {
    /// The call: its external, arguments as plain data, place and declared files.
    pub call: Call,
    /// What the executor is asked to do.
    pub request: Request,
    /// Its identity for sharing (`None`: never shared).
    pub key: Option<CallKey>,
    /// The word the call returns when it succeeds (owned), if it is one of its
    /// arguments (`delay`).
    pub passthrough: Option<Val>,
    /// Where to report a failure.
    pub span: Span,
    /// The stream a streamed call's items go to ([`External::is_stream`]): the host
    /// submits the call (its end is recorded by the call layer; nobody waits for it)
    /// and waits for the stream's first items ([`CallPolicy::stream_wait`]).
    pub stream: Option<StreamRef>,
}

/// What became of a call the machine reached, before any executor sees it.
pub enum Prepared {
    /// The same call finished earlier in this run: its value (a new reference) or
    /// error.
    Answered(Result<Val>),
    /// It is to be made.
    Ready(Box<ReadyCall>),
}

/// The call policy of one run (see the module doc).
pub struct CallPolicy<'p> {
    layer: Calls,
    /// Finished calls, by place and arguments: a counted reference each.
    shared: FxHashMap<CallKey, Result<Val>>,
    places: FxHashMap<Site, Place>,
    def_hashes: Option<crate::proto::defhash::DefHashes>,
    place_shown: Option<Box<dyn Fn(Span) -> String + 'p>>,
    first_failure: Option<RuntimeError>,
    ended_by_an_earlier_failure: bool,
    fail_fast: bool,
    next_ticket: u64,
    /// Streams whose end the program has not reached, by id.
    streams: FxHashMap<u64, OpenStream>,
    /// The calls producing streams, by ticket: the stream's id.
    starts: FxHashMap<u64, u64>,
    /// `prim_streamRest`, whose body is the unevaluated rest of a stream.
    rest_def: Option<DefId>,
}

/// A stream the program has not read to its end.
struct OpenStream {
    stream: StreamRef,
    /// The streamed call's place: a failure met at the stream's end is reported there.
    span: Span,
    /// The unevaluated rest of the list the program holds (a counted reference of the
    /// policy's own): when the policy's is the only one left, the program no longer
    /// needs the stream ([`CallPolicy::unneeded_streams`]).
    rest: Option<Ref>,
    /// The call producing it, until it ends.
    start: Option<Ticket>,
    /// Whether the program has read it to its end (it is forgotten once its call's
    /// answer has come too).
    read: bool,
}

impl<'p> CallPolicy<'p> {
    /// A policy over a call layer.
    pub fn new(layer: Calls) -> CallPolicy<'p> {
        CallPolicy {
            layer,
            shared: FxHashMap::default(),
            places: FxHashMap::default(),
            def_hashes: None,
            place_shown: None,
            first_failure: None,
            ended_by_an_earlier_failure: false,
            fail_fast: false,
            next_ticket: 0,
            streams: FxHashMap::default(),
            starts: FxHashMap::default(),
            rest_def: None,
        }
    }

    /// A policy over a call layer with these limits and no store, no progress.
    pub fn plain(limits: Limits) -> CallPolicy<'p> {
        let layer = Calls::new(Config {
            limits,
            progress: ProgressMode::None,
            ..Default::default()
        })
        .expect("a call layer without a store opens");
        CallPolicy::new(layer)
    }

    /// This policy as a handle for a host and the run's owner.
    pub fn shared(self) -> SharedPolicy<'p> {
        Rc::new(RefCell::new(self))
    }

    /// How places are shown to users (`wf.sp:3:5`); without it, file number and
    /// offset.
    pub fn set_place_shown(&mut self, f: Box<dyn Fn(Span) -> String + 'p>) {
        self.place_shown = Some(f);
    }

    /// `--fail-fast`: a certain call's failure stops the calls still running.
    pub fn set_fail_fast(&mut self, on: bool) {
        self.fail_fast = on;
    }

    /// Whether `--fail-fast` is on.
    pub fn fail_fast(&self) -> bool {
        self.fail_fast
    }

    /// The call layer.
    pub fn layer(&mut self) -> &mut Calls {
        &mut self.layer
    }

    /// The call layer, to read.
    pub fn calls(&self) -> &Calls {
        &self.layer
    }

    /// A new ticket for a call.
    pub fn ticket(&mut self) -> u64 {
        self.next_ticket += 1;
        self.next_ticket
    }

    /// Turns a call the machine reached into one for an executor, or answers it from
    /// an earlier identical call. The arguments are released (but `delay`'s value,
    /// which the ready call owns).
    pub fn prepare(&mut self, m: &mut Machine<'p>, req: CallRequest) -> Result<Prepared> {
        self.prepare_as(m, req, true)
    }

    /// [`CallPolicy::prepare`] for a caller that is certain (`certain`) or not: the
    /// rest of a stream is answered at once only to a certain caller (others wait to
    /// become certain: see [`External::waits_for_certainty`]).
    pub fn prepare_as(
        &mut self,
        m: &mut Machine<'p>,
        req: CallRequest,
        certain: bool,
    ) -> Result<Prepared> {
        let name = &m.prog.external(req.external).name;
        let Some(ext) = registry::lookup(name) else {
            let e = RuntimeError::at(
                ErrorKind::External,
                format!("unknown external `{name}`"),
                req.span,
            );
            for a in req.args {
                m.release(a);
            }
            return Err(e);
        };
        if ext.name == STREAM_NEXT {
            return self.stream_next(m, ext, req, certain);
        }
        let mut data = Vec::new();
        for (p, &a) in ext.params.iter().zip(&req.args) {
            if *p == Param::Data {
                data.push(m.sight().plain_of(a));
            }
        }
        // The argument a call may evaluate to (`delay`'s value) stays; the rest go.
        let passthrough = match ext.result {
            registry::Output::Argument(i) => req.args.get(i).copied(),
            registry::Output::Data(_) | registry::Output::Stream => None,
        };
        for (i, &a) in req.args.iter().enumerate() {
            if !matches!(ext.result, registry::Output::Argument(k) if k == i) {
                m.release(a);
            }
        }
        // Bad arguments (a NUL byte, a malformed pattern) fail here, at the call.
        let mut request = match ext.make_request(&data) {
            Ok(r) => r,
            Err(err) => {
                if let Some(v) = passthrough {
                    m.release(v);
                }
                return Err(call_error(&err, req.span));
            }
        };
        // A stream is not shared by place and arguments: keeping its first cell for
        // later askers would keep every item the program reads in memory.
        let key = (req.site != Site::UNKNOWN && passthrough.is_none() && !ext.is_stream())
            .then(|| (req.site, ext.name, data.clone()));
        if let Some(k) = &key
            && let Some(r) = self.shared.get(k)
        {
            let r = r.clone();
            if let Ok(v) = r {
                m.heap.retain(v);
            }
            return Ok(Prepared::Answered(r));
        }
        let place = self.place_of(m, req.site, req.span);
        let stream = ext.is_stream().then(|| {
            let s = Stream::open();
            request.attach_stream(s.clone());
            self.streams.insert(
                s.id(),
                OpenStream {
                    stream: s.clone(),
                    span: req.span,
                    rest: None,
                    start: None,
                    read: false,
                },
            );
            s
        });
        Ok(Prepared::Ready(Box::new(ReadyCall {
            call: Call {
                external: ext,
                args: data,
                place,
                reading: req.reading,
                writing: req.writing,
            },
            request,
            key,
            passthrough,
            span: req.span,
            stream,
        })))
    }

    /// `prim_streamNext id`: the rest of a stream is needed. What has arrived is
    /// answered at once (all of it: one hand-over per batch, not per line); else the
    /// host waits for the next items ([`Request::StreamNext`]).
    fn stream_next(
        &mut self,
        m: &mut Machine<'p>,
        ext: &'static External,
        req: CallRequest,
        certain: bool,
    ) -> Result<Prepared> {
        let id = match req.args.first().map(|&a| m.heap.forced(a)) {
            Some(Val::Int(n)) => n as u64,
            _ => u64::MAX,
        };
        for a in req.args {
            m.release(a);
        }
        let Some(open) = self.streams.get_mut(&id) else {
            return Err(RuntimeError::at(
                ErrorKind::External,
                "prim_streamNext: no such stream (the rest of a stream is made by Spindle)",
                req.span,
            ));
        };
        // The rest is being evaluated: the program holds it (the policy no longer
        // needs its own reference to tell).
        if let Some(t) = open.rest.take() {
            m.release(Val::Thunk(t));
        }
        if certain && let Some(batch) = open.stream.take() {
            return Ok(Prepared::Answered(self.stream_value(m, batch, req.span)));
        }
        let stream = open.stream.clone();
        Ok(Prepared::Ready(Box::new(ReadyCall {
            call: Call::new(ext, Vec::new(), Place::default()),
            request: Request::StreamNext(stream.clone()),
            key: None,
            passthrough: None,
            span: req.span,
            stream: None,
        })))
    }

    /// A streamed call was submitted under `ticket`: the host waits for its stream's
    /// first items with the request this returns (its answer is a [`Reply::Batch`]).
    pub fn stream_started(&mut self, stream: &StreamRef, ticket: Ticket) -> Request {
        self.starts.insert(ticket.0, stream.id());
        if let Some(open) = self.streams.get_mut(&stream.id()) {
            open.start = Some(ticket);
        }
        Request::StreamNext(stream.clone())
    }

    /// Whether `ticket` is a call producing a stream (nobody waits for its answer:
    /// give it to [`CallPolicy::stream_call_done`]).
    pub fn is_stream_call(&self, ticket: Ticket) -> bool {
        self.starts.contains_key(&ticket.0)
    }

    /// A call producing a stream ended. Its items went to the stream as they came, and
    /// its end too, unless it never ran: a reused record's items are replayed from
    /// its spool file; a failure to start, or `--plan`, ends the stream.
    pub fn stream_call_done(&mut self, ticket: Ticket, answer: Answer) {
        let Some(id) = self.starts.remove(&ticket.0) else {
            return;
        };
        let Some(open) = self.streams.get_mut(&id) else {
            return;
        };
        open.start = None;
        let s = open.stream.clone();
        if open.read {
            self.streams.remove(&id);
        }
        match answer {
            Answer::Planned => s.finish(Err(CallError::new(CallErrorKind::Planned, PLANNED))),
            Answer::Done(Err(e)) => s.finish(Err(e)),
            Answer::Done(Ok(Reply::Stream { spool, .. })) if !s.is_started() => {
                if spool.is_empty() {
                    s.finish(Ok(()));
                    return;
                }
                let reader = s.clone();
                let spawned = std::thread::Builder::new()
                    .name("spindle-replay".into())
                    .stack_size(256 * 1024)
                    .spawn(move || {
                        let json = crate::external::request::spool_is_json(&spool);
                        let _ = crate::external::stream::read_file_into(&spool, &reader, json);
                    });
                if let Err(e) = spawned {
                    s.finish(Err(CallError::new(
                        CallErrorKind::CannotStart,
                        format!("a recorded stream cannot be replayed: {e}"),
                    )));
                }
            }
            Answer::Done(Ok(_)) => s.finish(Ok(())),
        }
    }

    /// The value of a stream's items so far: a list of them ending in the unevaluated
    /// rest of the stream, or in `Nil` once it ended well; its failure once every item
    /// before it has been read (at the streamed call's place).
    pub fn stream_value(&mut self, m: &mut Machine<'p>, b: Batch, at: Span) -> Result<Val> {
        let id = b.stream;
        let span = self.streams.get(&id).map_or(at, |o| o.span);
        let nil = Val::Atom(m.prog.builtins.nil);
        let tail = match (&b.end, b.items.is_empty()) {
            (Some(Ok(())), _) => {
                self.end_stream(m, id);
                nil
            }
            (Some(Err(e)), true) => {
                let e = e.clone();
                self.end_stream(m, id);
                return Err(call_error(&e, span));
            }
            (None, true) => {
                return Err(RuntimeError::at(
                    ErrorKind::Internal,
                    "internal error: a stream answered nothing",
                    span,
                ));
            }
            (_, false) => {
                let def = match self.rest_def {
                    Some(d) => d,
                    None => {
                        let Some(d) = m.prog.def_named("prim_streamRest") else {
                            return Err(RuntimeError::at(
                                ErrorKind::Internal,
                                "internal error: the prelude has no prim_streamRest",
                                span,
                            ));
                        };
                        self.rest_def = Some(d);
                        d
                    }
                };
                let rest = m.stream_rest(def, id as i64);
                if let (Val::Thunk(t), Some(open)) = (rest, self.streams.get_mut(&id)) {
                    m.heap.retain(rest);
                    if let Some(old) = open.rest.replace(t) {
                        m.release(Val::Thunk(old));
                    }
                }
                rest
            }
        };
        let mut acc = tail;
        for item in b.items.iter().rev() {
            let h = m.heap.string(item.into());
            acc = m.heap.con(m.prog.builtins.cons, &[h, acc]);
        }
        Ok(acc)
    }

    /// The program reached a stream's end: the policy forgets it.
    fn end_stream(&mut self, m: &mut Machine<'p>, id: u64) {
        let Some(open) = self.streams.get_mut(&id) else {
            return;
        };
        open.read = true;
        if let Some(t) = open.rest.take() {
            m.release(Val::Thunk(t));
        }
        if open.start.is_none() {
            self.streams.remove(&id);
        }
    }

    /// The streams the program no longer needs (nothing but the policy holds the rest
    /// of the list, unevaluated): each is closed (its producer stops: a process has its
    /// group stopped) and forgotten; the calls producing them are returned, for the
    /// host to cancel (neither recorded nor a failure).
    pub fn unneeded_streams(&mut self, m: &mut Machine<'p>) -> Vec<Ticket> {
        if self.streams.is_empty() {
            return Vec::new();
        }
        let gone: Vec<u64> = self
            .streams
            .iter()
            .filter(|(_, o)| o.rest.is_some_and(|t| m.heap.sole_suspended(t)))
            .map(|(&id, _)| id)
            .collect();
        let mut cancelled = Vec::new();
        for id in gone {
            cancelled.extend(self.close_stream(m, id));
        }
        cancelled
    }

    /// Closes stream `id` (its producer stops), forgets it, and cancels the call
    /// producing it, if it has not ended (returned).
    fn close_stream(&mut self, m: &mut Machine<'p>, id: u64) -> Option<Ticket> {
        let open = self.streams.remove(&id)?;
        open.stream.close();
        if let Some(t) = open.rest {
            m.release(Val::Thunk(t));
        }
        let t = open.start?;
        self.starts.remove(&t.0);
        self.layer.cancel(t);
        Some(t)
    }

    /// Ends the run's streams: a stream whose producer has ended well waits (at most
    /// a few seconds) for its call's answer, so that it is recorded; every other one is
    /// closed and its call cancelled (a stream cut short is not recorded).
    pub fn end_streams(&mut self, m: &mut Machine<'p>) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while self
            .streams
            .values()
            .any(|o| o.start.is_some() && o.stream.has_ended() && !o.stream.is_closed())
            && std::time::Instant::now() < deadline
            && self.layer.in_flight() > 0
        {
            for (t, a) in self.layer.wait(Some(std::time::Duration::from_millis(50))) {
                self.stream_call_done(t, a);
            }
        }
        let ids: Vec<u64> = self.streams.keys().copied().collect();
        for id in ids {
            self.close_stream(m, id);
        }
    }

    /// What a finished call gives the fibers that wait for it: its value (a new
    /// reference), or the word it passes through (owned), or its error at `span`.
    /// A shared call's outcome is kept for later askers.
    pub fn conclude(
        &mut self,
        m: &mut Machine<'p>,
        ext: &'static External,
        key: Option<&CallKey>,
        passthrough: Option<Val>,
        span: Span,
        answer: CallAnswer,
    ) -> Result<Val> {
        if let Ok(Reply::Batch(b)) = answer {
            let r = self.stream_value(m, b, span);
            if let Some(k) = key {
                self.remember(m, k.clone(), &r);
            }
            return r;
        }
        let outcome = answer.and_then(|reply| ext.finish(reply));
        let r = match outcome {
            Ok(Outcome::Argument(_)) => match passthrough {
                Some(v) => Ok(v),
                None => Err(RuntimeError::at(
                    ErrorKind::Internal,
                    "internal error: a call lost its argument",
                    span,
                )),
            },
            Ok(Outcome::Value(p)) => {
                if let Some(v) = passthrough {
                    m.release(v);
                }
                // The result enters the heap only if it fits `--max-memory`.
                let bytes = plain_bytes(&p);
                match m.check_memory(bytes) {
                    Ok(()) => Ok(m.data().value_of(&p)),
                    Err(_) => Err(RuntimeError::at(
                        ErrorKind::OutOfMemory,
                        format!(
                            "out of memory: the result of `{}` ({}) passed the memory limit \
                             of {} (--max-memory)",
                            ext.name,
                            crate::external::budget::show_size(bytes),
                            crate::external::budget::show_size(m.run.max_memory)
                        ),
                        span,
                    )),
                }
            }
            Err(e) => {
                if let Some(v) = passthrough {
                    m.release(v);
                }
                Err(call_error(&e, span))
            }
        };
        if let Some(k) = key {
            self.remember(m, k.clone(), &r);
        }
        r
    }

    /// Keeps a finished call's value (a counted reference of the table's own) or
    /// error, for every later asker of the same call.
    pub fn remember(&mut self, m: &mut Machine<'p>, k: CallKey, r: &Result<Val>) {
        if let Ok(v) = r {
            m.heap.retain(*v);
        }
        if let Some(Ok(old)) = self.shared.insert(k, r.clone()) {
            m.release(old);
        }
    }

    /// The words the policy holds (the values of finished calls), for the audits.
    pub fn held(&self, f: &mut dyn FnMut(HeldRef)) {
        for v in self.shared.values().flatten() {
            f(HeldRef::Val(*v));
        }
        for o in self.streams.values() {
            if let Some(t) = o.rest {
                f(HeldRef::Val(Val::Thunk(t)));
            }
        }
    }

    /// The place of a call site for the result store: its definition's hash and its
    /// position inside it, and how users see it.
    pub fn place_of(&mut self, m: &Machine<'p>, site: Site, span: Span) -> Place {
        if let Some(p) = self.places.get(&site) {
            return p.clone();
        }
        let shown = match &self.place_shown {
            Some(f) => f(span),
            None => format!("{}:{}", span.file.0, span.start),
        };
        let mut place = Place {
            def: [0; 32],
            pos: 0,
            shown,
            name: String::new(),
        };
        if let Some((def, core)) = m.site_origin(site) {
            let prog = m.prog;
            place.name = prog.def(def).name.to_string();
            let hashes = self
                .def_hashes
                .get_or_insert_with(|| crate::proto::defhash::compute(prog));
            if let Some(h) = hashes.def(def) {
                place.def = h.0;
            }
            place.pos = crate::proto::defhash::position(prog, def, core)
                .or_else(|| {
                    // A node fusion made: its place in the body run, apart from the
                    // places of the body written.
                    let body = crate::machine::compile::run_body(prog, def, m.inlines());
                    crate::proto::defhash::position_in(body, core).map(|p| p | 1 << 31)
                })
                .unwrap_or(0);
        }
        if site != Site::UNKNOWN {
            self.places.insert(site, place.clone());
        }
        place
    }

    /// Whether a failure has decided the run.
    pub fn has_failed(&self) -> bool {
        self.first_failure.is_some()
    }

    /// A certain call's failure decides the run: no new `effect` call starts from now
    /// on, and with `--fail-fast` the calls still running stop (else they are held to
    /// finish and be recorded).
    pub fn decided_by(&mut self, err: RuntimeError) {
        self.first_failure = Some(err);
        if self.fail_fast {
            self.layer.shutdown();
        } else {
            self.layer.hold_effects();
        }
    }

    /// The error a run ends with: a call that did not start because another one
    /// failed first reports that failure (LANGUAGE.md 11: after it no new `effect`
    /// call starts). A sequential run reports the same unless it would have made that
    /// call and then met another error (another failing call, an `error`): it reports
    /// that one. [`CallPolicy::ended_by_an_earlier_failure`] tells which case a run
    /// was.
    pub fn final_error(&mut self, e: RuntimeError) -> RuntimeError {
        match &self.first_failure {
            Some(first) if e.kind == ErrorKind::NotStarted => {
                self.ended_by_an_earlier_failure = true;
                first.clone()
            }
            _ => e,
        }
    }

    /// Whether the run ended with the failure that decided it in place of an `effect`
    /// call that could not start because of it ([`CallPolicy::final_error`]): the one
    /// case where a sequential run, which would have made that call, may end with
    /// another error.
    pub fn ended_by_an_earlier_failure(&self) -> bool {
        self.ended_by_an_earlier_failure
    }

    /// After a run ended in error: if a failed call decided it (and `--fail-fast` is
    /// off), waits for the `effect` calls still running so that they are recorded
    /// (LANGUAGE.md 11).
    pub fn finish_running_effects(&mut self) {
        if self.first_failure.is_some() && !self.fail_fast {
            self.layer.finish_running_effects();
        }
    }
}

pub use crate::external::registry::STREAM_NEXT;

/// About how many bytes a result takes once it is a value: its text, and a few
/// words for every number, constructor and list cell (a loop: no native stack).
fn plain_bytes(p: &Plain) -> usize {
    let mut total = 0usize;
    let mut todo = vec![p];
    while let Some(p) = todo.pop() {
        total = total.saturating_add(match p {
            Plain::Str(s) => 32 + s.len(),
            Plain::List(items) => {
                todo.extend(items.iter());
                32 * items.len()
            }
            Plain::Con(_, fields) => {
                todo.extend(fields.iter());
                32 + 16 * fields.len()
            }
            _ => 16,
        });
    }
    total
}

/// A failed call as a runtime error at its place: the message, then the end of the
/// tool's standard error, one line each.
pub fn call_error(e: &CallError, span: Span) -> RuntimeError {
    let kind = match e.kind {
        CallErrorKind::NotStarted => ErrorKind::NotStarted,
        CallErrorKind::Planned => ErrorKind::Planned,
        CallErrorKind::OutOfMemory => ErrorKind::OutOfMemory,
        _ => ErrorKind::External,
    };
    RuntimeError::at(kind, e.to_string(), span)
}
