//! FLUSH and FUA: making everything written before durable.

use super::{Server, State};
use crate::journal::RecordEncoder;
use crate::{ServeError, ServeResult};
use ssdlab_core::Nanoseconds;

impl Server {
    /// Flush the drive at `at_ns` and make everything before durable (journal and data, synced).
    /// A drive that lies about flushes (the lying-flush fault) acknowledges at once and
    /// programs nothing. Returns the simulated completion.
    pub(super) fn make_durable(&self, state: &mut State, at_ns: Nanoseconds) -> ServeResult<Nanoseconds> {
        if self.protected {
            // Nothing volatile: every operation was committed before its reply (end_record), so
            // a FLUSH or FUA is answered at once and programs nothing (the drive's WA is that of
            // its writes alone).
            state.flushed_before = state.next_seq;
            return Ok(at_ns);
        }
        if self.faults.lying_flush > 0.0 {
            state.flushed_before = state.next_seq;
            return Ok(at_ns);
        }
        RecordEncoder::flush(Self::begin_record(state, at_ns));
        let done = state.session.flush_at(at_ns);
        if let Some(failure) = state.session.drive().data_failure() {
            state.pending.abort();
            return Err(ServeError::new(libc::EIO, failure.to_string()));
        }
        self.end_record(state, None)?;
        state.flushed_before = state.next_seq;
        self.take_commit(state)?;
        Ok(done)
    }

    /// FLUSH: everything written before is durable in the backing file when this returns.
    pub fn flush(&self) -> ServeResult<()> {
        let visit = self.clock.visit();
        let arrived = visit.arrived_ns();
        self.serve_request(false, |state| {
            if let Some(why) = &state.broken {
                // The journal no longer describes the drive: nothing more can be made durable.
                return Err(ServeError::new(libc::EIO, format!("cannot flush: the drive stopped taking writes: {why}")));
            }
            let at = self.arrival(state, arrived);
            let done = self.make_durable(state, at)?;
            state.stats.record_flush(at, done);
            state.last_done_ns = state.last_done_ns.max(done);
            Ok(done)
        })
    }
}
