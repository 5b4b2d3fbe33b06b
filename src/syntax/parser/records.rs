//! Records and interfaces (issue 29): `record` and `interface` declarations, `instance`
//! declarations, `deriving` clauses, constraints `C a => T`, and the record forms of
//! expressions and patterns (`{ f = e }`, `{ r | f = e }`, `r.f`, `{ f = p, .. }`).
//!
//! A record is kept as a data type of one constructor whose fields have names; an
//! interface is a record of methods (the dictionary an instance argument passes), each
//! method a `def` that takes the dictionary as an implicit argument; an instance is a
//! `def` of the interface's type whose body is a record of the methods. So the
//! elaborator sees `data` and `def` declarations, marked with what they were written
//! as ([`DataKind`], [`DefRole`]).
//!
//! The methods of an `interface` or `instance` are a layout block: one per line, all
//! starting in the column of the first; a line that starts further left (or at that
//! column) ends the method before it (see [`Parser::bump`]).

use super::exprs::starts_atom;
use super::*;
use crate::syntax::ast::{DataKind, DefRole, FieldInit};

/// The name of the one constructor of a record or interface `name`: its own name, not
/// entered in scope (a record is built and matched by its fields).
pub(super) fn record_con_name<'a>(_arena: &'a Bump, name: &'a str) -> &'a str {
    name
}

/// The name of the implicit parameter that holds a constraint's dictionary (with a
/// `'`, so that it is no name a program means).
pub(super) const DICT: &str = "dict'";

impl<'a> Parser<'a, '_> {
    /// Whether the current token is the name `word` (a word that is a keyword only in
    /// one position: `where`, `deriving`).
    pub(super) fn at_word(&self, word: &str) -> bool {
        self.tok.kind == TokenKind::Ident(word)
    }

    /// The source text of `span`, whitespace runs made single spaces (an instance's
    /// name is its head as written).
    fn source_text(&self, span: Span) -> &'a str {
        let text = self.lexer.text_of(span.start as usize, span.end as usize);
        let words: Vec<&str> = text.split_whitespace().collect();
        self.arena.alloc_str(&words.join(" "))
    }

    /// `{ field : T, ... }` of a record declaration.
    fn record_fields(&mut self) -> PResult<(Vec<Ident<'a>>, Vec<Node<'a>>)> {
        let open = self.open_delim(Delim::Brace);
        let (mut names, mut types) = (Vec::new(), Vec::<Node<'a>>::new());
        if !self.at(TokenKind::RBrace) {
            loop {
                let name = self.name("a field name")?;
                if let Some(first) = names.iter().find(|n: &&Ident<'a>| n.name == name.name) {
                    let d =
                        Diagnostic::error(format!("the field `{}` is declared twice", name.name))
                            .at(name.span, "declared again here")
                            .also(first.span, "first declared here");
                    self.fail(d);
                }
                if is_constructor_name(name.name) {
                    let d = Diagnostic::error("field names start with a lowercase letter")
                        .at(name.span, format!("'{}' is capitalised", name.name));
                    self.fail(d);
                }
                self.expect(TokenKind::Colon, "':' and the field's type")?;
                names.push(name);
                types.push(self.expr()?);
                if !self.eat(TokenKind::Comma) {
                    break;
                }
            }
        }
        self.close_delim(Delim::Brace, "',' or '}'")?;
        let _ = open;
        Ok((names, types))
    }

    /// `record Name params = { field : T, ... } deriving (...)`.
    pub(super) fn record_decl(&mut self) -> PResult<Decl<'a>> {
        let start = self.bump().span;
        let name = self.name("a record name after 'record'")?;
        self.check_capitalised(name, "record");
        let params = self.params()?;
        self.expect(TokenKind::Equals, "'=' and the fields in braces")?;
        if !self.at(TokenKind::LBrace) {
            return Err(self.unexpected("'{' and the record's fields"));
        }
        let (names, types) = self.record_fields()?;
        let deriving = self.deriving()?;
        let ctor = CtorDecl {
            name: Ident {
                name: record_con_name(self.arena, name.name),
                span: name.span,
            },
            fields: self.alloc_exprs(types),
            field_names: self.arena.alloc_slice_copy(&names),
            span: self.since(start),
        };
        let decl = Decl::Data {
            kind: DataKind::Record,
            name,
            params: self.alloc_params(params),
            ctors: self.arena.alloc_slice_fill_iter([ctor]),
            span: self.since(start),
        };
        self.derive_all(&decl, &deriving);
        Ok(decl)
    }

    /// `deriving (C1, C2)` or `deriving C`, if present.
    pub(super) fn deriving(&mut self) -> PResult<Vec<Ident<'a>>> {
        if !self.at_word("deriving") {
            return Ok(Vec::new());
        }
        self.bump();
        let mut names = Vec::new();
        if self.at(TokenKind::LParen) {
            self.open_delim(Delim::Paren);
            loop {
                names.push(self.name("an interface name")?);
                if !self.eat(TokenKind::Comma) {
                    break;
                }
            }
            self.close_delim(Delim::Paren, "',' or ')'")?;
        } else {
            names.push(self.name("an interface name after 'deriving'")?);
        }
        Ok(names)
    }

    /// The items of a layout block after `where`: each parsed by `item`, one per line,
    /// all in the column of the first. None when the next token does not start a line
    /// (or starts a declaration).
    fn layout_block<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut items = Vec::new();
        if !self.tok.line_start
            || self.tok.kind.starts_declaration()
            || matches!(self.tok.kind, TokenKind::Eof | TokenKind::Break)
        {
            return Ok(items);
        }
        let col = self.lexer.column(self.tok.span.start);
        if col == 0 {
            return Ok(items);
        }
        let outer = self.block_layout.replace(col);
        let result = loop {
            match item(self) {
                Ok(x) => items.push(x),
                Err(e) => break Err(e),
            }
            if !self.at(TokenKind::Break) {
                if self.at(TokenKind::Eof) {
                    break Ok(());
                }
                break Err(self.unexpected("the end of the line"));
            }
            let next = self.held.expect("a break holds the token after it");
            if self.lexer.column(next.span.start) != col || next.kind.starts_declaration() {
                break Ok(());
            }
            self.bump();
        };
        self.block_layout = outer;
        if self.at(TokenKind::Break) {
            self.bump();
        }
        result.map(|()| items)
    }

    /// `interface Name (a : Type) where` and one `method : T` per line.
    pub(super) fn interface_decl(&mut self) -> PResult<Decl<'a>> {
        let start = self.bump().span;
        let name = self.name("an interface name after 'interface'")?;
        self.check_capitalised(name, "interface");
        let params = self.params()?;
        if params.is_empty() {
            let d = Diagnostic::error("an interface needs a type parameter")
                .at(name.span, "as in `interface Show (a : Type) where`");
            return Err(self.fail(d));
        }
        let mut methods = Vec::new();
        if self.at_word("where") {
            self.bump();
            methods = self.layout_block(|p| {
                let m = p.name("a method name")?;
                p.expect(TokenKind::Colon, "':' and the method's type")?;
                let ty = p.expr()?;
                Ok((m, ty))
            })?;
        }
        for (i, (m, _)) in methods.iter().enumerate() {
            if let Some((first, _)) = methods[..i].iter().find(|(f, _)| f.name == m.name) {
                let d = Diagnostic::error(format!("the method `{}` is declared twice", m.name))
                    .at(m.span, "declared again here")
                    .also(first.span, "first declared here");
                self.fail(d);
            }
        }
        let span = self.since(start);
        let names: Vec<Ident<'a>> = methods.iter().map(|(m, _)| *m).collect();
        let types: &'a [Expr<'a>] = self.alloc_exprs(methods.into_iter().map(|(_, t)| t).collect());
        let params = self.alloc_params(params);
        // One definition per method: `def m {a : Type} {#dict : Name a} : T = #dict.m`.
        for (m, ty) in names.iter().zip(types.iter()) {
            let mut ps: Vec<Param<'a>> = params
                .iter()
                .map(|p| Param {
                    plicity: Plicity::Implicit,
                    ..*p
                })
                .collect();
            let mut head: &'a Expr<'a> = self.mk(ExprKind::Var(name.name), name.span);
            for p in params {
                let arg = self.mk(ExprKind::Var(p.name.name), p.span);
                head = self.mk(
                    ExprKind::App {
                        fun: head,
                        arg,
                        plicity: Plicity::Explicit,
                    },
                    name.span,
                );
            }
            ps.push(Param {
                name: Ident {
                    name: DICT,
                    span: m.span,
                },
                ty: Some(head),
                plicity: Plicity::Implicit,
                span: m.span,
            });
            let dict = self.mk(ExprKind::Var(DICT), m.span);
            let body = self.mk(
                ExprKind::Field {
                    expr: dict,
                    field: self.arena.alloc(*m),
                },
                m.span,
            );
            self.extra.push(Decl::Def {
                role: DefRole::Method,
                name: *m,
                params: self.arena.alloc_slice_copy(&ps),
                ret: Some(ty),
                body,
                span: m.span,
            });
        }
        let ctor = CtorDecl {
            name: Ident {
                name: record_con_name(self.arena, name.name),
                span: name.span,
            },
            fields: types,
            field_names: self.arena.alloc_slice_copy(&names),
            span,
        };
        Ok(Decl::Data {
            kind: DataKind::Interface,
            name,
            params,
            ctors: self.arena.alloc_slice_fill_iter([ctor]),
            span,
        })
    }

    /// A node in the arena.
    pub(super) fn mk(&self, kind: ExprKind<'a>, span: Span) -> &'a Expr<'a> {
        self.arena.alloc(Expr { kind, span })
    }

    /// An application of atoms up to `=>`, `where` or the end of the line: an instance's
    /// constraint or head.
    fn instance_type(&mut self) -> PResult<&'a Expr<'a>> {
        if !starts_atom(self.tok.kind) || self.at_word("where") {
            return Err(self.unexpected("an interface applied to a type"));
        }
        let mut head: &'a Expr<'a> = self.atom()?;
        while starts_atom(self.tok.kind) && !self.at_word("where") {
            let arg = self.atom()?;
            let span = head.span.to(arg.span);
            head = self.mk(
                ExprKind::App {
                    fun: head,
                    arg,
                    plicity: Plicity::Explicit,
                },
                span,
            );
        }
        Ok(head)
    }

    /// `instance C1 a => C (T a) where` and one `method params = e` per line.
    pub(super) fn instance_decl(&mut self) -> PResult<Decl<'a>> {
        let start = self.bump().span;
        let first = self.instance_type()?;
        let (constraints, head): (Vec<&'a Expr<'a>>, &'a Expr<'a>) =
            if self.eat(TokenKind::FatArrow) {
                let cs = match &first.kind {
                    ExprKind::Tuple(items) => items.iter().collect(),
                    _ => vec![first],
                };
                (cs, self.instance_type()?)
            } else {
                (Vec::new(), first)
            };
        let mut methods = Vec::new();
        if self.at_word("where") {
            self.bump();
            methods = self.layout_block(|p| {
                let m = p.name("a method name")?;
                let params = p.params()?;
                p.expect(TokenKind::Equals, "'=' and the method's definition")?;
                let body: &'a Expr<'a> = p.expr()?;
                Ok((m, params, body))
            })?;
        }
        let span = self.since(start);
        Ok(self.instance_def(DefRole::Instance, None, head, &constraints, methods, span))
    }

    /// The `def` an instance is: its type variables and constraints as implicit
    /// parameters, the head as its type, the methods as a record.
    pub(super) fn instance_def(
        &mut self,
        role: DefRole,
        for_type: Option<&str>,
        head: &'a Expr<'a>,
        constraints: &[&'a Expr<'a>],
        methods: Vec<(Ident<'a>, Vec<Param<'a>>, &'a Expr<'a>)>,
        span: Span,
    ) -> Decl<'a> {
        let mut vars = Vec::new();
        type_variables(head, &mut vars);
        for c in constraints {
            type_variables(c, &mut vars);
        }
        let mut params: Vec<Param<'a>> = vars
            .iter()
            .map(|v| Param {
                name: *v,
                ty: None,
                plicity: Plicity::Implicit,
                span: v.span,
            })
            .collect();
        for c in constraints {
            params.push(Param {
                name: Ident {
                    name: DICT,
                    span: c.span,
                },
                ty: Some(c),
                plicity: Plicity::Implicit,
                span: c.span,
            });
        }
        let mut fields = Vec::new();
        for (m, ps, body) in methods {
            let value = if ps.is_empty() {
                body
            } else {
                self.mk(
                    ExprKind::Lam {
                        params: self.alloc_params(ps),
                        body,
                    },
                    m.span.to(body.span),
                )
            };
            fields.push(FieldInit { name: m, value });
        }
        let body = self.mk(
            ExprKind::Record(self.arena.alloc_slice_fill_iter(fields)),
            head.span,
        );
        let kind = match role {
            DefRole::Derived => "derived",
            _ => "instance",
        };
        let text = match for_type {
            Some(t) => t,
            None => self.source_text(head.span),
        };
        let mangled: String = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join("'");
        let name = self.arena.alloc_str(&format!("{kind}'{mangled}"));
        Decl::Def {
            role,
            name: Ident {
                name,
                span: head.span,
            },
            params: self.alloc_params(params),
            ret: Some(head),
            body,
            span,
        }
    }

    /// Whether the `{` at hand opens a record value or update rather than an implicit
    /// argument or binder: `{}`, `{ name = ...`, `{ r | ...`, `{ r.f | ...`.
    pub(super) fn brace_is_record(&self) -> bool {
        let [p1, p2] = self.lexer.peek_tokens::<2>();
        let p1 = if self.held.is_some() {
            return false;
        } else {
            p1
        };
        match p1.kind {
            TokenKind::RBrace => true,
            TokenKind::Ident(_) => {
                matches!(p2.kind, TokenKind::Equals | TokenKind::Bar | TokenKind::Dot)
            }
            _ => false,
        }
    }

    /// `{ f = e, ... }`, `{}` or `{ r | f = e, ... }`.
    pub(super) fn record_expr(&mut self) -> PResult<Node<'a>> {
        let open = self.open_delim(Delim::Brace);
        if self.at(TokenKind::RBrace) {
            self.close_delim(Delim::Brace, "'}'")?;
            return Ok(self.node(ExprKind::Record(&[]), open));
        }
        let is_update = !matches!(self.lexer.peek_token().kind, TokenKind::Equals);
        let base = if is_update {
            let base = self.operators()?;
            self.expect(TokenKind::Bar, "'|' and the fields to change")?;
            Some(&*base)
        } else {
            None
        };
        let mut fields = Vec::new();
        loop {
            let name = self.name("a field name")?;
            self.expect(TokenKind::Equals, "'=' and the field's value")?;
            let value = self.expr()?;
            fields.push(FieldInit { name, value });
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        self.close_delim(Delim::Brace, "',' or '}'")?;
        let fields = self.arena.alloc_slice_fill_iter(fields);
        Ok(match base {
            Some(expr) => self.node(ExprKind::Update { expr, fields }, open),
            None => self.node(ExprKind::Record(fields), open),
        })
    }

    /// `e.f.g`: the fields after an atom.
    pub(super) fn fields_after(&mut self, mut e: Node<'a>) -> PResult<Node<'a>> {
        while self.at(TokenKind::Dot) {
            self.bump();
            let field = &*self.arena.alloc(self.name("a field name after '.'")?);
            let start = e.span;
            e = self.node(ExprKind::Field { expr: &*e, field }, start);
        }
        Ok(e)
    }

    /// `{ f = p, g, .. }`: a record pattern.
    pub(super) fn record_pattern(&mut self) -> PResult<PatNode<'a>> {
        let open = self.open_delim(Delim::Brace);
        let mut fields = Vec::new();
        let mut rest = false;
        if !self.at(TokenKind::RBrace) {
            loop {
                if self.eat(TokenKind::DotDot) {
                    rest = true;
                    break;
                }
                let name = self.name("a field name or '..'")?;
                let pat = if self.eat(TokenKind::Equals) {
                    take_pat(self.pattern()?)
                } else {
                    Pat {
                        kind: PatKind::Var(name.name),
                        span: name.span,
                    }
                };
                fields.push((name, pat));
                if !self.eat(TokenKind::Comma) {
                    break;
                }
            }
        }
        self.close_delim(Delim::Brace, "',', '..' or '}'")?;
        let fields = self.arena.alloc_slice_fill_iter(fields);
        Ok(self.pat_node(PatKind::Record { fields, rest }, open))
    }

    /// After an operand of an arrow chain, `=>`: the operand is a constraint (or a tuple
    /// of them), an implicit parameter whose dictionary the elaborator finds.
    pub(super) fn constraint_binders(
        &self,
        segment: &'a Expr<'a>,
        binders: &mut Vec<exprs::Binder<'a>>,
    ) {
        let items: Vec<&'a Expr<'a>> = match &segment.kind {
            ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![segment],
        };
        for c in items {
            binders.push(exprs::Binder {
                name: Some(Ident {
                    name: DICT,
                    span: c.span,
                }),
                plicity: Plicity::Implicit,
                dom: c,
                start: c.span.start,
            });
        }
    }
}

/// The type variables of an instance's head or constraint: its lowercase names, in
/// order of first appearance.
fn type_variables<'a>(e: &'a Expr<'a>, out: &mut Vec<Ident<'a>>) {
    let mut work = vec![e];
    while let Some(e) = work.pop() {
        match &e.kind {
            ExprKind::Var(name)
                if !is_constructor_name(name) && !out.iter().any(|v| v.name == *name) =>
            {
                out.push(Ident { name, span: e.span });
            }
            ExprKind::App { fun, arg, .. } => {
                work.push(arg);
                work.push(fun);
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => work.extend(items.iter().rev()),
            ExprKind::Ann { expr, .. } => work.push(expr),
            _ => {}
        }
    }
}
