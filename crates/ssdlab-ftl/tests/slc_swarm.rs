//! Model-based swarm test of the page FTL as today's drives use it: an SLC cache (static and
//! dynamic pSLC blocks, folding, each `when_full` behaviour, idle folding) and one-shot program
//! units (a TLC or QLC word line programmed at once), against a reference map.
//!
//! Every case draws a small drive and a random mix of writes, overwrites, TRIMs, reads, flushes
//! (every partly filled unit programmed, host and GC; in a quarter of the cases after every
//! write), host-unit padding, explicit GC rounds,
//! idle periods (the host pauses; idle GC and folding run until the dies are done) and secure
//! erases from one seed. After every read the FTL must return the last tag written (zero after
//! TRIM); its structures are recounted periodically; at the end everything is trimmed and
//! collected and nothing may stay valid. A failure names the seed; rerun one case with
//! `SSDLAB_SEED=<seed> cargo nextest run -p ssdlab-ftl --test slc_swarm`
//! (`SSDLAB_SWARM_CASES` sets the number of cases).

mod common;

use ssdlab_core::SimRng;
use ssdlab_ftl::{Ftl, FtlConfig, NullSink, SlcCacheConfig, Translation, WhenCacheFull};

struct Case {
    ftl: Ftl,
    reference: Vec<u64>,
}

/// Draw a drive with an SLC cache: bits per cell 2 to 4, one-shot word lines or page-at-a-time
/// programming, 0 to 2 static SLC blocks per die, 0 to 5 dynamic ones.
fn build(seed: u64, rng: &mut SimRng) -> Case {
    let ratio = 2 + rng.below(3) as u32;
    let one_shot = rng.below(2) == 0;
    let geometry = common::draw_geometry(rng, |rng| ratio * (1 + rng.below(4) as u32));
    let (low, user_sectors) = common::draw_low_and_user_sectors(rng, &geometry);
    let gc_schedule = common::draw_gc_schedule(rng, &geometry, low, user_sectors);
    let (metadata, user_sectors) = common::draw_metadata(rng, &geometry, user_sectors, 1);
    let slc = SlcCacheConfig {
        ratio,
        static_blocks_per_die: rng.below(3) as u32,
        dynamic_max_blocks_per_die: rng.below(6) as u32,
        when_full: [WhenCacheFull::Native, WhenCacheFull::Fold, WhenCacheFull::Flush][rng.below(3) as usize],
        idle_fold: rng.below(2) == 0,
        native_endurance_cycles: 0,
        pslc_endurance_cycles: 0,
    };
    let config = FtlConfig {
        geometry,
        user_sectors,
        gc_policy: common::draw_gc_policy(rng),
        gc_low_free_blocks_per_die: low,
        gc_schedule,
        gc_idle_target_free_blocks_per_die: low + 2,
        track_tags: true,
        store_data: false,
        native_pages_per_program: if one_shot { ratio } else { 1 },
        slc: Some(slc),
        metadata,
    };
    let ftl = Ftl::new(config.clone(), "slc swarm").unwrap_or_else(|e| panic!("seed {seed}: drawn config refused: {e}\n{config:?}"));
    Case { reference: vec![0; user_sectors as usize], ftl }
}

/// The host pauses: idle GC and folding run on every die until it has nothing left to do.
fn idle(ftl: &mut Ftl, seed: u64, step: u32, sink: &mut NullSink) {
    ftl.idle_began();
    let dies = ftl.config().geometry.dies();
    for die in 0..dies {
        let mut rounds = 0;
        while ftl.wants_idle_gc(die) && ftl.collect_one(die, sink) {
            rounds += 1;
            assert!(rounds < 100_000, "seed {seed} step {step}: idle GC on die {die} does not finish");
        }
    }
}

fn run_case(seed: u64, steps: u32) -> (u64, u64) {
    let mut rng = SimRng::new(seed);
    let mut case = build(seed, &mut rng);
    let user = case.ftl.user_sectors();
    let mut next_tag = 1u64;
    let mut sink = NullSink;
    let mut most_slc = 0u64;
    // Hot spots make overwrites and shared GC pressure likely; long runs fill the cache.
    let hot = 1 + rng.below(user);
    // A quarter of the cases flush after every write (a database's `fsync` after each).
    let flush_every_write = rng.below(4) == 0;
    for step in 0..steps {
        let pick = rng.below(100);
        let lba = if rng.below(2) == 0 { rng.below(hot) } else { rng.below(user) };
        match pick {
            0..=54 => {
                let longest = if rng.below(8) == 0 { 64 } else { 8 };
                let len = (1 + rng.below(longest)).min(user - lba);
                for s in lba..lba + len {
                    case.ftl.write(s, next_tag, &mut sink).unwrap_or_else(|e| panic!("seed {seed} step {step}: write failed: {e}"));
                    case.reference[s as usize] = next_tag;
                    next_tag += 1;
                }
                if flush_every_write {
                    Translation::program_open_units(&mut case.ftl, &mut sink);
                }
            }
            55..=66 => {
                let len = (1 + rng.below(16)).min(user - lba);
                for s in lba..lba + len {
                    case.ftl.trim(s).unwrap();
                    case.reference[s as usize] = 0;
                }
            }
            67..=81 => {
                let got = case.ftl.read_tag(lba);
                assert_eq!(got, case.reference[lba as usize], "seed {seed} step {step}: read of sector {lba}");
            }
            82..=86 => {
                let die = rng.below(case.ftl.config().geometry.dies() as u64) as u32;
                case.ftl.collect_one(die, &mut sink);
            }
            87..=90 => {
                case.ftl.pad_open_unit(&mut sink);
            }
            91..=95 => {
                Translation::program_open_units(&mut case.ftl, &mut sink);
            }
            96..=98 => idle(&mut case.ftl, seed, step, &mut sink),
            _ => {
                if rng.below(10) == 0 {
                    case.ftl.secure_erase();
                    case.reference.fill(0);
                }
            }
        }
        most_slc = most_slc.max(case.ftl.slc_blocks());
        if step % 64 == 0 {
            case.ftl.check_invariants().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
        }
    }
    common::check_then_trim_everything(&mut case.ftl, &case.reference, seed, |ftl| idle(ftl, seed, steps, &mut sink));
    let stats = case.ftl.stats();
    (stats.fold_sectors_moved + stats.gc_sectors_moved, most_slc)
}

#[test]
fn swarm_with_slc_cache_agrees_with_reference_map() {
    let results = common::swarm("SLC FTL", 0x51C0_0000, |seed| run_case(seed, 4000), |seed| run_case(seed, 3000));
    // The swarm must exercise the cache and move live data (folds and GC).
    if std::env::var("SSDLAB_SEED").is_err() {
        let moved: u64 = results.iter().map(|r| r.0).sum();
        let cached = results.iter().filter(|r| r.1 > 0).count() as u64;
        assert!(moved > common::cases() * 100, "folds and GC moved only {moved} sectors over the swarm");
        assert!(cached * 2 > common::cases(), "only {cached} cases ever had an SLC block");
    }
}
