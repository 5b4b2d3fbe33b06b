//! `Float` operations: conversions to and from `Int`, square root, and the shortest
//! round-trip text of a float (LANGUAGE.md section 9).

/// The shortest text that reads back to the same number, always with a `.` or an
/// exponent: `2.0`, `0.1`, `1e-10`, `6.02e23`, `inf`, `-inf`, `NaN`.
pub fn show(x: f64) -> String {
    // Rust's `Debug` for f64 is the shortest round-trip form and switches to an
    // exponent for very small and very large magnitudes.
    let s = format!("{x:?}");
    if s.contains(['.', 'e', 'E', 'i', 'N']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// Rounds toward negative infinity, toward positive infinity, or half away from zero
/// (`which` is `floor`, `ceil` or `round`) and converts to `Int`; `None` when the
/// result does not fit (or the float is not a number).
pub fn to_int(x: f64, which: fn(f64) -> f64) -> Option<i64> {
    let r = which(x);
    if r.is_finite() && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
        Some(r as i64)
    } else {
        None
    }
}

/// Parses a float the way Spindle writes it (also `inf`, `-inf`, `NaN`); surrounding
/// white space is not accepted.
pub fn parse(s: &str) -> Option<f64> {
    if s.is_empty() || s.trim() != s {
        return None;
    }
    s.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_round_trip() {
        assert_eq!(show(2.0), "2.0");
        assert_eq!(show(0.1), "0.1");
        assert_eq!(show(1e-10), "1e-10");
        assert_eq!(show(f64::INFINITY), "inf");
        assert_eq!(show(f64::NAN), "NaN");
        assert_eq!(show(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(show(5.0), "5.0");
        assert_eq!(show(-1.5), "-1.5");
    }

    #[test]
    fn conversions() {
        assert_eq!(to_int(2.5, f64::round), Some(3));
        assert_eq!(to_int(-2.5, f64::round), Some(-3));
        assert_eq!(to_int(-2.5, f64::floor), Some(-3));
        assert_eq!(to_int(2.1, f64::ceil), Some(3));
        assert_eq!(to_int(f64::NAN, f64::floor), None);
        assert_eq!(to_int(1e300, f64::floor), None);
        assert_eq!(parse("1.5"), Some(1.5));
        assert_eq!(parse(" 1"), None);
    }
}
