//! A drive with its simulated clock and the seed stream its jobs draw from: what every host of
//! the simulator drives (the Python binding, a block-device server, a sweep worker).
//!
//! The session owns simulated time: every operation starts at the session's present, and the
//! present moves to the operation's end. Each job or replay draws its own seed from the
//! session's seed, in order, unless it is given one.

use crate::drive::{Drive, DriveOptions};
use crate::fast_forward::{FastForward, FastForwardSummary};
use crate::replay::{ReplayMode, ReplaySummary, TraceRun};
use crate::run::{Run, RunSummary};
use serde::Serialize;
use ssdlab_core::time::seconds;
use ssdlab_core::{bail, Nanoseconds, Result, SimRng};
use ssdlab_profile::Profile;
use ssdlab_reduce::{ContentMode, ContentStream, DataPattern, SectorContent, SECTOR_BYTES};
use ssdlab_trace::TraceRecord;
use ssdlab_workload::{Io, JobSpec};

/// Facts about a session's drive: names, capacities, spare ratios, geometry, power.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DriveInfo {
    /// Profile name.
    pub name: String,
    /// Model name.
    pub model: String,
    /// Where the profile came from.
    pub origin: String,
    /// User capacity, bytes.
    pub capacity_bytes_user: u64,
    /// Bytes workloads may address.
    pub usable_bytes: u64,
    /// Raw NAND bytes.
    pub raw_bytes: u64,
    /// Fraction of user space kept unused as extra over-provisioning.
    pub reserved_user_fraction: f64,
    /// (raw - used) / used.
    pub spare_over_user: f64,
    /// (raw - used) / raw.
    pub spare_over_raw: f64,
    /// NAND channels.
    pub channels: u32,
    /// Dies.
    pub dies: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Bytes per page.
    pub page_bytes: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Blocks per die (multi-plane block groups).
    pub blocks_per_die: u32,
    /// NAND bus kind.
    pub bus: String,
    /// NAND bus rate, MB/s.
    pub bus_mbps: f64,
    /// Host interface kind.
    pub host_interface: String,
    /// Host link payload rate, MB/s.
    pub link_mbps: f64,
    /// Victim policy.
    pub gc_policy: String,
    /// When foreground GC runs: `paced`, `burst` or `background`.
    pub gc_schedule: String,
    /// Whether the data-reduction engine is on.
    pub data_reduction: bool,
    /// Power of the idle drive (controller, board and array), watts.
    pub idle_watts: f64,
    /// Bytes per ECC unit (data-reduction drives).
    pub ecc_unit_bytes: Option<u32>,
    /// `modeled` or `real`.
    pub content_mode: String,
    /// The profile's TOML text after overrides.
    pub source: String,
    /// Bytes of the tables the drive allocates when it is built (mapping table, reverse map or
    /// chunk table, fingerprint index, block tables): what the memory check counts. A running
    /// drive takes somewhat more (its queues and counters; a real-bytes drive its stored data).
    pub table_bytes: u64,
}

impl DriveInfo {
    /// The facts of a drive built from `p` with content mode `content`, without building it
    /// (its tables take seconds and gigabytes to make for a large drive).
    pub fn of(p: &Profile, content: ContentMode) -> Self {
        let g = &p.geometry;
        Self {
            name: p.name.clone(),
            model: p.model.clone(),
            origin: p.origin.clone(),
            capacity_bytes_user: p.capacity_bytes_user,
            usable_bytes: p.usable_bytes(),
            raw_bytes: p.raw_bytes(),
            reserved_user_fraction: p.reserved_user_fraction,
            spare_over_user: p.spare_over_user(),
            spare_over_raw: p.spare_over_raw(),
            channels: g.channels,
            dies: g.dies(),
            planes_per_die: g.planes_per_die,
            page_bytes: g.page_bytes,
            pages_per_block: g.pages_per_block,
            blocks_per_die: g.blocks_per_die(),
            bus: p.timing.bus.name().to_string(),
            bus_mbps: p.timing.bus_bytes_per_second as f64 / 1e6,
            host_interface: p.host.interface.name().to_string(),
            link_mbps: p.host.link_bytes_per_second as f64 / 1e6,
            gc_policy: p.ftl.gc_policy.name().to_string(),
            gc_schedule: p.ftl.gc_schedule.name().to_string(),
            data_reduction: p.reduction.is_some(),
            idle_watts: p.idle_watts(),
            ecc_unit_bytes: p.reduction.as_ref().map(|r| r.chunk.ecc_unit_bytes),
            content_mode: match content {
                ContentMode::Modeled => "modeled",
                ContentMode::Real => "real",
            }
            .to_string(),
            source: p.source.clone(),
            table_bytes: match &p.reduction {
                Some(reduction) => reduction.chunk.table_parts().iter().map(|&(_, bytes)| bytes).sum(),
                None => p.ftl.table_parts().iter().map(|&(_, bytes)| bytes).sum(),
            },
        }
    }
}

/// Wear summary.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct WearState {
    /// Fewest P/E cycles of any block.
    pub min: u32,
    /// Mean P/E cycles.
    pub mean: f64,
    /// Most P/E cycles of any block.
    pub max: u32,
}

/// Cumulative state of a session's drive.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DriveState {
    /// Simulated time since power-on, seconds.
    pub now_seconds: f64,
    /// Free blocks over the array.
    pub free_blocks: u64,
    /// Sectors holding data (valid slots or live chunks).
    pub valid_sectors: u64,
    /// Wear.
    pub wear: WearState,
    /// Bytes the host wrote.
    pub host_write_bytes: u64,
    /// Bytes the host read.
    pub host_read_bytes: u64,
    /// Bytes programmed (host and GC).
    pub nand_write_bytes: u64,
    /// Bytes read from NAND (host and GC).
    pub nand_read_bytes: u64,
    /// Block erases (per plane).
    pub block_erases: u64,
    /// Energy of flash operations so far, joules.
    pub operation_energy_joules: f64,
    /// Allocation units moved by GC.
    pub gc_moved: u64,
    /// Simulated time at which every die and channel has finished the NAND work booked so far
    /// (host commands, GC, folding), seconds; at or before `now_seconds` when the flash is idle.
    pub flash_idle_seconds: f64,
    /// The power state now (drives with power states only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_state: Option<crate::PowerStateNow>,
    /// Energy of the drive's base power since power-on (idle power in operational states, each
    /// non-operational state's power), joules (drives with power states only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_energy_joules: Option<f64>,
    /// Temperatures and throttling now (drives with a thermal model only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thermal: Option<crate::ThermalState>,
}

/// Mixed into a replay's seed for the content of its large writes (a stream of its own).
const LARGE_WRITES_SEED: u64 = 0x1a26_e000_0000_0001;

/// A drive, its simulated present and its seed stream.
pub struct Session {
    drive: Drive,
    seeds: SimRng,
    master_seed: u64,
    now_ns: Nanoseconds,
}

impl Session {
    /// A factory-fresh drive at time zero; `seed` drives every random choice of its jobs.
    pub fn new(profile: Profile, options: DriveOptions, seed: u64) -> Result<Self> {
        Ok(Self { drive: Drive::with_options(profile, options)?, seeds: SimRng::new(seed), master_seed: seed, now_ns: 0 })
    }

    /// The drive.
    pub fn drive(&self) -> &Drive {
        &self.drive
    }

    /// The drive, for hosts that submit commands themselves.
    pub fn drive_mut(&mut self) -> &mut Drive {
        &mut self.drive
    }

    /// Simulated time now.
    pub fn now_ns(&self) -> Nanoseconds {
        self.now_ns
    }

    /// The seed every job seed is drawn from.
    pub fn seed(&self) -> u64 {
        self.master_seed
    }

    /// The next job seed of the stream.
    pub fn next_seed(&mut self) -> u64 {
        self.seeds.next_u64() >> 1
    }

    /// Move the present to `at_ns` (never backwards).
    pub fn advance_to(&mut self, at_ns: Nanoseconds) {
        self.now_ns = self.now_ns.max(at_ns);
    }

    /// Wait until the drive has finished everything booked so far (programs of buffered data,
    /// GC work already started): the present moves there. Returns the simulated time waited.
    /// Preconditioning steps end so, timed or fast-forwarded, so a measured job after them
    /// starts from an idle drive either way.
    pub fn wait_until_idle(&mut self) -> Nanoseconds {
        let start = self.now_ns;
        self.now_ns = self.now_ns.max(self.drive.quiesce_ns());
        self.now_ns - start
    }

    /// ATA SECURE ERASE, once everything booked has finished. Returns the simulated time it took.
    pub fn secure_erase(&mut self) -> Nanoseconds {
        let start = self.now_ns.max(self.drive.quiesce_ns());
        let done = self.drive.secure_erase(start);
        self.now_ns = done;
        done - start
    }

    /// Set Features, Power Management, now: move to power state `state`; the present moves to
    /// the end of the transition. Returns the simulated time it took.
    pub fn set_power_state(&mut self, state: u32) -> Result<Nanoseconds> {
        let start = self.now_ns;
        self.now_ns = self.drive.set_power_state(state, start)?.max(start);
        Ok(self.now_ns - start)
    }

    /// Set Features, Autonomous Power State Transition, now: APST on or off.
    pub fn set_apst(&mut self, on: bool) -> Result<()> {
        self.drive.set_apst(on, self.now_ns)
    }

    /// FLUSH CACHE. Returns the simulated time it took.
    pub fn flush(&mut self) -> Nanoseconds {
        let start = self.now_ns;
        self.now_ns = self.drive.flush(start).max(start);
        self.now_ns - start
    }

    /// Sit idle for `duration_ns` (idle-time GC works). Returns the blocks reclaimed. Refuses a
    /// duration that would carry the clock past what it can count.
    pub fn idle(&mut self, duration_ns: Nanoseconds) -> Result<u64> {
        let Some(until) = self.now_ns.checked_add(duration_ns).filter(|&t| t <= MAX_SIMULATED_NS) else {
            bail!(
                Workload,
                "idle for {:.0} s would carry the simulated clock (now {:.0} s) past its limit of {:.0} s",
                seconds(duration_ns),
                seconds(self.now_ns),
                seconds(MAX_SIMULATED_NS)
            );
        };
        let reclaimed = self.drive.idle(self.now_ns, until);
        self.now_ns = until;
        Ok(reclaimed)
    }

    /// Serve one command now, with `content` for the written sectors; the present does not
    /// move (the host decides when the next command comes). Returns its completion time.
    pub fn submit_with<C: ssdlab_reduce::ContentSource>(&mut self, io: &Io, at_ns: Nanoseconds, content: &mut C) -> Result<Nanoseconds> {
        self.drive.submit_with(io, at_ns.max(self.now_ns), content)
    }

    /// Check that `job` can run on this drive (span, queue depth) without running it.
    pub fn check_job(&self, job: &JobSpec) -> Result<()> {
        Run::new(&self.drive, job, 0, self.now_ns).map(|_| ())
    }

    /// Start a closed-loop run of `job` now; `seed` defaults to the next seed of the stream.
    /// Written data follows the job's pattern, or the 4 KiB blocks of `data_file` in order.
    pub fn start_run(&mut self, job: &JobSpec, seed: Option<u64>, data_file: Option<&str>) -> Result<Run> {
        let seed = seed.unwrap_or_else(|| self.next_seed());
        let content = self.content(job.pattern, seed, data_file)?;
        Run::with_content(&self.drive, job, seed, self.now_ns, content)
    }

    /// Start fast-forwarding `job` (see [`FastForward`]): the drive does the job's writes and
    /// TRIMs without timing once everything booked so far has finished. `seed` defaults to the
    /// next seed of the stream, as [`Session::start_run`] draws it, so the jobs after it get the
    /// same seeds either way. Refused for a job whose commands depend on time.
    pub fn start_fast_forward(&mut self, job: &JobSpec, seed: Option<u64>, data_file: Option<&str>) -> Result<FastForward> {
        if let Some(why) = crate::fast_forward_refusal(job) {
            bail!(Workload, "{why}");
        }
        let seed = seed.unwrap_or_else(|| self.next_seed());
        let content = self.content(job.pattern, seed, data_file)?;
        FastForward::new(&mut self.drive, job, seed, self.now_ns, content)
    }

    /// Advance a fast-forward by up to `max_ios` commands; once done, the present moves to its
    /// end (the drive is idle from then). Returns whether it is done.
    pub fn advance_fast_forward(&mut self, run: &mut FastForward, max_ios: u64) -> Result<bool> {
        let done = run.advance(&mut self.drive, max_ios)?;
        if done {
            self.advance_to(run.end_ns());
        }
        Ok(done)
    }

    /// Summary of a finished fast-forward.
    pub fn fast_forward_summary(&self, run: &FastForward, wall_seconds: f64) -> Result<FastForwardSummary> {
        if !run.is_done() {
            bail!(Request, "the fast-forward has not finished");
        }
        Ok(run.summary(&self.drive, wall_seconds))
    }

    /// What written sectors hold: `pattern` seeded by `seed`, or the blocks of `data_file`.
    fn content(&self, pattern: DataPattern, seed: u64, data_file: Option<&str>) -> Result<ContentStream> {
        match data_file {
            Some(path) => ContentStream::from_file(path, self.drive.options().content),
            None => Ok(ContentStream::new(pattern, self.drive.options().content, seed)),
        }
    }

    /// Advance `run` by up to `max_completions` completions; the present moves to its end once
    /// it is done. Returns whether it is done.
    pub fn advance_run(&mut self, run: &mut Run, max_completions: u64) -> Result<bool> {
        let done = run.advance(&mut self.drive, max_completions)?;
        if done {
            self.advance_to(run.end_ns());
        }
        Ok(done)
    }

    /// Summary of a finished run.
    pub fn run_summary(&self, run: &Run, wall_seconds: f64) -> Result<RunSummary> {
        if !run.is_done() {
            bail!(Request, "the run has not finished");
        }
        // Every figure counts from the end of ramp_time: a job done before it has none (the
        // summary would divide what the ramp did by no time at all).
        if let (ramp_ns, ran_ns, true) = run.ramp() {
            bail!(
                Workload,
                "job {}: every command completed within its ramp_time of {} s (the job ended after {} s), so nothing was measured; shorten ramp_time, or give the job more to do (size, io_size, loops, number_ios, or time_based with a runtime)",
                run.job().name,
                ramp_ns as f64 / 1e9,
                ran_ns as f64 / 1e9
            );
        }
        Ok(run.summary(&self.drive, wall_seconds))
    }

    /// Start replaying `records` (read from `origin`, named in messages) now; writes carry
    /// `pattern` content seeded by `seed` (default: the next seed of the stream), or the 4 KiB
    /// blocks of `data_file` in order; with `large`, writes of at least its byte count carry
    /// its pattern instead (seeded from the same seed).
    #[allow(clippy::too_many_arguments)]
    pub fn start_replay(
        &mut self,
        origin: &str,
        records: Box<dyn Iterator<Item = Result<TraceRecord>> + Send>,
        mode: ReplayMode,
        remap: bool,
        pattern: DataPattern,
        seed: Option<u64>,
        data_file: Option<&str>,
        large: Option<(DataPattern, u64)>,
    ) -> Result<TraceRun> {
        let seed = seed.unwrap_or_else(|| self.next_seed());
        let content = self.content(pattern, seed, data_file)?;
        let run = TraceRun::new(&self.drive, origin, records, mode, remap, content, self.now_ns)?;
        Ok(match large {
            Some((pattern, min_bytes)) => run.with_large_writes(min_bytes, ContentStream::new(pattern, self.drive.options().content, seed ^ LARGE_WRITES_SEED)),
            None => run,
        })
    }

    /// Write `data` at byte `offset` now, as one command at queue depth 1, and wait for it: the
    /// present moves to its completion. Offset and length must be whole 512-byte sectors. A
    /// 4 KiB sector the write covers only partly keeps the rest of its old bytes (drives that
    /// keep bytes). Returns the simulated time it took.
    pub fn write_bytes(&mut self, offset: u64, data: &[u8]) -> Result<Nanoseconds> {
        let start = self.now_ns;
        let done = self.write_bytes_at(offset, data, start)?;
        self.now_ns = done;
        Ok(done - start)
    }

    /// Write `data` at byte `offset` as one command arriving at `at_ns` (not before the
    /// present); the present does not move (a host with commands in flight decides when it
    /// does). Returns the completion time.
    pub fn write_bytes_at(&mut self, offset: u64, data: &[u8], at_ns: Nanoseconds) -> Result<Nanoseconds> {
        let mut contents = self.sector_contents(offset, data)?;
        self.write_contents_at(offset, data.len() as u64, &mut contents, at_ns)
    }

    /// The contents of the whole 4 KiB sectors a write of `data` at byte `offset` leaves: a
    /// sector the write covers only partly keeps the rest of its old bytes (drives that keep
    /// bytes). Offset and length must be whole 512-byte sectors inside the drive.
    pub fn sector_contents(&self, offset: u64, data: &[u8]) -> Result<std::collections::VecDeque<SectorContent>> {
        let io = Io { op: ssdlab_workload::Op::Write, offset_bytes: offset, len_bytes: data.len() as u64 };
        self.drive.check_range(&io)?;
        let sector = SECTOR_BYTES as u64;
        let first = offset / sector;
        let last = (offset + data.len() as u64 - 1) / sector;
        let mut contents = std::collections::VecDeque::with_capacity((last - first + 1) as usize);
        let mut block = vec![0u8; SECTOR_BYTES];
        for lba in first..=last {
            let start = lba * sector;
            let (from, to) = (offset.max(start), (offset + data.len() as u64).min(start + sector));
            if to - from < sector {
                // Partly covered: merge into the old bytes where the drive keeps them.
                block = self.drive.read_sector_bytes(lba).unwrap_or_else(|_| vec![0u8; SECTOR_BYTES]);
            }
            block[(from - start) as usize..(to - start) as usize].copy_from_slice(&data[(from - offset) as usize..(to - offset) as usize]);
            let mut content = SectorContent::from_bytes(&block);
            if self.drive.options().content == ContentMode::Modeled {
                content.payload = None;
            }
            contents.push_back(content);
        }
        Ok(contents)
    }

    /// Write `len` bytes at byte `offset` as one command arriving at `at_ns`, the whole 4 KiB
    /// sectors it touches holding `contents` (from [`Session::sector_contents`], or recorded
    /// earlier: a recovering server replays writes from their contents' descriptions, without
    /// payloads); the present does not move. Returns the completion time.
    pub fn write_contents_at(
        &mut self,
        offset: u64,
        len: u64,
        contents: &mut std::collections::VecDeque<SectorContent>,
        at_ns: Nanoseconds,
    ) -> Result<Nanoseconds> {
        let io = Io { op: ssdlab_workload::Op::Write, offset_bytes: offset, len_bytes: len };
        self.drive.check_range(&io)?;
        let sector = SECTOR_BYTES as u64;
        let touched = if len == 0 { 0 } else { (offset + len - 1) / sector - offset / sector + 1 };
        if contents.len() as u64 != touched {
            bail!(Request, "a write of {len} bytes at byte {offset} touches {touched} sectors, but {} contents were given", contents.len());
        }
        self.drive.submit_with(&io, at_ns.max(self.now_ns), contents)
    }

    /// Write whole 4 KiB sectors from `offset` whose contents were prepared already (hashed and
    /// compressed outside any lock, say), as one command arriving at `at_ns`; the present does
    /// not move. Returns the completion time.
    pub fn write_sectors_at(&mut self, offset: u64, contents: &mut std::collections::VecDeque<SectorContent>, at_ns: Nanoseconds) -> Result<Nanoseconds> {
        let len = contents.len() as u64 * SECTOR_BYTES as u64;
        if !offset.is_multiple_of(SECTOR_BYTES as u64) || len == 0 {
            bail!(Request, "prepared sectors must start on a 4 KiB boundary (got byte {offset}) and be at least one");
        }
        let io = Io { op: ssdlab_workload::Op::Write, offset_bytes: offset, len_bytes: len };
        self.drive.check_range(&io)?;
        if self.drive.options().content == ContentMode::Modeled {
            contents.iter_mut().for_each(|c| c.payload = None);
        }
        self.drive.submit_with(&io, at_ns.max(self.now_ns), contents)
    }

    /// Read `len` bytes at byte `offset` now, as one command at queue depth 1, and wait for it
    /// (the present moves to its completion). Needs a drive that keeps its data bytes (a
    /// data-reduction profile with real content). Returns the bytes and the simulated time.
    pub fn read_bytes(&mut self, offset: u64, len: u64) -> Result<(Vec<u8>, Nanoseconds)> {
        let start = self.now_ns;
        let (bytes, done) = self.read_bytes_at(offset, len, start)?;
        self.now_ns = done;
        Ok((bytes, done - start))
    }

    /// Read `len` bytes at byte `offset` as one command arriving at `at_ns` (not before the
    /// present); the present does not move. Returns the bytes and the completion time.
    pub fn read_bytes_at(&mut self, offset: u64, len: u64, at_ns: Nanoseconds) -> Result<(Vec<u8>, Nanoseconds)> {
        let io = Io { op: ssdlab_workload::Op::Read, offset_bytes: offset, len_bytes: len };
        self.drive.check_range(&io)?;
        let sector = SECTOR_BYTES as u64;
        let mut out = Vec::with_capacity(len as usize);
        for lba in offset / sector..=(offset + len - 1) / sector {
            let bytes = self.drive.read_sector_bytes(lba)?;
            let start = lba * sector;
            let (from, to) = (offset.max(start), (offset + len).min(start + sector));
            out.extend_from_slice(&bytes[(from - start) as usize..(to - start) as usize]);
        }
        let done = self.drive.submit(&io, at_ns.max(self.now_ns))?;
        Ok((out, done))
    }

    /// TRIM `len` bytes at byte `offset` as one command arriving at `at_ns` (not before the
    /// present); the present does not move. Returns the completion time.
    pub fn trim_at(&mut self, offset: u64, len: u64, at_ns: Nanoseconds) -> Result<Nanoseconds> {
        let io = Io { op: ssdlab_workload::Op::Trim, offset_bytes: offset, len_bytes: len };
        self.drive.submit(&io, at_ns.max(self.now_ns))
    }

    /// FLUSH CACHE arriving at `at_ns` (not before the present); the present does not move.
    /// Returns the completion time.
    pub fn flush_at(&mut self, at_ns: Nanoseconds) -> Nanoseconds {
        self.drive.flush(at_ns.max(self.now_ns))
    }

    /// A session around a drive built or restored elsewhere, at simulated time `now_ns`.
    pub fn from_drive(drive: Drive, seed: u64, now_ns: Nanoseconds) -> Self {
        Self { drive, seeds: SimRng::new(seed), master_seed: seed, now_ns }
    }

    /// Advance a replay by up to `max_steps` events; the present moves to its end once done.
    pub fn advance_replay(&mut self, replay: &mut TraceRun, max_steps: u64) -> Result<bool> {
        let done = replay.advance(&mut self.drive, max_steps)?;
        if done {
            self.advance_to(replay.end_ns());
        }
        Ok(done)
    }

    /// Summary of a finished replay.
    pub fn replay_summary(&self, replay: &TraceRun, wall_seconds: f64) -> Result<ReplaySummary> {
        if !replay.is_done() {
            bail!(Request, "the replay has not finished");
        }
        // As `trace stats` says: a trace of headers and file actions only has nothing to replay.
        if let (origin, 0) = replay.origin_and_requests() {
            bail!(Workload, "{origin}: the trace has no requests");
        }
        Ok(replay.summary(&self.drive, wall_seconds))
    }

    /// Facts about the drive.
    pub fn info(&self) -> DriveInfo {
        DriveInfo::of(self.drive.profile(), self.drive.options().content)
    }

    /// Cumulative state of the drive.
    pub fn state(&self) -> DriveState {
        let t = self.drive.translation();
        let wear = t.wear();
        let f = self.drive.flash().counters();
        let d = self.drive.counters();
        DriveState {
            now_seconds: seconds(self.now_ns),
            free_blocks: t.free_blocks_total(),
            valid_sectors: t.live_data_sectors(),
            wear: WearState { min: wear.min, mean: wear.mean, max: wear.max },
            host_write_bytes: d.host_write_bytes,
            host_read_bytes: d.host_read_bytes,
            nand_write_bytes: f.bytes_programmed_host + f.bytes_programmed_internal,
            nand_read_bytes: f.bytes_read,
            block_erases: f.block_erases,
            operation_energy_joules: f.energy_nj / 1e9,
            gc_moved: t.gc_moved(),
            flash_idle_seconds: seconds(self.drive.flash().all_idle_ns()),
            power_state: self.drive.power_state_at(self.now_ns),
            state_energy_joules: self.drive.state_energy_nj(self.now_ns).map(|e| e / 1e9),
            thermal: self.drive.thermal_state_at(self.now_ns),
        }
    }
}

/// Latest simulated time a session may reach: about 292 years, far below where nanosecond
/// arithmetic would overflow, so every addition of durations within it is exact.
pub const MAX_SIMULATED_NS: Nanoseconds = 1 << 63;
