//! Reads: where a sector is ([`Location`]), its read piece and content tag, whether a unit is programmed.

use super::Ftl;
use crate::block::BlockState;
use crate::translation::Piece;
use crate::UNMAPPED;
use ssdlab_nand::SECTOR_BYTES;

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

impl Ftl {
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
    pub(super) fn location_of(&self, slot: u32) -> Location {
        let block = self.div.slots_per_block.div(slot);
        Location { die: self.div.blocks_per_die.div(block), block, unit: (slot - block * self.slots_per_block) / self.slots_per_unit, slot }
    }

    /// The read piece of the sector in `loc` (a whole 4 KiB sector in one page).
    #[inline]
    pub(super) fn piece_at(&self, loc: Location) -> Piece {
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
}
