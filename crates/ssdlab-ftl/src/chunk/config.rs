//! The chunk FTL's configuration ([`ChunkFtlConfig`]): its fields, table sizes and checks.

use super::Chunk;
use crate::config::GcPolicy;
use crate::index::FingerprintIndex;
use crate::metadata::Metadata;
use crate::pool::BlockPool;
use ssdlab_core::{field_ensure, FieldError};
use ssdlab_nand::{Geometry, SECTOR_BYTES};

/// Configuration of the data-reduction FTL.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ChunkFtlConfig {
    /// Array geometry.
    pub geometry: Geometry,
    /// Logical 4 KiB sectors the host can address.
    pub user_sectors: u64,
    /// Bytes per ECC unit, the allocation unit of compressed chunks.
    pub ecc_unit_bytes: u32,
    /// Per-chunk metadata stored with a compressed chunk (raw 4 KiB chunks keep theirs in the
    /// page's spare area).
    pub chunk_header_bytes: u32,
    /// Most fingerprints the dedup index holds.
    pub dedup_index_entries: u64,
    /// Victim selection policy (by valid ECC units).
    pub gc_policy: GcPolicy,
    /// Foreground GC low-water mark, free blocks per die.
    pub gc_low_free_blocks_per_die: u32,
    /// When foreground GC runs and how much it does at a time.
    #[serde(default)]
    pub gc_schedule: crate::GcSchedule,
    /// Idle GC target, free blocks per die.
    pub gc_idle_target_free_blocks_per_die: u32,
    /// Keep each chunk's stored bytes (real-bytes mode).
    pub keep_payloads: bool,
    /// Most bytes of payload kept in memory (real-bytes mode); a write that would keep more is
    /// refused with an error instead of growing memory without bound.
    pub payload_limit_bytes: u64,
    /// Send every new chunk's stored bytes, and every GC move, to the sink (a drive that stores
    /// real data, e.g. in a backing file).
    pub store_data: bool,
    /// Reads transfer only the chunk's bytes from a page; otherwise the whole page.
    pub partial_page_reads: bool,
    /// Firmware whose TRIM drops the chunk's reference (its space is reclaimed) but leaves the
    /// sector's map entry pointing at the old chunk, flagged: the sector reads as zeros, but a
    /// read senses the old location and moves one ECC unit (the chunk header) to learn so,
    /// until the sector is written again. A second TRIM changes nothing. (A model of SF-2281
    /// firmware 5.0.2, whose reads after TRIM stay slow; 5.0.3 unmaps.)
    #[serde(default)]
    pub trim_keeps_stale_pointers: bool,
    /// Firmware metadata (map pages of the sector map and the chunk table, journal) written to
    /// flash; `None`: not modelled.
    #[serde(default)]
    pub metadata: Option<crate::MetadataConfig>,
}

impl ChunkFtlConfig {
    /// Map entries: one per sector, one per chunk-table entry (as many chunk ids as sectors).
    pub fn map_entries(&self) -> u64 {
        2 * self.user_sectors + 1
    }

    /// Metadata pseudo-sectors this configuration writes (0 without metadata).
    pub fn metadata_sectors(&self) -> u64 {
        self.metadata.as_ref().map_or(0, |m| Metadata::sectors_needed(m, self.map_entries()))
    }

    /// The tables a chunk FTL of this configuration allocates when it is built, each by name
    /// with its size in bytes (the chunk table as it is when every sector holds its own
    /// chunk): what the memory check counts before building them.
    pub fn table_parts(&self) -> [(&'static str, u64); 4] {
        let logical = self.user_sectors + self.metadata_sectors();
        [
            ("mapping table", logical * std::mem::size_of::<u32>() as u64),
            ("chunk table when full", (logical + 1) * std::mem::size_of::<Chunk>() as u64),
            ("fingerprint index", FingerprintIndex::table_bytes(self.dedup_index_entries)),
            ("block tables", BlockPool::table_bytes(self.geometry.total_blocks() as u64)),
        ]
    }

    /// Check the engine's own fields (the spare-area check is shared with the page FTL).
    pub fn validate(&self) -> std::result::Result<(), FieldError> {
        let page = self.geometry.page_bytes;
        field_ensure!(self.ecc_unit_bytes >= 64, "reduction", "ecc_unit_bytes", "must be at least 64 (got {})", self.ecc_unit_bytes);
        field_ensure!(self.ecc_unit_bytes <= page, "reduction", "ecc_unit_bytes", "({}) is larger than a page ({page} bytes)", self.ecc_unit_bytes);
        field_ensure!(
            page.is_multiple_of(self.ecc_unit_bytes) && (SECTOR_BYTES as u32).is_multiple_of(self.ecc_unit_bytes),
            "reduction",
            "ecc_unit_bytes",
            "({}) must divide both the page ({page} bytes) and 4096",
            self.ecc_unit_bytes
        );
        field_ensure!(
            self.chunk_header_bytes < SECTOR_BYTES as u32 / 2,
            "reduction",
            "chunk_header_bytes",
            "must be below 2048 (got {})",
            self.chunk_header_bytes
        );
        field_ensure!(
            (1..=1 << 32).contains(&self.dedup_index_entries),
            "reduction",
            "dedup_index_entries",
            "must be 1 to 2^32 (got {})",
            self.dedup_index_entries
        );
        Ok(())
    }
}
