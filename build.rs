//! Generates the Rust side of `proto/spindle.proto` with prost-build. The `.proto` file is
//! compiled by protox (a protobuf compiler written in Rust), so building needs no
//! `protoc` binary.

fn main() {
    let proto = "proto/spindle.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = match protox::compile([proto], ["proto"]) {
        Ok(fds) => fds,
        Err(e) => panic!("cannot compile {proto}: {e:?}"),
    };
    if let Err(e) = prost_build::Config::new().compile_fds(descriptors) {
        panic!("cannot generate Rust code for {proto}: {e}");
    }
}
