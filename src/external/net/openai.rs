//! Calls to an OpenAI-compatible model server (`llm`, `llmChat`, `embed`): the
//! request made from a call's arguments ([`LlmCall`]: the canonical form that keys
//! its record, and the body sent), the reply read back, and the call performed with
//! the pair's rate limits and retries ([`super::limits`]).
//!
//! The canonical request fills in every default (temperature 1, no token limit, no
//! seed, no stop, text format, sample 0), so that writing a default out does not make
//! a new call, and changing any field does.

use super::limits;
use super::settings::{self, LlmSettings};
use crate::core::plain::Plain;
use crate::external::request::{CallError, CallErrorKind, Reply};
use serde_json::{Value, json};
use std::time::Duration;

/// Which endpoint a call goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `POST {base}/chat/completions`.
    Chat,
    /// `POST {base}/embeddings`.
    Embeddings,
}

impl Endpoint {
    /// The path after the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Endpoint::Chat => "chat/completions",
            Endpoint::Embeddings => "embeddings",
        }
    }
}

/// One model call, ready to send.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LlmCall {
    /// The server's base URL (`/v1` included).
    pub base: String,
    /// Which endpoint.
    pub endpoint: Endpoint,
    /// The model.
    pub model: String,
    /// The canonical request (JSON, keys sorted, every default filled in): what the
    /// call's record is keyed by, with its place.
    pub canonical: String,
    /// The body sent (defaults left out, as a user of the SDK would send it).
    pub wire: String,
    /// Tokens the call is expected to cost (prompt length / 4, plus `max_tokens`), for
    /// the token bucket before the server counts them.
    pub estimated_tokens: u64,
    /// How messages and progress show the call: `llm gpt-4o "Name three..."`.
    pub shown: String,
}

/// The fields of a chat request (`LlmRequest` in the prelude).
#[derive(Debug, Clone, PartialEq)]
pub struct Chat {
    /// The model.
    pub model: String,
    /// (role, content) pairs.
    pub messages: Vec<(&'static str, String)>,
    /// `withTemperature`.
    pub temperature: Option<f64>,
    /// `withMaxTokens`.
    pub max_tokens: Option<i64>,
    /// `withSeed`.
    pub seed: Option<i64>,
    /// `withStop`.
    pub stop: Vec<String>,
    /// `withJson`.
    pub json: bool,
    /// `sample n`.
    pub sample: i64,
}

impl Chat {
    /// `llm model prompt`: one user message, every other field at its default.
    pub fn simple(model: &str, prompt: &str) -> Chat {
        Chat {
            model: model.to_string(),
            messages: vec![("user", prompt.to_string())],
            temperature: None,
            max_tokens: None,
            seed: None,
            stop: Vec::new(),
            json: false,
            sample: 0,
        }
    }

    /// The prelude's `LlmRequest` value.
    pub fn from_plain(p: &Plain) -> Result<Chat, CallError> {
        let bad = |what: &str| CallError::bad_argument(format!("llmChat: {what}"));
        let Plain::Con(name, f) = p else {
            return Err(bad("the request is not an LlmRequest"));
        };
        if name != "MkLlmRequest" || f.len() != 8 {
            return Err(bad("the request is not an LlmRequest"));
        }
        let string = |p: &Plain, what: &str| match p {
            Plain::Str(s) => Ok(s.clone()),
            _ => Err(bad(&format!("{what} is not a String"))),
        };
        let maybe = |p: &Plain| -> Option<Plain> {
            match p {
                Plain::Con(n, xs) if n == "Just" && xs.len() == 1 => Some(xs[0].clone()),
                _ => None,
            }
        };
        let int = |p: &Plain, what: &str| match p {
            Plain::Int(n) => Ok(*n),
            _ => Err(bad(&format!("{what} is not an Int"))),
        };
        let model = string(&f[0], "the model")?;
        let Plain::List(ms) = &f[1] else {
            return Err(bad("the messages are not a List"));
        };
        let mut messages = Vec::with_capacity(ms.len());
        for m in ms {
            let (role, text) = match m {
                Plain::Con(n, xs) if xs.len() == 1 => {
                    let role = match n.as_ref() {
                        "System" => "system",
                        "User" => "user",
                        "Assistant" => "assistant",
                        _ => return Err(bad("a message is not System, User or Assistant")),
                    };
                    (role, string(&xs[0], "a message")?)
                }
                _ => return Err(bad("a message is not System, User or Assistant")),
            };
            messages.push((role, text));
        }
        let temperature = match maybe(&f[2]) {
            Some(Plain::Float(t)) if t.is_finite() && t >= 0.0 => Some(t),
            Some(Plain::Float(t)) => return Err(bad(&format!("temperature {t} is not valid"))),
            Some(_) => return Err(bad("the temperature is not a Float")),
            None => None,
        };
        let max_tokens = match maybe(&f[3]) {
            Some(p) => {
                let n = int(&p, "max tokens")?;
                if n <= 0 {
                    return Err(bad(&format!("max tokens must be positive, not {n}")));
                }
                Some(n)
            }
            None => None,
        };
        let seed = maybe(&f[4]).map(|p| int(&p, "the seed")).transpose()?;
        let Plain::List(st) = &f[5] else {
            return Err(bad("the stop sequences are not a List"));
        };
        let stop = st
            .iter()
            .map(|s| string(s, "a stop sequence"))
            .collect::<Result<Vec<_>, _>>()?;
        let json = matches!(&f[6], Plain::Con(n, _) if n == "True");
        let sample = int(&f[7], "the sample")?;
        Ok(Chat {
            model,
            messages,
            temperature,
            max_tokens,
            seed,
            stop,
            json,
            sample,
        })
    }

    /// The call to `base`.
    pub fn call(&self, base: &str, name: &str) -> LlmCall {
        let messages: Vec<Value> = self
            .messages
            .iter()
            .map(|(r, c)| json!({"role": r, "content": c}))
            .collect();
        let canonical = json!({
            "base_url": base,
            "endpoint": Endpoint::Chat.path(),
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature.unwrap_or(1.0),
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "stop": self.stop,
            "response_format": if self.json { "json_object" } else { "text" },
            "sample": self.sample,
        });
        let mut wire = serde_json::Map::new();
        wire.insert("model".into(), json!(self.model));
        wire.insert("messages".into(), Value::Array(messages));
        if let Some(t) = self.temperature {
            wire.insert("temperature".into(), json!(t));
        }
        if let Some(n) = self.max_tokens {
            wire.insert("max_tokens".into(), json!(n));
        }
        if let Some(s) = self.seed {
            wire.insert("seed".into(), json!(s));
        }
        if !self.stop.is_empty() {
            wire.insert("stop".into(), json!(self.stop));
        }
        if self.json {
            wire.insert("response_format".into(), json!({"type": "json_object"}));
        }
        let chars: usize = self.messages.iter().map(|(_, c)| c.chars().count()).sum();
        let estimated_tokens = (chars / 4 + 4 * self.messages.len()) as u64
            + self.max_tokens.unwrap_or(0).max(0) as u64;
        let last = self
            .messages
            .iter()
            .rev()
            .find(|(r, _)| *r == "user")
            .or(self.messages.last())
            .map_or("", |(_, c)| c.as_str());
        let mut shown = format!("{name} {} {}", self.model, preview(last));
        if self.sample != 0 {
            shown.push_str(&format!(" (sample {})", self.sample));
        }
        LlmCall {
            base: base.to_string(),
            endpoint: Endpoint::Chat,
            model: self.model.clone(),
            canonical: canonical.to_string(),
            wire: Value::Object(wire).to_string(),
            estimated_tokens,
            shown,
        }
    }
}

/// `embed model text` to `base`.
pub fn embedding(base: &str, model: &str, text: &str) -> LlmCall {
    let canonical = json!({
        "base_url": base,
        "endpoint": Endpoint::Embeddings.path(),
        "model": model,
        "input": text,
    });
    LlmCall {
        base: base.to_string(),
        endpoint: Endpoint::Embeddings,
        model: model.to_string(),
        canonical: canonical.to_string(),
        wire: json!({"model": model, "input": text}).to_string(),
        estimated_tokens: (text.chars().count() / 4 + 1) as u64,
        shown: format!("embed {model} {}", preview(text)),
    }
}

/// A text as a short quoted preview on one line.
fn preview(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let cut: String = one_line.chars().take(40).collect();
    if cut.len() < one_line.len() {
        format!("{:?}", format!("{cut}..."))
    } else {
        format!("{cut:?}")
    }
}

/// The fields of two canonical requests that differ, in words:
/// `` `temperature` 0.5 -> 0.2, `messages` `` (values longer than 40 characters are
/// not shown).
pub fn changed_fields(old: &str, new: &str) -> String {
    let (Ok(Value::Object(a)), Ok(Value::Object(b))) = (
        serde_json::from_str::<Value>(old),
        serde_json::from_str::<Value>(new),
    ) else {
        return "the request".into();
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for k in keys {
        let (x, y) = (a.get(k), b.get(k));
        if x == y {
            continue;
        }
        let show = |v: Option<&Value>| v.map_or("none".to_string(), |v| v.to_string());
        let (sx, sy) = (show(x), show(y));
        if sx.chars().count() <= 40 && sy.chars().count() <= 40 {
            out.push(format!("`{k}` {sx} -> {sy}"));
        } else {
            out.push(format!("`{k}`"));
        }
    }
    if out.is_empty() {
        "the request".into()
    } else {
        out.join(", ")
    }
}

/// A chat reply's body: its text, finish reason and usage.
pub fn parse_chat(body: &str) -> Result<Reply, String> {
    let v: Value =
        serde_json::from_str(body).map_err(|e| format!("the reply is not JSON ({e})"))?;
    let choice = v
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or("the reply has no `choices`")?;
    let text = match choice.get("message").and_then(|m| m.get("content")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(_) => return Err("the reply's `message.content` is not text".into()),
    };
    let finish = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let (tokens_in, tokens_out) = usage(&v);
    Ok(Reply::Llm {
        text,
        finish,
        tokens_in,
        tokens_out,
    })
}

fn usage(v: &Value) -> (i64, i64) {
    let u = v.get("usage");
    let n = |k: &str| {
        u.and_then(|u| u.get(k))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    (n("prompt_tokens"), n("completion_tokens"))
}

/// An embeddings reply's body: the first vector and the tokens.
pub fn parse_embedding(body: &str) -> Result<Reply, String> {
    let v: Value =
        serde_json::from_str(body).map_err(|e| format!("the reply is not JSON ({e})"))?;
    let xs = v
        .get("data")
        .and_then(|d| d.get(0))
        .and_then(|d| d.get("embedding"))
        .and_then(Value::as_array)
        .ok_or("the reply has no `data[0].embedding`")?;
    let bits = xs
        .iter()
        .map(|x| {
            x.as_f64()
                .map(f64::to_bits)
                .ok_or("an embedding holds a non-number")
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Reply::Embedding {
        bits,
        tokens_in: usage(&v).0,
    })
}

/// The provider's message in an error body (`{"error": {"message": ...}}`), or the
/// start of the body.
fn provider_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let e = v.get("error")?;
        e.get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| e.as_str().map(str::to_string))
    });
    let text = from_json.unwrap_or_else(|| body.trim().chars().take(300).collect());
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Performs a model call: waits for its pair's limits, sends it, and retries it as
/// the settings say. The answer, or a failure naming the model, the status and the
/// provider's message (the key masked out).
pub async fn perform(client: &reqwest::Client, call: &LlmCall) -> Result<Reply, CallError> {
    let s = settings::current();
    let pair = limits::pair(&call.base, &call.model, &s);
    let _permit = match &pair.in_flight {
        Some(sem) => Some(sem.clone().acquire_owned().await.map_err(|_| {
            CallError::new(CallErrorKind::Stopping, "the network executor is shut down")
        })?),
        None => None,
    };
    let url = format!("{}/{}", call.base, call.endpoint.path());
    let mut attempt: u32 = 0;
    loop {
        attempt += 1;
        let go = pair.reserve(call.estimated_tokens);
        tokio::time::sleep_until(go.into()).await;
        let outcome = send(client, &url, call, &s).await;
        let (retry, wait, err) = match outcome {
            Ok((status, headers, body)) => {
                pair.observe(&headers);
                if (200..300).contains(&status) {
                    let parsed = match call.endpoint {
                        Endpoint::Chat => parse_chat(&body),
                        Endpoint::Embeddings => parse_embedding(&body),
                    };
                    return match parsed {
                        Ok(reply) => {
                            let (i, o) = reply.tokens();
                            pair.settle(call.estimated_tokens, (i + o).max(0) as u64);
                            Ok(reply)
                        }
                        Err(why) => Err(failure(
                            call,
                            CallErrorKind::Network,
                            &format!("{why} (from {url})"),
                            &s,
                        )),
                    };
                }
                let message = format!(
                    "status {status}{}: {}",
                    reqwest::StatusCode::from_u16(status)
                        .ok()
                        .and_then(|c| c.canonical_reason())
                        .map(|r| format!(" {r}"))
                        .unwrap_or_default(),
                    provider_message(&body)
                );
                (
                    limits::retryable_status(status),
                    limits::retry_after(&headers),
                    failure(call, CallErrorKind::Status(status), &message, &s),
                )
            }
            Err(e) => (
                true,
                None,
                failure(call, CallErrorKind::Network, &network_message(&e, &url), &s),
            ),
        };
        if !retry || attempt > s.retries {
            let mut err = err;
            if attempt > 1 {
                err.message
                    .push_str(&format!(" (after {attempt} attempts)"));
            }
            return Err(err);
        }
        let wait = wait
            .filter(|w| *w <= Duration::from_secs(300))
            .unwrap_or_else(|| limits::backoff(attempt));
        tokio::time::sleep(wait).await;
    }
}

/// One attempt: status, headers and body.
async fn send(
    client: &reqwest::Client,
    url: &str,
    call: &LlmCall,
    s: &LlmSettings,
) -> Result<(u16, reqwest::header::HeaderMap, String), reqwest::Error> {
    let mut rb = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(call.wire.clone());
    if let Some(k) = &s.api_key {
        rb = rb.bearer_auth(k);
    }
    let resp = rb.send().await?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.text().await?;
    Ok((status, headers, body))
}

/// A network error in words (reqwest's chain of causes, the URL once).
pub fn network_message(e: &reqwest::Error, url: &str) -> String {
    let mut msg = if e.is_timeout() {
        "timed out".to_string()
    } else if e.is_connect() {
        "cannot connect".to_string()
    } else {
        "the connection failed".to_string()
    };
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e);
    let mut last = String::new();
    while let Some(s) = src {
        last = s.to_string();
        src = s.source();
    }
    if !last.is_empty() {
        msg.push_str(&format!(" ({last})"));
    }
    format!("{msg} to {url}")
}

fn failure(call: &LlmCall, kind: CallErrorKind, what: &str, s: &LlmSettings) -> CallError {
    let text = format!("`{}` (model {}) failed: {what}", call.shown, call.model);
    CallError::new(kind, settings::mask(&text, s.api_key.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_written_out_are_the_same_call() {
        let a = Chat::simple("m", "hi");
        let mut b = a.clone();
        b.temperature = Some(1.0);
        assert_eq!(a.call("u", "llm").canonical, b.call("u", "llm").canonical);
        assert_ne!(a.call("u", "llm").wire, b.call("u", "llm").wire);
        let mut c = a.clone();
        c.temperature = Some(0.2);
        assert_ne!(a.call("u", "llm").canonical, c.call("u", "llm").canonical);
        let mut d = a.clone();
        d.sample = 1;
        assert_ne!(a.call("u", "llm").canonical, d.call("u", "llm").canonical);
        assert_ne!(a.call("u", "llm").canonical, a.call("v", "llm").canonical);
    }

    #[test]
    fn changed_fields_are_named() {
        let a = Chat::simple("m", "hi");
        let mut b = a.clone();
        b.temperature = Some(0.2);
        b.messages[0].1 = "a much longer prompt than before, well over forty characters".into();
        let d = changed_fields(&a.call("u", "llm").canonical, &b.call("u", "llm").canonical);
        assert_eq!(d, "`messages`, `temperature` 1.0 -> 0.2");
        assert_eq!(changed_fields("{", "{}"), "the request");
    }

    #[test]
    fn replies_are_read() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#;
        assert_eq!(
            parse_chat(body),
            Ok(Reply::Llm {
                text: "hi".into(),
                finish: "stop".into(),
                tokens_in: 3,
                tokens_out: 1
            })
        );
        assert!(parse_chat("{").unwrap_err().contains("not JSON"));
        assert!(parse_chat("{}").unwrap_err().contains("choices"));
        let e = r#"{"data":[{"embedding":[0.5,-1]}],"usage":{"prompt_tokens":2}}"#;
        assert_eq!(
            parse_embedding(e),
            Ok(Reply::Embedding {
                bits: vec![0.5f64.to_bits(), (-1.0f64).to_bits()],
                tokens_in: 2
            })
        );
        assert_eq!(
            provider_message(r#"{"error":{"message":"Rate limit reached"}}"#),
            "Rate limit reached"
        );
    }

    #[test]
    fn a_request_value_is_read() {
        let s = |x: &str| Plain::Str(x.into());
        let p = Plain::con(
            "MkLlmRequest",
            vec![
                s("m"),
                Plain::List(vec![
                    Plain::con("System", vec![s("be brief")]),
                    Plain::con("User", vec![s("hi")]),
                ]),
                Plain::maybe(Some(Plain::Float(0.5))),
                Plain::maybe(None),
                Plain::maybe(Some(Plain::Int(7))),
                Plain::List(vec![s("\n")]),
                Plain::bool(true),
                Plain::Int(2),
            ],
        );
        let c = Chat::from_plain(&p).unwrap();
        assert_eq!(
            c.messages,
            vec![("system", "be brief".into()), ("user", "hi".into())]
        );
        assert_eq!(c.temperature, Some(0.5));
        assert_eq!(c.seed, Some(7));
        assert!(c.json);
        assert_eq!(c.sample, 2);
        let call = c.call("http://x/v1", "llmChat");
        let wire: Value = serde_json::from_str(&call.wire).unwrap();
        assert_eq!(wire["response_format"]["type"], "json_object");
        assert_eq!(wire["seed"], 7);
        assert!(wire.get("sample").is_none());
        assert!(Chat::from_plain(&s("x")).is_err());
    }
}
