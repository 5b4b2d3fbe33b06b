//! `spindle lsp`: a language server over standard input and output, for editors.
//!
//! It answers from the same checker as `spindle check` (the diagnostics are the same
//! text at the same places) and never evaluates a program: hovers show types, not
//! values. The parts, one job each:
//!
//! - [`transport`]: `Content-Length` framing, bad frames answered rather than fatal.
//! - [`server`]: the protocol loop and the dispatch of requests and notifications.
//! - [`documents`]: the open documents' text, kept up to date from the editor's edits.
//! - [`position`]: LSP positions (UTF-16) to byte offsets and back.
//! - [`analysis`]: one check of a document, with what the checker recorded of each
//!   place ([`crate::check::record`]).
//! - [`incremental`]: checking again after a change, re-checking only what the change
//!   can affect.
//! - [`queries`]: hover, definition, completion, symbols, code actions.
//!
//! See `docs/editors-lsp.md`.

pub mod analysis;
pub mod documents;
pub mod incremental;
pub mod position;
pub mod queries;
pub mod server;
pub mod transport;

/// Serves the editor on standard input and output until it says `exit`; returns
/// whether it shut the server down first (exit status 0) or not (1).
pub fn run_stdio() -> bool {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut output = stdout.lock();
    matches!(
        server::Server::default().serve(&mut input, &mut output),
        server::Ending::Clean
    )
}
