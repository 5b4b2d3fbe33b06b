//! Streams (issue 28): the output of a streaming external (`runLines`, `shellLines`,
//! `readLines`, `llmStream`) as it is produced, between the producer (a thread reading a
//! pipe or a file, a network task reading server-sent events) and the machine, which
//! sees the stream as a lazy list ([`crate::sched::policy`] builds its cells).
//!
//! A [`Stream`] is a bounded buffer of items (lines or chunks) with an end. The producer
//! [`push`](Stream::push)es items and blocks while the buffer is full (at most
//! [`buffer_items`] unread items and 64 KiB of unread bytes per allowed item:
//! backpressure, so that a fast producer feeding a slow consumer runs in bounded
//! memory: the pipe fills and the process waits); it [`finish`](Stream::finish)es the
//! stream with how it ended. The consumer [`take`](Stream::take)s whatever is there (all
//! of it at once, so that a fast stream costs one hand-over per batch, not per line), or
//! leaves a [waiter](Stream::take_or_wait) that the producer calls with the next batch.
//! A consumer that no longer needs the stream [`close`](Stream::close)s it: the producer's
//! next push returns `false` and it stops (a process has its group stopped).

use super::request::CallError;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Default of `--stream-buffer`: unread items per stream.
pub const DEFAULT_BUFFER: usize = 1000;

/// Unread bytes allowed per allowed unread item.
pub const BYTES_PER_ITEM: usize = 64 * 1024;

static BUFFER_ITEMS: AtomicUsize = AtomicUsize::new(DEFAULT_BUFFER);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Sets `--stream-buffer`: at most `n` (at least 1) unread items, and `n` x 64 KiB of
/// unread bytes, per stream opened from now on.
pub fn set_buffer_items(n: usize) {
    BUFFER_ITEMS.store(n.max(1), Ordering::Relaxed);
}

/// The current `--stream-buffer`.
pub fn buffer_items() -> usize {
    BUFFER_ITEMS.load(Ordering::Relaxed)
}

/// Items (lines, chunks) in one text with the end of each: a read of a pipe or a
/// file becomes one allocation, not one per line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Items {
    text: String,
    ends: Vec<usize>,
}

impl Items {
    /// Adds an item.
    pub fn push(&mut self, item: &str) {
        self.text.push_str(item);
        self.ends.push(self.text.len());
    }

    /// How many items.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of all items.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Item `i`.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    /// The items, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Moves every item of `other` to the end of these.
    fn append(&mut self, other: &mut Items) {
        if self.is_empty() {
            std::mem::swap(self, other);
            return;
        }
        let base = self.text.len();
        self.text.push_str(&other.text);
        self.ends.extend(other.ends.iter().map(|e| e + base));
        other.clear();
    }

    /// Moves the first `n` items of `other` to the end of these.
    fn append_first(&mut self, other: &mut Items, n: usize) {
        if n >= other.len() {
            self.append(other);
            return;
        }
        let cut = other.ends[n - 1];
        let base = self.text.len();
        self.text.push_str(&other.text[..cut]);
        self.ends.extend(other.ends[..n].iter().map(|e| e + base));
        other.text.drain(..cut);
        other.ends.drain(..n);
        for e in &mut other.ends {
            *e -= cut;
        }
    }

    /// Drops every item.
    pub fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }
}

impl<S: AsRef<str>> FromIterator<S> for Items {
    fn from_iter<I: IntoIterator<Item = S>>(it: I) -> Items {
        let mut items = Items::default();
        for s in it {
            items.push(s.as_ref());
        }
        items
    }
}

/// What a consumer gets from a stream at once: the items that were waiting, and the
/// end when every item before it is taken.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Batch {
    /// The stream's id.
    pub stream: u64,
    /// Items, in order.
    pub items: Items,
    /// How the stream ended, once no unread item is left before the end.
    pub end: Option<Result<(), CallError>>,
}

/// Called by the producer with the next batch, when a consumer waits.
pub type Waiter = Box<dyn FnOnce(Batch) + Send>;

/// The state behind the lock.
struct Buf {
    items: Items,
    end: Option<Result<(), CallError>>,
    closed: bool,
    started: bool,
    waiter: Option<Waiter>,
    /// Threads blocked on the condition variable (a producer on a full buffer, a
    /// consumer in [`Stream::take_within`]): only then is it signalled.
    sleepers: u32,
}

/// One stream: see the module documentation.
pub struct Stream {
    id: u64,
    max_items: usize,
    max_bytes: usize,
    buf: Mutex<Buf>,
    /// Signalled when items are taken (a producer may push again), when items or the
    /// end arrive (a blocking consumer may take), and on close.
    changed: Condvar,
}

/// A handle on a stream that requests can hold: compared and hashed by the stream's
/// id (two handles are equal when they name the same stream).
#[derive(Clone)]
pub struct StreamRef(pub Arc<Stream>);

impl std::fmt::Debug for StreamRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stream#{}", self.0.id)
    }
}

impl PartialEq for StreamRef {
    fn eq(&self, other: &StreamRef) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for StreamRef {}

impl Hash for StreamRef {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}

impl std::ops::Deref for StreamRef {
    type Target = Stream;
    fn deref(&self) -> &Stream {
        &self.0
    }
}

/// What [`Stream::try_push`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Pushed {
    /// The item is in the buffer.
    Yes,
    /// The buffer is full: the item comes back, to push again later.
    Full(String),
    /// The consumer closed the stream: stop producing.
    Closed,
}

impl Stream {
    /// A new stream with the current `--stream-buffer` bounds.
    pub fn open() -> StreamRef {
        Stream::open_with(buffer_items())
    }

    /// A new stream of at most `n` unread items (and `n` x 64 KiB).
    pub fn open_with(n: usize) -> StreamRef {
        let n = n.max(1);
        StreamRef(Arc::new(Stream {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            max_items: n,
            max_bytes: n.saturating_mul(BYTES_PER_ITEM),
            buf: Mutex::new(Buf {
                items: Items::default(),
                end: None,
                closed: false,
                started: false,
                waiter: None,
                sleepers: 0,
            }),
            changed: Condvar::new(),
        }))
    }

    /// Its id (unique in the process).
    pub fn id(&self) -> u64 {
        self.id
    }

    fn lock(&self) -> MutexGuard<'_, Buf> {
        // A producer that panicked while holding the lock left consistent data (every
        // change is a single push or take): go on with it.
        self.buf.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn full(&self, b: &Buf) -> bool {
        b.items.len() >= self.max_items || b.items.bytes() >= self.max_bytes
    }

    /// Everything unread, and the end if nothing is left before it.
    fn drain(&self, b: &mut Buf) -> Batch {
        let items = std::mem::take(&mut b.items);
        Batch {
            stream: self.id,
            items,
            end: b.end.clone(),
        }
    }

    /// After an item or the end arrived: hands everything to a waiting consumer.
    fn hand_over(&self, mut b: MutexGuard<'_, Buf>) {
        let sleepers = b.sleepers > 0;
        if let Some(w) = b.waiter.take() {
            let batch = self.drain(&mut b);
            drop(b);
            if sleepers {
                self.changed.notify_all();
            }
            w(batch);
        } else {
            drop(b);
            if sleepers {
                self.changed.notify_all();
            }
        }
    }

    /// Wakes the threads blocked on the condition variable, if any (after a take, or a
    /// close).
    fn wake(&self, b: MutexGuard<'_, Buf>) {
        let sleepers = b.sleepers > 0;
        drop(b);
        if sleepers {
            self.changed.notify_all();
        }
    }

    /// Blocks on the condition variable (counted as a sleeper meanwhile).
    fn sleep<'a>(
        &self,
        mut b: MutexGuard<'a, Buf>,
        timeout: Option<Duration>,
    ) -> MutexGuard<'a, Buf> {
        b.sleepers += 1;
        let mut b = match timeout {
            None => self.changed.wait(b).unwrap_or_else(|e| e.into_inner()),
            Some(t) => self
                .changed
                .wait_timeout(b, t)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0),
        };
        b.sleepers -= 1;
        b
    }

    /// Marks the stream as being produced (a live producer started on it; a stream
    /// nobody started is replayed from the result store).
    pub fn mark_started(&self) {
        self.lock().started = true;
    }

    /// Whether a producer started on it.
    pub fn is_started(&self) -> bool {
        self.lock().started
    }

    /// Adds an item, waiting while the buffer is full. `false`: the consumer closed the
    /// stream (the item is dropped; the producer stops).
    pub fn push(&self, item: &str) -> bool {
        let mut one = Items::default();
        one.push(item);
        self.push_all(&mut one)
    }

    /// Adds the items (emptying `items`), as many at a time as the buffer has room
    /// for, waiting while it is full: one hand-over for a whole read of a pipe or a
    /// file. `false`: the consumer closed the stream (the producer stops).
    pub fn push_all(&self, items: &mut Items) -> bool {
        let mut b = self.lock();
        if items.is_empty() {
            // A read that completed no line: nothing to hand a waiting consumer (an
            // empty batch would tell it nothing, not even the end).
            return !b.closed;
        }
        loop {
            while !b.closed && self.full(&b) && b.waiter.is_none() {
                b = self.sleep(b, None);
            }
            if b.closed {
                items.clear();
                return false;
            }
            // As many as there is room for (at least one when a consumer waits).
            let room_items = self.max_items.saturating_sub(b.items.len());
            let room_bytes = self.max_bytes.saturating_sub(b.items.bytes());
            let mut n = 0;
            while n < items.len() && n < room_items {
                let end = items.ends[n];
                if end > room_bytes && n > 0 {
                    break;
                }
                n += 1;
                if end > room_bytes {
                    break;
                }
            }
            if n == 0 && b.waiter.is_some() {
                n = 1;
            }
            b.items.append_first(items, n);
            let done = items.is_empty();
            self.hand_over(b);
            if done {
                return true;
            }
            b = self.lock();
        }
    }

    /// Adds an item unless the buffer is full (for producers that must not block: a
    /// network task).
    pub fn try_push(&self, item: String) -> Pushed {
        let mut b = self.lock();
        if b.closed {
            return Pushed::Closed;
        }
        if self.full(&b) && b.waiter.is_none() {
            return Pushed::Full(item);
        }
        b.items.push(&item);
        self.hand_over(b);
        Pushed::Yes
    }

    /// Ends the stream (the first end counts): `Ok` when it ended well, or the error
    /// the consumer meets where it reaches the end.
    pub fn finish(&self, end: Result<(), CallError>) {
        let mut b = self.lock();
        if b.end.is_none() {
            b.end = Some(end);
        }
        self.hand_over(b);
    }

    /// Whether the stream has ended (its end may still have unread items before it).
    pub fn has_ended(&self) -> bool {
        self.lock().end.is_some()
    }

    /// Whether the consumer closed it.
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Takes everything unread (and the end, once nothing is left before it), or `None`
    /// when nothing is there yet.
    pub fn take(&self) -> Option<Batch> {
        let mut b = self.lock();
        if b.items.is_empty() && b.end.is_none() {
            return None;
        }
        let batch = self.drain(&mut b);
        self.wake(b);
        Some(batch)
    }

    /// Takes what is there, or leaves `waiter` to be called (on the producer's thread)
    /// with the next batch; `Err(waiter)` back when the stream is closed.
    pub fn take_or_wait(&self, waiter: Waiter) -> Option<Batch> {
        let mut b = self.lock();
        if b.items.is_empty() && b.end.is_none() {
            b.waiter = Some(waiter);
            // A producer blocked on a full buffer may go on: someone waits.
            self.wake(b);
            return None;
        }
        let batch = self.drain(&mut b);
        self.wake(b);
        Some(batch)
    }

    /// Drops a waiter left by [`take_or_wait`](Self::take_or_wait).
    pub fn cancel_wait(&self) {
        self.lock().waiter = None;
    }

    /// Takes what is there, waiting at most `timeout` for something to arrive.
    pub fn take_within(&self, timeout: Duration) -> Option<Batch> {
        let mut b = self.lock();
        if b.items.is_empty() && b.end.is_none() && !b.closed {
            b = self.sleep(b, Some(timeout));
        }
        if b.items.is_empty() && b.end.is_none() {
            return None;
        }
        let batch = self.drain(&mut b);
        self.wake(b);
        Some(batch)
    }

    /// The consumer no longer needs the stream: unread items are dropped, a blocked
    /// producer wakes, and every later push returns `false`.
    pub fn close(&self) {
        let mut b = self.lock();
        b.closed = true;
        b.items.clear();
        b.waiter = None;
        self.wake(b);
    }
}

/// Reads the file at `path` into `stream` (marking it started) and ends the stream:
/// its lines (a readable file of any size in constant memory: the reader waits while
/// the buffer is full), or, for a spool of chunks (`json`), one JSON string a line.
/// Answers how many items went in, or the error the stream ended with; a stream the
/// consumer closed ends the reading early, as success.
pub fn read_file_into(path: &str, stream: &Stream, json: bool) -> Result<u64, CallError> {
    use std::io::Read;
    stream.mark_started();
    let fail = |e: std::io::Error| {
        CallError::new(
            super::request::CallErrorKind::Io,
            format!("readLines {}: {e}", super::request::shell_quote(path)),
        )
    };
    let r = (|| {
        // Standard input given by a frontend (a notebook): the one line typed.
        if !json && let Some(line) = super::stdin::read_line(path) {
            let line = line.map_err(|e| fail(std::io::Error::other(e)))?;
            let mut batch = Items::default();
            batch.push(&line);
            stream.push_all(&mut batch);
            return Ok(1);
        }
        let mut f = std::fs::File::open(path).map_err(fail)?;
        let mut split = LineSplitter::default();
        let mut buf = vec![0u8; 1 << 16];
        let mut items = 0u64;
        let mut bad = None;
        let mut batch = Items::default();
        let mut collect = |line: &str, batch: &mut Items| {
            if json {
                match serde_json::from_str::<String>(line) {
                    Ok(s) => batch.push(&s),
                    Err(e) => {
                        bad = Some(e.to_string());
                        return false;
                    }
                }
            } else {
                batch.push(line);
            }
            items += 1;
            true
        };
        let mut open = true;
        // An unfinished line counts against `--max-memory` while it grows.
        let mut held = super::budget::Reservation::new();
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(fail(e)),
            };
            let ok = split.feed(&buf[..n], &mut |l| collect(l, &mut batch));
            if !held.set(split.pending()) {
                return Err(super::budget::out_of_memory(&format!(
                    "a line of {}",
                    super::request::shell_quote(path)
                )));
            }
            open = stream.push_all(&mut batch);
            if !ok || !open {
                break;
            }
        }
        if open && let Some(last) = split.finish() {
            collect(&last, &mut batch);
            stream.push_all(&mut batch);
        }
        if let Some(why) = bad {
            return Err(CallError::new(
                super::request::CallErrorKind::Io,
                format!("a recorded stream in {path} is damaged: {why}"),
            ));
        }
        Ok(items)
    })();
    stream.finish(r.as_ref().map(|_| ()).map_err(Clone::clone));
    r
}

/// `bytes` as text, invalid UTF-8 replaced: validated by the standard library's fast
/// check first (most lines are valid, and `from_utf8_lossy` walks them chunk by chunk,
/// several times slower).
fn lossy_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Splits bytes read from a pipe or a file into lines (without their `\n`), keeping an
/// unfinished last line for the next read; the bytes are UTF-8 with invalid sequences
/// replaced.
#[derive(Default)]
pub struct LineSplitter {
    partial: Vec<u8>,
}

impl LineSplitter {
    /// The lines that `bytes` completes.
    pub fn feed(&mut self, bytes: &[u8], out: &mut impl FnMut(&str) -> bool) -> bool {
        let mut rest = bytes;
        while let Some(i) = rest.iter().position(|&c| c == b'\n') {
            let go_on = if self.partial.is_empty() {
                out(&lossy_text(&rest[..i]))
            } else {
                self.partial.extend_from_slice(&rest[..i]);
                let go_on = out(&lossy_text(&self.partial));
                self.partial.clear();
                go_on
            };
            if !go_on {
                return false;
            }
            rest = &rest[i + 1..];
        }
        self.partial.extend_from_slice(rest);
        true
    }

    /// The bytes of the unfinished line held (counted against `--max-memory`).
    pub fn pending(&self) -> usize {
        self.partial.len()
    }

    /// The last line, if the input did not end with a newline.
    pub fn finish(&mut self) -> Option<String> {
        if self.partial.is_empty() {
            return None;
        }
        let l = lossy_text(&self.partial).into_owned();
        self.partial.clear();
        Some(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_across_reads() {
        let mut s = LineSplitter::default();
        let mut got = Vec::new();
        s.feed(b"ab", &mut |l| {
            got.push(l.to_string());
            true
        });
        s.feed(b"c\nd\n\ne", &mut |l| {
            got.push(l.to_string());
            true
        });
        got.extend(s.finish());
        assert_eq!(got, ["abc", "d", "", "e"]);
    }

    #[test]
    fn a_full_buffer_blocks_the_producer_until_taken() {
        let s = Stream::open_with(2);
        assert!(s.push("a"));
        assert_eq!(s.try_push("b".into()), Pushed::Yes);
        assert_eq!(s.try_push("c".into()), Pushed::Full("c".into()));
        let p = s.clone();
        let t = std::thread::spawn(move || {
            let ok = p.push("c");
            p.finish(Ok(()));
            ok
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !s.has_ended(),
            "the producer waits while the buffer is full"
        );
        let b = s.take().unwrap();
        assert_eq!(b.items.iter().collect::<Vec<_>>(), ["a", "b"]);
        assert!(t.join().unwrap());
        let b = s.take_within(Duration::from_secs(5)).unwrap();
        assert_eq!(b.items.iter().collect::<Vec<_>>(), ["c"]);
        assert_eq!(b.end, Some(Ok(())));
    }

    #[test]
    fn closing_stops_a_blocked_producer() {
        let s = Stream::open_with(1);
        assert!(s.push("a"));
        let p = s.clone();
        let t = std::thread::spawn(move || p.push("b"));
        std::thread::sleep(Duration::from_millis(20));
        s.close();
        assert!(!t.join().unwrap());
        assert_eq!(s.try_push("c".into()), Pushed::Closed);
    }

    #[test]
    fn a_waiter_gets_the_next_item_at_once() {
        let s = Stream::open();
        let (tx, rx) = std::sync::mpsc::channel();
        assert!(
            s.take_or_wait(Box::new(move |b| tx.send(b).unwrap()))
                .is_none()
        );
        assert!(s.push("x"));
        let b = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(b.items.iter().collect::<Vec<_>>(), ["x"]);
        assert_eq!(b.end, None);
        s.finish(Err(CallError::new(
            crate::external::request::CallErrorKind::Exited(1),
            "boom",
        )));
        let b = s.take().unwrap();
        assert!(b.items.is_empty());
        assert!(matches!(b.end, Some(Err(_))));
        // The end stays for every later taker.
        assert!(s.take().unwrap().end.is_some());
    }
}
