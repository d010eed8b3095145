//! What the host last wrote to each sector, for fio's `verify`: the content identity it expects
//! a read of the sector to give back.
//!
//! This is the host's side of the check (fio's header and checksum in each block), kept with
//! the drive so that every run on it sees what earlier runs wrote (a job file's second group
//! reads back what its first wrote). The drive's own paths never read it.

use std::collections::BTreeMap;

/// Sectors per page of the record: 16 MiB of the drive, 32 KiB of record. Pages are allocated
/// as jobs with verify write into them, so the record is sized to what they wrote.
const PAGE_SECTORS: u64 = 4096;

/// Bytes of record per sector of a page written by a job with verify.
pub const EXPECTED_BYTES_PER_SECTOR: u64 = 8;

/// The content identity ([`ssdlab_ftl::Translation::content_id`]) the host expects from each
/// sector it wrote with fio's verify headers; 0 for a sector it did not (never written by such
/// a job, or written since by a job without verify): such a sector has no valid header and
/// fails, as in fio.
#[derive(Debug, Default, Clone)]
pub struct ExpectedIds {
    /// Page number (sector / [`PAGE_SECTORS`]) -> the expected identity of each of its sectors.
    pages: BTreeMap<u64, Box<[u64]>>,
}

impl ExpectedIds {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sector `lba` was last written with content identity `id` by a job with verify.
    pub fn set(&mut self, lba: u64, id: u64) {
        let page = self.pages.entry(lba / PAGE_SECTORS).or_insert_with(|| vec![0; PAGE_SECTORS as usize].into_boxed_slice());
        page[(lba % PAGE_SECTORS) as usize] = id;
    }

    /// Sector `lba` was last written by a job without verify: no header to expect.
    pub fn clear(&mut self, lba: u64) {
        if let Some(page) = self.pages.get_mut(&(lba / PAGE_SECTORS)) {
            page[(lba % PAGE_SECTORS) as usize] = 0;
        }
    }

    /// The identity expected from sector `lba` (0: none).
    pub fn get(&self, lba: u64) -> u64 {
        self.pages.get(&(lba / PAGE_SECTORS)).map_or(0, |page| page[(lba % PAGE_SECTORS) as usize])
    }

    /// Bytes the record holds.
    pub fn memory_bytes(&self) -> u64 {
        self.pages.len() as u64 * PAGE_SECTORS * EXPECTED_BYTES_PER_SECTOR
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_allocated_where_written_and_cleared_sectors_expect_nothing() {
        let mut record = ExpectedIds::new();
        assert_eq!((record.get(5), record.memory_bytes()), (0, 0));
        record.set(5, 77);
        record.set(PAGE_SECTORS * 3 + 1, 9);
        assert_eq!((record.get(5), record.get(6), record.get(PAGE_SECTORS * 3 + 1)), (77, 0, 9));
        assert_eq!(record.memory_bytes(), 2 * PAGE_SECTORS * 8);
        record.clear(5);
        record.clear(PAGE_SECTORS * 9); // no page there: nothing allocated
        assert_eq!((record.get(5), record.memory_bytes()), (0, 2 * PAGE_SECTORS * 8));
    }
}
