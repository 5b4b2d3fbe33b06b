//! `spindle decode FILE.pb`: an encoded program printed back as Spindle source (its own
//! declarations; the prelude's come with every program). The program is type-checked
//! first: an ill-typed one is refused with the checker's errors, and nothing is
//! printed.

use spindle::driver;
use spindle::proto::source;
use std::path::Path;
use std::process::ExitCode;

/// Runs `spindle decode`.
pub fn main(file: &Path) -> ExitCode {
    let loaded = driver::load_encoded(file, driver::PreludeCheck::Whole);
    if loaded.loaded.has_errors() {
        eprint!("{}", loaded.loaded.render_errors());
        return ExitCode::from(1);
    }
    let Some(decoded) = &loaded.decoded else {
        return ExitCode::from(1);
    };
    match source::program_to_source(decoded, spindle::driver::prelude_program().as_ref()) {
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
