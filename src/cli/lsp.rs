//! `spindle lsp`: the language server, on standard input and output (see
//! `docs/editors-lsp.md`).

use std::process::ExitCode;

/// Runs the language server until the editor exits it.
pub fn main() -> ExitCode {
    if spindle::lsp::run_stdio() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
