//! The Jupyter wire protocol (messaging protocol 5.3): the connection file, message
//! signing and the framing of one message into ZeroMQ frames.
//!
//! It exists apart from the sockets so that the parts a client can get wrong (a bad
//! connection file, a bad signature, missing frames, frames that are not JSON) are
//! plain functions that answer with an error, tested without a network. A message on
//! the wire is
//!
//! ```text
//! identities... | <IDS|MSG> | signature | header | parent_header | metadata | content | buffers...
//! ```
//!
//! where the signature is the hex HMAC of the four JSON frames under the connection
//! file's key (no signature when the key is empty). HMAC comes from `ring`, which the
//! project already has for TLS.

use ring::hmac;
use serde_json::{Map, Value, json};
use std::fmt;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The frame between the routing identities and the message.
pub const DELIMITER: &[u8] = b"<IDS|MSG>";

/// The version of the messaging protocol this kernel speaks.
pub const PROTOCOL_VERSION: &str = "5.3";

/// Why a message or a connection file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WireError {}

/// What a connection file says: where to listen and how to sign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionInfo {
    /// `tcp` (the only transport this kernel offers).
    pub transport: String,
    /// The address to bind.
    pub ip: String,
    /// The shell channel's port (requests and replies).
    pub shell_port: u16,
    /// The IOPub channel's port (outputs and status, published).
    pub iopub_port: u16,
    /// The stdin channel's port (`input_request` when a cell reads standard input).
    pub stdin_port: u16,
    /// The control channel's port (interrupt, shutdown).
    pub control_port: u16,
    /// The heartbeat's port (echoed).
    pub hb_port: u16,
    /// The signing key (empty: messages are not signed).
    pub key: String,
    /// The signing scheme, `hmac-sha256` by default.
    pub signature_scheme: String,
}

impl ConnectionInfo {
    /// Reads and checks a connection file.
    pub fn from_file(path: &Path) -> Result<ConnectionInfo, WireError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            WireError(format!(
                "cannot read the connection file {}: {e}",
                path.display()
            ))
        })?;
        ConnectionInfo::parse(&text).map_err(|e| {
            WireError(format!(
                "the connection file {} is not usable: {e}",
                path.display()
            ))
        })
    }

    /// Parses the text of a connection file.
    pub fn parse(text: &str) -> Result<ConnectionInfo, WireError> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| WireError(format!("it is not JSON: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| WireError("it is not a JSON object".into()))?;
        let port = |name: &str| -> Result<u16, WireError> {
            obj.get(name)
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok())
                .ok_or_else(|| WireError(format!("`{name}` is missing or not a port number")))
        };
        let text_or = |name: &str, default: &str| -> Result<String, WireError> {
            match obj.get(name) {
                None | Some(Value::Null) => Ok(default.to_string()),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(_) => Err(WireError(format!("`{name}` is not a string"))),
            }
        };
        let info = ConnectionInfo {
            transport: text_or("transport", "tcp")?,
            ip: text_or("ip", "127.0.0.1")?,
            shell_port: port("shell_port")?,
            iopub_port: port("iopub_port")?,
            stdin_port: port("stdin_port")?,
            control_port: port("control_port")?,
            hb_port: port("hb_port")?,
            key: text_or("key", "")?,
            signature_scheme: text_or("signature_scheme", "hmac-sha256")?,
        };
        if info.transport != "tcp" {
            return Err(WireError(format!(
                "transport `{}` is not supported (only `tcp`)",
                info.transport
            )));
        }
        Signer::new(&info.signature_scheme, &info.key)?;
        Ok(info)
    }

    /// The ZeroMQ endpoint of a port (`tcp://IP:PORT`).
    pub fn endpoint(&self, port: u16) -> String {
        if self.ip.contains(':') {
            format!("{}://[{}]:{port}", self.transport, self.ip)
        } else {
            format!("{}://{}:{port}", self.transport, self.ip)
        }
    }
}

/// Signs and checks messages with the connection's key.
#[derive(Clone)]
pub struct Signer {
    /// `None` when the key is empty: nothing is signed or checked.
    key: Option<hmac::Key>,
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.key.is_some() {
            "Signer(keyed)"
        } else {
            "Signer(none)"
        })
    }
}

impl Signer {
    /// A signer for `scheme` (`hmac-sha256`, `hmac-sha384`, `hmac-sha512`,
    /// `hmac-sha1`) and `key`.
    pub fn new(scheme: &str, key: &str) -> Result<Signer, WireError> {
        if key.is_empty() {
            return Ok(Signer { key: None });
        }
        let alg = match scheme {
            "hmac-sha256" | "" => hmac::HMAC_SHA256,
            "hmac-sha384" => hmac::HMAC_SHA384,
            "hmac-sha512" => hmac::HMAC_SHA512,
            "hmac-sha1" => hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY,
            other => {
                return Err(WireError(format!(
                    "signature scheme `{other}` is not supported (hmac-sha256, hmac-sha384, \
                     hmac-sha512, hmac-sha1 are)"
                )));
            }
        };
        Ok(Signer {
            key: Some(hmac::Key::new(alg, key.as_bytes())),
        })
    }

    /// The hex signature of the four JSON frames (empty when there is no key).
    pub fn sign(&self, parts: &[&[u8]]) -> String {
        let Some(key) = &self.key else {
            return String::new();
        };
        let mut ctx = hmac::Context::with_key(key);
        for p in parts {
            ctx.update(p);
        }
        hex(ctx.sign().as_ref())
    }

    /// Whether `signature` (hex) is right for the four JSON frames; always true
    /// without a key. The comparison takes the same time wherever they differ.
    pub fn verify(&self, parts: &[&[u8]], signature: &[u8]) -> bool {
        let Some(key) = &self.key else {
            return true;
        };
        let Some(tag) = unhex(signature) else {
            return false;
        };
        let mut data = Vec::new();
        for p in parts {
            data.extend_from_slice(p);
        }
        hmac::verify(key, &data, &tag).is_ok()
    }
}

/// Lowercase hex of bytes.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Bytes of hex text, or `None` when it is not hex.
fn unhex(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    text.chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// One Jupyter message with its routing identities.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The frames before the delimiter (the sender's identity on a ROUTER socket;
    /// the topic on IOPub).
    pub identities: Vec<Vec<u8>>,
    /// `msg_id`, `session`, `username`, `date`, `msg_type`, `version`.
    pub header: Value,
    /// The header of the request this message answers (`{}` for none).
    pub parent_header: Value,
    /// Free metadata.
    pub metadata: Value,
    /// The message's content, by type.
    pub content: Value,
    /// The content as it is to be sent, when the order of its keys matters: a value's
    /// JSON form keeps its record's fields in the order `spindle run --format json`
    /// writes them, which a `serde_json` map (sorted: the crate is built without
    /// `preserve_order`) would lose. [`Message::encode`] sends it in place of
    /// `content`, which holds the same document read back.
    pub content_text: Option<String>,
    /// Binary buffers after the content (kept, never used here).
    pub buffers: Vec<Vec<u8>>,
}

impl Message {
    /// The message's type (`execute_request`...), empty when the header has none.
    pub fn msg_type(&self) -> &str {
        self.header
            .get("msg_type")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// Reads a message from its frames, checking its signature.
    pub fn decode(frames: Vec<Vec<u8>>, signer: &Signer) -> Result<Message, WireError> {
        let Some(at) = frames.iter().position(|f| f.as_slice() == DELIMITER) else {
            return Err(WireError("no <IDS|MSG> delimiter".into()));
        };
        let mut rest = frames.into_iter();
        let identities: Vec<Vec<u8>> = rest.by_ref().take(at).collect();
        rest.next(); // the delimiter
        let parts: Vec<Vec<u8>> = rest.collect();
        if parts.len() < 5 {
            return Err(WireError(format!(
                "{} frames after the delimiter, 5 at least are needed",
                parts.len()
            )));
        }
        let json_parts: Vec<&[u8]> = parts[1..5].iter().map(Vec::as_slice).collect();
        if !signer.verify(&json_parts, &parts[0]) {
            return Err(WireError("the signature is wrong".into()));
        }
        let field = |i: usize, name: &str| -> Result<Value, WireError> {
            let v: Value = serde_json::from_slice(&parts[i])
                .map_err(|e| WireError(format!("the {name} is not JSON: {e}")))?;
            if v.is_object() {
                Ok(v)
            } else {
                Err(WireError(format!("the {name} is not a JSON object")))
            }
        };
        let header = field(1, "header")?;
        if header.get("msg_type").and_then(Value::as_str).is_none() {
            return Err(WireError("the header has no msg_type".into()));
        }
        Ok(Message {
            identities,
            header,
            parent_header: field(2, "parent header")?,
            metadata: field(3, "metadata")?,
            content: field(4, "content")?,
            content_text: None,
            buffers: parts.into_iter().skip(5).collect(),
        })
    }

    /// The message's frames, signed.
    pub fn encode(&self, signer: &Signer) -> Vec<Vec<u8>> {
        let json = [
            self.header.to_string().into_bytes(),
            self.parent_header.to_string().into_bytes(),
            self.metadata.to_string().into_bytes(),
            match &self.content_text {
                Some(text) => text.clone().into_bytes(),
                None => self.content.to_string().into_bytes(),
            },
        ];
        let refs: Vec<&[u8]> = json.iter().map(Vec::as_slice).collect();
        let signature = signer.sign(&refs);
        let mut frames = self.identities.clone();
        frames.push(DELIMITER.to_vec());
        frames.push(signature.into_bytes());
        frames.extend(json);
        frames.extend(self.buffers.iter().cloned());
        frames
    }

    /// A new message of `msg_type` from session `session`, answering `parent` (whose
    /// identities it is routed back to) when there is one.
    pub fn new(msg_type: &str, session: &str, parent: Option<&Message>, content: Value) -> Message {
        let username = parent
            .and_then(|p| p.header.get("username"))
            .and_then(Value::as_str)
            .unwrap_or("spindle");
        Message {
            identities: parent.map(|p| p.identities.clone()).unwrap_or_default(),
            header: json!({
                "msg_id": new_id(),
                "session": session,
                "username": username,
                "date": now_iso8601(),
                "msg_type": msg_type,
                "version": PROTOCOL_VERSION,
            }),
            parent_header: parent
                .map(|p| p.header.clone())
                .unwrap_or_else(|| Value::Object(Map::new())),
            metadata: Value::Object(Map::new()),
            content,
            content_text: None,
            buffers: Vec::new(),
        }
    }
}

/// A fresh random message id (32 hex digits).
pub fn new_id() -> String {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 16];
    if ring::rand::SystemRandom::new().fill(&mut bytes).is_err() {
        // No randomness: the time and a counter are unique enough for ids.
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        bytes[..8].copy_from_slice(&(t as u64).to_le_bytes());
        bytes[8..].copy_from_slice(&n.to_le_bytes());
    }
    hex(&bytes)
}

/// The time now as ISO 8601 in UTC with microseconds (`2026-12-07T18:45:00.123456Z`).
pub fn now_iso8601() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    iso8601(d.as_secs(), d.subsec_micros())
}

/// Seconds since 1970 (and microseconds) as ISO 8601 in UTC.
fn iso8601(secs: u64, micros: u32) -> String {
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let (year, month, day) = crate::external::trace::civil_date(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(signer: &Signer) -> Vec<Vec<u8>> {
        let header = br#"{"msg_id":"1","session":"s","username":"u","date":"","msg_type":"kernel_info_request","version":"5.3"}"#;
        let parts: [&[u8]; 4] = [header, b"{}", b"{}", b"{}"];
        let sig = signer.sign(&parts);
        let mut frames = vec![b"client-id".to_vec(), DELIMITER.to_vec(), sig.into_bytes()];
        frames.extend(parts.iter().map(|p| p.to_vec()));
        frames
    }

    #[test]
    fn hmac_sha256_matches_a_known_answer() {
        // RFC 4231, test case 2.
        let signer = Signer::new("hmac-sha256", "Jefe").unwrap();
        assert_eq!(
            signer.sign(&[b"what do ya want ", b"for nothing?"]),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert!(signer.verify(
            &[b"what do ya want for nothing?"],
            b"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ));
        assert!(!signer.verify(&[b"what do ya want for nothing!"], b"5bdc"));
        assert!(!signer.verify(&[b"x"], b"not hex"));
        // No key: nothing signed, everything accepted.
        let none = Signer::new("hmac-sha256", "").unwrap();
        assert_eq!(none.sign(&[b"x"]), "");
        assert!(none.verify(&[b"x"], b""));
        assert!(Signer::new("hmac-md5", "k").is_err());
    }

    #[test]
    fn a_signed_message_is_read_with_its_identities() {
        let signer = Signer::new("hmac-sha256", "secret").unwrap();
        let m = Message::decode(request(&signer), &signer).unwrap();
        assert_eq!(m.identities, vec![b"client-id".to_vec()]);
        assert_eq!(m.msg_type(), "kernel_info_request");
        assert_eq!(m.content, json!({}));
    }

    #[test]
    fn a_reply_is_framed_signed_and_reads_back() {
        let signer = Signer::new("hmac-sha256", "secret").unwrap();
        let req = Message::decode(request(&signer), &signer).unwrap();
        let reply = Message::new(
            "kernel_info_reply",
            "k",
            Some(&req),
            json!({"status": "ok"}),
        );
        let frames = reply.encode(&signer);
        assert_eq!(frames[0], b"client-id");
        assert_eq!(frames[1], DELIMITER);
        assert_eq!(frames[2].len(), 64, "a hex SHA-256 HMAC");
        let back = Message::decode(frames, &signer).unwrap();
        assert_eq!(back.parent_header["msg_id"], "1");
        assert_eq!(back.header["version"], PROTOCOL_VERSION);
        assert_eq!(back.header["username"], "u");
        assert_eq!(back.content["status"], "ok");
    }

    #[test]
    fn bad_messages_are_refused_with_a_reason() {
        let signer = Signer::new("hmac-sha256", "secret").unwrap();
        let mut frames = request(&signer);
        frames[2] = b"00".repeat(32);
        let e = Message::decode(frames, &signer).unwrap_err();
        assert!(e.0.contains("signature"), "{e}");
        // Signed with another key.
        let other = Signer::new("hmac-sha256", "other").unwrap();
        assert!(Message::decode(request(&other), &signer).is_err());
        let mut frames = request(&signer);
        frames.retain(|f| f.as_slice() != DELIMITER);
        assert!(
            Message::decode(frames, &signer)
                .unwrap_err()
                .0
                .contains("delimiter")
        );
        let mut frames = request(&signer);
        frames.truncate(4);
        assert!(
            Message::decode(frames, &signer)
                .unwrap_err()
                .0
                .contains("frames")
        );
        let none = Signer::new("", "").unwrap();
        let mut frames = request(&none);
        frames[3] = b"not json".to_vec();
        assert!(
            Message::decode(frames, &none)
                .unwrap_err()
                .0
                .contains("JSON")
        );
    }

    #[test]
    fn connection_files_are_checked() {
        let good = r#"{"shell_port": 1, "iopub_port": 2, "stdin_port": 3, "control_port": 4,
            "hb_port": 5, "ip": "127.0.0.1", "key": "k", "transport": "tcp",
            "signature_scheme": "hmac-sha256", "kernel_name": "spindle"}"#;
        let info = ConnectionInfo::parse(good).unwrap();
        assert_eq!(info.endpoint(info.hb_port), "tcp://127.0.0.1:5");
        assert!(
            ConnectionInfo::parse("nope")
                .unwrap_err()
                .0
                .contains("JSON")
        );
        assert!(ConnectionInfo::parse("[]").is_err());
        let missing = good.replace("\"hb_port\": 5,", "");
        assert!(
            ConnectionInfo::parse(&missing)
                .unwrap_err()
                .0
                .contains("hb_port")
        );
        let ipc = good.replace("\"tcp\"", "\"ipc\"");
        assert!(ConnectionInfo::parse(&ipc).unwrap_err().0.contains("ipc"));
        let scheme = good.replace("hmac-sha256", "hmac-md5");
        assert!(ConnectionInfo::parse(&scheme).is_err());
        let e = ConnectionInfo::from_file(Path::new("/nonexistent/conn.json")).unwrap_err();
        assert!(e.0.contains("cannot read"), "{e}");
    }

    #[test]
    fn dates_are_iso8601_utc() {
        assert_eq!(iso8601(0, 0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(iso8601(1_709_210_096, 42), "2024-02-29T12:34:56.000042Z");
        assert_eq!(new_id().len(), 32);
        assert_ne!(new_id(), new_id());
    }
}
