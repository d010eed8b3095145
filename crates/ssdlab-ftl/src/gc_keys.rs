//! GC keys: per block, its valid count while it is a GC candidate (closed, not in pSLC mode),
//! `u32::MAX` otherwise; and per group of consecutive blocks of one die, the least key of the
//! group, so greedy selection finds the die's minimum by looking at its group minima and walks
//! only the groups holding it, instead of scanning every block of the die (8,192 at 1 TiB).
//!
//! Keeping the minima costs one more small, hot table touched per invalidation: a key only
//! falls while its block is a candidate (a slot of it was overwritten), which lowers its
//! group's minimum at most; a group is recounted only when its least key leaves (the block
//! becomes a victim or the pool is reset).

/// The GC keys and the minima of their groups.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct GcKeys {
    keys: Vec<u32>,
    /// Least key of each group (empty until [`GcKeys::build_groups`]; not saved).
    #[serde(skip)]
    group_min: Vec<u32>,
    /// log2 of the blocks in a group: the largest power of two up to 64 that divides the blocks
    /// per die, so that no group spans two dies.
    #[serde(skip)]
    group_shift: u32,
}

/// Most blocks in one group.
const MAX_GROUP_SHIFT: u32 = 6;

/// A key meaning "not a candidate".
pub(crate) const NO_KEY: u32 = u32::MAX;

impl GcKeys {
    /// Keys of `blocks` blocks (`blocks_per_die` to a die), none a candidate.
    pub fn new(blocks: usize, blocks_per_die: u32) -> Self {
        let mut keys = Self { keys: ssdlab_core::memory::huge_vec(NO_KEY, blocks, blocks), group_min: Vec::new(), group_shift: 0 };
        keys.build_groups(blocks_per_die);
        keys
    }

    /// Compute the group minima (after loading a saved state, which holds only the keys).
    pub fn build_groups(&mut self, blocks_per_die: u32) {
        self.group_shift = blocks_per_die.trailing_zeros().min(MAX_GROUP_SHIFT);
        let size = 1usize << self.group_shift;
        self.group_min = self.keys.chunks(size).map(|group| group.iter().copied().min().unwrap_or(NO_KEY)).collect();
    }

    /// Whether the group minima are there (not yet after loading a saved state).
    pub fn has_groups(&self) -> bool {
        !self.keys.is_empty() && !self.group_min.is_empty()
    }

    /// The key of `block`.
    #[inline]
    pub fn get(&self, block: u32) -> u32 {
        self.keys[block as usize]
    }

    /// The key of `block`, as a reference (for a prefetch), if the block exists.
    #[inline]
    pub fn slot_of(&self, block: usize) -> Option<&u32> {
        self.keys.get(block)
    }

    /// Set the key of `block`.
    #[inline]
    pub fn set(&mut self, block: u32, key: u32) {
        let old = std::mem::replace(&mut self.keys[block as usize], key);
        if self.group_min.is_empty() {
            return;
        }
        let g = (block >> self.group_shift) as usize;
        if key < self.group_min[g] {
            self.group_min[g] = key;
        } else if key > old && old == self.group_min[g] {
            let size = 1usize << self.group_shift;
            self.group_min[g] = self.keys[g * size..(g + 1) * size].iter().copied().min().unwrap_or(NO_KEY);
        }
    }

    /// Every block not a candidate.
    pub fn clear_all(&mut self) {
        self.keys.fill(NO_KEY);
        self.group_min.fill(NO_KEY);
    }

    /// Greedy choice over blocks `first..first + count` (one die): the block with the least key
    /// below `limit`, the one with the lowest `close_seq` among equals; `None` when no key is
    /// below `limit`. The group minima must be there.
    pub fn least(&self, first: u32, count: u32, limit: u32, close_seq: impl Fn(u32) -> u64) -> Option<u32> {
        debug_assert!(self.has_groups());
        let size = 1u32 << self.group_shift;
        let groups = (first >> self.group_shift) as usize..((first + count) >> self.group_shift) as usize;
        let mins = &self.group_min[groups.clone()];
        let min = mins.iter().copied().min().unwrap_or(NO_KEY);
        if min >= limit {
            return None;
        }
        let mut best: Option<(u64, u32)> = None;
        for (i, _) in mins.iter().enumerate().filter(|&(_, &m)| m == min) {
            let start = (groups.start + i) as u32 * size;
            for b in start..start + size {
                if self.keys[b as usize] == min {
                    let seq = close_seq(b);
                    if best.is_none_or(|(s, _)| seq < s) {
                        best = Some((seq, b));
                    }
                }
            }
        }
        best.map(|(_, b)| b)
    }

    /// Check that the group minima are exact.
    pub fn check(&self) -> Result<(), String> {
        if self.group_min.is_empty() {
            return Ok(());
        }
        let size = 1usize << self.group_shift;
        for (g, group) in self.keys.chunks(size).enumerate() {
            let min = group.iter().copied().min().unwrap_or(NO_KEY);
            if self.group_min[g] != min {
                return Err(format!("GC key group {g}: recorded minimum {} but the least key is {min}", self.group_min[g]));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{GcKeys, NO_KEY};

    /// The least key below the limit, oldest among equals, as a full scan finds it.
    fn scan(keys: &GcKeys, first: u32, count: u32, limit: u32, seq: &[u64]) -> Option<u32> {
        (first..first + count).filter(|&b| keys.get(b) < limit).min_by_key(|&b| (keys.get(b), seq[b as usize]))
    }

    #[test]
    fn least_matches_a_full_scan_through_changes() {
        // Two dies of 96 blocks (groups of 32), keys changed in a fixed pseudo-random order.
        let (per_die, blocks) = (96u32, 192usize);
        let mut keys = GcKeys::new(blocks, per_die);
        let seq: Vec<u64> = (0..blocks as u64).map(|b| (b * 7919) % 1000).collect();
        let mut x = 12345u64;
        for step in 0..20_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let block = ((x >> 33) % blocks as u64) as u32;
            let key = if (x >> 20).is_multiple_of(5) { NO_KEY } else { ((x >> 40) % 50) as u32 };
            keys.set(block, key);
            if step.is_multiple_of(97) {
                keys.check().unwrap();
                for die in 0..2 {
                    let first = die * per_die;
                    assert_eq!(keys.least(first, per_die, 40, |b| seq[b as usize]), scan(&keys, first, per_die, 40, &seq));
                }
            }
        }
        // Reloaded (keys only): the minima are rebuilt the same.
        let mut loaded = GcKeys { keys: keys.keys.clone(), ..GcKeys::default() };
        assert!(!loaded.has_groups());
        loaded.build_groups(per_die);
        loaded.check().unwrap();
        assert_eq!(loaded.group_min, keys.group_min);
        keys.clear_all();
        assert_eq!(keys.least(0, per_die, 40, |b| seq[b as usize]), None);
    }
}
