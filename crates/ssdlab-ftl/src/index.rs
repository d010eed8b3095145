//! The bounded fingerprint index of the data-reduction FTL: an open-addressing hash table with
//! linear probing and backward-shift deletion, from 64-bit fingerprint keys to chunk ids.
//!
//! Written by hand rather than taken from a map crate because the FTL prefetches a key's slot
//! before it needs it, and iteration order never matters (lookups only).
//!
//! Each slot holds its key and its chunk id side by side (12 bytes, packed), so the line the
//! prefetch brings in also holds the value an insert writes and a removal compares: with keys
//! and values in two arrays, each of those was a second random miss. Saved as two arrays (keys,
//! values), the format it always had.

/// Key value marking an empty slot (a real key of 0 is stored as 1).
const EMPTY: u64 = 0;

/// One slot of the table: a key and its chunk id, 4-byte aligned (12 bytes).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
struct Slot {
    key: u64,
    value: u32,
}

/// Fingerprint key -> chunk id, holding at most `bound` entries.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(into = "SavedIndex", try_from = "SavedIndex")]
pub(crate) struct FingerprintIndex {
    slots: Vec<Slot>,
    mask: usize,
    len: usize,
    bound: usize,
}

/// The index as saved: keys and values in two arrays.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedIndex {
    keys: Vec<u64>,
    values: Vec<u32>,
    mask: usize,
    len: usize,
    bound: usize,
}

impl From<FingerprintIndex> for SavedIndex {
    fn from(index: FingerprintIndex) -> Self {
        Self {
            keys: index.slots.iter().map(|s| s.key).collect(),
            values: index.slots.iter().map(|s| s.value).collect(),
            mask: index.mask,
            len: index.len,
            bound: index.bound,
        }
    }
}

impl TryFrom<SavedIndex> for FingerprintIndex {
    type Error = String;

    fn try_from(saved: SavedIndex) -> Result<Self, String> {
        let slots = saved.keys.len();
        if slots != saved.values.len() || !slots.is_power_of_two() || saved.mask != slots - 1 {
            return Err(format!("fingerprint index: {slots} keys, {} values, mask {:#x} do not fit together", saved.values.len(), saved.mask));
        }
        let mut table = ssdlab_core::memory::huge_vec(Slot { key: EMPTY, value: 0 }, 0, slots);
        table.extend(saved.keys.iter().zip(&saved.values).map(|(&key, &value)| Slot { key, value }));
        Ok(Self { slots: table, mask: saved.mask, len: saved.len, bound: saved.bound })
    }
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
        Self { slots: ssdlab_core::memory::huge_vec(Slot { key: EMPTY, value: 0 }, slots, slots), mask: slots - 1, len: 0, bound: bound as usize }
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
        crate::prefetch::prefetch(&self.slots[self.home(normalize(key))]);
    }

    /// The chunk holding `key`, if indexed.
    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        let key = normalize(key);
        let mut i = self.home(key);
        loop {
            let slot = self.slots[i];
            if slot.key == key {
                return Some(slot.value);
            }
            if slot.key == EMPTY {
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
        while self.slots[i].key != EMPTY {
            debug_assert_ne!({ self.slots[i].key }, key);
            i = (i + 1) & self.mask;
        }
        self.slots[i] = Slot { key, value };
        self.len += 1;
    }

    /// Remove `key` if it maps to `value`.
    pub fn remove_if(&mut self, key: u64, value: u32) {
        let key = normalize(key);
        let mut i = self.home(key);
        loop {
            let slot = self.slots[i];
            if slot.key == EMPTY {
                return;
            }
            if slot.key == key {
                if slot.value != value {
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
            let slot = self.slots[j];
            if slot.key == EMPTY {
                break;
            }
            let home = self.home(slot.key);
            // Move j into the hole unless its home lies cyclically in (hole, j].
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.slots[hole] = slot;
                hole = j;
            }
            j = (j + 1) & self.mask;
        }
        self.slots[hole].key = EMPTY;
        self.len -= 1;
    }

    /// Drop everything.
    pub fn clear(&mut self) {
        for slot in &mut self.slots {
            slot.key = EMPTY;
        }
        self.len = 0;
    }

    /// Every entry (for consistency checks only; order is the table's).
    pub fn entries(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.slots.iter().filter(|s| s.key != EMPTY).map(|s| (s.key, s.value))
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

    #[test]
    fn saves_as_two_arrays_and_loads_back() {
        let mut index = FingerprintIndex::new(20);
        for key in 1..=15u64 {
            index.insert(key * 0x1_0000_0001, key as u32 + 100);
        }
        // The bytes of the format the index always had: the keys, then the values.
        let keys: Vec<u64> = index.slots.iter().map(|s| s.key).collect();
        let values: Vec<u32> = index.slots.iter().map(|s| s.value).collect();
        let old_format = bincode::serialize(&(keys, values, index.mask, index.len, index.bound)).unwrap();
        assert_eq!(bincode::serialize(&index).unwrap(), old_format);
        let loaded: FingerprintIndex = bincode::deserialize(&old_format).unwrap();
        for key in 1..=15u64 {
            assert_eq!(loaded.get(key * 0x1_0000_0001), Some(key as u32 + 100));
        }
        assert_eq!(loaded.get(16 * 0x1_0000_0001), None);
        assert_eq!(loaded.len(), 15);
        // Arrays that do not fit together are refused, not trusted.
        let bad = bincode::serialize(&(vec![0u64; 64], vec![0u32; 63], 63usize, 0usize, 20usize)).unwrap();
        assert!(bincode::deserialize::<FingerprintIndex>(&bad).is_err());
    }
}
