//! Front-end speed: parsing and resolving the prelude with an example program, and
//! parsing a large generated file (a long list literal and a long operator chain).

use bumpalo::Bump;
use criterion::{Criterion, criterion_group, criterion_main};
use spindle::driver;
use spindle::syntax::parser;
use spindle::syntax::span::FileId;
use std::hint::black_box;

const QUEENS: &str = include_str!("../tests/examples/bench/queens.sp");

fn load_queens(c: &mut Criterion) {
    c.bench_function("load prelude + queens (parse, resolve)", |b| {
        b.iter(|| {
            let loaded = driver::load_text("queens.sp", black_box(QUEENS));
            assert!(loaded.program.is_some());
        })
    });
}

fn parse_large(c: &mut Criterion) {
    let items: Vec<String> = (0..50_000).map(|i| i.to_string()).collect();
    let text = format!(
        "def xs = [{}]\ndef total = {}\n",
        items.join(", "),
        items.join(" + ")
    );
    c.bench_function("parse 50k-element list and 50k-operand sum", |b| {
        b.iter(|| {
            let arena = Bump::new();
            let (module, errors) = parser::parse_module(&arena, FileId(0), black_box(&text));
            assert!(errors.is_empty());
            black_box(module.decls.len());
        })
    });
}

criterion_group!(benches, load_queens, parse_large);
criterion_main!(benches);
