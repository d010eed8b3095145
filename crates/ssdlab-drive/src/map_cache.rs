//! The mapping-table cache of a controller without DRAM (SandForce, most budget controllers).
//!
//! The logical-to-physical map lives in flash as *map pages* (one NAND page of entries each);
//! the controller keeps the most recently used map pages in on-chip SRAM. A read whose sectors'
//! map page is not cached must first read that map page from flash (a sense and a whole-page
//! transfer on the die holding it) before it knows where its data is. Writes and TRIMs record
//! their new entries in the cached page (the firmware journals map updates and writes map pages
//! back in the background; that write-back is not modeled). A map page that has never held an
//! entry since the last secure erase does not exist in flash, so missing it costs nothing.

use lru::LruCache;
use std::num::NonZeroUsize;

/// LRU cache of map pages, with the set of map pages that exist in flash.
pub struct MapCache {
    cached: LruCache<u64, ()>,
    sectors_per_map_page: u64,
    in_flash: Vec<bool>,
}

impl MapCache {
    /// A cache of `cache_bytes` of map pages of `page_bytes` holding entries of `entry_bytes`
    /// for `user_sectors` 4 KiB sectors; `None` when `cache_bytes` is 0 (the whole map is in DRAM).
    pub fn new(cache_bytes: u64, entry_bytes: u64, page_bytes: u64, user_sectors: u64) -> Option<Self> {
        let pages = NonZeroUsize::new((cache_bytes / page_bytes) as usize)?;
        let sectors_per_map_page = (page_bytes / entry_bytes).max(1);
        let map_pages = user_sectors.div_ceil(sectors_per_map_page) as usize;
        Some(Self { cached: LruCache::new(pages), sectors_per_map_page, in_flash: vec![false; map_pages] })
    }

    /// Look up the map pages covering sectors `first..=last` (marking them most recently used)
    /// and append to `out` those that must be read from flash first.
    pub fn lookup(&mut self, first: u64, last: u64, out: &mut Vec<u64>) {
        for page in first / self.sectors_per_map_page..=last / self.sectors_per_map_page {
            if self.cached.get(&page).is_some() {
                continue;
            }
            self.cached.put(page, ());
            if self.in_flash[page as usize] {
                out.push(page);
            }
        }
    }

    /// Record new entries for sectors `first..=last` (a write or TRIM): their map pages are now
    /// cached (and will exist in flash once written back).
    pub fn update(&mut self, first: u64, last: u64) {
        for page in first / self.sectors_per_map_page..=last / self.sectors_per_map_page {
            self.cached.put(page, ());
            self.in_flash[page as usize] = true;
        }
    }

    /// Which map pages exist in flash (saved with the drive's state).
    pub fn pages_in_flash(&self) -> &[bool] {
        &self.in_flash
    }

    /// Restore which map pages exist in flash (a saved drive; the cache itself starts cold, as
    /// SRAM does at power-on). A saved set of another length is ignored.
    pub fn set_pages_in_flash(&mut self, pages: Vec<bool>) {
        if pages.len() == self.in_flash.len() {
            self.in_flash = pages;
        }
    }

    /// Forget everything (secure erase: the map is empty and no map page exists in flash).
    pub fn clear(&mut self) {
        self.cached.clear();
        self.in_flash.fill(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misses_only_pages_in_flash_and_not_cached_and_evicts_least_recent() {
        // 2 cached pages of 1024 entries.
        let mut cache = MapCache::new(8192, 4, 4096, 10_000).unwrap();
        let mut out = Vec::new();
        cache.lookup(0, 5000, &mut out);
        assert!(out.is_empty(), "nothing written yet: no map page exists in flash");
        cache.update(0, 4095); // pages 0..=3; 2 and 3 stay cached
        cache.lookup(0, 0, &mut out);
        assert_eq!(out, vec![0]);
        out.clear();
        cache.lookup(10, 20, &mut out); // page 0 again: cached now
        assert!(out.is_empty());
        cache.lookup(3000, 3000, &mut out); // page 2 was evicted by page 0
        assert_eq!(out, vec![2]);
        cache.clear();
        out.clear();
        cache.lookup(0, 4095, &mut out);
        assert!(out.is_empty());
        assert!(MapCache::new(0, 4, 4096, 10).is_none());
    }
}
