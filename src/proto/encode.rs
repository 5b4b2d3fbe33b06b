//! Core terms and programs to protobuf messages (`proto/spindle.proto`).
//!
//! Encoding is total: every term and program has an encoding. Terms are written in
//! preorder with an explicit work stack (no recursion), spines flattened as the `.proto`
//! file describes. The same walk writes the canonical form that [`hash`](super::hash)
//! digests: [`Names::Drop`] leaves out every name that only serves printing.

use super::{FORMAT_VERSION, pb};
use crate::core::program::{Builtins, DeclCounts, Program};
use crate::core::term::{Binder, CasePat, ConId, HoleKind, Lit, Plicity, PrimType, Term};
use crate::prim::Prim;
use prost::Message;

/// Whether an encoding keeps printing names or is the canonical form for hashing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Names {
    /// Keep binder, definition and data type names (what `spindle encode` writes).
    Keep,
    /// Clear them, and the prelude counts: the canonical form that is hashed.
    Drop,
}

/// Encodes a term, keeping binder names.
pub fn term(t: &Term) -> pb::Term {
    term_with(t, Names::Keep)
}

/// Encodes a term, keeping or dropping binder names.
pub fn term_with(t: &Term, names: Names) -> pb::Term {
    let mut nodes = Vec::new();
    let mut work: Vec<&Term> = vec![t];
    let mut children: Vec<&Term> = Vec::new();
    while let Some(t) = work.pop() {
        let kind = node(t, names, &mut children);
        nodes.push(pb::Node { kind: Some(kind) });
        // The work stack pops the first child next.
        work.extend(children.drain(..).rev());
    }
    pb::Term { nodes }
}

/// Encodes a whole program; `prelude` says how many entries of each table are the
/// prelude's (see [`DeclCounts`]).
pub fn program(p: &Program, prelude: DeclCounts) -> pb::Program {
    program_with(p, prelude, Names::Keep)
}

/// The bytes of [`program`].
pub fn program_bytes(p: &Program, prelude: DeclCounts) -> Vec<u8> {
    program(p, prelude).encode_to_vec()
}

/// Encodes a whole program, keeping or dropping printing names.
pub fn program_with(p: &Program, prelude: DeclCounts, names: Names) -> pb::Program {
    let keep = |n: &str| match names {
        Names::Keep => n.to_string(),
        Names::Drop => String::new(),
    };
    let datas = p
        .datas
        .iter()
        .map(|d| pb::DataDecl {
            name: keep(&d.name),
            params: d
                .params
                .iter()
                .map(|b| pb::Binder {
                    name: binder_name(&b.name, names),
                    plicity: plicity(b.plicity) as i32,
                    ty: Some(term_with(&b.ty, names)),
                })
                .collect(),
            ctors: d
                .ctors
                .iter()
                .map(|c| pb::CtorDecl {
                    name: c.name.to_string(),
                    fields: c.fields.iter().map(|f| term_with(f, names)).collect(),
                    field_names: c.field_names.iter().map(|f| f.to_string()).collect(),
                })
                .collect(),
            interface: d.interface,
            record: d.record,
        })
        .collect();
    let externs = p
        .externs
        .iter()
        .map(|e| pb::ExternDecl {
            name: e.name.to_string(),
            ty: Some(term_with(&e.ty, names)),
        })
        .collect();
    let defs = p
        .defs
        .iter()
        .map(|d| pb::DefDecl {
            name: keep(&d.name),
            ty: Some(term_with(&d.ty, names)),
            body: Some(term_with(&d.body, names)),
        })
        .collect();
    let prelude = match names {
        Names::Keep => Some(pb::PreludeCounts {
            datas: prelude.datas as u32,
            externs: prelude.externs as u32,
            defs: prelude.defs as u32,
        }),
        Names::Drop => None,
    };
    pb::Program {
        format_version: FORMAT_VERSION,
        datas,
        externs,
        defs,
        builtins: Some(builtins(&p.builtins)),
        main: p.main.map(|m| m.0),
        prelude,
    }
}

fn builtins(b: &Builtins) -> pb::Builtins {
    pb::Builtins {
        bool_type: b.bool_.0,
        false_con: Some(con_ref(b.false_)),
        true_con: Some(con_ref(b.true_)),
        unit_type: b.unit.0,
        unit_con: Some(con_ref(b.unit_con)),
        pair_type: b.pair.0,
        mk_pair: Some(con_ref(b.mk_pair)),
        list_type: b.list.0,
        nil: Some(con_ref(b.nil)),
        cons: Some(con_ref(b.cons)),
        maybe_type: b.maybe.0,
        nothing: Some(con_ref(b.nothing)),
        just: Some(con_ref(b.just)),
    }
}

/// The node for `t`; its subterms, in the order the `.proto` file gives, go to
/// `children`.
fn node<'t>(t: &'t Term, names: Names, children: &mut Vec<&'t Term>) -> pb::node::Kind {
    use pb::node::Kind;
    match t {
        Term::Var(ix) => Kind::Var(ix.0),
        Term::Def(id) => Kind::Def(id.0),
        Term::Data(id) => Kind::Data(id.0),
        Term::Con(c) => Kind::Con(con_ref(*c)),
        Term::Extern(id, _) => Kind::External(id.0),
        Term::Prim(p, _) => Kind::Prim(prim(*p) as i32),
        Term::PrimType(p) => Kind::PrimType(prim_type(*p) as i32),
        Term::Lit(l) => Kind::Lit(lit(l)),
        Term::Universe(n) => Kind::Universe(*n),
        Term::Hole(h, _) => Kind::Hole(match h {
            // Metavariables exist only during elaboration: a checked program has none.
            // Should one reach here, it is written as the unknown it stands for.
            HoleKind::Infer | HoleKind::Meta(_) | HoleKind::MetaCtx(..) => pb::Hole {
                kind: pb::HoleKind::Infer as i32,
                name: None,
            },
            HoleKind::Goal(name) => pb::Hole {
                kind: pb::HoleKind::Goal as i32,
                name: name.as_ref().map(|n| n.to_string()),
            },
        }),
        Term::Pi(..) => {
            let mut binders = Vec::new();
            let mut body = t;
            while let Term::Pi(b, cod) = body {
                binders.push(binder_head(b, names));
                children.push(&b.ty);
                body = cod;
            }
            children.push(body);
            Kind::Pi(pb::Binders { binders })
        }
        Term::Lam(..) => {
            let mut binders = Vec::new();
            let mut body = t;
            while let Term::Lam(b, inner) = body {
                binders.push(binder_head(b, names));
                children.push(&b.ty);
                body = inner;
            }
            children.push(body);
            Kind::Lam(pb::Binders { binders })
        }
        Term::Let(..) => {
            let mut binders = Vec::new();
            let mut body = t;
            while let Term::Let(b, rhs, inner) = body {
                binders.push(binder_head(b, names));
                children.push(&b.ty);
                children.push(rhs);
                body = inner;
            }
            children.push(body);
            Kind::Let(pb::Binders { binders })
        }
        Term::App(..) => {
            let mut args = Vec::new();
            let mut head = t;
            // Collected last argument first; reversed below.
            let first_arg = children.len();
            while let Term::App(f, p, a) = head {
                args.push(plicity(*p) as i32);
                children.push(a);
                head = f;
            }
            children.push(head);
            children[first_arg..].reverse();
            args.reverse();
            Kind::App(pb::App { args })
        }
        Term::Ann(e, ty) => {
            children.push(e);
            children.push(ty);
            Kind::Ann(pb::Ann {})
        }
        Term::Match(m) => {
            children.push(&m.scrut);
            let arms = m
                .arms
                .iter()
                .map(|arm| {
                    let pattern = match &arm.pat {
                        CasePat::Con(c, fields) => {
                            children.extend(fields.iter().map(|f| &*f.ty));
                            pb::arm::Pattern::Con(pb::ConPattern {
                                con: Some(con_ref(*c)),
                                fields: fields.iter().map(|f| binder_head(f, names)).collect(),
                            })
                        }
                        CasePat::Lit(l) => pb::arm::Pattern::Lit(lit(l)),
                    };
                    children.push(&arm.body);
                    pb::Arm {
                        pattern: Some(pattern),
                    }
                })
                .collect();
            let default = m.default.as_ref().map(|(b, body)| {
                children.push(&b.ty);
                children.push(body);
                binder_head(b, names)
            });
            Kind::Match(pb::MatchHead { arms, default })
        }
    }
}

fn binder_name(name: &str, names: Names) -> String {
    match names {
        Names::Keep if name != "_" => name.to_string(),
        _ => String::new(),
    }
}

fn binder_head(b: &Binder, names: Names) -> pb::BinderHead {
    pb::BinderHead {
        name: binder_name(&b.name, names),
        plicity: plicity(b.plicity) as i32,
    }
}

fn con_ref(c: ConId) -> pb::ConRef {
    pb::ConRef {
        data: c.data.0,
        index: c.index,
    }
}

fn lit(l: &Lit) -> pb::Lit {
    pb::Lit {
        value: Some(match l {
            Lit::Int(n) => pb::lit::Value::Int(*n),
            Lit::Float(x) => pb::lit::Value::FloatBits(x.to_bits()),
            Lit::Str(s) => pb::lit::Value::Str(s.to_string()),
            Lit::Char(c) => pb::lit::Value::Char(u32::from(*c)),
        }),
    }
}

/// The wire form of a plicity.
pub(super) fn plicity(p: Plicity) -> pb::Plicity {
    match p {
        Plicity::Explicit => pb::Plicity::Explicit,
        Plicity::Implicit => pb::Plicity::Implicit,
    }
}

fn prim_type(p: PrimType) -> pb::PrimType {
    match p {
        PrimType::Int => pb::PrimType::Int,
        PrimType::Float => pb::PrimType::Float,
        PrimType::String => pb::PrimType::String,
        PrimType::Char => pb::PrimType::Char,
    }
}

/// The wire form of a primitive; [`decode`](super::decode) has the inverse, and a test
/// checks that the two agree on every primitive.
pub(super) fn prim(p: Prim) -> pb::Prim {
    match p {
        Prim::Add => pb::Prim::Add,
        Prim::Sub => pb::Prim::Sub,
        Prim::Mul => pb::Prim::Mul,
        Prim::Div => pb::Prim::Div,
        Prim::Rem => pb::Prim::Rem,
        Prim::Eq => pb::Prim::Eq,
        Prim::Ne => pb::Prim::Ne,
        Prim::Lt => pb::Prim::Lt,
        Prim::Le => pb::Prim::Le,
        Prim::Gt => pb::Prim::Gt,
        Prim::Ge => pb::Prim::Ge,
        Prim::Concat => pb::Prim::Concat,
        Prim::Error => pb::Prim::Error,
        Prim::IntToFloat => pb::Prim::IntToFloat,
        Prim::Sqrt => pb::Prim::Sqrt,
        Prim::Floor => pb::Prim::Floor,
        Prim::Ceil => pb::Prim::Ceil,
        Prim::Round => pb::Prim::Round,
        Prim::ShowInt => pb::Prim::ShowInt,
        Prim::ShowFloat => pb::Prim::ShowFloat,
        Prim::ParseInt => pb::Prim::ParseInt,
        Prim::ParseFloat => pb::Prim::ParseFloat,
        Prim::StrLength => pb::Prim::StrLength,
        Prim::Substring => pb::Prim::Substring,
        Prim::StartsWith => pb::Prim::StartsWith,
        Prim::EndsWith => pb::Prim::EndsWith,
        Prim::Contains => pb::Prim::Contains,
        Prim::Split => pb::Prim::Split,
        Prim::Join => pb::Prim::Join,
        Prim::Trim => pb::Prim::Trim,
        Prim::Words => pb::Prim::Words,
        Prim::Lines => pb::Prim::Lines,
        Prim::Seq => pb::Prim::Seq,
        Prim::ParseJson => pb::Prim::ParseJson,
        Prim::JsonString => pb::Prim::JsonString,
        Prim::JsonNumber => pb::Prim::JsonNumber,
        Prim::Catch => pb::Prim::Catch,
        Prim::After => pb::Prim::After,
        Prim::Trace => pb::Prim::Trace,
        Prim::Reading => pb::Prim::Reading,
        Prim::Writing => pb::Prim::Writing,
        Prim::SortInts => pb::Prim::SortInts,
        Prim::ShowString => pb::Prim::ShowString,
        Prim::ShowArg => pb::Prim::ShowArg,
        Prim::IsPair => pb::Prim::IsPair,
        Prim::MapLookup => pb::Prim::MapLookup,
        Prim::MapInsert => pb::Prim::MapInsert,
        Prim::MapDelete => pb::Prim::MapDelete,
        Prim::SortOrdered => pb::Prim::SortOrdered,
        Prim::SortOnFirst => pb::Prim::SortOnFirst,
        Prim::Pow => pb::Prim::Pow,
        Prim::DivFloor => pb::Prim::DivFloor,
        Prim::ModFloor => pb::Prim::ModFloor,
        Prim::ShowFixed => pb::Prim::ShowFixed,
        Prim::Compare => pb::Prim::Compare,
        Prim::SortPrims => pb::Prim::SortPrims,
        Prim::IsPrim => pb::Prim::IsPrim,
        Prim::Abs => pb::Prim::Abs,
        Prim::Chars => pb::Prim::Chars,
        Prim::FromChars => pb::Prim::FromChars,
        Prim::Ord => pb::Prim::Ord,
        Prim::Chr => pb::Prim::Chr,
        Prim::CharIsAlpha => pb::Prim::CharIsAlpha,
        Prim::CharIsAlphaNum => pb::Prim::CharIsAlphaNum,
        Prim::CharIsSpace => pb::Prim::CharIsSpace,
        Prim::CharIsUpper => pb::Prim::CharIsUpper,
        Prim::CharIsLower => pb::Prim::CharIsLower,
        Prim::CharToUpper => pb::Prim::CharToUpper,
        Prim::CharToLower => pb::Prim::CharToLower,
        Prim::CharToString => pb::Prim::CharToString,
        Prim::ShowChar => pb::Prim::ShowChar,
    }
}
