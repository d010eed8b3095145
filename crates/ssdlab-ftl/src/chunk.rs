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
//!
//! This file holds the FTL's state ([`ChunkFtl`]) and the `l2p` values; its work is in `chunk/`,
//! one file per job (building, host writes, placement, references, GC, the [`Translation`]).
//!
//! [`Translation`]: crate::Translation

use crate::index::FingerprintIndex;
use crate::metadata::Metadata;
use crate::pool::BlockPool;
use crate::UNMAPPED;
use ssdlab_core::FastDiv;
use std::collections::BTreeMap;

mod accessors;
mod block_log;
mod build;
mod collect;
mod config;
mod entry;
mod hints;
mod lookup;
mod meta;
mod place;
mod refs;
mod stats;
mod translation_impl;
mod unmap;
mod write;

pub use config::ChunkFtlConfig;
use entry::{Chunk, REF_MASK};
pub use lookup::ChunkLocation;
pub use stats::ChunkStats;

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
