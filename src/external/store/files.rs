//! Files as the result store sees them (LANGUAGE.md 11, DESIGN.md 6): content hashes
//! with a quick check, directory listings, the words of a call that name files (for
//! where processes cannot be traced), and moving a failed call's outputs aside.
//!
//! # Fingerprints
//!
//! A file's fingerprint is the blake3 hash of its content, with its size, modification
//! time, inode and status-change time as a *quick check*: a file whose four match what
//! was seen when it was hashed is not read again, unless it was modified less than
//! [`RACY_NS`] before it was hashed (it might have changed again within the same clock
//! tick, the "racy" case git also guards against).
//!
//! Directories are fingerprinted the same way by the hash of their sorted names
//! ([`Fingerprints::listing`]), with the directory's own metadata as quick check.
//!
//! What a process call read and wrote is observed by [`crate::external::fstrace`];
//! before issue 24 it was guessed here from the directories a command line named.

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A file modified less than this long before it was hashed is hashed again next time
/// (2 s: coarser than any file system's timestamps that Spindle meets).
pub const RACY_NS: i64 = 2_000_000_000;

/// What a file's metadata says, for the quick check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stat {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// Status change time, nanoseconds since the epoch.
    pub ctime_ns: i64,
    /// Inode number.
    pub ino: u64,
}

impl Stat {
    /// The metadata of a regular file (following links), or `None` for anything else or
    /// a missing file.
    pub fn of(path: &Path) -> Option<Stat> {
        let m = fs::metadata(path).ok()?;
        m.is_file().then(|| Stat::from_meta(&m))
    }

    /// The metadata of a directory (following links), or `None` for anything else.
    pub fn of_dir(path: &Path) -> Option<Stat> {
        let m = fs::metadata(path).ok()?;
        m.is_dir().then(|| Stat::from_meta(&m))
    }

    fn from_meta(m: &fs::Metadata) -> Stat {
        Stat {
            size: m.size(),
            mtime_ns: m.mtime().saturating_mul(1_000_000_000) + m.mtime_nsec(),
            ctime_ns: m.ctime().saturating_mul(1_000_000_000) + m.ctime_nsec(),
            ino: m.ino(),
        }
    }
}

/// A file's content hash and the metadata it was taken with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    /// blake3 of the content.
    pub hash: [u8; 32],
    /// The metadata when it was hashed.
    pub stat: Stat,
    /// When it was hashed, nanoseconds since the epoch.
    pub hashed_at_ns: i64,
}

impl Fingerprint {
    /// Whether `now` (the file's metadata now) lets this fingerprint stand without
    /// reading the file.
    pub fn still_holds(&self, now: &Stat) -> bool {
        self.stat == *now && self.stat.mtime_ns < self.hashed_at_ns.saturating_sub(RACY_NS)
    }
}

/// Nanoseconds since the epoch, now.
pub fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos().min(i64::MAX as u128) as i64)
        .unwrap_or(0)
}

/// The blake3 hash of a file's content, read in pieces.
pub fn hash_file(path: &Path) -> std::io::Result<[u8; 32]> {
    let mut f = fs::File::open(path)?;
    let mut h = blake3::Hasher::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(*h.finalize().as_bytes())
}

/// Fingerprints files, remembering what it hashed (shared by threads). A fingerprint
/// from an earlier run may be given with [`Fingerprints::remember`]; new ones are kept
/// for [`Fingerprints::take_new`] to write back.
#[derive(Debug, Default)]
pub struct Fingerprints {
    known: Mutex<HashMap<PathBuf, Fingerprint>>,
    /// Directory listings taken this run, by absolute path.
    listings: Mutex<HashMap<PathBuf, Fingerprint>>,
    new: Mutex<Vec<(PathBuf, Fingerprint)>>,
    /// Files hashed (not taken from the quick check), for tests and statistics.
    pub hashed: AtomicU64,
}

impl Fingerprints {
    /// A fingerprint known from before, for the absolute path `path`.
    pub fn remember(&self, path: PathBuf, fp: Fingerprint) {
        if let Ok(mut k) = self.known.lock() {
            k.insert(path, fp);
        }
    }

    /// The fingerprint of the regular file `path` now (`None` if it is not one), hashing
    /// it only when the quick check fails. `lookup` is asked for a fingerprint from an
    /// earlier run when none is in memory.
    pub fn get(
        &self,
        path: &Path,
        lookup: &dyn Fn(&Path) -> Option<Fingerprint>,
    ) -> Option<Fingerprint> {
        let abs = absolute(path);
        let stat = Stat::of(&abs)?;
        let known = self.known.lock().ok().and_then(|k| k.get(&abs).copied());
        let known = known.or_else(|| lookup(&abs));
        if let Some(fp) = known
            && fp.still_holds(&stat)
        {
            return Some(fp);
        }
        let hashed_at_ns = now_ns();
        let hash = hash_file(&abs).ok()?;
        self.hashed.fetch_add(1, Ordering::Relaxed);
        // The file may have changed while it was read: its metadata afterwards is what
        // the quick check compares with, so a change during the read is seen next time
        // (its modification time is then after `hashed_at_ns - RACY_NS`).
        let stat = Stat::of(&abs).unwrap_or(stat);
        let fp = Fingerprint {
            hash,
            stat,
            hashed_at_ns,
        };
        if let Ok(mut k) = self.known.lock() {
            k.insert(abs.clone(), fp);
        }
        if let Ok(mut n) = self.new.lock() {
            n.push((abs, fp));
        }
        Some(fp)
    }

    /// The fingerprint of the directory `path` now: the hash of its sorted names
    /// (`None` if it is not a directory). Listed again only when the directory's own
    /// metadata changed (adding or removing a name changes its modification time) or
    /// it changed less than [`RACY_NS`] before it was listed.
    pub fn listing(&self, path: &Path) -> Option<Fingerprint> {
        let abs = absolute(path);
        let stat = Stat::of_dir(&abs)?;
        if let Some(fp) = self.listings.lock().ok().and_then(|k| k.get(&abs).copied())
            && fp.still_holds(&stat)
        {
            return Some(fp);
        }
        let hashed_at_ns = now_ns();
        let hash = listing_hash(&abs)?;
        let stat = Stat::of_dir(&abs).unwrap_or(stat);
        let fp = Fingerprint {
            hash,
            stat,
            hashed_at_ns,
        };
        if let Ok(mut k) = self.listings.lock() {
            k.insert(abs, fp);
        }
        Some(fp)
    }

    /// The fingerprints taken since the last call, to be stored.
    pub fn take_new(&self) -> Vec<(PathBuf, Fingerprint)> {
        self.new
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }
}

/// The blake3 hash of a directory's names, sorted (each with its length, so that
/// distinct lists give distinct bytes); `None` if it cannot be read.
pub fn listing_hash(dir: &Path) -> Option<[u8; 32]> {
    use std::os::unix::ffi::OsStrExt;
    let mut names: Vec<std::ffi::OsString> = fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect();
    names.sort();
    let mut h = blake3::Hasher::new();
    for n in &names {
        h.update(&(n.len() as u64).to_le_bytes());
        h.update(n.as_bytes());
    }
    Some(*h.finalize().as_bytes())
}

/// `path` made absolute against the working directory, with `.` components and
/// repeated separators dropped (`..` is kept: it may cross a symbolic link).
pub fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match std::env::current_dir() {
            Ok(d) => d.join(path),
            Err(_) => path.to_path_buf(),
        }
    };
    joined
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// The words of a `shell` command line, split as the shell would split them and again
/// at its operators (`|`, `;`, `&`, `<`, `>`, parentheses), each with whether it stands
/// where a command name goes (the first word, and the first after `|`, `;`, `&`, `(`,
/// skipping `NAME=value` assignments).
pub fn shell_words(cmd: &str) -> Vec<(String, bool)> {
    let tokens: Vec<String> =
        shlex::split(cmd).unwrap_or_else(|| cmd.split_whitespace().map(str::to_string).collect());
    let mut out = Vec::new();
    let mut command_next = true;
    for token in tokens {
        let mut piece = String::new();
        let flush = |piece: &mut String, out: &mut Vec<(String, bool)>, cmd: &mut bool| {
            if piece.is_empty() {
                return;
            }
            let word = std::mem::take(piece);
            let assignment = *cmd
                && word
                    .split_once('=')
                    .is_some_and(|(n, _)| !n.is_empty() && !n.contains('/'));
            out.push((word, *cmd && !assignment));
            if !assignment {
                *cmd = false;
            }
        };
        for c in token.chars() {
            match c {
                '|' | ';' | '&' | '(' | ')' | '<' | '>' | '`' => {
                    flush(&mut piece, &mut out, &mut command_next);
                    if matches!(c, '|' | ';' | '&' | '(' | '`') {
                        command_next = true;
                    }
                }
                _ => piece.push(c),
            }
        }
        flush(&mut piece, &mut out, &mut command_next);
    }
    out
}

/// The paths a word may name: the word itself, and for an option `--name=value` its
/// value.
pub fn path_candidates(word: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if !word.is_empty() && !word.starts_with('-') {
        out.push(word);
    }
    if word.starts_with('-')
        && let Some((_, v)) = word.split_once('=')
        && !v.is_empty()
    {
        out.push(v);
    }
    out
}

/// The directory a path is in (`.` for a bare name).
pub fn parent_dir(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Moves `files` into `into` (keeping their paths below it: `out/a.txt` goes to
/// `into/out/a.txt`, an absolute path below `into/abs/`), by renaming, or by copying
/// and removing across file systems. Returns the files that could not be moved, with
/// why.
pub fn move_aside(files: &[PathBuf], into: &Path) -> Vec<(PathBuf, String)> {
    let mut failed = Vec::new();
    for f in files {
        let rel: PathBuf = if f.is_absolute() {
            Path::new("abs").join(f.strip_prefix("/").unwrap_or(f))
        } else {
            f.components()
                .filter(|c| matches!(c, Component::Normal(_)))
                .collect()
        };
        let target = into.join(rel);
        if let Some(parent) = target.parent()
            && let Err(e) = fs::create_dir_all(parent)
        {
            failed.push((f.clone(), e.to_string()));
            continue;
        }
        if fs::rename(f, &target).is_ok() {
            continue;
        }
        match fs::copy(f, &target).and_then(|_| fs::remove_file(f)) {
            Ok(()) => {}
            Err(e) => failed.push((f.clone(), e.to_string())),
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_split_at_operators_and_know_commands() {
        let w = shell_words("sort -u 'my file.txt'|head -n 3 >out.txt; X=1 wc -l <in.txt");
        let words: Vec<&str> = w.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(
            words,
            [
                "sort",
                "-u",
                "my file.txt",
                "head",
                "-n",
                "3",
                "out.txt",
                "X=1",
                "wc",
                "-l",
                "in.txt"
            ]
        );
        let commands: Vec<&str> = w
            .iter()
            .filter(|(_, c)| *c)
            .map(|(s, _)| s.as_str())
            .collect();
        assert_eq!(commands, ["sort", "head", "wc"]);
    }

    #[test]
    fn candidates() {
        assert_eq!(path_candidates("--out=a/b.txt"), ["a/b.txt"]);
        assert_eq!(path_candidates("-n"), Vec::<&str>::new());
        assert_eq!(path_candidates("x.csv"), ["x.csv"]);
    }

    #[test]
    fn fingerprints_are_reused_only_while_the_file_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        fs::write(&f, "one").unwrap();
        let fps = Fingerprints::default();
        let none = |_: &Path| None;
        let a = fps.get(&f, &none).unwrap();
        assert_eq!(a.hash, *blake3::hash(b"one").as_bytes());
        // Just written: racy, so hashed again.
        fps.get(&f, &none).unwrap();
        assert_eq!(fps.hashed.load(Ordering::Relaxed), 2);
        // An old fingerprint with matching metadata is trusted.
        let old = Fingerprint {
            hash: [7; 32],
            stat: Stat::of(&f).unwrap(),
            hashed_at_ns: now_ns() + 10 * RACY_NS,
        };
        fps.remember(absolute(&f), old);
        assert_eq!(fps.get(&f, &none).unwrap().hash, [7; 32]);
        fs::write(&f, "two!").unwrap();
        assert_eq!(
            fps.get(&f, &none).unwrap().hash,
            *blake3::hash(b"two!").as_bytes()
        );
        assert!(fps.get(&dir.path().join("missing"), &none).is_none());
        assert!(fps.get(dir.path(), &none).is_none());
    }

    #[test]
    fn listings_change_with_names_only() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("a"), "1").unwrap();
        let fps = Fingerprints::default();
        let one = fps.listing(d).unwrap();
        fs::write(d.join("a"), "2").unwrap();
        assert_eq!(fps.listing(d).unwrap().hash, one.hash);
        fs::write(d.join("b"), "").unwrap();
        assert_ne!(fps.listing(d).unwrap().hash, one.hash);
        assert!(fps.listing(&d.join("a")).is_none());
        assert!(fps.listing(&d.join("missing")).is_none());
    }

    #[test]
    fn moving_aside_keeps_relative_paths() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir(d.join("out")).unwrap();
        fs::write(d.join("out/a.txt"), "partial").unwrap();
        let into = d.join("failed/1");
        let left = move_aside(&[d.join("out/a.txt")], &into);
        assert!(left.is_empty(), "{left:?}");
        assert!(!d.join("out/a.txt").exists());
        let moved = into
            .join("abs")
            .join(d.strip_prefix("/").unwrap())
            .join("out/a.txt");
        assert_eq!(fs::read_to_string(moved).unwrap(), "partial");
    }
}
