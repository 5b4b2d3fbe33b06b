//! Model and HTTP externals end to end (issue 27): the real binary against a server
//! the test starts on 127.0.0.1: replies, the result store, `paid` calls never started
//! speculatively, retries after 429 and 5xx, rate limits, errors that name the call and
//! never the key, timeouts, dropped connections, `httpGet` and `httpRequest`.

use crate::e2e_common;

use e2e_common::model_server::{Answer, Seen, Server, chat_body};
use e2e_common::*;
use std::process::Output;
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-abcdefghijklmnop0123456789";

/// `spindle run` against `server`, with the test key.
fn run_against(wf: &Wf, server: &Server, args: &[&str]) -> Output {
    wf.command(args)
        .env("OPENAI_BASE_URL", server.base())
        .env("OPENAI_API_KEY", KEY)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("spindle runs")
}

fn echo(delay_ms: u64) -> impl Fn(&Seen, &[Seen]) -> Answer {
    move |s: &Seen, _: &[Seen]| {
        Answer::chat(
            &format!("re: {}", s.prompt()),
            Duration::from_millis(delay_ms),
        )
    }
}

#[test]
fn model_calls_run_at_once_and_their_tokens_are_counted() {
    let server = Server::start(echo(400));
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : List String = map (\\i -> llm \"m1\" (\"q\" ++ showInt i)) (range 0 12)\n",
    );
    let t = Instant::now();
    let o = run_against(&wf, &server, &["--trace", "trace.tsv", "--stats", "wf.sp"]);
    let took = t.elapsed();
    let out = ok(&o);
    let want: Vec<String> = (0..12).map(|i| format!("\"re: q{i}\"")).collect();
    assert_eq!(out.trim(), format!("[{}]", want.join(", ")));
    assert!(
        took < Duration::from_millis(2500),
        "12 calls of 0.4 s took {took:?}"
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 12);
    for s in &seen {
        assert_eq!(s.method, "POST");
        assert_eq!(s.path, "/v1/chat/completions");
        assert_eq!(
            s.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
        let v = s.json();
        assert_eq!(v["model"], "m1");
        assert_eq!(v["messages"][0]["role"], "user");
        // Defaults are left to the server.
        assert!(v.get("temperature").is_none(), "{v}");
    }
    let err = stderr(&o);
    assert!(err.contains("tokens_in: 84"), "{err}");
    assert!(err.contains("tokens_out: 36"), "{err}");
    let trace = std::fs::read_to_string(wf.file("trace.tsv")).unwrap();
    assert_eq!(trace.lines().count(), 12);
    for l in trace.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f[2], "llm");
        assert_eq!(f[4], "ok");
        assert_eq!(f[9], "7/3", "{l}");
    }
}

#[test]
fn without_a_key_no_authorization_is_sent_and_sequential_runs_agree() {
    let server = Server::start(echo(0));
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : String = llm \"m\" \"a\" ++ llm \"m\" \"b\"\n",
    );
    for mode in MODES {
        let mut args: Vec<&str> = mode.to_vec();
        args.push("wf.sp");
        let o = wf
            .command(&args)
            .env("OPENAI_BASE_URL", server.base())
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap();
        assert_eq!(ok(&o).trim(), "re: are: b");
    }
    assert!(
        server
            .seen()
            .iter()
            .all(|s| s.header("authorization").is_none())
    );
}

#[test]
fn paid_calls_are_recorded_and_reused_and_a_changed_field_is_a_new_call() {
    let server = Server::start(echo(0));
    let wf = Wf::new();
    let prog = |t: &str| {
        format!(
            "def ask (q : String) : String = replyText (llmChat (withTemperature {t} (request \"m\" [System \"be brief\", User q])))\n\
             def main : List String = [ask \"x\", ask \"y\", llm \"m\" \"z\"]\n"
        )
    };
    wf.write("wf.sp", &prog("0.5"));
    let first = ok(&run_against(&wf, &server, &["--resume", "wf.sp"]));
    assert_eq!(first.trim(), "[\"re: x\", \"re: y\", \"re: z\"]");
    assert_eq!(server.seen().len(), 3);
    // Again: nothing is asked, the tokens are counted as reused.
    let o = run_against(&wf, &server, &["--resume", "--progress", "plain", "wf.sp"]);
    assert_eq!(ok(&o), first);
    assert_eq!(server.seen().len(), 3);
    let err = stderr(&o);
    assert!(err.contains("3 reused"), "{err}");
    assert!(err.contains("tokens 0 in, 0 out, 30 reused"), "{err}");
    // Another temperature: the two chats are new calls, `llm` is reused.
    wf.write("wf.sp", &prog("0.2"));
    let o = run_against(&wf, &server, &["--resume", "--explain", "wf.sp"]);
    ok(&o);
    let err = stderr(&o);
    assert!(
        err.contains("wf.sp:1:") && err.contains("request changed: `temperature` 0.5 -> 0.2"),
        "{err}"
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 5);
    assert_eq!(seen[3].json()["temperature"], 0.2);
    assert_eq!(seen[3].json()["messages"][0]["role"], "system");
    // Without --resume every call runs again.
    ok(&run_against(&wf, &server, &["wf.sp"]));
    assert_eq!(server.seen().len(), 8);
}

#[test]
fn the_same_question_at_two_places_is_two_calls_and_a_sample_is_a_new_one() {
    let server = Server::start(echo(0));
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def a : String = llm \"m\" \"q\"\n\
         def b : String = llm \"m\" \"q\"\n\
         def twice : List String = map (\\i -> llm \"m\" \"q\") [1, 2]\n\
         def samples : List String = map (\\i -> replyText (llmChat (sample i (request \"m\" [User \"q\"])))) [1, 2, 2]\n\
         def main : Int = strLength (concatStrings ([a, b, a] ++ twice ++ samples))\n",
    );
    assert_eq!(ok(&run_against(&wf, &server, &["wf.sp"])).trim(), "40");
    // a, b (two places); twice (one place, one call); samples 1 and 2.
    assert_eq!(server.seen().len(), 5);
    // Recorded by place: a second run reuses every one.
    ok(&run_against(&wf, &server, &["--resume", "wf.sp"]));
    assert_eq!(server.seen().len(), 5);
}

#[test]
fn paid_calls_never_start_speculatively_unless_asked() {
    let wf = Wf::new();
    // Which model call is needed is known only once the delay is over; speculation
    // would start both.
    wf.write(
        "wf.sp",
        "def pick (c : Bool) (x : String) (y : String) : String = if c then x else y\n\
         def main : Int = strLength (pick (strLength (delay 400 \"xx\") > 5) (llm \"m\" \"left\") (llm \"m\" \"right\"))\n",
    );
    let server = Server::start(echo(0));
    assert_eq!(ok(&run_against(&wf, &server, &["wf.sp"])).trim(), "9");
    let prompts: Vec<String> = server.seen().iter().map(|s| s.prompt()).collect();
    assert_eq!(prompts, ["right"]);
    let server = Server::start(echo(0));
    assert_eq!(
        ok(&run_against(&wf, &server, &["--speculate-paid", "wf.sp"])).trim(),
        "9"
    );
    let mut prompts: Vec<String> = server.seen().iter().map(|s| s.prompt()).collect();
    prompts.sort();
    assert_eq!(prompts, ["left", "right"]);
}

#[test]
fn a_429_with_retry_after_is_waited_out_and_nothing_is_sent_early() {
    // Each prompt gets 429 with `Retry-After: 1` twice, then an answer.
    let server = Server::start(|s: &Seen, earlier: &[Seen]| {
        let before = earlier.iter().filter(|e| e.prompt() == s.prompt()).count();
        if before < 2 {
            Answer::status(
                429,
                &[("retry-after", "1")],
                r#"{"error":{"message":"Rate limit reached"}}"#,
            )
        } else {
            Answer::chat(&s.prompt(), Duration::ZERO)
        }
    });
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : Int = length (filter (\\s -> strLength s > 0) (map (\\i -> llm \"m\" (showInt i)) (range 0 50)))\n",
    );
    let t = Instant::now();
    let o = run_against(&wf, &server, &["wf.sp"]);
    assert_eq!(ok(&o).trim(), "50");
    let took = t.elapsed();
    let seen = server.seen();
    assert_eq!(seen.len(), 150);
    for i in 0..50 {
        let times: Vec<Instant> = seen
            .iter()
            .filter(|s| s.prompt() == i.to_string())
            .map(|s| s.at)
            .collect();
        assert_eq!(times.len(), 3);
        for w in times.windows(2) {
            assert!(
                w[1] - w[0] >= Duration::from_millis(990),
                "prompt {i}: retried after {:?}",
                w[1] - w[0]
            );
        }
    }
    assert!(took < Duration::from_secs(6), "{took:?}");
}

#[test]
fn server_errors_are_retried_with_backoff_and_client_errors_never() {
    let server = Server::start(|s: &Seen, _: &[Seen]| match s.prompt().as_str() {
        "busy" => Answer::status(503, &[], r#"{"error":{"message":"overloaded"}}"#),
        _ => Answer::status(400, &[], r#"{"error":{"message":"bad request: no"}}"#),
    });
    let wf = Wf::new();
    wf.write("busy.sp", "def main : String = llm \"m\" \"busy\"\n");
    wf.write("bad.sp", "def main : String = llm \"m\" \"bad\"\n");
    let o = run_against(&wf, &server, &["busy.sp"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("status 503"), "{err}");
    assert!(err.contains("overloaded"), "{err}");
    assert!(err.contains("model m"), "{err}");
    assert!(err.contains("after 3 attempts"), "{err}");
    assert!(err.contains("busy.sp:1:"), "the place: {err}");
    assert_eq!(server.seen().len(), 3);
    let o = run_against(&wf, &server, &["--llm-retries", "0", "busy.sp"]);
    assert!(!o.status.success());
    assert_eq!(server.seen().len(), 4);
    let o = run_against(&wf, &server, &["bad.sp"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("status 400"), "{err}");
    assert!(err.contains("bad request: no"), "{err}");
    assert_eq!(server.seen().len(), 5, "a 400 is not retried");
}

#[test]
fn the_key_never_leaks_into_errors_traces_or_the_store() {
    let server = Server::start(|s: &Seen, _: &[Seen]| {
        if s.prompt() == "fine" {
            return Answer::chat("ok", Duration::ZERO);
        }
        let key = s
            .header("authorization")
            .unwrap_or("")
            .trim_start_matches("Bearer ")
            .to_string();
        Answer::status(
            401,
            &[],
            &format!(r#"{{"error":{{"message":"Incorrect API key provided: {key}."}}}}"#),
        )
    });
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : List String = [llm \"m\" \"fine\", llm \"m\" \"refused\"]\n",
    );
    let o = run_against(
        &wf,
        &server,
        &[
            "--resume",
            "--explain",
            "--trace",
            "t.tsv",
            "--progress",
            "plain",
            "wf.sp",
        ],
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("status 401"), "{err}");
    assert!(err.contains("Incorrect API key provided: ***"), "{err}");
    let everything = format!("{}{err}", stdout(&o));
    assert!(!everything.contains("abcdefghijklmnop"), "{everything}");
    for f in files_under(wf.path()) {
        let bytes = std::fs::read(&f).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("abcdefghijklmnop"),
            "the key is in {}",
            f.display()
        );
    }
}

#[test]
fn malformed_replies_dropped_connections_and_slow_servers() {
    let server = Server::start(|s: &Seen, earlier: &[Seen]| {
        let before = earlier.iter().filter(|e| e.prompt() == s.prompt()).count();
        match s.prompt().as_str() {
            "garbled" => Answer::status(200, &[], "{\"choices\": [oops"),
            "flaky" if before == 0 => Answer::Drop,
            "flaky" => Answer::chat("survived", Duration::ZERO),
            "gone" => Answer::Drop,
            _ => Answer::chat("late", Duration::from_secs(5)),
        }
    });
    let wf = Wf::new();
    for (name, prompt) in [
        ("g", "garbled"),
        ("f", "flaky"),
        ("x", "gone"),
        ("s", "slow"),
    ] {
        wf.write(
            &format!("{name}.sp"),
            &format!("def main : String = llm \"m\" \"{prompt}\"\n"),
        );
    }
    let o = run_against(&wf, &server, &["g.sp"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not JSON"), "{}", stderr(&o));
    let o = run_against(&wf, &server, &["f.sp"]);
    assert_eq!(ok(&o).trim(), "survived");
    let o = run_against(&wf, &server, &["x.sp"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("connection") || err.contains("connect"),
        "{err}"
    );
    assert!(err.contains("after 3 attempts"), "{err}");
    let t = Instant::now();
    let o = run_against(&wf, &server, &["--call-timeout", "1", "s.sp"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("timed out"), "{}", stderr(&o));
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
}

#[test]
fn requests_per_minute_are_paced_continuously() {
    let server = Server::start(echo(0));
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : Int = length (filter (\\s -> strLength s > 0) (map (\\i -> llm \"m\" (showInt i)) (range 0 30)))\n",
    );
    let t = Instant::now();
    let o = run_against(&wf, &server, &["--llm-rpm", "600", "wf.sp"]);
    assert_eq!(ok(&o).trim(), "30");
    let took = t.elapsed().as_secs_f64();
    // 30 requests at 10 a second: about 3 s, never a burst.
    assert!((2.7..4.5).contains(&took), "{took}");
    let times: Vec<Instant> = server.seen().iter().map(|s| s.at).collect();
    for (i, t0) in times.iter().enumerate() {
        let n = times[i..]
            .iter()
            .filter(|t| **t < *t0 + Duration::from_secs(1))
            .count();
        assert!(n <= 11, "{n} requests within a second");
    }
}

#[test]
fn embeddings_and_full_chat_replies() {
    let server = Server::start(|s: &Seen, _: &[Seen]| {
        if s.path.ends_with("/embeddings") {
            return Answer::status(
                200,
                &[],
                r#"{"data":[{"embedding":[0.25,-1.5,3]}],"usage":{"prompt_tokens":4}}"#,
            );
        }
        Answer::Reply {
            delay: Duration::ZERO,
            status: 200,
            headers: vec![],
            body: chat_body("{\"a\": 1}", 11, 5),
        }
    });
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def r : LlmReply = llmChat (withJson (withStop [\"END\"] (withSeed 7 (withMaxTokens 50 (request \"m\" [User \"json please\"])))))\n\
         def main : Pair (List Float) (List String) = MkPair (embed \"e\" \"text\") [replyText r, replyFinish r, showInt (replyTokensIn r), showInt (replyTokensOut r)]\n",
    );
    let out = ok(&run_against(&wf, &server, &["wf.sp"]));
    assert_eq!(
        out.trim(),
        r#"([0.25, -1.5, 3.0], ["{\"a\": 1}", "stop", "11", "5"])"#
    );
    let chat = server
        .seen()
        .into_iter()
        .find(|s| s.path.ends_with("/chat/completions"))
        .unwrap();
    let v = chat.json();
    assert_eq!(v["max_tokens"], 50);
    assert_eq!(v["seed"], 7);
    assert_eq!(v["stop"][0], "END");
    assert_eq!(v["response_format"]["type"], "json_object");
}

#[test]
fn http_get_and_http_request() {
    let server = Server::start(|s: &Seen, _: &[Seen]| match s.path.as_str() {
        "/page" => Answer::status(200, &[("x-note", "hi")], "the page"),
        "/post" => Answer::status(
            201,
            &[("x-echo", s.header("x-token").unwrap_or("none"))],
            &format!("got {}", s.body),
        ),
        "/fail" => Answer::status(500, &[], "broken"),
        _ => Answer::status(404, &[], "no such page"),
    });
    let wf = Wf::new();
    wf.write(
        "get.sp",
        &format!("def main : String = httpGet \"{}\"\n", server.url("/page")),
    );
    assert_eq!(ok(&wf.run(&["get.sp"])).trim(), "the page");
    wf.write(
        "missing.sp",
        &format!(
            "def main : String = httpGet \"{}\"\n",
            server.url("/nothing")
        ),
    );
    let o = wf.run(&["missing.sp"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("/nothing") && err.contains("404"), "{err}");
    wf.write(
        "post.sp",
        &format!(
            "def r : HttpResponse = httpRequest \"POST\" \"{}\" [MkPair \"x-token\" \"t1\"] \"data\"\n\
             def main : Pair Int String = MkPair (status r) (body r ++ \" \" ++ orDash (lookupHeader \"x-echo\" (headers r)))\n\
             def orDash (m : Maybe String) : String = match m with | Just s -> s | Nothing -> \"-\"\n\
             def lookupHeader (k : String) (hs : List (Pair String String)) : Maybe String = match hs with | Nil -> Nothing | Cons (MkPair a b) rest -> if a == k then Just b else lookupHeader k rest\n",
            server.url("/post")
        ),
    );
    assert_eq!(ok(&wf.run(&["post.sp"])).trim(), "(201, \"got data t1\")");
    // A status is an answer, never an error; and an `httpRequest` is never retried.
    wf.write(
        "fail.sp",
        &format!(
            "def main : Int = status (httpRequest \"POST\" \"{}\" [] \"\")\n",
            server.url("/fail")
        ),
    );
    let before = server.seen().len();
    assert_eq!(ok(&wf.run(&["--retries", "2", "fail.sp"])).trim(), "500");
    assert_eq!(server.seen().len(), before + 1);
    // `httpGet` is a read: under --retries it is tried again.
    wf.write(
        "getfail.sp",
        &format!("def main : String = httpGet \"{}\"\n", server.url("/fail")),
    );
    let o = wf.run(&["--retries", "1", "getfail.sp"]);
    assert!(!o.status.success());
    assert_eq!(server.seen().len(), before + 3);
}

#[test]
fn a_run_stopped_half_way_pays_again_only_for_what_it_had_not_recorded() {
    // Prompt i answers after i * 100 ms: stopped at about 1 s, half have answered.
    let server = Server::start(|s: &Seen, _: &[Seen]| {
        let i: u64 = s.prompt().parse().unwrap_or(0);
        Answer::chat(&format!("a{i}"), Duration::from_millis(100 * i))
    });
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : List String = map (\\i -> llm \"m\" (showInt i)) (range 1 21)\n",
    );
    let child = wf
        .command(&["--resume", "--trace", "first.tsv", "wf.sp"])
        .env("OPENAI_BASE_URL", server.base())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1050));
    signal(&child, nix::sys::signal::Signal::SIGINT);
    let status = child.wait_with_output().unwrap().status;
    assert!(!status.success());
    assert_eq!(server.seen().len(), 20, "every call had started");
    let finished = trace(&wf.file("first.tsv"))
        .iter()
        .filter(|l| l.status == "ok")
        .count();
    assert!(
        (5..20).contains(&finished),
        "{finished} finished before the stop"
    );
    let o = run_against(&wf, &server, &["--resume", "wf.sp"]);
    let want: Vec<String> = (1..21).map(|i| format!("\"a{i}\"")).collect();
    assert_eq!(ok(&o).trim(), format!("[{}]", want.join(", ")));
    // Only the calls in flight at the stop were asked again.
    assert_eq!(server.seen().len(), 20 + (20 - finished));
}

#[test]
fn the_servers_rate_limit_headers_hold_and_pace_later_calls() {
    // The first answer says the budget is spent for a second; every answer says the
    // limit is 60 a minute. Each prompt is the answer to the one before, so the calls
    // go one after another.
    let server = Server::start(|s: &Seen, earlier: &[Seen]| {
        let mut headers = vec![("x-ratelimit-limit-requests".to_string(), "60".to_string())];
        if earlier.is_empty() {
            headers.push(("x-ratelimit-remaining-requests".into(), "0".into()));
            headers.push(("x-ratelimit-reset-requests".into(), "1s".into()));
        } else {
            headers.push(("x-ratelimit-remaining-requests".into(), "59".into()));
        }
        Answer::Reply {
            delay: Duration::ZERO,
            status: 200,
            headers,
            body: chat_body(&format!("{}+", s.prompt()), 1, 1),
        }
    });
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : String = llm \"m\" (llm \"m\" (llm \"m\" (llm \"m\" \"x\")))\n",
    );
    assert_eq!(ok(&run_against(&wf, &server, &["wf.sp"])).trim(), "x++++");
    let at: Vec<Instant> = server.seen().iter().map(|s| s.at).collect();
    assert_eq!(at.len(), 4);
    // Held until the reset.
    assert!(
        at[1] - at[0] >= Duration::from_millis(990),
        "{:?}",
        at[1] - at[0]
    );
    // Then paced at one a second (a little slower: the margin).
    assert!(
        at[3] - at[2] >= Duration::from_millis(990),
        "{:?}",
        at[3] - at[2]
    );
}

#[test]
fn requests_in_flight_are_bounded_per_model_and_the_base_url_comes_from_the_option() {
    let server = Server::start(echo(300));
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : Int = length (filter (\\s -> strLength s > 0) (map (\\i -> llm \"m\" (showInt i)) (range 0 6)))\n",
    );
    let base = server.base();
    let o = wf
        .command(&["--llm-base-url", &base, "--llm-in-flight", "2", "wf.sp"])
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(ok(&o).trim(), "6");
    let seen = server.seen();
    assert_eq!(seen.len(), 6);
    // Each answer takes 300 ms: with two in flight, no third arrives before the first
    // two have been answered.
    let mut at: Vec<Instant> = seen.iter().map(|s| s.at).collect();
    at.sort();
    for w in at.windows(3) {
        assert!(
            w[2] - w[0] >= Duration::from_millis(280),
            "{:?}",
            w[2] - w[0]
        );
    }
}

/// `spindle run` against `server`, started with its output piped.
fn spawn_against(wf: &Wf, server: &Server, args: &[&str]) -> std::process::Child {
    wf.command(args)
        .env("OPENAI_BASE_URL", server.base())
        .env("OPENAI_API_KEY", KEY)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spindle starts")
}

#[test]
fn a_streamed_reply_prints_chunk_by_chunk_and_is_replayed_on_resume() {
    use e2e_common::model_server::Sse;
    use std::io::Read;
    for mode in MODES {
        let server = Server::start(|_: &Seen, _: &[Seen]| {
            Answer::Stream(
                Sse::pieces(vec!["Hel".into(), "lo, ".into(), "world".into()])
                    .delay(Duration::from_millis(100))
                    .every(Duration::from_millis(700)),
            )
        });
        let wf = Wf::new();
        wf.write(
            "wf.sp",
            "def main : String = \"Answer: \" ++ concatStrings (llmStream \"m\" \"hi\")\n",
        );
        let mut args: Vec<&str> = mode.to_vec();
        args.push("wf.sp");
        let started = Instant::now();
        let mut child = spawn_against(&wf, &server, &args);
        let mut out = child.stdout.take().unwrap();
        // The first piece comes long before the last (1.5 s later).
        let mut got = Vec::new();
        let mut buf = [0u8; 64];
        while !String::from_utf8_lossy(&got).contains("Hel") {
            let n = out.read(&mut buf).unwrap();
            assert!(n > 0, "{mode:?}: ended early");
            got.extend_from_slice(&buf[..n]);
        }
        let first = started.elapsed();
        assert!(
            first < Duration::from_millis(1200),
            "{mode:?}: first piece at {first:?}"
        );
        out.read_to_end(&mut got).unwrap();
        assert!(child.wait().unwrap().success(), "{mode:?}");
        assert_eq!(String::from_utf8_lossy(&got), "Answer: Hello, world\n");
        assert!(started.elapsed() > Duration::from_millis(1400), "{mode:?}");
        let seen = server.seen();
        assert_eq!(seen.len(), 1);
        assert!(seen[0].streams(), "{mode:?}: the request asked for events");
        // Recorded whole: a resumed run replays it at once, with no request.
        let again = run_against(&wf, &server, &["--resume", "wf.sp"]);
        assert_eq!(ok(&again), "Answer: Hello, world\n", "{mode:?}");
        assert_eq!(server.seen().len(), 1, "{mode:?}: paid for again");
    }
}

#[test]
fn streamed_lines_start_their_own_streams_at_once() {
    use e2e_common::model_server::Sse;
    // A model lists three places, one line every 0.4 s; each place's own streamed call
    // takes 1 s. Places called as their lines arrive: about 0.1 + 3 x 0.4 + 1 s; one
    // after another: 3 x 1 s more.
    let server = Server::start(|s: &Seen, _: &[Seen]| {
        if s.prompt() == "places" {
            Answer::Stream(
                Sse::pieces(vec!["Rome\nPa".into(), "ris\n".into(), "Oslo\n".into()])
                    .delay(Duration::from_millis(100))
                    .every(Duration::from_millis(400)),
            )
        } else {
            Answer::Stream(
                Sse::pieces(vec![format!("about {}", s.prompt())])
                    .delay(Duration::from_millis(1000)),
            )
        }
    });
    let wf = Wf::new();
    wf.write(
        "wf.sp",
        "def main : String = unlines (map (\\p -> concatStrings (llmStream \"m\" p)) (streamLines (llmStream \"m\" \"places\")))\n",
    );
    let t = Instant::now();
    let o = run_against(&wf, &server, &["wf.sp"]);
    let took = t.elapsed();
    assert_eq!(ok(&o), "about Rome\nabout Paris\nabout Oslo\n\n");
    assert!(took < Duration::from_millis(2700), "{took:?}");
}

#[test]
fn a_stream_cut_off_or_malformed_is_an_error_after_what_arrived() {
    use e2e_common::model_server::Sse;
    for (fail, want) in [("drop", "cut off"), ("bad", "malformed")] {
        for mode in MODES {
            let server = Server::start(move |_: &Seen, _: &[Seen]| {
                let sse = Sse::pieces(vec!["one ".into(), "two ".into(), "three".into()]);
                Answer::Stream(if fail == "drop" {
                    sse.drop_after(2)
                } else {
                    sse.malformed_after(2)
                })
            });
            let wf = Wf::new();
            wf.write(
                "wf.sp",
                "def main : String = concatStrings (llmStream \"m\" \"hi\")\n",
            );
            let mut args: Vec<&str> = mode.to_vec();
            args.push("wf.sp");
            let o = run_against(&wf, &server, &args);
            assert_eq!(o.status.code(), Some(1), "{fail} {mode:?}");
            assert_eq!(
                stdout(&o),
                "one two ",
                "{fail} {mode:?}: what arrived stays printed"
            );
            let err = stderr(&o);
            assert!(err.contains(want), "{fail} {mode:?}: {err}");
            assert!(err.contains("llmStream m"), "{fail} {mode:?}: {err}");
            assert!(err.contains("wf.sp:1:36"), "{fail} {mode:?}: {err}");
            assert!(!err.contains(KEY), "{fail} {mode:?}: {err}");
            // Not recorded: a resumed run asks again.
            let again = run_against(&wf, &server, &["--resume", "wf.sp"]);
            assert_eq!(again.status.code(), Some(1));
            assert_eq!(server.seen().len(), 2, "{fail} {mode:?}");
        }
    }
}
