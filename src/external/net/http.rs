//! `httpGet` and `httpRequest`: one HTTP request, performed on the network thread.

use crate::external::request::{CallError, CallErrorKind, HttpRequest, Reply};

/// Performs `h`: for `httpGet` ([`HttpRequest::check_status`]) the body, or a failure
/// naming the URL and the status; for `httpRequest` the status, headers and body
/// whatever the status.
pub async fn perform(client: &reqwest::Client, h: &HttpRequest) -> Result<Reply, CallError> {
    let method = reqwest::Method::from_bytes(h.method.as_bytes())
        .map_err(|_| CallError::bad_argument(format!("`{}` is not an HTTP method", h.method)))?;
    let url = reqwest::Url::parse(&h.url)
        .map_err(|e| CallError::bad_argument(format!("`{}` is not a URL ({e})", h.url)))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(CallError::bad_argument(format!(
            "`{}` is not an http or https URL",
            h.url
        )));
    }
    let mut rb = client.request(method, url);
    for (k, v) in &h.headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| CallError::bad_argument(format!("`{k}` is not a header name")))?;
        let value = reqwest::header::HeaderValue::from_str(v).map_err(|_| {
            CallError::bad_argument(format!("the value of header `{k}` cannot be sent"))
        })?;
        rb = rb.header(name, value);
    }
    if !h.body.is_empty() {
        rb = rb.body(h.body.clone());
    }
    let what = format!("{} {}", h.method, h.url);
    let resp = rb.send().await.map_err(|e| {
        CallError::new(
            CallErrorKind::Network,
            format!("`{what}`: {}", super::openai::network_message(&e, &h.url)),
        )
    })?;
    let status = resp.status();
    let headers: Vec<(String, String)> = resp
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    // The body counts against `--max-memory` as it arrives: past the limit, the
    // response is dropped (its connection closed) without reading the rest.
    let mut held = crate::external::budget::Reservation::new();
    let over = || crate::external::budget::out_of_memory(&format!("the response body of `{what}`"));
    let mut resp = resp;
    let mut bytes: Vec<u8> = Vec::new();
    if let Some(n) = resp.content_length() {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if !held.grow(n) {
            return Err(over());
        }
        bytes.try_reserve_exact(n).map_err(|_| over())?;
    }
    loop {
        let chunk = resp.chunk().await.map_err(|e| {
            CallError::new(
                CallErrorKind::Network,
                format!("`{what}`: {}", super::openai::network_message(&e, &h.url)),
            )
        })?;
        let Some(chunk) = chunk else { break };
        let want = bytes.len() + chunk.len();
        if want > held.bytes() && !held.grow(want - held.bytes()) {
            return Err(over());
        }
        bytes.extend_from_slice(&chunk);
    }
    let body = crate::external::budget::into_text(bytes);
    if h.check_status {
        if !status.is_success() {
            return Err(CallError::new(
                CallErrorKind::Status(status.as_u16()),
                format!(
                    "`{what}` answered with status {}{}",
                    status.as_u16(),
                    status
                        .canonical_reason()
                        .map(|r| format!(" {r}"))
                        .unwrap_or_default()
                ),
            ));
        }
        return Ok(Reply::Text(body));
    }
    Ok(Reply::Http {
        status: status.as_u16() as i64,
        headers,
        body,
    })
}
