//! The page FTL as a [`Translation`]: what the drive calls, mostly forwarded to its own methods.

use super::Ftl;
use crate::block::BlockState;
use crate::metadata::MetadataStats;
use crate::sink::FlashSink;
use crate::translation::{stored_form, DataLocation, Outcome, Piece, Prepared, StoredSector, TierStats, Translation};
use crate::wear::WearSummary;
use crate::UNMAPPED;
use ssdlab_core::Result;
use ssdlab_nand::SECTOR_BYTES;
use ssdlab_reduce::SectorContent;

impl Translation for Ftl {
    fn user_sectors(&self) -> u64 {
        self.config.user_sectors
    }

    fn needs_content(&self) -> bool {
        self.config.store_data
    }

    #[inline]
    fn prepare(&self, tag: u64, content: Option<SectorContent>) -> Result<Prepared> {
        let content = if self.config.store_data { content } else { None };
        Ok(Prepared::new(tag, content, Outcome::Slot, SECTOR_BYTES))
    }

    #[inline]
    fn write(&mut self, lba: u64, sector: Prepared, sink: &mut dyn FlashSink) -> Result<()> {
        debug_assert_eq!(sector.outcome, Outcome::Slot);
        let payload = sector.content.as_ref().map(stored_form);
        Ftl::write_data(self, lba, sector.tag, payload, sink)
    }

    fn slot_per_sector(&self) -> bool {
        !self.config.store_data
    }

    #[inline]
    fn write_slot(&mut self, lba: u64, tag: u64, sink: &mut dyn FlashSink) -> Result<()> {
        debug_assert!(!self.config.store_data);
        Ftl::write_data(self, lba, tag, None, sink)
    }

    fn trim(&mut self, lba: u64) -> Result<()> {
        Ftl::trim(self, lba)
    }

    #[inline]
    fn pieces(&self, lba: u64, out: &mut Vec<Piece>) {
        if let Some(loc) = self.lookup(lba) {
            out.push(self.piece_at(loc));
        }
    }

    fn partial_page_reads(&self) -> bool {
        true
    }

    #[inline]
    fn first_unprogrammed(&self, pieces: &[Piece]) -> Option<Piece> {
        pieces.iter().copied().find(|p| !self.unit_programmed(p.block, p.unit))
    }

    fn program_open_unit(&mut self, block: u32, sink: &mut dyn FlashSink) -> u32 {
        Ftl::program_open_unit(self, block, sink)
    }

    fn pad_open_unit(&mut self, sink: &mut dyn FlashSink) -> u32 {
        Ftl::pad_open_unit(self, sink)
    }

    fn program_open_units(&mut self, sink: &mut dyn FlashSink) -> u32 {
        let mut pad = Ftl::pad_open_unit(self, sink);
        for die in 0..self.pool.dies.len() {
            for block in [self.pool.dies[die].host_open, self.pool.dies[die].gc_open] {
                if block != UNMAPPED {
                    pad += Ftl::program_open_unit(self, block, sink);
                }
            }
        }
        pad
    }

    fn secure_erase(&mut self) {
        Ftl::secure_erase(self)
    }

    fn collect_one(&mut self, die: u32, sink: &mut dyn FlashSink) -> bool {
        Ftl::collect_one(self, die, sink)
    }

    fn wants_idle_gc(&self, die: u32) -> bool {
        Ftl::wants_idle_gc(self, die)
    }

    fn idle_began(&mut self) {
        Ftl::idle_began(self)
    }

    fn tier_stats(&self) -> Option<TierStats> {
        let s = &self.stats;
        let cache = self.config.slc.as_ref()?;
        let share = |cycles: u32, rating: u32| if rating > 0 { cycles as f64 / rating as f64 } else { 0.0 };
        // One pass over the blocks: data in SLC now, erases by mode, the most worn block's life.
        let (mut slc_sectors, mut slc_erases, mut native_erases, mut life_used_max) = (0u64, 0u64, 0u64, 0.0f64);
        for (b, valid) in self.pool.blocks.iter().zip(self.pool.counts.valid_counts()) {
            if b.slc {
                slc_sectors += valid as u64;
            }
            slc_erases += b.slc_erase_count as u64;
            native_erases += b.erase_count as u64;
            life_used_max = life_used_max.max(share(b.erase_count, cache.native_endurance_cycles) + share(b.slc_erase_count, cache.pslc_endurance_cycles));
        }
        Some(TierStats {
            slc_host_sectors: s.slc_host_sectors,
            native_host_sectors: s.host_sectors_written - s.slc_host_sectors,
            fold_sectors: s.fold_sectors_moved,
            gc_sectors: s.gc_sectors_moved,
            slc_blocks_folded: s.slc_blocks_folded,
            slc_blocks_now: self.slc_blocks(),
            slc_sectors_now: slc_sectors,
            slc_block_erases: slc_erases,
            native_block_erases: native_erases,
            life_used_max_ppm: (life_used_max * 1e6).round() as u64,
        })
    }

    #[inline]
    fn block_is_slc(&self, block: u32) -> bool {
        self.pool.blocks[block as usize].slc
    }

    fn moved_from(&self, piece: &Piece, erase_queued: &mut dyn FnMut(u32) -> bool) -> Option<Piece> {
        let slot = u32::try_from(piece.chunk).ok()?;
        if !self.valid.get(slot) {
            return None;
        }
        let lba = self.p2l[slot as usize];
        let die = piece.die as usize;
        let victim = self.pool.dies[die].victim;
        let recent = self.recent_victims.get(die)?;
        // The victim being collected (not erased before its last copy is booked), then the
        // emptied ones, newest first, still erased only in the FTL's books (free, their stale
        // reverse-map entries intact) and not yet on the die.
        for (i, &block) in std::iter::once(&victim).chain(recent.iter()).enumerate() {
            if block == UNMAPPED || block == piece.block {
                continue;
            }
            let state = self.pool.blocks[block as usize].state;
            let readable = if i == 0 { state == BlockState::Victim } else { state == BlockState::Free && erase_queued(block) };
            if !readable {
                continue;
            }
            let base = block * self.slots_per_block;
            // The last copy of the sector in the block is the one that was valid when it moved.
            if let Some(old) = (base..base + self.slots_per_block).rev().find(|&s| self.p2l[s as usize] == lba && !self.valid.get(s)) {
                return Some(self.piece_at(self.location_of(old)));
            }
        }
        None
    }

    fn free_blocks_total(&self) -> u64 {
        Ftl::free_blocks_total(self)
    }

    fn wear(&self) -> WearSummary {
        Ftl::wear(self)
    }

    fn live_data_sectors(&self) -> u64 {
        self.valid_total - self.meta_live
    }

    fn metadata_stats(&self) -> Option<MetadataStats> {
        Ftl::metadata_stats(self)
    }

    fn gc_moved(&self) -> u64 {
        self.stats.gc_sectors_moved
    }

    fn read_tag(&self, lba: u64) -> u64 {
        Ftl::read_tag(self, lba)
    }

    fn keep_content_ids(&mut self) {
        if !self.config.track_tags {
            self.config.track_tags = true;
            self.tags = vec![0; self.p2l.len()];
        }
    }

    fn stored_sector(&self, lba: u64) -> StoredSector<'_> {
        if self.l2p[lba as usize] == UNMAPPED {
            StoredSector::Zeros
        } else {
            StoredSector::NotKept
        }
    }

    fn data_location(&self, lba: u64) -> DataLocation {
        match self.l2p[lba as usize] {
            UNMAPPED => DataLocation::Zeros,
            slot => DataLocation::At { addr_bytes: slot as u64 * SECTOR_BYTES, region_bytes: SECTOR_BYTES },
        }
    }

    fn save(&self, out: &mut dyn std::io::Write) -> Result<()> {
        bincode::serialize_into(out, self).map_err(|e| ssdlab_core::Error::Io(format!("cannot save the FTL state: {e}")))
    }

    fn check_invariants(&self) -> std::result::Result<(), String> {
        Ftl::check_invariants(self)
    }

    #[inline]
    fn prefetch_mapping(&self, lba: u64) {
        Ftl::prefetch_mapping(self, lba)
    }

    #[inline]
    fn prefetch_old(&self, lba: u64) {
        self.prefetch_old_slot(lba)
    }
    fn track_emptied_blocks(&mut self, on: bool) {
        self.pool.track_emptied(on)
    }

    fn take_emptied_blocks(&mut self, out: &mut Vec<u32>) {
        self.pool.take_emptied(out)
    }
}
