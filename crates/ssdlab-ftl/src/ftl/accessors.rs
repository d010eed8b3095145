//! The page FTL's plain accessors: configuration, counters, valid slots, free blocks, wear.

use super::{Ftl, FtlStats};
use crate::config::FtlConfig;
use crate::wear::WearSummary;

impl Ftl {
    /// The configuration this FTL was built from.
    pub fn config(&self) -> &FtlConfig {
        &self.config
    }

    /// Logical sectors the host can address.
    pub fn user_sectors(&self) -> u64 {
        self.config.user_sectors
    }

    /// Activity counters.
    pub fn stats(&self) -> &FtlStats {
        &self.stats
    }

    /// Slots currently holding valid data.
    pub fn valid_slots(&self) -> u64 {
        self.valid_total
    }

    /// Free (erased) blocks on a die.
    pub fn free_blocks(&self, die: u32) -> u32 {
        self.pool.free_count(die) as u32
    }

    /// Free blocks over the whole array.
    pub fn free_blocks_total(&self) -> u64 {
        self.pool.free_total()
    }

    /// Wear over all blocks.
    pub fn wear(&self) -> WearSummary {
        self.pool.wear()
    }
}
