//! Model-based swarm test of the data-reduction FTL with real bytes.
//!
//! Each case draws a small drive and a random mix of writes (random, repeating, text, zero and
//! half-compressible content, often the same content at many addresses), overwrites, TRIMs,
//! reads, flushes, GC rounds and secure erases. Reads must return exactly the bytes last
//! written (zeros after TRIM); structures must agree with a full recount (reference counts,
//! valid units, index). At the end everything is trimmed and collected: no live chunk and no
//! valid unit may remain. A failure names the seed: `SSDLAB_SEED=<seed> cargo test -p
//! ssdlab-ftl --test chunk_swarm`.

mod common;

use ssdlab_core::SimRng;
use ssdlab_ftl::{ChunkFtl, ChunkFtlConfig, NullSink};
use ssdlab_nand::Geometry;
use ssdlab_reduce::{decompress_sector, DataPattern, PatternKind, SectorContent, SECTOR_BYTES};

const PATTERNS: [PatternKind; 5] =
    [PatternKind::Random, PatternKind::Repeating, PatternKind::Text, PatternKind::Zeros, PatternKind::FioCompress { percent: 50, chunk_bytes: 512 }];

fn bytes_of(pattern: usize, seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; SECTOR_BYTES];
    DataPattern { kind: PATTERNS[pattern], dedupe_percent: 0 }.fill_sector(seed, &mut out);
    out
}

fn build(rng: &mut SimRng) -> ChunkFtl {
    let page_bytes = if rng.below(2) == 0 { 4096 } else { 8192 };
    let geometry = Geometry {
        channels: 1 + rng.below(2) as u32,
        packages_per_channel: 1,
        dies_per_package: 1 + rng.below(2) as u32,
        planes_per_die: 1 + rng.below(2) as u32,
        blocks_per_plane: 12 + rng.below(20) as u32,
        pages_per_block: 2 + rng.below(7) as u32,
        page_bytes,
        spare_bytes_per_page: 64,
    };
    let (low, user_sectors) = common::draw_low_and_user_sectors(rng, &geometry);
    let ecc_unit_bytes = [512u32, 1024, 2048, 4096][rng.below(4) as usize];
    let gc_policy = common::draw_gc_policy(rng);
    let gc_schedule = common::draw_gc_schedule(rng, &geometry, low, user_sectors);
    let (metadata, user_sectors) = common::draw_metadata(rng, &geometry, user_sectors, 2);
    let config = ChunkFtlConfig {
        geometry,
        user_sectors,
        ecc_unit_bytes,
        chunk_header_bytes: rng.below(40) as u32,
        dedup_index_entries: 1 + rng.below(400),
        gc_policy,
        gc_low_free_blocks_per_die: low,
        gc_schedule,
        gc_idle_target_free_blocks_per_die: low + 2,
        keep_payloads: true,
        payload_limit_bytes: u64::MAX,
        store_data: false,
        partial_page_reads: true,
        trim_keeps_stale_pointers: rng.below(2) == 0,
        metadata,
    };
    let mut ftl = ChunkFtl::new(config, "swarm").expect("generated config is valid");
    // Half the cases keep reference counts from 2 to 5 up aside, as a drive does past 16.7
    // million references to one chunk.
    if rng.below(2) == 0 {
        ftl.saturate_refs_at(2 + rng.below(4) as u32);
    }
    ftl
}

fn read_back(ftl: &ChunkFtl, lba: u64) -> Vec<u8> {
    match ftl.read_payload(lba) {
        None => vec![0u8; SECTOR_BYTES],
        Some(stored) => decompress_sector(stored).expect("stored chunk decompresses"),
    }
}

fn run_case(seed: u64, steps: u32) -> (u64, u64, u64) {
    let mut rng = SimRng::new(seed);
    let mut ftl = build(&mut rng);
    let user = ftl.user_sectors();
    let mut reference: Vec<Option<(usize, u64)>> = vec![None; user as usize];
    let mut sink = NullSink;
    let shared_seeds: Vec<u64> = (0..1 + rng.below(32)).map(|_| rng.next_u64()).collect();
    let hot = 1 + rng.below(user);
    let mut saturated = 0u64;
    for step in 0..steps {
        let lba = if rng.below(2) == 0 { rng.below(hot) } else { rng.below(user) };
        match rng.below(100) {
            0..=59 => {
                let len = (1 + rng.below(8)).min(user - lba);
                for s in lba..lba + len {
                    let pattern = rng.below(PATTERNS.len() as u64) as usize;
                    let content_seed = if rng.below(3) == 0 { shared_seeds[rng.below(shared_seeds.len() as u64) as usize] } else { rng.next_u64() };
                    let bytes = bytes_of(pattern, content_seed);
                    let content = SectorContent::from_bytes(&bytes);
                    let zero = content.zero;
                    ftl.write(s, content, &mut sink).unwrap_or_else(|e| panic!("seed {seed} step {step}: write failed: {e}"));
                    reference[s as usize] = if zero { None } else { Some((pattern, content_seed)) };
                }
            }
            60..=74 => {
                let len = (1 + rng.below(16)).min(user - lba);
                for s in lba..lba + len {
                    ftl.trim(s).unwrap();
                    reference[s as usize] = None;
                }
            }
            75..=89 => {
                let expected = reference[lba as usize].map(|(p, c)| bytes_of(p, c)).unwrap_or_else(|| vec![0u8; SECTOR_BYTES]);
                assert!(read_back(&ftl, lba) == expected, "seed {seed} step {step}: read of sector {lba} differs");
            }
            90..=94 => {
                let die = rng.below(ftl.config().geometry.dies() as u64) as u32;
                ftl.collect_one(die, &mut sink);
            }
            95..=98 => {
                ftl.pad_open_unit(&mut sink);
            }
            _ => {
                if rng.below(10) == 0 {
                    ftl.secure_erase();
                    reference.fill(None);
                }
            }
        }
        if step % 64 == 0 {
            ftl.check_invariants().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
            saturated += ftl.chunks_with_many_refs() as u64;
        }
    }
    for lba in 0..user {
        let expected = reference[lba as usize].map(|(p, c)| bytes_of(p, c)).unwrap_or_else(|| vec![0u8; SECTOR_BYTES]);
        assert!(read_back(&ftl, lba) == expected, "seed {seed}: final read of sector {lba} differs");
    }
    ftl.check_invariants().unwrap_or_else(|e| panic!("seed {seed} at end: {e}"));
    let stats = ftl.stats().clone();
    for lba in 0..user {
        ftl.trim(lba).unwrap();
    }
    for die in 0..ftl.config().geometry.dies() {
        let mut rounds = 0;
        while ftl.collect_one(die, &mut sink) {
            rounds += 1;
            assert!(rounds < 100_000, "seed {seed}: GC does not terminate");
        }
    }
    // Only the firmware's metadata stays (map pages and journal, raw 4 KiB chunks).
    let meta = ftl.metadata_chunks();
    assert_eq!(ftl.live_chunks(), meta, "seed {seed}: live chunks remain after trimming everything");
    assert_eq!(ftl.valid_units(), meta * (SECTOR_BYTES as u64 / ftl.unit_bytes() as u64), "seed {seed}: valid units remain after trimming everything");
    assert_eq!(ftl.index_entries(), 0, "seed {seed}: the index still points at freed chunks");
    assert_eq!(ftl.chunks_with_many_refs(), 0, "seed {seed}: reference counts kept aside for freed chunks");
    ftl.check_invariants().unwrap_or_else(|e| panic!("seed {seed} after full trim: {e}"));
    (stats.gc_chunks_moved, stats.dedup_hits, saturated)
}

#[test]
fn swarm_real_bytes_agree_with_reference_map() {
    let results = common::swarm("chunk FTL", 0xC4_0000, |seed| run_case(seed, 1500), |seed| run_case(seed, 3000));
    if std::env::var("SSDLAB_SEED").is_err() {
        let moved: u64 = results.iter().map(|r| r.0).sum();
        let hits: u64 = results.iter().map(|r| r.1).sum();
        assert!(moved > common::cases() * 20, "GC moved only {moved} chunks over the swarm");
        assert!(hits > common::cases() * 20, "only {hits} dedup hits over the swarm");
        let saturated: u64 = results.iter().map(|r| r.2).sum();
        assert!(saturated > common::cases(), "reference counts were kept aside only {saturated} times over the swarm");
    }
}
