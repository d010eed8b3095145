//! Commands in flight, for closed-loop runs and trace replays alike: completions come out in
//! order of completion time, equal times in submission order (never heap or memory order), and
//! the queue keeps the busy clocks: time with at least one command outstanding, at least one
//! read, at least one write.

use ssdlab_core::Nanoseconds;
use ssdlab_workload::Op;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Slots are numbered in 16 bits of the ordering key.
const SLOT_BITS: u32 = 16;
/// Most commands a queue holds.
pub(crate) const MAX_IN_FLIGHT: usize = 1 << SLOT_BITS;

/// A command that completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Completion {
    /// When it completed.
    pub done_ns: Nanoseconds,
    /// When it arrived from the host (its latency counts from here).
    pub arrival_ns: Nanoseconds,
    /// What it was.
    pub op: Op,
    /// Its bytes.
    pub bytes: u64,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    arrival_ns: Nanoseconds,
    op: Op,
    bytes: u64,
}

/// Time with work outstanding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BusyTimes {
    /// At least one command outstanding.
    pub any_ns: Nanoseconds,
    /// At least one read outstanding.
    pub reads_ns: Nanoseconds,
    /// At least one write outstanding.
    pub writes_ns: Nanoseconds,
}

/// The in-flight queue.
#[derive(Debug, Clone)]
pub(crate) struct InFlightQueue {
    /// `(done_ns << 64) | (seq << 16) | slot`, smallest first.
    heap: BinaryHeap<Reverse<u128>>,
    entries: Vec<Entry>,
    free_slots: Vec<usize>,
    seq: u64,
    outstanding: [u32; 3],
    last_event_ns: Nanoseconds,
    busy: BusyTimes,
}

impl InFlightQueue {
    /// An empty queue for at most `capacity` commands, its busy clocks starting at `start_ns`.
    pub fn new(capacity: usize, start_ns: Nanoseconds) -> Self {
        assert!((1..=MAX_IN_FLIGHT).contains(&capacity), "in-flight capacity {capacity} out of range");
        Self {
            heap: BinaryHeap::with_capacity(capacity),
            entries: vec![Entry { arrival_ns: 0, op: Op::Read, bytes: 0 }; capacity],
            free_slots: (0..capacity).rev().collect(),
            seq: 0,
            outstanding: [0; 3],
            last_event_ns: start_ns,
            busy: BusyTimes::default(),
        }
    }

    /// Commands in flight.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Completion time of the next command to complete.
    #[inline]
    pub fn next_done_ns(&self) -> Option<Nanoseconds> {
        self.heap.peek().map(|Reverse(key)| (key >> 64) as Nanoseconds)
    }

    /// Busy clocks so far.
    pub fn busy(&self) -> BusyTimes {
        self.busy
    }

    /// Advance the busy clocks to `t`.
    #[inline]
    fn account_until(&mut self, t: Nanoseconds) {
        if t <= self.last_event_ns {
            return;
        }
        let span = t - self.last_event_ns;
        if self.outstanding.iter().any(|&n| n > 0) {
            self.busy.any_ns += span;
        }
        if self.outstanding[0] > 0 {
            self.busy.reads_ns += span;
        }
        if self.outstanding[1] > 0 {
            self.busy.writes_ns += span;
        }
        self.last_event_ns = t;
    }

    /// A command submitted at `submitted_ns` (having arrived at `arrival_ns`) completes at
    /// `done_ns`. Panics when the queue is full (the caller bounds what it submits).
    #[inline]
    pub fn push(&mut self, submitted_ns: Nanoseconds, arrival_ns: Nanoseconds, done_ns: Nanoseconds, op: Op, bytes: u64) {
        assert!(done_ns >= submitted_ns && submitted_ns >= arrival_ns, "command completes at {done_ns} before its submission at {submitted_ns}");
        self.account_until(submitted_ns);
        let slot = self.free_slots.pop().expect("in-flight queue full: more commands submitted than it was sized for");
        self.entries[slot] = Entry { arrival_ns, op, bytes };
        self.outstanding[op.index()] += 1;
        self.seq += 1;
        debug_assert!(self.seq < 1 << 48, "sequence numbers exhausted");
        self.heap.push(Reverse(((done_ns as u128) << 64) | ((self.seq as u128) << SLOT_BITS) | slot as u128));
    }

    /// The commands in flight: (operation, bytes) each, in no particular order.
    pub fn in_flight(&self) -> impl Iterator<Item = (Op, u64)> + '_ {
        self.heap.iter().map(|Reverse(key)| {
            let entry = &self.entries[(key & ((1 << SLOT_BITS) - 1)) as usize];
            (entry.op, entry.bytes)
        })
    }

    /// The next command to complete, if any.
    #[inline]
    pub fn pop(&mut self) -> Option<Completion> {
        let Reverse(key) = self.heap.pop()?;
        let done_ns = (key >> 64) as Nanoseconds;
        let slot = (key & ((1 << SLOT_BITS) - 1)) as usize;
        self.account_until(done_ns);
        let entry = self.entries[slot];
        self.outstanding[entry.op.index()] -= 1;
        self.free_slots.push(slot);
        Some(Completion { done_ns, arrival_ns: entry.arrival_ns, op: entry.op, bytes: entry.bytes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_come_in_time_order_then_submission_order() {
        let mut q = InFlightQueue::new(4, 0);
        q.push(0, 0, 50, Op::Write, 1);
        q.push(0, 0, 10, Op::Read, 2);
        q.push(5, 5, 50, Op::Read, 3);
        q.push(6, 6, 10, Op::Write, 4);
        let order: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|c| c.bytes).collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
    }

    #[test]
    fn busy_time_at_queue_depth_one_counts_every_command() {
        // Regression: the closed-loop run's busy clock used to restart at each submission, so
        // at QD1 only the last command counted.
        let mut q = InFlightQueue::new(1, 0);
        let mut t = 0;
        for _ in 0..10 {
            q.push(t, t, t + 100, Op::Write, 4096);
            let c = q.pop().unwrap();
            t = c.done_ns + 50; // idle gap of 50 ns
        }
        assert_eq!(q.busy().any_ns, 1000);
        assert_eq!(q.busy().writes_ns, 1000);
        assert_eq!(q.busy().reads_ns, 0);
    }
}
