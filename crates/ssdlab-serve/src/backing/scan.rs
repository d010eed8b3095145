//! Reading the journal back: its intact batches, and the check that damage is only a torn tail.

use super::{io, BackingFile, JournalScan};
use crate::journal::{self, BatchHead, Record, BATCH_HEADER_BYTES};
use crate::layout::{JOURNAL_BYTES, JOURNAL_OFFSET};
use ssdlab_core::{bail, Result};

/// What lies where a batch of the journal would be.
enum Found {
    /// The batch, intact, and the journal bytes it takes.
    Batch { records: Vec<Record>, size: u64 },
    /// The journal's end marker: no batch follows.
    Marker,
    /// The end of the journal region.
    JournalEnd,
    /// No intact batch and no end marker: torn, damaged or cut short (why).
    Damaged(String),
}

impl BackingFile {
    /// What lies at journal byte `offset` where batch `index` of `epoch` would be.
    fn batch_at(&self, offset: u64, epoch: u64, index: u64, file_len: u64) -> Result<Found> {
        let at = JOURNAL_OFFSET + offset;
        if offset + BATCH_HEADER_BYTES as u64 > JOURNAL_BYTES {
            return Ok(Found::JournalEnd);
        }
        if at + BATCH_HEADER_BYTES as u64 > file_len {
            return Ok(Found::Damaged(format!("the file ends inside the journal, at its byte {offset} (truncated)")));
        }
        let mut head = [0u8; BATCH_HEADER_BYTES];
        self.file.read_exact_at(&mut head, at).map_err(|e| io(&self.path, "read the journal", e))?;
        let (body_bytes, crc32) = match journal::read_head(&head, epoch, index) {
            BatchHead::End if journal::is_end(&head, epoch, index) => return Ok(Found::Marker),
            BatchHead::End => {
                return Ok(Found::Damaged(format!(
                    "the journal stops at batch {index} (byte {offset}) without its end marker (its last batch was torn or lost)"
                )))
            }
            BatchHead::Batch { body_bytes, crc32 } => (body_bytes, crc32),
        };
        let size = journal::batch_bytes(body_bytes);
        if offset + size > JOURNAL_BYTES || at + BATCH_HEADER_BYTES as u64 + body_bytes as u64 > file_len {
            return Ok(Found::Damaged(format!("batch {index} claims {body_bytes} bytes, past the end of the journal or the file (torn or damaged)")));
        }
        let mut body = vec![0u8; body_bytes as usize];
        self.file.read_exact_at(&mut body, at + BATCH_HEADER_BYTES as u64).map_err(|e| io(&self.path, "read the journal", e))?;
        Ok(match journal::decode_body(&head, &body, crc32) {
            None => Found::Damaged(format!("batch {index} at journal byte {offset} fails its checksum (torn or damaged)")),
            Some(records) if records.is_empty() => Found::Damaged(format!("batch {index} at journal byte {offset} holds no records (damaged)")),
            Some(records) => Found::Batch { records, size },
        })
    }

    /// Read the journal of the current epoch from its start: every intact batch, in order,
    /// until its end marker, or until a batch that is missing or damaged (discarded, and named).
    pub fn scan_journal(&mut self) -> Result<JournalScan> {
        let epoch = self.header.epoch();
        let mut scan = JournalScan::default();
        let mut offset = 0u64;
        let file_len = self.file_len()?;
        loop {
            match self.batch_at(offset, epoch, scan.batches, file_len)? {
                Found::Batch { records, size } => {
                    self.batches.push((offset, records[0].seq));
                    scan.records.extend(records);
                    scan.batches += 1;
                    offset += size;
                }
                Found::Marker | Found::JournalEnd => break,
                Found::Damaged(why) => {
                    scan.discarded = Some(why);
                    break;
                }
            }
        }
        // A torn batch is the last one written. An intact batch of this epoch after where the
        // scan stopped (a damaged batch, or what looks like the end) means the damage is not a
        // torn tail: later operations were acknowledged as durable and blocks were released
        // after them, so the shorter journal no longer matches the data.
        if let Some(later) = self.later_batch(epoch, scan.batches, offset, file_len)? {
            let stop = match &scan.discarded {
                Some(_) => format!("journal batch {} is damaged", scan.batches),
                None => format!("the journal ends before batch {}", scan.batches),
            };
            bail!(Io, "{}: {stop} but batch {later} after it is intact (not a torn tail); the journal cannot be replayed consistently, refusing", self.path);
        }
        scan.bytes_read = offset;
        self.next_batch = scan.batches;
        self.journal_tail = offset;
        Ok(scan)
    }

    /// The index of an intact batch of `epoch` with an index of at least `after`, page-aligned
    /// somewhere from journal byte `from` on, if there is one.
    fn later_batch(&self, epoch: u64, after: u64, from: u64, file_len: u64) -> Result<Option<u64>> {
        let mut offset = from;
        while offset + BATCH_HEADER_BYTES as u64 <= JOURNAL_BYTES && JOURNAL_OFFSET + offset + (BATCH_HEADER_BYTES as u64) <= file_len {
            let mut head = [0u8; BATCH_HEADER_BYTES];
            self.file.read_exact_at(&mut head, JOURNAL_OFFSET + offset).map_err(|e| io(&self.path, "read the journal", e))?;
            let index = u64::from_le_bytes(head[16..24].try_into().expect("8 bytes"));
            if &head[..8] == journal::BATCH_MAGIC && index >= after {
                if let Found::Batch { .. } = self.batch_at(offset, epoch, index, file_len)? {
                    return Ok(Some(index));
                }
            }
            offset += journal::PAGE_BYTES;
        }
        Ok(None)
    }
}
