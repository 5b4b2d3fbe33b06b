//! Host externals: the functions a program reaches outside itself (LANGUAGE.md
//! section 7), on the host's side of the line. Nothing here knows the machine's types.
//!
//! - [`registry`]: every built-in external declared once: name, type, effect class,
//!   parameters, how its arguments become a request and its reply a result, and which
//!   executor runs it.
//! - [`plain`]: [`Plain`](plain::Plain), the machine-independent form of arguments and
//!   results.
//! - [`request`]: what executors are asked ([`Request`](request::Request)), what they
//!   answer ([`Reply`](request::Reply)) and how calls fail
//!   ([`CallError`](request::CallError)).
//! - [`stdin`]: the program's standard input, when a frontend (the Jupyter kernel)
//!   gives it instead of descriptor 0.
//! - [`budget`]: the bytes external results hold while they are read, counted
//!   against `--max-memory`.
//! - [`exec`]: the [`Executor`](exec::Executor) a single-threaded scheduler drives
//!   (processes, file operations, timers, with limits and priorities), and
//!   [`perform_now`](exec::perform_now) for `--sequential`.
//! - [`fstrace`]: what a process call actually read and wrote, observed by a tracer
//!   process (ptrace with a seccomp filter on file system calls).
//! - [`lifetime`]: every process group Spindle starts, stopped and reaped on every exit
//!   path and on SIGINT, SIGTERM and SIGHUP.
//! - [`calls`]: [`Calls`](calls::Calls), the executor a run's scheduler drives: the
//!   executors above plus the result store ([`store`]: keys, records, outputs,
//!   `--resume`, `--explain`, `--plan`), retries, the call timeout, [`progress`] and the
//!   [`trace`]; [`options`] holds the `spindle run` options that configure it.

pub mod batch;
pub mod budget;
pub mod calls;
pub mod exec;
pub mod fstrace;
pub mod lifetime;
pub mod net;
pub mod options;
pub use crate::core::plain;
pub mod progress;
pub mod registry;
pub mod request;
pub mod stdin;
pub mod store;
pub mod stream;
pub mod trace;

/// The Spindle type (as source text) of the built-in external `name`.
pub fn host_type(name: &str) -> Option<&'static str> {
    registry::lookup(name).map(|e| e.ty)
}

/// Whether the host provides an external of this name.
pub fn is_known(name: &str) -> bool {
    registry::lookup(name).is_some()
}

/// The names of all built-in externals, for error messages.
pub fn known_names() -> Vec<&'static str> {
    registry::EXTERNALS
        .iter()
        .map(|e| e.name)
        .filter(|n| !n.starts_with("prim_"))
        .collect()
}
