//! The README's "Writing a workflow" section runs exactly as it shows (issue 12): its
//! listings are the files of `examples/sales/`, its terminal session gives the output
//! it shows (standard output, command by command, in a copy of the example), and its
//! REPL session answers what it shows.

use crate::e2e_common;

use e2e_common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The section's text, from its heading to the next `## ` heading.
fn section() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("\n## Writing a workflow\n")
        .expect("the README has a section `## Writing a workflow`");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 4);
    rest[..end].to_string()
}

/// The fenced code blocks of a text, with the word after their opening fence.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if let Some(info) = l.strip_prefix("```") {
            let mut body = String::new();
            for b in lines.by_ref() {
                if b.starts_with("```") {
                    break;
                }
                body.push_str(b);
                body.push('\n');
            }
            out.push((info.trim().to_string(), body));
        }
    }
    out
}

/// The block that starts with `first`.
fn block_starting(blocks: &[(String, String)], first: &str) -> String {
    blocks
        .iter()
        .find(|(_, b)| b.starts_with(first))
        .unwrap_or_else(|| panic!("no block starting with {first:?}"))
        .1
        .clone()
}

#[test]
fn the_listings_are_the_example_files() {
    let bs = blocks(&section());
    for (first, file) in [
        ("-- Sales by region", "examples/sales/sales.sp"),
        ("# Checks a sales file", "examples/sales/check.awk"),
    ] {
        let shown = block_starting(&bs, first);
        let real = std::fs::read_to_string(root().join(file)).unwrap();
        assert_eq!(
            shown, real,
            "the README's listing of {file} differs from the file"
        );
    }
}

/// Copies a folder (files and subfolders).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            if e.file_name() == ".spindle" || e.file_name() == "out" {
                continue;
            }
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// `PATH` with the built `spindle` first.
fn path_with_spindle() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_spindle")).parent().unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn the_terminal_session_prints_what_the_readme_shows() {
    let session = block_starting(&blocks(&section()), "$ cd examples/sales");
    let wf = Wf::new();
    copy_dir(&root().join("examples/sales"), &wf.file("examples/sales"));
    let mut cwd = wf.path().to_path_buf();
    // Commands and the output each shows.
    let mut steps: Vec<(String, String)> = Vec::new();
    for l in session.lines() {
        match l.strip_prefix("$ ") {
            Some(cmd) => steps.push((cmd.to_string(), String::new())),
            None => {
                let last = steps.last_mut().expect("output before any command");
                last.1.push_str(l);
                last.1.push('\n');
            }
        }
    }
    assert!(steps.len() >= 4, "{steps:?}");
    let mut spindle_runs = 0;
    for (cmd, want) in &steps {
        if let Some(dir) = cmd.strip_prefix("cd ") {
            cwd = cwd.join(dir);
            continue;
        }
        spindle_runs += cmd.starts_with("spindle ") as usize;
        let out = Command::new("bash")
            .args(["-c", cmd])
            .current_dir(&cwd)
            .env("PATH", path_with_spindle())
            .env_remove("SPINDLE_STORE")
            .env_remove("NO_COLOR")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{cmd}`: {:?}\n{}",
            out.status,
            stderr(&out)
        );
        assert_eq!(
            stdout(&out),
            *want,
            "`{cmd}`\n--- stderr:\n{}",
            stderr(&out)
        );
    }
    assert!(spindle_runs >= 2);
    // The resumed run reused every call that the fix did not reach: run it again
    // with a trace, and nothing but the reads runs.
    let t = wf.file("trace.tsv");
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["run", "--resume", "--progress", "none", "--trace"])
        .arg(&t)
        .args(["sales.sp", "--", "data", "out"])
        .current_dir(&cwd)
        .output()
        .unwrap();
    ok(&out);
    let lines = trace(&t);
    let ran: Vec<&TraceLine> = lines
        .iter()
        .filter(|l| l.status != "reused" && l.external != "glob")
        .collect();
    assert!(ran.is_empty(), "{ran:?}");
}

#[test]
fn the_repl_session_answers_what_the_readme_shows() {
    let repl = block_starting(&blocks(&section()), "$ spindle repl sales.sp");
    let wf = Wf::new();
    copy_dir(&root().join("examples/sales"), wf.path());
    let mut input = String::new();
    let mut answers = Vec::new();
    for l in repl.lines().skip(1) {
        match l.strip_prefix("spindle> ") {
            Some(i) => {
                input.push_str(i);
                input.push('\n');
            }
            None => answers.push(l.to_string()),
        }
    }
    assert!(!answers.is_empty());
    let mut child = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["repl", "sales.sp"])
        .current_dir(wf.path())
        .env("HOME", wf.path())
        .env("XDG_DATA_HOME", wf.file("xdg"))
        .env("SPINDLE_STORE", wf.file("store"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = stdout(&out);
    // Each answer, in order.
    let mut at = 0;
    for a in &answers {
        match text[at..].find(a.as_str()) {
            Some(i) => at += i + a.len(),
            None => panic!(
                "the REPL did not answer {a:?} (in order)\n{text}\n{}",
                stderr(&out)
            ),
        }
    }
}
