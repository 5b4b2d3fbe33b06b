//! `deriving (Show, Eq, Ord, ToJson, FromJson)`: the instances a data type or record
//! asks for, written as ordinary `instance` declarations (surface syntax, placed at the
//! `deriving` clause) that the elaborator checks like any other.
//!
//! The generated code calls prelude helpers whose names (`derive'show`, ...) a program
//! does not shadow by accident, and binds variables whose names (`#x`, `#a0`) a program
//! cannot write.
//!
//! - `Show`: constructors in prefix form, arguments through `derive'arg` (parentheses
//!   around an application or a negative number); records as `{ f = v, ... }`.
//! - `Eq`: an empty dictionary (`==` is structural; `Eq` exists for constraints).
//! - `Ord`: constructor order first, then the fields left to right.
//! - `ToJson`: a record as an object, a constructor without fields as its name, any
//!   other as `{"constructor": C, "fields": [...]}` (as `--format json` prints it).
//! - `FromJson`: the inverse, with `Left` naming the first missing or mistyped field.

use super::*;
use crate::syntax::ast::{Arm, DataKind, DefRole, FieldInit, LetExpr};

/// The interfaces `deriving` can write.
const DERIVABLE: [&str; 5] = ["Show", "Eq", "Ord", "ToJson", "FromJson"];

/// Builds surface syntax at one place (the `deriving` clause's interface name).
struct Gen<'a, 'b> {
    arena: &'a Bump,
    at: Span,
    _p: std::marker::PhantomData<&'b ()>,
}

impl<'a> Gen<'a, '_> {
    fn e(&self, kind: ExprKind<'a>) -> &'a Expr<'a> {
        self.arena.alloc(Expr {
            kind,
            span: self.at,
        })
    }
    fn var(&self, name: &'a str) -> &'a Expr<'a> {
        self.e(ExprKind::Var(name))
    }
    fn str(&self, s: &str) -> &'a Expr<'a> {
        self.e(ExprKind::Str(self.arena.alloc_str(s)))
    }
    fn int(&self, n: i64) -> &'a Expr<'a> {
        self.e(ExprKind::Int(n))
    }
    fn app(&self, f: &'a Expr<'a>, args: &[&'a Expr<'a>]) -> &'a Expr<'a> {
        args.iter().fold(f, |fun, arg| {
            self.e(ExprKind::App {
                fun,
                arg,
                plicity: Plicity::Explicit,
            })
        })
    }
    fn call(&self, f: &'a str, args: &[&'a Expr<'a>]) -> &'a Expr<'a> {
        self.app(self.var(f), args)
    }
    fn concat(&self, parts: Vec<&'a Expr<'a>>) -> &'a Expr<'a> {
        let mut iter = parts.into_iter().rev();
        let last = iter.next().unwrap_or_else(|| self.str(""));
        iter.fold(last, |rhs, lhs| {
            self.e(ExprKind::Binary {
                op: BinOp::Concat,
                op_span: self.at,
                lhs,
                rhs,
            })
        })
    }
    fn ident(&self, name: &'a str) -> Ident<'a> {
        Ident {
            name,
            span: self.at,
        }
    }
    fn lam(&self, params: &[&'a str], body: &'a Expr<'a>) -> &'a Expr<'a> {
        let params: Vec<Param<'a>> = params
            .iter()
            .map(|p| Param {
                name: self.ident(p),
                ty: None,
                plicity: Plicity::Explicit,
                span: self.at,
            })
            .collect();
        self.e(ExprKind::Lam {
            params: self.arena.alloc_slice_copy(&params),
            body,
        })
    }
    /// An application by value (list and tuple elements live in slices).
    fn call_v(&self, f: &'a str, args: &[&'a Expr<'a>]) -> Expr<'a> {
        let (last, init) = args.split_last().expect("a call has arguments");
        Expr {
            kind: ExprKind::App {
                fun: self.call(f, init),
                arg: last,
                plicity: Plicity::Explicit,
            },
            span: self.at,
        }
    }
    fn str_v(&self, s: &str) -> Expr<'a> {
        Expr {
            kind: ExprKind::Str(self.arena.alloc_str(s)),
            span: self.at,
        }
    }
    fn list(&self, items: Vec<Expr<'a>>) -> &'a Expr<'a> {
        self.e(ExprKind::List(self.arena.alloc_slice_fill_iter(items)))
    }
    fn pair(&self, a: Expr<'a>, b: Expr<'a>) -> Expr<'a> {
        Expr {
            kind: ExprKind::Tuple(self.arena.alloc_slice_fill_iter([a, b])),
            span: self.at,
        }
    }
    fn pat(&self, kind: PatKind<'a>) -> Pat<'a> {
        Pat {
            kind,
            span: self.at,
        }
    }
    fn var_pat(&self, v: &'a str) -> Pat<'a> {
        if v == "_" {
            self.pat(PatKind::Wild)
        } else {
            self.pat(PatKind::Var(v))
        }
    }
    fn con_pat(&self, name: &'a str, vars: &[&'a str]) -> Pat<'a> {
        let args = self
            .arena
            .alloc_slice_fill_iter(vars.iter().map(|v| self.var_pat(v)));
        self.pat(PatKind::Con {
            name: self.ident(name),
            args,
        })
    }
    /// The pattern of constructor `c` binding its fields to `vars`: by field name in a
    /// record (whose constructor is not in scope), by position otherwise.
    fn ctor_pat(&self, record: bool, c: &CtorDecl<'a>, vars: &[&'a str]) -> Pat<'a> {
        if !record {
            return self.con_pat(c.name.name, vars);
        }
        let fields = self.arena.alloc_slice_fill_iter(
            c.field_names
                .iter()
                .zip(vars)
                .map(|(f, v)| (*f, self.var_pat(v))),
        );
        self.pat(PatKind::Record {
            fields,
            rest: false,
        })
    }
    /// Constructor `c` applied to `args`: a record value in a record.
    fn ctor_value(&self, record: bool, c: &CtorDecl<'a>, args: &[&'a Expr<'a>]) -> &'a Expr<'a> {
        if !record {
            return self.call(c.name.name, args);
        }
        let fields = self.arena.alloc_slice_fill_iter(
            c.field_names
                .iter()
                .zip(args)
                .map(|(f, a)| FieldInit { name: *f, value: a }),
        );
        self.e(ExprKind::Record(fields))
    }
    fn matching(&self, scrut: &'a Expr<'a>, arms: Vec<(Pat<'a>, &'a Expr<'a>)>) -> &'a Expr<'a> {
        let arms = self
            .arena
            .alloc_slice_fill_iter(arms.into_iter().map(|(p, body)| Arm {
                pat: self.arena.alloc(p),
                guard: None,
                outdented: false,
                body,
                span: self.at,
            }));
        self.e(ExprKind::Match { scrut, arms })
    }
}

/// What `deriving` needs of a data type: its name, parameters, constructors with
/// their field counts and names, and whether it is a record.
struct Shape<'a> {
    name: &'a str,
    params: &'a [Param<'a>],
    ctors: &'a [CtorDecl<'a>],
    record: bool,
}

impl<'a> Parser<'a, '_> {
    /// Adds to [`Parser::extra`] one instance per interface in `deriving` for `decl`.
    pub(super) fn derive_all(&mut self, decl: &Decl<'a>, deriving: &[Ident<'a>]) {
        let Decl::Data {
            kind,
            name,
            params,
            ctors,
            ..
        } = decl
        else {
            return;
        };
        let shape = Shape {
            name: name.name,
            params,
            ctors,
            record: *kind == DataKind::Record,
        };
        for (i, class) in deriving.iter().enumerate() {
            if deriving[..i].iter().any(|c| c.name == class.name) {
                let d = Diagnostic::error(format!("`{}` is derived twice", class.name))
                    .at(class.span, "derived again here");
                self.fail(d);
                continue;
            }
            if !DERIVABLE.contains(&class.name) {
                let d = Diagnostic::error(format!("`{}` cannot be derived", class.name))
                    .at(class.span, "not derivable")
                    .note("deriving writes Show, Eq, Ord, ToJson and FromJson; write an instance for others");
                self.fail(d);
                continue;
            }
            if class.name != "Eq"
                && let Some(f) = ctors
                    .iter()
                    .flat_map(|c| c.fields.iter())
                    .find(|f| matches!(f.kind, ExprKind::Pi(_)))
            {
                let d = Diagnostic::error(format!(
                    "`{}` cannot be derived for `{}`: a field is a function",
                    class.name, name.name
                ))
                .at(class.span, "asked for here")
                .also(f.span, "this field is a function");
                self.fail(d);
                continue;
            }
            let decl = self.derive_one(&shape, *class);
            self.extra.push(decl);
        }
    }

    /// The instance of `class` for `shape`.
    fn derive_one(&mut self, shape: &Shape<'a>, class: Ident<'a>) -> Decl<'a> {
        let g = Gen {
            arena: self.arena,
            at: class.span,
            _p: std::marker::PhantomData,
        };
        // The head `Class (T a b)` and a constraint `Class a` per parameter of type `Type`.
        let ty_args: Vec<&'a Expr<'a>> = shape.params.iter().map(|p| g.var(p.name.name)).collect();
        let head_ty = g.app(g.var(shape.name), &ty_args);
        let head = g.app(g.var(class.name), &[head_ty]);
        let constraints: Vec<&'a Expr<'a>> = shape
            .params
            .iter()
            .filter(|p| matches!(p.ty.map(|t| &t.kind), Some(ExprKind::Universe(0))))
            .map(|p| g.app(g.var(class.name), &[g.var(p.name.name)]))
            .collect();
        let method = |m: &'a str, body: &'a Expr<'a>| vec![(g.ident(m), Vec::new(), body)];
        let methods = match class.name {
            "Show" => method("show", self.derive_show(&g, shape)),
            "Ord" => method("compare", self.derive_compare(&g, shape)),
            "ToJson" => method("toJson", self.derive_to_json(&g, shape)),
            "FromJson" => method("fromJson", self.derive_from_json(&g, shape)),
            _ => Vec::new(),
        };
        let span = class.span;
        let text = format!("{} {}", class.name, shape.name);
        self.instance_def(
            DefRole::Derived,
            Some(&text),
            head,
            &constraints,
            methods,
            span,
        )
    }

    /// Variable names `#<prefix>0 ...` for `n` fields.
    fn field_vars(&self, prefix: &str, n: usize) -> Vec<&'a str> {
        (0..n)
            .map(|i| &*self.arena.alloc_str(&format!("{prefix}'{i}")))
            .collect()
    }

    fn derive_show(&self, g: &Gen<'a, '_>, shape: &Shape<'a>) -> &'a Expr<'a> {
        let arms = shape
            .ctors
            .iter()
            .map(|c| {
                let vars = self.field_vars("a", c.fields.len());
                let text = if shape.record {
                    if vars.is_empty() {
                        g.str("{}")
                    } else {
                        let mut parts = Vec::new();
                        for (i, (f, v)) in c.field_names.iter().zip(&vars).enumerate() {
                            let sep = if i == 0 { "{ " } else { ", " };
                            parts.push(g.str(&format!("{sep}{} = ", f.name)));
                            parts.push(g.call("derive'show", &[g.var(v)]));
                        }
                        parts.push(g.str(" }"));
                        g.concat(parts)
                    }
                } else {
                    let mut parts = vec![g.str(c.name.name)];
                    for v in &vars {
                        parts.push(g.str(" "));
                        parts.push(g.call("derive'showArg", &[g.call("derive'show", &[g.var(v)])]));
                    }
                    g.concat(parts)
                };
                (g.ctor_pat(shape.record, c, &vars), text)
            })
            .collect();
        g.lam(&["x'"], g.matching(g.var("x'"), arms))
    }

    fn derive_compare(&self, g: &Gen<'a, '_>, shape: &Shape<'a>) -> &'a Expr<'a> {
        let many = shape.ctors.len() > 1;
        // `#i`: the position of a value's constructor.
        let index_arms = shape
            .ctors
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let wild: Vec<&'a str> = vec!["_"; c.fields.len()];
                (g.ctor_pat(shape.record, c, &wild), g.int(k as i64))
            })
            .collect();
        let index = g.lam(&["v'"], g.matching(g.var("v'"), index_arms));
        let arms: Vec<(Pat<'a>, &'a Expr<'a>)> = shape
            .ctors
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let xs = self.field_vars("a", c.fields.len());
                let ys = self.field_vars("b", c.fields.len());
                let same = xs.iter().zip(&ys).rev().fold(g.var("EQ"), |rest, (x, y)| {
                    g.call(
                        "derive'then",
                        &[g.call("derive'compare", &[g.var(x), g.var(y)]), rest],
                    )
                });
                let mut inner = vec![(g.ctor_pat(shape.record, c, &ys), same)];
                if many {
                    let other = g.call(
                        "derive'compareInt",
                        &[g.int(k as i64), g.app(g.var("i'"), &[g.var("y'")])],
                    );
                    inner.push((g.pat(PatKind::Wild), other));
                }
                (
                    g.ctor_pat(shape.record, c, &xs),
                    g.matching(g.var("y'"), inner),
                )
            })
            .collect();
        let body = if shape.ctors.is_empty() {
            g.var("EQ")
        } else {
            g.matching(g.var("x'"), arms)
        };
        let body = if many {
            g.e(ExprKind::Let(self.arena.alloc(LetExpr {
                name: g.ident("i'"),
                params: &[],
                ret: None,
                rhs: index,
                body,
            })))
        } else {
            body
        };
        g.lam(&["x'", "y'"], body)
    }

    fn derive_to_json(&self, g: &Gen<'a, '_>, shape: &Shape<'a>) -> &'a Expr<'a> {
        let arms = shape
            .ctors
            .iter()
            .map(|c| {
                let vars = self.field_vars("a", c.fields.len());
                let json = if shape.record {
                    let entries = c
                        .field_names
                        .iter()
                        .zip(&vars)
                        .map(|(f, v)| {
                            g.pair(g.str_v(f.name), g.call_v("derive'toJson", &[g.var(v)]))
                        })
                        .collect();
                    g.call("JObj", &[g.list(entries)])
                } else if vars.is_empty() {
                    g.call("JStr", &[g.str(c.name.name)])
                } else {
                    let fields = vars
                        .iter()
                        .map(|v| g.call_v("derive'toJson", &[g.var(v)]))
                        .collect();
                    g.call(
                        "JObj",
                        &[g.list(vec![
                            g.pair(
                                g.str_v("constructor"),
                                g.call_v("JStr", &[g.str(c.name.name)]),
                            ),
                            g.pair(g.str_v("fields"), g.call_v("JArr", &[g.list(fields)])),
                        ])],
                    )
                };
                (g.ctor_pat(shape.record, c, &vars), json)
            })
            .collect();
        g.lam(&["x'"], g.matching(g.var("x'"), arms))
    }

    /// `Right (C #a0 ...)` inside the field readers `read` builds for each field.
    fn json_fields(
        &self,
        g: &Gen<'a, '_>,
        record: bool,
        c: &CtorDecl<'a>,
        read: impl Fn(usize, &'a str, &'a Expr<'a>) -> &'a Expr<'a>,
    ) -> &'a Expr<'a> {
        let vars = self.field_vars("a", c.fields.len());
        let args: Vec<&'a Expr<'a>> = vars.iter().map(|v| g.var(v)).collect();
        let built = if args.is_empty() && !record {
            g.call("Right", &[g.var(c.name.name)])
        } else {
            g.call("Right", &[g.ctor_value(record, c, &args)])
        };
        vars.iter()
            .enumerate()
            .rev()
            .fold(built, |rest, (i, v)| read(i, v, g.lam(&[v], rest)))
    }

    fn derive_from_json(&self, g: &Gen<'a, '_>, shape: &Shape<'a>) -> &'a Expr<'a> {
        let what = g.str(shape.name);
        if shape.record {
            let c = &shape.ctors[0];
            let body = self.json_fields(g, true, c, |i, _, k| {
                g.call(
                    "derive'field",
                    &[g.str(c.field_names[i].name), g.var("o'"), k],
                )
            });
            return g.lam(
                &["j'"],
                g.call("derive'object", &[what, g.var("j'"), g.lam(&["o'"], body)]),
            );
        }
        let mut arms: Vec<(Pat<'a>, &'a Expr<'a>)> = shape
            .ctors
            .iter()
            .map(|c| {
                let body = self.json_fields(g, false, c, |i, _, k| {
                    g.call("derive'arg", &[g.int(i as i64), g.var("fs'"), k])
                });
                let body = if c.fields.is_empty() {
                    body
                } else {
                    g.call("derive'args", &[g.var("j'"), g.lam(&["fs'"], body)])
                };
                let tag = g.pat(PatKind::Str(c.name.name));
                let tag = g.pat(PatKind::Con {
                    name: g.ident("Right"),
                    args: self.arena.alloc_slice_fill_iter([tag]),
                });
                (tag, body)
            })
            .collect();
        let unknown = g.call("derive'unknown", &[what, g.var("t'")]);
        arms.push((g.con_pat("Right", &["t'"]), unknown));
        arms.push((g.con_pat("Left", &["e'"]), g.call("Left", &[g.var("e'")])));
        g.lam(
            &["j'"],
            g.matching(g.call("derive'tag", &[what, g.var("j'")]), arms),
        )
    }
}
