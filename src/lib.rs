//! Spindle: a lazy, dependently typed scripting language for workflows that call
//! external tools, with opportunistic parallelism.
//!
//! The pipeline (DESIGN.md section 1):
//!
//! ```text
//! source text ──parse──▶ surface AST ──elaborate (type check)──▶ core term
//!    core term ──wind──▶ stack form ──need──▶ stack form ──readback──▶ core term
//!    core term ◀──▶ protobuf bytes ──blake3──▶ content hash
//! ```
//!
//! - [`syntax`]: spans, lexer, parser and the surface AST.
//! - [`core`]: core terms (de Bruijn indices, annotated binders), programs, the pretty
//!   printer back to Spindle source, substitution, alpha-equivalence.
//! - [`check`]: from surface AST to checked core terms in one pass: scopes and imports,
//!   bidirectional elaboration with implicit arguments and unification, pattern
//!   compilation with dependent refinement. Types are evaluated on the machine.
//! - [`machine`]: the by-need stack machine (wind, need, unwind folds, refcounted heap),
//!   the one evaluator for programs and for types.
//! - [`prim`]: primitive operations.
//! - [`external`]: host externals: their names and types, performing a call, and the
//!   worker pool that performs calls in parallel.
//! - [`sched`]: fibers and the opportunistic scheduler: independent external calls run
//!   at the same time, found by demand and by bounded speculation.
//! - [`diagnostic`]: errors and warnings as data, rendered with `codespan-reporting`.
//! - [`proto`]: core terms and programs to and from protobuf, and content hashes.
//! - [`prelude`]: the standard library's source, embedded.
//! - [`driver`]: loading a program from a file (or a REPL session), with the prelude,
//!   through the passes.
//! - [`output`]: `--format json`: a value in normal form as one JSON document.
//! - [`repl`]: the REPL: a backend that keeps a session, and a `rustyline` frontend.

pub mod check;
pub mod core;
pub mod diagnostic;
pub mod driver;
pub mod external;
pub mod machine;
pub mod output;
pub mod prelude;
pub mod prim;
pub mod proto;
pub mod repl;
pub mod sched;
pub mod snapshot;
pub mod syntax;
