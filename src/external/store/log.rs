//! The store's file, `results.log`: an append-only log of checksummed frames, read
//! whole when the store opens and kept in memory while it is open (the way ninja keeps
//! its build and deps logs).
//!
//! # Format
//!
//! The file starts with the 8 bytes [`MAGIC`]. Then come frames, each one committed
//! batch: a little-endian `u32` length `n`, `n` bytes of payload, and the first 16
//! bytes of the payload's blake3 hash. A frame is the unit of atomicity: a frame cut
//! short (the process or the machine died while writing it) or whose checksum does not
//! match ends the log, and opening truncates the file back to the end of the last whole
//! frame. So a batch is on disk whole or not at all, whatever moment the process dies.
//!
//! A payload is a sequence of entries, each a kind byte and its fields
//! ([`Entry`]); applying them in order gives the store's state ([`State`]): records,
//! the variants of each pre-key (its last [`MAX_VARIANTS`] records, one per state of
//! its inputs), the day each record was last used, failure marks, shared input sets
//! and file fingerprints.
//!
//! Version 2 of the format (issue 24) keys records by what their calls were observed
//! to read; a log of version 1 is set aside whole when a store opens
//! ([`ReadError::EarlierVersion`]), never read as records to trust.
//!
//! # Growth
//!
//! A record written again, or a record's day of use moving on, leaves its earlier
//! entry behind as dead weight. When the file is more than twice what one frame of the
//! live state would take (and more than [`COMPACT_MIN`]), opening rewrites it as that
//! one frame: into a temporary file, synced, renamed over the log, and the directory
//! synced. `spindle store gc` compacts always.
//!
//! # Why not an embedded database
//!
//! Until version 0.2 the store was a redb database. Measured on this project's
//! external-call benchmarks (`../shared/bench/dag`), opening a 5.8 MB store took 2 to 3
//! ms and its closing durable commit 3 to 3.5 ms, out of a 100 ms critical path whose
//! budget for everything Spindle does is 15 ms. Reading a log of the same records and
//! appending one synced frame at the end cost well under a millisecond each. Lookups
//! are hash-map lookups. The price is memory: the live records are held while the store
//! is open (a few hundred bytes per call).

use super::key::Hash;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The first bytes of a log file (the last byte is the format's version).
pub const MAGIC: &[u8; 8] = b"SPNDLOG\x02";

/// The first bytes of a log of an earlier format (their last byte is the version).
const MAGIC_FAMILY: &[u8; 7] = b"SPNDLOG";

/// How many records a pre-key keeps (the most recent states of its inputs); older ones
/// are dropped when a new one comes.
pub const MAX_VARIANTS: usize = 4;

/// How many checksum bytes end a frame.
const SUM: usize = 16;

/// Below this size a log is never compacted on opening.
pub const COMPACT_MIN: u64 = 1 << 20;

/// What the log says: the store's whole state.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct State {
    /// Record key → encoded [`super::Record`].
    pub records: HashMap<Hash, Vec<u8>>,
    /// Pre-key → its records' keys, oldest first (at most [`MAX_VARIANTS`]).
    pub variants: HashMap<Hash, Vec<Hash>>,
    /// Record key → the day (since the epoch) it was last recorded or reused.
    pub used: HashMap<Hash, u32>,
    /// Pre-key → when its last attempt failed (nanoseconds since the epoch).
    pub failed: HashMap<Hash, i64>,
    /// Set key → encoded [`super::record::InputSet`].
    pub sets: HashMap<Hash, Vec<u8>>,
    /// Absolute path → its last fingerprint, encoded.
    pub files: HashMap<String, Vec<u8>>,
}

/// One change to the state.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry<'a> {
    /// A call failed at this time: kind 1, pre-key, `i64` time.
    Failed(Hash, i64),
    /// A call's record (which also clears its failure mark, becomes its pre-key's
    /// newest variant, and is marked used on the day): kind 2, key, pre-key, `u32`
    /// day, `u32` length, the encoded record.
    Record {
        /// The record's key.
        key: Hash,
        /// The pre-key.
        pre: Hash,
        /// The day it was recorded.
        day: u32,
        /// The encoded record.
        bytes: &'a [u8],
    },
    /// A record was reused on a day: kind 3, key, `u32` day.
    Used(Hash, u32),
    /// A path's fingerprint: kind 4, `u32` length, path, `u32` length, fingerprint.
    File(&'a str, &'a [u8]),
    /// A set of inputs shared by records: kind 6, set key, `u32` length, the encoded
    /// set.
    Set(Hash, &'a [u8]),
}

impl Entry<'_> {
    /// Appends the entry's bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Entry::Failed(k, t) => {
                out.push(1);
                out.extend_from_slice(k);
                out.extend_from_slice(&t.to_le_bytes());
            }
            Entry::Record {
                key,
                pre,
                day,
                bytes,
            } => {
                out.push(2);
                out.extend_from_slice(key);
                out.extend_from_slice(pre);
                out.extend_from_slice(&day.to_le_bytes());
                out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                out.extend_from_slice(bytes);
            }
            Entry::Used(k, d) => {
                out.push(3);
                out.extend_from_slice(k);
                out.extend_from_slice(&d.to_le_bytes());
            }
            Entry::File(p, fp) => {
                out.push(4);
                out.extend_from_slice(&(p.len() as u32).to_le_bytes());
                out.extend_from_slice(p.as_bytes());
                out.extend_from_slice(&(fp.len() as u32).to_le_bytes());
                out.extend_from_slice(fp);
            }
            Entry::Set(k, bytes) => {
                out.push(6);
                out.extend_from_slice(k);
                out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                out.extend_from_slice(bytes);
            }
        }
    }
}

/// Reads entries from a payload.
struct Cursor<'a> {
    b: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.b.len() < n {
            return None;
        }
        let (h, t) = self.b.split_at(n);
        self.b = t;
        Some(h)
    }
    fn hash(&mut self) -> Option<Hash> {
        self.take(32)?.try_into().ok()
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn entry(&mut self) -> Option<Entry<'a>> {
        Some(match self.take(1)?[0] {
            1 => Entry::Failed(self.hash()?, self.i64()?),
            2 => {
                let (key, pre, day) = (self.hash()?, self.hash()?, self.u32()?);
                let n = self.u32()? as usize;
                Entry::Record {
                    key,
                    pre,
                    day,
                    bytes: self.take(n)?,
                }
            }
            3 => Entry::Used(self.hash()?, self.u32()?),
            4 => {
                let n = self.u32()? as usize;
                let p = std::str::from_utf8(self.take(n)?).ok()?;
                let m = self.u32()? as usize;
                Entry::File(p, self.take(m)?)
            }
            6 => {
                let k = self.hash()?;
                let n = self.u32()? as usize;
                Entry::Set(k, self.take(n)?)
            }
            _ => return None,
        })
    }
}

impl State {
    /// Applies one entry.
    pub fn apply(&mut self, e: &Entry<'_>) {
        match *e {
            Entry::Failed(k, t) => {
                self.failed.insert(k, t);
            }
            Entry::Record {
                key,
                pre,
                day,
                bytes,
            } => {
                self.records.insert(key, bytes.to_vec());
                let keys = self.variants.entry(pre).or_default();
                keys.retain(|k| *k != key);
                keys.push(key);
                if keys.len() > MAX_VARIANTS {
                    let old = keys.remove(0);
                    self.records.remove(&old);
                    self.used.remove(&old);
                }
                self.used.insert(key, day);
                self.failed.remove(&pre);
            }
            Entry::Used(k, d) => {
                self.used.insert(k, d);
            }
            Entry::File(p, fp) => {
                self.files.insert(p.to_string(), fp.to_vec());
            }
            Entry::Set(k, bytes) => {
                self.sets.entry(k).or_insert_with(|| bytes.to_vec());
            }
        }
    }

    /// Applies a frame's payload; `false` (and nothing applied) if it does not parse.
    fn apply_payload(&mut self, payload: &[u8]) -> bool {
        let mut c = Cursor { b: payload };
        let mut entries = Vec::new();
        while !c.b.is_empty() {
            match c.entry() {
                Some(e) => entries.push(e),
                None => return false,
            }
        }
        for e in &entries {
            self.apply(e);
        }
        true
    }

    /// The whole state as one payload (what compaction writes).
    pub fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.live_bytes() as usize);
        for (k, bytes) in &self.sets {
            Entry::Set(*k, bytes).encode(&mut out);
        }
        for (pre, keys) in &self.variants {
            for k in keys {
                let Some(bytes) = self.records.get(k) else {
                    continue;
                };
                let day = self.used.get(k).copied().unwrap_or(0);
                Entry::Record {
                    key: *k,
                    pre: *pre,
                    day,
                    bytes,
                }
                .encode(&mut out);
            }
        }
        for (k, t) in &self.failed {
            Entry::Failed(*k, *t).encode(&mut out);
        }
        for (p, fp) in &self.files {
            Entry::File(p, fp).encode(&mut out);
        }
        out
    }

    /// About how many bytes [`State::payload`] takes.
    pub fn live_bytes(&self) -> u64 {
        let records: usize = self.records.values().map(|r| 73 + r.len()).sum();
        let sets: usize = self.sets.values().map(|s| 37 + s.len()).sum();
        let files: usize = self.files.iter().map(|(p, f)| 9 + p.len() + f.len()).sum();
        (records + sets + 41 * self.failed.len() + files) as u64
    }
}

/// Wraps a payload as a frame.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 4 + SUM);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&blake3::hash(payload).as_bytes()[..SUM]);
    out
}

/// Why a log's bytes cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// A log of an earlier format (its version byte).
    EarlierVersion(u8),
    /// Not a Spindle result log at all (or one of a later version).
    NotALog,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::EarlierVersion(v) => write!(
                f,
                "a result log of an earlier version of Spindle (format {v})"
            ),
            ReadError::NotALog => {
                f.write_str("not a Spindle result log (or one of a later version)")
            }
        }
    }
}

/// Reads a log's bytes: the state of its whole frames, where they end, and whether a
/// whole frame after that end failed its checksum or did not parse (damage, as
/// opposed to a frame cut short by a crash).
pub fn read(bytes: &[u8]) -> Result<(State, u64), ReadError> {
    read_checked(bytes).map(|(s, end, _)| (s, end))
}

/// [`read`], also saying whether the bytes after the end are damage rather than a
/// torn last frame.
pub fn read_checked(bytes: &[u8]) -> Result<(State, u64, bool), ReadError> {
    let mut state = State::default();
    if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) {
        // Empty, or the process died while writing the magic bytes.
        return Ok((state, 0, false));
    }
    if !bytes.starts_with(MAGIC) {
        if bytes.len() >= MAGIC.len()
            && bytes.starts_with(MAGIC_FAMILY)
            && bytes[MAGIC_FAMILY.len()] < MAGIC[MAGIC_FAMILY.len()]
        {
            return Err(ReadError::EarlierVersion(bytes[MAGIC_FAMILY.len()]));
        }
        return Err(ReadError::NotALog);
    }
    let mut at = MAGIC.len();
    let mut damaged = false;
    while let Some(len) = bytes.get(at..at + 4) {
        let n = u32::from_le_bytes(len.try_into().unwrap_or([0; 4])) as usize;
        let Some(payload) = bytes.get(at + 4..at + 4 + n) else {
            break;
        };
        let Some(sum) = bytes.get(at + 4 + n..at + 4 + n + SUM) else {
            break;
        };
        if blake3::hash(payload).as_bytes()[..SUM] != *sum || !state.apply_payload(payload) {
            // A whole frame that is wrong is damage, unless it is the last thing in the
            // file (a crash can leave a last frame whose bytes never all reached the
            // disk).
            damaged = at + 4 + n + SUM < bytes.len();
            break;
        }
        at += 4 + n + SUM;
    }
    Ok((state, at as u64, damaged))
}

/// Applies the whole frames found after damaged bytes starting at `from` (a frame is
/// recognised by its length and checksum, which bytes that are not a frame match with
/// a chance of 2^-128). Returns how many frames were recovered and how many bytes were
/// not part of any. Records are checked against the file system before any reuse, so a
/// batch lost in the damage only means its calls run again.
fn recover_after(bytes: &[u8], from: usize, state: &mut State) -> (usize, usize) {
    let mut recovered = 0;
    let mut lost = 0;
    let mut at = from;
    while at < bytes.len() {
        let whole = (|| {
            let n = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
            let payload = bytes.get(at + 4..at.checked_add(4 + n)?)?;
            let sum = bytes.get(at + 4 + n..at + 4 + n + SUM)?;
            (blake3::hash(payload).as_bytes()[..SUM] == *sum).then_some((n, payload))
        })();
        match whole {
            Some((n, payload)) if state.apply_payload(payload) => {
                recovered += 1;
                at += 4 + n + SUM;
            }
            _ => {
                lost += 1;
                at += 1;
            }
        }
    }
    (recovered, lost)
}

/// An open log: its file, positioned at the end of its last whole frame.
#[derive(Debug)]
pub struct Log {
    path: PathBuf,
    file: File,
    end: u64,
    /// Set when a failed write could not be undone: nothing more is appended, since
    /// frames after a torn one would be lost anyway.
    broken: bool,
}

fn err(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
}

impl Log {
    /// Opens (or creates) the log at `path` and reads it. The caller holds the store's
    /// lock. A torn last frame is cut off; a log much larger than its live state is
    /// compacted. A log of an earlier format is set aside (renamed to
    /// `results.log.vN`) and a new one started; a log damaged in the middle keeps every
    /// batch that still reads whole (before and after the damage), sets the bytes it
    /// cannot read aside (`results.log.damaged`) and is rewritten. What was set aside
    /// is said in the returned notes, for standard error.
    pub fn open(path: &Path) -> Result<(Log, State, Vec<String>), String> {
        let mut notes = Vec::new();
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| err(path, e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| err(path, e))?;
        let (mut state, mut end, damaged) = match read_checked(&bytes) {
            Ok(x) => x,
            Err(ReadError::EarlierVersion(v)) => {
                let aside = path.with_extension(format!("log.v{v}"));
                std::fs::rename(path, &aside).map_err(|e| err(path, e))?;
                notes.push(format!(
                    "{} was written by an earlier version of Spindle, whose records are not \
                     reused (they name the files a command line named, not those a call was \
                     seen to read); it was set aside as {} and a new one started",
                    path.display(),
                    aside.display()
                ));
                file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(path)
                    .map_err(|e| err(path, e))?;
                bytes.clear();
                (State::default(), 0, false)
            }
            Err(e) => return Err(err(path, e)),
        };
        let mut rewrite = false;
        if damaged {
            let (recovered, lost) = recover_after(&bytes, end as usize, &mut state);
            let aside = path.with_extension("log.damaged");
            let _ = std::fs::write(&aside, &bytes[end as usize..]);
            notes.push(format!(
                "{} is damaged at byte {end}: {lost} bytes could not be read (set aside as {}); \
                 {recovered} later batches were recovered; calls whose records were lost run again",
                path.display(),
                aside.display()
            ));
            rewrite = true;
        }
        if end == 0 {
            file.set_len(0).map_err(|e| err(path, e))?;
            file.write_all_at(MAGIC, 0).map_err(|e| err(path, e))?;
            end = MAGIC.len() as u64;
        } else if end < bytes.len() as u64 {
            file.set_len(end).map_err(|e| err(path, e))?;
        }
        let mut log = Log {
            path: path.to_path_buf(),
            file,
            end,
            broken: false,
        };
        use std::io::Seek;
        log.file
            .seek(std::io::SeekFrom::Start(end))
            .map_err(|e| err(path, e))?;
        if rewrite || (end > COMPACT_MIN && end > 2 * state.live_bytes() + MAGIC.len() as u64) {
            log.compact(&state)?;
        }
        Ok((log, state, notes))
    }

    /// Appends one frame (`durable`: and waits until it is on disk). A failed write is
    /// undone, so that the log still ends with a whole frame.
    pub fn append(&mut self, payload: &[u8], durable: bool) -> Result<(), String> {
        if self.broken {
            return Err(err(&self.path, "an earlier write failed"));
        }
        let f = frame(payload);
        if let Err(e) = self.file.write_all(&f) {
            use std::io::Seek;
            let undone = self.file.set_len(self.end).is_ok()
                && self.file.seek(std::io::SeekFrom::Start(self.end)).is_ok();
            self.broken = !undone;
            return Err(err(&self.path, e));
        }
        self.end += f.len() as u64;
        if durable {
            self.file.sync_data().map_err(|e| err(&self.path, e))?;
        }
        Ok(())
    }

    /// Waits until every frame appended is on disk.
    pub fn sync(&mut self) -> Result<(), String> {
        self.file.sync_data().map_err(|e| err(&self.path, e))
    }

    /// Rewrites the log as one frame holding `state`: a temporary file, synced, renamed
    /// over the log, and the directory synced.
    pub fn compact(&mut self, state: &State) -> Result<(), String> {
        let tmp = self.path.with_extension("log.tmp");
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&frame(&state.payload()));
        let write = || -> std::io::Result<File> {
            let mut f = File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)?;
            if let Some(dir) = self.path.parent() {
                File::open(dir)?.sync_all()?;
            }
            Ok(f)
        };
        match write() {
            Ok(f) => {
                self.file = f;
                self.end = bytes.len() as u64;
                self.broken = false;
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(err(&self.path, e))
            }
        }
    }

    /// The file's size in bytes.
    pub fn len(&self) -> u64 {
        self.end
    }

    /// Whether the log holds no frame.
    pub fn is_empty(&self) -> bool {
        self.end <= MAGIC.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(state: &mut State) -> Vec<u8> {
        let mut p = Vec::new();
        let es = [
            Entry::Failed([1; 32], 5),
            Entry::Record {
                key: [1; 32],
                pre: [2; 32],
                day: 7,
                bytes: b"rec",
            },
            Entry::Used([1; 32], 9),
            Entry::File("/a b", b"fp"),
            Entry::Set([4; 32], b"set"),
        ];
        for e in &es {
            e.encode(&mut p);
            state.apply(e);
        }
        p
    }

    #[test]
    fn frames_read_back_to_the_state_they_were_made_from() {
        let mut want = State::default();
        let p = sample(&mut want);
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&frame(&p));
        let (got, end) = read(&bytes).unwrap();
        assert_eq!(got, want);
        assert_eq!(end, bytes.len() as u64);
        assert!(
            got.failed.contains_key(&[1; 32]),
            "a failure mark is by pre-key: the record of pre-key [2] leaves it"
        );
        assert_eq!(got.variants.get(&[2; 32]), Some(&vec![[1; 32]]));
        assert_eq!(got.sets.get(&[4; 32]), Some(&b"set".to_vec()));
        // Compaction's single payload reads back to the same state.
        let mut again = MAGIC.to_vec();
        again.extend_from_slice(&frame(&got.payload()));
        assert_eq!(read(&again).unwrap().0, want);
    }

    #[test]
    fn a_torn_or_corrupt_last_frame_is_dropped_whole() {
        let mut first = State::default();
        let p = sample(&mut first);
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&frame(&p));
        let whole = bytes.len();
        let mut q = Vec::new();
        Entry::Used([9; 32], 1).encode(&mut q);
        bytes.extend_from_slice(&frame(&q));
        // Every cut inside the second frame leaves exactly the first.
        for cut in whole..bytes.len() {
            let (s, end) = read(&bytes[..cut]).unwrap();
            assert_eq!((s, end), (first.clone(), whole as u64), "cut at {cut}");
        }
        // A flipped bit anywhere in the second frame drops it.
        for i in whole..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert_eq!(read(&b).unwrap().0, first, "flip at {i}");
        }
        assert!(read(b"not a log").is_err());
    }

    use proptest::prelude::*;

    /// An entry from a few numbers (keys drawn from a small set, so that entries
    /// overwrite each other).
    fn entry_bytes(kind: u8, k: u8, n: u32, out: &mut Vec<u8>) {
        let key = [k % 4; 32];
        let body = vec![k; (n % 50) as usize];
        let path = format!("/f{}", k % 3);
        match kind % 5 {
            0 => Entry::Failed(key, n as i64),
            1 => Entry::Record {
                key,
                pre: [k % 2; 32],
                day: n,
                bytes: &body,
            },
            2 => Entry::Used(key, n),
            3 => Entry::File(&path, &body),
            _ => Entry::Set(key, &body),
        }
        .encode(out);
    }

    proptest! {
        /// Whatever byte a crash cuts the file at, reading it gives exactly the batches
        /// written whole before that byte: never part of a batch, never one less.
        #[test]
        fn a_cut_log_reads_back_to_the_batches_before_the_cut(
            batches in proptest::collection::vec(
                proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u32>()), 0..6),
                1..6,
            ),
            cut in any::<proptest::sample::Index>(),
        ) {
            let mut bytes = MAGIC.to_vec();
            // The state after each whole batch, and where that batch ends.
            let mut states = vec![(State::default(), bytes.len())];
            for batch in &batches {
                let mut payload = Vec::new();
                for &(kind, k, n) in batch {
                    entry_bytes(kind, k, n, &mut payload);
                }
                let mut state = states.last().unwrap().0.clone();
                prop_assert!(state.apply_payload(&payload));
                bytes.extend_from_slice(&frame(&payload));
                states.push((state, bytes.len()));
            }
            let at = cut.index(bytes.len() + 1);
            let (got, end) = read(&bytes[..at]).unwrap();
            let (want, want_end) = states
                .iter()
                .rev()
                .find(|(_, e)| *e <= at.max(MAGIC.len()))
                .unwrap();
            if at >= MAGIC.len() {
                prop_assert_eq!(end as usize, *want_end);
            }
            prop_assert_eq!(&got, want);
        }
    }

    #[test]
    fn opening_cuts_a_torn_tail_and_appends_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.log");
        let (mut log, s, _) = Log::open(&path).unwrap();
        assert_eq!(s, State::default());
        let mut p = Vec::new();
        Entry::Used([1; 32], 1).encode(&mut p);
        log.append(&p, true).unwrap();
        drop(log);
        let good = std::fs::metadata(&path).unwrap().len();
        // A torn frame: a length and half a payload.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[200, 0, 0, 0, 1, 2, 3]).unwrap();
        drop(f);
        let (mut log, s, _) = Log::open(&path).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), good);
        assert_eq!(s.used.get(&[1; 32]), Some(&1));
        let mut q = Vec::new();
        Entry::Used([2; 32], 2).encode(&mut q);
        log.append(&q, false).unwrap();
        drop(log);
        let (_, s, _) = Log::open(&path).unwrap();
        assert_eq!(s.used.len(), 2);
    }

    #[test]
    fn a_log_of_mostly_dead_entries_is_compacted_on_opening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.log");
        let (mut log, _, _) = Log::open(&path).unwrap();
        let big = vec![7u8; 4096];
        // The same record written 600 times: 2.4 MB, of which 4 kB live.
        for day in 0..600 {
            let mut p = Vec::new();
            Entry::Record {
                key: [1; 32],
                pre: [1; 32],
                day,
                bytes: &big,
            }
            .encode(&mut p);
            log.append(&p, false).unwrap();
        }
        drop(log);
        assert!(std::fs::metadata(&path).unwrap().len() > 2 << 20);
        let (_, s, _) = Log::open(&path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() < 8192);
        assert_eq!(s.used.get(&[1; 32]), Some(&599));
        assert_eq!(s.records.get(&[1; 32]), Some(&big));
        assert!(!path.with_extension("log.tmp").exists());
    }
}
