//! Whether a record still holds (issue 24: never a wrong reuse): every input its call
//! was seen to use is as it was (a file's content, a directory's names, a path there
//! or not there, a program's content), and every output it left is still there as it
//! left it (a file's content, a folder, a symbolic link's target; a path it removed
//! still absent). The first thing that differs is the reason the call runs again
//! ([`Why`]).
//!
//! Inputs shared by many records ([`InputSet`]) are checked once per run and
//! remembered until any call of the run has run (a call that runs may change any
//! file; reusing one changes nothing), so that a `--resume` of 100,000 calls that all
//! use the same program and libraries checks those files once.

use super::Why;
use super::files::{Fingerprint, Fingerprints, Stat, hash_file};
use super::key::Hash;
use super::record::{EntryKind, FileEntry, InputSet, Record};
use rustc_hash::FxHashMap as HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Shared input sets found to hold in this run, with the epoch they were checked in;
/// and the outputs calls of this run write again.
#[derive(Debug, Default)]
pub struct SetCache {
    held: Mutex<HashMap<Hash, u64>>,
    epoch: AtomicU64,
    /// Paths that were gone when this run began and that a call of this run makes
    /// again (a stale record's output that is missing, a file a new call creates): a
    /// record whose output there only has to exist (a file it appended to) does not
    /// hold, since what it wrote went with the file, whichever call is looked at first.
    rewritten: Mutex<rustc_hash::FxHashSet<String>>,
}

impl SetCache {
    /// A call ran: what was checked before may no longer hold.
    pub fn invalidate(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// A call of this run makes `path`, which was not there.
    pub fn note_rewritten(&self, path: &str) {
        if let Ok(mut s) = self.rewritten.lock() {
            s.insert(path.to_string());
        }
    }

    fn rewritten(&self, path: &str) -> bool {
        self.rewritten
            .lock()
            .map(|s| s.contains(path))
            .unwrap_or(true)
    }

    fn holds(&self, key: &Hash) -> bool {
        let now = self.epoch.load(Ordering::SeqCst);
        self.held
            .lock()
            .map(|m| m.get(key) == Some(&now))
            .unwrap_or(false)
    }

    fn note(&self, key: Hash, epoch: u64) {
        if let Ok(mut m) = self.held.lock() {
            m.insert(key, epoch);
        }
    }
}

/// What checking a record needs.
pub struct Checker<'a> {
    /// Fingerprints taken this run (quick checks).
    pub fps: &'a Fingerprints,
    /// Fingerprints from earlier runs.
    pub lookup: &'a dyn Fn(&Path) -> Option<Fingerprint>,
    /// The shared input sets, by key.
    pub sets: &'a dyn Fn(&Hash) -> Option<InputSet>,
    /// Sets already found to hold.
    pub cache: &'a SetCache,
}

impl Checker<'_> {
    /// Whether the record holds: `Ok`, or the first thing that differs.
    pub fn check(&self, rec: &Record) -> Result<(), Why> {
        for set_key in &rec.input_sets {
            let Ok(key) = <Hash>::try_from(set_key.as_slice()) else {
                return Err(Why::Unreadable);
            };
            if self.cache.holds(&key) {
                continue;
            }
            let epoch = self.cache.epoch.load(Ordering::SeqCst);
            let Some(set) = (self.sets)(&key) else {
                return Err(Why::Unreadable);
            };
            self.inputs(&set.inputs)?;
            self.cache.note(key, epoch);
        }
        self.inputs(&rec.inputs)?;
        self.outputs(&rec.outputs)
    }

    fn inputs(&self, entries: &[FileEntry]) -> Result<(), Why> {
        for e in entries {
            self.input(e)?;
        }
        Ok(())
    }

    fn input(&self, e: &FileEntry) -> Result<(), Why> {
        let path = Path::new(&e.path);
        let changed = || {
            if e.program {
                Why::ProgramChanged(shown(&e.path))
            } else {
                Why::InputChanged(shown(&e.path))
            }
        };
        match EntryKind::try_from(e.kind).map_err(|_| Why::Unreadable)? {
            EntryKind::Content => match self.fps.get(path, self.lookup) {
                Some(fp) if fp.hash.as_slice() == e.hash.as_slice() => Ok(()),
                _ => Err(changed()),
            },
            EntryKind::Listing => match self.fps.listing(path) {
                Some(fp) if fp.hash.as_slice() == e.hash.as_slice() => Ok(()),
                _ => Err(Why::InputChanged(format!("{}/", shown(&e.path)))),
            },
            EntryKind::Exists => match std::fs::metadata(path) {
                Ok(m) if m.is_dir() == e.dir => Ok(()),
                _ => Err(changed()),
            },
            EntryKind::Missing => match std::fs::symlink_metadata(path) {
                Err(_) => Ok(()),
                Ok(_) => Err(changed()),
            },
            EntryKind::Dir | EntryKind::Symlink => Err(Why::Unreadable),
        }
    }

    fn outputs(&self, entries: &[FileEntry]) -> Result<(), Why> {
        for o in entries {
            if EntryKind::try_from(o.kind) == Ok(EntryKind::Exists) && self.cache.rewritten(&o.path)
            {
                return Err(Why::OutputMissing(shown(&o.path)));
            }
            output(o)?;
        }
        Ok(())
    }
}

/// Whether one recorded output is still as the call left it.
fn output(o: &FileEntry) -> Result<(), Why> {
    let path = Path::new(&o.path);
    let missing = || Why::OutputMissing(shown(&o.path));
    let changed = || Why::OutputChanged(shown(&o.path));
    match EntryKind::try_from(o.kind).map_err(|_| Why::Unreadable)? {
        EntryKind::Content => {
            let Some(stat) = Stat::of(path) else {
                return Err(missing());
            };
            let recorded = Fingerprint {
                hash: o.hash.as_slice().try_into().unwrap_or([0; 32]),
                stat: Stat {
                    size: o.size,
                    mtime_ns: o.mtime_ns,
                    ctime_ns: o.ctime_ns,
                    ino: o.ino,
                },
                hashed_at_ns: o.hashed_at_ns,
            };
            if recorded.stat.size != stat.size {
                return Err(changed());
            }
            if recorded.still_holds(&stat) {
                return Ok(());
            }
            match hash_file(path) {
                Ok(h) if h.as_slice() == o.hash.as_slice() => Ok(()),
                Ok(_) => Err(changed()),
                Err(_) => Err(missing()),
            }
        }
        EntryKind::Dir => match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(changed()),
            Err(_) => Err(missing()),
        },
        EntryKind::Symlink => match std::fs::read_link(path) {
            Ok(t)
                if blake3::hash(t.as_os_str().as_encoded_bytes()).as_bytes()[..] == o.hash[..] =>
            {
                Ok(())
            }
            Ok(_) => Err(changed()),
            Err(_) => Err(missing()),
        },
        // A path the call removed: it must still be gone.
        EntryKind::Missing => match std::fs::symlink_metadata(path) {
            Err(_) => Ok(()),
            Ok(_) => Err(changed()),
        },
        EntryKind::Exists => match std::fs::metadata(path) {
            Ok(m) if m.is_dir() == o.dir => Ok(()),
            _ => Err(missing()),
        },
        EntryKind::Listing => Err(Why::Unreadable),
    }
}

/// A path as users see it: relative to the working directory when it is below it.
pub fn shown(path: &str) -> String {
    let Ok(cwd) = std::env::current_dir() else {
        return path.to_string();
    };
    match Path::new(path).strip_prefix(&cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::external::store::file_entry;

    fn checker_check(rec: &Record) -> Result<(), Why> {
        let fps = Fingerprints::default();
        let cache = SetCache::default();
        let none = |_: &Path| None;
        let no_sets = |_: &Hash| None;
        Checker {
            fps: &fps,
            lookup: &none,
            sets: &no_sets,
            cache: &cache,
        }
        .check(rec)
    }

    #[test]
    fn every_kind_of_input_and_output_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let file = d.join("in.txt");
        std::fs::write(&file, "one").unwrap();
        std::fs::create_dir(d.join("data")).unwrap();
        let fps = Fingerprints::default();
        let entry = |path: &Path, kind: EntryKind, hash: Vec<u8>| FileEntry {
            path: path.display().to_string(),
            hash,
            kind: kind as i32,
            ..FileEntry::default()
        };
        let mut rec = Record::default();
        rec.inputs.push(entry(
            &file,
            EntryKind::Content,
            blake3::hash(b"one").as_bytes().to_vec(),
        ));
        rec.inputs.push(entry(
            &d.join("data"),
            EntryKind::Listing,
            fps.listing(&d.join("data")).unwrap().hash.to_vec(),
        ));
        rec.inputs
            .push(entry(&d.join("flag"), EntryKind::Missing, Vec::new()));
        let out = d.join("out.txt");
        std::fs::write(&out, "result").unwrap();
        let fp = fps.get(&out, &|_| None).unwrap();
        rec.outputs.push(file_entry(out.to_str().unwrap(), &fp));
        rec.outputs
            .push(entry(&d.join("data"), EntryKind::Dir, Vec::new()));
        rec.outputs
            .push(entry(&d.join("gone"), EntryKind::Missing, Vec::new()));
        assert_eq!(checker_check(&rec), Ok(()));
        // Each change is seen, with its reason.
        std::fs::write(d.join("data/new.csv"), "").unwrap();
        assert!(matches!(checker_check(&rec), Err(Why::InputChanged(p)) if p.ends_with("data/")));
        std::fs::remove_file(d.join("data/new.csv")).unwrap();
        std::fs::write(d.join("flag"), "").unwrap();
        assert!(matches!(checker_check(&rec), Err(Why::InputChanged(p)) if p.ends_with("flag")));
        std::fs::remove_file(d.join("flag")).unwrap();
        std::fs::write(&file, "two").unwrap();
        assert!(matches!(checker_check(&rec), Err(Why::InputChanged(p)) if p.ends_with("in.txt")));
        std::fs::write(&file, "one").unwrap();
        assert_eq!(checker_check(&rec), Ok(()));
        std::fs::write(d.join("gone"), "").unwrap();
        assert!(matches!(checker_check(&rec), Err(Why::OutputChanged(p)) if p.ends_with("gone")));
        std::fs::remove_file(d.join("gone")).unwrap();
        std::fs::write(&out, "RESULT").unwrap();
        assert!(matches!(checker_check(&rec), Err(Why::OutputChanged(_))));
        std::fs::remove_file(&out).unwrap();
        assert!(matches!(checker_check(&rec), Err(Why::OutputMissing(_))));
    }

    #[test]
    fn a_shared_set_is_checked_once_until_a_call_runs() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("lib.so");
        std::fs::write(&lib, "v1").unwrap();
        let set = InputSet {
            inputs: vec![FileEntry {
                path: lib.display().to_string(),
                hash: blake3::hash(b"v1").as_bytes().to_vec(),
                program: true,
                ..FileEntry::default()
            }],
        };
        let key = [7u8; 32];
        let rec = Record {
            input_sets: vec![key.to_vec()],
            ..Record::default()
        };
        let fps = Fingerprints::default();
        let cache = SetCache::default();
        let none = |_: &Path| None;
        let sets = |k: &Hash| (*k == key).then(|| set.clone());
        let c = Checker {
            fps: &fps,
            lookup: &none,
            sets: &sets,
            cache: &cache,
        };
        assert_eq!(c.check(&rec), Ok(()));
        std::fs::write(&lib, "v2").unwrap();
        // Remembered within the epoch...
        assert_eq!(c.check(&rec), Ok(()));
        // ... and checked again once a call ran.
        cache.invalidate();
        assert!(matches!(c.check(&rec), Err(Why::ProgramChanged(_))));
        let missing = Record {
            input_sets: vec![[9u8; 32].to_vec()],
            ..Record::default()
        };
        assert_eq!(c.check(&missing), Err(Why::Unreadable));
    }
}
