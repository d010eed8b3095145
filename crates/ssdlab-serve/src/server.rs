//! The server behind the block device: one simulated drive (a [`Session`] storing its data in
//! the backing file) shared by every connection, with the NBD operations on it, two clocks,
//! statistics and a clean shutdown. Free of nbdkit: the plugin crate only adapts it.

mod checks;
mod config;
mod durability;
mod error;
mod flush;
mod lifecycle;
mod preconditioning;
mod read;
mod report;
mod trim_zero;
mod write;

use crate::backing::BackingFile;
use crate::clock::{Clock, RoundTrip};
use crate::commit::{CommitJob, Committer};
use crate::extents::Extents;
use crate::generated::Generated;
use crate::host::HostFile;
use crate::pending::Pending;
use crate::recovery::RecoveryReport;
use crate::stats::ServeStats;
use ssdlab_core::{Error, Nanoseconds};
use ssdlab_drive::Session;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};

pub use config::{Faults, Latency, ServeConfig};
pub use error::{ServeError, ServeResult};
pub use read::ExtentKind;
pub use report::mapping_digest_of;

/// Records buffered before a synced commit is due.
const COMMIT_RECORD_BYTES: u64 = 4 << 20;
/// Records waiting on data the drive still buffers after which the server flushes the drive
/// (about 240,000 operations; far more than any built-in drive's write buffer holds in the
/// records of writes that fill it, so a stream that programs never gets there).
const STUCK_RECORD_BYTES: u64 = 4 * COMMIT_RECORD_BYTES;
/// Journal bytes after which the next operation takes a checkpoint (the journal starts again).
const CHECKPOINT_JOURNAL_BYTES: u64 = 64 << 20;
/// Bytes of freed extents (erased or emptied blocks) waiting for a synced commit after which
/// the server takes one (at most an eighth of the drive's blocks): until then they cannot be
/// reused, and new data goes to fresh extents.
const RELEASE_COMMIT_BYTES: u64 = 256 << 20;

struct State {
    session: Session,
    backing: BackingFile,
    extents: Extents,
    last_arrival_ns: Nanoseconds,
    last_done_ns: Nanoseconds,
    stats: ServeStats,
    closed: bool,
    /// Records not yet written to the journal (the volatile part of the metadata).
    pending: Pending,
    /// Commits taken by the request holding the lock, done by it once it releases the lock.
    jobs: Vec<CommitJob>,
    /// Records before this sequence number were covered by an acknowledged FLUSH or FUA.
    flushed_before: u64,
    /// The drive died at its last power cut (the dead-device fault).
    dead: bool,
    /// The last writes (sequence number, offset, length), for the unserializable-writes fault.
    recent_writes: std::collections::VecDeque<(u64, u64, u64)>,
    next_seq: u64,
    /// Host writes served (for the seeded power cut).
    writes_seen: u64,
    /// While a host request is done as several operations: where its records start in
    /// `pending` (they share one fate at a power cut; durability.rs, `begin_request`).
    request_from: Option<usize>,
    /// Set when power was cut: the process should end.
    powered_off: bool,
    /// While the server flushes the drive of its own accord (records stuck behind data the
    /// drive buffers; durability.rs, `after_record`).
    flushing_for_commit: bool,
    /// Why the drive stopped taking writes after a failed operation.
    broken: Option<String>,
    recovery: Option<RecoveryReport>,
    /// The sectors a server-side precondition wrote that still hold its generated content.
    generated: Option<Generated>,
}

/// A running server.
pub struct Server {
    state: Mutex<State>,
    capacity_bytes: u64,
    reduction: bool,
    /// Bytes of one block times the dies: room GC may need in the backing file's file system.
    gc_headroom_bytes: u64,
    backing_path: String,
    protected: bool,
    faults: Faults,
    /// Seed of the fault draws at a cut.
    seed: u64,
    cut_at_write: Option<u64>,
    /// Freed extents waiting for release past which the server commits (RELEASE_COMMIT_BYTES).
    release_commit_extents: usize,
    /// Held by reads outside the lock while they read (crate::read_plan).
    gate: Arc<RwLock<()>>,
    /// The backing file, for those reads.
    read_file: Arc<dyn HostFile>,
    /// The data region, whose complete runs a write request writes after leaving the lock.
    runs: Extents,
    /// Orders the commits done outside the lock.
    committer: Committer,
    /// The clocks, and the wait of emulated replies.
    clock: Clock,
    /// Bytes writes may still take before the file system's free space is read again, and
    /// when it last was (ms after the start).
    space_budget: std::sync::atomic::AtomicI64,
    space_checked_ms: AtomicU64,
}

impl Server {
    /// A digest of where every logical sector's data is (tests compare a recovered drive with
    /// the one before the cut).
    pub fn mapping_digest(&self) -> u64 {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        mapping_digest_of(&state.session)
    }

    /// Whether the drive died at its last power cut (the dead-device fault): every read and
    /// write fails until it is served with a secure erase.
    pub fn is_dead(&self) -> bool {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).dead
    }

    /// What recovery found, when this start followed an unclean stop.
    pub fn recovery(&self) -> Option<RecoveryReport> {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).recovery.clone()
    }

    /// Whether every acknowledged write is durable (power-loss protection): FLUSH and FUA are
    /// then not needed, though still accepted.
    pub fn power_loss_protected(&self) -> bool {
        self.protected
    }

    /// Whether power was cut (the process should end without a clean shutdown).
    pub fn powered_off(&self) -> bool {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).powered_off
    }

    /// Set the transport's measured round trips (client to plugin and back, without the
    /// plugin's own time): `quick` for a reply sent at once, `held` for a reply held as an
    /// emulated one is (it adds the time a waiting client takes to wake up). Emulated replies
    /// are sent `held` before their simulated completion, so the client receives them at it.
    /// Reported by `stats` (`transport_round_trip_us`).
    pub fn set_transport_round_trip(&self, quick: RoundTrip, held: RoundTrip) {
        self.clock.set_transport_round_trip(quick, held);
    }

    /// Whether requests complete at their simulated completion time (`--latency emulate`).
    pub fn emulates_latency(&self) -> bool {
        self.clock.emulates()
    }

    /// Bytes the export offers (the drive's user capacity).
    pub fn size(&self) -> u64 {
        self.capacity_bytes
    }

    /// Whether zeros are written without flash (a data-reduction drive), so a fast zero is
    /// honoured for any range.
    pub fn zeroes_fast(&self) -> bool {
        self.reduction
    }

    /// When a request that reached the plugin at monotonic time `arrived` arrives in
    /// simulated time.
    fn arrival(&self, state: &mut State, arrived: u64) -> Nanoseconds {
        let at = if self.clock.emulates() {
            self.clock.simulated_ns(arrived)
        } else {
            // As fast as the host allows: each request after the one before has completed, so
            // the simulated drive is never handed more than it can do.
            state.last_done_ns
        };
        let at = at.max(state.last_arrival_ns);
        state.last_arrival_ns = at;
        at
    }

    fn wait_until(&self, done_ns: Nanoseconds) {
        self.clock.wait_until(done_ns);
    }

    /// One request's turn of the drive (FLUSH, TRIM, WRITE, WRITE ZEROES): `op` under the
    /// drive's lock, taking the commits it needs into `state.jobs`; then, with the lock
    /// released, those commits are done ([`Server::finish_jobs`]) and the reply waits for the
    /// simulated completion `op` returned (emulated latency). With `wrote_data`, the runs of
    /// data the request and earlier writes completed are first copied into the file, outside
    /// the lock (anything that needs them on file first writes them itself); a failure there
    /// stops the drive taking writes. An error of `op` is returned before one of the commits.
    fn serve_request(&self, wrote_data: bool, op: impl FnOnce(&mut State) -> ServeResult<Nanoseconds>) -> ServeResult<()> {
        let (done, jobs) = {
            let mut state = self.lock()?;
            let done = op(&mut state);
            (done, std::mem::take(&mut state.jobs))
        };
        if wrote_data {
            if let Err(e) = self.runs.drain() {
                // Data the journal will point at did not reach the file: no more writes.
                let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
                let _ = self.run_jobs(jobs);
                return Err(Self::broke(&mut state, Error::Io(format!("cannot write data to the backing file: {e}"))));
            }
        }
        let finished = self.finish_jobs(jobs);
        let done = done?;
        finished?;
        self.wait_until(done);
        Ok(())
    }

    /// A CACHE request (nothing to prefetch): answered at once, except while the start-up probe
    /// times held replies, when it is held [`Server::set_probe_hold`] long, as emulated replies
    /// are.
    pub fn cache_hold(&self) {
        self.clock.cache_hold();
    }

    /// While the start-up probe runs: hold each CACHE reply this long (0: not at all).
    pub fn set_probe_hold(&self, ns: u64) {
        self.clock.set_probe_hold(ns);
    }
}
