//! `String` operations. Lengths and positions count Unicode scalar values.

/// Number of Unicode scalar values.
pub fn length(s: &str) -> i64 {
    s.chars().count() as i64
}

/// `substring start len s`: the scalar values from `start` (clamped to the string),
/// at most `len` of them.
pub fn substring(start: i64, len: i64, s: &str) -> String {
    let start = start.max(0) as usize;
    let len = len.max(0) as usize;
    s.chars().skip(start).take(len).collect()
}

/// `split sep s`: the pieces between occurrences of `sep` (an empty separator splits
/// into single characters).
pub fn split(sep: &str, s: &str) -> Vec<String> {
    if sep.is_empty() {
        return s.chars().map(String::from).collect();
    }
    s.split(sep).map(String::from).collect()
}

/// The maximal runs of non-white-space characters.
pub fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// The lines of a text (a final newline does not start an empty line).
pub fn lines(s: &str) -> Vec<String> {
    s.lines().map(String::from).collect()
}

/// Parses a decimal `Int` with an optional sign (no white space, no underscores).
pub fn parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_operations() {
        assert_eq!(length("héllo"), 5);
        assert_eq!(substring(1, 3, "héllo"), "éll");
        assert_eq!(substring(4, 10, "héllo"), "o");
        assert_eq!(split(",", "a,b,,c"), ["a", "b", "", "c"]);
        assert_eq!(words("  two   words "), ["two", "words"]);
        assert_eq!(lines("a\nb\n"), ["a", "b"]);
        assert_eq!(parse_int("42"), Some(42));
        assert_eq!(parse_int("-7"), Some(-7));
        assert_eq!(parse_int("x"), None);
        assert_eq!(parse_int(""), None);
        assert_eq!(parse_int("99999999999999999999"), None);
    }
}

/// Whether the printed value `s` needs parentheses as a constructor's argument: it is
/// an application (a space outside brackets, braces and quotes) or starts with `-`.
pub fn needs_parens(s: &str) -> bool {
    if s.starts_with('-') {
        return true;
    }
    let mut depth = 0i64;
    let mut in_string = false;
    let mut escaped = false;
    for c in s.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ' ' if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod show_arg_tests {
    use super::needs_parens;

    #[test]
    fn applications_and_negative_numbers_need_parentheses() {
        assert!(needs_parens("Just 3"));
        assert!(needs_parens("-1"));
        assert!(needs_parens("-1.5"));
        assert!(!needs_parens("3"));
        assert!(!needs_parens("[1, 2]"));
        assert!(!needs_parens("(1, 2)"));
        assert!(!needs_parens("{ name = \"a b\" }"));
        assert!(!needs_parens("\"a b\""));
        assert!(!needs_parens("\"a \\\" b\""));
        assert!(!needs_parens("Nothing"));
    }
}
