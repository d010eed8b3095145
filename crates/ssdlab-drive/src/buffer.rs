//! The controller's write buffer.
//!
//! A FIFO ring of 4 KiB sectors. A sector enters when its host data crosses the link and leaves
//! when the unit holding it has been programmed. A command whose sectors would reuse ring
//! positions still awaiting their program waits until those programs end: that back-pressure is
//! how NAND and GC throughput limit the host.

use ssdlab_core::Nanoseconds;

const PENDING: Nanoseconds = Nanoseconds::MAX;

/// Ring of release times.
#[derive(Debug, Clone)]
pub(crate) struct WriteBuffer {
    release_ns: Vec<Nanoseconds>,
    head: usize,
    pending: Vec<usize>,
    last_release_ns: Nanoseconds,
    /// Sectors pushed since the buffer was made, absorbed ones included (push `i` took position
    /// `i % len`).
    pushed: u64,
}

/// What the write buffer held at a moment (a power cut): which sectors had not left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BufferAtCut {
    /// Sectors that ever entered the buffer.
    pub pushed: u64,
    /// Of which the first this many had all left it (programmed, or needing no program).
    pub left_through: u64,
    /// Sectors after those still in it: never programmed, or in a program not yet complete.
    pub still_in: u64,
    /// Programs booked but not complete (torn by a cut then).
    pub programs_in_flight: u64,
}

impl WriteBuffer {
    pub fn new(sectors: usize) -> Self {
        assert!(sectors > 0);
        Self { release_ns: vec![0; sectors], head: 0, pending: Vec::with_capacity(sectors), last_release_ns: 0, pushed: 0 }
    }

    /// The positions the next `sectors` sectors take, as at most two contiguous ranges of the
    /// ring.
    #[inline]
    fn next_positions(&self, sectors: usize) -> (&[Nanoseconds], &[Nanoseconds]) {
        let n = self.release_ns.len();
        let take = sectors.min(n);
        let first = take.min(n - self.head);
        (&self.release_ns[self.head..self.head + first], &self.release_ns[..take - first])
    }

    /// Whether taking `sectors` more would reuse a position still awaiting its program (data
    /// parked in a partly filled unit that nothing else will complete soon).
    #[inline]
    pub fn blocked_by_pending(&self, sectors: usize) -> bool {
        let (a, b) = self.next_positions(sectors);
        a.iter().chain(b).any(|&t| t == PENDING)
    }

    /// Time at which `sectors` more sectors fit. The caller has made sure none of those
    /// positions still awaits its program ([`WriteBuffer::blocked_by_pending`]); finding one is
    /// a model violation and stops the simulation.
    #[inline]
    pub fn room_at(&self, sectors: usize) -> Nanoseconds {
        let (a, b) = self.next_positions(sectors);
        let mut at = a.iter().chain(b).copied().max().unwrap_or(0);
        assert_ne!(at, PENDING, "write buffer position still awaits its program: data would be overwritten");
        if sectors > self.release_ns.len() {
            // A command larger than the buffer streams through it: it needs the whole buffer
            // drained once.
            at = at.max(self.last_release_ns);
        }
        at
    }

    /// One sector entered the buffer; it is released when the current unit is programmed. The
    /// position it takes must not hold data still awaiting its program (checked in every
    /// build: a violation would silently lose buffered data).
    #[inline]
    pub fn push(&mut self) {
        let n = self.release_ns.len();
        assert_ne!(self.release_ns[self.head], PENDING, "write buffer position {} reused before its data was programmed", self.head);
        self.release_ns[self.head] = PENDING;
        self.pending.push(self.head);
        self.pushed += 1;
        self.head += 1;
        if self.head == n {
            self.head = 0;
        }
    }

    /// Sectors waiting for the program of the unit that holds them.
    pub fn pending_sectors(&self) -> usize {
        self.pending.len()
    }

    /// One sector entered the buffer that needs no program (a duplicate or zeros, which the
    /// engine absorbs): it leaves at `done_ns`. (Taken apart from the pending sectors, so a
    /// program the FTL issues while placing it, of metadata say, does not release it early.)
    #[inline]
    pub fn push_absorbed(&mut self, done_ns: Nanoseconds) {
        let n = self.release_ns.len();
        assert_ne!(self.release_ns[self.head], PENDING, "write buffer position {} reused before its data was programmed", self.head);
        self.release_ns[self.head] = done_ns;
        // Counted as a push: `at` finds push `i` at position `i % len`, so every position taken
        // must count (an absorbed sector not counted shifted every later push by one: a cut then
        // read a zero sector's past release time for a data sector still in the buffer).
        self.pushed += 1;
        self.head += 1;
        if self.head == n {
            self.head = 0;
        }
    }

    /// The unit holding every pending sector was programmed, ending at `done_ns`.
    #[inline]
    pub fn release_pending(&mut self, done_ns: Nanoseconds) {
        for &pos in &self.pending {
            self.release_ns[pos] = done_ns;
        }
        self.pending.clear();
        self.last_release_ns = self.last_release_ns.max(done_ns);
    }

    /// Sectors that ever entered the buffer.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// What was still in the buffer at `at_ns`. Sectors older than the ring's length had left it
    /// (their positions were reused, which waits for them).
    pub fn at(&self, at_ns: Nanoseconds) -> BufferAtCut {
        let n = self.release_ns.len() as u64;
        let release = |i: u64| self.release_ns[(i % n) as usize];
        let mut left_through = self.pushed.saturating_sub(n);
        while left_through < self.pushed && release(left_through) <= at_ns {
            left_through += 1;
        }
        let mut still_in = 0;
        let mut in_flight: Vec<Nanoseconds> = Vec::new();
        for i in left_through..self.pushed {
            let t = release(i);
            if t > at_ns {
                still_in += 1;
                if t != PENDING && !in_flight.contains(&t) {
                    in_flight.push(t);
                }
            }
        }
        BufferAtCut { pushed: self.pushed, left_through, still_in, programs_in_flight: in_flight.len() as u64 }
    }

    /// Sectors the buffer holds.
    pub fn capacity(&self) -> usize {
        self.release_ns.len()
    }

    /// Latest release time booked so far.
    pub fn last_release_ns(&self) -> Nanoseconds {
        self.last_release_ns
    }

    /// Empty the buffer (secure erase).
    pub fn reset(&mut self, at_ns: Nanoseconds) {
        self.release_ns.fill(at_ns);
        self.pending.clear();
        self.last_release_ns = at_ns;
    }
}

#[cfg(test)]
mod cut_tests {
    use super::*;

    #[test]
    fn the_buffer_says_what_a_cut_would_find_in_it() {
        let mut b = WriteBuffer::new(8);
        for _ in 0..4 {
            b.push();
        }
        b.release_pending(100); // one program, ending at 100
        b.push();
        b.push();
        b.release_pending(50); // another die's, ending sooner
        b.push(); // parked in an open unit
        let at = |t| b.at(t);
        assert_eq!(at(60), BufferAtCut { pushed: 7, left_through: 0, still_in: 5, programs_in_flight: 1 });
        assert_eq!(at(100), BufferAtCut { pushed: 7, left_through: 6, still_in: 1, programs_in_flight: 0 });
        b.release_pending(120);
        // The ring wraps: the oldest positions are reused, their sectors long gone.
        for _ in 0..4 {
            b.push();
        }
        assert_eq!(b.at(200), BufferAtCut { pushed: 11, left_through: 7, still_in: 4, programs_in_flight: 0 });
    }

    /// Absorbed sectors (zeros, duplicates) take positions too: a data sector pushed after them
    /// is found at its own position. (They were not counted: a data sector parked after 3
    /// absorbed ones was read at an absorbed one's position, its past release time, and a cut
    /// kept a write that was only in the buffer.)
    #[test]
    fn a_data_sector_after_absorbed_ones_is_found_in_the_buffer() {
        let mut b = WriteBuffer::new(8);
        for _ in 0..3 {
            b.push_absorbed(10);
        }
        b.push(); // parked in an open unit
        assert_eq!(b.at(20), BufferAtCut { pushed: 4, left_through: 3, still_in: 1, programs_in_flight: 0 });
        b.release_pending(30);
        assert_eq!(b.at(40), BufferAtCut { pushed: 4, left_through: 4, still_in: 0, programs_in_flight: 0 });
    }
}
