//! Firmware metadata: written through the host stream as pseudo-sectors, and its counters.

use super::Ftl;
use crate::metadata::{MetaWrite, Metadata, MetadataStats};
use crate::sink::FlashSink;
use crate::UNMAPPED;
use ssdlab_core::Result;
use ssdlab_nand::{OpKind, SECTOR_BYTES};

impl Ftl {
    /// Write the metadata sectors due now (full journal sectors, a checkpoint's dirty map
    /// pages) through the host stream. GC those writes start notes further map changes; they
    /// are written in the same loop, never from inside it.
    pub(super) fn write_metadata<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> Result<()> {
        if self.meta.is_none() || self.meta_busy {
            return Ok(());
        }
        self.meta_busy = true;
        let result = (|| {
            while let Some(work) = self.meta.as_mut().and_then(Metadata::next_write) {
                match work {
                    MetaWrite::Journal { sector } => self.write_metadata_sector(sector, sink)?,
                    MetaWrite::MapPage { first, sectors, read } => {
                        for sector in first..first + sectors {
                            if read {
                                if let Some(loc) = self.lookup(sector) {
                                    sink.read_metadata(loc.die, loc.block, loc.unit, SECTOR_BYTES);
                                }
                            }
                            self.write_metadata_sector(sector, sink)?;
                        }
                    }
                }
            }
            Ok(())
        })();
        self.meta_busy = false;
        result
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

    /// Metadata pseudo-sectors mapped now (map pages and journal sectors written so far).
    pub fn metadata_sectors_mapped(&self) -> u64 {
        self.meta_live
    }

    /// Metadata counters (when metadata is modelled).
    pub fn metadata_stats(&self) -> Option<MetadataStats> {
        self.meta.as_ref().map(|m| m.stats)
    }
}
