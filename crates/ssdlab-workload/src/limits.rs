//! fio's limits that end a job in error: `max_latency` (a command slower than it ends the job
//! with ETIMEDOUT) and `rate_min` / `rate_iops_min` (a `rate_cycle` in which the job moved less
//! ends it with EIO). Read here as fio reads them: one value per direction (read, write, trim),
//! a bare latency in microseconds, a bare rate in bytes per second (`kb_base` applies).

use ssdlab_core::time::Nanoseconds;

/// fio's default `rate_cycle`: the window of the minimum-rate check, 1,000 ms.
pub const DEFAULT_RATE_CYCLE_MS: u64 = 1000;

/// fio's error-ending limits of one job, per direction (read, write, trim; 0: no limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobLimits {
    /// fio's `max_latency`: a command (of that direction) whose latency, from its issue to its
    /// completion, is above this ends the job with ETIMEDOUT.
    pub max_latency_ns: [Nanoseconds; 3],
    /// fio's `rate_min`: bytes per second the job must move in each `rate_cycle`.
    pub min_bytes_per_s: [u64; 3],
    /// fio's `rate_iops_min`: commands per second the job must complete in each `rate_cycle`.
    pub min_iops: [u64; 3],
    /// fio's `rate_cycle`: the minimum rate is averaged over windows of at least this many
    /// milliseconds (fio measures the window in whole milliseconds).
    pub rate_cycle_ms: u64,
}

impl JobLimits {
    /// Whether a minimum rate is asked for in any direction.
    pub fn checks_rate(&self) -> bool {
        self.min_bytes_per_s.iter().chain(&self.min_iops).any(|&v| v > 0)
    }
}

/// The options as given, before `finish` resolves them (each `None` when not given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GivenLimits {
    pub max_latency_ns: Option<[Nanoseconds; 3]>,
    pub rate_min: Option<([u64; 3], String)>,
    pub rate_iops_min: Option<([u64; 3], String)>,
    pub rate_cycle_ms: Option<u64>,
}

impl GivenLimits {
    /// The job's limits (`None` when nothing is limited), or why the combination is refused.
    /// `rate`: the job's own `rate` and `rate_iops` per direction, as given.
    pub fn resolve(&self, rate: [Option<[u64; 3]>; 2]) -> Result<Option<JobLimits>, String> {
        let limits = JobLimits {
            max_latency_ns: self.max_latency_ns.unwrap_or([0; 3]),
            min_bytes_per_s: self.rate_min.as_ref().map_or([0; 3], |(v, _)| *v),
            min_iops: self.rate_iops_min.as_ref().map_or([0; 3], |(v, _)| *v),
            rate_cycle_ms: self.rate_cycle_ms.unwrap_or(DEFAULT_RATE_CYCLE_MS),
        };
        for d in 0..3 {
            if limits.min_bytes_per_s[d] > 0 && limits.min_iops[d] > 0 {
                return Err("give rate_min or rate_iops_min for a direction, not both (fio refuses both too)".to_string());
            }
        }
        // fio refuses a minimum above the job's own rate limit of the same kind.
        for (min_key, min, rate_key, given) in [("rate_min", limits.min_bytes_per_s, "rate", rate[0]), ("rate_iops_min", limits.min_iops, "rate_iops", rate[1])]
        {
            let Some(values) = given else { continue };
            if let Some(d) = (0..3).find(|&d| values[d] > 0 && min[d] > values[d]) {
                return Err(format!("{min_key} ({}) exceeds {rate_key} ({}) for {}", min[d], values[d], ["reads", "writes", "trims"][d]));
            }
        }
        let limited = limits.max_latency_ns.iter().any(|&v| v > 0) || limits.checks_rate();
        Ok(limited.then_some(limits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_given_is_no_limit_and_zeros_are_fios_defaults() {
        assert_eq!(GivenLimits::default().resolve([None, None]), Ok(None));
        let zeros = GivenLimits { max_latency_ns: Some([0; 3]), rate_min: Some(([0; 3], "0".into())), ..Default::default() };
        assert_eq!(zeros.resolve([None, None]), Ok(None));
    }

    #[test]
    fn both_minimums_for_one_direction_or_one_above_the_rate_are_refused() {
        let both = GivenLimits { rate_min: Some(([0, 1000, 1000], ",1000".into())), rate_iops_min: Some(([0, 10, 10], ",10".into())), ..Default::default() };
        assert!(both.resolve([None, None]).unwrap_err().contains("not both"));
        let above = GivenLimits { rate_iops_min: Some(([500; 3], "500".into())), ..Default::default() };
        assert!(above.resolve([None, Some([100; 3])]).unwrap_err().contains("exceeds rate_iops"));
        let limits = above.resolve([None, Some([1000; 3])]).unwrap().unwrap();
        assert!(limits.checks_rate() && limits.rate_cycle_ms == DEFAULT_RATE_CYCLE_MS);
    }
}
