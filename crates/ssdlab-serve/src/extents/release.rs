//! Giving extents back once a synced commit no longer needs them: kept warm, or punched.

use super::{Extents, NO_EXTENT, WARM_EXTENT_BYTES};
use crate::host::HostFile;
use std::sync::Arc;

fn punch(file: &Arc<dyn HostFile>, offset: u64, len: u64) -> std::io::Result<()> {
    file.punch_hole(offset, len)
}

impl Extents {
    /// After recovery: rebuild the free extents from the table, and give back the room of every
    /// extent no block uses (stale data of operations that did not survive).
    pub fn settle(&self) -> std::io::Result<u32> {
        let _gate = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let mut shared = self.lock();
        Self::rebuild_free(&mut shared);
        let end = shared.layout.extent_offset(shared.table.count);
        if shared.file.len()? < end {
            shared.file.set_len(end)?;
        }
        let free: Vec<u32> = shared.free.iter().map(|r| r.0).collect();
        for &e in &free {
            punch(&shared.file, shared.layout.extent_offset(e), shared.layout.block_bytes)?;
        }
        Ok(free.len() as u32)
    }

    /// Extents waiting for a synced commit before their room is given back.
    pub fn releasing(&self) -> usize {
        self.lock().releasing.len()
    }

    /// Extents of blocks erased since the last call: given back ([`Extents::release_list`])
    /// once the journal that no longer needs them is durable.
    pub fn take_releasing(&self) -> Vec<u32> {
        self.take_releasing_before(u64::MAX)
    }

    /// Extents of blocks erased by operations before sequence number `seq` (those committed).
    pub fn take_releasing_before(&self, seq: u64) -> Vec<u32> {
        let mut shared = self.lock();
        let mut taken = Vec::new();
        shared.releasing.retain(|&(s, e)| {
            if s < seq {
                taken.push(e);
            }
            s >= seq
        });
        taken
    }

    /// Give back the room of every block erased so far (the journal that frees them is
    /// durable).
    pub fn release(&self) -> std::io::Result<()> {
        let releasing = self.take_releasing();
        self.release_list(releasing)
    }

    /// Give back the room of `extents` (the journal that frees them is durable): their holes
    /// punched, then free for reuse. Reads outside the lock are waited for (the gate).
    pub fn release_list(&self, extents: Vec<u32>) -> std::io::Result<()> {
        if extents.is_empty() {
            return Ok(());
        }
        let _gate = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let mut shared = self.lock();
        if shared.dead {
            return Ok(());
        }
        let warm_limit = (WARM_EXTENT_BYTES / shared.layout.block_bytes).max(1) as usize;
        let mut result = Ok(());
        for e in extents {
            if shared.warm.len() < warm_limit {
                shared.warm.push(e);
                continue;
            }
            if result.is_ok() {
                result = punch(&shared.file, shared.layout.extent_offset(e), shared.layout.block_bytes);
            }
            shared.tally.punched += 1;
            // Given back even when the hole could not be punched: the extent is free either way.
            shared.free.push(std::cmp::Reverse(e));
        }
        result
    }

    /// Punch the holes of the warm free extents (a clean stop: the stopped file's allocated
    /// size is what the drive stores).
    pub fn punch_warm(&self) -> std::io::Result<()> {
        let _gate = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let mut shared = self.lock();
        if shared.dead {
            return Ok(());
        }
        let mut result = Ok(());
        while let Some(e) = shared.warm.pop() {
            if result.is_ok() {
                result = punch(&shared.file, shared.layout.extent_offset(e), shared.layout.block_bytes);
            }
            shared.tally.punched += 1;
            shared.free.push(std::cmp::Reverse(e));
        }
        result
    }

    /// Blocks the drive emptied while they were programmed (no valid data left, not erased:
    /// their content can never be read again) give up their extents, as an erase does: each
    /// goes into the operation's extent changes and placement digest, and its room is given
    /// back after the next synced commit (so no journal prefix recovery may replay still points
    /// into it). The block stays programmed in the drive; its erase later has nothing to give
    /// back. Called under the drive's lock at the end of each operation (and of a checkpoint's
    /// flush), with what [`ssdlab_drive::Drive::take_emptied_blocks`] listed.
    pub fn recycle_emptied(&self, blocks: &[u32]) {
        if blocks.is_empty() {
            return;
        }
        let mut shared = self.lock();
        if shared.dead {
            return;
        }
        for &block in blocks {
            shared.placement.emptied(block);
            let Some(slot) = shared.table.map.get_mut(block as usize) else { continue };
            let e = std::mem::replace(slot, NO_EXTENT);
            if e != NO_EXTENT {
                let seq = shared.seq;
                shared.releasing.push((seq, e));
                shared.events.push((block, NO_EXTENT));
                shared.recycled[block as usize] = true;
                shared.tally.recycled += 1;
            }
        }
    }

    /// Extents waiting for release that belong to operations before sequence number `seq`.
    pub fn releasing_before(&self, seq: u64) -> usize {
        self.lock().releasing.iter().filter(|r| r.0 < seq).count()
    }
}
