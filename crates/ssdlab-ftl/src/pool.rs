//! The block manager shared by both FTLs: block metadata, per-die free pools and open blocks,
//! GC keys, victim choice, closing and erasing.
//!
//! Capacities are in the FTL's own allocation unit: 4 KiB slots for the page-mapped FTL, ECC
//! units for the data-reduction FTL.

use crate::block::{Block, BlockState, SavedBlock};
use crate::block_counts::{BlockCounts, NO_KEY};
use crate::config::GcPolicy;
use crate::die::{DieState, CREDIT_FRACTION_BITS};
use crate::victim::select_victim;
use crate::wear::WearSummary;
use crate::UNMAPPED;

/// Blocks, dies and the GC bookkeeping over them. Saved in the layout of [`SavedPool`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(into = "SavedPool", from = "SavedPool")]
pub(crate) struct BlockPool {
    pub blocks: Vec<Block>,
    /// Per block: its valid count, and its GC key (the valid count while it is closed, a GC
    /// candidate; `u32::MAX` otherwise), with the minima greedy selection starts from. Kept
    /// apart from the block metadata, in one dense table.
    pub counts: BlockCounts,
    pub dies: Vec<DieState>,
    pub blocks_per_die: u32,
    /// Allocation units per block.
    pub capacity: u32,
    pub policy: GcPolicy,
    pub close_seq: u64,
    /// Die receiving the next host program unit (host writes stripe over the dies in
    /// round-robin, one unit at a time).
    pub host_cursor_die: u32,
    /// Fully programmed blocks (closed, or GC victims) whose last valid unit was invalidated (or
    /// that closed with none), since the owner last took them; kept only while `Some` (a drive that stores data turns it on,
    /// [`BlockPool::track_emptied`]). Not saved.
    pub emptied: Option<Vec<u32>>,
}

impl BlockPool {
    /// Bytes of the per-block tables of a pool of `blocks` blocks (block records and counts).
    pub fn table_bytes(blocks: u64) -> u64 {
        blocks * (std::mem::size_of::<Block>() + BlockCounts::ENTRY_BYTES) as u64
    }

    pub fn new(dies: u32, blocks_per_die: u32, capacity: u32, policy: GcPolicy) -> Self {
        Self {
            // Huge pages where the OS allows (8 MiB of block entries at 1 TiB, touched at random
            // by every overwrite: with 4 KiB pages nearly each touch also missed the TLB).
            blocks: ssdlab_core::memory::huge_vec(Block::erased(), (dies * blocks_per_die) as usize, (dies * blocks_per_die) as usize),
            counts: BlockCounts::new((dies * blocks_per_die) as usize, blocks_per_die),
            dies: (0..dies).map(|d| DieState::new(d * blocks_per_die, blocks_per_die)).collect(),
            blocks_per_die,
            capacity,
            policy,
            close_seq: 0,
            host_cursor_die: 0,
            emptied: None,
        }
    }

    /// Start (or stop) keeping the list of emptied closed blocks ([`BlockPool::take_emptied`]).
    pub fn track_emptied(&mut self, on: bool) {
        self.emptied = on.then(Vec::new);
    }

    /// Fully programmed blocks that came to hold no valid data since the last call: never to be
    /// read again, not erased yet (a block erased since it emptied is not listed).
    pub fn take_emptied(&mut self, out: &mut Vec<u32>) {
        if let Some(list) = self.emptied.as_mut() {
            out.append(list);
        }
    }

    /// Note `block` as emptied when it is fully programmed (closed, or a GC victim not erased
    /// yet) and holds no valid unit (tracking on).
    #[inline]
    fn note_if_emptied(&mut self, block: u32) {
        if let Some(list) = self.emptied.as_mut() {
            if self.counts.valid(block) == 0 && matches!(self.blocks[block as usize].state, BlockState::Closed | BlockState::Victim) {
                list.push(block);
            }
        }
    }

    /// Every block erased and free, one more P/E cycle each (secure erase); the host stripe
    /// starts again at die 0.
    pub fn reset_all_erased(&mut self) {
        self.host_cursor_die = 0;
        if let Some(list) = self.emptied.as_mut() {
            list.clear();
        }
        for (i, die) in self.dies.iter_mut().enumerate() {
            *die = DieState::new(i as u32 * self.blocks_per_die, self.blocks_per_die);
        }
        self.counts.clear_all();
        for b in self.blocks.iter_mut() {
            let (native, slc) = if b.slc { (b.erase_count, b.slc_erase_count + 1) } else { (b.erase_count + 1, b.slc_erase_count) };
            *b = Block::erased();
            b.erase_count = native;
            b.slc_erase_count = slc;
        }
    }

    #[inline]
    pub fn die_of(&self, block: u32) -> u32 {
        block / self.blocks_per_die
    }

    pub fn free_count(&self, die: u32) -> usize {
        self.dies[die as usize].free.len()
    }

    pub fn free_total(&self) -> u64 {
        self.dies.iter().map(|d| d.free.len() as u64).sum()
    }

    /// Take the oldest-erased free block of `die` as its open host or GC block.
    pub fn take_free(&mut self, die: u32, state: BlockState) -> u32 {
        let d = &mut self.dies[die as usize];
        let block = d.free.pop_front().expect("free pool empty: the GC reserve was violated");
        debug_assert_eq!(self.blocks[block as usize].written, 0);
        self.blocks[block as usize].state = state;
        match state {
            BlockState::OpenHost => d.host_open = block,
            BlockState::OpenGc => d.gc_open = block,
            _ => unreachable!(),
        }
        block
    }

    /// A full open block becomes a GC candidate.
    pub fn close(&mut self, block: u32) {
        let die = &mut self.dies[(block / self.blocks_per_die) as usize];
        match self.blocks[block as usize].state {
            BlockState::OpenHost => die.host_open = UNMAPPED,
            BlockState::OpenGc => die.gc_open = UNMAPPED,
            other => unreachable!("closing a block in state {other:?}"),
        }
        self.close_seq += 1;
        let b = &mut self.blocks[block as usize];
        b.state = BlockState::Closed;
        b.close_seq = self.close_seq;
        if b.slc {
            // An SLC cache block waits for folding, oldest first; GC does not choose it.
            die.slc_closed.push_back(block);
        } else {
            self.counts.make_candidate(block);
            die.closed_order.push_back((block, self.close_seq));
            die.closed_count += 1;
            die.compact_closed_order(&self.blocks, self.blocks_per_die);
        }
        // Everything it holds was overwritten while it was open.
        self.note_if_emptied(block);
    }

    /// An emptied victim is erased and returns to its die's free pool.
    pub fn erase(&mut self, block: u32) {
        debug_assert_eq!(self.counts.valid(block), 0);
        if let Some(list) = self.emptied.as_mut() {
            // Erased before its owner took it: the erase itself gives its storage back.
            list.retain(|&b| b != block);
        }
        let b = &mut self.blocks[block as usize];
        b.written = 0;
        b.state = BlockState::Free;
        let die = block / self.blocks_per_die;
        if std::mem::take(&mut b.slc) {
            b.slc_erase_count += 1;
            self.dies[die as usize].slc_blocks -= 1;
        } else {
            b.erase_count += 1;
        }
        self.dies[die as usize].free.push_back(block);
    }

    /// `units` of `block` stopped being valid (a candidate's GC key follows; a closed SLC block
    /// waits for folding, not for GC, and never has a key).
    #[inline]
    pub fn sub_valid(&mut self, block: u32, units: u32) {
        self.counts.sub_valid(block, units);
        if self.emptied.is_some() && units > 0 {
            self.note_if_emptied(block);
        }
    }

    /// Valid units in `block`.
    #[inline]
    pub fn valid(&self, block: u32) -> u32 {
        self.counts.valid(block)
    }

    /// Choose a victim on `die` (the die must be able to take `needed_room` units of copies) and
    /// take it out of the candidates. Returns whether one was started.
    pub fn start_victim(&mut self, die: u32) -> bool {
        if self.start_fold(die) {
            return true;
        }
        let Some(victim) = select_victim(self.policy, &mut self.dies[die as usize], &self.blocks, &self.counts, self.capacity, self.close_seq) else {
            return false;
        };
        let gc_open = self.dies[die as usize].gc_open;
        let room = if gc_open == UNMAPPED { 0 } else { self.capacity - self.blocks[gc_open as usize].written };
        if self.counts.valid(victim) > room && self.dies[die as usize].free.is_empty() {
            // Nowhere to copy to; cannot happen while the spare reserve holds.
            return false;
        }
        let v = self.counts.valid(victim);
        self.counts.drop_candidate(victim);
        let d = &mut self.dies[die as usize];
        d.closed_count -= 1;
        d.victim = victim;
        d.victim_unit = 0;
        d.victim_valid_at_start = v;
        self.blocks[victim as usize].state = BlockState::Victim;
        true
    }

    /// Start folding the oldest closed SLC block of `die` (its data will be copied into native
    /// blocks like a GC victim's): the firmware folds its cache before it collects native
    /// blocks, since folding always frees space. Returns whether one was started.
    pub fn start_fold(&mut self, die: u32) -> bool {
        let d = &mut self.dies[die as usize];
        let Some(victim) = d.slc_closed.pop_front() else { return false };
        d.victim = victim;
        d.victim_unit = 0;
        d.victim_valid_at_start = self.counts.valid(victim);
        self.blocks[victim as usize].state = BlockState::Victim;
        true
    }

    /// Take the oldest-erased free block of `die` as its open host block in pSLC mode.
    pub fn take_free_slc(&mut self, die: u32) -> u32 {
        let block = self.take_free(die, BlockState::OpenHost);
        self.blocks[block as usize].slc = true;
        self.dies[die as usize].slc_blocks += 1;
        block
    }

    /// Whether `die` has a victim in progress, starting one if it has none and one can be found.
    pub fn has_victim(&mut self, die: u32) -> bool {
        self.dies[die as usize].victim != UNMAPPED || self.start_victim(die)
    }

    /// Whether idle-time GC still has work on `die` (below `target` free blocks, with closed
    /// blocks to reclaim).
    pub fn wants_idle_gc(&self, die: u32, target: u32) -> bool {
        (self.free_count(die) as u32) < target && self.dies[die as usize].closed_count > 0
    }

    /// Pacing of foreground GC: after a host program unit of `units_per_program` on `die`, add
    /// the copying owed for it and return the whole units of copying due now (0 when the die
    /// does not need GC). Starts a victim when needed. Reclaiming a victim that had `v0` valid
    /// units of `capacity` frees `capacity - v0` units for `v0` copied, so each host unit owes
    /// `v0 / (capacity - v0)` units of copying.
    pub fn paced_quota(&mut self, die: u32, units_per_program: u32, low_free: u32) -> u32 {
        let d = &self.dies[die as usize];
        if d.victim == UNMAPPED && (d.free.len() > low_free as usize || !self.start_victim(die)) {
            return 0;
        }
        // An SLC block a flushing die folds above its low-water mark is the flush's to pace.
        let d = &self.dies[die as usize];
        if d.slc_exhausted && d.free.len() > low_free as usize && self.blocks[d.victim as usize].slc {
            return 0;
        }
        let capacity = self.capacity as u64;
        let d = &mut self.dies[die as usize];
        let v0 = (d.victim_valid_at_start as u64).min(capacity - 1);
        d.gc_credit_fixed += ((units_per_program as u64 * v0) << CREDIT_FRACTION_BITS) / (capacity - v0);
        (d.gc_credit_fixed >> CREDIT_FRACTION_BITS).min(u32::MAX as u64) as u32
    }

    /// Book `copied` units of copying against the die's credit.
    pub fn paced_done(&mut self, die: u32, copied: u32, low_free: u32) {
        let d = &mut self.dies[die as usize];
        d.gc_credit_fixed = d.gc_credit_fixed.saturating_sub((copied as u64) << CREDIT_FRACTION_BITS);
        if d.victim == UNMAPPED && d.free.len() > low_free as usize {
            d.gc_credit_fixed = 0;
        }
    }

    /// The host's open block on the cursor die and how many allocation units of padding
    /// complete its partly filled program unit of `units_per_program` (`None` when there is no
    /// open block or its last unit is complete).
    pub fn host_padding_needed(&self, units_per_program: u32) -> Option<(u32, u32)> {
        let block = self.dies[self.host_cursor_die as usize].host_open;
        if block == UNMAPPED {
            return None;
        }
        let partial = self.blocks[block as usize].written % units_per_program;
        (partial != 0).then_some((block, units_per_program - partial))
    }

    /// The host stripe moves on to the next die (after a host program unit on `die`).
    #[inline]
    pub fn advance_host_cursor(&mut self, die: u32) {
        self.host_cursor_die = (die + 1) % self.dies.len() as u32;
    }

    pub fn wear(&self) -> WearSummary {
        let mut min = u32::MAX;
        let mut max = 0;
        let mut sum = 0u64;
        for b in &self.blocks {
            min = min.min(b.erase_count);
            max = max.max(b.erase_count);
            sum += b.erase_count as u64;
        }
        WearSummary { min, mean: sum as f64 / self.blocks.len() as f64, max }
    }

    /// Check the pool's own bookkeeping: free pools, GC keys, closed counts. `valid_of` recounts
    /// a block's valid units from the FTL's maps.
    pub fn check(&self, valid_of: &dyn Fn(u32) -> u32) -> Result<(), String> {
        for (b, block) in self.blocks.iter().enumerate() {
            let recount = valid_of(b as u32);
            let valid = self.counts.valid(b as u32);
            if recount != valid {
                return Err(format!("block {b}: valid count {valid} but recount {recount}"));
            }
            if block.state == BlockState::Free && (valid != 0 || block.written != 0) {
                return Err(format!("block {b} is free but has {valid} valid and {} written units", block.written));
            }
            if block.state == BlockState::Victim && self.dies[b / self.blocks_per_die as usize].victim != b as u32 {
                return Err(format!("block {b} is in the victim state but not its die's victim"));
            }
            let expected = if block.state == BlockState::Closed && !block.slc { valid } else { NO_KEY };
            if self.counts.key(b as u32) != expected {
                return Err(format!("block {b} in state {:?} with {valid} valid has GC key {}", block.state, self.counts.key(b as u32)));
            }
        }
        self.counts.check()?;
        for (d, die) in self.dies.iter().enumerate() {
            for &b in die.free.iter() {
                if self.blocks[b as usize].state != BlockState::Free || (b / self.blocks_per_die) as usize != d {
                    return Err(format!("die {d}: free pool holds block {b} in state {:?}", self.blocks[b as usize].state));
                }
            }
            let closed = (die.first_block..die.first_block + die.blocks)
                .filter(|&b| self.blocks[b as usize].state == BlockState::Closed && !self.blocks[b as usize].slc)
                .count();
            if closed != die.closed_count as usize {
                return Err(format!("die {d}: {closed} closed blocks but count {}", die.closed_count));
            }
            let slc = (die.first_block..die.first_block + die.blocks).filter(|&b| self.blocks[b as usize].slc).count();
            if slc != die.slc_blocks as usize {
                return Err(format!("die {d}: {slc} blocks in pSLC mode but count {}", die.slc_blocks));
            }
            for &b in die.slc_closed.iter() {
                if self.blocks[b as usize].state != BlockState::Closed || !self.blocks[b as usize].slc {
                    return Err(format!("die {d}: fold queue holds block {b} in state {:?}", self.blocks[b as usize].state));
                }
            }
        }
        Ok(())
    }
}

/// The pool as saved: the layout saved states have always had (each block's valid count in its
/// metadata, the GC keys in a table of their own).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct SavedPool {
    blocks: Vec<SavedBlock>,
    gc_key: Vec<u32>,
    dies: Vec<DieState>,
    blocks_per_die: u32,
    capacity: u32,
    policy: GcPolicy,
    close_seq: u64,
    host_cursor_die: u32,
}

impl From<BlockPool> for SavedPool {
    fn from(pool: BlockPool) -> Self {
        Self {
            blocks: pool.blocks.iter().zip(pool.counts.valid_counts()).map(|(b, valid)| SavedBlock::of(b, valid)).collect(),
            gc_key: pool.counts.keys().collect(),
            dies: pool.dies,
            blocks_per_die: pool.blocks_per_die,
            capacity: pool.capacity,
            policy: pool.policy,
            close_seq: pool.close_seq,
            host_cursor_die: pool.host_cursor_die,
        }
    }
}

impl From<SavedPool> for BlockPool {
    fn from(saved: SavedPool) -> Self {
        Self {
            counts: BlockCounts::restore(saved.blocks.iter().map(|b| b.valid), &saved.gc_key, saved.blocks_per_die),
            blocks: saved.blocks.iter().map(SavedBlock::restore).collect(),
            dies: saved.dies,
            blocks_per_die: saved.blocks_per_die,
            capacity: saved.capacity,
            policy: saved.policy,
            close_seq: saved.close_seq,
            host_cursor_die: saved.host_cursor_die,
            emptied: None,
        }
    }
}
