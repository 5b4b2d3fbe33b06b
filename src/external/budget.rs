//! The memory budget of external results (`--max-memory`, issue 30): the bytes a call's
//! result holds while it is read (a process's output, a file, an HTTP response body, a
//! stream's partial line) count against the same limit as the machine's heap.
//!
//! The limit and the machine's own use are published here ([`set_limit`],
//! [`set_machine_bytes`]); a reader takes what it reads through a [`Reservation`], which
//! refuses bytes past the limit, so a reader stops at the limit instead of after it
//! has buffered everything, and the call ends with [`out_of_memory`]. What a
//! reservation holds is given back when it is dropped (the result then enters the
//! machine, which counts it itself).

use crate::external::request::{CallError, CallErrorKind};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The limit in bytes (0: none).
static LIMIT: AtomicUsize = AtomicUsize::new(0);
/// The machine's bytes in use, as it last published them.
static MACHINE: AtomicUsize = AtomicUsize::new(0);
/// The bytes held by readers now.
static HELD: AtomicUsize = AtomicUsize::new(0);

/// Sets the limit in bytes (0: none): `--max-memory`, or its default.
pub fn set_limit(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// The limit in bytes (0: none).
pub fn limit() -> usize {
    LIMIT.load(Ordering::Relaxed)
}

/// The machine publishes the bytes it holds (heap, strings, stacks), so that readers
/// on other threads see how much room is left.
pub fn set_machine_bytes(bytes: usize) {
    MACHINE.store(bytes, Ordering::Relaxed);
}

/// The bytes readers hold now (counted by the machine's own check too).
pub fn held() -> usize {
    HELD.load(Ordering::Relaxed)
}

/// Bytes a result holds while it is read; given back when dropped.
#[derive(Debug, Default)]
pub struct Reservation {
    bytes: usize,
}

impl Reservation {
    /// An empty reservation.
    pub fn new() -> Self {
        Reservation { bytes: 0 }
    }

    /// Takes `n` more bytes; false (and nothing taken) when that would pass the limit.
    pub fn grow(&mut self, n: usize) -> bool {
        let limit = limit();
        let before = HELD.fetch_add(n, Ordering::Relaxed);
        if limit != 0 {
            let total = MACHINE
                .load(Ordering::Relaxed)
                .saturating_add(before)
                .saturating_add(n);
            if total > limit {
                HELD.fetch_sub(n, Ordering::Relaxed);
                return false;
            }
        }
        self.bytes += n;
        true
    }

    /// Holds exactly `n` bytes (more taken, or some given back); false (and nothing
    /// changed) when taking more would pass the limit.
    pub fn set(&mut self, n: usize) -> bool {
        if n > self.bytes {
            return self.grow(n - self.bytes);
        }
        HELD.fetch_sub(self.bytes - n, Ordering::Relaxed);
        self.bytes = n;
        true
    }

    /// The bytes taken.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        HELD.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// A size for messages: `64 MiB`, `1.5 GiB`, `512 bytes`.
pub fn show_size(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut x = bytes as f64 / 1024.0;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    if (x - x.round()).abs() < 0.05 {
        format!("{} {}", x.round() as u64, UNITS[unit])
    } else {
        format!("{x:.1} {}", UNITS[unit])
    }
}

/// The error of a call whose result (`what`: "the output of `seq 1 9`") passed the
/// limit.
pub fn out_of_memory(what: &str) -> CallError {
    CallError::new(
        CallErrorKind::OutOfMemory,
        format!(
            "out of memory: {what} passed the memory limit of {} (--max-memory)",
            show_size(limit())
        ),
    )
}

/// Reads `r` to its end, every byte taken from `res`: `Err` with what was read when
/// the limit was passed (the reading stops there). A read error ends the stream.
pub fn read_limited(r: impl Read, res: &mut Reservation) -> Result<Vec<u8>, Vec<u8>> {
    let mut buf = Vec::new();
    match read_limited_into(r, &mut buf, res) {
        true => Ok(buf),
        false => Err(buf),
    }
}

/// Reads `r` to its end onto `buf`, `res` holding at least the bytes of `buf` (more
/// taken only past what it holds already): false when the limit was passed (the
/// reading stops there). A read error ends the stream.
pub fn read_limited_into(mut r: impl Read, buf: &mut Vec<u8>, res: &mut Reservation) -> bool {
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        match r.read(&mut chunk) {
            Ok(0) => return true,
            Ok(n) => {
                let want = buf.len() + n;
                if want > res.bytes() && !res.grow(want - res.bytes()) {
                    return false;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return true,
        }
    }
}

/// Bytes as text without a copy when they are UTF-8 (else with replacement
/// characters).
pub fn into_text(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The default of `--max-memory` (issue 30): three quarters of the smallest of the
/// machine's memory, the address-space limit (`ulimit -v`) and the memory limit of
/// the process's cgroup (v2 `memory.max`, v1 `memory.limit_in_bytes`, the smallest
/// along its ancestors); 0 (no limit) when none of them can be read.
pub fn default_limit() -> usize {
    let physical = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| meminfo_total(&m));
    let vm_size = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|m| status_vm_size(&m));
    let address_space = address_space_limit().map(|l| address_space_room(l, vm_size));
    default_from(&[physical, address_space, cgroup_limit()])
}

/// Address space a process keeps for other things than the values it holds: threads
/// still to start (their stacks, their allocator arenas), the code, buffers.
pub const ADDRESS_SPACE_SLACK: u64 = 256 << 20;

/// What `ulimit -v` (`limit` bytes of address space) leaves for values, the process
/// having mapped `vm_size` bytes already: the address space counts every mapping
/// (code, thread stacks, reserved allocator arenas), not only the bytes held, so the
/// mappings there now and [`ADDRESS_SPACE_SLACK`] for those to come are taken off
/// (at least 1 MiB is left, so that the limit is never "none").
pub fn address_space_room(limit: u64, vm_size: Option<u64>) -> u64 {
    limit
        .saturating_sub(vm_size.unwrap_or(0))
        .saturating_sub(ADDRESS_SPACE_SLACK)
        .max(1 << 20)
}

/// `VmSize` of /proc/self/status (the address space mapped now), in bytes.
pub fn status_vm_size(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb.saturating_mul(1024))
}

/// Three quarters of the smallest of `limits` (0 when there is none).
pub fn default_from(limits: &[Option<u64>]) -> usize {
    limits
        .iter()
        .flatten()
        .min()
        .map(|&b| usize::try_from(b / 4 * 3).unwrap_or(usize::MAX))
        .unwrap_or(0)
}

/// `MemTotal` of /proc/meminfo, in bytes.
pub fn meminfo_total(meminfo: &str) -> Option<u64> {
    meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb.saturating_mul(1024))
}

/// The soft `RLIMIT_AS` (`ulimit -v`) in bytes, if there is one.
pub fn address_space_limit() -> Option<u64> {
    use nix::sys::resource::{RLIM_INFINITY, Resource, getrlimit};
    match getrlimit(Resource::RLIMIT_AS) {
        Ok((soft, _)) if soft != RLIM_INFINITY => Some(soft),
        _ => None,
    }
}

/// A cgroup memory limit file's value: `max` (v2) or a number at or past 2^60 (v1's
/// way to say none) is no limit.
pub fn parse_cgroup_limit(text: &str) -> Option<u64> {
    let t = text.trim();
    if t == "max" {
        return None;
    }
    t.parse::<u64>().ok().filter(|&n| n < 1 << 60)
}

/// The process's cgroup paths from /proc/self/cgroup: the v2 one (`0::/path`) and
/// the v1 one of the memory controller (`N:memory:/path`, also in a list of
/// controllers such as `N:cpu,memory:/path`).
pub fn parse_proc_cgroup(text: &str) -> (Option<String>, Option<String>) {
    let (mut v2, mut v1) = (None, None);
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if id == "0" && controllers.is_empty() {
            v2 = Some(path.to_string());
        } else if controllers.split(',').any(|c| c == "memory") {
            v1 = Some(path.to_string());
        }
    }
    (v2, v1)
}

/// A cgroup file system mounted: the cgroup path it shows at its root, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CgroupMount {
    /// The cgroup path at the mount's root (`/` unless the mount shows a subtree).
    pub root: String,
    /// Where it is mounted.
    pub mount_point: String,
}

/// The cgroup v2 mount and the v1 mount of the memory controller, from
/// /proc/self/mountinfo.
pub fn parse_mountinfo(text: &str) -> (Option<CgroupMount>, Option<CgroupMount>) {
    let (mut v2, mut v1) = (None, None);
    for line in text.lines() {
        let Some((before, after)) = line.split_once(" - ") else {
            continue;
        };
        let fields: Vec<&str> = before.split(' ').collect();
        let rest: Vec<&str> = after.split(' ').collect();
        let (Some(root), Some(point), Some(fs)) = (fields.get(3), fields.get(4), rest.first())
        else {
            continue;
        };
        let mount = CgroupMount {
            root: root.to_string(),
            mount_point: point.to_string(),
        };
        match *fs {
            "cgroup2" if v2.is_none() => v2 = Some(mount),
            "cgroup"
                if v1.is_none()
                    && rest
                        .get(2)
                        .is_some_and(|o| o.split(',').any(|x| x == "memory")) =>
            {
                v1 = Some(mount)
            }
            _ => {}
        }
    }
    (v2, v1)
}

/// The directories whose limit file bounds a cgroup at `path` under `mount`: its own,
/// then each ancestor up to the mount's root.
pub fn cgroup_dirs(mount: &CgroupMount, path: &str) -> Vec<std::path::PathBuf> {
    let rel = path
        .strip_prefix(mount.root.as_str())
        .unwrap_or(path)
        .trim_matches('/');
    let mut dirs = Vec::new();
    let mut cur = std::path::PathBuf::from(&mount.mount_point);
    dirs.push(cur.clone());
    for part in rel.split('/').filter(|p| !p.is_empty()) {
        cur.push(part);
        dirs.push(cur.clone());
    }
    dirs.reverse();
    dirs
}

/// The memory limit of this process's cgroup (v2 or v1), the smallest along its
/// ancestors, if any.
pub fn cgroup_limit() -> Option<u64> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let (path2, path1) = parse_proc_cgroup(&cgroups);
    let (mount2, mount1) = parse_mountinfo(&mounts);
    let mut found = None::<u64>;
    let mut look = |mount: Option<CgroupMount>, path: Option<String>, file: &str| {
        let (Some(m), Some(p)) = (mount, path) else {
            return;
        };
        for dir in cgroup_dirs(&m, &p) {
            if let Some(n) = std::fs::read_to_string(dir.join(file))
                .ok()
                .and_then(|t| parse_cgroup_limit(&t))
            {
                found = Some(found.map_or(n, |f| f.min(n)));
            }
        }
    };
    look(mount2, path2, "memory.max");
    look(mount1, path1, "memory.limit_in_bytes");
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_well() {
        assert_eq!(show_size(100), "100 bytes");
        assert_eq!(show_size(64 << 20), "64 MiB");
        assert_eq!(show_size(3 << 29), "1.5 GiB");
    }

    #[test]
    fn text_keeps_utf8_and_replaces_the_rest() {
        assert_eq!(into_text(b"h\xc3\xa9".to_vec()), "hé");
        assert_eq!(into_text(vec![b'a', 0xff]), "a\u{fffd}");
    }

    #[test]
    fn the_default_is_three_quarters_of_the_smallest_limit() {
        assert_eq!(
            default_from(&[Some(16 << 30), None, Some(4 << 30)]),
            3 << 30
        );
        assert_eq!(default_from(&[Some(8 << 30), Some(2 << 30), None]), 3 << 29);
        assert_eq!(default_from(&[None, None, None]), 0);
    }

    #[test]
    fn the_address_space_leaves_room_for_mappings() {
        let status = "Name:\tspindle\nVmPeak:\t  400000 kB\nVmSize:\t  102400 kB\n";
        assert_eq!(status_vm_size(status), Some(100 << 20));
        assert_eq!(
            address_space_room(1 << 30, Some(100 << 20)),
            (1 << 30) - (356 << 20)
        );
        assert_eq!(address_space_room(200 << 20, Some(100 << 20)), 1 << 20);
        assert_eq!(address_space_room(1 << 30, None), (1 << 30) - (256 << 20));
    }

    #[test]
    fn meminfo_gives_bytes() {
        let m = "MemTotal:       24683656 kB\nMemFree:  1 kB\n";
        assert_eq!(meminfo_total(m), Some(24683656 * 1024));
        assert_eq!(meminfo_total("nothing"), None);
    }

    #[test]
    fn cgroup_limit_files() {
        assert_eq!(parse_cgroup_limit("max\n"), None);
        assert_eq!(parse_cgroup_limit("536870912\n"), Some(512 << 20));
        // cgroup v1 says "no limit" with a page-rounded i64::MAX.
        assert_eq!(parse_cgroup_limit("9223372036854771712\n"), None);
        assert_eq!(parse_cgroup_limit("garbage"), None);
    }

    #[test]
    fn proc_self_cgroup_v1_and_v2() {
        let v1 = "9:name=systemd:/\n4:memory:/process_api/f52\n3:cpuset:/\n0::/\n";
        assert_eq!(
            parse_proc_cgroup(v1),
            (Some("/".into()), Some("/process_api/f52".into()))
        );
        let v2 = "0::/user.slice/user-1000.slice/session-2.scope\n";
        assert_eq!(
            parse_proc_cgroup(v2),
            (
                Some("/user.slice/user-1000.slice/session-2.scope".into()),
                None
            )
        );
        let joined = "5:cpu,memory:/box\n";
        assert_eq!(parse_proc_cgroup(joined), (None, Some("/box".into())));
    }

    #[test]
    fn mountinfo_finds_cgroup_mounts_and_their_ancestors() {
        let m = "35 25 0:30 / /sys/fs/cgroup/unified rw,nosuid shared:10 - cgroup2 cgroup2 rw,nsdelegate\n\
                 40 25 0:35 / /sys/fs/cgroup/memory rw,nosuid shared:15 - cgroup cgroup rw,memory\n\
                 41 25 0:36 / /sys/fs/cgroup/cpu rw shared:16 - cgroup cgroup rw,cpu,cpuacct\n";
        let (v2, v1) = parse_mountinfo(m);
        let v2 = v2.unwrap();
        let v1 = v1.unwrap();
        assert_eq!(v2.mount_point, "/sys/fs/cgroup/unified");
        assert_eq!(v1.mount_point, "/sys/fs/cgroup/memory");
        let dirs = cgroup_dirs(&v1, "/process_api/f52");
        let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        assert_eq!(
            dirs,
            [
                "/sys/fs/cgroup/memory/process_api/f52",
                "/sys/fs/cgroup/memory/process_api",
                "/sys/fs/cgroup/memory"
            ]
        );
        // A container's namespaced mount shows its own cgroup at the root.
        let inner = CgroupMount {
            root: "/docker/abc".into(),
            mount_point: "/sys/fs/cgroup".into(),
        };
        assert_eq!(
            cgroup_dirs(&inner, "/docker/abc"),
            [std::path::PathBuf::from("/sys/fs/cgroup")]
        );
    }
}
