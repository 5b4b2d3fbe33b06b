//! A client of the OpenAI Batch API (`/v1/files`, `/v1/batches`): upload a JSONL
//! file of requests, create a batch of it, poll it, find it again by its metadata, and
//! download its output and error files. Requests go through the network executor's
//! client ([`crate::external::net::block_on`]); transient failures (429, 5xx, a lost
//! connection) are tried again a few times; every message has the key masked out.

use crate::external::net::openai::provider_message;
use crate::external::net::settings::{self, mask};
use serde_json::{Value, json};
use std::time::Duration;

/// How many times a request is tried when the server or the network fails for now.
const ATTEMPTS: u32 = 4;

/// How far back the list of batches is searched for a batch by its tag (pages of 100).
const SEARCH_PAGES: u32 = 20;

/// The metadata key the run's tag goes under.
pub const TAG_KEY: &str = "spindle_run";

/// The metadata key naming the endpoint a batch of the run is for.
pub const ENDPOINT_KEY: &str = "spindle_endpoint";

/// Where and as whom the client talks.
#[derive(Debug, Clone)]
pub struct Client {
    /// The base URL (`/v1` included).
    pub base: String,
    /// The API key, if any.
    pub key: Option<String>,
}

/// A batch as the server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchInfo {
    /// Its id.
    pub id: String,
    /// `validating`, `failed`, `in_progress`, `finalizing`, `completed`, `expired`,
    /// `cancelling` or `cancelled`.
    pub status: String,
    /// Its endpoint (`/v1/chat/completions`).
    pub endpoint: String,
    /// The file of its answered requests, once there is one.
    pub output_file_id: Option<String>,
    /// The file of its failed requests, once there is one.
    pub error_file_id: Option<String>,
    /// Validation errors of the whole batch: (line, message).
    pub errors: Vec<(Option<u64>, String)>,
    /// Requests: total, completed, failed.
    pub counts: (u64, u64, u64),
    /// Its metadata.
    pub metadata: Value,
}

impl BatchInfo {
    /// Whether the batch will not change any more.
    pub fn is_over(&self) -> bool {
        matches!(
            self.status.as_str(),
            "completed" | "expired" | "cancelled" | "failed"
        )
    }

    fn from_json(v: &Value) -> Result<BatchInfo, String> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let id = s("id").ok_or("a batch without an `id`")?;
        let errors = v
            .get("errors")
            .and_then(|e| e.get("data"))
            .and_then(Value::as_array)
            .map(|es| {
                es.iter()
                    .map(|e| {
                        let line = e.get("line").and_then(Value::as_u64);
                        let code = e.get("code").and_then(Value::as_str).unwrap_or("");
                        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
                        (
                            line,
                            format!("{code}: {msg}")
                                .trim_start_matches(": ")
                                .to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let count = |k: &str| {
            v.get("request_counts")
                .and_then(|c| c.get(k))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        Ok(BatchInfo {
            id,
            status: s("status").unwrap_or_default(),
            endpoint: s("endpoint").unwrap_or_default(),
            output_file_id: s("output_file_id"),
            error_file_id: s("error_file_id"),
            errors,
            counts: (count("total"), count("completed"), count("failed")),
            metadata: v.get("metadata").cloned().unwrap_or(Value::Null),
        })
    }

    /// The run tag in its metadata.
    pub fn tag(&self) -> Option<&str> {
        self.metadata.get(TAG_KEY).and_then(Value::as_str)
    }
}

/// An answer to one request.
struct Got {
    status: u16,
    body: String,
}

impl Client {
    /// The client of the configured model server (`--llm-base-url`,
    /// `OPENAI_BASE_URL`, `OPENAI_API_KEY`).
    pub fn configured() -> Client {
        let s = settings::current();
        Client {
            base: s.base_url,
            key: s.api_key,
        }
    }

    fn masked(&self, text: &str) -> String {
        mask(text, self.key.as_deref())
    }

    /// Sends one request (tried again on a transient failure) and returns the body of
    /// a 2xx answer.
    fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<(String, String)>,
    ) -> Result<String, String> {
        let url = format!("{}/{}", self.base.trim_end_matches('/'), path);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let (url2, key, method2, body2) =
                (url.clone(), self.key.clone(), method.clone(), body.clone());
            let got = crate::external::net::block_on(move |client| async move {
                let mut rq = client
                    .request(method2, &url2)
                    .timeout(Duration::from_secs(300));
                if let Some(k) = key {
                    rq = rq.bearer_auth(k);
                }
                if let Some((content_type, b)) = body2 {
                    rq = rq.header("content-type", content_type).body(b);
                }
                let r = rq
                    .send()
                    .await
                    .map_err(|e| crate::external::net::openai::network_message(&e, &url2))?;
                let status = r.status().as_u16();
                let body = r.text().await.map_err(|e| e.to_string())?;
                Ok::<Got, String>(Got { status, body })
            })?;
            let transient = match &got {
                Ok(g) if (200..300).contains(&g.status) => {
                    return Ok(got.map(|g| g.body).unwrap_or_default());
                }
                Ok(g) => matches!(g.status, 408 | 409 | 429) || g.status >= 500,
                Err(_) => true,
            };
            if !transient || attempt >= ATTEMPTS {
                return Err(self.masked(&match got {
                    Ok(g) => format!(
                        "{} {url}: status {}: {}",
                        method,
                        g.status,
                        provider_message(&g.body)
                    ),
                    Err(e) => format!("{method} {url}: {e}"),
                }));
            }
            std::thread::sleep(Duration::from_millis(500 << (attempt - 1)));
        }
    }

    fn json(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let body = body.map(|b| ("application/json".to_string(), b.to_string()));
        let text = self.send(method, path, body)?;
        serde_json::from_str(&text).map_err(|e| format!("{path}: the answer is not JSON ({e})"))
    }

    /// Uploads a JSONL file of requests for a batch; its file id.
    pub fn upload(&self, name: &str, jsonl: &str) -> Result<String, String> {
        let boundary = format!(
            "spindle-{}",
            super::hex(&blake3::hash(jsonl.as_bytes()).as_bytes()[..12])
        );
        let mut body = String::with_capacity(jsonl.len() + 400);
        body.push_str(&format!(
            "--{boundary}\r\ncontent-disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n"
        ));
        body.push_str(&format!(
            "--{boundary}\r\ncontent-disposition: form-data; name=\"file\"; filename=\"{name}\"\r\ncontent-type: application/jsonl\r\n\r\n"
        ));
        body.push_str(jsonl);
        body.push_str(&format!("\r\n--{boundary}--\r\n"));
        let text = self.send(
            reqwest::Method::POST,
            "files",
            Some((format!("multipart/form-data; boundary={boundary}"), body)),
        )?;
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| format!("files: the answer is not JSON ({e})"))?;
        v.get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| "files: the answer has no `id`".to_string())
    }

    /// Creates a batch of an uploaded file, tagged with `metadata`.
    pub fn create(
        &self,
        file_id: &str,
        endpoint: &str,
        metadata: Value,
    ) -> Result<BatchInfo, String> {
        let v = self.json(
            reqwest::Method::POST,
            "batches",
            Some(json!({
                "input_file_id": file_id,
                "endpoint": endpoint,
                "completion_window": "24h",
                "metadata": metadata,
            })),
        )?;
        BatchInfo::from_json(&v)
    }

    /// A batch, as it is now.
    pub fn get(&self, id: &str) -> Result<BatchInfo, String> {
        let v = self.json(reqwest::Method::GET, &format!("batches/{id}"), None)?;
        BatchInfo::from_json(&v)
    }

    /// The batch tagged `tag` for `endpoint`, if the server has one (searched among
    /// its most recent batches).
    pub fn find(&self, tag: &str, endpoint: &str) -> Result<Option<BatchInfo>, String> {
        let mut after: Option<String> = None;
        for _ in 0..SEARCH_PAGES {
            let path = match &after {
                Some(a) => format!("batches?limit=100&after={a}"),
                None => "batches?limit=100".to_string(),
            };
            let v = self.json(reqwest::Method::GET, &path, None)?;
            let data = v
                .get("data")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for b in &data {
                let info = BatchInfo::from_json(b)?;
                if info.tag() == Some(tag) && info.endpoint == endpoint {
                    return Ok(Some(info));
                }
            }
            let more = v.get("has_more").and_then(Value::as_bool).unwrap_or(false);
            after = data
                .last()
                .and_then(|b| b.get("id"))
                .and_then(Value::as_str)
                .map(str::to_string);
            if !more || after.is_none() {
                break;
            }
        }
        Ok(None)
    }

    /// A file's content.
    pub fn content(&self, file_id: &str) -> Result<String, String> {
        self.send(
            reqwest::Method::GET,
            &format!("files/{file_id}/content"),
            None,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_read_with_its_validation_errors() {
        let v = json!({
            "id": "batch_1", "status": "failed", "endpoint": "/v1/chat/completions",
            "output_file_id": null, "error_file_id": null,
            "errors": {"object": "list", "data": [
                {"code": "invalid_request", "message": "missing model", "line": 3}
            ]},
            "request_counts": {"total": 4, "completed": 0, "failed": 0},
            "metadata": {"spindle_run": "abc"}
        });
        let b = BatchInfo::from_json(&v).unwrap();
        assert!(b.is_over());
        assert_eq!(
            b.errors,
            vec![(Some(3), "invalid_request: missing model".to_string())]
        );
        assert_eq!(b.tag(), Some("abc"));
        assert_eq!(b.output_file_id, None);
        assert_eq!(b.counts, (4, 0, 0));
        assert!(BatchInfo::from_json(&json!({"status": "x"})).is_err());
    }
}
