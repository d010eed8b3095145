//! Firmware metadata: written through the host stream as raw chunks, and its counters.

use super::{is_chunk, Chunk, ChunkFtl, Stream, META_KEY};
use crate::metadata::{MetaWrite, Metadata, MetadataStats};
use crate::sink::FlashSink;
use crate::UNMAPPED;
use ssdlab_core::Result;

impl ChunkFtl {
    /// Write the metadata sectors due now (full journal sectors, a checkpoint's dirty map
    /// pages) through the host stream, each as a raw chunk; the GC those writes start notes
    /// further map changes, written in the same loop, never from inside it.
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
                                if let Some(loc) = self.locate(sector) {
                                    sink.read_metadata(loc.die, loc.block, loc.first_unit, loc.bytes);
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

    /// Write metadata pseudo-sector `sector` as a new raw chunk in the host stream.
    fn write_metadata_sector<S: FlashSink + ?Sized>(&mut self, sector: u64, sink: &mut S) -> Result<()> {
        let len = self.full_chunk_units;
        let chunk = self.new_chunk_id()?;
        self.chunks[chunk as usize] = Chunk::new(UNMAPPED, META_KEY, len, 1, false);
        self.live_chunks += 1;
        self.place(Stream::Host, self.pool.host_cursor_die, chunk, len, sink)?;
        let old = std::mem::replace(&mut self.l2p[sector as usize], chunk);
        if is_chunk(old) {
            self.release(old);
        } else {
            self.meta_live += 1;
        }
        self.stats.metadata_units_written += len as u64;
        Ok(())
    }

    /// Metadata pseudo-sectors held in chunks now (each a raw chunk of 4 KiB).
    pub fn metadata_chunks(&self) -> u64 {
        self.meta_live
    }

    /// Metadata counters (when metadata is modelled).
    pub fn metadata_stats(&self) -> Option<MetadataStats> {
        self.meta.as_ref().map(|m| m.stats)
    }
}
