//! Whether this process has room for a drive's tables, asked before they are built.
//!
//! A drive's tables are allocated and zeroed when it is built (about 2 MiB per raw GiB). Too
//! large a drive for the machine would otherwise end in the kernel's out-of-memory kill (no
//! message, exit 137) or, under an address-space limit (`ulimit -v`), in Rust's allocation-failure
//! abort (exit 134): [`check_room`] refuses it first, with the sizes, as a configuration error.
//!
//! The room is the least of what each limit that applies leaves (Linux only; elsewhere nothing is
//! checked):
//! * the machine: `MemAvailable` plus free swap (`/proc/meminfo`);
//! * the control group: `memory.max` less `memory.current` (v2), or the memory controller's
//!   `memory.limit_in_bytes` less `memory.usage_in_bytes` (v1), for the process's group and
//!   each group above it;
//! * the address space: the soft `RLIMIT_AS` less the process's virtual size.
//!
//! Freed tables the [`crate::RecyclingAllocator`] keeps for the next drive count as room (the
//! next drive's tables take them again).

use crate::{bail, Result};

/// Bytes this process may still take, and the limit that sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Room {
    /// Bytes left under the tightest limit.
    pub bytes: u64,
    /// Which limit that is, in words ("memory available on this machine", ...).
    pub limit: String,
}

/// The room left under the tightest limit that applies, or `None` when none can be read.
pub fn room() -> Option<Room> {
    let kept = crate::recycling_alloc::kept_bytes_in_process() as u64;
    let own = address_space_room().map(|bytes| Room { bytes: bytes + kept, limit: "the address-space limit (ulimit -v)".into() });
    shared_room().into_iter().chain(own).min_by_key(|r| r.bytes)
}

/// The room left under the limits this process shares with the processes it starts (the
/// machine's memory and the control group's; not the address-space limit, which each process
/// has to itself), or `None` when none can be read: what several workers, each building a
/// drive, divide among themselves.
pub fn shared_room() -> Option<Room> {
    let kept = crate::recycling_alloc::kept_bytes_in_process() as u64;
    let mut rooms = Vec::new();
    if let Some(bytes) = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| meminfo_room(&text)) {
        rooms.push(Room { bytes: bytes + kept, limit: "memory available on this machine (MemAvailable and free swap)".into() });
    }
    if let Some((bytes, group)) = cgroup_room() {
        rooms.push(Room { bytes: bytes + kept, limit: format!("the memory limit of control group {group}") });
    }
    rooms.into_iter().min_by_key(|r| r.bytes)
}

/// Tables smaller than this are not checked (no file is read for the small drives of tests).
pub const CHECKED_FROM_BYTES: u64 = 64 << 20;

/// Refuse, as a configuration error naming `what` and the parts of `needed` (name, bytes), a
/// drive whose tables take more than the room left ([`room`]). Tables under
/// [`CHECKED_FROM_BYTES`] in all are let through unchecked.
pub fn check_room(what: &str, parts: &[(&str, u64)]) -> Result<()> {
    let needed: u64 = parts.iter().map(|&(_, bytes)| bytes).sum();
    if needed < CHECKED_FROM_BYTES {
        return Ok(());
    }
    match room() {
        Some(room) if needed > room.bytes => bail!(Config, "{}", refusal(what, parts, needed, &room)),
        _ => Ok(()),
    }
}

/// The message of a refusal: what the tables take (`needed` in all), part by part, and the
/// room left.
fn refusal(what: &str, parts: &[(&str, u64)], needed: u64, room: &Room) -> String {
    let listed: Vec<String> = parts.iter().filter(|&&(_, bytes)| bytes > 0).map(|&(name, bytes)| format!("{name} {}", gib(bytes))).collect();
    format!(
        "{what}: the drive's tables need at least {} of memory ({}) and only {} is left under {}; \
         simulate a smaller drive (drive.capacity_bytes_user and nand.blocks_per_plane) or free memory",
        gib(needed),
        listed.join(", "),
        gib(room.bytes),
        room.limit
    )
}

/// `bytes` in GiB with two decimals (MiB below one GiB).
fn gib(bytes: u64) -> String {
    if bytes < 1 << 30 {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    }
}

/// `MemAvailable` plus `SwapFree` of a `/proc/meminfo` text, in bytes.
fn meminfo_room(text: &str) -> Option<u64> {
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib.saturating_mul(1024))
    };
    Some(field("MemAvailable:")?.saturating_add(field("SwapFree:").unwrap_or(0)))
}

/// The least room under a memory limit of the process's control group and the groups above it,
/// with the group that sets it: `memory.max` less `memory.current` (cgroup v2), and
/// `memory.limit_in_bytes` less `memory.usage_in_bytes` of the memory controller (cgroup v1).
fn cgroup_room() -> Option<(u64, String)> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let (v2, v1) = cgroup_paths(&own);
    let v2 = v2.and_then(|path| least_in_groups(path, "/sys/fs/cgroup", "memory.max", "memory.current"));
    let v1 = v1.and_then(|path| least_in_groups(path, "/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"));
    v2.into_iter().chain(v1).min_by_key(|(bytes, _)| *bytes)
}

/// The process's group in the unified hierarchy (v2, the `0::` line) and in the memory
/// controller's hierarchy (v1, the line naming `memory` among its controllers), from the text
/// of `/proc/self/cgroup`.
fn cgroup_paths(text: &str) -> (Option<&str>, Option<&str>) {
    let v2 = text.lines().find_map(|l| l.strip_prefix("0::")).map(str::trim);
    let v1 = text.lines().find_map(|l| {
        let mut fields = l.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        controllers.split(',').any(|c| c == "memory").then(|| path.trim())
    });
    (v2, v1)
}

/// The least room left under the limit file `max` less the usage file `current` of `path` and
/// each group above it, in the hierarchy mounted at `root`, with the group that sets it.
fn least_in_groups(path: &str, root: &str, max: &str, current: &str) -> Option<(u64, String)> {
    let mut best: Option<(u64, String)> = None;
    let mut group = path;
    loop {
        let dir = format!("{root}{}", if group == "/" { "" } else { group });
        let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).ok();
        if let (Some(max), Some(current)) = (read(max), read(current)) {
            if let Some(left) = cgroup_left(&max, &current) {
                if best.as_ref().is_none_or(|(b, _)| left < *b) {
                    best = Some((left, group.to_string()));
                }
            }
        }
        match group.rfind('/') {
            Some(0) if group != "/" => group = "/",
            Some(i) if i > 0 => group = &group[..i],
            _ => break,
        }
    }
    best
}

/// A limit at or above this is no limit (cgroup v1 writes "no limit" as the largest multiple of
/// the page size in an `i64`).
const UNLIMITED_FROM_BYTES: u64 = 1 << 62;

/// Bytes left under a control group's limit (`None` for "max" or v1's unlimited value: no
/// limit).
fn cgroup_left(max: &str, current: &str) -> Option<u64> {
    let max: u64 = max.trim().parse().ok().filter(|&m| m < UNLIMITED_FROM_BYTES)?;
    let current: u64 = current.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

/// Bytes left under the soft address-space limit (`None` when unlimited).
#[cfg(target_os = "linux")]
fn address_space_room() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the limit into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    Some(limit.rlim_cur.saturating_sub(pages * page))
}

/// No address-space limit is read outside Linux.
#[cfg(not(target_os = "linux"))]
fn address_space_room() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_gives_available_memory_and_free_swap() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   2000000 kB\nSwapTotal: 0 kB\nSwapFree:       1000 kB\n";
        assert_eq!(meminfo_room(text), Some(2_001_000 * 1024));
        assert_eq!(meminfo_room("MemAvailable: 5 kB\n"), Some(5 * 1024));
        assert_eq!(meminfo_room("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn a_control_group_without_a_limit_leaves_no_bound() {
        assert_eq!(cgroup_left("max\n", "123\n"), None);
        assert_eq!(cgroup_left("1000\n", "400\n"), Some(600));
        assert_eq!(cgroup_left("1000\n", "4000\n"), Some(0));
    }

    #[test]
    fn a_version_one_memory_limit_counts_and_its_unlimited_value_does_not() {
        assert_eq!(cgroup_left("9223372036854771712\n", "803876864\n"), None);
        assert_eq!(cgroup_left("12884901888\n", "4294967296\n"), Some(8 << 30));
    }

    #[test]
    fn the_groups_are_read_from_both_hierarchies() {
        let v1 = "9:name=systemd:/\n4:memory:/process_api/b63e\n3:cpuset:/\n0::/\n";
        assert_eq!(cgroup_paths(v1), (Some("/"), Some("/process_api/b63e")));
        let joined = "5:cpu,memory,cpuacct:/lab\n";
        assert_eq!(cgroup_paths(joined), (None, Some("/lab")));
        assert_eq!(cgroup_paths("0::/user.slice/session-2.scope\n"), (Some("/user.slice/session-2.scope"), None));
        assert_eq!(cgroup_paths("7:memoryx:/no\n"), (None, None));
    }

    #[test]
    fn a_refusal_names_the_parts_and_the_limit() {
        let room = Room { bytes: 3 << 30, limit: "the address-space limit (ulimit -v)".into() };
        let text = refusal("profile x", &[("mapping table", 4 << 30), ("reverse map", 1 << 29), ("empty", 0)], (4 << 30) + (1 << 29), &room);
        assert!(text.starts_with("profile x: the drive's tables need at least 4.50 GiB of memory (mapping table 4.00 GiB, reverse map 512.0 MiB)"), "{text}");
        assert!(text.contains("only 3.00 GiB is left under the address-space limit (ulimit -v)"), "{text}");
    }

    #[test]
    fn a_drive_that_fits_is_let_through() {
        assert!(check_room("small", &[("table", 4096)]).is_ok());
        let huge = check_room("huge", &[("table", u64::MAX / 2)]);
        if room().is_some() {
            let message = huge.unwrap_err().to_string();
            assert!(message.starts_with("huge: the drive's tables need at least"), "{message}");
        }
    }
}
