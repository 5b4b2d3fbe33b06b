//! Machine code: core terms after analysis, in the form the machine runs fastest.
//!
//! A definition is compiled once, on first use ([`super::compile`]), into [`Code`]
//! nodes in one store. What changes from the core term:
//!
//! - **Resolved variables.** A variable is a slot of the current record
//!   ([`Code::Local`]) or of a record some hops up the parent chain
//!   ([`Code::Outer`]), never a de Bruijn index walked at run time.
//! - **Flat records.** A group of lambdas (`\x y z -> e`, a definition's parameters)
//!   is one [`Fun`] whose call allocates one record for all its parameters; a match
//!   arm binds all its fields in one record; a `let` gets a record of one slot.
//! - **Known calls.** A saturated call of a top-level function is
//!   [`Code::CallDef`]: no closure, no partial application, arguments only for the
//!   relevant parameters, strict ones evaluated before the call.
//! - **Erasure.** Parameters that nothing inspects at run time (types, proofs) have
//!   no slot; known calls do not even build their arguments ([`super::analysis`]).
//! - **Fused operators.** A saturated primitive is one node ([`Code::Bin`],
//!   [`Code::Prim`]); a constructor with all its fields is [`Code::Con`].
//!
//! Every node keeps the core term it came from and the scope it was compiled in
//! ([`Meta`]), so any machine state still reads back to a core term (DESIGN.md
//! section 1).

use crate::core::term::{Binder, ConId, DataId, DefId, ExternId, PrimType, RcTerm};
use crate::prim::Prim;
use crate::syntax::span::Span;
use std::rc::Rc;

/// [`Code::Let`]'s `caps` when the `let` keeps its record.
pub const NO_CAPS: u32 = u32::MAX;

/// Index of a code node in the [`CodeStore`].
pub type CodeId = u32;
/// Index of a record layout in the [`CodeStore`].
pub type LayoutId = u32;
/// Index of a function in the [`CodeStore`].
pub type FunId = u32;
/// Index of a scope in the [`CodeStore`] (see [`Scope`]).
pub type ScopeId = u32;

/// Where an external is applied in the program: the code node of the call, or
/// [`Site::UNKNOWN`]. Calls are shared by place and arguments (LANGUAGE.md 7.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Site(pub u32);

impl Site {
    /// A place not known: never shared.
    pub const UNKNOWN: Site = Site(u32::MAX);
}

/// A run of argument codes in [`CodeStore::args`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Args {
    /// First index.
    pub start: u32,
    /// How many.
    pub len: u32,
}

/// One argument of an application whose head is not known at compile time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ApplyArg {
    /// The argument's code.
    pub code: CodeId,
    /// Whether it was applied implicitly (`f {A}`): constructors, primitives and
    /// externals drop implicit arguments.
    pub implicit: bool,
}

/// A code node. Children are other nodes of the store.
#[derive(Clone, Debug)]
pub enum Code {
    /// Slot `0` of the current record.
    Local(u32),
    /// A slot of the record `hops` parents up.
    Outer {
        /// How many parent links to follow.
        hops: u32,
        /// Which slot.
        slot: u32,
    },
    /// A top-level definition's value.
    Global(DefId),
    /// An `Int` literal.
    Int(i64),
    /// A `Float` literal.
    Float(f64),
    /// A `Char` literal.
    Char(char),
    /// A `String` literal.
    Str(Rc<str>),
    /// A constructor without explicit fields.
    Atom(ConId),
    /// An erased argument: nothing run time inspects.
    Erased,
    /// A hole or an unsolved metavariable (type-level evaluation): a neutral value
    /// that reads back as itself.
    Hole,
    /// `Type n`.
    Universe(u32),
    /// `Int`, `Float`, `String`.
    PrimType(PrimType),
    /// A type constructor (type-level evaluation; applied through [`Code::Apply`]).
    Data(DataId),
    /// A constructor with all its explicit fields (lazy).
    Con {
        /// Which.
        con: ConId,
        /// Its fields.
        args: Args,
    },
    /// A function closed over the current record (or over none, when closed).
    Lam(FunId),
    /// A call of a top-level function with exactly its relevant arguments.
    CallDef {
        /// The function.
        def: DefId,
        /// One argument per parameter with a slot, in order (argument `i` goes to slot
        /// `i` of the call's record).
        args: Args,
        /// Bit `i`: argument `i` is strict (evaluated before the body runs; arguments
        /// past the 64th are passed lazily).
        strict: u64,
    },
    /// An application of anything else (a variable, a partial application, ...): all
    /// arguments, implicit ones included.
    Apply {
        /// The function.
        fun: CodeId,
        /// Its arguments ([`CodeStore::apply_args`]).
        args: Args,
    },
    /// A saturated binary primitive with both arguments strict (arithmetic,
    /// comparisons, `==`).
    Bin {
        /// Which primitive.
        prim: Prim,
        /// Left operand.
        a: CodeId,
        /// Right operand.
        b: CodeId,
        /// Where, for errors.
        span: Span,
    },
    /// Any other saturated primitive.
    Prim {
        /// Which primitive.
        prim: Prim,
        /// Its arguments.
        args: Args,
        /// Where, for errors.
        span: Span,
    },
    /// A primitive, constructor or external without all its arguments, or used as a
    /// value: built as a partial application at run time.
    Head(HeadCode),
    /// `let x = rhs in body`: a record of one slot.
    Let {
        /// The record's layout.
        layout: LayoutId,
        /// The right-hand side (in the outer record, or in the new one when
        /// `recursive`).
        rhs: CodeId,
        /// The body, in the new record.
        body: CodeId,
        /// Whether `rhs` refers to the binding itself.
        recursive: bool,
        /// Whether `body` certainly needs the binding (then `rhs` is evaluated
        /// first, without a thunk).
        strict: bool,
        /// For a strict `let` whose right-hand side uses a lazy binding that the body
        /// does not (`let total = sum rows in show total`): the variables the body
        /// uses, read here into a record of their own ([`LayoutKind::Captures`]), which
        /// is the new record's parent instead of the current one. So the frame that
        /// waits for the right-hand side keeps only what the body needs, and the
        /// binding the right-hand side walks (a long list) is not kept whole. An index
        /// into [`CodeStore::let_caps`], or [`NO_CAPS`].
        caps: u32,
    },
    /// A `match`.
    Match(u32),
    /// A saturated external call.
    Extern {
        /// Which declaration.
        ext: ExternId,
        /// Its explicit arguments.
        args: Args,
    },
    /// `prim_seq a b`: needs `a`, then is `b`.
    Seq {
        /// Needed first.
        a: CodeId,
        /// The value.
        b: CodeId,
    },
    /// A dependent function type (type-level evaluation).
    Pi,
    /// A term in a lazy place compiled twice: as usual (`orig`, what is computed at
    /// hand or suspended), and as `body`, which runs in a record of its own (no
    /// parent) whose slots are the values of `caps` (variable reads in the current
    /// record). A thunk of `orig` that lives long is switched to `body` and such a
    /// record (`Machine::trim_thunks`), so it keeps those values alive and not the
    /// whole chain of records around it (the compiler's `lazy_term`).
    Trim {
        /// The record's layout ([`LayoutKind::Captures`]).
        layout: LayoutId,
        /// The captured variables, read here.
        caps: Args,
        /// The term, compiled in the record of the captures.
        body: CodeId,
        /// The same term compiled in the current record: what is computed at hand
        /// (and what a strict place evaluates), as if it were not trimmed.
        orig: CodeId,
    },
}

/// What the machine's `imm` can compute of a node without evaluation, decided
/// when the node is compiled (superinstructions for the common operands: a slot of
/// the current record, a literal).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Fast {
    /// Nothing special: the general path.
    No,
    /// Slot `0` of the current record.
    Slot(u32),
    /// An `Int` literal.
    Int(i64),
    /// `slot op k`.
    SlotInt(Prim, u32, i64),
    /// `a op b`, two slots.
    SlotSlot(Prim, u32, u32),
    /// A known call of a definition whose body is arithmetic: computed at once when
    /// its arguments are at hand (see `Machine::cheap_call`). Other known calls are
    /// never tried.
    CheapCall,
    /// A known call of a definition whose body is in the cheap subset but which may
    /// call itself ([`Fun::hand`]): computed at once where its value is needed, when
    /// its arguments are at hand.
    HandCall,
    /// A known call of the prelude's `foldlRange` (what fusion makes of folds over
    /// ranges): its loop may run in place (see `Machine::fold_range` in
    /// [`super::loops`]).
    FoldRange,
}

/// A head that is built as a partial application when reached without all its
/// arguments.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum HeadCode {
    /// A constructor.
    Con(ConId),
    /// A primitive.
    Prim(Prim, Span),
    /// An external.
    Extern(ExternId),
}

/// A compiled `match`.
#[derive(Clone, Debug)]
pub struct MatchCode<'p> {
    /// The scrutinee.
    pub scrut: CodeId,
    /// The arms, in order.
    pub arms: Vec<ArmCode>,
    /// The catch-all: its layout (one slot: the scrutinee) and body.
    pub default: Option<(LayoutId, CodeId)>,
    /// The core `match`, for readback and stuck matches.
    pub core: &'p crate::core::term::Match,
    /// Where "no arm matched" is reported.
    pub span: Span,
    /// The `match` node itself.
    pub node: CodeId,
    /// The bodies for `True` and for `False` when the arms are exactly those two
    /// constructors, binding nothing (an `if`, `&&`, `||`): a comparison as the
    /// scrutinee then chooses the body directly ("compare and branch").
    pub bool_arms: Option<(CodeId, CodeId)>,
}

/// One arm of a compiled `match`.
#[derive(Clone, Debug)]
pub struct ArmCode {
    /// What it tests.
    pub test: ArmTest,
    /// The layout of the record binding its fields (`None` when it binds nothing).
    pub layout: Option<LayoutId>,
    /// The body.
    pub body: CodeId,
}

/// The test of an arm.
#[derive(Clone, Debug, PartialEq)]
pub enum ArmTest {
    /// A constructor.
    Con(ConId),
    /// An `Int` literal.
    Int(i64),
    /// A `String` literal.
    Str(Rc<str>),
    /// A `Char` literal.
    Char(char),
}

/// One parameter of a [`Fun`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Whether it is implicit.
    pub implicit: bool,
    /// Its slot in the call's record, or `None` when it is erased.
    pub slot: Option<u32>,
    /// Whether the body certainly evaluates it (strictness analysis).
    pub strict: bool,
}

/// A group of lambdas compiled as one function.
#[derive(Clone, Debug)]
pub struct Fun<'p> {
    /// The parameters, outermost first.
    pub params: Vec<Param>,
    /// The layout of the call's record.
    pub layout: LayoutId,
    /// Slots in the call's record.
    pub slots: u32,
    /// The slot that holds the function itself (a recursive local function refers to
    /// itself through it), if any.
    pub self_slot: Option<u32>,
    /// The body.
    pub body: CodeId,
    /// Whether the body is small and made only of variables, literals, arithmetic,
    /// matches, constructors, non-recursive `let`s, total primitives
    /// (`cheap_prim` in `super::cheap`) and applications of cheap definitions or of
    /// variables, and reaches no call of itself: then a call of it in a lazy place is
    /// computed at once when its arguments are at hand (cheap eagerness,
    /// [`super::cheap`]).
    pub cheap: bool,
    /// Whether the body is what [`Fun::cheap`] asks except that it may reach calls of
    /// itself: where a call's value is needed now, it may be computed at hand, its
    /// tail calls as a loop ([`super::cheap`]). Implied by `cheap`.
    pub hand: bool,
    /// Whether a call of it runs in the numeric tier ([`super::numeric`]): every
    /// parameter is strict and has a slot, and the body is numbers, constructors
    /// without fields, arithmetic, `if`s and known calls whose arguments are all
    /// strict.
    pub numeric: bool,
    /// Whether its body is in the numeric tier's subset (whatever its parameters):
    /// a fold's step the machine loops over runs there ([`super::loops`]).
    pub tier_body: bool,
    /// Whether the body refers to no enclosing record (the closure needs none).
    pub closed: bool,
    /// Bit `k`: a call with all the parameters certainly evaluates parameter `k`
    /// (strictness analysis; for a lambda as for a definition). Read where a known
    /// call's argument is strict under a condition on this function ([`CondArg`]).
    pub strict_mask: u64,
    /// Whether its body names `error`: the strictness analysis counts an arm that
    /// fails as needing everything, which makes `strict_mask` no reason to start an
    /// effect the sequential run may never reach (a spine walk's condition,
    /// [`crate::machine::compile::analysis::SpineCond`], is then not met).
    pub may_fail: bool,
    /// The outermost `Lam` of the group, for readback.
    pub core: &'p RcTerm,
    /// The scope the group is written in (without its own binders).
    pub scope: ScopeId,
    /// The record depth of that scope.
    pub depth: u32,
    /// The definition it belongs to, for messages.
    pub def: Option<DefId>,
    /// When the function is a search along a range, its shape: see [`SkipLoop`].
    pub skip: Option<SkipLoop>,
}

/// A top-level function of the shape
/// `if lo >= hi then e else if test then take else f … (lo + 1) …`, where the call
/// passes every other parameter on unchanged (`filterRange`, `mapFilterRange`, a
/// search along a range): while `test` is computed at hand to `False`, the machine
/// advances `lo` in the call's own record instead of making the call
/// (`Machine::skip_loop`).
#[derive(Copy, Clone, Debug)]
pub struct SkipLoop {
    /// The slot of `lo`.
    pub lo: u32,
    /// The slot of `hi`.
    pub hi: u32,
    /// The `match` of `test` (an `if`).
    pub test: u32,
    /// The body taken when `test` is `True`.
    pub take: CodeId,
}

/// What a record's slots are.
#[derive(Clone, Debug)]
pub struct Layout<'p> {
    /// The binder of each slot (`None` for a slot with no binder: a function's own
    /// slot is named by its `let`).
    pub binders: Vec<Option<&'p crate::core::term::Binder>>,
    /// What kind of record it is.
    pub kind: LayoutKind,
    /// The scope inside its binders (each slot's binder is in it, with the binders
    /// in scope there after it: what a slot's type may mention), and the record
    /// depth of its slots; [`NO_SCOPE`] where not known.
    pub scope: ScopeId,
    /// The record depth of its slots in `scope`.
    pub depth: u32,
}

/// The kinds of records.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LayoutKind {
    /// A function's parameters.
    Params(FunId),
    /// A match arm's fields.
    Fields,
    /// A `let` binding.
    Let,
    /// The scrutinee bound by a catch-all arm.
    Default,
    /// The type checker's context (type-level evaluation).
    Context,
    /// The variables a term in a lazy place captures ([`Code::Trim`]).
    Captures,
}

/// How a de Bruijn variable of a node's core term is found at run time: one entry
/// per binder in scope, innermost first, as a persistent list.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The binder's location.
    pub loc: Loc,
    /// The next binder outward (`u32::MAX` at the end).
    pub next: ScopeId,
}

/// Where a variable lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Loc {
    /// Slot `slot` of the record at depth `depth` (records counted from the root of
    /// the compilation).
    Slot {
        /// Record depth.
        depth: u32,
        /// Slot.
        slot: u32,
    },
    /// Erased: no run-time value.
    Erased,
}

/// What readback needs of a node: the core term it came from, the scope it was
/// compiled in, and the record depth of that scope.
#[derive(Clone, Debug)]
pub struct Meta<'p> {
    /// The core term.
    pub core: &'p RcTerm,
    /// Its scope.
    pub scope: ScopeId,
    /// The depth of the current record in that scope.
    pub depth: u32,
    /// The best source place known for it: its own (an operator, a `match`), or the
    /// definition it belongs to.
    pub span: Span,
    /// The definition it belongs to (`u32::MAX` for code compiled outside one).
    pub def: u32,
}

/// All compiled code of one machine.
#[derive(Default, Debug)]
pub struct CodeStore<'p> {
    /// The nodes.
    pub nodes: Vec<Code>,
    /// Per node: where it came from.
    pub meta: Vec<Meta<'p>>,
    /// Argument runs of [`Code::Con`], [`Code::CallDef`], [`Code::Prim`],
    /// [`Code::Extern`].
    pub args: Vec<CodeId>,
    /// Argument runs of [`Code::Apply`].
    pub apply_args: Vec<ApplyArg>,
    /// Per term compiled both ways ([`Code::Trim`]): its `orig` node to the `Trim`
    /// node, so that a thunk of `orig` that lives long can be trimmed later
    /// (`Machine::trim_thunks`).
    pub trim_twins: rustc_hash::FxHashMap<CodeId, CodeId>,
    /// The captures of trimmed strict `let`s ([`Code::Let`]'s `caps`): their
    /// record's layout and the variable reads.
    pub let_caps: Vec<(LayoutId, Args)>,
    /// Matches.
    pub matches: Vec<MatchCode<'p>>,
    /// Functions.
    pub funs: Vec<Fun<'p>>,
    /// Record layouts.
    pub layouts: Vec<Layout<'p>>,
    /// Scopes.
    pub scopes: Vec<Scope>,
    /// Per scope: the name of its binder (what `:stack` names a variable by).
    pub scope_names: Vec<&'p str>,
    /// Per node: whether it refers to no record outside itself (a thunk of it needs
    /// no context, and so keeps none alive).
    pub closed: Vec<bool>,
    /// Per node: its superinstruction ([`Fast`]).
    pub fast: Vec<Fast>,
    /// Per definition asked about: whether its body is cheap
    /// ([`Fun::cheap`]; `false` while it is being decided, so that a definition that
    /// reaches itself is not).
    pub cheap_defs: rustc_hash::FxHashMap<DefId, bool>,
    /// The same for [`Fun::hand`] (`true` while being decided).
    pub hand_defs: rustc_hash::FxHashMap<DefId, bool>,
    /// Per definition (by index): the arguments of its known calls ([`Code::CallDef`])
    /// that are strict under a condition on the function another argument passes
    /// ([`CondArg`]); empty for most.
    pub cond_args: Vec<Box<[CondArg]>>,
}

/// An argument of a known call that is strict when the function value at another
/// argument certainly evaluates its argument at `pos` when applied to `nargs`
/// arguments (strictness analysis, [`crate::machine::compile::analysis::CondStrict`]):
/// `foldl`'s accumulator, given a step that needs its accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CondArg {
    /// The argument (an index into the call's arguments).
    pub arg: u32,
    /// The argument holding the function.
    pub fun: u32,
    /// Which of the function's parameters must be strict.
    pub pos: u32,
    /// How many arguments the callee applies the function to.
    pub nargs: u32,
}

/// The end of a scope list.
pub const NO_SCOPE: ScopeId = u32::MAX;

impl<'p> CodeStore<'p> {
    /// Where the call at `site` is written (a span in no file when not known).
    pub fn site_span(&self, site: Site) -> crate::syntax::span::Span {
        self.meta
            .get(site.0 as usize)
            .map(|m| m.span)
            .unwrap_or(crate::syntax::span::Span::new(
                crate::syntax::span::FileId(0),
                0,
                0,
            ))
    }

    /// A node.
    #[inline(always)]
    pub fn node(&self, c: CodeId) -> &Code {
        &self.nodes[c as usize]
    }

    /// Whether node `c` is a call the machine tries to compute at hand where its value
    /// is needed (a `match` on it, a search's test): an application, or a known call
    /// of a function marked cheap or `hand`.
    #[inline(always)]
    pub fn call_at_hand(&self, c: CodeId) -> bool {
        match self.nodes[c as usize] {
            Code::Apply { .. } => true,
            Code::CallDef { .. } => {
                matches!(self.fast[c as usize], Fast::CheapCall | Fast::HandCall)
            }
            _ => false,
        }
    }

    /// The codes of an argument run.
    #[inline(always)]
    pub fn args(&self, a: Args) -> &[CodeId] {
        &self.args[a.start as usize..(a.start + a.len) as usize]
    }

    /// The arguments of an [`Code::Apply`].
    #[inline(always)]
    pub fn apply_args(&self, a: Args) -> &[ApplyArg] {
        &self.apply_args[a.start as usize..(a.start + a.len) as usize]
    }

    /// A function.
    #[inline(always)]
    pub fn fun(&self, f: FunId) -> &Fun<'p> {
        &self.funs[f as usize]
    }

    /// A match.
    #[inline(always)]
    pub fn matc(&self, m: u32) -> &MatchCode<'p> {
        &self.matches[m as usize]
    }

    /// A layout.
    #[inline(always)]
    pub fn layout(&self, l: LayoutId) -> &Layout<'p> {
        &self.layouts[l as usize]
    }

    /// The location of de Bruijn variable `ix` in a scope (`None` if the scope is
    /// shorter: a variable of an enclosing scope the compilation does not see).
    pub fn lookup(&self, mut scope: ScopeId, ix: u32) -> Option<Loc> {
        for _ in 0..ix {
            if scope == NO_SCOPE {
                return None;
            }
            scope = self.scopes[scope as usize].next;
        }
        (scope != NO_SCOPE).then(|| self.scopes[scope as usize].loc)
    }

    /// A binder of a layout's slot, for readback and `:stack`.
    pub fn slot_binder(&self, l: LayoutId, slot: u32) -> Option<&'p Binder> {
        self.layouts[l as usize]
            .binders
            .get(slot as usize)
            .copied()
            .flatten()
    }

    /// The names of the binders in scope at the binder of slot `slot` of layout `l`
    /// (those its type may mention), outermost first: the context a slot's type is
    /// shown in. Empty where the layout's scope is not known.
    pub fn names_outside_slot(&self, l: LayoutId, slot: u32) -> Vec<&'p str> {
        let layout = &self.layouts[l as usize];
        let own = Loc::Slot {
            depth: layout.depth,
            slot,
        };
        let mut at = layout.scope;
        while at != NO_SCOPE && self.scopes[at as usize].loc != own {
            at = self.scopes[at as usize].next;
        }
        let mut names = Vec::new();
        if at == NO_SCOPE {
            return names;
        }
        at = self.scopes[at as usize].next;
        while at != NO_SCOPE {
            names.push(self.scope_names[at as usize]);
            at = self.scopes[at as usize].next;
        }
        names.reverse();
        names
    }
}
