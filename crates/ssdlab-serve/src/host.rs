//! The host's file: every byte the server reads from or writes to its backing file goes through
//! [`HostFile`], so what a host crash can leave behind is testable. [`OsFile`] is the real
//! file; [`crate::CrashFile`] keeps everything written since the last `fdatasync` in a volatile
//! layer and, at a simulated host crash, keeps any subset of it (docs/power-loss.md).

use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Alignment (bytes) of memory, file offset and length that a write bypassing the page cache
/// (`O_DIRECT`) needs: the page size, a multiple of every logical block size Linux file systems
/// use.
pub const DIRECT_ALIGN_BYTES: usize = 4096;

/// The backing file as the host offers it: positioned reads and writes, `fdatasync`, size,
/// holes, free space.
pub trait HostFile: Send + Sync {
    /// Read exactly `buf.len()` bytes at `at` (bytes past the end of the file are an error).
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()>;
    /// Read into the buffers of `iov`, one after the other, from `at`; returns the bytes read
    /// (fewer only at the end of the file).
    ///
    /// # Safety
    /// Every iovec must point to memory writable for its whole length, not aliased elsewhere
    /// during the call.
    unsafe fn read_iovec_at(&self, iov: &[libc::iovec], at: u64) -> std::io::Result<usize>;
    /// Write all of `bytes` at `at` (the file grows as needed).
    fn write_all_at(&self, bytes: &[u8], at: u64) -> std::io::Result<()>;
    /// Write all of `bytes` at `at` bypassing the page cache (`O_DIRECT`), where the file offers
    /// it: `bytes` starts at memory aligned to [`DIRECT_ALIGN_BYTES`], and `at` and the length
    /// are multiples of it. Returns `false`, having written nothing, when direct writes are not
    /// available (the caller then uses [`HostFile::write_all_at`]). Durable, like any write,
    /// only after [`HostFile::sync_data`].
    fn write_direct_at(&self, _bytes: &[u8], _at: u64) -> std::io::Result<bool> {
        Ok(false)
    }
    /// Why data writes do not bypass the page cache (`None`: they do).
    fn direct_unavailable(&self) -> Option<String> {
        Some("this host file offers no direct writes".to_string())
    }
    /// Make everything written so far durable (`fdatasync`).
    fn sync_data(&self) -> std::io::Result<()>;
    /// The file's length.
    fn len(&self) -> std::io::Result<u64>;
    /// Whether the file is empty.
    fn is_empty(&self) -> std::io::Result<bool> {
        Ok(self.len()? == 0)
    }
    /// Set the file's length (a hole up to it when it grows).
    fn set_len(&self, len: u64) -> std::io::Result<()>;
    /// Give back the room of `len` bytes at `at` (they read as zeros afterwards; a file system
    /// without holes just keeps them, which is allowed: nothing reads a released extent).
    fn punch_hole(&self, at: u64, len: u64) -> std::io::Result<()>;
    /// Bytes free for this file in its file system, if known.
    fn free_bytes(&self) -> Option<u64>;
}

/// The real backing file, and a second descriptor of it opened with `O_DIRECT` for data
/// writes of whole aligned units, which then do not take fresh page-cache pages (on a virtual
/// machine that reports free memory to its host, each fresh page costs a fault in the host:
/// BENCHMARKS.md, issue 24).
pub struct OsFile {
    file: File,
    direct: Option<File>,
    /// Set when a direct write was refused (`EINVAL`: a file system without `O_DIRECT`).
    direct_refused: AtomicBool,
    /// Why direct writes are not used, when they are not.
    why_not: Mutex<Option<String>>,
}

impl OsFile {
    /// The file, with page-cache writes only.
    pub fn new(file: File) -> Self {
        Self {
            file,
            direct: None,
            direct_refused: AtomicBool::new(false),
            why_not: Mutex::new(Some("not asked for (serve --direct-data turns them on)".to_string())),
        }
    }

    /// The file `file` opened at `path`, with a second descriptor of `path` opened with
    /// `O_DIRECT` when the file system allows it (tmpfs before Linux 6.6, say, refuses it: then every write goes
    /// through the page cache, and [`HostFile::direct_unavailable`] says why).
    pub fn with_direct(file: File, path: &str) -> Self {
        let mut os = Self::new(file);
        match std::fs::OpenOptions::new().write(true).custom_flags(libc::O_DIRECT).open(path) {
            Ok(direct) => {
                os.direct = Some(direct);
                *os.why_not.get_mut().unwrap_or_else(|p| p.into_inner()) = None;
            }
            Err(e) => *os.why_not.get_mut().unwrap_or_else(|p| p.into_inner()) = Some(format!("the file system refuses O_DIRECT ({e})")),
        }
        os
    }
}

impl HostFile for OsFile {
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        FileExt::read_exact_at(&self.file, buf, at)
    }

    unsafe fn read_iovec_at(&self, iov: &[libc::iovec], at: u64) -> std::io::Result<usize> {
        // SAFETY: the caller guarantees the iovecs; preadv writes only into them.
        let n = unsafe { libc::preadv(self.file.as_raw_fd(), iov.as_ptr(), iov.len() as libc::c_int, at as libc::off_t) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(n as usize)
    }

    fn write_all_at(&self, bytes: &[u8], at: u64) -> std::io::Result<()> {
        FileExt::write_all_at(&self.file, bytes, at)
    }

    fn write_direct_at(&self, bytes: &[u8], at: u64) -> std::io::Result<bool> {
        let Some(direct) = &self.direct else { return Ok(false) };
        if self.direct_refused.load(Ordering::Relaxed)
            || !(bytes.as_ptr() as usize).is_multiple_of(DIRECT_ALIGN_BYTES)
            || !at.is_multiple_of(DIRECT_ALIGN_BYTES as u64)
            || !bytes.len().is_multiple_of(DIRECT_ALIGN_BYTES)
        {
            return Ok(false);
        }
        match FileExt::write_all_at(direct, bytes, at) {
            Ok(()) => Ok(true),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                // Refused (alignment the device wants larger, or no O_DIRECT after all): from
                // now on through the page cache. Nothing was written, or all of it will be again.
                self.direct_refused.store(true, Ordering::Relaxed);
                *self.why_not.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("a direct write was refused ({e})"));
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    fn direct_unavailable(&self) -> Option<String> {
        self.why_not.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn sync_data(&self) -> std::io::Result<()> {
        self.file.sync_data()
    }

    fn len(&self) -> std::io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.file.set_len(len)
    }

    fn punch_hole(&self, at: u64, len: u64) -> std::io::Result<()> {
        // SAFETY: fallocate on a valid, open descriptor with in-range offsets; no memory.
        let rc =
            unsafe { libc::fallocate(self.file.as_raw_fd(), libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE, at as libc::off_t, len as libc::off_t) };
        if rc == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EOPNOTSUPP) {
            return Ok(()); // a file system without holes: the stale bytes stay until reused
        }
        Err(e)
    }

    fn free_bytes(&self) -> Option<u64> {
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: fstatvfs writes into the zeroed struct we own; the descriptor is open.
        if unsafe { libc::fstatvfs(self.file.as_raw_fd(), &mut st) } != 0 {
            return None;
        }
        Some(st.f_bavail as u64 * st.f_frsize as u64)
    }
}

/// Read exactly the bytes of `iov` at `at` through `file` (a short read is continued buffer by
/// buffer; the end of the file is an error).
///
/// # Safety
/// As [`HostFile::read_iovec_at`].
pub(crate) unsafe fn read_iovec_exact(file: &dyn HostFile, iov: &[libc::iovec], at: u64) -> std::io::Result<()> {
    let total: usize = iov.iter().map(|v| v.iov_len).sum();
    // SAFETY: passed on from the caller.
    let mut done = unsafe { file.read_iovec_at(iov, at)? };
    if done == total {
        return Ok(());
    }
    let mut offset = 0usize;
    for v in iov {
        let (from, len) = (offset, v.iov_len);
        offset += len;
        if done >= offset {
            continue;
        }
        let skip = done.saturating_sub(from);
        // SAFETY: the unread tail of this iovec, which the caller guarantees is writable.
        let rest = unsafe { std::slice::from_raw_parts_mut((v.iov_base as *mut u8).add(skip), len - skip) };
        file.read_exact_at(rest, at + (from + skip) as u64)?;
        done = offset;
    }
    Ok(())
}
