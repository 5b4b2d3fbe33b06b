//! Server-sent events (the `text/event-stream` format of the HTML standard), read
//! incrementally: a model server that streams its reply (`llmStream`) sends one event
//! per piece of text, and the network hands the body over in chunks split anywhere (in
//! the middle of a line, of a UTF-8 character, or between the `\r` and `\n` of a line
//! end). [`Parser`] keeps what a chunk leaves unfinished and gives back the events
//! each chunk completes, in constant memory per event.
//!
//! What is read: the `data` field (several `data` lines joined with `\n`), the `event`
//! field; `id` and `retry` are ignored (a reply is never resumed), and so are comments
//! (lines starting with `:`, which servers send to keep a connection alive). Lines end
//! with `\n`, `\r\n` or `\r`; an event ends at a blank line, and an event without data
//! is not an event (as in the standard).

/// One event: what its `data` lines said, and its type.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Event {
    /// The `event` field (empty when the event had none: a plain message).
    pub event: String,
    /// The `data` lines, joined with `\n`.
    pub data: String,
}

/// The most an unfinished line or event may hold: a server that never ends its event
/// must not make the reader hold all of its body.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// Why the input cannot be read as events: an event (or a line) longer than
/// [`MAX_EVENT_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge;

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "an event is longer than {} bytes", MAX_EVENT_BYTES)
    }
}

/// An incremental reader of server-sent events: [`feed`](Parser::feed) it the bytes as
/// they arrive, then [`finish`](Parser::finish) it at the end of the input.
#[derive(Debug, Default)]
pub struct Parser {
    /// The bytes of the line being read (no line end yet).
    line: Vec<u8>,
    /// The last byte fed ended a line with `\r`: a `\n` right after belongs to it.
    after_cr: bool,
    /// No line has been read yet (a byte order mark may start the first one).
    started: bool,
    /// The event being read: its data lines so far, each followed by `\n`.
    data: String,
    /// Whether a `data` field was seen in the event being read.
    has_data: bool,
    /// Its `event` field.
    event: String,
    /// Whether any field (not a comment) was seen since the last blank line.
    pending: bool,
}

impl Parser {
    /// A parser at the start of a stream.
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Reads `bytes` (the next part of the stream, split anywhere): the events they
    /// complete, in order.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<Event>, TooLarge> {
        let mut out = Vec::new();
        let mut rest = bytes;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(i) = rest.iter().position(|&c| c == b'\n' || c == b'\r') {
            self.line.extend_from_slice(&rest[..i]);
            let ending = rest[i];
            rest = &rest[i + 1..];
            if ending == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    // The `\n` of a `\r\n` may come with the next bytes.
                    None => self.after_cr = true,
                }
            }
            let line = std::mem::take(&mut self.line);
            if let Some(ev) = self.line_done(&line) {
                out.push(ev);
            }
            self.line = line;
            self.line.clear();
            self.check_size()?;
        }
        self.line.extend_from_slice(rest);
        self.check_size()?;
        Ok(out)
    }

    /// The end of the input: whether an event was cut off (fields were read, or a line
    /// was begun, after the last blank line). The parser is then at the start of a new
    /// stream again.
    pub fn finish(&mut self) -> bool {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            // The line is not finished, so it cannot end an event: only its field counts.
            let _ = self.line_done(&line);
        }
        let cut_off = self.pending;
        *self = Parser::default();
        cut_off
    }

    fn check_size(&self) -> Result<(), TooLarge> {
        if self.line.len() + self.data.len() + self.event.len() > MAX_EVENT_BYTES {
            return Err(TooLarge);
        }
        Ok(())
    }

    /// One complete line (without its end): the event it ends, if it is blank.
    fn line_done(&mut self, line: &[u8]) -> Option<Event> {
        let mut line = line;
        if !self.started {
            self.started = true;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch();
        }
        if line[0] == b':' {
            return None;
        }
        let (name, value) = match line.iter().position(|&c| c == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        self.pending = true;
        match name {
            b"data" => {
                self.data.push_str(&String::from_utf8_lossy(value));
                self.data.push('\n');
                self.has_data = true;
            }
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            // `id`, `retry` and unknown fields: nothing a reply needs.
            _ => {}
        }
        None
    }

    /// A blank line: the event read so far, if it has data.
    fn dispatch(&mut self) -> Option<Event> {
        self.pending = false;
        let event = std::mem::take(&mut self.event);
        if !self.has_data {
            self.data.clear();
            return None;
        }
        self.has_data = false;
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        Some(Event { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: &str, data: &str) -> Event {
        Event {
            event: event.into(),
            data: data.into(),
        }
    }

    /// Every event of `input` fed in the given pieces, and whether the end cut one off.
    fn parse_in(pieces: &[&[u8]]) -> (Vec<Event>, bool) {
        let mut p = Parser::new();
        let mut got = Vec::new();
        for piece in pieces {
            got.extend(p.feed(piece).unwrap());
        }
        (got, p.finish())
    }

    const SAMPLE: &str = "\u{feff}: a comment\r\n\
        data: {\"a\":\"h\u{e9}llo \u{1F600}\"}\r\n\r\n\
        event: update\ndata:first\ndata:  second\n\n\
        data\r\r\
        id: 7\nretry: 10\n\n\
        event: lonely\n\n\
        data: [DONE]\n\n";

    fn sample_events() -> Vec<Event> {
        vec![
            ev("", "{\"a\":\"h\u{e9}llo \u{1F600}\"}"),
            ev("update", "first\n second"),
            ev("", ""),
            ev("", "[DONE]"),
        ]
    }

    #[test]
    fn a_whole_stream_gives_its_events() {
        assert_eq!(parse_in(&[SAMPLE.as_bytes()]), (sample_events(), false));
    }

    #[test]
    fn every_split_gives_the_same_events() {
        let bytes = SAMPLE.as_bytes();
        for i in 0..=bytes.len() {
            assert_eq!(
                parse_in(&[&bytes[..i], &bytes[i..]]),
                (sample_events(), false),
                "split at {i}"
            );
        }
        // And one byte at a time.
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(parse_in(&singles), (sample_events(), false));
        // And every pair of splits over a shorter stream with CRLF and multi-byte text.
        let short = "data: \u{e9}\u{1F600}\r\ndata: x\r\n\r\n:c\r\n\r\n".as_bytes();
        for i in 0..=short.len() {
            for j in i..=short.len() {
                assert_eq!(
                    parse_in(&[&short[..i], &short[i..j], &short[j..]]),
                    (vec![ev("", "\u{e9}\u{1F600}\nx")], false),
                    "splits at {i} and {j}"
                );
            }
        }
    }

    #[test]
    fn line_ends_of_every_kind_count() {
        for end in ["\n", "\r\n", "\r"] {
            let text = format!("event: e{end}data: a{end}data: b{end}{end}data: c{end}{end}");
            assert_eq!(
                parse_in(&[text.as_bytes()]),
                (vec![ev("e", "a\nb"), ev("", "c")], false),
                "{end:?}"
            );
        }
        // A `\r` at the end of one piece and `\n` at the start of the next are one end.
        assert_eq!(
            parse_in(&[b"data: a\r", b"", b"\ndata: b\r", b"\n\r", b"\n"]),
            (vec![ev("", "a\nb")], false)
        );
    }

    #[test]
    fn comments_are_ignored() {
        assert_eq!(
            parse_in(&[b": ping\n\n:\ndata: x\n: inside\n\n: after\n"]),
            (vec![ev("", "x")], false)
        );
    }

    #[test]
    fn multi_line_data_is_joined() {
        assert_eq!(
            parse_in(&[b"data: one\ndata:\ndata: three\ndata: \n\n"]),
            (vec![ev("", "one\n\nthree\n")], false)
        );
    }

    #[test]
    fn a_cut_off_event_is_reported() {
        // A field without the blank line after it.
        assert_eq!(
            parse_in(&[b"data: a\n\ndata: b\n"]),
            (vec![ev("", "a")], true)
        );
        // A line without its end.
        assert_eq!(
            parse_in(&[b"data: a\n\ndata: b"]),
            (vec![ev("", "a")], true)
        );
        assert_eq!(
            parse_in(&[b"data: a\n\nevent: x"]),
            (vec![ev("", "a")], true)
        );
        // Nothing after the last event, or only a comment.
        assert_eq!(parse_in(&[b"data: a\n\n"]), (vec![ev("", "a")], false));
        assert_eq!(parse_in(&[b"data: a\n\n: bye"]), (vec![ev("", "a")], false));
        assert_eq!(parse_in(&[b""]), (vec![], false));
    }

    #[test]
    fn invalid_utf8_is_replaced_and_huge_events_refused() {
        assert_eq!(
            parse_in(&[b"data: a\xFFb\n\n"]),
            (vec![ev("", "a\u{FFFD}b")], false)
        );
        let mut p = Parser::new();
        let big = vec![b'x'; MAX_EVENT_BYTES / 2];
        assert!(p.feed(b"data: ").is_ok());
        assert!(p.feed(&big).is_ok());
        assert_eq!(p.feed(&big), Err(TooLarge));
    }
}
