//! Full consistency check of the FTL's structures (for tests and debugging; O(capacity)).

use crate::ftl::Ftl;
use crate::UNMAPPED;

impl Ftl {
    /// Recount everything from the maps and compare with the book-keeping.
    ///
    /// Checks: forward and reverse maps agree on every valid slot, and the valid slots are
    /// exactly those mapped; every block's valid count equals a recount of its
    /// valid slots; no free block holds valid or written slots; GC keys match valid counts of
    /// closed blocks; the free pools and open blocks agree with block states.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (lba, &slot) in self.l2p.iter().enumerate() {
            if slot != UNMAPPED && !self.valid.get(slot) {
                return Err(format!("sector {lba} maps to slot {slot}, which is not marked valid"));
            }
            if slot != UNMAPPED && self.p2l[slot as usize] != lba as u32 {
                return Err(format!("sector {lba} maps to slot {slot}, whose reverse entry is {}", self.p2l[slot as usize]));
            }
        }
        let mut valid_total = 0u64;
        for b in 0..self.pool.blocks.len() {
            let first = b * self.slots_per_block as usize;
            let written = self.pool.blocks[b].written as usize;
            for (i, &lba) in self.p2l[first..first + self.slots_per_block as usize].iter().enumerate() {
                if !self.valid.get((first + i) as u32) {
                    continue;
                }
                valid_total += 1;
                if self.l2p[lba as usize] != (first + i) as u32 {
                    return Err(format!("slot {} claims sector {lba}, which maps to {}", first + i, self.l2p[lba as usize]));
                }
                if i >= written {
                    return Err(format!("slot {} is valid beyond the write pointer of block {b}", first + i));
                }
            }
        }
        if valid_total != self.valid_slots() {
            return Err(format!("valid total {} but recount {valid_total}", self.valid_slots()));
        }
        let spb = self.slots_per_block;
        self.pool.check(&|b| {
            let first = b * spb;
            self.valid.count(first, first + spb)
        })?;
        Ok(())
    }
}
