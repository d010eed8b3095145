//! The measured window and how a run's jobs end: the group stops issuing, the ramp's end
//! takes the baselines again, flushes (counted in the window; fio's `end_fsync`), a job's error,
//! and fio's steady-state rule.

use super::*;

/// fio sleeps a wait in slices of at most a second (`usec_sleep`), looking for a stop between
/// them.
const WAIT_SLICE_NS: Nanoseconds = ssdlab_core::time::NS_PER_S;

impl Run {
    /// The group issues no more commands from `at_ns` (steady state reached, or a job with
    /// fio's `exitall` has issued its last); those in flight complete. Each job still running
    /// runs to `at_ns` at least, and on to the end of the wait it was in (its rate limit's next
    /// slot, a flush it waits for, its flow's sleep), as fio's job sleeps that out before it
    /// sees the stop: in slices of at most a second (fio's `usec_sleep`), so at most a second
    /// past the stop. Its figures and the group's time run that long.
    pub(super) fn stop_issuing(&mut self, at_ns: Nanoseconds) {
        if !self.stopped_issuing {
            for index in 0..self.streams.len() {
                if self.streams[index].stopped {
                    continue;
                }
                let wait_end = self
                    .pending
                    .iter()
                    .filter(|Reverse((t, _, i, what))| *i == index && *what != Held::Schedule && *t > at_ns)
                    .map(|Reverse((t, ..))| *t)
                    .min();
                let end_ns = wait_end.map_or(at_ns, |t| t.min(at_ns.saturating_add(WAIT_SLICE_NS)));
                if let Some(tally) = self.streams[index].tally.as_mut() {
                    tally.extend_to(end_ns);
                }
                self.last_done_ns = self.last_done_ns.max(end_ns);
            }
        }
        self.stopped_issuing = true;
        self.host_queue.clear();
        for stream in &mut self.streams {
            stream.depth.queue_cleared();
        }
        self.pending.clear();
    }

    /// Figures count from the end of `ramp_time`: take the baselines again there. `first` is
    /// the command whose completion ends the ramp, if one does. As fio (its stats reset at the ramp's end,
    /// commands count when they complete), the commands in flight then count in the measured
    /// part: the drive counted them when they were submitted, so they come off its baseline
    /// (commands and bytes; the flash's own counters stay as they are).
    pub(super) fn end_ramp(&mut self, drive: &Drive, first: Option<(Op, u64)>) {
        self.ramped = true;
        self.metrics = Metrics::new(self.ramp_end_ns);
        self.log_windows = super::setup::log_windows_for(&self.job, self.ramp_end_ns);
        self.flash_base = drive.flash().counters().clone();
        self.drive_base = drive.counters().clone();
        for (op, bytes) in self.inflight.in_flight().chain(first) {
            let base = &mut self.drive_base;
            let (commands, counted_bytes) = match op {
                Op::Read => (&mut base.read_commands, &mut base.host_read_bytes),
                Op::Write => (&mut base.write_commands, &mut base.host_write_bytes),
                Op::Trim => (&mut base.trim_commands, &mut base.host_trim_bytes),
            };
            *commands = commands.saturating_sub(1);
            *counted_bytes = counted_bytes.saturating_sub(bytes);
        }
        self.busy_counters_base = crate::utilization::BusyCounters::at(drive, self.ramp_end_ns);
        self.energy_base_nj = crate::utilization::flash_energy_at_nj(drive, self.ramp_end_ns);
        self.state_energy_base_nj = drive.state_energy_nj(self.ramp_end_ns);
        self.reduction_base = drive.translation().reduction_stats().cloned();
        self.metadata_base = drive.translation().metadata_stats();
        self.busy_base_ns = self.inflight.busy().any_ns;
        self.completed = 0;
    }

    /// The jobs whose own ramp has ended by `now_ns` (their measured start, `measure_from_ns`)
    /// start counting: their limits' checks and their counts of issued commands restart there
    /// (fio's `reset_all_stats`, per job). Called at each completion from the group's ramp end.
    pub(super) fn end_job_ramps(&mut self, now_ns: Nanoseconds) {
        let mut next_ns = Nanoseconds::MAX;
        for stream in &mut self.streams {
            if stream.ramped {
                continue;
            }
            if stream.measure_from_ns > now_ns {
                next_ns = next_ns.min(stream.measure_from_ns);
                continue;
            }
            stream.ramped = true;
            if let Some(check) = stream.limits.as_mut() {
                check.restart(stream.measure_from_ns);
            }
            if let Some(f) = stream.flushes.as_mut() {
                f.restart_count();
            }
        }
        self.next_job_ramp_ns = next_ns;
    }

    /// A command of stream `index` (`op`, `bytes`) completed in the group's measured part but
    /// in the job's own ramp: it does not count, so it comes off the drive's counts too (they
    /// counted it when it was submitted).
    pub(super) fn uncounted(&mut self, op: Op, bytes: u64) {
        let base = &mut self.drive_base;
        let (commands, counted_bytes) = match op {
            Op::Read => (&mut base.read_commands, &mut base.host_read_bytes),
            Op::Write => (&mut base.write_commands, &mut base.host_write_bytes),
            Op::Trim => (&mut base.trim_commands, &mut base.host_trim_bytes),
        };
        *commands += 1;
        *counted_bytes += bytes;
    }

    /// A flush of stream `index`, called at `arrival_ns`, completed at `done_ns`: the job
    /// waits for it, and the measured part counts it when `counted` (fio's `fsync=N`; not the
    /// flush at the job's end, which fio runs outside its accounted state).
    pub(super) fn flushed(&mut self, index: usize, arrival_ns: Nanoseconds, done_ns: Nanoseconds, counted: bool) {
        if let Some(f) = self.streams[index].flushes.as_mut() {
            f.flushed(done_ns);
        }
        let measured = self.ramped && arrival_ns >= self.streams[index].measure_from_ns;
        if counted && measured {
            for stats in self.flush_tallies(index) {
                stats.record(done_ns - arrival_ns);
            }
        }
    }

    /// Where a flush of stream `index` is counted: the group's flush figures and, in a group of
    /// several jobs, the job's own.
    fn flush_tallies(&mut self, index: usize) -> impl Iterator<Item = &mut FlushStats> {
        let own = self.streams[index].tally.as_mut().and_then(|t| t.flushes.as_mut());
        self.flush_stats.as_mut().into_iter().chain(own)
    }

    /// fio's `end_fsync`: each job that issues no more, has nothing in flight or held by the
    /// host, wrote, ended without error and did not just flush, flushes once (no earlier than
    /// `at_ns` and the end of its previous flush); the run ends when that flush does. Every job
    /// is looked at: one job's event can end another (the host's queue, `exitall`).
    pub(super) fn end_flushes(&mut self, drive: &mut Drive, at_ns: Nanoseconds) {
        for index in 0..self.streams.len() {
            let stream = &self.streams[index];
            let stopped = stream.stopped || self.stopped_issuing;
            let Some(f) = stream.flushes.as_ref() else { continue };
            if !f.end_due(stopped) {
                continue;
            }
            if self.host_queue.iter().any(|&(_, i, _)| i == index) || self.pending.iter().any(|Reverse((_, _, i, _))| *i == index) {
                continue;
            }
            let failed = stream.failed;
            let writes = stream.job.rw.writes();
            let Some(f) = self.streams[index].flushes.as_mut() else { continue };
            f.ended();
            // fio's should_fsync: only a job that writes, not right after a sync, and not after
            // an error.
            if failed || !writes || f.last_was_sync() {
                continue;
            }
            let start_ns = at_ns.max(f.blocked_until_ns);
            let done_ns = drive.flush(start_ns);
            self.flushed(index, start_ns, done_ns, false);
            // The job's time ends with its flush, as fio's runtime does.
            if let Some(tally) = self.streams[index].tally.as_mut() {
                tally.extend_to(done_ns);
            }
            if self.ramped {
                for stats in self.flush_tallies(index) {
                    stats.record_end();
                }
            }
            self.last_done_ns = self.last_done_ns.max(done_ns);
        }
    }

    /// Stream `index` ended in error at `at_ns` (fio's `td_verror`): it issues no more, its
    /// error is kept for its own figures and the group's first for the summary, and with fio's `exitall` or
    /// `exitall_on_error` the group's other jobs issue no more either.
    pub(super) fn job_failed(&mut self, index: usize, errno: i32, message: String, at_ns: Nanoseconds) {
        let stream = &mut self.streams[index];
        stream.stopped = true;
        stream.failed = true;
        let stop_group = stream.job.exitall || stream.job.exitall_on_error;
        let at_seconds = at_ns.saturating_sub(self.ramp_end_ns) as f64 / 1e9;
        let error = JobError { job: stream.job.name.clone(), errno, message, at_seconds };
        if self.job_error.is_none() {
            self.job_error = Some(error.clone());
        }
        stream.error.get_or_insert(error);
        if stop_group {
            self.stop_issuing(at_ns);
        }
    }

    /// Feed the seconds closed so far to fio's steady-state rule; stop the jobs once it holds.
    pub(super) fn check_steady_state(&mut self, at_ns: Nanoseconds) {
        let Some(ss) = self.job.steady_state else { return };
        let ramp_seconds = ss.ramp_ns / ssdlab_core::time::NS_PER_S;
        let rows = &self.metrics.series;
        let first = (ramp_seconds as usize + self.steady_samples.len()).min(rows.len());
        for row in &rows[first..] {
            self.steady_samples.push(match ss.metric {
                SteadyMetric::Iops => row.iops,
                SteadyMetric::Bandwidth => row.read_mbps + row.write_mbps,
                SteadyMetric::Latency => row.mean_latency_us,
            });
        }
        if self.steady_at_ns.is_none() && ss.reached(&self.steady_samples) {
            self.steady_at_ns = Some(at_ns);
            self.steady_samples_at = Some(self.steady_samples.len());
            self.stop_issuing(at_ns);
        }
    }

    /// fio's steady-state entry: the window the rule judged (when it was met, else the last
    /// full one), what it measured, and the window's IOPS and bandwidth samples.
    pub(super) fn steady_report(&self) -> Option<SteadyReport> {
        let ss = self.job.steady_state?;
        let judged = &self.steady_samples[..self.steady_samples_at.unwrap_or(self.steady_samples.len())];
        let window = ss.last_window(judged)?;
        let ramp_seconds = (ss.ramp_ns / ssdlab_core::time::NS_PER_S) as usize;
        let rows = self.metrics.series.get(ramp_seconds..ramp_seconds + judged.len())?;
        let per_second = |f: &dyn Fn(&SeriesRow) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
        let iops = ss.last_window(&per_second(&|r| r.iops))?.samples;
        let bw_bytes_per_s = ss.last_window(&per_second(&|r| (r.read_mbps + r.write_mbps) * 1e6))?.samples;
        Some(SteadyReport {
            metric: match ss.metric {
                SteadyMetric::Iops => "iops",
                SteadyMetric::Bandwidth => "bw",
                SteadyMetric::Latency => "lat",
            },
            slope_rule: ss.slope,
            limit: ss.limit,
            percent: ss.percent,
            duration_seconds: seconds(ss.duration_ns),
            attained: self.steady_at_ns.is_some(),
            criterion: window.criterion,
            max_deviation: window.max_deviation,
            slope: window.slope,
            iops,
            bw_bytes_per_s,
        })
    }
}
