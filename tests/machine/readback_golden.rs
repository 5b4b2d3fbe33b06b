//! Readback gives the terms it gave before it became a fold of the generic walk
//! (issue 10): fingerprints of the terms read back from the example programs and from
//! small programs aimed at sharing, knots and budgets, recorded with the natively
//! recursive readback, in `tests/readback/golden.txt`.
//!
//! A fingerprint covers a term's whole graph: every node's own content (constructor,
//! binder names, literals, spans) in depth-first order, and each node met again (the
//! same `Rc`) as a back-reference to its first visit, so two terms have the same
//! fingerprint only if they are the same tree with the same sharing.
//!
//! What is read back, for each program:
//! - every definition's value before any evaluation (functions, CAF code);
//! - the whole state ([`Machine::read_back_state`]) paused after each of a range of
//!   step counts, and, at each pause, every definition's value read with several
//!   budgets (holes where a budget runs out, thunks caught being evaluated);
//! - every definition's value once `main` has been printed, with the same budgets.
//!
//! `SPINDLE_RECORD_READBACK=1` writes the file instead of checking it. A change of
//! the machine that changes what a paused state holds after a given number of steps
//! (an optimisation that takes fewer steps, or computes a value instead of a thunk)
//! changes the `state@` and `values@` lines, and only those: re-record after checking
//! that no other line moved. (Recorded again after cheap eagerness, which computes
//! some arguments at once.) A change of a prelude definition's body also moves the
//! hashes of the `before` and `after` lines (they read back every definition), but
//! not their sizes.

use crate::common;

use common::{example_programs, load_checked, scratch_file, tests_dir};
use spindle::core::program::Program;
use spindle::core::term::{CasePat, DefId, RcTerm, Term};
use spindle::machine::Machine;
use spindle::machine::readback::{READBACK_BUDGET, Reader};
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

/// Steps after which each program is paused (those past its end are skipped).
const PAUSES: &[u64] = &[
    1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 1000, 3000, 10_000, 30_000,
];

/// Budgets each definition's value is read with.
const BUDGETS: &[u32] = &[0, 1, 3, 10, 40, 200, READBACK_BUDGET];

/// Small programs: sharing, knots, partial applications, stuck and open terms.
const PROGRAMS: &[&str] = &[
    // A value built with sharing: a DAG of linear size.
    "def p0 = (1, 2)\ndef p1 = (p0, p0)\ndef p2 = (p1, p1)\ndef p3 = (p2, p2)\n\
     def main = let q = (p3, p3) in (q, q)",
    // Knots through data (infinite values: holes past the budget).
    "def ones = let xs = Cons 1 xs in xs\ndef main = take 5 ones",
    "def main = take 9 (let xs = Cons 1 (Cons 2 (Cons 3 (Cons 4 xs))) in xs)",
    "def main = take 5 (let xs = Cons 1 (map (\\x -> x * 2) xs) in xs)",
    // Closures, recursive local functions, partial applications of all kinds.
    "def add (a : Int) (b : Int) (c : Int) : Int = a + b + c\n\
     def part = add 1\ndef part2 = add 1 2\ndef con = Cons 1\n\
     def main = (part 2 3, part2 4, \\(x : Int) -> let k = x in \\(y : Int) -> y + k, con [])",
    "def main = let go (n : Int) (acc : Int) : Int = if n == 0 then acc else go (n - 1) (acc + n) in (go 30 0, go)",
    "def main = (\\(x : Int) -> x * 2, let k = 3 in \\(y : Int) -> y + k, map (\\f -> f 1) [\\z -> z])",
    // Lazy accumulators: chains of suspended thunks.
    "def main = foldl (\\acc x -> acc + x) 0 (range 0 300)",
    "def main = length (map (\\x -> x + 1) (range 0 200))",
    // Black holes and errors caught in the state.
    "def main : Int = let x = x + 1 in x",
    "def main : Int = fst (1, error \"never\") + length [error \"lazy\", 2]",
    "def main = ([1, 2, 3] == [1, 2, 4], (1, Just [2]) != (1, Just [2]))",
    "def main = join \", \" (map showInt [1, 2, 3]) ++ \"!\"",
    // Types as values.
    "def T : Type = Int -> Int\ndef id (A : Type) (x : A) : A = x\ndef k = id T\ndef main = id Int 3",
];

/// Examples whose run calls externals (their states are not read back here).
fn calls_externals(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap();
    ["delay", "shell", "run ", "readFile", "writeFile"]
        .iter()
        .any(|e| text.contains(e))
}

/// A node's own content (not its children's).
fn local(t: &Term) -> String {
    match t {
        Term::Pi(b, _) => format!("Pi {:?} {:?}", b.name, b.plicity),
        Term::Lam(b, _) => format!("Lam {:?} {:?}", b.name, b.plicity),
        Term::App(_, p, _) => format!("App {p:?}"),
        Term::Let(b, _, _) => format!("Let {:?} {:?}", b.name, b.plicity),
        Term::Ann(..) => "Ann".into(),
        Term::Match(m) => {
            let mut s = format!("Match {:?}", m.span);
            for arm in &m.arms {
                match &arm.pat {
                    CasePat::Con(c, fields) => {
                        s += &format!(" | {c:?}");
                        for f in fields {
                            s += &format!(" {:?} {:?}", f.name, f.plicity);
                        }
                    }
                    CasePat::Lit(l) => s += &format!(" | {l:?}"),
                }
            }
            if let Some((b, _)) = &m.default {
                s += &format!(" default {:?} {:?}", b.name, b.plicity);
            }
            s
        }
        leaf => format!("{leaf:?}"),
    }
}

/// A fingerprint of a term's graph (see the module documentation), fed to `h`; the
/// number of distinct nodes.
fn fingerprint(t: &RcTerm, h: &mut blake3::Hasher) -> usize {
    let mut ids: HashMap<*const Term, usize> = HashMap::new();
    let mut work = vec![t];
    let mut kids = Vec::new();
    while let Some(t) = work.pop() {
        if let Some(&id) = ids.get(&Rc::as_ptr(t)) {
            h.update(format!("@{id};").as_bytes());
            continue;
        }
        ids.insert(Rc::as_ptr(t), ids.len());
        h.update(local(t).as_bytes());
        h.update(b";");
        t.for_each_child(|c, _| kids.push(c));
        work.extend(kids.drain(..).rev());
    }
    ids.len()
}

/// The fingerprints of one program, one line per kind of readback.
struct Record {
    lines: Vec<String>,
}

impl Record {
    /// A line for `what`: the hash of the terms (or errors) and their node count.
    fn add(&mut self, what: String, terms: &[Result<RcTerm, String>]) {
        let mut h = blake3::Hasher::new();
        let mut nodes = 0;
        for t in terms {
            match t {
                Ok(t) => nodes += fingerprint(t, &mut h),
                Err(e) => {
                    h.update(format!("error {e};").as_bytes());
                }
            }
            h.update(b"|");
        }
        let hex = h.finalize().to_hex();
        self.lines.push(format!("{what} {} {nodes}", &hex[..16]));
    }
}

/// Every definition's value, read with each budget.
fn values(m: &mut Machine<'_>, program: &Program) -> Vec<Vec<Result<RcTerm, String>>> {
    let vals: Vec<_> = (0..program.defs.len())
        .map(|i| m.def_value_pinned(DefId(i as u32)))
        .collect();
    BUDGETS
        .iter()
        .map(|&b| {
            vals.iter()
                .map(|&v| Ok(Reader::with_budget(m.sight(), b).word(v, 0)))
                .collect()
        })
        .collect()
}

/// Records every definition's value read back before any evaluation.
fn record_before(name: &str, program: &Program, rec: &mut Record) {
    let mut m = Machine::new(program);
    let before: Vec<_> = (0..program.defs.len())
        .map(|i| {
            let v = m.def_value_pinned(DefId(i as u32));
            Ok(m.sight().read_back(v))
        })
        .collect();
    rec.add(format!("{name} before"), &before);
}

/// Records what the module documentation lists for one program.
fn record_program(name: &str, program: &Program, pauses: bool, rec: &mut Record) {
    let main = program.main.expect("a main");
    record_before(name, program, rec);
    for &n in PAUSES.iter().filter(|_| pauses) {
        let mut m = Machine::new(program);
        m.set_pause_after(n);
        let r = m.whnf_def(main).and_then(|v| m.print_value(v, false));
        if !m.is_paused() {
            let _ = r;
            break;
        }
        let root = m.def_value_pinned(main);
        let state = m.sight().read_back_state(root).map_err(|e| e.0);
        rec.add(format!("{name} state@{n}"), &[state]);
        for (b, terms) in BUDGETS.iter().zip(values(&mut m, program)) {
            rec.add(format!("{name} values@{n}/{b}"), &terms);
        }
    }
    let mut m = Machine::new(program);
    let out = m.whnf_def(main).and_then(|v| m.print_value(v, false));
    let _ = out;
    m.reset();
    for (b, terms) in BUDGETS.iter().zip(values(&mut m, program)) {
        rec.add(format!("{name} after/{b}"), &terms);
    }
}

/// Every line, in a fixed order.
fn record_all() -> Vec<String> {
    let mut rec = Record { lines: Vec::new() };
    let root = tests_dir().parent().unwrap().to_path_buf();
    for file in example_programs() {
        let loaded = load_checked(&file);
        let program = loaded.program.expect("a program");
        let name = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .display()
            .to_string();
        if program.main.is_none() {
            continue;
        }
        let long = ["tak.sp", "queens.sp", "fanout.sp"]
            .iter()
            .any(|n| file.ends_with(n));
        if calls_externals(&file) || long {
            // Their definitions before evaluation only.
            record_before(&name, &program, &mut rec);
            continue;
        }
        record_program(&name, &program, true, &mut rec);
    }
    for (k, text) in PROGRAMS.iter().enumerate() {
        let file = scratch_file("readback-golden", &format!("p{k}.sp"), &format!("{text}\n"));
        let loaded = load_checked(&file);
        let program = loaded.program.expect("a program");
        record_program(&format!("program{k}"), &program, true, &mut rec);
    }
    rec.lines
}

#[test]
fn readback_gives_the_recorded_terms() {
    let golden = tests_dir().join("readback").join("golden.txt");
    let got = record_all();
    if std::env::var_os("SPINDLE_RECORD_READBACK").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, got.join("\n") + "\n").unwrap();
        return;
    }
    let want = std::fs::read_to_string(&golden).expect("tests/readback/golden.txt");
    let want: Vec<&str> = want.lines().collect();
    let mut diffs = Vec::new();
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        if w != g {
            diffs.push(format!("line {}: recorded {w}, got {g}", i + 1));
        }
    }
    if want.len() != got.len() {
        diffs.push(format!("{} lines recorded, {} now", want.len(), got.len()));
    }
    diffs.truncate(20);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
