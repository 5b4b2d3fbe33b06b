//! Batch mode (issue 33): a run whose model calls go to a provider's Batch API at half
//! the price, across as many rounds as the program's depth of dependent model calls.
//!
//! A round evaluates the program until every path that can go on waits on model
//! calls nobody has answered yet: the *frontier* ([`FrontierCall`], collected by the
//! call layer instead of running those calls). The frontier is submitted as one batch
//! per endpoint ([`api`]), the batch is written down in the store ([`pending`]), and
//! the run exits with status 75. The next `spindle run --resume` polls the batch;
//! once it is done its replies become ordinary records of the result store
//! ([`results`]), and the program is evaluated again, every answered call now
//! reused, up to the next frontier.
//!
//! Each round evaluates the program from its start. What the earlier rounds of the
//! same run did with other calls (processes, files, HTTP) is kept in the store as the
//! run's *journal* (keyed by the run's session and the call's arguments) and replayed
//! as it was, so that a round never performs an effect again and sees what the first
//! round saw. Output is held back until the round that finishes, so standard output
//! is the same as a live run's.

pub mod api;
pub mod pending;
pub mod price;
pub mod results;

use crate::external::net::openai::{Endpoint, LlmCall};
use crate::external::store::key::Hash;

/// The exit status of a run that waits on a batch (`EX_TEMPFAIL`).
pub const EXIT_BATCH_PENDING: u8 = 75;

/// A model call of the frontier: not made in this round, to be submitted in a batch.
#[derive(Debug, Clone)]
pub struct FrontierCall {
    /// Its record key in the result store (the batch line's `custom_id`, in hex).
    pub key: Hash,
    /// The external (`llm`, `llmChat`, `embed`, `llmStream`).
    pub external: String,
    /// The request.
    pub call: LlmCall,
    /// Its place, as shown (`wf.sp:3:5`).
    pub place: String,
    /// Whether it was certainly needed when met (else speculation met it).
    pub certain: bool,
}

impl FrontierCall {
    /// The batch line's `custom_id`: the record key in hex.
    pub fn custom_id(&self) -> String {
        hex(&self.key)
    }

    /// The batch endpoint (`/v1/chat/completions`, `/v1/embeddings`).
    pub fn endpoint(&self) -> &'static str {
        endpoint_path(self.call.endpoint)
    }

    /// The request's body as sent in a batch: the live request's body (a streamed
    /// call, `llmStream`, is asked for whole; its reply is replayed as one chunk).
    pub fn body(&self) -> serde_json::Value {
        serde_json::from_str(&self.call.wire).unwrap_or(serde_json::Value::Null)
    }
}

/// The path a batch names for an endpoint.
pub fn endpoint_path(e: Endpoint) -> &'static str {
    match e {
        Endpoint::Chat => "/v1/chat/completions",
        Endpoint::Embeddings => "/v1/embeddings",
    }
}

/// Lower-case hex of a hash.
pub fn hex(h: &[u8]) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

/// A hash from its hex (`None` if it is not 64 hex digits).
pub fn unhex(s: &str) -> Option<Hash> {
    if s.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The key a journal entry is kept under: the run's session, the external and its
/// arguments. Within one run the same external with the same arguments is one call
/// (LANGUAGE.md 7.3), so the arguments name it.
pub fn journal_key(session: &Hash, external: &str, args: &[crate::core::plain::Plain]) -> Hash {
    let mut h = blake3::Hasher::new();
    h.update(b"spindle-batch-journal");
    h.update(session);
    h.update(&(external.len() as u64).to_le_bytes());
    h.update(external.as_bytes());
    h.update(&(args.len() as u64).to_le_bytes());
    for a in args {
        crate::external::store::key::hash_plain(&mut h, a);
    }
    *h.finalize().as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_what_is_not_a_key() {
        let k: Hash = std::array::from_fn(|i| (i * 37 % 256) as u8);
        assert_eq!(unhex(&hex(&k)), Some(k));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex(&"zz".repeat(32)), None);
    }

    #[test]
    fn journal_keys_tell_sessions_externals_and_arguments_apart() {
        use crate::core::plain::Plain;
        let s1 = [1u8; 32];
        let s2 = [2u8; 32];
        let a = vec![Plain::Str("ls".into())];
        let b = vec![Plain::Str("ls ".into())];
        let k = journal_key(&s1, "shell", &a);
        assert_eq!(k, journal_key(&s1, "shell", &a));
        assert_ne!(k, journal_key(&s2, "shell", &a));
        assert_ne!(k, journal_key(&s1, "run", &a));
        assert_ne!(k, journal_key(&s1, "shell", &b));
    }
}
