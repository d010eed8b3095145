//! Prefetch hints: start loading the map entries a coming write or read will touch.

use super::Ftl;
use crate::prefetch::prefetch;
use crate::UNMAPPED;

impl Ftl {
    /// Hint that `lba` will be written or read soon: start loading its mapping entry.
    #[inline]
    pub fn prefetch_mapping(&self, lba: u64) {
        if let Some(entry) = self.l2p.get(lba as usize) {
            prefetch(entry);
        }
    }

    /// Hint that `lba` will be overwritten soon: start loading what invalidating its current
    /// slot touches (its validity bit and its block's valid count and GC key). Call after
    /// [`Ftl::prefetch_mapping`] had time to bring the mapping entry in.
    #[inline]
    pub fn prefetch_old_slot(&self, lba: u64) {
        let Some(&slot) = self.l2p.get(lba as usize) else { return };
        if slot != UNMAPPED {
            let block = self.div.slots_per_block.div(slot) as usize;
            prefetch(self.valid.word_of(slot));
            if let Some(counts) = self.pool.counts.entry_of(block) {
                prefetch(counts);
            }
        }
    }
}
