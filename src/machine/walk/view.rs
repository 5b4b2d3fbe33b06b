//! Drawing a machine state for the REPL's `:stack` (LANGUAGE.md 10): the loop's
//! control, the frames from the top down, and every record they reach with its slots
//! (`#n name : Type = word`) and where its context continues (its end pointer, the
//! parent record). Words are shown read back as terms, cut to a readable length.

use super::Sight;
use super::readback::Reader;
use crate::core::pretty;
use crate::machine::frame::{Control, Frame};
use crate::machine::host::HeldRef;
use crate::machine::value::{NIL, Ref, Val};
use std::collections::HashMap;
use std::fmt::Write;

/// The longest term shown on one line.
const MAX_TERM: usize = 100;

fn cut(mut s: String) -> String {
    if s.chars().count() > MAX_TERM {
        s = s.chars().take(MAX_TERM).collect::<String>() + " ...";
    }
    s
}

impl<'a, 'p> Sight<'a, 'p> {
    /// The current (paused) state of the running fiber, as text.
    pub fn draw_state(&self) -> String {
        let mut out = String::new();
        let mut names: HashMap<Ref, usize> = HashMap::new();
        let mut order: Vec<Ref> = Vec::new();
        let mut name_of = |r: Ref, order: &mut Vec<Ref>| -> String {
            if r == NIL {
                return "top".into();
            }
            let n = names.len();
            let k = *names.entry(r).or_insert_with(|| {
                order.push(r);
                n
            });
            format!("R{k}")
        };
        let term = |m: &Self, v: Val| -> String {
            let t = Reader::with_budget(*m, 200).word(v, 0);
            cut(pretty::term_to_string(m.prog, &[], &t))
        };
        let code = |m: &Self, c: u32, env: Ref| -> String {
            let t = Reader::with_budget(*m, 200).code(c, env, 0);
            cut(pretty::term_to_string(m.prog, &[], &t))
        };
        let _ = writeln!(out, "control:");
        match self.run.paused {
            Some(Control::Eval(c, env)) => {
                let _ = writeln!(
                    out,
                    "  run {}   in {}",
                    code(self, c, env),
                    name_of(env, &mut order)
                );
            }
            Some(Control::Force(t)) => {
                let _ = writeln!(out, "  need {}", term(self, Val::Thunk(t)));
            }
            Some(Control::Ret(v)) => {
                let _ = writeln!(out, "  return {}", term(self, v));
            }
            Some(Control::Park) | None => {
                let _ = writeln!(out, "  (finished)");
            }
        }
        let _ = writeln!(out, "frames (top first):");
        if self.stacks.frames.is_empty() {
            let _ = writeln!(out, "  (none)");
        }
        for f in self.stacks.frames.iter().rev() {
            let line = match *f {
                Frame::Update(t) => format!("update thunk {t}"),
                Frame::Arg(v, implicit) => {
                    format!(
                        "apply to {}{}",
                        if implicit { "implicit " } else { "" },
                        term(self, v)
                    )
                }
                Frame::Case { m, env } => {
                    let span = self.code.matches[m as usize].span;
                    format!(
                        "match (at {}..{})   in {}",
                        span.start,
                        span.end,
                        name_of(env, &mut order)
                    )
                }
                Frame::BinL { prim, b, env, .. } => {
                    format!(
                        "{} _ {}   in {}",
                        prim.name(),
                        code(self, b, env),
                        name_of(env, &mut order)
                    )
                }
                Frame::BinLv { prim, b, .. } => format!("{} _ {}", prim.name(), term(self, b)),
                Frame::BinR { prim, a, .. } => format!("{} {} _", prim.name(), term(self, a)),
                Frame::CallArgs {
                    code: c, env, next, ..
                } => format!(
                    "call {} (strict argument {})   in {}",
                    code(self, c, env),
                    next,
                    name_of(env, &mut order)
                ),
                Frame::Strict { op, n, done, .. } => {
                    format!("{op:?}: {done} of {n} arguments evaluated")
                }
                Frame::LetStrict { env, .. } => {
                    format!("strict let   in {}", name_of(env, &mut order))
                }
                Frame::SeqB { b, env } => format!("then {}", code(self, b, env)),
                Frame::ConcatL { b, .. } => format!("_ ++ {}", term(self, b)),
                Frame::ConcatR { a } => format!("{} ++ _", term(self, a)),
                Frame::Deep { root, .. } => format!("normal form of {}", term(self, root)),
                Frame::Eq { negate, .. } => (if negate { "!=" } else { "==" }).to_string(),
                Frame::EqLeft(v) => format!("_ == {}", term(self, v)),
                Frame::EqRight(v) => format!("{} == _", term(self, v)),
                Frame::Try => "try _".into(),
                Frame::After(v) => format!("after _ {}", term(self, v)),
                Frame::Stream => "print".into(),
                Frame::Declare { writing, files } => {
                    format!(
                        "{} {} _",
                        if writing { "writing" } else { "reading" },
                        term(self, files)
                    )
                }
            };
            let _ = writeln!(out, "  {line}");
        }
        // Records reached from the frames and the control, outermost last.
        let mut roots = Vec::new();
        self.running_refs(self.run.paused.as_ref(), &mut |h| {
            if let HeldRef::Rec(r) = h {
                roots.push(r);
            }
        });
        for r in roots {
            name_of(r, &mut order);
        }
        let _ = writeln!(
            out,
            "records (contexts; each slot `#n name : Type = value`):"
        );
        let mut i = 0;
        while i < order.len() {
            let r = order[i];
            i += 1;
            let o = self.heap.recs.get(r);
            let parent = o.parent;
            let pname = name_of(parent, &mut order);
            let _ = writeln!(out, "  R{} (continues in {pname}):", i - 1);
            for s in 0..o.slots.len() {
                let b = self.code.slot_binder(o.layout, s);
                let (name, ty) = match b {
                    Some(b) => (
                        b.name.to_string(),
                        cut(pretty::type_to_string(
                            self.prog,
                            &self.code.names_outside_slot(o.layout, s),
                            &b.ty,
                        )),
                    ),
                    None => ("self".into(), "_".into()),
                };
                let w = self.heap.slot(r, s);
                let shown = if w == Val::Erased {
                    "(erased)".to_string()
                } else {
                    term(self, w)
                };
                let _ = writeln!(out, "    #{s} {name} : {ty} = {shown}");
            }
        }
        out
    }
}
