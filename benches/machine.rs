//! Machine speed: tak 27 16 8, 10-queens, and a long lazy list pipeline, each loaded
//! once and evaluated on a fresh machine per iteration.

use criterion::{Criterion, criterion_group, criterion_main};
use spindle::core::program::Program;
use spindle::driver;
use spindle::machine::Machine;
use std::time::Duration;

const TAK: &str = include_str!("../tests/examples/bench/tak.sp");
const QUEENS: &str = include_str!("../tests/examples/bench/queens.sp");
const PIPELINE: &str = "def main = sum (map (\\x -> x * 3) (filter (\\x -> x % 7 != 0) \
                        (takeWhile (\\x -> x < 2000000) (iterate (\\x -> x + 1) 0))))\n";

fn load(name: &str, text: &str) -> Program {
    let loaded = driver::load_text(name, text);
    loaded.program.expect("the program loads")
}

fn run(p: &Program) -> String {
    let mut m = Machine::new(p);
    let v = m.whnf_def(p.main.expect("main")).expect("runs");
    m.print_value(v, false).expect("prints")
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("machine");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let tak = load("tak.sp", TAK);
    g.bench_function("tak 27 16 8", |b| b.iter(|| assert_eq!(run(&tak), "16")));
    let queens = load("queens.sp", QUEENS);
    g.bench_function("10-queens", |b| b.iter(|| assert_eq!(run(&queens), "724")));
    let pipeline = load("pipeline.sp", PIPELINE);
    g.bench_function("lazy pipeline, 2M elements", |b| {
        b.iter(|| assert_eq!(run(&pipeline), "5142852857145"))
    });
    g.finish();
}

criterion_group!(machine, benches);
criterion_main!(machine);
