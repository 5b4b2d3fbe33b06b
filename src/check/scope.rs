//! Top-level scopes: which global a name means in which file.
//!
//! A program is made of *units*: the prelude (all prelude files together, one scope) and
//! each user file. A name in a unit resolves, in order, to: the unit's own top-level
//! declarations, then those of the units it imports directly (if two imports define it,
//! the use is ambiguous), then the prelude's, then the built-in names (`Int`, `Float`,
//! `String`, `error`, the `prim_*` primitives). This module builds those tables, reports
//! duplicate definitions with both places, and suggests close names for unknown ones.

use crate::core::term::{ConId, DataId, DefId, ExternId, PrimType};
use crate::diagnostic::Diagnostic;
use crate::prim::Prim;
use crate::syntax::span::Span;
use std::collections::HashMap;

/// What a top-level name refers to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Global {
    /// A `def`.
    Def(DefId),
    /// A `data` type.
    Data(DataId),
    /// A constructor.
    Con(ConId),
    /// An `extern`.
    Extern(ExternId),
    /// `Int`, `Float` or `String`.
    PrimType(PrimType),
    /// A primitive operation.
    Prim(Prim),
}

/// The top-level names one unit declares, each with the place it is declared.
#[derive(Debug, Default)]
pub struct UnitScope {
    names: HashMap<String, (Global, Span)>,
}

impl UnitScope {
    /// Declares `name`; a second declaration of the same name is reported with both
    /// places and otherwise ignored (the first one stays in force).
    pub fn declare(
        &mut self,
        name: &str,
        global: Global,
        span: Span,
        errors: &mut Vec<Diagnostic>,
    ) {
        if let Some((_, first)) = self.names.get(name) {
            // An instance's name is made from its head (`instance'Show'Int`).
            let message = match ["instance'", "derived'"]
                .iter()
                .find_map(|p| name.strip_prefix(p))
            {
                Some(head) => format!(
                    "overlapping instances: two for `{}`",
                    head.replace('\'', " ")
                ),
                None => format!("`{name}` is defined twice"),
            };
            errors.push(
                Diagnostic::error(message)
                    .at(span, "defined again here")
                    .also(*first, "first defined here"),
            );
            return;
        }
        self.names.insert(name.to_string(), (global, span));
    }

    /// The global `name` means in this unit, if declared here.
    pub fn get(&self, name: &str) -> Option<(Global, Span)> {
        self.names.get(name).copied()
    }

    /// Every name declared here.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }
}

/// The built-in names that are no declaration of any file.
pub fn builtin(name: &str) -> Option<Global> {
    match name {
        "Int" => Some(Global::PrimType(PrimType::Int)),
        "Float" => Some(Global::PrimType(PrimType::Float)),
        "String" => Some(Global::PrimType(PrimType::String)),
        "Char" => Some(Global::PrimType(PrimType::Char)),
        _ => Prim::from_name(name).map(Global::Prim),
    }
}

/// The names users see as built in (the `prim_*` names are left out of suggestions).
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    ["Int", "Float", "String", "Char", "error"].into_iter()
}

/// The closest of `candidates` to `name`, if close enough to be a likely typo.
pub fn suggest<'c>(name: &str, candidates: impl Iterator<Item = &'c str>) -> Option<&'c str> {
    let limit = match name.chars().count() {
        0..=2 => 1,
        3..=5 => 2,
        _ => 3,
    };
    candidates
        .filter(|c| *c != name && !c.starts_with("prim_"))
        .map(|c| (strsim::damerau_levenshtein(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_pick_the_closest_name() {
        let names = ["length", "filter", "foldr", "foldl"];
        assert_eq!(suggest("lenght", names.iter().copied()), Some("length"));
        assert_eq!(suggest("foldx", names.iter().copied()), Some("foldl"));
        assert_eq!(suggest("zzzzzz", names.iter().copied()), None);
    }
}
