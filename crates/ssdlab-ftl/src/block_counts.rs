//! Per block, side by side in one dense table (8 bytes a block, so one cache line serves
//! both): its valid count, and its GC key (the valid count while the block is a GC candidate:
//! closed, not in pSLC mode; `u32::MAX` otherwise). An overwrite changes a block's count and,
//! for a candidate, its key: one line of a table of 2 MiB at 1 TiB raw, instead of a line of
//! the 8 MiB block metadata and one of a separate key table.
//!
//! Per group of consecutive blocks of one die, the least key of the group is kept too, so
//! greedy selection finds the die's minimum by looking at its group minima and walks only the
//! groups holding it, instead of scanning every block of the die (8,192 at 1 TiB). A key only
//! falls while its block is a candidate (a unit of it was overwritten), which lowers its
//! group's minimum at most; a group is recounted only when its least key leaves (the block
//! becomes a victim or the pool is reset).
//!
//! Each group also remembers the block greedy selection took from it last (the oldest at its
//! minimum), or that it does not know it: a key falling below the minimum makes its block the
//! group's best, a key reaching the minimum from above (a tie) or a recount forgets it. So
//! selection walks a group's 64 entries (and reads their blocks' close sequences) only when it
//! was forgotten, not at every victim: at 4 TiB raw, walking the groups at the minimum was
//! 6% of a fast-forwarded random fill, nearly all of it misses on the entries and the blocks.

/// A block's valid count and GC key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Entry {
    valid: u32,
    key: u32,
}

/// The blocks' valid counts and GC keys, and the minima of the keys' groups.
#[derive(Debug, Clone, Default)]
pub(crate) struct BlockCounts {
    entries: Vec<Entry>,
    /// Least key of each group.
    group_min: Vec<u32>,
    /// Per group, the oldest block (lowest close sequence) whose key is the group's minimum, or
    /// [`UNKNOWN`]: a cache that [`BlockCounts::least`] fills, never a result of its own.
    group_best: Vec<Cell<u32>>,
    /// log2 of the blocks in a group: the largest power of two up to 64 that divides the blocks
    /// per die, so that no group spans two dies.
    group_shift: u32,
}

/// Most blocks in one group.
const MAX_GROUP_SHIFT: u32 = 6;

/// A key meaning "not a candidate".
pub(crate) const NO_KEY: u32 = u32::MAX;

/// A group's best block is not known (it is found by walking the group when needed).
const UNKNOWN: u32 = u32::MAX;

use std::cell::Cell;

impl BlockCounts {
    /// Bytes of one block's entry.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

    /// Counts of `blocks` blocks (`blocks_per_die` to a die), all empty, none a candidate.
    pub fn new(blocks: usize, blocks_per_die: u32) -> Self {
        let entries = ssdlab_core::memory::huge_vec(Entry { valid: 0, key: NO_KEY }, blocks, blocks);
        Self::from_parts(entries, blocks_per_die)
    }

    /// Counts restored from saved valid counts and keys (`valid[b]`, `keys[b]` per block).
    pub fn restore(valid: impl Iterator<Item = u32>, keys: &[u32], blocks_per_die: u32) -> Self {
        let entries: Vec<Entry> = valid.zip(keys.iter().copied()).map(|(valid, key)| Entry { valid, key }).collect();
        Self::from_parts(entries, blocks_per_die)
    }

    fn from_parts(entries: Vec<Entry>, blocks_per_die: u32) -> Self {
        let group_shift = blocks_per_die.trailing_zeros().min(MAX_GROUP_SHIFT);
        let group_min: Vec<u32> = entries.chunks(1 << group_shift).map(Self::least_key).collect();
        let group_best = vec![Cell::new(UNKNOWN); group_min.len()];
        Self { entries, group_min, group_best, group_shift }
    }

    fn least_key(group: &[Entry]) -> u32 {
        group.iter().map(|e| e.key).min().unwrap_or(NO_KEY)
    }

    /// The valid count of `block`.
    #[inline]
    pub fn valid(&self, block: u32) -> u32 {
        self.entries[block as usize].valid
    }

    /// The GC key of `block` ([`NO_KEY`] when it is not a candidate).
    #[inline]
    pub fn key(&self, block: u32) -> u32 {
        self.entries[block as usize].key
    }

    /// The valid counts of all blocks, in block order.
    pub fn valid_counts(&self) -> impl Iterator<Item = u32> + '_ {
        self.entries.iter().map(|e| e.valid)
    }

    /// The keys of all blocks, in block order.
    pub fn keys(&self) -> impl Iterator<Item = u32> + '_ {
        self.entries.iter().map(|e| e.key)
    }

    /// The entry of `block`, as a reference (for a prefetch), if the block exists.
    #[inline]
    pub fn entry_of(&self, block: usize) -> Option<&Entry> {
        self.entries.get(block)
    }

    /// `units` more valid units in `block` (an open block, never a candidate).
    #[inline]
    pub fn add_valid(&mut self, block: u32, units: u32) {
        let e = &mut self.entries[block as usize];
        debug_assert_eq!(e.key, NO_KEY, "units placed in a GC candidate");
        e.valid += units;
    }

    /// `units` of `block` stopped being valid; a candidate's key follows its count.
    #[inline]
    pub fn sub_valid(&mut self, block: u32, units: u32) {
        let e = &mut self.entries[block as usize];
        debug_assert!(e.valid >= units);
        e.valid -= units;
        if e.key != NO_KEY {
            e.key = e.valid;
            let g = (block >> self.group_shift) as usize;
            let min = self.group_min[g];
            if e.valid <= min {
                // Below the minimum: the group's only block at its new minimum. At it: a tie,
                // which only a walk settles.
                self.group_best[g].set(if e.valid < min { block } else { UNKNOWN });
                self.group_min[g] = e.valid;
            }
        }
    }

    /// `block` becomes a GC candidate (keyed by its valid count).
    pub fn make_candidate(&mut self, block: u32) {
        self.set_key(block, self.entries[block as usize].valid);
    }

    /// `block` stops being a GC candidate.
    pub fn drop_candidate(&mut self, block: u32) {
        self.set_key(block, NO_KEY);
    }

    fn set_key(&mut self, block: u32, key: u32) {
        let old = std::mem::replace(&mut self.entries[block as usize].key, key);
        let g = (block >> self.group_shift) as usize;
        if key < self.group_min[g] {
            self.group_min[g] = key;
            self.group_best[g].set(block);
        } else if key > old && old == self.group_min[g] {
            let size = 1usize << self.group_shift;
            self.group_min[g] = Self::least_key(&self.entries[g * size..(g + 1) * size]);
            self.group_best[g].set(UNKNOWN);
        } else if key == self.group_min[g] && key != NO_KEY {
            self.group_best[g].set(UNKNOWN);
        }
    }

    /// Every block empty and not a candidate.
    pub fn clear_all(&mut self) {
        self.entries.fill(Entry { valid: 0, key: NO_KEY });
        self.group_min.fill(NO_KEY);
        self.group_best.iter().for_each(|b| b.set(UNKNOWN));
    }

    /// Greedy choice over blocks `first..first + count` (one die): the block with the least key
    /// below `limit`, the one with the lowest `close_seq` among equals; `None` when no key is
    /// below `limit`. The group minima must be there.
    pub fn least(&self, first: u32, count: u32, limit: u32, close_seq: impl Fn(u32) -> u64) -> Option<u32> {
        let size = 1u32 << self.group_shift;
        let groups = (first >> self.group_shift) as usize..((first + count) >> self.group_shift) as usize;
        let mins = &self.group_min[groups.clone()];
        let min = mins.iter().copied().min().unwrap_or(NO_KEY);
        if min >= limit {
            return None;
        }
        let mut best: Option<(u64, u32)> = None;
        for (i, _) in mins.iter().enumerate().filter(|&(_, &m)| m == min) {
            let g = groups.start + i;
            let mut pick = self.group_best[g].get();
            if pick == UNKNOWN {
                let start = g as u32 * size;
                let mut oldest: Option<(u64, u32)> = None;
                for b in start..start + size {
                    if self.entries[b as usize].key == min {
                        let seq = close_seq(b);
                        if oldest.is_none_or(|(s, _)| seq < s) {
                            oldest = Some((seq, b));
                        }
                    }
                }
                let Some((_, b)) = oldest else { continue };
                pick = b;
                self.group_best[g].set(pick);
            }
            let seq = close_seq(pick);
            if best.is_none_or(|(s, _)| seq < s) {
                best = Some((seq, pick));
            }
        }
        best.map(|(_, b)| b)
    }

    /// Check that the group minima are exact.
    pub fn check(&self) -> Result<(), String> {
        for (g, group) in self.entries.chunks(1 << self.group_shift).enumerate() {
            let min = Self::least_key(group);
            if self.group_min[g] != min {
                return Err(format!("GC key group {g}: recorded minimum {} but the least key is {min}", self.group_min[g]));
            }
            let best = self.group_best[g].get();
            if best != UNKNOWN && ((best >> self.group_shift) as usize != g || self.entries[best as usize].key != min) {
                return Err(format!("GC key group {g}: its remembered block {best} is not one at its minimum {min}"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{BlockCounts, NO_KEY};

    /// The least key below the limit, oldest among equals, as a full scan finds it.
    fn scan(counts: &BlockCounts, first: u32, count: u32, limit: u32, seq: &[u64]) -> Option<u32> {
        (first..first + count).filter(|&b| counts.key(b) < limit).min_by_key(|&b| (counts.key(b), seq[b as usize]))
    }

    #[test]
    fn least_matches_a_full_scan_through_changes() {
        // Two dies of 96 blocks (groups of 32); blocks filled, made candidates, overwritten and
        // taken as victims in a fixed pseudo-random order.
        let (per_die, blocks) = (96u32, 192usize);
        let mut counts = BlockCounts::new(blocks, per_die);
        let seq: Vec<u64> = (0..blocks as u64).map(|b| (b * 7919) % 1000).collect();
        let mut x = 12345u64;
        for step in 0..40_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let block = ((x >> 33) % blocks as u64) as u32;
            match (x >> 20) % 4 {
                0 if counts.key(block) == NO_KEY && counts.valid(block) < 30 => counts.add_valid(block, ((x >> 40) % 5) as u32),
                1 if counts.key(block) == NO_KEY => counts.make_candidate(block),
                2 if counts.key(block) != NO_KEY => counts.drop_candidate(block),
                _ if counts.valid(block) > 0 => counts.sub_valid(block, 1),
                _ => {}
            }
            assert!(counts.key(block) == NO_KEY || counts.key(block) == counts.valid(block));
            counts.check().unwrap();
            if step.is_multiple_of(3) {
                for die in 0..2 {
                    let first = die * per_die;
                    assert_eq!(counts.least(first, per_die, 40, |b| seq[b as usize]), scan(&counts, first, per_die, 40, &seq));
                }
            }
        }
        assert!(counts.keys().any(|k| k != NO_KEY && k < 40), "the walk never made a candidate below the limit");
        // Restored from the saved counts and keys: the same minima.
        let restored = BlockCounts::restore(counts.valid_counts(), &counts.keys().collect::<Vec<_>>(), per_die);
        restored.check().unwrap();
        assert_eq!(restored.group_min, counts.group_min);
        counts.clear_all();
        assert_eq!(counts.least(0, per_die, 40, |b| seq[b as usize]), None);
    }
}
