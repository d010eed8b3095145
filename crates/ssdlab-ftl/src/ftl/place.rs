//! Placement: host slots taken, mapped and invalidated; padding; filled program units programmed.

use super::{Ftl, P2L_LINE_SLOTS, P2L_PREFETCH_SLOTS};
use crate::block::BlockState;
use crate::gc;
use crate::prefetch::prefetch;
use crate::sink::FlashSink;
use crate::UNMAPPED;
use ssdlab_core::{bail, Result};
use ssdlab_nand::OpKind;

impl Ftl {
    /// Program the partly filled host unit, if any, padding it with invalid slots (a flush).
    /// Returns the number of padding slots.
    pub fn pad_open_unit<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> u32 {
        let block = self.pool.dies[self.pool.host_cursor_die as usize].host_open;
        if block == UNMAPPED {
            return 0;
        }
        // The die's host block is open for host writes (`host_open` names only such a block).
        self.program_open_unit(block, sink)
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

    /// Slots in one program unit of `block` (one multi-plane page in pSLC mode; a one-shot word
    /// line on every plane natively).
    #[inline]
    pub(super) fn program_slots(&self, block: u32) -> u32 {
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

    /// Map `lba` to `slot`, the next slot of `block`.
    #[inline]
    pub(super) fn place_in(&mut self, block: u32, lba: u64, slot: u32, tag: u64) {
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
    pub(super) fn invalidate(&mut self, slot: u32) {
        debug_assert!(self.valid.get(slot));
        self.valid.clear(slot);
        self.valid_total -= 1;
        self.pool.sub_valid(self.div.slots_per_block.div(slot), 1);
    }

    /// After a slot of `block` was written: program the unit if it is full, close the block if
    /// it is full, and move the host stripe on at unit boundaries.
    #[inline]
    pub(super) fn after_slot_written<S: FlashSink + ?Sized>(&mut self, block: u32, kind: OpKind, sink: &mut S) {
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

    /// The host's next slot, as `(block, slot)`.
    #[inline]
    pub(super) fn allocate_host_slot<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> Result<(u32, u32)> {
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
