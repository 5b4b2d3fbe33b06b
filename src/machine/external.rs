//! External calls from the machine's side (LANGUAGE.md section 7): a call reached
//! with its arguments in normal form goes to the host ([`super::host::Host::call`]) as a
//! [`CallRequest`]; the host's answer comes back as a value. This file also converts
//! between normal forms and [`Plain`] data, the one form executors see.

use super::Machine;
use super::code::Site;
use super::error::{ErrorKind, Result, RuntimeError};
use super::frame::Control;
use super::host::CallRequest;
use super::value::Val;
use crate::core::plain::Plain;
use crate::core::term::{ConId, DataId, ExternId};
use std::borrow::Cow;

impl<'p> Machine<'p> {
    /// An external with its arguments in normal form (owned): the host makes the
    /// call.
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
        let refused = if !self.options.externals_allowed {
            Some(format!(
                "the external `{}` is not called during type checking",
                decl.name
            ))
        } else if self.host.is_none() {
            Some(format!(
                "the external `{}` cannot be called: this evaluation has no call layer",
                decl.name
            ))
        } else {
            None
        };
        if let Some(msg) = refused {
            for a in args {
                self.heap.release(a);
            }
            return Err(RuntimeError::at(ErrorKind::External, msg, span));
        }
        let (reading, writing) = self.declared_files();
        let req = CallRequest {
            external: e,
            site,
            span,
            args,
            reading,
            writing,
        };
        self.with_host(|h, m| h.call(m, req))
    }

    /// The files declared with `reading` and `writing` around the running
    /// computation (its `Declare` frames, innermost last).
    fn declared_files(&self) -> (Vec<String>, Vec<String>) {
        let (mut reading, mut writing) = (Vec::new(), Vec::new());
        for f in &self.stacks.frames {
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

    /// A value in normal form (borrowed) as plain data.
    pub fn plain_of(&self, v: Val) -> Plain {
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
    pub fn value_of(&mut self, p: &Plain) -> Val {
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

    /// The definition of the prelude (or program) with this name.
    pub fn def_named(&self, name: &str) -> Option<crate::core::term::DefId> {
        self.prog
            .defs
            .iter()
            .position(|d| &*d.name == name)
            .map(|i| crate::core::term::DefId(i as u32))
    }

    /// The unevaluated rest of stream `id`: a thunk of the body of `def`
    /// (`prim_streamRest`, one `Int` parameter) with `id` for its parameter (a new
    /// reference).
    pub fn stream_rest(&mut self, def: crate::core::term::DefId, id: i64) -> Val {
        let f = self.fun_of(def);
        let (layout, slots, body) = {
            let fun = &self.code.funs[f as usize];
            (fun.layout, fun.slots, fun.body)
        };
        let rec = self.heap.record(super::value::NIL, layout, slots);
        if slots > 0 {
            self.heap.set_slot(rec, 0, Val::Int(id));
        }
        Val::Thunk(self.heap.thunk(body, rec))
    }

    /// Whether thunk `t` is not evaluated yet and the reference the caller holds is its
    /// only one (nothing else can ever need it).
    pub fn sole_suspended(&self, t: super::value::Ref) -> bool {
        let th = self.heap.thunks.get(t);
        th.rc == 1 && matches!(th.state, super::heap::ThunkState::Suspended { .. })
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
