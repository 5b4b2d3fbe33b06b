//! The record of a batch run in the result store: `batches/NAME.json` in the store
//! directory, one per program name, written whole or not at all (a temporary file,
//! synced, renamed over the old one). It says which run it is (the session, the
//! program's hash and arguments, the round), whether a batch is being submitted or
//! waited for, and the calls submitted, so that any later process given the store
//! directory (on this machine or another) can collect the batch and go on.
//!
//! Submitting is idempotent: the record says `submitting` with the round's tag before
//! anything is sent, and the tag goes into the batch's metadata; a run that finds a
//! record still `submitting` (the process died before the batch id was written) looks
//! for the tagged batch on the server before submitting again.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The version of the record's format.
pub const VERSION: u32 = 1;

/// The folder of batch records inside the store directory.
pub const DIR: &str = "batches";

/// Where a batch run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The round's batches are being submitted: their ids may not be known.
    Submitting,
    /// The round's batches were submitted and are waited for.
    Submitted,
    /// The last round's batches were collected; the run goes on from the store.
    Collected,
}

/// A batch of a round: one per endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submitted {
    /// The endpoint (`/v1/chat/completions`).
    pub endpoint: String,
    /// The batch id (empty while submitting).
    pub id: String,
    /// Its calls' `custom_id`s, in the file's order.
    pub custom_ids: Vec<String>,
}

/// A call of the round, as the record keeps it (to record its reply once it comes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallNote {
    /// The `custom_id` (the record key in hex).
    pub custom_id: String,
    /// The external (`llm`, `llmChat`, `embed`, `llmStream`).
    pub external: String,
    /// Its place, as shown.
    pub place: String,
    /// The call, as shown.
    pub shown: String,
    /// The model.
    pub model: String,
    /// The batch endpoint.
    pub endpoint: String,
    /// Tokens estimated before it was sent.
    pub estimated_tokens: u64,
}

/// A batch run, as the store keeps it between rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchRun {
    /// [`VERSION`].
    pub version: u32,
    /// The program's file name.
    pub program: String,
    /// The checked program's hash (hex).
    pub program_hash: String,
    /// The program's arguments.
    pub args: Vec<String>,
    /// The run's session (hex): its journal's key.
    pub session: String,
    /// The rounds submitted so far.
    pub round: u32,
    /// Where the run is.
    pub stage: Stage,
    /// The round's tag (hex): blake3 of the program's hash and the sorted custom ids.
    pub tag: String,
    /// The server's base URL.
    pub base_url: String,
    /// When the round was submitted (seconds since 1970).
    pub submitted_at: u64,
    /// The round's batches.
    pub batches: Vec<Submitted>,
    /// The round's calls.
    pub calls: Vec<CallNote>,
    /// Calls answered with a failure, by custom id: how many times.
    #[serde(default)]
    pub failures: BTreeMap<String, u32>,
    /// Calls submitted over every round so far.
    #[serde(default)]
    pub submitted_calls: u64,
    /// Tokens in and out of the replies collected so far.
    #[serde(default)]
    pub tokens: (u64, u64),
    /// Tokens in and out by model, for the cost.
    #[serde(default)]
    pub tokens_by_model: BTreeMap<String, (u64, u64)>,
    /// Tokens in and out by model of the calls earlier rounds made live.
    #[serde(default)]
    pub live_tokens_by_model: BTreeMap<String, (u64, u64)>,
}

/// The record's file for the program `name` in store `dir`.
pub fn path(dir: &Path, name: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(DIR).join(format!("{safe}.json"))
}

/// The record of the program `name`, if the store has one.
pub fn load(dir: &Path, name: &str) -> Result<Option<BatchRun>, String> {
    let p = path(dir, name);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", p.display())),
    };
    let run: BatchRun = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a batch record ({e})", p.display()))?;
    if run.version != VERSION {
        return Err(format!(
            "{}: a batch record of another version ({}) of Spindle",
            p.display(),
            run.version
        ));
    }
    Ok(Some(run))
}

/// Writes the record whole: a synced temporary file renamed over the old one.
pub fn save(dir: &Path, run: &BatchRun) -> Result<(), String> {
    let p = path(dir, &run.program);
    let folder = dir.join(DIR);
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let tmp = p.with_extension(format!("json.{}.tmp", std::process::id()));
    let text = serde_json::to_string_pretty(run).map_err(|e| e.to_string())?;
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.write_all(b"\n")?;
        f.sync_all()?;
        std::fs::rename(&tmp, &p)?;
        std::fs::File::open(&folder)?.sync_all()
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", p.display())
    })
}

/// Removes the record (the run is over).
pub fn remove(dir: &Path, name: &str) -> Result<(), String> {
    match std::fs::remove_file(path(dir, name)) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// The tag of a round: blake3 of the program's hash and the sorted custom ids.
pub fn tag(program_hash: &str, custom_ids: &[String]) -> String {
    let mut ids: Vec<&String> = custom_ids.iter().collect();
    ids.sort();
    ids.dedup();
    let mut h = blake3::Hasher::new();
    h.update(b"spindle-batch-round");
    h.update(program_hash.as_bytes());
    for id in ids {
        h.update(&(id.len() as u64).to_le_bytes());
        h.update(id.as_bytes());
    }
    h.finalize().to_hex().to_string()
}

/// Seconds since 1970.
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> BatchRun {
        BatchRun {
            version: VERSION,
            program: "tot.sp".into(),
            program_hash: "ab".repeat(32),
            args: vec!["x".into()],
            session: "cd".repeat(32),
            round: 2,
            stage: Stage::Submitted,
            tag: tag("h", &["b".into(), "a".into()]),
            base_url: "http://127.0.0.1:1/v1".into(),
            submitted_at: 5,
            batches: vec![Submitted {
                endpoint: "/v1/chat/completions".into(),
                id: "batch_1".into(),
                custom_ids: vec!["a".into(), "b".into()],
            }],
            calls: vec![],
            failures: BTreeMap::new(),
            submitted_calls: 2,
            tokens: (1, 2),
            tokens_by_model: BTreeMap::new(),
            live_tokens_by_model: BTreeMap::new(),
        }
    }

    #[test]
    fn a_record_is_written_whole_and_read_back() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(load(d.path(), "tot.sp").unwrap(), None);
        save(d.path(), &run()).unwrap();
        assert_eq!(load(d.path(), "tot.sp").unwrap(), Some(run()));
        let leftovers: Vec<_> = std::fs::read_dir(d.path().join(DIR))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension().unwrap() != "json")
            .collect();
        assert!(leftovers.is_empty());
        remove(d.path(), "tot.sp").unwrap();
        assert_eq!(load(d.path(), "tot.sp").unwrap(), None);
    }

    #[test]
    fn a_damaged_record_is_an_error_not_a_fresh_start() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join(DIR)).unwrap();
        std::fs::write(path(d.path(), "a b.sp"), "{").unwrap();
        let e = load(d.path(), "a b.sp").unwrap_err();
        assert!(e.contains("not a batch record"), "{e}");
        assert!(path(d.path(), "a b.sp").ends_with("batches/a_b.sp.json"));
    }

    #[test]
    fn the_tag_depends_on_the_set_of_calls_not_their_order() {
        let a = tag("p", &["x".into(), "y".into()]);
        assert_eq!(a, tag("p", &["y".into(), "x".into()]));
        assert_ne!(a, tag("q", &["x".into(), "y".into()]));
        assert_ne!(a, tag("p", &["x".into()]));
    }
}
