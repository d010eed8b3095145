//! A global allocator that keeps the memory of freed large tables for the next drive.
//!
//! A drive's maps are gigabytes (a 240 GB data-reduction drive: about 2.5 GB of chunk table,
//! fingerprint index and map). Fresh memory from the OS is zeroed by the kernel page by page as
//! it is first touched, and on a virtual machine each new page may also fault in the host: a
//! review builds a few dozen drives one after another in the same worker processes, and this
//! zeroing took about 18% of each fast-forwarded fill's CPU (`BENCHMARKS.md`). So a freed block
//! of at least [`RECYCLE_MIN_BYTES`] is kept, up to a limit ([`RecyclingAllocator::set_limit`],
//! [`DEFAULT_LIMIT_BYTES`]), and given to the next request it fits (at most an eighth larger
//! than asked), already mapped. Everything else goes to the system allocator unchanged.
//!
//! Only blocks asked for at that size are kept, and each is advised to use huge pages before
//! it is first touched (as [`crate::memory::huge_vec`] does for its tables): a block that grew
//! to that size by `realloc` may be mapped with small pages, and a table given such a block
//! would miss the TLB on most accesses.
//!
//! What a program reads never depends on this: memory from `alloc` is uninitialised either way,
//! and `alloc_zeroed` zeroes a recycled block. The cost is memory: a process keeps up to the
//! limit of freed tables resident until a table takes them again or
//! [`RecyclingAllocator::release`] gives them back. A large request that no kept block fits
//! first gives back kept blocks (the oldest first) of at least its size, so drives of changing
//! sizes one after another (a sweep over capacities) do not pile kept blocks up: the process
//! holds no more than it would without keeping any, beyond the block it asked for.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Smallest block kept when freed (smaller ones go back to the system allocator at once).
pub const RECYCLE_MIN_BYTES: usize = 32 << 20;
/// Most bytes of freed blocks kept by default.
pub const DEFAULT_LIMIT_BYTES: usize = 4 << 30;
/// Most blocks kept at once.
const SLOTS: usize = 32;
/// Most live blocks asked for at [`RECYCLE_MIN_BYTES`] or more that are remembered (as blocks
/// that may be kept when freed); more live at once are not kept.
const BORN_LARGE: usize = 128;

/// Bytes kept by every recycling allocator of the process ([`kept_bytes_in_process`]).
static KEPT_IN_PROCESS: AtomicUsize = AtomicUsize::new(0);

/// Bytes of freed blocks that the process's recycling allocators keep now: memory the process
/// holds but the next large tables take again (so it counts as room for a new drive,
/// [`crate::memory_room`]).
pub fn kept_bytes_in_process() -> usize {
    KEPT_IN_PROCESS.load(Ordering::Relaxed)
}

/// A freed block kept for reuse.
#[derive(Clone, Copy)]
struct Kept {
    ptr: usize,
    bytes: usize,
    /// When it was freed (the oldest goes first when the limit is reached).
    seq: u64,
}

/// The kept blocks (a fixed array: the allocator must not allocate to keep its books).
struct Shelf {
    /// Live blocks asked for large (0: an empty place).
    born_large: [usize; BORN_LARGE],
    blocks: [Kept; SLOTS],
    len: usize,
    bytes: usize,
    limit: usize,
    seq: u64,
}

/// The system allocator, with freed blocks of [`RECYCLE_MIN_BYTES`] or more kept for reuse (see
/// the module's docs). Install it with `#[global_allocator]` in a program that builds many large
/// drives one after another.
pub struct RecyclingAllocator {
    shelf: Mutex<Shelf>,
}

impl RecyclingAllocator {
    /// An allocator that keeps up to [`DEFAULT_LIMIT_BYTES`] of freed blocks.
    pub const fn new() -> Self {
        Self {
            shelf: Mutex::new(Shelf {
                born_large: [0; BORN_LARGE],
                blocks: [Kept { ptr: 0, bytes: 0, seq: 0 }; SLOTS],
                len: 0,
                bytes: 0,
                limit: DEFAULT_LIMIT_BYTES,
                seq: 0,
            }),
        }
    }

    fn shelf(&self) -> std::sync::MutexGuard<'_, Shelf> {
        self.shelf.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Keep at most `bytes` of freed blocks from now on (0: keep none); blocks over the new
    /// limit are given back to the system at once.
    pub fn set_limit(&self, bytes: usize) {
        let freed = {
            let mut shelf = self.shelf();
            shelf.limit = bytes;
            shelf.take_over_limit(0)
        };
        free_all(&freed);
    }

    /// Give every kept block back to the system; returns the bytes given back.
    pub fn release(&self) -> usize {
        let freed = {
            let mut shelf = self.shelf();
            let all = shelf.bytes;
            shelf.take_oldest(all)
        };
        free_all(&freed)
    }

    /// Bytes of freed blocks kept now.
    pub fn kept_bytes(&self) -> usize {
        self.shelf().bytes
    }

    /// A kept block for `layout`, if one fits.
    fn take(&self, layout: Layout) -> Option<*mut u8> {
        if layout.size() < RECYCLE_MIN_BYTES {
            return None;
        }
        let mut shelf = self.shelf();
        let ptr = shelf.take(layout)?;
        shelf.remember(ptr);
        Some(ptr)
    }

    /// A new block from the system for a large `layout` no kept block fits (zeroed when asked):
    /// kept blocks (the oldest first) of at least its size are given back first, as it is
    /// about to take that much from the system; the block is advised to use huge pages before
    /// it is touched, and remembered as one that may be kept.
    unsafe fn fresh_large(&self, layout: Layout, zeroed: bool) -> *mut u8 {
        let freed = self.shelf().take_oldest(layout.size());
        free_all(&freed);
        let ptr = if zeroed { System.alloc_zeroed(layout) } else { System.alloc(layout) };
        if !ptr.is_null() {
            crate::memory::advise_huge_pages(ptr, layout.size());
            self.shelf().remember(ptr);
        }
        ptr
    }
}

impl Default for RecyclingAllocator {
    fn default() -> Self {
        Self::new()
    }
}

impl Shelf {
    /// Remember a live block asked for large (not when the table of them is full).
    fn remember(&mut self, ptr: *mut u8) {
        if let Some(place) = self.born_large.iter_mut().find(|p| **p == 0) {
            *place = ptr as usize;
        }
    }

    /// Forget a live block; whether it was remembered as asked for large.
    fn forget(&mut self, ptr: *mut u8) -> bool {
        match self.born_large.iter_mut().find(|p| **p == ptr as usize) {
            Some(place) => {
                *place = 0;
                true
            }
            None => false,
        }
    }

    /// Remove and return the smallest kept block that holds `layout` with at most an eighth
    /// to spare, aligned as it asks (ties: the one freed last).
    fn take(&mut self, layout: Layout) -> Option<*mut u8> {
        let size = layout.size();
        let most = size.saturating_add(size / 8);
        let best = (0..self.len)
            .filter(|&i| {
                let b = self.blocks[i];
                b.bytes >= size && b.bytes <= most && b.ptr.is_multiple_of(layout.align())
            })
            .min_by_key(|&i| (self.blocks[i].bytes, u64::MAX - self.blocks[i].seq))?;
        let block = self.blocks[best];
        self.blocks[best] = self.blocks[self.len - 1];
        self.len -= 1;
        self.bytes -= block.bytes;
        KEPT_IN_PROCESS.fetch_sub(block.bytes, Ordering::Relaxed);
        Some(block.ptr as *mut u8)
    }

    /// Keep a freed block; returns the blocks to give back to the system (the oldest, while
    /// over the limit or out of slots; the block itself when it alone is over the limit).
    fn keep(&mut self, ptr: *mut u8, bytes: usize) -> [Kept; SLOTS + 1] {
        let mut out = [Kept { ptr: 0, bytes: 0, seq: 0 }; SLOTS + 1];
        if bytes > self.limit {
            out[0] = Kept { ptr: ptr as usize, bytes, seq: 0 };
            return out;
        }
        let evicted = self.take_over_limit(bytes);
        out[..SLOTS].copy_from_slice(&evicted);
        if self.len == SLOTS {
            out[SLOTS] = self.remove_oldest();
        }
        self.seq += 1;
        self.blocks[self.len] = Kept { ptr: ptr as usize, bytes, seq: self.seq };
        self.len += 1;
        self.bytes += bytes;
        KEPT_IN_PROCESS.fetch_add(bytes, Ordering::Relaxed);
        out
    }

    /// Remove the oldest kept blocks until at least `bytes` are removed or none is left.
    fn take_oldest(&mut self, bytes: usize) -> [Kept; SLOTS] {
        let mut out = [Kept { ptr: 0, bytes: 0, seq: 0 }; SLOTS];
        let (mut n, mut removed) = (0, 0);
        while self.len > 0 && removed < bytes {
            out[n] = self.remove_oldest();
            removed += out[n].bytes;
            n += 1;
        }
        out
    }

    /// Remove the oldest kept blocks until `room` more bytes fit under the limit.
    fn take_over_limit(&mut self, room: usize) -> [Kept; SLOTS] {
        self.take_oldest((self.bytes + room).saturating_sub(self.limit))
    }

    fn remove_oldest(&mut self) -> Kept {
        let oldest = (0..self.len).min_by_key(|&i| self.blocks[i].seq).expect("a kept block");
        let block = self.blocks[oldest];
        self.blocks[oldest] = self.blocks[self.len - 1];
        self.len -= 1;
        self.bytes -= block.bytes;
        KEPT_IN_PROCESS.fetch_sub(block.bytes, Ordering::Relaxed);
        block
    }
}

/// Give `blocks` (those with a pointer) back to the system; returns their bytes.
fn free_all(blocks: &[Kept]) -> usize {
    let mut bytes = 0;
    for b in blocks.iter().filter(|b| b.ptr != 0) {
        // SAFETY: every kept block came from `System` (alloc, alloc_zeroed or realloc) and is
        // owned by nobody else; glibc's `free` does not use the layout's size.
        unsafe { System.dealloc(b.ptr as *mut u8, Layout::from_size_align_unchecked(b.bytes, 1)) };
        bytes += b.bytes;
    }
    bytes
}

// SAFETY: every block handed out is either fresh from `System` or a kept block no one else
// holds (removed from the shelf under its lock), at least as large as asked and aligned as
// asked; `alloc_zeroed` zeroes a kept block before handing it out.
unsafe impl GlobalAlloc for RecyclingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() < RECYCLE_MIN_BYTES {
            return System.alloc(layout);
        }
        match self.take(layout) {
            Some(ptr) => ptr,
            None => self.fresh_large(layout, false),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() < RECYCLE_MIN_BYTES {
            return System.alloc_zeroed(layout);
        }
        match self.take(layout) {
            Some(ptr) => {
                std::ptr::write_bytes(ptr, 0, layout.size());
                ptr
            }
            None => self.fresh_large(layout, true),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() < RECYCLE_MIN_BYTES {
            return System.dealloc(ptr, layout);
        }
        let freed = {
            let mut shelf = self.shelf();
            if !shelf.forget(ptr) {
                drop(shelf);
                return System.dealloc(ptr, layout);
            }
            shelf.keep(ptr, layout.size())
        };
        free_all(&freed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Every block, kept ones included, came from `System`: it can grow or shrink in place.
        // A block asked for large stays remembered (at its new place) while it stays large.
        let was_large = layout.size() >= RECYCLE_MIN_BYTES && self.shelf().forget(ptr);
        let new = System.realloc(ptr, layout, new_size);
        if new.is_null() {
            if was_large {
                self.shelf().remember(ptr);
            }
        } else if was_large && new_size >= RECYCLE_MIN_BYTES {
            self.shelf().remember(new);
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG: usize = 2 * RECYCLE_MIN_BYTES;

    fn layout(bytes: usize) -> Layout {
        Layout::from_size_align(bytes, 16).unwrap()
    }

    #[test]
    fn a_freed_large_block_is_given_to_the_next_request_it_fits() {
        let a = RecyclingAllocator::new();
        unsafe {
            let p = a.alloc(layout(BIG));
            p.write_bytes(0xAB, BIG);
            a.dealloc(p, layout(BIG));
            assert_eq!(a.kept_bytes(), BIG);
            // A request it holds takes it, zeroed when asked.
            let q = a.alloc_zeroed(layout(BIG - 4096));
            assert_eq!(q, p);
            assert!(std::slice::from_raw_parts(q, BIG - 4096).iter().all(|&b| b == 0));
            assert_eq!(a.kept_bytes(), 0);
            a.dealloc(q, layout(BIG - 4096));
            assert_eq!(a.kept_bytes(), BIG - 4096);
            // A request more than an eighth smaller does not take it; it gives it back to the
            // system and takes a new block.
            let small = a.alloc(layout(BIG / 2 + BIG / 4));
            assert!(!small.is_null());
            assert_eq!(a.kept_bytes(), 0);
            a.dealloc(small, layout(BIG / 2 + BIG / 4));
            a.release();
            assert_eq!(a.kept_bytes(), 0);
        }
    }

    #[test]
    fn the_limit_gives_the_oldest_blocks_back() {
        let a = RecyclingAllocator::new();
        a.set_limit(2 * BIG + BIG / 2);
        unsafe {
            let blocks: Vec<*mut u8> = (0..3).map(|_| a.alloc(layout(BIG))).collect();
            for &p in &blocks {
                p.write_bytes(1, 4096);
                a.dealloc(p, layout(BIG));
            }
            assert_eq!(a.kept_bytes(), 2 * BIG, "the first freed went back");
            let q = a.alloc(layout(BIG));
            assert_eq!(q, blocks[2], "the last freed of the same size is taken first");
            a.dealloc(q, layout(BIG));
            // A request no kept block fits gives them back first; a block larger than the limit
            // is never kept.
            let huge = a.alloc(layout(3 * BIG));
            assert_eq!(a.kept_bytes(), 0);
            a.dealloc(huge, layout(3 * BIG));
            assert_eq!(a.kept_bytes(), 0);
            let p = a.alloc(layout(BIG));
            a.dealloc(p, layout(BIG));
            assert_eq!(a.kept_bytes(), BIG);
            a.set_limit(0);
            assert_eq!(a.kept_bytes(), 0);
        }
    }

    #[test]
    fn a_request_no_kept_block_fits_gives_back_kept_blocks_of_its_size_first() {
        let a = RecyclingAllocator::new();
        unsafe {
            // Three blocks kept, of one size, freed in this order.
            let blocks: Vec<*mut u8> = (0..3).map(|_| a.alloc(layout(BIG))).collect();
            for &p in &blocks {
                a.dealloc(p, layout(BIG));
            }
            assert_eq!(a.kept_bytes(), 3 * BIG);
            // A request twice as large fits none: the two oldest go back to the system first.
            let large = a.alloc(layout(2 * BIG));
            assert_eq!(a.kept_bytes(), BIG);
            // The one left is the last freed, and a request of its size still takes it.
            assert_eq!(a.alloc(layout(BIG)), blocks[2]);
            assert_eq!(a.kept_bytes(), 0);
            a.dealloc(blocks[2], layout(BIG));
            a.dealloc(large, layout(2 * BIG));
            a.release();
        }
    }

    #[test]
    fn a_block_that_grew_large_is_not_kept_and_one_asked_for_large_is_after_growing() {
        let a = RecyclingAllocator::new();
        unsafe {
            let small = a.alloc(layout(4096));
            let grown = a.realloc(small, layout(4096), BIG);
            a.dealloc(grown, layout(BIG));
            assert_eq!(a.kept_bytes(), 0, "a block grown to a large size may have small pages");
            let large = a.alloc(layout(BIG));
            let larger = a.realloc(large, layout(BIG), 2 * BIG);
            a.dealloc(larger, layout(2 * BIG));
            assert_eq!(a.kept_bytes(), 2 * BIG);
            a.release();
        }
    }

    #[test]
    fn alignment_is_kept_and_small_blocks_pass_through() {
        let a = RecyclingAllocator::new();
        unsafe {
            let aligned = Layout::from_size_align(BIG, 1 << 21).unwrap();
            let p = a.alloc(aligned);
            assert_eq!(p as usize % (1 << 21), 0);
            a.dealloc(p, aligned);
            let q = a.alloc(aligned);
            assert_eq!(q as usize % (1 << 21), 0);
            a.dealloc(q, aligned);
            let small = a.alloc(layout(4096));
            a.dealloc(small, layout(4096));
            assert!(a.kept_bytes() <= BIG);
            a.release();
        }
    }
}
