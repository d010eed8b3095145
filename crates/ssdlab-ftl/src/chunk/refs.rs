//! Chunk ids and reference counts: a free id taken, references added and dropped, chunks freed.

use super::{Chunk, ChunkFtl, META_KEY, REF_MASK, STALE};
use crate::prefetch::prefetch;
use ssdlab_core::{ensure, Result};

/// New chunks ahead of the one being created whose (reused) id's entry is loaded in advance.
const FREE_ID_AHEAD: usize = 8;

impl ChunkFtl {
    /// A free chunk id (reused first).
    pub(super) fn new_chunk_id(&mut self) -> Result<u32> {
        Ok(match self.free_ids.pop() {
            Some(id) => {
                // Start loading the entry of the id taken a few new chunks from now: after a
                // TRIM of many sectors the free list holds their chunks' ids in the order they
                // were dropped, random lines of the table.
                if let Some(&soon) = self.free_ids.len().checked_sub(FREE_ID_AHEAD).and_then(|at| self.free_ids.get(at)) {
                    if let Some(entry) = self.chunks.get(soon as usize) {
                        prefetch(entry);
                    }
                }
                id
            }
            None => {
                let id = self.chunks.len() as u32;
                ensure!(id < STALE, Request, "chunk table full");
                self.chunks.push(Chunk::default());
                if self.config.keep_payloads {
                    self.payload.push(None);
                }
                id
            }
        })
    }

    /// Sectors referencing `chunk` (0: its id is free).
    pub(crate) fn refs(&self, chunk: u32) -> u32 {
        match self.chunks[chunk as usize].refs_field() {
            field if field == self.refs_saturation => self.many_refs[&chunk],
            field => field,
        }
    }

    /// One more sector references the live chunk `chunk`.
    #[inline]
    pub(super) fn add_ref(&mut self, chunk: u32) {
        let saturation = self.refs_saturation;
        let entry = &mut self.chunks[chunk as usize];
        let field = entry.refs_field();
        if field + 1 < saturation {
            entry.set_refs_field(field + 1);
        } else if field + 1 == saturation {
            entry.set_refs_field(saturation);
            self.many_refs.insert(chunk, saturation);
        } else {
            *self.many_refs.get_mut(&chunk).expect("a saturated reference count is kept aside") += 1;
        }
    }

    /// One sector less references `chunk`; whether any still does.
    #[inline]
    fn drop_ref(&mut self, chunk: u32) -> bool {
        let saturation = self.refs_saturation;
        let entry = &mut self.chunks[chunk as usize];
        let field = entry.refs_field();
        debug_assert!(field > 0, "chunk {chunk} released with no reference");
        if field < saturation {
            entry.set_refs_field(field - 1);
            return field > 1;
        }
        let count = self.many_refs.get_mut(&chunk).expect("a saturated reference count is kept aside");
        *count -= 1;
        if *count < saturation {
            let count = *count;
            self.many_refs.remove(&chunk);
            self.chunks[chunk as usize].set_refs_field(count);
        }
        true
    }

    /// Keep reference counts from `saturation` up aside (in a map) rather than in the chunk
    /// entries' 24-bit field, which they reach only past 16.7 million references: tests set a
    /// small value (at least 2) to exercise that path. Call before the first write.
    #[doc(hidden)]
    pub fn saturate_refs_at(&mut self, saturation: u32) {
        assert!((2..=REF_MASK).contains(&saturation), "the saturation value must be 2 to {REF_MASK}");
        assert!(self.live_chunks == 0, "set the saturation value before the first write");
        self.refs_saturation = saturation;
    }

    /// Chunks whose reference count is kept aside (see [`ChunkFtl::saturate_refs_at`]).
    pub fn chunks_with_many_refs(&self) -> usize {
        self.many_refs.len()
    }

    /// Drop one reference; free the chunk (its units become invalid, its index entry goes)
    /// when none is left.
    pub(super) fn release(&mut self, chunk: u32) {
        if let Some(meta) = self.meta.as_mut() {
            if self.chunks[chunk as usize].key != META_KEY {
                meta.touched(self.config.user_sectors + chunk as u64);
            }
        }
        if self.drop_ref(chunk) {
            return;
        }
        let entry = self.chunks[chunk as usize];
        self.pool.sub_valid(self.div.units_per_block.div(entry.addr), entry.len());
        let (key, indexed) = (entry.key, entry.indexed());
        if indexed {
            self.index.remove_if(key, chunk);
        } else {
            debug_assert_ne!(self.index.get(key), Some(chunk), "chunk {chunk} is in the index but not marked indexed");
        }
        if self.config.keep_payloads {
            if let Some(p) = self.payload[chunk as usize].take() {
                self.payload_bytes -= p.len() as u64;
            }
        }
        self.live_chunks -= 1;
        self.free_ids.push(chunk);
    }
}
