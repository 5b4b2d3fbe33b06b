//! The open-ended forms: lambda, `let`, `if` and `match`, each of which extends as far
//! right as possible.
//!
//! Each form ends in a *tail*: a lambda's body, a `let`'s body, an `if`'s `else`
//! branch, a `match`'s last arm. Generated programs chain them on that one side (a
//! thousand `let`s in a row, an `if ... else if ...` ladder, a `match` whose last arm
//! is another `match`), so a chain is parsed in a loop: the heads are collected until a
//! tail that starts no other open-ended form, then the nodes are built from the right.
//! A chain costs one nesting level however long it is; nesting anywhere else (a `let`
//! inside a right-hand side, an `if` inside a condition) still counts against
//! [`MAX_NESTING`].

use super::patterns::starts_pattern_atom;
use super::*;

/// The part of an open-ended form written before its tail.
enum Head<'a> {
    /// `\params ->`
    Lam {
        start: Span,
        params: &'a [Param<'a>],
    },
    /// `let name params : ret = rhs in`
    Let {
        start: Span,
        name: Ident<'a>,
        params: &'a [Param<'a>],
        ret: Option<&'a Expr<'a>>,
        rhs: &'a Expr<'a>,
    },
    /// `if cond then then_ else`
    If {
        start: Span,
        cond: &'a Expr<'a>,
        then_: &'a Expr<'a>,
    },
    /// `match scrut with arms | pat if guard ->`, whose last arm's body is the tail.
    Match {
        start: Span,
        scrut: &'a Expr<'a>,
        arms: Vec<Arm<'a>>,
        pat: &'a Pat<'a>,
        guard: Option<&'a Expr<'a>>,
        outdented: bool,
    },
}

/// What parsing a `match` up to its tail gave.
enum MatchStart<'a> {
    /// The whole `match`: its last arm's body starts no other `match`.
    Done(Node<'a>),
    /// A `match` whose last arm's body is another `match`, still to be parsed.
    Open(Head<'a>),
}

/// Whether a token starts an open-ended form.
fn starts_open_ended(kind: TokenKind<'_>) -> bool {
    matches!(
        kind,
        TokenKind::Backslash | TokenKind::Let | TokenKind::If | TokenKind::Match
    )
}

impl<'a> Parser<'a, '_> {
    /// A lambda, `let`, `if` or `match` (or a chain of them) if one starts here.
    pub(super) fn open_ended(&mut self) -> PResult<Option<Node<'a>>> {
        if !starts_open_ended(self.tok.kind) {
            return Ok(None);
        }
        let mut heads = Vec::new();
        let tail = loop {
            let head = match self.tok.kind {
                TokenKind::Backslash => self.lambda_head()?,
                TokenKind::Let => self.let_head()?,
                TokenKind::If => self.if_head()?,
                TokenKind::Match => match self.match_start()? {
                    MatchStart::Done(node) => break node,
                    MatchStart::Open(head) => head,
                },
                _ => break self.expr()?,
            };
            heads.push(head);
        };
        let end = self.prev_end;
        let mut acc = tail;
        while let Some(head) = heads.pop() {
            acc = self.close(head, acc, end);
        }
        Ok(Some(acc))
    }

    /// The node of `head` around its tail `body`, ending at `end`.
    fn close(&self, head: Head<'a>, body: Node<'a>, end: u32) -> Node<'a> {
        let (kind, start) = match head {
            Head::Lam { start, params } => (ExprKind::Lam { params, body }, start),
            Head::Let {
                start,
                name,
                params,
                ret,
                rhs,
            } => (
                ExprKind::Let(self.arena.alloc(LetExpr {
                    name,
                    params,
                    ret,
                    rhs,
                    body,
                })),
                start,
            ),
            Head::If { start, cond, then_ } => (
                ExprKind::If {
                    cond,
                    then_,
                    else_: body,
                },
                start,
            ),
            Head::Match {
                start,
                scrut,
                mut arms,
                pat,
                guard,
                outdented,
            } => {
                let span = Span::new(self.file, pat.span.start, end);
                arms.push(Arm {
                    pat,
                    guard,
                    outdented,
                    body,
                    span,
                });
                let arms = self.alloc_arms(arms);
                (ExprKind::Match { scrut, arms }, start)
            }
        };
        let span = Span::new(self.file, start.start, end.max(start.start));
        self.arena.alloc(Expr { kind, span })
    }

    /// `\x (y : A) {b} ->`
    fn lambda_head(&mut self) -> PResult<Head<'a>> {
        let start = self.bump().span;
        let params = self.params()?;
        if params.is_empty() {
            return Err(self.unexpected("a parameter after '\\'"));
        }
        self.expect_for(
            TokenKind::Arrow,
            "'->'",
            start,
            "after the parameters of this lambda",
        )?;
        let params = self.alloc_params(params);
        Ok(Head::Lam { start, params })
    }

    /// `let name params : T = rhs in`
    fn let_head(&mut self) -> PResult<Head<'a>> {
        let start = self.bump().span;
        let Some(name) = self.binder_name() else {
            return Err(self.unexpected("a name after 'let'"));
        };
        let params = self.params()?;
        let ret = self.annotation()?;
        self.expect_for(TokenKind::Equals, "'='", start, "in this 'let'")?;
        let rhs = self.expr()?;
        self.expect_for(TokenKind::In, "'in'", start, "this 'let' needs an 'in'")?;
        let params = self.alloc_params(params);
        Ok(Head::Let {
            start,
            name,
            params,
            ret,
            rhs,
        })
    }

    /// `if c then a else`
    fn if_head(&mut self) -> PResult<Head<'a>> {
        let start = self.bump().span;
        let cond = self.expr()?;
        self.expect_for(TokenKind::Then, "'then'", start, "this 'if' needs a 'then'")?;
        let then_ = self.expr()?;
        self.expect_for(
            TokenKind::Else,
            "'else'",
            start,
            "this 'if' needs an 'else'",
        )?;
        Ok(Head::If { start, cond, then_ })
    }

    /// `match e with | p -> e | ...` (the first `|` optional; each arm may have a
    /// guard, `| p if c -> e`), up to an arm whose body is another `match` (which
    /// takes every arm after it). A match with no arms is allowed when something other
    /// than the end of input follows `with`.
    fn match_start(&mut self) -> PResult<MatchStart<'a>> {
        // Set only for a `match` that is the last arm's body of another.
        let outer_col = self.outer_arm_col.take();
        let start = self.bump().span;
        let scrut = self.expr()?;
        self.expect_for(
            TokenKind::With,
            "'with'",
            start,
            "this 'match' needs a 'with'",
        )?;
        let mut arms = Vec::new();
        let bar_tok = self.tok;
        let bar = self.eat(TokenKind::Bar);
        if bar || starts_pattern_atom(self.tok.kind) || self.at(TokenKind::Eof) {
            let mut arm_tok = if bar { bar_tok } else { self.tok };
            loop {
                // Columns are only measured for tokens that start a line (then the
                // cost is the indentation, never the length of a long line).
                let arm_col = arm_tok
                    .line_start
                    .then(|| self.lexer.column(arm_tok.span.start));
                let outdented = arm_col.is_some_and(|a| outer_col.is_some_and(|c| a <= c));
                let pat = self.pattern()?;
                let guard: Option<&'a Expr<'a>> = if self.eat(TokenKind::If) {
                    Some(self.nested(Self::operators)?)
                } else {
                    None
                };
                let after = if guard.is_some() {
                    "'->' after the guard"
                } else {
                    "'->' after the pattern"
                };
                self.expect(TokenKind::Arrow, after)?;
                if self.at(TokenKind::Match) {
                    self.outer_arm_col = arm_col;
                    return Ok(MatchStart::Open(Head::Match {
                        start,
                        scrut,
                        arms,
                        pat,
                        guard,
                        outdented,
                    }));
                }
                let body = self.expr()?;
                let span = self.since(pat.span);
                arms.push(Arm {
                    pat,
                    guard,
                    outdented,
                    body,
                    span,
                });
                if self.ends_by_layout() {
                    break;
                }
                arm_tok = self.tok;
                if !self.eat(TokenKind::Bar) {
                    break;
                }
            }
        }
        let arms = self.alloc_arms(arms);
        Ok(MatchStart::Done(
            self.node(ExprKind::Match { scrut, arms }, start),
        ))
    }
}
