//! Reporting syntax errors: each error is recorded once, as a [`Diagnostic`] naming the
//! place and (where it helps) the construct that needed the missing token or the bracket
//! left open, and signalled upward as [`Abort`]. Kept apart from the grammar so that the
//! grammar functions read as the grammar.

use super::*;

impl<'a> Parser<'a, '_> {
    #[cold]
    pub(super) fn missing(&mut self, what: &str, opener: Span, why: &str) -> Abort {
        self.report_unexpected(what, None, Some((opener, why)))
    }

    #[cold]
    pub(super) fn fail(&mut self, d: Diagnostic) -> Abort {
        self.error_count = self.error_count.saturating_add(1);
        if self.diagnostics.len() < MAX_PARSE_ERRORS {
            self.diagnostics.push(d);
        }
        Abort
    }

    /// Whether enough errors were reported to stop parsing.
    pub(super) fn too_many_errors(&self) -> bool {
        self.error_count >= MAX_PARSE_ERRORS
    }

    /// The current token is the end of input or a declaration keyword starting a line:
    /// the expression being parsed was cut short rather than malformed.
    pub(super) fn at_declaration_boundary(&self) -> bool {
        self.tok.kind == TokenKind::Eof
            || (self.tok.kind.starts_declaration() && self.tok.line_start)
    }

    /// Reports that the current token is not `expected`.
    #[cold]
    pub(super) fn unexpected(&mut self, expected: &str) -> Abort {
        self.report_unexpected(expected, None, None)
    }

    /// Reports that the current token is not `expected`, with an optional note and an
    /// optional secondary place (the construct that needed the token). When the input
    /// was cut short inside a bracket opened after that construct, the unclosed bracket
    /// is what gets reported.
    #[cold]
    pub(super) fn report_unexpected(
        &mut self,
        expected: &str,
        note: Option<&str>,
        needed_by: Option<(Span, &str)>,
    ) -> Abort {
        let tok = self.tok;
        if tok.kind == TokenKind::Eof && self.lexer.hit_eof_error() {
            // The lexer already said the input ends inside a string or comment.
            return Abort;
        }
        if self.at_declaration_boundary()
            && let Some(&(open, delim)) = self.open.last()
            && needed_by.is_none_or(|(opener, _)| opener.start < open.start)
        {
            return self.unclosed(open, delim, expected);
        }
        let mut d = if tok.kind == TokenKind::Eof {
            self.eof_errors += 1;
            Diagnostic::error(format!("unexpected end of input, expected {expected}"))
                .at(tok.span, format!("expected {expected}"))
        } else {
            Diagnostic::error(format!(
                "expected {expected}, found {}",
                tok.kind.describe()
            ))
            .at(tok.span, "unexpected here")
        };
        if let Some((opener, why)) = needed_by {
            d = d.also(opener, why);
        }
        if let Some(note) = note.or_else(|| token_hint(tok.kind)) {
            d = d.note(note);
        }
        self.fail(d)
    }

    /// An open bracket reached the end of the input (or the next declaration).
    #[cold]
    pub(super) fn unclosed(&mut self, open: Span, delim: Delim, expected: &str) -> Abort {
        let name = delim.name();
        let tok = self.tok;
        let d = Diagnostic::error(format!("unclosed {name}"))
            .at(open, format!("this {name} is never closed"));
        let d = if tok.kind == TokenKind::Eof {
            self.eof_errors += 1;
            d.also(
                tok.span,
                format!("the input ends here (expected {expected})"),
            )
        } else {
            d.also(
                tok.span,
                format!("expected {expected} before this declaration"),
            )
        };
        self.fail(d)
    }

    /// A token left over after a complete expression or declaration.
    #[cold]
    pub(super) fn stray_token(&mut self, context: &str) -> Abort {
        let mut d = Diagnostic::error(format!("unexpected token {}", self.tok.kind.describe()))
            .at(self.tok.span, format!("unexpected here: {context}"));
        if let Some(hint) = token_hint(self.tok.kind) {
            d = d.note(hint);
        }
        self.fail(d)
    }

    #[cold]
    pub(super) fn too_deep(&mut self) -> Abort {
        let d = Diagnostic::error(format!(
            "expression nested too deeply (more than {MAX_NESTING} levels)"
        ))
        .at(self.tok.span, "the nesting limit is reached here")
        .note("split the expression with `let` or into several definitions");
        self.fail(d)
    }

    #[cold]
    pub(super) fn bad_close(&mut self, expected: &str) -> Abort {
        if self.at_declaration_boundary() {
            return self.unexpected(expected);
        }
        let mut d = Diagnostic::error(format!(
            "expected {expected}, found {}",
            self.tok.kind.describe()
        ))
        .at(self.tok.span, "unexpected here");
        if let Some(&(open, delim)) = self.open.last() {
            d = d.also(
                open,
                format!("the {} opened here is not closed", delim.name()),
            );
        }
        self.fail(d)
    }

    #[cold]
    pub(super) fn untyped_binder(&mut self, param: &Param<'a>) -> Abort {
        let d = Diagnostic::error("a binder in a function type needs a type")
            .at(param.span, format!("write {{{} : A}}", param.name.name));
        self.fail(d)
    }

    #[cold]
    pub(super) fn chained_comparison(
        &mut self,
        first: BinOp,
        first_span: Span,
        second: BinOp,
        second_span: Span,
    ) -> Abort {
        let d = Diagnostic::error("comparison operators cannot be chained")
            .at(
                second_span,
                format!("'{}' follows another comparison", second.symbol()),
            )
            .also(
                first_span,
                format!("the first comparison '{}'", first.symbol()),
            )
            .note("comparisons are non-associative: write `a < b && b < c`, or add parentheses");
        self.fail(d)
    }

    #[cold]
    pub(super) fn expected_expression(&mut self) -> Abort {
        let note = (self.tok.kind == TokenKind::Minus)
            .then_some("there is no unary minus: write `-3` (no space) for a negative literal, `0 - x` to negate");
        self.report_unexpected("an expression", note, None)
    }

    #[cold]
    pub(super) fn float_pattern(&mut self) -> Abort {
        let d = Diagnostic::error("a Float literal cannot be a pattern")
            .at(self.tok.span, "only Int and String literals can be matched")
            .note("compare floats with `==` or `<` in an `if` instead");
        self.fail(d)
    }

    /// `Type n` with a level past [`MAX_UNIVERSE_LEVEL`] (or a negative one).
    #[cold]
    pub(super) fn bad_universe(&mut self, level: i64, at: Span) -> Abort {
        let d = Diagnostic::error(format!("universe level {level} is out of range"))
            .at(at, format!("levels go from 0 to {MAX_UNIVERSE_LEVEL}"))
            .note("a larger level is never wrapped or saturated: it is an error");
        self.fail(d)
    }
}

/// A hint for a token met where it cannot be, when it is a common habit from another
/// language: `x : xs` for cons, `where` away from a `def`.
pub(super) fn token_hint(kind: TokenKind<'_>) -> Option<&'static str> {
    match kind {
        TokenKind::Colon => Some(
            "help: use `::` for cons (`x :: xs`); a single `:` only gives a type, as in `(e : T)`",
        ),
        TokenKind::Ident("where") => Some(
            "help: `where` belongs to a `def`: it starts its own line after the def's body, \
             then one binding per line; elsewhere use `let name = e in ...`",
        ),
        _ => None,
    }
}
