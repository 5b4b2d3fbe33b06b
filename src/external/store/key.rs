//! Call keys (LANGUAGE.md 11 as amended by issue 24): what a recorded result is found
//! by.
//!
//! A call's **pre-key** is the blake3 hash of:
//!
//! 1. a key-format version ([`KEY_VERSION`]);
//! 2. the external's name;
//! 3. its arguments in normal form ([`Plain`], canonical bytes: see [`hash_plain`]);
//! 4. for a process ([`Context`]): the working directory, the values of the
//!    environment variables listed in `SPINDLE_KEY_ENV`, and the paths declared with
//!    `reading` and `writing` around the call.
//!
//! What a process reads is known only once it has run (it is observed:
//! [`crate::external::fstrace`]), so it cannot be part of what the record is looked up
//! by. The store keeps, per pre-key, the last few records made for it (its
//! *variants*, one per state of its inputs), and a record is reused only if every
//! input it observed still holds what was recorded and every output still exists as
//! recorded ([`super::verify`]). A record's own **key** ([`record_key`]) is the
//! pre-key with the inputs it observed, so that recording the same call with the same
//! inputs again replaces its record rather than adding one.
//!
//! The place of a call is *not* part of its key: an external is a function of its
//! arguments (LANGUAGE.md 7.3), so editing the definition around a call changes its
//! key only when it changes what the call is given.
//!
//! `reads` externals are not recorded: their key would need what they read, which is
//! their whole work. They run every time (and under `--plan` too: they change nothing).
//!
//! Where processes cannot be traced, a call whose outputs are all declared with
//! `writing` is still recorded, with the inputs its command line names guessed as
//! before issue 24 ([`guessed_inputs`]).

use super::files::{Fingerprints, path_candidates, shell_words};
use super::record::{EntryKind, FileEntry, InputSet, Record};
use crate::external::exec::process::shell_program;
use crate::external::plain::Plain;
use crate::external::request::{ProcessRequest, Request};
use prost::Message;
use std::path::{Path, PathBuf};

/// The version of the key format, hashed first (2: observed inputs, issue 24).
pub const KEY_VERSION: u32 = 2;

/// A 32-byte blake3 hash.
pub type Hash = [u8; 32];

/// The environment variable listing the variables whose values enter process keys.
pub const KEY_ENV_VAR: &str = "SPINDLE_KEY_ENV";

/// The names listed in `SPINDLE_KEY_ENV` (separated by commas, colons or spaces).
pub fn key_env_names() -> Vec<String> {
    let raw = std::env::var(KEY_ENV_VAR).unwrap_or_default();
    let mut names: Vec<String> = raw
        .split([',', ':', ' ', '\t', '\n'])
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Feeds the canonical bytes of `p` to `h`: each node in preorder as a tag byte and its
/// contents, every length written out, so that distinct values give distinct bytes.
/// Walks with an explicit stack (a long list or a deep value costs no native stack).
pub fn hash_plain(h: &mut blake3::Hasher, p: &Plain) {
    let mut work: Vec<&Plain> = vec![p];
    while let Some(p) = work.pop() {
        match p {
            Plain::Int(n) => {
                h.update(&[1]);
                h.update(&n.to_le_bytes());
            }
            Plain::Float(x) => {
                h.update(&[2]);
                h.update(&x.to_bits().to_le_bytes());
            }
            Plain::Str(s) => {
                h.update(&[3]);
                h.update(&(s.len() as u64).to_le_bytes());
                h.update(s.as_bytes());
            }
            Plain::List(xs) => {
                h.update(&[4]);
                h.update(&(xs.len() as u64).to_le_bytes());
                work.extend(xs.iter().rev());
            }
            Plain::Con(name, fields) => {
                h.update(&[5]);
                h.update(&(name.len() as u64).to_le_bytes());
                h.update(name.as_bytes());
                h.update(&(fields.len() as u64).to_le_bytes());
                work.extend(fields.iter().rev());
            }
        }
    }
}

fn put_str(h: &mut blake3::Hasher, s: &str) {
    h.update(&(s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}

/// What a process call's pre-key covers beyond its arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// The working directory the process runs in.
    pub cwd: String,
    /// `SPINDLE_KEY_ENV` variables and their values.
    pub env: Vec<(String, Option<String>)>,
    /// Paths declared with `reading`.
    pub reading: Vec<String>,
    /// Paths declared with `writing`.
    pub writing: Vec<String>,
}

impl Context {
    /// The context of a process call made now, in this working directory.
    pub fn now(env_names: &[String], reading: &[String], writing: &[String]) -> Context {
        Context {
            cwd: std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
            env: env_names
                .iter()
                .map(|n| (n.clone(), std::env::var(n).ok()))
                .collect(),
            reading: reading.to_vec(),
            writing: writing.to_vec(),
        }
    }
}

/// The pre-key of a call: version, name, arguments, and for a process its context.
pub fn pre_key(external: &str, args: &[Plain], context: Option<&Context>) -> Hash {
    let mut h = blake3::Hasher::new();
    h.update(b"spindle-call");
    h.update(&KEY_VERSION.to_le_bytes());
    put_str(&mut h, external);
    h.update(&(args.len() as u64).to_le_bytes());
    for a in args {
        hash_plain(&mut h, a);
    }
    if let Some(c) = context {
        h.update(&[1]);
        put_str(&mut h, &c.cwd);
        h.update(&(c.env.len() as u64).to_le_bytes());
        for (name, value) in &c.env {
            put_str(&mut h, name);
            match value {
                Some(v) => {
                    h.update(&[1]);
                    put_str(&mut h, v);
                }
                None => {
                    h.update(&[0]);
                }
            }
        }
        for list in [&c.reading, &c.writing] {
            h.update(&(list.len() as u64).to_le_bytes());
            for p in list {
                put_str(&mut h, p);
            }
        }
    }
    *h.finalize().as_bytes()
}

/// The pre-key of a `paid` call (a model's): its canonical request (base URL, model,
/// every parameter with its default filled in, messages, sample index) and its place,
/// since two places asking the same question are two calls (LANGUAGE.md 7.3, as
/// amended by issue 27). The place is the definition's name and the call's position
/// in its body, not the definition's hash: editing a helper it uses, or another
/// argument of the call, keeps the place (and the record of an unchanged request).
pub fn paid_key(external: &str, canonical: &str, place_name: &str, place_pos: u32) -> Hash {
    let mut h = blake3::Hasher::new();
    h.update(b"spindle-paid-call");
    h.update(&KEY_VERSION.to_le_bytes());
    put_str(&mut h, external);
    put_str(&mut h, canonical);
    put_str(&mut h, place_name);
    h.update(&place_pos.to_le_bytes());
    *h.finalize().as_bytes()
}

/// Where the last request made at a `paid` call's place is kept (`--explain` says
/// which of its fields changed).
pub fn paid_place_key(external: &str, place_name: &str, place_pos: u32) -> Hash {
    let mut h = blake3::Hasher::new();
    h.update(b"spindle-paid-place");
    h.update(&KEY_VERSION.to_le_bytes());
    put_str(&mut h, external);
    put_str(&mut h, place_name);
    h.update(&place_pos.to_le_bytes());
    *h.finalize().as_bytes()
}

/// The key of a record made for pre-key `pre`: the pre-key with the inputs it
/// observed (inline and shared), so that the same inputs give the same key.
pub fn record_key(pre: &Hash, rec: &Record) -> Hash {
    if rec.inputs.is_empty() && rec.input_sets.is_empty() {
        return *pre;
    }
    let mut h = blake3::Hasher::new();
    h.update(b"spindle-key");
    h.update(&KEY_VERSION.to_le_bytes());
    h.update(pre);
    let inline = InputSet {
        inputs: rec.inputs.clone(),
    };
    h.update(&inline.encode_to_vec());
    for s in &rec.input_sets {
        h.update(s);
    }
    *h.finalize().as_bytes()
}

/// The hash an [`InputSet`] is stored by (of its encoding).
pub fn set_key(encoded: &[u8]) -> Hash {
    let mut h = blake3::Hasher::new();
    h.update(b"spindle-inputs");
    h.update(encoded);
    *h.finalize().as_bytes()
}

/// The file a program name runs: the name itself when it holds a `/`, else the first
/// executable regular file of that name on `PATH`.
pub fn resolve_program(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if name.is_empty() {
        return None;
    }
    if name.contains('/') {
        return Path::new(name).is_file().then(|| PathBuf::from(name));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| executable(p))
}

/// The words of a process request that may name files: its arguments, or for `shell`
/// the words of its command line, each with whether it stands where a command goes.
pub fn process_words(req: &ProcessRequest) -> Vec<(String, bool)> {
    match (&req.shown_as, req.args.last()) {
        (Some(_), Some(cmd)) if req.program == shell_program().0 => shell_words(cmd),
        _ => req.args.iter().map(|a| (a.clone(), false)).collect(),
    }
}

/// The inputs of a process call guessed from its command line, for where processes
/// cannot be traced: the programs it runs (for `shell`, every command name of the
/// command line that resolves to a file), every argument (for `shell`: every word)
/// that names an existing regular file, and the `reading` files. Absolute paths, as
/// record entries; `None` when a file cannot be hashed.
pub fn guessed_inputs(
    request: &Request,
    reading: &[String],
    fps: &Fingerprints,
    lookup: &dyn Fn(&Path) -> Option<super::files::Fingerprint>,
) -> Vec<FileEntry> {
    let Request::Process(p) = request else {
        return Vec::new();
    };
    let mut out: Vec<FileEntry> = Vec::new();
    let add = |path: &Path, program: bool, out: &mut Vec<FileEntry>| {
        let abs = super::files::absolute(path);
        let shown = abs.display().to_string();
        if out.iter().any(|e| e.path == shown) {
            return;
        }
        if let Some(fp) = fps.get(&abs, lookup) {
            out.push(FileEntry {
                path: shown,
                hash: fp.hash.to_vec(),
                program,
                kind: EntryKind::Content as i32,
                ..FileEntry::default()
            });
        }
    };
    let mut programs: Vec<String> = vec![p.program.clone()];
    let mut words: Vec<String> = Vec::new();
    for (w, command) in process_words(p) {
        if command {
            programs.push(w.clone());
        }
        words.push(w);
    }
    for name in programs {
        if let Some(path) = resolve_program(&name) {
            add(&path, true, &mut out);
        }
    }
    let candidates = words
        .iter()
        .flat_map(|w| path_candidates(w))
        .chain(reading.iter().map(String::as_str));
    for cand in candidates {
        let path = Path::new(cand);
        if path.is_file() {
            add(path, false, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::external::request::ExitPolicy;

    fn s(x: &str) -> Plain {
        Plain::Str(x.into())
    }

    #[test]
    fn canonical_bytes_tell_values_apart() {
        let k = |args: &[Plain]| pre_key("run", args, None);
        let base = k(&[s("ab"), Plain::List(vec![s("c")])]);
        assert_eq!(base, k(&[s("ab"), Plain::List(vec![s("c")])]));
        for other in [
            k(&[s("a"), Plain::List(vec![s("bc")])]),
            k(&[s("ab"), Plain::List(vec![s("c"), s("")])]),
            k(&[s("ab"), Plain::List(vec![])]),
            k(&[s("ab"), s("c")]),
            k(&[s("abc"), Plain::List(vec![])]),
        ] {
            assert_ne!(base, other);
        }
        assert_ne!(
            pre_key("run", &[s("x")], None),
            pre_key("shell", &[s("x")], None)
        );
        assert_ne!(
            pre_key("f", &[Plain::Int(1)], None),
            pre_key("f", &[Plain::Float(1.0)], None)
        );
        assert_ne!(
            pre_key("f", &[Plain::con("A", vec![Plain::con("B", vec![])])], None),
            pre_key(
                "f",
                &[Plain::con("A", vec![]), Plain::con("B", vec![])],
                None
            )
        );
        // Deep values need no native stack.
        let mut deep = Plain::Int(0);
        for _ in 0..100_000 {
            deep = Plain::con("S", vec![deep]);
        }
        pre_key("f", std::slice::from_ref(&deep), None);
        // Plain's own drop recurses; leak the deep value rather than overflow here.
        std::mem::forget(deep);
    }

    #[test]
    fn a_process_context_is_part_of_the_pre_key() {
        let args = [s("x")];
        let c = Context {
            cwd: "/w".into(),
            ..Context::default()
        };
        let base = pre_key("run", &args, Some(&c));
        assert_ne!(base, pre_key("run", &args, None));
        for other in [
            Context {
                cwd: "/v".into(),
                ..c.clone()
            },
            Context {
                env: vec![("HOME".into(), None)],
                ..c.clone()
            },
            Context {
                env: vec![("HOME".into(), Some(String::new()))],
                ..c.clone()
            },
            Context {
                reading: vec!["a".into()],
                ..c.clone()
            },
            Context {
                writing: vec!["a".into()],
                ..c.clone()
            },
        ] {
            assert_ne!(base, pre_key("run", &args, Some(&other)), "{other:?}");
        }
    }

    #[test]
    fn record_keys_follow_what_was_observed() {
        let pre = pre_key("run", &[], None);
        let mut r = Record::default();
        assert_eq!(record_key(&pre, &r), pre);
        r.inputs.push(FileEntry {
            path: "/a".into(),
            hash: vec![1; 32],
            ..FileEntry::default()
        });
        let k1 = record_key(&pre, &r);
        assert_ne!(k1, pre);
        r.inputs[0].hash = vec![2; 32];
        assert_ne!(record_key(&pre, &r), k1);
        r.input_sets.push(vec![3; 32]);
        assert_ne!(record_key(&pre, &r), k1);
    }

    #[test]
    fn guessed_inputs_cover_programs_named_files_and_declarations() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data.csv");
        std::fs::write(&data, "1,2\n").unwrap();
        let req = Request::Process(ProcessRequest {
            program: "sort".into(),
            args: vec![
                "-u".into(),
                data.display().to_string(),
                "missing.txt".into(),
            ],
            stdin: None,
            exit: ExitPolicy::Check,
            shown_as: None,
            trace: None,
            stream: None,
            spool: None,
        });
        let fps = Fingerprints::default();
        let none = |_: &Path| None;
        let i = guessed_inputs(&req, &[], &fps, &none);
        let programs: Vec<&FileEntry> = i.iter().filter(|e| e.program).collect();
        assert_eq!(programs.len(), 1, "{i:?}");
        assert!(programs[0].path.ends_with("/sort"));
        let files: Vec<&FileEntry> = i.iter().filter(|e| !e.program).collect();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].hash, blake3::hash(b"1,2\n").as_bytes().to_vec());
        // A shell command line: its command names are programs, its words files.
        let shell = crate::external::registry::lookup("shell")
            .unwrap()
            .make_request(&[s(&format!("wc -l < {} | sort", data.display()))])
            .unwrap();
        let i = guessed_inputs(&shell, &[], &fps, &none);
        assert_eq!(i.iter().filter(|e| e.program).count(), 3, "{i:?}");
        assert_eq!(i.iter().filter(|e| !e.program).count(), 1);
    }
}
