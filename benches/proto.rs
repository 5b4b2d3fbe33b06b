//! Serialization speed (issue 6): encoding and decoding the prelude as a program (each
//! must take under 10 ms in a release build), hashing it, printing a decoded program
//! back to source, and a deep term (a 100,000-element list literal).

use criterion::{Criterion, criterion_group, criterion_main};
use prost::Message;
use spindle::core::term::{Lit, Term};
use spindle::driver;
use spindle::proto::decode::{self, Scope};
use spindle::proto::{encode, hash, source};
use std::hint::black_box;

fn prelude(c: &mut Criterion) {
    let program = driver::load_text("empty.sp", "")
        .program
        .expect("the prelude loads");
    let counts = program.counts();
    let bytes = encode::program_bytes(&program, counts);
    eprintln!("the prelude encodes to {} bytes", bytes.len());

    c.bench_function("encode the prelude (to bytes)", |b| {
        b.iter(|| black_box(encode::program_bytes(black_box(&program), counts)))
    });
    c.bench_function("decode the prelude (from bytes, checked)", |b| {
        b.iter(|| black_box(decode::program_bytes(black_box(&bytes)).expect("decodes")))
    });
    c.bench_function("hash the prelude", |b| {
        b.iter(|| black_box(hash::program(black_box(&program))))
    });
    let decoded = decode::program_bytes(&bytes).expect("decodes");
    c.bench_function("print a decoded program (checks the prelude)", |b| {
        let prelude = spindle::driver::prelude_program();
        b.iter(|| {
            black_box(
                source::program_to_source(black_box(&decoded), prelude.as_ref()).expect("prints"),
            )
        })
    });
}

fn deep_list(c: &mut Criterion) {
    let l = driver::load_text("empty.sp", "").program.expect("loads");
    let (cons, nil) = (l.builtins.cons, l.builtins.nil);
    let list = (0..100_000).rev().fold(Term::Con(nil).rc(), |rest, i| {
        Term::apps(Term::Con(cons).rc(), [Term::Lit(Lit::Int(i)).rc(), rest])
    });
    let scope = Scope::of_program(&l);
    let bytes = encode::term(&list).encode_to_vec();
    c.bench_function("encode a 100k-element list literal", |b| {
        b.iter(|| black_box(encode::term(black_box(&list)).encode_to_vec()))
    });
    c.bench_function("decode a 100k-element list literal", |b| {
        b.iter(|| black_box(decode::term_bytes(black_box(&bytes), &scope).expect("decodes")))
    });
}

criterion_group!(benches, prelude, deep_list);
criterion_main!(benches);
