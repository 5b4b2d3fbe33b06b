//! `spindle run` and matches (issue 29, docs/syntax.md): a `match` that misses a case is
//! warned about once, before anything is evaluated, exactly as `spindle check` warns;
//! a failed match at run time names the value no arm covers. And the new syntax (`::`,
//! guards, `where`) runs end to end.

use crate::common;

use common::{scratch_file, spindle};
use std::process::Output;

fn run(name: &str, text: &str) -> Output {
    let path = scratch_file("runmatch", name, text);
    spindle()
        .current_dir(path.parent().unwrap())
        .args(["run", name])
        .output()
        .expect("the spindle binary runs")
}

fn check(name: &str) -> Output {
    let path = std::env::temp_dir().join(format!("spindle-runmatch-{}", std::process::id()));
    spindle()
        .current_dir(path)
        .args(["check", name])
        .output()
        .expect("the spindle binary runs")
}

const PARTIAL: &str = "\
data Shade = Light | Dark | Grey
def name (s : Shade) : String =
  match s with
  | Light -> \"light\"
  | Dark -> \"dark\"
def main = map name [Light, Dark]
";

#[test]
fn run_warns_once_about_a_missing_case_as_check_does() {
    let out = run("partial.sp", PARTIAL);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "[\"light\", \"dark\"]\n"
    );
    let checked = check("partial.sp");
    assert!(checked.status.success());
    // The very text `spindle check` prints.
    assert_eq!(stderr, String::from_utf8_lossy(&checked.stderr));
    assert_eq!(
        stderr
            .matches("this `match` does not cover every case: `Grey` is not matched")
            .count(),
        1,
        "{stderr}"
    );
    assert!(stderr.starts_with("warning: partial.sp:3:3: "), "{stderr}");
}

#[test]
fn run_shows_only_missing_cases_and_each_match_once() {
    // An unreachable arm is `check`'s to show; a match missing several cases is one
    // warning.
    let text = "\
def f (p : Pair Bool Bool) : Int =
  match p with
  | (True, True) -> 1
def g (n : Int) : Int =
  match n with
  | _ -> 0
  | 1 -> 1
def main = (g 2, f (True, True))
";
    let out = run("several.sp", text);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("warning").count(), 1, "{stderr}");
    assert!(stderr.contains("several.sp:2:3"), "{stderr}");
    assert!(!stderr.contains("never reached"), "{stderr}");
}

#[test]
fn a_failed_match_names_the_value() {
    let text = "\
def f (m : Maybe Int) : Int =
  match m with
  | Nothing -> 0
def main = f (Just 3)
";
    let out = run("fail.sp", text);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // Warned first, then the failure at the match's place, naming the value.
    let warned = stderr.find("warning: fail.sp:2:3").expect("warned");
    let failed = stderr
        .find("error: fail.sp:2:3: no arm of this match covers `Just 3`")
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(warned < failed, "{stderr}");
}

#[test]
fn a_failed_nested_match_names_the_whole_value_cut_to_a_readable_length() {
    let long = "x".repeat(300);
    let text = format!(
        "def second (xs : List String) : String =\n  match xs with\n  | _ :: y :: [] -> y\n  | [] -> \"\"\ndef main = second [\"a\", \"b\", \"{long}\"]\n"
    );
    let out = run("long.sp", &text);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // The whole list, not the part the failing test looked at.
    let line = stderr
        .lines()
        .find(|l| {
            l.starts_with("error: long.sp:2:3: no arm of this match covers `[\"a\", \"b\", \"xxx")
        })
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(line.len() < 160 && line.contains('…'), "{line}");
}

#[test]
fn a_false_guard_at_the_end_fails_naming_the_value() {
    let text = "\
def f (n : Int) : Int =
  match n with
  | k if k > 0 -> k
def main = f (0 - 4)
";
    let out = run("guard.sp", text);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("an arm with a guard covers nothing"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no arm of this match covers `-4`"),
        "{stderr}"
    );
}

#[test]
fn the_new_syntax_runs_end_to_end() {
    let text = "\
def evens (xs : List Int) : List Int =
  match xs with
  | x :: rest if x % 2 == 0 -> x :: evens rest
  | _ :: rest -> evens rest
  | [] -> []
def total (xs : List Int) : Int = go xs 0
  where
    go ys acc = match ys with
      | [] -> acc
      | y :: t -> go t (acc + y)
def main = (evens [1, 2, 3, 4, 6], total (evens (range 1 11)))
";
    let out = run("sugar.sp", text);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success() && stderr.is_empty(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "([2, 4, 6], 30)\n");
}
