//! Write amplification by tier on drives with an SLC cache: how many bytes the host wrote into
//! SLC blocks and directly into native blocks, and how many folding and garbage collection
//! programmed, over a run.

use crate::drive::Drive;
use serde::Serialize;
use ssdlab_ftl::TierStats;
use ssdlab_nand::SECTOR_BYTES;

/// Where a run's written data landed, by tier (drives with an SLC cache only).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TierReport {
    /// Host bytes written into SLC cache blocks.
    pub slc_write_bytes: u64,
    /// Host bytes written directly into native blocks (the cache was full).
    pub native_write_bytes: u64,
    /// Bytes folding copied from SLC into native blocks.
    pub fold_write_bytes: u64,
    /// Bytes garbage collection copied between native blocks.
    pub gc_write_bytes: u64,
    /// SLC cache blocks folded and erased.
    pub slc_blocks_folded: u64,
    /// SLC writes / host bytes written.
    pub wa_slc: Option<f64>,
    /// Folding writes / host bytes written.
    pub wa_fold: Option<f64>,
    /// GC writes / host bytes written.
    pub wa_gc: Option<f64>,
    /// Bytes held in SLC cache blocks at the end of the run.
    pub slc_data_bytes_now: u64,
    /// Blocks in pSLC mode at the end of the run.
    pub slc_blocks_now: u64,
    /// Block erases in pSLC mode during the run (pSLC wear, counted apart from native wear).
    pub slc_block_erases: u64,
    /// Block erases in native mode during the run.
    pub native_block_erases: u64,
    /// The most worn block's share of its rated life at the end of the run (native cycles over
    /// the native rating plus pSLC cycles over the pSLC rating; 0 without ratings).
    pub life_used_max: f64,
}

impl TierReport {
    /// The tiers' work since `base` (the drive's tier counters when the run started).
    pub fn since(base: Option<TierStats>, drive: &Drive) -> Option<Self> {
        let now = drive.translation().tier_stats()?;
        let base = base.unwrap_or_default();
        let bytes = |now: u64, base: u64| (now - base) * SECTOR_BYTES;
        let slc = bytes(now.slc_host_sectors, base.slc_host_sectors);
        let native = bytes(now.native_host_sectors, base.native_host_sectors);
        let fold = bytes(now.fold_sectors, base.fold_sectors);
        let gc = bytes(now.gc_sectors, base.gc_sectors);
        let host = slc + native;
        let wa = |x: u64| (host > 0).then(|| x as f64 / host as f64);
        Some(Self {
            slc_write_bytes: slc,
            native_write_bytes: native,
            fold_write_bytes: fold,
            gc_write_bytes: gc,
            slc_blocks_folded: now.slc_blocks_folded - base.slc_blocks_folded,
            wa_slc: wa(slc),
            wa_fold: wa(fold),
            wa_gc: wa(gc),
            slc_data_bytes_now: now.slc_sectors_now * SECTOR_BYTES,
            slc_blocks_now: now.slc_blocks_now,
            slc_block_erases: now.slc_block_erases - base.slc_block_erases,
            native_block_erases: now.native_block_erases - base.native_block_erases,
            life_used_max: now.life_used_max_ppm as f64 / 1e6,
        })
    }
}
