//! Printing core terms back to Spindle source.
//!
//! The output parses and resolves back to an alpha-equivalent term (tested on every
//! example program): `decode`, the REPL and error messages rely on that. To keep it so:
//!
//! - Bound variables get display names that are unique among the binders in scope and
//!   differ from every global name the term mentions, so no name is captured; a binder
//!   the source left unnamed (`_`) but that is referenced gets a fresh name.
//! - Sugar is used only where it resolves back to the same term: `[a, b]` for a `Cons`
//!   chain ending in `Nil`, `(a, b)` for `MkPair`, `()`, `if` for a two-armed match on
//!   `Bool`, infix operators for fully applied operator primitives, `xs ++ ys` for the
//!   prelude's `append {A} xs ys` (what `++` on lists elaborates to; the element type
//!   comes back from the operands' type, as it does for a list literal's).
//! - Parentheses follow the precedence table of LANGUAGE.md section 3, erring on the
//!   side of more.
//!
//! Types shown to users (the REPL's answers, the checker's messages) are printed by
//! [`type_to_string`] and [`term_to_string_cut`], which write a tuple type as it is
//! written in a program's values: `Pair Int (Pair String Bool)` as
//! `(Int, String, Bool)`. That form does not parse back as a type (`(Int, String)` is a
//! pair of types), so `decode` and everything that must read back use
//! [`term_to_string`]. Every other data type is printed by its name.
//!
//! Recursion follows the term's shape; [`stacker`] grows the stack for deep terms.

use crate::core::program::{Builtins, Program};
use crate::core::term::{Binder, CasePat, ConId, HoleKind, Lit, Match, Plicity, Term};
use crate::prim::Prim;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Precedence levels, lowest first: a form printed where a higher level is required is
/// parenthesised.
const LOW: u8 = 0; // lambda, let, if, match, arrows
const OR: u8 = 1;
const CMP: u8 = 3;
const CONCAT: u8 = 4;
const ADD: u8 = 5;
const MUL: u8 = 6;
const APP: u8 = 7;
const ATOM: u8 = 8;

/// Prints `term`, whose free variables are `locals` (outermost first), as Spindle source.
pub fn term_to_string(program: &Program, locals: &[&str], term: &Term) -> String {
    let mut p = Printer::new(program, term);
    for l in locals {
        p.names.push(l.to_string());
    }
    p.term(term, LOW);
    p.out
}

/// Prints a type (or any term) for a person to read: like [`term_to_string`], but a
/// tuple type is written as a tuple, `Pair Int (Pair String Bool)` as
/// `(Int, String, Bool)` (and `List (Pair Int String)` as `List (Int, String)`). The
/// text is not meant to be parsed back (see the module documentation).
pub fn type_to_string(program: &Program, locals: &[&str], term: &Term) -> String {
    let mut p = Printer::new(program, term);
    p.tuple_types = true;
    for l in locals {
        p.names.push(l.to_string());
    }
    p.term(term, LOW);
    p.out
}

/// Prints `term` like [`type_to_string`], for a message: at most about `max` bytes,
/// the rest cut and shown as `…`. A type can be far larger than its source (types are
/// shared, so a ten-line program can have a type of a billion nodes); the cost of
/// printing it is bounded by `max` too, not by the term's size.
pub fn term_to_string_cut(program: &Program, locals: &[&str], term: &Term, max: usize) -> String {
    term_to_string_cut_unknowns(program, locals, term, max, &mut Vec::new())
}

/// Prints one definition as a `def` declaration.
pub fn def_to_string(program: &Program, id: crate::core::term::DefId) -> String {
    let d = program.def(id);
    let mut p = Printer::new(program, &d.ty);
    p.also_print(&d.body);
    if d.role == crate::syntax::ast::DefRole::Total {
        p.out.push_str("total ");
    }
    p.out.push_str("def ");
    p.out.push_str(&d.name);
    if !matches!(&*d.ty, Term::Hole(HoleKind::Infer, _)) {
        p.out.push_str(" : ");
        p.term(&d.ty, LOW);
    }
    p.out.push_str(" =\n  ");
    p.indent = 2;
    p.term(&d.body, LOW);
    p.out.push('\n');
    p.out
}

/// Prints one data declaration.
pub fn data_to_string(program: &Program, id: crate::core::term::DataId) -> String {
    let d = program.data(id);
    let mut p = Printer::new(program, &Term::Universe(0));
    for b in &d.params {
        p.also_print(&b.ty);
    }
    for c in &d.ctors {
        for f in &c.fields {
            p.also_print(f);
        }
    }
    let keyword = match (d.interface, d.record) {
        (true, _) => "interface",
        (false, true) => "record",
        _ => "data",
    };
    let _ = write!(p.out, "{keyword} {}", d.name);
    for b in &d.params {
        p.out.push(' ');
        let name = p.fresh(&b.name, true);
        p.binder_group(&name, b);
        p.names.push(name);
    }
    if d.record && d.ctors.len() == 1 {
        // `record R = { f : T, ... }`; `interface I (a : Type) where` with a method per
        // line. Later fields may name earlier ones.
        let c = &d.ctors[0];
        if d.interface && !c.fields.is_empty() {
            p.out.push_str(" where");
        } else if !d.interface {
            p.out.push_str(" = {");
        }
        for (i, (f, name)) in c.fields.iter().zip(&c.field_names).enumerate() {
            if d.interface {
                p.out.push_str("\n  ");
            } else {
                p.out.push_str(if i == 0 { " " } else { ", " });
            }
            let _ = write!(p.out, "{name} : ");
            p.term(f, LOW);
            p.names.push(name.to_string());
        }
        if !d.interface {
            p.out.push_str(if c.fields.is_empty() { "}" } else { " }" });
        }
        p.out.push('\n');
        return p.out;
    }
    for (i, c) in d.ctors.iter().enumerate() {
        p.out.push_str(if i == 0 { " = " } else { " | " });
        p.out.push_str(&c.name);
        for f in &c.fields {
            p.out.push(' ');
            p.term(f, ATOM);
            p.names.push("_".to_string());
        }
        for _ in &c.fields {
            p.names.pop();
        }
    }
    p.out.push('\n');
    p.out
}

/// The display names of the binders in scope, innermost last, with how often each
/// occurs, so that a name is looked up in constant time (a state read back from the
/// machine can be a chain of a million `let`s).
#[derive(Default)]
struct Names {
    stack: Vec<String>,
    count: HashMap<String, u32>,
    /// For each base name, the suffix [`Printer::fresh`] gave it last.
    last_suffix: HashMap<String, u32>,
}

impl Names {
    fn push(&mut self, name: String) {
        *self.count.entry(name.clone()).or_default() += 1;
        self.stack.push(name);
    }

    fn pop(&mut self) {
        if let Some(name) = self.stack.pop()
            && let Some(n) = self.count.get_mut(&name)
        {
            *n -= 1;
            if *n == 0 {
                self.count.remove(&name);
            }
        }
    }

    fn len(&self) -> usize {
        self.stack.len()
    }

    fn get(&self, i: usize) -> Option<&String> {
        self.stack.get(i)
    }

    fn contains(&self, name: &str) -> bool {
        self.count.contains_key(name)
    }
}

struct Printer<'p> {
    program: &'p Program,
    builtins: Builtins,
    /// Display names of the binders in scope.
    names: Names,
    /// Global names the printed term mentions: no local may take one of them.
    avoid: HashSet<String>,
    /// Which binders of the printed terms their bodies refer to.
    uses: Uses,
    out: String,
    indent: usize,
    /// For a message: the length past which the rest is cut.
    limit: Option<usize>,
    /// For a person to read: `Pair A B` applied types written as `(A, B)`.
    tuple_types: bool,
    /// The unknowns (metavariables) printed so far, in order of first appearance:
    /// the `k`th is shown as [`unknown_name`]`(k)`.
    unknowns: Vec<u32>,
}

/// How a message shows the `k`th distinct unknown it mentions (from 0): `_t`, `_t2`,
/// `_t3`... A name, not `_`: an unknown the checker could not find is not the `_` a
/// user writes, and two unknowns in one message are told apart.
pub fn unknown_name(k: usize) -> String {
    if k == 0 {
        "_t".to_string()
    } else {
        format!("_t{}", k + 1)
    }
}

/// [`term_to_string_cut`], naming the unknowns the term mentions after those already
/// in `unknowns` (which it extends), so that the types of one message share names.
pub fn term_to_string_cut_unknowns(
    program: &Program,
    locals: &[&str],
    term: &Term,
    max: usize,
    unknowns: &mut Vec<u32>,
) -> String {
    let budget = max.saturating_mul(64).max(4096);
    let mut p = Printer::with_budget(program, term, budget);
    p.limit = Some(max);
    p.tuple_types = true;
    p.unknowns = std::mem::take(unknowns);
    for l in locals {
        p.names.push(l.to_string());
    }
    p.term(term, LOW);
    *unknowns = std::mem::take(&mut p.unknowns);
    let mut out = p.out;
    if out.len() > max {
        let mut cut = max;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    out
}

impl<'p> Printer<'p> {
    /// Writes the name of the unknown `id`.
    fn unknown(&mut self, id: u32) {
        let k = match self.unknowns.iter().position(|u| *u == id) {
            Some(k) => k,
            None => {
                self.unknowns.push(id);
                self.unknowns.len() - 1
            }
        };
        self.out.push_str(&unknown_name(k));
    }

    fn new(program: &'p Program, term: &Term) -> Printer<'p> {
        Printer::with_budget(program, term, usize::MAX)
    }

    /// A printer whose analyses of the term (the globals it names, the binders it
    /// uses) stop after `budget` nodes; past it, every binder counts as used.
    fn with_budget(program: &'p Program, term: &Term, budget: usize) -> Printer<'p> {
        let mut p = Printer {
            program,
            builtins: program.builtins,
            names: Names::default(),
            avoid: HashSet::new(),
            uses: Uses {
                used: HashSet::new(),
                complete: true,
                budget,
            },
            out: String::new(),
            indent: 0,
            limit: None,
            tuple_types: false,
            unknowns: Vec::new(),
        };
        p.also_print(term);
        p
    }

    /// Analyses another term this printer will print (a definition's body after its
    /// type).
    fn also_print(&mut self, term: &Term) {
        global_names(self.program, term, &mut self.avoid, &mut self.uses.budget);
        self.uses.analyse(term);
    }

    /// Whether the binder `key` is referred to (always true once the analysis stopped
    /// early: a name is then shown, which is never wrong).
    fn is_used(&self, key: BinderKey) -> bool {
        !self.uses.complete || self.uses.used.contains(&key)
    }

    /// A display name for a binder named `name` in the source; `used` says whether the
    /// body refers to it (an unreferenced binder may stay `_`).
    ///
    /// The name is `name` itself when that is free, otherwise `name` with the smallest
    /// numeric suffix that is free. Binders nest, so when the suffix given last is
    /// still in scope every smaller one is too, and the search starts after it: a
    /// chain of `n` binders of one name costs `O(n)`, not `O(n²)`.
    fn fresh(&mut self, name: &str, used: bool) -> String {
        let base = if name == "_" || name.is_empty() {
            if !used {
                return "_".to_string();
            }
            "x"
        } else {
            name
        };
        let taken = |p: &Self, n: &str| p.names.contains(n) || p.avoid.contains(n);
        if !taken(self, base) {
            return base.to_string();
        }
        let last = self.names.last_suffix.get(base).copied().unwrap_or(0);
        let mut i = if last > 0 && taken(self, &format!("{base}{last}")) {
            last + 1
        } else {
            1
        };
        while taken(self, &format!("{base}{i}")) {
            i += 1;
        }
        self.names.last_suffix.insert(base.to_string(), i);
        format!("{base}{i}")
    }

    fn term(&mut self, t: &Term, prec: u8) {
        if let Some(limit) = self.limit
            && self.out.len() > limit
        {
            // Past the limit: the caller cuts the text here, so stop walking.
            return;
        }
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.term_inner(t, prec));
    }

    fn open(&mut self, level: u8, prec: u8) -> bool {
        let paren = level < prec;
        if paren {
            self.out.push('(');
        }
        paren
    }

    fn close(&mut self, paren: bool) {
        if paren {
            self.out.push(')');
        }
    }

    fn term_inner(&mut self, t: &Term, prec: u8) {
        match t {
            Term::Var(ix) => {
                let name = self
                    .names
                    .len()
                    .checked_sub(ix.0 as usize + 1)
                    .and_then(|i| self.names.get(i))
                    .cloned()
                    .unwrap_or_else(|| format!("free#{}", ix.0));
                self.out.push_str(&name);
            }
            Term::Def(id) => self.out.push_str(&self.program.def(*id).name),
            Term::Data(id) => self.out.push_str(&self.program.data(*id).name),
            Term::Con(id) => self.con_name(*id),
            Term::Extern(id, _) => self.out.push_str(&self.program.external(*id).name),
            Term::Prim(p, _) => self.out.push_str(p.name()),
            Term::PrimType(p) => self.out.push_str(p.name()),
            Term::Lit(l) => self.lit(l, prec),
            Term::Universe(0) => self.out.push_str("Type"),
            Term::Universe(n) => {
                let paren = self.open(APP, prec);
                let _ = write!(self.out, "Type {n}");
                self.close(paren);
            }
            Term::Hole(HoleKind::Infer, _) => self.out.push('_'),
            // An unsolved metavariable shows as `_t` in messages: "expected `List _t`".
            Term::Hole(HoleKind::Meta(id) | HoleKind::MetaCtx(id, ..), _) => self.unknown(*id),
            Term::Hole(HoleKind::Goal(name), _) => {
                self.out.push('?');
                if let Some(n) = name {
                    self.out.push_str(n);
                }
            }
            Term::Pi(b, cod) => {
                let paren = self.open(LOW, prec);
                let used = self.is_used(binder_key(t, 0, 0));
                if b.plicity == Plicity::Explicit && !used {
                    self.term(&b.ty, OR);
                    self.out.push_str(" -> ");
                    self.names.push("_".to_string());
                } else {
                    let name = self.fresh(&b.name, true);
                    let (l, r) = brackets(b.plicity);
                    let _ = write!(self.out, "{l}{name} : ");
                    self.term(&b.ty, LOW);
                    let _ = write!(self.out, "{r} -> ");
                    self.names.push(name);
                }
                self.term(cod, LOW);
                self.names.pop();
                self.close(paren);
            }
            Term::Lam(..) => {
                let paren = self.open(LOW, prec);
                self.out.push('\\');
                let mut body = t;
                let mut count = 0;
                while let Term::Lam(b, inner) = body {
                    if count > 0 {
                        self.out.push(' ');
                    }
                    let used = b.name.as_ref() != "_" || self.is_used(binder_key(body, 0, 0));
                    let name = self.fresh(&b.name, used);
                    self.binder_group(&name, b);
                    self.names.push(name);
                    count += 1;
                    body = inner;
                }
                self.out.push_str(" -> ");
                self.term(body, LOW);
                for _ in 0..count {
                    self.names.pop();
                }
                self.close(paren);
            }
            Term::Let(b, rhs, body) => {
                let paren = self.open(LOW, prec);
                let used = b.name.as_ref() != "_" || self.is_used(binder_key(t, 0, 0));
                let name = self.fresh(&b.name, used);
                let _ = write!(self.out, "let {name}");
                if !matches!(&*b.ty, Term::Hole(HoleKind::Infer, _)) {
                    self.out.push_str(" : ");
                    self.term(&b.ty, LOW);
                }
                self.out.push_str(" = ");
                self.names.push(name);
                self.term(rhs, OR);
                self.out.push_str(" in ");
                self.term(body, LOW);
                self.names.pop();
                self.close(paren);
            }
            Term::App(..) => self.app(t, prec),
            Term::Ann(e, ty) => {
                self.out.push('(');
                self.term(e, OR);
                self.out.push_str(" : ");
                self.term(ty, LOW);
                self.out.push(')');
            }
            Term::Match(m) => self.match_(m, prec),
        }
    }

    /// `x`, `(x : A)` or `{x : A}` / `{x}` for a lambda or data parameter.
    fn binder_group(&mut self, name: &str, b: &Binder) {
        let untyped = matches!(&*b.ty, Term::Hole(HoleKind::Infer, _));
        match (b.plicity, untyped) {
            (Plicity::Explicit, true) => self.out.push_str(name),
            (Plicity::Implicit, true) => {
                let _ = write!(self.out, "{{{name}}}");
            }
            (plicity, false) => {
                let (l, r) = brackets(plicity);
                let _ = write!(self.out, "{l}{name} : ");
                self.term(&b.ty, LOW);
                self.out.push_str(r);
            }
        }
    }

    fn con_name(&mut self, id: ConId) {
        if id == self.builtins.unit_con {
            self.out.push_str("()");
        } else if id == self.builtins.nil {
            self.out.push_str("[]");
        } else {
            self.out.push_str(&self.program.con(id).name);
        }
    }

    fn lit(&mut self, l: &Lit, prec: u8) {
        match l {
            Lit::Int(n) if *n < 0 => {
                let paren = self.open(APP, prec);
                let _ = write!(self.out, "{n}");
                self.close(paren);
            }
            Lit::Int(n) => {
                let _ = write!(self.out, "{n}");
            }
            Lit::Float(x) => {
                let text = float_literal(*x);
                // Negative floats take parentheses like negative ints; NaN's form
                // already has its own.
                let paren = text.starts_with('-') && prec > APP;
                if paren {
                    self.out.push('(');
                }
                self.out.push_str(&text);
                self.close(paren);
            }
            Lit::Str(s) => quote_into(&mut self.out, s),
            Lit::Char(c) => char_quote_into(&mut self.out, *c),
        }
    }

    fn app(&mut self, t: &Term, prec: u8) {
        let mut args = Vec::new();
        let mut head = t;
        while let Term::App(f, p, a) = head {
            args.push((*p, &**a));
            head = f;
        }
        args.reverse();
        if let Term::Hole(HoleKind::Meta(id), _) = head {
            // An unknown applied to the variables it may use: shown as just `_t`.
            self.unknown(*id);
            return;
        }
        let explicit = args.iter().all(|(p, _)| *p == Plicity::Explicit);
        if self.tuple_types && pair_type_parts(t, self.builtins.pair).is_some() {
            // `Pair A (Pair B C)` as `(A, B, C)`: already bracketed, so an atom.
            let pair = self.builtins.pair;
            self.tuple(t, &|t| pair_type_parts(t, pair));
            return;
        }
        if explicit
            && let Term::Prim(p, _) = head
            && let (Some((sym, level, lhs, rhs)), 2) = (operator(*p), args.len())
        {
            let paren = self.open(level, prec);
            self.term(args[0].1, lhs);
            let _ = write!(self.out, " {sym} ");
            self.term(args[1].1, rhs);
            self.close(paren);
            return;
        }
        if let Term::Def(d) = head
            && Some(*d) == self.builtins.append
            && let Some((a, b)) = append_operands(&args)
        {
            // What `xs ++ ys` on lists elaborates to, printed as it was written.
            let paren = self.open(CONCAT, prec);
            self.term(a, ADD);
            self.out.push_str(" ++ ");
            self.term(b, CONCAT);
            self.close(paren);
            return;
        }
        if let Term::Con(c) = head {
            if *c == self.builtins.cons && self.list_literal(t) {
                return;
            }
            if *c == self.builtins.mk_pair && pair_parts(t, self.builtins.mk_pair).is_some() {
                let mk_pair = self.builtins.mk_pair;
                self.tuple(t, &|t| pair_parts(t, mk_pair));
                return;
            }
            if self.record_literal(*c, &args) {
                return;
            }
            // Applied to arguments, a constructor is named even where it has sugar
            // (`Nil {Int}`, not `[] {Int}`).
            let paren = self.open(APP, prec);
            self.out.push_str(&self.program.con(*c).name);
            self.args(&args);
            self.close(paren);
            return;
        }
        let paren = self.open(APP, prec);
        self.term(head, APP);
        self.args(&args);
        self.close(paren);
    }

    /// A record's constructor applied to its parameters and every field, as
    /// `({ f = a, g = b } : R P)` (annotated, so that no other record with these fields
    /// can be meant); false, printing nothing, for anything else.
    fn record_literal(&mut self, c: ConId, args: &[(Plicity, &Term)]) -> bool {
        let data = self.program.data(c.data);
        let names = &self.program.con(c).field_names;
        let params = args
            .iter()
            .take_while(|(p, _)| *p == Plicity::Implicit)
            .count();
        if !data.record || params != data.params.len() || args.len() != params + names.len() {
            return false;
        }
        let name = data.name.clone();
        self.out.push_str("({");
        for (i, (f, (_, a))) in names.iter().zip(&args[params..]).enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            let _ = write!(self.out, "{f} = ");
            self.term(a, LOW);
        }
        self.out
            .push_str(if names.is_empty() { "} : " } else { " } : " });
        self.out.push_str(&name);
        for (_, a) in &args[..params] {
            self.out.push(' ');
            self.term(a, ATOM);
        }
        self.out.push(')');
        true
    }

    /// `(a, b, c)`: a chain of pairs (of values or of types, as `parts` splits them)
    /// printed flat, in a loop.
    fn tuple<'t>(&mut self, t: &'t Term, parts: &dyn Fn(&'t Term) -> Option<(&'t Term, &'t Term)>) {
        let Some((first, mut rest)) = parts(t) else {
            return;
        };
        self.out.push('(');
        self.term(first, LOW);
        loop {
            self.out.push_str(", ");
            match parts(rest) {
                Some((a, b)) => {
                    self.term(a, LOW);
                    rest = b;
                }
                None => {
                    self.term(rest, LOW);
                    break;
                }
            }
        }
        self.out.push(')');
    }

    /// ` a {b} c`: arguments after a head.
    fn args(&mut self, args: &[(Plicity, &Term)]) {
        for (p, a) in args.iter().copied() {
            match p {
                Plicity::Explicit => {
                    self.out.push(' ');
                    self.term(a, ATOM);
                }
                Plicity::Implicit => {
                    self.out.push_str(" {");
                    self.term(a, LOW);
                    self.out.push('}');
                }
            }
        }
    }

    /// Prints a `Cons` chain ending in `Nil` as `[a, b, c]`; returns false (printing
    /// nothing) if the chain ends otherwise or its element types (implicit arguments,
    /// after checking) differ, since the literal could then not mean the same term.
    /// Walks the chain in a loop.
    fn list_literal(&mut self, t: &Term) -> bool {
        let mut items = Vec::new();
        let mut types: Vec<Option<&Term>> = Vec::new();
        let mut rest = t;
        while let Some((ty, x, xs)) = cons_parts(rest, self.builtins.cons) {
            types.push(ty);
            items.push(x);
            rest = xs;
        }
        match rest {
            Term::Con(c) if *c == self.builtins.nil => types.push(None),
            Term::App(f, Plicity::Implicit, ty) if matches!(&**f, Term::Con(c) if *c == self.builtins.nil) =>
            {
                types.push(Some(&**ty));
            }
            _ => return false,
        }
        let uniform = types.windows(2).all(|w| match (w[0], w[1]) {
            (None, None) => true,
            (Some(a), Some(b)) => crate::core::equiv::alpha_eq(a, b),
            _ => false,
        });
        if !uniform {
            return false;
        }
        self.out.push('[');
        for (i, x) in items.into_iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.term(x, LOW);
        }
        self.out.push(']');
        true
    }

    fn match_(&mut self, m: &Match, prec: u8) {
        let b = self.builtins;
        if let ([t, f], None) = (m.arms.as_slice(), &m.default)
            && let (CasePat::Con(tc, tf), CasePat::Con(fc, ff)) = (&t.pat, &f.pat)
            && *tc == b.true_
            && *fc == b.false_
            && tf.is_empty()
            && ff.is_empty()
        {
            let paren = self.open(LOW, prec);
            self.out.push_str("if ");
            self.term(&m.scrut, OR);
            self.out.push_str(" then ");
            self.term(&t.body, OR);
            self.out.push_str(" else ");
            self.term(&f.body, LOW);
            self.close(paren);
            return;
        }
        // A match without arms is always parenthesised: after `with`, the end of the
        // input (or of a declaration) would read as a missing arm.
        if m.arms.is_empty() && m.default.is_none() {
            self.out.push_str("(match ");
            self.term(&m.scrut, OR);
            self.out.push_str(" with)");
            return;
        }
        // A match is always parenthesised unless it stands where nothing can follow it,
        // because its arms extend as far right as possible.
        let paren = self.open(LOW, prec);
        self.out.push_str("match ");
        self.term(&m.scrut, OR);
        self.out.push_str(" with");
        self.indent += 2;
        let total = m.arms.len() + usize::from(m.default.is_some());
        for (i, arm) in m.arms.iter().enumerate() {
            self.newline();
            self.out.push_str("| ");
            let pushed = match &arm.pat {
                CasePat::Con(c, fields) => {
                    let record = self.program.data(c.data).record;
                    let labels = self.program.con(*c).field_names.clone();
                    if record {
                        self.out.push('{');
                    } else {
                        self.out.push_str(&self.program.con(*c).name);
                    }
                    let n = fields.len();
                    for (k, f) in fields.iter().enumerate() {
                        let key = binder_key(m, i as u32, k as u32);
                        let used = f.name.as_ref() != "_" || self.is_used(key);
                        let name = self.fresh(&f.name, used);
                        match labels.get(k) {
                            Some(label) if record => {
                                self.out.push_str(if k == 0 { " " } else { ", " });
                                let _ = write!(self.out, "{label} = {name}");
                            }
                            _ => {
                                self.out.push(' ');
                                self.out.push_str(&name);
                            }
                        }
                        self.names.push(name);
                    }
                    if record {
                        self.out.push_str(if n == 0 { "}" } else { " }" });
                    }
                    n
                }
                CasePat::Lit(l) => {
                    self.lit(l, LOW);
                    0
                }
            };
            self.out.push_str(" -> ");
            self.term(&arm.body, if i + 1 < total { OR } else { LOW });
            for _ in 0..pushed {
                self.names.pop();
            }
        }
        if let Some((binder, body)) = &m.default {
            self.newline();
            let used = binder.name.as_ref() != "_" || self.is_used(binder_key(m, u32::MAX, 0));
            let name = self.fresh(&binder.name, used);
            let _ = write!(self.out, "| {name} -> ");
            self.names.push(name);
            self.term(body, LOW);
            self.names.pop();
        }
        self.indent -= 2;
        self.close(paren);
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push(' ');
        }
    }
}

/// `(` `)` or `{` `}`.
fn brackets(p: Plicity) -> (&'static str, &'static str) {
    match p {
        Plicity::Explicit => ("(", ")"),
        Plicity::Implicit => ("{", "}"),
    }
}

/// The infix operator a primitive is written as in source, if any (`+` for `prim_add`).
pub fn operator_symbol(p: Prim) -> Option<&'static str> {
    operator(p).map(|(symbol, ..)| symbol)
}

/// The infix form of an operator primitive: symbol, level, and the levels its left and
/// right operands need (which encode associativity).
fn operator(p: Prim) -> Option<(&'static str, u8, u8, u8)> {
    Some(match p {
        Prim::Eq => ("==", CMP, CONCAT, CONCAT),
        Prim::Ne => ("!=", CMP, CONCAT, CONCAT),
        Prim::Lt => ("<", CMP, CONCAT, CONCAT),
        Prim::Le => ("<=", CMP, CONCAT, CONCAT),
        Prim::Gt => (">", CMP, CONCAT, CONCAT),
        Prim::Ge => (">=", CMP, CONCAT, CONCAT),
        Prim::Concat => ("++", CONCAT, ADD, CONCAT),
        Prim::Add => ("+", ADD, ADD, MUL),
        Prim::Sub => ("-", ADD, ADD, MUL),
        Prim::Mul => ("*", MUL, MUL, APP),
        Prim::Div => ("/", MUL, MUL, APP),
        Prim::Rem => ("%", MUL, MUL, APP),
        _ => return None,
    })
}

/// `(xs, ys)` if the arguments of `append` are `{A} xs ys` or `xs ys`: `xs ++ ys`.
fn append_operands<'t>(args: &[(Plicity, &'t Term)]) -> Option<(&'t Term, &'t Term)> {
    match args {
        [
            (Plicity::Implicit, _),
            (Plicity::Explicit, a),
            (Plicity::Explicit, b),
        ]
        | [(Plicity::Explicit, a), (Plicity::Explicit, b)] => Some((a, b)),
        _ => None,
    }
}

/// `(element type, x, xs)` if `t` is `Cons x xs` or `Cons {A} x xs`.
fn cons_parts(t: &Term, cons: ConId) -> Option<(Option<&Term>, &Term, &Term)> {
    let (implicit, x, xs) = con_two_args(t, cons)?;
    match implicit.as_slice() {
        [] => Some((None, x, xs)),
        [ty] => Some((Some(*ty), x, xs)),
        _ => None,
    }
}

/// `(a, b)` if `t` is `MkPair a b`, with or without its two implicit type arguments.
fn pair_parts(t: &Term, pair: ConId) -> Option<(&Term, &Term)> {
    let (implicit, a, b) = con_two_args(t, pair)?;
    matches!(implicit.len(), 0 | 2).then_some((a, b))
}

/// `(A, B)` if `t` is the type `Pair A B` (the data type fully applied).
fn pair_type_parts(t: &Term, pair: crate::core::term::DataId) -> Option<(&Term, &Term)> {
    let Term::App(f, Plicity::Explicit, b) = t else {
        return None;
    };
    let Term::App(head, Plicity::Explicit, a) = &**f else {
        return None;
    };
    matches!(&**head, Term::Data(d) if *d == pair).then_some((&**a, &**b))
}

/// The implicit arguments and the two explicit arguments of `con {..} a b`.
fn con_two_args(t: &Term, con: ConId) -> Option<(Vec<&Term>, &Term, &Term)> {
    let Term::App(f, Plicity::Explicit, b) = t else {
        return None;
    };
    let Term::App(inner, Plicity::Explicit, a) = &**f else {
        return None;
    };
    let mut head: &Term = inner;
    let mut implicit = Vec::new();
    while let Term::App(g, Plicity::Implicit, ty) = head {
        implicit.push(&**ty);
        head = g;
    }
    implicit.reverse();
    matches!(head, Term::Con(k) if *k == con).then_some((implicit, &**a, &**b))
}

/// A float literal that reads back as the same number (section 9's shortest form, with
/// infinities written as overflowing literals).
pub fn float_literal(x: f64) -> String {
    if x.is_nan() {
        "(0.0 / 0.0)".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "1e999" } else { "-1e999" }.to_string()
    } else {
        let s = format!("{x:?}");
        if s.contains(['.', 'e', 'E']) {
            s
        } else {
            format!("{s}.0")
        }
    }
}

/// Appends `s` as a quoted string literal, escaping as LANGUAGE.md section 9 says.
pub fn quote_into(out: &mut String, s: &str) {
    out.push('"');
    escape_into(out, s);
    out.push('"');
}

/// Appends `c` as a character literal (`'a'`, `'\n'`, `'\''`): escaped like a
/// string literal's characters, except that `'` is escaped and `"` is not.
pub fn char_quote_into(out: &mut String, c: char) {
    out.push('\'');
    match c {
        '\'' => out.push_str("\\'"),
        '"' => out.push('"'),
        c => escape_char(out, c),
    }
    out.push('\'');
}

/// `c` as `spindle run` prints a `Char`: [`char_quote_into`] in a new string.
pub fn char_literal(c: char) -> String {
    let mut s = String::with_capacity(4);
    char_quote_into(&mut s, c);
    s
}

/// The characters of a string as they appear between the quotes of a string literal
/// (a streamed string inside a printed value is written piece by piece this way).
pub fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        escape_char(out, c);
    }
}

/// One character as it appears inside a string literal.
fn escape_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c if c.is_control() => {
            let _ = write!(out, "\\u{{{:X}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// A binder of a printed term: the node that binds it (a `Pi`, a lambda, a `let`, or
/// a `match`), and for a match the arm (`u32::MAX` for the default) and the field.
type BinderKey = (*const (), u32, u32);

fn binder_key<T>(node: &T, arm: u32, field: u32) -> BinderKey {
    (node as *const T as *const (), arm, field)
}

/// Which binders the printed terms refer to, found in one pass over each term before
/// printing (asking at every binder whether its body mentions it would cost the square
/// of a deep term's size).
struct Uses {
    used: HashSet<BinderKey>,
    /// False once the analysis stopped early for lack of budget.
    complete: bool,
    /// Nodes the analyses may still visit.
    budget: usize,
}

/// One step of [`Uses::analyse`].
enum UseStep<'t> {
    Visit(&'t Term),
    Bind(BinderKey),
    Unbind(usize),
}

impl Uses {
    /// Marks every binder of `t` that a variable of `t` refers to.
    fn analyse(&mut self, t: &Term) {
        // The binders around the current node, innermost last; the term's own free
        // variables are not in it.
        let mut scope: Vec<BinderKey> = Vec::new();
        let mut steps = vec![UseStep::Visit(t)];
        while let Some(step) = steps.pop() {
            let t = match step {
                UseStep::Visit(t) => t,
                UseStep::Bind(key) => {
                    scope.push(key);
                    continue;
                }
                UseStep::Unbind(n) => {
                    scope.truncate(scope.len().saturating_sub(n));
                    continue;
                }
            };
            if self.budget == 0 {
                self.complete = false;
                return;
            }
            self.budget -= 1;
            match t {
                Term::Var(ix) => {
                    if let Some(j) = scope.len().checked_sub(ix.0 as usize + 1) {
                        self.used.insert(scope[j]);
                    }
                }
                Term::Pi(b, body) | Term::Lam(b, body) => {
                    steps.push(UseStep::Unbind(1));
                    steps.push(UseStep::Visit(body));
                    steps.push(UseStep::Bind(binder_key(t, 0, 0)));
                    steps.push(UseStep::Visit(&b.ty));
                }
                Term::Let(b, rhs, body) => {
                    steps.push(UseStep::Unbind(1));
                    steps.push(UseStep::Visit(body));
                    steps.push(UseStep::Visit(rhs));
                    steps.push(UseStep::Bind(binder_key(t, 0, 0)));
                    steps.push(UseStep::Visit(&b.ty));
                }
                Term::App(f, _, a) => {
                    steps.push(UseStep::Visit(a));
                    steps.push(UseStep::Visit(f));
                }
                Term::Ann(e, ty) => {
                    steps.push(UseStep::Visit(ty));
                    steps.push(UseStep::Visit(e));
                }
                Term::Match(m) => {
                    let m: &Match = m;
                    if let Some((b, body)) = &m.default {
                        steps.push(UseStep::Unbind(1));
                        steps.push(UseStep::Visit(body));
                        steps.push(UseStep::Bind(binder_key(m, u32::MAX, 0)));
                        steps.push(UseStep::Visit(&b.ty));
                    }
                    for (i, arm) in m.arms.iter().enumerate().rev() {
                        let fields: &[Binder] = match &arm.pat {
                            CasePat::Con(_, fields) => fields,
                            CasePat::Lit(_) => &[],
                        };
                        steps.push(UseStep::Unbind(fields.len()));
                        steps.push(UseStep::Visit(&arm.body));
                        for (k, f) in fields.iter().enumerate().rev() {
                            steps.push(UseStep::Bind(binder_key(m, i as u32, k as u32)));
                            steps.push(UseStep::Visit(&f.ty));
                        }
                    }
                    steps.push(UseStep::Visit(&m.scrut));
                }
                Term::Def(_)
                | Term::Data(_)
                | Term::Con(_)
                | Term::Extern(..)
                | Term::Prim(..)
                | Term::PrimType(_)
                | Term::Lit(_)
                | Term::Universe(_)
                | Term::Hole(..) => {}
            }
        }
    }
}

/// Adds the names of every global a term mentions to `out` (so locals can avoid them),
/// visiting each node once and at most `budget` nodes.
fn global_names(program: &Program, t: &Term, out: &mut HashSet<String>, budget: &mut usize) {
    let mut seen: HashSet<*const Term> = HashSet::new();
    let mut work: Vec<&Term> = vec![t];
    while let Some(t) = work.pop() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = match t {
            Term::Def(id) => Some(&program.def(*id).name),
            Term::Data(id) => Some(&program.data(*id).name),
            Term::Con(id) => Some(&program.con(*id).name),
            Term::Extern(id, _) => Some(&program.external(*id).name),
            Term::Prim(p, _) => {
                out.insert(p.name().to_string());
                None
            }
            Term::PrimType(p) => {
                out.insert(p.name().to_string());
                None
            }
            Term::Match(m) => {
                for arm in &m.arms {
                    if let CasePat::Con(c, _) = &arm.pat {
                        out.insert(program.con(*c).name.to_string());
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(n) = name
            && !out.contains(&**n)
        {
            out.insert(n.to_string());
        }
        t.for_each_child(|child, _| {
            if std::rc::Rc::strong_count(child) == 1 || seen.insert(std::rc::Rc::as_ptr(child)) {
                work.push(child);
            }
        });
    }
}

/// Prints every declaration that came from `file` (data types, externals, definitions,
/// each in table order so that reloading the text gives the same ids), as a source file.
pub fn file_to_string(program: &Program, file: crate::syntax::span::FileId) -> String {
    // In source order, so that loading the text gives the same tables (a `deriving`
    // clause's and an interface's definitions come right after their type).
    enum Item {
        Data(usize),
        Extern(usize),
        Def(usize),
    }
    let mut items: Vec<(u32, Item)> = Vec::new();
    for (i, d) in program.datas.iter().enumerate() {
        if d.span.file == file {
            items.push((d.span.start, Item::Data(i)));
        }
    }
    for (i, e) in program.externs.iter().enumerate() {
        if e.span.file == file {
            items.push((e.span.start, Item::Extern(i)));
        }
    }
    for (i, d) in program.defs.iter().enumerate() {
        // An interface's methods are declared by the interface.
        if d.span.file == file && d.role != crate::syntax::ast::DefRole::Method {
            items.push((d.span.start, Item::Def(i)));
        }
    }
    items.sort_by_key(|(start, _)| *start);
    let mut out = String::new();
    for (_, item) in items {
        match item {
            Item::Data(i) => {
                out.push_str(&data_to_string(
                    program,
                    crate::core::term::DataId(i as u32),
                ));
                out.push('\n');
            }
            Item::Extern(i) => {
                let e = &program.externs[i];
                let mut p = Printer::new(program, &e.ty);
                let _ = write!(p.out, "extern {} : ", e.name);
                p.term(&e.ty, LOW);
                out.push_str(&p.out);
                out.push_str("\n\n");
            }
            Item::Def(i) => {
                out.push_str(&def_to_string(program, crate::core::term::DefId(i as u32)));
                out.push('\n');
            }
        }
    }
    out
}

/// Prints the declarations of `program` from `from` on (data types, externals,
/// definitions, each in table order) as one source file. With `from` the prelude's
/// counts, loading the text gives back the same tables, provided no two printed
/// declarations share a name and none hides a global the printed terms refer to
/// (`proto::source` renames to make it so).
pub fn program_to_string(program: &Program, from: crate::core::program::DeclCounts) -> String {
    let mut out = String::new();
    for i in from.datas..program.datas.len() {
        out.push_str(&data_to_string(
            program,
            crate::core::term::DataId(i as u32),
        ));
        out.push('\n');
    }
    for e in program.externs.iter().skip(from.externs) {
        let mut p = Printer::new(program, &e.ty);
        let _ = write!(p.out, "extern {} : ", e.name);
        p.term(&e.ty, LOW);
        out.push_str(&p.out);
        out.push_str("\n\n");
    }
    for i in from.defs..program.defs.len() {
        if program.defs[i].role == crate::syntax::ast::DefRole::Method {
            continue;
        }
        out.push_str(&def_to_string(program, crate::core::term::DefId(i as u32)));
        out.push('\n');
    }
    out
}
