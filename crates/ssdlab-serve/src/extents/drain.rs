//! Draining: requests and commits writing the waiting runs out to the file, and syncing it.

use super::runs::write_run;
use super::{Extents, Run, Shared, DRAIN_RUNS};

impl Extents {
    /// Write the runs waiting (called by a request after it left the drive's lock, so the copy
    /// into the file does not hold up other requests' simulation). Through the page cache one
    /// request drains at a time, taking every run queued, and a request that finds another
    /// draining leaves its runs to it (the drainer goes on until the queue is empty); direct
    /// writes drain in several requests at once, each taking a few runs (disjoint bytes; the
    /// I/O lock shared), so they reach the disk several at once.
    pub fn drain(&self) -> std::io::Result<()> {
        if self.parallel_drains {
            return self.drain_runs(DRAIN_RUNS);
        }
        loop {
            let drainer = match self.drainer.try_lock() {
                Ok(guard) => guard,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => return Ok(()),
            };
            self.drain_runs(usize::MAX)?;
            drop(drainer);
            // A run queued by a request that found this one draining, after its last look at
            // the queue, is still there: drain again (a request queuing later finds no drainer).
            if self.lock().ready.is_empty() {
                return Ok(());
            }
        }
    }

    /// Write the runs waiting, waiting for a request draining now to finish first (a write
    /// that found more data waiting than [`WAITING_LIMIT_BYTES`](super::WAITING_LIMIT_BYTES)).
    pub(super) fn drain_waiting(&self) -> std::io::Result<()> {
        if self.parallel_drains {
            return self.drain_runs(DRAIN_RUNS);
        }
        let _drainer = self.drainer.lock().unwrap_or_else(|p| p.into_inner());
        self.drain_runs(usize::MAX)
    }

    /// Write queued runs, at most `batch` at a time, until none is queued.
    fn drain_runs(&self, batch: usize) -> std::io::Result<()> {
        let _io = self.io.read().unwrap_or_else(|p| p.into_inner());
        loop {
            let runs: Vec<Run> = {
                let mut shared = self.lock();
                if shared.ready.is_empty() || shared.dead {
                    return Ok(());
                }
                let n = shared.ready.len().min(batch);
                shared.ready.drain(..n).collect()
            };
            self.write_and_recycle(runs)?;
        }
    }

    /// Write out what is pending (ordering: data before the records that point at it). The
    /// runs are written with only the I/O lock held, so the drive may keep storing data
    /// meanwhile (a commit outside the drive's lock calls this).
    pub fn write_out(&self) -> std::io::Result<()> {
        let _io = self.io.write().unwrap_or_else(|p| p.into_inner());
        let runs: Vec<Run> = {
            let mut shared = self.lock();
            if shared.dead {
                return Ok(());
            }
            let Shared { ready, open, .. } = &mut *shared;
            ready.drain(..).chain(open.drain(..)).collect()
        };
        self.write_and_recycle(runs)
    }

    /// Write `runs` to the file in order (stopping at the first error), then give every run's
    /// buffer back to the pool, written or not; the caller holds the I/O lock.
    fn write_and_recycle(&self, runs: Vec<Run>) -> std::io::Result<()> {
        let mut result = Ok(());
        for run in &runs {
            if result.is_ok() {
                result = write_run(&*self.file, run, &self.counts);
            }
        }
        let mut shared = self.lock();
        for run in runs {
            shared.recycle(run);
        }
        result
    }

    /// Make everything written out so far durable (`fdatasync`; the file's journal and
    /// checkpoints too).
    pub fn sync_file(&self) -> std::io::Result<()> {
        if self.lock().dead {
            return Ok(());
        }
        self.file.sync_data()
    }
}
