//! Drawing a wound stack for `:stack` (the stack form of the machine module's
//! documentation, Rogers section 2).
//!
//! Every stack is drawn as one block, the root `S0` first, then the sub-stacks it
//! refers to, in the order they are met (a walk over an explicit queue, so a deep
//! term costs no native stack):
//!
//! ```text
//! S0 = (\(x : Int) -> x + 1) 2
//!   head: primitive prim_add (+)
//!   context (innermost first):
//!     #1 x : Int = S1   argument, its context ends at top
//!   pending applications (innermost first):
//!     S2   ends at #1
//!     S3   ends at #1
//!   end: top
//! ```
//!
//! The first line is the stack read back as a term ([`get_ast`]); then its head; its
//! own context entries, each numbered `#n` (outermost first, numbers shared by all
//! blocks) with its binder's type and right-hand side (a sub-stack, suspended code,
//! or nothing for an open binder); its pending applications with the entry where
//! each one's context ends; and the entry where the stack's own context ends (`top`
//! for the root's outside).

use crate::core::pretty;
use crate::core::program::Program;
use crate::core::term::{Lit, Term};
use crate::machine::arena::NIL;
use crate::machine::heap::{Cell, Heap};
use crate::machine::readback::get_ast;
use crate::machine::stack::Head;
use crate::machine::value::{CtxtId, StackId};
use std::collections::{HashMap, VecDeque};
use std::fmt::Write;

/// The longest term shown on one line; longer ones are cut with `...`.
const MAX_TERM: usize = 100;

/// Draws stack `s` and its sub-stacks (the stack is left as it was).
pub fn draw<'p>(heap: &mut Heap<'p>, program: &'p Program, s: StackId) -> String {
    let mut d = Drawing {
        program,
        entries: HashMap::new(),
        stacks: HashMap::new(),
        queue: VecDeque::new(),
        out: String::new(),
    };
    d.stack_name(s);
    while let Some(s) = d.queue.pop_front() {
        d.draw_one(heap, s);
    }
    d.out
}

/// A drawing in progress.
struct Drawing<'p> {
    program: &'p Program,
    /// Entry numbers given so far.
    entries: HashMap<CtxtId, usize>,
    /// Stack numbers given so far.
    stacks: HashMap<StackId, usize>,
    /// Stacks named but not drawn yet.
    queue: VecDeque<StackId>,
    out: String,
}

impl<'p> Drawing<'p> {
    /// `S<n>` for a stack, naming it (and queueing it to be drawn) on first sight.
    fn stack_name(&mut self, s: StackId) -> String {
        let next = self.stacks.len();
        let n = *self.stacks.entry(s).or_insert_with(|| {
            self.queue.push_back(s);
            next
        });
        format!("S{n}")
    }

    /// `#<n>` for an entry, `top` for the outside of the root.
    fn entry_name(&mut self, c: CtxtId) -> String {
        if c == NIL {
            return "top".to_string();
        }
        let next = self.entries.len() + 1;
        let n = *self.entries.entry(c).or_insert(next);
        format!("#{n}")
    }

    fn draw_one(&mut self, heap: &mut Heap<'p>, s: StackId) {
        let (ctx, end, apps) = {
            let st = heap.stacks.get(s);
            (st.ctx, st.end, st.apps)
        };
        // The stack's own entries, innermost first; numbered outermost first.
        let mut own = Vec::new();
        let mut e = ctx;
        while e != end && e != NIL {
            own.push(e);
            e = heap.ctxt(e).next;
        }
        for &c in own.iter().rev() {
            self.entry_name(c);
        }
        let term = get_ast(heap, s);
        let term = self.show(heap, end, &term);
        let name = self.stack_name(s);
        let _ = writeln!(self.out, "{name} = {term}");
        let head = self.head(heap, s, ctx);
        let _ = writeln!(self.out, "  head: {head}");
        if own.is_empty() {
            let _ = writeln!(self.out, "  context: empty");
        } else {
            let _ = writeln!(self.out, "  context (innermost first):");
            for &c in &own {
                let line = self.entry(heap, c);
                let _ = writeln!(self.out, "    {line}");
            }
        }
        let mut pending = Vec::new();
        let mut a = apps;
        while a != NIL {
            let st = heap.stacks.get(a);
            pending.push((a, st.end, st.plicity));
            a = st.sib;
        }
        if pending.is_empty() {
            let _ = writeln!(self.out, "  pending applications: none");
        } else {
            let _ = writeln!(self.out, "  pending applications (innermost first):");
            for (a, a_end, plicity) in pending {
                let name = self.stack_name(a);
                let at = self.entry_name(a_end);
                let implicit = match plicity {
                    crate::core::term::Plicity::Implicit => ", implicit",
                    crate::core::term::Plicity::Explicit => "",
                };
                let _ = writeln!(self.out, "    {name}   ends at {at}{implicit}");
            }
        }
        let end_name = self.entry_name(end);
        let _ = writeln!(self.out, "  end: {end_name}");
    }

    /// The head of stack `s`, in words.
    fn head(&mut self, heap: &mut Heap<'p>, s: StackId, ctx: CtxtId) -> String {
        let p = self.program;
        match &heap.stacks.get(s).head {
            Head::Var(c) => {
                let c = *c;
                let name = binder_name(heap, c);
                format!("variable {name} ({})", self.entry_name(c))
            }
            Head::Def(d) => format!("definition {}", p.def(*d).name),
            Head::Data(d) => format!("type {}", p.data(*d).name),
            Head::Con(c) => format!("constructor {}", p.con(*c).name),
            Head::Extern(e) => format!("external {}", p.external(*e).name),
            Head::Prim(prim, _) => match pretty::operator_symbol(*prim) {
                Some(op) => format!("primitive {} ({op})", prim.name()),
                None => format!("primitive {}", prim.name()),
            },
            Head::PrimType(t) => format!(
                "type {}",
                pretty::term_to_string(p, &[], &Term::PrimType(*t))
            ),
            Head::Lit(l) => format!("literal {}", literal(p, l)),
            Head::Universe(_) => "Type".to_string(),
            Head::Hole(_) => "a hole".to_string(),
            Head::Code(t) => {
                let t = (*t).clone();
                format!("code {}", self.show(heap, ctx, &t))
            }
            Head::Match(m, scrut) => {
                let (arms, scrut) = (m.arms.len() + usize::from(m.default.is_some()), *scrut);
                format!(
                    "match on {} (the scrutinee, its context ends at the start of this one), {arms} arm{}",
                    self.stack_name(scrut),
                    if arms == 1 { "" } else { "s" }
                )
            }
            Head::Value(v) => format!("value ({})", v.kind()),
            Head::Free => "(freed)".to_string(),
        }
    }

    /// One context entry: number, name, type and right-hand side.
    fn entry(&mut self, heap: &mut Heap<'p>, c: CtxtId) -> String {
        let name = binder_name(heap, c);
        let number = self.entry_name(c);
        let next = heap.ctxt(c).next;
        let ty = match heap.ctxt(c).binder {
            Some(b) => {
                let ty = b.ty.clone();
                self.show(heap, next, &ty)
            }
            None => "?".to_string(),
        };
        let rhs = match &heap.ctxt(c).cell {
            Cell::Open => "open (a lambda with no argument)".to_string(),
            Cell::Wound(r) => {
                let (r, r_end) = (*r, heap.stacks.get(*r).end);
                let sub = self.stack_name(r);
                if r_end == c {
                    format!("= {sub}   recursive let")
                } else {
                    let at = self.entry_name(r_end);
                    format!("= {sub}   argument, its context ends at {at}")
                }
            }
            Cell::Suspended(code, env) => {
                let (code, env) = ((*code).clone(), *env);
                let text = self.show(heap, env, &code);
                if env == c {
                    format!("= {text}   recursive let, suspended")
                } else {
                    let at = self.entry_name(env);
                    format!("= {text}   suspended, its context ends at {at}")
                }
            }
            Cell::Blackholed(_) => "being evaluated".to_string(),
            Cell::Value(v) => format!("evaluated ({})", v.kind()),
            Cell::Ind(other) => {
                let other = *other;
                format!("the same as {}", self.entry_name(other))
            }
            Cell::Free => "(freed)".to_string(),
        };
        format!("{number} {name} : {ty} {rhs}")
    }

    /// A term whose free variables are the entries from `ctx` outward, as source.
    fn show(&self, heap: &Heap<'p>, ctx: CtxtId, t: &Term) -> String {
        let mut names = Vec::new();
        let mut e = ctx;
        while e != NIL {
            names.push(binder_name(heap, e));
            e = heap.ctxt(e).next;
        }
        names.reverse();
        let locals: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = pretty::term_to_string(self.program, &locals, t);
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.chars().count() > MAX_TERM {
            let cut: String = text.chars().take(MAX_TERM).collect();
            format!("{cut} ...")
        } else {
            text
        }
    }
}

/// The name of an entry's binder (`_` for anonymous cells).
fn binder_name(heap: &Heap<'_>, c: CtxtId) -> String {
    heap.ctxt(c)
        .binder
        .map(|b| b.name.to_string())
        .unwrap_or_else(|| "_".to_string())
}

fn literal(p: &Program, l: &Lit) -> String {
    pretty::term_to_string(p, &[], &Term::Lit(l.clone()))
}
