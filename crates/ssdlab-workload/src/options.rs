//! fio options: one job's settings and how each `key=value` changes them.

use crate::catalogue::{is_fio_default, no_effect_reason, not_simulated_reason};
use crate::limits::{GivenLimits, JobLimits};
use ssdlab_core::units::{parse_size_bytes_with, parse_time_ns, KbBase, TimeUnit};
use ssdlab_core::{Error, Nanoseconds, Result};
use ssdlab_reduce::{DataPattern, PatternKind};

/// Most commands one job keeps in flight (fio's own limit).
pub const MAX_IODEPTH: u32 = 65_536;
/// Most copies `numjobs` makes of one job.
pub const MAX_NUMJOBS: u32 = 1024;
/// Most block sizes a `bsrange` expands to (multiples of its smallest size).
const MAX_BSRANGE_SIZES: u64 = 65_536;

/// The `rw=` kinds supported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RwKind {
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Random reads.
    RandRead,
    /// Random writes.
    RandWrite,
    /// Random mixed reads and writes (`rwmixread` percent reads).
    RandRw,
    /// Sequential mixed reads and writes.
    ReadWrite,
    /// Sequential TRIM.
    Trim,
    /// Random TRIM.
    RandTrim,
    /// fio's `trimwrite`: each block trimmed, then written (sequential).
    TrimWrite,
    /// fio's `randtrimwrite`: each block trimmed, then written (random offsets).
    RandTrimWrite,
}

/// Every `rw=` value accepted, for help texts.
pub const RW_VALUES: &str = "read, write, randread, randwrite, rw (readwrite), randrw, trim, randtrim, trimwrite, randtrimwrite";

impl RwKind {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "read" => Self::Read,
            "write" => Self::Write,
            "randread" => Self::RandRead,
            "randwrite" => Self::RandWrite,
            "randrw" => Self::RandRw,
            "rw" | "readwrite" => Self::ReadWrite,
            "trim" => Self::Trim,
            "randtrim" => Self::RandTrim,
            "trimwrite" => Self::TrimWrite,
            "randtrimwrite" => Self::RandTrimWrite,
            _ => return None,
        })
    }

    /// fio's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::RandRead => "randread",
            Self::RandWrite => "randwrite",
            Self::RandRw => "randrw",
            Self::ReadWrite => "rw",
            Self::Trim => "trim",
            Self::RandTrim => "randtrim",
            Self::TrimWrite => "trimwrite",
            Self::RandTrimWrite => "randtrimwrite",
        }
    }

    /// Whether offsets are drawn at random.
    pub fn is_random(self) -> bool {
        matches!(self, Self::RandRead | Self::RandWrite | Self::RandRw | Self::RandTrim | Self::RandTrimWrite)
    }

    /// Whether each block is trimmed, then written (fio's `trimwrite`, `randtrimwrite`).
    pub fn trims_then_writes(self) -> bool {
        matches!(self, Self::TrimWrite | Self::RandTrimWrite)
    }

    /// Whether the job reads (alone or mixed with writes).
    pub fn reads(self) -> bool {
        matches!(self, Self::Read | Self::RandRead | Self::RandRw | Self::ReadWrite)
    }

    /// Whether the job writes (alone or mixed with reads).
    pub fn writes(self) -> bool {
        matches!(self, Self::Write | Self::RandWrite | Self::RandRw | Self::ReadWrite | Self::TrimWrite | Self::RandTrimWrite)
    }

    /// Whether the job trims (alone or before writing each block).
    pub fn trims(self) -> bool {
        matches!(self, Self::Trim | Self::RandTrim | Self::TrimWrite | Self::RandTrimWrite)
    }
}

/// fio's verify methods (`verify=`); `0` and `none` turn verify off.
pub const VERIFY_METHODS: &[&str] = &[
    "md5",
    "crc64",
    "crc32c",
    "crc32c-intel",
    "crc32",
    "crc16",
    "crc7",
    "xxhash",
    "sha512",
    "sha256",
    "sha1",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "meta",
    "pattern",
    "null",
];

/// fio's `verify` of a job: its writes carry a header naming their block, and the blocks are
/// read back and checked (a writing job after its write phase, a read-only job as it reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verify {
    /// The method (`crc32c`, `md5`, `meta`, `pattern`, ...): every one checks the same content
    /// identity in a simulation; `null` reads back without checking.
    pub method: String,
    /// fio's `do_verify` (default 1): run the verify phase after writing, or check reads.
    pub do_verify: bool,
    /// fio's `verify_fatal`: stop the job at its first failed block.
    pub fatal: bool,
    /// fio's `verify_pattern`, as given: the write buffers hold that pattern (compressible).
    pub pattern: Option<String>,
    /// fio's `verify_backlog`: while writing, verify blocks once every this many are logged (0:
    /// only after the writes).
    pub backlog: u64,
    /// fio's `verify_backlog_batch`: blocks verified per backlog trigger after the first (0:
    /// `backlog`).
    pub backlog_batch: u64,
}

impl Verify {
    /// Whether blocks read back are checked (every method but `null`).
    pub fn checks(&self) -> bool {
        self.method != "null"
    }
}

/// One zone of `random_distribution=zoned`/`zoned_abs`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Zone {
    /// Share of the accesses, percent.
    pub access_percent: u32,
    /// Extent of the zone: percent of the span (`zoned`) or bytes (`zoned_abs`).
    pub extent: ZoneExtent,
}

/// How big a zone is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ZoneExtent {
    /// Percent of the span.
    Percent(f64),
    /// Bytes.
    Bytes(u64),
}

/// Block sizes with their weights: `(bytes, weight)` each.
pub type BlockSizes = Vec<(u64, u32)>;

/// fio's strided zones (`zonemode=strided`, or `zonesize` alone): the job works in one zone
/// of `range_bytes` until it has moved `size_bytes` there, then moves on by the zone and
/// `skip_bytes`, from the span's start again past its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedZones {
    /// Bytes moved in a zone before the next (`zonesize`).
    pub size_bytes: u64,
    /// Length of a zone (`zonerange`; `zonesize` when not given).
    pub range_bytes: u64,
    /// Bytes skipped after a zone (`zoneskip`).
    pub skip_bytes: u64,
}

/// How random offsets are distributed.
#[derive(Debug, Clone, PartialEq)]
pub enum Distribution {
    /// Uniform over the span.
    Uniform,
    /// Zipf with exponent `theta` over the blocks of the span.
    Zipf(f64),
    /// fio's Pareto with parameter `h` (0 < h < 1) over the blocks of the span: rank
    /// `(blocks - 1) * U^(ln h / ln(1 - h))`, scattered as Zipf's ranks are.
    Pareto(f64),
    /// Zones in order from the span's start, each drawn uniformly, chosen by access share.
    Zoned(Vec<Zone>),
}

/// A size given in bytes or as a percentage of the device's usable capacity (`size=10%`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Extent {
    /// Bytes.
    Bytes(u64),
    /// Percent of the usable capacity.
    Percent(f64),
}

/// What fio's steady-state detection (`steadystate=`/`ss=`) watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SteadyMetric {
    /// Commands per second.
    Iops,
    /// Bytes per second.
    Bandwidth,
    /// Mean completion latency.
    Latency,
}

/// fio's steady-state termination: stop once the metric, sampled every second over the last
/// `duration`, stays within `limit` (maximum deviation from the mean, or the least-squares
/// slope), after `ramp` from the start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadyState {
    /// The metric watched.
    pub metric: SteadyMetric,
    /// Whether the criterion is the slope (`*_slope`) rather than the deviation.
    pub slope: bool,
    /// The limit: a fraction of the window's mean when `percent`, else in the metric's unit.
    pub limit: f64,
    /// Whether `limit` is a fraction of the mean.
    pub percent: bool,
    /// Window length.
    pub duration_ns: Nanoseconds,
    /// Time from the start before samples are kept.
    pub ramp_ns: Nanoseconds,
    /// Length of one sample (`steadystate_check_interval`, default 1 s): the window holds
    /// `duration / interval` samples, each the mean over its interval.
    pub interval_ns: Nanoseconds,
}

/// fio's `write_bw_log`, `write_lat_log`, `write_iops_log` settings of a job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogSettings {
    /// Prefix of the bandwidth log.
    pub bw: Option<String>,
    /// Prefix of the latency logs.
    pub lat: Option<String>,
    /// Prefix of the IOPS log.
    pub iops: Option<String>,
    /// Averaging window, milliseconds (`log_avg_msec`; 0 = fio's per-IO logging).
    pub avg_msec: u64,
}

/// fio's `rate_iops` or `rate` of a job: each direction it issues is paced to its own value
/// (fio's `rate_bps[ddir]`), by the bytes it has issued in that direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimit {
    /// The option as given, for reports: `("rate_iops", "1000")`.
    pub given: (String, String),
    /// Each direction's pacing (reads, writes, trims); `None`: that direction is not limited
    /// (or the job does not issue it).
    pub directions: [Option<DirectionRate>; 3],
    /// The one direction the job issues, when it issues one direction of one block size: its
    /// k-th command (from 0) may go at `k * ns_times_per / per` after its start, whatever the
    /// earlier ones did, so each slot is paced as it frees (`None`: the run paces the job one
    /// command at a time, as fio's loop does, choosing each command's direction by its rates).
    pub uniform: Option<usize>,
    /// fio's `rate_process=poisson`: exponential gaps of the same mean, drawn from the job's seed.
    pub poisson: bool,
    /// The directions the job issues (reads, writes, trims): a mixed job with `rwmixread=100`
    /// issues no writes.
    pub issued: [bool; 3],
}

/// The pacing of one direction of a job (fio's `rate_bps[ddir]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectionRate {
    /// Bytes per second the direction may move: `rate`, or `rate_iops` times the direction's
    /// smallest block size (fio 3.33 paces a job of several block sizes by bytes, so
    /// `rate_iops` counts commands of the smallest size).
    pub bytes_per_second: u64,
    /// Simulated ns per command of the smallest size, times `per`: the spacing of a job of one
    /// block size (and the mean gap of `rate_process=poisson`).
    pub ns_times_per: u128,
    /// Denominator of the spacing (commands per second for `rate_iops`, bytes per second for
    /// `rate`).
    pub per: u64,
}

impl DirectionRate {
    /// Earliest issue time of the direction's next command, ns after the job's start, once
    /// `bytes_before` bytes went in that direction (fio's linear `usec_for_io`).
    pub fn offset_for_bytes_ns(&self, bytes_before: u64) -> u128 {
        bytes_before as u128 * 1_000_000_000 / self.bytes_per_second as u128
    }

    /// Mean gap between commands, ns (of the smallest block size).
    pub fn mean_gap_ns(&self) -> f64 {
        self.ns_times_per as f64 / self.per as f64
    }

    /// Commands of the smallest block size per second.
    pub fn commands_per_second(&self) -> f64 {
        self.per as f64 * 1e9 / self.ns_times_per as f64
    }
}

/// fio's token-based flow control (`flow`, `flow_id`, `flow_sleep`; fio's `flow.c`): the jobs
/// of one `flow_id` issue in proportion to their weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// fio's `flow_id`: jobs with the same id share one counter (default 0).
    pub id: u32,
    /// fio's `flow`: the job's weight, 1 to 1000 (0, fio's default, takes the job out of flow
    /// control).
    pub weight: u32,
    /// fio's `flow_sleep`: once held back, the job waits for its commands in flight, then
    /// sleeps this long before it tries again (0: it tries again as soon as another job of its
    /// flow has issued).
    pub sleep_ns: Nanoseconds,
}

impl RateLimit {
    /// Commands per second the limit allows, summed over the directions the job issues, when
    /// each of them is limited (commands of the smallest block size: a job of several sizes
    /// issues fewer, as fio's byte pacing does).
    pub fn commands_per_second(&self) -> Option<f64> {
        let mut sum = 0.0;
        for (direction, issued) in self.directions.iter().zip(self.issued) {
            if issued {
                sum += direction.as_ref()?.commands_per_second();
            }
        }
        Some(sum)
    }

    /// The uniform job's pacing (see [`RateLimit::uniform`]).
    pub fn uniform_rate(&self) -> Option<&DirectionRate> {
        self.directions[self.uniform?].as_ref()
    }

    /// Earliest issue time of the `k`-th command (from 0) of a uniform job, ns after the job's
    /// start (linear); `None` for a job paced one command at a time.
    pub fn linear_offset_ns(&self, k: u64) -> Option<u128> {
        self.uniform_rate().map(|r| k as u128 * r.ns_times_per / r.per as u128)
    }
}

/// The flushes a job asks of the drive, as fio's options give them (on a block device
/// `fsync` and `fdatasync` are the same FLUSH CACHE command, and so are `end_fsync` and
/// `fsync_on_close` at the job's end).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flushes {
    /// fio's `fsync=N`: a flush after every N writes issued (0: none).
    pub fsync_every: u64,
    /// fio's `fdatasync=N`: the same.
    pub fdatasync_every: u64,
    /// fio's `end_fsync`: a flush once the job's last write has completed.
    pub end_fsync: bool,
    /// fio's `fsync_on_close`: the same, when fio closes the file at the job's end.
    pub fsync_on_close: bool,
    /// fio's `sync=1` (O_SYNC, or `dsync`: O_DSYNC): each write completes only once it is on
    /// flash (the kernel's write followed by a flush, on a drive without FUA).
    pub sync_writes: bool,
}

impl Flushes {
    /// Whether the job flushes at all.
    pub fn any(&self) -> bool {
        self.fsync_every > 0 || self.fdatasync_every > 0 || self.at_end() || self.sync_writes
    }

    /// Whether the job flushes once at its end.
    pub fn at_end(&self) -> bool {
        self.end_fsync || self.fsync_on_close
    }

    /// Whether the next command, after `writes_issued` writes with a write last, is a flush
    /// (fio's `get_rw_ddir`: every `fsync`-th or `fdatasync`-th write is followed by one).
    pub fn due_after(&self, writes_issued: u64) -> bool {
        writes_issued > 0
            && ((self.fsync_every > 0 && writes_issued.is_multiple_of(self.fsync_every))
                || (self.fdatasync_every > 0 && writes_issued.is_multiple_of(self.fdatasync_every)))
    }
}

/// fio's `latency_target` of a job: fio searches for the largest queue depth (up to `iodepth`)
/// at which `percentile`% of the commands of each `window` complete within `target`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyTarget {
    /// Latency a command must meet (fio's `latency_target`; a bare number is microseconds).
    pub target_ns: Nanoseconds,
    /// Simulated time each queue depth is tried for (fio's `latency_window`; a bare number is
    /// microseconds; 0: decided at every completion).
    pub window_ns: Nanoseconds,
    /// Share of a window's commands that must meet the target, percent (fio's
    /// `latency_percentile`, default 100: one late command lowers the depth at once).
    pub percentile: f64,
}

/// One validated job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Job name (section name of a job file, or `cli`).
    pub name: String,
    /// Access kind.
    pub rw: RwKind,
    /// Bytes skipped (negative: stepped back) after each sequential IO (`rw=read:8k`), or for
    /// random kinds the IOs issued sequentially before a new random offset (`rw=randread:4`).
    pub rw_step: i64,
    /// Block sizes with their weights (one entry for `bs=`).
    pub block_sizes: Vec<(u64, u32)>,
    /// Commands kept in flight (closed loop); above the drive's queue the host holds the rest.
    pub iodepth: u32,
    /// Start of the span, bytes (`None` when `offset_percent` says).
    pub offset_bytes: u64,
    /// Start of the span as a percentage of the usable capacity (`offset=25%`).
    pub offset_percent: Option<f64>,
    /// Length of the span, bytes (`None`: to the end of the usable space, or `size_percent`).
    pub size_bytes: Option<u64>,
    /// Length of the span as a percentage of the usable capacity (`size=10%`).
    pub size_percent: Option<f64>,
    /// fio's `filesize` (the job's file, hence its span), settled by `finish`: with `size`
    /// also given, `size` is then how many bytes the job moves in that file, as fio's.
    filesize: Option<Extent>,
    /// Bytes to transfer before stopping (`None`: the span's size times `loops`, as fio does).
    pub io_size_bytes: Option<u64>,
    /// Bytes to transfer as a percentage of the span (`io_size=50%`, as fio: of `size`).
    pub io_size_percent: Option<f64>,
    /// Passes over the span (`loops`).
    pub loops: u64,
    /// Simulated run-time limit (after `ramp_time`).
    pub runtime_ns: Option<Nanoseconds>,
    /// Simulated time run before anything is measured (`ramp_time`).
    pub ramp_ns: Nanoseconds,
    /// fio's `thinktime`: the job waits this long after each completion before issuing the next
    /// command in its place (the host's own time per command: its storage stack and the
    /// benchmark program).
    pub thinktime_ns: Nanoseconds,
    /// fio's `thinktime_blocks`: the thinktime comes after every this many completions of the
    /// job (fio's default `thinktime_blocks_type=complete`), not after each.
    pub thinktime_blocks: u64,
    /// `thinktime_blocks` was given (fio: with `thinktime_iotime` alone, only the time counts).
    pub thinktime_blocks_given: bool,
    /// fio's `thinktime_iotime`: the job thinks once it has done this much IO time since its
    /// last think (0: not asked).
    pub thinktime_iotime_ns: Nanoseconds,
    /// ssdlab's own `host_time`: the benchmark host's time per command, after every completion
    /// before that slot's next command, the other slots going on (how the review lab puts a
    /// test bed's own time into a job; fio's `thinktime` stops the whole job instead).
    pub host_time_ns: Nanoseconds,
    /// fio's `startdelay`: the job starts issuing this long after its group starts; a range
    /// (`startdelay=1-5`) is drawn per job from its seed (equal ends: no draw).
    pub startdelay_ns: (Nanoseconds, Nanoseconds),
    /// fio's `rate_iops`/`rate` (resolved for the job's direction by `finish`).
    pub rate: Option<RateLimit>,
    /// `rate_iops` as given: read, write, trim (0: no limit).
    rate_iops_given: Option<([u64; 3], String)>,
    /// `rate` as given: bytes per second for read, write, trim (0: no limit).
    rate_bytes_given: Option<([u64; 3], String)>,
    rate_poisson: bool,
    /// fio's flow control between the jobs of a group (`flow` above 0; resolved by `finish`).
    pub flow: Option<Flow>,
    flow_weight: u32,
    flow_id: u32,
    flow_sleep_ns: Option<Nanoseconds>,
    /// fio's `latency_target` search (resolved by `finish` from the three options).
    pub latency_target: Option<LatencyTarget>,
    latency_target_ns: Nanoseconds,
    latency_window_ns: Option<Nanoseconds>,
    latency_percentile: Option<f64>,
    /// fio's `max_latency`, `rate_min` and `rate_iops_min` (resolved by `finish`; `None`: no
    /// limit): a job that breaks one ends in error, as fio's.
    pub limits: Option<JobLimits>,
    given_limits: GivenLimits,
    /// fio's `continue_on_error` was given a value other than its default (none).
    continue_on_error: bool,
    /// Flushes (FLUSH CACHE) the job asks of the drive (fio's `fsync`, `fdatasync`,
    /// `end_fsync`, `fsync_on_close`, `sync`).
    pub flushes: Flushes,
    /// fio's `verify` (resolved by `finish` from `verify`, `do_verify`, `verify_fatal` and
    /// `verify_pattern`).
    pub verify: Option<Verify>,
    verify_method: Option<String>,
    do_verify: bool,
    verify_fatal: bool,
    verify_pattern: Option<String>,
    verify_backlog: Option<u64>,
    verify_backlog_batch: Option<u64>,
    /// Keep going (wrapping around the span) until `runtime` even after `io_size`.
    pub time_based: bool,
    /// Stop after this many IOs.
    pub number_ios: Option<u64>,
    /// Percentage of reads for mixed kinds.
    pub rwmixread: u32,
    rwmixread_given: Option<u32>,
    rwmixwrite_given: Option<u32>,
    /// Offset distribution of random kinds.
    pub distribution: Distribution,
    /// Alignment of random offsets (`None`: the smallest block size).
    pub blockalign: Option<u64>,
    /// Copies of this job run side by side (`numjobs`), each with its own seed.
    pub numjobs: u32,
    /// Offset added to each copy's span (`offset_increment`).
    pub offset_increment_bytes: u64,
    /// Offset added to each copy's span as a percentage of the usable capacity
    /// (`offset_increment=10%`).
    pub offset_increment_percent: Option<f64>,
    /// The job waits for every job before it (`stonewall`, `wait_for_previous`).
    pub stonewall: bool,
    /// Where the option that places the job's span last stood (`offset`), for messages about
    /// the span.
    pub offset_at: Option<String>,
    /// Where `offset_increment` last stood.
    pub increment_at: Option<String>,
    /// Where the option that sizes the job's span last stood (`size`, `filesize`).
    pub size_at: Option<String>,
    /// Block sizes for reads, writes and trims apart (fio's `bs=4k,64k`, `bsrange`, `bssplit`
    /// with commas); `block_sizes` then holds every size of the three (for the span's checks).
    pub block_sizes_by_op: Option<Box<[BlockSizes; 3]>>,
    /// fio's strided zones, when asked for.
    pub strided: Option<StridedZones>,
    zone_mode: Option<String>,
    zone_size: u64,
    zone_range: u64,
    zone_skip: u64,
    zone_at: Option<String>,
    /// The job named by fio's `wait_for` (and where that option stood): settled into a group
    /// boundary by `jobfile.rs` (`settle_wait_for`).
    pub wait_for: Option<(String, String)>,
    /// Which of the `numjobs` copies this is (0: the job itself).
    pub copy_index: u32,
    /// The file the job names (`filename`), and where that option stood.
    pub filename: Option<(String, String)>,
    /// Where the job's file starts on the drive, when a job file names several files (see
    /// `files.rs`); its offsets count from there.
    pub file_base_bytes: u64,
    /// The job names one of fio's synchronous engines (`ioengine=psync`): its queue depth is 1.
    sync_engine: bool,
    /// Percent of a random job's offsets drawn at random (fio's `percentage_random`); the others
    /// go on sequentially from the previous IO.
    pub percentage_random: u32,
    /// When this job has issued its last command, the other jobs of its group issue no more
    /// (fio's `exitall`: the job's end terminates the rest of its group).
    pub exitall: bool,
    /// When this job ends in error (fio's `max_latency`, `rate_min`, `latency_target` at depth
    /// 1), the other jobs of its group issue no more (fio's `exitall_on_error`).
    pub exitall_on_error: bool,
    /// fio's `group_reporting`: the group is reported as a whole (one entry in fio's JSON)
    /// instead of job by job. Only the report changes.
    pub group_reporting: bool,
    /// Steady-state termination, if asked for.
    pub steady_state: Option<SteadyState>,
    /// Logs to write.
    pub logs: LogSettings,
    /// Write until the device is full (`fill_device`): the span runs to the end of the device.
    pub fill_device: bool,
    /// Read the job's span once before the job (`pre_read`), unmeasured.
    pub pre_read: bool,
    /// Jobs that run at the same time as this one on the same drive (the other jobs of its
    /// group: those before the next `stonewall`, and `numjobs` copies), each with its own queue.
    pub concurrent: Vec<JobSpec>,
    /// Options given that change nothing in a simulation (`ioengine`, `direct`, ...), once each.
    pub no_effect: Vec<String>,
    /// What the job writes (set from `data_pattern`, `zero_buffers`,
    /// `buffer_compress_percentage`, `buffer_compress_chunk`, `dedupe_percentage`).
    pub pattern: DataPattern,
    kb_base: KbBase,
    named_pattern: Option<PatternKind>,
    /// fio's `buffer_pattern` as given (every write buffer filled with it).
    buffer_pattern: Option<String>,
    compress_percent: Option<u32>,
    compress_chunk_bytes: u32,
}

/// A value that switches an option off (`verify=0`, `verify=none` is checked apart).
fn is_off(value: Option<&str>) -> bool {
    value.is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off"))
}

/// The value of one of fio's boolean options (`time_based`, `time_based=1`): as fio's
/// `check_int`, a whole number (decimal or `0x` hex; 0 is off, any other on); also the words
/// true/false, yes/no and on/off in any case. No value (or an empty one) is on. Anything else is
/// refused (fio refuses it too): `time_based=False` must not switch the option on.
fn flag(key: &str, value: Option<&str>, at: &str) -> Result<bool> {
    let Some(text) = value.map(str::trim) else { return Ok(true) };
    match text.to_ascii_lowercase().as_str() {
        "" | "true" | "yes" | "on" => return Ok(true),
        "false" | "no" | "off" => return Ok(false),
        _ => {}
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let number = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => digits.parse::<u64>().ok(),
    };
    number
        .map(|n| n != 0)
        .ok_or_else(|| Error::Workload(format!("{at}: {key}: `{text}` is not a boolean (expected 0 or 1; true/false, yes/no and on/off are also taken)")))
}

impl JobSpec {
    /// A job with fio's defaults (`rw=read bs=4k iodepth=1`).
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            rw: RwKind::Read,
            rw_step: 0,
            block_sizes: vec![(4096, 100)],
            iodepth: 1,
            offset_bytes: 0,
            offset_percent: None,
            size_bytes: None,
            size_percent: None,
            filesize: None,
            io_size_bytes: None,
            io_size_percent: None,
            loops: 1,
            runtime_ns: None,
            ramp_ns: 0,
            thinktime_ns: 0,
            thinktime_blocks: 1,
            thinktime_blocks_given: false,
            thinktime_iotime_ns: 0,
            host_time_ns: 0,
            startdelay_ns: (0, 0),
            rate: None,
            rate_iops_given: None,
            rate_bytes_given: None,
            rate_poisson: false,
            flow: None,
            flow_weight: 0,
            flow_id: 0,
            flow_sleep_ns: None,
            latency_target: None,
            latency_target_ns: 0,
            latency_window_ns: None,
            latency_percentile: None,
            limits: None,
            flushes: Flushes::default(),
            given_limits: GivenLimits::default(),
            continue_on_error: false,
            verify: None,
            verify_method: None,
            do_verify: true,
            verify_fatal: false,
            verify_pattern: None,
            verify_backlog: None,
            verify_backlog_batch: None,
            time_based: false,
            number_ios: None,
            rwmixread: 50,
            rwmixread_given: None,
            rwmixwrite_given: None,
            distribution: Distribution::Uniform,
            blockalign: None,
            numjobs: 1,
            offset_increment_bytes: 0,
            offset_increment_percent: None,
            offset_at: None,
            increment_at: None,
            size_at: None,
            copy_index: 0,
            strided: None,
            zone_mode: None,
            zone_size: 0,
            zone_range: 0,
            zone_skip: 0,
            zone_at: None,
            wait_for: None,
            block_sizes_by_op: None,
            filename: None,
            file_base_bytes: 0,
            stonewall: false,
            exitall: false,
            exitall_on_error: false,
            group_reporting: false,
            percentage_random: 100,
            sync_engine: false,
            steady_state: None,
            logs: LogSettings::default(),
            fill_device: false,
            pre_read: false,
            concurrent: Vec::new(),
            no_effect: Vec::new(),
            pattern: DataPattern::default(),
            kb_base: KbBase::Binary,
            named_pattern: None,
            buffer_pattern: None,
            compress_percent: None,
            compress_chunk_bytes: 512,
        }
    }

    /// The smallest block size.
    pub fn min_block_bytes(&self) -> u64 {
        self.block_sizes.iter().map(|(b, _)| *b).min().unwrap_or(4096)
    }

    /// The largest block size.
    pub fn max_block_bytes(&self) -> u64 {
        self.block_sizes.iter().map(|(b, _)| *b).max().unwrap_or(4096)
    }

    /// This job and the jobs that run beside it.
    pub fn group(&self) -> impl Iterator<Item = &JobSpec> {
        std::iter::once(self).chain(self.concurrent.iter())
    }

    /// Commands the whole group keeps in flight.
    pub fn group_iodepth(&self) -> u64 {
        self.group().map(|j| j.iodepth as u64).sum()
    }

    /// Set `kb_base` (read before any size, as fio gives it priority).
    pub fn set_kb_base(&mut self, value: Option<&str>, at: &str) -> Result<()> {
        let text = value.unwrap_or("").trim();
        self.kb_base = KbBase::parse(text).map_err(|m| Error::Workload(format!("{at}: kb_base: {m}")))?;
        Ok(())
    }

    fn size_or_percent(&self, key: &str, text: &str, at: &str) -> Result<Extent> {
        if let Some(number) = text.strip_suffix('%') {
            let percent: f64 = number.trim().parse().map_err(|_| Error::Workload(format!("{at}: {key}: `{text}` is not a percentage")))?;
            let lowest_ok = if key.starts_with("offset") { percent >= 0.0 } else { percent > 0.0 };
            if !(lowest_ok && percent <= 100.0) {
                return Err(Error::Workload(format!("{at}: {key}: a percentage must be above 0 and at most 100 (got {text})")));
            }
            return Ok(Extent::Percent(percent));
        }
        Ok(Extent::Bytes(self.size(key, text, at)?))
    }

    fn size(&self, key: &str, text: &str, at: &str) -> Result<u64> {
        parse_size_bytes_with(text, self.kb_base).map_err(|m| Error::Workload(format!("{at}: {key}: {m}")))
    }

    fn sector_size(&self, key: &str, text: &str, at: &str) -> Result<u64> {
        let bytes = self.size(key, text, at)?;
        if bytes == 0 || !bytes.is_multiple_of(512) {
            return Err(Error::Workload(format!("{at}: {key}: must be a positive multiple of 512 bytes (got {bytes})")));
        }
        Ok(bytes)
    }

    /// Apply one `key=value` option; `at` says where it came from for messages.
    pub fn set(&mut self, key: &str, value: Option<&str>, at: &str) -> Result<()> {
        let key = key.trim();
        let text = value.map(str::trim).unwrap_or("");
        // (An option ssdlab refuses or does not know is named as such first: its value is moot.)
        if let Some(name) = unset_variable(text).filter(|_| crate::catalogue::SIMULATED.contains(&key)) {
            return Err(Error::Workload(format!("{at}: {key}: environment variable `{name}` is not set (in `{text}`)")));
        }
        // fio's keywords for the machine it runs on: a simulation's results must not depend on
        // the machine that runs it.
        if let Some(keyword) =
            ["$ncpus", "$pagesize", "$mb_memory"].into_iter().find(|k| text.contains(k)).filter(|_| crate::catalogue::SIMULATED.contains(&key))
        {
            return Err(Error::Workload(format!(
                "{at}: {key}: fio's `{keyword}` is a property of the machine fio runs on, which a simulation does not use; give the number itself (in `{text}`)"
            )));
        }
        let need = || -> Result<&str> {
            if text.is_empty() {
                Err(Error::Workload(format!("{at}: option `{key}` needs a value")))
            } else {
                Ok(text)
            }
        };
        // fio reads its integer options as it reads sizes (parse.c: check_str_bytes), so
        // `number_ios=1k` is 1024 (1000 with kb_base=1000).
        let kb_base = self.kb_base;
        let int = |max: u64| -> Result<u64> {
            let t = need()?;
            let n: u64 =
                t.parse().or_else(|_| parse_size_bytes_with(t, kb_base)).map_err(|_| Error::Workload(format!("{at}: {key}: `{t}` is not a whole number")))?;
            if n > max {
                return Err(Error::Workload(format!("{at}: {key}: must be 0 to {max} (got {n})")));
            }
            Ok(n)
        };
        let time = |bare: TimeUnit| -> Result<Nanoseconds> { parse_time_ns(need()?, bare).map_err(|m| Error::Workload(format!("{at}: {key}: {m}"))) };
        match key {
            "offset" => self.offset_at = Some(format!("{at}: {key}")),
            "offset_increment" => self.increment_at = Some(format!("{at}: {key}")),
            "size" | "filesize" => self.size_at = Some(format!("{at}: {key}")),
            _ => {}
        }
        match key {
            "rw" | "readwrite" => {
                let t = need()?;
                let (kind_text, step_text) = match t.split_once(':') {
                    Some((k, s)) => (k.trim(), Some(s.trim())),
                    None => (t, None),
                };
                self.rw = RwKind::parse(kind_text)
                    .ok_or_else(|| Error::Workload(format!("{at}: rw: unknown kind `{kind_text}` (expected {RW_VALUES}, optionally :OFFSET as rw=read:8k)")))?;
                self.rw_step = match step_text {
                    None => 0,
                    Some(step) if self.rw.is_random() => {
                        let n: u64 =
                            step.parse().map_err(|_| Error::Workload(format!("{at}: rw: `{step}` after `:` must be a count of IOs for random kinds")))?;
                        n as i64
                    }
                    Some(step) => {
                        let (negative, magnitude) = match step.strip_prefix('-') {
                            Some(m) => (true, m),
                            None => (false, step.strip_prefix('+').unwrap_or(step)),
                        };
                        let bytes = self.size("rw", magnitude, at)?;
                        let bytes = i64::try_from(bytes).map_err(|_| Error::Workload(format!("{at}: rw: offset `{step}` is too large")))?;
                        if bytes % 512 != 0 {
                            return Err(Error::Workload(format!("{at}: rw: offset `{step}` must be a multiple of 512 bytes")));
                        }
                        if negative {
                            -bytes
                        } else {
                            bytes
                        }
                    }
                };
            }
            "bs" | "blocksize" => {
                let t = need()?;
                self.set_block_sizes(t, at, |job, v, at| Ok(vec![(job.sector_size("bs", v, at)?, 100)]))?;
            }
            "bsrange" | "blocksize_range" => {
                let t = need()?;
                self.set_block_sizes(t, at, |job, v, at| job.parse_bsrange(v, at))?;
            }
            "bssplit" => {
                let t = need()?;
                self.set_block_sizes(t, at, |job, v, at| job.parse_bssplit(v, at))?;
            }
            "iodepth" => {
                let n = int(u64::MAX)?;
                if n == 0 || n > MAX_IODEPTH as u64 {
                    return Err(Error::Workload(format!("{at}: iodepth: must be 1 to {MAX_IODEPTH} (got {n})")));
                }
                self.iodepth = n as u32;
            }
            "offset" => match self.size_or_percent("offset", need()?, at)? {
                Extent::Bytes(b) => (self.offset_bytes, self.offset_percent) = (b, None),
                Extent::Percent(p) => (self.offset_bytes, self.offset_percent) = (0, Some(p)),
            },
            "size" => match self.size_or_percent("size", need()?, at)? {
                Extent::Bytes(0) => return Err(Error::Workload(format!("{at}: size: must be positive"))),
                Extent::Bytes(b) => (self.size_bytes, self.size_percent) = (Some(b), None),
                Extent::Percent(p) => (self.size_bytes, self.size_percent) = (None, Some(p)),
            },
            "filesize" => match self.size_or_percent("filesize", need()?, at)? {
                Extent::Bytes(0) => return Err(Error::Workload(format!("{at}: filesize: must be positive"))),
                extent => self.filesize = Some(extent),
            },
            "io_size" | "io_limit" => match self.size_or_percent("io_size", need()?, at)? {
                // As fio: 0 is its default (the span, `loops` times), not "move nothing".
                Extent::Bytes(0) => (self.io_size_bytes, self.io_size_percent) = (None, None),
                Extent::Bytes(b) => (self.io_size_bytes, self.io_size_percent) = (Some(b), None),
                Extent::Percent(p) => (self.io_size_bytes, self.io_size_percent) = (None, Some(p)),
            },
            "loops" => {
                // As fio: loops=0 makes one pass, as its default loops=1 does.
                self.loops = int(1 << 20)?.max(1);
            }
            // As fio: 0 is its default, no time limit.
            "runtime" | "timeout" => self.runtime_ns = Some(time(TimeUnit::Seconds)?).filter(|&ns| ns > 0),
            "ramp_time" => self.ramp_ns = time(TimeUnit::Seconds)?,
            // fio reads a bare thinktime as microseconds.
            "thinktime" => self.thinktime_ns = time(TimeUnit::Microseconds)?,
            "thinktime_blocks" => {
                let n = int(u64::MAX)?;
                if n == 0 {
                    return Err(Error::Workload(format!("{at}: thinktime_blocks: must be at least 1 (fio's default, a think after every block)")));
                }
                self.thinktime_blocks = n;
                self.thinktime_blocks_given = true;
            }
            "thinktime_iotime" => self.thinktime_iotime_ns = time(TimeUnit::Seconds)?,
            // ssdlab's own: a bare host time is in microseconds, as thinktime.
            "host_time" => self.host_time_ns = time(TimeUnit::Microseconds)?,
            "thinktime_blocks_type" => match need()? {
                "complete" => {}
                "issue" => {
                    return Err(Error::Workload(format!(
                        "{at}: thinktime_blocks_type: `issue` (thinking after N commands issued) is not simulated; fio's default `complete` is"
                    )))
                }
                other => return Err(Error::Workload(format!("{at}: thinktime_blocks_type: unknown type `{other}` (expected complete or issue)"))),
            },
            "startdelay" => {
                let t = need()?;
                let read = |part: &str| parse_time_ns(part.trim(), TimeUnit::Seconds).map_err(|m| Error::Workload(format!("{at}: startdelay: {m}")));
                self.startdelay_ns = match t.split_once('-') {
                    Some((low, high)) => {
                        let (low, high) = (read(low)?, read(high)?);
                        if high < low {
                            return Err(Error::Workload(format!("{at}: startdelay: the range `{t}` ends before it starts")));
                        }
                        (low, high)
                    }
                    None => {
                        let ns = read(t)?;
                        (ns, ns)
                    }
                };
            }
            "rate_iops" => {
                let t = need()?;
                let values = per_direction(t, |part| {
                    part.parse::<u64>()
                        .or_else(|_| parse_size_bytes_with(part, kb_base))
                        .map_err(|_| format!("`{part}` is not a whole number of IOs per second"))
                })
                .map_err(|m| Error::Workload(format!("{at}: rate_iops: {m}")))?;
                self.rate_iops_given = Some((values, t.to_string()));
            }
            "rate" => {
                let t = need()?;
                let kb_base = self.kb_base;
                let values = per_direction(t, |part| parse_size_bytes_with(part, kb_base)).map_err(|m| Error::Workload(format!("{at}: rate: {m}")))?;
                self.rate_bytes_given = Some((values, t.to_string()));
            }
            "flow" => {
                // fio 3.33's flow is a weight, 0 to 1000. Its parser still takes a negative value
                // (older fio's signed flow counter, as fio's butterfly.fio has it), which its
                // flow.c then divides by the flow's total weight: refused, saying so.
                let t = need()?;
                if t.starts_with('-') {
                    return Err(Error::Workload(format!(
                        "{at}: flow: must be 0 to 1000 (fio's weight; got {t}: a negative flow is older fio's signed flow counter, which fio 3.x replaced by weights)"
                    )));
                }
                self.flow_weight = int(1000)? as u32;
            }
            "flow_id" => self.flow_id = int(u32::MAX as u64)? as u32,
            // A bare number of microseconds, as fio's.
            "flow_sleep" => self.flow_sleep_ns = Some(time(TimeUnit::Microseconds)?),
            "rate_process" => {
                self.rate_poisson = match need()? {
                    "linear" => false,
                    "poisson" => true,
                    other => return Err(Error::Workload(format!("{at}: rate_process: unknown process `{other}` (expected linear or poisson)"))),
                }
            }
            // fio reads bare latency times as microseconds; 0 is its default (no search).
            "latency_target" => self.latency_target_ns = time(TimeUnit::Microseconds)?,
            "latency_window" => self.latency_window_ns = Some(time(TimeUnit::Microseconds)?),
            "latency_percentile" => {
                let t = need()?;
                let p: f64 = t.trim_end_matches('%').trim().parse().map_err(|_| Error::Workload(format!("{at}: latency_percentile: `{t}` is not a number")))?;
                if !(p > 0.0 && p <= 100.0) {
                    return Err(Error::Workload(format!("{at}: latency_percentile: must be above 0 and at most 100 (got {t})")));
                }
                self.latency_percentile = Some(p);
            }
            "max_latency" => {
                let t = need()?;
                let values =
                    per_direction(t, |part| parse_time_ns(part, TimeUnit::Microseconds)).map_err(|m| Error::Workload(format!("{at}: max_latency: {m}")))?;
                self.given_limits.max_latency_ns = Some(values);
            }
            "rate_min" | "ratemin" => {
                let t = need()?;
                let kb_base = self.kb_base;
                let values = per_direction(t, |part| parse_size_bytes_with(part, kb_base)).map_err(|m| Error::Workload(format!("{at}: {key}: {m}")))?;
                self.given_limits.rate_min = Some((values, t.to_string()));
            }
            "rate_iops_min" => {
                let t = need()?;
                let values = per_direction(t, |part| {
                    part.parse::<u64>()
                        .or_else(|_| parse_size_bytes_with(part, kb_base))
                        .map_err(|_| format!("`{part}` is not a whole number of IOs per second"))
                })
                .map_err(|m| Error::Workload(format!("{at}: rate_iops_min: {m}")))?;
                self.given_limits.rate_iops_min = Some((values, t.to_string()));
            }
            "rate_cycle" | "ratecycle" => self.given_limits.rate_cycle_ms = Some(int(u32::MAX as u64)?),
            // On a block device fsync and fdatasync are the same: a FLUSH CACHE to the drive.
            "fsync" => self.flushes.fsync_every = int(u32::MAX as u64)?,
            "fdatasync" => self.flushes.fdatasync_every = int(u32::MAX as u64)?,
            "end_fsync" | "fsync_on_close" => {
                let on = flag(key, value, at)?;
                if key == "end_fsync" {
                    self.flushes.end_fsync = on;
                } else {
                    self.flushes.fsync_on_close = on;
                }
            }
            "sync" => {
                self.flushes.sync_writes = match text.to_ascii_lowercase().as_str() {
                    "" | "1" | "sync" | "dsync" | "true" | "yes" | "on" => true,
                    "0" | "none" | "false" | "no" | "off" => false,
                    other => return Err(Error::Workload(format!("{at}: sync: unknown value `{other}` (expected none, sync, dsync, 0 or 1)"))),
                }
            }
            "continue_on_error" => {
                self.continue_on_error = !matches!(text.to_ascii_lowercase().as_str(), "" | "none" | "0" | "false" | "no" | "off");
                self.note_no_effect(key);
            }
            "time_based" => self.time_based = flag(key, value, at)?,
            "number_ios" => {
                let n = int(u64::MAX)?;
                if n == 0 {
                    // fio's default (no limit); a job bounded by nothing else would move the whole
                    // span, so it is refused rather than taken silently.
                    return Err(Error::Workload(format!("{at}: number_ios: must be positive (fio's 0 means no limit: leave the option out)")));
                }
                self.number_ios = Some(n);
            }
            "rwmixread" => {
                let p = int(100)? as u32;
                self.rwmixread_given = Some(p);
                self.rwmixread = p;
            }
            "rwmixwrite" => {
                let p = int(100)? as u32;
                self.rwmixwrite_given = Some(p);
                self.rwmixread = 100 - p;
            }
            "random_distribution" => self.distribution = self.parse_distribution(need()?, at)?,
            "blockalign" | "ba" => {
                let t = need()?;
                if t.contains(',') {
                    return Err(Error::Workload(format!("{at}: blockalign: separate read,write alignments (`{t}`) are not supported")));
                }
                self.blockalign = Some(self.sector_size("blockalign", t, at)?);
            }
            "numjobs" => {
                let n = int(MAX_NUMJOBS as u64)?;
                if n == 0 {
                    return Err(Error::Workload(format!("{at}: numjobs: must be positive")));
                }
                self.numjobs = n as u32;
            }
            "offset_increment" => match self.size_or_percent("offset_increment", need()?, at)? {
                Extent::Bytes(b) => (self.offset_increment_bytes, self.offset_increment_percent) = (b, None),
                Extent::Percent(p) => (self.offset_increment_bytes, self.offset_increment_percent) = (0, Some(p)),
            },
            "stonewall" | "wait_for_previous" => self.stonewall = flag(key, value, at)?,
            "wait_for" => self.wait_for = Some((need()?.to_string(), at.to_string())),
            "zonemode" => match need()? {
                mode @ ("none" | "strided") => self.zone_mode = Some(mode.to_string()),
                "zbd" => {
                    return Err(Error::Workload(format!("{at}: zonemode: fio's zoned block devices (zonemode=zbd) are not simulated; zonemode=strided is")))
                }
                other => return Err(Error::Workload(format!("{at}: zonemode: unknown mode `{other}` (expected none, strided or zbd)"))),
            },
            "zonesize" | "zonerange" | "zoneskip" => {
                let bytes = self.size(key, need()?, at)?;
                if bytes % 512 != 0 {
                    return Err(Error::Workload(format!("{at}: {key}: must be a multiple of 512 bytes (got {bytes})")));
                }
                match key {
                    "zonesize" => self.zone_size = bytes,
                    "zonerange" => self.zone_range = bytes,
                    _ => self.zone_skip = bytes,
                }
                self.zone_at = Some(format!("{at}: {key}"));
            }
            "exitall" => self.exitall = flag(key, value, at)?,
            "group_reporting" => self.group_reporting = flag(key, value, at)?,
            "exitall_on_error" => self.exitall_on_error = flag(key, value, at)?,
            "filename" => {
                self.filename = Some((need()?.to_string(), at.to_string()));
                self.note_no_effect(key);
            }
            "ioengine" => {
                let engine = crate::engines::classify(need()?).map_err(|why| Error::Workload(format!("{at}: ioengine: {why}")))?;
                self.sync_engine = engine == crate::engines::Engine::Synchronous;
                self.note_no_effect(key);
            }
            "percentage_random" => {
                let t = need()?;
                // fio's read,write,trim values: one value for every direction.
                let parts: Vec<&str> = t.split(',').map(str::trim).collect();
                if parts.iter().any(|p| *p != parts[0]) {
                    return Err(Error::Workload(format!("{at}: percentage_random: separate read,write values (`{t}`) are not supported; give one percentage")));
                }
                let p: u32 = parts[0].parse().map_err(|_| Error::Workload(format!("{at}: percentage_random: `{t}` is not a whole percentage")))?;
                if p > 100 {
                    return Err(Error::Workload(format!("{at}: percentage_random: must be 0 to 100 (got {p})")));
                }
                self.percentage_random = p;
            }
            "fill_device" | "fill_fs" => self.fill_device = flag(key, value, at)?,
            "pre_read" => self.pre_read = flag(key, value, at)?,
            "write_bw_log" => self.logs.bw = Some(log_prefix(value, &self.name)),
            "write_lat_log" => self.logs.lat = Some(log_prefix(value, &self.name)),
            "write_iops_log" => self.logs.iops = Some(log_prefix(value, &self.name)),
            "log_avg_msec" => self.logs.avg_msec = int(u64::MAX / 1_000_000)?,
            "steadystate" | "ss" => {
                let parsed = parse_steady_state(need()?, at)?;
                let old = self.steady_state.unwrap_or(parsed);
                self.steady_state = Some(SteadyState { duration_ns: old.duration_ns, ramp_ns: old.ramp_ns, interval_ns: old.interval_ns, ..parsed });
            }
            "steadystate_duration" | "ss_dur" => {
                let ns = time(TimeUnit::Seconds)?;
                self.steady_state_mut().duration_ns = ns;
            }
            "steadystate_check_interval" | "ss_interval" => {
                let ns = time(TimeUnit::Seconds)?;
                if ns == 0 || !ns.is_multiple_of(1_000_000_000) {
                    return Err(Error::Workload(format!("{at}: {key}: ssdlab samples whole simulated seconds; give a whole number of seconds")));
                }
                self.steady_state_mut().interval_ns = ns;
            }
            "steadystate_ramp_time" | "ss_ramp" => {
                let ns = time(TimeUnit::Seconds)?;
                self.steady_state_mut().ramp_ns = ns;
            }
            "data_pattern" => {
                self.named_pattern = Some(match need()? {
                    "zeros" => PatternKind::Zeros,
                    "repeating" => PatternKind::Repeating,
                    "text" => PatternKind::Text,
                    "random" => PatternKind::Random,
                    other => return Err(Error::Workload(format!("{at}: data_pattern: unknown pattern `{other}` (expected zeros, repeating, text or random)"))),
                });
            }
            "zero_buffers" => {
                if flag(key, value, at)? {
                    self.named_pattern = Some(PatternKind::Zeros);
                }
            }
            "buffer_compress_percentage" => self.compress_percent = Some(int(100)? as u32),
            "buffer_pattern" => {
                let t = need()?;
                if t.contains('\'') {
                    return Err(Error::Workload(format!(
                        "{at}: buffer_pattern: a pattern with a file's contents ('FILE') is not simulated; give the bytes (0x... or \"text\")"
                    )));
                }
                self.buffer_pattern = Some(t.to_string());
            }
            "buffer_compress_chunk" => {
                let bytes = self.size(key, need()?, at)?;
                if bytes == 0 || bytes > 4096 {
                    return Err(Error::Workload(format!("{at}: buffer_compress_chunk: must be 1 to 4096 bytes (got {bytes})")));
                }
                self.compress_chunk_bytes = bytes as u32;
            }
            "dedupe_percentage" => self.pattern.dedupe_percent = int(100)? as u32,
            "kb_base" => self.set_kb_base(value, at)?,
            "verify" if is_off(value) || text == "none" => {
                self.verify_method = None;
                self.note_no_effect(key);
            }
            "verify" => {
                let t = need()?;
                if !VERIFY_METHODS.contains(&t) {
                    return Err(Error::Workload(format!("{at}: verify: unknown method `{t}` (expected one of {}, or 0/none)", VERIFY_METHODS.join(", "))));
                }
                self.verify_method = Some(t.to_string());
                self.no_effect.retain(|k| k != "verify");
            }
            "do_verify" => self.do_verify = flag(key, value, at)?,
            "verify_fatal" => self.verify_fatal = flag(key, value, at)?,
            "verify_pattern" => self.verify_pattern = Some(need()?.to_string()),
            "verify_backlog" => self.verify_backlog = Some(int(u32::MAX as u64)?),
            "verify_backlog_batch" => self.verify_backlog_batch = Some(int(u32::MAX as u64)?),
            other => {
                if no_effect_reason(other).is_some() {
                    self.note_no_effect(other);
                } else if let Some(reason) = not_simulated_reason(other) {
                    // fio's own default (`fsync=0`, `thinktime_blocks=1`) is what ssdlab does.
                    if value.is_some() && is_fio_default(other, text) {
                        self.note_no_effect(other);
                    } else {
                        return Err(Error::Workload(format!("{at}: {other}: {reason}")));
                    }
                } else {
                    let hint = crate::catalogue::suggest(other).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
                    return Err(Error::Workload(format!("{at}: unknown fio option `{other}`{hint}")));
                }
            }
        }
        Ok(())
    }

    fn note_no_effect(&mut self, key: &str) {
        if !self.no_effect.iter().any(|k| k == key) {
            self.no_effect.push(key.to_string());
        }
    }

    fn steady_state_mut(&mut self) -> &mut SteadyState {
        self.steady_state.get_or_insert(SteadyState {
            metric: SteadyMetric::Iops,
            slope: false,
            limit: 0.0,
            percent: true,
            duration_ns: 0,
            ramp_ns: 0,
            interval_ns: 1_000_000_000,
        })
    }

    /// Check the job as a whole once all options are set, and settle its data pattern.
    pub fn finish(&mut self, at: &str) -> Result<()> {
        let mut problems: Vec<String> = Vec::new();
        self.settle_block_sizes();
        self.finish_filesize(at, &mut problems);
        self.finish_zones(at, &mut problems);
        self.verify = self.verify_method.clone().map(|method| Verify {
            method,
            do_verify: self.do_verify,
            fatal: self.verify_fatal,
            pattern: self.verify_pattern.clone(),
            backlog: self.verify_backlog.unwrap_or(0),
            backlog_batch: self.verify_backlog_batch.unwrap_or(0),
        });
        self.finish_verify(at, &mut problems);
        self.finish_buffer_pattern(at, &mut problems);
        self.pattern.kind = match (self.named_pattern, self.compress_percent) {
            (Some(_), Some(_)) => {
                problems.push(format!("{at}: give either data_pattern/zero_buffers or buffer_compress_percentage, not both"));
                PatternKind::Random
            }
            (Some(kind), None) => kind,
            (None, Some(percent)) => PatternKind::FioCompress { percent, chunk_bytes: self.compress_chunk_bytes },
            (None, None) => PatternKind::Random,
        };
        // As fio, a synchronous engine caps the queue depth at 1 (then ioengine is not without
        // effect).
        if self.sync_engine && self.iodepth > 1 {
            self.iodepth = 1;
            self.no_effect.retain(|k| k != "ioengine");
        }
        if let (Some(r), Some(w)) = (self.rwmixread_given, self.rwmixwrite_given) {
            if r + w != 100 {
                problems.push(format!("{at}: rwmixread={r} and rwmixwrite={w} disagree (they must add up to 100; give one of them)"));
            }
        }
        let total: u64 = self.block_sizes.iter().map(|(_, w)| *w as u64).sum();
        if total == 0 {
            problems.push(format!("{at}: bssplit: the percentages add up to zero"));
        }
        if let Some(size) = self.size_bytes {
            if !size.is_multiple_of(512) {
                problems.push(format!("{at}: size {size} is not a whole number of 512-byte sectors"));
            }
            if let Some(align) = self.blockalign.filter(|&a| a > size) {
                problems.push(format!("{at}: blockalign {align} is larger than size {size}"));
            }
            if self.max_block_bytes() > size {
                problems.push(format!("{at}: block size {} is larger than size {size}", self.max_block_bytes()));
            }
            if self.offset_bytes.checked_add(size).is_none() {
                problems.push(format!("{at}: offset {} + size {size} is past 2^64 bytes", self.offset_bytes));
            }
        }
        if !self.offset_bytes.is_multiple_of(512) {
            problems.push(format!("{at}: offset {} is not a whole number of 512-byte sectors", self.offset_bytes));
        }
        if self.time_based && self.runtime_ns.is_none() {
            problems.push(format!("{at}: time_based needs a runtime"));
        }
        if let Some(ss) = self.steady_state {
            if ss.limit <= 0.0 && ss.duration_ns == 0 {
                problems.push(format!("{at}: steadystate_duration given without steadystate=METRIC:LIMIT"));
            } else if ss.duration_ns < 2 * ss.interval_ns {
                problems.push(format!(
                    "{at}: steadystate: needs a steadystate_duration (ss_dur) of at least two check intervals (got {} s)",
                    ss.duration_ns / 1_000_000_000
                ));
            }
        }
        self.latency_target = (self.latency_target_ns > 0).then(|| LatencyTarget {
            target_ns: self.latency_target_ns,
            window_ns: self.latency_window_ns.unwrap_or(0),
            percentile: self.latency_percentile.unwrap_or(100.0),
        });
        if self.latency_target.is_none() {
            // Without a target (fio's default 0) the window and percentile do nothing, as in fio.
            for (key, given) in [("latency_window", self.latency_window_ns.is_some()), ("latency_percentile", self.latency_percentile.is_some())] {
                if given && !self.no_effect.iter().any(|k| k == key) {
                    self.no_effect.push(key.to_string());
                }
            }
        }
        match self.resolve_rate() {
            Ok(rate) => self.rate = rate,
            Err(m) => problems.push(format!("{at}: {m}")),
        }
        if let (Some(rate), Some(_)) = (&self.rate, &self.verify) {
            if rate.uniform.is_none() {
                problems.push(format!(
                    "{at}: {}={}: a rate on a mixed job or one of several block sizes, with verify, is not simulated (give the rate to a job of one direction and one block size)",
                    rate.given.0, rate.given.1
                ));
            }
        }
        self.finish_flow();
        match self.given_limits.resolve([self.rate_bytes_given.as_ref().map(|(v, _)| *v), self.rate_iops_given.as_ref().map(|(v, _)| *v)]) {
            Ok(limits) => self.limits = limits,
            Err(m) => problems.push(format!("{at}: {m}")),
        }
        if self.given_limits.rate_cycle_ms.is_some() && !self.limits.is_some_and(|l| l.checks_rate()) {
            self.note_no_effect("rate_cycle");
        }
        if self.continue_on_error && (self.limits.is_some() || self.latency_target.is_some()) {
            problems.push(format!(
                "{at}: continue_on_error with max_latency, rate_min, rate_iops_min or latency_target is not simulated (fio may go on past the error those end a job with)"
            ));
        }
        if !self.logs.avg_msec.is_multiple_of(1000) {
            problems.push(format!("{at}: log_avg_msec: ssdlab logs whole simulated seconds; give a multiple of 1000 (got {})", self.logs.avg_msec));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Workload(problems.join("\n")))
        }
    }

    /// fio's `filesize` is the size of the job's file: the span runs from `offset` to the file's
    /// end (fio's `f->io_size = real_file_size - file_offset`), and a `size` given too is how
    /// many bytes the job moves there, at most the span (fio's `setup_files` caps `o->size` at
    /// the files' total): `size=64m filesize=1g` writes 64 MiB at random offsets over 1 GiB,
    /// as fio 3.33 does (it was a 1 GiB span and 1 GiB moved, whichever option came last).
    fn finish_filesize(&mut self, at: &str, problems: &mut Vec<String>) {
        let Some(file) = self.filesize.take() else { return };
        let size = match (self.size_bytes, self.size_percent) {
            (Some(b), _) => Some(Extent::Bytes(b)),
            (None, Some(p)) => Some(Extent::Percent(p)),
            (None, None) => None,
        };
        match file {
            Extent::Bytes(file_bytes) => {
                if self.offset_percent.is_some() {
                    problems
                        .push(format!("{at}: offset: a percentage with filesize is not simulated (fio takes it of the file's size; give the offset in bytes)"));
                    return;
                }
                if self.offset_bytes >= file_bytes {
                    problems.push(format!("{at}: offset {} is at or past the end of filesize {file_bytes}", self.offset_bytes));
                    return;
                }
                let span = file_bytes - self.offset_bytes;
                (self.size_bytes, self.size_percent) = (Some(span), None);
                if self.io_size_bytes.is_none() && self.io_size_percent.is_none() {
                    match size {
                        Some(Extent::Bytes(b)) => self.io_size_bytes = Some(b.min(span)),
                        Some(Extent::Percent(p)) => self.io_size_percent = Some(p.min(100.0)),
                        None => {}
                    }
                }
            }
            Extent::Percent(p) => {
                // A share of the capacity, as `size=` takes it; `size` then moves that much.
                (self.size_bytes, self.size_percent) = (None, Some(p));
                if self.io_size_bytes.is_none() && self.io_size_percent.is_none() {
                    match size {
                        Some(Extent::Bytes(b)) => self.io_size_bytes = Some(b),
                        Some(Extent::Percent(q)) => self.io_size_percent = Some((q / p * 100.0).min(100.0)),
                        None => {}
                    }
                }
            }
        }
    }

    /// fio's flow control: a job with a `flow` weight above 0 joins its `flow_id`'s counter;
    /// without one, `flow_id` and `flow_sleep` do nothing (fio's `flow_init_job`).
    fn finish_flow(&mut self) {
        if self.flow_weight > 0 {
            self.flow = Some(Flow { id: self.flow_id, weight: self.flow_weight, sleep_ns: self.flow_sleep_ns.unwrap_or(0) });
            return;
        }
        self.flow = None;
        if self.flow_id > 0 {
            self.note_no_effect("flow_id");
        }
        if self.flow_sleep_ns.is_some_and(|ns| ns > 0) {
            self.note_no_effect("flow_sleep");
        }
    }

    /// fio's zone options as fio settles them: `zonesize` alone means `zonemode=strided`;
    /// `zonerange` defaults to `zonesize`; with `zonemode=none` they are an error.
    fn finish_zones(&mut self, at: &str, problems: &mut Vec<String>) {
        let given = self.zone_size > 0;
        let at = self.zone_at.clone().unwrap_or_else(|| at.to_string());
        match (self.zone_mode.as_deref(), given) {
            (Some("none"), true) => problems.push(format!("{at}: zonemode=none and zonesize are not compatible (as in fio)")),
            (Some("strided"), false) => problems.push(format!("{at}: zonemode=strided needs zonesize (as in fio)")),
            (_, true) => {
                if !matches!(self.distribution, Distribution::Uniform) {
                    problems.push(format!("{at}: strided zones with random_distribution other than random are not simulated"));
                }
                let range = if self.zone_range > 0 { self.zone_range } else { self.zone_size };
                if range < self.max_block_bytes() {
                    problems.push(format!("{at}: zonerange {range} is smaller than the block size {}", self.max_block_bytes()));
                }
                self.strided = Some(StridedZones { size_bytes: self.zone_size, range_bytes: range, skip_bytes: self.zone_skip });
            }
            _ => {
                // zonerange or zoneskip without zones: nothing to do, as in fio.
                if self.zone_range > 0 {
                    self.note_no_effect("zonerange");
                }
                if self.zone_skip > 0 {
                    self.note_no_effect("zoneskip");
                }
            }
        }
    }

    /// fio's `buffer_pattern`: alone, every write buffer holds the same bytes, so every sector
    /// written is the same (a repeating pattern, each sector a duplicate of the first); with
    /// `buffer_compress_percentage` or `dedupe_percentage` fio fills only the compressible part
    /// of each buffer with it, as zeros are filled here (no change).
    fn finish_buffer_pattern(&mut self, at: &str, problems: &mut Vec<String>) {
        if self.buffer_pattern.is_none() {
            return;
        }
        if self.verify_pattern.is_some() {
            problems.push(format!("{at}: give buffer_pattern or verify_pattern, not both"));
        } else if matches!(self.named_pattern, Some(k) if k != PatternKind::Zeros) {
            problems.push(format!("{at}: give buffer_pattern or data_pattern, not both"));
        } else if self.compress_percent.is_some() || self.pattern.dedupe_percent > 0 {
            self.note_no_effect("buffer_pattern");
        } else {
            // fio's buffer_pattern takes the place of zero_buffers.
            self.named_pattern = Some(PatternKind::Repeating);
            self.pattern.dedupe_percent = 100;
        }
    }

    /// Settle what fio's `verify` changes: `verify_pattern` fills the write buffers (one byte
    /// value repeated after fio's header, which keeps each block distinct; with
    /// `verify=pattern`, which writes no header, every block is the same); the options that
    /// only matter with verify do nothing without it. Combinations not simulated are refused.
    fn finish_verify(&mut self, at: &str, problems: &mut Vec<String>) {
        let Some(verify) = self.verify.clone() else {
            for (key, given) in [
                ("do_verify", !self.do_verify),
                ("verify_fatal", self.verify_fatal),
                ("verify_pattern", self.verify_pattern.is_some()),
                ("verify_backlog", self.verify_backlog.is_some()),
                ("verify_backlog_batch", self.verify_backlog_batch.is_some()),
            ] {
                if given {
                    self.note_no_effect(key);
                }
            }
            return;
        };
        if verify.pattern.is_some() {
            if self.named_pattern.is_some() || self.compress_percent.is_some() {
                problems
                    .push(format!("{at}: verify_pattern fills the write buffers: give it or data_pattern/zero_buffers/buffer_compress_percentage, not both"));
            }
            self.named_pattern = Some(PatternKind::Repeating);
            if verify.method == "pattern" {
                self.pattern.dedupe_percent = 100;
            }
        }
        if self.rw.trims_then_writes() {
            problems.push(format!("{at}: verify with rw={} is not simulated", self.rw.name()));
        }
        if verify.do_verify && self.rw.writes() {
            if self.flushes.any() {
                problems.push(format!("{at}: verify with fsync, fdatasync, end_fsync or sync is not simulated (give the flushes to a job without verify)"));
            }
            if self.time_based {
                problems.push(format!(
                    "{at}: verify with time_based: fio writes `size` bytes, verifies them and starts again until the runtime; that cycle is not simulated (drop time_based: the job writes its size, then verifies)"
                ));
            }
            if self.latency_target_ns > 0 {
                problems.push(format!("{at}: verify with latency_target is not simulated (fio searches for the depth over the verify reads too)"));
            }
        }
    }

    /// The job's rate limit from `rate_iops`/`rate` (fio's values are per direction: read,
    /// write, trim), for the directions the job issues.
    fn resolve_rate(&self) -> std::result::Result<Option<RateLimit>, String> {
        let nonzero = |given: &Option<([u64; 3], String)>| given.as_ref().is_some_and(|(v, _)| v.iter().any(|&x| x > 0));
        if nonzero(&self.rate_iops_given) && nonzero(&self.rate_bytes_given) {
            // fio's fixup_options refuses any of one with any of the other.
            return Err("rate and rate_iops are mutually exclusive (as in fio: give one of them)".to_string());
        }
        let Some(((values, text), key)) = [(&self.rate_iops_given, "rate_iops"), (&self.rate_bytes_given, "rate")]
            .into_iter()
            .find_map(|(g, k)| g.as_ref().filter(|(v, _)| v.iter().any(|&x| x > 0)).map(|g| (g, k)))
        else {
            return Ok(None);
        };
        let mixed = matches!(self.rw, RwKind::RandRw | RwKind::ReadWrite);
        let issued = [self.rw.reads() && (!mixed || self.rwmixread > 0), self.rw.writes() && (!mixed || self.rwmixread < 100), self.rw.trims()];
        if !(0..3).any(|d| issued[d] && values[d] > 0) {
            return Ok(None);
        }
        if self.rw.trims_then_writes() {
            return Err(format!(
                "{key}={text}: a rate on rw={} is not simulated (fio paces its trims and the writes after them each to its own rate)",
                self.rw.name()
            ));
        }
        let sizes_of = |d: usize| -> &[(u64, u32)] {
            match self.block_sizes_by_op.as_deref() {
                Some(by_op) => &by_op[d],
                None => &self.block_sizes,
            }
        };
        let mut directions = [None; 3];
        for d in 0..3 {
            if !issued[d] || values[d] == 0 {
                continue;
            }
            let smallest = sizes_of(d).iter().map(|(b, _)| *b).min().unwrap_or(4096);
            let (per, ns_times_per, bytes_per_second) = if key == "rate" {
                (values[d], 1_000_000_000u128 * smallest as u128, values[d])
            } else {
                (values[d], 1_000_000_000u128, values[d].saturating_mul(smallest))
            };
            directions[d] = Some(DirectionRate { bytes_per_second, ns_times_per, per });
        }
        let issued_count = issued.iter().filter(|&&i| i).count();
        let uniform = (0..3).find(|&d| issued[d]).filter(|&d| issued_count == 1 && sizes_of(d).len() == 1);
        Ok(Some(RateLimit { given: (key.to_string(), text.clone()), directions, uniform, poisson: self.rate_poisson, issued }))
    }

    /// Set the block sizes from `bs`, `bsrange` or `bssplit`'s text: one value for every
    /// direction, or fio's comma-separated values for reads, writes and trims (a value not
    /// followed by a comma applies to the directions after it; an empty one keeps the
    /// direction's value so far: `bs=8k,32k` is 8k reads, 32k writes and trims; `bs=8k,32k,`
    /// leaves trims as they were).
    fn set_block_sizes(&mut self, text: &str, at: &str, parse: impl Fn(&Self, &str, &str) -> Result<Vec<(u64, u32)>>) -> Result<()> {
        if !text.contains(',') {
            self.block_sizes = parse(self, text, at)?;
            self.block_sizes_by_op = None;
            return Ok(());
        }
        let mut fields: Vec<&str> = text.split(',').map(str::trim).collect();
        // fio strips one trailing comma after a third value (`bs=4k,8k,16k,`).
        if fields.len() == 4 && fields[3].is_empty() {
            fields.pop();
        }
        if fields.len() > 3 {
            return Err(Error::Workload(format!("{at}: `{text}`: at most three values (reads, writes, trims)")));
        }
        // An empty field keeps the direction's value so far (fio's default, 4k, or what an
        // earlier option gave, [global]'s say); a value without a comma after it goes on to the
        // directions after it.
        let mut by_op: [BlockSizes; 3] = match self.block_sizes_by_op.as_deref() {
            Some(current) => current.clone(),
            None => [self.block_sizes.clone(), self.block_sizes.clone(), self.block_sizes.clone()],
        };
        for (direction, sizes) in by_op.iter_mut().enumerate() {
            let field = match fields.get(direction) {
                Some(field) => *field,
                None => fields.last().copied().unwrap_or(""),
            };
            if !field.is_empty() {
                *sizes = parse(self, field, at)?;
            }
        }
        self.block_sizes = Self::every_size(by_op.iter());
        self.block_sizes_by_op = Some(Box::new(by_op));
        Ok(())
    }

    /// Every size of the given lists, once each (equal weights: for the span's checks).
    fn every_size<'a>(lists: impl Iterator<Item = &'a BlockSizes>) -> BlockSizes {
        let mut all: BlockSizes = lists.flatten().map(|&(bytes, _)| (bytes, 1)).collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// With sizes per direction, the sizes of the directions the job issues (fio checks and
    /// aligns each direction by its own; a read-only job's write size does not matter).
    fn settle_block_sizes(&mut self) {
        let Some(by_op) = self.block_sizes_by_op.as_deref() else { return };
        let issued = [self.rw.reads(), self.rw.writes(), self.rw.trims()];
        self.block_sizes = Self::every_size(by_op.iter().zip(issued).filter(|(_, used)| *used).map(|(sizes, _)| sizes));
    }

    /// fio's `bsrange=MIN-MAX` (or `MIN:MAX`, as fio's range parser takes when there is no
    /// `-`): sizes between the two, multiples of the smallest, equally likely. As fio, the two
    /// are swapped when the first is the larger.
    fn parse_bsrange(&self, t: &str, at: &str) -> Result<Vec<(u64, u32)>> {
        let (low, high) = t
            .split_once('-')
            .or_else(|| t.split_once(':'))
            .ok_or_else(|| Error::Workload(format!("{at}: bsrange: expected MIN-MAX (e.g. 4k-64k), got `{t}`")))?;
        let low = self.sector_size("bsrange", low, at)?;
        let high = self.sector_size("bsrange", high, at)?;
        let (low, high) = (low.min(high), low.max(high));
        let count = high / low;
        if count > MAX_BSRANGE_SIZES {
            return Err(Error::Workload(format!("{at}: bsrange: {low}-{high} spans more than {MAX_BSRANGE_SIZES} sizes")));
        }
        Ok((1..=count).map(|k| (k * low, 1)).collect())
    }

    fn parse_bssplit(&self, text: &str, at: &str) -> Result<Vec<(u64, u32)>> {
        let mut out = Vec::new();
        for part in text.split(':') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (size_text, weight_text) = part.split_once('/').unwrap_or((part, ""));
            let bytes = self.sector_size("bssplit", size_text, at)?;
            let weight: u32 = if weight_text.trim().is_empty() {
                0
            } else {
                weight_text.trim().parse().map_err(|_| Error::Workload(format!("{at}: bssplit: `{weight_text}` is not a percentage")))?
            };
            if weight > 100 {
                return Err(Error::Workload(format!("{at}: bssplit: percentage {weight} is over 100")));
            }
            out.push((bytes, weight));
        }
        if out.is_empty() {
            return Err(Error::Workload(format!("{at}: bssplit: expected size/percent[:size/percent...]")));
        }
        // As fio: entries without a percentage share what is left.
        let given: u32 = out.iter().map(|(_, w)| *w).sum();
        if given > 100 {
            return Err(Error::Workload(format!("{at}: bssplit: percentages add up to {given}, more than 100")));
        }
        let unset = out.iter().filter(|(_, w)| *w == 0).count() as u32;
        if let Some(share) = (100 - given).checked_div(unset) {
            for entry in out.iter_mut().filter(|(_, w)| *w == 0) {
                entry.1 = share;
            }
        }
        // As fio: a share no entry claims (4k/10:64k/40, or the remainder of 100/3) goes to the
        // entry with the largest percentage (fio sorts them by percentage and an unmatched draw
        // falls through to the last), not spread over them all.
        let total: u32 = out.iter().map(|(_, w)| *w).sum();
        if total > 0 && total < 100 {
            let largest = out.iter().enumerate().max_by_key(|(i, (_, w))| (*w, *i)).map(|(i, _)| i).expect("non-empty");
            out[largest].1 += 100 - total;
        }
        Ok(out)
    }

    fn parse_distribution(&self, text: &str, at: &str) -> Result<Distribution> {
        let bad = |m: String| Error::Workload(format!("{at}: random_distribution: {m}"));
        if text == "random" {
            return Ok(Distribution::Uniform);
        }
        if let Some(theta_text) = text.strip_prefix("zipf:") {
            let theta: f64 = theta_text.trim().parse().map_err(|_| bad(format!("`{theta_text}` is not a number")))?;
            if !(theta > 0.0 && theta.is_finite()) {
                return Err(bad(format!("zipf theta must be positive (got {theta_text})")));
            }
            return Ok(Distribution::Zipf(theta));
        }
        if let Some(h_text) = text.strip_prefix("pareto:") {
            let h: f64 = h_text.trim().parse().map_err(|_| bad(format!("`{h_text}` is not a number")))?;
            if !(h > 0.0 && h < 1.0) {
                return Err(bad(format!("pareto h must be above 0 and below 1, as in fio (got {h_text})")));
            }
            return Ok(Distribution::Pareto(h));
        }
        let (absolute, zones_text) = match (text.strip_prefix("zoned:"), text.strip_prefix("zoned_abs:")) {
            (Some(z), _) => (false, z),
            (_, Some(z)) => (true, z),
            _ => return Err(bad(format!("unknown `{text}` (expected random, zipf:THETA, pareto:H, zoned:ACCESS/SPAN:... or zoned_abs:ACCESS/SIZE:...)"))),
        };
        if zones_text.contains(',') {
            return Err(bad("separate zones for reads, writes and trims (`,`) are not supported; give one list".into()));
        }
        let mut zones = Vec::new();
        let mut left_percent = 100.0;
        let parts: Vec<&str> = zones_text.split(':').map(str::trim).filter(|p| !p.is_empty()).collect();
        for (index, part) in parts.iter().enumerate() {
            let (access_text, extent_text) = part.split_once('/').ok_or_else(|| bad(format!("zone `{part}`: expected ACCESS/SPAN")))?;
            let access: u32 = access_text.trim().parse().map_err(|_| bad(format!("zone `{part}`: `{access_text}` is not a percentage")))?;
            let extent_text = extent_text.trim();
            let extent = if absolute {
                ZoneExtent::Bytes(self.size("random_distribution", extent_text, at)?)
            } else if extent_text.is_empty() && index + 1 == parts.len() {
                // As fio: a last zone without a span takes what is left.
                ZoneExtent::Percent(left_percent)
            } else {
                let p: f64 = extent_text.trim_end_matches('%').parse().map_err(|_| bad(format!("zone `{part}`: `{extent_text}` is not a percentage")))?;
                ZoneExtent::Percent(p)
            };
            if let ZoneExtent::Percent(p) = extent {
                if p <= 0.0 || p.is_nan() || p > left_percent + 1e-9 {
                    return Err(bad(format!("zone `{part}`: span must be above 0 and the spans must not pass 100%")));
                }
                left_percent -= p;
            }
            zones.push(Zone { access_percent: access, extent });
        }
        let access: u32 = zones.iter().map(|z| z.access_percent).sum();
        if zones.is_empty() || access != 100 {
            return Err(bad(format!("the zones' access shares add up to {access}, not 100")));
        }
        Ok(Distribution::Zoned(zones))
    }
}

/// fio's per-direction values `READ[,WRITE[,TRIM]]`: one value is every direction's; with two,
/// trims take the second (fio's rule); an empty part is 0.
fn per_direction<F: Fn(&str) -> std::result::Result<u64, String>>(text: &str, parse: F) -> std::result::Result<[u64; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("expected READ[,WRITE[,TRIM]], got `{text}`"));
    }
    let mut values = [0u64; 3];
    for (i, part) in parts.iter().enumerate() {
        values[i] = if part.is_empty() { 0 } else { parse(part)? };
    }
    for i in parts.len()..3 {
        values[i] = values[parts.len() - 1];
    }
    Ok(values)
}

/// The name of the first `${NAME}` left in a value (unset in the environment), if any.
fn unset_variable(text: &str) -> Option<&str> {
    let start = text.find("${")?;
    let end = text[start..].find('}')?;
    Some(&text[start + 2..start + end])
}

fn log_prefix(value: Option<&str>, job: &str) -> String {
    value.map(str::trim).filter(|v| !v.is_empty()).unwrap_or(job).to_string()
}

fn parse_steady_state(text: &str, at: &str) -> Result<SteadyState> {
    let bad = || Error::Workload(format!("{at}: steadystate: expected iops|iops_slope|bw|bw_slope|lat|lat_slope:LIMIT[%], got `{text}`"));
    let (metric_text, limit_text) = text.split_once(':').ok_or_else(bad)?;
    let (metric, slope) = match metric_text.trim() {
        "iops" => (SteadyMetric::Iops, false),
        "iops_slope" => (SteadyMetric::Iops, true),
        "bw" => (SteadyMetric::Bandwidth, false),
        "bw_slope" => (SteadyMetric::Bandwidth, true),
        "lat" => (SteadyMetric::Latency, false),
        "lat_slope" => (SteadyMetric::Latency, true),
        _ => return Err(bad()),
    };
    let limit_text = limit_text.trim();
    let (percent, number) = match limit_text.strip_suffix('%') {
        Some(n) => (true, n),
        None => (false, limit_text),
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    if !(value > 0.0 && value.is_finite()) {
        return Err(bad());
    }
    Ok(SteadyState { metric, slope, limit: if percent { value / 100.0 } else { value }, percent, duration_ns: 0, ramp_ns: 0, interval_ns: 1_000_000_000 })
}

/// Build one job from `key=value` items (from the command line); every problem is reported at
/// once, one per line.
pub fn parse_options(name: &str, items: &[String]) -> Result<JobSpec> {
    let mut job = JobSpec::new(name);
    let mut problems = Vec::new();
    let split = |item: &String| -> (String, Option<String>) {
        match item.split_once('=') {
            Some((k, v)) => (k.trim().trim_start_matches("--").to_string(), Some(v.to_string())),
            None => (item.trim().trim_start_matches("--").to_string(), None),
        }
    };
    let pairs: Vec<(String, Option<String>)> = items.iter().map(split).collect();
    // kb_base first, as fio does, so every size after it reads the same way wherever it stands.
    for (key, value) in pairs.iter().filter(|(k, _)| k == "kb_base") {
        if let Err(e) = job.set_kb_base(value.as_deref(), &format!("option --{key}")) {
            problems.push(e.to_string());
        }
    }
    for (key, value) in pairs.iter().filter(|(k, _)| k != "kb_base") {
        if let Err(e) = job.set(key, value.as_deref(), &format!("option --{key}")) {
            problems.push(crate::jobfile::clip(e.to_string()));
        }
    }
    if problems.is_empty() {
        if let Err(e) = job.finish(&format!("job {name}")) {
            problems.push(e.to_string());
        }
    }
    if !problems.is_empty() {
        return Err(Error::Workload(problems.join("\n")));
    }
    let mut jobs = vec![job];
    crate::jobfile::settle_wait_for(&mut jobs)?;
    Ok(crate::jobfile::expand_numjobs(jobs).remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_core::time::NS_PER_S;

    #[test]
    fn options_parse() {
        let job = parse_options("cli", &["rw=randrw".into(), "bssplit=4k/50:64k/50".into(), "iodepth=32".into(), "runtime=3m".into(), "rwmixread=70".into()])
            .unwrap();
        assert_eq!(job.rw, RwKind::RandRw);
        assert_eq!(job.block_sizes, vec![(4096, 50), (65536, 50)]);
        assert_eq!(job.runtime_ns, Some(180 * NS_PER_S));
        assert_eq!(job.rwmixread, 70);
        let job = parse_options("cli", &["random_distribution=zipf:1.2".into(), "bssplit=4k:8k".into()]).unwrap();
        assert_eq!(job.distribution, Distribution::Zipf(1.2));
        assert_eq!(job.block_sizes, vec![(4096, 50), (8192, 50)]);
        // fio 3.33 wrote 855 4k and 8139 64k writes for bssplit=4k/10:64k/40: the unclaimed 50%
        // goes to the largest entry (it was spread: 20% and 80%).
        let job = parse_options("cli", &["bssplit=4k/10:64k/40".into()]).unwrap();
        assert_eq!(job.block_sizes, vec![(4096, 10), (65536, 90)]);
        let job = parse_options("cli", &["bssplit=4k:8k:16k".into()]).unwrap();
        assert_eq!(job.block_sizes, vec![(4096, 33), (8192, 33), (16384, 34)]);
    }

    #[test]
    fn boolean_options_take_fio_integers_and_words_and_refuse_the_rest() {
        let on = |v: &str| parse_options("cli", &[format!("time_based={v}"), "runtime=1".into()]).map(|j| j.time_based);
        for v in ["1", "2", "0x1", "true", "True", "YES", "on", ""] {
            assert!(on(v).unwrap(), "time_based={v}");
        }
        for v in ["0", "0x0", "false", "False", "NO", "off"] {
            assert!(!on(v).unwrap(), "time_based={v}");
        }
        // fio refuses these; they switched the option on before.
        for v in ["nonsense", "1.5", "tru"] {
            let message = on(v).unwrap_err().to_string();
            assert!(message.contains("time_based") && message.contains("not a boolean"), "{message}");
        }
        assert!(parse_options("cli", &["time_based".into(), "runtime=1".into()]).unwrap().time_based);
        // zero_buffers=False leaves the buffers alone (it wrote zeros before).
        assert_eq!(parse_options("cli", &["zero_buffers=False".into()]).unwrap().named_pattern, None);
        assert!(parse_options("cli", &["zero_buffers=nonsense".into()]).is_err());
    }

    #[test]
    fn fio_forms_parse() {
        let job = parse_options("cli", &["rw=read:-8k".into(), "size=10%".into(), "bsrange=4k-16k".into()]).unwrap();
        assert_eq!(job.rw_step, -8192);
        assert_eq!(job.size_percent, Some(10.0));
        assert_eq!(job.block_sizes, vec![(4096, 1), (8192, 1), (12288, 1), (16384, 1)]);
        let job = parse_options("cli", &["bs=512k".into(), "kb_base=1000".into(), "size=1024k".into()]).unwrap();
        assert_eq!((job.block_sizes[0].0, job.size_bytes), (512_000, Some(1_024_000)));
        let job = parse_options("cli", &["rw=randread".into(), "random_distribution=zoned:50/5:30/15:20/".into(), "numjobs=3".into()]).unwrap();
        match &job.distribution {
            Distribution::Zoned(z) => assert_eq!(z[2].extent, ZoneExtent::Percent(80.0)),
            other => panic!("{other:?}"),
        }
        assert_eq!(job.concurrent.len(), 2);
    }

    #[test]
    fn fio_defaults_of_refused_options_change_nothing() {
        // Job files written out in full carry fio's defaults; those are what ssdlab does.
        let defaults = [
            "fsync=0",
            "fdatasync=0",
            "end_fsync=0",
            "fsync_on_close=0",
            "sync=none",
            "startdelay=0s",
            "rate=0,0",
            "rate_iops=0",
            "rate_min=0",
            "rate_process=linear",
            "thinktime_blocks=1",
            "thinktime_spin=0",
            "percentage_random=100",
            "zonemode=none",
            "latency_target=0",
            "serialize_overlap=0",
        ];
        let mut items: Vec<String> = vec!["rw=randwrite".into()];
        items.extend(defaults.iter().map(|s| s.to_string()));
        let job = parse_options("cli", &items).unwrap();
        assert!(job.no_effect.contains(&"thinktime_spin".to_string()), "{:?}", job.no_effect);
        assert!(!job.flushes.any() && job.limits.is_none());
        // Anything else is still refused with its reason.
        for other in ["thinktime_blocks_type=issue", "zonemode=zbd", "write_barrier=1"] {
            let err = parse_options("cli", &[other.to_string()]).unwrap_err().to_string();
            assert!(err.contains(other.split('=').next().unwrap()) && !err.contains("unknown"), "{other}: {err}");
        }
        // Real fio options that change nothing are accepted, not called unknown.
        let job = parse_options("cli", &["file_service_type=random".into(), "fallocate=none".into(), "ioscheduler=none".into()]).unwrap();
        assert_eq!(job.no_effect, vec!["file_service_type", "fallocate", "ioscheduler"]);
    }

    #[test]
    fn flow_options_as_fio_reads_them() {
        let parse = |items: &[&str]| parse_options("cli", &items.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let job = parse(&["flow=8", "flow_id=3", "flow_sleep=1000"]).unwrap();
        assert_eq!(job.flow, Some(Flow { id: 3, weight: 8, sleep_ns: 1_000_000 }));
        assert_eq!(parse(&["flow=2"]).unwrap().flow, Some(Flow { id: 0, weight: 2, sleep_ns: 0 }));
        // flow=0 is fio's default: no flow control; its id and sleep then change nothing.
        let job = parse(&["flow=0", "flow_id=3", "flow_sleep=5ms"]).unwrap();
        assert!(
            job.flow.is_none() && job.no_effect.contains(&"flow_id".to_string()) && job.no_effect.contains(&"flow_sleep".to_string()),
            "{:?}",
            job.no_effect
        );
        for (items, says) in [
            (vec!["flow=1001"], "must be 0 to 1000"),
            (vec!["flow=-1"], "a negative flow is older fio's signed flow counter"),
            (vec!["flow_id=x"], "whole number"),
            (vec!["flow_sleep=soon"], "flow_sleep"),
        ] {
            let err = parse(&items).unwrap_err().to_string();
            assert!(err.contains(says), "{items:?}: {err}");
        }
    }

    #[test]
    fn rate_limits_are_read_per_direction_as_fio() {
        let job = parse_options("cli", &["rw=randread".into(), "rate_iops=500".into()]).unwrap();
        let rate = job.rate.clone().unwrap();
        assert_eq!((rate.commands_per_second(), rate.linear_offset_ns(3), rate.poisson), (Some(500.0), Some(6_000_000), false));
        // `rate=10m` at bs=4k: 2,560 commands per second.
        let job = parse_options("cli", &["rw=write".into(), "bs=4k".into(), "rate=10m".into(), "rate_process=poisson".into()]).unwrap();
        let rate = job.rate.clone().unwrap();
        assert!((rate.commands_per_second().unwrap() - 2560.0).abs() < 1e-9 && rate.poisson, "{rate:?}");
        // READ,WRITE: a write job takes the second value; `,100` limits only writes.
        let job = parse_options("cli", &["rw=randwrite".into(), "rate_iops=500,100".into()]).unwrap();
        assert_eq!(job.rate.unwrap().commands_per_second(), Some(100.0));
        let job = parse_options("cli", &["rw=randread".into(), "rate_iops=,100".into()]).unwrap();
        assert_eq!(job.rate, None);
        // With two values trims take the second, as fio.
        let job = parse_options("cli", &["rw=trim".into(), "rate_iops=500,100".into()]).unwrap();
        assert_eq!(job.rate.unwrap().commands_per_second(), Some(100.0));
        // A mixed job: each direction its own rate, paced one command at a time; a direction
        // without a rate leaves no commands-per-second figure.
        let job = parse_options("cli", &["rw=randrw".into(), "rate_iops=500,200".into()]).unwrap();
        let rate = job.rate.unwrap();
        assert_eq!((rate.uniform, rate.commands_per_second(), rate.issued), (None, Some(700.0), [true, true, false]));
        let job = parse_options("cli", &["rw=randrw".into(), "rate_iops=500,".into()]).unwrap();
        assert_eq!(job.rate.unwrap().commands_per_second(), None);
        let job = parse_options("cli", &["rw=randrw".into(), "rwmixread=100".into(), "rate_iops=500,".into()]).unwrap();
        assert_eq!(job.rate.unwrap().commands_per_second(), Some(500.0));
        // Several block sizes: paced by bytes at the smallest size (rate_iops x 4 KiB).
        let job = parse_options("cli", &["rw=randread".into(), "bsrange=4k-16k".into(), "rate_iops=500".into()]).unwrap();
        let rate = job.rate.unwrap();
        assert_eq!((rate.uniform, rate.directions[0].unwrap().bytes_per_second), (None, 500 * 4096));
        // Sizes per direction: a read job of one read size is paced slot by slot.
        let job = parse_options("cli", &["rw=randread".into(), "bs=4k,64k".into(), "rate=8m".into()]).unwrap();
        assert_eq!(job.rate.unwrap().uniform, Some(0));
        // Refused clearly: both options (fio: mutually exclusive, whatever the directions),
        // trimwrite, verify with a rate paced by bytes.
        for (items, says) in [
            (vec!["rw=randread", "rate_iops=500", "rate=1m"], "mutually exclusive"),
            (vec!["rw=randrw", "rate_iops=,500", "rate=1m,"], "mutually exclusive"),
            (vec!["rw=trimwrite", "rate_iops=500"], "rw=trimwrite is not simulated"),
            (vec!["rw=randrw", "rate_iops=500", "verify=crc32c"], "with verify, is not simulated"),
            (vec!["rw=randread", "rate_process=bursty"], "unknown process"),
            (vec!["rw=randread", "rate_iops=fast"], "whole number"),
            (vec!["rw=randread", "rate_iops=100", "rate_iops_min=500"], "rate_iops_min (500) exceeds rate_iops (100) for reads"),
            (vec!["rw=randread", "rate_min=1m", "rate_iops_min=5"], "not both"),
            (vec!["rw=randread", "rate_iops_min=-1"], "whole number"),
            (vec!["rw=randread", "max_latency=soon"], "max_latency"),
            (vec!["rw=randread", "max_latency=1,2,3,4"], "READ[,WRITE[,TRIM]]"),
            (vec!["rw=randread", "rate_cycle=x"], "rate_cycle"),
            (vec!["rw=randread", "max_latency=1ms", "continue_on_error=all"], "continue_on_error with max_latency"),
        ] {
            let items: Vec<String> = items.iter().map(|s| s.to_string()).collect();
            let err = parse_options("cli", &items).unwrap_err().to_string();
            assert!(err.contains(says), "{items:?}: {err}");
        }
    }

    #[test]
    fn error_ending_limits_are_read_per_direction_as_fio() {
        let job = parse_options("cli", &["rw=randrw".into(), "max_latency=2ms,500".into(), "rate_iops_min=,100".into(), "ratecycle=250".into()]).unwrap();
        let limits = job.limits.unwrap();
        assert_eq!(limits.max_latency_ns, [2_000_000, 500_000, 500_000]);
        assert_eq!((limits.min_iops, limits.min_bytes_per_s, limits.rate_cycle_ms), ([0, 100, 100], [0; 3], 250));
        let job = parse_options("cli", &["rw=read".into(), "rate_min=1m".into(), "continue_on_error=none".into(), "exitall_on_error".into()]).unwrap();
        assert_eq!(job.limits.unwrap().min_bytes_per_s, [1 << 20; 3]);
        assert!(job.exitall_on_error);
        // fio's defaults limit nothing; rate_cycle alone changes nothing.
        let job = parse_options("cli", &["rw=read".into(), "max_latency=0".into(), "rate_min=0".into(), "rate_cycle=500".into()]).unwrap();
        assert_eq!(job.limits, None);
        assert!(job.no_effect.contains(&"rate_cycle".to_string()), "{:?}", job.no_effect);
    }

    #[test]
    fn flushes_are_read_as_fio_gives_them() {
        let job = parse_options("cli", &["rw=randwrite".into(), "fsync=4".into(), "fdatasync=6".into(), "end_fsync".into(), "sync=dsync".into()]).unwrap();
        assert_eq!(job.flushes, Flushes { fsync_every: 4, fdatasync_every: 6, end_fsync: true, fsync_on_close: false, sync_writes: true });
        assert!(!job.flushes.due_after(0) && job.flushes.due_after(4) && job.flushes.due_after(6) && !job.flushes.due_after(5));
        for (items, says) in [
            (vec!["rw=randwrite", "fsync=-1"], "whole number"),
            (vec!["rw=randwrite", "sync=sometimes"], "sync: unknown value"),
            (vec!["rw=randwrite", "fsync=1", "verify=crc32c"], "verify with fsync"),
        ] {
            let items: Vec<String> = items.iter().map(|s| s.to_string()).collect();
            let err = parse_options("cli", &items).unwrap_err().to_string();
            assert!(err.contains(says), "{items:?}: {err}");
        }
    }

    #[test]
    fn buffer_pattern_makes_every_buffer_the_same_unless_compression_or_dedupe_is_asked() {
        let job = parse_options("cli", &["rw=write".into(), "buffer_pattern=0xdeadbeef".into(), "zero_buffers".into()]).unwrap();
        assert_eq!((job.pattern.kind, job.pattern.dedupe_percent), (PatternKind::Repeating, 100));
        let job = parse_options("cli", &["rw=write".into(), "buffer_pattern=\"abc\"".into(), "buffer_compress_percentage=50".into()]).unwrap();
        assert!(matches!(job.pattern.kind, PatternKind::FioCompress { percent: 50, .. }) && job.no_effect.contains(&"buffer_pattern".to_string()));
        for (items, says) in
            [(vec!["rw=write", "buffer_pattern='data.bin'"], "file's contents"), (vec!["rw=write", "buffer_pattern=0xab", "data_pattern=text"], "not both")]
        {
            let items: Vec<String> = items.iter().map(|s| s.to_string()).collect();
            let err = parse_options("cli", &items).unwrap_err().to_string();
            assert!(err.contains(says), "{items:?}: {err}");
        }
        let job = parse_options("cli", &["rw=write".into(), "thinktime=100".into(), "thinktime_spin=50".into()]).unwrap();
        assert_eq!(job.thinktime_ns, 100_000);
        assert!(job.no_effect.contains(&"thinktime_spin".to_string()));
    }

    #[test]
    fn startdelay_in_seconds_or_a_range() {
        let job = parse_options("cli", &["startdelay=5".into()]).unwrap();
        assert_eq!(job.startdelay_ns, (5_000_000_000, 5_000_000_000));
        let job = parse_options("cli", &["startdelay=500ms-2".into()]).unwrap();
        assert_eq!(job.startdelay_ns, (500_000_000, 2_000_000_000));
        let err = parse_options("cli", &["startdelay=5-1".into()]).unwrap_err().to_string();
        assert!(err.contains("ends before it starts"), "{err}");
    }

    #[test]
    fn thinktime_blocks_as_fio() {
        let job = parse_options("cli", &["thinktime=10".into(), "thinktime_blocks=8".into(), "thinktime_blocks_type=complete".into()]).unwrap();
        assert_eq!((job.thinktime_ns, job.thinktime_blocks), (10_000, 8));
        for (item, says) in [("thinktime_blocks=0", "at least 1"), ("thinktime_blocks_type=issue", "not simulated")] {
            let err = parse_options("cli", &[item.to_string()]).unwrap_err().to_string();
            assert!(err.contains(says), "{item}: {err}");
        }
    }

    #[test]
    fn every_problem_is_named_at_once() {
        let err = parse_options("cli", &["rw=randwrite".into(), "iodeph=4".into(), "bogus=1".into()]).unwrap_err().to_string();
        assert!(err.contains("unknown fio option `iodeph`") && err.contains("`bogus`"), "{err}");
        let err = parse_options("cli", &["rw=sideways".into()]).unwrap_err().to_string();
        assert!(err.contains("sideways"), "{err}");
        let err = parse_options("cli", &["bs=1000".into()]).unwrap_err().to_string();
        assert!(err.contains("multiple of 512"), "{err}");
        let err = parse_options("cli", &["rwmixread=150".into()]).unwrap_err().to_string();
        assert!(err.contains("rwmixread"), "{err}");
        let err = parse_options("cli", &["rwmixread=60".into(), "rwmixwrite=30".into()]).unwrap_err().to_string();
        assert!(err.contains("disagree"), "{err}");
        // fio caps a synchronous engine's queue depth at 1 (it printed QD32 and ran 32 deep),
        // every one of them (ime_psync ran 32 deep).
        let job = parse_options("cli", &["ioengine=psync".into(), "iodepth=32".into()]).unwrap();
        assert!(job.iodepth == 1 && job.no_effect.is_empty(), "{job:?}");
        let job = parse_options("cli", &["ioengine=ime_psync".into(), "iodepth=32".into()]).unwrap();
        assert_eq!(job.iodepth, 1);
        // An engine fio does not have, or one that moves no data to a drive, is refused (both ran
        // as block reads).
        let err = parse_options("cli", &["ioengine=bogus".into()]).unwrap_err().to_string();
        assert!(err.contains("ioengine: `bogus` is not one of fio's IO engines"), "{err}");
        let err = parse_options("cli", &["ioengine=dircreate".into()]).unwrap_err().to_string();
        assert!(err.contains("creates directories") && err.contains("moves no data"), "{err}");
        // An option ssdlab does not know is named as such, whatever its value (an unset
        // variable in it was reported first); fio's alias nr_files changes nothing, as nrfiles.
        let err = parse_options("cli", &["frobnicate=${SSDLAB_SURELY_UNSET_VARIABLE}".into()]).unwrap_err().to_string();
        assert!(err.contains("unknown fio option `frobnicate`"), "{err}");
        // exit_what=stonewall is group's when one group runs at a time; all is refused.
        assert!(parse_options("cli", &["exit_what=stonewall".into()]).is_ok());
        assert!(parse_options("cli", &["exit_what=all".into()]).is_err());
        let job = parse_options("cli", &["nr_files=4".into()]).unwrap();
        assert_eq!(job.no_effect, vec!["nr_files".to_string()]);
        // fio's zone units need its zoned mode.
        let err = parse_options("cli", &["size=4z".into()]).unwrap_err().to_string();
        assert!(err.contains("counts zones"), "{err}");
        let job = parse_options("cli", &["iodepth=32".into(), "ioengine=libaio".into()]).unwrap();
        assert_eq!((job.iodepth, job.no_effect.clone()), (32, vec!["ioengine".to_string()]));
        let err = parse_options("cli", &["numjobs=$ncpus".into(), "bs=$pagesize".into()]).unwrap_err().to_string();
        assert!(err.contains("numjobs: fio's `$ncpus` is a property of the machine") && err.contains("bs: fio's `$pagesize`"), "{err}");
        // fio's values per direction (reads, writes, trims; a value without a comma after it
        // goes on to the directions after it; an empty one is 4k).
        let by_op = |item: &str| -> Vec<Vec<u64>> {
            let job = parse_options("cli", &[item.to_string()]).unwrap();
            job.block_sizes_by_op.expect("per direction").iter().map(|sizes| sizes.iter().map(|s| s.0).collect()).collect()
        };
        assert_eq!(by_op("bs=8k,32k"), vec![vec![8192], vec![32768], vec![32768]]);
        assert_eq!(by_op("bs=8k,32k,"), vec![vec![8192], vec![32768], vec![4096]]);
        assert_eq!(by_op("bs=,8k"), vec![vec![4096], vec![8192], vec![8192]]);
        assert_eq!(by_op("bsrange=4k-8k,16k-32k"), vec![vec![4096, 8192], vec![16384, 32768], vec![16384, 32768]]);
        assert_eq!(by_op("bssplit=4k/50:64k/50,1m"), vec![vec![4096, 65536], vec![1 << 20], vec![1 << 20]]);
        let job = parse_options("cli", &["bs=8k,32k".into(), "bs=16k".into()]).unwrap();
        assert!(job.block_sizes_by_op.is_none() && job.block_sizes == vec![(16384, 100)]);
        let err = parse_options("cli", &["bs=4k,8k,16k,32k".into()]).unwrap_err().to_string();
        assert!(err.contains("at most three values"), "{err}");
        // An empty field keeps what came before ([global]'s bs=16k), not fio's 4k; one trailing
        // comma after three values is dropped, as fio does.
        let job = parse_options("cli", &["bs=16k".into(), "bs=,64k".into()]).unwrap();
        assert_eq!(job.block_sizes_by_op.unwrap().map(|sizes| sizes[0].0), [16384, 65536, 65536]);
        assert_eq!(by_op("bs=4k,8k,16k,"), vec![vec![4096], vec![8192], vec![16384]]);
        let job = parse_options("cli", &["verify=crc32c".into(), "rw=randwrite".into()]).unwrap();
        assert_eq!(job.verify, Some(Verify { method: "crc32c".into(), do_verify: true, fatal: false, pattern: None, backlog: 0, backlog_batch: 0 }));
        let err = parse_options("cli", &["verify=crc99".into()]).unwrap_err().to_string();
        assert!(err.contains("verify: unknown method `crc99`"), "{err}");
        let err = parse_options("cli", &["verify=md5".into(), "rw=write".into(), "time_based".into(), "runtime=5".into()]).unwrap_err().to_string();
        assert!(err.contains("verify with time_based"), "{err}");
        // verify_pattern fills the buffers with a repeated pattern; verify=pattern repeats blocks.
        let job = parse_options("cli", &["verify=meta".into(), "verify_pattern=0xaa555aa5".into()]).unwrap();
        assert_eq!((job.pattern.kind, job.pattern.dedupe_percent), (PatternKind::Repeating, 0));
        let job = parse_options("cli", &["verify=pattern".into(), "verify_pattern=0xaa".into()]).unwrap();
        assert_eq!((job.pattern.kind, job.pattern.dedupe_percent), (PatternKind::Repeating, 100));
        // Without verify its companions do nothing.
        let job = parse_options("cli", &["verify=0".into(), "do_verify=0".into(), "verify_fatal=1".into()]).unwrap();
        assert!(job.verify.is_none() && ["verify", "do_verify", "verify_fatal"].iter().all(|k| job.no_effect.contains(&k.to_string())), "{job:?}");
    }
}
