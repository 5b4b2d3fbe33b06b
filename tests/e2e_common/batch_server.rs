//! A mock of OpenAI's Batch API for the end-to-end tests, on the test HTTP server of
//! [`model_server`](super::model_server) (127.0.0.1, no network).
//!
//! It exists so that Spindle's batch client can be tested end to end without OpenAI:
//! files are uploaded (`multipart/form-data`), batches are created, validated, polled
//! through a status sequence the test chooses, listed with paging and cancelled, and
//! their output and error files are read back, all in OpenAI's formats. What each
//! request of a batch answers is decided by a responder the test gives
//! ([`Responder`]); the same responder answers the live endpoints
//! (`/v1/chat/completions`, `/v1/embeddings`), so a batch run and a live run can be
//! compared. The lines of output and error files come in a shuffled order (as OpenAI
//! does not keep the input order), so a client that relies on the order fails.
//!
//! Endpoints (every one needs `Authorization: Bearer KEY`, else 401):
//!
//! - `POST /v1/files` (multipart: `purpose`, `file`), `GET /v1/files/{id}`,
//!   `GET /v1/files/{id}/content`, `DELETE /v1/files/{id}`;
//! - `POST /v1/batches`, `GET /v1/batches?limit=N&after=ID`, `GET /v1/batches/{id}`
//!   (each one moves the batch one step along its status sequence),
//!   `POST /v1/batches/{id}/cancel`;
//! - `POST /v1/chat/completions`, `POST /v1/embeddings` (live calls).
//!
//! Ids: files are `file-1`, `file-2`, ... (uploads and made files share the count);
//! batches are `batch_0`, `batch_1`, ... (the number is the batch's index, as
//! [`BatchServer::set_statuses`] sees it).

use super::model_server::{Answer, Seen, Server, chat_body};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

/// One request a responder answers: a line of a batch's input file, or a live call.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The line's `custom_id` (`None` for a live call).
    pub custom_id: Option<String>,
    /// The line's `url` (a live call's path), e.g. `/v1/chat/completions`.
    pub url: String,
    /// The request's body.
    pub body: Value,
    /// How many batches created before this one (and not failed at validation) held
    /// the same `custom_id` (0 the first time, and for a live call).
    pub attempt: u32,
    /// The status the batch ended in when its files are made (`completed`,
    /// `expired` or `cancelled`); `None` for a live call. An item of a `cancelled`
    /// or `expired` batch is one the batch did not get to unless the responder
    /// answers otherwise (the default responder answers `batch_cancelled` or
    /// `batch_expired` errors for them).
    pub batch_status: Option<String>,
}

impl Item {
    /// The last message's content of a chat request (text parts joined), or an
    /// embedding request's (first) input; empty if none.
    pub fn prompt(&self) -> String {
        if let Some(ms) = self.body.get("messages").and_then(Value::as_array) {
            return ms
                .last()
                .and_then(|m| m.get("content"))
                .map(text_of)
                .unwrap_or_default();
        }
        match self.body.get("input") {
            Some(Value::Array(xs)) => xs.first().map(text_of).unwrap_or_default(),
            Some(x) => text_of(x),
            None => String::new(),
        }
    }

    /// Whether the item belongs to a batch that was cancelled or expired.
    pub fn unfinished_batch(&self) -> bool {
        matches!(self.batch_status.as_deref(), Some("cancelled" | "expired"))
    }
}

/// A message's content as text: a string, or the `text` of its parts.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        other => other.to_string(),
    }
}

/// What a request answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A 200 response with this body (a batch's output line; a live 200).
    Ok(Value),
    /// A response with this status and body (still an output line in a batch; a
    /// live reply with that status).
    Status(u16, Value),
    /// A failure with no response (a batch's error line; a live 500).
    Error {
        /// The error's `code`, e.g. `batch_cancelled` or `server_error`.
        code: String,
        /// The error's `message`.
        message: String,
    },
    /// Nothing: the request is in neither file of a batch (a live call's connection
    /// is closed without an answer).
    Missing,
}

impl Outcome {
    /// An [`Outcome::Error`] from string slices.
    pub fn error(code: &str, message: &str) -> Outcome {
        Outcome::Error {
            code: code.to_string(),
            message: message.to_string(),
        }
    }

    /// Whether this outcome counts as completed in `request_counts` (a 2xx).
    fn completed(&self) -> bool {
        match self {
            Outcome::Ok(_) => true,
            Outcome::Status(s, _) => (200..300).contains(s),
            _ => false,
        }
    }
}

/// How the server answers each request: shared by every connection's thread. It is
/// called with the server's state locked for a batch's items, so it must not call
/// the [`BatchServer`] itself.
pub type Responder = Arc<dyn Fn(&Item) -> Outcome + Send + Sync>;

/// The status sequence of a batch, by its index (0 for the first batch created).
type Statuses = Arc<dyn Fn(usize) -> Vec<String> + Send + Sync>;

/// The status sequence of a batch unless the test sets another.
pub const DEFAULT_STATUSES: [&str; 4] = ["validating", "in_progress", "finalizing", "completed"];

/// The default responder: a chat request answers `re: ` and its last message
/// (a chat completion with usage 7 in, 3 out), an embedding request one vector
/// `[0.5, 0.25]` per input; an item of a cancelled or expired batch answers a
/// `batch_cancelled` or `batch_expired` error; any other URL answers 404.
pub fn default_outcome(item: &Item) -> Outcome {
    match item.batch_status.as_deref() {
        Some("cancelled") => {
            return Outcome::error(
                "batch_cancelled",
                "This request was not run: the batch was cancelled.",
            );
        }
        Some("expired") => {
            return Outcome::error(
                "batch_expired",
                "This request could not be executed before the completion window expired.",
            );
        }
        _ => {}
    }
    let model = item.body.get("model").cloned().unwrap_or(Value::Null);
    match item.url.as_str() {
        "/v1/chat/completions" => {
            let mut body: Value =
                serde_json::from_str(&chat_body(&format!("re: {}", item.prompt()), 7, 3)).unwrap();
            body["model"] = model;
            Outcome::Ok(body)
        }
        "/v1/embeddings" => {
            let n = match item.body.get("input") {
                Some(Value::Array(xs)) if !xs.is_empty() && !xs[0].is_number() => xs.len(),
                _ => 1,
            };
            let data: Vec<Value> = (0..n)
                .map(|i| json!({"object": "embedding", "index": i, "embedding": [0.5, 0.25]}))
                .collect();
            Outcome::Ok(json!({
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": 3, "total_tokens": 3},
            }))
        }
        other => Outcome::Status(
            404,
            error_json(
                &format!("Unknown URL {other}."),
                "invalid_request_error",
                None,
            ),
        ),
    }
}

/// The default responder as a [`Responder`].
pub fn default_responder() -> Responder {
    Arc::new(default_outcome)
}

/// A [`Responder`] from a closure.
pub fn responder(f: impl Fn(&Item) -> Outcome + Send + Sync + 'static) -> Responder {
    Arc::new(f)
}

/// A batch as the server keeps it, for the test's assertions.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchInfo {
    /// `batch_N`.
    pub id: String,
    /// The order of creation, from 0 (also the `N` of the id).
    pub index: usize,
    /// The `endpoint` asked for, e.g. `/v1/chat/completions`.
    pub endpoint: String,
    /// The `metadata` given (`null` when none).
    pub metadata: Value,
    /// The input file's id.
    pub input_file_id: String,
    /// The input lines' `custom_id`s (those that are strings), in input order.
    pub custom_ids: Vec<String>,
    /// The non-empty input lines as JSON (`null` for a line that is not JSON), in
    /// input order.
    pub lines: Vec<Value>,
    /// The current status.
    pub status: String,
    /// The `errors` object (`null` unless the batch failed).
    pub errors: Value,
    /// The output file's id once made (and not empty).
    pub output_file_id: Option<String>,
    /// The error file's id once made (and not empty).
    pub error_file_id: Option<String>,
    /// How many times the batch was read with `GET /v1/batches/{id}`.
    pub polls: usize,
}

/// A stored file.
struct File {
    id: String,
    filename: String,
    purpose: String,
    content: String,
    created_at: u64,
}

impl File {
    fn object(&self) -> Value {
        json!({
            "id": self.id,
            "object": "file",
            "bytes": self.content.len(),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
        })
    }
}

/// A batch.
struct Batch {
    info: BatchInfo,
    completion_window: String,
    created_at: u64,
    /// The statuses it goes through, and where it is (`None` once it left the
    /// sequence: failed at validation, or cancelled).
    statuses: Vec<String>,
    step: Option<usize>,
    /// Each line's attempt number (see [`Item::attempt`]).
    attempts: Vec<u32>,
    /// When each status was entered (`in_progress_at`, ...).
    times: HashMap<&'static str, u64>,
    counts: (usize, usize, usize),
    /// Whether its output and error files were made.
    made: bool,
}

impl Batch {
    fn object(&self) -> Value {
        let t = |k: &str| self.times.get(k).map_or(Value::Null, |t| json!(t));
        json!({
            "id": self.info.id,
            "object": "batch",
            "endpoint": self.info.endpoint,
            "errors": self.info.errors,
            "input_file_id": self.info.input_file_id,
            "completion_window": self.completion_window,
            "status": self.info.status,
            "output_file_id": self.info.output_file_id,
            "error_file_id": self.info.error_file_id,
            "created_at": self.created_at,
            "in_progress_at": t("in_progress"),
            "expires_at": self.created_at + 24 * 3600,
            "finalizing_at": t("finalizing"),
            "completed_at": t("completed"),
            "failed_at": t("failed"),
            "expired_at": t("expired"),
            "cancelling_at": t("cancelling"),
            "cancelled_at": t("cancelled"),
            "request_counts": {
                "total": self.counts.0,
                "completed": self.counts.1,
                "failed": self.counts.2,
            },
            "metadata": self.info.metadata,
        })
    }
}

/// Everything the server keeps.
struct State {
    files: Vec<File>,
    /// Files made so far (the `N` of the last `file-N`).
    file_count: usize,
    batches: Vec<Batch>,
    live: Vec<Item>,
    responder: Responder,
    statuses: Statuses,
    shuffle: bool,
    /// How many valid batches held each `custom_id`.
    seen_ids: HashMap<String, u32>,
    /// Models a batch may not name (a line that does is a validation error).
    refused_models: Vec<String>,
}

impl State {
    fn add_file(&mut self, filename: &str, purpose: &str, content: String) -> &File {
        self.file_count += 1;
        self.files.push(File {
            id: format!("file-{}", self.file_count),
            filename: filename.to_string(),
            purpose: purpose.to_string(),
            content,
            created_at: now(),
        });
        self.files.last().unwrap()
    }

    fn file(&self, id: &str) -> Option<&File> {
        self.files.iter().find(|f| f.id == id)
    }

    fn batch_mut(&mut self, id: &str) -> Option<&mut Batch> {
        self.batches.iter_mut().find(|b| b.info.id == id)
    }

    /// Puts batch `i` in `status`; when the status ends the batch (`completed`,
    /// `expired`, `cancelled`) the first time, asks the responder for every item
    /// and makes the output and error files.
    fn enter(&mut self, i: usize, status: &str) {
        let b = &mut self.batches[i];
        b.info.status = status.to_string();
        if let Some(k) = TIMED.iter().find(|k| **k == status) {
            b.times.entry(k).or_insert_with(now);
        }
        if b.made || !matches!(status, "completed" | "expired" | "cancelled") {
            if status == "failed" && b.info.errors.is_null() {
                b.info.errors = errors(vec![(
                    "batch_failed".into(),
                    "The batch failed.".into(),
                    None,
                )]);
            }
            return;
        }
        b.made = true;
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let (mut completed, mut failed) = (0, 0);
        for (k, line) in b.info.lines.iter().enumerate() {
            let custom_id = line["custom_id"].as_str().unwrap_or_default().to_string();
            let item = Item {
                custom_id: Some(custom_id.clone()),
                url: line["url"].as_str().unwrap_or_default().to_string(),
                body: line["body"].clone(),
                attempt: b.attempts[k],
                batch_status: Some(status.to_string()),
            };
            let outcome = (self.responder)(&item);
            let id = format!("batch_req_{}_{k}", b.info.index);
            let response = |code: u16, body: Value| {
                json!({
                    "id": id,
                    "custom_id": custom_id,
                    "response": {
                        "status_code": code,
                        "request_id": format!("req_{:016x}", hash(&id, k)),
                        "body": body,
                    },
                    "error": null,
                })
            };
            if outcome.completed() {
                completed += 1;
            } else if outcome != Outcome::Missing {
                failed += 1;
            }
            match outcome {
                Outcome::Ok(body) => out.push(response(200, body)),
                Outcome::Status(code, body) => out.push(response(code, body)),
                Outcome::Error { code, message } => err.push(json!({
                    "id": id,
                    "custom_id": custom_id,
                    "response": null,
                    "error": {"code": code, "message": message},
                })),
                Outcome::Missing => {}
            }
        }
        b.counts = (b.info.lines.len(), completed, failed);
        let id = b.info.id.clone();
        if self.shuffle {
            out = shuffled(out, &format!("{id}/output"));
            err = shuffled(err, &format!("{id}/errors"));
        }
        let jsonl = |lines: Vec<Value>| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
        let output = (!out.is_empty()).then(|| {
            self.add_file(&format!("{id}_output.jsonl"), "batch_output", jsonl(out))
                .id
                .clone()
        });
        let error = (!err.is_empty()).then(|| {
            self.add_file(&format!("{id}_error.jsonl"), "batch_output", jsonl(err))
                .id
                .clone()
        });
        let b = &mut self.batches[i];
        b.info.output_file_id = output;
        b.info.error_file_id = error;
    }
}

/// The statuses whose time the batch object shows (`STATUS_at`).
const TIMED: [&str; 7] = [
    "in_progress",
    "finalizing",
    "completed",
    "failed",
    "expired",
    "cancelling",
    "cancelled",
];

/// A running mock of the Batch API; stops when dropped.
pub struct BatchServer {
    server: Server,
    state: Arc<Mutex<State>>,
}

impl BatchServer {
    /// Starts a server whose requests are answered by `responder` (e.g.
    /// [`default_outcome`], or a closure that falls back to it).
    pub fn start(responder: impl Fn(&Item) -> Outcome + Send + Sync + 'static) -> BatchServer {
        BatchServer::start_with(Arc::new(responder))
    }

    /// Starts a server with the default responder ([`default_outcome`]).
    pub fn echo() -> BatchServer {
        BatchServer::start(default_outcome)
    }

    /// Starts a server with a shared [`Responder`].
    pub fn start_with(responder: Responder) -> BatchServer {
        let state = Arc::new(Mutex::new(State {
            files: Vec::new(),
            file_count: 0,
            batches: Vec::new(),
            live: Vec::new(),
            responder,
            statuses: Arc::new(|_| DEFAULT_STATUSES.iter().map(|s| s.to_string()).collect()),
            shuffle: true,
            seen_ids: HashMap::new(),
            refused_models: Vec::new(),
        }));
        let shared = state.clone();
        let server = Server::start(move |seen: &Seen, _: &[Seen]| handle(&shared, seen));
        BatchServer { server, state }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// The base URL, `/v1` included (`http://127.0.0.1:PORT/v1`).
    pub fn base(&self) -> String {
        self.server.base()
    }

    /// The URL of a path (`/v1/...`).
    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// The port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.server.port
    }

    /// The status sequence of the batches created from now on, by their index (from
    /// 0): creation answers the first status, each `GET` of the batch the next one,
    /// then the last one again. An empty sequence means the default one.
    pub fn set_statuses(&self, f: impl Fn(usize) -> Vec<String> + Send + Sync + 'static) {
        self.state().statuses = Arc::new(f);
    }

    /// Lines naming `model` fail a batch's validation from now on.
    pub fn refuse_model(&self, model: &str) {
        self.state().refused_models.push(model.to_string());
    }

    /// The same status sequence for every batch created from now on.
    pub fn set_statuses_all(&self, statuses: &[&str]) {
        let s: Vec<String> = statuses.iter().map(|s| s.to_string()).collect();
        self.set_statuses(move |_| s.clone());
    }

    /// Whether the lines of output and error files are shuffled (on by default:
    /// never in input order when a file has two lines or more).
    pub fn set_shuffle(&self, on: bool) {
        self.state().shuffle = on;
    }

    /// Answers requests with `responder` from now on.
    pub fn set_responder(&self, responder: impl Fn(&Item) -> Outcome + Send + Sync + 'static) {
        self.state().responder = Arc::new(responder);
    }

    /// The batches created so far, in order of creation.
    pub fn batches(&self) -> Vec<BatchInfo> {
        self.state()
            .batches
            .iter()
            .map(|b| b.info.clone())
            .collect()
    }

    /// One batch by id.
    pub fn batch(&self, id: &str) -> Option<BatchInfo> {
        self.state()
            .batches
            .iter()
            .find(|b| b.info.id == id)
            .map(|b| b.info.clone())
    }

    /// The live calls (`/v1/chat/completions`, `/v1/embeddings`) so far, in order.
    pub fn live_calls(&self) -> Vec<Item> {
        self.state().live.clone()
    }

    /// How many files there are (uploaded and made, less deleted ones).
    pub fn files(&self) -> usize {
        self.state().files.len()
    }

    /// How many files were uploaded (`purpose` `batch`) and not deleted.
    pub fn uploads(&self) -> usize {
        self.state()
            .files
            .iter()
            .filter(|f| f.purpose != "batch_output")
            .count()
    }

    /// A file's content, by id.
    pub fn file_content(&self, id: &str) -> Option<String> {
        self.state().file(id).map(|f| f.content.clone())
    }

    /// Every HTTP request seen so far (the path with its query string).
    pub fn seen(&self) -> Vec<Seen> {
        self.server.seen()
    }
}

/// Locks the state (a responder that panicked does not poison it for the rest).
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Seconds since the epoch.
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// An OpenAI error body.
fn error_json(message: &str, kind: &str, code: Option<&str>) -> Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

/// An error answer.
fn fail(status: u16, message: &str, kind: &str, code: Option<&str>) -> Answer {
    Answer::status(status, &[], &error_json(message, kind, code).to_string())
}

fn not_found(what: &str, id: &str) -> Answer {
    fail(
        404,
        &format!("No such {what}: '{id}'."),
        "invalid_request_error",
        None,
    )
}

fn bad_request(message: &str) -> Answer {
    fail(400, message, "invalid_request_error", None)
}

fn ok(v: &Value) -> Answer {
    Answer::status(200, &[], &v.to_string())
}

/// A problem that fails a batch: its code, message and 1-based line (if any).
type Problem = (String, String, Option<usize>);

/// A batch's `errors` object, one entry per problem.
fn errors(list: Vec<Problem>) -> Value {
    let data: Vec<Value> = list
        .into_iter()
        .map(|(code, message, line)| {
            json!({"code": code, "message": message, "param": null, "line": line})
        })
        .collect();
    json!({"object": "list", "data": data})
}

/// FNV-1a of `seed` and `i`, mixed.
fn hash(seed: &str, i: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes().chain(i.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// `v` in an order fixed by `seed`, never its own when it has two elements or more.
fn shuffled<T>(v: Vec<T>, seed: &str) -> Vec<T> {
    let mut keyed: Vec<(u64, usize, T)> = v
        .into_iter()
        .enumerate()
        .map(|(i, x)| (hash(seed, i), i, x))
        .collect();
    keyed.sort_by_key(|k| (k.0, k.1));
    if keyed.iter().enumerate().all(|(j, k)| k.1 == j) {
        keyed.reverse();
    }
    keyed.into_iter().map(|k| k.2).collect()
}

/// A request's answer.
fn handle(state: &Mutex<State>, seen: &Seen) -> Answer {
    let key = seen
        .header("authorization")
        .and_then(|a| a.strip_prefix("Bearer "))
        .map(str::trim)
        .unwrap_or("");
    if key.is_empty() {
        return fail(
            401,
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
            "invalid_request_error",
            Some("invalid_api_key"),
        );
    }
    let (path, query) = seen.path.split_once('?').unwrap_or((&seen.path, ""));
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match (seen.method.as_str(), segments.as_slice()) {
        ("POST", ["v1", "files"]) => upload(state, seen),
        ("GET", ["v1", "files", id]) => match lock(state).file(id) {
            Some(f) => ok(&f.object()),
            None => not_found("file", id),
        },
        ("GET", ["v1", "files", id, "content"]) => match lock(state).file(id) {
            Some(f) => Answer::status(200, &[("content-type", "application/jsonl")], &f.content),
            None => not_found("file", id),
        },
        ("DELETE", ["v1", "files", id]) => {
            let mut st = lock(state);
            let before = st.files.len();
            st.files.retain(|f| f.id != *id);
            if st.files.len() == before {
                not_found("file", id)
            } else {
                ok(&json!({"id": id, "object": "file", "deleted": true}))
            }
        }
        ("POST", ["v1", "batches"]) => create(state, seen),
        ("GET", ["v1", "batches"]) => list(state, query),
        ("GET", ["v1", "batches", id]) => {
            let mut st = lock(state);
            let Some(i) = st.batches.iter().position(|b| b.info.id == *id) else {
                return not_found("batch", id);
            };
            let b = &mut st.batches[i];
            b.info.polls += 1;
            let next = match (b.info.status.as_str(), b.step) {
                ("cancelling", _) => Some("cancelled".to_string()),
                (_, Some(k)) if k + 1 < b.statuses.len() => {
                    b.step = Some(k + 1);
                    Some(b.statuses[k + 1].clone())
                }
                _ => None,
            };
            if let Some(s) = next {
                st.enter(i, &s);
            }
            ok(&st.batches[i].object())
        }
        ("POST", ["v1", "batches", id, "cancel"]) => {
            let mut st = lock(state);
            let Some(b) = st.batch_mut(id) else {
                return not_found("batch", id);
            };
            if matches!(
                b.info.status.as_str(),
                "completed" | "failed" | "expired" | "cancelled"
            ) {
                let message = format!("Cannot cancel a batch with status '{}'.", b.info.status);
                return fail(409, &message, "invalid_request_error", None);
            }
            b.step = None;
            b.info.status = "cancelling".into();
            b.times.entry("cancelling").or_insert_with(now);
            ok(&b.object())
        }
        ("POST", ["v1", "chat", "completions"]) | ("POST", ["v1", "embeddings"]) => {
            live(state, seen, path)
        }
        _ => fail(
            404,
            &format!("Invalid URL ({} {path})", seen.method),
            "invalid_request_error",
            None,
        ),
    }
}

/// A live call: the responder's outcome as an HTTP answer.
fn live(state: &Mutex<State>, seen: &Seen, path: &str) -> Answer {
    let body = seen.json();
    if !body.is_object() {
        return bad_request("The body is not a JSON object.");
    }
    let item = Item {
        custom_id: None,
        url: path.to_string(),
        body,
        attempt: 0,
        batch_status: None,
    };
    // The responder runs unlocked: live calls may overlap.
    let responder = {
        let mut st = lock(state);
        st.live.push(item.clone());
        st.responder.clone()
    };
    match responder(&item) {
        Outcome::Ok(body) => ok(&body),
        Outcome::Status(code, body) => Answer::status(code, &[], &body.to_string()),
        Outcome::Error { code, message } => fail(500, &message, "server_error", Some(&code)),
        Outcome::Missing => Answer::Drop,
    }
}

/// One part of a `multipart/form-data` body.
struct Part {
    name: String,
    filename: Option<String>,
    content: String,
}

/// The parts of a `multipart/form-data` body, `None` when it is not one.
fn multipart(content_type: &str, body: &str) -> Option<Vec<Part>> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    let boundary = params.split(';').find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| v.trim().trim_matches('"').to_string())
    })?;
    let delimiter = format!("--{boundary}");
    let mut parts = Vec::new();
    let mut pieces = body.split(delimiter.as_str());
    pieces.next()?; // the preamble
    for piece in pieces {
        if piece.starts_with("--") {
            return Some(parts); // the closing delimiter
        }
        let piece = piece
            .strip_prefix("\r\n")
            .or_else(|| piece.strip_prefix('\n'))?;
        let (head, content) = piece
            .split_once("\r\n\r\n")
            .or_else(|| piece.split_once("\n\n"))?;
        let content = content
            .strip_suffix("\r\n")
            .or_else(|| content.strip_suffix('\n'))
            .unwrap_or(content);
        let disposition = head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("content-disposition")
                .then_some(v)
        })?;
        let param = |name: &str| {
            disposition.split(';').find_map(|p| {
                let (k, v) = p.split_once('=')?;
                (k.trim() == name).then(|| v.trim().trim_matches('"').to_string())
            })
        };
        parts.push(Part {
            name: param("name")?,
            filename: param("filename"),
            content: content.to_string(),
        });
    }
    None // no closing delimiter
}

/// `POST /v1/files`.
fn upload(state: &Mutex<State>, seen: &Seen) -> Answer {
    let Some(parts) = multipart(seen.header("content-type").unwrap_or(""), &seen.body) else {
        return bad_request("The body is not multipart/form-data.");
    };
    let field = |name: &str| parts.iter().find(|p| p.name == name);
    let Some(purpose) = field("purpose") else {
        return bad_request("Missing required parameter: 'purpose'.");
    };
    if purpose.content != "batch" {
        return bad_request(&format!(
            "Invalid value for 'purpose': '{}' (this mock takes 'batch').",
            purpose.content
        ));
    }
    let Some(file) = field("file") else {
        return bad_request("Missing required parameter: 'file'.");
    };
    let filename = file.filename.clone().unwrap_or_else(|| "upload".into());
    let mut st = lock(state);
    ok(&st
        .add_file(&filename, "batch", file.content.clone())
        .object())
}

/// `POST /v1/batches`.
fn create(state: &Mutex<State>, seen: &Seen) -> Answer {
    let req = seen.json();
    let Some(input_file_id) = req.get("input_file_id").and_then(Value::as_str) else {
        return bad_request("Missing required parameter: 'input_file_id'.");
    };
    let Some(endpoint) = req.get("endpoint").and_then(Value::as_str) else {
        return bad_request("Missing required parameter: 'endpoint'.");
    };
    if !matches!(
        endpoint,
        "/v1/chat/completions" | "/v1/embeddings" | "/v1/completions" | "/v1/responses"
    ) {
        return bad_request(&format!("Invalid value for 'endpoint': '{endpoint}'."));
    }
    let window = req.get("completion_window").and_then(Value::as_str);
    if window != Some("24h") {
        return bad_request("Invalid value for 'completion_window': only '24h' is supported.");
    }
    let metadata = req.get("metadata").cloned().unwrap_or(Value::Null);
    let mut st = lock(state);
    let (lines, problems) = match st.file(input_file_id) {
        None => (
            Vec::new(),
            vec![(
                "invalid_request".into(),
                format!("The input file '{input_file_id}' does not exist."),
                None,
            )],
        ),
        Some(f) if f.purpose != "batch" => (
            Vec::new(),
            vec![(
                "invalid_request".into(),
                format!("The input file '{input_file_id}' was not uploaded for 'batch'."),
                None,
            )],
        ),
        Some(f) => {
            let (lines, mut problems) = validate(&f.content, endpoint);
            for (i, l) in lines.iter().enumerate() {
                if let Some(m) = l["body"]["model"].as_str()
                    && st.refused_models.iter().any(|r| r == m)
                {
                    let n = i + 1;
                    problems.push((
                        "invalid_request".into(),
                        format!("Line {n}: the model '{m}' is not available for batches."),
                        Some(n),
                    ));
                }
            }
            (lines, problems)
        }
    };
    let index = st.batches.len();
    let custom_ids: Vec<String> = lines
        .iter()
        .filter_map(|l| {
            l.get("custom_id")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .collect();
    let mut statuses = (st.statuses)(index);
    if statuses.is_empty() {
        statuses = DEFAULT_STATUSES.iter().map(|s| s.to_string()).collect();
    }
    let failed = !problems.is_empty();
    let attempts = if failed {
        Vec::new()
    } else {
        custom_ids
            .iter()
            .map(|c| {
                let n = st.seen_ids.entry(c.clone()).or_insert(0);
                *n += 1;
                *n - 1
            })
            .collect()
    };
    let total = if failed { 0 } else { lines.len() };
    let first = if failed {
        "failed".to_string()
    } else {
        statuses[0].clone()
    };
    st.batches.push(Batch {
        info: BatchInfo {
            id: format!("batch_{index}"),
            index,
            endpoint: endpoint.to_string(),
            metadata,
            input_file_id: input_file_id.to_string(),
            custom_ids,
            lines,
            status: String::new(),
            errors: if failed {
                errors(problems)
            } else {
                Value::Null
            },
            output_file_id: None,
            error_file_id: None,
            polls: 0,
        },
        completion_window: "24h".into(),
        created_at: now(),
        statuses,
        step: (!failed).then_some(0),
        attempts,
        times: HashMap::new(),
        counts: (total, 0, 0),
        made: false,
    });
    st.enter(index, &first);
    ok(&st.batches[index].object())
}

/// A batch input file's non-empty lines (as JSON, `null` where not JSON) and its
/// problems: (code, message, 1-based line).
fn validate(content: &str, endpoint: &str) -> (Vec<Value>, Vec<Problem>) {
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    for (k, text) in content.lines().enumerate() {
        if text.trim().is_empty() {
            continue;
        }
        let n = k + 1;
        let mut problem = |m: String| problems.push(("invalid_request".to_string(), m, Some(n)));
        let v: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                problem(format!("Line {n} is not valid JSON: {e}."));
                lines.push(Value::Null);
                continue;
            }
        };
        match v.get("custom_id").and_then(Value::as_str) {
            None => problem(format!("Line {n}: 'custom_id' is missing or not a string.")),
            Some(id) => {
                if let Some(first) = ids.insert(id.to_string(), n) {
                    problem(format!(
                        "Line {n}: the custom_id '{id}' is a duplicate (of line {first}); each custom_id must be unique."
                    ));
                }
            }
        }
        if v.get("method").and_then(Value::as_str) != Some("POST") {
            problem(format!("Line {n}: 'method' must be 'POST'."));
        }
        match v.get("url").and_then(Value::as_str) {
            Some(u) if u == endpoint => {}
            u => problem(format!(
                "Line {n}: the 'url' {} does not match the batch's endpoint '{endpoint}'.",
                u.map_or("(missing)".to_string(), |u| format!("'{u}'"))
            )),
        }
        match v.get("body") {
            Some(Value::Object(b)) => {
                if !b.get("model").is_some_and(Value::is_string) {
                    problem(format!("Line {n}: 'body.model' is missing."));
                }
            }
            _ => problem(format!("Line {n}: 'body' is missing or not an object.")),
        }
        lines.push(v);
    }
    if lines.is_empty() && problems.is_empty() {
        problems.push((
            "invalid_request".to_string(),
            "The input file is empty.".to_string(),
            None,
        ));
    }
    (lines, problems)
}

/// `GET /v1/batches?limit=N&after=ID`: newest first.
fn list(state: &Mutex<State>, query: &str) -> Answer {
    let mut limit = 20usize;
    let mut after = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "limit" => match v.parse::<usize>() {
                Ok(n) if (1..=100).contains(&n) => limit = n,
                _ => return bad_request(&format!("Invalid 'limit': '{v}' (1 to 100).")),
            },
            "after" => after = Some(v.to_string()),
            _ => {}
        }
    }
    let st = lock(state);
    let newest_first: Vec<&Batch> = st.batches.iter().rev().collect();
    let start = match &after {
        None => 0,
        Some(id) => match newest_first.iter().position(|b| b.info.id == *id) {
            Some(p) => p + 1,
            None => return not_found("batch", id),
        },
    };
    let page: Vec<&Batch> = newest_first
        .iter()
        .skip(start)
        .take(limit)
        .copied()
        .collect();
    let has_more = start + page.len() < newest_first.len();
    ok(&json!({
        "object": "list",
        "data": page.iter().map(|b| b.object()).collect::<Vec<_>>(),
        "first_id": page.first().map(|b| b.info.id.clone()),
        "last_id": page.last().map(|b| b.info.id.clone()),
        "has_more": has_more,
    }))
}
