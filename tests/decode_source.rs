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
