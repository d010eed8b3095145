//! fio options: one job's settings and how each `key=value` changes them.
//!
//! The option value types are in `options/values.rs`, block sizes in `options/block_sizes.rs`,
//! `random_distribution` in `options/distribution.rs`, and the checks on a job as a whole
//! ([`JobSpec::finish`]) in `options/finish.rs`.

use crate::catalogue::{is_fio_default, no_effect_reason, not_simulated_reason};
use crate::limits::{GivenLimits, JobLimits};
use ssdlab_core::units::{parse_size_bytes_with, parse_time_ns, KbBase, TimeUnit};
use ssdlab_core::{Error, Nanoseconds, Result};
use ssdlab_reduce::{DataPattern, PatternKind};

mod block_sizes;
mod distribution;
mod finish;
mod values;

pub use values::{
    BlockSizes, DirectionRate, Distribution, Extent, Flow, Flushes, LatencyTarget, LogSettings, OptionsEcho, PercentileSettings, RateLimit, RwKind,
    RwReporting, SteadyMetric, SteadyState, StridedZones, Verify, Zone, ZoneExtent, FIO_DEFAULT_PERCENTILES, MAX_PERCENTILES, RW_VALUES, VERIFY_METHODS,
};

/// Most commands one job keeps in flight (fio's own limit).
pub const MAX_IODEPTH: u32 = 65_536;
/// Most copies `numjobs` makes of one job.
pub const MAX_NUMJOBS: u32 = 1024;

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
    /// Where `filesize` last stood: the span's place once `finish` settles it from the file.
    filesize_at: Option<String>,
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
    /// fio's `continue_on_error` was given a value other than its default (none): the drive
    /// returns no IO errors, so only fio's terse output changes (its error count and first
    /// error, both 0, at the end of the line).
    pub continue_on_error: bool,
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
    /// ssdlab's own, for its preconditioning steps (`seq-fill`, `trim-all`), never set by a
    /// job's options: a sequential pass ends with its last block cut to the span's end, so that
    /// every byte of the span is written, as fio lays out a file (`extend_file`); a job's own
    /// passes issue no partial block.
    pub cut_last_block: bool,
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
    /// fio's `new_group`: the job starts a new reporting group (fio's `groupid`) without waiting
    /// for the jobs before it. Only the report's group ids change (`stonewall` starts one too).
    pub new_group: bool,
    /// The job's `stonewall` is ssdlab's, set for its `wait_for` (`settle_wait_for`): in fio the
    /// job waits, but stays in the reporting group before it.
    pub stonewall_for_wait: bool,
    /// fio's `unified_rw_reporting`: the job's reads, writes and trims reported apart, as one
    /// `mixed` entry, or both. Only the report changes.
    pub unified_rw_reporting: RwReporting,
    /// Steady-state termination, if asked for.
    pub steady_state: Option<SteadyState>,
    /// Logs to write.
    pub logs: LogSettings,
    /// The latency percentiles reported (`percentile_list`, `clat_percentiles`,
    /// `lat_percentiles`).
    pub percentiles: PercentileSettings,
    /// The options as given, for fio's JSON echo of them (empty for jobs ssdlab makes itself).
    pub echo: OptionsEcho,
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
            filesize_at: None,
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
            cut_last_block: false,
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
            new_group: false,
            stonewall_for_wait: false,
            unified_rw_reporting: RwReporting::Apart,
            percentage_random: 100,
            sync_engine: false,
            steady_state: None,
            logs: LogSettings::default(),
            percentiles: PercentileSettings::default(),
            echo: OptionsEcho::default(),
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

    /// A text equal for two jobs that run the same simulation, whatever the spelling of their
    /// options (`bs=4k` and `bs=4096`): the parsed job without the options as given and where
    /// they stood (a sweep refuses two grid points that are one simulation by it).
    pub fn simulation_key(&self) -> String {
        let mut job = self.clone();
        job.forget_spelling();
        format!("{job:?}")
    }

    /// Drop what only says how the options were written (see [`JobSpec::simulation_key`]).
    fn forget_spelling(&mut self) {
        self.echo = OptionsEcho::default();
        for at in [&mut self.filesize_at, &mut self.offset_at, &mut self.increment_at, &mut self.size_at, &mut self.zone_at] {
            *at = None;
        }
        for given in [&mut self.rate_iops_given, &mut self.rate_bytes_given].into_iter().flatten() {
            given.1.clear();
        }
        if let Some(rate) = &mut self.rate {
            rate.given.1.clear();
        }
        for job in &mut self.concurrent {
            job.forget_spelling();
        }
    }

    /// This job and the jobs that run beside it.
    pub fn group(&self) -> impl Iterator<Item = &JobSpec> {
        std::iter::once(self).chain(self.concurrent.iter())
    }

    /// This job and the jobs beside it with each latency's histogram in fio's buckets reported
    /// (fio's `--output-format=json+`; [`PercentileSettings::bins`]).
    pub fn with_fio_bins(&self) -> JobSpec {
        let mut spec = self.clone();
        spec.percentiles.bins = true;
        for job in &mut spec.concurrent {
            job.percentiles.bins = true;
        }
        spec
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
            "size" => self.size_at = Some(format!("{at}: {key}")),
            "filesize" => self.filesize_at = Some(format!("{at}: {key}")),
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
                let values = per_direction_iops(t, kb_base).map_err(|m| Error::Workload(format!("{at}: rate_iops: {m}")))?;
                self.rate_iops_given = Some((values, t.to_string()));
            }
            "rate" => {
                let t = need()?;
                let kb_base = self.kb_base;
                let values = per_direction(t, |part| parse_size_bytes_with(part, kb_base)).map_err(|m| Error::Workload(format!("{at}: rate: {m}")))?;
                self.rate_bytes_given = Some((values, t.to_string()));
            }
            "flow" => {
                // fio 3.33's flow is a weight, at most 1000, kept in an unsigned int. Its parser
                // still takes a negative value (older fio's signed flow counter, as fio's
                // butterfly.fio has it: 2 and -2), which wraps to a huge weight (2^32 - 2), and
                // the flow's total weight, also an unsigned int, wraps with it: 2 and -2 total 0,
                // and neither job is held back (fio 3.33 runs butterfly.fio's jobs freely).
                let t = need()?;
                self.flow_weight =
                    match t.trim().strip_prefix('-') {
                        Some(magnitude) => {
                            magnitude.trim().parse::<u64>().ok().filter(|&m| m <= 1 << 31).map(|m| (m as u32).wrapping_neg()).ok_or_else(|| {
                                Error::Workload(format!("{at}: flow: expected a whole number from -2147483648 to 1000 (fio's weight), got `{t}`"))
                            })?
                        }
                        None => int(1000)? as u32,
                    };
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
                let values = per_direction_iops(t, kb_base).map_err(|m| Error::Workload(format!("{at}: rate_iops_min: {m}")))?;
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
                // One range in every message: 0 is refused with the same words as a value
                // above the limit (fio 3.33 itself fails on 0 with "maximum number of jobs
                // reached").
                let n = int(u64::MAX)?;
                if n == 0 || n > MAX_NUMJOBS as u64 {
                    return Err(Error::Workload(format!("{at}: numjobs: must be 1 to {MAX_NUMJOBS} (got {n})")));
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
            "new_group" => self.new_group = flag(key, value, at)?,
            "percentile_list" => {
                self.percentiles.list = PercentileSettings::parse_list(need()?).map_err(|why| Error::Workload(format!("{at}: percentile_list: {why}")))?
            }
            "clat_percentiles" => self.percentiles.clat = flag(key, value, at)?,
            "lat_percentiles" => self.percentiles.lat = flag(key, value, at)?,
            "unified_rw_reporting" => {
                self.unified_rw_reporting = RwReporting::parse(value).map_err(|why| Error::Workload(format!("{at}: unified_rw_reporting: {why}")))?
            }
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
            "bwavgtime" => self.logs.bw_avg_msec = Some(int(u64::MAX / 1_000_000)?),
            "iopsavgtime" => self.logs.iops_avg_msec = Some(int(u64::MAX / 1_000_000)?),
            "per_job_logs" => self.logs.shared = !flag(key, value, at)?,
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

/// A per-direction rate in IOs per second (`rate_iops`, `rate_iops_min`): whole numbers, or with
/// fio's size suffixes (`2k`), each direction as [`per_direction`] reads them.
fn per_direction_iops(text: &str, kb_base: KbBase) -> std::result::Result<[u64; 3], String> {
    per_direction(text, |part| {
        part.parse::<u64>().or_else(|_| parse_size_bytes_with(part, kb_base)).map_err(|_| format!("`{part}` is not a whole number of IOs per second"))
    })
}

/// The name of the first `${NAME}` left in a value (unset in the environment), if any.
fn unset_variable(text: &str) -> Option<&str> {
    let start = text.find("${")?;
    let end = text[start..].find('}')?;
    Some(&text[start + 2..start + end])
}

/// fio's log prefix: the value given, else the job's name. A job's name that is a path (fio's
/// job named after its device, `[/dev/sdb]` in fio's `disk-zone-profile.fio`) would put fio's
/// log beside the device; ssdlab keeps it in the current folder, the path's `/` as `_`
/// (`dev_sdb_bw.1.log`). A prefix given as a path is kept as given.
fn log_prefix(value: Option<&str>, job: &str) -> String {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(given) => given.to_string(),
        None => job.trim_start_matches('/').replace('/', "_"),
    }
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
mod tests;
