//! The lexer: source text to tokens with spans (LANGUAGE.md section 1).
//!
//! The lexer is a pull-based [`Lexer`]: the parser asks for one token at a time, so a
//! 10 MB input never exists as a token vector. Names and decoded string literals are
//! copied into the caller's arena, so tokens (and the AST built from them) never borrow
//! the source text.
//!
//! Lexical errors (an unknown character, a bad escape, an out-of-range literal, an
//! unterminated string or block comment) are collected as diagnostics; the lexer always
//! goes on and produces a token stream ending in [`TokenKind::Eof`].
//!
//! One rule depends on context: a `-` written directly before a digit is part of a
//! negative literal when the previous token cannot end an operand (start of input,
//! after `(`, `,`, an operator, a keyword...). After a name, a literal or a closing
//! bracket, `-` is subtraction, so `x -1` is `x - 1`.
//!
//! `{-` always opens a block comment, as in Haskell: an implicit argument that is a
//! negative literal is written `{ -1}`.

use crate::diagnostic::Diagnostic;
use crate::syntax::span::{FileId, Span};
use bumpalo::Bump;

/// The length of a first line starting with `#!` (`#!/usr/bin/env spindle run`), which
/// the lexer skips so that a script can be made executable; 0 when there is none.
fn shebang_len(text: &str) -> usize {
    if !text.starts_with("#!") {
        return 0;
    }
    text.find('\n').unwrap_or(text.len())
}

/// Lexical errors reported before the lexer stays silent (a megabyte of garbage should
/// not produce a megabyte of messages).
const MAX_LEX_ERRORS: usize = 50;

/// What a token is, with its value for names and literals.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TokenKind<'a> {
    /// A name: variable, function, type or constructor (never a keyword, never `_`).
    Ident(&'a str),
    /// An integer literal, already negated when written `-3`.
    Int(i64),
    /// A float literal, already negated when written `-2.5`.
    Float(f64),
    /// A string literal with its escapes interpreted.
    Str(&'a str),
    /// A character literal (`'a'`, `'\n'`) with its escape interpreted.
    Char(char),
    /// A typed hole `?name`, or `?` (then `None`).
    Hole(Option<&'a str>),
    /// `_`
    Underscore,
    /// `let`
    Let,
    /// `in`
    In,
    /// `def`
    Def,
    /// `data`
    Data,
    /// `match`
    Match,
    /// `with`
    With,
    /// `if`
    If,
    /// `then`
    Then,
    /// `else`
    Else,
    /// `extern`
    Extern,
    /// `import`
    Import,
    /// `Type`
    Type,
    /// `||`
    OrOr,
    /// `&&`
    AndAnd,
    /// `==`
    EqEq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `++`
    PlusPlus,
    /// `+`
    Plus,
    /// `-` (subtraction; negative literals are [`TokenKind::Int`] / [`TokenKind::Float`])
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `^` (power)
    Caret,
    /// `->`
    Arrow,
    /// `\`
    Backslash,
    /// `:`
    Colon,
    /// `::` (cons)
    ColonColon,
    /// `=`
    Equals,
    /// `|`
    Bar,
    /// `,`
    Comma,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `=>`, after an interface constraint (`Show a => a -> String`).
    FatArrow,
    /// `.`, a record's field (`s.name`).
    Dot,
    /// `..`, the rest of a record pattern (`{ name = n, .. }`).
    DotDot,
    /// `total` before `def` at the start of a line (a name elsewhere: issue 31).
    Total,
    /// `record` starting a top-level declaration (a name elsewhere).
    Record,
    /// `interface` starting a top-level declaration (a name elsewhere).
    Interface,
    /// `instance` starting a top-level declaration (a name elsewhere).
    Instance,
    /// Never produced by the lexer: the parser's mark for the end of one item of a
    /// layout block (the methods of an `interface` or `instance`), put before a token
    /// that starts a line at or left of the block's column.
    Break,
    /// The end of the input (an empty span at the end of the text).
    Eof,
}

impl TokenKind<'_> {
    /// Whether this token can be the last token of an operand, which decides whether a
    /// following `-1` is a negative literal or a subtraction.
    pub fn ends_operand(&self) -> bool {
        use TokenKind::*;
        matches!(
            self,
            Ident(_)
                | Int(_)
                | Float(_)
                | Str(_)
                | Char(_)
                | Hole(_)
                | Underscore
                | Type
                | RParen
                | RBracket
                | RBrace
        )
    }

    /// Whether this keyword starts a top-level declaration.
    pub fn starts_declaration(&self) -> bool {
        use TokenKind::*;
        matches!(
            self,
            Def | Data | Extern | Import | Record | Interface | Instance | Total
        )
    }

    /// The fixed spelling of keywords and symbols; `None` for names, literals, holes
    /// and the end of input.
    pub fn symbol(&self) -> Option<&'static str> {
        use TokenKind::*;
        Some(match self {
            Ident(_) | Int(_) | Float(_) | Str(_) | Char(_) | Hole(_) | Eof => return None,
            Underscore => "_",
            Let => "let",
            In => "in",
            Def => "def",
            Data => "data",
            Match => "match",
            With => "with",
            If => "if",
            Then => "then",
            Else => "else",
            Extern => "extern",
            Import => "import",
            Type => "Type",
            OrOr => "||",
            AndAnd => "&&",
            EqEq => "==",
            NotEq => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            PlusPlus => "++",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Caret => "^",
            Arrow => "->",
            Backslash => "\\",
            Colon => ":",
            ColonColon => "::",
            Equals => "=",
            Bar => "|",
            Comma => ",",
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            FatArrow => "=>",
            Dot => ".",
            DotDot => "..",
            Total => "total",
            Record => "record",
            Interface => "interface",
            Instance => "instance",
            Break => return None,
        })
    }

    /// How the token is named in an error message: `'let'`, `'foo'`, `'42'`,
    /// `a string literal`, `end of input`.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Ident(name) => format!("'{}'", shorten(name)),
            TokenKind::Int(n) => format!("'{n}'"),
            TokenKind::Float(x) => format!("'{x:?}'"),
            TokenKind::Str(_) => "a string literal".to_string(),
            TokenKind::Char(_) => "a character literal".to_string(),
            TokenKind::Hole(Some(name)) => format!("'?{}'", shorten(name)),
            TokenKind::Hole(None) => "'?'".to_string(),
            TokenKind::Eof => "end of input".to_string(),
            TokenKind::Break => "the start of the next line".to_string(),
            other => format!("'{}'", other.symbol().unwrap_or("?")),
        }
    }
}

/// At most 40 characters of a name, for messages.
fn shorten(name: &str) -> String {
    const MAX: usize = 40;
    if name.chars().count() <= MAX {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(MAX).collect();
        s.push_str("...");
        s
    }
}

/// One token with its place.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Token<'a> {
    /// What it is.
    pub kind: TokenKind<'a>,
    /// Where it is written (a negative literal's span includes its `-`).
    pub span: Span,
    /// Whether no other token precedes it on its line; the parser recovers from errors
    /// at declaration keywords that start a line.
    pub line_start: bool,
}

/// The keyword spelled `word`, if it is one.
fn keyword(word: &str) -> Option<TokenKind<'static>> {
    use TokenKind::*;
    Some(match word {
        "let" => Let,
        "in" => In,
        "def" => Def,
        "data" => Data,
        "match" => Match,
        "with" => With,
        "if" => If,
        "then" => Then,
        "else" => Else,
        "extern" => Extern,
        "import" => Import,
        "Type" => Type,
        "_" => Underscore,
        _ => return None,
    })
}

/// Whether `c` can start an identifier.
pub fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// Whether `c` can continue an identifier.
pub fn is_ident_continue(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

/// A pull-based lexer over one source text. Call [`Lexer::next_token`] until it returns
/// [`TokenKind::Eof`] (it keeps returning `Eof` afterwards).
pub struct Lexer<'a, 's> {
    arena: &'a Bump,
    file: FileId,
    text: &'s str,
    /// Byte offset of the next unread character; always on a character boundary.
    pos: usize,
    /// Whether the previous token can end an operand (see the module documentation).
    prev_ends_operand: bool,
    diagnostics: Vec<Diagnostic>,
    /// How many of the diagnostics are "the input ended inside a string or comment".
    eof_errors: usize,
    /// Errors found, including those not recorded because of [`MAX_LEX_ERRORS`].
    error_count: usize,
}

impl<'a, 's> Lexer<'a, 's> {
    /// A lexer over `text`, allocating names and strings in `arena`. The text must be
    /// at most [`crate::syntax::span::MAX_SOURCE_BYTES`] long (the parser checks it).
    pub fn new(arena: &'a Bump, file: FileId, text: &'s str) -> Lexer<'a, 's> {
        Lexer {
            arena,
            file,
            text,
            pos: shebang_len(text),
            prev_ends_operand: false,
            diagnostics: Vec::new(),
            eof_errors: 0,
            error_count: 0,
        }
    }

    /// The token after the current position, without consuming it (the parser's one
    /// token of lookahead past its current token: `{ name = ...` is a record, `{A}` an
    /// implicit argument). Errors met on the way are reported when it is really read.
    pub fn peek_token(&self) -> Token<'a> {
        self.peek_tokens::<1>()[0]
    }

    /// The `N` tokens after the current position, without consuming them.
    pub fn peek_tokens<const N: usize>(&self) -> [Token<'a>; N] {
        let mut copy = Lexer {
            arena: self.arena,
            file: self.file,
            text: self.text,
            pos: self.pos,
            prev_ends_operand: self.prev_ends_operand,
            diagnostics: Vec::new(),
            eof_errors: 0,
            error_count: 0,
        };
        std::array::from_fn(|_| copy.next_token())
    }

    /// The text between two byte offsets (clamped to the text).
    pub fn text_of(&self, start: usize, end: usize) -> &'s str {
        let end = end.min(self.text.len());
        self.text.get(start.min(end)..end).unwrap_or("")
    }

    /// The diagnostics reported so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Gives up the lexer and returns its diagnostics.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }

    /// Whether every lexical error so far is an unterminated string or block comment at
    /// the end of the input (true when there are none): more input could fix them.
    pub fn only_eof_errors(&self) -> bool {
        self.eof_errors == self.error_count
    }

    /// The column (in characters, from 0) of the byte offset `offset` of the text: the
    /// parser's layout rule for `where` bindings compares the columns of tokens that
    /// start a line. Costs the distance from the start of the line: the parser asks
    /// it for tokens that start a line.
    pub fn column(&self, offset: u32) -> u32 {
        let offset = (offset as usize).min(self.text.len());
        let line = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        self.text[line..offset].chars().count() as u32
    }

    /// Whether the input ended inside a string or a block comment.
    pub fn hit_eof_error(&self) -> bool {
        self.eof_errors > 0
    }

    /// The next token.
    pub fn next_token(&mut self) -> Token<'a> {
        loop {
            let line_start = self.skip_trivia();
            let start = self.pos;
            let kind = match self.peek() {
                None => TokenKind::Eof,
                Some(c) => match self.token_kind(c, start) {
                    Some(kind) => kind,
                    None => {
                        self.bad_characters(start);
                        continue;
                    }
                },
            };
            let kind = if line_start {
                self.declaration_word(kind)
            } else {
                kind
            };
            self.prev_ends_operand = kind.ends_operand();
            return Token {
                kind,
                span: self.span(start, self.pos),
                line_start,
            };
        }
    }

    /// `record`, `interface` and `instance` are keywords only where they start a
    /// declaration: at the start of a line and followed by a capitalised name (LANGUAGE.md
    /// 1 as amended by issue 29); `def record = 1` and a variable `instance` stay legal.
    /// `total` likewise, at the start of a line and followed by `def` (issue 31).
    fn declaration_word(&self, kind: TokenKind<'a>) -> TokenKind<'a> {
        let TokenKind::Ident(word) = kind else {
            return kind;
        };
        if word == "total" {
            // `total def ...`: the word `def` next on the line.
            let rest = self.text[self.pos..].trim_start_matches([' ', '\t']);
            let next_word = rest
                .strip_prefix("def")
                .is_some_and(|after| !after.chars().next().is_some_and(is_ident_continue));
            return if next_word { TokenKind::Total } else { kind };
        }
        let keyword = match word {
            "record" => TokenKind::Record,
            "interface" => TokenKind::Interface,
            "instance" => TokenKind::Instance,
            _ => return kind,
        };
        let rest = self.text[self.pos..].trim_start_matches([' ', '\t']);
        let rest = rest.trim_start_matches('(');
        if rest.chars().next().is_some_and(char::is_uppercase) {
            keyword
        } else {
            kind
        }
    }

    /// Lexes the token starting with `c` at `start`; `None` for a character that
    /// starts no token (nothing consumed).
    fn token_kind(&mut self, c: char, start: usize) -> Option<TokenKind<'a>> {
        if is_ident_start(c) {
            return Some(self.identifier(start));
        }
        if c.is_ascii_digit() {
            return Some(self.number(start, false));
        }
        match c {
            '"' => Some(self.string(start)),
            '\'' => Some(self.char_literal(start)),
            '?' => Some(self.hole(start)),
            '-' if !self.prev_ends_operand
                && self.byte_at(start + 1).is_some_and(|b| b.is_ascii_digit()) =>
            {
                self.pos += 1;
                Some(self.number(start, true))
            }
            _ => self.symbol(),
        }
    }

    fn span(&self, start: usize, end: usize) -> Span {
        // Offsets fit: the parser refuses texts longer than `MAX_SOURCE_BYTES`.
        Span::new(self.file, start as u32, end as u32)
    }

    fn peek(&self) -> Option<char> {
        self.text.get(self.pos..)?.chars().next()
    }

    fn byte_at(&self, i: usize) -> Option<u8> {
        self.text.as_bytes().get(i).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        self.text
            .as_bytes()
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(s.as_bytes()))
    }

    /// Advances over characters satisfying `pred`.
    fn eat_while(&mut self, pred: impl Fn(char) -> bool) {
        while let Some(c) = self.peek() {
            if !pred(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
    }

    /// The source text between two offsets (empty if they are not valid boundaries,
    /// which cannot happen since the lexer only stops on boundaries).
    fn slice(&self, start: usize, end: usize) -> &'s str {
        self.text.get(start..end).unwrap_or("")
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        self.error_count = self.error_count.saturating_add(1);
        if self.diagnostics.len() < MAX_LEX_ERRORS {
            self.diagnostics.push(diagnostic);
        } else if self.diagnostics.len() == MAX_LEX_ERRORS {
            let span = self.span(self.pos, self.pos);
            self.diagnostics.push(
                Diagnostic::error("too many lexical errors; not reporting more")
                    .at(span, "stopped reporting here"),
            );
        }
    }

    /// An error caused by the input ending early (unterminated string or comment).
    fn eof_error(&mut self, diagnostic: Diagnostic) {
        self.eof_errors = self.eof_errors.saturating_add(1);
        self.error(diagnostic);
    }

    /// Skips whitespace and comments; returns whether a line break was crossed (or the
    /// input started), i.e. whether the next token starts its line.
    fn skip_trivia(&mut self) -> bool {
        let mut line_start = self.pos == 0;
        loop {
            match self.peek() {
                Some('\n') => {
                    line_start = true;
                    self.pos += 1;
                }
                Some(c) if c.is_whitespace() => self.pos += c.len_utf8(),
                Some('-') if self.starts_with("--") => self.line_comment(),
                Some('{') if self.starts_with("{-") => line_start |= self.block_comment(),
                _ => return line_start,
            }
        }
    }

    /// Skips `-- ...` up to (not including) the line break.
    fn line_comment(&mut self) {
        let rest = self.text.as_bytes().get(self.pos..).unwrap_or(&[]);
        self.pos += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    }

    /// Skips a nested `{- ... -}` comment; returns whether it contains a line break.
    fn block_comment(&mut self) -> bool {
        let open = self.pos;
        let bytes = self.text.as_bytes();
        let mut depth = 0usize;
        let mut newline = false;
        let mut i = open;
        while i < bytes.len() {
            match (bytes[i], bytes.get(i + 1)) {
                (b'{', Some(b'-')) => {
                    depth += 1;
                    i += 2;
                }
                (b'-', Some(b'}')) => {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        self.pos = i;
                        return newline;
                    }
                }
                (b, _) => {
                    newline |= b == b'\n';
                    i += 1;
                }
            }
        }
        self.pos = bytes.len();
        let end = self.span(self.pos, self.pos);
        self.eof_error(
            Diagnostic::error("unterminated block comment")
                .at(
                    self.span(open, open + 2),
                    "this comment is never closed with '-}'",
                )
                .also(end, "the input ends here"),
        );
        newline
    }

    /// Reports a run of characters that start no token, as one error.
    fn bad_characters(&mut self, start: usize) {
        let is_bad = |c: char| {
            !(c.is_whitespace()
                || is_ident_start(c)
                || c.is_ascii_digit()
                || "\"'?-(){}[]\\:=|,+*/%<>&!".contains(c))
        };
        // The first character is bad by definition (`&` or `!` alone, say).
        if let Some(c) = self.peek() {
            self.pos += c.len_utf8();
        }
        self.eat_while(is_bad);
        let text = self.slice(start, self.pos);
        let message = if text.chars().count() == 1 {
            format!("unexpected character '{}'", text.escape_debug())
        } else {
            format!("unexpected characters '{}'", shorten(text).escape_debug())
        };
        let span = self.span(start, self.pos);
        self.error(Diagnostic::error(message).at(span, "not part of any token"));
    }

    fn identifier(&mut self, start: usize) -> TokenKind<'a> {
        self.eat_while(is_ident_continue);
        let word = self.slice(start, self.pos);
        keyword(word).unwrap_or_else(|| TokenKind::Ident(self.arena.alloc_str(word)))
    }

    /// `?name` or `?`.
    fn hole(&mut self, start: usize) -> TokenKind<'a> {
        self.pos += 1;
        if !self.peek().is_some_and(is_ident_start) {
            return TokenKind::Hole(None);
        }
        self.eat_while(is_ident_continue);
        let name = self.slice(start + 1, self.pos);
        TokenKind::Hole(Some(self.arena.alloc_str(name)))
    }

    /// An operator or punctuation symbol at the current position, longest match first.
    fn symbol(&mut self) -> Option<TokenKind<'a>> {
        use TokenKind::*;
        const TWO: [(&str, TokenKind<'static>); 11] = [
            ("=>", FatArrow),
            ("..", DotDot),
            ("||", OrOr),
            ("&&", AndAnd),
            ("==", EqEq),
            ("!=", NotEq),
            ("<=", Le),
            (">=", Ge),
            ("++", PlusPlus),
            ("->", Arrow),
            ("::", ColonColon),
        ];
        for (s, kind) in TWO.iter() {
            if self.starts_with(s) {
                self.pos += 2;
                return Some(*kind);
            }
        }
        let kind = match self.byte_at(self.pos)? {
            b'<' => Lt,
            b'>' => Gt,
            b'+' => Plus,
            b'-' => Minus,
            b'*' => Star,
            b'/' => Slash,
            b'%' => Percent,
            b'^' => Caret,
            b'\\' => Backslash,
            b':' => Colon,
            b'=' => Equals,
            b'|' => Bar,
            b',' => Comma,
            b'(' => LParen,
            b')' => RParen,
            b'[' => LBracket,
            b']' => RBracket,
            b'{' => LBrace,
            b'}' => RBrace,
            b'.' => Dot,
            _ => return None,
        };
        self.pos += 1;
        Some(kind)
    }

    /// A numeric literal whose digits start at the current position; `start` is where
    /// the literal starts (at the `-` when `negative`).
    fn number(&mut self, start: usize, negative: bool) -> TokenKind<'a> {
        let digits = self.pos;
        if self.starts_with("0x") {
            self.pos += 2;
            self.eat_while(|c| c.is_ascii_hexdigit() || c == '_');
            return self.finish_int(start, digits + 2, 16, negative);
        }
        self.eat_while(|c| c.is_ascii_digit() || c == '_');
        let mut is_float = false;
        if self.byte_at(self.pos) == Some(b'.')
            && self
                .byte_at(self.pos + 1)
                .is_some_and(|b| b.is_ascii_digit())
        {
            self.pos += 1;
            self.eat_while(|c| c.is_ascii_digit() || c == '_');
            is_float = true;
        }
        if self.exponent() {
            is_float = true;
        }
        if is_float {
            self.finish_float(start, digits, negative)
        } else {
            self.finish_int(start, digits, 10, negative)
        }
    }

    /// Consumes an exponent `e5`, `e-9`, `E+3` if one follows.
    fn exponent(&mut self) -> bool {
        if !matches!(self.byte_at(self.pos), Some(b'e' | b'E')) {
            return false;
        }
        let sign = usize::from(matches!(self.byte_at(self.pos + 1), Some(b'+' | b'-')));
        if !self
            .byte_at(self.pos + 1 + sign)
            .is_some_and(|b| b.is_ascii_digit())
        {
            return false;
        }
        self.pos += 1 + sign;
        self.eat_while(|c| c.is_ascii_digit() || c == '_');
        true
    }

    /// Checks what follows a number: letters glued to it (`12ab`, `0x`, `1_`) make the
    /// whole word an invalid literal. Returns whether the literal is well formed.
    fn check_number_end(&mut self, start: usize, body: &str) -> bool {
        let glued = self.peek().is_some_and(is_ident_continue);
        if glued {
            self.eat_while(is_ident_continue);
        }
        let problem = if glued {
            Some("invalid number literal")
        } else if body.is_empty() {
            Some("a hexadecimal literal needs digits after '0x'")
        } else if body.ends_with('_') {
            Some("a number literal cannot end with '_'")
        } else {
            None
        };
        match problem {
            None => true,
            Some(message) => {
                let text = self.slice(start, self.pos);
                let span = self.span(start, self.pos);
                self.error(Diagnostic::error(message).at(span, format!("'{}'", shorten(text))));
                false
            }
        }
    }

    fn finish_int(
        &mut self,
        start: usize,
        digits: usize,
        radix: u32,
        negative: bool,
    ) -> TokenKind<'a> {
        let body = self.slice(digits, self.pos);
        if !self.check_number_end(start, body) {
            return TokenKind::Int(0);
        }
        match int_value(body, radix, negative) {
            Some(n) => TokenKind::Int(n),
            None => {
                let span = self.span(start, self.pos);
                self.error(
                    Diagnostic::error("integer literal out of range")
                        .at(span, "does not fit in a 64-bit Int")
                        .note("Int values range from -9223372036854775808 to 9223372036854775807"),
                );
                TokenKind::Int(0)
            }
        }
    }

    fn finish_float(&mut self, start: usize, digits: usize, negative: bool) -> TokenKind<'a> {
        let body = self.slice(digits, self.pos);
        if !self.check_number_end(start, body) {
            return TokenKind::Float(0.0);
        }
        let cleaned: String = body.chars().filter(|&c| c != '_').collect();
        match cleaned.parse::<f64>() {
            Ok(x) if x.is_finite() => TokenKind::Float(if negative { -x } else { x }),
            _ => {
                let span = self.span(start, self.pos);
                self.error(
                    Diagnostic::error("float literal out of range")
                        .at(span, "too large for a Float"),
                );
                TokenKind::Float(0.0)
            }
        }
    }

    /// A string literal starting at the opening quote.
    fn string(&mut self, start: usize) -> TokenKind<'a> {
        self.pos += 1;
        let mut value = String::new();
        loop {
            let Some(c) = self.peek() else {
                let end = self.span(self.pos, self.pos);
                self.eof_error(
                    Diagnostic::error("unterminated string literal")
                        .at(self.span(start, start + 1), "this string is never closed")
                        .also(end, "the input ends here"),
                );
                break;
            };
            self.pos += c.len_utf8();
            match c {
                '"' => break,
                '\\' => {
                    if let Some(decoded) = self.escape(self.pos - 1) {
                        value.push(decoded);
                    }
                }
                _ => value.push(c),
            }
        }
        TokenKind::Str(self.arena.alloc_str(&value))
    }

    /// A character literal starting at the opening quote: one character or escape,
    /// then the closing quote. `''`, `'ab'` and an unclosed `'a` are errors (the token
    /// is then `'\0'`, so that parsing goes on).
    fn char_literal(&mut self, start: usize) -> TokenKind<'a> {
        self.pos += 1;
        let value = match self.peek() {
            Some('\'') => {
                self.pos += 1;
                let span = self.span(start, self.pos);
                self.error(
                    Diagnostic::error("empty character literal")
                        .at(span, "a character literal holds exactly one character")
                        .note("write '\\'' for a quote, or \"\" for the empty string"),
                );
                return TokenKind::Char('\0');
            }
            Some('\n' | '\r') | None => return self.unclosed_char(start),
            Some('\\') => {
                self.pos += 1;
                if self.peek().is_none() {
                    return self.unclosed_char(start);
                }
                self.escape(self.pos - 1)
            }
            Some(c) => {
                self.pos += c.len_utf8();
                Some(c)
            }
        };
        if self.peek() == Some('\'') {
            self.pos += 1;
            return TokenKind::Char(value.unwrap_or('\0'));
        }
        // More than one character: up to a closing quote on the same line, if any.
        let rest = &self.text[self.pos..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        match line.find('\'') {
            Some(close) => {
                let end = self.pos + close + 1;
                let text = self.slice(start, end);
                let span = self.span(start, end);
                let inner = &text[1..text.len() - 1];
                self.error(
                    Diagnostic::error("a character literal holds exactly one character")
                        .at(span, "more than one character between the quotes")
                        .note(format!(
                            "for a string, write \"{}\"",
                            shorten(inner).escape_debug()
                        )),
                );
                self.pos = end;
                TokenKind::Char('\0')
            }
            None => self.unclosed_char(start),
        }
    }

    /// The error for a character literal not closed on its line.
    fn unclosed_char(&mut self, start: usize) -> TokenKind<'a> {
        let span = self.span(start, start + 1);
        self.error(
            Diagnostic::error("unterminated character literal")
                .at(span, "this character literal is never closed")
                .note("a character literal is one character between quotes: 'a', '\\n'"),
        );
        TokenKind::Char('\0')
    }

    /// The escape whose backslash is at `backslash` (the backslash is consumed).
    /// Reports a bad escape and returns `None`; leaves the end of input to the caller.
    fn escape(&mut self, backslash: usize) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        let simple = match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '\\' => '\\',
            '"' => '"',
            '\'' => '\'',
            '0' => '\0',
            'u' => return self.unicode_escape(backslash),
            _ => {
                let span = self.span(backslash, self.pos);
                self.error(
                    Diagnostic::error(format!("unknown escape sequence '\\{}'", c.escape_debug()))
                        .at(span, "not a valid escape")
                        .note("valid escapes: \\n \\t \\r \\\\ \\\" \\' \\0 \\u{HEX}"),
                );
                return None;
            }
        };
        Some(simple)
    }

    /// The rest of `\u{1F600}` after the `u`.
    fn unicode_escape(&mut self, backslash: usize) -> Option<char> {
        if self.peek() != Some('{') {
            return self.bad_unicode_escape(backslash, "expected '{' after '\\u'");
        }
        self.pos += 1;
        let digits = self.pos;
        self.eat_while(|c| c.is_ascii_hexdigit());
        let hex = self.slice(digits, self.pos);
        if hex.is_empty() || hex.len() > 6 {
            return self.bad_unicode_escape(
                backslash,
                "expected 1 to 6 hexadecimal digits in '\\u{...}'",
            );
        }
        if self.peek() != Some('}') {
            return self.bad_unicode_escape(backslash, "expected '}' to close '\\u{...}'");
        }
        self.pos += 1;
        let code = u32::from_str_radix(hex, 16).unwrap_or(u32::MAX);
        match char::from_u32(code) {
            Some(c) => Some(c),
            None => self.bad_unicode_escape(
                backslash,
                &format!("U+{code:X} is not a Unicode scalar value"),
            ),
        }
    }

    fn bad_unicode_escape(&mut self, backslash: usize, why: &str) -> Option<char> {
        let span = self.span(backslash, self.pos);
        self.error(Diagnostic::error("invalid unicode escape").at(span, why));
        None
    }
}

/// The value of integer digits (underscores ignored) in `radix`, negated when
/// `negative`; `None` when it does not fit in an `i64`.
fn int_value(body: &str, radix: u32, negative: bool) -> Option<i64> {
    let mut magnitude: u64 = 0;
    for c in body.chars().filter(|&c| c != '_') {
        let digit = u64::from(c.to_digit(radix)?);
        magnitude = magnitude
            .checked_mul(u64::from(radix))?
            .checked_add(digit)?;
    }
    if negative {
        // -9223372036854775808 has no positive counterpart: compute in i128.
        i64::try_from(-i128::from(magnitude)).ok()
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// Lexes a whole text at once: every token up to and including [`TokenKind::Eof`], and
/// the lexical errors. Meant for tests and tools; the parser pulls tokens lazily.
pub fn tokenize<'a>(
    arena: &'a Bump,
    file: FileId,
    text: &str,
) -> (Vec<Token<'a>>, Vec<Diagnostic>) {
    let mut lexer = Lexer::new(arena, file, text);
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next_token();
        tokens.push(token);
        if token.kind == TokenKind::Eof {
            return (tokens, lexer.into_diagnostics());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TokenKind::*;

    fn kinds(text: &str) -> Vec<TokenKind<'static>> {
        // Leak the arena: tests only, and it keeps the token payloads 'static.
        let arena: &'static Bump = Box::leak(Box::new(Bump::new()));
        let (tokens, diags) = tokenize(arena, FileId(0), text);
        assert!(diags.is_empty(), "{text:?}: {diags:#?}");
        tokens
            .into_iter()
            .map(|t| t.kind)
            .filter(|k| *k != Eof)
            .collect()
    }

    /// The first diagnostic's message and primary span as `start..end`.
    fn first_error(text: &str) -> (String, u32, u32) {
        let arena = Bump::new();
        let (_, diags) = tokenize(&arena, FileId(0), text);
        let d = diags
            .first()
            .unwrap_or_else(|| panic!("{text:?} lexed without errors"));
        let span = d.primary_span().expect("primary label");
        (d.message.clone(), span.start, span.end)
    }

    #[test]
    fn identifiers_and_keywords() {
        assert_eq!(
            kinds("let in def data match with if then else extern import Type"),
            [
                Let, In, Def, Data, Match, With, If, Then, Else, Extern, Import, Type
            ]
        );
        assert_eq!(
            kinds("x _y x' a1_b Types"),
            [
                Ident("x"),
                Ident("_y"),
                Ident("x'"),
                Ident("a1_b"),
                Ident("Types")
            ]
        );
        assert_eq!(kinds("_ été Δx"), [Underscore, Ident("été"), Ident("Δx")]);
    }

    #[test]
    fn a_shebang_first_line_is_skipped() {
        assert_eq!(
            kinds("#!/usr/bin/env spindle run\ndef x = 1"),
            [Def, Ident("x"), Equals, Int(1)]
        );
        assert!(kinds("#!spindle").is_empty());
        // Only on the first line, and only at its very start.
        for text in ["def x = 1\n#!x", " #!x"] {
            let arena = Bump::new();
            let (_, diags) = tokenize(&arena, FileId(0), text);
            assert!(!diags.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn comments() {
        assert_eq!(kinds("a -- comment\nb"), [Ident("a"), Ident("b")]);
        assert_eq!(
            kinds("a {- x {- nested -} y -} b"),
            [Ident("a"), Ident("b")]
        );
        assert_eq!(kinds("{--}a{-{--}-}"), [Ident("a")]);
        assert_eq!(
            first_error("a {- x {- y -} "),
            ("unterminated block comment".into(), 2, 4)
        );
    }

    #[test]
    fn line_starts() {
        let arena = Bump::new();
        let (tokens, _) = tokenize(&arena, FileId(0), "def a\n  b {- \n -} c d\n-- x\ndef");
        let starts: Vec<bool> = tokens.iter().map(|t| t.line_start).collect();
        assert_eq!(starts, [true, false, true, true, false, true, false]);
    }

    #[test]
    fn integers() {
        assert_eq!(
            kinds("42 1_000_000 0x2A 0x_ff 0"),
            [Int(42), Int(1_000_000), Int(42), Int(255), Int(0)]
        );
        assert_eq!(kinds("9223372036854775807"), [Int(i64::MAX)]);
        assert_eq!(kinds("-9223372036854775808"), [Int(i64::MIN)]);
        assert_eq!(
            first_error("1 + 9223372036854775808").0,
            "integer literal out of range"
        );
        assert_eq!(first_error("1 + 9223372036854775808").1, 4);
        assert_eq!(
            first_error("99999999999999999999999999").0,
            "integer literal out of range"
        );
        assert_eq!(
            first_error("0x8000000000000000").0,
            "integer literal out of range"
        );
        assert_eq!(first_error("x 12ab").0, "invalid number literal");
        assert_eq!(first_error("x 12ab").1, 2);
        assert_eq!(
            first_error("0x").0,
            "a hexadecimal literal needs digits after '0x'"
        );
        assert_eq!(first_error("1_").0, "a number literal cannot end with '_'");
    }

    #[test]
    #[allow(clippy::approx_constant)] // 3.14 is the spec's example, not an attempt at pi
    fn floats() {
        assert_eq!(
            kinds("3.14 2.0 1e-9 6.02e23 1E3"),
            [
                Float(3.14),
                Float(2.0),
                Float(1e-9),
                Float(6.02e23),
                Float(1e3)
            ]
        );
        assert_eq!(kinds("-2.5"), [Float(-2.5)]);
        assert_eq!(first_error("1e999").0, "float literal out of range");
    }

    #[test]
    fn negative_literals_depend_on_the_previous_token() {
        assert_eq!(kinds("-3"), [Int(-3)]);
        assert_eq!(kinds("x -3"), [Ident("x"), Minus, Int(3)]);
        assert_eq!(kinds("x - 3"), [Ident("x"), Minus, Int(3)]);
        assert_eq!(kinds("(-3)"), [LParen, Int(-3), RParen]);
        assert_eq!(kinds(") -3"), [RParen, Minus, Int(3)]);
        assert_eq!(
            kinds("[-1,-2]"),
            [LBracket, Int(-1), Comma, Int(-2), RBracket]
        );
        assert_eq!(kinds("= -1"), [Equals, Int(-1)]);
        assert_eq!(kinds("-> -1"), [Arrow, Int(-1)]);
        assert_eq!(kinds("| -1"), [Bar, Int(-1)]);
        assert_eq!(kinds("\\ -1"), [Backslash, Int(-1)]);
        assert_eq!(kinds("* -1"), [Star, Int(-1)]);
        assert_eq!(kinds("then -1"), [Then, Int(-1)]);
        assert_eq!(kinds("Type -1"), [Type, Minus, Int(1)]);
        assert_eq!(kinds("- 1"), [Minus, Int(1)]);
        assert_eq!(kinds("-x"), [Minus, Ident("x")]);
        assert_eq!(kinds("{ -1}"), [LBrace, Int(-1), RBrace]);
        assert_eq!(kinds("a--1\nb"), [Ident("a"), Ident("b")]);
    }

    #[test]
    fn operators() {
        assert_eq!(
            kinds("|| && == != < <= > >= ++ + - * / % -> \\ : = | , ( ) [ ] { }"),
            [
                OrOr, AndAnd, EqEq, NotEq, Lt, Le, Gt, Ge, PlusPlus, Plus, Minus, Star, Slash,
                Percent, Arrow, Backslash, Colon, Equals, Bar, Comma, LParen, RParen, LBracket,
                RBracket, LBrace, RBrace
            ]
        );
        assert_eq!(kinds("a+++b"), [Ident("a"), PlusPlus, Plus, Ident("b")]);
        assert_eq!(
            kinds("x :: xs : T ::: y"),
            [
                Ident("x"),
                ColonColon,
                Ident("xs"),
                Colon,
                Ident("T"),
                ColonColon,
                Colon,
                Ident("y")
            ]
        );
        assert_eq!(
            first_error("a & b"),
            ("unexpected character '&'".into(), 2, 3)
        );
        assert_eq!(
            first_error("a $$ b"),
            ("unexpected characters '$$'".into(), 2, 4)
        );
    }

    #[test]
    fn holes() {
        assert_eq!(
            kinds("?goal ? ?_x"),
            [Hole(Some("goal")), Hole(None), Hole(Some("_x"))]
        );
    }

    #[test]
    fn strings() {
        assert_eq!(kinds(r#""a\n\t\r\\\"\0b""#), [Str("a\n\t\r\\\"\0b")]);
        assert_eq!(kinds(r#""\u{1F600}\u{41}""#), [Str("😀A")]);
        assert_eq!(kinds("\"héllo\nworld\""), [Str("héllo\nworld")]);
        assert_eq!(
            first_error(r#"x "ab\qc""#),
            ("unknown escape sequence '\\q'".into(), 5, 7)
        );
        assert_eq!(
            first_error(r#""ab"#),
            ("unterminated string literal".into(), 0, 1)
        );
        assert_eq!(first_error(r#"  "ab\"#).1, 2);
        assert_eq!(
            first_error(r#""\u{110000}""#),
            ("invalid unicode escape".into(), 1, 11)
        );
        assert_eq!(first_error(r#""\u{D800}""#).0, "invalid unicode escape");
        assert_eq!(first_error(r#""\u{}""#).0, "invalid unicode escape");
        assert_eq!(first_error(r#""\u{1234567}""#).0, "invalid unicode escape");
        assert_eq!(
            first_error(r#""\u41""#),
            ("invalid unicode escape".into(), 1, 3)
        );
        assert_eq!(
            first_error(r#""\u{41""#),
            ("invalid unicode escape".into(), 1, 6)
        );
    }

    #[test]
    fn characters() {
        assert_eq!(
            kinds(r#"'a' '\n' '\'' '"' '\\' '\u{1F600}' 'é' '\0'"#),
            [
                Char('a'),
                Char('\n'),
                Char('\''),
                Char('"'),
                Char('\\'),
                Char('😀'),
                Char('é'),
                Char('\0')
            ]
        );
        // A prime inside a name stays part of the name.
        assert_eq!(kinds("x' 'y'"), [Ident("x'"), Char('y')]);
        assert_eq!(kinds(r#""it's \'""#), [Str("it's '")]);
        assert_eq!(
            first_error("x = ''"),
            ("empty character literal".into(), 4, 6)
        );
        assert_eq!(
            first_error("x = 'ab' + 1"),
            (
                "a character literal holds exactly one character".into(),
                4,
                8
            )
        );
        assert_eq!(
            first_error("'a\n'b'"),
            ("unterminated character literal".into(), 0, 1)
        );
        assert_eq!(
            first_error("'"),
            ("unterminated character literal".into(), 0, 1)
        );
        assert_eq!(
            first_error(r"'\"),
            ("unterminated character literal".into(), 0, 1)
        );
        assert_eq!(first_error(r"'\q'").0, "unknown escape sequence '\\q'");
        assert_eq!(first_error(r"'\u{D800}'").0, "invalid unicode escape");
        // After an error the lexer goes on.
        let (_, errors) = tokenize(&Bump::new(), FileId(0), "'' 'ab' 'c'");
        assert_eq!(errors.len(), 2);
    }

    #[test]
    fn errors_do_not_stop_the_lexer() {
        let arena = Bump::new();
        let (tokens, diags) = tokenize(&arena, FileId(0), "a # b \"\\q\" c");
        assert_eq!(diags.len(), 2);
        let names: Vec<_> = tokens.iter().map(|t| t.kind).collect();
        assert_eq!(names, [Ident("a"), Ident("b"), Str(""), Ident("c"), Eof]);
    }

    #[test]
    fn many_errors_are_capped() {
        let arena = Bump::new();
        let (_, diags) = tokenize(&arena, FileId(0), &"# a ".repeat(10_000));
        assert_eq!(diags.len(), MAX_LEX_ERRORS + 1);
    }
}
