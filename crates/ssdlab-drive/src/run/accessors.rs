//! What a run tells its caller as it goes: its seed and job, whether it is done, its end and
//! ramp, its progress and its per-second series.

use super::*;

impl Run {
    /// Seed of the run's workload.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The job being run.
    pub fn job(&self) -> &JobSpec {
        &self.job
    }

    /// Whether every command has completed.
    pub fn is_done(&self) -> bool {
        self.started && self.inflight.is_empty() && self.host_queue.is_empty() && self.pending.is_empty()
    }

    /// Simulated time of the last completion (the run's end once done).
    pub fn end_ns(&self) -> Nanoseconds {
        self.last_done_ns
    }

    /// The run's `ramp_time` (its longest in a group), the time it has run, and whether the
    /// ramp is still going: a job that ends inside it has nothing measured.
    pub fn ramp(&self) -> (Nanoseconds, Nanoseconds, bool) {
        (self.ramp_end_ns - self.start_ns - self.delay_ns, self.last_done_ns.saturating_sub(self.start_ns + self.delay_ns), !self.ramped)
    }

    /// The latest of the group's jobs' measured starts (each job's start after its `startdelay`,
    /// plus its `ramp_time`), where the last job's runtime starts.
    pub(super) fn latest_measure_from_ns(&self) -> Nanoseconds {
        self.streams.iter().map(|s| s.measure_from_ns).max().unwrap_or(self.ramp_end_ns)
    }

    /// How far the run has got.
    pub fn progress(&self) -> RunProgress {
        let simulated_ns = self.now_ns - self.start_ns;
        let mut fraction: f64 = 0.0;
        if let Some(runtime) = self.job.runtime_ns {
            let before_ns = self.latest_measure_from_ns() - self.start_ns;
            fraction = fraction.max(simulated_ns as f64 / (runtime as f64 + before_ns as f64));
        }
        let generator = &self.streams[0].generator;
        if let Some(limit) = generator.limit_bytes() {
            let share = (generator.issued_bytes() as f64 / limit.max(1) as f64).min(1.0);
            // A job with a verify phase has as much to read back after its writes.
            fraction = fraction.max(self.streams[0].verify.as_ref().and_then(|v| v.share_done(share)).unwrap_or(share));
        }
        if let Some(n) = self.job.number_ios {
            fraction = fraction.max(generator.issued_ios() as f64 / n as f64);
        }
        RunProgress { simulated_ns, completed_ios: self.completed, fraction: fraction.min(1.0), done: self.is_done() }
    }

    /// The per-second series so far.
    pub fn series(&self) -> &[SeriesRow] {
        &self.metrics.series
    }

    /// fio's log windows so far, and whether they stopped at their bound
    /// ([`crate::MAX_LOG_WINDOWS`]); `None` when the job's `log_avg_msec` is whole seconds (or
    /// it writes no log): its logs come from [`Run::series`].
    pub fn log_windows(&self) -> Option<(&[crate::LogWindow], bool)> {
        self.log_windows.as_ref().map(|w| (w.rows(), w.truncated()))
    }
}
