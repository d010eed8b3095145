//! Unmapping: TRIM of a sector, and secure erase of the whole drive.

use super::Ftl;
use crate::UNMAPPED;
use ssdlab_core::{ensure, Result};

impl Ftl {
    /// Unmap logical sector `lba` (TRIM); its slot becomes invalid.
    pub fn trim(&mut self, lba: u64) -> Result<()> {
        ensure!(lba < self.config.user_sectors, Request, "sector {lba} is beyond the last sector {}", self.config.user_sectors - 1);
        let old = self.l2p[lba as usize];
        if old != UNMAPPED {
            self.invalidate(old);
            self.l2p[lba as usize] = UNMAPPED;
            self.stats.trimmed_sectors += 1;
            if let Some(meta) = self.meta.as_mut() {
                meta.trimmed(lba);
            }
        }
        Ok(())
    }

    /// Forget everything and return every block to the free pool, counting one erase per block
    /// (secure erase). The caller books the erase time on the array.
    pub fn secure_erase(&mut self) {
        ssdlab_core::memory::fill(&mut self.l2p, UNMAPPED);
        ssdlab_core::memory::fill(&mut self.p2l, UNMAPPED);
        self.valid.clear_all();
        self.tags.fill(0);
        self.pool.reset_all_erased();
        self.valid_total = 0;
        self.meta_live = 0;
        if let Some(meta) = self.meta.as_mut() {
            meta.reset();
        }
    }
}
