//! Externals (LANGUAGE.md section 7): their arguments are evaluated as frames, like a
//! primitive's, then the call ([`Call`]) is performed on the interpreter's thread
//! (`--sequential`, and the REPL) or handed to the scheduler's worker pool
//! ([`crate::machine::oldsched`]), which parks the fiber until the result comes back.
//!
//! `run prog args` and `shell cmd` return the standard output of a process (a non-zero
//! exit is a runtime error that shows the end of its standard error); `readFile`,
//! `writeFile` (returns the path) and `delay ms x` (waits, then is `x`).

use super::Machine;
use super::error::{Result, RuntimeError};
use super::frame::{Arg, Frame};
use super::need::Ctl;
use super::value::{PartialHead, Value};
use crate::core::term::ExternId;
use crate::external::host::{self, Call};
use crate::syntax::span::Span;
use std::rc::Rc;

/// The host operations behind the built-in externals.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExtOp {
    /// `run : String -> List String -> String`.
    Run,
    /// `shell : String -> String`.
    Shell,
    /// `readFile : String -> String`.
    ReadFile,
    /// `writeFile : String -> String -> String`.
    WriteFile,
    /// `delay : {a : Type} -> Int -> a -> a`.
    Delay,
}

impl ExtOp {
    fn from_name(name: &str) -> Option<ExtOp> {
        Some(match name {
            "run" => ExtOp::Run,
            "shell" => ExtOp::Shell,
            "readFile" => ExtOp::ReadFile,
            "writeFile" => ExtOp::WriteFile,
            "delay" => ExtOp::Delay,
            _ => return None,
        })
    }

    /// Explicit arguments, and how many are needed before the call (`run`'s list is
    /// needed separately, `delay`'s value is not needed at all).
    pub(crate) fn arity(self) -> (usize, usize) {
        match self {
            ExtOp::Run => (2, 1),
            ExtOp::Shell | ExtOp::ReadFile => (1, 1),
            ExtOp::WriteFile => (2, 2),
            ExtOp::Delay => (2, 1),
        }
    }
}

/// Where an external is applied in the program: the address of the `Term::Extern`
/// node the machine reached (code does not move during a run), or
/// [`CallSite::UNKNOWN`]. Calls are shared by place and arguments.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallSite(usize);

impl CallSite {
    /// A place not known (a head reached through a wound stack): never shared.
    pub const UNKNOWN: CallSite = CallSite(0);

    /// The place of an external written at `t`.
    pub fn of(t: &crate::core::term::RcTerm) -> CallSite {
        CallSite(&**t as *const crate::core::term::Term as usize)
    }
}

/// A call made in this run, by place and arguments.
#[derive(Debug)]
pub enum CallMemo {
    /// Finished: its result, shared by every later asker.
    Done(std::result::Result<Option<String>, RuntimeError>),
    /// Dispatched and running: the fibers waiting for it besides the one that made it.
    Running(Vec<u32>),
}

impl<'p> Machine<'p> {
    /// An external head: takes its explicit arguments (a partial application when
    /// there are not enough) and starts on the ones the call needs.
    pub(crate) fn extern_start(&mut self, e: ExternId, site: CallSite) -> Result<Ctl<'p>> {
        let decl = self.prog.external(e);
        let span = decl.span;
        if !self.externals_allowed {
            return Err(RuntimeError::at(
                format!(
                    "the external `{}` is not called during type checking",
                    decl.name
                ),
                span,
            ));
        }
        let Some(op) = ExtOp::from_name(&decl.name) else {
            return Err(RuntimeError::at(
                format!("unknown external `{}`", decl.name),
                span,
            ));
        };
        let (arity, strict) = op.arity();
        let mut taken: Vec<Arg<'p>> = Vec::with_capacity(arity);
        while taken.len() < arity {
            let Some(a) = self.next_explicit_arg() else {
                break;
            };
            taken.push(a);
        }
        if taken.len() < arity {
            let cells: Vec<u32> = taken.into_iter().map(|a| self.arg_entry(a)).collect();
            let b = self.heap.new_block(&cells);
            return Ok(Ctl::Ret(Value::Partial(PartialHead::Extern(e, site), b)));
        }
        for a in taken.into_iter().rev() {
            self.pargs.push(a);
        }
        self.frames.push(Frame::Ext {
            op,
            ext: e,
            site,
            span,
            strict: strict as u8,
            got: 0,
        });
        self.ext_next()
    }

    /// Evaluates the next needed argument of the external on top, or performs it.
    pub(crate) fn ext_next(&mut self) -> Result<Ctl<'p>> {
        let Some(&Frame::Ext {
            op,
            ext,
            site,
            span,
            strict,
            got,
        }) = self.frames.last()
        else {
            unreachable!("ext_next() without an Ext frame")
        };
        if got < strict {
            return Ok(self.pargs.pop().expect("external argument").into_ctl());
        }
        self.frames.pop();
        let n = self.pvals.len() - strict as usize;
        let vals: Vec<Value<'p>> = self.pvals.drain(n..).collect();
        let text = |v: &Value<'p>| match v {
            Value::Str(s) => Ok(s.to_string()),
            other => Err(RuntimeError::at(
                format!("expected a String, got {}", other.kind()),
                span,
            )),
        };
        let call = match op {
            ExtOp::Run => {
                // The argument list is needed next: walked by the `join` frames with a
                // separator before every element, then split back here.
                let prog = text(&vals[0])?;
                let list = self.pargs.pop().expect("argument list");
                self.frames.push(Frame::ExtRunArgs {
                    ext,
                    site,
                    prog: prog.into(),
                    span,
                });
                self.frames.push(Frame::JoinList {
                    sep: Rc::from("\0"),
                    acc: String::new(),
                    first: false,
                });
                return Ok(list.into_ctl());
            }
            ExtOp::Shell => Call::Shell(text(&vals[0])?),
            ExtOp::ReadFile => Call::ReadFile(text(&vals[0])?),
            ExtOp::WriteFile => Call::WriteFile(text(&vals[0])?, text(&vals[1])?),
            ExtOp::Delay => match vals[0] {
                Value::Int(n) => Call::Delay(n.max(0) as u64),
                _ => return Err(RuntimeError::at("delay: expected an Int", span)),
            },
        };
        for v in vals {
            self.heap.release_value(v);
        }
        self.call_external(call, span, site)
    }

    /// Performs a call now, or (with a scheduler) dispatches it and parks the fiber.
    /// A call made before at the same place with the same arguments is not made
    /// again: its result (or error) is shared, and with a scheduler a fiber asking for
    /// a call still running waits for it (LANGUAGE.md section 7).
    fn call_external(&mut self, call: Call, span: Span, site: CallSite) -> Result<Ctl<'p>> {
        // `delay`'s value is its second argument, not part of the call: not shared.
        let key = (site != CallSite::UNKNOWN && !matches!(call, Call::Delay(_)))
            .then(|| (site, call.clone()));
        if let Some(key) = &key {
            match self.calls.get_mut(key) {
                Some(CallMemo::Done(r)) => {
                    let r = r.clone();
                    return r.map(|x| self.call_done(x));
                }
                Some(CallMemo::Running(waiting)) => {
                    waiting.push(self.fiber);
                    return Ok(self.wait_for_call());
                }
                None => {}
            }
        }
        self.externals_dispatched += 1;
        if self.sched.is_some() {
            if let Some(key) = key {
                self.calls
                    .insert(key.clone(), CallMemo::Running(Vec::new()));
                return Ok(self.dispatch(call, span, Some(key)));
            }
            return Ok(self.dispatch(call, span, None));
        }
        let r = host::perform(&call, span);
        if let Some(key) = key {
            self.calls.insert(key, CallMemo::Done(r.clone()));
        }
        r.map(|x| self.call_done(x))
    }

    /// What a fiber does with a call's result: a text is the value; `delay` goes on
    /// with its second argument.
    pub(crate) fn call_done(&mut self, r: Option<String>) -> Ctl<'p> {
        match r {
            Some(text) => Ctl::Ret(Value::Str(Rc::from(text.as_str()))),
            None => self.pargs.pop().expect("delayed value").into_ctl(),
        }
    }

    /// `run`: the argument list has been joined; run the program.
    pub(crate) fn ext_run(
        &mut self,
        prog: Rc<str>,
        span: Span,
        site: CallSite,
        joined: Value<'p>,
    ) -> Result<Ctl<'p>> {
        let Value::Str(joined) = joined else {
            return Err(RuntimeError::at("run: expected a list of strings", span));
        };
        let args: Vec<String> = joined.split('\0').skip(1).map(String::from).collect();
        self.call_external(Call::Run(prog.to_string(), args), span, site)
    }
}
