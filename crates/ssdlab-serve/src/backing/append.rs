//! Appending to the journal: batches and its end marker, and the faults that tear or roll it back.

use super::{io, BackingFile};
use crate::commit::BatchWrite;
use crate::journal::{self, BATCH_HEADER_BYTES};
use crate::layout::{JOURNAL_BYTES, JOURNAL_OFFSET};
use ssdlab_core::{bail, Result};

impl BackingFile {
    /// Write the end marker at the journal's tail (after recovery, the journal continues there).
    pub fn write_end_marker(&mut self) -> Result<()> {
        let marker = journal::encode_end(self.header.epoch(), self.next_batch);
        self.file.write_all_at(&marker, JOURNAL_OFFSET + self.journal_tail).map_err(|e| io(&self.path, "write the journal's end marker", e))?;
        self.metadata_bytes += marker.len() as u64;
        Ok(())
    }

    /// Whether a batch of records encoded in `record_bytes` bytes still fits the journal.
    pub fn journal_has_room(&self, record_bytes: usize) -> bool {
        self.journal_tail + journal::batch_bytes(8 + record_bytes as u32) + journal::PAGE_BYTES <= JOURNAL_BYTES
    }

    /// Append the `count` records encoded in `records` as the next batch (durable when `sync`).
    pub fn append_batch(&mut self, count: u64, records: &[u8], sync: bool) -> Result<()> {
        let batch = self.reserve_batch(count, records)?;
        self.file.write_all_at(&batch.bytes, batch.at).map_err(|e| io(&self.path, "write the journal", e))?;
        if sync {
            self.sync()?;
        }
        Ok(())
    }

    /// Take the journal's room for the next batch, of the `count` records encoded in
    /// `records`: its bytes (with the end marker after it) and where they go, written by the
    /// caller (a commit outside the drive's lock), in the order reserved.
    pub(crate) fn reserve_batch(&mut self, count: u64, records: &[u8]) -> Result<BatchWrite> {
        let mut bytes = Vec::new();
        journal::encode_batch_into(&mut bytes, self.header.epoch(), self.next_batch, count, records);
        let size = bytes.len() as u64;
        if self.journal_tail + size + journal::PAGE_BYTES > JOURNAL_BYTES {
            bail!(Io, "{}: the journal is full (a checkpoint should have started it again)", self.path);
        }
        bytes.extend_from_slice(&journal::encode_end(self.header.epoch(), self.next_batch + 1));
        let at = JOURNAL_OFFSET + self.journal_tail;
        if records.len() >= 8 {
            self.batches.push((self.journal_tail, u64::from_le_bytes(records[..8].try_into().expect("8 bytes"))));
        }
        self.journal_tail += size;
        self.metadata_bytes += size + journal::PAGE_BYTES;
        self.next_batch += 1;
        Ok(BatchWrite { at, bytes })
    }

    /// The metadata-corruption fault: the journal goes back to the start of one of its batches
    /// (drawn by `rng`; the first: back to the checkpoint), durably, as a drive whose map
    /// write-back was lost comes back with older mappings. Returns the sequence number the
    /// journal continues with, or `None` when it holds no batch.
    pub fn roll_back_journal(&mut self, rng: &mut ssdlab_core::SimRng) -> Result<Option<u64>> {
        if self.batches.is_empty() {
            return Ok(None);
        }
        let k = rng.below(self.batches.len() as u64) as usize;
        let (offset, first_seq) = self.batches[k];
        // The batches from k on are gone, not only cut off by the end marker: an intact batch
        // after the marker would look like later damage (not a torn tail) and recovery would
        // refuse the file.
        let old_tail = self.journal_tail.min(JOURNAL_BYTES);
        let zeros = vec![0u8; (old_tail - offset) as usize];
        self.file.write_all_at(&zeros, JOURNAL_OFFSET + offset).map_err(|e| io(&self.path, "roll back the journal", e))?;
        self.batches.truncate(k);
        self.journal_tail = offset;
        self.next_batch = k as u64;
        self.write_end_marker()?;
        self.sync()?;
        Ok(Some(first_seq))
    }

    /// Power is cut while the `count` records encoded in `records` are being written: the first
    /// half of their batch reaches the file (a torn metadata page), the rest does not.
    pub fn write_torn_batch(&mut self, count: u64, records: &[u8]) {
        let mut batch = Vec::new();
        journal::encode_batch_into(&mut batch, self.header.epoch(), self.next_batch, count, records);
        // Half of the header and body (not of the padded page, whose first half may hold all of
        // a short body).
        let body = u32::from_le_bytes(batch[24..28].try_into().expect("4 bytes")) as usize;
        let torn = &batch[..(BATCH_HEADER_BYTES + body) / 2];
        if self.journal_tail + batch.len() as u64 <= JOURNAL_BYTES {
            let _ = self.file.write_all_at(torn, JOURNAL_OFFSET + self.journal_tail);
        }
    }
}
