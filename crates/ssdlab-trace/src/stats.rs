//! Statistics of a trace, as `ssdlab trace stats` reports them.

use crate::content::WrittenContent;
use crate::parse::TraceReader;
use crate::qd::QueueDepth;
use crate::record::{TraceOp, TraceRecord};
use serde::Serialize;
use std::collections::BTreeMap;

/// What `trace stats` prints: a trace's statistics in plain, serializable form.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TraceStatsReport {
    /// The trace format read.
    pub format: String,
    /// Requests in all.
    pub requests: u64,
    /// Requests by kind (`read`, `write`, `trim`).
    pub ops: BTreeMap<String, u64>,
    /// `(size in bytes, requests)`, by size.
    pub sizes: Vec<(u64, u64)>,
    /// Share of requests that start where the previous one of the same kind ended.
    pub sequential_share: f64,
    /// `(queue depth at arrival, requests)`, by depth.
    pub queue_depths: Vec<(u32, u64)>,
    /// Mean queue depth at arrival.
    pub mean_queue_depth: f64,
    /// Share of requests that arrived at queue depth 1.
    pub qd1_share: f64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes trimmed.
    pub bytes_trimmed: u64,
    /// Bytes between the lowest and the highest byte addressed.
    pub span_bytes: u64,
    /// Lowest byte addressed.
    pub min_offset: u64,
    /// One past the highest byte addressed.
    pub max_end: u64,
    /// Time of the last request, seconds after the first.
    pub duration_seconds: f64,
    /// Malformed lines skipped.
    pub skipped_lines: u64,
    /// Requests that arrived with the deepest tracked queue already outstanding (counted at
    /// that depth; their recorded service times are implausibly long).
    pub queue_depth_saturated: u64,
    /// Requests by volume (device, LUN, disk, file), by identifier: the volume read, or with
    /// `--volume` every volume of the file (those passed over included).
    pub volumes: Vec<(String, u64)>,
    /// Requests of volumes past [`crate::MAX_TALLIED_VOLUMES`] distinct ones (not listed).
    pub volumes_not_listed_requests: u64,
    /// Requests of other volumes than the one named with `--volume`, passed over.
    pub other_volume_requests: u64,
    /// Requests passed over because the trace does not say whether they read or write.
    pub requests_without_direction: u64,
    /// Written content, when the trace records content hashes (FIU).
    pub content: Option<ContentReport>,
}

/// The written content of a trace with content hashes.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ContentReport {
    /// Written 4 KiB blocks whose content the trace names.
    pub written_blocks: u64,
    /// Of those, blocks repeating the content of an earlier written block.
    pub duplicate_blocks: u64,
    /// `duplicate_blocks / written_blocks`: what deduplication could save of the blocks written.
    pub duplicate_share: f64,
    /// Of the written blocks, all-zero ones.
    pub zero_blocks: u64,
    /// Whether the distinct contents outgrew [`crate::MAX_DISTINCT_CONTENTS`] (the duplicate
    /// share is then a lower bound).
    pub distinct_capped: bool,
}

/// Everything `trace stats` reports. A request is *sequential* when it starts where the
/// previous request of the same kind ended.
#[derive(Debug, Clone, Default)]
pub struct TraceStats {
    /// Requests by kind.
    pub ops: BTreeMap<TraceOp, u64>,
    /// Requests by size in bytes.
    pub sizes: BTreeMap<u64, u64>,
    /// Sequential requests.
    pub sequential: u64,
    /// Requests by queue depth at arrival.
    pub queue_depths: BTreeMap<u32, u64>,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes trimmed.
    pub bytes_trimmed: u64,
    /// Lowest byte addressed.
    pub min_offset: u64,
    /// One past the highest byte addressed.
    pub max_end: u64,
    /// Time of the last request, nanoseconds since the first.
    pub duration_ns: u64,
    /// Written blocks with content hashes.
    pub written_content: WrittenContent,
    last_end: BTreeMap<TraceOp, u64>,
    qd: QueueDepth,
}

impl TraceStats {
    /// No requests yet.
    pub fn new() -> Self {
        Self { min_offset: u64::MAX, ..Self::default() }
    }

    /// No requests yet, of a trace in `format`: a format that records no timing (fio's iolog
    /// v2) counts every request at depth 1, as [`QueueDepth::for_format`].
    pub fn for_format(format: crate::TraceFormat) -> Self {
        Self { qd: QueueDepth::for_format(format), ..Self::new() }
    }

    /// Account for one request (in trace order).
    pub fn add(&mut self, r: &TraceRecord) {
        *self.ops.entry(r.op).or_default() += 1;
        *self.sizes.entry(r.len_bytes).or_default() += 1;
        if self.last_end.get(&r.op) == Some(&r.offset_bytes) {
            self.sequential += 1;
        }
        self.last_end.insert(r.op, r.offset_bytes + r.len_bytes);
        *self.queue_depths.entry(self.qd.observe(r)).or_default() += 1;
        if let (TraceOp::Write, Some(hash)) = (r.op, r.content_hash) {
            // The 4 KiB sectors the write touches, as the drive splits it.
            let sectors = (r.offset_bytes + r.len_bytes).div_ceil(4096) - r.offset_bytes / 4096;
            self.written_content.add(hash, sectors);
        }
        match r.op {
            TraceOp::Read => self.bytes_read += r.len_bytes,
            TraceOp::Write => self.bytes_written += r.len_bytes,
            TraceOp::Trim => self.bytes_trimmed += r.len_bytes,
        }
        self.min_offset = self.min_offset.min(r.offset_bytes);
        self.max_end = self.max_end.max(r.offset_bytes + r.len_bytes);
        self.duration_ns = self.duration_ns.max(r.time_ns);
    }

    /// Requests in all.
    pub fn requests(&self) -> u64 {
        self.ops.values().sum()
    }

    /// Share of requests that are sequential.
    pub fn sequential_share(&self) -> f64 {
        self.sequential as f64 / self.requests().max(1) as f64
    }

    /// Mean queue depth at arrival.
    pub fn mean_queue_depth(&self) -> f64 {
        let total: u64 = self.queue_depths.iter().map(|(d, n)| *d as u64 * n).sum();
        total as f64 / self.requests().max(1) as f64
    }

    /// Share of requests of `bytes` size.
    pub fn size_share(&self, bytes: u64) -> f64 {
        self.sizes.get(&bytes).copied().unwrap_or(0) as f64 / self.requests().max(1) as f64
    }

    /// Share of requests at queue depth 1.
    pub fn qd1_share(&self) -> f64 {
        self.queue_depths.get(&1).copied().unwrap_or(0) as f64 / self.requests().max(1) as f64
    }

    /// The statistics in plain form, for a trace read in `format` with `skipped_lines` skipped.
    pub fn report(&self, format: &str, skipped_lines: u64) -> TraceStatsReport {
        TraceStatsReport {
            format: format.to_string(),
            requests: self.requests(),
            ops: self.ops.iter().map(|(op, n)| (format!("{op:?}").to_lowercase(), *n)).collect(),
            sizes: self.sizes.iter().map(|(s, n)| (*s, *n)).collect(),
            sequential_share: self.sequential_share(),
            queue_depths: self.queue_depths.iter().map(|(d, n)| (*d, *n)).collect(),
            mean_queue_depth: self.mean_queue_depth(),
            qd1_share: self.qd1_share(),
            bytes_read: self.bytes_read,
            bytes_written: self.bytes_written,
            bytes_trimmed: self.bytes_trimmed,
            span_bytes: self.max_end.saturating_sub(self.min_offset),
            min_offset: self.min_offset,
            max_end: self.max_end,
            duration_seconds: self.duration_ns as f64 / 1e9,
            skipped_lines,
            queue_depth_saturated: self.qd.saturated(),
            volumes: Vec::new(),
            volumes_not_listed_requests: 0,
            other_volume_requests: 0,
            requests_without_direction: 0,
            content: (self.written_content.blocks > 0).then(|| ContentReport {
                written_blocks: self.written_content.blocks,
                duplicate_blocks: self.written_content.duplicates,
                duplicate_share: self.written_content.duplicate_share(),
                zero_blocks: self.written_content.zero_blocks,
                distinct_capped: self.written_content.capped,
            }),
        }
    }

    /// The statistics of the requests `reader` gave (read to its end), with its format, the
    /// lines it skipped and the volumes it met.
    pub fn report_for(&self, reader: &TraceReader) -> TraceStatsReport {
        let mut report = self.report(reader.format().name(), reader.skipped());
        (report.volumes, report.volumes_not_listed_requests) = reader.volumes();
        report.other_volume_requests = reader.other_volume_requests();
        report.requests_without_direction = reader.requests_without_direction();
        report
    }
}
