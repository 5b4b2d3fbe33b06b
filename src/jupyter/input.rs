//! Standard input in a notebook: `input_request` on the stdin channel.
//!
//! A kernel's descriptor 0 has no one typing at it. When a cell reads standard input
//! (`readFile "/dev/stdin"`, `readLines "/dev/stdin"`: see
//! [`crate::external::stdin`]) and its `execute_request` allows input
//! (`allow_stdin`), the kernel sends an `input_request` to the notebook, which shows an
//! input box, and the `input_reply`'s value is the line read. When the request does not
//! allow input (a client that cannot answer), the read fails at once with an error
//! that says so, rather than waiting for an answer that cannot come. An interrupt
//! stops a read that waits.
//!
//! The read happens on a thread of the call layer while the cell's evaluation waits
//! for it; the reply comes on the socket thread. [`Input`] joins the two.

use super::wire::Message;
use super::worker::{Outgoing, Shared};
use serde_json::{Value, json};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Why a cell cannot read standard input when its request does not allow it.
pub const NOT_ALLOWED: &str = "standard input cannot be read: the notebook's request does \
     not allow input (`allow_stdin` is false)";

/// How often a waiting read looks at the interrupt flag.
const POLL: Duration = Duration::from_millis(50);

/// What the socket thread hands a waiting read: the line typed, or why none comes.
type Answer = Result<String, String>;

/// The requests for input of the running cell, and their answers.
pub struct Input {
    /// The running cell's `execute_request` while it allows input (the parent of
    /// each `input_request`); `None` otherwise.
    asking: Mutex<Option<Message>>,
    /// Answers from the socket thread; held by the one read that waits (reads take
    /// turns).
    answers: Mutex<Receiver<Answer>>,
    /// Where the socket thread puts answers.
    answer_tx: Sender<Answer>,
}

impl Default for Input {
    fn default() -> Self {
        Input::new()
    }
}

impl Input {
    /// No cell running, nothing asked.
    pub fn new() -> Input {
        let (answer_tx, answers) = std::sync::mpsc::channel();
        Input {
            asking: Mutex::new(None),
            answers: Mutex::new(answers),
            answer_tx,
        }
    }

    fn asking(&self) -> MutexGuard<'_, Option<Message>> {
        self.asking.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A cell starts: it may ask for input when its request's `allow_stdin` is true.
    pub fn begin(&self, request: &Message) {
        let allowed = request
            .content
            .get("allow_stdin")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        *self.asking() = allowed.then(|| request.clone());
    }

    /// The cell ended: a read still waiting fails.
    pub fn end(&self) {
        *self.asking() = None;
    }

    /// Reads a line for the running cell: asks the notebook and waits for its answer,
    /// or for an interrupt, or for the cell to end.
    pub fn read_line(&self, shared: &Shared) -> Result<String, String> {
        let answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        let Some(parent) = self.asking().clone() else {
            return Err(NOT_ALLOWED.to_string());
        };
        // An answer to an earlier request that no read took any more.
        while answers.try_recv().is_ok() {}
        let request = Message::new(
            "input_request",
            &shared.kernel_session,
            Some(&parent),
            json!({"prompt": "", "password": false}),
        );
        if shared.out.send(Outgoing::Stdin(request)).is_err() {
            return Err("the kernel is shutting down".into());
        }
        loop {
            match answers.recv_timeout(POLL) {
                Ok(answer) => return answer,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the kernel is shutting down".into());
                }
                Err(RecvTimeoutError::Timeout) => {
                    if shared.interrupted.load(Ordering::SeqCst) {
                        return Err("interrupted while waiting for input".into());
                    }
                    if self.asking().is_none() {
                        return Err("the cell ended before its input came".into());
                    }
                }
            }
        }
    }

    /// An `input_reply` came: its value goes to the waiting read.
    pub fn answer(&self, reply: &Message) {
        let value = reply
            .content
            .get("value")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let _ = self.answer_tx.send(Ok(value));
    }

    /// The `input_request` could not be sent (no client on the stdin channel): the
    /// waiting read fails with `why`.
    pub fn failed(&self, why: String) {
        let _ = self.answer_tx.send(Err(why));
    }
}
