//! Commits done outside the drive's lock: the records waiting are taken under the lock (with a
//! ticket that fixes their batch's place in the journal), and the slow part, writing the data
//! out, `fdatasync`, the batch, `fdatasync` again, giving back erased blocks' extents, runs
//! after the lock is released, while other requests use the drive. Tickets finish in the order
//! they were taken, so batches reach the journal in order and each commit's syncs cover every
//! commit before it.
//!
//! Before, those syncs ran under the drive's lock: every 4 MiB of records (about a second of
//! 4 KiB random writes) the whole drive stood still for 90 to 400 ms while the kernel wrote the
//! data back (BENCHMARKS.md, issue 24).

use std::sync::{Condvar, Mutex};

/// A journal batch to write: its bytes (with the end marker after it) at this file offset.
pub(crate) struct BatchWrite {
    /// File offset.
    pub at: u64,
    /// The encoded batch and the end-marker page after it.
    pub bytes: Vec<u8>,
}

/// A commit taken under the drive's lock, finished after it ([`Committer::finish`]).
pub(crate) struct CommitJob {
    /// Place in the order of commits.
    pub ticket: u64,
    /// The batch of the records taken (none: only the data is made durable).
    pub batch: Option<BatchWrite>,
    /// Extents of blocks erased by the operations committed, given back once the batch is
    /// durable.
    pub release: Vec<u32>,
}

#[derive(Default)]
struct Turns {
    /// Tickets handed out.
    taken: u64,
    /// Tickets finished (in order).
    done: u64,
    /// Why a commit failed: every later one fails too (the journal would have a gap).
    failed: Option<String>,
}

/// Hands out tickets and lets commits finish in their order.
#[derive(Default)]
pub(crate) struct Committer {
    turns: Mutex<Turns>,
    turn: Condvar,
}

impl Committer {
    fn turns(&self) -> std::sync::MutexGuard<'_, Turns> {
        self.turns.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next ticket (taken under the drive's lock, so tickets follow the journal's order).
    pub fn ticket(&self) -> u64 {
        let mut turns = self.turns();
        turns.taken += 1;
        turns.taken
    }

    /// Why a commit failed, if one did.
    pub fn failure(&self) -> Option<String> {
        self.turns().failed.clone()
    }

    /// Wait until every ticket taken so far has finished (before a checkpoint or a power cut,
    /// under the drive's lock: commits never take it).
    pub fn wait_idle(&self) {
        let mut turns = self.turns();
        while turns.done < turns.taken && turns.failed.is_none() {
            turns = self.turn.wait(turns).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Do `work` for `ticket` once every earlier ticket has finished; a failure stops every
    /// later commit.
    pub fn finish(&self, ticket: u64, work: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
        let mut turns = self.turns();
        while turns.done + 1 < ticket && turns.failed.is_none() {
            turns = self.turn.wait(turns).unwrap_or_else(|p| p.into_inner());
        }
        if let Some(why) = &turns.failed {
            return Err(why.clone());
        }
        drop(turns);
        let result = work();
        let mut turns = self.turns();
        match &result {
            Ok(()) => turns.done = ticket,
            Err(why) => {
                turns.failed.get_or_insert_with(|| why.clone());
            }
        }
        self.turn.notify_all();
        result
    }
}
