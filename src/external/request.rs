//! What an executor is asked to do ([`Request`]), what it answers ([`Reply`]) and how a
//! call fails ([`CallError`]): plain data that crosses threads, built by the registry
//! from a call's arguments and turned back into a value by it.
//!
//! A failure's message names the program and its arguments as a shell would quote them
//! (LANGUAGE.md 7.4); the machine adds the place in the user's program.

use std::fmt;
use std::time::Duration;

/// One call for an executor to perform.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Request {
    /// Start a process and collect its output.
    Process(ProcessRequest),
    /// The contents of a file, as UTF-8.
    ReadFile(String),
    /// Write a file whole and atomically (temporary file, then rename).
    WriteFile {
        /// The file to write.
        path: String,
        /// What to write.
        contents: String,
    },
    /// Whether a file or directory exists.
    FileExists(String),
    /// The names in a directory, sorted.
    ListDir(String),
    /// The paths matching a pattern, sorted.
    Glob(String),
    /// An environment variable.
    GetEnv(String),
    /// Wait this long, then answer [`Reply::Unit`].
    Delay(Duration),
    /// An HTTP request (`httpGet`, `httpRequest`), performed by the network executor
    /// ([`crate::external::net`]).
    Http(HttpRequest),
    /// A request to an OpenAI-compatible model server (`llm`, `llmChat`, `embed`),
    /// performed by the network executor with rate limits and retries.
    Llm(crate::external::net::openai::LlmCall),
    /// A file's lines, read lazily into a stream (`readLines`): answered
    /// [`Reply::Stream`] once the file is read to its end.
    ReadLines {
        /// The file.
        path: String,
        /// The stream its lines go to (attached by the call policy).
        stream: Option<StreamRef>,
    },
    /// The next items of a stream ([`crate::external::stream`]): answered
    /// [`Reply::Batch`] as soon as there are any (or the stream ends).
    StreamNext(StreamRef),
}

use crate::external::stream::StreamRef;

/// An HTTP request: method, URL, headers and body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The URL.
    pub url: String,
    /// Headers, in order.
    pub headers: Vec<(String, String)>,
    /// The body (empty: none).
    pub body: String,
    /// Whether a status outside 200-299 is an error ([`Reply::Text`] of the body) or
    /// part of the answer ([`Reply::Http`]).
    pub check_status: bool,
}

/// Which executor performs a request: the scheduler limits each kind on its own
/// (LANGUAGE.md 7.3: `--jobs` for processes, `--io-jobs` for waiting calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExecutorKind {
    /// Local processes, each in its own process group (limited by `jobs`).
    Process,
    /// File-system operations, on a small pool of threads.
    Files,
    /// Reading the environment: answered at once, on the scheduler's thread.
    Env,
    /// Timers: waiting calls that cost no thread (limited by `io_jobs`).
    Timer,
    /// Calls that only wait on the network (HTTP, model servers): tasks of one
    /// network thread, no thread per call (limited by `io_jobs`).
    Network,
    /// Waits for a stream's next items, and readers of files into streams: no limit
    /// (a reader blocks only on its stream's buffer).
    Stream,
}

/// A process to run: a program (found on `PATH` when it has no `/`) with arguments,
/// never through a shell unless the program is the shell itself (`shell`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProcessRequest {
    /// The program.
    pub program: String,
    /// Its arguments, each passed as one argument whatever it holds.
    pub args: Vec<String>,
    /// Text for its standard input (`runResult`); `None` connects it to nothing.
    pub stdin: Option<String>,
    /// Whether a non-zero exit is a failure (`run`, `shell`) or part of the result
    /// (`runResult`).
    pub exit: ExitPolicy,
    /// How to name the call in messages when not by its program and arguments: `shell`
    /// shows the command line it was given, not `bash -o pipefail -c '...'`.
    pub shown_as: Option<String>,
    /// Run under the file-access tracer, writing its report here
    /// ([`crate::external::fstrace`]); set by the call layer when the call is recorded.
    pub trace: Option<crate::external::fstrace::TraceSpec>,
    /// Its standard output goes, line by line, to this stream (`runLines`,
    /// `shellLines`; attached by the call policy), and the call's answer is
    /// [`Reply::Stream`].
    pub stream: Option<StreamRef>,
    /// Where a streamed call writes its items as they arrive, for its record (set by
    /// the call layer when the call is recorded).
    pub spool: Option<String>,
}

/// What a process's exit status means for the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitPolicy {
    /// Exit status 0 is success, anything else (or a signal) a [`CallError`]; the
    /// answer is [`Reply::Text`] (standard output) and a successful tool's standard
    /// error is passed through to Spindle's.
    Check,
    /// Any exit is an answer: [`Reply::Exit`] with the code, standard output and
    /// standard error (a process killed by signal `n` reports code `128 + n`, as shells
    /// do).
    Report,
}

/// An executor's answer to a request that succeeded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Reply {
    /// A text: standard output, a file's contents, the path written.
    Text(String),
    /// A finished process (`runResult`).
    Exit {
        /// The exit code (`128 + n` for a process killed by signal `n`).
        code: i64,
        /// Its standard output.
        stdout: String,
        /// Its standard error.
        stderr: String,
    },
    /// A yes-or-no answer (`fileExists`).
    Bool(bool),
    /// Names or paths, sorted (`listDir`, `glob`).
    Names(Vec<String>),
    /// A text that may be absent (`getEnv`).
    MaybeText(Option<String>),
    /// Done, nothing to say (`delay`).
    Unit,
    /// A model's reply (`llm`, `llmChat`): its text, why it stopped, and the tokens it
    /// was charged for.
    Llm {
        /// The reply's text.
        text: String,
        /// The finish reason (`stop`, `length`, ...).
        finish: String,
        /// Prompt tokens.
        tokens_in: i64,
        /// Completion tokens.
        tokens_out: i64,
    },
    /// An embedding (`embed`): the vector's numbers as the bits of `f64`s (so that a
    /// reply is `Eq`), and the tokens it was charged for.
    Embedding {
        /// `f64::to_bits` of each number.
        bits: Vec<u64>,
        /// Prompt tokens.
        tokens_in: i64,
    },
    /// A streamed call ended well (`runLines`, `shellLines`, `readLines`,
    /// `llmStream`): its items went to its stream as they came; `spool`, when not
    /// empty, is the file that holds them all for the record (one line an item for
    /// lines, one JSON string a line for chunks: [`spool_is_json`]).
    Stream {
        /// The spool file (empty: not kept).
        spool: String,
        /// How many items.
        items: u64,
        /// Prompt tokens (`llmStream`).
        tokens_in: i64,
        /// Completion tokens (`llmStream`).
        tokens_out: i64,
    },
    /// A stream's next items ([`Request::StreamNext`]).
    Batch(crate::external::stream::Batch),
    /// An HTTP response (`httpRequest`).
    Http {
        /// The status code.
        status: i64,
        /// The headers, in the order received (names in lower case).
        headers: Vec<(String, String)>,
        /// The body, as UTF-8 (invalid bytes replaced).
        body: String,
    },
}

impl Reply {
    /// The tokens a model call was charged for, in and out (zero for other calls).
    pub fn tokens(&self) -> (i64, i64) {
        match self {
            Reply::Llm {
                tokens_in,
                tokens_out,
                ..
            } => (*tokens_in, *tokens_out),
            Reply::Embedding { tokens_in, .. } => (*tokens_in, 0),
            Reply::Stream {
                tokens_in,
                tokens_out,
                ..
            } => (*tokens_in, *tokens_out),
            _ => (0, 0),
        }
    }
}

/// Why a call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallErrorKind {
    /// A process exited with a non-zero status.
    Exited(i32),
    /// A process was killed by a signal.
    Signalled(i32),
    /// A process could not be started (the OS error is in the message).
    CannotStart,
    /// A file or directory operation failed (the OS error is in the message).
    Io,
    /// An argument cannot be passed: a NUL byte, a malformed pattern, a value of the
    /// wrong shape.
    BadArgument,
    /// Spindle is stopping and starts nothing more.
    Stopping,
    /// An `effect` call not started because an earlier failure decided the run
    /// ([`crate::external::calls::NOT_STARTED`]).
    NotStarted,
    /// An `effect` call `--plan` lists and does not make.
    Planned,
    /// The call ran longer than `--call-timeout` allows.
    TimedOut,
    /// A batch job ended without saying how (Slurm: it left the queue without its
    /// exit-code file), or the cluster scheduler refused it.
    Lost,
    /// A server answered with this HTTP status (`httpGet` outside 200-299, a model
    /// server's error after its retries).
    Status(u16),
    /// The network failed: no connection, a dropped connection, a malformed reply.
    Network,
    /// The call's result passed `--max-memory` while it was read
    /// ([`crate::external::budget`]).
    OutOfMemory,
}

/// A failed call: a one-line message naming the call and what went wrong, and the last
/// lines of the process's standard error (at most [`STDERR_TAIL_LINES`]), each as its
/// own line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallError {
    /// What kind of failure.
    pub kind: CallErrorKind,
    /// E.g. `` `grep -c 'a b' data.csv` exited with status 1 ``.
    pub message: String,
    /// The end of the process's standard error, one entry a line (empty when there was
    /// none, or for calls that are not processes).
    pub stderr_tail: Vec<String>,
}

/// How many lines of standard error a failure shows (LANGUAGE.md 7.4).
pub const STDERR_TAIL_LINES: usize = 20;

/// Lines of standard error longer than this are cut in a failure's report.
const TAIL_LINE_CHARS: usize = 1000;

impl CallError {
    /// A failure with no standard error to show.
    pub fn new(kind: CallErrorKind, message: impl Into<String>) -> CallError {
        CallError {
            kind,
            message: message.into(),
            stderr_tail: Vec::new(),
        }
    }

    /// An argument that cannot be passed.
    pub fn bad_argument(message: impl Into<String>) -> CallError {
        CallError::new(CallErrorKind::BadArgument, message)
    }
}

impl fmt::Display for CallError {
    /// The message, then the standard error lines, each on its own line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for line in &self.stderr_tail {
            write!(f, "\n  {line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for CallError {}

/// The last [`STDERR_TAIL_LINES`] lines of a process's standard error (decoded as
/// UTF-8 with replacement characters, trailing blank lines dropped, long lines cut).
pub fn stderr_tail(stderr: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let start = lines.len().saturating_sub(STDERR_TAIL_LINES);
    lines[start..]
        .iter()
        .map(|l| {
            if l.chars().count() > TAIL_LINE_CHARS {
                let cut: String = l.chars().take(TAIL_LINE_CHARS).collect();
                format!("{cut}...")
            } else {
                l.to_string()
            }
        })
        .collect()
}

/// One word as a shell would quote it (`a b` as `'a b'`, `''` for the empty word). A
/// word holding a control character (a newline, a tab, a NUL byte, which no argument
/// can hold) is shown in bash's `$'...'` form (`$'a\nb'`), so a command always shows on
/// one line.
pub fn shell_quote(word: &str) -> String {
    if word.chars().any(|c| c.is_control()) {
        let mut out = String::from("$'");
        for c in word.chars() {
            match c {
                '\0' => out.push_str("\\0"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('\'');
        return out;
    }
    match shlex::try_quote(word) {
        Ok(q) => q.into_owned(),
        // Only a NUL byte makes quoting fail, and there is none.
        Err(_) => format!("'{}'", word.replace('\'', "'\\''")),
    }
}

impl ProcessRequest {
    /// The call as a shell would show it: `grep -c 'a b' data.csv`, or for `shell` the
    /// command line itself.
    pub fn shown(&self) -> String {
        if let Some(s) = &self.shown_as {
            return s.replace('\0', "\\0");
        }
        let mut out = shell_quote(&self.program);
        for a in &self.args {
            out.push(' ');
            out.push_str(&shell_quote(a));
        }
        out
    }
}

/// Whether a spool file holds one JSON string a line (chunks, which may hold
/// newlines), rather than one raw line an item.
pub fn spool_is_json(path: &str) -> bool {
    path.ends_with(".jsonl")
}

impl Request {
    /// The stream a streamed call's items go to, if it is one.
    pub fn stream(&self) -> Option<&StreamRef> {
        match self {
            Request::Process(p) => p.stream.as_ref(),
            Request::Llm(l) => l.stream.as_ref(),
            Request::ReadLines { stream, .. } => stream.as_ref(),
            _ => None,
        }
    }

    /// Sends a streamed call's items to `s` (the call policy opens one per call).
    pub fn attach_stream(&mut self, s: StreamRef) {
        match self {
            Request::Process(p) => p.stream = Some(s),
            Request::Llm(l) => l.stream = Some(s),
            Request::ReadLines { stream, .. } => *stream = Some(s),
            _ => {}
        }
    }

    /// Where a streamed call keeps its items for its record (set by the call layer).
    pub fn set_spool(&mut self, path: String) {
        match self {
            Request::Process(p) => p.spool = Some(path),
            Request::Llm(l) => l.spool = Some(path),
            _ => {}
        }
    }

    /// Whether it reads the program's standard input (`readFile "/dev/stdin"`,
    /// `readLines "/dev/stdin"`): reading uses the input up, so the call starts only
    /// when it is certainly needed ([`super::stdin`]).
    pub fn reads_stdin(&self) -> bool {
        match self {
            Request::ReadFile(path) | Request::ReadLines { path, .. } => {
                super::stdin::names_stdin(path)
            }
            _ => false,
        }
    }

    /// The executor that performs this request.
    pub fn executor(&self) -> ExecutorKind {
        match self {
            Request::Process(_) => ExecutorKind::Process,
            Request::ReadFile(_)
            | Request::WriteFile { .. }
            | Request::FileExists(_)
            | Request::ListDir(_)
            | Request::Glob(_) => ExecutorKind::Files,
            Request::GetEnv(_) => ExecutorKind::Env,
            Request::Delay(_) => ExecutorKind::Timer,
            Request::Http(_) | Request::Llm(_) => ExecutorKind::Network,
            Request::ReadLines { .. } | Request::StreamNext(_) => ExecutorKind::Stream,
        }
    }

    /// A short description of the call for messages, progress and traces:
    /// `` `sort -u data.txt` ``, `readFile data.csv`, `delay 200`.
    pub fn describe(&self) -> String {
        match self {
            Request::Process(p) => format!("`{}`", p.shown()),
            Request::ReadFile(p) => format!("readFile {}", shell_quote(p)),
            Request::WriteFile { path, .. } => format!("writeFile {}", shell_quote(path)),
            Request::FileExists(p) => format!("fileExists {}", shell_quote(p)),
            Request::ListDir(p) => format!("listDir {}", shell_quote(p)),
            Request::Glob(p) => format!("glob {}", shell_quote(p)),
            Request::GetEnv(n) => format!("getEnv {}", shell_quote(n)),
            Request::Delay(d) => format!("delay {}", d.as_millis()),
            Request::ReadLines { path, .. } => format!("readLines {}", shell_quote(path)),
            Request::StreamNext(s) => format!("{s:?}"),
            Request::Http(h) => format!("{} {}", h.method, h.url),
            Request::Llm(l) => l.shown.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(program: &str, args: &[&str]) -> ProcessRequest {
        ProcessRequest {
            program: program.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            stdin: None,
            exit: ExitPolicy::Check,
            shown_as: None,
            trace: None,
            stream: None,
            spool: None,
        }
    }

    #[test]
    fn commands_are_shown_as_a_shell_would_quote_them() {
        assert_eq!(
            process("grep", &["-c", "a b", "data.csv"]).shown(),
            "grep -c 'a b' data.csv"
        );
        assert_eq!(process("echo", &[""]).shown(), "echo ''");
        assert_eq!(process("printf", &["a\0b"]).shown(), "printf $'a\\0b'");
        assert_eq!(
            process("echo", &["two\nlines"]).shown(),
            "echo $'two\\nlines'"
        );
        assert_eq!(shell_quote("a\tb\u{1b}"), "$'a\\tb\\u001b'");
        // Whatever form the quoting takes, a shell reads back the same word.
        for word in ["it's $HOME", "a\"b", "*", "ünï", "-x"] {
            let q = shell_quote(word);
            assert_eq!(shlex::split(&q), Some(vec![word.to_string()]), "{q}");
        }
    }

    #[test]
    fn the_tail_of_standard_error_is_its_last_lines() {
        let err: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let tail = stderr_tail(err.as_bytes());
        assert_eq!(tail.len(), STDERR_TAIL_LINES);
        assert_eq!(tail[0], "line 11");
        assert_eq!(tail[19], "line 30");
        assert!(stderr_tail(b"\n\n").is_empty());
        let long = "x".repeat(5000);
        assert_eq!(stderr_tail(long.as_bytes())[0].len(), TAIL_LINE_CHARS + 3);
    }

    #[test]
    fn an_error_shows_its_lines_below_the_message() {
        let e = CallError {
            kind: CallErrorKind::Exited(1),
            message: "`false` exited with status 1".into(),
            stderr_tail: vec!["a".into(), "b".into()],
        };
        assert_eq!(e.to_string(), "`false` exited with status 1\n  a\n  b");
    }
}
