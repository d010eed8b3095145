//! Host writes: zeros, duplicates and new chunks, each sector mapped and the old chunk released.

use super::{bytes_text, is_chunk, Chunk, ChunkFtl, Stream, ZERO};
use crate::sink::FlashSink;
use crate::translation::{Outcome, Prepared};
use crate::UNMAPPED;
use ssdlab_core::{ensure, Result};
use ssdlab_nand::SECTOR_BYTES;
use ssdlab_reduce::SectorContent;

impl ChunkFtl {
    /// Write sector `lba` with `content`. Returns the bytes (whole ECC units) newly stored: 0 for
    /// zeros and duplicates, which need no flash.
    pub fn write<S: FlashSink + ?Sized>(&mut self, lba: u64, content: SectorContent, sink: &mut S) -> Result<u64> {
        let prepared = self.prepare_content(content);
        let stored = prepared.stored_bytes();
        self.write_prepared(lba, prepared, sink)?;
        Ok(stored)
    }

    /// What storing `content` takes: nothing for zeros, a reference for a known fingerprint,
    /// otherwise a new chunk of whole ECC units. Changes nothing.
    #[inline]
    pub(super) fn prepare_content(&self, content: SectorContent) -> Prepared {
        if content.zero {
            return Prepared::new(0, Some(content), Outcome::Zero, 0);
        }
        match self.index.get(content.fingerprint as u64) {
            Some(chunk) => Prepared::new(0, Some(content), Outcome::Duplicate(chunk), 0),
            None => {
                let units = self.units_for(content.stored_bytes);
                Prepared::new(0, Some(content), Outcome::NewChunk(units), units as u64 * self.unit_bytes as u64)
            }
        }
    }

    /// Write sector `lba` with a sector prepared by [`ChunkFtl::prepare_content`] just before.
    pub(super) fn write_prepared<S: FlashSink + ?Sized>(&mut self, lba: u64, sector: Prepared, sink: &mut S) -> Result<()> {
        ensure!(lba < self.config.user_sectors, Request, "sector {lba} is beyond the last sector {}", self.config.user_sectors - 1);
        let content = sector.content.expect("a prepared sector of the data-reduction FTL carries its content");
        if let (Outcome::NewChunk(_), true) = (sector.outcome, self.config.keep_payloads) {
            let kept = content.payload.as_ref().map_or(0, |p| p.len() as u64);
            ensure!(
                self.payload_bytes + kept <= self.config.payload_limit_bytes,
                Request,
                "real-bytes mode keeps every stored chunk in memory, and this write would keep more than the limit of {}; \
                 write less data, use a smaller drive or span, or use modeled content",
                bytes_text(self.config.payload_limit_bytes)
            );
        }
        self.stats.host_sectors_written += 1;
        let old = self.l2p[lba as usize];
        let new = match sector.outcome {
            Outcome::Zero => {
                self.stats.zero_sectors += 1;
                ZERO
            }
            Outcome::Duplicate(chunk) => {
                // Still the live chunk the index named when the sector was prepared: nothing
                // has run in between.
                assert!(
                    self.chunks[chunk as usize].live() && self.chunks[chunk as usize].key == content.fingerprint as u64,
                    "duplicate of chunk {chunk} prepared, but the chunk changed before the write"
                );
                self.add_ref(chunk);
                self.stats.dedup_hits += 1;
                chunk
            }
            Outcome::NewChunk(_) => self.store_new(content.fingerprint as u64, content, sink)?,
            Outcome::Slot => unreachable!("the data-reduction FTL never prepares a 4 KiB slot"),
        };
        self.l2p[lba as usize] = new;
        if is_chunk(old) {
            self.release(old);
        }
        if let Some(meta) = self.meta.as_mut() {
            meta.changed(lba);
            if let Outcome::Duplicate(chunk) = sector.outcome {
                // Its reference count changed in the chunk table.
                meta.touched(self.config.user_sectors + chunk as u64);
            }
        }
        self.write_metadata(sink)
    }

    fn units_for(&self, stored_bytes: u32) -> u32 {
        if stored_bytes as u64 >= SECTOR_BYTES {
            return self.full_chunk_units;
        }
        (stored_bytes + self.config.chunk_header_bytes).div_ceil(self.unit_bytes).clamp(1, self.full_chunk_units)
    }

    fn store_new<S: FlashSink + ?Sized>(&mut self, key: u64, content: SectorContent, sink: &mut S) -> Result<u32> {
        let len = self.units_for(content.stored_bytes);
        let mut payload = content.payload;
        let chunk = self.new_chunk_id()?;
        // No address until placed: GC running during placement must not take a stale address
        // of this reused id for a live chunk in its victim.
        let indexed = !self.index.is_full();
        self.chunks[chunk as usize] = Chunk::new(UNMAPPED, key, len, 1, indexed);
        if self.config.keep_payloads {
            self.payload_bytes += payload.as_ref().map_or(0, |p| p.len() as u64);
            self.payload[chunk as usize] = payload.take().map(Vec::into_boxed_slice);
        }
        if indexed {
            self.index.insert(key, chunk);
        } else {
            self.stats.index_full_skips += 1;
        }
        self.live_chunks += 1;
        self.stats.chunks_written += 1;
        self.stats.bytes_after_dedup += SECTOR_BYTES;
        self.stats.bytes_after_compression += content.stored_bytes as u64;
        self.stats.host_units_written += len as u64;
        if let Some(meta) = self.meta.as_mut() {
            meta.touched(self.config.user_sectors + chunk as u64);
        }
        self.place(Stream::Host, self.pool.host_cursor_die, chunk, len, sink)?;
        if self.config.store_data {
            let unit = self.unit_bytes as u64;
            sink.store(self.chunks[chunk as usize].addr as u64 * unit, len as u64 * unit, payload.as_deref().unwrap_or(&[]));
        }
        Ok(chunk)
    }
}
