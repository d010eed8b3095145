//! Host writes: a sector mapped to the host stream's next slot, its old slot invalidated.

use super::Ftl;
use crate::sink::FlashSink;
use crate::UNMAPPED;
use ssdlab_core::{ensure, Result};
use ssdlab_nand::{OpKind, SECTOR_BYTES};

impl Ftl {
    /// Write logical sector `lba` with content `tag`.
    pub fn write<S: FlashSink + ?Sized>(&mut self, lba: u64, tag: u64, sink: &mut S) -> Result<()> {
        self.write_data(lba, tag, None, sink)
    }

    /// Write logical sector `lba` with content `tag` and, when the FTL stores data, its bytes
    /// (`payload`: the sector's stored form, see [`ssdlab_reduce::SectorContent`]).
    pub fn write_data<S: FlashSink + ?Sized>(&mut self, lba: u64, tag: u64, payload: Option<&[u8]>, sink: &mut S) -> Result<()> {
        ensure!(lba < self.config.user_sectors, Request, "sector {lba} is beyond the last sector {}", self.config.user_sectors - 1);
        let old = self.l2p[lba as usize];
        if old != UNMAPPED {
            self.invalidate(old);
        }
        let (block, slot) = self.allocate_host_slot(sink)?;
        self.place_in(block, lba, slot, tag);
        if self.config.store_data {
            let payload = payload.ok_or_else(|| ssdlab_core::Error::Request(format!("sector {lba}: a drive that stores data needs the sector's bytes")))?;
            sink.store(slot as u64 * SECTOR_BYTES, SECTOR_BYTES, payload);
        }
        self.stats.host_sectors_written += 1;
        if self.pool.blocks[block as usize].slc {
            self.stats.slc_host_sectors += 1;
        }
        self.after_slot_written(block, OpKind::Host, sink);
        if let Some(meta) = self.meta.as_mut() {
            meta.changed(lba);
        }
        self.write_metadata(sink)
    }
}
