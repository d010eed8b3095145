//! The value types of fio's options: access kinds, verify, zones, distributions, extents,
//! steady state, logs, rates, flow control, flushes and latency targets.

use ssdlab_core::Nanoseconds;

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
    pub(super) fn parse(text: &str) -> Option<Self> {
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

/// fio's default `percentile_list` (stat.c): the latency percentiles its reports give.
pub const FIO_DEFAULT_PERCENTILES: [f64; 17] = [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];

/// Most percentiles `percentile_list` takes (fio's `FIO_IO_U_LIST_MAX_LEN`).
pub const MAX_PERCENTILES: usize = 20;

/// fio's `percentile_list`, `clat_percentiles` and `lat_percentiles` of a job: which latency
/// percentiles its reports give, and on which latency (a simulated command has no submission
/// latency, so its completion and total latencies are the same figures).
#[derive(Debug, Clone, PartialEq)]
pub struct PercentileSettings {
    /// The percentiles, ascending (fio sorts them), each above 0 and at most 100.
    pub list: Vec<f64>,
    /// Completion latency's percentiles reported (`clat_percentiles`, default on).
    pub clat: bool,
    /// Total latency's percentiles reported (`lat_percentiles`, default off).
    pub lat: bool,
    /// Each latency's histogram in fio's buckets reported too (fio's `--output-format=json+`
    /// `bins`): not an option of a job, set by the command line that asks for that output.
    pub bins: bool,
}

impl Default for PercentileSettings {
    fn default() -> Self {
        Self { list: FIO_DEFAULT_PERCENTILES.to_vec(), clat: true, lat: false, bins: false }
    }
}

impl PercentileSettings {
    /// `percentile_list`'s value: percentiles separated by `:` (`99:99.9:99.99`), each above 0
    /// and at most 100, at most [`MAX_PERCENTILES`]; sorted ascending, repeats kept once.
    pub(crate) fn parse_list(text: &str) -> std::result::Result<Vec<f64>, String> {
        let mut list = Vec::new();
        for item in text.split(':').map(str::trim) {
            let p: f64 = item.parse().map_err(|_| format!("`{item}` is not a number (expected percentiles separated by `:`, such as 99:99.9:99.99)"))?;
            if !(p > 0.0 && p <= 100.0) {
                return Err(format!("{item} is not a percentile above 0 and at most 100"));
            }
            list.push(p);
        }
        if list.len() > MAX_PERCENTILES {
            return Err(format!("{} percentiles given; fio takes at most {MAX_PERCENTILES}", list.len()));
        }
        list.sort_by(f64::total_cmp);
        list.dedup();
        Ok(list)
    }
}

/// The options a job was given, as given (key, value; an empty value for a flag given without
/// one), for fio's JSON, which echoes them: `global` those of the job file's `[global]`
/// sections and of the command line beside a job file (`global options`), `job` those of the
/// job's own section (`job options`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OptionsEcho {
    /// Options that came from `[global]` or the command line beside a job file.
    pub global: Vec<(String, String)>,
    /// Options of the job's own section (or, on fio's command line, after its `--name`).
    pub job: Vec<(String, String)>,
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
    /// fio's `per_job_logs=0`: the logs of a prefix go in one file named without a number
    /// (`PREFIX_lat.log`), every job's rows in it, instead of one file per job.
    pub shared: bool,
    /// fio's `bwavgtime`, milliseconds, when given: the window of the bandwidth samples
    /// behind fio's `bw_min`/`bw_max`/`bw_mean`/`bw_dev` (see [`LogSettings::bw_sample_ms`]).
    pub bw_avg_msec: Option<u64>,
    /// fio's `iopsavgtime`, milliseconds, when given: the window of the IOPS samples.
    pub iops_avg_msec: Option<u64>,
}

/// fio's default window of its bandwidth and IOPS samples (`bwavgtime`, `iopsavgtime`), ms.
pub const DEFAULT_SAMPLE_MSEC: u64 = 500;

impl LogSettings {
    /// Window of the job's bandwidth samples, ms, as fio sets it: `bwavgtime` when given (at
    /// least 1); else, for a job with a windowed bandwidth log, its `log_avg_msec`; else 500.
    /// (fio takes a sample per command for a job logging every command, `write_bw_log`
    /// without `log_avg_msec`; ssdlab keeps 500 ms windows there.)
    pub fn bw_sample_ms(&self) -> u64 {
        Self::sample_ms(self.bw_avg_msec, self.bw.is_some(), self.avg_msec)
    }

    /// Window of the job's IOPS samples, ms, as [`Self::bw_sample_ms`] with `iopsavgtime`
    /// and `write_iops_log`.
    pub fn iops_sample_ms(&self) -> u64 {
        Self::sample_ms(self.iops_avg_msec, self.iops.is_some(), self.avg_msec)
    }

    fn sample_ms(given: Option<u64>, logged: bool, log_avg_msec: u64) -> u64 {
        match given {
            Some(ms) => ms.max(1),
            None if logged && log_avg_msec > 0 => log_avg_msec,
            None => DEFAULT_SAMPLE_MSEC,
        }
    }
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

/// How fio reports a job's reads, writes and trims (`unified_rw_reporting`): only the report
/// changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RwReporting {
    /// Each kind apart (`none`, `0`: fio's default).
    #[default]
    Apart,
    /// One `mixed` entry instead of the kinds (`mixed`, `1`).
    Mixed,
    /// Each kind apart, then the `mixed` entry (`both`, `2`).
    Both,
}

impl RwReporting {
    /// The mode of a `unified_rw_reporting` value (fio's names or numbers; no value is `mixed`,
    /// as the option's older boolean form), or what was expected.
    pub fn parse(value: Option<&str>) -> std::result::Result<Self, String> {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("mixed") | Some("1") => Ok(Self::Mixed),
            Some("none") | Some("0") => Ok(Self::Apart),
            Some("both") | Some("2") => Ok(Self::Both),
            Some(other) => Err(format!("unknown mode `{other}` (expected none, mixed or both, or 0, 1 or 2)")),
        }
    }

    /// fio's name of the mode (`none`, `mixed`, `both`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Apart => "none",
            Self::Mixed => "mixed",
            Self::Both => "both",
        }
    }
}
