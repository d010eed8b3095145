//! fio's rate limit for a job that is not paced slot by slot: a mixed job (each direction to
//! its own rate) or a job of several block sizes (paced by bytes). fio's job loop takes one
//! command at a time: it picks the command's direction (`get_rw_ddir`, then `rate_ddir`),
//! sleeps until that direction's rate lets it go, issues it, and counts its bytes
//! (`usec_for_io`). The gate does the same in simulated time: one command waits for its time,
//! the job's other free slots wait behind it.

use ssdlab_core::{Nanoseconds, SimRng};
use ssdlab_workload::{Io, Op, RateLimit};
use std::collections::VecDeque;

/// The rate state of one job paced one command at a time.
#[derive(Debug, Default)]
pub(super) struct RateGate {
    /// Bytes issued in each direction (reads, writes, trims) since the job's start (fio's
    /// `rate_io_issue_bytes`).
    bytes: [u64; 3],
    /// With `rate_process=poisson`: each direction's sum of the gaps drawn so far (fio's
    /// `last_usec`).
    poisson_ns: [Nanoseconds; 3],
    /// A command waits for its time (held in the run's pending issues).
    pub held: bool,
    /// Free slots of the job waiting behind it.
    pub waiting: u32,
    /// Commands decided, in the order they were issued, not yet submitted to the drive.
    pub ready: VecDeque<Io>,
}

/// The other direction of a mixed job.
fn other(op: Op) -> Op {
    match op {
        Op::Read => Op::Write,
        _ => Op::Read,
    }
}

impl RateGate {
    /// When direction `op` may issue its next command (`start_ns`: the job's start); a
    /// direction without a limit may always go.
    fn due_ns(&self, rate: &RateLimit, start_ns: Nanoseconds, op: Op) -> Nanoseconds {
        let d = op.index();
        let Some(r) = rate.directions[d].as_ref() else { return 0 };
        let offset = if rate.poisson { self.poisson_ns[d] as u128 } else { r.offset_for_bytes_ns(self.bytes[d]) };
        start_ns.saturating_add(offset.min(u64::MAX as u128) as u64)
    }

    /// fio's `rate_ddir`: the direction of the next command and when it goes, from `candidate`
    /// (the direction the job's mix drew) at `now_ns`. The candidate goes when its rate is not
    /// ahead; otherwise a mixed job switches to the other direction when that one's is not
    /// ahead (and its `rwmixread` share is above 0); when both are ahead, the one due first goes
    /// at its time.
    pub fn choose(&self, rate: &RateLimit, start_ns: Nanoseconds, candidate: Op, now_ns: Nanoseconds, mixed: bool) -> (Op, Nanoseconds) {
        let due = self.due_ns(rate, start_ns, candidate);
        if due <= now_ns {
            return (candidate, now_ns);
        }
        let odir = other(candidate);
        if mixed && rate.issued[odir.index()] {
            let other_due = self.due_ns(rate, start_ns, odir);
            if other_due <= now_ns {
                return (odir, now_ns);
            }
            if other_due < due {
                return (odir, other_due);
            }
        }
        (candidate, due)
    }

    /// Count command `io` against its direction's rate (its bytes; with `rate_process=poisson`,
    /// one more exponential gap of the direction's mean, drawn from `rng`).
    pub fn account(&mut self, rate: &RateLimit, io: &Io, rng: Option<&mut SimRng>) {
        let d = io.op.index();
        self.bytes[d] = self.bytes[d].saturating_add(io.len_bytes);
        if let (Some(r), Some(rng)) = (rate.directions[d].as_ref(), rng) {
            let gap = -(1.0 - rng.unit_f64()).ln() * r.mean_gap_ns();
            self.poisson_ns[d] = self.poisson_ns[d].saturating_add(gap.round().min(u64::MAX as f64) as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_workload::parse_options;

    fn rate_of(options: &[&str]) -> RateLimit {
        let items: Vec<String> = options.iter().map(|s| s.to_string()).collect();
        parse_options("t", &items).unwrap().rate.unwrap()
    }

    #[test]
    fn each_direction_goes_at_its_own_rate_and_a_mixed_job_switches_as_fio() {
        // 500 reads and 200 writes per second of 4 KiB.
        let rate = rate_of(&["rw=randrw", "bs=4k", "rate_iops=500,200"]);
        assert_eq!(rate.uniform, None);
        let mut gate = RateGate::default();
        let io = |op| Io { op, offset_bytes: 0, len_bytes: 4096 };
        // Both due at the start: the candidate goes.
        assert_eq!(gate.choose(&rate, 0, Op::Write, 0, true), (Op::Write, 0));
        gate.account(&rate, &io(Op::Write), None);
        // Writes are now ahead (next at 5 ms); reads are not: a drawn write becomes a read.
        assert_eq!(gate.choose(&rate, 0, Op::Write, 0, true), (Op::Read, 0));
        gate.account(&rate, &io(Op::Read), None);
        // Both ahead: the one due first (the read at 2 ms) goes then.
        assert_eq!(gate.choose(&rate, 0, Op::Write, 1_000_000, true), (Op::Read, 2_000_000));
        // Without the mix (a job of one direction) the candidate waits for its own time.
        assert_eq!(gate.choose(&rate, 0, Op::Write, 1_000_000, false), (Op::Write, 5_000_000));
    }

    #[test]
    fn a_direction_without_a_rate_always_goes_and_bytes_pace_several_sizes() {
        // Only reads limited (fio's trailing comma): a read that is ahead becomes a write.
        let rate = rate_of(&["rw=randrw", "bs=4k", "rate_iops=100,"]);
        let mut gate = RateGate::default();
        gate.account(&rate, &Io { op: Op::Read, offset_bytes: 0, len_bytes: 4096 }, None);
        assert_eq!(gate.choose(&rate, 0, Op::Read, 0, true), (Op::Write, 0));
        // rwmixread=100: never a write.
        let rate = rate_of(&["rw=randrw", "bs=4k", "rate_iops=100,", "rwmixread=100"]);
        let mut gate = RateGate::default();
        gate.account(&rate, &Io { op: Op::Read, offset_bytes: 0, len_bytes: 4096 }, None);
        assert_eq!(gate.choose(&rate, 0, Op::Read, 0, true), (Op::Read, 10_000_000));
        // bsrange at rate_iops=100: 100 x 4 KiB per second, so a 64 KiB read holds the next
        // one 160 ms (fio 3.33 paces by bytes at the smallest size).
        let rate = rate_of(&["rw=randread", "bsrange=4k-64k", "rate_iops=100"]);
        let mut gate = RateGate::default();
        gate.account(&rate, &Io { op: Op::Read, offset_bytes: 0, len_bytes: 65536 }, None);
        assert_eq!(gate.choose(&rate, 7, Op::Read, 0, false), (Op::Read, 160_000_007));
    }
}
