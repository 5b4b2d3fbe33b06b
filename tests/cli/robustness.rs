//! Bad and extreme input through the real binary: the front end never panics, never
//! overflows the native stack and never hangs; it succeeds or reports a clean error
//! with exit status 1.

use crate::common;

use common::{check_error_output, spindle};
use std::io::Write;
use std::process::Output;

/// The large inputs take a gigabyte of memory each; one at a time keeps the suite's
/// peak memory and time sane on a small machine.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Writes `text` to a temporary file and runs `spindle check` on it.
fn check_bytes(name: &str, bytes: &[u8]) -> Output {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("spindle-robust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(bytes))
        .unwrap();
    let out = spindle().arg("check").arg(&path).output().unwrap();
    let _ = std::fs::remove_file(&path);
    out
}

fn assert_clean(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("overflow"),
        "{stderr}"
    );
    assert!(matches!(out.status.code(), Some(0 | 1)), "{:?}", out.status);
    if out.status.code() == Some(1) {
        assert!(stderr.starts_with("error"), "{stderr}");
    }
}

#[test]
fn a_hundred_thousand_nested_parentheses_is_a_clean_error() {
    let text = format!(
        "def main = {}1{}\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let out = check_bytes("parens.sp", text.as_bytes());
    check_error_output(&out, "parens.sp:1:").unwrap();
}

#[test]
fn unclosed_deep_nesting_is_a_clean_error() {
    let text = format!("def main = {}\n", "[(\\x -> ".repeat(50_000));
    let out = check_bytes("unclosed.sp", text.as_bytes());
    check_error_output(&out, "unclosed.sp:1:").unwrap();
}

#[test]
fn a_ten_megabyte_line_of_additions_checks() {
    // 5 million operands on one line: parsed and resolved without native recursion.
    let mut text = String::from("def main : Int = 1");
    while text.len() < 10_000_000 {
        text.push_str(" + 1");
    }
    text.push('\n');
    let out = check_bytes("long_line.sp", text.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_ten_megabyte_line_of_garbage_is_a_clean_error() {
    let text = format!("def main = {}\n", ") ".repeat(5_000_000));
    let out = check_bytes("garbage.sp", text.as_bytes());
    check_error_output(&out, "garbage.sp:1:").unwrap();
    assert!(
        out.stderr.len() < 100_000,
        "the error echoes the whole line"
    );
}

#[test]
fn a_million_element_list_and_right_nested_concat_check() {
    let items: Vec<&str> = std::iter::repeat_n("1", 1_000_000).collect();
    let strs: Vec<&str> = std::iter::repeat_n("\"a\"", 200_000).collect();
    let text = format!(
        "def xs = [{}]\ndef s = {}\n",
        items.join(", "),
        strs.join(" ++ ")
    );
    let out = check_bytes("big_list.sp", text.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_long_list_literal_runs_and_prints() {
    // Building a literal's cells must not recurse natively once per element.
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("spindle-robust-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("long_literal.sp");
    let items: Vec<String> = (0..200_000).map(|i| i.to_string()).collect();
    let text = format!(
        "def xs : List Int = [{}]\ndef main : List Int = [sum xs, length xs, fromMaybe 0 (last xs)]\n",
        items.join(", ")
    );
    std::fs::write(&path, text).unwrap();
    let out = spindle()
        .args(["run", "--progress", "none"])
        .arg(&path)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_clean(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "[19999900000, 200000, 199999]\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn random_bytes_never_panic() {
    // A fixed pseudo-random sequence (xorshift), so failures are reproducible.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for round in 0..40 {
        let bytes: Vec<u8> = (0..2000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Mostly printable ASCII with some newlines and high bytes.
                match state % 10 {
                    0 => b'\n',
                    1 => (state >> 8) as u8,
                    _ => 32 + ((state >> 16) % 95) as u8,
                }
            })
            .collect();
        let out = check_bytes(&format!("random{round}.sp"), &bytes);
        assert_clean(&out);
        assert_eq!(out.status.code(), Some(1), "random bytes were accepted");
    }
}

#[test]
fn deeply_nested_patterns_and_lets_check() {
    let mut pat = String::from("x");
    for _ in 0..300 {
        pat = format!("(Just {pat})");
    }
    let mut body = String::from("0");
    for i in 0..300 {
        body = format!("let v{i} = {i} in {body}");
    }
    let text =
        format!("def f (m : Maybe Int) : Int =\n  match m with\n  | {pat} -> x\n  | _ -> {body}\n");
    let out = check_bytes("deep_patterns.sp", text.as_bytes());
    assert_clean(&out);
}
