//! Trace replay against a drive.
//!
//! Two modes: *queue depth* (as the Storage Bench ran: as fast as the drive allows, each request
//! issued as soon as fewer requests are outstanding than the trace had when it arrived) and
//! *timestamps* (open loop: each request arrives at its recorded time, optionally scaled; the
//! host queues it while NCQ is full). Reads the trace as a stream: memory does not grow with
//! its length.

use crate::drive::Drive;
use crate::inflight::InFlightQueue;
use crate::session::MAX_SIMULATED_NS;

/// Largest factor on a trace's inter-arrival times (a million times slower).
pub const MAX_TIME_SCALE: f64 = 1e6;
use crate::metrics::{LatencySummary, Metrics, SeriesRow};
use serde::Serialize;
use ssdlab_core::time::seconds;
use ssdlab_core::{bail, Nanoseconds, Result};
use ssdlab_reduce::{ContentStream, NamedContent};
use ssdlab_trace::{QueueDepth, TraceOp, TraceRecord};
use ssdlab_workload::{Io, Op};

/// How requests are timed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ReplayMode {
    /// As fast as possible, keeping each request's queue depth from the trace.
    QueueDepth,
    /// At the recorded times multiplied by `scale` (open loop).
    Timestamps {
        /// Factor applied to the trace's inter-arrival times (0.5 = twice as fast).
        scale: f64,
    },
}

/// What a replay reports.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReplaySummary {
    /// `queue-depth` or `timestamps`.
    pub mode: String,
    /// Requests replayed.
    pub requests: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// TRIM requests.
    pub trims: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Requests whose address was folded into the drive (with remapping).
    pub remapped: u64,
    /// Simulated time from the first arrival to the last completion.
    pub simulated_seconds: f64,
    /// Time with at least one request outstanding.
    pub busy_seconds: f64,
    /// Time with at least one read outstanding.
    pub busy_read_seconds: f64,
    /// Time with at least one write outstanding.
    pub busy_write_seconds: f64,
    /// (read + written bytes) / busy time, MB/s: the Storage Bench's average data rate.
    pub average_mbps: f64,
    /// Read bytes / read busy time, MB/s.
    pub read_mbps: f64,
    /// Written bytes / write busy time, MB/s.
    pub write_mbps: f64,
    /// Requests per simulated second.
    pub iops: f64,
    /// Latency of all requests, microseconds.
    pub latency_us: Option<LatencySummary>,
    /// NAND bytes programmed / host bytes written.
    pub write_amplification: Option<f64>,
    /// Bytes read of sectors never written (or trimmed): answered from the map, no NAND.
    pub unmapped_read_bytes: u64,
    /// What the data-reduction engine did during the replay (drives with one): bytes stored,
    /// deduplication hits, zero sectors.
    pub reduction: Option<crate::run::ReductionReport>,
    /// Wall-clock time spent.
    pub wall_seconds: f64,
}

/// A replay in progress.
pub struct TraceRun {
    origin: String,
    records: Box<dyn Iterator<Item = Result<TraceRecord>> + Send>,
    mode: ReplayMode,
    remap: bool,
    capacity: u64,
    depth_max: u32,
    queue_depth: QueueDepth,
    next: Option<(TraceRecord, u32)>,
    exhausted: bool,
    content: ContentStream,
    /// Writes of at least this many bytes take their content from the second stream (a
    /// workload whose large transfers are media, archives and downloads), if set.
    large_writes: Option<(u64, ContentStream)>,
    start_ns: Nanoseconds,
    now_ns: Nanoseconds,
    inflight: InFlightQueue,
    metrics: Metrics,
    counts: [u64; 3],
    bytes: [u64; 3],
    remapped: u64,
    nand_base: u64,
    host_write_base: u64,
    /// The drive's bytes read from unmapped sectors before the replay.
    unmapped_read_bytes_base: u64,
    reduction_base: Option<ssdlab_ftl::ChunkStats>,
    last_done_ns: Nanoseconds,
}

fn op_index(op: TraceOp) -> usize {
    match op {
        TraceOp::Read => 0,
        TraceOp::Write => 1,
        TraceOp::Trim => 2,
    }
}

impl TraceRun {
    /// The trace's name in messages, and the requests replayed so far.
    pub fn origin_and_requests(&self) -> (&str, u64) {
        (&self.origin, self.counts.iter().sum())
    }

    /// Prepare a replay of `records` (read from `origin`, named in messages) on `drive` from
    /// simulated time `at_ns`; writes carry their content from `content`.
    pub fn new(
        drive: &Drive,
        origin: &str,
        records: Box<dyn Iterator<Item = Result<TraceRecord>> + Send>,
        mode: ReplayMode,
        remap: bool,
        content: ContentStream,
        at_ns: Nanoseconds,
    ) -> Result<Self> {
        if let ReplayMode::Timestamps { scale } = mode {
            if !(scale > 0.0 && scale <= MAX_TIME_SCALE) {
                bail!(Workload, "time scale must be a positive number no larger than {MAX_TIME_SCALE} (got {scale})");
            }
        }
        let f = drive.flash().counters();
        Ok(Self {
            origin: origin.to_string(),
            records,
            mode,
            remap,
            capacity: drive.usable_bytes(),
            depth_max: drive.profile().host.queue_depth_max,
            queue_depth: QueueDepth::new(),
            next: None,
            exhausted: false,
            content,
            large_writes: None,
            start_ns: at_ns,
            now_ns: at_ns,
            inflight: InFlightQueue::new(drive.profile().host.queue_depth_max as usize, at_ns),
            metrics: Metrics::new(at_ns),
            counts: [0; 3],
            bytes: [0; 3],
            remapped: 0,
            nand_base: f.bytes_programmed_host + f.bytes_programmed_internal,
            host_write_base: drive.counters().host_write_bytes,
            unmapped_read_bytes_base: drive.counters().unmapped_read_bytes,
            reduction_base: drive.translation().reduction_stats().cloned(),
            last_done_ns: at_ns,
        })
    }

    /// Whether every request has completed.
    pub fn is_done(&self) -> bool {
        self.exhausted && self.next.is_none() && self.inflight.is_empty()
    }

    /// Simulated time of the last completion.
    pub fn end_ns(&self) -> Nanoseconds {
        self.last_done_ns
    }

    /// Requests completed so far.
    pub fn completed(&self) -> u64 {
        self.counts.iter().sum::<u64>() - self.inflight.len() as u64
    }

    /// Simulated time so far.
    pub fn simulated_ns(&self) -> Nanoseconds {
        self.now_ns - self.start_ns
    }

    /// The per-second series so far.
    pub fn series(&self) -> &[SeriesRow] {
        &self.metrics.series
    }

    fn peek(&mut self) -> Result<()> {
        if self.next.is_none() && !self.exhausted {
            match self.records.next() {
                None => self.exhausted = true,
                Some(r) => {
                    let r = r?;
                    let depth = self.queue_depth.observe(&r);
                    self.next = Some((r, depth));
                }
            }
        }
        Ok(())
    }

    fn io_of(&mut self, r: &TraceRecord) -> Result<Io> {
        let op = match r.op {
            TraceOp::Read => Op::Read,
            TraceOp::Write => Op::Write,
            TraceOp::Trim => Op::Trim,
        };
        // Whole 512-byte sectors covering the request (the parser bounds addresses well below
        // overflow).
        let start = r.offset_bytes / 512 * 512;
        let len = ((r.offset_bytes + r.len_bytes).div_ceil(512) * 512 - start).max(512);
        let at = self.place_of(r);
        if len > self.capacity {
            bail!(Workload, "{at}: a {len}-byte request is larger than the drive's {} usable bytes", self.capacity);
        }
        let mut offset = start;
        if offset + len > self.capacity {
            if !self.remap {
                bail!(
                    Workload,
                    "{at}: the request addresses bytes up to {}, beyond the drive's {} usable bytes (replay with --remap, or remap=True in Python, to fold addresses into the drive)",
                    offset + len,
                    self.capacity
                );
            }
            offset = offset % (self.capacity - len + 1) / 4096 * 4096;
            self.remapped += 1;
        }
        Ok(Io { op, offset_bytes: offset, len_bytes: len })
    }

    /// Where a request came from, for messages: `file:line`, or the request's number.
    fn place_of(&self, r: &TraceRecord) -> String {
        if r.line > 0 {
            format!("{}:{}", self.origin, r.line)
        } else {
            format!("{}: request {}", self.origin, self.counts.iter().sum::<u64>() + 1)
        }
    }

    /// Arrival of a request in timestamp mode: its recorded time times `scale` after the start,
    /// refused when that passes the simulated clock's limit.
    fn arrival_ns(&self, r: &TraceRecord, scale: f64) -> Result<Nanoseconds> {
        let offset = (r.time_ns as f64 * scale).round();
        if offset > (MAX_SIMULATED_NS - self.start_ns) as f64 {
            bail!(
                Workload,
                "{}: at time scale {scale} the request arrives {:.3e} s after the start, past the simulated clock's limit of {:.0} s",
                self.place_of(r),
                offset / 1e9,
                MAX_SIMULATED_NS as f64 / 1e9
            );
        }
        Ok(self.start_ns + offset as Nanoseconds)
    }

    /// Queue-depth mode takes each request's depth as a trace of `format` gives it
    /// ([`QueueDepth::for_format`]): a format that records no timing (fio's iolog v2) replays
    /// one request at a time, at fio's default `iodepth` of 1, as fio replays it, instead of
    /// all its requests in flight at once (every one arriving at time 0).
    pub fn for_format(mut self, format: ssdlab_trace::TraceFormat) -> Self {
        self.queue_depth = QueueDepth::for_format(format);
        self
    }

    /// Writes of at least `min_bytes` take their content from `content` instead (large
    /// transfers of a workload whose files are mostly incompressible media and archives).
    pub fn with_large_writes(mut self, min_bytes: u64, content: ContentStream) -> Self {
        self.large_writes = Some((min_bytes, content));
        self
    }

    fn submit(&mut self, drive: &mut Drive, r: TraceRecord, at_ns: Nanoseconds, arrival_ns: Nanoseconds) -> Result<()> {
        let io = self.io_of(&r)?;
        // A trace with content hashes names what each write holds (docs/model.md, Traces).
        let named = match (r.op, r.content_hash) {
            (TraceOp::Write, Some(hash)) if ssdlab_trace::is_zero_block_md5(hash) => Some(NamedContent::Zeros),
            (TraceOp::Write, Some(hash)) => Some(NamedContent::Hash(hash)),
            _ => None,
        };
        if named.is_some() && self.content.data_file().is_some() {
            bail!(
                Workload,
                "{}: the trace records a content hash for each write, which decides what it holds: replay it without --data-file",
                self.place_of(&r)
            );
        }
        let content = match self.large_writes.as_mut() {
            Some((min_bytes, large)) if io.len_bytes >= *min_bytes => large,
            _ => &mut self.content,
        };
        if r.op == TraceOp::Write {
            content.name_next_write(named);
        }
        let done = drive.submit_with(&io, at_ns, content)?;
        let k = op_index(r.op);
        self.counts[k] += 1;
        self.bytes[k] += io.len_bytes;
        self.inflight.push(at_ns, arrival_ns, done, io.op, io.len_bytes);
        Ok(())
    }

    fn complete_one(&mut self, drive: &Drive) {
        let done = self.inflight.pop().expect("a request in flight");
        self.now_ns = self.now_ns.max(done.done_ns);
        self.last_done_ns = self.last_done_ns.max(done.done_ns);
        if self.metrics.closes_second(done.done_ns) {
            let snapshot = crate::run::snapshot_of(drive, self.nand_base, self.host_write_base);
            self.metrics.close_seconds_before(done.done_ns, snapshot);
        }
        self.metrics.record(done.op, done.bytes, done.done_ns - done.arrival_ns);
    }

    /// Process up to `max_steps` submissions and completions. Returns whether the replay is done.
    pub fn advance(&mut self, drive: &mut Drive, max_steps: u64) -> Result<bool> {
        for _ in 0..max_steps {
            self.peek()?;
            let in_flight = self.inflight.len() as u32;
            let earliest_done = self.inflight.next_done_ns();
            match (self.next, self.mode) {
                (None, _) => match earliest_done {
                    Some(_) => self.complete_one(drive),
                    None => break,
                },
                (Some((r, depth)), ReplayMode::QueueDepth) => {
                    if in_flight < depth.min(self.depth_max) || earliest_done.is_none() {
                        self.next = None;
                        let at = self.now_ns;
                        self.submit(drive, r, at, at)?;
                    } else {
                        self.complete_one(drive);
                    }
                }
                (Some((r, _)), ReplayMode::Timestamps { scale }) => {
                    let arrival = self.arrival_ns(&r, scale)?;
                    let can_submit = in_flight < self.depth_max;
                    match earliest_done {
                        Some(done) if done <= arrival || !can_submit => self.complete_one(drive),
                        _ => {
                            self.next = None;
                            // A request that found every NCQ tag taken goes out when one freed up.
                            let at = arrival.max(self.now_ns);
                            if in_flight == 0 && self.metrics.second_of(at) > self.metrics.second_of(self.now_ns) + 1 {
                                // An idle gap: its seconds become one row (docs/model.md, Workloads).
                                let snapshot = crate::run::snapshot_of(drive, self.nand_base, self.host_write_base);
                                self.metrics.close_idle_before(at, snapshot);
                            }
                            self.now_ns = at;
                            self.submit(drive, r, at, arrival)?;
                        }
                    }
                }
            }
        }
        if self.is_done() {
            let snapshot = crate::run::snapshot_of(drive, self.nand_base, self.host_write_base);
            self.metrics.finish(snapshot, self.last_done_ns);
        }
        Ok(self.is_done())
    }

    /// Summary of a finished replay.
    pub fn summary(&self, drive: &Drive, wall_seconds: f64) -> ReplaySummary {
        let f = drive.flash().counters();
        let nand = f.bytes_programmed_host + f.bytes_programmed_internal - self.nand_base;
        let host_written = drive.counters().host_write_bytes - self.host_write_base;
        let sim = self.last_done_ns - self.start_ns;
        let rate = |bytes: u64, ns: Nanoseconds| if ns > 0 { bytes as f64 / 1e6 / seconds(ns) } else { 0.0 };
        let busy = self.inflight.busy();
        ReplaySummary {
            mode: match self.mode {
                ReplayMode::QueueDepth => "queue-depth".into(),
                ReplayMode::Timestamps { .. } => "timestamps".into(),
            },
            requests: self.counts.iter().sum(),
            reads: self.counts[0],
            writes: self.counts[1],
            trims: self.counts[2],
            read_bytes: self.bytes[0],
            write_bytes: self.bytes[1],
            remapped: self.remapped,
            simulated_seconds: seconds(sim),
            busy_seconds: seconds(busy.any_ns),
            busy_read_seconds: seconds(busy.reads_ns),
            busy_write_seconds: seconds(busy.writes_ns),
            average_mbps: rate(self.bytes[0] + self.bytes[1], busy.any_ns),
            read_mbps: rate(self.bytes[0], busy.reads_ns),
            write_mbps: rate(self.bytes[1], busy.writes_ns),
            iops: self.counts.iter().sum::<u64>() as f64 / seconds(sim).max(1e-12),
            latency_us: self.metrics.latency_all(&ssdlab_workload::FIO_DEFAULT_PERCENTILES, false),
            write_amplification: (host_written > 0).then(|| nand as f64 / host_written as f64),
            unmapped_read_bytes: drive.counters().unmapped_read_bytes - self.unmapped_read_bytes_base,
            reduction: crate::run::reduction_since(self.reduction_base.as_ref(), drive),
            wall_seconds,
        }
    }
}
