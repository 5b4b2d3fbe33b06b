//! `spindle jupyter install [--user | --prefix DIR]` and `spindle jupyter kernel
//! CONNECTION_FILE` (issue 32): Spindle in Jupyter notebooks (the kernel itself is
//! [`spindle::jupyter`]).

use clap::{Args, Subcommand};
use spindle::jupyter::{kernel, spec};
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `spindle jupyter`.
#[derive(Args, Debug)]
pub struct JupyterArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: JupyterAction,
}

/// `spindle jupyter` subcommands.
#[derive(Subcommand, Debug)]
pub enum JupyterAction {
    /// Register the kernel `spindle` with Jupyter (for this user by default).
    Install {
        /// Install for the current user (the default).
        #[arg(long, conflicts_with = "prefix")]
        user: bool,
        /// Install under DIR/share/jupyter (a virtual environment, say).
        #[arg(long, value_name = "DIR")]
        prefix: Option<PathBuf>,
    },
    /// Run the kernel (Jupyter starts it with the connection file's path).
    Kernel {
        /// The connection file Jupyter wrote.
        connection_file: PathBuf,
    },
}

/// Runs `spindle jupyter ...`.
pub fn main(args: JupyterArgs) -> ExitCode {
    match args.action {
        JupyterAction::Install { user: _, prefix } => {
            let place = match prefix {
                Some(dir) => spec::Place::Prefix(dir),
                None => spec::Place::User,
            };
            let program = match std::env::current_exe() {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("error: cannot tell where this program is: {e}");
                    return ExitCode::from(1);
                }
            };
            match spec::install(&place, &program) {
                Ok(dir) => {
                    println!("installed the kernel `spindle` in {}", dir.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        JupyterAction::Kernel { connection_file } => match kernel::run(&connection_file) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        },
    }
}
