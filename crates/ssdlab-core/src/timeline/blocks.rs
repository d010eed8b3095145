//! The long form of a [`super::Timeline`]: its bookings in blocks of at most [`BLOCK`] under a
//! small index, so that a booking costs about the same with ten thousand pending as with a few
//! hundred.
//!
//! Each block holds a run of consecutive bookings (`items[lo..hi]`, in time order); the index
//! lists the blocks in time order with, for each, the end of its last booking (exact: a first-fit
//! search bisects over it) and its *room*: an upper bound on the widest free gap before any of its
//! bookings, the gap between the previous block's last booking and its first included. A search
//! bisects to the first block with a booking ending after the earliest start, looks through that
//! block from there, then skips every later block whose room is shorter than the booking (a scan
//! over one small array) and looks through the first one that may fit; a block looked through
//! without a fit gets its exact room. Inserting, merging and forgetting only narrow or close gaps,
//! so a room stays an upper bound without being recomputed; appending widens the last block's room
//! by the new gap. An insert moves the bookings on the shorter side of its place within one block
//! (each block keeps free slots at both ends), and a full block is split in two, which moves
//! a few words of the index per block after it.
//!
//! Bookings are kept canonical as in the short form: sorted, disjoint, and never touching (a
//! booking that touches a neighbour is merged into it), so both forms hold the same intervals
//! and count the same pending bookings.

use crate::Nanoseconds;

/// Most bookings in one block.
pub(super) const BLOCK: usize = 32;

/// Bookings per block when a block is built from a sorted list (room for inserts at both ends).
const FILL: usize = BLOCK * 3 / 4;

/// Moves of at most this many bookings within a block copy them one by one (no call to a
/// general copy).
const SHORT_MOVE: usize = 6;

/// Forgotten index entries kept before the index is compacted (amortised O(1) per block).
const INDEX_SLACK: usize = 64;

/// One booking `[start, end)`.
type Interval = (Nanoseconds, Nanoseconds);

/// What a slot before a block's first booking holds: it ends before any time searched for.
const BEFORE: Interval = (0, 0);

/// What a slot after a block's last booking holds: it ends after any time searched for.
const AFTER: Interval = (Nanoseconds::MAX, Nanoseconds::MAX);

/// A run of consecutive bookings: `items[lo..hi]`, never empty while in the index. The slots
/// before `lo` hold [`BEFORE`] and those from `hi` on [`AFTER`], so the ends of all the slots
/// are sorted and a search for a time runs the same five steps over the whole block.
#[derive(Debug, Clone)]
struct Block {
    lo: usize,
    hi: usize,
    items: [Interval; BLOCK],
}

impl Block {
    /// A block holding `bookings` (at most [`BLOCK`]) from slot `lo` on.
    fn holding(bookings: &[Interval], lo: usize) -> Self {
        let mut items = [BEFORE; BLOCK];
        let hi = lo + bookings.len();
        items[lo..hi].copy_from_slice(bookings);
        items[hi..].fill(AFTER);
        Self { lo, hi, items }
    }

    /// The slot of the first booking ending after `time` (`hi` if none does).
    #[inline(always)]
    fn first_ending_after(&self, time: Nanoseconds) -> usize {
        let mut p = 0;
        let mut step = BLOCK / 2;
        while step > 0 {
            // `p + step - 1 < BLOCK`: `p` is a sum of distinct larger steps.
            if self.items[(p + step - 1) % BLOCK].1 <= time {
                p += step;
            }
            step /= 2;
        }
        p
    }

    /// The exact room: the widest gap before any booking, the first one counted from `before`.
    fn widest_gap(&self, mut before: Nanoseconds) -> Nanoseconds {
        let mut widest = 0;
        for &(start, end) in &self.items[self.lo..self.hi] {
            widest = widest.max(start - before);
            before = end;
        }
        widest
    }
}

/// Bookings in blocks under an index (see the module documentation).
#[derive(Debug, Clone, Default)]
pub(super) struct Blocks {
    /// Every block ever allocated; the ones not in the index are listed in `spare`.
    pool: Vec<Block>,
    spare: Vec<usize>,
    /// The index, live from `first` on: block ids in time order, each block's last end, and
    /// each block's room.
    first: usize,
    order: Vec<usize>,
    ends: Vec<Nanoseconds>,
    room: Vec<Nanoseconds>,
    /// Bookings held.
    count: usize,
    /// At most the end of the first booking (an insert before it lowers it): forgetting an
    /// earlier present does nothing.
    front_end: Nanoseconds,
    /// The index entry of the block the last booking before the end went to (consecutive
    /// bookings often land in the same block): tried before bisecting.
    finger: usize,
}

impl Blocks {
    /// The blocks holding `bookings` (sorted, disjoint, not touching).
    pub(super) fn from_sorted(bookings: impl Iterator<Item = Interval>) -> Self {
        let mut blocks = Self::default();
        let mut run = Vec::with_capacity(FILL);
        let mut before = 0;
        for booking in bookings {
            run.push(booking);
            if run.len() == FILL {
                blocks.push_block(&run, before);
                before = booking.1;
                run.clear();
            }
        }
        if !run.is_empty() {
            blocks.push_block(&run, before);
        }
        blocks.front_end = blocks.first_end();
        blocks
    }

    /// Append a block holding `run` (after every booking held), its room counted from `before`.
    fn push_block(&mut self, run: &[Interval], before: Nanoseconds) {
        let block = Block::holding(run, (BLOCK - run.len()) / 2);
        let room = block.widest_gap(before);
        let id = self.allocate(block);
        self.order.push(id);
        self.ends.push(run[run.len() - 1].1);
        self.room.push(room);
        self.count += run.len();
    }

    /// A block id holding `block`, reusing a spare one.
    fn allocate(&mut self, block: Block) -> usize {
        match self.spare.pop() {
            Some(id) => {
                self.pool[id] = block;
                id
            }
            None => {
                self.pool.push(block);
                self.pool.len() - 1
            }
        }
    }

    /// The bookings in time order.
    pub(super) fn bookings(&self) -> impl Iterator<Item = Interval> + '_ {
        self.order[self.first..].iter().flat_map(|&id| {
            let block = &self.pool[id];
            block.items[block.lo..block.hi].iter().copied()
        })
    }

    /// Number of bookings held.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.count
    }

    /// End of the last booking (0 when empty).
    pub(super) fn last_end(&self) -> Nanoseconds {
        if self.first < self.ends.len() {
            self.ends[self.ends.len() - 1]
        } else {
            0
        }
    }

    /// End of the first booking (0 when empty).
    fn first_end(&self) -> Nanoseconds {
        match self.order.get(self.first) {
            Some(&id) => self.pool[id].items[self.pool[id].lo].1,
            None => 0,
        }
    }

    /// Book `duration_ns` (not 0) at the earliest time not before `earliest_ns` when the resource
    /// is free for that long (first fit). Returns the start.
    #[inline]
    pub(super) fn book(&mut self, earliest_ns: Nanoseconds, duration_ns: Nanoseconds) -> Nanoseconds {
        let n = self.ends.len();
        if self.first == n || earliest_ns >= self.ends[n - 1] {
            self.append(earliest_ns, earliest_ns + duration_ns);
            return earliest_ns;
        }
        // The first block with a booking ending after the earliest start (the block of the
        // previous booking if it is that one), looked through from that booking on.
        let f = self.finger;
        let j = if f < n && earliest_ns < self.ends[f] && (f == self.first || (f > self.first && self.ends[f - 1] <= earliest_ns)) {
            f
        } else {
            self.first + self.ends[self.first..].partition_point(|&end| end <= earliest_ns)
        };
        self.finger = j;
        let id = self.order[j];
        let block = &self.pool[id];
        let mut p = block.first_ending_after(earliest_ns);
        let mut candidate = earliest_ns;
        while p < block.hi {
            let (start, end) = block.items[p];
            if candidate + duration_ns <= start {
                return self.place(j, id, p, candidate, candidate + duration_ns);
            }
            // Every booking from `p` on ends after the candidate.
            candidate = end;
            p += 1;
        }
        self.book_in_later_blocks(j, duration_ns)
    }

    /// The first fit after the `j`-th block: the first later block whose room may hold the
    /// booking, looked through; none: after the last booking.
    #[inline(never)]
    fn book_in_later_blocks(&mut self, mut j: usize, duration_ns: Nanoseconds) -> Nanoseconds {
        let n = self.ends.len();
        loop {
            match self.room[j + 1..n].iter().position(|&room| room >= duration_ns) {
                None => {
                    let start = self.ends[n - 1];
                    self.append(start, start + duration_ns);
                    return start;
                }
                Some(skipped) => j += 1 + skipped,
            }
            let mut before = self.ends[j - 1];
            let id = self.order[j];
            let block = &self.pool[id];
            let mut widest = 0;
            for p in block.lo..block.hi {
                let (start, end) = block.items[p];
                if before + duration_ns <= start {
                    self.finger = j;
                    return self.place(j, id, p, before, before + duration_ns);
                }
                widest = widest.max(start - before);
                before = end;
            }
            // Looked through without a fit: its room is now exact.
            self.room[j] = widest;
        }
    }

    /// Book `[start, end)` before the booking at slot `p` of block `id`, the `j`-th (it fits
    /// there, and after the booking before it).
    #[inline]
    fn place(&mut self, j: usize, id: usize, p: usize, start: Nanoseconds, end: Nanoseconds) -> Nanoseconds {
        let block = &mut self.pool[id];
        let lo = block.lo;
        let touches_next = block.items[p].0 == end;
        if p > lo {
            // The booking before is in this block (the common case).
            let touches_prev = block.items[p - 1].1 == start;
            match (touches_prev, touches_next) {
                (true, true) => {
                    // The booking fills a gap: its neighbours become one booking.
                    block.items[p - 1].1 = block.items[p].1;
                    self.count -= 1;
                    self.remove_at(id, p);
                }
                (true, false) => block.items[p - 1].1 = end,
                (false, true) => block.items[p].0 = start,
                (false, false) => self.insert_new(j, id, p, (start, end)),
            }
        } else {
            // The booking before, if any, is the last of the previous block.
            let touches_prev = j > self.first && self.ends[j - 1] == start;
            match (touches_prev, touches_next) {
                (true, true) => {
                    let next_end = block.items[p].1;
                    block.items[p] = BEFORE;
                    block.lo += 1;
                    let emptied = block.lo == block.hi;
                    self.count -= 1;
                    self.set_last_end(j - 1, next_end);
                    if emptied {
                        self.remove_block(j);
                    }
                }
                (true, false) => self.set_last_end(j - 1, end),
                (false, true) => block.items[p].0 = start,
                (false, false) => self.insert_new(j, id, p, (start, end)),
            }
        }
        start
    }

    /// Insert a new booking before slot `p` of block `id`, the `j`-th.
    #[inline]
    fn insert_new(&mut self, j: usize, id: usize, p: usize, booking: Interval) {
        self.count += 1;
        self.front_end = self.front_end.min(booking.1);
        self.insert(j, id, p, booking);
    }

    /// The last booking of the `j`-th block now ends at `end`.
    fn set_last_end(&mut self, j: usize, end: Nanoseconds) {
        let block = &mut self.pool[self.order[j]];
        block.items[block.hi - 1].1 = end;
        self.ends[j] = end;
    }

    /// Remove the booking at slot `p` (not the first) of block `id`, moving
    /// the shorter side.
    fn remove_at(&mut self, id: usize, p: usize) {
        let block = &mut self.pool[id];
        if p - block.lo < block.hi - p {
            block.items.copy_within(block.lo..p, block.lo + 1);
            block.items[block.lo] = BEFORE;
            block.lo += 1;
        } else {
            block.items.copy_within(p + 1..block.hi, p);
            block.hi -= 1;
            block.items[block.hi] = AFTER;
        }
    }

    /// Insert `booking` before slot `p` (`p < hi`) of block `id`, the `j`-th, moving the shorter
    /// side that has a free slot; a full block is split first.
    #[inline]
    fn insert(&mut self, j: usize, id: usize, p: usize, booking: Interval) {
        let block = &mut self.pool[id];
        let (lo, hi) = (block.lo, block.hi);
        if lo > 0 && (p - lo < hi - p || hi == BLOCK) {
            if p - lo <= SHORT_MOVE {
                for i in lo..p {
                    block.items[i - 1] = block.items[i];
                }
            } else {
                block.items.copy_within(lo..p, lo - 1);
            }
            block.items[p - 1] = booking;
            block.lo = lo - 1;
        } else if hi < BLOCK {
            if hi - p <= SHORT_MOVE {
                for i in (p..hi).rev() {
                    block.items[i + 1] = block.items[i];
                }
            } else {
                block.items.copy_within(p..hi, p + 1);
            }
            block.items[p] = booking;
            block.hi = hi + 1;
        } else {
            let (j, p) = self.split(j, p);
            let id = self.order[j];
            self.insert(j, id, p, booking);
        }
    }

    /// Split the full `j`-th block in two halves, each centred in its block; returns where slot
    /// `p` of the full block is now (block and slot).
    #[cold]
    #[inline(never)]
    fn split(&mut self, j: usize, p: usize) -> (usize, usize) {
        const HALF: usize = BLOCK / 2;
        const LO: usize = (BLOCK - HALF) / 2;
        let id = self.order[j];
        let later = Block::holding(&self.pool[id].items[HALF..], LO);
        let earlier = Block::holding(&self.pool[id].items[..HALF], LO);
        let first_half_end = earlier.items[LO + HALF - 1].1;
        self.pool[id] = earlier;
        let later_id = self.allocate(later);
        // Both halves' gaps are among the full block's: its room bounds both.
        self.order.insert(j + 1, later_id);
        self.ends.insert(j + 1, self.ends[j]);
        self.ends[j] = first_half_end;
        self.room.insert(j + 1, self.room[j]);
        if p < HALF {
            (j, p + LO)
        } else {
            (j + 1, p - HALF + LO)
        }
    }

    /// Drop the (emptied) `j`-th block, not the first, from the index.
    #[cold]
    #[inline(never)]
    fn remove_block(&mut self, j: usize) {
        self.spare.push(self.order[j]);
        self.order.remove(j);
        self.ends.remove(j);
        self.room.remove(j);
    }

    /// Book `[start, end)` at or after the end of the last booking.
    fn append(&mut self, start: Nanoseconds, end: Nanoseconds) {
        let n = self.ends.len();
        if self.first == n {
            self.push_block(&[(start, end)], 0);
            self.front_end = end;
            return;
        }
        let last_end = self.ends[n - 1];
        let id = self.order[n - 1];
        if start == last_end {
            self.set_last_end(n - 1, end);
            return;
        }
        self.count += 1;
        let block = &mut self.pool[id];
        if block.hi < BLOCK {
            block.items[block.hi] = (start, end);
            block.hi += 1;
            self.ends[n - 1] = end;
            self.room[n - 1] = self.room[n - 1].max(start - last_end);
        } else {
            let id = self.allocate(Block::holding(&[(start, end)], 0));
            self.order.push(id);
            self.ends.push(end);
            self.room.push(start - last_end);
        }
    }

    /// Drop bookings that ended at or before `now_ns`.
    #[inline]
    pub(super) fn forget_before(&mut self, now_ns: Nanoseconds) {
        if now_ns < self.front_end {
            return;
        }
        self.forget_from_front(now_ns);
    }

    /// Drop bookings from the first block on while they ended at or before `now_ns`, and blocks
    /// emptied so.
    fn forget_from_front(&mut self, now_ns: Nanoseconds) {
        while let Some(&id) = self.order.get(self.first) {
            let block = &mut self.pool[id];
            let lo = block.lo;
            while block.lo < block.hi && block.items[block.lo].1 <= now_ns {
                block.items[block.lo] = BEFORE;
                block.lo += 1;
            }
            self.count -= block.lo - lo;
            if block.lo < block.hi {
                self.front_end = block.items[block.lo].1;
                return;
            }
            self.spare.push(id);
            self.first += 1;
            if self.first >= INDEX_SLACK && 2 * self.first >= self.order.len() {
                self.order.drain(..self.first);
                self.ends.drain(..self.first);
                self.room.drain(..self.first);
                self.first = 0;
            }
        }
        self.order.clear();
        self.ends.clear();
        self.room.clear();
        self.first = 0;
        self.front_end = 0;
    }

    /// Check every invariant (tests): sorted, disjoint, not touching; each block non-empty with
    /// its end exact and its room an upper bound; the count exact.
    #[cfg(test)]
    pub(super) fn check(&self) {
        let mut count = 0;
        let mut before: Option<Nanoseconds> = None;
        assert_eq!((self.order.len(), self.ends.len()), (self.room.len(), self.room.len()));
        for j in self.first..self.order.len() {
            let block = &self.pool[self.order[j]];
            assert!(block.lo < block.hi && block.hi <= BLOCK, "block {j} empty or overfull");
            assert!(block.items[..block.lo].iter().all(|&slot| slot == BEFORE), "block {j}: a slot before its first booking");
            assert!(block.items[block.hi..].iter().all(|&slot| slot == AFTER), "block {j}: a slot after its last booking");
            let items = &block.items[block.lo..block.hi];
            assert_eq!(self.ends[j], items[items.len() - 1].1, "block {j}: its end");
            if let Some(before) = before {
                assert!(self.room[j] >= block.widest_gap(before), "block {j}: its room is too short");
            }
            for &(start, end) in items {
                assert!(start < end);
                assert!(before.is_none_or(|b| b < start), "block {j}: bookings overlap or touch");
                before = Some(end);
            }
            count += items.len();
        }
        assert_eq!(count, self.count);
        assert!(self.front_end <= self.first_end() || count == 0);
    }
}
