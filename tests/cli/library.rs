//! The workflow library end to end (LANGUAGE.md 7.2, 8, 9 and 10; issue 12): golden
//! programs under `tests/examples/library/`, each run by the real binary in a temporary
//! folder that holds a small data tree, with `SPINDLE_E2E_VAR=hello` in the
//! environment.
//!
//! For `NAME.sp`:
//! - `NAME.out`: standard output, exactly;
//! - `NAME.err`: the run fails with status 1, standard error starts with `error`, and
//!   holds each line of the file (no panic);
//! - `NAME.stderr`: the run succeeds and standard error holds each line of the file;
//! - `NAME.json`: standard output of `--format json`, exactly.
//!
//! Also here: `args` with and without `--`, and both evaluation modes.

use crate::e2e_common;

use e2e_common::*;
use std::path::PathBuf;

fn library() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/examples/library")
}

/// The program's arguments for a golden program.
fn program_args(name: &str) -> &'static [&'static str] {
    match name {
        "files_env" => &["--", "one", "two words"],
        _ => &[],
    }
}

/// A folder with the program and the data tree the programs look at.
fn folder_for(sp: &PathBuf) -> Wf {
    let wf = Wf::new();
    for f in [
        "data/a.csv",
        "data/b.csv",
        "data/notes.txt",
        "data/sub/c.csv",
        "data/sub/deep/d.csv",
    ] {
        wf.write(f, "x\n");
    }
    let name = sp.file_name().unwrap().to_str().unwrap();
    wf.write(name, &std::fs::read_to_string(sp).unwrap());
    wf
}

fn read_opt(p: PathBuf) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

#[test]
fn golden_library_programs() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(library())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sp"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    let mut problems = Vec::new();
    for sp in &files {
        let stem = sp.file_stem().unwrap().to_str().unwrap().to_string();
        let name = format!("{stem}.sp");
        let out_file = read_opt(sp.with_extension("out"));
        let err_file = read_opt(sp.with_extension("err"));
        let stderr_file = read_opt(sp.with_extension("stderr"));
        let json_file = read_opt(sp.with_extension("json"));
        assert!(
            out_file.is_some() || err_file.is_some(),
            "{stem}: neither .out nor .err"
        );
        for mode in MODES {
            let wf = folder_for(sp);
            let mut args: Vec<&str> = vec![&name];
            args.extend(program_args(&stem));
            let mut cmd = wf.command(&[mode, &args[..]].concat());
            cmd.env("SPINDLE_E2E_VAR", "hello")
                .env_remove("SPINDLE_E2E_UNSET");
            let out = cmd.output().unwrap();
            let (so, se) = (stdout(&out), stderr(&out));
            let what = format!("{stem} {mode:?}");
            if let Some(want) = &out_file
                && &so != want
            {
                problems.push(format!("{what}: standard output\n{so:?}\nwanted\n{want:?}"));
            }
            if se.contains("panicked") {
                problems.push(format!("{what}: a panic\n{se}"));
            }
            match &err_file {
                Some(lines) => {
                    if out.status.code() != Some(1) || !se.starts_with("error") {
                        problems.push(format!("{what}: {:?}\n{se}", out.status.code()));
                    }
                    for l in lines.lines().filter(|l| !l.is_empty()) {
                        if !se.contains(l) {
                            problems.push(format!("{what}: standard error lacks {l:?}\n{se}"));
                        }
                    }
                }
                None => {
                    if !out.status.success() {
                        problems.push(format!("{what}: {:?}\n{se}", out.status.code()));
                    }
                    let want = stderr_file.clone().unwrap_or_default();
                    for l in want.lines().filter(|l| !l.is_empty()) {
                        if !se.contains(l) {
                            problems.push(format!("{what}: standard error lacks {l:?}\n{se}"));
                        }
                    }
                    if want.is_empty() && !se.is_empty() {
                        problems.push(format!("{what}: unexpected standard error\n{se}"));
                    }
                }
            }
            if let Some(want) = &json_file {
                let mut cmd = wf.command(&[mode, &["--format", "json"], &args[..]].concat());
                cmd.env("SPINDLE_E2E_VAR", "hello");
                let out = cmd.output().unwrap();
                if &stdout(&out) != want {
                    problems.push(format!(
                        "{what}: --format json\n{}\nwanted\n{want}",
                        stdout(&out)
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn args_with_and_without_the_double_dash() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : String = showInt (length args) ++ \": \" ++ join \"|\" args\n",
    );
    for (args, want) in [
        (&["wf.sp", "--", "a", "b"][..], "2: a|b\n"),
        (&["wf.sp", "a", "b"], "2: a|b\n"),
        (&["wf.sp"], "0: \n"),
        (&["wf.sp", "--", "--jobs", "3"], "2: --jobs|3\n"),
        (&["wf.sp", "x", "--jobs", "3", "y"], "2: x|y\n"),
    ] {
        assert_eq!(ok(&wf.run(args)), want, "{args:?}");
    }
}

#[test]
fn after_orders_effects_that_no_data_connects() {
    // `after (mkdir) (writeFile into it)`: the folder exists before the write, in both
    // modes; without `after` nothing would make it first.
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def main : String = after (run \"mkdir\" [\"-p\", \"out/deep\"]) (writeFile \"out/deep/a.txt\" \"a\")\n",
        );
        assert_eq!(ok(&wf.run_mode(mode, &["wf.sp"])), "out/deep/a.txt\n");
        assert_eq!(wf.read("out/deep/a.txt"), "a");
    }
}

#[test]
fn try_carries_on_past_a_failing_step() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def step (i : Int) : String = shell (\"[ \" ++ showInt i ++ \" -ne 2 ] && echo ok \" ++ showInt i)\n\
             def main = map (\\i -> either (\\m -> \"failed\") trim (try (step i))) (range 0 4)\n",
        );
        let out = wf.run_mode(mode, &["wf.sp"]);
        assert_eq!(
            ok(&out),
            "[\"ok 0\", \"ok 1\", \"failed\", \"ok 3\"]\n",
            "{mode:?}"
        );
    }
}

#[test]
fn parse_json_names_the_line_of_an_error_before_a_line_break() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main = either id renderJson (parseJson \"{\\n  \\\"b\\\": tru\\n}\")\n",
    );
    let out = ok(&wf.run(&["wf.sp"]));
    assert!(out.starts_with("line 2, column 11: "), "{out}");
}
