//! `spindle hash FILE`: the blake3 content hash of the checked program, as 64 lowercase
//! hex digits. FILE is Spindle source or an encoded program, told apart by content
//! ([`driver::file_kind`]); the two agree (decoding does not change the hash). An
//! ill-typed program, of either kind, is refused with the checker's errors.

use spindle::driver;
use spindle::proto::hash;
use std::path::Path;
use std::process::ExitCode;

/// Runs `spindle hash`.
pub fn main(file: &Path) -> ExitCode {
    let loaded = driver::load_program_file(file, driver::PreludeCheck::Whole);
    eprint!("{}", loaded.loaded.render_diagnostics());
    if loaded.loaded.has_errors() {
        return ExitCode::from(1);
    }
    // An encoded program's hash is that of the program as decoded (the bytes' content).
    let program = match (&loaded.decoded, &loaded.loaded.program) {
        (Some(d), _) => &d.program,
        (None, Some(p)) => p,
        (None, None) => return ExitCode::from(1),
    };
    println!("{}", hash::program(program));
    ExitCode::SUCCESS
}
