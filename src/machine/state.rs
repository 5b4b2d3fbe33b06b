//! Readback of a paused evaluation: the whole machine state as one closed core term.
//!
//! Rogers' point (section 3): every intermediate state of the machine is a term. When
//! an evaluation stops after a number of steps ([`Machine::pause_after`]),
//! [`Machine::read_back_state`] turns what the machine holds into a closed core term
//! whose value is the value of a chosen entry (the definition being evaluated), so
//! that the evaluation can be encoded, stored, moved, and resumed by evaluating the
//! term: work already done stays done (evaluated entries read back as their values),
//! work in progress continues where it stopped.
//!
//! # Entries
//!
//! The heap is a graph of context entries. Each entry the root reaches becomes one
//! binding, its right-hand side read back by the entry's state:
//!
//! - suspended code: the code, its free variables replaced by references to the
//!   entries its context chain holds for them;
//! - a value: a literal; a constructor, primitive, external or type applied to
//!   references to its field entries; a function's code closed as above;
//! - a wound stack: its head applied to its pending applications;
//! - black-holed (being evaluated): the *segment* of the frame stack that computes it
//!   (below).
//!
//! Aliases ([`Cell::Ind`]) are followed, atoms (numbers, strings, nullary
//! constructors) are inlined, and a definition whose evaluation has not started is the
//! definition itself.
//!
//! Bindings refer to one another in cycles (a recursive `let`; a black-holed entry and
//! the arguments that mention it; data that refers to itself). The core `let` is
//! recursive in one binder, so the bindings are ordered by their strongly connected
//! components, dependencies first, into a chain of `let`s: a component of one entry is
//! one `let`; a component of several is one `let` of a balanced tree of pairs
//! (`MkPair`) of their right-hand sides, each member a projection (a `match`) of it.
//! Pair fields are lazy, so the members stay suspended and shared as they were.
//!
//! # Frames
//!
//! Read from the top down, the frame stack is a term context around the loop's
//! control. Each frame plugs the term so far, `t`, into a larger term:
//!
//! - a pending application: `t a`;
//! - a destructor: `match t with ...`, its arms closed over its context;
//! - a primitive or an external evaluating its strict arguments: its head applied to
//!   the values it has, `t`, and the arguments it has not evaluated yet (the machine's
//!   value and argument stacks hold them, frame by frame);
//! - a binary primitive: `p t b`, or `p a t` once the left value is known;
//! - a structural comparison: `t == y` (or `x == t`), then each pair still to compare,
//!   joined with a `match` on `Bool` that stops at the first difference, negated for
//!   `!=`;
//! - `join`: the text so far, `++` `t`, `++` the separator and the rest when there is a
//!   rest; `run`'s walk over its argument list: the list so far, then `t`;
//! - an update frame ends a segment: the term so far is the right-hand side of the
//!   black-holed entry it updates, and the segment below goes on from a reference to
//!   that entry.
//!
//! The segment below the lowest update frame is the value the native caller of the
//! loop waits for. The callers that can pause (evaluating a definition, the printer)
//! evaluate entries the root reaches, so that value is already part of the term and
//! the bottom segment is left out.

use super::Machine;
use super::arena::NIL;
use super::frame::{Arg, Frame};
use super::heap::Cell;
use super::need::Ctl;
use super::stack::Head;
use super::value::{BlockId, CtxtId, PartialHead, StackId, Value};
use crate::core::program::Builtins;
use crate::core::subst::{map_match, rewrite};
use crate::core::term::{
    Binder, CaseArm, CasePat, DefId, HoleKind, Ix, Lit, Match, Plicity, RcTerm, Term,
};
use crate::prim::Prim;
use crate::syntax::span::{FileId, Span};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

/// Why a machine state cannot be read back (a state the machine never makes when it
/// pauses; reported rather than trusted).
#[derive(Debug, Clone, PartialEq)]
pub struct StateError(pub String);

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read the machine state back: {}", self.0)
    }
}

impl std::error::Error for StateError {}

/// The span of the terms readback builds (they stand for no source text).
const NO_SPAN: Span = Span {
    file: FileId(0),
    start: 0,
    end: 0,
};

/// The name of a binding whose entry has no binder (a field, an argument).
const ANONYMOUS: &str = "v";

/// The name of the binding of a component of several entries.
const GROUP: &str = "group";

/// One binding of the result: an entry the root reaches.
struct Node {
    /// The entry.
    entry: CtxtId,
    /// Its binder (name and type), once read.
    binder: Option<Binder>,
    /// Its right-hand side, references to other bindings as placeholders.
    rhs: Option<RcTerm>,
    /// The bindings it refers to.
    edges: Vec<u32>,
}

/// The reader: bindings found so far and the ones still to read.
struct Reader<'a, 'p> {
    m: &'a Machine<'p>,
    /// Definitions' pinned entries.
    def_of: HashMap<CtxtId, DefId>,
    /// Entry to binding.
    ids: HashMap<CtxtId, u32>,
    nodes: Vec<Node>,
    /// Bindings whose right-hand side is still to read.
    todo: Vec<u32>,
    /// The references made by the term being built.
    edges: Vec<u32>,
    /// Right-hand sides of black-holed entries: the segments of the frame stack.
    segments: HashMap<u32, (RcTerm, Vec<u32>)>,
    error: Option<String>,
}

fn hole() -> RcTerm {
    Term::Hole(HoleKind::Infer, NO_SPAN).rc()
}

/// A reference to binding `id`, resolved once the bindings are ordered.
fn placeholder(id: u32) -> RcTerm {
    Term::Hole(HoleKind::Meta(id), NO_SPAN).rc()
}

fn app(f: RcTerm, plicity: Plicity, a: RcTerm) -> RcTerm {
    Term::App(f, plicity, a).rc()
}

fn apps(f: RcTerm, args: impl IntoIterator<Item = RcTerm>) -> RcTerm {
    args.into_iter()
        .fold(f, |f, a| app(f, Plicity::Explicit, a))
}

fn lit_str(s: &str) -> RcTerm {
    Term::Lit(Lit::Str(Rc::from(s))).rc()
}

fn prim(p: Prim) -> RcTerm {
    Term::Prim(p, NO_SPAN).rc()
}

fn unnamed(name: &str) -> Binder {
    Binder {
        name: Rc::from(name),
        plicity: Plicity::Explicit,
        ty: hole(),
    }
}

/// `match b with True -> yes | False -> no`.
fn if_bool(bi: &Builtins, b: RcTerm, yes: RcTerm, no: RcTerm) -> RcTerm {
    Term::Match(Box::new(Match {
        scrut: b,
        arms: vec![
            CaseArm {
                pat: CasePat::Con(bi.true_, Vec::new()),
                body: yes,
            },
            CaseArm {
                pat: CasePat::Con(bi.false_, Vec::new()),
                body: no,
            },
        ],
        default: None,
        span: NO_SPAN,
    }))
    .rc()
}

/// The component of a pair: `match t with MkPair a b -> a` (or `b`).
fn project(bi: &Builtins, t: RcTerm, second: bool) -> RcTerm {
    Term::Match(Box::new(Match {
        scrut: t,
        arms: vec![CaseArm {
            pat: CasePat::Con(bi.mk_pair, vec![unnamed("a"), unnamed("b")]),
            body: Term::Var(Ix(if second { 0 } else { 1 })).rc(),
        }],
        default: None,
        span: NO_SPAN,
    }))
    .rc()
}

/// A value that needs no binding of its own.
fn atom(v: &Value<'_>) -> Option<RcTerm> {
    Some(match v {
        Value::Int(n) => Term::Lit(Lit::Int(*n)).rc(),
        Value::Float(x) => Term::Lit(Lit::Float(*x)).rc(),
        Value::Str(s) => Term::Lit(Lit::Str(s.clone())).rc(),
        Value::Con(c, NIL) => Term::Con(*c).rc(),
        Value::Partial(PartialHead::Data(d), NIL) => Term::Data(*d).rc(),
        Value::Partial(PartialHead::Prim(p, span), NIL) => Term::Prim(*p, *span).rc(),
        Value::Partial(PartialHead::Con(c), NIL) => Term::Con(*c).rc(),
        Value::Partial(PartialHead::Extern(e, _), NIL) => Term::Extern(*e).rc(),
        Value::Universe(n) => Term::Universe(*n).rc(),
        Value::PrimType(p) => Term::PrimType(*p).rc(),
        Value::Unknown => hole(),
        _ => return None,
    })
}

impl<'p> Machine<'p> {
    /// The machine's state as a closed term (of this machine's program) whose value is
    /// the value of entry `root`: after a pause ([`Machine::pause_after`]), the
    /// evaluation in progress with its frames; otherwise what the heap holds. See the
    /// module documentation.
    pub fn read_back_state(&self, root: CtxtId) -> Result<RcTerm, StateError> {
        let mut r = Reader {
            m: self,
            def_of: self
                .defs
                .iter()
                .enumerate()
                .map(|(i, &c)| (c, DefId(i as u32)))
                .collect(),
            ids: HashMap::new(),
            nodes: Vec::new(),
            todo: Vec::new(),
            edges: Vec::new(),
            segments: HashMap::new(),
            error: None,
        };
        if self.sched.as_ref().is_some_and(|s| s.has_other_fibers()) {
            return Err(StateError(
                "several fibers are running (states are read back from sequential runs)".into(),
            ));
        }
        match &self.paused {
            Some(ctl) => r.frames(ctl)?,
            None if !self.frames.is_empty() => {
                return Err(StateError(
                    "the machine is in the middle of an evaluation that did not pause".into(),
                ));
            }
            None => {}
        }
        let body = r.root_term(root);
        let root_edges = std::mem::take(&mut r.edges);
        while let Some(id) = r.todo.pop() {
            r.read_node(id);
        }
        if let Some(e) = r.error {
            return Err(StateError(e));
        }
        Ok(r.assemble(body, root_edges))
    }
}

impl<'p> Reader<'_, 'p> {
    fn fail(&mut self, message: impl Into<String>) -> RcTerm {
        if self.error.is_none() {
            self.error = Some(message.into());
        }
        hole()
    }

    /// The binding of an entry, made (and queued for reading) on first sight.
    fn node(&mut self, c: CtxtId) -> u32 {
        if let Some(&id) = self.ids.get(&c) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            entry: c,
            binder: None,
            rhs: None,
            edges: Vec::new(),
        });
        self.ids.insert(c, id);
        self.todo.push(id);
        id
    }

    /// A reference to what entry `c` holds.
    fn entry_ref(&mut self, c: CtxtId) -> RcTerm {
        let heap = &self.m.heap;
        if c == NIL {
            return self.fail("a reference to no entry");
        }
        let c = heap.resolve(c);
        match &heap.ctxt(c).cell {
            Cell::Value(v) => {
                if let Some(t) = atom(v) {
                    return t;
                }
                if let (Value::Fun(_, NIL), Some(&d)) = (v, self.def_of.get(&c)) {
                    return Term::Def(d).rc();
                }
            }
            Cell::Suspended(..) => {
                if let Some(&d) = self.def_of.get(&c) {
                    return Term::Def(d).rc();
                }
            }
            Cell::Free => return self.fail("a reference to a freed entry"),
            _ => {}
        }
        let id = self.node(c);
        self.edges.push(id);
        placeholder(id)
    }

    /// What the root holds. A definition's entry is read as its contents, never as
    /// the definition itself (the state replaces that definition's body).
    fn root_term(&mut self, root: CtxtId) -> RcTerm {
        let m = self.m;
        let c = m.heap.resolve(root);
        if root == NIL || !self.def_of.contains_key(&c) {
            return self.entry_ref(root);
        }
        match &m.heap.ctxt(c).cell {
            Cell::Suspended(code, env) => self.closure(code, *env, 0),
            Cell::Value(v) => self.value_term(v),
            _ => self.entry_ref(root),
        }
    }

    /// Reads the right-hand side and binder of a binding.
    fn read_node(&mut self, id: u32) {
        let m = self.m;
        let c = self.nodes[id as usize].entry;
        let entry = m.heap.ctxt(c);
        let binder = match entry.binder {
            Some(b) => Binder {
                name: b.name.clone(),
                plicity: Plicity::Explicit,
                ty: self.closure(&b.ty, entry.next, 0),
            },
            None => unnamed(ANONYMOUS),
        };
        let rhs = match &entry.cell {
            Cell::Suspended(code, env) => self.closure(code, *env, 0),
            Cell::Value(v) => self.value_term(v),
            Cell::Wound(s) => self.stack_term(*s),
            Cell::Blackholed(_) => match self.segments.remove(&id) {
                Some((t, edges)) => {
                    self.edges.extend(edges);
                    t
                }
                None => self.fail("an entry is being evaluated but no frame updates it"),
            },
            Cell::Open => {
                self.fail("an open binder (states of type-level evaluation are not read back)")
            }
            Cell::Ind(_) | Cell::Free => self.fail("an alias or a freed entry as a binding"),
        };
        let node = &mut self.nodes[id as usize];
        node.binder = Some(binder);
        node.rhs = Some(rhs);
        node.edges = std::mem::take(&mut self.edges);
    }

    /// Code closed over a context chain, under `skip` binders of its own (a match
    /// arm's fields): its free variables replaced by references to the chain's entries.
    fn closure(&mut self, code: &RcTerm, env: CtxtId, skip: u32) -> RcTerm {
        let m = self.m;
        rewrite(code, &mut |node, d| match &**node {
            Term::Var(Ix(i)) if *i >= d + skip => {
                let mut e = env;
                for _ in 0..i - d - skip {
                    if e == NIL {
                        break;
                    }
                    e = m.heap.ctxt(e).next;
                }
                if e == NIL {
                    return Some(self.fail("a variable its context does not bind"));
                }
                Some(self.entry_ref(e))
            }
            _ => None,
        })
    }

    /// A value as a term.
    fn value_term(&mut self, v: &Value<'p>) -> RcTerm {
        if let Some(t) = atom(v) {
            return t;
        }
        match v {
            Value::Con(c, b) => self.applied(Term::Con(*c).rc(), *b),
            Value::Partial(h, b) => {
                let head = match h {
                    PartialHead::Prim(p, span) => Term::Prim(*p, *span).rc(),
                    PartialHead::Con(c) => Term::Con(*c).rc(),
                    PartialHead::Data(d) => Term::Data(*d).rc(),
                    PartialHead::Extern(e, _) => Term::Extern(*e).rc(),
                    PartialHead::Open(o) => self.entry_ref(*o),
                };
                self.applied(head, *b)
            }
            Value::Fun(code, env) | Value::Pi(code, env) => self.closure(code, *env, 0),
            Value::Stuck(mt, x) => {
                let entry = self.m.heap.ctxt(*x);
                let next = entry.next;
                let scrut = match &entry.cell {
                    Cell::Value(v) => self.value_term(v),
                    _ => self.fail("a stuck match without its scrutinee"),
                };
                self.match_term(mt, scrut, next)
            }
            _ => unreachable!("atoms are handled above"),
        }
    }

    /// `head` applied to references to the entries of a block.
    fn applied(&mut self, head: RcTerm, b: BlockId) -> RcTerm {
        let cells = self.m.heap.block(b);
        let args: Vec<RcTerm> = cells.iter().map(|&c| self.entry_ref(c)).collect();
        apps(head, args)
    }

    /// A match on `scrut` whose arms are code in context `env`.
    fn match_term(&mut self, m: &Match, scrut: RcTerm, env: CtxtId) -> RcTerm {
        map_match(m, scrut, &mut |code, k| self.closure(code, env, k))
    }

    /// A wound stack: its head applied to its pending applications (its own context
    /// entries are bindings like any other).
    fn stack_term(&mut self, s: StackId) -> RcTerm {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.stack_term_inner(s))
    }

    fn stack_term_inner(&mut self, s: StackId) -> RcTerm {
        let m = self.m;
        let st = m.heap.stacks.get(s);
        let ctx = st.ctx;
        let mut t = match st.head.closed_term() {
            Some(t) => t,
            None => match &st.head {
                Head::Var(c) => self.entry_ref(*c),
                Head::Code(code) => self.closure(code, ctx, 0),
                Head::Match(mt, scrut) => {
                    let scrut = self.stack_term(*scrut);
                    self.match_term(mt, scrut, ctx)
                }
                Head::Value(v) => self.value_term(v),
                _ => return self.fail("a freed stack"),
            },
        };
        let mut a = st.apps;
        while a != NIL {
            let sub = m.heap.stacks.get(a);
            let (pl, next) = (sub.plicity, sub.sib);
            let arg = self.stack_term(a);
            t = app(t, pl, arg);
            a = next;
        }
        t
    }

    fn arg_term(&mut self, a: &Arg<'p>) -> RcTerm {
        match a {
            Arg::Code(t, env) => self.closure(t, *env, 0),
            Arg::Cell(c) => self.entry_ref(*c),
            Arg::Val(v) => self.value_term(v),
            Arg::Stack(s) => self.stack_term(*s),
        }
    }

    fn ctl_term(&mut self, ctl: &Ctl<'p>) -> RcTerm {
        match ctl {
            Ctl::Eval(t, env) => self.closure(t, *env, 0),
            Ctl::Enter(c) => self.entry_ref(*c),
            Ctl::Stack(s) => self.stack_term(*s),
            Ctl::Ret(v) => self.value_term(v),
            Ctl::Park => self.fail("a parked fiber"),
        }
    }

    /// Reads the frame stack around the paused control, segment by segment.
    fn frames(&mut self, ctl: &Ctl<'p>) -> Result<(), StateError> {
        let m = self.m;
        let bi = m.prog.builtins;
        let broken = |what: &str| StateError(format!("the frames do not match the {what}"));
        let mut t = self.ctl_term(ctl);
        // How much of the machine's side stacks the frames below still own.
        let mut pargs = m.pargs.len();
        let mut pvals = m.pvals.len();
        let mut pairs = m.eq_work.len();
        let frames = &m.frames;
        // Whether `t` is `run`'s argument list, read back from the `join` walk over it.
        let mut run_list = false;
        let mut i = frames.len();
        while i > 0 {
            i -= 1;
            let below_is_run = i > 0 && matches!(frames[i - 1], Frame::ExtRunArgs { .. });
            t = match &frames[i] {
                Frame::Arg(a, pl) => {
                    let a = self.arg_term(a);
                    app(t, *pl, a)
                }
                Frame::Update(c) => {
                    if !matches!(m.heap.ctxt(*c).cell, Cell::Blackholed(_)) {
                        return Err(broken("entries being evaluated"));
                    }
                    let id = self.node(*c);
                    let edges = std::mem::take(&mut self.edges);
                    self.segments.insert(id, (t, edges));
                    self.entry_ref(*c)
                }
                Frame::Case(mt, env) => self.match_term(mt, t, *env),
                Frame::Prim {
                    prim: p,
                    span,
                    got,
                    arity,
                    ..
                } => {
                    let head = Term::Prim(*p, *span).rc();
                    self.strict_call(head, *got, *arity, t, &mut pargs, &mut pvals)
                        .ok_or_else(|| broken("primitives' arguments"))?
                }
                Frame::Ext { op, ext, got, .. } => {
                    let head = Term::Extern(*ext).rc();
                    let arity = op.arity().0 as u8;
                    self.strict_call(head, *got, arity, t, &mut pargs, &mut pvals)
                        .ok_or_else(|| broken("externals' arguments"))?
                }
                Frame::BinL { prim: p, span, b } => {
                    let b = self.arg_term(b);
                    apps(Term::Prim(*p, *span).rc(), [t, b])
                }
                Frame::BinR { prim: p, span, a } => {
                    let a = self.value_term(a);
                    apps(Term::Prim(*p, *span).rc(), [a, t])
                }
                Frame::EqLeft(y) => {
                    let y = self.entry_ref(*y);
                    apps(prim(Prim::Eq), [t, y])
                }
                Frame::EqRight(x) => {
                    let x = self.value_term(x);
                    apps(prim(Prim::Eq), [x, t])
                }
                Frame::Eq { base, negate, span } => {
                    let base = *base as usize;
                    if base > pairs {
                        return Err(broken("comparisons' pairs"));
                    }
                    // The worklist pops from its top: the nearest pair comes first.
                    let rest: Vec<RcTerm> = m.eq_work[base..pairs]
                        .iter()
                        .rev()
                        .map(|&(x, y)| {
                            let (x, y) = (self.entry_ref(x), self.entry_ref(y));
                            apps(Term::Prim(Prim::Eq, *span).rc(), [x, y])
                        })
                        .collect();
                    pairs = base;
                    let no = || Term::Con(bi.false_).rc();
                    let all = rest
                        .into_iter()
                        .rev()
                        .fold(None, |later: Option<RcTerm>, pair| {
                            Some(match later {
                                None => pair,
                                Some(later) => if_bool(&bi, pair, later, no()),
                            })
                        });
                    let all = match all {
                        None => t,
                        Some(later) => if_bool(&bi, t, later, no()),
                    };
                    if *negate {
                        if_bool(&bi, all, no(), Term::Con(bi.true_).rc())
                    } else {
                        all
                    }
                }
                Frame::JoinElem(rest) => {
                    // Always right above the walk it belongs to.
                    let Some(Frame::JoinList { sep, acc, .. }) =
                        i.checked_sub(1).map(|k| &frames[k])
                    else {
                        return Err(broken("`join` walk"));
                    };
                    let rest = self.entry_ref(*rest);
                    i -= 1;
                    if i > 0 && matches!(frames[i - 1], Frame::ExtRunArgs { .. }) {
                        // The text so far ends with the separator before `t`.
                        run_list = true;
                        let list = apps(Term::Con(bi.cons).rc(), [t, rest]);
                        run_args(&bi, acc.strip_suffix('\0').unwrap_or(acc), list)
                    } else {
                        let tail = join_tail(&bi, sep, rest);
                        apps(
                            prim(Prim::Concat),
                            [lit_str(acc), apps(prim(Prim::Concat), [t, tail])],
                        )
                    }
                }
                Frame::JoinList { sep, acc, first } => {
                    if below_is_run {
                        run_list = true;
                        run_args(&bi, acc, t)
                    } else {
                        let tail = if *first {
                            apps(prim(Prim::Join), [lit_str(sep), t])
                        } else {
                            join_tail(&bi, sep, t)
                        };
                        apps(prim(Prim::Concat), [lit_str(acc), tail])
                    }
                }
                Frame::ExtRunArgs { ext, prog, .. } => {
                    // After the walk over the list has finished, `t` is its text.
                    let list = match &*t {
                        _ if run_list => t,
                        Term::Lit(Lit::Str(joined)) => run_args(&bi, joined, nil(&bi)),
                        _ => return Err(broken("`run` arguments")),
                    };
                    run_list = false;
                    apps(Term::Extern(*ext).rc(), [lit_str(prog), list])
                }
            };
        }
        if pargs != 0 || pvals != 0 || pairs != 0 {
            return Err(broken("machine's side stacks"));
        }
        // The bottom segment is the caller's (see the module documentation).
        self.edges.clear();
        Ok(())
    }

    /// A primitive or external that has `got` of its strict arguments, evaluating the
    /// next one (`t`): its head applied to the values, `t`, and the arguments left.
    /// `None` when the side stacks hold too little.
    fn strict_call(
        &mut self,
        head: RcTerm,
        got: u8,
        arity: u8,
        t: RcTerm,
        pargs: &mut usize,
        pvals: &mut usize,
    ) -> Option<RcTerm> {
        let m = self.m;
        let got = got as usize;
        let left = (arity as usize).checked_sub(got + 1)?;
        let vals_from = pvals.checked_sub(got)?;
        let args_from = pargs.checked_sub(left)?;
        let mut out: Vec<RcTerm> = m.pvals[vals_from..*pvals]
            .iter()
            .map(|v| self.value_term(v))
            .collect();
        out.push(t);
        // The argument stack's top is the next argument.
        for a in m.pargs[args_from..*pargs].iter().rev() {
            out.push(self.arg_term(a));
        }
        *pvals = vals_from;
        *pargs = args_from;
        Some(apps(head, out))
    }

    /// Orders the bindings and builds the chain of `let`s around `body`.
    fn assemble(self, body: RcTerm, root_edges: Vec<u32>) -> RcTerm {
        let bi = self.m.prog.builtins;
        let mut nodes = self.nodes;
        let groups = components(&nodes, &root_edges);
        // Where each binding ends up: its `let`'s level and, in a group, the path of
        // projections to it (`true` for a pair's second component).
        let mut place: HashMap<u32, (u32, Vec<bool>)> = HashMap::new();
        for (level, group) in groups.iter().enumerate() {
            for (k, &id) in group.iter().enumerate() {
                place.insert(id, (level as u32, pair_path(k, group.len())));
            }
        }
        let fix = |t: &RcTerm, scope: u32| {
            rewrite(t, &mut |node, d| match &**node {
                Term::Hole(HoleKind::Meta(id), _) => {
                    let (level, path) = &place[id];
                    let mut r = Term::Var(Ix(d + scope - 1 - level)).rc();
                    for &second in path {
                        r = project(&bi, r, second);
                    }
                    Some(r)
                }
                _ => None,
            })
        };
        let mut bindings: Vec<(Binder, RcTerm)> = Vec::with_capacity(groups.len());
        for (level, group) in groups.iter().enumerate() {
            let scope = level as u32 + 1;
            if let [id] = group[..] {
                let node = &mut nodes[id as usize];
                let b = node.binder.take().unwrap_or_else(|| unnamed(ANONYMOUS));
                let rhs = node.rhs.take().unwrap_or_else(hole);
                let binder = Binder {
                    ty: fix(&b.ty, scope - 1),
                    ..b
                };
                bindings.push((binder, fix(&rhs, scope)));
            } else {
                let rhss: Vec<RcTerm> = group
                    .iter()
                    .map(|&id| {
                        let rhs = nodes[id as usize].rhs.take().unwrap_or_else(hole);
                        fix(&rhs, scope)
                    })
                    .collect();
                bindings.push((unnamed(GROUP), pair_tree(&bi, &rhss)));
            }
        }
        let mut t = fix(&body, groups.len() as u32);
        while let Some((b, rhs)) = bindings.pop() {
            t = Term::Let(b, rhs, t).rc();
        }
        t
    }
}

/// `match t with Nil -> "" | r -> sep ++ join sep r`: the rest of a `join` after an
/// element.
fn join_tail(bi: &Builtins, sep: &str, t: RcTerm) -> RcTerm {
    let rest = Term::Var(Ix(0)).rc();
    let more = apps(
        prim(Prim::Concat),
        [lit_str(sep), apps(prim(Prim::Join), [lit_str(sep), rest])],
    );
    Term::Match(Box::new(Match {
        scrut: t,
        arms: vec![CaseArm {
            pat: CasePat::Con(bi.nil, Vec::new()),
            body: lit_str(""),
        }],
        default: Some((unnamed("rest"), more)),
        span: NO_SPAN,
    }))
    .rc()
}

fn nil(bi: &Builtins) -> RcTerm {
    Term::Con(bi.nil).rc()
}

/// `run`'s argument list: the arguments walked so far (the text `joined`, each one
/// after a NUL), then `tail`.
fn run_args(bi: &Builtins, joined: &str, tail: RcTerm) -> RcTerm {
    let done: Vec<&str> = joined.split('\0').skip(1).collect();
    done.iter().rev().fold(tail, |list, s| {
        apps(Term::Con(bi.cons).rc(), [lit_str(s), list])
    })
}

/// The path to member `k` of `n` in a balanced tree of pairs.
fn pair_path(k: usize, n: usize) -> Vec<bool> {
    let (mut lo, mut hi) = (0, n);
    let mut path = Vec::new();
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        path.push(k >= mid);
        if k >= mid {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    path
}

/// A balanced tree of pairs of the terms (at least one).
fn pair_tree(bi: &Builtins, ts: &[RcTerm]) -> RcTerm {
    stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
        if let [t] = ts {
            return t.clone();
        }
        let mid = ts.len() / 2;
        let (a, b) = (pair_tree(bi, &ts[..mid]), pair_tree(bi, &ts[mid..]));
        apps(Term::Con(bi.mk_pair).rc(), [a, b])
    })
}

/// The strongly connected components of the bindings `roots` reach, dependencies
/// first (Tarjan's algorithm, with an explicit stack); members in binding order.
fn components(nodes: &[Node], roots: &[u32]) -> Vec<Vec<u32>> {
    const UNSEEN: u32 = u32::MAX;
    let n = nodes.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut out: Vec<Vec<u32>> = Vec::new();
    let mut next = 0u32;
    for &root in roots {
        if index[root as usize] != UNSEEN {
            continue;
        }
        let mut calls: Vec<(u32, usize)> = vec![(root, 0)];
        index[root as usize] = next;
        low[root as usize] = next;
        next += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut i)) = calls.last_mut() {
            let edges = &nodes[v as usize].edges;
            if *i < edges.len() {
                let w = edges[*i];
                *i += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = next;
                    low[w as usize] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut group = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                group.sort_unstable();
                out.push(group);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(edges: &[u32]) -> Node {
        Node {
            entry: NIL,
            binder: None,
            rhs: None,
            edges: edges.to_vec(),
        }
    }

    #[test]
    fn components_come_dependencies_first() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3, 3 -> 3; 4 is unreachable.
        let nodes = vec![
            node(&[1, 3]),
            node(&[2]),
            node(&[1]),
            node(&[3]),
            node(&[0]),
        ];
        let groups = components(&nodes, &[0]);
        assert_eq!(groups, vec![vec![1, 2], vec![3], vec![0]]);
    }

    #[test]
    fn pair_paths_address_every_member_once() {
        for n in 1..9 {
            let paths: Vec<Vec<bool>> = (0..n).map(|k| pair_path(k, n)).collect();
            for (k, p) in paths.iter().enumerate() {
                assert!(p.len() <= 4, "balanced: {n} members, path {p:?}");
                assert!(!paths[..k].contains(p), "member {k} of {n} shares a path");
            }
        }
    }
}
