//! Definitions typed at the REPL without `def`: `x = e`, `f x y = e`,
//! `f (x : Int) : Int = e`, `x : Int = e`, each meaning the `def` written out.
//!
//! Only [`super::parse_repl_input`] accepts them, and only when the input has that
//! shape before its first `=` (a lowercase name, then parameters or an annotation), so
//! every input that is an expression stays one: `x == 1` has no `=` token, and no
//! expression has a bare `=` at its top level after names and brackets alone.

use super::*;

/// Whether a REPL input (not starting with a declaration keyword) is a definition
/// without `def`: a lowercase name, then lowercase names, `_`, bracketed parameter
/// groups, and optionally `:` and a type, then `=`.
pub(super) fn is_bare_definition(file: FileId, text: &str) -> bool {
    let arena = Bump::new();
    let mut lexer = Lexer::new(&arena, file, text);
    let first = lexer.next_token();
    let TokenKind::Ident(name) = first.kind else {
        return false;
    };
    if is_constructor_name(name) {
        return false;
    }
    let mut depth = 0u32;
    let mut annotated = false;
    loop {
        let tok = lexer.next_token();
        match tok.kind {
            TokenKind::Eof => return false,
            TokenKind::LParen | TokenKind::LBrace | TokenKind::LBracket => depth += 1,
            TokenKind::RParen | TokenKind::RBrace | TokenKind::RBracket => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
            }
            _ if depth > 0 => {}
            TokenKind::Equals => return true,
            TokenKind::Colon => annotated = true,
            _ if annotated => {}
            // Parameters are lowercase: `record Sample = ...` or `instance Show Int
            // where` (declarations whose keywords are names elsewhere) are not
            // definitions of `record` or `instance`.
            TokenKind::Ident(name) if !is_constructor_name(name) => {}
            TokenKind::Underscore => {}
            _ => return false,
        }
    }
}

impl<'a> Parser<'a, '_> {
    /// `name params : ret = body`, a `def` without its keyword.
    pub(super) fn bare_def(&mut self) -> PResult<Decl<'a>> {
        let (name, params, ret) = self.def_head("a name")?;
        let body = self.expr()?;
        if !self.at(TokenKind::Eof) {
            return Err(self.stray_token("the definition is complete"));
        }
        Ok(Decl::Def {
            role: crate::syntax::ast::DefRole::Plain,
            name,
            params: self.alloc_params(params),
            ret,
            body,
            span: self.since(name.span),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse<'a>(arena: &'a Bump, text: &str) -> Result<ReplInput<'a>, ParseFailure> {
        parse_repl_input(arena, FileId(0), text)
    }

    /// The one definition of a REPL input: its name, parameter count and whether it
    /// has a result type.
    fn definition(text: &str) -> Option<(String, usize, bool)> {
        let arena = Bump::new();
        match parse(&arena, text) {
            Ok(ReplInput::Decls(m)) => match m.decls {
                [
                    Decl::Def {
                        name, params, ret, ..
                    },
                ] => Some((name.name.to_string(), params.len(), ret.is_some())),
                _ => None,
            },
            _ => None,
        }
    }

    #[test]
    fn definitions_without_def() {
        assert_eq!(definition("x = 1 + 2"), Some(("x".into(), 0, false)));
        assert_eq!(definition("f x y = x + y"), Some(("f".into(), 2, false)));
        assert_eq!(definition("f _ = 0"), Some(("f".into(), 1, false)));
        assert_eq!(
            definition("f (x : Int) {a : Type} = x"),
            Some(("f".into(), 2, false))
        );
        assert_eq!(definition("x : Int = 5"), Some(("x".into(), 0, true)));
        assert_eq!(
            definition("g (x : Int) : List (Pair Int Int) = [(x, x)]"),
            Some(("g".into(), 1, true))
        );
        assert_eq!(
            definition("-- documented\nx = let y = 1 in y"),
            Some(("x".into(), 0, false))
        );
        assert_eq!(
            definition("x = \\y -> y == 1"),
            Some(("x".into(), 0, false))
        );
    }

    #[test]
    fn expressions_stay_expressions() {
        let arena = Bump::new();
        for text in [
            "x == 1",
            "x",
            "f x y",
            "f (let y = 1 in y)",
            "[let a = 1 in a]",
            "\\x -> x",
            "let x = 1 in x",
            "(x = 1)",
            "Just = 1",
            "1 = 2",
            "x + y = 3",
            "f x == g y",
            "f Nothing = 0",
        ] {
            assert!(
                !matches!(parse(&arena, text), Ok(ReplInput::Decls(_))),
                "{text:?} parsed as declarations"
            );
        }
        // `record` and `instance` start their own declarations, never `record = ...`.
        match parse(&arena, "record Sample = { name : String }") {
            Ok(ReplInput::Decls(m)) => assert!(matches!(
                m.decls,
                [Decl::Data { name, .. }] if name.name == "Sample"
            )),
            other => panic!("a record declaration parsed as {other:?}"),
        }
        match parse(&arena, "instance Show Int where\n  show = showInt") {
            Ok(ReplInput::Decls(m)) => assert!(matches!(
                m.decls,
                [Decl::Def { role, .. }] if role.is_instance()
            )),
            other => panic!("an instance parsed as {other:?}"),
        }
        assert!(matches!(parse(&arena, "x == 1"), Ok(ReplInput::Expr(_))));
        assert!(matches!(
            parse(&arena, "f (let y = 1 in y)"),
            Ok(ReplInput::Expr(_))
        ));
    }

    #[test]
    fn unfinished_and_bad_definitions() {
        let arena = Bump::new();
        for text in ["x =", "f x y =", "f x = (1 +", "x : Int ="] {
            match parse(&arena, text) {
                Err(f) => assert!(f.unfinished, "{text:?}: {:#?}", f.diagnostics),
                Ok(_) => panic!("{text:?} parsed"),
            }
        }
        for text in ["x = 1 )", "x = 1 = 2", "f x = def"] {
            match parse(&arena, text) {
                Err(f) => assert!(!f.unfinished, "{text:?}"),
                Ok(_) => panic!("{text:?} parsed"),
            }
        }
    }
}
