//! Per-die block management: the free pool, open blocks and valid-count buckets.

use crate::block::Block;
use crate::UNMAPPED;
use std::collections::VecDeque;

/// Book-keeping of one die.
#[derive(Debug, Clone)]
pub(crate) struct DieState {
    /// Erased blocks, used oldest-erased first (a simple dynamic wear leveller).
    pub free: VecDeque<u32>,
    /// Block receiving host writes on this die.
    pub host_open: u32,
    /// Block receiving GC copies on this die.
    pub gc_open: u32,
    /// Head of the list of closed blocks with exactly `v` valid slots, for each `v`.
    pub bucket_head: Vec<u32>,
    /// No closed block has fewer valid slots than this.
    pub min_valid_hint: u32,
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
    /// Slots of copying owed to keep up with host writes (paced GC).
    pub gc_credit_slots: f64,
}

impl DieState {
    pub fn new(first_block: u32, blocks: u32, slots_per_block: u32) -> Self {
        Self {
            free: (first_block..first_block + blocks).collect(),
            host_open: UNMAPPED,
            gc_open: UNMAPPED,
            bucket_head: vec![UNMAPPED; slots_per_block as usize + 1],
            min_valid_hint: 0,
            closed_order: VecDeque::new(),
            closed_count: 0,
            victim: UNMAPPED,
            victim_unit: 0,
            victim_valid_at_start: 0,
            gc_credit_slots: 0.0,
        }
    }

    /// Put closed block `b` (with its current valid count) into its bucket.
    pub fn bucket_insert(&mut self, blocks: &mut [Block], b: u32) {
        let v = blocks[b as usize].valid;
        let head = self.bucket_head[v as usize];
        blocks[b as usize].prev = UNMAPPED;
        blocks[b as usize].next = head;
        if head != UNMAPPED {
            blocks[head as usize].prev = b;
        }
        self.bucket_head[v as usize] = b;
        if v < self.min_valid_hint {
            self.min_valid_hint = v;
        }
    }

    /// Take closed block `b` out of the bucket for valid count `v`.
    pub fn bucket_remove(&mut self, blocks: &mut [Block], b: u32, v: u32) {
        let (prev, next) = (blocks[b as usize].prev, blocks[b as usize].next);
        if prev != UNMAPPED {
            blocks[prev as usize].next = next;
        } else {
            debug_assert_eq!(self.bucket_head[v as usize], b);
            self.bucket_head[v as usize] = next;
        }
        if next != UNMAPPED {
            blocks[next as usize].prev = prev;
        }
        blocks[b as usize].prev = UNMAPPED;
        blocks[b as usize].next = UNMAPPED;
    }

    /// Drop stale entries of `closed_order` once it holds more than twice the die's blocks, so
    /// it stays bounded.
    pub fn compact_closed_order(&mut self, blocks: &[Block], blocks_per_die: u32) {
        if self.closed_order.len() > 2 * blocks_per_die as usize + 16 {
            self.closed_order
                .retain(|&(b, seq)| blocks[b as usize].state == crate::BlockState::Closed && blocks[b as usize].close_seq == seq);
        }
    }
}
