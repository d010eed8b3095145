//! fio's flushes in a run (`fsync`, `fdatasync`, `end_fsync`, `fsync_on_close`, `sync`), as
//! FLUSH CACHE commands to the drive (`Drive::flush`: every partly filled unit programmed,
//! padded, and every buffered write on flash before it completes).
//!
//! As fio issues them (read in fio's `io_u.c` `get_rw_ddir` and its libaio engine): after every
//! `fsync`-th write issued, with a write the last command issued, the job's next command is a
//! flush; fio's fsync is a synchronous call, so the job issues nothing else until it returns
//! (its commands already in flight complete meanwhile), and the flush's latency is its own
//! figure (fio's `sync` latency), not a read's or a write's. `end_fsync` flushes once the
//! job's last command has completed, and the job's runtime ends when that flush does. `sync=1`
//! (O_SYNC) makes each write complete only once a flush issued at its completion has (the
//! kernel's write followed by a flush, on a drive without FUA): that time is in the write's own
//! latency, as fio measures it.

use crate::latency_moments::LatencyMoments;
use crate::metrics::{histogram, LatencySummary, Metrics};
use hdrhistogram::Histogram;
use serde::Serialize;
use ssdlab_core::time::NS_PER_S;
use ssdlab_core::Nanoseconds;
use ssdlab_workload::{Flushes, Op};

/// One job's flushes: what it asked for and where it stands.
#[derive(Debug, Clone)]
pub(crate) struct JobFlushes {
    pub asked: Flushes,
    writes_issued: u64,
    last_was_write: bool,
    last_was_sync: bool,
    /// The job waits in a flush until then (fio's fsync blocks the job's thread).
    pub blocked_until_ns: Nanoseconds,
    /// The job's commands in the drive (for the flush at its end).
    pub in_flight: u32,
    ended: bool,
}

impl JobFlushes {
    pub(crate) fn new(asked: Flushes) -> Option<Self> {
        asked.any().then_some(JobFlushes {
            asked,
            writes_issued: 0,
            last_was_write: false,
            last_was_sync: false,
            blocked_until_ns: 0,
            in_flight: 0,
            ended: false,
        })
    }

    /// A command of the job went to the drive.
    pub(crate) fn issued(&mut self, op: Op) {
        self.in_flight += 1;
        self.last_was_sync = false;
        self.last_was_write = op == Op::Write;
        if self.last_was_write {
            self.writes_issued += 1;
        }
    }

    /// Whether the job's last command was a flush (fio's `last_was_sync`).
    pub(crate) fn last_was_sync(&self) -> bool {
        self.last_was_sync
    }

    /// The ramp ended: fio counts the writes issued from zero again.
    pub(crate) fn restart_count(&mut self) {
        self.writes_issued = 0;
    }

    /// Whether the job's next command is a flush.
    pub(crate) fn due(&self) -> bool {
        self.last_was_write && self.asked.due_after(self.writes_issued)
    }

    /// A flush of the job completes at `done_ns`; the job waits for it.
    pub(crate) fn flushed(&mut self, done_ns: Nanoseconds) {
        self.last_was_write = false;
        self.last_was_sync = true;
        self.blocked_until_ns = done_ns;
    }

    /// Whether the job's flush at its end is due: it issues no more and has nothing in the
    /// drive (the caller checks the host's queue).
    pub(crate) fn end_due(&self, stopped: bool) -> bool {
        stopped && self.asked.at_end() && self.in_flight == 0 && !self.ended
    }

    pub(crate) fn ended(&mut self) {
        self.ended = true;
    }
}

/// The flushes of a run's measured part: how many and how long each took.
#[derive(Debug, Clone)]
pub(crate) struct FlushStats {
    latencies: Histogram<u64>,
    /// The flushes' exact moments (the histogram's are its buckets').
    moments: LatencyMoments,
    end_flushes: u64,
}

impl FlushStats {
    pub(crate) fn new() -> Self {
        FlushStats { latencies: histogram(), moments: LatencyMoments::default(), end_flushes: 0 }
    }

    /// A job's flush at its end (fio's `end_fsync`) completed: counted apart, as fio leaves it
    /// out of its sync figures.
    pub(crate) fn record_end(&mut self) {
        self.end_flushes += 1;
    }

    pub(crate) fn record(&mut self, latency_ns: Nanoseconds) {
        self.latencies.saturating_record(latency_ns.clamp(1, 3_600 * NS_PER_S));
        self.moments.record(latency_ns);
    }

    /// The flushes' figures (with fio's buckets of their latencies when `bins`).
    pub(crate) fn report(&self, bins: bool) -> FlushReport {
        let n = self.latencies.len();
        FlushReport {
            flushes: n,
            end_flushes: self.end_flushes,
            // (fio's default percentiles: the flushes are the group's, not one job's.)
            latency_us: Metrics::summarize(&self.latencies, &self.moments, &ssdlab_workload::FIO_DEFAULT_PERCENTILES, bins),
        }
    }
}

/// The flushes a run's jobs issued (fio's `fsync`, `fdatasync`, `end_fsync`,
/// `fsync_on_close`), measured part only: fio's `sync` figures.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlushReport {
    /// Flushes completed (fio's `fsync=N`, `fdatasync=N`: its sync count).
    pub flushes: u64,
    /// Flushes at a job's end (fio's `end_fsync`, `fsync_on_close`), not in fio's sync figures.
    pub end_flushes: u64,
    /// Their latency, from the job's call to the drive's completion.
    pub latency_us: Option<LatencySummary>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_flush_is_the_one_measured_not_its_histogram_bucket() {
        let mut stats = FlushStats::new();
        stats.record(2_000);
        stats.record(1_234_567);
        assert_ne!(stats.latencies.max(), 1_234_567, "the value must be one the histogram rounds");
        assert_eq!(stats.report(false).latency_us.unwrap().max, 1_234.567);
    }

    #[test]
    fn a_flush_follows_every_nth_write_and_only_after_a_write() {
        let mut f = JobFlushes::new(Flushes { fsync_every: 2, ..Default::default() }).unwrap();
        f.issued(Op::Write);
        assert!(!f.due());
        f.issued(Op::Write);
        assert!(f.due());
        f.flushed(10);
        assert!(!f.due(), "one flush per count");
        f.issued(Op::Read);
        f.issued(Op::Read);
        assert!(!f.due());
        f.issued(Op::Write);
        f.issued(Op::Write);
        assert!(f.due());
        assert!(JobFlushes::new(Flushes::default()).is_none());
    }

    #[test]
    fn the_flush_at_the_end_waits_for_the_jobs_commands() {
        let mut f = JobFlushes::new(Flushes { end_fsync: true, ..Default::default() }).unwrap();
        f.issued(Op::Write);
        assert!(!f.end_due(true));
        f.in_flight -= 1;
        assert!(!f.end_due(false) && f.end_due(true));
        f.ended();
        assert!(!f.end_due(true));
    }
}
