//! `spindle encode FILE -o OUT`: the checked program as protobuf
//! (`proto/spindle.proto`); nothing is written when it has errors. `-o -` writes the
//! bytes to standard output.

use spindle::driver;
use spindle::proto::{self, encode};
use std::io::Write;
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
    if output == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return match out.write_all(&bytes).and_then(|()| out.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: cannot write to standard output: {e}");
                ExitCode::from(1)
            }
        };
    }
    match std::fs::write(output, bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", output.display());
            ExitCode::from(1)
        }
    }
}
