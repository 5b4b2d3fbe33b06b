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
    /// `llmStream`: the reply's chunks go to this stream as they arrive (the request
    /// asks for server-sent events), and the answer is [`Reply::Stream`].
    pub stream: Option<crate::external::stream::StreamRef>,
    /// Where a streamed reply's chunks are kept for its record (set by the call layer
    /// when the call is recorded).
    pub spool: Option<String>,
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
            stream: None,
            spool: None,
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
        stream: None,
        spool: None,
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
/// start of the body (also what the batch client says of a refused request).
pub fn provider_message(body: &str) -> String {
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
    let _permit = in_flight_permit(&pair).await?;
    let url = format!("{}/{}", call.base, call.endpoint.path());
    let mut attempt: u32 = 0;
    loop {
        attempt += 1;
        let go = pair.reserve(call.estimated_tokens);
        tokio::time::sleep_until(go.into()).await;
        let outcome = send(client, &url, call, &s).await;
        let failed = match outcome {
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
                status_failure(call, status, &headers, &body, &s)
            }
            Err(e) => Failed {
                retry: true,
                wait: None,
                err: failure(call, CallErrorKind::Network, &network_message(&e, &url), &s),
            },
        };
        let wait = next_attempt(attempt, failed, &s)?;
        tokio::time::sleep(wait).await;
    }
}

/// A permit of the pair's `--llm-in-flight` bound (none when it has no bound), held
/// for as long as the call is in flight.
async fn in_flight_permit(
    pair: &limits::Pair,
) -> Result<Option<tokio::sync::OwnedSemaphorePermit>, CallError> {
    match &pair.in_flight {
        Some(sem) => Ok(Some(sem.clone().acquire_owned().await.map_err(|_| {
            CallError::new(CallErrorKind::Stopping, "the network executor is shut down")
        })?)),
        None => Ok(None),
    }
}

/// An attempt that failed: whether it may be retried, after how long the server asked
/// (`Retry-After`), and the error to answer with if it is not.
struct Failed {
    retry: bool,
    wait: Option<Duration>,
    err: CallError,
}

/// An answer outside 200-299: the status, its reason and the provider's message;
/// retried when the status says the server may answer later.
fn status_failure(
    call: &LlmCall,
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: &str,
    s: &LlmSettings,
) -> Failed {
    let message = format!(
        "status {status}{}: {}",
        reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|c| c.canonical_reason())
            .map(|r| format!(" {r}"))
            .unwrap_or_default(),
        provider_message(body)
    );
    Failed {
        retry: limits::retryable_status(status),
        wait: limits::retry_after(headers),
        err: failure(call, CallErrorKind::Status(status), &message, s),
    }
}

/// After attempt number `attempt` failed: how long to wait before the next one, or the
/// error to answer with (the attempts counted in it) when there is none.
fn next_attempt(attempt: u32, failed: Failed, s: &LlmSettings) -> Result<Duration, CallError> {
    if !failed.retry || attempt > s.retries {
        let mut err = failed.err;
        if attempt > 1 {
            err.message
                .push_str(&format!(" (after {attempt} attempts)"));
        }
        return Err(err);
    }
    Ok(failed
        .wait
        .filter(|w| *w <= Duration::from_secs(300))
        .unwrap_or_else(|| limits::backoff(attempt)))
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

/// What one server-sent event of a streamed chat reply says (`llmStream`): a chunk
/// carries a piece of text, the finish reason, the usage, or several of these; the
/// `[DONE]` event ends the reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamChunk {
    /// The next piece of the reply's text (never empty: role-only and empty deltas
    /// carry none).
    pub text: Option<String>,
    /// Why the reply stopped (`stop`, `length`, ...), on its last chunk.
    pub finish: Option<String>,
    /// Prompt and completion tokens, on the chunk that reports usage (asked for with
    /// `stream_options.include_usage`).
    pub usage: Option<(i64, i64)>,
    /// The `[DONE]` event: nothing follows.
    pub done: bool,
}

/// Reads the `data` of one event of a streamed chat reply (OpenAI's
/// `chat.completion.chunk`): the text of the first choice's delta, its finish reason,
/// the usage, or `[DONE]`. A payload that is not a JSON object, or that carries an
/// `error`, is a malformed event: the message says why.
pub fn read_stream_chunk(data: &str) -> Result<StreamChunk, String> {
    stream_chunk(data).map_err(|why| format!("malformed event: {why}"))
}

/// [`read_stream_chunk`], with only the reason a payload is malformed.
fn stream_chunk(data: &str) -> Result<StreamChunk, String> {
    if data.trim() == "[DONE]" {
        return Ok(StreamChunk {
            done: true,
            ..StreamChunk::default()
        });
    }
    let v: Value =
        serde_json::from_str(data).map_err(|e| format!("not JSON ({e}): {}", clip(data)))?;
    let Value::Object(o) = &v else {
        return Err(format!("not a JSON object: {}", clip(data)));
    };
    if let Some(e) = o.get("error").filter(|e| !e.is_null()) {
        return Err(format!("the server sent an error: {}", error_text(e)));
    }
    // The choice of index 0 (a server that streams several choices interleaves them).
    let choice = o.get("choices").and_then(Value::as_array).and_then(|cs| {
        cs.iter()
            .find(|c| c.get("index").is_none_or(|i| i.as_i64() == Some(0)))
    });
    let text = match choice
        .and_then(|c| c.get("delta"))
        .and_then(|d| d.get("content"))
    {
        Some(Value::String(t)) if !t.is_empty() => Some(t.clone()),
        Some(Value::String(_)) | Some(Value::Null) | None => None,
        Some(_) => {
            return Err(format!(
                "`choices[0].delta.content` is not text: {}",
                clip(data)
            ));
        }
    };
    let finish = choice
        .and_then(|c| c.get("finish_reason"))
        .and_then(Value::as_str)
        .filter(|f| !f.is_empty())
        .map(str::to_string);
    let usage = o.get("usage").filter(|u| u.is_object()).map(|_| usage(&v));
    Ok(StreamChunk {
        text,
        finish,
        usage,
        done: false,
    })
}

/// An `error` object's message (or the value itself), on one line.
fn error_text(e: &Value) -> String {
    let text = e
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| e.as_str().map(str::to_string))
        .unwrap_or_else(|| e.to_string());
    clip(&text)
}

/// The start of a server's text, on one line, for a message.
fn clip(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut cut: String = one_line.chars().take(200).collect();
    if cut.len() < one_line.len() {
        cut.push_str("...");
    }
    cut
}

/// `n chunk(s)`.
fn chunks(n: u64) -> String {
    if n == 1 {
        "1 chunk".into()
    } else {
        format!("{n} chunks")
    }
}

/// The request body of a streamed chat call: the call's own body, asking for
/// server-sent events and for the usage at their end.
pub fn streaming_body(wire: &str) -> Result<String, String> {
    let mut v: Value =
        serde_json::from_str(wire).map_err(|e| format!("the request is not JSON ({e})"))?;
    let Some(o) = v.as_object_mut() else {
        return Err("the request is not a JSON object".into());
    };
    o.insert("stream".into(), Value::Bool(true));
    o.insert("stream_options".into(), json!({"include_usage": true}));
    Ok(v.to_string())
}

/// The spool file of a streamed call's record: one JSON string a line, written as
/// the chunks arrive. A spool that cannot be written is given up (the call still
/// answers; its record then keeps no chunks), as for a process's lines.
struct Spool {
    path: Option<String>,
    out: Option<std::io::BufWriter<std::fs::File>>,
    broken: bool,
}

impl Spool {
    /// Creates (or empties) the file at `path`, if any.
    fn create(path: Option<&str>) -> Spool {
        let out = path.and_then(|p| std::fs::File::create(p).ok());
        Spool {
            broken: path.is_some() && out.is_none(),
            path: path.map(str::to_string),
            out: out.map(|f| std::io::BufWriter::with_capacity(1 << 16, f)),
        }
    }

    /// Adds one chunk.
    fn write(&mut self, item: &str) {
        use std::io::Write;
        if let Some(w) = &mut self.out {
            let line = serde_json::to_string(item).unwrap_or_default();
            if w.write_all(line.as_bytes())
                .and_then(|()| w.write_all(b"\n"))
                .is_err()
            {
                self.broken = true;
                self.out = None;
            }
        }
    }

    /// The call succeeded: the spool's path (empty when there is none, or it could
    /// not be written whole).
    fn keep(mut self) -> String {
        use std::io::Write;
        if let Some(mut w) = self.out.take()
            && w.flush().is_err()
        {
            self.broken = true;
        }
        if self.broken {
            self.discard();
            return String::new();
        }
        self.path.take().unwrap_or_default()
    }

    /// The call failed or was stopped: the file goes.
    fn discard(mut self) {
        self.out = None;
        if let Some(p) = self.path.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// What a streamed reply delivered.
#[derive(Debug, Default)]
struct Streamed {
    /// Chunks pushed to the stream.
    items: u64,
    /// Usage, if the server reported it.
    usage: Option<(i64, i64)>,
}

/// Pushes one chunk, waiting (without blocking the network thread) while the
/// stream's buffer is full: `false` when the consumer closed the stream.
async fn push(stream: &crate::external::stream::Stream, item: String) -> bool {
    use crate::external::stream::Pushed;
    let mut item = item;
    loop {
        match stream.try_push(item) {
            Pushed::Yes => return true,
            Pushed::Closed => return false,
            Pushed::Full(back) => {
                item = back;
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
    }
}

/// The answer of a call whose consumer closed its stream.
fn stopped(call: &LlmCall) -> CallError {
    CallError::new(
        CallErrorKind::Stopping,
        format!("`{}` was stopped: its stream is not needed", call.shown),
    )
}

/// Performs a streamed chat call (`llmStream`): like [`perform`] (the pair's limits,
/// its in-flight bound, retries, statuses), but the request asks for server-sent
/// events and each piece of text goes to the call's stream as it arrives (and to its
/// spool file, if it has one). The stream is always ended: well, or with the call's
/// error. A failed attempt is retried only while nothing went to the stream. Answers
/// [`Reply::Stream`]; a call without a stream is performed by [`perform`].
pub async fn perform_stream(client: &reqwest::Client, call: &LlmCall) -> Result<Reply, CallError> {
    let Some(stream) = call.stream.clone() else {
        return perform(client, call).await;
    };
    stream.mark_started();
    let s = settings::current();
    let mut spool = Spool::create(call.spool.as_deref());
    match stream_attempts(client, call, &stream, &mut spool, &s).await {
        Ok(got) => {
            let spool = spool.keep();
            stream.finish(Ok(()));
            let (tokens_in, tokens_out) = got.usage.unwrap_or((0, 0));
            Ok(Reply::Stream {
                spool,
                items: got.items,
                tokens_in,
                tokens_out,
            })
        }
        Err(e) => {
            spool.discard();
            stream.finish(Err(e.clone()));
            Err(e)
        }
    }
}

/// The attempts of a streamed call, as [`perform`] makes them.
async fn stream_attempts(
    client: &reqwest::Client,
    call: &LlmCall,
    stream: &crate::external::stream::Stream,
    spool: &mut Spool,
    s: &LlmSettings,
) -> Result<Streamed, CallError> {
    if call.endpoint != Endpoint::Chat {
        return Err(CallError::bad_argument(format!(
            "`{}`: only chat replies can be streamed",
            call.shown
        )));
    }
    let body = streaming_body(&call.wire).map_err(|why| {
        CallError::bad_argument(format!("`{}`: internal error: {why}", call.shown))
    })?;
    let pair = limits::pair(&call.base, &call.model, s);
    if stream.is_closed() {
        return Err(stopped(call));
    }
    let _permit = in_flight_permit(&pair).await?;
    let url = format!("{}/{}", call.base, call.endpoint.path());
    let mut attempt: u32 = 0;
    loop {
        attempt += 1;
        let go = pair.reserve(call.estimated_tokens);
        tokio::time::sleep_until(go.into()).await;
        // Nobody needs the reply any more: no request (it may cost money).
        if stream.is_closed() {
            return Err(stopped(call));
        }
        let failed = match stream_once(client, &url, &body, call, stream, spool, s, &pair).await {
            Ok(got) => return Ok(got),
            Err(f) => f,
        };
        let wait = next_attempt(attempt, failed, s)?;
        tokio::time::sleep(wait).await;
    }
}

/// One attempt of a streamed call: sends it and reads its events into the stream.
/// A failure may be retried only if nothing went to the stream.
#[allow(clippy::too_many_arguments)]
async fn stream_once(
    client: &reqwest::Client,
    url: &str,
    body: &str,
    call: &LlmCall,
    stream: &crate::external::stream::Stream,
    spool: &mut Spool,
    s: &LlmSettings,
    pair: &limits::Pair,
) -> Result<Streamed, Failed> {
    let network = |what: String, retry: bool| Failed {
        retry,
        wait: None,
        err: failure(call, CallErrorKind::Network, &what, s),
    };
    let mut rb = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .body(body.to_string());
    if let Some(k) = &s.api_key {
        rb = rb.bearer_auth(k);
    }
    let mut resp = rb
        .send()
        .await
        .map_err(|e| network(network_message(&e, url), true))?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    pair.observe(&headers);
    if !(200..300).contains(&status) {
        let text = resp
            .text()
            .await
            .map_err(|e| network(network_message(&e, url), true))?;
        return Err(status_failure(call, status, &headers, &text, s));
    }
    let mut got = Streamed::default();
    let json_reply = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if json_reply {
        // A server that does not stream answers with the whole reply: one chunk.
        let text = resp
            .text()
            .await
            .map_err(|e| network(network_message(&e, url), true))?;
        let reply =
            parse_chat(&text).map_err(|why| network(format!("{why} (from {url})"), false))?;
        if let Reply::Llm {
            text,
            tokens_in,
            tokens_out,
            ..
        } = reply
        {
            got.usage = Some((tokens_in, tokens_out));
            if !text.is_empty() {
                spool.write(&text);
                if !push(stream, text).await {
                    return Err(Failed {
                        retry: false,
                        wait: None,
                        err: stopped(call),
                    });
                }
                got.items = 1;
            }
        }
        settle(pair, call, &got);
        return Ok(got);
    }
    let mut parser = super::sse::Parser::new();
    let mut finished = false;
    let mut done = false;
    'read: loop {
        let bytes = match resp.chunk().await {
            Ok(Some(b)) => b,
            Ok(None) => break,
            // The whole text came: what was lost is at most the usage.
            Err(_) if finished => break,
            Err(e) => {
                let what = format!(
                    "the reply was cut off after {}: {}",
                    chunks(got.items),
                    network_message(&e, url)
                );
                return Err(network(what, got.items == 0));
            }
        };
        let events = parser.feed(&bytes).map_err(|e| {
            network(
                format!("malformed event after {}: {e}", chunks(got.items)),
                false,
            )
        })?;
        for ev in events {
            let chunk = if ev.event == "error" {
                Err(format!("the server sent an error: {}", clip(&ev.data)))
            } else {
                stream_chunk(&ev.data)
            };
            let chunk = chunk.map_err(|why| {
                let what = format!("malformed event after {}: {why}", chunks(got.items));
                network(what, false)
            })?;
            if chunk.usage.is_some() {
                got.usage = chunk.usage;
            }
            finished |= chunk.finish.is_some();
            if let Some(text) = chunk.text {
                spool.write(&text);
                if !push(stream, text).await {
                    return Err(Failed {
                        retry: false,
                        wait: None,
                        err: stopped(call),
                    });
                }
                got.items += 1;
            }
            if chunk.done {
                done = true;
                break 'read;
            }
        }
    }
    if done {
        // The body's end is usually there already: reading it keeps the connection
        // for the next call (never waiting for it).
        for _ in 0..8 {
            match tokio::time::timeout(Duration::ZERO, resp.chunk()).await {
                Ok(Ok(Some(_))) => {}
                _ => break,
            }
        }
    } else {
        let cut = parser.finish();
        if !finished {
            let what = format!(
                "the reply ended before `[DONE]`{} after {}",
                if cut {
                    ", in the middle of an event,"
                } else {
                    ""
                },
                chunks(got.items)
            );
            return Err(network(what, got.items == 0));
        }
    }
    settle(pair, call, &got);
    Ok(got)
}

/// Charges the pair's token bucket what the server counted, when it said.
fn settle(pair: &limits::Pair, call: &LlmCall, got: &Streamed) {
    if let Some((i, o)) = got.usage {
        pair.settle(call.estimated_tokens, (i + o).max(0) as u64);
    }
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

    #[test]
    fn stream_chunks_are_read() {
        let chunk = |text: Option<&str>, finish: Option<&str>| StreamChunk {
            text: text.map(str::to_string),
            finish: finish.map(str::to_string),
            usage: None,
            done: false,
        };
        // OpenAI's documented chunks: the role first, then content, then the finish
        // reason with an empty delta, then (`include_usage`) the usage with no choices.
        let role = r#"{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        assert_eq!(read_stream_chunk(role), Ok(chunk(None, None)));
        let text = r#"{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        assert_eq!(read_stream_chunk(text), Ok(chunk(Some("Hello"), None)));
        let newline = r#"{"choices":[{"index":0,"delta":{"content":"\n\u00e9 \"q\""}}]}"#;
        assert_eq!(
            read_stream_chunk(newline),
            Ok(chunk(Some("\n\u{e9} \"q\""), None))
        );
        let empty = r#"{"choices":[{"index":0,"delta":{},"finish_reason":null}]}"#;
        assert_eq!(read_stream_chunk(empty), Ok(chunk(None, None)));
        let null = r#"{"choices":[{"index":0,"delta":{"content":null}}]}"#;
        assert_eq!(read_stream_chunk(null), Ok(chunk(None, None)));
        let stop = r#"{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}"#;
        assert_eq!(read_stream_chunk(stop), Ok(chunk(None, Some("stop"))));
        let usage = r#"{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}}"#;
        assert_eq!(
            read_stream_chunk(usage),
            Ok(StreamChunk {
                usage: Some((9, 12)),
                ..StreamChunk::default()
            })
        );
        // Some servers put the last text, the finish reason and the usage together.
        let all = r#"{"choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}"#;
        assert_eq!(
            read_stream_chunk(all),
            Ok(StreamChunk {
                text: Some("!".into()),
                finish: Some("length".into()),
                usage: Some((1, 2)),
                done: false
            })
        );
        // Another choice's chunk says nothing about the first.
        let other = r#"{"choices":[{"index":1,"delta":{"content":"x"}}]}"#;
        assert_eq!(read_stream_chunk(other), Ok(chunk(None, None)));
        // Azure's first chunk: no choices, prompt filter results.
        let azure = r#"{"choices":[],"prompt_filter_results":[{"prompt_index":0}]}"#;
        assert_eq!(read_stream_chunk(azure), Ok(chunk(None, None)));
        assert_eq!(
            read_stream_chunk("[DONE]"),
            Ok(StreamChunk {
                done: true,
                ..StreamChunk::default()
            })
        );
        assert_eq!(read_stream_chunk(" [DONE] ").map(|c| c.done), Ok(true));
        for bad in ["{\"choices\": [oops", "garbage", "", "[1,2]", "\"text\""] {
            let e = read_stream_chunk(bad).unwrap_err();
            assert!(e.starts_with("malformed event"), "{bad:?}: {e}");
        }
        let e = read_stream_chunk(
            r#"{"error":{"message":"The server had an error","type":"server_error"}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "malformed event: the server sent an error: The server had an error"
        );
        let e =
            read_stream_chunk(r#"{"choices":[{"index":0,"delta":{"content":7}}]}"#).unwrap_err();
        assert!(e.contains("is not text"), "{e}");
        // A long payload is cut in the message.
        let long = format!("{{{}", "x".repeat(1000));
        assert!(read_stream_chunk(&long).unwrap_err().len() < 400);
    }

    #[test]
    fn a_streamed_request_asks_for_events_and_usage() {
        let call = Chat::simple("m", "hi").call("http://x/v1", "llmStream");
        let v: Value = serde_json::from_str(&streaming_body(&call.wire).unwrap()).unwrap();
        assert_eq!(v["stream"], true);
        assert_eq!(v["stream_options"]["include_usage"], true);
        assert_eq!(v["model"], "m");
        assert!(streaming_body("[]").is_err());
        assert!(streaming_body("{").is_err());
    }

    /// A server on 127.0.0.1 for [`perform_stream`]: each connection it accepts reads
    /// one request (its body goes to the log) and is answered by the next script.
    mod loopback {
        use std::io::{BufRead, BufReader, Read, Write};
        use std::net::{TcpListener, TcpStream};
        use std::sync::{Arc, Mutex};

        pub type Script = Box<dyn FnOnce(&mut TcpStream) + Send>;

        pub struct Server {
            pub base: String,
            pub bodies: Arc<Mutex<Vec<String>>>,
        }

        pub fn start(scripts: Vec<Script>) -> Server {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            let bodies = Arc::new(Mutex::new(Vec::new()));
            let log = bodies.clone();
            std::thread::spawn(move || {
                for script in scripts {
                    let Ok((mut conn, _)) = listener.accept() else {
                        return;
                    };
                    let _ = conn.set_nodelay(true);
                    let mut reader = BufReader::new(conn.try_clone().unwrap());
                    let mut len = 0usize;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let line = line.trim_end().to_ascii_lowercase();
                        if line.is_empty() {
                            break;
                        }
                        if let Some(v) = line.strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; len];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    log.lock()
                        .unwrap()
                        .push(String::from_utf8_lossy(&body).into_owned());
                    script(&mut conn);
                    let _ = conn.shutdown(std::net::Shutdown::Both);
                }
            });
            Server {
                base: format!("http://127.0.0.1:{port}/v1"),
                bodies,
            }
        }

        /// The head of a streamed answer (chunked, so that a cut body is an error).
        pub fn sse_head(c: &mut TcpStream) {
            let _ = c.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
            );
        }

        /// One piece of a chunked body, after a little while (so pieces arrive apart).
        pub fn piece(c: &mut TcpStream, text: &str) {
            std::thread::sleep(std::time::Duration::from_millis(5));
            let _ = c.write_all(format!("{:x}\r\n{text}\r\n", text.len()).as_bytes());
            let _ = c.flush();
        }

        /// The end of a chunked body.
        pub fn end(c: &mut TcpStream) {
            let _ = c.write_all(b"0\r\n\r\n");
        }

        /// `data: {delta content}`.
        pub fn delta(text: &str) -> String {
            let v = serde_json::json!({"object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
            format!("data: {v}\n\n")
        }
    }

    use crate::external::stream::{Stream, StreamRef};
    use loopback::{Script, delta, end, piece, sse_head};

    /// A streamed call's answer, the items its stream got, and how the stream ended.
    type Ran = (
        Result<Reply, CallError>,
        Vec<String>,
        Option<Result<(), CallError>>,
    );

    /// Runs a streamed call against `server`: the answer and everything the stream got.
    fn run_stream(base: &str, stream: &StreamRef, spool: Option<String>) -> Ran {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut call = Chat::simple("m", "hi").call(base, "llmStream");
        call.stream = Some(stream.clone());
        call.spool = spool;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = reqwest::Client::new();
        let r = rt.block_on(perform_stream(&client, &call));
        let mut items = Vec::new();
        let mut end = None;
        while let Some(b) = stream.take() {
            items.extend(b.items.iter().map(str::to_string));
            if b.end.is_some() {
                end = b.end;
                break;
            }
        }
        (r, items, end)
    }

    fn spool_path(name: &str) -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name).to_string_lossy().into_owned();
        (dir, p)
    }

    #[test]
    fn a_streamed_reply_goes_to_its_stream_and_spool() {
        let script: Script = Box::new(|c| {
            sse_head(c);
            piece(c, ": keep-alive\r\n\r\n");
            piece(
                c,
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
            );
            // One event split across pieces, in the middle of a character.
            let first = delta("H\u{e9}l");
            let (a, b) = first.as_bytes().split_at(first.find('\u{e9}').unwrap() + 1);
            let _ = std::io::Write::write_all(c, format!("{:x}\r\n", a.len()).as_bytes());
            let _ = std::io::Write::write_all(c, a);
            let _ = std::io::Write::write_all(c, b"\r\n");
            std::thread::sleep(std::time::Duration::from_millis(5));
            let _ = std::io::Write::write_all(c, format!("{:x}\r\n", b.len()).as_bytes());
            let _ = std::io::Write::write_all(c, b);
            let _ = std::io::Write::write_all(c, b"\r\n");
            piece(c, &(delta("lo\nwo") + &delta("") + &delta("rld")));
            piece(
                c,
                "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n",
            );
            piece(
                c,
                "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}\n\n",
            );
            piece(c, "data: [DONE]\n\n");
            end(c);
        });
        let server = loopback::start(vec![script]);
        let (_dir, path) = spool_path("s.jsonl");
        let stream = Stream::open();
        let (r, items, end) = run_stream(&server.base, &stream, Some(path.clone()));
        assert_eq!(
            r,
            Ok(Reply::Stream {
                spool: path.clone(),
                items: 3,
                tokens_in: 5,
                tokens_out: 3
            })
        );
        assert_eq!(items, ["H\u{e9}l", "lo\nwo", "rld"]);
        assert_eq!(end, Some(Ok(())));
        assert!(stream.is_started());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "\"H\u{e9}l\"\n\"lo\\nwo\"\n\"rld\"\n"
        );
        let bodies = server.bodies.lock().unwrap().clone();
        assert_eq!(bodies.len(), 1);
        let v: Value = serde_json::from_str(&bodies[0]).unwrap();
        assert_eq!(v["stream"], true);
        assert_eq!(v["stream_options"]["include_usage"], true);
    }

    #[test]
    fn a_connection_lost_after_chunks_is_an_error_without_retry() {
        let script: Script = Box::new(|c| {
            sse_head(c);
            piece(c, &(delta("a") + &delta("b")));
            // Cut in the middle of the body.
        });
        let server = loopback::start(vec![script]);
        let (_dir, path) = spool_path("s.jsonl");
        let stream = Stream::open();
        let (r, items, end) = run_stream(&server.base, &stream, Some(path.clone()));
        let e = r.unwrap_err();
        assert_eq!(e.kind, CallErrorKind::Network);
        assert!(e.message.contains("llmStream m \"hi\""), "{}", e.message);
        assert!(
            e.message
                .contains("the reply was cut off after 2 chunks: the connection failed"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("attempts"), "{}", e.message);
        assert_eq!(items, ["a", "b"]);
        assert_eq!(end, Some(Err(e)));
        assert!(!std::path::Path::new(&path).exists());
        assert_eq!(server.bodies.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_reply_that_ends_early_is_retried_while_nothing_was_streamed() {
        // First: the head, a role-only event, then a clean end without `[DONE]`.
        let first: Script = Box::new(|c| {
            sse_head(c);
            piece(
                c,
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n",
            );
            end(c);
        });
        // Then a reply without `[DONE]` but with its finish reason: complete.
        let second: Script = Box::new(|c| {
            sse_head(c);
            piece(c, &delta("ok"));
            piece(
                c,
                "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            );
            end(c);
        });
        let server = loopback::start(vec![first, second]);
        let stream = Stream::open();
        let (r, items, end) = run_stream(&server.base, &stream, None);
        assert_eq!(
            r,
            Ok(Reply::Stream {
                spool: String::new(),
                items: 1,
                tokens_in: 0,
                tokens_out: 0
            })
        );
        assert_eq!(items, ["ok"]);
        assert_eq!(end, Some(Ok(())));
        assert_eq!(server.bodies.lock().unwrap().len(), 2);
    }

    #[test]
    fn a_reply_cut_before_its_end_names_the_chunks() {
        let script: Script = Box::new(|c| {
            sse_head(c);
            piece(c, &(delta("x") + "data: {\"choices\""));
            end(c);
        });
        // Retried? No: a chunk went to the stream.
        let server = loopback::start(vec![script]);
        let stream = Stream::open();
        let (r, items, _) = run_stream(&server.base, &stream, None);
        let e = r.unwrap_err();
        assert_eq!(e.kind, CallErrorKind::Network);
        assert!(
            e.message
                .contains("ended before `[DONE]`, in the middle of an event, after 1 chunk"),
            "{}",
            e.message
        );
        assert_eq!(items, ["x"]);
    }

    #[test]
    fn a_malformed_event_is_an_error() {
        let script: Script = Box::new(|c| {
            sse_head(c);
            piece(c, &delta("a"));
            piece(c, "data: {not json\n\n");
            piece(c, &delta("b"));
            piece(c, "data: [DONE]\n\n");
            end(c);
        });
        let server = loopback::start(vec![script]);
        let (_dir, path) = spool_path("s.jsonl");
        let stream = Stream::open();
        let (r, items, end) = run_stream(&server.base, &stream, Some(path.clone()));
        let e = r.unwrap_err();
        assert_eq!(e.kind, CallErrorKind::Network);
        assert!(
            e.message
                .contains("malformed event after 1 chunk: not JSON"),
            "{}",
            e.message
        );
        assert_eq!(items, ["a"]);
        assert_eq!(end, Some(Err(e)));
        assert!(!std::path::Path::new(&path).exists());
    }

    #[test]
    fn a_status_is_reported_as_for_other_calls() {
        let script: Script = Box::new(|c| {
            let body = r#"{"error":{"message":"bad request: no"}}"#;
            let _ = std::io::Write::write_all(
                c,
                format!(
                    "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            );
        });
        let server = loopback::start(vec![script]);
        let stream = Stream::open();
        let (r, items, end) = run_stream(&server.base, &stream, None);
        let e = r.unwrap_err();
        assert_eq!(e.kind, CallErrorKind::Status(400));
        assert!(
            e.message
                .ends_with("failed: status 400 Bad Request: bad request: no"),
            "{}",
            e.message
        );
        assert!(items.is_empty());
        assert_eq!(end, Some(Err(e)));
    }

    #[test]
    fn a_whole_json_reply_is_one_chunk() {
        let script: Script = Box::new(|c| {
            let body = r#"{"choices":[{"message":{"role":"assistant","content":"all at once"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":4}}"#;
            let _ = std::io::Write::write_all(
                c,
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            );
        });
        let server = loopback::start(vec![script]);
        let stream = Stream::open();
        let (r, items, _) = run_stream(&server.base, &stream, None);
        assert_eq!(
            r,
            Ok(Reply::Stream {
                spool: String::new(),
                items: 1,
                tokens_in: 2,
                tokens_out: 4
            })
        );
        assert_eq!(items, ["all at once"]);
    }

    #[test]
    fn a_closed_stream_stops_the_call() {
        let stream = Stream::open_with(1);
        let closer = stream.clone();
        let script: Script = Box::new(move |c| {
            sse_head(c);
            piece(c, &delta("a"));
            std::thread::sleep(std::time::Duration::from_millis(50));
            closer.close();
            piece(c, &delta("b"));
            std::thread::sleep(std::time::Duration::from_millis(50));
            piece(c, "data: [DONE]\n\n");
            end(c);
        });
        let server = loopback::start(vec![script]);
        let (_dir, path) = spool_path("s.jsonl");
        let (r, _, end) = run_stream(&server.base, &stream, Some(path.clone()));
        let e = r.unwrap_err();
        assert_eq!(e.kind, CallErrorKind::Stopping);
        assert_eq!(
            e.message,
            "`llmStream m \"hi\"` was stopped: its stream is not needed"
        );
        assert_eq!(end, Some(Err(e)));
        assert!(!std::path::Path::new(&path).exists());
        // A stream closed before the call starts: no request at all.
        let stream = Stream::open();
        stream.close();
        let (r, _, _) = run_stream(&server.base, &stream, None);
        assert_eq!(r.unwrap_err().kind, CallErrorKind::Stopping);
        assert_eq!(server.bodies.lock().unwrap().len(), 1);
    }
}
