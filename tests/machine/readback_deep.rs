//! Readback of long structures does not recurse natively (issue 10): a list of
//! 300,000 elements, a chain of 300,000 suspended thunks, and a lazy accumulator
//! paused mid-run, each loaded, run and read back in a thread with a 256 KiB stack.

use crate::common;

use common::{load_checked, scratch_file};
use spindle::core::program::Program;
use spindle::core::term::{DefId, Lit, RcTerm, Term};
use spindle::machine::Machine;
use spindle::machine::host::HeldRef;
use spindle::machine::readback::Reader;
use spindle::machine::value::NIL;

/// How long the structures are: far past what native recursion could read on
/// [`SMALL_STACK`], small enough that the three tests together stay well under the
/// suite's memory bound (a million took 1.8 GB).
const N: i64 = 300_000;

/// The native stack the readbacks run on.
const SMALL_STACK: usize = 256 * 1024;

/// Runs `f` in a thread with a small native stack.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .unwrap()
        .join()
        .expect("the readback ran out of native stack or failed");
}

fn load(name: &str, text: &str) -> Program {
    let loaded = load_checked(&scratch_file("readback-deep", name, text));
    loaded.program.expect("a program")
}

fn def(program: &Program, name: &str) -> DefId {
    let i = program.defs.iter().position(|d| &*d.name == name).unwrap();
    DefId(i as u32)
}

/// `f a b` as (`f`, `a`, `b`).
fn app2(t: &RcTerm) -> Option<(&RcTerm, &RcTerm, &RcTerm)> {
    match &**t {
        Term::App(g, _, b) => match &**g {
            Term::App(f, _, a) => Some((f, a, b)),
            _ => None,
        },
        _ => None,
    }
}

fn int(t: &RcTerm) -> Option<i64> {
    match &**t {
        Term::Lit(Lit::Int(n)) => Some(*n),
        _ => None,
    }
}

/// How deep a chain of `f acc x` goes through `acc` (the term of a lazy left fold's
/// accumulator: each thunk is the call that makes it, applied to the one before).
fn accumulator_depth(mut t: &RcTerm) -> usize {
    let mut depth = 0;
    while let Some((_, acc, _)) = app2(t) {
        depth += 1;
        t = acc;
    }
    depth
}

#[test]
fn a_long_list_reads_back_on_a_small_stack() {
    on_small_stack(|| {
        let program = load(
            "list.sp",
            &format!("def xs = range 0 {N}\ndef main = length xs\n"),
        );
        let mut m = Machine::new(&program);
        let n = m.whnf_def(program.main.unwrap()).unwrap();
        assert!(matches!(n, spindle::machine::value::Val::Int(N)));
        let xs = m.def_value_pinned(def(&program, "xs"));
        let t = Reader::with_budget(m.sight(), u32::MAX).word(xs, 0);
        // `Cons 0 (Cons 1 (...))`: every element, in order.
        let (mut cell, mut count) = (&t, 0);
        while let Some((_, head, tail)) = app2(cell) {
            assert_eq!(int(head), Some(count));
            count += 1;
            cell = tail;
        }
        assert_eq!(count, N);
        assert!(matches!(&**cell, Term::Con(_)), "the list ends in `Nil`");
    });
}

#[test]
fn a_long_chain_of_thunks_reads_back_on_a_small_stack() {
    on_small_stack(|| {
        // `rev` in weak head normal form is `Cons (N - 1) acc`, where `acc` is the
        // suspended `f acc' (N - 2)`, and so on down to `[]`. The step may append
        // (`++` is not cheap), so it is not computed early: the chain stays.
        let program = load(
            "chain.sp",
            &format!(
                "def rev = foldl (\\acc x -> if x < 0 then [] ++ acc else Cons x acc) [] (range 0 {N})\n\
                 def main = match rev with | Cons x _ -> x | _ -> 0\n"
            ),
        );
        let mut m = Machine::new(&program);
        m.whnf_def(program.main.unwrap()).unwrap();
        let rev = m.def_value_pinned(def(&program, "rev"));
        let t = Reader::with_budget(m.sight(), u32::MAX).word(rev, 0);
        let (_, head, acc) = app2(&t).expect("a `Cons`");
        assert_eq!(int(head), Some(N - 1));
        assert_eq!(accumulator_depth(acc), (N - 1) as usize);
        // Within a budget smaller than the chain, the chain is cut by a hole.
        let t = Reader::with_budget(m.sight(), (N / 2) as u32).word(rev, 0);
        let depth = accumulator_depth(app2(&t).unwrap().2);
        assert!(depth > 1_000 && depth < (N - 1) as usize, "{depth}");
    });
}

#[test]
fn a_lazy_accumulator_paused_mid_run_reads_back_on_a_small_stack() {
    on_small_stack(|| {
        let program = load(
            "acc.sp",
            // The step calls a function, so it is not cheap, and needs the accumulator
            // only on one of its branches: the accumulator stays lazy (a step that
            // always needs it makes `foldl` strict in it, docs/strictness.md).
            &format!(
                "def main = foldl (\\acc x -> if x < 0 then 0 else acc + id x) 0 (range 0 {N})\n"
            ),
        );
        let main = program.main.unwrap();
        let total = {
            let mut m = Machine::new(&program);
            m.whnf_def(main).unwrap();
            m.sight().stats().steps
        };
        let mut m = Machine::new(&program);
        // The first third of the run walks the list, building the accumulator (about
        // nine steps an element); the rest forces it. Three tenths in, the
        // accumulator is a chain of some 150,000 thunks.
        m.set_pause_after(total * 3 / 10);
        assert!(m.whnf_def(main).is_err() && m.is_paused());
        // Every word the paused machine holds, each read on its own.
        let mut words = Vec::new();
        m.sight().roots(None, &mut |h| match h {
            HeldRef::Val(v) => words.push(v),
            HeldRef::Rec(r) if r != NIL => {
                let rec = m.heap.recs.get(r);
                words.extend_from_slice(rec.slots.get(&m.heap.words));
            }
            HeldRef::Rec(_) => {}
        });
        let deepest = words
            .iter()
            .map(|&v| accumulator_depth(&Reader::with_budget(m.sight(), u32::MAX).word(v, 0)))
            .max()
            .unwrap_or(0);
        assert!(deepest > (N / 4) as usize, "deepest accumulator: {deepest}");
        // And the whole state, one binding per thunk.
        let root = m.def_value_pinned(main);
        m.sight()
            .read_back_state(root)
            .expect("the state reads back");
    });
}
