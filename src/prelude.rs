//! The prelude's source files, embedded in the binary (LANGUAGE.md section 8).
//!
//! All prelude files form one scope: each sees every other's definitions, and every
//! user file sees all of them (its own definitions shadow them).

/// `(file name, source text)` of every prelude file, in load order.
pub const FILES: &[(&str, &str)] = &[("types.sp", include_str!("../prelude/types.sp"))];
