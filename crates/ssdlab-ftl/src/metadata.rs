//! Firmware metadata written to flash: the map's pages and the journal of map updates.
//!
//! The controller keeps its map (a `map_entry_bytes` entry per 4 KiB sector; on a
//! data-reduction drive also a chunk-table entry per chunk) in *map pages* of one NAND page.
//! Every map change (a host write, a TRIM, a GC move, a chunk stored, referenced or freed)
//! marks its map page dirty; each sector the host writes also appends one
//! `journal_record_bytes` record to the journal (where its data went; what that implies, such
//! as an old chunk freed, is not recorded apart), and a run of sectors trimmed in one map page
//! appends one. GC moves are not journaled: like the data they move, they are found again from
//! the out-of-band addresses of the blocks GC wrote since the last checkpoint.
//!
//! A full journal sector is written to flash. When the journal holds `journal_bytes` of records
//! since the last checkpoint, a checkpoint starts and the journal starts again. The checkpoint
//! is *fuzzy*: the map pages dirty at that moment are written back a few at a time, paced by
//! the records that follow, all of them within half a journal (a firmware writing the whole map
//! at once would stall the host for as long). A controller whose map lives in flash with only a
//! small SRAM cache (DRAM-less) first reads each map page it writes back, to merge the
//! journal's updates into it.
//!
//! Metadata sectors are *pseudo-sectors* numbered after the user sectors: map pages first, then
//! the journal's ring. The FTL writes them through its host stream like host data (they fill
//! program units, take free blocks and are moved by GC), counts them apart, and they are no
//! user data. This module only decides what to write; the FTLs place it.

use ssdlab_nand::SECTOR_BYTES;

/// How the firmware keeps its map in flash.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MetadataConfig {
    /// Bytes per map entry.
    pub map_entry_bytes: u32,
    /// Bytes per map page (a NAND page).
    pub map_page_bytes: u32,
    /// Bytes per journal record.
    pub journal_record_bytes: u32,
    /// Bytes of journal records between checkpoints.
    pub journal_bytes: u64,
    /// Read each map page before writing it back (the map lives in flash; a DRAM-less
    /// controller).
    pub read_before_writeback: bool,
}

/// Assumed size of one journal record: the sector (or chunk) and its new location.
pub const JOURNAL_RECORD_BYTES: u32 = 8;

/// The journal's default length: a sixteenth of the map (assumed).
pub const JOURNAL_SHARE_OF_MAP: u64 = 16;

/// Fraction bits of the write-back pacing (integer arithmetic: no rounding decides a write).
const FRACTION_BITS: u32 = 16;

/// A metadata sector to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MetaWrite {
    /// A journal sector, pseudo-sector `sector`.
    Journal { sector: u64 },
    /// Map page `page`: its pseudo-sectors `first..first + sectors`; read first when `read`.
    MapPage { first: u64, sectors: u64, read: bool },
}

/// Counters of metadata written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MetadataStats {
    /// Journal records appended.
    pub journal_records: u64,
    /// Journal sectors written.
    pub journal_sectors_written: u64,
    /// Map-page sectors written back.
    pub map_sectors_written: u64,
    /// Map pages read before write-back.
    pub map_pages_read: u64,
    /// Checkpoints taken.
    pub checkpoints: u64,
}

impl MetadataStats {
    /// Metadata sectors written, all kinds.
    pub fn sectors_written(&self) -> u64 {
        self.journal_sectors_written + self.map_sectors_written
    }
}

/// The metadata state of one FTL.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Metadata {
    config: MetadataConfig,
    /// First pseudo-sector (the user sectors come before).
    first_sector: u64,
    entries_per_page: u64,
    sectors_per_page: u64,
    map_pages: u64,
    journal_sectors: u64,
    records_per_sector: u64,
    records_per_checkpoint: u64,
    /// Dirty map pages: a bit each, and the pages in the order they became dirty.
    dirty_bits: Vec<u64>,
    dirty: Vec<u32>,
    /// Map pages a checkpoint still has to write back.
    writeback: std::collections::VecDeque<u32>,
    /// Write-back pacing: map pages owed per journal record, and owed now (16 fraction bits).
    writeback_per_record_fixed: u64,
    writeback_credit_fixed: u64,
    /// Records in the journal buffer, not yet in a journal sector.
    buffered_records: u64,
    records_since_checkpoint: u64,
    journal_cursor: u64,
    /// The last TRIM's map page and sector, to count a run of trimmed sectors once.
    last_trim: Option<(u64, u64)>,
    pub stats: MetadataStats,
    /// `log2(entries_per_page)` when it is a power of two (derived, not saved: see
    /// [`Metadata::derive`]; without it the page is found by division, with the same result).
    #[serde(skip)]
    page_shift: Option<u32>,
}

impl Metadata {
    /// Metadata for `entries` map entries (user sectors, plus chunk-table entries on a
    /// data-reduction drive), its pseudo-sectors numbered from `first_sector`.
    pub fn new(config: MetadataConfig, first_sector: u64, entries: u64) -> Self {
        let entries_per_page = (config.map_page_bytes / config.map_entry_bytes.max(1)).max(1) as u64;
        let sectors_per_page = (config.map_page_bytes as u64).div_ceil(SECTOR_BYTES).max(1);
        let map_pages = entries.div_ceil(entries_per_page).max(1);
        let records_per_sector = (SECTOR_BYTES / config.journal_record_bytes.max(1) as u64).max(1);
        let journal_sectors = config.journal_bytes.div_ceil(SECTOR_BYTES).max(2);
        let records_per_checkpoint = (config.journal_bytes / config.journal_record_bytes.max(1) as u64).max(records_per_sector);
        Self {
            first_sector,
            entries_per_page,
            sectors_per_page,
            map_pages,
            journal_sectors,
            records_per_sector,
            records_per_checkpoint,
            dirty_bits: vec![0; map_pages.div_ceil(64) as usize],
            dirty: Vec::new(),
            writeback: std::collections::VecDeque::new(),
            writeback_per_record_fixed: 0,
            writeback_credit_fixed: 0,
            buffered_records: 0,
            records_since_checkpoint: 0,
            journal_cursor: 0,
            last_trim: None,
            stats: MetadataStats::default(),
            page_shift: None,
            config,
        }
        .derived()
    }

    fn derived(mut self) -> Self {
        self.derive();
        self
    }

    /// Pseudo-sectors needed for `entries` map entries with `config` (map pages and journal).
    pub fn sectors_needed(config: &MetadataConfig, entries: u64) -> u64 {
        let m = Self::new(config.clone(), 0, entries);
        m.total_sectors()
    }

    /// Pseudo-sectors of the map pages and the journal ring.
    pub fn total_sectors(&self) -> u64 {
        self.map_pages * self.sectors_per_page + self.journal_sectors
    }

    /// Whether `sector` is one of the metadata pseudo-sectors.
    #[inline]
    pub fn is_metadata(&self, sector: u64) -> bool {
        sector >= self.first_sector
    }

    /// Map entry `entry` changed: its map page becomes dirty, a record goes into the journal.
    #[inline]
    pub fn changed(&mut self, entry: u64) {
        self.mark_dirty(self.page_of(entry));
        self.append_record();
    }

    /// Map entry `entry` changed with no journal record of its own (moved by garbage
    /// collection, or implied by a journaled write): its map page becomes dirty.
    #[inline]
    pub fn touched(&mut self, entry: u64) {
        self.mark_dirty(self.page_of(entry));
    }

    /// The map page holding entry `entry`: a shift when the entries per page are a power of two
    /// (as they are with power-of-two pages and entries), which spares the hot paths a 64-bit
    /// division per map change; the same page either way.
    #[inline]
    fn page_of(&self, entry: u64) -> u64 {
        match self.page_shift {
            Some(shift) => entry >> shift,
            None => entry / self.entries_per_page,
        }
    }

    /// Compute what is derived from the configuration and not saved (after building or
    /// loading the FTL).
    pub fn derive(&mut self) {
        self.page_shift = self.entries_per_page.is_power_of_two().then(|| self.entries_per_page.trailing_zeros());
    }

    /// Sector `lba`'s entry was trimmed: like [`Metadata::changed`], but a run of consecutive
    /// trimmed sectors in one map page takes one record.
    #[inline]
    pub fn trimmed(&mut self, lba: u64) {
        let page = self.page_of(lba);
        self.mark_dirty(page);
        if self.last_trim != Some((page, lba.wrapping_sub(1))) {
            self.append_record();
        }
        self.last_trim = Some((page, lba));
    }

    fn mark_dirty(&mut self, page: u64) {
        // (Chunk ids of metadata chunks may run past the table's pages: they share the last.)
        let page = page.min(self.map_pages - 1);
        let (word, bit) = ((page / 64) as usize, page % 64);
        if self.dirty_bits[word] & (1 << bit) == 0 {
            self.dirty_bits[word] |= 1 << bit;
            self.dirty.push(page as u32);
        }
    }

    fn append_record(&mut self) {
        self.buffered_records += 1;
        self.records_since_checkpoint += 1;
        self.stats.journal_records += 1;
        if !self.writeback.is_empty() {
            self.writeback_credit_fixed += self.writeback_per_record_fixed;
        }
    }

    /// The next metadata sector the firmware writes now, if any: a full journal sector first,
    /// then, once the journal is full, every dirty map page of the checkpoint.
    pub fn next_write(&mut self) -> Option<MetaWrite> {
        if self.buffered_records >= self.records_per_sector {
            self.buffered_records -= self.records_per_sector;
            let sector = self.first_sector + self.map_pages * self.sectors_per_page + self.journal_cursor;
            self.journal_cursor = (self.journal_cursor + 1) % self.journal_sectors;
            self.stats.journal_sectors_written += 1;
            return Some(MetaWrite::Journal { sector });
        }
        if self.records_since_checkpoint >= self.records_per_checkpoint {
            // A checkpoint: every page dirty now is written back over the next half journal
            // (what an earlier one left is written first, now); the journal starts again.
            self.records_since_checkpoint = 0;
            self.stats.checkpoints += 1;
            self.writeback_credit_fixed = (self.writeback.len() as u64) << FRACTION_BITS;
            for &page in &self.dirty {
                self.dirty_bits[(page / 64) as usize] &= !(1 << (page % 64));
            }
            let pages = self.dirty.len() as u64;
            self.writeback.extend(self.dirty.drain(..));
            self.writeback_per_record_fixed = ((pages << FRACTION_BITS) * 2).div_ceil(self.records_per_checkpoint);
        }
        if self.writeback_credit_fixed < 1 << FRACTION_BITS {
            return None;
        }
        let page = self.writeback.pop_front()? as u64;
        self.writeback_credit_fixed -= 1 << FRACTION_BITS;
        if self.writeback.is_empty() {
            self.writeback_credit_fixed = 0;
        }
        self.stats.map_sectors_written += self.sectors_per_page;
        if self.config.read_before_writeback {
            self.stats.map_pages_read += 1;
        }
        Some(MetaWrite::MapPage {
            first: self.first_sector + page * self.sectors_per_page,
            sectors: self.sectors_per_page,
            read: self.config.read_before_writeback,
        })
    }

    /// Forget everything (secure erase: the map is empty, nothing is dirty).
    pub fn reset(&mut self) {
        self.dirty_bits.fill(0);
        self.dirty.clear();
        self.writeback.clear();
        self.writeback_credit_fixed = 0;
        self.buffered_records = 0;
        self.records_since_checkpoint = 0;
        self.journal_cursor = 0;
        self.last_trim = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> MetadataConfig {
        MetadataConfig { map_entry_bytes: 4, map_page_bytes: 8192, journal_record_bytes: 8, journal_bytes: 16384, read_before_writeback: true }
    }

    #[test]
    fn journal_sectors_then_a_checkpoint_of_every_dirty_page() {
        // 2048 entries per map page, 4 map pages of 2 sectors, a journal of 4 sectors (512
        // records each, 2048 records between checkpoints).
        let mut m = Metadata::new(config(), 1000, 8192);
        assert_eq!(m.total_sectors(), 4 * 2 + 4);
        for i in 0..511 {
            m.changed(i * 4); // pages 0 and 1 (entries 0..2044)
        }
        assert_eq!(m.next_write(), None);
        m.changed(5000); // page 2
        assert_eq!(m.next_write(), Some(MetaWrite::Journal { sector: 1000 + 8 }));
        assert_eq!(m.next_write(), None);
        for _ in 0..1536 {
            m.changed(0);
        }
        let writes: Vec<_> = std::iter::from_fn(|| m.next_write()).collect();
        assert_eq!(writes, vec![MetaWrite::Journal { sector: 1009 }, MetaWrite::Journal { sector: 1010 }, MetaWrite::Journal { sector: 1011 }]);
        assert_eq!(m.stats.checkpoints, 1);
        // The two dirty pages are written back over the next half journal (1024 records): one
        // every 512 records.
        for _ in 0..511 {
            m.changed(0);
        }
        assert_eq!(m.next_write(), None);
        m.changed(0);
        assert_eq!(m.next_write(), Some(MetaWrite::Journal { sector: 1008 })); // the ring wraps
        assert_eq!(m.next_write(), Some(MetaWrite::MapPage { first: 1000, sectors: 2, read: true }));
        assert_eq!(m.next_write(), None);
        for _ in 0..512 {
            m.changed(0);
        }
        let writes: Vec<_> = std::iter::from_fn(|| m.next_write()).collect();
        assert_eq!(writes, vec![MetaWrite::Journal { sector: 1009 }, MetaWrite::MapPage { first: 1004, sectors: 2, read: true }]);
    }

    #[test]
    fn a_run_of_trimmed_sectors_in_one_page_is_one_record() {
        let mut m = Metadata::new(config(), 1 << 20, 1 << 16);
        for lba in 0..4096 {
            m.trimmed(lba); // two map pages: two records
        }
        assert_eq!(m.stats.journal_records, 2);
        m.trimmed(10_000);
        m.trimmed(10_002); // not consecutive: a record each
        assert_eq!(m.stats.journal_records, 4);
    }
}
