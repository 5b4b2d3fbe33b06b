//! Ordering comparisons `< <= > >=` on `Int`, `Float` and `String` (strings
//! lexicographically by code point, which is byte order for UTF-8).

use super::Prim;
use std::cmp::Ordering;

/// Whether an ordering satisfies the comparison primitive `p`.
#[inline]
pub fn holds(p: Prim, o: Option<Ordering>) -> bool {
    match (p, o) {
        (_, None) => false,
        (Prim::Lt, Some(o)) => o == Ordering::Less,
        (Prim::Le, Some(o)) => o != Ordering::Greater,
        (Prim::Gt, Some(o)) => o == Ordering::Greater,
        (Prim::Ge, Some(o)) => o != Ordering::Less,
        _ => false,
    }
}

/// Whether `p` is one of the ordering comparisons.
pub fn is_ordering(p: Prim) -> bool {
    matches!(p, Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons() {
        assert!(holds(Prim::Lt, 1.cmp(&2).into()));
        assert!(holds(Prim::Le, 2.cmp(&2).into()));
        assert!(!holds(Prim::Gt, "a".cmp("b").into()));
        assert!(!holds(Prim::Lt, f64::NAN.partial_cmp(&1.0)));
    }
}
