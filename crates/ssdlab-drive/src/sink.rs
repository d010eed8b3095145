//! Turns the FTL's flash operations into timed operations on the array (and, on a drive with a
//! data-reduction engine, on the engine's back end for GC copies).

use crate::buffer::WriteBuffer;
use crate::engine::Engine;
use ssdlab_core::Nanoseconds;
use ssdlab_ftl::FlashSink;
use ssdlab_nand::{FlashArray, OpKind};

/// Books FTL operations on the array at the right times.
pub(crate) struct TimedSink<'a> {
    flash: &'a mut FlashArray,
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
    /// GC data read so far is ready to be programmed (read, and recoded by the engine's back
    /// end when there is one) from this time.
    gc_data_ready_ns: Nanoseconds,
}

impl<'a> TimedSink<'a> {
    pub fn new(
        flash: &'a mut FlashArray,
        buffer: &'a mut WriteBuffer,
        engine: Option<&'a mut Engine>,
        host_ready_ns: Nanoseconds,
        internal_ready_ns: Nanoseconds,
    ) -> Self {
        let planes = flash.geometry().planes_per_die;
        let unit_bytes = flash.geometry().unit_bytes();
        Self { flash, buffer, engine, host_ready_ns, internal_ready_ns, host_program_done_ns: 0, planes, unit_bytes, gc_data_ready_ns: 0 }
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
    fn program(&mut self, die: u32, _block: u32, _unit: u32, kind: OpKind) {
        match kind {
            OpKind::Host => {
                let done = self.flash.program(die, self.host_ready_ns, self.planes, self.unit_bytes, OpKind::Host);
                self.buffer.release_pending(done);
                self.host_program_done_ns = self.host_program_done_ns.max(done);
            }
            OpKind::Internal => {
                let ready = self.internal_ready_ns.max(self.gc_data_ready_ns);
                self.flash.program(die, ready, self.planes, self.unit_bytes, OpKind::Internal);
            }
        }
    }

    #[inline]
    fn read_for_move(&mut self, die: u32, _block: u32, _unit: u32, bytes: u64) {
        let read = self.flash.read(die, self.internal_ready_ns, self.planes, bytes, OpKind::Internal);
        let ready = match self.engine.as_deref_mut() {
            Some(engine) => engine.recode(read, bytes),
            None => read,
        };
        self.gc_data_ready_ns = self.gc_data_ready_ns.max(ready);
    }

    #[inline]
    fn erase(&mut self, die: u32, _block: u32) {
        self.flash.erase(die, self.internal_ready_ns, self.planes);
    }
}
