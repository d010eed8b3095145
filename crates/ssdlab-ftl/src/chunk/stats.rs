//! The chunk FTL's counters ([`ChunkStats`]).

/// Counters of the data-reduction FTL.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChunkStats {
    /// Sectors written by the host.
    pub host_sectors_written: u64,
    /// Of those, all-zero sectors (no flash).
    pub zero_sectors: u64,
    /// Of those, sectors that matched an existing chunk (no flash).
    pub dedup_hits: u64,
    /// New chunks stored.
    pub chunks_written: u64,
    /// Host bytes of the sectors stored as new chunks (after dedup, before compression).
    pub bytes_after_dedup: u64,
    /// Stored bytes of new chunks (after compression, before ECC-unit rounding).
    pub bytes_after_compression: u64,
    /// ECC units written for new host chunks.
    pub host_units_written: u64,
    /// ECC units copied by GC.
    pub gc_units_moved: u64,
    /// Chunks copied by GC.
    pub gc_chunks_moved: u64,
    /// ECC units of padding (block ends, flushes).
    pub padding_units: u64,
    /// New chunks not indexed because the index was full.
    pub index_full_skips: u64,
    /// Blocks reclaimed by GC.
    pub gc_blocks_reclaimed: u64,
    /// Sectors unmapped by TRIM.
    pub trimmed_sectors: u64,
    /// ECC units of firmware metadata (map pages, journal) written.
    #[serde(default)]
    pub metadata_units_written: u64,
}
