//! Benchmark: the memory floor of a page-mapped FTL's random writes. It does only the random
//! table accesses a uniform 4 KiB random write costs the page FTL (no mapping logic, no GC
//! decisions, no timing), each started by a prefetch a fixed distance ahead so that as many
//! misses are in flight as the core allows, over tables as large as the FTL's:
//!
//! * per host write: a read-modify-write of one random entry of the sector map (`l2p`, 4 bytes
//!   a user sector), one of the slot-validity bit set (1 bit a raw slot) and one of the block
//!   table (8 bytes a block);
//! * per GC move (WA - 1 of them per host write): a write of one random `l2p` entry (the moved
//!   sector's new address; the reverse map is read in order and costs no miss).
//!
//! The rate it prints is an upper bound on the page FTL's host writes per wall second at that
//! size and write amplification on this machine: the FTL does these accesses and more. It is
//! how BENCHMARKS.md tells what the machine's memory allows from what the code wastes.
//!
//! `cargo run --release -p ssdlab-core --example memory_floor -- RAW_GIB WA [HOST_WRITES] [DISTANCE]`
//! (user sectors in the proportion of the conventional drive's 240 GB to its 256 GiB raw; the
//! environment variable `HINT=t0|t1|t2` picks the prefetch's target cache level, default t0.)

use ssdlab_core::memory::huge_vec;
use ssdlab_core::SimRng;
use std::time::Instant;

fn arg<T: std::str::FromStr>(index: usize, name: &str, default: T) -> T {
    match std::env::args().nth(index) {
        None => default,
        Some(text) => text.parse().unwrap_or_else(|_| {
            eprintln!("memory_floor: {name} must be a number (got {text:?})");
            std::process::exit(2)
        }),
    }
}

/// The prefetch hints of x86-64 (`_MM_HINT_T0`, `_T1`, `_T2`), as numbers so that the example
/// builds on other targets too (where a prefetch does nothing).
const HINT_T0: i32 = 3;
const HINT_T1: i32 = 2;
const HINT_T2: i32 = 1;

/// Start loading the line holding `value` into the cache level `HINT` names (`_MM_HINT_T0`: the
/// first level; `_MM_HINT_T1`: the second).
#[inline(always)]
fn prefetch<const HINT: i32, T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, and the pointer comes from a reference.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<HINT>(value as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

fn main() {
    let raw_gib: u64 = arg(1, "RAW_GIB", 256);
    let wa: f64 = arg(2, "WA", 4.3);
    let host_writes: u64 = arg(3, "HOST_WRITES", 20_000_000);
    let distance: usize = arg(4, "DISTANCE", 32);
    let hint = std::env::var("HINT").unwrap_or_else(|_| "t0".into());
    let built = Instant::now();
    let mut floor = Floor::new(raw_gib, wa, distance);
    let build_s = built.elapsed().as_secs_f64();
    let started = Instant::now();
    let (gc_moves, sum) = match hint.as_str() {
        "t0" => floor.run::<HINT_T0>(host_writes),
        "t1" => floor.run::<HINT_T1>(host_writes),
        "t2" => floor.run::<HINT_T2>(host_writes),
        other => {
            eprintln!("memory_floor: HINT must be t0, t1 or t2 (got {other:?})");
            std::process::exit(2)
        }
    };
    let wall = started.elapsed().as_secs_f64();
    let lines = host_writes as f64 * 3.0 + gc_moves as f64;
    println!(
        "memory floor at {raw_gib} GiB raw ({} user sectors), WA {wa}: {host_writes} host writes + {gc_moves} GC moves in {wall:.2} s = {:.2} million host writes per wall second, {:.1} million random lines per wall second (distance {distance}, prefetch hint {hint}; tables built in {build_s:.1} s; checksum {sum})",
        floor.user,
        host_writes as f64 / wall / 1e6,
        lines / wall / 1e6,
    );
}

/// The tables of a page FTL of one size, and the accesses still to come.
struct Floor {
    l2p: Vec<u32>,
    bits: Vec<u64>,
    counts: Vec<u64>,
    user: u64,
    raw_slots: u64,
    blocks: u64,
    /// GC moves per host write, in 1/65536.
    moves_fixed: u64,
    distance: usize,
    rng: SimRng,
    /// The (sector, slot, block) of the next host writes, and the sectors of the next GC moves,
    /// drawn ahead so they can be prefetched (rings of a power of two).
    ahead: Vec<(u64, u64, u64)>,
    gc_ahead: Vec<u64>,
}

impl Floor {
    fn new(raw_gib: u64, wa: f64, distance: usize) -> Self {
        let raw_slots = raw_gib << 18;
        let user = (raw_slots as u128 * 240_000_000_000 / (256u128 << 30)) as u64;
        let blocks = raw_slots / 1024;
        let ring = (distance + 1).next_power_of_two();
        let mut floor = Self {
            l2p: huge_vec(1u32, user as usize, user as usize),
            bits: huge_vec(1u64, raw_slots.div_ceil(64) as usize, raw_slots.div_ceil(64) as usize),
            counts: huge_vec(1u64, blocks as usize, blocks as usize),
            user,
            raw_slots,
            blocks,
            moves_fixed: ((wa - 1.0).max(0.0) * 65536.0) as u64,
            distance,
            rng: SimRng::new(1),
            ahead: Vec::with_capacity(ring),
            gc_ahead: Vec::with_capacity(ring),
        };
        for _ in 0..ring {
            let next = floor.draw();
            floor.ahead.push(next);
        }
        for _ in 0..ring {
            let next = floor.rng.below(user);
            floor.gc_ahead.push(next);
        }
        floor
    }

    fn draw(&mut self) -> (u64, u64, u64) {
        (self.rng.below(self.user), self.rng.below(self.raw_slots), self.rng.below(self.blocks))
    }

    /// The accesses of `host_writes` host writes and their GC moves; returns the GC moves done
    /// and a checksum of the entries read (so that none of the work can be optimised away).
    fn run<const HINT: i32>(&mut self, host_writes: u64) -> (usize, u64) {
        let mask = self.ahead.len() - 1;
        let distance = self.distance;
        let (mut credit, mut gc_next, mut sum) = (0u64, 0usize, 0u64);
        for i in 0..host_writes as usize {
            let (lba, slot, block) = self.ahead[i & mask];
            let far = self.ahead[(i + distance) & mask];
            prefetch::<HINT, _>(&self.l2p[far.0 as usize]);
            prefetch::<HINT, _>(&self.bits[(far.1 / 64) as usize]);
            prefetch::<HINT, _>(&self.counts[far.2 as usize]);
            sum = sum.wrapping_add(self.l2p[lba as usize] as u64);
            self.l2p[lba as usize] = i as u32;
            self.bits[(slot / 64) as usize] ^= 1 << (slot % 64);
            self.counts[block as usize] += 1;
            self.ahead[i & mask] = self.draw();
            credit += self.moves_fixed;
            while credit >= 65536 {
                credit -= 65536;
                let moved = self.gc_ahead[gc_next & mask];
                prefetch::<HINT, _>(&self.l2p[self.gc_ahead[(gc_next + distance) & mask] as usize]);
                self.l2p[moved as usize] = i as u32;
                self.gc_ahead[gc_next & mask] = self.rng.below(self.user);
                gc_next += 1;
            }
        }
        (gc_next, sum)
    }
}
