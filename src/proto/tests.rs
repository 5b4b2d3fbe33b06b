//! Unit tests of the codec: round trips on hand-built terms, deep terms, and every
//! way a hand-made message can be wrong.

use super::decode::{self, Scope};
use super::error::Problem;
use super::{MAX_TERM_DEPTH, encode, hash, pb};
use crate::core::equiv::alpha_eq;
use crate::core::program::Program;
use crate::core::term::{
    Binder, CaseArm, CasePat, ConId, DataId, Ix, Lit, Match, Plicity, RcTerm, Term,
};
use crate::driver;
use crate::prim::Prim;
use prost::Message;
use std::rc::Rc;

fn loaded(text: &str) -> (Program, crate::core::program::DeclCounts) {
    let l = driver::load_text("t.sp", text);
    let p = l
        .program
        .clone()
        .unwrap_or_else(|| panic!("does not load:\n{}", l.render_diagnostics()));
    let counts = super::prelude_counts(&l.sources, &p);
    (p, counts)
}

fn small() -> pb::Program {
    let (p, counts) = loaded("def main : Int = 1 + 2\n");
    encode::program(&p, counts)
}

fn problem(msg: &pb::Program) -> Problem {
    match decode::program(msg) {
        Ok(_) => panic!("decoded a bad message"),
        Err(e) => e.problem,
    }
}

fn node(kind: pb::node::Kind) -> pb::Node {
    pb::Node { kind: Some(kind) }
}

fn int_lit(n: i64) -> pb::Node {
    node(pb::node::Kind::Lit(pb::Lit {
        value: Some(pb::lit::Value::Int(n)),
    }))
}

/// `small()` with the body of its last definition (`main`) replaced.
fn with_main_body(nodes: Vec<pb::Node>) -> pb::Program {
    let mut msg = small();
    let last = msg.defs.len() - 1;
    msg.defs[last].body = Some(pb::Term { nodes });
    msg
}

fn binders(names: &[&str]) -> pb::Binders {
    pb::Binders {
        binders: names
            .iter()
            .map(|n| pb::BinderHead {
                name: n.to_string(),
                plicity: 0,
            })
            .collect(),
    }
}

fn infer_hole() -> pb::Node {
    node(pb::node::Kind::Hole(pb::Hole {
        kind: pb::HoleKind::Infer as i32,
        name: None,
    }))
}

#[test]
fn every_primitive_has_a_stable_wire_value() {
    let mut seen = std::collections::HashSet::new();
    for name in Prim::names() {
        let p = Prim::from_name(name).expect("a primitive");
        let wire = encode::prim(p) as i32;
        assert!(wire > 0, "{name} has no wire value");
        assert!(seen.insert(wire), "{name} shares its wire value");
        assert_eq!(decode::prim(wire).ok(), Some(p));
    }
    assert!(decode::prim(0).is_err());
    // The values are not dense (families are numbered apart): past the largest one.
    let largest = seen.iter().copied().max().unwrap_or(0);
    assert!(decode::prim(largest + 1).is_err());
    assert!(decode::prim(-1).is_err());
}

#[test]
fn a_loaded_program_round_trips() {
    let (p, counts) = loaded(
        "data T (a : Type) = A | B a (T a)\n\
         def f {a : Type} (x : a) (t : T a) : T a = match t with | A -> B x A | B y r -> let z = f x r in z\n\
         def main = (f 1 A, 2.5, \"s\", [1, 2], if True then 3 else 4)\n",
    );
    let prelude_only = loaded("").0;
    assert_eq!(
        counts,
        prelude_only.counts(),
        "the prelude is found by its spans"
    );
    let bytes = encode::program_bytes(&p, counts);
    let d = decode::program_bytes(&bytes).expect("decodes");
    assert_eq!(d.prelude, counts);
    assert_eq!(d.program.main, p.main);
    assert_eq!(d.program.builtins, p.builtins);
    for (a, b) in p.defs.iter().zip(&d.program.defs) {
        assert_eq!(a.name, b.name);
        assert!(
            alpha_eq(&a.ty, &b.ty) && alpha_eq(&a.body, &b.body),
            "{}",
            a.name
        );
    }
    assert_eq!(encode::program_bytes(&d.program, d.prelude), bytes);
    assert_eq!(hash::program(&d.program), hash::program(&p));
}

/// `[0, 1, ..., n - 1]` as a `Cons` chain (for hand-built tests, with made-up ids).
fn long_list(n: i64) -> RcTerm {
    let cons = Term::Con(ConId {
        data: DataId(0),
        index: 1,
    })
    .rc();
    let nil = Term::Con(ConId {
        data: DataId(0),
        index: 0,
    })
    .rc();
    (0..n).rev().fold(nil, |rest, i| {
        Term::apps(cons.clone(), [Term::Lit(Lit::Int(i)).rc(), rest])
    })
}

fn list_scope() -> Scope {
    Scope {
        defs: 0,
        ctors: vec![vec![0, 2]],
        externs: 0,
        locals: 0,
    }
}

#[test]
fn deep_terms_round_trip_without_recursion() {
    let list = long_list(200_000);
    let bytes = encode::term(&list).encode_to_vec();
    let back = decode::term_bytes(&bytes, &list_scope()).expect("decodes");
    assert!(alpha_eq(&list, &back));
    assert_eq!(hash::term(&list), hash::term(&back));

    // Deep in every other position: lambdas around matches on applications.
    let mut t = Term::Var(Ix(0)).rc();
    for i in 0..100_000u32 {
        let b = Binder {
            name: Rc::from("x"),
            plicity: Plicity::Explicit,
            ty: Term::Universe(i % 3).rc(),
        };
        let m = Term::Match(Box::new(Match {
            scrut: Term::App(t, Plicity::Implicit, Term::Var(Ix(0)).rc()).rc(),
            arms: vec![CaseArm {
                pat: CasePat::Lit(Lit::Int(i.into())),
                body: Term::Var(Ix(0)).rc(),
            }],
            default: None,
            span: super::NO_SPAN,
        }))
        .rc();
        t = Term::Lam(b, m).rc();
    }
    let t = Term::Lam(
        Binder {
            name: Rc::from("top"),
            plicity: Plicity::Explicit,
            ty: Term::Universe(0).rc(),
        },
        t,
    );
    let msg = encode::term(&t);
    let back = decode::term(&msg, &Scope::default()).expect("decodes");
    assert!(alpha_eq(&t, &back));
}

#[test]
fn terms_deeper_than_the_limit_are_an_error() {
    // `f (f (f ... 0))`: each application opens a level.
    let mut nodes = Vec::with_capacity(2 * MAX_TERM_DEPTH + 3);
    for _ in 0..=MAX_TERM_DEPTH {
        nodes.push(node(pb::node::Kind::App(pb::App { args: vec![0] })));
        nodes.push(node(pb::node::Kind::Universe(0)));
    }
    nodes.push(int_lit(0));
    let err = decode::term(&pb::Term { nodes }, &Scope::default()).unwrap_err();
    assert_eq!(
        err.problem,
        Problem::TooDeep {
            limit: MAX_TERM_DEPTH
        }
    );
}

#[test]
fn dangling_indices_are_an_error() {
    let p = problem(&with_main_body(vec![node(pb::node::Kind::Var(0))]));
    assert_eq!(p, Problem::DanglingIndex { index: 0, depth: 0 });
    // Under one lambda, index 1 dangles; index 0 does not.
    let lam = |ix| {
        vec![
            node(pb::node::Kind::Lam(binders(&["x"]))),
            infer_hole(),
            node(pb::node::Kind::Var(ix)),
        ]
    };
    let p = problem(&with_main_body(lam(1)));
    assert_eq!(p, Problem::DanglingIndex { index: 1, depth: 1 });
    assert!(decode::program(&with_main_body(lam(0))).is_ok());
    // A binder's annotation is outside it.
    let p = problem(&with_main_body(vec![
        node(pb::node::Kind::Pi(binders(&["x"]))),
        node(pb::node::Kind::Var(0)),
        node(pb::node::Kind::Var(0)),
    ]));
    assert_eq!(p, Problem::DanglingIndex { index: 0, depth: 0 });
}

#[test]
fn references_out_of_range_are_an_error() {
    let msg = small();
    let (defs, datas) = (msg.defs.len() as u64, msg.datas.len() as u64);
    for (kind, what, len) in [
        (pb::node::Kind::Def(defs as u32), "definition", defs),
        (pb::node::Kind::Def(u32::MAX), "definition", defs),
        (pb::node::Kind::Data(datas as u32), "data type", datas),
        (
            pb::node::Kind::Con(pb::ConRef { data: 0, index: 99 }),
            "constructor",
            2,
        ),
        (
            pb::node::Kind::External(1000),
            "external",
            msg.externs.len() as u64,
        ),
    ] {
        let p = problem(&with_main_body(vec![node(kind)]));
        assert!(
            matches!(p, Problem::OutOfRange { what: w, len: l, .. } if w == what && l == len),
            "{p:?}"
        );
    }
    let mut m = small();
    m.main = Some(m.defs.len() as u32);
    assert!(matches!(problem(&m), Problem::OutOfRange { .. }));
    let mut m = small();
    m.main = Some(0);
    assert_eq!(problem(&m), Problem::MainInPrelude);
    let mut m = small();
    m.prelude.as_mut().expect("counts").defs = m.defs.len() as u32 + 1;
    assert!(matches!(problem(&m), Problem::OutOfRange { .. }));
}

#[test]
fn unknown_enum_values_and_missing_parts_are_errors() {
    let cases = [
        (vec![node(pb::node::Kind::Prim(0))], "primitive"),
        (vec![node(pb::node::Kind::Prim(9999))], "primitive"),
        (vec![node(pb::node::Kind::PrimType(-1))], "primitive type"),
        (
            vec![node(pb::node::Kind::Hole(pb::Hole {
                kind: 0,
                name: None,
            }))],
            "hole kind",
        ),
        (
            vec![
                node(pb::node::Kind::App(pb::App { args: vec![7] })),
                int_lit(1),
                int_lit(2),
            ],
            "plicity",
        ),
    ];
    for (nodes, what) in cases {
        let p = problem(&with_main_body(nodes));
        assert!(
            matches!(p, Problem::UnknownEnum { what: w, .. } if w == what),
            "{p:?}"
        );
    }
    assert!(matches!(
        problem(&with_main_body(vec![pb::Node { kind: None }])),
        Problem::Missing(_)
    ));
    assert!(matches!(
        problem(&with_main_body(vec![])),
        Problem::Missing(_)
    ));
    assert!(matches!(
        problem(&with_main_body(vec![node(pb::node::Kind::Lit(pb::Lit {
            value: None
        }))])),
        Problem::Missing(_)
    ));
    let mut m = small();
    m.builtins = None;
    assert!(matches!(problem(&m), Problem::Missing(_)));
    let mut m = small();
    let last = m.defs.len() - 1;
    m.defs[last].ty = None;
    assert!(matches!(problem(&m), Problem::Missing(_)));
    let mut m = small();
    m.format_version = 2;
    assert_eq!(problem(&m), Problem::UnsupportedVersion { found: 2 });
}

#[test]
fn malformed_trees_are_errors() {
    assert_eq!(
        problem(&with_main_body(vec![int_lit(1), int_lit(2)])),
        Problem::TrailingNodes { extra: 1 }
    );
    assert_eq!(
        problem(&with_main_body(vec![
            node(pb::node::Kind::App(pb::App { args: vec![0, 0] })),
            int_lit(1),
        ])),
        Problem::TermEndsEarly
    );
    // Announcing a million binders with three nodes to follow.
    let many: Vec<&str> = vec!["x"; 1_000_000];
    assert_eq!(
        problem(&with_main_body(vec![
            node(pb::node::Kind::Lam(binders(&many))),
            int_lit(1),
        ])),
        Problem::TermEndsEarly
    );
    assert!(matches!(
        problem(&with_main_body(vec![
            node(pb::node::Kind::App(pb::App { args: vec![] })),
            int_lit(1),
        ])),
        Problem::EmptyChain(_)
    ));
    assert!(matches!(
        problem(&with_main_body(vec![
            node(pb::node::Kind::Let(binders(&[]))),
            int_lit(1),
        ])),
        Problem::EmptyChain(_)
    ));
}

fn bool_match(arm: pb::Arm, fields: usize) -> Vec<pb::Node> {
    let mut nodes = vec![
        node(pb::node::Kind::Match(pb::MatchHead {
            arms: vec![arm],
            default: None,
        })),
        int_lit(0),
    ];
    nodes.extend((0..fields).map(|_| infer_hole()));
    nodes.push(int_lit(1));
    nodes
}

#[test]
fn bad_patterns_are_errors() {
    let (p, _) = loaded("");
    let t = p.builtins.true_;
    let con_arm = |fields: Vec<&str>| pb::Arm {
        pattern: Some(pb::arm::Pattern::Con(pb::ConPattern {
            con: Some(pb::ConRef {
                data: t.data.0,
                index: t.index,
            }),
            fields: fields
                .into_iter()
                .map(|n| pb::BinderHead {
                    name: n.to_string(),
                    plicity: 0,
                })
                .collect(),
        })),
    };
    assert!(decode::program(&with_main_body(bool_match(con_arm(vec![]), 0))).is_ok());
    assert_eq!(
        problem(&with_main_body(bool_match(con_arm(vec!["x"]), 1))),
        Problem::PatternArity {
            expected: 0,
            found: 1
        }
    );
    let float_arm = pb::Arm {
        pattern: Some(pb::arm::Pattern::Lit(pb::Lit {
            value: Some(pb::lit::Value::FloatBits(0)),
        })),
    };
    assert_eq!(
        problem(&with_main_body(bool_match(float_arm, 0))),
        Problem::FloatPattern
    );
    let no_pattern = pb::Arm { pattern: None };
    assert!(matches!(
        problem(&with_main_body(bool_match(no_pattern, 0))),
        Problem::Missing(_)
    ));
}

#[test]
fn names_that_would_not_print_as_themselves_are_errors() {
    let bad_def = |name: &str| {
        let mut m = small();
        let last = m.defs.len() - 1;
        m.defs[last].name = name.to_string();
        problem(&m)
    };
    for name in ["", "x y", "def", "x = 1\ndef main", "1x", "_", "a-b"] {
        assert!(matches!(bad_def(name), Problem::BadName { .. }), "{name:?}");
    }
    let mut m = small();
    m.datas[0].name = "lower".to_string();
    assert!(matches!(problem(&m), Problem::BadName { .. }));
    let mut m = small();
    m.datas[0].ctors[0].name = "Not ok".to_string();
    assert!(matches!(problem(&m), Problem::BadName { .. }));
    let p = problem(&with_main_body(vec![
        node(pb::node::Kind::Lam(binders(&["x)"]))),
        infer_hole(),
        int_lit(0),
    ]));
    assert!(matches!(p, Problem::BadName { .. }));
    let mut m = small();
    m.externs[0].name = "launchMissiles".to_string();
    assert!(matches!(problem(&m), Problem::UnknownExternal(_)));
}

#[test]
fn inconsistent_builtins_are_an_error() {
    let mut m = small();
    let b = m.builtins.as_mut().expect("builtins");
    std::mem::swap(&mut b.true_con, &mut b.nil);
    assert!(matches!(problem(&m), Problem::BadBuiltins(_)));
}

#[test]
fn huge_declared_lengths_fail_before_allocating() {
    // Field 4 (datas), length-delimited, declaring 2^62 bytes.
    let mut bytes = vec![0x22];
    prost::encoding::encode_varint(1 << 62, &mut bytes);
    assert!(matches!(
        decode::program_bytes(&bytes).unwrap_err().problem,
        Problem::Malformed(_)
    ));
    // A data type whose name declares 2^31 bytes, inside a well-formed outer length.
    let bytes = [0x22, 0x06, 0x0a, 0x80, 0x80, 0x80, 0x80, 0x08];
    assert!(matches!(
        decode::program_bytes(&bytes).unwrap_err().problem,
        Problem::Malformed(_)
    ));
    // A term whose application node's packed plicities declare 2^40 bytes.
    let mut inner = vec![0x0a];
    prost::encoding::encode_varint(1 << 40, &mut inner);
    let mut node = vec![0x6a, inner.len() as u8];
    node.extend(&inner);
    let mut bytes = vec![0x0a, node.len() as u8];
    bytes.extend(&node);
    assert!(matches!(
        decode::term_bytes(&bytes, &Scope::default())
            .unwrap_err()
            .problem,
        Problem::Malformed(_)
    ));
}

#[test]
fn absurdly_nested_groups_are_an_error() {
    // An unknown field 15 opening groups (wire type 3) inside each other, far past
    // prost's recursion limit.
    let bytes = vec![0x7b; 1_000_000];
    assert!(matches!(
        decode::program_bytes(&bytes).unwrap_err().problem,
        Problem::Malformed(_)
    ));
}

#[test]
fn hashes_are_stable_lowercase_hex() {
    let h = hash::term(&Term::Lit(Lit::Int(42)));
    let hex = h.to_hex();
    assert_eq!(hex.len(), 64);
    assert!(hex.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')));
    // Pinned: the canonical bytes (Term.nodes[0].lit.int = 42, zigzag 84) and their
    // hash. Changing either means every stored hash changes.
    let bytes = encode::term_with(&Term::Lit(Lit::Int(42)), encode::Names::Drop).encode_to_vec();
    assert_eq!(bytes, [0x0a, 0x04, 0x42, 0x02, 0x08, 0x54]);
    assert_eq!(
        hex,
        "20bda0219801ab68a16e33812802507e842486aae6326cf73aa571193b687f82"
    );
}

#[test]
fn the_program_hash_ignores_printing_names_but_not_meaning() {
    let (p, _) = loaded(
        "data C = Red | Green\ndef pick (c : C) : Int = match c with | Red -> 1 | Green -> 2\ndef main = pick Red\n",
    );
    let h = hash::program(&p);
    let renamed = |f: &dyn Fn(&mut Program)| {
        let mut q = p.clone();
        f(&mut q);
        hash::program(&q)
    };
    let n = p.defs.len();
    let d = p.datas.len();
    assert_eq!(renamed(&|q| q.defs[n - 2].name = Rc::from("choose")), h);
    assert_eq!(renamed(&|q| q.datas[d - 1].name = Rc::from("Colour")), h);
    assert_ne!(
        renamed(&|q| q.datas[d - 1].ctors[0].name = Rc::from("Rouge")),
        h
    );
    assert_ne!(
        renamed(&|q| q.defs[n - 1].body = Term::Lit(Lit::Int(1)).rc()),
        h
    );
}

#[test]
fn the_size_limit_bounds_decoding_memory() {
    // The worst input for memory is a run of empty messages (two bytes each) that prost
    // materialises before anything is checked; the largest such message is a term node.
    // With the size limit, that stays under a gigabyte (16 MiB of empty definitions
    // peaks at about 600 MB).
    let per_two_bytes = std::mem::size_of::<pb::Node>()
        .max(std::mem::size_of::<pb::DefDecl>())
        .max(std::mem::size_of::<pb::DataDecl>());
    assert!(per_two_bytes * (super::MAX_ENCODED_BYTES / 2) < 1 << 30);
    // Stored states may be larger (the figure `MAX_STATE_BYTES` documents).
    assert!(per_two_bytes * (super::MAX_STATE_BYTES / 2) < 5 << 29);
    let too_big = vec![0u8; super::MAX_ENCODED_BYTES + 1];
    assert!(matches!(
        decode::program_bytes(&too_big).unwrap_err().problem,
        Problem::TooLarge { .. }
    ));
}

#[test]
fn externals_that_would_clash_when_printed_are_an_error() {
    let (p, counts) =
        loaded("extern run : String -> List String -> String\ndef main = run \"ls\" []\n");
    let d = decode::program_bytes(&encode::program_bytes(&p, counts)).expect("decodes");
    let text = super::source::program_to_source(&d, crate::driver::prelude_program().as_ref())
        .expect("prints");
    assert!(text.contains("extern run :"), "{text}");

    // A second `run` of the program's own: both would be declared in one file.
    let mut twice = d.clone();
    let own = twice.program.externs.last().expect("an external").clone();
    twice.program.externs.push(own);
    let err = super::source::program_to_source(&twice, crate::driver::prelude_program().as_ref())
        .unwrap_err();
    assert!(matches!(err.problem, Problem::Unprintable(_)), "{err}");

    // The program's `run` hides the prelude's, which a definition also refers to.
    let mut both = d.clone();
    let prelude_run = p
        .externs
        .iter()
        .position(|e| &*e.name == "run")
        .expect("the prelude declares `run`");
    assert!(prelude_run < counts.externs);
    let main = both.program.main.expect("main").0 as usize;
    both.program.defs[main].body = Term::Extern(
        crate::core::term::ExternId(prelude_run as u32),
        super::NO_SPAN,
    )
    .rc();
    let err = super::source::program_to_source(&both, crate::driver::prelude_program().as_ref())
        .unwrap_err();
    assert!(matches!(err.problem, Problem::Unprintable(_)), "{err}");
}
