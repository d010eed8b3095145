//! The server behind the block device: one simulated drive (a [`Session`] storing its data in
//! the backing file) shared by every connection, with the NBD operations on it, two clocks,
//! statistics and a clean shutdown. Free of nbdkit: the plugin crate only adapts it.

use crate::backing::{BackingFile, DriveIdentity};
use crate::stats::ServeStats;
use ssdlab_core::{bail, Error, Nanoseconds, Result};
use ssdlab_drive::{Drive, DriveOptions, Session};
use ssdlab_ftl::DataLocation;
use ssdlab_reduce::{ContentMode, SectorContent, SECTOR_BYTES};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

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
    /// Seed of the session (a new backing file).
    pub seed: u64,
}

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
    last_arrival_ns: Nanoseconds,
    last_done_ns: Nanoseconds,
    stats: ServeStats,
    closed: bool,
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
}

/// How long before a due time emulated latency stops sleeping and yields instead.
const SPIN: Duration = Duration::from_micros(60);

/// Bytes of zeros written per piece of a large write-zeroes.
const ZERO_PIECE_BYTES: u64 = 32 << 20;

impl Server {
    /// Build (or restore) the drive and open its backing file.
    pub fn start(config: &ServeConfig) -> Result<Self> {
        let profile = ssdlab_profile::load_profile(&config.profile, &config.overrides)?;
        let identity = DriveIdentity {
            profile_name: profile.name.clone(),
            profile_hash: ssdlab_reduce::fingerprint(profile.source.as_bytes()) as u64,
            raw_bytes: profile.raw_bytes(),
            capacity_bytes_user: profile.capacity_bytes_user,
        };
        let mut backing = BackingFile::open(&config.backing, &identity)?;
        let options = DriveOptions { content: ContentMode::Real, store_data: true, ..DriveOptions::default() };
        let reduction = profile.reduction.is_some();
        let g = &profile.geometry;
        let gc_headroom_bytes = 2 * g.unit_bytes() * g.units_per_block() as u64 * g.dies() as u64;
        let capacity_bytes = profile.capacity_bytes_user;
        let saved = if backing.existed() { backing.saved_state()? } else { None };
        let mut session = match saved {
            Some((bytes, saved)) => {
                let drive = Drive::load(profile, options, &mut bytes.as_slice()).map_err(|e| Error::Io(format!("{}: {e}", config.backing)))?;
                Session::from_drive(drive, saved.seed, saved.now_ns)
            }
            None => Session::new(profile, options, config.seed)?,
        };
        session.drive_mut().attach_data_plane(Box::new(backing.data_plane()?));
        backing.mark_in_use()?;
        let base_ns = session.now_ns();
        if config.latency == Latency::Emulate {
            // Sleeps end within a microsecond of when asked, not the default 50 us later.
            // SAFETY: prctl with PR_SET_TIMERSLACK takes a plain integer; no memory involved.
            unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
        }
        Ok(Self {
            state: Mutex::new(State { session, backing, last_arrival_ns: base_ns, last_done_ns: base_ns, stats: ServeStats::new(base_ns), closed: false }),
            start: Instant::now(),
            base_ns,
            latency: config.latency,
            capacity_bytes,
            reduction,
            gc_headroom_bytes,
            backing_path: config.backing.clone(),
        })
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

    /// When a request that arrives now arrives in simulated time.
    fn arrival(&self, state: &mut State) -> Nanoseconds {
        let at = match self.latency {
            Latency::Emulate => self.base_ns + self.start.elapsed().as_nanos() as Nanoseconds,
            // As fast as the host allows: each request after the one before has completed, so
            // the simulated drive is never handed more than it can do.
            Latency::None => state.last_done_ns,
        };
        let at = at.max(state.last_arrival_ns);
        state.last_arrival_ns = at;
        at
    }

    /// Wait until the wall time matching simulated time `done_ns` (emulated latency): sleep
    /// until shortly before, then yield until it (a plain sleep overshoots by the timer slack,
    /// tens of microseconds, which would add to every emulated latency).
    fn wait_until(&self, done_ns: Nanoseconds) {
        if self.latency != Latency::Emulate {
            return;
        }
        let due = Duration::from_nanos(done_ns.saturating_sub(self.base_ns));
        let elapsed = self.start.elapsed();
        if due > elapsed + SPIN {
            std::thread::sleep(due - elapsed - SPIN);
        }
        while self.start.elapsed() < due {
            std::thread::yield_now();
        }
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
        match state.session.drive().data_failure() {
            Some(failure) => Err(ServeError::new(libc::EIO, format!("the drive stopped taking writes after a data failure: {failure}"))),
            None => Ok(()),
        }
    }

    /// Read `buf.len()` bytes at `offset`.
    pub fn read(&self, buf: &mut [u8], offset: u64) -> ServeResult<()> {
        self.check_range(offset, buf.len() as u64)?;
        let done = {
            let mut state = self.lock()?;
            let at = self.arrival(&mut state);
            let (bytes, done) = state.session.read_bytes_at(offset, buf.len() as u64, at)?;
            buf.copy_from_slice(&bytes);
            state.stats.record_read(at, done, buf.len() as u64);
            state.last_done_ns = state.last_done_ns.max(done);
            done
        };
        self.wait_until(done);
        Ok(())
    }

    /// Write `data` at `offset`; with `fua`, durable before the reply.
    pub fn write(&self, data: &[u8], offset: u64, fua: bool) -> ServeResult<()> {
        self.check_range(offset, data.len() as u64)?;
        self.check_space(data.len() as u64)?;
        // Whole sectors are hashed and compressed here, before taking the drive's lock, so
        // requests in flight do that work in parallel.
        let sector = SECTOR_BYTES as u64;
        let mut prepared = (offset.is_multiple_of(sector) && (data.len() as u64).is_multiple_of(sector))
            .then(|| data.chunks(SECTOR_BYTES).map(SectorContent::from_bytes).collect::<std::collections::VecDeque<_>>());
        let done = {
            let mut state = self.lock()?;
            Self::fail_if_broken(&state)?;
            let at = self.arrival(&mut state);
            let mut done = match prepared.as_mut() {
                Some(contents) => state.session.write_sectors_at(offset, contents, at)?,
                None => state.session.write_bytes_at(offset, data, at)?,
            };
            if fua {
                done = Self::make_durable(&mut state, done)?;
            }
            state.stats.record_write(at, done, data.len() as u64);
            state.last_done_ns = state.last_done_ns.max(done);
            done
        };
        self.wait_until(done);
        Ok(())
    }

    /// Flush the drive at `at_ns` and sync the backing file. Returns the simulated completion.
    fn make_durable(state: &mut State, at_ns: Nanoseconds) -> ServeResult<Nanoseconds> {
        let done = state.session.flush_at(at_ns);
        if let Some(failure) = state.session.drive().data_failure() {
            return Err(ServeError::new(libc::EIO, failure.to_string()));
        }
        if let Some(plane) = state.session.drive_mut().data_plane_mut() {
            plane.sync().map_err(|e| ServeError::new(e.raw_os_error().unwrap_or(libc::EIO), format!("cannot sync the backing file: {e}")))?;
        }
        Ok(done)
    }

    /// FLUSH: everything written before is durable in the backing file when this returns.
    pub fn flush(&self) -> ServeResult<()> {
        let done = {
            let mut state = self.lock()?;
            let at = self.arrival(&mut state);
            let done = Self::make_durable(&mut state, at)?;
            state.stats.record_flush(at, done);
            state.last_done_ns = state.last_done_ns.max(done);
            done
        };
        self.wait_until(done);
        Ok(())
    }

    /// TRIM `len` bytes at `offset` (whole 4 KiB sectors inside the range are deallocated).
    pub fn trim(&self, len: u64, offset: u64, fua: bool) -> ServeResult<()> {
        self.check_range(offset, len)?;
        let done = {
            let mut state = self.lock()?;
            Self::fail_if_broken(&state)?;
            let at = self.arrival(&mut state);
            let mut done = state.session.trim_at(offset, len, at)?;
            if fua {
                done = Self::make_durable(&mut state, done)?;
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
        state.stats.summary(&state.session, state.backing.path()).to_string()
    }

    /// The per-second series so far, as CSV.
    pub fn series_csv(&self) -> String {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.stats.series_csv()
    }

    /// Clean shutdown: everything written is made durable, the drive's state is saved in the
    /// backing file, and the file is marked cleanly shut down. Later requests are refused.
    pub fn shutdown(&self) -> Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.closed {
            return Ok(());
        }
        state.closed = true;
        let at = state.last_done_ns.max(state.last_arrival_ns);
        let done = state.session.flush_at(at);
        state.session.advance_to(done);
        if let Some(plane) = state.session.drive_mut().data_plane_mut() {
            plane.sync().map_err(|e| Error::Io(format!("cannot sync the backing file: {e}")))?;
        }
        let (now, seed) = (state.session.now_ns(), state.session.seed());
        let State { session, backing, .. } = &mut *state;
        backing.save_and_close(&mut |out| session.drive().save_state(out), now, seed)
    }
}
