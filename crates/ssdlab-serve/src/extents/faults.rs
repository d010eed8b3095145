//! Power-cut lab faults on the data region: a power cut, and data zeroed after the fact.

use super::{block_pieces, Extents, Run, Shared};

impl Extents {
    /// Power is off: a program in flight is torn (the first half of the newest run reaches the
    /// file, the rest does not), runs not yet written are lost, and nothing more is written.
    pub fn cut_power(&self) {
        let (_io, mut shared) = self.settled();
        if let Some(newest) = shared.open.pop() {
            let half = newest.len / 2;
            let _ = shared.file.write_all_at(&newest.bytes()[..half], newest.at);
            shared.recycle(newest);
        }
        let lost: Vec<Run> = {
            let Shared { ready, open, .. } = &mut *shared;
            ready.drain(..).chain(open.drain(..)).collect()
        };
        for run in lost {
            shared.recycle(run);
        }
        shared.dead = true;
    }

    /// Overwrite the `len` bytes at physical address `addr` with zeros in the file, durably (a
    /// fault of the power-cut lab: a program lost after the fact).
    pub fn zero_physical(&self, addr: u64, len: u64) -> std::io::Result<()> {
        self.write_out()?;
        let (_io, shared) = self.settled();
        let zeros = vec![0u8; len as usize];
        for (block, offset, range) in block_pieces(addr, len as usize, shared.layout.block_bytes) {
            if let Some(at) = shared.file_offset(block, offset) {
                shared.file.write_all_at(&zeros[range], at)?;
            }
        }
        shared.file.sync_data()
    }
}
