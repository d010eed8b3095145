//! Full consistency check of the FTL's structures (for tests and debugging; O(capacity)).

use crate::block::BlockState;
use crate::ftl::Ftl;
use crate::UNMAPPED;

impl Ftl {
    /// Recount everything from the maps and compare with the book-keeping.
    ///
    /// Checks: forward and reverse maps agree; every block's valid count equals a recount of its
    /// valid slots; no free block holds valid or written slots; GC keys match valid counts of
    /// closed blocks; the free pools and open blocks agree with block states.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (lba, &slot) in self.l2p.iter().enumerate() {
            if slot != UNMAPPED && self.p2l[slot as usize] != lba as u32 {
                return Err(format!("sector {lba} maps to slot {slot}, whose reverse entry is {}", self.p2l[slot as usize]));
            }
        }
        let mut valid_total = 0u64;
        for (b, block) in self.blocks.iter().enumerate() {
            let first = b * self.slots_per_block as usize;
            let slots = &self.p2l[first..first + self.slots_per_block as usize];
            let mut recount = 0;
            for (i, &lba) in slots.iter().enumerate() {
                if lba == UNMAPPED {
                    continue;
                }
                recount += 1;
                if self.l2p[lba as usize] != (first + i) as u32 {
                    return Err(format!("slot {} claims sector {lba}, which maps to {}", first + i, self.l2p[lba as usize]));
                }
                if i as u32 >= block.written {
                    return Err(format!("slot {} is valid beyond the write pointer of block {b}", first + i));
                }
            }
            if recount != block.valid {
                return Err(format!("block {b}: valid count {} but {recount} valid slots", block.valid));
            }
            if block.state == BlockState::Free && (block.valid != 0 || block.written != 0) {
                return Err(format!("block {b} is free but has {} valid and {} written slots", block.valid, block.written));
            }
            if block.state == BlockState::Victim && self.dies[b / self.blocks_per_die as usize].victim != b as u32 {
                return Err(format!("block {b} is in the victim state but not its die's victim"));
            }
            valid_total += recount as u64;
        }
        if valid_total != self.valid_slots() {
            return Err(format!("valid total {} but recount {valid_total}", self.valid_slots()));
        }
        for (d, die) in self.dies.iter().enumerate() {
            for &b in die.free.iter() {
                if self.blocks[b as usize].state != BlockState::Free {
                    return Err(format!("die {d}: block {b} is in the free pool in state {:?}", self.blocks[b as usize].state));
                }
                if (b / self.blocks_per_die) as usize != d {
                    return Err(format!("die {d}: free pool holds block {b} of another die"));
                }
            }
            let mut closed = 0;
            for b in die.first_block..die.first_block + die.blocks {
                let block = &self.blocks[b as usize];
                let expected = if block.state == BlockState::Closed { block.valid } else { u32::MAX };
                if self.gc_key[b as usize] != expected {
                    return Err(format!("die {d}: block {b} in state {:?} with {} valid has GC key {}", block.state, block.valid, self.gc_key[b as usize]));
                }
                closed += (block.state == BlockState::Closed) as u32;
            }
            if closed != die.closed_count {
                return Err(format!("die {d}: {closed} closed blocks but count {}", die.closed_count));
            }
        }
        Ok(())
    }
}
