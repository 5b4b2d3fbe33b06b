//! Checking costs time and memory roughly in proportion to the program (LANGUAGE.md
//! section 6; issue 16): for each family of inputs that used to explode, the time at
//! size `4n` is under 8 times the time at size `n` (linear growth gives about 4, a
//! square 16). A ratio, not a wall-clock limit: each size is timed a few times and the
//! fastest run counts, and the families run one after another in one test, so that no
//! two of them compete for the machine.
//!
//! The same holds for `spindle decode` on untrusted bytes and for a long REPL line,
//! through the library.

use prost::Message;
use spindle::core::program::DeclCounts;
use spindle::driver;
use spindle::proto::{decode, encode, pb, source};
use std::time::{Duration, Instant};

/// Under this ratio between the times at `4n` and at `n`, growth counts as linear.
const MAX_RATIO: f64 = 8.0;

/// How many times each size is run (the fastest counts).
const RUNS: usize = 3;

/// One family of inputs.
struct Family {
    name: &'static str,
    /// The base size `n`.
    n: usize,
    /// Runs the work for size `n` once, checking its outcome.
    run: Box<dyn Fn(usize)>,
}

/// The fastest of [`RUNS`] runs of `f`.
fn fastest(f: &dyn Fn()) -> Duration {
    (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// A family that checks the source `make(n)`, which must check (or fail, if
/// `expect_errors`).
fn checks(
    name: &'static str,
    n: usize,
    expect_errors: bool,
    make: impl Fn(usize) -> String + 'static,
) -> Family {
    Family {
        name,
        n,
        run: Box::new(move |n| {
            let text = make(n);
            let loaded = driver::load_text("t.sp", &text);
            assert_eq!(
                loaded.has_errors(),
                expect_errors,
                "{name} at {n}: {}",
                loaded
                    .render_diagnostics()
                    .chars()
                    .take(2000)
                    .collect::<String>()
            );
        }),
    }
}

fn numbered(n: usize, f: impl Fn(usize) -> String) -> String {
    (0..n).map(f).collect()
}

/// The prelude's table sizes.
fn prelude() -> DeclCounts {
    driver::load_text("<prelude>", "")
        .program
        .expect("the prelude loads")
        .counts()
}

/// The encoding of a small checked program, to be made hostile.
fn small_encoding() -> pb::Program {
    let p = driver::load_text("t.sp", "data T = A\ndef main = A\n")
        .program
        .expect("loads");
    encode::program(&p, prelude())
}

/// Decodes `msg` and prints it back as source, as `spindle decode` does.
fn decode_and_print(msg: &pb::Program) {
    let bytes = msg.encode_to_vec();
    let decoded = decode::program_bytes(&bytes).expect("decodes");
    source::program_to_source(&decoded, spindle::driver::prelude_program().as_ref())
        .expect("prints");
}

fn families() -> Vec<Family> {
    vec![
        // `id id ... id 1`: the type argument of the first `id` doubles with each
        // `id` as a tree; it is shared as a graph.
        checks("a chain of id", 4_000, false, |n| {
            format!("def main = {}1\n", "id ".repeat(n))
        }),
        // `v_i = (v_(i-1), v_(i-1))`: the type of v_i is a pair tree of 2^i leaves.
        checks("pairs of pairs", 1_000, false, |n| {
            format!(
                "def v0 = 1\n{}",
                numbered(n, |i| format!("def v{} = (v{i}, v{i})\n", i + 1))
            )
        }),
        // An error message about such a type.
        checks("a message about pairs of pairs", 1_000, true, |n| {
            format!(
                "def v0 = 1\n{}def bad : Int = v{n}\n",
                numbered(n, |i| format!("def v{} = (v{i}, v{i})\n", i + 1))
            )
        }),
        checks("a list pattern", 2_500, false, |n| {
            format!(
                "def f (xs : List Int) : Int = match xs with\n  | [{}] -> x0\n  | _ -> 0\n",
                (0..n)
                    .map(|i| format!("x{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }),
        checks("an untyped lambda", 2_500, true, |n| {
            format!(
                "def main = \\{} -> 0\n",
                (0..n)
                    .map(|i| format!("x{i}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        }),
        checks("a tuple", 2_500, false, |n| {
            format!(
                "def main = ({})\n",
                (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
            )
        }),
        checks("a tuple against a computed type", 2_500, false, |n| {
            format!(
                "def T (n : Int) : Type = if n == 0 then Int else Pair Int (T (n - 1))\n\
                 def main : T {} = ({})\n",
                n - 1,
                (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
            )
        }),
        checks("a chain of arrows", 100_000, false, |n| {
            format!("def T : Type = {}Int\n", "Int -> ".repeat(n))
        }),
        checks("typed parameters", 25_000, false, |n| {
            format!(
                "def f{} : Int = x0\n",
                numbered(n, |i| format!(" (x{i} : Int)"))
            )
        }),
        checks("untyped parameters", 25_000, true, |n| {
            format!("def f{} = 0\n", numbered(n, |i| format!(" x{i}")))
        }),
        checks("match arms", 25_000, false, |n| {
            format!(
                "def f (n : Int) : Int = match n with\n{}  | _ -> 0\n",
                numbered(n, |i| format!("  | {i} -> {i}\n"))
            )
        }),
        checks("a chain of lets", 25_000, false, |n| {
            format!(
                "def main : Int =\n{}  x0 + x1\n",
                numbered(n, |i| format!("  let x{i} = id {i} in\n"))
            )
        }),
        checks("an else-if chain", 25_000, false, |n| {
            format!(
                "def f (n : Int) : Int =\n{}  0\n",
                numbered(n, |i| format!("  if n == {i} then {i} else\n"))
            )
        }),
        checks("a chain of matches", 10_000, false, |n| {
            format!(
                "def f (n : Int) : Int =\n{}  0\n",
                numbered(n, |i| format!("  match n with | {i} -> {i} | _ ->\n"))
            )
        }),
        checks("nested lambdas", 25_000, false, |n| {
            format!(
                "def f : {}Int = {}x0\n",
                "Int -> ".repeat(n),
                numbered(n, |i| format!("\\x{i} -> "))
            )
        }),
        // Instance search (issue 29): n types, each with a derived `Show` instance and a
        // record, and one use of `show` per type; finding each instance is one lookup.
        checks("instances and their uses", 1_000, false, |n| {
            numbered(n, |i| {
                format!(
                    "data T{i} = A{i} | B{i} Int deriving (Show, Eq)\n\
                     record R{i} = {{ f{i} : T{i}, g{i} : Int }} deriving (Show)\n\
                     def s{i} : String = show {{ f{i} = B{i} {i}, g{i} = {i} }}\n"
                )
            })
        }),
        // `spindle decode` on untrusted bytes.
        Family {
            name: "decoding constructors of one name",
            n: 5_000,
            run: Box::new(|n| {
                let mut msg = small_encoding();
                let last = msg.datas.len() - 1;
                let ctor = msg.datas[last].ctors[0].clone();
                msg.datas[last].ctors = vec![ctor; n];
                decode_and_print(&msg);
            }),
        },
        Family {
            name: "decoding definitions of one name",
            n: 5_000,
            run: Box::new(|n| {
                let mut msg = small_encoding();
                let mut def = msg.defs.last().expect("a definition").clone();
                def.name = "f".to_string();
                msg.defs.extend(std::iter::repeat_n(def, n));
                decode_and_print(&msg);
            }),
        },
        Family {
            name: "decoding deep function types",
            n: 25_000,
            run: Box::new(|n| {
                let text = format!(
                    "def T : Type = {}Int\ndef f : {}Int = {}0\n",
                    "Int -> ".repeat(n),
                    "(x : Int) -> ".repeat(n),
                    "\\x -> ".repeat(n)
                );
                let p = driver::load_text("t.sp", &text).program.expect("loads");
                decode_and_print(&encode::program(&p, prelude()));
            }),
        },
        // A long line typed or pasted into the REPL, checked with the session.
        Family {
            name: "a long REPL line",
            n: 10_000,
            run: Box::new(|n| {
                let line = format!(
                    "sum [{}] + length [{}]",
                    (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", "),
                    (0..n)
                        .map(|i| format!("\"{i}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let mut files = driver::FileSnapshot::default();
                let loaded = driver::load_session(None, &[line.as_str()], &mut files);
                assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
            }),
        },
    ]
}

#[test]
fn costs_grow_linearly() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for family in families() {
        let n = family.n;
        let small = fastest(&|| (family.run)(n));
        let large = fastest(&|| (family.run)(4 * n));
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
        let line = format!(
            "{}: n = {n}: {:.1} ms, 4n: {:.1} ms, ratio {ratio:.1}",
            family.name,
            small.as_secs_f64() * 1e3,
            large.as_secs_f64() * 1e3
        );
        if ratio >= MAX_RATIO {
            failures.push(line.clone());
        }
        report.push(line);
    }
    // The sizes the issue names, once each: a type of a million arrows.
    let start = Instant::now();
    let million = format!("def T : Type = {}Int\n", "Int -> ".repeat(1_000_000));
    let loaded = driver::load_text("t.sp", &million);
    assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
    report.push(format!(
        "a million arrows: {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    ));
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "grew faster than linearly:\n{}",
        failures.join("\n")
    );
}
