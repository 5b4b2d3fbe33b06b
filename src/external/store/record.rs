//! What the result store keeps for one successful call, as protobuf messages (prost's
//! derive, so the bytes are prost's well-tested encoding; unknown fields from a later
//! version are skipped, and bad bytes are an error, never a panic).

use crate::external::request::Reply;

/// The record of one successful call.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Record {
    /// [`RECORD_VERSION`] when written.
    #[prost(uint32, tag = "1")]
    pub version: u32,
    /// The external's name.
    #[prost(string, tag = "2")]
    pub external: String,
    /// The executor's answer.
    #[prost(message, optional, tag = "3")]
    pub reply: Option<StoredReply>,
    /// Programs and files the key covered (for `--explain`).
    #[prost(message, repeated, tag = "4")]
    pub inputs: Vec<FileEntry>,
    /// `SPINDLE_KEY_ENV` variables and their values.
    #[prost(message, repeated, tag = "5")]
    pub env: Vec<EnvEntry>,
    /// The files the call wrote, with their fingerprints: the record is reused only
    /// while they hold this.
    #[prost(message, repeated, tag = "6")]
    pub outputs: Vec<FileEntry>,
    /// When the call ended, nanoseconds since the epoch.
    #[prost(int64, tag = "7")]
    pub created_ns: i64,
    /// How long it ran, in milliseconds.
    #[prost(uint64, tag = "8")]
    pub duration_ms: u64,
    /// Its place in the program, as shown to users (`wf.sp:3:5`).
    #[prost(string, tag = "9")]
    pub place: String,
    /// The call as shown to users (`sort -u data.txt`).
    #[prost(string, tag = "10")]
    pub shown: String,
    /// Inputs kept once for many records ([`InputSet`]s, by hash): the files a tool
    /// uses outside the working directory (its program, libraries, locale files, the
    /// `PATH` it searched) are the same for most calls.
    #[prost(bytes = "vec", repeated, tag = "11")]
    pub input_sets: Vec<Vec<u8>>,
}

/// The version of [`Record`] this build writes. Version 1 (before issue 24) covered
/// the inputs a command line named, guessed; its records are never reused.
pub const RECORD_VERSION: u32 = 2;

/// Inputs shared by many records, stored once by the hash of their encoding.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InputSet {
    /// The inputs.
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<FileEntry>,
}

/// What a [`FileEntry`] says of its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum EntryKind {
    /// A regular file with this content (`hash`).
    Content = 0,
    /// A directory whose names hash to `hash`.
    Listing = 1,
    /// Something is there (a file or a directory, as `dir` says).
    Exists = 2,
    /// Nothing is there.
    Missing = 3,
    /// A directory (an output: a folder the call made).
    Dir = 4,
    /// A symbolic link whose target text hashes to `hash` (an output).
    Symlink = 5,
}

/// A file and its fingerprint.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FileEntry {
    /// The path as the call named it (relative to the working directory, or absolute).
    #[prost(string, tag = "1")]
    pub path: String,
    /// blake3 of its content.
    #[prost(bytes = "vec", tag = "2")]
    pub hash: Vec<u8>,
    /// Size in bytes (quick check).
    #[prost(uint64, tag = "3")]
    pub size: u64,
    /// Modification time in nanoseconds (quick check).
    #[prost(int64, tag = "4")]
    pub mtime_ns: i64,
    /// Inode number (quick check).
    #[prost(uint64, tag = "5")]
    pub ino: u64,
    /// Whether this input is a program (for `program changed:`).
    #[prost(bool, tag = "6")]
    pub program: bool,
    /// Status change time in nanoseconds (quick check).
    #[prost(int64, tag = "7")]
    pub ctime_ns: i64,
    /// When it was hashed, nanoseconds since the epoch.
    #[prost(int64, tag = "8")]
    pub hashed_at_ns: i64,
    /// An output the call created (it did not exist before).
    #[prost(bool, tag = "9")]
    pub created: bool,
    /// What the entry says of the path ([`EntryKind`]; content by default).
    #[prost(enumeration = "EntryKind", tag = "10")]
    pub kind: i32,
    /// For [`EntryKind::Exists`]: whether it is a directory.
    #[prost(bool, tag = "11")]
    pub dir: bool,
}

/// An environment variable and its value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EnvEntry {
    /// Its name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its value, if set.
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

/// A [`Reply`] as stored.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredReply {
    /// Which reply.
    #[prost(oneof = "stored_reply::Kind", tags = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10")]
    pub kind: Option<stored_reply::Kind>,
}

/// The variants of [`StoredReply`].
pub mod stored_reply {
    /// One reply.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Kind {
        /// [`Reply::Text`](crate::external::request::Reply::Text).
        #[prost(string, tag = "1")]
        Text(String),
        /// [`Reply::Exit`](crate::external::request::Reply::Exit).
        #[prost(message, tag = "2")]
        Exit(super::ExitReply),
        /// [`Reply::Bool`](crate::external::request::Reply::Bool).
        #[prost(bool, tag = "3")]
        Bool(bool),
        /// [`Reply::Names`](crate::external::request::Reply::Names).
        #[prost(message, tag = "4")]
        Names(super::Names),
        /// [`Reply::MaybeText`](crate::external::request::Reply::MaybeText).
        #[prost(message, tag = "5")]
        MaybeText(super::MaybeText),
        /// [`Reply::Unit`](crate::external::request::Reply::Unit).
        #[prost(bool, tag = "6")]
        Unit(bool),
        /// [`Reply::Llm`](crate::external::request::Reply::Llm), with its tokens.
        #[prost(message, tag = "7")]
        Llm(super::LlmReply),
        /// [`Reply::Embedding`](crate::external::request::Reply::Embedding).
        #[prost(message, tag = "8")]
        Embedding(super::EmbeddingReply),
        /// [`Reply::Http`](crate::external::request::Reply::Http) (not recorded today:
        /// `httpRequest` is an `effect`; kept so that every reply can be stored).
        #[prost(message, tag = "9")]
        Http(super::HttpReply),
        /// [`Reply::Stream`](crate::external::request::Reply::Stream): a finished
        /// stream, its items in a spool file of the store.
        #[prost(message, tag = "10")]
        Stream(super::StreamReply),
    }
}

/// A finished process.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExitReply {
    /// Exit code.
    #[prost(int64, tag = "1")]
    pub code: i64,
    /// Standard output.
    #[prost(string, tag = "2")]
    pub stdout: String,
    /// Standard error.
    #[prost(string, tag = "3")]
    pub stderr: String,
}

/// A model's reply and the tokens it was charged for.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LlmReply {
    /// The text.
    #[prost(string, tag = "1")]
    pub text: String,
    /// The finish reason.
    #[prost(string, tag = "2")]
    pub finish: String,
    /// Prompt tokens.
    #[prost(int64, tag = "3")]
    pub tokens_in: i64,
    /// Completion tokens.
    #[prost(int64, tag = "4")]
    pub tokens_out: i64,
}

/// An embedding.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EmbeddingReply {
    /// The numbers.
    #[prost(double, repeated, tag = "1")]
    pub vector: Vec<f64>,
    /// Prompt tokens.
    #[prost(int64, tag = "2")]
    pub tokens_in: i64,
}

/// An HTTP response.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HttpReply {
    /// The status.
    #[prost(int64, tag = "1")]
    pub status: i64,
    /// Header names, in order.
    #[prost(string, repeated, tag = "2")]
    pub header_names: Vec<String>,
    /// Header values, in the same order.
    #[prost(string, repeated, tag = "3")]
    pub header_values: Vec<String>,
    /// The body.
    #[prost(string, tag = "4")]
    pub body: String,
}

/// A finished stream: where its items are kept, how many, and its tokens.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StreamReply {
    /// The spool file.
    #[prost(string, tag = "1")]
    pub spool: String,
    /// How many items.
    #[prost(uint64, tag = "2")]
    pub items: u64,
    /// Prompt tokens.
    #[prost(int64, tag = "3")]
    pub tokens_in: i64,
    /// Completion tokens.
    #[prost(int64, tag = "4")]
    pub tokens_out: i64,
}

/// A list of names.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Names {
    /// The names.
    #[prost(string, repeated, tag = "1")]
    pub names: Vec<String>,
}

/// A text that may be absent.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MaybeText {
    /// The text.
    #[prost(string, optional, tag = "1")]
    pub text: Option<String>,
}

impl StoredReply {
    /// A reply as stored.
    pub fn from_reply(r: &Reply) -> StoredReply {
        use stored_reply::Kind;
        let kind = match r {
            Reply::Text(t) => Kind::Text(t.clone()),
            Reply::Exit {
                code,
                stdout,
                stderr,
            } => Kind::Exit(ExitReply {
                code: *code,
                stdout: stdout.clone(),
                stderr: stderr.clone(),
            }),
            Reply::Bool(b) => Kind::Bool(*b),
            Reply::Names(n) => Kind::Names(Names { names: n.clone() }),
            Reply::MaybeText(t) => Kind::MaybeText(MaybeText { text: t.clone() }),
            Reply::Unit => Kind::Unit(true),
            Reply::Llm {
                text,
                finish,
                tokens_in,
                tokens_out,
            } => Kind::Llm(LlmReply {
                text: text.clone(),
                finish: finish.clone(),
                tokens_in: *tokens_in,
                tokens_out: *tokens_out,
            }),
            Reply::Stream {
                spool,
                items,
                tokens_in,
                tokens_out,
            } => Kind::Stream(StreamReply {
                spool: spool.clone(),
                items: *items,
                tokens_in: *tokens_in,
                tokens_out: *tokens_out,
            }),
            // Never recorded (a stream's items in passing): kept as names.
            Reply::Batch(b) => Kind::Names(Names {
                names: b.items.iter().map(str::to_string).collect(),
            }),
            Reply::Embedding { bits, tokens_in } => Kind::Embedding(EmbeddingReply {
                vector: bits.iter().map(|b| f64::from_bits(*b)).collect(),
                tokens_in: *tokens_in,
            }),
            Reply::Http {
                status,
                headers,
                body,
            } => Kind::Http(HttpReply {
                status: *status,
                header_names: headers.iter().map(|(k, _)| k.clone()).collect(),
                header_values: headers.iter().map(|(_, v)| v.clone()).collect(),
                body: body.clone(),
            }),
        };
        StoredReply { kind: Some(kind) }
    }

    /// The reply back, or `None` for a record without one.
    pub fn to_reply(&self) -> Option<Reply> {
        use stored_reply::Kind;
        Some(match self.kind.as_ref()? {
            Kind::Text(t) => Reply::Text(t.clone()),
            Kind::Exit(e) => Reply::Exit {
                code: e.code,
                stdout: e.stdout.clone(),
                stderr: e.stderr.clone(),
            },
            Kind::Bool(b) => Reply::Bool(*b),
            Kind::Names(n) => Reply::Names(n.names.clone()),
            Kind::MaybeText(t) => Reply::MaybeText(t.text.clone()),
            Kind::Unit(_) => Reply::Unit,
            Kind::Llm(l) => Reply::Llm {
                text: l.text.clone(),
                finish: l.finish.clone(),
                tokens_in: l.tokens_in,
                tokens_out: l.tokens_out,
            },
            Kind::Stream(st) => Reply::Stream {
                spool: st.spool.clone(),
                items: st.items,
                tokens_in: st.tokens_in,
                tokens_out: st.tokens_out,
            },
            Kind::Embedding(e) => Reply::Embedding {
                bits: e.vector.iter().map(|x| x.to_bits()).collect(),
                tokens_in: e.tokens_in,
            },
            Kind::Http(h) => Reply::Http {
                status: h.status,
                headers: h
                    .header_names
                    .iter()
                    .cloned()
                    .zip(h.header_values.iter().cloned())
                    .collect(),
                body: h.body.clone(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn replies_round_trip() {
        for r in [
            Reply::Text("a\nb".into()),
            Reply::Exit {
                code: 3,
                stdout: "o".into(),
                stderr: "e".into(),
            },
            Reply::Bool(false),
            Reply::Names(vec!["x".into(), "y".into()]),
            Reply::MaybeText(None),
            Reply::MaybeText(Some(String::new())),
            Reply::Unit,
            Reply::Llm {
                text: "t".into(),
                finish: "stop".into(),
                tokens_in: 5,
                tokens_out: 2,
            },
            Reply::Embedding {
                bits: vec![0.25f64.to_bits(), (-3.5f64).to_bits()],
                tokens_in: 1,
            },
            Reply::Http {
                status: 404,
                headers: vec![("a".into(), "b".into())],
                body: "nope".into(),
            },
            Reply::Stream {
                spool: "/s/streams/1.jsonl".into(),
                items: 7,
                tokens_in: 3,
                tokens_out: 9,
            },
        ] {
            let rec = Record {
                reply: Some(StoredReply::from_reply(&r)),
                ..Record::default()
            };
            let back = Record::decode(rec.encode_to_vec().as_slice()).unwrap();
            assert_eq!(back.reply.unwrap().to_reply(), Some(r));
        }
        assert!(Record::decode(&[0xff, 0xff, 0xff][..]).is_err());
    }
}
