//! The data-reduction FTL: logical sectors map to reference-counted, compressed, deduplicated
//! chunks packed into ECC units.
//!
//! * `l2p`: logical sector -> chunk id (or [`ZERO`] for an all-zero sector, which takes no
//!   flash, or [`UNMAPPED`](crate::UNMAPPED)).
//! * Chunk table (parallel arrays by chunk id): first ECC unit address, length in ECC units,
//!   reference count, fingerprint key, and the stored bytes when payloads are kept.
//! * Dedup index: fingerprint key -> chunk id, bounded; when full, new chunks are simply not
//!   indexed (they are stored, just never matched), and entries leave the index when their
//!   chunk is freed, which makes room again.
//! * Packing: chunks are appended to the die's open block in ECC units; a chunk may span two
//!   pages (and two program units) of the same block, never two blocks: if it does not fit in
//!   what is left of a block, the rest of the block is padding.
//! * Every block keeps the log of chunk ids written into it; GC walks the victim's log, copies
//!   the chunks still living there into the die's GC block (repacking them) and updates the
//!   chunk's address, which updates every logical sector that references it at once.

use crate::block::BlockState;
use crate::config::GcPolicy;
use crate::gc::{self, Collector};
use crate::index::FingerprintIndex;
use crate::metadata::{MetaWrite, Metadata, MetadataStats};
use crate::pool::BlockPool;
use crate::prefetch::prefetch;
use crate::sink::FlashSink;
use crate::translation::{DataLocation, Outcome, Piece, Prepared, StoredSector, Translation, STALE_PIECE};
use crate::wear::WearSummary;
use crate::UNMAPPED;
use ssdlab_core::{bail, ensure, field_ensure, FastDiv, FieldError, Result};
use ssdlab_nand::{Geometry, OpKind, SECTOR_BYTES};
use ssdlab_reduce::SectorContent;
use std::collections::BTreeMap;

/// `l2p` value of a sector written with all zeros.
pub const ZERO: u32 = u32::MAX - 1;

/// Flag on an `l2p` value: the sector was trimmed by firmware that keeps a stale pointer (the
/// chunk id below the flag, whose reference was dropped). It reads as zeros, but a read still
/// follows the pointer to flash to find that out (SF-2281 firmware 5.0.2, see
/// [`ChunkFtlConfig::trim_keeps_stale_pointers`]).
pub const STALE: u32 = 1 << 31;

/// A byte count as a message gives it: whole MiB from 1 MiB up, else KiB or bytes.
fn bytes_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Whether an `l2p` value refers to a live chunk (not unmapped, zeros or a stale pointer).
#[inline]
fn is_chunk(entry: u32) -> bool {
    entry != UNMAPPED && entry != ZERO && entry & STALE == 0
}

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

/// Where a chunk lives: its die and block and the program units it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkLocation {
    /// Die.
    pub die: u32,
    /// Block.
    pub block: u32,
    /// First program unit (multi-plane page) of the block holding the chunk.
    pub first_unit: u32,
    /// Last program unit holding the chunk (equal to `first_unit` unless it spans).
    pub last_unit: u32,
    /// First page of the block holding the chunk (pages numbered unit-major, plane-minor).
    pub first_page: u32,
    /// Last page holding the chunk.
    pub last_page: u32,
    /// Byte offset of the chunk within its first page.
    pub offset_in_page: u32,
    /// Bytes of the chunk (whole ECC units).
    pub bytes: u64,
    /// Chunk id.
    pub chunk: u32,
}

/// One chunk: its fingerprint key, where it is, how long, who uses it, in 16 bytes aligned to
/// 16: four to a cache line and none straddling two (GC and every overwrite load entries of
/// this table at random, and 24-byte entries took 1.25 lines each).
#[derive(Debug, Default, Clone, Copy, serde::Serialize, serde::Deserialize)]
#[repr(C, align(16))]
pub(crate) struct Chunk {
    /// Fingerprint key (low 64 bits of the fingerprint).
    pub key: u64,
    /// First ECC unit (UNMAPPED until placed).
    pub addr: u32,
    /// The reference count's field (low [`REF_BITS`] bits: the logical sectors referencing the
    /// chunk, 0 when the id is free; at [`ChunkFtl`]'s saturation value the count is kept in
    /// `many_refs`), the length in ECC units (the next 7 bits) and whether the index holds the
    /// chunk under its key (the top bit: it was stored while the index had room; a chunk that
    /// is not indexed has no entry to remove when it is freed, so freeing it skips the index, a
    /// random probe of a large table for nothing on a drive whose index is full).
    bits: u32,
}

// One line holds whole entries: a prefetch of an entry's address loads all of it.
const _: () = assert!(std::mem::size_of::<Chunk>() == 16 && std::mem::align_of::<Chunk>() == 16);

/// Bits of a chunk entry's reference count field.
const REF_BITS: u32 = 24;
/// The reference count field's mask, and the value at which the count moves to `many_refs`.
const REF_MASK: u32 = (1 << REF_BITS) - 1;
/// The length field's mask (after shifting by [`REF_BITS`]): a chunk is at most a 4 KiB sector
/// of 64-byte ECC units (`ChunkFtlConfig::validate`), 64 units.
const LEN_MASK: u32 = 0x7F;
/// The entry's "indexed" bit.
const INDEXED_BIT: u32 = 1 << 31;

impl Chunk {
    /// An entry with `refs` (below the saturation value) references.
    fn new(addr: u32, key: u64, len: u32, refs: u32, indexed: bool) -> Self {
        let mut chunk = Self { key, addr, bits: 0 };
        chunk.set_len(len);
        chunk.set_refs_field(refs);
        chunk.set_indexed(indexed);
        chunk
    }

    /// Whether any sector references the chunk (its id is in use).
    #[inline]
    pub fn live(&self) -> bool {
        self.bits & REF_MASK != 0
    }

    /// The reference count's field (the count itself below the saturation value).
    #[inline]
    pub(crate) fn refs_field(&self) -> u32 {
        self.bits & REF_MASK
    }

    #[inline]
    fn set_refs_field(&mut self, refs: u32) {
        debug_assert!(refs <= REF_MASK);
        self.bits = (self.bits & !REF_MASK) | refs;
    }

    /// Length in ECC units.
    #[inline]
    pub fn len(&self) -> u32 {
        (self.bits >> REF_BITS) & LEN_MASK
    }

    #[inline]
    fn set_len(&mut self, len: u32) {
        assert!(len <= LEN_MASK, "a chunk of {len} ECC units is longer than an entry holds");
        self.bits = (self.bits & !(LEN_MASK << REF_BITS)) | (len << REF_BITS);
    }

    /// Whether the index holds this chunk under its key.
    #[inline]
    pub fn indexed(&self) -> bool {
        self.bits & INDEXED_BIT != 0
    }

    #[inline]
    fn set_indexed(&mut self, indexed: bool) {
        self.bits = (self.bits & !INDEXED_BIT) | if indexed { INDEXED_BIT } else { 0 };
    }
}

/// The data-reduction FTL's fixed divisors (see [`FastDiv`]): ECC units per block and per
/// program unit, blocks per die. Computed when the FTL is built or loaded, never saved.
#[derive(Debug, Clone, Copy, Default)]
struct ChunkDivisors {
    units_per_block: FastDiv,
    units_per_program: FastDiv,
    blocks_per_die: FastDiv,
}

impl ChunkDivisors {
    fn of(ftl: &ChunkFtl) -> Self {
        Self {
            units_per_block: FastDiv::new(ftl.units_per_block),
            units_per_program: FastDiv::new(ftl.units_per_program),
            blocks_per_die: FastDiv::new(ftl.pool.blocks_per_die),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Host,
    Gc,
}

/// The data-reduction FTL.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ChunkFtl {
    config: ChunkFtlConfig,
    unit_bytes: u32,
    units_per_program: u32,
    units_per_block: u32,
    full_chunk_units: u32,
    pub(crate) l2p: Vec<u32>,
    pub(crate) chunks: Vec<Chunk>,
    pub(crate) payload: Vec<Option<Box<[u8]>>>,
    /// Bytes held in `payload`.
    payload_bytes: u64,
    free_ids: Vec<u32>,
    pub(crate) index: FingerprintIndex,
    pub(crate) block_log: Vec<Vec<u32>>,
    pub(crate) pool: BlockPool,
    live_chunks: u64,
    stats: ChunkStats,
    scratch: Vec<u32>,
    /// Firmware metadata written to flash, when modelled.
    #[serde(default)]
    meta: Option<Metadata>,
    /// Metadata pseudo-sectors mapped (their chunks count as live but hold no user data).
    #[serde(default)]
    meta_live: u64,
    /// Metadata is being written (no nested writes from the GC it starts).
    #[serde(default)]
    meta_busy: bool,
    /// Divisions of the hot paths' address arithmetic, precomputed.
    #[serde(skip)]
    div: ChunkDivisors,
    /// Per die: the victim and the position in its log up to which GC has started loading
    /// chunk entries (a hint, not state: it changes no result).
    #[serde(skip)]
    gc_prefetched: Vec<(u32, u32)>,
    /// Reference counts of the chunks whose entry's field is saturated (at least
    /// `refs_saturation` references: one content written over 16.7 million sectors).
    pub(crate) many_refs: BTreeMap<u32, u32>,
    /// The value of a chunk entry's reference field at which the count moves to `many_refs`
    /// ([`REF_MASK`]; lower in tests, so they meet it).
    pub(crate) refs_saturation: u32,
}

/// Key of a metadata chunk (never indexed, never matched).
const META_KEY: u64 = u64::MAX;

impl ChunkFtl {
    /// A data-reduction FTL over a freshly erased array.
    pub fn new(config: ChunkFtlConfig, origin: &str) -> Result<Self> {
        config.geometry.validate().map_err(|e| e.placed(origin))?;
        config.validate().map_err(|e| e.placed(origin))?;
        let g = &config.geometry;
        let unit_bytes = config.ecc_unit_bytes;
        let units_per_program = (g.unit_bytes() / unit_bytes as u64) as u32;
        let units_per_block = units_per_program * g.units_per_block();
        let total_units = units_per_block as u64 * g.total_blocks() as u64;
        let meta = config.metadata.clone().map(|m| Metadata::new(m, config.user_sectors, config.map_entries()));
        let logical = config.user_sectors + meta.as_ref().map_or(0, Metadata::total_sectors);
        ensure!(
            total_units < STALE as u64,
            Config,
            "{origin}: {total_units} ECC units are more than the {} supported; use a larger reduction.ecc_unit_bytes",
            ZERO
        );
        ssdlab_core::memory_room::check_room(origin, &config.table_parts())?;
        Ok(Self {
            unit_bytes,
            units_per_program,
            units_per_block,
            full_chunk_units: SECTOR_BYTES as u32 / unit_bytes,
            l2p: ssdlab_core::memory::huge_vec(UNMAPPED, logical as usize, logical as usize),
            // Chunk ids are reused, so there are never more than one per logical sector.
            chunks: ssdlab_core::memory::huge_vec(Chunk::default(), 0, logical as usize + 1),
            meta,
            meta_live: 0,
            meta_busy: false,
            payload: Vec::new(),
            payload_bytes: 0,
            free_ids: Vec::new(),
            index: FingerprintIndex::new(config.dedup_index_entries),
            block_log: vec![Vec::new(); g.total_blocks() as usize],
            pool: BlockPool::new(g.dies(), g.blocks_per_die(), units_per_block, config.gc_policy),
            live_chunks: 0,
            stats: ChunkStats::default(),
            scratch: Vec::new(),
            div: ChunkDivisors::default(),
            gc_prefetched: Vec::new(),
            many_refs: BTreeMap::new(),
            refs_saturation: REF_MASK,
            config,
        }
        .with_divisors())
    }

    /// The FTL with its divisors computed (after building or loading it).
    fn with_divisors(mut self) -> Self {
        self.div = ChunkDivisors::of(&self);
        self.gc_prefetched = vec![(UNMAPPED, 0); self.pool.dies.len()];
        if let Some(meta) = self.meta.as_mut() {
            meta.derive();
        }
        self
    }

    /// A data-reduction FTL restored from what [`Translation::save`] wrote, for the drive
    /// `config` describes (refused when the saved one had another geometry or capacity).
    pub fn load(config: ChunkFtlConfig, input: &mut dyn std::io::Read) -> Result<Self> {
        let mut ftl: Self = bincode::deserialize_from(input).map_err(|e| ssdlab_core::Error::Io(format!("cannot read the saved FTL state: {e}")))?;
        ensure!(
            ftl.config.geometry == config.geometry && ftl.config.user_sectors == config.user_sectors && ftl.config.ecc_unit_bytes == config.ecc_unit_bytes,
            Config,
            "the saved FTL state is for another geometry, capacity or ECC unit"
        );
        ftl.config = config;
        Ok(ftl.with_divisors())
    }

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

    /// Where sector `lba`'s chunk lives (`None` when unmapped or all zeros).
    #[inline]
    pub fn locate(&self, lba: u64) -> Option<ChunkLocation> {
        let chunk = self.l2p[lba as usize];
        if !is_chunk(chunk) {
            return None;
        }
        let addr = self.chunks[chunk as usize].addr;
        let len = self.chunks[chunk as usize].len();
        let block = self.div.units_per_block.div(addr);
        let offset = addr - block * self.units_per_block;
        let page_bytes = self.config.geometry.page_bytes;
        let first_byte = offset as u64 * self.unit_bytes as u64;
        let last_byte = (offset + len) as u64 * self.unit_bytes as u64 - 1;
        Some(ChunkLocation {
            die: self.div.blocks_per_die.div(block),
            block,
            first_unit: self.div.units_per_program.div(offset),
            last_unit: self.div.units_per_program.div(offset + len - 1),
            first_page: (first_byte / page_bytes as u64) as u32,
            last_page: (last_byte / page_bytes as u64) as u32,
            offset_in_page: (first_byte % page_bytes as u64) as u32,
            bytes: len as u64 * self.unit_bytes as u64,
            chunk,
        })
    }

    /// The stored (compressed) bytes of sector `lba`'s content, when payloads are kept; `None`
    /// for zeros and unmapped sectors (which read as zeros).
    pub fn read_payload(&self, lba: u64) -> Option<&[u8]> {
        match self.l2p[lba as usize] {
            chunk if is_chunk(chunk) => self.payload.get(chunk as usize).and_then(|p| p.as_deref()),
            _ => None,
        }
    }

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

    /// Write sector `lba` with `content`. Returns the bytes (whole ECC units) newly stored: 0 for
    /// zeros and duplicates, which need no flash.
    pub fn write<S: FlashSink + ?Sized>(&mut self, lba: u64, content: SectorContent, sink: &mut S) -> Result<u64> {
        let prepared = self.prepare_content(content);
        let stored = prepared.stored_bytes();
        self.write_prepared(lba, prepared, sink)?;
        Ok(stored)
    }

    /// What storing `content` takes: nothing for zeros, a reference for a known fingerprint,
    /// otherwise a new chunk of whole ECC units. Changes nothing.
    #[inline]
    fn prepare_content(&self, content: SectorContent) -> Prepared {
        if content.zero {
            return Prepared::new(0, Some(content), Outcome::Zero, 0);
        }
        match self.index.get(content.fingerprint as u64) {
            Some(chunk) => Prepared::new(0, Some(content), Outcome::Duplicate(chunk), 0),
            None => {
                let units = self.units_for(content.stored_bytes);
                Prepared::new(0, Some(content), Outcome::NewChunk(units), units as u64 * self.unit_bytes as u64)
            }
        }
    }

    /// Write sector `lba` with a sector prepared by [`ChunkFtl::prepare_content`] just before.
    fn write_prepared<S: FlashSink + ?Sized>(&mut self, lba: u64, sector: Prepared, sink: &mut S) -> Result<()> {
        ensure!(lba < self.config.user_sectors, Request, "sector {lba} is beyond the last sector {}", self.config.user_sectors - 1);
        let content = sector.content.expect("a prepared sector of the data-reduction FTL carries its content");
        if let (Outcome::NewChunk(_), true) = (sector.outcome, self.config.keep_payloads) {
            let kept = content.payload.as_ref().map_or(0, |p| p.len() as u64);
            ensure!(
                self.payload_bytes + kept <= self.config.payload_limit_bytes,
                Request,
                "real-bytes mode keeps every stored chunk in memory, and this write would keep more than the limit of {}; \
                 write less data, use a smaller drive or span, or use modeled content",
                bytes_text(self.config.payload_limit_bytes)
            );
        }
        self.stats.host_sectors_written += 1;
        let old = self.l2p[lba as usize];
        let new = match sector.outcome {
            Outcome::Zero => {
                self.stats.zero_sectors += 1;
                ZERO
            }
            Outcome::Duplicate(chunk) => {
                // Still the live chunk the index named when the sector was prepared: nothing
                // has run in between.
                assert!(
                    self.chunks[chunk as usize].live() && self.chunks[chunk as usize].key == content.fingerprint as u64,
                    "duplicate of chunk {chunk} prepared, but the chunk changed before the write"
                );
                self.add_ref(chunk);
                self.stats.dedup_hits += 1;
                chunk
            }
            Outcome::NewChunk(_) => self.store_new(content.fingerprint as u64, content, sink)?,
            Outcome::Slot => unreachable!("the data-reduction FTL never prepares a 4 KiB slot"),
        };
        self.l2p[lba as usize] = new;
        if is_chunk(old) {
            self.release(old);
        }
        if let Some(meta) = self.meta.as_mut() {
            meta.changed(lba);
            if let Outcome::Duplicate(chunk) = sector.outcome {
                // Its reference count changed in the chunk table.
                meta.touched(self.config.user_sectors + chunk as u64);
            }
        }
        self.write_metadata(sink)
    }

    /// Write the metadata sectors due now (full journal sectors, a checkpoint's dirty map
    /// pages) through the host stream, each as a raw chunk; the GC those writes start notes
    /// further map changes, written in the same loop, never from inside it.
    fn write_metadata<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> Result<()> {
        if self.meta.is_none() || self.meta_busy {
            return Ok(());
        }
        self.meta_busy = true;
        let result = (|| {
            while let Some(work) = self.meta.as_mut().and_then(Metadata::next_write) {
                match work {
                    MetaWrite::Journal { sector } => self.write_metadata_sector(sector, sink)?,
                    MetaWrite::MapPage { first, sectors, read } => {
                        for sector in first..first + sectors {
                            if read {
                                if let Some(loc) = self.locate(sector) {
                                    sink.read_metadata(loc.die, loc.block, loc.first_unit, loc.bytes);
                                }
                            }
                            self.write_metadata_sector(sector, sink)?;
                        }
                    }
                }
            }
            Ok(())
        })();
        self.meta_busy = false;
        result
    }

    /// Write metadata pseudo-sector `sector` as a new raw chunk in the host stream.
    fn write_metadata_sector<S: FlashSink + ?Sized>(&mut self, sector: u64, sink: &mut S) -> Result<()> {
        let len = self.full_chunk_units;
        let chunk = self.new_chunk_id()?;
        self.chunks[chunk as usize] = Chunk::new(UNMAPPED, META_KEY, len, 1, false);
        self.live_chunks += 1;
        self.place(Stream::Host, self.pool.host_cursor_die, chunk, len, sink)?;
        let old = std::mem::replace(&mut self.l2p[sector as usize], chunk);
        if is_chunk(old) {
            self.release(old);
        } else {
            self.meta_live += 1;
        }
        self.stats.metadata_units_written += len as u64;
        Ok(())
    }

    /// A free chunk id (reused first).
    fn new_chunk_id(&mut self) -> Result<u32> {
        Ok(match self.free_ids.pop() {
            Some(id) => {
                // Start loading the entry of the id taken a few new chunks from now: after a
                // TRIM of many sectors the free list holds their chunks' ids in the order they
                // were dropped, random lines of the table.
                if let Some(&soon) = self.free_ids.len().checked_sub(FREE_ID_AHEAD).and_then(|at| self.free_ids.get(at)) {
                    if let Some(entry) = self.chunks.get(soon as usize) {
                        prefetch(entry);
                    }
                }
                id
            }
            None => {
                let id = self.chunks.len() as u32;
                ensure!(id < STALE, Request, "chunk table full");
                self.chunks.push(Chunk::default());
                if self.config.keep_payloads {
                    self.payload.push(None);
                }
                id
            }
        })
    }

    /// Metadata pseudo-sectors held in chunks now (each a raw chunk of 4 KiB).
    pub fn metadata_chunks(&self) -> u64 {
        self.meta_live
    }

    /// Metadata counters (when metadata is modelled).
    pub fn metadata_stats(&self) -> Option<MetadataStats> {
        self.meta.as_ref().map(|m| m.stats)
    }

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

    /// Program the partly filled host unit of the current die, padding it (a flush).
    pub fn pad_open_unit<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> u32 {
        let Some((block, pad)) = self.pool.host_padding_needed(self.units_per_program) else { return 0 };
        self.stats.padding_units += pad as u64;
        self.advance(block, pad, Stream::Host, sink);
        pad
    }

    /// Whether program unit `unit` of `block` has been programmed: always, except in an open
    /// block whose unit is still filling.
    #[inline]
    pub fn unit_programmed(&self, block: u32, unit: u32) -> bool {
        let b = &self.pool.blocks[block as usize];
        match b.state {
            BlockState::OpenHost | BlockState::OpenGc => b.written >= (unit + 1) * self.units_per_program,
            _ => true,
        }
    }

    /// Program the partly filled unit of the open `block` (host or GC), padding it. Returns the
    /// padding in ECC units.
    pub fn program_open_unit<S: FlashSink + ?Sized>(&mut self, block: u32, sink: &mut S) -> u32 {
        let stream = match self.pool.blocks[block as usize].state {
            BlockState::OpenHost => Stream::Host,
            BlockState::OpenGc => Stream::Gc,
            _ => return 0,
        };
        let partial = self.pool.blocks[block as usize].written % self.units_per_program;
        if partial == 0 {
            return 0;
        }
        let pad = self.units_per_program - partial;
        self.stats.padding_units += pad as u64;
        self.advance(block, pad, stream, sink);
        pad
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

    /// One round of GC on `die` (finish the victim in progress or reclaim a new one).
    pub fn collect_one<S: FlashSink + ?Sized>(&mut self, die: u32, sink: &mut S) -> bool {
        gc::collect_one(self, die, sink)
    }

    /// Whether idle-time GC still has work on `die`.
    pub fn wants_idle_gc(&self, die: u32) -> bool {
        self.pool.wants_idle_gc(die, self.config.gc_idle_target_free_blocks_per_die)
    }

    // ----- internals -------------------------------------------------------------------------

    fn units_for(&self, stored_bytes: u32) -> u32 {
        if stored_bytes as u64 >= SECTOR_BYTES {
            return self.full_chunk_units;
        }
        (stored_bytes + self.config.chunk_header_bytes).div_ceil(self.unit_bytes).clamp(1, self.full_chunk_units)
    }

    fn store_new<S: FlashSink + ?Sized>(&mut self, key: u64, content: SectorContent, sink: &mut S) -> Result<u32> {
        let len = self.units_for(content.stored_bytes);
        let mut payload = content.payload;
        let chunk = self.new_chunk_id()?;
        // No address until placed: GC running during placement must not take a stale address
        // of this reused id for a live chunk in its victim.
        let indexed = !self.index.is_full();
        self.chunks[chunk as usize] = Chunk::new(UNMAPPED, key, len, 1, indexed);
        if self.config.keep_payloads {
            self.payload_bytes += payload.as_ref().map_or(0, |p| p.len() as u64);
            self.payload[chunk as usize] = payload.take().map(Vec::into_boxed_slice);
        }
        if indexed {
            self.index.insert(key, chunk);
        } else {
            self.stats.index_full_skips += 1;
        }
        self.live_chunks += 1;
        self.stats.chunks_written += 1;
        self.stats.bytes_after_dedup += SECTOR_BYTES;
        self.stats.bytes_after_compression += content.stored_bytes as u64;
        self.stats.host_units_written += len as u64;
        if let Some(meta) = self.meta.as_mut() {
            meta.touched(self.config.user_sectors + chunk as u64);
        }
        self.place(Stream::Host, self.pool.host_cursor_die, chunk, len, sink)?;
        if self.config.store_data {
            let unit = self.unit_bytes as u64;
            sink.store(self.chunks[chunk as usize].addr as u64 * unit, len as u64 * unit, payload.as_deref().unwrap_or(&[]));
        }
        Ok(chunk)
    }

    /// Sectors referencing `chunk` (0: its id is free).
    pub(crate) fn refs(&self, chunk: u32) -> u32 {
        match self.chunks[chunk as usize].refs_field() {
            field if field == self.refs_saturation => self.many_refs[&chunk],
            field => field,
        }
    }

    /// One more sector references the live chunk `chunk`.
    #[inline]
    fn add_ref(&mut self, chunk: u32) {
        let saturation = self.refs_saturation;
        let entry = &mut self.chunks[chunk as usize];
        let field = entry.refs_field();
        if field + 1 < saturation {
            entry.set_refs_field(field + 1);
        } else if field + 1 == saturation {
            entry.set_refs_field(saturation);
            self.many_refs.insert(chunk, saturation);
        } else {
            *self.many_refs.get_mut(&chunk).expect("a saturated reference count is kept aside") += 1;
        }
    }

    /// One sector less references `chunk`; whether any still does.
    #[inline]
    fn drop_ref(&mut self, chunk: u32) -> bool {
        let saturation = self.refs_saturation;
        let entry = &mut self.chunks[chunk as usize];
        let field = entry.refs_field();
        debug_assert!(field > 0, "chunk {chunk} released with no reference");
        if field < saturation {
            entry.set_refs_field(field - 1);
            return field > 1;
        }
        let count = self.many_refs.get_mut(&chunk).expect("a saturated reference count is kept aside");
        *count -= 1;
        if *count < saturation {
            let count = *count;
            self.many_refs.remove(&chunk);
            self.chunks[chunk as usize].set_refs_field(count);
        }
        true
    }

    /// Keep reference counts from `saturation` up aside (in a map) rather than in the chunk
    /// entries' 24-bit field, which they reach only past 16.7 million references: tests set a
    /// small value (at least 2) to exercise that path. Call before the first write.
    #[doc(hidden)]
    pub fn saturate_refs_at(&mut self, saturation: u32) {
        assert!((2..=REF_MASK).contains(&saturation), "the saturation value must be 2 to {REF_MASK}");
        assert!(self.live_chunks == 0, "set the saturation value before the first write");
        self.refs_saturation = saturation;
    }

    /// Chunks whose reference count is kept aside (see [`ChunkFtl::saturate_refs_at`]).
    pub fn chunks_with_many_refs(&self) -> usize {
        self.many_refs.len()
    }

    /// Drop one reference; free the chunk (its units become invalid, its index entry goes)
    /// when none is left.
    fn release(&mut self, chunk: u32) {
        if let Some(meta) = self.meta.as_mut() {
            if self.chunks[chunk as usize].key != META_KEY {
                meta.touched(self.config.user_sectors + chunk as u64);
            }
        }
        if self.drop_ref(chunk) {
            return;
        }
        let entry = self.chunks[chunk as usize];
        self.pool.sub_valid(self.div.units_per_block.div(entry.addr), entry.len());
        let (key, indexed) = (entry.key, entry.indexed());
        if indexed {
            self.index.remove_if(key, chunk);
        } else {
            debug_assert_ne!(self.index.get(key), Some(chunk), "chunk {chunk} is in the index but not marked indexed");
        }
        if self.config.keep_payloads {
            if let Some(p) = self.payload[chunk as usize].take() {
                self.payload_bytes -= p.len() as u64;
            }
        }
        self.live_chunks -= 1;
        self.free_ids.push(chunk);
    }

    /// Open block of `stream` on `die` with room for `len` units, padding a block whose rest is
    /// too short. For the host stream, may move to another die when this one cannot take data.
    fn place<S: FlashSink + ?Sized>(&mut self, stream: Stream, die: u32, chunk: u32, len: u32, sink: &mut S) -> Result<()> {
        let mut die = die;
        let block = loop {
            let open = match stream {
                Stream::Host => self.pool.dies[die as usize].host_open,
                Stream::Gc => self.pool.dies[die as usize].gc_open,
            };
            let block = if open != UNMAPPED {
                open
            } else if stream == Stream::Gc {
                self.pool.take_free(die, BlockState::OpenGc)
            } else {
                match gc::open_host_block(self, sink) {
                    Some((d, b)) => {
                        die = d;
                        b
                    }
                    None => bail!(Request, "no die has reclaimable space: the drive holds more data than it can store"),
                }
            };
            let room = self.units_per_block - self.pool.blocks[block as usize].written;
            if len <= room {
                break block;
            }
            self.stats.padding_units += room as u64;
            self.advance(block, room, stream, sink);
            if stream == Stream::Host {
                die = self.pool.host_cursor_die;
            }
        };
        let addr = block * self.units_per_block + self.pool.blocks[block as usize].written;
        self.chunks[chunk as usize].addr = addr;
        log_push(&mut self.block_log[block as usize], chunk);
        self.pool.counts.add_valid(block, len);
        self.advance(block, len, stream, sink);
        Ok(())
    }

    /// [`ChunkFtl::place`] for a GC copy of `chunk` (`len` units) into the GC block of `die`:
    /// the same steps (padding a block whose rest is too short, then placing), without the
    /// host stream's cases.
    #[inline]
    fn place_gc<S: FlashSink + ?Sized>(&mut self, die: u32, chunk: u32, len: u32, sink: &mut S) {
        let (block, written) = loop {
            let mut block = self.pool.dies[die as usize].gc_open;
            if block == UNMAPPED {
                block = self.pool.take_free(die, BlockState::OpenGc);
            }
            let written = self.pool.blocks[block as usize].written;
            let room = self.units_per_block - written;
            if len <= room {
                break (block, written);
            }
            self.stats.padding_units += room as u64;
            self.advance_gc(die, block, written, room, sink);
        };
        self.chunks[chunk as usize].addr = block * self.units_per_block + written;
        log_push(&mut self.block_log[block as usize], chunk);
        self.pool.counts.add_valid(block, len);
        self.advance_gc(die, block, written, len, sink);
    }

    /// A whole GC batch (`batch_units` units in all) placed at once when it fits in what is
    /// left of the die's open GC block: the chunks are laid end to end from the block's write
    /// position, in batch order, and the units they complete are programmed in order, which is
    /// what [`ChunkFtl::place_gc`] chunk by chunk does (only the last chunk can fill the block,
    /// so it closes after the same programs). Returns `false`, having done nothing, when the
    /// batch does not fit, the die has no open GC block, or data is stored (each chunk's bytes
    /// are then moved between its placement and the next, by the caller's per-chunk path).
    #[inline]
    fn place_gc_batch<S: FlashSink + ?Sized>(&mut self, die: u32, batch: &[u32], batch_units: u32, sink: &mut S) -> bool {
        let block = self.pool.dies[die as usize].gc_open;
        if block == UNMAPPED || self.config.store_data {
            return false;
        }
        let written = self.pool.blocks[block as usize].written;
        if batch_units > self.units_per_block - written {
            return false;
        }
        let mut addr = block * self.units_per_block + written;
        let log = &mut self.block_log[block as usize];
        for &chunk in batch {
            // One by one: a batch is a few chunks, too few for a general copy to pay.
            log_push(log, chunk);
            let entry = &mut self.chunks[chunk as usize];
            entry.addr = addr;
            addr += entry.len();
            let key = entry.key;
            if let Some(meta) = self.meta.as_mut() {
                // The map of the metadata itself is small and kept in SRAM.
                if key != META_KEY {
                    meta.touched(self.config.user_sectors + chunk as u64);
                }
            }
        }
        self.pool.counts.add_valid(block, batch_units);
        self.advance_gc(die, block, written, batch_units, sink);
        true
    }

    /// [`ChunkFtl::advance`] for the GC block `block` of `die`, which had `before` units written.
    #[inline]
    fn advance_gc<S: FlashSink + ?Sized>(&mut self, die: u32, block: u32, before: u32, n: u32, sink: &mut S) {
        let after = before + n;
        self.pool.blocks[block as usize].written = after;
        for unit in self.div.units_per_program.div(before)..self.div.units_per_program.div(after) {
            sink.program(die, block, unit, OpKind::Internal);
        }
        if after == self.units_per_block {
            self.pool.close(block);
        }
    }

    /// `n` more units of `block` are written: program every program unit completed, close a
    /// full block, and for host data move the stripe on and pace GC.
    fn advance<S: FlashSink + ?Sized>(&mut self, block: u32, n: u32, stream: Stream, sink: &mut S) {
        let before = self.pool.blocks[block as usize].written;
        let after = before + n;
        self.pool.blocks[block as usize].written = after;
        let die = self.div.blocks_per_die.div(block);
        let kind = if stream == Stream::Host { OpKind::Host } else { OpKind::Internal };
        let first_done = self.div.units_per_program.div(before);
        let last_done = self.div.units_per_program.div(after);
        for unit in first_done..last_done {
            sink.program(die, block, unit, kind);
        }
        if after == self.units_per_block {
            self.pool.close(block);
        }
        if stream == Stream::Host {
            for _ in first_done..last_done {
                self.pool.advance_host_cursor(die);
                gc::after_host_program(self, die, self.units_per_program, self.config.gc_low_free_blocks_per_die, self.config.gc_schedule, sink);
            }
        }
    }

    /// Copy live chunks of the die's victim into its GC block until `quota_units` were copied
    /// or the victim is empty; an empty victim is erased. Returns the units copied.
    fn copy_victim_chunks<S: FlashSink + ?Sized>(&mut self, die: u32, quota_units: u32, sink: &mut S) -> u32 {
        let victim = self.pool.dies[die as usize].victim;
        debug_assert_ne!(victim, UNMAPPED);
        let base = victim * self.units_per_block;
        let log = std::mem::take(&mut self.block_log[victim as usize]);
        let mut cursor = self.pool.dies[die as usize].victim_unit as usize;
        let mut copied = 0u32;
        // The chunk entries are loaded a fixed distance ahead of the one examined, rolling on
        // from where the last call on this victim left off (a hint: it changes no result).
        let (prefetched_victim, prefetched_to) = self.gc_prefetched.get(die as usize).copied().unwrap_or((UNMAPPED, 0));
        let mut ahead = if prefetched_victim == victim && cursor > 0 { (prefetched_to as usize).max(cursor) } else { cursor };
        let mut batch = std::mem::take(&mut self.scratch);
        let end = base + self.units_per_block;
        while copied < quota_units && cursor < log.len() && self.pool.valid(victim) > 0 {
            prefetch_log_ahead(&self.chunks, &log, &mut ahead, cursor + GC_PREFETCH_CHUNKS);
            // A batch: consecutive live chunks in one program unit of the victim, read with one
            // sense before they are copied.
            batch.clear();
            let mut unit = u32::MAX;
            let mut batch_units = 0u32;
            while cursor < log.len() {
                let chunk = log[cursor];
                // Live here: referenced, and its address in the victim.
                let c = self.chunks[chunk as usize];
                // A reused chunk id can stand twice in one log; move it once.
                if !c.live() || c.addr < base || c.addr >= end || batch.contains(&chunk) {
                    cursor += 1;
                    continue;
                }
                let u = self.div.units_per_program.div(c.addr - base);
                if unit != u32::MAX && u != unit {
                    break;
                }
                unit = u;
                batch.push(chunk);
                batch_units += c.len();
                cursor += 1;
                if copied + batch_units >= quota_units {
                    break;
                }
            }
            if batch.is_empty() {
                break;
            }
            sink.read_for_move(die, victim, unit, batch_units as u64 * self.unit_bytes as u64);
            // The victim's valid count drops by the batch (its GC key is not kept while it is
            // the victim, and placing copies never looks at it).
            self.pool.sub_valid(victim, batch_units);
            if self.place_gc_batch(die, &batch, batch_units, sink) {
                self.stats.gc_units_moved += batch_units as u64;
                self.stats.gc_chunks_moved += batch.len() as u64;
                copied += batch_units;
                continue;
            }
            for &chunk in &batch {
                let entry = self.chunks[chunk as usize];
                let (from, key, len) = (entry.addr, entry.key, entry.len());
                self.place_gc(die, chunk, len, sink);
                if self.config.store_data {
                    let unit = self.unit_bytes as u64;
                    sink.relocate(from as u64 * unit, self.chunks[chunk as usize].addr as u64 * unit, len as u64 * unit);
                }
                if let Some(meta) = self.meta.as_mut() {
                    // The map of the metadata itself is small and kept in SRAM.
                    if key != META_KEY {
                        meta.touched(self.config.user_sectors + chunk as u64);
                    }
                }
            }
            self.stats.gc_units_moved += batch_units as u64;
            self.stats.gc_chunks_moved += batch.len() as u64;
            copied += batch_units;
        }
        self.scratch = batch;
        if let Some(slot) = self.gc_prefetched.get_mut(die as usize) {
            *slot = (victim, ahead as u32);
        }
        if self.pool.valid(victim) == 0 {
            debug_assert!(log[cursor..].iter().all(|&c| {
                let a = self.chunks[c as usize].addr;
                !self.chunks[c as usize].live() || a < base || a >= base + self.units_per_block
            }));
            let mut log = log;
            log.clear();
            self.block_log[victim as usize] = log;
            self.pool.dies[die as usize].victim = UNMAPPED;
            self.pool.erase(victim);
            sink.erase(die, victim);
            self.stats.gc_blocks_reclaimed += 1;
        } else {
            self.block_log[victim as usize] = log;
            self.pool.dies[die as usize].victim_unit = cursor as u32;
        }
        copied
    }
}

/// Entries of a victim's log ahead of the one examined whose chunk entries GC starts loading
/// (each a random line of the chunk table): enough to cover a few batches' work, few enough
/// that the loads in flight leave room for the host path's.
const GC_PREFETCH_CHUNKS: usize = 32;

/// Entries of a block log ahead of the one read whose line is loaded in advance: the victims'
/// logs are many streams at once, more than the hardware's stream prefetcher follows.
const LOG_PREFETCH_ENTRIES: usize = 128;

/// Block-log entries (chunk ids) in one cache line.
const LOG_LINE_ENTRIES: usize = 16;

/// New chunks ahead of the one being created whose (reused) id's entry is loaded in advance.
const FREE_ID_AHEAD: usize = 8;

/// Start loading the chunk entries of `log[*ahead..to]` (clamped to the log), and the log's own
/// line [`LOG_PREFETCH_ENTRIES`] further on at each line boundary; `*ahead` moves to `to`.
#[inline]
fn prefetch_log_ahead(chunks: &[Chunk], log: &[u32], ahead: &mut usize, to: usize) {
    let to = to.min(log.len());
    while *ahead < to {
        let at = *ahead;
        if at.is_multiple_of(LOG_LINE_ENTRIES) {
            if let Some(entry) = log.get(at + LOG_PREFETCH_ENTRIES) {
                prefetch(entry);
            }
        }
        if let Some(entry) = chunks.get(log[at] as usize) {
            prefetch(entry);
        }
        *ahead += 1;
    }
}

/// Append `chunk` to a block's log; at each line boundary, start loading the line
/// [`LOG_PREFETCH_ENTRIES`] further on (an open block's log is written in order, one of many
/// such streams at once).
#[inline]
fn log_push(log: &mut Vec<u32>, chunk: u32) {
    log.push(chunk);
    if log.len().is_multiple_of(LOG_LINE_ENTRIES) {
        if let Some(slot) = log.spare_capacity_mut().get(LOG_PREFETCH_ENTRIES) {
            prefetch(slot);
        }
    }
}

impl Collector for ChunkFtl {
    fn pool_mut(&mut self) -> &mut BlockPool {
        &mut self.pool
    }

    fn copy_victim<S: FlashSink + ?Sized>(&mut self, die: u32, quota: u32, sink: &mut S) -> u32 {
        self.copy_victim_chunks(die, quota, sink)
    }
}

impl Translation for ChunkFtl {
    fn user_sectors(&self) -> u64 {
        self.config.user_sectors
    }

    fn needs_content(&self) -> bool {
        true
    }

    fn check_room_for_write(&self, sectors: u64) -> Result<()> {
        if !self.config.keep_payloads {
            return Ok(());
        }
        // At most a sector's bytes kept per sector written (a new chunk keeps its stored bytes;
        // zeros and duplicates keep none): the bound is checked before the first sector, so a
        // write that could pass the limit is refused whole.
        let most = sectors.saturating_mul(SECTOR_BYTES);
        ensure!(
            self.payload_bytes.saturating_add(most) <= self.config.payload_limit_bytes,
            Request,
            "real-bytes mode keeps every stored chunk in memory: {} kept, and this write of {} could take the drive past \
             the limit of {}; nothing of it was written. Write less data, use a smaller drive or span, or use modeled content",
            bytes_text(self.payload_bytes),
            bytes_text(most),
            bytes_text(self.config.payload_limit_bytes)
        );
        Ok(())
    }

    #[inline]
    fn prepare(&self, _tag: u64, content: Option<SectorContent>) -> Result<Prepared> {
        match content {
            Some(content) => Ok(self.prepare_content(content)),
            None => bail!(Request, "the data-reduction FTL needs each written sector's content"),
        }
    }

    #[inline]
    fn write(&mut self, lba: u64, sector: Prepared, sink: &mut dyn FlashSink) -> Result<()> {
        self.write_prepared(lba, sector, sink)
    }

    fn trim(&mut self, lba: u64) -> Result<()> {
        ChunkFtl::trim(self, lba)
    }

    #[inline]
    fn pieces(&self, lba: u64, out: &mut Vec<Piece>) {
        let entry = self.l2p[lba as usize];
        if entry != UNMAPPED && entry != ZERO && entry & STALE != 0 {
            // Follow the stale pointer: sense where the old chunk began, move its header.
            let addr = self.chunks[(entry & !STALE) as usize].addr;
            let block = addr / self.units_per_block;
            let byte = (addr % self.units_per_block) as u64 * self.unit_bytes as u64;
            let page = (byte / self.config.geometry.page_bytes as u64) as u32;
            let planes = self.config.geometry.planes_per_die;
            out.push(Piece {
                die: self.pool.die_of(block),
                block,
                unit: page / planes,
                page,
                bytes: self.unit_bytes as u64,
                chunk: entry as u64 | STALE_PIECE,
            });
            return;
        }
        if let Some(loc) = self.locate(lba) {
            let g = &self.config.geometry;
            let page_bytes = g.page_bytes as u64;
            let planes = g.planes_per_die;
            let mut start = loc.offset_in_page as u64;
            let mut left = loc.bytes;
            for page in loc.first_page..=loc.last_page {
                let here = left.min(page_bytes - start);
                out.push(Piece { die: loc.die, block: loc.block, unit: page / planes, page, bytes: here, chunk: loc.chunk as u64 });
                left -= here;
                start = 0;
            }
        }
    }

    fn partial_page_reads(&self) -> bool {
        self.config.partial_page_reads
    }

    #[inline]
    fn first_unprogrammed(&self, pieces: &[Piece]) -> Option<Piece> {
        // A stale pointer's piece holds no data to wait for.
        pieces.iter().copied().find(|p| !p.is_stale_pointer() && !self.unit_programmed(p.block, p.unit))
    }

    fn program_open_unit(&mut self, block: u32, sink: &mut dyn FlashSink) -> u32 {
        ChunkFtl::program_open_unit(self, block, sink)
    }

    fn pad_open_unit(&mut self, sink: &mut dyn FlashSink) -> u32 {
        ChunkFtl::pad_open_unit(self, sink)
    }

    fn program_open_units(&mut self, sink: &mut dyn FlashSink) -> u32 {
        // A chunk may run into the next unit of its block after the stripe moved on, so any
        // die's host block may hold a partly filled unit, not only the cursor's.
        let mut pad = ChunkFtl::pad_open_unit(self, sink);
        for die in 0..self.pool.dies.len() {
            for block in [self.pool.dies[die].host_open, self.pool.dies[die].gc_open] {
                if block != UNMAPPED {
                    pad += ChunkFtl::program_open_unit(self, block, sink);
                }
            }
        }
        pad
    }

    fn secure_erase(&mut self) {
        ChunkFtl::secure_erase(self)
    }

    fn collect_one(&mut self, die: u32, sink: &mut dyn FlashSink) -> bool {
        ChunkFtl::collect_one(self, die, sink)
    }

    fn wants_idle_gc(&self, die: u32) -> bool {
        ChunkFtl::wants_idle_gc(self, die)
    }

    fn free_blocks_total(&self) -> u64 {
        ChunkFtl::free_blocks_total(self)
    }

    fn wear(&self) -> WearSummary {
        ChunkFtl::wear(self)
    }

    fn live_data_sectors(&self) -> u64 {
        self.live_chunks - self.meta_live
    }

    fn metadata_stats(&self) -> Option<MetadataStats> {
        ChunkFtl::metadata_stats(self)
    }

    fn gc_moved(&self) -> u64 {
        self.stats.gc_chunks_moved
    }

    fn reduction_stats(&self) -> Option<&ChunkStats> {
        Some(&self.stats)
    }

    fn ecc_unit_bytes(&self) -> Option<u32> {
        Some(self.unit_bytes)
    }

    fn content_id(&self, lba: u64) -> u64 {
        match self.l2p[lba as usize] {
            ZERO => crate::translation::ZERO_CONTENT_ID,
            chunk if !is_chunk(chunk) => 0,
            chunk => self.chunks[chunk as usize].key,
        }
    }

    fn stored_sector(&self, lba: u64) -> StoredSector<'_> {
        match self.l2p[lba as usize] {
            chunk if !is_chunk(chunk) => StoredSector::Zeros,
            chunk => match self.payload.get(chunk as usize).and_then(|p| p.as_deref()) {
                Some(bytes) => StoredSector::Bytes(bytes),
                None => StoredSector::NotKept,
            },
        }
    }

    fn data_location(&self, lba: u64) -> DataLocation {
        match self.l2p[lba as usize] {
            chunk if !is_chunk(chunk) => DataLocation::Zeros,
            chunk => {
                let c = &self.chunks[chunk as usize];
                let unit = self.unit_bytes as u64;
                DataLocation::At { addr_bytes: c.addr as u64 * unit, region_bytes: c.len() as u64 * unit }
            }
        }
    }

    fn save(&self, out: &mut dyn std::io::Write) -> Result<()> {
        bincode::serialize_into(out, self).map_err(|e| ssdlab_core::Error::Io(format!("cannot save the FTL state: {e}")))
    }

    fn check_invariants(&self) -> std::result::Result<(), String> {
        ChunkFtl::check_invariants(self)
    }

    #[inline]
    fn prefetch_mapping(&self, lba: u64) {
        ChunkFtl::prefetch_mapping(self, lba)
    }

    #[inline]
    fn prefetch_old(&self, lba: u64) {
        self.prefetch_old_chunk(lba)
    }

    #[inline]
    fn prefetch_old_index_slot(&self, lba: u64) {
        ChunkFtl::prefetch_old_index_slot(self, lba)
    }

    fn prefetch_location_run(&self, first: u64, end: u64) {
        // A sector's data is found through its chunk's entry: the entry an overwrite drops.
        self.prefetch_old_run(first, end)
    }

    #[inline]
    fn prefetch_fingerprint(&self, fingerprint: u128) {
        ChunkFtl::prefetch_fingerprint(self, fingerprint)
    }
    fn track_emptied_blocks(&mut self, on: bool) {
        self.pool.track_emptied(on)
    }

    fn take_emptied_blocks(&mut self, out: &mut Vec<u32>) {
        self.pool.take_emptied(out)
    }
}
