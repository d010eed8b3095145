//! Firmware metadata: written through the host stream as pseudo-sectors, and its counters.

use super::Ftl;
use crate::metadata::{Metadata, MetadataStats};
use crate::metadata_writer::{write_due_metadata, MetadataWriter};
use crate::sink::FlashSink;
use crate::UNMAPPED;
use ssdlab_core::Result;
use ssdlab_nand::{OpKind, SECTOR_BYTES};

impl Ftl {
    /// Write the metadata sectors due now (full journal sectors, a checkpoint's dirty map
    /// pages) through the host stream ([`write_due_metadata`]).
    #[inline]
    pub(super) fn write_metadata<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> Result<()> {
        write_due_metadata(self, sink)
    }

    /// Metadata pseudo-sectors mapped now (map pages and journal sectors written so far).
    pub fn metadata_sectors_mapped(&self) -> u64 {
        self.meta_live
    }

    /// Metadata counters (when metadata is modelled).
    pub fn metadata_stats(&self) -> Option<MetadataStats> {
        self.meta.as_ref().map(|m| m.stats)
    }
}

impl MetadataWriter for Ftl {
    fn metadata_and_busy(&mut self) -> (&mut Option<Metadata>, &mut bool) {
        (&mut self.meta, &mut self.meta_busy)
    }

    fn read_metadata_sector<S: FlashSink + ?Sized>(&self, sector: u64, sink: &mut S) {
        if let Some(loc) = self.lookup(sector) {
            sink.read_metadata(loc.die, loc.block, loc.unit, SECTOR_BYTES);
        }
    }

    /// Write metadata pseudo-sector `sector` in the host stream.
    fn write_metadata_sector<S: FlashSink + ?Sized>(&mut self, sector: u64, sink: &mut S) -> Result<()> {
        let old = self.l2p[sector as usize];
        if old != UNMAPPED {
            self.invalidate(old);
        } else {
            self.meta_live += 1;
        }
        let (block, slot) = self.allocate_host_slot(sink)?;
        self.place_in(block, sector, slot, 0);
        self.stats.metadata_sectors_written += 1;
        self.after_slot_written(block, OpKind::Host, sink);
        Ok(())
    }
}
