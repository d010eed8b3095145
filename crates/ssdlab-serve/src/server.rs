//! The server behind the block device: one simulated drive (a [`Session`] storing its data in
//! the backing file) shared by every connection, with the NBD operations on it, two clocks,
//! statistics and a clean shutdown. Free of nbdkit: the plugin crate only adapts it.

mod durability;
mod preconditioning;

use crate::backing::{BackingFile, DriveIdentity};
use crate::clock::{monotonic_ns, Clock, RoundTrip};
use crate::commit::{CommitJob, Committer};
use crate::extents::Extents;
use crate::generated::Generated;
use crate::host::HostFile;
use crate::journal::RecordEncoder;
use crate::pending::Pending;
use crate::read_plan::ReadPlan;
use crate::recovery::{self, RecoveryReport};
use crate::stats::ServeStats;
use ssdlab_core::{bail, Error, Nanoseconds, Result, SimRng};
use ssdlab_drive::{DriveOptions, Session};
use ssdlab_ftl::DataLocation;
use ssdlab_reduce::{ContentMode, SectorContent, SECTOR_BYTES};
use ssdlab_workload::{Io, Op as IoOp};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

thread_local! {
    /// Each serving thread's read plan, reused from one request to the next.
    static READ_PLAN: RefCell<ReadPlan> = RefCell::new(ReadPlan::default());
    /// Each serving thread's queue of prepared sector contents, reused.
    static PREPARED: RefCell<std::collections::VecDeque<SectorContent>> = const { RefCell::new(std::collections::VecDeque::new()) };
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
    /// Start from a secure-erased drive (empty, factory fresh), whatever the backing file held:
    /// the way back from the dead-device fault.
    pub secure_erase: bool,
    /// Preconditioning steps done at start by the untimed fast-forward, as `ssdlab run
    /// --precondition` does them (crate::precondition); refused on a file that holds data
    /// unless with `secure_erase`.
    pub precondition: Vec<String>,
    /// Write whole 128 KiB units of data bypassing the page cache (`O_DIRECT`) where the file
    /// system allows it (`serve --direct-data`; off by default: reads then come from the disk,
    /// docs/backing-file.md).
    pub direct_data: bool,
}

/// Failure modes of flawed drives, for the power-cut lab (docs/power-loss.md): the failure
/// classes of Zheng et al., "Understanding the robustness of SSDs under power fault" (FAST'13),
/// each with the probability that it strikes at a power cut (0: off, the default).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Faults {
    /// FLUSH and FUA are acknowledged without programming anything; at a cut the acknowledged
    /// data still in the volatile buffer is lost (else the drive happened to keep it).
    pub lying_flush: f64,
    /// A cut during a multi-sector write leaves its first half written (a shorn write).
    pub shorn_writes: f64,
    /// A later write survives while an earlier acknowledged one is lost (its data unreadable).
    pub unserializable_writes: f64,
    /// The drive's map reverts to an older state: operations after an earlier journal batch
    /// are forgotten though their blocks were reused since (older mappings, wrong data).
    pub metadata_corruption: f64,
    /// The drive is dead after the cut: every request fails until a secure erase.
    pub dead_device: f64,
}

/// The fault names `--fault` takes.
pub const FAULT_NAMES: [&str; 5] = ["lying-flush", "shorn-writes", "unserializable-writes", "metadata-corruption", "dead-device"];

impl Faults {
    /// Parse a comma-separated list of `NAME` or `NAME=P` (P the probability per cut, in
    /// (0, 1]; 1 when not given); empty: none.
    pub fn parse(text: &str) -> Result<Self> {
        let mut faults = Self::default();
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let (name, p) = match word.split_once('=') {
                Some((name, p)) => {
                    let p: f64 = p
                        .trim()
                        .parse()
                        .ok()
                        .filter(|p: &f64| *p > 0.0 && *p <= 1.0)
                        .ok_or_else(|| Error::Config(format!("fault {name}: probability `{p}` is not a number in (0, 1]")))?;
                    (name.trim(), p)
                }
                None => (word, 1.0),
            };
            let slot = match name {
                "lying-flush" => &mut faults.lying_flush,
                "shorn-writes" => &mut faults.shorn_writes,
                "unserializable-writes" => &mut faults.unserializable_writes,
                "metadata-corruption" => &mut faults.metadata_corruption,
                "dead-device" => &mut faults.dead_device,
                other => bail!(Config, "fault: unknown failure mode `{other}` (expected {})", FAULT_NAMES.join(", ")),
            };
            *slot = p;
        }
        Ok(faults)
    }
}

/// Records buffered before a synced commit is due.
const COMMIT_RECORD_BYTES: u64 = 4 << 20;
/// Journal bytes after which the next operation takes a checkpoint (the journal starts again).
const CHECKPOINT_JOURNAL_BYTES: u64 = 64 << 20;
/// Bytes of freed extents (erased or emptied blocks) waiting for a synced commit after which
/// the server takes one (at most an eighth of the drive's blocks): until then they cannot be
/// reused, and new data goes to fresh extents.
const RELEASE_COMMIT_BYTES: u64 = 256 << 20;

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

/// Writes remembered for the unserializable-writes fault.
const RECENT_WRITES: usize = 1024;

/// Bytes of zeros written per piece of a large write-zeroes.
const ZERO_PIECE_BYTES: u64 = 32 << 20;

impl Server {
    /// Build the drive, or restore it from its backing file (recovering it from its checkpoint
    /// and journal after an unclean stop), and open the file.
    pub fn start(config: &ServeConfig) -> Result<Self> {
        Self::start_with(config, None)
    }

    /// [`Server::start`] on a backing file the host already opened (the host-crash tests give a
    /// [`crate::CrashFile`]); `config.backing` only names it in messages.
    pub fn start_on(config: &ServeConfig, file: Arc<dyn HostFile>) -> Result<Self> {
        Self::start_with(config, Some(file))
    }

    fn start_with(config: &ServeConfig, file: Option<Arc<dyn HostFile>>) -> Result<Self> {
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
        let mut backing = match file {
            Some(file) => {
                if config.secure_erase {
                    file.set_len(0).map_err(|e| Error::Io(format!("{}: cannot secure-erase the backing file: {e}", config.backing)))?;
                }
                BackingFile::on(file, &config.backing, &identity, config.seed)?
            }
            None => BackingFile::open(&config.backing, &identity, config.seed, config.secure_erase, config.direct_data)?,
        };
        let options = DriveOptions { content: ContentMode::Real, store_data: true, ..DriveOptions::default() };
        let reduction = profile.reduction.is_some();
        let protected = profile.controller.power_loss_protection;
        let gc_headroom_bytes = 2 * block_bytes * g.dies() as u64;
        let capacity_bytes = profile.capacity_bytes_user;
        let blocks = g.total_blocks();
        let mut restored = recovery::restore(&mut backing, profile.clone(), options)?;
        let preconditioned = !config.precondition.is_empty();
        if preconditioned {
            preconditioning::start(config, profile, options, &mut restored, backing.header().seed)?;
        }
        let mut session = restored.session;
        session.drive_mut().attach_data_plane(Box::new(restored.extents.plane()));
        // Blocks emptied while programmed give up their extents (Extents::recycle_emptied).
        session.drive_mut().track_emptied_blocks(true);
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
            pending: Pending::default(),
            jobs: Vec::new(),
            flushed_before: 0,
            dead: false,
            recent_writes: std::collections::VecDeque::new(),
            next_seq: restored.next_seq,
            writes_seen: 0,
            request_from: None,
            powered_off: false,
            broken: None,
            recovery: restored.report,
            generated: restored.generated,
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
        state.dead = state.backing.is_dead();
        state.backing.mark_in_use()?;
        let gate = state.extents.gate();
        let read_file = state.extents.file_for_reads();
        let runs = state.extents.clone();
        let server = Self {
            gate,
            read_file,
            runs,
            committer: Committer::default(),
            clock: Clock::new(config.latency == Latency::Emulate, base_ns),
            space_budget: std::sync::atomic::AtomicI64::new(0),
            space_checked_ms: AtomicU64::new(0),
            state: Mutex::new(state),
            capacity_bytes,
            reduction,
            gc_headroom_bytes,
            backing_path: config.backing.clone(),
            protected,
            faults: config.faults,
            seed: config.seed,
            cut_at_write,
            release_commit_extents: (RELEASE_COMMIT_BYTES / block_bytes).clamp(1, (blocks / 8).max(1) as u64) as usize,
        };
        if preconditioned {
            // Durable before anything is served: the journal that follows starts from it.
            let mut state = server.state.lock().unwrap_or_else(|p| p.into_inner());
            server.checkpoint(&mut state, false).map_err(|e| Error::Io(e.message))?;
        }
        Ok(server)
    }

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

    fn lock(&self) -> ServeResult<MutexGuard<'_, State>> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.closed {
            return Err(ServeError::new(libc::ESHUTDOWN, "the server is shutting down"));
        }
        if state.dead {
            return Err(ServeError::new(
                libc::EIO,
                format!(
                    "the drive does not answer since its power cut (the dead-device fault); serve {} with --secure-erase to use it again, empty",
                    self.backing_path
                ),
            ));
        }
        Ok(state)
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

    fn check_range(&self, offset: u64, len: u64) -> ServeResult<()> {
        self.check_bounds(offset, len)?;
        if !offset.is_multiple_of(512) || !len.is_multiple_of(512) {
            return Err(ServeError::new(libc::EINVAL, format!("request at byte {offset} of {len} bytes is not in whole 512-byte sectors")));
        }
        Ok(())
    }

    fn check_bounds(&self, offset: u64, len: u64) -> ServeResult<()> {
        if offset.checked_add(len).is_none_or(|end| end > self.capacity_bytes) {
            return Err(ServeError::new(libc::EINVAL, format!("request at byte {offset} of {len} bytes is beyond the export's {} bytes", self.capacity_bytes)));
        }
        Ok(())
    }

    /// Refuse a write the backing file system may not have room for (the write itself and the
    /// GC moves it may cause), before the drive changes anything. The file system's free space
    /// is read again only when the writes since the last look could have used half of what was
    /// then to spare, or a second has passed (a `statfs` per request was 6% of a 4 KiB write's
    /// time: BENCHMARKS.md, issue 24).
    fn check_space(&self, len: u64) -> ServeResult<()> {
        let need = len.saturating_mul(2);
        let left = self.space_budget.fetch_sub(need.min(i64::MAX as u64) as i64, Ordering::Relaxed) - need as i64;
        let now_ms = self.clock.elapsed_ms();
        if left >= 0 && now_ms < self.space_checked_ms.load(Ordering::Relaxed) + 1000 {
            return Ok(());
        }
        let Some(free) = self.read_file.free_bytes() else {
            return Ok(()); // cannot tell: let the write try
        };
        self.space_checked_ms.store(now_ms, Ordering::Relaxed);
        let spare = free.saturating_sub(need + self.gc_headroom_bytes);
        self.space_budget.store((spare / 2).min(i64::MAX as u64) as i64, Ordering::Relaxed);
        if free < need + self.gc_headroom_bytes {
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
        let visit = self.clock.visit();
        let arrived = visit.arrived_ns();
        self.check_range(offset, buf.len() as u64)?;
        if buf.is_empty() {
            return Ok(());
        }
        READ_PLAN.with(|plan| {
            let mut plan = plan.borrow_mut();
            loop {
                let located = {
                    let mut state = self.lock()?;
                    let at = self.arrival(&mut state, arrived);
                    if state.session.drive().read_needs_program(offset, buf.len() as u64) {
                        // Data still in a partly filled unit is programmed before it is read
                        // (no read completes before its data's program): a flush, journaled so
                        // that recovery redoes it. Its commit is done outside the lock and
                        // before the extent gate is taken (a commit may release extents, which
                        // waits for the gate's readers), then the read starts again.
                        Self::fail_if_broken(&state)?;
                        RecordEncoder::flush(Self::begin_record(&mut state, at));
                        state.session.flush_at(at);
                        self.end_record(&mut state, None)?;
                        Err(std::mem::take(&mut state.jobs))
                    } else {
                        let State { session, extents, generated, .. } = &mut *state;
                        let generated = generated.as_ref().filter(|g| g.any_in(offset, buf.len() as u64));
                        plan.locate(session.drive().translation(), extents, offset, buf.len() as u64, &|lba| generated.is_some_and(|g| g.contains(lba)))
                            .map_err(|e| ServeError::new(libc::EIO, format!("cannot locate the data of a read at byte {offset}: {e}")))?;
                        let fill = generated.map(|g| preconditioning::generated_in(g, offset, buf.len() as u64));
                        let io = Io { op: IoOp::Read, offset_bytes: offset, len_bytes: buf.len() as u64 };
                        let now = session.now_ns();
                        let done = session.drive_mut().submit(&io, at.max(now))?;
                        state.stats.record_read(at, done, buf.len() as u64);
                        state.last_done_ns = state.last_done_ns.max(done);
                        Ok((done, fill, self.gate.read().unwrap_or_else(|p| p.into_inner())))
                    }
                };
                match located {
                    Err(jobs) => self.finish_jobs(jobs)?,
                    Ok((done, fill, gate)) => {
                        plan.read_into(&*self.read_file, buf).map_err(|e| ServeError::new(libc::EIO, format!("cannot read the data at byte {offset}: {e}")))?;
                        drop(gate);
                        if let Some(fill) = fill {
                            preconditioning::fill(&fill, offset, buf);
                        }
                        self.wait_until(done);
                        return Ok(());
                    }
                }
            }
        })
    }

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
        let (done, jobs) = {
            let mut state = self.lock()?;
            let done = self.write_in(&mut state, data, offset, fua, prepared, arrived);
            (done, std::mem::take(&mut state.jobs))
        };
        self.finish_write_request(done, jobs)
    }

    /// After a request that wrote data left the drive's lock: the runs of data it and earlier
    /// writes completed are copied into the file here, outside the lock (anything that needs
    /// them on file first writes them itself), then the commits it took are done, then the
    /// reply waits for its simulated completion (emulated latency).
    fn finish_write_request(&self, done: ServeResult<Nanoseconds>, jobs: Vec<CommitJob>) -> ServeResult<()> {
        if let Err(e) = self.runs.drain() {
            // Data the journal will point at did not reach the file: no more writes.
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            let _ = self.run_jobs(jobs);
            return Err(Self::broke(&mut state, Error::Io(format!("cannot write data to the backing file: {e}"))));
        }
        let finished = self.finish_jobs(jobs);
        let done = done?;
        finished?;
        self.wait_until(done);
        Ok(())
    }

    fn write_in(
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

    /// Flush the drive at `at_ns` and make everything before durable (journal and data, synced).
    /// A drive that lies about flushes (the lying-flush fault) acknowledges at once and
    /// programs nothing. Returns the simulated completion.
    fn make_durable(&self, state: &mut State, at_ns: Nanoseconds) -> ServeResult<Nanoseconds> {
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
        let (done, jobs) = {
            let mut state = self.lock()?;
            let done = (|| -> ServeResult<Nanoseconds> {
                if let Some(why) = &state.broken {
                    // The journal no longer describes the drive: nothing more can be made durable.
                    return Err(ServeError::new(libc::EIO, format!("cannot flush: the drive stopped taking writes: {why}")));
                }
                let at = self.arrival(&mut state, arrived);
                let done = self.make_durable(&mut state, at)?;
                state.stats.record_flush(at, done);
                state.last_done_ns = state.last_done_ns.max(done);
                Ok(done)
            })();
            (done, std::mem::take(&mut state.jobs))
        };
        let finished = self.finish_jobs(jobs);
        let done = done?;
        finished?;
        self.wait_until(done);
        Ok(())
    }

    /// TRIM `len` bytes at `offset` (whole 4 KiB sectors inside the range are deallocated). Any
    /// byte range inside the export is taken, the drive given its whole 512-byte sectors: a TRIM
    /// is advisory and its partly covered sectors are kept anyway, and qemu sends the unaligned
    /// head and tail of a discard as trims of their own, failing the whole discard on EINVAL.
    pub fn trim(&self, len: u64, offset: u64, fua: bool) -> ServeResult<()> {
        let visit = self.clock.visit();
        let arrived = visit.arrived_ns();
        self.check_bounds(offset, len)?;
        let (start, end) = (offset.next_multiple_of(512), (offset + len) / 512 * 512);
        if end <= start {
            return Ok(()); // not one whole 512-byte sector: nothing to deallocate
        }
        let (offset, len) = (start, end - start);
        let (done, jobs) = {
            let mut state = self.lock()?;
            let done = self.trim_in(&mut state, offset, len, fua, arrived);
            (done, std::mem::take(&mut state.jobs))
        };
        let finished = self.finish_jobs(jobs);
        let done = done?;
        finished?;
        self.wait_until(done);
        Ok(())
    }

    /// The TRIM of whole 512-byte sectors `[offset, offset + len)`, under the drive's lock.
    fn trim_in(&self, state: &mut State, offset: u64, len: u64, fua: bool, arrived: u64) -> ServeResult<Nanoseconds> {
        Self::fail_if_broken(state)?;
        let at = self.arrival(state, arrived);
        RecordEncoder::trim(Self::begin_record(state, at), offset, len);
        let mut done = state.session.trim_at(offset, len, at).map_err(|e| {
            state.pending.abort();
            Self::broke(state, e)
        })?;
        if let Some(g) = state.generated.as_mut() {
            g.trimmed(offset, len);
        }
        self.end_record(state, None)?;
        if fua {
            done = self.make_durable(state, done)?;
        }
        state.stats.record_trim(at, done, len);
        state.last_done_ns = state.last_done_ns.max(done);
        Ok(done)
    }

    /// WRITE ZEROES. A data-reduction drive stores nothing for zero sectors (always fast);
    /// another drive trims whole sectors when `may_trim` and writes zeros elsewhere; with
    /// `fast`, a zeroing that would write flash is refused (ENOTSUP) so the client can do it
    /// another way.
    ///
    /// The request is one operation for the durability rules: its TRIM and its writes of zeros
    /// are done under one hold of the drive's lock, and a power cut keeps all of them or none
    /// (docs/power-loss.md).
    pub fn zero(&self, len: u64, offset: u64, may_trim: bool, fast: bool, fua: bool) -> ServeResult<()> {
        let visit = self.clock.visit();
        let arrived = visit.arrived_ns();
        self.check_range(offset, len)?;
        let sector = SECTOR_BYTES as u64;
        let (inner_start, inner_end) = (offset.div_ceil(sector) * sector, (offset + len) / sector * sector);
        let trims = !self.reduction && may_trim && inner_end > inner_start;
        let written = if trims { len - (inner_end - inner_start) } else { len };
        if fast && !self.reduction && written > 0 {
            return Err(ServeError::new(libc::ENOTSUP, "this drive writes zeros to flash: not a fast zero"));
        }
        self.check_space(written)?;
        // The pieces: a TRIM of the whole sectors inside, zeros written around it; or zeros
        // written over all of it.
        let mut pieces: Vec<(u64, u64, bool)> = Vec::new();
        if trims {
            pieces.push((inner_start, inner_end - inner_start, true));
            pieces.extend([(offset, inner_start - offset, false), (inner_end, offset + len - inner_end, false)].into_iter().filter(|p| p.1 > 0));
        } else {
            pieces.push((offset, len, false));
        }
        let (done, jobs) = {
            let mut state = self.lock()?;
            Self::begin_request(&mut state);
            let done = (|| -> ServeResult<Nanoseconds> {
                let mut done = 0;
                for &(at, bytes, trim) in &pieces {
                    if trim {
                        done = self.trim_in(&mut state, at, bytes, false, arrived)?;
                        continue;
                    }
                    let mut put = 0;
                    while put < bytes {
                        let piece = ZERO_PIECE_BYTES.min(bytes - put);
                        done = self.write_in(&mut state, &vec![0u8; piece as usize], at + put, false, None, arrived)?;
                        put += piece;
                    }
                }
                Ok(done)
            })();
            let done = done.and_then(|done| {
                self.end_request(&mut state)?;
                if fua {
                    return self.make_durable(&mut state, done);
                }
                Ok(done)
            });
            // A part that failed leaves the request's records to the next cut or commit.
            state.request_from = None;
            (done, std::mem::take(&mut state.jobs))
        };
        self.finish_write_request(done, jobs)
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
        summary["data_waiting_peak_bytes"] = self.runs.waiting_peak_bytes().into();
        summary["extents"] = serde_json::to_value(self.runs.tally()).unwrap_or_default();
        let (direct, buffered) = self.runs.written_bytes();
        summary["data_direct_write_bytes"] = direct.into();
        summary["data_buffered_write_bytes"] = buffered.into();
        summary["data_direct_writes"] = match self.runs.direct_unavailable() {
            None => "on: whole 128 KiB units bypass the page cache (O_DIRECT)".to_string(),
            Some(why) => format!("off: {why}"),
        }
        .into();
        summary["recovery"] = serde_json::to_value(&state.recovery).unwrap_or_default();
        summary["dead"] = state.dead.into();
        summary["latency_mode"] = if self.clock.emulates() { "emulate" } else { "none" }.into();
        let (transport, late) = self.clock.stats();
        summary["transport_round_trip_us"] = transport;
        summary["late_replies"] = late;
        summary["client_gap"] = self.clock.client_gaps();
        summary["precondition"] = preconditioning::summary(state.generated.as_ref());
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
        self.checkpoint(&mut state, true).map_err(|e| Error::Io(e.message))
    }
}

/// A digest (FNV-1a over every logical sector's data location) of where a session's drive
/// holds each sector: `Server::mapping_digest` of a served drive, or of a simulator session to
/// compare with one.
pub fn mapping_digest_of(session: &Session) -> u64 {
    let t = session.drive().translation();
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
