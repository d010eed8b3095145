//! The chunk FTL's plain accessors: configuration, counters, sizes, free blocks, wear.

use super::{ChunkFtl, ChunkFtlConfig, ChunkStats};
use crate::wear::WearSummary;

impl ChunkFtl {
    /// The configuration.
    pub fn config(&self) -> &ChunkFtlConfig {
        &self.config
    }

    /// Counters.
    pub fn stats(&self) -> &ChunkStats {
        &self.stats
    }

    /// Logical sectors the host can address.
    pub fn user_sectors(&self) -> u64 {
        self.config.user_sectors
    }

    /// Bytes per ECC unit.
    pub fn unit_bytes(&self) -> u32 {
        self.unit_bytes
    }

    /// Chunks referenced by at least one sector.
    pub fn live_chunks(&self) -> u64 {
        self.live_chunks
    }

    /// Valid ECC units over all blocks.
    pub fn valid_units(&self) -> u64 {
        self.pool.counts.valid_counts().map(|v| v as u64).sum()
    }

    /// Entries in the dedup index.
    pub fn index_entries(&self) -> usize {
        self.index.len()
    }

    /// Free blocks on a die.
    pub fn free_blocks(&self, die: u32) -> u32 {
        self.pool.free_count(die) as u32
    }

    /// Free blocks over the array.
    pub fn free_blocks_total(&self) -> u64 {
        self.pool.free_total()
    }

    /// Wear over all blocks.
    pub fn wear(&self) -> WearSummary {
        self.pool.wear()
    }
}
