//! From core terms to machine code (DESIGN.md 1 and 7): the whole-program analyses
//! (relevance, strictness, `may_call`: [`analysis`]; demand on whole list spines:
//! [`spine`]), fusion of folds and producers
//! over ranges ([`fuse`]), and code generation, with the recognisers that pick a
//! definition's tier (the numeric tier's functions, searches along a range)
//! ([`codegen`], re-exported here). Each is a pass over the program, as hvm-64 keeps
//! its optimisations: switching one off ([`super::tiers`]) leaves correct code.

pub mod analysis;
pub mod codegen;
pub mod fuse;
pub mod inline;
pub mod known;
pub mod spine;

pub use codegen::*;
