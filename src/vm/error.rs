//! Runtime errors: plain data with the place of the operation that failed.

pub use crate::machine::error::{Result, RuntimeError};
