//! Reads: where a sector's chunk is ([`ChunkLocation`]), its kept bytes, whether a unit is written.

use super::{is_chunk, ChunkFtl};
use crate::block::BlockState;

/// Where a chunk lives: its die and block and the program units it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkLocation {
    /// Die.
    pub die: u32,
    /// Block.
    pub block: u32,
    /// First program unit (multi-plane page) of the block holding the chunk.
    pub first_unit: u32,
    /// Last program unit holding the chunk (equal to `first_unit` unless it spans).
    pub last_unit: u32,
    /// First page of the block holding the chunk (pages numbered unit-major, plane-minor).
    pub first_page: u32,
    /// Last page holding the chunk.
    pub last_page: u32,
    /// Byte offset of the chunk within its first page.
    pub offset_in_page: u32,
    /// Bytes of the chunk (whole ECC units).
    pub bytes: u64,
    /// Chunk id.
    pub chunk: u32,
}

impl ChunkFtl {
    /// Where sector `lba`'s chunk lives (`None` when unmapped or all zeros).
    #[inline]
    pub fn locate(&self, lba: u64) -> Option<ChunkLocation> {
        let chunk = self.l2p[lba as usize];
        if !is_chunk(chunk) {
            return None;
        }
        let addr = self.chunks[chunk as usize].addr;
        let len = self.chunks[chunk as usize].len();
        let block = self.div.units_per_block.div(addr);
        let offset = addr - block * self.units_per_block;
        let page_bytes = self.config.geometry.page_bytes;
        let first_byte = offset as u64 * self.unit_bytes as u64;
        let last_byte = (offset + len) as u64 * self.unit_bytes as u64 - 1;
        Some(ChunkLocation {
            die: self.div.blocks_per_die.div(block),
            block,
            first_unit: self.div.units_per_program.div(offset),
            last_unit: self.div.units_per_program.div(offset + len - 1),
            first_page: (first_byte / page_bytes as u64) as u32,
            last_page: (last_byte / page_bytes as u64) as u32,
            offset_in_page: (first_byte % page_bytes as u64) as u32,
            bytes: len as u64 * self.unit_bytes as u64,
            chunk,
        })
    }

    /// The stored (compressed) bytes of sector `lba`'s content, when payloads are kept; `None`
    /// for zeros and unmapped sectors (which read as zeros).
    pub fn read_payload(&self, lba: u64) -> Option<&[u8]> {
        match self.l2p[lba as usize] {
            chunk if is_chunk(chunk) => self.payload.get(chunk as usize).and_then(|p| p.as_deref()),
            _ => None,
        }
    }

    /// Whether program unit `unit` of `block` has been programmed: always, except in an open
    /// block whose unit is still filling.
    #[inline]
    pub fn unit_programmed(&self, block: u32, unit: u32) -> bool {
        let b = &self.pool.blocks[block as usize];
        match b.state {
            BlockState::OpenHost | BlockState::OpenGc => b.written >= (unit + 1) * self.units_per_program,
            _ => true,
        }
    }
}
