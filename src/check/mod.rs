//! From surface AST to checked core terms, in one pass: scope resolution, imports,
//! elaboration with dependent types (declarations in dependency order, data types
//! universe- and positivity-checked), unification, pattern compilation.
//!
//! - [`scope`]: which global a name means in which file; duplicates; suggestions.
//! - [`elab`]: bidirectional elaboration of declarations and expressions.
//! - `patterns`: `match` compiled to one-level matches, with dependent refinement;
//!   `coverage` names a case no arm covers.
//! - `unify`: definitional equality with unknowns (pattern unification); `levels`: the
//!   universe a solution lives in, so that an unknown's solution has its type.
//! - [`meta`]: the unknowns (metavariables) and their solutions.
//! - [`eval`]: what elaboration needs from the evaluator (weak head normal forms).
//! - [`prim_types`]: the types of primitives.
//! - [`record`]: what the checker learns about each place, kept for an editor;
//!   [`reuse`]: an editor's incremental check (groups of definitions an edit cannot
//!   change keep their results).

mod coverage;
pub mod elab;

pub use coverage::MISSING_CASE;
pub mod eval;
mod levels;
pub mod meta;
mod patterns;
pub mod prim_types;
pub mod record;
pub mod reuse;
pub mod scope;
pub mod split;
pub mod totality;
mod unify;
