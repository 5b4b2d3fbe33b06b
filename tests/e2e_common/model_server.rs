//! A model and HTTP server for the tests, on 127.0.0.1 (no network): it speaks enough
//! HTTP/1.1 (keep-alive, `Content-Length` and chunked request bodies, chunked streams)
//! for reqwest, logs every request with when it came, and answers as the test says: a
//! reply after a delay, any status and headers, a dropped connection, or a streamed
//! reply.
//!
//! Streaming (`llmStream`): a chat request with `"stream": true` is answered with
//! server-sent events (`text/event-stream`, one event per HTTP chunk, as OpenAI sends
//! them). A handler may answer [`Answer::Stream`] with an [`Sse`] that says how (the
//! pieces of text, the delays, which events, and failures: a connection dropped or a
//! malformed event after `k` chunks); a plain chat answer ([`Answer::chat`], or a 200
//! [`Answer::Reply`] whose body is a chat completion and whose headers name no
//! `content-type`) to a streaming request is streamed as [`Sse::from_chat`] says.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request the server saw.
#[derive(Debug, Clone)]
pub struct Seen {
    pub at: Instant,
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// Whether the request asks for a streamed reply (`"stream": true`).
    pub fn streams(&self) -> bool {
        self.json().get("stream").and_then(|s| s.as_bool()) == Some(true)
    }

    /// Whether a streamed request asks for the usage at the end
    /// (`stream_options.include_usage`).
    pub fn wants_usage(&self) -> bool {
        self.json()
            .get("stream_options")
            .and_then(|o| o.get("include_usage"))
            .and_then(|u| u.as_bool())
            == Some(true)
    }

    /// The last message's content of a chat request, or an embedding's input.
    pub fn prompt(&self) -> String {
        let v = self.json();
        if let Some(ms) = v.get("messages").and_then(|m| m.as_array()) {
            return ms
                .last()
                .and_then(|m| m.get("content"))
                .and_then(|c| c.as_str())
                .unwrap_or("")
                .to_string();
        }
        v.get("input")
            .and_then(|c| c.as_str())
            .unwrap_or("")
            .to_string()
    }
}

/// What the server does with a request.
pub enum Answer {
    Reply {
        delay: Duration,
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Closes the connection without answering.
    Drop,
    /// A streamed chat reply (server-sent events).
    Stream(Sse),
}

/// How a streamed reply goes: the events, in order, are a first one with only the
/// role (`role`, sent with the response's head), one per piece of `chunks` (the first
/// `first_delay` after the head, the next ones `interval` apart), one with the finish
/// reason (`finish`), one with the usage (`usage`), and `data: [DONE]` (`done`);
/// `fail` cuts it short.
#[derive(Debug, Clone)]
pub struct Sse {
    /// The pieces of text, one event each (in `choices[0].delta.content`).
    pub chunks: Vec<String>,
    /// Between the response's head (sent at once) and the first event.
    pub first_delay: Duration,
    /// Between one piece's event and the next.
    pub interval: Duration,
    /// Whether a first event carries only `{"role": "assistant", "content": ""}`.
    pub role: bool,
    /// The finish reason of the event after the last piece (`None`: no such event).
    pub finish: Option<String>,
    /// (prompt, completion) tokens, in an event with no choices after the finish
    /// (`None`: none, as when a request does not ask for usage).
    pub usage: Option<(i64, i64)>,
    /// Whether `data: [DONE]` ends the stream.
    pub done: bool,
    /// A failure instead of the piece of this index (and everything after it).
    pub fail: Option<SseFail>,
    /// Whether lines end with `\r\n` (else `\n`).
    pub crlf: bool,
    /// More headers (`x-ratelimit-*`, ...).
    pub headers: Vec<(String, String)>,
}

/// How a streamed reply fails after `k` pieces of text (`k` may be the number of
/// pieces: after all of them, before the finish event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SseFail {
    /// The connection is closed in the middle of the body (no end of the chunked
    /// body): the client sees a broken connection.
    Drop(usize),
    /// The stream ends cleanly (the body's end is sent) without the finish event,
    /// the usage or `[DONE]`.
    End(usize),
    /// An event whose data is not JSON, then the rest of the stream as if nothing
    /// happened.
    Malformed(usize),
    /// An event with an `error` object (as OpenAI sends mid-stream), then nothing
    /// more (the body ends).
    Error(usize),
}

impl Sse {
    /// `text` in pieces of (at most) 4 characters, no delays, every event.
    pub fn new(text: &str) -> Sse {
        Sse::chunked(text, 4)
    }

    /// `text` in pieces of (at most) `size` characters (at least 1).
    pub fn chunked(text: &str, size: usize) -> Sse {
        let chars: Vec<char> = text.chars().collect();
        let pieces = chars
            .chunks(size.max(1))
            .map(|c| c.iter().collect())
            .collect();
        Sse::pieces(pieces)
    }

    /// These pieces, as they are (empty pieces make empty deltas).
    pub fn pieces(chunks: Vec<String>) -> Sse {
        Sse {
            chunks,
            first_delay: Duration::ZERO,
            interval: Duration::ZERO,
            role: true,
            finish: Some("stop".into()),
            usage: Some((7, 3)),
            done: true,
            fail: None,
            crlf: false,
            headers: Vec::new(),
        }
    }

    /// What a plain answer to a streaming request becomes: the text of a chat
    /// completion's body in pieces of 4 characters, its finish reason and usage, after
    /// the answer's delay, with the answer's headers. `None` when `body` is not a chat
    /// completion.
    pub fn from_chat(body: &str, delay: Duration, headers: Vec<(String, String)>) -> Option<Sse> {
        let v: serde_json::Value = serde_json::from_str(body).ok()?;
        let choice = v.get("choices")?.get(0)?;
        let text = choice.get("message")?.get("content")?.as_str()?;
        let mut sse = Sse::new(text);
        sse.first_delay = delay;
        sse.finish = choice
            .get("finish_reason")
            .and_then(|f| f.as_str())
            .map(str::to_string);
        sse.usage = v.get("usage").map(|u| {
            let n = |k: &str| u.get(k).and_then(|x| x.as_i64()).unwrap_or(0);
            (n("prompt_tokens"), n("completion_tokens"))
        });
        sse.headers = headers;
        Some(sse)
    }

    /// Waits `d` before the first event.
    pub fn delay(mut self, d: Duration) -> Sse {
        self.first_delay = d;
        self
    }

    /// Waits `d` between pieces.
    pub fn every(mut self, d: Duration) -> Sse {
        self.interval = d;
        self
    }

    /// No role-only first event.
    pub fn no_role(mut self) -> Sse {
        self.role = false;
        self
    }

    /// The finish event's reason (`None`: no finish event).
    pub fn finish(mut self, reason: Option<&str>) -> Sse {
        self.finish = reason.map(str::to_string);
        self
    }

    /// The usage event (`None`: none).
    pub fn usage(mut self, usage: Option<(i64, i64)>) -> Sse {
        self.usage = usage;
        self
    }

    /// No `data: [DONE]` at the end.
    pub fn no_done(mut self) -> Sse {
        self.done = false;
        self
    }

    /// Fails as `fail` says.
    pub fn fail(mut self, fail: SseFail) -> Sse {
        self.fail = Some(fail);
        self
    }

    /// Drops the connection after `k` pieces.
    pub fn drop_after(self, k: usize) -> Sse {
        self.fail(SseFail::Drop(k))
    }

    /// Sends a malformed (not JSON) event after `k` pieces.
    pub fn malformed_after(self, k: usize) -> Sse {
        self.fail(SseFail::Malformed(k))
    }

    /// Lines end with `\r\n`.
    pub fn crlf(mut self) -> Sse {
        self.crlf = true;
        self
    }

    /// One more header.
    pub fn header(mut self, name: &str, value: &str) -> Sse {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

impl Answer {
    /// A chat completion with this text after `delay`.
    pub fn chat(text: &str, delay: Duration) -> Answer {
        Answer::Reply {
            delay,
            status: 200,
            headers: vec![],
            body: chat_body(text, 7, 3),
        }
    }

    /// A streamed chat reply: `text` in pieces of 4 characters, `interval` apart.
    pub fn stream(text: &str, interval: Duration) -> Answer {
        Answer::Stream(Sse::new(text).every(interval))
    }

    pub fn status(status: u16, headers: &[(&str, &str)], body: &str) -> Answer {
        Answer::Reply {
            delay: Duration::ZERO,
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.to_string(),
        }
    }
}

/// A chat completion's JSON body.
pub fn chat_body(text: &str, tokens_in: i64, tokens_out: i64) -> String {
    serde_json::json!({
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out}
    })
    .to_string()
}

type Handler = dyn Fn(&Seen, &[Seen]) -> Answer + Send + Sync;

/// A running server; stops when dropped.
pub struct Server {
    pub port: u16,
    log: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    /// Starts a server; `handler` gets each request and every request seen before it.
    pub fn start(handler: impl Fn(&Seen, &[Seen]) -> Answer + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        {
            let (log, stop) = (log.clone(), stop.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let Ok(conn) = conn else { continue };
                    let (log, handler) = (log.clone(), handler.clone());
                    std::thread::spawn(move || serve(conn, &log, &*handler));
                }
            });
        }
        Server { port, log, stop }
    }

    /// The base URL, `/v1` included.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The requests seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(conn: TcpStream, log: &Mutex<Vec<Seen>>, handler: &Handler) {
    // Each event goes out as it is written.
    let _ = conn.set_nodelay(true);
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut out = conn;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let path = parts.next().unwrap_or("").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let header = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.to_ascii_lowercase())
        };
        // curl asks before sending a large body.
        if header("expect").as_deref() == Some("100-continue")
            && out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").is_err()
        {
            return;
        }
        // A body of unknown length (a streamed multipart upload) comes in chunks.
        let body = if header("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
            match read_chunked(&mut reader) {
                Some(b) => b,
                None => return,
            }
        } else {
            let len: usize = header("content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; len];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            body
        };
        let seen = Seen {
            at: Instant::now(),
            method,
            path,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        };
        let earlier = {
            let mut l = log.lock().unwrap();
            let earlier = l.clone();
            l.push(seen.clone());
            earlier
        };
        let mut answer = handler(&seen, &earlier);
        if seen.streams()
            && let Answer::Reply {
                delay,
                status: 200,
                headers,
                body,
            } = &answer
            && !headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            && let Some(sse) = Sse::from_chat(body, *delay, headers.clone())
        {
            answer = Answer::Stream(sse);
        }
        match answer {
            Answer::Stream(sse) => {
                if !stream(&mut out, &sse) {
                    let _ = out.shutdown(std::net::Shutdown::Both);
                    return;
                }
            }
            Answer::Drop => {
                let _ = out.shutdown(std::net::Shutdown::Both);
                return;
            }
            Answer::Reply {
                delay,
                status,
                headers,
                body,
            } => {
                std::thread::sleep(delay);
                // A content type among the answer's headers replaces the default.
                let typed = headers
                    .iter()
                    .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\n{}content-length: {}\r\n",
                    if typed {
                        ""
                    } else {
                        "content-type: application/json\r\n"
                    },
                    body.len()
                );
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                if out.write_all(head.as_bytes()).is_err()
                    || out.write_all(body.as_bytes()).is_err()
                {
                    return;
                }
            }
        }
    }
}

/// A chunked request body (`transfer-encoding: chunked`), its trailers skipped;
/// `None` when the connection ends first or a chunk's size is not hexadecimal.
fn read_chunked(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let size = line.trim().split(';').next()?.trim();
        let size = usize::from_str_radix(size, 16).ok()?;
        if size == 0 {
            loop {
                let mut trailer = String::new();
                if reader.read_line(&mut trailer).ok()? == 0 || trailer.trim_end().is_empty() {
                    return Some(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).ok()?;
        let mut crlf = [0; 2];
        reader.read_exact(&mut crlf).ok()?;
    }
}

/// Writes a streamed reply as `sse` says: `false` when the connection is to be closed
/// (a failure asked for, or the client went away).
fn stream(out: &mut TcpStream, sse: &Sse) -> bool {
    let mut head = String::from(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n",
    );
    for (k, v) in &sse.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    if out.write_all(head.as_bytes()).is_err() {
        return false;
    }
    let nl = if sse.crlf { "\r\n" } else { "\n" };
    // One event as one chunk of the body.
    let send = |out: &mut TcpStream, data: &str| {
        let event = format!("data: {data}{nl}{nl}");
        out.write_all(format!("{:x}\r\n{event}\r\n", event.len()).as_bytes())
            .and_then(|()| out.flush())
            .is_ok()
    };
    let end = |out: &mut TcpStream| out.write_all(b"0\r\n\r\n").is_ok();
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        serde_json::json!({
            "id": "chatcmpl-x",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
        .to_string()
    };
    if sse.role
        && !send(
            out,
            &chunk(
                serde_json::json!({"role": "assistant", "content": ""}),
                None,
            ),
        )
    {
        return false;
    }
    std::thread::sleep(sse.first_delay);
    for k in 0..=sse.chunks.len() {
        match sse.fail {
            Some(SseFail::Drop(n)) if n == k => return false,
            Some(SseFail::End(n)) if n == k => return end(out),
            Some(SseFail::Malformed(n)) if n == k && !send(out, "{\"choices\": [oops") => {
                return false;
            }
            Some(SseFail::Error(n)) if n == k => {
                let e = serde_json::json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}});
                return send(out, &e.to_string()) && end(out);
            }
            _ => {}
        }
        let Some(piece) = sse.chunks.get(k) else {
            break;
        };
        if k > 0 {
            std::thread::sleep(sse.interval);
        }
        if !send(out, &chunk(serde_json::json!({"content": piece}), None)) {
            return false;
        }
    }
    if let Some(f) = &sse.finish
        && !send(out, &chunk(serde_json::json!({}), Some(f)))
    {
        return false;
    }
    if let Some((i, o)) = sse.usage {
        let u = serde_json::json!({
            "id": "chatcmpl-x",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [],
            "usage": {"prompt_tokens": i, "completion_tokens": o, "total_tokens": i + o},
        });
        if !send(out, &u.to_string()) {
            return false;
        }
    }
    if sse.done && !send(out, "[DONE]") {
        return false;
    }
    end(out)
}
