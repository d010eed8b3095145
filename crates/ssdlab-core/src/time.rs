//! Simulated time.
//!
//! All simulated time is an integer count of nanoseconds since the drive was powered on, and
//! events are ordered by (time, submission sequence). Floating point enters only before a value
//! becomes an integer time, deterministically: workload distributions (Zipf ranks, generated
//! trace gaps) and the scaling of trace timestamps. Garbage-collection pacing and victim choice,
//! which decide when flash operations are booked, use integer arithmetic only.

/// A point in, or a span of, simulated time in nanoseconds.
pub type Nanoseconds = u64;

/// Nanoseconds in one microsecond.
pub const NS_PER_US: Nanoseconds = 1_000;
/// Nanoseconds in one millisecond.
pub const NS_PER_MS: Nanoseconds = 1_000_000;
/// Nanoseconds in one second.
pub const NS_PER_S: Nanoseconds = 1_000_000_000;

/// Time to move `bytes` at `bytes_per_second`, rounded up to a whole nanosecond.
///
/// A rate of zero means "infinitely fast" and costs nothing.
pub fn transfer_ns(bytes: u64, bytes_per_second: u64) -> Nanoseconds {
    if bytes_per_second == 0 {
        return 0;
    }
    // In 64 bits whenever `bytes * 1e9` fits (below 18 GB: every single transfer), a plain
    // division instead of a 128-bit one; the same result.
    match bytes.checked_mul(NS_PER_S) {
        Some(numerator) => numerator.div_ceil(bytes_per_second),
        None => (bytes as u128 * NS_PER_S as u128).div_ceil(bytes_per_second as u128) as Nanoseconds,
    }
}

/// Convert simulated nanoseconds to seconds for reporting only.
pub fn seconds(ns: Nanoseconds) -> f64 {
    ns as f64 / NS_PER_S as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_rounds_up_and_zero_rate_is_free() {
        assert_eq!(transfer_ns(4096, 4096 * 1_000_000_000), 1);
        assert_eq!(transfer_ns(1, 3), 333_333_334);
        assert_eq!(transfer_ns(4096, 0), 0);
        assert_eq!(transfer_ns(550_000_000, 550_000_000), NS_PER_S);
    }
}
