//! The store's writer thread: batches of records written while the calls go on.

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Writes the store's batches on a thread of its own, in the order given, so that the
/// calls' thread does not wait for the B-tree or the disk; a durable write is waited
/// for. The first error is kept for the calls' thread to report; the batches after it
/// are still tried. Dropping it writes what was sent and ends the thread.
pub(super) struct StoreWriter {
    pub(super) tx: Option<Sender<WriteJob>>,
    pub(super) error: Arc<Mutex<Option<StoreError>>>,
    pub(super) thread: Option<std::thread::JoinHandle<()>>,
}

/// A batch, whether it must be durable, and whom to tell when it is written.
pub(super) type WriteJob = (Batch, bool, Option<Sender<()>>);

/// Batches handed to a writer thread and not yet written, in this process.
static UNWRITTEN: AtomicUsize = AtomicUsize::new(0);

/// Waits (at most `limit`) until the batches handed to the store's writer are written:
/// a run stopped by a signal keeps the records of the calls that had ended
/// ([`crate::external::lifetime::at_signal`]).
pub fn wait_for_writes(limit: Duration) {
    let until = Instant::now() + limit;
    while UNWRITTEN.load(Ordering::SeqCst) > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
}

impl StoreWriter {
    pub(super) fn start(store: Arc<Store>) -> StoreWriter {
        let (tx, rx) = channel::<WriteJob>();
        let error = Arc::new(Mutex::new(None));
        let seen = error.clone();
        crate::external::lifetime::at_signal(|| wait_for_writes(Duration::from_secs(3)));
        let thread = std::thread::Builder::new()
            .name("spindle-store".into())
            .spawn(move || {
                for (mut batch, durable, done) in rx {
                    if let Err(e) = store.commit(&mut batch, durable) {
                        let mut first = seen.lock().unwrap_or_else(|p| p.into_inner());
                        first.get_or_insert(e);
                    }
                    UNWRITTEN.fetch_sub(1, Ordering::SeqCst);
                    if let Some(done) = done {
                        let _ = done.send(());
                    }
                }
            })
            .ok();
        StoreWriter {
            tx: thread.as_ref().map(|_| tx),
            error,
            thread,
        }
    }

    /// Hands `batch` over (`durable`: and waits until it is on disk). Without a thread
    /// (it could not be started) nothing is written, and that is reported.
    pub(super) fn write(&self, batch: Batch, durable: bool) {
        let Some(tx) = &self.tx else {
            let mut first = self.error.lock().unwrap_or_else(|p| p.into_inner());
            first.get_or_insert(StoreError::Io("cannot start the store's writer".into()));
            return;
        };
        UNWRITTEN.fetch_add(1, Ordering::SeqCst);
        if durable {
            let (done_tx, done_rx) = channel();
            if tx.send((batch, true, Some(done_tx))).is_ok() {
                let _ = done_rx.recv();
            } else {
                UNWRITTEN.fetch_sub(1, Ordering::SeqCst);
            }
        } else if tx.send((batch, false, None)).is_err() {
            UNWRITTEN.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// The first error met, once.
    pub(super) fn take_error(&self) -> Option<StoreError> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl Drop for StoreWriter {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Calls {
    /// Writes the batch when it is due (`force`: now, durably, and waits until it is
    /// on disk). Batches that are not forced are written by the store's writer thread
    /// while the calls go on.
    pub(super) fn maybe_commit(&mut self, force: bool) {
        if self.shared.store.is_none() {
            return;
        }
        self.batch.fingerprints.extend(self.shared.fps.take_new());
        if self.batch.is_empty() {
            self.batch_since = None;
        } else if self.batch_since.is_none() {
            self.batch_since = Some(Instant::now());
        }
        // A write waits at most COMMIT_EVERY (so that a run that ends sooner writes
        // once, at its end). Many records at once (a fan-out ending) go out in slices
        // while the calls are still coming in, so that the last commit has little left.
        let due = force
            || std::mem::take(&mut self.paid_unwritten)
            || self.batch.records.len() >= COMMIT_SLICE
            || (!self.batch.records.is_empty() || self.batch.len() > 10_000)
                && self
                    .batch_since
                    .is_some_and(|t| t.elapsed() >= COMMIT_EVERY);
        if self.shared.plan {
            self.batch = Batch::default();
            return;
        }
        // A forced commit also makes the earlier, eventual ones durable.
        let sync_only = force && self.unsynced && self.batch.is_empty();
        if due && (!self.batch.is_empty() || sync_only) {
            self.unsynced = !force;
            let batch = std::mem::take(&mut self.batch);
            if let Some(w) = &self.writer {
                w.write(batch, force);
            }
            self.batch_since = None;
        }
        if let Some(e) = self.writer.as_ref().and_then(StoreWriter::take_error)
            && self.store_error.is_none()
        {
            self.progress.println(&format!(
                "warning: {e}: results of this run are not recorded"
            ));
            self.store_error = Some(e);
        }
    }
}
