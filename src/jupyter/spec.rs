//! `spindle jupyter install`: the kernel spec that lets Jupyter find and start the
//! kernel.
//!
//! A kernel spec is a folder `kernels/spindle/` holding `kernel.json` (the command
//! that starts the kernel, with `{connection_file}` where Jupyter puts the file's
//! path) under one of Jupyter's data folders: the user's (`--user`, the default) or a
//! prefix's `share/jupyter` (`--prefix DIR`, for a virtual environment).

use serde_json::json;
use std::path::{Path, PathBuf};

/// The kernel's name in Jupyter (`jupyter kernelspec list`, a notebook's metadata).
pub const KERNEL_NAME: &str = "spindle";

/// Where to install the kernel spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The user's Jupyter data folder: `$JUPYTER_DATA_DIR`, else
    /// `$XDG_DATA_HOME/jupyter`, else `~/.local/share/jupyter` (`~/Library/Jupyter` on
    /// macOS).
    User,
    /// `DIR/share/jupyter` (a virtual environment or another prefix).
    Prefix(PathBuf),
}

/// The text of `kernel.json` for a kernel started as `program jupyter kernel FILE`.
pub fn kernel_json(program: &Path) -> String {
    let spec = json!({
        "argv": [program.to_string_lossy(), "jupyter", "kernel", "{connection_file}"],
        "display_name": "Spindle",
        "language": "spindle",
        "interrupt_mode": "message",
        "metadata": { "debugger": false },
    });
    serde_json::to_string_pretty(&spec).unwrap_or_else(|_| spec.to_string()) + "\n"
}

/// The Jupyter data folder of `place`, or why there is none.
pub fn data_dir(place: &Place) -> Result<PathBuf, String> {
    match place {
        Place::Prefix(dir) => Ok(dir.join("share").join("jupyter")),
        Place::User => {
            let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
            if let Some(dir) = var("JUPYTER_DATA_DIR") {
                return Ok(PathBuf::from(dir));
            }
            let home = var("HOME").map(PathBuf::from);
            if cfg!(target_os = "macos")
                && let Some(home) = &home
            {
                return Ok(home.join("Library").join("Jupyter"));
            }
            if let Some(dir) = var("XDG_DATA_HOME") {
                return Ok(PathBuf::from(dir).join("jupyter"));
            }
            home.map(|h| h.join(".local").join("share").join("jupyter"))
                .ok_or_else(|| "neither JUPYTER_DATA_DIR nor HOME is set".to_string())
        }
    }
}

/// Writes the kernel spec for `program` under `place`; the folder written.
pub fn install(place: &Place, program: &Path) -> Result<PathBuf, String> {
    let dir = data_dir(place)?.join("kernels").join(KERNEL_NAME);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let file = dir.join("kernel.json");
    std::fs::write(&file, kernel_json(program))
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_starts_this_program_with_message_interrupts() {
        let text = kernel_json(Path::new("/opt/bin/spindle"));
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v["argv"],
            json!(["/opt/bin/spindle", "jupyter", "kernel", "{connection_file}"])
        );
        assert_eq!(v["language"], "spindle");
        assert_eq!(v["interrupt_mode"], "message");
    }

    #[test]
    fn install_under_a_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let place = Place::Prefix(dir.path().to_path_buf());
        let at = install(&place, Path::new("/bin/spindle")).unwrap();
        assert_eq!(at, dir.path().join("share/jupyter/kernels/spindle"));
        let text = std::fs::read_to_string(at.join("kernel.json")).unwrap();
        assert!(text.contains("\"{connection_file}\""), "{text}");
        // A prefix that cannot be made is an error, not a panic.
        let bad = Place::Prefix(PathBuf::from("/proc/no/such"));
        assert!(install(&bad, Path::new("/bin/spindle")).is_err());
    }
}
