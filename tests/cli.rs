//! The `spindle` binary end to end: workflows, effects, the result store, limits, streams, models, the REPL.
//!
//! One test binary for the layer (issue 25): each module was a binary of its own.

mod common;
mod e2e_common;

#[path = "cli/batch.rs"]
mod batch;
#[path = "cli/batch_mock.rs"]
mod batch_mock;
#[path = "cli/calls_hold.rs"]
mod calls_hold;
#[path = "cli/effects.rs"]
mod effects;
#[path = "cli/examples.rs"]
mod examples;
#[path = "cli/fstrace.rs"]
mod fstrace;
#[path = "cli/library.rs"]
mod library;
#[path = "cli/lifetime.rs"]
mod lifetime;
#[path = "cli/limits.rs"]
mod limits;
#[path = "cli/llm.rs"]
mod llm;
#[path = "cli/readme.rs"]
mod readme;
#[path = "cli/repl_pty.rs"]
mod repl_pty;
#[path = "cli/result_store.rs"]
mod result_store;
#[path = "cli/resume.rs"]
mod resume;
#[path = "cli/robustness.rs"]
mod robustness;
#[path = "cli/run_match_messages.rs"]
mod run_match_messages;
#[path = "cli/streams.rs"]
mod streams;
#[path = "cli/trust.rs"]
mod trust;
#[path = "cli/workflow_cli.rs"]
mod workflow_cli;
