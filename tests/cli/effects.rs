//! End to end through `target/release/spindle` (issue 11, LANGUAGE.md 7 and 9): effects
//! happen only when a sequential run would perform them (checked on the file system and
//! in the process table), errors name the user's line, the concurrency limits hold
//! (counted from the tools themselves and from the trace), and `main` is streamed.

use crate::e2e_common;

use e2e_common::*;
use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

#[test]
fn an_effect_on_a_branch_not_taken_is_never_performed() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write("precious.txt", "keep me\n");
        // The condition waits, so a parallel run has time to look at the other branch.
        wf.write(
            "wf.sp",
            "def check : Bool = delay 300 (fileExists \"precious.txt\")\n\
             def main = let c = shell \"rm -f precious.txt; echo removed\" in if check then \"kept\" else c\n",
        );
        let out = wf.run_mode(mode, &["wf.sp"]);
        assert_eq!(ok(&out), "kept\n", "{mode:?}");
        assert_eq!(wf.read("precious.txt"), "keep me\n", "{mode:?}");
        // And the branch that is taken is performed.
        std::fs::remove_file(wf.file("precious.txt")).unwrap();
        wf.write("precious.txt", "");
        wf.write(
            "wf2.sp",
            "def main = let c = shell \"rm -f precious.txt; echo removed\" in if delay 100 False then \"kept\" else c\n",
        );
        let out = wf.run_mode(mode, &["wf2.sp"]);
        assert_eq!(ok(&out), "removed\n\n", "{mode:?}");
        assert!(!wf.exists("precious.txt"), "{mode:?}");
    }
}

#[test]
fn an_unneeded_let_bound_write_writes_nothing() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def main : String =\n  let w = writeFile \"unneeded.txt\" \"x\" in\n  let v = writeFile \"needed.txt\" \"y\" in\n  delay 300 v\n",
        );
        let out = wf.run_mode(mode, &["wf.sp"]);
        assert_eq!(ok(&out), "needed.txt\n", "{mode:?}");
        assert!(
            !wf.exists("unneeded.txt"),
            "{mode:?}: the unneeded file was written"
        );
        assert_eq!(wf.read("needed.txt"), "y", "{mode:?}");
    }
}

#[test]
fn take_drops_the_effects_of_the_elements_it_drops() {
    for mode in MODES {
        let wf = Wf::new();
        std::fs::create_dir(wf.file("out")).unwrap();
        wf.write(
            "wf.sp",
            "def main = take 2 (map (\\i -> writeFile (\"out/f\" ++ showInt i ++ \".txt\") \"x\") (range 0 10))\n",
        );
        let out = wf.run_mode(mode, &["wf.sp"]);
        assert_eq!(ok(&out), "[\"out/f0.txt\", \"out/f1.txt\"]\n", "{mode:?}");
        let mut written: Vec<String> = std::fs::read_dir(wf.file("out"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        written.sort();
        assert_eq!(written, ["f0.txt", "f1.txt"], "{mode:?}");
    }
}

#[test]
fn an_unneeded_process_is_never_started() {
    for mode in MODES {
        let wf = Wf::new();
        let word = format!("7.{}", unique());
        wf.write(
            "wf.sp",
            &format!(
                "def main : String =\n  let s = run \"sleep\" [\"{word}\"] in\n  let t = shell \"sleep {word}\" in\n  delay 1500 \"done\"\n"
            ),
        );
        let mut child = wf.spawn_mode(mode, &["wf.sp"]);
        let mut seen = false;
        while child.try_wait().unwrap().is_none() {
            seen |= !procs_with_arg(&word).is_empty();
            std::thread::sleep(Duration::from_millis(25));
        }
        let out = child.wait_with_output().unwrap();
        seen |= !procs_with_arg(&word).is_empty();
        kill_leftovers(&word);
        assert_eq!(ok(&out), "done\n", "{mode:?}");
        assert!(!seen, "{mode:?}: `sleep {word}` was started");
    }
}

/// Runs `program` as `wf.sp` in `mode`, which must fail (exit status 1).
fn run_failing(mode: &[&str], program: &str) -> std::process::Output {
    let wf = Wf::new();
    wf.write("wf.sp", program);
    let out = wf.run_mode(mode, &["wf.sp"]);
    assert_eq!(out.status.code(), Some(1), "{mode:?}: {}", stderr(&out));
    out
}

/// The error report of a failing call made through a prelude function: the user's
/// file and the line of the call, the command as a shell would quote it, the status
/// and the last 20 lines of its standard error; no prelude place.
fn check_failure_report(err: &str, line: u32, what: &str) {
    assert!(err.starts_with("error"), "{what}: {err}");
    assert!(
        err.contains(&format!("wf.sp:{line}:")),
        "{what}: the report does not name wf.sp:{line}:\n{err}"
    );
    assert!(!err.contains("prelude"), "{what}: a prelude place\n{err}");
    assert!(
        err.contains("`sh -c '[ $0 = 0 ] || for i in $(seq 1 30); do echo \"complaint $i\" >&2; done; exit $0' 3`"),
        "{what}: the quoted command\n{err}"
    );
    assert!(err.contains("status 3"), "{what}: the status\n{err}");
    assert!(err.contains("complaint 30"), "{what}: the last line\n{err}");
    assert!(
        err.contains("complaint 11\n"),
        "{what}: the 20th line from the end\n{err}"
    );
    assert!(
        !err.contains("complaint 10\n"),
        "{what}: more than 20 lines\n{err}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
}

const FAILING_STEP: &str = "def step (i : Int) : String =\n  \
     run \"sh\" [\"-c\", \"[ $0 = 0 ] || for i in $(seq 1 30); do echo \\\"complaint $i\\\" >&2; done; exit $0\", showInt (if i == 2 then 3 else 0)]\n";

#[test]
fn a_call_failing_inside_map_is_reported_at_the_users_line() {
    for mode in MODES {
        // The call is written on line 2, inside `step`, which `map` calls.
        let out = run_failing(
            mode,
            &format!("{FAILING_STEP}def main = map step (range 0 4)\n"),
        );
        check_failure_report(&stderr(&out), 2, &format!("map {mode:?}"));
    }
}

#[test]
fn a_call_failing_inside_foldr_is_reported_at_the_users_line() {
    for mode in MODES {
        // The call is written on line 3, in the lambda `foldr` applies.
        let out = run_failing(
            mode,
            "def main : String =\n  foldr (\\i acc ->\n    run \"sh\" [\"-c\", \"[ $0 = 0 ] || for i in $(seq 1 30); do echo \\\"complaint $i\\\" >&2; done; exit $0\", showInt (if i == 2 then 3 else 0)] ++ acc) \"\" (range 0 4)\n",
        );
        check_failure_report(&stderr(&out), 3, &format!("foldr {mode:?}"));
    }
}

#[test]
fn a_failing_call_names_the_users_file_and_the_command() {
    // The parts of the report that do not depend on which line is named.
    for mode in MODES {
        let out = run_failing(
            mode,
            &format!("{FAILING_STEP}def main = map step (range 0 4)\n"),
        );
        let err = stderr(&out);
        assert!(err.starts_with("error: wf.sp:"), "{mode:?}: {err}");
        assert!(!err.contains("prelude"), "{mode:?}: {err}");
        assert!(err.contains("exited with status 3"), "{mode:?}: {err}");
        assert!(err.contains("complaint 30"), "{mode:?}: {err}");
        assert!(!err.contains("complaint 10\n"), "{mode:?}: {err}");
        // What was printed before the failure stays printed.
        assert!(
            stdout(&out).starts_with("[\"\", \"\""),
            "{mode:?}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn a_successful_tools_standard_error_is_passed_through() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def main = map (\\i -> shell (\"echo note-\" ++ showInt i ++ \" >&2; echo out-\" ++ showInt i)) (range 0 3)\n",
        );
        let out = wf.run_mode(mode, &["wf.sp"]);
        assert_eq!(
            ok(&out),
            "[\"out-0\\n\", \"out-1\\n\", \"out-2\\n\"]\n",
            "{mode:?}"
        );
        let err = stderr(&out);
        for i in 0..3 {
            assert!(err.contains(&format!("note-{i}\n")), "{mode:?}: {err}");
        }
        assert!(!stdout(&out).contains("note"), "{mode:?}");
    }
}

/// The most tools running at once, from the `start`/`end` lines they append to `log`.
fn most_at_once(log: &str) -> usize {
    let (mut now, mut best) = (0usize, 0usize);
    for l in log.lines() {
        if l.starts_with("start") {
            now += 1;
            best = best.max(now);
        } else if l.starts_with("end") {
            now -= 1;
        }
    }
    best
}

#[test]
fn jobs_bounds_the_processes_running_at_once() {
    let prog = "def tool (i : Int) : String =\n  \
        run \"sh\" [\"-c\", \"echo start $0 >> log; sleep 0.3; echo end $0 >> log; echo $0\", showInt i]\n\
        def main = map tool (range 0 8)\n";
    let want = "[\"0\\n\", \"1\\n\", \"2\\n\", \"3\\n\", \"4\\n\", \"5\\n\", \"6\\n\", \"7\\n\"]\n";
    for (jobs, expect) in [("1", 1), ("2", 2), ("3", 3)] {
        let wf = Wf::new();
        wf.write("wf.sp", prog);
        let out = wf.run(&["--jobs", jobs, "wf.sp"]);
        assert_eq!(ok(&out), want);
        let log = wf.read("log");
        assert_eq!(log.lines().count(), 16, "{log}");
        assert_eq!(most_at_once(&log), expect, "--jobs {jobs}:\n{log}");
    }
    // Without a limit that low, all eight run together.
    let wf = Wf::new();
    wf.write("wf.sp", prog);
    assert_eq!(ok(&wf.run(&["wf.sp"])), want);
    assert!(most_at_once(&wf.read("log")) > 3, "{}", wf.read("log"));
}

#[test]
fn io_jobs_bounds_the_waiting_calls_in_flight() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main = sum (map (\\i -> delay 300 i) (range 0 9))\n",
    );
    let trace_of = |jobs: &str| {
        let t = wf.file(format!("trace-{jobs}.tsv").as_str());
        let out = wf.run(&["--io-jobs", jobs, "--trace", t.to_str().unwrap(), "wf.sp"]);
        assert_eq!(ok(&out), "36\n");
        let lines = trace(&t);
        assert_eq!(lines.len(), 9, "{lines:?}");
        max_overlap(
            &lines
                .iter()
                .map(|l| (l.start_ms, l.duration_ms))
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(trace_of("3"), 3);
    assert_eq!(trace_of("1"), 1);
    assert!(trace_of("100") > 3);
}

#[test]
fn a_string_main_is_streamed_line_by_line() {
    for mode in MODES {
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def main : String = unlines [shell \"printf first\", shell \"sleep 2; touch slow.done; printf second\"]\n",
        );
        let mut child = wf.spawn_mode(mode, &["wf.sp"]);
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        assert_eq!(first, "first\n", "{mode:?}");
        // The slow call has not finished when the first line is out.
        assert!(!wf.exists("slow.done"), "{mode:?}: printed only at the end");
        assert!(child.try_wait().unwrap().is_none(), "{mode:?}");
        let mut rest = String::new();
        reader.read_to_string(&mut rest).unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "{mode:?}");
        assert_eq!(rest, "second\n\n", "{mode:?}");
        assert!(wf.exists("slow.done"));
    }
}

#[test]
fn what_was_printed_stays_printed_when_a_later_step_fails() {
    for mode in MODES {
        let out = run_failing(
            mode,
            "def main : String = unlines [shell \"printf first\", shell \"printf second\", shell \"sleep 0.3; echo broken >&2; exit 5\"]\n",
        );
        assert_eq!(stdout(&out), "first\nsecond\n", "{mode:?}");
        let err = stderr(&out);
        assert!(err.contains("exited with status 5"), "{mode:?}: {err}");
        assert!(err.contains("broken"), "{mode:?}: {err}");
    }
}

#[test]
fn the_elements_of_a_printed_list_run_at_once() {
    // Streaming a list must not serialise its calls: `[a, b, c]` as `main` starts all
    // three tools before any ends (counted from the tools' own log).
    for prog in [
        "def t (i : Int) : String = run \"sh\" [\"-c\", \"echo start >> log; sleep 0.5; echo end >> log\", showInt i]\n\
         def main = map t (range 0 3)\n",
        "def t (i : Int) : String = run \"sh\" [\"-c\", \"echo start >> log; sleep 0.5; echo end >> log\", showInt i]\n\
         def main = [t 0, t 1, t 2]\n",
    ] {
        let wf = Wf::new();
        wf.write("wf.sp", prog);
        assert_eq!(ok(&wf.run(&["wf.sp"])), "[\"\", \"\", \"\"]\n");
        let log = wf.read("log");
        assert_eq!(most_at_once(&log), 3, "{prog}\n{log}");
    }
}

#[test]
fn independent_tools_run_at_once_however_the_program_is_phrased() {
    // LANGUAGE.md 7.3: the operands of `++`, and a `map` inside a string function,
    // start all their tools before any ends.
    let tool = "def t (i : Int) : String = run \"sh\" [\"-c\", \"echo start >> log; sleep 0.5; echo end >> log; echo $0\", showInt i]\n";
    for (main, printed) in [
        ("def main : String = t 0 ++ t 1 ++ t 2\n", "0\n1\n2\n\n"),
        (
            "def main : String = concatStrings (map t (range 0 3))\n",
            "0\n1\n2\n\n",
        ),
    ] {
        let wf = Wf::new();
        let prog = format!("{tool}{main}");
        wf.write("wf.sp", &prog);
        assert_eq!(ok(&wf.run(&["wf.sp"])), printed, "{prog}");
        let log = wf.read("log");
        assert_eq!(most_at_once(&log), 3, "{prog}\n{log}");
    }
}

/// Issue 26: effect calls behind strict evaluation (a fold's accumulator, `sum`,
/// `length (filter ...)`, `sortBy`, `lookup`, `concatMap`, `++` of mapped lists, a
/// Maybe chain) all start at once, and a parallel run makes exactly the calls the
/// sequential run makes (counted from the tools' own log).
#[test]
fn effect_calls_behind_strict_evaluation_start_at_once_and_match_the_sequential_run() {
    let tool = "def job (i : Int) : Int = strLength (run \"sh\" [\"-c\", \"echo start $0 >> log; sleep 0.25; echo end >> log; echo $0\", showInt i])\n\
                def go (i : Int) (acc : Int) : Int = if i <= 0 then acc else go (i - 1) (acc + job i)\n";
    for (main, at_once) in [
        ("def main : Int = sum (map job (range 0 12))\n", 12),
        ("def main : Int = go 8 0\n", 8),
        (
            "def main : Int = foldl (\\acc x -> acc + job x) 0 (range 0 6)\n",
            6,
        ),
        (
            "def main : Int = length (filter (\\x -> x > 1) (map job (range 0 7)))\n",
            7,
        ),
        // The middle element's comparison waits for the head of the merged right
        // half: before that it is not certainly needed (were the half empty, it
        // would never be compared).
        (
            "def main : Int = sum (take 2 (sortBy (\\a b -> a <= b) (map job (range 0 5))))\n",
            4,
        ),
        (
            "def main : Int = fromMaybe 0 (lookup 2 (map (\\x -> (job x, x)) (range 0 6)))\n",
            1,
        ),
        (
            "def main : Int = sum (concatMap (\\x -> [job x, x]) (range 0 5))\n",
            5,
        ),
        (
            "def main : Int = sum (map job (range 0 4) ++ map job (range 4 8))\n",
            8,
        ),
        (
            "def main : Int = fromMaybe 0 (match Just (job 1) with | Just v -> Just (v + job 2) | Nothing -> Nothing)\n",
            2,
        ),
        // The spine itself waits for calls: `length` and `sortBy` walk it to its end,
        // so every element's list is certainly needed at once (a spine walk).
        (
            "def main : Int = length (concatMap (\\x -> if job x > 0 then [x, x] else []) (range 0 5))\n",
            5,
        ),
        (
            "def main : Int = sum (take 2 (sortBy (\\a b -> a >= b) (concatMap (\\x -> if job x > 0 then [x] else []) (range 0 6))))\n",
            6,
        ),
        (
            "def main : Int = length (map (\\x -> x + 1) (concatMap (\\x -> if job x > 0 then [x] else []) (range 0 4) ++ concatMap (\\x -> if job x > 5 then [x] else []) (range 4 8)))\n",
            8,
        ),
        // A test on a call's result decides whether an element is kept, but the
        // rest is needed either way (both arms need it): every test starts at once,
        // under a consumer of the whole list and under the printer.
        (
            "def main : Int = sum (filter (\\x -> job x % 2 == 0) (range 0 8))\n",
            8,
        ),
        (
            "def main : List Int = filter (\\x -> job x > 1) (range 0 6)\n",
            6,
        ),
        (
            "def main : List Int = foldr (\\x acc -> if job x > 1 then Cons (x + job (x + 10)) acc else acc) [] (range 0 5)\n",
            5,
        ),
        // `foldr` walks its list to its end when its function needs the
        // accumulator (checked on the function the call passes), so the tests of
        // the filtered list start at once; one that does not need it walks no
        // further than the sequential run.
        (
            "def main : Int = foldr (\\x acc -> x + acc) 0 (filter (\\x -> job x > 1) (range 0 6))\n",
            6,
        ),
        (
            "def main : Int = foldr (\\x acc -> if x > 100 then acc else x) 0 (filter (\\x -> job x > 1) (range 0 6))\n",
            1,
        ),
        // The other operand of `+` in a fiber that was speculative when it first
        // parked, and is certain now.
        (
            "def main : Int = let n = job 1 + (job 2 + job 3) in foldr (\\x acc -> (n + x) + acc) 0 (take 1 (sortBy (\\a b -> a <= b) (map job [4, 5])))\n",
            3,
        ),
    ] {
        let mut starts = Vec::new();
        for mode in MODES {
            let wf = Wf::new();
            let prog = format!("{tool}{main}");
            wf.write("wf.sp", &prog);
            let out = wf.run_mode(mode, &["wf.sp"]);
            assert!(out.status.success(), "{mode:?} {prog}: {}", stderr(&out));
            let log = wf.read("log");
            let mut s: Vec<String> = log
                .lines()
                .filter(|l| l.starts_with("start"))
                .map(str::to_string)
                .collect();
            s.sort();
            starts.push((s, most_at_once(&log), stdout(&out)));
        }
        // MODES: parallel first, then `--sequential`.
        let (par, seq) = (&starts[0], &starts[1]);
        assert_eq!(par.0, seq.0, "the same calls: {main}");
        assert_eq!(par.2, seq.2, "the same output: {main}");
        // `lookup` stops at the first match: its keys' calls go one at a time, in
        // the sequential order, as the keys are inspected (an effect call never
        // starts before it is certainly needed).
        assert!(par.1 >= at_once, "{main}: {} at once", par.1);
    }
}

/// A value every arm of a `match` needs is started while the test waits; but an arm
/// that fails (`error`) needs nothing, so a run that fails at the first test starts
/// no call the sequential run does not (counted from the tools' own log).
#[test]
fn an_arm_that_fails_makes_nothing_certain() {
    let job = "def job (i : Int) : Int = strLength (run \"sh\" [\"-c\", \"echo start $0 >> log; sleep 0.2; echo $0\", showInt i])\n";
    for (main, started) in [
        (
            "def main : List Int = foldr (\\x acc -> if job x > 1 then error \"boom\" else Cons x acc) [] (range 0 6)\n",
            "start 0\n",
        ),
        // A step that may fail is no reason to walk the list `foldr` folds.
        (
            "def main : Int = foldr (\\x acc -> if x > 2 then error \"boom\" else x + acc) 0 (filter (\\x -> job x > 1) (range 0 6))\n",
            "start 0\nstart 1\nstart 2\nstart 3\n",
        ),
    ] {
        let prog = format!("{job}{main}");
        for mode in MODES {
            let wf = Wf::new();
            wf.write("wf.sp", &prog);
            let out = wf.run_mode(mode, &["wf.sp"]);
            assert!(!out.status.success(), "{mode:?}");
            assert!(stderr(&out).contains("boom"), "{mode:?}: {}", stderr(&out));
            let mut log: Vec<String> = wf.read("log").lines().map(str::to_string).collect();
            log.sort();
            assert_eq!(log.join("\n") + "\n", started, "{mode:?} {main}");
        }
    }
}

/// Issue 26 and LANGUAGE.md 9: what the sequential run prints before an error, a
/// parallel run prints too, however the string is built.
#[test]
fn a_failing_run_prints_what_the_sequential_run_prints() {
    for (main, printed) in [
        (
            "def main = \"\" ++ (delay 10 \"e3\" ++ error \"boom\")\n",
            "e3",
        ),
        (
            "def main = \"x\" ++ (delay 10 \"e3\" ++ (delay 20 \"e4\" ++ error \"boom\"))\n",
            "xe3e4",
        ),
        (
            "def main = join \", \" [delay 10 \"a\", delay 5 \"b\", error \"boom\"]\n",
            "a, b, ",
        ),
    ] {
        for mode in MODES {
            let wf = Wf::new();
            wf.write("wf.sp", main);
            let out = wf.run_mode(mode, &["wf.sp"]);
            assert!(!out.status.success(), "{mode:?} {main}");
            assert_eq!(stdout(&out), printed, "{mode:?} {main}");
            assert!(stderr(&out).contains("boom"), "{mode:?} {main}");
        }
    }
}

/// Issue 26 and LANGUAGE.md 11: when a call fails, a parallel run makes the calls the
/// sequential run makes, plus only calls already running when the failure was known
/// (from the tools' own log: call 3 fails after 0.1 s, the others take 0.4 s, and the
/// second stage of each element would start after the failure).
#[test]
fn a_failing_call_adds_only_calls_already_running() {
    let tool = "def job (i : Int) : Int = strLength (run \"sh\" [\"-c\", \"echo start s1 $0 >> log; if [ $0 = 3 ]; then sleep 0.1; echo fail >> log; exit 1; fi; sleep 0.4; echo $0\", showInt i])\n\
                def job2 (i : Int) : Int = strLength (run \"sh\" [\"-c\", \"echo start s2 $0 >> log; sleep 0.1; echo $0\", showInt i])\n\
                def go (i : Int) (acc : Int) : Int = if i <= 0 then acc else go (i - 1) (acc + job2 (job i + i))\n";
    for main in [
        "def main : Int = sum (map (\\x -> job2 (job x + x)) (range 0 6))\n",
        "def main : Int = go 5 0\n",
        "def main : Int = foldl (\\acc x -> acc + job2 (job x + x)) 0 (range 0 6)\n",
        "def main : Int = sum (map (\\x -> job2 (job x + x)) (range 0 3) ++ map job (range 3 6))\n",
    ] {
        let mut logs = Vec::new();
        for mode in MODES {
            let wf = Wf::new();
            let prog = format!("{tool}{main}");
            wf.write("wf.sp", &prog);
            let out = wf.run_mode(mode, &["wf.sp"]);
            assert!(!out.status.success(), "{mode:?} {prog}");
            let err = stderr(&out);
            assert!(
                err.contains("exited with status 1"),
                "{mode:?} {prog}: {err}"
            );
            logs.push(wf.read("log"));
        }
        // MODES: parallel first, then `--sequential`.
        let (par, seq) = (&logs[0], &logs[1]);
        let seq_starts: Vec<&str> = seq.lines().filter(|l| l.starts_with("start")).collect();
        let fail_at = par
            .lines()
            .position(|l| l == "fail")
            .expect("the failing call ran");
        for (k, l) in par.lines().enumerate() {
            if l.starts_with("start") && !seq_starts.contains(&l) {
                assert!(
                    k < fail_at,
                    "{main}: `{l}` started after the failure\n{par}"
                );
            }
        }
        // And nothing starts after the failure in the parallel run at all.
        assert!(
            par.lines()
                .skip(fail_at)
                .all(|l| !l.starts_with("start s2")),
            "{main}: a second stage started after the failure\n{par}"
        );
    }
}
