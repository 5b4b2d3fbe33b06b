//! Readback: words and code in records back to core terms (Rogers' point: every
//! intermediate state of evaluation is a term).
//!
//! Code in a record reads back as the core term it was compiled from, with each free
//! variable replaced by what the record chain holds for it ([`crate::machine::code::Meta`]
//! says where each variable lives). A value reads back as a literal, a constructor or
//! head applied to its arguments, or a closure's lambda; a thunk not evaluated as its
//! code. The variables of the type checker's context ([`PapHead::Open`]) read back as
//! variables, so type-level evaluation hands the checker terms in its own scope.
//!
//! Readback shares: each object reads back once per binding depth, so a value built
//! with sharing (`(v, v)` nested twenty times) reads back to a term of linear size
//! (as a DAG of shared `Rc`s). A budget bounds what is read (a cyclic value such as
//! `let xs = Cons 1 xs` is infinite); past it, a hole stands for the rest.
//!
//! # A fold of the generic walk
//!
//! Readback is a [`Walk`] run by [`depth_first`], the walk the heap folds use
//! ([`super::unwind`]), so a long list or a long chain of thunks costs heap, not
//! native stack. Its nodes are not heap objects but what has a term: a word under a
//! number of binders of the result (`Node::Word`), code in a record
//! (`Node::Code`), a function value's lambdas (`Node::Closure`). Going into a node
//! finds the nodes its term is made of, in the order the term mentions them: a
//! constructor's fields, a partial application's arguments, an evaluated thunk's
//! value, and for code the words its free variables name in the record chain (not
//! every slot of the record: only what the code uses), each under the binders of the
//! code around the variable. The node's post-order step builds its term from theirs
//! (which the walk leaves, in order, on a stack of results) and, for a word, remembers
//! it by object and binder depth.
//!
//! Code is a core term, walked with [`rewrite`] (its depth is the program's own
//! nesting, bounded; the heap behind it is not): once per piece of code to find its
//! free variables (remembered: the thunks of one piece of code are many), and once
//! per node to replace them by their terms. `rewrite` asks about each node once per
//! binder depth, in a fixed depth-first order that depends only on the term, so the
//! `k`-th variable found is the `k`-th replaced.
//!
//! Nodes are entered in the order a recursive readback would call itself, and a
//! node's term is remembered before its next sibling is entered, so the budget runs
//! out at the same places and the same objects are shared as they would be.
//!
//! # Paused states
//!
//! Reading a paused state ([`super::state`]), the objects that are bindings of their
//! own read back as placeholders, except the binding being read (`top`), which reads
//! as its content the first time it is met. A term read there depends on when it is
//! read (an object read inside `top`'s content, before `top` is met, sees `top`'s
//! content, and the same object read later sees a placeholder), so in that mode terms
//! are not remembered, and not counted against the budget either.

use super::Sight;
use super::unwind::{Walk, depth_first};
use crate::core::subst::{map_match, rewrite};
use crate::core::term::{Binder, DefId, HoleKind, Ix, Lit, Match, Plicity, RcTerm, Term};
use crate::machine::code::{CodeId, Loc, ScopeId};
use crate::machine::heap::{PapHead, ThunkState};
use crate::machine::value::{NIL, Ref, Val};
use crate::syntax::span::{FileId, Span};
use std::collections::HashMap;
use std::rc::Rc;

/// How many objects one readback reads at most.
pub const READBACK_BUDGET: u32 = 1_000_000;

/// A hole: what stands for a part that has no term (erased, or past the budget).
pub fn hole() -> RcTerm {
    Term::Hole(HoleKind::Infer, Span::new(FileId(0), 0, 0)).rc()
}

/// The identity of an object at a binder depth: what a word's term is remembered by.
type MemoKey = (u8, Ref, u32);

/// Reads words and code back into core terms.
pub struct Reader<'m, 'p> {
    m: Sight<'m, 'p>,
    /// How many variables the checker's context has (open variables read back as
    /// variables of it).
    pub ctx_len: u32,
    /// How many more objects may be read (past it, holes).
    budget: u32,
    /// The term of each word read, by object and binder depth.
    memo: HashMap<MemoKey, RcTerm>,
    /// Objects that are bindings of their own (reading a paused state): a reference
    /// to one reads back as a placeholder `Def(PLACE + id)`, resolved into a
    /// variable once the bindings are ordered ([`super::state`]).
    pub places: HashMap<(u8, Ref), u32>,
    /// The binding being read (its own content is read, not its placeholder).
    pub top: Option<(u8, Ref)>,
    /// The terms of the nodes done whose post-order step has not used them yet, in
    /// the order the nodes were entered.
    done: Vec<RcTerm>,
    /// The nodes a node being entered is made of, in order (scratch space).
    kids: Vec<Node<'p>>,
    /// The walk's stack and its pending post-order steps (kept between readbacks: a
    /// paused state reads many words).
    work: Vec<Node<'p>>,
    exits: Vec<(Exit<'p>, usize)>,
    /// The free variables of the code read so far ([`free_vars`]), by core term
    /// (terms of the program, alive as long as the reader) and binders skipped.
    free: HashMap<(*const Term, u32), Vec<(u32, u32)>>,
}

/// Where placeholders for bindings start among definition ids.
pub const PLACE: u32 = 1 << 30;

/// What readback walks: something with a term.
enum Node<'p> {
    /// A word, under a number of binders of the result.
    Word(Val, u32),
    /// Code in a record.
    Code(Code<'p>),
    /// A function value's lambdas, under a number of binders: what a function's
    /// partial application reads its reference to itself as (not a word: no
    /// placeholder, no memo, no budget).
    Closure(Ref, u32),
    /// A variable whose word the record chain does not have (an erased one).
    Hole,
}

/// A core term compiled in `scope` (record depth `depth`, run in record `env`), under
/// `skip` binders of its own, read under `under` binders of the result.
struct Code<'p> {
    t: &'p RcTerm,
    scope: ScopeId,
    depth: u32,
    env: Ref,
    skip: u32,
    under: u32,
}

/// A node's post-order step: how to build its term from its parts' terms (those
/// `done` holds from `base` on), and, for a word, what to remember it by.
struct Exit<'p> {
    base: usize,
    key: Option<MemoKey>,
    build: Build<'p>,
}

/// How a node's term is built from its parts' terms.
enum Build<'p> {
    /// A term without parts (an atom's; a black-holed or failed thunk's hole).
    Ready(RcTerm),
    /// The one part's term (an evaluated thunk is its value).
    Part,
    /// The head applied (explicitly) to the parts' terms.
    Apply(RcTerm),
    /// The core term with its free variables (those under more than `skip` binders
    /// of it), in [`rewrite`]'s order, replaced by the parts' terms.
    Subst { t: &'p RcTerm, skip: u32 },
    /// A recursive local function: its lambdas (under its own binder, `skip` 1) as
    /// in [`Build::Subst`], bound by `let` to its name (its binder's, or `go`) and
    /// returned (`let go = \... in go`).
    Recursive(&'p RcTerm, Option<&'p Binder>),
    /// A stuck match: the first part is the scrutinee's term, then one per piece of
    /// code of the match (in [`map_match`]'s order).
    Match(&'p Match),
}

impl<'m, 'p> Reader<'m, 'p> {
    /// A reader of a machine's state.
    pub fn new(m: Sight<'m, 'p>) -> Reader<'m, 'p> {
        Reader {
            m,
            ctx_len: 0,
            budget: READBACK_BUDGET,
            memo: HashMap::new(),
            places: HashMap::new(),
            top: None,
            done: Vec::new(),
            kids: Vec::new(),
            work: Vec::new(),
            exits: Vec::new(),
            free: HashMap::new(),
        }
    }

    /// A reader with a budget of objects.
    pub fn with_budget(m: Sight<'m, 'p>, budget: u32) -> Reader<'m, 'p> {
        let mut r = Reader::new(m);
        r.budget = budget;
        r
    }

    /// A word, as a term under `under` binders of the result.
    pub fn word(&mut self, v: Val, under: u32) -> RcTerm {
        self.read(Node::Word(v, under))
    }

    /// Code in a record, as a term.
    pub fn code(&mut self, c: CodeId, env: Ref, under: u32) -> RcTerm {
        let meta = &self.m.code.meta[c as usize];
        let (t, scope, depth) = (meta.core, meta.scope, meta.depth);
        self.term_in(t, scope, depth, env, 0, under)
    }

    /// A core term compiled in `scope` (record depth `depth`, run in record `env`),
    /// under `skip` binders of its own: its free variables replaced by what the
    /// record chain holds.
    pub fn term_in(
        &mut self,
        t: &'p RcTerm,
        scope: ScopeId,
        depth: u32,
        env: Ref,
        skip: u32,
        under: u32,
    ) -> RcTerm {
        self.read(Node::Code(Code {
            t,
            scope,
            depth,
            env,
            skip,
            under,
        }))
    }

    /// The identity of a heap object a word points at (`None` for atoms).
    pub fn object_key(v: Val) -> Option<(u8, Ref)> {
        Self::memo_key(v, 0).map(|(k, r, _)| (k, r))
    }

    fn memo_key(v: Val, under: u32) -> Option<MemoKey> {
        match v {
            Val::Con(r) => Some((0, r, under)),
            Val::Thunk(r) => Some((1, r, under)),
            Val::Fun(r) => Some((2, r, under)),
            Val::Pap(r) => Some((3, r, under)),
            Val::Pi(r) => Some((4, r, under)),
            Val::Stuck(r) => Some((5, r, under)),
            _ => None,
        }
    }

    /// The term of a node: the walk from it alone.
    fn read(&mut self, n: Node<'p>) -> RcTerm {
        let base = self.done.len();
        let mut work = std::mem::take(&mut self.work);
        let mut exits = std::mem::take(&mut self.exits);
        work.push(n);
        depth_first(&mut Reading(self), &mut work, &mut exits);
        (self.work, self.exits) = (work, exits);
        debug_assert_eq!(self.done.len(), base + 1, "a node gives one term");
        self.done.pop().unwrap_or_else(hole)
    }

    /// Going into a word: its term at once if it has one (an atom, a placeholder, a
    /// remembered term, a hole past the budget), or how to build it from the parts
    /// pushed on `kids`, and what to remember it by.
    fn enter_word(&mut self, v: Val, under: u32) -> Option<(Option<MemoKey>, Build<'p>)> {
        // Reading a paused state, terms depend on which binding is read (`top`), so
        // they are not remembered (nor counted against the budget).
        let state_mode = !self.places.is_empty();
        if let Some(k) = Self::object_key(v)
            && let Some(&id) = self.places.get(&k)
        {
            if self.top == Some(k) {
                // The binding's own content: references inside it (even to itself)
                // are placeholders.
                self.top = None;
            } else {
                self.done.push(Term::Def(DefId(PLACE + id)).rc());
                return None;
            }
        }
        let key = Self::memo_key(v, under).filter(|_| !state_mode);
        if let Some(k) = key {
            if let Some(t) = self.memo.get(&k) {
                self.done.push(t.clone());
                return None;
            }
            if self.budget == 0 {
                self.done.push(hole());
                return None;
            }
            self.budget -= 1;
        }
        let heap = &self.m.heap;
        let build = match v {
            Val::Int(n) => Build::Ready(Term::Lit(Lit::Int(n)).rc()),
            Val::Float(x) => Build::Ready(Term::Lit(Lit::Float(x)).rc()),
            Val::Char(c) => Build::Ready(Term::Lit(Lit::Char(c)).rc()),
            Val::Str(r) => Build::Ready(Term::Lit(Lit::Str(heap.text(r).clone())).rc()),
            Val::Atom(c) => Build::Ready(Term::Con(c).rc()),
            Val::Universe(n) => Build::Ready(Term::Universe(n).rc()),
            Val::PrimType(p) => Build::Ready(Term::PrimType(p).rc()),
            Val::Erased => Build::Ready(hole()),
            Val::Con(r) => {
                let o = heap.cons.get(r);
                self.words(o.fields.get(&heap.words), under);
                Build::Apply(Term::Con(o.con).rc())
            }
            Val::Thunk(t) => match heap.thunks.get(t).state {
                ThunkState::Done(x) => {
                    self.kids.push(Node::Word(x, under));
                    Build::Part
                }
                ThunkState::Suspended { code, env } => self.code_parts(code, env, under),
                ThunkState::Blackholed { .. } | ThunkState::Failed(_) => Build::Ready(hole()),
            },
            Val::Fun(r) => self.closure_parts(r, under),
            Val::Pap(r) => self.pap_parts(r, under),
            Val::Pi(r) => {
                let o = heap.pis.get(r);
                self.code_parts(o.code, o.env, under)
            }
            Val::Stuck(r) => match self.stuck_parts(r, under) {
                Some(b) => b,
                None => {
                    // Not a match: a hole, not remembered.
                    self.done.push(hole());
                    return None;
                }
            },
        };
        Some((key, build))
    }

    /// Pushes the words `ws` as parts, under `under` binders.
    fn words(&mut self, ws: &[Val], under: u32) {
        self.kids.extend(ws.iter().map(|&w| Node::Word(w, under)));
    }

    /// A partial application's parts: its arguments after its head.
    fn pap_parts(&mut self, r: Ref, under: u32) -> Build<'p> {
        let heap = &self.m.heap;
        let o = heap.paps.get(r);
        let head = match o.head {
            PapHead::Fun(f) => return self.fun_applied_parts(f, o.taken, r, under),
            PapHead::Def(d) => Term::Def(d).rc(),
            PapHead::Con(c) => Term::Con(c).rc(),
            PapHead::Prim(p, s) => Term::Prim(p, s).rc(),
            PapHead::Extern(e, site) => Term::Extern(e, self.m.code.site_span(site)).rc(),
            PapHead::Data(d) => Term::Data(d).rc(),
            PapHead::Open(level) => self.open_var(level, under),
            PapHead::Hole(c) => self.m.code.meta[c as usize].core.clone(),
        };
        self.words(heap.words.get(o.args), under);
        Build::Apply(head)
    }

    /// A stuck match's parts: its scrutinee, then the free variables of each piece of
    /// its code (as [`Node::Code`]s, in [`map_match`]'s order); `None` if its code is
    /// not a match.
    fn stuck_parts(&mut self, r: Ref, under: u32) -> Option<Build<'p>> {
        let o = self.m.heap.stucks.get(r);
        let (code, env, scrut) = (o.code, o.env, o.scrut);
        let crate::machine::code::Code::Match(mi) = self.m.code.nodes[code as usize] else {
            return None;
        };
        let core = self.m.code.matches[mi as usize].core;
        let meta = &self.m.code.meta[code as usize];
        let (scope, depth) = (meta.scope, meta.depth);
        self.kids.push(Node::Word(scrut, under));
        // The pieces, in the order `map_match` gives them (the term built is dropped).
        let kids = &mut self.kids;
        map_match(core, hole(), &mut |t, skip| {
            kids.push(Node::Code(Code {
                t,
                scope,
                depth,
                env,
                skip,
                under,
            }));
            hole()
        });
        Some(Build::Match(core))
    }

    /// The checker's context variable at `level`, under `under` binders.
    fn open_var(&self, level: u32, under: u32) -> RcTerm {
        match (under + self.ctx_len).checked_sub(level + 1) {
            Some(ix) => Term::Var(Ix(ix)).rc(),
            None => hole(),
        }
    }

    /// Code `c` in record `env`: the words its free variables name.
    fn code_parts(&mut self, c: CodeId, env: Ref, under: u32) -> Build<'p> {
        let meta = &self.m.code.meta[c as usize];
        let (t, scope, depth) = (meta.core, meta.scope, meta.depth);
        self.term_parts(&Code {
            t,
            scope,
            depth,
            env,
            skip: 0,
            under,
        })
    }

    /// Code: the words its free variables name in its record chain.
    fn term_parts(&mut self, c: &Code<'p>) -> Build<'p> {
        self.vars(c);
        Build::Subst {
            t: c.t,
            skip: c.skip,
        }
    }

    /// Pushes the words code's free variables name in its record chain (a hole for
    /// one the chain does not have), in the order [`substitute`] replaces them.
    fn vars(&mut self, c: &Code<'p>) {
        let m = self.m;
        self.free_vars(c.t, c.skip, c.under, |ix, under| {
            match lookup(m, c.scope, c.depth, c.env, ix) {
                Some(w) => Node::Word(w, under),
                None => Node::Hole,
            }
        });
    }

    /// Pushes what `resolve(ix, under)` makes of each free variable of code `t`
    /// (under `skip` binders of its own), in the order [`substitute`] replaces them:
    /// `ix` is the variable's index seen from outside `t`'s own binders, `under` the
    /// binders of the result around it. The variables of each piece of code are found
    /// once (the thunks of one piece of code are many).
    fn free_vars(
        &mut self,
        t: &'p RcTerm,
        skip: u32,
        under: u32,
        resolve: impl Fn(u32, u32) -> Node<'p>,
    ) {
        let vars = self
            .free
            .entry((Rc::as_ptr(t), skip))
            .or_insert_with(|| free_vars(t, skip));
        let parts = vars.iter().map(|&(ix, around)| resolve(ix, under + around));
        self.kids.extend(parts);
    }

    /// A function value: its lambdas in its record (a recursive local function as
    /// `let go = \... in go`).
    fn closure_parts(&mut self, r: Ref, under: u32) -> Build<'p> {
        let m = self.m;
        let o = m.heap.funs.get(r);
        let env = o.env;
        let fun = &m.code.funs[o.fun as usize];
        let (t, scope, depth) = (fun.core, fun.scope, fun.depth);
        let code = |skip, under| Code {
            t,
            scope,
            depth,
            env,
            skip,
            under,
        };
        if fun.self_slot.is_none() {
            return self.term_parts(&code(0, under));
        }
        // Under the `let` of its own name.
        self.vars(&code(1, under + 1));
        Build::Recursive(t, m.code.slot_binder(fun.layout, 0))
    }

    /// A partial application (`pap`) of function value `fr` to the slots of its first
    /// `taken` parameters: the remaining lambdas, with the bound parameters replaced
    /// by the arguments (a normal form).
    fn fun_applied_parts(&mut self, fr: Ref, taken: u32, pap: Ref, under: u32) -> Build<'p> {
        let m = self.m;
        let o = m.heap.funs.get(fr);
        let env = o.env;
        let fun = &m.code.funs[o.fun as usize];
        let (scope, depth, has_self) = (fun.scope, fun.depth, fun.self_slot.is_some());
        let mut rest = fun.core;
        for _ in 0..taken {
            match &**rest {
                Term::Lam(_, b) => rest = crate::machine::analysis::unann(b),
                _ => break,
            }
        }
        // The word of each bound parameter, by position.
        let mut it = m.heap.words.get(m.heap.paps.get(pap).args).iter();
        let bound: Vec<Option<Val>> = fun
            .params
            .iter()
            .take(taken as usize)
            .map(|p| p.slot.and_then(|_| it.next().copied()))
            .collect();
        let own = if has_self { 1 } else { 0 };
        self.free_vars(rest, 0, under, |j, under| {
            let word = if j < taken {
                bound[(taken - 1 - j) as usize]
            } else if has_self && j == taken {
                return Node::Closure(fr, under);
            } else {
                lookup(m, scope, depth, env, j - taken - own)
            };
            match word {
                Some(w) => Node::Word(w, under),
                None => Node::Hole,
            }
        });
        Build::Subst { t: rest, skip: 0 }
    }

    /// The term a post-order step builds from the parts' terms, `done[base..]`.
    fn build(&mut self, base: usize, build: Build<'p>) -> RcTerm {
        match build {
            Build::Ready(t) => t,
            Build::Part => self.done.pop().unwrap_or_else(hole),
            Build::Apply(head) => self
                .done
                .drain(base..)
                .fold(head, |f, a| Term::App(f, Plicity::Explicit, a).rc()),
            Build::Subst { t, skip } => substitute(t, skip, &mut self.done.drain(base..)),
            Build::Recursive(t, binder) => {
                let lam = substitute(t, 1, &mut self.done.drain(base..));
                let b = match binder {
                    Some(b) => Binder {
                        name: b.name.clone(),
                        plicity: b.plicity,
                        ty: hole(),
                    },
                    None => Binder {
                        name: "go".into(),
                        plicity: Plicity::Explicit,
                        ty: hole(),
                    },
                };
                Term::Let(b, lam, Term::Var(Ix(0)).rc()).rc()
            }
            Build::Match(core) => {
                let mut parts = self.done.drain(base..);
                let scrut = parts.next().unwrap_or_else(hole);
                map_match(core, scrut, &mut |_, _| parts.next().unwrap_or_else(hole))
            }
        }
    }

    /// A node's term is done: remembered by `key` (a word's), and left for its parent.
    fn finish(&mut self, key: Option<MemoKey>, t: RcTerm) {
        if let Some(k) = key {
            self.memo.insert(k, t.clone());
        }
        self.done.push(t);
    }
}

/// A reader as a [`Walk`] (a type of its own, so that the walk's nodes stay private).
struct Reading<'r, 'm, 'p>(&'r mut Reader<'m, 'p>);

impl<'p> Walk for Reading<'_, '_, 'p> {
    type Node = Node<'p>;
    type Exit = Exit<'p>;

    fn enter(&mut self, n: Node<'p>, work: &mut Vec<Node<'p>>) -> Option<Exit<'p>> {
        let r = &mut *self.0;
        let base = r.done.len();
        let (key, build) = match n {
            Node::Word(v, under) => r.enter_word(v, under)?,
            Node::Code(c) => (None, r.term_parts(&c)),
            Node::Closure(f, under) => (None, r.closure_parts(f, under)),
            Node::Hole => (None, Build::Ready(hole())),
        };
        if let Build::Ready(t) = build {
            r.finish(key, t);
            return None;
        }
        // The parts, the first on top.
        work.extend(r.kids.drain(..).rev());
        Some(Exit { base, key, build })
    }

    fn exit(&mut self, x: Exit<'p>) {
        let t = self.0.build(x.base, x.build);
        self.0.finish(x.key, t);
    }
}

/// The free variables of `t` (under `skip` binders of its own), in [`rewrite`]'s
/// order: each one's index seen from outside `t`'s own binders, and how many binders
/// of `t` are around it (`skip` included).
fn free_vars(t: &RcTerm, skip: u32) -> Vec<(u32, u32)> {
    let mut vars = Vec::new();
    rewrite(t, &mut |node, d| match &**node {
        Term::Var(Ix(i)) if *i >= d + skip => {
            vars.push((i - d - skip, d + skip));
            Some(node.clone())
        }
        _ => None,
    });
    vars
}

/// `t` with its free variables (under `skip` binders of its own) replaced by `terms`,
/// in [`rewrite`]'s order: the order [`free_vars`] found them in.
fn substitute(t: &RcTerm, skip: u32, terms: &mut impl Iterator<Item = RcTerm>) -> RcTerm {
    rewrite(t, &mut |node, d| match &**node {
        Term::Var(Ix(i)) if *i >= d + skip => Some(terms.next().unwrap_or_else(hole)),
        _ => None,
    })
}

/// The word a variable of a scope names in a record chain.
fn lookup(m: Sight<'_, '_>, scope: ScopeId, depth: u32, env: Ref, ix: u32) -> Option<Val> {
    match m.code.lookup(scope, ix)? {
        Loc::Slot { depth: dv, slot } => {
            if env == NIL || dv > depth {
                return None;
            }
            let r = m.heap.up(env, depth - dv);
            if r == NIL {
                return None;
            }
            Some(m.heap.slot(r, slot))
        }
        Loc::Erased => None,
    }
}

impl<'a, 'p> Sight<'a, 'p> {
    /// A function value as Spindle source (its lambda, read back in its record).
    pub fn show_function(&self, v: Val) -> String {
        let mut r = Reader::with_budget(*self, 10_000);
        let t = r.word(v, 0);
        crate::core::pretty::term_to_string(self.prog, &[], &t)
    }

    /// A word read back as a core term.
    pub fn read_back(&self, v: Val) -> RcTerm {
        Reader::new(*self).word(v, 0)
    }
}
