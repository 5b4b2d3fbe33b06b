//! The settings of model calls for a whole run: where the server is, the key, the
//! limits and retries (`--llm-*`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`). Set once by the
//! command line ([`configure`]); read by the registry (the base URL is part of a call's
//! request and so of its key) and by the network executor (the key, the limits).
//!
//! The key is held here only: it is never part of a request, a record, a trace or a
//! message ([`mask`] removes it from anything a server says back).

use std::sync::{OnceLock, RwLock};

/// The default base URL, as the OpenAI SDKs have it.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// How model calls are made.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmSettings {
    /// The server's base URL, `/v1` included, without a trailing `/`.
    pub base_url: String,
    /// The key sent as `Authorization: Bearer ...` (`None`: no header).
    pub api_key: Option<String>,
    /// Requests per minute per (base URL, model) (`--llm-rpm`; `None`: none until the
    /// server's `x-ratelimit-limit-requests` gives one).
    pub rpm: Option<f64>,
    /// Tokens per minute per (base URL, model) (`--llm-tpm`; `None`: likewise from
    /// `x-ratelimit-limit-tokens`).
    pub tpm: Option<f64>,
    /// Requests in flight per (base URL, model) (`--llm-in-flight`; `None`: only
    /// `--io-jobs` bounds them).
    pub in_flight: Option<usize>,
    /// Retries of a model call after a 408, 409, 429, 5xx or a connection error
    /// (`--llm-retries`, default 2).
    pub retries: u32,
    /// Whether `paid` calls may start speculatively (`--speculate-paid`).
    pub speculate_paid: bool,
}

impl LlmSettings {
    /// The settings the environment gives: `OPENAI_BASE_URL` (default
    /// [`DEFAULT_BASE_URL`]) and `OPENAI_API_KEY` (empty counts as none).
    pub fn from_env() -> LlmSettings {
        let base = std::env::var("OPENAI_BASE_URL")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        let key = std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|s| !s.trim().is_empty());
        LlmSettings {
            base_url: normalise_base(&base),
            api_key: key,
            rpm: None,
            tpm: None,
            in_flight: None,
            retries: 2,
            speculate_paid: false,
        }
    }
}

/// A base URL without trailing slashes.
pub fn normalise_base(base: &str) -> String {
    base.trim().trim_end_matches('/').to_string()
}

fn cell() -> &'static RwLock<LlmSettings> {
    static SETTINGS: OnceLock<RwLock<LlmSettings>> = OnceLock::new();
    SETTINGS.get_or_init(|| RwLock::new(LlmSettings::from_env()))
}

static SPECULATE_PAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `paid` calls may start speculatively (`--speculate-paid`): read for every
/// call, so kept apart from the rest.
pub fn speculate_paid() -> bool {
    SPECULATE_PAID.load(std::sync::atomic::Ordering::Relaxed)
}

/// Sets the settings for the calls made from now on.
pub fn configure(s: LlmSettings) {
    SPECULATE_PAID.store(s.speculate_paid, std::sync::atomic::Ordering::Relaxed);
    match cell().write() {
        Ok(mut g) => *g = s,
        Err(p) => *p.into_inner() = s,
    }
}

/// The settings now (from the environment until [`configure`] is called).
pub fn current() -> LlmSettings {
    match cell().read() {
        Ok(g) => g.clone(),
        Err(p) => p.into_inner().clone(),
    }
}

/// The base URL now (what a model call's request names; read without copying the
/// rest of the settings).
pub fn base_url() -> String {
    match cell().read() {
        Ok(g) => g.base_url.clone(),
        Err(p) => p.into_inner().base_url.clone(),
    }
}

/// `text` with the key, and anything that looks like an API key (`sk-...`, a long
/// token after `Bearer `), replaced by `***`: what a server says back may quote it.
pub fn mask(text: &str, key: Option<&str>) -> String {
    let mut out = match key {
        Some(k) if k.len() >= 4 => text.replace(k, "***"),
        _ => text.to_string(),
    };
    for prefix in ["sk-", "Bearer "] {
        let mut masked = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(i) = rest.find(prefix) {
            let (before, after) = rest.split_at(i);
            masked.push_str(before);
            let tail = &after[prefix.len()..];
            let n = tail
                .char_indices()
                .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
                .map_or(tail.len(), |(i, _)| i);
            if n >= 8 {
                masked.push_str(prefix);
                masked.push_str("***");
                rest = &tail[n..];
            } else {
                masked.push_str(prefix);
                rest = tail;
            }
        }
        masked.push_str(rest);
        out = masked;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_masked() {
        let key = "sk-proj-abcdefgh12345678";
        let msg = format!("Incorrect API key provided: {key}. See docs.");
        let m = mask(&msg, Some(key));
        assert!(!m.contains("abcdefgh"), "{m}");
        assert_eq!(m, "Incorrect API key provided: ***. See docs.");
        // Not the configured key, but shaped like one.
        let m = mask("key sk-0123456789abcdef was refused", None);
        assert_eq!(m, "key sk-*** was refused");
        let m = mask("Authorization: Bearer abcdefghijklmnop", None);
        assert_eq!(m, "Authorization: Bearer ***");
        // Short words that merely start the same way stay.
        assert_eq!(mask("sk-1 is fine", None), "sk-1 is fine");
    }

    #[test]
    fn base_urls_lose_their_trailing_slash() {
        assert_eq!(normalise_base("http://h:1/v1/"), "http://h:1/v1");
    }
}
