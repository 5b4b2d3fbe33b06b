//! The front end: parsing, checking, diagnostics, printing and the prelude names.
//!
//! One test binary for the layer (issue 25): each module was a binary of its own.

mod common;

#[path = "front/check_costs.rs"]
mod check_costs;
#[path = "front/check_diagnostics.rs"]
mod check_diagnostics;
#[path = "front/check_golden.rs"]
mod check_golden;
#[path = "front/decode_source.rs"]
mod decode_source;
#[path = "front/parser_robustness.rs"]
mod parser_robustness;
#[path = "front/prelude_names.rs"]
mod prelude_names;
#[path = "front/print_roundtrip.rs"]
mod print_roundtrip;
#[path = "front/typing.rs"]
mod typing;
