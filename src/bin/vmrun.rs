//! Temporary: runs a program on the new machine (development only).
use spindle::driver;
use spindle::vm::Machine;
use spindle::vm::print::Output;
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let loaded = driver::load(std::path::Path::new(&path));
    if loaded.has_errors() {
        eprint!("{}", loaded.render_errors());
        std::process::exit(1);
    }
    let p = loaded.program.as_ref().unwrap();
    let mut m = Machine::new(p);
    if std::env::var("VMPAR").is_ok() {
        spindle::sched::Scheduler::install(&mut m, spindle::external::exec::Limits::default());
    }
    let (r, _) = m.print_def(
        p.main.unwrap(),
        false,
        Output::stream(Box::new(std::io::stdout())),
    );
    m.shutdown();
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
