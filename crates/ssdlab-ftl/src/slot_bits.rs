//! One bit per physical slot: whether the slot holds the current copy of a logical sector.
//!
//! The page FTL's validity lives here rather than in the reverse map, so that invalidating an
//! overwritten slot clears a bit in a table 32 times smaller than the reverse map (32 MiB
//! against 1 GiB at 1 TiB raw: far more of it stays in the caches and the TLB), and the reverse
//! map is only ever written where data is placed, in order.

/// A fixed-size bit set over the slots of the array.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct SlotBits {
    words: Vec<u64>,
}

impl SlotBits {
    /// `slots` bits, all clear.
    pub fn new(slots: usize) -> Self {
        let words = slots.div_ceil(64);
        Self { words: ssdlab_core::memory::huge_vec(0, words, words) }
    }

    /// Whether the set covers `slots` bits (a state saved before the set existed has none).
    pub fn covers(&self, slots: usize) -> bool {
        self.words.len() == slots.div_ceil(64)
    }

    /// Whether `slot`'s bit is set.
    #[inline]
    pub fn get(&self, slot: u32) -> bool {
        (self.words[(slot >> 6) as usize] >> (slot & 63)) & 1 != 0
    }

    /// Set `slot`'s bit.
    #[inline]
    pub fn set(&mut self, slot: u32) {
        self.words[(slot >> 6) as usize] |= 1 << (slot & 63);
    }

    /// Clear `slot`'s bit.
    #[inline]
    pub fn clear(&mut self, slot: u32) {
        self.words[(slot >> 6) as usize] &= !(1 << (slot & 63));
    }

    /// The word holding `slot`'s bit (for a prefetch).
    #[inline]
    pub fn word_of(&self, slot: u32) -> &u64 {
        &self.words[(slot >> 6) as usize]
    }

    /// Bits set in `first..end`.
    #[inline]
    pub fn count(&self, first: u32, end: u32) -> u32 {
        let mut n = 0;
        let mut at = first;
        while at < end {
            let word = self.words[(at >> 6) as usize];
            let from = at & 63;
            let to = (end - (at & !63)).min(64);
            let mask = if to - from == 64 { u64::MAX } else { ((1u64 << (to - from)) - 1) << from };
            n += (word & mask).count_ones();
            at = (at & !63) + to;
        }
        n
    }

    /// Whether any bit of `first..end` is set.
    pub fn any(&self, first: u32, end: u32) -> bool {
        self.count(first, end) > 0
    }

    /// Clear every bit.
    pub fn clear_all(&mut self) {
        self.words.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::SlotBits;

    #[test]
    fn counts_ranges_across_words() {
        let mut bits = SlotBits::new(200);
        for slot in [0, 5, 63, 64, 100, 127, 128, 199] {
            bits.set(slot);
        }
        assert_eq!(bits.count(0, 200), 8);
        assert_eq!(bits.count(1, 63), 1);
        assert_eq!(bits.count(63, 65), 2);
        assert_eq!(bits.count(64, 128), 3);
        assert_eq!(bits.count(128, 129), 1);
        assert_eq!(bits.count(129, 199), 0);
        bits.clear(64);
        assert!(!bits.get(64) && bits.get(63));
        assert_eq!(bits.count(0, 128), 5);
        assert!(!bits.any(101, 127) && bits.any(0, 1));
        bits.clear_all();
        assert_eq!(bits.count(0, 200), 0);
    }
}
