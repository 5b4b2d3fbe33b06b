//! Binary operators: `&&` and `||` as matches on `Bool`, `==` on any one type, arithmetic
//! and comparison resolved by the type of their operands (checked at the end when it is
//! still unknown), `++` on strings (a primitive) and lists (the prelude's `append`); long
//! chains elaborated in loops.

use super::*;

/// A constraint on an operator's operand type that could not be checked when the
/// operator was met, because the type was still unknown.
pub(in crate::check) struct Deferred {
    ty: RcTerm,
    ctx: Vec<CtxEntry>,
    allowed: Allowed,
    op: BinOp,
    span: Span,
    /// For `++`, the unknown that stands for the operator itself (in `ctx`): the
    /// `Concat` primitive on strings, `append {A}` on lists, decided once the type is.
    head: Option<RcTerm>,
}

/// Which operand types an operator accepts.
#[derive(Clone, Copy, PartialEq)]
pub(in crate::check) enum Allowed {
    /// `Int` or `Float`: arithmetic.
    Numbers,
    /// `Int`, `Float`, `String` or `Char`: ordering.
    Ordered,
    /// `String` or any `List`: `++`.
    Concatenable,
}

impl Allowed {
    /// Whether an operand of type `t` (in weak head normal form) is accepted.
    pub(in crate::check) fn accepts(self, t: &Term, list: DataId) -> bool {
        match (self, t) {
            (_, Term::PrimType(PrimType::Int | PrimType::Float)) => self != Allowed::Concatenable,
            (Allowed::Ordered | Allowed::Concatenable, Term::PrimType(PrimType::String)) => true,
            (Allowed::Ordered, Term::PrimType(PrimType::Char)) => true,
            (Allowed::Concatenable, t) => data_args(t, list).is_some(),
            _ => false,
        }
    }

    /// The accepted operand types, in words.
    pub(in crate::check) fn describe(self) -> &'static str {
        match self {
            Allowed::Numbers => "two Ints or two Floats",
            Allowed::Ordered => {
                "two Ints, two Floats, two Strings, two Chars or two values of a type with an `Ord` instance"
            }
            Allowed::Concatenable => "two Strings or two Lists",
        }
    }
}

/// A right operand: not yet elaborated, or already inferred (with its span).
pub(in crate::check) enum Operand<'s> {
    Expr(&'s Expr<'s>),
    Done((RcTerm, RcTerm), Span),
}

impl<'e> Elab<'e> {
    /// Checks the operand types that were unknown when their operators were met, and
    /// decides what each such `++` is. At the end of a group of declarations (`from`
    /// the first constraint the group made; so that later groups see finished terms),
    /// those of the group whose types are known by now; the others wait for the end
    /// of the program (`from` none), where a type still unknown is reported as such
    /// and its `++` is left the primitive. Each constraint is looked at twice at most.
    pub(in crate::check) fn check_deferred(&mut self, from: Option<usize>) {
        let list = self.program.builtins.list;
        let all = from.is_none();
        let pending = self
            .deferred
            .split_off(from.unwrap_or(0).min(self.deferred.len()));
        let mut later = Vec::new();
        for d in pending {
            let mut cx = Cx {
                unit: PRELUDE_UNIT,
                names: Default::default(),
                entries: d.ctx,
            };
            let ty = self.whnf(&cx, &d.ty, d.span);
            let unknown = self.is_unsolved_meta(&ty);
            if unknown && !all {
                later.push(Deferred {
                    ctx: cx.entries,
                    ..d
                });
                continue;
            }
            if !unknown && !d.allowed.accepts(&ty, list) {
                let shown = self.show(&cx, &ty);
                self.errors.push(
                    Diagnostic::error(format!(
                        "`{}` works on {}",
                        d.op.symbol(),
                        d.allowed.describe()
                    ))
                    .at(d.span, format!("its operands have type `{shown}`"))
                    .note(format!("found: {shown}")),
                );
            }
            if let Some(head) = &d.head {
                let meaning = if unknown {
                    Term::Prim(Prim::Concat, d.span).rc()
                } else {
                    self.concat_head(&ty, d.span)
                };
                if !self.unify(&mut cx, head, &meaning, d.span) {
                    // Only a type that computed with the unknown operator could have
                    // fixed it to something else.
                    self.errors.push(
                        Diagnostic::error("this `++` was used as something it is not")
                            .at(d.span, "its operands' type was found only later"),
                    );
                }
            }
        }
        self.deferred.extend(later);
    }

    /// Elaborates a chain of binary operators without recursing along it (a long chain
    /// is deep on one side): the operands are collected in a loop, then combined.
    pub(in crate::check) fn binary_chain<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        e: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let mut left_steps = Vec::new();
        let mut leftmost = e;
        while let ExprKind::Binary {
            op,
            op_span,
            lhs,
            rhs,
        } = &leftmost.kind
        {
            if matches!(rhs.kind, ExprKind::Binary { .. }) && left_steps.is_empty() {
                break;
            }
            left_steps.push((*op, *op_span, *rhs));
            leftmost = lhs;
        }
        if !left_steps.is_empty() {
            let mut acc = self.infer_value(cx, leftmost);
            let mut span = leftmost.span;
            for (op, op_span, rhs) in left_steps.into_iter().rev() {
                acc = self.operator(cx, op, op_span, (acc, span), Operand::Expr(rhs));
                span = span.to(rhs.span);
            }
            return acc;
        }
        let mut right_steps = Vec::new();
        let mut rightmost = e;
        while let ExprKind::Binary {
            op,
            op_span,
            lhs,
            rhs,
        } = &rightmost.kind
        {
            right_steps.push((*lhs, *op, *op_span));
            rightmost = rhs;
        }
        // Right-nested: elaborate the left operands first (source order), then combine
        // from the right.
        let lefts: Vec<((RcTerm, RcTerm), Span, BinOp, Span)> = right_steps
            .into_iter()
            .map(|(lhs, op, op_span)| (self.infer_value(cx, lhs), lhs.span, op, op_span))
            .collect();
        let mut acc = self.infer_value(cx, rightmost);
        let mut acc_span = rightmost.span;
        for (lhs, lhs_span, op, op_span) in lefts.into_iter().rev() {
            acc = self.operator(
                cx,
                op,
                op_span,
                (lhs, lhs_span),
                Operand::Done(acc, acc_span),
            );
            acc_span = lhs_span.to(acc_span);
        }
        acc
    }

    /// Types one operator application, resolving the operator by its operands' type.
    pub(in crate::check) fn operator<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        op: BinOp,
        op_span: Span,
        lhs: ((RcTerm, RcTerm), Span),
        rhs: Operand<'s>,
    ) -> (RcTerm, RcTerm) {
        let b = self.program.builtins;
        let bool_ty = Term::Data(b.bool_).rc();
        let ((l, lt), l_span) = lhs;
        match op {
            BinOp::And | BinOp::Or => {
                self.expect(cx, l_span, &lt, &bool_ty);
                let r = self.operand_against(cx, rhs, &bool_ty);
                let t = if op == BinOp::And {
                    bool_match(b, l, r, Term::Con(b.false_).rc(), op_span)
                } else {
                    bool_match(b, l, Term::Con(b.true_).rc(), r, op_span)
                };
                (t, bool_ty)
            }
            BinOp::Eq | BinOp::Ne => {
                let r = self.operand_against(cx, rhs, &lt);
                let p = if op == BinOp::Eq { Prim::Eq } else { Prim::Ne };
                (Term::apps(Term::Prim(p, op_span).rc(), [l, r]), bool_ty)
            }
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge => {
                let ordering = matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
                if ordering
                    && let Some(t) =
                        self.ordered_by_instance(cx, op, op_span, (&l, &lt, l_span), &rhs)
                {
                    return t;
                }
                let allowed = if ordering {
                    Allowed::Ordered
                } else {
                    Allowed::Numbers
                };
                let (r, ty) =
                    self.same_operands(cx, op, op_span, (l.clone(), lt, l_span), rhs, allowed);
                let p = crate::check::prim_types::arith_prim(op);
                let result = if ordering { bool_ty } else { ty };
                (Term::apps(Term::Prim(p, op_span).rc(), [l, r]), result)
            }
            BinOp::Pow => {
                // `Int ^ Int : Int` and `Float ^ Int : Float`: the exponent is an `Int`.
                let int = Term::PrimType(PrimType::Int).rc();
                let lw = self.whnf(cx, &lt, l_span);
                let base = if matches!(&*lw, Term::PrimType(PrimType::Float)) {
                    lw
                } else {
                    self.expect(cx, l_span, &lt, &int);
                    int.clone()
                };
                let r = self.operand_against(cx, rhs, &int);
                (
                    Term::apps(Term::Prim(Prim::Pow, op_span).rc(), [l, r]),
                    base,
                )
            }
            BinOp::Concat => self.concat(cx, op_span, (l, lt, l_span), rhs),
            BinOp::Cons => {
                // `x :: xs` is the prelude's `Cons x xs`: `xs` is a list of `x`'s type.
                let what = "the type of a list's elements";
                self.check_sugar_universe(cx, b.list, 0, &lt, l_span, what);
                let list = Term::App(Term::Data(b.list).rc(), Plicity::Explicit, lt.clone()).rc();
                let r = self.operand_against(cx, rhs, &list);
                let cons = Term::App(Term::Con(b.cons).rc(), Plicity::Implicit, lt).rc();
                (Term::apps(cons, [l, r]), list)
            }
        }
    }

    /// `l < r` on a type that is neither a number nor a string nor unknown yet: the
    /// prelude's `derive'lt` (and so on), through the type's `Ord` instance. `None`
    /// leaves the operator to the primitives.
    fn ordered_by_instance<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        op: BinOp,
        op_span: Span,
        lhs: (&RcTerm, &RcTerm, Span),
        rhs: &Operand<'s>,
    ) -> Option<(RcTerm, RcTerm)> {
        let (l, lt, l_span) = lhs;
        let lw = self.whnf(cx, lt, l_span);
        if self.is_unsolved_meta(&lw)
            || Allowed::Ordered.accepts(&lw, self.program.builtins.list)
            || self.is_recovery(&lw)
        {
            return None;
        }
        let name = match op {
            BinOp::Lt => "derive'lt",
            BinOp::Le => "derive'le",
            BinOp::Gt => "derive'gt",
            _ => "derive'ge",
        };
        let Some((Global::Def(id), _)) = self.scopes[PRELUDE_UNIT].get(name) else {
            return None; // A test's own prelude, without `Ord`.
        };
        let ty = self.program.def(id).ty.clone();
        let (f, fty) = self.insert_implicits(cx, Term::Def(id).rc(), ty, op_span);
        let want = self.whnf(cx, &fty, op_span);
        let Term::Pi(b, _) = &*want else { return None };
        self.expect(cx, l_span, lt, &b.ty.clone());
        let r = match rhs {
            Operand::Expr(e) => self.check(cx, e, lt),
            Operand::Done((t, rt), span) => {
                self.expect(cx, *span, rt, lt);
                t.clone()
            }
        };
        let bool_ty = Term::Data(self.program.builtins.bool_).rc();
        Some((Term::apps(f, [l.clone(), r]), bool_ty))
    }

    /// Checks the right operand against `ty`.
    pub(in crate::check) fn operand_against<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        rhs: Operand<'s>,
        ty: &RcTerm,
    ) -> RcTerm {
        match rhs {
            Operand::Expr(e) => self.check(cx, e, ty),
            Operand::Done((t, rt), span) => {
                self.expect(cx, span, &rt, ty);
                t
            }
        }
    }

    /// The right operand, inferred.
    pub(in crate::check) fn operand_infer<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        rhs: Operand<'s>,
    ) -> ((RcTerm, RcTerm), Span) {
        match rhs {
            Operand::Expr(e) => (self.infer_value(cx, e), e.span),
            Operand::Done(x, span) => (x, span),
        }
    }

    /// Makes both operands of `op` have one type that `allowed` accepts (now, or at the
    /// end if it is still unknown: the primitive itself works on any of them). Returns
    /// the right operand and the type.
    pub(in crate::check) fn same_operands<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        op: BinOp,
        op_span: Span,
        lhs: (RcTerm, RcTerm, Span),
        rhs: Operand<'s>,
        allowed: Allowed,
    ) -> (RcTerm, RcTerm) {
        let list = self.program.builtins.list;
        let (_, lt, l_span) = lhs;
        let lw = self.whnf(cx, &lt, l_span);
        if allowed.accepts(&lw, list) {
            let r = self.operand_against(cx, rhs, &lw);
            return (r, lw);
        }
        if self.is_unsolved_meta(&lw) {
            let ((r, rt), r_span) = self.operand_infer(cx, rhs);
            let rw = self.whnf(cx, &rt, r_span);
            if allowed.accepts(&rw, list) {
                self.expect(cx, l_span, &lt, &rw);
                return (r, rw);
            }
            if self.is_unsolved_meta(&rw) {
                self.expect(cx, r_span, &rt, &lt);
                self.deferred.push(Deferred {
                    ty: lt.clone(),
                    ctx: cx.entries.clone(),
                    allowed,
                    op,
                    span: op_span,
                    head: None,
                });
                return (r, lt);
            }
            let shown = self.show(cx, &rt);
            self.operand_error(op, op_span, allowed, r_span, shown);
            return (r, self.recovery_type(cx, op_span));
        }
        let shown = self.show(cx, &lt);
        self.operand_error(op, op_span, allowed, l_span, shown);
        let r = match rhs {
            Operand::Expr(e) => self.infer(cx, e).0,
            Operand::Done((t, _), _) => t,
        };
        (r, self.recovery_type(cx, op_span))
    }

    /// Reports an operand of a type the operator does not work on.
    pub(in crate::check) fn operand_error(
        &mut self,
        op: BinOp,
        op_span: Span,
        allowed: Allowed,
        at: Span,
        shown: String,
    ) {
        self.errors.push(
            Diagnostic::error(format!("`{}` works on {}", op.symbol(), allowed.describe()))
                .at(at, format!("this has type `{shown}`"))
                .also(op_span, "the operator")
                .note(format!("found: {shown}")),
        );
    }

    /// `++` on two `String`s (the `Concat` primitive, which needs both) or two lists
    /// (the prelude's `append`, lazy in its second argument). When the operands' type
    /// is still unknown, so is the operator: an unknown, decided at the end of the
    /// group (see [`Elab::check_deferred`]).
    pub(in crate::check) fn concat<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        op_span: Span,
        lhs: (RcTerm, RcTerm, Span),
        rhs: Operand<'s>,
    ) -> (RcTerm, RcTerm) {
        let l = lhs.0.clone();
        let deferred = self.deferred.len();
        let (r, ty) =
            self.same_operands(cx, BinOp::Concat, op_span, lhs, rhs, Allowed::Concatenable);
        let head = if self.deferred.len() > deferred {
            let head = self.fresh(cx, op_span, "the meaning of `++`");
            if let Some(d) = self.deferred.last_mut() {
                d.head = Some(head.clone());
            }
            head
        } else {
            self.concat_head(&ty, op_span)
        };
        (Term::apps(head, [l, r]), ty)
    }

    /// What `++` on operands of type `ty` (in weak head normal form) is: `append {A}`
    /// on `List A`, the `Concat` primitive otherwise (strings, or a type already
    /// reported).
    fn concat_head(&mut self, ty: &Term, span: Span) -> RcTerm {
        let b = self.program.builtins;
        if let Some(args) = data_args(ty, b.list)
            && let [elem] = args.as_slice()
        {
            match b.append {
                Some(append) => {
                    return Term::App(Term::Def(append).rc(), Plicity::Implicit, elem.clone()).rc();
                }
                None => self.errors.push(
                    Diagnostic::error("`++` on lists needs the prelude's `append`")
                        .at(span, "the prelude in use has no `append`"),
                ),
            }
        }
        Term::Prim(Prim::Concat, span).rc()
    }
}
