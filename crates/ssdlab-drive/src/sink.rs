//! Turns the FTL's flash operations into timed operations on the array (and, on a drive with a
//! data-reduction engine, on the engine's back end for GC copies).

use crate::buffer::WriteBuffer;
use crate::data_plane::DataPlane;
use crate::drive::ProgramLog;
use crate::engine::Engine;
use ssdlab_core::Nanoseconds;
use ssdlab_ftl::FlashSink;
use ssdlab_nand::{unit_key, FlashArray, Media, OpKind};

/// Books FTL operations on the array at the right times.
pub(crate) struct TimedSink<'a> {
    flash: &'a mut FlashArray,
    media: &'a Media,
    buffer: &'a mut WriteBuffer,
    engine: Option<&'a mut Engine>,
    /// Host data placed so far has left the engine (is in the buffer) from this time: a host
    /// program may not start earlier.
    pub host_ready_ns: Nanoseconds,
    /// Internal work (GC) may start from this time.
    internal_ready_ns: Nanoseconds,
    /// Latest end of a host program booked through this sink.
    pub host_program_done_ns: Nanoseconds,
    planes: u32,
    unit_bytes: u64,
    /// The die whose GC batch is being moved (GC reads a victim and programs its GC block on
    /// the same die), and when the data it read so far is ready to be programmed (read, and
    /// recoded by the engine's back end when there is one). Per die: a batch on one die never
    /// waits for another die's reads.
    gc_die: u32,
    gc_data_ready_ns: Nanoseconds,
    /// Where the drive's data is stored, when it stores data.
    data: Option<&'a mut (dyn DataPlane + 'static)>,
    /// The first data-plane failure (the operation that failed is named).
    pub data_error: Option<String>,
    block_bytes: u64,
    /// When each unit was programmed, on drives that record it.
    program_log: Option<&'a mut ProgramLog>,
}

impl<'a> TimedSink<'a> {
    pub fn new(
        flash: &'a mut FlashArray,
        media: &'a Media,
        buffer: &'a mut WriteBuffer,
        engine: Option<&'a mut Engine>,
        host_ready_ns: Nanoseconds,
        internal_ready_ns: Nanoseconds,
    ) -> Self {
        let planes = flash.geometry().planes_per_die;
        let unit_bytes = flash.geometry().unit_bytes();
        let block_bytes = unit_bytes * flash.geometry().units_per_block() as u64;
        Self {
            flash,
            media,
            buffer,
            engine,
            host_ready_ns,
            internal_ready_ns,
            host_program_done_ns: 0,
            planes,
            unit_bytes,
            gc_die: u32::MAX,
            gc_data_ready_ns: 0,
            data: None,
            data_error: None,
            block_bytes,
            program_log: None,
        }
    }

    /// Record every program's end in `log` (drives that record programs).
    pub fn with_program_log(mut self, log: Option<&'a mut ProgramLog>) -> Self {
        self.program_log = log;
        self
    }

    /// Note that multi-plane pages `unit * pages .. (unit + 1) * pages` of `block` were
    /// programmed, ending at `done_ns`.
    #[inline]
    fn log_program(&mut self, block: u32, unit: u32, pages: u32, done_ns: Nanoseconds) {
        if let Some(log) = self.program_log.as_deref_mut() {
            for page in unit * pages..(unit + 1) * pages {
                log.insert((block, page), done_ns);
            }
        }
    }

    /// Send data operations to `plane` as well.
    pub fn with_data(mut self, plane: Option<&'a mut (dyn DataPlane + 'static)>) -> Self {
        self.data = plane;
        self
    }

    fn data_failed(&mut self, what: String) {
        if self.data_error.is_none() {
            self.data_error = Some(what);
        }
    }

    /// Encrypt and ECC-encode `stored_bytes` of host data that left the engine's front end at
    /// `ready_ns` (drives with an engine). Returns when they have left the back end.
    #[inline]
    pub fn encode(&mut self, ready_ns: Nanoseconds, stored_bytes: u64) -> Nanoseconds {
        self.engine.as_deref_mut().expect("encoding needs a data-reduction engine").encode(ready_ns, stored_bytes)
    }

    /// The write buffer, for the write path's per-sector book-keeping.
    #[inline]
    pub fn buffer(&mut self) -> &mut WriteBuffer {
        self.buffer
    }
}

impl FlashSink for TimedSink<'_> {
    #[inline]
    fn program(&mut self, die: u32, block: u32, unit: u32, kind: OpKind) {
        self.program_cells(die, block, unit, kind, false);
    }

    /// One program unit: a multi-plane page in pSLC mode (or on legacy media), a one-shot word
    /// line on every plane natively; the media model gives its program time.
    #[inline]
    fn program_cells(&mut self, die: u32, block: u32, unit: u32, kind: OpKind, slc: bool) {
        let pages = if slc { 1 } else { self.media.native_pages_per_program() };
        let (plane_pages, bytes, prog_ns) = (self.planes * pages, self.unit_bytes * pages as u64, self.media.program_ns(slc));
        let done = match kind {
            OpKind::Host => {
                let done = self.flash.program_unit(die, self.host_ready_ns, plane_pages, bytes, OpKind::Host, prog_ns, slc, unit_key(block, unit));
                self.buffer.release_pending(done);
                self.host_program_done_ns = self.host_program_done_ns.max(done);
                done
            }
            OpKind::Internal => {
                let read_ready = if die == self.gc_die { self.gc_data_ready_ns } else { 0 };
                let ready = self.internal_ready_ns.max(read_ready);
                self.flash.program_unit(die, ready, plane_pages, bytes, OpKind::Internal, prog_ns, slc, unit_key(block, unit))
            }
        };
        self.log_program(block, unit, pages, done);
    }

    #[inline]
    fn read_for_move(&mut self, die: u32, block: u32, unit: u32, bytes: u64) {
        self.read_for_move_cells(die, block, unit, bytes, false);
    }

    #[inline]
    fn read_for_move_cells(&mut self, die: u32, _block: u32, unit: u32, bytes: u64, slc: bool) {
        let sense_ns = self.media.read_ns(slc, unit);
        let read = self.flash.read_sensed(die, self.internal_ready_ns, self.planes, bytes, OpKind::Internal, sense_ns);
        let ready = match self.engine.as_deref_mut() {
            Some(engine) => engine.recode(read, bytes),
            None => read,
        };
        if die != self.gc_die {
            self.gc_die = die;
            self.gc_data_ready_ns = 0;
        }
        self.gc_data_ready_ns = self.gc_data_ready_ns.max(ready);
    }

    /// A map page read before its write-back: booked as an internal read; host programs booked
    /// through this sink afterwards (the write-back among them) wait for it.
    fn read_metadata(&mut self, die: u32, _block: u32, _unit: u32, bytes: u64) {
        let done = self.flash.read(die, self.internal_ready_ns, self.planes, bytes, OpKind::Internal);
        self.host_ready_ns = self.host_ready_ns.max(done);
    }

    #[inline]
    fn erase(&mut self, die: u32, block: u32) {
        self.flash.erase_block(die, self.internal_ready_ns, self.planes, block);
        if let Some(log) = self.program_log.as_deref_mut() {
            log.retain(|&(b, _), _| b != block);
        }
        // After a data failure nothing is released: a move that failed left its data in place.
        if self.data_error.is_some() {
            return;
        }
        if let Some(plane) = self.data.as_deref_mut() {
            let addr = block as u64 * self.block_bytes;
            if let Err(e) = plane.discard(addr, self.block_bytes) {
                self.data_failed(format!("cannot release erased block {block} (bytes {addr}..): {e}"));
            }
        }
    }

    fn store(&mut self, addr_bytes: u64, region_bytes: u64, payload: &[u8]) {
        let Some(plane) = self.data.as_deref_mut() else { return };
        if let Err(e) = plane.write_region(addr_bytes, region_bytes, payload) {
            self.data_failed(format!("cannot store data at byte {addr_bytes}: {e}"));
        }
    }

    fn relocate(&mut self, from_bytes: u64, to_bytes: u64, len_bytes: u64) {
        let Some(plane) = self.data.as_deref_mut() else { return };
        if let Err(e) = plane.copy(from_bytes, to_bytes, len_bytes) {
            self.data_failed(format!("cannot move {len_bytes} bytes of data from byte {from_bytes} to {to_bytes}: {e}"));
        }
    }
}
