//! The interface through which the FTL issues flash operations.

use ssdlab_nand::OpKind;

/// Receives the flash operations the FTL decides on, in the order they must happen.
pub trait FlashSink {
    /// Unit `unit` of `block` on `die` is full (or padded) and must be programmed.
    fn program(&mut self, die: u32, block: u32, unit: u32, kind: OpKind);
    /// Garbage collection reads `bytes` of live data from unit `unit` of `block` on `die`.
    fn read_for_move(&mut self, die: u32, block: u32, unit: u32, bytes: u64);
    /// `block` on `die` is erased.
    fn erase(&mut self, die: u32, block: u32);
}

/// A sink that ignores every operation (for tests of the mapping alone).
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl FlashSink for NullSink {
    fn program(&mut self, _die: u32, _block: u32, _unit: u32, _kind: OpKind) {}
    fn read_for_move(&mut self, _die: u32, _block: u32, _unit: u32, _bytes: u64) {}
    fn erase(&mut self, _die: u32, _block: u32) {}
}
