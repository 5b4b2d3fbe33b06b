//! Decoding errors as plain data: what is wrong ([`Problem`]) and where
//! ([`DecodeError::place`]). The command line prints them as `error: ...`.

use std::fmt;

/// Why an encoding was rejected, and where in it.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    /// Where the problem is, from the outside in (`definition 12 (`map`), body, node 5`);
    /// empty when it concerns the bytes as a whole.
    pub place: String,
    /// What is wrong.
    pub problem: Problem,
}

/// The ways an encoding can be wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// The bytes are not a protobuf message of the expected shape (truncated, random,
    /// a length past the end of the input, ...): prost's own description.
    Malformed(String),
    /// More bytes than [`MAX_ENCODED_BYTES`](super::MAX_ENCODED_BYTES).
    TooLarge {
        /// The input's size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A format version this build does not read.
    UnsupportedVersion {
        /// The version found.
        found: u32,
    },
    /// A required part is absent (a term without nodes, a node without a kind, ...).
    Missing(&'static str),
    /// An enum value this format does not define.
    UnknownEnum {
        /// Which enum.
        what: &'static str,
        /// The value found.
        value: i32,
    },
    /// A reference past the end of its table.
    OutOfRange {
        /// What the reference points to.
        what: &'static str,
        /// The index found.
        index: u64,
        /// The table's length.
        len: u64,
    },
    /// A variable whose de Bruijn index points past every enclosing binder.
    DanglingIndex {
        /// The index.
        index: u32,
        /// How many binders are in scope there.
        depth: usize,
    },
    /// A term nested deeper than [`MAX_TERM_DEPTH`](super::MAX_TERM_DEPTH).
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The nodes of a term end before the term is complete.
    TermEndsEarly,
    /// Nodes left over after a complete term.
    TrailingNodes {
        /// How many.
        extra: usize,
    },
    /// A flattened chain with no element (an application without arguments, ...).
    EmptyChain(&'static str),
    /// A name that is not a valid identifier of its kind.
    BadName {
        /// What the name is of.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// An external the host does not provide.
    UnknownExternal(String),
    /// A constructor pattern binding another number of fields than the constructor has.
    PatternArity {
        /// The constructor's field count.
        expected: usize,
        /// The pattern's.
        found: usize,
    },
    /// A literal pattern that is a `Float` (patterns match `Int`s and `String`s).
    FloatPattern,
    /// The builtins disagree with the tables (`True` not a constructor of `Bool`, ...).
    BadBuiltins(&'static str),
    /// `main` is one of the prelude's definitions.
    MainInPrelude,
    /// The encoded prelude is not the one this build has, so the program cannot be
    /// printed as a file that loads with it.
    DifferentPrelude(String),
    /// The program cannot be printed as one source file (two externals of the same
    /// name that both must keep it).
    Unprintable(String),
    /// A `Char` literal whose code is not a Unicode scalar value.
    BadChar(u32),
}

impl DecodeError {
    /// An error about the input as a whole.
    pub fn new(problem: Problem) -> DecodeError {
        DecodeError {
            place: String::new(),
            problem,
        }
    }

    /// An error at `place`.
    pub fn at(place: impl Into<String>, problem: Problem) -> DecodeError {
        DecodeError {
            place: place.into(),
            problem,
        }
    }

    /// Prefixes the place with an outer one (`definition 3`, then `body`).
    pub fn within(mut self, outer: impl fmt::Display) -> DecodeError {
        self.place = if self.place.is_empty() {
            outer.to_string()
        } else {
            format!("{outer}, {}", self.place)
        };
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Malformed(why) => write!(f, "not a valid encoded program: {why}"),
            Problem::TooLarge { bytes, limit } => write!(
                f,
                "the encoding is too large ({bytes} bytes; the limit is {limit})"
            ),
            Problem::UnsupportedVersion { found } => write!(
                f,
                "unsupported format version {found} (this build reads version {})",
                super::FORMAT_VERSION
            ),
            Problem::Missing(what) => write!(f, "missing {what}"),
            Problem::UnknownEnum { what, value } => write!(f, "unknown {what} {value}"),
            Problem::OutOfRange { what, index, len } => {
                write!(f, "{what} {index} is out of range (there are {len})")
            }
            Problem::DanglingIndex { index, depth } => write!(
                f,
                "dangling variable: de Bruijn index {index} with only {depth} binders in scope"
            ),
            Problem::TooDeep { limit } => {
                write!(
                    f,
                    "the term is nested too deeply (more than {limit} levels)"
                )
            }
            Problem::TermEndsEarly => write!(f, "the term's nodes end before the term does"),
            Problem::TrailingNodes { extra } => {
                write!(f, "{extra} nodes left over after the end of the term")
            }
            Problem::EmptyChain(what) => write!(f, "{what} with nothing in it"),
            Problem::BadName { what, name } => write!(f, "invalid {what} name {name:?}"),
            Problem::UnknownExternal(name) => write!(f, "unknown external `{name}`"),
            Problem::PatternArity { expected, found } => write!(
                f,
                "a constructor pattern binds {found} fields, but the constructor has {expected}"
            ),
            Problem::FloatPattern => write!(f, "a `Float` literal pattern"),
            Problem::BadBuiltins(why) => write!(f, "inconsistent builtins: {why}"),
            Problem::MainInPrelude => write!(f, "`main` is a definition of the prelude"),
            Problem::DifferentPrelude(why) => write!(
                f,
                "the program was encoded with a different prelude ({why})"
            ),
            Problem::Unprintable(why) => {
                write!(f, "the program cannot be printed as one file: {why}")
            }
            Problem::BadChar(code) => {
                write!(
                    f,
                    "a Char literal U+{code:X} that is not a Unicode scalar value"
                )
            }
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.place.is_empty() {
            write!(f, "{}", self.problem)
        } else {
            write!(f, "{} (at {})", self.problem, self.place)
        }
    }
}

impl std::error::Error for DecodeError {}
