//! Statistics of a trace, as `ssdlab trace stats` reports them.

use crate::qd::QueueDepth;
use crate::record::{TraceOp, TraceRecord};
use std::collections::BTreeMap;

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
    last_end: BTreeMap<TraceOp, u64>,
    qd: QueueDepth,
}

impl TraceStats {
    /// No requests yet.
    pub fn new() -> Self {
        Self { min_offset: u64::MAX, ..Self::default() }
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
}
