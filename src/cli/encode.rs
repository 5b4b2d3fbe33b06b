//! `spindle encode FILE -o OUT`: the checked program as protobuf
//! (`proto/spindle.proto`); nothing is written when it has errors.

use spindle::driver;
use spindle::proto::{self, encode};
use std::path::Path;
use std::process::ExitCode;

/// Runs `spindle encode`.
pub fn main(file: &Path, output: &Path) -> ExitCode {
    let loaded = driver::load(file);
    eprint!("{}", loaded.render_diagnostics());
    let Some(program) = loaded.program.as_ref().filter(|_| !loaded.has_errors()) else {
        return ExitCode::from(1);
    };
    let prelude = proto::prelude_counts(&loaded.sources, program);
    let bytes = encode::program_bytes(program, prelude);
    match std::fs::write(output, bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", output.display());
            ExitCode::from(1)
        }
    }
}
