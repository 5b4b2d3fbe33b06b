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

/// Runs `spindle check FILE --split HOLE VAR`: the arms of a case split on `VAR` at
/// the hole `?HOLE`, one per line on standard output (exit status 0); or, if the hole
/// is not met or the split cannot be made, the reason and the diagnostics (1).
pub fn split(file: &Path, hole: &str, var: &str) -> ExitCode {
    let hole = hole.strip_prefix('?').unwrap_or(hole);
    spindle::check::split::request(hole, var);
    let loaded = driver::load(file);
    spindle::check::split::clear();
    match spindle::check::split::take_answer() {
        Some(Ok(arms)) => {
            for arm in arms {
                println!("{arm}");
            }
            ExitCode::SUCCESS
        }
        Some(Err(why)) => {
            eprintln!("error: cannot split on `{var}` at `?{hole}`: {why}");
            ExitCode::from(1)
        }
        None => {
            eprint!("{}", loaded.render_diagnostics());
            eprintln!("error: no hole `?{hole}` was checked in {}", file.display());
            ExitCode::from(1)
        }
    }
}
