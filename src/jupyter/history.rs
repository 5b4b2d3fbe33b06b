//! The kernel's history, kept across kernels.
//!
//! A notebook asks a kernel for the cells run before (`history_request`: the last
//! ones, a range, or those matching a pattern), and expects the cells of earlier
//! kernels too, as IPython keeps them in its history database. This kernel keeps them
//! in a small file, one cell a line, under the user's data directory
//! (`$XDG_DATA_HOME/spindle/kernel_history`, by default
//! `~/.local/share/spindle/kernel_history`): each kernel reads it when it starts and
//! appends every cell it runs, numbered by the kernel's session number and the cell's
//! execution count.
//!
//! Several kernels may run at once: appends and the choice of a session number happen
//! under a lock on a file beside it (`kernel_history.lock`), and every entry is one
//! line written whole. The file stays small: past [`MAX_BYTES`] it is rewritten with
//! its newest [`KEEP_BYTES`] (a temporary file renamed over it, so that it is always
//! whole). A file that cannot be read or written leaves the history to the running
//! kernel alone; the kernel goes on.

use serde_json::{Value, json};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The history file's name in `$XDG_DATA_HOME/spindle/`.
pub const FILE_NAME: &str = "kernel_history";

/// The size past which the file is cut down to its newest entries.
pub const MAX_BYTES: u64 = 2 << 20;

/// How much of the newest history a cut keeps; an entry larger than this (a cell of
/// over a megabyte) is kept by the running kernel only, never written.
pub const KEEP_BYTES: usize = 1 << 20;

/// One executed cell.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    /// The number of the kernel that ran it (1 for the first kernel of this user).
    pub session: u64,
    /// Its execution count in that kernel.
    pub line: u64,
    /// The cell's text.
    pub input: String,
    /// The last value's `text/plain`, if the cell had one.
    pub output: Option<String>,
}

/// The cells of earlier kernels and of this one, and the file that keeps them.
#[derive(Debug)]
pub struct History {
    /// Every entry, oldest first: those read from the file, then this kernel's.
    entries: Vec<HistoryEntry>,
    /// Where entries are appended (`None`: this kernel's memory only).
    file: Option<PathBuf>,
    /// This kernel's session number: fixed by the first entry written, provisional
    /// (one past the highest read) until then.
    session: u64,
    /// Whether [`History::session`] is fixed.
    fixed: bool,
}

impl History {
    /// A history of this kernel's cells only, kept nowhere (the tests' workers).
    pub fn in_memory() -> History {
        History {
            entries: Vec::new(),
            file: None,
            session: 1,
            fixed: true,
        }
    }

    /// The history kept in the user's data directory ([`default_path`]); in memory
    /// only when there is no such directory.
    pub fn open_default() -> History {
        match default_path() {
            Some(path) => History::open(path),
            None => History::in_memory(),
        }
    }

    /// The history kept in the file at `path`: the entries it holds (an unreadable or
    /// missing file holds none), and this kernel's cells are appended to it.
    pub fn open(path: PathBuf) -> History {
        let entries = read_entries(&path);
        let session = entries.iter().map(|e| e.session).max().unwrap_or(0) + 1;
        History {
            entries,
            file: Some(path),
            session,
            fixed: false,
        }
    }

    /// This kernel's session number (what `range` calls session 0).
    pub fn session(&self) -> u64 {
        self.session
    }

    /// Every entry, oldest first.
    pub fn entries(&self) -> &[HistoryEntry] {
        &self.entries
    }

    /// Keeps a cell this kernel ran (and appends it to the file).
    pub fn push(&mut self, line: u64, input: &str, output: Option<String>) {
        if let Some(path) = self.file.clone() {
            // A file that cannot be written: the entry stays in this kernel only.
            let _ = self.append(&path, line, input, output.as_deref());
        }
        self.fixed = true;
        self.entries.push(HistoryEntry {
            session: self.session,
            line,
            input: input.to_string(),
            output,
        });
    }

    /// Appends one entry under the lock; the first one fixes the session number
    /// (past any a kernel started since has written).
    fn append(
        &mut self,
        path: &Path,
        line: u64,
        input: &str,
        output: Option<&str>,
    ) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)?;
        let _lock = lock(&path.with_file_name(format!("{FILE_NAME}.lock")))?;
        if !self.fixed {
            let highest = read_entries(path).iter().map(|e| e.session).max();
            self.session = self.session.max(highest.map_or(1, |s| s + 1));
            self.fixed = true;
        }
        let text = json!([self.session, line, input, output]).to_string() + "\n";
        if text.len() > KEEP_BYTES {
            return Ok(());
        }
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .mode_private()
            .open(path)?;
        // A line cut short (a kernel killed while writing) is ended first, so that
        // this entry stays a line of its own.
        let len = file.metadata()?.len();
        let mut record = Vec::with_capacity(text.len() + 1);
        if len > 0 {
            let mut last = [0u8];
            file.seek(SeekFrom::Start(len - 1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                record.push(b'\n');
            }
        }
        record.extend_from_slice(text.as_bytes());
        file.write_all(&record)?;
        if len + record.len() as u64 > MAX_BYTES {
            cut(path, &mut file)?;
        }
        Ok(())
    }
}

/// Opening a file readable and writable by its owner only (history holds what was
/// typed, secrets included).
trait PrivateMode {
    fn mode_private(&mut self) -> &mut Self;
}

impl PrivateMode for OpenOptions {
    fn mode_private(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.mode(0o600)
    }
}

/// Makes `dir` (and its parents) when missing; the last one only its owner's.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// An exclusive lock on the file at `path` (made when missing), held until dropped.
fn lock(path: &Path) -> std::io::Result<nix::fcntl::Flock<File>> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode_private()
        .open(path)?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, errno)| std::io::Error::from(errno))
}

/// Rewrites the file with its newest lines, [`KEEP_BYTES`] at most, through a
/// temporary file renamed over it.
fn cut(path: &Path, file: &mut File) -> std::io::Result<()> {
    let tail = read_tail(file, KEEP_BYTES as u64)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{FILE_NAME}."))
        .tempfile_in(dir)?;
    tmp.write_all(&tail)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The last `limit` bytes of a file at most, from the start of a line.
fn read_tail(file: &mut File, limit: u64) -> std::io::Result<Vec<u8>> {
    let len = file.metadata()?.len();
    let from = len.saturating_sub(limit);
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    if from > 0 {
        // The first line is cut: it starts after the first line break.
        let start = bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| i + 1);
        bytes.drain(..start);
    }
    Ok(bytes)
}

/// The entries of the file at `path` (its last [`MAX_BYTES`] at most); lines that are
/// not entries are skipped.
fn read_entries(path: &Path) -> Vec<HistoryEntry> {
    let Ok(mut file) = File::open(path) else {
        return Vec::new();
    };
    let Ok(bytes) = read_tail(&mut file, MAX_BYTES) else {
        return Vec::new();
    };
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(parse_entry)
        .collect()
}

/// An entry from its line: `[session, line, input, output or null]`.
fn parse_entry(text: &str) -> Option<HistoryEntry> {
    let v: Value = serde_json::from_str(text).ok()?;
    let a = v.as_array()?;
    let output = match a.get(3) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return None,
    };
    Some(HistoryEntry {
        session: a.first()?.as_u64().filter(|&s| s > 0)?,
        line: a.get(1)?.as_u64()?,
        input: a.get(2)?.as_str()?.to_string(),
        output,
    })
}

/// `$XDG_DATA_HOME/spindle/kernel_history`, or `~/.local/share/spindle/kernel_history`
/// when `XDG_DATA_HOME` is unset or not an absolute path (as the XDG base directory
/// specification says); `None` without either.
pub fn default_path() -> Option<PathBuf> {
    data_dir(
        std::env::var_os("XDG_DATA_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
    .map(|d| d.join("spindle").join(FILE_NAME))
}

/// The user's data directory from `XDG_DATA_HOME` and `HOME`.
fn data_dir(xdg: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    match xdg {
        Some(d) if d.is_absolute() => Some(d),
        _ => home
            .filter(|h| h.is_absolute())
            .map(|h| h.join(".local").join("share")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_directory_follows_xdg() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(data_dir(p("/x/data"), p("/home/u")), p("/x/data"));
        assert_eq!(data_dir(p("rel"), p("/home/u")), p("/home/u/.local/share"));
        assert_eq!(data_dir(None, p("/home/u")), p("/home/u/.local/share"));
        assert_eq!(data_dir(None, None), None);
    }

    #[test]
    fn entries_are_kept_across_kernels_with_their_session() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spindle").join(FILE_NAME);
        let mut first = History::open(path.clone());
        assert_eq!(first.session(), 1);
        first.push(1, "1 + 2", Some("3 : Int".into()));
        first.push(2, "def x =\n  \"a\"", None);
        // A kernel started meanwhile writes after the first: it takes the next number.
        let mut second = History::open(path.clone());
        assert_eq!(second.session(), 2);
        second.push(1, "x", Some("\"a\" : String".into()));
        first.push(3, "4", None);
        let third = History::open(path.clone());
        assert_eq!(third.session(), 3);
        let got: Vec<(u64, u64, &str)> = third
            .entries()
            .iter()
            .map(|e| (e.session, e.line, e.input.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (1, 1, "1 + 2"),
                (1, 2, "def x =\n  \"a\""),
                (2, 1, "x"),
                (1, 3, "4")
            ]
        );
        assert_eq!(third.entries()[0].output.as_deref(), Some("3 : Int"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_damaged_line_is_skipped_and_the_next_entry_stays_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, "[1,1,\"a\",null]\n[1,2,\"cut sh").unwrap();
        let mut h = History::open(path.clone());
        assert_eq!(h.entries().len(), 1);
        h.push(1, "b", None);
        let inputs: Vec<String> = History::open(path)
            .entries()
            .iter()
            .map(|e| e.input.clone())
            .collect();
        assert_eq!(inputs, ["a", "b"]);
    }

    #[test]
    fn the_file_is_cut_to_its_newest_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut h = History::open(path.clone());
        let cell = "x".repeat(10_000);
        let n = (MAX_BYTES as usize / cell.len()) as u64 + 20;
        for line in 1..=n {
            h.push(line, &cell, None);
        }
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size <= MAX_BYTES, "{size}");
        let kept = History::open(path.clone());
        let lines: Vec<u64> = kept.entries().iter().map(|e| e.line).collect();
        assert!(lines.len() > 50, "{}", lines.len());
        assert_eq!(*lines.last().unwrap(), n, "the newest entry is kept");
        assert!(
            lines.windows(2).all(|w| w[1] == w[0] + 1),
            "a run of the newest"
        );
        // A cell larger than what a cut keeps stays in the kernel only.
        h.push(n + 1, &"y".repeat(KEEP_BYTES + 1), None);
        assert_eq!(h.entries().last().unwrap().line, n + 1);
        let last = History::open(path).entries().last().unwrap().line;
        assert_eq!(last, n);
    }
}
