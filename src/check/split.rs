//! Case splits from a hole (issue 31): `spindle check FILE --split h VAR` prints the
//! arms a `match` on the variable `VAR`, written at the typed hole `?h`, would have,
//! one per line as `| PATTERN -> ?h`, so that an editor (or a user) can paste them.
//!
//! The request is made before checking ([`request`]); the checker answers it where it
//! meets the hole, with the variable's type as it knows it there, and the answer is
//! collected after ([`take_answer`]).

use std::sync::Mutex;

/// The split asked for: the hole's name (without `?`) and the variable's.
static REQUEST: Mutex<Option<(String, String)>> = Mutex::new(None);

/// The arms found (or why there are none) for the split asked for.
static ANSWER: Mutex<Option<Result<Vec<String>, String>>> = Mutex::new(None);

/// Asks the next check for the arms of a split on `var` at the hole `?hole`.
pub fn request(hole: &str, var: &str) {
    if let Ok(mut r) = REQUEST.lock() {
        *r = Some((hole.to_string(), var.to_string()));
    }
    if let Ok(mut a) = ANSWER.lock() {
        *a = None;
    }
}

/// The variable to split on if `hole` is the hole asked about.
pub(crate) fn wanted_at(hole: Option<&str>) -> Option<String> {
    let r = REQUEST.lock().ok()?;
    match (&*r, hole) {
        (Some((h, v)), Some(name)) if h == name => Some(v.clone()),
        _ => None,
    }
}

/// Records the answer (the first one, if the hole is checked more than once).
pub(crate) fn answer(a: Result<Vec<String>, String>) {
    if let Ok(mut slot) = ANSWER.lock()
        && slot.is_none()
    {
        *slot = Some(a);
    }
}

/// The arms found by the last check, or why there are none; `None` if the check never
/// met the hole.
pub fn take_answer() -> Option<Result<Vec<String>, String>> {
    ANSWER.lock().ok()?.take()
}
