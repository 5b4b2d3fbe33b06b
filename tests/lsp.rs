//! `spindle lsp` driven as an editor drives it: LSP messages (`Content-Length`
//! framed JSON-RPC) written to its standard input, its answers read from its standard
//! output, and their content checked against what `spindle check` says of the same
//! file.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running server and the messages it sent that no request waited for.
struct Server {
    child: Child,
    input: ChildStdin,
    messages: mpsc::Receiver<Value>,
    next_id: i64,
}

/// How long any answer may take (the check of a small file takes milliseconds).
const PATIENCE: Duration = Duration::from_secs(20);

fn read_frames(out: ChildStdout, to: mpsc::Sender<Value>) {
    let mut out = BufReader::new(out);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                length = v.parse::<usize>().ok();
            }
        }
        let Some(n) = length else { return };
        let mut body = vec![0; n];
        if out.read_exact(&mut body).is_err() {
            return;
        }
        let Ok(v) = serde_json::from_slice(&body) else {
            return;
        };
        if to.send(v).is_err() {
            return;
        }
    }
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_spindle"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spindle lsp starts");
        let input = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (to, messages) = mpsc::channel();
        std::thread::spawn(move || read_frames(out, to));
        Server {
            child,
            input,
            messages,
            next_id: 0,
        }
    }

    fn send_raw(&mut self, body: &[u8]) {
        write!(self.input, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.input.write_all(body).unwrap();
        self.input.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.send_raw(v.to_string().as_bytes());
    }

    fn next(&mut self) -> Value {
        self.messages
            .recv_timeout(PATIENCE)
            .expect("the server answers in time")
    }

    /// Sends a request and returns its response (skipping notifications).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.next();
            if m["id"] == json!(id) {
                return m;
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next diagnostics published.
    fn diagnostics(&mut self) -> Value {
        loop {
            let m = self.next();
            if m["method"] == "textDocument/publishDiagnostics" {
                return m["params"].clone();
            }
        }
    }

    fn initialize(&mut self) {
        let r = self.request("initialize", json!({"capabilities": {}}));
        let caps = &r["result"]["capabilities"];
        assert_eq!(caps["hoverProvider"], json!(true), "{r}");
        assert_eq!(caps["definitionProvider"], json!(true), "{r}");
        assert!(caps["completionProvider"].is_object(), "{r}");
        self.notify("initialized", json!({}));
    }

    fn open(&mut self, uri: &str, text: &str) -> Value {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "spindle", "version": 1, "text": text}}),
        );
        self.diagnostics()
    }

    /// Shuts down and exits; returns the exit status.
    fn finish(mut self) -> Option<i32> {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        self.child.wait().unwrap().code()
    }
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spindle-lsp-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.sp"));
    std::fs::write(&path, text).unwrap();
    path
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn pos(uri: &str, line: usize, character: usize) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
}

/// The line and column of the first occurrence of `marker` in `text` (0-based, the
/// Asks for the hover at `(l, c)` and asserts that its text holds `expected`.
fn assert_hover_contains(s: &mut Server, uri: &str, (l, c): (usize, usize), expected: &str) {
    let h = s.request("textDocument/hover", pos(uri, l, c));
    let shown = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(shown.contains(expected), "{expected:?} not in {h}");
}

/// text is ASCII), plus `skip` columns.
fn at(text: &str, marker: &str, skip: usize) -> (usize, usize) {
    for (i, line) in text.lines().enumerate() {
        if let Some(j) = line.find(marker) {
            return (i, j + skip);
        }
    }
    panic!("no {marker:?} in the text");
}

const PROGRAM: &str = "\
-- A colour.
data Color = Red | Green | Blue

record Point = { x : Int, y : Int }

-- Doubles a number.
def double (n : Int) : Int = n * 2

def name (c : Color) (fallback : String) : String = ?h

def px (p : Point) : Int = p.x + double 3

def bad : Int = \"oops\"

def count (xs : List Int) : Int = length xs

def main : Int = px { x = 1, y = 2 }
";

#[test]
fn an_editor_session() {
    let path = scratch("session", PROGRAM);
    let uri = uri_of(&path);
    let mut s = Server::start();
    s.initialize();

    // Diagnostics: the text and places `spindle check` reports.
    let published = s.open(&uri, PROGRAM);
    assert_eq!(published["uri"], json!(uri));
    let diags = published["diagnostics"].as_array().unwrap().clone();
    let check = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("check")
        .arg(&path)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&check.stderr).to_string();
    let headlines: Vec<&str> = report.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(headlines.len(), diags.len(), "{report}\n{diags:?}");
    assert_eq!(diags.len(), 2, "{diags:?}");
    for (d, headline) in diags.iter().zip(&headlines) {
        let line = d["range"]["start"]["line"].as_u64().unwrap() + 1;
        let col = d["range"]["start"]["character"].as_u64().unwrap() + 1;
        let message = d["message"].as_str().unwrap();
        let first = message.lines().next().unwrap();
        assert_eq!(
            *headline,
            format!("error: {}:{line}:{col}: {first}", path.display()),
            "{report}"
        );
        // The notes under the snippet are the message's other lines.
        for note in message.lines().skip(1) {
            assert!(report.contains(note.trim()), "{note:?} not in {report}");
        }
    }
    // The typed hole, with its goal and context.
    let hole = &diags[0];
    assert_eq!(hole["range"]["start"], json!({"line": 8, "character": 52}));
    assert!(
        hole["message"].as_str().unwrap().starts_with(
            "hole `?h` has type `String`\nlocal variables:\n  c : Color\n  fallback : String"
        ),
        "{hole}"
    );
    assert!(
        diags[1]["message"]
            .as_str()
            .unwrap()
            .contains("type mismatch")
    );

    // Hover: a global with its type and doc comment; a local; an expression.
    let (l, c) = at(PROGRAM, "double 3", 1);
    let h = s.request("textDocument/hover", pos(&uri, l, c));
    let shown = h["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("double : Int -> Int"), "{h}");
    assert!(shown.contains("Doubles a number."), "{h}");
    assert_hover_contains(&mut s, &uri, at(PROGRAM, "p.x", 0), "p : Point");
    assert_hover_contains(&mut s, &uri, at(PROGRAM, "p.x", 2), "p.x : Int");
    assert_hover_contains(
        &mut s,
        &uri,
        at(PROGRAM, "(fallback", 3),
        "fallback : String",
    );
    assert_hover_contains(
        &mut s,
        &uri,
        at(PROGRAM, "length xs", 1),
        "length : {a : Type} -> List a -> Int",
    );

    // Definition: a name of the file, then one of the prelude.
    let (l, c) = at(PROGRAM, "double 3", 2);
    let d = s.request("textDocument/definition", pos(&uri, l, c));
    assert_eq!(d["result"]["uri"], json!(uri), "{d}");
    assert_eq!(
        d["result"]["range"]["start"],
        json!({"line": 6, "character": 4}),
        "{d}"
    );
    let (l, c) = at(PROGRAM, "length xs", 2);
    let d = s.request("textDocument/definition", pos(&uri, l, c));
    let target = d["result"]["uri"].as_str().unwrap().to_string();
    assert!(target.ends_with("/list.sp"), "{d}");
    let file = std::fs::read_to_string(target.strip_prefix("file://").unwrap()).unwrap();
    let line = d["result"]["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(
        file.lines().nth(line).unwrap().starts_with("def length "),
        "{d}"
    );

    // Completion: names in scope (the file's, a local, the prelude's).
    let (l, c) = at(PROGRAM, "double 3", 0);
    let r = s.request("textDocument/completion", pos(&uri, l, c));
    let labels: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for want in ["double", "px", "p", "Red", "length", "map"] {
        assert!(labels.contains(&want), "{want} not in {labels:?}");
    }

    // Code actions at the hole: fill it with the local of its type, split on `c`.
    let (l, c) = at(PROGRAM, "?h", 1);
    let range = json!({"start": {"line": l, "character": c}, "end": {"line": l, "character": c}});
    let r = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": []}}),
    );
    let actions = r["result"].as_array().unwrap();
    let edit_of = |title: &str| -> Value {
        let a = actions
            .iter()
            .find(|a| a["title"] == json!(title))
            .unwrap_or_else(|| panic!("no action {title:?} in {actions:?}"));
        a["edit"]["changes"][&uri][0].clone()
    };
    let hole_range =
        json!({"start": {"line": 8, "character": 52}, "end": {"line": 8, "character": 54}});
    let fill = edit_of("Fill `?h` with `fallback`");
    assert_eq!(fill["range"], hole_range);
    assert_eq!(fill["newText"], json!("fallback"));
    let split = edit_of("Case split on `c` at `?h`");
    assert_eq!(split["range"], hole_range);
    assert_eq!(
        split["newText"],
        json!("match c with\n  | Red -> ?h\n  | Green -> ?h\n  | Blue -> ?h")
    );
    // The split, applied, checks but for the holes it leaves.
    let split_text = PROGRAM.replace("?h", split["newText"].as_str().unwrap());
    let split_path = scratch("split", &split_text);
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("check")
        .arg(&split_path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("hole `?h` has type `String`").count(),
        3,
        "{err}"
    );

    // A case split offered at a variable of a data type.
    let (l, c) = at(PROGRAM, "p.x", 0);
    let range = json!({"start": {"line": l, "character": c}, "end": {"line": l, "character": c}});
    let r = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": []}}),
    );
    let titles: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Case split on `p`"], "{r}");

    // Document symbols.
    let r = s.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let names: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Color", "Point", "double", "name", "px", "bad", "count", "main"
        ]
    );

    // A change: typing `p.` (which does not parse) gets the record's fields, and
    // new diagnostics.
    let edited = PROGRAM.replace("p.x + double 3", "p.");
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]}),
    );
    let published = s.diagnostics();
    assert_eq!(published["version"], json!(2));
    assert!(!published["diagnostics"].as_array().unwrap().is_empty());
    let (l, c) = at(&edited, "p.", 2);
    let r = s.request("textDocument/completion", pos(&uri, l, c));
    let labels: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["x", "y"], "{r}");

    // An incremental change (a range) that fixes `bad`: only the hole is left.
    let (l, c) = at(&edited, "\"oops\"", 0);
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
            {"range": {"start": {"line": l, "character": c}, "end": {"line": l, "character": c + 6}}, "text": "42"},
            {"range": {"start": {"line": 10, "character": 27}, "end": {"line": 10, "character": 29}}, "text": "p.x + double 3"}
        ]}),
    );
    let published = s.diagnostics();
    let diags = published["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{published}");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("hole `?h`")
    );

    assert_eq!(s.finish(), Some(0));
}

#[test]
fn bad_input_is_answered_not_fatal() {
    let mut s = Server::start();
    // Before `initialize`: refused.
    let r = s.request("textDocument/hover", pos("file:///x.sp", 0, 0));
    assert_eq!(r["error"]["code"], json!(-32002), "{r}");
    s.initialize();
    // Malformed JSON: a parse error with a null id.
    s.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": ");
    let r = s.next();
    assert_eq!(r["error"]["code"], json!(-32700), "{r}");
    assert_eq!(r["id"], Value::Null);
    // JSON that is no message.
    s.send_raw(b"[1, 2, 3]");
    let r = s.next();
    assert_eq!(r["error"]["code"], json!(-32700), "{r}");
    // An unknown method.
    let r = s.request("spindle/noSuchThing", json!({}));
    assert_eq!(r["error"]["code"], json!(-32601), "{r}");
    // Bad parameters.
    let r = s.request("textDocument/hover", json!({"position": "here"}));
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    // A document that is not open: no answer, no error.
    let r = s.request("textDocument/hover", pos("file:///nowhere.sp", 0, 0));
    assert_eq!(r["result"], Value::Null, "{r}");
    // Positions out of range and a document that is all garbage.
    let garbage = "def ( ) = = \u{1F600} \"unclosed\n".repeat(3);
    let published = s.open("untitled:Garbage", &garbage);
    assert!(!published["diagnostics"].as_array().unwrap().is_empty());
    for (l, c) in [(0, 0), (1, 5), (99, 99), (0, 1000)] {
        for m in [
            "textDocument/hover",
            "textDocument/definition",
            "textDocument/completion",
        ] {
            let r = s.request(m, pos("untitled:Garbage", l, c));
            assert!(r.get("error").is_none(), "{m} {r}");
        }
    }
    // The server still works.
    let published = s.open("untitled:Fine", "def main : Int = 1\n");
    assert_eq!(published["diagnostics"], json!([]));
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn exit_without_shutdown_is_status_1() {
    let mut s = Server::start();
    s.initialize();
    s.notify("exit", Value::Null);
    assert_eq!(s.child.wait().unwrap().code(), Some(1));
}

/// Twenty definitions: `leaf0`..`leaf9` use nothing of the file; `mid0`..`mid4` use
/// two leaves each; `top0`..`top3` use mids; `main` uses the tops.
fn twenty() -> String {
    let mut t = String::new();
    for i in 0..10 {
        t.push_str(&format!("def leaf{i} : Int = {i} + 1\n\n"));
    }
    for i in 0..5 {
        t.push_str(&format!(
            "def mid{i} : Int = leaf{} + leaf{}\n\n",
            2 * i,
            2 * i + 1
        ));
    }
    t.push_str("def top0 : Int = mid0 + mid1\n\n");
    t.push_str("def top1 : Int = mid2\n\n");
    t.push_str("def top2 : Int = mid3 + mid4\n\n");
    t.push_str("def top3 : Int = 7\n\n");
    t.push_str("def main : Int = top0 + top1 + top2 + top3\n");
    t
}

#[test]
fn a_change_rechecks_only_what_depends_on_it() {
    let text = twenty();
    let path = scratch("incremental", &text);
    let uri = uri_of(&path);
    let mut s = Server::start();
    s.initialize();
    let first = s.open(&uri, &text);
    assert_eq!(first["diagnostics"], json!([]));
    let stats = |s: &mut Server| {
        s.request("spindle/stats", json!({"textDocument": {"uri": uri}}))["result"].clone()
    };
    assert_eq!(
        stats(&mut s),
        json!({"definitions": 20, "checked": 20, "reused": 0})
    );

    // `leaf4`'s body changes (and its length, moving everything after it): `leaf4`,
    // `mid2`, `top1` and `main` are checked again; the 16 others are reused.
    let (l, c) = at(&text, "4 + 1", 0);
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": l, "character": c}, "end": {"line": l, "character": c + 1}}, "text": "40"}
        ]}),
    );
    assert_eq!(s.diagnostics()["diagnostics"], json!([]));
    assert_eq!(
        stats(&mut s),
        json!({"definitions": 20, "checked": 4, "reused": 16})
    );

    // A type error in a leaf: the same diagnostic as a full check, at the place the
    // text has now; hovers after the edit point at the moved places.
    let edited = text
        .replace("4 + 1", "40 + 1")
        .replace("def leaf7 : Int = 7 + 1", "def leaf7 : Int = \"x\"");
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": edited}]}),
    );
    let diags = s.diagnostics()["diagnostics"].clone();
    assert_eq!(
        stats(&mut s),
        json!({"definitions": 20, "checked": 4, "reused": 16})
    );
    let fresh_path = scratch("incremental-fresh", &edited);
    let mut fresh = Server::start();
    fresh.initialize();
    let full = fresh.open(&uri_of(&fresh_path), &edited);
    assert_eq!(diags, full["diagnostics"]);
    assert_eq!(diags.as_array().unwrap().len(), 1, "{diags}");
    assert_eq!(fresh.finish(), Some(0));
    assert_hover_contains(&mut s, &uri, at(&edited, "leaf8 + leaf9", 9), "leaf9 : Int");

    // Moving everything down by a line re-checks nothing.
    let moved = format!("\n{edited}");
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": moved}]}),
    );
    let diags = s.diagnostics()["diagnostics"].clone();
    assert_eq!(
        stats(&mut s),
        json!({"definitions": 20, "checked": 0, "reused": 20})
    );
    let (l, _) = at(&moved, "\"x\"", 0);
    assert_eq!(diags[0]["range"]["start"]["line"], json!(l), "{diags}");
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn definitions_and_hovers_across_an_import() {
    let lib = scratch(
        "imported",
        "-- Triples a number.\ndef triple (n : Int) : Int = n * 3\n",
    );
    let main_text = format!(
        "import \"{}\"\n\ndef main : Int = triple (1 + 2)\n",
        lib.file_name().unwrap().to_string_lossy()
    );
    let main = lib.with_file_name("importer.sp");
    std::fs::write(&main, &main_text).unwrap();
    let uri = uri_of(&main);
    let mut s = Server::start();
    s.initialize();
    assert_eq!(s.open(&uri, &main_text)["diagnostics"], json!([]));
    let (l, c) = at(&main_text, "triple (", 1);
    let d = s.request("textDocument/definition", pos(&uri, l, c));
    assert_eq!(d["result"]["uri"], json!(uri_of(&lib)), "{d}");
    assert_eq!(
        d["result"]["range"]["start"],
        json!({"line": 1, "character": 4}),
        "{d}"
    );
    let h = s.request("textDocument/hover", pos(&uri, l, c));
    let shown = h["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        shown.contains("triple : Int -> Int") && shown.contains("Triples a number."),
        "{h}"
    );
    // An expression: the argument, then the whole application.
    assert_hover_contains(&mut s, &uri, at(&main_text, "1 + 2", 2), "1 + 2 : Int");
    // Changing the imported file on disk is seen at the next check (and re-checks).
    std::fs::write(&lib, "def triple (n : Int) : String = \"three\"\n").unwrap();
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": main_text.clone()}]}),
    );
    let diags = s.diagnostics()["diagnostics"].clone();
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains("type mismatch"),
        "{diags}"
    );
    let stats = s.request("spindle/stats", json!({"textDocument": {"uri": uri}}));
    assert_eq!(stats["result"]["reused"], json!(0), "{stats}");
    assert_eq!(s.finish(), Some(0));
}

/// The diagnostics a server publishes for `after` once it has checked `before`, and
/// those a fresh server publishes for `after`.
fn incremental_and_fresh(name: &str, before: &str, after: &str) -> (Value, Value) {
    let path = scratch(name, after);
    let uri = uri_of(&path);
    let mut s = Server::start();
    s.initialize();
    s.open(&uri, before);
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": after}]}),
    );
    let incremental = s.diagnostics()["diagnostics"].clone();
    assert_eq!(s.finish(), Some(0));
    let mut f = Server::start();
    f.initialize();
    let fresh = f.open(&uri, after)["diagnostics"].clone();
    assert_eq!(f.finish(), Some(0));
    (incremental, fresh)
}

#[test]
fn incremental_diagnostics_are_those_of_a_fresh_check() {
    // A type-level function left with an unknown (`In` is unbound) that the check of
    // `sumN` fixes: `sumN` may not be reused while `NArgs` is checked again. (The
    // text is one a differential fuzz against fresh checks found.)
    let nargs = "\
def NArgs (n : Nat) : Type =
  match n with
  | Z -> In
  | S m -> Int -> NArgs m

def sumN (n : Nat) (acc : Int) : NArgs n =
  match n with
  | Z -> acc
  | Z -> acc
  | S m -> \\x -> sumN m (acc + x)

def main : String = sumN (S Z) 0 1
";
    let (inc, fresh) = incremental_and_fresh("nargs", nargs, &nargs.replace(") 0 1", ") 5 1"));
    assert_eq!(inc, fresh);
    assert!(inc.to_string().contains("found `NArgs Z`"), "{inc}");

    // An error at a place in one definition, found while checking another: it moves
    // with the definition that was checked.
    let eval = "\
def F (n : Int) : Type = if n > 0 then Int else error \"F needs a positive number\"

def x : F (0 - 1) = 3
";
    let (inc, fresh) = incremental_and_fresh("eval", eval, &eval.replace("def x", "\ndef x"));
    assert_eq!(inc, fresh);
    assert_eq!(inc.as_array().unwrap().len(), 1, "{inc}");
    let (inc, fresh) = incremental_and_fresh("eval2", eval, &eval.replace("(0 - 1)", "1"));
    assert_eq!(inc, fresh);
    assert_eq!(inc, json!([]));
}

const LOCALS: &str = "\
def sum (xs : List Int) : Int =
  match xs with
  | Nil -> 0
  | Cons h t -> h + sum t

def f (n : Int) : Int =
  let m = n + 1 in
  (\\k -> k + m) n + w
  where w = 3
";

/// The range a definition request at `(l, c)` answers, as `(line, start, end)` on
/// one line, with the answer's file.
fn definition_at(s: &mut Server, uri: &str, (l, c): (usize, usize)) -> (String, Value) {
    let d = s.request("textDocument/definition", pos(uri, l, c));
    (
        d["result"]["uri"].as_str().unwrap_or("").to_string(),
        d["result"]["range"].clone(),
    )
}

fn range(line: usize, start: usize, end: usize) -> Value {
    json!({"start": {"line": line, "character": start}, "end": {"line": line, "character": end}})
}

#[test]
fn definitions_of_local_variables() {
    let path = scratch("locals", LOCALS);
    let uri = uri_of(&path);
    let mut s = Server::start();
    s.initialize();
    let published = s.open(&uri, LOCALS);
    assert_eq!(published["diagnostics"], json!([]), "{published}");
    // A parameter.
    let got = definition_at(&mut s, &uri, at(LOCALS, "match xs", 7));
    assert_eq!(got, (uri.clone(), range(0, 9, 11)));
    // Pattern variables, at their uses.
    let got = definition_at(&mut s, &uri, at(LOCALS, "h + sum", 0));
    assert_eq!(got, (uri.clone(), range(3, 9, 10)));
    let got = definition_at(&mut s, &uri, at(LOCALS, "sum t", 4));
    assert_eq!(got, (uri.clone(), range(3, 11, 12)));
    // A `let` binding, a lambda's binder, a `where` binding, a parameter again.
    let got = definition_at(&mut s, &uri, at(LOCALS, "k + m", 4));
    assert_eq!(got, (uri.clone(), range(6, 6, 7)));
    let got = definition_at(&mut s, &uri, at(LOCALS, "k + m", 0));
    assert_eq!(got, (uri.clone(), range(7, 4, 5)));
    let got = definition_at(&mut s, &uri, at(LOCALS, "+ w", 2));
    assert_eq!(got, (uri.clone(), range(8, 8, 9)));
    let got = definition_at(&mut s, &uri, at(LOCALS, "n + 1", 0));
    assert_eq!(got, (uri.clone(), range(5, 7, 8)));
    // A global still goes to its declaration.
    let got = definition_at(&mut s, &uri, at(LOCALS, "sum t", 0));
    assert_eq!(got, (uri.clone(), range(0, 4, 7)));
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn hovers_on_pattern_variables() {
    let path = scratch("patvars", LOCALS);
    let uri = uri_of(&path);
    let mut s = Server::start();
    s.initialize();
    s.open(&uri, LOCALS);
    let mut hover = |(l, c): (usize, usize)| {
        let h = s.request("textDocument/hover", pos(&uri, l, c));
        (
            h["result"]["contents"]["value"].clone(),
            h["result"]["range"].clone(),
        )
    };
    let shown = |text: &str| json!(format!("```spindle\n{text}\n```"));
    // (where the cursor is, what hover shows, the name's range): at a pattern's
    // variables, at uses, the scrutinee, and the binders of a `let`, a lambda and a
    // `where` at the binder itself.
    let cases = [
        ("Cons h t", 5, "h : Int", (3, 9, 10)),
        ("Cons h t", 7, "t : List Int", (3, 11, 12)),
        ("h + sum", 0, "h : Int", (3, 16, 17)),
        ("sum t", 4, "t : List Int", (3, 24, 25)),
        ("match xs", 6, "xs : List Int", (1, 8, 10)),
        ("let m", 4, "m : Int", (6, 6, 7)),
        ("\\k ->", 1, "k : Int", (7, 4, 5)),
        ("where w", 6, "w : Int", (8, 8, 9)),
    ];
    for (needle, offset, text, (line, from, to)) in cases {
        assert_eq!(
            hover(at(LOCALS, needle, offset)),
            (shown(text), range(line, from, to)),
            "hover at {needle:?}+{offset}"
        );
    }
    assert_eq!(s.finish(), Some(0));
}

impl Server {
    /// The next diagnostics published for `uri` (those of other documents skipped).
    fn diagnostics_of(&mut self, uri: &str) -> Value {
        loop {
            let d = self.diagnostics();
            if d["uri"] == json!(uri) {
                return d;
            }
        }
    }

    /// Replaces the whole text of an open document.
    fn replace_text(&mut self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }
}

#[test]
fn an_open_import_is_checked_with_its_unsaved_text() {
    let saved = "def triple (n : Int) : Int = n * 3\n";
    let lib = scratch("unsaved-lib", saved);
    let lib_uri = uri_of(&lib);
    let main_text = format!(
        "import \"{}\"\n\ndef main : Int = triple 2\n",
        lib.file_name().unwrap().to_string_lossy()
    );
    let main = lib.with_file_name("unsaved-importer.sp");
    std::fs::write(&main, &main_text).unwrap();
    let uri = uri_of(&main);
    let mut s = Server::start();
    s.initialize();
    assert_eq!(s.open(&lib_uri, saved)["diagnostics"], json!([]));
    assert_eq!(s.open(&uri, &main_text)["diagnostics"], json!([]));

    // An edit of the open import, not saved: the importer is checked again with it
    // and its new diagnostics published; hover in the importer sees the new type.
    let unsaved = "def triple (n : Int) : String = \"three\"\n";
    s.replace_text(&lib_uri, 2, unsaved);
    let diags = s.diagnostics_of(&uri)["diagnostics"].clone();
    assert_eq!(diags.as_array().map(Vec::len), Some(1), "{diags}");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains("type mismatch: expected `Int`, found `String`"),
        "{diags}"
    );
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), saved);
    assert_hover_contains(
        &mut s,
        &uri,
        at(&main_text, "triple 2", 1),
        "triple : Int -> String",
    );

    // A document opened while the import has unsaved edits sees them too.
    let other_text = main_text.replace("def main : Int", "def other : String");
    let other = lib.with_file_name("unsaved-other.sp");
    std::fs::write(&other, &other_text).unwrap();
    assert_eq!(
        s.open(&uri_of(&other), &other_text)["diagnostics"],
        json!([])
    );

    // Closing the import without saving: the importers read the file again.
    s.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": lib_uri}}),
    );
    assert_eq!(s.diagnostics_of(&uri)["diagnostics"], json!([]));
    let diags = s.diagnostics_of(&uri_of(&other))["diagnostics"].clone();
    assert!(diags.to_string().contains("found `Int`"), "{diags}");
    assert_eq!(s.finish(), Some(0));
}

const SCOPES: &str = "\
def pick (m : Maybe Int) (fallback : Int) : Int =
  match m with
  | Just inner -> let twice = inner * 2 in (\\k -> let m = \"shadow\" in k + fa) twice
  | Nothing -> (let unused = 1 in unused) + fa
  where extra = 3
";

/// The completions at `(l, c)`: each label with its detail.
fn completions_at(s: &mut Server, uri: &str, (l, c): (usize, usize)) -> Vec<(String, Value)> {
    let r = s.request("textDocument/completion", pos(uri, l, c));
    r["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|i| {
            (
                i["label"].as_str().unwrap().to_string(),
                i["detail"].clone(),
            )
        })
        .collect()
}

#[test]
fn completion_offers_the_local_variables_in_scope_at_the_cursor() {
    let path = scratch("scopes", SCOPES);
    let uri = uri_of(&path);
    let mut s = Server::start();
    s.initialize();
    s.open(&uri, SCOPES);
    let detail = |items: &[(String, Value)], name: &str| {
        items
            .iter()
            .find(|(l, _)| l == name)
            .map(|(_, d)| d.clone())
    };
    // In the first arm, under a lambda and a `let` that shadows a parameter: every
    // binder around the cursor, the innermost `m` with its type.
    let first = completions_at(&mut s, &uri, at(SCOPES, "k + fa", 6));
    for (name, ty) in [
        ("k", "Int"),
        ("m", "String"),
        ("twice", "Int"),
        ("inner", "Int"),
        ("fallback", "Int"),
        ("extra", "Int"),
    ] {
        assert_eq!(detail(&first, name), Some(json!(ty)), "{name} in {first:?}");
    }
    assert_eq!(
        first.iter().filter(|(l, _)| l == "m").count(),
        1,
        "{first:?}"
    );
    assert_eq!(detail(&first, "unused"), None, "{first:?}");
    // Globals of the prelude still come, with their types.
    assert!(
        detail(&first, "length").is_some_and(|d| d.to_string().contains("List a -> Int")),
        "{first:?}"
    );
    // In the second arm: neither the other arm's binders nor a `let` that ended
    // before the cursor; the parameter `m` with its own type.
    let second = completions_at(&mut s, &uri, at(SCOPES, ") + fa", 6));
    for gone in ["inner", "twice", "k", "unused"] {
        assert_eq!(detail(&second, gone), None, "{gone} in {second:?}");
    }
    assert_eq!(detail(&second, "m"), Some(json!("Maybe Int")), "{second:?}");
    assert_eq!(
        detail(&second, "fallback"),
        Some(json!("Int")),
        "{second:?}"
    );
    // Completed (it checks), then moved down a line: the check is reused, and the
    // scopes moved with it.
    let done = SCOPES.replace("+ fa", "+ fallback");
    s.replace_text(&uri, 2, &done);
    assert_eq!(s.diagnostics_of(&uri)["diagnostics"], json!([]));
    let moved = format!("\n{done}");
    s.replace_text(&uri, 3, &moved);
    s.diagnostics_of(&uri);
    let stats = s.request("spindle/stats", json!({"textDocument": {"uri": uri}}));
    assert_eq!(stats["result"]["reused"], json!(1), "{stats}");
    let again = completions_at(&mut s, &uri, at(&moved, "k + fa", 6));
    assert_eq!(detail(&again, "inner"), Some(json!("Int")), "{again:?}");
    let again = completions_at(&mut s, &uri, at(&moved, ") + fa", 6));
    assert_eq!(detail(&again, "inner"), None, "{again:?}");
    assert_eq!(s.finish(), Some(0));
}

const FILLS: &str = "\
def count (xs : List Int) : Int = 0

def total : List Int -> Int = ?sum

def twice : Int -> Int = ?same

def loud : String -> String = ?text

def pick (n : Int) (xs : List Int) : Int = ?p
";

/// The names the *Fill* actions at the hole `?name` of `text` offer, in order.
fn fills_at(s: &mut Server, uri: &str, text: &str, hole: &str) -> Vec<String> {
    let (l, c) = at(text, &format!("?{hole}"), 1);
    let range = json!({"start": {"line": l, "character": c}, "end": {"line": l, "character": c}});
    let r = s.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": []}}),
    );
    let prefix = format!("Fill `?{hole}` with `");
    r["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .filter_map(|a| {
            a["title"]
                .as_str()?
                .strip_prefix(&prefix)?
                .strip_suffix('`')
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn fill_offers_names_whose_type_instantiates_to_the_hole() {
    let path = scratch("fills", FILLS);
    let uri = uri_of(&path);
    let mut s = Server::start();
    s.initialize();
    // Trying the candidates leaves the check as it was: the holes, nothing else.
    let diags = s.open(&uri, FILLS)["diagnostics"].clone();
    let messages: Vec<&str> = diags
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 4, "{diags}");
    assert!(messages.iter().all(|m| m.starts_with("hole `?")), "{diags}");

    // `List Int -> Int`: the file's `count`, then the prelude's `sum` (the same
    // type), then `length : {a : Type} -> List a -> Int` instantiated.
    let sum = fills_at(&mut s, &uri, FILLS, "sum");
    let place = |name: &str| sum.iter().position(|n| n == name);
    assert!(place("length").is_some(), "{sum:?}");
    assert!(
        place("count") < place("sum") && place("sum") < place("length"),
        "{sum:?}"
    );
    assert!(sum.len() <= 12, "{sum:?}");
    // `Int -> Int`: `id`, and `abs` (its constraint `Signed Int` has an instance).
    let same = fills_at(&mut s, &uri, FILLS, "same");
    for want in ["id", "abs"] {
        assert!(same.contains(&want.to_string()), "{want} not in {same:?}");
    }
    assert!(!same.contains(&"count".to_string()), "{same:?}");
    // `String -> String`: `id` and `show`, not `abs` (no `Signed String`).
    let text = fills_at(&mut s, &uri, FILLS, "text");
    for want in ["id", "show"] {
        assert!(text.contains(&want.to_string()), "{want} not in {text:?}");
    }
    assert!(!text.contains(&"abs".to_string()), "{text:?}");
    // `Int` with a local of that type: the local first, no function.
    let p = fills_at(&mut s, &uri, FILLS, "p");
    assert_eq!(p.first().map(String::as_str), Some("n"), "{p:?}");
    assert!(
        !p.iter()
            .any(|n| ["count", "id", "length"].contains(&n.as_str())),
        "{p:?}"
    );

    // Another definition's type changes (not one the hole's refers to): the hole's
    // definition is checked again, and `count` no longer fits.
    let changed = FILLS.replace(
        "(xs : List Int) : Int = 0",
        "(xs : List Int) : String = \"0\"",
    );
    s.replace_text(&uri, 2, &changed);
    s.diagnostics_of(&uri);
    let sum = fills_at(&mut s, &uri, &changed, "sum");
    assert!(!sum.contains(&"count".to_string()), "{sum:?}");
    assert!(sum.contains(&"length".to_string()), "{sum:?}");

    // The fills applied, the file checks.
    let filled = FILLS
        .replace("?sum", "length")
        .replace("?same", "abs")
        .replace("?text", "show")
        .replace("?p", "n");
    let filled_path = scratch("fills-applied", &filled);
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("check")
        .arg(&filled_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.finish(), Some(0));
}
