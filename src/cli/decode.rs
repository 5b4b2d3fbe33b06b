//! `spindle decode FILE.pb`: an encoded program printed back as source.

use std::path::Path;
use std::process::ExitCode;

/// Runs `spindle decode`.
pub fn main(file: &Path) -> ExitCode {
    let _ = file;
    super::not_implemented("`spindle decode`")
}
