//! fio's IO engines as ssdlab reads `ioengine`: the simulated drive replaces the engine, so an
//! engine that moves data to and from a device (or a file, or a remote volume) runs the job
//! against the simulated drive; a synchronous one (fio's `FIO_SYNCIO` flag) also caps the job's
//! queue depth at 1, as fio does. fio's `null` engines run the job's access pattern on the drive
//! (fio's examples use them to show a pattern). An engine whose commands are not reads and
//! writes of the job's span (`cpuio`, `exec`, the file and directory operations, the network and
//! object-store engines) or one fio does not have is refused.

/// How a named engine runs on the simulated drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// Commands queue up to `iodepth` (libaio, io_uring, ...).
    Queued,
    /// One command at a time whatever `iodepth` (fio's `FIO_SYNCIO` engines).
    Synchronous,
}

/// fio's synchronous data engines (flagged `FIO_SYNCIO` in fio's `engines/*.c`): fio caps their
/// queue depth at 1 ("both iodepth >= 1 and synchronous I/O engine are selected, queue depth
/// will be capped at 1").
const SYNCHRONOUS: &[&str] = &[
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "mmap",
    "splice",
    "dev-dax",
    "libpmem",
    "pmemblk",
    "libzbc",
    "mtd",
    "ime_psync",
    "ime_psyncv",
    "fusion-aw-sync",
    "libhdfs",
    "gfapi",
    // The sheepdog engine of fio's tree is synchronous (`FIO_SYNCIO`; fio 3.33 does not have it).
    "sheepdog",
];

/// fio's queued data engines, and the external engines people load by name (SPDK's plugins).
const QUEUED: &[&str] = &[
    "libaio",
    "io_uring",
    "io_uring_cmd",
    "posixaio",
    "solarisaio",
    "windowsaio",
    "sg",
    "sgunmap",
    "nbd",
    "rbd",
    "libiscsi",
    "libblkio",
    "xnvme",
    "spdk",
    "spdk_bdev",
    "ime_aio",
    "gfapi_async",
    "nfs",
    "dfs",
    "guasi",
    "syslet-rw",
    "binject",
    "libcufile",
    "libhipfile",
    // fio's null engines complete every command at once; fio's own examples use them to show an
    // access pattern (zipf.fio), which is what runs on the simulated drive.
    "null",
    "cpp_null",
];

/// fio's engines that move no data to a device, with what each does instead.
const NO_DEVICE_DATA: &[(&str, &str)] = &[
    ("cpuio", "burns CPU time"),
    ("exec", "runs a program"),
    ("net", "sends data over a network socket"),
    ("netsplice", "sends data over a network socket"),
    ("rdma", "sends data over RDMA"),
    ("filecreate", "creates files"),
    ("filestat", "stats files"),
    ("filedelete", "deletes files"),
    ("filesetxattr", "sets files' extended attributes"),
    ("filelistxattr", "lists files' extended attributes"),
    ("dircreate", "creates directories"),
    ("dirstat", "stats directories"),
    ("dirdelete", "deletes directories"),
    ("ftruncate", "truncates a file"),
    ("falloc", "allocates and punches a file's space (fallocate)"),
    ("e4defrag", "moves a file's extents on ext4"),
    ("page_fault", "touches memory"),
    ("http", "talks to an object store over HTTP"),
    ("rados", "talks to a Ceph object store"),
    ("librpma_apm_client", "writes remote persistent memory over RDMA"),
    ("librpma_apm_server", "serves persistent memory over RDMA"),
    ("librpma_gpspm_client", "writes remote persistent memory over RDMA"),
    ("librpma_gpspm_server", "serves persistent memory over RDMA"),
];

/// How `ioengine=name` runs on the simulated drive, or why it is refused.
pub fn classify(name: &str) -> Result<Engine, String> {
    let name = name.trim();
    if SYNCHRONOUS.contains(&name) {
        return Ok(Engine::Synchronous);
    }
    if QUEUED.contains(&name) {
        return Ok(Engine::Queued);
    }
    // fio loads an engine from a shared object by path (`external:/path/engine.so`, or the path
    // itself): ssdlab cannot know what it does, and runs the job as a queued engine would.
    if name.starts_with("external:") || name.contains('/') || name.ends_with(".so") {
        return Ok(Engine::Queued);
    }
    if let Some((_, what)) = NO_DEVICE_DATA.iter().find(|(n, _)| *n == name) {
        return Err(format!(
            "fio's `{name}` engine {what}: it moves no data to a drive, so there is nothing to simulate (give a block engine such as libaio or io_uring, or leave ioengine out)"
        ));
    }
    Err(format!("`{name}` is not one of fio's IO engines (for a drive: libaio, io_uring, psync, sync, ...; an engine of your own: external:PATH)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_queued_synchronous_or_refused() {
        assert_eq!(classify("libaio"), Ok(Engine::Queued));
        assert_eq!(classify(" io_uring "), Ok(Engine::Queued));
        assert_eq!(classify("psync"), Ok(Engine::Synchronous));
        assert_eq!(classify("ime_psync"), Ok(Engine::Synchronous));
        assert!(classify("falloc").is_err());
        assert_eq!(classify("external:/opt/spdk/fio_plugin.so"), Ok(Engine::Queued));
        assert_eq!(classify("null"), Ok(Engine::Queued));
        let cpu = classify("cpuio").unwrap_err();
        assert!(cpu.contains("moves no data"), "{cpu}");
        let made_up = classify("bogus_engine").unwrap_err();
        assert!(made_up.contains("not one of fio's IO engines"), "{made_up}");
        // No name is in two lists.
        for name in SYNCHRONOUS.iter().chain(QUEUED) {
            assert!(!NO_DEVICE_DATA.iter().any(|(n, _)| n == name), "{name}");
        }
        assert!(!SYNCHRONOUS.iter().any(|n| QUEUED.contains(n)));
    }
}
