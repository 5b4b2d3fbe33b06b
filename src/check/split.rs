//! Case splits from a hole (issue 31): `spindle check FILE --split h VAR` and the
//! REPL's `:split h VAR` print the arms a `match` on the variable `VAR`, written at
//! the typed hole `?h`, would have, one per line as `| PATTERN -> ?h`, so that an
//! editor (or a user) can paste them.
//!
//! The request is made before checking ([`request`]); the checker answers it where it
//! meets the hole, with the variable's type as it knows it there, and the answer is
//! collected after ([`take_answer`]). Both are per thread: a check runs on the thread
//! that asked.

use std::cell::RefCell;

/// What a split answers: the arms, or why there are none.
pub type Answer = Result<Vec<String>, String>;

thread_local! {
    /// The split asked for: the hole's name (without `?`) and the variable's.
    static REQUEST: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
    /// The answer to it, once the hole is met.
    static ANSWER: RefCell<Option<Answer>> = const { RefCell::new(None) };
}

/// Asks the next check on this thread for the arms of a split on `var` at `?hole`.
pub fn request(hole: &str, var: &str) {
    REQUEST.with(|r| *r.borrow_mut() = Some((hole.to_string(), var.to_string())));
    ANSWER.with(|a| *a.borrow_mut() = None);
}

/// Withdraws the request (the checks that follow answer nothing).
pub fn clear() {
    REQUEST.with(|r| *r.borrow_mut() = None);
}

/// The variable to split on if `hole` is the hole asked about.
pub(crate) fn wanted_at(hole: Option<&str>) -> Option<String> {
    REQUEST.with(|r| match (&*r.borrow(), hole) {
        (Some((h, v)), Some(name)) if h == name => Some(v.clone()),
        _ => None,
    })
}

/// Whether a split is asked for (an incremental check is then not made: the hole
/// must be checked).
pub(crate) fn requested() -> bool {
    REQUEST.with(|r| r.borrow().is_some())
}

/// Records the answer (the first one, if the hole is checked more than once).
pub(crate) fn answer(a: Answer) {
    ANSWER.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(a);
        }
    });
}

/// The arms found by the last check on this thread, or why there are none; `None`
/// if it never met the hole.
pub fn take_answer() -> Option<Answer> {
    ANSWER.with(|a| a.borrow_mut().take())
}
