//! The machine on real programs: every spec example's `.out`/`.err` through
//! `spindle run`, and every definition of every example compiled and read back to
//! itself (machine code keeps its map back to the core).

use crate::common;

use common::{check_error_output, run_in, sp_files, tests_dir};
use spindle::core::equiv::alpha_eq;
use spindle::core::term::DefId;
use spindle::driver;

/// `type_error.sp` is the checker's (its golden error is checked elsewhere).
const NOT_YET: &[&str] = &["type_error.sp"];

#[test]
fn spec_examples_run() {
    let dir = tests_dir().join("examples").join("spec");
    let mut failures = Vec::new();
    for file in sp_files(&dir) {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        if NOT_YET.contains(&name.as_str()) {
            continue;
        }
        let out = run_in(&dir, &["run", &name]);
        let stem = name.trim_end_matches(".sp");
        if let Ok(expected) = std::fs::read_to_string(dir.join(format!("{stem}.out"))) {
            let got = String::from_utf8_lossy(&out.stdout);
            if !out.status.success() || got != expected {
                failures.push(format!(
                    "{name}: status {:?}, printed {got:?}, expected {expected:?}; stderr {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        } else if let Ok(expected) = std::fs::read_to_string(dir.join(format!("{stem}.err")))
            && let Err(e) = check_error_output(&out, &expected)
        {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn bench_programs_print_their_results() {
    let dir = tests_dir().join("examples").join("bench");
    // tak 27 16 8 is too slow for a debug-build test; queens is fine.
    let out = run_in(&dir, &["run", "queens.sp"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "724\n");
}

#[test]
fn every_definition_of_every_example_compiles_and_reads_back() {
    let mut count = 0;
    for sub in ["spec", "bench", "own"] {
        let dir = tests_dir().join("examples").join(sub);
        for file in sp_files(&dir) {
            let loaded = driver::load(&file);
            let Some(program) = &loaded.program else {
                continue;
            };
            let mut m = spindle::machine::Machine::new(program);
            for (i, def) in program.defs.iter().enumerate() {
                // Its value before any evaluation: the function, or the CAF's code.
                let v = m.def_value_pinned(DefId(i as u32));
                let back = m.sight().read_back(v);
                // The body run: after inlining and fusion, where they changed it.
                let run = spindle::machine::compile::run_body(program, DefId(i as u32), true);
                let body = spindle::machine::analysis::unann(run);
                assert!(
                    alpha_eq(body, &back),
                    "{}: {} does not read back to itself",
                    file.display(),
                    def.name
                );
                count += 1;
            }
            m.sight()
                .audit(None, false)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        }
    }
    assert!(count > 100, "only {count} definitions");
}

#[test]
fn runtime_errors_name_the_file_line_and_column() {
    let dir = tempdir();
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "div.sp",
            "def main : Int =\n  let zero = 0 in\n  10 / zero\n",
            &["division by zero", "div.sp:3:6"],
        ),
        (
            "ovf.sp",
            "def main = 9223372036854775807 + 1\n",
            &["integer overflow", "ovf.sp:1:"],
        ),
        (
            "err.sp",
            "def main : Int = error \"boom\"\n",
            &["boom", "err.sp:1:"],
        ),
        (
            "loop.sp",
            "def main : Int = let x = x + 1 in x\n",
            &["infinite loop"],
        ),
        (
            "fun.sp",
            "def inc (x : Int) : Int = x + 1\ndef main = inc == inc\n",
            &["cannot compare functions"],
        ),
    ];
    for (name, src, wants) in cases {
        std::fs::write(dir.join(name), src).unwrap();
        let out = run_in(&dir, &["run", name]);
        let expected = wants.join("\n");
        if let Err(e) = check_error_output(&out, &expected) {
            panic!("{name}: {e}\n{}", String::from_utf8_lossy(&out.stderr));
        }
    }
}

#[test]
fn a_match_failure_names_the_match() {
    let dir = tempdir();
    let out = run_program(
        &dir,
        "nomatch.sp",
        "data T = A | B\ndef f (t : T) : Int =\n  match t with\n  | A -> 1\ndef main = f B\n",
        &[],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    // The checker warns about the missing case first; the runtime error follows.
    assert_eq!(out.status.code(), Some(1));
    assert!(err.contains("error: nomatch.sp:3:3"), "{err}");
}

#[test]
fn stats_are_printed_after_the_result() {
    let dir = tempdir();
    std::fs::write(dir.join("s.sp"), "def main = sum (range 0 100)\n").unwrap();
    let out = run_in(
        &dir,
        &["run", "--stats", "--sequential", "--jobs", "4", "s.sp"],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "4950\n");
    let err = String::from_utf8_lossy(&out.stderr);
    for key in [
        "steps",
        "contexts_allocated",
        "contexts_peak",
        "stacks_peak",
        "externals_dispatched",
        "externals_peak_in_flight",
        "wall_ms",
    ] {
        assert!(err.contains(&format!("{key}: ")), "no {key} in {err}");
    }
}

/// Printing a long list streams it: each cell is let go once its element is out, so
/// `spindle run` prints 300,000 elements with a handful of objects live (it kept every
/// cell until the end, and searched them all for work before each element: quadratic).
#[test]
fn printing_a_long_list_keeps_no_cells() {
    let dir = tempdir();
    std::fs::write(dir.join("long.sp"), "def main = range 0 300000\n").unwrap();
    let out = run_in(&dir, &["run", "--stats", "long.sp"]);
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.starts_with("[0, 1, 2, "),
        "{}",
        &printed[..40.min(printed.len())]
    );
    assert!(printed.ends_with(", 299998, 299999]\n"));
    let peak = stat(&out.stderr, "objects_peak");
    assert!(peak < 100, "objects_peak {peak}");
}

/// `sort` lets its input list go before it builds the sorted one: the two lists are
/// never whole at once (before: a peak of three objects per element, the input's
/// cells and evaluated tails and the output's cells).
#[test]
fn sorting_never_holds_both_lists() {
    let dir = tempdir();
    let out = run_program(
        &dir,
        "sort.sp",
        "def main = length (sort (range 0 100000))\n",
        &["--stats"],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "100000\n");
    let peak = stat(&out.stderr, "objects_peak");
    assert!(peak < 250_000, "objects_peak {peak}");
}

/// A fold over a range with an arithmetic step (after fusion) runs its loop in place
/// (machine::loops): one step per element, no records per element; the prelude's
/// definition takes four steps and two records.
#[test]
fn a_fused_fold_over_a_range_is_a_loop() {
    let dir = tempdir();
    let out = run_program(
        &dir,
        "loop.sp",
        "def main = sum (map (\\x -> x * 2) (filter (\\x -> x % 3 != 0) (range 0 300000)))\n",
        &["--stats"],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "60000000000\n");
    let steps = stat(&out.stderr, "steps");
    assert!((300_000..400_000).contains(&steps), "steps {steps}");
    let records = stat(&out.stderr, "contexts_allocated");
    assert!(records < 10_000, "contexts_allocated {records}");
}

/// A step that fails in the loop (an overflow) is taken again by the definition, which
/// reports it as the fold over the list would.
#[test]
fn a_loop_that_fails_fails_as_the_fold_would() {
    let dir = tempdir();
    let out = run_program(
        &dir,
        "overflow.sp",
        "def main = sum (map (\\x -> x * 100000000000000) (range 0 100000))\n",
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: <prelude>/list.sp:"), "{err}");
    assert!(err.contains("integer overflow"), "{err}");
}

/// The loop hands back to the evaluation loop every so often: an interrupt stops a
/// fold over a range too long to finish, and a step limit holds.
#[test]
fn a_long_loop_sees_interrupts_and_limits() {
    assert_long_run_sees_interrupts_and_limits(
        "def main = sum (map (\\x -> x % 7) (range 0 100000000000))\n",
    );
}

/// Runs `main` of `src`, too long to finish: an interrupt stops it, and a step limit
/// holds (within the batch a loop in place takes).
fn assert_long_run_sees_interrupts_and_limits(src: &str) {
    let loaded = driver::load_text("long.sp", src);
    let p = loaded.program.expect("loads");
    let mut m = spindle::machine::Machine::new(&p);
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    m.run.interrupt = Some(flag);
    let e = m.whnf_def(p.main.unwrap()).unwrap_err();
    assert!(e.message.contains("interrupted"), "{}", e.message);
    let mut m = spindle::machine::Machine::new(&p);
    m.run.step_limit = 50_000;
    let e = m.whnf_def(p.main.unwrap()).unwrap_err();
    assert!(e.message.contains("limit of 50000 steps"), "{}", e.message);
    assert!(m.run.steps < 60_000, "steps {}", m.run.steps);
}

/// (machine::loops, `skip_loop`): a search along a range skips the elements its
/// test rejects at hand in the call's own record, one step each and no record per
/// element; a function that changes another argument too is not that shape and
/// makes its calls. Run by the command line, which checks only the prelude
/// definitions a program reaches: `filter p (range lo hi)` is still fused when nothing
/// reaches `foldlStrict` (it was not, until fusion stopped requiring it).
#[test]
fn a_search_along_a_range_makes_no_call_per_skipped_element() {
    let dir = tempdir();
    let out = run_program(
        &dir,
        "skip.sp",
        "def main = filter (\\x -> x % 100000 == 3) (range 0 300000)\n",
        &["--stats"],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "[3, 100003, 200003]\n"
    );
    let steps = stat(&out.stderr, "steps");
    assert!((300_000..310_000).contains(&steps), "steps {steps}");
    let records = stat(&out.stderr, "contexts_allocated");
    assert!(records < 1_000, "contexts_allocated {records}");
    let out = run_program(
        &dir,
        "both.sp",
        "def f (lo : Int) (hi : Int) : List Int =\n  \
         if lo >= hi then [] else if lo == 0 - 1 then [lo] else f (lo + 1) (hi - 1)\n\
         def main = f 0 20000\n",
        &["--stats"],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "[]\n");
    let records = stat(&out.stderr, "contexts_allocated");
    assert!(records >= 10_000, "contexts_allocated {records}");
}

/// The search hands back to the evaluation loop every so often: an interrupt stops
/// a search too long to finish, and a step limit holds.
#[test]
fn a_long_search_sees_interrupts_and_limits() {
    assert_long_run_sees_interrupts_and_limits(
        "def main = filter (\\x -> x < 0) (range 0 100000000000)\n",
    );
}

/// Calls of functions of strict numbers run in the numeric tier (machine::numeric):
/// on a value stack, with records made only where a batch ends (tak 18 12 6 makes
/// 63,609 calls).
#[test]
fn numeric_calls_make_no_record_each() {
    let dir = tempdir();
    let out = run_program(
        &dir,
        "tak.sp",
        "def tak (x : Int) (y : Int) (z : Int) : Int =\n  \
         if y < x then tak (tak (x - 1) y z) (tak (y - 1) z x) (tak (z - 1) x y) else z\n\
         def main = tak 18 12 6\n",
        &["--stats"],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "7\n");
    let records = stat(&out.stderr, "contexts_allocated");
    assert!(records < 6_000, "contexts_allocated {records}");
}

/// Where the numeric tier and the in-place loop hand over to the machine, the heap
/// they leave is sound: the audits (every reference counted, nothing unreachable)
/// pass every 97 steps of a program full of both.
#[test]
fn the_tiers_leave_a_sound_heap() {
    let path = common::tests_dir()
        .join("examples")
        .join("own")
        .join("numeric.sp");
    let loaded = driver::load(&path);
    let p = loaded.program.expect("loads");
    assert_eq!(
        print_main_audited(&p, 97),
        "(60, 3240, 34, 21, 1.0, 3, 19600, False, True)"
    );
}

/// Prints a program's `main` with the heap audited every `every` steps, and once at
/// the end.
fn print_main_audited(p: &spindle::core::program::Program, every: u64) -> String {
    let mut m = spindle::machine::Machine::new(p);
    m.run.audit_every = every;
    let v = m.whnf_def(p.main.unwrap()).unwrap();
    let printed = m.print_value(v, false).unwrap();
    m.sight().audit(None, true).unwrap();
    printed
}

/// Computing calls at hand (`machine::cheap`) changes nothing a program prints or
/// fails with: every example and library program gives the same with it off, and
/// leaves a sound heap either way.
#[test]
fn computing_at_hand_changes_no_result() {
    let mut files = common::distinct_example_programs();
    files.extend(sp_files(&tests_dir().join("examples").join("library")));
    let mut compared = 0;
    for file in files {
        let loaded = driver::load(&file);
        let Some(p) = loaded.program.as_ref().filter(|_| !loaded.has_errors()) else {
            continue;
        };
        let Some(main) = p.main else { continue };
        let outcome = |at_hand: bool| {
            let mut m = spindle::machine::Machine::new(p);
            m.tiers.on.at_hand = at_hand;
            m.options.externals_allowed = false;
            let printed = m
                .whnf_def(main)
                .and_then(|v| m.print_value(v, false))
                .map_err(|e| e.to_string());
            m.sight()
                .audit(None, true)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            printed
        };
        let (on, off) = (outcome(true), outcome(false));
        assert_eq!(on, off, "{}", file.display());
        compared += 1;
    }
    assert!(compared > 20, "{compared} programs compared");
}

/// What is computed at hand counts every reference it keeps and releases every one
/// it drops: the heap is audited every 31 steps through searches, pairs built from
/// pairs, lets, closures and failures left to the machine.
#[test]
fn computing_at_hand_leaves_a_sound_heap() {
    let src = "def safe (q : Int) (d : Int) (qs : List Int) : Bool =\n\
               \x20 match qs with\n\
               \x20 | [] -> True\n\
               \x20 | Cons c rest -> q != c && abs (q - c) != d && safe q (d + 1) rest\n\
               def count (acc : Pair Int Int) (w : String) : Pair Int Int =\n\
               \x20 match parseInt w with\n\
               \x20 | Just n -> (fst acc, snd acc + n)\n\
               \x20 | Nothing -> let l = strLength w in (if l > 4 then fst acc + 1 else fst acc, snd acc)\n\
               def len (xs : List Int) : Int = match xs with | [] -> 0 | Cons _ r -> 1 + len r\n\
               def main = ( length (concatMap (\\k -> filter (\\q -> safe q 1 [k, k + 2]) (range 0 8)) (range 0 30))\n\
               \x20          , foldl count (0, 0) (concatMap (\\i -> [showInt i, \"word\"]) (range 0 300))\n\
               \x20          , fst (foldl (\\acc x -> (fst acc + x, snd acc / x)) (0, 1) [0, 1, 2])\n\
               \x20          , len (range 0 200) )\n";
    let loaded = driver::load_text("sound.sp", src);
    assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
    let p = loaded.program.expect("loads");
    assert_eq!(print_main_audited(&p, 31), "(207, (0, 44850), 3, 200)");
}

/// Loads a program's text and prints its `main` in one machine: what it printed (or
/// the error) and the machine's figures.
fn run_main(name: &str, src: &str) -> (String, spindle::machine::stats::Stats) {
    let loaded = driver::load_text(name, src);
    assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
    let p = loaded.program.expect("loads");
    let mut m = spindle::machine::Machine::new(&p);
    let printed = m
        .whnf_def(p.main.unwrap())
        .and_then(|v| m.print_value(v, false))
        .unwrap_or_else(|e| e.to_string());
    (printed, m.sight().stats())
}

/// Writes `src` to `name` in `dir` and runs it with `spindle run OPTIONS name`.
fn run_program(
    dir: &std::path::Path,
    name: &str,
    src: &str,
    options: &[&str],
) -> std::process::Output {
    std::fs::write(dir.join(name), src).unwrap();
    let args: Vec<&str> = ["run"]
        .iter()
        .chain(options)
        .chain([&name])
        .copied()
        .collect();
    run_in(dir, &args)
}

/// A figure of `--stats` from a run's standard error.
fn stat(stderr: &[u8], name: &str) -> u64 {
    let err = String::from_utf8_lossy(stderr);
    let prefix = format!("{name}: ");
    err.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("{name} in {err}"))
        .trim()
        .parse()
        .unwrap()
}

fn tempdir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("spindle-machine-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_long_lazy_pipeline_runs_in_constant_memory() {
    let src = "def main = sum (map (\\x -> x * 3) (filter (\\x -> x % 7 != 0) \
               (takeWhile (\\x -> x < 300000) (iterate (\\x -> x + 1) 0))))\n";
    let (printed, s) = run_main("pipe.sp", src);
    assert_eq!(printed, "115713514287");
    assert!(s.contexts_peak < 1000, "contexts_peak {}", s.contexts_peak);
    assert!(s.stacks_peak < 100, "stacks_peak {}", s.stacks_peak);
}

/// A lazy `foldl` whose step is arithmetic on values at hand computes each
/// accumulator when it is built (cheap eagerness), so folding 300,000 elements keeps
/// no chain of thunks and needs no deep stack when the result is finally needed.
#[test]
fn a_lazy_foldl_with_an_arithmetic_step_builds_no_thunk_chain() {
    let src = "def lcg (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648\n\
               def main = foldl (\\acc x -> (acc * 31 + x) % 1000000007) (lcg 7) (range 0 300000)\n";
    let expected = (0..300000i64).fold((7 * 1103515245i64 + 12345) % 2147483648, |acc, x| {
        (acc * 31 + x) % 1000000007
    });
    let (printed, s) = run_main("fold.sp", src);
    assert_eq!(printed, expected.to_string());
    assert!(s.stacks_peak < 100, "stacks_peak {}", s.stacks_peak);
    assert!(s.objects_peak < 1000, "objects_peak {}", s.objects_peak);
}

/// A step that is an `if` on a comparison with arithmetic arms is cheap too.
#[test]
fn a_lazy_foldl_with_an_if_step_builds_no_thunk_chain() {
    let src = "def main = foldl (\\acc x -> if acc > 1000 then acc - x else acc + x) 0 \
               (range 0 300000)\n";
    let expected = (0..300000i64).fold(0, |acc, x| if acc > 1000 { acc - x } else { acc + x });
    let (printed, s) = run_main("foldif.sp", src);
    assert_eq!(printed, expected.to_string());
    assert!(s.stacks_peak < 100, "stacks_peak {}", s.stacks_peak);
}

/// A step that matches, calls total primitives and small functions (`fst`, `snd`)
/// and builds a pair from the previous one is cheap too: folding 300,000 words
/// lazily keeps neither a chain of thunks nor the list, and needs no deep stack.
#[test]
fn a_lazy_foldl_with_a_pair_step_builds_no_thunk_chain() {
    let src = "def count (acc : Pair Int Int) (w : String) : Pair Int Int =\n\
               \x20 match parseInt w with\n\
               \x20 | Just n -> (fst acc, snd acc + n)\n\
               \x20 | Nothing -> (if strLength w > 4 then fst acc + 1 else fst acc, snd acc)\n\
               def main = foldl count (0, 0) \
               (concatMap (\\i -> [showInt i, \"word\", \"longer\"]) (range 0 100000))\n";
    let (printed, s) = run_main("pairs.sp", src);
    assert_eq!(printed, "(100000, 4999950000)");
    assert!(s.stacks_peak < 100, "stacks_peak {}", s.stacks_peak);
    assert!(s.objects_peak < 1000, "objects_peak {}", s.objects_peak);
}

/// `concatMap` lets go of each element of its input once it has produced that
/// element's part of the result (no closure keeps the head of the input).
#[test]
fn concat_map_keeps_no_input_alive() {
    let src = "def main = length (concatMap (\\i -> [i, i]) (range 0 100000))\n";
    let (printed, s) = run_main("cm.sp", src);
    assert_eq!(printed, "200000");
    assert!(s.objects_peak < 100, "objects_peak {}", s.objects_peak);
}

/// A step with an effect (`trace`) is never computed early: a field nothing needs
/// prints nothing, as in the lazy run.
#[test]
fn an_effect_in_a_lazy_step_is_not_performed_early() {
    let dir = tempdir();
    let file = dir.join("trace_step.sp");
    std::fs::write(
        &file,
        "def main = fst (foldl (\\acc x -> (fst acc + x, trace \"never\" x)) (0, 0) [1, 2, 3])\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("run")
        .arg(&file)
        .arg("--store")
        .arg(dir.join("store"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "6\n");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("never"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A recursive search whose value is needed (the test of a `filter`) is computed at
/// hand: 100 searches down a list of 100 make no record per element.
#[test]
fn a_needed_recursive_search_makes_no_record_per_element() {
    let src = "def safe (q : Int) (d : Int) (qs : List Int) : Bool =\n\
               \x20 match qs with\n\
               \x20 | [] -> True\n\
               \x20 | Cons c rest -> q != c && abs (q - c) != d && safe q (d + 1) rest\n\
               def l : List Int = range 100 200\n\
               def main = length (filter (\\q -> safe q 1 l) (range 0 100))\n";
    let (printed, s) = run_main("search.sp", src);
    assert_eq!(printed, "99");
    // 10,000 elements searched; the machine alone makes two records for each.
    assert!(
        s.contexts_allocated < 2_000,
        "contexts_allocated {}",
        s.contexts_allocated
    );
}

/// A recursion deeper than a computation at hand may nest (natively), in a place
/// that needs its value at every level: the computation at hand stops at its bound
/// and the machine gives the result, with no native stack overflow.
#[test]
fn a_deep_needed_recursion_is_left_to_the_machine() {
    let src = "def len (xs : List Int) : Int = match xs with | [] -> 0 | Cons _ r -> 1 + len r\n\
               def main = len (range 0 200000)\n";
    let (printed, _) = run_main("len.sp", src);
    assert_eq!(printed, "200000");
}

/// Cheap eagerness never reports an error the lazy program would not: a step that
/// overflows is left a thunk, and an accumulator nothing needs is never an error.
#[test]
fn an_eager_step_that_would_fail_stays_lazy() {
    let src = "def big (x : Int) : Int = x * 4611686018427387904\n\
               def main = (foldl (\\acc x -> acc * x) 4611686018427387904 [2, 3], \
               length (map big [1, 2, 3]), foldl (\\acc x -> x) 0 [big 5, 7])\n";
    let loaded = driver::load_text("lazyfail.sp", src);
    assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
    let p = loaded.program.expect("loads");
    let mut m = spindle::machine::Machine::new(&p);
    let v = m.whnf_def(p.main.unwrap()).unwrap();
    let err = m.print_value(v, false).unwrap_err().to_string();
    assert!(err.contains("overflow"), "{err}");
    let src2 = "def big (x : Int) : Int = x * 4611686018427387904\n\
                def main = (length (map big [1, 2, 3]), foldl (\\acc x -> x) 0 [big 5, 7])\n";
    let (printed, _) = run_main("lazyok.sp", src2);
    assert_eq!(printed, "(3, 7)");
}

/// A recursive data `let` makes a cycle of cells; walking it a million times keeps a
/// handful of objects live, and once the result is out the cycle itself is reclaimed.
#[test]
fn a_cyclic_list_runs_in_constant_memory_and_is_reclaimed() {
    let src = "def twice (k : Int) : Int = let xs = Cons 1 (Cons 2 xs) in sum (take k xs)\n\
               def main = twice 1000000 + twice 3\n";
    let (printed, s) = run_main("cyc.sp", src);
    assert_eq!(printed, "1500004");
    assert!(s.objects_peak < 10_000, "objects_peak {}", s.objects_peak);
    assert!(s.contexts_live < 200, "contexts_live {}", s.contexts_live);
}

/// A top-level value (a CAF) that only `main` uses is not pinned for the whole run:
/// once `main` has walked past its head, its cells go (the unpinning runs with the
/// cycle check, once a quarter million objects are live).
#[test]
fn a_big_top_level_list_is_not_pinned() {
    let dir = tempdir();
    let out = run_program(
        &dir,
        "caf.sp",
        "def big : List Int = range 0 2000000\ndef main = sum big\n",
        &["--stats", "--progress", "none"],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1999999000000\n");
    let peak = stat(&out.stderr, "objects_peak");
    // Pinned, the two million cells (and their thunks) would all be live at the end.
    assert!(peak < 600_000, "objects_peak {peak}");
}

#[test]
fn externals_run_sequentially() {
    let dir = tempdir();
    let out_file = dir.join("written.txt");
    let src = format!(
        "def main = (run \"echo\" [\"a\", \"b c\"], shell \"echo hi | tr a-z A-Z\", \
         readFile (writeFile \"{}\" \"data\"), delay 5 (1 + 1), run \"echo\" [])\n",
        out_file.display()
    );
    std::fs::write(dir.join("ext.sp"), src).unwrap();
    let out = run_in(&dir, &["run", "--stats", "ext.sp"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "(\"a b c\\n\", \"HI\\n\", \"data\", 2, \"\\n\")\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("externals_dispatched: 6"));
    let out = run_program(
        &dir,
        "fail.sp",
        "def main = shell \"echo oops >&2; exit 3\"\n",
        &[],
    );
    check_error_output(&out, "exited with status 3\noops").unwrap();
}

#[test]
fn functions_print_as_lambda_terms() {
    let dir = tempdir();
    let out = run_program(
        &dir,
        "fns.sp",
        "def add (a : Int) (b : Int) : Int = a + b\n\
         def main = (add 1, \\(x : Int) -> x * 2, Just add)\n",
        &[],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "(\\(b : Int) -> 1 + b, \\(x : Int) -> x * 2, Just (\\(a : Int) (b : Int) -> a + b))\n"
    );
}

#[test]
fn a_local_recursive_loop_is_reclaimed() {
    let src = "def count (k : Int) : Int =\n\
               \x20 let go (n : Int) (acc : Int) : Int = if n == 0 then acc else go (n - 1) (acc + 1) in\n\
               \x20 go k 0\n\
               def main = sum (map count (range 0 300))\n";
    let (printed, s) = run_main("local.sp", src);
    assert_eq!(printed, "44850");
    assert!(s.contexts_peak < 1000, "contexts_peak {}", s.contexts_peak);
    // Every `let go` of every call was reclaimed (only the program's own entries stay).
    assert!(s.contexts_live < 200, "contexts_live {}", s.contexts_live);
}

/// `--max-memory` (LANGUAGE.md 6): a program that needs more stops with `error: out
/// of memory` at the place being evaluated (the user's, not the prelude's), exit 1,
/// never an abort.
#[test]
fn running_out_of_memory_is_an_error() {
    let dir = tempdir();
    let out = run_program(
        &dir,
        "dbl.sp",
        "def dbl (n : Int) (s : String) : String = if n == 0 then s else dbl (n - 1) (s ++ s)\n\
         def main = strLength (dbl 40 \"x\")\n",
        &["--max-memory", "64M"],
    );
    check_error_output(&out, "out of memory\ndbl.sp:1:").unwrap();
    let out = run_program(
        &dir,
        "deep.sp",
        "def main = foldr (\\x acc -> x + acc) 0 (range 0 30000000)\n",
        &["--max-memory", "128M"],
    );
    check_error_output(&out, "out of memory\ndeep.sp:1:").unwrap();
    // A bad size is a command-line error.
    let out = run_in(&dir, &["run", "--max-memory", "lots", "deep.sp"]);
    assert_eq!(out.status.code(), Some(2));
}
