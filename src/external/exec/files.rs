//! File-system and environment operations: `readFile`, `writeFile` (whole and atomic),
//! `fileExists`, `listDir`, `glob` and `getEnv`. Each is a blocking call on the thread
//! that performs it (a pool thread of the executor, or the interpreter's thread with
//! `--sequential`).

use crate::external::request::{CallError, CallErrorKind, Reply, Request, shell_quote};
use std::io::Write;
use std::path::Path;

fn io_error(what: &str, path: &str, e: impl std::fmt::Display) -> CallError {
    CallError::new(
        CallErrorKind::Io,
        format!("{what} {}: {e}", shell_quote(path)),
    )
}

/// Performs a file request ([`Request::executor`] is `Files`) or `GetEnv`; any other
/// request is refused with an error (never a panic).
pub fn perform(req: &Request) -> Result<Reply, CallError> {
    match req {
        Request::ReadFile(path) => read_file(path),
        Request::WriteFile { path, contents } => write_file(path, contents),
        Request::FileExists(path) => file_exists(path),
        Request::ListDir(path) => list_dir(path),
        Request::Glob(pattern) => glob(pattern),
        Request::GetEnv(name) => Ok(get_env(name)),
        other => Err(CallError::bad_argument(format!(
            "{} is not a file operation",
            other.describe()
        ))),
    }
}

/// Reads a whole file; its bytes count against `--max-memory` as they are read (a
/// file past the limit is refused before it is read).
fn read_file(path: &str) -> Result<Reply, CallError> {
    use crate::external::budget;
    // Standard input given by a frontend (a notebook): the line typed, as a terminal
    // gives it.
    if let Some(line) = crate::external::stdin::read_line(path) {
        return line
            .map(|l| Reply::Text(l + "\n"))
            .map_err(|e| io_error("readFile", path, e));
    }
    let f = std::fs::File::open(path).map_err(|e| io_error("readFile", path, e))?;
    let over = || budget::out_of_memory(&format!("readFile {}", shell_quote(path)));
    let mut held = budget::Reservation::new();
    let size = f.metadata().map(|m| m.len() as usize).unwrap_or(0);
    if !held.grow(size) {
        return Err(over());
    }
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(size).map_err(|_| over())?;
    // A file that grows while it is read is read to its end, still within the limit.
    if !budget::read_limited_into(&f, &mut bytes, &mut held) {
        return Err(over());
    }
    String::from_utf8(bytes)
        .map(Reply::Text)
        .map_err(|e| io_error("readFile", path, format!("not valid UTF-8 ({e})")))
}

/// Writes a temporary file beside `path` and renames it over `path`, so that the file
/// is, at every moment, either what it was or all of `contents`. An existing file's
/// permissions are kept; a new one gets the usual `0666` less the umask.
fn write_file(path: &str, contents: &str) -> Result<Reply, CallError> {
    let err = |e: &dyn std::fmt::Display| io_error("writeFile", path, e);
    let target = Path::new(path);
    let Some(name) = target.file_name() else {
        return Err(err(&"not a file name"));
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // `.name.XXXXXX.tmp`, short enough for any file-name limit.
    let name = name.to_string_lossy();
    let short: String = name.chars().take(100).collect();
    let prefix = format!(".{short}.");
    let mut tmp = {
        use std::os::unix::fs::PermissionsExt;
        tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".tmp")
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(|e| err(&without_temp_path(e)))?
    };
    tmp.write_all(contents.as_bytes()).map_err(|e| err(&e))?;
    if let Ok(meta) = std::fs::metadata(target)
        && meta.is_file()
    {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    // On failure the temporary file is removed when `tmp` drops.
    tmp.persist(target).map_err(|e| err(&e.error))?;
    Ok(Reply::Text(path.to_string()))
}

/// An error of the temporary file without the temporary file's name, which the user
/// never asked for (`tempfile` ends its message with ` at path "..."`).
fn without_temp_path(e: std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" at path \"") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

fn file_exists(path: &str) -> Result<Reply, CallError> {
    use std::io::ErrorKind;
    match std::fs::metadata(path) {
        Ok(_) => Ok(Reply::Bool(true)),
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            Ok(Reply::Bool(false))
        }
        Err(e) if e.kind() == ErrorKind::InvalidInput => Ok(Reply::Bool(false)),
        Err(e) => Err(io_error("fileExists", path, e)),
    }
}

/// Names are decoded as UTF-8 with replacement characters where they are not.
fn list_dir(path: &str) -> Result<Reply, CallError> {
    let dir = std::fs::read_dir(path).map_err(|e| io_error("listDir", path, e))?;
    let mut names = Vec::new();
    for entry in dir {
        let entry = entry.map_err(|e| io_error("listDir", path, e))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(Reply::Names(names))
}

/// Shell-style patterns with the `glob` crate: `*`, `?`, `[...]` within one path
/// component, `**` as a whole component for any depth (zero or more directories);
/// names starting with `.` match only a literal `.`, as in the shell. Directories that
/// cannot be read are skipped, as the shell does.
fn glob(pattern: &str) -> Result<Reply, CallError> {
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: true,
    };
    let paths = glob::glob_with(pattern, options).map_err(|e| {
        CallError::bad_argument(format!(
            "glob {}: bad pattern: {} at position {}",
            shell_quote(pattern),
            e.msg,
            e.pos
        ))
    })?;
    let mut found: Vec<String> = paths
        .flatten()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    found.sort();
    found.dedup();
    Ok(Reply::Names(found))
}

/// A variable that is unset, or whose name no variable can have (empty, or holding
/// `=` or NUL), is `Nothing`; a value that is not UTF-8 is decoded with replacement
/// characters.
fn get_env(name: &str) -> Reply {
    if name.is_empty() || name.contains(['=', '\0']) {
        return Reply::MaybeText(None);
    }
    Reply::MaybeText(std::env::var_os(name).map(|v| v.to_string_lossy().into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(r: Result<Reply, CallError>) -> Vec<String> {
        match r {
            Ok(Reply::Names(n)) => n,
            other => panic!("not names: {other:?}"),
        }
    }

    #[test]
    fn files_are_written_whole_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        let ps = p.to_str().unwrap();
        assert_eq!(write_file(ps, "héllo\n"), Ok(Reply::Text(ps.into())));
        assert_eq!(read_file(ps), Ok(Reply::Text("héllo\n".into())));
        // Overwriting keeps the file's permissions and leaves no temporary file.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o754)).unwrap();
        write_file(ps, "second").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "second");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o754);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn file_errors_name_the_path_and_the_os_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.txt");
        let e = read_file(missing.to_str().unwrap()).unwrap_err();
        assert_eq!(e.kind, CallErrorKind::Io);
        assert!(e.message.starts_with("readFile "), "{e}");
        assert!(e.message.contains("No such file"), "{e}");
        let bad = dir.path().join("bad");
        std::fs::write(&bad, [0xff, 0xfe]).unwrap();
        let e = read_file(bad.to_str().unwrap()).unwrap_err();
        assert!(e.message.contains("not valid UTF-8"), "{e}");
        let nowhere = dir.path().join("no/such/dir/x.txt");
        let e = write_file(nowhere.to_str().unwrap(), "x").unwrap_err();
        assert!(e.message.starts_with("writeFile "), "{e}");
        assert!(
            e.message
                .ends_with("No such file or directory (os error 2)"),
            "{e}"
        );
        assert!(
            !e.message.contains(" at path "),
            "the temporary file's name: {e}"
        );
        let e = write_file(dir.path().to_str().unwrap(), "x").unwrap_err();
        assert!(e.message.starts_with("writeFile "), "{e}");
        assert!(write_file("", "x").is_err());
        assert!(list_dir(missing.to_str().unwrap()).is_err());
        assert!(read_file("a\0b").is_err());
    }

    #[test]
    fn existence_of_files_and_directories() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, "").unwrap();
        let yes = |p: &Path| file_exists(p.to_str().unwrap());
        assert_eq!(yes(&f), Ok(Reply::Bool(true)));
        assert_eq!(yes(dir.path()), Ok(Reply::Bool(true)));
        assert_eq!(yes(&dir.path().join("g")), Ok(Reply::Bool(false)));
        assert_eq!(yes(&f.join("under-a-file")), Ok(Reply::Bool(false)));
        assert_eq!(file_exists(""), Ok(Reply::Bool(false)));
        assert_eq!(file_exists("a\0b"), Ok(Reply::Bool(false)));
    }

    #[test]
    fn directories_and_globs_are_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "b.csv",
            "a.csv",
            "c.txt",
            ".hidden.csv",
            "sub/x.csv",
            "sub/deep/y.csv",
        ] {
            let p = d.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, f).unwrap();
        }
        let ds = d.to_str().unwrap();
        assert_eq!(
            names(list_dir(ds)),
            [".hidden.csv", "a.csv", "b.csv", "c.txt", "sub"]
        );
        let rel = |v: Vec<String>| -> Vec<String> {
            v.into_iter()
                .map(|p| p.strip_prefix(ds).unwrap().to_string())
                .collect()
        };
        assert_eq!(
            rel(names(glob(&format!("{ds}/*.csv")))),
            ["/a.csv", "/b.csv"]
        );
        assert_eq!(
            rel(names(glob(&format!("{ds}/**/*.csv")))),
            ["/a.csv", "/b.csv", "/sub/deep/y.csv", "/sub/x.csv"]
        );
        assert!(names(glob(&format!("{ds}/*.none"))).is_empty());
        let e = glob(&format!("{ds}/a**b")).unwrap_err();
        assert_eq!(e.kind, CallErrorKind::BadArgument);
        assert!(e.message.contains("bad pattern"), "{e}");
        assert!(glob("[").is_err());
    }

    #[test]
    fn environment_variables() {
        assert_eq!(
            get_env("PATH"),
            Reply::MaybeText(std::env::var("PATH").ok())
        );
        assert_eq!(
            get_env("SPINDLE_SURELY_UNSET_VARIABLE"),
            Reply::MaybeText(None)
        );
        for odd in ["", "A=B", "A\0B"] {
            assert_eq!(get_env(odd), Reply::MaybeText(None));
        }
    }
}
