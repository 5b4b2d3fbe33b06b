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
//!   million stack frames.
//!
//! Errors are recorded in the parser as they are found and signalled upward with the
//! zero-sized `Abort`; `parse_module` then skips to the next declaration keyword that
//! starts a line and goes on, so one run reports several independent errors.

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{
    Arm, BinOp, CtorDecl, Decl, Expr, ExprKind, Ident, Module, Param, Pat, PatKind, Plicity,
};
use crate::syntax::lexer::{Lexer, Token, TokenKind};
use crate::syntax::span::{FileId, MAX_SOURCE_BYTES, Span};
use bumpalo::Bump;

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

/// Parses one REPL input: declarations if it starts with a declaration keyword,
/// otherwise a single expression.
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
        return parser.whole_expr().map(ReplInput::Expr);
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

/// One binder of a chain of arrows: `(x : A) ->` (named) or `A ->` (unnamed).
struct Binder<'a> {
    name: Option<Ident<'a>>,
    plicity: Plicity,
    dom: &'a Expr<'a>,
    /// Where the binder starts; the Pi node spans from here to its codomain's end.
    start: u32,
}

/// The binary operator a token stands for.
fn binop(kind: TokenKind<'_>) -> Option<BinOp> {
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
        T::Plus => BinOp::Add,
        T::Minus => BinOp::Sub,
        T::Star => BinOp::Mul,
        T::Slash => BinOp::Div,
        T::Percent => BinOp::Rem,
        _ => return None,
    })
}

/// Binding strength, higher binds tighter (LANGUAGE.md section 3).
fn precedence(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
        BinOp::Concat => 4,
        BinOp::Add | BinOp::Sub => 5,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 6,
    }
}

fn is_right_assoc(op: BinOp) -> bool {
    matches!(op, BinOp::Or | BinOp::And | BinOp::Concat)
}

fn is_comparison(op: BinOp) -> bool {
    precedence(op) == 3
}

/// Whether a token can start an atom (and so an application argument).
fn starts_atom(kind: TokenKind<'_>) -> bool {
    use TokenKind as T;
    matches!(
        kind,
        T::Ident(_)
            | T::Int(_)
            | T::Float(_)
            | T::Str(_)
            | T::Underscore
            | T::Hole(_)
            | T::Type
            | T::LParen
            | T::LBracket
    )
}

/// Whether a token can start an atomic pattern (a constructor argument).
fn starts_pattern_atom(kind: TokenKind<'_>) -> bool {
    use TokenKind as T;
    matches!(
        kind,
        T::Ident(_) | T::Int(_) | T::Float(_) | T::Str(_) | T::Underscore | T::LParen | T::LBracket
    )
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

    // ---- tokens -------------------------------------------------------------------

    /// Consumes the current token and returns it.
    fn bump(&mut self) -> Token<'a> {
        let tok = self.tok;
        self.prev_end = tok.span.end;
        self.tok = self.lexer.next_token();
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

    #[cold]
    fn missing(&mut self, what: &str, opener: Span, why: &str) -> Abort {
        self.report_unexpected(what, None, Some((opener, why)))
    }

    /// A span from `start` to the end of the last consumed token.
    fn since(&self, start: Span) -> Span {
        Span::new(self.file, start.start, self.prev_end.max(start.start))
    }

    // Arena slices are allocated in these small functions rather than inline: bumpalo's
    // allocation paths are `#[inline(always)]` and would otherwise enlarge the frames
    // of the recursive functions (in debug builds, by kilobytes).

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

    // ---- errors -------------------------------------------------------------------

    #[cold]
    fn fail(&mut self, d: Diagnostic) -> Abort {
        self.error_count = self.error_count.saturating_add(1);
        if self.diagnostics.len() < MAX_PARSE_ERRORS {
            self.diagnostics.push(d);
        }
        Abort
    }

    fn too_many_errors(&self) -> bool {
        self.error_count >= MAX_PARSE_ERRORS
    }

    /// The current token is the end of input or a declaration keyword starting a line:
    /// the expression being parsed was cut short rather than malformed.
    fn at_declaration_boundary(&self) -> bool {
        self.tok.kind == TokenKind::Eof
            || (self.tok.kind.starts_declaration() && self.tok.line_start)
    }

    /// Reports that the current token is not `expected`.
    #[cold]
    fn unexpected(&mut self, expected: &str) -> Abort {
        self.report_unexpected(expected, None, None)
    }

    /// Reports that the current token is not `expected`, with an optional note and an
    /// optional secondary place (the construct that needed the token). When the input
    /// was cut short inside a bracket opened after that construct, the unclosed bracket
    /// is what gets reported.
    #[cold]
    fn report_unexpected(
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
        if let Some(note) = note {
            d = d.note(note);
        }
        self.fail(d)
    }

    /// An open bracket reached the end of the input (or the next declaration).
    #[cold]
    fn unclosed(&mut self, open: Span, delim: Delim, expected: &str) -> Abort {
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
    fn stray_token(&mut self, context: &str) -> Abort {
        let d = Diagnostic::error(format!("unexpected token {}", self.tok.kind.describe()))
            .at(self.tok.span, format!("unexpected here: {context}"));
        self.fail(d)
    }

    // ---- nesting and brackets -----------------------------------------------------

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

    #[cold]
    fn too_deep(&mut self) -> Abort {
        let d = Diagnostic::error(format!(
            "expression nested too deeply (more than {MAX_NESTING} levels)"
        ))
        .at(self.tok.span, "the nesting limit is reached here")
        .note("split the expression with `let` or into several definitions");
        self.fail(d)
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

    #[cold]
    fn bad_close(&mut self, expected: &str) -> Abort {
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

    // ---- declarations -------------------------------------------------------------

    /// Declarations up to the end of the input, recovering after errors.
    fn module(&mut self) -> Vec<Decl<'a>> {
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
            match self.decl() {
                Ok(decl) => {
                    decls.push(decl);
                    if !self.at(TokenKind::Eof) && !self.tok.kind.starts_declaration() {
                        self.stray_token(
                            "expected a new declaration (def, data, extern or import)",
                        );
                        self.recover();
                    }
                }
                Err(Abort) => self.recover(),
            }
        }
        decls
    }

    /// Skips to the next declaration keyword at the start of a line.
    fn recover(&mut self) {
        while !self.at_declaration_boundary() {
            self.bump();
        }
    }

    fn decl(&mut self) -> PResult<Decl<'a>> {
        match self.tok.kind {
            TokenKind::Def => self.def_decl(),
            TokenKind::Data => self.data_decl(),
            TokenKind::Extern => self.extern_decl(),
            TokenKind::Import => self.import_decl(),
            _ => Err(self.unexpected("a declaration (def, data, extern or import)")),
        }
    }

    /// A name (not `_`), as after `def`.
    fn name(&mut self, what: &str) -> PResult<Ident<'a>> {
        match self.tok.kind {
            TokenKind::Ident(name) => {
                let tok = self.bump();
                Ok(Self::ident(tok, name))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// Reports (without stopping) a type or constructor name that is not capitalised.
    fn check_capitalised(&mut self, name: Ident<'a>, what: &str) {
        if !is_constructor_name(name.name) {
            let d = Diagnostic::error(format!("{what} names must start with an uppercase letter"))
                .at(name.span, format!("'{}' is not capitalised", name.name));
            self.fail(d);
        }
    }

    /// `def name params : ret = body`
    fn def_decl(&mut self) -> PResult<Decl<'a>> {
        let start = self.bump().span;
        let name = self.name("a name after 'def'")?;
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
        let body = self.expr()?;
        Ok(Decl::Def {
            name,
            params: self.alloc_params(params),
            ret,
            body,
            span: self.since(start),
        })
    }

    /// `data Name params = C1 fields | C2 fields ...`, or `data Name params`.
    fn data_decl(&mut self) -> PResult<Decl<'a>> {
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
        Ok(Decl::Data {
            name,
            params: self.alloc_params(params),
            ctors: self.arena.alloc_slice_fill_iter(ctors),
            span: self.since(start),
        })
    }

    /// One alternative of a `data` declaration: a constructor and its atomic fields.
    fn ctor_decl(&mut self) -> PResult<CtorDecl<'a>> {
        let name = self.name("a constructor name")?;
        self.check_capitalised(name, "constructor");
        let mut fields = Vec::new();
        while starts_atom(self.tok.kind) {
            fields.push(self.atom()?);
        }
        Ok(CtorDecl {
            name,
            fields: self.alloc_exprs(fields),
            span: self.since(name.span),
        })
    }

    /// `extern name : T`
    fn extern_decl(&mut self) -> PResult<Decl<'a>> {
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
    fn import_decl(&mut self) -> PResult<Decl<'a>> {
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

    // ---- parameters ---------------------------------------------------------------

    /// `: T` if present.
    fn annotation(&mut self) -> PResult<Option<&'a Expr<'a>>> {
        if !self.eat(TokenKind::Colon) {
            return Ok(None);
        }
        let ty = self.expr()?;
        Ok(Some(ty))
    }

    /// Parameters of a `def`, `let`, lambda or `data`: `x`, `_`, `(x : A)`,
    /// `(x y : A)`, `{b : Type}`, `{b}`, as many as are written (maybe none).
    fn params(&mut self) -> PResult<Vec<Param<'a>>> {
        let mut params = Vec::new();
        loop {
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
    fn binder_name(&mut self) -> Option<Ident<'a>> {
        let name = match self.tok.kind {
            TokenKind::Ident(name) => name,
            TokenKind::Underscore => "_",
            _ => return None,
        };
        let tok = self.bump();
        Some(Self::ident(tok, name))
    }

    /// `(x y : A)` or `{x y : A}` or `{x}`: one parameter per name, sharing the type.
    fn param_group(
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

    // ---- expressions --------------------------------------------------------------
    //
    // The functions on the recursive path return arena pointers (`Node`), not `Expr`
    // values: a 96-byte value held in every temporary of every frame made a nesting
    // level cost about 8 KB of stack in a debug build.

    /// A full expression, one nesting level deeper.
    fn expr(&mut self) -> PResult<Node<'a>> {
        self.nested(Self::arrows)
    }

    /// A chain of arrows `B1 -> B2 -> ... -> C` (a single segment when there is no
    /// arrow). Binders are collected in a loop and folded from the right.
    fn arrows(&mut self) -> PResult<Node<'a>> {
        let mut binders = Vec::new();
        loop {
            if self.at(TokenKind::LBrace) {
                self.binder_telescope(&mut binders)?;
                continue;
            }
            let segment = self.operators()?;
            if !self.at(TokenKind::Arrow) {
                return Ok(self.fold_arrows(binders, segment));
            }
            self.bump();
            push_domain(&mut binders, segment);
        }
    }

    /// Binders written as parameters at the start of an arrow segment, as in
    /// `{a : Type} (x : a) -> ...`, up to and including the `->`.
    fn binder_telescope(&mut self, binders: &mut Vec<Binder<'a>>) -> PResult<()> {
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

    #[cold]
    fn untyped_binder(&mut self, param: &Param<'a>) -> Abort {
        let d = Diagnostic::error("a binder in a function type needs a type")
            .at(param.span, format!("write {{{} : A}}", param.name.name));
        self.fail(d)
    }

    fn fold_arrows(&self, binders: Vec<Binder<'a>>, mut cod: Node<'a>) -> Node<'a> {
        for binder in binders.into_iter().rev() {
            let span = Span::new(self.file, binder.start, cod.span.end);
            let kind = ExprKind::Pi {
                name: binder.name,
                plicity: binder.plicity,
                dom: binder.dom,
                cod,
            };
            cod = self.arena.alloc(Expr { kind, span });
        }
        cod
    }

    /// Operands separated by binary operators, resolved with an operator stack.
    fn operators(&mut self) -> PResult<Node<'a>> {
        let mut operands: Vec<Node<'a>> = Vec::new();
        let mut ops: Vec<(BinOp, Span)> = Vec::new();
        loop {
            let (operand, open_ended) = self.operand()?;
            operands.push(operand);
            if open_ended {
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
    fn push_operator(
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
    fn reduce(&self, operands: &mut Vec<Node<'a>>, op: BinOp, op_span: Span) {
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

    #[cold]
    fn chained_comparison(
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

    /// One operand of a binary operator: an application, or a lambda / `let` / `if` /
    /// `match`, which extends as far right as possible (then `true`: no operator can
    /// follow it).
    fn operand(&mut self) -> PResult<(Node<'a>, bool)> {
        if let Some(e) = self.open_ended()? {
            return Ok((e, true));
        }
        self.application()
    }

    /// A lambda, `let`, `if` or `match` if one starts here.
    fn open_ended(&mut self) -> PResult<Option<Node<'a>>> {
        let e = match self.tok.kind {
            TokenKind::Backslash => self.lambda()?,
            TokenKind::Let => self.let_expr()?,
            TokenKind::If => self.if_expr()?,
            TokenKind::Match => self.match_expr()?,
            _ => return Ok(None),
        };
        Ok(Some(e))
    }

    /// `f a {B} c`, where the last argument may be a lambda / `let` / `if` / `match`
    /// (`f x \y -> y`): then the application is open-ended (`true`).
    fn application(&mut self) -> PResult<(Node<'a>, bool)> {
        let mut fun = self.atom()?;
        loop {
            let (arg, plicity) = match self.tok.kind {
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

    fn apply(&self, fun: Node<'a>, arg: Node<'a>, plicity: Plicity) -> Node<'a> {
        let start = fun.span;
        self.node(ExprKind::App { fun, arg, plicity }, start)
    }

    /// `{e}` or `{e : T}` as an argument. The annotated form also lets a telescope
    /// `(a : Type) {b : Type} -> ...` reach [`telescope`] as an application.
    fn implicit_arg(&mut self) -> PResult<Node<'a>> {
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

    /// Names, literals, `Type n`, holes, and bracketed forms.
    fn atom(&mut self) -> PResult<Node<'a>> {
        let kind = match self.tok.kind {
            TokenKind::Ident(name) => ExprKind::Var(name),
            TokenKind::Int(n) => ExprKind::Int(n),
            TokenKind::Float(x) => ExprKind::Float(x),
            TokenKind::Str(s) => ExprKind::Str(s),
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

    #[cold]
    fn expected_expression(&mut self) -> Abort {
        let note = (self.tok.kind == TokenKind::Minus)
            .then_some("there is no unary minus: write `-3` (no space) for a negative literal, `0 - x` to negate");
        self.report_unexpected("an expression", note, None)
    }

    /// `Type` or `Type n`.
    fn universe(&mut self) -> PResult<Node<'a>> {
        let start = self.bump().span;
        let TokenKind::Int(level) = self.tok.kind else {
            return Ok(self.node(ExprKind::Universe(0), start));
        };
        let level_span = self.bump().span;
        match u32::try_from(level) {
            Ok(level) => Ok(self.node(ExprKind::Universe(level), start)),
            Err(_) => {
                let d = Diagnostic::error("invalid universe level")
                    .at(level_span, "expected a level from 0 to 4294967295");
                Err(self.fail(d))
            }
        }
    }

    /// `()`, `(e)`, `(e : T)`, `(a, b, ...)`.
    fn paren(&mut self) -> PResult<Node<'a>> {
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
    fn list(&mut self) -> PResult<Node<'a>> {
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
    fn comma_list(&mut self, first: Node<'a>, delim: Delim) -> PResult<&'a [Expr<'a>]> {
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

    /// `\x (y : A) {b} -> body`
    fn lambda(&mut self) -> PResult<Node<'a>> {
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
        let body = self.expr()?;
        let params = self.alloc_params(params);
        Ok(self.node(ExprKind::Lam { params, body }, start))
    }

    /// `let name params : T = rhs in body`
    fn let_expr(&mut self) -> PResult<Node<'a>> {
        let start = self.bump().span;
        let Some(name) = self.binder_name() else {
            return Err(self.unexpected("a name after 'let'"));
        };
        let params = self.params()?;
        let ret = self.annotation()?;
        self.expect_for(TokenKind::Equals, "'='", start, "in this 'let'")?;
        let rhs = self.expr()?;
        self.expect_for(TokenKind::In, "'in'", start, "this 'let' needs an 'in'")?;
        let body = self.expr()?;
        let params = self.alloc_params(params);
        let kind = ExprKind::Let {
            name,
            params,
            ret,
            rhs,
            body,
        };
        Ok(self.node(kind, start))
    }

    /// `if c then a else b`
    fn if_expr(&mut self) -> PResult<Node<'a>> {
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
        let else_ = self.expr()?;
        Ok(self.node(ExprKind::If { cond, then_, else_ }, start))
    }

    /// `match e with | p -> e | ...` (the first `|` optional). A match with no arms
    /// is allowed when something other than the end of input follows `with`.
    fn match_expr(&mut self) -> PResult<Node<'a>> {
        let start = self.bump().span;
        let scrut = self.expr()?;
        self.expect_for(
            TokenKind::With,
            "'with'",
            start,
            "this 'match' needs a 'with'",
        )?;
        let mut arms = Vec::new();
        let bar = self.eat(TokenKind::Bar);
        if bar || starts_pattern_atom(self.tok.kind) || self.at(TokenKind::Eof) {
            loop {
                arms.push(self.arm()?);
                if !self.eat(TokenKind::Bar) {
                    break;
                }
            }
        }
        let arms = self.alloc_arms(arms);
        Ok(self.node(ExprKind::Match { scrut, arms }, start))
    }

    /// `pattern -> body`
    fn arm(&mut self) -> PResult<Arm<'a>> {
        let pat = self.pattern()?;
        self.expect(TokenKind::Arrow, "'->' after the pattern")?;
        let body = self.expr()?;
        let span = self.since(pat.span);
        Ok(Arm { pat, body, span })
    }

    // ---- patterns -----------------------------------------------------------------

    /// A pattern, one nesting level deeper.
    fn pattern(&mut self) -> PResult<PatNode<'a>> {
        self.nested(Self::pattern_unguarded)
    }

    fn pat_node(&self, kind: PatKind<'a>, start: Span) -> PatNode<'a> {
        let span = self.since(start);
        self.arena.alloc(Pat { kind, span })
    }

    /// A constructor applied to atomic patterns, or an atomic pattern.
    fn pattern_unguarded(&mut self) -> PResult<PatNode<'a>> {
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
    fn pattern_atom(&mut self) -> PResult<PatNode<'a>> {
        let kind = match self.tok.kind {
            TokenKind::Ident(name) if is_constructor_name(name) => PatKind::Con {
                name: Self::ident(self.tok, name),
                args: &[],
            },
            TokenKind::Ident(name) => PatKind::Var(name),
            TokenKind::Underscore => PatKind::Wild,
            TokenKind::Int(n) => PatKind::Int(n),
            TokenKind::Str(s) => PatKind::Str(s),
            TokenKind::LParen => return self.paren_pattern(),
            TokenKind::LBracket => return self.list_pattern(),
            TokenKind::Float(_) => return Err(self.float_pattern()),
            _ => return Err(self.unexpected("a pattern")),
        };
        let start = self.bump().span;
        Ok(self.pat_node(kind, start))
    }

    #[cold]
    fn float_pattern(&mut self) -> Abort {
        let d = Diagnostic::error("a Float literal cannot be a pattern")
            .at(self.tok.span, "only Int and String literals can be matched")
            .note("compare floats with `==` or `<` in an `if` instead");
        self.fail(d)
    }

    /// `()`, `(p)`, `(p1, p2, ...)`.
    fn paren_pattern(&mut self) -> PResult<PatNode<'a>> {
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
    fn list_pattern(&mut self) -> PResult<PatNode<'a>> {
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
    fn pattern_list(&mut self, first: PatNode<'a>, delim: Delim) -> PResult<&'a [Pat<'a>]> {
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

/// Adds the domain `segment` of an arrow: the binders of a telescope
/// `(x y : A) {b : B} ->`, or one unnamed binder.
fn push_domain<'a>(binders: &mut Vec<Binder<'a>>, segment: &'a Expr<'a>) {
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
fn telescope<'a>(e: &Expr<'a>) -> Option<Vec<Binder<'a>>> {
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
fn binder_names<'a>(e: &Expr<'a>) -> Option<Vec<Ident<'a>>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::span::SourceMap;

    /// A compact S-expression of an expression, to check tree shapes.
    fn sexp(e: &Expr<'_>) -> String {
        match &e.kind {
            ExprKind::Var(x) => x.to_string(),
            ExprKind::Int(n) => n.to_string(),
            ExprKind::Float(x) => format!("{x:?}"),
            ExprKind::Str(s) => format!("{s:?}"),
            ExprKind::Universe(0) => "Type".to_string(),
            ExprKind::Universe(n) => format!("Type{n}"),
            ExprKind::Hole => "_".to_string(),
            ExprKind::TypedHole(Some(n)) => format!("?{n}"),
            ExprKind::TypedHole(None) => "?".to_string(),
            ExprKind::Lam { params, body } => {
                let ps: Vec<String> = params.iter().map(param).collect();
                format!("(\\ {} {})", ps.join(" "), sexp(body))
            }
            ExprKind::Pi {
                name: None,
                dom,
                cod,
                ..
            } => format!("(-> {} {})", sexp(dom), sexp(cod)),
            ExprKind::Pi {
                name: Some(x),
                plicity,
                dom,
                cod,
            } => match plicity {
                Plicity::Explicit => format!("(Pi ({} : {}) {})", x.name, sexp(dom), sexp(cod)),
                Plicity::Implicit => format!("(Pi {{{} : {}}} {})", x.name, sexp(dom), sexp(cod)),
            },
            ExprKind::Let {
                name,
                params,
                ret,
                rhs,
                body,
            } => {
                let mut head = name.name.to_string();
                for p in params.iter() {
                    head = format!("{head} {}", param(p));
                }
                if let Some(t) = ret {
                    head = format!("{head} : {}", sexp(t));
                }
                format!("(let {head} = {} in {})", sexp(rhs), sexp(body))
            }
            ExprKind::If { cond, then_, else_ } => {
                format!("(if {} {} {})", sexp(cond), sexp(then_), sexp(else_))
            }
            ExprKind::Match { scrut, arms } => {
                let arms: Vec<String> = arms
                    .iter()
                    .map(|a| format!("[{} {}]", pat(a.pat), sexp(a.body)))
                    .collect();
                format!("(match {} {})", sexp(scrut), arms.join(" "))
            }
            ExprKind::Binary { op, lhs, rhs, .. } => {
                format!("({} {} {})", op.symbol(), sexp(lhs), sexp(rhs))
            }
            ExprKind::App { fun, arg, plicity } => match plicity {
                Plicity::Explicit => format!("({} {})", sexp(fun), sexp(arg)),
                Plicity::Implicit => format!("({} {{{}}})", sexp(fun), sexp(arg)),
            },
            ExprKind::Ann { expr, ty } => format!("(: {} {})", sexp(expr), sexp(ty)),
            ExprKind::Unit => "()".to_string(),
            ExprKind::Tuple(es) => format!(
                "(tuple {})",
                es.iter().map(sexp).collect::<Vec<_>>().join(" ")
            ),
            ExprKind::List(es) => {
                format!("[{}]", es.iter().map(sexp).collect::<Vec<_>>().join(" "))
            }
        }
    }

    fn param(p: &Param<'_>) -> String {
        match (p.plicity, p.ty) {
            (Plicity::Explicit, None) => p.name.name.to_string(),
            (Plicity::Explicit, Some(t)) => format!("({} : {})", p.name.name, sexp(t)),
            (Plicity::Implicit, None) => format!("{{{}}}", p.name.name),
            (Plicity::Implicit, Some(t)) => format!("{{{} : {}}}", p.name.name, sexp(t)),
        }
    }

    fn pat(p: &Pat<'_>) -> String {
        match &p.kind {
            PatKind::Var(x) => x.to_string(),
            PatKind::Wild => "_".to_string(),
            PatKind::Int(n) => n.to_string(),
            PatKind::Str(s) => format!("{s:?}"),
            PatKind::Con { name, args: [] } => name.name.to_string(),
            PatKind::Con { name, args } => {
                format!(
                    "({} {})",
                    name.name,
                    args.iter().map(pat).collect::<Vec<_>>().join(" ")
                )
            }
            PatKind::Unit => "()".to_string(),
            PatKind::Tuple(ps) => format!(
                "(tuple {})",
                ps.iter().map(pat).collect::<Vec<_>>().join(" ")
            ),
            PatKind::List(ps) => format!("[{}]", ps.iter().map(pat).collect::<Vec<_>>().join(" ")),
        }
    }

    /// The shape of an expression, panicking with the diagnostics if it fails.
    fn shape(text: &str) -> String {
        let arena = Bump::new();
        match parse_expr(&arena, FileId(0), text) {
            Ok(e) => sexp(e),
            Err(d) => panic!("{text:?} failed: {d:#?}"),
        }
    }

    /// The diagnostics of an expression that must fail.
    fn errors(text: &str) -> Vec<Diagnostic> {
        let arena = Bump::new();
        match parse_expr(&arena, FileId(0), text) {
            Ok(e) => panic!("{text:?} parsed as {}", sexp(e)),
            Err(d) => d,
        }
    }

    /// `(line, column, message)` of each diagnostic of a module.
    fn module_errors(text: &str) -> Vec<(usize, usize, String)> {
        let mut map = SourceMap::new();
        let file = map.add("t.sp", None, text.to_string());
        let arena = Bump::new();
        let (_, diags) = parse_module(&arena, file, text);
        diags
            .iter()
            .map(|d| {
                let loc = map.location(d.primary_span().expect("primary label"));
                (loc.line, loc.col, d.message.clone())
            })
            .collect()
    }

    #[test]
    fn arithmetic_precedence_and_associativity() {
        assert_eq!(shape("1 + 2 * 3"), "(+ 1 (* 2 3))");
        assert_eq!(shape("1 * 2 + 3"), "(+ (* 1 2) 3)");
        assert_eq!(shape("a - b - c"), "(- (- a b) c)");
        assert_eq!(shape("a / b * c % d"), "(% (* (/ a b) c) d)");
        assert_eq!(shape("a ++ b ++ c"), "(++ a (++ b c))");
        assert_eq!(shape("a ++ b + c"), "(++ a (+ b c))");
        assert_eq!(shape("(a + b) * c"), "(* (+ a b) c)");
    }

    #[test]
    fn logical_and_comparison_precedence() {
        assert_eq!(shape("a || b && c"), "(|| a (&& b c))");
        assert_eq!(shape("a && b || c"), "(|| (&& a b) c)");
        assert_eq!(shape("a || b || c"), "(|| a (|| b c))");
        assert_eq!(shape("a && b && c"), "(&& a (&& b c))");
        assert_eq!(shape("x == y + 1 && y < z"), "(&& (== x (+ y 1)) (< y z))");
        assert_eq!(shape("a ++ b == c"), "(== (++ a b) c)");
        assert_eq!(shape("a != b || c >= d"), "(|| (!= a b) (>= c d))");
    }

    #[test]
    fn chained_comparisons_are_rejected() {
        for text in ["a < b < c", "a == b == c", "a < b + 1 >= c", "a <= b != c"] {
            let d = errors(text);
            assert_eq!(
                d[0].message, "comparison operators cannot be chained",
                "{text}"
            );
        }
        assert_eq!(shape("(a < b) == c"), "(== (< a b) c)");
    }

    #[test]
    fn application() {
        assert_eq!(shape("f x y"), "((f x) y)");
        assert_eq!(shape("f {A} x"), "((f {A}) x)");
        assert_eq!(shape("f x y + g z"), "(+ ((f x) y) (g z))");
        assert_eq!(shape("f (g x) [1, 2] ()"), "(((f (g x)) [1 2]) ())");
        assert_eq!(shape("Just Type"), "(Just Type)");
        assert_eq!(shape("f Type 2"), "(f Type2)");
        assert_eq!(shape("f ?goal ? _"), "(((f ?goal) ?) _)");
    }

    #[test]
    fn open_ended_forms_as_last_operand_or_argument() {
        assert_eq!(shape("f x \\y -> y"), "((f x) (\\ y y))");
        assert_eq!(shape("1 + if c then 2 else 3"), "(+ 1 (if c 2 3))");
        assert_eq!(
            shape("1 + if c then 2 else 3 + 4"),
            "(+ 1 (if c 2 (+ 3 4)))"
        );
        assert_eq!(shape("f let x = 1 in x"), "(f (let x = 1 in x))");
        assert_eq!(shape("2 * match x with | A -> 1"), "(* 2 (match x [A 1]))");
        assert_eq!(shape("\\x -> x + 1"), "(\\ x (+ x 1))");
        assert_eq!(shape("\\x -> \\y -> x"), "(\\ x (\\ y x))");
    }

    #[test]
    fn arrows() {
        assert_eq!(shape("A -> B -> C"), "(-> A (-> B C))");
        assert_eq!(shape("(A -> B) -> C"), "(-> (-> A B) C)");
        assert_eq!(shape("(x : A) -> B x"), "(Pi (x : A) (B x))");
        assert_eq!(shape("{a : Type} -> a -> a"), "(Pi {a : Type} (-> a a))");
        assert_eq!(
            shape("(x y : Int) -> P x y"),
            "(Pi (x : Int) (Pi (y : Int) ((P x) y)))"
        );
        assert_eq!(
            shape("{a b : Type} -> a"),
            "(Pi {a : Type} (Pi {b : Type} a))"
        );
        assert_eq!(
            shape("(a : Type) {b : Type} -> a"),
            "(Pi (a : Type) (Pi {b : Type} a))"
        );
        assert_eq!(
            shape("{a : Type} (x : a) -> a"),
            "(Pi {a : Type} (Pi (x : a) a))"
        );
        assert_eq!(shape("(_ : A) -> B"), "(Pi (_ : A) B)");
        assert_eq!(shape("List a -> Int"), "(-> (List a) Int)");
        // An annotation that is not of names is an ordinary domain.
        assert_eq!(shape("(f 1 : A) -> B"), "(-> (: (f 1) A) B)");
        // Without an arrow it is an annotation.
        assert_eq!(shape("(x : A)"), "(: x A)");
        assert_eq!(shape("Type 1 -> Type"), "(-> Type1 Type)");
    }

    #[test]
    fn lambdas() {
        assert_eq!(shape("\\x y -> x"), "(\\ x y x)");
        assert_eq!(
            shape("\\(x : A) {b : Type} -> x"),
            "(\\ (x : A) {b : Type} x)"
        );
        assert_eq!(shape("\\_ -> 0"), "(\\ _ 0)");
        assert_eq!(
            shape("\\{b} (x y : Int) -> x"),
            "(\\ {b} (x : Int) (y : Int) x)"
        );
        assert_eq!(shape("\\x -> A -> B"), "(\\ x (-> A B))");
    }

    #[test]
    fn let_if_match() {
        assert_eq!(shape("let x = 1 in x + 1"), "(let x = 1 in (+ x 1))");
        assert_eq!(shape("let x : Int = 1 in x"), "(let x : Int = 1 in x)");
        assert_eq!(
            shape("let f (x : Int) : Int = x in f 2"),
            "(let f (x : Int) : Int = x in (f 2))"
        );
        assert_eq!(shape("if a then b else c"), "(if a b c)");
        assert_eq!(
            shape("if a then if b then c else d else e"),
            "(if a (if b c d) e)"
        );
        assert_eq!(
            shape("match x with | A -> 1 | B y -> y"),
            "(match x [A 1] [(B y) y])"
        );
        assert_eq!(
            shape("match x with A -> 1 | _ -> 2"),
            "(match x [A 1] [_ 2])"
        );
        // Arms extend as far right as possible: the inner match takes the last arm.
        assert_eq!(
            shape("match x with | A -> match y with | C -> 1 | D -> 2"),
            "(match x [A (match y [C 1] [D 2])])"
        );
        assert_eq!(
            shape("match x with | A -> (match y with | C -> 1) | D -> 2"),
            "(match x [A (match y [C 1])] [D 2])"
        );
        assert_eq!(shape("(match v with)"), "(match v )");
    }

    #[test]
    fn atoms() {
        assert_eq!(shape("()"), "()");
        assert_eq!(shape("(1, 2)"), "(tuple 1 2)");
        assert_eq!(shape("(1, 2, 3)"), "(tuple 1 2 3)");
        assert_eq!(shape("((1, 2), 3)"), "(tuple (tuple 1 2) 3)");
        assert_eq!(shape("[]"), "[]");
        assert_eq!(shape("[1, 2, 3]"), "[1 2 3]");
        assert_eq!(shape("([] : List Int)"), "(: [] (List Int))");
        assert_eq!(shape("Type"), "Type");
        assert_eq!(shape("Type 3"), "Type3");
        assert_eq!(shape("\"a\\tb\""), "\"a\\tb\"");
        assert_eq!(shape("2.5"), "2.5");
        assert_eq!(shape("(((x)))"), "x");
    }

    #[test]
    fn negative_literals() {
        assert_eq!(shape("f (-3)"), "(f -3)");
        assert_eq!(shape("[-1, -2]"), "[-1 -2]");
        assert_eq!(shape("-7 / 2"), "(/ -7 2)");
        assert_eq!(shape("x -1"), "(- x 1)");
        assert_eq!(shape("x-1"), "(- x 1)");
        assert_eq!(shape("f x - 1"), "(- (f x) 1)");
        assert_eq!(shape("x - -1"), "(- x -1)");
        assert_eq!(shape("(x) -1"), "(- x 1)");
        assert_eq!(shape("1 * -2.5"), "(* 1 -2.5)");
        assert_eq!(shape("-9223372036854775808"), "-9223372036854775808");
        assert_eq!(shape("if c then -1 else -2"), "(if c -1 -2)");
        assert_eq!(shape("\\x -> -1"), "(\\ x -1)");
        let d = errors("- 3");
        assert!(
            d[0].message.contains("expected an expression, found '-'"),
            "{d:?}"
        );
    }

    #[test]
    fn patterns() {
        let arms = |text: &str| {
            let s = shape(&format!("match e with {text}"));
            s.trim_start_matches("(match e ")
                .trim_end_matches(')')
                .to_string()
        };
        assert_eq!(arms("| x -> 1"), "[x 1]");
        assert_eq!(arms("| _ -> 1"), "[_ 1]");
        assert_eq!(arms("| 0 -> 1 | -5 -> 2"), "[0 1] [-5 2]");
        assert_eq!(arms("| \"hi\" -> 1"), "[\"hi\" 1]");
        assert_eq!(arms("| Nil -> 1"), "[Nil 1]");
        assert_eq!(
            arms("| Cons x (Cons y rest) -> 1"),
            "[(Cons x (Cons y rest)) 1]"
        );
        assert_eq!(arms("| Just Nothing -> 1"), "[(Just Nothing) 1]");
        assert_eq!(arms("| () -> 1"), "[() 1]");
        assert_eq!(arms("| (a, b) -> 1"), "[(tuple a b) 1]");
        assert_eq!(arms("| (a, (b, c), _) -> 1"), "[(tuple a (tuple b c) _) 1]");
        assert_eq!(arms("| [] -> 1"), "[[] 1]");
        assert_eq!(arms("| [p, Just q] -> 1"), "[[p (Just q)] 1]");
        assert_eq!(arms("| (x) -> 1"), "[x 1]");
        assert_eq!(arms("| Cons (-1) xs -> 1"), "[(Cons -1 xs) 1]");
        let d = errors("match e with | 1.5 -> 1");
        assert!(d[0].message.contains("Float"), "{d:?}");
    }

    #[test]
    fn spans_cover_nodes() {
        let arena = Bump::new();
        let text = "f (x + 1) [2]";
        let e = parse_expr(&arena, FileId(0), text).expect("parses");
        assert_eq!((e.span.start, e.span.end), (0, 13));
        let ExprKind::App { fun, arg, .. } = &e.kind else {
            panic!()
        };
        assert_eq!((arg.span.start, arg.span.end), (10, 13));
        let ExprKind::App { arg, .. } = &fun.kind else {
            panic!()
        };
        let ExprKind::Binary { op_span, .. } = &arg.kind else {
            panic!()
        };
        assert_eq!((arg.span.start, arg.span.end), (3, 8));
        assert_eq!((op_span.start, op_span.end), (5, 6));
        let e = parse_expr(&arena, FileId(0), "(x : A) -> B").expect("parses");
        assert_eq!((e.span.start, e.span.end), (0, 12));
    }

    #[test]
    fn declarations() {
        let arena = Bump::new();
        let text = "import \"lib/x.sp\"\n\
                    data Maybe (a : Type) = Nothing | Just a\n\
                    data Pair (a b : Type) =\n  | MkPair a b\n\
                    data Void\n\
                    def id {a : Type} (x : a) : a = x\n\
                    def two : Int = 2\n\
                    def add x y = x + y\n\
                    def k (x y : Int) {b} = x\n\
                    extern run : String -> List String -> String\n";
        let (module, diags) = parse_module(&arena, FileId(0), text);
        assert!(diags.is_empty(), "{diags:#?}");
        assert_eq!(module.decls.len(), 9);
        match &module.decls[0] {
            Decl::Import { path, .. } => assert_eq!(*path, "lib/x.sp"),
            d => panic!("{d:?}"),
        }
        match &module.decls[1] {
            Decl::Data {
                name,
                params,
                ctors,
                ..
            } => {
                assert_eq!(name.name, "Maybe");
                assert_eq!(params.len(), 1);
                assert_eq!(ctors.len(), 2);
                assert_eq!(ctors[1].name.name, "Just");
                assert_eq!(ctors[1].fields.len(), 1);
            }
            d => panic!("{d:?}"),
        }
        match &module.decls[2] {
            Decl::Data { params, ctors, .. } => {
                assert_eq!(
                    params.iter().map(param).collect::<Vec<_>>(),
                    ["(a : Type)", "(b : Type)"]
                );
                assert_eq!(ctors[0].fields.len(), 2);
            }
            d => panic!("{d:?}"),
        }
        assert!(matches!(&module.decls[3], Decl::Data { ctors: [], .. }));
        match &module.decls[4] {
            Decl::Def {
                name,
                params,
                ret,
                body,
                ..
            } => {
                assert_eq!(name.name, "id");
                assert_eq!(
                    params.iter().map(param).collect::<Vec<_>>(),
                    ["{a : Type}", "(x : a)"]
                );
                assert_eq!(ret.map(sexp).as_deref(), Some("a"));
                assert_eq!(sexp(body), "x");
            }
            d => panic!("{d:?}"),
        }
        match &module.decls[5] {
            Decl::Def { params, ret, .. } => {
                assert!(params.is_empty());
                assert_eq!(ret.map(sexp).as_deref(), Some("Int"));
            }
            d => panic!("{d:?}"),
        }
        match &module.decls[7] {
            Decl::Def { params, ret, .. } => {
                assert_eq!(
                    params.iter().map(param).collect::<Vec<_>>(),
                    ["(x : Int)", "(y : Int)", "{b}"]
                );
                assert!(ret.is_none());
            }
            d => panic!("{d:?}"),
        }
        match &module.decls[8] {
            Decl::Extern { name, ty, span } => {
                assert_eq!(name.name, "run");
                assert_eq!(sexp(ty), "(-> String (-> (List String) String))");
                assert_eq!(span.end as usize, text.len() - 1);
            }
            d => panic!("{d:?}"),
        }
    }

    #[test]
    fn unclosed_parenthesis_points_at_the_paren() {
        let errs = module_errors("def main =\n  (1 + 2\n");
        assert_eq!(errs, [(2, 3, "unclosed parenthesis".to_string())]);
        let errs = module_errors("def main = (1 +\ndef other = 2\n");
        assert_eq!(errs, [(1, 12, "unclosed parenthesis".to_string())]);
        let errs = module_errors("def xs = [1, 2\n");
        assert_eq!(errs, [(1, 10, "unclosed bracket".to_string())]);
    }

    #[test]
    fn stray_tokens_are_located() {
        let errs = module_errors("def main = 1\n  + 2 )\n");
        assert_eq!(errs, [(2, 7, "unexpected token ')'".to_string())]);
        let errs = module_errors("def f = (1 2 ]");
        assert_eq!(
            errs,
            [(1, 14, "expected ')', ',' or ':', found ']'".to_string())]
        );
        let errs = module_errors("def f = 1 +\n  * 2");
        assert_eq!(
            errs,
            [(2, 3, "expected an expression, found '*'".to_string())]
        );
        let errs = module_errors("main = 1");
        assert_eq!(
            errs[0].2,
            "expected a declaration (def, data, extern or import), found 'main'"
        );
    }

    #[test]
    fn missing_keywords_point_at_their_construct() {
        let d = errors("let x = 1 )");
        assert_eq!(d[0].message, "expected 'in', found ')'");
        let secondary = d[0].labels.iter().find(|l| !l.primary).expect("secondary");
        assert_eq!(
            (secondary.span.start, secondary.message.as_str()),
            (0, "this 'let' needs an 'in'")
        );
        // Cut short inside the `let` that is inside a parenthesis: the `let` is reported.
        let d = errors("(let x = 1");
        assert_eq!(d[0].message, "unexpected end of input, expected 'in'");
        // Cut short inside a parenthesis inside the `let`: the parenthesis is.
        let d = errors("let x = (1");
        assert_eq!(d[0].message, "unclosed parenthesis");
        assert_eq!(d[0].primary_span().map(|s| s.start), Some(8));
    }

    #[test]
    fn recovery_reports_independent_errors() {
        let text =
            "def a = (1 +\ndef b = 2\ndef c = ]\ndef d = if x then y\ndata e = Foo\ndef f = 3\n";
        let errs = module_errors(text);
        let lines: Vec<usize> = errs.iter().map(|e| e.0).collect();
        assert_eq!(lines, [1, 3, 5, 5], "{errs:#?}");
        let arena = Bump::new();
        let (module, _) = parse_module(&arena, FileId(0), text);
        // b, e (reported but kept) and f survive.
        assert_eq!(module.decls.len(), 3);
    }

    #[test]
    fn repl_input_kinds_and_unfinished() {
        let arena = Bump::new();
        let repl = |text: &str| parse_repl_input(&arena, FileId(0), text);
        assert!(matches!(repl("1 + 2"), Ok(ReplInput::Expr(_))));
        assert!(matches!(repl("def x = 1"), Ok(ReplInput::Decls(m)) if m.decls.len() == 1));
        assert!(matches!(repl("  -- nothing\n"), Ok(ReplInput::Decls(m)) if m.decls.is_empty()));
        for text in [
            "(1 +",
            "let x = 5",
            "1 +",
            "f (g",
            "[1, 2",
            "if c then",
            "match x with",
            "def f =",
            "\"abc",
            "{- comment",
            "\\x ->",
            "data T =",
        ] {
            match repl(text) {
                Err(f) => assert!(f.unfinished, "{text:?}: {:#?}", f.diagnostics),
                Ok(_) => panic!("{text:?} parsed"),
            }
        }
        for text in [
            "1 )",
            "(1 ]",
            "let in",
            "a < b < c",
            "\"\\q\"",
            "def = 3",
            "1 2 +  )",
        ] {
            match repl(text) {
                Err(f) => assert!(!f.unfinished, "{text:?}"),
                Ok(_) => panic!("{text:?} parsed"),
            }
        }
    }

    #[test]
    fn nesting_limit_is_reported() {
        let text = format!(
            "{}1{}",
            "(".repeat(MAX_NESTING as usize + 10),
            ")".repeat(MAX_NESTING as usize + 10)
        );
        let d = errors(&text);
        assert!(d[0].message.contains("nested too deeply"), "{d:?}");
        let ok = format!(
            "{}1{}",
            "(".repeat(MAX_NESTING as usize - 1),
            ")".repeat(MAX_NESTING as usize - 1)
        );
        assert_eq!(shape(&ok), "1");
    }

    #[test]
    fn the_ast_does_not_borrow_the_text() {
        let arena = Bump::new();
        let e = {
            let text = String::from("f \"s\" x ?h");
            parse_expr(&arena, FileId(0), &text).expect("parses")
        };
        assert_eq!(sexp(e), "(((f \"s\") x) ?h)");
    }

    #[test]
    fn declarations_may_share_a_line() {
        let arena = Bump::new();
        let (module, diags) = parse_module(&arena, FileId(0), "def a = f def b = 2 data C = C");
        assert!(diags.is_empty(), "{diags:#?}");
        assert_eq!(module.decls.len(), 3);
    }

    #[test]
    fn rendered_errors_name_the_place() {
        let mut map = SourceMap::new();
        let text = "def main =\n  g (1 + \n";
        let file = map.add("bad.sp", None, text.to_string());
        let arena = Bump::new();
        let (_, diags) = parse_module(&arena, file, text);
        let out = crate::diagnostic::render(&map, &diags);
        assert!(out.starts_with("error"), "{out}");
        assert!(out.contains("bad.sp:2:5: unclosed parenthesis"), "{out}");
        assert!(out.contains("the input ends here"), "{out}");
    }

    #[test]
    fn other_errors() {
        assert!(errors("\\ -> x")[0].message.contains("a parameter"));
        assert!(errors("if a then b")[0].message.contains("'else'"));
        assert!(errors("Type 99999999999")[0].message.contains("universe"));
        assert!(errors("{x} -> x")[0].message.contains("needs a type"));
        assert!(errors("f {x")[0].message.contains("unclosed brace"));
        assert!(errors("1 2 )")[0].message.contains("unexpected token ')'"));
    }
}
