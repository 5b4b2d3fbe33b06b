//! `spindle encode FILE -o OUT`: the checked program as protobuf.

use std::path::Path;
use std::process::ExitCode;

/// Runs `spindle encode`.
pub fn main(file: &Path, output: &Path) -> ExitCode {
    let _ = (file, output);
    super::not_implemented("`spindle encode`")
}
