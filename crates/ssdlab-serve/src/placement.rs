//! The placement digest of an operation: a hash of where it put data, which each journal record
//! carries and recovery recomputes record by record ([`crate::journal::Check::placement`]). It
//! covers every region the drive stored (physical address and size), moved (GC) and erased,
//! every block it emptied while programmed (whose extent is recycled), the
//! extent changes the operation made in the backing file, and where each sector a write touched
//! now lies. A redo that put any sector's data elsewhere, or a record whose extent change or
//! sector description was altered, gives another digest, even when the counts agree.

use crate::extents::ExtentEvent;
use ssdlab_drive::{DataPlane, Translation};
use ssdlab_ftl::DataLocation;
use ssdlab_reduce::SECTOR_BYTES;

/// FNV-1a over 64-bit words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacementHash(u64);

impl Default for PlacementHash {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl PlacementHash {
    /// Mix in a word.
    pub fn word(&mut self, w: u64) {
        for b in w.to_le_bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }

    /// A region of `region_bytes` stored at physical byte `addr`.
    pub fn store(&mut self, addr: u64, region_bytes: u64) {
        self.word(1);
        self.word(addr);
        self.word(region_bytes);
    }

    /// `len` bytes moved from `from` to `to`.
    pub fn copy(&mut self, from: u64, to: u64, len: u64) {
        self.word(2);
        self.word(from);
        self.word(to);
        self.word(len);
    }

    /// `len` bytes at `addr` erased.
    pub fn discard(&mut self, addr: u64, len: u64) {
        self.word(3);
        self.word(addr);
        self.word(len);
    }

    /// `block` emptied while programmed (no valid data left, not erased): its extent recycled.
    pub fn emptied(&mut self, block: u32) {
        self.word(7);
        self.word(block as u64);
    }

    /// The digest so far.
    pub fn value(&self) -> u64 {
        self.0
    }
}

/// The digest of an operation: the data plane's hash of it, its extent changes, and, for a
/// write of `len` bytes at `offset`, where each sector it touched lies now.
pub fn digest(plane: PlacementHash, events: &[ExtentEvent], translation: &dyn Translation, written: Option<(u64, u64)>) -> u64 {
    let mut h = plane;
    for &(block, extent) in events {
        h.word(4);
        h.word((block as u64) << 32 | extent as u64);
    }
    if let Some((offset, len)) = written.filter(|&(_, len)| len > 0) {
        let sector = SECTOR_BYTES as u64;
        for lba in offset / sector..=(offset + len - 1) / sector {
            match translation.data_location(lba) {
                DataLocation::Zeros => h.word(5),
                DataLocation::At { addr_bytes, region_bytes } => {
                    h.word(6);
                    h.word(addr_bytes);
                    h.word(region_bytes);
                }
            }
        }
    }
    h.value()
}

/// A data plane that stores nothing and only hashes where the drive puts data: attached while
/// recovery redoes the journal (the data is in the backing file already).
#[derive(Default)]
pub struct DigestPlane {
    hash: std::sync::Arc<std::sync::Mutex<PlacementHash>>,
}

impl DigestPlane {
    /// A plane and a handle on its hash (taken and reset per record).
    pub fn new() -> (Self, std::sync::Arc<std::sync::Mutex<PlacementHash>>) {
        let plane = Self::default();
        let hash = plane.hash.clone();
        (plane, hash)
    }

    fn hash(&self) -> std::sync::MutexGuard<'_, PlacementHash> {
        self.hash.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl DataPlane for DigestPlane {
    fn write_at(&mut self, addr: u64, bytes: &[u8]) -> std::io::Result<()> {
        self.hash().store(addr, bytes.len() as u64);
        Ok(())
    }

    fn write_region(&mut self, addr: u64, region_bytes: u64, _payload: &[u8]) -> std::io::Result<()> {
        self.hash().store(addr, region_bytes);
        Ok(())
    }

    fn read_at(&self, _addr: u64, buf: &mut [u8]) -> std::io::Result<()> {
        buf.fill(0);
        Ok(())
    }

    fn copy(&mut self, from: u64, to: u64, len: u64) -> std::io::Result<()> {
        self.hash().copy(from, to, len);
        Ok(())
    }

    fn discard(&mut self, addr: u64, len: u64) -> std::io::Result<()> {
        self.hash().discard(addr, len);
        Ok(())
    }

    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
