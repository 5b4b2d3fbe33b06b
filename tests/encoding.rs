//! Terms and programs in protobuf: the codec and the command line.
//!
//! One test binary for the layer (issue 25): each module was a binary of its own.

mod common;

#[path = "encoding/cli.rs"]
mod cli;
#[path = "encoding/codec.rs"]
mod codec;
