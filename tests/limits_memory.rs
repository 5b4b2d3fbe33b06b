//! `--max-memory` counts external results as they are read (issue 30): a process's
//! output, a file, a stream's line, an HTTP body past the limit end the run with a clean
//! `out of memory` naming the call and a non-zero status, the reading stops at the
//! limit (peak memory stays far below what the tool wrote), and the tool is stopped.
//!
//! One test, its cases one after another: the peak resident size of the children
//! (`getrusage(RUSAGE_CHILDREN)`) is the largest of every `spindle` run so far, so
//! nothing else in this test binary may run a large one.

mod e2e_common;

use e2e_common::*;
use nix::sys::resource::{UsageWho, getrusage};
use std::time::Duration;

/// What the tools write: 300 MiB (or without end).
const OUTPUT: u64 = 300 << 20;

/// The largest resident size of any child waited for, in bytes.
fn children_peak() -> u64 {
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    // Linux gives kilobytes.
    usage.max_rss() as u64 * 1024
}

/// A server on a free port of 127.0.0.1 that answers one request with a body of
/// 300 MiB without a `Content-Length`, written until the client hangs up.
fn endless_http_server() -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        let Ok((mut conn, _)) = listener.accept() else {
            return;
        };
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
            match conn.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
        if conn
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
            .is_err()
        {
            return;
        }
        let chunk = vec![b'a'; 1 << 16];
        let mut sent = 0;
        while sent < OUTPUT && conn.write_all(&chunk).is_ok() {
            sent += chunk.len() as u64;
        }
    });
    port
}

/// Asserts a run ended with `out of memory` naming `call`.
fn out_of_memory(out: &std::process::Output, call: &str) {
    let err = stderr(out);
    assert!(!out.status.success(), "succeeded:\n{err}");
    assert!(
        err.contains("error:") && err.contains("out of memory") && err.contains(call),
        "not an out-of-memory error naming {call}:\n{err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{err}"
    );
    // An abort (exit 134) or a signal is no clean end.
    assert_eq!(out.status.code(), Some(1), "{err}");
}

#[test]
fn external_results_count_against_max_memory() {
    for mode in MODES {
        // A tool that writes without end: reading stops at the limit, and the tool
        // is stopped (it would never end by itself).
        let wf = Wf::new();
        let word = format!("w{}", unique());
        wf.write(
            "out.sp",
            &format!("def main : Int = strLength (run \"yes\" [\"{word}\"])\n"),
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "out.sp"]);
        let out = wf.run(&args);
        out_of_memory(&out, &format!("yes {word}"));
        assert!(
            wait_until(Duration::from_secs(5), || procs_with_arg(&word).is_empty()),
            "{mode:?}: `yes` left running"
        );
        kill_leftovers(&word);

        // `runResult` reads the same way.
        wf.write(
            "result.sp",
            &format!(
                "def main : Int = strLength (stdout (runResult \"head\" [\"-c\", \"{OUTPUT}\", \"/dev/zero\"] \"\"))\n"
            ),
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "result.sp"]);
        out_of_memory(&wf.run(&args), &format!("head -c {OUTPUT} /dev/zero"));

        // A file past the limit is refused before it is read.
        let big = wf.file("big.txt");
        std::fs::File::create(&big)
            .and_then(|f| f.set_len(OUTPUT))
            .expect("a sparse file");
        wf.write(
            "file.sp",
            "def main : Int = strLength (readFile \"big.txt\")\n",
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "file.sp"]);
        out_of_memory(&wf.run(&args), "readFile big.txt");

        // A stream's line that never ends.
        wf.write(
            "lines.sp",
            &format!("def main : Int = length (shellLines \"head -c {OUTPUT} /dev/zero\")\n"),
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "lines.sp"]);
        out_of_memory(&wf.run(&args), &format!("head -c {OUTPUT} /dev/zero"));

        // An HTTP body without a length, sent without end: reading stops at the limit.
        let port = endless_http_server();
        wf.write(
            "http.sp",
            &format!("def main : Int = strLength (httpGet \"http://127.0.0.1:{port}/big\")\n"),
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "http.sp"]);
        let out = wf
            .command(&args)
            .env("NO_PROXY", "*")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("spindle runs");
        out_of_memory(&out, &format!("GET http://127.0.0.1:{port}/big"));

        // Under the limit all of it is read.
        wf.write(
            "small.sp",
            "def main : Int = strLength (shell \"head -c 1000000 /dev/zero | tr '\\\\0' a\")\n",
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "small.sp"]);
        assert_eq!(ok(&wf.run(&args)), "1000000\n");
    }
    // Every run above stayed far below what its tool wrote.
    let peak = children_peak();
    assert!(peak < 200 << 20, "a run reached {} MiB", peak >> 20);
}
