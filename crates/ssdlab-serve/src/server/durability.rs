//! The server's durability rules: each operation's record, commits (taken under the drive's
//! lock, done after it: crate::commit), checkpoints and power cuts (docs/power-loss.md).

use super::{Server, State, CHECKPOINT_JOURNAL_BYTES, COMMIT_RECORD_BYTES, STUCK_RECORD_BYTES};
use crate::commit::CommitJob;
use crate::journal::{Check, CutReport, RecordEncoder};
use crate::recovery::{self, CheckpointHead};
use crate::{ServeError, ServeResult};
use ssdlab_core::{Error, Nanoseconds, SimRng};

impl Server {
    /// Start the record of an operation arriving at `at_ns` (its operation is encoded next,
    /// before the drive does it).
    pub(super) fn begin_record(state: &mut State, at_ns: Nanoseconds) -> &mut Vec<u8> {
        state.pending.begin(state.next_seq, at_ns);
        state.extents.set_seq(state.next_seq);
        state.pending.body()
    }

    /// End the record of the operation the drive just did (its extent changes and resulting
    /// figures), then commit as the durability rules ask.
    pub(super) fn end_record(&self, state: &mut State, written: Option<(u64, u64)>) -> ServeResult<()> {
        Self::recycle_emptied(state);
        let extents = state.extents.take_events();
        let check = recovery::check_of(&state.session, state.extents.placement(), &extents, written);
        let sector = ssdlab_reduce::SECTOR_BYTES as u64;
        let sectors = written.filter(|w| w.1 > 0).map_or(0, |(offset, len)| (offset + len - 1) / sector - offset / sector + 1);
        let pushed = state.session.drive().buffer_pushed();
        state.pending.finish(&extents, &check, pushed, sectors);
        state.next_seq += 1;
        if state.request_from.is_some() {
            // A part of a request of several operations: its commit waits for the last part
            // (Server::end_request), so no commit or checkpoint holds some parts and not others.
            return Ok(());
        }
        self.after_record(state)
    }

    /// Begin a host request done as several operations (a WRITE ZEROES that trims whole
    /// sectors and writes zeros into partial ones): a power cut keeps all of its records or
    /// none, as it does a single operation's.
    pub(super) fn begin_request(state: &mut State) {
        state.request_from = Some(state.pending.len());
    }

    /// End the request [`Server::begin_request`] began: its records share their fate, then
    /// commit as the durability rules ask.
    pub(super) fn end_request(&self, state: &mut State) -> ServeResult<()> {
        let Some(from) = state.request_from.take() else { return Ok(()) };
        state.pending.share_fate(from);
        self.after_record(state)
    }

    /// After an operation's record (or a request's last one): commit as the durability rules
    /// ask, and write a checkpoint when the journal has grown enough.
    fn after_record(&self, state: &mut State) -> ServeResult<()> {
        if self.protected {
            // Capacitors let the drive finish what it acknowledged: each record and its data
            // are durable before the reply, so nothing acknowledged is lost, even when the
            // server is killed or the host crashes.
            self.take_commit(state)?;
        } else {
            // The server's own commit (the host-crash window), when records have piled up or
            // enough freed extents wait for one (then only if it would release them): only
            // what the drive has programmed by now, so a power cut later never finds in the
            // journal an operation whose data was still in the drive's volatile buffer.
            let records_due = state.pending.bytes() as u64 >= COMMIT_RECORD_BYTES;
            let release_due = state.extents.releasing() > self.release_commit_extents;
            if records_due || release_due {
                let left = state.session.drive().buffer_at(state.last_arrival_ns).left_through;
                let n = state.pending.programmed(left);
                // (16 MiB of records are more than the 4 MiB that make records due.)
                let stuck = state.pending.bytes() as u64 >= STUCK_RECORD_BYTES
                    && 2 * n < state.pending.len()
                    && self.faults.lying_flush == 0.0
                    && !state.flushing_for_commit;
                if stuck {
                    // The commits have not kept up: the records wait behind data the drive still
                    // buffers, parked in a partly filled unit that nothing makes program
                    // (operations that put nothing in the buffer, TRIMs say, after a write that
                    // parked data: before, they waited without bound, in memory, and a kill -9
                    // lost them all). The server flushes the drive, as a host's FLUSH does
                    // (recorded in the journal, so recovery does the same), and commits
                    // everything. (A drive with the lying-flush fault would not program: its
                    // records keep waiting. The flush's own record comes back here: no second
                    // flush.)
                    let at = state.last_arrival_ns;
                    state.flushing_for_commit = true;
                    let flushed = self.make_durable(state, at);
                    state.flushing_for_commit = false;
                    flushed?;
                } else {
                    let first_seq = state.next_seq - state.pending.len() as u64;
                    if records_due || state.extents.releasing_before(first_seq + n as u64) > self.release_commit_extents / 2 {
                        self.take_commit_prefix(state, n)?;
                    }
                }
            }
        }
        if state.backing.journal_bytes() >= CHECKPOINT_JOURNAL_BYTES {
            self.checkpoint(state, false)?;
        }
        Ok(())
    }

    /// The blocks the drive emptied while programmed since the last call give up their extents
    /// (part of the current operation's extent changes and placement digest).
    pub(super) fn recycle_emptied(state: &mut State) {
        let mut emptied = Vec::new();
        state.session.drive_mut().take_emptied_blocks(&mut emptied);
        state.extents.recycle_emptied(&emptied);
    }

    /// Take a commit of every record waiting (under the drive's lock). The request finishes it
    /// after releasing the lock ([`Server::finish_jobs`] of `state.jobs`); before the reply
    /// everything committed is durable.
    pub(super) fn take_commit(&self, state: &mut State) -> ServeResult<()> {
        self.take_commit_prefix(state, state.pending.len())
    }

    /// Take a commit of the first `n` records waiting (those whose data the drive has
    /// programmed, say); the extents the rest erased wait with them.
    pub(super) fn take_commit_prefix(&self, state: &mut State, n: usize) -> ServeResult<()> {
        if let Some(why) = self.committer.failure() {
            return Err(Self::broke(state, Error::Io(format!("an earlier commit failed: {why}"))));
        }
        if n > 0 && !state.backing.journal_has_room(state.pending.first(n).1.len()) {
            return self.checkpoint(state, false);
        }
        let first_seq = state.next_seq - state.pending.len() as u64;
        let batch = if n == 0 {
            None
        } else {
            let (count, records) = state.pending.first(n);
            let batch = state.backing.reserve_batch(count, records).map_err(|e| Self::broke(state, e))?;
            state.pending.drop_first(n);
            Some(batch)
        };
        let release = state.extents.take_releasing_before(first_seq + n as u64);
        let ticket = self.committer.ticket();
        state.jobs.push(CommitJob { ticket, batch, release });
        Ok(())
    }

    /// Do commits taken under the lock, in their order: the data written out and synced, then
    /// the batch written and synced, then the erased blocks' extents given back. Never takes
    /// the drive's lock.
    pub(super) fn run_jobs(&self, jobs: Vec<CommitJob>) -> Result<(), String> {
        for job in jobs {
            self.committer.finish(job.ticket, || {
                self.runs.write_out().map_err(|e| format!("cannot write data to the backing file: {e}"))?;
                self.runs.sync_file().map_err(|e| format!("cannot sync the backing file: {e}"))?;
                if let Some(batch) = &job.batch {
                    self.read_file.write_all_at(&batch.bytes, batch.at).map_err(|e| format!("cannot write the journal: {e}"))?;
                    self.runs.sync_file().map_err(|e| format!("cannot sync the backing file: {e}"))?;
                }
                self.runs.release_list(job.release).map_err(|e| format!("cannot release erased extents: {e}"))
            })?;
            // Give the pages the allocator holds free back to the kernel (a commit comes every
            // 4 MiB of records: about a second of small writes, or 800 MiB of large ones).
            // SAFETY: malloc_trim only returns free memory of the allocator's own heaps.
            unsafe { libc::malloc_trim(0) };
        }
        Ok(())
    }

    /// [`Server::run_jobs`] after the drive's lock was released: a failure stops the drive
    /// taking writes (the journal no longer describes it).
    pub(super) fn finish_jobs(&self, jobs: Vec<CommitJob>) -> ServeResult<()> {
        if jobs.is_empty() {
            return Ok(());
        }
        self.run_jobs(jobs).map_err(|why| {
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            Self::broke(&mut state, Error::Io(why))
        })
    }

    /// Under the drive's lock: every commit taken is done when this returns.
    pub(super) fn settle_commits(&self, state: &mut State) -> ServeResult<()> {
        let jobs = std::mem::take(&mut state.jobs);
        let result = self.run_jobs(jobs).map_err(|why| Self::broke(state, Error::Io(why)));
        self.committer.wait_idle();
        result
    }

    /// Commit everything now (under the drive's lock).
    pub(super) fn commit_now(&self, state: &mut State) -> ServeResult<()> {
        self.take_commit(state)?;
        self.settle_commits(state)
    }

    /// Flush the drive and write a checkpoint of everything (`clean`: and mark the file cleanly
    /// shut down). The journal starts a new epoch.
    pub(super) fn checkpoint(&self, state: &mut State, clean: bool) -> ServeResult<()> {
        self.settle_commits(state)?;
        let fail = |e: String| ServeError::new(libc::EIO, format!("cannot write a checkpoint: {e}"));
        let at = state.last_done_ns.max(state.last_arrival_ns);
        let done = state.session.flush_at(at);
        // The flush may close a block whose data was all overwritten: the table below holds it.
        Self::recycle_emptied(state);
        state.session.advance_to(done);
        state.last_done_ns = state.last_done_ns.max(done);
        state.extents.write_out().map_err(|e| fail(e.to_string()))?;
        state.session.drive_mut().data_plane_mut().map(|p| p.sync()).transpose().map_err(|e| fail(e.to_string()))?;
        state.extents.take_events(); // the table below holds them
        let head =
            CheckpointHead { now_ns: state.session.now_ns(), last_done_ns: state.last_done_ns, next_seq: state.next_seq, extents: state.extents.table() };
        // Streamed into the file: the state is never held twice in memory.
        let State { session, backing, generated, .. } = &mut *state;
        backing
            .write_checkpoint(
                &mut |out| {
                    bincode::serialize_into(&mut *out, &head).map_err(|e| Error::Io(e.to_string()))?;
                    session.drive().save_state(out)?;
                    // A preconditioned drive's generated sectors follow the drive's state.
                    generated.as_ref().map_or(Ok(()), |g| g.write_to(out))
                },
                clean,
            )
            .map_err(|e| fail(e.to_string()))?;
        state.pending.clear();
        state.extents.release().map_err(|e| fail(e.to_string()))?;
        if clean {
            // A stopped file takes the room of what the drive stores, not of extents kept warm.
            state.extents.punch_warm().map_err(|e| fail(e.to_string()))?;
        }
        Ok(())
    }

    /// Cut the power now, as a drive loses it (docs/power-loss.md, "the drive's own loss
    /// window"): the operations whose data the simulated drive had not all programmed at the
    /// cut (in its volatile write buffer, or in programs not complete) are lost, with every one
    /// after them; the others are made durable; the server stops and the next start recovers.
    /// With power-loss protection nothing taken is lost. The faults of `--fault` strike as
    /// their probabilities say. Returns a line saying what was lost.
    pub fn power_cut(&self) -> String {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let at = self.cut_time(&state);
        let mut rng = self.fault_rng();
        self.cut_locked(&mut state, at, &mut rng, Vec::new())
    }

    /// The simulated time of a power cut now.
    pub(super) fn cut_time(&self, state: &State) -> Nanoseconds {
        let now = if self.clock.emulates() { self.clock.simulated_ns(crate::clock::monotonic_ns()) } else { state.last_done_ns };
        now.max(state.last_arrival_ns)
    }

    /// The draws of the faults at a cut (one cut per server run).
    pub(super) fn fault_rng(&self) -> SimRng {
        SimRng::new(self.seed ^ 0xFA17_5EED_0FC0_FFEE)
    }

    pub(super) fn cut_locked(&self, state: &mut State, at: Nanoseconds, rng: &mut SimRng, mut struck: Vec<String>) -> String {
        if state.powered_off || state.closed {
            return "the drive was already stopped".into();
        }
        // Commits already taken are the host's writes: they finish.
        let _ = self.settle_commits(state);
        let first_seq = state.next_seq - state.pending.len() as u64;
        let buffer = state.session.drive().buffer_at(at);
        let mut report = CutReport { at_ns: at, buffered_sectors: buffer.still_in, torn_programs: buffer.programs_in_flight, ..Default::default() };
        let mut strikes = |p: f64| p > 0.0 && rng.unit_f64() < p;
        let keep = if self.protected {
            // Capacitors: the drive programs everything it took.
            report.buffered_sectors = 0;
            report.torn_programs = 0;
            state.pending.len()
        } else {
            let programmed = state.pending.programmed(buffer.left_through);
            let flushed = (state.flushed_before.saturating_sub(first_seq) as usize).min(state.pending.len());
            if flushed > programmed && self.faults.lying_flush > 0.0 {
                if strikes(self.faults.lying_flush) {
                    struck.push("lying-flush".into());
                    programmed
                } else {
                    flushed // the drive happened to keep what it said it had
                }
            } else {
                programmed.max(flushed)
            }
        };
        // A request of several operations cut before its last one is lost whole.
        let keep = match state.request_from.take() {
            Some(from) => keep.min(from),
            None => keep,
        };
        for (i, e) in state.pending.entries().iter().enumerate().skip(keep) {
            report.lost_operations += 1;
            report.lost_sectors += e.sectors;
            if first_seq + (i as u64) < state.flushed_before {
                report.lost_flushed_sectors += e.sectors;
            }
        }
        let unserializable = strikes(self.faults.unserializable_writes);
        let metadata = strikes(self.faults.metadata_corruption);
        let dead = strikes(self.faults.dead_device);
        if dead {
            struck.push("dead-device".into());
        }
        let mut notes = Vec::new();
        if unserializable {
            match self.lose_an_earlier_write(state, first_seq + keep as u64, rng) {
                Some(note) => {
                    struck.push("unserializable-writes".into());
                    notes.push(note);
                }
                None => notes.push("unserializable-writes: no earlier write to lose".into()),
            }
        }
        let kept = self.take_commit_prefix(state, keep).and_then(|()| self.settle_commits(state));
        state.pending.clear();
        state.next_seq = first_seq + keep as u64;
        if metadata {
            match state.backing.roll_back_journal(rng) {
                Ok(Some(next_seq)) => {
                    struck.push("metadata-corruption".into());
                    report.forgotten_operations = state.next_seq - next_seq;
                    notes.push(format!("metadata-corruption: the map went back to before operation {next_seq}"));
                    state.next_seq = next_seq;
                }
                Ok(None) => notes.push("metadata-corruption: nothing in the journal to forget".into()),
                Err(e) => notes.push(format!("metadata-corruption failed: {e}")),
            }
        }
        report.faults = struck;
        // The cut itself goes into the journal, for the next start to report.
        let at_ns = at.max(state.last_arrival_ns);
        RecordEncoder::cut(Self::begin_record(state, at_ns), &report);
        let check = Check { free_blocks: 0, gc_moved: 0, live_sectors: 0, placement: 0 };
        let _ = state.extents.take_events();
        let pushed = state.session.drive().buffer_pushed();
        state.pending.finish(&[], &check, pushed, 0);
        state.next_seq += 1;
        let recorded = kept.and_then(|()| self.commit_now(state));
        if dead {
            match state.backing.mark_dead() {
                Ok(()) => notes.push("dead-device: the drive will not answer until a secure erase".into()),
                Err(e) => notes.push(format!("dead-device failed: {e}")),
            }
        }
        state.extents.cut_power();
        state.pending.clear();
        state.closed = true;
        state.powered_off = true;
        let mut message = format!("power cut at {:.6} s (simulated): {report}", at as f64 / 1e9);
        if self.protected {
            message = format!("power cut: power-loss protection programmed everything taken; {message}");
        }
        if let Err(e) = recorded {
            message.push_str(&format!("; the journal could not record it: {}", e.message));
        }
        for note in notes {
            message.push_str("; ");
            message.push_str(&note);
        }
        message
    }

    /// The unserializable-writes fault: one of the drive's recent writes that it kept (not the
    /// last of them, so a later one survives it) loses its data: the regions its sectors still
    /// map to, where no later write went, are zeroed in the file (unreadable sectors, as a
    /// program lost after the fact leaves them).
    fn lose_an_earlier_write(&self, state: &mut State, kept_before_seq: u64, rng: &mut SimRng) -> Option<String> {
        let candidates: Vec<(u64, u64, u64)> = state.recent_writes.iter().copied().filter(|&(seq, _, _)| seq < kept_before_seq).collect();
        if candidates.len() < 2 {
            return None;
        }
        let (victim, offset, len) = candidates[rng.below(candidates.len() as u64 - 1) as usize];
        let sector = ssdlab_reduce::SECTOR_BYTES as u64;
        let later: Vec<(u64, u64)> = state.recent_writes.iter().filter(|w| w.0 > victim).map(|w| (w.1, w.2)).collect();
        let mut lost = 0;
        for lba in offset / sector..=(offset + len - 1) / sector {
            if later.iter().any(|&(o, l)| o / sector <= lba && lba <= (o + l - 1) / sector) {
                continue;
            }
            if let ssdlab_ftl::DataLocation::At { addr_bytes, region_bytes } = state.session.drive().translation().data_location(lba) {
                if state.extents.zero_physical(addr_bytes, region_bytes).is_ok() {
                    lost += 1;
                }
            }
        }
        (lost > 0).then(|| {
            format!("unserializable-writes: the write of {len} bytes at byte {offset} (operation {victim}) lost {lost} sectors while later writes survived")
        })
    }
}
