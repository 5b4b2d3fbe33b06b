//! Protobuf bytes and messages back to core terms and programs, checking everything.
//!
//! The input is untrusted. Every way it can be wrong is a [`DecodeError`], never a panic:
//! malformed or truncated bytes (prost's decoder, which also checks every declared length
//! against the bytes actually there before allocating), unknown format versions and enum
//! values, missing parts, references past the end of a table, de Bruijn indices past the
//! binders in scope, terms whose nodes end early or run on, names that would not print as
//! the identifiers they stand for, externals the host lacks. A term is rebuilt from its
//! preorder nodes with an explicit stack, checked against [`MAX_TERM_DEPTH`], so no input
//! can exhaust the native stack; memory stays within a constant factor of the input's
//! size, which [`MAX_ENCODED_BYTES`] bounds.

use super::error::{DecodeError, Problem};
use super::{FORMAT_VERSION, MAX_ENCODED_BYTES, MAX_TERM_DEPTH, NO_SPAN, pb};
use crate::core::program::{
    Builtins, CtorDecl, DataDecl, DeclCounts, DefDecl, ExternDecl, Program,
};
use crate::core::term::{
    Binder, CaseArm, CasePat, ConId, DataId, DefId, ExternId, HoleKind, Ix, Lit, Match, Name,
    Plicity, PrimType, RcTerm, Term,
};
use crate::external;
use crate::prim::Prim;
use prost::Message;
use std::rc::Rc;

/// A decoded program and how many entries of each table are the prelude's.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The program, with [`NO_SPAN`] for every span.
    pub program: Program,
    /// The prelude's share of each table (a prefix of each).
    pub prelude: DeclCounts,
}

/// What a term may refer to: the sizes of the program's tables and the number of local
/// binders around it.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// How many definitions there are.
    pub defs: usize,
    /// For each data type, the field count of each of its constructors.
    pub ctors: Vec<Vec<usize>>,
    /// How many externals there are.
    pub externs: usize,
    /// How many local binders enclose the term (its free variables).
    pub locals: usize,
}

impl Scope {
    /// The scope of a closed term of `program`.
    pub fn of_program(program: &Program) -> Scope {
        Scope {
            defs: program.defs.len(),
            ctors: program
                .datas
                .iter()
                .map(|d| d.ctors.iter().map(|c| c.fields.len()).collect())
                .collect(),
            externs: program.externs.len(),
            locals: 0,
        }
    }
}

/// Decodes a program from bytes (at most [`MAX_ENCODED_BYTES`] of them).
pub fn program_bytes(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    program_bytes_within(bytes, MAX_ENCODED_BYTES)
}

/// Decodes a program from at most `limit` bytes (a stored evaluation state may be
/// larger than a program: [`MAX_STATE_BYTES`](super::MAX_STATE_BYTES)).
pub fn program_bytes_within(bytes: &[u8], limit: usize) -> Result<Decoded, DecodeError> {
    check_size(bytes, limit)?;
    let msg = pb::Program::decode(bytes).map_err(malformed)?;
    program(&msg)
}

/// Decodes a term from bytes (a `Term` message), in `scope`.
pub fn term_bytes(bytes: &[u8], scope: &Scope) -> Result<RcTerm, DecodeError> {
    check_size(bytes, MAX_ENCODED_BYTES)?;
    let msg = pb::Term::decode(bytes).map_err(malformed)?;
    term(&msg, scope)
}

fn check_size(bytes: &[u8], limit: usize) -> Result<(), DecodeError> {
    if bytes.len() > limit {
        return Err(DecodeError::new(Problem::TooLarge {
            bytes: bytes.len(),
            limit,
        }));
    }
    Ok(())
}

fn malformed(e: prost::DecodeError) -> DecodeError {
    DecodeError::new(Problem::Malformed(e.to_string()))
}

/// Decodes and checks a program message.
pub fn program(msg: &pb::Program) -> Result<Decoded, DecodeError> {
    if msg.format_version != FORMAT_VERSION {
        return Err(DecodeError::new(Problem::UnsupportedVersion {
            found: msg.format_version,
        }));
    }
    let scope = Scope {
        defs: msg.defs.len(),
        ctors: msg
            .datas
            .iter()
            .map(|d| d.ctors.iter().map(|c| c.fields.len()).collect())
            .collect(),
        externs: msg.externs.len(),
        locals: 0,
    };

    let prelude = match &msg.prelude {
        Some(p) => DeclCounts {
            datas: p.datas as usize,
            externs: p.externs as usize,
            defs: p.defs as usize,
        },
        None => DeclCounts::default(),
    };
    for (what, count, len) in [
        ("prelude data type count", prelude.datas, msg.datas.len()),
        ("prelude external count", prelude.externs, msg.externs.len()),
        ("prelude definition count", prelude.defs, msg.defs.len()),
    ] {
        if count > len {
            return Err(DecodeError::new(Problem::OutOfRange {
                what,
                index: count as u64,
                len: len as u64,
            }));
        }
    }

    let mut datas = Vec::with_capacity(msg.datas.len());
    for (i, d) in msg.datas.iter().enumerate() {
        let place = || format!("data type {i} ({:?})", d.name);
        datas.push(data(d, &scope).map_err(|e| e.within(place()))?);
    }
    let mut externs = Vec::with_capacity(msg.externs.len());
    for (i, e) in msg.externs.iter().enumerate() {
        let place = || format!("external {i} ({:?})", e.name);
        if !external::is_known(&e.name) {
            return Err(DecodeError::at(
                place(),
                Problem::UnknownExternal(e.name.clone()),
            ));
        }
        let ty = required_term(e.ty.as_ref(), &scope, 0, "type").map_err(|x| x.within(place()))?;
        externs.push(ExternDecl {
            name: Rc::from(e.name.as_str()),
            ty,
            span: NO_SPAN,
        });
    }
    let mut defs = Vec::with_capacity(msg.defs.len());
    for (i, d) in msg.defs.iter().enumerate() {
        let place = || format!("definition {i} ({:?})", d.name);
        let name = global_name(&d.name, NameKind::Def).map_err(|e| e.within(place()))?;
        let ty = required_term(d.ty.as_ref(), &scope, 0, "type").map_err(|e| e.within(place()))?;
        let body =
            required_term(d.body.as_ref(), &scope, 0, "body").map_err(|e| e.within(place()))?;
        defs.push(DefDecl {
            name,
            ty,
            body,
            span: NO_SPAN,
            role: crate::syntax::ast::DefRole::Plain,
        });
    }
    let mut builtins = builtins(msg.builtins.as_ref(), &scope).map_err(|e| e.within("builtins"))?;
    // `append` is no field of the message: it is the prelude's definition of that name
    // (names are unique within the prelude), as loading the source finds it.
    builtins.append = defs[..prelude.defs]
        .iter()
        .position(|d| &*d.name == "append")
        .map(|i| DefId(i as u32));
    let main = match msg.main {
        None => None,
        Some(m) if (m as usize) >= msg.defs.len() => {
            return Err(DecodeError::at(
                "main",
                Problem::OutOfRange {
                    what: "definition",
                    index: m.into(),
                    len: msg.defs.len() as u64,
                },
            ));
        }
        Some(m) if (m as usize) < prelude.defs => {
            return Err(DecodeError::at("main", Problem::MainInPrelude));
        }
        Some(m) => Some(DefId(m)),
    };
    Ok(Decoded {
        program: Program {
            defs,
            datas,
            externs,
            builtins,
            main,
            run_bodies: Default::default(),
            inlined_bodies: Default::default(),
            collections: Default::default(),
        },
        prelude,
    })
}

fn data(d: &pb::DataDecl, scope: &Scope) -> Result<DataDecl, DecodeError> {
    let name = global_name(&d.name, NameKind::Data)?;
    let mut params = Vec::with_capacity(d.params.len());
    for (i, b) in d.params.iter().enumerate() {
        let place = || format!("parameter {i}");
        let (name, plicity) =
            binder_head(&b.name, b.plicity, false).map_err(|e| e.within(place()))?;
        let ty = required_term(b.ty.as_ref(), scope, i, "type").map_err(|e| e.within(place()))?;
        params.push(Binder { name, plicity, ty });
    }
    let mut ctors = Vec::with_capacity(d.ctors.len());
    for (i, c) in d.ctors.iter().enumerate() {
        let place = || format!("constructor {i} ({:?})", c.name);
        let name = global_name(&c.name, NameKind::Con).map_err(|e| e.within(place()))?;
        let mut fields = Vec::with_capacity(c.fields.len());
        for (j, f) in c.fields.iter().enumerate() {
            let t = term_in(f, scope, params.len() + j)
                .map_err(|e| e.within(format!("field {j}")).within(place()))?;
            fields.push(t);
        }
        let mut field_names = Vec::with_capacity(c.field_names.len());
        if (d.record && (d.ctors.len() != 1 || c.field_names.len() != fields.len()))
            || (!d.record && !c.field_names.is_empty())
        {
            return Err(DecodeError::new(Problem::BadName {
                what: "record field list",
                name: c.field_names.join(","),
            })
            .within(place()));
        }
        for f in &c.field_names {
            if !is_identifier(f)
                || starts_uppercase(f)
                || field_names.iter().any(|g: &Name| **g == **f)
            {
                return Err(DecodeError::new(Problem::BadName {
                    what: "record field",
                    name: f.clone(),
                })
                .within(place()));
            }
            field_names.push(Rc::from(f.as_str()));
        }
        ctors.push(CtorDecl {
            name,
            fields,
            field_names,
            span: NO_SPAN,
        });
    }
    Ok(DataDecl {
        name,
        params,
        ctors,
        interface: d.interface,
        record: d.record,
        span: NO_SPAN,
    })
}

fn required_term(
    t: Option<&pb::Term>,
    scope: &Scope,
    locals: usize,
    what: &'static str,
) -> Result<RcTerm, DecodeError> {
    let t = t.ok_or_else(|| DecodeError::at(what, Problem::Missing("term")))?;
    term_in(t, scope, locals).map_err(|e| e.within(what))
}

fn builtins(b: Option<&pb::Builtins>, scope: &Scope) -> Result<Builtins, DecodeError> {
    let b = b.ok_or_else(|| DecodeError::new(Problem::Missing("builtins")))?;
    let data = |id: u32| -> Result<DataId, DecodeError> {
        if (id as usize) < scope.ctors.len() {
            Ok(DataId(id))
        } else {
            Err(DecodeError::new(Problem::OutOfRange {
                what: "data type",
                index: id.into(),
                len: scope.ctors.len() as u64,
            }))
        }
    };
    let con = |c: Option<&pb::ConRef>, of: DataId| -> Result<ConId, DecodeError> {
        let c = c.ok_or_else(|| DecodeError::new(Problem::Missing("constructor")))?;
        let id = con_ref(c, scope.ctors.as_slice())?;
        if id.data != of {
            return Err(DecodeError::new(Problem::BadBuiltins(
                "a constructor does not belong to its type",
            )));
        }
        Ok(id)
    };
    let bool_ = data(b.bool_type)?;
    let unit = data(b.unit_type)?;
    let pair = data(b.pair_type)?;
    let list = data(b.list_type)?;
    let maybe = data(b.maybe_type)?;
    Ok(Builtins {
        bool_,
        false_: con(b.false_con.as_ref(), bool_)?,
        true_: con(b.true_con.as_ref(), bool_)?,
        unit,
        unit_con: con(b.unit_con.as_ref(), unit)?,
        pair,
        mk_pair: con(b.mk_pair.as_ref(), pair)?,
        list,
        nil: con(b.nil.as_ref(), list)?,
        cons: con(b.cons.as_ref(), list)?,
        maybe,
        nothing: con(b.nothing.as_ref(), maybe)?,
        just: con(b.just.as_ref(), maybe)?,
        append: None,
    })
}

fn con_ref(c: &pb::ConRef, ctors: &[Vec<usize>]) -> Result<ConId, DecodeError> {
    let of = ctors.get(c.data as usize).ok_or_else(|| {
        DecodeError::new(Problem::OutOfRange {
            what: "data type",
            index: c.data.into(),
            len: ctors.len() as u64,
        })
    })?;
    if (c.index as usize) >= of.len() {
        return Err(DecodeError::new(Problem::OutOfRange {
            what: "constructor",
            index: c.index.into(),
            len: of.len() as u64,
        }));
    }
    Ok(ConId {
        data: DataId(c.data),
        index: c.index,
    })
}

/// The kinds of global name, each with its spelling rule.
#[derive(Copy, Clone, PartialEq, Eq)]
enum NameKind {
    /// A definition: any identifier.
    Def,
    /// A data type: capitalised.
    Data,
    /// A constructor: capitalised.
    Con,
}

fn global_name(name: &str, kind: NameKind) -> Result<Name, DecodeError> {
    let ok = is_identifier(name)
        && match kind {
            NameKind::Def => true,
            NameKind::Data | NameKind::Con => starts_uppercase(name),
        };
    if ok {
        Ok(Rc::from(name))
    } else {
        let what = match kind {
            NameKind::Def => "definition",
            NameKind::Data => "data type",
            NameKind::Con => "constructor",
        };
        Err(DecodeError::new(Problem::BadName {
            what,
            name: name.to_string(),
        }))
    }
}

/// Whether `name` lexes as one identifier token (not a keyword, not `_`).
pub fn is_identifier(name: &str) -> bool {
    use crate::syntax::lexer::{is_ident_continue, is_ident_start};
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    is_ident_start(first)
        && chars.all(is_ident_continue)
        && !matches!(
            name,
            "_" | "let"
                | "in"
                | "def"
                | "data"
                | "match"
                | "with"
                | "if"
                | "then"
                | "else"
                | "extern"
                | "import"
                | "Type"
        )
}

fn starts_uppercase(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// A binder's name and plicity. An empty name is `_`; a pattern binder may not be
/// capitalised (it would read as a constructor).
fn binder_head(name: &str, plicity: i32, in_pattern: bool) -> Result<(Name, Plicity), DecodeError> {
    let name: Name = if name.is_empty() || name == "_" {
        Rc::from("_")
    } else if is_identifier(name) && !(in_pattern && starts_uppercase(name)) {
        Rc::from(name)
    } else {
        return Err(DecodeError::new(Problem::BadName {
            what: "binder",
            name: name.to_string(),
        }));
    };
    Ok((name, decode_plicity(plicity)?))
}

fn decode_plicity(p: i32) -> Result<Plicity, DecodeError> {
    match pb::Plicity::try_from(p) {
        Ok(pb::Plicity::Explicit) => Ok(Plicity::Explicit),
        Ok(pb::Plicity::Implicit) => Ok(Plicity::Implicit),
        Err(_) => Err(DecodeError::new(Problem::UnknownEnum {
            what: "plicity",
            value: p,
        })),
    }
}

/// How a compound node is rebuilt once its subterms are there.
enum Shape<'m> {
    Pi(Vec<(Name, Plicity)>),
    Lam(Vec<(Name, Plicity)>),
    Let(Vec<(Name, Plicity)>),
    /// The plicities as on the wire, already checked.
    App(&'m [i32]),
    Ann,
    /// The arms' patterns (with the field binders' names), the default's binder, and
    /// the depth of every subterm.
    Match(Vec<ArmShape>, Option<(Name, Plicity)>, Vec<usize>),
}

enum ArmShape {
    Con(ConId, Vec<(Name, Plicity)>),
    Lit(Lit),
}

/// A compound node waiting for its subterms, which collect on a value stack shared by
/// all frames (from `start` on).
struct Frame<'m> {
    shape: Shape<'m>,
    /// The number of binders in scope at the node.
    depth: usize,
    /// Where its subterms begin on the value stack.
    start: usize,
    needed: usize,
}

impl Frame<'_> {
    /// The binder depth of the next subterm, given the value stack's height.
    fn child_depth(&self, values: usize) -> usize {
        let k = values - self.start;
        match &self.shape {
            Shape::Pi(_) | Shape::Lam(_) => self.depth + k,
            Shape::Let(_) => self.depth + k.div_ceil(2),
            Shape::App(_) | Shape::Ann => self.depth,
            Shape::Match(_, _, depths) => depths.get(k).copied().unwrap_or(self.depth),
        }
    }

    /// Builds the term from the frame's subterms, taking them off the value stack.
    fn build(self, values: &mut Vec<RcTerm>) -> RcTerm {
        let mut children = values.drain(self.start..);
        let mut next = || children.next().unwrap_or_else(placeholder);
        match self.shape {
            Shape::Pi(bs) => {
                let tys: Vec<RcTerm> = bs.iter().map(|_| next()).collect();
                let body = next();
                bs.into_iter()
                    .zip(tys)
                    .rev()
                    .fold(body, |cod, ((name, plicity), ty)| {
                        Term::Pi(Binder { name, plicity, ty }, cod).rc()
                    })
            }
            Shape::Lam(bs) => {
                let tys: Vec<RcTerm> = bs.iter().map(|_| next()).collect();
                let body = next();
                bs.into_iter()
                    .zip(tys)
                    .rev()
                    .fold(body, |body, ((name, plicity), ty)| {
                        Term::Lam(Binder { name, plicity, ty }, body).rc()
                    })
            }
            Shape::Let(bs) => {
                let parts: Vec<(RcTerm, RcTerm)> = bs.iter().map(|_| (next(), next())).collect();
                let body = next();
                bs.into_iter()
                    .zip(parts)
                    .rev()
                    .fold(body, |body, ((name, plicity), (ty, rhs))| {
                        Term::Let(Binder { name, plicity, ty }, rhs, body).rc()
                    })
            }
            Shape::App(ps) => {
                let head = next();
                ps.iter().fold(head, |f, p| {
                    let p = decode_plicity(*p).unwrap_or(Plicity::Explicit);
                    Term::App(f, p, next()).rc()
                })
            }
            Shape::Ann => {
                let e = next();
                let ty = next();
                Term::Ann(e, ty).rc()
            }
            Shape::Match(arms, default, _) => {
                let scrut = next();
                let arms = arms
                    .into_iter()
                    .map(|arm| match arm {
                        ArmShape::Con(c, fields) => {
                            let fields = fields
                                .into_iter()
                                .map(|(name, plicity)| Binder {
                                    name,
                                    plicity,
                                    ty: next(),
                                })
                                .collect();
                            CaseArm {
                                pat: CasePat::Con(c, fields),
                                body: next(),
                            }
                        }
                        ArmShape::Lit(l) => CaseArm {
                            pat: CasePat::Lit(l),
                            body: next(),
                        },
                    })
                    .collect();
                let default = default.map(|(name, plicity)| {
                    let ty = next();
                    (Binder { name, plicity, ty }, next())
                });
                Term::Match(Box::new(Match {
                    scrut,
                    arms,
                    default,
                    span: NO_SPAN,
                }))
                .rc()
            }
        }
    }
}

/// Never called: `build` only runs on frames with all their subterms.
fn placeholder() -> RcTerm {
    Term::Universe(0).rc()
}

/// Decodes and checks a term message in `scope`.
pub fn term(msg: &pb::Term, scope: &Scope) -> Result<RcTerm, DecodeError> {
    term_in(msg, scope, scope.locals)
}

fn term_in(msg: &pb::Term, scope: &Scope, locals: usize) -> Result<RcTerm, DecodeError> {
    let nodes = &msg.nodes;
    if nodes.is_empty() {
        return Err(DecodeError::new(Problem::Missing(
            "nodes (the term is empty)",
        )));
    }
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut values: Vec<RcTerm> = Vec::new();
    // Subterms announced and not yet started, the root included.
    let mut outstanding: usize = 1;
    for (i, node) in nodes.iter().enumerate() {
        let at = |problem| DecodeError::at(format!("node {i}"), problem);
        if outstanding == 0 {
            return Err(at(Problem::TrailingNodes {
                extra: nodes.len() - i,
            }));
        }
        outstanding -= 1;
        let depth = stack.last().map_or(locals, |f| f.child_depth(values.len()));
        let kind = node
            .kind
            .as_ref()
            .ok_or_else(|| at(Problem::Missing("the node's kind")))?;
        let mut done = match leaf_or_frame(kind, depth, values.len(), scope)
            .map_err(|e| e.within(format!("node {i}")))?
        {
            Ok(t) => Some(t),
            Err(frame) => {
                outstanding += frame.needed;
                if outstanding > nodes.len() - i - 1 {
                    return Err(at(Problem::TermEndsEarly));
                }
                if stack.len() >= MAX_TERM_DEPTH {
                    return Err(at(Problem::TooDeep {
                        limit: MAX_TERM_DEPTH,
                    }));
                }
                stack.push(frame);
                None
            }
        };
        while let Some(t) = done.take() {
            match stack.last_mut() {
                None => {
                    if i + 1 < nodes.len() {
                        return Err(DecodeError::at(
                            format!("node {}", i + 1),
                            Problem::TrailingNodes {
                                extra: nodes.len() - i - 1,
                            },
                        ));
                    }
                    return Ok(t);
                }
                Some(f) => {
                    values.push(t);
                    if values.len() - f.start == f.needed {
                        done = stack.pop().map(|f| f.build(&mut values));
                    }
                }
            }
        }
    }
    Err(DecodeError::new(Problem::TermEndsEarly))
}

/// A leaf node as its term, or a compound node as a frame waiting for its subterms.
fn leaf_or_frame<'m>(
    kind: &'m pb::node::Kind,
    depth: usize,
    start: usize,
    scope: &Scope,
) -> Result<Result<RcTerm, Frame<'m>>, DecodeError> {
    use pb::node::Kind;
    let range = |what: &'static str, index: u32, len: usize| -> Result<u32, DecodeError> {
        if (index as usize) < len {
            Ok(index)
        } else {
            Err(DecodeError::new(Problem::OutOfRange {
                what,
                index: index.into(),
                len: len as u64,
            }))
        }
    };
    let frame = |shape: Shape<'m>, needed: usize| {
        Ok(Err(Frame {
            shape,
            depth,
            start,
            needed,
        }))
    };
    let leaf = match kind {
        Kind::Var(ix) => {
            if (*ix as usize) >= depth {
                return Err(DecodeError::new(Problem::DanglingIndex {
                    index: *ix,
                    depth,
                }));
            }
            Term::Var(Ix(*ix))
        }
        Kind::Def(id) => Term::Def(DefId(range("definition", *id, scope.defs)?)),
        Kind::Data(id) => Term::Data(DataId(range("data type", *id, scope.ctors.len())?)),
        Kind::Con(c) => Term::Con(con_ref(c, &scope.ctors)?),
        Kind::External(id) => {
            Term::Extern(ExternId(range("external", *id, scope.externs)?), NO_SPAN)
        }
        Kind::Prim(p) => Term::Prim(prim(*p)?, NO_SPAN),
        Kind::PrimType(p) => Term::PrimType(match pb::PrimType::try_from(*p) {
            Ok(pb::PrimType::Int) => PrimType::Int,
            Ok(pb::PrimType::Float) => PrimType::Float,
            Ok(pb::PrimType::String) => PrimType::String,
            Ok(pb::PrimType::Char) => PrimType::Char,
            Ok(pb::PrimType::Unspecified) | Err(_) => {
                return Err(DecodeError::new(Problem::UnknownEnum {
                    what: "primitive type",
                    value: *p,
                }));
            }
        }),
        Kind::Lit(l) => Term::Lit(lit(l)?),
        Kind::Universe(n) => Term::Universe(*n),
        Kind::Hole(h) => {
            let kind = match pb::HoleKind::try_from(h.kind) {
                Ok(pb::HoleKind::Infer) if h.name.is_none() => HoleKind::Infer,
                Ok(pb::HoleKind::Infer) => {
                    return Err(DecodeError::new(Problem::BadName {
                        what: "inferred hole (it takes no name)",
                        name: h.name.clone().unwrap_or_default(),
                    }));
                }
                Ok(pb::HoleKind::Goal) => HoleKind::Goal(match &h.name {
                    None => None,
                    Some(n) if is_identifier(n) && !starts_uppercase(n) => {
                        Some(Rc::from(n.as_str()))
                    }
                    Some(n) => {
                        return Err(DecodeError::new(Problem::BadName {
                            what: "typed hole",
                            name: n.clone(),
                        }));
                    }
                }),
                Ok(pb::HoleKind::Unspecified) | Err(_) => {
                    return Err(DecodeError::new(Problem::UnknownEnum {
                        what: "hole kind",
                        value: h.kind,
                    }));
                }
            };
            Term::Hole(kind, NO_SPAN)
        }
        Kind::Pi(bs) => {
            let bs = binder_heads(bs, "a Pi chain")?;
            let n = bs.len();
            return frame(Shape::Pi(bs), n + 1);
        }
        Kind::Lam(bs) => {
            let bs = binder_heads(bs, "a lambda chain")?;
            let n = bs.len();
            return frame(Shape::Lam(bs), n + 1);
        }
        Kind::Let(bs) => {
            let bs = binder_heads(bs, "a let chain")?;
            let n = bs.len();
            return frame(Shape::Let(bs), 2 * n + 1);
        }
        Kind::App(app) => {
            if app.args.is_empty() {
                return Err(DecodeError::new(Problem::EmptyChain("an application")));
            }
            for p in &app.args {
                decode_plicity(*p)?;
            }
            return frame(Shape::App(&app.args), app.args.len() + 1);
        }
        Kind::Ann(_) => return frame(Shape::Ann, 2),
        Kind::Match(m) => {
            let mut depths = vec![depth];
            let mut arms = Vec::with_capacity(m.arms.len());
            for (i, arm) in m.arms.iter().enumerate() {
                let shape = match &arm.pattern {
                    None => {
                        return Err(DecodeError::at(
                            format!("arm {i}"),
                            Problem::Missing("the arm's pattern"),
                        ));
                    }
                    Some(pb::arm::Pattern::Con(cp)) => {
                        let c = cp.con.as_ref().ok_or_else(|| {
                            DecodeError::at(format!("arm {i}"), Problem::Missing("constructor"))
                        })?;
                        let con =
                            con_ref(c, &scope.ctors).map_err(|e| e.within(format!("arm {i}")))?;
                        let expected = scope
                            .ctors
                            .get(con.data.0 as usize)
                            .and_then(|cs| cs.get(con.index as usize))
                            .copied()
                            .unwrap_or_default();
                        if cp.fields.len() != expected {
                            return Err(DecodeError::at(
                                format!("arm {i}"),
                                Problem::PatternArity {
                                    expected,
                                    found: cp.fields.len(),
                                },
                            ));
                        }
                        let mut fields = Vec::with_capacity(cp.fields.len());
                        for (j, f) in cp.fields.iter().enumerate() {
                            fields.push(
                                binder_head(&f.name, f.plicity, true)
                                    .map_err(|e| e.within(format!("arm {i}, field {j}")))?,
                            );
                            depths.push(depth + j);
                        }
                        depths.push(depth + fields.len());
                        ArmShape::Con(con, fields)
                    }
                    Some(pb::arm::Pattern::Lit(l)) => {
                        let l = lit(l).map_err(|e| e.within(format!("arm {i}")))?;
                        if matches!(l, Lit::Float(_)) {
                            return Err(DecodeError::at(format!("arm {i}"), Problem::FloatPattern));
                        }
                        depths.push(depth);
                        ArmShape::Lit(l)
                    }
                };
                arms.push(shape);
            }
            let default = match &m.default {
                None => None,
                Some(b) => {
                    let head = binder_head(&b.name, b.plicity, true)
                        .map_err(|e| e.within("default arm"))?;
                    depths.push(depth);
                    depths.push(depth + 1);
                    Some(head)
                }
            };
            let needed = depths.len();
            return frame(Shape::Match(arms, default, depths), needed);
        }
    };
    Ok(Ok(leaf.rc()))
}

fn binder_heads(bs: &pb::Binders, what: &'static str) -> Result<Vec<(Name, Plicity)>, DecodeError> {
    if bs.binders.is_empty() {
        return Err(DecodeError::new(Problem::EmptyChain(what)));
    }
    bs.binders
        .iter()
        .enumerate()
        .map(|(i, b)| {
            binder_head(&b.name, b.plicity, false).map_err(|e| e.within(format!("binder {i}")))
        })
        .collect()
}

fn lit(l: &pb::Lit) -> Result<Lit, DecodeError> {
    match &l.value {
        Some(pb::lit::Value::Int(n)) => Ok(Lit::Int(*n)),
        Some(pb::lit::Value::FloatBits(bits)) => Ok(Lit::Float(f64::from_bits(*bits))),
        Some(pb::lit::Value::Str(s)) => Ok(Lit::Str(Rc::from(s.as_str()))),
        Some(pb::lit::Value::Char(code)) => char::from_u32(*code)
            .map(Lit::Char)
            .ok_or_else(|| DecodeError::new(Problem::BadChar(*code))),
        None => Err(DecodeError::new(Problem::Missing("the literal's value"))),
    }
}

/// The primitive a wire value stands for.
pub(super) fn prim(p: i32) -> Result<Prim, DecodeError> {
    let unknown = || {
        DecodeError::new(Problem::UnknownEnum {
            what: "primitive",
            value: p,
        })
    };
    Ok(match pb::Prim::try_from(p).map_err(|_| unknown())? {
        pb::Prim::Unspecified => return Err(unknown()),
        pb::Prim::Add => Prim::Add,
        pb::Prim::Sub => Prim::Sub,
        pb::Prim::Mul => Prim::Mul,
        pb::Prim::Div => Prim::Div,
        pb::Prim::Rem => Prim::Rem,
        pb::Prim::Eq => Prim::Eq,
        pb::Prim::Ne => Prim::Ne,
        pb::Prim::Lt => Prim::Lt,
        pb::Prim::Le => Prim::Le,
        pb::Prim::Gt => Prim::Gt,
        pb::Prim::Ge => Prim::Ge,
        pb::Prim::Concat => Prim::Concat,
        pb::Prim::Error => Prim::Error,
        pb::Prim::IntToFloat => Prim::IntToFloat,
        pb::Prim::Sqrt => Prim::Sqrt,
        pb::Prim::Floor => Prim::Floor,
        pb::Prim::Ceil => Prim::Ceil,
        pb::Prim::Round => Prim::Round,
        pb::Prim::ShowInt => Prim::ShowInt,
        pb::Prim::ShowFloat => Prim::ShowFloat,
        pb::Prim::ParseInt => Prim::ParseInt,
        pb::Prim::ParseFloat => Prim::ParseFloat,
        pb::Prim::StrLength => Prim::StrLength,
        pb::Prim::Substring => Prim::Substring,
        pb::Prim::StartsWith => Prim::StartsWith,
        pb::Prim::EndsWith => Prim::EndsWith,
        pb::Prim::Contains => Prim::Contains,
        pb::Prim::Split => Prim::Split,
        pb::Prim::Join => Prim::Join,
        pb::Prim::Trim => Prim::Trim,
        pb::Prim::Words => Prim::Words,
        pb::Prim::Lines => Prim::Lines,
        pb::Prim::Seq => Prim::Seq,
        pb::Prim::ParseJson => Prim::ParseJson,
        pb::Prim::JsonString => Prim::JsonString,
        pb::Prim::JsonNumber => Prim::JsonNumber,
        pb::Prim::Catch => Prim::Catch,
        pb::Prim::After => Prim::After,
        pb::Prim::Trace => Prim::Trace,
        pb::Prim::Reading => Prim::Reading,
        pb::Prim::Writing => Prim::Writing,
        pb::Prim::SortInts => Prim::SortInts,
        pb::Prim::ShowString => Prim::ShowString,
        pb::Prim::ShowArg => Prim::ShowArg,
        pb::Prim::IsPair => Prim::IsPair,
        pb::Prim::MapLookup => Prim::MapLookup,
        pb::Prim::MapInsert => Prim::MapInsert,
        pb::Prim::MapDelete => Prim::MapDelete,
        pb::Prim::SortOrdered => Prim::SortOrdered,
        pb::Prim::SortOnFirst => Prim::SortOnFirst,
        pb::Prim::Pow => Prim::Pow,
        pb::Prim::DivFloor => Prim::DivFloor,
        pb::Prim::ModFloor => Prim::ModFloor,
        pb::Prim::ShowFixed => Prim::ShowFixed,
        pb::Prim::Compare => Prim::Compare,
        pb::Prim::SortPrims => Prim::SortPrims,
        pb::Prim::IsPrim => Prim::IsPrim,
        pb::Prim::Abs => Prim::Abs,
        pb::Prim::Chars => Prim::Chars,
        pb::Prim::FromChars => Prim::FromChars,
        pb::Prim::Ord => Prim::Ord,
        pb::Prim::Chr => Prim::Chr,
        pb::Prim::CharIsAlpha => Prim::CharIsAlpha,
        pb::Prim::CharIsAlphaNum => Prim::CharIsAlphaNum,
        pb::Prim::CharIsSpace => Prim::CharIsSpace,
        pb::Prim::CharIsUpper => Prim::CharIsUpper,
        pb::Prim::CharIsLower => Prim::CharIsLower,
        pb::Prim::CharToUpper => Prim::CharToUpper,
        pb::Prim::CharToLower => Prim::CharToLower,
        pb::Prim::CharToString => Prim::CharToString,
        pb::Prim::ShowChar => Prim::ShowChar,
    })
}
