//! `spindle decode` prints a program back as source that loads again to the same
//! program (issue 16): here for the forms that once printed in a way that did not
//! parse, through the library (encode, decode, print, load the text, compare).

use spindle::core::equiv::alpha_eq;
use spindle::driver;
use spindle::proto::{decode, encode, source};

/// Encodes the program `text`, decodes it, prints it, loads the printed source, and
/// checks that every definition comes back alpha-equivalent. Returns the printed text.
fn round_trip(text: &str) -> String {
    let prelude = driver::load_text("<prelude>", "")
        .program
        .expect("the prelude loads")
        .counts();
    let loaded = driver::load_text("t.sp", text);
    let message = loaded.render_diagnostics();
    let program = loaded.program.unwrap_or_else(|| panic!("{message}"));
    let bytes = encode::program_bytes(&program, prelude);
    let decoded = decode::program_bytes(&bytes).expect("decodes");
    let printed = source::program_to_source(&decoded, spindle::driver::prelude_program().as_ref())
        .expect("prints");
    let again = driver::load_text("printed.sp", &printed);
    let message = again.render_diagnostics();
    let back = again
        .program
        .unwrap_or_else(|| panic!("the printed program does not load:\n{printed}\n{message}"));
    assert_eq!(back.defs.len(), program.defs.len(), "{printed}");
    for (a, b) in program.defs.iter().zip(&back.defs) {
        assert!(
            alpha_eq(&a.body, &b.body) && alpha_eq(&a.ty, &b.ty),
            "{} differs:\n{printed}",
            a.name
        );
    }
    printed
}

#[test]
fn a_match_without_arms_prints_so_that_it_parses() {
    // The last definition of the file ends in `match v with`: printed bare, the end
    // of the input would read as a missing arm.
    let printed = round_trip(
        "data Void\n\
         def main = 1\n\
         def absurd (v : Void) : Int = (match v with)\n",
    );
    assert!(printed.contains("(match v with)"), "{printed}");
}

#[test]
fn long_chains_and_deep_types_print_and_load_back() {
    let lets: String = (0..2_000).map(|i| format!("let x{i} = {i} in ")).collect();
    let arrows = "Int -> ".repeat(2_000);
    let ifs: String = (0..2_000)
        .map(|i| format!("if n == {i} then {i} else "))
        .collect();
    round_trip(&format!(
        "def a : Int = {lets}x0\n\
         def T : Type = {arrows}Int\n\
         def f (n : Int) : Int = {ifs}0\n\
         def main = (a, f 3)\n"
    ));
}

#[test]
fn data_types_in_higher_universes_round_trip() {
    round_trip(
        "data Box = MkBox Type\n\
         data Rose = Node Int (List Rose)\n\
         def b : Box = MkBox Int\n\
         def main = match Node 1 [] with\n  | Node n _ -> n\n",
    );
}

#[test]
fn concat_prints_back_as_written_on_strings_and_on_lists() {
    // On strings `++` is the primitive; on lists it is the prelude's `append {A}`,
    // printed back as `++` (what the user wrote), even where a file has its own
    // `append`; the prelude's `append` by name and partly applied stays `append`.
    let printed = round_trip(
        "def append (n : Int) : Int = n\n\
         def s (a : String) : String = a ++ \"!\" ++ a\n\
         def l {t : Type} (xs : List t) (ys : List t) : List t = xs ++ (ys ++ xs)\n\
         def left (xs : List Int) : List Int = (xs ++ xs) ++ [1]\n\
         def named (xs : List Int) : List Int = foldr (\\x acc -> append2 acc [x]) [] xs\n\
         def append2 (xs : List Int) (ys : List Int) : List Int = xs ++ ys\n\
         def late : List Int = let h = \\x y -> x ++ y in h [1] [2]\n\
         def main = (s \"a\", l [1] [2], left [3], named [4], late, append 5)\n",
    );
    for line in [
        "a ++ \"!\" ++ a",
        "xs ++ ys ++ xs",
        "(xs ++ xs) ++ [1]",
        "x ++ y",
    ] {
        assert!(printed.contains(line), "no `{line}` in:\n{printed}");
    }
    assert!(!printed.contains("append {"), "{printed}");
}

#[test]
fn the_preludes_append_by_name_prints_by_name() {
    let printed = round_trip(
        "def glue : List (List Int) -> List Int = foldr append []\n\
         def once (xs : List Int) : List Int -> List Int = append xs\n\
         def main = (glue [[1], [2]], once [3] [4])\n",
    );
    for line in ["(append {Int})", "-> append {Int} xs"] {
        assert!(printed.contains(line), "no `{line}` in:\n{printed}");
    }
    assert!(!printed.contains("++"), "{printed}");
}

#[test]
fn concat_golden() {
    // Exactly what `spindle decode` prints for this program.
    let printed = round_trip(
        "def greet (name : String) : String = \"hi \" ++ name\n\
         def both (xs : List Int) : List Int = xs ++ [0] ++ xs\n\
         def main = (greet \"x\", both [1])\n",
    );
    assert_eq!(
        printed,
        "def greet : String -> String =\n  \\(name : String) -> \"hi \" ++ name\n\n\
         def both : List Int -> List Int =\n  \\(xs : List Int) -> xs ++ [0] ++ xs\n\n\
         def main : Pair String (List Int) =\n  (greet \"x\", both [1])\n\n"
    );
}

#[test]
fn chars_and_names_shared_by_a_type_and_a_constructor_decode_to_source() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/examples/library");
    let chars = std::fs::read_to_string(dir.join("chars.sp")).unwrap();
    let printed = round_trip(&chars);
    assert!(printed.contains("'\\''"), "{printed}");
    // (A program's own interface methods do not decode to source yet, whatever their
    // names: this one has none.)
    let printed = round_trip(
        "data Body = Body Float Float deriving (Show, Eq, Ord, ToJson, FromJson)\n\
         data Box (a : Type) = Box a\n\
         data Shape = Circle Float | Square Float\n\
         data Circle = MkCircle Float\n\
         def mass (b : Body) : Float = match b with\n  | Body m _ -> m\n\
         def pick {t : Type} (x : t) : t = x\n\
         def apply (f : Type -> Type) (x : f Int) : f Int = x\n\
         def main = (map mass [Body 1.0 2.0], pick {Body} (Body 3.0 4.0), \
         (Box (Body 5.0 6.0) : Box Body), apply Box (Box 1), \
         (MkCircle 1.0 : Circle), (Circle 2.0 : Shape))\n",
    );
    assert!(
        printed.contains("data Body = Body Float Float"),
        "{printed}"
    );
    assert!(
        printed.contains("data Circle = MkCircle Float"),
        "{printed}"
    );
    assert!(printed.contains("Circle Float | Square Float"), "{printed}");
}
