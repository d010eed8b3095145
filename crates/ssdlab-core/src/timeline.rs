//! A shared resource booked in intervals (a channel bus, the host link).
//!
//! Unlike a single busy-until time, a [`Timeline`] lets a short transfer use a gap before a
//! booking made earlier for a later time, as a bus arbiter does. Bookings that ended before the
//! simulation's present are dropped by [`Timeline::forget_before`], so the list holds only the
//! future and stays short.
//!
//! Layout and cost: the intervals live in one vector as a gap buffer: the live bookings are
//! `busy[head..gap_start]` followed by `busy[gap_end..]`, in time order; the slots in between
//! (the gap) and before `head` (forgotten bookings) hold nothing. Forgetting past bookings only
//! moves `head`; the dead prefix is cut off when the vector would otherwise grow (amortised O(1)
//! per booking). A booking at or after the end of everything booked is an O(1) push; one into a
//! gap of the schedule finds its place by bisection and is written into the buffer's gap after
//! moving the gap there, which costs the distance from the previous insert (consecutive inserts
//! land close to each other: about 18 bookings apart against 170 bookings after the insert
//! point on the engine-on workload of BENCHMARKS.md), not the number of bookings after it.
//! When the bookings after the gap run out, the gap is dropped (the vector ends at `gap_start`),
//! so a timeline that only appends is a plain sorted vector.
//!
//! An insert nearer the oldest pending booking than the gap, and at most `SHORT_SHIFT` after
//! it, uses the forgotten prefix as a second gap instead: the bookings before it step back one
//! slot. On a drive with a data-reduction engine, the back end and the channels take host work
//! near the present and GC work booked far ahead, interleaved; with one gap, a host booking
//! dragged the gap from the far future to the present and the next GC booking dragged it back
//! (hundreds of bookings moved each time; 53,925 moves of more than a few bookings on the
//! engine-on measured phase of BENCHMARKS.md, round five).
//!
//! Two forms: the gap buffer above (the short form) for timelines of up to a few hundred
//! pending bookings, and blocks of at most 32 bookings under a small index (the long form,
//! `timeline/blocks.rs`), whose booking cost does not grow with the number pending. A timeline
//! takes the long form when an insert finds its gap closed with more than [`LONG`] bookings
//! pending (appends alone never switch it), and goes back when forgetting leaves fewer than
//! [`SHORT`]. Both forms hold the same canonical intervals (sorted, disjoint, touching ones
//! merged), so they answer every booking alike and count the same pending bookings; the long
//! form's vector is empty, so the short form's paths test for it only where the vector is empty.

mod blocks;

use crate::Nanoseconds;
use blocks::Blocks;

/// Pending bookings above which a timeline takes its long form (blocks under an index, see
/// `timeline/blocks.rs`) at its next insert that finds the gap closed. Measured on the callgrind
/// workload of BENCHMARKS.md (round six): 256 costs engine off more than it saves, 1024 and
/// 2048 save less engine on.
const LONG: usize = 512;

/// Pending bookings below which a timeline in its long form goes back to the short one (well
/// below [`LONG`], so that a timeline near the threshold does not switch at every booking).
const SHORT: usize = 128;

/// Slots opened at least when an insert finds the gap closed.
const MIN_GAP: usize = 16;

/// Gap moves of at most this many bookings copy them one by one (no call to a general copy).
const SHORT_MOVE: usize = 8;

/// Inserts at most this many bookings after the oldest pending one may step those bookings
/// back into the forgotten prefix instead of moving the gap (a longer step back costs as much
/// as the gap move it replaces, and leaves no gap where the next insert may land). Measured on
/// the engine-on callgrind workload of BENCHMARKS.md (measured phase): 32: 934.5 M instructions,
/// 64: 932.2 M, 128: 931.0 M (engine off 982.3, 982.4, 983.0 M).
const SHORT_SHIFT: usize = 128;

/// Booked intervals `[start, end)` of one resource, sorted and disjoint.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// The intervals: live in `head..gap_start` and `gap_end..`, in time order.
    busy: Vec<(Nanoseconds, Nanoseconds)>,
    head: usize,
    /// The gap: `gap_start..gap_end` holds no booking. Invariant: `gap_end == busy.len()`
    /// implies `gap_start == gap_end` (no gap at the end of the vector).
    gap_start: usize,
    gap_end: usize,
    busy_total_ns: Nanoseconds,
    /// The long form, when the timeline holds many bookings (`busy` is empty then).
    long: Option<Box<Blocks>>,
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
        // Fast path: at or after the end of everything booked (the last live booking is the
        // vector's last element: no gap at the end). The vector is empty in the long form.
        if len == self.head {
            if let Some(long) = self.long.as_deref_mut() {
                return long.book(earliest_ns, duration_ns);
            }
            self.make_room();
            self.busy.push((earliest_ns, earliest_ns + duration_ns));
            self.gap_start = self.busy.len();
            self.gap_end = self.gap_start;
            return earliest_ns;
        }
        let last = &mut self.busy[len - 1];
        if earliest_ns >= last.1 {
            if earliest_ns == last.1 {
                last.1 += duration_ns;
            } else {
                self.push_last((earliest_ns, earliest_ns + duration_ns));
            }
            return earliest_ns;
        }
        self.book_between(earliest_ns, duration_ns)
    }

    /// A booking that starts before the end of the last one: the first gap of the schedule
    /// long enough, found by bisection, written into the buffer's gap moved there.
    #[inline(always)]
    fn book_between(&mut self, earliest_ns: Nanoseconds, duration_ns: Nanoseconds) -> Nanoseconds {
        let len = self.busy.len();
        let (head, gap_start, gap_end) = (self.head, self.gap_start, self.gap_end);
        let mut candidate = earliest_ns;
        // The first booking that ends after the candidate (sorted, so by bisection), in the
        // part before the gap if one there ends after it, else in the part after.
        let mut index = if gap_start > head && self.busy[gap_start - 1].1 > candidate {
            head + self.busy[head..gap_start].partition_point(|&(_, end)| end <= candidate)
        } else {
            gap_end + self.busy[gap_end..].partition_point(|&(_, end)| end <= candidate)
        };
        while index < len {
            let (start, end) = self.busy[index];
            if candidate + duration_ns <= start {
                break;
            }
            candidate = candidate.max(end);
            index += 1;
            if index == gap_start {
                index = gap_end;
            }
        }
        let end = candidate + duration_ns;
        // The live booking before `index`, if any.
        let prev = if index == gap_end { (gap_start > head).then(|| gap_start - 1) } else { (index > head).then(|| index - 1) };
        // Merge with touching neighbours to keep the list short.
        let touches_prev = prev.is_some_and(|p| self.busy[p].1 == candidate);
        let touches_next = index < len && self.busy[index].0 == end;
        match (touches_prev, touches_next) {
            (true, true) => {
                let next_end = self.busy[index].1;
                self.busy[prev.unwrap_or_default()].1 = next_end;
                self.move_gap_before(index);
                self.gap_end += 1;
                self.drop_gap_at_end();
            }
            (true, false) => self.busy[prev.unwrap_or_default()].1 = end,
            (false, true) => self.busy[index].0 = candidate,
            (false, false) => {
                if index == len {
                    self.push_last((candidate, end));
                } else if index < gap_start && head > 0 && index - head <= SHORT_SHIFT && index - head < gap_start - index {
                    // Nearer the oldest booking than the gap (a host booking near the present
                    // while the gap sits among work booked far ahead): the bookings before it
                    // step back into the forgotten prefix, and the gap stays where it is.
                    self.shift_front_back(index);
                    self.busy[index - 1] = (candidate, end);
                } else {
                    self.move_gap_before(index);
                    let reopen = self.gap_start == self.gap_end;
                    if reopen {
                        self.open_gap();
                    }
                    self.busy[self.gap_start] = (candidate, end);
                    self.gap_start += 1;
                    // Checked only when the gap had closed (every few dozen inserts at most).
                    if reopen && self.pending_bookings() > LONG {
                        self.lengthen();
                    }
                }
            }
        }
        candidate
    }

    /// Take the long form: the bookings move into blocks.
    #[cold]
    #[inline(never)]
    fn lengthen(&mut self) {
        let (front, back) = (&self.busy[self.head..self.gap_start], &self.busy[self.gap_end..]);
        let blocks = Blocks::from_sorted(front.iter().chain(back).copied());
        self.start_over();
        self.long = Some(Box::new(blocks));
    }

    /// Go back to the short form: the bookings move into the vector.
    #[cold]
    #[inline(never)]
    fn shorten(&mut self) {
        if let Some(long) = self.long.take() {
            self.busy.extend(long.bookings());
            self.gap_start = self.busy.len();
            self.gap_end = self.gap_start;
        }
    }

    /// Move the gap so that it ends at the live booking at `index` (outside the gap): the
    /// bookings between the gap and `index` cross it.
    #[inline]
    fn move_gap_before(&mut self, index: usize) {
        if index >= self.gap_end {
            let moved = index - self.gap_end;
            if moved <= SHORT_MOVE {
                // Most moves are a few bookings: without the call of a general copy.
                for i in 0..moved {
                    self.busy[self.gap_start + i] = self.busy[self.gap_end + i];
                }
            } else {
                self.busy.copy_within(self.gap_end..index, self.gap_start);
            }
            self.gap_start += moved;
            self.gap_end = index;
        } else {
            let moved = self.gap_start - index;
            if moved <= SHORT_MOVE {
                for i in (0..moved).rev() {
                    self.busy[self.gap_end - moved + i] = self.busy[index + i];
                }
            } else {
                self.busy.copy_within(index..self.gap_start, self.gap_end - moved);
            }
            self.gap_start = index;
            self.gap_end -= moved;
        }
    }

    /// Move the live bookings `head..index` one slot back into the forgotten prefix (`head > 0`),
    /// freeing slot `index - 1`.
    #[inline]
    fn shift_front_back(&mut self, index: usize) {
        let head = self.head;
        let moved = index - head;
        if moved <= SHORT_MOVE {
            for i in head..index {
                self.busy[i - 1] = self.busy[i];
            }
        } else {
            self.busy.copy_within(head..index, head - 1);
        }
        self.head = head - 1;
    }

    /// Open a gap at `gap_start` (closed now) by moving the bookings after it back: as many
    /// slots as there are bookings after it (at least [`MIN_GAP`]), so reopening is amortised.
    #[cold]
    fn open_gap(&mut self) {
        let len = self.busy.len();
        let width = (len - self.gap_end).max(MIN_GAP);
        if len + width > self.busy.capacity() && 2 * self.head >= len {
            self.busy.drain(..self.head);
            self.gap_start -= self.head;
            self.gap_end -= self.head;
            self.head = 0;
        }
        let len = self.busy.len();
        if width == len - self.gap_end {
            // The bookings after the gap copied to the end (no zeroing of new slots): their old
            // slots are the new gap.
            self.busy.extend_from_within(self.gap_end..len);
        } else {
            self.busy.resize(len + width, (0, 0));
            self.busy.copy_within(self.gap_end..len, self.gap_end + width);
        }
        self.gap_end += width;
    }

    /// Keep the invariant: a gap reaching the end of the vector is cut off.
    #[inline]
    fn drop_gap_at_end(&mut self) {
        if self.gap_end == self.busy.len() {
            self.busy.truncate(self.gap_start);
            self.gap_end = self.gap_start;
        }
    }

    /// Append after the last live booking.
    #[inline]
    fn push_last(&mut self, interval: (Nanoseconds, Nanoseconds)) {
        self.make_room();
        self.busy.push(interval);
        if self.gap_end == self.gap_start {
            self.gap_start = self.busy.len();
            self.gap_end = self.gap_start;
        }
    }

    /// Drop bookings that ended at or before `now_ns` (nothing can be booked before the present).
    #[inline]
    pub fn forget_before(&mut self, now_ns: Nanoseconds) {
        let front_end = self.gap_start;
        while self.head < front_end && self.busy[self.head].1 <= now_ns {
            self.head += 1;
        }
        if self.head == front_end {
            if front_end == self.busy.len() {
                if front_end > 0 {
                    self.start_over();
                } else if self.long.is_some() {
                    // The vector is empty in the long form.
                    self.forget_long(now_ns);
                }
            } else {
                self.forget_after_gap(now_ns);
            }
        }
    }

    /// [`Timeline::forget_before`] in the long form; back to the short form when few bookings
    /// are left.
    #[inline(never)]
    fn forget_long(&mut self, now_ns: Nanoseconds) {
        if let Some(long) = self.long.as_deref_mut() {
            long.forget_before(now_ns);
            if long.len() < SHORT {
                self.shorten();
            }
        }
    }

    /// Forgetting reached the gap: the gap joins the forgotten prefix, and so do the bookings
    /// after it that ended; an empty timeline starts its vector over.
    #[cold]
    #[inline(never)]
    fn forget_after_gap(&mut self, now_ns: Nanoseconds) {
        let len = self.busy.len();
        let mut head = self.gap_end;
        while head < len && self.busy[head].1 <= now_ns {
            head += 1;
        }
        self.head = head;
        self.gap_start = head;
        self.gap_end = head;
        if head == len && len > 0 {
            self.start_over();
        }
    }

    /// Nothing booked any more: the vector starts over from its first slot.
    #[inline]
    fn start_over(&mut self) {
        self.busy.clear();
        self.head = 0;
        self.gap_start = 0;
        self.gap_end = 0;
    }

    /// Room for one more booking: the forgotten prefix is cut off instead of growing the
    /// vector when it is at least half of it (amortised O(1) per booking).
    #[inline]
    fn make_room(&mut self) {
        if self.busy.len() == self.busy.capacity() && 2 * self.head >= self.busy.len() && self.head > 0 {
            self.busy.drain(..self.head);
            self.gap_start -= self.head;
            self.gap_end -= self.head;
            self.head = 0;
        }
    }

    /// End of the last booking (the resource is idle from then on).
    pub fn free_from_ns(&self) -> Nanoseconds {
        if let Some(long) = &self.long {
            long.last_end()
        } else if self.pending_bookings() > 0 {
            self.busy[self.busy.len() - 1].1
        } else {
            0
        }
    }

    /// Total time booked so far.
    pub fn busy_total_ns(&self) -> Nanoseconds {
        self.busy_total_ns
    }

    /// Booked time from `at_ns` on: the part of every booking held that lies after `at_ns`.
    /// Exact for any `at_ns` not before the last [`Timeline::forget_before`]'s present (what
    /// was forgotten ended before it). A run's figures count a resource's busy time up to the
    /// end of their window, not work booked past it (`ssdlab-drive`'s `BusyCounters`).
    pub fn busy_after(&self, at_ns: Nanoseconds) -> Nanoseconds {
        let after = |(start, end): (Nanoseconds, Nanoseconds)| end.saturating_sub(start.max(at_ns));
        if let Some(long) = &self.long {
            return long.bookings().map(after).sum();
        }
        self.busy[self.head..self.gap_start].iter().chain(&self.busy[self.gap_end..]).rev().take_while(|b| b.1 > at_ns).map(|&b| after(b)).sum()
    }

    /// Number of future bookings held (for tests and diagnostics).
    pub fn pending_bookings(&self) -> usize {
        if let Some(long) = &self.long {
            return long.len();
        }
        self.gap_start - self.head + self.busy.len() - self.gap_end
    }

    /// The live bookings in time order (tests).
    #[cfg(test)]
    fn live(&self) -> Vec<(Nanoseconds, Nanoseconds)> {
        if let Some(long) = &self.long {
            long.check();
            return long.bookings().collect();
        }
        let mut v = self.busy[self.head..self.gap_start].to_vec();
        v.extend_from_slice(&self.busy[self.gap_end..]);
        v
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
            let at = self.busy.partition_point(|&booked| booked < (candidate, candidate + duration));
            self.busy.insert(at, (candidate, candidate + duration));
            candidate
        }

        /// Drop the intervals of busy periods that ended at or before `now` (no later booking can
        /// reach them: the tests book nothing before the present), as a timeline does.
        fn forget_before(&mut self, now: Nanoseconds) {
            let mut ended = 0;
            while ended < self.busy.len() {
                let mut last = ended;
                while last + 1 < self.busy.len() && self.busy[last].1 == self.busy[last + 1].0 {
                    last += 1;
                }
                if self.busy[last].1 > now {
                    break;
                }
                ended = last + 1;
            }
            self.busy.drain(..ended);
        }

        /// The booked time as disjoint, non-touching intervals (what a timeline holds).
        fn merged(&self) -> Vec<(Nanoseconds, Nanoseconds)> {
            let mut merged: Vec<(Nanoseconds, Nanoseconds)> = Vec::new();
            for &(start, end) in &self.busy {
                match merged.last_mut() {
                    Some(last) if last.1 == start => last.1 = end,
                    _ => merged.push((start, end)),
                }
            }
            merged
        }
    }

    /// Check a timeline against the reference after a booking: the same start, its invariants,
    /// and (when `whole`) the same intervals.
    fn check(fast: &Timeline, reference: &Reference, starts: (Nanoseconds, Nanoseconds), whole: bool, what: &str) {
        assert_eq!(starts.0, starts.1, "{what}");
        let live = fast.live();
        assert!(live.windows(2).all(|w| w[0].1 < w[1].0), "{what}: intervals overlap or touch");
        assert_eq!(live.len(), fast.pending_bookings(), "{what}");
        if fast.long.is_none() {
            assert!(fast.gap_end < fast.busy.len() || fast.gap_start == fast.gap_end, "{what}: a gap at the end");
        } else {
            assert!(fast.busy.is_empty(), "{what}: bookings in both forms");
        }
        if let Some(&(_, last_end)) = live.last() {
            assert_eq!(fast.free_from_ns(), last_end, "{what}");
        }
        if whole {
            assert_eq!(live, reference.merged(), "{what}: the intervals held");
        }
        // Booked time after a moment: from the start of what is held, inside and between
        // intervals, and past the end.
        let plain = |at: Nanoseconds| -> Nanoseconds { live.iter().map(|&(s, e)| e.saturating_sub(s.max(at))).sum() };
        if let (Some(&(first, _)), Some(&(_, last))) = (live.first(), live.last()) {
            for at in [first, first + (last - first) / 3, (first + last) / 2, last.saturating_sub(1), last, last + 5] {
                assert_eq!(fast.busy_after(at), plain(at), "{what}: busy after {at}");
            }
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
                let starts = (fast.book(earliest, duration), reference.book(earliest, duration));
                let what = format!("seed {seed} step {step}: booking of {duration} from {earliest} (now {now})");
                check(&fast, &reference, starts, false, &what);
            }
            let total: Nanoseconds = reference.busy.iter().map(|(s, e)| e - s).sum();
            assert_eq!(fast.busy_total_ns(), total, "seed {seed}");
            reference.forget_before(now);
            check(&fast, &reference, (0, 0), true, &format!("seed {seed}, at the end"));
        }
    }

    /// Work booked far ahead at 16 fronts (as each die books its GC work) among work booked near
    /// a present that moves slowly for a while (thousands of bookings pend: the long form), then
    /// fast (they drain: back to the short form), and again.
    #[test]
    fn books_as_the_plain_first_fit_rule_does_with_thousands_pending() {
        for seed in 0..8u64 {
            let mut rng = SimRng::new(1000 + seed);
            let (mut fast, mut reference) = (Timeline::new(), Reference::default());
            let (mut now, mut fronts) = (0, [0; 16]);
            let (mut most, mut switches, mut was_long) = (0, 0, false);
            for step in 0..32_000 {
                let draining = (step / 8000) % 2 == 1;
                if rng.below(10) == 0 {
                    now += rng.below(if draining { 200_000 } else { 2_000 });
                    fast.forget_before(now);
                    reference.forget_before(now);
                }
                let (earliest, duration) = if rng.below(2) == 0 {
                    let front = &mut fronts[rng.below(16) as usize];
                    *front = (*front).max(now) + 3_000 + rng.below(18_000);
                    (*front, 20 + rng.below(60))
                } else {
                    let longest = if rng.below(5) == 0 { 400 } else { 60 };
                    (now + rng.below(20_000), rng.below(longest))
                };
                let starts = (fast.book(earliest, duration), reference.book(earliest, duration));
                assert_eq!(starts.0, starts.1, "seed {seed} step {step}: booking of {duration} from {earliest} (now {now})");
                if step % 50 == 0 {
                    let what = format!("seed {seed} step {step}");
                    check(&fast, &reference, starts, step % 1000 == 0, &what);
                }
                most = most.max(fast.pending_bookings());
                if fast.long.is_some() != was_long {
                    switches += 1;
                    was_long = !was_long;
                }
            }
            let total: Nanoseconds = reference.busy.iter().map(|(s, e)| e - s).sum::<Nanoseconds>();
            assert!(fast.busy_total_ns() >= total, "seed {seed}");
            assert!(most >= 2500, "seed {seed}: at most {most} pending");
            assert!(switches >= 3, "seed {seed}: {switches} switches between the forms");
        }
    }

    /// Bookings that exactly fill the gaps between bookings held in the long form: neighbours
    /// merge within a block and across two blocks (emptying blocks), down to one interval.
    #[test]
    fn the_long_form_merges_bookings_that_fill_gaps() {
        let mut rng = SimRng::new(7);
        let mut shuffled = |n: Nanoseconds| {
            let mut order: Vec<Nanoseconds> = (0..n).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            order
        };
        let (mut fast, mut reference) = (Timeline::new(), Reference::default());
        // Bookings 50 long every 100, booked in random order (inserts into the middle).
        for (n, &i) in shuffled(3000).iter().enumerate() {
            let starts = (fast.book(i * 100, 50), reference.book(i * 100, 50));
            check(&fast, &reference, starts, n % 97 == 0, &format!("booking {i} ({n} before)"));
        }
        assert!(fast.long.is_some(), "the long form");
        for (n, &gap) in shuffled(2999).iter().enumerate() {
            let starts = (fast.book(gap * 100 + 50, 50), reference.book(gap * 100 + 50, 50));
            check(&fast, &reference, starts, n % 97 == 0, &format!("gap {gap} filled ({n} before)"));
            assert!(fast.long.is_some(), "gap {gap}: the long form");
        }
        assert_eq!(fast.live(), vec![(0, 299_950)]);
        // A booking longer than every gap goes after the end.
        assert_eq!(fast.book(0, 10), 299_950);
    }

    #[test]
    fn an_insert_near_the_present_steps_back_into_the_forgotten_prefix() {
        let mut t = Timeline::new();
        for i in 0..100 {
            assert_eq!(t.book(i * 1000, 100), i * 1000);
        }
        t.forget_before(10_000);
        assert_eq!((t.head, t.pending_bookings()), (10, 90));
        // Between the bookings at 30 us and 31 us: 20 bookings after the oldest pending one,
        // 69 before the end of the vector (where the gap is, closed).
        assert_eq!(t.book(30_500, 100), 30_500);
        assert_eq!(t.head, 9, "the bookings before the insert moved back one slot");
        assert_eq!((t.gap_start, t.gap_end), (100, 100), "the gap did not move");
        let live = t.live();
        assert_eq!(live.len(), 91);
        assert_eq!(live[20], (30_000, 30_100));
        assert_eq!(live[21], (30_500, 30_600));
        assert_eq!(live[22], (31_000, 31_100));
        // Nearer the end than the oldest booking: the gap moves there instead.
        assert_eq!(t.book(90_500, 100), 90_500);
        assert_eq!(t.head, 9);
        assert!(t.gap_end > t.gap_start && t.gap_start < 100, "a gap opened before the bookings after 90.5 us");
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
