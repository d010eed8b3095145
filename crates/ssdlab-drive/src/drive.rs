//! The drive: host interface, controller, FTL and NAND composed.

use crate::buffer::WriteBuffer;
use crate::sink::TimedSink;
use crate::throttle::SmallWriteCap;
use ssdlab_core::time::transfer_ns;
use ssdlab_core::{bail, Nanoseconds, Result, Timeline};
use ssdlab_ftl::Ftl;
use ssdlab_nand::{FlashArray, OpKind, SECTOR_BYTES};
use ssdlab_profile::Profile;
use ssdlab_workload::{Io, Op};

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
}

/// A simulated SSD.
pub struct Drive {
    profile: Profile,
    flash: FlashArray,
    ftl: Ftl,
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
        Self::with_tags(profile, false)
    }

    /// A drive that also keeps a content tag per sector (for checked runs and tests).
    pub fn with_tags(profile: Profile, track_tags: bool) -> Result<Self> {
        let mut ftl_config = profile.ftl.clone();
        ftl_config.track_tags = track_tags;
        let ftl = Ftl::new(ftl_config, &profile.origin)?;
        let flash = FlashArray::new(profile.geometry.clone(), profile.timing.clone(), profile.energy.clone());
        let buffer = WriteBuffer::new((profile.controller.write_buffer_bytes / SECTOR_BYTES) as usize);
        let cap = SmallWriteCap::new(profile.controller.small_random_write_cap_iops, profile.controller.small_random_write_burst_ios);
        Ok(Self {
            profile,
            flash,
            ftl,
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

    /// The FTL (read-only).
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
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

    /// Time at which everything booked so far (host and internal) has finished.
    pub fn quiesce_ns(&self) -> Nanoseconds {
        self.flash.all_idle_ns().max(self.controller_free_ns).max(self.link.free_from_ns())
    }

    fn check_range(&self, io: &Io) -> Result<()> {
        let capacity = self.profile.capacity_bytes_user;
        if io.len_bytes == 0 {
            bail!(Request, "zero-length command at byte {}", io.offset_bytes);
        }
        if io.offset_bytes % 512 != 0 || io.len_bytes % 512 != 0 {
            bail!(Request, "command at byte {} of {} bytes is not in whole 512-byte sectors", io.offset_bytes, io.len_bytes);
        }
        if io.offset_bytes.checked_add(io.len_bytes).is_none_or(|end| end > capacity) {
            bail!(Request, "command at byte {} of {} bytes reaches beyond the capacity of {capacity} bytes", io.offset_bytes, io.len_bytes);
        }
        Ok(())
    }

    /// Serve one host command arriving at `at_ns`; returns its completion time.
    pub fn submit(&mut self, io: &Io, at_ns: Nanoseconds) -> Result<Nanoseconds> {
        let tags = self.next_tags(io);
        self.submit_tagged(io, at_ns, tags)
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

    /// Serve one command; written sectors get consecutive content tags from `first_tag`.
    pub fn submit_tagged(&mut self, io: &Io, at_ns: Nanoseconds, first_tag: u64) -> Result<Nanoseconds> {
        self.check_range(io)?;
        self.flash.forget_before(at_ns);
        self.link.forget_before(at_ns);
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
            Op::Write => self.serve_write(io, command_done, first_tag),
            Op::Trim => self.serve_trim(io, command_done),
        }
    }

    fn link_time_ns(&self, bytes: u64) -> Nanoseconds {
        self.profile.host.command_overhead_ns + transfer_ns(bytes, self.profile.host.link_bytes_per_second)
    }

    fn serve_read(&mut self, io: &Io, command_done: Nanoseconds) -> Result<Nanoseconds> {
        let first = io.offset_bytes / SECTOR_BYTES;
        let last = (io.offset_bytes + io.len_bytes - 1) / SECTOR_BYTES;
        let planes = self.profile.geometry.planes_per_die;
        let mut ready_min = Nanoseconds::MAX;
        let mut ready_max = command_done;
        // Consecutive sectors in the same unit are read with one sense.
        let mut group: Option<(u32, u32, u32, u64)> = None; // (die, block, unit, sectors)
        let mut flush_group = |flash: &mut FlashArray, g: (u32, u32, u32, u64), counters: &mut DriveCounters| {
            let done = flash.read(g.0, command_done, planes, g.3 * SECTOR_BYTES, OpKind::Host);
            counters.host_nand_reads += 1;
            ready_min = ready_min.min(done);
            ready_max = ready_max.max(done);
        };
        for lba in first..=last {
            match self.ftl.lookup(lba) {
                None => self.counters.unmapped_sector_reads += 1,
                Some(loc) => match group {
                    Some((d, b, u, n)) if d == loc.die && b == loc.block && u == loc.unit => group = Some((d, b, u, n + 1)),
                    Some(g) => {
                        flush_group(&mut self.flash, g, &mut self.counters);
                        group = Some((loc.die, loc.block, loc.unit, 1));
                    }
                    None => group = Some((loc.die, loc.block, loc.unit, 1)),
                },
            }
        }
        if let Some(g) = group {
            flush_group(&mut self.flash, g, &mut self.counters);
        }
        if ready_min == Nanoseconds::MAX {
            ready_min = command_done;
        }
        // Data streams to the host as it arrives from the array: the link starts with the first
        // data and cannot finish before the last sector has arrived and crossed it.
        let total = self.link_time_ns(io.len_bytes);
        let last_piece = transfer_ns(SECTOR_BYTES.min(io.len_bytes), self.profile.host.link_bytes_per_second);
        let link_start = self.link.book(ready_min, total);
        let done = (link_start + total).max(ready_max + last_piece);
        self.counters.read_commands += 1;
        self.counters.host_read_bytes += io.len_bytes;
        Ok(done)
    }

    fn serve_write(&mut self, io: &Io, command_done: Nanoseconds, first_tag: u64) -> Result<Nanoseconds> {
        let first = io.offset_bytes / SECTOR_BYTES;
        let end = io.offset_bytes + io.len_bytes;
        let last = (end - 1) / SECTOR_BYTES;
        let sectors = (last - first + 1) as usize;
        let planes = self.profile.geometry.planes_per_die;
        // Partial sectors at either end need the old data first (read-modify-write).
        let mut rmw_ready = command_done;
        let head_partial = io.offset_bytes % SECTOR_BYTES != 0;
        let tail_partial = end % SECTOR_BYTES != 0;
        for (partial, lba) in [(head_partial, first), (tail_partial && (last != first || !head_partial), last)] {
            if partial {
                if let Some(loc) = self.ftl.lookup(lba) {
                    let done = self.flash.read(loc.die, command_done, planes, SECTOR_BYTES, OpKind::Host);
                    rmw_ready = rmw_ready.max(done);
                    self.counters.read_modify_writes += 1;
                }
            }
        }
        let room = self.buffer.room_at(sectors);
        let link_time = self.link_time_ns(io.len_bytes);
        let link_done = self.link.book(command_done.max(room), link_time) + link_time;
        let mut sink = TimedSink::new(&mut self.flash, &mut self.buffer, link_done.max(rmw_ready), command_done);
        for (i, lba) in (first..=last).enumerate() {
            sink.buffer.push();
            self.ftl.write(lba, first_tag + i as u64, &mut sink)?;
        }
        self.last_host_program_ns = self.last_host_program_ns.max(sink.host_program_done_ns);
        self.counters.write_commands += 1;
        self.counters.host_write_bytes += io.len_bytes;
        Ok(link_done)
    }

    fn serve_trim(&mut self, io: &Io, command_done: Nanoseconds) -> Result<Nanoseconds> {
        // Only whole sectors inside the range are deallocated.
        let first = io.offset_bytes.div_ceil(SECTOR_BYTES);
        let end = (io.offset_bytes + io.len_bytes) / SECTOR_BYTES;
        for lba in first..end {
            self.ftl.trim(lba)?;
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
        self.ftl.pad_open_unit(&mut sink);
        let programmed = sink.host_program_done_ns;
        self.last_host_program_ns = self.last_host_program_ns.max(programmed);
        start.max(self.last_host_program_ns).max(self.buffer.last_release_ns())
    }

    /// ATA SECURE ERASE: every block erased, every mapping dropped. Returns the completion time.
    pub fn secure_erase(&mut self, at_ns: Nanoseconds) -> Nanoseconds {
        let start = at_ns.max(self.quiesce_ns());
        self.ftl.secure_erase();
        let done = self.flash.erase_all(start);
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
                if free_at >= until_ns || !self.ftl.wants_idle_gc(die) {
                    break;
                }
                let mut sink = TimedSink::new(&mut self.flash, &mut self.buffer, free_at, free_at);
                if !self.ftl.collect_one(die, &mut sink) {
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
        self.ftl.prefetch_mapping(io.offset_bytes / SECTOR_BYTES);
    }

    /// Prefetch stage 2, a few commands later: what overwriting its first sector touches.
    #[inline]
    pub fn prefetch_stage2(&self, io: &Io) {
        if io.op == Op::Write {
            self.ftl.prefetch_old_slot(io.offset_bytes / SECTOR_BYTES);
        }
    }

    /// Content tag of logical sector `lba` (tracked drives only; 0 when unmapped).
    pub fn read_tag(&self, lba: u64) -> u64 {
        self.ftl.read_tag(lba)
    }
}
