//! Matches: a scrutinee picks an arm, whose fields are bound in one record; a neutral
//! scrutinee (type-level evaluation) makes the match stuck. And the places errors are
//! reported at.

use super::Machine;
use super::code::{ArmTest, CodeId, Site};
use super::error::{ErrorKind, Result, RuntimeError};
use super::frame::{Control, Frame, StrictOp};
use super::heap::ThunkState;
use super::value::{Ref, Val};
use crate::syntax::span::Span;

impl<'p> Machine<'p> {
    /// A `match` whose scrutinee is not at hand: the scrutinee is evaluated (in `env`,
    /// owned) under a `Case` frame, which picks the arm when it returns.
    pub(crate) fn case_later(&mut self, m: u32, env: Ref) -> Control {
        let scrut = self.code.matches[m as usize].scrut;
        self.heap.retain_rec(env);
        self.push(Frame::Case { m, env });
        Control::Eval(scrut, env)
    }

    /// A `match` receives its scrutinee (owned) in its record (owned).
    pub(crate) fn case(&mut self, v: Val, m: u32, env: Ref) -> Result<Control> {
        let mc = &self.code.matches[m as usize];
        match v {
            Val::Atom(k) => {
                for arm in &mc.arms {
                    if arm.test == ArmTest::Con(k) {
                        return Ok(Control::Eval(arm.body, env));
                    }
                }
            }
            Val::Con(r) => {
                let k = self.heap.cons.get(r).con;
                for arm in &mc.arms {
                    if arm.test == ArmTest::Con(k) {
                        let body = arm.body;
                        let Some(layout) = arm.layout else {
                            self.heap.release(v);
                            return Ok(Control::Eval(body, env));
                        };
                        let n = self.heap.cons.get(r).fields.len();
                        let rec = self.heap.record(env, layout, n);
                        for i in 0..n {
                            let w = self.heap.con_field(r, i);
                            self.heap.retain(w);
                            self.heap.set_slot(rec, i, w);
                        }
                        self.heap.release(v);
                        return Ok(Control::Eval(body, rec));
                    }
                }
            }
            Val::Int(n) => {
                for arm in &mc.arms {
                    if arm.test == ArmTest::Int(n) {
                        return Ok(Control::Eval(arm.body, env));
                    }
                }
            }
            Val::Char(c) => {
                for arm in &mc.arms {
                    if arm.test == ArmTest::Char(c) {
                        return Ok(Control::Eval(arm.body, env));
                    }
                }
            }
            Val::Str(r) => {
                let text = self.heap.text(r).clone();
                for arm in &mc.arms {
                    if let ArmTest::Str(s) = &arm.test
                        && **s == *text
                    {
                        let body = arm.body;
                        self.heap.release(v);
                        return Ok(Control::Eval(body, env));
                    }
                }
            }
            _ if self.options.neutral_matches && self.is_neutral(v) => {
                return Ok(self.stuck(v, m, env));
            }
            _ => {}
        }
        let mc = &self.code.matches[m as usize];
        match mc.default {
            Some((layout, body)) => {
                let rec = self.heap.record(env, layout, 1);
                self.heap.set_slot(rec, 0, v);
                Ok(Control::Eval(body, rec))
            }
            None => {
                let span = mc.span;
                let shown = self.show_scrutinee(v);
                self.heap.release(v);
                self.heap.release_rec(env);
                Err(RuntimeError::at(
                    ErrorKind::MatchFailure,
                    format!("no arm of this match covers `{shown}`"),
                    span,
                ))
            }
        }
    }

    /// A scrutinee no arm covers, for the error: read back as far as it is evaluated
    /// (parts not yet evaluated show as what computes them), cut to a readable length.
    fn show_scrutinee(&self, v: Val) -> String {
        /// The longest value shown, in bytes (then `…`).
        const SHOWN: usize = 80;
        let t = super::walk::readback::Reader::with_budget(self.sight(), 500).word(v, 0);
        crate::core::pretty::term_to_string_cut(self.prog, &[], &t, SHOWN)
    }

    /// A match whose scrutinee is neutral: a stuck value (type-level evaluation).
    pub(crate) fn stuck(&mut self, scrut: Val, m: u32, env: Ref) -> Control {
        let code = self.match_node(m);
        Control::Ret(Val::Stuck(self.heap.stucks.alloc(super::heap::StuckObj {
            rc: 1,
            code,
            env,
            scrut,
        })))
    }

    /// The code node of a match (for stuck matches and readback).
    pub(crate) fn match_node(&self, m: u32) -> CodeId {
        self.code.matches[m as usize].node
    }

    /// The best source place of a code node.
    pub(crate) fn code_span(&self, c: CodeId) -> Span {
        self.code.meta[c as usize].span
    }

    /// Gives an error without a place the place of the innermost frame that has one.
    /// An error inside the prelude (or without a place) is reported at the innermost
    /// place in the user's program that led to it (LANGUAGE.md 7.4: never a line of
    /// the prelude), when the machine knows which files are the user's.
    pub(crate) fn place_error(&self, mut e: RuntimeError) -> RuntimeError {
        let user = |s: &Span| self.options.user_file.as_ref().is_none_or(|f| f(s.file));
        if e.span.is_none_or(|s| !user(&s)) {
            let found = self
                .stacks
                .frames
                .iter()
                .rev()
                .filter_map(|f| self.frame_span(f))
                .find(|s| user(s));
            if let Some(s) = found {
                e.span = Some(s);
            } else if e.span.is_none() {
                e.span = self
                    .stacks
                    .frames
                    .iter()
                    .rev()
                    .find_map(|f| self.frame_span(f));
            }
        }
        e
    }

    /// Where a frame's computation is written, if it says.
    pub(crate) fn frame_span(&self, f: &Frame) -> Option<Span> {
        match f {
            Frame::BinL { span, .. }
            | Frame::BinLv { span, .. }
            | Frame::BinR { span, .. }
            | Frame::ConcatL { span, .. } => Some(*span),
            Frame::Case { m, .. } => Some(self.code.matches[*m as usize].span),
            Frame::CallArgs { code, .. } => Some(self.code_span(*code)),
            Frame::Strict {
                op: StrictOp::Prim(_, span),
                ..
            } => Some(*span),
            Frame::Strict {
                op: StrictOp::Extern(_, site),
                ..
            } if *site != Site::UNKNOWN => Some(self.code_span(site.0)),
            Frame::Update(t) => match self.heap.thunks.get(*t).state {
                ThunkState::Blackholed { code, .. } => Some(self.code_span(code)),
                _ => None,
            },
            _ => None,
        }
    }
}
