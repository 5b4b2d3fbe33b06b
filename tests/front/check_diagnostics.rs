//! How many diagnostics the checker gives, and how long they are (issues 12 and 16):
//! one mistake is one error, and a message about a huge type, or about ten thousand
//! untyped parameters, stays readable. Through the library, counting diagnostics.

use spindle::diagnostic::Diagnostic;
use spindle::driver;

/// The errors of checking `text`.
fn errors(text: &str) -> Vec<Diagnostic> {
    driver::load_text("t.sp", text)
        .diagnostics
        .into_iter()
        .filter(Diagnostic::is_error)
        .collect()
}

/// Every diagnostic of checking `text`, rendered as `spindle check` prints them.
fn rendered(text: &str) -> String {
    driver::load_text("t.sp", text).render_diagnostics()
}

#[test]
fn one_unbound_name_is_one_error() {
    for text in [
        "def main = foo 1",
        "def main : Int = foo 1",
        "def main : Int = foo 1 + 2",
        "def main : Int = foo 1 2 3",
        "def main : List Int = [foo, 1]",
        "def main : Int = let x = foo in x + 1",
        "def main : Int = match foo with\n  | Just y -> y\n  | Nothing -> 0",
        "def f (m : Maybe Int) : Int = match m with\n  | Jsut y -> y + 1\n  | _ -> 0",
        "def main = (foo, foo 1)",
    ] {
        let errs = errors(text);
        let unbound = errs
            .iter()
            .filter(|d| d.message.starts_with("unbound name"))
            .count();
        assert!(unbound >= 1, "{text:?}: {errs:#?}");
        assert_eq!(
            errs.len(),
            unbound,
            "{text:?}: an unbound name gives no further errors: {errs:#?}"
        );
    }
    // The last one is used twice: two places, two errors, nothing else.
    assert_eq!(errors("def main = (foo, foo 1)").len(), 2);
}

#[test]
fn a_hole_under_a_constructor_has_the_fields_type() {
    let errs = errors("def f : Maybe Int = Just ?x\ndef g : Pair Int String = (?a, ?b)");
    let messages: Vec<&str> = errs.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "hole `?x` has type `Int`",
            "hole `?a` has type `Int`",
            "hole `?b` has type `String`"
        ]
    );
}

#[test]
fn ten_thousand_untyped_parameters_give_a_short_report() {
    let params: Vec<String> = (0..10_000).map(|i| format!("x{i}")).collect();
    let text = format!("def main = \\{} -> 0\n", params.join(" "));
    let errs = errors(&text);
    assert!(
        errs[0]
            .message
            .starts_with("cannot infer the type of the parameter `x0`"),
        "{:?}",
        errs[0]
    );
    assert!(errs.len() <= 11, "{} errors", errs.len());
    assert!(
        errs.last()
            .is_some_and(|d| d.message.contains("9990 more unknowns")),
        "{:?}",
        errs.last()
    );
    let out = rendered(&text);
    assert!(out.len() < 4_000, "{} bytes of errors", out.len());
}

#[test]
fn a_huge_type_in_a_message_is_cut() {
    // v30's type is a pair tree of 2^30 leaves: shared, it is small; printed (as the
    // tuple types it is, `((Int, Int), Int, Int)`), it is cut to a readable length.
    let mut text = String::from("def v0 = 1\n");
    for i in 1..=30 {
        text.push_str(&format!("def v{i} = (v{}, v{})\n", i - 1, i - 1));
    }
    text.push_str("def bad : Int = v30\n");
    let errs = errors(&text);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(
        errs[0]
            .message
            .starts_with("type mismatch: expected `Int`, found `(((((((("),
        "{}",
        errs[0].message
    );
    assert!(errs[0].message.contains('…'));
    let out = rendered(&text);
    assert!(out.len() < 3_000, "{} bytes of errors", out.len());
}

#[test]
fn a_failing_type_is_reported_once() {
    let text = "def F (n : Int) : Type = if 1 / n == 0 then Int else String\n\
                def x : F 0 = 3\n\
                def y : F 0 = 4\n\
                def main = (x, y)\n";
    let errs = errors(text);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!(
        errs[0].message,
        "evaluating the type `F 0`: division by zero"
    );
}

#[test]
fn a_pattern_error_is_one_error_and_hides_no_arm() {
    // The broken arm's variable is an unknown in its body (no second error), and the
    // arms after it are not called unreachable.
    let text =
        "def f (m : Maybe Int) : Int = match m with\n  | Foo y -> y\n  | Just z -> z\n  | _ -> 0\n";
    let loaded = driver::load_text("t.sp", text);
    assert_eq!(loaded.diagnostics.len(), 1, "{:#?}", loaded.diagnostics);
    assert_eq!(loaded.diagnostics[0].message, "unbound name `Foo`");
}

#[test]
fn unreachable_arms_are_warnings_with_a_place() {
    let text = "def f (b : Bool) : Int = match b with\n  | True -> 1\n  | False -> 2\n  | _ -> 3\n\
                def main = f True\n";
    let loaded = driver::load_text("t.sp", text);
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
    let out = loaded.render_diagnostics();
    assert!(
        out.starts_with("warning: t.sp:4:5: this match arm is never reached"),
        "{out}"
    );
}

/// `--type-steps N` sets the type-level step budget of `spindle check` and `spindle
/// run` (issue 31): a definition whose types need more is refused at its place with
/// the limit named (and nothing else: no error that only follows from the budget
/// running out), and checks with the default budget.
#[test]
fn type_steps_sets_the_budget_per_definition() {
    let text = "data Nat = Z | S Nat\n\
                def fromInt (i : Int) : Nat = if i <= 0 then Z else S (fromInt (i - 1))\n\
                def Count (n : Nat) : Type = match n with | Z -> Int | S m -> Count m\n\
                def x : Count (fromInt 1000) = 1\n\
                def main : Int = x\n";
    let file = crate::common::scratch_file("type_steps", "count.sp", text);
    let dir = file.parent().unwrap();
    for args in [&["check", "count.sp"][..], &["run", "count.sp"]] {
        let out = crate::common::run_in(dir, args);
        assert!(out.status.success(), "{args:?}: {out:?}");
    }
    for args in [
        &["check", "--type-steps", "100", "count.sp"][..],
        &["run", "count.sp", "--type-steps", "100"],
    ] {
        let out = crate::common::run_in(dir, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
        assert!(errors[0].starts_with("error: count.sp:4:"), "{stderr}");
        for e in &errors {
            assert!(e.contains("exceeded its limit of 100 steps"), "{stderr}");
        }
        assert!(stderr.contains("--type-steps N"), "{stderr}");
    }
}

/// `spindle check --total` checks every definition of the program for totality, not
/// only those marked `total def` (issue 31); the prelude is not reported.
#[test]
fn check_total_reports_every_definition_that_is_not_total() {
    let text = "data Nat = Z | S Nat\n\
                def pred (n : Nat) : Nat = match n with | S m -> m\n\
                def double (n : Nat) : Nat = match n with | Z -> Z | S m -> S (S (double m))\n\
                def spin (n : Nat) : Nat = spin (S n)\n\
                def main : Int = 1\n";
    let file = crate::common::scratch_file("check_total", "t.sp", text);
    let dir = file.parent().unwrap();
    let plain = crate::common::run_in(dir, &["check", "t.sp"]);
    assert!(plain.status.success(), "{plain:?}");
    let out = crate::common::run_in(dir, &["check", "--total", "t.sp"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 2, "{stderr}");
    assert!(
        errors[0].starts_with(
            "error: t.sp:2:5: `pred` is not total: a `match` in it does not cover every case"
        ),
        "{stderr}"
    );
    assert!(errors[1].starts_with("error: t.sp:4:5: `spin` is not total: its recursive call is not on a structurally smaller argument"), "{stderr}");
}

/// `spindle check FILE --split h VAR` prints the arms of a case split on `VAR` at the
/// hole `?h`, one per line, named apart from the variables in scope (issue 31); a
/// variable that is not there, or not of a data type, is an error.
#[test]
fn split_prints_the_arms_of_a_case_split_at_a_hole() {
    let text = "data Tree = Leaf | Node Tree Int Tree\n\
                record Point = { x : Int, y : Int }\n\
                def f (t : Tree) (xs : List Int) (p : Point) (q : (Int, Bool)) (n : Int) : Int = ?h\n\
                def main = 1\n";
    let file = crate::common::scratch_file("split", "t.sp", text);
    let dir = file.parent().unwrap();
    for (var, arms) in [
        ("t", "| Leaf -> ?h\n| Node t1 n1 t2 -> ?h\n"),
        ("xs", "| [] -> ?h\n| x :: xs1 -> ?h\n"),
        ("p", "| { x, y } -> ?h\n"),
        ("q", "| (x, x1) -> ?h\n"),
    ] {
        let out = crate::common::run_in(dir, &["check", "t.sp", "--split", "h", var]);
        assert!(out.status.success(), "{var}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), arms, "{var}");
    }
    for (hole, var, says) in [
        ("h", "n", "which is not a data type"),
        ("h", "zz", "is not a local variable"),
        ("g", "t", "no hole `?g`"),
    ] {
        let out = crate::common::run_in(dir, &["check", "t.sp", "--split", hole, var]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(out.stdout.is_empty(), "{out:?}");
        assert!(stderr.contains(says), "{stderr}");
    }
}
