//! A decoded program printed back as one Spindle source file (`spindle decode`).
//!
//! The encoding holds the whole flattened program, prelude first. The printed file holds
//! only the declarations after the prelude's, in table order: loading it brings this
//! build's prelude back in front of them, so every table index means what it meant.
//! That is only true if the encoded prelude *is* this build's prelude, so that is checked
//! first, declaration by declaration (up to alpha-equivalence).
//!
//! One file is one scope, while the program may come from several: two imported files
//! may each define `helper`, and a file's definition of `length` may shadow the
//! prelude's while another file uses the prelude's. So printed names are chosen
//! deterministically, in this order, each keeping its own name when it is free and
//! otherwise taking the first free `name_2`, `name_3`, ...:
//!
//! 1. `main` for the program's `main` (and for nothing else);
//! 2. the externals (their names pick the host function, so they cannot change: two
//!    that would clash make the program unprintable, an error);
//! 3. data types and their constructors, in table order;
//! 4. the other definitions, in table order.
//!
//! A name is not free if an earlier declaration took it, if it is a built-in name (`Int`,
//! `error`, `prim_add`, ...), or if it is the name of a prelude declaration that the
//! printed terms refer to (shadowing it would capture those references). Renaming a
//! definition or a data type leaves the content hash as it was; renaming a constructor
//! changes it, as it changes what a run prints.

use super::decode::Decoded;
use super::error::{DecodeError, Problem};
use crate::core::equiv::alpha_eq;
use crate::core::pretty;
use crate::core::program::{DeclCounts, Program};
use crate::core::term::{CasePat, Name, Term};
use crate::prim::Prim;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Prints the program's own declarations (not the prelude's) as a source file that loads
/// back to an alpha-equivalent program. `prelude` is this build's prelude as a program
/// (what loading an empty file gives: the driver's to make, the codec knows no
/// pipeline).
pub fn program_to_source(
    decoded: &Decoded,
    prelude: Option<&Program>,
) -> Result<String, DecodeError> {
    check_prelude(decoded, prelude)?;
    let renamed = rename(&decoded.program, decoded.prelude)?;
    Ok(pretty::program_to_string(&renamed, decoded.prelude))
}

/// Checks that the encoded prelude is the one this build loads with every program.
fn check_prelude(decoded: &Decoded, prelude: Option<&Program>) -> Result<(), DecodeError> {
    let Some(ours) = prelude else {
        return Err(DecodeError::new(Problem::DifferentPrelude(
            "this build's prelude does not load".to_string(),
        )));
    };
    let p = &decoded.program;
    let differ = |why: String| Err(DecodeError::new(Problem::DifferentPrelude(why)));
    if decoded.prelude != ours.counts() {
        return differ(format!(
            "{} data types, {} externals and {} definitions, where this build's has {}, {} and {}",
            decoded.prelude.datas,
            decoded.prelude.externs,
            decoded.prelude.defs,
            ours.datas.len(),
            ours.externs.len(),
            ours.defs.len()
        ));
    }
    for (a, b) in p.datas.iter().zip(&ours.datas) {
        let same = a.name == b.name
            && a.params.len() == b.params.len()
            && a.params
                .iter()
                .zip(&b.params)
                .all(|(x, y)| x.plicity == y.plicity && alpha_eq(&x.ty, &y.ty))
            && a.ctors.len() == b.ctors.len()
            && a.ctors.iter().zip(&b.ctors).all(|(x, y)| {
                x.name == y.name
                    && x.fields.len() == y.fields.len()
                    && x.fields.iter().zip(&y.fields).all(|(s, t)| alpha_eq(s, t))
            });
        if !same {
            return differ(format!("data type `{}` differs", b.name));
        }
    }
    for (a, b) in p.externs.iter().zip(&ours.externs) {
        if a.name != b.name || !alpha_eq(&a.ty, &b.ty) {
            return differ(format!("external `{}` differs", b.name));
        }
    }
    for (a, b) in p.defs.iter().zip(&ours.defs) {
        if a.name != b.name || !alpha_eq(&a.ty, &b.ty) || !alpha_eq(&a.body, &b.body) {
            return differ(format!("definition `{}` differs", b.name));
        }
    }
    if p.builtins != ours.builtins {
        return differ("its builtin types and constructors differ".to_string());
    }
    Ok(())
}

/// A copy of `program` whose declarations after `prelude` have names that print
/// unambiguously in one file (see the module documentation).
fn rename(program: &Program, prelude: DeclCounts) -> Result<Program, DecodeError> {
    let mut taken = Taken::default();
    taken.extend(["Int", "Float", "String", "Char"].map(String::from));
    taken.extend(Prim::names().map(String::from));
    taken.extend(referenced_prelude_names(program, prelude));
    let mut out = program.clone();

    taken.insert("main".to_string());
    if let Some(m) = program.main
        && let Some(d) = out.defs.get_mut(m.0 as usize)
    {
        d.name = Rc::from("main");
    }
    for e in out.externs.iter().skip(prelude.externs) {
        if !taken.insert(e.name.to_string()) {
            return Err(DecodeError::new(Problem::Unprintable(format!(
                "the external `{}` would clash with another declaration of that name",
                e.name
            ))));
        }
    }
    // A type and a constructor may share a name (issue 30: types and constructors
    // are in separate namespaces), but not with anything else.
    let base = taken.names.clone();
    let (mut types, mut cons) = (HashSet::new(), HashSet::new());
    for d in out.datas.iter_mut().skip(prelude.datas) {
        d.name = claim_beside(&mut taken, &base, &mut types, &cons, &d.name);
        for c in &mut d.ctors {
            c.name = claim_beside(&mut taken, &base, &mut cons, &types, &c.name);
        }
    }
    for (i, d) in out.defs.iter_mut().enumerate().skip(prelude.defs) {
        if program.main.is_some_and(|m| m.0 as usize == i) {
            continue;
        }
        d.name = claim(&mut taken, &d.name);
    }
    Ok(out)
}

/// The names taken so far, and for each name the suffix to try next, so that `n`
/// declarations of one name cost `O(n)`, not `O(n²)` (untrusted input can hold ten
/// thousand constructors of one name).
#[derive(Default)]
struct Taken {
    names: HashSet<String>,
    next_suffix: HashMap<String, u64>,
}

impl Taken {
    fn insert(&mut self, name: String) -> bool {
        self.names.insert(name)
    }

    fn extend(&mut self, names: impl IntoIterator<Item = String>) {
        self.names.extend(names);
    }
}

/// A name in one of two namespaces (`mine`: the names of types, or of constructors)
/// that may share names with the other (`other`): `name` itself when only the other
/// namespace has it (and nothing of `base`), else as [`claim`] gives.
fn claim_beside(
    taken: &mut Taken,
    base: &HashSet<String>,
    mine: &mut HashSet<String>,
    other: &HashSet<String>,
    name: &str,
) -> Name {
    let chosen = if other.contains(name) && !mine.contains(name) && !base.contains(name) {
        Rc::from(name)
    } else {
        claim(taken, name)
    };
    mine.insert(chosen.to_string());
    chosen
}

/// `name` if free, else the first free `name_2`, `name_3`, ...; marks it taken.
fn claim(taken: &mut Taken, name: &str) -> Name {
    let chosen = if taken.names.contains(name) {
        let start = taken.next_suffix.get(name).copied().unwrap_or(2);
        let (k, chosen) = (start..)
            .map(|k| (k, format!("{name}_{k}")))
            .find(|(_, n)| !taken.names.contains(n))
            .unwrap_or((start, name.to_string()));
        taken.next_suffix.insert(name.to_string(), k + 1);
        chosen
    } else {
        name.to_string()
    };
    taken.names.insert(chosen.clone());
    Rc::from(chosen)
}

/// The names of the prelude's declarations that the program's own declarations mention.
fn referenced_prelude_names(program: &Program, prelude: DeclCounts) -> HashSet<String> {
    let mut work: Vec<&Term> = Vec::new();
    for d in program.datas.iter().skip(prelude.datas) {
        work.extend(d.params.iter().map(|b| &*b.ty));
        for c in &d.ctors {
            work.extend(c.fields.iter().map(|f| &**f));
        }
    }
    work.extend(program.externs.iter().skip(prelude.externs).map(|e| &*e.ty));
    for d in program.defs.iter().skip(prelude.defs) {
        work.push(&d.ty);
        work.push(&d.body);
    }
    let mut names = HashSet::new();
    let con = |c: crate::core::term::ConId, names: &mut HashSet<String>| {
        if (c.data.0 as usize) < prelude.datas {
            names.insert(program.con(c).name.to_string());
        }
    };
    while let Some(t) = work.pop() {
        match t {
            Term::Def(id) if (id.0 as usize) < prelude.defs => {
                names.insert(program.def(*id).name.to_string());
            }
            Term::Data(id) if (id.0 as usize) < prelude.datas => {
                names.insert(program.data(*id).name.to_string());
            }
            Term::Con(c) => con(*c, &mut names),
            Term::Extern(id, _) if (id.0 as usize) < prelude.externs => {
                names.insert(program.external(*id).name.to_string());
            }
            Term::Match(m) => {
                for arm in &m.arms {
                    if let CasePat::Con(c, _) = &arm.pat {
                        con(*c, &mut names);
                    }
                }
            }
            _ => {}
        }
        t.for_each_child(|child, _| work.push(child));
    }
    names
}
