//! External calls from the machine's side (LANGUAGE.md section 7): the arguments, in
//! normal form, become [`Plain`] data, the registry entry
//! ([`crate::external::registry`]) makes the request, and the reply becomes a value
//! (or the call is one of its own arguments: `delay`'s value). A call with the same
//! arguments at the same place runs once per run; its result (or error) is shared by
//! every later asker.

use super::Machine;
use super::code::Site;
use super::error::{ErrorKind, Result, RuntimeError};
use super::frame::Control;
use super::host::CallRequest;
use super::value::Val;
use crate::core::term::{ConId, DataId, ExternId};
use crate::external::calls::Answer;
use crate::external::exec::{Priority, Ticket};
use crate::external::plain::Plain;
use crate::external::registry::{self, External, Outcome, Param};
use crate::external::request::{CallError, Reply};
use crate::syntax::span::Span;
use std::borrow::Cow;

/// The identity of a call for sharing: its place, its external and its arguments.
pub type CallKey = (Site, &'static str, Vec<Plain>);

/// The error of a call that `--plan` does not make: the run stops there.
pub const PLANNED: &str = "not run: --plan";

/// The error of an effect call that does not start because an earlier failure
/// decided the run (LANGUAGE.md 11); the run reports that failure instead.
pub const NOT_STARTED: &str = "not started: an earlier call failed";

/// A finished call's answer, kept for sharing.
pub type CallAnswer = std::result::Result<Reply, CallError>;

impl<'p> Machine<'p> {
    /// An external with its arguments in normal form (owned).
    pub(crate) fn extern_run(
        &mut self,
        e: ExternId,
        site: Site,
        args: Vec<Val>,
    ) -> Result<Control> {
        let decl = self.prog.external(e);
        let span = if site == Site::UNKNOWN {
            decl.span
        } else {
            self.code_span(site.0)
        };
        let release_all = |m: &mut Self, args: &[Val]| {
            for &a in args {
                m.heap.release(a);
            }
        };
        if !self.externals_allowed {
            release_all(self, &args);
            return Err(RuntimeError::at(
                ErrorKind::External,
                format!(
                    "the external `{}` is not called during type checking",
                    decl.name
                ),
                span,
            ));
        }
        let Some(ext) = registry::lookup(&decl.name) else {
            release_all(self, &args);
            return Err(RuntimeError::at(
                ErrorKind::External,
                format!("unknown external `{}`", decl.name),
                span,
            ));
        };
        let mut data = Vec::new();
        for (p, &a) in ext.params.iter().zip(&args) {
            if *p == Param::Data {
                data.push(self.plain_of(a));
            }
        }
        // The argument a call may evaluate to (`delay`'s value) stays; the rest go.
        let passthrough = match ext.result {
            registry::Output::Argument(i) => args.get(i).copied(),
            registry::Output::Data(_) => None,
        };
        for (i, &a) in args.iter().enumerate() {
            if !matches!(ext.result, registry::Output::Argument(k) if k == i) {
                self.heap.release(a);
            }
        }
        // Bad arguments (a NUL byte, a malformed pattern) fail here, at the call.
        let request = match ext.make_request(&data) {
            Ok(r) => r,
            Err(err) => {
                if let Some(v) = passthrough {
                    self.heap.release(v);
                }
                return Err(call_error(&err, span));
            }
        };
        let key = (site != Site::UNKNOWN && passthrough.is_none())
            .then(|| (site, ext.name, data.clone()));
        if let Some(k) = &key
            && let Some(r) = self.calls.get(k)
        {
            return match r.clone() {
                Ok(v) => {
                    self.heap.retain(v);
                    Ok(Control::Ret(v))
                }
                Err(e) => Err(e),
            };
        }
        self.externals_dispatched += 1;
        let place = self.place_of(site, span);
        let (reading, writing) = self.declared_files();
        let req = CallRequest {
            call: crate::external::calls::Call {
                external: ext,
                args: data,
                place,
                reading,
                writing,
            },
            request,
            key,
            passthrough,
            span,
        };
        if self.host.is_some() {
            return self.with_host(|h, m| h.call(m, req));
        }
        if let Some(o) = &mut self.out {
            o.flush();
        }
        // One call at a time, through the call layer (store, progress, trace).
        let ticket = self.ticket();
        self.calls()
            .submit_request(Ticket(ticket), req.call, req.request, Priority::Certain);
        let answer = loop {
            let done = self.calls().wait(None);
            if let Some((_, a)) = done.into_iter().find(|(t, _)| t.0 == ticket) {
                break a;
            }
        };
        let answer = match answer {
            Answer::Done(a) => a,
            Answer::Planned => {
                if let Some(v) = req.passthrough {
                    self.heap.release(v);
                }
                return Err(RuntimeError::at(ErrorKind::Planned, PLANNED, span));
            }
        };
        let r = self.call_value(ext, answer, req.passthrough, span);
        if let Some(k) = req.key {
            self.remember_call(k, &r);
        }
        r.map(Control::Ret)
    }

    /// Keeps a finished call's value (a counted reference of the table's own) or
    /// error, for every later asker of the same call.
    pub(crate) fn remember_call(&mut self, k: CallKey, r: &Result<Val>) {
        if let Ok(v) = r {
            self.heap.retain(*v);
        }
        if let Some(Ok(old)) = self.calls.insert(k, r.clone()) {
            self.heap.release(old);
        }
    }

    /// The files declared with `reading` and `writing` around the running
    /// computation (its `Declare` frames, innermost last).
    fn declared_files(&self) -> (Vec<String>, Vec<String>) {
        let (mut reading, mut writing) = (Vec::new(), Vec::new());
        for f in &self.frames {
            if let super::frame::Frame::Declare { writing: w, files } = *f
                && let Some(names) = self.strings_of(files)
            {
                if w {
                    writing.extend(names);
                } else {
                    reading.extend(names);
                }
            }
        }
        (reading, writing)
    }

    /// What a finished call gives the fiber that made it: its value (a new
    /// reference), or the word it passes through (owned), or its error at `span`.
    pub(crate) fn call_value(
        &mut self,
        ext: &'static External,
        answer: CallAnswer,
        passthrough: Option<Val>,
        span: Span,
    ) -> Result<Val> {
        let outcome = answer.and_then(|reply| ext.finish(reply));
        match outcome {
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
                    self.heap.release(v);
                }
                Ok(self.value_of(&p))
            }
            Err(e) => {
                if let Some(v) = passthrough {
                    self.heap.release(v);
                }
                Err(call_error(&e, span))
            }
        }
    }

    /// A value in normal form (borrowed) as plain data.
    pub(crate) fn plain_of(&self, v: Val) -> Plain {
        let bi = self.prog.builtins;
        match self.heap.forced(v) {
            Val::Int(n) => Plain::Int(n),
            Val::Float(x) => Plain::Float(x),
            Val::Str(r) => Plain::Str(self.heap.text(r).to_string()),
            Val::Atom(c) if c == bi.nil => Plain::List(Vec::new()),
            Val::Atom(c) => Plain::Con(Cow::Owned(self.prog.con(c).name.to_string()), Vec::new()),
            Val::Con(r) if self.heap.cons.get(r).con == bi.cons => {
                let mut items = Vec::new();
                let mut cur = Val::Con(r);
                loop {
                    match self.heap.forced(cur) {
                        Val::Con(c) if self.heap.cons.get(c).con == bi.cons => {
                            let f = self.heap.fields(c);
                            items.push(self.plain_of(f[0]));
                            cur = f[1];
                        }
                        _ => break,
                    }
                }
                Plain::List(items)
            }
            Val::Con(r) => {
                let o = self.heap.cons.get(r);
                let name = self.prog.con(o.con).name.to_string();
                let fields = o
                    .fields
                    .get(&self.heap.words)
                    .iter()
                    .map(|&f| self.plain_of(f))
                    .collect();
                Plain::Con(Cow::Owned(name), fields)
            }
            other => Plain::Con(Cow::Owned(format!("<{}>", other.kind())), Vec::new()),
        }
    }

    /// Plain data as a value (a new reference); constructors are found by name.
    pub(crate) fn value_of(&mut self, p: &Plain) -> Val {
        let bi = self.prog.builtins;
        match p {
            Plain::Int(n) => Val::Int(*n),
            Plain::Float(x) => Val::Float(*x),
            Plain::Str(s) => self.heap.string(s.as_str().into()),
            Plain::List(items) => {
                let mut acc = Val::Atom(bi.nil);
                for x in items.iter().rev() {
                    let h = self.value_of(x);
                    acc = self.heap.con(bi.cons, &[h, acc]);
                }
                acc
            }
            Plain::Con(name, fields) => {
                let Some(c) = self.con_named(name) else {
                    return Val::Erased;
                };
                if fields.is_empty() {
                    return Val::Atom(c);
                }
                let vals: Vec<Val> = fields.iter().map(|f| self.value_of(f)).collect();
                self.heap.con(c, &vals)
            }
        }
    }

    /// The constructor of the prelude (or program) with this name.
    fn con_named(&self, name: &str) -> Option<ConId> {
        for (d, data) in self.prog.datas.iter().enumerate() {
            for (i, c) in data.ctors.iter().enumerate() {
                if &*c.name == name {
                    return Some(ConId {
                        data: DataId(d as u32),
                        index: i as u32,
                    });
                }
            }
        }
        None
    }
}

/// A failed call as a runtime error at its place: the message, then the end of the
/// tool's standard error, one line each.
pub fn call_error(e: &CallError, span: Span) -> RuntimeError {
    let kind = match e.kind {
        crate::external::request::CallErrorKind::NotStarted => ErrorKind::NotStarted,
        _ => ErrorKind::External,
    };
    RuntimeError::at(kind, e.to_string(), span)
}
