//! `spindle hash FILE`: the blake3 content hash of the checked program.

use std::path::Path;
use std::process::ExitCode;

/// Runs `spindle hash`.
pub fn main(file: &Path) -> ExitCode {
    let _ = file;
    super::not_implemented("`spindle hash`")
}
