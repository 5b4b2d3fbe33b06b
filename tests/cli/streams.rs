//! End to end through `target/release/spindle` (issue 28): streaming externals with real
//! processes and files. A consumer sees each line as the producer writes it; a consumer
//! that stops early stops the producer; a fast producer waits for a slow consumer;
//! a failing producer fails where the consumer reaches the end; a finished stream is
//! recorded and replayed by `--resume`, one cut short is not; `--sequential` prints the
//! same.

use crate::e2e_common;

use e2e_common::*;
use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

fn alive(pid: i32) -> bool {
    // Signal 0: only whether the process exists (a zombie counts until reaped).
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
}

#[test]
fn each_line_is_seen_before_the_producer_ends() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def main : String = unlines (map (\\l -> \"got \" ++ l) (shellLines \"echo first; sleep 2; touch slow.done; echo second\"))\n",
        );
        let started = Instant::now();
        let mut child = wf.spawn_mode(mode, &["wf.sp"]);
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        let first_at = started.elapsed();
        assert_eq!(first, "got first\n", "{mode:?}");
        assert!(!wf.exists("slow.done"), "{mode:?}: printed only at the end");
        assert!(
            first_at < Duration::from_millis(1500),
            "{mode:?}: {first_at:?}"
        );
        let mut rest = String::new();
        reader.read_to_string(&mut rest).unwrap();
        assert!(child.wait().unwrap().success(), "{mode:?}");
        assert_eq!(rest, "got second\n\n", "{mode:?}");
    }
}

#[test]
fn a_consumer_that_stops_early_stops_the_producer() {
    for mode in MODES {
        let wf = Wf::new();
        // `take 2` needs two lines; the run then waits 1.5 s more, during which the
        // producer (an endless loop) must already be gone.
        wf.write(
            "wf.sp",
            "def main : String = concatStrings (take 2 (shellLines \"echo $$ > pid; while true; do echo x; done\")) ++ delay 1500 \"!\"\n",
        );
        let mut child = wf.spawn_mode(mode, &["wf.sp"]);
        assert!(
            wait_until(Duration::from_secs(10), || wf.read_opt("pid").is_some()),
            "{mode:?}: the producer did not start"
        );
        let pid: i32 = wf.read("pid").trim().parse().unwrap();
        assert!(
            wait_until(Duration::from_millis(1200), || !alive(pid)),
            "{mode:?}: the producer still runs while the consumer is done with it"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "{mode:?}: ended too soon"
        );
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{mode:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "xx!\n", "{mode:?}");
    }
}

#[test]
fn a_fast_producer_waits_for_a_slow_consumer() {
    for mode in MODES {
        let wf = Wf::new();
        // The consumer reads the first line, then nothing for 1.5 s: with a buffer of 10
        // lines the producer must be held (the pipe fills), far short of its 100,000
        // lines of 1 KB.
        wf.write(
            "wf.sp",
            "def firstOr (xs : List String) : String = match xs with | Nil -> \"\" | Cons x _ -> x\n\
             def main : Int = let xs = shellLines \"for i in $(seq 1 100000); do printf '%s %01000d\\\\n' $i 0; echo $i >> count; done\" in after (firstOr xs) (length (take (delay 1500 20) xs))\n",
        );
        let child = wf.spawn_mode(mode, &["--stream-buffer", "10", "wf.sp"]);
        assert!(wait_until(Duration::from_secs(10), || wf
            .read_opt("count")
            .is_some()));
        std::thread::sleep(Duration::from_millis(800));
        // One line of `count` for each line written.
        let held = wf.read("count").lines().count();
        assert!(
            held < 1000,
            "{mode:?}: the producer wrote {held} lines while the consumer read 1"
        );
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{mode:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "20\n", "{mode:?}");
    }
}

#[test]
fn a_failing_producer_fails_where_the_consumer_reaches_the_end() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def main : String = unlines (shellLines \"echo a; echo b; echo oops >&2; exit 3\")\n",
        );
        let out = wf.run_mode(mode, &["wf.sp"]);
        assert_eq!(out.status.code(), Some(1), "{mode:?}");
        assert_eq!(
            stdout(&out),
            "a\nb\n",
            "{mode:?}: what was printed stays printed"
        );
        let err = stderr(&out);
        assert!(err.contains("wf.sp:1:30"), "{mode:?}: {err}");
        assert!(err.contains("exited with status 3"), "{mode:?}: {err}");
        assert!(err.contains("oops"), "{mode:?}: {err}");
    }
}

#[test]
fn a_process_killed_by_a_signal_is_an_error_naming_the_call() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def main : List String = runLines \"sh\" [\"-c\", \"echo one; kill -9 $$\"]\n",
        );
        let out = wf.run_mode(mode, &["wf.sp"]);
        assert_eq!(out.status.code(), Some(1), "{mode:?}");
        let err = stderr(&out);
        assert!(err.contains("killed by signal 9"), "{mode:?}: {err}");
        assert!(err.contains("sh -c"), "{mode:?}: {err}");
    }
}

#[test]
fn a_finished_stream_is_recorded_and_replayed_and_one_cut_short_is_not() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "whole.sp",
            "def main : List String = runLines \"sh\" [\"-c\", \"echo ran >> runs.txt; echo a; sleep 0.2; echo b\"]\n",
        );
        let first = wf.run_mode(mode, &["whole.sp"]);
        assert_eq!(ok(&first), "[\"a\", \"b\"]\n", "{mode:?}");
        let again = wf.run_mode(mode, &["--resume", "--stats", "whole.sp"]);
        assert_eq!(ok(&again), "[\"a\", \"b\"]\n", "{mode:?}");
        assert_eq!(
            wf.read("runs.txt"),
            "ran\n",
            "{mode:?}: the stream ran again"
        );
        // Cut short by `take`: not recorded, so it runs again.
        wf.write(
            "cut.sp",
            "def main : List String = take 1 (runLines \"sh\" [\"-c\", \"echo ran >> cuts.txt; while true; do echo x; done\"])\n",
        );
        assert_eq!(ok(&wf.run_mode(mode, &["cut.sp"])), "[\"x\"]\n", "{mode:?}");
        assert_eq!(
            ok(&wf.run_mode(mode, &["--resume", "cut.sp"])),
            "[\"x\"]\n",
            "{mode:?}"
        );
        assert_eq!(wf.read("cuts.txt"), "ran\nran\n", "{mode:?}");
        // Only the finished stream keeps a spool file.
        assert_eq!(files_under(&wf.file("store/streams")).len(), 1, "{mode:?}");
        // Neither was a failure: nothing was moved aside.
        assert!(
            !wf.file("store/failed").exists() || files_under(&wf.file("store/failed")).is_empty()
        );
    }
}

#[test]
fn read_lines_reads_a_file_lazily_and_names_a_missing_one() {
    for mode in MODES {
        let wf = Wf::new();
        let mut text = String::new();
        for i in 0..100_000 {
            text.push_str(if i % 3 == 0 { "drop " } else { "keep " });
            text.push_str(&i.to_string());
            text.push('\n');
        }
        text.push_str("keep last, no newline");
        wf.write("data.txt", &text);
        wf.write(
            "wf.sp",
            "def main : Pair Int (List String) = (length (filter (startsWith \"keep\") (readLines \"data.txt\")), take 2 (readLines \"data.txt\"))\n",
        );
        assert_eq!(
            ok(&wf.run_mode(mode, &["wf.sp"])),
            "(66667, [\"drop 0\", \"keep 1\"])\n",
            "{mode:?}"
        );
        wf.write(
            "missing.sp",
            "def main : Int = length (readLines \"nope.txt\")\n",
        );
        let out = wf.run_mode(mode, &["missing.sp"]);
        assert_eq!(out.status.code(), Some(1), "{mode:?}");
        let err = stderr(&out);
        assert!(err.contains("readLines nope.txt"), "{mode:?}: {err}");
        assert!(err.contains("missing.sp:1:26"), "{mode:?}: {err}");
    }
}

#[test]
fn calls_start_per_line_as_the_lines_arrive() {
    let wf = Wf::new();
    // Each line starts a 1 s call; the lines come 0.3 s apart. One at a time would take
    // 3.6 s; started as each line arrives, about 1.6 s.
    wf.write(
        "wf.sp",
        "def main : String = unlines (map (\\l -> shell (\"sleep 1; echo done \" ++ l)) (shellLines \"for i in 1 2 3; do echo $i; sleep 0.3; done\"))\n",
    );
    let started = Instant::now();
    let out = wf.run(&["wf.sp"]);
    let took = started.elapsed();
    assert_eq!(ok(&out), "done 1\n\ndone 2\n\ndone 3\n\n\n");
    assert!(took < Duration::from_millis(2800), "{took:?}");
}

#[test]
fn stream_lines_regroups_chunks_into_lines() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : List String = streamLines [\"ab\", \"c\\nd\", \"\", \"\\n\\ne\", \"f\\n\", \"g\"]\n",
    );
    assert_eq!(
        ok(&wf.run(&["wf.sp"])),
        "[\"abc\", \"d\", \"\", \"ef\", \"g\"]\n"
    );
    // Lazily: the first line is there before the chunks end.
    wf.write(
        "lazy.sp",
        "def main : String = match streamLines (Cons \"one\\ntw\" (error \"not needed\")) with | Cons l _ -> l | Nil -> \"\"\n",
    );
    assert_eq!(ok(&wf.run(&["lazy.sp"])), "one\n");
}

#[test]
fn a_string_built_around_a_stream_prints_as_each_piece_is_known() {
    for mode in MODES {
        let wf = Wf::new();
        // `++` and `unlines` (a `join` behind a call) around a stream: the first line
        // is out before the producer has ended.
        wf.write(
            "wf.sp",
            "def main : String = \"Answer: \" ++ unlines (shellLines \"echo a; sleep 1.5; touch slow.done; echo b\")\n",
        );
        let mut child = wf.spawn_mode(mode, &["wf.sp"]);
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        assert_eq!(first, "Answer: a\n", "{mode:?}");
        assert!(!wf.exists("slow.done"), "{mode:?}: printed only at the end");
        let mut rest = String::new();
        reader.read_to_string(&mut rest).unwrap();
        assert!(child.wait().unwrap().success(), "{mode:?}");
        assert_eq!(rest, "b\n\n", "{mode:?}");
    }
}

#[test]
fn a_string_inside_a_printed_value_streams_between_its_quotes() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def main : List String = [concatStrings (shellLines \"echo 'a\\\"'; sleep 1.5; touch slow.done; echo b\"), \"x\"]\n",
        );
        let mut child = wf.spawn_mode(mode, &["wf.sp"]);
        let mut out = child.stdout.take().unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 64];
        while !String::from_utf8_lossy(&got).contains("a\\\"") {
            let n = out.read(&mut buf).unwrap();
            assert!(n > 0, "{mode:?}: ended early");
            got.extend_from_slice(&buf[..n]);
        }
        assert!(!wf.exists("slow.done"), "{mode:?}: printed only at the end");
        out.read_to_end(&mut got).unwrap();
        assert!(child.wait().unwrap().success(), "{mode:?}");
        assert_eq!(
            String::from_utf8_lossy(&got),
            "[\"a\\\"b\", \"x\"]\n",
            "{mode:?}"
        );
    }
}

/// A read of standard input uses the input up, so it starts only once certainly needed,
/// as an `effect` does: speculation never reads it (here it is needed only if a test
/// that comes out false had come out true).
#[test]
fn standard_input_is_never_read_speculatively() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : String = let s = readFile \"/dev/stdin\" in if delay 200 0 > 0 then s else \"no\"\n",
    );
    let (out, lines) = wf.traced("t", &["wf.sp"]);
    assert_eq!(ok(&out), "no\n");
    let externals: Vec<&str> = lines.iter().map(|l| l.external.as_str()).collect();
    assert_eq!(externals, ["delay"], "{lines:?}");
}
