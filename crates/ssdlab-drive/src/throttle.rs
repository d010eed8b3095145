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

    /// `commands` arriving together at `at_ns` (the untimed path: a fast-forward counts its
    /// small random writes and admits them at once): the credit afterwards is as after them.
    /// Returns the time the last may start, as [`SmallWriteCap::admit`] would give it.
    pub fn admit_many(&mut self, at_ns: Nanoseconds, commands: u64) -> Nanoseconds {
        if commands == 0 {
            return at_ns;
        }
        // Admitted back to back, the k-th (from 0) starts at max(at, tat0 + k * interval -
        // tolerance), and each moves the theoretical arrival on by one interval.
        let tat0 = self.theoretical_arrival_ns.max(at_ns);
        let last = at_ns.max((tat0 + (commands - 1) * self.interval_ns).saturating_sub(self.tolerance_ns));
        self.theoretical_arrival_ns = tat0 + commands * self.interval_ns;
        last
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

    #[test]
    fn admitting_many_at_once_matches_admitting_one_by_one() {
        for (start, n, pause) in [(0, 5, 0), (0, 25, 0), (3_000_000, 40, 7_500_000), (0, 1, 0)] {
            let mut one = SmallWriteCap::new(1000, 10).unwrap();
            let mut many = one.clone();
            for _ in 0..7 {
                one.admit(start);
                many.admit(start);
            }
            let at = start + pause;
            let last = (0..n).map(|_| one.admit(at)).last().unwrap();
            assert_eq!(many.admit_many(at, n), last, "start {start} n {n} pause {pause}");
            assert_eq!(many.theoretical_arrival_ns, one.theoretical_arrival_ns);
        }
    }
}
