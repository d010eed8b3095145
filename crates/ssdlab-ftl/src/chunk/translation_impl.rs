//! The chunk FTL as a [`Translation`]: what the drive calls, mostly forwarded to its own methods.

use super::{bytes_text, is_chunk, ChunkFtl, ChunkStats, STALE, ZERO};
use crate::metadata::MetadataStats;
use crate::sink::FlashSink;
use crate::translation::{DataLocation, Piece, Prepared, StoredSector, Translation, STALE_PIECE};
use crate::wear::WearSummary;
use crate::UNMAPPED;
use ssdlab_core::{bail, ensure, Result};
use ssdlab_nand::SECTOR_BYTES;
use ssdlab_reduce::SectorContent;

impl Translation for ChunkFtl {
    fn user_sectors(&self) -> u64 {
        self.config.user_sectors
    }

    fn needs_content(&self) -> bool {
        true
    }

    fn check_room_for_write(&self, sectors: u64) -> Result<()> {
        if !self.config.keep_payloads {
            return Ok(());
        }
        // At most a sector's bytes kept per sector written (a new chunk keeps its stored bytes;
        // zeros and duplicates keep none): the bound is checked before the first sector, so a
        // write that could pass the limit is refused whole.
        let most = sectors.saturating_mul(SECTOR_BYTES);
        ensure!(
            self.payload_bytes.saturating_add(most) <= self.config.payload_limit_bytes,
            Request,
            "real-bytes mode keeps every stored chunk in memory: {} kept, and this write of {} could take the drive past \
             the limit of {}; nothing of it was written. Write less data, use a smaller drive or span, or use modeled content",
            bytes_text(self.payload_bytes),
            bytes_text(most),
            bytes_text(self.config.payload_limit_bytes)
        );
        Ok(())
    }

    #[inline]
    fn prepare(&self, _tag: u64, content: Option<SectorContent>) -> Result<Prepared> {
        match content {
            Some(content) => Ok(self.prepare_content(content)),
            None => bail!(Request, "the data-reduction FTL needs each written sector's content"),
        }
    }

    #[inline]
    fn write(&mut self, lba: u64, sector: Prepared, sink: &mut dyn FlashSink) -> Result<()> {
        self.write_prepared(lba, sector, sink)
    }

    fn trim(&mut self, lba: u64) -> Result<()> {
        ChunkFtl::trim(self, lba)
    }

    #[inline]
    fn pieces(&self, lba: u64, out: &mut Vec<Piece>) {
        let entry = self.l2p[lba as usize];
        if entry != UNMAPPED && entry != ZERO && entry & STALE != 0 {
            // Follow the stale pointer: sense where the old chunk began, move its header.
            let addr = self.chunks[(entry & !STALE) as usize].addr;
            let block = addr / self.units_per_block;
            let byte = (addr % self.units_per_block) as u64 * self.unit_bytes as u64;
            let page = (byte / self.config.geometry.page_bytes as u64) as u32;
            let planes = self.config.geometry.planes_per_die;
            out.push(Piece {
                die: self.pool.die_of(block),
                block,
                unit: page / planes,
                page,
                bytes: self.unit_bytes as u64,
                chunk: entry as u64 | STALE_PIECE,
            });
            return;
        }
        if let Some(loc) = self.locate(lba) {
            let g = &self.config.geometry;
            let page_bytes = g.page_bytes as u64;
            let planes = g.planes_per_die;
            let mut start = loc.offset_in_page as u64;
            let mut left = loc.bytes;
            for page in loc.first_page..=loc.last_page {
                let here = left.min(page_bytes - start);
                out.push(Piece { die: loc.die, block: loc.block, unit: page / planes, page, bytes: here, chunk: loc.chunk as u64 });
                left -= here;
                start = 0;
            }
        }
    }

    fn partial_page_reads(&self) -> bool {
        self.config.partial_page_reads
    }

    #[inline]
    fn first_unprogrammed(&self, pieces: &[Piece]) -> Option<Piece> {
        // A stale pointer's piece holds no data to wait for.
        pieces.iter().copied().find(|p| !p.is_stale_pointer() && !self.unit_programmed(p.block, p.unit))
    }

    fn program_open_unit(&mut self, block: u32, sink: &mut dyn FlashSink) -> u32 {
        ChunkFtl::program_open_unit(self, block, sink)
    }

    fn pad_open_unit(&mut self, sink: &mut dyn FlashSink) -> u32 {
        ChunkFtl::pad_open_unit(self, sink)
    }

    fn program_open_units(&mut self, sink: &mut dyn FlashSink) -> u32 {
        // A chunk may run into the next unit of its block after the stripe moved on, so any
        // die's host block may hold a partly filled unit, not only the cursor's.
        let mut pad = ChunkFtl::pad_open_unit(self, sink);
        for die in 0..self.pool.dies.len() {
            for block in [self.pool.dies[die].host_open, self.pool.dies[die].gc_open] {
                if block != UNMAPPED {
                    pad += ChunkFtl::program_open_unit(self, block, sink);
                }
            }
        }
        pad
    }

    fn secure_erase(&mut self) {
        ChunkFtl::secure_erase(self)
    }

    fn collect_one(&mut self, die: u32, sink: &mut dyn FlashSink) -> bool {
        ChunkFtl::collect_one(self, die, sink)
    }

    fn wants_idle_gc(&self, die: u32) -> bool {
        ChunkFtl::wants_idle_gc(self, die)
    }

    fn free_blocks_total(&self) -> u64 {
        ChunkFtl::free_blocks_total(self)
    }

    fn wear(&self) -> WearSummary {
        ChunkFtl::wear(self)
    }

    fn live_data_sectors(&self) -> u64 {
        self.live_chunks - self.meta_live
    }

    fn metadata_stats(&self) -> Option<MetadataStats> {
        ChunkFtl::metadata_stats(self)
    }

    fn gc_moved(&self) -> u64 {
        self.stats.gc_chunks_moved
    }

    fn reduction_stats(&self) -> Option<&ChunkStats> {
        Some(&self.stats)
    }

    fn ecc_unit_bytes(&self) -> Option<u32> {
        Some(self.unit_bytes)
    }

    fn content_id(&self, lba: u64) -> u64 {
        match self.l2p[lba as usize] {
            ZERO => crate::translation::ZERO_CONTENT_ID,
            chunk if !is_chunk(chunk) => 0,
            chunk => self.chunks[chunk as usize].key,
        }
    }

    fn stored_sector(&self, lba: u64) -> StoredSector<'_> {
        match self.l2p[lba as usize] {
            chunk if !is_chunk(chunk) => StoredSector::Zeros,
            chunk => match self.payload.get(chunk as usize).and_then(|p| p.as_deref()) {
                Some(bytes) => StoredSector::Bytes(bytes),
                None => StoredSector::NotKept,
            },
        }
    }

    fn data_location(&self, lba: u64) -> DataLocation {
        match self.l2p[lba as usize] {
            chunk if !is_chunk(chunk) => DataLocation::Zeros,
            chunk => {
                let c = &self.chunks[chunk as usize];
                let unit = self.unit_bytes as u64;
                DataLocation::At { addr_bytes: c.addr as u64 * unit, region_bytes: c.len() as u64 * unit }
            }
        }
    }

    fn save(&self, out: &mut dyn std::io::Write) -> Result<()> {
        bincode::serialize_into(out, self).map_err(|e| ssdlab_core::Error::Io(format!("cannot save the FTL state: {e}")))
    }

    fn check_invariants(&self) -> std::result::Result<(), String> {
        ChunkFtl::check_invariants(self)
    }

    #[inline]
    fn prefetch_mapping(&self, lba: u64) {
        ChunkFtl::prefetch_mapping(self, lba)
    }

    #[inline]
    fn prefetch_old(&self, lba: u64) {
        self.prefetch_old_chunk(lba)
    }

    #[inline]
    fn prefetch_old_index_slot(&self, lba: u64) {
        ChunkFtl::prefetch_old_index_slot(self, lba)
    }

    fn prefetch_location_run(&self, first: u64, end: u64) {
        // A sector's data is found through its chunk's entry: the entry an overwrite drops.
        self.prefetch_old_run(first, end)
    }

    #[inline]
    fn prefetch_fingerprint(&self, fingerprint: u128) {
        ChunkFtl::prefetch_fingerprint(self, fingerprint)
    }
    fn track_emptied_blocks(&mut self, on: bool) {
        self.pool.track_emptied(on)
    }

    fn take_emptied_blocks(&mut self, out: &mut Vec<u32>) {
        self.pool.take_emptied(out)
    }
}
