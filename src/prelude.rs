//! The prelude's source files, embedded in the binary (LANGUAGE.md section 8).
//!
//! All prelude files form one scope: each sees every other's definitions, and every
//! user file sees all of them (its own definitions shadow them).

/// `(file name, source text)` of every prelude file, in load order.
pub const FILES: &[(&str, &str)] = &[
    ("types.sp", include_str!("../prelude/types.sp")),
    ("base.sp", include_str!("../prelude/base.sp")),
    ("number.sp", include_str!("../prelude/number.sp")),
    ("list.sp", include_str!("../prelude/list.sp")),
    ("string.sp", include_str!("../prelude/string.sp")),
    ("char.sp", include_str!("../prelude/char.sp")),
    ("json.sp", include_str!("../prelude/json.sp")),
    ("interfaces.sp", include_str!("../prelude/interfaces.sp")),
    ("order.sp", include_str!("../prelude/order.sp")),
    ("map.sp", include_str!("../prelude/map.sp")),
    ("external.sp", include_str!("../prelude/external.sp")),
];
