//! The scheduler's view of executors: something that takes call requests with a
//! ticket and reports them finished, so that one thread can keep many calls in
//! flight. [`Local`] is the built-in one: `delay` waits on a timer heap (no thread
//! per waiting call), other calls run on a pool of at most `jobs` worker threads.

use crate::external::host::{Call, perform};
use crate::machine::error::RuntimeError;
use crate::syntax::span::Span;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A finished call: its ticket and result.
pub type Done = (u64, Result<Option<String>, RuntimeError>);

/// What the scheduler needs of an executor.
pub trait Executor {
    /// Starts a call (or queues it behind the concurrency limits); `certain` calls go
    /// before speculative ones.
    fn submit(&mut self, ticket: u64, call: Call, span: Span, certain: bool);
    /// A queued or running call has become certain.
    fn promote(&mut self, ticket: u64);
    /// Calls that finished, waiting at most `timeout` for the first (`None`: as long
    /// as it takes; `Some(0)`: not at all).
    fn wait(&mut self, timeout: Option<Duration>) -> Vec<Done>;
    /// Calls started and not finished.
    fn in_flight(&self) -> usize;
    /// The most calls running at once so far.
    fn peak(&self) -> usize;
}

/// The built-in executor.
pub struct Local {
    jobs: usize,
    workers: usize,
    busy: usize,
    to_workers: Sender<(u64, Call, Span)>,
    from_caller: Arc<Mutex<Receiver<(u64, Call, Span)>>>,
    to_caller: Sender<Done>,
    done: Receiver<Done>,
    queue_certain: std::collections::VecDeque<(u64, Call, Span)>,
    queue_spec: std::collections::VecDeque<(u64, Call, Span)>,
    timers: BinaryHeap<Reverse<(Instant, u64)>>,
    in_flight: usize,
    peak: usize,
}

impl Local {
    /// An executor running at most `jobs` processes at once.
    pub fn new(jobs: usize) -> Local {
        let (to_workers, from_caller) = channel();
        let (to_caller, done) = channel();
        Local {
            jobs: jobs.max(1),
            workers: 0,
            busy: 0,
            to_workers,
            from_caller: Arc::new(Mutex::new(from_caller)),
            to_caller,
            done,
            queue_certain: Default::default(),
            queue_spec: Default::default(),
            timers: BinaryHeap::new(),
            in_flight: 0,
            peak: 0,
        }
    }

    fn start_queued(&mut self) {
        while self.busy < self.jobs {
            let Some(job) = self
                .queue_certain
                .pop_front()
                .or_else(|| self.queue_spec.pop_front())
            else {
                return;
            };
            if self.workers < self.jobs {
                self.workers += 1;
                let from_caller = Arc::clone(&self.from_caller);
                let to_caller = self.to_caller.clone();
                std::thread::spawn(move || {
                    loop {
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
            self.busy += 1;
            let _ = self.to_workers.send(job);
        }
    }
}

impl Executor for Local {
    fn submit(&mut self, ticket: u64, call: Call, span: Span, certain: bool) {
        self.in_flight += 1;
        self.peak = self
            .peak
            .max(self.in_flight.min(self.jobs.max(self.timers.len() + 1)));
        if let Call::Delay(ms) = call {
            self.timers.push(Reverse((
                Instant::now() + Duration::from_millis(ms),
                ticket,
            )));
            self.peak = self.peak.max(self.in_flight);
            return;
        }
        if certain {
            self.queue_certain.push_back((ticket, call, span));
        } else {
            self.queue_spec.push_back((ticket, call, span));
        }
        self.start_queued();
    }

    fn promote(&mut self, ticket: u64) {
        if let Some(i) = self.queue_spec.iter().position(|(t, _, _)| *t == ticket) {
            let job = self.queue_spec.remove(i).expect("queued job");
            self.queue_certain.push_back(job);
        }
    }

    fn wait(&mut self, timeout: Option<Duration>) -> Vec<Done> {
        let mut out = Vec::new();
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let now = Instant::now();
            while let Some(Reverse((at, ticket))) = self.timers.peek().copied() {
                if at > now {
                    break;
                }
                self.timers.pop();
                out.push((ticket, Ok(None)));
            }
            while let Ok(d) = self.done.try_recv() {
                self.busy -= 1;
                out.push(d);
            }
            if !out.is_empty() {
                break;
            }
            // Sleep until the next timer, the deadline, or a worker's result.
            let next_timer = self.timers.peek().map(|Reverse((at, _))| *at);
            let until = match (next_timer, deadline) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if self.busy == 0 && next_timer.is_none() {
                break;
            }
            let r = match until {
                Some(u) => {
                    let d = u.saturating_duration_since(Instant::now());
                    if d.is_zero() && deadline.is_some_and(|dl| dl <= Instant::now()) {
                        break;
                    }
                    self.done.recv_timeout(d).ok()
                }
                None => self.done.recv().ok(),
            };
            if let Some(d) = r {
                self.busy -= 1;
                out.push(d);
                break;
            }
            if deadline.is_some_and(|dl| dl <= Instant::now())
                && self
                    .timers
                    .peek()
                    .is_none_or(|Reverse((at, _))| *at > Instant::now())
            {
                break;
            }
        }
        self.in_flight -= out.len();
        self.start_queued();
        out
    }

    fn in_flight(&self) -> usize {
        self.in_flight
    }

    fn peak(&self) -> usize {
        self.peak
    }
}
