//! Records of finished calls ([`Record`]), made from what each call was seen to do:
//!
//! - a traced process ([`from_observed`]): its inputs are what its tree read, listed,
//!   looked up or executed and did not itself change before (a path it read and then
//!   changed is an output: it is checked as it left it), with each file's content
//!   hash, each directory's listing hash, each lookup's answer; its outputs are what
//!   its tree created, changed, renamed or removed, as they are when it has ended (a
//!   file it created and removed again was a temporary file: not an output; a file
//!   it only appended to, a log other calls may append to as well, is checked for
//!   being there, not for its content). The
//!   inputs outside the working directory (the program, its libraries, locale files,
//!   the `PATH` it searched) go into a shared [`InputSet`], stored once for every
//!   record that has the same;
//! - a process that could not be traced but declared all its outputs with `writing`
//!   ([`from_declarations`]): the inputs its command line names, guessed;
//! - `writeFile` ([`from_written_file`]): its file as output;
//! - `delay` ([`plain`]): nothing but the reply.
//!
//! `reading` declarations add inputs and `writing` declarations outputs in every case.

use super::files::{Fingerprint, Fingerprints};
use super::key::{self, Hash};
use super::record::{EntryKind, FileEntry, InputSet, RECORD_VERSION, Record, StoredReply};
use super::{file_entry, files::now_ns};
use crate::external::fstrace::{Input, Observed};
use crate::external::request::{Reply, Request};
use prost::Message;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A record ready to be written: its key, and the shared input sets it names that the
/// store may not hold yet.
#[derive(Debug, Clone)]
pub struct Made {
    /// The record's key ([`key::record_key`]).
    pub key: Hash,
    /// The record.
    pub record: Record,
    /// Input sets to store with it (key, encoded set).
    pub sets: Vec<(Hash, Vec<u8>)>,
}

/// What every record says of its call.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The external's name.
    pub external: &'a str,
    /// Its reply.
    pub reply: &'a Reply,
    /// How long it ran.
    pub took: Duration,
    /// Its place, as shown.
    pub place: &'a str,
    /// The call, as shown.
    pub shown: &'a str,
}

fn record(f: &Facts<'_>) -> Record {
    Record {
        version: RECORD_VERSION,
        external: f.external.to_string(),
        reply: Some(StoredReply::from_reply(f.reply)),
        created_ns: now_ns(),
        duration_ms: f.took.as_millis() as u64,
        place: f.place.to_string(),
        shown: f.shown.to_string(),
        ..Record::default()
    }
}

fn finish(pre: &Hash, rec: Record, sets: Vec<(Hash, Vec<u8>)>) -> Made {
    Made {
        key: key::record_key(pre, &rec),
        record: rec,
        sets,
    }
}

/// A record with nothing but the reply (`delay`).
pub fn plain(pre: &Hash, f: &Facts<'_>) -> Made {
    finish(pre, record(f), Vec::new())
}

/// The record of a `writeFile`: the file it wrote is its output.
pub fn from_written_file(pre: &Hash, f: &Facts<'_>, path: &str, fps: &Fingerprints) -> Made {
    let mut rec = record(f);
    if let Some(fp) = fps.get(Path::new(path), &|_| None) {
        let mut e = file_entry(&abs(path), &fp);
        e.created = true;
        rec.outputs.push(e);
    }
    finish(pre, rec, Vec::new())
}

/// A path made absolute against the working directory.
fn abs(p: &str) -> String {
    super::files::absolute(Path::new(p)).display().to_string()
}

/// The entry of an input path as it is now, used as `how`; `Err` when it is no longer
/// what the call saw (it changed while the call ran: nothing sure can be recorded).
fn input_entry(
    path: &str,
    how: Input,
    fps: &Fingerprints,
    lookup: &dyn Fn(&Path) -> Option<Fingerprint>,
) -> Result<FileEntry, String> {
    let p = Path::new(path);
    let changed = || format!("{path} changed while the call ran");
    let entry = |kind: EntryKind, hash: Vec<u8>| FileEntry {
        path: path.to_string(),
        hash,
        kind: kind as i32,
        program: how == Input::Exec,
        ..FileEntry::default()
    };
    Ok(match how {
        Input::Read | Input::Exec => {
            let fp = fps.get(p, lookup).ok_or_else(changed)?;
            entry(EntryKind::Content, fp.hash.to_vec())
        }
        Input::Listed => {
            let fp = fps.listing(p).ok_or_else(changed)?;
            entry(EntryKind::Listing, fp.hash.to_vec())
        }
        Input::Exists => {
            let m = std::fs::metadata(p).map_err(|_| changed())?;
            FileEntry {
                dir: m.is_dir(),
                ..entry(EntryKind::Exists, Vec::new())
            }
        }
        Input::Missing => entry(EntryKind::Missing, Vec::new()),
    })
}

/// The entry of an output path as the call left it; `None` for a file it created and
/// removed again.
fn output_entry(path: &str, existed: bool, fps: &Fingerprints) -> Option<FileEntry> {
    let p = Path::new(path);
    let entry = |kind: EntryKind, hash: Vec<u8>| FileEntry {
        path: path.to_string(),
        hash,
        kind: kind as i32,
        created: !existed,
        ..FileEntry::default()
    };
    let Ok(m) = std::fs::symlink_metadata(p) else {
        // Removed: it must stay removed. Never there: a temporary file.
        return existed.then(|| entry(EntryKind::Missing, Vec::new()));
    };
    if m.file_type().is_symlink() {
        let target = std::fs::read_link(p).ok()?;
        let hash = blake3::hash(target.as_os_str().as_encoded_bytes());
        return Some(entry(EntryKind::Symlink, hash.as_bytes().to_vec()));
    }
    if m.is_dir() {
        return Some(entry(EntryKind::Dir, Vec::new()));
    }
    if m.is_file() {
        let fp = fps.get(p, &|_| None)?;
        let mut e = file_entry(path, &fp);
        e.created = !existed;
        return Some(e);
    }
    Some(FileEntry {
        dir: false,
        ..entry(EntryKind::Exists, Vec::new())
    })
}

/// The entries of `reading` declarations: a file's content, a directory's listing,
/// or the path's absence.
fn declared_inputs(
    reading: &[String],
    fps: &Fingerprints,
    lookup: &dyn Fn(&Path) -> Option<Fingerprint>,
) -> Vec<FileEntry> {
    reading
        .iter()
        .map(|r| {
            let path = abs(r);
            let p = Path::new(&path);
            let how = if p.is_dir() {
                Input::Listed
            } else if p.exists() {
                Input::Read
            } else {
                Input::Missing
            };
            input_entry(&path, how, fps, lookup).unwrap_or(FileEntry {
                path,
                kind: EntryKind::Missing as i32,
                ..FileEntry::default()
            })
        })
        .collect()
}

/// The record of a traced process from its tracer's report; `Err` says why none can be
/// made (the tracer could not see everything, or an input changed while it ran).
#[allow(clippy::too_many_arguments)]
pub fn from_observed(
    pre: &Hash,
    f: &Facts<'_>,
    observed: &Observed,
    reading: &[String],
    writing: &[String],
    cwd: &Path,
    fps: &Fingerprints,
    lookup: &dyn Fn(&Path) -> Option<Fingerprint>,
    has_set: &dyn Fn(&Hash) -> bool,
) -> Result<Made, String> {
    if let Some(why) = &observed.untraceable {
        return Err(format!("not recorded: {why}"));
    }
    let mut own = Vec::new();
    let mut shared = Vec::new();
    for (path, uses) in &observed.inputs {
        // Read, then changed: an output, checked as the call left it.
        if observed.writes.contains_key(path) {
            continue;
        }
        for how in uses {
            // A script is executed and then read by its interpreter: one program.
            if *how == Input::Read && uses.contains(&Input::Exec) {
                continue;
            }
            let e =
                input_entry(path, *how, fps, lookup).map_err(|e| format!("not recorded: {e}"))?;
            if Path::new(path).starts_with(cwd) {
                own.push(e);
            } else {
                shared.push(e);
            }
        }
    }
    own.extend(declared_inputs(reading, fps, lookup));
    let mut rec = record(f);
    for (path, existed) in &observed.writes {
        if observed.appended.contains(path) {
            // Only appended to (a log other calls may append to too): what the call
            // left there is not all there is, so only that it is there is checked.
            if std::fs::symlink_metadata(path).is_ok() {
                rec.outputs.push(FileEntry {
                    path: path.clone(),
                    kind: EntryKind::Exists as i32,
                    created: !existed,
                    ..FileEntry::default()
                });
            }
            continue;
        }
        rec.outputs.extend(output_entry(path, *existed, fps));
    }
    for w in writing {
        let path = abs(w);
        if !rec.outputs.iter().any(|o| o.path == path) {
            rec.outputs.extend(output_entry(&path, true, fps));
        }
    }
    rec.inputs = own;
    let mut sets = Vec::new();
    if !shared.is_empty() {
        let bytes = InputSet { inputs: shared }.encode_to_vec();
        let k = key::set_key(&bytes);
        rec.input_sets.push(k.to_vec());
        if !has_set(&k) {
            sets.push((k, bytes));
        }
    }
    Ok(finish(pre, rec, sets))
}

/// The record of a process that could not be traced but declared its outputs with
/// `writing`: the inputs its command line names (guessed) and the `reading` files;
/// the declared outputs.
pub fn from_declarations(
    pre: &Hash,
    f: &Facts<'_>,
    request: &Request,
    reading: &[String],
    writing: &[String],
    fps: &Fingerprints,
    lookup: &dyn Fn(&Path) -> Option<Fingerprint>,
) -> Made {
    let mut rec = record(f);
    rec.inputs = key::guessed_inputs(request, reading, fps, lookup);
    for w in writing {
        rec.outputs.extend(output_entry(&abs(w), true, fps));
    }
    finish(pre, rec, Vec::new())
}

/// The files a traced call created (they did not exist before it) and that are there
/// now: what is moved aside when it fails, so that no broken file looks finished.
/// Files it changed but did not create are left alone: they were there before.
pub fn created_files(observed: &Observed) -> Vec<PathBuf> {
    observed
        .writes
        .iter()
        .filter(|(_, existed)| !**existed)
        .map(|(p, _)| PathBuf::from(p))
        .filter(|p| {
            std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file() || m.file_type().is_symlink())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traced_call_records_what_it_read_and_left() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let w = |n: &str, t: &str| {
            std::fs::write(d.join(n), t).unwrap();
            d.join(n).display().to_string()
        };
        let input = w("in.txt", "data");
        let edited = w("edited.txt", "after");
        let out = w("out.txt", "result");
        let removed = d.join("removed.txt").display().to_string();
        let temp = d.join("temp.txt").display().to_string();
        let lib = std::env::current_exe().unwrap().display().to_string();
        let mut o = Observed::default();
        o.add_input(&input, Input::Read);
        o.add_input(&edited, Input::Read);
        o.add_input(&lib, Input::Exec);
        o.add_input(&d.join("flag").display().to_string(), Input::Missing);
        o.add_write(&edited, true);
        o.add_write(&out, false);
        o.add_write(&removed, true);
        o.add_write(&temp, false);
        let reply = Reply::Text("ok".into());
        let facts = Facts {
            external: "run",
            reply: &reply,
            took: Duration::from_millis(5),
            place: "wf.sp:1:1",
            shown: "tool",
        };
        let fps = Fingerprints::default();
        let none = |_: &Path| None;
        let no = |_: &Hash| false;
        let m = from_observed(&[1; 32], &facts, &o, &[], &[], d, &fps, &none, &no).unwrap();
        let paths = |v: &[FileEntry]| v.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
        assert_eq!(
            paths(&m.record.inputs),
            [d.join("flag").display().to_string(), input.clone()],
            "own inputs; the edited file is an output only"
        );
        assert_eq!(m.record.input_sets.len(), 1, "the program is shared");
        assert_eq!(m.sets.len(), 1);
        let set = InputSet::decode(m.sets[0].1.as_slice()).unwrap();
        assert_eq!(paths(&set.inputs), [lib]);
        assert!(set.inputs[0].program);
        assert_eq!(
            paths(&m.record.outputs),
            [edited, out.clone(), removed],
            "the temporary file is not an output"
        );
        let kinds: Vec<i32> = m.record.outputs.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EntryKind::Content as i32,
                EntryKind::Content as i32,
                EntryKind::Missing as i32
            ]
        );
        assert_eq!(created_files(&o), [PathBuf::from(out)]);
        // The same facts give the same key; a stored set is not stored again.
        let yes = |_: &Hash| true;
        let again = from_observed(&[1; 32], &facts, &o, &[], &[], d, &fps, &none, &yes).unwrap();
        assert_eq!(again.key, m.key);
        assert!(again.sets.is_empty());
        // What the tracer could not see is never recorded.
        o.mark_untraceable("io_uring");
        let e = from_observed(&[1; 32], &facts, &o, &[], &[], d, &fps, &none, &no).unwrap_err();
        assert!(e.contains("io_uring"));
    }
}
