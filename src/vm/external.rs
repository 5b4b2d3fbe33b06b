//! External calls from the machine's side (LANGUAGE.md section 7): arguments in
//! normal form become a request to the host, the result becomes a value. A call with
//! the same arguments at the same place runs once per run; its result (or error) is
//! shared by every later asker.

use super::Machine;
use super::code::Site;
use super::error::{Result, RuntimeError};
use super::frame::Ctl;
use super::host::{CallRequest, Effect};
use super::value::Val;
use crate::core::term::ExternId;
use crate::external::host::{self, Call};

impl<'p> Machine<'p> {
    /// An external with its arguments in normal form (owned).
    pub(crate) fn extern_run(&mut self, e: ExternId, site: Site, args: Vec<Val>) -> Result<Ctl> {
        let decl = self.prog.external(e);
        let span = if site == Site::UNKNOWN {
            decl.span
        } else {
            self.code_span(site.0)
        };
        if !self.externals_allowed {
            for a in args {
                self.heap.release(a);
            }
            return Err(RuntimeError::at(
                format!(
                    "the external `{}` is not called during type checking",
                    decl.name
                ),
                span,
            ));
        }
        let text = |m: &Self, v: Val| -> Result<String> {
            match v {
                Val::Str(r) => Ok(m.heap.text(r).to_string()),
                other => Err(RuntimeError::at(
                    format!("expected a String, got {}", other.kind()),
                    span,
                )),
            }
        };
        let call = match &*decl.name {
            "run" => {
                let prog = text(self, args[0]);
                let list = self.strings_of(args[1]);
                match (prog, list) {
                    (Ok(p), Some(l)) => Ok(Call::Run(p, l)),
                    (Err(e), _) => Err(e),
                    (_, None) => Err(RuntimeError::at("run: expected a list of strings", span)),
                }
            }
            "shell" => text(self, args[0]).map(Call::Shell),
            "readFile" => text(self, args[0]).map(Call::ReadFile),
            "writeFile" => {
                text(self, args[0]).and_then(|p| Ok(Call::WriteFile(p, text(self, args[1])?)))
            }
            "delay" => match args[0] {
                Val::Int(n) => Ok(Call::Delay(n.max(0) as u64)),
                _ => Err(RuntimeError::at("delay: expected an Int", span)),
            },
            other => Err(RuntimeError::at(
                format!("unknown external `{other}`"),
                span,
            )),
        };
        let call = match call {
            Ok(c) => c,
            Err(e) => {
                for a in args {
                    self.heap.release(a);
                }
                return Err(e);
            }
        };
        // `delay`'s value is its second argument, already evaluated.
        let passthrough = matches!(call, Call::Delay(_)).then(|| args[1]);
        for (i, a) in args.iter().enumerate() {
            if !(passthrough.is_some() && i == 1) {
                self.heap.release(*a);
            }
        }
        let effect = match &call {
            Call::Delay(_) => Effect::Pure,
            Call::ReadFile(_) => Effect::Reads,
            _ => Effect::Effect,
        };
        // A call made before at this place with these arguments is not made again.
        let shared = site != Site::UNKNOWN && passthrough.is_none();
        if shared && let Some(r) = self.calls.get(&(site, call.clone())) {
            let r = r.clone();
            return self.call_result(r, passthrough);
        }
        self.externals_dispatched += 1;
        let req = CallRequest {
            call,
            site,
            effect,
            passthrough,
            span,
        };
        if self.host.is_some() {
            return self.with_host(|h, m| h.call(m, req));
        }
        if let Some(o) = &mut self.out {
            o.flush();
        }
        let r = host::perform(&req.call, span);
        if shared {
            self.calls.insert((site, req.call), r.clone());
        }
        self.call_result(r, passthrough)
    }

    /// What a finished call gives the fiber that made it: its text, or the word it
    /// passes through (`delay`), or its error.
    pub(crate) fn call_result(
        &mut self,
        r: std::result::Result<Option<String>, RuntimeError>,
        passthrough: Option<Val>,
    ) -> Result<Ctl> {
        match (r, passthrough) {
            (Ok(_), Some(v)) => Ok(Ctl::Ret(v)),
            (Ok(text), None) => Ok(Ctl::Ret(self.heap.string(text.unwrap_or_default().into()))),
            (Err(e), p) => {
                if let Some(v) = p {
                    self.heap.release(v);
                }
                Err(e)
            }
        }
    }
}
