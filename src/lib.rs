//! Spindle: a lazy, dependently typed scripting language for workflows that call
//! external tools, with opportunistic parallelism.
//!
//! The pipeline (DESIGN.md section 1):
//!
//! ```text
//! source text ──parse──▶ surface AST ──elaborate (type check)──▶ core term
//!    core term ──analyse (relevance, strictness) + compile──▶ machine code
//!    machine code ──evaluate (one machine, fibers, scheduler)──▶ machine state
//!    machine state ──unwind + a fold (readback, print, audit, ...)──▶ term / text / ...
//!    core term ◀──▶ protobuf bytes ──blake3──▶ content hash
//! ```
//!
//! - [`syntax`]: spans, lexer, parser and the surface AST.
//! - [`core`]: core terms (de Bruijn indices, annotated binders), programs, the pretty
//!   printer back to Spindle source, substitution, alpha-equivalence.
//! - [`check`]: from surface AST to checked core terms: scopes and imports, dependency
//!   order, bidirectional elaboration with implicit arguments and unification, data
//!   types, pattern compilation with dependent refinement. Types are evaluated on the
//!   machine.
//! - [`machine`]: the by-need machine, the one evaluator for programs and for types:
//!   analyses, machine code, the evaluation loop, the heap with its cycle collector,
//!   readback of values and of paused states, the printer, the audits.
//! - [`sched`]: fibers, certainty and the opportunistic scheduler: independent external
//!   calls run at the same time, found by demand, forks of certain work and bounded
//!   speculation.
//! - [`prim`]: primitive operations.
//! - [`external`]: the registry of externals, the executors that perform calls (local
//!   processes, timers, files, Slurm), process lifetime, the result store, progress and
//!   the trace. Executors know nothing of fibers.
//! - [`diagnostic`]: errors and warnings as data, rendered with `codespan-reporting`.
//! - [`proto`]: core terms and programs to and from protobuf, content and definition
//!   hashes.
//! - [`snapshot`]: evaluations stopped, stored as programs and resumed.
//! - [`prelude`]: the standard library's source, embedded.
//! - [`driver`]: loading a program from a file (or a REPL session), with the prelude,
//!   through the passes.
//! - [`output`]: normal forms as JSON (`--format json`).
//! - [`repl`]: the REPL: a backend that keeps a session, and a `rustyline` frontend.
//! - [`lsp`]: the language server for editors (`spindle lsp`), on the checker and
//!   what it records of each place.

pub mod check;
pub mod core;
pub mod diagnostic;
pub mod driver;
pub mod external;
pub mod jupyter;
pub mod lsp;
pub mod machine;
pub mod output;
pub mod prelude;
pub mod prim;
pub mod proto;
pub mod repl;
pub mod sched;
pub mod snapshot;
pub mod syntax;
