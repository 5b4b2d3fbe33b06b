//! Resumable runs end to end (LANGUAGE.md 11, issue 13), through the real binary on
//! real files: `--resume` after a failure, inputs and outputs that change, edits to
//! definitions, runs killed with SIGKILL, `--plan`, files only a command line or a
//! declaration names, and progress on standard error.

use crate::e2e_common;

use e2e_common::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The trace lines with this status.
fn with_status<'a>(lines: &'a [TraceLine], status: &str) -> Vec<&'a TraceLine> {
    lines.iter().filter(|l| l.status == status).collect()
}

/// What a clean run prints: the same program and files in a fresh folder and store.
fn clean_output(files: &[(&str, &str)], args: &[&str]) -> String {
    let wf = Wf::new();
    for (name, text) in files {
        wf.write(name, text);
    }
    ok(&wf.run(args))
}

const TEN_STEPS: &str = "\
def step (i : Int) (prev : String) : String =
  run \"sh\" [\"-c\", \"n=${0#step-}; if [ $n -eq 7 ] && [ ! -e fixed ]; then echo step $n broke >&2; exit 1; fi; printf '%s %s' \\\"$1\\\" $n\", \"step-\" ++ showInt i, prev]

def main : String = foldl (\\acc i -> step i acc) \"start\" (range 1 11)
";

/// The step numbers of trace lines (`step-N` in their commands).
fn steps(lines: &[&TraceLine]) -> Vec<u32> {
    let mut v: Vec<u32> = lines
        .iter()
        .map(|l| {
            let at = l.command.find(" step-").expect("a step") + 6;
            l.command[at..].split(' ').next().unwrap().parse().unwrap()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_ten_step_workflow_failing_at_step_7_resumes_at_step_7() {
    let wf = Wf::new();
    wf.write("wf.sp", TEN_STEPS);
    let (first, t1) = wf.traced("first", &["--resume", "wf.sp"]);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("step 7 broke"),
        "{}",
        stderr(&first)
    );
    assert_eq!(steps(&with_status(&t1, "ok")), (1..=6).collect::<Vec<_>>());
    assert_eq!(steps(&with_status(&t1, "failed")), [7]);
    // The fix: the tool works now.
    wf.write("fixed", "");
    let (second, t2) = wf.traced("second", &["--resume", "wf.sp"]);
    let printed = ok(&second);
    assert_eq!(steps(&with_status(&t2, "ok")), (7..=10).collect::<Vec<_>>());
    assert_eq!(
        steps(&with_status(&t2, "reused")),
        (1..=6).collect::<Vec<_>>()
    );
    assert_eq!(t2.len(), 10);
    let clean = clean_output(&[("wf.sp", TEN_STEPS), ("fixed", "")], &["wf.sp"]);
    assert_eq!(printed, clean);
    assert_eq!(clean, "start 1 2 3 4 5 6 7 8 9 10\n");
    // A third run reuses everything.
    let (third, t3) = wf.traced("third", &["--resume", "wf.sp"]);
    assert_eq!(ok(&third), clean);
    assert_eq!(with_status(&t3, "reused").len(), 10);
    // Without --resume, everything runs again.
    let (fourth, t4) = wf.traced("fourth", &["wf.sp"]);
    assert_eq!(ok(&fourth), clean);
    assert_eq!(with_status(&t4, "ok").len(), 10);
}

const THREE_INPUTS: &str = "\
def count (f : String) : String = run \"wc\" [\"-c\", f]
def shout (f : String) : String = shell (\"tr a-z A-Z < \" ++ f)
def both (n : String) : Pair String String =
  let f = \"data/\" ++ n ++ \".txt\" in (count f, shout f)
def main = (map both [\"a\", \"b\", \"c\"], run \"echo\" [\"constant\"])
";

fn three_inputs() -> Wf {
    let wf = Wf::new();
    wf.write("wf.sp", THREE_INPUTS);
    for n in ["a", "b", "c"] {
        wf.write(&format!("data/{n}.txt"), &format!("{n} is for input\n"));
    }
    wf
}

#[test]
fn changing_one_of_three_inputs_reruns_exactly_its_calls() {
    let wf = three_inputs();
    let (first, t1) = wf.traced("first", &["wf.sp"]);
    ok(&first);
    assert_eq!(with_status(&t1, "ok").len(), 7);
    // Only the time changes: nothing runs.
    let later = std::time::SystemTime::now() + Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(wf.file("data/b.txt"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    let (same, t2) = wf.traced("same", &["--resume", "wf.sp"]);
    assert_eq!(ok(&same), stdout(&first));
    assert_eq!(with_status(&t2, "reused").len(), 7, "{t2:?}");
    // The content changes (same size): the calls that read b run, the rest are reused.
    wf.write("data/b.txt", "B IS FOR INPUT\n");
    let (second, t3) = wf.traced("second", &["--resume", "--explain", "wf.sp"]);
    let ran = with_status(&t3, "ok");
    assert_eq!(ran.len(), 2, "{t3:?}");
    assert!(
        ran.iter().all(|l| l.command.contains("data/b.txt")),
        "{ran:?}"
    );
    assert_eq!(with_status(&t3, "reused").len(), 5);
    let err = stderr(&second);
    assert_eq!(
        err.matches("input changed: data/b.txt").count(),
        2,
        "--explain:\n{err}"
    );
    let files: Vec<(String, String)> = ["wf.sp", "data/a.txt", "data/b.txt", "data/c.txt"]
        .iter()
        .map(|f| (f.to_string(), wf.read(f)))
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(ok(&second), clean_output(&files, &["wf.sp"]));
    assert!(ok(&second).contains("\"B IS FOR INPUT\\n\""));
}

#[test]
fn a_deleted_or_changed_output_makes_its_call_run_again() {
    let wf = Wf::new();
    wf.write("data/a.txt", "alpha\n");
    std::fs::create_dir(wf.file("out")).unwrap();
    wf.write(
        "wf.sp",
        "def main = (run \"cp\" [\"data/a.txt\", \"out/a.copy\"], writeFile \"out/b.txt\" \"bee\", run \"echo\" [\"other\"])\n",
    );
    let (first, _) = wf.traced("first", &["wf.sp"]);
    let want = ok(&first);
    for (file, damage) in [
        ("out/a.copy", None),
        ("out/b.txt", None),
        ("out/a.copy", Some("garbage\n")),
        ("out/b.txt", Some("wasp")),
    ] {
        match damage {
            None => std::fs::remove_file(wf.file(file)).unwrap(),
            Some(text) => {
                wf.write(file, text);
            }
        }
        let (again, t) = wf.traced("again", &["--resume", "--explain", "wf.sp"]);
        assert_eq!(ok(&again), want, "{file}");
        let ran = with_status(&t, "ok");
        assert_eq!(ran.len(), 1, "{file} {damage:?}: {t:?}");
        assert!(ran[0].command.contains(file), "{file}: {ran:?}");
        assert_eq!(with_status(&t, "reused").len(), 2, "{file}");
        if damage.is_none() {
            assert!(
                stderr(&again).contains(&format!("output missing: {file}")),
                "{file}: {}",
                stderr(&again)
            );
        }
        assert_eq!(wf.read("out/a.copy"), "alpha\n");
        assert_eq!(wf.read("out/b.txt"), "bee");
    }
}

#[test]
fn editing_a_definition_reruns_only_the_calls_that_use_it() {
    let wf = Wf::new();
    let program = |flag: &str, body: &str, other: &str| {
        format!(
            "def flag : String = \"{flag}\"\n\
             def step (x : String) : String = {body}\n\
             def other : Int = {other}\n\
             def main = (step \"a\", run \"echo\" [\"b\"], other + 1)\n"
        )
    };
    let body = "run \"echo\" [flag, x]";
    wf.write("wf.sp", &program("-n", body, "1"));
    let (first, _) = wf.traced("first", &["wf.sp"]);
    assert_eq!(ok(&first), "(\"a\", \"b\\n\", 2)\n");
    let ran = |what: &str, text: &str, want: &str, n: usize| {
        wf.write("wf.sp", text);
        let (out, t) = wf.traced("again", &["--resume", "wf.sp"]);
        assert_eq!(ok(&out), want, "{what}");
        assert_eq!(with_status(&t, "ok").len(), n, "{what}: {t:?}");
        assert_eq!(t.len(), 2, "{what}: {t:?}");
    };
    // Unused by any call: a definition, a comment, a new definition, the order.
    ran(
        "other",
        &program("-n", body, "2"),
        "(\"a\", \"b\\n\", 3)\n",
        0,
    );
    ran(
        "comment and order",
        &format!(
            "-- a comment\ndef unrelated : Int = 7\n{}",
            program("-n", body, "2")
                .lines()
                .rev()
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        ),
        "(\"a\", \"b\\n\", 3)\n",
        0,
    );
    // Used by `step`'s call: it runs again, the other call does not.
    ran(
        "flag",
        &program("-e", body, "2"),
        "(\"a\\n\", \"b\\n\", 3)\n",
        1,
    );
    // The body of `step` changes and so do its call's arguments: it runs again.
    ran(
        "body",
        &program("-e", "run \"echo\" [flag, x ++ x]", "2"),
        "(\"aa\\n\", \"b\\n\", 3)\n",
        1,
    );
    // The body changes but the call's arguments do not: a call is a function of its
    // arguments (its key has no place, LANGUAGE.md 11), so its record is reused.
    ran(
        "body, same call",
        &program("-e", "trim (run \"echo\" [flag, x ++ x])", "2"),
        "(\"aa\", \"b\\n\", 3)\n",
        0,
    );
}

/// A small xorshift generator (the moments to kill at).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The workflow killed at random moments; `TOKEN` marks its tools' processes (an
/// argument they ignore) so that the test can wait until a killed run's tools are gone.
const KILLED: &str = "\
def make (i : Int) : String =
  run \"sh\" [\"-c\", \"sleep 0.05; echo a$1 > \\\"$0\\\"; echo \\\"$0\\\"\", \"out/a\" ++ showInt i ++ \".txt\", showInt i, \"TOKEN\"]
def use (p : String) : String = run \"sh\" [\"-c\", \"sleep 0.05; tr a b < \\\"$0\\\"\", trim p, \"TOKEN\"]
def main : String =
  let xs = map (\\i -> use (make i)) (range 0 6) in
  writeFile \"out/final.txt\" (concatStrings xs) ++ \"\\n\" ++ concatStrings xs
";

#[test]
fn runs_killed_at_random_moments_never_leave_a_record_trusted_wrongly() {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut rng = Rng(seed);
    let want_final = "b0\nb1\nb2\nb3\nb4\nb5\n";
    let token = format!("killed-{}", unique());
    let program = KILLED.replace("TOKEN", &token);
    let clean = clean_files_run(&program);
    assert_eq!(clean, format!("out/final.txt\n{want_final}\n"));
    let wf = Wf::new();
    wf.write("wf.sp", &program);
    std::fs::create_dir(wf.file("out")).unwrap();
    let mut moments = Vec::new();
    for round in 0..20 {
        if round % 5 == 0 {
            // Start over now and then, so early moments of a fresh run are hit too.
            let _ = std::fs::remove_dir_all(wf.file("store"));
            let _ = std::fs::remove_dir_all(wf.file("out"));
            std::fs::create_dir(wf.file("out")).unwrap();
        }
        let ms = rng.next() % 450;
        moments.push(ms);
        let mut child = wf.spawn(&["--resume", "--jobs", "2", "wf.sp"]);
        std::thread::sleep(Duration::from_millis(ms));
        let _ = child.kill();
        let _ = child.wait();
        // The killed run's tools end by themselves (they are short): wait for them.
        assert!(
            wait_until(Duration::from_secs(20), || procs_with_arg(&token)
                .is_empty()),
            "the killed run's tools did not end"
        );
        let out = wf.run(&["--resume", "wf.sp"]);
        let ctx = format!("seed {seed}, round {round}, moments {moments:?}");
        assert_eq!(ok(&out), clean, "{ctx}\n{}", stderr(&out));
        assert_eq!(wf.read("out/final.txt"), want_final, "{ctx}");
        for i in 0..6 {
            assert_eq!(
                wf.read(&format!("out/a{i}.txt")),
                format!("a{i}\n"),
                "{ctx}"
            );
        }
    }
}

fn clean_files_run(program: &str) -> String {
    let wf = Wf::new();
    wf.write("wf.sp", program);
    std::fs::create_dir(wf.file("out")).unwrap();
    ok(&wf.run(&["wf.sp"]))
}

/// Every file under `dir` (except the trace files) with its content.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                let content = if name.starts_with("store") {
                    Vec::new()
                } else {
                    std::fs::read(&p).unwrap()
                };
                all.insert(name, content);
            }
        }
    }
    all
}

fn store_records(wf: &Wf) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["store", "info", "--store"])
        .arg(wf.file("store"))
        .output()
        .unwrap();
    let text = ok(&out);
    text.lines()
        .find(|l| l.contains("record"))
        .unwrap_or_else(|| panic!("no record count in {text:?}"))
        .to_string()
}

#[test]
fn plan_lists_the_frontier_and_changes_nothing() {
    let wf = Wf::new();
    wf.write("wf.sp", TEN_STEPS);
    let first = wf.run(&["wf.sp"]);
    assert_eq!(first.status.code(), Some(1));
    let records = store_records(&wf);
    assert!(records.contains('6'), "{records}");
    let before = snapshot(wf.path());
    let plan = wf.run(&["--resume", "--plan", "wf.sp"]);
    let err = stderr(&plan);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("plan: 1 call would run:"), "{err}");
    assert_eq!(plan.status.code(), Some(3), "{err}");
    assert!(err.contains(" step-7 "), "{err}");
    assert!(err.contains("previous attempt failed"), "{err}");
    assert!(!err.contains(" step-8 "), "{err}");
    assert!(!err.contains("step 7 broke"), "the tool ran:\n{err}");
    // No part of a value that needs the planned call is printed.
    assert_eq!(String::from_utf8_lossy(&plan.stdout), "", "{err}");
    assert_eq!(snapshot(wf.path()), before, "--plan changed files");
    assert_eq!(store_records(&wf), records);
    // With the fix, the plan is the same: step 7 is the frontier.
    wf.write("fixed", "");
    let plan = wf.run(&["--resume", "--plan", "wf.sp"]);
    assert!(stderr(&plan).contains(" step-7 "), "{}", stderr(&plan));
    assert_eq!(store_records(&wf), records);
    // A value whose first parts need no call: still nothing on standard output.
    wf.write(
        "pairs.sp",
        "def main = map (\\i -> (i, run \"echo\" [showInt i])) (range 0 3)\n",
    );
    let plan = wf.run(&["--plan", "pairs.sp"]);
    assert!(
        stderr(&plan).contains("plan: 3 calls would run:"),
        "{}",
        stderr(&plan)
    );
    assert_eq!(String::from_utf8_lossy(&plan.stdout), "");
}

#[test]
fn an_input_named_only_inside_a_shell_command_line_is_part_of_the_key() {
    let wf = Wf::new();
    wf.write("data/in.txt", "pear\napple\n");
    wf.write(
        "wf.sp",
        "def main = (shell \"sort data/in.txt | head -n 1\", run \"echo\" [\"x\"])\n",
    );
    let (first, _) = wf.traced("first", &["wf.sp"]);
    assert_eq!(ok(&first), "(\"apple\\n\", \"x\\n\")\n");
    wf.write("data/in.txt", "pear\nabricot\n");
    let (second, t) = wf.traced("second", &["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&second), "(\"abricot\\n\", \"x\\n\")\n");
    assert_eq!(with_status(&t, "ok").len(), 1, "{t:?}");
    assert!(
        stderr(&second).contains("input changed: data/in.txt"),
        "{}",
        stderr(&second)
    );
}

#[test]
fn deleting_a_side_output_reruns_the_call_that_made_it() {
    // `index.sh REF` writes REF.bwt and REF.sa beside REF without being told their
    // names, as `bwa index` does.
    let wf = Wf::new();
    wf.write("ref/genome.fa", ">chr1\nACGT\n");
    wf.write(
        "index.sh",
        "cp \"$1\" \"$1.bwt\"; echo sa > \"$1.sa\"; echo indexed >> runs.log; echo indexed\n",
    );
    wf.write(
        "wf.sp",
        "def main = (run \"sh\" [\"index.sh\", \"ref/genome.fa\"], run \"echo\" [\"y\"])\n",
    );
    ok(&wf.run(&["wf.sp"]));
    assert_eq!(wf.read("ref/genome.fa.sa"), "sa\n");
    let (same, t) = wf.traced("same", &["--resume", "wf.sp"]);
    ok(&same);
    assert_eq!(with_status(&t, "reused").len(), 2);
    std::fs::remove_file(wf.file("ref/genome.fa.sa")).unwrap();
    let (again, t) = wf.traced("again", &["--resume", "--explain", "wf.sp"]);
    ok(&again);
    assert_eq!(with_status(&t, "ok").len(), 1, "{t:?}");
    assert!(
        stderr(&again).contains("output missing: ref/genome.fa.sa"),
        "{}",
        stderr(&again)
    );
    assert_eq!(wf.read("ref/genome.fa.sa"), "sa\n");
    assert_eq!(wf.read("runs.log"), "indexed\nindexed\n");
}

#[test]
fn reading_and_writing_declarations_cover_files_no_argument_names() {
    let wf = Wf::new();
    wf.write("conf/settings.txt", "level 1\n");
    wf.write("results/.keep", "");
    // tool.sh reads conf/settings.txt and writes results/out.txt by itself.
    wf.write(
        "tool.sh",
        "cat conf/settings.txt > results/out.txt; echo run >> runs.log; cat conf/settings.txt\n",
    );
    wf.write(
        "wf.sp",
        "def main : String = writing [\"results/out.txt\"] (reading [\"conf/settings.txt\"] (run \"sh\" [\"tool.sh\"]))\n",
    );
    assert_eq!(ok(&wf.run(&["wf.sp"])), "level 1\n\n");
    assert_eq!(ok(&wf.run(&["--resume", "wf.sp"])), "level 1\n\n");
    assert_eq!(wf.read("runs.log"), "run\n");
    // The declared input changes: it runs again.
    wf.write("conf/settings.txt", "level 2\n");
    let out = wf.run(&["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&out), "level 2\n\n");
    assert!(
        stderr(&out).contains("input changed: conf/settings.txt"),
        "{}",
        stderr(&out)
    );
    assert_eq!(wf.read("runs.log"), "run\nrun\n");
    // The declared output goes: it runs again.
    std::fs::remove_file(wf.file("results/out.txt")).unwrap();
    let out = wf.run(&["--resume", "--explain", "wf.sp"]);
    assert_eq!(ok(&out), "level 2\n\n");
    assert!(
        stderr(&out).contains("output missing: results/out.txt"),
        "{}",
        stderr(&out)
    );
    assert_eq!(wf.read("results/out.txt"), "level 2\n");
    assert_eq!(wf.read("runs.log"), "run\nrun\nrun\n");
}

#[test]
fn plain_progress_is_one_line_per_finished_call_and_never_on_standard_output() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main = map (\\i -> run \"sh\" [\"-c\", \"echo $0\", showInt i]) (range 0 4)\n",
    );
    let want = "[\"0\\n\", \"1\\n\", \"2\\n\", \"3\\n\"]\n";
    let out = wf.run(&["--progress", "plain", "wf.sp"]);
    assert_eq!(ok(&out), want);
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("ok ")).count(),
        4,
        "{err}"
    );
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("done: 4 calls (4 ran, 0 reused, 0 failed)"),
        "{err}"
    );
    assert_eq!(lines.len(), 5, "{err}");
    // Everything on at once: plain progress, --explain, --trace, --stats, --resume.
    let t = wf.file("t.tsv");
    let out = wf.run(&[
        "--progress",
        "plain",
        "--explain",
        "--stats",
        "--resume",
        "--trace",
        t.to_str().unwrap(),
        "wf.sp",
    ]);
    assert_eq!(ok(&out), want, "only the result on standard output");
    let err = stderr(&out);
    assert_eq!(
        err.lines().filter(|l| l.starts_with("reused ")).count(),
        4,
        "{err}"
    );
    // The default when standard error is not a terminal is plain.
    let mut c = wf.command(&["--progress", "auto", "wf.sp"]);
    let out = c.output().unwrap();
    assert_eq!(ok(&out), want);
    assert_eq!(stderr(&out).lines().count(), 5, "{}", stderr(&out));
    // None prints nothing.
    let out = wf.run(&["--progress", "none", "wf.sp"]);
    assert_eq!(ok(&out), want);
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

/// Runs `spindle run` on a pseudo-terminal and returns all it wrote there.
fn on_a_terminal(wf: &Wf, args: &[&str], no_color: bool) -> String {
    let mut cmd = wf.command(args);
    cmd.env("TERM", "xterm");
    if no_color {
        cmd.env("NO_COLOR", "1");
    } else {
        cmd.env_remove("NO_COLOR");
    }
    let mut p = rexpect::session::spawn_command(cmd, Some(20_000)).expect("a pty");
    p.exp_eof().expect("the run ends")
}

#[test]
fn no_color_is_respected_on_a_terminal() {
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main = map (\\i -> run \"sh\" [\"-c\", \"sleep 0.3; exit $0\", showInt i]) (range 0 2)\n",
    );
    for mode in ["plain", "auto"] {
        let coloured = on_a_terminal(&wf, &["--progress", mode, "wf.sp"], false);
        assert!(coloured.contains("failed"), "{mode}: {coloured:?}");
        assert!(
            coloured.contains("\x1b[31m"),
            "{mode}: no colour without NO_COLOR: {coloured:?}"
        );
        let plain = on_a_terminal(&wf, &["--progress", mode, "wf.sp"], true);
        assert!(plain.contains("failed"), "{mode}: {plain:?}");
        assert!(
            !plain.contains("\x1b[31m"),
            "{mode}: colour with NO_COLOR: {plain:?}"
        );
        // No colour sequence of any kind (cursor movements of the live lines are fine).
        let sgr = plain
            .match_indices("\x1b[")
            .filter(|(i, _)| {
                plain[i + 2..]
                    .chars()
                    .find(|c| !c.is_ascii_digit() && *c != ';')
                    == Some('m')
            })
            .count();
        assert_eq!(sgr, 0, "{mode}: {plain:?}");
    }
}

#[test]
fn after_a_certain_failure_no_new_call_starts_and_running_ones_are_recorded() {
    // Two slots; step 1 fails after 0.2 s (time for a call started beside it to log its
    // start), the others take 0.5 s. Whatever order the calls start in, none starts
    // after step 1 has failed (its "failed" line is the log's last), the ones that
    // started finish and are recorded, and after the fix --resume reuses exactly those.
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def step (i : Int) : String =\n  \
           run \"sh\" [\"-c\", \"echo start $0 >> log; if [ $0 -eq 1 ] && [ ! -e fixed ]; then sleep 0.2; echo failed >> log; exit 1; fi; sleep 0.5; echo $0\", showInt i]\n\
         def main = map step (range 0 6)\n",
    );
    let (first, _) = wf.traced("first", &["--jobs", "2", "wf.sp"]);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    let log: Vec<String> = wf.read("log").lines().map(String::from).collect();
    assert_eq!(
        log.last().map(String::as_str),
        Some("failed"),
        "calls started after the failure: {log:?}"
    );
    assert!(log.iter().any(|l| l == "start 1"), "{log:?}");
    let mut finished: Vec<String> = log
        .iter()
        .filter(|l| *l != "start 1" && *l != "failed")
        .map(|l| l.trim_start_matches("start ").to_string())
        .collect();
    finished.sort();
    wf.write("fixed", "");
    let (second, t) = wf.traced("second", &["--jobs", "2", "--resume", "wf.sp"]);
    assert_eq!(
        ok(&second),
        "[\"0\\n\", \"1\\n\", \"2\\n\", \"3\\n\", \"4\\n\", \"5\\n\"]\n"
    );
    let mut reused: Vec<String> = with_status(&t, "reused")
        .iter()
        .map(|l| l.command.rsplit(' ').next().unwrap().to_string())
        .collect();
    reused.sort();
    assert_eq!(reused, finished, "{t:?}");
    assert_eq!(with_status(&t, "ok").len(), 6 - finished.len(), "{t:?}");
}

#[test]
fn a_program_that_does_not_check_leaves_no_trace_and_no_record() {
    // The store exists already (it is opened while the program is checked).
    let wf = Wf::new();
    wf.write("ok.sp", "def main = run \"echo\" [\"x\"]\n");
    let first = wf.run(&["ok.sp"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let records = store_records(&wf);
    wf.write("bad.sp", "def main = run \"echo\" [\"y\"] +\n");
    let bad = wf.run(&["--trace", "t.tsv", "bad.sp"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).starts_with("error: "), "{}", stderr(&bad));
    assert!(!wf.path().join("t.tsv").exists(), "a trace file was made");
    assert_eq!(store_records(&wf), records);
}
