//! fio's `verify` in a run: each job with verify records the blocks it writes (fio's
//! `log_io_piece`: kept by offset, a later overlapping write replacing the older entry), then
//! after its write phase reads each one back once, in ascending offset order, and checks it; a
//! read-only job with verify checks each block as it reads it. A block passes when every
//! sector's content identity, found through the drive's map, is the one the host last wrote
//! there with a verify header ([`crate::ExpectedIds`]).

use crate::drive::{Drive, SectorSpan};
use serde::Serialize;
use ssdlab_ftl::content_id_of;
use ssdlab_reduce::{ContentSource, SectorContent};
use ssdlab_workload::{Io, Op, RwKind, Verify};
use std::collections::BTreeMap;

/// Where a job with verify is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Its own commands (writes, or reads checked as they go).
    Working,
    /// Its writes are done; the verify phase starts once the last of them completes.
    Draining,
    /// Reading back the blocks it wrote.
    Reading,
    /// Finished.
    Done,
}

/// The verify state of one job of a run.
#[derive(Debug)]
pub(crate) struct JobVerify {
    spec: Verify,
    /// fio's list of blocks written (offset -> length), for the verify phase.
    written: BTreeMap<u64, u64>,
    /// Whether the job runs a verify phase after writing (it writes, with `do_verify`).
    has_phase: bool,
    /// Whether the job checks its own reads as it goes (a read-only job with `do_verify`).
    checks_reads: bool,
    pub phase: Phase,
    /// Backlog verifies still due before the next write (fio's `verify_batch`).
    backlog_left: u64,
    /// Whether the job's last command was a write (fio's `last_ddir`).
    last_was_write: bool,
    /// The job's commands submitted and not completed.
    pub outstanding: u32,
    pub counts: VerifyCounts,
}

/// What a job's checks found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct VerifyCounts {
    pub blocks: u64,
    pub bytes: u64,
    pub failures: u64,
    pub first_failure_offset: Option<u64>,
    pub phase_ran: bool,
    pub stopped_at_failure: bool,
}

impl JobVerify {
    /// The verify state of a job with `spec` and direction `rw`.
    pub fn new(spec: &Verify, rw: RwKind) -> Self {
        Self {
            has_phase: spec.do_verify && rw.writes(),
            checks_reads: spec.do_verify && !rw.writes() && rw.reads(),
            spec: spec.clone(),
            written: BTreeMap::new(),
            phase: Phase::Working,
            backlog_left: 0,
            last_was_write: false,
            outstanding: 0,
            counts: VerifyCounts::default(),
        }
    }

    /// Whether the job's writes are over and it has a verify phase to run.
    pub fn has_phase(&self) -> bool {
        self.has_phase
    }

    /// The job wrote `len` bytes at `offset`: the block goes into the list for the verify
    /// phase, replacing the blocks it overlaps (fio's rb-tree of io pieces).
    pub fn wrote(&mut self, offset: u64, len: u64) {
        if !self.has_phase {
            return;
        }
        self.last_was_write = true;
        let end = offset + len;
        let overlapping: Vec<u64> = self.written.range(..end).rev().take_while(|(&start, &l)| start + l > offset).map(|(&start, _)| start).collect();
        for start in overlapping {
            self.written.remove(&start);
        }
        self.written.insert(offset, len);
    }

    /// fio's `verify_backlog`, asked before each command of the write phase (`check_get_verify`
    /// in io_u.c): a block to verify now instead of writing, lowest offset first. A trigger
    /// comes when the list holds a multiple of `verify_backlog` blocks and the last command was
    /// a write; it verifies one block, then `verify_backlog_batch` (or `verify_backlog`) more.
    pub fn backlog_block(&mut self) -> Option<(u64, u64)> {
        let backlog = self.spec.backlog;
        if backlog == 0 || !self.has_phase || self.written.is_empty() {
            return None;
        }
        if self.backlog_left > 0 {
            self.backlog_left -= 1;
        } else if (self.written.len() as u64).is_multiple_of(backlog) && self.last_was_write {
            self.backlog_left = if self.spec.backlog_batch > 0 { self.spec.backlog_batch } else { backlog };
        } else {
            return None;
        }
        self.last_was_write = false;
        self.written.pop_first()
    }

    /// The next block of the verify phase (lowest offset first), or `None` when all were read.
    pub fn next_block(&mut self) -> Option<(u64, u64)> {
        self.written.pop_first()
    }

    /// Share of the job done, for progress, given the share of its writes issued: its verify
    /// phase counts as half (`None` for a job without one).
    pub fn share_done(&self, writes_share: f64) -> Option<f64> {
        if !self.has_phase {
            return None;
        }
        Some(match self.phase {
            Phase::Working | Phase::Draining => writes_share * 0.5,
            Phase::Reading => 0.5 + 0.5 * self.counts.blocks as f64 / (self.counts.blocks + self.written.len() as u64).max(1) as f64,
            Phase::Done => 1.0,
        })
    }

    /// Whether a read of the job's own workload is checked as it goes.
    pub fn checks_reads(&self) -> bool {
        self.checks_reads
    }

    /// Check the block `io` reads against what the host last wrote there. Returns whether it
    /// failed (`verify=null` never does).
    pub fn check(&mut self, drive: &Drive, io: &Io) -> bool {
        self.counts.blocks += 1;
        self.counts.bytes += io.len_bytes;
        if !self.spec.checks() {
            return false;
        }
        let span = SectorSpan::of(io);
        let record = drive.verify_record();
        let failed = (span.first..=span.last).any(|lba| {
            let expected = record.map_or(0, |r| r.get(lba));
            expected == 0 || expected != drive.content_id(lba)
        });
        if failed {
            self.counts.failures += 1;
            self.counts.first_failure_offset.get_or_insert(io.offset_bytes);
            if self.spec.fatal {
                self.counts.stopped_at_failure = true;
            }
        }
        failed
    }

    /// The job's method.
    pub fn method(&self) -> &str {
        &self.spec.method
    }
}

/// Record in the drive's host record what a write of the run put in its sectors: the content
/// identities (`ids`, one per sector) for a job with verify, nothing valid for one without.
pub(crate) fn record_write(drive: &mut Drive, io: &Io, ids: Option<&[u64]>) {
    debug_assert_eq!(io.op, Op::Write);
    let span = SectorSpan::of(io);
    let Some(record) = drive.verify_record_mut() else { return };
    match ids {
        Some(ids) => {
            for (lba, &id) in (span.first..=span.last).zip(ids) {
                record.set(lba, id);
            }
        }
        None => (span.first..=span.last).for_each(|lba| record.clear(lba)),
    }
}

/// A content source that notes the identity of every sector it hands out (data-reduction
/// drives: the host's own record of what it wrote).
pub(crate) struct Recording<'a, C> {
    pub inner: &'a mut C,
    pub ids: &'a mut Vec<u64>,
}

impl<C: ContentSource> ContentSource for Recording<'_, C> {
    fn next_content(&mut self) -> SectorContent {
        let content = self.inner.next_content();
        self.ids.push(content_id_of(&content));
        content
    }
}

/// What fio's `verify` found over the jobs of a group that have it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct VerifyReport {
    /// The method (the first such job's: `crc32c`, `md5`, `meta`, `null`, ...).
    pub method: String,
    /// Jobs with verify.
    pub jobs: u32,
    /// Whether a writing job's verify phase ran (a job whose write phase ended at its runtime
    /// has none, as in fio).
    pub phase_ran: bool,
    /// Whether any job reads its blocks back (fio's `do_verify`, 1 unless set to 0): with
    /// `do_verify=0` blocks are written with verify headers and not read back.
    pub do_verify: bool,
    /// Blocks read back and checked (the verify phase's reads, and a read-only job's reads).
    pub blocks_verified: u64,
    /// Bytes of those blocks.
    pub bytes_verified: u64,
    /// Blocks that failed (a sector not holding what the host last wrote there with a verify
    /// header: other data, never written, trimmed, or written by a job without verify).
    pub failures: u64,
    /// Offset of the first block that failed, bytes.
    pub first_failure_offset: Option<u64>,
    /// Whether a job stopped at its first failure (fio's `verify_fatal`).
    pub stopped_at_failure: bool,
}

impl VerifyReport {
    /// The report over the jobs' verify states (in job order); `None` when no job has verify.
    pub(crate) fn of<'a>(jobs: impl Iterator<Item = &'a JobVerify>) -> Option<Self> {
        let mut report: Option<Self> = None;
        for job in jobs {
            let c = &job.counts;
            let r = report.get_or_insert_with(|| Self {
                method: job.method().to_string(),
                jobs: 0,
                phase_ran: false,
                do_verify: false,
                blocks_verified: 0,
                bytes_verified: 0,
                failures: 0,
                first_failure_offset: None,
                stopped_at_failure: false,
            });
            r.jobs += 1;
            r.phase_ran |= c.phase_ran;
            r.do_verify |= job.spec.do_verify;
            r.blocks_verified += c.blocks;
            r.bytes_verified += c.bytes;
            r.failures += c.failures;
            if r.first_failure_offset.is_none() {
                r.first_failure_offset = c.first_failure_offset;
            }
            r.stopped_at_failure |= c.stopped_at_failure;
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Verify {
        Verify { method: "crc32c".into(), do_verify: true, fatal: false, pattern: None, backlog: 0, backlog_batch: 0 }
    }

    #[test]
    fn a_backlog_trigger_verifies_one_block_then_its_batch_lowest_offsets_first() {
        let mut v = JobVerify::new(&Verify { backlog: 4, backlog_batch: 2, ..spec() }, RwKind::Write);
        let mut reads = Vec::new();
        for i in 0..8u64 {
            while let Some((offset, _)) = v.backlog_block() {
                reads.push((i, offset / 4096));
            }
            v.wrote(i * 4096, 4096);
        }
        // Before the 5th write the list holds 4: blocks 0, 1, 2 are verified (one, then a batch
        // of 2); the list then holds 1 (block 3), and 4 again before the 8th write: 3, 4, 5.
        assert_eq!(reads, vec![(4, 0), (4, 1), (4, 2), (7, 3), (7, 4), (7, 5)]);
        assert_eq!(std::iter::from_fn(|| v.next_block()).map(|(o, _)| o / 4096).collect::<Vec<_>>(), vec![6, 7]);
    }

    #[test]
    fn a_later_overlapping_write_replaces_the_blocks_it_overlaps_and_blocks_come_back_in_offset_order() {
        let mut v = JobVerify::new(&spec(), RwKind::RandWrite);
        v.wrote(8192, 4096);
        v.wrote(0, 4096);
        v.wrote(16384, 8192);
        v.wrote(4096, 4096); // touches neither neighbour
        v.wrote(2048, 8192); // overlaps 0, 4096 and 8192 (ends at 10240)
        v.wrote(20480, 4096); // overlaps 16384..24576
        let blocks: Vec<_> = std::iter::from_fn(|| v.next_block()).collect();
        assert_eq!(blocks, vec![(2048, 8192), (20480, 4096)]);
    }

    #[test]
    fn only_writers_with_do_verify_keep_a_list_and_only_read_only_jobs_check_their_reads() {
        let mut off = spec();
        off.do_verify = false;
        let mut v = JobVerify::new(&off, RwKind::Write);
        v.wrote(0, 4096);
        assert!(!v.has_phase() && v.next_block().is_none() && !v.checks_reads());
        assert!(JobVerify::new(&spec(), RwKind::Read).checks_reads());
        assert!(!JobVerify::new(&spec(), RwKind::RandRw).checks_reads());
        assert!(JobVerify::new(&spec(), RwKind::RandRw).has_phase());
    }
}
