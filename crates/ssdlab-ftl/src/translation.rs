//! The one interface through which the drive uses its translation layer, whichever FTL it is.
//!
//! A write goes in two steps: [`Translation::prepare`] decides what storing the sector takes
//! (how many bytes reach the flash: a full 4 KiB slot, a compressed chunk, or nothing for zeros
//! and duplicates) without changing anything, so the drive can time the engine's back end on
//! the bytes actually stored *before* the program that carries them is booked; then
//! [`Translation::write`] places the sector and issues the flash operations through a
//! [`FlashSink`]. Nothing else may change the FTL between the two steps.

use crate::chunk::ChunkStats;
use crate::sink::FlashSink;
use crate::wear::WearSummary;
use ssdlab_core::Result;
use ssdlab_reduce::SectorContent;

/// [`Translation::content_id`] of a sector written with all zeros on the data-reduction FTL
/// (which stores nothing for it).
pub const ZERO_CONTENT_ID: u64 = u64::MAX - 1;

/// The content identity the data-reduction FTL keeps for a sector written with `content`
/// (its chunk's fingerprint key, or [`ZERO_CONTENT_ID`]): what a host expects
/// [`Translation::content_id`] to give back.
pub fn content_id_of(content: &SectorContent) -> u64 {
    if content.zero {
        ZERO_CONTENT_ID
    } else {
        content.fingerprint as u64
    }
}

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

/// Flag on a [`Piece`]'s chunk id: the piece is a stale pointer followed to learn that the
/// sector reads as zeros (see [`Piece::is_stale_pointer`]).
pub(crate) const STALE_PIECE: u64 = 1 << 40;

impl Piece {
    /// Whether this piece is a stale pointer (data-reduction firmware whose TRIM keeps one): the
    /// read senses the old location only to learn that the sector reads as zeros, so the piece
    /// holds none of the sector's data.
    #[inline]
    pub fn is_stale_pointer(&self) -> bool {
        self.chunk & STALE_PIECE != 0
    }
}

/// What happens to a prepared sector when it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A 4 KiB slot of the page-mapped FTL.
    Slot,
    /// All zeros: mapped to nothing.
    Zero,
    /// A duplicate of this live chunk: one more reference.
    Duplicate(u32),
    /// A new chunk of this many ECC units.
    NewChunk(u32),
}

/// A sector ready to be written: its content and what storing it takes.
#[derive(Debug)]
pub struct Prepared {
    pub(crate) tag: u64,
    pub(crate) content: Option<SectorContent>,
    pub(crate) outcome: Outcome,
    stored_bytes: u64,
}

impl Prepared {
    pub(crate) fn new(tag: u64, content: Option<SectorContent>, outcome: Outcome, stored_bytes: u64) -> Self {
        Self { tag, content, outcome, stored_bytes }
    }

    /// Bytes that reach the flash for this sector (whole ECC units or a 4 KiB slot); 0 for
    /// zeros and duplicates, which the data-reduction engine absorbs.
    #[inline]
    pub fn stored_bytes(&self) -> u64 {
        self.stored_bytes
    }
}

/// The bytes a sector's content is stored as: its compressed form (see
/// [`ssdlab_reduce::SectorContent`]), or nothing for content without bytes (modeled, zeros).
pub(crate) fn stored_form(content: &SectorContent) -> &[u8] {
    content.payload.as_deref().unwrap_or(&[])
}

/// Where written data landed, by tier, since the drive was built (drives with an SLC cache).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TierStats {
    /// Host sectors written into SLC cache blocks.
    pub slc_host_sectors: u64,
    /// Host sectors written directly into native blocks.
    pub native_host_sectors: u64,
    /// Slots folding copied from SLC into native blocks.
    pub fold_sectors: u64,
    /// Slots garbage collection copied between native blocks.
    pub gc_sectors: u64,
    /// SLC cache blocks folded and erased.
    pub slc_blocks_folded: u64,
    /// Blocks in pSLC mode now.
    pub slc_blocks_now: u64,
    /// Sectors held in SLC cache blocks now.
    pub slc_sectors_now: u64,
    /// Block erases in pSLC mode since power-on (counted apart from native wear).
    #[serde(default)]
    pub slc_block_erases: u64,
    /// Block erases in native mode since power-on.
    #[serde(default)]
    pub native_block_erases: u64,
    /// The most worn block's share of its rated life, parts per million: native cycles over the
    /// native rating plus pSLC cycles over the pSLC rating (0 without ratings).
    #[serde(default)]
    pub life_used_max_ppm: u64,
}

/// What a logical sector holds, as far as its bytes are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredSector<'a> {
    /// Never written, trimmed, or written with zeros: reads as zeros.
    Zeros,
    /// The stored (compressed) bytes of its content.
    Bytes(&'a [u8]),
    /// Mapped, but this FTL does not keep data bytes (modeled content, or the page-mapped FTL).
    NotKept,
}

/// Where a logical sector's stored bytes are, for a drive that stores data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataLocation {
    /// Never written, trimmed, or all zeros: reads as zeros, nothing stored.
    Zeros,
    /// In the region of `region_bytes` at physical byte address `addr_bytes`.
    At {
        /// Physical byte address (block by block: `block * block_bytes`).
        addr_bytes: u64,
        /// Bytes of the region (a 4 KiB slot, or a chunk's whole ECC units).
        region_bytes: u64,
    },
}

/// The translation layer as the drive sees it: mapping, placement, TRIM, garbage collection,
/// and what reads must fetch. Both FTLs implement it; flash operations go out through a
/// [`FlashSink`] so the FTL itself knows nothing of time.
pub trait Translation: std::fmt::Debug + Send {
    /// Logical 4 KiB sectors the host can address.
    fn user_sectors(&self) -> u64;

    /// Whether writes need each sector's content (the data-reduction FTL) or only a tag.
    fn needs_content(&self) -> bool;

    /// Refuse, before any of its sectors is written, a write of `sectors` sectors that could
    /// take more memory than the translation allows (real-bytes mode keeps each stored chunk's
    /// bytes, up to a limit): a command is refused whole, never applied in part. Default: room.
    fn check_room_for_write(&self, sectors: u64) -> Result<()> {
        let _ = sectors;
        Ok(())
    }

    /// Decide what writing a sector with `content` (and content tag `tag`) takes, changing
    /// nothing. The data-reduction FTL refuses a sector without content.
    fn prepare(&self, tag: u64, content: Option<SectorContent>) -> Result<Prepared>;

    /// Write logical sector `lba` with a sector prepared just before (nothing may have changed
    /// the FTL in between). Full program units go out through `sink`, and GC runs as needed.
    fn write(&mut self, lba: u64, sector: Prepared, sink: &mut dyn FlashSink) -> Result<()>;

    /// Whether every sector written takes one whole 4 KiB slot whatever its content (the
    /// page-mapped FTL without stored data): then [`Translation::write_slot`] may replace
    /// `prepare` and `write`.
    fn slot_per_sector(&self) -> bool {
        false
    }

    /// Write sector `lba` with content tag `tag` as one 4 KiB slot: the same as `write` of what
    /// `prepare(tag, None)` returns, for an FTL where [`Translation::slot_per_sector`] holds.
    fn write_slot(&mut self, lba: u64, tag: u64, sink: &mut dyn FlashSink) -> Result<()> {
        let sector = self.prepare(tag, None)?;
        self.write(lba, sector, sink)
    }

    /// Unmap sector `lba` (TRIM): it reads as zeros and its old data becomes invalid.
    fn trim(&mut self, lba: u64) -> Result<()>;

    /// The physical pieces of sector `lba`, appended to `out` (none when unmapped or zero).
    fn pieces(&self, lba: u64, out: &mut Vec<Piece>);

    /// Whether reads may transfer only the bytes they need from a page (otherwise whole pages).
    fn partial_page_reads(&self) -> bool;

    /// The first piece of `pieces` whose data is not on the flash yet: its program unit (in an
    /// open host or GC block) is still filling, so the data is only in the controller's buffer.
    /// Pieces that hold no data (a stale pointer followed to learn a sector reads as zeros)
    /// never count. `None` when every piece's unit has been programmed.
    fn first_unprogrammed(&self, pieces: &[Piece]) -> Option<Piece>;

    /// Program the partly filled program unit of the open (host or GC) `block` now, padding
    /// it, so data waiting in it can be read from the flash. Returns the padding in allocation
    /// units (0 when the block has no partly filled unit).
    fn program_open_unit(&mut self, block: u32, sink: &mut dyn FlashSink) -> u32;

    /// Program the partly filled host unit, padding it. Returns the padding in allocation units.
    fn pad_open_unit(&mut self, sink: &mut dyn FlashSink) -> u32;

    /// Program every partly filled unit, host and GC, padding each (a FLUSH CACHE: afterwards
    /// every piece of data is on the flash). Returns the padding in allocation units.
    fn program_open_units(&mut self, sink: &mut dyn FlashSink) -> u32;

    /// Forget everything and return every block to the free pool (secure erase). The caller
    /// books the erase time on the array.
    fn secure_erase(&mut self);

    /// One GC round on `die`. Returns `false` when nothing can be reclaimed there.
    fn collect_one(&mut self, die: u32, sink: &mut dyn FlashSink) -> bool;

    /// Whether idle-time GC still has work on `die`.
    fn wants_idle_gc(&self, die: u32) -> bool;

    /// The host paused (idle time begins): firmware that changed how it takes host data while
    /// writes streamed in may change back.
    fn idle_began(&mut self) {}

    /// Free blocks over the array.
    fn free_blocks_total(&self) -> u64;

    /// Program/erase cycles over all blocks.
    fn wear(&self) -> WearSummary;

    /// Sectors holding data: valid slots, or live chunks.
    fn live_data_sectors(&self) -> u64;

    /// Allocation units moved by GC so far (4 KiB slots, or chunks).
    fn gc_moved(&self) -> u64;

    /// Data-reduction counters (the data-reduction FTL only).
    fn reduction_stats(&self) -> Option<&ChunkStats> {
        None
    }

    /// Firmware metadata written (map pages, journal), when modelled.
    fn metadata_stats(&self) -> Option<crate::MetadataStats> {
        None
    }

    /// Where written data landed, by tier (drives with an SLC cache only).
    fn tier_stats(&self) -> Option<TierStats> {
        None
    }

    /// Whether `block` is programmed in pSLC mode (an SLC cache block), for read timing.
    fn block_is_slc(&self, _block: u32) -> bool {
        false
    }

    /// Where the data of `piece` was before GC or folding copied it there: the copy's source in
    /// the victim its die is collecting, or in one it emptied lately whose erase has not begun
    /// (`erase_queued(block)`, asked of the array: an emptied victim's erase can be booked
    /// before a copy's program, when the copy waited in a partly filled unit). The drive reads
    /// there while the copy's program is still queued, as firmware that points its map at a
    /// copy only once it is programmed does. `None` when no such source is known.
    fn moved_from(&self, _piece: &Piece, _erase_queued: &mut dyn FnMut(u32) -> bool) -> Option<Piece> {
        None
    }

    /// Bytes per ECC unit (the data-reduction FTL only).
    fn ecc_unit_bytes(&self) -> Option<u32> {
        None
    }

    /// The content tag last written to `lba` (0 when unmapped or when tags are not kept).
    fn read_tag(&self, _lba: u64) -> u64 {
        0
    }

    /// Start keeping what identifies each sector's content, for fio's `verify` (page FTL: a
    /// tag per physical slot, 8 bytes each, allocated now; the data-reduction FTL keeps each
    /// chunk's fingerprint key already). Sectors written before read as 0 (no identity).
    fn keep_content_ids(&mut self) {}

    /// The identity of the content sector `lba` holds, found through the map as a read finds
    /// its data (after GC moved it): the page FTL's tag of the slot, the data-reduction FTL's
    /// fingerprint key of the chunk, [`ZERO_CONTENT_ID`] for a sector written with zeros; 0
    /// when unmapped or trimmed (or before [`Translation::keep_content_ids`]).
    fn content_id(&self, lba: u64) -> u64 {
        self.read_tag(lba)
    }

    /// What sector `lba` holds, as far as its bytes are kept.
    fn stored_sector(&self, lba: u64) -> StoredSector<'_>;

    /// Where sector `lba`'s stored bytes are on the flash.
    fn data_location(&self, lba: u64) -> DataLocation;

    /// Write the whole state (mapping, block metadata, counters) to `out`, to be read back by
    /// the FTL's `load`.
    fn save(&self, out: &mut dyn std::io::Write) -> Result<()>;

    /// Recount every structure and compare it with the book-keeping (O(capacity); tests).
    fn check_invariants(&self) -> std::result::Result<(), String>;

    /// Hint that `lba` will be written or read soon: start loading its mapping entry.
    fn prefetch_mapping(&self, lba: u64);

    /// Hint, a little later, that `lba` will be overwritten: start loading what dropping its
    /// old data touches.
    fn prefetch_old(&self, lba: u64);

    /// Last hint before overwriting `lba` (data-reduction FTL: the old chunk's index slot).
    fn prefetch_old_index_slot(&self, _lba: u64) {}

    /// Hint that sectors `first..end` will be read soon (their mapping entries already loaded):
    /// start loading what finding their data on the flash touches beyond the mapping
    /// (data-reduction FTL: each sector's chunk entry; nothing for the page FTL, whose mapping
    /// entry is the location).
    fn prefetch_location_run(&self, _first: u64, _end: u64) {}

    /// [`Translation::prefetch_old`] for every sector of `first..end` (the sectors of a command
    /// or a TRIM that covers many, a group at a time: one call, not one per sector).
    fn prefetch_old_run(&self, first: u64, end: u64) {
        for lba in first..end {
            self.prefetch_old(lba);
        }
    }

    /// [`Translation::prefetch_old_index_slot`] for every sector of `first..end`.
    fn prefetch_old_index_slot_run(&self, first: u64, end: u64) {
        for lba in first..end {
            self.prefetch_old_index_slot(lba);
        }
    }

    /// Hint that content with this fingerprint will be written soon.
    fn prefetch_fingerprint(&self, _fingerprint: u128) {}

    /// Start (`true`) or stop keeping the list of emptied blocks ([`Translation::take_emptied_blocks`]).
    /// Off when built or loaded; a drive whose data lives in a file turns it on, so the file
    /// can reuse such a block's storage before the block is erased.
    fn track_emptied_blocks(&mut self, on: bool) {
        let _ = on;
    }

    /// Append to `out` the closed (fully programmed) blocks that came to hold no valid data
    /// since the last call, and are not erased since: their content can never be read again.
    /// Nothing while tracking is off.
    fn take_emptied_blocks(&mut self, out: &mut Vec<u32>) {
        let _ = out;
    }
}
