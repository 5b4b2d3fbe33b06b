//! The scheduler (DESIGN.md section 4): a run with fibers and a worker pool prints what
//! a `--sequential` run prints, for every example program, for random programs (a
//! property test), and for programs aimed at speculation's edge cases (errors, infinite loops and failed calls in work nobody
//! needs; the same in work that is needed; infinite structures), with the reference
//! counts audited at every step; `--jobs` bounds the calls running at once.
//!
//! Times are not asserted here (they are benchmarks' and the conformance script's).

use crate::common;

use common::{distinct_example_programs, load_checked, run_in, scratch_file, tests_dir};
use proptest::prelude::*;
use spindle::core::program::Program;
use spindle::driver;
use spindle::machine::Machine;
use std::path::Path;

fn load(path: &Path) -> Program {
    load_checked(path).program.expect("a program")
}

fn load_text(name: &str, text: &str) -> Program {
    load(&scratch_file("parallel", name, text))
}

/// Runs `main` with or without a scheduler; the printed value or the error (message
/// and place).
fn run(program: &Program, parallel: Option<usize>, audit: bool) -> Result<String, String> {
    run_held(program, parallel, audit).0
}

/// [`run`], and whether the run ended with the failure that decided it in place of an
/// `effect` call that could not start ([`CallPolicy::ended_by_an_earlier_failure`](spindle::sched::CallPolicy::ended_by_an_earlier_failure)).
fn run_held(
    program: &Program,
    parallel: Option<usize>,
    audit: bool,
) -> (Result<String, String>, bool) {
    let mut m = Machine::new(program);
    let policy = match parallel {
        Some(jobs) => spindle::sched::Scheduler::install(
            &mut m,
            spindle::external::exec::Limits {
                jobs,
                ..Default::default()
            },
        ),
        None => spindle::sched::Sequential::install_plain(&mut m),
    };
    if audit {
        m.run.audit_every = 1;
    }
    let main = program.main.expect("a main");
    let r = driver::evaluate_def(&mut m, main, false);
    m.shutdown();
    if audit {
        m.collect_cycles();
        if let Err(e) = m.sight().audit(None, false) {
            panic!("after the run: {e}");
        }
    }
    if let Err(e) = &r {
        assert!(!e.message.contains("internal error"), "{e}");
    }
    (
        r.map_err(|e| format!("{e} at {:?}", e.span)),
        policy.borrow().ended_by_an_earlier_failure(),
    )
}

#[test]
fn every_example_prints_the_same_in_parallel() {
    // Each program once (two example files differ only in a comment).
    for file in distinct_example_programs() {
        if file.ends_with("tak.sp") || file.ends_with("queens.sp") {
            continue; // no externals, and seconds long: the scheduler never starts
        }
        let p = load(&file);
        let sequential = run(&p, None, false);
        for jobs in [1, 3, 64] {
            let parallel = run(&p, Some(jobs), false);
            assert_eq!(parallel, sequential, "{} with {jobs} jobs", file.display());
        }
    }
}

/// Small programs where speculation meets errors, loops, failed calls and infinite
/// data, with and without demand for them; reference counts audited at every step.
#[test]
fn speculation_never_changes_a_result() {
    let programs = [
        // Independent calls in a strict fold, and in a tuple being printed.
        "def main = sum (map (\\x -> delay 20 x) (range 0 10))",
        "def main = (shell \"echo a\", delay 10 (shell \"echo b\"), readFile \"/nonexistent/x\")",
        // An error, an infinite loop and a failed call nobody needs.
        "def main = (delay 30 1, fst (2, error \"never\"), fst (3, let x = x + 1 in x))",
        "def main = (delay 30 1, fst (2, shell \"exit 3\"))",
        // The same, needed: the sequential error.
        "def main = [delay 30 1, error \"boom\"]",
        "def main : Pair Int Int = (delay 30 1, let x = x + 1 in x)",
        "def main = (delay 30 1, shell \"echo oops >&2; exit 4\")",
        // Infinite data next to a call: speculation must stop somewhere.
        "def main = (delay 30 1, take 3 (iterate (\\x -> x + 1) 0))",
        // Shared work: one call, used twice.
        "def main = let s = shell \"echo once\" in (delay 20 s, s ++ s)",
        // `run` with arguments computed by other calls.
        "def main = run \"echo\" (map (\\n -> delay 10 (showInt n)) (range 0 5))",
    ];
    for (k, text) in programs.iter().enumerate() {
        let p = load_text(&format!("spec{k}.sp"), &format!("{text}\n"));
        let sequential = run(&p, None, true);
        for jobs in [1, 2, 64] {
            let parallel = run(&p, Some(jobs), true);
            assert_eq!(parallel, sequential, "`{text}` with {jobs} jobs");
        }
    }
}

/// `--jobs` bounds the processes running at once (LANGUAGE.md 7.3).
#[test]
fn jobs_bound_the_calls_running_at_once() {
    let dir = tests_dir().join("examples").join("spec");
    let procs = scratch_file(
        "parallel",
        "procs.sp",
        "def main = map (\\i -> run \"sleep\" [\"0.05\"] ++ showInt i) (range 0 8)\n",
    );
    for (jobs, most) in [("1", 1), ("3", 3)] {
        let out = run_in(
            procs.parent().unwrap(),
            &["run", "procs.sp", "--stats", "--jobs", jobs],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let peak: usize = stderr
            .lines()
            .find_map(|l| l.strip_prefix("externals_peak_in_flight: "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no peak in {stderr}"));
        assert!(peak <= most, "--jobs {jobs}: {peak} processes at once");
    }
    let out = run_in(&dir, &["run", "fanout.sp", "--stats", "--sequential"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("externals_peak_in_flight: 1"), "{stderr}");
}

/// Random programs mixing calls, waits, failures, errors, sharing and unneeded work.
#[derive(Clone, Debug)]
enum G {
    Lit(i64),
    Add(Box<G>, Box<G>),
    Delay(u8, Box<G>),
    SumOfCalls(u8, u8, i64),
    If(Box<G>, i64, Box<G>, Box<G>),
    Error,
    Fst(Box<G>, Box<G>),
    Words(u8),
    FailedCall,
    Shared(Box<G>),
    // The phrasings of issue 26 (`../shared/phrasing`): a strict accumulator, folds,
    // `sortBy`, `lookup`, `concatMap`, `filter` on call results, `++` of mapped lists,
    // a Maybe chain, a branch on a call's result, recursion without an accumulator,
    // and `try` around any of it (errors keep their sequential order).
    LoopAcc(u8, u8, Box<G>),
    Foldl(u8, u8, i64),
    SortBy(u8, u8),
    Lookup(u8, u8, i64),
    ConcatMap(u8, u8),
    FilterCalls(u8, u8),
    AppendMapped(u8, u8),
    MaybeChain(Box<G>),
    Tree(u8, u8),
    Try(Box<G>),
}

/// Helpers every generated program may call.
const HELPERS: &str = "\
def svc (ms : Int) (x : Int) : Int = delay ms x
def loopAcc (ms : Int) (i : Int) (acc : Int) : Int =
  if i <= 0 then acc else loopAcc ms (i - 1) (acc + svc ms i)
def tree (d : Int) (s : Int) : Int =
  if d <= 0 then svc 1 s else tree (d - 1) (s * 2) + tree (d - 1) ((s * 2) + 1)
";

impl G {
    fn source(&self) -> String {
        match self {
            G::Lit(n) => format!("({n})"),
            G::Add(a, b) => format!("({} + {})", a.source(), b.source()),
            G::Delay(ms, a) => format!("(delay {ms} {})", a.source()),
            G::SumOfCalls(n, ms, k) => {
                format!("(sum (map (\\x -> delay {ms} (x * ({k}))) (range 0 {n})))")
            }
            G::If(c, k, a, b) => format!(
                "(if {} > ({k}) then {} else {})",
                c.source(),
                a.source(),
                b.source()
            ),
            G::Error => "(error \"boom\")".to_string(),
            G::Fst(a, b) => format!("(fst ({}, {}))", a.source(), b.source()),
            G::Words(n) => format!(
                "(length (words (shell \"echo {}\")))",
                vec!["w"; *n as usize].join(" ")
            ),
            G::FailedCall => "(strLength (shell \"exit 3\"))".to_string(),
            G::Shared(a) => format!("(let s = {} in s + s)", a.source()),
            G::LoopAcc(ms, n, a) => format!("(loopAcc {ms} {n} {})", a.source()),
            G::Foldl(ms, n, k) => {
                format!("(foldl (\\acc x -> acc + svc {ms} (x * ({k}))) 0 (range 0 {n}))")
            }
            G::SortBy(ms, n) => format!(
                "(sum (take 2 (sortBy (\\a b -> a <= b) (map (\\x -> svc {ms} ((x * 7) % 5)) (range 0 {n})))))"
            ),
            G::Lookup(ms, n, k) => format!(
                "(fromMaybe (0 - 1) (lookup ({k}) (map (\\x -> (svc {ms} x, x * 10)) (range 0 {n}))))"
            ),
            G::ConcatMap(ms, n) => {
                format!("(sum (concatMap (\\x -> [svc {ms} x, x]) (range 0 {n})))")
            }
            G::FilterCalls(ms, n) => format!(
                "(sum (map (svc {ms}) (filter (\\x -> svc {ms} x % 2 == 0) (range 0 {n}))))"
            ),
            G::AppendMapped(ms, n) => {
                format!("(sum (map (svc {ms}) (range 0 {n}) ++ map (svc {ms}) (range 0 {n})))")
            }
            G::MaybeChain(a) => format!(
                "(fromMaybe 0 (match Just {} with | Just v -> (if svc 1 v > 3 then Just (svc 1 (v + 1)) else Nothing) | Nothing -> Nothing))",
                a.source()
            ),
            G::Tree(d, s) => format!("(tree {d} {s})"),
            G::Try(a) => format!(
                "(match try {} with | Left e -> strLength e | Right v -> v)",
                a.source()
            ),
        }
    }
}

fn program() -> impl Strategy<Value = Vec<G>> {
    let leaf = prop_oneof![
        4 => (-5i64..50).prop_map(G::Lit),
        2 => (0u8..6, 0u8..4, -3i64..4).prop_map(|(n, ms, k)| G::SumOfCalls(n, ms, k)),
        1 => Just(G::Error),
        1 => (0u8..4).prop_map(G::Words),
        1 => Just(G::FailedCall),
        1 => (0u8..3, 0u8..5, 0i64..3).prop_map(|(ms, n, k)| G::Foldl(ms, n, k)),
        1 => (0u8..3, 0u8..5).prop_map(|(ms, n)| G::SortBy(ms, n)),
        1 => (0u8..3, 0u8..5, -1i64..4).prop_map(|(ms, n, k)| G::Lookup(ms, n, k)),
        1 => (0u8..3, 0u8..4).prop_map(|(ms, n)| G::ConcatMap(ms, n)),
        1 => (0u8..3, 0u8..5).prop_map(|(ms, n)| G::FilterCalls(ms, n)),
        1 => (0u8..3, 0u8..4).prop_map(|(ms, n)| G::AppendMapped(ms, n)),
        1 => (0u8..4, 0u8..3).prop_map(|(d, s)| G::Tree(d, s)),
    ];
    let expr = leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| G::Add(Box::new(a), Box::new(b))),
            (0u8..4, inner.clone()).prop_map(|(ms, a)| G::Delay(ms, Box::new(a))),
            (inner.clone(), -5i64..20, inner.clone(), inner.clone())
                .prop_map(|(c, k, a, b)| { G::If(Box::new(c), k, Box::new(a), Box::new(b)) }),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| G::Fst(Box::new(a), Box::new(b))),
            inner.clone().prop_map(|a| G::Shared(Box::new(a))),
            (0u8..3, 0u8..5, inner.clone()).prop_map(|(ms, n, a)| G::LoopAcc(ms, n, Box::new(a))),
            inner.clone().prop_map(|a| G::MaybeChain(Box::new(a))),
            inner.prop_map(|a| G::Try(Box::new(a))),
        ]
    });
    prop::collection::vec(expr, 1..4)
}

/// Whether a parallel run ended as the sequential one did. One case may differ
/// (LANGUAGE.md 11): once a certain call failure decides a parallel run, no new
/// `effect` call starts, so where the sequential run would go on to make such a call
/// first (and then reach its own error: another failing call, an `error`, ...), the
/// parallel run cannot, and reports the failure that decided it
/// ([`CallPolicy::ended_by_an_earlier_failure`](spindle::sched::CallPolicy::ended_by_an_earlier_failure)). That failure must then be one of the
/// program's calls (a `shell` that exited with a status); anything else must be the
/// same to the letter.
fn same_outcome(
    parallel: &Result<String, String>,
    held_back: bool,
    sequential: &Result<String, String>,
    text: &str,
) -> bool {
    if parallel == sequential {
        return true;
    }
    let (Err(p), Err(_)) = (parallel, sequential) else {
        return false;
    };
    // The source text of the place an error names (`Span { file, start: S, end: E }`).
    let place = |e: &str| -> Option<String> {
        let number = |key: &str| -> Option<usize> {
            let rest = &e[e.find(key)? + key.len()..];
            rest[..rest.find(|c: char| !c.is_ascii_digit())?]
                .parse()
                .ok()
        };
        text.get(number("start: ")?..number("end: ")?)
            .map(str::to_string)
    };
    held_back && p.contains("exited with status") && place(p).as_deref() == Some("shell")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// `--sequential` and parallel runs print the same (the core law of the scheduler).
    #[test]
    fn sequential_and_parallel_runs_print_the_same(fields in program(), jobs in 1usize..6) {
        let body: Vec<String> = fields.iter().map(G::source).collect();
        let text = if body.len() == 1 {
            format!("{HELPERS}def main : Int = {}\n", body[0])
        } else {
            format!("{HELPERS}def main = ({})\n", body.join(", "))
        };
        let p = load_text("random.sp", &text);
        let sequential = run(&p, None, false);
        let (parallel, held_back) = run_held(&p, Some(jobs), true);
        prop_assert!(
            same_outcome(&parallel, held_back, &sequential, &text),
            "parallel {:?}, sequential {:?}: {}",
            parallel,
            sequential,
            text
        );
    }
}

/// LANGUAGE.md section 7: one call with given arguments at one place of the program runs
/// once in a run and its result is shared; calls written at two places are two calls.
#[test]
fn a_call_at_one_place_with_the_same_arguments_runs_once() {
    let counter = scratch_file("parallel", "counter.txt", "");
    let c = counter.display();
    let once = load_text(
        "once.sp",
        &format!(
            "def main = map (\\x -> shell \"sleep 0.05; echo x >> {c}; wc -l < {c}\") [1, 2, 3]\n"
        ),
    );
    let twice = load_text(
        "twice.sp",
        &format!(
            "def main = (shell \"echo x >> {c}; wc -l < {c}\", shell \"echo x >> {c}; wc -l < {c}\")\n"
        ),
    );
    for jobs in [None, Some(1), Some(4)] {
        std::fs::write(&counter, "").unwrap();
        let out = run(&once, jobs, true);
        assert_eq!(
            out.as_deref(),
            Ok("[\"1\\n\", \"1\\n\", \"1\\n\"]"),
            "jobs {jobs:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&counter).unwrap().lines().count(),
            1
        );
    }
    std::fs::write(&counter, "").unwrap();
    assert_eq!(
        run(&twice, None, false).as_deref(),
        Ok("(\"1\\n\", \"2\\n\")")
    );
}

/// Issue 26: a strict evaluation blocked on a call becomes a future and the fiber goes
/// on; an error the fiber meets after that still comes second, as it does
/// sequentially, with or without a `try` in the later work.
#[test]
fn a_futures_error_comes_before_what_follows_it() {
    for main in [
        // `f` is strict in `x` (its body fails): `x` is evaluated first.
        "def f (x : Int) : Int = error \"second\" + x\ndef main : Int = f (svc 40 1 + error \"first\")\n",
        // The later work catches its own error: the future's is not caught.
        "def g (x : Int) : String = (match try (error \"second\") with | Left e -> e | Right v -> \"no\") ++ showInt x\n\
         def main : String = g (svc 40 1 + error \"first\")\n",
        // An accumulator that fails after its call, then a failure further on.
        "def go (i : Int) (acc : Int) : Int = if i <= 0 then acc + error \"second\" else go (i - 1) (acc + (if i == 3 then svc 30 i + error \"first\" else svc 30 i))\n\
         def main : Int = go 5 0\n",
        // A `try` around all of it catches the first.
        "def f (x : Int) : Int = error \"second\" + x\ndef main = try (f (svc 40 1 + error \"first\"))\n",
    ] {
        let text = format!("{HELPERS}{main}");
        let p = load_text("futures.sp", &text);
        let sequential = run(&p, None, false);
        assert!(
            format!("{sequential:?}").contains("first"),
            "{sequential:?}: {text}"
        );
        for jobs in [1, 4] {
            let parallel = run(&p, Some(jobs), true);
            assert_eq!(parallel, sequential, "{text}");
        }
    }
}

/// Issue 26: the calls a strict accumulator, `sum`, `foldl` and `length (filter ...)`
/// reach are in flight at once, as many as there are independent calls
/// (deterministic: counted by the call layer, not timed).
#[test]
fn calls_behind_strict_evaluation_are_in_flight_at_once() {
    for (main, calls) in [
        ("def main : Int = sum (map (svc 100) (range 0 50))\n", 50),
        ("def main : Int = loopAcc 100 20 0\n", 20),
        (
            "def main : Int = foldl (\\acc x -> acc + svc 100 x) 0 (range 0 30)\n",
            30,
        ),
        (
            "def main : Int = length (filter (\\x -> x > 2) (map (svc 100) (range 0 25)))\n",
            25,
        ),
        (
            "def main : Int = sum (map (svc 100) (range 0 10) ++ map (svc 100) (range 10 20))\n",
            20,
        ),
        ("def main : Int = tree 4 1\n", 16),
    ] {
        let text = format!("{HELPERS}{main}");
        let p = load_text("in_flight.sp", &text);
        assert_eq!(peak_in_flight(&p, &text), calls, "{text}");
    }
}

/// How many calls were in flight at once at most while `p` (whose source is `text`)
/// ran in parallel to its end (counted by the call layer, not timed).
fn peak_in_flight(p: &Program, text: &str) -> u64 {
    let mut m = Machine::new(p);
    spindle::sched::Scheduler::install(&mut m, Default::default());
    let r = driver::evaluate_def(&mut m, p.main.expect("a main"), false);
    assert!(r.is_ok(), "{r:?}: {text}");
    let peak = m.sight().stats().externals_peak_in_flight;
    m.shutdown();
    peak
}

/// Speculation sees every variable in scope of a parked fiber, not only those of its
/// innermost record: a nested pattern (`Cons (k, v) rest`, as the prelude's `lookup`
/// has it) binds the fields of the pair in a record of their own, under the record
/// holding `rest`, and a thunk made in a match arm reads the function's parameters
/// from the record above. The calls such variables reach start while the first one
/// is awaited, and the output is the sequential run's.
#[test]
fn speculation_reaches_the_variables_of_enclosing_records() {
    for (main, calls) in [
        (
            "def main : Maybe Int = lookup 40 [(svc 100 1, 1), (svc 100 2, 2), (svc 100 3, 3)]\n",
            3,
        ),
        (
            "def main : Maybe Int = lookup 40 (map (\\x -> (x, 1)) [svc 100 1, svc 100 2, svc 100 3])\n",
            3,
        ),
        (
            "def main : Maybe Int = lookup 40 (map (\\x -> (x, 1)) (foldl (\\acc x -> Cons (svc 100 x) acc) [] [1, 2, 3, 4]))\n",
            4,
        ),
        (
            "def main : Pair Int Int = foldl (\\t x -> match t with | (a, b) -> (a + svc 100 a, max b x)) (0, 0) [svc 100 7]\n",
            2,
        ),
    ] {
        let text = format!("{HELPERS}{main}");
        let p = load_text("enclosing.sp", &text);
        assert_eq!(peak_in_flight(&p, &text), calls, "{text}");
        let sequential = run(&p, None, true);
        assert_eq!(run(&p, Some(4), true), sequential, "{text}");
    }
}

/// Effect calls in the fields of list elements already evaluated to data (records
/// the sort's comparisons looked into) start at once when the whole list is needed:
/// the look for work that may call goes into such an element's fields. With five
/// process calls under `sortBy`, five are in flight at once (four before, when the
/// sort's last singleton was looked past).
#[test]
fn calls_in_fields_of_evaluated_elements_start_at_once() {
    let text = "data E = MkE Int String\n\
                def job (x : Int) : String = shell (\"sleep 0.3; echo \" ++ showInt x)\n\
                def mk (x : Int) : E = MkE x (job x)\n\
                def key (e : E) : Int = match e with | MkE k _ -> k\n\
                def out (e : E) : String = match e with | MkE _ s -> s\n\
                def main : List String = map out (sortBy (\\p q -> key p <= key q) (map mk [3, 1, 2, 5, 4]))\n";
    let p = load_text("fields.sp", text);
    assert_eq!(peak_in_flight(&p, text), 5, "{text}");
    let sequential = run(&p, None, true);
    assert_eq!(run(&p, Some(8), true), sequential, "{text}");
}

/// `prim_join` (what `unlines` and `concatStrings` are) walks its list to its end, so
/// a printed `unlines (xs ++ ys)` needs `ys` whole from the start: the process that
/// makes `ys` runs while the one that makes `xs` does, not after it.
#[test]
fn a_joined_list_starts_the_calls_of_its_second_part_at_once() {
    for main in [
        "def main : String = unlines (lines (shell \"sleep 0.3; echo a\") ++ lines (shell \"sleep 0.3; echo b\"))\n",
        "def main : String = concatStrings (words (shell \"sleep 0.3; echo a\") ++ words (shell \"sleep 0.3; echo b\"))\n",
    ] {
        let p = load_text("join.sp", main);
        assert_eq!(peak_in_flight(&p, main), 2, "{main}");
        let sequential = run(&p, None, true);
        assert_eq!(run(&p, Some(8), true), sequential, "{main}");
    }
}

/// A known call waiting for one argument starts the later ones its definition
/// certainly needs: in `xs ++ ys` walked to its end, the stream `ys` comes from starts
/// while `xs` waits for its first line, not once `xs` has ended. The first process
/// waits (up to 2 s) for a file the second makes, and says whether it appeared.
#[test]
fn a_call_waiting_for_its_first_argument_starts_the_later_ones_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    for (n, consumer) in ["length", "unlines"].iter().enumerate() {
        let flag = dir.path().join(format!("flag{n}"));
        let flag = flag.display();
        let first = format!(
            "for i in $(seq 100); do test -e {flag} && break; sleep 0.02; done; \
             test -e {flag} && echo overlap || echo alone"
        );
        let shown = if *consumer == "length" {
            "showInt (length"
        } else {
            "(unlines"
        };
        let main = format!(
            "def both : List String = shellLines \"{first}\" ++ shellLines \"touch {flag}; echo b\"\n\
             def main : String = {shown} both) ++ \" \" ++ concatStrings both\n"
        );
        let p = load_text("later.sp", &main);
        let out = run(&p, Some(8), true).unwrap();
        assert!(out.contains("overlap"), "{main}\n{out}");
    }
}

/// Spine walks (a certain fiber walking a list a call needs to its end) share what
/// they evaluate and leave the heap whole: every object is released once.
#[test]
fn spine_walks_leave_the_heap_whole() {
    for main in [
        "def main : Int = sum (filter (\\i -> svc 10 i > 0) (range 0 3))\n",
        "def keep (i : Int) : Bool = svc 10 i > 0\ndef main : Int = sum (filter keep [1, 2, 3])\n",
        "def main : Int = length (concatMap (\\i -> if svc 10 i > 0 then [i, i] else []) (range 0 4))\n",
        "def main : Int = sum (take 2 (sortBy (\\a b -> a >= b) (concatMap (\\i -> [svc 10 i]) (range 0 5))))\n",
        "def main : Int = length (concatMap (\\i -> [svc 10 i]) (range 0 3) ++ error \"boom\")\n",
    ] {
        let text = format!("{HELPERS}{main}");
        let p = load_text("spine.sp", &text);
        let sequential = run(&p, None, true);
        for jobs in [1, 4] {
            assert_eq!(run(&p, Some(jobs), true), sequential, "{main}");
        }
    }
}
