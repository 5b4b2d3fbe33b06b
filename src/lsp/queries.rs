//! The answers to an editor's questions about a checked document: hover, go to
//! definition, completion, document symbols and code actions. Each reads the
//! [`Analysis`] of the document (never evaluates anything): the types are the
//! checker's, recorded as it checked.

use super::analysis::{Analysis, DeclKind};
use super::documents::{Document, path_to_uri};
use crate::check::record::{HoleAt, ScopeAt, TypeAt, data_head};
use crate::check::scope::Global;
use crate::core::pretty;
use crate::core::program::Program;
use crate::core::term::{ConId, DataId};
use crate::syntax::span::{SourceMap, Span};
use lsp_types::{
    CodeAction, CodeActionKind, CompletionItem, CompletionItemKind, DocumentSymbol, Hover,
    HoverContents, Location, MarkupContent, MarkupKind, SymbolKind, TextEdit, Uri, WorkspaceEdit,
};
use std::collections::{HashMap, HashSet};

/// How long a type shown in a hover or a completion may be.
const SHOWN_TYPE_LIMIT: usize = 300;

/// How many names a hole's fill action offers at most.
const FILL_CANDIDATES: usize = 12;

/// The global a name means: its declaration's place.
pub fn global_span(program: &Program, g: Global) -> Option<Span> {
    match g {
        Global::Def(id) => program.defs.get(id.0 as usize).map(|d| d.span),
        Global::Data(id) => program.datas.get(id.0 as usize).map(|d| d.span),
        Global::Con(c) => program
            .datas
            .get(c.data.0 as usize)
            .and_then(|d| d.ctors.get(c.index as usize))
            .map(|c| c.span),
        Global::Extern(id) => program.externs.get(id.0 as usize).map(|e| e.span),
        Global::PrimType(_) | Global::Prim(_) => None,
    }
}

/// The documentation of a global: the `--` lines above its declaration (a
/// constructor's are its data type's).
fn global_doc(program: &Program, sources: &SourceMap, g: Global) -> Option<String> {
    let span = match g {
        Global::Con(c) => program.datas.get(c.data.0 as usize).map(|d| d.span)?,
        _ => global_span(program, g)?,
    };
    sources.files().nth(span.file.0 as usize)?;
    crate::syntax::doc::doc_at(sources, span)
}

/// The records of `items` (each at the place `span_of` gives) whose place in the
/// document holds `offset`: what a query at the cursor chooses among.
fn around<'a, T>(
    analysis: &Analysis,
    items: &'a [T],
    span_of: impl Fn(&T) -> Span,
    offset: usize,
) -> impl Iterator<Item = &'a T> {
    let file = analysis.file();
    let offset = offset as u32;
    items.iter().filter(move |t| {
        let s = span_of(t);
        s.file == file && s.start <= offset && offset <= s.end
    })
}

/// The smallest recorded expression around `offset` in the document.
fn type_at(analysis: &Analysis, offset: usize) -> Option<&TypeAt> {
    around(analysis, &analysis.recording.types, |t| t.span, offset)
        .filter(|t| t.span.start < t.span.end)
        .min_by_key(|t| (t.span.end - t.span.start, u32::MAX - t.span.start))
}

/// The global named at `offset`, with the name's place.
fn name_at(analysis: &Analysis, offset: usize) -> Option<(Span, Global)> {
    around(analysis, &analysis.recording.names, |n| n.span, offset)
        .min_by_key(|n| n.span.end - n.span.start)
        .map(|n| (n.span, n.global))
}

/// The binder of the local variable named at `offset`, with the name's place.
fn local_at(analysis: &Analysis, offset: usize) -> Option<(Span, Span)> {
    around(analysis, &analysis.recording.locals, |n| n.span, offset)
        .min_by_key(|n| n.span.end - n.span.start)
        .map(|n| (n.span, n.binder))
}

/// The global declared by the document at `offset` (on a declaration's name), if any.
fn declared_at(analysis: &Analysis, program: &Program, offset: usize) -> Option<(Span, Global)> {
    let offset = offset as u32;
    let decl = analysis
        .decls
        .iter()
        .find(|d| d.name_span.start <= offset && offset <= d.name_span.end)?;
    let span = decl.name_span;
    let g = match decl.kind {
        DeclKind::Def | DeclKind::Instance => program
            .defs
            .iter()
            .position(|d| d.span == span)
            .map(|i| Global::Def(crate::core::term::DefId(i as u32))),
        DeclKind::Data | DeclKind::Record | DeclKind::Interface => program
            .datas
            .iter()
            .position(|d| d.span == span)
            .map(|i| Global::Data(DataId(i as u32))),
        DeclKind::Extern => program
            .externs
            .iter()
            .position(|e| e.span == span)
            .map(|i| Global::Extern(crate::core::term::ExternId(i as u32))),
    }?;
    Some((span, g))
}

/// The type of a global, as Spindle source.
fn global_type(program: &Program, g: Global) -> Option<String> {
    let ty = match g {
        Global::Def(id) => program.defs.get(id.0 as usize)?.ty.clone(),
        Global::Data(id) => {
            program.datas.get(id.0 as usize)?;
            program.data_type(id)
        }
        Global::Con(c) => {
            program
                .datas
                .get(c.data.0 as usize)?
                .ctors
                .get(c.index as usize)?;
            program.con_type(c)
        }
        Global::Extern(id) => program.externs.get(id.0 as usize)?.ty.clone(),
        Global::PrimType(_) => return Some("Type".to_string()),
        Global::Prim(_) => return None,
    };
    Some(pretty::term_to_string_cut(
        program,
        &[],
        &ty,
        SHOWN_TYPE_LIMIT,
    ))
}

/// A piece of source for a hover's headline: on one line, cut to a readable length.
fn snippet(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 60 {
        let cut: String = one.chars().take(57).collect();
        format!("{cut}...")
    } else {
        one
    }
}

/// The hover at `offset`: the type of the name or expression there (and the
/// documentation of a global).
pub fn hover(analysis: &Analysis, doc: &Document, offset: usize) -> Option<Hover> {
    let program = analysis.checked.program()?;
    let sources = &analysis.checked.loaded.sources;
    let (span, head, global) = if let Some((span, g)) = declared_at(analysis, program, offset) {
        (span, global_type(program, g)?, Some(g))
    } else {
        let t = type_at(analysis, offset);
        let named = name_at(analysis, offset);
        match (t, named) {
            // The name alone: its declared type (the checker instantiates implicit
            // arguments at each use).
            (Some(t), Some((nspan, g))) if nspan == t.span => {
                let ty = global_type(program, g).unwrap_or_else(|| show_type(program, t));
                (t.span, ty, Some(g))
            }
            (Some(t), _) => (t.span, show_type(program, t), None),
            (None, Some((nspan, g))) => (nspan, global_type(program, g)?, Some(g)),
            (None, None) => return None,
        }
    };
    let source = doc
        .text
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    let mut value = format!("```spindle\n{} : {head}\n```", snippet(source));
    if let Some(text) = global.and_then(|g| global_doc(program, sources, g)) {
        value.push_str("\n\n");
        value.push_str(&text);
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(
            doc.lines
                .range(&doc.text, span.start as usize, span.end as usize),
        ),
    })
}

/// A recorded type as Spindle source, with the names of the variables around it.
fn show_type(program: &Program, t: &TypeAt) -> String {
    let names: Vec<&str> = t.names.iter().map(String::as_str).collect();
    pretty::term_to_string_cut(program, &names, &t.ty, SHOWN_TYPE_LIMIT)
}

/// Where the prelude's files are written for an editor to open: a folder named after
/// the prelude's content hash under the temporary folder, written once.
fn prelude_file_uri(name: &str) -> Option<Uri> {
    let mut hasher = blake3::Hasher::new();
    for (n, text) in crate::prelude::FILES {
        hasher.update(n.as_bytes());
        hasher.update(text.as_bytes());
    }
    let hash = hasher.finalize().to_hex();
    let dir = std::env::temp_dir().join(format!("spindle-prelude-{}", &hash[..16]));
    let (file, text) = crate::prelude::FILES.iter().find(|(n, _)| *n == name)?;
    let path = dir.join(file);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(*text) {
        std::fs::create_dir_all(&dir).ok()?;
        // Written whole under another name, then renamed: another server reading it
        // meanwhile sees the old file or the new one.
        let tmp = dir.join(format!("{file}.{}", std::process::id()));
        std::fs::write(&tmp, text).ok()?;
        std::fs::rename(&tmp, &path).ok()?;
    }
    path_to_uri(&path)
}

/// The editor's location of a place in one of the checked files.
pub fn location(
    analysis: &Analysis,
    doc_uri: &Uri,
    doc: &Document,
    span: Span,
) -> Option<Location> {
    let sources = &analysis.checked.loaded.sources;
    let (_, file) = sources.files().nth(span.file.0 as usize)?;
    let (uri, range) = if span.file == analysis.file() {
        (
            doc_uri.clone(),
            doc.lines
                .range(&doc.text, span.start as usize, span.end as usize),
        )
    } else {
        let uri = match (
            &file.path,
            file.name.strip_prefix(crate::driver::PRELUDE_PREFIX),
        ) {
            (Some(path), _) => path_to_uri(path)?,
            (None, Some(name)) => prelude_file_uri(name)?,
            (None, None) => return None,
        };
        let lines = super::position::LineIndex::new(&file.text);
        (
            uri,
            lines.range(&file.text, span.start as usize, span.end as usize),
        )
    };
    Some(Location { uri, range })
}

/// Where the name at `offset` is declared.
pub fn definition(
    analysis: &Analysis,
    uri: &Uri,
    doc: &Document,
    offset: usize,
) -> Option<Location> {
    let program = analysis.checked.program()?;
    if let Some((_, binder)) = local_at(analysis, offset) {
        return location(analysis, uri, doc, binder);
    }
    let (_, g) = name_at(analysis, offset).or_else(|| declared_at(analysis, program, offset))?;
    location(analysis, uri, doc, global_span(program, g)?)
}

/// The keywords, completed like names.
const KEYWORDS: &[&str] = &[
    "let",
    "in",
    "def",
    "data",
    "record",
    "match",
    "with",
    "if",
    "then",
    "else",
    "extern",
    "import",
    "Type",
    "where",
    "instance",
    "interface",
];

/// Whether `c` can be part of a name.
fn is_name_char(c: char) -> bool {
    crate::syntax::lexer::is_ident_continue(c)
}

/// The completions at `offset`: after `expr.`, the fields of `expr`'s record type
/// (from `previous`, the last check that had a type for it, when the text with the
/// `.` does not check); otherwise the names in scope.
pub fn completion(
    analysis: &Analysis,
    previous: Option<&Analysis>,
    doc: &Document,
    offset: usize,
) -> Vec<CompletionItem> {
    let text = &doc.text;
    let offset = offset.min(text.len());
    let mut start = offset;
    while start > 0 {
        let Some(c) = text[..start].chars().next_back() else {
            break;
        };
        if !is_name_char(c) {
            break;
        }
        start -= c.len_utf8();
    }
    if text[..start].ends_with('.') {
        let dot = start - 1;
        let mut word = dot;
        while word > 0 {
            let Some(c) = text[..word].chars().next_back() else {
                break;
            };
            if !is_name_char(c) {
                break;
            }
            word -= c.len_utf8();
        }
        let receiver = &text[word..dot];
        if !receiver.is_empty() {
            return field_completions(analysis, previous, receiver, word);
        }
    }
    name_completions(
        analysis.checked.program().map(|_| analysis).or(previous),
        start,
    )
}

/// Whether a binder's name is one the source can write and complete (not `_`, not a
/// name the checker made up).
fn is_local_name(name: &str) -> bool {
    name != "_"
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c == '_')
        && name.chars().all(is_name_char)
        && !name.contains('\'')
}

/// The local variables in scope at byte `at` (the innermost of each name, as the
/// checker bound them: parameters, `let` and `where` bindings, lambdas' and arms'
/// binders whose scope holds `at`), with their types; their names go to `seen`.
fn local_completions(
    analysis: &Analysis,
    at: usize,
    seen: &mut HashSet<String>,
) -> Vec<CompletionItem> {
    let mut scopes: Vec<&ScopeAt> =
        around(analysis, &analysis.recording.scopes, |x| x.extent, at).collect();
    // Innermost first: the smallest scope, then the binder written last.
    scopes.sort_by_key(|x| {
        (
            x.extent.end.saturating_sub(x.extent.start),
            std::cmp::Reverse(x.binder.start),
        )
    });
    let chosen: Vec<&ScopeAt> = scopes
        .into_iter()
        .filter(|x| is_local_name(&x.name) && seen.insert(x.name.clone()))
        .collect();
    let binders: HashSet<Span> = chosen.iter().map(|x| x.binder).collect();
    let types: HashMap<Span, &TypeAt> = analysis
        .recording
        .types
        .iter()
        .filter(|t| binders.contains(&t.span))
        .map(|t| (t.span, t))
        .collect();
    let program = analysis.checked.program();
    chosen
        .into_iter()
        .map(|x| CompletionItem {
            label: x.name.clone(),
            kind: Some(CompletionItemKind::VARIABLE),
            detail: program
                .zip(types.get(&x.binder))
                .map(|(p, t)| show_type(p, t)),
            ..Default::default()
        })
        .collect()
}

/// The fields of the record type that the name `receiver`, written at `at`, has.
fn field_completions(
    analysis: &Analysis,
    previous: Option<&Analysis>,
    receiver: &str,
    at: usize,
) -> Vec<CompletionItem> {
    for a in std::iter::once(analysis).chain(previous) {
        let Some(program) = a.checked.program() else {
            continue;
        };
        let file = a.file();
        let text = &a.checked.loaded.sources.get(file).text;
        // The recorded use of that name nearest to the place.
        let best = a
            .recording
            .types
            .iter()
            .filter(|t| {
                t.span.file == file
                    && text.get(t.span.start as usize..t.span.end as usize) == Some(receiver)
            })
            .filter_map(|t| data_head(&t.ty).map(|d| (t, d)))
            .min_by_key(|(t, _)| (t.span.start as i64 - at as i64).abs());
        if let Some((_, d)) = best
            && let Some(data) = program.datas.get(d.0 as usize)
            && data.record
        {
            return record_fields(program, d);
        }
    }
    Vec::new()
}

/// A record type's fields as completions, with their types.
fn record_fields(program: &Program, d: DataId) -> Vec<CompletionItem> {
    let data = program.data(d);
    let Some(ctor) = data.ctors.first() else {
        return Vec::new();
    };
    let mut names: Vec<String> = data.params.iter().map(|b| b.name.to_string()).collect();
    let mut out = Vec::new();
    for (name, ty) in ctor.field_names.iter().zip(&ctor.fields) {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let shown = pretty::term_to_string_cut(program, &refs, ty, SHOWN_TYPE_LIMIT);
        out.push(CompletionItem {
            label: name.to_string(),
            kind: Some(CompletionItemKind::FIELD),
            detail: Some(shown),
            ..Default::default()
        });
        names.push(name.to_string());
    }
    out
}

/// The names in scope at byte `at`: the local variables the checker had in scope
/// there (with their types), the program's globals (not the prelude's internals),
/// and the keywords.
fn name_completions(analysis: Option<&Analysis>, at: usize) -> Vec<CompletionItem> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    if let Some(a) = analysis {
        out.extend(local_completions(a, at, &mut seen));
        out.extend(global_completions(a, &mut seen));
    }
    for k in KEYWORDS {
        if seen.insert(k.to_string()) {
            out.push(CompletionItem {
                label: k.to_string(),
                kind: Some(CompletionItemKind::KEYWORD),
                ..Default::default()
            });
        }
    }
    out
}

/// The globals of the program whose names are not in `seen` (which they join), with
/// their types: the document's first, then its imports', then the prelude's (not
/// its internals).
fn global_completions(a: &Analysis, seen: &mut HashSet<String>) -> Vec<CompletionItem> {
    let Some(program) = a.checked.program() else {
        return Vec::new();
    };
    let sources = &a.checked.loaded.sources;
    let mut globals = Vec::new();
    for (i, d) in program.datas.iter().enumerate() {
        let id = DataId(i as u32);
        globals.push((d.name.to_string(), Global::Data(id), d.span));
        if !d.record {
            for (j, c) in d.ctors.iter().enumerate() {
                let con = ConId {
                    data: id,
                    index: j as u32,
                };
                globals.push((c.name.to_string(), Global::Con(con), c.span));
            }
        }
    }
    for (i, e) in program.externs.iter().enumerate() {
        let id = crate::core::term::ExternId(i as u32);
        globals.push((e.name.to_string(), Global::Extern(id), e.span));
    }
    for (i, d) in program.defs.iter().enumerate() {
        let id = crate::core::term::DefId(i as u32);
        globals.push((d.name.to_string(), Global::Def(id), d.span));
    }
    globals.sort_by_key(|(_, _, span)| (span.file != a.file(), is_prelude(sources, *span)));
    let mut out = Vec::new();
    for (name, g, span) in globals {
        if name.contains('\'')
            || name.starts_with('<')
            || (is_prelude(sources, span) && crate::repl::session::is_prelude_internal(&name))
            || !seen.insert(name.clone())
        {
            continue;
        }
        let kind = match g {
            Global::Def(_) => CompletionItemKind::FUNCTION,
            Global::Data(_) => CompletionItemKind::STRUCT,
            Global::Con(_) => CompletionItemKind::ENUM_MEMBER,
            _ => CompletionItemKind::FUNCTION,
        };
        out.push(CompletionItem {
            label: name,
            kind: Some(kind),
            detail: global_type(program, g),
            ..Default::default()
        });
    }
    out
}

/// Whether a place is in the prelude.
fn is_prelude(sources: &SourceMap, span: Span) -> bool {
    sources
        .files()
        .nth(span.file.0 as usize)
        .is_some_and(|(_, f)| f.name.starts_with(crate::driver::PRELUDE_PREFIX))
}

/// The document's declarations as symbols.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written, as `None`.
pub fn symbols(analysis: &Analysis, doc: &Document) -> Vec<DocumentSymbol> {
    let range = |s: Span| doc.lines.range(&doc.text, s.start as usize, s.end as usize);
    analysis
        .decls
        .iter()
        .map(|d| {
            let (kind, child_kind) = match d.kind {
                DeclKind::Def => (SymbolKind::FUNCTION, SymbolKind::FUNCTION),
                DeclKind::Instance => (SymbolKind::OBJECT, SymbolKind::FUNCTION),
                DeclKind::Data => (SymbolKind::ENUM, SymbolKind::ENUM_MEMBER),
                DeclKind::Record => (SymbolKind::STRUCT, SymbolKind::FIELD),
                DeclKind::Interface => (SymbolKind::INTERFACE, SymbolKind::METHOD),
                DeclKind::Extern => (SymbolKind::FUNCTION, SymbolKind::FUNCTION),
            };
            let children: Vec<DocumentSymbol> = d
                .children
                .iter()
                .map(|(name, span)| DocumentSymbol {
                    name: name.clone(),
                    detail: None,
                    kind: child_kind,
                    tags: None,
                    deprecated: None,
                    range: range(*span),
                    selection_range: range(*span),
                    children: None,
                })
                .collect();
            DocumentSymbol {
                name: d.name.clone(),
                detail: None,
                kind,
                tags: None,
                deprecated: None,
                range: range(d.span),
                selection_range: range(d.name_span),
                children: (!children.is_empty()).then_some(children),
            }
        })
        .collect()
}

/// One code action replacing `span` of the document with `new_text`.
fn edit_action(
    uri: &Uri,
    doc: &Document,
    title: String,
    span: Span,
    new_text: String,
) -> CodeAction {
    let edit = TextEdit {
        range: doc
            .lines
            .range(&doc.text, span.start as usize, span.end as usize),
        new_text,
    };
    CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        edit: Some(WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A `match` on `var` with `arms`, to stand where the hole or the variable was: its
/// arms on lines of their own, indented past the line it starts on.
fn match_text(doc: &Document, at: usize, var: &str, arms: &[String]) -> String {
    let line_start = doc.text[..at.min(doc.text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let indent: String = doc.text[line_start..]
        .chars()
        .take_while(|c| *c == ' ')
        .collect();
    let mut out = format!("match {var} with");
    for arm in arms {
        out.push('\n');
        out.push_str(&indent);
        out.push_str("  ");
        out.push_str(arm);
    }
    out
}

/// The code actions for the byte range `start..end` of the document: at a typed hole,
/// fill it with a name of its type and split it on a local variable of a data type;
/// at a local variable of a data type, replace it with a `match` on it.
pub fn code_actions(
    analysis: &Analysis,
    uri: &Uri,
    doc: &Document,
    start: usize,
    end: usize,
) -> Vec<CodeAction> {
    let mut out = Vec::new();
    let file = analysis.file();
    let (s, e) = (start as u32, end as u32);
    let holes: Vec<&HoleAt> = analysis
        .recording
        .holes
        .iter()
        .filter(|h| h.span.file == file && h.span.start <= e && s <= h.span.end)
        .collect();
    for hole in &holes {
        let shown = match &hole.name {
            Some(n) => format!("?{n}"),
            None => "?".to_string(),
        };
        for name in fill_candidates(analysis, hole) {
            out.push(edit_action(
                uri,
                doc,
                format!("Fill `{shown}` with `{name}`"),
                hole.span,
                name,
            ));
        }
        for local in &hole.locals {
            if let Some(arms) = &local.arms {
                out.push(edit_action(
                    uri,
                    doc,
                    format!("Case split on `{}` at `{shown}`", local.name),
                    hole.span,
                    match_text(doc, hole.span.start as usize, &local.name, arms),
                ));
            }
        }
    }
    if holes.is_empty()
        && let Some(program) = analysis.checked.program()
        && let Some(t) = type_at(analysis, start)
        && name_at(analysis, start).is_none_or(|(span, _)| span != t.span)
        && let Some(var) = doc.text.get(t.span.start as usize..t.span.end as usize)
        && var
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c == '_')
        && var.chars().all(is_name_char)
        && let Some(d) = data_head(&t.ty)
        && (d.0 as usize) < program.datas.len()
    {
        let taken: HashSet<String> = t.names.iter().cloned().collect();
        let arms = crate::check::elab::arms_of(program, d, taken, "");
        let text = match_text(doc, t.span.start as usize, var, &arms);
        out.push(edit_action(
            uri,
            doc,
            format!("Case split on `{var}`"),
            t.span,
            format!("({text})"),
        ));
    }
    out
}

/// The names that fill a hole, as the checker found them (its local variables, then
/// the globals whose type is the hole's, then those whose type instantiates to it):
/// not the definition the hole is in (it would loop), nor the prelude's internals; at
/// most [`FILL_CANDIDATES`].
fn fill_candidates(analysis: &Analysis, hole: &HoleAt) -> Vec<String> {
    let sources = &analysis.checked.loaded.sources;
    let mut out: Vec<String> = Vec::new();
    for fill in &hole.fills {
        if out.len() >= FILL_CANDIDATES {
            break;
        }
        let name = &fill.name;
        let own = fill.declared.is_some()
            && analysis.decls.iter().any(|d| {
                d.name == *name && d.span.start <= hole.span.start && hole.span.end <= d.span.end
            });
        let internal = fill.declared.is_some_and(|span| {
            is_prelude(sources, span) && crate::repl::session::is_prelude_internal(name)
        });
        if !own && !internal && !out.contains(name) {
            out.push(name.clone());
        }
    }
    out
}
