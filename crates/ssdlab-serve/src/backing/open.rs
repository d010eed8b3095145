//! Opening a backing file on disk: locked while in use, and what `--secure-erase` may empty.

use super::{io, BackingFile, DriveIdentity};
use crate::header::HEADER_BYTES;
use crate::host::OsFile;
use ssdlab_core::{bail, Result};
use std::fs::OpenOptions;
use std::os::unix::io::AsRawFd;
use std::sync::Arc;

/// Most data read to tell that a file handed to `--secure-erase` is blank (64 MiB).
const BLANK_SCAN_BYTES: u64 = 64 << 20;

impl BackingFile {
    /// Open `path` for the drive `identity` describes, creating it (with `seed`) when it does
    /// not exist, and lock it. A file in use by another server, made for another drive or in
    /// another format, or with no intact header, is refused with a message naming both sides.
    /// With `erase`, whatever the file held is dropped first: the drive starts secure-erased.
    /// With `direct`, whole 128 KiB units of data are written bypassing the page cache
    /// (`O_DIRECT`) where the file system allows it (`serve --direct-data`). Off by default:
    /// measured on this project's VM, it doubles sequential-write throughput but cuts reads to
    /// a third or a half, which then come from the disk instead of the page cache
    /// (BENCHMARKS.md, issue 24 round three).
    pub fn open(path: &str, identity: &DriveIdentity, seed: u64, erase: bool, direct: bool) -> Result<Self> {
        let parent = std::path::Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !parent.is_dir() {
            bail!(Io, "{path}: folder {} does not exist", parent.display());
        }
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).map_err(|e| io(path, "open the backing file", e))?;
        // SAFETY: flock on a valid, open descriptor; no memory is involved.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                let holder =
                    lock_holder(&file).map(|(pid, name)| format!(": process {pid} ({name}) holds its lock")).unwrap_or_else(|| " (it is locked)".into());
                bail!(
                    Io,
                    "{path}: the backing file is in use by another ssdlab server{holder}; stop that server first (a server saving its state at a stop, even after its `ssdlab serve` was killed, ends by itself)"
                );
            }
            return Err(io(path, "lock the backing file", e));
        }
        if erase {
            Self::check_erasable(path, &file)?;
            file.set_len(0).map_err(|e| io(path, "secure-erase (empty) the backing file", e))?;
        }
        let host = if direct { OsFile::with_direct(file, path) } else { OsFile::new(file) };
        Self::on(Arc::new(host), path, identity, seed)
    }

    /// `--secure-erase` empties only what is a drive: an empty file, an ssdlab backing file (of
    /// any version, damaged or dead: either header slot starts with the magic) or one whose
    /// header slots are blank (made by `truncate` or `qemu-img create`). Any other file holds
    /// someone's data: refused, never overwritten.
    fn check_erasable(path: &str, file: &std::fs::File) -> Result<()> {
        use std::os::unix::fs::FileExt as _;
        let len = file.metadata().map_err(|e| io(path, "read the backing file's size", e))?.len();
        if len == 0 {
            return Ok(());
        }
        let mut head = vec![0u8; (2 * HEADER_BYTES).min(len) as usize];
        file.read_exact_at(&mut head, 0).map_err(|e| io(path, "read the header", e))?;
        let slots: Vec<&[u8]> = head.chunks(HEADER_BYTES as usize).collect();
        if slots.iter().any(|slot| slot.starts_with(crate::header::MAGIC)) {
            return Ok(());
        }
        match Self::all_zeros(file, len) {
            Some(true) => Ok(()),
            Some(false) => bail!(
                Config,
                "{path}: not an ssdlab backing file (it holds other data: no ssdlab header, not blank); --secure-erase empties only ssdlab drives and blank files, never another file: give a new file name (created by serve)"
            ),
            None => bail!(
                Config,
                "{path}: not an ssdlab backing file, and more than {} MiB of it would have to be read to tell it is blank; --secure-erase empties only ssdlab drives and blank files: give a new file name (created by serve)",
                BLANK_SCAN_BYTES >> 20
            ),
        }
    }

    /// Whether every byte of the file is zero, reading only its data (holes skipped with
    /// `SEEK_DATA`/`SEEK_HOLE`, so a sparse file from `truncate` or `qemu-img create` costs
    /// nothing); `None` when more than [`BLANK_SCAN_BYTES`] of data would have to be read.
    fn all_zeros(file: &std::fs::File, len: u64) -> Option<bool> {
        use std::os::unix::fs::FileExt as _;
        let fd = file.as_raw_fd();
        let mut at: u64 = 0;
        let mut read_total: u64 = 0;
        let mut buffer = vec![0u8; 1 << 20];
        while at < len {
            // SAFETY: lseek on a valid descriptor; no memory is involved.
            let data = unsafe { libc::lseek(fd, at as libc::off_t, libc::SEEK_DATA) };
            if data >= 0 {
                at = data as u64;
            } else if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENXIO) {
                // No data after `at`.
                return Some(true);
            }
            // (Another error: no SEEK_DATA here; the rest is read from `at`.)
            // SAFETY: as above.
            let hole = unsafe { libc::lseek(fd, at as libc::off_t, libc::SEEK_HOLE) };
            let end = if hole < 0 { len } else { (hole as u64).min(len) };
            if end <= at {
                // Data with no hole after it where one must be: do not guess.
                return None;
            }
            while at < end {
                let n = ((end - at) as usize).min(buffer.len());
                read_total += n as u64;
                if read_total > BLANK_SCAN_BYTES {
                    return None;
                }
                if file.read_exact_at(&mut buffer[..n], at).is_err() {
                    return Some(false);
                }
                if buffer[..n].iter().any(|&b| b != 0) {
                    return Some(false);
                }
                at += n as u64;
            }
        }
        Some(true)
    }
}

/// The process holding an exclusive `flock` on `file`, with its name, from `/proc/locks` (Linux):
/// a second `serve` of a file in use names the server that has it, which may be an nbdkit still
/// saving its state after its `ssdlab serve` was killed. `None` when it cannot be told.
fn lock_holder(file: &std::fs::File) -> Option<(u32, String)> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let (major, minor) = (libc::major(meta.dev()), libc::minor(meta.dev()));
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        // "1: FLOCK  ADVISORY  WRITE 24007 fd:00:1234 0 EOF" (major and minor in hex).
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.get(1) != Some(&"FLOCK") || fields.get(3) != Some(&"WRITE") {
            return None;
        }
        let mut id = fields.get(5)?.split(':');
        let (maj, min, ino) = (u32::from_str_radix(id.next()?, 16).ok()?, u32::from_str_radix(id.next()?, 16).ok()?, id.next()?.parse::<u64>().ok()?);
        if (maj, min, ino) != (major, minor, meta.ino()) {
            return None;
        }
        let pid: u32 = fields.get(4)?.parse().ok()?;
        match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
            Ok(name) => Some((pid, name.trim().to_string())),
            // The lock's taker is gone but the lock lives on in a child it forked with the file
            // open (nbdkit takes the lock, then forks into the background): name that child.
            Err(_) => process_with_open(meta.dev(), meta.ino()).or(Some((pid, "gone".into()))),
        }
    })
}

/// A process other than this one with the file `(dev, ino)` open, and its name (the lowest pid:
/// `/proc` in order), from `/proc/PID/fd`.
fn process_with_open(dev: u64, ino: u64) -> Option<(u32, String)> {
    use std::os::unix::fs::MetadataExt;
    let me = std::process::id();
    let mut pids: Vec<u32> = std::fs::read_dir("/proc").ok()?.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).filter(|&p| p != me).collect();
    pids.sort_unstable();
    pids.into_iter().find_map(|pid| {
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
        let open = fds.filter_map(Result::ok).any(|fd| std::fs::metadata(fd.path()).is_ok_and(|m| m.dev() == dev && m.ino() == ino));
        let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
        open.then(|| (pid, name.trim().to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::lock_holder;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    /// A lock taken by a process that is gone, held on by the child it leaves with the file
    /// open (as nbdkit takes the backing file's lock, then forks into the background), names
    /// that child, not "gone".
    #[test]
    fn a_lock_whose_taker_is_gone_names_the_process_that_holds_it_open() {
        let dir = std::env::temp_dir().join(format!("ssdlab-lock-holder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("backing.img");
        std::fs::write(&path, b"").unwrap();
        // `flock` (a child that exits) locks fd 9 of the shell, which then sleeps holding it.
        let mut holder =
            Command::new("sh").arg("-c").arg(format!("exec 9>>'{}'; flock -x 9 && exec sleep 30", path.display())).stdin(Stdio::null()).spawn().expect("sh");
        let file = std::fs::File::open(&path).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        // The shell holds the lock a moment before it becomes `sleep` (its exec): wait for that.
        let mut last = None;
        let found = loop {
            last = lock_holder(&file).or(last);
            match &last {
                Some(found) if found.1 == "sleep" => break found.clone(),
                _ if Instant::now() >= deadline => break last.clone().expect("the lock was never taken"),
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        let _ = holder.kill();
        let _ = holder.wait();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found, (holder.id(), "sleep".to_string()), "the process named as holding the lock");
    }
}
