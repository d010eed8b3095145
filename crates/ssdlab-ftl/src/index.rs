//! The bounded fingerprint index of the data-reduction FTL: an open-addressing hash table with
//! linear probing and backward-shift deletion, from 64-bit fingerprint keys to chunk ids.
//!
//! Written by hand rather than taken from a map crate because the FTL prefetches a key's slot
//! before it needs it, and iteration order never matters (lookups only).

/// Key value marking an empty slot (a real key of 0 is stored as 1).
const EMPTY: u64 = 0;

/// Fingerprint key -> chunk id, holding at most `bound` entries.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct FingerprintIndex {
    keys: Vec<u64>,
    values: Vec<u32>,
    mask: usize,
    len: usize,
    bound: usize,
}

#[inline]
fn normalize(key: u64) -> u64 {
    if key == EMPTY {
        1
    } else {
        key
    }
}

impl FingerprintIndex {
    /// An empty index for at most `bound` entries (the table is at least twice that).
    pub fn new(bound: u64) -> Self {
        let slots = (bound.max(8) as usize * 2).next_power_of_two();
        Self {
            keys: ssdlab_core::memory::huge_vec(EMPTY, slots, slots),
            values: ssdlab_core::memory::huge_vec(0, slots, slots),
            mask: slots - 1,
            len: 0,
            bound: bound as usize,
        }
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        // Keys are hash values; mix once more so low bits are well spread.
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as usize & self.mask
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no more entries may be added.
    pub fn is_full(&self) -> bool {
        self.len >= self.bound
    }

    /// Start loading the slot where `key` would be.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        crate::prefetch::prefetch(&self.keys[self.home(normalize(key))]);
    }

    /// The chunk holding `key`, if indexed.
    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        let key = normalize(key);
        let mut i = self.home(key);
        loop {
            let k = self.keys[i];
            if k == key {
                return Some(self.values[i]);
            }
            if k == EMPTY {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Add `key -> value` (the key must be absent and the index not full).
    pub fn insert(&mut self, key: u64, value: u32) {
        debug_assert!(!self.is_full());
        let key = normalize(key);
        let mut i = self.home(key);
        while self.keys[i] != EMPTY {
            debug_assert_ne!(self.keys[i], key);
            i = (i + 1) & self.mask;
        }
        self.keys[i] = key;
        self.values[i] = value;
        self.len += 1;
    }

    /// Remove `key` if it maps to `value`.
    pub fn remove_if(&mut self, key: u64, value: u32) {
        let key = normalize(key);
        let mut i = self.home(key);
        loop {
            let k = self.keys[i];
            if k == EMPTY {
                return;
            }
            if k == key {
                if self.values[i] != value {
                    return;
                }
                break;
            }
            i = (i + 1) & self.mask;
        }
        // Backward-shift deletion keeps every probe chain unbroken without tombstones.
        let mut hole = i;
        let mut j = (i + 1) & self.mask;
        loop {
            let k = self.keys[j];
            if k == EMPTY {
                break;
            }
            let home = self.home(k);
            // Move j into the hole unless its home lies cyclically in (hole, j].
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.keys[hole] = k;
                self.values[hole] = self.values[j];
                hole = j;
            }
            j = (j + 1) & self.mask;
        }
        self.keys[hole] = EMPTY;
        self.len -= 1;
    }

    /// Drop everything.
    pub fn clear(&mut self) {
        self.keys.fill(EMPTY);
        self.len = 0;
    }

    /// Every entry (for consistency checks only; order is the table's).
    pub fn entries(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.keys.iter().zip(self.values.iter()).filter(|(k, _)| **k != EMPTY).map(|(k, v)| (*k, *v))
    }

    /// The key as stored (for comparing with a chunk's key in checks).
    pub fn stored_key(key: u64) -> u64 {
        normalize(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_core::SimRng;
    use std::collections::BTreeMap;

    #[test]
    fn agrees_with_a_map_under_random_inserts_and_removes() {
        let mut rng = SimRng::new(3);
        let mut index = FingerprintIndex::new(300);
        let mut reference = BTreeMap::new();
        for step in 0..200_000u32 {
            // Few distinct keys with clustered homes, so chains collide and wrap (never 0, which
            // the table stores as 1).
            let key = rng.below(600) * 0x1_0000_0000 + rng.below(3) + 1;
            if rng.below(2) == 0 {
                if !reference.contains_key(&key) && !index.is_full() {
                    index.insert(key, step);
                    reference.insert(key, step);
                }
            } else if let Some(&v) = reference.get(&key) {
                index.remove_if(key, v);
                reference.remove(&key);
            }
            if step % 1000 == 0 {
                assert_eq!(index.len(), reference.len());
                for (&k, &v) in &reference {
                    assert_eq!(index.get(k), Some(v), "step {step}");
                }
            }
            assert_eq!(index.get(key), reference.get(&key).copied());
        }
    }
}
