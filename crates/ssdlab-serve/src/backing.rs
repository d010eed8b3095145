//! The backing file of a served drive.
//!
//! Layout (format version 1; see docs/backing-file.md):
//!
//! * bytes `0..4096`: the [`Header`];
//! * from [`DATA_OFFSET`]: the data region, the drive's raw NAND byte space (physical address
//!   `a` at file offset `DATA_OFFSET + a`), holding each stored sector in its region format
//!   (`ssdlab_drive::encode_region`); never-written and erased space is a hole, so the file's
//!   allocated size tracks what the drive stores;
//! * after the data region (4 KiB aligned): the drive's saved state, written at clean shutdown.
//!
//! The file is locked (`flock`, exclusive) while a server uses it.

use crate::header::{Header, SavedState, FORMAT_VERSION, HEADER_BYTES};
use ssdlab_core::{bail, Error, Result};
use ssdlab_drive::DataPlane;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;

/// File offset of the data region.
pub const DATA_OFFSET: u64 = 1 << 20;

/// An open, locked backing file.
pub struct BackingFile {
    path: String,
    file: File,
    header: Header,
    existed: bool,
}

/// What the drive is, for checking a file against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriveIdentity {
    /// Profile name.
    pub profile_name: String,
    /// Hash of the effective profile text.
    pub profile_hash: u64,
    /// Raw NAND bytes.
    pub raw_bytes: u64,
    /// User capacity.
    pub capacity_bytes_user: u64,
}

fn io(path: &str, what: &str, e: std::io::Error) -> Error {
    Error::Io(format!("{path}: cannot {what}: {e}"))
}

impl BackingFile {
    /// Open `path` for the drive `identity` describes, creating it when it does not exist, and
    /// lock it. A file in use by another server, made for another profile or in another format,
    /// or not shut down cleanly, is refused with a message naming both sides.
    pub fn open(path: &str, identity: &DriveIdentity) -> Result<Self> {
        let parent = std::path::Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !parent.is_dir() {
            bail!(Io, "{path}: folder {} does not exist", parent.display());
        }
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).map_err(|e| io(path, "open the backing file", e))?;
        // SAFETY: flock on a valid, open descriptor; no memory is involved.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                bail!(Io, "{path}: the backing file is in use by another ssdlab server (it is locked); stop that server first");
            }
            return Err(io(path, "lock the backing file", e));
        }
        let len = file.metadata().map_err(|e| io(path, "read the backing file's size", e))?.len();
        if len == 0 {
            let header = Header {
                format_version: FORMAT_VERSION,
                profile_name: identity.profile_name.clone(),
                profile_hash: identity.profile_hash,
                raw_bytes: identity.raw_bytes,
                capacity_bytes_user: identity.capacity_bytes_user,
                state: None,
                clean: false,
            };
            let mut backing = Self { path: path.to_string(), file, header, existed: false };
            backing.file.set_len(DATA_OFFSET + identity.raw_bytes).map_err(|e| io(path, "size the backing file", e))?;
            backing.write_header()?;
            return Ok(backing);
        }
        let mut block = vec![0u8; HEADER_BYTES as usize];
        file.read_exact_at(&mut block[..(HEADER_BYTES.min(len)) as usize], 0).map_err(|e| io(path, "read the header", e))?;
        let header = Header::decode(path, &block)?;
        if header.profile_hash != identity.profile_hash || header.raw_bytes != identity.raw_bytes || header.capacity_bytes_user != identity.capacity_bytes_user
        {
            bail!(
                Config,
                "{path}: the backing file was made for profile `{}` (hash {:016x}, {} raw bytes, {} user bytes), not for `{}` (hash {:016x}, {} raw bytes, {} user bytes); serve it with its own profile or use another file",
                header.profile_name,
                header.profile_hash,
                header.raw_bytes,
                header.capacity_bytes_user,
                identity.profile_name,
                identity.profile_hash,
                identity.raw_bytes,
                identity.capacity_bytes_user
            );
        }
        Ok(Self { path: path.to_string(), file, header, existed: true })
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The header as read or last written.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Whether the file existed before (a restart) rather than being created now.
    pub fn existed(&self) -> bool {
        self.existed
    }

    /// A data plane over the file's data region (shares the descriptor and its lock).
    pub fn data_plane(&self) -> Result<FilePlane> {
        let file = self.file.try_clone().map_err(|e| io(&self.path, "share the backing file", e))?;
        Ok(FilePlane { file, pending: std::sync::Mutex::new(Pending::default()) })
    }

    fn write_header(&mut self) -> Result<()> {
        let block = self.header.encode()?;
        self.file.write_all_at(&block, 0).map_err(|e| io(&self.path, "write the header", e))?;
        self.file.sync_data().map_err(|e| io(&self.path, "sync the header", e))
    }

    /// Mark the file in use (not cleanly shut down) until [`BackingFile::save_and_close`].
    pub fn mark_in_use(&mut self) -> Result<()> {
        self.header.clean = false;
        self.write_header()
    }

    /// The saved state's bytes (checked), when the last server shut down cleanly; an error when
    /// it did not.
    pub fn saved_state(&self) -> Result<Option<(Vec<u8>, SavedState)>> {
        if !self.header.clean {
            bail!(Io, "{}: the backing file was not shut down cleanly (its server was killed or lost power); this ssdlab cannot recover it yet", self.path);
        }
        let Some(state) = self.header.state else { return Ok(None) };
        let mut bytes = vec![0u8; state.len as usize];
        self.file.read_exact_at(&mut bytes, state.offset).map_err(|e| io(&self.path, "read the saved drive state", e))?;
        if crc32fast::hash(&bytes) != state.crc32 {
            bail!(Io, "{}: the saved drive state is damaged (checksum mismatch)", self.path);
        }
        Ok(Some((bytes, state)))
    }

    /// Write the drive's state after the data region, then mark the file cleanly shut down
    /// (header last, after everything before it is durable).
    pub fn save_and_close(&mut self, write_state: &mut dyn FnMut(&mut dyn Write) -> Result<()>, now_ns: u64, seed: u64) -> Result<()> {
        let offset = (DATA_OFFSET + self.header.raw_bytes).div_ceil(HEADER_BYTES) * HEADER_BYTES;
        let mut writer = StateWriter { file: &self.file, offset, written: 0, hasher: crc32fast::Hasher::new(), buffer: Vec::with_capacity(1 << 20) };
        write_state(&mut writer)?;
        writer.flush().map_err(|e| io(&self.path, "write the drive state", e))?;
        let (len, crc32) = (writer.written, writer.hasher.clone().finalize());
        self.file.set_len(offset + len).map_err(|e| io(&self.path, "size the backing file", e))?;
        self.file.sync_data().map_err(|e| io(&self.path, "sync the drive state", e))?;
        self.header.state = Some(SavedState { offset, len, crc32, now_ns, seed });
        self.header.clean = true;
        self.write_header()
    }
}

/// Streams the state into the file at an offset, hashing it.
struct StateWriter<'a> {
    file: &'a File,
    offset: u64,
    written: u64,
    hasher: crc32fast::Hasher,
    buffer: Vec<u8>,
}

impl Write for StateWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= 1 << 20 {
            self.flush()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.write_all_at(&self.buffer, self.offset + self.written)?;
        self.hasher.update(&self.buffer);
        self.written += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }
}

/// Writes waiting to go to the file as one: a run of contiguous bytes.
#[derive(Default)]
struct Pending {
    start: u64,
    bytes: Vec<u8>,
}

/// Most bytes of contiguous writes combined into one.
const COMBINE_BYTES: usize = 1 << 20;

/// The data region of a backing file as a [`DataPlane`]. Stores that continue one another (a
/// stream of chunks appended to an open block) are combined into one `pwrite` of up to 1 MiB;
/// every other operation writes what is pending first, so reads, moves and syncs see it.
pub struct FilePlane {
    file: File,
    pending: std::sync::Mutex<Pending>,
}

impl FilePlane {
    fn write_pending(&self) -> std::io::Result<()> {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if !pending.bytes.is_empty() {
            let result = self.file.write_all_at(&pending.bytes, DATA_OFFSET + pending.start);
            pending.bytes.clear();
            result?;
        }
        Ok(())
    }
}

impl DataPlane for FilePlane {
    fn write_at(&mut self, addr: u64, bytes: &[u8]) -> std::io::Result<()> {
        {
            let pending = self.pending.get_mut().unwrap_or_else(|p| p.into_inner());
            let continues = !pending.bytes.is_empty() && pending.start + pending.bytes.len() as u64 == addr;
            if continues && pending.bytes.len() + bytes.len() <= COMBINE_BYTES {
                pending.bytes.extend_from_slice(bytes);
                return Ok(());
            }
        }
        self.write_pending()?;
        let pending = self.pending.get_mut().unwrap_or_else(|p| p.into_inner());
        pending.start = addr;
        pending.bytes.extend_from_slice(bytes);
        Ok(())
    }

    fn read_at(&self, addr: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.write_pending()?;
        self.file.read_exact_at(buf, DATA_OFFSET + addr)
    }

    fn copy(&mut self, from: u64, to: u64, len: u64) -> std::io::Result<()> {
        let mut buf = vec![0u8; len as usize];
        self.read_at(from, &mut buf)?;
        self.write_at(to, &buf)
    }

    fn discard(&mut self, addr: u64, len: u64) -> std::io::Result<()> {
        self.write_pending()?;
        // SAFETY: fallocate on a valid, open descriptor with in-range offsets; no memory.
        let rc = unsafe {
            libc::fallocate(
                self.file.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                (DATA_OFFSET + addr) as libc::off_t,
                len as libc::off_t,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EOPNOTSUPP) {
            // A file system without holes: write zeros instead (the data reads as erased).
            return self.file.write_all_at(&vec![0u8; len as usize], DATA_OFFSET + addr);
        }
        Err(e)
    }

    fn sync(&mut self) -> std::io::Result<()> {
        self.write_pending()?;
        self.file.sync_data()
    }
}

impl Drop for FilePlane {
    fn drop(&mut self) {
        // Best effort: a clean shutdown has synced already.
        let _ = self.write_pending();
    }
}
