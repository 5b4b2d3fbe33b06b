//! A whole resolved program: the tables that [`Term::Def`], [`Term::Data`],
//! [`Term::Con`] and [`Term::Extern`] point into.
//!
//! A program is the prelude plus the entry file plus everything it imports, flattened:
//! one table of definitions, one of data types and one of externals, in load order
//! (prelude first). Top-level definitions are mutually recursive through these tables,
//! so core terms need no top-level `let`.
//!
//! [`Term::Def`]: crate::core::term::Term::Def
//! [`Term::Data`]: crate::core::term::Term::Data
//! [`Term::Con`]: crate::core::term::Term::Con
//! [`Term::Extern`]: crate::core::term::Term::Extern

use crate::core::term::{
    Binder, CaseArm, CasePat, ConId, DataId, DefId, ExternId, Ix, Match, Name, Plicity, RcTerm,
    Term,
};
use crate::syntax::span::Span;
use std::rc::Rc;

/// The prelude's external that the unevaluated rest of a stream calls: the machine
/// treats its calls as quiet (they read on, they do not start work), the call layer
/// as a stream's next items.
pub const STREAM_NEXT: &str = "prim_streamNext";

/// One `def`.
#[derive(Debug, Clone)]
pub struct DefDecl {
    /// The defined name.
    pub name: Name,
    /// Its type: the parameters as a `Pi` telescope ending in the result type (a hole
    /// where not written).
    pub ty: RcTerm,
    /// Its value: the parameters as lambdas around the body.
    pub body: RcTerm,
    /// Where the name is written.
    pub span: Span,
    /// What the definition was written as (an instance, an interface's method); kept
    /// for printing and browsing, not encoded (a decoded definition is `Plain`).
    pub role: crate::syntax::ast::DefRole,
}

/// One `data` declaration.
#[derive(Debug, Clone)]
pub struct DataDecl {
    /// The type constructor's name.
    pub name: Name,
    /// The parameters, each in the scope of the earlier ones.
    pub params: Vec<Binder>,
    /// The constructors, in declaration order ([`ConId::index`]).
    pub ctors: Vec<CtorDecl>,
    /// Whether this is an `interface`: a record of methods whose values the elaborator
    /// finds by type (instance arguments).
    pub interface: bool,
    /// Whether this is a `record` or an `interface`: one constructor, built and
    /// matched by field name, printed as `{ f = v }`.
    pub record: bool,
    /// Where the name is written.
    pub span: Span,
}

/// One constructor of a data type.
#[derive(Debug, Clone)]
pub struct CtorDecl {
    /// The constructor's name.
    pub name: Name,
    /// The field types, each in the scope of the data type's parameters and the earlier
    /// fields (so index 0 in field `i` is field `i - 1`, or the last parameter).
    pub fields: Vec<RcTerm>,
    /// The fields' names in a record (or interface), one per field; empty for a
    /// constructor with positional fields. A record prints and encodes by them.
    pub field_names: Vec<Name>,
    /// Where the name is written.
    pub span: Span,
}

/// One `extern` declaration.
#[derive(Debug, Clone)]
pub struct ExternDecl {
    /// The host external's name (`run`, `delay`, ...), known to `crate::external`.
    pub name: Name,
    /// The declared type.
    pub ty: RcTerm,
    /// Where the name is written.
    pub span: Span,
}

/// The prelude types, constructors and definitions that syntax refers to directly: `if`
/// and `&&` match on `Bool`, `()` is `Unit`'s constructor, `(a, b)` is `MkPair`, list
/// literals are `Cons`/`Nil`, `++` on lists is `append`. Printing uses them too (`()`,
/// tuples, lists, `True`, `xs ++ ys`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtins {
    /// `Bool`.
    pub bool_: DataId,
    /// `False`.
    pub false_: ConId,
    /// `True`.
    pub true_: ConId,
    /// `Unit`.
    pub unit: DataId,
    /// `()`.
    pub unit_con: ConId,
    /// `Pair`.
    pub pair: DataId,
    /// `MkPair`.
    pub mk_pair: ConId,
    /// `List`.
    pub list: DataId,
    /// `Nil`.
    pub nil: ConId,
    /// `Cons`.
    pub cons: ConId,
    /// `Maybe`.
    pub maybe: DataId,
    /// `Nothing`.
    pub nothing: ConId,
    /// `Just`.
    pub just: ConId,
    /// The prelude's `append : {a : Type} -> List a -> List a -> List a`, which `xs ++ ys`
    /// on lists elaborates to (`append {A} xs ys`); `None` if the prelude has none (a
    /// test's own prelude), when `++` works on strings only. A file's own `append`
    /// shadows the name, never this.
    pub append: Option<DefId>,
}

/// A resolved program.
#[derive(Debug, Clone)]
pub struct Program {
    /// Every definition, prelude first.
    pub defs: Vec<DefDecl>,
    /// Every data type, prelude first.
    pub datas: Vec<DataDecl>,
    /// Every external declaration.
    pub externs: Vec<ExternDecl>,
    /// The prelude's well-known types and constructors.
    pub builtins: Builtins,
    /// The entry file's `main`, if it has one.
    pub main: Option<DefId>,
    /// The bodies the machine runs instead of `body`, per definition, where they
    /// differ (fusion of strict folds, `crate::machine::fuse`): computed once, by the
    /// first machine that runs the program, and kept here because compiled code
    /// refers into them for as long as the program lives.
    pub run_bodies: [std::cell::OnceCell<Vec<Option<RcTerm>>>; 2],
    /// The bodies after inlining through known dictionaries
    /// (`crate::machine::compile::inline`), per definition, where it changed them:
    /// the analyses, fusion and code generation start from these when inlining is on
    /// (`run_bodies[1]` is fused from them, `run_bodies[0]` from the bodies written).
    pub inlined_bodies: std::cell::OnceCell<Vec<Option<RcTerm>>>,
    /// The prelude's collection types ([`super::collections`]), found once.
    pub collections: std::cell::OnceCell<Option<super::collections::Collections>>,
}

impl Builtins {
    /// `if cond then then_ else else_`: `match cond with | True -> then_ | False ->
    /// else_`, as the elaborator writes it (and passes that make terms, like fusion).
    pub fn if_then_else(&self, cond: RcTerm, then_: RcTerm, else_: RcTerm, span: Span) -> RcTerm {
        let arm = |con, body| CaseArm {
            pat: CasePat::Con(con, Vec::new()),
            body,
        };
        Term::Match(Box::new(Match {
            scrut: cond,
            arms: vec![arm(self.true_, then_), arm(self.false_, else_)],
            default: None,
            span,
        }))
        .rc()
    }
}

impl Program {
    /// The definition of the prelude (or program) with this name.
    pub fn def_named(&self, name: &str) -> Option<DefId> {
        self.defs
            .iter()
            .position(|d| &*d.name == name)
            .map(|i| DefId(i as u32))
    }

    /// The prelude's collection types, if the prelude has them.
    pub fn collections(&self) -> Option<&super::collections::Collections> {
        self.collections
            .get_or_init(|| super::collections::Collections::find(self))
            .as_ref()
    }

    /// The definition with this id.
    pub fn def(&self, id: DefId) -> &DefDecl {
        &self.defs[id.0 as usize]
    }

    /// The data type with this id.
    pub fn data(&self, id: DataId) -> &DataDecl {
        &self.datas[id.0 as usize]
    }

    /// The constructor with this id.
    pub fn con(&self, id: ConId) -> &CtorDecl {
        &self.data(id.data).ctors[id.index as usize]
    }

    /// The external declaration with this id.
    pub fn external(&self, id: ExternId) -> &ExternDecl {
        &self.externs[id.0 as usize]
    }

    /// The type of a data type, `(params) -> Type`, as if it lived in `Type`: a data
    /// type whose fields hold types lives higher (`data Box = MkBox Type` is in
    /// `Type 1`), and the type checker, which computes that level, uses
    /// [`Program::data_type_at`] with it.
    pub fn data_type(&self, id: DataId) -> RcTerm {
        self.data_type_at(id, 0)
    }

    /// The type of a data type living in `Type level`: `(params) -> Type level`.
    pub fn data_type_at(&self, id: DataId, level: u32) -> RcTerm {
        self.data(id)
            .params
            .iter()
            .rev()
            .fold(Term::Universe(level).rc(), |cod, b| {
                Term::Pi(b.clone(), cod).rc()
            })
    }

    /// The type of a constructor: `{params} -> fields -> D params`.
    pub fn con_type(&self, id: ConId) -> RcTerm {
        let data = self.data(id.data);
        let fields = &self.con(id).fields;
        let n = data.params.len() as u32;
        let k = fields.len() as u32;
        let result = (0..n).fold(Term::Data(id.data).rc(), |f, i| {
            Term::App(f, Plicity::Explicit, Term::Var(Ix(k + n - 1 - i)).rc()).rc()
        });
        let with_fields = fields.iter().rev().fold(result, |cod, f| {
            Term::Pi(
                Binder {
                    name: Rc::from("_"),
                    plicity: Plicity::Explicit,
                    ty: f.clone(),
                },
                cod,
            )
            .rc()
        });
        data.params.iter().rev().fold(with_fields, |cod, b| {
            Term::Pi(
                Binder {
                    name: b.name.clone(),
                    plicity: Plicity::Implicit,
                    ty: b.ty.clone(),
                },
                cod,
            )
            .rc()
        })
    }
}

/// How many entries each of a program's tables has, or a prefix of each (the prelude's
/// declarations come first in every table, so counts mark where they end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeclCounts {
    /// Entries of [`Program::datas`].
    pub datas: usize,
    /// Entries of [`Program::externs`].
    pub externs: usize,
    /// Entries of [`Program::defs`].
    pub defs: usize,
}

impl Program {
    /// The size of each table.
    pub fn counts(&self) -> DeclCounts {
        DeclCounts {
            datas: self.datas.len(),
            externs: self.externs.len(),
            defs: self.defs.len(),
        }
    }
}
