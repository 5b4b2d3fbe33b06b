//! A Jupyter kernel for Spindle (issue 32): `spindle jupyter install` registers it,
//! `spindle jupyter kernel CONNECTION_FILE` runs it.
//!
//! The kernel is the REPL's session behind the Jupyter messaging protocol: a cell is
//! REPL inputs ([`cell`]), values come as `execute_result` with the REPL's
//! `value : Type` line and the value's JSON form, output written while a cell runs
//! comes as `stream` messages ([`capture`]), and `interrupt_request` stops the running
//! evaluation. The modules are small on purpose:
//!
//! - [`wire`]: the connection file, HMAC signing and message framing;
//! - [`kernel`]: the ZeroMQ sockets (the pure-Rust `zeromq` crate: no libzmq) and the
//!   requests answered without the session (kernel info, interrupt, shutdown);
//! - [`worker`]: the requests that need the session, on a thread of their own;
//! - [`cell`]: a cell as REPL inputs, and whether a cell is complete;
//! - [`capture`]: standard output and error as `stream` messages;
//! - [`history`]: the cells run, kept across kernels for `history_request`;
//! - [`input`]: standard input read by a cell, asked of the notebook;
//! - [`spec`]: the kernel spec that `install` writes.

pub mod capture;
pub mod cell;
pub mod history;
pub mod input;
pub mod kernel;
pub mod spec;
pub mod wire;
pub mod worker;
