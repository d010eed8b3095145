//! fio's queue-depth distribution of a job (`iodepth_level` of its JSON, `IO depths :` of its
//! text): for every command the job sends to the drive, how many of the job's commands were
//! outstanding when the job issued it (in the drive or waiting in the host's queue for a slot,
//! this one included), counted in fio's seven levels (1, 2-3, 4-7, 8-15, 16-31, 32-63, 64 and
//! more; fio's `io_u_mark_depth`, which marks a command as the job hands it to the engine). A
//! command that waits in the host's queue keeps the depth it was issued at. Only commands issued
//! from the job's measured start count (fio resets the map with its other figures at the end of
//! `ramp_time`); a flush is not counted. Departure: fio marks each `fsync=N` flush at its depth
//! too, but divides by reads, writes and trims alone, so its shares can pass 100 (`fsync=1`
//! writes: `"1": 193.75`); ssdlab counts reads, writes and trims.

use serde::Serialize;

/// fio's depth levels: how many there are (`FIO_IO_U_MAP_NR`).
pub const DEPTH_LEVELS: usize = 7;

/// The level (index into the seven) of `depth` outstanding commands: 1, 2-3, 4-7, 8-15, 16-31,
/// 32-63, 64+. A command counts itself, so `depth` is at least 1 (fio's switch would put 0 with
/// 64+).
pub fn depth_level(depth: u32) -> usize {
    debug_assert!(depth > 0, "a command counts itself");
    match depth {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// One job's outstanding commands and its depth counts.
#[derive(Debug, Clone, Default)]
pub(crate) struct DepthLevels {
    /// The job's commands in the drive.
    in_drive: u32,
    /// The job's commands in the host's queue, waiting for a drive slot.
    queued: u32,
    /// Commands sent at each level.
    levels: [u64; DEPTH_LEVELS],
}

impl DepthLevels {
    /// A command of the job waits in the host's queue; returns the job's commands outstanding
    /// with it (its depth at issue).
    #[inline]
    pub(crate) fn queued(&mut self) -> u32 {
        self.queued += 1;
        self.in_drive + self.queued
    }

    /// A command of the job left the host's queue (sent to the drive, or dropped at a stop).
    #[inline]
    pub(crate) fn dequeued(&mut self) {
        self.queued = self.queued.saturating_sub(1);
    }

    /// The host's queue was emptied (the run stopped issuing).
    pub(crate) fn queue_cleared(&mut self) {
        self.queued = 0;
    }

    /// A command of the job went to the drive; it counts when `counted` (issued in the job's
    /// measured part), at `issued_at_depth` if it waited in the host's queue, else at the job's
    /// commands outstanding now.
    #[inline]
    pub(crate) fn sent(&mut self, counted: bool, issued_at_depth: Option<u32>) {
        self.in_drive += 1;
        if counted {
            self.levels[depth_level(issued_at_depth.unwrap_or(self.in_drive + self.queued))] += 1;
        }
    }

    /// A command of the job in the drive completed.
    #[inline]
    pub(crate) fn completed(&mut self) {
        self.in_drive = self.in_drive.saturating_sub(1);
    }

    /// The counts start again (fio's `reset_io_stats` at a `latency_target` job's final run);
    /// the commands outstanding stay.
    pub(crate) fn restart(&mut self) {
        self.levels = [0; DEPTH_LEVELS];
    }

    /// Commands sent at each level.
    pub(crate) fn report(&self) -> DepthReport {
        DepthReport { levels: self.levels }
    }
}

/// Commands sent at each of fio's depth levels (1, 2-3, 4-7, 8-15, 16-31, 32-63, 64+): fio's
/// `io_u_map`, from which its `iodepth_level` shares are figured. A group's is the sum of its
/// jobs' (fio's `sum_thread_stats`).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct DepthReport {
    /// Commands sent at each level, in the order above.
    pub levels: [u64; DEPTH_LEVELS],
}

impl DepthReport {
    /// Add another job's counts.
    pub fn add_up(&mut self, other: &DepthReport) {
        for (sum, n) in self.levels.iter_mut().zip(other.levels) {
            *sum += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_fios_powers_of_two() {
        let expect = [(1, 0), (2, 1), (3, 1), (4, 2), (7, 2), (8, 3), (15, 3), (16, 4), (31, 4), (32, 5), (63, 5), (64, 6), (1000, 6)];
        for (depth, level) in expect {
            assert_eq!(depth_level(depth), level, "depth {depth}");
        }
    }

    #[test]
    fn a_command_counts_at_the_jobs_outstanding_commands_queued_ones_included() {
        let mut d = DepthLevels::default();
        // Four commands on a drive of depth 2: 1 and 2 go to the drive, 3 and 4 wait in the
        // host's queue; a completion lets the first queued one go, counted at the 3 it was
        // issued at; with no depth given, at the 2 in the drive + 1 queued.
        d.sent(true, None);
        d.sent(true, None);
        assert_eq!(d.queued(), 3);
        assert_eq!(d.queued(), 4);
        d.completed();
        d.dequeued();
        d.sent(true, Some(3));
        assert_eq!(d.report().levels, [1, 2, 0, 0, 0, 0, 0]);
        d.sent(true, Some(4));
        assert_eq!(d.report().levels, [1, 2, 1, 0, 0, 0, 0]);
        // Not counted before the measured start; a restart forgets the counts, not the commands.
        d.sent(false, None);
        d.restart();
        d.sent(true, None);
        assert_eq!(d.report().levels, [0, 0, 1, 0, 0, 0, 0], "4 in the drive + 1 queued");
        d.queue_cleared();
        let mut sum = DepthReport::default();
        sum.add_up(&d.report());
        sum.add_up(&DepthReport { levels: [1, 0, 0, 0, 0, 0, 7] });
        assert_eq!(sum.levels, [1, 0, 1, 0, 0, 0, 7]);
    }
}
