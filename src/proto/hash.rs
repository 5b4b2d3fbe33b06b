//! Content hashes: blake3 over the canonical encoding.
//!
//! The canonical encoding is what `proto::encode` writes with
//! [`Names::Drop`]: no binder, definition or data type names, no prelude counts (and
//! never spans). prost writes fields in field-number order and repeated fields in order,
//! so equal messages give equal bytes and the hash is a function of the term. The
//! format version is part of the hashed message, so a future format cannot collide with
//! this one by accident.

use super::encode::{self, Names};
use super::pb;
use crate::core::program::{DeclCounts, Program};
use crate::core::term::Term;
use prost::Message;
use std::fmt;

/// A blake3 content hash. Displays as 64 lowercase hexadecimal digits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ContentHash(pub [u8; 32]);

impl ContentHash {
    /// The lowercase hexadecimal form.
    pub fn to_hex(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// The hash of a whole program (prelude included).
pub fn program(p: &Program) -> ContentHash {
    digest(&canonical_program(p))
}

/// The hash of a term on its own (its references to globals are by index).
pub fn term(t: &Term) -> ContentHash {
    digest(&encode::term_with(t, Names::Drop))
}

/// The canonical message of a program: what [`program`] hashes.
pub fn canonical_program(p: &Program) -> pb::Program {
    encode::program_with(p, DeclCounts::default(), Names::Drop)
}

fn digest(m: &impl Message) -> ContentHash {
    ContentHash(*blake3::hash(&m.encode_to_vec()).as_bytes())
}
