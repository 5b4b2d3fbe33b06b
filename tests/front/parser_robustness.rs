//! The parser on real programs and on hostile input, through the public API only:
//! every example program parses; deep nesting is refused with an error on a small
//! stack; long flat chains parse iteratively; garbage never panics.

use bumpalo::Bump;
use proptest::prelude::*;
use spindle::diagnostic::Diagnostic;
use spindle::syntax::ast::{Expr, ExprKind, PiExpr};
use spindle::syntax::parser::{MAX_NESTING, parse_expr, parse_module, parse_repl_input};
use spindle::syntax::span::{FileId, SourceMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Runs `f` on a thread with a 2 MB stack, as a small-stack host would.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the parser must not crash")
}

/// Parses `text` as a module and as an expression, and as REPL input, and returns the
/// module's diagnostics.
fn parse_everything(text: &str) -> Vec<Diagnostic> {
    let arena = Bump::new();
    let _ = parse_expr(&arena, FileId(0), text);
    let _ = parse_repl_input(&arena, FileId(0), text);
    parse_module(&arena, FileId(0), text).1
}

fn sp_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|ext| ext == "sp"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_example_program_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = [
        root.join("../shared/spec/examples"),
        root.join("../shared/bench/programs"),
        root.join("prelude"),
    ];
    let mut count = 0;
    for dir in dirs {
        for path in sp_files(&dir) {
            let text = std::fs::read_to_string(&path).expect("read");
            let arena = Bump::new();
            let (module, diags) = parse_module(&arena, FileId(0), &text);
            assert!(diags.is_empty(), "{}: {diags:#?}", path.display());
            assert!(!module.decls.is_empty(), "{}", path.display());
            count += 1;
        }
    }
    assert!(count >= 14, "only {count} files found");
}

#[test]
fn error_locations_through_the_source_map() {
    let mut map = SourceMap::new();
    let text = "def ok = 1\n\ndef main =\n  f (g x\n";
    let file = map.add("bad.sp", None, text.to_string());
    let arena = Bump::new();
    let (_, diags) = parse_module(&arena, file, text);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].message, "unclosed parenthesis");
    let primary = diags[0].primary_span().expect("primary");
    assert_eq!(map.location(primary).to_string(), "bad.sp:4:5");
    let secondary = diags[0]
        .labels
        .iter()
        .find(|l| !l.primary)
        .expect("secondary label");
    assert_eq!(secondary.span.start as usize, text.len());

    let text = "def main = [1, 2,\n   3 4 ) ]\n";
    let file = map.add("stray.sp", None, text.to_string());
    let (_, diags) = parse_module(&arena, file, text);
    assert_eq!(diags[0].message, "expected ',' or ']', found ')'");
    assert_eq!(
        map.location(diags[0].primary_span().expect("primary"))
            .to_string(),
        "stray.sp:2:8"
    );
}

fn assert_too_deep(text: String) {
    let diags = on_small_stack(move || parse_everything(&text));
    assert!(
        diags
            .iter()
            .any(|d| d.message.contains("nested too deeply")),
        "{:#?}",
        &diags[..diags.len().min(3)]
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    const N: usize = 100_000;
    assert_too_deep(format!("def x = {}1{}", "(".repeat(N), ")".repeat(N)));
    assert_too_deep(format!("def x = {}", "(".repeat(N)));
    assert_too_deep(format!("def x = {}1{}", "[".repeat(N), "]".repeat(N)));
    assert_too_deep(format!("def x = {}0", "f {".repeat(N)));
    assert_too_deep(format!("def x = {}0", "1 + (".repeat(N)));
    assert_too_deep(format!("def x = {}A", "(A -> ".repeat(N)));
    assert_too_deep(format!("def x = {}A", "(x : ".repeat(N)));
    assert_too_deep(format!("def x = {}A", "\\(x : ".repeat(N)));
    assert_too_deep(format!("def x = match y with | {}", "(".repeat(N)));
    assert_too_deep(format!("def x = match y with | {}", "Just [".repeat(N)));
    assert_too_deep(format!("def x = {}0", "let f (x : ".repeat(N)));
    assert_too_deep(format!("def x = {}0", "(1, ".repeat(N)));
    assert_too_deep(format!("def x : {}A", "{x : ".repeat(N)));
    assert_too_deep(format!("data T = C {}", "(".repeat(N)));
}

/// Chains nested on one side only (a lambda returning a lambda, `let` after `let`,
/// `else if`, a `match` in the last arm) are no real nesting: they parse at any length,
/// on a small stack (issue 10).
#[test]
fn one_sided_chains_parse_at_any_length() {
    const N: usize = 100_000;
    for text in [
        format!("def x = {}x", "\\x -> ".repeat(N)),
        format!("def x = {}0", "let y = 1 in ".repeat(N)),
        format!("def x = {}0", "if c then 1 else ".repeat(N)),
        format!("def x = {}0", "match y with | _ -> ".repeat(N)),
        format!("def x = {}0", "match y with | k if k -> ".repeat(N)),
        format!("def x = match y with | {}[] -> 0", "a :: ".repeat(N)),
        format!(
            "def x = {}0",
            "let y = 1 in if c then 1 else \\z -> ".repeat(N)
        ),
    ] {
        let diags = on_small_stack(move || parse_everything(&text));
        assert!(diags.is_empty(), "{:#?}", &diags[..diags.len().min(3)]);
    }
    // Real nesting inside a chain still counts.
    assert_too_deep(format!(
        "def x = {}0{}",
        "let y = (".repeat(N),
        ") in 0".repeat(N)
    ));
}

/// Nesting just below the limit parses on a 2 MB stack, for every kind of nesting:
/// this is what proves the limit safe (run it in a debug build).
#[test]
fn nesting_just_below_the_limit_fits_a_small_stack() {
    let n = MAX_NESTING as usize - 2;
    let cases = [
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}1{}", "[".repeat(n), "]".repeat(n)),
        format!("{}x", "\\x -> ".repeat(n)),
        format!("{}0", "let y = 1 in ".repeat(n)),
        format!("{}0", "if c then 1 else ".repeat(n)),
        format!("{}0{}", "f {".repeat(n), "}".repeat(n)),
        format!("{}1{}", "1 + (".repeat(n), ")".repeat(n)),
        format!("{}A{}", "(A -> ".repeat(n), ")".repeat(n)),
        format!("{}A{}", "(x : ".repeat(n), ")".repeat(n)),
        format!(
            "match y with | {}z{} -> 0",
            "Just (".repeat(n - 1),
            ")".repeat(n - 1)
        ),
        format!("{}0", "match y with | _ -> ".repeat(n)),
        format!("(\\(x : {}A{}) -> x)", "(".repeat(n - 3), ")".repeat(n - 3)),
        format!("{}A{}", "let f (x : ".repeat(n), ") = 1 in 2".repeat(n)),
        format!("{}A{}", "\\(x : ".repeat(n), ") -> 1".repeat(n)),
        format!("{}1{}", "(1, ".repeat(n), ")".repeat(n)),
        format!("{}A", "{x : ".repeat(n / 2)) + &"} -> A".repeat(n / 2),
    ];
    for text in cases {
        let ok = on_small_stack(move || {
            let arena = Bump::new();
            parse_expr(&arena, FileId(0), &text)
                .map(|_| ())
                .map_err(|d| format!("{:?}", d.first()))
        });
        ok.expect("nesting below the limit parses");
    }
}

/// A check of the shape of a parsed expression.
type Check = fn(&Expr<'_>);

/// Parses one long expression on a small stack, returns how long it took.
fn time_parse(text: String, check: Check) -> Duration {
    on_small_stack(move || {
        let start = Instant::now();
        let arena = Bump::new();
        let e = parse_expr(&arena, FileId(0), &text).expect("a long flat chain parses");
        let elapsed = start.elapsed();
        check(e);
        elapsed
    })
}

fn is_binary_left_chain(e: &Expr<'_>) {
    let mut cur = e;
    let mut n = 0usize;
    while let ExprKind::Binary { lhs, rhs, .. } = &cur.kind {
        assert!(matches!(rhs.kind, ExprKind::Int(1) | ExprKind::Var(_)));
        cur = lhs;
        n += 1;
    }
    assert!(n >= 999_999, "{n}");
}

fn is_right_chain(e: &Expr<'_>) {
    let mut cur = e;
    let mut n = 0usize;
    loop {
        cur = match &cur.kind {
            ExprKind::Binary { rhs, lhs, .. } => {
                assert!(matches!(lhs.kind, ExprKind::Var(_)));
                rhs
            }
            ExprKind::Pi(PiExpr { cod, dom, .. }) => {
                assert!(matches!(dom.kind, ExprKind::Var(_)));
                cod
            }
            _ => break,
        };
        n += 1;
    }
    assert!(n >= 999_999, "{n}");
}

fn is_application_spine(e: &Expr<'_>) {
    let mut cur = e;
    let mut n = 0usize;
    while let ExprKind::App { fun, .. } = &cur.kind {
        cur = fun;
        n += 1;
    }
    assert_eq!(n, 1_000_000);
}

fn is_long_list(e: &Expr<'_>) {
    match &e.kind {
        ExprKind::List(items) | ExprKind::Tuple(items) => assert_eq!(items.len(), 1_000_000),
        other => panic!("{other:?}"),
    }
}

#[test]
fn long_flat_chains_parse_iteratively() {
    const N: usize = 1_000_000;
    // Generous: a quadratic parser would take hours, a linear one takes well under a
    // second per case in release.
    let limit = Duration::from_secs(if cfg!(debug_assertions) { 120 } else { 20 });
    let cases: [(String, Check); 8] = [
        (format!("1{}", " + 1".repeat(N - 1)), is_binary_left_chain),
        (
            format!("a{}", " + x - y".repeat(N / 2)),
            is_binary_left_chain,
        ),
        (format!("{}a", "a ++ ".repeat(N)), is_right_chain),
        (format!("{}a", "a || ".repeat(N)), is_right_chain),
        (format!("{}a", "a :: ".repeat(N)), is_right_chain),
        (format!("{}A", "A -> ".repeat(N)), is_right_chain),
        (format!("f{}", " x".repeat(N)), is_application_spine),
        (format!("[1{}]", ", 1".repeat(N - 1)), is_long_list),
    ];
    for (text, check) in cases {
        let elapsed = time_parse(text, check);
        assert!(elapsed < limit, "took {elapsed:?}");
    }
    let elapsed = time_parse(format!("(1{})", ", 1".repeat(N - 1)), is_long_list);
    assert!(elapsed < limit, "took {elapsed:?}");
}

#[test]
fn a_ten_megabyte_line_parses_quickly() {
    let text = format!("def main = 1{}\n", "+1".repeat(5 << 20));
    assert!(text.len() > 10 << 20);
    let elapsed = on_small_stack(move || {
        let start = Instant::now();
        let arena = Bump::new();
        let (module, diags) = parse_module(&arena, FileId(0), &text);
        assert!(diags.is_empty());
        assert_eq!(module.decls.len(), 1);
        start.elapsed()
    });
    // The AST of this line is 10 million 48-byte nodes, about 500 MB; most of the time
    // goes to the kernel handing out that memory.
    // The bound is generous so that a loaded machine passes; what it catches is
    // non-linear behaviour, which would take hours at this size.
    let limit = Duration::from_secs(if cfg!(debug_assertions) { 120 } else { 20 });
    assert!(elapsed < limit, "took {elapsed:?}");
}

#[test]
fn a_ten_megabyte_line_of_garbage_fails_cleanly() {
    let text = "(+".repeat(5 << 20);
    let diags = on_small_stack(move || parse_everything(&text));
    assert!(!diags.is_empty());
    assert!(diags.len() <= 100);
}

/// A deterministic pseudo-random generator (xorshift), so the test needs no seed file.
fn pseudo_random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[test]
fn random_bytes_never_panic() {
    for seed in 0..200u64 {
        let bytes = pseudo_random_bytes(seed, 1 + (seed as usize * 37) % 3000);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        on_small_stack(move || parse_everything(&text));
    }
    // A big one too.
    let text = String::from_utf8_lossy(&pseudo_random_bytes(7, 2 << 20)).into_owned();
    let diags = on_small_stack(move || parse_everything(&text));
    assert!(!diags.is_empty() && diags.len() <= 110);
}

/// Real tokens, so random sequences reach deep into the parser.
const VOCABULARY: &[&str] = &[
    "let", "in", "def", "\ndef", "data", "\ndata", "match", "with", "if", "then", "else", "extern",
    "import", "Type", "||", "&&", "==", "!=", "<", "<=", ">", ">=", "++", "+", "-", "*", "/", "%",
    "->", "\\", ":", "::", "=", "|", ",", "where", "\nwhere", "if", "(", ")", "[", "]", "{", "}",
    "_", "x", "y", "f", "Cons", "Nil", "Just", "A", "0", "1", "-1", "42", "2.5", "-0.5", "\"s\"",
    "\"\\n\"", "?", "?h", "()", "[]", "--c\n", "{- c -}", "\n", " ",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCABULARY), 0..80)
        .prop_map(|tokens| tokens.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_strings_never_panic(text in any::<String>()) {
        parse_everything(&text);
    }

    #[test]
    fn random_ascii_never_panics(text in "[ -~\n]{0,200}") {
        parse_everything(&text);
    }

    #[test]
    fn token_soups_never_panic(text in token_soup()) {
        parse_everything(&text);
    }

    #[test]
    fn token_soups_after_def_never_panic(text in token_soup()) {
        let text = format!("def main = {text}");
        let diags = parse_everything(&text);
        for d in &diags {
            let span = d.primary_span().expect("every syntax error has a place");
            prop_assert!(span.start <= span.end && span.end as usize <= text.len());
        }
    }
}
