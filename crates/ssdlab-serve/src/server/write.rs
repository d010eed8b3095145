//! WRITE: sectors prepared outside the drive's lock, the write under it, a seeded cut during one.

use super::preconditioning;
use super::{Server, State};
use crate::clock::monotonic_ns;
use crate::journal::RecordEncoder;
use crate::{ServeError, ServeResult};
use ssdlab_core::Nanoseconds;
use ssdlab_reduce::{SectorContent, SECTOR_BYTES};
use std::cell::RefCell;

thread_local! {
    /// Each serving thread's queue of prepared sector contents, reused.
    static PREPARED: RefCell<std::collections::VecDeque<SectorContent>> = const { RefCell::new(std::collections::VecDeque::new()) };
}

/// Writes remembered for the unserializable-writes fault.
const RECENT_WRITES: usize = 1024;

impl Server {
    /// Write `data` at `offset`; with `fua`, durable before the reply.
    pub fn write(&self, data: &[u8], offset: u64, fua: bool) -> ServeResult<()> {
        let visit = self.clock.visit();
        let arrived = visit.arrived_ns();
        self.check_range(offset, data.len() as u64)?;
        self.check_space(data.len() as u64)?;
        // Whole sectors are hashed and compressed here, before taking the drive's lock, so
        // requests in flight do that work in parallel (into this thread's reused queue).
        let sector = SECTOR_BYTES as u64;
        let mut prepared = None;
        if offset.is_multiple_of(sector) && (data.len() as u64).is_multiple_of(sector) {
            let mut contents = PREPARED.with(|p| std::mem::take(&mut *p.borrow_mut()));
            contents.clear();
            contents.extend(data.chunks(SECTOR_BYTES).map(SectorContent::from_bytes));
            prepared = Some(contents);
        }
        self.serve_request(true, |state| self.write_in(state, data, offset, fua, prepared, arrived))
    }

    /// The write of `data` at `offset`, under the drive's lock (a seeded power cut may strike
    /// it); with `fua`, durable before it returns. Returns the simulated completion.
    pub(super) fn write_in(
        &self,
        state: &mut State,
        data: &[u8],
        offset: u64,
        fua: bool,
        prepared: Option<std::collections::VecDeque<SectorContent>>,
        arrived: u64,
    ) -> ServeResult<Nanoseconds> {
        Self::fail_if_broken(state)?;
        state.writes_seen += 1;
        if self.cut_at_write == Some(state.writes_seen) {
            return Err(self.cut_during_write(state, data, offset));
        }
        let at = self.arrival(state, arrived);
        let mut done = self.write_locked(state, data, offset, prepared, at)?;
        if fua {
            done = self.make_durable(state, done)?;
        }
        state.stats.record_write(at, done, data.len() as u64);
        state.last_done_ns = state.last_done_ns.max(done);
        Ok(done)
    }

    fn write_locked(
        &self,
        state: &mut State,
        data: &[u8],
        offset: u64,
        prepared: Option<std::collections::VecDeque<SectorContent>>,
        at: Nanoseconds,
    ) -> ServeResult<Nanoseconds> {
        let mut contents = match prepared {
            Some(contents) => contents,
            None => preconditioning::sector_contents(&state.session, state.generated.as_ref(), offset, data)?,
        };
        RecordEncoder::write(Self::begin_record(state, at), offset, data.len() as u64, contents.iter());
        let done = state.session.write_contents_at(offset, data.len() as u64, &mut contents, at);
        // The queue (now empty) goes back to this thread for its next write.
        PREPARED.with(|p| *p.borrow_mut() = contents);
        let done = done.map_err(|e| {
            state.pending.abort();
            Self::broke(state, e)
        })?;
        if self.faults.unserializable_writes > 0.0 {
            if state.recent_writes.len() >= RECENT_WRITES {
                state.recent_writes.pop_front();
            }
            state.recent_writes.push_back((state.next_seq, offset, data.len() as u64));
        }
        if let Some(g) = state.generated.as_mut() {
            g.written(offset, data.len() as u64);
        }
        self.end_record(state, Some((offset, data.len() as u64)))?;
        Ok(done)
    }

    /// The seeded power cut, during this write (at its arrival; the write is never
    /// acknowledged): with the shorn-writes fault striking, its first half is written and
    /// made durable first.
    fn cut_during_write(&self, state: &mut State, data: &[u8], offset: u64) -> ServeError {
        let at = self.arrival(state, monotonic_ns());
        let mut rng = self.fault_rng();
        let mut struck = Vec::new();
        let half = (data.len() / 2) / 512 * 512;
        if half > 0 && self.faults.shorn_writes > 0.0 && rng.unit_f64() < self.faults.shorn_writes {
            if self.write_locked(state, &data[..half], offset, None, at).is_ok() {
                let _ = self.commit_now(state);
            }
            struck.push("shorn-writes".to_string());
        }
        let message = self.cut_locked(state, at, &mut rng, struck);
        ServeError::new(libc::EIO, format!("{message} (seeded cut during write {})", state.writes_seen))
    }
}
