//! Retries: a failing call waits 1 s, 2 s, 4 s, ... before it runs again
//! (`--retries N`), unless its failure is one another attempt cannot mend.

use super::*;

/// Whether a failure is worth another attempt.
pub(super) fn retryable(e: &CallError) -> bool {
    !matches!(
        e.kind,
        CallErrorKind::BadArgument
            | CallErrorKind::Stopping
            | CallErrorKind::NotStarted
            | CallErrorKind::Planned
            | CallErrorKind::OutOfMemory
    )
}

impl Calls {
    /// Retries whose wait is over go to their executor again.
    pub(super) fn retry_due(&mut self) {
        let now = Instant::now();
        while let Some(&Reverse((at, ticket, generation))) = self.backoff.peek() {
            if at > now {
                break;
            }
            self.backoff.pop();
            let due = self
                .entries
                .get(&ticket)
                .is_some_and(|e| e.generation == generation && e.stage == Stage::Backoff);
            if due {
                self.dispatch(ticket);
            }
        }
    }
}
