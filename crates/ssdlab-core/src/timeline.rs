//! A shared resource booked in intervals (a channel bus, the host link).
//!
//! Unlike a single busy-until time, a [`Timeline`] lets a short transfer use a gap before a
//! booking made earlier for a later time, as a bus arbiter does. Bookings that ended before the
//! simulation's present are dropped by [`Timeline::forget_before`], so the list holds only the
//! future and stays short.

use crate::Nanoseconds;
use std::collections::VecDeque;

/// Booked intervals `[start, end)` of one resource, sorted and disjoint.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    busy: VecDeque<(Nanoseconds, Nanoseconds)>,
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
        // Fast path: at or after the end of everything booked.
        match self.busy.back_mut() {
            None => {
                self.busy.push_back((earliest_ns, earliest_ns + duration_ns));
                return earliest_ns;
            }
            Some(last) if earliest_ns >= last.1 => {
                if earliest_ns == last.1 {
                    last.1 += duration_ns;
                } else {
                    self.busy.push_back((earliest_ns, earliest_ns + duration_ns));
                }
                return earliest_ns;
            }
            _ => {}
        }
        let mut candidate = earliest_ns;
        // Skip bookings that end before the candidate (sorted, so by binary search).
        let mut index = self.busy.partition_point(|&(_, end)| end <= candidate);
        while index < self.busy.len() {
            let (start, end) = self.busy[index];
            if candidate + duration_ns <= start {
                break;
            }
            candidate = candidate.max(end);
            index += 1;
        }
        let end = candidate + duration_ns;
        // Merge with touching neighbours to keep the list short.
        let touches_prev = index > 0 && self.busy[index - 1].1 == candidate;
        let touches_next = index < self.busy.len() && self.busy[index].0 == end;
        match (touches_prev, touches_next) {
            (true, true) => {
                let next_end = self.busy[index].1;
                self.busy[index - 1].1 = next_end;
                self.busy.remove(index);
            }
            (true, false) => self.busy[index - 1].1 = end,
            (false, true) => self.busy[index].0 = candidate,
            (false, false) => self.busy.insert(index, (candidate, end)),
        }
        candidate
    }

    /// Drop bookings that ended at or before `now_ns` (nothing can be booked before the present).
    pub fn forget_before(&mut self, now_ns: Nanoseconds) {
        while let Some(&(_, end)) = self.busy.front() {
            if end > now_ns {
                break;
            }
            self.busy.pop_front();
        }
    }

    /// End of the last booking (the resource is idle from then on).
    pub fn free_from_ns(&self) -> Nanoseconds {
        self.busy.back().map(|&(_, end)| end).unwrap_or(0)
    }

    /// Total time booked so far.
    pub fn busy_total_ns(&self) -> Nanoseconds {
        self.busy_total_ns
    }

    /// Number of future bookings held (for tests and diagnostics).
    pub fn pending_bookings(&self) -> usize {
        self.busy.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
