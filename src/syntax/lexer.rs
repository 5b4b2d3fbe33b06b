//! The lexer: source text to tokens. (Being written: see the parser helper's work.)
