//! The bounded fingerprint index of the data-reduction FTL: an open-addressing hash table with
//! linear probing and backward-shift deletion, from 64-bit fingerprint keys to chunk ids.
//!
//! Written by hand rather than taken from a map crate because the FTL prefetches a key's slot
//! before it needs it, and iteration order never matters (lookups only).
//!
//! Each slot holds its key and its chunk id side by side (12 bytes, packed), so the line the
//! prefetch brings in also holds the value an insert writes and a removal compares: with keys
//! and values in two arrays, each of those was a second random miss. Saved as two arrays (keys,
//! values), the format it always had, streamed from and into the table without a copy of it.

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
///
/// Saved as a struct of five fields, `keys` (every slot's key), `values` (every slot's chunk
/// id), `mask`, `len` and `bound`, by hand-written serde code that streams the keys, then the
/// values, straight from and into the table: the table is never copied (a served drive saves it
/// at every checkpoint; going through a copy in two arrays took 24 bytes a slot more while
/// saving).
#[derive(Debug, Clone)]
pub(crate) struct FingerprintIndex {
    slots: Vec<Slot>,
    mask: usize,
    len: usize,
    bound: usize,
}

/// The saved fields, in their order.
const SAVED_FIELDS: &[&str] = &["keys", "values", "mask", "len", "bound"];

/// The keys of a table, serialized as one sequence without copying them.
struct SavedKeys<'a>(&'a [Slot]);

impl serde::Serialize for SavedKeys<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|s| s.key))
    }
}

/// The values of a table, serialized as one sequence without copying them.
struct SavedValues<'a>(&'a [Slot]);

impl serde::Serialize for SavedValues<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|s| s.value))
    }
}

impl serde::Serialize for FingerprintIndex {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("SavedIndex", SAVED_FIELDS.len())?;
        out.serialize_field("keys", &SavedKeys(&self.slots))?;
        out.serialize_field("values", &SavedValues(&self.slots))?;
        out.serialize_field("mask", &self.mask)?;
        out.serialize_field("len", &self.len)?;
        out.serialize_field("bound", &self.bound)?;
        out.end()
    }
}

/// Loads the saved keys into a new table (each slot's value 0 until the values follow).
struct KeysInto;

impl<'de> serde::de::DeserializeSeed<'de> for KeysInto {
    type Value = Vec<Slot>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Vec<Slot>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeysInto {
    type Value = Vec<Slot>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("the fingerprint index's keys")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Slot>, A::Error> {
        // A table has at most 2^33 slots (twice the largest bound, 2^32).
        let n = seq.size_hint().unwrap_or(0).min(1 << 33);
        let mut table = ssdlab_core::memory::huge_vec(Slot { key: EMPTY, value: 0 }, 0, n);
        while let Some(key) = seq.next_element::<u64>()? {
            table.push(Slot { key, value: 0 });
        }
        Ok(table)
    }
}

/// Loads the saved values into the table the keys went into; refuses a count that differs.
struct ValuesInto<'a>(&'a mut [Slot]);

impl<'de> serde::de::DeserializeSeed<'de> for ValuesInto<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ValuesInto<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "the fingerprint index's {} values", self.0.len())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        while let Some(value) = seq.next_element::<u32>()? {
            let Some(slot) = self.0.get_mut(i) else {
                return Err(serde::de::Error::custom(format!("fingerprint index: more values than its {} keys", self.0.len())));
            };
            slot.value = value;
            i += 1;
        }
        if i != self.0.len() {
            return Err(serde::de::Error::custom(format!("fingerprint index: {} keys, {i} values do not fit together", self.0.len())));
        }
        Ok(())
    }
}

/// Reads the saved fields in order (`keys`, `values`, `mask`, `len`, `bound`).
struct IndexVisitor;

impl<'de> serde::de::Visitor<'de> for IndexVisitor {
    type Value = FingerprintIndex;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a saved fingerprint index")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<FingerprintIndex, A::Error> {
        use serde::de::Error;
        let missing = |i: usize| A::Error::invalid_length(i, &"5 fields of a saved fingerprint index");
        let mut slots = seq.next_element_seed(KeysInto)?.ok_or_else(|| missing(0))?;
        seq.next_element_seed(ValuesInto(&mut slots))?.ok_or_else(|| missing(1))?;
        let mask: usize = seq.next_element()?.ok_or_else(|| missing(2))?;
        let len: usize = seq.next_element()?.ok_or_else(|| missing(3))?;
        let bound: usize = seq.next_element()?.ok_or_else(|| missing(4))?;
        let n = slots.len();
        if !n.is_power_of_two() || mask != n - 1 {
            return Err(A::Error::custom(format!("fingerprint index: {n} keys and mask {mask:#x} do not fit together")));
        }
        Ok(FingerprintIndex { slots, mask, len, bound })
    }
}

impl<'de> serde::Deserialize<'de> for FingerprintIndex {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("SavedIndex", SAVED_FIELDS, IndexVisitor)
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
        let slots = Self::slots_for(bound);
        Self { slots: ssdlab_core::memory::huge_vec(Slot { key: EMPTY, value: 0 }, slots, slots), mask: slots - 1, len: 0, bound: bound as usize }
    }

    /// Slots of the table of an index for at most `bound` entries.
    fn slots_for(bound: u64) -> usize {
        (bound.max(8) as usize * 2).next_power_of_two()
    }

    /// Bytes of the table of an index for at most `bound` entries (what [`FingerprintIndex::new`]
    /// allocates).
    pub fn table_bytes(bound: u64) -> u64 {
        (Self::slots_for(bound) * std::mem::size_of::<Slot>()) as u64
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

    /// Start loading the slot where `key` would be, and the line where the slot two after it
    /// starts (so the next slot too, and a home slot that straddles two lines): a 12-byte slot
    /// can straddle two cache lines (2 slots in 16), and a probe that does not stop at its home
    /// slot goes on to the next ones, often on the next line. A prefetch of a line already
    /// being loaded costs next to nothing.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let home = self.home(normalize(key));
        crate::prefetch::prefetch(&self.slots[home]);
        crate::prefetch::prefetch(&self.slots[(home + 2) & self.mask]);
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
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;
    use std::collections::BTreeMap;

    /// The system allocator, counting the bytes each thread holds and the most it held.
    struct Counting;

    thread_local! {
        static HELD: Cell<usize> = const { Cell::new(0) };
        static PEAK: Cell<usize> = const { Cell::new(0) };
    }

    // SAFETY: every call goes to the system allocator unchanged; only thread-local counters
    // (const-initialised, so they never allocate) are updated beside it.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let held = HELD.with(|h| h.get()) + layout.size();
            HELD.with(|h| h.set(held));
            PEAK.with(|p| p.set(p.get().max(held)));
            System.alloc(layout)
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            HELD.with(|h| h.set(h.get().saturating_sub(layout.size())));
            System.dealloc(ptr, layout)
        }
    }

    #[global_allocator]
    static COUNTING: Counting = Counting;

    /// The most bytes this thread held above what it held before, while `f` ran.
    fn peak_extra_bytes<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let before = HELD.with(|h| h.get());
        PEAK.with(|p| p.set(before));
        let out = f();
        (out, PEAK.with(|p| p.get()) - before)
    }

    #[test]
    fn saving_and_loading_never_copy_the_table() {
        let mut index = FingerprintIndex::new(1 << 16);
        for key in 1..=(1u64 << 16) {
            index.insert(key.wrapping_mul(0x2545_F491_4F6C_DD1D), key as u32);
        }
        let table_bytes = index.slots.len() * std::mem::size_of::<Slot>();
        let ((), saving) = peak_extra_bytes(|| bincode::serialize_into(std::io::sink(), &index).unwrap());
        assert!(saving < table_bytes / 16, "saving took {saving} bytes more for a table of {table_bytes}");
        let bytes = bincode::serialize(&index).unwrap();
        let (loaded, loading) = peak_extra_bytes(|| bincode::deserialize::<FingerprintIndex>(&bytes).unwrap());
        // The new table itself, and nothing the size of a second one.
        assert!(loading < table_bytes + table_bytes / 16, "loading took {loading} bytes for a table of {table_bytes}");
        assert_eq!(loaded.len(), index.len());
        assert_eq!(loaded.get(7u64.wrapping_mul(0x2545_F491_4F6C_DD1D)), Some(7));
    }

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
        // Loaded and saved again, the same bytes (every slot, empty ones too, in its place).
        assert_eq!(bincode::serialize(&loaded).unwrap(), old_format);
        // Arrays that do not fit together are refused, not trusted.
        let fewer_values = bincode::serialize(&(vec![0u64; 64], vec![0u32; 63], 63usize, 0usize, 20usize)).unwrap();
        assert!(bincode::deserialize::<FingerprintIndex>(&fewer_values).is_err());
        let more_values = bincode::serialize(&(vec![0u64; 64], vec![0u32; 65], 63usize, 0usize, 20usize)).unwrap();
        assert!(bincode::deserialize::<FingerprintIndex>(&more_values).is_err());
        let bad_mask = bincode::serialize(&(vec![0u64; 64], vec![0u32; 64], 31usize, 0usize, 20usize)).unwrap();
        assert!(bincode::deserialize::<FingerprintIndex>(&bad_mask).is_err());
        let not_power_of_two = bincode::serialize(&(vec![0u64; 48], vec![0u32; 48], 47usize, 0usize, 20usize)).unwrap();
        assert!(bincode::deserialize::<FingerprintIndex>(&not_power_of_two).is_err());
        // Cut short: an error, not a panic.
        assert!(bincode::deserialize::<FingerprintIndex>(&old_format[..old_format.len() - 9]).is_err());
    }
}
