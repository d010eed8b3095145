//! Issuing commands: a stream's next command as its rate limit lets it go (slot by slot, or one
//! at a time through its rate gate), held issues, and the host's queue in front of the drive's.

use super::*;

impl Run {
    /// Stream `index` may issue its next command at `at_ns`: at once, or, when its rate limit
    /// (fio's `rate_iops`/`rate`) says later, held until then in time order with completions.
    pub(super) fn schedule(&mut self, drive: &mut Drive, index: usize, at_ns: Nanoseconds) -> Result<()> {
        let stream = &mut self.streams[index];
        let Some(rate) = &stream.job.rate else { return self.issue(drive, index, at_ns) };
        if stream.verify.as_ref().is_some_and(|v| v.phase == Phase::Reading) {
            // The verify phase's reads are not paced by the job's (write) rate.
            return self.issue(drive, index, at_ns);
        }
        if self.stopped_issuing || stream.stopped {
            return Ok(());
        }
        let Some(uniform) = rate.uniform_rate() else {
            // A job paced one command at a time: its free slots wait behind the one held.
            let gate = stream.gate.as_mut().expect("a job paced one command at a time has a gate");
            if gate.held {
                gate.waiting += 1;
                return Ok(());
            }
            return self.gate_decide(drive, index, at_ns);
        };
        // fio's linear process: the k-th command no earlier than k/rate after the start; its
        // Poisson process: after the sum of k exponential gaps of mean 1/rate.
        let offset_ns = match stream.poisson.as_mut() {
            Some(rng) => {
                let offset = stream.poisson_offset_ns;
                let mean_ns = uniform.mean_gap_ns();
                let gap = -(1.0 - rng.unit_f64()).ln() * mean_ns;
                stream.poisson_offset_ns = offset.saturating_add(gap.round().min(u64::MAX as f64) as u64);
                offset as u128
            }
            None => stream.rate_issued as u128 * uniform.ns_times_per / uniform.per as u128,
        };
        stream.rate_issued += 1;
        let earliest_ns = stream.rate_start_ns.saturating_add(offset_ns.min(u64::MAX as u128) as u64);
        if earliest_ns > at_ns {
            self.hold(earliest_ns, index, Held::Issue);
            return Ok(());
        }
        self.issue(drive, index, at_ns)
    }

    /// A job paced one command at a time (`rate_gate.rs`) takes its next command at `now_ns`:
    /// its direction as fio's `rate_ddir` picks it, issued at once when its rate allows, else
    /// held until then (the job's other free slots wait behind it).
    fn gate_decide(&mut self, drive: &mut Drive, index: usize, now_ns: Nanoseconds) -> Result<()> {
        if self.stopped_issuing || self.streams[index].stopped {
            return Ok(());
        }
        let Stream { job, generator, gate, poisson, rate_start_ns, .. } = &mut self.streams[index];
        let (Some(rate), Some(gate)) = (job.rate.as_ref(), gate.as_mut()) else { return self.issue(drive, index, now_ns) };
        let mixed = matches!(job.rw, ssdlab_workload::RwKind::RandRw | ssdlab_workload::RwKind::ReadWrite);
        let mut at_ns = now_ns;
        let Some(io) = generator.next_io_directed(|candidate| {
            let (op, when) = gate.choose(rate, *rate_start_ns, candidate, now_ns, mixed);
            at_ns = when;
            op
        }) else {
            // The job has issued its last command.
            let stream = &mut self.streams[index];
            stream.stopped = true;
            if stream.job.exitall {
                self.stop_issuing(now_ns);
            }
            return Ok(());
        };
        gate.account(rate, &io, poisson.as_mut());
        gate.ready.push_back(io);
        if at_ns > now_ns {
            gate.held = true;
            self.hold(at_ns, index, Held::GateRelease);
            return Ok(());
        }
        self.issue(drive, index, now_ns)
    }

    /// The command a rate gate held goes at `at_ns`; then the slots waiting behind it take
    /// their commands, as long as the rate lets them go at once.
    pub(super) fn gate_release(&mut self, drive: &mut Drive, index: usize, at_ns: Nanoseconds) -> Result<()> {
        if let Some(gate) = self.streams[index].gate.as_mut() {
            gate.held = false;
        }
        self.issue(drive, index, at_ns)?;
        while let Some(gate) = self.streams[index].gate.as_mut().filter(|g| !g.held && g.waiting > 0) {
            gate.waiting -= 1;
            self.gate_decide(drive, index, at_ns)?;
        }
        Ok(())
    }

    /// Hold stream `index`'s next issue until `at_ns` (ties in the order held), and say what
    /// happens then.
    pub(super) fn hold(&mut self, at_ns: Nanoseconds, index: usize, what: Held) {
        self.pending_seq += 1;
        self.pending.push(Reverse((at_ns, self.pending_seq, index, what)));
    }

    /// The host issues stream `index`'s next command at `at_ns`: to the drive when its queue has
    /// room, else into the host's queue.
    pub(super) fn issue(&mut self, drive: &mut Drive, index: usize, at_ns: Nanoseconds) -> Result<()> {
        let stream = &mut self.streams[index];
        if self.stopped_issuing || stream.stopped {
            return Ok(());
        }
        if let Some(runtime) = stream.job.runtime_ns {
            // A job's runtime counts from its own start (after its startdelay and its ramp), as
            // fio's.
            let from_ns = stream.measure_from_ns;
            if at_ns >= from_ns && at_ns - from_ns >= runtime {
                stream.stopped = true;
                // The job ran until it found its runtime passed (a rate limit's wait included).
                if let Some(tally) = stream.tally.as_mut() {
                    tally.extend_to(at_ns);
                }
                if stream.job.exitall {
                    self.stop_issuing(at_ns);
                }
                return Ok(());
            }
        }
        if let Some(flows) = self.flows.as_mut() {
            // fio's flow control: a job ahead of its share of its flow waits.
            if !flows.pass(index) {
                self.flow_blocked(index, at_ns);
                return Ok(());
            }
        }
        let stream = &mut self.streams[index];
        if self.flush_stats.is_some() {
            // fio's fsync blocks the job: its next command waits for the flush to return.
            if let Some(until_ns) = stream.flushes.as_ref().map(|f| f.blocked_until_ns).filter(|&t| t > at_ns) {
                self.hold(until_ns, index, Held::Issue);
                return Ok(());
            }
        }
        if self.thinking {
            if let Some(t) = stream.think.as_mut() {
                if t.quiescing {
                    // fio's job waits for its commands before it thinks: it issues nothing.
                    return Ok(());
                }
                t.in_flight += 1;
            }
        }
        if self.inflight.len() < self.device_depth && self.host_queue.is_empty() {
            self.submit(drive, index, at_ns, at_ns)?;
        } else {
            let depth = self.streams[index].depth.queued();
            self.host_queue.push_back((at_ns, index, depth));
            self.host_queued_max = self.host_queued_max.max(self.host_queue.len() as u64);
            if let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) {
                m.outstanding += 1;
            }
        }
        Ok(())
    }

    /// Submit stream `index`'s next command to the drive at `at_ns` (it arrived at
    /// `arrival_ns`). Returns whether the stream had one.
    fn submit(&mut self, drive: &mut Drive, index: usize, arrival_ns: Nanoseconds, at_ns: Nanoseconds) -> Result<bool> {
        if self.verifying {
            match self.streams[index].verify.as_ref().map(|v| v.phase) {
                Some(Phase::Reading) | Some(Phase::Done) => return self.submit_verify_read(drive, index, arrival_ns, at_ns),
                Some(Phase::Draining) => return Ok(false),
                _ => {
                    // fio's verify_backlog: a block written earlier is verified instead.
                    if let Some((offset, len)) = self.streams[index].verify.as_mut().and_then(|v| v.backlog_block()) {
                        return self.submit_check_read(drive, index, arrival_ns, at_ns, Io { op: Op::Read, offset_bytes: offset, len_bytes: len });
                    }
                }
            }
        }
        let needs_content = self.needs_content;
        let stream = &mut self.streams[index];
        let gated = stream.gate.is_some();
        if !gated {
            stream.lookahead.fill(drive, &mut stream.generator, &mut stream.content, needs_content);
        }
        // The job's next command is a flush (fio's fsync=N) when it has another command to
        // issue after it (fio checks the job's bytes before it takes its next command); the
        // command goes once the flush returns.
        if self.flush_stats.is_some() && stream.flushes.as_ref().is_some_and(|f| f.due()) {
            let has_next = match stream.gate.as_ref() {
                Some(gate) => !gate.ready.is_empty(),
                None => stream.lookahead.get(0).is_some(),
            };
            if has_next {
                let done_ns = drive.flush(at_ns);
                self.flushed(index, arrival_ns, done_ns, true);
                self.hold(done_ns, index, Held::Issue);
                return Ok(true);
            }
        }
        let next = match stream.gate.as_mut() {
            // A gated job's commands were generated as its rate let them go (content drawn now).
            Some(gate) => match gate.ready.pop_front() {
                Some(io) => Some((io, ContentFrom::Stream)),
                None => return Ok(false),
            },
            None => stream.lookahead.pop(),
        };
        let Some((io, from)) = next else {
            // A job with a verify phase reads back what it wrote once its writes complete.
            if let Some(v) = stream.verify.as_mut().filter(|v| v.has_phase()) {
                v.phase = Phase::Draining;
                return Ok(false);
            }
            stream.stopped = true;
            if let Some(t) = stream.think.as_mut() {
                // Issued, but the job had nothing left: nothing went out.
                t.in_flight = t.in_flight.saturating_sub(1);
            }
            if stream.job.exitall {
                self.stop_issuing(at_ns);
            }
            return Ok(false);
        };
        if let Some(soon) = stream.lookahead.get(STAGE2_AT) {
            drive.prefetch_stage2(soon);
        }
        if needs_content {
            if let Some(soon) = stream.lookahead.get(STAGE3_AT) {
                drive.prefetch_stage3(soon);
            }
        }
        let mut done_ns = if self.verifying {
            self.submit_verified(drive, index, &io, from, at_ns)?
        } else {
            match from {
                ContentFrom::Ahead if needs_content => drive.submit_with(&io, at_ns, stream.lookahead.contents())?,
                _ => drive.submit_with(&io, at_ns, &mut stream.content)?,
            }
        };
        if self.flush_stats.is_some() {
            if let Some(f) = self.streams[index].flushes.as_mut() {
                f.issued(io.op);
                if f.asked.sync_writes && io.op == Op::Write {
                    // fio's sync=1 (O_SYNC): the write returns once a flush after it has.
                    done_ns = drive.flush(done_ns);
                }
            }
        }
        self.note_in_flight(index, &io, at_ns, arrival_ns, done_ns);
        Ok(true)
    }

    /// Command `io` of stream `index`, submitted at `at_ns` (it arrived at `arrival_ns`), is in
    /// flight until `done_ns`: queued, counted in its rate flow, and (with several jobs) owned.
    #[inline]
    pub(super) fn note_in_flight(&mut self, index: usize, io: &Io, at_ns: Nanoseconds, arrival_ns: Nanoseconds, done_ns: Nanoseconds) {
        self.inflight.push(at_ns, arrival_ns, done_ns, io.op, io.len_bytes);
        // fio marks a command's depth as the job issues it (at its arrival).
        let stream = &mut self.streams[index];
        let counted = arrival_ns >= stream.measured_start_ns(self.ramp_end_ns);
        stream.depth.sent(counted, self.sending_depth.take());
        if let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) {
            m.outstanding += 1;
        }
        // A lone job owns every command: no need to track whose each is.
        if self.streams.len() > 1 {
            self.owner_seq += 1;
            self.owners.push(Reverse((done_ns, self.owner_seq, index)));
        }
    }

    /// A drive slot freed at `at_ns`: submit what the host holds, oldest first.
    pub(super) fn drain_host_queue(&mut self, drive: &mut Drive, at_ns: Nanoseconds) -> Result<()> {
        while self.inflight.len() < self.device_depth {
            let Some((arrival_ns, index, depth)) = self.host_queue.pop_front() else { break };
            self.streams[index].depth.dequeued();
            if let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) {
                m.outstanding = m.outstanding.saturating_sub(1);
            }
            if self.stopped_issuing {
                continue;
            }
            self.sending_depth = Some(depth);
            self.submit(drive, index, arrival_ns, at_ns.max(arrival_ns))?;
            self.sending_depth = None;
        }
        Ok(())
    }
}
