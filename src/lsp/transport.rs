//! The wire: JSON-RPC messages framed by a `Content-Length` header, as LSP sends
//! them over standard input and output.
//!
//! Reading is our own (not `lsp_server`'s) so that bad input is answered instead of
//! ending the server: a frame that is not a JSON-RPC message is reported as
//! [`Frame::Malformed`] (the server answers it with a parse error and reads on), and a
//! frame longer than [`MAX_FRAME`] is refused before it is read into memory.

use lsp_server::Message;
use std::io::{self, BufRead, Read, Write};

/// The longest message body accepted (a document of the largest source size the
/// checker takes, with room for JSON escapes).
pub const MAX_FRAME: usize = 64 * 1024 * 1024;

/// The longest header line accepted.
const MAX_HEADER_LINE: usize = 1024;

/// What one read from the input gives.
pub enum Frame {
    /// A JSON-RPC message.
    Message(Message),
    /// A frame whose body is not a JSON-RPC message, or a malformed header: why.
    Malformed(String),
    /// The input ended (or cannot be read any more).
    End,
}

/// Reads one frame.
pub fn read(input: &mut impl BufRead) -> Frame {
    let mut length: Option<usize> = None;
    let mut bad_header = None;
    loop {
        let mut line = Vec::new();
        match input
            .by_ref()
            .take(MAX_HEADER_LINE as u64)
            .read_until(b'\n', &mut line)
        {
            Ok(0) => return Frame::End,
            Ok(_) => {}
            Err(_) => return Frame::End,
        }
        if line.last() != Some(&b'\n') {
            // A header line too long (or cut by the end of input): skip to its end.
            let mut rest = Vec::new();
            if input.read_until(b'\n', &mut rest).unwrap_or(0) == 0 {
                return Frame::End;
            }
            bad_header = Some("a header line is too long".to_string());
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if length.is_none() && bad_header.is_none() {
                // Blank lines between frames are tolerated.
                continue;
            }
            break;
        }
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => bad_header = Some(format!("bad Content-Length: {}", value.trim())),
                }
            }
            Some(_) => {}
            None => bad_header = Some(format!("malformed header line: {text:?}")),
        }
    }
    if let Some(why) = bad_header {
        return Frame::Malformed(why);
    }
    let Some(length) = length else {
        return Frame::Malformed("no Content-Length header".to_string());
    };
    if length > MAX_FRAME {
        // Skip the body without keeping it.
        let skipped = io::copy(&mut input.by_ref().take(length as u64), &mut io::sink());
        return match skipped {
            Ok(n) if n == length as u64 => {
                Frame::Malformed(format!("a message of {length} bytes is too long"))
            }
            _ => Frame::End,
        };
    }
    let mut body = vec![0u8; length];
    if input.read_exact(&mut body).is_err() {
        return Frame::End;
    }
    match serde_json::from_slice::<Message>(&body) {
        Ok(m) => Frame::Message(m),
        Err(e) => Frame::Malformed(format!("not a JSON-RPC message: {e}")),
    }
}

/// Writes one message.
pub fn write(output: &mut impl Write, message: Message) -> io::Result<()> {
    message.write(output)
}

/// Writes the answer to a frame that could not be read: a JSON-RPC error response
/// with a null id (JSON-RPC 2.0 section 5), which `lsp_server`'s types cannot
/// express.
pub fn write_parse_error(output: &mut impl Write, why: &str) -> io::Result<()> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": lsp_server::ErrorCode::ParseError as i32, "message": why },
    })
    .to_string();
    write!(output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    output.flush()
}
