//! The list of emptied blocks (`Translation::take_emptied_blocks`, which a served drive uses to
//! recycle a block's storage before its erase): under random overwrites, TRIMs and GC, every
//! block listed is fully programmed, not erased since, and holds no sector's data; and every
//! such block is listed.

use ssdlab_core::SimRng;
use ssdlab_ftl::{Ftl, FtlConfig, GcPolicy, GcSchedule, Piece, Translation};
use ssdlab_nand::{Geometry, OpKind};
use std::collections::{BTreeMap, BTreeSet};

fn config() -> FtlConfig {
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
        gc_policy: GcPolicy::Greedy,
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

/// Which units of each block were programmed since its last erase, and the erases.
#[derive(Default)]
struct Recorder {
    programmed: BTreeMap<u32, BTreeSet<u32>>,
    erases: u64,
}

impl ssdlab_ftl::FlashSink for Recorder {
    fn program(&mut self, _die: u32, block: u32, unit: u32, _kind: OpKind) {
        self.programmed.entry(block).or_default().insert(unit);
    }
    fn read_for_move(&mut self, _die: u32, _block: u32, _unit: u32, _bytes: u64) {}
    fn erase(&mut self, _die: u32, block: u32) {
        self.programmed.remove(&block);
        self.erases += 1;
    }
}

/// Blocks some sector's data lies in.
fn mapped_blocks(ftl: &Ftl) -> BTreeSet<u32> {
    let mut pieces: Vec<Piece> = Vec::new();
    for lba in 0..ftl.user_sectors() {
        ftl.pieces(lba, &mut pieces);
    }
    pieces.iter().map(|p| p.block).collect()
}

#[test]
fn every_emptied_block_is_listed_once_and_only_emptied_ones_are() {
    let mut ftl = Ftl::new(config(), "emptied").unwrap();
    ftl.track_emptied_blocks(true);
    let units = 8u32; // multi-plane pages per block
    let user = ftl.user_sectors();
    let mut rng = SimRng::new(7);
    let mut sink = Recorder::default();
    // Blocks listed and not erased since.
    let mut listed: BTreeSet<u32> = BTreeSet::new();
    let mut taken = Vec::new();
    let mut total = 0u64;
    for step in 0..4 * user {
        // Mostly sequential runs (whole blocks empty) with random overwrites and TRIMs.
        let lba = if rng.below(10) == 0 { rng.below(user) } else { step % user };
        if rng.below(25) == 0 {
            ftl.trim(lba).unwrap();
        } else {
            ftl.write(lba, step + 1, &mut sink).unwrap();
        }
        listed.retain(|b| sink.programmed.get(b).is_some_and(|u| u.len() as u32 == units));
        taken.clear();
        ftl.take_emptied_blocks(&mut taken);
        if taken.is_empty() && step % 97 != 0 {
            continue;
        }
        let mapped = mapped_blocks(&ftl);
        for &b in &taken {
            let programmed = sink.programmed.get(&b).map_or(0, |u| u.len() as u32);
            assert_eq!(programmed, units, "step {step}: block {b} listed as emptied with {programmed} of {units} units programmed");
            assert!(!mapped.contains(&b), "step {step}: block {b} listed as emptied still holds a sector's data");
            assert!(listed.insert(b), "step {step}: block {b} listed twice");
            total += 1;
        }
        // Completeness: a fully programmed block that holds no data was listed.
        for (&b, u) in &sink.programmed {
            if u.len() as u32 == units && !mapped.contains(&b) {
                assert!(listed.contains(&b), "step {step}: block {b} is programmed and empty but was never listed");
            }
        }
    }
    assert!(total > 20 && sink.erases > 0, "{total} blocks listed, {} erases: the churn should empty and erase blocks", sink.erases);
    ftl.check_invariants().unwrap();
}
