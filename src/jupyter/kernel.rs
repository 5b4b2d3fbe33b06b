//! `spindle jupyter kernel CONNECTION_FILE`: the sockets and what answers them.
//!
//! The five channels are ZeroMQ sockets bound as the connection file says: shell and
//! control (ROUTER), IOPub (PUB), stdin (ROUTER: `input_request` when a cell reads
//! standard input, see [`super::input`]), heartbeat (REP, echoed). They live on one thread with a small tokio runtime; the REPL session
//! lives on the worker thread ([`super::worker`]), so that while a cell runs the
//! control channel still reads `interrupt_request` and sets the session's interrupt
//! flag at once, and the heartbeat keeps answering.
//!
//! A message with a wrong signature, or that cannot be read, is logged to the
//! kernel's own standard error and ignored (the protocol has no reply for it).

use super::capture::{Capture, Sink, StreamName};
use super::input::Input;
use super::spec::KERNEL_NAME;
use super::wire::{ConnectionInfo, Message, PROTOCOL_VERSION, Signer, new_id};
use super::worker::{Outgoing, Shared, Worker};
use crate::repl::session::Session;
use bytes::Bytes;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use zeromq::{Socket, SocketRecv, SocketSend, ZmqMessage};

/// The kernel's log: the standard error it was started with (descriptor 2 itself is
/// captured for the notebook).
type Log = Arc<Mutex<Box<dyn Write + Send>>>;

fn log(log: &Log, text: &str) {
    let mut l = log.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(l, "spindle kernel: {text}");
}

/// Runs the kernel until a `shutdown_request`. An error before it could listen (a bad
/// connection file, a port taken) is returned as a message.
pub fn run(connection_file: &Path) -> Result<(), String> {
    let info = ConnectionInfo::from_file(connection_file).map_err(|e| e.to_string())?;
    let signer = Signer::new(&info.signature_scheme, &info.key).map_err(|e| e.to_string())?;
    let (out_tx, out_rx) = tokio::sync::mpsc::unbounded_channel();
    let shared = Shared {
        kernel_session: new_id(),
        current: Arc::new(Mutex::new(None)),
        interrupted: Arc::new(AtomicBool::new(false)),
        out: out_tx,
        input: Arc::new(Input::new()),
    };
    // A cell's reads of standard input are asked of the notebook.
    let stdin_shared = shared.clone();
    crate::external::stdin::set_source(Some(Arc::new(move || {
        stdin_shared.input.read_line(&stdin_shared)
    })));
    // Standard output and error become `stream` messages, parented by the request
    // being handled.
    let sink_shared = shared.clone();
    let sink: Sink = Arc::new(move |name: StreamName, text: String| {
        let parent = sink_shared
            .current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        sink_shared.publish(
            parent.as_ref(),
            "stream",
            json!({"name": name.as_str(), "text": text}),
        );
    });
    let (capture, log_file): (Option<Capture>, Box<dyn Write + Send>) = match Capture::start(sink) {
        Ok((capture, original)) => (Some(capture), Box::new(original)),
        Err(e) => {
            eprintln!("spindle kernel: output is not captured: {e}");
            (None, Box::new(std::io::stderr()))
        }
    };
    let log: Log = Arc::new(Mutex::new(log_file));

    // The worker thread makes the session and hands back its interrupt flag; it reads
    // the requests, with the time they came.
    let (req_tx, req_rx) = std::sync::mpsc::channel::<(Message, Instant)>();
    let (flag_tx, flag_rx) = std::sync::mpsc::channel();
    let worker_shared = shared.clone();
    std::thread::Builder::new()
        .name("kernel-session".into())
        .spawn(move || {
            let session = Session::new();
            let _ = flag_tx.send(session.interrupt_flag());
            let history = super::history::History::open_default();
            let mut worker = Worker::new(session, capture, worker_shared.clone(), history);
            // A fault inside the session must not leave the client waiting for a reply
            // forever: it is answered as an error, and the kernel goes on.
            let handle = |worker: &mut Worker, request: Message| {
                let handled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    worker.handle(request.clone())
                }));
                if handled.is_err() {
                    answer_fault(&worker_shared, &request);
                }
            };
            let mut next = None;
            loop {
                let request = match next.take() {
                    Some(request) => request,
                    None => match req_rx.recv() {
                        Ok((request, _)) => request,
                        Err(_) => break,
                    },
                };
                handle(&mut worker, request);
                if let Some(failed) = worker.take_abort() {
                    // The cells queued behind a failed one do not run; a request that
                    // came after the failure ends the aborting, and is handled next.
                    while let Ok((queued, came)) = req_rx.try_recv() {
                        if came > failed {
                            next = Some(queued);
                            break;
                        }
                        if queued.msg_type() == "execute_request" {
                            worker.abort(&queued);
                        } else {
                            handle(&mut worker, queued);
                        }
                    }
                }
            }
        })
        .map_err(|e| format!("cannot start the session thread: {e}"))?;
    let interrupt = flag_rx
        .recv()
        .map_err(|_| "the session could not start".to_string())?;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the sockets' runtime: {e}"))?;
    let state = State {
        shared,
        signer,
        log,
        interrupt,
        requests: req_tx,
    };
    let result = runtime.block_on(serve(info, state, out_rx));
    // No process a cell started outlives the kernel.
    crate::external::lifetime::shutdown_all();
    result
}

/// Answers a request whose handling failed inside the kernel: an `error` output, an
/// error reply of the request's kind, and the `idle` status.
fn answer_fault(shared: &Shared, request: &Message) {
    let error = json!({
        "ename": "error",
        "evalue": "an internal error of the Spindle kernel (the session goes on)",
        "traceback": ["error: an internal error of the Spindle kernel (the session goes on)"],
    });
    shared.publish(Some(request), "error", error.clone());
    let mut content = error;
    content["status"] = json!("error");
    let kind = request.msg_type().trim_end_matches("_request");
    shared.reply(request, &format!("{kind}_reply"), content);
    shared.publish(Some(request), "status", json!({"execution_state": "idle"}));
}

/// What the socket tasks share.
#[derive(Clone)]
struct State {
    shared: Shared,
    signer: Signer,
    log: Log,
    /// The session's interrupt flag.
    interrupt: Arc<std::sync::atomic::AtomicBool>,
    /// Requests for the worker, with the time they came.
    requests: std::sync::mpsc::Sender<(Message, Instant)>,
}

/// Binds a socket to a port of the connection file.
async fn bind<S: Socket>(socket: &mut S, info: &ConnectionInfo, port: u16) -> Result<(), String> {
    let endpoint = info.endpoint(port);
    socket
        .bind(&endpoint)
        .await
        .map(|_| ())
        .map_err(|e| format!("cannot listen on {endpoint}: {e}"))
}

/// Frames of a ZeroMQ message.
fn frames(m: ZmqMessage) -> Vec<Vec<u8>> {
    m.into_vec().into_iter().map(|b| b.to_vec()).collect()
}

/// A ZeroMQ message of frames.
fn zmq_message(frames: Vec<Vec<u8>>) -> Option<ZmqMessage> {
    ZmqMessage::try_from(frames.into_iter().map(Bytes::from).collect::<Vec<_>>()).ok()
}

async fn serve(
    info: ConnectionInfo,
    state: State,
    mut out_rx: tokio::sync::mpsc::UnboundedReceiver<Outgoing>,
) -> Result<(), String> {
    let mut shell = zeromq::RouterSocket::new();
    bind(&mut shell, &info, info.shell_port).await?;
    let mut control = zeromq::RouterSocket::new();
    bind(&mut control, &info, info.control_port).await?;
    let mut stdin = zeromq::RouterSocket::new();
    bind(&mut stdin, &info, info.stdin_port).await?;
    let mut iopub = zeromq::PubSocket::new();
    bind(&mut iopub, &info, info.iopub_port).await?;
    let mut heartbeat = zeromq::RepSocket::new();
    bind(&mut heartbeat, &info, info.hb_port).await?;

    let (shell_send, mut shell_recv) = shell.split();
    let (control_send, mut control_recv) = control.split();
    let (stdin_send, mut stdin_recv) = stdin.split();

    tokio::spawn(async move {
        while let Ok(ping) = heartbeat.recv().await {
            if heartbeat.send(ping).await.is_err() {
                break;
            }
        }
    });

    let s = state.clone();
    tokio::spawn(async move {
        loop {
            match shell_recv.recv().await {
                Ok(m) => on_shell(&s, frames(m)),
                Err(e) => log(&s.log, &format!("shell channel: {e}")),
            }
        }
    });

    // The stdin channel brings the answers to `input_request`.
    let s = state.clone();
    tokio::spawn(async move {
        loop {
            match stdin_recv.recv().await {
                Ok(m) => {
                    if let Some(m) = read(&s, frames(m), "stdin")
                        && m.msg_type() == "input_reply"
                    {
                        s.shared.input.answer(&m);
                    }
                }
                Err(e) => log(&s.log, &format!("stdin channel: {e}")),
            }
        }
    });

    let (exit_tx, mut exit_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let s = state.clone();
    tokio::spawn(async move {
        loop {
            match control_recv.recv().await {
                Ok(m) => {
                    if on_control(&s, frames(m)) {
                        let _ = exit_tx.send(());
                    }
                }
                Err(e) => log(&s.log, &format!("control channel: {e}")),
            }
        }
    });

    let mut sockets = Sockets {
        shell: shell_send,
        control: control_send,
        stdin: stdin_send,
        iopub,
    };
    loop {
        tokio::select! {
            m = out_rx.recv() => match m {
                Some(out) => send(&state, &mut sockets, out).await,
                None => return Ok(()),
            },
            _ = exit_rx.recv() => {
                // The shutdown reply is queued already: send what is queued, give the
                // sockets a moment to write it, then leave.
                while let Ok(out) = out_rx.try_recv() {
                    send(&state, &mut sockets, out).await;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
                return Ok(());
            }
        }
    }
}

/// The sockets messages are sent on.
struct Sockets {
    shell: zeromq::RouterSendHalf,
    control: zeromq::RouterSendHalf,
    stdin: zeromq::RouterSendHalf,
    iopub: zeromq::PubSocket,
}

/// Sends one outgoing message on its socket. An `input_request` that cannot be sent
/// (no client on the stdin channel) fails the read waiting for its answer.
async fn send(state: &State, sockets: &mut Sockets, out: Outgoing) {
    let (channel, m) = match out {
        Outgoing::Shell(m) => ("shell", m),
        Outgoing::Control(m) => ("control", m),
        Outgoing::IoPub(m) => ("iopub", m),
        Outgoing::Stdin(m) => ("stdin", m),
    };
    let Some(zm) = zmq_message(m.encode(&state.signer)) else {
        if channel == "stdin" {
            state
                .shared
                .input
                .failed("the request for input could not be made".into());
        }
        return;
    };
    let sent = match channel {
        "shell" => sockets.shell.send(zm).await,
        "control" => sockets.control.send(zm).await,
        "stdin" => sockets.stdin.send(zm).await,
        _ => sockets.iopub.send(zm).await,
    };
    if let Err(e) = sent {
        log(
            &state.log,
            &format!("cannot send {} on {channel}: {e}", m.msg_type()),
        );
        if channel == "stdin" {
            state.shared.input.failed(format!(
                "the notebook cannot be asked for input (no client on the stdin channel: {e})"
            ));
        }
    }
}

/// Reads a request, or logs why it is ignored.
fn read(state: &State, frames: Vec<Vec<u8>>, channel: &str) -> Option<Message> {
    match Message::decode(frames, &state.signer) {
        Ok(m) => Some(m),
        Err(e) => {
            log(
                &state.log,
                &format!("a message on {channel} is ignored: {e}"),
            );
            None
        }
    }
}

/// The `kernel_info_reply` content.
fn kernel_info() -> Value {
    json!({
        "status": "ok",
        "protocol_version": PROTOCOL_VERSION,
        "implementation": KERNEL_NAME,
        "implementation_version": env!("CARGO_PKG_VERSION"),
        "language_info": {
            "name": "spindle",
            "version": env!("CARGO_PKG_VERSION"),
            "mimetype": "text/x-spindle",
            "file_extension": ".sp",
            "pygments_lexer": "haskell",
            "codemirror_mode": "haskell",
        },
        "banner": format!(
            "Spindle {}: a cell holds declarations and expressions; `:help` lists the commands",
            env!("CARGO_PKG_VERSION")
        ),
        "debugger": false,
        "help_links": [],
    })
}

/// A shell request: `kernel_info_request` is answered here at once (even while a
/// cell runs); the rest go to the worker, in order.
fn on_shell(state: &State, frames: Vec<Vec<u8>>) {
    let Some(m) = read(state, frames, "shell") else {
        return;
    };
    match m.msg_type() {
        "kernel_info_request" => {
            let sh = &state.shared;
            sh.publish(Some(&m), "status", json!({"execution_state": "busy"}));
            sh.reply(&m, "kernel_info_reply", kernel_info());
            sh.publish(Some(&m), "status", json!({"execution_state": "idle"}));
        }
        _ => {
            if state.requests.send((m, Instant::now())).is_err() {
                log(&state.log, "the session thread has ended");
            }
        }
    }
}

/// A control request; `true` when the kernel should exit (after `shutdown_request`).
fn on_control(state: &State, frames: Vec<Vec<u8>>) -> bool {
    let Some(m) = read(state, frames, "control") else {
        return false;
    };
    let sh = &state.shared;
    let reply = |msg_type: &str, content: Value| {
        let r = Message::new(msg_type, &sh.kernel_session, Some(&m), content);
        let _ = sh.out.send(Outgoing::Control(r));
    };
    match m.msg_type() {
        "interrupt_request" => {
            state.interrupt.store(true, Ordering::SeqCst);
            sh.interrupted.store(true, Ordering::SeqCst);
            // The evaluation stops at the flag, and its run's shutdown stops the
            // calls it started (processes: SIGTERM, SIGKILL two seconds later).
            reply("interrupt_reply", json!({"status": "ok"}));
            false
        }
        "shutdown_request" => {
            // Stop the running cell's calls, then answer and leave.
            state.interrupt.store(true, Ordering::SeqCst);
            sh.interrupted.store(true, Ordering::SeqCst);
            crate::external::lifetime::shutdown_all();
            let restart = m
                .content
                .get("restart")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            reply(
                "shutdown_reply",
                json!({"status": "ok", "restart": restart}),
            );
            sh.publish(
                Some(&m),
                "shutdown_reply",
                json!({"status": "ok", "restart": restart}),
            );
            true
        }
        "kernel_info_request" => {
            reply("kernel_info_reply", kernel_info());
            false
        }
        other => {
            log(
                &state.log,
                &format!("control request {other} is not handled"),
            );
            false
        }
    }
}
