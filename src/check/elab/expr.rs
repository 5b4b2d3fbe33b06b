//! Bidirectional elaboration of expressions: `check` against a known type and `infer`
//! a type, with implicit arguments inserted as unknowns; lambdas, applications, names,
//! `let`.

use super::sugar::list_term;
use super::*;
use crate::diagnostic::DiagnosticKind;

impl<'e> Elab<'e> {
    /// A fresh unknown in `cx`.
    pub(in crate::check) fn fresh(
        &mut self,
        cx: &Cx<'_>,
        span: Span,
        what: impl Into<String>,
    ) -> RcTerm {
        self.metas.fresh(cx.depth(), span, what)
    }

    /// The type given to an expression after an error was reported about it: an
    /// unknown that agrees with anything and is never reported itself, so one mistake
    /// gives one error.
    pub(in crate::check) fn recovery_type(&mut self, cx: &Cx<'_>, span: Span) -> RcTerm {
        let t = self.fresh(cx, span, "a type after an error");
        self.metas.mark_defaultable(&t);
        t
    }

    /// A chain of arrows `(x : A) -> (y : B) -> ... -> C` (elaborated in a loop, so a
    /// million arrows cost no native stack) and the universe level it lives in.
    pub(in crate::check) fn function_type<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        e: &'s Expr<'s>,
    ) -> (RcTerm, u32) {
        let mut binders = Vec::new();
        let mut level = 0;
        let mut cur = e;
        while let ExprKind::Pi(PiExpr {
            name,
            plicity,
            dom,
            cod,
        }) = &cur.kind
        {
            let (dom, i) = self.check_type(cx, dom);
            level = level.max(i);
            let bound = name.map(|n| n.name).unwrap_or("_");
            cx.push(bound, name.map_or(cur.span, |n| n.span), dom.clone());
            binders.push(Binder {
                name: name_of(bound),
                plicity: *plicity,
                ty: dom,
            });
            cur = cod;
        }
        let (cod, j) = self.check_type(cx, cur);
        level = level.max(j);
        for _ in &binders {
            cx.pop();
        }
        let t = binders
            .into_iter()
            .rev()
            .fold(cod, |cod, b| Term::Pi(b, cod).rc());
        (t, level)
    }

    /// Reports a type whose universe would be past `Type 1000` (LANGUAGE.md section
    /// 3: levels are bounded, never wrapped or saturated).
    pub(in crate::check) fn too_large(&mut self, span: Span, what: &str, level: u32) {
        self.errors.push(
            Diagnostic::error(what.to_string())
                .at(span, format!("its type would be `Type {level}`"))
                .note(format!(
                    "universe levels go up to `Type {MAX_UNIVERSE_LEVEL}`"
                )),
        );
    }

    /// Notes that `e` stands where a type is expected: if its head is a name that is
    /// both a type and a constructor, it means the type (docs/syntax.md, section 7).
    pub(in crate::check) fn expect_type_head(&mut self, e: &Expr<'_>) {
        let mut h = e;
        while let ExprKind::App { fun, .. } = &h.kind {
            h = fun;
        }
        if let ExprKind::Var(name) = &h.kind
            && self.scopes.iter().any(|s| s.shadowed_type(name).is_some())
        {
            self.type_heads.insert(h.span);
        }
    }

    /// Checks that `e` is a type; returns it and its universe level.
    pub(in crate::check) fn check_type<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        e: &'s Expr<'s>,
    ) -> (RcTerm, u32) {
        self.expect_type_head(e);
        match &e.kind {
            // In a type's place `Type n` needs no type of its own (the largest,
            // `Type 1000`, has none that could be written).
            ExprKind::Universe(n) => return (Term::Universe(*n).rc(), n + 1),
            ExprKind::Pi(_) => return self.function_type(cx, e),
            _ => {}
        }
        let (t, ty) = self.infer(cx, e);
        let ty = self.whnf(cx, &ty, e.span);
        match &*ty {
            Term::Universe(n) => (t, *n),
            _ if self.is_unsolved_meta(&ty) => {
                let universe = Term::Universe(0).rc();
                self.expect(cx, e.span, &ty, &universe);
                (t, 0)
            }
            _ => {
                let shown = self.show(cx, &ty);
                self.errors.push(
                    Diagnostic::error("expected a type")
                        .kind(DiagnosticKind::NotAType)
                        .at(e.span, format!("this is a value of type `{shown}`"))
                        .note(format!("found: {shown}")),
                );
                (t, 0)
            }
        }
    }

    /// Checks `e` against the type `ty` (in `cx`); returns the elaborated term.
    pub(in crate::check) fn check<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        e: &'s Expr<'s>,
        ty: &RcTerm,
    ) -> RcTerm {
        let term = stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.check_inner(cx, e, ty));
        if crate::check::record::wants(e.span) {
            crate::check::record::note_type(e.span, ty, |from| cx.display_names(from), cx.depth());
            cx.names.touch(e.span);
        }
        term
    }

    /// [`Elab::check`] on the current native stack.
    fn check_inner<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>, ty: &RcTerm) -> RcTerm {
        match &e.kind {
            ExprKind::Lam { params, body } => return self.check_lam(cx, params, body, ty, e.span),
            ExprKind::Let(_) => return self.check_let_chain(cx, e, ty),
            ExprKind::If { .. } => return self.check_if_chain(cx, e, ty),
            ExprKind::Match { scrut, arms } => {
                return self.match_expr(cx, scrut, arms, e.span, Some(ty)).0;
            }
            ExprKind::Hole => {
                let hole = self.fresh(cx, e.span, "this `_`");
                self.type_unknown(cx, &hole, ty, e.span);
                return hole;
            }
            ExprKind::TypedHole(name) => {
                self.report_goal(cx, *name, ty, e.span);
                return Term::Hole(HoleKind::Goal(name.map(name_of)), e.span).rc();
            }
            ExprKind::Tuple(items) => {
                if let Some(t) = self.check_tuple(cx, items, ty) {
                    return t;
                }
            }
            ExprKind::Record(fields) => return self.record_value(cx, fields, Some(ty), e.span).0,
            ExprKind::List(items) => {
                let b = self.program.builtins;
                let want = self.whnf(cx, ty, e.span);
                if let Some([elem]) = data_args(&want, b.list).as_deref() {
                    let elem = elem.clone();
                    let items: Vec<RcTerm> =
                        items.iter().map(|i| self.check(cx, i, &elem)).collect();
                    return list_term(b, &elem, items);
                }
            }
            _ => {}
        }
        // A type of types expected (`Type` for an argument of `List` or a field's
        // type, `Type -> Type` for an argument of an interface over type
        // constructors): a name shared by a type and a constructor means the type.
        if is_kind(ty) {
            self.expect_type_head(e);
        }
        let (t, inferred) = self.infer(cx, e);
        let want = self.whnf(cx, ty, e.span);
        let (t, inferred) = if matches!(&*want, Term::Pi(b, _) if b.plicity == Plicity::Implicit) {
            (t, inferred)
        } else {
            self.insert_implicits(cx, t, inferred, e.span)
        };
        self.expect_subtype(cx, e.span, &inferred, ty);
        t
    }

    /// Checks `\params -> body` against `ty`, taking the parameters' types from it and
    /// inserting implicit lambdas where `ty` expects implicit parameters the source
    /// does not bind.
    pub(in crate::check) fn check_lam<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        params: &'s [Param<'s>],
        body: &'s Expr<'s>,
        ty: &RcTerm,
        span: Span,
    ) -> RcTerm {
        // The lambdas entered so far; a loop, so that a lambda of a hundred thousand
        // parameters (or as many nested lambdas) costs no native stack.
        let mut lams: Vec<Binder> = Vec::new();
        let (mut rest, mut body, mut span) = (params, body, span);
        let mut ty = ty.clone();
        let mut t = loop {
            let Some((p, tail)) = rest.split_first() else {
                if let ExprKind::Lam {
                    params,
                    body: inner,
                } = &body.kind
                {
                    (rest, span) = (params, body.span);
                    body = inner;
                    continue;
                }
                break self.check(cx, body, &ty);
            };
            let want = self.whnf(cx, &ty, p.span);
            if let Term::Pi(b, cod) = &*want {
                if b.plicity == p.plicity {
                    if let Some(ann) = p.ty {
                        let (ann, _) = self.check_type(cx, ann);
                        self.expect(cx, p.span, &ann, &b.ty);
                    }
                    cx.push(p.name.name, p.name.span, b.ty.clone());
                    lams.push(Binder {
                        name: name_of(p.name.name),
                        plicity: p.plicity,
                        ty: b.ty.clone(),
                    });
                    ty = cod.clone();
                    rest = tail;
                    continue;
                }
                if b.plicity == Plicity::Implicit {
                    cx.push_hidden(b.name.clone(), b.ty.clone());
                    lams.push(b.clone());
                    ty = cod.clone();
                    continue;
                }
                self.errors.push(
                    Diagnostic::error("this parameter should be explicit")
                        .at(p.span, "the expected type has an explicit parameter here"),
                );
            }
            let (t, inferred) = self.infer_lam(cx, rest, body);
            self.expect_subtype(cx, span, &inferred, &ty);
            break t;
        };
        for b in lams.into_iter().rev() {
            cx.pop();
            t = Term::Lam(b, t).rc();
        }
        t
    }

    /// A chain of `if ... then ... else if ...` checked against `goal` in a loop.
    /// `if` is a match on `Bool`: on a variable it refines the goal in each branch
    /// (`if b then 42 else "x"` against `Pick b`).
    pub(in crate::check) fn check_if_chain<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        e: &'s Expr<'s>,
        goal: &RcTerm,
    ) -> RcTerm {
        let b = self.program.builtins;
        let bool_ty = Term::Data(b.bool_).rc();
        let mut branches = Vec::new();
        let mut goal = goal.clone();
        let mut cur = e;
        while let ExprKind::If {
            cond: c,
            then_,
            else_,
        } = &cur.kind
        {
            let cond = self.check(cx, c, &bool_ty);
            let (then_ty, else_ty) = match (&c.kind, &*cond) {
                (ExprKind::Var(_), Term::Var(ix)) => (
                    refine(&goal, *ix, &Term::Con(b.true_).rc()),
                    refine(&goal, *ix, &Term::Con(b.false_).rc()),
                ),
                _ => (goal.clone(), goal.clone()),
            };
            let then_ = self.check(cx, then_, &then_ty);
            branches.push((cond, then_, cur.span));
            goal = else_ty;
            cur = else_;
        }
        let mut t = self.check(cx, cur, &goal);
        for (cond, then_, span) in branches.into_iter().rev() {
            t = bool_match(b, cond, then_, t, span);
        }
        t
    }

    /// Infers the type of `\params -> body`.
    pub(in crate::check) fn infer_lam<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        params: &'s [Param<'s>],
        body: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let binders = self.telescope(cx, params, "parameter");
        let (body, body_ty) = self.infer_value(cx, body);
        for _ in params {
            cx.pop();
        }
        let ty = binders
            .iter()
            .rev()
            .fold(body_ty, |cod, b| Term::Pi(b.clone(), cod).rc());
        let term = binders
            .into_iter()
            .rev()
            .fold(body, |body, b| Term::Lam(b, body).rc());
        (term, ty)
    }

    /// Infers `e` and inserts its leading implicit arguments: the form for a value used
    /// as it is (an operand, a component, a list element).
    pub(in crate::check) fn infer_value<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        e: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let (t, ty) = self.infer(cx, e);
        self.insert_implicits(cx, t, ty, e.span)
    }

    /// Records the type `ty` (in `cx`) of the fresh unknown `t` where it is a universe
    /// or a family of types ending in one: then a solution must live in that universe
    /// (see `check::levels`). Other types are not recorded.
    pub(in crate::check) fn type_unknown(
        &mut self,
        cx: &Cx<'_>,
        t: &RcTerm,
        ty: &RcTerm,
        span: Span,
    ) {
        let mut cur = self.whnf(cx, ty, span);
        while let Term::Pi(_, cod) = &*cur {
            cur = cod.clone();
        }
        if let Term::Universe(n) = &*cur {
            // Only the universe at the end matters.
            self.metas.set_type(t, Term::Universe(*n).rc());
        }
    }

    /// Applies `t : ty` to fresh unknowns for as long as `ty` expects implicit arguments.
    pub(in crate::check) fn insert_implicits(
        &mut self,
        cx: &Cx<'_>,
        mut t: RcTerm,
        mut ty: RcTerm,
        span: Span,
    ) -> (RcTerm, RcTerm) {
        loop {
            let want = self.whnf(cx, &ty, span);
            let Term::Pi(b, cod) = &*want else {
                return (t, ty);
            };
            if b.plicity != Plicity::Implicit {
                return (t, ty);
            }
            let arg = self.fresh(cx, span, format!("the implicit argument `{}`", b.name));
            if matches!(&*b.ty, Term::Universe(_)) {
                self.metas.mark_defaultable(&arg);
            }
            self.type_unknown(cx, &arg, &b.ty, span);
            if self.interface_of(cx, &b.ty, span).is_some() {
                self.instance_goal(cx, &arg, &b.ty, span);
            }
            t = Term::App(t, Plicity::Implicit, arg.clone()).rc();
            ty = subst_top(cod, &arg);
        }
    }

    /// Infers the type of `e`; returns the elaborated term and its type.
    pub(in crate::check) fn infer<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        e: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let (term, ty) = stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.infer_inner(cx, e));
        if crate::check::record::wants(e.span) {
            crate::check::record::note_type(e.span, &ty, |from| cx.display_names(from), cx.depth());
            cx.names.touch(e.span);
        }
        (term, ty)
    }

    /// [`Elab::infer`] on the current native stack.
    fn infer_inner<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>) -> (RcTerm, RcTerm) {
        let b = self.program.builtins;
        let prim = |t: PrimType| Term::PrimType(t).rc();
        match &e.kind {
            ExprKind::Var(name) => self.infer_name(cx, name, e.span),
            ExprKind::Int(n) => (Term::Lit(Lit::Int(*n)).rc(), prim(PrimType::Int)),
            ExprKind::Float(x) => (Term::Lit(Lit::Float(*x)).rc(), prim(PrimType::Float)),
            ExprKind::Str(s) => (
                Term::Lit(Lit::Str(Rc::from(*s))).rc(),
                prim(PrimType::String),
            ),
            ExprKind::Char(c) => (Term::Lit(Lit::Char(*c)).rc(), prim(PrimType::Char)),
            ExprKind::Universe(n) if *n < MAX_UNIVERSE_LEVEL => {
                (Term::Universe(*n).rc(), Term::Universe(n + 1).rc())
            }
            ExprKind::Universe(n) => {
                self.too_large(
                    e.span,
                    &format!("`Type {n}` is the largest universe: it has no type"),
                    n + 1,
                );
                (Term::Universe(*n).rc(), self.recovery_type(cx, e.span))
            }
            ExprKind::Hole => {
                let ty = self.fresh(cx, e.span, "the type of this `_`");
                let hole = self.fresh(cx, e.span, "this `_`");
                // Its type is an unknown: what it turns out to be bounds the solution.
                self.metas.set_type(&hole, ty.clone());
                (hole, ty)
            }
            ExprKind::TypedHole(name) => {
                // The hole is reported here; its type, if nothing else fixes it, is no
                // second error.
                let ty = self.fresh(cx, e.span, "the type of this hole");
                self.metas.mark_defaultable(&ty);
                self.report_goal(cx, *name, &ty, e.span);
                (
                    Term::Hole(HoleKind::Goal(name.map(name_of)), e.span).rc(),
                    ty,
                )
            }
            ExprKind::Lam { params, body } => self.infer_lam(cx, params, body),
            ExprKind::Pi(_) => {
                let (t, level) = self.function_type(cx, e);
                if level > MAX_UNIVERSE_LEVEL {
                    self.too_large(e.span, "this function type has no type", level);
                    return (t, self.recovery_type(cx, e.span));
                }
                (t, Term::Universe(level).rc())
            }
            ExprKind::Let(LetExpr {
                name,
                params,
                ret,
                rhs,
                body,
            }) => self.infer_let(cx, *name, params, *ret, rhs, body),
            ExprKind::If { cond, then_, else_ } => {
                let bool_ty = Term::Data(b.bool_).rc();
                let cond = self.check(cx, cond, &bool_ty);
                let (then_, ty) = self.infer_value(cx, then_);
                let else_ = self.check(cx, else_, &ty);
                (bool_match(b, cond, then_, else_, e.span), ty)
            }
            ExprKind::Match { scrut, arms } => self.match_expr(cx, scrut, arms, e.span, None),
            ExprKind::Binary { .. } => self.binary_chain(cx, e),
            ExprKind::App { .. } => self.infer_app(cx, e),
            ExprKind::Ann { expr, ty } => self.infer_ann(cx, expr, ty, e.span),
            ExprKind::Unit => (Term::Con(b.unit_con).rc(), Term::Data(b.unit).rc()),
            ExprKind::Tuple(items) => self.infer_tuple(cx, items),
            ExprKind::Field { expr, field } => self.infer_field(cx, expr, **field, e.span),
            ExprKind::Record(fields) => self.record_value(cx, fields, None, e.span),
            ExprKind::Update { expr, fields } => self.record_update(cx, expr, fields, e.span),
            ExprKind::List(items) => {
                let elem = match items.first() {
                    Some(first) => {
                        let elem = self.infer_value(cx, first).1;
                        let what = "the type of a list's elements";
                        self.check_sugar_universe(cx, b.list, 0, &elem, first.span, what);
                        elem
                    }
                    None => {
                        let elem = self.fresh(cx, e.span, "the type of the list's elements");
                        let universe = self.program.data(b.list).params[0].ty.clone();
                        self.type_unknown(cx, &elem, &universe, e.span);
                        elem
                    }
                };
                let terms: Vec<RcTerm> = items.iter().map(|i| self.check(cx, i, &elem)).collect();
                let ty = Term::App(Term::Data(b.list).rc(), Plicity::Explicit, elem.clone()).rc();
                (list_term(b, &elem, terms), ty)
            }
        }
    }

    /// `(expr : ty)`. Kept out of [`Elab::infer_inner`], whose stack frame every
    /// level of a deep expression pays.
    #[inline(never)]
    fn infer_ann<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        expr: &'s Expr<'s>,
        ty_expr: &'s Expr<'s>,
        span: Span,
    ) -> (RcTerm, RcTerm) {
        let errors = self.errors.len();
        let (ty, _) = self.check_type(cx, ty_expr);
        if self.errors.len() > errors
            && let Some(d) = self.errors.last_mut()
            && d.kind == DiagnosticKind::NotAType
            && d.primary_span() == Some(ty_expr.span)
        {
            // `(x : xs)`, a Haskell habit for a list cell.
            d.notes.push(
                "help: `(e : T)` gives `e` the type `T`; for a list cell use `::` (`x :: xs`)"
                    .to_string(),
            );
            // Not a type: the expression is checked against nothing in particular, and
            // its type is no second error.
            let ty = self.recovery_type(cx, ty_expr.span);
            let t = self.check(cx, expr, &ty);
            return (t, self.recovery_type(cx, span));
        }
        let t = self.check(cx, expr, &ty);
        (t, ty)
    }

    /// Infers an application spine `f a {b} c`, walking it in a loop.
    pub(in crate::check) fn infer_app<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        e: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let mut args = Vec::new();
        let mut head = e;
        while let ExprKind::App { fun, arg, plicity } = &head.kind {
            args.push((*plicity, *arg));
            head = fun;
        }
        let (mut f, mut fty) = self.infer(cx, head);
        let mut fun_span = head.span;
        // The function's type is `pending` with `env` substituted for its innermost
        // variables (`env[0]` the outermost): a chain of arrows is walked without
        // substituting into the rest of the chain at each argument, which made a
        // spine of `n` arguments cost `n` times the size of the type (issue 30). The
        // substitution is made once the chain is not an arrow of the right kind any
        // more, or at the end.
        let mut pending: Option<RcTerm> = None;
        let mut env: Vec<RcTerm> = Vec::new();
        for (plicity, arg) in args.into_iter().rev() {
            if let Some(p) = &pending {
                if let Term::Pi(b, cod) = &**p
                    && b.plicity == plicity
                {
                    let dom = self.spine_domain(cx, &b.ty, &env);
                    let cod = cod.clone();
                    let a = self.check(cx, arg, &dom);
                    env.push(a.clone());
                    pending = Some(cod);
                    f = Term::App(f, plicity, a).rc();
                    fun_span = fun_span.to(arg.span);
                    continue;
                }
                fty = instantiate(p, &env);
                env.clear();
            }
            if plicity == Plicity::Explicit {
                (f, fty) = self.insert_implicits(cx, f, fty, fun_span);
            }
            let want = self.whnf(cx, &fty, fun_span);
            let (dom, cod) = match &*want {
                Term::Pi(b, cod) if b.plicity == plicity => (b.ty.clone(), cod.clone()),
                _ if self.is_unsolved_meta(&want) => {
                    let dom = self.fresh(cx, arg.span, "the type of this argument");
                    // An explicit argument to a function of unknown type (a recursive
                    // `let` without annotation, a lambda's parameter, a typed hole) is
                    // taken to be non-dependent, as first-order inference does: the
                    // result type is an unknown that does not see the argument, so
                    // `go (n - 1)` or `?f x x` still solve it. (One that sees it,
                    // applied to `n - 1`, would be no pattern and stay unsolved.) An
                    // implicit argument's result usually depends on it: that one may.
                    let cod = if plicity == Plicity::Explicit {
                        let cod = self.fresh(cx, arg.span, "the result type of this function");
                        shift(&cod, 1)
                    } else {
                        cx.push_hidden(name_of("x"), dom.clone());
                        let cod = self.fresh(cx, arg.span, "the result type of this function");
                        cx.pop();
                        cod
                    };
                    // A function whose type is unknown after an error (an unbound
                    // name) gives no second error through its argument or result.
                    if let Some(f) = crate::check::meta::flex(&want)
                        && self.metas.get(f.id).defaultable
                    {
                        self.metas.mark_defaultable(&dom);
                        self.metas.mark_defaultable(&cod);
                    }
                    let pi = Term::Pi(
                        Binder {
                            name: name_of("x"),
                            plicity,
                            ty: dom.clone(),
                        },
                        cod.clone(),
                    )
                    .rc();
                    self.expect(cx, fun_span, &want, &pi);
                    (dom, cod)
                }
                _ => {
                    let shown = self.show(cx, &fty);
                    let msg = match (&*want, plicity) {
                        (Term::Pi(..), Plicity::Implicit) => {
                            "this function takes no implicit argument here".to_string()
                        }
                        _ => "this is not a function, so it cannot be applied".to_string(),
                    };
                    self.errors.push(
                        Diagnostic::error(msg)
                            .at(fun_span, format!("it has type `{shown}`"))
                            .also(arg.span, "applied to this")
                            .note(format!("found: {shown}")),
                    );
                    let (a, _) = self.infer(cx, arg);
                    let unknown = self.recovery_type(cx, arg.span);
                    return (Term::App(f, plicity, a).rc(), unknown);
                }
            };
            let a = self.check(cx, arg, &dom);
            env.push(a.clone());
            pending = Some(cod);
            f = Term::App(f, plicity, a).rc();
            fun_span = fun_span.to(arg.span);
        }
        if let Some(p) = &pending {
            fty = instantiate(p, &env);
        }
        (f, fty)
    }

    /// The domain `dom` of the next arrow of an application's type, under the
    /// variables `env` stands for (see [`Elab::infer_app`]), with `env` substituted.
    ///
    /// A domain that is an unknown of the whole context, still unsolved (the type of
    /// an unannotated parameter of a lambda applied at once), is not spelt out over
    /// the arguments (which would make it as large as the spine so far): its solution
    /// is an unknown of the context outside those variables. Nothing could solve it
    /// with them: it is applied to every variable of that context as well, so an
    /// argument that is a variable repeats one and no pattern solution may use it.
    fn spine_domain(&mut self, cx: &Cx<'_>, dom: &RcTerm, env: &[RcTerm]) -> RcTerm {
        let n = env.len() as u32;
        if n > 0
            && let Term::Hole(HoleKind::MetaCtx(id, count, 0), span) = &**dom
            && *count == cx.depth() + n
            && self.metas.is_unsolved(*id)
            && self.metas.get(*id).depth == *count
        {
            let info = self.metas.get(*id);
            let (what, defaultable, universe) = (
                info.what.clone(),
                info.defaultable,
                info.ty
                    .clone()
                    .filter(|t| matches!(&**t, Term::Universe(_))),
            );
            let outer_id = self.metas.fresh_id(cx.depth(), *span, what);
            if defaultable {
                self.metas.mark_defaultable_id(outer_id);
            }
            let outer = Term::Hole(HoleKind::MetaCtx(outer_id, cx.depth(), 0), *span).rc();
            if let Some(u) = universe {
                self.metas.set_type(&outer, u);
            }
            // In the unknown's own context: the outer unknown, past the `n` variables.
            let raised = Term::Hole(HoleKind::MetaCtx(outer_id, cx.depth(), n), *span).rc();
            self.metas.solve(*id, raised);
            return outer;
        }
        instantiate(dom, env)
    }

    /// A name in expression position: a local, else a global, else an error.
    pub(in crate::check) fn infer_name(
        &mut self,
        cx: &mut Cx<'_>,
        name: &str,
        span: Span,
    ) -> (RcTerm, RcTerm) {
        let want_type = self.type_heads.remove(&span);
        if let Some((lvl, binder)) = cx.lookup_bound(name) {
            if crate::check::record::wants(span) {
                crate::check::record::note_local(span, binder);
            }
            return (cx.var(lvl), cx.type_of(lvl));
        }
        match self.global_as(cx, name, span, want_type) {
            Some(g) => {
                if crate::check::record::wants(span) {
                    crate::check::record::note_name(span, g);
                }
                self.global_typed(cx, g, span)
            }
            None => {
                // Reported once, as unbound: its value and type are no further errors.
                let ty = self.recovery_type(cx, span);
                (self.recovery_type(cx, span), ty)
            }
        }
    }

    /// A global reference and its type.
    pub(in crate::check) fn global_typed(
        &mut self,
        cx: &Cx<'_>,
        g: Global,
        span: Span,
    ) -> (RcTerm, RcTerm) {
        let term = global_term(g, span);
        let ty = match g {
            Global::Def(id) => self.program.def(id).ty.clone(),
            Global::Data(id) => self
                .program
                .data_type_at(id, self.data_levels[id.0 as usize]),
            Global::Con(id) => self.program.con_type(id),
            Global::Extern(id) => self.program.external(id).ty.clone(),
            Global::PrimType(_) => Term::Universe(0).rc(),
            Global::Prim(p) => {
                let mut fresh = || {
                    let t =
                        self.metas
                            .fresh(cx.depth(), span, "the type of this primitive's operands");
                    self.metas.mark_defaultable(&t);
                    t
                };
                crate::check::prim_types::prim_type(p, &self.program.builtins, &mut fresh)
            }
        };
        (term, ty)
    }

    /// `let name params : ret = rhs in`: elaborates the binding and enters the variable
    /// (with its value) in `cx`; returns its type and value. The caller leaves it.
    pub(in crate::check) fn let_binding<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        name: crate::syntax::ast::Ident<'s>,
        params: &'s [Param<'s>],
        ret: Option<&'s Expr<'s>>,
        rhs: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let ty = if params.is_empty() && ret.is_none() {
            None
        } else {
            let binders = self.telescope(cx, params, "parameter");
            let ret_ty = match ret {
                Some(t) => self.check_type(cx, t).0,
                None => self.fresh(
                    cx,
                    rhs.span.first_point(),
                    format!("the result type of `{}`", name.name),
                ),
            };
            for _ in params {
                cx.pop();
            }
            Some(
                binders
                    .into_iter()
                    .rev()
                    .fold(ret_ty, |cod, b| Term::Pi(b, cod).rc()),
            )
        };
        // Without an annotation the right-hand side's type is inferred first (so a
        // polymorphic right-hand side keeps its implicit parameters); a recursive use
        // inside it then needs the annotation.
        let (ty, value) = match ty {
            Some(ty) => {
                cx.push(name.name, name.span, ty.clone());
                let value = self.check_lam(cx, params, rhs, &shift(&ty, 1), rhs.span);
                (ty, value)
            }
            None => {
                let ty = self.fresh(cx, name.span, format!("the type of `{}`", name.name));
                cx.push(name.name, name.span, ty.clone());
                let (value, inferred) = self.infer(cx, rhs);
                self.expect(cx, rhs.span, &inferred, &shift(&ty, 1));
                (ty, value)
            }
        };
        let lvl = (cx.depth() - 1) as usize;
        cx.entries[lvl].value = Some(value.clone());
        (ty, value)
    }

    /// A chain of `let`s (each the body of the one before) ending in `e`'s innermost
    /// body, checked against `goal` in a loop: a thousand `let`s in a row cost no
    /// native stack.
    pub(in crate::check) fn check_let_chain<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        e: &'s Expr<'s>,
        goal: &RcTerm,
    ) -> RcTerm {
        let mut bound = Vec::new();
        let mut goal = goal.clone();
        let mut cur = e;
        while let ExprKind::Let(LetExpr {
            name,
            params,
            ret,
            rhs,
            body,
        }) = &cur.kind
        {
            let (ty, value) = self.let_binding(cx, *name, params, *ret, rhs);
            bound.push((name_of(name.name), ty, value));
            goal = shift(&goal, 1);
            cur = body;
        }
        let t = self.check(cx, cur, &goal);
        self.close_lets(cx, bound, t)
    }

    /// Leaves the `let`-bound variables `lets` (entered in that order, the last
    /// innermost) and wraps `body` in their `let`s.
    pub(in crate::check) fn close_lets(
        &mut self,
        cx: &mut Cx<'_>,
        lets: Vec<(Name, RcTerm, RcTerm)>,
        body: RcTerm,
    ) -> RcTerm {
        let mut t = body;
        for (name, ty, value) in lets.into_iter().rev() {
            cx.pop();
            let binder = Binder {
                name,
                plicity: Plicity::Explicit,
                ty,
            };
            t = Term::Let(binder, value, t).rc();
        }
        t
    }

    /// `let name params : ret = rhs in body`, its type inferred.
    pub(in crate::check) fn infer_let<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        name: crate::syntax::ast::Ident<'s>,
        params: &'s [Param<'s>],
        ret: Option<&'s Expr<'s>>,
        rhs: &'s Expr<'s>,
        body: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let (ty, value) = self.let_binding(cx, name, params, ret, rhs);
        let body_span = body.span;
        let (body, t) = self.infer_value(cx, body);
        // The body's type leaves the variable's scope: `unshift` when it does not
        // mention the variable, else with the variable's (non-recursive) value put in.
        let t = self.metas.zonk(&t);
        let body_ty = if !has_free_var(&t, 0) {
            Some(unshift(&t, 1))
        } else if !has_free_var(&value, 0) {
            Some(instantiate(&t, &[unshift(&value, 1)]))
        } else {
            None
        };
        cx.pop();
        let body_ty = body_ty.unwrap_or_else(|| {
            self.errors.push(
                Diagnostic::error(format!(
                    "the type of this `let` depends on the recursive `{}`",
                    name.name
                ))
                .at(body_span, "annotate the whole `let` expression"),
            );
            self.recovery_type(cx, body_span)
        });
        let binder = Binder {
            name: name_of(name.name),
            plicity: Plicity::Explicit,
            ty,
        };
        (Term::Let(binder, value, body).rc(), body_ty)
    }
}

/// Whether `ty` is written as a type of types: `Type n`, or a function type ending in
/// one (`Type -> Type`). A constructor's type never is (it ends in its data type).
fn is_kind(ty: &Term) -> bool {
    let mut t = ty;
    while let Term::Pi(_, cod) = t {
        t = cod;
    }
    matches!(t, Term::Universe(_))
}
