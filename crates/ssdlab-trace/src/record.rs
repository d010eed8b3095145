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
    /// Line of the trace file it came from (0 for generated requests), for messages.
    pub line: u64,
    /// The content hash the trace records for a write's data (FIU's MD5 of the block), when it
    /// has one: writes of equal hashes carry equal content (see [`crate::is_zero_block_md5`]).
    pub content_hash: Option<u128>,
}

/// Largest byte address a trace may reach (2^60 bytes, an exabyte): anything above is a
/// corrupt or mis-parsed line, refused rather than wrapped.
pub const MAX_TRACE_BYTES: u64 = 1 << 60;

/// Latest time a trace may reach since its first request (2^62 ns, about 146 years), so that
/// scaling and offsetting it can never overflow the simulated clock.
pub const MAX_TRACE_NS: u64 = 1 << 62;
