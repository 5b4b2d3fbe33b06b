//! The order declarations are checked in: dependencies first.
//!
//! Every top-level name can be used anywhere (LANGUAGE.md section 2), and types may
//! compute: a type that calls a function defined further down the file needs that
//! function checked (and its body known) first. So the declarations form a graph, an
//! edge from each declaration to every global its text names (a constructor names its
//! data type; `++` names the prelude's `append`, which it means on lists), and they are
//! checked one strongly connected component at a time, dependencies first (Tarjan's
//! algorithm, with an explicit stack): mutually recursive declarations are checked
//! together, data types, then externals, then the definitions' types, then their
//! bodies (type-level definitions first).
//!
//! The walk over each declaration's text is a loop with its own stack (a chain of ten
//! thousand `let`s costs no native stack), and it knows which names are local, so a
//! parameter that shadows a global is no false edge.

use super::*;
use crate::syntax::ast::{Pat, PatKind};
use std::collections::HashMap;

/// One declaration of the program, as a node of the dependency graph.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::check) enum Node {
    /// A data type (its constructors are part of it).
    Data(DataId),
    /// An external.
    Extern(ExternId),
    /// A definition.
    Def(DefId),
}

/// One step of the walk over a declaration's text.
enum Step<'s> {
    Expr(&'s Expr<'s>),
    Pat(&'s Pat<'s>),
    /// A local name comes into scope.
    Bind(&'s str),
    /// Local names leave scope.
    Unbind(usize),
}

/// What a name means in an expression, and where a type is expected when that differs
/// (a type that shares its name with a constructor).
type Meanings = (Option<Global>, Option<Global>);

/// The globals a declaration's text refers to, walking it with the names it binds.
struct Walk<'s, 'r> {
    /// How many local binders of each name are in scope.
    locals: HashMap<&'s str, u32>,
    /// The names bound, innermost last (for unbinding); `None` for one that hides no
    /// global.
    bound: Vec<Option<&'s str>>,
    steps: Vec<Step<'s>>,
    /// What a name means in an expression, and where a type is expected when that
    /// differs.
    resolve: &'r dyn Fn(&str) -> Meanings,
    /// What `++` may elaborate to besides a primitive: the prelude's `append` (on
    /// lists), whose type must be known first.
    concat: Option<Global>,
    /// What `<`, `<=`, `>`, `>=` elaborate to on a type with an `Ord` instance.
    ordered: Vec<Global>,
    out: Vec<Global>,
}

impl<'s> Walk<'s, '_> {
    fn name(&mut self, name: &str) {
        if self.locals.contains_key(name) {
            return;
        }
        let (value, ty) = (self.resolve)(name);
        self.out.extend(value);
        self.out.extend(ty);
    }

    /// Queues `params` (each annotation in the scope of the earlier ones), then `then`
    /// in the scope of all of them, then their unbinding.
    fn params(&mut self, params: &'s [Param<'s>], then: &[&'s Expr<'s>]) {
        // Steps run last-pushed first.
        self.steps.push(Step::Unbind(params.len()));
        for e in then.iter().rev() {
            self.steps.push(Step::Expr(e));
        }
        for p in params.iter().rev() {
            self.steps.push(Step::Bind(p.name.name));
            if let Some(ty) = p.ty {
                self.steps.push(Step::Expr(ty));
            }
        }
    }

    fn run(&mut self) {
        while let Some(step) = self.steps.pop() {
            match step {
                Step::Bind(name) => {
                    // Only a local that hides a global matters (most do not: they are
                    // not tracked, so a hundred thousand parameters cost no table).
                    if (self.resolve)(name).0.is_some() {
                        *self.locals.entry(name).or_default() += 1;
                        self.bound.push(Some(name));
                    } else {
                        self.bound.push(None);
                    }
                }
                Step::Unbind(n) => {
                    for _ in 0..n {
                        let Some(bound) = self.bound.pop() else { break };
                        if let Some(name) = bound
                            && let Some(count) = self.locals.get_mut(name)
                        {
                            *count -= 1;
                            if *count == 0 {
                                self.locals.remove(name);
                            }
                        }
                    }
                }
                Step::Pat(p) => self.pattern(p),
                Step::Expr(e) => self.expr(e),
            }
        }
    }

    fn pattern(&mut self, p: &'s Pat<'s>) {
        match &p.kind {
            PatKind::Con { name, args } => {
                self.name(name.name);
                for a in args.iter() {
                    self.steps.push(Step::Pat(a));
                }
            }
            PatKind::Tuple(items) | PatKind::List(items) => {
                for a in items.iter() {
                    self.steps.push(Step::Pat(a));
                }
            }
            PatKind::Record { fields, .. } => {
                for (_, a) in fields.iter() {
                    self.steps.push(Step::Pat(a));
                }
            }
            PatKind::Cons { head, tail } => {
                self.steps.push(Step::Pat(tail));
                self.steps.push(Step::Pat(head));
            }
            PatKind::Var(_)
            | PatKind::Wild
            | PatKind::Int(_)
            | PatKind::Str(_)
            | PatKind::Char(_)
            | PatKind::Unit => {}
        }
    }

    fn expr(&mut self, e: &'s Expr<'s>) {
        match &e.kind {
            ExprKind::Var(name) => self.name(name),
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Char(_)
            | ExprKind::Universe(_)
            | ExprKind::Hole
            | ExprKind::TypedHole(_)
            | ExprKind::Unit => {}
            ExprKind::Lam { params, body } => self.params(params, &[body]),
            ExprKind::Pi(PiExpr { name, dom, cod, .. }) => {
                let bound = name.map(|n| n.name).unwrap_or("_");
                self.steps.push(Step::Unbind(1));
                self.steps.push(Step::Expr(cod));
                self.steps.push(Step::Bind(bound));
                self.steps.push(Step::Expr(dom));
            }
            ExprKind::Let(LetExpr {
                name,
                params,
                ret,
                rhs,
                body,
            }) => {
                // Recursive: the name is in scope in its right-hand side too.
                self.steps.push(Step::Unbind(1));
                self.steps.push(Step::Expr(body));
                let then: Vec<&Expr<'_>> = ret.iter().copied().chain([*rhs]).collect();
                self.params(params, &then);
                self.steps.push(Step::Bind(name.name));
            }
            ExprKind::If { cond, then_, else_ } => {
                self.steps.push(Step::Expr(else_));
                self.steps.push(Step::Expr(then_));
                self.steps.push(Step::Expr(cond));
            }
            ExprKind::Match { scrut, arms } => {
                for arm in arms.iter().rev() {
                    let vars = arm.pat.variables();
                    self.steps.push(Step::Unbind(vars.len()));
                    self.steps.push(Step::Expr(arm.body));
                    if let Some(guard) = arm.guard {
                        self.steps.push(Step::Expr(guard));
                    }
                    for v in vars {
                        self.steps.push(Step::Bind(v));
                    }
                    self.steps.push(Step::Pat(arm.pat));
                }
                self.steps.push(Step::Expr(scrut));
            }
            ExprKind::Binary { op, lhs, rhs, .. } => {
                if *op == BinOp::Concat
                    && let Some(g) = self.concat
                {
                    self.out.push(g);
                }
                if matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
                    self.out.extend(self.ordered.iter().copied());
                }
                self.steps.push(Step::Expr(rhs));
                self.steps.push(Step::Expr(lhs));
            }
            ExprKind::App { fun, arg, .. } => {
                self.steps.push(Step::Expr(arg));
                self.steps.push(Step::Expr(fun));
            }
            ExprKind::Ann { expr, ty } => {
                self.steps.push(Step::Expr(ty));
                self.steps.push(Step::Expr(expr));
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for i in items.iter() {
                    self.steps.push(Step::Expr(i));
                }
            }
            ExprKind::Field { expr, .. } => self.steps.push(Step::Expr(expr)),
            ExprKind::Record(fields) => {
                for f in fields.iter() {
                    self.steps.push(Step::Expr(f.value));
                }
            }
            ExprKind::Update { expr, fields } => {
                for f in fields.iter() {
                    self.steps.push(Step::Expr(f.value));
                }
                self.steps.push(Step::Expr(expr));
            }
        }
    }
}

impl Elab<'_> {
    /// The global a name means in `unit`, without reporting anything (an unbound or
    /// ambiguous name is reported when the declaration is checked).
    pub(in crate::check) fn resolve_quietly(&self, unit: usize, name: &str) -> Option<Global> {
        self.resolve_quietly_as(unit, name, false)
    }

    /// [`Elab::resolve_quietly`] where a type is expected (`want_type`): a type rather
    /// than a constructor of the same name.
    pub(in crate::check) fn resolve_quietly_as(
        &self,
        unit: usize,
        name: &str,
        want_type: bool,
    ) -> Option<Global> {
        let get = |s: &scope::UnitScope| s.get_as(name, want_type);
        if let Some((g, _)) = get(&self.scopes[unit]) {
            return Some(g);
        }
        if let Some((g, _)) = self.imports[unit]
            .iter()
            .find_map(|(u, _)| get(&self.scopes[*u]))
        {
            return Some(g);
        }
        if unit != PRELUDE_UNIT
            && let Some((g, _)) = get(&self.scopes[PRELUDE_UNIT])
        {
            return Some(g);
        }
        scope::builtin(name).or_else(|| {
            want_type
                .then(|| self.resolve_quietly_as(unit, name, false))
                .flatten()
        })
    }

    /// The declarations `decl` (of `unit`) refers to.
    pub(in crate::check) fn references(&self, unit: usize, decl: &Decl<'_>) -> Vec<Node> {
        // A name shared by a type and a constructor refers to both declarations.
        let resolve = |name: &str| {
            let value = self.resolve_quietly(unit, name);
            let ty = self.resolve_quietly_as(unit, name, true);
            (value, ty.filter(|t| Some(*t) != value))
        };
        let mut walk = Walk {
            locals: HashMap::new(),
            bound: Vec::new(),
            steps: Vec::new(),
            resolve: &resolve,
            concat: self.program.builtins.append.map(Global::Def),
            ordered: ORDER_DEFS
                .iter()
                .filter_map(|n| self.scopes[PRELUDE_UNIT].get(n).map(|(g, _)| g))
                .collect(),
            out: Vec::new(),
        };
        match decl {
            Decl::Import { .. } => {}
            Decl::Def {
                params, ret, body, ..
            } => {
                let then: Vec<&Expr<'_>> = ret.iter().copied().chain([*body]).collect();
                walk.params(params, &then);
            }
            Decl::Data { params, ctors, .. } => {
                let fields: Vec<&Expr<'_>> = ctors.iter().flat_map(|c| c.fields.iter()).collect();
                walk.params(params, &fields);
            }
            Decl::Extern { ty, .. } => walk.steps.push(Step::Expr(ty)),
        }
        walk.run();
        walk.out
            .into_iter()
            .filter_map(|g| match g {
                Global::Def(id) => Some(Node::Def(id)),
                Global::Data(id) => Some(Node::Data(id)),
                Global::Con(c) => Some(Node::Data(c.data)),
                Global::Extern(id) => Some(Node::Extern(id)),
                Global::PrimType(_) | Global::Prim(_) => None,
            })
            .collect()
    }

    /// The reference graph of the declarations (each with its unit): for each, the
    /// indices into `decls` of the declarations it refers to. Its strongly connected
    /// components (`core::graph::components`) are the groups checked together, each after the
    /// groups it refers to.
    pub(in crate::check) fn reference_edges(
        &self,
        decls: &[(Node, usize, &Decl<'_>)],
    ) -> Vec<Vec<usize>> {
        let index: HashMap<NodeKey, usize> = decls
            .iter()
            .enumerate()
            .map(|(i, (n, _, _))| (key(*n), i))
            .collect();
        let edges: Vec<Vec<usize>> = decls
            .iter()
            .map(|(_, unit, decl)| {
                let mut out: Vec<usize> = self
                    .references(*unit, decl)
                    .into_iter()
                    .filter_map(|n| index.get(&key(n)).copied())
                    .collect();
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        edges
    }

    /// Which declarations the program needs (see [`PreludeCheck::Reachable`]):
    /// those reachable in the reference graph `edges` from every declaration outside
    /// the prelude and from the prelude's data types and externals (which syntax and
    /// the executors may use without naming them). The prelude's instances are found
    /// by type, never named: they are checked when a goal needs their interface (see
    /// `elaborate_declarations`).
    pub(in crate::check) fn reachable_declarations(
        decls: &[(Node, usize, &Decl<'_>)],
        edges: &[Vec<usize>],
    ) -> Vec<bool> {
        let roots = decls.iter().enumerate().filter(|(_, (n, unit, decl))| {
            *unit != PRELUDE_UNIT
                || !matches!(n, Node::Def(_))
                || matches!(decl, Decl::Def { name, .. } if MACHINE_DEFS.contains(&name.name))
        });
        let mut seen = vec![false; decls.len()];
        Self::reach(roots.map(|(i, _)| i).collect(), edges, &mut seen, &|_| true);
        seen
    }

    /// Marks in `seen` what `work` reaches through `edges`, following only the
    /// declarations `follow` accepts.
    pub(in crate::check) fn reach(
        mut work: Vec<usize>,
        edges: &[Vec<usize>],
        seen: &mut [bool],
        follow: &dyn Fn(usize) -> bool,
    ) {
        while let Some(i) = work.pop() {
            if !std::mem::replace(&mut seen[i], true) {
                work.extend(edges[i].iter().copied().filter(|j| !seen[*j] && follow(*j)));
            }
        }
    }

    /// The interface an `instance` definition is of, from its head as written.
    pub(in crate::check) fn instance_class(&self, unit: usize, decl: &Decl<'_>) -> Option<DataId> {
        let Decl::Def {
            role,
            ret: Some(head),
            ..
        } = decl
        else {
            return None;
        };
        if !role.is_instance() {
            return None;
        }
        let mut h = *head;
        while let ExprKind::App { fun, .. } = &h.kind {
            h = fun;
        }
        match &h.kind {
            ExprKind::Var(name) => match self.resolve_quietly(unit, name) {
                Some(Global::Data(d)) => Some(d),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Prelude definitions that are always checked, because the machine may run them in
/// place of others (`crate::machine::fuse` runs folds over ranges as `foldlRange`), or
/// build values of (the rest of a stream is a call of `prim_streamRest`).
const MACHINE_DEFS: &[&str] = &[
    "foldlRange",
    "filterRange",
    "mapFilterRange",
    "prim_streamRest",
];

/// The prelude definitions an ordering operator elaborates to on a type that is not a
/// number or a string (through its `Ord` instance).
pub(in crate::check) const ORDER_DEFS: [&str; 4] =
    ["derive'lt", "derive'le", "derive'gt", "derive'ge"];

/// A hashable form of a [`Node`].
type NodeKey = (u8, u32);

fn key(n: Node) -> NodeKey {
    match n {
        Node::Data(id) => (0, id.0),
        Node::Extern(id) => (1, id.0),
        Node::Def(id) => (2, id.0),
    }
}
