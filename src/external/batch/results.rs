//! A finished batch's output and error files, read back into replies: each line is
//! matched to its call by `custom_id` (the files' order is not the input's), and a
//! reply becomes an ordinary record of the result store, as if the call had been made
//! live. A streamed call (`llmStream`) was asked for whole: its reply is kept as a
//! stream of one chunk.

use super::pending::CallNote;
use crate::external::net::openai::{parse_chat, parse_embedding};
use crate::external::request::Reply;
use crate::external::store::recording::{self, Facts};
use crate::external::store::{Batch, STREAMS_DIR};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// What a batch said of one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Its reply.
    Reply(Reply),
    /// Why it has none (a status other than 200, an error, expiry).
    Failed(String),
}

/// Reads an output or error file's lines: (custom id, outcome), for the calls of
/// `calls` (other custom ids are not this run's and are left out). A line that cannot
/// be read is an error naming its number.
pub fn read(
    text: &str,
    calls: &HashMap<String, CallNote>,
) -> Result<Vec<(String, Outcome)>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {} of a batch's results: {why}", i + 1);
        let v: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        let id = v
            .get("custom_id")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("no `custom_id`"))?;
        let Some(note) = calls.get(id) else {
            continue;
        };
        out.push((id.to_string(), outcome(&v, note)));
    }
    Ok(out)
}

fn outcome(v: &Value, note: &CallNote) -> Outcome {
    if let Some(e) = v.get("error").filter(|e| !e.is_null()) {
        let code = e.get("code").and_then(Value::as_str).unwrap_or("error");
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
        return Outcome::Failed(format!("{code}: {msg}").trim_end_matches(": ").to_string());
    }
    let Some(r) = v.get("response").filter(|r| !r.is_null()) else {
        return Outcome::Failed("no response".into());
    };
    let status = r.get("status_code").and_then(Value::as_u64).unwrap_or(0);
    let body = r.get("body").cloned().unwrap_or(Value::Null);
    if status != 200 {
        let msg = body
            .get("error")
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("");
        return Outcome::Failed(
            format!("status {status}: {msg}")
                .trim_end_matches(": ")
                .to_string(),
        );
    }
    let text = body.to_string();
    let parsed = if note.endpoint.ends_with("/embeddings") {
        parse_embedding(&text)
    } else {
        parse_chat(&text)
    };
    match parsed {
        Ok(r) => Outcome::Reply(r),
        Err(why) => Outcome::Failed(why),
    }
}

/// Adds the record of a reply to `batch`: the record a live call would have made.
/// A streamed call's reply is written as a spool of one chunk in the store `dir`.
pub fn record(
    dir: &Path,
    note: &CallNote,
    key: &[u8; 32],
    reply: Reply,
    batch: &mut Batch,
) -> Result<(), String> {
    let reply = match (note.external.as_str(), reply) {
        (
            "llmStream",
            Reply::Llm {
                text,
                tokens_in,
                tokens_out,
                ..
            },
        ) => {
            let folder = dir.join(STREAMS_DIR);
            std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
            let spool = folder.join(format!("batch-{}.jsonl", note.custom_id));
            let mut f =
                std::fs::File::create(&spool).map_err(|e| format!("{}: {e}", spool.display()))?;
            let items = u64::from(!text.is_empty());
            if items == 1 {
                let line = serde_json::to_string(&text).map_err(|e| e.to_string())?;
                writeln!(f, "{line}").map_err(|e| e.to_string())?;
            }
            f.sync_all().map_err(|e| e.to_string())?;
            Reply::Stream {
                spool: spool.display().to_string(),
                items,
                tokens_in,
                tokens_out,
            }
        }
        (_, r) => r,
    };
    let facts = Facts {
        external: &note.external,
        reply: &reply,
        took: Duration::ZERO,
        place: &note.place,
        shown: &note.shown,
    };
    let made = recording::plain(key, &facts);
    batch.records.push((made.key, *key, made.record));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(id: &str, external: &str, endpoint: &str) -> CallNote {
        CallNote {
            custom_id: id.into(),
            external: external.into(),
            place: "wf.sp:1:1".into(),
            shown: "llm m \"q\"".into(),
            model: "m".into(),
            endpoint: endpoint.into(),
            estimated_tokens: 4,
        }
    }

    #[test]
    fn lines_are_matched_by_custom_id_whatever_their_order() {
        let calls: HashMap<String, CallNote> = [
            ("a".to_string(), note("a", "llm", "/v1/chat/completions")),
            ("b".to_string(), note("b", "embed", "/v1/embeddings")),
            ("c".to_string(), note("c", "llm", "/v1/chat/completions")),
        ]
        .into();
        let text = [
            r#"{"id":"r2","custom_id":"b","response":{"status_code":200,"body":{"data":[{"embedding":[0.5]}],"usage":{"prompt_tokens":2}}},"error":null}"#,
            r#"{"id":"r9","custom_id":"zz","response":{"status_code":200,"body":{}},"error":null}"#,
            r#"{"id":"r1","custom_id":"a","response":{"status_code":200,"body":{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}},"error":null}"#,
            r#"{"id":"r3","custom_id":"c","response":{"status_code":429,"body":{"error":{"message":"slow down"}}},"error":null}"#,
            "",
        ]
        .join("\n");
        let got = read(&text, &calls).unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].0, "b");
        assert!(matches!(
            &got[0].1,
            Outcome::Reply(Reply::Embedding { tokens_in: 2, .. })
        ));
        assert_eq!(
            got[1].1,
            Outcome::Reply(Reply::Llm {
                text: "hi".into(),
                finish: "stop".into(),
                tokens_in: 3,
                tokens_out: 1
            })
        );
        assert_eq!(got[2].1, Outcome::Failed("status 429: slow down".into()));
        let err = r#"{"id":"e","custom_id":"a","response":null,"error":{"code":"batch_expired","message":"not done in time"}}"#;
        assert_eq!(
            read(err, &calls).unwrap()[0].1,
            Outcome::Failed("batch_expired: not done in time".into())
        );
        assert!(read("{not json", &calls).unwrap_err().contains("line 1"));
    }

    #[test]
    fn a_streamed_call_is_recorded_as_a_stream_of_one_chunk() {
        let d = tempfile::tempdir().unwrap();
        let n = note(&"ab".repeat(32), "llmStream", "/v1/chat/completions");
        let mut batch = Batch::default();
        let reply = Reply::Llm {
            text: "one\ntwo".into(),
            finish: "stop".into(),
            tokens_in: 1,
            tokens_out: 2,
        };
        record(d.path(), &n, &[7; 32], reply, &mut batch).unwrap();
        let (key, pre, rec) = &batch.records[0];
        assert_eq!((key, pre), (&[7; 32], &[7; 32]));
        let Some(Reply::Stream { spool, items, .. }) =
            rec.reply.as_ref().and_then(|r| r.to_reply())
        else {
            panic!("not a stream: {rec:?}")
        };
        assert_eq!(items, 1);
        assert_eq!(std::fs::read_to_string(spool).unwrap(), "\"one\\ntwo\"\n");
    }
}
