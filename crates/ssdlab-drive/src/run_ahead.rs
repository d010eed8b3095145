//! Prefetching along the sectors of one command that reads, overwrites or trims many of them.
//!
//! The look-ahead (`lookahead.rs`) prefetches what a command touches before it is submitted,
//! for its first sectors only. A command of many sectors (a 128 KiB write is 32, a TRIM of
//! 1 GiB is 262,144) then drops the old data of its sectors one by one, and once the drive has
//! taken random writes the old chunk (data-reduction FTL) or slot (page FTL) of each is a
//! random line of a table of hundreds of megabytes: without a prefetch, every sector waits for
//! memory (a sequential write over a randomly written drive ran at 40% of its rate on a
//! clean one). So while a command's sectors are served, [`RunAhead`] prefetches, a group of
//! [`GROUP_SECTORS`] at a time, the old entries two groups ahead and the index slots and
//! block counts (which need those entries) one group ahead; a read, where the data of the
//! sectors two groups ahead is. A prefetch is a hint: no result depends on it.

use ssdlab_ftl::Translation;
use ssdlab_nand::SECTOR_BYTES;
use ssdlab_workload::{Io, Op};
use std::ops::Range;

/// Sectors per group of the pipeline.
pub(crate) const GROUP_SECTORS: u64 = 8;

/// Prefetches along sectors `first..end` of one command, served in order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunAhead {
    first: u64,
    end: u64,
}

impl RunAhead {
    /// The pipeline along sectors `first..end`.
    #[inline]
    pub(crate) fn new(first: u64, end: u64) -> Self {
        Self { first, end }
    }

    /// The sectors a command reads or overwrites (every sector it touches) or drops (a TRIM:
    /// whole sectors only); `None` for a command of no such sector.
    #[inline]
    pub(crate) fn of_command(io: &Io) -> Option<Self> {
        let (first, end) = match io.op {
            Op::Read | Op::Write => (io.offset_bytes / SECTOR_BYTES, (io.offset_bytes + io.len_bytes).div_ceil(SECTOR_BYTES)),
            Op::Trim => (io.offset_bytes.div_ceil(SECTOR_BYTES), (io.offset_bytes + io.len_bytes) / SECTOR_BYTES),
        };
        (end > first).then_some(Self { first, end })
    }

    /// Where the data of a read's first two groups is (the look-ahead's stage 2 for a read).
    #[inline]
    pub(crate) fn prefetch_start_locations(&self, translation: &dyn Translation) {
        translation.prefetch_location_run(self.first, self.end.min(self.first + 2 * GROUP_SECTORS));
    }

    /// Call before reading sector `lba` (sectors in order from `first`): at the start of each
    /// group, prefetch where the data of the sectors two groups ahead is.
    #[inline]
    pub(crate) fn before_read(&self, translation: &dyn Translation, lba: u64) {
        if !(lba - self.first).is_multiple_of(GROUP_SECTORS) {
            return;
        }
        let [ahead, _] = self.ranges_at_group(lba);
        if !ahead.is_empty() {
            translation.prefetch_location_run(ahead.start, ahead.end);
        }
    }

    /// What the look-ahead prefetches before the command is submitted: the old entries of its
    /// first two groups (its stage 2).
    #[inline]
    pub(crate) fn prefetch_start_old(&self, translation: &dyn Translation) {
        translation.prefetch_old_run(self.first, self.end.min(self.first + 2 * GROUP_SECTORS));
    }

    /// The index slots and counts of its first group (the look-ahead's stage 3).
    #[inline]
    pub(crate) fn prefetch_start_slots(&self, translation: &dyn Translation) {
        translation.prefetch_old_index_slot_run(self.first, self.end.min(self.first + GROUP_SECTORS));
    }

    /// Call before serving sector `lba` (sectors in order from `first`): at the start of each
    /// group, prefetch the old entries two groups ahead and the slots one group ahead.
    #[inline]
    pub(crate) fn before(&self, translation: &dyn Translation, lba: u64) {
        if !(lba - self.first).is_multiple_of(GROUP_SECTORS) {
            return;
        }
        let [old, slots] = self.ranges_at_group(lba);
        if !old.is_empty() {
            translation.prefetch_old_run(old.start, old.end);
        }
        if !slots.is_empty() {
            translation.prefetch_old_index_slot_run(slots.start, slots.end);
        }
    }

    /// At the group starting at `lba`: the sectors whose old entries, and whose slots, are
    /// prefetched (either may be empty near the end).
    #[inline]
    fn ranges_at_group(&self, lba: u64) -> [Range<u64>; 2] {
        let old = (lba + 2 * GROUP_SECTORS).min(self.end);
        let slots = (lba + GROUP_SECTORS).min(self.end);
        [old..self.end.min(old + GROUP_SECTORS), slots..self.end.min(slots + GROUP_SECTORS)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sector of a run gets its old entry prefetched once and its slot once (the start's
    /// groups by the look-ahead's stages, the rest along the run), the slot after the entry
    /// and, past the start, at least a group before the sector is served.
    #[test]
    fn every_sector_is_prefetched_once_and_in_time() {
        for (first, end) in [(0, 1), (5, 6), (0, 8), (3, 19), (100, 132), (7, 7 + 262_144), (0, 23)] {
            let run = RunAhead::new(first, end);
            let sectors = (end - first) as usize;
            let (mut old_at, mut slot_at) = (vec![None; sectors], vec![None; sectors]);
            let mark = |marks: &mut Vec<Option<u64>>, range: Range<u64>, at: u64| {
                for lba in range {
                    let slot = &mut marks[(lba - first) as usize];
                    assert!(slot.is_none(), "run {first}..{end}: sector {lba} prefetched twice");
                    *slot = Some(at);
                }
            };
            // The look-ahead's stages, before the command (time `first` stands for "before").
            mark(&mut old_at, first..end.min(first + 2 * GROUP_SECTORS), first);
            mark(&mut slot_at, first..end.min(first + GROUP_SECTORS), first);
            for lba in (first..end).step_by(GROUP_SECTORS as usize) {
                let [old, slots] = run.ranges_at_group(lba);
                mark(&mut old_at, old, lba);
                mark(&mut slot_at, slots, lba);
            }
            for lba in first..end {
                let i = (lba - first) as usize;
                let (old, slot) = (old_at[i].expect("old entry never prefetched"), slot_at[i].expect("slot never prefetched"));
                assert!(old <= slot, "run {first}..{end}: sector {lba}'s slot before its entry");
                if lba >= first + GROUP_SECTORS {
                    assert!(slot + GROUP_SECTORS <= lba, "run {first}..{end}: sector {lba}'s slot prefetched at {slot}");
                    assert!(old + GROUP_SECTORS <= slot || old == first, "run {first}..{end}: sector {lba}'s entry at {old}, slot at {slot}");
                }
            }
        }
    }

    #[test]
    fn commands_cover_their_whole_sectors() {
        let write = |offset_bytes, len_bytes| Io { op: Op::Write, offset_bytes, len_bytes };
        let run = RunAhead::of_command(&write(4096, 128 << 10)).unwrap();
        assert_eq!((run.first, run.end), (1, 33));
        let run = RunAhead::of_command(&write(512, 4096)).unwrap();
        assert_eq!((run.first, run.end), (0, 2), "a write touches both partial sectors");
        let trim = Io { op: Op::Trim, offset_bytes: 512, len_bytes: 8192 };
        let run = RunAhead::of_command(&trim).unwrap();
        assert_eq!((run.first, run.end), (1, 2), "a TRIM drops whole sectors only");
        assert!(RunAhead::of_command(&Io { op: Op::Trim, offset_bytes: 512, len_bytes: 4096 }).is_none());
        let read = RunAhead::of_command(&Io { op: Op::Read, offset_bytes: 512, len_bytes: 4096 }).unwrap();
        assert_eq!((read.first, read.end), (0, 2), "a read reads both partial sectors");
        assert!(RunAhead::of_command(&Io { op: Op::Read, offset_bytes: 4096, len_bytes: 0 }).is_none());
    }
}
