//! The metadata journal: the out-of-band records of every operation that changed the drive
//! since the last checkpoint, in order, written in checksummed batches.
//!
//! A record holds what the FTL needs to redo the operation without reading its data: the
//! command (offset, length, arrival time), for a write each sector's fingerprint, stored size
//! and whether it is all zeros (the FTL's choices of chunk, slot and deduplication depend on
//! nothing else), the extent changes the operation made, and a check (free blocks, GC moves,
//! live sectors afterwards) that recovery compares with what it redid.
//!
//! A batch on file, padded to 4 KiB (a metadata page):
//!
//! | bytes | what |
//! |---|---|
//! | 0..8 | magic `SSDLJRNL` |
//! | 8..16 | epoch (the checkpoint it follows), little-endian |
//! | 16..24 | batch index within the epoch |
//! | 24..28 | body length `n` |
//! | 28..32 | CRC-32 of bytes 8..28 and of the body |
//! | 32..32+n | the body: the records (bincode) |
//!
//! Every write of a batch also writes, in the same `pwrite`, an end marker on the page after it
//! (magic `SSDLJEND`, epoch, the next batch's index, CRC-32), which the next batch overwrites.
//! So a journal that stops without its end marker lost its last batch (torn by a power cut, or
//! damaged), and recovery says so instead of taking the shorter journal for the whole one.

use crate::extents::ExtentEvent;
use serde::{Deserialize, Serialize};
use ssdlab_reduce::SectorContent;

/// A batch's first bytes.
pub const BATCH_MAGIC: &[u8; 8] = b"SSDLJRNL";
/// The end marker's first bytes.
pub const END_MAGIC: &[u8; 8] = b"SSDLJEND";
/// Bytes before a batch's body.
pub const BATCH_HEADER_BYTES: usize = 32;
/// Batches are padded to this (one metadata page).
pub const PAGE_BYTES: u64 = 4096;

/// What recovery needs of one written sector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectorDesc {
    /// All zeros.
    pub zero: bool,
    /// Content fingerprint.
    pub fingerprint: u128,
    /// Bytes after compression.
    pub stored_bytes: u32,
}

impl SectorDesc {
    /// The description of `content`.
    pub fn of(content: &SectorContent) -> Self {
        Self { zero: content.zero, fingerprint: content.fingerprint, stored_bytes: content.stored_bytes }
    }

    /// Content with this description and no payload (recovery redoes placement only).
    pub fn content(&self) -> SectorContent {
        SectorContent { zero: self.zero, fingerprint: self.fingerprint, stored_bytes: self.stored_bytes, payload: None }
    }
}

/// An operation that changed the drive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    /// A write of `len` bytes at byte `offset`; one description per 4 KiB sector it touches.
    Write {
        /// Byte offset.
        offset: u64,
        /// Bytes.
        len: u64,
        /// The sectors' contents after the write.
        sectors: Vec<SectorDesc>,
    },
    /// A TRIM.
    Trim {
        /// Byte offset.
        offset: u64,
        /// Bytes.
        len: u64,
    },
    /// A FLUSH (the open unit is programmed, padded).
    Flush,
    /// The drive lost power here: what it lost (the records of the operations lost are not in
    /// the journal). Changes nothing when redone.
    Cut(CutReport),
}

/// What a power cut cost the drive (docs/power-loss.md, "the drive's own loss window").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CutReport {
    /// Simulated time of the cut.
    pub at_ns: u64,
    /// Operations the drive had taken whose data it had not all programmed: lost.
    pub lost_operations: u64,
    /// 4 KiB sectors those operations wrote.
    pub lost_sectors: u64,
    /// Of which an acknowledged FLUSH had covered (0 unless the drive lies about flushes).
    pub lost_flushed_sectors: u64,
    /// Sectors still in the volatile write buffer at the cut (not programmed, or in a program
    /// not complete).
    pub buffered_sectors: u64,
    /// Programs not complete at the cut (torn).
    pub torn_programs: u64,
    /// Failure modes of the drive that struck at this cut (`--fault`), by name.
    pub faults: Vec<String>,
    /// Operations the drive had made durable but forgot (metadata corruption).
    pub forgotten_operations: u64,
}

impl std::fmt::Display for CutReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} operations lost ({} sectors, of which {} flushed); {} sectors were in the write buffer, {} programs torn",
            self.lost_operations, self.lost_sectors, self.lost_flushed_sectors, self.buffered_sectors, self.torn_programs
        )?;
        if !self.faults.is_empty() {
            write!(f, "; faults: {}", self.faults.join(", "))?;
        }
        if self.forgotten_operations > 0 {
            write!(f, "; {} durable operations forgotten", self.forgotten_operations)?;
        }
        Ok(())
    }
}

/// The drive's figures after an operation, which redoing it must reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Free blocks.
    pub free_blocks: u64,
    /// Allocation units GC has moved.
    pub gc_moved: u64,
    /// Logical sectors holding data.
    pub live_sectors: u64,
    /// Digest of where the operation put data: each region stored, moved and erased, the
    /// extent changes, and where each sector it wrote now lies (crate::placement).
    pub placement: u64,
}

/// One operation's out-of-band record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Sequence number: one more than the previous record's (checkpoints carry the next).
    pub seq: u64,
    /// Simulated arrival time.
    pub at_ns: u64,
    /// The operation.
    pub op: Op,
    /// Extent changes it made.
    pub extents: Vec<ExtentEvent>,
    /// The drive's figures after it.
    pub check: Check,
}

/// Encode `records` as one batch, padded to whole pages.
#[cfg(test)]
pub fn encode_batch(epoch: u64, index: u64, records: &[Record]) -> Vec<u8> {
    let body = bincode::serialize(records).expect("records serialize");
    let mut out = Vec::new();
    encode_batch_into(&mut out, epoch, index, records.len() as u64, &body[8..]);
    out
}

/// Encode, into `out` (cleared first), the batch of `count` records whose encodings, one after
/// the other, are `records` (as [`RecordEncoder`] writes them); padded to whole pages.
pub fn encode_batch_into(out: &mut Vec<u8>, epoch: u64, index: u64, count: u64, records: &[u8]) {
    out.clear();
    let body_bytes = 8 + records.len();
    out.reserve(batch_bytes(body_bytes as u32) as usize);
    out.extend_from_slice(BATCH_MAGIC);
    out.extend_from_slice(&epoch.to_le_bytes());
    out.extend_from_slice(&index.to_le_bytes());
    out.extend_from_slice(&(body_bytes as u32).to_le_bytes());
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&out[8..28]);
    hasher.update(&count.to_le_bytes());
    hasher.update(records);
    out.extend_from_slice(&hasher.finalize().to_le_bytes());
    // The body is the bincode of a Vec<Record>: its length, then the records.
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(records);
    out.resize(out.len().div_ceil(PAGE_BYTES as usize) * PAGE_BYTES as usize, 0);
}

/// Writes records in the journal's encoding (exactly the bytes `bincode::serialize` gives a
/// [`Record`]) straight into a buffer, in the order of the record's fields: the head and the
/// operation before the drive does it (a write's sector descriptions are taken from contents
/// the drive then consumes), the extent changes and the check after. No allocation per record.
pub struct RecordEncoder;

impl RecordEncoder {
    /// The record's sequence number and arrival time.
    pub fn head(out: &mut Vec<u8>, seq: u64, at_ns: u64) {
        out.extend_from_slice(&seq.to_le_bytes());
        out.extend_from_slice(&at_ns.to_le_bytes());
    }

    /// A write of `len` bytes at `offset` with these sectors' descriptions.
    pub fn write<'a>(out: &mut Vec<u8>, offset: u64, len: u64, sectors: impl ExactSizeIterator<Item = &'a SectorContent>) {
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(sectors.len() as u64).to_le_bytes());
        for s in sectors {
            out.push(s.zero as u8);
            out.extend_from_slice(&s.fingerprint.to_le_bytes());
            out.extend_from_slice(&s.stored_bytes.to_le_bytes());
        }
    }

    /// A TRIM of `len` bytes at `offset`.
    pub fn trim(out: &mut Vec<u8>, offset: u64, len: u64) {
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
    }

    /// A FLUSH.
    pub fn flush(out: &mut Vec<u8>) {
        out.extend_from_slice(&2u32.to_le_bytes());
    }

    /// A power cut.
    pub fn cut(out: &mut Vec<u8>, report: &CutReport) {
        out.extend_from_slice(&3u32.to_le_bytes());
        bincode::serialize_into(out, report).expect("a cut report serializes");
    }

    /// The operation's extent changes and the drive's figures after it.
    pub fn tail(out: &mut Vec<u8>, extents: &[ExtentEvent], check: &Check) {
        out.extend_from_slice(&(extents.len() as u64).to_le_bytes());
        for &(block, extent) in extents {
            out.extend_from_slice(&block.to_le_bytes());
            out.extend_from_slice(&extent.to_le_bytes());
        }
        out.extend_from_slice(&check.free_blocks.to_le_bytes());
        out.extend_from_slice(&check.gc_moved.to_le_bytes());
        out.extend_from_slice(&check.live_sectors.to_le_bytes());
        out.extend_from_slice(&check.placement.to_le_bytes());
    }
}

/// The end marker page for a journal of `epoch` whose next batch is `index`.
pub fn encode_end(epoch: u64, index: u64) -> Vec<u8> {
    let mut out = vec![0u8; PAGE_BYTES as usize];
    out[..8].copy_from_slice(END_MAGIC);
    out[8..16].copy_from_slice(&epoch.to_le_bytes());
    out[16..24].copy_from_slice(&index.to_le_bytes());
    let crc = crc32fast::hash(&out[8..24]);
    out[24..28].copy_from_slice(&crc.to_le_bytes());
    out
}

/// Whether `head` is the end marker of a journal of `epoch` whose next batch is `index`.
pub fn is_end(head: &[u8; BATCH_HEADER_BYTES], epoch: u64, index: u64) -> bool {
    &head[..8] == END_MAGIC
        && u64::from_le_bytes(head[8..16].try_into().expect("8 bytes")) == epoch
        && u64::from_le_bytes(head[16..24].try_into().expect("8 bytes")) == index
        && crc32fast::hash(&head[8..24]) == u32::from_le_bytes(head[24..28].try_into().expect("4 bytes"))
}

/// What a batch header says, before its body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchHead {
    /// No batch of this epoch and index here: the journal ends (zeros, an older epoch's batch).
    End,
    /// A batch of `body_bytes` with checksum `crc32`.
    Batch {
        /// Body bytes.
        body_bytes: u32,
        /// Expected CRC-32.
        crc32: u32,
    },
}

/// Read a batch header expected at epoch `epoch`, index `index`.
pub fn read_head(head: &[u8; BATCH_HEADER_BYTES], epoch: u64, index: u64) -> BatchHead {
    let word = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
    if &head[..8] != BATCH_MAGIC || word(8) != epoch || word(16) != index {
        return BatchHead::End;
    }
    BatchHead::Batch {
        body_bytes: u32::from_le_bytes(head[24..28].try_into().expect("4 bytes")),
        crc32: u32::from_le_bytes(head[28..32].try_into().expect("4 bytes")),
    }
}

/// The records of a batch body, if its checksum holds.
pub fn decode_body(head: &[u8; BATCH_HEADER_BYTES], body: &[u8], crc32: u32) -> Option<Vec<Record>> {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&head[8..28]);
    hasher.update(body);
    if hasher.finalize() != crc32 {
        return None;
    }
    bincode::deserialize(body).ok()
}

/// Bytes the batch of `records` takes on file, without encoding it.
#[cfg(test)]
pub fn batch_bytes_of(records: &[Record]) -> u64 {
    batch_bytes(bincode::serialized_size(records).expect("records serialize") as u32)
}

/// Bytes a batch of `body_bytes` takes on file.
pub fn batch_bytes(body_bytes: u32) -> u64 {
    (BATCH_HEADER_BYTES as u64 + body_bytes as u64).div_ceil(PAGE_BYTES) * PAGE_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extents::NO_EXTENT;

    fn record(seq: u64) -> Record {
        Record {
            seq,
            at_ns: seq * 10,
            op: Op::Write { offset: 4096 * seq, len: 4096, sectors: vec![SectorDesc { zero: false, fingerprint: 7 << 70, stored_bytes: 1200 }] },
            extents: vec![(3, 9)],
            check: Check { free_blocks: 5, gc_moved: 1, live_sectors: seq, placement: seq * 3 },
        }
    }

    #[test]
    fn the_encoder_writes_what_bincode_writes() {
        let contents = [
            SectorContent { zero: false, fingerprint: 7 << 70 | 5, stored_bytes: 1200, payload: None },
            SectorContent { zero: true, fingerprint: 0, stored_bytes: 0, payload: None },
        ];
        let records = vec![
            Record {
                seq: 9,
                at_ns: 123,
                op: Op::Write { offset: 8192, len: 8192, sectors: contents.iter().map(SectorDesc::of).collect() },
                extents: vec![(3, 9), (4, NO_EXTENT)],
                check: Check { free_blocks: 5, gc_moved: 1, live_sectors: 9, placement: 77 },
            },
            Record {
                seq: 10,
                at_ns: 200,
                op: Op::Trim { offset: 0, len: 1 << 40 },
                extents: vec![],
                check: Check { free_blocks: 6, gc_moved: 1, live_sectors: 0, placement: 0 },
            },
            Record { seq: 11, at_ns: 300, op: Op::Flush, extents: vec![(1, 2)], check: Check { free_blocks: 6, gc_moved: 2, live_sectors: 0, placement: 5 } },
            Record {
                seq: 12,
                at_ns: 400,
                op: Op::Cut(CutReport { at_ns: 400, lost_operations: 3, faults: vec!["dead-device".into()], ..Default::default() }),
                extents: vec![],
                check: Check { free_blocks: 0, gc_moved: 0, live_sectors: 0, placement: 0 },
            },
        ];
        let mut out = Vec::new();
        for r in &records {
            RecordEncoder::head(&mut out, r.seq, r.at_ns);
            match &r.op {
                Op::Write { offset, len, .. } => RecordEncoder::write(&mut out, *offset, *len, contents.iter()),
                Op::Trim { offset, len } => RecordEncoder::trim(&mut out, *offset, *len),
                Op::Flush => RecordEncoder::flush(&mut out),
                Op::Cut(report) => RecordEncoder::cut(&mut out, report),
            }
            RecordEncoder::tail(&mut out, &r.extents, &r.check);
        }
        assert_eq!(out, bincode::serialize(&records).unwrap()[8..]);
        let mut batch = Vec::new();
        encode_batch_into(&mut batch, 3, 1, 4, &out);
        assert_eq!(batch, encode_batch(3, 1, &records));
    }

    #[test]
    fn batches_round_trip_and_damage_is_caught() {
        let records = vec![record(1), record(2), Record { op: Op::Flush, ..record(3) }];
        let batch = encode_batch(4, 2, &records);
        assert_eq!(batch.len() as u64 % PAGE_BYTES, 0);
        let head: [u8; BATCH_HEADER_BYTES] = batch[..BATCH_HEADER_BYTES].try_into().unwrap();
        let BatchHead::Batch { body_bytes, crc32 } = read_head(&head, 4, 2) else { panic!("a batch") };
        assert_eq!(batch_bytes(body_bytes), batch.len() as u64);
        assert_eq!(batch_bytes_of(&records), batch.len() as u64);
        let body = &batch[BATCH_HEADER_BYTES..BATCH_HEADER_BYTES + body_bytes as usize];
        assert_eq!(decode_body(&head, body, crc32).unwrap(), records);
        // Another epoch or index is the end of the journal, not damage.
        assert_eq!(read_head(&head, 5, 2), BatchHead::End);
        assert_eq!(read_head(&head, 4, 3), BatchHead::End);
        assert_eq!(read_head(&[0; BATCH_HEADER_BYTES], 4, 2), BatchHead::End);
        // The end marker names its epoch and the next batch; a flipped bit spoils it.
        let end: [u8; BATCH_HEADER_BYTES] = encode_end(4, 3)[..BATCH_HEADER_BYTES].try_into().unwrap();
        assert!(is_end(&end, 4, 3) && !is_end(&end, 4, 2) && !is_end(&end, 5, 3) && !is_end(&head, 4, 2));
        assert_eq!(read_head(&end, 4, 3), BatchHead::End);
        let mut spoiled = end;
        spoiled[12] ^= 4;
        assert!(!is_end(&spoiled, 4, 3));
        // A flipped bit anywhere in the body fails the checksum.
        for at in 0..body.len() {
            let mut damaged = body.to_vec();
            damaged[at] ^= 0x10;
            assert!(decode_body(&head, &damaged, crc32).is_none(), "flip at {at}");
        }
    }
}
