//! fio's `latency_target`: a job searches for the largest queue depth (up to its `iodepth`) at
//! which `latency_percentile`% of the commands of each `latency_window` complete within the
//! target, then runs one more window at that depth, measured alone, and ends.
//!
//! The rules are fio's (`io_u.c`: `lat_target_init`, `lat_target_success`,
//! `__lat_target_failed`, `lat_target_check`): the depth starts at 1 and doubles after each window
//! that met the target until one fails; from then on it bisects between the last depth that met
//! the target and the first that did not. A depth equal to the previous one starts the final
//! run (the commands in flight finish first, and the figures restart); when the final run's
//! window also meets the target the job is done. With `latency_percentile=100` a single late
//! command lowers the depth at once; one late at depth 1 ends the job (fio's "latency of N nsec
//! exceeds specified max", an error of the job). Lowering the depth waits for the commands in
//! flight to finish before the next window starts (fio's `io_u_quiesce`); their completions
//! still count, as in fio.

use ssdlab_core::Nanoseconds;
use ssdlab_workload::LatencyTarget;

/// What a completion changed in the search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SearchStep {
    /// The job issues nothing more until its commands in flight have finished.
    pub quiesce: bool,
    /// The depth was found: the figures restart once the commands in flight have finished.
    pub final_run: bool,
    /// The final run met the target: the job ends.
    pub done: bool,
    /// A command was late at depth 1 with `latency_percentile=100`: the job ends in error.
    pub gave_up: bool,
}

/// The search state of one job.
#[derive(Debug, Clone)]
pub(crate) struct DepthSearch {
    target: LatencyTarget,
    max_depth: u32,
    depth: u32,
    low: u32,
    high: u32,
    final_run: bool,
    quiescing: bool,
    /// The final run starts once the quiesce ends.
    final_run_pending: bool,
    window_start_ns: Nanoseconds,
    window_base: u64,
    late_in_window: u64,
    done: bool,
    /// Latency of the command that was late at depth 1 (the job's error), if any.
    gave_up_ns: Option<Nanoseconds>,
}

impl DepthSearch {
    /// A job with `target` and `iodepth` = `max_depth`, starting at `now_ns`.
    pub(crate) fn new(target: LatencyTarget, max_depth: u32, now_ns: Nanoseconds) -> Self {
        Self {
            target,
            max_depth: max_depth.max(1),
            depth: 1,
            low: 1,
            high: max_depth.max(1),
            final_run: false,
            quiescing: false,
            final_run_pending: false,
            window_start_ns: now_ns,
            window_base: 0,
            late_in_window: 0,
            done: false,
            gave_up_ns: None,
        }
    }

    /// Commands the job may keep in flight now.
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// Whether the job waits for its commands in flight before issuing more.
    pub(crate) fn quiescing(&self) -> bool {
        self.quiescing
    }

    /// Whether the search ended with a final run that met the target.
    pub(crate) fn done(&self) -> bool {
        self.done
    }

    /// Latency of the late command at depth 1 that ended the job, if one did.
    pub(crate) fn gave_up_ns(&self) -> Option<Nanoseconds> {
        self.gave_up_ns
    }

    /// The target searched for.
    pub(crate) fn target(&self) -> LatencyTarget {
        self.target
    }

    /// The ramp (fio's `ramp_time`) ended at `now_ns`: the first window starts there.
    pub(crate) fn ramp_ended(&mut self, now_ns: Nanoseconds, completions: u64) {
        self.new_cycle(now_ns, completions);
    }

    /// A new window from `now_ns`, counting from the job's `completions`.
    fn new_cycle(&mut self, now_ns: Nanoseconds, completions: u64) {
        self.window_start_ns = now_ns;
        self.window_base = completions;
        self.late_in_window = 0;
    }

    /// A window failed (or a command was late with `latency_percentile=100`): lower the depth.
    /// Returns whether the job gives up (already at depth 1).
    fn ramp_down(&mut self, step: &mut SearchStep) -> bool {
        if self.depth == 1 {
            return true;
        }
        self.high = self.depth;
        if self.depth == self.low {
            self.low -= 1;
        }
        self.depth = (self.depth + self.low) / 2;
        self.quiescing = true;
        step.quiesce = true;
        false
    }

    /// A window met the target: raise the depth, or start (or end) the final run.
    fn ramp_up(&mut self, now_ns: Nanoseconds, completions: u64, step: &mut SearchStep) {
        let before = self.depth;
        self.low = self.depth;
        self.depth = if self.high != self.max_depth { (self.depth + self.high) / 2 } else { self.depth.saturating_mul(2) };
        self.depth = self.depth.min(self.max_depth);
        if self.depth == before {
            if self.final_run {
                self.done = true;
                step.done = true;
            } else {
                self.final_run = true;
                self.final_run_pending = true;
                self.quiescing = true;
                step.quiesce = true;
                step.final_run = true;
                return;
            }
        }
        self.new_cycle(now_ns, completions);
    }

    /// A command of the job completed at `now_ns` after `latency_ns` (from its arrival);
    /// `completions` counts the job's completions so far, this one included; `measuring`: the
    /// ramp is over (fio neither counts late commands nor decides during `ramp_time`).
    pub(crate) fn completed(&mut self, latency_ns: Nanoseconds, now_ns: Nanoseconds, completions: u64, measuring: bool) -> SearchStep {
        let mut step = SearchStep::default();
        if !measuring || self.done || self.gave_up_ns.is_some() {
            return step;
        }
        if latency_ns > self.target.target_ns {
            if self.target.percentile >= 100.0 {
                if self.ramp_down(&mut step) {
                    self.gave_up_ns = Some(latency_ns);
                    step.gave_up = true;
                    return step;
                }
            } else {
                self.late_in_window += 1;
            }
        }
        // fio decides between batches of completions, never inside its quiesce.
        if self.quiescing || now_ns - self.window_start_ns < self.target.window_ns {
            return step;
        }
        let ios = completions - self.window_base;
        if ios == 0 {
            return step;
        }
        let met = (ios - self.late_in_window.min(ios)) as f64 * 100.0 / ios as f64;
        if met >= self.target.percentile {
            self.ramp_up(now_ns, completions, &mut step);
        } else if self.ramp_down(&mut step) {
            // fio ignores a failed window at depth 1 (only a late command with the 100th
            // percentile ends the job): the window goes on, counting from its start.
        }
        step
    }

    /// The job's commands in flight have all finished at `now_ns` after a quiesce: the next
    /// window starts. Returns whether that window is the final run (the figures restart).
    pub(crate) fn quiesced(&mut self, now_ns: Nanoseconds, completions: u64) -> bool {
        self.quiescing = false;
        self.new_cycle(now_ns, completions);
        std::mem::take(&mut self.final_run_pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(percentile: f64, window_ns: Nanoseconds, max: u32) -> DepthSearch {
        DepthSearch::new(LatencyTarget { target_ns: 1000, window_ns, percentile }, max, 0)
    }

    /// Completions with latency `lat` until a window is decided (the depth changes, or a step
    /// says more); returns that step. `n` counts the job's completions.
    fn window(s: &mut DepthSearch, lat: Nanoseconds, now: &mut Nanoseconds, n: &mut u64) -> SearchStep {
        let before = (s.depth(), s.window_start_ns);
        for _ in 0..1000 {
            *now += 100;
            *n += 1;
            let step = s.completed(lat, *now, *n, true);
            if step != SearchStep::default() || (s.depth(), s.window_start_ns) != before {
                if step.quiesce {
                    s.quiesced(*now, *n);
                }
                return step;
            }
        }
        panic!("no window was decided in 1000 completions");
    }

    #[test]
    fn the_depth_doubles_while_windows_meet_the_target_then_runs_once_more_and_ends() {
        let mut s = search(100.0, 1000, 16);
        let (mut now, mut n) = (0, 0);
        let mut depths = vec![s.depth()];
        loop {
            let step = window(&mut s, 10, &mut now, &mut n);
            depths.push(s.depth());
            if step.done {
                break;
            }
        }
        // 1, 2, 4, 8, 16, then 16 again: the final run, then done.
        assert_eq!(depths, vec![1, 2, 4, 8, 16, 16, 16]);
        assert!(s.done() && s.gave_up_ns().is_none());
    }

    #[test]
    fn a_late_command_at_the_100th_percentile_halves_toward_the_last_good_depth() {
        let mut s = search(100.0, 1000, 64);
        let (mut now, mut n) = (0, 0);
        for _ in 0..3 {
            window(&mut s, 10, &mut now, &mut n); // 2, 4, 8
        }
        assert_eq!(s.depth(), 8);
        let step = window(&mut s, 5000, &mut now, &mut n);
        assert!(step.quiesce && !step.final_run);
        // Bisect between 4 (last met) and 8 (failed).
        assert_eq!((s.depth(), s.low, s.high), (6, 4, 8));
        window(&mut s, 10, &mut now, &mut n);
        assert_eq!(s.depth(), 7);
        window(&mut s, 10, &mut now, &mut n);
        assert_eq!(s.depth(), 7, "7 met and 8 failed: the final run at 7");
        assert!(s.final_run);
        let step = window(&mut s, 10, &mut now, &mut n);
        assert!(step.done);
    }

    #[test]
    fn a_late_command_at_depth_1_ends_the_job_in_error() {
        let mut s = search(100.0, 1000, 8);
        let step = s.completed(5000, 100, 1, true);
        assert!(step.gave_up && s.gave_up_ns() == Some(5000));
        // Nothing changes after.
        assert_eq!(s.completed(10, 200, 2, true), SearchStep::default());
    }

    #[test]
    fn below_the_100th_percentile_a_window_is_judged_by_its_share_of_late_commands() {
        let mut s = search(90.0, 1000, 8);
        // 10 commands in the window, 1 late: 90% met, enough.
        for i in 1..=10u64 {
            let step = s.completed(if i == 3 { 5000 } else { 10 }, i * 100, i, true);
            assert!(!step.quiesce);
        }
        assert_eq!(s.depth(), 2);
        // Next window: 2 of 10 late: 80%, fails, back to 1 after a quiesce.
        let mut last = SearchStep::default();
        for i in 11..=20u64 {
            last = s.completed(if i % 5 == 0 { 5000 } else { 10 }, i * 100, i, true);
        }
        assert!(last.quiesce && s.depth() == 1);
        // A failed window at depth 1 does not end the job below the 100th percentile.
        s.quiesced(2000, 20);
        for i in 21..=40u64 {
            let step = s.completed(5000, i * 100, i, true);
            assert!(!step.gave_up);
        }
        assert_eq!(s.depth(), 1);
    }

    #[test]
    fn nothing_is_decided_during_the_ramp() {
        let mut s = search(100.0, 0, 8);
        for i in 1..100 {
            assert_eq!(s.completed(5000, i * 100, i, false), SearchStep::default());
        }
        assert_eq!(s.depth(), 1);
    }
}
