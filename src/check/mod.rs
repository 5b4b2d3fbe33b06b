//! From surface AST to core terms: scope resolution, imports and pattern compilation.
//! The type checker (elaboration) will replace the resolver here: one pass from
//! surface AST to core terms.

mod patterns;
pub mod resolve;
pub mod scope;
