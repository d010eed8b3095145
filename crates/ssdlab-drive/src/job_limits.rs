//! fio's limits that end a job in error, checked at each of the job's completions after its
//! `ramp_time`, as fio checks them (read in fio's `io_u.c` `account_io_completion`/`lat_fatal`
//! and `backend.c` `__check_min_rate`):
//!
//! * `max_latency`: a command whose latency (arrival to completion) is above the limit of its
//!   direction ends the job with ETIMEDOUT;
//! * `rate_min` / `rate_iops_min`: after a 2 s settle period from the job's start (or its
//!   ramp's end), the first check takes a baseline; each later check at least `rate_cycle`
//!   milliseconds after the previous one computes the direction's rate over that window (whole
//!   milliseconds, integer division, as fio) and ends the job with EIO when it is below the
//!   minimum. Every direction that has moved data is checked at each completion.
//!
//! Commands in flight when a job ends complete and count, as fio reaps them.

use serde::Serialize;
use ssdlab_core::time::Nanoseconds;
use ssdlab_workload::{JobLimits, Op};

/// fio's settle period before the first minimum-rate check.
const SETTLE_NS: Nanoseconds = 2_000_000_000;

/// fio's error number for a command over `max_latency` (ETIMEDOUT).
pub const ETIMEDOUT: i32 = 110;

/// fio's error number for a job below its minimum rate (EIO).
pub const EIO: i32 = 5;

/// A job that ended in error: which, when, and fio's words for it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobError {
    /// The job's name.
    pub job: String,
    /// fio's error number (`"error"` in its JSON): 110 (ETIMEDOUT) for a latency limit, 5
    /// (EIO) for a minimum rate.
    pub errno: i32,
    /// What fio prints for it.
    pub message: String,
    /// Simulated seconds from the start of the measured run to the completion that broke it.
    pub at_seconds: f64,
}

/// One job's limits and what its checks have counted.
#[derive(Debug, Clone)]
pub(crate) struct LimitCheck {
    limits: JobLimits,
    /// The settle period counts from here.
    start_ns: Nanoseconds,
    /// Bytes and commands completed per direction (read, write, trim) since `start_ns`.
    bytes: [u64; 3],
    ios: [u64; 3],
    /// The previous rate check of each direction: (time, bytes, commands).
    last: [Option<(Nanoseconds, u64, u64)>; 3],
}

impl LimitCheck {
    pub(crate) fn new(limits: JobLimits, start_ns: Nanoseconds) -> Self {
        LimitCheck { limits, start_ns, bytes: [0; 3], ios: [0; 3], last: [None; 3] }
    }

    /// The ramp ended (or the measured run restarted) at `now_ns`: the settle period and the
    /// rate windows start again, as fio's `reset_all_stats` restarts them.
    pub(crate) fn restart(&mut self, now_ns: Nanoseconds) {
        *self = LimitCheck::new(self.limits, self.start_ns.max(now_ns));
    }

    /// A command of the job completed at `now_ns` after `latency_ns`: `Some((errno, message))`
    /// when it ends the job in error.
    pub(crate) fn completed(&mut self, name: &str, op: Op, bytes: u64, latency_ns: Nanoseconds, now_ns: Nanoseconds) -> Option<(i32, String)> {
        let d = op.index();
        let max_ns = self.limits.max_latency_ns[d];
        if max_ns > 0 && latency_ns > max_ns {
            return Some((ETIMEDOUT, format!("fio: latency of {latency_ns} nsec exceeds specified max ({max_ns} nsec)")));
        }
        self.bytes[d] += bytes;
        self.ios[d] += 1;
        if !self.limits.checks_rate() || now_ns < self.start_ns.saturating_add(SETTLE_NS) {
            return None;
        }
        for d in 0..3 {
            if self.bytes[d] > 0 {
                if let Some(error) = self.check_rate(name, d, now_ns) {
                    return Some(error);
                }
            }
        }
        None
    }

    fn check_rate(&mut self, name: &str, d: usize, now_ns: Nanoseconds) -> Option<(i32, String)> {
        let (min_bytes, min_iops) = (self.limits.min_bytes_per_s[d], self.limits.min_iops[d]);
        if min_bytes == 0 && min_iops == 0 {
            return None;
        }
        if let Some((at_ns, bytes, ios)) = self.last[d] {
            let spent_ms = (now_ns - at_ns) / 1_000_000;
            if spent_ms < self.limits.rate_cycle_ms || spent_ms == 0 {
                return None;
            }
            if min_bytes > 0 {
                let rate = (self.bytes[d] - bytes) as u128 * 1000 / spent_ms as u128;
                if rate < min_bytes as u128 {
                    return Some((EIO, format!("{name}: rate_min={min_bytes}B/s not met, got {rate}B/s")));
                }
            } else {
                let rate = (self.ios[d] - ios) as u128 * 1000 / spent_ms as u128;
                if rate < min_iops as u128 {
                    return Some((EIO, format!("{name}: rate_iops_min={min_iops} not met, got {rate} IOPS")));
                }
            }
        }
        self.last[d] = Some((now_ns, self.bytes[d], self.ios[d]));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanoseconds = 1_000_000;

    fn limits() -> JobLimits {
        JobLimits { max_latency_ns: [0; 3], min_bytes_per_s: [0; 3], min_iops: [0; 3], rate_cycle_ms: 1000 }
    }

    #[test]
    fn a_command_over_its_directions_max_latency_ends_the_job() {
        let mut check = LimitCheck::new(JobLimits { max_latency_ns: [0, 500_000, 0], ..limits() }, 0);
        // Reads have no limit; a write at the limit passes, one above it fails.
        assert_eq!(check.completed("j", Op::Read, 4096, 10 * MS, MS), None);
        assert_eq!(check.completed("j", Op::Write, 4096, 500_000, MS), None);
        let (errno, message) = check.completed("j", Op::Write, 4096, 500_001, MS).unwrap();
        assert_eq!(errno, ETIMEDOUT);
        assert_eq!(message, "fio: latency of 500001 nsec exceeds specified max (500000 nsec)");
    }

    /// Completions of `ios_per_s` writes a second from `from_ms` to `to_ms`; the first error.
    fn feed(check: &mut LimitCheck, from_ms: u64, to_ms: u64, ios_per_s: u64) -> Option<(u64, (i32, String))> {
        let step_ns = 1_000_000_000 / ios_per_s;
        let mut now = from_ms * MS;
        while now < to_ms * MS {
            if let Some(e) = check.completed("j", Op::Write, 4096, 1000, now) {
                return Some((now / MS, e));
            }
            now += step_ns;
        }
        None
    }

    #[test]
    fn a_minimum_rate_is_judged_per_cycle_after_the_settle_period() {
        let mut check = LimitCheck::new(JobLimits { min_iops: [0, 900, 0], ..limits() }, 0);
        // 1,000 IOPS for 5 s: met. Nothing is judged in the first 2 s even at 100 IOPS.
        assert_eq!(feed(&mut check, 0, 5000, 1000), None);
        let mut slow_start = LimitCheck::new(JobLimits { min_iops: [0, 900, 0], ..limits() }, 0);
        assert_eq!(feed(&mut slow_start, 0, 1990, 100), None);
        // Then 800 IOPS: the first full cycle after the baseline fails.
        let (at_ms, (errno, message)) = feed(&mut check, 5000, 9000, 800).unwrap();
        assert_eq!(errno, EIO);
        assert!((5000..=6100).contains(&at_ms), "{at_ms}");
        assert!(message.starts_with("j: rate_iops_min=900 not met, got 8"), "{message}");
    }

    #[test]
    fn a_byte_rate_uses_the_bytes_and_restarting_takes_a_new_settle_period() {
        let mut check = LimitCheck::new(JobLimits { min_bytes_per_s: [0, 4096 * 1000, 0], ..limits() }, 0);
        let (_, (_, message)) = feed(&mut check, 0, 9000, 999).unwrap();
        assert!(message.starts_with("j: rate_min=4096000B/s not met, got 40"), "{message}");
        check.restart(20_000 * MS);
        assert_eq!(feed(&mut check, 20_000, 21_999, 10), None);
    }
}
