//! A page FTL saved and loaded mid-way carries on exactly as the one that never stopped: the
//! structures not saved (the slots' validity bits, the GC keys' group minima) are rebuilt from
//! what is saved, and the same writes afterwards give the same state byte for byte.

use ssdlab_core::SimRng;
use ssdlab_ftl::{Ftl, FtlConfig, GcPolicy, GcSchedule, NullSink, Translation};
use ssdlab_nand::Geometry;

fn config(policy: GcPolicy) -> FtlConfig {
    let geometry = Geometry {
        channels: 2,
        packages_per_channel: 1,
        dies_per_package: 2,
        planes_per_die: 2,
        blocks_per_plane: 48,
        pages_per_block: 8,
        page_bytes: 8192,
        spare_bytes_per_page: 64,
    };
    let user_sectors = geometry.total_slots() * 3 / 4;
    FtlConfig {
        geometry,
        user_sectors,
        gc_policy: policy,
        gc_low_free_blocks_per_die: 2,
        gc_schedule: GcSchedule::Paced,
        gc_idle_target_free_blocks_per_die: 4,
        track_tags: true,
        store_data: false,
        native_pages_per_program: 1,
        slc: None,
        metadata: None,
    }
}

/// Random overwrites (and a few TRIMs) from `rng`.
fn churn(ftl: &mut Ftl, rng: &mut SimRng, steps: u64) {
    let user = ftl.user_sectors();
    for step in 0..steps {
        let lba = rng.below(user);
        if rng.below(20) == 0 {
            ftl.trim(lba).unwrap();
        } else {
            ftl.write(lba, step + 1, &mut NullSink).unwrap();
        }
    }
}

fn saved(ftl: &Ftl) -> Vec<u8> {
    let mut out = Vec::new();
    Translation::save(ftl, &mut out).unwrap();
    out
}

#[test]
fn a_loaded_ftl_carries_on_as_the_one_saved() {
    for (seed, policy) in [(1, GcPolicy::Greedy), (2, GcPolicy::Greedy), (3, GcPolicy::WindowedGreedy { window: 8 }), (4, GcPolicy::CostBenefit)] {
        let mut ftl = Ftl::new(config(policy), "test").unwrap();
        let mut rng = SimRng::new(seed);
        let user = ftl.user_sectors();
        churn(&mut ftl, &mut rng, 3 * user);
        assert!(ftl.stats().gc_blocks_reclaimed > 0, "seed {seed}: the churn never reached GC");
        let mut loaded = Ftl::load(config(policy), &mut saved(&ftl).as_slice()).unwrap();
        loaded.check_invariants().unwrap_or_else(|e| panic!("seed {seed}: loaded FTL inconsistent: {e}"));
        let mut twin = rng.clone();
        churn(&mut ftl, &mut rng, 2 * user);
        churn(&mut loaded, &mut twin, 2 * user);
        loaded.check_invariants().unwrap_or_else(|e| panic!("seed {seed}: loaded FTL inconsistent after more writes: {e}"));
        assert_eq!(loaded.stats(), ftl.stats(), "seed {seed}");
        assert!(saved(&loaded) == saved(&ftl), "seed {seed}: the loaded FTL's state differs from the original's");
    }
}
