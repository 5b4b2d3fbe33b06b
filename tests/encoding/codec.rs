//! The protobuf codec and content hash (issue 6), end to end:
//!
//! - property tests on random well-scoped core terms and programs: decoding an encoding
//!   gives back an alpha-equivalent term, with the same names and the same hash; binder
//!   names do not change the hash, a changed literal does, and terms hash alike exactly
//!   when they are alpha-equivalent;
//! - every example program: its encoding decodes to the same program, which prints as
//!   source that loads back to an alpha-equivalent program with the same hash;
//! - corrupted encodings (every truncation, random bytes, every single-byte mutation)
//!   are rejected with an error or decode to a valid program, never a panic.

use crate::common;

use common::{ILL_TYPED, sp_files, tests_dir};
use proptest::prelude::*;
use prost::Message;
use spindle::core::equiv::alpha_eq;
use spindle::core::program::{
    Builtins, CtorDecl, DataDecl, DeclCounts, DefDecl, ExternDecl, Program,
};
use spindle::core::term::{
    Binder, CaseArm, CasePat, ConId, DataId, DefId, ExternId, HoleKind, Ix, Lit, Match, Plicity,
    PrimType, RcTerm, Term,
};
use spindle::driver;
use spindle::prim::Prim;
use spindle::proto::decode::{self, Scope};
use spindle::proto::{NO_SPAN, encode, hash, source};
use std::path::{Path, PathBuf};
use std::rc::Rc;

// ---- random terms -----------------------------------------------------------------

/// A term's shape with raw numbers; [`build`] turns it into a well-scoped term by
/// reducing every index modulo what is in scope there.
#[derive(Clone, Debug)]
enum G {
    Var(u32),
    Def(u32),
    Data(u32),
    Con(u32, u32),
    Ext(u32),
    Prim(usize),
    PrimTy(u8),
    Int(i64),
    Float(u64),
    Str(String),
    Char(char),
    Univ(u32),
    Infer,
    Goal(Option<&'static str>),
    Pi(&'static str, bool, Box<G>, Box<G>),
    Lam(&'static str, bool, Box<G>, Box<G>),
    App(Box<G>, bool, Box<G>),
    Let(&'static str, Box<G>, Box<G>, Box<G>),
    Ann(Box<G>, Box<G>),
    Match(
        Box<G>,
        Vec<(ArmG, G)>,
        Option<(&'static str, Box<G>, Box<G>)>,
    ),
}

#[derive(Clone, Debug)]
enum ArmG {
    Con(u32, u32, Vec<(&'static str, G)>),
    Int(i64),
    Str(String),
    Char(char),
}

const NAMES: &[&str] = &["_", "x", "y", "f", "x'", "long_name", "é", "x1"];

fn name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(NAMES)
}

fn leaf() -> impl Strategy<Value = G> {
    prop_oneof![
        4 => any::<u32>().prop_map(G::Var),
        1 => any::<u32>().prop_map(G::Def),
        1 => any::<u32>().prop_map(G::Data),
        1 => (any::<u32>(), any::<u32>()).prop_map(|(d, i)| G::Con(d, i)),
        1 => any::<u32>().prop_map(G::Ext),
        1 => any::<usize>().prop_map(G::Prim),
        1 => any::<u8>().prop_map(G::PrimTy),
        1 => any::<i64>().prop_map(G::Int),
        1 => any::<u64>().prop_map(G::Float),
        1 => "[a-z\"\\\\\n\u{0}-\u{7f}é😀]{0,6}".prop_map(G::Str),
        1 => any::<char>().prop_map(G::Char),
        1 => (0u32..4).prop_map(G::Univ),
        1 => Just(G::Infer),
        1 => prop::option::of(Just("goal")).prop_map(G::Goal),
    ]
}

fn arm(inner: BoxedStrategy<G>) -> impl Strategy<Value = ArmG> {
    prop_oneof![
        (
            any::<u32>(),
            any::<u32>(),
            prop::collection::vec((name(), inner), 0..4)
        )
            .prop_map(|(d, i, fs)| ArmG::Con(d, i, fs)),
        any::<i64>().prop_map(ArmG::Int),
        "[a-z]{0,3}".prop_map(ArmG::Str),
        any::<char>().prop_map(ArmG::Char),
    ]
}

fn shape() -> impl Strategy<Value = G> {
    leaf().prop_recursive(6, 96, 4, |inner| {
        let b = |g| Box::new(g);
        prop_oneof![
            (name(), any::<bool>(), inner.clone(), inner.clone())
                .prop_map(move |(n, p, a, c)| G::Pi(n, p, b(a), b(c))),
            (name(), any::<bool>(), inner.clone(), inner.clone())
                .prop_map(move |(n, p, a, c)| G::Lam(n, p, b(a), b(c))),
            (inner.clone(), any::<bool>(), inner.clone()).prop_map(move |(f, p, a)| G::App(
                b(f),
                p,
                b(a)
            )),
            (name(), inner.clone(), inner.clone(), inner.clone())
                .prop_map(move |(n, t, r, e)| G::Let(n, b(t), b(r), b(e))),
            (inner.clone(), inner.clone()).prop_map(move |(e, t)| G::Ann(b(e), b(t))),
            (
                inner.clone(),
                prop::collection::vec((arm(inner.clone().boxed()), inner.clone()), 0..3),
                prop::option::of((name(), inner.clone(), inner.clone()))
            )
                .prop_map(move |(s, arms, d)| G::Match(
                    b(s),
                    arms,
                    d.map(|(n, t, e)| (n, b(t), b(e)))
                )),
        ]
    })
}

/// The tables random terms refer to: constructor field counts per data type.
fn tables() -> Scope {
    Scope {
        defs: 4,
        ctors: vec![vec![0, 2], vec![1], vec![0, 0, 3]],
        externs: 2,
        locals: 0,
    }
}

fn plicity(implicit: bool) -> Plicity {
    if implicit {
        Plicity::Implicit
    } else {
        Plicity::Explicit
    }
}

fn binder(name: &str, implicit: bool, ty: RcTerm) -> Binder {
    Binder {
        name: Rc::from(name),
        plicity: plicity(implicit),
        ty,
    }
}

fn all_prims() -> Vec<Prim> {
    Prim::names().filter_map(Prim::from_name).collect()
}

fn con(scope: &Scope, d: u32, i: u32) -> ConId {
    let data = d % scope.ctors.len() as u32;
    let n = scope.ctors[data as usize].len() as u32;
    ConId {
        data: DataId(data),
        index: i % n,
    }
}

fn build(g: &G, depth: u32, s: &Scope) -> RcTerm {
    let t = match g {
        G::Var(_) if depth == 0 => Term::Lit(Lit::Int(0)),
        G::Var(i) => Term::Var(Ix(i % depth)),
        G::Def(i) => Term::Def(DefId(i % s.defs as u32)),
        G::Data(i) => Term::Data(DataId(i % s.ctors.len() as u32)),
        G::Con(d, i) => Term::Con(con(s, *d, *i)),
        G::Ext(i) => Term::Extern(ExternId(i % s.externs as u32), NO_SPAN),
        G::Prim(i) => {
            let ps = all_prims();
            Term::Prim(ps[i % ps.len()], NO_SPAN)
        }
        G::PrimTy(i) => {
            let all = [
                PrimType::Int,
                PrimType::Float,
                PrimType::String,
                PrimType::Char,
            ];
            Term::PrimType(all[*i as usize % all.len()])
        }
        G::Int(n) => Term::Lit(Lit::Int(*n)),
        G::Float(bits) => Term::Lit(Lit::Float(f64::from_bits(*bits))),
        G::Str(st) => Term::Lit(Lit::Str(Rc::from(st.as_str()))),
        G::Char(c) => Term::Lit(Lit::Char(*c)),
        G::Univ(n) => Term::Universe(*n),
        G::Infer => Term::Hole(HoleKind::Infer, NO_SPAN),
        G::Goal(n) => Term::Hole(HoleKind::Goal(n.map(Rc::from)), NO_SPAN),
        G::Pi(n, p, a, c) => Term::Pi(binder(n, *p, build(a, depth, s)), build(c, depth + 1, s)),
        G::Lam(n, p, a, c) => Term::Lam(binder(n, *p, build(a, depth, s)), build(c, depth + 1, s)),
        G::App(f, p, a) => Term::App(build(f, depth, s), plicity(*p), build(a, depth, s)),
        G::Let(n, t, r, e) => Term::Let(
            binder(n, false, build(t, depth, s)),
            build(r, depth + 1, s),
            build(e, depth + 1, s),
        ),
        G::Ann(e, t) => Term::Ann(build(e, depth, s), build(t, depth, s)),
        G::Match(scrut, arms, default) => Term::Match(Box::new(Match {
            scrut: build(scrut, depth, s),
            arms: arms
                .iter()
                .map(|(a, body)| match a {
                    ArmG::Con(d, i, fields) => {
                        let c = con(s, *d, *i);
                        let arity = s.ctors[c.data.0 as usize][c.index as usize];
                        let binders = (0..arity)
                            .map(|j| match fields.get(j) {
                                Some((n, ty)) => binder(n, false, build(ty, depth + j as u32, s)),
                                None => binder("_", false, Term::Universe(0).rc()),
                            })
                            .collect();
                        CaseArm {
                            pat: CasePat::Con(c, binders),
                            body: build(body, depth + arity as u32, s),
                        }
                    }
                    ArmG::Int(n) => CaseArm {
                        pat: CasePat::Lit(Lit::Int(*n)),
                        body: build(body, depth, s),
                    },
                    ArmG::Str(st) => CaseArm {
                        pat: CasePat::Lit(Lit::Str(Rc::from(st.as_str()))),
                        body: build(body, depth, s),
                    },
                    ArmG::Char(c) => CaseArm {
                        pat: CasePat::Lit(Lit::Char(*c)),
                        body: build(body, depth, s),
                    },
                })
                .collect(),
            default: default
                .as_ref()
                .map(|(n, t, e)| (binder(n, false, build(t, depth, s)), build(e, depth + 1, s))),
            span: NO_SPAN,
        })),
    };
    t.rc()
}

fn term() -> impl Strategy<Value = RcTerm> {
    shape().prop_map(|g| build(&g, 0, &tables()))
}

/// The same term with every binder name changed by `f`.
fn rename(t: &Term, f: &dyn Fn(&str) -> String) -> RcTerm {
    let b = |x: &Binder| Binder {
        name: Rc::from(f(&x.name)),
        plicity: x.plicity,
        ty: rename(&x.ty, f),
    };
    match t {
        Term::Pi(x, c) => Term::Pi(b(x), rename(c, f)).rc(),
        Term::Lam(x, c) => Term::Lam(b(x), rename(c, f)).rc(),
        Term::App(g, p, a) => Term::App(rename(g, f), *p, rename(a, f)).rc(),
        Term::Let(x, r, e) => Term::Let(b(x), rename(r, f), rename(e, f)).rc(),
        Term::Ann(e, ty) => Term::Ann(rename(e, f), rename(ty, f)).rc(),
        Term::Match(m) => Term::Match(Box::new(Match {
            scrut: rename(&m.scrut, f),
            arms: m
                .arms
                .iter()
                .map(|a| CaseArm {
                    pat: match &a.pat {
                        CasePat::Con(c, fs) => CasePat::Con(*c, fs.iter().map(b).collect()),
                        CasePat::Lit(l) => CasePat::Lit(l.clone()),
                    },
                    body: rename(&a.body, f),
                })
                .collect(),
            default: m.default.as_ref().map(|(x, e)| (b(x), rename(e, f))),
            span: m.span,
        }))
        .rc(),
        _ => shallow_copy(t),
    }
}

fn shallow_copy(t: &Term) -> RcTerm {
    match t {
        Term::Var(i) => Term::Var(*i),
        Term::Def(i) => Term::Def(*i),
        Term::Data(i) => Term::Data(*i),
        Term::Con(c) => Term::Con(*c),
        Term::Extern(e, s) => Term::Extern(*e, *s),
        Term::Prim(p, s) => Term::Prim(*p, *s),
        Term::PrimType(p) => Term::PrimType(*p),
        Term::Lit(l) => Term::Lit(l.clone()),
        Term::Universe(n) => Term::Universe(*n),
        Term::Hole(h, s) => Term::Hole(h.clone(), *s),
        _ => unreachable!("only leaves are copied"),
    }
    .rc()
}

/// The term with its first literal (leftmost, outermost) changed, if it has one.
fn bump_first_literal(t: &Term) -> Option<RcTerm> {
    let bumped = |l: &Lit| match l {
        Lit::Int(n) => Lit::Int(n.wrapping_add(1)),
        Lit::Float(x) => Lit::Float(f64::from_bits(x.to_bits() ^ 1)),
        Lit::Str(s) => Lit::Str(Rc::from(format!("{s}!"))),
        Lit::Char(c) => Lit::Char(if *c == 'a' { 'b' } else { 'a' }),
    };
    let pair = |a: &RcTerm, b: &RcTerm, mk: &dyn Fn(RcTerm, RcTerm) -> Term| {
        bump_first_literal(a)
            .map(|a2| mk(a2, b.clone()).rc())
            .or_else(|| bump_first_literal(b).map(|b2| mk(a.clone(), b2).rc()))
    };
    match t {
        Term::Lit(l) => Some(Term::Lit(bumped(l)).rc()),
        Term::Pi(x, c) => pair(&x.ty, c, &|ty, c| Term::Pi(Binder { ty, ..x.clone() }, c)),
        Term::Lam(x, c) => pair(&x.ty, c, &|ty, c| Term::Lam(Binder { ty, ..x.clone() }, c)),
        Term::App(g, p, a) => pair(g, a, &|g, a| Term::App(g, *p, a)),
        Term::Ann(e, ty) => pair(e, ty, &|e, ty| Term::Ann(e, ty)),
        Term::Let(x, r, e) => pair(r, e, &|r, e| Term::Let(x.clone(), r, e)),
        _ => None,
    }
}

fn round_trip(t: &Term) -> RcTerm {
    let bytes = encode::term(t).encode_to_vec();
    decode::term_bytes(&bytes, &tables()).unwrap_or_else(|e| panic!("{e}\n{t:?}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn decode_after_encode_is_the_identity(t in term()) {
        let back = round_trip(&t);
        prop_assert!(alpha_eq(&t, &back));
        // Names survive too: re-encoding gives the same bytes.
        prop_assert_eq!(encode::term(&back), encode::term(&t));
        prop_assert_eq!(hash::term(&back), hash::term(&t));
    }

    #[test]
    fn binder_names_do_not_change_the_hash(t in term(), suffix in "[a-z]{1,3}") {
        let renamed = rename(&t, &|n| if n == "_" { "w".to_string() } else { format!("{n}{suffix}") });
        prop_assert!(alpha_eq(&t, &renamed));
        prop_assert_eq!(hash::term(&renamed), hash::term(&t));
        let blank = rename(&t, &|_| "_".to_string());
        prop_assert_eq!(hash::term(&blank), hash::term(&t));
    }

    #[test]
    fn a_changed_literal_changes_the_hash(t in term()) {
        let Some(changed) = bump_first_literal(&t) else {
            return Ok(());
        };
        prop_assert!(!alpha_eq(&t, &changed));
        prop_assert_ne!(hash::term(&changed), hash::term(&t));
    }

    #[test]
    fn terms_hash_alike_exactly_when_alpha_equivalent(a in term(), b in term()) {
        prop_assert_eq!(alpha_eq(&a, &b), hash::term(&a) == hash::term(&b));
    }

    #[test]
    fn random_programs_round_trip(
        params in prop::collection::vec((name(), any::<bool>(), shape()), 3),
        fields in prop::collection::vec(shape(), 6),
        externs in prop::collection::vec(shape(), 2),
        defs in prop::collection::vec((shape(), shape()), 4),
        main in prop::option::of(0u32..4),
    ) {
        let p = random_program(&params, &fields, &externs, &defs, main);
        let counts = DeclCounts::default();
        let bytes = encode::program_bytes(&p, counts);
        let d = decode::program_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
        prop_assert_eq!(d.prelude, counts);
        same_program(&p, &d.program, true).map_err(TestCaseError::fail)?;
        prop_assert_eq!(encode::program_bytes(&d.program, d.prelude), bytes);
        prop_assert_eq!(hash::program(&d.program), hash::program(&p));
    }
}

/// A program with the table shapes of [`tables`]: data type 0 has one parameter, 1 none,
/// 2 two.
fn random_program(
    params: &[(&'static str, bool, G)],
    fields: &[G],
    externs: &[G],
    defs: &[(G, G)],
    main: Option<u32>,
) -> Program {
    let s = tables();
    let param_counts = [1usize, 0, 2];
    let mut next_param = params.iter();
    let mut next_field = fields.iter().cycle();
    let datas = s
        .ctors
        .iter()
        .enumerate()
        .map(|(d, ctors)| {
            let ps: Vec<Binder> = (0..param_counts[d])
                .filter_map(|i| {
                    next_param
                        .next()
                        .map(|(n, imp, g)| binder(n, *imp, build(g, i as u32, &s)))
                })
                .collect();
            let np = ps.len() as u32;
            // Every other one-constructor type is a record (and every fourth an
            // interface): field names must survive the round trip too.
            let record = ctors.len() == 1 && d % 2 == 0;
            DataDecl {
                name: Rc::from(format!("D{d}")),
                params: ps,
                ctors: ctors
                    .iter()
                    .enumerate()
                    .map(|(c, &arity)| CtorDecl {
                        name: Rc::from(format!("C{d}x{c}")),
                        fields: (0..arity)
                            .map(|j| build(next_field.next().expect("cycled"), np + j as u32, &s))
                            .collect(),
                        field_names: if record {
                            (0..arity).map(|j| Rc::from(format!("f{j}"))).collect()
                        } else {
                            Vec::new()
                        },
                        span: NO_SPAN,
                    })
                    .collect(),
                interface: record && d % 4 == 0,
                record,
                span: NO_SPAN,
            }
        })
        .collect();
    let c = |data, index| ConId {
        data: DataId(data),
        index,
    };
    Program {
        run_bodies: Default::default(),
        inlined_bodies: Default::default(),
        collections: Default::default(),
        datas,
        externs: ["run", "delay"]
            .iter()
            .zip(externs)
            .map(|(n, g)| ExternDecl {
                name: Rc::from(*n),
                ty: build(g, 0, &s),
                span: NO_SPAN,
            })
            .collect(),
        defs: defs
            .iter()
            .enumerate()
            .map(|(i, (ty, body))| DefDecl {
                name: Rc::from(format!("f{i}")),
                ty: build(ty, 0, &s),
                body: build(body, 0, &s),
                span: NO_SPAN,
                role: spindle::syntax::ast::DefRole::Plain,
            })
            .collect(),
        builtins: Builtins {
            bool_: DataId(0),
            false_: c(0, 0),
            true_: c(0, 1),
            unit: DataId(1),
            unit_con: c(1, 0),
            pair: DataId(0),
            mk_pair: c(0, 1),
            list: DataId(0),
            nil: c(0, 0),
            cons: c(0, 1),
            maybe: DataId(2),
            nothing: c(2, 0),
            just: c(2, 2),
            append: None,
        },
        main: main.map(DefId),
    }
}

/// Compares two programs table by table, up to alpha-equivalence; names of definitions
/// and data types are compared only if `names` (printing may rename them).
fn same_program(a: &Program, b: &Program, names: bool) -> Result<(), String> {
    if a.counts() != b.counts() {
        return Err(format!("table sizes {:?} and {:?}", a.counts(), b.counts()));
    }
    if a.main != b.main || a.builtins != b.builtins {
        return Err("main or builtins differ".to_string());
    }
    for (x, y) in a.datas.iter().zip(&b.datas) {
        let same = (!names || x.name == y.name)
            && x.params.len() == y.params.len()
            && x.params
                .iter()
                .zip(&y.params)
                .all(|(p, q)| p.plicity == q.plicity && alpha_eq(&p.ty, &q.ty))
            && x.ctors.len() == y.ctors.len()
            && x.record == y.record
            && x.interface == y.interface
            && x.ctors.iter().zip(&y.ctors).all(|(c, d)| {
                (!names || c.name == d.name)
                    && c.field_names == d.field_names
                    && c.fields.len() == d.fields.len()
                    && c.fields.iter().zip(&d.fields).all(|(s, t)| alpha_eq(s, t))
            });
        if !same {
            return Err(format!("data type `{}` differs", x.name));
        }
    }
    for (x, y) in a.externs.iter().zip(&b.externs) {
        if x.name != y.name || !alpha_eq(&x.ty, &y.ty) {
            return Err(format!("external `{}` differs", x.name));
        }
    }
    for (x, y) in a.defs.iter().zip(&b.defs) {
        if (names && x.name != y.name) || !alpha_eq(&x.ty, &y.ty) || !alpha_eq(&x.body, &y.body) {
            return Err(format!("definition `{}` differs", x.name));
        }
    }
    Ok(())
}

// ---- example programs -------------------------------------------------------------

fn load(path: &Path) -> (Program, DeclCounts) {
    let l = driver::load(path);
    let p = l.program.clone().unwrap_or_else(|| {
        panic!(
            "{} does not load:\n{}",
            path.display(),
            l.render_diagnostics()
        )
    });
    let counts = spindle::proto::prelude_counts(&l.sources, &p);
    (p, counts)
}

/// Encodes, decodes, prints and reloads one program; returns the printed source.
fn example_round_trip(path: &Path) -> Result<String, String> {
    let (p, counts) = load(path);
    program_round_trip(&p, counts)
}

/// [`example_round_trip`] on a loaded program.
fn program_round_trip(p: &Program, counts: DeclCounts) -> Result<String, String> {
    let bytes = encode::program_bytes(p, counts);
    let d = decode::program_bytes(&bytes).map_err(|e| format!("decode: {e}"))?;
    if d.prelude != counts {
        return Err("prelude counts changed".to_string());
    }
    same_program(p, &d.program, true)?;
    if hash::program(&d.program) != hash::program(p) {
        return Err("decoding changed the hash".to_string());
    }
    let text = source::program_to_source(&d, spindle::driver::prelude_program().as_ref())
        .map_err(|e| format!("print: {e}"))?;
    let again = driver::load_text("decoded.sp", &text);
    let reloaded = again.program.as_ref().ok_or_else(|| {
        format!(
            "the printed program does not load:\n{}\n--- printed:\n{text}",
            again.render_diagnostics()
        )
    })?;
    same_program(p, reloaded, false).map_err(|e| format!("{e}\n--- printed:\n{text}"))?;
    if hash::program(reloaded) != hash::program(p) {
        return Err(format!("the printed program hashes differently\n{text}"));
    }
    Ok(text)
}

fn example_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for sub in ["spec", "bench", "own"] {
        files.extend(
            sp_files(&tests_dir().join("examples").join(sub))
                .into_iter()
                .filter(|f| {
                    let name = f.file_name().unwrap().to_string_lossy();
                    !ILL_TYPED.contains(&name.as_ref())
                }),
        );
    }
    files.push(tests_dir().join("check").join("import_ok.sp"));
    files
}

#[test]
fn every_example_program_round_trips_through_bytes_and_source() {
    let files = example_files();
    assert!(files.len() >= 13, "only {} examples", files.len());
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            example_round_trip(f)
                .err()
                .map(|e| format!("{}: {e}", f.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_long_list_literal_and_a_long_sum_round_trip() {
    let items: Vec<String> = (0..20_000).map(|i| i.to_string()).collect();
    let text = format!(
        "def xs : List Int = [{}]\ndef main : Int = {}\n",
        items.join(", "),
        items.join(" + ")
    );
    let l = driver::load_text("long.sp", &text);
    let p = l.program.clone().expect("loads");
    let counts = spindle::proto::prelude_counts(&l.sources, &p);
    program_round_trip(&p, counts).unwrap_or_else(|e| panic!("{}", &e[..e.len().min(2000)]));
}

#[test]
fn char_literals_and_patterns_round_trip_through_bytes_and_source() {
    let text = "def c : Char = '\\''\n\
                def k (x : Char) : Int = match x with\n  | 'a' -> 1\n  | '\\n' -> 2\n  | _ -> 3\n\
                def main = (c, ['\\\\', '\"', '\\u{1F600}', '\\u{0}'], k 'a', chars \"hé\")\n";
    let l = driver::load_text("chars.sp", text);
    let p = l.program.clone().expect("loads");
    let counts = spindle::proto::prelude_counts(&l.sources, &p);
    let printed = program_round_trip(&p, counts).unwrap_or_else(|e| panic!("{e}"));
    assert!(printed.contains("'\\''"), "{printed}");
    assert!(printed.contains("'\\n' ->"), "{printed}");
    // The literal itself, through bytes.
    for c in ['a', '\'', '\n', '\0', '😀', '\u{10FFFF}'] {
        let t = Term::Lit(Lit::Char(c)).rc();
        assert!(alpha_eq(&t, &round_trip(&t)), "{c:?}");
    }
    let ty = Term::PrimType(PrimType::Char).rc();
    assert!(alpha_eq(&ty, &round_trip(&ty)));
}

#[test]
fn a_char_literal_that_is_no_scalar_value_is_rejected() {
    let t = Term::Lit(Lit::Char('a')).rc();
    let mut pb = encode::term(&t);
    let mut patched = false;
    for node in &mut pb.nodes {
        if let Some(spindle::proto::pb::node::Kind::Lit(l)) = &mut node.kind {
            l.value = Some(spindle::proto::pb::lit::Value::Char(0xD800));
            patched = true;
        }
    }
    assert!(patched);
    let err = decode::term_bytes(&pb.encode_to_vec(), &tables()).unwrap_err();
    assert!(err.to_string().contains("U+D800"), "{err}");
}

#[test]
fn clashing_names_from_several_files_are_renamed() {
    let text = example_round_trip(&tests_dir().join("proto/clash/main.sp"))
        .unwrap_or_else(|e| panic!("{e}"));
    // The entry file's `main` keeps its name; the imported one, the second `helper` and
    // the `length` that would hide the prelude's (used by b.sp) are renamed.
    for want in [
        "def main :",
        "def main_2",
        "def helper :",
        "def helper_2",
        "def length_2",
        "showInt (length {Int} [1, 2])",
    ] {
        assert!(text.contains(want), "no `{want}` in\n{text}");
    }
}

#[test]
fn an_encoding_with_another_prelude_is_not_printed() {
    let (p, counts) = load(&tests_dir().join("examples/spec/hello.sp"));
    let mut d = decode::program_bytes(&encode::program_bytes(&p, counts)).expect("decodes");
    d.program.defs[0].body = Term::Lit(Lit::Int(7)).rc();
    let err =
        source::program_to_source(&d, spindle::driver::prelude_program().as_ref()).unwrap_err();
    assert!(err.to_string().contains("different prelude"), "{err}");
}

#[test]
fn the_prelude_round_trips_as_a_program() {
    let l = driver::load_text("empty.sp", "");
    let p = l.program.expect("the prelude loads");
    let counts = p.counts();
    let bytes = encode::program_bytes(&p, counts);
    let d = decode::program_bytes(&bytes).expect("decodes");
    same_program(&p, &d.program, true).unwrap();
    assert_eq!(
        source::program_to_source(&d, spindle::driver::prelude_program().as_ref()).expect("prints"),
        ""
    );
}

// ---- corrupted encodings ----------------------------------------------------------

/// The encoding of `lists.sp`, made once.
fn real_encoding() -> Vec<u8> {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES
        .get_or_init(|| {
            let (p, counts) = load(&tests_dir().join("examples/spec/lists.sp"));
            encode::program_bytes(&p, counts)
        })
        .clone()
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = real_encoding();
    for len in 0..bytes.len() {
        if decode::program_bytes(&bytes[..len]).is_ok() {
            panic!("a truncation to {len} of {} bytes decodes", bytes.len());
        }
    }
    assert!(decode::program_bytes(&bytes).is_ok());
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn every_single_byte_mutation_is_rejected_or_valid() {
    let bytes = real_encoding();
    let prelude = spindle::driver::prelude_program();
    let mut rng = Rng(0x5eed);
    let mut accepted = 0;
    for i in 0..bytes.len() {
        let mut m = bytes.clone();
        m[i] ^= (rng.next() % 255 + 1) as u8;
        if let Ok(d) = decode::program_bytes(&m) {
            accepted += 1;
            // Whatever decodes is well-formed: it re-encodes and decodes again, and
            // printing it either works or says why not.
            let again = encode::program_bytes(&d.program, d.prelude);
            decode::program_bytes(&again).expect("a decoded program re-decodes");
            if i % 8 == 0 {
                let _ = source::program_to_source(&d, prelude.as_ref());
            }
        }
    }
    // Most flips break something; some (a literal's digit, a name's letter) do not.
    assert!(
        accepted < bytes.len() / 2,
        "{accepted} of {} accepted",
        bytes.len()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = decode::program_bytes(&bytes);
        let _ = decode::term_bytes(&bytes, &tables());
    }

    #[test]
    fn random_splices_into_a_real_encoding_never_panic(
        at in any::<prop::sample::Index>(),
        junk in prop::collection::vec(any::<u8>(), 1..16),
    ) {
        let mut bytes = real_encoding();
        let i = at.index(bytes.len());
        bytes.splice(i..i, junk);
        let _ = decode::program_bytes(&bytes);
    }
}
