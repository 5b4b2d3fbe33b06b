//! The parser: tokens to the surface AST (LANGUAGE.md sections 2, 3 and 5).
//!
//! A recursive-descent parser over the pull-based [`Lexer`], with three entry points:
//! [`parse_module`] (a file), [`parse_expr`] (one expression) and [`parse_repl_input`]
//! (either, telling a REPL when the input is merely unfinished).
//!
//! Two rules keep it safe on hostile input:
//!
//! - Nesting is bounded. Every full expression and every pattern is parsed through one
//!   guard that counts depth; parentheses, brackets, braces, lambda bodies, `let`, `if`
//!   and `match` all go through it, and past [`MAX_NESTING`] levels the parser reports
//!   an error instead of growing the native stack.
//! - Flat chains do not recurse. Binary operators are parsed with an explicit operator
//!   stack (both associativities), applications, arrows, lists and tuples with loops.
//!   `1 + 1 + ... + 1` with a million operands costs a million loop turns, not a
//!   million stack frames. So do the open-ended forms chained on their last side (a
//!   `let` whose body is a `let`, `else if`, a lambda returning a lambda, a `match`
//!   whose last arm is a `match`): see `open_ended`.
//!
//! Errors are recorded in the parser as they are found and signalled upward with the
//! zero-sized `Abort`; `parse_module` then skips to the next declaration keyword that
//! starts a line and goes on, so one run reports several independent errors.

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{
    Arm, BinOp, CtorDecl, Decl, Expr, ExprKind, Ident, LetExpr, MAX_UNIVERSE_LEVEL, Module, Param,
    Pat, PatKind, PiExpr, Plicity,
};
use crate::syntax::lexer::{Lexer, Token, TokenKind};
use crate::syntax::span::{FileId, MAX_SOURCE_BYTES, Span};
use bumpalo::Bump;

mod decls;
mod derive;
mod errors;
mod exprs;
mod open_ended;
mod patterns;
mod records;
mod repl;
#[cfg(test)]
mod tests;

/// The deepest nesting of expressions and patterns the parser accepts (parentheses,
/// brackets, braces, lambda bodies, `let` / `if` / `match` inside one another); deeper
/// input is reported as an error. Measured in a debug build, one level costs at most
/// about 2.6 KB of native stack (a `let f (x : ...` parameter type, the longest
/// cycle), so the limit needs about 1.3 MB: safe on a 2 MB thread, with room for the
/// caller. Release builds need far less.
pub const MAX_NESTING: u32 = 500;

/// Syntax errors reported before the parser gives up on the rest of the input.
const MAX_PARSE_ERRORS: usize = 50;

/// Parses a whole file. Always returns a module (possibly missing the declarations that
/// failed to parse) together with every syntax error found.
pub fn parse_module<'a>(
    arena: &'a Bump,
    file: FileId,
    text: &str,
) -> (Module<'a>, Vec<Diagnostic>) {
    let empty = Module { decls: &[] };
    let Some(mut parser) = Parser::new(arena, file, text) else {
        return (empty, vec![too_large(file)]);
    };
    let decls = parser.module();
    let module = Module {
        decls: arena.alloc_slice_fill_iter(decls),
    };
    (module, parser.finish().diagnostics)
}

/// Parses a single expression (the whole text).
pub fn parse_expr<'a>(
    arena: &'a Bump,
    file: FileId,
    text: &str,
) -> Result<&'a Expr<'a>, Vec<Diagnostic>> {
    let Some(parser) = Parser::new(arena, file, text) else {
        return Err(vec![too_large(file)]);
    };
    parser.whole_expr().map_err(|failure| failure.diagnostics)
}

/// What one REPL input turned out to be.
#[derive(Debug)]
pub enum ReplInput<'a> {
    /// Declarations (the input starts with `def`, `data`, `extern` or `import`); no
    /// declarations at all for an empty or comment-only input.
    Decls(Module<'a>),
    /// One expression to evaluate.
    Expr(&'a Expr<'a>),
}

/// Why a REPL input did not parse.
#[derive(Debug)]
pub struct ParseFailure {
    /// The syntax errors, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// Every error is "the input ended too early" (an open parenthesis, a `let`
    /// without `in`, a trailing operator, an unterminated string or block comment):
    /// a REPL should read another line and try again with the longer input.
    pub unfinished: bool,
}

/// Parses one REPL input: declarations if it starts with a declaration keyword, a
/// definition without `def` (`x = e`, `f x y = e`; see `repl`), otherwise a single
/// expression.
pub fn parse_repl_input<'a>(
    arena: &'a Bump,
    file: FileId,
    text: &str,
) -> Result<ReplInput<'a>, ParseFailure> {
    let Some(mut parser) = Parser::new(arena, file, text) else {
        return Err(ParseFailure {
            diagnostics: vec![too_large(file)],
            unfinished: false,
        });
    };
    if parser.tok.kind != TokenKind::Eof && !parser.tok.kind.starts_declaration() {
        if !repl::is_bare_definition(file, text) {
            return parser.whole_expr().map(ReplInput::Expr);
        }
        let decl = parser.bare_def();
        let failure = parser.finish();
        return match decl {
            Ok(decl) if !failure.diagnostics.iter().any(Diagnostic::is_error) => {
                Ok(ReplInput::Decls(Module {
                    decls: arena.alloc_slice_fill_iter([decl]),
                }))
            }
            _ => Err(failure),
        };
    }
    let decls = parser.module();
    let failure = parser.finish();
    if failure.diagnostics.iter().any(Diagnostic::is_error) {
        return Err(failure);
    }
    Ok(ReplInput::Decls(Module {
        decls: arena.alloc_slice_fill_iter(decls),
    }))
}

fn too_large(file: FileId) -> Diagnostic {
    Diagnostic::error("source text too large")
        .at(Span::new(file, 0, 0), "")
        .note(format!("at most {MAX_SOURCE_BYTES} bytes are supported"))
}

/// Marks a failed parse whose error is already recorded in the parser.
struct Abort;

type PResult<T> = Result<T, Abort>;

/// An expression node already in the arena. Mutable so that a node can still be
/// moved out into a slice of values (tuple and list elements, constructor fields).
type Node<'a> = &'a mut Expr<'a>;

/// A pattern node already in the arena.
type PatNode<'a> = &'a mut Pat<'a>;

/// The kinds of brackets, for "unclosed ..." messages.
#[derive(Copy, Clone, Debug)]
enum Delim {
    Paren,
    Bracket,
    Brace,
}

impl Delim {
    fn name(self) -> &'static str {
        match self {
            Delim::Paren => "parenthesis",
            Delim::Bracket => "bracket",
            Delim::Brace => "brace",
        }
    }

    fn close(self) -> TokenKind<'static> {
        match self {
            Delim::Paren => TokenKind::RParen,
            Delim::Bracket => TokenKind::RBracket,
            Delim::Brace => TokenKind::RBrace,
        }
    }
}

/// Constructor and data type names start with an uppercase letter.
fn is_constructor_name(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// The parser state: the current token, the nesting depth, the open brackets (for
/// "unclosed ..." messages) and the errors so far.
struct Parser<'a, 's> {
    arena: &'a Bump,
    file: FileId,
    lexer: Lexer<'a, 's>,
    /// The current (not yet consumed) token.
    tok: Token<'a>,
    /// End of the last consumed token; node spans end here.
    prev_end: u32,
    depth: u32,
    /// Brackets opened and not yet closed, innermost last.
    open: Vec<(Span, Delim)>,
    diagnostics: Vec<Diagnostic>,
    /// Syntax errors found (some may be unrecorded past `MAX_PARSE_ERRORS`).
    error_count: usize,
    /// How many of them were caused by the end of the input.
    eof_errors: usize,
    /// The column of the layout block being parsed (the methods of an `interface` or
    /// `instance`): a token starting a line at or left of it ends the current item.
    block_layout: Option<u32>,
    /// The real token behind a [`TokenKind::Break`] put in its place.
    held: Option<Token<'a>>,
    /// Declarations made along with the one being parsed (a `deriving` clause's
    /// instances, an interface's methods), emitted after it.
    extra: Vec<Decl<'a>>,
    /// Inside a `where` binding: the column of the bindings' names and how many
    /// brackets were open at the binding. A token that starts a line at that column or
    /// further left (with no bracket opened since) ends the binding.
    layout: Option<(u32, usize)>,
    /// Set by a `match` whose last arm's body is another `match` (written without
    /// parentheses) for that inner `match`: the column of the outer arm's `|`. An arm
    /// of the inner `match` starting a line there or further left is marked
    /// [`Arm::outdented`].
    outer_arm_col: Option<u32>,
}

impl<'a, 's> Parser<'a, 's> {
    /// `None` when the text is too large for 32-bit spans.
    fn new(arena: &'a Bump, file: FileId, text: &'s str) -> Option<Parser<'a, 's>> {
        if text.len() > MAX_SOURCE_BYTES {
            return None;
        }
        let mut lexer = Lexer::new(arena, file, text);
        let tok = lexer.next_token();
        Some(Parser {
            arena,
            file,
            lexer,
            tok,
            prev_end: 0,
            depth: 0,
            open: Vec::new(),
            diagnostics: Vec::new(),
            error_count: 0,
            eof_errors: 0,
            layout: None,
            block_layout: None,
            held: None,
            extra: Vec::new(),
            outer_arm_col: None,
        })
    }

    /// All diagnostics (lexical and syntactic) in source order, and whether the input
    /// looks merely unfinished.
    fn finish(self) -> ParseFailure {
        let any = self.error_count > 0 || !self.lexer.diagnostics().is_empty();
        let unfinished = any && self.eof_errors == self.error_count && self.lexer.only_eof_errors();
        let mut diagnostics = self.lexer.into_diagnostics();
        diagnostics.extend(self.diagnostics);
        diagnostics.sort_by_key(|d| d.primary_span().map(|s| s.start));
        ParseFailure {
            diagnostics,
            unfinished,
        }
    }

    /// Parses the whole input as one expression.
    fn whole_expr(mut self) -> Result<&'a Expr<'a>, ParseFailure> {
        let result = self.expr().and_then(|e| {
            if self.at(TokenKind::Eof) {
                Ok(e)
            } else {
                Err(self.stray_token("the expression is complete"))
            }
        });
        let failure = self.finish();
        match result {
            Ok(e) if !failure.diagnostics.iter().any(Diagnostic::is_error) => Ok(e),
            _ => Err(failure),
        }
    }

    /// Consumes the current token and returns it.
    fn bump(&mut self) -> Token<'a> {
        let tok = self.tok;
        if tok.kind != TokenKind::Break {
            self.prev_end = tok.span.end;
        }
        self.tok = match self.held.take() {
            Some(real) => real,
            None => {
                let next = self.lexer.next_token();
                match self.block_layout {
                    Some(col)
                        if next.line_start
                            && next.kind != TokenKind::Eof
                            && self.lexer.column(next.span.start) <= col =>
                    {
                        self.held = Some(next);
                        Token {
                            kind: TokenKind::Break,
                            span: Span::new(self.file, next.span.start, next.span.start),
                            line_start: true,
                        }
                    }
                    _ => next,
                }
            }
        };
        tok
    }

    fn at(&self, kind: TokenKind<'_>) -> bool {
        self.tok.kind == kind
    }

    fn eat(&mut self, kind: TokenKind<'_>) -> bool {
        let found = self.at(kind);
        if found {
            self.bump();
        }
        found
    }

    /// Consumes a token of `kind`, or reports `expected {what}`.
    fn expect(&mut self, kind: TokenKind<'_>, what: &str) -> PResult<()> {
        if self.eat(kind) {
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }

    /// Like [`Parser::expect`], naming the construct that needs the token
    /// (`this 'if' needs an 'else'`).
    fn expect_for(
        &mut self,
        kind: TokenKind<'_>,
        what: &str,
        opener: Span,
        why: &str,
    ) -> PResult<()> {
        if self.eat(kind) {
            return Ok(());
        }
        Err(self.missing(what, opener, why))
    }

    /// A span from `start` to the end of the last consumed token.
    fn since(&self, start: Span) -> Span {
        Span::new(self.file, start.start, self.prev_end.max(start.start))
    }

    fn alloc_params(&self, params: Vec<Param<'a>>) -> &'a [Param<'a>] {
        self.arena.alloc_slice_copy(&params)
    }

    fn alloc_arms(&self, arms: Vec<Arm<'a>>) -> &'a [Arm<'a>] {
        self.arena.alloc_slice_fill_iter(arms)
    }

    fn alloc_exprs(&self, nodes: Vec<Node<'a>>) -> &'a [Expr<'a>] {
        self.arena
            .alloc_slice_fill_iter(nodes.into_iter().map(take))
    }

    fn alloc_pats(&self, nodes: Vec<PatNode<'a>>) -> &'a [Pat<'a>] {
        self.arena
            .alloc_slice_fill_iter(nodes.into_iter().map(take_pat))
    }

    /// A new node spanning from `start` to the last consumed token.
    fn node(&self, kind: ExprKind<'a>, start: Span) -> Node<'a> {
        let span = self.since(start);
        self.arena.alloc(Expr { kind, span })
    }

    fn ident(tok: Token<'a>, name: &'a str) -> Ident<'a> {
        Ident {
            name,
            span: tok.span,
        }
    }

    /// Runs `f` one nesting level deeper, or reports that the input nests too deeply.
    fn nested<T>(&mut self, f: fn(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return Err(self.too_deep());
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// The column of the current token (in characters, from 0).
    fn column(&self) -> u32 {
        self.lexer.column(self.tok.span.start)
    }

    /// The current token is `where` starting a line outside any bracket: the start of
    /// a `where` clause (of a `def`), which ends the expression before it. `where` is
    /// a keyword only there: elsewhere it is a name.
    fn at_where_clause(&self) -> bool {
        self.tok.kind == TokenKind::Ident("where") && self.tok.line_start && self.open.is_empty()
    }

    /// Whether the expression being parsed ends before the current token although the
    /// token could continue it: a `where` clause starts, or the token starts a line at
    /// the column of the `where` bindings or further left (the next binding).
    fn ends_by_layout(&self) -> bool {
        if !self.tok.line_start {
            return false;
        }
        if self.at_where_clause() {
            return true;
        }
        self.layout
            .is_some_and(|(col, open)| self.open.len() <= open && self.column() <= col)
    }

    /// Consumes an opening bracket and remembers it.
    fn open_delim(&mut self, delim: Delim) -> Span {
        let span = self.bump().span;
        self.open.push((span, delim));
        span
    }

    /// Consumes the closing bracket of the innermost open one, or reports it missing.
    fn close_delim(&mut self, delim: Delim, expected: &str) -> PResult<()> {
        if self.at(delim.close()) {
            self.bump();
            self.open.pop();
            return Ok(());
        }
        Err(self.bad_close(expected))
    }
}

/// Moves an expression out of its arena node (for slices of values such as tuple
/// elements), leaving a dead placeholder behind.
fn take<'a>(node: Node<'a>) -> Expr<'a> {
    let placeholder = Expr {
        kind: ExprKind::Unit,
        span: node.span,
    };
    std::mem::replace(node, placeholder)
}

/// Moves a pattern out of its arena node, like [`take`].
fn take_pat<'a>(node: PatNode<'a>) -> Pat<'a> {
    let placeholder = Pat {
        kind: PatKind::Wild,
        span: node.span,
    };
    std::mem::replace(node, placeholder)
}
