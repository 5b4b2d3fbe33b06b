//! Resume you can trust (issue 24), end to end through the real binary on the real file
//! system and process table: what a call read and wrote is observed, a deleted or
//! changed output reruns its call, failures are never reused, `--plan` is a dry run,
//! option typos are errors, and `--resume` stays fast when thousands of records answer
//! at once.

mod e2e_common;

use e2e_common::*;

/// `key: value` from `--stats` on standard error.
fn stat(o: &std::process::Output, key: &str) -> u64 {
    let err = stderr(o);
    err.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .unwrap_or_else(|| panic!("no {key} in\n{err}"))
        .trim()
        .parse()
        .unwrap()
}

const MANY_ECHOES: &str = "\
def n : Int = fromMaybe 0 (parseInt (fromMaybe \"0\" (nth 0 args)))
def main : Int = strLength (concatStrings (map (\\i -> run \"echo\" [showInt i]) (range 0 n)))
";

/// A `--resume` whose records all answer at once once made the scheduler fork a walk of
/// the rest of the list for every element it woke (steps grew with the square of the
/// list, and from about 1,500 calls memory ran away). The resumed run takes about as
/// many steps as the first.
#[test]
fn a_resume_answering_thousands_of_calls_at_once_takes_steps_in_proportion() {
    let wf = Wf::new();
    wf.write("wf.sp", MANY_ECHOES);
    let n = 2000u64;
    let first = wf.run(&["--stats", "wf.sp", "--", &n.to_string()]);
    let printed = ok(&first);
    for _ in 0..3 {
        let again = wf.run(&["--resume", "--stats", "wf.sp", "--", &n.to_string()]);
        assert_eq!(ok(&again), printed);
        let steps = stat(&again, "steps");
        assert!(
            steps < 60 * n,
            "{steps} steps for {n} reused calls (first run: {})",
            stat(&first, "steps")
        );
    }
}
