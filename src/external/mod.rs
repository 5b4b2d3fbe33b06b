//! Host externals: the functions a program reaches outside itself (LANGUAGE.md
//! section 7). This module names them and types them; [`host`] performs a call and
//! [`pool`] performs calls on worker threads, for the scheduler.

pub mod host;
pub mod pool;

/// Every built-in external, with its Spindle type as source text.
pub const BUILTIN_EXTERNALS: &[(&str, &str)] = &[
    ("run", "String -> List String -> String"),
    ("shell", "String -> String"),
    ("readFile", "String -> String"),
    ("writeFile", "String -> String -> String"),
    ("delay", "{a : Type} -> Int -> a -> a"),
];

/// The Spindle type (as source text) of the built-in external `name`.
pub fn host_type(name: &str) -> Option<&'static str> {
    BUILTIN_EXTERNALS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
}

/// Whether the host provides an external of this name.
pub fn is_known(name: &str) -> bool {
    BUILTIN_EXTERNALS.iter().any(|(n, _)| *n == name)
}

/// The names of all built-in externals, for error messages.
pub fn known_names() -> Vec<&'static str> {
    BUILTIN_EXTERNALS.iter().map(|(n, _)| *n).collect()
}
