//! Prefetch hints: start loading the table entries a coming write or read will touch.

use super::ChunkFtl;
use crate::prefetch::prefetch;

impl ChunkFtl {
    /// Hint that `lba` will be written or read soon.
    #[inline]
    pub fn prefetch_mapping(&self, lba: u64) {
        if let Some(entry) = self.l2p.get(lba as usize) {
            prefetch(entry);
        }
    }

    /// Hint that `lba` will be overwritten soon: start loading its current chunk's entry.
    /// Call after [`ChunkFtl::prefetch_mapping`] had time to bring the mapping entry in.
    #[inline]
    pub fn prefetch_old_chunk(&self, lba: u64) {
        if let Some(&chunk) = self.l2p.get(lba as usize) {
            if let Some(entry) = self.chunks.get(chunk as usize) {
                prefetch(entry);
            }
        }
    }

    /// Hint that `lba` will be overwritten very soon: start loading the index slot of its
    /// current chunk's key (after [`ChunkFtl::prefetch_old_chunk`] brought the chunk in).
    #[inline]
    pub fn prefetch_old_index_slot(&self, lba: u64) {
        if let Some(&chunk) = self.l2p.get(lba as usize) {
            if let Some(entry) = self.chunks.get(chunk as usize) {
                if entry.refs_field() == 1 {
                    if entry.indexed() {
                        self.index.prefetch(entry.key);
                    }
                    // Freeing it changes its block's valid count and GC key, one entry of the
                    // pool's count table (megabytes on a full-size drive: without this, the
                    // block's line was the write's slowest load); the block metadata is not
                    // touched.
                    let block = self.div.units_per_block.div(entry.addr) as usize;
                    if let Some(counts) = self.pool.counts.entry_of(block) {
                        prefetch(counts);
                    }
                }
            }
        }
    }

    /// Hint that content with this fingerprint will be written soon.
    #[inline]
    pub fn prefetch_fingerprint(&self, fingerprint: u128) {
        self.index.prefetch(fingerprint as u64);
    }
}
