//! Closed-loop runs: keep `iodepth` commands in flight until the job's limits.
//!
//! This file holds the run's state (`Run`, each job's `Stream`); its methods live in `run/`:
//! `setup.rs` prepares a run, `issue.rs` issues commands (rate limits, held issues, the host's
//! queue), `flow_io.rs` runs fio's flow control, `completion.rs` is the loop of completions
//! (`Run::advance`), `window.rs` the measured window and how jobs end, `verify_io.rs` the verify
//! commands, `accessors.rs` what a run tells its caller, `summary.rs` the finished run's summary
//! (its types in `report.rs`).

use crate::depth_search::DepthSearch;
use crate::drive::{Drive, DriveCounters};
use crate::flushes::{FlushReport, FlushStats, JobFlushes};
use crate::inflight::InFlightQueue;
use crate::job_limits::{JobError, LimitCheck, ETIMEDOUT};
use crate::log_windows::LogWindows;
use crate::lookahead::{ContentFrom, Lookahead, STAGE2_AT, STAGE3_AT};
use crate::metrics::{LatencySummary, Metrics, SeriesRow, Snapshot};
use crate::think::Think;
use crate::verify::{JobVerify, Phase, Recording, VerifyReport};
use serde::Serialize;
use ssdlab_core::time::seconds;
use ssdlab_core::{bail, Nanoseconds, Result};
use ssdlab_ftl::ChunkStats;
use ssdlab_nand::{FlashCounters, SECTOR_BYTES};
use ssdlab_reduce::ContentStream;
use ssdlab_workload::{Io, IoGenerator, JobSpec, Op, SteadyMetric};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

mod accessors;
mod clock_checks;
mod completion;
mod flow;
mod flow_io;
mod issue;
mod job_tally;
mod rate_gate;
mod report;
mod setup;
mod summary;
pub(crate) use summary::reduction_since;
mod verify_io;
mod window;

use clock_checks::{check_rate, check_thinktime};
pub use job_tally::JobFigures;
pub use report::{LatencyTargetReport, MetadataReport, ReductionReport, RunProgress, RunSummary, SteadyReport, WearReport};

/// Most commands a group of jobs keeps in flight together (each job's `iodepth`, its `numjobs`
/// copies and the jobs side by side, summed): what the drive's queue does not hold waits in the
/// host's, one entry each, so the sum bounds the run's memory. fio's per-job limits alone
/// (65,536 x 1,024 copies x every job of a file) would let a job file ask for billions.
pub const MAX_GROUP_IN_FLIGHT: u64 = 1 << 20;

/// Drive state for the per-second series: free blocks, and WA since the given baselines.
pub(crate) fn snapshot_of(drive: &Drive, nand_base: u64, host_write_base: u64) -> Snapshot {
    let f = drive.flash().counters();
    let host = drive.counters().host_write_bytes - host_write_base;
    let nand = f.bytes_programmed_host + f.bytes_programmed_internal - nand_base;
    Snapshot {
        free_blocks: drive.translation().free_blocks_total(),
        write_amplification: if host > 0 { nand as f64 / host as f64 } else { 0.0 },
        thermal: drive.thermal_state(),
    }
}

/// One job of a run: its IO stream and written content.
struct Stream {
    job: JobSpec,
    generator: IoGenerator,
    content: ContentStream,
    /// Commands generated ahead of submission, with content drawn ahead for them.
    lookahead: Lookahead,
    stopped: bool,
    /// Commands issued under the job's rate limit (fio's `rate_iops`/`rate`), and where the
    /// limit counts from.
    rate_issued: u64,
    rate_start_ns: Nanoseconds,
    /// fio's `rate_process=poisson`: the draws for the gaps (seeded from the job's seed) and
    /// the sum of those drawn so far.
    poisson: Option<ssdlab_core::SimRng>,
    poisson_offset_ns: Nanoseconds,
    /// fio's `startdelay` of this job, after the group's earliest start (`Run::delay_ns`).
    delay_ns: Nanoseconds,
    /// Where the job's measured part starts: its own start (after its startdelay) plus its own
    /// `ramp_time`, as fio ramps each job; its runtime counts from here too.
    measure_from_ns: Nanoseconds,
    /// The job's ramp has ended: its completions count (from its first at or after
    /// `measure_from_ns`).
    ramped: bool,
    /// Completions of this job, for fio's `thinktime_blocks`.
    completions: u64,
    /// fio's `latency_target` search of this job, and how many of its commands are held,
    /// queued or in flight (the search bounds them by its depth).
    search: Option<DepthSearch>,
    active: u32,
    /// fio's `verify` of this job: the blocks it wrote, its phase, what its checks found.
    verify: Option<JobVerify>,
    /// fio's `max_latency` and `rate_min`/`rate_iops_min` of this job, and their counts.
    limits: Option<LimitCheck>,
    /// fio's `fsync`, `end_fsync`, `sync` of this job, and where it stands.
    flushes: Option<JobFlushes>,
    /// The job ended in error (fio's `td->error`).
    failed: bool,
    /// The job's own error, when it ended in one.
    error: Option<JobError>,
    /// fio's `thinktime` as fio runs it (the whole job pauses; `think.rs`), for a job without a
    /// rate limit, depth search, verify or flushes (those keep the thinktime per slot).
    think: Option<Think>,
    /// A job whose rate paces one command at a time (a mixed job, or one of several block
    /// sizes; `rate_gate.rs`): its commands are generated as its rate lets them go.
    gate: Option<rate_gate::RateGate>,
    /// The job's own figures, in a group of more than one job (`job_tally.rs`).
    tally: Option<job_tally::JobTally>,
    /// fio's bandwidth and IOPS samples of the job (`bw_min`... `iops_samples`).
    rates: crate::rate_samples::RateSamples,
    /// fio's queue-depth distribution of the job (`iodepth_level`) and its commands outstanding.
    depth: crate::depth_levels::DepthLevels,
}

impl Stream {
    /// Where the job's figures count from: its own measured start, or the group's ramp end
    /// (`ramp_end_ns`) when that is later.
    fn measured_start_ns(&self, ramp_end_ns: Nanoseconds) -> Nanoseconds {
        self.measure_from_ns.max(ramp_end_ns)
    }
}

/// Why an issue is held in the run's pending issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Held {
    /// The issue goes to the host at its time (a rate limit's slot, a flush that blocked it).
    Issue,
    /// The slot is scheduled again at its time, through the job's rate limit (startdelay,
    /// thinktime).
    Schedule,
    /// The command a rate gate held goes at its time; the slots behind it follow.
    GateRelease,
    /// A job that fio's flow control held back with `flow_sleep` tries again.
    FlowRetry,
}

/// Mixed into a job's seed for its Poisson rate process: its own draws, from the job's seed.
const POISSON_SEED: u64 = 0x7261_7465_5f70_6f69;

/// Mixed into a job's seed to draw its `startdelay` from a range.
const STARTDELAY_SEED: u64 = 0x7374_6172_7464_6c79;

/// A closed-loop run of one job, or of a group of jobs side by side sharing the drive's queue
/// (`JobSpec::concurrent`: the other jobs of an fio group and `numjobs` copies), each keeping its
/// own `iodepth` in flight. Commands beyond the drive's queue (`host.queue_depth_max`) wait in
/// the host's queue, as a host's block layer holds them, and are submitted in arrival order as
/// the drive's slots free; their latency counts from their arrival.
pub struct Run {
    job: JobSpec,
    seed: u64,
    streams: Vec<Stream>,
    needs_content: bool,
    reduction_base: Option<ChunkStats>,
    tier_base: Option<ssdlab_ftl::TierStats>,
    metadata_base: Option<ssdlab_ftl::MetadataStats>,
    start_ns: Nanoseconds,
    now_ns: Nanoseconds,
    inflight: InFlightQueue,
    /// The stream of each command in the drive, ordered as `inflight` orders them.
    owners: BinaryHeap<Reverse<(Nanoseconds, u64, usize)>>,
    owner_seq: u64,
    /// Commands the host holds while the drive's queue is full: arrival time, stream, and the
    /// stream's commands outstanding when it was issued (fio's depth of it).
    host_queue: VecDeque<(Nanoseconds, usize, u32)>,
    /// The depth at issue (`depth_levels.rs`) of the command now going from the host's queue
    /// to the drive, taken where it enters the drive.
    sending_depth: Option<u32>,
    host_queued_max: u64,
    /// Issues held back (by a rate limit, or a job's startdelay): time, sequence (ties in
    /// order), stream, and what happens then.
    pending: BinaryHeap<Reverse<(Nanoseconds, u64, usize, Held)>>,
    pending_seq: u64,
    device_depth: usize,
    /// The earliest `startdelay` of the group's jobs: the group starts then (the drive idles
    /// before).
    delay_ns: Nanoseconds,
    /// The group's measured part starts here: the earliest of its jobs' measured starts (each
    /// job's start plus its own `ramp_time`); the drive's figures count from here, a job's own
    /// from its own (`Stream::measure_from_ns`).
    ramp_end_ns: Nanoseconds,
    ramped: bool,
    /// The earliest measured start of a job still in its ramp (`Nanoseconds::MAX`: none).
    next_job_ramp_ns: Nanoseconds,
    busy_base_ns: Nanoseconds,
    steady_samples: Vec<f64>,
    steady_at_ns: Option<Nanoseconds>,
    /// How many of `steady_samples` there were when the rule was met (the window it judged).
    steady_samples_at: Option<usize>,
    started: bool,
    stopped_issuing: bool,
    completed: u64,
    metrics: Metrics,
    /// fio's log windows when `log_avg_msec` is not whole seconds (`None`: the logs come from
    /// the per-second series).
    log_windows: Option<LogWindows>,
    flash_base: FlashCounters,
    drive_base: DriveCounters,
    /// Busy time of the drive's resources when measuring started.
    busy_counters_base: crate::utilization::BusyCounters,
    /// The benchmark host's own time (thinktime) spent after measured completions.
    host_time_ns: Nanoseconds,
    energy_base_nj: f64,
    /// The drive's base (idle and power-state) energy at the start, on drives with power states.
    state_energy_base_nj: Option<f64>,
    last_done_ns: Nanoseconds,
    /// Whether a job of the group has fio's `verify` (the run keeps the host's record).
    verifying: bool,
    /// The flushes of the measured part (`Some` when a job of the group flushes: fio's
    /// `fsync`, `end_fsync`, ...).
    flush_stats: Option<FlushStats>,
    /// A job of the group thinks as fio's `thinktime` does (the whole job pauses).
    thinking: bool,
    /// Content identities of the sectors of the write being submitted (data-reduction drives).
    written_ids: Vec<u64>,
    /// The first job of the group that ended in error (fio's `max_latency`, `rate_min`,
    /// `latency_target` at depth 1); each job keeps its own too (`Stream::error`).
    job_error: Option<JobError>,
    /// fio's flow control between the group's jobs (`Some` when a job has a `flow` weight).
    flows: Option<flow::Flows>,
}
