//! Validation: steady-state WA of uniform random single-sector writes with greedy GC matches the
//! finite-block analytic model within 3% at spare factors 7%, 12.5%, 25% and 50%.

use ssdlab_core::SimRng;
use ssdlab_ftl::analytic::greedy_wa_finite;
use ssdlab_ftl::{Ftl, FtlConfig, GcPolicy, NullSink};
use ssdlab_nand::Geometry;

fn measured_wa(spare_factor: f64, pages_per_block: u32, blocks: u32, dies: u32, seed: u64) -> f64 {
    let geometry = Geometry {
        channels: dies,
        packages_per_channel: 1,
        dies_per_package: 1,
        planes_per_die: 1,
        blocks_per_plane: blocks,
        pages_per_block,
        page_bytes: 4096,
        spare_bytes_per_page: 0,
    };
    let total = geometry.total_slots();
    let user = ((1.0 - spare_factor) * total as f64) as u64;
    let config = FtlConfig {
        geometry,
        user_sectors: user,
        gc_policy: GcPolicy::Greedy,
        gc_low_free_blocks_per_die: 1,
        gc_schedule: Default::default(),
        gc_idle_target_free_blocks_per_die: 1,
        track_tags: false,
        store_data: false,
        native_pages_per_program: 1,
        slc: None,
        metadata: None,
    };
    let mut ftl = Ftl::new(config, "validation").unwrap();
    let mut sink = NullSink;
    for lba in 0..user {
        ftl.write(lba, 0, &mut sink).unwrap();
    }
    let mut rng = SimRng::new(seed);
    for _ in 0..4 * user {
        ftl.write(rng.below(user), 0, &mut sink).unwrap();
    }
    let (moved0, host0) = (ftl.stats().gc_sectors_moved, ftl.stats().host_sectors_written);
    for _ in 0..6 * user {
        ftl.write(rng.below(user), 0, &mut sink).unwrap();
    }
    let moved = ftl.stats().gc_sectors_moved - moved0;
    let host = ftl.stats().host_sectors_written - host0;
    (host + moved) as f64 / host as f64
}

#[test]
fn greedy_steady_state_wa_within_three_percent_of_model() {
    for spare_factor in [0.07, 0.125, 0.25, 0.5] {
        let model = greedy_wa_finite(spare_factor, 64);
        let sim = measured_wa(spare_factor, 64, 2048, 1, 42);
        let diff = (sim - model) / model;
        println!("Sf {spare_factor:>5}: sim {sim:.4} model {model:.4} diff {:+.2}%", diff * 100.0);
        assert!(diff.abs() < 0.03, "Sf {spare_factor}: sim {sim:.4} vs model {model:.4} ({:+.2}%)", diff * 100.0);
    }
}
