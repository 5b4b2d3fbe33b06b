//! Plain data: the one form in which arguments reach an external and results come back
//! from it, with no machine types in it (DESIGN.md section 7: executors know nothing of
//! fibers or heaps).
//!
//! The machine converts an argument's normal form into a [`Plain`] before the call and
//! converts a result back after it, looking constructors up by their prelude name
//! (`"True"`, `"Just"`, `"MkProcess"`, ...). Lists are [`Plain::List`], not chains of
//! `Cons`, so that marshalling a long list costs one vector.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

/// A value in normal form made only of numbers, strings, lists and named constructors.
///
/// Equality and hashing treat a `Float` by its bits (so a `NaN` argument equals
/// itself), which makes `Plain` usable as part of a key for sharing calls.
#[derive(Debug, Clone)]
pub enum Plain {
    /// An `Int`.
    Int(i64),
    /// A `Float`.
    Float(f64),
    /// A `String`.
    Str(String),
    /// A `List`, its elements in order.
    List(Vec<Plain>),
    /// A constructor of a prelude (or user) data type, by name, with its fields.
    Con(Cow<'static, str>, Vec<Plain>),
}

impl Plain {
    /// A constructor with a name known at compile time.
    pub fn con(name: &'static str, fields: Vec<Plain>) -> Plain {
        Plain::Con(Cow::Borrowed(name), fields)
    }

    /// `True` or `False`.
    pub fn bool(b: bool) -> Plain {
        Plain::con(if b { "True" } else { "False" }, Vec::new())
    }

    /// `Nothing` or `Just x`.
    pub fn maybe(x: Option<Plain>) -> Plain {
        match x {
            None => Plain::con("Nothing", Vec::new()),
            Some(x) => Plain::con("Just", vec![x]),
        }
    }

    /// A list of strings.
    pub fn strings(xs: Vec<String>) -> Plain {
        Plain::List(xs.into_iter().map(Plain::Str).collect())
    }

    /// What kind of value this is, for messages ("a String", "a List", ...).
    pub fn kind(&self) -> String {
        match self {
            Plain::Int(_) => "an Int".into(),
            Plain::Float(_) => "a Float".into(),
            Plain::Str(_) => "a String".into(),
            Plain::List(_) => "a List".into(),
            Plain::Con(name, _) => format!("the constructor `{name}`"),
        }
    }
}

impl PartialEq for Plain {
    fn eq(&self, other: &Plain) -> bool {
        match (self, other) {
            (Plain::Int(a), Plain::Int(b)) => a == b,
            (Plain::Float(a), Plain::Float(b)) => a.to_bits() == b.to_bits(),
            (Plain::Str(a), Plain::Str(b)) => a == b,
            (Plain::List(a), Plain::List(b)) => a == b,
            (Plain::Con(n, a), Plain::Con(m, b)) => n == m && a == b,
            _ => false,
        }
    }
}

impl Eq for Plain {}

impl Hash for Plain {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Plain::Int(n) => n.hash(state),
            Plain::Float(x) => x.to_bits().hash(state),
            Plain::Str(s) => s.hash(state),
            Plain::List(xs) => xs.hash(state),
            Plain::Con(n, xs) => {
                n.hash(state);
                xs.hash(state);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn floats_compare_by_bits() {
        assert_eq!(Plain::Float(f64::NAN), Plain::Float(f64::NAN));
        assert_ne!(Plain::Float(0.0), Plain::Float(-0.0));
        let mut set = HashSet::new();
        set.insert(Plain::Float(f64::NAN));
        assert!(set.contains(&Plain::Float(f64::NAN)));
    }

    #[test]
    fn owned_and_static_names_are_equal() {
        let a = Plain::bool(true);
        let b = Plain::Con(Cow::Owned("True".to_string()), Vec::new());
        assert_eq!(a, b);
        let mut set = HashSet::new();
        set.insert(a);
        assert!(set.contains(&b));
    }
}
