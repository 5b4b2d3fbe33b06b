//! Loading a program: read the entry file, parse it, the files it imports and the
//! prelude, and resolve them into one [`Program`]. The command line and the REPL both
//! go through here, so they report the same errors the same way.
//!
//! Imports are paths relative to the importing file. Each file is loaded once however
//! many files import it; an import cycle is an error at the `import` that closes it.

use crate::check::elab::{self, PRELUDE_UNIT, SourceUnit};
use crate::check::eval::TypeEval;
use crate::core::program::Program;
use crate::diagnostic::{self, Diagnostic};
use crate::prelude;
use crate::syntax::ast::{Decl, Module};
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
    let mut sources = SourceMap::new();
    match read_source(path) {
        Ok(text) => {
            let name = path.display().to_string();
            let file = sources.add(name, Some(path.to_path_buf()), text);
            load_from(sources, file, prelude::FILES)
        }
        Err(d) => Loaded {
            sources,
            program: None,
            diagnostics: vec![d],
        },
    }
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
    load_from(sources, file, prelude_files)
}

/// Reads a source file: it must exist, be UTF-8 and be of a sane size.
fn read_source(path: &Path) -> Result<String, Diagnostic> {
    let bytes = std::fs::read(path)
        .map_err(|e| Diagnostic::error(format!("cannot read {}: {e}", path.display())))?;
    if bytes.len() > MAX_SOURCE_BYTES {
        return Err(Diagnostic::error(format!(
            "{} is too large ({} bytes) to be a source file",
            path.display(),
            bytes.len()
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..bad];
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
        Diagnostic::error(format!(
            "{}:{line}:{col}: the file is not valid UTF-8",
            path.display()
        ))
    })
}

/// Parses the prelude and the entry file with everything it imports, then resolves.
fn load_from(mut sources: SourceMap, entry_file: FileId, prelude_files: &[(&str, &str)]) -> Loaded {
    let arena = Bump::new();
    let mut diagnostics = Vec::new();
    let mut units: Vec<SourceUnit<'_>> = Vec::new();

    let mut prelude_modules = Vec::new();
    for (name, text) in prelude_files {
        let id = sources.add(format!("<prelude>/{name}"), None, text.to_string());
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
    let mut queue = vec![(entry_file, 1usize)];
    units.push(SourceUnit {
        modules: Vec::new(),
        imports: Vec::new(),
    });
    files_of_units.push(entry_file);
    if let Some(path) = sources.get(entry_file).path.as_ref()
        && let Ok(canon) = path.canonicalize()
    {
        by_path.insert(canon, 1);
    }
    while let Some((file, unit)) = queue.pop() {
        let text = sources.get(file).text.clone();
        let (module, errors) = parser::parse_module(&arena, file, &text);
        diagnostics.extend(errors);
        let module: &Module<'_> = arena.alloc(module);
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
                None => match read_source(&target) {
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
        return Loaded {
            sources,
            program: None,
            diagnostics,
        };
    }
    let mut eval = type_evaluator();
    let (program, errors) = elab::elaborate_program(&units, 1, eval.as_mut());
    diagnostics.extend(errors);
    let ok = !diagnostics.iter().any(Diagnostic::is_error);
    Loaded {
        sources,
        program: ok.then_some(program),
        diagnostics,
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
