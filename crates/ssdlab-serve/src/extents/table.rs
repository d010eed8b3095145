//! The extent table: giving blocks extents as they are written, and the table's changes and copies.

use super::{ExtentEvent, ExtentTable, Extents, Shared, NO_EXTENT};
use crate::placement::PlacementHash;

impl Shared {
    fn extent_of(&mut self, block: u32) -> u32 {
        let e = self.table.map[block as usize];
        if e != NO_EXTENT {
            return e;
        }
        let e = if let Some(e) = self.warm.pop() {
            self.tally.reused_warm += 1;
            e
        } else if let Some(std::cmp::Reverse(e)) = self.free.pop() {
            self.tally.reused_punched += 1;
            e
        } else {
            // A new extent at the end: the file grows to hold all of it (a hole until
            // written), so a region written only in part reads the rest as zeros.
            self.tally.grown += 1;
            self.table.count += 1;
            let _ = self.file.set_len(self.layout.extent_offset(self.table.count).max(self.file.len().unwrap_or(0)));
            self.table.count - 1
        };
        self.recycled[block as usize] = false;
        self.table.map[block as usize] = e;
        self.events.push((block, e));
        e
    }

    /// The file offset of physical byte `addr` (its block holds data), or `None`. A recycled
    /// block (emptied, its extent given up) is never read: nothing maps into it.
    pub(super) fn file_offset(&self, block: usize, offset: u64) -> Option<u64> {
        debug_assert!(!self.recycled.get(block).copied().unwrap_or(false), "block {block} was emptied and its extent recycled, yet it is read");
        match self.table.map.get(block).copied() {
            Some(e) if e != NO_EXTENT => Some(self.layout.extent_offset(e) + offset),
            _ => None,
        }
    }

    /// Give every block the `len` bytes at physical address `addr` touch an extent, where it
    /// has none yet.
    pub(super) fn assign(&mut self, addr: u64, len: u64) {
        let block_bytes = self.layout.block_bytes;
        if len == 0 {
            return;
        }
        for block in addr / block_bytes..=(addr + len - 1) / block_bytes {
            self.extent_of(block as u32);
        }
    }
}

impl Extents {
    /// Table changes since the last call.
    pub fn take_events(&self) -> Vec<ExtentEvent> {
        std::mem::take(&mut self.lock().events)
    }

    /// Apply changes recorded in the journal (recovery; the data is in the file already).
    pub fn apply_events(&self, events: &[ExtentEvent]) -> std::result::Result<(), String> {
        let mut shared = self.lock();
        for &(block, extent) in events {
            let Some(slot) = shared.table.map.get_mut(block as usize) else {
                return Err(format!("extent change names block {block}, beyond the drive's blocks"));
            };
            *slot = extent;
            if extent != NO_EXTENT {
                if extent >= (1 << 30) {
                    return Err(format!("extent change names extent {extent}, far beyond the file's data region"));
                }
                shared.table.count = shared.table.count.max(extent + 1);
            }
        }
        Ok(())
    }

    /// A copy of the table (for a checkpoint).
    pub fn table(&self) -> ExtentTable {
        self.lock().table.clone()
    }

    /// The drive's next erases belong to the operation with sequence number `seq`; its
    /// placement digest starts.
    pub fn set_seq(&self, seq: u64) {
        let mut shared = self.lock();
        shared.seq = seq;
        shared.placement = PlacementHash::default();
    }

    /// The hash of where the drive put data since [`Extents::set_seq`].
    pub fn placement(&self) -> PlacementHash {
        self.lock().placement
    }
}
