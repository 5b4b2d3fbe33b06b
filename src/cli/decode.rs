//! `spindle decode FILE.pb`: an encoded program printed back as Spindle source (its own
//! declarations; the prelude's come with every program).

use spindle::proto::{self, decode, source};
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

/// Runs `spindle decode`.
pub fn main(file: &Path) -> ExitCode {
    let printed = read_encoded(file).and_then(|bytes| {
        let decoded = decode::program_bytes(&bytes).map_err(|e| e.to_string())?;
        source::program_to_source(&decoded).map_err(|e| e.to_string())
    });
    match printed {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("error: cannot decode {}: {why}", file.display());
            ExitCode::from(1)
        }
    }
}

/// Reads an encoded program, refusing files larger than the decoder accepts before
/// reading them whole.
pub fn read_encoded(file: &Path) -> Result<Vec<u8>, String> {
    let limit = proto::MAX_ENCODED_BYTES;
    let f = std::fs::File::open(file).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    f.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() > limit {
        return Err(format!(
            "it is larger than {limit} bytes, the most an encoded program may take"
        ));
    }
    Ok(bytes)
}
