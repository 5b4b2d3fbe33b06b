//! Documentation of a program's names, for the REPL's `:doc` and an editor's hover.
//!
//! A definition, data type or external is documented by the `--` comment lines
//! directly above it ([`crate::syntax::doc`]). The text is read from the sources when
//! asked for: it is not stored in the checked program, so it changes neither the
//! program's content hash nor its protobuf encoding, and costs checking nothing.

use crate::core::program::Program;
use crate::driver::PRELUDE_PREFIX;
use crate::syntax::doc::doc_at;
use crate::syntax::span::{SourceMap, Span};

/// Where the definition, data type or external named `name` is declared, for a
/// program checked from `sources`: the last declaration of that name in the program's
/// tables (the prelude comes first in each, and a file's own definitions shadow the
/// prelude's), one outside the prelude first. Constructors are not looked up (they are
/// documented with their data type).
pub fn declaration_of(program: &Program, sources: &SourceMap, name: &str) -> Option<Span> {
    let last_def = program
        .defs
        .iter()
        .rfind(|d| &*d.name == name)
        .map(|d| d.span);
    let last_data = program
        .datas
        .iter()
        .rfind(|d| &*d.name == name)
        .map(|d| d.span);
    let last_extern = program
        .externs
        .iter()
        .rfind(|e| &*e.name == name)
        .map(|e| e.span);
    let in_prelude = |s: &Span| {
        sources
            .files()
            .nth(s.file.0 as usize)
            .is_some_and(|(_, f)| f.name.starts_with(PRELUDE_PREFIX))
    };
    let all: Vec<Span> = [last_def, last_data, last_extern]
        .into_iter()
        .flatten()
        .collect();
    all.iter().find(|s| !in_prelude(s)).or(all.first()).copied()
}

/// The documentation of `name` in a program checked from `sources`: the `--` comment
/// lines directly above its declaration (see [`declaration_of`]), without the `--`.
/// `None` when no definition, data type or external has that name, or when its
/// declaration has no doc comment.
pub fn doc_of(program: &Program, sources: &SourceMap, name: &str) -> Option<String> {
    doc_at(sources, declaration_of(program, sources, name)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver;

    #[test]
    fn documentation_of_user_and_prelude_names() {
        let src = "-- The answer.\n-- Checked by hand.\ndef answer : Int = 42\n\n\
                   def plain = 1\n\n-- A colour.\ndata Color = Red | Green\n\n\
                   -- Shadows the prelude's.\ndef sum (xs : List Int) : Int = 0\n";
        let loaded = driver::load_text("doc.sp", src);
        assert!(!loaded.has_errors(), "{}", loaded.render_errors());
        let p = loaded.program.as_ref().unwrap();
        let doc = |n: &str| doc_of(p, &loaded.sources, n);
        assert_eq!(
            doc("answer").as_deref(),
            Some("The answer.\nChecked by hand.")
        );
        assert_eq!(doc("plain"), None);
        assert_eq!(doc("Color").as_deref(), Some("A colour."));
        assert_eq!(doc("Red"), None);
        assert_eq!(doc("sum").as_deref(), Some("Shadows the prelude's."));
        assert_eq!(doc("nonexistent"), None);
        // The prelude is documented the same way.
        assert!(
            doc("try").is_some_and(|d| d.starts_with("`try x` evaluates `x` to normal form")),
            "{:?}",
            doc("try")
        );
        assert!(doc("range").is_some_and(|d| d.contains("`range a b`")));
    }

    #[test]
    fn documentation_changes_neither_the_hash_nor_the_encoding() {
        let plain = driver::load_text("h.sp", "def main : Int = 1\n");
        let documented = driver::load_text("h.sp", "-- The result.\ndef main : Int = 1\n");
        let (a, b) = (plain.program.unwrap(), documented.program.unwrap());
        assert_eq!(
            crate::proto::hash::program(&a),
            crate::proto::hash::program(&b)
        );
        let counts = crate::proto::prelude_counts(&plain.sources, &a);
        let encode = |p| crate::proto::encode::program_bytes(p, counts);
        assert_eq!(encode(&a), encode(&b));
    }
}
