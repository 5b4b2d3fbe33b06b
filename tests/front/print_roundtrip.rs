//! Print-then-parse is the identity: every example file, resolved to core terms and
//! printed back to Spindle source, parses and resolves to alpha-equivalent terms.
//! The prelude is covered too: each prelude file is printed, and the printed files are
//! loaded as the prelude in its place.

use crate::common;

use common::{ILL_TYPED, sp_files, tests_dir};
use spindle::core::equiv::alpha_eq;
use spindle::core::pretty;
use spindle::core::program::Program;
use spindle::driver;
use spindle::syntax::span::FileId;

fn roundtrip(path: &std::path::Path) -> Result<(), String> {
    let first = driver::load(path);
    let program = first
        .program
        .as_ref()
        .ok_or_else(|| format!("does not load:\n{}", first.render_diagnostics()))?;
    // The entry file is the first one added after the prelude files.
    let entry = first
        .sources
        .files()
        .find(|(_, f)| f.path.as_deref() == Some(path))
        .map(|(id, _)| id)
        .unwrap_or(FileId(0));
    let text = pretty::file_to_string(program, entry);
    let second = driver::load_text("printed.sp", &text);
    let reprinted = second.program.as_ref().ok_or_else(|| {
        format!(
            "the printed program does not load:\n{}\n--- printed:\n{text}",
            second.render_diagnostics()
        )
    })?;
    same_declarations(program, reprinted).map_err(|e| format!("{e}\n--- printed:\n{text}"))
}

/// Compares two programs declaration by declaration, up to alpha-equivalence.
fn same_declarations(program: &Program, reprinted: &Program) -> Result<(), String> {
    if program.defs.len() != reprinted.defs.len() || program.datas.len() != reprinted.datas.len() {
        return Err("the number of declarations changed".to_string());
    }
    for (a, b) in program.defs.iter().zip(&reprinted.defs) {
        if !alpha_eq(&a.ty, &b.ty) || !alpha_eq(&a.body, &b.body) {
            return Err(format!("`{}` changed by printing", a.name));
        }
    }
    for (a, b) in program.datas.iter().zip(&reprinted.datas) {
        let same_fields = a.ctors.len() == b.ctors.len()
            && a.ctors.iter().zip(&b.ctors).all(|(c, d)| {
                c.fields.len() == d.fields.len()
                    && c.fields.iter().zip(&d.fields).all(|(x, y)| alpha_eq(x, y))
            });
        let same_params = a.params.len() == b.params.len()
            && a.params
                .iter()
                .zip(&b.params)
                .all(|(x, y)| alpha_eq(&x.ty, &y.ty));
        if !same_fields || !same_params {
            return Err(format!("data `{}` changed by printing", a.name));
        }
    }
    Ok(())
}

#[test]
fn printing_then_parsing_every_example_is_the_identity() {
    let mut failures = Vec::new();
    for sub in ["spec", "bench", "own"] {
        for file in sp_files(&tests_dir().join("examples").join(sub)) {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            if ILL_TYPED.contains(&name.as_str()) {
                continue;
            }
            if let Err(why) = roundtrip(&file) {
                failures.push(format!("{}: {why}", file.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn printing_then_parsing_the_prelude_is_the_identity() {
    let original = driver::load_text("empty.sp", "");
    let program = original.program.as_ref().expect("the prelude loads");
    let printed: Vec<(String, String)> = original
        .sources
        .files()
        .filter(|(_, f)| f.name.starts_with("<prelude>/"))
        .map(|(id, f)| (f.name.clone(), pretty::file_to_string(program, id)))
        .collect();
    assert_eq!(printed.len(), spindle::prelude::FILES.len());
    let files: Vec<(&str, &str)> = printed
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let again = driver::load_text_with_prelude(&files, "empty.sp", "");
    let reprinted = again.program.as_ref().unwrap_or_else(|| {
        panic!(
            "the printed prelude does not load:\n{}",
            again.render_diagnostics()
        )
    });
    if let Err(why) = same_declarations(program, reprinted) {
        let all: Vec<&str> = files.iter().map(|(_, t)| *t).collect();
        panic!("{why}\n--- printed prelude:\n{}", all.join("\n"));
    }
}

#[test]
fn chars_and_names_shared_by_a_type_and_a_constructor_round_trip() {
    // Issue 30: `Char` literals and patterns, and `data Body = Body ...` (the printed
    // name means the type where a type is expected, the constructor elsewhere).
    let dir = tests_dir().join("examples").join("library");
    for name in ["chars.sp", "shared_names.sp"] {
        roundtrip(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
