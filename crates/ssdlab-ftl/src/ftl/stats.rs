//! The page FTL's counters ([`FtlStats`]).

/// Counters of FTL activity.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FtlStats {
    /// 4 KiB sectors written by the host.
    pub host_sectors_written: u64,
    /// 4 KiB slots copied by garbage collection.
    pub gc_sectors_moved: u64,
    /// Slots programmed as padding (flush of a partly filled unit).
    pub padding_slots: u64,
    /// Blocks reclaimed by garbage collection.
    pub gc_blocks_reclaimed: u64,
    /// Sectors unmapped by TRIM.
    pub trimmed_sectors: u64,
    /// Host sectors written into SLC cache blocks (pSLC mode).
    #[serde(default)]
    pub slc_host_sectors: u64,
    /// 4 KiB slots copied from SLC cache blocks into native blocks by folding.
    #[serde(default)]
    pub fold_sectors_moved: u64,
    /// SLC cache blocks folded and erased.
    #[serde(default)]
    pub slc_blocks_folded: u64,
    /// Firmware metadata sectors (map pages, journal) written.
    #[serde(default)]
    pub metadata_sectors_written: u64,
}
