//! The untimed path of writes and TRIMs: the state changes of `write_path.rs` and
//! `Drive::serve_trim` (placements, garbage collection, wear, the FTL's and the array's counters
//! and energy, the write buffer's positions, the map cache, content tags, the small-random-write
//! cap's credit) without booking any die, channel, link or engine time. A fast-forward
//! (`fast_forward.rs`) drives it to bring a drive to a preconditioned state at the speed of the
//! FTL alone.
//!
//! The FTL knows nothing of time, so for the same commands in the same order it makes the same
//! decisions here as on the timed path: the same placements, the same GC victims and copies,
//! the same padding of a partly filled unit when the buffer needs the room. What is not
//! reproduced is only what depends on when things happen: bookings, latencies, and the work in
//! flight at the end (a fast-forward ends with the drive idle).
//!
//! **Rule for new mechanisms**: a stage of the timed write or TRIM path that changes state other
//! than time (a metadata write to flash, say) must have its counterpart here, or be named in
//! `docs/fast-forward.md` as not part of fast-forwarded preconditioning. Mechanisms inside the
//! FTL come along by themselves: the FTL issues its flash operations through [`UntimedSink`].
//! `tests/fast_forward.rs` holds the two paths to the same FTL state byte for byte.

use crate::buffer::WriteBuffer;
use crate::drive::{Drive, SectorSpan};
use crate::engine::Engine;
use crate::run_ahead::RunAhead;
use ssdlab_core::time::transfer_ns;
use ssdlab_core::{bail, Nanoseconds, Result};
use ssdlab_ftl::FlashSink;
use ssdlab_nand::{FlashArray, Media, OpKind, OpTime, SECTOR_BYTES};
use ssdlab_reduce::ContentSource;
use ssdlab_workload::{Io, Op};

/// The work done on the untimed path since it started, per resource, from which its end is
/// derived: the time the busiest resource needs for it (a lower bound of what the timed path
/// would have taken).
#[derive(Debug, Clone)]
pub struct UntimedWork {
    start_ns: Nanoseconds,
    die_ns: Vec<Nanoseconds>,
    channel_ns: Vec<Nanoseconds>,
    channel_of_die: Vec<u32>,
    /// Command overheads on the host link, and the bytes it carried.
    link_ns: Nanoseconds,
    link_bytes: u64,
    link_rate: u64,
    controller_ns: Nanoseconds,
    front_end_ns: Nanoseconds,
    back_end_ns: Nanoseconds,
    /// Small random writes the firmware's cap admits (drives with a cap).
    capped_writes: u64,
    commands: u64,
}

impl UntimedWork {
    /// Simulated time the untimed work started (the drive was idle then).
    pub fn start_ns(&self) -> Nanoseconds {
        self.start_ns
    }

    /// Commands done so far.
    pub fn commands(&self) -> u64 {
        self.commands
    }

    /// Time the busiest resource (a die, a channel, the host link, the command processor, a
    /// stage of the engine) needs for the work so far.
    pub fn busiest_ns(&self) -> Nanoseconds {
        let dies = self.die_ns.iter().copied().max().unwrap_or(0);
        let channels = self.channel_ns.iter().copied().max().unwrap_or(0);
        let link = self.link_ns + transfer_ns(self.link_bytes, self.link_rate);
        dies.max(channels).max(link).max(self.controller_ns).max(self.front_end_ns).max(self.back_end_ns)
    }

    #[inline]
    fn add(&mut self, die: u32, t: OpTime) {
        self.die_ns[die as usize] += t.die_ns;
        self.channel_ns[self.channel_of_die[die as usize] as usize] += t.channel_ns;
    }
}

/// Counts the FTL's flash operations on the array (operations, bytes, energy, wear is the FTL's
/// own) and the engine's recoding of GC copies, with no bookings; host programs release their
/// write-buffer positions at once.
pub(crate) struct UntimedSink<'a> {
    flash: &'a mut FlashArray,
    media: &'a Media,
    buffer: &'a mut WriteBuffer,
    engine: Option<&'a mut Engine>,
    work: &'a mut UntimedWork,
    planes: u32,
    unit_bytes: u64,
}

impl FlashSink for UntimedSink<'_> {
    #[inline]
    fn program(&mut self, die: u32, block: u32, unit: u32, kind: OpKind) {
        self.program_cells(die, block, unit, kind, false);
    }

    /// As `TimedSink::program_cells`: a multi-plane page in pSLC mode (or on legacy media), a
    /// one-shot word line on every plane natively.
    #[inline]
    fn program_cells(&mut self, die: u32, _block: u32, _unit: u32, kind: OpKind, slc: bool) {
        let pages = if slc { 1 } else { self.media.native_pages_per_program() };
        let t = self.flash.count_program(die, self.planes * pages, self.unit_bytes * pages as u64, kind, self.media.program_ns(slc), slc);
        self.work.add(die, t);
        if kind == OpKind::Host {
            self.buffer.release_pending(self.work.start_ns);
        }
    }

    #[inline]
    fn read_for_move(&mut self, die: u32, block: u32, unit: u32, bytes: u64) {
        self.read_for_move_cells(die, block, unit, bytes, false);
    }

    #[inline]
    fn read_for_move_cells(&mut self, die: u32, _block: u32, unit: u32, bytes: u64, slc: bool) {
        let t = self.flash.count_read(die, self.planes, bytes, OpKind::Internal, self.media.read_ns(slc, unit));
        self.work.add(die, t);
        if let Some(engine) = self.engine.as_deref_mut() {
            self.work.back_end_ns += engine.count_recode(bytes);
        }
    }

    /// As `TimedSink::read_metadata`: a map page read before its write-back, on the die.
    fn read_metadata(&mut self, die: u32, _block: u32, _unit: u32, bytes: u64) {
        let sense_ns = self.flash.timing().t_read_ns;
        let t = self.flash.count_read(die, self.planes, bytes, OpKind::Internal, sense_ns);
        self.work.add(die, t);
    }

    #[inline]
    fn erase(&mut self, die: u32, _block: u32) {
        let t = self.flash.count_erase(die, self.planes);
        self.work.add(die, t);
    }
}

impl Drive {
    /// Start untimed work once everything booked so far has finished (or at `at_ns`, if
    /// later). A drive that stores its data in a data plane (a served drive) is refused: its
    /// preconditioning is timed.
    pub fn start_untimed(&mut self, at_ns: Nanoseconds) -> Result<UntimedWork> {
        if self.data_plane.is_some() || self.options.store_data {
            bail!(Request, "a drive that stores its data (a served drive) cannot be fast-forwarded; precondition it with timing");
        }
        let mut start_ns = at_ns.max(self.quiesce_ns()).max(self.buffer.last_release_ns());
        if self.models_power {
            // As before a timed command: the heat catches up, a resting drive wakes.
            start_ns = self.before_command(start_ns);
        }
        let g = &self.profile.geometry;
        Ok(UntimedWork {
            start_ns,
            die_ns: vec![0; g.dies() as usize],
            channel_ns: vec![0; g.channels as usize],
            channel_of_die: (0..g.dies()).map(|d| g.channel_of_die(d)).collect(),
            link_ns: 0,
            link_bytes: 0,
            link_rate: self.profile.host.link_bytes_per_second,
            controller_ns: 0,
            front_end_ns: 0,
            back_end_ns: 0,
            capped_writes: 0,
            commands: 0,
        })
    }

    /// End untimed work: returns the simulated time at which it ends (its start plus the time
    /// the busiest resource needs for it), from which the drive is idle, with the
    /// small-random-write cap's credit as the writes left it.
    pub fn finish_untimed(&mut self, work: &UntimedWork) -> Nanoseconds {
        let mut end_ns = work.start_ns + work.busiest_ns();
        if let Some(cap) = self.cap.as_mut() {
            end_ns = end_ns.max(cap.admit_many(work.start_ns, work.capped_writes));
        }
        self.forget_before(end_ns);
        self.controller_free_ns = self.controller_free_ns.max(end_ns);
        if self.models_power && work.commands > 0 {
            // The step's commands keep the controller busy from its start to its end (one is
            // always outstanding), and its work (the NAND's operations, the controller's
            // active time and bytes moved) heats the drive evenly over that time. The step is
            // not throttled: on a drive that would throttle during it, the same heat lands over
            // a shorter time than timed (docs/todays-drives.md).
            self.after_command(work.start_ns, end_ns);
            self.busy_with_work(end_ns);
        }
        end_ns
    }

    /// Serve one write or TRIM on the untimed path (reads are refused: what they do is only
    /// time). Written sectors take their content from `content`.
    pub fn submit_untimed<C: ContentSource>(&mut self, io: &Io, content: &mut C, work: &mut UntimedWork) -> Result<()> {
        self.check_range(io)?;
        let c = &self.profile.controller;
        work.commands += 1;
        work.controller_ns += c.command_processing_ns;
        match io.op {
            Op::Read => bail!(Request, "a read cannot be fast-forwarded (what a read does is only time)"),
            Op::Write => {
                // Admission (as `Drive::admit`): sequential detection and the cap's credit.
                let sequential = io.offset_bytes == self.last_write_end_bytes;
                self.last_write_end_bytes = io.offset_bytes + io.len_bytes;
                if !sequential && io.len_bytes <= c.small_random_write_max_bytes && self.cap.is_some() {
                    work.capped_writes += 1;
                }
                let first_tag = self.next_tags(io);
                self.write_untimed(io, first_tag, content, work)
            }
            Op::Trim => {
                work.controller_ns += (c.trim_ns_per_mib as u128 * io.len_bytes as u128 / (1u128 << 20)) as u64;
                self.trim_sectors(io)?;
                work.link_ns += self.profile.host.command_overhead_ns;
                self.counters.trim_commands += 1;
                self.counters.host_trim_bytes += io.len_bytes;
                Ok(())
            }
        }
    }

    /// The write stages of `write_path.rs` without their times: read-modify-write of partial
    /// sectors (map lookups and reads counted), the map cache, buffer positions (padding the
    /// open unit when the buffer needs the room), the engine's work counted, and each sector
    /// prepared and placed.
    fn write_untimed<C: ContentSource>(&mut self, io: &Io, first_tag: u64, content: &mut C, work: &mut UntimedWork) -> Result<()> {
        if let Some(failure) = &self.data_failure {
            bail!(Io, "the drive stopped taking writes after a data failure: {failure}");
        }
        let span = SectorSpan::of(io);
        self.read_modify_write_untimed(io, span, work);
        if let Some(cache) = self.map_cache.as_mut() {
            cache.update(span.first, span.last);
        }
        let needs_content = self.translation.needs_content();
        let planes = self.profile.geometry.planes_per_die;
        let unit_bytes = self.profile.geometry.unit_bytes();
        let ahead = RunAhead::new(span.first, span.last + 1);
        for piece in self.pieces_of(io, span) {
            if piece.leading {
                work.link_ns += self.profile.host.command_overhead_ns;
            }
            work.link_bytes += piece.bytes;
            let mut sink = UntimedSink {
                flash: &mut self.flash,
                media: &self.profile.media,
                buffer: &mut self.buffer,
                engine: self.engine.as_mut(),
                work,
                planes,
                unit_bytes,
            };
            if sink.buffer.blocked_by_pending(piece.sectors as usize) {
                self.translation.pad_open_unit(&mut sink);
                assert_eq!(sink.buffer.pending_sectors(), 0, "padding the open unit left buffered sectors unprogrammed");
            }
            if let Some(engine) = sink.engine.as_deref_mut() {
                sink.work.front_end_ns += engine.count_front_end_write(piece.sectors);
            }
            let tags = first_tag + (piece.first - span.first);
            if sink.engine.is_none() && self.translation.slot_per_sector() {
                for index in 0..piece.sectors {
                    ahead.before(self.translation.as_ref(), piece.first + index);
                    sink.buffer.push();
                    self.translation.write_slot(piece.first + index, tags + index, &mut sink)?;
                }
                continue;
            }
            for index in 0..piece.sectors {
                ahead.before(self.translation.as_ref(), piece.first + index);
                let sector = self.translation.prepare(tags + index, needs_content.then(|| content.next_content()))?;
                let stored_bytes = sector.stored_bytes();
                if stored_bytes > 0 {
                    if let Some(engine) = sink.engine.as_deref_mut() {
                        sink.work.back_end_ns += engine.count_encode(stored_bytes);
                    }
                }
                if stored_bytes == 0 {
                    sink.buffer.push_absorbed(sink.work.start_ns);
                } else {
                    sink.buffer.push();
                }
                self.translation.write(piece.first + index, sector, &mut sink)?;
            }
        }
        self.counters.write_commands += 1;
        self.counters.host_write_bytes += io.len_bytes;
        Ok(())
    }

    /// As `Drive::read_modify_write`: partial sectors at either end look up the map (a map
    /// page the cache lacks is read) and read their old data; counted, not booked.
    fn read_modify_write_untimed(&mut self, io: &Io, span: SectorSpan, work: &mut UntimedWork) {
        let end = io.offset_bytes + io.len_bytes;
        let head_partial = !io.offset_bytes.is_multiple_of(SECTOR_BYTES);
        let tail_partial = !end.is_multiple_of(SECTOR_BYTES);
        if !head_partial && !tail_partial {
            return;
        }
        let planes = self.profile.geometry.planes_per_die;
        if let Some(cache) = self.map_cache.as_mut() {
            let mut misses = std::mem::take(&mut self.map_misses);
            misses.clear();
            cache.lookup(span.first, span.last, &mut misses);
            let dies = self.profile.geometry.dies() as u64;
            let page_bytes = self.profile.geometry.page_bytes as u64;
            let t_read_ns = self.flash.timing().t_read_ns;
            for &page in &misses {
                let die = (page % dies) as u32;
                let t = self.flash.count_read(die, 1, page_bytes, OpKind::Internal, t_read_ns);
                work.add(die, t);
                self.counters.map_page_reads += 1;
            }
            self.map_misses = misses;
        }
        for (partial, lba) in [(head_partial, span.first), (tail_partial && (span.last != span.first || !head_partial), span.last)] {
            if !partial {
                continue;
            }
            let mut pieces = std::mem::take(&mut self.pieces);
            pieces.clear();
            self.translation.pieces(lba, &mut pieces);
            if !pieces.is_empty() {
                self.counters.read_modify_writes += 1;
            }
            for piece in &pieces {
                let sense_ns = self.profile.media.read_ns(self.translation.block_is_slc(piece.block), piece.unit);
                let t = self.flash.count_read(piece.die, planes, piece.bytes, OpKind::Host, sense_ns);
                work.add(piece.die, t);
            }
            self.pieces = pieces;
        }
    }
}
