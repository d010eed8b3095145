//! fio's bandwidth and IOPS samples of a job (`bw_min`, `bw_max`, `bw_mean`, `bw_dev`,
//! `bw_samples` and the `iops_*` twins of its JSON; `bw (KiB/s): min=..., samples=...` of its
//! text): the job's completions summed per window of simulated time (fio's `bwavgtime` and
//! `iopsavgtime`, 500 ms by default) from its measured start, one sample per direction that
//! moved anything in the window, its rate as fio figures it (`delta * 1000 / ms / 1024` KiB/s;
//! `delta * 1000 / ms` commands per second, integers), folded into running statistics as fio's
//! `add_stat_sample` folds them (no rows are kept). A window the job's time does not cover to
//! its end gives no sample (fio's last, partial interval is not sampled), nor does a last
//! window the job's time ends exactly on (see `Sampler::finish`).

use serde::Serialize;
use ssdlab_core::time::NS_PER_MS;
use ssdlab_core::Nanoseconds;
use ssdlab_workload::Op;
use std::collections::VecDeque;

/// Running statistics of one kind of sample (fio's `io_stat`): count, extremes, mean and the
/// sum of squared deviations from it (Welford's update, as fio's).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct SampleStats {
    /// Samples taken.
    pub samples: u64,
    /// Smallest sample (0 without samples).
    pub min: u64,
    /// Largest sample.
    pub max: u64,
    /// Mean of the samples.
    pub mean: f64,
    /// Sum of the squared deviations from the mean (fio's `S`).
    pub sum_squares: f64,
}

impl SampleStats {
    /// Fold in one sample.
    pub fn add(&mut self, value: u64) {
        self.min = if self.samples == 0 { value } else { self.min.min(value) };
        self.max = self.max.max(value);
        self.samples += 1;
        let x = value as f64;
        let delta = x - self.mean;
        self.mean += delta / self.samples as f64;
        self.sum_squares += delta * (x - self.mean);
    }

    /// Add `other` as fio adds a group's jobs' rates (`group_reporting`: its `sum_stat` with
    /// `pure_sum`): extremes, counts, means and sums of squares summed, so the group's mean is
    /// the sum of its jobs' means.
    pub fn add_up(&mut self, other: &SampleStats) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *other;
            return;
        }
        self.min += other.min;
        self.max += other.max;
        self.samples += other.samples;
        self.mean += other.mean;
        self.sum_squares += other.sum_squares;
    }

    /// Standard deviation of the samples (fio's: `sqrt(S / (n - 1))`, 0 for fewer than two).
    pub fn stddev(&self) -> f64 {
        if self.samples > 1 {
            (self.sum_squares / (self.samples - 1) as f64).sqrt()
        } else {
            0.0
        }
    }
}

/// A job's bandwidth and IOPS samples by direction (reads, writes, trims: [`Op::index`]).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RateSampleReport {
    /// Window of the bandwidth samples, ms.
    pub bw_window_ms: u64,
    /// Window of the IOPS samples, ms.
    pub iops_window_ms: u64,
    /// Bandwidth samples, KiB/s (fio's `bw_*`).
    pub bw_kib_per_s: [SampleStats; 3],
    /// IOPS samples, commands per second (fio's `iops_*`).
    pub iops: [SampleStats; 3],
    /// The directions' bandwidth samples added up, as fio's `unified_rw_reporting=mixed` adds
    /// them (its `mixed` entry).
    pub bw_kib_per_s_mixed: SampleStats,
    /// The directions' IOPS samples added up (the `mixed` entry's).
    pub iops_mixed: SampleStats,
}

impl RateSampleReport {
    /// Add `other` (another job of the group) as fio's `group_reporting` adds its jobs' rates.
    pub fn add_up(&mut self, other: &RateSampleReport) {
        self.bw_window_ms = if self.bw_window_ms == 0 { other.bw_window_ms } else { self.bw_window_ms };
        self.iops_window_ms = if self.iops_window_ms == 0 { other.iops_window_ms } else { self.iops_window_ms };
        for (mine, theirs) in self.bw_kib_per_s.iter_mut().zip(&other.bw_kib_per_s) {
            mine.add_up(theirs);
        }
        for (mine, theirs) in self.iops.iter_mut().zip(&other.iops) {
            mine.add_up(theirs);
        }
        self.bw_kib_per_s_mixed.add_up(&other.bw_kib_per_s_mixed);
        self.iops_mixed.add_up(&other.iops_mixed);
    }
}

/// One kind of sample: the amounts of the current window by direction, the windows closed but
/// not yet known to be covered by the job's time, and the statistics of the windows taken.
#[derive(Debug, Clone)]
struct Sampler {
    width_ms: u64,
    width_ns: Nanoseconds,
    /// End of the current window; `None` before the first completion.
    window_end_ns: Option<Nanoseconds>,
    current: [u64; 3],
    /// Closed windows (end, amounts) the job's time may end before (closed by commands that
    /// complete after it stopped). [`Sampler::finish`] takes those the job's time runs past; a
    /// window is taken as soon as the job issues a command after its end (its time surely
    /// runs that far), so only the last drain's windows wait here, not the whole run's.
    closed: VecDeque<(Nanoseconds, [u64; 3])>,
    stats: [SampleStats; 3],
    /// Samples in KiB/s (bytes counted), else commands per second.
    kib: bool,
}

impl Sampler {
    fn new(width_ms: u64, kib: bool) -> Self {
        let width_ms = width_ms.max(1);
        Self {
            width_ms,
            width_ns: width_ms.saturating_mul(NS_PER_MS),
            window_end_ns: None,
            current: [0; 3],
            closed: VecDeque::new(),
            stats: Default::default(),
            kib,
        }
    }

    #[inline]
    fn record(&mut self, start_ns: Nanoseconds, at_ns: Nanoseconds, issued_ns: Nanoseconds, direction: usize, amount: u64) {
        match self.window_end_ns {
            Some(end) if at_ns < end => {}
            _ => self.move_to(start_ns, at_ns, issued_ns),
        }
        self.current[direction] += amount;
    }

    /// Close the current window (if any) and open the one `at_ns` falls in; windows between
    /// them had no completions and give no samples. The closed windows that ended before
    /// `issued_ns` (the job was still issuing after them) are taken.
    #[cold]
    fn move_to(&mut self, start_ns: Nanoseconds, at_ns: Nanoseconds, issued_ns: Nanoseconds) {
        if let Some(end) = self.window_end_ns {
            self.closed.push_back((end, std::mem::take(&mut self.current)));
        }
        self.take_closed_before(issued_ns);
        let windows = at_ns.saturating_sub(start_ns) / self.width_ns + 1;
        self.window_end_ns = Some(start_ns.saturating_add(windows.saturating_mul(self.width_ns)));
    }

    /// Take the closed windows that end before `ns` as samples.
    fn take_closed_before(&mut self, ns: Nanoseconds) {
        while let Some(&(end, amounts)) = self.closed.front() {
            if end >= ns {
                break;
            }
            self.closed.pop_front();
            for (amount, stats) in amounts.iter().zip(&mut self.stats) {
                if *amount > 0 {
                    let per_second = *amount as u128 * 1000 / self.width_ms as u128;
                    let rate = if self.kib { per_second / 1024 } else { per_second };
                    stats.add(rate.min(u64::MAX as u128) as u64);
                }
            }
        }
    }

    /// The job's time ended at `end_ns`: the windows it runs past the end of give samples.
    /// fio samples a window just after it ends, and a job whose time ends on the boundary (a
    /// `runtime` of whole windows) has stopped by then: fio 3.33 gives 3 samples of 500 ms for
    /// a 2 s job, 9 for a 5 s one. Commands that complete after the job's time (its last ones
    /// draining) count in its figures but give no window of their own.
    fn finish(&mut self, end_ns: Nanoseconds) {
        if let Some(end) = self.window_end_ns.take() {
            self.closed.push_back((end, std::mem::take(&mut self.current)));
        }
        self.take_closed_before(end_ns);
        self.closed.clear();
    }
}

/// A job's bandwidth and IOPS samples so far (see the module's text).
#[derive(Debug, Clone)]
pub(crate) struct RateSamples {
    bw: Sampler,
    iops: Sampler,
}

impl RateSamples {
    /// Samples of `bw_ms` (bandwidth) and `iops_ms` (IOPS) windows, each at least 1 ms.
    pub fn new(bw_ms: u64, iops_ms: u64) -> Self {
        Self { bw: Sampler::new(bw_ms, true), iops: Sampler::new(iops_ms, false) }
    }

    /// Count a command of the job issued at `issued_ns` and completed at `at_ns`; its windows
    /// count from `start_ns`, the job's measured start (the same at every call).
    #[inline]
    pub fn record(&mut self, start_ns: Nanoseconds, at_ns: Nanoseconds, issued_ns: Nanoseconds, op: Op, bytes: u64) {
        let direction = op.index();
        self.bw.record(start_ns, at_ns, issued_ns, direction, bytes);
        self.iops.record(start_ns, at_ns, issued_ns, direction, 1);
    }

    /// Start again from nothing, with the same windows (fio's `reset_io_stats`: a
    /// `latency_target` job's final run).
    pub fn restart(&mut self) {
        *self = Self::new(self.bw.width_ms, self.iops.width_ms);
    }

    /// The job's time ended at `end_ns` (its last window gives samples only if covered).
    pub fn finish(&mut self, end_ns: Nanoseconds) {
        self.bw.finish(end_ns);
        self.iops.finish(end_ns);
    }

    /// The statistics of the windows closed so far.
    pub fn report(&self) -> RateSampleReport {
        let added_up = |stats: &[SampleStats; 3]| {
            stats.iter().fold(SampleStats::default(), |mut sum, s| {
                sum.add_up(s);
                sum
            })
        };
        RateSampleReport {
            bw_window_ms: self.bw.width_ms,
            iops_window_ms: self.iops.width_ms,
            bw_kib_per_s: self.bw.stats,
            iops: self.iops.stats,
            bw_kib_per_s_mixed: added_up(&self.bw.stats),
            iops_mixed: added_up(&self.iops.stats),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanoseconds = NS_PER_MS;

    /// Samples of 500 ms windows from 0 with writes of 4 KiB issued and completed at the
    /// (issued, completed) ms given.
    fn writes_at(commands: &[(u64, u64)]) -> RateSamples {
        let mut r = RateSamples::new(500, 500);
        for &(issued, done) in commands {
            r.record(0, done * MS, issued * MS, Op::Write, 4096);
        }
        r
    }

    #[test]
    fn each_full_window_gives_a_sample_per_direction_that_moved() {
        let mut r = RateSamples::new(500, 500);
        let start = 10_000 * MS;
        // Window 1: 1,024 KiB written in 2 commands; window 2: nothing; window 3: a read.
        r.record(start, start + 100 * MS, start + 100 * MS, Op::Write, 512 * 1024);
        r.record(start, start + 499 * MS, start + 499 * MS, Op::Write, 512 * 1024);
        r.record(start, start + 1_200 * MS, start + 1_200 * MS, Op::Read, 4096);
        r.finish(start + 1_501 * MS);
        let report = r.report();
        let write = report.bw_kib_per_s[Op::Write.index()];
        assert_eq!((write.samples, write.min, write.max), (1, 2048, 2048), "1 MiB in 0.5 s");
        let read = report.bw_kib_per_s[Op::Read.index()];
        assert_eq!((read.samples, read.min), (1, 8));
        assert_eq!(report.iops[Op::Write.index()].max, 4);
        assert_eq!(report.iops[Op::Read.index()].max, 2);
        assert_eq!(report.iops[Op::Trim.index()].samples, 0);
    }

    #[test]
    fn a_window_the_job_does_not_reach_the_end_of_gives_no_sample() {
        let mut r = writes_at(&[(100, 100), (600, 600)]);
        r.finish(900 * MS);
        assert_eq!(r.report().iops[Op::Write.index()].samples, 1);
        let mut covered = writes_at(&[(100, 100), (600, 600)]);
        covered.finish(1_001 * MS);
        assert_eq!(covered.report().iops[Op::Write.index()].samples, 2);
        // A job whose time ends on the boundary has stopped before fio samples the window.
        let mut on_boundary = writes_at(&[(100, 100), (600, 600)]);
        on_boundary.finish(1_000 * MS);
        assert_eq!(on_boundary.report().iops[Op::Write.index()].samples, 1);
    }

    #[test]
    fn closed_windows_wait_only_while_the_job_issues_nothing_after_them() {
        // A command per 100 ms for 100 s: each closed window is taken by the next window's.
        let mut r = RateSamples::new(500, 500);
        for k in 0..1_000u64 {
            r.record(0, k * 100 * MS + 50 * MS, k * 100 * MS, Op::Write, 4096);
            assert!(r.bw.closed.len() <= 1 && r.iops.closed.len() <= 1, "{} windows wait at {k}", r.bw.closed.len());
        }
        // The window ending at 99.5 s waits: nothing was issued after it yet.
        assert_eq!(r.report().iops[Op::Write.index()].samples, 198);
        r.finish(100_000 * MS);
        assert_eq!(r.report().iops[Op::Write.index()].samples, 199, "the last window ends on the job's end");
    }

    #[test]
    fn commands_draining_after_the_job_ends_give_no_window_of_their_own() {
        // A 1 s job: the command issued at 990 ms completes at 1,050 ms, after the job's time.
        let mut r = writes_at(&[(100, 100), (600, 600), (990, 1_050)]);
        r.finish(1_000 * MS);
        assert_eq!(r.report().iops[Op::Write.index()].samples, 1);
        // The same command issued after the second window's end shows the job ran past it.
        let mut later = writes_at(&[(100, 100), (600, 600), (1_010, 1_050)]);
        later.finish(1_100 * MS);
        assert_eq!(later.report().iops[Op::Write.index()].samples, 2);
    }

    #[test]
    fn statistics_match_a_direct_computation() {
        let mut s = SampleStats::default();
        let values = [10u64, 20, 30, 45, 5];
        for v in values {
            s.add(v);
        }
        let mean = values.iter().sum::<u64>() as f64 / 5.0;
        let var = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / 4.0;
        assert_eq!((s.samples, s.min, s.max), (5, 5, 45));
        assert!((s.mean - mean).abs() < 1e-12 && (s.stddev() - var.sqrt()).abs() < 1e-9, "{s:?}");
    }

    #[test]
    fn a_group_adds_its_jobs_rates() {
        let mut a = SampleStats::default();
        let mut b = SampleStats::default();
        for v in [100, 110] {
            a.add(v);
        }
        for v in [50, 70] {
            b.add(v);
        }
        let mut group = SampleStats::default();
        group.add_up(&a);
        group.add_up(&b);
        group.add_up(&SampleStats::default());
        assert_eq!((group.samples, group.min, group.max), (4, 150, 180));
        assert!((group.mean - 165.0).abs() < 1e-12);
    }
}
