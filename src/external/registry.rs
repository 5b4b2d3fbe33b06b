//! The registry: every built-in external declared once (DESIGN.md section 4), with its
//! name, Spindle type, effect class, explicit parameters, how its arguments become a
//! [`Request`], how the executor's [`Reply`] becomes its result, and which executor
//! performs it. Adding an external means adding one entry to [`EXTERNALS`] (and its
//! `extern` line to `prelude/external.sp`, which a test checks against this table).
//!
//! The machine uses an entry like this:
//!
//! 1. it takes [`External::arity`] explicit arguments (fewer: a partial application);
//! 2. it evaluates every argument to normal form, and converts those marked
//!    [`Param::Data`] to [`Plain`] (in order);
//! 3. [`External::request`] turns them into a [`Request`] (or a [`CallError`], e.g. a NUL
//!    byte in a program's argument);
//! 4. an `effect` call is submitted only from a certain fiber (LANGUAGE.md 7.1);
//! 5. on success, [`External::finish`] says what the call is: a [`Plain`] made from the
//!    reply, or one of its own arguments (`delay`'s value, which never crosses into the
//!    executor): [`Outcome`].

use super::exec::process::shell_program;
use super::net::openai::{self, Chat};
use super::net::settings;
use super::plain::Plain;
use super::request::{
    CallError, CallErrorKind, ExecutorKind, ExitPolicy, HttpRequest, ProcessRequest, Reply, Request,
};
use std::time::Duration;

/// What an external may do, which decides when the machine may start it (LANGUAGE.md
/// 7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Its result depends only on its arguments and it changes nothing: may start
    /// speculatively.
    Pure,
    /// It reads the outside world and changes nothing: may start speculatively.
    Reads,
    /// It may change the outside world: starts only once certainly needed.
    Effect,
    /// Its result depends only on its arguments and it changes nothing, but each call
    /// costs money (a model): starts only once certainly needed (unless
    /// `--speculate-paid`), and its results are recorded and reused like `pure` ones.
    Paid,
}

/// One explicit parameter of an external. Every argument is evaluated to normal form
/// before the call (LANGUAGE.md 7.3); they differ in where it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Param {
    /// Converted to [`Plain`] and passed to [`External::request`].
    Data,
    /// Stays machine data, never marshalled: the result may be this argument
    /// ([`Output::Argument`]). Its type is a type variable, so it may be anything,
    /// functions included.
    Value,
}

/// What a successful call evaluates to.
#[derive(Clone, Copy)]
pub enum Output {
    /// A value made from the executor's reply.
    Data(fn(Reply) -> Result<Plain, CallError>),
    /// The explicit argument at this position (counting from 0), unchanged.
    Argument(usize),
    /// A lazy list of the items of a stream the call produces as it runs
    /// ([`crate::external::stream`]): the call policy opens the stream and builds the
    /// list's cells as items arrive (`runLines`, `shellLines`, `readLines`,
    /// `llmStream`, and `prim_streamNext`, which a list's unevaluated rest calls).
    Stream,
}

/// What a successful call evaluates to, given its reply ([`External::finish`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// This value.
    Value(Plain),
    /// The call's explicit argument at this position, unchanged (`delay`).
    Argument(usize),
}

pub use crate::core::program::STREAM_NEXT;

/// One external, declared once.
#[derive(Clone, Copy)]
pub struct External {
    /// Its name, as in `extern name : T`.
    pub name: &'static str,
    /// Its Spindle type, as source text (checked against every `extern` declaration).
    pub ty: &'static str,
    /// Its effect class.
    pub effect: Effect,
    /// Its explicit parameters, in order (implicit type parameters are not counted).
    pub params: &'static [Param],
    /// The executor that performs its requests.
    pub executor: ExecutorKind,
    /// Its request, from the [`Param::Data`] arguments in order.
    pub request: fn(&[Plain]) -> Result<Request, CallError>,
    /// What a successful call is.
    pub result: Output,
}

impl External {
    /// How many explicit arguments a call takes.
    pub fn arity(&self) -> usize {
        self.params.len()
    }

    /// Whether an `effect` call: started only when certainly needed.
    pub fn is_effect(&self) -> bool {
        self.effect == Effect::Effect
    }

    /// Whether a `paid` call (a model's).
    pub fn is_paid(&self) -> bool {
        self.effect == Effect::Paid
    }

    /// Whether its calls start only from a certain fiber: `effect` calls always,
    /// `paid` ones unless `speculate_paid` (`--speculate-paid`), and the reads of a
    /// stream's rest ([`STREAM_NEXT`]): speculation reading a stream ahead would hold
    /// all of it in memory, whatever the stream's buffer bounds.
    pub fn waits_for_certainty(&self, speculate_paid: bool) -> bool {
        self.is_effect() || (self.is_paid() && !speculate_paid) || self.name == STREAM_NEXT
    }

    /// Whether its result is a stream ([`Output::Stream`]).
    pub fn is_stream(&self) -> bool {
        matches!(self.result, Output::Stream)
    }

    /// Whether the call layer may run a failed call again under `--retries`: not
    /// `pure` or `paid` ones (a timer does not fail; a model call has its own
    /// `--llm-retries`), never `httpRequest` (a request may not be safe to repeat), and
    /// never a stream (its consumer may have used items already).
    pub fn retried_by_driver(&self) -> bool {
        if self.is_stream() {
            return false;
        }
        match self.effect {
            Effect::Pure | Effect::Paid => false,
            Effect::Effect => self.executor != ExecutorKind::Network,
            Effect::Reads => true,
        }
    }

    /// Whether its calls run processes (their keys cover the working directory and
    /// the environment variables of `SPINDLE_KEY_ENV`).
    pub fn is_process(&self) -> bool {
        self.executor == ExecutorKind::Process
    }

    /// The request for a call with these `Data` arguments (a [`CallError`] when one
    /// cannot be passed: a NUL byte, a value of the wrong shape).
    pub fn make_request(&self, args: &[Plain]) -> Result<Request, CallError> {
        let data = self.params.iter().filter(|p| **p == Param::Data).count();
        if args.len() != data {
            return Err(CallError::bad_argument(format!(
                "{}: expected {data} arguments, got {}",
                self.name,
                args.len()
            )));
        }
        (self.request)(args)
    }

    /// What a call that succeeded with `reply` evaluates to.
    pub fn finish(&self, reply: Reply) -> Result<Outcome, CallError> {
        match self.result {
            Output::Data(f) => f(reply).map(Outcome::Value),
            Output::Argument(i) => Ok(Outcome::Argument(i)),
            Output::Stream => Err(wrong_reply(self.name, &reply)),
        }
    }
}

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("External")
            .field("name", &self.name)
            .field("ty", &self.ty)
            .field("effect", &self.effect)
            .field("params", &self.params)
            .field("executor", &self.executor)
            .finish_non_exhaustive()
    }
}

use Param::{Data, Value};

/// Every built-in external, in the order they are listed to users.
pub static EXTERNALS: &[External] = &[
    External {
        name: "run",
        ty: "String -> List String -> String",
        effect: Effect::Effect,
        params: &[Data, Data],
        executor: ExecutorKind::Process,
        request: |a| process(text(a, 0)?, texts(a, 1)?, None, ExitPolicy::Check),
        result: Output::Data(reply_text),
    },
    External {
        name: "runResult",
        ty: "String -> List String -> String -> Process",
        effect: Effect::Effect,
        params: &[Data, Data, Data],
        executor: ExecutorKind::Process,
        request: |a| {
            let stdin = Some(text(a, 2)?.to_string());
            process(text(a, 0)?, texts(a, 1)?, stdin, ExitPolicy::Report)
        },
        result: Output::Data(|r| match r {
            Reply::Exit {
                code,
                stdout,
                stderr,
            } => Ok(Plain::con(
                "MkProcess",
                vec![Plain::Int(code), Plain::Str(stdout), Plain::Str(stderr)],
            )),
            other => Err(wrong_reply("runResult", &other)),
        }),
    },
    External {
        name: "shell",
        ty: "String -> String",
        effect: Effect::Effect,
        params: &[Data],
        executor: ExecutorKind::Process,
        request: |a| shell(text(a, 0)?),
        result: Output::Data(reply_text),
    },
    External {
        name: "readFile",
        ty: "String -> String",
        effect: Effect::Reads,
        params: &[Data],
        executor: ExecutorKind::Files,
        request: |a| Ok(Request::ReadFile(text(a, 0)?.to_string())),
        result: Output::Data(reply_text),
    },
    External {
        name: "writeFile",
        ty: "String -> String -> String",
        effect: Effect::Effect,
        params: &[Data, Data],
        executor: ExecutorKind::Files,
        request: |a| {
            Ok(Request::WriteFile {
                path: text(a, 0)?.to_string(),
                contents: text(a, 1)?.to_string(),
            })
        },
        result: Output::Data(reply_text),
    },
    External {
        name: "fileExists",
        ty: "String -> Bool",
        effect: Effect::Reads,
        params: &[Data],
        executor: ExecutorKind::Files,
        request: |a| Ok(Request::FileExists(text(a, 0)?.to_string())),
        result: Output::Data(|r| match r {
            Reply::Bool(b) => Ok(Plain::bool(b)),
            other => Err(wrong_reply("fileExists", &other)),
        }),
    },
    External {
        name: "listDir",
        ty: "String -> List String",
        effect: Effect::Reads,
        params: &[Data],
        executor: ExecutorKind::Files,
        request: |a| Ok(Request::ListDir(text(a, 0)?.to_string())),
        result: Output::Data(reply_names),
    },
    External {
        name: "glob",
        ty: "String -> List String",
        effect: Effect::Reads,
        params: &[Data],
        executor: ExecutorKind::Files,
        request: |a| Ok(Request::Glob(text(a, 0)?.to_string())),
        result: Output::Data(reply_names),
    },
    External {
        name: "getEnv",
        ty: "String -> Maybe String",
        effect: Effect::Reads,
        params: &[Data],
        executor: ExecutorKind::Env,
        request: |a| Ok(Request::GetEnv(text(a, 0)?.to_string())),
        result: Output::Data(|r| match r {
            Reply::MaybeText(t) => Ok(Plain::maybe(t.map(Plain::Str))),
            other => Err(wrong_reply("getEnv", &other)),
        }),
    },
    External {
        name: "delay",
        ty: "{a : Type} -> Int -> a -> a",
        effect: Effect::Pure,
        params: &[Data, Value],
        executor: ExecutorKind::Timer,
        request: |a| {
            // A negative wait is no wait.
            let ms = int(a, 0)?.max(0) as u64;
            Ok(Request::Delay(Duration::from_millis(ms)))
        },
        result: Output::Argument(1),
    },
    External {
        name: "llm",
        ty: "String -> String -> String",
        effect: Effect::Paid,
        params: &[Data, Data],
        executor: ExecutorKind::Network,
        request: |a| {
            let chat = Chat::simple(text(a, 0)?, text(a, 1)?);
            Ok(Request::Llm(chat.call(&settings::base_url(), "llm")))
        },
        result: Output::Data(|r| match r {
            Reply::Llm { text, .. } => Ok(Plain::Str(text)),
            other => Err(wrong_reply("llm", &other)),
        }),
    },
    External {
        name: "llmChat",
        ty: "LlmRequest -> LlmReply",
        effect: Effect::Paid,
        params: &[Data],
        executor: ExecutorKind::Network,
        request: |a| {
            let chat = Chat::from_plain(arg(a, 0)?)?;
            Ok(Request::Llm(chat.call(&settings::base_url(), "llmChat")))
        },
        result: Output::Data(|r| match r {
            Reply::Llm {
                text,
                finish,
                tokens_in,
                tokens_out,
            } => Ok(Plain::con(
                "MkLlmReply",
                vec![
                    Plain::Str(text),
                    Plain::Str(finish),
                    Plain::Int(tokens_in),
                    Plain::Int(tokens_out),
                ],
            )),
            other => Err(wrong_reply("llmChat", &other)),
        }),
    },
    External {
        name: "embed",
        ty: "String -> String -> List Float",
        effect: Effect::Paid,
        params: &[Data, Data],
        executor: ExecutorKind::Network,
        request: |a| {
            let base = settings::base_url();
            Ok(Request::Llm(openai::embedding(
                &base,
                text(a, 0)?,
                text(a, 1)?,
            )))
        },
        result: Output::Data(|r| match r {
            Reply::Embedding { bits, .. } => Ok(Plain::List(
                bits.into_iter()
                    .map(|b| Plain::Float(f64::from_bits(b)))
                    .collect(),
            )),
            other => Err(wrong_reply("embed", &other)),
        }),
    },
    External {
        name: "httpGet",
        ty: "String -> String",
        effect: Effect::Reads,
        params: &[Data],
        executor: ExecutorKind::Network,
        request: |a| {
            Ok(Request::Http(HttpRequest {
                method: "GET".into(),
                url: text(a, 0)?.to_string(),
                headers: Vec::new(),
                body: String::new(),
                check_status: true,
            }))
        },
        result: Output::Data(reply_text),
    },
    External {
        name: "httpRequest",
        ty: "String -> String -> List (Pair String String) -> String -> HttpResponse",
        effect: Effect::Effect,
        params: &[Data, Data, Data, Data],
        executor: ExecutorKind::Network,
        request: |a| {
            Ok(Request::Http(HttpRequest {
                method: text(a, 0)?.to_string(),
                url: text(a, 1)?.to_string(),
                headers: pairs(a, 2)?,
                body: text(a, 3)?.to_string(),
                check_status: false,
            }))
        },
        result: Output::Data(|r| match r {
            Reply::Http {
                status,
                headers,
                body,
            } => Ok(Plain::con(
                "MkHttpResponse",
                vec![
                    Plain::Int(status),
                    Plain::List(
                        headers
                            .into_iter()
                            .map(|(k, v)| Plain::con("MkPair", vec![Plain::Str(k), Plain::Str(v)]))
                            .collect(),
                    ),
                    Plain::Str(body),
                ],
            )),
            other => Err(wrong_reply("httpRequest", &other)),
        }),
    },
    External {
        name: "runLines",
        ty: "String -> List String -> List String",
        effect: Effect::Effect,
        params: &[Data, Data],
        executor: ExecutorKind::Process,
        request: |a| process(text(a, 0)?, texts(a, 1)?, None, ExitPolicy::Check),
        result: Output::Stream,
    },
    External {
        name: "shellLines",
        ty: "String -> List String",
        effect: Effect::Effect,
        params: &[Data],
        executor: ExecutorKind::Process,
        request: |a| shell(text(a, 0)?),
        result: Output::Stream,
    },
    External {
        name: "readLines",
        ty: "String -> List String",
        effect: Effect::Reads,
        params: &[Data],
        executor: ExecutorKind::Stream,
        request: |a| {
            Ok(Request::ReadLines {
                path: text(a, 0)?.to_string(),
                stream: None,
            })
        },
        result: Output::Stream,
    },
    External {
        name: "llmStream",
        ty: "String -> String -> List String",
        effect: Effect::Paid,
        params: &[Data, Data],
        executor: ExecutorKind::Network,
        request: |a| {
            let chat = Chat::simple(text(a, 0)?, text(a, 1)?);
            Ok(Request::Llm(chat.call(&settings::base_url(), "llmStream")))
        },
        result: Output::Stream,
    },
    External {
        name: "prim_streamNext",
        ty: "Int -> List String",
        effect: Effect::Reads,
        params: &[Data],
        executor: ExecutorKind::Stream,
        // The call policy answers it from the stream it names; never a request.
        request: |_| {
            Err(CallError::bad_argument(
                "prim_streamNext is the rest of a stream, not called by programs",
            ))
        },
        result: Output::Stream,
    },
];

/// The external named `name`.
pub fn lookup(name: &str) -> Option<&'static External> {
    EXTERNALS.iter().find(|e| e.name == name)
}

fn arg(args: &[Plain], i: usize) -> Result<&Plain, CallError> {
    args.get(i)
        .ok_or_else(|| CallError::bad_argument(format!("argument {} is missing", i + 1)))
}

fn text(args: &[Plain], i: usize) -> Result<&str, CallError> {
    match arg(args, i)? {
        Plain::Str(s) => Ok(s),
        other => Err(CallError::bad_argument(format!(
            "argument {} should be a String, not {}",
            i + 1,
            other.kind()
        ))),
    }
}

fn texts(args: &[Plain], i: usize) -> Result<Vec<String>, CallError> {
    match arg(args, i)? {
        Plain::List(xs) => xs
            .iter()
            .map(|x| match x {
                Plain::Str(s) => Ok(s.clone()),
                other => Err(CallError::bad_argument(format!(
                    "argument {} should be a List of String, and holds {}",
                    i + 1,
                    other.kind()
                ))),
            })
            .collect(),
        other => Err(CallError::bad_argument(format!(
            "argument {} should be a List String, not {}",
            i + 1,
            other.kind()
        ))),
    }
}

/// A `List (Pair String String)` argument.
fn pairs(args: &[Plain], i: usize) -> Result<Vec<(String, String)>, CallError> {
    let bad = || {
        CallError::bad_argument(format!(
            "argument {} should be a List (Pair String String)",
            i + 1
        ))
    };
    match arg(args, i)? {
        Plain::List(xs) => xs
            .iter()
            .map(|x| match x {
                Plain::Con(n, f) if n == "MkPair" && f.len() == 2 => match (&f[0], &f[1]) {
                    (Plain::Str(k), Plain::Str(v)) => Ok((k.clone(), v.clone())),
                    _ => Err(bad()),
                },
                _ => Err(bad()),
            })
            .collect(),
        _ => Err(bad()),
    }
}

fn int(args: &[Plain], i: usize) -> Result<i64, CallError> {
    match arg(args, i)? {
        Plain::Int(n) => Ok(*n),
        other => Err(CallError::bad_argument(format!(
            "argument {} should be an Int, not {}",
            i + 1,
            other.kind()
        ))),
    }
}

/// A process request, refused if a word holds a NUL byte.
fn process(
    program: &str,
    args: Vec<String>,
    stdin: Option<String>,
    exit: ExitPolicy,
) -> Result<Request, CallError> {
    let p = ProcessRequest {
        program: program.to_string(),
        args,
        stdin,
        exit,
        shown_as: None,
        trace: None,
        stream: None,
        spool: None,
    };
    super::exec::process::check_no_nul(&p)?;
    Ok(Request::Process(p))
}

/// `shell cmd`: `bash -o pipefail -c cmd`, or `sh -c cmd` where there is no bash.
fn shell(cmd: &str) -> Result<Request, CallError> {
    let (program, is_bash) = shell_program();
    let mut args: Vec<String> = if *is_bash {
        vec!["-o".into(), "pipefail".into()]
    } else {
        Vec::new()
    };
    args.push("-c".into());
    args.push(cmd.to_string());
    let p = ProcessRequest {
        program: program.clone(),
        args,
        stdin: None,
        exit: ExitPolicy::Check,
        shown_as: Some(cmd.to_string()),
        trace: None,
        stream: None,
        spool: None,
    };
    super::exec::process::check_no_nul(&p)?;
    Ok(Request::Process(p))
}

fn wrong_reply(name: &str, r: &Reply) -> CallError {
    CallError::new(
        CallErrorKind::BadArgument,
        format!("internal error: `{name}` got the reply {r:?}"),
    )
}

fn reply_text(r: Reply) -> Result<Plain, CallError> {
    match r {
        Reply::Text(s) => Ok(Plain::Str(s)),
        other => Err(wrong_reply("a text external", &other)),
    }
}

fn reply_names(r: Reply) -> Result<Plain, CallError> {
    match r {
        Reply::Names(n) => Ok(Plain::strings(n)),
        other => Err(wrong_reply("a listing external", &other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Plain {
        Plain::Str(x.into())
    }

    #[test]
    fn names_are_unique() {
        for (i, e) in EXTERNALS.iter().enumerate() {
            assert!(
                EXTERNALS[..i].iter().all(|f| f.name != e.name),
                "{} twice",
                e.name
            );
        }
    }

    /// The explicit arrows of a type written as `{a : Type} -> A -> B -> C`: the
    /// top-level `->` not after an implicit binder.
    fn explicit_arity(ty: &str) -> usize {
        let mut depth = 0i32;
        let mut arrows = 0;
        let mut implicit = 0;
        let bytes = ty.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'(' | b'{' => depth += 1,
                b')' | b'}' => {
                    depth -= 1;
                    if b == b'}' && depth == 0 {
                        implicit += 1;
                    }
                }
                b'-' if depth == 0 && bytes.get(i + 1) == Some(&b'>') => arrows += 1,
                _ => {}
            }
        }
        arrows - implicit
    }

    #[test]
    fn arity_matches_the_type() {
        for e in EXTERNALS {
            assert_eq!(e.arity(), explicit_arity(e.ty), "{}", e.name);
        }
    }

    #[test]
    fn requests_go_to_the_declared_executor() {
        let samples: &[(&str, Vec<Plain>)] = &[
            ("run", vec![s("echo"), Plain::strings(vec!["a".into()])]),
            ("runResult", vec![s("cat"), Plain::List(vec![]), s("in")]),
            ("shell", vec![s("true")]),
            ("readFile", vec![s("f")]),
            ("writeFile", vec![s("f"), s("x")]),
            ("fileExists", vec![s("f")]),
            ("listDir", vec![s(".")]),
            ("glob", vec![s("*")]),
            ("getEnv", vec![s("HOME")]),
            ("delay", vec![Plain::Int(5)]),
            ("llm", vec![s("m"), s("hi")]),
            (
                "llmChat",
                vec![Plain::con(
                    "MkLlmRequest",
                    vec![
                        s("m"),
                        Plain::List(vec![Plain::con("User", vec![s("hi")])]),
                        Plain::maybe(None),
                        Plain::maybe(None),
                        Plain::maybe(None),
                        Plain::List(vec![]),
                        Plain::bool(false),
                        Plain::Int(0),
                    ],
                )],
            ),
            ("embed", vec![s("m"), s("hi")]),
            ("httpGet", vec![s("http://127.0.0.1:1/")]),
            (
                "httpRequest",
                vec![
                    s("POST"),
                    s("http://127.0.0.1:1/"),
                    Plain::List(vec![Plain::con("MkPair", vec![s("a"), s("b")])]),
                    s("body"),
                ],
            ),
            ("runLines", vec![s("ls"), Plain::List(vec![s("-l")])]),
            ("shellLines", vec![s("ls | wc -l")]),
            ("readLines", vec![s("data.txt")]),
            ("llmStream", vec![s("m"), s("hi")]),
        ];
        // `prim_streamNext` makes no request: the call policy answers it.
        assert_eq!(samples.len() + 1, EXTERNALS.len());
        for (name, args) in samples {
            let e = lookup(name).expect(name);
            let r = e.make_request(args).expect(name);
            assert_eq!(r.executor(), e.executor, "{name}");
        }
    }

    #[test]
    fn effect_classes_are_those_of_the_language() {
        let effects: Vec<(&str, Effect)> = EXTERNALS.iter().map(|e| (e.name, e.effect)).collect();
        for (name, effect) in effects {
            let want = match name {
                "delay" => Effect::Pure,
                "readFile" | "getEnv" | "fileExists" | "listDir" | "glob" | "httpGet"
                | "readLines" | "prim_streamNext" => Effect::Reads,
                "llm" | "llmChat" | "embed" | "llmStream" => Effect::Paid,
                _ => Effect::Effect,
            };
            assert_eq!(effect, want, "{name}");
        }
        // Processes are only ever `effect` calls, so never speculative.
        for e in EXTERNALS {
            if e.executor == ExecutorKind::Process {
                assert!(e.is_effect(), "{}", e.name);
            }
        }
    }

    #[test]
    fn arguments_of_the_wrong_shape_are_errors() {
        let run = lookup("run").unwrap();
        for args in [
            vec![],
            vec![s("echo")],
            vec![Plain::Int(1), Plain::List(vec![])],
            vec![s("echo"), s("not a list")],
            vec![s("echo"), Plain::List(vec![Plain::Int(1)])],
        ] {
            let e = run.make_request(&args).unwrap_err();
            assert_eq!(e.kind, CallErrorKind::BadArgument);
        }
        assert!(lookup("delay").unwrap().make_request(&[s("x")]).is_err());
    }

    #[test]
    fn a_nul_byte_is_an_error_never_a_split() {
        let run = lookup("run").unwrap();
        let e = run
            .make_request(&[
                s("printf"),
                Plain::strings(vec!["[%s]".into(), "a\0b".into(), "c".into()]),
            ])
            .unwrap_err();
        assert_eq!(e.kind, CallErrorKind::BadArgument);
        assert!(e.message.contains("NUL"), "{e}");
        assert!(e.message.contains("printf '[%s]' $'a\\0b' c"), "{e}");
        assert!(run.make_request(&[s("a\0b"), Plain::List(vec![])]).is_err());
        let shell = lookup("shell").unwrap();
        assert!(shell.make_request(&[s("echo a\0b")]).is_err());
        let rr = lookup("runResult").unwrap();
        assert!(
            rr.make_request(&[s("cat"), Plain::List(vec![]), s("in\0put")])
                .is_ok()
        );
    }

    #[test]
    fn delay_is_its_second_argument_and_never_negative() {
        let d = lookup("delay").unwrap();
        assert!(matches!(d.result, Output::Argument(1)));
        assert_eq!(d.params, &[Data, Value]);
        assert_eq!(
            d.make_request(&[Plain::Int(-5)]).unwrap(),
            Request::Delay(Duration::ZERO)
        );
    }

    #[test]
    fn finishing_a_call() {
        let run = lookup("run").unwrap();
        assert_eq!(
            run.finish(Reply::Text("out".into())),
            Ok(Outcome::Value(s("out")))
        );
        assert_eq!(
            lookup("delay").unwrap().finish(Reply::Unit),
            Ok(Outcome::Argument(1))
        );
    }

    #[test]
    fn replies_become_values() {
        let data = |name: &str, r: Reply| match lookup(name).unwrap().result {
            Output::Data(f) => f(r),
            Output::Argument(_) | Output::Stream => panic!("{name}"),
        };
        assert_eq!(
            data(
                "runResult",
                Reply::Exit {
                    code: 1,
                    stdout: "o".into(),
                    stderr: "e".into()
                }
            ),
            Ok(Plain::con("MkProcess", vec![Plain::Int(1), s("o"), s("e")]))
        );
        assert_eq!(data("fileExists", Reply::Bool(true)), Ok(Plain::bool(true)));
        assert_eq!(
            data("getEnv", Reply::MaybeText(Some("v".into()))),
            Ok(Plain::con("Just", vec![s("v")]))
        );
        assert_eq!(
            data("glob", Reply::Names(vec!["a".into()])),
            Ok(Plain::List(vec![s("a")]))
        );
        assert!(data("run", Reply::Unit).is_err());
    }

    /// The prelude declares every external, at the registry's type, in its order.
    #[test]
    fn the_prelude_declares_the_registry() {
        let prelude = include_str!("../../prelude/external.sp");
        let declared: Vec<(String, String)> = prelude
            .lines()
            .filter_map(|l| l.strip_prefix("extern "))
            .filter_map(|l| l.split_once(" : "))
            .map(|(n, t)| (n.trim().to_string(), t.trim().to_string()))
            .collect();
        let registry: Vec<(String, String)> = EXTERNALS
            .iter()
            .map(|e| (e.name.to_string(), e.ty.to_string()))
            .collect();
        assert_eq!(declared, registry);
    }
}
