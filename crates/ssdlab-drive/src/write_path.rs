//! A write, stage by stage.
//!
//! After admission (`Drive::admit`: small-random-write cap, command processor), the data of a
//! write moves through these stages in order, each a function below that takes the time the
//! data is ready and returns the time it leaves:
//!
//! 1. **read-modify-write** of partial sectors at either end (their old data is read first);
//! 2. **buffer room**: the piece waits until the write buffer has positions whose data has been
//!    programmed (the back-pressure through which NAND and GC throughput limit the host);
//! 3. **host link**: the piece crosses the SATA link;
//! 4. **engine front end** (data-reduction drives): fingerprint, compress, look up the index;
//! 5. **prepare and engine back end**, per sector: the FTL decides what storing it takes (a
//!    slot, a chunk of ECC units, nothing for zeros and duplicates), and the back end (data-
//!    reduction drives) encrypts and ECC-encodes exactly those bytes;
//! 6. **buffer and placement**: the sector takes a buffer position and the FTL places it; a
//!    program unit that fills is programmed (channel transfer, tPROG), never before all of its
//!    data has left the back end, and releases its buffer positions when it ends. Paced GC runs
//!    behind host programs.
//!
//! The command completes when all its data is in the buffer. A command larger than a quarter
//! of the buffer streams through it in pieces, so it moves at the pace the buffer drains.

use crate::drive::{Drive, SectorSpan};
use crate::engine::FrontEndPass;
use crate::run_ahead::RunAhead;
use ssdlab_core::time::transfer_ns;
use ssdlab_core::{Nanoseconds, Result};
use ssdlab_nand::SECTOR_BYTES;
use ssdlab_reduce::ContentSource;
use ssdlab_workload::Io;

/// Sectors `first..first + sectors` of a write, moving through the buffer together.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WritePiece {
    pub first: u64,
    pub sectors: u64,
    /// Host bytes of the piece (less than `sectors * 4096` at an unaligned end).
    pub bytes: u64,
    /// Whether this is the command's first piece (it carries the link's per-command overhead).
    pub leading: bool,
}

/// When a piece crossed the link: it started, and its last byte arrived.
#[derive(Debug, Clone, Copy)]
struct LinkPass {
    start_ns: Nanoseconds,
    overhead_ns: Nanoseconds,
    done_ns: Nanoseconds,
}

impl LinkPass {
    /// When sector `index` of the piece has fully arrived.
    fn sector_arrived_ns(&self, index: u64, piece_bytes: u64, link_bytes_per_second: u64) -> Nanoseconds {
        let through = ((index + 1) * SECTOR_BYTES).min(piece_bytes);
        if through == piece_bytes {
            // The piece's last sector arrives with its last byte.
            return self.done_ns;
        }
        (self.start_ns + self.overhead_ns + transfer_ns(through, link_bytes_per_second)).min(self.done_ns)
    }
}

impl Drive {
    /// Serve a write admitted at `admitted_ns`: the stages in order. Returns when the command
    /// completes (all its data in the buffer).
    pub(crate) fn serve_write<C: ContentSource>(&mut self, io: &Io, admitted_ns: Nanoseconds, first_tag: u64, content: &mut C) -> Result<Nanoseconds> {
        if let Some(failure) = &self.data_failure {
            ssdlab_core::bail!(Io, "the drive stopped taking writes after a data failure: {failure}");
        }
        let span = SectorSpan::of(io);
        let old_data_ns = self.read_modify_write(io, span, admitted_ns);
        if let Some(cache) = self.map_cache.as_mut() {
            cache.update(span.first, span.last);
        }
        let mut completed_ns = admitted_ns;
        let mut link_free_ns = admitted_ns;
        let ahead = RunAhead::new(span.first, span.last + 1);
        for piece in self.pieces_of(io, span) {
            let room_ns = self.buffer_room(piece, admitted_ns);
            let link = self.host_link(piece, room_ns.max(link_free_ns));
            link_free_ns = link.done_ns;
            let front = self.engine_front_end(piece, &link);
            let tags = first_tag + (piece.first - span.first);
            let in_buffer_ns = self.encode_and_place(piece, &link, front, tags, content, old_data_ns, admitted_ns, ahead)?;
            completed_ns = completed_ns.max(in_buffer_ns).max(link.done_ns);
        }
        self.counters.write_commands += 1;
        self.counters.host_write_bytes += io.len_bytes;
        Ok(completed_ns)
    }

    /// The command's sectors in pieces of at most a quarter of the buffer.
    pub(crate) fn pieces_of(&self, io: &Io, span: SectorSpan) -> impl Iterator<Item = WritePiece> {
        let piece_max = (self.buffer.capacity() / 4).max(1) as u64;
        let (start, end) = (io.offset_bytes, io.offset_bytes + io.len_bytes);
        (0..span.sectors().div_ceil(piece_max)).map(move |i| {
            let first = span.first + i * piece_max;
            let sectors = piece_max.min(span.last - first + 1);
            let bytes = end.min((first + sectors) * SECTOR_BYTES) - start.max(first * SECTOR_BYTES);
            WritePiece { first, sectors, bytes, leading: i == 0 }
        })
    }

    /// Stage 1: partial sectors at either end need their old data before the new data can be
    /// merged in. Only then does the controller need to know where the old data is (map
    /// lookup); otherwise the new entries simply go into the cached map page. Returns when the
    /// old data is in the controller.
    fn read_modify_write(&mut self, io: &Io, span: SectorSpan, admitted_ns: Nanoseconds) -> Nanoseconds {
        let end = io.offset_bytes + io.len_bytes;
        let head_partial = !io.offset_bytes.is_multiple_of(SECTOR_BYTES);
        let tail_partial = !end.is_multiple_of(SECTOR_BYTES);
        if !head_partial && !tail_partial {
            return admitted_ns;
        }
        let located_ns = self.look_up_map(span, admitted_ns);
        let planes = self.profile.geometry.planes_per_die;
        let mut ready_ns = located_ns;
        for (partial, lba) in [(head_partial, span.first), (tail_partial && (span.last != span.first || !head_partial), span.last)] {
            if !partial {
                continue;
            }
            // Old data still in a unit being filled is in the controller's buffer: the new bytes
            // merge with it there, with no program and no read of the flash.
            // Old data partly in such a unit is programmed first (`pieces_on_flash`); old data
            // all on the flash is read as it was looked up.
            let mut pieces = std::mem::take(&mut self.pieces);
            pieces.clear();
            self.translation.pieces(lba, &mut pieces);
            let waiting = pieces.iter().filter(|p| self.translation.first_unprogrammed(std::slice::from_ref(p)).is_some()).count();
            if waiting > 0 && waiting == pieces.len() {
                self.pieces = pieces;
                self.counters.read_modify_writes += 1;
                continue;
            }
            if waiting > 0 {
                self.pieces = pieces;
                pieces = self.pieces_on_flash(lba, lba, located_ns).0;
            }
            if !pieces.is_empty() {
                self.counters.read_modify_writes += 1;
            }
            for piece in &pieces {
                let slc = self.translation.block_is_slc(piece.block);
                let sense_ns = self.profile.media.read_ns(slc, piece.unit);
                let key = self.program_key(piece.block, piece.unit, slc);
                ready_ns = ready_ns.max(self.flash.read_data(piece.die, located_ns, planes, piece.bytes, sense_ns, key));
            }
            self.pieces = pieces;
        }
        ready_ns
    }

    /// Stage 2: when the buffer has room for the piece. If the positions it needs hold data
    /// parked in a partly filled unit (the writes that would complete it were absorbed as
    /// duplicates or zeros), that unit is programmed padded first, as a controller does when it
    /// needs the space.
    fn buffer_room(&mut self, piece: WritePiece, admitted_ns: Nanoseconds) -> Nanoseconds {
        if self.buffer.blocked_by_pending(piece.sectors as usize) {
            let ready_ns = admitted_ns.max(self.encoded_until_ns);
            let (translation, mut sink) = self.sink(ready_ns, admitted_ns);
            translation.pad_open_unit(&mut sink);
            let programmed_ns = sink.host_program_done_ns;
            let error = sink.data_error.take();
            let _ = self.note_data_error(error);
            self.last_host_program_ns = self.last_host_program_ns.max(programmed_ns);
            assert_eq!(self.buffer.pending_sectors(), 0, "padding the open unit left buffered sectors unprogrammed");
        }
        self.buffer.room_at(piece.sectors as usize)
    }

    /// Stage 3: the piece crosses the host link (with the command's link overhead on its first
    /// piece), once the link is free and the buffer has room.
    fn host_link(&mut self, piece: WritePiece, ready_ns: Nanoseconds) -> LinkPass {
        let overhead_ns = if piece.leading { self.profile.host.command_overhead_ns } else { 0 };
        let time_ns = overhead_ns + transfer_ns(piece.bytes, self.profile.host.link_bytes_per_second);
        let start_ns = self.link.book(ready_ns, time_ns);
        self.busy.link_ns += time_ns;
        LinkPass { start_ns, overhead_ns, done_ns: start_ns + time_ns }
    }

    /// Stage 4: the engine's front end (fingerprinting, compression, index) takes the piece as
    /// its first sector arrives; `None` on a drive without an engine.
    fn engine_front_end(&mut self, piece: WritePiece, link: &LinkPass) -> Option<FrontEndPass> {
        let first_in_ns = link.sector_arrived_ns(0, piece.bytes, self.profile.host.link_bytes_per_second);
        self.engine.as_mut().map(|engine| engine.front_end_write(first_in_ns, piece.sectors))
    }

    /// Stages 5 and 6, sector by sector: the FTL prepares the sector (what storing it takes),
    /// the engine's back end encrypts and encodes what is stored, then the sector takes a
    /// buffer position and the FTL places it; the unit it fills is programmed once all placed
    /// data is in the buffer (and the old data of a partial sector was read). A sector the
    /// engine absorbed (zeros, a duplicate) leaves the buffer at once. Returns when the piece's
    /// last sector is in the buffer.
    #[allow(clippy::too_many_arguments)]
    fn encode_and_place<C: ContentSource>(
        &mut self,
        piece: WritePiece,
        link: &LinkPass,
        front: Option<FrontEndPass>,
        first_tag: u64,
        content: &mut C,
        old_data_ns: Nanoseconds,
        admitted_ns: Nanoseconds,
        ahead: RunAhead,
    ) -> Result<Nanoseconds> {
        let link_rate = self.profile.host.link_bytes_per_second;
        let needs_content = self.translation.needs_content();
        let encoded_before_ns = self.encoded_until_ns;
        // Without an engine the piece is in the buffer when it has crossed the link; with one, each
        // sector when it leaves the back end (below).
        let ready_ns = if front.is_some() { encoded_before_ns } else { link.done_ns };
        let (translation, mut sink) = self.sink(ready_ns.max(old_data_ns), admitted_ns);
        let mut encoded_until_ns = encoded_before_ns;
        let mut in_buffer_max_ns = link.done_ns;
        if front.is_none() && translation.slot_per_sector() {
            // Every sector is a 4 KiB slot in the buffer once it crossed the link (the page FTL):
            // no preparation to time, nothing absorbed.
            for index in 0..piece.sectors {
                ahead.before(translation, piece.first + index);
                sink.buffer().push();
                translation.write_slot(piece.first + index, first_tag + index, &mut sink)?;
            }
        } else {
            for index in 0..piece.sectors {
                ahead.before(translation, piece.first + index);
                let sector = translation.prepare(first_tag + index, needs_content.then(|| content.next_content()))?;
                let stored_bytes = sector.stored_bytes();
                let in_buffer_ns = match front {
                    None => link.done_ns,
                    Some(front) => {
                        let front_done_ns = front.sector_done_ns(index, link.sector_arrived_ns(index, piece.bytes, link_rate));
                        if stored_bytes == 0 {
                            front_done_ns
                        } else {
                            let encoded_ns = sink.encode(front_done_ns, stored_bytes);
                            encoded_until_ns = encoded_until_ns.max(encoded_ns);
                            // A program carries data placed before: it waits for all of it.
                            sink.host_ready_ns = sink.host_ready_ns.max(encoded_until_ns);
                            encoded_ns
                        }
                    }
                };
                if stored_bytes == 0 {
                    sink.buffer().push_absorbed(in_buffer_ns);
                } else {
                    sink.buffer().push();
                }
                translation.write(piece.first + index, sector, &mut sink)?;
                in_buffer_max_ns = in_buffer_max_ns.max(in_buffer_ns);
            }
        }
        let programmed_ns = sink.host_program_done_ns;
        let error = sink.data_error.take();
        self.last_host_program_ns = self.last_host_program_ns.max(programmed_ns);
        self.encoded_until_ns = encoded_until_ns;
        self.note_data_error(error)?;
        Ok(in_buffer_max_ns)
    }
}
