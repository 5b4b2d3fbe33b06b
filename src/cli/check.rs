//! `spindle check FILE`: load, parse and resolve (type checking comes with the checker);
//! print nothing on success, the diagnostics otherwise.

use spindle::driver;
use std::path::Path;
use std::process::ExitCode;

/// Runs `spindle check`.
pub fn main(file: &Path) -> ExitCode {
    let loaded = driver::load(file);
    eprint!("{}", loaded.render_diagnostics());
    if loaded.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
