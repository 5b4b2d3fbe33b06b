//! Loading a program: read the entry file, parse it, the files it imports and the
//! prelude, and resolve them into one [`Program`]. The command line and the REPL both
//! go through here, so they report the same errors the same way.
//!
//! Imports are paths relative to the importing file. Each file is loaded once however
//! many files import it; an import cycle is an error at the `import` that closes it.
//!
//! [`load_session`] loads a REPL session (the prelude, a loaded file, the inputs typed
//! so far); [`evaluate_def`] evaluates and prints a definition's value, for
//! `spindle run` and the REPL alike.

use crate::check::elab::{self, PRELUDE_UNIT, SourceUnit};
use crate::check::eval::TypeEval;
use crate::core::program::Program;
use crate::core::term::{DefId, Lit, Plicity, PrimType, RcTerm, Term};
use crate::diagnostic::{self, Diagnostic, DiagnosticKind};
use crate::machine::Machine;
use crate::prelude;
use crate::syntax::ast::{Decl, Ident, Module};
use crate::syntax::parser;
use crate::syntax::span::{FileId, MAX_SOURCE_BYTES, SourceMap, Span};
use bumpalo::Bump;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The outcome of loading a program: its sources (for rendering diagnostics and runtime
/// error locations), the program if there were no errors, and every diagnostic.
pub struct Loaded {
    /// Every file read, prelude included.
    pub sources: SourceMap,
    /// The resolved program, when there were no errors.
    pub program: Option<Program>,
    /// Errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The diagnostics as text for standard error.
    pub fn render_diagnostics(&self) -> String {
        diagnostic::render(&self.sources, &self.diagnostics)
    }

    /// The warnings about a `match` that misses a case, one per `match` (the first
    /// case named), as `spindle check` shows them: `spindle run` shows them before it
    /// evaluates.
    pub fn render_missing_cases(&self) -> String {
        let mut seen = Vec::new();
        let warnings: Vec<Diagnostic> = self
            .diagnostics
            .iter()
            .filter(|d| d.kind == DiagnosticKind::MissingCase)
            .filter(|d| {
                let at = d.primary_span();
                let new = !seen.contains(&at);
                seen.push(at);
                new
            })
            .cloned()
            .collect();
        diagnostic::render(&self.sources, &warnings)
    }

    /// The errors alone (no warnings) as text for standard error.
    pub fn render_errors(&self) -> String {
        let errors: Vec<Diagnostic> = self
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect();
        diagnostic::render(&self.sources, &errors)
    }
}

/// Loads the program whose entry file is `path`.
pub fn load(path: &Path) -> Loaded {
    load_checking(path, PreludeCheck::Whole)
}

pub use crate::check::elab::PreludeCheck;

/// [`load`], checking `prelude` of the prelude.
pub fn load_checking(path: &Path, prelude: PreludeCheck) -> Loaded {
    let mut sources = SourceMap::new();
    match read_source(path) {
        Ok(text) => {
            let name = path.display().to_string();
            let file = sources.add(name, Some(path.to_path_buf()), text);
            load_from(sources, Entry::File(file), prelude::FILES, None, prelude)
        }
        Err(d) => Loaded {
            sources,
            program: None,
            diagnostics: vec![d],
        },
    }
}

/// What a program file holds, told by its content (never by its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Spindle source text.
    Source,
    /// A program encoded by `spindle encode` (`proto/spindle.proto`).
    Encoded,
}

/// The first byte of every encoded program: the tag of the `format_version` field
/// (field 1, a varint), which the encoder always writes first. No source file starts
/// with it: it is the control character backspace, which the lexer rejects.
pub const ENCODED_MARKER: u8 = 0x08;

/// Tells the kind of a program file from its first bytes: an encoded program starts
/// with [`ENCODED_MARKER`]; anything else is source (and is reported as such, with
/// where it is not valid UTF-8 if it is not).
pub fn file_kind(bytes: &[u8]) -> FileKind {
    if bytes.first() == Some(&ENCODED_MARKER) {
        FileKind::Encoded
    } else {
        FileKind::Source
    }
}

/// A program file loaded and checked, of either kind.
pub struct LoadedFile {
    /// The checked program; for an encoded file, its decoded source checked as a
    /// program of its own (so diagnostics point into what `spindle decode` prints).
    pub loaded: Loaded,
    /// For an encoded file, the program as decoded (what `hash` hashes).
    pub decoded: Option<crate::proto::decode::Decoded>,
}

/// Loads and type-checks a program file, source or encoded ([`file_kind`]).
///
/// An encoded program is decoded (which checks its structure: indices in range, the
/// prelude this build has), printed back as source and type-checked like a source
/// file named after FILE: the checker works on source, and the printed source loads
/// back to the same program (its hash is the same). An ill-typed encoded program is
/// refused with the checker's errors, whose places are lines of the decoded source.
pub fn load_program_file(path: &Path, prelude: PreludeCheck) -> LoadedFile {
    // A file that cannot be read is left to `load`, which reports it.
    let kind = std::fs::File::open(path)
        .and_then(|mut f| {
            let mut first = [0u8; 1];
            std::io::Read::read(&mut f, &mut first).map(|n| file_kind(&first[..n]))
        })
        .unwrap_or(FileKind::Source);
    if kind == FileKind::Source {
        return LoadedFile {
            loaded: load_checking(path, prelude),
            decoded: None,
        };
    }
    load_encoded(path, prelude)
}

/// Loads and type-checks an encoded program, whatever its first byte (see
/// [`load_program_file`]).
pub fn load_encoded(path: &Path, prelude: PreludeCheck) -> LoadedFile {
    let failed = |message: String| LoadedFile {
        loaded: Loaded {
            sources: SourceMap::new(),
            program: None,
            diagnostics: vec![Diagnostic::error(message)],
        },
        decoded: None,
    };
    let bytes = match read_encoded(path) {
        Ok(b) => b,
        Err(why) => return failed(format!("cannot decode {}: {why}", path.display())),
    };
    let decoded = match crate::proto::decode::program_bytes(&bytes) {
        Ok(d) => d,
        Err(e) => return failed(format!("cannot decode {}: {e}", path.display())),
    };
    let text = match crate::proto::source::program_to_source(&decoded, prelude_program().as_ref()) {
        Ok(t) => t,
        Err(e) => return failed(format!("cannot decode {}: {e}", path.display())),
    };
    let mut sources = SourceMap::new();
    let file = sources.add(path.display().to_string(), None, text);
    let mut loaded = load_from(sources, Entry::File(file), prelude::FILES, None, prelude);
    if loaded.has_errors() {
        loaded.diagnostics.insert(
            0,
            Diagnostic::error(format!(
                "{} is an encoded program that does not type-check (the places below are \
                 in its decoded source: `spindle decode {}`)",
                path.display(),
                path.display()
            )),
        );
    }
    LoadedFile {
        loaded,
        decoded: Some(decoded),
    }
}

/// Reads an encoded program, refusing files larger than the decoder accepts before
/// reading them whole.
pub fn read_encoded(file: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let limit = crate::proto::MAX_ENCODED_BYTES;
    let f = std::fs::File::open(file).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    f.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() > limit {
        return Err(format!(
            "it is larger than {limit} bytes, the most an encoded program may take"
        ));
    }
    Ok(bytes)
}

/// Loads a program from text in memory, named `name`; imports are relative to the
/// current directory. Used by tests and the REPL.
pub fn load_text(name: &str, text: &str) -> Loaded {
    load_text_with_prelude(prelude::FILES, name, text)
}

/// Like [`load_text`], with other prelude files than the built-in ones (tests use this
/// to check that the printed prelude means what the prelude means).
pub fn load_text_with_prelude(prelude_files: &[(&str, &str)], name: &str, text: &str) -> Loaded {
    let mut sources = SourceMap::new();
    let file = sources.add(name, None, text.to_string());
    load_from(
        sources,
        Entry::File(file),
        prelude_files,
        None,
        PreludeCheck::Whole,
    )
}

/// The name of the prelude's definition that holds the program's arguments.
pub const ARGS_DEF: &str = "args";

/// Gives the program its command-line arguments (LANGUAGE.md sections 8 and 10): the
/// prelude declares `def args : List String = []`, and this replaces that body with
/// the list of `args`, after type checking and before evaluation, so the checker,
/// `encode` and `hash` always see the empty list and the machine needs no hook.
///
/// Returns whether the prelude's `args` was found (a program checked against another
/// prelude may lack it; a definition of the user's own named `args` is left alone).
pub fn set_args(program: &mut Program, sources: &SourceMap, args: &[String]) -> bool {
    let Some(def) = program.defs.iter_mut().find(|d| {
        &*d.name == ARGS_DEF && sources.get(d.span.file).name.starts_with(PRELUDE_PREFIX)
    }) else {
        return false;
    };
    let b = program.builtins;
    let string = Term::PrimType(PrimType::String).rc();
    let nil = Term::App(Term::Con(b.nil).rc(), Plicity::Implicit, string.clone()).rc();
    def.body = args.iter().rev().fold(nil, |tail, arg| {
        let cons = Term::App(Term::Con(b.cons).rc(), Plicity::Implicit, string.clone()).rc();
        let head = Term::Lit(Lit::Str(arg.as_str().into())).rc();
        Term::apps(cons, [head, tail])
    });
    true
}

/// Whether `main` can reach the prelude's `args` (through the definitions its body
/// names, and theirs): whether the program reads its command-line arguments.
pub fn uses_args(program: &Program, sources: &SourceMap) -> bool {
    let Some(main) = program.main else {
        return false;
    };
    let Some(args) = program.defs.iter().position(|d| {
        &*d.name == ARGS_DEF && sources.get(d.span.file).name.starts_with(PRELUDE_PREFIX)
    }) else {
        return false;
    };
    let mut seen = vec![false; program.defs.len()];
    let mut defs = vec![main.0 as usize];
    seen[main.0 as usize] = true;
    while let Some(d) = defs.pop() {
        if d == args {
            return true;
        }
        let mut terms: Vec<&RcTerm> = vec![&program.defs[d].body];
        while let Some(t) = terms.pop() {
            if let Term::Def(r) = &**t
                && let Some(s) = seen.get_mut(r.0 as usize)
                && !*s
            {
                *s = true;
                defs.push(r.0 as usize);
            }
            t.for_each_child(|c, _| terms.push(c));
        }
    }
    false
}

/// How the names of the prelude's sources start (`<prelude>/list.sp`).
pub const PRELUDE_PREFIX: &str = "<prelude>/";

/// Whether `f` is not one of the prelude's files (an unknown file counts as the
/// user's): the machine places an error raised inside the prelude at the user's call.
pub fn is_user_file(sources: &SourceMap, f: FileId) -> bool {
    sources
        .files()
        .nth(f.0 as usize)
        .is_none_or(|(_, file)| !file.name.starts_with(PRELUDE_PREFIX))
}

/// Evaluates the definition `def` to normal form and prints its value (LANGUAGE.md
/// section 9): what `spindle run` does with `main`, and the REPL with an expression.
/// A `String` value prints raw, unless `quote_string` (the REPL quotes it).
pub fn evaluate_def<'p>(
    machine: &mut Machine<'p>,
    def: DefId,
    quote_string: bool,
) -> crate::machine::error::Result<String> {
    let value = machine.whnf_def(def)?;
    machine.print_value(value, quote_string)
}

/// Evaluates the definition `def` to full normal form and returns it as an
/// [`NfTree`](crate::output::NfTree), for `--format json`.
///
/// Today the normal form is read back as a core term and converted
/// ([`output::nf_tree`](crate::output::nf_tree)); a machine that builds the tree from
/// its own normal forms (streaming, and with the parallel scheduler's forks for the
/// fields) can replace this body.
pub fn evaluate_def_tree<'p>(
    machine: &mut crate::machine::Machine<'p>,
    program: &'p Program,
    def: DefId,
) -> crate::machine::error::Result<crate::output::NfTree> {
    let value = machine.whnf_def(def)?;
    let value = machine.normal_form(value)?;
    let term = machine.sight().read_back(value);
    machine.release(value);
    Ok(crate::output::nf_tree(program, &term))
}

/// Evaluates the definition `def` to full normal form once and returns both its text
/// as [`evaluate_def`] prints it (a `String` quoted) and its
/// [`NfTree`](crate::output::NfTree) (for the JSON form): the Jupyter kernel shows
/// both without calling an external twice.
pub fn evaluate_def_both<'p>(
    machine: &mut crate::machine::Machine<'p>,
    program: &'p Program,
    def: DefId,
) -> crate::machine::error::Result<(String, crate::output::NfTree)> {
    let value = machine.whnf_def(def)?;
    let value = machine.normal_form(value)?;
    let term = machine.sight().read_back(value);
    let tree = crate::output::nf_tree(program, &term);
    let text = machine.print_value(value, true)?;
    Ok((text, tree))
}

/// Reads a source file through a snapshot: the snapshot's text if it has the file,
/// otherwise the file's, which the snapshot then keeps.
fn read_snapshot(
    path: &Path,
    canon: &Path,
    snapshot: Option<&mut FileSnapshot>,
) -> Result<String, Diagnostic> {
    let Some(snapshot) = snapshot else {
        return read_source(path);
    };
    if let Some(text) = snapshot.get(canon) {
        return Ok(text.clone());
    }
    let text = read_source(path)?;
    snapshot.insert(canon.to_path_buf(), text.clone());
    Ok(text)
}

/// The largest source file read (64 MiB): a file larger than any program is
/// refused before it is read, so `:load` of a huge file answers at once.
pub const MAX_SOURCE_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a source file: it must be a regular file (a device such as `/dev/zero` or a
/// pipe never ends, a directory is no text), of at most [`MAX_SOURCE_FILE_BYTES`],
/// text (no NUL byte) and UTF-8.
fn read_source(path: &Path) -> Result<String, Diagnostic> {
    use std::io::Read;
    let cannot =
        |e: std::io::Error| Diagnostic::error(format!("cannot read {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Err(Diagnostic::error(format!(
            "cannot read {}: it is {what}, not a source file",
            path.display()
        )));
    }
    let too_large = |len: u64| {
        Diagnostic::error(format!(
            "{} is too large ({len} bytes) to be a source file: at most {MAX_SOURCE_FILE_BYTES} bytes",
            path.display()
        ))
    };
    if meta.len() > MAX_SOURCE_FILE_BYTES {
        return Err(too_large(meta.len()));
    }
    // The file may grow while it is read: read one byte past the limit at most.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_SOURCE_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_SOURCE_FILE_BYTES || bytes.len() > MAX_SOURCE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    let place = |at: usize| {
        let before = &bytes[..at];
        let line = before.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|b| *b == b'\n')
            .map(|i| i + 1)
            .unwrap_or(0);
        let col = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        format!("{}:{line}:{col}", path.display())
    };
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        return Err(Diagnostic::error(format!(
            "{}: the file is not text (it holds a NUL byte)",
            place(nul)
        )));
    }
    match std::str::from_utf8(&bytes) {
        Ok(_) => Ok(String::from_utf8(bytes).unwrap_or_default()),
        Err(e) => Err(Diagnostic::error(format!(
            "{}: the file is not valid UTF-8",
            place(e.valid_up_to())
        ))),
    }
}

/// The name of the definition a REPL expression is checked as (by [`load_session`]):
/// not a name a program can write, so it never clashes with the user's own.
pub const SESSION_EXPR: &str = "<input>";

/// The source name of every REPL input, so errors point to `<repl>:LINE:COLUMN`.
pub const REPL_SOURCE: &str = "<repl>";

/// Loads a REPL session: the prelude, the file loaded with `:load` (if any, with what
/// it imports), and the REPL inputs, in order, all in one scope.
///
/// Each input is its own source named [`REPL_SOURCE`]; an input holds declarations or
/// one expression, which is checked as the definition [`SESSION_EXPR`]. A declaration
/// is left out when a later input declares one of its names again (the later one
/// replaces it). The session's declarations shadow the loaded file's, which shadow the
/// prelude's. Imports in an input are relative to the current directory.
///
/// Files are read through `files`, a snapshot by canonical path: a file read once is
/// not read again while it is in the snapshot (clear it to re-read, as `:reload` does).
pub fn load_session(file: Option<&Path>, inputs: &[&str], files: &mut FileSnapshot) -> Loaded {
    let mut sources = SourceMap::new();
    let mut entries = Vec::new();
    if let Some(path) = file {
        // The loaded file is an import of the session, so that it is found, read and
        // scoped like any import.
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let mut text = String::from("import ");
        crate::core::pretty::quote_into(&mut text, &absolute.display().to_string());
        text.push('\n');
        entries.push(sources.add("<load>", None, text));
    }
    for input in inputs {
        entries.push(sources.add(REPL_SOURCE, None, input.to_string()));
    }
    load_from(
        sources,
        Entry::Session(entries),
        prelude::FILES,
        Some(files),
        PreludeCheck::Whole,
    )
}

/// The text of files already read, by canonical path (see [`load_session`]).
pub type FileSnapshot = HashMap<PathBuf, String>;

/// What [`load_from`] loads besides the prelude.
enum Entry {
    /// A program's entry file.
    File(FileId),
    /// The inputs of a REPL session (see [`load_session`]), each parsed as a REPL input.
    Session(Vec<FileId>),
}

/// The names a declaration declares: a definition's or external's, a data type's and
/// its constructors' (none for an import).
pub fn declared_names<'a>(decl: &Decl<'a>) -> Vec<&'a str> {
    match decl {
        Decl::Import { .. } => Vec::new(),
        Decl::Def { name, .. } | Decl::Extern { name, .. } => vec![name.name],
        Decl::Data { name, ctors, .. } => std::iter::once(name.name)
            .chain(ctors.iter().map(|c| c.name.name))
            .collect(),
    }
}

/// Parses the inputs of a session, each as a REPL input (an expression becomes the
/// definition [`SESSION_EXPR`]), and leaves out the declarations later inputs replace.
fn parse_session<'a>(
    arena: &'a Bump,
    sources: &SourceMap,
    inputs: &[FileId],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<(FileId, &'a Module<'a>)> {
    let mut modules: Vec<(FileId, Module<'a>)> = Vec::new();
    for &file in inputs {
        let text = &sources.get(file).text;
        let module = match parser::parse_repl_input(arena, file, text) {
            Ok(parser::ReplInput::Decls(module)) => module,
            Ok(parser::ReplInput::Expr(expr)) => Module {
                decls: arena.alloc_slice_fill_iter([Decl::Def {
                    role: crate::syntax::ast::DefRole::Plain,
                    name: Ident {
                        name: SESSION_EXPR,
                        span: expr.span,
                    },
                    params: &[],
                    ret: None,
                    body: expr,
                    span: expr.span,
                }]),
            },
            Err(failure) => {
                diagnostics.extend(failure.diagnostics);
                Module { decls: &[] }
            }
        };
        modules.push((file, module));
    }
    // Later declarations replace earlier ones of the same name.
    let mut later: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut kept = Vec::with_capacity(modules.len());
    for (file, module) in modules.into_iter().rev() {
        let decls: Vec<&'a Decl<'a>> = module
            .decls
            .iter()
            .filter(|d| !declared_names(d).iter().any(|n| later.contains(n)))
            .collect();
        for d in module.decls {
            later.extend(declared_names(d));
        }
        let module = if decls.len() == module.decls.len() {
            module
        } else {
            Module {
                decls: arena.alloc_slice_fill_iter(decls.into_iter().map(copy_decl)),
            }
        };
        kept.push((file, &*arena.alloc(module)));
    }
    kept.reverse();
    kept
}

/// A shallow copy of a declaration (its parts live in the arena).
fn copy_decl<'a>(d: &Decl<'a>) -> Decl<'a> {
    match d {
        Decl::Import { path, span } => Decl::Import { path, span: *span },
        Decl::Data {
            kind,
            name,
            params,
            ctors,
            span,
        } => Decl::Data {
            kind: *kind,
            name: *name,
            params,
            ctors,
            span: *span,
        },
        Decl::Def {
            role,
            name,
            params,
            ret,
            body,
            span,
        } => Decl::Def {
            role: *role,
            name: *name,
            params,
            ret: *ret,
            body,
            span: *span,
        },
        Decl::Extern { name, ty, span } => Decl::Extern {
            name: *name,
            ty,
            span: *span,
        },
    }
}

/// Parses the prelude and the entry file (or session) with everything it imports, then
/// resolves. The entry is unit 1. Imported files are read through `snapshot` if given.
fn load_from(
    sources: SourceMap,
    entry: Entry,
    prelude_files: &[(&str, &str)],
    snapshot: Option<&mut FileSnapshot>,
    prelude_check: PreludeCheck,
) -> Loaded {
    load_from_keeping(sources, entry, prelude_files, snapshot, prelude_check).0
}

/// A document checked for an editor ([`check_document`]).
pub struct CheckedDocument {
    /// The load, as `spindle check` sees it (same diagnostics).
    pub loaded: Loaded,
    /// The program as elaborated when it has errors (the places that checked still
    /// have their types); `None` when it checked (then it is `loaded.program`) or when
    /// it was not elaborated (syntax errors).
    pub partial: Option<Program>,
    /// The document's file among `loaded.sources`.
    pub file: FileId,
}

/// Checks the text of an editor's document as `spindle check` would check the file
/// `path` holding it (its imports are relative to `path`), keeping the elaborated
/// program even when it has errors, for hovers and completions.
///
/// `open` holds the text of the other files the editor has open, by canonical path:
/// an import of one of them reads that text (perhaps not saved yet), not the file's.
pub fn check_document(
    name: &str,
    path: Option<&Path>,
    text: &str,
    open: &FileSnapshot,
) -> CheckedDocument {
    let mut sources = SourceMap::new();
    let file = sources.add(name, path.map(Path::to_path_buf), text.to_string());
    // A copy: the load adds to its snapshot the files it reads from disk.
    let mut files = open.clone();
    let (loaded, partial) = load_from_keeping(
        sources,
        Entry::File(file),
        prelude::FILES,
        Some(&mut files),
        PreludeCheck::Whole,
    );
    CheckedDocument {
        loaded,
        partial,
        file,
    }
}

impl CheckedDocument {
    /// The elaborated program, with or without errors.
    pub fn program(&self) -> Option<&Program> {
        self.loaded.program.as_ref().or(self.partial.as_ref())
    }
}

/// [`check_document`], checking again only what changed since the check that left
/// `cache` ([`crate::check::reuse`]); returns the results to keep for the next check
/// and how much this one re-checked.
pub fn check_document_reusing(
    name: &str,
    path: Option<&Path>,
    text: &str,
    open: &FileSnapshot,
    cache: crate::check::reuse::Cache,
) -> (
    CheckedDocument,
    crate::check::reuse::Cache,
    crate::check::reuse::Stats,
) {
    // The document is the first file added after none: its id is known before.
    crate::check::reuse::begin(cache, FileId(0), text);
    let checked = check_document(name, path, text, open);
    let (cache, stats) = crate::check::reuse::end();
    (checked, cache, stats)
}

/// [`load_from`], returning also the elaborated program whether or not it has errors
/// (`None` when it was not elaborated: syntax or import errors).
fn load_from_keeping(
    mut sources: SourceMap,
    entry: Entry,
    prelude_files: &[(&str, &str)],
    mut snapshot: Option<&mut FileSnapshot>,
    prelude_check: PreludeCheck,
) -> (Loaded, Option<Program>) {
    let arena = Bump::new();
    let mut diagnostics = Vec::new();
    let mut units: Vec<SourceUnit<'_>> = Vec::new();

    let mut prelude_modules = Vec::new();
    for (name, text) in prelude_files {
        let id = sources.add(format!("{PRELUDE_PREFIX}{name}"), None, text.to_string());
        let (module, errors) = parser::parse_module(&arena, id, text);
        diagnostics.extend(errors);
        prelude_modules.push(&*arena.alloc(module));
    }
    units.push(SourceUnit {
        modules: prelude_modules,
        imports: Vec::new(),
    });

    // Files to parse, as (file id, unit index); units are numbered as files are found.
    let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
    let mut files_of_units: Vec<FileId> = vec![FileId(u32::MAX)];
    let mut queue = Vec::new();
    // Modules parsed, waiting for their imports to be found.
    let mut parsed: Vec<(FileId, usize, &Module<'_>)> = Vec::new();
    units.push(SourceUnit {
        modules: Vec::new(),
        imports: Vec::new(),
    });
    match entry {
        Entry::File(entry_file) => {
            queue.push((entry_file, 1usize));
            files_of_units.push(entry_file);
            if let Some(path) = sources.get(entry_file).path.as_ref()
                && let Ok(canon) = path.canonicalize()
            {
                by_path.insert(canon, 1);
            }
        }
        Entry::Session(inputs) => {
            files_of_units.push(inputs.first().copied().unwrap_or(FileId(u32::MAX)));
            for (file, module) in parse_session(&arena, &sources, &inputs, &mut diagnostics) {
                parsed.push((file, 1, module));
            }
            // Imports are found in input order.
            parsed.reverse();
        }
    }
    loop {
        let (file, unit, module) = if let Some(next) = parsed.pop() {
            next
        } else if let Some((file, unit)) = queue.pop() {
            let text = sources.get(file).text.clone();
            let (module, errors) = parser::parse_module(&arena, file, &text);
            diagnostics.extend(errors);
            (file, unit, &*arena.alloc(module))
        } else {
            break;
        };
        units[unit].modules.push(module);
        let base = sources
            .get(file)
            .path
            .as_ref()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        for decl in module.decls {
            let Decl::Import { path, span } = decl else {
                continue;
            };
            let target = base.join(path);
            let canon = match target.canonicalize() {
                Ok(c) => c,
                Err(e) => {
                    diagnostics.push(
                        Diagnostic::error(format!("cannot import {}: {e}", target.display()))
                            .at(*span, "imported here"),
                    );
                    continue;
                }
            };
            let imported = match by_path.get(&canon) {
                Some(u) => *u,
                None => match read_snapshot(&target, &canon, snapshot.as_deref_mut()) {
                    Ok(text) => {
                        let id = sources.add(target.display().to_string(), Some(target), text);
                        let u = units.len();
                        units.push(SourceUnit {
                            modules: Vec::new(),
                            imports: Vec::new(),
                        });
                        files_of_units.push(id);
                        by_path.insert(canon, u);
                        queue.push((id, u));
                        u
                    }
                    Err(d) => {
                        diagnostics.push(d.at(*span, "imported here"));
                        continue;
                    }
                },
            };
            units[unit].imports.push((imported, *span));
        }
    }
    diagnostics.extend(import_cycles(&units, &sources, &files_of_units));

    if diagnostics.iter().any(Diagnostic::is_error) {
        // Syntax errors first: resolving a half-parsed program would only add noise.
        return (
            Loaded {
                sources,
                program: None,
                diagnostics,
            },
            None,
        );
    }
    if crate::check::reuse::active() {
        let entry = files_of_units.get(1).copied();
        let others: Vec<&str> = sources
            .files()
            .filter(|(id, _)| Some(*id) != entry)
            .flat_map(|(_, f)| [f.name.as_str(), f.text.as_str()])
            .collect();
        crate::check::reuse::set_environment(crate::check::reuse::hash_text(&others));
    }
    let mut eval = type_evaluator();
    let (program, errors) = elab::elaborate_program(&units, 1, eval.as_mut(), prelude_check);
    diagnostics.extend(errors);
    let ok = !diagnostics.iter().any(Diagnostic::is_error);
    if ok {
        (
            Loaded {
                sources,
                program: Some(program),
                diagnostics,
            },
            None,
        )
    } else {
        (
            Loaded {
                sources,
                program: None,
                diagnostics,
            },
            Some(program),
        )
    }
}

/// Reports each import that closes a cycle, naming the files around it.
fn import_cycles(
    units: &[SourceUnit<'_>],
    sources: &SourceMap,
    files: &[FileId],
) -> Vec<Diagnostic> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let mut marks = vec![Mark::New; units.len()];
    let mut out = Vec::new();
    for start in 0..units.len() {
        if start == PRELUDE_UNIT || marks[start] != Mark::New {
            continue;
        }
        // Iterative depth-first search; `path` holds (unit, next import to visit).
        let mut path: Vec<(usize, usize)> = vec![(start, 0)];
        marks[start] = Mark::Active;
        while let Some(&mut (u, ref mut next)) = path.last_mut() {
            if let Some(&(v, span)) = units[u].imports.get(*next) {
                *next += 1;
                match marks[v] {
                    Mark::New => {
                        marks[v] = Mark::Active;
                        path.push((v, 0));
                    }
                    Mark::Active => out.push(cycle_error(&path, v, span, sources, files)),
                    Mark::Done => {}
                }
            } else {
                marks[u] = Mark::Done;
                path.pop();
            }
        }
    }
    out
}

fn cycle_error(
    path: &[(usize, usize)],
    back_to: usize,
    span: Span,
    sources: &SourceMap,
    files: &[FileId],
) -> Diagnostic {
    let from = path.iter().position(|(u, _)| *u == back_to).unwrap_or(0);
    let mut names: Vec<&str> = path[from..]
        .iter()
        .map(|(u, _)| sources.get(files[*u]).name.as_str())
        .collect();
    names.push(sources.get(files[back_to]).name.as_str());
    Diagnostic::error(format!("import cycle: {}", names.join(" imports ")))
        .at(span, "this import closes the cycle")
}

/// The evaluator the type checker uses for type-level computation: the machine.
fn type_evaluator() -> Box<dyn TypeEval> {
    Box::new(crate::machine::typeval::MachineTypeEval::default())
}

/// This build's prelude as a program (what an empty file loads to): the reference a
/// decoded program's prelude is checked against.
pub fn prelude_program() -> Option<Program> {
    load_text("<prelude>", "").program
}
