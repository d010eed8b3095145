//! The interface through which the FTL issues flash operations (and, for FTLs built to store
//! data, the data itself: physical byte addresses run block by block, `block * block_bytes`).

use ssdlab_nand::OpKind;

/// Receives the flash operations the FTL decides on, in the order they must happen.
pub trait FlashSink {
    /// Unit `unit` of `block` on `die` is full (or padded) and must be programmed.
    fn program(&mut self, die: u32, block: u32, unit: u32, kind: OpKind);
    /// Garbage collection reads `bytes` of live data from unit `unit` of `block` on `die`.
    fn read_for_move(&mut self, die: u32, block: u32, unit: u32, bytes: u64);
    /// Like [`FlashSink::program`], saying whether the block is in pSLC mode (`slc`) or native
    /// (where a unit is a one-shot word line when the media programs so).
    fn program_cells(&mut self, die: u32, block: u32, unit: u32, kind: OpKind, slc: bool) {
        let _ = slc;
        self.program(die, block, unit, kind);
    }
    /// Like [`FlashSink::read_for_move`], saying whether the block is in pSLC mode (a fold).
    fn read_for_move_cells(&mut self, die: u32, block: u32, unit: u32, bytes: u64, slc: bool) {
        let _ = slc;
        self.read_for_move(die, block, unit, bytes);
    }
    /// The firmware reads `bytes` of a metadata page (a map page about to be written back) from
    /// unit `unit` of `block` on `die`; what is written after it waits for it.
    fn read_metadata(&mut self, die: u32, block: u32, unit: u32, bytes: u64) {
        let _ = (die, block, unit, bytes);
    }
    /// `block` on `die` is erased.
    fn erase(&mut self, die: u32, block: u32);
    /// Host data (one sector's stored bytes, `payload`) lands in the region of `region_bytes`
    /// at physical byte address `addr_bytes` (FTLs built to store data only).
    fn store(&mut self, addr_bytes: u64, region_bytes: u64, payload: &[u8]) {
        let _ = (addr_bytes, region_bytes, payload);
    }
    /// Garbage collection moved `len_bytes` of data from physical byte address `from_bytes` to
    /// `to_bytes` (FTLs built to store data only).
    fn relocate(&mut self, from_bytes: u64, to_bytes: u64, len_bytes: u64) {
        let _ = (from_bytes, to_bytes, len_bytes);
    }
}

/// A sink that ignores every operation (for tests of the mapping alone).
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl FlashSink for NullSink {
    fn program(&mut self, _die: u32, _block: u32, _unit: u32, _kind: OpKind) {}
    fn read_for_move(&mut self, _die: u32, _block: u32, _unit: u32, _bytes: u64) {}
    fn erase(&mut self, _die: u32, _block: u32) {}
}
