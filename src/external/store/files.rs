//! Files as the result store sees them (LANGUAGE.md 11, DESIGN.md 6): content hashes
//! with a quick check, the words of a call that name files, and the outputs a process
//! call leaves (what changed in the directories it names while it ran).
//!
//! # Fingerprints
//!
//! A file's fingerprint is the blake3 hash of its content, with its size, modification
//! time, inode and status-change time as a *quick check*: a file whose four match what
//! was seen when it was hashed is not read again, unless it was modified less than
//! [`RACY_NS`] before it was hashed (it might have changed again within the same clock
//! tick, the "racy" case git also guards against).
//!
//! # Outputs
//!
//! A process call's outputs are found without tracing the process: before it starts,
//! the directories it names are listed ([`Watch::begin`]); after it ends they are
//! listed again ([`Watch::finish`]) and the files created or changed in between are its
//! outputs, chosen by these rules:
//!
//! 1. files declared with `writing` (a declared directory: every file under it);
//! 2. files named by an argument (existing, or new in an existing directory);
//! 3. files under a directory named by an argument (recursively);
//! 4. files beside a named file whose name starts with that file's stem (`ref.fa` makes
//!    `ref.fa.bwt`, `ref.dict`: a tool's side files);
//! 5. any other file created beside a named file, **if no other call watching that
//!    directory ran at the same time** (in a fan-out, sibling calls write into the same
//!    directory, and their files are theirs).
//!
//! When a call fails, the files it created under rules 1, 2 and 4 (and 3 and 5 when no
//! other call watched the directory meanwhile) are moved into the store's `failed/`
//! folder, so no broken file looks finished ([`move_aside`]).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// A file modified less than this long before it was hashed is hashed again next time
/// (2 s: coarser than any file system's timestamps that Spindle meets).
pub const RACY_NS: i64 = 2_000_000_000;

/// The most entries listed under one named directory (deeper trees are cut; the files
/// beyond are not seen as outputs).
pub const MAX_WATCHED_ENTRIES: usize = 100_000;

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

    /// The fingerprints taken since the last call, to be stored.
    pub fn take_new(&self) -> Vec<(PathBuf, Fingerprint)> {
        self.new
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }
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

/// Whether `word`, which names nothing yet, looks like a file a call will create: it
/// has a `/` or a `.` in its last component (`out/a.txt`, `result.bam`), is not `.` or
/// `..` or a number, and its directory exists.
pub fn names_future_file(word: &str) -> bool {
    let p = Path::new(word);
    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    // Nor is a number (`sleep 0.5`, `--rate 1.5`).
    if name.contains(['*', '?', '$', '\n']) || word.parse::<f64>().is_ok() {
        return false;
    }
    let pathlike = word.contains('/') || (name.contains('.') && !name.starts_with('.'));
    pathlike && parent_dir(p).is_dir()
}

/// The directory a path is in (`.` for a bare name).
pub fn parent_dir(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The part of a file name up to its first `.` (the whole name for a name starting
/// with `.`).
fn stem(name: &str) -> &str {
    match name.find('.') {
        Some(0) | None => name,
        Some(i) => &name[..i],
    }
}

/// Whether `name` is `named` or one of its side files (see the module docs, rule 4).
fn is_side_file(name: &str, named: &str) -> bool {
    if name == named {
        return true;
    }
    let s = stem(named);
    !s.is_empty()
        && name.len() > s.len()
        && name.starts_with(s)
        && matches!(name.as_bytes()[s.len()], b'.' | b'_' | b'-')
}

/// The directories watched by running calls, to tell whether two calls watched one
/// directory at the same time (rule 5).
#[derive(Debug, Default)]
pub struct Watchers {
    dirs: Mutex<HashMap<PathBuf, Vec<Arc<AtomicBool>>>>,
}

/// One directory listing: names (relative to the listed directory) and their metadata.
type Listing = BTreeMap<PathBuf, Stat>;

fn list(dir: &Path, recursive: bool) -> Listing {
    let mut out = Listing::new();
    let mut work = vec![PathBuf::new()];
    while let Some(rel) = work.pop() {
        let Ok(entries) = fs::read_dir(dir.join(&rel)) else {
            continue;
        };
        for e in entries.flatten() {
            if out.len() >= MAX_WATCHED_ENTRIES {
                return out;
            }
            let Ok(ft) = e.file_type() else { continue };
            let name = rel.join(e.file_name());
            if ft.is_dir() {
                if recursive {
                    work.push(name);
                }
            } else if let Ok(m) = e.metadata()
                && m.is_file()
            {
                out.insert(name, Stat::from_meta(&m));
            }
        }
    }
    out
}

/// A watched directory of one call.
#[derive(Debug)]
struct WatchedDir {
    /// As the call names it (outputs are recorded relative to the working directory,
    /// as named).
    dir: PathBuf,
    /// Its canonical form, to find other calls watching it.
    canonical: PathBuf,
    recursive: bool,
    /// File names it names inside the directory (rules 2 and 4); empty for a named
    /// directory (rule 3).
    named: Vec<String>,
    before: Listing,
    /// Set when another call watched this directory while this one ran.
    shared: Arc<AtomicBool>,
}

/// The outputs of one process call, watched from before it starts to after it ends.
#[derive(Debug)]
pub struct Watch {
    dirs: Vec<WatchedDir>,
    declared: Vec<PathBuf>,
    watchers: Arc<Watchers>,
}

/// Files a finished call created or changed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outputs {
    /// Every output (rules 1 to 5), sorted, without repeats.
    pub files: Vec<PathBuf>,
    /// Those that did not exist before the call and are surely its own: moved aside if
    /// it failed.
    pub created: Vec<PathBuf>,
    /// Every output that did not exist before the call.
    pub new: Vec<PathBuf>,
}

impl Watch {
    /// Lists the directories that the call's `words` name (arguments of `run`, words of
    /// a `shell` command line) and the `writing` declarations, before it starts.
    pub fn begin(words: &[String], writing: &[String], watchers: &Arc<Watchers>) -> Watch {
        let mut by_dir: BTreeMap<PathBuf, (bool, Vec<String>, bool)> = BTreeMap::new();
        for word in words {
            for cand in path_candidates(word) {
                let p = Path::new(cand);
                if p.is_dir() {
                    by_dir
                        .entry(p.to_path_buf())
                        .or_insert((true, Vec::new(), false))
                        .0 = true;
                } else if p.is_file() || names_future_file(cand) {
                    if let Some(name) = p.file_name().and_then(|n| n.to_str()) {
                        let e = by_dir
                            .entry(parent_dir(p))
                            .or_insert((false, Vec::new(), false));
                        e.1.push(name.to_string());
                    }
                    if cand.ends_with('/') && !p.exists() {
                        by_dir
                            .entry(p.to_path_buf())
                            .or_insert((true, Vec::new(), true));
                    }
                }
            }
        }
        let declared: Vec<PathBuf> = writing.iter().map(PathBuf::from).collect();
        for d in &declared {
            if d.is_dir() {
                by_dir
                    .entry(d.clone())
                    .or_insert((true, Vec::new(), false))
                    .0 = true;
            }
        }
        let mut dirs = Vec::new();
        for (dir, (recursive, named, future)) in by_dir {
            let canonical = fs::canonicalize(&dir).unwrap_or_else(|_| absolute(&dir));
            let before = if future {
                Listing::new()
            } else {
                list(&dir, recursive)
            };
            dirs.push(WatchedDir {
                dir,
                canonical,
                recursive,
                named,
                before,
                shared: Arc::new(AtomicBool::new(false)),
            });
        }
        if let Ok(mut w) = watchers.dirs.lock() {
            for d in &dirs {
                let others = w.entry(d.canonical.clone()).or_default();
                if !others.is_empty() {
                    d.shared.store(true, Ordering::Relaxed);
                    for o in others.iter() {
                        o.store(true, Ordering::Relaxed);
                    }
                }
                others.push(Arc::clone(&d.shared));
            }
        }
        Watch {
            dirs,
            declared,
            watchers: Arc::clone(watchers),
        }
    }

    /// Lists the directories again after the call and gives its outputs.
    pub fn finish(self) -> Outputs {
        let mut files = Vec::new();
        let mut created = Vec::new();
        let mut new_files = Vec::new();
        for d in &self.dirs {
            let after = list(&d.dir, d.recursive);
            let shared = d.shared.load(Ordering::Relaxed);
            for (rel, stat) in &after {
                let new = !d.before.contains_key(rel);
                let changed = new || d.before.get(rel) != Some(stat);
                if !changed {
                    continue;
                }
                let name = rel.to_str().unwrap_or("");
                let path = join_rel(&d.dir, rel);
                let named = d.named.iter().any(|n| is_side_file(name, n));
                let whole_dir = d.recursive;
                let (output, own) = if named {
                    (true, true)
                } else if whole_dir {
                    (true, !shared)
                } else {
                    // Rule 5: other new files beside a named file.
                    (new && !shared, new && !shared)
                };
                if output {
                    if new && own {
                        created.push(path.clone());
                    }
                    if new {
                        new_files.push(path.clone());
                    }
                    files.push(path);
                }
            }
        }
        for d in &self.declared {
            if d.is_file() {
                files.push(d.clone());
            }
        }
        files.sort();
        files.dedup();
        created.sort();
        created.dedup();
        new_files.sort();
        new_files.dedup();
        Outputs {
            files,
            created,
            new: new_files,
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Ok(mut w) = self.watchers.dirs.lock() {
            for d in &self.dirs {
                if let Some(list) = w.get_mut(&d.canonical) {
                    list.retain(|o| !Arc::ptr_eq(o, &d.shared));
                    if list.is_empty() {
                        w.remove(&d.canonical);
                    }
                }
            }
        }
    }
}

/// `dir/rel`, without a leading `./` for the working directory.
fn join_rel(dir: &Path, rel: &Path) -> PathBuf {
    if dir == Path::new(".") {
        rel.to_path_buf()
    } else {
        dir.join(rel)
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
    fn candidates_and_side_files() {
        assert_eq!(path_candidates("--out=a/b.txt"), ["a/b.txt"]);
        assert_eq!(path_candidates("-n"), Vec::<&str>::new());
        assert_eq!(path_candidates("x.csv"), ["x.csv"]);
        assert!(is_side_file("ref.fa.bwt", "ref.fa"));
        assert!(is_side_file("ref.dict", "ref.fa"));
        assert!(is_side_file("ref.fa", "ref.fa"));
        assert!(!is_side_file("reference.fa", "ref.fa"));
        assert!(!is_side_file("sample10.bam", "sample1.bam"));
        assert!(is_side_file("sample1.bam.bai", "sample1.bam"));
        // A number is not a file a call will create (`sleep 0.5` lists no directory).
        assert!(names_future_file("result.bam"));
        assert!(!names_future_file("0.5"));
        assert!(!names_future_file("1e3"));
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
    fn a_watch_finds_named_side_and_directory_outputs() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("ref.fa"), ">x\nACGT\n").unwrap();
        fs::write(d.join("other.txt"), "old").unwrap();
        fs::create_dir(d.join("outdir")).unwrap();
        let watchers = Arc::new(Watchers::default());
        let ref_fa = d.join("ref.fa").display().to_string();
        let out = d.join("new.bam").display().to_string();
        let outdir = d.join("outdir").display().to_string();
        let w = Watch::begin(&["index".into(), ref_fa, out, outdir], &[], &watchers);
        fs::write(d.join("ref.fa.bwt"), "idx").unwrap();
        fs::write(d.join("new.bam"), "bam").unwrap();
        fs::create_dir(d.join("outdir/sub")).unwrap();
        fs::write(d.join("outdir/sub/r.txt"), "r").unwrap();
        fs::write(d.join("stray.log"), "log").unwrap();
        let o = w.finish();
        let names: Vec<String> = o
            .files
            .iter()
            .map(|p| p.strip_prefix(d).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            ["new.bam", "outdir/sub/r.txt", "ref.fa.bwt", "stray.log"]
        );
        assert_eq!(o.created.len(), 4);
        assert!(watchers.dirs.lock().unwrap().is_empty());
    }

    #[test]
    fn concurrent_watchers_do_not_claim_each_others_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("a.txt"), "a").unwrap();
        fs::write(d.join("b.txt"), "b").unwrap();
        let watchers = Arc::new(Watchers::default());
        let wa = Watch::begin(&[d.join("a.txt").display().to_string()], &[], &watchers);
        let wb = Watch::begin(&[d.join("b.txt").display().to_string()], &[], &watchers);
        fs::write(d.join("a.out"), "A").unwrap();
        fs::write(d.join("b.out"), "B").unwrap();
        fs::write(d.join("mystery"), "?").unwrap();
        let oa = wa.finish();
        let ob = wb.finish();
        assert_eq!(oa.files, [d.join("a.out")]);
        assert_eq!(ob.files, [d.join("b.out")]);
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
