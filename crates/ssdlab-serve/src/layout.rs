//! Where each part of a backing file lives (format version 4; see docs/backing-file.md). The
//! file is sparse: only what has been written takes room.
//!
//! | file bytes | what |
//! |---|---|
//! | `0 .. 8 KiB` | two header slots, written alternately ([`crate::Header`]) |
//! | `1 MiB .. 1 MiB + JOURNAL_BYTES` | the metadata journal: batches of out-of-band records |
//! | two checkpoint slots | the last two map checkpoints (the newer one is in use) |
//! | from `data_offset` | block extents: each erase block of the drive's NAND, while it holds data, in one extent of block size |

/// File offset of the journal.
pub const JOURNAL_OFFSET: u64 = 1 << 20;
/// Bytes reserved for the journal (sparse; a checkpoint starts it again long before it fills).
pub const JOURNAL_BYTES: u64 = 255 << 20;

/// The offsets of a backing file for a drive of `raw_bytes` in erase blocks of `block_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Bytes of one erase block (one extent).
    pub block_bytes: u64,
    /// Erase blocks of the drive.
    pub blocks: u32,
    /// Bytes of one checkpoint slot.
    pub checkpoint_slot_bytes: u64,
}

const MIB: u64 = 1 << 20;

impl Layout {
    /// The layout for a drive of `raw_bytes` in blocks of `block_bytes`.
    pub fn new(raw_bytes: u64, block_bytes: u64) -> Self {
        // A checkpoint holds the map, chunk table and block metadata (a few bytes per 4 KiB
        // sector and per chunk, well under 1/8 of the raw bytes) and the dedup index (bounded
        // by its entries, about 100 MB at 4 Mi entries); at least 1 GiB (sparse).
        let checkpoint_slot_bytes = (raw_bytes / 8).max(1024 * MIB).div_ceil(MIB) * MIB;
        Self { block_bytes, blocks: (raw_bytes / block_bytes) as u32, checkpoint_slot_bytes }
    }

    /// File offset of checkpoint slot `slot` (0 or 1).
    pub fn checkpoint_offset(&self, slot: u32) -> u64 {
        JOURNAL_OFFSET + JOURNAL_BYTES + slot as u64 * self.checkpoint_slot_bytes
    }

    /// File offset of the first extent.
    pub fn data_offset(&self) -> u64 {
        self.checkpoint_offset(2)
    }

    /// File offset of extent `extent`.
    pub fn extent_offset(&self, extent: u32) -> u64 {
        self.data_offset() + extent as u64 * self.block_bytes
    }
}
