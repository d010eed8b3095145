//! Reads: the gate reads outside the server's lock hold, and locating a read's regions in the file.

use super::{block_pieces, Extents, Shared};
use crate::host::HostFile;
use std::sync::{Arc, MutexGuard, RwLock, RwLockWriteGuard};

impl Extents {
    /// The gate reads outside the server's lock hold while they read (see [`Extents`]).
    pub fn gate(&self) -> Arc<RwLock<()>> {
        self.gate.clone()
    }

    /// The backing file, for reads outside any lock.
    pub fn file_for_reads(&self) -> Arc<dyn HostFile> {
        self.file.clone()
    }

    /// A locator of a read's regions: the data region's state held (once per request) while
    /// regions are located.
    pub fn locator(&self) -> Locator<'_> {
        let (io, shared) = self.settled();
        Locator { _io: io, shared }
    }
}

/// Locates a read's regions in the file ([`Extents::locator`]).
pub struct Locator<'a> {
    _io: RwLockWriteGuard<'a, ()>,
    shared: MutexGuard<'a, Shared>,
}

impl Locator<'_> {
    /// Where the `len` bytes at physical address `addr` lie in the file: appended to `out` as
    /// (file offset, bytes), the offset `None` for a block holding no data (reads as zeros).
    /// Data still waiting in memory there is written out first, so the file holds what is
    /// located.
    pub fn locate(&mut self, addr: u64, len: u64, out: &mut Vec<(Option<u64>, usize)>) -> std::io::Result<()> {
        let shared = &mut *self.shared;
        let waiting = !shared.open.is_empty() || !shared.ready.is_empty();
        for (block, offset, range) in block_pieces(addr, len as usize, shared.layout.block_bytes) {
            if block >= shared.table.map.len() {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("block {block} is beyond the drive")));
            }
            let at = shared.file_offset(block, offset);
            if let (Some(at), true) = (at, waiting) {
                shared.write_overlapping(at, range.len() as u64)?;
            }
            out.push((at, range.len()));
        }
        Ok(())
    }
}
