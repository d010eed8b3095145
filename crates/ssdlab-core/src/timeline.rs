//! A shared resource booked in intervals (a channel bus, the host link).
//!
//! Unlike a single busy-until time, a [`Timeline`] lets a short transfer use a gap before a
//! booking made earlier for a later time, as a bus arbiter does. Bookings that ended before the
//! simulation's present are dropped by [`Timeline::forget_before`], so the list holds only the
//! future and stays short.
//!
//! Layout and cost: the intervals are kept in order in *runs*, short sorted vectors of at most
//! [`RUN_ENTRIES`] intervals each (a two-level sorted list). A booking at or after the end of
//! everything booked (most of them) is an O(1) append to the last run; one into a gap finds its
//! run by bisection over the runs' last ends, then its place in the run by bisection, and moves
//! only the rest of that run (a full run is split in two). So a booking costs O(log n) plus at
//! most one run's move, however many bookings are pending: a drive whose GC is booked far ahead
//! (the data-reduction drives, whose back end paces GC copies) holds thousands per channel,
//! where the single sorted vector this replaced moved half of them on every booking into a gap.
//! Forgetting past bookings moves an index into the first run and drops runs that are all past.

use crate::Nanoseconds;

/// Most intervals a run holds; a fuller run is split in two.
pub const RUN_ENTRIES: usize = 256;

/// One interval `[start, end)`.
type Interval = (Nanoseconds, Nanoseconds);

/// Booked intervals `[start, end)` of one resource, sorted and disjoint.
#[derive(Debug, Clone)]
pub struct Timeline {
    /// The intervals in order, run after run; every run holds at least one live interval.
    runs: Vec<Vec<Interval>>,
    /// Intervals at the front of the first run that have ended (forgotten).
    head: usize,
    /// Live intervals over all runs.
    live: usize,
    /// Most intervals per run (a field so tests can exercise splits with small runs).
    run_entries: usize,
    /// Emptied runs kept for reuse (their allocations).
    spare: Vec<Vec<Interval>>,
    busy_total_ns: Nanoseconds,
}

impl Default for Timeline {
    fn default() -> Self {
        Self::with_run_entries(RUN_ENTRIES)
    }
}

impl Timeline {
    /// An idle resource.
    pub fn new() -> Self {
        Self::default()
    }

    /// An idle resource whose runs hold at most `run_entries` intervals (at least 2).
    fn with_run_entries(run_entries: usize) -> Self {
        Self { runs: Vec::new(), head: 0, live: 0, run_entries: run_entries.max(2), spare: Vec::new(), busy_total_ns: 0 }
    }

    /// First live index of run `r`.
    #[inline]
    fn run_start(&self, r: usize) -> usize {
        if r == 0 {
            self.head
        } else {
            0
        }
    }

    /// A new empty run (a reused allocation when there is one).
    #[inline]
    fn new_run(&mut self) -> Vec<Interval> {
        self.spare.pop().unwrap_or_else(|| Vec::with_capacity(self.run_entries))
    }

    /// Append `interval`, which starts after everything booked, in a new last run.
    #[cold]
    fn push_in_new_run(&mut self, interval: Interval) {
        self.live += 1;
        let mut run = self.new_run();
        run.push(interval);
        self.runs.push(run);
    }

    /// Book `duration_ns` at the earliest time not before `earliest_ns` when the resource is
    /// free for that long. Returns the start of the booking.
    pub fn book(&mut self, earliest_ns: Nanoseconds, duration_ns: Nanoseconds) -> Nanoseconds {
        self.busy_total_ns += duration_ns;
        if duration_ns == 0 {
            return earliest_ns;
        }
        // Fast path: at or after the end of everything booked.
        let Some(last_run) = self.runs.last_mut() else {
            self.push_in_new_run((earliest_ns, earliest_ns + duration_ns));
            return earliest_ns;
        };
        let len = last_run.len();
        let last = &mut last_run[len - 1];
        if earliest_ns >= last.1 {
            if earliest_ns == last.1 {
                last.1 += duration_ns;
            } else if len < self.run_entries {
                last_run.push((earliest_ns, earliest_ns + duration_ns));
                self.live += 1;
            } else {
                self.push_in_new_run((earliest_ns, earliest_ns + duration_ns));
            }
            return earliest_ns;
        }
        let mut candidate = earliest_ns;
        // Skip bookings that end before the candidate (sorted, so by bisection: first the run,
        // by its last end, then the place in it). Some run ends after the candidate (the last).
        let mut r = self.runs.partition_point(|run| run[run.len() - 1].1 <= candidate);
        let start = self.run_start(r);
        let mut i = start + self.runs[r][start..].partition_point(|&(_, end)| end <= candidate);
        // First fit: walk the gaps from there, run by run.
        loop {
            let fits = self.runs[r][i..].iter().position(|&(start, end)| {
                if candidate + duration_ns <= start {
                    return true;
                }
                candidate = candidate.max(end);
                false
            });
            match fits {
                Some(k) => {
                    i += k;
                    break;
                }
                None => {
                    r += 1;
                    i = 0;
                    if r == self.runs.len() {
                        break;
                    }
                }
            }
        }
        let end = candidate + duration_ns;
        if r == self.runs.len() {
            // After everything booked (reached by walking past the last interval).
            let last = self.runs[r - 1].last_mut().expect("a run holds at least one interval");
            // (It touches the last interval: the walk passed it, and the fast path did not take it.)
            debug_assert_eq!(last.1, candidate);
            last.1 = end;
            return candidate;
        }
        // The new interval goes before interval `i` of run `r`; merge with touching neighbours
        // to keep the list short.
        let prev = if i > self.run_start(r) {
            Some((r, i - 1))
        } else if r > 0 {
            Some((r - 1, self.runs[r - 1].len() - 1))
        } else {
            None
        };
        let touches_prev = prev.is_some_and(|(pr, pi)| self.runs[pr][pi].1 == candidate);
        let touches_next = self.runs[r][i].0 == end;
        match (touches_prev, touches_next) {
            (true, true) => {
                let (pr, pi) = prev.expect("checked above");
                let next_end = self.runs[r][i].1;
                self.runs[pr][pi].1 = next_end;
                self.runs[r].remove(i);
                self.live -= 1;
                if self.runs[r].len() == self.run_start(r) {
                    // The run held only that interval (never the first run: `prev` is in it).
                    let run = self.runs.remove(r);
                    self.spare.push(run);
                }
            }
            (true, false) => {
                let (pr, pi) = prev.expect("checked above");
                self.runs[pr][pi].1 = end;
            }
            (false, true) => self.runs[r][i].0 = candidate,
            (false, false) => self.insert_at(r, i, (candidate, end)),
        }
        candidate
    }

    /// Insert `interval` before interval `i` of run `r`, splitting the run when it is full.
    fn insert_at(&mut self, r: usize, mut i: usize, interval: Interval) {
        self.live += 1;
        let len = self.runs[r].len();
        if r == 0 && 2 * self.head >= len && len == self.run_entries {
            // A full first run at least half forgotten drops its forgotten front instead of
            // being split (amortised: at most one move of the run per half a run forgotten).
            self.runs[0].drain(..self.head);
            i -= self.head;
            self.head = 0;
        }
        if self.runs[r].len() < self.run_entries {
            self.runs[r].insert(i, interval);
            return;
        }
        // Split the full run in the middle of its live part (more than half of it, so at least
        // two intervals); the second half becomes run r + 1.
        let start = self.run_start(r);
        let middle = start + (len - start) / 2;
        let mut upper = self.new_run();
        upper.extend_from_slice(&self.runs[r][middle..]);
        self.runs[r].truncate(middle);
        self.runs.insert(r + 1, upper);
        if i < middle {
            self.runs[r].insert(i, interval);
        } else {
            self.runs[r + 1].insert(i - middle, interval);
        }
    }

    /// Drop bookings that ended at or before `now_ns` (nothing can be booked before the present).
    #[inline]
    pub fn forget_before(&mut self, now_ns: Nanoseconds) {
        while let Some(first) = self.runs.first() {
            let mut head = self.head;
            while head < first.len() && first[head].1 <= now_ns {
                head += 1;
            }
            self.live -= head - self.head;
            if head < first.len() {
                self.head = head;
                return;
            }
            // The whole first run has ended.
            let mut run = self.runs.remove(0);
            run.clear();
            self.spare.push(run);
            self.head = 0;
        }
    }

    /// End of the last booking (the resource is idle from then on).
    pub fn free_from_ns(&self) -> Nanoseconds {
        self.runs.last().map_or(0, |run| run[run.len() - 1].1)
    }

    /// Total time booked so far.
    pub fn busy_total_ns(&self) -> Nanoseconds {
        self.busy_total_ns
    }

    /// Number of future bookings held (for tests and diagnostics).
    pub fn pending_bookings(&self) -> usize {
        self.live
    }

    /// The live intervals in order (tests).
    #[cfg(test)]
    fn intervals(&self) -> Vec<Interval> {
        self.runs.iter().enumerate().flat_map(|(r, run)| run[self.run_start(r)..].iter().copied()).collect()
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

    /// The timeline's own invariants: intervals sorted and apart, every run holding a live
    /// interval and at most its bound, the live count right.
    fn check(t: &Timeline, what: &str) {
        let intervals = t.intervals();
        assert!(intervals.windows(2).all(|w| w[0].1 < w[1].0), "{what}: intervals overlap or touch");
        assert!(intervals.iter().all(|&(s, e)| s < e), "{what}: an empty interval");
        assert_eq!(t.pending_bookings(), intervals.len(), "{what}: live count");
        for (r, run) in t.runs.iter().enumerate() {
            assert!(run.len() > t.run_start(r) && run.len() <= t.run_entries, "{what}: run {r} holds {} (start {})", run.len(), t.run_start(r));
        }
    }

    #[test]
    fn books_as_the_plain_first_fit_rule_does() {
        // Small runs split and merge often; the default bound is the one the drive uses.
        for run_entries in [RUN_ENTRIES, 2, 3, 8] {
            let mut most_pending = 0;
            for seed in 0..40u64 {
                let mut rng = SimRng::new(seed);
                let (mut fast, mut reference) = (Timeline::with_run_entries(run_entries), Reference::default());
                let mut now = 0;
                // Half the seeds book far ahead of a slow present, so hundreds of bookings pend.
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
                    assert_eq!(a, b, "runs of {run_entries}, seed {seed} step {step}: booking of {duration} from {earliest} (now {now})");
                    check(&fast, &format!("runs of {run_entries}, seed {seed} step {step}"));
                    most_pending = most_pending.max(fast.pending_bookings());
                }
                let total: Nanoseconds = reference.busy.iter().map(|(s, e)| e - s).sum();
                assert_eq!(fast.busy_total_ns(), total, "seed {seed}");
            }
            // The slow seeds did hold more bookings than a run: runs were split.
            assert!(most_pending > 2 * run_entries, "runs of {run_entries}: at most {most_pending} pending");
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
