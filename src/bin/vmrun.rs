//! Temporary: runs a program on the new machine (development only).
use spindle::driver;
use spindle::machine::Machine;
use spindle::machine::print::Output;
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let loaded = driver::load(std::path::Path::new(&path));
    if loaded.has_errors() {
        eprint!("{}", loaded.render_errors());
        std::process::exit(1);
    }
    let p = loaded.program.as_ref().unwrap();
    if let Ok(n) = std::env::var("VMSNAP") {
        let prelude = spindle::proto::prelude_counts(&loaded.sources, p);
        for n in n.split(',') {
            let n: u64 = n.parse().unwrap();
            match spindle::snapshot::evaluate_for(p, prelude, p.main.unwrap(), n) {
                Ok(spindle::snapshot::Progress::Paused(s)) => {
                    if std::env::var("VMSHOW").is_ok() {
                        let d = spindle::proto::decode::program_bytes_within(
                            &s.bytes,
                            spindle::proto::MAX_STATE_BYTES,
                        )
                        .unwrap();
                        eprintln!(
                            "{}",
                            spindle::proto::source::program_to_source(
                                &d,
                                spindle::driver::prelude_program().as_ref()
                            )
                            .unwrap()
                            .lines()
                            .filter(|l| l.contains("def main"))
                            .collect::<Vec<_>>()
                            .join("\n")
                        );
                    }
                    println!(
                        "{n}: {:?}",
                        spindle::snapshot::resume(&s).map(|r| r.map_err(|e| e.message.clone()))
                    );
                }
                Ok(spindle::snapshot::Progress::Finished(r)) => {
                    println!("{n}: finished {:?}", r.map_err(|e| e.message.clone()))
                }
                Err(e) => println!("{n}: error {e}"),
            }
        }
        return;
    }
    let mut m = Machine::new(p);
    if let Ok(n) = std::env::var("VMAUDIT") {
        m.audit_every = n.parse().unwrap();
    }
    if std::env::var("VMPAR").is_ok() {
        spindle::sched::Scheduler::install(&mut m, spindle::external::exec::Limits::default());
    }
    let (r, _) = m.print_def(
        p.main.unwrap(),
        false,
        Output::stream(Box::new(std::io::stdout())),
    );
    m.shutdown();
    if std::env::var("VMAUDIT").is_ok() {
        let freed = m.collect_cycles();
        eprintln!(
            "cycles freed {freed}; final audit: {:?}",
            m.audit(None, false)
        );
    }
    match r {
        Ok(()) => println!(),
        Err(e) => {
            eprint!(
                "{}",
                spindle::diagnostic::render(&loaded.sources, &[e.to_diagnostic()])
            );
            std::process::exit(1);
        }
    }
    if std::env::var("VMSTATS").is_ok() {
        let h = &m.heap;
        eprintln!(
            "steps {} live {} | allocated: recs {} thunks {} cons {} funs {} paps {} strs {}",
            m.steps,
            h.live_objects(),
            h.recs.allocated(),
            h.thunks.allocated(),
            h.cons.allocated(),
            h.funs.allocated(),
            h.paps.allocated(),
            h.strs.allocated()
        );
    }
}
