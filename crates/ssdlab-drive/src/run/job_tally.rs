//! Each job's own figures in a group of jobs run side by side (fio reports every job unless
//! `group_reporting` is set): its commands, bytes and latencies, counted as its commands
//! complete in the measured part. Kept only when a group has more than one job.

use super::*;
use crate::metrics::histogram;
use hdrhistogram::Histogram;
use ssdlab_core::time::NS_PER_S;

/// One job's figures in a group of jobs (`RunSummary::each_job`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobFigures {
    /// The job's name (copies of `numjobs` share it, as in fio).
    pub job: String,
    /// The job's access pattern.
    pub rw: String,
    /// The job's own queue depth.
    pub iodepth: u32,
    /// Simulated seconds from the measured part's start (or the job's later start) to the job's
    /// last completion.
    pub simulated_seconds: f64,
    /// Commands completed.
    pub ios: u64,
    /// Reads completed.
    pub reads: u64,
    /// Writes completed.
    pub writes: u64,
    /// Trims completed.
    pub trims: u64,
    /// Commands per simulated second of the job's own time.
    pub iops: f64,
    /// Bytes read.
    pub host_read_bytes: u64,
    /// Bytes written.
    pub host_write_bytes: u64,
    /// Bytes trimmed.
    pub host_trim_bytes: u64,
    /// Read rate, MB/s of the job's own time.
    pub read_mbps: f64,
    /// Write rate, MB/s of the job's own time.
    pub write_mbps: f64,
    /// Latency of the job's commands, microseconds.
    pub latency_us: Option<LatencySummary>,
    /// Latency of its reads, microseconds.
    pub read_latency_us: Option<LatencySummary>,
    /// Latency of its writes, microseconds.
    pub write_latency_us: Option<LatencySummary>,
    /// Latency of its trims, microseconds.
    pub trim_latency_us: Option<LatencySummary>,
}

/// A job's completed commands in the measured part, by kind.
#[derive(Debug, Clone)]
pub(crate) struct JobTally {
    latency: [Histogram<u64>; 3],
    latency_sum_ns: [u128; 3],
    bytes: [u64; 3],
    last_done_ns: Nanoseconds,
}

impl JobTally {
    pub fn new() -> Self {
        Self { latency: [histogram(), histogram(), histogram()], latency_sum_ns: [0; 3], bytes: [0; 3], last_done_ns: 0 }
    }

    /// Count one completed command.
    pub fn record(&mut self, op: Op, bytes: u64, latency_ns: Nanoseconds, done_ns: Nanoseconds) {
        let k = op.index();
        self.latency[k].saturating_record(latency_ns.clamp(1, 3_600 * NS_PER_S));
        self.latency_sum_ns[k] += latency_ns as u128;
        self.bytes[k] += bytes;
        self.last_done_ns = self.last_done_ns.max(done_ns);
    }

    /// The job's figures; its time runs from `start_ns` (the measured part's start, or the
    /// job's own later start) to its last completion.
    pub fn figures(&self, job: &JobSpec, start_ns: Nanoseconds) -> JobFigures {
        let counts = self.latency.each_ref().map(|h| h.len());
        let ios: u64 = counts.iter().sum();
        let simulated_ns = self.last_done_ns.saturating_sub(start_ns);
        let sim_s = seconds(simulated_ns).max(1e-12);
        let summary = |k: usize| Metrics::summarize(&self.latency[k], self.latency_sum_ns[k] as f64 / counts[k].max(1) as f64);
        let mut all = histogram();
        for h in &self.latency {
            all.add(h).expect("histograms of the same bounds");
        }
        let all_mean = self.latency_sum_ns.iter().sum::<u128>() as f64 / ios.max(1) as f64;
        let (r, w, t) = (Op::Read.index(), Op::Write.index(), Op::Trim.index());
        JobFigures {
            job: job.name.clone(),
            rw: job.rw.name().to_string(),
            iodepth: job.iodepth,
            simulated_seconds: seconds(simulated_ns),
            ios,
            reads: counts[r],
            writes: counts[w],
            trims: counts[t],
            iops: if ios > 0 { ios as f64 / sim_s } else { 0.0 },
            host_read_bytes: self.bytes[r],
            host_write_bytes: self.bytes[w],
            host_trim_bytes: self.bytes[t],
            read_mbps: if ios > 0 { self.bytes[r] as f64 / 1e6 / sim_s } else { 0.0 },
            write_mbps: if ios > 0 { self.bytes[w] as f64 / 1e6 / sim_s } else { 0.0 },
            latency_us: Metrics::summarize(&all, all_mean),
            read_latency_us: summary(r),
            write_latency_us: summary(w),
            trim_latency_us: summary(t),
        }
    }
}
