//! The drive's translation layer: the page-mapped FTL of a conventional controller, or the
//! data-reduction FTL of a SandForce-style one.

use ssdlab_core::Result;
use ssdlab_ftl::{ChunkFtl, ChunkStats, FlashSink, Ftl, WearSummary};
use ssdlab_reduce::SectorContent;

/// One physical piece of a sector's data: what a read of it must sense and transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// Die.
    pub die: u32,
    /// Block.
    pub block: u32,
    /// Program unit (multi-plane page) within the block.
    pub unit: u32,
    /// Page within the block (unit-major, plane-minor).
    pub page: u32,
    /// Bytes of the sector's data in that page (what a partial-page transfer moves).
    pub bytes: u64,
    /// Pieces of one chunk share this id, so a chunk shared by consecutive sectors is read once.
    pub chunk: u64,
}

/// Either FTL.
#[derive(Debug, Clone)]
pub enum Mapper {
    /// Page-level mapping, no data reduction.
    Page(Ftl),
    /// Compression and deduplication into chunks.
    Chunk(ChunkFtl),
}

impl Mapper {
    /// Logical sectors.
    pub fn user_sectors(&self) -> u64 {
        match self {
            Mapper::Page(f) => f.user_sectors(),
            Mapper::Chunk(f) => f.user_sectors(),
        }
    }

    /// Write one sector. Returns the bytes that must be programmed for it (0 for zeros and
    /// duplicates the data-reduction engine absorbed).
    #[inline]
    pub fn write<S: FlashSink>(&mut self, lba: u64, tag: u64, content: Option<SectorContent>, sink: &mut S) -> Result<u64> {
        match self {
            Mapper::Page(f) => f.write(lba, tag, sink).map(|()| ssdlab_nand::SECTOR_BYTES),
            Mapper::Chunk(f) => {
                let content = content.expect("the data-reduction FTL needs content");
                f.write(lba, content, sink)
            }
        }
    }

    /// TRIM one sector.
    pub fn trim(&mut self, lba: u64) -> Result<()> {
        match self {
            Mapper::Page(f) => f.trim(lba),
            Mapper::Chunk(f) => f.trim(lba),
        }
    }

    /// The physical pieces of sector `lba`, appended to `out` (none when unmapped or zero).
    #[inline]
    pub fn pieces(&self, lba: u64, out: &mut Vec<Piece>) {
        match self {
            Mapper::Page(f) => {
                if let Some(loc) = f.lookup(lba) {
                    let g = &f.config().geometry;
                    let slot_in_block = loc.slot % g.slots_per_block();
                    let page = (slot_in_block as u64 * ssdlab_nand::SECTOR_BYTES / g.page_bytes as u64) as u32;
                    out.push(Piece { die: loc.die, block: loc.block, unit: loc.unit, page, bytes: ssdlab_nand::SECTOR_BYTES, chunk: loc.slot as u64 });
                }
            }
            Mapper::Chunk(f) => {
                if let Some(loc) = f.locate(lba) {
                    let g = &f.config().geometry;
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
        }
    }

    /// Whether reads may transfer only the bytes they need from a page (otherwise whole pages).
    pub fn partial_page_reads(&self) -> bool {
        match self {
            Mapper::Page(_) => true,
            Mapper::Chunk(f) => f.config().partial_page_reads,
        }
    }

    /// Flush: program the partly filled host unit.
    pub fn pad_open_unit<S: FlashSink>(&mut self, sink: &mut S) {
        match self {
            Mapper::Page(f) => {
                f.pad_open_unit(sink);
            }
            Mapper::Chunk(f) => {
                f.pad_open_unit(sink);
            }
        }
    }

    /// Forget everything (secure erase).
    pub fn secure_erase(&mut self) {
        match self {
            Mapper::Page(f) => f.secure_erase(),
            Mapper::Chunk(f) => f.secure_erase(),
        }
    }

    /// One GC round on a die.
    pub fn collect_one<S: FlashSink>(&mut self, die: u32, sink: &mut S) -> bool {
        match self {
            Mapper::Page(f) => f.collect_one(die, sink),
            Mapper::Chunk(f) => f.collect_one(die, sink),
        }
    }

    /// Whether idle GC has work on a die.
    pub fn wants_idle_gc(&self, die: u32) -> bool {
        match self {
            Mapper::Page(f) => f.wants_idle_gc(die),
            Mapper::Chunk(f) => f.wants_idle_gc(die),
        }
    }

    /// Free blocks over the array.
    pub fn free_blocks_total(&self) -> u64 {
        match self {
            Mapper::Page(f) => f.free_blocks_total(),
            Mapper::Chunk(f) => f.free_blocks_total(),
        }
    }

    /// Wear summary.
    pub fn wear(&self) -> WearSummary {
        match self {
            Mapper::Page(f) => f.wear(),
            Mapper::Chunk(f) => f.wear(),
        }
    }

    /// Sectors holding data: valid slots (page FTL) or sectors mapped to chunks.
    pub fn live_data_sectors(&self) -> u64 {
        match self {
            Mapper::Page(f) => f.valid_slots(),
            Mapper::Chunk(f) => f.live_chunks(),
        }
    }

    /// Data-reduction counters, for the chunk FTL.
    pub fn reduction_stats(&self) -> Option<&ChunkStats> {
        match self {
            Mapper::Page(_) => None,
            Mapper::Chunk(f) => Some(f.stats()),
        }
    }

    /// Sectors moved by GC (4 KiB slots or chunks).
    pub fn gc_moved(&self) -> u64 {
        match self {
            Mapper::Page(f) => f.stats().gc_sectors_moved,
            Mapper::Chunk(f) => f.stats().gc_chunks_moved,
        }
    }

    /// Start loading sector `lba`'s mapping entry.
    #[inline]
    pub fn prefetch_mapping(&self, lba: u64) {
        match self {
            Mapper::Page(f) => f.prefetch_mapping(lba),
            Mapper::Chunk(f) => f.prefetch_mapping(lba),
        }
    }

    /// Last prefetch stage before overwriting `lba` (data-reduction FTL: the old chunk's index
    /// slot).
    #[inline]
    pub fn prefetch_old_index_slot(&self, lba: u64) {
        if let Mapper::Chunk(f) = self {
            f.prefetch_old_index_slot(lba);
        }
    }

    /// Start loading the index slot a new fingerprint will probe.
    #[inline]
    pub fn prefetch_fingerprint(&self, fingerprint: u128) {
        if let Mapper::Chunk(f) = self {
            f.prefetch_fingerprint(fingerprint);
        }
    }

    /// Whether this is the data-reduction FTL (whose writes need content).
    pub fn needs_content(&self) -> bool {
        matches!(self, Mapper::Chunk(_))
    }

    /// Start loading what overwriting sector `lba` touches.
    #[inline]
    pub fn prefetch_old_slot(&self, lba: u64) {
        match self {
            Mapper::Page(f) => f.prefetch_old_slot(lba),
            Mapper::Chunk(f) => f.prefetch_old_chunk(lba),
        }
    }
}
