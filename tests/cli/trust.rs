//! Resume you can trust (issue 24), end to end through the real binary on the real file
//! system and process table: what a call read and wrote is observed, a deleted or
//! changed output reruns its call, failures are never reused, `--plan` is a dry run,
//! option typos are errors, and `--resume` stays fast when thousands of records answer
//! at once.

use crate::e2e_common;

use e2e_common::*;

/// `key: value` from `--stats` on standard error.
fn stat(o: &std::process::Output, key: &str) -> u64 {
    let err = stderr(o);
    err.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .unwrap_or_else(|| panic!("no {key} in\n{err}"))
        .trim()
        .parse()
        .unwrap()
}

const MANY_ECHOES: &str = "\
def n : Int = fromMaybe 0 (parseInt (fromMaybe \"0\" (nth 0 args)))
def main : Int = strLength (concatStrings (map (\\i -> run \"echo\" [showInt i]) (range 0 n)))
";

/// A `--resume` whose records all answer at once once made the scheduler fork a walk of
/// the rest of the list for every element it woke (steps grew with the square of the
/// list, and from about 1,500 calls memory ran away). The resumed run takes about as
/// many steps as the first.
#[test]
fn a_resume_answering_thousands_of_calls_at_once_takes_steps_in_proportion() {
    let wf = Wf::new();
    wf.write("wf.sp", MANY_ECHOES);
    let n = 2000u64;
    let first = wf.run(&["--stats", "wf.sp", "--", &n.to_string()]);
    let printed = ok(&first);
    for _ in 0..3 {
        let again = wf.run(&["--resume", "--stats", "wf.sp", "--", &n.to_string()]);
        assert_eq!(ok(&again), printed);
        let steps = stat(&again, "steps");
        assert!(
            steps < 60 * n,
            "{steps} steps for {n} reused calls (first run: {})",
            stat(&first, "steps")
        );
    }
}

/// A folder holding the README's sales workflow (`examples/sales`).
fn sales_wf() -> Wf {
    let wf = Wf::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sales");
    for f in ["sales.sp", "check.awk"] {
        std::fs::copy(root.join(f), wf.file(f)).unwrap();
    }
    std::fs::create_dir(wf.file("data")).unwrap();
    for e in std::fs::read_dir(root.join("data")).unwrap().flatten() {
        std::fs::copy(e.path(), wf.file("data").join(e.file_name())).unwrap();
    }
    wf
}

/// The commands of the trace lines with this status.
fn with_status(lines: &[TraceLine], status: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.status == status)
        .map(|l| l.command.clone())
        .collect()
}

/// Issue 24, 1: a step that makes its own output folder. Its outputs (the folder and
/// the files in it) are recorded, so deleting the folder runs the step again.
#[test]
fn a_step_that_makes_its_own_output_folder_runs_again_when_the_folder_is_deleted() {
    let wf = Wf::new();
    let big: String = (1..=35).map(|i| format!("{i}\n")).collect();
    wf.write("big.txt", &big);
    wf.write(
        "wf.sp",
        "def chunks : List String =\n  \
           after (shell \"mkdir -p chunks && split -l 10 big.txt chunks/part_\") (glob \"chunks/part_*\")\n\
         def main = (length chunks, chunks)\n",
    );
    let want =
        "(4, [\"chunks/part_aa\", \"chunks/part_ab\", \"chunks/part_ac\", \"chunks/part_ad\"])\n";
    assert_eq!(ok(&wf.run(&["wf.sp"])), want);
    let (again, t) = wf.traced("again", &["--resume", "wf.sp"]);
    assert_eq!(ok(&again), want);
    assert_eq!(
        with_status(&t, "ok"),
        ["'chunks/part_*'"].map(|g| format!("glob {g}"))
    );
    std::fs::remove_dir_all(wf.file("chunks")).unwrap();
    let (after, t) = wf.traced("after", &["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&after), want);
    assert!(
        stderr(&after).contains("split -l 10 big.txt chunks/part_: output missing: chunks"),
        "{}",
        stderr(&after)
    );
    assert_eq!(with_status(&t, "reused"), Vec::<String>::new());
    // One file of the folder gone: the same.
    std::fs::remove_file(wf.file("chunks/part_ab")).unwrap();
    let (after, _) = wf.traced("one", &["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&after), want);
    assert!(
        stderr(&after).contains("output missing: chunks/part_ab"),
        "{}",
        stderr(&after)
    );
}

/// Issue 24, 2: the README's workflow after `rm -rf out`: `mkdir -p out` runs again
/// (its folder is its output), and so does the report.
#[test]
fn the_sales_example_resumes_after_its_output_folder_is_deleted() {
    let wf = sales_wf();
    let first = ok(&wf.run(&["sales.sp", "--", "data", "out"]));
    let report = wf.read("out/report.json");
    std::fs::remove_dir_all(wf.file("out")).unwrap();
    let (again, t) = wf.traced(
        "again",
        &["--resume", "--explain", "sales.sp", "--", "data", "out"],
    );
    assert_eq!(ok(&again), first);
    assert_eq!(wf.read("out/report.json"), report);
    assert!(
        stderr(&again).contains("mkdir -p out: output missing: out"),
        "{}",
        stderr(&again)
    );
    // What the deleted folder did not reach was reused.
    assert_eq!(with_status(&t, "reused").len(), 6, "{t:?}");
}

/// Issue 24, 3: two calls running at once in one folder never claim each other's
/// files: the first `--resume` after a fresh run reuses both, and when one of them
/// fails, the other's file (written while it ran) stays whole where it is.
#[test]
fn two_calls_at_once_in_one_folder_never_claim_each_others_files() {
    let program = |reader_fails: bool| {
        format!(
            "def index : String = shell \"for i in 1 2 3 4 5; do echo part$i >> ref.fa.bwt; sleep 0.1; done; echo indexed\"\n\
             def faidx : String = shell \"cat ref.fa > ref.fa.fai; sleep 0.15; {}echo ok\"\n\
             def main = (index, try faidx)\n",
            if reader_fails { "exit 1; " } else { "" }
        )
    };
    let wf = Wf::new();
    wf.write("ref.fa", ">chr1\nACGT\n");
    wf.write("wf.sp", &program(false));
    ok(&wf.run(&["wf.sp"]));
    let (again, t) = wf.traced("again", &["--resume", "--explain", "wf.sp"]);
    ok(&again);
    assert_eq!(with_status(&t, "reused").len(), 2, "{}", stderr(&again));
    // The reader fails while the writer writes beside it.
    let wf = Wf::new();
    wf.write("ref.fa", ">chr1\nACGT\n");
    wf.write("wf.sp", &program(true));
    let out = ok(&wf.run(&["wf.sp"]));
    assert!(out.starts_with("(\"indexed\\n\", Left "), "{out}");
    assert_eq!(
        wf.read("ref.fa.bwt"),
        "part1\npart2\npart3\npart4\npart5\n",
        "the writer's file is whole and in place"
    );
    // The reader's own file was moved aside; nothing of the writer's was.
    assert!(!wf.exists("ref.fa.fai"));
    let failed: Vec<String> = files_under(&wf.file("store/failed"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(failed, ["ref.fa.fai"]);
}

/// Issue 24, 4: the target of a shell redirect is the step's output, not its input: the
/// first `--resume` after a run reuses it.
#[test]
fn a_redirect_target_is_an_output_not_an_input() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main = shell \"seq 1 4 > out.txt; wc -l < out.txt\"\n",
    );
    // A `String` main is printed raw, then a newline.
    assert_eq!(ok(&wf.run(&["wf.sp"])), "4\n\n");
    let (again, t) = wf.traced("again", &["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&again), "4\n\n");
    assert_eq!(with_status(&t, "reused").len(), 1, "{}", stderr(&again));
    // The step changed: it runs once, and the next --resume reuses it (the file it
    // wrote, which existed before it ran, is its output, not an input that changed).
    wf.write(
        "wf.sp",
        "def main = shell \"seq 1 5 > out.txt; wc -l < out.txt\"\n",
    );
    let (changed, _) = wf.traced("edited", &["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&changed), "5\n\n");
    let (again, t) = wf.traced("edited-again", &["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&again), "5\n\n");
    assert_eq!(with_status(&t, "reused").len(), 1, "{}", stderr(&again));
    // Changing the output runs the step again, and puts it back.
    wf.write("out.txt", "x\n");
    let (again, _) = wf.traced("changed", &["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&again), "5\n\n");
    assert!(
        stderr(&again).contains("output changed: out.txt"),
        "{}",
        stderr(&again)
    );
    assert_eq!(wf.read("out.txt"), "1\n2\n3\n4\n5\n");
}

/// Issue 24, 5: a non-zero exit seen through `runResult` is recorded with its status
/// and runs again on `--resume` (unless `--resume-failed`); its outputs stay.
#[test]
fn a_failed_run_result_is_recorded_with_its_status_and_run_again() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def p : Process = runResult \"sh\" [\"-c\", \"cat input.txt > partial.txt; [ -e fixed ] || exit 1; echo done\"] \"\"\n\
         def main = (exitCode p, stdout p)\n",
    );
    wf.write("input.txt", "data\n");
    assert_eq!(ok(&wf.run(&["wf.sp"])), "(1, \"\")\n");
    assert_eq!(
        wf.read("partial.txt"),
        "data\n",
        "its outputs stay in place"
    );
    let (again, t) = wf.traced("again", &["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&again), "(1, \"\")\n");
    assert_eq!(with_status(&t, "reused").len(), 0);
    assert!(
        stderr(&again).contains("exited with status 1 last time"),
        "{}",
        stderr(&again)
    );
    let (kept, t) = wf.traced("kept", &["--resume", "--resume-failed", "wf.sp"]);
    assert_eq!(ok(&kept), "(1, \"\")\n");
    assert_eq!(with_status(&t, "reused").len(), 1);
    // The cause fixed: it runs, succeeds, and that is reused from then on.
    wf.write("fixed", "");
    let (fixed, _) = wf.traced("fixed", &["--resume", "wf.sp"]);
    assert_eq!(ok(&fixed), "(0, \"done\\n\")\n");
    let (last, t) = wf.traced("last", &["--resume", "wf.sp"]);
    assert_eq!(ok(&last), "(0, \"done\\n\")\n");
    assert_eq!(with_status(&t, "reused").len(), 1);
}

/// Issue 24, 9: a glob inside a shell command line lists its folder, so a new matching
/// file runs the step again; a file created where a tool looked for one does too.
#[test]
fn a_new_file_where_a_step_looked_runs_it_again() {
    let wf = Wf::new();
    wf.write("data/a.csv", "1\n");
    wf.write(
        "wf.sp",
        "def main = (shell \"cat data/*.csv | wc -l\", shell \"test -e flag && echo on || echo off\")\n",
    );
    assert_eq!(ok(&wf.run(&["wf.sp"])), "(\"1\\n\", \"off\\n\")\n");
    let (same, t) = wf.traced("same", &["--resume", "wf.sp"]);
    assert_eq!(ok(&same), "(\"1\\n\", \"off\\n\")\n");
    assert_eq!(with_status(&t, "reused").len(), 2);
    wf.write("data/b.csv", "2\n");
    wf.write("flag", "");
    let (after, t) = wf.traced("after", &["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&after), "(\"2\\n\", \"on\\n\")\n");
    assert_eq!(with_status(&t, "reused").len(), 0);
    let err = stderr(&after);
    assert!(err.contains("input changed: data/"), "{err}");
    assert!(err.contains("input changed: flag"), "{err}");
}

/// `--max-memory` counts what parked fibers hold, not only the heap: a program that
/// keeps 50,000 fibers waiting stops with `out of memory` under a small limit (it ran
/// to the end at several times the limit before).
#[test]
fn max_memory_counts_the_fibers_that_wait() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : Int = sum (map (\\x -> delay 300 x) (range 0 50000))\n",
    );
    let out = wf.run(&["--max-memory", "16M", "wf.sp"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("out of memory"), "{}", stderr(&out));
    assert_eq!(ok(&wf.run(&["wf.sp"])), "1249975000\n");
}

/// Issue 24, 8: a word after FILE near an option of `run` is a typo, not a program
/// argument that silently reruns everything (exit status 2).
#[test]
fn an_option_typo_after_the_file_is_an_error() {
    let wf = Wf::new();
    wf.write("plain.sp", "def main = \"hi\"\n");
    wf.write("reads.sp", "def main = join \" \" args\n");
    let typo = |file: &str, word: &str| {
        let out = wf.run(&[file, word]);
        (out.status.code(), stdout(&out), stderr(&out))
    };
    // A program that never reads `args`: within distance 2 of any option.
    let (code, _, err) = typo("plain.sp", "--resum");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("did you mean `--resume`? put program arguments after `--`"),
        "{err}"
    );
    assert_eq!(typo("plain.sp", "--plon").0, Some(2));
    assert_eq!(typo("plain.sp", "--explian").0, Some(2));
    // One that reads them: within distance 1 of an option of 6 or more letters.
    assert_eq!(typo("reads.sp", "--resum").0, Some(2));
    assert_eq!(
        typo("reads.sp", "--plon"),
        (Some(0), "--plon\n".into(), String::new())
    );
    // Far from every option, or after `--`: a program argument.
    assert_eq!(typo("reads.sp", "--verbose").1, "--verbose\n");
    let out = wf.run(&["reads.sp", "--", "--resum"]);
    assert_eq!(ok(&out), "--resum\n");
    // Nothing ran, nothing was recorded for the typos.
    assert!(
        !wf.exists("store/results.log") || {
            let out = wf.run(&["--plan", "plain.sp"]);
            out.status.code() == Some(0)
        }
    );
}

/// Issue 24, 7: `--plan` is a dry run: it performs no effect call, lists every call it
/// can determine with its reason and the count by external, says what it could not
/// see past, and exits 3 when something would run, 0 when nothing would.
#[test]
fn plan_lists_every_call_it_can_determine_and_exits_3_when_something_would_run() {
    let wf = sales_wf();
    let plan = wf.run(&["--plan", "sales.sp", "--", "data", "out"]);
    let err = stderr(&plan);
    assert_eq!(plan.status.code(), Some(3), "{err}");
    assert_eq!(stdout(&plan), "", "no value: calls would have to run");
    assert!(!wf.exists("out"), "mkdir was performed");
    assert!(err.contains("plan: 5 calls would run:"), "{err}");
    assert!(err.contains("mkdir -p out  (new call)"), "{err}");
    for region in ["east", "north", "south", "west"] {
        assert!(
            err.contains(&format!(
                "awk -F ',' -f check.awk data/{region}.csv  (new call)"
            )),
            "{err}"
        );
    }
    assert!(err.contains("plan: by external: 5 run"), "{err}");
    assert!(err.contains("plan: and more after these 4 finish"), "{err}");
    // After a run (the west file fails its check), one call would run, for its reason.
    wf.run(&["sales.sp", "--", "data", "out"]);
    let plan = wf.run(&["--plan", "sales.sp", "--", "data", "out"]);
    let err = stderr(&plan);
    assert_eq!(plan.status.code(), Some(3), "{err}");
    assert!(err.contains("plan: 1 call would run:"), "{err}");
    assert!(
        err.contains("data/west.csv  (not recorded: previous attempt failed)"),
        "{err}"
    );
    // Fixed and run: nothing would run, and the value is printed.
    let west = wf.read("data/west.csv").replace("gadget,two,", "gadget,2,");
    wf.write("data/west.csv", &west);
    let done = ok(&wf.run(&["--resume", "sales.sp", "--", "data", "out"]));
    let plan = wf.run(&["--plan", "sales.sp", "--", "data", "out"]);
    assert_eq!(plan.status.code(), Some(0), "{}", stderr(&plan));
    assert_eq!(stdout(&plan), done);
    assert!(
        stderr(&plan).contains("plan: nothing to run"),
        "{}",
        stderr(&plan)
    );
    // A changed input: the calls it reaches, with the file named.
    wf.write(
        "data/north.csv",
        &(wf.read("data/north.csv") + "gizmo,1,2.5\n"),
    );
    let plan = wf.run(&["--plan", "sales.sp", "--", "data", "out"]);
    let err = stderr(&plan);
    assert_eq!(plan.status.code(), Some(3), "{err}");
    assert!(err.contains("(input changed: data/north.csv)"), "{err}");
}

/// Issue 24, 9: a grandchild that left its session (`setsid`), ignoring SIGTERM, SIGINT
/// and SIGHUP, is still stopped when Spindle is: it never writes its file after
/// Spindle has exited.
#[test]
fn a_grandchild_in_another_session_is_stopped_with_the_run() {
    for sig in [
        nix::sys::signal::Signal::SIGTERM,
        nix::sys::signal::Signal::SIGINT,
        nix::sys::signal::Signal::SIGHUP,
    ] {
        let wf = Wf::new();
        let u = unique();
        let word = format!("3.{u}");
        let root_word = format!("30.{u}");
        wf.write(
            "wf.sp",
            &format!(
                "def main = shell \"setsid sh -c 'trap \\\"\\\" TERM INT HUP; sleep {word}; echo late > late.txt' & sleep {root_word}\"\n"
            ),
        );
        let mut child = wf.spawn(&["wf.sp"]);
        assert!(
            wait_until(std::time::Duration::from_secs(10), || !procs_with_arg(
                &word
            )
            .is_empty()),
            "the grandchild never started"
        );
        signal(&child, sig);
        let status = child.wait().unwrap();
        assert!(!status.success());
        // Well past the grandchild's sleep: had it survived, its file would be there.
        std::thread::sleep(std::time::Duration::from_millis(4000));
        let left = procs_with_arg(&word);
        kill_leftovers(&word);
        kill_leftovers(&root_word);
        assert!(left.is_empty(), "{sig}: the grandchild survived: {left:?}");
        assert!(
            !wf.exists("late.txt"),
            "{sig}: written after Spindle exited"
        );
    }
}

/// The README's workflow finishes every time (a helper's normal-form walk once
/// skipped parts another helper walked inside a `join` it had to evaluate whole, and
/// spun for good about half the time).
#[test]
fn the_sales_example_finishes_every_time() {
    let wf = sales_wf();
    let first = ok(&wf.run(&["sales.sp", "--", "data", "out"]));
    for i in 0..20 {
        let _ = std::fs::remove_dir_all(wf.file("store"));
        let mut child = wf.spawn(&["sales.sp", "--", "data", "out"]);
        let done = wait_until(std::time::Duration::from_secs(20), || {
            child.try_wait().unwrap().is_some()
        });
        if !done {
            let _ = child.kill();
        }
        assert!(done, "run {i} did not finish");
        let out = child.wait_with_output().unwrap();
        assert_eq!(stdout(&out), first, "run {i}");
    }
}

/// `--rerun PATTERN` runs the calls it matches (by program name or place) again even
/// when recorded; the calls that use their results run again only if those changed.
#[test]
fn rerun_runs_matching_calls_again_and_their_users_only_if_they_changed() {
    let wf = Wf::new();
    wf.write("n.txt", "1\n");
    wf.write(
        "wf.sp",
        "def count : String = run \"wc\" [\"-l\", \"n.txt\"]\n\
         def shout (s : String) : String = run \"echo\" [s]\n\
         def main = (shout count, run \"date\" [\"+%N\"])\n",
    );
    ok(&wf.run(&["wf.sp"]));
    let (again, t) = wf.traced("by-name", &["--resume", "--rerun", "wc", "wf.sp"]);
    ok(&again);
    assert_eq!(with_status(&t, "ok"), ["wc -l n.txt"], "{t:?}");
    assert_eq!(
        with_status(&t, "reused").len(),
        2,
        "echo: same result; date: not matched"
    );
    let (again, t) = wf.traced(
        "by-place",
        &["--resume", "--rerun", "wf.sp:3", "--explain", "wf.sp"],
    );
    ok(&again);
    assert_eq!(with_status(&t, "ok"), ["date '+%N'"], "{t:?}");
    assert!(
        stderr(&again).contains("date '+%N': --rerun matched it"),
        "{}",
        stderr(&again)
    );
    // A pattern that is not a glob is a malformed command line.
    let bad = wf.run(&["--rerun", "[", "wf.sp"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}

/// A store that cannot be written (made immutable with `chattr +i`) is opened
/// read-only: `--resume` reuses its records, nothing new is recorded, and standard
/// error says so; the run succeeds either way.
#[test]
fn a_store_that_cannot_be_written_is_read_and_said() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main = (run \"echo\" [\"a\"], run \"echo\" [\"b\"])\n",
    );
    let first = ok(&wf.run(&["wf.sp"]));
    let store = wf.file("store");
    let files: Vec<std::path::PathBuf> = std::fs::read_dir(&store)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .chain([store.clone()])
        .collect();
    let chattr = |flag: &str| {
        for f in &files {
            let st = std::process::Command::new("chattr")
                .arg(flag)
                .arg(f)
                .status()
                .expect("chattr (e2fsprogs) runs");
            assert!(
                st.success(),
                "chattr {flag} {}: needs root on ext4",
                f.display()
            );
        }
    };
    struct Unfreeze<'a>(&'a dyn Fn(&str));
    impl Drop for Unfreeze<'_> {
        fn drop(&mut self) {
            (self.0)("-i");
        }
    }
    chattr("+i");
    let _unfreeze = Unfreeze(&chattr);
    let (again, t) = wf.traced("ro", &["--resume", "wf.sp"]);
    assert_eq!(ok(&again), first);
    assert_eq!(with_status(&t, "reused").len(), 2, "{t:?}");
    assert!(
        stderr(&again).contains("cannot be written"),
        "{}",
        stderr(&again)
    );
    wf.write("wf.sp", "def main = run \"echo\" [\"c\"]\n");
    let (other, _) = wf.traced("ro2", &["--resume", "wf.sp"]);
    assert_eq!(ok(&other), "c\n\n");
    assert!(
        stderr(&other).contains("cannot be written"),
        "{}",
        stderr(&other)
    );
}

/// A store whose disk fills up during the run stops recording with a warning; the
/// run's results stand, and what was recorded before still verifies.
#[test]
fn a_full_disk_stops_recording_with_a_warning_and_the_run_stands() {
    let wf = Wf::new();
    let store = wf.file("store");
    std::fs::create_dir(&store).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=48k", "tmpfs"])
        .arg(&store)
        .status()
        .expect("mount runs");
    assert!(mounted.success(), "mounting a small tmpfs needs root");
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(store.clone());
    // Each call's record is larger than the disk by the end.
    wf.write(
        "wf.sp",
        "def main : Int = strLength (concatStrings (map (\\i -> run \"sh\" [\"-c\", \"head -c 3000 /dev/zero | tr '\\\\0' x; echo $0\", showInt i]) (range 0 40)))\n",
    );
    // 40 outputs of 3,000 characters, the number and a newline.
    let want = format!("{}\n", 40 * 3001 + 10 + 2 * 30);
    let out = wf.run(&["--sequential", "wf.sp"]);
    assert_eq!(ok(&out), want);
    let err = stderr(&out);
    assert!(err.contains("warning: result store"), "{err}");
    assert!(err.contains("not recorded"), "{err}");
    // The next run reads what was recorded and goes on.
    let again = wf.run(&["--resume", "--sequential", "wf.sp"]);
    assert_eq!(ok(&again), want);
}

/// Where ptrace is refused (here: under `strace -f`, which holds every process as its
/// own tracee), the first traced call finds out: the tools still run, the run says
/// once that processes cannot be observed, and process calls are not recorded (so
/// never reused wrongly); `writeFile` still is.
#[test]
fn where_ptrace_is_refused_tools_still_run_and_nothing_is_reused_wrongly() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main = (run \"echo\" [\"a\"], shell \"echo c > c.txt; cat c.txt\", writeFile \"w.txt\" \"w\")\n",
    );
    let under_strace = |args: &[&str]| {
        let mut c = std::process::Command::new("strace");
        c.args([
            "-f",
            "-o",
            "/dev/null",
            "--",
            env!("CARGO_BIN_EXE_spindle"),
            "run",
        ])
        .args(["--store", "store", "--progress", "none"])
        .args(args)
        .current_dir(wf.path())
        .env_remove("SPINDLE_STORE");
        c.output().expect("strace (the strace package) runs")
    };
    let first = under_strace(&["wf.sp"]);
    assert_eq!(ok(&first), "(\"a\\n\", \"c\\n\", \"w.txt\")\n");
    let err = stderr(&first);
    assert_eq!(
        err.matches("cannot observe what processes read and write here")
            .count(),
        1,
        "{err}"
    );
    assert!(err.contains("ptrace is not permitted"), "{err}");
    let again = under_strace(&["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&again), "(\"a\\n\", \"c\\n\", \"w.txt\")\n");
    let err = stderr(&again);
    assert!(err.contains("echo a: new call"), "{err}");
    assert!(!err.contains("writeFile"), "writeFile is reused: {err}");
}

/// Steps that append to one shared log (`>> log`) do not make each other run again:
/// a file a call only appended to is checked for being there, not for its content.
/// Deleting it runs them again.
#[test]
fn steps_appending_to_one_log_do_not_make_each_other_run_again() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def step (i : Int) : String = run \"sh\" [\"-c\", \"echo step $0 >> log; echo $0\", showInt i]\n\
         def main = map step (range 0 4)\n",
    );
    ok(&wf.run(&["wf.sp"]));
    assert_eq!(wf.read("log").lines().count(), 4);
    let (again, t) = wf.traced("again", &["--resume", "--explain", "wf.sp"]);
    ok(&again);
    assert_eq!(with_status(&t, "reused").len(), 4, "{}", stderr(&again));
    std::fs::remove_file(wf.file("log")).unwrap();
    let (after, t) = wf.traced("after", &["--resume", "--explain", "wf.sp"]);
    ok(&after);
    assert_eq!(with_status(&t, "reused").len(), 0, "{}", stderr(&after));
    assert!(
        stderr(&after).contains("output missing: log"),
        "{}",
        stderr(&after)
    );
    assert_eq!(wf.read("log").lines().count(), 4);
    // One at a time: the first step makes the log again before the second is looked
    // at, and the second still runs (what it wrote went with the deleted file).
    std::fs::remove_file(wf.file("log")).unwrap();
    let (seq, t) = wf.traced(
        "sequential",
        &["--sequential", "--resume", "--explain", "wf.sp"],
    );
    ok(&seq);
    assert_eq!(with_status(&t, "reused").len(), 0, "{}", stderr(&seq));
    assert_eq!(wf.read("log").lines().count(), 4);
}
