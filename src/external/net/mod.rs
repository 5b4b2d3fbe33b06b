//! The network executor: calls that only wait on the network (`httpGet`,
//! `httpRequest`, and model calls: `llm`, `llmChat`, `embed`, `llmStream`), run as
//! tasks of one thread with an asynchronous runtime (tokio) and one HTTP client
//! (reqwest, over rustls with the `ring` provider: no system TLS library, no thread per
//! request, one pool of connections per server). 10,000 calls in flight cost 10,000 small tasks and
//! their sockets; the open-file limit is raised to its hard limit when the network
//! starts, so that many sockets fit.
//!
//! The local [`crate::external::exec::Executor`] starts these calls (its `Network`
//! kind, limited by `--io-jobs` with certain calls first) through [`spawn`], and
//! cancels them by aborting their task, which closes their connection; `--sequential`
//! waits for one through [`perform_blocking`].

pub mod http;
pub mod limits;
pub mod openai;
pub mod settings;
pub mod sse;

use crate::external::request::{CallError, CallErrorKind, Reply, Request};
use std::sync::OnceLock;
use std::time::Duration;

/// The runtime's handle and the client, made on first use.
struct Net {
    handle: tokio::runtime::Handle,
    client: reqwest::Client,
}

fn net() -> Result<&'static Net, CallError> {
    static NET: OnceLock<Result<Net, String>> = OnceLock::new();
    NET.get_or_init(start)
        .as_ref()
        .map_err(|e| CallError::new(CallErrorKind::CannotStart, e.clone()))
}

/// Starts the network thread and makes the client.
fn start() -> Result<Net, String> {
    raise_open_file_limit();
    // A second install (another caller won the race) is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("the network runtime cannot start: {e}"))?;
    let handle = rt.handle().clone();
    std::thread::Builder::new()
        .name("spindle-network".into())
        .spawn(move || rt.block_on(std::future::pending::<()>()))
        .map_err(|e| format!("the network thread cannot start: {e}"))?;
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .pool_idle_timeout(Duration::from_secs(60))
        .user_agent(concat!("spindle/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("the HTTP client cannot start: {e}"))?;
    Ok(Net { handle, client })
}

/// Raises the soft limit on open files to the hard limit (10,000 sockets need more
/// than the usual 1,024).
fn raise_open_file_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE)
        && soft < hard
    {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}

/// Performs a network request (an [`Request::Http`] or [`Request::Llm`]).
async fn perform(client: &reqwest::Client, request: &Request) -> Result<Reply, CallError> {
    match request {
        Request::Http(h) => http::perform(client, h).await,
        // `llmStream`: its chunks go to its stream as the server sends them.
        Request::Llm(l) if l.stream.is_some() => openai::perform_stream(client, l).await,
        Request::Llm(l) => openai::perform(client, l).await,
        other => Err(CallError::bad_argument(format!(
            "internal error: {} is not a network request",
            other.describe()
        ))),
    }
}

/// Starts `request` as a task of the network thread; `done` gets its answer (unless
/// the task is aborted first: then never).
pub fn spawn(
    request: Request,
    done: impl FnOnce(Result<Reply, CallError>) + Send + 'static,
) -> Result<tokio::task::AbortHandle, CallError> {
    let net = net()?;
    let client = net.client.clone();
    let task = net.handle.spawn(async move {
        let r = perform(&client, &request).await;
        done(r);
    });
    Ok(task.abort_handle())
}

/// Runs `work` (given the client) on the network thread and waits for its result on
/// this one: the batch client's requests ([`crate::external::batch::api`]).
pub fn block_on<T, F>(work: impl FnOnce(reqwest::Client) -> F) -> Result<T, String>
where
    T: Send + 'static,
    F: std::future::Future<Output = T> + Send + 'static,
{
    let net = net().map_err(|e| e.message)?;
    let (tx, rx) = std::sync::mpsc::channel();
    let fut = work(net.client.clone());
    net.handle.spawn(async move {
        let _ = tx.send(fut.await);
    });
    rx.recv()
        .map_err(|_| "the network executor stopped".to_string())
}

/// Performs `request` and waits for its answer on this thread (`--sequential`).
pub fn perform_blocking(request: &Request) -> Result<Reply, CallError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = spawn(request.clone(), move |r| {
        let _ = tx.send(r);
    })?;
    match rx.recv() {
        Ok(r) => r,
        Err(_) => {
            handle.abort();
            Err(CallError::new(
                CallErrorKind::Stopping,
                "the network executor stopped",
            ))
        }
    }
}
