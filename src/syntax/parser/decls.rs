//! Declarations (`def`, `data`, `extern`, `import`) and the parameter lists they share
//! with `let` and lambdas, with the recovery that skips a broken declaration and goes on
//! with the next one.

use super::exprs::starts_atom;
use super::*;
use crate::syntax::ast::{DataKind, DefRole};

impl<'a> Parser<'a, '_> {
    /// Declarations up to the end of the input, recovering after errors.
    pub(super) fn module(&mut self) -> Vec<Decl<'a>> {
        let mut decls = Vec::new();
        while !self.at(TokenKind::Eof) {
            if self.too_many_errors() {
                let d = Diagnostic::error("too many syntax errors; not reporting more")
                    .at(self.tok.span, "stopped parsing here");
                self.diagnostics.push(d);
                break;
            }
            self.depth = 0;
            self.open.clear();
            self.layout = None;
            self.outer_arm_col = None;
            self.block_layout = None;
            if self.at(TokenKind::Break) {
                self.bump();
            }
            match self.decl() {
                Ok(decl) => {
                    let extra = std::mem::take(&mut self.extra);
                    self.block_layout = None;
                    if self.at(TokenKind::Break) {
                        self.bump();
                    }
                    if !self.at(TokenKind::Eof) && !self.tok.kind.starts_declaration() {
                        self.stray_token(
                            "expected a new declaration (def, data, record, interface, instance, extern or import)",
                        );
                        if let Decl::Def { body, .. } = &decl
                            && applies_where(body)
                            && let Some(d) = self.diagnostics.last_mut()
                            && d.notes.is_empty()
                        {
                            d.notes.push(
                                "help: `where` starts its own line after the def's body, then \
                                 one binding per line"
                                    .to_string(),
                            );
                        }
                        self.recover();
                    }
                    decls.push(decl);
                    decls.extend(extra);
                }
                Err(Abort) => {
                    self.extra.clear();
                    self.layout = None;
                    self.block_layout = None;
                    if self.at(TokenKind::Break) {
                        self.bump();
                    }
                    self.recover()
                }
            }
        }
        decls
    }

    /// Skips to the next declaration keyword at the start of a line.
    pub(super) fn recover(&mut self) {
        while !self.at_declaration_boundary() {
            self.bump();
        }
    }

    /// One declaration, by its keyword.
    pub(super) fn decl(&mut self) -> PResult<Decl<'a>> {
        match self.tok.kind {
            TokenKind::Def => self.def_decl(),
            TokenKind::Total => {
                self.bump();
                let mut decl = self.def_decl()?;
                if let Decl::Def { role, .. } = &mut decl {
                    *role = DefRole::Total;
                }
                Ok(decl)
            }
            TokenKind::Data => self.data_decl(),
            TokenKind::Extern => self.extern_decl(),
            TokenKind::Import => self.import_decl(),
            TokenKind::Record => self.record_decl(),
            TokenKind::Interface => self.interface_decl(),
            TokenKind::Instance => self.instance_decl(),
            _ => Err(self.unexpected(
                "a declaration (def, data, record, interface, instance, extern or import)",
            )),
        }
    }

    /// A name (not `_`), as after `def`.
    pub(super) fn name(&mut self, what: &str) -> PResult<Ident<'a>> {
        match self.tok.kind {
            TokenKind::Ident(name) => {
                let tok = self.bump();
                Ok(Self::ident(tok, name))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// Reports (without stopping) a type or constructor name that is not capitalised.
    pub(super) fn check_capitalised(&mut self, name: Ident<'a>, what: &str) {
        if !is_constructor_name(name.name) {
            let d = Diagnostic::error(format!("{what} names must start with an uppercase letter"))
                .at(name.span, format!("'{}' is not capitalised", name.name));
            self.fail(d);
        }
    }

    /// `name params : ret =`, the head of a `def` (with or without the keyword), up to
    /// and including the `=`.
    pub(super) fn def_head(
        &mut self,
        what: &str,
    ) -> PResult<(Ident<'a>, Vec<Param<'a>>, Option<&'a Expr<'a>>)> {
        let name = self.name(what)?;
        let params = self.params()?;
        let ret = self.annotation()?;
        self.expect(
            TokenKind::Equals,
            if ret.is_some() {
                "'='"
            } else {
                "'=', ':' or a parameter"
            },
        )?;
        Ok((name, params, ret))
    }

    /// `def name params : ret = body`
    pub(super) fn def_decl(&mut self) -> PResult<Decl<'a>> {
        let start = self.bump().span;
        let (name, params, ret) = self.def_head("a name after 'def'")?;
        let mut body: &'a Expr<'a> = self.expr()?;
        if self.at_where_clause() {
            body = self.where_clause(body)?;
        }
        Ok(Decl::Def {
            role: DefRole::Plain,
            name,
            params: self.alloc_params(params),
            ret,
            body,
            span: self.since(start),
        })
    }

    /// `where` and its bindings after a `def`'s body, one per line, all starting at
    /// the column of the first (`name = e`, `name : T = e`, `f (x : A) : R = e`,
    /// `f x y = e`); a binding ends where a line starts at that column or further
    /// left. Desugared to `let`s around the body, the first binding outermost: each
    /// binding is recursive and sees the bindings above it.
    pub(super) fn where_clause(&mut self, body: &'a Expr<'a>) -> PResult<&'a Expr<'a>> {
        let where_span = self.bump().span;
        let starts_binding =
            |kind: TokenKind<'_>| matches!(kind, TokenKind::Ident(_) | TokenKind::Underscore);
        if !starts_binding(self.tok.kind) || self.at_declaration_boundary() {
            return Err(self.missing(
                "a binding such as `name = expression`",
                where_span,
                "this 'where' needs at least one binding",
            ));
        }
        let col = self.column();
        let saved = self.layout.replace((col, self.open.len()));
        let mut bindings = Vec::new();
        let result = loop {
            match self.where_binding(where_span) {
                Ok(b) => bindings.push(b),
                Err(abort) => break Err(abort),
            }
            let next = self.tok.line_start && self.column() == col;
            if !(next && starts_binding(self.tok.kind)) || self.at_where_clause() {
                break Ok(());
            }
        };
        self.layout = saved;
        result?;
        let mut acc = body;
        for (start, name, params, ret, rhs) in bindings.into_iter().rev() {
            let span = start.to(body.span).to(rhs.span);
            let kind = ExprKind::Let(self.arena.alloc(LetExpr {
                name,
                params,
                ret,
                rhs,
                body: acc,
            }));
            acc = self.arena.alloc(Expr { kind, span });
        }
        Ok(acc)
    }

    /// One `where` binding: `name params : ret = rhs`.
    #[allow(clippy::type_complexity)]
    fn where_binding(
        &mut self,
        where_span: Span,
    ) -> PResult<(
        Span,
        Ident<'a>,
        &'a [Param<'a>],
        Option<&'a Expr<'a>>,
        &'a Expr<'a>,
    )> {
        let Some(name) = self.binder_name() else {
            return Err(self.unexpected("a name to bind"));
        };
        let params = self.params()?;
        let ret = self.annotation()?;
        self.expect_for(
            TokenKind::Equals,
            "'='",
            where_span,
            "in a binding of this 'where'",
        )?;
        let rhs: &'a Expr<'a> = self.expr()?;
        Ok((name.span, name, self.alloc_params(params), ret, rhs))
    }

    /// `data Name params = C1 fields | C2 fields ...`, or `data Name params`.
    pub(super) fn data_decl(&mut self) -> PResult<Decl<'a>> {
        let start = self.bump().span;
        let name = self.name("a type name after 'data'")?;
        self.check_capitalised(name, "data type");
        let params = self.params()?;
        let mut ctors = Vec::new();
        if self.eat(TokenKind::Equals) {
            self.eat(TokenKind::Bar);
            loop {
                ctors.push(self.ctor_decl()?);
                if !self.eat(TokenKind::Bar) {
                    break;
                }
            }
        }
        let deriving = self.deriving()?;
        let decl = Decl::Data {
            kind: DataKind::Data,
            name,
            params: self.alloc_params(params),
            ctors: self.arena.alloc_slice_fill_iter(ctors),
            span: self.since(start),
        };
        self.derive_all(&decl, &deriving);
        Ok(decl)
    }

    /// One alternative of a `data` declaration: a constructor and its atomic fields.
    pub(super) fn ctor_decl(&mut self) -> PResult<CtorDecl<'a>> {
        let name = self.name("a constructor name")?;
        self.check_capitalised(name, "constructor");
        let mut fields = Vec::new();
        while starts_atom(self.tok.kind) && !self.at_word("deriving") && !self.at_where_clause() {
            fields.push(self.atom()?);
        }
        Ok(CtorDecl {
            name,
            fields: self.alloc_exprs(fields),
            field_names: &[],
            span: self.since(name.span),
        })
    }

    /// `extern name : T`
    pub(super) fn extern_decl(&mut self) -> PResult<Decl<'a>> {
        let start = self.bump().span;
        let name = self.name("a name after 'extern'")?;
        self.expect(TokenKind::Colon, "':' and the external's type")?;
        let ty = self.expr()?;
        Ok(Decl::Extern {
            name,
            ty,
            span: self.since(start),
        })
    }

    /// `import "path"`
    pub(super) fn import_decl(&mut self) -> PResult<Decl<'a>> {
        let start = self.bump().span;
        match self.tok.kind {
            TokenKind::Str(path) => {
                self.bump();
                Ok(Decl::Import {
                    path,
                    span: self.since(start),
                })
            }
            _ => Err(self.unexpected("a file path in quotes after 'import'")),
        }
    }

    /// `: T` if present.
    pub(super) fn annotation(&mut self) -> PResult<Option<&'a Expr<'a>>> {
        if !self.eat(TokenKind::Colon) {
            return Ok(None);
        }
        let ty = self.expr()?;
        Ok(Some(ty))
    }

    /// Parameters of a `def`, `let`, lambda or `data`: `x`, `_`, `(x : A)`,
    /// `(x y : A)`, `{b : Type}`, `{b}`, as many as are written (maybe none).
    pub(super) fn params(&mut self) -> PResult<Vec<Param<'a>>> {
        let mut params = Vec::new();
        loop {
            if self.at_word("where") {
                return Ok(params);
            }
            match self.tok.kind {
                TokenKind::LParen => {
                    self.param_group(Delim::Paren, Plicity::Explicit, &mut params)?
                }
                TokenKind::LBrace => {
                    self.param_group(Delim::Brace, Plicity::Implicit, &mut params)?
                }
                _ => match self.binder_name() {
                    Some(name) => params.push(Param {
                        name,
                        ty: None,
                        plicity: Plicity::Explicit,
                        span: name.span,
                    }),
                    None => return Ok(params),
                },
            }
        }
    }

    /// A bound name: an identifier or `_`.
    pub(super) fn binder_name(&mut self) -> Option<Ident<'a>> {
        let name = match self.tok.kind {
            TokenKind::Ident(name) => name,
            TokenKind::Underscore => "_",
            _ => return None,
        };
        let tok = self.bump();
        Some(Self::ident(tok, name))
    }

    /// `(x y : A)` or `{x y : A}` or `{x}`: one parameter per name, sharing the type.
    pub(super) fn param_group(
        &mut self,
        delim: Delim,
        plicity: Plicity,
        out: &mut Vec<Param<'a>>,
    ) -> PResult<()> {
        let open = self.open_delim(delim);
        let first = out.len();
        while let Some(name) = self.binder_name() {
            out.push(Param {
                name,
                ty: None,
                plicity,
                span: name.span,
            });
        }
        if out.len() == first {
            return Err(self.unexpected("a parameter name"));
        }
        let ty = self.annotation()?;
        let close = match (delim, ty.is_some()) {
            (Delim::Brace, true) => "'}'",
            (Delim::Brace, false) => "':' or '}'",
            (_, true) => "')'",
            (_, false) => "':' or ')'",
        };
        self.close_delim(delim, close)?;
        let span = self.since(open);
        for param in &mut out[first..] {
            param.ty = ty;
            param.span = span;
        }
        Ok(())
    }
}

/// Whether the last expression of `e` (through operators and `let` bodies) applies
/// something to a variable named `where`: `def f = g x where y = 1`, with `where` in
/// the middle of a line, where it is a name.
fn applies_where(e: &Expr<'_>) -> bool {
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Binary { rhs, .. } => cur = rhs,
            ExprKind::Let(l) => cur = l.body,
            ExprKind::App { fun, arg, .. } => {
                if matches!(arg.kind, ExprKind::Var("where")) {
                    return true;
                }
                cur = fun;
            }
            _ => return false,
        }
    }
}
