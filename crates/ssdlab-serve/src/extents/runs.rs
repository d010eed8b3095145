//! Runs: data waiting in memory, gathered into aligned units, and written to the file.

use super::{Run, Shared, WriteCounts, OPEN_RUNS, RUN_BYTES, SPARE_RUNS};
use crate::host::{HostFile, DIRECT_ALIGN_BYTES};
use std::sync::atomic::Ordering;

impl Run {
    fn end(&self) -> u64 {
        self.at + self.len as u64
    }

    /// The bytes held.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.buffer[self.start..self.start + self.len]
    }

    /// Room left before the next unit boundary.
    fn room(&self) -> usize {
        RUN_BYTES - (self.end() % RUN_BYTES as u64) as usize
    }
}

/// A run buffer: [`RUN_BYTES`] at an address aligned for direct writes.
fn run_buffer() -> Vec<u8> {
    vec![0u8; RUN_BYTES + DIRECT_ALIGN_BYTES]
}

/// Write `run` to `file`: directly when it is a whole aligned unit and the file allows it,
/// through the page cache otherwise.
pub(super) fn write_run(file: &dyn HostFile, run: &Run, counts: &WriteCounts) -> std::io::Result<()> {
    let bytes = run.bytes();
    if run.len == RUN_BYTES && file.write_direct_at(bytes, run.at)? {
        counts.direct.fetch_add(run.len as u64, Ordering::Relaxed);
        return Ok(());
    }
    file.write_all_at(bytes, run.at)?;
    counts.buffered.fetch_add(run.len as u64, Ordering::Relaxed);
    Ok(())
}

impl Shared {
    /// Append `bytes` at file offset `at` to the run ending there, or start a run. A run's
    /// buffer is allocated once and never grows; a run ends at the next boundary of
    /// [`RUN_BYTES`] in the file (the bytes after it go to the next run), so buffers are all
    /// alike and reused, and a full run is one aligned unit.
    pub(super) fn append(&mut self, mut at: u64, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let i = match self.open.iter().rposition(|r| r.end() == at && r.room() < RUN_BYTES) {
                Some(i) => i,
                None => {
                    if self.open.len() >= OPEN_RUNS {
                        let oldest = self.open.remove(0);
                        self.ready.push(oldest);
                    }
                    let buffer = self.spare.pop().unwrap_or_else(run_buffer);
                    let start = buffer.as_ptr().align_offset(DIRECT_ALIGN_BYTES);
                    self.open.push(Run { at, buffer, start, len: 0 });
                    self.open.len() - 1
                }
            };
            let run = &mut self.open[i];
            let n = run.room().min(bytes.len());
            let from = run.start + run.len;
            run.buffer[from..from + n].copy_from_slice(&bytes[..n]);
            run.len += n;
            let full = run.room() == RUN_BYTES;
            self.waiting_bytes += n;
            self.waiting_peak_bytes = self.waiting_peak_bytes.max(self.waiting_bytes);
            if full {
                let full = self.open.swap_remove(i);
                self.ready.push(full);
            }
            bytes = &bytes[n..];
            at += n as u64;
        }
    }

    /// Take a run off the bytes waiting, and keep its buffer for the next runs (up to
    /// [`SPARE_RUNS`] of them).
    pub(super) fn recycle(&mut self, run: Run) {
        self.waiting_bytes -= run.len;
        if self.spare.len() < SPARE_RUNS {
            self.spare.push(run.buffer);
        }
    }

    /// Write every run waiting, queued or still growing (the caller holds the I/O lock, so no
    /// run is being written elsewhere: the file then holds everything).
    pub(super) fn write_pending(&mut self) -> std::io::Result<()> {
        let mut result = Ok(());
        let runs: Vec<Run> = self.ready.drain(..).chain(self.open.drain(..)).collect();
        for run in runs {
            if result.is_ok() && !self.dead {
                result = write_run(&*self.file, &run, &self.counts);
            }
            self.recycle(run);
        }
        result
    }

    /// Write the runs holding any of the file's bytes `at..at + len` (the caller holds the I/O
    /// lock), so a read of those bytes from the file sees them.
    pub(super) fn write_overlapping(&mut self, at: u64, len: u64) -> std::io::Result<()> {
        let end = at + len;
        let overlaps = |r: &Run| r.at < end && at < r.end();
        if !self.ready.iter().chain(&self.open).any(overlaps) {
            return Ok(());
        }
        let mut result = Ok(());
        for list in [0, 1] {
            let mut i = 0;
            loop {
                let runs = if list == 0 { &mut self.ready } else { &mut self.open };
                if i >= runs.len() {
                    break;
                }
                if !overlaps(&runs[i]) {
                    i += 1;
                    continue;
                }
                // Order among runs does not matter: no two waiting runs share a byte (flash is
                // written once between erases, and an extent is reused only after a commit
                // wrote everything out).
                let run = runs.remove(i);
                if result.is_ok() && !self.dead {
                    result = write_run(&*self.file, &run, &self.counts);
                }
                self.recycle(run);
            }
        }
        result
    }
}
