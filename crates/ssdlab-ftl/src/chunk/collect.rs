//! Garbage collection: a victim's live chunks copied into the die's GC block; the [`Collector`].

use super::block_log::prefetch_log_ahead;
use super::{ChunkFtl, META_KEY};
use crate::gc::{self, Collector};
use crate::pool::BlockPool;
use crate::sink::FlashSink;
use crate::UNMAPPED;

impl ChunkFtl {
    /// One round of GC on `die` (finish the victim in progress or reclaim a new one).
    pub fn collect_one<S: FlashSink + ?Sized>(&mut self, die: u32, sink: &mut S) -> bool {
        gc::collect_one(self, die, sink)
    }

    /// Whether idle-time GC still has work on `die`.
    pub fn wants_idle_gc(&self, die: u32) -> bool {
        self.pool.wants_idle_gc(die, self.config.gc_idle_target_free_blocks_per_die)
    }

    /// Copy live chunks of the die's victim into its GC block until `quota_units` were copied
    /// or the victim is empty; an empty victim is erased. Returns the units copied.
    fn copy_victim_chunks<S: FlashSink + ?Sized>(&mut self, die: u32, quota_units: u32, sink: &mut S) -> u32 {
        let victim = self.pool.dies[die as usize].victim;
        debug_assert_ne!(victim, UNMAPPED);
        let base = victim * self.units_per_block;
        let log = std::mem::take(&mut self.block_log[victim as usize]);
        let mut cursor = self.pool.dies[die as usize].victim_unit as usize;
        let mut copied = 0u32;
        // The chunk entries are loaded a fixed distance ahead of the one examined, rolling on
        // from where the last call on this victim left off (a hint: it changes no result).
        let (prefetched_victim, prefetched_to) = self.gc_prefetched.get(die as usize).copied().unwrap_or((UNMAPPED, 0));
        let mut ahead = if prefetched_victim == victim && cursor > 0 { (prefetched_to as usize).max(cursor) } else { cursor };
        let mut batch = std::mem::take(&mut self.scratch);
        let end = base + self.units_per_block;
        while copied < quota_units && cursor < log.len() && self.pool.valid(victim) > 0 {
            prefetch_log_ahead(&self.chunks, &log, &mut ahead, cursor + GC_PREFETCH_CHUNKS);
            // A batch: consecutive live chunks in one program unit of the victim, read with one
            // sense before they are copied.
            batch.clear();
            let mut unit = u32::MAX;
            let mut batch_units = 0u32;
            while cursor < log.len() {
                let chunk = log[cursor];
                // Live here: referenced, and its address in the victim.
                let c = self.chunks[chunk as usize];
                // A reused chunk id can stand twice in one log; move it once.
                if !c.live() || c.addr < base || c.addr >= end || batch.contains(&chunk) {
                    cursor += 1;
                    continue;
                }
                let u = self.div.units_per_program.div(c.addr - base);
                if unit != u32::MAX && u != unit {
                    break;
                }
                unit = u;
                batch.push(chunk);
                batch_units += c.len();
                cursor += 1;
                if copied + batch_units >= quota_units {
                    break;
                }
            }
            if batch.is_empty() {
                break;
            }
            sink.read_for_move(die, victim, unit, batch_units as u64 * self.unit_bytes as u64);
            // The victim's valid count drops by the batch (its GC key is not kept while it is
            // the victim, and placing copies never looks at it).
            self.pool.sub_valid(victim, batch_units);
            if self.place_gc_batch(die, &batch, batch_units, sink) {
                self.stats.gc_units_moved += batch_units as u64;
                self.stats.gc_chunks_moved += batch.len() as u64;
                copied += batch_units;
                continue;
            }
            for &chunk in &batch {
                let entry = self.chunks[chunk as usize];
                let (from, key, len) = (entry.addr, entry.key, entry.len());
                self.place_gc(die, chunk, len, sink);
                if self.config.store_data {
                    let unit = self.unit_bytes as u64;
                    sink.relocate(from as u64 * unit, self.chunks[chunk as usize].addr as u64 * unit, len as u64 * unit);
                }
                if let Some(meta) = self.meta.as_mut() {
                    // The map of the metadata itself is small and kept in SRAM.
                    if key != META_KEY {
                        meta.touched(self.config.user_sectors + chunk as u64);
                    }
                }
            }
            self.stats.gc_units_moved += batch_units as u64;
            self.stats.gc_chunks_moved += batch.len() as u64;
            copied += batch_units;
        }
        self.scratch = batch;
        if let Some(slot) = self.gc_prefetched.get_mut(die as usize) {
            *slot = (victim, ahead as u32);
        }
        if self.pool.valid(victim) == 0 {
            debug_assert!(log[cursor..].iter().all(|&c| {
                let a = self.chunks[c as usize].addr;
                !self.chunks[c as usize].live() || a < base || a >= base + self.units_per_block
            }));
            let mut log = log;
            log.clear();
            self.block_log[victim as usize] = log;
            self.pool.dies[die as usize].victim = UNMAPPED;
            self.pool.erase(victim);
            sink.erase(die, victim);
            self.stats.gc_blocks_reclaimed += 1;
        } else {
            self.block_log[victim as usize] = log;
            self.pool.dies[die as usize].victim_unit = cursor as u32;
        }
        copied
    }
}

/// Entries of a victim's log ahead of the one examined whose chunk entries GC starts loading
/// (each a random line of the chunk table): enough to cover a few batches' work, few enough
/// that the loads in flight leave room for the host path's.
const GC_PREFETCH_CHUNKS: usize = 32;

impl Collector for ChunkFtl {
    fn pool_mut(&mut self) -> &mut BlockPool {
        &mut self.pool
    }

    fn copy_victim<S: FlashSink + ?Sized>(&mut self, die: u32, quota: u32, sink: &mut S) -> u32 {
        self.copy_victim_chunks(die, quota, sink)
    }
}
