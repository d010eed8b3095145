//! The FTL proper: mapping, allocation, garbage collection, TRIM.

use crate::block::BlockState;
use crate::config::FtlConfig;
use crate::die::CREDIT_FRACTION_BITS;
use crate::gc::{self, Collector};
use crate::metadata::{MetaWrite, Metadata, MetadataStats};
use crate::pool::BlockPool;
use crate::prefetch::prefetch;
use crate::sink::FlashSink;
use crate::slot_bits::SlotBits;
use crate::translation::{stored_form, DataLocation, Outcome, Piece, Prepared, StoredSector, TierStats, Translation};
use crate::wear::WearSummary;
use crate::UNMAPPED;
use ssdlab_core::{bail, ensure, FastDiv, Result};
use ssdlab_nand::{OpKind, SECTOR_BYTES};
use ssdlab_reduce::SectorContent;

/// Where a logical sector's current copy lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Die holding the slot.
    pub die: u32,
    /// FTL block holding the slot.
    pub block: u32,
    /// Unit (multi-plane page) inside the block.
    pub unit: u32,
    /// Global physical slot number.
    pub slot: u32,
}

/// Counters of FTL activity.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FtlStats {
    /// 4 KiB sectors written by the host.
    pub host_sectors_written: u64,
    /// 4 KiB slots copied by garbage collection.
    pub gc_sectors_moved: u64,
    /// Slots programmed as padding (flush of a partly filled unit).
    pub padding_slots: u64,
    /// Blocks reclaimed by garbage collection.
    pub gc_blocks_reclaimed: u64,
    /// Sectors unmapped by TRIM.
    pub trimmed_sectors: u64,
    /// Host sectors written into SLC cache blocks (pSLC mode).
    #[serde(default)]
    pub slc_host_sectors: u64,
    /// 4 KiB slots copied from SLC cache blocks into native blocks by folding.
    #[serde(default)]
    pub fold_sectors_moved: u64,
    /// SLC cache blocks folded and erased.
    #[serde(default)]
    pub slc_blocks_folded: u64,
    /// Firmware metadata sectors (map pages, journal) written.
    #[serde(default)]
    pub metadata_sectors_written: u64,
}

/// Page-level FTL over the whole array.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Ftl {
    pub(crate) config: FtlConfig,
    pub(crate) slots_per_unit: u32,
    pub(crate) slots_per_block: u32,
    pub(crate) blocks_per_die: u32,
    /// Logical sector -> physical slot.
    pub(crate) l2p: Vec<u32>,
    /// Physical slot -> logical sector written there (the out-of-band address); meaningful only
    /// while the slot's bit in `valid` is set (an invalidated slot keeps its stale entry).
    pub(crate) p2l: Vec<u32>,
    /// Per physical slot: whether it holds the current copy of a logical sector. Not saved:
    /// rebuilt from `l2p` on loading (so saved states keep their format).
    #[serde(skip)]
    pub(crate) valid: SlotBits,
    /// Content tag per physical slot (empty unless tracking).
    pub(crate) tags: Vec<u64>,
    pub(crate) pool: BlockPool,
    /// Slots in one native program unit (a one-shot word line on every plane, or one unit).
    native_program_slots: u32,
    /// Slots a block holds in pSLC mode.
    slc_block_slots: u32,
    /// The firmware flushes its cache behind host writes (`when_full = flush`).
    flushes: bool,
    valid_total: u64,
    stats: FtlStats,
    /// Firmware metadata written to flash, when modelled.
    #[serde(default)]
    pub(crate) meta: Option<Metadata>,
    /// Metadata pseudo-sectors mapped (they count in `valid_total` but hold no user data).
    #[serde(default)]
    meta_live: u64,
    /// Metadata is being written (no nested writes from the GC it starts).
    #[serde(default)]
    meta_busy: bool,
    /// Divisions of the per-slot address arithmetic, precomputed (see [`FastDiv`]).
    #[serde(skip)]
    div: Divisors,
    /// Per die: the slot up to which GC has started loading mapping entries (within the
    /// current victim; a hint, not state: it changes no result).
    #[serde(skip)]
    gc_prefetched: Vec<u32>,
    /// Per die: the last victims GC or folding emptied, newest first (`UNMAPPED`: none), where
    /// [`Translation::moved_from`] looks for a moved sector's source. Read timing only; not
    /// saved (a drive loaded from a saved state starts with none).
    #[serde(skip)]
    recent_victims: Vec<[u32; RECENT_VICTIMS]>,
}

/// Emptied victims remembered per die ([`Translation::moved_from`]): how far behind the die's
/// collection the copies it booked may still wait for their programs.
const RECENT_VICTIMS: usize = 4;

/// The FTL's fixed divisors: slots per block, blocks per die, and the slots of a program unit
/// in each mode.
#[derive(Debug, Clone, Copy, Default)]
struct Divisors {
    slots_per_block: FastDiv,
    blocks_per_die: FastDiv,
    native_program: FastDiv,
    slc_program: FastDiv,
}

impl Divisors {
    fn of(ftl: &Ftl) -> Self {
        Self {
            slots_per_block: FastDiv::new(ftl.slots_per_block),
            blocks_per_die: FastDiv::new(ftl.blocks_per_die),
            native_program: FastDiv::new(ftl.native_program_slots),
            slc_program: FastDiv::new(ftl.slots_per_unit),
        }
    }
}

/// Slots ahead of the one being copied whose mapping entries GC starts loading.
const GC_PREFETCH_SLOTS: u32 = 24;

/// Slots ahead of the one being read or written whose reverse-map line is loaded in advance:
/// the victim's reverse map is read in order, and each open block's written in order, but 64
/// such streams at once (a host and a GC block per die, plus victims) are more than the
/// hardware's stream prefetcher follows, so each line would otherwise be a miss the loop waits
/// for (the victim's, a load that the mapping prefetch needs). Eight lines of 16 entries.
const P2L_PREFETCH_SLOTS: u32 = 128;

/// Entries of the reverse map in one cache line.
const P2L_LINE_SLOTS: u32 = 16;

impl Ftl {
    /// An FTL over a freshly erased array.
    pub fn new(config: FtlConfig, origin: &str) -> Result<Self> {
        config.geometry.validate().map_err(|e| e.placed(origin))?;
        FtlConfig::validate(&config).map_err(|e| e.placed(origin))?;
        let g = &config.geometry;
        let slots_per_block = g.slots_per_block();
        let blocks_per_die = g.blocks_per_die();
        let total_slots = g.total_slots() as usize;
        let meta = config.metadata.clone().map(|m| Metadata::new(m, config.user_sectors, config.user_sectors));
        let logical = (config.user_sectors + meta.as_ref().map_or(0, Metadata::total_sectors)) as usize;
        ssdlab_core::memory_room::check_room(origin, &config.table_parts())?;
        Ok(Self {
            meta,
            meta_live: 0,
            meta_busy: false,
            slots_per_unit: g.slots_per_unit(),
            slots_per_block,
            blocks_per_die,
            l2p: ssdlab_core::memory::huge_vec(UNMAPPED, logical, logical),
            p2l: ssdlab_core::memory::huge_vec(UNMAPPED, total_slots, total_slots),
            valid: SlotBits::new(total_slots),
            tags: if config.track_tags { vec![0; total_slots] } else { Vec::new() },
            pool: BlockPool::new(g.dies(), blocks_per_die, slots_per_block, config.gc_policy),
            native_program_slots: g.slots_per_unit() * config.native_pages_per_program,
            slc_block_slots: slots_per_block / config.slc.as_ref().map_or(1, |c| c.ratio),
            flushes: config.slc.as_ref().is_some_and(|c| c.when_full == crate::config::WhenCacheFull::Flush),
            valid_total: 0,
            stats: FtlStats::default(),
            div: Divisors::default(),
            gc_prefetched: Vec::new(),
            recent_victims: Vec::new(),
            config,
        }
        .with_divisors())
    }

    /// The FTL with its divisors computed (after building or loading it).
    fn with_divisors(mut self) -> Self {
        self.div = Divisors::of(&self);
        if let Some(meta) = self.meta.as_mut() {
            meta.derive();
        }
        self.gc_prefetched = vec![0; self.pool.dies.len()];
        self.recent_victims = vec![[UNMAPPED; RECENT_VICTIMS]; self.pool.dies.len()];
        let slots = self.p2l.len();
        if !self.valid.covers(slots) {
            // Loaded from a saved state: the valid slots are those mapped.
            self.valid = SlotBits::new(slots);
            for &slot in self.l2p.iter().filter(|&&slot| slot != UNMAPPED) {
                self.valid.set(slot);
            }
        }
        self
    }

    /// An FTL restored from what [`Translation::save`] wrote, for the drive `config` describes
    /// (refused when the saved one had another geometry or capacity).
    pub fn load(config: FtlConfig, input: &mut dyn std::io::Read) -> Result<Self> {
        let mut ftl: Self = bincode::deserialize_from(input).map_err(|e| ssdlab_core::Error::Io(format!("cannot read the saved FTL state: {e}")))?;
        ensure!(
            ftl.config.geometry == config.geometry && ftl.config.user_sectors == config.user_sectors,
            Config,
            "the saved FTL state is for another geometry or capacity"
        );
        ftl.flushes = config.slc.as_ref().is_some_and(|c| c.when_full == crate::config::WhenCacheFull::Flush);
        ftl.config = config;
        Ok(ftl.with_divisors())
    }

    /// The configuration this FTL was built from.
    pub fn config(&self) -> &FtlConfig {
        &self.config
    }

    /// Logical sectors the host can address.
    pub fn user_sectors(&self) -> u64 {
        self.config.user_sectors
    }

    /// Activity counters.
    pub fn stats(&self) -> &FtlStats {
        &self.stats
    }

    /// Slots currently holding valid data.
    pub fn valid_slots(&self) -> u64 {
        self.valid_total
    }

    /// Free (erased) blocks on a die.
    pub fn free_blocks(&self, die: u32) -> u32 {
        self.pool.free_count(die) as u32
    }

    /// Free blocks over the whole array.
    pub fn free_blocks_total(&self) -> u64 {
        self.pool.free_total()
    }

    /// Where logical sector `lba` lives, if it is mapped.
    #[inline]
    pub fn lookup(&self, lba: u64) -> Option<Location> {
        let slot = self.l2p[lba as usize];
        if slot == UNMAPPED {
            return None;
        }
        Some(self.location_of(slot))
    }

    /// Where physical `slot` is.
    #[inline]
    fn location_of(&self, slot: u32) -> Location {
        let block = self.div.slots_per_block.div(slot);
        Location { die: self.div.blocks_per_die.div(block), block, unit: (slot - block * self.slots_per_block) / self.slots_per_unit, slot }
    }

    /// The read piece of the sector in `loc` (a whole 4 KiB sector in one page).
    #[inline]
    fn piece_at(&self, loc: Location) -> Piece {
        let slot_in_block = loc.slot % self.slots_per_block;
        let page = (slot_in_block as u64 * SECTOR_BYTES / self.config.geometry.page_bytes as u64) as u32;
        Piece { die: loc.die, block: loc.block, unit: loc.unit, page, bytes: SECTOR_BYTES, chunk: loc.slot as u64 }
    }

    /// The content tag last written to `lba` (0 when unmapped or when tags are not tracked).
    pub fn read_tag(&self, lba: u64) -> u64 {
        match self.l2p[lba as usize] {
            UNMAPPED => 0,
            slot if self.config.track_tags => self.tags[slot as usize],
            _ => 0,
        }
    }

    /// Wear over all blocks.
    pub fn wear(&self) -> WearSummary {
        self.pool.wear()
    }

    /// Hint that `lba` will be written or read soon: start loading its mapping entry.
    #[inline]
    pub fn prefetch_mapping(&self, lba: u64) {
        if let Some(entry) = self.l2p.get(lba as usize) {
            prefetch(entry);
        }
    }

    /// Hint that `lba` will be overwritten soon: start loading what invalidating its current
    /// slot touches (its validity bit and its block's valid count and GC key). Call after
    /// [`Ftl::prefetch_mapping`] had time to bring the mapping entry in.
    #[inline]
    pub fn prefetch_old_slot(&self, lba: u64) {
        let Some(&slot) = self.l2p.get(lba as usize) else { return };
        if slot != UNMAPPED {
            let block = self.div.slots_per_block.div(slot) as usize;
            prefetch(self.valid.word_of(slot));
            if let Some(counts) = self.pool.counts.entry_of(block) {
                prefetch(counts);
            }
        }
    }

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

    /// Write the metadata sectors due now (full journal sectors, a checkpoint's dirty map
    /// pages) through the host stream. GC those writes start notes further map changes; they
    /// are written in the same loop, never from inside it.
    fn write_metadata<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> Result<()> {
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

    /// Unmap logical sector `lba` (TRIM); its slot becomes invalid.
    pub fn trim(&mut self, lba: u64) -> Result<()> {
        ensure!(lba < self.config.user_sectors, Request, "sector {lba} is beyond the last sector {}", self.config.user_sectors - 1);
        let old = self.l2p[lba as usize];
        if old != UNMAPPED {
            self.invalidate(old);
            self.l2p[lba as usize] = UNMAPPED;
            self.stats.trimmed_sectors += 1;
            if let Some(meta) = self.meta.as_mut() {
                meta.trimmed(lba);
            }
        }
        Ok(())
    }

    /// Program the partly filled host unit, if any, padding it with invalid slots (a flush).
    /// Returns the number of padding slots.
    pub fn pad_open_unit<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> u32 {
        let block = self.pool.dies[self.pool.host_cursor_die as usize].host_open;
        if block == UNMAPPED {
            return 0;
        }
        let unit = self.program_slots(block);
        let partial = self.pool.blocks[block as usize].written % unit;
        if partial == 0 {
            return 0;
        }
        let pad = unit - partial;
        for _ in 0..pad {
            self.pool.blocks[block as usize].written += 1;
            self.after_slot_written(block, OpKind::Host, sink);
        }
        self.stats.padding_slots += pad as u64;
        pad
    }

    /// Whether multi-plane page `unit` of `block` has been programmed: always, except in an
    /// open block whose program unit holding it is still filling.
    #[inline]
    pub fn unit_programmed(&self, block: u32, unit: u32) -> bool {
        let b = &self.pool.blocks[block as usize];
        match b.state {
            BlockState::OpenHost | BlockState::OpenGc => {
                let program = self.program_slots(block);
                b.written >= (unit * self.slots_per_unit / program + 1) * program
            }
            _ => true,
        }
    }

    /// Program the partly filled program unit of the open `block` (host or GC), padding it with
    /// invalid slots. Returns the padding slots.
    ///
    /// A GC block that is its die's last free block taken, with a victim in progress, first
    /// finishes the victim: padding takes GC's room, and with large program units (a one-shot
    /// QLC word line is 32 slots here) flushes after every write could fill the GC block before
    /// paced GC finished its victim, leaving no free block to copy the rest into. The victim's
    /// remaining slots fit: the block was fresh when taken, and every slot copied since left
    /// the victim.
    pub fn program_open_unit<S: FlashSink + ?Sized>(&mut self, block: u32, sink: &mut S) -> u32 {
        if self.pool.blocks[block as usize].state == BlockState::OpenGc {
            let die = self.div.blocks_per_die.div(block);
            if self.pool.free_count(die) == 0 && self.pool.dies[die as usize].victim != UNMAPPED {
                self.copy_victim_slots(die, u32::MAX, sink);
            }
        }
        let kind = match self.pool.blocks[block as usize].state {
            BlockState::OpenHost => OpKind::Host,
            BlockState::OpenGc => OpKind::Internal,
            _ => return 0,
        };
        let unit = self.program_slots(block);
        let partial = self.pool.blocks[block as usize].written % unit;
        if partial == 0 {
            return 0;
        }
        let pad = unit - partial;
        for _ in 0..pad {
            self.pool.blocks[block as usize].written += 1;
            self.after_slot_written(block, kind, sink);
        }
        self.stats.padding_slots += pad as u64;
        pad
    }

    /// Forget everything and return every block to the free pool, counting one erase per block
    /// (secure erase). The caller books the erase time on the array.
    pub fn secure_erase(&mut self) {
        ssdlab_core::memory::fill(&mut self.l2p, UNMAPPED);
        ssdlab_core::memory::fill(&mut self.p2l, UNMAPPED);
        self.valid.clear_all();
        self.tags.fill(0);
        self.pool.reset_all_erased();
        self.valid_total = 0;
        self.meta_live = 0;
        if let Some(meta) = self.meta.as_mut() {
            meta.reset();
        }
    }

    /// Run one round of garbage collection on `die`: finish the victim in progress, or choose and
    /// reclaim a new one. Returns `false` when no closed block has anything to reclaim.
    pub fn collect_one<S: FlashSink + ?Sized>(&mut self, die: u32, sink: &mut S) -> bool {
        gc::collect_one(self, die, sink)
    }

    /// Copy the live slots of the victim on `die`, a whole unit at a time, until at least
    /// `quota_slots` were copied or the victim is empty; an emptied victim is erased.
    /// Returns the slots copied.
    ///
    /// The hot loop of garbage collection, written without a division per slot: the victim and
    /// the GC block are known, so slot addresses are built, not divided; the GC block's program
    /// boundary is counted down. The mapping entries of the sectors [`GC_PREFETCH_SLOTS`] slots
    /// ahead are loaded while a slot is moved. The same operations in the same order as moving
    /// slot by slot through `invalidate`, `allocate_gc_slot`, `place` and `after_slot_written`.
    fn copy_victim_slots<S: FlashSink + ?Sized>(&mut self, die: u32, quota_slots: u32, sink: &mut S) -> u32 {
        let victim = self.pool.dies[die as usize].victim;
        debug_assert_ne!(victim, UNMAPPED);
        let folding = self.pool.blocks[victim as usize].slc;
        let units = self.config.geometry.units_per_block();
        let (spu, spb) = (self.slots_per_unit, self.slots_per_block);
        let program_slots = self.native_program_slots;
        let base = victim * spb;
        let end = base + units * spu;
        let mut copied = 0u32;
        let mut unit = self.pool.dies[die as usize].victim_unit;
        // Rolling prefetch of the mapping entries of the sectors about to move, carried on from
        // where the last call on this die left it.
        let mut ahead = self.gc_prefetched[die as usize];
        if ahead < base + unit * spu || ahead > end {
            ahead = base + unit * spu;
        }
        // The GC block and the slots left until its program unit is full (0: look it up).
        let mut target_block = UNMAPPED;
        let mut left = 0u32;
        // Where the next slot moved goes (valid while `left > 0`).
        let mut next_target = 0u32;
        let track_or_store = self.config.track_tags || self.config.store_data;
        while copied < quota_slots && unit < units && self.pool.valid(victim) > 0 {
            let first = base + unit * spu;
            unit += 1;
            self.pool.dies[die as usize].victim_unit = unit;
            let horizon = (first + spu + GC_PREFETCH_SLOTS).min(end);
            let far = horizon + P2L_PREFETCH_SLOTS;
            if far < end && far % P2L_LINE_SLOTS < spu {
                prefetch(&self.p2l[far as usize]);
            }
            while ahead < horizon {
                if self.valid.get(ahead) {
                    prefetch(&self.l2p[self.p2l[ahead as usize] as usize]);
                }
                ahead += 1;
            }
            let live = self.valid.count(first, first + spu);
            if live == 0 {
                continue;
            }
            sink.read_for_move_cells(die, victim, unit - 1, live as u64 * SECTOR_BYTES, folding);
            // The victim's valid count drops by the unit's live slots (GC keys are not kept for
            // a victim); the drive's total is unchanged (each slot moves).
            self.pool.sub_valid(victim, live);
            let (l2p, p2l) = (&mut self.l2p[..], &mut self.p2l[..]);
            // Slots moved into the GC block since its metadata was last brought up to date.
            let mut pending = 0u32;
            for slot in first..first + spu {
                if !self.valid.get(slot) {
                    continue;
                }
                let lba = p2l[slot as usize];
                if left == 0 {
                    target_block = self.pool.dies[die as usize].gc_open;
                    if target_block == UNMAPPED {
                        target_block = self.pool.take_free(die, BlockState::OpenGc);
                    }
                    let written = self.pool.blocks[target_block as usize].written;
                    debug_assert!(!self.pool.blocks[target_block as usize].slc, "a GC block is native");
                    left = program_slots - self.div.native_program.rem(written);
                    next_target = target_block * spb + written;
                }
                self.valid.clear(slot);
                debug_assert!(!self.valid.get(next_target));
                self.valid.set(next_target);
                l2p[lba as usize] = next_target;
                p2l[next_target as usize] = lba;
                if next_target.is_multiple_of(P2L_LINE_SLOTS) {
                    if let Some(entry) = p2l.get((next_target + P2L_PREFETCH_SLOTS) as usize) {
                        prefetch(entry);
                    }
                }
                if let Some(meta) = self.meta.as_mut() {
                    // The map of the metadata itself is small and kept in SRAM.
                    if !meta.is_metadata(lba as u64) {
                        meta.touched(lba as u64);
                    }
                }
                if track_or_store {
                    if self.config.track_tags {
                        self.tags[next_target as usize] = self.tags[slot as usize];
                    }
                    if self.config.store_data {
                        sink.relocate(slot as u64 * SECTOR_BYTES, next_target as u64 * SECTOR_BYTES, SECTOR_BYTES);
                    }
                }
                next_target += 1;
                pending += 1;
                left -= 1;
                if left == 0 {
                    self.pool.counts.add_valid(target_block, pending);
                    let meta = &mut self.pool.blocks[target_block as usize];
                    meta.written += pending;
                    let written = meta.written;
                    pending = 0;
                    sink.program_cells(die, target_block, written / program_slots - 1, OpKind::Internal, false);
                    if written == spb {
                        self.pool.close(target_block);
                    }
                }
            }
            if pending > 0 {
                self.pool.counts.add_valid(target_block, pending);
                self.pool.blocks[target_block as usize].written += pending;
            }
            if folding {
                self.stats.fold_sectors_moved += live as u64;
            } else {
                self.stats.gc_sectors_moved += live as u64;
            }
            copied += live;
        }
        self.gc_prefetched[die as usize] = ahead;
        if self.pool.valid(victim) == 0 {
            self.pool.dies[die as usize].victim = UNMAPPED;
            let recent = &mut self.recent_victims[die as usize];
            recent.copy_within(0..RECENT_VICTIMS - 1, 1);
            recent[0] = victim;
            self.erase_block(victim, sink);
            if folding {
                self.stats.slc_blocks_folded += 1;
            } else {
                self.stats.gc_blocks_reclaimed += 1;
            }
        }
        copied
    }

    /// Whether idle-time GC still has work on `die`.
    pub fn wants_idle_gc(&self, die: u32) -> bool {
        let d = &self.pool.dies[die as usize];
        let folds = self.config.slc.as_ref().is_some_and(|c| c.idle_fold)
            && (!d.slc_closed.is_empty() || (d.victim != UNMAPPED && self.pool.blocks[d.victim as usize].slc));
        folds || self.pool.wants_idle_gc(die, self.config.gc_idle_target_free_blocks_per_die)
    }

    /// Slots in one program unit of `block` (one multi-plane page in pSLC mode; a one-shot word
    /// line on every plane natively).
    #[inline]
    fn program_slots(&self, block: u32) -> u32 {
        if self.pool.blocks[block as usize].slc {
            self.slots_per_unit
        } else {
            self.native_program_slots
        }
    }

    /// Slots `block` holds in its current mode.
    #[inline]
    fn block_slots(&self, block: u32) -> u32 {
        if self.pool.blocks[block as usize].slc {
            self.slc_block_slots
        } else {
            self.slots_per_block
        }
    }

    /// Whether `die` may open another SLC cache block: within the static allowance, or within
    /// the firmware's dynamic maximum while the die keeps more free blocks than GC's low-water
    /// mark plus one after taking it (a dynamic SLC block is a free native block: the fuller the
    /// drive, the fewer there are).
    fn slc_room(&self, die: u32) -> bool {
        let Some(c) = &self.config.slc else { return false };
        let d = &self.pool.dies[die as usize];
        let free = d.free.len() as u64;
        let used = d.slc_blocks;
        free >= 2
            && (used < c.static_blocks_per_die
                || (used < c.static_blocks_per_die + c.dynamic_max_blocks_per_die && free > self.config.gc_low_free_blocks_per_die as u64 + 1))
    }

    /// SLC cache state: blocks in pSLC mode over the array, and sectors they hold.
    pub fn slc_blocks(&self) -> u64 {
        self.pool.dies.iter().map(|d| d.slc_blocks as u64).sum()
    }

    /// Firmware that flushes its full cache behind host writes (`when_full = flush`): after a
    /// native host program unit of `unit_slots` on `die`, fold SLC data in proportion, one SLC
    /// block's slots per native block's (a third of the slots written, on TLC), from the die's
    /// oldest SLC block. A native GC victim in progress on the die goes first (the flush waits).
    fn flush_behind<S: FlashSink + ?Sized>(&mut self, die: u32, unit_slots: u32, sink: &mut S) {
        let d = &mut self.pool.dies[die as usize];
        d.flush_credit_fixed += ((unit_slots as u64 * self.slc_block_slots as u64) << CREDIT_FRACTION_BITS) / self.slots_per_block as u64;
        let quota = (d.flush_credit_fixed >> CREDIT_FRACTION_BITS).min(u32::MAX as u64) as u32;
        if quota == 0 {
            return;
        }
        if d.victim == UNMAPPED {
            if !self.pool.start_fold(die) {
                // Nothing left to flush on this die.
                self.pool.dies[die as usize].flush_credit_fixed = 0;
                return;
            }
        } else if !self.pool.blocks[d.victim as usize].slc {
            return;
        }
        let copied = self.copy_victim_slots(die, quota, sink);
        let d = &mut self.pool.dies[die as usize];
        d.flush_credit_fixed = d.flush_credit_fixed.saturating_sub((copied as u64) << CREDIT_FRACTION_BITS);
    }

    /// The host paused: firmware that flushes takes host data into SLC again where the cache
    /// has room.
    pub fn idle_began(&mut self) {
        for d in &mut self.pool.dies {
            d.slc_exhausted = false;
            d.flush_credit_fixed = 0;
        }
    }

    // ----- internals -------------------------------------------------------------------------

    /// Map `lba` to `slot`, the next slot of `block`.
    #[inline]
    fn place_in(&mut self, block: u32, lba: u64, slot: u32, tag: u64) {
        debug_assert!(!self.valid.get(slot));
        debug_assert_eq!(block, slot / self.slots_per_block);
        self.l2p[lba as usize] = slot;
        self.p2l[slot as usize] = lba as u32;
        if slot.is_multiple_of(P2L_LINE_SLOTS) {
            if let Some(entry) = self.p2l.get((slot + P2L_PREFETCH_SLOTS) as usize) {
                prefetch(entry);
            }
        }
        self.valid.set(slot);
        if self.config.track_tags {
            self.tags[slot as usize] = tag;
        }
        self.pool.counts.add_valid(block, 1);
        self.pool.blocks[block as usize].written += 1;
        self.valid_total += 1;
    }

    #[inline]
    fn invalidate(&mut self, slot: u32) {
        debug_assert!(self.valid.get(slot));
        self.valid.clear(slot);
        self.valid_total -= 1;
        self.pool.sub_valid(self.div.slots_per_block.div(slot), 1);
    }

    /// After a slot of `block` was written: program the unit if it is full, close the block if
    /// it is full, and move the host stripe on at unit boundaries.
    #[inline]
    fn after_slot_written<S: FlashSink + ?Sized>(&mut self, block: u32, kind: OpKind, sink: &mut S) {
        let written = self.pool.blocks[block as usize].written;
        let unit = if self.pool.blocks[block as usize].slc { self.div.slc_program } else { self.div.native_program };
        if !unit.divides(written) {
            return;
        }
        let unit_slots = unit.divisor();
        let die = self.div.blocks_per_die.div(block);
        let slc = self.pool.blocks[block as usize].slc;
        sink.program_cells(die, block, written / unit_slots - 1, kind, slc);
        if written == self.block_slots(block) {
            self.pool.close(block);
        }
        if kind == OpKind::Host {
            self.pool.advance_host_cursor(die);
            gc::after_host_program(self, die, unit_slots, self.config.gc_low_free_blocks_per_die, self.config.gc_schedule, sink);
            if self.flushes && !slc && self.pool.dies[die as usize].slc_exhausted {
                self.flush_behind(die, unit_slots, sink);
            }
        }
    }

    fn erase_block<S: FlashSink + ?Sized>(&mut self, block: u32, sink: &mut S) {
        // The reverse map keeps its stale entries: no bit of an emptied block is set.
        debug_assert!(!self.valid.any(block * self.slots_per_block, (block + 1) * self.slots_per_block));
        self.pool.erase(block);
        sink.erase(self.pool.die_of(block), block);
    }

    /// The host's next slot, as `(block, slot)`.
    #[inline]
    fn allocate_host_slot<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> Result<(u32, u32)> {
        // Fast path: the cursor die has an open host block.
        let open = self.pool.dies[self.pool.host_cursor_die as usize].host_open;
        if open != UNMAPPED {
            return Ok((open, open * self.slots_per_block + self.pool.blocks[open as usize].written));
        }
        match gc::open_host_block(self, sink) {
            Some((_, block)) => Ok((block, block * self.slots_per_block + self.pool.blocks[block as usize].written)),
            None => bail!(Request, "no die has reclaimable space: the drive holds more valid data than it can store"),
        }
    }
}

impl Collector for Ftl {
    fn pool_mut(&mut self) -> &mut BlockPool {
        &mut self.pool
    }

    fn copy_victim<S: FlashSink + ?Sized>(&mut self, die: u32, quota: u32, sink: &mut S) -> u32 {
        self.copy_victim_slots(die, quota, sink)
    }

    /// The host block of `die` is an SLC cache block while the cache has room there. When it is
    /// full, firmware that folds first (`when_full = fold`) folds the die's oldest SLC blocks
    /// in the foreground until there is room; otherwise host data goes directly to a native
    /// block.
    fn take_host_block<S: FlashSink + ?Sized>(&mut self, die: u32, sink: &mut S) -> u32 {
        let Some(cache) = self.config.slc.clone() else { return self.pool.take_free(die, BlockState::OpenHost) };
        if !self.slc_room(die) && cache.when_full == crate::config::WhenCacheFull::Fold {
            // Bounded: each round folds (or finishes a victim) and erases a block.
            while !self.slc_room(die) {
                let d = &self.pool.dies[die as usize];
                let folding = d.victim != UNMAPPED && self.pool.blocks[d.victim as usize].slc;
                if !folding && d.slc_closed.is_empty() {
                    break;
                }
                if !gc::collect_one(self, die, sink) {
                    break;
                }
            }
        }
        if cache.when_full == crate::config::WhenCacheFull::Flush {
            let exhausted = self.pool.dies[die as usize].slc_exhausted || !self.slc_room(die);
            self.pool.dies[die as usize].slc_exhausted = exhausted;
            if exhausted {
                return self.pool.take_free(die, BlockState::OpenHost);
            }
        }
        if self.slc_room(die) {
            self.pool.take_free_slc(die)
        } else {
            self.pool.take_free(die, BlockState::OpenHost)
        }
    }
}

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
