//! Full consistency check of the data-reduction FTL (tests and debugging; O(capacity)).

use crate::chunk::{ChunkFtl, ZERO};
use crate::index::FingerprintIndex;
use crate::UNMAPPED;
use std::collections::BTreeMap;

impl ChunkFtl {
    /// Recount everything and compare with the book-keeping.
    ///
    /// Checks: every chunk's reference count equals the number of sectors mapping to it; freed
    /// chunks are referenced by nobody; live chunks lie inside written parts of non-free blocks,
    /// never overlap, and appear in their block's log; per-block valid units equal the live
    /// chunks' units; every index entry points at a live chunk with that key, and a live chunk
    /// is marked indexed exactly when the index holds it.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut counted = vec![0u32; self.chunks.len()];
        for (lba, &chunk) in self.l2p.iter().enumerate() {
            if chunk == UNMAPPED || chunk == ZERO {
                continue;
            }
            if chunk & crate::chunk::STALE != 0 {
                // A stale pointer holds no reference; its id must still be in the table.
                if (chunk & !crate::chunk::STALE) as usize >= counted.len() {
                    return Err(format!("sector {lba} keeps a stale pointer to chunk {} beyond the table", chunk & !crate::chunk::STALE));
                }
                continue;
            }
            if chunk as usize >= counted.len() {
                return Err(format!("sector {lba} maps to chunk {chunk} beyond the table"));
            }
            counted[chunk as usize] += 1;
        }
        let units_per_block = self.pool.capacity;
        let mut per_block: BTreeMap<u32, Vec<(u32, u32, u32)>> = BTreeMap::new();
        let mut live = 0u64;
        for (chunk, (entry, &count)) in self.chunks.iter().zip(counted.iter()).enumerate() {
            let refs = self.refs(chunk as u32);
            if refs != count {
                return Err(format!("chunk {chunk}: reference count {refs} but {count} sectors map to it"));
            }
            if refs == 0 {
                continue;
            }
            live += 1;
            if entry.indexed() != (self.index.get(entry.key) == Some(chunk as u32)) {
                return Err(format!("chunk {chunk}: marked indexed {} but the index says otherwise", entry.indexed()));
            }
            let addr = self.chunks[chunk].addr;
            let len = self.chunks[chunk].len();
            let block = addr / units_per_block;
            let offset = addr % units_per_block;
            if offset + len > units_per_block {
                return Err(format!("chunk {chunk} crosses the end of block {block}"));
            }
            if offset + len > self.pool.blocks[block as usize].written {
                return Err(format!("chunk {chunk} lies beyond the write pointer of block {block}"));
            }
            if !self.block_log[block as usize].contains(&(chunk as u32)) {
                return Err(format!("chunk {chunk} is missing from the log of block {block}"));
            }
            per_block.entry(block).or_default().push((offset, len, chunk as u32));
        }
        for (&chunk, &count) in &self.many_refs {
            if self.chunks.get(chunk as usize).map(|c| c.refs_field()) != Some(self.refs_saturation) || count < self.refs_saturation {
                return Err(format!("chunk {chunk}: a count of {count} kept aside, but its entry's field is not saturated"));
            }
        }
        if live != self.live_chunks() {
            return Err(format!("{live} live chunks counted, {} recorded", self.live_chunks()));
        }
        for (block, chunks) in per_block.iter_mut() {
            chunks.sort();
            for pair in chunks.windows(2) {
                if pair[0].0 + pair[0].1 > pair[1].0 {
                    return Err(format!("block {block}: chunks {} and {} overlap", pair[0].2, pair[1].2));
                }
            }
        }
        self.pool.check(&|b| per_block.get(&b).map(|c| c.iter().map(|x| x.1).sum()).unwrap_or(0))?;
        for (key, chunk) in self.index.entries() {
            if !self.chunks.get(chunk as usize).is_some_and(|c| c.live()) {
                return Err(format!("index entry {key:#x} points at freed chunk {chunk}"));
            }
            if FingerprintIndex::stored_key(self.chunks[chunk as usize].key) != key {
                return Err(format!("index entry {key:#x} points at chunk {chunk} with key {:#x}", self.chunks[chunk as usize].key));
            }
        }
        if self.index.len() as u64 > self.config().dedup_index_entries {
            return Err(format!("index holds {} entries, more than its bound", self.index.len()));
        }
        Ok(())
    }
}
