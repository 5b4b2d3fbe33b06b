//! The kernel's standard output and standard error, captured as `stream` messages.
//!
//! A running program writes to the process's file descriptors 1 and 2 directly
//! (`trace` to standard error, a tool's standard error passed through, `:print`'s
//! text); the kernel points both at pipes and forwards what comes out of them, as it
//! comes, to the notebook. Capturing at the descriptors catches every writer, Rust or
//! not, without a sink threaded through the machine, and leaves the terminal REPL
//! exactly as it was.
//!
//! Outputs must reach the notebook before the cell's result, so [`Capture::sync`]
//! writes a marker into each pipe and waits until its reader has forwarded everything
//! before it.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The marker [`Capture::sync`] writes: control characters no program text has in
/// this order.
const SENTINEL: &[u8] = b"\x01\x02\x03spindle-capture-sync\x03\x02\x01";

/// Which stream a piece of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamName {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl StreamName {
    /// The name Jupyter gives the stream.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamName::Stdout => "stdout",
            StreamName::Stderr => "stderr",
        }
    }
}

/// Where captured text goes (the kernel publishes it as a `stream` message).
pub type Sink = Arc<dyn Fn(StreamName, String) + Send + Sync>;

/// How many markers a reader has seen, to wait on.
#[derive(Default)]
struct Seen {
    count: Mutex<u64>,
    changed: Condvar,
}

/// The capture of descriptors 1 and 2 (see the module documentation).
pub struct Capture {
    /// Per stream (standard output, standard error): the markers seen.
    seen: [Arc<Seen>; 2],
    /// Markers written so far (each [`Capture::sync`] writes one per stream).
    written: u64,
}

impl Capture {
    /// Points descriptors 1 and 2 at pipes read by two threads that hand the text to
    /// `sink`. Returns the capture and a copy of the original standard error, for the
    /// kernel's own messages.
    pub fn start(sink: Sink) -> std::io::Result<(Capture, std::fs::File)> {
        let original_err = std::fs::File::from(nix::unistd::dup(std::io::stderr().as_fd())?);
        let mut seen: Vec<Arc<Seen>> = Vec::new();
        for name in [StreamName::Stdout, StreamName::Stderr] {
            let (reader, writer) = std::io::pipe()?;
            match name {
                StreamName::Stdout => {
                    let _ = std::io::stdout().flush();
                    nix::unistd::dup2_stdout(writer.as_fd())?
                }
                StreamName::Stderr => nix::unistd::dup2_stderr(writer.as_fd())?,
            }
            drop(writer);
            let counter = Arc::new(Seen::default());
            seen.push(counter.clone());
            let sink = sink.clone();
            std::thread::Builder::new()
                .name(format!("capture-{}", name.as_str()))
                .spawn(move || forward(reader, name, sink, counter))?;
        }
        let err = seen.pop().expect("two streams");
        let out = seen.pop().expect("two streams");
        Ok((
            Capture {
                seen: [out, err],
                written: 0,
            },
            original_err,
        ))
    }

    /// Waits (at most `limit`) until everything written to standard output and
    /// standard error so far has been handed to the sink. Whether it all was.
    pub fn sync(&mut self, limit: Duration) -> bool {
        self.written += 1;
        {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(SENTINEL);
            let _ = out.flush();
        }
        let _ = std::io::stderr().lock().write_all(SENTINEL);
        let deadline = Instant::now() + limit;
        self.seen.iter().all(|seen| {
            let mut count = seen.count.lock().unwrap_or_else(|e| e.into_inner());
            while *count < self.written {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return false;
                }
                count = seen
                    .changed
                    .wait_timeout(count, left)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            true
        })
    }
}

/// A reader thread: forwards text as it comes, counting markers.
fn forward(mut reader: std::io::PipeReader, name: StreamName, sink: Sink, seen: Arc<Seen>) {
    let mut pending = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        pending.extend_from_slice(&buf[..n]);
        // A line written in pieces (`eprintln!` writes the text, then the newline)
        // goes out as one message: what follows at once is read first.
        while !pending.ends_with(b"\n") && pending.len() < buf.len() && more_soon(&reader) {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => pending.extend_from_slice(&buf[..n]),
            }
        }
        for piece in split(&mut pending) {
            match piece {
                Piece::Text(text) => sink(name, text),
                Piece::Marker => {
                    let mut count = seen.count.lock().unwrap_or_else(|e| e.into_inner());
                    *count += 1;
                    seen.changed.notify_all();
                }
            }
        }
    }
}

/// Whether the pipe has more to read within a few milliseconds.
fn more_soon(reader: &std::io::PipeReader) -> bool {
    use nix::poll::{PollFd, PollFlags, poll};
    let mut fds = [PollFd::new(reader.as_fd(), PollFlags::POLLIN)];
    matches!(poll(&mut fds, 5u8), Ok(n) if n > 0)
}

/// What [`split`] finds in the bytes read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Text to forward.
    Text(String),
    /// A marker of [`Capture::sync`].
    Marker,
}

/// Takes from `pending` the text and markers it holds whole, in order. What may be
/// the start of a marker or of a UTF-8 character stays in `pending` for the next
/// read; bytes that are not UTF-8 become U+FFFD.
fn split(pending: &mut Vec<u8>) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let text = |bytes: &[u8], pieces: &mut Vec<Piece>| {
        if !bytes.is_empty() {
            pieces.push(Piece::Text(String::from_utf8_lossy(bytes).into_owned()));
        }
    };
    while let Some(at) = find(pending, SENTINEL) {
        text(&pending[..at], &mut pieces);
        pieces.push(Piece::Marker);
        pending.drain(..at + SENTINEL.len());
    }
    // Hold back a tail that may be a marker's start.
    let mut keep = (1..SENTINEL.len().min(pending.len() + 1))
        .rev()
        .find(|&k| pending.ends_with(&SENTINEL[..k]))
        .unwrap_or(0);
    // And a UTF-8 character cut short.
    let body = &pending[..pending.len() - keep];
    if let Err(e) = std::str::from_utf8(body)
        && e.error_len().is_none()
    {
        keep += body.len() - e.valid_up_to();
    }
    let upto = pending.len() - keep;
    text(&pending[..upto], &mut pieces);
    pending.drain(..upto);
    pieces
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_text_are_told_apart_across_reads() {
        let mut pending = b"hello ".to_vec();
        pending.extend_from_slice(SENTINEL);
        pending.extend_from_slice(b"after");
        pending.extend_from_slice(&SENTINEL[..5]);
        let pieces = split(&mut pending);
        assert_eq!(
            pieces,
            vec![
                Piece::Text("hello ".into()),
                Piece::Marker,
                Piece::Text("after".into())
            ]
        );
        assert_eq!(pending, SENTINEL[..5].to_vec(), "a marker's start waits");
        pending.extend_from_slice(&SENTINEL[5..]);
        assert_eq!(split(&mut pending), vec![Piece::Marker]);
        assert!(pending.is_empty());
    }

    #[test]
    fn a_character_cut_by_a_read_waits_for_its_rest() {
        let mut pending = "é".as_bytes()[..1].to_vec();
        assert_eq!(split(&mut pending), vec![]);
        pending.push("é".as_bytes()[1]);
        assert_eq!(split(&mut pending), vec![Piece::Text("é".into())]);
        let mut bad = vec![b'a', 0xff, b'b'];
        assert_eq!(split(&mut bad), vec![Piece::Text("a\u{fffd}b".into())]);
    }
}
