//! The result store (LANGUAGE.md 11, DESIGN.md 6): a directory (by default `.spindle/`
//! beside the program's entry file) holding the records of successful calls, so that
//! `spindle run --resume` reuses them instead of calling again.
//!
//! # Layout
//!
//! - `results.log`: an append-only log of checksummed batches ([`log`]), read whole
//!   when the store opens; a batch is on disk whole or not at all, whatever moment the
//!   process is killed. What it holds:
//!   - records: record key → [`Record`] (protobuf): the reply, what the call was seen
//!     to read (inline, and shared input sets by key) and write, timing;
//!   - variants: pre-key (the call: [`key`]) → its last few records, one per state of
//!     its inputs, newest last;
//!   - sets: set key → an input set shared by many records ([`record::InputSet`]);
//!   - used: record key → the day it was last used (for `spindle store gc`);
//!   - failed: pre-key → when it last failed (`not recorded: previous attempt
//!     failed`);
//!   - files: absolute path → the fingerprint last taken (quick check, so unchanged
//!     inputs are not hashed again across runs).
//!
//! A record is reused only if it still holds ([`verify`]): everything its call read is
//! as it was, everything it wrote is still there as it left it.
//! - `lock`: locked while a run holds the store.
//! - `failed/`: outputs of failed calls, moved aside for inspection, one folder per
//!   failed attempt.
//! - `runs/`: per-run working files of executors (Slurm's job scripts and results).
//!
//! Why a log of our own rather than one file per record, `cacache` or an embedded
//! database: a record is a few hundred bytes, and a file per record costs a disk block
//! (4 KiB) and an inode each (10,000 `delay` records would take 40 MB where the issue
//! allows 5 MB); an embedded database (redb, used until version 0.2) cost 2-3 ms to
//! open and 3-3.5 ms for its last durable commit, a third of the budget of a 100 ms
//! workflow (see [`log`] for the measurement).
//!
//! One run at a time: the `lock` file is locked while a store is open, so a second run
//! is told the store is in use ([`StoreError::InUse`]).
//!
//! # When the store cannot be used as it should
//!
//! Never a panic and never a wrong reuse; the run goes on when it can do so correctly,
//! and what happened is said on standard error:
//!
//! - a log of an earlier version of Spindle, or one damaged in the middle, is set
//!   aside and a fresh start (or what could be read) is used ([`Store::notes`]);
//! - a store that can be read but not written (a read-only folder or disk) is opened
//!   read-only: records are reused, nothing new is recorded ([`Store::is_read_only`]);
//! - a write that fails during the run (a full disk) stops recording for the rest of
//!   the run, with a warning; the results of the run stand;
//! - a store that cannot be read at all is an error for `--resume` and `--plan` (their
//!   purpose is the store) and a warning otherwise.

pub mod files;
pub mod key;
pub mod log;
pub mod record;
pub mod recording;
pub mod verify;

use files::{Fingerprint, Stat, now_ns};
use key::Hash;
use nix::fcntl::{Flock, FlockArg};
use prost::Message;
pub use record::Record;
use record::{FileEntry, InputSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The log file inside the store directory.
pub const LOG_FILE: &str = "results.log";
/// The lock file inside the store directory.
pub const LOCK_FILE: &str = "lock";
/// The database file of stores made before version 0.2 (not read; `store gc` removes
/// it).
const OLD_DB_FILE: &str = "results.redb";
/// The folder of failed calls' outputs inside the store directory.
pub const FAILED_DIR: &str = "failed";
/// The folder of executors' per-run files inside the store directory.
pub const RUNS_DIR: &str = "runs";
/// The store directory's name beside the entry file.
pub const DEFAULT_DIR: &str = ".spindle";
/// The environment variable that moves the store.
pub const STORE_ENV: &str = "SPINDLE_STORE";

/// What can go wrong with the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// Another run holds the store.
    InUse(PathBuf),
    /// The file system or the database failed.
    Io(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::InUse(d) => write!(
                f,
                "the result store {} is in use by another run (use --store DIR for another one)",
                d.display()
            ),
            StoreError::Io(e) => write!(f, "result store: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}

fn io(e: impl fmt::Display) -> StoreError {
    StoreError::Io(e.to_string())
}

/// The store directory for a run: `--store DIR` if given, else `SPINDLE_STORE`, else
/// `.spindle/` beside the entry file.
pub fn store_dir(option: Option<&Path>, entry_file: &Path) -> PathBuf {
    if let Some(d) = option {
        return d.to_path_buf();
    }
    if let Some(d) = std::env::var_os(STORE_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    files::parent_dir(entry_file).join(DEFAULT_DIR)
}

/// Today, as days since the epoch.
pub fn today() -> u32 {
    (now_ns() / 86_400_000_000_000).max(0) as u32
}

/// Why a call ran instead of being reused (`--explain`, `--plan`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// Never recorded.
    New,
    /// Recorded, but something it read is different now: a file's content, a
    /// directory's names (shown with a final `/`), a path now there or gone.
    InputChanged(String),
    /// Recorded, but a program it ran changed.
    ProgramChanged(String),
    /// Recorded, but an output is gone.
    OutputMissing(String),
    /// Recorded, but an output holds something else.
    OutputChanged(String),
    /// The last attempt failed, so nothing was recorded.
    PreviousFailed,
    /// Recorded with a non-zero exit status (`runResult`): run again unless
    /// `--resume-failed`.
    Exited(i64),
    /// `--rerun` matched it.
    Rerun,
    /// Recorded and still valid, but the run was not asked to reuse (`--resume`).
    NotResuming,
    /// The record could not be read.
    Unreadable,
    /// A model call whose place asked something else last time: the fields that
    /// changed (`temperature 0.5 -> 0.2`).
    RequestChanged(String),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::New => f.write_str("new call"),
            Why::InputChanged(p) => write!(f, "input changed: {p}"),
            Why::ProgramChanged(p) => write!(f, "program changed: {p}"),
            Why::OutputMissing(p) => write!(f, "output missing: {p}"),
            Why::OutputChanged(p) => write!(f, "output changed: {p}"),
            Why::PreviousFailed => f.write_str("not recorded: previous attempt failed"),
            Why::Exited(c) => write!(
                f,
                "exited with status {c} last time (--resume-failed reuses it)"
            ),
            Why::Rerun => f.write_str("--rerun matched it"),
            Why::NotResuming => f.write_str("recorded, but --resume not given"),
            Why::Unreadable => f.write_str("record unreadable"),
            Why::RequestChanged(d) => write!(f, "request changed: {d}"),
        }
    }
}

/// Writes to make in one transaction.
#[derive(Debug, Default)]
pub struct Batch {
    /// New records: key, pre-key, record.
    pub records: Vec<(Hash, Hash, Record)>,
    /// New shared input sets: key, encoded set.
    pub sets: Vec<(Hash, Vec<u8>)>,
    /// Record keys reused today.
    pub used: Vec<Hash>,
    /// Pre-keys whose call failed.
    pub failures: Vec<Hash>,
    /// Fingerprints taken.
    pub fingerprints: Vec<(PathBuf, Fingerprint)>,
}

impl Batch {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
            && self.sets.is_empty()
            && self.used.is_empty()
            && self.failures.is_empty()
            && self.fingerprints.is_empty()
    }

    /// How many writes.
    pub fn len(&self) -> usize {
        self.records.len()
            + self.sets.len()
            + self.used.len()
            + self.failures.len()
            + self.fingerprints.len()
    }
}

/// An open store.
pub struct Store {
    dir: PathBuf,
    open: Mutex<Open>,
    /// Held while the store is open (released when dropped); `None` for a store opened
    /// read-only whose lock file cannot be made.
    _lock: Option<Flock<std::fs::File>>,
    /// Opened read-only: nothing is written.
    read_only: bool,
    /// What opening set aside or could not do, for standard error.
    notes: Vec<String>,
}

/// The log and the state it holds.
struct Open {
    /// The log (`None`: opened read-only).
    log: Option<log::Log>,
    state: log::State,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("dir", &self.dir)
            .field("read_only", &self.read_only)
            .finish()
    }
}

fn encode_fp(fp: &Fingerprint) -> Vec<u8> {
    let mut v = Vec::with_capacity(72);
    v.extend_from_slice(&fp.hash);
    for n in [
        fp.stat.size as i64,
        fp.stat.mtime_ns,
        fp.stat.ctime_ns,
        fp.stat.ino as i64,
        fp.hashed_at_ns,
    ] {
        v.extend_from_slice(&n.to_le_bytes());
    }
    v
}

fn decode_fp(b: &[u8]) -> Option<Fingerprint> {
    if b.len() != 72 {
        return None;
    }
    let n = |i: usize| -> Option<i64> {
        let s: [u8; 8] = b.get(32 + 8 * i..40 + 8 * i)?.try_into().ok()?;
        Some(i64::from_le_bytes(s))
    };
    Some(Fingerprint {
        hash: b[..32].try_into().ok()?,
        stat: Stat {
            size: n(0)? as u64,
            mtime_ns: n(1)?,
            ctime_ns: n(2)?,
            ino: n(3)? as u64,
        },
        hashed_at_ns: n(4)?,
    })
}

impl Store {
    /// Opens the store in `dir`, creating it if needed. A store that can be read but
    /// not written is opened read-only ([`Store::is_read_only`]).
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        match Store::open_writable(dir) {
            Ok(s) => Ok(s),
            Err(StoreError::Io(why)) if dir.join(LOG_FILE).is_file() => {
                Store::open_read_only(dir).map_err(|_| StoreError::Io(why))
            }
            Err(e) => Err(e),
        }
    }

    fn open_writable(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| io(format!("{}: {e}", dir.display())))?;
        let lock_path = dir.join(LOCK_FILE);
        let lock_file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|e| io(format!("{}: {e}", lock_path.display())))?;
        let lock = match Flock::lock(lock_file, FlockArg::LockExclusiveNonblock) {
            Ok(l) => l,
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => {
                return Err(StoreError::InUse(dir.to_path_buf()));
            }
            Err((_, e)) => return Err(io(format!("{}: {e}", lock_path.display()))),
        };
        let (log, state, notes) = log::Log::open(&dir.join(LOG_FILE)).map_err(io)?;
        Ok(Store {
            dir: dir.to_path_buf(),
            open: Mutex::new(Open {
                log: Some(log),
                state,
            }),
            _lock: Some(lock),
            read_only: false,
            notes,
        })
    }

    /// Reads a store that cannot be written: its records, never changed.
    fn open_read_only(dir: &Path) -> Result<Store, StoreError> {
        let lock = std::fs::File::open(dir.join(LOCK_FILE)).ok().and_then(|f| {
            match Flock::lock(f, FlockArg::LockSharedNonblock) {
                Ok(l) => Some(Ok(l)),
                Err((_, nix::errno::Errno::EWOULDBLOCK)) => Some(Err(())),
                Err(_) => None,
            }
        });
        let lock = match lock {
            Some(Err(())) => return Err(StoreError::InUse(dir.to_path_buf())),
            Some(Ok(l)) => Some(l),
            None => None,
        };
        let path = dir.join(LOG_FILE);
        let bytes = std::fs::read(&path).map_err(|e| io(format!("{}: {e}", path.display())))?;
        let (state, _) = log::read(&bytes).map_err(|e| io(format!("{}: {e}", path.display())))?;
        Ok(Store {
            dir: dir.to_path_buf(),
            open: Mutex::new(Open { log: None, state }),
            _lock: lock,
            read_only: true,
            notes: vec![format!(
                "the result store {} cannot be written: records are reused, nothing new is recorded",
                dir.display()
            )],
        })
    }

    /// Opens the store in `dir` if it exists, creating nothing (for `--plan` and
    /// `spindle store info`); `Ok(None)` when there is none.
    pub fn open_existing(dir: &Path) -> Result<Option<Store>, StoreError> {
        if !dir.join(LOG_FILE).is_file() {
            return Ok(None);
        }
        Store::open(dir).map(Some)
    }

    fn lock(&self) -> MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the store was opened read-only (nothing is recorded).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// What opening set aside or could not do (an earlier version's log, a damaged
    /// log, a store that cannot be written), for standard error.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The record of `key`, if any.
    pub fn get(&self, key: &Hash) -> Result<Option<Record>, StoreError> {
        let open = self.lock();
        let Some(v) = open.state.records.get(key) else {
            return Ok(None);
        };
        Record::decode(v.as_slice()).map(Some).map_err(io)
    }

    /// The keys of the records of pre-key `pre`, newest first.
    pub fn variants(&self, pre: &Hash) -> Vec<Hash> {
        let open = self.lock();
        let mut keys = open.state.variants.get(pre).cloned().unwrap_or_default();
        keys.reverse();
        keys
    }

    /// The shared input set of this key, if stored.
    pub fn set(&self, key: &Hash) -> Option<InputSet> {
        let open = self.lock();
        InputSet::decode(open.state.sets.get(key)?.as_slice()).ok()
    }

    /// Whether the store holds the input set of this key.
    pub fn has_set(&self, key: &Hash) -> bool {
        self.lock().state.sets.contains_key(key)
    }

    /// Every record, in key order (for checks and tools; a record that cannot be
    /// decoded is an error).
    pub fn records(&self) -> Result<Vec<(Hash, Record)>, StoreError> {
        let open = self.lock();
        let mut out = Vec::with_capacity(open.state.records.len());
        for (k, v) in &open.state.records {
            out.push((*k, Record::decode(v.as_slice()).map_err(io)?));
        }
        out.sort_by_key(|r| r.0);
        Ok(out)
    }

    /// How many records the store holds.
    pub fn len(&self) -> usize {
        self.lock().state.records.len()
    }

    /// Whether the store holds no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the last attempt of the call with this pre-key failed.
    pub fn failed_before(&self, pre: &Hash) -> bool {
        self.lock().state.failed.contains_key(pre)
    }

    /// The fingerprint last taken of the absolute path `path`.
    pub fn fingerprint(&self, path: &Path) -> Option<Fingerprint> {
        let open = self.lock();
        decode_fp(open.state.files.get(path.to_str()?)?)
    }

    /// Writes `batch` as one frame of the log (whole or not at all) and empties it.
    /// `durable`: on disk when this returns (else in the operating system's hands:
    /// it survives the process being killed, not a power cut). A read-only store
    /// writes nothing.
    pub fn commit(&self, batch: &mut Batch, durable: bool) -> Result<(), StoreError> {
        if self.read_only {
            *batch = Batch::default();
            return Ok(());
        }
        // The records are encoded before the store is locked: lookups from the calls'
        // thread wait only for the write itself.
        let day = today();
        let now = now_ns();
        let mut payload = Vec::new();
        let mut entries: Vec<log::Entry<'_>> = Vec::with_capacity(batch.len());
        // A key recorded more than once in the batch is written once: its last record.
        let mut seen = std::collections::HashSet::with_capacity(batch.records.len());
        let mut last: Vec<&(Hash, Hash, Record)> = Vec::with_capacity(batch.records.len());
        for r in batch.records.iter().rev() {
            if seen.insert(r.0) {
                last.push(r);
            }
        }
        last.reverse();
        let encoded: Vec<Vec<u8>> = last.iter().map(|(_, _, r)| r.encode_to_vec()).collect();
        let fps: Vec<(String, Vec<u8>)> = batch
            .fingerprints
            .iter()
            .filter_map(|(p, fp)| Some((p.to_str()?.to_string(), encode_fp(fp))))
            .collect();
        let mut guard = self.lock();
        let open = &mut *guard;
        // Sets before the records that name them.
        for (key, bytes) in &batch.sets {
            if !open.state.sets.contains_key(key) {
                entries.push(log::Entry::Set(*key, bytes));
            }
        }
        // Failures first: a retry that succeeded in the same batch clears its mark.
        for key in &batch.failures {
            entries.push(log::Entry::Failed(*key, now));
        }
        for ((key, pre, _), bytes) in last.iter().zip(&encoded) {
            entries.push(log::Entry::Record {
                key: *key,
                pre: *pre,
                day,
                bytes,
            });
        }
        for key in &batch.used {
            if open.state.used.get(key) != Some(&day) && open.state.records.contains_key(key) {
                entries.push(log::Entry::Used(*key, day));
            }
        }
        for (p, fp) in &fps {
            entries.push(log::Entry::File(p, fp));
        }
        for e in &entries {
            e.encode(&mut payload);
        }
        let Some(log) = open.log.as_mut() else {
            *batch = Batch::default();
            return Ok(());
        };
        if !payload.is_empty() {
            log.append(&payload, durable).map_err(io)?;
            for e in &entries {
                open.state.apply(e);
            }
        } else if durable {
            // Makes the earlier, eventual frames durable.
            log.sync().map_err(io)?;
        }
        *batch = Batch::default();
        Ok(())
    }

    /// Whether `rec` still holds ([`verify`]), checked afresh (no fingerprint or set
    /// taken earlier in the run is trusted): for tools and tests.
    pub fn check(&self, rec: &Record) -> Result<(), Why> {
        let fps = files::Fingerprints::default();
        let cache = verify::SetCache::default();
        let none = |_: &Path| None;
        let sets = |k: &Hash| self.set(k);
        verify::Checker {
            fps: &fps,
            lookup: &none,
            sets: &sets,
            cache: &cache,
        }
        .check(rec)
    }

    /// The folder for the outputs of a failed attempt of the call with this key:
    /// `failed/<time>-<key prefix>/`.
    pub fn failed_folder(&self, key: &Hash) -> PathBuf {
        let hex: String = key[..6].iter().map(|b| format!("{b:02x}")).collect();
        self.dir
            .join(FAILED_DIR)
            .join(format!("{}-{hex}", now_ns() / 1_000_000))
    }
}

/// A record entry for a file and its fingerprint.
pub fn file_entry(path: &str, fp: &Fingerprint) -> FileEntry {
    FileEntry {
        path: path.to_string(),
        hash: fp.hash.to_vec(),
        size: fp.stat.size,
        mtime_ns: fp.stat.mtime_ns,
        ino: fp.stat.ino,
        program: false,
        ctime_ns: fp.stat.ctime_ns,
        hashed_at_ns: fp.hashed_at_ns,
        created: false,
        kind: record::EntryKind::Content as i32,
        dir: false,
    }
}

/// What `spindle store info` reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    /// Disk space of every file in the store directory (as `du` counts it).
    pub bytes: u64,
    /// Records of successful calls.
    pub records: u64,
    /// Folders of failed calls' outputs.
    pub failed: u64,
}

/// The disk space a directory's files take (blocks, as `du` counts them: a sparse
/// file counts what it holds, not its apparent length).
fn dir_size(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    let mut work = vec![dir.to_path_buf()];
    while let Some(d) = work.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(m) = e.metadata() else { continue };
            if m.is_dir() {
                work.push(e.path());
            } else {
                total += m.blocks() * 512;
            }
        }
    }
    total
}

/// The size and record count of the store in `dir`.
pub fn info(dir: &Path) -> Result<Info, StoreError> {
    let mut out = Info {
        bytes: dir_size(dir),
        ..Info::default()
    };
    out.failed = std::fs::read_dir(dir.join(FAILED_DIR))
        .map(|d| d.flatten().count() as u64)
        .unwrap_or(0);
    if let Some(store) = Store::open_existing(dir)? {
        out.records = store.len() as u64;
    }
    Ok(out)
}

/// What `spindle store gc` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GcReport {
    /// Records removed.
    pub removed: u64,
    /// Records kept.
    pub kept: u64,
    /// Folders of failed outputs and run files removed.
    pub folders: u64,
    /// Size before and after, in bytes.
    pub bytes_before: u64,
    /// Size after.
    pub bytes_after: u64,
}

/// The folder of a store where streamed calls keep their items (spool files).
pub const STREAMS_DIR: &str = "streams";

/// Removes the records not used in the last `keep_days` days (and failure marks,
/// fingerprints, failed outputs and run folders older than that, and the spool files
/// of streams no record names), then compacts the log.
pub fn gc(dir: &Path, keep_days: u32) -> Result<GcReport, StoreError> {
    let mut report = GcReport {
        bytes_before: dir_size(dir),
        ..GcReport::default()
    };
    let cutoff_day = today().saturating_sub(keep_days);
    let cutoff_ns = now_ns().saturating_sub(keep_days as i64 * 86_400_000_000_000);
    if let Some(store) = Store::open_existing(dir)? {
        let mut guard = store.lock();
        let open = &mut *guard;
        let st = &mut open.state;
        let before = st.records.len();
        let used = &st.used;
        let gone: std::collections::HashSet<Hash> = st
            .records
            .keys()
            .filter(|k| used.get(*k).copied().unwrap_or(0) < cutoff_day)
            .copied()
            .collect();
        st.records.retain(|k, _| !gone.contains(k));
        st.used.retain(|k, _| !gone.contains(k));
        st.variants.retain(|_, keys| {
            keys.retain(|k| !gone.contains(k));
            !keys.is_empty()
        });
        st.failed.retain(|_, t| *t >= cutoff_ns);
        st.files
            .retain(|_, v| decode_fp(v).is_some_and(|f| f.hashed_at_ns >= cutoff_ns));
        // Input sets no record names any more.
        let mut named = std::collections::HashSet::new();
        let mut spools = std::collections::HashSet::new();
        for bytes in st.records.values() {
            if let Ok(r) = Record::decode(bytes.as_slice()) {
                named.extend(r.input_sets);
                if let Some(crate::external::request::Reply::Stream { spool, .. }) =
                    r.reply.and_then(|x| x.to_reply())
                {
                    spools.insert(std::path::PathBuf::from(spool));
                }
            }
        }
        st.sets.retain(|k, _| named.contains(k.as_slice()));
        // Spool files of streams no record names any more (or of streams cut short by
        // a run that was killed).
        if let Ok(entries) = std::fs::read_dir(dir.join(STREAMS_DIR)) {
            for e in entries.flatten() {
                let p = e.path();
                let kept = spools.contains(&p)
                    || std::fs::canonicalize(&p).is_ok_and(|c| spools.contains(&c));
                if !kept {
                    let _ = std::fs::remove_file(&p);
                }
            }
        }
        report.removed = gone.len() as u64;
        report.kept = (before - gone.len()) as u64;
        // Rewriting the log gives the space of what was removed back.
        if let Some(log) = open.log.as_mut() {
            log.compact(&open.state).map_err(io)?;
        } else {
            return Err(io(format!("{} cannot be written", dir.display())));
        }
    }
    // A store made before version 0.2 kept its records in a database no longer read,
    // and one made before issue 24 a log of format 1 (set aside when opened).
    let _ = std::fs::remove_file(dir.join(OLD_DB_FILE));
    for v in 1..log::MAGIC[7] {
        let _ = std::fs::remove_file(dir.join(format!("{LOG_FILE}.v{v}")));
    }
    for sub in [FAILED_DIR, RUNS_DIR] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let modified = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos() as i64)
                .unwrap_or(0);
            if modified < cutoff_ns {
                let p = e.path();
                let removed = if p.is_dir() {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
                if removed.is_ok() {
                    report.folders += 1;
                }
            }
        }
    }
    report.bytes_after = dir_size(dir);
    Ok(report)
}

/// A size in bytes for people: `1.2 MB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut x = n as f64;
    let mut u = 0;
    while x >= 1000.0 && u + 1 < UNITS.len() {
        x /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::external::request::Reply;
    use record::StoredReply;

    fn rec(text: &str) -> Record {
        Record {
            version: record::RECORD_VERSION,
            external: "run".into(),
            reply: Some(StoredReply::from_reply(&Reply::Text(text.into()))),
            created_ns: now_ns(),
            ..Record::default()
        }
    }

    #[test]
    fn records_are_written_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let mut b = Batch::default();
        b.records.push(([1; 32], [2; 32], rec("out")));
        b.failures.push([9; 32]);
        store.commit(&mut b, true).unwrap();
        assert!(b.is_empty());
        let r = store.get(&[1; 32]).unwrap().unwrap();
        assert_eq!(r.reply.unwrap().to_reply(), Some(Reply::Text("out".into())));
        assert_eq!(store.variants(&[2; 32]), [[1; 32]]);
        assert!(store.failed_before(&[9; 32]));
        assert!(!store.failed_before(&[1; 32]));
        assert!(store.get(&[3; 32]).unwrap().is_none());
        // A second opener is told the store is in use.
        assert_eq!(
            Store::open(dir.path()).unwrap_err(),
            StoreError::InUse(dir.path().to_path_buf())
        );
        drop(store);
        let i = info(dir.path()).unwrap();
        assert_eq!(i.records, 1);
        assert!(i.bytes > 0);
    }

    #[test]
    fn gc_removes_what_was_not_used_lately() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            let mut b = Batch::default();
            b.records.push(([1; 32], [1; 32], rec("a")));
            b.records.push(([2; 32], [2; 32], rec("b")));
            store.commit(&mut b, true).unwrap();
            // Make record 2 look 10 days old.
            let mut open = store.lock();
            let mut p = Vec::new();
            let e = log::Entry::Used([2; 32], today() - 10);
            e.encode(&mut p);
            open.log.as_mut().unwrap().append(&p, false).unwrap();
        }
        let r = gc(dir.path(), 5).unwrap();
        assert_eq!((r.removed, r.kept), (1, 1));
        let store = Store::open(dir.path()).unwrap();
        assert!(store.get(&[1; 32]).unwrap().is_some());
        assert!(store.get(&[2; 32]).unwrap().is_none());
    }

    #[test]
    fn a_store_of_an_earlier_version_is_left_alone_and_gc_removes_it() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(OLD_DB_FILE);
        std::fs::write(&old, b"redb\x1a\n not ours").unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            assert!(store.is_empty());
            let mut b = Batch::default();
            b.records.push(([1; 32], [1; 32], rec("a")));
            store.commit(&mut b, true).unwrap();
        }
        assert!(old.is_file(), "opening never touches the old database");
        let r = gc(dir.path(), 30).unwrap();
        assert_eq!((r.removed, r.kept), (0, 1));
        assert!(!old.exists());
        let store = Store::open(dir.path()).unwrap();
        assert!(store.get(&[1; 32]).unwrap().is_some());
    }

    #[test]
    fn a_file_that_is_not_a_log_is_an_error_not_a_lost_store() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOG_FILE), b"something else entirely").unwrap();
        let e = Store::open(dir.path()).unwrap_err();
        assert!(e.to_string().contains("not a Spindle result log"), "{e}");
        // Nothing was overwritten.
        assert_eq!(
            std::fs::read(dir.path().join(LOG_FILE)).unwrap(),
            b"something else entirely"
        );
    }

    #[test]
    fn a_log_of_an_earlier_format_is_set_aside_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let mut old = b"SPNDLOG\x01".to_vec();
        old.extend_from_slice(&[3, 0, 0, 0, 1, 2, 3]);
        std::fs::write(dir.path().join(LOG_FILE), &old).unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert!(store.is_empty());
        assert_eq!(store.notes().len(), 1);
        assert!(
            store.notes()[0].contains("earlier version"),
            "{:?}",
            store.notes()
        );
        assert_eq!(
            std::fs::read(dir.path().join(format!("{LOG_FILE}.v1"))).unwrap(),
            old
        );
        let mut b = Batch::default();
        b.records.push(([1; 32], [1; 32], rec("a")));
        store.commit(&mut b, true).unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert!(store.notes().is_empty());
        assert_eq!(store.len(), 1);
        drop(store);
        gc(dir.path(), 30).unwrap();
        assert!(!dir.path().join(format!("{LOG_FILE}.v1")).exists());
    }

    #[test]
    fn a_store_opened_read_only_reuses_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            let mut b = Batch::default();
            b.records.push(([1; 32], [2; 32], rec("a")));
            store.commit(&mut b, true).unwrap();
        }
        let before = std::fs::read(dir.path().join(LOG_FILE)).unwrap();
        let store = Store::open_read_only(dir.path()).unwrap();
        assert!(store.is_read_only());
        assert!(store.notes()[0].contains("cannot be written"));
        assert_eq!(store.variants(&[2; 32]), [[1; 32]]);
        let mut b = Batch::default();
        b.records.push(([3; 32], [3; 32], rec("b")));
        store.commit(&mut b, true).unwrap();
        assert!(b.is_empty());
        drop(store);
        assert_eq!(std::fs::read(dir.path().join(LOG_FILE)).unwrap(), before);
    }

    #[test]
    fn a_damaged_log_keeps_every_batch_that_reads_whole() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            for i in 1..=3u8 {
                let mut b = Batch::default();
                b.records.push(([i; 32], [i; 32], rec("x")));
                store.commit(&mut b, true).unwrap();
            }
        }
        let path = dir.path().join(LOG_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        // Damage a byte inside the second batch's payload.
        let second = log::MAGIC.len() + (bytes.len() - log::MAGIC.len()) / 3 + 10;
        bytes[second] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert!(store.notes()[0].contains("damaged"), "{:?}", store.notes());
        assert!(store.get(&[1; 32]).unwrap().is_some());
        assert!(store.get(&[2; 32]).unwrap().is_none());
        assert!(
            store.get(&[3; 32]).unwrap().is_some(),
            "the batch after the damage"
        );
        assert!(dir.path().join(format!("{LOG_FILE}.damaged")).is_file());
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert!(
            store.notes().is_empty(),
            "rewritten whole: {:?}",
            store.notes()
        );
        assert_eq!(store.len(), 2);
    }

    #[test]
    fn fingerprints_round_trip() {
        let fp = Fingerprint {
            hash: [5; 32],
            stat: Stat {
                size: 10,
                mtime_ns: -3,
                ctime_ns: 4,
                ino: u64::MAX,
            },
            hashed_at_ns: 99,
        };
        assert_eq!(decode_fp(&encode_fp(&fp)), Some(fp));
        assert_eq!(decode_fp(&[1, 2]), None);
    }
}
