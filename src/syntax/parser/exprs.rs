//! Expressions: arrows, binary operators (an explicit operator stack), applications,
//! atoms. The open-ended forms (lambda, `let`, `if`, `match`) are in `open_ended`.

use super::*;

/// One binder of a chain of arrows: `(x : A) ->` (named) or `A ->` (unnamed).
pub(super) struct Binder<'a> {
    pub(super) name: Option<Ident<'a>>,
    pub(super) plicity: Plicity,
    pub(super) dom: &'a Expr<'a>,
    /// Where the binder starts; the Pi node spans from here to its codomain's end.
    pub(super) start: u32,
}

/// The binary operator a token stands for.
pub(super) fn binop(kind: TokenKind<'_>) -> Option<BinOp> {
    use TokenKind as T;
    Some(match kind {
        T::OrOr => BinOp::Or,
        T::AndAnd => BinOp::And,
        T::EqEq => BinOp::Eq,
        T::NotEq => BinOp::Ne,
        T::Lt => BinOp::Lt,
        T::Le => BinOp::Le,
        T::Gt => BinOp::Gt,
        T::Ge => BinOp::Ge,
        T::PlusPlus => BinOp::Concat,
        T::ColonColon => BinOp::Cons,
        T::Plus => BinOp::Add,
        T::Minus => BinOp::Sub,
        T::Star => BinOp::Mul,
        T::Slash => BinOp::Div,
        T::Percent => BinOp::Rem,
        T::Caret => BinOp::Pow,
        _ => return None,
    })
}

/// Binding strength, higher binds tighter (LANGUAGE.md section 3).
pub(super) fn precedence(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
        BinOp::Concat | BinOp::Cons => 4,
        BinOp::Add | BinOp::Sub => 5,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 6,
        BinOp::Pow => 7,
    }
}

/// `||`, `&&`, `++`, `::` and `^` group to the right (LANGUAGE.md section 3,
/// docs/syntax.md).
pub(super) fn is_right_assoc(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Or | BinOp::And | BinOp::Concat | BinOp::Cons | BinOp::Pow
    )
}

/// The comparisons, which do not chain.
pub(super) fn is_comparison(op: BinOp) -> bool {
    precedence(op) == 3
}

/// Whether a token can start an atom (and so an application argument).
pub(super) fn starts_atom(kind: TokenKind<'_>) -> bool {
    use TokenKind as T;
    matches!(
        kind,
        T::Ident(_)
            | T::Int(_)
            | T::Float(_)
            | T::Str(_)
            | T::Char(_)
            | T::Underscore
            | T::Hole(_)
            | T::Type
            | T::LParen
            | T::LBracket
    )
}

impl<'a> Parser<'a, '_> {
    /// A full expression, one nesting level deeper.
    pub(super) fn expr(&mut self) -> PResult<Node<'a>> {
        self.nested(Self::arrows)
    }

    /// A chain of arrows `B1 -> B2 -> ... -> C` (a single segment when there is no
    /// arrow). Binders are collected in a loop and folded from the right.
    pub(super) fn arrows(&mut self) -> PResult<Node<'a>> {
        let mut binders = Vec::new();
        loop {
            if self.at(TokenKind::LBrace) && !self.brace_is_record() {
                self.binder_telescope(&mut binders)?;
                continue;
            }
            let segment = self.operators()?;
            if self.at(TokenKind::FatArrow) {
                self.bump();
                self.constraint_binders(segment, &mut binders);
                continue;
            }
            if !self.at(TokenKind::Arrow) {
                return Ok(self.fold_arrows(binders, segment));
            }
            self.bump();
            push_domain(&mut binders, segment);
        }
    }

    /// Binders written as parameters at the start of an arrow segment, as in
    /// `{a : Type} (x : a) -> ...`, up to and including the `->`.
    pub(super) fn binder_telescope(&mut self, binders: &mut Vec<Binder<'a>>) -> PResult<()> {
        let start = self.tok.span;
        let mut params = Vec::new();
        loop {
            match self.tok.kind {
                TokenKind::LBrace => {
                    self.param_group(Delim::Brace, Plicity::Implicit, &mut params)?
                }
                TokenKind::LParen => {
                    self.param_group(Delim::Paren, Plicity::Explicit, &mut params)?
                }
                _ => break,
            }
        }
        for param in &params {
            let Some(dom) = param.ty else {
                return Err(self.untyped_binder(param));
            };
            binders.push(Binder {
                name: Some(param.name),
                plicity: param.plicity,
                dom,
                start: param.span.start,
            });
        }
        self.expect_for(
            TokenKind::Arrow,
            "'->'",
            start,
            "a binder in braces must be followed by '->'",
        )?;
        Ok(())
    }

    /// The arrows of `binders` around the codomain `cod`, built from the right.
    pub(super) fn fold_arrows(&self, binders: Vec<Binder<'a>>, mut cod: Node<'a>) -> Node<'a> {
        for binder in binders.into_iter().rev() {
            let span = Span::new(self.file, binder.start, cod.span.end);
            let kind = ExprKind::Pi(self.arena.alloc(PiExpr {
                name: binder.name,
                plicity: binder.plicity,
                dom: binder.dom,
                cod,
            }));
            cod = self.arena.alloc(Expr { kind, span });
        }
        cod
    }

    /// Operands separated by binary operators, resolved with an operator stack.
    pub(super) fn operators(&mut self) -> PResult<Node<'a>> {
        let mut operands: Vec<Node<'a>> = Vec::new();
        let mut ops: Vec<(BinOp, Span)> = Vec::new();
        loop {
            let (operand, open_ended) = self.operand()?;
            operands.push(operand);
            if open_ended || self.ends_by_layout() {
                break;
            }
            let Some(op) = binop(self.tok.kind) else {
                break;
            };
            self.push_operator(op, &mut operands, &mut ops)?;
        }
        while let Some((op, op_span)) = ops.pop() {
            self.reduce(&mut operands, op, op_span);
        }
        operands.pop().ok_or(Abort)
    }

    /// Consumes the operator `op`: first reduces the stacked operators that bind at
    /// least as tightly (for a left-associative `op`) or more tightly (right-
    /// associative), then stacks `op`.
    pub(super) fn push_operator(
        &mut self,
        op: BinOp,
        operands: &mut Vec<Node<'a>>,
        ops: &mut Vec<(BinOp, Span)>,
    ) -> PResult<()> {
        let op_span = self.tok.span;
        while let Some(&(top, top_span)) = ops.last() {
            let (p, q) = (precedence(top), precedence(op));
            if p == q && is_comparison(op) {
                return Err(self.chained_comparison(top, top_span, op, op_span));
            }
            if p < q || (p == q && is_right_assoc(op)) {
                break;
            }
            ops.pop();
            self.reduce(operands, top, top_span);
        }
        self.bump();
        ops.push((op, op_span));
        Ok(())
    }

    /// Replaces the two topmost operands by their combination with `op`.
    pub(super) fn reduce(&self, operands: &mut Vec<Node<'a>>, op: BinOp, op_span: Span) {
        // The operator loop keeps one more operand than operators.
        let (Some(rhs), Some(lhs)) = (operands.pop(), operands.pop()) else {
            return;
        };
        let span = lhs.span.to(rhs.span);
        let kind = ExprKind::Binary {
            op,
            op_span,
            lhs,
            rhs,
        };
        operands.push(self.arena.alloc(Expr { kind, span }));
    }

    /// One operand of a binary operator: an application, or a lambda / `let` / `if` /
    /// `match`, which extends as far right as possible (then `true`: no operator can
    /// follow it).
    pub(super) fn operand(&mut self) -> PResult<(Node<'a>, bool)> {
        if let Some(e) = self.open_ended()? {
            return Ok((e, true));
        }
        self.application()
    }

    /// `f a {B} c`, where the last argument may be a lambda / `let` / `if` / `match`
    /// (`f x \y -> y`): then the application is open-ended (`true`).
    pub(super) fn application(&mut self) -> PResult<(Node<'a>, bool)> {
        let mut fun = self.atom()?;
        loop {
            if self.ends_by_layout() {
                return Ok((fun, false));
            }
            let (arg, plicity) = match self.tok.kind {
                TokenKind::LBrace if self.brace_is_record() => (self.atom()?, Plicity::Explicit),
                TokenKind::LBrace => (self.implicit_arg()?, Plicity::Implicit),
                kind if starts_atom(kind) => (self.atom()?, Plicity::Explicit),
                _ => match self.open_ended()? {
                    Some(arg) => return Ok((self.apply(fun, arg, Plicity::Explicit), true)),
                    None => return Ok((fun, false)),
                },
            };
            fun = self.apply(fun, arg, plicity);
        }
    }

    /// The application node `fun arg`.
    pub(super) fn apply(&self, fun: Node<'a>, arg: Node<'a>, plicity: Plicity) -> Node<'a> {
        let start = fun.span;
        self.node(ExprKind::App { fun, arg, plicity }, start)
    }

    /// `{e}` or `{e : T}` as an argument. The annotated form also lets a telescope
    /// `(a : Type) {b : Type} -> ...` reach [`telescope`] as an application.
    pub(super) fn implicit_arg(&mut self) -> PResult<Node<'a>> {
        let open = self.open_delim(Delim::Brace);
        let arg = self.expr()?;
        if !self.eat(TokenKind::Colon) {
            self.close_delim(Delim::Brace, "'}' or ':'")?;
            return Ok(arg);
        }
        let ty = self.expr()?;
        self.close_delim(Delim::Brace, "'}'")?;
        Ok(self.node(ExprKind::Ann { expr: arg, ty }, open))
    }

    /// Names, literals, `Type n`, holes, and bracketed forms, with the record fields
    /// taken from them (`s.name`, binding tighter than application).
    pub(super) fn atom(&mut self) -> PResult<Node<'a>> {
        let e = self.plain_atom()?;
        self.fields_after(e)
    }

    /// An atom without the fields after it.
    fn plain_atom(&mut self) -> PResult<Node<'a>> {
        let kind = match self.tok.kind {
            TokenKind::LBrace => return self.record_expr(),
            TokenKind::Ident(name) => ExprKind::Var(name),
            TokenKind::Int(n) => ExprKind::Int(n),
            TokenKind::Float(x) => ExprKind::Float(x),
            TokenKind::Str(s) => ExprKind::Str(s),
            TokenKind::Char(c) => ExprKind::Char(c),
            TokenKind::Underscore => ExprKind::Hole,
            TokenKind::Hole(name) => ExprKind::TypedHole(name),
            TokenKind::Type => return self.universe(),
            TokenKind::LParen => return self.paren(),
            TokenKind::LBracket => return self.list(),
            _ => return Err(self.expected_expression()),
        };
        let start = self.bump().span;
        Ok(self.node(kind, start))
    }

    /// `Type` or `Type n`.
    pub(super) fn universe(&mut self) -> PResult<Node<'a>> {
        let start = self.bump().span;
        let TokenKind::Int(level) = self.tok.kind else {
            return Ok(self.node(ExprKind::Universe(0), start));
        };
        let level_span = self.bump().span;
        match u32::try_from(level) {
            Ok(level) if level <= MAX_UNIVERSE_LEVEL => {
                Ok(self.node(ExprKind::Universe(level), start))
            }
            _ => Err(self.bad_universe(level, level_span)),
        }
    }

    /// `()`, `(e)`, `(e : T)`, `(a, b, ...)`.
    pub(super) fn paren(&mut self) -> PResult<Node<'a>> {
        let open = self.open_delim(Delim::Paren);
        if self.at(TokenKind::RParen) {
            self.close_delim(Delim::Paren, "')'")?;
            return Ok(self.node(ExprKind::Unit, open));
        }
        let first = self.expr()?;
        match self.tok.kind {
            TokenKind::Colon => {
                self.bump();
                let ty = self.expr()?;
                self.close_delim(Delim::Paren, "')'")?;
                Ok(self.node(ExprKind::Ann { expr: first, ty }, open))
            }
            TokenKind::Comma => {
                let elems = self.comma_list(first, Delim::Paren)?;
                Ok(self.node(ExprKind::Tuple(elems), open))
            }
            _ => {
                self.close_delim(Delim::Paren, "')', ',' or ':'")?;
                Ok(first)
            }
        }
    }

    /// `[]` or `[a, b, ...]`.
    pub(super) fn list(&mut self) -> PResult<Node<'a>> {
        let open = self.open_delim(Delim::Bracket);
        if self.at(TokenKind::RBracket) {
            self.close_delim(Delim::Bracket, "']'")?;
            return Ok(self.node(ExprKind::List(&[]), open));
        }
        let first = self.expr()?;
        let elems = self.comma_list(first, Delim::Bracket)?;
        Ok(self.node(ExprKind::List(elems), open))
    }

    /// The rest of a comma-separated list after its first element, up to and including
    /// the closing bracket. The elements are moved out of their nodes into one slice.
    pub(super) fn comma_list(&mut self, first: Node<'a>, delim: Delim) -> PResult<&'a [Expr<'a>]> {
        let mut elems = vec![first];
        while self.eat(TokenKind::Comma) {
            elems.push(self.expr()?);
        }
        let expected = match delim {
            Delim::Bracket => "',' or ']'",
            _ => "',' or ')'",
        };
        self.close_delim(delim, expected)?;
        Ok(self.alloc_exprs(elems))
    }
}

/// Adds the domain `segment` of an arrow: the binders of a telescope
/// `(x y : A) {b : B} ->`, or one unnamed binder.
pub(super) fn push_domain<'a>(binders: &mut Vec<Binder<'a>>, segment: &'a Expr<'a>) {
    match telescope(segment) {
        Some(named) => binders.extend(named),
        None => binders.push(Binder {
            name: None,
            plicity: Plicity::Explicit,
            start: segment.span.start,
            dom: segment,
        }),
    }
}

/// If `e` is a telescope of annotated names, `(x y : A) {b : Type}`, followed by
/// `->`, its binders: a dependent function type rather than a function from `(x : A)`.
pub(super) fn telescope<'a>(e: &Expr<'a>) -> Option<Vec<Binder<'a>>> {
    // Walk the application spine from the right: each argument and the head must be
    // an annotation of names.
    let mut groups = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::App { fun, arg, plicity } => {
                groups.push((*arg, *plicity));
                cur = fun;
            }
            _ => {
                groups.push((cur, Plicity::Explicit));
                break;
            }
        }
    }
    let mut binders = Vec::new();
    for (group, plicity) in groups.into_iter().rev() {
        let ExprKind::Ann { expr, ty } = group.kind else {
            return None;
        };
        for name in binder_names(expr)? {
            binders.push(Binder {
                name: Some(name),
                plicity,
                dom: ty,
                start: group.span.start,
            });
        }
    }
    Some(binders)
}

/// The names of `x y _` written as an application of variables, left to right.
pub(super) fn binder_names<'a>(e: &Expr<'a>) -> Option<Vec<Ident<'a>>> {
    let as_name = |e: &Expr<'a>| match e.kind {
        ExprKind::Var(name) => Some(Ident { name, span: e.span }),
        ExprKind::Hole => Some(Ident {
            name: "_",
            span: e.span,
        }),
        _ => None,
    };
    let mut names = Vec::new();
    let mut cur = e;
    while let ExprKind::App {
        fun,
        arg,
        plicity: Plicity::Explicit,
    } = cur.kind
    {
        names.push(as_name(arg)?);
        cur = fun;
    }
    names.push(as_name(cur)?);
    names.reverse();
    Some(names)
}
