//! Hand-built programs for machine tests (the parser lands separately).
#![allow(dead_code)]

use spindle::core::program::{Builtins, CtorDecl, DataDecl, DefDecl, Program};
use spindle::core::term::*;
use spindle::prim::Prim;
use spindle::syntax::span::{FileId, Span};

pub fn sp() -> Span {
    Span::new(FileId(0), 0, 0)
}

pub fn b(name: &str) -> Binder {
    Binder {
        name: name.into(),
        plicity: Plicity::Explicit,
        ty: Term::infer(sp()),
    }
}

pub fn var(i: u32) -> RcTerm {
    Term::Var(Ix(i)).rc()
}
pub fn int(n: i64) -> RcTerm {
    Term::Lit(Lit::Int(n)).rc()
}
pub fn float(x: f64) -> RcTerm {
    Term::Lit(Lit::Float(x)).rc()
}
pub fn str_(s: &str) -> RcTerm {
    Term::Lit(Lit::Str(s.into())).rc()
}
pub fn lam(name: &str, body: RcTerm) -> RcTerm {
    Term::Lam(b(name), body).rc()
}
pub fn app(f: RcTerm, args: Vec<RcTerm>) -> RcTerm {
    Term::apps(f, args)
}
pub fn prim(p: Prim, args: Vec<RcTerm>) -> RcTerm {
    Term::apps(Term::Prim(p, sp()).rc(), args)
}
pub fn def(i: u32) -> RcTerm {
    Term::Def(DefId(i)).rc()
}
pub fn let_(name: &str, rhs: RcTerm, body: RcTerm) -> RcTerm {
    Term::Let(b(name), rhs, body).rc()
}
pub fn con(p: &Program, name: &str) -> RcTerm {
    for (di, d) in p.datas.iter().enumerate() {
        for (ci, c) in d.ctors.iter().enumerate() {
            if &*c.name == name {
                return Term::Con(ConId {
                    data: DataId(di as u32),
                    index: ci as u32,
                })
                .rc();
            }
        }
    }
    panic!("no constructor {name}")
}
pub fn conid(p: &Program, name: &str) -> ConId {
    match &*con(p, name) {
        Term::Con(c) => *c,
        _ => unreachable!(),
    }
}
/// `if c then t else e`
pub fn if_(p: &Program, c: RcTerm, t: RcTerm, e: RcTerm) -> RcTerm {
    Term::Match(Box::new(Match {
        scrut: c,
        arms: vec![
            CaseArm {
                pat: CasePat::Con(p.builtins.true_, vec![]),
                body: t,
            },
            CaseArm {
                pat: CasePat::Con(p.builtins.false_, vec![]),
                body: e,
            },
        ],
        default: None,
        span: sp(),
    }))
    .rc()
}
/// `match s with | Nil -> n | Cons h t -> c` (c under h, t: t is index 0)
pub fn match_list(p: &Program, s: RcTerm, n: RcTerm, c: RcTerm) -> RcTerm {
    Term::Match(Box::new(Match {
        scrut: s,
        arms: vec![
            CaseArm {
                pat: CasePat::Con(p.builtins.nil, vec![]),
                body: n,
            },
            CaseArm {
                pat: CasePat::Con(p.builtins.cons, vec![b("h"), b("t")]),
                body: c,
            },
        ],
        default: None,
        span: sp(),
    }))
    .rc()
}

fn data(name: &str, params: usize, ctors: &[(&str, usize)]) -> DataDecl {
    DataDecl {
        name: name.into(),
        params: (0..params).map(|i| b(&format!("a{i}"))).collect(),
        ctors: ctors
            .iter()
            .map(|(n, k)| CtorDecl {
                name: (*n).into(),
                fields: (0..*k).map(|_| Term::infer(sp())).collect(),
                field_names: Vec::new(),
                span: sp(),
            })
            .collect(),
        interface: false,
        record: false,
        span: sp(),
    }
}

/// The prelude types, no definitions.
pub fn base() -> Program {
    let datas = vec![
        data("Bool", 0, &[("False", 0), ("True", 0)]),
        data("Unit", 0, &[("MkUnit", 0)]),
        data("Pair", 2, &[("MkPair", 2)]),
        data("Maybe", 1, &[("Nothing", 0), ("Just", 1)]),
        data("List", 1, &[("Nil", 0), ("Cons", 2)]),
        data("Tree", 1, &[("Leaf", 1), ("Node", 2)]),
    ];
    let c = |d: u32, i: u32| ConId {
        data: DataId(d),
        index: i,
    };
    Program {
        run_bodies: Default::default(),
        inlined_bodies: Default::default(),
        collections: Default::default(),
        defs: vec![],
        datas,
        externs: vec![],
        builtins: Builtins {
            bool_: DataId(0),
            false_: c(0, 0),
            true_: c(0, 1),
            unit: DataId(1),
            unit_con: c(1, 0),
            pair: DataId(2),
            mk_pair: c(2, 0),
            list: DataId(4),
            nil: c(4, 0),
            cons: c(4, 1),
            maybe: DataId(3),
            nothing: c(3, 0),
            just: c(3, 1),
            append: None,
        },
        main: None,
    }
}

/// Adds a definition and returns its id.
pub fn add_def(p: &mut Program, name: &str, body: RcTerm) -> DefId {
    p.defs.push(DefDecl {
        name: name.into(),
        ty: Term::infer(sp()),
        body,
        span: sp(),
        role: spindle::syntax::ast::DefRole::Plain,
    });
    DefId(p.defs.len() as u32 - 1)
}

/// Evaluates `main` and prints it.
pub fn run_main(p: &Program) -> Result<String, String> {
    run_main_kind(p).map_err(|(_, m)| m)
}

/// [`run_main`], with the kind of the error.
pub fn run_main_kind(p: &Program) -> Result<String, (spindle::machine::error::ErrorKind, String)> {
    let mut m = spindle::machine::Machine::new(p);
    let main = p.main.expect("main");
    let v = m.whnf_def(main).map_err(|e| (e.kind, e.message.clone()))?;
    m.print_value(v, false)
        .map_err(|e| (e.kind, e.message.clone()))
}
