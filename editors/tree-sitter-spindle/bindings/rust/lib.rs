//! The tree-sitter grammar of Spindle (`.sp` files), for editors and tools that parse
//! Spindle with tree-sitter: syntax highlighting, code navigation, folding.
//!
//! Spindle's own parser (the `spindle` crate's `syntax` module) is the authority on the
//! language; this grammar follows it, and the `spindle` crate's `tests/tree_sitter.rs`
//! checks that both agree on every `.sp` file of the repository.
//!
//! ```
//! let code = "def main = 1 + 2\n";
//! let mut parser = tree_sitter::Parser::new();
//! parser
//!     .set_language(&tree_sitter_spindle::LANGUAGE.into())
//!     .expect("the grammar's ABI is supported by this tree-sitter");
//! let tree = parser.parse(code, None).unwrap();
//! assert!(!tree.root_node().has_error());
//! ```

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_spindle() -> *const ();
}

/// The tree-sitter [`LanguageFn`] of the Spindle grammar: turn it into a
/// `tree_sitter::Language` with `.into()` to give it to a parser.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_spindle) };

/// The same [`LanguageFn`] as [`LANGUAGE`], for callers written against the older
/// bindings that exposed a function.
pub fn language() -> LanguageFn {
    LANGUAGE
}

/// The node types of the grammar (`src/node-types.json`), for tools that generate
/// typed syntax trees.
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// The syntax highlighting query (`queries/highlights.scm`).
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

/// The local-variable query (`queries/locals.scm`): scopes, definitions, references.
pub const LOCALS_QUERY: &str = include_str!("../../queries/locals.scm");

/// The tagging query (`queries/tags.scm`): definitions for code navigation.
pub const TAGS_QUERY: &str = include_str!("../../queries/tags.scm");

#[cfg(test)]
mod tests {
    #[test]
    fn the_grammar_loads() {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&super::LANGUAGE.into())
            .expect("Error loading Spindle parser");
    }

    #[test]
    fn the_queries_compile() {
        let language = super::LANGUAGE.into();
        for query in [
            super::HIGHLIGHTS_QUERY,
            super::LOCALS_QUERY,
            super::TAGS_QUERY,
        ] {
            tree_sitter::Query::new(&language, query).expect("a valid query");
        }
    }
}
