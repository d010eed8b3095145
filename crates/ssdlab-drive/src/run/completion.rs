//! The run's loop (`Run::advance`): the slots filled at the start, held issues in time order
//! with completions, each completion counted, the per-second series closed, and what a
//! completion leads to for a job that thinks (fio's `thinktime`) or searches for its depth
//! (`latency_target`).

use super::*;

impl Run {
    /// A command of stream `index` completed at `now_ns` (`host_ns` of host time after it): with
    /// fio's thinktime, once a think is due the job issues nothing until all its commands have
    /// completed, then thinks and fills its queue again. Returns whether the slot is held
    /// (nothing to schedule now).
    fn think_completed(&mut self, index: usize, now_ns: Nanoseconds, host_ns: Nanoseconds) -> bool {
        let stopped = self.streams[index].stopped || self.stopped_issuing;
        let stream = &mut self.streams[index];
        let completions = stream.completions;
        let Some(t) = stream.think.as_mut() else { return false };
        t.in_flight = t.in_flight.saturating_sub(1);
        if !t.quiescing && !stopped && t.due(completions, now_ns) {
            t.quiescing = true;
        }
        if !t.quiescing {
            return false;
        }
        if t.in_flight == 0 {
            let until_ns = t.think(completions, now_ns.saturating_add(host_ns));
            if self.ramped {
                self.host_time_ns += t.think_ns();
            }
            // As fio 3.33 counts it (`handle_thinktime` sleeps the whole think, then the loop
            // checks the runtime): a think once begun is part of the job's time, to its end,
            // even when the job has nothing left to issue or its runtime passes during it.
            // `--thinktime=900ms --runtime=2 --time_based` at QD1: 3 IOs in 2.7 s (fio: 2701
            // ms), not 1.8 s ending at the last completion.
            self.last_done_ns = self.last_done_ns.max(until_ns);
            if let Some(tally) = stream.tally.as_mut() {
                tally.extend_to(until_ns);
            }
            for _ in 0..stream.job.iodepth {
                self.hold(until_ns, index, Held::Schedule);
            }
        }
        true
    }

    /// A command of stream `index`, which searches for its depth (fio's `latency_target`),
    /// completed: feed the search, then keep as many commands going as its depth allows.
    fn search_completed(&mut self, drive: &mut Drive, index: usize, done: &crate::inflight::Completion, thinktime_ns: Nanoseconds) -> Result<()> {
        let ramped = self.ramped;
        let stream = &mut self.streams[index];
        stream.active = stream.active.saturating_sub(1);
        let completions = stream.completions;
        let Some(search) = stream.search.as_mut() else { return Ok(()) };
        let step = search.completed(done.done_ns - done.arrival_ns, done.done_ns, completions, ramped);
        if step.gave_up {
            // fio's lat_fatal with the target as the limit.
            let message = format!("fio: latency of {} nsec exceeds specified max ({} nsec)", done.done_ns - done.arrival_ns, search.target().target_ns);
            self.job_failed(index, ETIMEDOUT, message, done.done_ns);
            return Ok(());
        }
        if step.done {
            stream.stopped = true;
            if stream.job.exitall {
                self.stop_issuing(done.done_ns);
            }
            return Ok(());
        }
        let depth = search.depth();
        if search.quiescing() {
            if stream.active > 0 {
                return Ok(());
            }
            // Every command of the job has finished: the next window starts; the final run's
            // figures restart here when the job runs alone (fio resets the job's figures and
            // its runtime).
            if search.quiesced(done.done_ns, completions) && self.streams.len() == 1 {
                self.ramp_end_ns = done.done_ns;
                self.end_ramp(drive, None);
                self.streams[index].measure_from_ns = done.done_ns;
                self.streams[index].ramped = false;
                // fio's `reset_io_stats` at the final run: its bandwidth and IOPS samples too.
                self.streams[index].rates.restart();
                self.streams[index].depth.restart();
                self.end_job_ramps(done.done_ns);
            }
        }
        let at_ns = done.done_ns.saturating_add(thinktime_ns);
        while self.streams[index].active < depth && !self.streams[index].stopped && !self.stopped_issuing {
            self.streams[index].active += 1;
            self.schedule(drive, index, at_ns)?;
        }
        Ok(())
    }

    fn snapshot(&self, drive: &Drive) -> Snapshot {
        snapshot_of(drive, self.flash_base.bytes_programmed_host + self.flash_base.bytes_programmed_internal, self.drive_base.host_write_bytes)
    }

    /// Process up to `max_completions` completions. Returns whether the run is done.
    pub fn advance(&mut self, drive: &mut Drive, max_completions: u64) -> Result<bool> {
        if !self.started {
            self.started = true;
            if self.verifying {
                drive.start_verify();
            }
            // Slots are filled job by job, in file order, at the start.
            for index in 0..self.streams.len() {
                let delay_ns = self.streams[index].delay_ns;
                let slots = match &self.streams[index].search {
                    Some(search) => search.depth(),
                    None => self.streams[index].job.iodepth,
                };
                self.streams[index].active = slots;
                for _ in 0..slots {
                    if delay_ns == 0 {
                        self.schedule(drive, index, self.start_ns + self.delay_ns)?;
                    } else {
                        // fio's startdelay: the job's slots fill once it starts.
                        self.hold(self.start_ns + self.delay_ns + delay_ns, index, Held::Schedule);
                    }
                }
            }
        }
        let mut processed = 0;
        while processed < max_completions {
            // Issues a rate limit held back, in time order with the completions (first on a tie).
            if let Some(&Reverse((at_ns, _, index, what))) = self.pending.peek() {
                if self.inflight.next_done_ns().is_none_or(|done_ns| at_ns <= done_ns) {
                    self.pending.pop();
                    match what {
                        Held::Schedule => self.schedule(drive, index, at_ns)?,
                        Held::Issue => self.issue(drive, index, at_ns)?,
                        Held::GateRelease => self.gate_release(drive, index, at_ns)?,
                        Held::FlowRetry => self.flow_retry(drive, index, at_ns)?,
                    }
                    if self.flows.is_some() {
                        self.flow_wake(drive, at_ns)?;
                    }
                    if self.verifying {
                        self.start_verify_phases(drive, at_ns)?;
                    }
                    if self.flush_stats.is_some() {
                        self.end_flushes(drive, at_ns);
                    }
                    continue;
                }
            }
            let Some(done) = self.inflight.pop() else {
                if self.flow_unstick(drive)? {
                    continue;
                }
                break;
            };
            let owner = match self.owners.pop() {
                Some(Reverse((owner_done_ns, _, owner))) => {
                    debug_assert_eq!(owner_done_ns, done.done_ns, "owner heap out of step with the in-flight queue");
                    owner
                }
                None => 0,
            };
            self.now_ns = done.done_ns;
            if !self.ramped && done.done_ns >= self.ramp_end_ns {
                self.end_ramp(drive, Some((done.op, done.bytes)));
                // fio's latency_target windows count from the ramp's end.
                for stream in &mut self.streams {
                    if let Some(search) = stream.search.as_mut() {
                        search.ramp_ended(self.ramp_end_ns, stream.completions);
                    }
                }
            }
            if done.done_ns >= self.next_job_ramp_ns {
                self.end_job_ramps(done.done_ns);
            }
            let counted = self.ramped && self.streams[owner].ramped;
            if counted {
                if self.metrics.closes_second(done.done_ns) {
                    let snapshot = self.snapshot(drive);
                    self.metrics.close_seconds_before(done.done_ns, snapshot);
                    self.check_steady_state(done.done_ns);
                }
                self.metrics.record(done.op, done.bytes, done.done_ns - done.arrival_ns);
                if let Some(windows) = self.log_windows.as_mut() {
                    windows.record(done.done_ns, done.op, done.bytes, done.done_ns - done.arrival_ns);
                }
                let stream = &mut self.streams[owner];
                if let Some(tally) = stream.tally.as_mut() {
                    tally.record(done.op, done.bytes, done.done_ns - done.arrival_ns, done.done_ns);
                }
                stream.rates.record(stream.measured_start_ns(self.ramp_end_ns), done.done_ns, done.arrival_ns, done.op, done.bytes);
                self.completed += 1;
            } else if self.ramped {
                self.uncounted(done.op, done.bytes);
            }
            self.last_done_ns = self.last_done_ns.max(done.done_ns);
            self.streams[owner].depth.completed();
            if self.flush_stats.is_some() {
                if let Some(f) = self.streams[owner].flushes.as_mut() {
                    f.in_flight = f.in_flight.saturating_sub(1);
                }
            }
            if self.flows.is_some() {
                self.flow_completed(owner, done.done_ns);
            }
            self.drain_host_queue(drive, done.done_ns)?;
            // The host's own time per command (ssdlab's host_time) before the slot's next
            // command; for a job that keeps fio's thinktime per slot (see `Stream::think`), its
            // thinktime too, after every `thinktime_blocks` completions.
            let stream = &mut self.streams[owner];
            stream.completions += 1;
            let mut thinktime_ns = stream.job.host_time_ns;
            if stream.think.is_none() && stream.job.thinktime_ns > 0 && stream.completions.is_multiple_of(stream.job.thinktime_blocks) {
                thinktime_ns += stream.job.thinktime_ns;
            }
            if counted {
                self.host_time_ns += thinktime_ns;
                if let Some(check) = stream.limits.as_mut() {
                    if let Some((errno, message)) = check.completed(&stream.job.name, done.op, done.bytes, done.done_ns - done.arrival_ns, done.done_ns) {
                        self.job_failed(owner, errno, message, done.done_ns);
                    }
                }
            }
            if self.thinking && self.think_completed(owner, done.done_ns, thinktime_ns) {
                // The job waits for its other commands, or thinks (fio's thinktime).
            } else if self.streams[owner].search.is_some() {
                self.search_completed(drive, owner, &done, thinktime_ns)?;
            } else {
                if self.verifying {
                    if let Some(v) = self.streams[owner].verify.as_mut() {
                        v.outstanding = v.outstanding.saturating_sub(1);
                    }
                }
                self.schedule(drive, owner, done.done_ns.saturating_add(thinktime_ns))?;
                if self.verifying {
                    self.start_verify_phases(drive, done.done_ns.saturating_add(thinktime_ns))?;
                }
            }
            if self.flush_stats.is_some() {
                self.end_flushes(drive, done.done_ns);
            }
            if self.flows.is_some() {
                self.flow_wake(drive, done.done_ns)?;
            }
            processed += 1;
        }
        if self.is_done() {
            let snapshot = self.snapshot(drive);
            // A time-based run's series ends at its runtime; the drain after it is in the summary.
            // (Jobs that start later, by their startdelay, run that much longer.)
            let latest_ns = self.latest_measure_from_ns();
            let series_end = self.job.runtime_ns.map_or(self.last_done_ns, |runtime| self.last_done_ns.min(latest_ns.saturating_add(runtime)));
            self.metrics.finish(snapshot, series_end);
            if let Some(windows) = self.log_windows.as_mut() {
                windows.finish(series_end);
            }
            // Each job's last sampling windows count if the job's own time runs past them: to
            // its end, or to where its runtime stopped it (its last commands' drain after the
            // stop is counted, but fio takes no sample of it).
            for stream in &mut self.streams {
                let end_ns = stream.tally.as_ref().map_or(series_end, |t| t.end_ns());
                let stop_ns = stream.job.runtime_ns.map_or(Nanoseconds::MAX, |runtime| stream.measured_start_ns(self.ramp_end_ns).saturating_add(runtime));
                stream.rates.finish(end_ns.min(stop_ns));
            }
        }
        Ok(self.is_done())
    }
}
