//! `spindle run` checks only the prelude definitions a program can reach
//! (`driver::PreludeCheck::Reachable`). These tests hold it to what makes that sound:
//! every definition it checks comes out exactly as in a whole check (same type, same
//! body, same definition hash, so `--resume` keys do not change), every definition a
//! checked one refers to is checked too, and programs print the same.

use crate::common;

use common::example_programs;
use spindle::core::equiv::alpha_eq;
use spindle::core::program::Program;
use spindle::core::term::{DefId, Term};
use spindle::driver::{self, PreludeCheck};
use spindle::proto::defhash;

/// Whether a definition was left out (its placeholder body is a hole).
fn left_out(p: &Program, d: usize) -> bool {
    matches!(&*p.defs[d].body, Term::Hole(..))
}

/// The definitions `t` refers to.
fn def_refs(t: &Term) -> Vec<DefId> {
    let mut out = Vec::new();
    let mut work = vec![t];
    while let Some(t) = work.pop() {
        if let Term::Def(d) = t {
            out.push(*d);
        }
        t.for_each_child(|c, _| work.push(c));
    }
    out
}

#[test]
fn reachable_checking_checks_what_a_program_uses_exactly_as_a_whole_check() {
    let mut compared = 0;
    let mut left = 0;
    for file in example_programs() {
        let whole = driver::load_checking(&file, PreludeCheck::Whole);
        let part = driver::load_checking(&file, PreludeCheck::Reachable);
        let name = file.display();
        assert_eq!(
            whole.has_errors(),
            part.has_errors(),
            "{name}: the two checks disagree"
        );
        let (Some(w), Some(p)) = (&whole.program, &part.program) else {
            continue;
        };
        assert_eq!(w.defs.len(), p.defs.len(), "{name}");
        assert_eq!(w.main, p.main, "{name}");
        let (hw, hp) = (defhash::compute(w), defhash::compute(p));
        for d in 0..p.defs.len() {
            if left_out(p, d) {
                left += 1;
                assert!(
                    !left_out(w, d),
                    "{name}: a checked program has a hole in {}",
                    p.defs[d].name
                );
                continue;
            }
            compared += 1;
            let (dw, dp) = (&w.defs[d], &p.defs[d]);
            assert!(alpha_eq(&dw.ty, &dp.ty), "{name}: the type of {}", dp.name);
            assert!(
                alpha_eq(&dw.body, &dp.body),
                "{name}: the body of {}",
                dp.name
            );
            assert_eq!(hw.defs[d], hp.defs[d], "{name}: the hash of {}", dp.name);
            for r in def_refs(&dp.body).into_iter().chain(def_refs(&dp.ty)) {
                assert!(
                    !left_out(p, r.0 as usize),
                    "{name}: {} refers to {}, which was left out",
                    dp.name,
                    p.defs[r.0 as usize].name
                );
            }
        }
    }
    assert!(compared > 100, "only {compared} definitions compared");
    assert!(
        left > 100,
        "only {left} definitions left out: nothing is saved"
    );
}

#[test]
fn an_ill_typed_program_gets_the_same_errors_either_way() {
    let dir = common::tests_dir().join("typing").join("fail");
    let mut compared = 0;
    for file in common::sp_files(&dir) {
        let whole = driver::load_checking(&file, PreludeCheck::Whole);
        let part = driver::load_checking(&file, PreludeCheck::Reachable);
        let render = |l: &driver::Loaded| l.render_errors();
        assert!(whole.has_errors(), "{}", file.display());
        assert_eq!(render(&whole), render(&part), "{}", file.display());
        compared += 1;
    }
    assert!(compared > 100, "only {compared} programs compared");
}

#[test]
fn a_run_that_uses_much_of_the_prelude_prints_the_right_value() {
    // Uses a little of everything: lists, strings, JSON, numbers, externals.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("p.sp");
    std::fs::write(
        &f,
        "def main = (sum (map (\\x -> x * 2) (range 0 10)), \
         join \" \" (words \"a  b c\"), showInt 42, renderJson (JArr [JNum 1.5, JNull]), \
         length (filter (\\x -> x > 3) [1, 5, 7]), delay 1 \"done\")\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["run", "--progress", "none", "--store"])
        .arg(dir.path().join("store"))
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "(90, \"a b c\", \"42\", \"[1.5,null]\", 2, \"done\")\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success());
}
