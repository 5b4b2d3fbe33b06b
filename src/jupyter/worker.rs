//! The shell requests that need the REPL session: `execute_request`,
//! `complete_request`, `inspect_request`, `history_request`, `is_complete_request`.
//!
//! They run one at a time on a thread of their own (the session is not shared), so
//! that the sockets stay answered while a cell runs: the control channel's
//! `interrupt_request` sets the session's interrupt flag from the socket thread, and
//! the running evaluation stops. Every message the worker makes goes to the socket
//! thread as an [`Outgoing`].

use super::capture::Capture;
use super::cell;
use super::history::{History, HistoryEntry};
use super::input::Input;
use super::wire::Message;
use crate::repl::session::{Evaluated, Session};
use crate::repl::{self, Command, ReplBackend, Reply};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A message for the socket thread to send.
#[derive(Debug)]
pub enum Outgoing {
    /// A reply on the shell channel.
    Shell(Message),
    /// A reply on the control channel.
    Control(Message),
    /// A message published on IOPub.
    IoPub(Message),
    /// A request on the stdin channel (`input_request`).
    Stdin(Message),
}

/// Where the worker sends its messages.
pub type Out = tokio::sync::mpsc::UnboundedSender<Outgoing>;

/// State shared by the worker and the socket thread.
#[derive(Clone)]
pub struct Shared {
    /// The kernel's session id (the `session` of every header it sends).
    pub kernel_session: String,
    /// The request being handled: the parent of streamed output.
    pub current: Arc<Mutex<Option<Message>>>,
    /// Set by `interrupt_request`: the running cell stops after its current input.
    pub interrupted: Arc<AtomicBool>,
    /// The outgoing messages.
    pub out: Out,
    /// The running cell's requests for input and their answers.
    pub input: Arc<Input>,
}

impl Shared {
    /// Publishes a message of `msg_type` on IOPub, answering `parent`.
    pub fn publish(&self, parent: Option<&Message>, msg_type: &str, content: Value) {
        let m = Message::new(msg_type, &self.kernel_session, parent, content);
        self.publish_message(m);
    }

    /// Publishes a message whose content is JSON text written in the order it is to
    /// be sent ([`Message::content_text`]): a value's JSON form with its record's
    /// fields in order. Text that is not a JSON object (never made here) goes as an
    /// empty content.
    pub fn publish_text(&self, parent: Option<&Message>, msg_type: &str, text: String) {
        let content = serde_json::from_str::<Value>(&text)
            .ok()
            .filter(Value::is_object);
        let ordered = content.is_some();
        let mut m = Message::new(
            msg_type,
            &self.kernel_session,
            parent,
            content.unwrap_or_else(|| json!({})),
        );
        m.content_text = ordered.then_some(text);
        self.publish_message(m);
    }

    /// Sends a message on IOPub under the topic of its type.
    fn publish_message(&self, mut m: Message) {
        let topic = format!("kernel.{}.{}", self.kernel_session, m.msg_type());
        m.identities = vec![topic.into_bytes()];
        let _ = self.out.send(Outgoing::IoPub(m));
    }

    /// A reply to `parent` on the shell channel.
    pub fn reply(&self, parent: &Message, msg_type: &str, content: Value) {
        let m = Message::new(msg_type, &self.kernel_session, Some(parent), content);
        let _ = self.out.send(Outgoing::Shell(m));
    }
}

/// The worker: the session and the kernel's history.
pub struct Worker {
    session: Session,
    capture: Option<Capture>,
    shared: Shared,
    execution_count: u64,
    /// The cells of earlier kernels and this one's, for `history_request`.
    history: History,
    /// When a cell failed with `stop_on_error`, the time it did: the execute
    /// requests that came before then, queued behind it, are answered `aborted`
    /// ([`Worker::take_abort`]).
    abort_queued: Option<std::time::Instant>,
}

/// What one input of a cell showed, before it is published.
enum Shown {
    /// Text for the `stdout` stream.
    Stdout(String),
    /// A value: an `execute_result` (and `display_data` for a `Json` value).
    Value(Evaluated),
    /// Text for the pager (`:doc`).
    Page(String),
}

impl Worker {
    /// A worker over a new session that keeps values as data, with `history` (the
    /// kernel's: [`History::open_default`]; the tests': in memory or a file of their
    /// own).
    pub fn new(
        mut session: Session,
        capture: Option<Capture>,
        shared: Shared,
        history: History,
    ) -> Worker {
        session.keep_results(true);
        Worker {
            session,
            capture,
            shared,
            execution_count: 0,
            history,
            abort_queued: None,
        }
    }

    /// When the last cell failed with `stop_on_error`, the time it did: the execute
    /// requests that had come by then are to be aborted (as a notebook's "run all"
    /// expects: the cells after a failed one do not run); one sent after the failure
    /// was seen runs. Cleared by the call.
    pub fn take_abort(&mut self) -> Option<std::time::Instant> {
        self.abort_queued.take()
    }

    /// Answers a queued execute request without running it: `aborted`.
    pub fn abort(&mut self, request: &Message) {
        self.shared
            .publish(Some(request), "status", json!({"execution_state": "busy"}));
        self.shared
            .reply(request, "execute_reply", json!({"status": "aborted"}));
        self.shared
            .publish(Some(request), "status", json!({"execution_state": "idle"}));
    }

    /// Handles one shell request, between `busy` and `idle` statuses.
    pub fn handle(&mut self, request: Message) {
        *self
            .shared
            .current
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(request.clone());
        self.shared
            .publish(Some(&request), "status", json!({"execution_state": "busy"}));
        let c = &request.content;
        let text = |name: &str| {
            c.get(name)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        match request.msg_type() {
            "execute_request" => self.execute(&request),
            "complete_request" => {
                let code = text("code");
                let pos = cursor(c, &code);
                let content = self.complete(&code, pos);
                self.shared.reply(&request, "complete_reply", content);
            }
            "inspect_request" => {
                let code = text("code");
                let pos = cursor(c, &code);
                let content = self.inspect(&code, pos);
                self.shared.reply(&request, "inspect_reply", content);
            }
            "is_complete_request" => {
                let status = cell::completeness(&text("code"));
                let mut content = json!({"status": status.as_str()});
                if status == cell::Completeness::Incomplete {
                    content["indent"] = json!("  ");
                }
                self.shared.reply(&request, "is_complete_reply", content);
            }
            "history_request" => {
                let content = self.history_reply(c);
                self.shared.reply(&request, "history_reply", content);
            }
            "comm_info_request" => {
                self.shared.reply(
                    &request,
                    "comm_info_reply",
                    json!({"status": "ok", "comms": {}}),
                );
            }
            _ => {}
        }
        self.shared
            .publish(Some(&request), "status", json!({"execution_state": "idle"}));
    }

    /// Waits until the output written so far has been published.
    fn sync(&mut self) {
        if let Some(capture) = &mut self.capture {
            capture.sync(Duration::from_secs(2));
        }
    }

    /// Runs a cell: its inputs one after the other, each shown as it ends; the first
    /// error (or an interrupt) ends the cell.
    fn execute(&mut self, request: &Message) {
        let c = &request.content;
        let code = c.get("code").and_then(Value::as_str).unwrap_or("");
        let silent = c.get("silent").and_then(Value::as_bool).unwrap_or(false);
        let store = c
            .get("store_history")
            .and_then(Value::as_bool)
            .unwrap_or(true)
            && !silent;
        if store {
            self.execution_count += 1;
        }
        let count = self.execution_count;
        if !silent {
            self.shared.publish(
                Some(request),
                "execute_input",
                json!({"code": code, "execution_count": count}),
            );
        }
        self.shared.interrupted.store(false, Ordering::SeqCst);
        self.shared.input.begin(request);
        let mut payload = Vec::new();
        let mut last_output = None;
        let mut error: Option<String> = None;
        for (line, input) in cell::placed_inputs(code) {
            let (shown, err) = self.run_input(&cell::in_place(line, &input));
            self.sync();
            for s in shown {
                match s {
                    Shown::Stdout(text) if !silent && !text.is_empty() => self.shared.publish(
                        Some(request),
                        "stream",
                        json!({"name": "stdout", "text": text}),
                    ),
                    Shown::Stdout(_) => {}
                    Shown::Value(v) => {
                        let plain = format!("{} : {}", v.text, v.ty);
                        if !silent {
                            if v.is_json() {
                                let data = mime_bundle(&v.text, &v.json);
                                self.shared.publish_text(
                                    Some(request),
                                    "display_data",
                                    format!(
                                        "{{\"data\":{data},\"metadata\":{{}},\"transient\":{{}}}}"
                                    ),
                                );
                            }
                            let data = mime_bundle(&plain, &v.json);
                            self.shared.publish_text(
                                Some(request),
                                "execute_result",
                                format!(
                                    "{{\"execution_count\":{count},\"data\":{data},\"metadata\":{{}}}}"
                                ),
                            );
                        }
                        last_output = Some(plain);
                    }
                    Shown::Page(text) => payload.push(json!({
                        "source": "page",
                        "data": {"text/plain": text},
                        "start": 0,
                    })),
                }
            }
            // An interrupt ends the cell, whatever the input made of it (a call it
            // stopped fails with the signal that stopped it).
            if self.shared.interrupted.load(Ordering::SeqCst) {
                error = Some("error: interrupted\n".to_string());
                break;
            }
            if err.is_some() {
                error = err;
                break;
            }
        }
        self.shared.input.end();
        if store {
            self.history.push(count, code, last_output);
        }
        let content = match error {
            None => json!({
                "status": "ok",
                "execution_count": count,
                "payload": payload,
                "user_expressions": {},
            }),
            Some(text) => {
                let stop = c
                    .get("stop_on_error")
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                self.abort_queued = stop.then(std::time::Instant::now);
                let (ename, evalue, traceback) = error_parts(&text);
                self.shared.publish(
                    Some(request),
                    "error",
                    json!({"ename": ename, "evalue": evalue, "traceback": traceback}),
                );
                json!({
                    "status": "error",
                    "execution_count": count,
                    "ename": ename,
                    "evalue": evalue,
                    "traceback": traceback,
                })
            }
        };
        self.shared.reply(request, "execute_reply", content);
    }

    /// Runs one REPL input: what it shows, and its error if it failed.
    fn run_input(&mut self, input: &str) -> (Vec<Shown>, Option<String>) {
        let s = &mut self.session;
        let reply: Reply = match repl::parse_command(input) {
            Command::Input(text) => {
                let reply = s.input(&text);
                if let Some(v) = s.take_result() {
                    return (vec![Shown::Value(v)], none_if_empty(reply.err));
                }
                reply
            }
            Command::Doc(name) => {
                let reply = s.doc(&name);
                if reply.err.is_empty() {
                    return (vec![Shown::Page(reply.out)], None);
                }
                reply
            }
            Command::Quit => Reply::err(
                "error: `:quit` does not end a notebook's kernel (shut the kernel down from \
                 the notebook)\n",
            ),
            _ => match repl::handle(s, input) {
                repl::Action::Reply(reply) => reply,
                repl::Action::Quit => Reply::default(),
            },
        };
        (vec![Shown::Stdout(reply.out)], none_if_empty(reply.err))
    }

    /// The completions of the word before the cursor (byte offset `pos`).
    fn complete(&self, code: &str, pos: usize) -> Value {
        let names = self.session.names();
        let (start, matches) =
            crate::repl::frontend::complete_word(&names, &code[..pos]).unwrap_or((pos, Vec::new()));
        let mut matches = matches;
        matches.sort();
        matches.dedup();
        json!({
            "status": "ok",
            "matches": matches,
            "cursor_start": code[..start].chars().count(),
            "cursor_end": code[..pos].chars().count(),
            "metadata": {},
        })
    }

    /// The type (and documentation) of the name at the cursor.
    fn inspect(&mut self, code: &str, pos: usize) -> Value {
        let word = word_at(code, pos);
        let mut found = None;
        if !word.is_empty() {
            let doc = self.session.doc(word);
            if doc.err.is_empty() && !doc.out.is_empty() {
                found = Some(doc.out);
            } else {
                let ty = self.session.type_of(word);
                if ty.err.is_empty() && !ty.out.is_empty() {
                    found = Some(ty.out);
                }
            }
        }
        match found {
            Some(text) => json!({
                "status": "ok",
                "found": true,
                "data": {"text/plain": text},
                "metadata": {},
            }),
            None => json!({"status": "ok", "found": false, "data": {}, "metadata": {}}),
        }
    }

    /// The answer to a `history_request` (`tail`, `range`, `search`), from the cells
    /// of this kernel and of earlier ones ([`History`]). A `range`'s session is a
    /// kernel's number when positive, and counts back from this kernel's otherwise (0
    /// this one, -1 the one before), as in IPython.
    fn history_reply(&self, c: &Value) -> Value {
        let output = c.get("output").and_then(Value::as_bool).unwrap_or(false);
        let n = c.get("n").and_then(Value::as_u64).map(|n| n as usize);
        let all = self.history.entries();
        let entries: Vec<&HistoryEntry> = match c.get("hist_access_type").and_then(Value::as_str) {
            Some("tail") => last(all.iter().collect(), n),
            Some("range") => {
                let start = c.get("start").and_then(Value::as_u64).unwrap_or(0);
                let stop = c.get("stop").and_then(Value::as_u64).unwrap_or(u64::MAX);
                let asked = c.get("session").and_then(Value::as_i64).unwrap_or(0);
                let session = if asked > 0 {
                    Some(asked.unsigned_abs())
                } else {
                    self.history.session().checked_sub(asked.unsigned_abs())
                };
                all.iter()
                    .filter(|e| Some(e.session) == session && e.line >= start && e.line < stop)
                    .collect()
            }
            Some("search") => {
                let pattern = c.get("pattern").and_then(Value::as_str).unwrap_or("*");
                let unique = c.get("unique").and_then(Value::as_bool).unwrap_or(false);
                let mut hits: Vec<&HistoryEntry> = all
                    .iter()
                    .filter(|e| glob_match(pattern, &e.input))
                    .collect();
                if unique {
                    // The latest of each input, in order.
                    let mut seen = std::collections::HashSet::new();
                    hits.reverse();
                    hits.retain(|e| seen.insert(e.input.as_str()));
                    hits.reverse();
                }
                last(hits, n)
            }
            _ => Vec::new(),
        };
        let history: Vec<Value> = entries
            .into_iter()
            .map(|e| {
                let item = if output {
                    json!([e.input, e.output])
                } else {
                    json!(e.input)
                };
                json!([e.session, e.line, item])
            })
            .collect();
        json!({"status": "ok", "history": history})
    }
}

/// A MIME bundle of `text/plain` and `application/json`, as JSON text. The JSON form
/// goes in as the session wrote it (`spindle run --format json`'s text), so that an
/// object keeps its keys in the value's order (a record's fields as declared, a
/// `JObj`'s entries as given); text that is not one JSON document (deeper than the
/// reader's limit) goes as a JSON string.
fn mime_bundle(plain: &str, json: &str) -> String {
    let json = if serde_json::from_str::<serde::de::IgnoredAny>(json).is_ok() {
        json.to_string()
    } else {
        Value::String(json.to_string()).to_string()
    };
    format!(
        "{{\"text/plain\":{},\"application/json\":{json}}}",
        Value::String(plain.to_string())
    )
}

/// The last `n` of `items` (all without `n`).
fn last<T>(mut items: Vec<T>, n: Option<usize>) -> Vec<T> {
    if let Some(n) = n
        && items.len() > n
    {
        items.drain(..items.len() - n);
    }
    items
}

/// Whether `text` matches the glob `pattern` (`*` any text, `?` one character), as
/// IPython's history search matches.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative matching with one backtrack point for the last `*`.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// The request's `cursor_pos` (in characters) as a byte offset into `code`; the end
/// when it is missing or past the end.
fn cursor(c: &Value, code: &str) -> usize {
    let chars = c
        .get("cursor_pos")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX);
    code.char_indices()
        .nth(usize::try_from(chars).unwrap_or(usize::MAX))
        .map(|(i, _)| i)
        .unwrap_or(code.len())
}

/// The name around byte offset `pos` (letters, digits, `_`, `'`).
fn word_at(code: &str, pos: usize) -> &str {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let start = code[..pos]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_name(c))
        .last()
        .map(|(i, _)| i)
        .unwrap_or(pos);
    let end = code[pos..]
        .char_indices()
        .find(|&(_, c)| !is_name(c))
        .map(|(i, _)| pos + i)
        .unwrap_or(code.len());
    &code[start..end]
}

fn none_if_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// An error's `ename`, `evalue` and `traceback` from the REPL's rendered error: the
/// name is `error` (or the diagnostic's own word), the value its first line, the
/// traceback every line (the places, with the source lines they point at).
fn error_parts(text: &str) -> (String, String, Vec<String>) {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("error");
    let (ename, evalue) = match first.split_once(':') {
        Some((name, rest)) if !name.contains(' ') && !name.is_empty() => {
            (name.trim().to_string(), rest.trim().to_string())
        }
        _ => ("error".to_string(), first.trim().to_string()),
    };
    let traceback = text.trim_end().lines().map(str::to_string).collect();
    (ename, evalue, traceback)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_patterns() {
        assert!(glob_match("*", "anything"));
        assert!(glob_match("1 + *", "1 + 2"));
        assert!(glob_match("?ello", "hello"));
        assert!(glob_match("*map*", ":doc map"));
        assert!(!glob_match("map", ":doc map"));
        assert!(!glob_match("a?c", "abbc"));
        assert!(glob_match("a*b*c", "axxbyyc"));
    }

    #[test]
    fn words_and_cursors() {
        assert_eq!(word_at("map (\\x -> x)", 2), "map");
        assert_eq!(word_at("1 + length", 10), "length");
        assert_eq!(word_at("  ", 1), "");
        assert_eq!(cursor(&json!({"cursor_pos": 2}), "éa b"), 3);
        assert_eq!(cursor(&json!({}), "abc"), 3);
        assert_eq!(cursor(&json!({"cursor_pos": 99}), "abc"), 3);
    }

    #[test]
    fn errors_split_into_name_value_and_traceback() {
        let (n, v, t) = error_parts("error: unknown name `x`\n  --> <repl>:1:1\n");
        assert_eq!((n.as_str(), v.as_str()), ("error", "unknown name `x`"));
        assert_eq!(t.len(), 2);
    }

    fn worker() -> (Worker, tokio::sync::mpsc::UnboundedReceiver<Outgoing>) {
        worker_with(History::in_memory())
    }

    /// What a test worker shares with its kernel, its messages going to `out`.
    fn shared_with(out: tokio::sync::mpsc::UnboundedSender<Outgoing>) -> Shared {
        Shared {
            kernel_session: "k".into(),
            current: Arc::new(Mutex::new(None)),
            interrupted: Arc::new(AtomicBool::new(false)),
            out,
            input: Arc::new(Input::new()),
        }
    }

    /// A worker keeping `history`, and the receiver of what it sends.
    fn worker_with(history: History) -> (Worker, tokio::sync::mpsc::UnboundedReceiver<Outgoing>) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let shared = shared_with(tx);
        (Worker::new(Session::new(), None, shared, history), rx)
    }

    fn request(msg_type: &str, content: Value) -> Message {
        let mut m = Message::new(msg_type, "client", None, content);
        m.identities = vec![b"peer".to_vec()];
        m
    }

    fn drain(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Outgoing>) -> Vec<(String, Value)> {
        drain_messages(rx)
            .into_iter()
            .map(|m| (m.msg_type().to_string(), m.content))
            .collect()
    }

    /// The messages sent so far, whole.
    fn drain_messages(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Outgoing>) -> Vec<Message> {
        let mut v = Vec::new();
        while let Ok(o) = rx.try_recv() {
            let m = match o {
                Outgoing::Shell(m)
                | Outgoing::Control(m)
                | Outgoing::IoPub(m)
                | Outgoing::Stdin(m) => m,
            };
            v.push(m);
        }
        v
    }

    /// The content frame a message goes out with, as text.
    fn sent_content(m: &Message) -> String {
        let signer = crate::jupyter::wire::Signer::new("hmac-sha256", "").unwrap();
        let frames = m.encode(&signer);
        // identities, delimiter, signature, header, parent header, metadata, content
        String::from_utf8(frames[m.identities.len() + 5].clone()).unwrap()
    }

    /// The messages' types, in order.
    fn types(msgs: &[(String, Value)]) -> Vec<&str> {
        msgs.iter().map(|(t, _)| t.as_str()).collect()
    }

    #[test]
    fn a_cell_runs_its_inputs_and_shows_values_rich() {
        let (mut w, mut rx) = worker();
        w.handle(request(
            "execute_request",
            json!({"code": "def x = 20\nx + 22\nJObj [(\"a\", JNum 1.5)]"}),
        ));
        let msgs = drain(&mut rx);
        assert_eq!(
            types(&msgs),
            [
                "status",
                "execute_input",
                "stream",
                "execute_result",
                "display_data",
                "execute_result",
                "execute_reply",
                "status"
            ]
        );
        assert_eq!(msgs[3].1["data"]["text/plain"], "42 : Int");
        assert_eq!(msgs[3].1["data"]["application/json"], json!(42));
        assert_eq!(msgs[4].1["data"]["application/json"], json!({"a": 1.5}));
        assert_eq!(msgs[6].1["status"], "ok");
        assert_eq!(msgs[6].1["execution_count"], 1);
    }

    #[test]
    fn json_objects_keep_the_order_of_the_value() {
        let (mut w, mut rx) = worker();
        w.handle(request(
            "execute_request",
            json!({"code": "record P = { zeta : Int, alpha : String }\n\
                            { alpha = \"a\", zeta = 1 }\n\
                            JObj [(\"b\", JNull), (\"a\", JBool True)]"}),
        ));
        let sent: Vec<(String, String)> = drain_messages(&mut rx)
            .iter()
            .filter(|m| matches!(m.msg_type(), "execute_result" | "display_data"))
            .map(|m| (m.msg_type().to_string(), sent_content(m)))
            .collect();
        let kinds: Vec<&str> = sent.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(kinds, ["execute_result", "display_data", "execute_result"]);
        // As `spindle run --format json` writes them: a record's fields as declared,
        // a `JObj`'s entries as given.
        for (i, want) in [
            (0, r#""application/json":{"zeta":1,"alpha":"a"}"#),
            (1, r#""application/json":{"b":null,"a":true}"#),
            (2, r#""application/json":{"b":null,"a":true}"#),
        ] {
            assert!(sent[i].1.contains(want), "{want} in {}", sent[i].1);
        }
        assert!(
            sent[0]
                .1
                .starts_with(r#"{"execution_count":1,"data":{"text/plain":"#),
            "{}",
            sent[0].1
        );
        // The content read back is the same document.
        let back: Value = serde_json::from_str(&sent[0].1).unwrap();
        assert_eq!(
            back["data"]["application/json"],
            json!({"alpha": "a", "zeta": 1})
        );
    }

    #[test]
    fn an_error_ends_the_cell_with_its_place() {
        let (mut w, mut rx) = worker();
        w.handle(request(
            "execute_request",
            json!({"code": "1 + \"a\"\n:print \"not reached\""}),
        ));
        let msgs = drain(&mut rx);
        assert_eq!(
            types(&msgs),
            [
                "status",
                "execute_input",
                "error",
                "execute_reply",
                "status"
            ]
        );
        let tb = msgs[2].1["traceback"].to_string();
        assert!(tb.contains("<repl>:1:5"), "the place: {tb}");
        assert_eq!(msgs[3].1["status"], "error");
        // Places are the cell's lines.
        w.handle(request(
            "execute_request",
            json!({"code": "def x = 1\n\nx +\n  \"a\""}),
        ));
        let msgs = drain(&mut rx);
        let error = &msgs.iter().find(|(t, _)| t == "error").unwrap().1;
        assert!(
            error["evalue"].as_str().unwrap().starts_with("<repl>:4:3"),
            "{error}"
        );
    }

    #[test]
    fn a_failed_cell_asks_to_abort_the_queued_ones() {
        let (mut w, mut rx) = worker();
        w.handle(request("execute_request", json!({"code": "1"})));
        assert!(w.take_abort().is_none());
        w.handle(request("execute_request", json!({"code": "nosuchname"})));
        assert!(w.take_abort().is_some());
        assert!(w.take_abort().is_none(), "taken once");
        w.handle(request(
            "execute_request",
            json!({"code": "nosuchname", "stop_on_error": false}),
        ));
        assert!(w.take_abort().is_none());
        drain(&mut rx);
        w.abort(&request("execute_request", json!({"code": "1"})));
        let msgs = drain(&mut rx);
        assert_eq!(msgs[1].0, "execute_reply");
        assert_eq!(msgs[1].1["status"], "aborted");
    }

    #[test]
    fn doc_pages_print_streams_and_history() {
        let (mut w, mut rx) = worker();
        w.handle(request("execute_request", json!({"code": ":doc map"})));
        let msgs = drain(&mut rx);
        let reply = &msgs.iter().find(|(t, _)| t == "execute_reply").unwrap().1;
        assert_eq!(reply["payload"][0]["source"], "page");
        assert!(
            reply["payload"][0]["data"]["text/plain"]
                .as_str()
                .unwrap()
                .starts_with("map :")
        );
        w.handle(request("execute_request", json!({"code": ":print \"hi\""})));
        let msgs = drain(&mut rx);
        let stream = &msgs.iter().find(|(t, _)| t == "stream").unwrap().1;
        assert_eq!(stream["text"], "hi\n");
        assert_eq!(stream["name"], "stdout");
        w.handle(request(
            "history_request",
            json!({"hist_access_type": "tail", "n": 1, "output": false, "raw": true}),
        ));
        let msgs = drain(&mut rx);
        let reply = &msgs.iter().find(|(t, _)| t == "history_reply").unwrap().1;
        assert_eq!(reply["history"], json!([[1, 2, ":print \"hi\""]]));
    }

    #[test]
    fn history_goes_back_to_earlier_kernels() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("kernel_history");
        let kernel = worker_with;
        let history = |w: &mut Worker, rx: &mut _, content: Value| {
            w.handle(request("history_request", content));
            let msgs = drain(rx);
            msgs.into_iter()
                .find(|(t, _)| t == "history_reply")
                .unwrap()
                .1["history"]
                .clone()
        };
        let (mut first, mut rx) = kernel(History::open(file.clone()));
        for code in ["1 + 2", "def x = 5"] {
            first.handle(request("execute_request", json!({"code": code})));
        }
        drop(first);
        let (mut second, mut rx2) = kernel(History::open(file.clone()));
        second.handle(request("execute_request", json!({"code": "2 * 5"})));
        drain(&mut rx);
        let tail = history(
            &mut second,
            &mut rx2,
            json!({"hist_access_type": "tail", "n": 3, "output": true, "raw": true}),
        );
        assert_eq!(
            tail,
            json!([
                [1, 1, ["1 + 2", "3 : Int"]],
                [1, 2, ["def x = 5", null]],
                [2, 1, ["2 * 5", "10 : Int"]]
            ])
        );
        let search = history(
            &mut second,
            &mut rx2,
            json!({"hist_access_type": "search", "pattern": "1 *", "output": false}),
        );
        assert_eq!(search, json!([[1, 1, "1 + 2"]]));
        // Sessions by number, or counted back from this kernel's.
        for session in [1, -1] {
            let range = history(
                &mut second,
                &mut rx2,
                json!({"hist_access_type": "range", "session": session, "start": 2, "stop": 3}),
            );
            assert_eq!(range, json!([[1, 2, "def x = 5"]]), "session {session}");
        }
        let range = history(
            &mut second,
            &mut rx2,
            json!({"hist_access_type": "range", "session": 0, "start": 1}),
        );
        assert_eq!(range, json!([[2, 1, "2 * 5"]]));
    }

    /// Waits (10 s at most) for a message of type `want`: the types of those before
    /// it, and it.
    fn wait_for(
        rx: &mut tokio::sync::mpsc::UnboundedReceiver<Outgoing>,
        want: &str,
    ) -> (Vec<String>, Message) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut before = Vec::new();
        while std::time::Instant::now() < deadline {
            match rx.try_recv() {
                Ok(
                    Outgoing::Shell(m)
                    | Outgoing::Control(m)
                    | Outgoing::IoPub(m)
                    | Outgoing::Stdin(m),
                ) => {
                    if m.msg_type() == want {
                        return (before, m);
                    }
                    before.push(m.msg_type().to_string());
                }
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        panic!("no {want} within 10 s (after {before:?})");
    }

    #[test]
    fn a_cell_reads_standard_input_from_the_notebook() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let shared = shared_with(tx);
        let source = shared.clone();
        crate::external::stdin::set_source(Some(Arc::new(move || source.input.read_line(&source))));
        // The worker on a thread of its own, as in the kernel: a read waits there.
        let (requests, incoming) = std::sync::mpsc::channel::<Message>();
        let worker_shared = shared.clone();
        let worker = std::thread::spawn(move || {
            let mut w = Worker::new(Session::new(), None, worker_shared, History::in_memory());
            for r in incoming {
                w.handle(r);
            }
        });
        let cell = |code: &str, allow: bool| {
            request(
                "execute_request",
                json!({"code": code, "allow_stdin": allow}),
            )
        };
        let answer = |value: &str| {
            shared
                .input
                .answer(&request("input_reply", json!({"value": value})))
        };

        // `readFile "/dev/stdin"` asks the notebook and reads the line typed.
        requests
            .send(cell("readFile \"/dev/stdin\"", true))
            .unwrap();
        let (_, ask) = wait_for(&mut rx, "input_request");
        assert_eq!(ask.content, json!({"prompt": "", "password": false}));
        assert_eq!(
            ask.identities,
            vec![b"peer".to_vec()],
            "to the cell's client"
        );
        assert_eq!(ask.parent_header["msg_type"], "execute_request");
        answer("Ada");
        let (_, result) = wait_for(&mut rx, "execute_result");
        assert_eq!(result.content["data"]["text/plain"], "\"Ada\\n\" : String");
        assert_eq!(wait_for(&mut rx, "execute_reply").1.content["status"], "ok");

        // `readLines "/dev/stdin"`: the one line typed.
        requests
            .send(cell("readLines \"/dev/fd/0\"", true))
            .unwrap();
        wait_for(&mut rx, "input_request");
        answer("four");
        let (_, result) = wait_for(&mut rx, "execute_result");
        assert_eq!(
            result.content["data"]["text/plain"],
            "[\"four\"] : List String"
        );
        assert_eq!(wait_for(&mut rx, "execute_reply").1.content["status"], "ok");

        // Without `allow_stdin`, an error at once, and nothing asked.
        requests
            .send(cell("readFile \"/dev/stdin\"", false))
            .unwrap();
        let (before, reply) = wait_for(&mut rx, "execute_reply");
        assert!(!before.iter().any(|t| t == "input_request"), "{before:?}");
        assert_eq!(reply.content["status"], "error");
        let traceback = reply.content["traceback"].to_string();
        assert!(traceback.contains("allow_stdin"), "{traceback}");

        // An interrupt stops a read that waits.
        requests
            .send(cell("readFile \"/dev/stdin\"", true))
            .unwrap();
        wait_for(&mut rx, "input_request");
        shared.interrupted.store(true, Ordering::SeqCst);
        let (_, reply) = wait_for(&mut rx, "execute_reply");
        assert_eq!(reply.content["status"], "error");

        drop(requests);
        worker.join().unwrap();
        crate::external::stdin::set_source(None);
    }

    #[test]
    fn completion_and_inspection() {
        let (mut w, mut rx) = worker();
        w.handle(request(
            "complete_request",
            json!({"code": "1 + lengt", "cursor_pos": 9}),
        ));
        let msgs = drain(&mut rx);
        let reply = &msgs.iter().find(|(t, _)| t == "complete_reply").unwrap().1;
        assert!(
            reply["matches"]
                .as_array()
                .unwrap()
                .contains(&json!("length"))
        );
        assert_eq!(reply["cursor_start"], 4);
        w.handle(request(
            "inspect_request",
            json!({"code": "map", "cursor_pos": 1, "detail_level": 0}),
        ));
        let msgs = drain(&mut rx);
        let reply = &msgs.iter().find(|(t, _)| t == "inspect_reply").unwrap().1;
        assert_eq!(reply["found"], true);
        assert!(
            reply["data"]["text/plain"]
                .as_str()
                .unwrap()
                .contains("map :")
        );
        w.handle(request(
            "inspect_request",
            json!({"code": "nosuchname", "cursor_pos": 3}),
        ));
        let msgs = drain(&mut rx);
        let reply = &msgs.iter().find(|(t, _)| t == "inspect_reply").unwrap().1;
        assert_eq!(reply["found"], false);
    }
}
