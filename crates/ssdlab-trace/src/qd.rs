//! Queue depth of each request as the trace recorded it.

use crate::parse::TraceFormat;
use crate::record::TraceRecord;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Deepest queue tracked. Real devices queue tens to thousands of requests; a trace whose
/// recorded service times imply more (corrupt or merged response times) saturates here, so
/// memory stays bounded however long the trace.
pub const MAX_TRACKED_DEPTH: u32 = 65_536;

/// Tracks requests outstanding in the original trace: a request is outstanding from its arrival
/// until arrival plus its recorded service time (zero when the format records none, so only
/// requests arriving at the same instant overlap). Memory is bounded by [`MAX_TRACKED_DEPTH`].
#[derive(Debug, Default, Clone)]
pub struct QueueDepth {
    ends: BinaryHeap<Reverse<u64>>,
    saturated: u64,
    /// Every request at this depth, whatever its time (a trace that records no timing).
    fixed: Option<u32>,
}

impl QueueDepth {
    /// No request outstanding.
    pub fn new() -> Self {
        Self::default()
    }

    /// The queue depth of a trace of `format`: [`QueueDepth::new`] for a format that records
    /// when requests were issued; for one that does not (fio's iolog v2, see
    /// [`TraceFormat::records_timing`]), every request at depth 1, fio's default `iodepth`, at
    /// which fio replays such a log. (Taken from the times, every request of a v2 log without
    /// `wait` actions arrives at time 0, so the thousandth would find 999 outstanding and a
    /// replay would put them all in flight at once.)
    pub fn for_format(format: TraceFormat) -> Self {
        Self { fixed: (!format.records_timing()).then_some(1), ..Self::default() }
    }

    /// Queue depth seen by `record` (itself included); records must come in time order.
    pub fn observe(&mut self, record: &TraceRecord) -> u32 {
        if let Some(depth) = self.fixed {
            return depth;
        }
        while let Some(&Reverse(end)) = self.ends.peek() {
            if end > record.time_ns {
                break;
            }
            self.ends.pop();
        }
        if self.ends.len() as u32 >= MAX_TRACKED_DEPTH {
            // Saturated: count this request at the cap without tracking it.
            self.saturated += 1;
            return MAX_TRACKED_DEPTH;
        }
        let depth = self.ends.len() as u32 + 1;
        let end = record.time_ns.saturating_add(record.latency_ns.unwrap_or(0));
        // Zero service time: outstanding only for requests at this same instant.
        self.ends.push(Reverse(end.max(record.time_ns + 1)));
        depth
    }

    /// Requests seen while [`MAX_TRACKED_DEPTH`] requests were already outstanding (their depth
    /// is reported as the cap).
    pub fn saturated(&self) -> u64 {
        self.saturated
    }
}
