//! Naming what a `match` leaves uncovered: while `patterns` compiles a match, it
//! records what the current path of the decision tree knows about each value examined
//! (this constructor, with these fields; this literal; none of these); where no arm is
//! left, the warning rebuilds from that a value no arm matches (`S (S _)`, `(True, [])`).

use super::elab::Elab;
use super::patterns::Head;
use crate::core::term::{ConId, Lit};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::syntax::span::Span;

/// What is known about one occurrence on the path to a point of the decision tree.
#[derive(Clone, Debug)]
pub(in crate::check) enum Known {
    /// It is this constructor; its fields are these occurrences.
    Con(ConId, Vec<u32>),
    /// It is this literal.
    Lit(Lit),
    /// It is none of these (the default branch of a split).
    NoneOf(Vec<Head>),
}

/// The path of the `match` being compiled: its root occurrence and what each
/// occurrence is known to be, innermost last. An occurrence is a variable's level, or
/// [`ROOT_TERM`] for a scrutinee examined in place.
#[derive(Clone, Debug, Default)]
pub(in crate::check) struct Coverage {
    pub(super) root: u32,
    pub(super) known: Vec<(u32, Known)>,
}

/// How the warning about a `match` that misses a case starts (`spindle run` shows these
/// warnings, once per `match`, before it evaluates).
pub const MISSING_CASE: &str = "this `match` does not cover every case";

/// The occurrence of a scrutinee term examined in place (no variable holds it).
pub(super) const ROOT_TERM: u32 = u32::MAX;

impl Elab<'_> {
    /// Warns that a match leaves a case uncovered, naming it: the value the current
    /// path leads to, rebuilt from what is known about each occurrence.
    pub(super) fn warn_missing(&mut self, span: Span) {
        let root = self.coverage.root;
        let mut literal = false;
        let witness = self.witness(root, &mut literal, 0);
        let missing = match (literal, witness.as_str()) {
            (true, "_") => "values other than the literals listed are not matched \
                            (add a `_` arm)"
                .to_string(),
            (true, _) => {
                format!("`{witness}` with a literal not listed is not matched (add a `_` arm)")
            }
            (false, _) => format!("`{witness}` is not matched"),
        };
        self.errors.push(
            Diagnostic::warning(format!("{MISSING_CASE}: {missing}"))
                .kind(DiagnosticKind::MissingCase)
                .at(span, "reaching an uncovered case is a runtime error"),
        );
    }

    /// A pattern for occurrence `occ` as the current path knows it.
    fn witness(&self, occ: u32, literal: &mut bool, depth: u32) -> String {
        let known = self
            .coverage
            .known
            .iter()
            .rev()
            .find(|(o, _)| *o == occ)
            .map(|(_, k)| k.clone());
        let b = self.program.builtins;
        let (con, fields): (ConId, Vec<Option<u32>>) = match known {
            Some(Known::Con(c, fields)) => (c, fields.into_iter().map(Some).collect()),
            Some(Known::Lit(l)) => {
                let mut s = String::new();
                match l {
                    Lit::Str(t) => crate::core::pretty::quote_into(&mut s, &t),
                    Lit::Int(n) => s = n.to_string(),
                    Lit::Float(x) => s = x.to_string(),
                    Lit::Char(c) => crate::core::pretty::char_quote_into(&mut s, c),
                }
                return s;
            }
            Some(Known::NoneOf(heads)) => match heads.first() {
                Some(Head::Con(c)) => {
                    let data = self.program.data(c.data);
                    let missing = (0..data.ctors.len() as u32)
                        .map(|index| ConId {
                            data: c.data,
                            index,
                        })
                        .find(|c| !heads.contains(&Head::Con(*c)));
                    match missing {
                        Some(m) => (m, vec![None; self.program.con(m).fields.len()]),
                        None => return "_".to_string(),
                    }
                }
                _ => {
                    *literal = true;
                    return "_".to_string();
                }
            },
            None => return "_".to_string(),
        };
        let args: Vec<String> = fields
            .iter()
            .map(|f| match f {
                Some(o) if depth < 16 => self.witness(*o, literal, depth + 1),
                _ => "_".to_string(),
            })
            .collect();
        if con == b.mk_pair && args.len() == 2 {
            return format!("({}, {})", args[0], args[1]);
        }
        if con == b.unit_con {
            return "()".to_string();
        }
        let mut s = self.program.con(con).name.to_string();
        for a in args {
            s.push(' ');
            if a.contains(' ') && !a.starts_with('(') {
                s.push('(');
                s.push_str(&a);
                s.push(')');
            } else {
                s.push_str(&a);
            }
        }
        s
    }
}
