//! Turns the FTL's flash operations into timed operations on the array.

use crate::buffer::WriteBuffer;
use ssdlab_core::Nanoseconds;
use ssdlab_ftl::FlashSink;
use ssdlab_nand::{FlashArray, OpKind};

/// Books FTL operations on the array at the right times.
pub(crate) struct TimedSink<'a> {
    pub flash: &'a mut FlashArray,
    pub buffer: &'a mut WriteBuffer,
    /// Host data of the current command is in the controller from this time.
    pub host_ready_ns: Nanoseconds,
    /// Internal work (GC) may start from this time.
    pub internal_ready_ns: Nanoseconds,
    /// Latest end of a host program booked through this sink.
    pub host_program_done_ns: Nanoseconds,
    pub planes: u32,
    pub unit_bytes: u64,
    /// End of the latest GC read, so the copy is programmed after it was read.
    gc_read_done_ns: Nanoseconds,
}

impl<'a> TimedSink<'a> {
    pub fn new(flash: &'a mut FlashArray, buffer: &'a mut WriteBuffer, host_ready_ns: Nanoseconds, internal_ready_ns: Nanoseconds) -> Self {
        let planes = flash.geometry().planes_per_die;
        let unit_bytes = flash.geometry().unit_bytes();
        Self { flash, buffer, host_ready_ns, internal_ready_ns, host_program_done_ns: 0, planes, unit_bytes, gc_read_done_ns: 0 }
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
                let ready = self.internal_ready_ns.max(self.gc_read_done_ns);
                self.flash.program(die, ready, self.planes, self.unit_bytes, OpKind::Internal);
            }
        }
    }

    #[inline]
    fn read_for_move(&mut self, die: u32, _block: u32, _unit: u32, bytes: u64) {
        let done = self.flash.read(die, self.internal_ready_ns, self.planes, bytes, OpKind::Internal);
        self.gc_read_done_ns = done;
    }

    #[inline]
    fn erase(&mut self, die: u32, _block: u32) {
        self.flash.erase(die, self.internal_ready_ns, self.planes);
    }
}
