//! `spindle hash FILE`: the blake3 content hash of the program, as 64 lowercase hex
//! digits. FILE is Spindle source, or an encoded program if its name ends in `.pb` (the
//! two agree: decoding does not change the hash).

use spindle::driver;
use spindle::proto::{decode, hash};
use std::path::Path;
use std::process::ExitCode;

/// Runs `spindle hash`.
pub fn main(file: &Path) -> ExitCode {
    if file.extension().is_some_and(|e| e == "pb") {
        let decoded = super::decode::read_encoded(file)
            .and_then(|bytes| decode::program_bytes(&bytes).map_err(|e| e.to_string()));
        return match decoded {
            Ok(d) => {
                println!("{}", hash::program(&d.program));
                ExitCode::SUCCESS
            }
            Err(why) => {
                eprintln!("error: cannot decode {}: {why}", file.display());
                ExitCode::from(1)
            }
        };
    }
    let loaded = driver::load(file);
    eprint!("{}", loaded.render_diagnostics());
    match loaded.program.as_ref().filter(|_| !loaded.has_errors()) {
        Some(program) => {
            println!("{}", hash::program(program));
            ExitCode::SUCCESS
        }
        None => ExitCode::from(1),
    }
}
