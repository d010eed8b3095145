//! Each job's own figures in a group of jobs run side by side (fio reports every job unless
//! `group_reporting` is set): its commands, bytes and latencies, counted as its commands
//! complete in the measured part. Kept only when a group has more than one job.

use super::*;
use crate::metrics::Latencies;

/// One job's figures in a group of jobs (`RunSummary::each_job`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobFigures {
    /// The job's name (copies of `numjobs` share it, as in fio).
    pub job: String,
    /// The job's access pattern.
    pub rw: String,
    /// The job's own queue depth.
    pub iodepth: u32,
    /// Simulated seconds the job ran, measured: from its own measured start (its start after
    /// its `startdelay`, plus its `ramp_time`) to its end (its last completion, or later where
    /// it was stopped, or waited, past it: fio's `runtime` of the job).
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
    /// The job's own error, if it ended in one (fio's `max_latency`, `rate_min`/`rate_iops_min`,
    /// `latency_target` at depth 1): each job of a group has its own, as in fio's per-job
    /// `"error"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_error: Option<JobError>,
    /// What the job's own `verify` read back and found (jobs with verify).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyReport>,
    /// The job's own flushes (fio's `fsync`, `fdatasync`, `end_fsync`; jobs that flush), as
    /// fio's per-job `sync` entry gives them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flushes: Option<FlushReport>,
    /// The job's bandwidth and IOPS samples (fio's per-job `bw_*`, `iops_*`).
    pub rate_samples: crate::RateSampleReport,
    /// The job's commands sent at each of fio's queue-depth levels (fio's `iodepth_level`).
    pub depth_levels: crate::DepthReport,
}

/// A job's completed commands in the measured part, by kind.
#[derive(Debug, Clone)]
pub(crate) struct JobTally {
    latencies: Latencies,
    bytes: [u64; 3],
    /// Where the job's time ends so far: its last completion, or a later stop or wait.
    end_ns: Nanoseconds,
    /// The job's own measured flushes (`Some` when it flushes).
    pub flushes: Option<FlushStats>,
}

impl JobTally {
    /// A job's tally; `flushes`: whether the job flushes (its flushes are then counted too).
    pub fn new(flushes: bool) -> Self {
        Self { latencies: Latencies::new(), bytes: [0; 3], end_ns: 0, flushes: flushes.then(FlushStats::new) }
    }

    /// Count one completed command.
    pub fn record(&mut self, op: Op, bytes: u64, latency_ns: Nanoseconds, done_ns: Nanoseconds) {
        self.latencies.record(op, latency_ns);
        self.bytes[op.index()] += bytes;
        self.end_ns = self.end_ns.max(done_ns);
    }

    /// Where the job's time ends so far.
    pub fn end_ns(&self) -> Nanoseconds {
        self.end_ns
    }

    /// The job's time runs on to `ns` at least: the end of a think it began, the time its
    /// runtime stopped it, or the end of the wait it was in when another job stopped the group
    /// (fio's job runs until it sees the stop).
    pub fn extend_to(&mut self, ns: Nanoseconds) {
        self.end_ns = self.end_ns.max(ns);
    }

    /// The job's figures; its time runs from `start_ns` (its own measured start) to its end.
    /// Its latencies are figured as the group's are (`Latencies`).
    pub fn figures(&self, job: &JobSpec, start_ns: Nanoseconds) -> JobFigures {
        let l = &self.latencies;
        let (reads, writes, trims) = (l.count(Op::Read), l.count(Op::Write), l.count(Op::Trim));
        let ios = reads + writes + trims;
        let simulated_ns = self.end_ns.saturating_sub(start_ns);
        let sim_s = seconds(simulated_ns).max(1e-12);
        let per_second = |x: f64| if ios > 0 { x / sim_s } else { 0.0 };
        let [read_bytes, write_bytes, trim_bytes] = self.bytes;
        JobFigures {
            job: job.name.clone(),
            rw: job.rw.name().to_string(),
            iodepth: job.iodepth,
            simulated_seconds: seconds(simulated_ns),
            ios,
            reads,
            writes,
            trims,
            iops: per_second(ios as f64),
            host_read_bytes: read_bytes,
            host_write_bytes: write_bytes,
            host_trim_bytes: trim_bytes,
            read_mbps: per_second(read_bytes as f64 / 1e6),
            write_mbps: per_second(write_bytes as f64 / 1e6),
            latency_us: l.all(&job.percentiles.list, job.percentiles.bins),
            read_latency_us: l.of_kind(Op::Read, &job.percentiles.list, job.percentiles.bins),
            write_latency_us: l.of_kind(Op::Write, &job.percentiles.list, job.percentiles.bins),
            trim_latency_us: l.of_kind(Op::Trim, &job.percentiles.list, job.percentiles.bins),
            job_error: None,
            verify: None,
            flushes: self.flushes.as_ref().map(|f| f.report(job.percentiles.bins)),
            rate_samples: crate::RateSampleReport::default(),
            depth_levels: crate::DepthReport::default(),
        }
    }
}
