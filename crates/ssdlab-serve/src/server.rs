//! The server behind the block device: one simulated drive (a [`Session`] storing its data in
//! the backing file) shared by every connection, with the NBD operations on it, two clocks,
//! statistics and a clean shutdown. Free of nbdkit: the plugin crate only adapts it.

use crate::backing::{BackingFile, DriveIdentity};
use crate::extents::Extents;
use crate::journal::{Op, Record, SectorDesc};
use crate::read_plan::ReadPlan;
use crate::recovery::{self, CheckpointHead, RecoveryReport};
use crate::stats::ServeStats;
use ssdlab_core::{bail, Error, Nanoseconds, Result, SimRng};
use ssdlab_drive::{DriveOptions, Session};
use ssdlab_ftl::DataLocation;
use ssdlab_reduce::{ContentMode, SectorContent, SECTOR_BYTES};
use ssdlab_workload::{Io, Op as IoOp};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

thread_local! {
    /// Each serving thread's read plan, reused from one request to the next.
    static READ_PLAN: RefCell<ReadPlan> = RefCell::new(ReadPlan::default());
    /// Whether this thread's timer slack was set for emulated latency.
    static TIMER_SLACK_SET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How request completion relates to wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Latency {
    /// Reply as soon as the host's request is done; simulated time still runs and counts.
    None,
    /// Reply at the wall time matching the simulated completion (simulated time anchored to
    /// wall time at start).
    Emulate,
}

impl Latency {
    /// Parse `none` or `emulate`.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "none" => Ok(Self::None),
            "emulate" => Ok(Self::Emulate),
            other => bail!(Config, "latency: unknown mode `{other}` (expected none or emulate)"),
        }
    }
}

/// What a server is started with.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Built-in profile name or TOML path.
    pub profile: String,
    /// `section.field=value` overrides.
    pub overrides: Vec<String>,
    /// Path of the backing file (created when missing).
    pub backing: String,
    /// The clock.
    pub latency: Latency,
    /// Seed of the session (a new backing file) and of the power cut's moment.
    pub seed: u64,
    /// Cut the power during a write drawn at random (from `seed`) among the first this many.
    pub power_cut_after: Option<u64>,
    /// Failure modes of the flawed drives of the era (off by default).
    pub faults: Faults,
}

/// Failure modes of flawed drives, for the power-cut lab (docs/power-loss.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Faults {
    /// FLUSH and FUA are acknowledged without making anything durable: acknowledged data still
    /// in the volatile buffer is lost on a power cut.
    pub lying_flush: bool,
    /// A power cut during a multi-sector write leaves its first half written (a shorn write).
    pub shorn_writes: bool,
}

impl Faults {
    /// Parse a comma-separated list of `lying-flush` and `shorn-writes` (empty: none).
    pub fn parse(text: &str) -> Result<Self> {
        let mut faults = Self::default();
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "lying-flush" => faults.lying_flush = true,
                "shorn-writes" => faults.shorn_writes = true,
                other => bail!(Config, "fault: unknown failure mode `{other}` (expected lying-flush or shorn-writes)"),
            }
        }
        Ok(faults)
    }
}

/// Records buffered before a synced commit is due.
const COMMIT_RECORD_BYTES: u64 = 4 << 20;
/// Journal bytes after which the next operation takes a checkpoint (the journal starts again).
const CHECKPOINT_JOURNAL_BYTES: u64 = 64 << 20;

/// An error with the errno the NBD client should see.
#[derive(Debug)]
pub struct ServeError {
    /// errno for the protocol reply.
    pub errno: i32,
    /// What happened.
    pub message: String,
}

impl ServeError {
    fn new(errno: i32, message: impl Into<String>) -> Self {
        Self { errno, message: message.into() }
    }
}

impl From<Error> for ServeError {
    fn from(e: Error) -> Self {
        let errno = match e {
            Error::Request(_) | Error::Workload(_) | Error::Config(_) => libc::EINVAL,
            Error::Io(ref m) if m.contains("No space left") => libc::ENOSPC,
            Error::Io(_) => libc::EIO,
        };
        Self { errno, message: e.to_string() }
    }
}

/// Result of a served operation.
pub type ServeResult<T> = std::result::Result<T, ServeError>;

/// The kind of an extent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtentKind {
    /// Holds data.
    Data,
    /// Never written, trimmed or zeros: a hole that reads as zeros.
    HoleZero,
}

struct State {
    session: Session,
    backing: BackingFile,
    extents: Extents,
    last_arrival_ns: Nanoseconds,
    last_done_ns: Nanoseconds,
    stats: ServeStats,
    closed: bool,
    /// Records not yet written to the journal (the volatile part of the metadata).
    pending: Vec<Record>,
    pending_bytes: u64,
    next_seq: u64,
    /// Host writes served (for the seeded power cut).
    writes_seen: u64,
    /// Set when power was cut: the process should end.
    powered_off: bool,
    /// Why the drive stopped taking writes after a failed operation.
    broken: Option<String>,
    recovery: Option<RecoveryReport>,
}

/// A running server.
pub struct Server {
    state: Mutex<State>,
    start: Instant,
    base_ns: Nanoseconds,
    latency: Latency,
    capacity_bytes: u64,
    reduction: bool,
    /// Bytes of one block times the dies: room GC may need in the backing file's file system.
    gc_headroom_bytes: u64,
    backing_path: String,
    protected: bool,
    faults: Faults,
    cut_at_write: Option<u64>,
    blocks: u32,
    /// Held by reads outside the lock while they read (crate::read_plan).
    gate: Arc<RwLock<()>>,
    /// The backing file, for those reads.
    read_file: Arc<std::fs::File>,
    /// The data region, whose complete runs a write request writes after leaving the lock.
    runs: Extents,
    /// Emulated latency: the measured round trip of the transport (client to plugin and back,
    /// without the plugin's own time), subtracted from when a reply is due.
    transport_ns: AtomicU64,
    /// Emulated latency: requests answered after their due time, and by how much in all and at
    /// most.
    late: AtomicU64,
    late_total_ns: AtomicU64,
    late_max_ns: AtomicU64,
    answered: AtomicU64,
    /// The transport's round trip for replies sent at once (reported only).
    quick_round_trip_ns: AtomicU64,
    /// While the start-up probe runs: how long CACHE replies are held.
    probe_hold_ns: AtomicU64,
}

/// How long before a due time emulated latency stops sleeping and yields instead.
const SPIN: Duration = Duration::from_micros(60);

/// A reply sent more than this after its due time counts as late (`stats`: `late_replies`).
const LATE_NS: u64 = 10_000;

/// Bytes of zeros written per piece of a large write-zeroes.
const ZERO_PIECE_BYTES: u64 = 32 << 20;

impl Server {
    /// Build the drive, or restore it from its backing file (recovering it from its checkpoint
    /// and journal after an unclean stop), and open the file.
    pub fn start(config: &ServeConfig) -> Result<Self> {
        let profile = ssdlab_profile::load_profile(&config.profile, &config.overrides)?;
        let g = &profile.geometry;
        let block_bytes = g.unit_bytes() * g.units_per_block() as u64;
        let identity = DriveIdentity {
            profile_name: profile.name.clone(),
            profile_hash: ssdlab_reduce::fingerprint(profile.source.as_bytes()) as u64,
            raw_bytes: profile.raw_bytes(),
            capacity_bytes_user: profile.capacity_bytes_user,
            block_bytes,
        };
        let mut backing = BackingFile::open(&config.backing, &identity, config.seed)?;
        let options = DriveOptions { content: ContentMode::Real, store_data: true, ..DriveOptions::default() };
        let reduction = profile.reduction.is_some();
        let protected = profile.controller.power_loss_protection;
        let gc_headroom_bytes = 2 * block_bytes * g.dies() as u64;
        let capacity_bytes = profile.capacity_bytes_user;
        let blocks = g.total_blocks();
        let restored = recovery::restore(&mut backing, profile, options)?;
        let mut session = restored.session;
        session.drive_mut().attach_data_plane(Box::new(restored.extents.plane()));
        let base_ns = restored.last_done_ns.max(session.now_ns());
        let cut_at_write = config.power_cut_after.map(|n| 1 + SimRng::new(config.seed ^ 0x9E37_79B9_7F4A_7C15).below(n.max(1)));
        let mut state = State {
            session,
            backing,
            extents: restored.extents,
            last_arrival_ns: base_ns,
            last_done_ns: base_ns,
            stats: ServeStats::new(base_ns),
            closed: false,
            pending: Vec::new(),
            pending_bytes: 0,
            next_seq: restored.next_seq,
            writes_seen: 0,
            powered_off: false,
            broken: None,
            recovery: restored.report,
        };
        if state.recovery.is_some() {
            // The journal continues after its last intact batch (the next batch overwrites a
            // torn one); the extents only the lost operations used are given back.
            let released = state.extents.settle().map_err(|e| Error::Io(format!("{}: cannot release stale extents: {e}", config.backing)))?;
            if let Some(report) = state.recovery.as_mut() {
                report.extents_released = released;
            }
            state.backing.write_end_marker()?;
        }
        state.backing.mark_in_use()?;
        let gate = state.extents.gate();
        let read_file = state.extents.file_for_reads();
        let runs = state.extents.clone();
        Ok(Self {
            gate,
            read_file,
            runs,
            transport_ns: AtomicU64::new(0),
            late: AtomicU64::new(0),
            late_total_ns: AtomicU64::new(0),
            late_max_ns: AtomicU64::new(0),
            answered: AtomicU64::new(0),
            quick_round_trip_ns: AtomicU64::new(0),
            probe_hold_ns: AtomicU64::new(0),
            state: Mutex::new(state),
            start: Instant::now(),
            base_ns,
            latency: config.latency,
            capacity_bytes,
            reduction,
            gc_headroom_bytes,
            backing_path: config.backing.clone(),
            protected,
            faults: config.faults,
            cut_at_write,
            blocks,
        })
    }

    /// A digest of where every logical sector's data is (tests compare a recovered drive with
    /// the one before the cut).
    pub fn mapping_digest(&self) -> u64 {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let t = state.session.drive().translation();
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for lba in 0..t.user_sectors() {
            let v = match t.data_location(lba) {
                DataLocation::Zeros => 0,
                DataLocation::At { addr_bytes, region_bytes } => addr_bytes ^ (region_bytes << 48),
            };
            h = (h ^ v).wrapping_mul(0x100_0000_01b3);
        }
        h
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

    /// Record an operation the drive just did (its extent changes and resulting figures), then
    /// write out the journal as the durability rules ask.
    fn journal(&self, state: &mut State, at_ns: Nanoseconds, op: Op) -> ServeResult<()> {
        let extents = state.extents.take_events();
        let check = recovery::check_of(&state.session);
        let bytes = 48
            + 8 * extents.len() as u64
            + match &op {
                Op::Write { sectors, .. } => 21 * sectors.len() as u64,
                _ => 0,
            };
        state.pending.push(Record { seq: state.next_seq, at_ns, op, extents, check });
        state.next_seq += 1;
        state.pending_bytes += bytes;
        if self.protected {
            // Capacitors let the drive finish what it acknowledged: each record and its data
            // are durable before the reply, so nothing acknowledged is lost, even when the
            // server is killed or the host crashes.
            Self::commit(state, true)?;
        }
        if state.pending_bytes >= COMMIT_RECORD_BYTES || state.extents.releasing() as u32 > self.blocks / 8 {
            Self::commit(state, true)?;
        }
        if state.backing.journal_bytes() >= CHECKPOINT_JOURNAL_BYTES {
            Self::checkpoint(state, false)?;
        }
        Ok(())
    }

    /// Write the buffered records to the journal after the data they point at; with `sync`,
    /// both are durable when this returns, and erased blocks' extents are given back.
    fn commit(state: &mut State, sync: bool) -> ServeResult<()> {
        let fail = |what: &str, e: String| ServeError::new(libc::EIO, format!("cannot {what}: {e}"));
        state.extents.write_out().map_err(|e| fail("write data to the backing file", e.to_string()))?;
        if !state.pending.is_empty() && !state.backing.journal_has_room(&state.pending) {
            return Self::checkpoint(state, false);
        }
        if sync {
            state.session.drive_mut().data_plane_mut().map(|p| p.sync()).transpose().map_err(|e| fail("sync the backing file", e.to_string()))?;
        }
        if !state.pending.is_empty() {
            state.backing.append_batch(&state.pending, sync).map_err(|e| fail("write the journal", e.to_string()))?;
            state.pending.clear();
            state.pending_bytes = 0;
        }
        if sync {
            state.extents.release().map_err(|e| fail("release erased extents", e.to_string()))?;
        }
        Ok(())
    }

    /// Flush the drive and write a checkpoint of everything (`clean`: and mark the file cleanly
    /// shut down). The journal starts a new epoch.
    fn checkpoint(state: &mut State, clean: bool) -> ServeResult<()> {
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
        state.pending_bytes = 0;
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

    fn cut_locked(&self, state: &mut State) -> String {
        if state.powered_off || state.closed {
            return "the drive was already stopped".into();
        }
        let lost = state.pending.len();
        let message = if self.protected && Self::commit(state, true).is_ok() {
            "power cut: power-loss protection wrote out every acknowledged operation".to_string()
        } else {
            if !state.pending.is_empty() {
                state.backing.write_torn_batch(&state.pending);
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

    /// Set the transport's measured round trips (client to plugin and back, without the
    /// plugin's own time): `quick` for a reply sent at once, `held` for a reply held as an
    /// emulated one is (it adds the time a waiting client and server thread take to wake up).
    /// Emulated replies are sent `held` before their simulated completion, so the client
    /// receives them at it. Reported by `stats` (`transport_round_trip_us`).
    pub fn set_transport_round_trip(&self, quick_ns: u64, held_ns: u64) {
        self.quick_round_trip_ns.store(quick_ns, Ordering::Relaxed);
        self.transport_ns.store(held_ns, Ordering::Relaxed);
    }

    /// Whether requests complete at their simulated completion time (`--latency emulate`).
    pub fn emulates_latency(&self) -> bool {
        self.latency == Latency::Emulate
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

    fn lock(&self) -> ServeResult<MutexGuard<'_, State>> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.closed {
            return Err(ServeError::new(libc::ESHUTDOWN, "the server is shutting down"));
        }
        Ok(state)
    }

    /// When a request that reached the plugin at `arrived` arrives in simulated time.
    fn arrival(&self, state: &mut State, arrived: Instant) -> Nanoseconds {
        let at = match self.latency {
            Latency::Emulate => self.base_ns + arrived.saturating_duration_since(self.start).as_nanos() as Nanoseconds,
            // As fast as the host allows: each request after the one before has completed, so
            // the simulated drive is never handed more than it can do.
            Latency::None => state.last_done_ns,
        };
        let at = at.max(state.last_arrival_ns);
        state.last_arrival_ns = at;
        at
    }

    /// Wait until the wall time matching simulated time `done_ns` (emulated latency), less the
    /// transport's measured round trip (so the client, not the plugin, sees the reply at the
    /// simulated completion): sleep until shortly before, then yield until it (a plain sleep
    /// overshoots by the timer slack, tens of microseconds, which would add to every emulated
    /// latency). A reply sent more than [`LATE_NS`] after its due time is counted as late, with
    /// by how much.
    fn wait_until(&self, done_ns: Nanoseconds) {
        if self.latency != Latency::Emulate {
            return;
        }
        let due = Duration::from_nanos(done_ns.saturating_sub(self.base_ns).saturating_sub(self.transport_ns.load(Ordering::Relaxed)));
        let now = self.sleep_until(due);
        self.answered.fetch_add(1, Ordering::Relaxed);
        let late = (now - due).as_nanos() as u64;
        if late > LATE_NS {
            self.late.fetch_add(1, Ordering::Relaxed);
            self.late_total_ns.fetch_add(late, Ordering::Relaxed);
            self.late_max_ns.fetch_max(late, Ordering::Relaxed);
        }
    }

    /// Wait until `due` after the start (sleep, then yield for the last [`SPIN`]); returns the
    /// time after the start when the wait ended.
    fn sleep_until(&self, due: Duration) -> Duration {
        TIMER_SLACK_SET.with(|set| {
            if !set.replace(true) {
                // Sleeps end within a microsecond of when asked, not the default 50 us later
                // (the setting is per thread).
                // SAFETY: prctl with PR_SET_TIMERSLACK takes a plain integer; no memory involved.
                unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
            }
        });
        let elapsed = self.start.elapsed();
        if due > elapsed + SPIN {
            std::thread::sleep(due - elapsed - SPIN);
        }
        let mut now = self.start.elapsed();
        while now < due {
            std::thread::yield_now();
            now = self.start.elapsed();
        }
        now
    }

    /// A CACHE request (nothing to prefetch): answered at once, except while the start-up probe
    /// times held replies, when it is held [`Server::set_probe_hold`] long, as emulated replies
    /// are.
    pub fn cache_hold(&self) {
        let hold = self.probe_hold_ns.load(Ordering::Relaxed);
        if hold > 0 {
            self.sleep_until(self.start.elapsed() + Duration::from_nanos(hold));
        }
    }

    /// While the start-up probe runs: hold each CACHE reply this long (0: not at all).
    pub fn set_probe_hold(&self, ns: u64) {
        self.probe_hold_ns.store(ns, Ordering::Relaxed);
    }

    fn check_range(&self, offset: u64, len: u64) -> ServeResult<()> {
        if offset.checked_add(len).is_none_or(|end| end > self.capacity_bytes) {
            return Err(ServeError::new(libc::EINVAL, format!("request at byte {offset} of {len} bytes is beyond the export's {} bytes", self.capacity_bytes)));
        }
        if !offset.is_multiple_of(512) || !len.is_multiple_of(512) {
            return Err(ServeError::new(libc::EINVAL, format!("request at byte {offset} of {len} bytes is not in whole 512-byte sectors")));
        }
        Ok(())
    }

    /// Refuse a write the backing file system may not have room for (the write itself and the
    /// GC moves it may cause), before the drive changes anything.
    fn check_space(&self, len: u64) -> ServeResult<()> {
        let path = std::ffi::CString::new(self.backing_path.as_bytes()).map_err(|_| ServeError::new(libc::EIO, "backing path"))?;
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: statvfs writes into the zeroed struct we own; the path is NUL-terminated.
        if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
            return Ok(()); // cannot tell: let the write try
        }
        let free = st.f_bavail as u64 * st.f_frsize as u64;
        if free < len.saturating_mul(2) + self.gc_headroom_bytes {
            return Err(ServeError::new(
                libc::ENOSPC,
                format!("{}: the file system has {free} bytes free, too little for this write and the moves it may cause", self.backing_path),
            ));
        }
        Ok(())
    }

    fn fail_if_broken(state: &State) -> ServeResult<()> {
        if let Some(why) = &state.broken {
            return Err(ServeError::new(libc::EIO, format!("the drive stopped taking writes: {why}")));
        }
        match state.session.drive().data_failure() {
            Some(failure) => Err(ServeError::new(libc::EIO, format!("the drive stopped taking writes after a data failure: {failure}"))),
            None => Ok(()),
        }
    }

    /// An operation that changed the drive failed half-way: its record cannot be written, so
    /// the drive takes no more writes (the journal would no longer describe it).
    fn broke(state: &mut State, e: Error) -> ServeError {
        state.broken.get_or_insert_with(|| e.to_string());
        ServeError::from(e)
    }

    /// Read `buf.len()` bytes at `offset`. Under the drive's lock only the simulated read is
    /// booked and the data located; the bytes are read and decoded after it (crate::read_plan).
    pub fn read(&self, buf: &mut [u8], offset: u64) -> ServeResult<()> {
        let arrived = Instant::now();
        self.check_range(offset, buf.len() as u64)?;
        if buf.is_empty() {
            return Ok(());
        }
        READ_PLAN.with(|plan| {
            let mut plan = plan.borrow_mut();
            let (done, gate) = {
                let mut state = self.lock()?;
                let at = self.arrival(&mut state, arrived);
                if state.session.drive().read_needs_program(offset, buf.len() as u64) {
                    // Data still in a partly filled unit is programmed before it is read (no
                    // read completes before its data's program): a flush, journaled so that
                    // recovery redoes it, and the read itself then changes nothing.
                    state.session.flush_at(at);
                    self.journal(&mut state, at, Op::Flush)?;
                }
                let State { session, extents, .. } = &mut *state;
                plan.locate(session.drive().translation(), extents, offset, buf.len() as u64)
                    .map_err(|e| ServeError::new(libc::EIO, format!("cannot locate the data of a read at byte {offset}: {e}")))?;
                let io = Io { op: IoOp::Read, offset_bytes: offset, len_bytes: buf.len() as u64 };
                let now = session.now_ns();
                let done = session.drive_mut().submit(&io, at.max(now))?;
                state.stats.record_read(at, done, buf.len() as u64);
                state.last_done_ns = state.last_done_ns.max(done);
                (done, self.gate.read().unwrap_or_else(|p| p.into_inner()))
            };
            plan.read_into(&self.read_file, buf).map_err(|e| ServeError::new(libc::EIO, format!("cannot read the data at byte {offset}: {e}")))?;
            drop(gate);
            self.wait_until(done);
            Ok(())
        })
    }

    /// Write `data` at `offset`; with `fua`, durable before the reply.
    pub fn write(&self, data: &[u8], offset: u64, fua: bool) -> ServeResult<()> {
        let arrived = Instant::now();
        self.check_range(offset, data.len() as u64)?;
        self.check_space(data.len() as u64)?;
        // Whole sectors are hashed and compressed here, before taking the drive's lock, so
        // requests in flight do that work in parallel.
        let sector = SECTOR_BYTES as u64;
        let prepared = (offset.is_multiple_of(sector) && (data.len() as u64).is_multiple_of(sector))
            .then(|| data.chunks(SECTOR_BYTES).map(SectorContent::from_bytes).collect::<std::collections::VecDeque<_>>());
        let done = {
            let mut state = self.lock()?;
            Self::fail_if_broken(&state)?;
            state.writes_seen += 1;
            if self.cut_at_write == Some(state.writes_seen) {
                return Err(self.cut_during_write(&mut state, data, offset));
            }
            let at = self.arrival(&mut state, arrived);
            let mut done = self.write_locked(&mut state, data, offset, prepared, at)?;
            if fua {
                done = self.make_durable(&mut state, done)?;
            }
            state.stats.record_write(at, done, data.len() as u64);
            state.last_done_ns = state.last_done_ns.max(done);
            done
        };
        // The runs of data this and earlier writes completed are copied into the file here,
        // outside the drive's lock (anything that needs them on file first writes them itself).
        if let Err(e) = self.runs.drain() {
            // Data the journal will point at did not reach the file: no more writes.
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            return Err(Self::broke(&mut state, Error::Io(format!("cannot write data to the backing file: {e}"))));
        }
        self.wait_until(done);
        Ok(())
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
            None => state.session.sector_contents(offset, data)?,
        };
        let sectors = contents.iter().map(SectorDesc::of).collect();
        let done = state.session.write_contents_at(offset, data.len() as u64, &mut contents, at).map_err(|e| Self::broke(state, e))?;
        self.journal(state, at, Op::Write { offset, len: data.len() as u64, sectors })?;
        Ok(done)
    }

    /// The seeded power cut, during this write: with shorn writes, its first half is written
    /// and made durable first.
    fn cut_during_write(&self, state: &mut State, data: &[u8], offset: u64) -> ServeError {
        let half = (data.len() / 2) / 512 * 512;
        if self.faults.shorn_writes && half > 0 {
            let at = self.arrival(state, Instant::now());
            if self.write_locked(state, &data[..half], offset, None, at).is_ok() {
                let _ = Self::commit(state, true);
            }
        }
        let message = self.cut_locked(state);
        ServeError::new(libc::EIO, format!("{message} (seeded cut during write {})", state.writes_seen))
    }

    /// Flush the drive at `at_ns` and make everything before durable (journal and data, synced),
    /// unless the drive lies about flushes. Returns the simulated completion.
    fn make_durable(&self, state: &mut State, at_ns: Nanoseconds) -> ServeResult<Nanoseconds> {
        let done = state.session.flush_at(at_ns);
        if let Some(failure) = state.session.drive().data_failure() {
            return Err(ServeError::new(libc::EIO, failure.to_string()));
        }
        self.journal(state, at_ns, Op::Flush)?;
        if !self.faults.lying_flush {
            Self::commit(state, true)?;
        }
        Ok(done)
    }

    /// FLUSH: everything written before is durable in the backing file when this returns.
    pub fn flush(&self) -> ServeResult<()> {
        let arrived = Instant::now();
        let done = {
            let mut state = self.lock()?;
            if let Some(why) = &state.broken {
                // The journal no longer describes the drive: nothing more can be made durable.
                return Err(ServeError::new(libc::EIO, format!("cannot flush: the drive stopped taking writes: {why}")));
            }
            let at = self.arrival(&mut state, arrived);
            let done = self.make_durable(&mut state, at)?;
            state.stats.record_flush(at, done);
            state.last_done_ns = state.last_done_ns.max(done);
            done
        };
        self.wait_until(done);
        Ok(())
    }

    /// TRIM `len` bytes at `offset` (whole 4 KiB sectors inside the range are deallocated).
    pub fn trim(&self, len: u64, offset: u64, fua: bool) -> ServeResult<()> {
        let arrived = Instant::now();
        self.check_range(offset, len)?;
        let done = {
            let mut state = self.lock()?;
            Self::fail_if_broken(&state)?;
            let at = self.arrival(&mut state, arrived);
            let mut done = state.session.trim_at(offset, len, at).map_err(|e| Self::broke(&mut state, e))?;
            self.journal(&mut state, at, Op::Trim { offset, len })?;
            if fua {
                done = self.make_durable(&mut state, done)?;
            }
            state.stats.record_trim(at, done, len);
            state.last_done_ns = state.last_done_ns.max(done);
            done
        };
        self.wait_until(done);
        Ok(())
    }

    /// WRITE ZEROES. A data-reduction drive stores nothing for zero sectors (always fast);
    /// another drive trims whole sectors when `may_trim` and writes zeros elsewhere; with
    /// `fast`, a zeroing that would write flash is refused (ENOTSUP) so the client can do it
    /// another way.
    pub fn zero(&self, len: u64, offset: u64, may_trim: bool, fast: bool, fua: bool) -> ServeResult<()> {
        self.check_range(offset, len)?;
        let sector = SECTOR_BYTES as u64;
        let (inner_start, inner_end) = (offset.div_ceil(sector) * sector, (offset + len) / sector * sector);
        let trims = !self.reduction && may_trim && inner_end > inner_start;
        let written = if trims { len - (inner_end - inner_start) } else { len };
        if fast && !self.reduction && written > 0 {
            return Err(ServeError::new(libc::ENOTSUP, "this drive writes zeros to flash: not a fast zero"));
        }
        if trims {
            self.trim(inner_end - inner_start, inner_start, false)?;
            if inner_start > offset {
                self.write_zeros(offset, inner_start - offset, false)?;
            }
            if offset + len > inner_end {
                self.write_zeros(inner_end, offset + len - inner_end, false)?;
            }
            if fua {
                self.flush()?;
            }
            return Ok(());
        }
        self.write_zeros(offset, len, fua)
    }

    fn write_zeros(&self, offset: u64, len: u64, fua: bool) -> ServeResult<()> {
        let mut done = 0;
        while done < len {
            let piece = ZERO_PIECE_BYTES.min(len - done);
            self.write(&vec![0u8; piece as usize], offset + done, fua && done + piece == len)?;
            done += piece;
        }
        Ok(())
    }

    /// The extents of `[offset, offset + len)`: runs of data and of holes that read as zeros.
    pub fn extents(&self, len: u64, offset: u64) -> ServeResult<Vec<(u64, u64, ExtentKind)>> {
        let end = offset.saturating_add(len).min(self.capacity_bytes);
        if offset >= end {
            return Err(ServeError::new(libc::EINVAL, format!("extents at byte {offset} beyond the export")));
        }
        let state = self.lock()?;
        let translation = state.session.drive().translation();
        let sector = SECTOR_BYTES as u64;
        let mut out: Vec<(u64, u64, ExtentKind)> = Vec::new();
        let mut lba = offset / sector;
        while lba * sector < end {
            let kind = match translation.data_location(lba) {
                DataLocation::Zeros => ExtentKind::HoleZero,
                DataLocation::At { .. } => ExtentKind::Data,
            };
            let from = (lba * sector).max(offset);
            let to = ((lba + 1) * sector).min(end);
            match out.last_mut() {
                Some(last) if last.2 == kind => last.1 += to - from,
                _ => out.push((from, to - from, kind)),
            }
            lba += 1;
        }
        Ok(out)
    }

    /// The live summary (the keys of `ssdlab run --json` that apply to a served drive).
    pub fn stats_json(&self) -> String {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut summary = state.stats.summary(&state.session, state.backing.path());
        let host = state.session.drive().counters().host_write_bytes;
        summary["metadata_write_bytes"] = state.backing.metadata_bytes().into();
        summary["metadata_write_amplification"] = if host > 0 { (state.backing.metadata_bytes() as f64 / host as f64).into() } else { serde_json::Value::Null };
        summary["power_loss_protection"] = self.protected.into();
        summary["recovery"] = serde_json::to_value(&state.recovery).unwrap_or_default();
        summary["latency_mode"] = if self.latency == Latency::Emulate { "emulate" } else { "none" }.into();
        let (quick, held) = (self.quick_round_trip_ns.load(Ordering::Relaxed), self.transport_ns.load(Ordering::Relaxed));
        summary["transport_round_trip_us"] = if quick > 0 {
            serde_json::json!({"quick": quick as f64 / 1e3, "held": held as f64 / 1e3, "subtracted": if self.latency == Latency::Emulate { held as f64 / 1e3 } else { 0.0 }})
        } else {
            serde_json::Value::Null
        };
        let (answered, late) = (self.answered.load(Ordering::Relaxed), self.late.load(Ordering::Relaxed));
        summary["late_replies"] = serde_json::json!({
            "answered": answered,
            "late": late,
            "late_fraction": if answered > 0 { late as f64 / answered as f64 } else { 0.0 },
            "mean_late_us": if late > 0 { self.late_total_ns.load(Ordering::Relaxed) as f64 / late as f64 / 1e3 } else { 0.0 },
            "max_late_us": self.late_max_ns.load(Ordering::Relaxed) as f64 / 1e3,
        });
        summary.to_string()
    }

    /// The per-second series so far, as CSV.
    pub fn series_csv(&self) -> String {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.stats.series_csv()
    }

    /// Clean shutdown: everything written is made durable, a checkpoint of the drive is
    /// written, and the file is marked cleanly shut down. Later requests are refused.
    pub fn shutdown(&self) -> Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.closed {
            return Ok(());
        }
        state.closed = true;
        Self::checkpoint(&mut state, true).map_err(|e| Error::Io(e.message))
    }
}
