//! No space leaks in ordinary code (issue 30, docs/strictness.md): programs of the
//! shapes that used to keep whole tables and histories as thunks run under
//! `--max-memory 64M` with their exact output, and laziness is kept where the lazy
//! program does not need a value (an unneeded `error`, loop or external stays
//! unevaluated), the same with `--sequential`.

use std::path::Path;
use std::process::Command;

/// Runs `src` as a program with `opts`; `(success, stdout, stderr)`.
fn run(src: &str, opts: &[&str]) -> (bool, String, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("prog.sp");
    std::fs::write(&file, src).expect("the program written");
    run_in(dir.path(), &file, opts)
}

fn run_in(dir: &Path, file: &Path, opts: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(dir)
        .arg("run")
        .arg(file)
        .args(opts)
        .args(["--progress", "none"])
        .output()
        .expect("spindle runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `src` prints `want` within 64 MB, in parallel and sequentially.
fn fits(src: &str, want: &str) {
    for mode in [&[][..], &["--sequential"][..]] {
        let mut opts = vec!["--max-memory", "64M"];
        opts.extend_from_slice(mode);
        let (ok, out, err) = run(src, &opts);
        assert!(ok, "{mode:?}: failed: {err}");
        assert_eq!(out.trim_end(), want, "{mode:?}: {err}");
    }
}

const DIGITS: &str = "def digits (n : Int) : Int = if n < 10 then 1 else 1 + digits (n / 10)\n";

#[test]
fn foldl_sum_of_computed_elements() {
    // The elements are thunks (`digits` is recursive): the accumulator is strict
    // because the step needs it, so each `acc + x` is computed at its step.
    fits(
        &format!(
            "{DIGITS}def main : Int = foldl (\\acc x -> acc + x) 0 (map digits (range 0 1000000))\n"
        ),
        "5888890",
    );
}

#[test]
fn a_users_own_foldl() {
    fits(
        &format!(
            "{DIGITS}\
             def myFold (f : Int -> Int -> Int) (z : Int) (xs : List Int) : Int =\n  \
               match xs with\n  | Nil -> z\n  | Cons x rest -> myFold f (f z x) rest\n\
             def main : Int = myFold (\\acc x -> acc + x) 0 (map digits (range 0 1000000))\n"
        ),
        "5888890",
    );
}

#[test]
fn a_named_step_function() {
    fits(
        &format!(
            "{DIGITS}def add (acc : Int) (x : Int) : Int = acc + x\n\
             def main : Int = foldl add 0 (map digits (range 0 1000000))\n"
        ),
        "5888890",
    );
}

#[test]
fn tuple_accumulators_mean_and_variance() {
    fits(
        "def toF (i : Int) : Float = intToFloat (i % 1000) / 10.0\n\
         def main : Pair Float Float =\n  \
           match foldl (\\p x -> match p with | (s, q) -> (s + x, q + x * x)) (0.0, 0.0) (map toF (range 0 1000000)) with\n  \
           | (s, q) -> (s / 1000000.0, q / 1000000.0 - (s / 1000000.0) * (s / 1000000.0))\n",
        "(49.949999999999996, 833.3325000000009)",
    );
}

#[test]
fn iterate_and_nth_over_a_record_of_floats() {
    fits(
        "record Body = { x : Float, y : Float, vx : Float, vy : Float }\n\
         def step (b : Body) : Body =\n  \
           let ax = 0.0 - b.x * 0.001 in\n  let ay = 0.0 - b.y * 0.001 in\n  \
           { x = b.x + b.vx * 0.01, y = b.y + b.vy * 0.01, vx = b.vx + ax, vy = b.vy + ay }\n\
         def main : Float =\n  \
           match nth 100000 (iterate step { x = 1.0, y = 0.0, vx = 0.0, vy = 1.0 }) with\n  \
           | Just b -> b.x + b.y\n  | Nothing -> 0.0\n",
        "3.798214769459288",
    );
}

#[test]
fn a_dynamic_programme_row_by_row() {
    // Edit distance: each row from the previous one by `foldl`; a cell's `min` (the
    // prelude's, through `Ord`, inlined where the instance is known) and `if` on
    // numbers at hand are computed, not suspended, so no row keeps the one before.
    fits(
        "def rowFrom (x : Int) (left : Int) (prev : List Int) (b : List Int) (acc : List Int) : List Int =\n  \
           match prev with\n  \
           | Cons diag (Cons up rest) ->\n    \
             (match b with\n    \
             | Cons y ys ->\n      \
               let c = min (min (up + 1) (left + 1)) (diag + (if x == y then 0 else 1)) in\n      \
               rowFrom x c (Cons up rest) ys (Cons c acc)\n    \
             | Nil -> reverse acc)\n  \
           | _ -> reverse acc\n\
         def distance (a : List Int) (b : List Int) : Int =\n  \
           fromMaybe 0 (last (foldl (\\prev ix -> rowFrom (snd ix) (fst ix) prev b [fst ix]) (range 0 (length b + 1)) (zip (range 1 (length a + 1)) a)))\n\
         def main : Int =\n  \
           distance (map (\\i -> (i * 7) % 13) (range 0 1500)) (map (\\i -> (i * 5) % 11) (range 0 1500))\n",
        "1186",
    );
}

#[test]
fn a_record_updated_in_a_loop() {
    fits(
        "record Acc = { count : Int, total : Int, best : Int }\n\
         def visit (a : Acc) (x : Int) : Acc =\n  \
           { a | count = a.count + 1, total = a.total + x, best = if x % 7 > a.best then x % 7 else a.best }\n\
         def main : Int =\n  \
           let r = foldl visit { count = 0, total = 0, best = 0 } (range 0 1000000) in\n  \
           r.count + r.total + r.best\n",
        "500000500006",
    );
}

#[test]
fn seq_is_documented_and_strict() {
    fits(
        "def go (n : Int) (acc : Pair Int Int) : Pair Int Int =\n  \
           if n == 0 then acc\n  \
           else match acc with\n    \
             | (a, b) -> let a2 = a + n in let b2 = b * 2 % 1000003 in seq a2 (seq b2 (go (n - 1) (a2, b2)))\n\
         def main : Pair Int Int = go 1000000 (0, 1)\n",
        "(500000500000, 250001)",
    );
    let (ok, _, err) = run("def main : Int = seq (error \"first\") 1\n", &[]);
    assert!(!ok && err.contains("first"), "{err}");
}

/// `src` prints `want` (parallel and sequential, no memory bound).
fn prints(src: &str, want: &str) {
    for mode in [&[][..], &["--sequential"][..]] {
        let (ok, out, err) = run(src, mode);
        assert!(ok, "{mode:?}: failed: {err}");
        assert_eq!(out.trim_end(), want, "{mode:?}: {err}");
    }
}

#[test]
fn an_accumulator_the_step_ignores_stays_unevaluated() {
    prints(
        "def main : Int = foldl (\\acc x -> x) (error \"never\") [1, 2, 3]\n",
        "3",
    );
    prints(
        "def main : Int = foldr (\\x acc -> x) (error \"never\") [1, 2]\n",
        "1",
    );
    // A named function that ignores it, and a partial application.
    prints(
        "def second (acc : Int) (x : Int) : Int = x\n\
         def pick (k : Int) (acc : Int) (x : Int) : Int = k + x\n\
         def main : Pair Int Int = (foldl second (error \"never\") [5], foldl (pick 1) (error \"never\") [5])\n",
        "(5, 6)",
    );
    // A user's fold with a step that needs its accumulator only sometimes.
    prints(
        "def myFold (f : Int -> Int -> Int) (z : Int) (xs : List Int) : Int =\n  \
           match xs with\n  | Nil -> z\n  | Cons x rest -> myFold f (f z x) rest\n\
         def main : Int = myFold (\\acc x -> if x > 2 then x else acc) (error \"never\") [1, 2, 3]\n",
        "3",
    );
}

#[test]
fn an_unneeded_argument_is_not_evaluated() {
    prints(
        "def pick (b : Bool) (x : Int) (y : Int) : Int = if b then x else y\n\
         def loop (n : Int) : Int = loop (n + 1)\n\
         def main : Pair Int Int = (pick True 1 (error \"never\"), pick False (loop 0) 2)\n",
        "(1, 2)",
    );
    // An endless loop as an accumulator the step ignores.
    prints(
        "def loop (n : Int) : Int = loop (n + 1)\n\
         def main : Int = foldl (\\acc x -> x) (loop 0) [1, 2]\n",
        "2",
    );
}

#[test]
fn a_needed_accumulator_still_raises_its_error() {
    let (ok, _, err) = run(
        "def main : Int = foldl (\\acc x -> acc + x) (error \"boom\") [1, 2]\n",
        &[],
    );
    assert!(!ok && err.contains("boom"), "{err}");
}

#[test]
fn an_effect_in_an_unneeded_accumulator_never_starts() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("prog.sp");
    std::fs::write(
        &file,
        "def main : String = foldl (\\acc x -> x) (shell \"touch started\") [\"a\", \"b\"]\n",
    )
    .expect("the program written");
    for mode in [&[][..], &["--sequential"][..]] {
        let (ok, out, err) = run_in(dir.path(), &file, mode);
        assert!(ok, "{err}");
        assert_eq!(out.trim_end(), "b");
        assert!(
            !dir.path().join("started").exists(),
            "{mode:?}: the call ran"
        );
    }
}

#[test]
fn a_state_threaded_through_a_loop_keeps_no_old_states() {
    // Each step makes a new map (strict) and updates two fields lazily; the lazy
    // `first` stays a thunk per step. Its thunk holds the old `first` and `x` only
    // (a field's thunk captures what it uses), not the old state with its map: with
    // the old states kept, the 100,000 maps' paths take several times the limit.
    fits(
        "record St = { table : List Int, seen : Map Int Int, steps : Int, best : Int, first : List Int }\n\
         def step (s : St) : St =\n  \
           match s.table with\n  \
           | [] -> s\n  \
           | x :: rest ->\n    \
             { s | table = rest, seen = mapInsert (x * 7919 % 5000) x s.seen, steps = s.steps + 1\n        \
                 , best = max s.best (x % 1000), first = if length s.first < 5 then s.first ++ [x] else s.first }\n\
         def run (s : St) : St =\n  \
           match s.table with\n  \
           | [] -> s\n  \
           | _ -> run (step s)\n\
         def main : String =\n  \
           let r = run { table = range 0 100000, seen = mapEmpty, steps = 0, best = 0, first = [] } in\n  \
           showInt r.steps ++ \" \" ++ showInt r.best ++ \" \" ++ showInt (mapSize r.seen) ++ \" \" ++ show r.first\n",
        "100000 999 5000 [0, 1, 2, 3, 4]",
    );
}

#[test]
fn a_list_bound_by_let_and_summed_by_a_strict_let_is_not_kept() {
    // `total` is needed by the body, so its right-hand side is evaluated first; the
    // frame that waits for it keeps what the body uses (`total`'s record), not the
    // `let` of `counts`, so the list is freed as `sum` walks it.
    fits(
        "def main : Int =\n  \
           let counts = map (\\i -> i * 2) (range 0 2000000) in\n  \
           let total = sum counts in\n  \
           total + 1\n",
        "3999998000001",
    );
}
