//! The seeded swarm runner shared by the FTL model tests, and the draws of a case's drive that
//! both make.

use ssdlab_core::SimRng;
use ssdlab_ftl::{Ftl, GcPolicy, GcSchedule, MetadataConfig, NullSink, Translation};
use ssdlab_nand::Geometry;

/// Number of cases (`SSDLAB_SWARM_CASES`, default 2000).
pub fn cases() -> u64 {
    std::env::var("SSDLAB_SWARM_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
}

/// Run `case(seed)` for every seed from `base_seed` on, or only `SSDLAB_SEED` (with a longer
/// case, `replay(seed)`) when it is set. A failing case panics with the seed that reproduces
/// it. Returns each case's result.
pub fn swarm<T>(what: &str, base_seed: u64, case: impl Fn(u64) -> T + std::panic::RefUnwindSafe, replay: impl Fn(u64) -> T) -> Vec<T> {
    if let Some(seed) = std::env::var("SSDLAB_SEED").ok().and_then(|v| v.parse().ok()) {
        return vec![replay(seed)];
    }
    (0..cases())
        .map(|i| {
            let seed = base_seed + i;
            std::panic::catch_unwind(|| case(seed)).unwrap_or_else(|e| {
                let message = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
                panic!("{what} swarm case failed; reproduce with SSDLAB_SEED={seed}: {}", message.unwrap_or_default())
            })
        })
        .collect()
}

/// Draw the GC low-water mark (1 or 2 free blocks per die) and a user capacity anywhere from a
/// tiny drive to the largest the reserve (low-water mark, open blocks, slack) allows.
pub fn draw_low_and_user_sectors(rng: &mut SimRng, geometry: &Geometry) -> (u32, u64) {
    let low = 1 + rng.below(2) as u32;
    let reserve_slots = (low as u64 + 3) * geometry.slots_per_block() as u64 * geometry.dies() as u64;
    let max_user = geometry.total_slots() - reserve_slots;
    let user_sectors = (max_user / 4).max(1) + rng.below(max_user - (max_user / 4).max(1) + 1);
    (low, user_sectors)
}

/// Draw whether the firmware's metadata is written to flash (half the cases), with a journal
/// of 2 to 9 sectors so checkpoints happen often, and the user capacity that leaves (the
/// metadata sectors hold flash like user data; `entries_per_sector` map entries per user
/// sector: 1 for the page FTL, 2 with a chunk table).
pub fn draw_metadata(rng: &mut SimRng, geometry: &Geometry, user_sectors: u64, entries_per_sector: u64) -> (Option<MetadataConfig>, u64) {
    if rng.below(2) == 0 {
        return (None, user_sectors);
    }
    let config = MetadataConfig {
        map_entry_bytes: [4u32, 8, 64][rng.below(3) as usize],
        map_page_bytes: geometry.page_bytes,
        journal_record_bytes: 8,
        journal_bytes: 4096 * (2 + rng.below(8)),
        read_before_writeback: rng.below(2) == 0,
    };
    // Map pages and journal, counted generously (a whole page per entry's page, plus slack).
    let entries = entries_per_sector * user_sectors + 1;
    let per_page = (geometry.page_bytes / config.map_entry_bytes) as u64;
    let sectors = entries.div_ceil(per_page) * (geometry.page_bytes as u64).div_ceil(4096) + config.journal_bytes / 4096 + 2;
    (Some(config), user_sectors.saturating_sub(sectors).max(1))
}

/// Draw a victim policy: greedy, cost-benefit or windowed greedy with a window of 1 to 6.
pub fn draw_gc_policy(rng: &mut SimRng) -> GcPolicy {
    match rng.below(3) {
        0 => GcPolicy::Greedy,
        1 => GcPolicy::CostBenefit,
        _ => GcPolicy::WindowedGreedy { window: 1 + rng.below(6) as u32 },
    }
}

/// Draw a GC schedule the drawn spare area allows: paced, a burst or background GC with a high
/// mark between the low-water mark and the die's spare blocks less 3.
pub fn draw_gc_schedule(rng: &mut SimRng, geometry: &Geometry, low: u32, user_sectors: u64) -> GcSchedule {
    let spare_blocks = (geometry.total_slots() - user_sectors) / geometry.dies() as u64 / geometry.slots_per_block() as u64;
    let kind = rng.below(3);
    if kind == 0 || spare_blocks < low as u64 + 4 {
        return GcSchedule::Paced;
    }
    let high = low + 1 + rng.below(spare_blocks - 3 - low as u64) as u32;
    if kind == 1 {
        GcSchedule::Burst { high_free: high }
    } else {
        GcSchedule::Background { start_free: high, units_per_host_unit: 1 + rng.below(4) as u32 }
    }
}

/// Draw a small page-FTL array: 1 or 2 channels, 1 or 2 dies a package, 1 or 2 planes, 12 to 31
/// blocks a plane, `pages_per_block` (drawn in its place, after the blocks), 4 or 8 KiB pages.
#[allow(dead_code)]
pub fn draw_geometry(rng: &mut SimRng, pages_per_block: impl FnOnce(&mut SimRng) -> u32) -> Geometry {
    Geometry {
        channels: 1 + rng.below(2) as u32,
        packages_per_channel: 1,
        dies_per_package: 1 + rng.below(2) as u32,
        planes_per_die: 1 + rng.below(2) as u32,
        blocks_per_plane: 12 + rng.below(20) as u32,
        pages_per_block: pages_per_block(rng),
        page_bytes: if rng.below(2) == 0 { 4096 } else { 8192 },
        spare_bytes_per_page: 64,
    }
}

/// The end of a page-FTL case: every sector reads its last tag (`reference`, 0 for none) and
/// the structures agree with a recount; then everything is trimmed, `settle` runs (idle
/// folding, for a drive with an SLC cache), GC collects everything it can, and nothing may stay
/// valid or mapped but the firmware's metadata.
#[allow(dead_code)]
pub fn check_then_trim_everything(ftl: &mut Ftl, reference: &[u64], seed: u64, settle: impl FnOnce(&mut Ftl)) {
    let user = ftl.user_sectors();
    for lba in 0..user {
        assert_eq!(ftl.read_tag(lba), reference[lba as usize], "seed {seed}: final read of sector {lba}");
    }
    ftl.check_invariants().unwrap_or_else(|e| panic!("seed {seed} at end: {e}"));
    for lba in 0..user {
        ftl.trim(lba).unwrap();
    }
    settle(ftl);
    let mut sink = NullSink;
    for die in 0..ftl.config().geometry.dies() {
        let mut rounds = 0;
        while ftl.collect_one(die, &mut sink) {
            rounds += 1;
            assert!(rounds < 100_000, "seed {seed}: GC does not terminate");
        }
    }
    // Only the firmware's metadata stays (map pages and journal).
    assert_eq!(ftl.live_data_sectors(), 0, "seed {seed}: user data remains after trimming everything");
    assert_eq!(ftl.valid_slots(), ftl.metadata_sectors_mapped(), "seed {seed}: valid slots remain after trimming everything");
    for lba in 0..user {
        assert!(ftl.lookup(lba).is_none(), "seed {seed}: sector {lba} still mapped after TRIM");
    }
    ftl.check_invariants().unwrap_or_else(|e| panic!("seed {seed} after full trim: {e}"));
}
