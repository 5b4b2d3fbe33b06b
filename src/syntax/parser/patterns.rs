//! Patterns: constructors applied to atomic patterns, literals, variables, `_`, the
//! bracketed forms `()`, `(p, q)`, `[p, q]`, and cons `p :: ps` (right-associative,
//! parsed in a loop).

use super::*;

/// Whether a token can start an atomic pattern (a constructor argument).
pub(super) fn starts_pattern_atom(kind: TokenKind<'_>) -> bool {
    use TokenKind as T;
    matches!(
        kind,
        T::Ident(_)
            | T::Int(_)
            | T::Float(_)
            | T::Str(_)
            | T::Char(_)
            | T::Underscore
            | T::LParen
            | T::LBracket
            | T::LBrace
    )
}

impl<'a> Parser<'a, '_> {
    /// A pattern, one nesting level deeper.
    pub(super) fn pattern(&mut self) -> PResult<PatNode<'a>> {
        self.nested(Self::pattern_unguarded)
    }

    /// A new pattern node spanning from `start` to the last consumed token.
    pub(super) fn pat_node(&self, kind: PatKind<'a>, start: Span) -> PatNode<'a> {
        let span = self.since(start);
        self.arena.alloc(Pat { kind, span })
    }

    /// A chain `p1 :: p2 :: ... :: pn` (or one pattern), each `pi` a constructor
    /// application or an atomic pattern; grouped to the right, built in a loop.
    pub(super) fn pattern_unguarded(&mut self) -> PResult<PatNode<'a>> {
        let first = self.pattern_app()?;
        if !self.at(TokenKind::ColonColon) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(TokenKind::ColonColon) {
            items.push(self.pattern_app()?);
        }
        let mut acc = items.pop().ok_or(Abort)?;
        while let Some(head) = items.pop() {
            let span = head.span.to(acc.span);
            let kind = PatKind::Cons { head, tail: acc };
            acc = self.arena.alloc(Pat { kind, span });
        }
        Ok(acc)
    }

    /// A constructor applied to atomic patterns, or an atomic pattern.
    pub(super) fn pattern_app(&mut self) -> PResult<PatNode<'a>> {
        let TokenKind::Ident(name) = self.tok.kind else {
            return self.pattern_atom();
        };
        if !is_constructor_name(name) {
            return self.pattern_atom();
        }
        let name = Self::ident(self.bump(), name);
        let mut args = Vec::new();
        while starts_pattern_atom(self.tok.kind) {
            args.push(self.pattern_atom()?);
        }
        let args = self.alloc_pats(args);
        Ok(self.pat_node(PatKind::Con { name, args }, name.span))
    }

    /// A variable, `_`, a literal, a constructor without arguments, or a bracketed
    /// pattern.
    pub(super) fn pattern_atom(&mut self) -> PResult<PatNode<'a>> {
        let kind = match self.tok.kind {
            TokenKind::Ident(name) if is_constructor_name(name) => PatKind::Con {
                name: Self::ident(self.tok, name),
                args: &[],
            },
            TokenKind::Ident(name) => PatKind::Var(name),
            TokenKind::Underscore => PatKind::Wild,
            TokenKind::Int(n) => PatKind::Int(n),
            TokenKind::Str(s) => PatKind::Str(s),
            TokenKind::Char(c) => PatKind::Char(c),
            TokenKind::LParen => return self.paren_pattern(),
            TokenKind::LBracket => return self.list_pattern(),
            TokenKind::LBrace => return self.record_pattern(),
            TokenKind::Float(_) => return Err(self.float_pattern()),
            _ => return Err(self.unexpected("a pattern")),
        };
        let start = self.bump().span;
        Ok(self.pat_node(kind, start))
    }

    /// `()`, `(p)`, `(p1, p2, ...)`.
    pub(super) fn paren_pattern(&mut self) -> PResult<PatNode<'a>> {
        let open = self.open_delim(Delim::Paren);
        if self.at(TokenKind::RParen) {
            self.close_delim(Delim::Paren, "')'")?;
            return Ok(self.pat_node(PatKind::Unit, open));
        }
        let first = self.pattern()?;
        if !self.at(TokenKind::Comma) {
            self.close_delim(Delim::Paren, "')' or ','")?;
            return Ok(first);
        }
        let pats = self.pattern_list(first, Delim::Paren)?;
        Ok(self.pat_node(PatKind::Tuple(pats), open))
    }

    /// `[]`, `[p1, p2, ...]`.
    pub(super) fn list_pattern(&mut self) -> PResult<PatNode<'a>> {
        let open = self.open_delim(Delim::Bracket);
        if self.at(TokenKind::RBracket) {
            self.close_delim(Delim::Bracket, "']'")?;
            return Ok(self.pat_node(PatKind::List(&[]), open));
        }
        let first = self.pattern()?;
        let pats = self.pattern_list(first, Delim::Bracket)?;
        Ok(self.pat_node(PatKind::List(pats), open))
    }

    /// The rest of a comma-separated pattern list, closing bracket included.
    pub(super) fn pattern_list(
        &mut self,
        first: PatNode<'a>,
        delim: Delim,
    ) -> PResult<&'a [Pat<'a>]> {
        let mut pats = vec![first];
        while self.eat(TokenKind::Comma) {
            pats.push(self.pattern()?);
        }
        let expected = match delim {
            Delim::Bracket => "',' or ']'",
            _ => "',' or ')'",
        };
        self.close_delim(delim, expected)?;
        Ok(self.alloc_pats(pats))
    }
}
