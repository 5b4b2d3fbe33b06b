//! The seccomp filter a traced tool runs under: a classic BPF program that lets every
//! system call through except the file system calls the tracer must see, which stop
//! the tool for its tracer (`SECCOMP_RET_TRACE`). Stopping only there, rather than at
//! every system call as plain `ptrace` does, is what makes tracing cheap (Riker's
//! design).
//!
//! Written out rather than built with a filter crate: the program is a dozen lines, and
//! what it must do for a foreign architecture (stop, so that the tracer can say it
//! cannot follow a 32-bit program) is not what such crates do (they kill the process).

/// `SECCOMP_RET_DATA` of a stop for a system call of the native architecture.
pub const DATA_NATIVE: u32 = 0;
/// ... of a system call of another architecture (a 32-bit program on x86-64).
pub const DATA_FOREIGN_ARCH: u32 = 1;
/// ... of an x32 system call.
pub const DATA_X32: u32 = 2;

/// The system calls that stop a traced tool, on x86-64.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub const TRACED: &[i64] = &[
    libc::SYS_open,
    libc::SYS_openat,
    libc::SYS_openat2,
    libc::SYS_creat,
    libc::SYS_stat,
    libc::SYS_lstat,
    libc::SYS_newfstatat,
    libc::SYS_statx,
    libc::SYS_access,
    libc::SYS_faccessat,
    libc::SYS_faccessat2,
    libc::SYS_readlink,
    libc::SYS_readlinkat,
    libc::SYS_execve,
    libc::SYS_execveat,
    libc::SYS_getdents,
    libc::SYS_getdents64,
    libc::SYS_mkdir,
    libc::SYS_mkdirat,
    libc::SYS_rmdir,
    libc::SYS_unlink,
    libc::SYS_unlinkat,
    libc::SYS_rename,
    libc::SYS_renameat,
    libc::SYS_renameat2,
    libc::SYS_link,
    libc::SYS_linkat,
    libc::SYS_symlink,
    libc::SYS_symlinkat,
    libc::SYS_truncate,
    libc::SYS_mknod,
    libc::SYS_mknodat,
    libc::SYS_io_uring_setup,
    libc::SYS_open_by_handle_at,
];

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
use nix::libc;

/// `AUDIT_ARCH_X86_64` (linux/audit.h).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
const AUDIT_ARCH_NATIVE: u32 = 0xC000_003E;

/// `AT_EMPTY_PATH`: a `stat` of a descriptor, not a path.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
const AT_EMPTY_PATH: u32 = 0x1000;

/// The filter program.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub fn program() -> Vec<libc::sock_filter> {
    use libc::{
        BPF_ABS, BPF_JEQ, BPF_JGE, BPF_JMP, BPF_JSET, BPF_K, BPF_LD, BPF_RET, BPF_W,
        SECCOMP_RET_ALLOW, SECCOMP_RET_TRACE,
    };
    let stmt = |code: u32, k: u32| libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |code: u32, k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    };
    // Offsets in `struct seccomp_data`: nr, arch, instruction pointer, args[6].
    const NR: u32 = 0;
    const ARCH: u32 = 4;
    let arg_low = |i: u32| 16 + 8 * i;
    let ld = BPF_LD | BPF_W | BPF_ABS;
    let trace = |data: u32| stmt(BPF_RET | BPF_K, SECCOMP_RET_TRACE | data);
    let allow = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    let mut p = vec![
        stmt(ld, ARCH),
        jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_NATIVE, 1, 0),
        trace(DATA_FOREIGN_ARCH),
        stmt(ld, NR),
        jump(BPF_JMP | BPF_JGE | BPF_K, 0x4000_0000, 0, 1),
        trace(DATA_X32),
    ];
    // `fstat` is `newfstatat(fd, "", buf, AT_EMPTY_PATH)` (and `statx` alike): by far
    // the most frequent of these calls, and about a descriptor, not a path.
    for (nr, flags_arg) in [(libc::SYS_newfstatat, 3), (libc::SYS_statx, 2)] {
        p.push(jump(BPF_JMP | BPF_JEQ | BPF_K, nr as u32, 0, 4));
        p.push(stmt(ld, arg_low(flags_arg)));
        p.push(jump(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 0, 1));
        p.push(allow);
        p.push(trace(DATA_NATIVE));
    }
    let n = TRACED.len();
    for (i, nr) in TRACED.iter().enumerate() {
        // To the `trace` after the last comparison and the `allow`.
        let to_trace = (n - i) as u8;
        p.push(jump(BPF_JMP | BPF_JEQ | BPF_K, *nr as u32, to_trace, 0));
    }
    p.push(allow);
    p.push(trace(DATA_NATIVE));
    p
}

#[cfg(all(test, target_os = "linux", target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// A small interpreter of the instructions the program uses, to check its jumps.
    fn run(p: &[libc::sock_filter], nr: i64, arch: u32, args: [u64; 6]) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&(nr as i32).to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        for (i, a) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_le_bytes());
        }
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let ins = p[pc];
            let code = ins.code as u32;
            match code & 0x07 {
                0x00 => {
                    let k = ins.k as usize;
                    acc = u32::from_le_bytes(data[k..k + 4].try_into().unwrap());
                    pc += 1;
                }
                0x05 => {
                    let taken = match code & 0xf0 {
                        0x10 => acc == ins.k,
                        0x30 => acc >= ins.k,
                        0x40 => acc & ins.k != 0,
                        other => panic!("jump {other:#x}"),
                    };
                    pc += 1 + if taken { ins.jt } else { ins.jf } as usize;
                }
                0x06 => return ins.k,
                other => panic!("class {other:#x}"),
            }
        }
    }

    #[test]
    fn the_filter_stops_file_calls_only() {
        let p = program();
        assert!(p.len() < 256);
        let trace = libc::SECCOMP_RET_TRACE;
        let allow = libc::SECCOMP_RET_ALLOW;
        let native = AUDIT_ARCH_NATIVE;
        for nr in TRACED {
            assert_eq!(run(&p, *nr, native, [0; 6]), trace, "{nr}");
        }
        for nr in [
            libc::SYS_read,
            libc::SYS_write,
            libc::SYS_close,
            libc::SYS_mmap,
        ] {
            assert_eq!(run(&p, nr, native, [0; 6]), allow, "{nr}");
        }
        let empty = [3, 0, 0, AT_EMPTY_PATH as u64, 0, 0];
        assert_eq!(run(&p, libc::SYS_newfstatat, native, empty), allow);
        assert_eq!(run(&p, libc::SYS_newfstatat, native, [0; 6]), trace);
        assert_eq!(
            run(
                &p,
                libc::SYS_statx,
                native,
                [3, 0, AT_EMPTY_PATH as u64, 0, 0, 0]
            ),
            allow
        );
        assert_eq!(run(&p, libc::SYS_statx, native, [0; 6]), trace);
        assert_eq!(
            run(&p, libc::SYS_read, 0x4000_0003, [0; 6]),
            trace | DATA_FOREIGN_ARCH
        );
        assert_eq!(
            run(&p, 0x4000_0000 + libc::SYS_openat, native, [0; 6]),
            trace | DATA_X32
        );
    }
}
