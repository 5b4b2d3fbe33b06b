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
///
/// Types and constructors are in separate namespaces (issue 30): a `data` type and a
/// constructor may share a name (`data Body = Body Float Float`). Then `names` holds
/// the constructor (what an expression means by the name) and `types` the type (what
/// a place that expects a type means by it); any other name is declared once.
#[derive(Debug, Default)]
pub struct UnitScope {
    names: HashMap<String, (Global, Span)>,
    types: HashMap<String, (Global, Span)>,
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
        if let Some(&(old, first)) = self.names.get(name) {
            match (old, global) {
                // A constructor named like a type: the type steps aside.
                (Global::Data(_), Global::Con(_)) if !self.types.contains_key(name) => {
                    self.types.insert(name.to_string(), (old, first));
                    self.names.insert(name.to_string(), (global, span));
                    return;
                }
                // A type named like a constructor.
                (Global::Con(_), Global::Data(_)) if !self.types.contains_key(name) => {
                    self.types.insert(name.to_string(), (global, span));
                    return;
                }
                _ => {}
            }
            let first = match (self.types.get(name), global) {
                (Some(&(_, t)), Global::Data(_)) => t,
                _ => first,
            };
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
                    .also(first, "first defined here"),
            );
            return;
        }
        self.names.insert(name.to_string(), (global, span));
    }

    /// The global `name` means in an expression in this unit, if declared here: the
    /// constructor when a type shares its name.
    pub fn get(&self, name: &str) -> Option<(Global, Span)> {
        self.names.get(name).copied()
    }

    /// The global `name` means where a type is expected: the type when a constructor
    /// shares its name, else what [`UnitScope::get`] gives unless it is a constructor
    /// (a constructor does not hide another unit's type).
    pub fn get_type(&self, name: &str) -> Option<(Global, Span)> {
        self.types
            .get(name)
            .or_else(|| {
                self.names
                    .get(name)
                    .filter(|(g, _)| !matches!(g, Global::Con(_)))
            })
            .copied()
    }

    /// [`UnitScope::get_type`] where a type is expected (`want_type`), else
    /// [`UnitScope::get`].
    pub fn get_as(&self, name: &str, want_type: bool) -> Option<(Global, Span)> {
        if want_type {
            self.get_type(name)
        } else {
            self.get(name)
        }
    }

    /// The type that shares its name with a constructor, if `name` is one.
    pub fn shadowed_type(&self, name: &str) -> Option<(Global, Span)> {
        self.types.get(name).copied()
    }

    /// Every name declared here.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }

    /// Every name declared here with what it means in an expression and where it is
    /// declared, in no particular order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, Global, Span)> {
        self.names.iter().map(|(n, &(g, s))| (n.as_str(), g, s))
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
