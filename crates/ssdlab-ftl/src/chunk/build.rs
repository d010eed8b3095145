//! Building a chunk FTL over an erased array, and loading a saved one.

use super::{Chunk, ChunkDivisors, ChunkFtl, ChunkFtlConfig, ChunkStats, REF_MASK, STALE, ZERO};
use crate::index::FingerprintIndex;
use crate::metadata::Metadata;
use crate::pool::BlockPool;
use crate::UNMAPPED;
use ssdlab_core::{ensure, Result};
use ssdlab_nand::SECTOR_BYTES;
use std::collections::BTreeMap;

impl ChunkFtl {
    /// A data-reduction FTL over a freshly erased array.
    pub fn new(config: ChunkFtlConfig, origin: &str) -> Result<Self> {
        config.geometry.validate().map_err(|e| e.placed(origin))?;
        config.validate().map_err(|e| e.placed(origin))?;
        let g = &config.geometry;
        let unit_bytes = config.ecc_unit_bytes;
        let units_per_program = (g.unit_bytes() / unit_bytes as u64) as u32;
        let units_per_block = units_per_program * g.units_per_block();
        let total_units = units_per_block as u64 * g.total_blocks() as u64;
        let meta = config.metadata.clone().map(|m| Metadata::new(m, config.user_sectors, config.map_entries()));
        let logical = config.user_sectors + meta.as_ref().map_or(0, Metadata::total_sectors);
        ensure!(
            total_units < STALE as u64,
            Config,
            "{origin}: {total_units} ECC units are more than the {} supported; use a larger reduction.ecc_unit_bytes",
            ZERO
        );
        ssdlab_core::memory_room::check_room(origin, &config.table_parts())?;
        Ok(Self {
            unit_bytes,
            units_per_program,
            units_per_block,
            full_chunk_units: SECTOR_BYTES as u32 / unit_bytes,
            l2p: ssdlab_core::memory::huge_vec(UNMAPPED, logical as usize, logical as usize),
            // Chunk ids are reused, so there are never more than one per logical sector.
            chunks: ssdlab_core::memory::huge_vec(Chunk::default(), 0, logical as usize + 1),
            meta,
            meta_live: 0,
            meta_busy: false,
            payload: Vec::new(),
            payload_bytes: 0,
            free_ids: Vec::new(),
            index: FingerprintIndex::new(config.dedup_index_entries),
            block_log: vec![Vec::new(); g.total_blocks() as usize],
            pool: BlockPool::new(g.dies(), g.blocks_per_die(), units_per_block, config.gc_policy),
            live_chunks: 0,
            stats: ChunkStats::default(),
            scratch: Vec::new(),
            div: ChunkDivisors::default(),
            gc_prefetched: Vec::new(),
            many_refs: BTreeMap::new(),
            refs_saturation: REF_MASK,
            config,
        }
        .with_divisors())
    }

    /// The FTL with its divisors computed (after building or loading it).
    fn with_divisors(mut self) -> Self {
        self.div = ChunkDivisors::of(&self);
        self.gc_prefetched = vec![(UNMAPPED, 0); self.pool.dies.len()];
        if let Some(meta) = self.meta.as_mut() {
            meta.derive();
        }
        self
    }

    /// A data-reduction FTL restored from what [`Translation::save`] wrote, for the drive
    /// `config` describes (refused when the saved one had another geometry or capacity).
    ///
    /// [`Translation::save`]: crate::Translation::save
    pub fn load(config: ChunkFtlConfig, input: &mut dyn std::io::Read) -> Result<Self> {
        let mut ftl: Self = bincode::deserialize_from(input).map_err(|e| ssdlab_core::Error::Io(format!("cannot read the saved FTL state: {e}")))?;
        ensure!(
            ftl.config.geometry == config.geometry && ftl.config.user_sectors == config.user_sectors && ftl.config.ecc_unit_bytes == config.ecc_unit_bytes,
            Config,
            "the saved FTL state is for another geometry, capacity or ECC unit"
        );
        ftl.config = config;
        Ok(ftl.with_divisors())
    }
}
