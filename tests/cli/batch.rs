//! Batch mode end to end (issue 33): the real binary against the mock Batch API
//! (`e2e_common::batch_server`) on 127.0.0.1. A run goes round by round (exit status
//! 75 while a batch is out), prints what a live run with the same answers prints,
//! never submits a call twice, never performs an effect twice, finds a batch again
//! after a crash between submitting and recording it, resumes from a copied store,
//! and says what went wrong when the provider refuses a batch.

use crate::e2e_common;

use e2e_common::batch_server::{BatchServer, Item, Outcome, default_outcome};
use e2e_common::*;
use std::collections::HashSet;
use std::process::Output;

const KEY: &str = "sk-test-batch-abcdefghijklmnop";

/// The status of a run waiting on a batch.
const PENDING: i32 = 75;

fn run_against(wf: &Wf, server: &BatchServer, args: &[&str]) -> Output {
    run_with_env(wf, server, args, &[])
}

/// `spindle run` against `server` with more environment variables.
fn run_with_env(wf: &Wf, server: &BatchServer, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = wf.command(args);
    c.env("OPENAI_BASE_URL", server.base())
        .env("OPENAI_API_KEY", KEY)
        .env_remove("SPINDLE_BATCH_POLL_MS")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null());
    c.output().expect("spindle runs")
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// Runs `file` in batch mode to its end: the first run with `--llm-batch openai`,
/// then `--resume` until it is over (each batch completes at the first poll after
/// `validating`). The last output and the number of runs that exited with 75.
fn batch_to_end(wf: &Wf, server: &BatchServer, file: &str) -> (Output, usize) {
    let mut o = run_against(wf, server, &["--llm-batch", "openai", file]);
    let mut pending = 0;
    while code(&o) == PENDING {
        pending += 1;
        assert!(pending < 50, "too many rounds:\n{}", stderr(&o));
        assert_eq!(stdout(&o), "", "a round that waits prints nothing");
        o = run_against(wf, server, &["--resume", file]);
        // A batch seen `validating` once: the next poll finds it done.
        while code(&o) == PENDING && stderr(&o).contains("is validating") {
            o = run_against(wf, server, &["--resume", file]);
        }
    }
    (o, pending)
}

/// Every custom id the server was sent, with how many times.
fn submitted(server: &BatchServer) -> Vec<String> {
    server
        .batches()
        .iter()
        .flat_map(|b| b.custom_ids.clone())
        .collect()
}

fn assert_no_call_twice(server: &BatchServer) {
    let ids = submitted(server);
    let set: HashSet<&String> = ids.iter().collect();
    assert_eq!(set.len(), ids.len(), "a call was submitted twice: {ids:?}");
}

fn statuses(server: &BatchServer) {
    server.set_statuses_all(&["validating", "completed"]);
}

/// A mock server that answers every prompt with itself, each batch completed at its
/// second look, and a workflow folder whose `wf.sp` is `src`.
fn echo_workflow(src: &str) -> (BatchServer, Wf) {
    let server = BatchServer::echo();
    statuses(&server);
    let wf = Wf::new();
    wf.write("wf.sp", src);
    (server, wf)
}

const TWO_LEVELS: &str = "\
def model : String = \"m1\"

def ask (q : String) : String = llm model q

def main : List String =
  let firsts = map (\\i -> ask (\"q\" ++ showInt i)) (range 0 3) in
  map (\\a -> ask (\"again \" ++ a)) firsts
";

#[test]
fn a_batch_run_goes_round_by_round_and_prints_what_a_live_run_prints() {
    let (server, wf) = echo_workflow(TWO_LEVELS);
    let live_wf = Wf::new();
    live_wf.write("wf.sp", TWO_LEVELS);
    let live = ok(&run_against(&live_wf, &server, &["wf.sp"]));
    assert_eq!(
        live.trim(),
        "[\"re: again re: q0\", \"re: again re: q1\", \"re: again re: q2\"]"
    );
    let live_calls = server.live_calls().len();
    let first = run_against(&wf, &server, &["--llm-batch", "openai", "wf.sp"]);
    assert_eq!(code(&first), PENDING, "{}", stderr(&first));
    assert!(
        stderr(&first).contains("round 1 submitted: 3 model calls"),
        "{}",
        stderr(&first)
    );
    assert_eq!(server.batches().len(), 1);
    let (last, pending) = batch_to_end(&wf, &server, "wf.sp");
    assert_eq!(ok(&last), live, "{}", stderr(&last));
    assert_eq!(pending, 2, "two levels of dependent calls: two rounds");
    assert_eq!(server.batches().len(), 2);
    assert_eq!(
        server.live_calls().len(),
        live_calls,
        "no call was made live"
    );
    assert_no_call_twice(&server);
    assert!(
        stderr(&last).contains("batch: done in 2 rounds"),
        "{}",
        stderr(&last)
    );
    // The run is over: its record is gone, and a new run starts afresh.
    assert!(!wf.file("store/batches/wf.sp.json").exists());
}

#[test]
fn batch_lines_are_the_live_requests() {
    let (server, wf) = echo_workflow(
        "def main : String = replyText (llmChat (withTemperature 0.5 (request \"m2\" [System \"be brief\", User \"hi\"])))\n",
    );
    let o = run_against(&wf, &server, &["--llm-batch", "openai", "wf.sp"]);
    assert_eq!(code(&o), PENDING, "{}", stderr(&o));
    let b = &server.batches()[0];
    assert_eq!(b.endpoint, "/v1/chat/completions");
    let line = &b.lines[0];
    assert_eq!(line["method"], "POST");
    assert_eq!(line["url"], "/v1/chat/completions");
    assert_eq!(line["body"]["model"], "m2");
    assert_eq!(line["body"]["temperature"], 0.5);
    assert_eq!(line["body"]["messages"][0]["role"], "system");
    assert_eq!(b.custom_ids[0].len(), 64);
    assert!(
        b.metadata["spindle_run"]
            .as_str()
            .is_some_and(|t| t.len() == 64)
    );
}

const TOT: &str = include_str!("../../benches/llm/tot.sp");

/// A responder for tree of thoughts: a "propose" prompt gets three steps, a score
/// prompt a score that depends on the prompt.
fn tot_answer(item: &Item) -> Outcome {
    let p = item.prompt();
    let text = if p.contains("Propose possible next steps") {
        let n = p.len() % 7;
        format!("step {n}a\nstep {n}b\n\nstep {n}c\n")
    } else {
        format!("{}", 1 + p.len() % 10)
    };
    let mut out = default_outcome(item);
    if let Outcome::Ok(body) = &mut out {
        body["choices"][0]["message"]["content"] = serde_json::Value::String(text);
    }
    out
}

#[test]
fn tree_of_thoughts_takes_six_rounds_its_depth_of_dependent_model_calls() {
    let server = BatchServer::start(tot_answer);
    statuses(&server);
    let live_wf = Wf::new();
    live_wf.write("tot.sp", TOT);
    let live = ok(&run_against(&live_wf, &server, &["tot.sp"]));
    let live_calls = server.live_calls().len();
    let wf = Wf::new();
    wf.write("tot.sp", TOT);
    let (last, pending) = batch_to_end(&wf, &server, "tot.sp");
    assert_eq!(ok(&last), live, "{}", stderr(&last));
    let sizes: Vec<usize> = server
        .batches()
        .iter()
        .map(|b| b.custom_ids.len())
        .collect();
    assert_eq!(
        pending, 6,
        "3 levels of propose, then score: 6 rounds; batches {sizes:?}"
    );
    assert_no_call_twice(&server);
    assert_eq!(
        submitted(&server).len(),
        live_calls,
        "the batches hold the calls the live run made"
    );
}

#[test]
fn a_batch_still_out_is_waited_for_and_never_submitted_twice() {
    let server = BatchServer::echo();
    server.set_statuses_all(&["validating", "in_progress", "in_progress", "completed"]);
    let wf = Wf::new();
    wf.write("wf.sp", TWO_LEVELS);
    let o = run_against(&wf, &server, &["--llm-batch", "openai", "wf.sp"]);
    assert_eq!(code(&o), PENDING, "{}", stderr(&o));
    // Without --resume: it says so, and submits nothing.
    for args in [&["wf.sp"][..], &["--llm-batch", "openai", "wf.sp"]] {
        let again = run_against(&wf, &server, args);
        assert_eq!(code(&again), PENDING, "{}", stderr(&again));
        assert!(
            stderr(&again).contains("a batch run of wf.sp is under way")
                && stderr(&again).contains("spindle run --resume wf.sp"),
            "{}",
            stderr(&again)
        );
        assert_eq!(stdout(&again), "");
    }
    assert_eq!(server.batches().len(), 1);
    // Still running: 75 again, with the server's counts.
    let polled = run_against(&wf, &server, &["--resume", "wf.sp"]);
    assert_eq!(code(&polled), PENDING);
    assert!(
        stderr(&polled).contains("batch batch_0 (round 1) is in_progress"),
        "{}",
        stderr(&polled)
    );
    assert_eq!(server.batches().len(), 1);
    let (last, _) = batch_to_end(&wf, &server, "wf.sp");
    assert_eq!(
        ok(&last).trim(),
        "[\"re: again re: q0\", \"re: again re: q1\", \"re: again re: q2\"]"
    );
    assert_no_call_twice(&server);
}

#[test]
fn effects_of_earlier_rounds_are_not_performed_again() {
    let (server, wf) = echo_workflow(
        "\
def note (s : String) : String = trim (shell (\"echo \" ++ s ++ \" >> log.txt; echo \" ++ s))

def main : List String =
  let a = llm \"m\" (note \"one\") in
  let b = llm \"m\" (note a) in
  [a, b, note \"three\"]
",
    );
    let (last, pending) = batch_to_end(&wf, &server, "wf.sp");
    let out = ok(&last);
    assert_eq!(pending, 2, "{}", stderr(&last));
    let mut log: Vec<String> = wf.read("log.txt").lines().map(str::to_string).collect();
    log.sort();
    assert_eq!(log, ["one", "re: one", "three"], "each effect once; {out}");
    assert_eq!(out.trim(), "[\"re: one\", \"re: re: one\", \"three\"]");
}

#[test]
fn shuffled_results_and_calls_a_batch_did_not_answer_go_round_again() {
    // The first time it is asked, q1 fails and q2 is missing from the files.
    let server = BatchServer::start(|item: &Item| {
        let p = item.prompt();
        if item.custom_id.is_some() && item.attempt == 0 && p == "q1" {
            return Outcome::error("server_error", "try later");
        }
        if item.custom_id.is_some() && item.attempt == 0 && p == "q2" {
            return Outcome::Missing;
        }
        default_outcome(item)
    });
    statuses(&server);
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : List String = map (\\i -> llm \"m\" (\"q\" ++ showInt i)) (range 0 4)\n",
    );
    let (last, pending) = batch_to_end(&wf, &server, "wf.sp");
    assert_eq!(
        ok(&last).trim(),
        "[\"re: q0\", \"re: q1\", \"re: q2\", \"re: q3\"]"
    );
    assert_eq!(pending, 2, "{}", stderr(&last));
    let b = server.batches();
    assert_eq!(b[0].custom_ids.len(), 4);
    assert_eq!(
        b[1].custom_ids.len(),
        2,
        "only the two unanswered calls again"
    );
    assert!(server.live_calls().is_empty());
}

/// A server whose batches never answer the prompt `q1` (with this error), and a
/// workflow asking `q0` .. `q{n-1}`.
fn q1_refused_in_batches(
    err_code: &'static str,
    message: &'static str,
    n: usize,
) -> (BatchServer, Wf) {
    let server = BatchServer::start(move |item: &Item| {
        if item.custom_id.is_some() && item.prompt() == "q1" {
            return Outcome::error(err_code, message);
        }
        default_outcome(item)
    });
    statuses(&server);
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        &format!(
            "def main : List String = map (\\i -> llm \"m\" (\"q\" ++ showInt i)) (range 0 {n})\n"
        ),
    );
    (server, wf)
}

#[test]
fn with_batch_fallback_live_unanswered_calls_are_made_live() {
    let (server, wf) = q1_refused_in_batches("server_error", "no", 3);
    let o = run_against(&wf, &server, &["--llm-batch", "openai", "wf.sp"]);
    assert_eq!(code(&o), PENDING);
    let mut o = run_against(
        &wf,
        &server,
        &["--resume", "--batch-fallback", "live", "wf.sp"],
    );
    while code(&o) == PENDING {
        o = run_against(
            &wf,
            &server,
            &["--resume", "--batch-fallback", "live", "wf.sp"],
        );
    }
    assert_eq!(ok(&o).trim(), "[\"re: q0\", \"re: q1\", \"re: q2\"]");
    assert_eq!(server.batches().len(), 1);
    let live = server.live_calls();
    assert_eq!(live.len(), 1);
    assert_eq!(live[0].prompt(), "q1");
}

#[test]
fn a_call_no_batch_answers_is_an_error_naming_it() {
    let (server, wf) = q1_refused_in_batches("invalid_prompt", "refused", 2);
    let (last, _) = batch_to_end(&wf, &server, "wf.sp");
    assert_eq!(code(&last), 1);
    let err = stderr(&last);
    assert!(
        err.contains("wf.sp:1:")
            && err.contains("was not answered by 3 batches in a row: invalid_prompt: refused"),
        "{err}"
    );
}

#[test]
fn a_batch_the_provider_refuses_names_the_lines_and_their_calls() {
    let server = BatchServer::echo();
    statuses(&server);
    server.refuse_model("old-model");
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : List String = [llm \"m\" \"a\", llm \"old-model\" \"b\"]\n",
    );
    let o = run_against(&wf, &server, &["--llm-batch", "openai", "wf.sp"]);
    assert_eq!(code(&o), PENDING);
    let o = run_against(&wf, &server, &["--resume", "wf.sp"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("the provider refused batch batch_0 of round 1: line ")
            && err.contains("the model 'old-model' is not available for batches")
            && err.contains("llm old-model"),
        "{err}"
    );
}

#[test]
fn a_crash_between_submitting_and_recording_never_makes_a_second_batch() {
    let (server, wf) = echo_workflow(TWO_LEVELS);
    let crashed = run_with_env(
        &wf,
        &server,
        &["--llm-batch", "openai", "wf.sp"],
        &[("SPINDLE_TEST_CRASH_AFTER_BATCH_CREATE", "1")],
    );
    assert_eq!(code(&crashed), 70, "{}", stderr(&crashed));
    assert_eq!(server.batches().len(), 1);
    assert!(
        wf.read("store/batches/wf.sp.json")
            .contains("\"submitting\"")
    );
    let o = run_against(&wf, &server, &["--resume", "wf.sp"]);
    assert!(
        stderr(&o).contains("batch batch_0 of round 1 was submitted before the last run stopped"),
        "{}",
        stderr(&o)
    );
    let (last, _) = batch_to_end(&wf, &server, "wf.sp");
    assert_eq!(
        ok(&last).trim(),
        "[\"re: again re: q0\", \"re: again re: q1\", \"re: again re: q2\"]"
    );
    assert_eq!(server.batches().len(), 2, "one batch a round");
    assert_no_call_twice(&server);
}

#[test]
fn a_run_resumes_from_a_copied_store_in_another_folder() {
    let (server, wf) = echo_workflow(TWO_LEVELS);
    let o = run_against(&wf, &server, &["--llm-batch", "openai", "wf.sp"]);
    assert_eq!(code(&o), PENDING);
    let other = Wf::new();
    other.write("wf.sp", TWO_LEVELS);
    let copied = std::process::Command::new("cp")
        .args(["-r"])
        .arg(wf.file("store"))
        .arg(other.file("store"))
        .status()
        .unwrap();
    assert!(copied.success());
    let (last, pending) = batch_to_end(&other, &server, "wf.sp");
    // `batch_to_end` starts with `--llm-batch`: the copied record says a run is under
    // way, so that first run exits with 75 and `--resume` goes on from round 1.
    assert!(pending >= 2);
    assert_eq!(
        ok(&last).trim(),
        "[\"re: again re: q0\", \"re: again re: q1\", \"re: again re: q2\"]"
    );
    assert_eq!(server.batches().len(), 2);
}

#[test]
fn wait_goes_through_every_round_in_one_process() {
    let server = BatchServer::start(tot_answer);
    statuses(&server);
    let wf = Wf::new();
    wf.write("tot.sp", TOT);
    let live_wf = Wf::new();
    live_wf.write("tot.sp", TOT);
    let live = ok(&run_against(&live_wf, &server, &["tot.sp"]));
    let o = run_with_env(
        &wf,
        &server,
        &[
            "--llm-batch",
            "openai",
            "--wait",
            "--llm-price",
            "gpt-4o-mini=1,2",
            "--stats",
            "tot.sp",
        ],
        &[("SPINDLE_BATCH_POLL_MS", "10")],
    );
    assert_eq!(ok(&o), live);
    let err = stderr(&o);
    assert!(err.contains("batch: done in 6 rounds"), "{err}");
    assert!(err.contains("batch_rounds 6"), "{err}");
    assert!(
        err.contains("batch_tokens_in ") && err.contains("batch_tokens_out "),
        "{err}"
    );
    assert!(
        err.contains("; cost $") && err.contains("cost_usd "),
        "{err}"
    );
    assert_eq!(server.batches().len(), 6);
    assert!(!wf.file("store/batches/tot.sp.json").exists());
}

#[test]
fn embeddings_and_streamed_replies_go_through_batches_too() {
    let server = BatchServer::echo();
    statuses(&server);
    let src = "\
def main : Pair (List Float) (List String) =
  (embed \"e1\" \"text\", llmStream \"m\" \"tell\")
";
    let live_wf = Wf::new();
    live_wf.write("wf.sp", src);
    let live = ok(&run_against(&live_wf, &server, &["wf.sp"]));
    let wf = Wf::new();
    wf.write("wf.sp", src);
    let (last, pending) = batch_to_end(&wf, &server, "wf.sp");
    assert_eq!(pending, 1);
    let out = ok(&last);
    let b = server.batches();
    let mut endpoints: Vec<&str> = b.iter().map(|b| b.endpoint.as_str()).collect();
    endpoints.sort();
    assert_eq!(endpoints, ["/v1/chat/completions", "/v1/embeddings"]);
    // The streamed reply comes whole, as one chunk: the same text as live chunks.
    assert_eq!(
        out.replace("\", \"", ""),
        live.replace("\", \"", ""),
        "{out} / {live}"
    );
    assert!(out.contains("re: tell"), "{out}");
}

#[test]
fn plan_says_how_many_rounds_at_least() {
    let server = BatchServer::echo();
    let wf = Wf::new();
    wf.write("wf.sp", TWO_LEVELS);
    let o = run_against(&wf, &server, &["--plan", "--llm-batch", "openai", "wf.sp"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("batch: at least 2 rounds"),
        "{}",
        stderr(&o)
    );
    assert!(server.batches().is_empty());
}

#[test]
fn an_effect_the_store_does_not_record_is_replayed_from_the_journal_not_made_again() {
    // `httpRequest` is never recorded: only the run's journal keeps it across rounds.
    let server = BatchServer::echo();
    statuses(&server);
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        &format!(
            "\
def ping : HttpResponse = httpRequest \"POST\" \"{}\" [] \"ping\"

def main : List String =
  let a = llm \"m\" (\"status \" ++ showInt (status ping)) in
  [a, llm \"m\" a]
",
            server.url("/hook")
        ),
    );
    let (last, pending) = batch_to_end(&wf, &server, "wf.sp");
    assert_eq!(pending, 2, "{}", stderr(&last));
    assert_eq!(
        ok(&last).trim(),
        "[\"re: status 401\", \"re: re: status 401\"]"
    );
    let posts = server.seen().iter().filter(|s| s.path == "/hook").count();
    assert_eq!(posts, 1, "the POST was made once over three runs");
}

/// A responder that answers any prompt with text some example can parse: a list of
/// lines, a score, a verdict (depending on the prompt's length, so answers differ).
fn varied_answer(item: &Item) -> Outcome {
    let p = item.prompt();
    let text = match p.len() % 4 {
        0 => format!("{}", 1 + p.len() % 9),
        1 => format!("TRUE. it holds ({})", p.len()),
        2 => format!("Paris\nLyon\nNice {}\n", p.len() % 5),
        _ => format!("FALSE: no ({})", p.len() % 7),
    };
    let mut out = default_outcome(item);
    if let Outcome::Ok(body) = &mut out
        && body.get("choices").is_some()
    {
        body["choices"][0]["message"]["content"] = serde_json::Value::String(text);
    }
    out
}

#[test]
fn every_example_with_model_calls_prints_in_batch_mode_what_it_prints_live() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut programs = vec![root.join("examples/llm/panel.sp")];
    for name in ["city", "debate", "factcheck", "sot", "tot"] {
        programs.push(root.join(format!("benches/llm/{name}.sp")));
    }
    for path in programs {
        let src = std::fs::read_to_string(&path).unwrap();
        let server = BatchServer::start(varied_answer);
        statuses(&server);
        let live_wf = Wf::new();
        live_wf.write("p.sp", &src);
        let live = run_against(&live_wf, &server, &["p.sp"]);
        let live_out = ok(&live);
        let wf = Wf::new();
        wf.write("p.sp", &src);
        let o = run_with_env(
            &wf,
            &server,
            &["--llm-batch", "openai", "--wait", "p.sp"],
            &[("SPINDLE_BATCH_POLL_MS", "5")],
        );
        assert_eq!(
            ok(&o),
            live_out,
            "{}: batch and live differ\n{}",
            path.display(),
            stderr(&o)
        );
        assert!(!server.batches().is_empty(), "{}", path.display());
        assert_no_call_twice(&server);
        let done = stderr(&o)
            .lines()
            .find(|l| l.starts_with("batch: done"))
            .map(str::to_string);
        eprintln!("{}: {}", path.display(), done.unwrap_or_default());
    }
}

#[test]
fn a_sequential_batch_run_submits_one_call_a_round_and_prints_the_same() {
    let (server, wf) = echo_workflow(TWO_LEVELS);
    let mut o = run_against(
        &wf,
        &server,
        &["--sequential", "--llm-batch", "openai", "wf.sp"],
    );
    let mut rounds = 0;
    while code(&o) == PENDING {
        rounds += 1;
        assert!(rounds < 30, "{}", stderr(&o));
        o = run_against(&wf, &server, &["--sequential", "--resume", "wf.sp"]);
    }
    assert_eq!(
        ok(&o).trim(),
        "[\"re: again re: q0\", \"re: again re: q1\", \"re: again re: q2\"]"
    );
    assert_eq!(server.batches().len(), 6, "one call at a time: six rounds");
    assert_no_call_twice(&server);
}

/// The phrasing generator's programs (`../shared/phrasing`, `SPINDLE_PHRASING_DIR`:
/// a folder of generated `.sp` files with their `-- expect:` line), their `delay`
/// service turned into a model call answered with its prompt: each prints its
/// expected value in batch mode, no call is submitted twice, and the rounds are
/// counted. Run by hand (`--ignored`): the generator is not part of this repository.
#[test]
#[ignore]
fn generated_programs_print_their_expected_value_in_batch_mode() {
    let Some(dir) = std::env::var_os("SPINDLE_PHRASING_DIR") else {
        return;
    };
    let echo = |item: &Item| {
        let mut out = default_outcome(item);
        if let Outcome::Ok(body) = &mut out {
            body["choices"][0]["message"]["content"] = serde_json::Value::String(item.prompt());
        }
        out
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sp"))
        .collect();
    files.sort();
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let Some(expect) = src
            .lines()
            .find_map(|l| l.strip_prefix("-- expect: "))
            .and_then(|e| serde_json::from_str::<String>(e).ok())
        else {
            continue;
        };
        let src = src.replace(
            "delay (ms + (x - x)) x",
            "fromMaybe 0 (parseInt (llm \"m\" (showInt (x + (ms - ms)))))",
        );
        let server = BatchServer::start(echo);
        statuses(&server);
        let wf = Wf::new();
        wf.write("p.sp", &src);
        let o = run_with_env(
            &wf,
            &server,
            &["--llm-batch", "openai", "--wait", "p.sp"],
            &[("SPINDLE_BATCH_POLL_MS", "1")],
        );
        assert_eq!(ok(&o).trim(), expect, "{}\n{}", path.display(), stderr(&o));
        assert_no_call_twice(&server);
        assert!(
            server.live_calls().is_empty(),
            "{}: calls made live",
            path.display()
        );
        let calls = submitted(&server).len();
        eprintln!(
            "{}: {} rounds, {} calls",
            path.file_name().unwrap().to_string_lossy(),
            server.batches().len(),
            calls
        );
    }
}
