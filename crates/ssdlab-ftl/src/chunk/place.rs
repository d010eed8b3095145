//! Placement: chunks appended to the open host or GC block, padding, completed units programmed.

use super::block_log::log_push;
use super::{ChunkFtl, Stream, META_KEY};
use crate::block::BlockState;
use crate::gc;
use crate::sink::FlashSink;
use crate::UNMAPPED;
use ssdlab_core::{bail, Result};
use ssdlab_nand::OpKind;

impl ChunkFtl {
    /// Program the partly filled host unit of the current die, padding it (a flush).
    pub fn pad_open_unit<S: FlashSink + ?Sized>(&mut self, sink: &mut S) -> u32 {
        let Some((block, pad)) = self.pool.host_padding_needed(self.units_per_program) else { return 0 };
        self.stats.padding_units += pad as u64;
        self.advance(block, pad, Stream::Host, sink);
        pad
    }

    /// Program the partly filled unit of the open `block` (host or GC), padding it. Returns the
    /// padding in ECC units.
    pub fn program_open_unit<S: FlashSink + ?Sized>(&mut self, block: u32, sink: &mut S) -> u32 {
        let stream = match self.pool.blocks[block as usize].state {
            BlockState::OpenHost => Stream::Host,
            BlockState::OpenGc => Stream::Gc,
            _ => return 0,
        };
        let partial = self.pool.blocks[block as usize].written % self.units_per_program;
        if partial == 0 {
            return 0;
        }
        let pad = self.units_per_program - partial;
        self.stats.padding_units += pad as u64;
        self.advance(block, pad, stream, sink);
        pad
    }

    /// Open block of `stream` on `die` with room for `len` units, padding a block whose rest is
    /// too short. For the host stream, may move to another die when this one cannot take data.
    pub(super) fn place<S: FlashSink + ?Sized>(&mut self, stream: Stream, die: u32, chunk: u32, len: u32, sink: &mut S) -> Result<()> {
        let mut die = die;
        let block = loop {
            let open = match stream {
                Stream::Host => self.pool.dies[die as usize].host_open,
                Stream::Gc => self.pool.dies[die as usize].gc_open,
            };
            let block = if open != UNMAPPED {
                open
            } else if stream == Stream::Gc {
                self.pool.take_free(die, BlockState::OpenGc)
            } else {
                match gc::open_host_block(self, sink) {
                    Some((d, b)) => {
                        die = d;
                        b
                    }
                    None => bail!(Request, "no die has reclaimable space: the drive holds more data than it can store"),
                }
            };
            let room = self.units_per_block - self.pool.blocks[block as usize].written;
            if len <= room {
                break block;
            }
            self.stats.padding_units += room as u64;
            self.advance(block, room, stream, sink);
            if stream == Stream::Host {
                die = self.pool.host_cursor_die;
            }
        };
        let addr = block * self.units_per_block + self.pool.blocks[block as usize].written;
        self.chunks[chunk as usize].addr = addr;
        log_push(&mut self.block_log[block as usize], chunk);
        self.pool.counts.add_valid(block, len);
        self.advance(block, len, stream, sink);
        Ok(())
    }

    /// [`ChunkFtl::place`] for a GC copy of `chunk` (`len` units) into the GC block of `die`:
    /// the same steps (padding a block whose rest is too short, then placing), without the
    /// host stream's cases.
    #[inline]
    pub(super) fn place_gc<S: FlashSink + ?Sized>(&mut self, die: u32, chunk: u32, len: u32, sink: &mut S) {
        let (block, written) = loop {
            let mut block = self.pool.dies[die as usize].gc_open;
            if block == UNMAPPED {
                block = self.pool.take_free(die, BlockState::OpenGc);
            }
            let written = self.pool.blocks[block as usize].written;
            let room = self.units_per_block - written;
            if len <= room {
                break (block, written);
            }
            self.stats.padding_units += room as u64;
            self.advance_gc(die, block, written, room, sink);
        };
        self.chunks[chunk as usize].addr = block * self.units_per_block + written;
        log_push(&mut self.block_log[block as usize], chunk);
        self.pool.counts.add_valid(block, len);
        self.advance_gc(die, block, written, len, sink);
    }

    /// A whole GC batch (`batch_units` units in all) placed at once when it fits in what is
    /// left of the die's open GC block: the chunks are laid end to end from the block's write
    /// position, in batch order, and the units they complete are programmed in order, which is
    /// what [`ChunkFtl::place_gc`] chunk by chunk does (only the last chunk can fill the block,
    /// so it closes after the same programs). Returns `false`, having done nothing, when the
    /// batch does not fit, the die has no open GC block, or data is stored (each chunk's bytes
    /// are then moved between its placement and the next, by the caller's per-chunk path).
    #[inline]
    pub(super) fn place_gc_batch<S: FlashSink + ?Sized>(&mut self, die: u32, batch: &[u32], batch_units: u32, sink: &mut S) -> bool {
        let block = self.pool.dies[die as usize].gc_open;
        if block == UNMAPPED || self.config.store_data {
            return false;
        }
        let written = self.pool.blocks[block as usize].written;
        if batch_units > self.units_per_block - written {
            return false;
        }
        let mut addr = block * self.units_per_block + written;
        let log = &mut self.block_log[block as usize];
        for &chunk in batch {
            // One by one: a batch is a few chunks, too few for a general copy to pay.
            log_push(log, chunk);
            let entry = &mut self.chunks[chunk as usize];
            entry.addr = addr;
            addr += entry.len();
            let key = entry.key;
            if let Some(meta) = self.meta.as_mut() {
                // The map of the metadata itself is small and kept in SRAM.
                if key != META_KEY {
                    meta.touched(self.config.user_sectors + chunk as u64);
                }
            }
        }
        self.pool.counts.add_valid(block, batch_units);
        self.advance_gc(die, block, written, batch_units, sink);
        true
    }

    /// [`ChunkFtl::advance`] for the GC block `block` of `die`, which had `before` units written.
    #[inline]
    fn advance_gc<S: FlashSink + ?Sized>(&mut self, die: u32, block: u32, before: u32, n: u32, sink: &mut S) {
        let after = before + n;
        self.pool.blocks[block as usize].written = after;
        for unit in self.div.units_per_program.div(before)..self.div.units_per_program.div(after) {
            sink.program(die, block, unit, OpKind::Internal);
        }
        if after == self.units_per_block {
            self.pool.close(block);
        }
    }

    /// `n` more units of `block` are written: program every program unit completed, close a
    /// full block, and for host data move the stripe on and pace GC.
    fn advance<S: FlashSink + ?Sized>(&mut self, block: u32, n: u32, stream: Stream, sink: &mut S) {
        let before = self.pool.blocks[block as usize].written;
        let after = before + n;
        self.pool.blocks[block as usize].written = after;
        let die = self.div.blocks_per_die.div(block);
        let kind = if stream == Stream::Host { OpKind::Host } else { OpKind::Internal };
        let first_done = self.div.units_per_program.div(before);
        let last_done = self.div.units_per_program.div(after);
        for unit in first_done..last_done {
            sink.program(die, block, unit, kind);
        }
        if after == self.units_per_block {
            self.pool.close(block);
        }
        if stream == Stream::Host {
            for _ in first_done..last_done {
                self.pool.advance_host_cursor(die);
                gc::after_host_program(self, die, self.units_per_program, self.config.gc_low_free_blocks_per_die, self.config.gc_schedule, sink);
            }
        }
    }
}
