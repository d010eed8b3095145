//! Model-based swarm test of the FTL against a reference map.
//!
//! Every case draws a small random drive (geometry, spare, GC policy) and a random mix of writes,
//! overwrites, TRIMs, reads, flushes, explicit GC rounds and secure erases from one seed, and
//! checks after every step that reads return the last tag written (zero after TRIM), and
//! periodically that the FTL's structures agree with a full recount. A failure names the seed;
//! rerun one case with `SSDLAB_SEED=<seed> cargo test -p ssdlab-ftl --test model_swarm`.

mod common;

use ssdlab_core::SimRng;
use ssdlab_ftl::{Ftl, FtlConfig, NullSink};

struct Case {
    ftl: Ftl,
    reference: Vec<u64>,
}

fn build(rng: &mut SimRng) -> Case {
    let geometry = common::draw_geometry(rng, |rng| 2 + rng.below(7) as u32);
    let (low, user_sectors) = common::draw_low_and_user_sectors(rng, &geometry);
    let gc_schedule = common::draw_gc_schedule(rng, &geometry, low, user_sectors);
    let (metadata, user_sectors) = common::draw_metadata(rng, &geometry, user_sectors, 1);
    let config = FtlConfig {
        geometry,
        user_sectors,
        gc_policy: common::draw_gc_policy(rng),
        gc_low_free_blocks_per_die: low,
        gc_schedule,
        gc_idle_target_free_blocks_per_die: low + 2,
        track_tags: true,
        store_data: false,
        native_pages_per_program: 1,
        slc: None,
        metadata,
    };
    let ftl = Ftl::new(config, "swarm").expect("generated config must be valid");
    Case { reference: vec![0; user_sectors as usize], ftl }
}

fn run_case(seed: u64, steps: u32) -> u64 {
    let mut rng = SimRng::new(seed);
    let mut case = build(&mut rng);
    let user = case.ftl.user_sectors();
    let mut next_tag = 1u64;
    let mut sink = NullSink;
    // Hot spots make overwrites and shared GC pressure likely.
    let hot = 1 + rng.below(user);
    for step in 0..steps {
        let pick = rng.below(100);
        let lba = if rng.below(2) == 0 { rng.below(hot) } else { rng.below(user) };
        match pick {
            0..=59 => {
                let len = (1 + rng.below(8)).min(user - lba);
                for s in lba..lba + len {
                    case.ftl.write(s, next_tag, &mut sink).unwrap_or_else(|e| panic!("seed {seed} step {step}: write failed: {e}"));
                    case.reference[s as usize] = next_tag;
                    next_tag += 1;
                }
            }
            60..=74 => {
                let len = (1 + rng.below(16)).min(user - lba);
                for s in lba..lba + len {
                    case.ftl.trim(s).unwrap();
                    case.reference[s as usize] = 0;
                }
            }
            75..=89 => {
                let got = case.ftl.read_tag(lba);
                assert_eq!(got, case.reference[lba as usize], "seed {seed} step {step}: read of sector {lba}");
            }
            90..=94 => {
                let die = rng.below(case.ftl.config().geometry.dies() as u64) as u32;
                case.ftl.collect_one(die, &mut sink);
            }
            95..=98 => {
                case.ftl.pad_open_unit(&mut sink);
            }
            _ => {
                if rng.below(10) == 0 {
                    case.ftl.secure_erase();
                    case.reference.fill(0);
                }
            }
        }
        if step % 64 == 0 {
            case.ftl.check_invariants().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
        }
    }
    common::check_then_trim_everything(&mut case.ftl, &case.reference, seed, |_| {});
    case.ftl.stats().gc_sectors_moved
}

#[test]
fn swarm_mapping_agrees_with_reference_map() {
    let moved: u64 = common::swarm("FTL", 0x55D1_AB00, |seed| run_case(seed, 4000), |seed| run_case(seed, 3000)).iter().sum();
    // The swarm must actually exercise garbage collection with live data to move.
    if std::env::var("SSDLAB_SEED").is_err() {
        assert!(moved > common::cases() * 100, "garbage collection moved only {moved} sectors over the swarm");
    }
}
