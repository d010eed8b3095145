//! The drive: host interface, controller, engine, translation layer and NAND composed.
//!
//! [`Drive::submit`] admits a command (command processor, small-random-write cap) and hands it
//! to its path: `write_path.rs` and `read_path.rs` lay out the stages of each in order.

use crate::buffer::WriteBuffer;
use crate::data_plane::{decode_region, DataPlane};
use crate::engine::{Engine, EngineCounters};
use crate::map_cache::MapCache;
use crate::sink::TimedSink;
use crate::throttle::SmallWriteCap;

use crate::run_ahead::RunAhead;
use ssdlab_core::{bail, Nanoseconds, Result, Timeline};
use ssdlab_ftl::{ChunkFtl, DataLocation, Ftl, Piece, StoredSector, Translation};
use ssdlab_nand::{FlashArray, SECTOR_BYTES};
use ssdlab_profile::Profile;
use ssdlab_reduce::{ContentMode, ContentSource, ContentStream, DataPattern};
use ssdlab_workload::{Io, Op};

/// How a drive is built beyond its profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriveOptions {
    /// Keep a content tag per sector in the page FTL (checked runs and tests).
    pub track_tags: bool,
    /// Content representation for the data-reduction engine.
    pub content: ContentMode,
    /// Most bytes of stored data a real-bytes drive keeps in memory (writes beyond it fail
    /// with a clear error).
    pub real_bytes_limit: u64,
    /// Store every written sector's bytes in a [`DataPlane`] (attached with
    /// [`Drive::attach_data_plane`]) at its physical address, instead of in memory. Needs real
    /// content.
    pub store_data: bool,
    /// Remember when every program unit was last programmed, so tests can check that no read
    /// completes before the program of the data it reads ([`Drive::data_programmed_ns`]).
    pub record_programs: bool,
}

/// Default memory bound of a real-bytes drive's stored data (8 GiB).
pub const DEFAULT_REAL_BYTES_LIMIT: u64 = 8 << 30;

impl Default for DriveOptions {
    fn default() -> Self {
        Self { track_tags: false, content: ContentMode::Modeled, real_bytes_limit: DEFAULT_REAL_BYTES_LIMIT, store_data: false, record_programs: false }
    }
}

/// Host-side counters since power-on.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DriveCounters {
    /// Read commands completed.
    pub read_commands: u64,
    /// Write commands completed.
    pub write_commands: u64,
    /// TRIM commands completed.
    pub trim_commands: u64,
    /// Bytes the host read.
    pub host_read_bytes: u64,
    /// Bytes the host wrote.
    pub host_write_bytes: u64,
    /// Bytes the host trimmed.
    pub host_trim_bytes: u64,
    /// Sectors read that were unmapped (returned as zeros without touching NAND).
    pub unmapped_sector_reads: u64,
    /// NAND read operations issued for host reads.
    pub host_nand_reads: u64,
    /// Partial-sector writes that needed a read-modify-write of mapped data.
    pub read_modify_writes: u64,
    /// 4 KiB sectors covered by read commands.
    pub host_read_sectors: u64,
    /// Map pages read from flash because the map cache did not hold them (controllers without
    /// DRAM).
    pub map_page_reads: u64,
    /// Sectors read from the source of a GC or folding copy whose program was still queued on
    /// its die (drives whose reads go first; `Translation::moved_from`).
    #[serde(default)]
    pub reads_of_queued_copies: u64,
    /// Sectors read from the controller's memory: their program was still queued and no source
    /// was on the flash (host data in the write buffer, a copy whose source GC had read;
    /// drives whose reads go first).
    #[serde(default)]
    pub reads_from_controller_memory: u64,
    /// Bytes of read commands that fell in unmapped sectors (a read that starts or ends inside
    /// a sector counts only its own bytes of it). Not saved with the drive's state: a saved
    /// state (a served drive's checkpoint, bincode, which has no optional fields) keeps the
    /// layout it had, and a restored drive counts from 0 (runs report differences).
    #[serde(skip)]
    pub unmapped_read_bytes: u64,
}

/// The 4 KiB logical sectors a command touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SectorSpan {
    /// First sector.
    pub first: u64,
    /// Last sector (inclusive).
    pub last: u64,
}

impl SectorSpan {
    pub fn of(io: &Io) -> Self {
        Self { first: io.offset_bytes / SECTOR_BYTES, last: (io.offset_bytes + io.len_bytes - 1) / SECTOR_BYTES }
    }

    pub fn sectors(&self) -> u64 {
        self.last - self.first + 1
    }
}

/// The unmapped sectors among a command's (`Drive::pieces_on_flash`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct UnmappedSectors {
    /// How many.
    pub count: u64,
    /// Whether the command's first sector is one.
    pub first: bool,
    /// Whether its last sector is one.
    pub last: bool,
}

impl UnmappedSectors {
    /// The command's bytes in these sectors: whole sectors, less the part of the first and the
    /// last sector outside the command.
    pub fn bytes(&self, io: &Io) -> u64 {
        let head = io.offset_bytes % SECTOR_BYTES;
        let tail = (SECTOR_BYTES - (io.offset_bytes + io.len_bytes) % SECTOR_BYTES) % SECTOR_BYTES;
        self.count * SECTOR_BYTES - if self.first { head } else { 0 } - if self.last { tail } else { 0 }
    }
}

/// A simulated SSD.
pub struct Drive {
    pub(crate) profile: Profile,
    pub(crate) flash: FlashArray,
    pub(crate) translation: Box<dyn Translation>,
    pub(crate) options: DriveOptions,
    /// The data-reduction engine, on drives that have one.
    pub(crate) engine: Option<Engine>,
    pub(crate) default_content: ContentStream,
    /// Scratch list of a read's physical pieces.
    pub(crate) pieces: Vec<Piece>,
    pub(crate) map_cache: Option<MapCache>,
    pub(crate) map_misses: Vec<u64>,
    pub(crate) buffer: WriteBuffer,
    pub(crate) cap: Option<SmallWriteCap>,
    pub(crate) controller_free_ns: Nanoseconds,
    pub(crate) link: Timeline,
    pub(crate) last_write_end_bytes: u64,
    pub(crate) last_host_program_ns: Nanoseconds,
    /// Every host sector placed so far has left the engine's back end by this time (drives
    /// with an engine): no host program may start before it.
    pub(crate) encoded_until_ns: Nanoseconds,
    pub(crate) counters: DriveCounters,
    pub(crate) tag_counter: u64,
    /// Sectors (plus one) of the most recent write, to recover its first tag.
    pub(crate) last_write_sectors: u64,
    /// Where the data is stored, for a drive that stores data.
    pub(crate) data_plane: Option<Box<dyn DataPlane>>,
    /// The first data-plane failure; once set, the drive refuses writes.
    pub(crate) data_failure: Option<String>,
    /// When each (block, multi-plane page) was last programmed (drives built with
    /// [`DriveOptions::record_programs`]).
    pub(crate) program_log: Option<ProgramLog>,
    /// Busy time of the link and the command processor, and commands through the write cap.
    pub(crate) busy: crate::utilization::BusyCounters,
    /// Bytes a map lookup that misses the cache moves from the map page (the whole page, or
    /// the codeword holding the entry on controllers with partial-page reads).
    pub(crate) map_read_bytes: u64,
    /// Commands until past bookings are next dropped.
    forget_countdown: u32,
    /// NVMe power states with APST (profiles with `[power]`).
    pub(crate) power: Option<crate::power::PowerStates>,
    /// Heat and throttling (profiles with `[thermal]`).
    pub(crate) thermal: Option<crate::thermal::Thermal>,
    /// Whether either model is present (the hot path checks only this).
    pub(crate) models_power: bool,
    /// When the controller was busy with host commands (for the models above).
    pub(crate) activity: crate::drive_power::Activity,
    /// What the host last wrote with fio's verify headers (from the first run with verify on).
    pub(crate) expected: Option<Box<crate::expected::ExpectedIds>>,
}

/// When each program unit was last programmed: (block, multi-plane page in the block) -> end
/// of its program.
pub(crate) type ProgramLog = std::collections::HashMap<(u32, u32), Nanoseconds>;

/// Commands between two clean-ups of past bookings.
const FORGET_EVERY: u32 = 16;

impl Drive {
    /// A factory-fresh drive built from a profile.
    pub fn new(profile: Profile) -> Result<Self> {
        Self::with_options(profile, DriveOptions::default())
    }

    /// A drive that also keeps a content tag per sector (for checked runs and tests).
    pub fn with_tags(profile: Profile, track_tags: bool) -> Result<Self> {
        Self::with_options(profile, DriveOptions { track_tags, ..DriveOptions::default() })
    }

    /// A factory-fresh drive with explicit options.
    pub fn with_options(profile: Profile, options: DriveOptions) -> Result<Self> {
        Self::build(profile, options, None)
    }

    /// A drive restored from what [`Drive::save_state`] wrote (the translation layer and the
    /// counters; everything in flight had finished), for the same profile and options.
    pub fn load(profile: Profile, options: DriveOptions, input: &mut dyn std::io::Read) -> Result<Self> {
        Self::build(profile, options, Some(input))
    }

    fn build(profile: Profile, options: DriveOptions, saved: Option<&mut dyn std::io::Read>) -> Result<Self> {
        if options.store_data && options.content != ContentMode::Real {
            bail!(Config, "a drive that stores data needs real content");
        }
        let (translation, counters): (Box<dyn Translation>, Option<SavedCounters>) = match &profile.reduction {
            Some(reduction) => {
                let mut config = reduction.chunk.clone();
                config.keep_payloads = options.content == ContentMode::Real && !options.store_data;
                config.payload_limit_bytes = options.real_bytes_limit;
                config.store_data = options.store_data;
                if options.store_data {
                    // A served drive keeps its metadata in the backing file (journal and
                    // checkpoints, docs/backing-file.md), not as modelled flash sectors.
                    config.metadata = None;
                }
                if options.store_data && (config.chunk_header_bytes as usize) < crate::data_plane::REGION_PREFIX_BYTES {
                    bail!(Config, "{}: reduction.chunk_header_bytes must be at least 4 for a drive that stores data", profile.origin);
                }
                match saved {
                    Some(input) => (Box::new(ChunkFtl::load(config, input)?), Some(SavedCounters::read(input)?)),
                    None => (Box::new(ChunkFtl::new(config, &profile.origin)?), None),
                }
            }
            None => {
                let mut config = profile.ftl.clone();
                config.track_tags = options.track_tags;
                config.store_data = options.store_data;
                if options.store_data {
                    config.metadata = None;
                }
                match saved {
                    Some(input) => (Box::new(Ftl::load(config, input)?), Some(SavedCounters::read(input)?)),
                    None => (Box::new(Ftl::new(config, &profile.origin)?), None),
                }
            }
        };
        let mut flash = FlashArray::new(profile.geometry.clone(), profile.timing.clone(), profile.energy.clone());
        flash.set_suspend(profile.media.suspend.or(profile.controller.reads_first.then_some(ssdlab_nand::Suspend::READS_FIRST_ONLY)));
        let buffer = WriteBuffer::new((profile.controller.write_buffer_bytes / SECTOR_BYTES) as usize);
        let c = &profile.controller;
        // A controller that reads only the ECC units it needs from a page (partial-page reads)
        // does so for map pages too: a lookup senses the map page and moves the codeword
        // holding the entry, and the SRAM caches such codewords.
        let map_read_bytes = match (&profile.reduction, translation.partial_page_reads(), translation.ecc_unit_bytes()) {
            (Some(_), true, Some(unit)) => unit as u64,
            _ => profile.geometry.page_bytes as u64,
        };
        let map_cache = MapCache::new(c.map_cache_bytes + c.hmb_bytes, c.map_entry_bytes, map_read_bytes, translation.user_sectors());
        let cap = SmallWriteCap::new(c.small_random_write_cap_iops, c.small_random_write_burst_ios);
        let cap_interval_ns = cap.as_ref().map_or(0, SmallWriteCap::interval_ns);
        Ok(Self {
            engine: profile.reduction.clone().map(Engine::new),
            flash,
            translation,
            options,
            default_content: ContentStream::new(DataPattern::default(), options.content, 0),
            pieces: Vec::with_capacity(64),
            map_cache,
            map_misses: Vec::new(),
            buffer,
            cap,
            controller_free_ns: 0,
            link: Timeline::new(),
            last_write_end_bytes: u64::MAX,
            last_host_program_ns: 0,
            encoded_until_ns: 0,
            counters: DriveCounters::default(),
            tag_counter: 0,
            last_write_sectors: 0,
            data_plane: None,
            data_failure: None,
            program_log: options.record_programs.then(ProgramLog::new),
            map_read_bytes,
            busy: crate::utilization::BusyCounters { cap_interval_ns, ..Default::default() },
            forget_countdown: 1,
            power: None,
            thermal: None,
            models_power: false,
            activity: Default::default(),
            expected: None,
            profile,
        })
        .map(|mut drive: Self| {
            if let Some(saved) = counters {
                drive.flash.set_counters(saved.flash);
                drive.counters = saved.drive;
                if let (Some(cache), Some(pages)) = (drive.map_cache.as_mut(), saved.map_pages_in_flash) {
                    cache.set_pages_in_flash(pages);
                }
            }
            drive.build_power_models();
            drive
        })
    }

    /// Write the drive's state (translation layer, flash and host counters) to `out`. Call
    /// when nothing is in flight (after a flush); timelines are not saved: a restored drive
    /// starts idle.
    pub fn save_state(&self, out: &mut dyn std::io::Write) -> Result<()> {
        self.translation.save(out)?;
        SavedCounters {
            flash: self.flash.counters().clone(),
            drive: self.counters.clone(),
            map_pages_in_flash: self.map_cache.as_ref().map(|c| c.pages_in_flash().to_vec()),
        }
        .write(out)
    }

    /// Store data in `plane` from now on (drives built with [`DriveOptions::store_data`]).
    pub fn attach_data_plane(&mut self, plane: Box<dyn DataPlane>) {
        self.data_plane = Some(plane);
    }

    /// Take the data plane back (to hand it to a drive restored from saved state).
    pub fn detach_data_plane(&mut self) -> Option<Box<dyn DataPlane>> {
        self.data_plane.take()
    }

    /// The data plane, for its owner (to sync it, say).
    pub fn data_plane_mut(&mut self) -> Option<&mut (dyn DataPlane + 'static)> {
        self.data_plane.as_deref_mut()
    }

    /// Host sectors that ever entered the write buffer (a served drive notes it after each
    /// operation, to know at a power cut which operations' data had been programmed).
    pub fn buffer_pushed(&self) -> u64 {
        self.buffer.pushed()
    }

    /// What was still in the volatile write buffer at simulated time `at_ns` (a power cut):
    /// sectors not programmed yet, or in programs not complete then.
    pub fn buffer_at(&self, at_ns: Nanoseconds) -> crate::buffer::BufferAtCut {
        self.buffer.at(at_ns)
    }

    /// The first data-plane failure, if any (the drive refuses writes from then on).
    pub fn data_failure(&self) -> Option<&str> {
        self.data_failure.as_deref()
    }

    /// Remember a data-plane failure a sink met.
    pub(crate) fn note_data_error(&mut self, error: Option<String>) -> Result<()> {
        match error {
            None => Ok(()),
            Some(e) => {
                if self.data_failure.is_none() {
                    self.data_failure = Some(e.clone());
                }
                Err(ssdlab_core::Error::Io(e))
            }
        }
    }

    /// The profile the drive was built from.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The translation layer (read-only).
    pub fn translation(&self) -> &dyn Translation {
        self.translation.as_ref()
    }

    /// Start (or stop) listing the blocks that come to hold no valid data while programmed
    /// (see [`Drive::take_emptied_blocks`]); a host that keeps the data somewhere turns it on.
    pub fn track_emptied_blocks(&mut self, on: bool) {
        self.translation.track_emptied_blocks(on);
    }

    /// Append to `out` the closed blocks emptied since the last call (their data can never be
    /// read again, though they are not erased yet; erased ones are not listed).
    pub fn take_emptied_blocks(&mut self, out: &mut Vec<u32>) {
        self.translation.take_emptied_blocks(out);
    }

    /// How the drive was built.
    pub fn options(&self) -> DriveOptions {
        self.options
    }

    /// The NAND array (read-only).
    pub fn flash(&self) -> &FlashArray {
        &self.flash
    }

    /// Host-side counters.
    pub fn counters(&self) -> &DriveCounters {
        &self.counters
    }

    /// What the data-reduction engine has processed (`None` without an engine).
    pub fn engine_counters(&self) -> Option<EngineCounters> {
        self.engine.as_ref().map(Engine::counters)
    }

    /// Bytes of user space workloads may address (capacity less any reserved fraction).
    pub fn usable_bytes(&self) -> u64 {
        self.profile.usable_bytes()
    }

    /// Future bookings held by the channel, engine and link timelines (diagnostic).
    pub fn pending_bookings(&self) -> (usize, usize, usize) {
        (self.flash.channel_bookings(), self.engine.as_ref().map_or(0, Engine::pending_bookings), self.link.pending_bookings())
    }

    /// Time at which everything booked so far (host and internal) has finished.
    pub fn quiesce_ns(&self) -> Nanoseconds {
        let engine = self.engine.as_ref().map_or(0, Engine::free_from_ns);
        self.flash.all_idle_ns().max(self.controller_free_ns).max(self.link.free_from_ns()).max(engine)
    }

    /// Refuse a command that is empty, not in whole 512-byte sectors, or beyond the capacity,
    /// and a write the translation has no room for (real-bytes mode's memory limit), before any
    /// of it is done.
    pub fn check_range(&self, io: &Io) -> Result<()> {
        let capacity = self.profile.capacity_bytes_user;
        if io.len_bytes == 0 {
            bail!(Request, "zero-length command at byte {}", io.offset_bytes);
        }
        if !io.offset_bytes.is_multiple_of(512) || !io.len_bytes.is_multiple_of(512) {
            bail!(Request, "command at byte {} of {} bytes is not in whole 512-byte sectors", io.offset_bytes, io.len_bytes);
        }
        if io.offset_bytes.checked_add(io.len_bytes).is_none_or(|end| end > capacity) {
            bail!(Request, "command at byte {} of {} bytes reaches beyond the capacity of {capacity} bytes", io.offset_bytes, io.len_bytes);
        }
        // (Only real-bytes drives keep payloads: the modeled drive's hot path skips the call.)
        if io.op == Op::Write && self.options.content == ContentMode::Real {
            let sectors = (io.offset_bytes + io.len_bytes).div_ceil(SECTOR_BYTES) - io.offset_bytes / SECTOR_BYTES;
            self.translation.check_room_for_write(sectors)?;
        }
        Ok(())
    }

    /// Serve one host command arriving at `at_ns`; returns its completion time. Written data is
    /// random (incompressible) content.
    pub fn submit(&mut self, io: &Io, at_ns: Nanoseconds) -> Result<Nanoseconds> {
        let mut stream = std::mem::replace(&mut self.default_content, ContentStream::new(DataPattern::default(), self.options.content, 0));
        let result = self.submit_with(io, at_ns, &mut stream);
        self.default_content = stream;
        result
    }

    /// Serve one host command arriving at `at_ns`; written sectors take their content from
    /// `content`. Returns its completion time.
    pub fn submit_with<C: ContentSource>(&mut self, io: &Io, at_ns: Nanoseconds, content: &mut C) -> Result<Nanoseconds> {
        self.check_range(io)?;
        self.forget_now_and_then(at_ns);
        // Drives with power states or heat: catch the models up, wake the drive if it rests.
        let start_ns = if self.models_power { self.before_command(at_ns) } else { at_ns };
        let admitted_ns = self.admit(io, start_ns);
        let done_ns = match io.op {
            Op::Read => self.serve_read(io, admitted_ns),
            Op::Write => {
                let first_tag = self.next_tags(io);
                self.serve_write(io, admitted_ns, first_tag, content)?
            }
            Op::Trim => self.serve_trim(io, admitted_ns)?,
        };
        if self.models_power {
            // The drive is busy until the command completes.
            self.after_command(at_ns, done_ns);
        }
        Ok(done_ns)
    }

    /// Drop bookings that ended before the present, every [`FORGET_EVERY`] commands: keeping
    /// past intervals longer changes no booking (every booking starts at or after the present,
    /// and a past interval can only merge with one that starts exactly at its end), only how
    /// long the lists are between two clean-ups.
    #[inline]
    fn forget_now_and_then(&mut self, now_ns: Nanoseconds) {
        self.forget_countdown = self.forget_countdown.wrapping_sub(1);
        if self.forget_countdown == 0 {
            self.forget_countdown = FORGET_EVERY;
            self.forget_before(now_ns);
        }
    }

    pub(crate) fn forget_before(&mut self, now_ns: Nanoseconds) {
        self.flash.forget_before(now_ns);
        self.link.forget_before(now_ns);
        if let Some(engine) = self.engine.as_mut() {
            engine.forget_before(now_ns);
        }
    }

    /// First stage of every command: the small-random-write cap (firmware that has one) delays
    /// admission, then the controller's single command processor spends its firmware time on
    /// it (plus its mapping work for a TRIM). Returns when the command has been processed.
    fn admit(&mut self, io: &Io, at_ns: Nanoseconds) -> Nanoseconds {
        let c = &self.profile.controller;
        let mut ready_ns = at_ns;
        if io.op == Op::Write {
            let sequential = io.offset_bytes == self.last_write_end_bytes;
            self.last_write_end_bytes = io.offset_bytes + io.len_bytes;
            if !sequential && io.len_bytes <= c.small_random_write_max_bytes {
                if let Some(cap) = self.cap.as_mut() {
                    ready_ns = cap.admit(ready_ns);
                    self.busy.capped_commands += 1;
                }
            }
        }
        let mut processing_ns = c.command_processing_ns;
        if io.op == Op::Trim {
            processing_ns += (c.trim_ns_per_mib as u128 * io.len_bytes as u128 / (1u128 << 20)) as u64;
        }
        let done_ns = ready_ns.max(self.controller_free_ns) + processing_ns;
        self.controller_free_ns = done_ns;
        self.busy.controller_ns += processing_ns;
        done_ns
    }

    /// Content tags for a write's sectors (the page FTL keeps them in checked runs): sector `i`
    /// of the write gets the first tag plus `i`, and no two writes share a tag.
    pub(crate) fn next_tags(&mut self, io: &Io) -> u64 {
        let first = self.tag_counter + 1;
        self.last_write_sectors = io.len_bytes.div_ceil(SECTOR_BYTES) + 1;
        self.tag_counter += self.last_write_sectors;
        first
    }

    /// The content tag given to the first sector of the most recent write (checked runs:
    /// sector `i` of that write has this tag plus `i`).
    pub fn last_write_first_tag(&self) -> u64 {
        self.tag_counter - self.last_write_sectors + 1
    }

    /// A timed sink for FTL operations: host programs from `host_ready_ns`, GC from
    /// `internal_ready_ns`.
    pub(crate) fn sink(&mut self, host_ready_ns: Nanoseconds, internal_ready_ns: Nanoseconds) -> (&mut dyn Translation, TimedSink<'_>) {
        let sink = TimedSink::new(&mut self.flash, &self.profile.media, &mut self.buffer, self.engine.as_mut(), host_ready_ns, internal_ready_ns)
            .with_data(self.data_plane.as_deref_mut())
            .with_program_log(self.program_log.as_mut());
        (self.translation.as_mut(), sink)
    }

    fn serve_trim(&mut self, io: &Io, admitted_ns: Nanoseconds) -> Result<Nanoseconds> {
        self.trim_sectors(io)?;
        let overhead = self.profile.host.command_overhead_ns;
        let link_done = self.link.book(admitted_ns, overhead) + overhead;
        self.busy.link_ns += overhead;
        self.counters.trim_commands += 1;
        self.counters.host_trim_bytes += io.len_bytes;
        Ok(link_done)
    }

    /// Deallocate the whole sectors inside TRIM `io`'s range (a partial sector at either end
    /// keeps its data) and note the change in the map cache; no time is booked here.
    pub(crate) fn trim_sectors(&mut self, io: &Io) -> Result<()> {
        let first = io.offset_bytes.div_ceil(SECTOR_BYTES);
        let end = (io.offset_bytes + io.len_bytes) / SECTOR_BYTES;
        let ahead = RunAhead::new(first, end);
        for lba in first..end {
            ahead.before(self.translation.as_ref(), lba);
            self.translation.trim(lba)?;
        }
        if let (Some(cache), true) = (self.map_cache.as_mut(), end > first) {
            cache.update(first, end - 1);
        }
        Ok(())
    }

    /// FLUSH CACHE: program every partly filled unit (the host's and GC's, padded) and wait
    /// for every buffered write.
    pub fn flush(&mut self, at_ns: Nanoseconds) -> Nanoseconds {
        let start = at_ns.max(self.controller_free_ns);
        let ready = start.max(self.encoded_until_ns);
        let (translation, mut sink) = self.sink(ready, start);
        translation.program_open_units(&mut sink);
        let programmed = sink.host_program_done_ns;
        let error = sink.data_error.take();
        let _ = self.note_data_error(error);
        assert_eq!(self.buffer.pending_sectors(), 0, "a flush left buffered sectors unprogrammed");
        self.last_host_program_ns = self.last_host_program_ns.max(programmed);
        start.max(self.last_host_program_ns).max(self.buffer.last_release_ns())
    }

    /// ATA SECURE ERASE: every block erased, every mapping dropped. Returns the completion time.
    pub fn secure_erase(&mut self, at_ns: Nanoseconds) -> Nanoseconds {
        let start = at_ns.max(self.quiesce_ns());
        self.translation.secure_erase();
        if let Some(plane) = self.data_plane.as_deref_mut() {
            if let Err(e) = plane.discard(0, self.profile.raw_bytes()) {
                let _ = self.note_data_error(Some(format!("cannot release the erased array: {e}")));
            }
        }
        if let Some(cache) = self.map_cache.as_mut() {
            cache.clear();
        }
        if let Some(log) = self.program_log.as_mut() {
            log.clear();
        }
        if self.models_power {
            self.advance_thermal(start, start);
        }
        let done = self.flash.erase_all(start);
        if self.models_power {
            self.busy_with_work(done);
        }
        if let Some(engine) = self.engine.as_mut() {
            engine.reset();
        }
        self.buffer.reset(done);
        self.controller_free_ns = done;
        self.link = Timeline::new();
        self.flash.forget_before(done);
        self.last_write_end_bytes = u64::MAX;
        self.encoded_until_ns = done;
        done
    }

    /// Let the drive sit idle from `from_ns` until `until_ns`: garbage collection works on dies
    /// below their idle target, starting only while a die is free before `until_ns`.
    /// Returns the number of blocks reclaimed.
    pub fn idle(&mut self, from_ns: Nanoseconds, until_ns: Nanoseconds) -> u64 {
        if self.thermal.is_some() {
            self.advance_thermal(from_ns, from_ns);
        }
        self.translation.idle_began();
        let reclaimed = self.idle_gc(from_ns, until_ns);
        self.idle_heat(from_ns, until_ns);
        reclaimed
    }

    /// Idle-time GC and folding from `from_ns`, starting only while a die is free before
    /// `until_ns`. Returns the number of blocks reclaimed.
    fn idle_gc(&mut self, from_ns: Nanoseconds, until_ns: Nanoseconds) -> u64 {
        let mut reclaimed = 0;
        for die in 0..self.profile.geometry.dies() {
            loop {
                let free_at = self.flash.die_free_ns(die).max(from_ns);
                if free_at >= until_ns || !self.translation.wants_idle_gc(die) {
                    break;
                }
                let (translation, mut sink) = self.sink(free_at, free_at);
                let collected = translation.collect_one(die, &mut sink);
                let error = sink.data_error.take();
                if self.note_data_error(error).is_err() || !collected {
                    break;
                }
                reclaimed += 1;
            }
        }
        reclaimed
    }

    /// Prefetch stage 1 for a command that will be submitted soon: its mapping entry.
    #[inline]
    pub fn prefetch_stage1(&self, io: &Io) {
        self.translation.prefetch_mapping(io.offset_bytes / SECTOR_BYTES);
    }

    /// Prefetch stage 2, a few commands later: what overwriting (or trimming) its first sectors
    /// touches (the rest as it is served: `run_ahead.rs`), or where a read finds their data.
    #[inline]
    pub fn prefetch_stage2(&self, io: &Io) {
        match RunAhead::of_command(io) {
            Some(run) if io.op == Op::Read => run.prefetch_start_locations(self.translation.as_ref()),
            Some(run) => run.prefetch_start_old(self.translation.as_ref()),
            None => {}
        }
    }

    /// Prefetch stage 3, just before submission (data-reduction FTL: the old chunks' index
    /// slots and blocks' counts of its first sectors).
    #[inline]
    pub fn prefetch_stage3(&self, io: &Io) {
        if io.op == Op::Read {
            return;
        }
        if let Some(run) = RunAhead::of_command(io) {
            run.prefetch_start_slots(self.translation.as_ref());
        }
    }

    /// Prefetch what storing content with this fingerprint will probe.
    #[inline]
    pub fn prefetch_content(&self, content: &ssdlab_reduce::SectorContent) {
        if !content.zero {
            self.translation.prefetch_fingerprint(content.fingerprint);
        }
    }

    /// When the data sector `lba` holds was programmed (drives built with
    /// [`DriveOptions::record_programs`]): the latest program end of the units holding it. On
    /// a drive whose reads go first, a piece whose program is still queued at `at_ns` (a read
    /// arriving then does not wait for it) counts from its source's program when GC or
    /// folding copied it and the source is on the flash (`Translation::moved_from`; 0 when
    /// that block's program is no longer recorded), and not at all otherwise (the read is
    /// served from the controller's memory). `Ok(None)` when it holds no data
    /// on the flash (never written, trimmed, zeros); an error when a unit holding its data has
    /// never been programmed, or programs are not recorded.
    pub fn data_programmed_ns(&self, lba: u64, at_ns: Nanoseconds) -> Result<Option<Nanoseconds>> {
        let Some(log) = self.program_log.as_ref() else { bail!(Request, "this drive does not record programs (DriveOptions::record_programs)") };
        let mut pieces = Vec::new();
        self.translation.pieces(lba, &mut pieces);
        let mut latest = None;
        for piece in pieces.iter().filter(|p| !p.is_stale_pointer()) {
            let Some(&done) = log.get(&(piece.block, piece.unit)) else {
                bail!(Request, "sector {lba}: its data is in unit {} of block {}, which was never programmed", piece.unit, piece.block)
            };
            let found = if self.flash.reads_go_first() && done > at_ns {
                // Queued: the source's program, or none at all when the read is served from
                // memory (no source on the flash).
                let source = self.translation.moved_from(piece, &mut |block| self.flash.erase_queued(piece.die, block, at_ns));
                source.map_or(0, |s| log.get(&(s.block, s.unit)).copied().unwrap_or(0)).min(done)
            } else {
                done
            };
            latest = Some(latest.unwrap_or(0).max(found));
        }
        Ok(latest)
    }

    /// Whether a read of `len_bytes` at byte `offset_bytes` would first have to program a partly
    /// filled unit holding its data (a host that journals what changes the drive, such as a
    /// served drive, flushes first so the read changes nothing).
    pub fn read_needs_program(&self, offset_bytes: u64, len_bytes: u64) -> bool {
        if len_bytes == 0 {
            return false;
        }
        let span = SectorSpan::of(&Io { op: Op::Read, offset_bytes, len_bytes });
        let mut pieces = Vec::new();
        for lba in span.first..=span.last.min(self.translation.user_sectors().saturating_sub(1)) {
            self.translation.pieces(lba, &mut pieces);
        }
        self.translation.first_unprogrammed(&pieces).is_some()
    }

    /// Program the partly filled unit of open `block` now (padded), from `ready_ns`: data a
    /// read needs must be on the flash first.
    pub(crate) fn program_waiting_unit(&mut self, block: u32, ready_ns: Nanoseconds) {
        let host_ready_ns = ready_ns.max(self.encoded_until_ns);
        let (translation, mut sink) = self.sink(host_ready_ns, ready_ns);
        translation.program_open_unit(block, &mut sink);
        let programmed_ns = sink.host_program_done_ns;
        let error = sink.data_error.take();
        let _ = self.note_data_error(error);
        self.last_host_program_ns = self.last_host_program_ns.max(programmed_ns);
    }

    /// The physical pieces of sectors `first..=last` (in `self.pieces`' storage, which the caller
    /// gives back), every one on the flash: data still waiting in a partly filled program unit
    /// (the write buffer does not serve reads) has its unit programmed first, padded, from
    /// `ready_ns`; the read then senses it after the program, so no read completes before the
    /// program of its data. Also returns how many of the sectors have no pieces (unmapped).
    pub(crate) fn pieces_on_flash(&mut self, first: u64, last: u64, ready_ns: Nanoseconds) -> (Vec<Piece>, UnmappedSectors) {
        let mut pieces = std::mem::take(&mut self.pieces);
        // Bounded: each round programs one open block's partly filled unit; at most every die's
        // host and GC block can hold one, and padding a host unit may start GC, which may move
        // data into a partly filled GC unit (padding that one moves nothing).
        for _ in 0..4 * self.profile.geometry.dies() + 8 {
            pieces.clear();
            let mut unmapped = UnmappedSectors::default();
            // The first two groups were prefetched before the command (stage 2).
            let ahead = RunAhead::new(first, last + 1);
            for lba in first..=last {
                ahead.before_read(self.translation.as_ref(), lba);
                let before = pieces.len();
                self.translation.pieces(lba, &mut pieces);
                if pieces.len() == before {
                    unmapped.count += 1;
                    unmapped.first |= lba == first;
                    unmapped.last |= lba == last;
                }
            }
            match self.translation.first_unprogrammed(&pieces) {
                None => return (pieces, unmapped),
                Some(waiting) => {
                    self.pieces = pieces;
                    self.program_waiting_unit(waiting.block, ready_ns);
                    pieces = std::mem::take(&mut self.pieces);
                }
            }
        }
        panic!("sectors {first}..={last} still wait in unprogrammed units after programming them");
    }

    /// Content tag of logical sector `lba` (page FTL with tags only; 0 when unmapped).
    pub fn read_tag(&self, lba: u64) -> u64 {
        self.translation.read_tag(lba)
    }

    /// Start keeping what fio's `verify` checks (the first run with a job that has verify
    /// calls it): the translation layer keeps each sector's content identity from now on, and
    /// the host's record of what it wrote starts empty. Sectors written before have no
    /// identity, so a verify read of them fails, as fio finds no header there.
    pub fn start_verify(&mut self) {
        if self.expected.is_none() {
            self.translation.keep_content_ids();
            self.expected = Some(Box::default());
        }
    }

    /// The host's record of what it wrote with verify headers (after [`Drive::start_verify`]).
    pub fn verify_record(&self) -> Option<&crate::expected::ExpectedIds> {
        self.expected.as_deref()
    }

    /// The host's record, to change: runs note their writes in it, and tests use it to make an
    /// expectation wrong on purpose (a verify read of that sector must then fail).
    pub fn verify_record_mut(&mut self) -> Option<&mut crate::expected::ExpectedIds> {
        self.expected.as_deref_mut()
    }

    /// The content identity sector `lba` holds, found through the map
    /// ([`Translation::content_id`]; 0 before [`Drive::start_verify`] on the page FTL).
    pub fn content_id(&self, lba: u64) -> u64 {
        self.translation.content_id(lba)
    }

    /// The bytes of logical sector `lba` (data-reduction drives in real-bytes mode): zeros when
    /// unmapped, trimmed or written with zeros.
    pub fn read_sector_bytes(&self, lba: u64) -> Result<Vec<u8>> {
        if lba >= self.translation.user_sectors() {
            bail!(Request, "sector {lba} is beyond the last sector {}", self.translation.user_sectors() - 1);
        }
        if let Some(plane) = self.data_plane.as_deref() {
            return match self.translation.data_location(lba) {
                DataLocation::Zeros => Ok(vec![0; SECTOR_BYTES as usize]),
                DataLocation::At { addr_bytes, region_bytes } => {
                    let mut region = vec![0u8; region_bytes as usize];
                    plane.read_at(addr_bytes, &mut region).map_err(|e| ssdlab_core::Error::Io(format!("sector {lba}: cannot read its data: {e}")))?;
                    decode_region(&region).map_err(|e| ssdlab_core::Error::Io(format!("sector {lba}: {e}")))
                }
            };
        }
        if self.options.content != ContentMode::Real || self.translation.reduction_stats().is_none() {
            bail!(Request, "this drive does not keep data bytes (needs a data-reduction profile in real-bytes mode)");
        }
        match self.translation.stored_sector(lba) {
            StoredSector::Zeros => Ok(vec![0; SECTOR_BYTES as usize]),
            StoredSector::Bytes(stored) => ssdlab_reduce::decompress_sector(stored).map_err(ssdlab_core::Error::Request),
            StoredSector::NotKept => bail!(Request, "sector {lba} has no stored bytes"),
        }
    }
}

/// Counters saved with a drive's state.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedCounters {
    flash: ssdlab_nand::FlashCounters,
    drive: DriveCounters,
    /// Which map pages exist in flash (a DRAM-less controller's map cache): a restored drive
    /// that forgot them would read its map for free.
    map_pages_in_flash: Option<Vec<bool>>,
}

impl SavedCounters {
    fn write(&self, out: &mut dyn std::io::Write) -> Result<()> {
        bincode::serialize_into(out, self).map_err(|e| ssdlab_core::Error::Io(format!("cannot save the drive's counters: {e}")))
    }

    fn read(input: &mut dyn std::io::Read) -> Result<Self> {
        bincode::deserialize_from(input).map_err(|e| ssdlab_core::Error::Io(format!("cannot read the drive's saved counters: {e}")))
    }
}

#[cfg(test)]
mod saved_layout_tests {
    use super::*;

    /// The host counters a saved state holds keep the layout of backing-file format 4 (13
    /// counters of 8 bytes): bincode has no optional fields, so a counter added to the saved
    /// ones makes every file saved before unreadable (`serde(default)` does not help there). A
    /// new counter is `serde(skip)`, or comes with a new format version.
    #[test]
    fn saved_host_counters_keep_their_layout() {
        let counters = DriveCounters { unmapped_read_bytes: 7, ..Default::default() };
        let bytes = bincode::serialize(&counters).unwrap();
        assert_eq!(bytes.len(), 13 * 8);
        let back: DriveCounters = bincode::deserialize(&bytes).unwrap();
        assert_eq!(back, DriveCounters::default());
    }
}
