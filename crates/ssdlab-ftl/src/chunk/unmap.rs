//! Unmapping: TRIM of a sector, and secure erase of the whole drive.

use super::{ChunkFtl, STALE, ZERO};
use crate::UNMAPPED;
use ssdlab_core::{ensure, Result};

impl ChunkFtl {
    /// Unmap sector `lba` (TRIM): it reads as zeros and drops its chunk reference.
    pub fn trim(&mut self, lba: u64) -> Result<()> {
        ensure!(lba < self.config.user_sectors, Request, "sector {lba} is beyond the last sector {}", self.config.user_sectors - 1);
        let old = self.l2p[lba as usize];
        if old == UNMAPPED || old & STALE != 0 && old != ZERO {
            return Ok(()); // nothing mapped, or already trimmed behind a stale pointer
        }
        self.stats.trimmed_sectors += 1;
        if old == ZERO {
            self.l2p[lba as usize] = UNMAPPED;
            return Ok(());
        }
        self.release(old);
        self.l2p[lba as usize] = if self.config.trim_keeps_stale_pointers { old | STALE } else { UNMAPPED };
        if let Some(meta) = self.meta.as_mut() {
            meta.trimmed(lba);
        }
        Ok(())
    }

    /// Secure erase: everything unmapped, every block erased once more.
    pub fn secure_erase(&mut self) {
        self.l2p.fill(UNMAPPED);
        self.chunks.clear();
        self.many_refs.clear();
        self.payload.clear();
        self.payload_bytes = 0;
        self.free_ids.clear();
        self.index.clear();
        for log in &mut self.block_log {
            log.clear();
        }
        self.pool.reset_all_erased();
        self.live_chunks = 0;
        self.meta_live = 0;
        if let Some(meta) = self.meta.as_mut() {
            meta.reset();
        }
    }
}
