//! Core terms and whole programs to and from protobuf (`proto/spindle.proto`), and their
//! blake3 content hashes (DESIGN.md section 5).
//!
//! - [`encode`]: core terms and programs to messages and bytes.
//! - [`decode`]: bytes and messages back to core terms and programs, checking
//!   everything: bytes from a file are untrusted.
//! - [`hash`]: the blake3 hash of a term's or a program's canonical encoding.
//! - [`defhash`]: per-declaration hashes (Merkle, independent of table order), which
//!   name the places of calls in the result store.
//! - [`source`]: a decoded program printed back as one Spindle source file.
//! - [`crate::snapshot`] (beside the driver, not here): an evaluation stopped after some steps, stored as a program and
//!   resumed.
//! - [`error`]: what can go wrong, as plain data.
//!
//! # The encoding
//!
//! A term is stored flat: the list of its nodes in preorder, each node announcing how many
//! subterms follow it. No term nests inside another message, so the depth of a term costs
//! neither protobuf nesting (prost stops at 100 levels) nor native stack: both directions
//! walk the tree with an explicit work stack. Spines are flattened to keep nodes few: one
//! application node per head with all its arguments, one node per chain of lambdas, of Pi
//! types or of `let`s. Binder names travel for printing; spans do not (they point into
//! source files that the encoding does not carry): a decoded term has [`NO_SPAN`]
//! everywhere.
//!
//! # The prelude
//!
//! A program is encoded whole: the prelude's declarations first, then the user's,
//! exactly the tables of [`Program`], so the bytes are self-contained and the hash covers
//! everything the program means. The message also records how many entries of each table
//! are the prelude's ([`DeclCounts`]). Printing a decoded program back to source
//! ([`source::program_to_source`]) checks that those entries are the prelude this build
//! has, then prints only the others: loading the printed file brings the prelude back, in
//! the same place, so every id means what it meant.
//!
//! # The hash
//!
//! [`hash::program`] is blake3 over the encoding with everything that only serves
//! printing left out: binder names, definition and data type names, spans and the
//! prelude counts. It keeps what a run can observe: the terms (de Bruijn indices,
//! literals with floats by their bits, plicities), constructor names (a run prints them),
//! external names (they choose the host function) and the names of typed holes. So
//! alpha-equivalent programs hash the same.
//!
//! [`Program`]: crate::core::program::Program
//! [`DeclCounts`]: crate::core::program::DeclCounts

pub mod decode;
pub mod defhash;
pub mod encode;
pub mod error;
pub mod hash;
pub mod source;

use crate::syntax::span::{FileId, Span};

/// The message types generated from `proto/spindle.proto` by prost-build; their
/// documentation is the `.proto` file's.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/spindle.rs"));
}

/// The format version written by [`encode`] and the only one [`decode`] accepts.
pub const FORMAT_VERSION: u32 = 1;

/// The largest encoding [`decode`] reads, in bytes (the prelude takes about 13 KB, a
/// list literal about 20 bytes an element). prost builds the whole message before it is
/// checked, at most about 36 bytes of memory per input byte (a run of empty
/// declarations), so this also keeps decoding hostile input under a gigabyte (about
/// 600 MB at worst).
pub const MAX_ENCODED_BYTES: usize = 16 << 20;

/// The largest stored evaluation state ([`crate::snapshot`]) that is written or resumed, in
/// bytes. A state holds the work in progress, which can be far larger than the
/// program: a `foldr` a million elements deep is a million pending additions, about
/// 40 MB. Decoding hostile input of this size can take up to about 2.5 GB (a run of
/// empty data declarations, 80 bytes each in prost's form since records and interfaces
/// added their flags).
pub const MAX_STATE_BYTES: usize = 60 << 20;

/// The deepest term [`decode`] accepts: how many compound nodes may be open at once
/// (a list literal of `n` elements needs `n`). Deeper input is reported, not built.
pub const MAX_TERM_DEPTH: usize = 1_000_000;

/// The span every decoded term and declaration carries: encodings hold no spans.
pub const NO_SPAN: Span = Span {
    file: FileId(0),
    start: 0,
    end: 0,
};

/// How many entries of each of `program`'s tables come from the prelude: the
/// declarations whose spans point into the driver's `<prelude>/...` files (they come
/// first in every table).
pub fn prelude_counts(
    sources: &crate::syntax::span::SourceMap,
    program: &crate::core::program::Program,
) -> crate::core::program::DeclCounts {
    let from_prelude = |span: Span| sources.get(span.file).name.starts_with("<prelude>/");
    crate::core::program::DeclCounts {
        datas: program
            .datas
            .iter()
            .take_while(|d| from_prelude(d.span))
            .count(),
        externs: program
            .externs
            .iter()
            .take_while(|e| from_prelude(e.span))
            .count(),
        defs: program
            .defs
            .iter()
            .take_while(|d| from_prelude(d.span))
            .count(),
    }
}

#[cfg(test)]
mod tests;
