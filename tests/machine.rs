//! The machine: evaluation, tiers, audits, readback, snapshots, space and the scheduler in process.
//!
//! One test binary for the layer (issue 25): each module was a binary of its own.

mod common;
mod machine_common;

#[path = "machine/audit.rs"]
mod audit;
#[path = "machine/cpu_bench_outputs.rs"]
mod cpu_bench_outputs;
#[path = "machine/eval.rs"]
mod eval;
#[path = "machine/examples.rs"]
mod examples;
#[path = "machine/parallel.rs"]
mod parallel;
#[path = "machine/prelude_reachable.rs"]
mod prelude_reachable;
#[path = "machine/readback_deep.rs"]
mod readback_deep;
#[path = "machine/readback_golden.rs"]
mod readback_golden;
#[path = "machine/snapshot.rs"]
mod snapshot;
#[path = "machine/space.rs"]
mod space;
#[path = "machine/tiers.rs"]
mod tiers;
