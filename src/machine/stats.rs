//! Evaluation statistics (`spindle run --stats`, LANGUAGE.md section 10), in the
//! spirit of Rogers' figures: contexts allocated, and the high-water marks of contexts
//! and stacks.

use std::fmt::Write;

/// Counters kept by the machine.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Machine steps (one per transition of the evaluation loop).
    pub steps: u64,
    /// Context entries ever allocated.
    pub contexts_allocated: u64,
    /// Most context entries live at once.
    pub contexts_peak: u64,
    /// Most spines live at once: frames of the machine stack (pending applications
    /// and waiting continuations) plus wound stack records.
    pub stacks_peak: u64,
    /// Most frames on the machine stack at once.
    pub frames_peak: u64,
    /// Context entries live at the end.
    pub contexts_live: u64,
    /// External calls made.
    pub externals_dispatched: u64,
    /// Most external calls running at once (1 with `--sequential` once any ran).
    pub externals_peak_in_flight: u64,
    /// Wall-clock milliseconds of the run.
    pub wall_ms: u64,
}

impl Stats {
    /// The `key: value` lines printed by `--stats`.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let rows: [(&str, u64); 9] = [
            ("steps", self.steps),
            ("contexts_allocated", self.contexts_allocated),
            ("contexts_peak", self.contexts_peak),
            ("contexts_live", self.contexts_live),
            ("stacks_peak", self.stacks_peak),
            ("frames_peak", self.frames_peak),
            ("externals_dispatched", self.externals_dispatched),
            ("externals_peak_in_flight", self.externals_peak_in_flight),
            ("wall_ms", self.wall_ms),
        ];
        for (k, v) in rows {
            let _ = writeln!(s, "{k}: {v}");
        }
        s
    }
}
