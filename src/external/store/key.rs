//! Call keys (LANGUAGE.md 11): what a recorded result is looked up by.
//!
//! A call's **key** is the blake3 hash of:
//!
//! 1. a key-format version ([`KEY_VERSION`]);
//! 2. the external's name;
//! 3. its arguments in normal form ([`Plain`], canonical bytes: see [`hash_plain`]);
//! 4. for a process: the content hash of every program it runs (the program file its
//!    name resolves to on `PATH`, and for `shell` every command name of the command
//!    line that resolves to a file), of every argument (for `shell`: every word) that
//!    names an existing regular file, and of every file declared with `reading`; the
//!    values of the environment variables listed in `SPINDLE_KEY_ENV`; and the paths
//!    declared with `writing`.
//!
//! The **pre-key** is the hash of 1 to 3 alone: the same call with other file contents.
//! The store keeps, per pre-key, the key last recorded, so `--explain` can say which
//! input changed.
//!
//! The place of a call is *not* part of its key: an external is a function of its
//! arguments (LANGUAGE.md 7.3), so editing the definition around a call changes its
//! key only when it changes what the call is given.
//!
//! `reads` externals are not recorded: their key would need what they read, which is
//! their whole work. They run every time (and under `--plan` too: they change nothing).

use super::files::{Fingerprints, path_candidates, shell_words};
use crate::external::exec::process::shell_program;
use crate::external::plain::Plain;
use crate::external::request::{ProcessRequest, Request};
use std::path::{Path, PathBuf};

/// The version of the key format, hashed first.
pub const KEY_VERSION: u32 = 1;

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

/// The pre-key of a call: version, name and arguments.
pub fn pre_key(external: &str, args: &[Plain]) -> Hash {
    let mut h = blake3::Hasher::new();
    h.update(b"spindle-call");
    h.update(&KEY_VERSION.to_le_bytes());
    put_str(&mut h, external);
    h.update(&(args.len() as u64).to_le_bytes());
    for a in args {
        hash_plain(&mut h, a);
    }
    *h.finalize().as_bytes()
}

/// What a process call's key covers beyond its arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inputs {
    /// Programs it runs: (path as resolved, content hash).
    pub programs: Vec<(String, Hash)>,
    /// Files it reads: (path as named, content hash).
    pub files: Vec<(String, Hash)>,
    /// `SPINDLE_KEY_ENV` variables and their values.
    pub env: Vec<(String, Option<String>)>,
    /// Paths declared with `writing`.
    pub writing: Vec<String>,
}

impl Inputs {
    /// Whether the key covers nothing beyond the arguments.
    pub fn is_empty(&self) -> bool {
        self.programs.is_empty()
            && self.files.is_empty()
            && self.env.is_empty()
            && self.writing.is_empty()
    }
}

/// The key of a call with pre-key `pre` and these inputs. A call whose key covers
/// nothing more than its arguments (`delay`, `writeFile`) has its pre-key as key.
pub fn key(pre: &Hash, inputs: &Inputs) -> Hash {
    if inputs.is_empty() {
        return *pre;
    }
    let mut h = blake3::Hasher::new();
    h.update(b"spindle-key");
    h.update(&KEY_VERSION.to_le_bytes());
    h.update(pre);
    for (tag, list) in [(1u8, &inputs.programs), (2u8, &inputs.files)] {
        h.update(&[tag]);
        h.update(&(list.len() as u64).to_le_bytes());
        for (path, hash) in list {
            put_str(&mut h, path);
            h.update(hash);
        }
    }
    h.update(&[3]);
    h.update(&(inputs.env.len() as u64).to_le_bytes());
    for (name, value) in &inputs.env {
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
    h.update(&[4]);
    h.update(&(inputs.writing.len() as u64).to_le_bytes());
    for w in &inputs.writing {
        put_str(&mut h, w);
    }
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

/// What a call's key covers beyond its arguments, found now: for a process its
/// programs, the files its words name, the `reading` files, the `SPINDLE_KEY_ENV`
/// values and the `writing` paths; for other requests nothing. File hashes come from
/// `fps` (quick check first), `lookup` giving fingerprints from earlier runs.
///
/// `produced` (absolute paths) are files this same call created when it last ran: an
/// argument naming one is its output (`cp in.txt out.txt`), not an input, although the
/// file exists now. Without this, recording a call would change its key.
pub fn inputs(
    request: &Request,
    produced: &std::collections::HashSet<PathBuf>,
    reading: &[String],
    writing: &[String],
    env_names: &[String],
    fps: &Fingerprints,
    lookup: &dyn Fn(&Path) -> Option<super::files::Fingerprint>,
) -> Inputs {
    let Request::Process(p) = request else {
        return Inputs::default();
    };
    let mut out = Inputs::default();
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
            let shown = path.display().to_string();
            if out.programs.iter().any(|(p, _)| *p == shown) {
                continue;
            }
            if let Some(fp) = fps.get(&path, lookup) {
                out.programs.push((shown, fp.hash));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let candidates = words
        .iter()
        .flat_map(|w| path_candidates(w))
        .chain(reading.iter().map(String::as_str));
    for cand in candidates {
        if !seen.insert(cand.to_string()) {
            continue;
        }
        let path = Path::new(cand);
        if !path.is_file() || produced.contains(&super::files::absolute(path)) {
            continue;
        }
        if out
            .programs
            .iter()
            .any(|(p, _)| Path::new(p) == path && cand.contains('/'))
        {
            continue;
        }
        if let Some(fp) = fps.get(path, lookup) {
            out.files.push((cand.to_string(), fp.hash));
        }
    }
    out.env = env_names
        .iter()
        .map(|n| (n.clone(), std::env::var(n).ok()))
        .collect();
    out.writing = writing.to_vec();
    out
}

/// Every path the key covers, for `--explain`: programs first, then files.
pub fn covered(inputs: &Inputs) -> Vec<String> {
    inputs
        .programs
        .iter()
        .chain(&inputs.files)
        .map(|(p, _)| p.clone())
        .collect()
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
        let k = |args: &[Plain]| pre_key("run", args);
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
        assert_ne!(pre_key("run", &[s("x")]), pre_key("shell", &[s("x")]));
        assert_ne!(
            pre_key("f", &[Plain::Int(1)]),
            pre_key("f", &[Plain::Float(1.0)])
        );
        assert_ne!(
            pre_key("f", &[Plain::con("A", vec![Plain::con("B", vec![])])]),
            pre_key("f", &[Plain::con("A", vec![]), Plain::con("B", vec![])])
        );
        // Deep values need no native stack.
        let mut deep = Plain::Int(0);
        for _ in 0..100_000 {
            deep = Plain::con("S", vec![deep]);
        }
        pre_key("f", std::slice::from_ref(&deep));
        // Plain's own drop recurses; leak the deep value rather than overflow here.
        std::mem::forget(deep);
    }

    #[test]
    fn inputs_cover_programs_files_and_declarations() {
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
        });
        let fps = Fingerprints::default();
        let none = |_: &Path| None;
        let none_produced = std::collections::HashSet::new();
        let i = inputs(
            &req,
            &none_produced,
            &[],
            &["o.txt".into()],
            &["HOME".into()],
            &fps,
            &none,
        );
        assert_eq!(i.programs.len(), 1, "{i:?}");
        assert!(i.programs[0].0.ends_with("/sort"));
        assert_eq!(
            i.files,
            [(
                data.display().to_string(),
                *blake3::hash(b"1,2\n").as_bytes()
            )]
        );
        assert_eq!(i.env[0].0, "HOME");
        let k1 = key(&pre_key("run", &[]), &i);
        std::fs::write(&data, "1,3\n").unwrap();
        let fps = Fingerprints::default();
        let j = inputs(
            &req,
            &none_produced,
            &[],
            &["o.txt".into()],
            &["HOME".into()],
            &fps,
            &none,
        );
        assert_ne!(k1, key(&pre_key("run", &[]), &j));
        // A shell command line: its command names are programs, its words files.
        let shell = crate::external::registry::lookup("shell")
            .unwrap()
            .make_request(&[s(&format!("wc -l < {} | sort", data.display()))])
            .unwrap();
        let i = inputs(&shell, &none_produced, &[], &[], &[], &fps, &none);
        // A file the call produced last time is not an input.
        let produced: std::collections::HashSet<PathBuf> =
            [super::super::files::absolute(&data)].into_iter().collect();
        let k = inputs(&shell, &produced, &[], &[], &[], &fps, &none);
        assert!(k.files.is_empty());
        let progs: Vec<&str> = i.programs.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(progs.len(), 3, "{progs:?}");
        assert_eq!(i.files.len(), 1);
    }
}
