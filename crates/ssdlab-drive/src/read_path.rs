//! A read, stage by stage.
//!
//! After admission (`Drive::admit`), a read moves through these stages in order, each a
//! function below that takes the time the data is ready and returns the time it leaves:
//!
//! 1. **map lookup**: a controller without DRAM reads the map pages its SRAM cache lacks;
//! 2. **sense and channel**: one multi-plane sense per program unit touched, then the channel
//!    transfer of the bytes needed (or of whole pages, on engines that read whole pages);
//!    unmapped and zero sectors cost no NAND time;
//! 3. **engine** (data-reduction drives): the back end decodes and decrypts what crossed the
//!    channel, the front end decompresses, both streaming as data arrives;
//! 4. **host link**: the data streams to the host as it becomes available.

use crate::drive::{Drive, SectorSpan};
use crate::engine::DataStream;
use ssdlab_core::time::transfer_ns;
use ssdlab_core::Nanoseconds;
use ssdlab_ftl::Piece;
use ssdlab_nand::{unit_key, SECTOR_BYTES};
use ssdlab_workload::Io;

/// What the flash delivered for a read.
#[derive(Debug, Clone, Copy)]
struct Fetched {
    /// When the first and the last piece reached the controller.
    stream: DataStream,
    /// Bytes that crossed the channels.
    channel_bytes: u64,
    /// Bytes of the sectors' stored data among them.
    stored_bytes: u64,
}

impl Drive {
    /// Serve a read admitted at `admitted_ns`: the stages in order. Returns when the command
    /// completes (its last byte crossed the link).
    pub(crate) fn serve_read(&mut self, io: &Io, admitted_ns: Nanoseconds) -> Nanoseconds {
        let span = SectorSpan::of(io);
        let located_ns = self.look_up_map(span, admitted_ns);
        let fetched = self.sense_and_transfer(io, span, located_ns);
        let out_of_engine = self.engine_read(io, fetched);
        let done_ns = self.host_link_out(io, out_of_engine);
        self.counters.read_commands += 1;
        self.counters.host_read_bytes += io.len_bytes;
        self.counters.host_read_sectors += span.sectors();
        done_ns
    }

    /// Stage 1: read the map pages of the span's sectors that the map cache lacks (controllers
    /// without DRAM). Returns when the command knows where its data is. Map pages are spread
    /// over the dies; a miss senses one page and transfers it whole into the cache.
    pub(crate) fn look_up_map(&mut self, span: SectorSpan, ready_ns: Nanoseconds) -> Nanoseconds {
        let Some(cache) = self.map_cache.as_mut() else { return ready_ns };
        let mut misses = std::mem::take(&mut self.map_misses);
        misses.clear();
        cache.lookup(span.first, span.last, &mut misses);
        // With a host memory buffer the cached entry is fetched over PCIe first.
        let ready_ns = ready_ns + if self.profile.controller.hmb_bytes > 0 { self.profile.controller.hmb_access_ns } else { 0 };
        let mut known_ns = ready_ns;
        let dies = self.profile.geometry.dies() as u64;
        let read_bytes = self.map_read_bytes;
        let per_page = (self.profile.geometry.page_bytes as u64 / read_bytes).max(1);
        for &unit in &misses {
            // The cache's unit is a map page, or a codeword of one; the map page's number sets its die.
            let page = unit / per_page;
            known_ns = known_ns.max(self.flash.read_map_page((page % dies) as u32, ready_ns, read_bytes));
            self.counters.map_page_reads += 1;
        }
        self.map_misses = misses;
        known_ns
    }

    /// Stage 2: one sense per run of pieces in the same program unit, then the channel
    /// transfer. With partial-page reads only the needed bytes cross the channel (a chunk
    /// shared by consecutive sectors once); otherwise every page touched is transferred whole.
    fn sense_and_transfer(&mut self, io: &Io, span: SectorSpan, ready_ns: Nanoseconds) -> Fetched {
        let (mut pieces, unmapped) = self.pieces_on_flash(span.first, span.last, ready_ns);
        self.counters.unmapped_sector_reads += unmapped.count;
        self.counters.unmapped_read_bytes += unmapped.bytes(io);
        self.read_around_queued_programs(&mut pieces, ready_ns);
        let planes = self.profile.geometry.planes_per_die;
        let partial = self.translation.partial_page_reads();
        let page_bytes = self.profile.geometry.page_bytes as u64;
        let mut first_ns = Nanoseconds::MAX;
        let mut last_ns = ready_ns;
        let (mut channel_bytes, mut stored_bytes) = (0u64, 0u64);
        let mut index = 0;
        while index < pieces.len() {
            let head = pieces[index];
            stored_bytes += head.bytes;
            let mut bytes = if partial { head.bytes } else { page_bytes };
            let (mut last_chunk, mut last_page) = (head.chunk, head.page);
            let mut next = index + 1;
            while next < pieces.len() && pieces[next].die == head.die && pieces[next].block == head.block && pieces[next].unit == head.unit {
                let p = pieces[next];
                let new_data = p.chunk != last_chunk || p.page != last_page;
                if new_data {
                    stored_bytes += p.bytes;
                }
                if partial && new_data {
                    bytes += p.bytes;
                } else if !partial && p.page != last_page {
                    bytes += page_bytes;
                }
                last_chunk = p.chunk;
                last_page = p.page;
                next += 1;
            }
            let slc = self.translation.block_is_slc(head.block);
            let sense_ns = self.profile.media.read_ns(slc, head.unit);
            let done_ns = self.flash.read_data(head.die, ready_ns, planes, bytes, sense_ns, self.program_key(head.block, head.unit, slc));
            self.counters.host_nand_reads += 1;
            channel_bytes += bytes;
            first_ns = first_ns.min(done_ns);
            last_ns = last_ns.max(done_ns);
            index = next;
        }
        self.pieces = pieces;
        if first_ns == Nanoseconds::MAX {
            first_ns = ready_ns;
        }
        Fetched { stream: DataStream { first_ns, last_ns }, channel_bytes, stored_bytes }
    }

    /// Where reads go first, a piece whose program is still queued on its die is not waited
    /// for: data GC or folding copied is read from the copy's source (the map points at the
    /// copy once it is programmed, as firmware does), and data that has no source on the flash
    /// any more (host data in the write buffer, or a copy whose source's erase has begun, so
    /// GC read it into the controller already) is served from the controller's memory, with no
    /// NAND read. So the read need not wait for the work queued ahead of that program.
    /// Elsewhere reads are first come, first served and nothing changes (the era's drives are
    /// calibrated that way).
    fn read_around_queued_programs(&mut self, pieces: &mut Vec<Piece>, ready_ns: Nanoseconds) {
        if !self.flash.reads_go_first() {
            return;
        }
        let mut kept = 0;
        for i in 0..pieces.len() {
            let mut piece = pieces[i];
            if !piece.is_stale_pointer() {
                let slc = self.translation.block_is_slc(piece.block);
                if self.flash.program_pending(piece.die, self.program_key(piece.block, piece.unit, slc), ready_ns) {
                    let (flash, die) = (&self.flash, piece.die);
                    match self.translation.moved_from(&piece, &mut |block| flash.erase_queued(die, block, ready_ns)) {
                        Some(source) => {
                            piece = source;
                            self.counters.reads_of_queued_copies += 1;
                        }
                        None => {
                            self.counters.reads_from_controller_memory += 1;
                            continue;
                        }
                    }
                }
            }
            pieces[kept] = piece;
            kept += 1;
        }
        pieces.truncate(kept);
    }

    /// The name of the program that wrote multi-plane page `unit` of `block` (a one-shot native
    /// program writes several: it is named by its index, as the sink names it).
    #[inline]
    pub(crate) fn program_key(&self, block: u32, unit: u32, slc: bool) -> u64 {
        let pages = if slc { 1 } else { self.profile.media.native_pages_per_program() };
        unit_key(block, unit / pages)
    }

    /// Stage 3: the engine's back end decodes and decrypts what crossed the channel (with
    /// whole-page reads, every page moved; otherwise the stored bytes), and its front end
    /// decompresses the sectors, as the data arrives. Drives without an engine pass it on.
    fn engine_read(&mut self, io: &Io, fetched: Fetched) -> DataStream {
        match self.engine.as_mut() {
            Some(engine) if fetched.channel_bytes > 0 => {
                let decoded_bytes = if self.translation.partial_page_reads() { fetched.stored_bytes } else { fetched.channel_bytes };
                engine.read(fetched.stream, decoded_bytes, io.len_bytes)
            }
            _ => fetched.stream,
        }
    }

    /// Stage 4: data streams to the host as it arrives: the link starts with the first data
    /// and cannot finish before the last sector has arrived and crossed it.
    fn host_link_out(&mut self, io: &Io, data: DataStream) -> Nanoseconds {
        let link_bytes_per_second = self.profile.host.link_bytes_per_second;
        let total_ns = self.profile.host.command_overhead_ns + transfer_ns(io.len_bytes, link_bytes_per_second);
        let last_piece_ns = transfer_ns(SECTOR_BYTES.min(io.len_bytes), link_bytes_per_second);
        let start_ns = self.link.book(data.first_ns, total_ns);
        self.busy.link_ns += total_ns;
        (start_ns + total_ns).max(data.last_ns + last_piece_ns)
    }
}
