//! `spindle encode`, `decode` and `hash` with the real binary: a round trip through a
//! file, hashes that agree, and clean errors (exit status 1, standard error starting
//! with `error`, no panic) for corrupt, missing and unloadable input.

use crate::common;

use common::{run_in, spindle, tests_dir};
use std::path::PathBuf;
use std::process::Output;

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spindle-proto-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn assert_clean_error(out: &Output, mentions: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.starts_with("error"), "stderr: {stderr}");
    assert!(stderr.contains(mentions), "no `{mentions}` in: {stderr}");
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert!(out.stdout.is_empty(), "stdout: {}", stdout(out));
}

#[test]
fn encode_decode_and_hash_agree() {
    let dir = scratch("agree");
    let source = tests_dir().join("examples/spec/data.sp");
    let pb = dir.join("data.pb");
    let enc = spindle()
        .args([
            "encode".as_ref(),
            source.as_os_str(),
            "-o".as_ref(),
            pb.as_os_str(),
        ])
        .output()
        .expect("runs");
    assert!(
        enc.status.success(),
        "{}",
        String::from_utf8_lossy(&enc.stderr)
    );
    assert!(enc.stdout.is_empty() && enc.stderr.is_empty());

    let dec = run_in(&dir, &["decode", "data.pb"]);
    assert!(
        dec.status.success(),
        "{}",
        String::from_utf8_lossy(&dec.stderr)
    );
    let text = stdout(&dec);
    assert!(text.contains("def main"), "{text}");
    std::fs::write(dir.join("decoded.sp"), &text).expect("writes");
    let check = run_in(&dir, &["check", "decoded.sp"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    let h_source = stdout(&spindle().arg("hash").arg(&source).output().expect("runs"));
    let h_pb = stdout(&run_in(&dir, &["hash", "data.pb"]));
    let h_decoded = stdout(&run_in(&dir, &["hash", "decoded.sp"]));
    let h = h_source.trim_end();
    assert_eq!(h.len(), 64, "{h_source:?}");
    assert!(h.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')));
    assert_eq!(h_source, format!("{h}\n"));
    assert_eq!(h_pb, h_source);
    assert_eq!(h_decoded, h_source);

    // A different program hashes differently.
    let other = stdout(
        &spindle()
            .arg("hash")
            .arg(tests_dir().join("examples/spec/hello.sp"))
            .output()
            .expect("runs"),
    );
    assert_ne!(other, h_source);
}

#[test]
fn corrupt_files_are_rejected_cleanly() {
    let dir = scratch("corrupt");
    let source = tests_dir().join("examples/spec/lists.sp");
    let pb = dir.join("good.pb");
    let enc = spindle()
        .arg("encode")
        .arg(&source)
        .arg("-o")
        .arg(&pb)
        .output()
        .expect("runs");
    assert!(enc.status.success());
    let bytes = std::fs::read(&pb).expect("reads");

    std::fs::write(dir.join("truncated.pb"), &bytes[..bytes.len() / 2]).expect("writes");
    assert_clean_error(&run_in(&dir, &["decode", "truncated.pb"]), "truncated.pb");
    assert_clean_error(&run_in(&dir, &["hash", "truncated.pb"]), "truncated.pb");

    let garbage: Vec<u8> = (0..4000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(dir.join("garbage.pb"), garbage).expect("writes");
    assert_clean_error(&run_in(&dir, &["decode", "garbage.pb"]), "cannot decode");

    std::fs::write(dir.join("empty.pb"), b"").expect("writes");
    assert_clean_error(&run_in(&dir, &["decode", "empty.pb"]), "format version");

    assert_clean_error(&run_in(&dir, &["decode", "missing.pb"]), "missing.pb");
}

#[test]
fn encode_reports_unloadable_programs_and_unwritable_outputs() {
    let dir = scratch("encode-errors");
    std::fs::write(dir.join("bad.sp"), "def main = (1 +\n").expect("writes");
    let out = run_in(&dir, &["encode", "bad.sp", "-o", "bad.pb"]);
    assert_clean_error(&out, "bad.sp:");
    assert!(!dir.join("bad.pb").exists());

    std::fs::write(dir.join("ok.sp"), "def main = 1\n").expect("writes");
    let out = run_in(&dir, &["encode", "ok.sp", "-o", "no/such/dir/ok.pb"]);
    assert_clean_error(&out, "cannot write");

    assert_clean_error(&run_in(&dir, &["hash", "bad.sp"]), "bad.sp:");
}
