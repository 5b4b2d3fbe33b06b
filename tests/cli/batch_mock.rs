//! The mock of OpenAI's Batch API (`e2e_common::batch_server`) tested on its own, by
//! raw HTTP over a `TcpStream`, so that the batch client's tests can trust it: uploads,
//! batches through their statuses, shuffled output and error files, validation errors
//! that name the line, list paging, cancelling, keys, and the live endpoints.

use crate::e2e_common;

use e2e_common::batch_server::{BatchServer, Item, Outcome, default_outcome};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const KEY: &str = "sk-test-batch-0123456789";

/// An HTTP reply: status (0 when the connection was closed without one) and body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One request on its own connection (closed for writing once sent, so the server
/// closes it after answering).
fn raw(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("transfer-encoding"))
    {
        head.push_str(&format!("content-length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    let mut text = String::from_utf8(all).expect("UTF-8");
    // Interim answers (`100 Continue`) come first.
    while text.starts_with("HTTP/1.1 1") {
        let end = text.find("\r\n\r\n").expect("an interim head") + 4;
        text.drain(..end);
    }
    if text.is_empty() {
        return Reply {
            status: 0,
            headers: Vec::new(),
            body: String::new(),
        };
    }
    let (head, rest) = text.split_once("\r\n\r\n").expect("a head");
    let mut lines = head.lines();
    let status = lines.next().unwrap().split_whitespace().nth(1).unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map_or(rest.len(), |(_, v)| v.parse().unwrap());
    Reply {
        status: status.parse().unwrap(),
        headers,
        body: rest[..len].to_string(),
    }
}

/// A request with the key, and a JSON body if any.
fn call(srv: &BatchServer, method: &str, path: &str, body: Option<Value>) -> Reply {
    let auth = format!("Bearer {KEY}");
    let mut headers = vec![("authorization", auth.as_str())];
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    if !body.is_empty() {
        headers.push(("content-type", "application/json"));
    }
    raw(srv.port(), method, path, &headers, body.as_bytes())
}

/// A JSON answer with status 200.
fn get_ok(srv: &BatchServer, method: &str, path: &str, body: Option<Value>) -> Value {
    let r = call(srv, method, path, body);
    assert_eq!(r.status, 200, "{method} {path}: {}", r.body);
    r.json()
}

const BOUNDARY: &str = "----spindle-boundary-7MA4YWxkTrZu0gW";

/// A multipart upload's body: `purpose` = `batch` and `file`.
fn multipart(filename: &str, content: &str) -> String {
    format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n\
         --{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n{content}\r\n--{BOUNDARY}--\r\n"
    )
}

/// Uploads a batch input file; its id.
fn upload(srv: &BatchServer, filename: &str, content: &str) -> String {
    let auth = format!("Bearer {KEY}");
    let ct = format!("multipart/form-data; boundary={BOUNDARY}");
    let r = raw(
        srv.port(),
        "POST",
        "/v1/files",
        &[("authorization", &auth), ("content-type", &ct)],
        multipart(filename, content).as_bytes(),
    );
    assert_eq!(r.status, 200, "upload: {}", r.body);
    let f = r.json();
    assert_eq!(f["object"], "file");
    assert_eq!(f["purpose"], "batch");
    assert_eq!(f["filename"], filename);
    assert_eq!(f["bytes"], content.len());
    assert!(f["created_at"].as_u64().unwrap() > 1_600_000_000);
    f["id"].as_str().unwrap().to_string()
}

/// A chat request line.
fn chat_line(id: &str, prompt: &str) -> String {
    json!({
        "custom_id": id,
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": prompt}]},
    })
    .to_string()
}

fn jsonl(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Creates a batch of this file; its object.
fn create(srv: &BatchServer, file: &str, endpoint: &str) -> Value {
    get_ok(
        srv,
        "POST",
        "/v1/batches",
        Some(json!({
            "input_file_id": file,
            "endpoint": endpoint,
            "completion_window": "24h",
            "metadata": {"run": "t1"},
        })),
    )
}

/// A file's lines as JSON.
fn file_lines(srv: &BatchServer, id: &Value) -> Vec<Value> {
    let id = id.as_str().expect("a file id");
    let r = call(srv, "GET", &format!("/v1/files/{id}/content"), None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/jsonl"));
    r.body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn custom_ids(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l["custom_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_batch_goes_through_its_statuses_to_shuffled_output_and_error_files() {
    let srv = BatchServer::start(|it: &Item| match it.custom_id.as_deref() {
        Some("c") => Outcome::error("server_error", "the model fell over"),
        Some("d") => Outcome::Status(400, json!({"error": {"message": "too long"}})),
        _ => default_outcome(it),
    });
    let ids = ["a", "b", "c", "d", "e", "f"];
    let lines: Vec<String> = ids
        .iter()
        .map(|i| chat_line(i, &format!("q-{i}")))
        .collect();
    let file = upload(&srv, "in.jsonl", &jsonl(&lines));
    assert_eq!(srv.uploads(), 1);

    let b = create(&srv, &file, "/v1/chat/completions");
    let id = b["id"].as_str().unwrap().to_string();
    assert_eq!(id, "batch_0");
    assert_eq!(b["object"], "batch");
    assert_eq!(b["status"], "validating");
    assert_eq!(b["endpoint"], "/v1/chat/completions");
    assert_eq!(b["input_file_id"], file.as_str());
    assert_eq!(b["completion_window"], "24h");
    assert_eq!(b["errors"], Value::Null);
    assert_eq!(b["output_file_id"], Value::Null);
    assert_eq!(b["error_file_id"], Value::Null);
    assert_eq!(b["metadata"], json!({"run": "t1"}));
    assert_eq!(
        b["request_counts"],
        json!({"total": 6, "completed": 0, "failed": 0})
    );

    let path = format!("/v1/batches/{id}");
    for want in ["in_progress", "finalizing"] {
        let b = get_ok(&srv, "GET", &path, None);
        assert_eq!(b["status"], want);
        assert_eq!(b["output_file_id"], Value::Null);
    }
    let b = get_ok(&srv, "GET", &path, None);
    assert_eq!(b["status"], "completed");
    assert!(b["completed_at"].is_u64());
    assert_eq!(
        b["request_counts"],
        json!({"total": 6, "completed": 4, "failed": 2})
    );

    // The output: every answered line (a 400 too), not in input order.
    let out = file_lines(&srv, &b["output_file_id"]);
    let got = custom_ids(&out);
    assert_ne!(got, ["a", "b", "d", "e", "f"]);
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(sorted, ["a", "b", "d", "e", "f"]);
    for l in &out {
        let cid = l["custom_id"].as_str().unwrap();
        assert!(l["id"].as_str().unwrap().starts_with("batch_req_"));
        assert_eq!(l["error"], Value::Null);
        let resp = &l["response"];
        assert!(resp["request_id"].is_string());
        if cid == "d" {
            assert_eq!(resp["status_code"], 400);
            assert_eq!(resp["body"]["error"]["message"], "too long");
        } else {
            assert_eq!(resp["status_code"], 200);
            assert_eq!(
                resp["body"]["choices"][0]["message"]["content"],
                format!("re: q-{cid}")
            );
            assert_eq!(resp["body"]["model"], "gpt-4o-mini");
        }
    }
    // The errors: the one that failed.
    let err = file_lines(&srv, &b["error_file_id"]);
    assert_eq!(err.len(), 1);
    assert_eq!(err[0]["custom_id"], "c");
    assert_eq!(err[0]["response"], Value::Null);
    assert_eq!(
        err[0]["error"],
        json!({"code": "server_error", "message": "the model fell over"})
    );

    // It stays completed, with the same files.
    let again = get_ok(&srv, "GET", &path, None);
    assert_eq!(again["status"], "completed");
    assert_eq!(again["output_file_id"], b["output_file_id"]);
    assert_eq!(srv.files(), 3);
    assert_eq!(
        get_ok(
            &srv,
            "GET",
            &format!("/v1/files/{}", b["error_file_id"].as_str().unwrap()),
            None
        )["purpose"],
        "batch_output"
    );

    let info = &srv.batches()[0];
    assert_eq!(info.id, "batch_0");
    assert_eq!(info.custom_ids, ids);
    assert_eq!(info.lines.len(), 6);
    assert_eq!(info.lines[2]["body"]["messages"][0]["content"], "q-c");
    assert_eq!(info.metadata, json!({"run": "t1"}));
    assert_eq!(info.status, "completed");
    assert_eq!(info.polls, 4);
    assert!(srv.live_calls().is_empty());
    let seen = srv.seen();
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].path, "/v1/files");
}

#[test]
fn statuses_shuffling_and_attempts_are_the_tests_to_choose() {
    let attempts: Arc<Mutex<Vec<(String, u32)>>> = Arc::default();
    let log = attempts.clone();
    let srv = BatchServer::start(move |it: &Item| {
        log.lock()
            .unwrap()
            .push((it.custom_id.clone().unwrap(), it.attempt));
        default_outcome(it)
    });
    srv.set_shuffle(false);
    srv.set_statuses(|i| {
        if i == 0 {
            vec!["in_progress".into(), "completed".into()]
        } else {
            vec!["in_progress".into(), "expired".into()]
        }
    });
    let line = |id: &str| {
        json!({"custom_id": id, "method": "POST", "url": "/v1/embeddings",
               "body": {"model": "text-embedding-3-small", "input": id}})
        .to_string()
    };
    let lines: Vec<String> = ["x", "y", "z"].iter().map(|i| line(i)).collect();
    let file = upload(&srv, "emb.jsonl", &jsonl(&lines));

    let b0 = create(&srv, &file, "/v1/embeddings");
    assert_eq!(b0["status"], "in_progress");
    let b0 = get_ok(&srv, "GET", "/v1/batches/batch_0", None);
    assert_eq!(b0["status"], "completed");
    let out = file_lines(&srv, &b0["output_file_id"]);
    assert_eq!(custom_ids(&out), ["x", "y", "z"], "unshuffled: input order");
    let emb = &out[0]["response"]["body"];
    assert_eq!(emb["object"], "list");
    assert_eq!(emb["data"][0]["embedding"], json!([0.5, 0.25]));
    assert_eq!(emb["model"], "text-embedding-3-small");
    assert_eq!(b0["error_file_id"], Value::Null);

    // The same lines again: their second attempt; this batch expires.
    let b1 = create(&srv, &file, "/v1/embeddings");
    assert_eq!(b1["id"], "batch_1");
    let b1 = get_ok(&srv, "GET", "/v1/batches/batch_1", None);
    assert_eq!(b1["status"], "expired");
    assert_eq!(b1["output_file_id"], Value::Null);
    let err = file_lines(&srv, &b1["error_file_id"]);
    assert_eq!(custom_ids(&err), ["x", "y", "z"]);
    assert!(err.iter().all(|e| e["error"]["code"] == "batch_expired"));
    assert_eq!(
        *attempts.lock().unwrap(),
        [
            ("x".to_string(), 0),
            ("y".to_string(), 0),
            ("z".to_string(), 0),
            ("x".to_string(), 1),
            ("y".to_string(), 1),
            ("z".to_string(), 1),
        ]
    );

    // A sequence that never ends: polls stay in progress.
    srv.set_statuses_all(&["validating", "in_progress"]);
    create(&srv, &file, "/v1/embeddings");
    for _ in 0..3 {
        let b = get_ok(&srv, "GET", "/v1/batches/batch_2", None);
        assert_eq!(b["status"], "in_progress");
    }
}

#[test]
fn a_shuffled_file_of_two_lines_is_never_in_input_order() {
    let srv = BatchServer::echo();
    srv.set_statuses_all(&["completed"]);
    for n in 2..8 {
        let lines: Vec<String> = (0..n).map(|i| chat_line(&format!("r{i}"), "q")).collect();
        let file = upload(&srv, "in.jsonl", &jsonl(&lines));
        let b = create(&srv, &file, "/v1/chat/completions");
        assert_eq!(b["status"], "completed");
        let got = custom_ids(&file_lines(&srv, &b["output_file_id"]));
        let input: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
        assert_ne!(got, input, "{n} lines");
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(sorted, input);
    }
}

#[test]
fn an_invalid_input_file_fails_the_batch_naming_its_lines() {
    let srv = BatchServer::echo();
    let content = [
        chat_line("a", "q"),
        String::new(),
        json!({"custom_id": "b", "method": "POST", "url": "/v1/embeddings",
               "body": {"model": "m"}})
        .to_string(),
        chat_line("a", "again"),
        "{not json".to_string(),
        json!({"custom_id": "c", "method": "POST", "url": "/v1/chat/completions",
               "body": {"messages": []}})
        .to_string(),
        json!({"custom_id": 7, "method": "GET", "url": "/v1/chat/completions",
               "body": {"model": "m"}})
        .to_string(),
    ];
    let file = upload(&srv, "bad.jsonl", &jsonl(&content));
    let b = create(&srv, &file, "/v1/chat/completions");
    assert_eq!(b["status"], "failed");
    assert!(b["failed_at"].is_u64());
    assert_eq!(b["errors"]["object"], "list");
    let errors = b["errors"]["data"].as_array().unwrap();
    let lines: Vec<u64> = errors.iter().map(|e| e["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [3, 4, 5, 6, 7, 7]);
    assert!(errors.iter().all(|e| e["code"] == "invalid_request"));
    let message = |i: usize| errors[i]["message"].as_str().unwrap();
    assert!(message(0).contains("/v1/embeddings"), "{}", message(0));
    assert!(message(1).contains("duplicate"), "{}", message(1));
    assert!(message(2).contains("not valid JSON"), "{}", message(2));
    assert!(message(3).contains("body.model"), "{}", message(3));
    assert!(message(4).contains("custom_id"), "{}", message(4));
    assert!(message(5).contains("method"), "{}", message(5));
    assert_eq!(
        b["request_counts"],
        json!({"total": 0, "completed": 0, "failed": 0})
    );
    // It stays failed, with no files.
    let again = get_ok(&srv, "GET", "/v1/batches/batch_0", None);
    assert_eq!(again["status"], "failed");
    assert_eq!(again["output_file_id"], Value::Null);
    assert_eq!(again["errors"], b["errors"]);
    assert_eq!(srv.files(), 1);

    // No such input file: failed too, on no line.
    let b = create(&srv, "file-99", "/v1/chat/completions");
    assert_eq!(b["status"], "failed");
    assert_eq!(b["errors"]["data"][0]["line"], Value::Null);
    // Bad requests are refused outright.
    let r = call(
        &srv,
        "POST",
        "/v1/batches",
        Some(json!({"input_file_id": file, "endpoint": "/v1/nothing", "completion_window": "24h"})),
    );
    assert_eq!(r.status, 400);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("endpoint")
    );
    assert_eq!(srv.batches().len(), 2);
}

#[test]
fn batches_are_listed_newest_first_a_page_at_a_time() {
    let srv = BatchServer::echo();
    let file = upload(&srv, "in.jsonl", &jsonl(&[chat_line("a", "q")]));
    for _ in 0..5 {
        create(&srv, &file, "/v1/chat/completions");
    }
    let ids = |page: &Value| -> Vec<String> {
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = get_ok(&srv, "GET", "/v1/batches", None);
    assert_eq!(all["object"], "list");
    assert_eq!(
        ids(&all),
        ["batch_4", "batch_3", "batch_2", "batch_1", "batch_0"]
    );
    assert_eq!(all["has_more"], false);
    assert_eq!(all["data"][0]["object"], "batch");

    let p1 = get_ok(&srv, "GET", "/v1/batches?limit=2", None);
    assert_eq!(ids(&p1), ["batch_4", "batch_3"]);
    assert_eq!(p1["first_id"], "batch_4");
    assert_eq!(p1["last_id"], "batch_3");
    assert_eq!(p1["has_more"], true);
    let p2 = get_ok(&srv, "GET", "/v1/batches?limit=2&after=batch_3", None);
    assert_eq!(ids(&p2), ["batch_2", "batch_1"]);
    assert_eq!(p2["has_more"], true);
    let p3 = get_ok(&srv, "GET", "/v1/batches?after=batch_1&limit=2", None);
    assert_eq!(ids(&p3), ["batch_0"]);
    assert_eq!(p3["has_more"], false);
    let p4 = get_ok(&srv, "GET", "/v1/batches?limit=2&after=batch_0", None);
    assert_eq!(ids(&p4), Vec::<String>::new());
    assert_eq!(p4["first_id"], Value::Null);
    assert_eq!(p4["has_more"], false);

    assert_eq!(call(&srv, "GET", "/v1/batches?limit=101", None).status, 400);
    assert_eq!(
        call(&srv, "GET", "/v1/batches?after=batch_9", None).status,
        404
    );
    // Listing does not move a batch along.
    assert!(srv.batches().iter().all(|b| b.status == "validating"));
}

#[test]
fn a_cancelled_batch_reports_its_unfinished_items() {
    let srv = BatchServer::echo();
    let lines: Vec<String> = ["p", "q", "r"].iter().map(|i| chat_line(i, "x")).collect();
    let file = upload(&srv, "in.jsonl", &jsonl(&lines));
    create(&srv, &file, "/v1/chat/completions");
    assert_eq!(
        get_ok(&srv, "GET", "/v1/batches/batch_0", None)["status"],
        "in_progress"
    );
    let c = get_ok(&srv, "POST", "/v1/batches/batch_0/cancel", None);
    assert_eq!(c["status"], "cancelling");
    assert!(c["cancelling_at"].is_u64());
    assert_eq!(c["output_file_id"], Value::Null);
    let b = get_ok(&srv, "GET", "/v1/batches/batch_0", None);
    assert_eq!(b["status"], "cancelled");
    assert_eq!(b["output_file_id"], Value::Null);
    let err = file_lines(&srv, &b["error_file_id"]);
    let mut got = custom_ids(&err);
    got.sort();
    assert_eq!(got, ["p", "q", "r"]);
    assert!(err.iter().all(|e| e["error"]["code"] == "batch_cancelled"));
    assert_eq!(
        b["request_counts"],
        json!({"total": 3, "completed": 0, "failed": 3})
    );
    assert_eq!(
        get_ok(&srv, "GET", "/v1/batches/batch_0", None)["status"],
        "cancelled"
    );
    // A finished batch cannot be cancelled.
    let r = call(&srv, "POST", "/v1/batches/batch_0/cancel", None);
    assert_eq!(r.status, 409);
    assert!(r.json()["error"]["message"].is_string());
    assert_eq!(
        call(&srv, "POST", "/v1/batches/batch_7/cancel", None).status,
        404
    );

    // A responder may say an item was done before the cancel.
    srv.set_responder(|it: &Item| {
        if it.custom_id.as_deref() == Some("q") {
            let mut done = it.clone();
            done.batch_status = None;
            default_outcome(&done)
        } else {
            default_outcome(it)
        }
    });
    create(&srv, &file, "/v1/chat/completions");
    get_ok(&srv, "POST", "/v1/batches/batch_1/cancel", None);
    let b = get_ok(&srv, "GET", "/v1/batches/batch_1", None);
    assert_eq!(b["status"], "cancelled");
    assert_eq!(custom_ids(&file_lines(&srv, &b["output_file_id"])), ["q"]);
    assert_eq!(file_lines(&srv, &b["error_file_id"]).len(), 2);
    assert_eq!(b["request_counts"]["completed"], 1);
}

#[test]
fn requests_without_a_bearer_key_or_with_unknown_ids_are_refused() {
    let srv = BatchServer::echo();
    for auth in [None, Some("Basic abc"), Some("Bearer "), Some(KEY)] {
        let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("authorization", *a)).collect();
        let r = raw(srv.port(), "GET", "/v1/batches", &headers, b"");
        assert_eq!(r.status, 401, "{auth:?}");
        let e = r.json();
        assert_eq!(e["error"]["type"], "invalid_request_error");
        assert!(e["error"]["message"].as_str().unwrap().contains("API key"));
    }
    for path in [
        "/v1/batches/batch_0",
        "/v1/files/file-1",
        "/v1/files/file-1/content",
        "/v1/nothing",
    ] {
        let r = call(&srv, "GET", path, None);
        assert_eq!(r.status, 404, "{path}");
        assert!(r.json()["error"]["message"].is_string(), "{path}");
    }
    assert_eq!(srv.seen().len(), 8);
    assert!(srv.batches().is_empty());
}

#[test]
fn live_calls_are_answered_by_the_same_responder() {
    let srv = BatchServer::start(|it: &Item| match it.prompt().as_str() {
        "boom" => Outcome::error("server_error", "it broke"),
        "slow down" => Outcome::Status(429, json!({"error": {"message": "rate limited"}})),
        "vanish" => Outcome::Missing,
        _ => default_outcome(it),
    });
    let chat = |prompt: &str| {
        call(
            &srv,
            "POST",
            "/v1/chat/completions",
            Some(json!({"model": "m", "messages": [{"role": "user", "content": prompt}]})),
        )
    };
    let r = chat("hi");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["choices"][0]["message"]["content"], "re: hi");
    assert_eq!(r.json()["usage"]["prompt_tokens"], 7);
    let r = chat("boom");
    assert_eq!(r.status, 500);
    assert_eq!(r.json()["error"]["code"], "server_error");
    assert_eq!(chat("slow down").status, 429);
    assert_eq!(chat("vanish").status, 0, "closed without an answer");
    let r = get_ok(
        &srv,
        "POST",
        "/v1/embeddings",
        Some(json!({"model": "e", "input": ["one", "two"]})),
    );
    assert_eq!(r["data"].as_array().unwrap().len(), 2);
    assert_eq!(r["data"][1]["index"], 1);
    assert_eq!(r["usage"]["total_tokens"], 3);

    let calls = srv.live_calls();
    assert_eq!(calls.len(), 5);
    assert!(
        calls
            .iter()
            .all(|c| c.custom_id.is_none() && c.attempt == 0)
    );
    assert_eq!(calls[0].url, "/v1/chat/completions");
    assert_eq!(calls[4].url, "/v1/embeddings");
    assert_eq!(calls[1].prompt(), "boom");
}

#[test]
fn an_upload_in_chunks_after_expect_continue_is_read_whole() {
    let srv = BatchServer::echo();
    let content = jsonl(&[chat_line("a", "q"), chat_line("b", "q")]);
    let body = multipart("chunked.jsonl", &content);
    let (one, two) = body.split_at(body.len() / 2);
    let chunked = format!(
        "{:x}\r\n{one}\r\n{:x};ext=1\r\n{two}\r\n0\r\nx-trailer: t\r\n\r\n",
        one.len(),
        two.len()
    );
    let auth = format!("Bearer {KEY}");
    let ct = format!("multipart/form-data; boundary=\"{BOUNDARY}\"");
    let r = raw(
        srv.port(),
        "POST",
        "/v1/files",
        &[
            ("authorization", &auth),
            ("content-type", &ct),
            ("transfer-encoding", "chunked"),
            ("expect", "100-continue"),
        ],
        chunked.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_string();
    assert_eq!(srv.file_content(&id).as_deref(), Some(content.as_str()));
    // Not multipart, or no file: refused.
    let r = call(&srv, "POST", "/v1/files", Some(json!({"purpose": "batch"})));
    assert_eq!(r.status, 400);
    // Deleting a file.
    let d = get_ok(&srv, "DELETE", &format!("/v1/files/{id}"), None);
    assert_eq!(d["deleted"], true);
    assert_eq!(srv.files(), 0);
}

/// curl's multipart body (another client's encoding) is read as well; skipped when
/// curl is not installed.
#[test]
fn an_upload_by_curl_is_read() {
    let srv = BatchServer::echo();
    let dir = tempfile::tempdir().unwrap();
    let content = jsonl(&[chat_line("a", "q\"uoted"), chat_line("b", "ü")]);
    let path = dir.path().join("in put.jsonl");
    std::fs::write(&path, &content).unwrap();
    let out = std::process::Command::new("curl")
        .args(["-sS", "--max-time", "10", "-H"])
        .arg(format!("Authorization: Bearer {KEY}"))
        .args(["-F", "purpose=batch", "-F"])
        .arg(format!("file=@{}", path.display()))
        .arg(srv.url("/v1/files"))
        .output();
    let Ok(out) = out else {
        eprintln!("curl is not installed: skipped");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(f["filename"], "in put.jsonl");
    let id = f["id"].as_str().unwrap();
    assert_eq!(srv.file_content(id).as_deref(), Some(content.as_str()));
}
