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

/// The REPL evaluates through the scheduler, as `spindle run` does: twenty independent
/// waits of 200 ms overlap (four seconds one after another).
#[test]
fn independent_calls_typed_at_the_prompt_run_in_parallel() {
    let dir = scratch("fanout");
    let mut p = start(&dir, &[]);
    let started = std::time::Instant::now();
    send(&mut p, "sum (map (\\x -> delay 200 x) (range 0 20))");
    expect(&mut p, "190 : Int");
    let took = started.elapsed();
    // Loose on purpose (a busy machine is slow): the critical path is 200 ms.
    assert!(took < Duration::from_secs(1), "{took:?}");
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

#[test]
fn browse_and_info() {
    let dir = scratch("browse");
    let mut p = start(&dir, &[]);
    send(&mut p, "data Shape = Circle Float | Square Float");
    expect(&mut p, "Square : Float -> Shape");
    send(&mut p, ":info Shape");
    expect(&mut p, "data Shape : Type");
    expect(&mut p, "-- defined in this session");
    expect(&mut p, "Circle : Float -> Shape");
    send(&mut p, ":info map");
    expect(
        &mut p,
        "map : {a : Type} -> {b : Type} -> (a -> b) -> List a -> List b",
    );
    expect(&mut p, "-- defined at <prelude>/list.sp:");
    send(&mut p, ":info nope");
    expect(&mut p, "error: `nope` is not in scope");
    send(&mut p, ":browse");
    expect(&mut p, "-- this session");
    expect(&mut p, "Shape : Type");
    expect(&mut p, "-- the prelude");
    expect(&mut p, "parseJson : String -> Either String Json");
    send(&mut p, "1 + 1");
    expect(&mut p, "2 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn it_doc_comments_and_definitions_without_def() {
    let dir = scratch("it");
    let mut p = start(&dir, &[]);
    send(&mut p, "1 + 2");
    expect(&mut p, "3 : Int");
    send(&mut p, "it * 10");
    expect(&mut p, "30 : Int");
    // A comment line continues into the definition typed on the next line, which it
    // documents.
    send(&mut p, "-- Doubles a number.");
    send(&mut p, "double (n : Int) = n * 2");
    expect(&mut p, "double : Int -> Int");
    send(&mut p, ":doc double");
    expect(&mut p, "double : Int -> Int\r\n  Doubles a number.");
    send(&mut p, "double it");
    expect(&mut p, "60 : Int");
    send(&mut p, ":doc try");
    expect(&mut p, "try : {a : Type} -> a -> Either String a");
    expect(&mut p, "`try x` evaluates `x` to normal form");
    send(&mut p, ":doc nope");
    expect(&mut p, "error: `nope` is not in scope");
    send(&mut p, "x = it + 1");
    expect(&mut p, "x : Int");
    send(&mut p, "x == 61");
    expect(&mut p, "True : Bool");
    send(&mut p, ":type (x, \"a\", [Just (1, 2)])");
    expect(&mut p, ": (Int, String, List (Maybe (Int, Int)))");
    send(&mut p, "def bad : Int = (1, \"a\")");
    expect(&mut p, "expected `Int`, found `(Int, String)`");
    // Everything up to the next prompt is the listing.
    expect(&mut p, "spindle> ");
    send(&mut p, ":browse");
    let text = match p.exp_string("spindle> ") {
        Ok(text) => text,
        Err(e) => panic!("waiting for the end of :browse: {e}"),
    };
    let session = text.find("-- this session").expect("the session's names");
    let prelude = text.find("-- the prelude").expect("the prelude's names");
    assert!(session < prelude, "{text}");
    for name in ["double : Int -> Int", "x : Int", "it : Bool", "sortBy : "] {
        assert!(text.contains(name), "{name}: {text}");
    }
    for internal in ["prim_", "mergeSorted", "foldlRange", "parseJsonItems"] {
        assert!(!text.contains(internal), "{internal}: {text}");
    }
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes raw bytes to the terminal, as a keyboard or a paste would.
fn send_bytes(p: &mut PtySession, bytes: &[u8]) {
    use std::io::Write;
    let mut f = p.process().get_file_handle().expect("the terminal");
    f.write_all(bytes).expect("write");
    f.flush().expect("flush");
}

#[test]
fn invalid_utf8_typed_is_an_error_and_the_session_goes_on() {
    let dir = scratch("utf8");
    let mut p = start(&dir, &[]);
    send(&mut p, "def base = 40");
    expect(&mut p, "base : Int");
    send_bytes(&mut p, b"1 + \xff\xfe\r");
    expect(&mut p, "error: the input is not valid UTF-8");
    expect(&mut p, "spindle> ");
    send(&mut p, "base + 2");
    expect(&mut p, "42 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_multi_line_declaration_typed_or_pasted_keeps_every_arm() {
    let dir = scratch("paste");
    let mut p = start(&dir, &[]);
    // Line by line, as typed (or pasted into a terminal without bracketed paste): the
    // declaration is complete after the first arm, and the next, indented arm
    // continues it.
    send(&mut p, "def f (x : Int) : Int =");
    send(&mut p, "  match x with");
    send(&mut p, "  | 0 -> 10");
    expect(&mut p, "f : Int -> Int");
    send(&mut p, "  | _ -> 20");
    expect(&mut p, "f : Int -> Int");
    send(&mut p, "f 5");
    expect(&mut p, "20 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn piped_input_is_taken_as_typed() {
    // `cat data.sp - | spindle`: the multi-line declarations keep all their lines.
    use std::io::Write;
    use std::process::Stdio;
    let dir = scratch("piped");
    let mut child = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(&dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("HOME", &dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn spindle");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(
            b"def f (x : Int) : Int =\n  match x with\n  | 0 -> 10\n  | _ -> 20\n\n\
              data Color =\n    Red\n  | Green\n  | Blue\n\n\
              def name (c : Color) : String =\n  match c with\n  | Red -> \"red\"\n  | Green -> \"green\"\n  | Blue -> \"blue\"\n\
              (f 0, f 1)\n\xff\nmap name [Red, Green, Blue]\n:info Color\n",
        )
        .expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("spindle runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.ends_with(
            "f : Int -> Int\nColor : Type\nRed : Color\nGreen : Color\nBlue : Color\n\
             name : Color -> String\n(10, 20) : (Int, Int)\n\
             [\"red\", \"green\", \"blue\"] : List String\n\
             data Color : Type\n  -- defined in this session\n  Red : Color\n  Green : Color\n  Blue : Color\n"
        ),
        "{stdout}"
    );
    assert_eq!(
        stderr,
        "error: line 17 of the input: the input is not valid UTF-8 (the line is dropped)\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sum [0, 1, ..., 9, 0, 1, ...]` with `n` elements: a long line (3 bytes an element).
fn long_sum(n: usize) -> (String, usize) {
    let items: Vec<String> = (0..n).map(|i| (i % 10).to_string()).collect();
    let total = (0..n).map(|i| i % 10).sum();
    (format!("sum [{}]", items.join(", ")), total)
}

#[test]
fn a_pasted_80_kb_line_answers_promptly() {
    let dir = scratch("paste80");
    let mut p = start(&dir, &[]);
    let (line, total) = long_sum(26_800);
    assert!(line.len() > 80_000);
    // A terminal sends a paste between bracketed-paste marks (rustyline asks for them),
    // so the line editor takes it whole.
    let started = std::time::Instant::now();
    send_bytes(&mut p, format!("\x1b[200~{line}\x1b[201~\r").as_bytes());
    expect(&mut p, &format!("{total} : Int"));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{took:?}");
    send(&mut p, "1 + 1");
    expect(&mut p, "2 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_40_kb_line_typed_without_paste_marks_answers() {
    // Typed key by key (a terminal without bracketed paste), the line editor redraws
    // the whole line each time the cursor wraps at the right edge: the REPL's own time
    // stays small (well under a second for 40 KB), but it writes n^2/(2 x columns)
    // bytes, about 11 MB here, which whatever reads the terminal must take in.
    let dir = scratch("typed40");
    let mut p = start(&dir, &[]);
    let (line, total) = long_sum(13_400);
    assert!(line.len() > 40_000);
    let started = std::time::Instant::now();
    send_bytes(&mut p, format!("{line}\r").as_bytes());
    expect(&mut p, &format!("{total} : Int"));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(15), "{took:?}");
    send(&mut p, "1 + 1");
    expect(&mut p, "2 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The processes whose command line holds `marker`, from `/proc` (pid, command line).
fn processes_with(marker: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(marker) {
            found.push((pid, cmd));
        }
    }
    found
}

/// Waits up to `limit` for no process to hold `marker`; the ones left, if any.
fn gone_within(marker: &str, limit: Duration) -> Vec<(u32, String)> {
    let start = std::time::Instant::now();
    loop {
        let left = processes_with(marker);
        if left.is_empty() || start.elapsed() > limit {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Ctrl-C while a process call runs stops the evaluation at once and the process with
/// it (SIGTERM); one that ignores SIGTERM is killed two seconds later. The session
/// goes on.
#[test]
fn ctrl_c_stops_running_process_calls() {
    let dir = scratch("ctrlc-shell");
    let mut p = start(&dir, &[]);
    // Two calls: one that stops on SIGTERM, one that ignores it. Unique sleep lengths
    // tell them apart in the process table.
    send(
        &mut p,
        "shell \"sleep 31.25; echo a\" ++ shell \"trap '' TERM; sleep 32.75; echo b\"",
    );
    let start_wait = std::time::Instant::now();
    while processes_with("sleep 31.25").is_empty() || processes_with("sleep 32.75").is_empty() {
        assert!(
            start_wait.elapsed() < Duration::from_secs(10),
            "the calls did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let pressed = std::time::Instant::now();
    p.send_control('c').expect("ctrl-c");
    expect(&mut p, "interrupted");
    expect(&mut p, "spindle> ");
    let answered = pressed.elapsed();
    // The limit is 1 s; loose for a busy machine.
    assert!(answered < Duration::from_secs(3), "{answered:?}");
    let left = gone_within("sleep 31.25", Duration::from_secs(2));
    assert!(left.is_empty(), "still running after SIGTERM: {left:?}");
    // The one that ignores SIGTERM gets SIGKILL after the two seconds' grace.
    let left = gone_within("sleep 32.75", Duration::from_secs(6));
    assert!(left.is_empty(), "still running after SIGKILL: {left:?}");
    send(&mut p, "1 + 1");
    expect(&mut p, "2 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Lines typed while a call runs are not lost: each is taken at the next prompt.
#[test]
fn lines_typed_while_a_call_runs_are_kept() {
    let dir = scratch("typeahead");
    let mut p = start(&dir, &[]);
    send(&mut p, "shell \"sleep 1; echo first\"");
    std::thread::sleep(Duration::from_millis(300));
    send(&mut p, "20 + 3");
    send(&mut p, "\"x\" ++ \"y\"");
    expect(&mut p, "\"first\\n\" : String");
    expect(&mut p, "23 : Int");
    expect(&mut p, "\"xy\" : String");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ctrl-D on an empty continuation line drops the unfinished input; the session goes
/// on without it.
#[test]
fn ctrl_d_on_a_continuation_line_cancels_the_input() {
    let dir = scratch("ctrld-cont");
    let mut p = start(&dir, &[]);
    send(&mut p, "def pending (x : Int) : Int =");
    std::thread::sleep(Duration::from_millis(300));
    p.send_control('d').expect("ctrl-d");
    std::thread::sleep(Duration::from_millis(300));
    send(&mut p, "40 + 2");
    expect(&mut p, "42 : Int");
    send(&mut p, ":type pending");
    expect(&mut p, "unbound name `pending`");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `:load` of a device that never ends, of a file over 64 MB, of a directory and of
/// a file that is not text is refused at once; the session goes on.
#[test]
fn load_refuses_what_is_not_a_source_file() {
    let dir = scratch("load-refuse");
    let big = dir.join("big.sp");
    let f = std::fs::File::create(&big).unwrap();
    // Sparse: 65 MB that take no room on disk.
    f.set_len(65 * 1024 * 1024).unwrap();
    let binary = dir.join("binary.sp");
    std::fs::write(&binary, b"def x = 1\n\x00\x01").unwrap();
    let mut p = start(&dir, &[]);
    send(&mut p, ":load /dev/zero");
    expect(&mut p, "not a regular file");
    send(&mut p, &format!(":load {}", big.display()));
    expect(&mut p, "is too large");
    send(&mut p, &format!(":load {}", dir.display()));
    expect(&mut p, "it is a directory");
    send(&mut p, &format!(":load {}", binary.display()));
    expect(&mut p, "not text");
    send(&mut p, "1 + 1");
    expect(&mut p, "2 : Int");
    quit(p);
    let _ = std::fs::remove_dir_all(&dir);
}
