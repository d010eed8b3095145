//! Firmware metadata: written through the host stream as raw chunks, and its counters.

use super::{is_chunk, Chunk, ChunkFtl, Stream, META_KEY};
use crate::metadata::{Metadata, MetadataStats};
use crate::metadata_writer::{write_due_metadata, MetadataWriter};
use crate::sink::FlashSink;
use crate::UNMAPPED;
use ssdlab_core::Result;

impl ChunkFtl {
    /// Write the metadata sectors due now (full journal sectors, a checkpoint's dirty map
    /// pages) through the host stream, each as a raw chunk ([`write_due_metadata`]).
    #[inline]
    pub(super) fn write_metadata<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> Result<()> {
        write_due_metadata(self, sink)
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

impl MetadataWriter for ChunkFtl {
    fn metadata_and_busy(&mut self) -> (&mut Option<Metadata>, &mut bool) {
        (&mut self.meta, &mut self.meta_busy)
    }

    fn read_metadata_sector<S: FlashSink + ?Sized>(&self, sector: u64, sink: &mut S) {
        if let Some(loc) = self.locate(sector) {
            sink.read_metadata(loc.die, loc.block, loc.first_unit, loc.bytes);
        }
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
}
