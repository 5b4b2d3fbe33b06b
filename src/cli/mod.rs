//! The command line of LANGUAGE.md section 10: one file per subcommand.
//!
//! Each subcommand returns an [`ExitCode`]: 0 on success, 1 for a program error (syntax,
//! type or runtime). Clap itself exits with its usual status on a malformed command line.
//! Errors are printed to standard error here, at the edge, from diagnostics as data.

mod batch;
mod check;
mod decode;
mod encode;
mod hash;
mod jupyter;
mod lsp;
mod repl;
mod run;
mod store;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Spindle: a typed scripting language for workflows and compound AI programs.
#[derive(Parser, Debug)]
#[command(name = "spindle", version, about)]
pub struct Cli {
    /// What to do; without one, start the REPL.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Type-check FILE, evaluate `main` and print its value.
    Run(Box<run::RunArgs>),
    /// Type-check FILE only; print nothing on success.
    Check {
        /// The program.
        file: PathBuf,
        /// The most steps of type-level evaluation one definition's type, or its
        /// body, may take (0: no limit).
        #[arg(long = "type-steps", value_name = "N", default_value_t = spindle::check::eval::TYPE_LEVEL_STEP_LIMIT)]
        type_steps: u64,
        /// Check every definition for totality (structural recursion, every case
        /// covered, no `error`, external or hole), not only those marked `total`.
        #[arg(long)]
        total: bool,
        /// Print the arms of a `match` on VAR at the hole `?HOLE`, one per line as
        /// `| PATTERN -> ?HOLE`, instead of the diagnostics.
        #[arg(long, num_args = 2, value_names = ["HOLE", "VAR"])]
        split: Option<Vec<String>>,
    },
    /// Start the REPL, with FILE loaded.
    Repl {
        /// A program to load first.
        file: Option<PathBuf>,
        /// The most steps of type-level evaluation one definition's type, or its
        /// body, or an entry, may take (0: no limit).
        #[arg(long = "type-steps", value_name = "N", default_value_t = spindle::check::eval::TYPE_LEVEL_STEP_LIMIT)]
        type_steps: u64,
    },
    /// Write the checked program as protobuf.
    Encode {
        /// The program.
        file: PathBuf,
        /// Where to write the encoding (`-` for standard output).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Print an encoded program back as Spindle source (it must type-check).
    Decode {
        /// The encoded program.
        file: PathBuf,
    },
    /// Print the blake3 content hash of the checked program (FILE may be an encoded
    /// program; the kind is told by content).
    Hash {
        /// The program.
        file: PathBuf,
    },
    /// The result store: `info` (size and record count), `gc --keep-days N`.
    Store(store::StoreArgs),
    /// The Jupyter kernel: `install` registers it, `kernel FILE` runs it.
    Jupyter(jupyter::JupyterArgs),
    /// Serve an editor: a language server on standard input and output (diagnostics,
    /// hover, definition, completion, symbols, code actions; see docs/editors-lsp.md).
    Lsp,
}

/// The command line as clap should read it: `run`'s words after FILE sorted into its
/// options and the program's arguments ([`run::normalize`]).
pub fn normalize_run(argv: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    run::normalize(argv)
}

/// Runs the chosen subcommand.
pub fn dispatch(cli: Cli) -> ExitCode {
    match cli.command {
        None => repl::main(None),
        Some(Command::Run(args)) => run::main(*args),
        Some(Command::Check {
            file,
            type_steps,
            total,
            split,
        }) => {
            spindle::check::eval::set_type_step_limit(type_steps);
            spindle::check::totality::set_check_all(total);
            match split.as_deref() {
                Some([hole, var]) => check::split(&file, hole, var),
                _ => check::main(&file),
            }
        }
        Some(Command::Repl { file, type_steps }) => {
            spindle::check::eval::set_type_step_limit(type_steps);
            repl::main(file.as_deref())
        }
        Some(Command::Encode { file, output }) => encode::main(&file, &output),
        Some(Command::Decode { file }) => decode::main(&file),
        Some(Command::Hash { file }) => hash::main(&file),
        Some(Command::Store(args)) => store::main(args),
        Some(Command::Jupyter(args)) => jupyter::main(args),
        Some(Command::Lsp) => lsp::main(),
    }
}
