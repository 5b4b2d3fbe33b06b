//! The protocol loop: reads requests and notifications one at a time, answers each
//! from the document store and the documents' analyses, and publishes diagnostics
//! after every change. One thread, no queue: every answer is computed when asked.
//!
//! Bad input never ends the server: a frame that is not JSON-RPC gets a parse error,
//! an unknown method `MethodNotFound`, bad parameters `InvalidParams`, and a panic in
//! a handler (a checker bug) becomes an `InternalError` answer.

use super::analysis::{self, Analysis};
use super::documents::{Store, uri_to_path};
use super::incremental::{Cache, Stats};
use super::queries;
use super::transport::{self, Frame};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CodeActionOrCommand, CodeActionParams, CodeActionProviderCapability, CompletionOptions,
    CompletionParams, CompletionResponse, DiagnosticRelatedInformation, DiagnosticSeverity,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse,
    HoverParams, HoverProviderCapability, InitializeResult, OneOf, PublishDiagnosticsParams,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, Write};

/// The custom request that tells how much the last check of a document re-checked.
pub const STATS_METHOD: &str = "spindle/stats";

/// What the server knows of one open document beyond its text.
struct Checked {
    /// The latest check.
    analysis: Analysis,
    /// The latest check that elaborated a program (for completions while the text
    /// does not parse, as just after typing `.`).
    last_good: Option<Analysis>,
    /// How much the latest check re-checked.
    stats: Stats,
    /// The per-definition results kept for the next check.
    cache: Cache,
}

/// The server's state.
#[derive(Default)]
pub struct Server {
    docs: Store,
    checked: HashMap<String, Checked>,
    initialized: bool,
    shut_down: bool,
}

/// How the loop ended.
pub enum Ending {
    /// `exit` after `shutdown`: exit status 0.
    Clean,
    /// `exit` without `shutdown`, or the input ended: exit status 1.
    Abrupt,
}

impl Server {
    /// Serves `input` until `exit` or its end, writing to `output`.
    pub fn serve(&mut self, input: &mut impl BufRead, output: &mut impl Write) -> Ending {
        loop {
            let message = match transport::read(input) {
                Frame::Message(m) => m,
                Frame::Malformed(why) => {
                    if transport::write_parse_error(output, &why).is_err() {
                        return Ending::Abrupt;
                    }
                    continue;
                }
                Frame::End => return Ending::Abrupt,
            };
            let replies = match message {
                Message::Request(req) => vec![self.request(req)],
                Message::Notification(n) => {
                    if n.method == lsp_types::notification::Exit::METHOD {
                        return if self.shut_down {
                            Ending::Clean
                        } else {
                            Ending::Abrupt
                        };
                    }
                    self.notification(n)
                }
                // The server sends no requests, so expects no responses.
                Message::Response(_) => Vec::new(),
            };
            for reply in replies {
                if transport::write(output, reply).is_err() {
                    return Ending::Abrupt;
                }
            }
        }
    }

    /// Answers one request.
    fn request(&mut self, req: Request) -> Message {
        let id = req.id.clone();
        let method = req.method.clone();
        if method == lsp_types::request::Initialize::METHOD {
            self.initialized = true;
            return ok(id, initialize_result());
        }
        if !self.initialized {
            return err(
                id,
                ErrorCode::ServerNotInitialized,
                "the server is not initialized".into(),
            );
        }
        if self.shut_down {
            return err(
                id,
                ErrorCode::InvalidRequest,
                "the server is shut down".into(),
            );
        }
        if method == lsp_types::request::Shutdown::METHOD {
            self.shut_down = true;
            return ok(id, Value::Null);
        }
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.answer(&method, req.params)
        }));
        match answer {
            Ok(Ok(value)) => ok(id, value),
            Ok(Err((code, why))) => err(id, code, why),
            Err(_) => err(
                id,
                ErrorCode::InternalError,
                format!("the server failed answering `{method}`"),
            ),
        }
    }

    /// The result of a request other than the lifecycle's.
    fn answer(&mut self, method: &str, params: Value) -> Result<Value, (ErrorCode, String)> {
        use lsp_types::request as r;
        match method {
            r::HoverRequest::METHOD => {
                let p: HoverParams = parse(params)?;
                let pos = p.text_document_position_params;
                let found = self.with_doc(&pos.text_document.uri, |c, doc| {
                    let offset = doc.lines.offset(&doc.text, pos.position);
                    queries::hover(&c.analysis, doc, offset)
                });
                json(found.flatten())
            }
            r::GotoDefinition::METHOD => {
                let p: GotoDefinitionParams = parse(params)?;
                let pos = p.text_document_position_params;
                let uri = pos.text_document.uri.clone();
                let found = self.with_doc(&uri, |c, doc| {
                    let offset = doc.lines.offset(&doc.text, pos.position);
                    queries::definition(&c.analysis, &uri, doc, offset)
                });
                json(found.flatten().map(GotoDefinitionResponse::Scalar))
            }
            r::Completion::METHOD => {
                let p: CompletionParams = parse(params)?;
                let pos = p.text_document_position;
                let items = self.with_doc(&pos.text_document.uri, |c, doc| {
                    let offset = doc.lines.offset(&doc.text, pos.position);
                    queries::completion(&c.analysis, c.last_good.as_ref(), doc, offset)
                });
                json(items.map(CompletionResponse::Array))
            }
            r::DocumentSymbolRequest::METHOD => {
                let p: DocumentSymbolParams = parse(params)?;
                let symbols = self.with_doc(&p.text_document.uri, |c, doc| {
                    queries::symbols(&c.analysis, doc)
                });
                json(symbols.map(DocumentSymbolResponse::Nested))
            }
            r::CodeActionRequest::METHOD => {
                let p: CodeActionParams = parse(params)?;
                let uri = p.text_document.uri.clone();
                let actions = self.with_doc(&uri, |c, doc| {
                    let start = doc.lines.offset(&doc.text, p.range.start);
                    let end = doc.lines.offset(&doc.text, p.range.end);
                    queries::code_actions(&c.analysis, &uri, doc, start, end)
                });
                let actions: Option<Vec<CodeActionOrCommand>> =
                    actions.map(|a| a.into_iter().map(CodeActionOrCommand::CodeAction).collect());
                json(actions)
            }
            STATS_METHOD => {
                let p: lsp_types::TextDocumentIdentifier = match params.get("textDocument") {
                    Some(v) => parse(v.clone())?,
                    None => parse(params)?,
                };
                match self.checked.get(p.uri.as_str()) {
                    Some(c) => json(c.stats),
                    None => Err((
                        ErrorCode::InvalidParams,
                        format!("{} is not open", p.uri.as_str()),
                    )),
                }
            }
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("unknown method `{method}`"),
            )),
        }
    }

    /// Runs `f` on a document and its check, if the document is open and checked.
    fn with_doc<T>(
        &self,
        uri: &Uri,
        f: impl FnOnce(&Checked, &super::documents::Document) -> T,
    ) -> Option<T> {
        let doc = self.docs.get(uri)?;
        let checked = self.checked.get(uri.as_str())?;
        Some(f(checked, doc))
    }

    /// Handles one notification; returns the messages to send (diagnostics).
    fn notification(&mut self, n: Notification) -> Vec<Message> {
        use lsp_types::notification as no;
        if !self.initialized {
            return Vec::new();
        }
        let done =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match n.method.as_str() {
                no::DidOpenTextDocument::METHOD => {
                    let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params)
                    else {
                        return Vec::new();
                    };
                    let doc = p.text_document;
                    self.docs.open(&doc.uri, doc.text, doc.version);
                    let mut out = self.check(&doc.uri);
                    out.extend(self.check_importers(&doc.uri));
                    out
                }
                no::DidChangeTextDocument::METHOD => {
                    let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params)
                    else {
                        return Vec::new();
                    };
                    let uri = p.text_document.uri;
                    match self.docs.get_mut(&uri) {
                        Some(doc) => doc.apply(p.content_changes, p.text_document.version),
                        None => return Vec::new(),
                    }
                    let mut out = self.check(&uri);
                    out.extend(self.check_importers(&uri));
                    out
                }
                no::DidCloseTextDocument::METHOD => {
                    let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params)
                    else {
                        return Vec::new();
                    };
                    let uri = p.text_document.uri;
                    self.docs.close(&uri);
                    self.checked.remove(uri.as_str());
                    // Its importers read it from disk again.
                    let mut out = self.check_importers(&uri);
                    out.insert(0, publish(uri, Vec::new(), None));
                    out
                }
                // `initialized`, `didSave`, `$/cancelRequest`, settings...: nothing to do.
                _ => Vec::new(),
            }));
        done.unwrap_or_default()
    }

    /// Checks a document again and returns its diagnostics to publish.
    fn check(&mut self, uri: &Uri) -> Vec<Message> {
        let Some(doc) = self.docs.get(uri) else {
            return Vec::new();
        };
        let path = uri_to_path(uri);
        let name = match &path {
            Some(p) => p.display().to_string(),
            None => uri.as_str().to_string(),
        };
        let key = uri.as_str().to_string();
        let mut cache = self
            .checked
            .remove(&key)
            .map(|c| (c.cache, c.last_good, c.analysis))
            .map_or((Cache::default(), None, None), |(c, g, a)| (c, g, Some(a)));
        let open = self.docs.open_files();
        let (analysis, stats) =
            super::incremental::check(&mut cache.0, &name, path.as_deref(), &doc.text, &open);
        let last_good = if analysis.checked.program().is_some() {
            None
        } else {
            // The previous check, if it had a program; else the one before.
            match cache.2 {
                Some(prev) if prev.checked.program().is_some() => Some(prev),
                _ => cache.1,
            }
        };
        let diagnostics = lsp_diagnostics(&analysis, uri, doc);
        let version = doc.version;
        self.checked.insert(
            key,
            Checked {
                analysis,
                last_good,
                stats,
                cache: cache.0,
            },
        );
        vec![publish(uri.clone(), diagnostics, Some(version))]
    }

    /// Checks again the other open documents that import the file `uri` names
    /// (directly or not), which has just changed, opened or closed, and returns their
    /// diagnostics to publish.
    fn check_importers(&mut self, uri: &Uri) -> Vec<Message> {
        let Some(changed) = uri_to_path(uri).and_then(|p| p.canonicalize().ok()) else {
            return Vec::new();
        };
        let mut importers: Vec<&String> = self
            .checked
            .iter()
            .filter(|(key, c)| *key != uri.as_str() && c.analysis.imported.contains(&changed))
            .map(|(key, _)| key)
            .collect();
        // In a fixed order, whatever the table's.
        importers.sort();
        let importers: Vec<Uri> = importers.iter().filter_map(|k| k.parse().ok()).collect();
        importers.iter().flat_map(|u| self.check(u)).collect()
    }
}

/// The diagnostics of a check, as the editor shows them: the text `spindle check`
/// prints (headline and notes) at the places it names.
fn lsp_diagnostics(
    analysis: &Analysis,
    uri: &Uri,
    doc: &super::documents::Document,
) -> Vec<lsp_types::Diagnostic> {
    let sources = &analysis.checked.loaded.sources;
    analysis
        .diagnostics()
        .map(|(d, span)| {
            let range = match span {
                Some(s) => doc.lines.range(&doc.text, s.start as usize, s.end as usize),
                None => lsp_types::Range::default(),
            };
            let mut message = analysis::diagnostic_text(d);
            if span.is_none()
                && let Some(s) = d.primary_span()
                && sources.files().nth(s.file.0 as usize).is_some()
            {
                message = format!("{}: {message}", sources.location(s));
            }
            let related: Vec<DiagnosticRelatedInformation> = d
                .labels
                .iter()
                .filter(|l| !l.primary)
                .filter_map(|l| {
                    let location = queries::location(analysis, uri, doc, l.span)?;
                    Some(DiagnosticRelatedInformation {
                        location,
                        message: l.message.clone(),
                    })
                })
                .collect();
            lsp_types::Diagnostic {
                range,
                severity: Some(if analysis::is_error(d) {
                    DiagnosticSeverity::ERROR
                } else {
                    DiagnosticSeverity::WARNING
                }),
                source: Some("spindle".to_string()),
                message,
                related_information: (!related.is_empty()).then_some(related),
                ..Default::default()
            }
        })
        .collect()
}

/// The notification carrying a document's diagnostics.
fn publish(uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) -> Message {
    Message::Notification(Notification::new(
        lsp_types::notification::PublishDiagnostics::METHOD.to_string(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        },
    ))
}

/// What the server offers.
fn initialize_result() -> InitializeResult {
    InitializeResult {
        capabilities: ServerCapabilities {
            text_document_sync: Some(TextDocumentSyncCapability::Kind(
                TextDocumentSyncKind::INCREMENTAL,
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            definition_provider: Some(OneOf::Left(true)),
            completion_provider: Some(CompletionOptions {
                trigger_characters: Some(vec![".".to_string()]),
                ..Default::default()
            }),
            document_symbol_provider: Some(OneOf::Left(true)),
            code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
            ..Default::default()
        },
        server_info: Some(ServerInfo {
            name: "spindle".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    }
}

/// Request parameters of type `T`, or `InvalidParams`.
fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, (ErrorCode, String)> {
    serde_json::from_value(params)
        .map_err(|e| (ErrorCode::InvalidParams, format!("bad parameters: {e}")))
}

/// A result as JSON.
fn json(value: impl serde::Serialize) -> Result<Value, (ErrorCode, String)> {
    serde_json::to_value(value).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

/// A success response.
fn ok(id: RequestId, result: impl serde::Serialize) -> Message {
    Message::Response(Response::new_ok(id, result))
}

/// An error response.
fn err(id: RequestId, code: ErrorCode, message: String) -> Message {
    Message::Response(Response::new_err(id, code as i32, message))
}
