//! fio's `thinktime` as fio runs it (read in fio's `backend.c` `handle_thinktime`): after
//! every `thinktime_blocks` completions of the job, or once it has done `thinktime_iotime` of IO
//! since its last think, the job stops issuing, waits for every command it has in flight
//! (fio's `io_u_quiesce`), then sleeps `thinktime`, then fills its queue again. At QD1 that is
//! the time between one completion and the next issue; deeper, the whole job pauses, so a job
//! with `thinktime_blocks=1000 thinktime=1s` really leaves the drive idle for a second after
//! each thousand commands.
//!
//! ssdlab's own `host_time` (the review lab's test beds) is the other kind: the host's time per
//! command, before that slot's next command, the other slots going on (in `run/completion.rs`).

use ssdlab_core::Nanoseconds;
use ssdlab_workload::JobSpec;

/// One job's thinking: when it is due, and the commands it has out.
#[derive(Debug, Clone)]
pub(crate) struct Think {
    think_ns: Nanoseconds,
    blocks: u64,
    blocks_given: bool,
    iotime_ns: Nanoseconds,
    /// Completions at the end of the last think (fio's `last_thinktime_blocks`).
    last_blocks: u64,
    /// When the last think ended (fio's `last_thinktime`), or the job started.
    last_think_ns: Nanoseconds,
    /// The job waits for its commands in flight before it thinks.
    pub quiescing: bool,
    /// The job's commands issued and not completed (in the drive or the host's queue).
    pub in_flight: u32,
}

impl Think {
    /// The job's thinking, if it has a `thinktime`; `start_ns`: when the job starts.
    pub(crate) fn new(job: &JobSpec, start_ns: Nanoseconds) -> Option<Self> {
        (job.thinktime_ns > 0).then(|| Think {
            think_ns: job.thinktime_ns,
            blocks: job.thinktime_blocks.max(1),
            blocks_given: job.thinktime_blocks_given,
            iotime_ns: job.thinktime_iotime_ns,
            last_blocks: 0,
            last_think_ns: start_ns,
            quiescing: false,
            in_flight: 0,
        })
    }

    /// A command of the job completed at `now_ns`, its `completions`-th: whether the job
    /// should now stop issuing and think (fio's `stall`).
    pub(crate) fn due(&self, completions: u64, now_ns: Nanoseconds) -> bool {
        if self.iotime_ns > 0 {
            if now_ns.saturating_sub(self.last_think_ns) >= self.iotime_ns {
                return true;
            }
            // With thinktime_iotime alone, fio skips the blocks check (its default of 1 would
            // think after every command).
            if !self.blocks_given {
                return false;
            }
        }
        completions >= self.last_blocks + self.blocks
    }

    /// The job, quiet since `now_ns`, thinks: returns when it issues again.
    pub(crate) fn think(&mut self, completions: u64, now_ns: Nanoseconds) -> Nanoseconds {
        let until_ns = now_ns.saturating_add(self.think_ns);
        self.quiescing = false;
        self.last_blocks = completions;
        self.last_think_ns = until_ns;
        until_ns
    }

    /// How long each think lasts.
    pub(crate) fn think_ns(&self) -> Nanoseconds {
        self.think_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_workload::parse_options;

    fn think(items: &[&str]) -> Think {
        let job = parse_options("t", &items.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        Think::new(&job, 0).unwrap()
    }

    #[test]
    fn a_think_is_due_every_thinktime_blocks_completions() {
        let mut t = think(&["thinktime=1ms", "thinktime_blocks=3"]);
        assert!(!t.due(2, 10) && t.due(3, 10));
        assert_eq!(t.think(3, 10), 1_000_010);
        assert!(!t.due(5, 2_000_000) && t.due(6, 2_000_000));
        assert!(Think::new(&parse_options("t", &[]).unwrap(), 0).is_none());
    }

    #[test]
    fn thinktime_iotime_alone_counts_only_the_time_since_the_last_think() {
        let mut t = think(&["thinktime=1ms", "thinktime_iotime=1s"]);
        assert!(!t.due(1_000_000, 999_999_999) && t.due(1, 1_000_000_000));
        let until = t.think(7, 1_000_000_000);
        assert!(!t.due(8, until + 999_999_999) && t.due(8, until + 1_000_000_000));
        // With thinktime_blocks as well, whichever comes first.
        let t = think(&["thinktime=1ms", "thinktime_iotime=1s", "thinktime_blocks=10"]);
        assert!(t.due(10, 5) && t.due(1, 1_000_000_000) && !t.due(9, 5));
    }
}
