//! One request of a trace.

/// What a request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TraceOp {
    /// Read.
    Read,
    /// Write.
    Write,
    /// Discard / TRIM.
    Trim,
}

/// One request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRecord {
    /// Arrival time since the first request of the trace, nanoseconds.
    pub time_ns: u64,
    /// What it does.
    pub op: TraceOp,
    /// First byte addressed.
    pub offset_bytes: u64,
    /// Bytes addressed.
    pub len_bytes: u64,
    /// Service time recorded in the trace, when the format has one.
    pub latency_ns: Option<u64>,
}
