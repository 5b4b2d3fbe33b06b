//! End-to-end tests of the REPL: the real `spindle` binary driven through a
//! pseudo-terminal (`rexpect`), as a person at a terminal would drive it. Every wait
//! has a timeout, so a hung REPL fails the test instead of hanging the run.

use rexpect::session::{PtySession, spawn_command};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long any one expected output may take.
const TIMEOUT_MS: u64 = 20_000;

/// A scratch directory for one test (history file, programs).
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spindle-repl-pty-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts `spindle` (with `args`) on a pseudo-terminal, its history under `dir`, and
/// waits for the first prompt.
fn start(dir: &Path, args: &[&str]) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spindle"));
    cmd.args(args)
        .current_dir(dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("HOME", dir)
        .env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(TIMEOUT_MS)).expect("spawn spindle");
    expect(&mut p, "spindle> ");
    p
}

/// Waits for `text` in the output, failing the test on a timeout or an early exit.
fn expect(p: &mut PtySession, text: &str) {
    if let Err(e) = p.exp_string(text) {
        panic!("waiting for {text:?}: {e}");
    }
}

/// Types a line (Enter included).
fn send(p: &mut PtySession, line: &str) {
    p.send_line(line).expect("send");
    p.flush().expect("flush");
}

/// Ctrl-D at the prompt, then the REPL must exit.
///
/// A key typed while the REPL is between two prompts (printing a result, with the
/// terminal not yet back in raw mode) can be lost in the terminal driver, as it can
/// for a person typing; so Ctrl-D is sent again if the REPL is still running two
/// seconds later (a few times at most).
fn quit(mut p: PtySession) {
    for _ in 0..5 {
        p.send_control('d').expect("ctrl-d");
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_secs(2) {
            if !matches!(
                p.process().status(),
                Some(rexpect::process::WaitStatus::StillAlive)
            ) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    panic!("the REPL did not exit on Ctrl-D");
}

#[test]
fn multi_line_definition_type_and_history() {
    let dir = scratch("multi");
    let mut p = start(&dir, &[]);
    send(&mut p, "def add (x : Int) (y : Int) : Int =");
    send(&mut p, "  x + y");
    // A declaration answers with its type: wait for it before typing on (what is
    // typed while the line editor is still finishing the line would be lost).
    expect(&mut p, "add : Int -> Int -> Int");
    send(&mut p, "add 2 3");
    expect(&mut p, "5 : Int");
    send(&mut p, ":type add");
    expect(&mut p, "add : Int -> Int -> Int");
    send(&mut p, ":type [add 1 2]");
    expect(&mut p, ": List Int");
    send(&mut p, "def add (x : Int) (y : Int) : Int = x * y");
    expect(&mut p, "`add` redefined");
    expect(&mut p, "add : Int -> Int -> Int");
    send(&mut p, "add 2 3");
    expect(&mut p, "6 : Int");
    quit(p);
    let history = std::fs::read_to_string(dir.join("data/spindle/history")).expect("history file");
    assert!(history.contains("add 2 3"), "{history}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_error_then_a_good_input() {
    let dir = scratch("error");
    let mut p = start(&dir, &[]);
    send(&mut p, "1 + \"a\"");
    expect(&mut p, "error: <repl>:1:5: type mismatch");
    send(&mut p, "1 / 0");
    expect(&mut p, "division by zero");
    send(&mut p, "2 * 21");
    expect(&mut p, "42 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn load_and_reload_a_file_that_changed() {
    let dir = scratch("load");
    let file = dir.join("lib.sp");
    std::fs::write(&file, "def answer : Int = 41\n").unwrap();
    let mut p = start(&dir, &[]);
    send(&mut p, ":load lib.sp");
    expect(&mut p, "loaded ");
    send(&mut p, "answer + 1");
    expect(&mut p, "42 : Int");
    std::fs::write(&file, "def answer : Int = 99\n").unwrap();
    send(&mut p, ":reload");
    expect(&mut p, "reloaded ");
    send(&mut p, "answer + 1");
    expect(&mut p, "100 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_given_on_the_command_line_is_loaded() {
    let dir = scratch("arg");
    std::fs::write(dir.join("prog.sp"), "def main = 7\ndef seven = 7\n").unwrap();
    let mut p = start(&dir, &["repl", "prog.sp"]);
    send(&mut p, "seven * 6");
    expect(&mut p, "42 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_interrupts_an_endless_evaluation() {
    let dir = scratch("ctrlc");
    let mut p = start(&dir, &[]);
    send(&mut p, "def base = 40");
    expect(&mut p, "base : Int");
    send(&mut p, "length (iterate (\\x -> x + 1) 0)");
    // Give the REPL time to leave the line editor and start evaluating.
    std::thread::sleep(Duration::from_millis(1500));
    p.send_control('c').expect("ctrl-c");
    expect(&mut p, "interrupted");
    expect(&mut p, "spindle> ");
    send(&mut p, "base + 2");
    expect(&mut p, "42 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn quit_command_and_help() {
    let dir = scratch("quit");
    let mut p = start(&dir, &[]);
    send(&mut p, ":help");
    expect(&mut p, ":reload");
    send(&mut p, ":quit");
    if let Err(e) = p.exp_eof() {
        panic!("the REPL did not exit on :quit: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
