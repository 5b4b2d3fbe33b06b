//! The Slurm executor (LANGUAGE.md 12, DESIGN.md 6): process calls as Slurm batch jobs.

use crate::external::exec::{Completion, Ticket};
use crate::external::request::ProcessRequest;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// How to reach Slurm (`--executor slurm`, `--slurm-options`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlurmConfig {
    /// Options added to every `sbatch` (split as a shell would).
    pub options: String,
    /// How often the queue is looked at (`None`: every 500 ms).
    pub poll: Option<Duration>,
}

/// The Slurm executor.
#[derive(Debug)]
pub struct Slurm {
    next_poll: Instant,
}

impl Slurm {
    /// A Slurm executor keeping its per-run files under `runs`.
    pub fn new(
        _config: SlurmConfig,
        _runs: &Path,
        _jobs: usize,
        _timeout: Option<Duration>,
    ) -> std::io::Result<Slurm> {
        Err(std::io::Error::other("the Slurm executor is not built yet"))
    }
    /// Submits a process call.
    pub fn submit(&mut self, _ticket: Ticket, _req: ProcessRequest) {}
    /// Cancels a call.
    pub fn cancel(&mut self, _ticket: Ticket) {}
    /// When the queue is next looked at.
    pub fn next_poll(&self) -> Instant {
        self.next_poll
    }
    /// Looks at the queue; the calls that ended.
    pub fn poll(&mut self) -> Vec<Completion> {
        Vec::new()
    }
    /// Jobs that started running since the last call.
    pub fn take_started(&mut self) -> Vec<(Ticket, SystemTime)> {
        Vec::new()
    }
    /// Cancels every job.
    pub fn shutdown(&mut self) {}
}
