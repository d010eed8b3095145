//! A shared resource booked in intervals (a channel bus, the host link).
//!
//! Unlike a single busy-until time, a [`Timeline`] lets a short transfer use a gap before a
//! booking made earlier for a later time, as a bus arbiter does. Bookings that ended before the
//! simulation's present are dropped by [`Timeline::forget_before`], so the list holds only the
//! future and stays short.
//!
//! Layout and cost: the intervals are one sorted vector whose live part starts at `head`.
//! Forgetting past bookings only moves `head`; the dead prefix is cut off when the vector would
//! otherwise grow (amortised O(1) per booking). A booking at or after the end of everything
//! booked (63% of them on the steady-state workload of BENCHMARKS.md) is an O(1) append; one
//! into a gap finds its place by bisection and moves only the bookings after it. Plain slice
//! indexing instead of a ring buffer's saved 2% of all instructions on that workload.

use crate::Nanoseconds;

/// Booked intervals `[start, end)` of one resource, sorted and disjoint.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// The intervals; those before `head` have ended (forgotten).
    busy: Vec<(Nanoseconds, Nanoseconds)>,
    head: usize,
    busy_total_ns: Nanoseconds,
}

impl Timeline {
    /// An idle resource.
    pub fn new() -> Self {
        Self::default()
    }

    /// Book `duration_ns` at the earliest time not before `earliest_ns` when the resource is
    /// free for that long. Returns the start of the booking.
    pub fn book(&mut self, earliest_ns: Nanoseconds, duration_ns: Nanoseconds) -> Nanoseconds {
        self.busy_total_ns += duration_ns;
        if duration_ns == 0 {
            return earliest_ns;
        }
        let len = self.busy.len();
        // Fast path: at or after the end of everything booked.
        if len == self.head {
            self.make_room();
            self.busy.push((earliest_ns, earliest_ns + duration_ns));
            return earliest_ns;
        }
        let last = &mut self.busy[len - 1];
        if earliest_ns >= last.1 {
            if earliest_ns == last.1 {
                last.1 += duration_ns;
            } else {
                self.make_room();
                self.busy.push((earliest_ns, earliest_ns + duration_ns));
            }
            return earliest_ns;
        }
        let mut candidate = earliest_ns;
        // Skip bookings that end before the candidate (sorted, so by bisection).
        let mut index = self.head + self.busy[self.head..].partition_point(|&(_, end)| end <= candidate);
        while index < len {
            let (start, end) = self.busy[index];
            if candidate + duration_ns <= start {
                break;
            }
            candidate = candidate.max(end);
            index += 1;
        }
        let end = candidate + duration_ns;
        // Merge with touching neighbours to keep the list short.
        let touches_prev = index > self.head && self.busy[index - 1].1 == candidate;
        let touches_next = index < len && self.busy[index].0 == end;
        match (touches_prev, touches_next) {
            (true, true) => {
                let next_end = self.busy[index].1;
                self.busy[index - 1].1 = next_end;
                self.busy.remove(index);
            }
            (true, false) => self.busy[index - 1].1 = end,
            (false, true) => self.busy[index].0 = candidate,
            (false, false) => {
                let head = self.head;
                self.make_room();
                self.busy.insert(index - (head - self.head), (candidate, end));
            }
        }
        candidate
    }

    /// Drop bookings that ended at or before `now_ns` (nothing can be booked before the present).
    #[inline]
    pub fn forget_before(&mut self, now_ns: Nanoseconds) {
        let len = self.busy.len();
        while self.head < len && self.busy[self.head].1 <= now_ns {
            self.head += 1;
        }
        if self.head == len && len > 0 {
            self.busy.clear();
            self.head = 0;
        }
    }

    /// Room for one more booking: the forgotten prefix is cut off instead of growing the
    /// vector when it is at least half of it (amortised O(1) per booking).
    #[inline]
    fn make_room(&mut self) {
        if self.busy.len() == self.busy.capacity() && 2 * self.head >= self.busy.len() && self.head > 0 {
            self.busy.drain(..self.head);
            self.head = 0;
        }
    }

    /// End of the last booking (the resource is idle from then on).
    pub fn free_from_ns(&self) -> Nanoseconds {
        if self.busy.len() > self.head {
            self.busy[self.busy.len() - 1].1
        } else {
            0
        }
    }

    /// Total time booked so far.
    pub fn busy_total_ns(&self) -> Nanoseconds {
        self.busy_total_ns
    }

    /// Number of future bookings held (for tests and diagnostics).
    pub fn pending_bookings(&self) -> usize {
        self.busy.len() - self.head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimRng;

    /// The first-fit rule written plainly: every interval kept, scanned from the start.
    #[derive(Default)]
    struct Reference {
        busy: Vec<(Nanoseconds, Nanoseconds)>,
    }

    impl Reference {
        fn book(&mut self, earliest: Nanoseconds, duration: Nanoseconds) -> Nanoseconds {
            if duration == 0 {
                return earliest;
            }
            let mut candidate = earliest;
            for &(start, end) in &self.busy {
                if end <= candidate {
                    continue;
                }
                if candidate + duration <= start {
                    break;
                }
                candidate = candidate.max(end);
            }
            self.busy.push((candidate, candidate + duration));
            self.busy.sort();
            candidate
        }
    }

    #[test]
    fn books_as_the_plain_first_fit_rule_does() {
        for seed in 0..40u64 {
            let mut rng = SimRng::new(seed);
            let (mut fast, mut reference) = (Timeline::new(), Reference::default());
            let mut now = 0;
            // Half the seeds book far ahead of a slowly moving present, so hundreds of bookings
            // pend and bookings land in the middle of them (both shifting directions).
            let (pace, spread) = if seed % 2 == 0 { (3000, 1) } else { (300, 50) };
            for step in 0..4000 {
                if rng.below(10) == 0 {
                    now += rng.below(pace);
                    fast.forget_before(now);
                }
                // Earliest times around the present, durations short and long.
                let reach = if rng.below(4) == 0 { 20_000 } else { 2_000 };
                let earliest = now + rng.below(reach * spread);
                let longest = if rng.below(5) == 0 { 2_000 } else { 60 };
                let duration = rng.below(longest);
                let (a, b) = (fast.book(earliest, duration), reference.book(earliest, duration));
                assert_eq!(a, b, "seed {seed} step {step}: booking of {duration} from {earliest} (now {now})");
                assert!(fast.busy[fast.head..].windows(2).all(|w| w[0].1 < w[1].0), "seed {seed} step {step}: intervals overlap or touch");
            }
            let total: Nanoseconds = reference.busy.iter().map(|(s, e)| e - s).sum();
            assert_eq!(fast.busy_total_ns(), total, "seed {seed}");
        }
    }

    #[test]
    fn fills_gaps_before_later_bookings() {
        let mut t = Timeline::new();
        assert_eq!(t.book(1000, 100), 1000);
        // Fits before the booking at 1000.
        assert_eq!(t.book(0, 100), 0);
        // Does not fit in [100, 1000) if longer than the gap.
        assert_eq!(t.book(50, 950), 1100);
        assert_eq!(t.book(100, 900), 100);
        // Everything in [0, 2050) is now booked: merged into one interval.
        assert_eq!(t.pending_bookings(), 1);
        assert_eq!(t.free_from_ns(), 2050);
        t.forget_before(3000);
        assert_eq!(t.pending_bookings(), 0);
        assert_eq!(t.book(10, 5), 10);
        assert_eq!(t.busy_total_ns(), 100 + 100 + 950 + 900 + 5);
    }
}
