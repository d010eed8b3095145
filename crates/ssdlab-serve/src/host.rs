//! The host's file: every byte the server reads from or writes to its backing file goes through
//! [`HostFile`], so what a host crash can leave behind is testable. [`OsFile`] is the real
//! file; [`crate::CrashFile`] keeps everything written since the last `fdatasync` in a volatile
//! layer and, at a simulated host crash, keeps any subset of it (docs/power-loss.md).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;

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

/// The real backing file.
pub struct OsFile(pub File);

impl HostFile for OsFile {
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        FileExt::read_exact_at(&self.0, buf, at)
    }

    unsafe fn read_iovec_at(&self, iov: &[libc::iovec], at: u64) -> std::io::Result<usize> {
        // SAFETY: the caller guarantees the iovecs; preadv writes only into them.
        let n = unsafe { libc::preadv(self.0.as_raw_fd(), iov.as_ptr(), iov.len() as libc::c_int, at as libc::off_t) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(n as usize)
    }

    fn write_all_at(&self, bytes: &[u8], at: u64) -> std::io::Result<()> {
        FileExt::write_all_at(&self.0, bytes, at)
    }

    fn sync_data(&self) -> std::io::Result<()> {
        self.0.sync_data()
    }

    fn len(&self) -> std::io::Result<u64> {
        Ok(self.0.metadata()?.len())
    }

    fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.0.set_len(len)
    }

    fn punch_hole(&self, at: u64, len: u64) -> std::io::Result<()> {
        // SAFETY: fallocate on a valid, open descriptor with in-range offsets; no memory.
        let rc = unsafe { libc::fallocate(self.0.as_raw_fd(), libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE, at as libc::off_t, len as libc::off_t) };
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
        if unsafe { libc::fstatvfs(self.0.as_raw_fd(), &mut st) } != 0 {
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
