use bumpalo::Bump;
use spindle::syntax::ast::Expr;
use spindle::syntax::lexer::{Lexer, TokenKind};
use spindle::syntax::parser::parse_module;
use spindle::syntax::span::FileId;
use std::time::Instant;

fn main() {
    println!("Expr: {} bytes", std::mem::size_of::<Expr>());
    let text = format!("def main = 1{}\n", "+1".repeat(5 << 20));
    let t = Instant::now();
    let arena = Bump::new();
    let mut lx = Lexer::new(&arena, FileId(0), &text);
    let mut n = 0;
    while lx.next_token().kind != TokenKind::Eof { n += 1; }
    println!("lex {n} tokens: {:?}", t.elapsed());
    let t = Instant::now();
    let arena = Bump::new();
    let (m, d) = parse_module(&arena, FileId(0), &text);
    println!("parse: {:?} {} {} arena {} MB", t.elapsed(), m.decls.len(), d.len(), arena.allocated_bytes() >> 20);
}
