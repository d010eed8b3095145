//! What a run reports: its summary and the reports in it, and its progress.

use super::*;

/// How far a run has got.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunProgress {
    /// Simulated time since the run started.
    pub simulated_ns: Nanoseconds,
    /// Commands completed.
    pub completed_ios: u64,
    /// Estimated fraction done, 0 to 1.
    pub fraction: f64,
    /// Whether the run has finished.
    pub done: bool,
}

/// Program/erase cycle summary.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WearReport {
    /// Fewest cycles of any block.
    pub min: u32,
    /// Mean cycles.
    pub mean: f64,
    /// Most cycles of any block.
    pub max: u32,
}

/// What the data-reduction engine did during a run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReductionReport {
    /// Host bytes of sectors that were neither zeros nor duplicates (stored as new chunks).
    pub bytes_after_dedup: u64,
    /// Bytes of those chunks after compression (before rounding to ECC units).
    pub bytes_after_compression: u64,
    /// Bytes of ECC units written for new chunks.
    pub bytes_stored: u64,
    /// Host bytes written / bytes stored for them (above 1 means the engine saved flash).
    pub data_reduction_ratio: Option<f64>,
    /// Share of written sectors that matched an existing chunk.
    pub dedup_hit_rate: Option<f64>,
    /// Share of written sectors that were all zeros.
    pub zero_sector_rate: Option<f64>,
    /// New chunks left out of the full dedup index.
    pub index_full_skips: u64,
    /// Chunks copied by garbage collection.
    pub gc_chunks_moved: u64,
}

/// Everything a run reports.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunSummary {
    /// Job name.
    pub job: String,
    /// fio `rw` kind.
    pub rw: String,
    /// Commands kept in flight.
    pub iodepth: u32,
    /// Seed of the workload's random choices.
    pub seed: u64,
    /// Simulated time from the first submission to the last completion.
    pub simulated_seconds: f64,
    /// Wall-clock time spent simulating.
    pub wall_seconds: f64,
    /// Commands completed.
    pub ios: u64,
    /// Read commands completed.
    pub reads: u64,
    /// Write commands completed.
    pub writes: u64,
    /// TRIM commands completed.
    pub trims: u64,
    /// Commands per simulated second.
    pub iops: f64,
    /// Read MB/s (10^6 bytes per simulated second).
    pub read_mbps: f64,
    /// Write MB/s (10^6 bytes per simulated second).
    pub write_mbps: f64,
    /// Bytes read by the host.
    pub host_read_bytes: u64,
    /// Bytes written by the host.
    pub host_write_bytes: u64,
    /// Bytes trimmed by the host.
    pub host_trim_bytes: u64,
    /// Bytes programmed into NAND (host and GC).
    pub nand_write_bytes: u64,
    /// Bytes programmed into NAND for host data (including padding).
    pub nand_write_bytes_host: u64,
    /// Bytes programmed into NAND by garbage collection.
    pub nand_write_bytes_gc: u64,
    /// Bytes read from NAND (host and GC).
    pub nand_read_bytes: u64,
    /// Page reads.
    pub nand_page_reads: u64,
    /// Page programs.
    pub nand_page_programs: u64,
    /// Block erases (per plane).
    pub nand_block_erases: u64,
    /// NAND bytes programmed / host bytes written (`None` when nothing was written).
    pub write_amplification: Option<f64>,
    /// Latency of all commands, microseconds.
    pub latency_us: Option<LatencySummary>,
    /// Latency of reads, microseconds.
    pub read_latency_us: Option<LatencySummary>,
    /// Latency of writes, microseconds.
    pub write_latency_us: Option<LatencySummary>,
    /// Latency of trims, microseconds.
    pub trim_latency_us: Option<LatencySummary>,
    /// Time with at least one command outstanding.
    pub busy_seconds: f64,
    /// Energy of the drive over the run, joules.
    pub energy_joules: f64,
    /// Mean power over the run, watts.
    pub mean_power_watts: f64,
    /// Wear at the end of the run.
    pub wear: WearReport,
    /// Free blocks at the end of the run.
    pub free_blocks: u64,
    /// The data pattern written.
    pub data_pattern: String,
    /// NAND senses per 4 KiB sector read (chunk fragmentation; `None` without reads).
    pub nand_reads_per_read_sector: Option<f64>,
    /// Map pages read from flash because the controller's map cache lacked them.
    pub map_page_reads: u64,
    /// Data-reduction figures (drives with the engine only).
    pub reduction: Option<ReductionReport>,
    /// Whether the per-second series stopped at its row limit (the summary covers the whole run).
    pub series_truncated: bool,
    /// Jobs run side by side (the job, the jobs of its group and `numjobs` copies).
    pub jobs_in_group: u32,
    /// Each job's own figures, in the group's order, when the group has more than one (fio
    /// reports every job unless `group_reporting` is set); empty for a single job.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub each_job: Vec<JobFigures>,
    /// Most commands the host held because the drive's queue was full (iodepth above it).
    pub host_queued_max: u64,
    /// Commands per second the group's rate limits allow (fio's `rate_iops`/`rate`, summed over
    /// its jobs), when every job of the group has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_iops_limit: Option<f64>,
    /// Bytes read from sectors nobody wrote (or trimmed): answered from the map, no NAND read
    /// (the read bytes times the share of 4 KiB sectors read that were unmapped).
    pub unmapped_read_bytes: u64,
    /// Simulated seconds of `ramp_time` run before measuring (from the group's first start to
    /// its earliest job's measured start; not in any figure above).
    pub ramp_seconds: f64,
    /// Simulated second (from the measured start) at which fio's steady-state rule was met and
    /// the jobs stopped; `None` when not asked for or not reached.
    pub steady_state_seconds: Option<f64>,
    /// fio's steady-state check (jobs with `steadystate`, once a window was full): the window
    /// it judged and what it measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyReport>,
    /// Write amplification by tier (drives with an SLC cache only; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiers: Option<crate::tiers::TierReport>,
    /// How busy each resource was over the run, and the busiest (what bounds the run).
    pub utilization: crate::utilization::Utilization,
    /// Firmware metadata written to flash over the run (when the profile models it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<MetadataReport>,
    /// What fio's `latency_target` search found (groups with a job that has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_target: Option<LatencyTargetReport>,
    /// What fio's `verify` read back and found (groups with a job that has verify). The verify
    /// reads are in the read figures above, as fio counts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyReport>,
    /// The first job of the group that ended in error, if one did (fio's `max_latency`,
    /// `rate_min`/`rate_iops_min`, or `latency_target` failing at depth 1); the figures cover
    /// the run up to where every job stopped. Each job's own is in `each_job` (groups of
    /// several jobs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_error: Option<JobError>,
    /// The flushes the group's jobs issued in the measured part (fio's `fsync`, `fdatasync`,
    /// `end_fsync`, `fsync_on_close`; groups with such a job): fio's `sync` figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flushes: Option<FlushReport>,
    /// The group's bandwidth and IOPS samples (fio's `bw_*`, `iops_*`): a lone job's own, or
    /// its jobs' added up as fio's `group_reporting` adds them (extremes and means summed).
    pub rate_samples: crate::RateSampleReport,
    /// The group's commands sent at each of fio's queue-depth levels (fio's `iodepth_level`):
    /// a lone job's own, or its jobs' added up.
    pub depth_levels: crate::DepthReport,
}

/// What fio's `latency_target` search found, over the jobs of the group that have a target.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LatencyTargetReport {
    /// The target, microseconds (the first such job's).
    pub target_us: f64,
    /// The window each depth was tried for, milliseconds.
    pub window_ms: f64,
    /// Share of a window's commands that had to meet the target, percent.
    pub percentile: f64,
    /// The depth each job ended at, summed over the jobs with a target (fio's `latency_depth`).
    pub depth: u64,
    /// Jobs with a target.
    pub jobs: u32,
    /// Whether every such job found its depth and met the target over its final window (else
    /// the run ended, by its runtime or size, while a job was still searching).
    pub settled: bool,
    /// Latency of a command late at depth 1 that ended its job (fio's error "latency of N nsec
    /// exceeds specified max"), microseconds, if one did.
    pub failed_at_depth_1_us: Option<f64>,
}

/// Firmware metadata (map pages and journal) written to flash over a run: part of
/// `nand_write_bytes_host` (it goes out through the host stream), reported apart.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MetadataReport {
    /// Bytes of journal and map-page sectors programmed.
    pub write_bytes: u64,
    /// Of those, journal sectors.
    pub journal_write_bytes: u64,
    /// Of those, map pages written back at checkpoints.
    pub map_write_bytes: u64,
    /// Map pages read before their write-back (controllers whose map lives in flash).
    pub map_pages_read: u64,
    /// Checkpoints taken.
    pub checkpoints: u64,
    /// Journal records appended (map changes).
    pub journal_records: u64,
    /// Metadata bytes programmed per host byte written (`None` when nothing was written).
    pub wa_metadata: Option<f64>,
}

impl MetadataReport {
    /// The metadata written between `base` and the drive's counters now.
    pub fn since(base: Option<ssdlab_ftl::MetadataStats>, drive: &Drive, host_write_bytes: u64) -> Option<Self> {
        let now = drive.translation().metadata_stats()?;
        let base = base.unwrap_or_default();
        let journal = (now.journal_sectors_written - base.journal_sectors_written) * SECTOR_BYTES;
        let map = (now.map_sectors_written - base.map_sectors_written) * SECTOR_BYTES;
        Some(Self {
            write_bytes: journal + map,
            journal_write_bytes: journal,
            map_write_bytes: map,
            map_pages_read: now.map_pages_read - base.map_pages_read,
            checkpoints: now.checkpoints - base.checkpoints,
            journal_records: now.journal_records - base.journal_records,
            wa_metadata: (host_write_bytes > 0).then(|| (journal + map) as f64 / host_write_bytes as f64),
        })
    }
}

/// fio's steady-state check of a run (`steadystate=iops:10%` and the others): the window the
/// rule judged (when it was met, else the last full one) and what it measured there, as fio's
/// JSON `steadystate` entry gives it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SteadyReport {
    /// The metric watched: `iops`, `bw` or `lat`.
    pub metric: &'static str,
    /// Whether the rule is on the slope (`*_slope`) rather than the deviation.
    pub slope_rule: bool,
    /// The limit as given: a fraction of the mean when `percent`, else in the metric's unit
    /// (IOPS, MB/s, microseconds).
    pub limit: f64,
    /// Whether the limit is a share of the window's mean.
    pub percent: bool,
    /// The window's length, seconds (`ss_dur`).
    pub duration_seconds: f64,
    /// Whether the rule was met (the jobs then stopped).
    pub attained: bool,
    /// What the rule compared with the limit: the slope's size or the largest deviation, as a
    /// fraction of the mean when `percent`.
    pub criterion: f64,
    /// The largest distance of a sample from the window's mean, in the metric's unit.
    pub max_deviation: f64,
    /// The least-squares slope of the samples, in the metric's unit per sample.
    pub slope: f64,
    /// The window's IOPS samples (one per check interval).
    pub iops: Vec<f64>,
    /// The window's bandwidth samples, bytes per second.
    pub bw_bytes_per_s: Vec<f64>,
}
