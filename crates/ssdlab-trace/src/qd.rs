//! Queue depth of each request as the trace recorded it.

use crate::record::TraceRecord;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Tracks requests outstanding in the original trace: a request is outstanding from its arrival
/// until arrival plus its recorded service time (zero when the format records none, so only
/// requests arriving at the same instant overlap). Memory is bounded by the trace's queue depth.
#[derive(Debug, Default, Clone)]
pub struct QueueDepth {
    ends: BinaryHeap<Reverse<u64>>,
}

impl QueueDepth {
    /// No request outstanding.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queue depth seen by `record` (itself included); records must come in time order.
    pub fn observe(&mut self, record: &TraceRecord) -> u32 {
        while let Some(&Reverse(end)) = self.ends.peek() {
            if end > record.time_ns {
                break;
            }
            self.ends.pop();
        }
        let depth = self.ends.len() as u32 + 1;
        let end = record.time_ns + record.latency_ns.unwrap_or(0);
        if end > record.time_ns {
            self.ends.push(Reverse(end));
        } else {
            // Zero service time: outstanding only for requests at this same instant.
            self.ends.push(Reverse(record.time_ns + 1));
        }
        depth
    }
}
