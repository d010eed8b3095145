//! The SLC cache: room for another pSLC block, blocks in pSLC mode, flushing behind host writes.

use super::Ftl;
use crate::die::CREDIT_FRACTION_BITS;
use crate::sink::FlashSink;
use crate::UNMAPPED;

impl Ftl {
    /// Whether `die` may open another SLC cache block: within the static allowance, or within
    /// the firmware's dynamic maximum while the die keeps more free blocks than GC's low-water
    /// mark plus one after taking it (a dynamic SLC block is a free native block: the fuller the
    /// drive, the fewer there are).
    pub(super) fn slc_room(&self, die: u32) -> bool {
        let Some(c) = &self.config.slc else { return false };
        let d = &self.pool.dies[die as usize];
        let free = d.free.len() as u64;
        let used = d.slc_blocks;
        free >= 2
            && (used < c.static_blocks_per_die
                || (used < c.static_blocks_per_die + c.dynamic_max_blocks_per_die && free > self.config.gc_low_free_blocks_per_die as u64 + 1))
    }

    /// SLC cache state: blocks in pSLC mode over the array, and sectors they hold.
    pub fn slc_blocks(&self) -> u64 {
        self.pool.dies.iter().map(|d| d.slc_blocks as u64).sum()
    }

    /// Firmware that flushes its full cache behind host writes (`when_full = flush`): after a
    /// native host program unit of `unit_slots` on `die`, fold SLC data in proportion, one SLC
    /// block's slots per native block's (a third of the slots written, on TLC), from the die's
    /// oldest SLC block. A native GC victim in progress on the die goes first (the flush waits).
    pub(super) fn flush_behind<S: FlashSink + ?Sized>(&mut self, die: u32, unit_slots: u32, sink: &mut S) {
        let d = &mut self.pool.dies[die as usize];
        d.flush_credit_fixed += ((unit_slots as u64 * self.slc_block_slots as u64) << CREDIT_FRACTION_BITS) / self.slots_per_block as u64;
        let quota = (d.flush_credit_fixed >> CREDIT_FRACTION_BITS).min(u32::MAX as u64) as u32;
        if quota == 0 {
            return;
        }
        if d.victim == UNMAPPED {
            if !self.pool.start_fold(die) {
                // Nothing left to flush on this die.
                self.pool.dies[die as usize].flush_credit_fixed = 0;
                return;
            }
        } else if !self.pool.blocks[d.victim as usize].slc {
            return;
        }
        let copied = self.copy_victim_slots(die, quota, sink);
        let d = &mut self.pool.dies[die as usize];
        d.flush_credit_fixed = d.flush_credit_fixed.saturating_sub((copied as u64) << CREDIT_FRACTION_BITS);
    }

    /// The host paused: firmware that flushes takes host data into SLC again where the cache
    /// has room.
    pub fn idle_began(&mut self) {
        for d in &mut self.pool.dies {
            d.slc_exhausted = false;
            d.flush_credit_fixed = 0;
        }
    }
}
