//! `spindle store info` and `spindle store gc --keep-days N` (LANGUAGE.md 11): the
//! result store's size and record count, and removing records not used lately.
//!
//! The store is the one a run of FILE would use: `--store DIR`, else `SPINDLE_STORE`,
//! else `.spindle/` beside FILE (without FILE: in the working directory).

use clap::{Args, Subcommand};
use spindle::external::store;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Options of `spindle store`.
#[derive(Args, Debug)]
pub struct StoreArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: StoreAction,
}

/// Where the store is.
#[derive(Args, Debug, Clone)]
pub struct Where {
    /// The store directory (default: `SPINDLE_STORE`, else `.spindle/` beside FILE).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// The program whose store it is (default: the working directory's store).
    pub file: Option<PathBuf>,
}

/// `spindle store` subcommands.
#[derive(Subcommand, Debug)]
pub enum StoreAction {
    /// Print the store's size and record count.
    Info(Where),
    /// Remove records not used in the last N days, and old failed outputs.
    Gc {
        /// Keep what was used in the last N days.
        #[arg(long, value_name = "N")]
        keep_days: u32,
        /// Where the store is.
        #[command(flatten)]
        place: Where,
    },
}

fn dir_of(w: &Where) -> PathBuf {
    let entry = w
        .file
        .clone()
        .unwrap_or_else(|| Path::new("main.sp").to_path_buf());
    store::store_dir(w.store.as_deref(), &entry)
}

/// Runs `spindle store`.
pub fn main(args: StoreArgs) -> ExitCode {
    match args.action {
        StoreAction::Info(w) => {
            let dir = dir_of(&w);
            if !dir.exists() {
                println!("store: {} (none yet)", dir.display());
                println!("records: 0");
                println!("size: 0 B");
                return ExitCode::SUCCESS;
            }
            match store::info(&dir) {
                Ok(i) => {
                    println!("store: {}", dir.display());
                    println!("records: {}", i.records);
                    println!("size: {}", store::human_bytes(i.bytes));
                    if i.failed > 0 {
                        println!(
                            "failed outputs: {} folders in {}",
                            i.failed,
                            dir.join(store::FAILED_DIR).display()
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        StoreAction::Gc { keep_days, place } => {
            let dir = dir_of(&place);
            if !dir.exists() {
                println!("store: {} (none: nothing to remove)", dir.display());
                return ExitCode::SUCCESS;
            }
            match store::gc(&dir, keep_days) {
                Ok(r) => {
                    println!(
                        "removed {} records not used in {keep_days} days, kept {}",
                        r.removed, r.kept
                    );
                    if r.folders > 0 {
                        println!(
                            "removed {} old folders of failed outputs and run files",
                            r.folders
                        );
                    }
                    println!(
                        "size: {} -> {}",
                        store::human_bytes(r.bytes_before),
                        store::human_bytes(r.bytes_after)
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
    }
}
