//! Building a page FTL over an erased array, and loading a saved one.

use super::{Divisors, Ftl, FtlStats, RECENT_VICTIMS};
use crate::config::FtlConfig;
use crate::metadata::Metadata;
use crate::pool::BlockPool;
use crate::slot_bits::SlotBits;
use crate::UNMAPPED;
use ssdlab_core::{ensure, Result};

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
    ///
    /// [`Translation::save`]: crate::Translation::save
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
}
