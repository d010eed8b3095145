//! The mapping-table cache of a controller without DRAM (SandForce, most budget controllers).
//!
//! The logical-to-physical map lives in flash as *map pages* (one NAND page of entries each);
//! the controller keeps the most recently used map pages in on-chip SRAM. A read whose sectors'
//! map page is not cached must first read that map page from flash (a sense and a whole-page
//! transfer on the die holding it) before it knows where its data is. Writes and TRIMs record
//! their new entries in the cached page (the firmware journals map updates and writes map pages
//! back in the background; that write-back is not modeled). A map page that has never held an
//! entry since the last secure erase does not exist in flash, so missing it costs nothing.

use std::num::NonZeroUsize;

/// No map page (end of the recency list).
const NONE: u32 = u32::MAX;

/// LRU cache of map pages, with the set of map pages that exist in flash.
///
/// The recency order is a doubly linked list threaded through arrays indexed by map page (a
/// drive has at most a few hundred thousand), so touching, inserting and evicting are O(1)
/// without hashing; the same order as a hash-map LRU gives.
pub struct MapCache {
    /// Most pages held.
    capacity: usize,
    /// Pages held.
    len: usize,
    /// Most and least recently used page held (`NONE` when empty).
    newest: u32,
    oldest: u32,
    /// Per map page: the next newer and next older page held, and whether it is held.
    newer: Vec<u32>,
    older: Vec<u32>,
    held: Vec<bool>,
    sectors_per_map_page: u64,
    in_flash: Vec<bool>,
}

impl MapCache {
    /// A cache of `cache_bytes` of map pages of `page_bytes` holding entries of `entry_bytes`
    /// for `user_sectors` 4 KiB sectors; `None` when `cache_bytes` is 0 (the whole map is in DRAM).
    pub fn new(cache_bytes: u64, entry_bytes: u64, page_bytes: u64, user_sectors: u64) -> Option<Self> {
        let capacity = NonZeroUsize::new((cache_bytes / page_bytes) as usize)?.get();
        let sectors_per_map_page = (page_bytes / entry_bytes).max(1);
        let map_pages = user_sectors.div_ceil(sectors_per_map_page) as usize;
        assert!(map_pages < NONE as usize, "too many map pages");
        Some(Self {
            capacity,
            len: 0,
            newest: NONE,
            oldest: NONE,
            newer: vec![NONE; map_pages],
            older: vec![NONE; map_pages],
            held: vec![false; map_pages],
            sectors_per_map_page,
            in_flash: vec![false; map_pages],
        })
    }

    /// Take `page` out of the recency list (it is held).
    #[inline]
    fn unlink(&mut self, page: u32) {
        let (newer, older) = (self.newer[page as usize], self.older[page as usize]);
        match newer {
            NONE => self.newest = older,
            n => self.older[n as usize] = older,
        }
        match older {
            NONE => self.oldest = newer,
            o => self.newer[o as usize] = newer,
        }
    }

    /// Put `page` at the newest end of the recency list.
    #[inline]
    fn push_newest(&mut self, page: u32) {
        self.newer[page as usize] = NONE;
        self.older[page as usize] = self.newest;
        match self.newest {
            NONE => self.oldest = page,
            n => self.newer[n as usize] = page,
        }
        self.newest = page;
    }

    /// Whether `page` is held; if so it becomes the most recently used.
    #[inline]
    fn touch(&mut self, page: u32) -> bool {
        if !self.held[page as usize] {
            return false;
        }
        if self.newest != page {
            self.unlink(page);
            self.push_newest(page);
        }
        true
    }

    /// Hold `page` as the most recently used, evicting the least recently used when full.
    #[inline]
    fn put(&mut self, page: u32) {
        if self.touch(page) {
            return;
        }
        if self.len == self.capacity {
            let evicted = self.oldest;
            self.unlink(evicted);
            self.held[evicted as usize] = false;
            self.len -= 1;
        }
        self.held[page as usize] = true;
        self.push_newest(page);
        self.len += 1;
    }

    /// Look up the map pages covering sectors `first..=last` (marking them most recently used)
    /// and append to `out` those that must be read from flash first.
    pub fn lookup(&mut self, first: u64, last: u64, out: &mut Vec<u64>) {
        for page in first / self.sectors_per_map_page..=last / self.sectors_per_map_page {
            if self.touch(page as u32) {
                continue;
            }
            self.put(page as u32);
            if self.in_flash[page as usize] {
                out.push(page);
            }
        }
    }

    /// Record new entries for sectors `first..=last` (a write or TRIM): their map pages are now
    /// cached (and will exist in flash once written back).
    pub fn update(&mut self, first: u64, last: u64) {
        for page in first / self.sectors_per_map_page..=last / self.sectors_per_map_page {
            self.put(page as u32);
            self.in_flash[page as usize] = true;
        }
    }

    /// Forget everything (secure erase: the map is empty and no map page exists in flash).
    pub fn clear(&mut self) {
        self.len = 0;
        self.newest = NONE;
        self.oldest = NONE;
        self.held.fill(false);
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

    #[test]
    fn keeps_the_order_a_hash_map_lru_keeps() {
        for seed in 0..20u64 {
            let mut rng = ssdlab_core::SimRng::new(seed);
            let capacity = 1 + rng.below(40) as usize;
            let mut cache = MapCache::new(capacity as u64 * 4096, 4, 4096, 200 * 1024).unwrap();
            let mut reference: lru::LruCache<u64, ()> = lru::LruCache::new(std::num::NonZeroUsize::new(capacity).unwrap());
            let mut in_flash = [false; 200];
            for step in 0..5000 {
                let first = rng.below(200 * 1024);
                let last = (first + rng.below(3 * 1024)).min(200 * 1024 - 1);
                if rng.below(2) == 0 {
                    cache.update(first, last);
                    for page in first / 1024..=last / 1024 {
                        reference.put(page, ());
                        in_flash[page as usize] = true;
                    }
                } else {
                    let mut out = Vec::new();
                    cache.lookup(first, last, &mut out);
                    let mut expected = Vec::new();
                    for page in first / 1024..=last / 1024 {
                        if reference.get(&page).is_none() {
                            reference.put(page, ());
                            if in_flash[page as usize] {
                                expected.push(page);
                            }
                        }
                    }
                    assert_eq!(out, expected, "seed {seed} step {step}");
                }
            }
        }
    }
}
