//! Full-scale validation table: steady-state WA of uniform random 4 KiB writes with greedy GC
//! on the Force GS geometry (32 dies, 2048 blocks per die, 1024 slots per block, 256 GiB raw),
//! at spare factors 7%, 12.5%, 25% and 50%, beside the finite-block analytic model.
//!
//! `cargo run --release -p ssdlab-ftl --example wa_validation`

use ssdlab_core::SimRng;
use ssdlab_ftl::analytic::{greedy_wa_asymptotic, greedy_wa_finite};
use ssdlab_ftl::{Ftl, FtlConfig, GcPolicy, NullSink};
use ssdlab_nand::Geometry;

fn main() {
    let geometry = Geometry {
        channels: 8,
        packages_per_channel: 2,
        dies_per_package: 2,
        planes_per_die: 2,
        blocks_per_plane: 2048,
        pages_per_block: 256,
        page_bytes: 8192,
        spare_bytes_per_page: 640,
    };
    let total = geometry.total_slots();
    let slots_per_block = geometry.slots_per_block();
    println!("| spare factor (T-U)/T | user GiB | sim WA | finite-block model | difference | asymptotic (Lambert W) |");
    println!("|---|---|---|---|---|---|");
    for spare_factor in [0.07, 0.125, 0.25, 0.5] {
        let user = ((1.0 - spare_factor) * total as f64) as u64;
        let config = FtlConfig {
            geometry: geometry.clone(),
            user_sectors: user,
            gc_policy: GcPolicy::Greedy,
            gc_low_free_blocks_per_die: 2,
            gc_schedule: Default::default(),
            gc_idle_target_free_blocks_per_die: 2,
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
        let mut rng = SimRng::new(7);
        for _ in 0..2 * user {
            ftl.write(rng.below(user), 0, &mut sink).unwrap();
        }
        let (moved0, host0) = (ftl.stats().gc_sectors_moved, ftl.stats().host_sectors_written);
        for _ in 0..user {
            ftl.write(rng.below(user), 0, &mut sink).unwrap();
        }
        let host = ftl.stats().host_sectors_written - host0;
        let sim = (host + ftl.stats().gc_sectors_moved - moved0) as f64 / host as f64;
        let model = greedy_wa_finite(spare_factor, slots_per_block);
        println!(
            "| {:.1}% | {:.1} | {sim:.3} | {model:.3} | {:+.2}% | {:.3} |",
            spare_factor * 100.0,
            user as f64 * 4096.0 / (1u64 << 30) as f64,
            (sim - model) / model * 100.0,
            greedy_wa_asymptotic(spare_factor)
        );
    }
}
