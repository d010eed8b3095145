//! The server's durability rules: each operation's record, commits (taken under the drive's
//! lock, done after it: crate::commit), checkpoints and power cuts (docs/power-loss.md).

use super::{Server, State, CHECKPOINT_JOURNAL_BYTES, COMMIT_RECORD_BYTES};
use crate::commit::CommitJob;
use crate::recovery::{self, CheckpointHead};
use crate::{ServeError, ServeResult};
use ssdlab_core::{Error, Nanoseconds};

impl Server {
    /// Start the record of an operation arriving at `at_ns` (its operation is encoded next,
    /// before the drive does it).
    pub(super) fn begin_record(state: &mut State, at_ns: Nanoseconds) -> &mut Vec<u8> {
        state.pending.begin(state.next_seq, at_ns);
        state.pending.body()
    }

    /// End the record of the operation the drive just did (its extent changes and resulting
    /// figures), then commit as the durability rules ask.
    pub(super) fn end_record(&self, state: &mut State) -> ServeResult<()> {
        let extents = state.extents.take_events();
        let check = recovery::check_of(&state.session);
        state.pending.finish(&extents, &check);
        state.next_seq += 1;
        if self.protected {
            // Capacitors let the drive finish what it acknowledged: each record and its data
            // are durable before the reply, so nothing acknowledged is lost, even when the
            // server is killed or the host crashes.
            self.take_commit(state)?;
        } else if state.pending.bytes() as u64 >= COMMIT_RECORD_BYTES || state.extents.releasing() as u32 > self.blocks / 8 {
            self.take_commit(state)?;
        }
        if state.backing.journal_bytes() >= CHECKPOINT_JOURNAL_BYTES {
            self.checkpoint(state, false)?;
        }
        Ok(())
    }

    /// Take a commit of every record waiting (under the drive's lock). The request finishes it
    /// after releasing the lock ([`Server::finish_jobs`] of `state.jobs`); before the reply
    /// everything committed is durable.
    pub(super) fn take_commit(&self, state: &mut State) -> ServeResult<()> {
        if let Some(why) = self.committer.failure() {
            return Err(Self::broke(state, Error::Io(format!("an earlier commit failed: {why}"))));
        }
        if !state.pending.is_empty() && !state.backing.journal_has_room(state.pending.bytes()) {
            return self.checkpoint(state, false);
        }
        let batch = if state.pending.is_empty() {
            None
        } else {
            let (count, records) = state.pending.first(state.pending.len());
            let batch = state.backing.reserve_batch(count, records).map_err(|e| Self::broke(state, e))?;
            state.pending.clear();
            Some(batch)
        };
        let release = state.extents.take_releasing();
        let ticket = self.committer.ticket();
        state.jobs.push(CommitJob { ticket, batch, release });
        if std::env::var_os("SSDLAB_SYNC_COMMIT").is_some() {
            return self.settle_commits(state);
        }
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
        state.session.advance_to(done);
        state.last_done_ns = state.last_done_ns.max(done);
        state.extents.write_out().map_err(|e| fail(e.to_string()))?;
        state.session.drive_mut().data_plane_mut().map(|p| p.sync()).transpose().map_err(|e| fail(e.to_string()))?;
        state.extents.take_events(); // the table below holds them
        let head =
            CheckpointHead { now_ns: state.session.now_ns(), last_done_ns: state.last_done_ns, next_seq: state.next_seq, extents: state.extents.table() };
        // Streamed into the file: the state is never held twice in memory.
        let State { session, backing, .. } = &mut *state;
        backing
            .write_checkpoint(
                &mut |out| {
                    bincode::serialize_into(&mut *out, &head).map_err(|e| Error::Io(e.to_string()))?;
                    session.drive().save_state(out)
                },
                clean,
            )
            .map_err(|e| fail(e.to_string()))?;
        state.pending.clear();
        state.extents.release().map_err(|e| fail(e.to_string()))
    }

    /// Cut the power now, as a drive loses it: records not yet in the journal are lost (the
    /// last batch being written is torn), the data program in flight is torn, and the server
    /// stops; the next start recovers. With power-loss protection the drive first writes out
    /// everything it acknowledged. Returns a line saying what was lost.
    pub fn power_cut(&self) -> String {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        self.cut_locked(&mut state)
    }

    pub(super) fn cut_locked(&self, state: &mut State) -> String {
        if state.powered_off || state.closed {
            return "the drive was already stopped".into();
        }
        // Commits already taken are the host's writes: they finish.
        let _ = self.settle_commits(state);
        let lost = state.pending.len();
        let message = if self.protected && self.commit_now(state).is_ok() {
            "power cut: power-loss protection wrote out every acknowledged operation".to_string()
        } else {
            if !state.pending.is_empty() {
                let (count, records) = state.pending.first(state.pending.len());
                state.backing.write_torn_batch(count, records);
            }
            if lost == 0 {
                "power cut: every operation was already in the journal; nothing was lost".to_string()
            } else {
                format!("power cut: {lost} operations not yet in the journal were lost (their metadata page torn)")
            }
        };
        state.extents.cut_power();
        state.pending.clear();
        state.closed = true;
        state.powered_off = true;
        message
    }
}
