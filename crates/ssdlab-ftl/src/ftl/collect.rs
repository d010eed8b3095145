//! Garbage collection: a victim's live slots copied into the die's GC block; the [`Collector`].

use super::{Ftl, P2L_LINE_SLOTS, P2L_PREFETCH_SLOTS, RECENT_VICTIMS};
use crate::block::BlockState;
use crate::gc::{self, Collector};
use crate::pool::BlockPool;
use crate::prefetch::prefetch;
use crate::sink::FlashSink;
use crate::UNMAPPED;
use ssdlab_nand::{OpKind, SECTOR_BYTES};

/// Slots ahead of the one being copied whose mapping entries GC starts loading.
const GC_PREFETCH_SLOTS: u32 = 24;

impl Ftl {
    /// Run one round of garbage collection on `die`: finish the victim in progress, or choose and
    /// reclaim a new one. Returns `false` when no closed block has anything to reclaim.
    pub fn collect_one<S: FlashSink + ?Sized>(&mut self, die: u32, sink: &mut S) -> bool {
        gc::collect_one(self, die, sink)
    }

    /// Copy the live slots of the victim on `die`, a whole unit at a time, until at least
    /// `quota_slots` were copied or the victim is empty; an emptied victim is erased.
    /// Returns the slots copied.
    ///
    /// The hot loop of garbage collection, written without a division per slot: the victim and
    /// the GC block are known, so slot addresses are built, not divided; the GC block's program
    /// boundary is counted down. The mapping entries of the sectors [`GC_PREFETCH_SLOTS`] slots
    /// ahead are loaded while a slot is moved. The same operations in the same order as moving
    /// slot by slot through `invalidate`, `allocate_gc_slot`, `place` and `after_slot_written`.
    pub(super) fn copy_victim_slots<S: FlashSink + ?Sized>(&mut self, die: u32, quota_slots: u32, sink: &mut S) -> u32 {
        let victim = self.pool.dies[die as usize].victim;
        debug_assert_ne!(victim, UNMAPPED);
        let folding = self.pool.blocks[victim as usize].slc;
        let units = self.config.geometry.units_per_block();
        let (spu, spb) = (self.slots_per_unit, self.slots_per_block);
        let program_slots = self.native_program_slots;
        let base = victim * spb;
        let end = base + units * spu;
        let mut copied = 0u32;
        let mut unit = self.pool.dies[die as usize].victim_unit;
        // Rolling prefetch of the mapping entries of the sectors about to move, carried on from
        // where the last call on this die left it.
        let mut ahead = self.gc_prefetched[die as usize];
        if ahead < base + unit * spu || ahead > end {
            ahead = base + unit * spu;
        }
        // The GC block and the slots left until its program unit is full (0: look it up).
        let mut target_block = UNMAPPED;
        let mut left = 0u32;
        // Where the next slot moved goes (valid while `left > 0`).
        let mut next_target = 0u32;
        let track_or_store = self.config.track_tags || self.config.store_data;
        while copied < quota_slots && unit < units && self.pool.valid(victim) > 0 {
            let first = base + unit * spu;
            unit += 1;
            self.pool.dies[die as usize].victim_unit = unit;
            let horizon = (first + spu + GC_PREFETCH_SLOTS).min(end);
            let far = horizon + P2L_PREFETCH_SLOTS;
            if far < end && far % P2L_LINE_SLOTS < spu {
                prefetch(&self.p2l[far as usize]);
            }
            while ahead < horizon {
                if self.valid.get(ahead) {
                    prefetch(&self.l2p[self.p2l[ahead as usize] as usize]);
                }
                ahead += 1;
            }
            let live = self.valid.count(first, first + spu);
            if live == 0 {
                continue;
            }
            sink.read_for_move_cells(die, victim, unit - 1, live as u64 * SECTOR_BYTES, folding);
            // The victim's valid count drops by the unit's live slots (GC keys are not kept for
            // a victim); the drive's total is unchanged (each slot moves).
            self.pool.sub_valid(victim, live);
            let (l2p, p2l) = (&mut self.l2p[..], &mut self.p2l[..]);
            // Slots moved into the GC block since its metadata was last brought up to date.
            let mut pending = 0u32;
            for slot in first..first + spu {
                if !self.valid.get(slot) {
                    continue;
                }
                let lba = p2l[slot as usize];
                if left == 0 {
                    target_block = self.pool.dies[die as usize].gc_open;
                    if target_block == UNMAPPED {
                        target_block = self.pool.take_free(die, BlockState::OpenGc);
                    }
                    let written = self.pool.blocks[target_block as usize].written;
                    debug_assert!(!self.pool.blocks[target_block as usize].slc, "a GC block is native");
                    left = program_slots - self.div.native_program.rem(written);
                    next_target = target_block * spb + written;
                }
                self.valid.clear(slot);
                debug_assert!(!self.valid.get(next_target));
                self.valid.set(next_target);
                l2p[lba as usize] = next_target;
                p2l[next_target as usize] = lba;
                if next_target.is_multiple_of(P2L_LINE_SLOTS) {
                    if let Some(entry) = p2l.get((next_target + P2L_PREFETCH_SLOTS) as usize) {
                        prefetch(entry);
                    }
                }
                if let Some(meta) = self.meta.as_mut() {
                    // The map of the metadata itself is small and kept in SRAM.
                    if !meta.is_metadata(lba as u64) {
                        meta.touched(lba as u64);
                    }
                }
                if track_or_store {
                    if self.config.track_tags {
                        self.tags[next_target as usize] = self.tags[slot as usize];
                    }
                    if self.config.store_data {
                        sink.relocate(slot as u64 * SECTOR_BYTES, next_target as u64 * SECTOR_BYTES, SECTOR_BYTES);
                    }
                }
                next_target += 1;
                pending += 1;
                left -= 1;
                if left == 0 {
                    self.pool.counts.add_valid(target_block, pending);
                    let meta = &mut self.pool.blocks[target_block as usize];
                    meta.written += pending;
                    let written = meta.written;
                    pending = 0;
                    sink.program_cells(die, target_block, written / program_slots - 1, OpKind::Internal, false);
                    if written == spb {
                        self.pool.close(target_block);
                    }
                }
            }
            if pending > 0 {
                self.pool.counts.add_valid(target_block, pending);
                self.pool.blocks[target_block as usize].written += pending;
            }
            if folding {
                self.stats.fold_sectors_moved += live as u64;
            } else {
                self.stats.gc_sectors_moved += live as u64;
            }
            copied += live;
        }
        self.gc_prefetched[die as usize] = ahead;
        if self.pool.valid(victim) == 0 {
            self.pool.dies[die as usize].victim = UNMAPPED;
            let recent = &mut self.recent_victims[die as usize];
            recent.copy_within(0..RECENT_VICTIMS - 1, 1);
            recent[0] = victim;
            self.erase_block(victim, sink);
            if folding {
                self.stats.slc_blocks_folded += 1;
            } else {
                self.stats.gc_blocks_reclaimed += 1;
            }
        }
        copied
    }

    /// Whether idle-time GC still has work on `die`.
    pub fn wants_idle_gc(&self, die: u32) -> bool {
        let d = &self.pool.dies[die as usize];
        let folds = self.config.slc.as_ref().is_some_and(|c| c.idle_fold)
            && (!d.slc_closed.is_empty() || (d.victim != UNMAPPED && self.pool.blocks[d.victim as usize].slc));
        folds || self.pool.wants_idle_gc(die, self.config.gc_idle_target_free_blocks_per_die)
    }

    fn erase_block<S: FlashSink + ?Sized>(&mut self, block: u32, sink: &mut S) {
        // The reverse map keeps its stale entries: no bit of an emptied block is set.
        debug_assert!(!self.valid.any(block * self.slots_per_block, (block + 1) * self.slots_per_block));
        self.pool.erase(block);
        sink.erase(self.pool.die_of(block), block);
    }
}

impl Collector for Ftl {
    fn pool_mut(&mut self) -> &mut BlockPool {
        &mut self.pool
    }

    fn copy_victim<S: FlashSink + ?Sized>(&mut self, die: u32, quota: u32, sink: &mut S) -> u32 {
        self.copy_victim_slots(die, quota, sink)
    }

    /// The host block of `die` is an SLC cache block while the cache has room there. When it is
    /// full, firmware that folds first (`when_full = fold`) folds the die's oldest SLC blocks
    /// in the foreground until there is room; otherwise host data goes directly to a native
    /// block.
    fn take_host_block<S: FlashSink + ?Sized>(&mut self, die: u32, sink: &mut S) -> u32 {
        let Some(cache) = self.config.slc.clone() else { return self.pool.take_free(die, BlockState::OpenHost) };
        if !self.slc_room(die) && cache.when_full == crate::config::WhenCacheFull::Fold {
            // Bounded: each round folds (or finishes a victim) and erases a block.
            while !self.slc_room(die) {
                let d = &self.pool.dies[die as usize];
                let folding = d.victim != UNMAPPED && self.pool.blocks[d.victim as usize].slc;
                if !folding && d.slc_closed.is_empty() {
                    break;
                }
                if !gc::collect_one(self, die, sink) {
                    break;
                }
            }
        }
        if cache.when_full == crate::config::WhenCacheFull::Flush {
            let exhausted = self.pool.dies[die as usize].slc_exhausted || !self.slc_room(die);
            self.pool.dies[die as usize].slc_exhausted = exhausted;
            if exhausted {
                return self.pool.take_free(die, BlockState::OpenHost);
            }
        }
        if self.slc_room(die) {
            self.pool.take_free_slc(die)
        } else {
            self.pool.take_free(die, BlockState::OpenHost)
        }
    }
}
