//! Golden tests of the command line for workflows, with the real binary: the program's
//! arguments (`args`), `--format json`, the prelude's JSON functions, encoded programs
//! run and checked by content, and `encode -o -` (LANGUAGE.md sections 8, 9 and 10).

use crate::common;

use common::{check_error_output, run_in, scratch_file, spindle, tests_dir};
use std::path::{Path, PathBuf};
use std::process::Output;

/// The folder of this file's example programs.
fn examples() -> PathBuf {
    tests_dir().join("examples").join("workflow")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `spindle ARGS...` in `dir`; it must succeed with exactly `want` on standard
/// output and nothing on standard error.
fn succeeds(dir: &Path, args: &[&str], want: &str) {
    // Progress lines would go to standard error: none here.
    let mut args: Vec<&str> = args.to_vec();
    if args.first() == Some(&"run") {
        args.splice(1..1, ["--progress", "none"]);
    }
    let args = &args[..];
    let out = run_in(dir, args);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{args:?}: {:?}\n{}",
        out.status.code(),
        stderr(&out)
    );
    assert_eq!(stdout(&out), want, "{args:?}");
}

#[test]
fn arguments_after_the_file_are_the_programs() {
    let dir = examples();
    let cases: &[(&[&str], &str)] = &[
        (&["run", "args.sp"], "(0, [])\n"),
        (&["run", "args.sp", "a", "b"], "(2, [\"a\", \"b\"])\n"),
        (&["run", "args.sp", "--", "a", "b"], "(2, [\"a\", \"b\"])\n"),
        // Options of `run` may follow FILE; other words, hyphens or not, are arguments.
        (
            &[
                "run",
                "args.sp",
                "in.txt",
                "--sequential",
                "-v",
                "--jobs",
                "2",
                "x",
            ],
            "(3, [\"in.txt\", \"-v\", \"x\"])\n",
        ),
        // After `--`, everything is an argument, options of `run` included.
        (
            &["run", "args.sp", "--", "--stats", "--", "-", ""],
            "(4, [\"--stats\", \"--\", \"-\", \"\"])\n",
        ),
        (
            &["run", "--sequential", "args.sp", "é ü", "a\"b"],
            "(2, [\"é ü\", \"a\\\"b\"])\n",
        ),
        (
            &["run", "args.sp", "--format", "json", "x"],
            "[1,[\"x\"]]\n",
        ),
        (
            &["run", "args.sp", "--format=json", "--", "--format"],
            "[1,[\"--format\"]]\n",
        ),
    ];
    for (args, want) in cases {
        succeeds(&dir, args, want);
    }
    // `--stats` after FILE is still `run`'s.
    let out = run_in(&dir, &["run", "args.sp", "a", "--stats"]);
    assert_eq!(stdout(&out), "(1, [\"a\"])\n");
    assert!(stderr(&out).contains("steps: "), "{}", stderr(&out));
}

#[test]
fn malformed_run_command_lines_are_clap_errors() {
    let dir = examples();
    for args in [
        &["run", "args.sp", "--jobs"][..],
        &["run", "args.sp", "--format", "yaml"],
        &["run", "--nope", "args.sp"],
        &["run"],
    ] {
        let out = run_in(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with("error"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn args_is_empty_for_the_checker_encode_and_hash() {
    // The arguments replace `args` only for the run: checking sees the empty list, so
    // a program that needs more fails at run time, not check time.
    let dir = examples();
    let hash = |extra: &[&str]| {
        let mut args = vec!["hash", "args.sp"];
        args.extend(extra);
        stdout(&run_in(&dir, &args))
    };
    assert_eq!(hash(&[]).len(), 65);
    let path = scratch_file(
        "workflow-cli",
        "needs_one.sp",
        "def main : String =\n  match args with\n  | [x] -> x\n  | _ -> error \"usage: needs_one.sp NAME\"\n",
    );
    let out = spindle().arg("check").arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = spindle().arg("run").arg(&path).arg("Ada").output().unwrap();
    assert_eq!(stdout(&out), "Ada\n");
    let out = spindle().arg("run").arg(&path).output().unwrap();
    check_error_output(&out, "usage: needs_one.sp NAME").unwrap();
}

#[test]
fn format_json_prints_one_document() {
    let dir = examples();
    let want = std::fs::read_to_string(dir.join("format_json.json")).unwrap();
    succeeds(&dir, &["run", "--format", "json", "format_json.sp"], &want);
    // Text stays the default.
    let out = run_in(&dir, &["run", "format_json.sp"]);
    assert!(stdout(&out).starts_with("(42, -1.5, 2.0, [inf, -inf, NaN]"));
    // A String main is a JSON string, not raw text.
    let path = scratch_file("workflow-cli", "string_main.sp", "def main = \"a\\nb\"\n");
    let out = spindle()
        .args(["run", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "\"a\\nb\"\n");
    // A runtime error is the same error as with text.
    let path = scratch_file("workflow-cli", "fails.sp", "def main = [1, 2 / 0]\n");
    let out = spindle()
        .args(["run", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    check_error_output(&out, "fails.sp:1:18: division by zero").unwrap();
    // A long list is fine (no native recursion).
    let path = scratch_file("workflow-cli", "long.sp", "def main = range 0 300000\n");
    let out = spindle()
        .args(["run", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.starts_with("[0,1,2,") && text.ends_with(",299999]\n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_preludes_json_decoder_folds_tokens_into_json() {
    // `parseJson` folds the tokens of `prim_parseJson` (prim::json::tokens); fed the
    // tokens directly, the fold is tested without the primitive.
    let cases = [
        r#"{"k": [1, "s", null, true, false], "}": {"": [[]]}, "k": -2.5e-3}"#,
        "[]",
        "\"x\"",
        "[{\"a\": {\"b\": [{}]}}]",
    ];
    for text in cases {
        let tokens = spindle::prim::json::tokens(text);
        let mut list = String::from("[");
        for (i, t) in tokens.iter().enumerate() {
            if i > 0 {
                list.push_str(", ");
            }
            spindle::core::pretty::quote_into(&mut list, t);
        }
        list.push(']');
        let src = format!("def main = fst (parseJsonValue {list})\n");
        let path = scratch_file("workflow-cli", "tokens.sp", &src);
        let out = spindle()
            .args(["run", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        let want = spindle::prim::json::render(&spindle::prim::json::parse(text).unwrap());
        assert_eq!(
            stdout(&out),
            format!("{want}\n"),
            "{text}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn json_functions_of_the_prelude() {
    let dir = examples();
    let want = std::fs::read_to_string(dir.join("json.out")).unwrap();
    succeeds(&dir, &["run", "json.sp"], &want);
    // Malformed JSON read from a file is a `Left` naming the line and column.
    let dir2 = std::env::temp_dir().join(format!("spindle-workflow-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir2).unwrap();
    std::fs::write(dir2.join("bad.json"), "{\"a\": 1,\n \"b\": tru}\n").unwrap();
    std::fs::write(
        dir2.join("read.sp"),
        "def main = either (\\e -> \"error: \" ++ e) renderJson (parseJson (readFile \"bad.json\"))\n",
    )
    .unwrap();
    succeeds(
        &dir2,
        &["run", "read.sp"],
        "error: line 2, column 10: expected ident\n",
    );
}

/// Encodes `source` (in `dir`) to `out` with the binary.
fn encode(dir: &Path, source: &str, out: &str) {
    let o = run_in(dir, &["encode", source, "-o", out]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "spindle-workflow-cli-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn encoded_programs_run_and_the_kind_is_told_by_content() {
    let dir = scratch("encoded");
    std::fs::copy(
        tests_dir().join("examples/spec/data.sp"),
        dir.join("data.sp"),
    )
    .unwrap();
    std::fs::copy(examples().join("args.sp"), dir.join("args.sp")).unwrap();
    // Names say nothing: an encoded program named .sp, source named .pb.
    encode(&dir, "data.sp", "data-encoded.sp");
    std::fs::copy(dir.join("data.sp"), dir.join("source.pb")).unwrap();
    let want = std::fs::read_to_string(tests_dir().join("examples/spec/data.out")).unwrap();
    succeeds(&dir, &["run", "data.sp"], &want);
    succeeds(&dir, &["run", "data-encoded.sp"], &want);
    succeeds(&dir, &["run", "source.pb"], &want);
    // Arguments and --format json work on encoded programs too.
    encode(&dir, "args.sp", "args.bin");
    succeeds(
        &dir,
        &["run", "args.bin", "x", "--format", "json"],
        "[1,[\"x\"]]\n",
    );
    // hash agrees across the three; decode needs an encoded program.
    let h = stdout(&run_in(&dir, &["hash", "data.sp"]));
    assert_eq!(h.len(), 65);
    assert_eq!(stdout(&run_in(&dir, &["hash", "data-encoded.sp"])), h);
    assert_eq!(stdout(&run_in(&dir, &["hash", "source.pb"])), h);
    let out = run_in(&dir, &["decode", "data-encoded.sp"]);
    assert!(stdout(&out).contains("def main"), "{}", stderr(&out));
    check_error_output(
        &run_in(&dir, &["decode", "data.sp"]),
        "cannot decode data.sp",
    )
    .unwrap();
    // A truncated encoding is an error, from every command.
    let bytes = std::fs::read(dir.join("data-encoded.sp")).unwrap();
    std::fs::write(dir.join("cut.pb"), &bytes[..bytes.len() / 2]).unwrap();
    for cmd in ["run", "hash", "decode", "check"] {
        let out = run_in(&dir, &[cmd, "cut.pb"]);
        if cmd == "check" {
            // `check` reads source only: the bytes are not valid source.
            check_error_output(&out, "cut.pb").unwrap();
        } else {
            check_error_output(&out, "cannot decode cut.pb").unwrap();
        }
    }
}

#[test]
fn ill_typed_encoded_programs_are_refused() {
    // An encoding that decodes (every index in range) but does not type-check: `main`
    // declared `Int` with a `String` body.
    let loaded = spindle::driver::load_text("ill.sp", "def main : Int = 1\n");
    let mut program = loaded.program.expect("checks");
    let main = program.main.expect("main").0 as usize;
    program.defs[main].body =
        spindle::core::term::Term::Lit(spindle::core::term::Lit::Str("one".into())).rc();
    let counts = spindle::proto::prelude_counts(&loaded.sources, &program);
    let bytes = spindle::proto::encode::program_bytes(&program, counts);
    let dir = scratch("ill");
    std::fs::write(dir.join("ill.pb"), bytes).unwrap();
    for cmd in ["run", "decode", "hash"] {
        let out = run_in(&dir, &[cmd, "ill.pb"]);
        check_error_output(
            &out,
            "ill.pb is an encoded program that does not type-check\ntype mismatch",
        )
        .unwrap_or_else(|why| panic!("{cmd}: {why}"));
        assert!(out.stdout.is_empty(), "{cmd}: {}", stdout(&out));
    }
}

#[test]
fn encode_to_standard_output() {
    let dir = scratch("stdout");
    std::fs::copy(
        tests_dir().join("examples/spec/hello.sp"),
        dir.join("hello.sp"),
    )
    .unwrap();
    encode(&dir, "hello.sp", "hello.pb");
    let out = run_in(&dir, &["encode", "hello.sp", "-o", "-"]);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        stderr(&out)
    );
    assert_eq!(out.stdout, std::fs::read(dir.join("hello.pb")).unwrap());
    assert_eq!(out.stdout[0], spindle::driver::ENCODED_MARKER);
    // An ill-typed program writes nothing, to a file or to standard output.
    std::fs::write(dir.join("bad.sp"), "def main : Int = \"x\"\n").unwrap();
    let out = run_in(&dir, &["encode", "bad.sp", "-o", "-"]);
    check_error_output(&out, "bad.sp:1:18").unwrap();
    assert!(out.stdout.is_empty());
}
