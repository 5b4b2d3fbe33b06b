//! A pool of worker threads that perform external calls (DESIGN.md section 4): the
//! calls are processes and I/O, not interpreter work, so the interpreter stays on one
//! thread and hands each call to a worker through a channel. At most `jobs` calls run
//! at once (one per worker); more wait in the channel.

use super::host::{Call, perform};
use crate::machine::error::RuntimeError;
use crate::syntax::span::Span;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

/// A finished call: who asked (a ticket the caller chose) and its result.
pub type Done = (u32, Result<Option<String>, RuntimeError>);

/// The workers and the two channels.
pub struct Pool {
    jobs: usize,
    workers: usize,
    to_workers: Sender<(u32, Call, Span)>,
    from_caller: Arc<Mutex<Receiver<(u32, Call, Span)>>>,
    to_caller: Sender<Done>,
    done: Receiver<Done>,
}

impl Pool {
    /// A pool of at most `jobs` workers (started as calls come).
    pub fn new(jobs: usize) -> Pool {
        let (to_workers, from_caller) = channel();
        let (to_caller, done) = channel();
        Pool {
            jobs: jobs.max(1),
            workers: 0,
            to_workers,
            from_caller: Arc::new(Mutex::new(from_caller)),
            to_caller,
            done,
        }
    }

    /// Hands a call to the workers; its result comes back with `ticket`.
    pub fn submit(&mut self, ticket: u32, call: Call, span: Span, in_flight: usize) {
        if self.workers < self.jobs && self.workers < in_flight + 1 {
            self.workers += 1;
            let from_caller = Arc::clone(&self.from_caller);
            let to_caller = self.to_caller.clone();
            std::thread::spawn(move || {
                loop {
                    // The lock is held only to take one call.
                    let next = match from_caller.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((ticket, call, span)) = next else {
                        return;
                    };
                    let result = perform(&call, span);
                    if to_caller.send((ticket, result)).is_err() {
                        return;
                    }
                }
            });
        }
        // The receiving side lives as long as the pool does.
        let _ = self.to_workers.send((ticket, call, span));
    }

    /// A finished call, if one is ready.
    pub fn try_done(&self) -> Option<Done> {
        self.done.try_recv().ok()
    }

    /// Waits for the next finished call.
    pub fn wait_done(&self) -> Option<Done> {
        self.done.recv().ok()
    }
}
