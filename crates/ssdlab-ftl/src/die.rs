//! Per-die block management: the free pool, open blocks and valid-count buckets.

use crate::block::Block;
use crate::UNMAPPED;
use std::collections::VecDeque;

/// Fractional bits of the paced-GC credit.
pub(crate) const CREDIT_FRACTION_BITS: u32 = 32;

/// Book-keeping of one die.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct DieState {
    /// First block of the die (blocks are numbered die-major).
    pub first_block: u32,
    /// Blocks on the die.
    pub blocks: u32,
    /// Erased blocks, used oldest-erased first (a simple dynamic wear leveller).
    pub free: VecDeque<u32>,
    /// Block receiving host writes on this die.
    pub host_open: u32,
    /// Block receiving GC copies on this die.
    pub gc_open: u32,
    /// Closed blocks in the order they closed, as `(block, close_seq)`; stale entries (the block
    /// was reclaimed since) are skipped and dropped lazily.
    pub closed_order: VecDeque<(u32, u64)>,
    /// Closed blocks on this die.
    pub closed_count: u32,
    /// Block being reclaimed by paced GC, or UNMAPPED.
    pub victim: u32,
    /// Next unit of the victim to copy.
    pub victim_unit: u32,
    /// Valid slots the victim had when chosen.
    pub victim_valid_at_start: u32,
    /// Units of copying owed to keep up with host writes (paced GC), in fixed point with
    /// [`CREDIT_FRACTION_BITS`] fractional bits: integer arithmetic, so no floating-point
    /// rounding ever decides when a GC operation is booked.
    pub gc_credit_fixed: u64,
    /// Blocks in pSLC mode (open, closed or being folded): the SLC cache in use.
    #[serde(default)]
    pub slc_blocks: u32,
    /// Closed pSLC blocks, oldest first: folding takes them in this order.
    #[serde(default)]
    pub slc_closed: VecDeque<u32>,
    /// A GC burst is under way on this die (burst schedule): one whole victim is reclaimed
    /// after each of its host programs until the die has its high mark of free blocks.
    #[serde(default)]
    pub bursting: bool,
    /// The cache was full when the die last opened a host block (firmware that flushes: host
    /// data goes to native blocks until the host pauses).
    #[serde(default)]
    pub slc_exhausted: bool,
    /// Slots of folding owed to host writes while flushing, fixed point with
    /// [`CREDIT_FRACTION_BITS`] fractional bits.
    #[serde(default)]
    pub flush_credit_fixed: u64,
}

impl DieState {
    pub fn new(first_block: u32, blocks: u32) -> Self {
        Self {
            first_block,
            blocks,
            free: (first_block..first_block + blocks).collect(),
            host_open: UNMAPPED,
            gc_open: UNMAPPED,
            closed_order: VecDeque::new(),
            closed_count: 0,
            victim: UNMAPPED,
            victim_unit: 0,
            victim_valid_at_start: 0,
            gc_credit_fixed: 0,
            slc_blocks: 0,
            slc_closed: VecDeque::new(),
            bursting: false,
            slc_exhausted: false,
            flush_credit_fixed: 0,
        }
    }

    /// Drop stale entries of `closed_order` once it holds more than twice the die's blocks, so
    /// it stays bounded.
    pub fn compact_closed_order(&mut self, blocks: &[Block], blocks_per_die: u32) {
        if self.closed_order.len() > 2 * blocks_per_die as usize + 16 {
            self.closed_order.retain(|&(b, seq)| blocks[b as usize].state == crate::BlockState::Closed && blocks[b as usize].close_seq == seq);
        }
    }
}
