//! Firmware cap on sustained small random writes, with burst credit.
//!
//! A token bucket in virtual-scheduling form (GCRA): commands are admitted at most
//! `rate` per second on average, with up to `burst` admitted back to back after a quiet period.

use ssdlab_core::time::NS_PER_S;
use ssdlab_core::Nanoseconds;

/// Admission control for small random writes.
#[derive(Debug, Clone)]
pub(crate) struct SmallWriteCap {
    interval_ns: Nanoseconds,
    tolerance_ns: Nanoseconds,
    theoretical_arrival_ns: Nanoseconds,
}

impl SmallWriteCap {
    /// `None` when the profile sets no cap.
    pub fn new(rate_per_second: u64, burst: u64) -> Option<Self> {
        if rate_per_second == 0 {
            return None;
        }
        let interval_ns = NS_PER_S.div_ceil(rate_per_second);
        Some(Self { interval_ns, tolerance_ns: interval_ns * burst.saturating_sub(1), theoretical_arrival_ns: 0 })
    }

    /// Time between commands at the sustained rate.
    pub fn interval_ns(&self) -> Nanoseconds {
        self.interval_ns
    }

    /// The time at which a command arriving at `at_ns` may start.
    pub fn admit(&mut self, at_ns: Nanoseconds) -> Nanoseconds {
        let start = at_ns.max(self.theoretical_arrival_ns.saturating_sub(self.tolerance_ns));
        self.theoretical_arrival_ns = self.theoretical_arrival_ns.max(start) + self.interval_ns;
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_sustained_rate() {
        let mut cap = SmallWriteCap::new(1000, 10).unwrap();
        // Ten commands at t = 0 pass at once (burst credit)...
        for _ in 0..10 {
            assert_eq!(cap.admit(0), 0);
        }
        // ...then one per millisecond.
        let next = cap.admit(0);
        assert_eq!(next, 1_000_000);
        let after = cap.admit(0);
        assert_eq!(after, 2_000_000);
        // A long pause refills the credit.
        let later = 1_000_000_000;
        for _ in 0..10 {
            assert_eq!(cap.admit(later), later);
        }
    }
}
