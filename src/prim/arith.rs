//! Arithmetic: `+ - * / %` on `Int` (checked: overflow and division by zero are
//! errors, never a wrap-around) and on `Float` (IEEE 754).

use super::Prim;

/// Why `Int` arithmetic failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithError {
    /// `/` or `%` by zero.
    DivisionByZero,
    /// The result does not fit in an `Int`.
    Overflow,
    /// The primitive is not arithmetic (a caller's mistake).
    NotArithmetic,
}

impl ArithError {
    /// The runtime message.
    pub fn message(self) -> &'static str {
        match self {
            ArithError::DivisionByZero => "division by zero",
            ArithError::Overflow => "integer overflow",
            ArithError::NotArithmetic => "not an arithmetic primitive",
        }
    }
}

/// Applies an arithmetic primitive to two `Int`s.
#[inline]
pub fn int(p: Prim, a: i64, b: i64) -> Result<i64, ArithError> {
    let r = match p {
        Prim::Add => a.checked_add(b),
        Prim::Sub => a.checked_sub(b),
        Prim::Mul => a.checked_mul(b),
        Prim::Div | Prim::Rem if b == 0 => return Err(ArithError::DivisionByZero),
        Prim::Div => a.checked_div(b),
        Prim::Rem => a.checked_rem(b),
        _ => return Err(ArithError::NotArithmetic),
    };
    r.ok_or(ArithError::Overflow)
}

/// `a ^ b` on `Int`s: checked; a negative exponent is an error.
pub fn pow(a: i64, b: i64) -> Result<i64, String> {
    if b < 0 {
        return Err(format!("negative exponent {b} in `^` on Int"));
    }
    let overflow = || "integer overflow".to_string();
    match a {
        0 => Ok(if b == 0 { 1 } else { 0 }),
        1 => Ok(1),
        -1 => Ok(if b % 2 == 0 { 1 } else { -1 }),
        _ => {
            let e = u32::try_from(b).map_err(|_| overflow())?;
            a.checked_pow(e).ok_or_else(overflow)
        }
    }
}

/// `div a b` and `mod a b` on `Int`s: the quotient rounded down and the remainder
/// with the sign of `b`.
pub fn div_mod_floor(a: i64, b: i64) -> Result<(i64, i64), ArithError> {
    if b == 0 {
        return Err(ArithError::DivisionByZero);
    }
    let q = a.checked_div(b).ok_or(ArithError::Overflow)?;
    let r = a.checked_rem(b).ok_or(ArithError::Overflow)?;
    if r != 0 && ((r < 0) != (b < 0)) {
        Ok((q - 1, r + b))
    } else {
        Ok((q, r))
    }
}

/// Applies an arithmetic primitive to two `Float`s.
#[inline]
pub fn float(p: Prim, a: f64, b: f64) -> Option<f64> {
    Some(match p {
        Prim::Add => a + b,
        Prim::Sub => a - b,
        Prim::Mul => a * b,
        Prim::Div => a / b,
        Prim::Rem => a % b,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_arithmetic_is_checked() {
        assert_eq!(int(Prim::Div, -7, 2), Ok(-3));
        assert_eq!(int(Prim::Rem, 7, 3), Ok(1));
        assert_eq!(int(Prim::Div, 1, 0), Err(ArithError::DivisionByZero));
        assert_eq!(int(Prim::Rem, 1, 0), Err(ArithError::DivisionByZero));
        assert_eq!(int(Prim::Add, i64::MAX, 1), Err(ArithError::Overflow));
        assert_eq!(int(Prim::Div, i64::MIN, -1), Err(ArithError::Overflow));
        assert_eq!(int(Prim::Mul, i64::MIN, -1), Err(ArithError::Overflow));
    }

    #[test]
    fn power_and_floor_division() {
        assert_eq!(pow(2, 10), Ok(1024));
        assert_eq!(pow(-3, 3), Ok(-27));
        assert_eq!(pow(7, 0), Ok(1));
        assert_eq!(pow(0, 0), Ok(1));
        assert_eq!(pow(-1, i64::MAX), Ok(-1));
        assert!(pow(2, 63).is_err());
        assert!(pow(2, -1).unwrap_err().contains("negative exponent"));
        assert_eq!(div_mod_floor(7, 2), Ok((3, 1)));
        assert_eq!(div_mod_floor(-7, 2), Ok((-4, 1)));
        assert_eq!(div_mod_floor(7, -2), Ok((-4, -1)));
        assert_eq!(div_mod_floor(-7, -2), Ok((3, -1)));
        assert_eq!(div_mod_floor(6, -3), Ok((-2, 0)));
        assert_eq!(div_mod_floor(1, 0), Err(ArithError::DivisionByZero));
        assert_eq!(div_mod_floor(i64::MIN, -1), Err(ArithError::Overflow));
    }

    #[test]
    fn float_arithmetic_is_ieee() {
        assert_eq!(float(Prim::Add, 0.1, 0.2), Some(0.30000000000000004));
        assert!(float(Prim::Div, 1.0, 0.0).unwrap().is_infinite());
    }
}
