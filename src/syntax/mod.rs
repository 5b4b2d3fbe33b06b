//! Surface syntax: source spans, the lexer, the parser and the surface AST.

pub mod ast;
pub mod doc;
pub mod lexer;
pub mod parser;
pub mod span;
