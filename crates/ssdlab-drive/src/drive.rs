//! The drive: host interface, controller, FTL and NAND composed.

use crate::buffer::WriteBuffer;
use crate::map_cache::MapCache;
use crate::mapper::{Mapper, Piece};
use crate::sink::TimedSink;
use crate::throttle::SmallWriteCap;
use ssdlab_core::time::transfer_ns;
use ssdlab_core::{bail, Nanoseconds, Result, Timeline};
use ssdlab_ftl::{ChunkFtl, Ftl};
use ssdlab_nand::{FlashArray, OpKind, SECTOR_BYTES};
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
}

impl Default for DriveOptions {
    fn default() -> Self {
        Self { track_tags: false, content: ContentMode::Modeled }
    }
}

/// Host-side counters since power-on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
}

/// A simulated SSD.
pub struct Drive {
    profile: Profile,
    flash: FlashArray,
    mapper: Mapper,
    options: DriveOptions,
    engine: Timeline,
    default_content: ContentStream,
    pieces: Vec<Piece>,
    map_cache: Option<MapCache>,
    map_misses: Vec<u64>,
    buffer: WriteBuffer,
    cap: Option<SmallWriteCap>,
    controller_free_ns: Nanoseconds,
    link: Timeline,
    last_write_end_bytes: u64,
    last_host_program_ns: Nanoseconds,
    counters: DriveCounters,
    tag_counter: u64,
}

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
        let mapper = match &profile.reduction {
            Some(reduction) => {
                let mut config = reduction.chunk.clone();
                config.keep_payloads = options.content == ContentMode::Real;
                Mapper::Chunk(ChunkFtl::new(config, &profile.origin)?)
            }
            None => {
                let mut ftl_config = profile.ftl.clone();
                ftl_config.track_tags = options.track_tags;
                Mapper::Page(Ftl::new(ftl_config, &profile.origin)?)
            }
        };
        let flash = FlashArray::new(profile.geometry.clone(), profile.timing.clone(), profile.energy.clone());
        let buffer = WriteBuffer::new((profile.controller.write_buffer_bytes / SECTOR_BYTES) as usize);
        let c = &profile.controller;
        let map_cache = MapCache::new(c.map_cache_bytes, c.map_entry_bytes, profile.geometry.page_bytes as u64, mapper.user_sectors());
        let cap = SmallWriteCap::new(c.small_random_write_cap_iops, c.small_random_write_burst_ios);
        Ok(Self {
            profile,
            flash,
            mapper,
            options,
            engine: Timeline::new(),
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
            counters: DriveCounters::default(),
            tag_counter: 0,
        })
    }

    /// The profile the drive was built from.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The translation layer (read-only).
    pub fn mapper(&self) -> &Mapper {
        &self.mapper
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

    /// Bytes of user space workloads may address (capacity less any reserved fraction).
    pub fn usable_bytes(&self) -> u64 {
        self.profile.usable_bytes()
    }

    /// Future bookings held by the channel, engine and link timelines (diagnostic).
    pub fn pending_bookings(&self) -> (usize, usize, usize) {
        (self.flash.channel_bookings(), self.engine.pending_bookings(), self.link.pending_bookings())
    }

    /// Time at which everything booked so far (host and internal) has finished.
    pub fn quiesce_ns(&self) -> Nanoseconds {
        self.flash.all_idle_ns().max(self.controller_free_ns).max(self.link.free_from_ns())
    }

    fn check_range(&self, io: &Io) -> Result<()> {
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

    /// Serve one host command; written sectors take their content from `content`.
    pub fn submit_with<C: ContentSource>(&mut self, io: &Io, at_ns: Nanoseconds, content: &mut C) -> Result<Nanoseconds> {
        let tags = self.next_tags(io);
        self.submit_inner(io, at_ns, tags, content)
    }

    fn next_tags(&mut self, io: &Io) -> u64 {
        if io.op == Op::Write {
            let first = self.tag_counter + 1;
            self.tag_counter += io.len_bytes.div_ceil(SECTOR_BYTES) + 1;
            first
        } else {
            0
        }
    }

    fn submit_inner<C: ContentSource>(&mut self, io: &Io, at_ns: Nanoseconds, first_tag: u64, content: &mut C) -> Result<Nanoseconds> {
        self.check_range(io)?;
        self.flash.forget_before(at_ns);
        self.link.forget_before(at_ns);
        self.engine.forget_before(at_ns);
        let c = &self.profile.controller;
        let mut start = at_ns;
        if io.op == Op::Write {
            let sequential = io.offset_bytes == self.last_write_end_bytes;
            self.last_write_end_bytes = io.offset_bytes + io.len_bytes;
            if !sequential && io.len_bytes <= c.small_random_write_max_bytes {
                if let Some(cap) = self.cap.as_mut() {
                    start = cap.admit(start);
                }
            }
        }
        let command_start = start.max(self.controller_free_ns);
        let mut processing = c.command_processing_ns;
        if io.op == Op::Trim {
            processing += (c.trim_ns_per_mib as u128 * io.len_bytes as u128 / (1u128 << 20)) as u64;
        }
        let command_done = command_start + processing;
        self.controller_free_ns = command_done;
        match io.op {
            Op::Read => self.serve_read(io, command_done),
            Op::Write => self.serve_write(io, command_done, first_tag, content),
            Op::Trim => self.serve_trim(io, command_done),
        }
    }

    fn link_time_ns(&self, bytes: u64) -> Nanoseconds {
        self.profile.host.command_overhead_ns + transfer_ns(bytes, self.profile.host.link_bytes_per_second)
    }

    /// Read the map pages of sectors `first..=last` the map cache lacks; returns when the
    /// command knows where its data is.
    fn look_up_map(&mut self, first: u64, last: u64, command_done: Nanoseconds) -> Nanoseconds {
        let Some(cache) = self.map_cache.as_mut() else { return command_done };
        let mut misses = std::mem::take(&mut self.map_misses);
        misses.clear();
        cache.lookup(first, last, &mut misses);
        let mut known = command_done;
        let dies = self.profile.geometry.dies() as u64;
        let page_bytes = self.profile.geometry.page_bytes as u64;
        for &page in &misses {
            // Map pages are spread over the dies; a miss senses one page and transfers it whole
            // into the cache.
            known = known.max(self.flash.read((page % dies) as u32, command_done, 1, page_bytes, OpKind::Internal));
            self.counters.map_page_reads += 1;
        }
        self.map_misses = misses;
        known
    }

    fn serve_read(&mut self, io: &Io, command_done: Nanoseconds) -> Result<Nanoseconds> {
        let first = io.offset_bytes / SECTOR_BYTES;
        let last = (io.offset_bytes + io.len_bytes - 1) / SECTOR_BYTES;
        let command_done = self.look_up_map(first, last, command_done);
        let planes = self.profile.geometry.planes_per_die;
        let mut pieces = std::mem::take(&mut self.pieces);
        pieces.clear();
        for lba in first..=last {
            let before = pieces.len();
            self.mapper.pieces(lba, &mut pieces);
            if pieces.len() == before {
                self.counters.unmapped_sector_reads += 1;
            }
        }
        // One sense per run of pieces in the same program unit. With partial-page reads only
        // the needed bytes cross the channel (a chunk shared by consecutive sectors once);
        // otherwise every page touched is transferred whole.
        let partial = self.mapper.partial_page_reads();
        let page_bytes = self.profile.geometry.page_bytes as u64;
        let mut ready_min = Nanoseconds::MAX;
        let mut ready_max = command_done;
        let mut index = 0;
        let mut nand_bytes = 0u64;
        let mut stored_bytes = 0u64;
        while index < pieces.len() {
            let head = pieces[index];
            stored_bytes += head.bytes;
            let mut bytes = if partial { head.bytes } else { page_bytes };
            let (mut last_chunk, mut last_page) = (head.chunk, head.page);
            let mut next = index + 1;
            while next < pieces.len() && pieces[next].die == head.die && pieces[next].block == head.block && pieces[next].unit == head.unit {
                let p = pieces[next];
                if p.chunk != last_chunk || p.page != last_page {
                    stored_bytes += p.bytes;
                }
                if partial && (p.chunk != last_chunk || p.page != last_page) {
                    bytes += p.bytes;
                } else if !partial && p.page != last_page {
                    bytes += page_bytes;
                }
                last_chunk = p.chunk;
                last_page = p.page;
                next += 1;
            }
            let done = self.flash.read(head.die, command_done, planes, bytes, OpKind::Host);
            self.counters.host_nand_reads += 1;
            nand_bytes += bytes;
            ready_min = ready_min.min(done);
            ready_max = ready_max.max(done);
            index = next;
        }
        self.pieces = pieces;
        if ready_min == Nanoseconds::MAX {
            ready_min = command_done;
        }
        // Decoding (back end, on stored bytes) and decompression by the engine, when there is
        // one, as data arrives.
        if let Some(reduction) = &self.profile.reduction {
            if nand_bytes > 0 {
                let time = transfer_ns(io.len_bytes, reduction.decompress_bytes_per_second)
                    .max(transfer_ns(if partial { stored_bytes } else { nand_bytes }, reduction.backend_read_bytes_per_second));
                let start = self.engine.book(ready_min, time);
                let per_sector = transfer_ns(SECTOR_BYTES, reduction.decompress_bytes_per_second);
                ready_max = (start + time).max(ready_max + per_sector);
                ready_min = start + per_sector.min(time);
            }
        }
        // Data streams to the host as it arrives: the link starts with the first data and
        // cannot finish before the last sector has arrived and crossed it.
        let total = self.link_time_ns(io.len_bytes);
        let last_piece = transfer_ns(SECTOR_BYTES.min(io.len_bytes), self.profile.host.link_bytes_per_second);
        let link_start = self.link.book(ready_min, total);
        let done = (link_start + total).max(ready_max + last_piece);
        self.counters.read_commands += 1;
        self.counters.host_read_bytes += io.len_bytes;
        self.counters.host_read_sectors += last - first + 1;
        Ok(done)
    }

    fn serve_write<C: ContentSource>(&mut self, io: &Io, command_done: Nanoseconds, first_tag: u64, content: &mut C) -> Result<Nanoseconds> {
        let first = io.offset_bytes / SECTOR_BYTES;
        let end = io.offset_bytes + io.len_bytes;
        let last = (end - 1) / SECTOR_BYTES;
        let planes = self.profile.geometry.planes_per_die;
        // Partial sectors at either end need the old data first (read-modify-write).
        let mut rmw_ready = command_done;
        let head_partial = !io.offset_bytes.is_multiple_of(SECTOR_BYTES);
        let tail_partial = !end.is_multiple_of(SECTOR_BYTES);
        // Only a read-modify-write needs to know where the old data is; otherwise the new
        // entries simply go into the cached map page.
        let command_done = if head_partial || tail_partial { self.look_up_map(first, last, command_done) } else { command_done };
        if let Some(cache) = self.map_cache.as_mut() {
            cache.update(first, last);
        }
        for (partial, lba) in [(head_partial, first), (tail_partial && (last != first || !head_partial), last)] {
            if partial {
                let mut pieces = std::mem::take(&mut self.pieces);
                pieces.clear();
                self.mapper.pieces(lba, &mut pieces);
                if !pieces.is_empty() {
                    self.counters.read_modify_writes += 1;
                }
                for piece in &pieces {
                    let done = self.flash.read(piece.die, command_done, planes, piece.bytes, OpKind::Host);
                    rmw_ready = rmw_ready.max(done);
                }
                self.pieces = pieces;
            }
        }
        // The data streams through the write buffer in pieces of at most a quarter of it, so a
        // command larger than the buffer moves at the pace the buffer drains.
        let piece_max = (self.buffer.capacity() / 4).max(1) as u64;
        let chunked = matches!(self.mapper, Mapper::Chunk(_));
        let mut lba = first;
        let mut link_free = command_done;
        let mut data_in = command_done;
        let mut host_program_done = 0;
        while lba <= last {
            let n = piece_max.min(last - lba + 1);
            let piece_bytes = end.min((lba + n) * SECTOR_BYTES) - io.offset_bytes.max(lba * SECTOR_BYTES);
            if self.buffer.blocked_by_pending(n as usize) {
                // The buffer is full of data parked in a partly filled unit (the writes that would
                // complete it were absorbed as duplicates or zeros): program it padded, as a
                // controller does when it needs the space.
                let mut sink = TimedSink::new(&mut self.flash, &mut self.buffer, command_done, command_done);
                self.mapper.pad_open_unit(&mut sink);
                let padded_until = sink.host_program_done_ns;
                self.buffer.release_pending(padded_until.max(command_done));
            }
            let room = self.buffer.room_at(n as usize);
            let overhead = if lba == first { self.profile.host.command_overhead_ns } else { 0 };
            let link_time = overhead + transfer_ns(piece_bytes, self.profile.host.link_bytes_per_second);
            let link_start = self.link.book(link_free.max(room), link_time);
            let link_done = link_start + link_time;
            link_free = link_done;
            // The engine fingerprints and compresses the data on its way into the buffer;
            // hashing, compression and table updates are pipelined stages: the slowest sets the
            // pace. Its back end (encryption, ECC encoding) works on what is actually stored,
            // known once the sectors are mapped; it is booked right after, below.
            let mut engine_end = None;
            data_in = match &self.profile.reduction {
                None => link_done,
                Some(r) => {
                    let bytes = n * SECTOR_BYTES;
                    let time = transfer_ns(bytes, r.hash_bytes_per_second)
                        .max(transfer_ns(bytes, r.compress_bytes_per_second))
                        .max(transfer_ns(n, r.chunks_per_second));
                    let first_sector = transfer_ns(SECTOR_BYTES.min(piece_bytes), self.profile.host.link_bytes_per_second);
                    let start = self.engine.book(link_start + overhead + first_sector, time);
                    engine_end = Some((start, time));
                    (start + time).max(link_done)
                }
            };
            let mut stored_bytes = 0;
            let mut sink = TimedSink::new(&mut self.flash, &mut self.buffer, data_in.max(rmw_ready), command_done);
            for lba in lba..lba + n {
                sink.buffer.push();
                if chunked {
                    let sector = content.next_content();
                    let stored = self.mapper.write(lba, 0, Some(sector), &mut sink)?;
                    if stored == 0 {
                        sink.buffer.release_newest(data_in);
                    }
                    stored_bytes += stored;
                } else {
                    self.mapper.write(lba, first_tag + (lba - first), None, &mut sink)?;
                }
            }
            host_program_done = host_program_done.max(sink.host_program_done_ns);
            if let (Some(r), Some((start, time))) = (&self.profile.reduction, engine_end) {
                let backend = transfer_ns(stored_bytes, r.backend_write_bytes_per_second);
                if backend > time {
                    // The back end is the slowest stage for this piece: the engine stays busy
                    // until it is done, and so does the command.
                    self.engine.book(start + time, backend - time);
                    data_in = data_in.max(start + backend);
                }
            }
            lba += n;
        }
        self.last_host_program_ns = self.last_host_program_ns.max(host_program_done);
        self.counters.write_commands += 1;
        self.counters.host_write_bytes += io.len_bytes;
        Ok(data_in)
    }

    fn serve_trim(&mut self, io: &Io, command_done: Nanoseconds) -> Result<Nanoseconds> {
        // Only whole sectors inside the range are deallocated.
        let first = io.offset_bytes.div_ceil(SECTOR_BYTES);
        let end = (io.offset_bytes + io.len_bytes) / SECTOR_BYTES;
        for lba in first..end {
            self.mapper.trim(lba)?;
        }
        if let (Some(cache), true) = (self.map_cache.as_mut(), end > first) {
            cache.update(first, end - 1);
        }
        let overhead = self.profile.host.command_overhead_ns;
        let link_done = self.link.book(command_done, overhead) + overhead;
        self.counters.trim_commands += 1;
        self.counters.host_trim_bytes += io.len_bytes;
        Ok(link_done)
    }

    /// FLUSH CACHE: program the partly filled unit and wait for every buffered write.
    pub fn flush(&mut self, at_ns: Nanoseconds) -> Nanoseconds {
        let start = at_ns.max(self.controller_free_ns);
        let mut sink = TimedSink::new(&mut self.flash, &mut self.buffer, start, start);
        self.mapper.pad_open_unit(&mut sink);
        let programmed = sink.host_program_done_ns;
        self.last_host_program_ns = self.last_host_program_ns.max(programmed);
        start.max(self.last_host_program_ns).max(self.buffer.last_release_ns())
    }

    /// ATA SECURE ERASE: every block erased, every mapping dropped. Returns the completion time.
    pub fn secure_erase(&mut self, at_ns: Nanoseconds) -> Nanoseconds {
        let start = at_ns.max(self.quiesce_ns());
        self.mapper.secure_erase();
        if let Some(cache) = self.map_cache.as_mut() {
            cache.clear();
        }
        let done = self.flash.erase_all(start);
        self.engine = Timeline::new();
        self.buffer.reset(done);
        self.controller_free_ns = done;
        self.link = Timeline::new();
        self.flash.forget_before(done);
        self.last_write_end_bytes = u64::MAX;
        done
    }

    /// Let the drive sit idle from `from_ns` until `until_ns`: garbage collection works on dies
    /// below their idle target, starting only while a die is free before `until_ns`.
    /// Returns the number of blocks reclaimed.
    pub fn idle(&mut self, from_ns: Nanoseconds, until_ns: Nanoseconds) -> u64 {
        let mut reclaimed = 0;
        for die in 0..self.profile.geometry.dies() {
            loop {
                let free_at = self.flash.die_free_ns(die).max(from_ns);
                if free_at >= until_ns || !self.mapper.wants_idle_gc(die) {
                    break;
                }
                let mut sink = TimedSink::new(&mut self.flash, &mut self.buffer, free_at, free_at);
                if !self.mapper.collect_one(die, &mut sink) {
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
        self.mapper.prefetch_mapping(io.offset_bytes / SECTOR_BYTES);
    }

    /// Prefetch stage 2, a few commands later: what overwriting its first sector touches.
    #[inline]
    pub fn prefetch_stage2(&self, io: &Io) {
        if io.op == Op::Write {
            self.mapper.prefetch_old_slot(io.offset_bytes / SECTOR_BYTES);
        }
    }

    /// Prefetch stage 3, just before submission (data-reduction FTL: the old chunk's index slot).
    #[inline]
    pub fn prefetch_stage3(&self, io: &Io) {
        if io.op == Op::Write {
            self.mapper.prefetch_old_index_slot(io.offset_bytes / SECTOR_BYTES);
        }
    }

    /// Prefetch what storing content with this fingerprint will probe.
    #[inline]
    pub fn prefetch_content(&self, content: &ssdlab_reduce::SectorContent) {
        if !content.zero {
            self.mapper.prefetch_fingerprint(content.fingerprint);
        }
    }

    /// Content tag of logical sector `lba` (page FTL with tags only; 0 when unmapped).
    pub fn read_tag(&self, lba: u64) -> u64 {
        match &self.mapper {
            Mapper::Page(f) => f.read_tag(lba),
            Mapper::Chunk(_) => 0,
        }
    }

    /// The bytes of logical sector `lba` (data-reduction drives in real-bytes mode): zeros when
    /// unmapped, trimmed or written with zeros.
    pub fn read_sector_bytes(&self, lba: u64) -> Result<Vec<u8>> {
        match &self.mapper {
            Mapper::Chunk(f) if self.options.content == ContentMode::Real => match f.read_payload(lba) {
                None if f.locate(lba).is_some() => bail!(Request, "sector {lba} has no stored bytes"),
                None => Ok(vec![0; SECTOR_BYTES as usize]),
                Some(stored) => ssdlab_reduce::decompress_sector(stored).map_err(ssdlab_core::Error::Request),
            },
            _ => bail!(Request, "this drive does not keep data bytes (needs a data-reduction profile in real-bytes mode)"),
        }
    }
}
