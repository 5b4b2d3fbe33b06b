//! A model and HTTP server for the tests, on 127.0.0.1 (no network): it speaks enough
//! HTTP/1.1 (keep-alive, `Content-Length` bodies) for reqwest, logs every request with
//! when it came, and answers as the test says: a reply after a delay, any status and
//! headers, or a dropped connection.

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
        let len: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
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
        match handler(&seen, &earlier) {
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
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
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
