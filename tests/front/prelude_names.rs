//! Every name of LANGUAGE.md section 8, with its listed behaviour, run on the machine.

use spindle::driver;
use spindle::machine::Machine;

/// Evaluates `expr` as `main` of a one-line program and prints it.
fn eval(expr: &str) -> Result<String, String> {
    let src = format!("def main = {expr}\n");
    let loaded = driver::load_text("t.sp", &src);
    if loaded.has_errors() {
        return Err(loaded.render_diagnostics());
    }
    let p = loaded.program.expect("program");
    let mut m = Machine::new(&p);
    let v = m
        .whnf_def(p.main.expect("main"))
        .map_err(|e| e.message.clone())?;
    m.print_value(v, false).map_err(|e| e.message.clone())
}

fn check(cases: &[(&str, &str)]) {
    let mut failures = Vec::new();
    for (expr, want) in cases {
        match eval(expr) {
            Ok(got) if got == *want => {}
            other => failures.push(format!("{expr}: got {other:?}, expected {want:?}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn types_and_functions() {
    check(&[
        (
            "(True, False, (), Nothing, Just 1)",
            "(True, False, (), Nothing, Just 1)",
        ),
        ("(Left 1, Right \"r\")", "(Left 1, Right \"r\")"),
        ("(Z, S (S Z))", "(Z, S (S Z))"),
        ("MkPair 1 2", "(1, 2)"),
        ("id 5", "5"),
        ("const 1 2", "1"),
        ("flip (\\a b -> a - b) 1 10", "9"),
        ("compose (\\x -> x * 2) (\\x -> x + 1) 3", "8"),
        ("(not True, not False)", "(False, True)"),
        ("(fst (1, 2), snd (1, 2))", "(1, 2)"),
        (
            "(maybe 0 (\\x -> x + 1) (Just 4), maybe 0 (\\x -> x + 1) Nothing)",
            "(5, 0)",
        ),
        ("(fromMaybe 0 (Just 3), fromMaybe 0 Nothing)", "(3, 0)"),
        (
            "(either (\\x -> x + 1) strLength (Left 1), either (\\x -> x) strLength (Right \"ab\"))",
            "(2, 2)",
        ),
    ]);
}

#[test]
fn lists() {
    check(&[
        ("map (\\x -> x * x) [1, 2, 3]", "[1, 4, 9]"),
        ("filter (\\x -> x % 2 == 0) (range 0 7)", "[0, 2, 4, 6]"),
        ("foldl (\\a x -> a - x) 10 [1, 2, 3]", "4"),
        ("foldr (\\x a -> x - a) 0 [1, 2, 3]", "2"),
        ("(length [1, 2, 3], length [])", "(3, 0)"),
        ("(sum [1, 2, 3], product [1, 2, 3, 4])", "(6, 24)"),
        ("reverse [1, 2, 3]", "[3, 2, 1]"),
        ("append [1] [2, 3]", "[1, 2, 3]"),
        ("[1, 2] ++ [3]", "[1, 2, 3]"),
        ("concat [[1], [], [2, 3]]", "[1, 2, 3]"),
        ("concatMap (\\x -> [x, x]) [1, 2]", "[1, 1, 2, 2]"),
        (
            "(take 2 [1, 2, 3], drop 2 [1, 2, 3], take 5 [1])",
            "([1, 2], [3], [1])",
        ),
        ("takeWhile (\\x -> x < 3) [1, 2, 3, 1]", "[1, 2]"),
        ("dropWhile (\\x -> x < 3) [1, 2, 3, 1]", "[3, 1]"),
        ("zip [1, 2, 3] [\"a\", \"b\"]", "[(1, \"a\"), (2, \"b\")]"),
        ("zipWith (\\a b -> a + b) [1, 2] [10, 20, 30]", "[11, 22]"),
        ("unzip [(1, \"a\"), (2, \"b\")]", "([1, 2], [\"a\", \"b\"])"),
        ("(range 2 5, range 5 2)", "([2, 3, 4], [])"),
        ("replicate 3 \"x\"", "[\"x\", \"x\", \"x\"]"),
        ("take 5 (iterate (\\x -> x * 2) 1)", "[1, 2, 4, 8, 16]"),
        ("take 3 (repeat 7)", "[7, 7, 7]"),
        (
            "(elem 2 [1, 2], elem 5 [1, 2], elem [1] [[0], [1]])",
            "(True, False, True)",
        ),
        (
            "(any (\\x -> x > 2) [1, 3], all (\\x -> x > 2) [1, 3])",
            "(True, False)",
        ),
        (
            "(lookup 2 [(1, \"a\"), (2, \"b\")], lookup 3 [(1, \"a\")])",
            "(Just \"b\", Nothing)",
        ),
        (
            "(nth 0 [5, 6], nth 1 [5, 6], nth 2 [5, 6], nth (-1) [5])",
            "(Just 5, Just 6, Nothing, Nothing)",
        ),
        (
            "(head [1, 2], last [1, 2], head ([] : List Int))",
            "(Just 1, Just 2, Nothing)",
        ),
        (
            "sortBy (\\a b -> fst a <= fst b) [(2, \"a\"), (1, \"b\"), (2, \"c\"), (1, \"d\")]",
            "[(1, \"b\"), (1, \"d\"), (2, \"a\"), (2, \"c\")]",
        ),
        ("sort [3, 1, 2, 1]", "[1, 1, 2, 3]"),
        (
            "(minimum [3, 1, 2], maximum [3, 1, 2], minimum ([] : List Int))",
            "(Just 1, Just 3, Nothing)",
        ),
    ]);
}

#[test]
fn numbers() {
    check(&[
        ("(abs (-3), abs 3, min 1 2, max 1 2)", "(3, 3, 1, 2)"),
        ("(intToFloat 2, sqrt 16.0)", "(2.0, 4.0)"),
        (
            "(floor 2.5, ceil 2.1, round 2.5, round (-2.5), floor (-0.5))",
            "(2, 3, 3, -3, -1)",
        ),
        ("(natToInt (S (S Z)), intToNat 2)", "(2, S (S Z))"),
        (
            "(1e-10, 6.02e23, 1.0 / 0.0, 0.1 + 0.2)",
            "(1e-10, 6.02e23, inf, 0.30000000000000004)",
        ),
        ("Just (-1.5)", "Just (-1.5)"),
        ("(7 / 2, -7 / 2, 7 % 3, -7 % 3)", "(3, -3, 1, -1)"),
    ]);
}

#[test]
fn strings() {
    check(&[
        ("(strLength \"héllo\", strLength \"\")", "(5, 0)"),
        ("concatStrings [\"a\", \"b\", \"c\"]", "abc"),
        ("split \",\" \"a,b,,c\"", "[\"a\", \"b\", \"\", \"c\"]"),
        ("join \", \" [\"1\", \"2\", \"3\"]", "1, 2, 3"),
        ("(join \"-\" [], join \"-\" [\"x\"])", "(\"\", \"x\")"),
        ("lines \"a\\nb\\n\"", "[\"a\", \"b\"]"),
        ("unlines [\"a\", \"b\"]", "a\nb\n"),
        ("words \"  two   words \"", "[\"two\", \"words\"]"),
        ("trim \"  x y  \"", "x y"),
        ("substring 1 3 \"héllo\"", "éll"),
        (
            "(startsWith \"ab\" \"abc\", endsWith \"bc\" \"abc\", contains \"z\" \"abc\")",
            "(True, True, False)",
        ),
        ("(showInt (-42), showFloat 2.0)", "(\"-42\", \"2.0\")"),
        (
            "(parseInt \"42\", parseInt \"x\", parseFloat \"1.5\", parseFloat \"?\")",
            "(Just 42, Nothing, Just 1.5, Nothing)",
        ),
        ("\"tab\\there\" ++ \"!\"", "tab\there!"),
        (
            "(\"a\" < \"b\", \"b\" <= \"a\", \"q\\\"\\n\")",
            "(True, False, \"q\\\"\\n\")",
        ),
    ]);
}

#[test]
fn characters() {
    // Issue 30 (docs/stdlib.md, "Characters"); a top-level `Char` prints as its literal.
    check(&[
        ("'a'", "'a'"),
        (
            "('\\n', '\\'', '\"', '\\\\')",
            "('\\n', '\\'', '\"', '\\\\')",
        ),
        ("chars \"hé\"", "['h', 'é']"),
        ("fromChars ['o', 'k']", "ok"),
        ("(ord 'A', chr 97, charToString 'z')", "(65, 'a', \"z\")"),
        (
            "(isDigit '5', isAlpha '5', isAlphaNum 'x', isSpace '\\t', isUpper 'Q', isLower 'Q')",
            "(True, False, True, True, True, False)",
        ),
        ("(toUpper 'é', toLower 'X', toUpper 'ß')", "('É', 'x', 'ß')"),
        ("('a' < 'b', 'b' >= 'c', 'x' == 'x')", "(True, False, True)"),
        ("show 'q'", "'q'"),
    ]);
    assert!(
        eval("chr 1114112")
            .unwrap_err()
            .contains("1114112 is not a Unicode scalar value")
    );
}

#[test]
fn error_stops_only_when_needed() {
    assert_eq!(eval("fst (1, error \"never\")"), Ok("1".to_string()));
    assert_eq!(
        eval("snd (1, (error \"boom\" : Int))"),
        Err("boom".to_string())
    );
}
