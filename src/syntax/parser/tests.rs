//! The parser's unit tests.

use super::*;
use crate::syntax::span::SourceMap;

/// A compact S-expression of an expression, to check tree shapes.
fn sexp(e: &Expr<'_>) -> String {
    match &e.kind {
        ExprKind::Var(x) => x.to_string(),
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Float(x) => format!("{x:?}"),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Char(c) => format!("{c:?}"),
        ExprKind::Universe(0) => "Type".to_string(),
        ExprKind::Universe(n) => format!("Type{n}"),
        ExprKind::Hole => "_".to_string(),
        ExprKind::TypedHole(Some(n)) => format!("?{n}"),
        ExprKind::TypedHole(None) => "?".to_string(),
        ExprKind::Lam { params, body } => {
            let ps: Vec<String> = params.iter().map(param).collect();
            format!("(\\ {} {})", ps.join(" "), sexp(body))
        }
        ExprKind::Pi(PiExpr {
            name: None,
            dom,
            cod,
            ..
        }) => format!("(-> {} {})", sexp(dom), sexp(cod)),
        ExprKind::Pi(PiExpr {
            name: Some(x),
            plicity,
            dom,
            cod,
        }) => match plicity {
            Plicity::Explicit => format!("(Pi ({} : {}) {})", x.name, sexp(dom), sexp(cod)),
            Plicity::Implicit => format!("(Pi {{{} : {}}} {})", x.name, sexp(dom), sexp(cod)),
        },
        ExprKind::Let(LetExpr {
            name,
            params,
            ret,
            rhs,
            body,
        }) => {
            let mut head = name.name.to_string();
            for p in params.iter() {
                head = format!("{head} {}", param(p));
            }
            if let Some(t) = ret {
                head = format!("{head} : {}", sexp(t));
            }
            format!("(let {head} = {} in {})", sexp(rhs), sexp(body))
        }
        ExprKind::If { cond, then_, else_ } => {
            format!("(if {} {} {})", sexp(cond), sexp(then_), sexp(else_))
        }
        ExprKind::Match { scrut, arms } => {
            let arms: Vec<String> = arms
                .iter()
                .map(|a| match a.guard {
                    Some(g) => format!("[{} if {} {}]", pat(a.pat), sexp(g), sexp(a.body)),
                    None => format!("[{} {}]", pat(a.pat), sexp(a.body)),
                })
                .collect();
            format!("(match {} {})", sexp(scrut), arms.join(" "))
        }
        ExprKind::Binary { op, lhs, rhs, .. } => {
            format!("({} {} {})", op.symbol(), sexp(lhs), sexp(rhs))
        }
        ExprKind::App { fun, arg, plicity } => match plicity {
            Plicity::Explicit => format!("({} {})", sexp(fun), sexp(arg)),
            Plicity::Implicit => format!("({} {{{}}})", sexp(fun), sexp(arg)),
        },
        ExprKind::Ann { expr, ty } => format!("(: {} {})", sexp(expr), sexp(ty)),
        ExprKind::Unit => "()".to_string(),
        ExprKind::Tuple(es) => format!(
            "(tuple {})",
            es.iter().map(sexp).collect::<Vec<_>>().join(" ")
        ),
        ExprKind::List(es) => {
            format!("[{}]", es.iter().map(sexp).collect::<Vec<_>>().join(" "))
        }
        ExprKind::Field { expr, field } => format!("(. {} {})", sexp(expr), field.name),
        ExprKind::Record(fs) => format!("{{{}}}", fields(fs)),
        ExprKind::Update { expr, fields: fs } => format!("{{{} | {}}}", sexp(expr), fields(fs)),
    }
}

fn fields(fs: &[crate::syntax::ast::FieldInit<'_>]) -> String {
    fs.iter()
        .map(|f| format!("{} = {}", f.name.name, sexp(f.value)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn param(p: &Param<'_>) -> String {
    match (p.plicity, p.ty) {
        (Plicity::Explicit, None) => p.name.name.to_string(),
        (Plicity::Explicit, Some(t)) => format!("({} : {})", p.name.name, sexp(t)),
        (Plicity::Implicit, None) => format!("{{{}}}", p.name.name),
        (Plicity::Implicit, Some(t)) => format!("{{{} : {}}}", p.name.name, sexp(t)),
    }
}

fn pat(p: &Pat<'_>) -> String {
    match &p.kind {
        PatKind::Var(x) => x.to_string(),
        PatKind::Wild => "_".to_string(),
        PatKind::Int(n) => n.to_string(),
        PatKind::Str(s) => format!("{s:?}"),
        PatKind::Char(c) => format!("{c:?}"),
        PatKind::Con { name, args: [] } => name.name.to_string(),
        PatKind::Con { name, args } => {
            format!(
                "({} {})",
                name.name,
                args.iter().map(pat).collect::<Vec<_>>().join(" ")
            )
        }
        PatKind::Unit => "()".to_string(),
        PatKind::Tuple(ps) => format!(
            "(tuple {})",
            ps.iter().map(pat).collect::<Vec<_>>().join(" ")
        ),
        PatKind::List(ps) => format!("[{}]", ps.iter().map(pat).collect::<Vec<_>>().join(" ")),
        PatKind::Record { fields, rest } => {
            let mut parts: Vec<String> = fields
                .iter()
                .map(|(f, p)| format!("{} = {}", f.name, pat(p)))
                .collect();
            if *rest {
                parts.push("..".to_string());
            }
            format!("{{{}}}", parts.join(", "))
        }
        PatKind::Cons { head, tail } => format!("(:: {} {})", pat(head), pat(tail)),
    }
}

#[test]
fn record_forms() {
    assert_eq!(shape("s.name"), "(. s name)");
    assert_eq!(shape("f s.name {A}"), "((f (. s name)) {A})");
    assert_eq!(shape("(g x).a.b"), "(. (. (g x) a) b)");
    assert_eq!(
        shape("{ name = 1, reads = x + 1 }"),
        "{name = 1, reads = (+ x 1)}"
    );
    assert_eq!(shape("{}"), "{}");
    assert_eq!(shape("{ r | a = 1 }"), "{r | a = 1}");
    assert_eq!(shape("f { a = 1 } {B}"), "((f {a = 1}) {B})");
    assert_eq!(shape("{ s.inner | a = 1 }"), "{(. s inner) | a = 1}");
    assert_eq!(shape("{a : Type} -> a"), "(Pi {a : Type} a)");
    assert_eq!(
        shape("Show a => a -> String"),
        "(Pi {dict' : (Show a)} (-> a String))"
    );
    assert_eq!(
        shape("match s with | { name = n, .. } -> n | { reads } -> reads"),
        "(match s [{name = n, ..} n] [{reads = reads} reads])"
    );
}

#[test]
fn record_and_interface_declarations() {
    let text = "record Sample = { name : String, reads : Int } deriving (Show, Eq)\n\
interface Pretty (a : Type) where\n  pretty : a -> String\n  width : a -> Int\n\
instance Pretty Int where\n  pretty n = showInt n\n  width n = 1\n\
def record = 1\n";
    let arena = Bump::new();
    let (module, diags) = parse_module(&arena, FileId(0), text);
    assert!(diags.is_empty(), "{diags:#?}");
    let names: Vec<&str> = module
        .decls
        .iter()
        .map(|d| match d {
            Decl::Data { name, .. } | Decl::Def { name, .. } | Decl::Extern { name, .. } => {
                name.name
            }
            Decl::Import { .. } => "import",
        })
        .collect();
    assert_eq!(
        names,
        [
            "Sample",
            "derived'Show'Sample",
            "derived'Eq'Sample",
            "Pretty",
            "pretty",
            "width",
            "instance'Pretty'Int",
            "record"
        ]
    );
}

#[test]
fn a_method_line_ends_the_one_before() {
    // The second method starts in the first's column: it is not an argument.
    let text = "instance Show Int where\n  show n = f n\n  other = 2\n";
    let arena = Bump::new();
    let (module, diags) = parse_module(&arena, FileId(0), text);
    assert!(diags.is_empty(), "{diags:#?}");
    let Decl::Def { body, .. } = &module.decls[0] else {
        panic!()
    };
    assert_eq!(sexp(body), "{show = (\\ n (f n)), other = 2}");
}

/// The shape of an expression, panicking with the diagnostics if it fails.
fn shape(text: &str) -> String {
    let arena = Bump::new();
    match parse_expr(&arena, FileId(0), text) {
        Ok(e) => sexp(e),
        Err(d) => panic!("{text:?} failed: {d:#?}"),
    }
}

/// The diagnostics of an expression that must fail.
fn errors(text: &str) -> Vec<Diagnostic> {
    let arena = Bump::new();
    match parse_expr(&arena, FileId(0), text) {
        Ok(e) => panic!("{text:?} parsed as {}", sexp(e)),
        Err(d) => d,
    }
}

/// `(line, column, message)` of each diagnostic of a module.
fn module_errors(text: &str) -> Vec<(usize, usize, String)> {
    let mut map = SourceMap::new();
    let file = map.add("t.sp", None, text.to_string());
    let arena = Bump::new();
    let (_, diags) = parse_module(&arena, file, text);
    diags
        .iter()
        .map(|d| {
            let loc = map.location(d.primary_span().expect("primary label"));
            (loc.line, loc.col, d.message.clone())
        })
        .collect()
}

#[test]
fn arithmetic_precedence_and_associativity() {
    assert_eq!(shape("1 + 2 * 3"), "(+ 1 (* 2 3))");
    assert_eq!(shape("1 * 2 + 3"), "(+ (* 1 2) 3)");
    assert_eq!(shape("a - b - c"), "(- (- a b) c)");
    assert_eq!(shape("a / b * c % d"), "(% (* (/ a b) c) d)");
    assert_eq!(shape("a ++ b ++ c"), "(++ a (++ b c))");
    assert_eq!(shape("a ++ b + c"), "(++ a (+ b c))");
    assert_eq!(shape("(a + b) * c"), "(* (+ a b) c)");
}

#[test]
fn logical_and_comparison_precedence() {
    assert_eq!(shape("a || b && c"), "(|| a (&& b c))");
    assert_eq!(shape("a && b || c"), "(|| (&& a b) c)");
    assert_eq!(shape("a || b || c"), "(|| a (|| b c))");
    assert_eq!(shape("a && b && c"), "(&& a (&& b c))");
    assert_eq!(shape("x == y + 1 && y < z"), "(&& (== x (+ y 1)) (< y z))");
    assert_eq!(shape("a ++ b == c"), "(== (++ a b) c)");
    assert_eq!(shape("a != b || c >= d"), "(|| (!= a b) (>= c d))");
}

#[test]
fn chained_comparisons_are_rejected() {
    for text in ["a < b < c", "a == b == c", "a < b + 1 >= c", "a <= b != c"] {
        let d = errors(text);
        assert_eq!(
            d[0].message, "comparison operators cannot be chained",
            "{text}"
        );
    }
    assert_eq!(shape("(a < b) == c"), "(== (< a b) c)");
}

#[test]
fn application() {
    assert_eq!(shape("f x y"), "((f x) y)");
    assert_eq!(shape("f {A} x"), "((f {A}) x)");
    assert_eq!(shape("f x y + g z"), "(+ ((f x) y) (g z))");
    assert_eq!(shape("f (g x) [1, 2] ()"), "(((f (g x)) [1 2]) ())");
    assert_eq!(shape("Just Type"), "(Just Type)");
    assert_eq!(shape("f Type 2"), "(f Type2)");
    assert_eq!(shape("f ?goal ? _"), "(((f ?goal) ?) _)");
}

#[test]
fn open_ended_forms_as_last_operand_or_argument() {
    assert_eq!(shape("f x \\y -> y"), "((f x) (\\ y y))");
    assert_eq!(shape("1 + if c then 2 else 3"), "(+ 1 (if c 2 3))");
    assert_eq!(
        shape("1 + if c then 2 else 3 + 4"),
        "(+ 1 (if c 2 (+ 3 4)))"
    );
    assert_eq!(shape("f let x = 1 in x"), "(f (let x = 1 in x))");
    assert_eq!(shape("2 * match x with | A -> 1"), "(* 2 (match x [A 1]))");
    assert_eq!(shape("\\x -> x + 1"), "(\\ x (+ x 1))");
    assert_eq!(shape("\\x -> \\y -> x"), "(\\ x (\\ y x))");
}

#[test]
fn arrows() {
    assert_eq!(shape("A -> B -> C"), "(-> A (-> B C))");
    assert_eq!(shape("(A -> B) -> C"), "(-> (-> A B) C)");
    assert_eq!(shape("(x : A) -> B x"), "(Pi (x : A) (B x))");
    assert_eq!(shape("{a : Type} -> a -> a"), "(Pi {a : Type} (-> a a))");
    assert_eq!(
        shape("(x y : Int) -> P x y"),
        "(Pi (x : Int) (Pi (y : Int) ((P x) y)))"
    );
    assert_eq!(
        shape("{a b : Type} -> a"),
        "(Pi {a : Type} (Pi {b : Type} a))"
    );
    assert_eq!(
        shape("(a : Type) {b : Type} -> a"),
        "(Pi (a : Type) (Pi {b : Type} a))"
    );
    assert_eq!(
        shape("{a : Type} (x : a) -> a"),
        "(Pi {a : Type} (Pi (x : a) a))"
    );
    assert_eq!(shape("(_ : A) -> B"), "(Pi (_ : A) B)");
    assert_eq!(shape("List a -> Int"), "(-> (List a) Int)");
    // An annotation that is not of names is an ordinary domain.
    assert_eq!(shape("(f 1 : A) -> B"), "(-> (: (f 1) A) B)");
    // Without an arrow it is an annotation.
    assert_eq!(shape("(x : A)"), "(: x A)");
    assert_eq!(shape("Type 1 -> Type"), "(-> Type1 Type)");
}

#[test]
fn lambdas() {
    assert_eq!(shape("\\x y -> x"), "(\\ x y x)");
    assert_eq!(
        shape("\\(x : A) {b : Type} -> x"),
        "(\\ (x : A) {b : Type} x)"
    );
    assert_eq!(shape("\\_ -> 0"), "(\\ _ 0)");
    assert_eq!(
        shape("\\{b} (x y : Int) -> x"),
        "(\\ {b} (x : Int) (y : Int) x)"
    );
    assert_eq!(shape("\\x -> A -> B"), "(\\ x (-> A B))");
}

#[test]
fn let_if_match() {
    assert_eq!(shape("let x = 1 in x + 1"), "(let x = 1 in (+ x 1))");
    assert_eq!(shape("let x : Int = 1 in x"), "(let x : Int = 1 in x)");
    assert_eq!(
        shape("let f (x : Int) : Int = x in f 2"),
        "(let f (x : Int) : Int = x in (f 2))"
    );
    assert_eq!(shape("if a then b else c"), "(if a b c)");
    assert_eq!(
        shape("if a then if b then c else d else e"),
        "(if a (if b c d) e)"
    );
    assert_eq!(
        shape("match x with | A -> 1 | B y -> y"),
        "(match x [A 1] [(B y) y])"
    );
    assert_eq!(
        shape("match x with A -> 1 | _ -> 2"),
        "(match x [A 1] [_ 2])"
    );
    // Arms extend as far right as possible: the inner match takes the last arm.
    assert_eq!(
        shape("match x with | A -> match y with | C -> 1 | D -> 2"),
        "(match x [A (match y [C 1] [D 2])])"
    );
    assert_eq!(
        shape("match x with | A -> (match y with | C -> 1) | D -> 2"),
        "(match x [A (match y [C 1])] [D 2])"
    );
    assert_eq!(shape("(match v with)"), "(match v )");
}

#[test]
fn atoms() {
    assert_eq!(shape("()"), "()");
    assert_eq!(shape("(1, 2)"), "(tuple 1 2)");
    assert_eq!(shape("(1, 2, 3)"), "(tuple 1 2 3)");
    assert_eq!(shape("((1, 2), 3)"), "(tuple (tuple 1 2) 3)");
    assert_eq!(shape("[]"), "[]");
    assert_eq!(shape("[1, 2, 3]"), "[1 2 3]");
    assert_eq!(shape("([] : List Int)"), "(: [] (List Int))");
    assert_eq!(shape("Type"), "Type");
    assert_eq!(shape("Type 3"), "Type3");
    assert_eq!(shape("\"a\\tb\""), "\"a\\tb\"");
    assert_eq!(shape("2.5"), "2.5");
    assert_eq!(shape("(((x)))"), "x");
}

#[test]
fn negative_literals() {
    assert_eq!(shape("f (-3)"), "(f -3)");
    assert_eq!(shape("[-1, -2]"), "[-1 -2]");
    assert_eq!(shape("-7 / 2"), "(/ -7 2)");
    assert_eq!(shape("x -1"), "(- x 1)");
    assert_eq!(shape("x-1"), "(- x 1)");
    assert_eq!(shape("f x - 1"), "(- (f x) 1)");
    assert_eq!(shape("x - -1"), "(- x -1)");
    assert_eq!(shape("(x) -1"), "(- x 1)");
    assert_eq!(shape("1 * -2.5"), "(* 1 -2.5)");
    assert_eq!(shape("-9223372036854775808"), "-9223372036854775808");
    assert_eq!(shape("if c then -1 else -2"), "(if c -1 -2)");
    assert_eq!(shape("\\x -> -1"), "(\\ x -1)");
    let d = errors("- 3");
    assert!(
        d[0].message.contains("expected an expression, found '-'"),
        "{d:?}"
    );
}

#[test]
fn patterns() {
    let arms = |text: &str| {
        let s = shape(&format!("match e with {text}"));
        s.trim_start_matches("(match e ")
            .trim_end_matches(')')
            .to_string()
    };
    assert_eq!(arms("| x -> 1"), "[x 1]");
    assert_eq!(arms("| _ -> 1"), "[_ 1]");
    assert_eq!(arms("| 0 -> 1 | -5 -> 2"), "[0 1] [-5 2]");
    assert_eq!(arms("| \"hi\" -> 1"), "[\"hi\" 1]");
    assert_eq!(arms("| Nil -> 1"), "[Nil 1]");
    assert_eq!(
        arms("| Cons x (Cons y rest) -> 1"),
        "[(Cons x (Cons y rest)) 1]"
    );
    assert_eq!(arms("| Just Nothing -> 1"), "[(Just Nothing) 1]");
    assert_eq!(arms("| () -> 1"), "[() 1]");
    assert_eq!(arms("| (a, b) -> 1"), "[(tuple a b) 1]");
    assert_eq!(arms("| (a, (b, c), _) -> 1"), "[(tuple a (tuple b c) _) 1]");
    assert_eq!(arms("| [] -> 1"), "[[] 1]");
    assert_eq!(arms("| [p, Just q] -> 1"), "[[p (Just q)] 1]");
    assert_eq!(arms("| (x) -> 1"), "[x 1]");
    assert_eq!(arms("| Cons (-1) xs -> 1"), "[(Cons -1 xs) 1]");
    let d = errors("match e with | 1.5 -> 1");
    assert!(d[0].message.contains("Float"), "{d:?}");
}

#[test]
fn spans_cover_nodes() {
    let arena = Bump::new();
    let text = "f (x + 1) [2]";
    let e = parse_expr(&arena, FileId(0), text).expect("parses");
    assert_eq!((e.span.start, e.span.end), (0, 13));
    let ExprKind::App { fun, arg, .. } = &e.kind else {
        panic!()
    };
    assert_eq!((arg.span.start, arg.span.end), (10, 13));
    let ExprKind::App { arg, .. } = &fun.kind else {
        panic!()
    };
    let ExprKind::Binary { op_span, .. } = &arg.kind else {
        panic!()
    };
    assert_eq!((arg.span.start, arg.span.end), (3, 8));
    assert_eq!((op_span.start, op_span.end), (5, 6));
    let e = parse_expr(&arena, FileId(0), "(x : A) -> B").expect("parses");
    assert_eq!((e.span.start, e.span.end), (0, 12));
}

#[test]
fn declarations() {
    let arena = Bump::new();
    let text = "import \"lib/x.sp\"\n\
                data Maybe (a : Type) = Nothing | Just a\n\
                data Pair (a b : Type) =\n  | MkPair a b\n\
                data Void\n\
                def id {a : Type} (x : a) : a = x\n\
                def two : Int = 2\n\
                def add x y = x + y\n\
                def k (x y : Int) {b} = x\n\
                extern run : String -> List String -> String\n";
    let (module, diags) = parse_module(&arena, FileId(0), text);
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(module.decls.len(), 9);
    match &module.decls[0] {
        Decl::Import { path, .. } => assert_eq!(*path, "lib/x.sp"),
        d => panic!("{d:?}"),
    }
    match &module.decls[1] {
        Decl::Data {
            name,
            params,
            ctors,
            ..
        } => {
            assert_eq!(name.name, "Maybe");
            assert_eq!(params.len(), 1);
            assert_eq!(ctors.len(), 2);
            assert_eq!(ctors[1].name.name, "Just");
            assert_eq!(ctors[1].fields.len(), 1);
        }
        d => panic!("{d:?}"),
    }
    match &module.decls[2] {
        Decl::Data { params, ctors, .. } => {
            assert_eq!(
                params.iter().map(param).collect::<Vec<_>>(),
                ["(a : Type)", "(b : Type)"]
            );
            assert_eq!(ctors[0].fields.len(), 2);
        }
        d => panic!("{d:?}"),
    }
    assert!(matches!(&module.decls[3], Decl::Data { ctors: [], .. }));
    match &module.decls[4] {
        Decl::Def {
            name,
            params,
            ret,
            body,
            ..
        } => {
            assert_eq!(name.name, "id");
            assert_eq!(
                params.iter().map(param).collect::<Vec<_>>(),
                ["{a : Type}", "(x : a)"]
            );
            assert_eq!(ret.map(sexp).as_deref(), Some("a"));
            assert_eq!(sexp(body), "x");
        }
        d => panic!("{d:?}"),
    }
    match &module.decls[5] {
        Decl::Def { params, ret, .. } => {
            assert!(params.is_empty());
            assert_eq!(ret.map(sexp).as_deref(), Some("Int"));
        }
        d => panic!("{d:?}"),
    }
    match &module.decls[7] {
        Decl::Def { params, ret, .. } => {
            assert_eq!(
                params.iter().map(param).collect::<Vec<_>>(),
                ["(x : Int)", "(y : Int)", "{b}"]
            );
            assert!(ret.is_none());
        }
        d => panic!("{d:?}"),
    }
    match &module.decls[8] {
        Decl::Extern { name, ty, span } => {
            assert_eq!(name.name, "run");
            assert_eq!(sexp(ty), "(-> String (-> (List String) String))");
            assert_eq!(span.end as usize, text.len() - 1);
        }
        d => panic!("{d:?}"),
    }
}

#[test]
fn unclosed_parenthesis_points_at_the_paren() {
    let errs = module_errors("def main =\n  (1 + 2\n");
    assert_eq!(errs, [(2, 3, "unclosed parenthesis".to_string())]);
    let errs = module_errors("def main = (1 +\ndef other = 2\n");
    assert_eq!(errs, [(1, 12, "unclosed parenthesis".to_string())]);
    let errs = module_errors("def xs = [1, 2\n");
    assert_eq!(errs, [(1, 10, "unclosed bracket".to_string())]);
}

#[test]
fn stray_tokens_are_located() {
    let errs = module_errors("def main = 1\n  + 2 )\n");
    assert_eq!(errs, [(2, 7, "unexpected token ')'".to_string())]);
    let errs = module_errors("def f = (1 2 ]");
    assert_eq!(
        errs,
        [(1, 14, "expected ')', ',' or ':', found ']'".to_string())]
    );
    let errs = module_errors("def f = 1 +\n  * 2");
    assert_eq!(
        errs,
        [(2, 3, "expected an expression, found '*'".to_string())]
    );
    let errs = module_errors("main = 1");
    assert_eq!(
        errs[0].2,
        "expected a declaration (def, data, record, interface, instance, extern or import), found 'main'"
    );
}

#[test]
fn missing_keywords_point_at_their_construct() {
    let d = errors("let x = 1 )");
    assert_eq!(d[0].message, "expected 'in', found ')'");
    let secondary = d[0].labels.iter().find(|l| !l.primary).expect("secondary");
    assert_eq!(
        (secondary.span.start, secondary.message.as_str()),
        (0, "this 'let' needs an 'in'")
    );
    // Cut short inside the `let` that is inside a parenthesis: the `let` is reported.
    let d = errors("(let x = 1");
    assert_eq!(d[0].message, "unexpected end of input, expected 'in'");
    // Cut short inside a parenthesis inside the `let`: the parenthesis is.
    let d = errors("let x = (1");
    assert_eq!(d[0].message, "unclosed parenthesis");
    assert_eq!(d[0].primary_span().map(|s| s.start), Some(8));
}

#[test]
fn recovery_reports_independent_errors() {
    let text = "def a = (1 +\ndef b = 2\ndef c = ]\ndef d = if x then y\ndata e = Foo\ndef f = 3\n";
    let errs = module_errors(text);
    let lines: Vec<usize> = errs.iter().map(|e| e.0).collect();
    assert_eq!(lines, [1, 3, 5, 5], "{errs:#?}");
    let arena = Bump::new();
    let (module, _) = parse_module(&arena, FileId(0), text);
    // b, e (reported but kept) and f survive.
    assert_eq!(module.decls.len(), 3);
}

#[test]
fn repl_input_kinds_and_unfinished() {
    let arena = Bump::new();
    let repl = |text: &str| parse_repl_input(&arena, FileId(0), text);
    assert!(matches!(repl("1 + 2"), Ok(ReplInput::Expr(_))));
    assert!(matches!(repl("def x = 1"), Ok(ReplInput::Decls(m)) if m.decls.len() == 1));
    assert!(matches!(repl("  -- nothing\n"), Ok(ReplInput::Decls(m)) if m.decls.is_empty()));
    for text in [
        "(1 +",
        "let x = 5",
        "1 +",
        "f (g",
        "[1, 2",
        "if c then",
        "match x with",
        "def f =",
        "\"abc",
        "{- comment",
        "\\x ->",
        "data T =",
    ] {
        match repl(text) {
            Err(f) => assert!(f.unfinished, "{text:?}: {:#?}", f.diagnostics),
            Ok(_) => panic!("{text:?} parsed"),
        }
    }
    for text in [
        "1 )",
        "(1 ]",
        "let in",
        "a < b < c",
        "\"\\q\"",
        "def = 3",
        "1 2 +  )",
    ] {
        match repl(text) {
            Err(f) => assert!(!f.unfinished, "{text:?}"),
            Ok(_) => panic!("{text:?} parsed"),
        }
    }
}

#[test]
fn nesting_limit_is_reported() {
    let text = format!(
        "{}1{}",
        "(".repeat(MAX_NESTING as usize + 10),
        ")".repeat(MAX_NESTING as usize + 10)
    );
    let d = errors(&text);
    assert!(d[0].message.contains("nested too deeply"), "{d:?}");
    let ok = format!(
        "{}1{}",
        "(".repeat(MAX_NESTING as usize - 1),
        ")".repeat(MAX_NESTING as usize - 1)
    );
    assert_eq!(shape(&ok), "1");
}

#[test]
fn the_ast_does_not_borrow_the_text() {
    let arena = Bump::new();
    let e = {
        let text = String::from("f \"s\" x ?h");
        parse_expr(&arena, FileId(0), &text).expect("parses")
    };
    assert_eq!(sexp(e), "(((f \"s\") x) ?h)");
}

#[test]
fn declarations_may_share_a_line() {
    let arena = Bump::new();
    let (module, diags) = parse_module(&arena, FileId(0), "def a = f def b = 2 data C = C");
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(module.decls.len(), 3);
}

#[test]
fn rendered_errors_name_the_place() {
    let mut map = SourceMap::new();
    let text = "def main =\n  g (1 + \n";
    let file = map.add("bad.sp", None, text.to_string());
    let arena = Bump::new();
    let (_, diags) = parse_module(&arena, file, text);
    let out = crate::diagnostic::render(&map, &diags);
    assert!(out.starts_with("error"), "{out}");
    assert!(out.contains("bad.sp:2:5: unclosed parenthesis"), "{out}");
    assert!(out.contains("the input ends here"), "{out}");
}

#[test]
fn other_errors() {
    assert!(errors("\\ -> x")[0].message.contains("a parameter"));
    assert!(errors("if a then b")[0].message.contains("'else'"));
    assert!(errors("Type 99999999999")[0].message.contains("universe"));
    assert!(errors("{x} -> x")[0].message.contains("needs a type"));
    assert!(errors("f {x")[0].message.contains("unclosed brace"));
    assert!(errors("1 2 )")[0].message.contains("unexpected token ')'"));
}

/// Chains nested on their last side only parse in a loop, at any length (issue 10):
/// they cost one nesting level, however long.
#[test]
fn one_sided_chains_parse_at_any_length() {
    let n = 100_000;
    let lets: String = (0..n).map(|i| format!("let x{i} = {i} in ")).collect();
    let arena = Bump::new();
    let e = parse_expr(&arena, FileId(0), &format!("{lets}x0")).expect("lets parse");
    let mut depth = 0;
    let mut cur = e;
    while let ExprKind::Let(LetExpr { body, .. }) = &cur.kind {
        depth += 1;
        cur = body;
    }
    assert_eq!(depth, n);
    assert_eq!(
        (e.span.start as usize, e.span.end as usize),
        (0, lets.len() + 2)
    );
    let ifs: String = (0..n)
        .map(|i| format!("if c == {i} then {i} else "))
        .collect();
    assert!(parse_expr(&arena, FileId(0), &format!("{ifs}0")).is_ok());
    let lams: String = (0..n).map(|i| format!("\\x{i} -> ")).collect();
    assert!(parse_expr(&arena, FileId(0), &format!("{lams}x0")).is_ok());
    let matches: String = (0..n)
        .map(|i| format!("match x with | {i} -> {i} | _ -> "))
        .collect();
    let e = parse_expr(&arena, FileId(0), &format!("{matches}0")).expect("matches parse");
    let ExprKind::Match { arms, .. } = &e.kind else {
        panic!("not a match")
    };
    assert_eq!(arms.len(), 2);
    // Mixed chains too, with the shapes the short forms have.
    assert_eq!(
        shape("let x = 1 in if a then b else \\y -> match y with | A -> 1 | B -> let z = 2 in z"),
        "(let x = 1 in (if a b (\\ y (match y [A 1] [B (let z = 2 in z)]))))"
    );
    assert_eq!(
        shape("match x with | A -> match y with | C -> 1 | D -> 2"),
        "(match x [A (match y [C 1] [D 2])])"
    );
}

/// Real nesting is still bounded, with a clear error rather than a stack overflow.
#[test]
fn real_nesting_is_still_limited() {
    let n = MAX_NESTING as usize + 10;
    for (open, close) in [
        ("let x = ", " in x"),
        ("if ", " then 1 else 2"),
        ("f (", ")"),
        ("[", "]"),
        ("match ", " with | _ -> 1"),
    ] {
        let text = format!("{}1{}", open.repeat(n), close.repeat(n));
        let d = errors(&text);
        assert!(d[0].message.contains("nested too deeply"), "{open}: {d:?}");
    }
}

#[test]
fn an_expression_node_takes_48_bytes() {
    // Long inputs are millions of nodes (a 10 MB line of additions is 10 million):
    // the rare large forms (`let`, arrows) keep their fields beside the node.
    assert!(std::mem::size_of::<Expr<'_>>() <= 48);
}

/// The shape of each `def`'s body in a module that must parse without errors.
fn def_bodies(text: &str) -> Vec<String> {
    let arena = Bump::new();
    let (module, diags) = parse_module(&arena, FileId(0), text);
    assert!(diags.is_empty(), "{text:?}: {diags:#?}");
    module
        .decls
        .iter()
        .filter_map(|d| match d {
            Decl::Def { body, .. } => Some(sexp(body)),
            _ => None,
        })
        .collect()
}

#[test]
fn cons_is_right_associative_at_the_level_of_concat() {
    assert_eq!(shape("x :: xs"), "(:: x xs)");
    assert_eq!(shape("a :: b :: rest"), "(:: a (:: b rest))");
    assert_eq!(shape("1 + 2 :: xs"), "(:: (+ 1 2) xs)");
    assert_eq!(shape("x :: xs ++ ys"), "(:: x (++ xs ys))");
    assert_eq!(shape("f x :: g y"), "(:: (f x) (g y))");
    assert_eq!(shape("x :: xs == ys"), "(== (:: x xs) ys)");
    assert_eq!(shape("a && x :: xs == ys"), "(&& a (== (:: x xs) ys))");
    assert_eq!(shape("(x : Int) :: []"), "(:: (: x Int) [])");
}

#[test]
fn cons_patterns_nest_to_the_right() {
    assert_eq!(
        shape("match l with | x :: rest -> x | [] -> 0"),
        "(match l [(:: x rest) x] [[] 0])"
    );
    assert_eq!(
        shape("match l with | a :: b :: _ -> a | Just x :: t -> x | (p, q) :: [] -> p"),
        "(match l [(:: a (:: b _)) a] [(:: (Just x) t) x] [(:: (tuple p q) []) p])"
    );
    assert_eq!(
        shape("match l with | (x :: xs) -> x"),
        "(match l [(:: x xs) x])"
    );
}

#[test]
fn cons_with_a_missing_operand_is_an_error() {
    assert_eq!(
        errors("x ::")[0].message,
        "unexpected end of input, expected an expression"
    );
    assert_eq!(
        errors(":: xs")[0].message,
        "expected an expression, found '::'"
    );
    let d = errors("match l with | x :: -> 1");
    assert_eq!(d[0].message, "expected a pattern, found '->'");
}

#[test]
fn a_single_colon_for_cons_gets_a_hint() {
    let d = errors("match l with | x : xs -> 1");
    assert_eq!(d[0].message, "expected '->' after the pattern, found ':'");
    assert!(
        d[0].notes.iter().any(|n| n.contains("use `::` for cons")),
        "{d:?}"
    );
    let arena = Bump::new();
    let (_, d) = parse_module(&arena, FileId(0), "def f = x : xs\n");
    assert!(
        d[0].notes.iter().any(|n| n.contains("use `::` for cons")),
        "{d:?}"
    );
}

#[test]
fn guards_follow_any_pattern() {
    assert_eq!(
        shape("match n with | k if k > 0 -> 1 | _ -> 0"),
        "(match n [k if (> k 0) 1] [_ 0])"
    );
    assert_eq!(
        shape("match l with | x :: _ if f x && g x -> x | Just (a, b) if a == b -> a"),
        "(match l [(:: x _) if (&& (f x) (g x)) x] [(Just (tuple a b)) if (== a b) a])"
    );
    // The guard stops at `->`: no function type is read there.
    assert_eq!(
        shape("match n with | k if k -> \\x -> x"),
        "(match n [k if k (\\ x x)])"
    );
    // The last arm's body may be a match; its arms may have guards.
    assert_eq!(
        shape("match x with | A -> match y with | C if c -> 1 | D -> 2"),
        "(match x [A (match y [C if c 1] [D 2])])"
    );
}

#[test]
fn a_guard_needs_an_expression_and_an_arrow() {
    assert_eq!(
        errors("match n with | k if -> 1")[0].message,
        "expected an expression, found '->'"
    );
    assert_eq!(
        errors("match n with | k if k 1")[0].message,
        "unexpected end of input, expected '->' after the guard"
    );
}

#[test]
fn where_bindings_become_lets_around_the_body() {
    let text = "def f (x : Int) : Int = go x 0\n  where\n    go n acc = n + acc\n    k : Int = 2\ndef g = 1\n";
    assert_eq!(
        def_bodies(text),
        [
            "(let go n acc = (+ n acc) in (let k : Int = 2 in ((go x) 0)))",
            "1"
        ]
    );
    // On the `where` line, a binding spanning lines, a binding with typed parameters.
    let text = "def f = a + b\nwhere a = 1\n      b = g\n        a\n      h (y : Int) : Int = y\n";
    assert_eq!(
        def_bodies(text),
        ["(let a = 1 in (let b = (g a) in (let h (y : Int) : Int = y in (+ a b))))"]
    );
    // After a match: the last arm ends at `where`.
    let text =
        "def f (n : Int) : Int =\n  match n with\n  | 0 -> z\n  | _ -> z + 1\n  where z = 5\n";
    assert_eq!(
        def_bodies(text),
        ["(let z = 5 in (match n [0 z] [_ (+ z 1)]))"]
    );
    // A where binding's match arms end at the next binding.
    let text = "def f = g 1\n where\n  g n = match n with\n    | 0 -> 1\n    | _ -> 2\n  h = 3\n";
    assert_eq!(
        def_bodies(text),
        ["(let g n = (match n [0 1] [_ 2]) in (let h = 3 in (g 1)))"]
    );
}

#[test]
fn where_is_a_name_elsewhere() {
    assert_eq!(
        def_bodies("def where = 1\ndef f = where + 1\n"),
        ["1", "(+ where 1)"]
    );
    assert_eq!(shape("let where = 1 in where"), "(let where = 1 in where)");
    // Inside brackets a line starting with `where` goes on.
    assert_eq!(def_bodies("def f = (g\nwhere)\n"), ["(g where)"]);
}

#[test]
fn a_where_without_a_def_or_bindings_is_an_error() {
    let errs = module_errors("def f = x\nwhere\n");
    assert_eq!(
        errs,
        [(
            3,
            1,
            "unexpected end of input, expected a binding such as `name = expression`".to_string()
        )]
    );
    let errs = module_errors("def f = x\nwhere\ndef g = 1\n");
    assert_eq!(errs[0].0, 3);
    assert!(errs[0].2.contains("expected a binding"), "{errs:?}");
    let errs = module_errors("data X = A\nwhere y = 1\n");
    assert_eq!(errs, [(2, 1, "unexpected token 'where'".to_string())]);
    let arena = Bump::new();
    let (_, d) = parse_module(
        &arena,
        FileId(0),
        "def main = let x = y\n  where y = 1\n  in x\n",
    );
    assert_eq!(d[0].message, "expected 'in', found 'where'");
    assert!(
        d[0].notes
            .iter()
            .any(|n| n.contains("`where` belongs to a `def`")),
        "{d:?}"
    );
    let (_, d) = parse_module(&arena, FileId(0), "def f = x where y = 1\n");
    assert!(
        d[0].notes
            .iter()
            .any(|n| n.contains("`where` starts its own line")),
        "{d:?}"
    );
}

#[test]
fn arms_of_an_inner_match_left_of_the_outer_arm_are_marked() {
    let arena = Bump::new();
    let text = "def f = match x with\n| A -> match y with\n       | C -> 1\n| B -> 2\n";
    let (module, diags) = parse_module(&arena, FileId(0), text);
    assert!(diags.is_empty());
    let Decl::Def { body, .. } = &module.decls[0] else {
        panic!()
    };
    let ExprKind::Match { arms, .. } = &body.kind else {
        panic!()
    };
    assert_eq!(arms.len(), 1);
    let ExprKind::Match { arms: inner, .. } = &arms[0].body.kind else {
        panic!()
    };
    let marks: Vec<bool> = inner.iter().map(|a| a.outdented).collect();
    assert_eq!(marks, [false, true]);
    assert!(!arms[0].outdented);
}
