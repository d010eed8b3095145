//! The FTL proper: mapping, allocation, garbage collection, TRIM.
//!
//! This file holds the FTL's state ([`Ftl`]) and the constants its parts share; its work is in
//! `ftl/`, one file per job (building, lookups, host writes, placement, GC, the SLC cache, the
//! [`Translation`]).
//!
//! [`Translation`]: crate::Translation

use crate::config::FtlConfig;
use crate::metadata::Metadata;
use crate::pool::BlockPool;
use crate::slot_bits::SlotBits;
use ssdlab_core::FastDiv;

mod accessors;
mod build;
mod collect;
mod hints;
mod lookup;
mod meta;
mod place;
mod slc;
mod stats;
mod translation_impl;
mod unmap;
mod write;

pub use lookup::Location;
pub use stats::FtlStats;

/// Page-level FTL over the whole array.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Ftl {
    pub(crate) config: FtlConfig,
    pub(crate) slots_per_unit: u32,
    pub(crate) slots_per_block: u32,
    pub(crate) blocks_per_die: u32,
    /// Logical sector -> physical slot.
    pub(crate) l2p: Vec<u32>,
    /// Physical slot -> logical sector written there (the out-of-band address); meaningful only
    /// while the slot's bit in `valid` is set (an invalidated slot keeps its stale entry).
    pub(crate) p2l: Vec<u32>,
    /// Per physical slot: whether it holds the current copy of a logical sector. Not saved:
    /// rebuilt from `l2p` on loading (so saved states keep their format).
    #[serde(skip)]
    pub(crate) valid: SlotBits,
    /// Content tag per physical slot (empty unless tracking).
    pub(crate) tags: Vec<u64>,
    pub(crate) pool: BlockPool,
    /// Slots in one native program unit (a one-shot word line on every plane, or one unit).
    native_program_slots: u32,
    /// Slots a block holds in pSLC mode.
    slc_block_slots: u32,
    /// The firmware flushes its cache behind host writes (`when_full = flush`).
    flushes: bool,
    valid_total: u64,
    stats: FtlStats,
    /// Firmware metadata written to flash, when modelled.
    #[serde(default)]
    pub(crate) meta: Option<Metadata>,
    /// Metadata pseudo-sectors mapped (they count in `valid_total` but hold no user data).
    #[serde(default)]
    meta_live: u64,
    /// Metadata is being written (no nested writes from the GC it starts).
    #[serde(default)]
    meta_busy: bool,
    /// Divisions of the per-slot address arithmetic, precomputed (see [`FastDiv`]).
    #[serde(skip)]
    div: Divisors,
    /// Per die: the slot up to which GC has started loading mapping entries (within the
    /// current victim; a hint, not state: it changes no result).
    #[serde(skip)]
    gc_prefetched: Vec<u32>,
    /// Per die: the last victims GC or folding emptied, newest first (`UNMAPPED`: none), where
    /// [`Translation::moved_from`] looks for a moved sector's source. Read timing only; not
    /// saved (a drive loaded from a saved state starts with none).
    ///
    /// [`Translation::moved_from`]: crate::Translation::moved_from
    #[serde(skip)]
    recent_victims: Vec<[u32; RECENT_VICTIMS]>,
}

/// Emptied victims remembered per die ([`Translation::moved_from`]): how far behind the die's
/// collection the copies it booked may still wait for their programs.
///
/// [`Translation::moved_from`]: crate::Translation::moved_from
const RECENT_VICTIMS: usize = 4;

/// The FTL's fixed divisors: slots per block, blocks per die, and the slots of a program unit
/// in each mode.
#[derive(Debug, Clone, Copy, Default)]
struct Divisors {
    slots_per_block: FastDiv,
    blocks_per_die: FastDiv,
    native_program: FastDiv,
    slc_program: FastDiv,
}

impl Divisors {
    fn of(ftl: &Ftl) -> Self {
        Self {
            slots_per_block: FastDiv::new(ftl.slots_per_block),
            blocks_per_die: FastDiv::new(ftl.blocks_per_die),
            native_program: FastDiv::new(ftl.native_program_slots),
            slc_program: FastDiv::new(ftl.slots_per_unit),
        }
    }
}

/// Slots ahead of the one being read or written whose reverse-map line is loaded in advance:
/// the victim's reverse map is read in order, and each open block's written in order, but 64
/// such streams at once (a host and a GC block per die, plus victims) are more than the
/// hardware's stream prefetcher follows, so each line would otherwise be a miss the loop waits
/// for (the victim's, a load that the mapping prefetch needs). Eight lines of 16 entries.
const P2L_PREFETCH_SLOTS: u32 = 128;

/// Entries of the reverse map in one cache line.
const P2L_LINE_SLOTS: u32 = 16;
