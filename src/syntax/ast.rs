//! The surface AST: what the parser produces, close to what the user wrote.
//!
//! Every node carries a [`Span`]. Nodes live in a `bumpalo` arena owned by the caller
//! (one per file or REPL input), so a tree is a set of `&'a` references and is freed in
//! one go, with no recursive `Drop` (a 100,000-element list literal or a deeply nested
//! expression costs no native stack to free).
//!
//! Sugar stays visible here (`if`, operators, tuples, list literals, `()`, `&&`): the
//! resolver (later the elaborator) turns it into core terms.

use crate::syntax::span::Span;

/// The largest universe level a program may write (`Type 1000`; LANGUAGE.md section 3).
/// Levels are bounded so that no arithmetic on them can wrap or saturate: the checker
/// never forms a level above this one plus one (the type of `Type 1000`).
pub const MAX_UNIVERSE_LEVEL: u32 = 1000;

/// A name as written, with its place.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ident<'a> {
    /// The text of the name.
    pub name: &'a str,
    /// Where it is written.
    pub span: Span,
}

/// Whether a binder or an argument is explicit (`(x : A)`, `f x`) or implicit
/// (`{x : A}`, `f {A}`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Plicity {
    /// Written by the user at every use.
    Explicit,
    /// Inserted and solved by the type checker unless given with braces.
    Implicit,
}

/// One source file (or one REPL input): a sequence of declarations.
#[derive(Debug)]
pub struct Module<'a> {
    /// The declarations, in source order.
    pub decls: &'a [Decl<'a>],
}

/// A top-level declaration.
#[derive(Debug)]
pub enum Decl<'a> {
    /// `import "path"`: the path is relative to the importing file.
    Import {
        /// The path, escapes already interpreted.
        path: &'a str,
        /// The whole declaration.
        span: Span,
    },
    /// `data Name params = Ctor fields | ...`, a `record` or an `interface` (both kept
    /// as a data type of one constructor whose fields have names).
    Data {
        /// What the declaration was written as.
        kind: DataKind,
        /// The type constructor's name.
        name: Ident<'a>,
        /// Its parameters (`(a : Type)`); implicit in the constructors.
        params: &'a [Param<'a>],
        /// The alternatives, possibly none (`data Void`).
        ctors: &'a [CtorDecl<'a>],
        /// The whole declaration.
        span: Span,
    },
    /// `def name params : ret = body`, or an `instance` (made into a `def` by the
    /// parser, see [`DefRole`]).
    Def {
        /// Whether this is an ordinary definition or an interface's instance.
        role: DefRole,
        /// The defined name.
        name: Ident<'a>,
        /// Parameters before the colon, explicit, implicit or untyped.
        params: &'a [Param<'a>],
        /// The declared result type, if given.
        ret: Option<&'a Expr<'a>>,
        /// The right-hand side.
        body: &'a Expr<'a>,
        /// The whole declaration.
        span: Span,
    },
    /// `extern name : T`.
    Extern {
        /// The host external's name.
        name: Ident<'a>,
        /// Its declared type.
        ty: &'a Expr<'a>,
        /// The whole declaration.
        span: Span,
    },
}

impl Decl<'_> {
    /// The span of the whole declaration.
    pub fn span(&self) -> Span {
        match self {
            Decl::Import { span, .. }
            | Decl::Data { span, .. }
            | Decl::Def { span, .. }
            | Decl::Extern { span, .. } => *span,
        }
    }
}

/// What a [`Decl::Data`] was written as.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DataKind {
    /// `data`.
    Data,
    /// `record Name = { field : T, ... }`: one constructor with named fields.
    Record,
    /// `interface Name (a : Type) where method : T ...`: a record of methods, the
    /// dictionary that instance arguments pass.
    Interface,
}

/// What a [`Decl::Def`] was written as.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DefRole {
    /// `def`.
    Plain,
    /// `total def`: an ordinary definition that must be checked total (issue 31).
    Total,
    /// `instance`: a dictionary the elaborator finds by its type.
    Instance,
    /// An instance written by `deriving`.
    Derived,
    /// A method of an `interface` (made by the parser from the interface).
    Method,
}

impl DefRole {
    /// Whether the definition is an instance, found by its type.
    pub fn is_instance(self) -> bool {
        matches!(self, DefRole::Instance | DefRole::Derived)
    }
}

/// One constructor of a `data` declaration.
#[derive(Debug)]
pub struct CtorDecl<'a> {
    /// The constructor's name (uppercase).
    pub name: Ident<'a>,
    /// Field types, each an atom-level type expression (any type in a record).
    pub fields: &'a [Expr<'a>],
    /// The fields' names, one per field, in a record or an interface; empty otherwise.
    pub field_names: &'a [Ident<'a>],
    /// The constructor with its fields.
    pub span: Span,
}

/// A binder of a `def`, `let`, lambda or `data` declaration.
#[derive(Debug, Clone, Copy)]
pub struct Param<'a> {
    /// The bound name (`_` when unused).
    pub name: Ident<'a>,
    /// The annotation, if written.
    pub ty: Option<&'a Expr<'a>>,
    /// `(x : A)` / `x` versus `{x : A}` / `{x}`.
    pub plicity: Plicity,
    /// The binder as written, braces or parentheses included.
    pub span: Span,
}

/// An expression with its place.
#[derive(Debug)]
pub struct Expr<'a> {
    /// What kind of expression.
    pub kind: ExprKind<'a>,
    /// Where it is written.
    pub span: Span,
}

/// Binary operators, in the order of LANGUAGE.md section 3.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `++`
    Concat,
    /// `::` (cons: the prelude's `Cons`)
    Cons,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `^`
    Pow,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Concat => "++",
            BinOp::Cons => "::",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Pow => "^",
        }
    }
}

/// The forms of expressions (LANGUAGE.md section 3).
#[derive(Debug)]
pub enum ExprKind<'a> {
    /// A variable, definition or constructor name.
    Var(&'a str),
    /// An integer literal (already negated if written `-3`).
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A string literal, escapes interpreted.
    Str(&'a str),
    /// A character literal (`'a'`), escapes interpreted.
    Char(char),
    /// `Type` (level 0) or `Type n`.
    Universe(u32),
    /// `_`: a term for the type checker to infer.
    Hole,
    /// `?name` or `?`: a typed hole.
    TypedHole(Option<&'a str>),
    /// `\params -> body`.
    Lam {
        /// At least one parameter.
        params: &'a [Param<'a>],
        /// The body.
        body: &'a Expr<'a>,
    },
    /// `(x : A) -> B`, `{x : A} -> B` or `A -> B` (then `name` is `None`). Its fields
    /// live beside the node, in the arena, so that they do not make every node larger.
    Pi(&'a PiExpr<'a>),
    /// `let name params : ret = rhs in body` (always recursive); its fields live beside
    /// the node, as a `Pi`'s do.
    Let(&'a LetExpr<'a>),
    /// `if cond then then_ else else_`.
    If {
        /// Must be a `Bool`.
        cond: &'a Expr<'a>,
        /// Taken when `cond` is `True`.
        then_: &'a Expr<'a>,
        /// Taken when `cond` is `False`.
        else_: &'a Expr<'a>,
    },
    /// `match scrut with | p -> e ...`.
    Match {
        /// The value matched on.
        scrut: &'a Expr<'a>,
        /// The arms, tried top to bottom.
        arms: &'a [Arm<'a>],
    },
    /// `lhs op rhs`.
    Binary {
        /// Which operator.
        op: BinOp,
        /// Where the operator symbol is written (for runtime errors such as division
        /// by zero).
        op_span: Span,
        /// Left operand.
        lhs: &'a Expr<'a>,
        /// Right operand.
        rhs: &'a Expr<'a>,
    },
    /// `fun arg` or `fun {arg}`.
    App {
        /// The function.
        fun: &'a Expr<'a>,
        /// The argument.
        arg: &'a Expr<'a>,
        /// `{arg}` is implicit.
        plicity: Plicity,
    },
    /// `(expr : ty)`.
    Ann {
        /// The annotated expression.
        expr: &'a Expr<'a>,
        /// Its type.
        ty: &'a Expr<'a>,
    },
    /// `()`.
    Unit,
    /// `(a, b, ...)` with at least two elements; `(a, b, c)` means `(a, (b, c))`.
    Tuple(&'a [Expr<'a>]),
    /// `[a, b, ...]`, possibly empty.
    List(&'a [Expr<'a>]),
    /// `e.field`: a record's field.
    Field {
        /// The record.
        expr: &'a Expr<'a>,
        /// The field's name (beside the node, so that it does not make every node
        /// larger).
        field: &'a Ident<'a>,
    },
    /// `{ field = e, ... }`: a record value (`{}` for a record without fields).
    Record(&'a [FieldInit<'a>]),
    /// `{ e | field = v, ... }`: a copy of the record `e` with some fields replaced.
    Update {
        /// The record copied.
        expr: &'a Expr<'a>,
        /// The fields replaced.
        fields: &'a [FieldInit<'a>],
    },
}

/// `field = e` in a record value or update.
#[derive(Debug)]
pub struct FieldInit<'a> {
    /// The field's name.
    pub name: Ident<'a>,
    /// Its value.
    pub value: &'a Expr<'a>,
}

/// The fields of [`ExprKind::Pi`].
#[derive(Debug)]
pub struct PiExpr<'a> {
    /// The bound name of a dependent arrow.
    pub name: Option<Ident<'a>>,
    /// Explicit or implicit.
    pub plicity: Plicity,
    /// The domain.
    pub dom: &'a Expr<'a>,
    /// The codomain (may mention `name`).
    pub cod: &'a Expr<'a>,
}

/// The fields of [`ExprKind::Let`].
#[derive(Debug)]
pub struct LetExpr<'a> {
    /// The bound name.
    pub name: Ident<'a>,
    /// Function parameters, as in `let f (x : A) = ...`.
    pub params: &'a [Param<'a>],
    /// The annotation, if any.
    pub ret: Option<&'a Expr<'a>>,
    /// The bound expression; may refer to `name`.
    pub rhs: &'a Expr<'a>,
    /// The scope of the binding.
    pub body: &'a Expr<'a>,
}

/// One arm of a `match`.
#[derive(Debug)]
pub struct Arm<'a> {
    /// The pattern.
    pub pat: &'a Pat<'a>,
    /// The guard of `| p if c -> e`: the arm is taken only when it is `True`.
    pub guard: Option<&'a Expr<'a>>,
    /// The arm's `|` starts a line no further right than an arm of an enclosing
    /// `match` whose last arm this `match` is (written without parentheses): it was
    /// perhaps meant for the enclosing one (for a hint when the arm does not fit).
    pub outdented: bool,
    /// The expression chosen when the pattern matches.
    pub body: &'a Expr<'a>,
    /// The whole arm.
    pub span: Span,
}

/// A pattern with its place.
#[derive(Debug)]
pub struct Pat<'a> {
    /// What kind of pattern.
    pub kind: PatKind<'a>,
    /// Where it is written.
    pub span: Span,
}

impl<'a> Pat<'a> {
    /// The variables the pattern binds, left to right.
    pub fn variables(&self) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut work = vec![self];
        while let Some(p) = work.pop() {
            match &p.kind {
                PatKind::Var(name) => out.push(*name),
                PatKind::Con { args, .. } => work.extend(args.iter().rev()),
                PatKind::Record { fields, .. } => work.extend(fields.iter().rev().map(|f| &f.1)),
                PatKind::Tuple(items) | PatKind::List(items) => work.extend(items.iter().rev()),
                PatKind::Cons { head, tail } => work.extend([*tail, *head]),
                PatKind::Wild
                | PatKind::Int(_)
                | PatKind::Str(_)
                | PatKind::Char(_)
                | PatKind::Unit => {}
            }
        }
        out
    }
}

/// The forms of patterns (LANGUAGE.md section 5).
#[derive(Debug)]
pub enum PatKind<'a> {
    /// A lowercase name: matches anything and binds it.
    Var(&'a str),
    /// `_`: matches anything.
    Wild,
    /// An integer literal (possibly negative).
    Int(i64),
    /// A string literal.
    Str(&'a str),
    /// A character literal.
    Char(char),
    /// An uppercase constructor applied to sub-patterns (maybe none).
    Con {
        /// The constructor.
        name: Ident<'a>,
        /// Sub-patterns, one per explicit field.
        args: &'a [Pat<'a>],
    },
    /// `()`.
    Unit,
    /// `(p1, p2, ...)`, at least two; nests to the right like tuple expressions.
    Tuple(&'a [Pat<'a>]),
    /// `[p1, ...]`, possibly empty.
    List(&'a [Pat<'a>]),
    /// `{ field = p, ... }` or `{ field = p, .. }` (the other fields ignored); `field`
    /// alone stands for `field = field`.
    Record {
        /// The fields matched, with their patterns.
        fields: &'a [(Ident<'a>, Pat<'a>)],
        /// Whether `..` ends it (otherwise every field must be named).
        rest: bool,
    },
    /// `p :: ps`: the prelude's `Cons p ps`; right-associative.
    Cons {
        /// The first element.
        head: &'a Pat<'a>,
        /// The rest of the list.
        tail: &'a Pat<'a>,
    },
}
