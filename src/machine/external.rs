//! Externals, sequentially (LANGUAGE.md section 7): one call at a time, when its value
//! is needed, on the interpreter's thread. The opportunistic scheduler (a later issue)
//! replaces the "perform now" step with a dispatch to a worker pool; the evaluation of
//! the arguments (as frames, like a primitive's) stays.
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

/// The last `n` characters of a text (the end of a process's standard error).
fn tail(s: &str, n: usize) -> &str {
    let count = s.chars().count();
    if count <= n {
        s
    } else {
        let skip = s.char_indices().nth(count - n).map(|(i, _)| i).unwrap_or(0);
        &s[skip..]
    }
}

fn process_output(
    what: &str,
    out: std::io::Result<std::process::Output>,
    span: Span,
) -> Result<Value<'static>> {
    match out {
        Err(e) => Err(RuntimeError::at(format!("{what}: cannot start: {e}"), span)),
        Ok(o) if !o.status.success() => {
            let err = String::from_utf8_lossy(&o.stderr);
            Err(RuntimeError::at(
                format!(
                    "{what}: exited with {}: {}",
                    o.status,
                    tail(err.trim_end(), 400)
                ),
                span,
            ))
        }
        Ok(o) => Ok(Value::Str(Rc::from(
            String::from_utf8_lossy(&o.stdout).as_ref(),
        ))),
    }
}

impl<'p> Machine<'p> {
    /// An external head: takes its explicit arguments (a partial application when
    /// there are not enough) and starts on the ones the call needs.
    pub(crate) fn extern_start(&mut self, e: ExternId) -> Result<Ctl<'p>> {
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
            return Ok(Ctl::Ret(Value::Partial(PartialHead::Extern(e), b)));
        }
        for a in taken.into_iter().rev() {
            self.pargs.push(a);
        }
        self.frames.push(Frame::Ext {
            op,
            ext: e,
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
            span,
            strict,
            got,
        }) = self.frames.last()
        else {
            unreachable!("ext_next() without an Ext frame")
        };
        if got < strict {
            return Ok(match self.pargs.pop().expect("external argument") {
                Arg::Val(v) => Ctl::Ret(v),
                Arg::Cell(c) => Ctl::Enter(c),
                Arg::Code(t, env) => Ctl::Eval(t, env),
                Arg::Stack(s) => Ctl::Stack(s),
            });
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
        let r = match op {
            ExtOp::Run => {
                // The argument list is needed next: walked by the `join` frames with a
                // separator before every element, then split back here.
                let prog = text(&vals[0])?;
                let list = self.pargs.pop().expect("argument list");
                self.frames.push(Frame::ExtRunArgs {
                    ext,
                    prog: prog.into(),
                    span,
                });
                self.frames.push(Frame::JoinList {
                    sep: Rc::from("\0"),
                    acc: String::new(),
                    first: false,
                });
                return Ok(match list {
                    Arg::Val(v) => Ctl::Ret(v),
                    Arg::Cell(c) => Ctl::Enter(c),
                    Arg::Code(t, env) => Ctl::Eval(t, env),
                    Arg::Stack(s) => Ctl::Stack(s),
                });
            }
            ExtOp::Shell => {
                self.count_external();
                let cmd = text(&vals[0])?;
                process_output(
                    "shell",
                    std::process::Command::new("sh")
                        .arg("-c")
                        .arg(&cmd)
                        .output(),
                    span,
                )?
            }
            ExtOp::ReadFile => {
                self.count_external();
                let path = text(&vals[0])?;
                match std::fs::read_to_string(&path) {
                    Ok(s) => Value::Str(s.into()),
                    Err(e) => return Err(RuntimeError::at(format!("readFile {path}: {e}"), span)),
                }
            }
            ExtOp::WriteFile => {
                self.count_external();
                let path = text(&vals[0])?;
                let contents = text(&vals[1])?;
                if let Err(e) = std::fs::write(&path, contents) {
                    return Err(RuntimeError::at(format!("writeFile {path}: {e}"), span));
                }
                Value::Str(path.into())
            }
            ExtOp::Delay => {
                self.count_external();
                let ms = match vals[0] {
                    Value::Int(n) => n.max(0) as u64,
                    _ => return Err(RuntimeError::at("delay: expected an Int", span)),
                };
                std::thread::sleep(std::time::Duration::from_millis(ms));
                return Ok(match self.pargs.pop().expect("delayed value") {
                    Arg::Val(v) => Ctl::Ret(v),
                    Arg::Cell(c) => Ctl::Enter(c),
                    Arg::Code(t, env) => Ctl::Eval(t, env),
                    Arg::Stack(s) => Ctl::Stack(s),
                });
            }
        };
        for v in vals {
            self.heap.release_value(v);
        }
        Ok(Ctl::Ret(match r {
            Value::Str(s) => Value::Str(s),
            _ => unreachable!("externals return strings"),
        }))
    }

    /// `run`: the argument list has been joined; run the program.
    pub(crate) fn ext_run(
        &mut self,
        prog: Rc<str>,
        span: Span,
        joined: Value<'p>,
    ) -> Result<Ctl<'p>> {
        let Value::Str(joined) = joined else {
            return Err(RuntimeError::at("run: expected a list of strings", span));
        };
        let args: Vec<&str> = joined.split('\0').skip(1).collect();
        self.count_external();
        let out = std::process::Command::new(&*prog).args(&args).output();
        let v = process_output(&format!("run {prog}"), out, span)?;
        Ok(Ctl::Ret(match v {
            Value::Str(s) => Value::Str(s),
            _ => unreachable!("externals return strings"),
        }))
    }

    fn count_external(&mut self) {
        self.externals_dispatched += 1;
    }
}
