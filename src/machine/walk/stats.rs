//! Evaluation statistics (`spindle run --stats`, LANGUAGE.md section 10).

use super::Sight;
use std::fmt::Write;

/// Counters kept by the machine.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Machine steps (one per transition of the evaluation loop).
    pub steps: u64,
    /// Records (context segments) ever allocated.
    pub contexts_allocated: u64,
    /// Most records live at once.
    pub contexts_peak: u64,
    /// Records live at the end.
    pub contexts_live: u64,
    /// Thunks ever allocated.
    pub thunks_allocated: u64,
    /// Most heap objects of all kinds live at once (sum of each kind's peak).
    pub objects_peak: u64,
    /// Heap objects live at the end.
    pub objects_live: u64,
    /// Most frames on the machine stack at once (frames are the stacks).
    pub stacks_peak: u64,
    /// External calls made.
    pub externals_dispatched: u64,
    /// Most external calls running at once (1 with `--sequential` once any ran).
    pub externals_peak_in_flight: u64,
    /// Wall-clock milliseconds of the run.
    pub wall_ms: u64,
    /// Model tokens in (prompt) of the calls that ran (the caller's to fill in).
    pub tokens_in: u64,
    /// Model tokens out (completion) of the calls that ran.
    pub tokens_out: u64,
    /// Model tokens of calls answered from the result store (not paid again).
    pub tokens_reused: u64,
}

impl Stats {
    /// The `key: value` lines printed by `--stats`.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let rows: [(&str, u64); 14] = [
            ("steps", self.steps),
            ("contexts_allocated", self.contexts_allocated),
            ("contexts_peak", self.contexts_peak),
            ("contexts_live", self.contexts_live),
            ("thunks_allocated", self.thunks_allocated),
            ("objects_peak", self.objects_peak),
            ("objects_live", self.objects_live),
            ("stacks_peak", self.stacks_peak),
            ("externals_dispatched", self.externals_dispatched),
            ("externals_peak_in_flight", self.externals_peak_in_flight),
            ("wall_ms", self.wall_ms),
            ("tokens_in", self.tokens_in),
            ("tokens_out", self.tokens_out),
            ("tokens_reused", self.tokens_reused),
        ];
        for (k, v) in rows {
            let _ = writeln!(s, "{k}: {v}");
        }
        s
    }
}

impl<'a, 'p> Sight<'a, 'p> {
    /// Statistics so far (`wall_ms` is the caller's to fill in).
    pub fn stats(&self) -> Stats {
        let h = &self.heap;
        let (dispatched, peak) = self.host.as_ref().map_or((0, 0), |h| h.counters());
        Stats {
            steps: self.run.steps,
            contexts_allocated: h.recs.allocated(),
            contexts_peak: h.recs.peak() as u64,
            contexts_live: h.recs.live() as u64,
            thunks_allocated: h.thunks.allocated(),
            objects_peak: (h.thunks.peak()
                + h.recs.peak()
                + h.cons.peak()
                + h.strs.peak()
                + h.funs.peak()
                + h.paps.peak()) as u64,
            objects_live: h.live_objects() as u64,
            stacks_peak: self.run.frames_peak.max(self.stacks.frames.len()) as u64,
            externals_dispatched: dispatched,
            externals_peak_in_flight: peak,
            wall_ms: 0,
            tokens_in: 0,
            tokens_out: 0,
            tokens_reused: 0,
        }
    }
}
